/* Rollout early termination with lifted backward search (see docs/mcts.md).
 *
 * lbs_new runs backward search (regress/regress.h) for a role within a time budget: α_i
 * are the role's forced wins within i rounds, β_i the other role's. Each formula is
 * compiled once for the native matcher (regress/match.h) and, when confirmation is asked
 * for, grounded into one Z3 term per disjunct (regress/formcheck.h). lbs_check indexes a state
 * once and tries the formulas that can hold given who is to move, in order of i; a matcher
 * hit is confirmed by Z3 (its evaluator, on the disjunct the matcher found) before it is
 * reported, and a disagreement is counted and dropped.
 *
 * Before any formula is used, a guard checks its claims on sample states of random
 * playouts against the game itself (an exact search over the real moves, bounded.h): a
 * formula that claims a state that is no forced win, or whose claims could not be
 * checked, is dropped with the later formulas of its side, and a line on stderr says so.
 *
 * Everything is made on one engine, the one whose states the hook reads: its fluents are
 * the vocabulary (regress/vocab.h) of Z3's constants and, on a ground or compiled engine,
 * of the bitset circuits. An lbs_t uses the game's term store and the engine only inside
 * lbs_new; lbs_check touches neither the engine nor the store (safe between engine calls
 * of a search), lbs_check_state only turns a state into terms (engine_state_terms) when a
 * formula needs them. */
#ifndef MCTS_LBS_H
#define MCTS_LBS_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "engine/engine.h"
#include "mcts/uct.h"

typedef enum { LBS_CONFIRM_NONE, LBS_CONFIRM_Z3 } lbs_confirm_t;

typedef struct {
    double budget;         /* seconds of backward search in lbs_new */
    uint64_t max_size;     /* literals per formula (0: no cap) */
    lbs_confirm_t confirm; /* confirm matcher hits with Z3 */
    /* > 0: a budget of this many rollout steps per check, the hook's (lbs_set_hook_cost).
     * Each formula (i >= 1) is measured as soon as it is made; its side gets no more when
     * it was dropped as too slow, or when the next one, predicted to cost as much times
     * the growth in size of this one, does not fit in what the formulas made so far left
     * of the budget: the hook could not use it. The rest of the time is left to the caller
     * (a player: to its search). 0: the whole budget goes to backward search (lbs_check
     * uses every formula). */
    double stop_cost;
    /* states one search of the guard may expand (0: the default, 50,000); a claim it
     * cannot decide within them drops the formula */
    uint32_t guard_nodes;
} lbs_opts_t;

/* budget 10 s, confirm Z3, max_size: regress's default, stop_cost 0. */
void lbs_default_opts(lbs_opts_t *o);

typedef struct lbs lbs_t;

/* Runs backward search on e for `role` (its α = role's wins, β = the other's) within
 * o->budget. NULL with a clear message in err when the game is unsupported (not two-player
 * turn-taking, recursive, GDL-II). e stays the caller's and must outlive the lbs_t. */
lbs_t *lbs_new(engine_t *e, uint32_t role, const lbs_opts_t *o, char *err, size_t errlen);
/* The same, stopping after α_max_steps/β_max_steps (0: no limit but the budget); with
 * budget 0 the formulas do not depend on the clock (tests). */
lbs_t *lbs_new_steps(engine_t *e, uint32_t role, const lbs_opts_t *o, uint32_t max_steps, char *err,
                     size_t errlen);
void lbs_free(lbs_t *l);

/* 1: s satisfies some α_i (sets *i to the least such i), -1: some β_i (likewise), 0: none.
 * A matcher hit is confirmed by Z3 when confirm is Z3; a disagreement is counted and the
 * hit is not used. No Z3 call is started that might end after `deadline` (now_seconds()
 * time; 0: none), judged by the longest call so far (one is timed in lbs_new): such a hit
 * is not used (z3_skipped). i may be NULL. */
int lbs_check(lbs_t *l, const state_t *s, uint32_t *i, double deadline);

