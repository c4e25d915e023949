/* Hybrid grounding: a cluster of relations left lifted, read by the network through query
 * nodes (docs/engine.md, Grounding, Hybrid).
 *
 * When a relation grows past the grounder's limits (laikLee_hex's list type, whose lists
 * the connection relation carries as visited cells: every simple path an atom), the
 * relations that depend on it are left out of the network up to a cut where what the rest
 * of the rules read is finitely many atoms: the boundary relations. Each boundary atom
 * becomes a query node, a leaf whose value the engine computes on each state with the rules
 * evaluator (reason.h), which answers the lifted relations top-down or on demand. The rest
 * (terminal, goal, legal, next) stays ground.
 *
 * The cut grows from the relation that blew up: a lifted relation X is a boundary when every
 * rule outside the cluster that reads X binds the literal's variables by positive literals
 * of relations that do not depend on the cluster, or when every rule of X binds its head's
 * variables so (its atoms are then what those literals allow); otherwise the readers are
 * lifted too. Refused: a cut that would lift an interface relation (legal, next, goal,
 * terminal, sees, init), a cluster that depends on `does` (the query reads the state only),
 * a static boundary (its readers would be computed as exact), a program with wildcard
 * arguments (gany.h: their atoms are not the game's). */
#ifndef ENGINE_GQUERY_H
#define ENGINE_GQUERY_H

#include <stdio.h>

#include "engine/gprog.h"

typedef struct {
    uint32_t n_preds; /* of the program the cut was chosen on (gprog_new's numbering) */
    bool *lifted;     /* per predicate: left out of the network */
    bool *boundary;   /* per predicate: lifted and read by the network (query nodes) */
    uint32_t blew;    /* the relation the cut grew from */
    uint32_t n_lifted, n_boundary;
} gquery_cut_t;

/* Chooses the cut around relation blew of P; false with a reason in why (size n) when no
 * admissible cut exists. */
bool gquery_cut(const gprog_t *P, uint32_t blew, gquery_cut_t *cut, char *why, size_t n);
void gquery_cut_fini(gquery_cut_t *cut);

/* Rewrites P (fresh from gprog_new, numbered as the cut's): the rules of lifted relations
 * out of the program, and for each boundary relation transfer rules that say which of its
 * atoms the network may read (its own rules' or its readers' binding literals). */
void gquery_apply(gprog_t *P, const gquery_cut_t *cut);

/* --stats: the lifted relations and the boundary. */
void gquery_report(FILE *f, const gprog_t *P, const gquery_cut_t *cut);

#endif
