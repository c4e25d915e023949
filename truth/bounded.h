/* The bounded exact search: is a state in W_i, decided over the real moves.
 *
 * The formulas of backward search claim sets of states; only the game itself can say
 * whether a claim is true. This module plays it out on an engine, depth i, for a
 * two-player turn-taking game: W_0 holds the terminal states where the role has goal 100;
 * for i odd the role moves (the other role's only legal move is its no-op, the role's own
 * no-op is not legal) and some move leads into W_{i-1}; for i even the other role moves
 * and every one of its moves leads into W_{i-1} (the same sets as the exact solver's,
 * solve.h). Answers are memoised by (state, role, i) in a transposition table; a search
 * that needs more than its node limit gives up (BOUNDED_UNKNOWN) rather than run on. */
#ifndef TRUTH_BOUNDED_H
#define TRUTH_BOUNDED_H

#include <stdint.h>

#include "base/clock.h"
#include "engine/engine.h"

#define BOUNDED_UNKNOWN (-1)

typedef struct bounded bounded_t;

/* On engine e (borrowed, used by the queries only); noop: each role's no-op (the
 * turn-taking shape of regress.h). */
bounded_t *bounded_new(engine_t *e, const term_t *noop);
void bounded_free(bounded_t *b);

/* 1 when s is in W_i of role, 0 when not, BOUNDED_UNKNOWN when deciding it would expand
 * more than max_nodes new states (0: no limit) or would run past deadline (now_seconds();
 * 0: none). */
int bounded_in_w(bounded_t *b, const state_t *s, uint32_t role, uint32_t i, uint64_t max_nodes,
                 double deadline);

/* States expanded (successors computed) since bounded_new, for cost reports. */
uint64_t bounded_nodes(const bounded_t *b);

#endif
