/* The bounded search for forced outcomes: can a coalition of roles force a goal condition
 * within i steps from one state of a big game, decided over the real moves.
 *
 * The claim of symbolic backward search (regress/bddsearch.h), for any number of roles
 * and simultaneous moves: the roles of the coalition commit to a joint move, the others
 * answer knowing it, and after at most i joint moves the game must be in a terminal state
 * where the role's goal value is at least v (above) or at most v (not above); a terminal
 * state ends the search (met or not). Depth-first on an engine (any backend), answers
 * memoised by (state, steps left) in a transposition table for the current query
 * parameters; a search that needs more than its node limit or runs past its deadline gives
 * up (FORCE_UNKNOWN) rather than run on. The same sets as truth/solve.h's solve_force on
 * small games. */
#ifndef TRUTH_FORCE_H
#define TRUTH_FORCE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"

#define FORCE_UNKNOWN (-1)

typedef struct {
    uint64_t coalition; /* bit r: role r commits first */
    uint32_t role;      /* whose goal */
    int v;
    bool above;
} force_goal_t;

typedef struct force force_t;

force_t *force_new(engine_t *e);
void force_free(force_t *f);

/* 1 when the coalition forces the goal from s within i steps, 0 when not, FORCE_UNKNOWN
 * when deciding it would expand more than max_nodes states (0: no limit) or run past
 * deadline (now_seconds(); 0: none). */
int force_within(force_t *f, const eng_state_t *s, const force_goal_t *goal, uint32_t i,
                 uint64_t max_nodes, double deadline);

/* States expanded since force_new. */
uint64_t force_nodes(const force_t *f);

#endif
