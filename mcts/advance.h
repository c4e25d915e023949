/* How far a role's pieces are from its goal, read off the ground network (issue 25: the
 * advancement term of heur=adv).
 *
 * A role's goal fluents are the fluents that hold, positively, in the support of its best
 * goal value's rules (breakthrough: a piece of its colour on the far row). Fluent f leads
 * to fluent g by one move m of the role when true(f) supports legal(m) positively and
 * does(m) supports a rule of next(g) that does not keep g (a rule with true(g) in its
 * support is a frame rule: the move leaves g where it was, it does not make it). A
 * piece's distance is the fewest such steps from it to a goal fluent, all within the
 * given set of fluents (the role's pieces): what Fluxplayer reads off the successor
 * relations of the coordinates, here from the rules as grounded, whatever the
 * coordinates are called. */
#ifndef MCTS_ADVANCE_H
#define MCTS_ADVANCE_H

#include <stdint.h>

#include "engine/engine.h"

#define ADV_NONE 255 /* no goal fluent reachable (or not in the set) */
#define ADV_MAX 64   /* distances kept, at most (farther: ADV_NONE) */

/* The distance of every state bit of `pieces` (n_words words, engine_state_words' layout)
 * for role r, one byte a bit (ADV_NONE outside the set or beyond reach), into a new array
 * of n_words * 64 (the caller frees it); NULL when e has no ground network or the network
 * takes more than max_work node visits to read, or past the deadline (now_seconds(); 0:
 * none): chess_200's network takes a second to read while a compiler shares the core. */
uint8_t *advance_distances(engine_t *e, uint32_t r, const uint64_t *pieces, uint32_t n_words,
                           uint64_t max_work, double deadline);

#endif
