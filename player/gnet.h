/* A ground network of a game: every ground atom that relaxed reachability finds (`true`,
 * `does` and every derived relation), each derived atom with the ground bodies of the
 * rules that can make it, atoms numbered so that a body only names earlier atoms.
 *
 * Grounding: from the initial fluents, the rules are applied with negation ignored
 * (an over-approximation), `legal` atoms giving `does` atoms and `next` atoms `true`
 * atoms, until nothing new appears; then every rule is instantiated on those atoms. A
 * negated atom never found is true; `distinct` and static relations are folded into
 * constants. The belief reasoner (bsmt.h) unrolls the network step by step; a grounded
 * engine could hand it the same shape. Recursive games are refused (the network's
 * equivalences would not give the least fixed point). */
#ifndef PLAYER_GNET_H
#define PLAYER_GNET_H

#include "rules.h"

typedef enum { GNET_FLUENT, GNET_DOES, GNET_DERIVED } gnet_kind_t;

/* A body literal: atom id * 2, plus 1 when negated. */
typedef uint32_t gnet_lit_t;
#define GNET_NONE UINT32_MAX

typedef struct {
    const gnet_lit_t *lits;
    uint32_t n;
} gnet_body_t;

typedef struct gnet gnet_t;

/* NULL with a reason in err when the game is recursive or grounds to more than
 * max_atoms atoms (0: no limit). */
gnet_t *gnet_new(game_t *g, uint32_t max_atoms, strbuf_t *err);
void gnet_free(gnet_t *n);
const game_t *gnet_game(const gnet_t *n);

uint32_t gnet_count(const gnet_t *n);
/* Atoms as written in rules: (true F), (does R M), (legal R M), terminal, ... */
term_t gnet_atom(const gnet_t *n, uint32_t id);
gnet_kind_t gnet_kind(const gnet_t *n, uint32_t id);
/* The id of an atom term, or GNET_NONE. */
uint32_t gnet_find(const gnet_t *n, term_t atom);
/* 1 / 0 when the atom is a constant (static, or no body can hold), else -1. */
int gnet_const(const gnet_t *n, uint32_t id);
/* The bodies of a derived atom (constants folded away); *out owned by n. */
uint32_t gnet_bodies(const gnet_t *n, uint32_t id, const gnet_body_t **out);
uint32_t gnet_body_total(const gnet_t *n);

/* The fluent atoms (true F), in id order; the fluent term F of one. */
uint32_t gnet_fluents(const gnet_t *n, const uint32_t **ids);
term_t gnet_fluent_term(const gnet_t *n, uint32_t id);
/* The (next F) atom of a fluent atom, or GNET_NONE (then F never holds after a step). */
uint32_t gnet_next_of(const gnet_t *n, uint32_t fluent_id);
/* Whether F holds initially. */
bool gnet_initial(const gnet_t *n, uint32_t fluent_id);
/* The (does R M) atoms of role index r; the (legal R M) atom of one (never GNET_NONE). */
uint32_t gnet_moves(const gnet_t *n, uint32_t r, const uint32_t **ids);
uint32_t gnet_legal_of(const gnet_t *n, uint32_t does_id);
term_t gnet_move_term(const gnet_t *n, uint32_t does_id);
/* The (sees R P) atoms of role index r. */
uint32_t gnet_sees(const gnet_t *n, uint32_t r, const uint32_t **ids);
/* The terminal atom, or GNET_NONE. */
uint32_t gnet_terminal(const gnet_t *n);

#endif
