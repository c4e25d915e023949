/* Splitting rules before instantiation, so that the network does not hold a cross product.
 *
 * A rule's ground instances are the bindings of its head's variables and those of its
 * non-static literals; a variable the head does not need multiplies them by its values.
 * Such a variable is eliminated by moving the literals that mention it (with what binds
 * their other variables) into an auxiliary rule whose head keeps only the variables the rest
 * of the rule still reads: for the frame rule of a board game,
 *     (next (cell ?x ?y ?p)) <= (true (cell ?x ?y ?p)) (does ?r (move ?a ?b ?c ?d))
 *                               (distinct-cells ?x ?y ?a ?b) ...
 * the move's variables go into (aux ?x ?y) <= (does ...) (distinct-cells ...), and the rule
 * reads (aux ?x ?y): cells times moves literals become cells plus moves times squares. Each
 * elimination is taken greedily while the estimated number of ground literals drops by a
 * fifth, from the sizes of the relations derived (the atoms known) and the distinct values
 * of each variable in them, joins estimated as if independent.
 *
 * Two moves let an elimination take fewer variables with it. A negated literal's variables
 * are bound in the auxiliary rule by a positive literal of the rest; when that literal
 * brings variables the bucket does not have, it may be read instead as its projection on
 * those it has (a static filter of the tuples its atoms have there; the literal itself
 * stays in the rest): chess's OR over the king's squares of a negated threat per move,
 * bound by `legal2 ?player (move ?piece ?u ?v ?x ?y)`, depends on the squares, not on the
 * piece. And a static relation that is a union of filters on its arguments (rules of
 * distinct literals and unary fact tables: chess's `different_cells`, "(distinct ?x1 ?x2)
 * or (distinct ?y1 ?y2)") is unfolded into one copy of the reading rule per rule of it
 * when the copies split into fewer estimated literals by a fifth: each copy ties fewer
 * variables together. */
#ifndef ENGINE_GSPLIT_H
#define ENGINE_GSPLIT_H

#include "engine/gatoms.h"
#include "engine/gprog.h"

typedef struct gsplit gsplit_t;

gsplit_t *gsplit_new(gprog_t *P, gatoms_t *A);
void gsplit_free(gsplit_t *S);

/* Appends to out the rules that stand for rule r, in the order to instantiate them
 * (auxiliary rules first); r itself when it is not split. */
void gsplit_rule(gsplit_t *S, uint32_t r, gids_t *out);

typedef struct {
    uint32_t split;     /* rules split */
    uint32_t aux;       /* auxiliary rules made */
    uint32_t unfolded;  /* rules whose static filters were unfolded */
    uint32_t projected; /* binders read as projections */
} gsplit_counts_t;

/* What was done so far. */
void gsplit_counts(const gsplit_t *S, gsplit_counts_t *c);

#endif