/* The rollout hook's context: the formulas, and the deadline of lbs_check for the search
 * under way (its searcher keeps the context and sets the deadline of each search). */
typedef struct lbs_hook lbs_hook_t;
struct lbs_hook {
    lbs_t *lbs;
    double deadline;
    bool every; /* lbs_state_hook checks every call (the pay rule off: tests, timings) */
    const lbs_hook_t *main; /* a fork's hook: the deadline is main's (NULL: this one's) */
};

/* uct_rollout_hook_t adapter (ctx = lbs_hook_t*): 100 on α, 0 on β, -1 otherwise. Tries only
 * formulas with i >= 1 (the hook never sees terminal states), by increasing i, as many as
 * fit in a mean evaluation time (measured in lbs_new on sample states) of 3 rollout steps
 * in all: dearer checks cost more rollouts than their hits save. lbs_set_hook_cost
 * changes the limit (<= 0: every formula). lbs_check always tries every formula. */
int lbs_hook(void *ctx, const state_t *s);
void lbs_set_hook_cost(lbs_t *l, double steps);
/* Bounds the time Z3 confirmations may take to `share` of the search time (the checks'
 * own time and the gaps under 5 ms between them; default 0: no bound, every matcher hit
 * is confirmed). Past it, a hit that is not in the
 * cache is not used (counted in z3_skipped): never used unconfirmed; and the hook does
 * not check at all until the share refills (hook_skipped): its hits could not be used. */
void lbs_set_z3_share(lbs_t *l, double share);

typedef struct {
    uint32_t n_alpha, n_beta; /* formulas in use (α_0..α_{n_alpha-1}, β likewise) */
    uint64_t checks;          /* lbs_check calls */
    uint64_t hits_alpha[64], hits_beta[64]; /* reported (confirmed) hits per i */
    uint64_t z3_confirmed, z3_disagree;
    double check_seconds;   /* in lbs_check, Z3 confirmations included */
    double z3_seconds;      /* confirming hits with Z3 */
    double regress_seconds; /* lbs_new: backward search, compiling, grounding for Z3 */
    /* added after the first version (append only) */
    uint64_t z3_cached;             /* hits confirmed from remembered Z3 answers (no call) */
    uint64_t z3_unknown;            /* Z3 could not decide (the hit is not used) */
    uint32_t hook_alpha, hook_beta; /* formulas the hook uses (cheap enough, i >= 1) */
    double step_seconds;            /* measured cost of one rollout step */
    uint64_t z3_skipped;    /* hits not used: the Z3 time share was spent (lbs_set_z3_share) */
    uint32_t too_slow;      /* formulas dropped: one evaluation on a sample state took too long */
    uint64_t match_gave_up; /* evaluations cut at their formula's step limit (no hit used) */
    uint64_t hook_skipped;  /* hook calls not checked: Z3's share was spent (in checks too) */
    uint32_t stopped;       /* sides whose backward search stop_cost ended early */
    /* the guard: each formula checked on the sample states by exact search (bounded.h) */
    uint32_t guard_unsound;    /* formulas dropped: a claimed state is no forced win */
    uint32_t guard_unverified; /* formulas dropped: the search gave up or no time was left */
    uint64_t guard_hits;       /* sample states the formulas claimed, all searched */
    /* on a ground engine's bitset states */
    uint32_t bit_formulas;      /* formulas evaluated on bitsets */
    uint32_t bit_lifted;        /* formulas whose grounding was too big: on the matcher */
    double bit_seconds;         /* grounding and compiling them */
    double engine_step_seconds; /* one rollout step on the engine */
    double conv_seconds;        /* one engine state turned into indexed terms */
    uint64_t term_conversions;  /* checks on engine states that needed the terms */
    /* lbs_state_hook: calls left unchecked where a check did not pay (see there) */
    uint64_t pay_skipped;
} lbs_stats_t;

