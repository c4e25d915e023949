/* Checking the symbolic sequences (regress/bddsearch.h) against ground truth, as the lifted
 * ones are (regress/verify.h): on every reachable state of a small game against the exact
 * solver, and on the states of random matches of a big game against the bounded search.
 *
 * A step's set is checked on its engine bitset states through the exported flat form (the
 * same walk the bounds query makes). BDDS_WITHIN: the reference is the least number of
 * rounds in which the sequence's coalition forces its goal (solve_force, force_within);
 * a hit forced only later, or never, is a false positive; a forced state the set misses
 * is a miss (none allowed in a complete step). BDDS_EXACT: the reference is W_i
 * (solve_wmask, bounded_in_w), and *late* counts hits where the role cannot force its
 * win within i rounds at all. */
#ifndef REGRESS_BDDCHECK_H
#define REGRESS_BDDCHECK_H

#include "engine/engine.h"
#include "regress/bddsearch.h"

typedef struct {
    uint32_t states;      /* states checked */
    uint32_t exact;       /* decided states in the reference set */
    uint32_t decided;     /* states whose reference was decided: with the solver all; by the
                             bounded search the hits, and the others only in a complete step
                             with misses asked for (an incomplete step may miss states), so
                             there exact counts confirmed hits, not the reference set */
    uint32_t hits;        /* states in the step's set */
    uint32_t false_pos;   /* hits outside the reference set */
    uint32_t late;        /* BDDS_EXACT: hits with no forced win within i rounds */
    uint32_t misses;      /* reference states not hit (with a horizon: the states within
                             the step's, by their least ply from the start) */
    uint32_t undecided;   /* bounded search: gave up (node limit or time) */
    uint32_t first_false; /* a state of a false positive (index), when there is one */
    double seconds;
} bddcheck_row_t;

typedef struct bddcheck bddcheck_t;

/* ---- against the exact solver: every reachable state ---- */
/* Solves the game on e from start (NULL: the initial state; NULL with a message past
 * max_states). noop: BDDS_EXACT's. */
bddcheck_t *bddcheck_solve(engine_t *e, const term_t *noop, const eng_state_t *start,
                           uint32_t max_states, char *err, size_t errlen);

/* ---- against the bounded search: the states of random matches ---- */
/* The distinct states of n seeded random matches on e from start (NULL: the initial
 * state, engine_walk, canonical draws; else engine_random_joint's), stopping at deadline,
 * now_seconds() (0: none); noop: BDDS_EXACT's (bounded_in_w). */
bddcheck_t *bddcheck_sample(engine_t *e, const term_t *noop, const eng_state_t *start,
                            uint32_t matches, uint64_t seed, double deadline);
/* Matches played to the end or until the deadline. */
uint32_t bddcheck_matches(const bddcheck_t *c);

void bddcheck_free(bddcheck_t *c);
uint32_t bddcheck_states(const bddcheck_t *c);

typedef struct {
    uint64_t max_nodes; /* per bounded search (0: no limit) */
    double deadline;    /* now_seconds(): no state started after it (0: none) */
    bool misses;        /* bounded: search the states it does not hit too */
} bddcheck_opts_t;

/* How many states of c step i of sequence seq holds (how often a rollout would stop). */
uint32_t bddcheck_hits(const bddcheck_t *c, const bddsearch_t *bs, uint32_t seq, uint32_t i);

/* Step i of sequence seq, on every state of c. */
void bddcheck_step(bddcheck_t *c, const bddsearch_t *bs, uint32_t seq, uint32_t i,
                   const bddcheck_opts_t *o, bddcheck_row_t *out);

/* The proven bounds (bddsearch_bounds, read at each state's least ply from the start) on
 * every non-terminal state of a solver check (bddcheck_solve; a sample: nothing), against
 * the exact ones: the greatest v of a lower sequence (A forces goal >= v) that the solver's
 * forced sets put the state in, the least v of an upper one (A's least and greatest goal
 * values where none). BDDS_WITHIN with values only. */
typedef struct {
    uint32_t states; /* non-terminal states checked */
    uint32_t proven; /* where the bounds meet (a proven value) */
    uint32_t exact;  /* where both bounds are the exact ones */
    uint32_t wrong;  /* a lower bound above the exact one, or an upper below (must be 0) */
    uint32_t first_wrong;
} bddcheck_bounds_t;

void bddcheck_bounds(bddcheck_t *c, const bddsearch_t *bs, bddcheck_bounds_t *out);

#endif
