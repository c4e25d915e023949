/* Symbolic backward search: the sequences of backward search as decision diagrams over
 * the ground fluents of the engine's network (regress/bddnet.h), for any deterministic
 * game, and the proven bounds of a state's value.
 *
 * A sequence is given by a coalition P of roles (who commit first) and a target T, a goal
 * condition of one role (its goal at least v, or at most v):
 *   S_0 = terminal ∧ T
 *   S_i = S_0 ∨ pre_P(S_{i-1})        (BDDS_WITHIN)
 * S_i holds the states from which P forces a terminal state of T within i steps, whatever
 * the other roles do (they answer knowing P's move: the paranoid bound). The sequence is
 * complete when it reaches its fixpoint (S_i = S_{i-1}): then it holds every such state,
 * however far.
 *
 * For two-player turn-taking games (each role's no-op given) the sets W_i of lifted
 * backward search are computed too (BDDS_EXACT): W_i = moves(i) ∧ pre_{role}(W_{i-1}), the
 * role to move when i is odd, the other when even; the exact solver's W_i (truth/solve.h).
 *
 * The sequences made for role A:
 *   alpha        A forces its goal 100                  (P = {A}, goal(A) >= 100)
 *   beta         two roles: B forces its goal 100       (P = {B}, goal(B) >= 100);
 *                otherwise the others force A's least goal (P = others, goal(A) <= min)
 *   lower v      A forces goal(A) >= v, for each goal value v of A but the least
 *   upper v      the others force goal(A) <= v, for each goal value v of A but the most
 * (the last two with opts.values, BDDS_WITHIN only); sequences with the same coalition
 * and target are computed once. A state in lower v has A's value (the paranoid one: the
 * others as one player) at least v; in upper v at most v. */
#ifndef REGRESS_BDDSEARCH_H
#define REGRESS_BDDSEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "logic/ddflat.h"
#include "regress/bddnet.h"

typedef enum { BDDS_WITHIN, BDDS_EXACT } bdds_mode_t;
typedef enum { BDDS_ALPHA, BDDS_BETA, BDDS_LOWER, BDDS_UPPER } bdds_side_t;

typedef struct {
    double budget;      /* seconds for the whole run, network included (0: no limit) */
    uint32_t max_steps; /* largest i (0: until the budget or every fixpoint) */
    double reach_share; /* of the budget for the reachable states at most (0: 0.4) */
    bdds_mode_t mode;
    bool values;          /* the lower and upper sequences too */
    bool resume;          /* WITHIN: a step cut by the budget is dropped, not kept as a
                             subset ending its sequence, so that bddsearch_more goes on with
                             it (the parts it made kept: a try spread over several turns);
                             the run ends there, as at the deadline */
    uint32_t cut_step;    /* tests: the first step i = cut_step made is cut as by the
                             deadline (dd_cut_next), without the clock (0: never) */
    bool reorder;         /* sift the variable order when the diagrams have doubled */
    uint32_t op_nodes;    /* nodes one diagram operation of a step may add (dd_set_op_nodes;
                             past it the set it was for is left out: a subset; 0: 1M) */
    uint32_t merge_nodes; /* a set is a union of parts (logic/ddunion.h), each grown to at
                             most this many nodes (0: 100,000) */
    bddnet_opts_t net;
} bdds_opts_t;

void bdds_default_opts(bdds_opts_t *o);

typedef struct {
    double seconds;  /* to compute this step (wall clock) */
    double cpu;      /* the thread's CPU seconds for it (the machine may be shared) */
    uint64_t nodes;  /* of its diagrams (the parts of its union, shared) */
    uint32_t parts;  /* of its union */
    bool complete;   /* false: a subset of S_i, sound, not all: cut by the budget (the set
                        is S_{i-1}), or a pre-image capped (bddnet_pre) here or before */
    bool fixpoint;   /* S_i = S_{i-1} (EXACT: W_i = W_{i-2}): every later step is this one
                        (all of it when complete, else a subset) */
    uint32_t within; /* with a horizon (opts.net.horizon, the reachable states cut by it):
                        the set is S_i within this many steps of the start, horizon - i
                        (complete: all of those), the last step the one within 0;
                        UINT32_MAX: no horizon, every state */
} bdds_step_t;

typedef struct {
    bdds_side_t side;
    uint32_t role;      /* whose goal */
    int v;              /* the goal value of the target */
    bool above;         /* target goal >= v (else <= v) */
    uint64_t coalition; /* bit r: role r commits first */
    uint32_t same_as;   /* the sequence whose steps these are (itself when computed) */
} bdds_seq_t;

typedef struct bddsearch bddsearch_t;

