/* The exact solver: every reachable state of a small game, with its exact values.
 *
 * Explores the reachable state graph breadth-first with a state machine (engine.h: the
 * interpreter, or the ground or compiled engine, which explore much faster), each state's
 * legal moves in the canonical order of their terms (term_sort), so that every engine gives the
 * same state numbering and the same graph; then computes per state and role:
 *   - win_in: the least number of rounds in which the role forces goal 100 (the role
 *     commits to its move first, every joint reply of the others is considered), or
 *     SOLVE_NONE; 0 for terminal states where it has 100;
 *   - the turn-taking sets W_i of backward search, as a bit mask over i < 64: W_0 =
 *     terminal with goal 100; for i odd the role moves (the other role's only legal move
 *     is its no-op, the role's own no-op is not legal) and some move leads into W_{i-1};
 *     for i even the other role moves and every one of its moves leads into W_{i-1};
 *   - value: the minimax value of the role's goal (the role maximises, the others
 *     minimise; by levels, so for an acyclic graph only).
 * Everything is owned by the solver. */
#ifndef TRUTH_SOLVE_H
#define TRUTH_SOLVE_H

#include <stdint.h>

#include "engine/engine.h"

#define SOLVE_NONE 255u
#define SOLVE_NO_VALUE (-1)

typedef struct solve solve_t;

/* On engine e (used while exploring only). NULL (message in err) past max_states
 * reachable states. */
solve_t *solve_new(engine_t *e, uint32_t max_states, char *err, size_t errlen);
/* The same from a given root state (id 0 is the root): its reachable subgraph only. */
solve_t *solve_new_from(engine_t *e, const state_t *root, uint32_t max_states, char *err,
                        size_t errlen);
void solve_free(solve_t *s);

uint32_t solve_count(const solve_t *s);
const state_t *solve_state(const solve_t *s, uint32_t id); /* id 0 is the initial state */
bool solve_terminal(const solve_t *s, uint32_t id);
int solve_goal(const solve_t *s, uint32_t id, uint32_t role);
bool solve_cyclic(const solve_t *s);
/* Legal moves of a role in a state (owned by s). */
uint32_t solve_legal(const solve_t *s, uint32_t id, uint32_t role, const term_t **moves);

/* Successor ids, one per joint move in mixed radix, the last role varying fastest (owned
 * by s); returns their number, 0 for a terminal state. */
uint32_t solve_successors(const solve_t *s, uint32_t id, const uint32_t **succ);

/* Computes the round counts and the W_i masks of two-player games (noop: each role's
 * no-op; with NULL, the masks stay empty). Call once before the queries below. */
void solve_rounds(solve_t *s, const term_t *noop);
uint8_t solve_win_in(const solve_t *s, uint32_t id, uint32_t role);
uint64_t solve_wmask(const solve_t *s, uint32_t id, uint32_t role);
int solve_value(const solve_t *s, uint32_t id, uint32_t role);

/* Generalises win_in to any number of roles and any goal condition: out[id] (one per
 * state) the least number of rounds in which the roles of the bit mask `coalition`,
 * committing to their joint move first, force a terminal state where role's goal value is
 * at least v (above) or at most v (not above) whatever the other roles reply; SOLVE_NONE
 * when they cannot (0: such a terminal state). An undefined goal (-1) meets neither. */
void solve_force(const solve_t *s, uint64_t coalition, uint32_t role, int v, bool above,
                 uint8_t *out);

#endif
