/* A game's ground network as the belief reasoner (bsmt.h) unrolls it: the engine's
 * grounder (ground.h) seen through ids, kinds and bodies. Every ground atom relaxed
 * reachability finds is a node (`true` and `does` atoms, and the derived ones: legal,
 * next, sees, goal, terminal and the game's own relations; static relations are
 * evaluated away), numbered as ground.h numbers them, plus a `does` node for each move
 * when the rules never read `does`. Each derived atom has the ground bodies of the rules
 * that can make it, constants folded (an atom no body can make is the constant 0). Bodies
 * may name later ids: the reasoner builds atoms on demand. Networks with a cycle through
 * ground rules are refused (the reasoner's equivalences would not give the least fixed
 * point). */
#ifndef PLAYER_BNET_H
#define PLAYER_BNET_H

#include "engine/ground.h"
#include "gdl/rules.h"

typedef enum { BNET_FLUENT, BNET_DOES, BNET_DERIVED } bnet_kind_t;

/* A body literal: atom id * 2, plus 1 when negated. */
typedef uint32_t bnet_lit_t;
#define BNET_NONE UINT32_MAX

typedef struct {
    const bnet_lit_t *lits;
    uint32_t n;
} bnet_body_t;

typedef struct bnet bnet_t;

/* On net, g's ground network (borrowed: it must outlive the bnet_t), the one the game's
 * engine plays on (engine_network) or one grounded for it (gnet_new). NULL with a reason
 * in err when net is NULL (the game did not ground: its engine is the interpreter) or its
 * ground rules are recursive. */
bnet_t *bnet_new(game_t *g, const gnet_t *net, strbuf_t *err);
void bnet_free(bnet_t *n);
const game_t *bnet_game(const bnet_t *n);

uint32_t bnet_count(const bnet_t *n);
/* Atoms as written in rules: (true F), (does R M), (legal R M), terminal, ...;
 * TERM_NONE for ground.h's placeholder next node of a fluent never derived. */
term_t bnet_atom(const bnet_t *n, uint32_t id);
bnet_kind_t bnet_kind(const bnet_t *n, uint32_t id);
/* The id of an atom term, or BNET_NONE. */
uint32_t bnet_find(const bnet_t *n, term_t atom);
/* 1 / 0 when the atom is a constant (static, or no body can hold), else -1. */
int bnet_const(const bnet_t *n, uint32_t id);
/* The bodies of a derived atom (constants folded away); *out owned by n. */
uint32_t bnet_bodies(const bnet_t *n, uint32_t id, const bnet_body_t **out);
uint32_t bnet_body_total(const bnet_t *n);

/* The fluent atoms (true F), in id order; the fluent term F of one. */
uint32_t bnet_fluents(const bnet_t *n, const uint32_t **ids);
term_t bnet_fluent_term(const bnet_t *n, uint32_t id);
/* The (next F) atom of a fluent atom, or BNET_NONE (then F never holds after a step). */
uint32_t bnet_next_of(const bnet_t *n, uint32_t fluent_id);
/* Whether F holds initially. */
bool bnet_initial(const bnet_t *n, uint32_t fluent_id);
/* The (does R M) atoms of role index r; the (legal R M) atom of one (never BNET_NONE). */
uint32_t bnet_moves(const bnet_t *n, uint32_t r, const uint32_t **ids);
uint32_t bnet_legal_of(const bnet_t *n, uint32_t does_id);
term_t bnet_move_term(const bnet_t *n, uint32_t does_id);
/* The (sees R P) atoms of role index r. */
uint32_t bnet_sees(const bnet_t *n, uint32_t r, const uint32_t **ids);
/* The terminal atom, or BNET_NONE. */
uint32_t bnet_terminal(const bnet_t *n);

#endif