void lbs_stats(const lbs_t *l, lbs_stats_t *out);
/* Adds more's counts of events (checks, hits, Z3's answers, skipped calls, the seconds
 * they took) to sum; the sizes and costs of a search (formulas in use, guard drops,
 * measured step costs) are not events and are left to the caller. */
void lbs_stats_add(lbs_stats_t *sum, const lbs_stats_t *more);

/* ---- on a ground engine's states ----
 * With a ground or compiled engine, each formula and guard is grounded on the engine's
 * fluents (regress/formground.h) and compiled to straight-line code over the state's words
 * (regress/bitform.h), so the hook reads bitset states as they are; a formula whose
 * grounding is too big (circuit nodes, or BIT_SHARE of the budget in all) stays on the
 * lifted matcher, which then gets the state as terms (once per check). The costs are
 * measured on the engine (its rollout step, each formula as evaluated there: with
 * stop_cost, each formula as soon as it is made) and the hook's formulas chosen within
 * the rollout steps it may cost. Hits are confirmed by Z3 as before (on the disjunct that
 * holds), and only formulas the guard kept are used. On the interpreter the hook reads
 * term states (lbs_hook). */

/* lbs_check and lbs_hook on a state of the engine (uct_state_hook_t adapter); on the
 * interpreter, the state is read as terms. */
int lbs_check_state(lbs_t *l, const eng_state_t *s, uint32_t *i, double deadline);
/* The hook on engine states (uct_state_hook_t), at `depth` steps into a rollout: it checks
 * where that pays, measured as it goes: per depth (up to 31), the share of checks that hit
 * and the rest of a rollout a hit saves (the running mean length of rollouts no hit ended,
 * less the depth), times a rollout step's cost (the time between two calls), against a
 * check's cost (both timed on one call in 16). A depth where it does not pay is checked
 * on one call in 32 still (its figures follow the game); the first 64 calls of a depth
 * are checked. With Z3, on bitsets, a hit is confirmed by Z3 on the state's words (no
 * terms) and the answer remembered for the bits its disjunct reads: a check whose
 * formulas are all on bitsets touches neither the engine nor the term store. */
int lbs_state_hook(void *ctx, const eng_state_t *s, uint32_t depth);
/* Sets u's rollout hook to h (which must outlive u's searches); u searches on h->lbs's
 * engine (or a clone of it): on its bitset states with a ground engine, else on terms
 * (lbs_hook). When the hook is threadable, u may ponder with it and u's helper thread
 * gets the hook on a fork of h->lbs (lbs_fork; made here, freed with h->lbs). */
void lbs_attach(lbs_hook_t *h, uct_t *u);
/* Whether the hook's checks touch neither the engine nor the term store (every formula
 * it uses and their guards on bitsets, hits confirmed on the words): it may run on a
 * thread of its own while the game's store grows. */
bool lbs_hook_threadable(const lbs_t *l);
/* For a second thread's hook: the formulas and Z3's remembered answers of l shared, the
 * bitset programs its own; it confirms a hit only from those answers (an answer not
 * there: the hit is not used, counted in z3_skipped). NULL unless l's hook is threadable
 * (or l has a fork already, or is one). lbs_stats(l) adds the fork's counters. Freed with
 * l (lbs_free on a fork frees it alone). */
lbs_t *lbs_fork(lbs_t *l);
/* Tests: for every disjunct of every formula (on bitsets, with Z3), `flips` random states
 * that agree with s on the disjunct's witness in s (the bits whose Z3 answer is remembered
 * for every state that agrees there) give the disjunct the value it has in s; returns how
 * many did not (0 when the witnesses are right). */
uint32_t lbs_witness_check(lbs_t *l, const eng_state_t *s, splitmix_t *rng, uint32_t flips);
/* Mean seconds of one rollout step on e (every role's legal moves, then the next state,
 * as a rollout with a hook takes it), measured over random playouts for `seconds`. */
double lbs_engine_step_seconds(engine_t *e, double seconds);

#endif