/* On a grounded engine e (its network), for role A. noop: each role's no-op for
 * BDDS_EXACT (two-player turn-taking), else NULL. NULL with a message when the game is
 * not supported (GDL-II, not grounded, BDDS_EXACT without two roles) or the network does
 * not fit within the limits. e must outlive bs. */
bddsearch_t *bddsearch_new(engine_t *e, uint32_t role, const term_t *noop, const bdds_opts_t *o,
                           char *err, size_t errlen);
void bddsearch_free(bddsearch_t *bs);
bddnet_t *bddsearch_net(bddsearch_t *bs);

/* Called after each step of each sequence. */
typedef void (*bdds_cb)(void *ctx, uint32_t seq, uint32_t i, const bdds_step_t *st);

/* Computes the sequences step by step, all of step i before any of i+1, until the
 * budget, the step limit, or every fixpoint; then exports them (bddsearch_holds,
 * bddsearch_bounds). */
void bddsearch_run(bddsearch_t *bs, bdds_cb cb, void *ctx);
/* After a run: the next bddsearch_run goes on from the steps made (on the same network,
 * order and sequences: nothing is built again) to at most max_steps (0: no limit), within
 * budget seconds from now (0: no limit), as one run with those limits from the start
 * would have gone on past them. */
void bddsearch_more(bddsearch_t *bs, uint32_t max_steps, double budget);

/* Every step dropped and the network's forward search made again from `start` (engine
 * state words, a state the last start reaches: bddnet_restart), within budget seconds from
 * now (reach_share of it for that search; 0: no limit), the next bddsearch_run to at most
 * max_steps (0: no limit), with opts.resume set to `resume` (and opts.reach_share to reach_share
 * where above 0): as bddsearch_new from that start would have made them, without building the
 * network again (connect four: 0.1 CPU s of the 0.27 s a turn leaves). False where the forward
 * search gave up (the sets, if run, are then over the invariant). */
bool bddsearch_restart(bddsearch_t *bs, const uint64_t *start, uint32_t max_steps, double budget,
                       bool resume, double reach_share);

bdds_mode_t bddsearch_mode(const bddsearch_t *bs);
uint32_t bddsearch_seqs(const bddsearch_t *bs);
const bdds_seq_t *bddsearch_seq(const bddsearch_t *bs, uint32_t k);
uint32_t bddsearch_steps(const bddsearch_t *bs, uint32_t seq);
const bdds_step_t *bddsearch_step(const bddsearch_t *bs, uint32_t seq, uint32_t i);
/* Role A's distinct goal values, ascending (owned by bs). */
uint32_t bddsearch_values(const bddsearch_t *bs, const int **values);
/* The sequence of a side (and value for LOWER and UPPER); UINT32_MAX when none. */
uint32_t bddsearch_find(const bddsearch_t *bs, bdds_side_t side, int v);

/* After bddsearch_run, on the engine's bitset state words (engine/fluents.h): is the state
 * in step i of the sequence? One walk, no allocation, any thread. */
bool bddsearch_holds(const bddsearch_t *bs, uint32_t seq, uint32_t i, const uint64_t *words);
/* Is the state of words in some step of the sequence, the state being reached from the
 * search's start by a path of at least `steps` steps (0: nothing known)? With a horizon,
 * the steps whose region (bdds_step_t.within) may hold it are tried, the deepest first;
 * without one, down to the deepest complete step (it holds the shallower ones). Step i
 * need not hold step i-1's states where a pre-image was capped, hence not the last step
 * alone. One walk per step tried, no allocation, any thread. */
bool bddsearch_holds_from(const bddsearch_t *bs, uint32_t seq, uint32_t steps,
                          const uint64_t *words);
/* The proven bounds of role A's value in a non-terminal state reached by a path of at least
 * `steps` steps from the start (bddsearch_holds_from): *lower the largest v of a lower (or
 * alpha) sequence holding it, *upper the least v of an upper sequence holding it; without
 * a proof the trivial ones, A's least and greatest goal values (-1: A has none). */
void bddsearch_bounds(const bddsearch_t *bs, const uint64_t *words, uint32_t steps, int *lower,
                      int *upper);
/* The value where those bounds meet (a proven value: a forced win, draw or loss), -1 where
 * they do not; fewer walks than bddsearch_bounds (the lower sequences from the greatest v,
 * then the upper sequence of the bound found). */
int bddsearch_value(const bddsearch_t *bs, const uint64_t *words, uint32_t steps);
/* After bddsearch_run: the diagrams of the distinct exclusion lists the steps' parts read
 * (0: every part is one diagram). */
uint32_t bddsearch_exclusions(const bddsearch_t *bs);
/* The flat form of every step (roots in order of sequence, then step, then the diagrams of
 * the parts' exclusions). */
const ddflat_t *bddsearch_flat(const bddsearch_t *bs);

#endif
