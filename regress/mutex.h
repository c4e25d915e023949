/* Mutex invariants: pairs of fluents that never hold together in a reachable state.
 *
 * Candidates are groups of one fluent signature whose instances agree on every argument
 * but one position (the values of one cell, say), kept when no sampled state has two of
 * them. Each candidate is then proven by induction with Z3 over the rules grounded on the
 * game's fluents: it holds in the initial state, and if all candidates hold in a
 * non-terminal state they still hold after any legal joint move. Candidates whose step
 * fails are dropped and the rest re-proven (Houdini), so what remains is jointly
 * inductive: a true invariant of every reachable state. */
#ifndef REGRESS_MUTEX_H
#define REGRESS_MUTEX_H

#include "base/clock.h"
#include "engine/engine.h"
#include "regress/expand.h"

typedef struct {
    uint32_t candidates; /* surviving sampling */
    uint32_t proven;
    uint32_t rounds; /* Houdini rounds */
    double seconds;
    bool no_vocabulary; /* no fluent set to ground on: nothing proven */
    bool timed_out;     /* the deadline passed: nothing proven */
} mutex_report_t;

/* Proves the mutex groups of e's game, grounded on e's vocabulary (vocab.h: nothing is
 * proven on an unproven one); *out (malloc'd, caller frees) receives them. noop is each
 * role's no-op (unused by the proof; NULL allowed). Gives up (nothing proven) past
 * `deadline` (now_seconds() time; 0: none). rep may be NULL. */
uint32_t mutex_prove(engine_t *e, const term_t *noop, double deadline, mutex_t **out,
                     mutex_report_t *rep);

#endif
