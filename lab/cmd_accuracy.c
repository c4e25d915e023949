/* ggp accuracy: do rollouts that stop early on a backward-search hit estimate positions
 * better? The rollout-accuracy experiment of issue 5 (scripts/rollout-accuracy, and
 * docs/rollout_accuracy.md for the figures).
 *
 * Positions come with exact values from the solver (truth/solve.h): every reachable
 * state, a sample of them, or positions from random play solved from their own root.
 * Four rollout policies are compared on them, all uniformly random joint moves to a
 * terminal state:
 *   plain  no early stop;
 *   lbs    stop at a state where lbs_check (mcts/lbs.h, Z3-confirmed) finds some α_i
 *          (value 100) or β_i (value 0), trying every formula;
 *   hook   the same with lbs_hook, which tries only the formulas cheap enough for a
 *          rollout step (what a player's search gets);
 *   ideal  stop where the exact solver puts the state in some W_i of the role (100) or
 *          of the other role (0), for the i the formulas reached: the best the formulas
 *          could give;
 *   bdd    stop where the symbolic sets (mcts/bddhook.h: α_i, β_i as decision diagrams,
 *          the rollout hook of mcts+lbs:bdd=on) prove a win (100) or a loss (0);
 *   bddval the same hook with values: stop where the state's proven bounds meet (a forced
 *          draw scores its value, not only wins and losses).
 * Accuracy rollouts walk the solver's state graph (solve_successors): the same random
 * process as the engine's, much faster, so that 10,000 rollouts on every position fit
 * the time budget. lbs_check is deterministic, so it runs once per distinct state and is
 * remembered; the real per-step cost is measured separately with engine rollouts that
 * check every state (the "cost" rows).
 *
 * What plays runs on the engine (engine.h, --engine): the solver, the random matches of
 * random:N, UCT, the cost rollouts and backward search (whose vocabulary, and the hook's
 * choice of formulas, are the engine's: on a ground engine, by their cost on bitsets).
 * The solver sorts legal moves in one canonical order and random_position does too, so
 * every row but the timed cost rows and the MCTS rows (UCT and its playouts draw moves in
 * the engine's own order) is the same on every engine for a seed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "engine/engine.h"
#include "engine/fluents.h"
#include "gdl/validate.h"

#include "base/clock.h"
#include "base/htab.h"
#include "base/rng.h"
#include "mcts/bddhook.h"
#include "mcts/lbs.h"
#include "mcts/uct.h"
#include "regress/regress.h"
#include "truth/solve.h"

static const char *const accuracy_help =
    "usage: ggp accuracy GAME [--role R] [--positions all|sample:N|random:N] [--ply P]\n"
    "                   [--rollouts LIST] [--mcts-iters LIST] [--mcts-positions N]\n"
    "                   [--budget SEC] [--steps I] [--seed S] [--max-states N]\n"
    "                   [--cost-seconds SEC] [--engine E] [--bdd-horizon D]\n\n"
    "The rollout-accuracy experiment: do rollouts that stop early when a state satisfies\n"
    "some backward-search formula alpha_i (value 100) or beta_i (value 0) estimate positions\n"
    "better? Runs the backward search for role R (Z3 confirmation on), solves the positions\n"
    "exactly, and compares four rollout policies: plain (to the end), lbs (stopped where\n"
    "lbs_check finds a formula that holds, all formulas tried), hook (the same with lbs_hook,\n"
    "which tries only the formulas cheap enough for a rollout step, as a player's search\n"
    "does), ideal (stopped wherever the exact solver proves a forced win within the\n"
    "rounds the formulas reached), bdd (stopped where the decision-diagram sets of\n"
    "mcts/bddhook prove a win or a loss) and bddval (the same hook with values: stopped\n"
    "where the proven bounds meet, a forced draw too). Prints key=value rows:\n"
    "  lbs game= n_alpha= n_beta= regress_seconds=\n"
    "  positions game= role= kind= count= [ply=] solver_states= solve_seconds= skipped=\n"
    "  bdd game= horizon= n_alpha= n_beta= first_partial= nodes= seconds= (or error=)\n"
    "  mae game= mode=plain|lbs|hook|ideal|bdd|bddval rollouts=N positions=P mae=E\n"
    "  rollout game= mode= rollouts= avg_len= stopped_share=\n"
    "  mcts game= set=any|hard mode=plain|lbs|hook|ideal iters=N positions=P optimal=K share=S\n"
    "  cost game= mode=plain|lbs|hook|bdd|bddval seconds= rollouts= rollouts_per_sec=\n"
    "       steps_per_sec=\n"
    "       checks= us_per_check= z3_us_per_check=\n"
    "  check game= n_alpha= n_beta= hook_alpha= hook_beta= regress_seconds= checks=\n"
    "        distinct_states= hits_alpha= hits_beta= unsound= z3_confirmed= z3_cached=\n"
    "        z3_disagree= z3_unknown= z3_skipped= check_seconds= z3_seconds= step_us=\n"
    "        too_slow= (formulas dropped: too slow to evaluate) match_gave_up=\n"
    "  hits game= side=alpha|beta i0= i1= ...\n"
    "  bddcheck game= unsound_bdd= unsound_bddval=\n"
    "(mae: mean absolute error of the average of the first N rollouts against the exact\n"
    "value, 0..100; mcts: positions where UCT with N iterations picks a move of optimal\n"
    "exact value, among positions where some move is not optimal (set any), and among\n"
    "those where besides the mover has no win in one and at most half its moves are\n"
    "optimal (set hard).)\n\n"
    "  --role R           role whose value is estimated (name or index; default 0)\n"
    "  --positions all    every reachable non-terminal state (default)\n"
    "              sample:N  N of them, uniformly\n"
    "              random:N  N states at ply P of random matches, each solved from itself\n"
    "  --ply P            with random:N, the ply of the positions (default 20)\n"
    "  --rollouts LIST    rollout counts, comma-separated (default 1,3,10,...,3000,10000)\n"
    "  --mcts-iters LIST  UCT iterations (default 100,300,1000; 0: no MCTS rows)\n"
    "  --mcts-positions N positions per MCTS set (default 300)\n"
    "  --budget SEC       backward-search time (default 10; 0: no clock, with --steps)\n"
    "  --steps I          backward search stops after alpha_I and beta_I (default: the budget\n"
    "                     alone); with --budget 0 the formulas do not depend on the machine\n"
    "  --seed S           random seed (default 1)\n"
    "  --max-states N     solver limit per solve (default 2000000)\n"
    "  --cost-seconds SEC time per cost row (default 3; 0: no cost rows)\n"
    "  --engine E         the state machine of the solver, UCT and the rollouts: auto\n"
    "                     (default: the fastest that works), interp, ground or compiled;\n"
    "                     all rows but cost and mcts are the same on every engine\n"
    "  --bdd-horizon D    the symbolic sets within D steps of the initial state (default 0:\n"
    "                     the whole game, until the fixpoints or the budget); they need a\n"
    "                     ground or compiled engine (else bdd and bddval never stop)\n\n"
    "Exit 4 when a Z3 confirmation disagrees with the matcher or a hit (any mode)\n"
    "contradicts the exact value; 3 when the game is not supported by backward search.\n";

#define MAX_LIST 16

typedef struct {
    const char *path, *role;
    int kind; /* 0 all, 1 sample, 2 random */
    uint32_t count, ply;
    uint32_t rollouts[MAX_LIST], n_rollouts;
    uint32_t iters[MAX_LIST], n_iters;
    uint32_t mcts_positions;
    double budget, cost_seconds;
    uint32_t steps;       /* largest alpha/beta index (0: the budget alone) */
    uint32_t bdd_horizon; /* of the symbolic sets (0: none, the whole game) */
    uint64_t seed;
    uint32_t max_states;
    engine_kind_t engine;
} acc_opts_t;

/* Parses "a,b,c" into ascending unsigned numbers. */
static bool parse_list(const char *name, const char *v, uint32_t *out, uint32_t *n) {
    *n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        unsigned long long x;
        if (*n == MAX_LIST) {
            fprintf(stderr, "ggp accuracy: %s takes at most %d values\n", name, MAX_LIST);
            return false;
        }
        if (!opt_uint(name, tok, &x) || x > 100000000) return false;
        if (*n && x <= out[*n - 1]) {
            fprintf(stderr, "ggp accuracy: %s must be ascending\n", name);
            return false;
        }
        out[(*n)++] = (uint32_t)x;
    }
    return *n > 0;
}

static bool parse_positions(const char *v, acc_opts_t *o) {
    unsigned long long n;
    if (!strcmp(v, "all"))
        o->kind = 0;
    else if (!strncmp(v, "sample:", 7) && opt_uint("--positions", v + 7, &n) && n > 0)
        o->kind = 1, o->count = (uint32_t)n;
    else if (!strncmp(v, "random:", 7) && opt_uint("--positions", v + 7, &n) && n > 0)
        o->kind = 2, o->count = (uint32_t)n;
    else {
        fprintf(stderr, "ggp accuracy: --positions expects all, sample:N or random:N, not '%s'\n",
                v);
        return false;
    }
    return true;
}

/* opt_spec_t checks: the value parses (said why not otherwise). */
static bool positions_ok(const char *v) {
    acc_opts_t o;
    return parse_positions(v, &o);
}

static bool rollouts_ok(const char *v) {
    acc_opts_t o;
    return parse_list("--rollouts", v, o.rollouts, &o.n_rollouts);
}

static bool iters_ok(const char *v) {
    acc_opts_t o;
    return parse_list("--mcts-iters", v, o.iters, &o.n_iters);
}

static void default_opts(acc_opts_t *o) {
    static const uint32_t rollouts[] = {1, 3, 10, 30, 100, 300, 1000, 3000, 10000};
    memset(o, 0, sizeof *o);
    o->n_rollouts = sizeof rollouts / sizeof rollouts[0];
    memcpy(o->rollouts, rollouts, sizeof rollouts);
    o->iters[0] = 100, o->iters[1] = 300, o->iters[2] = 1000, o->n_iters = 3;
    o->mcts_positions = 300;
    o->ply = 20;
    o->budget = 10;
    o->cost_seconds = 3;
    o->seed = 1;
    o->max_states = 2000000;
}

enum { M_PLAIN, M_LBS, M_HOOK, M_IDEAL, M_BDD, M_BDDVAL, N_MODES };
static const char *const mode_name[N_MODES] = {"plain", "lbs", "hook", "ideal", "bdd", "bddval"};

/* One solved state graph and what the experiment remembers about its states. */
typedef struct {
    solve_t *s;
    int8_t *stop[N_MODES]; /* per mode that asks (lbs, hook, bdd, bddval) and state: -2 not
                              asked, -1 no hit, else the value scored */
    htab_t index;          /* solver ids by state (for the MCTS hook) */
} batch_t;

/* Everything the run shares across batches. */
typedef struct {
    acc_opts_t o;
    game_t *g;
    engine_t *e; /* for what plays */
    lbs_t *lbs;
    bddhook_t *bdd;    /* the symbolic sets (bdd, bddval; NULL: those modes never stop) */
    eng_state_t *work; /* a solver state as the engine's, for the bdd hook */
    uint32_t role, other;
    uint64_t mask_alpha, mask_beta; /* W_i bits the formulas reached */
    splitmix_t rng;
    /* the rollouts of each mode draw from a stream of their own: where the formulas stop
     * the lbs rollouts (they depend on the backward search's time budget) does not change
     * the other modes' rollouts */
    splitmix_t mode_rng[N_MODES];
    const char *name;
    /* accumulators */
    double err[N_MODES][MAX_LIST];
    uint64_t n_pos;
    uint64_t rollouts[N_MODES], steps[N_MODES], stopped[N_MODES];
    uint64_t mcts_opt[2][N_MODES][MAX_LIST], mcts_pos[2]; /* per set: any, hard */
    uint64_t distinct_checked, unsound[N_MODES];          /* hits that contradict the exact value */
    state_t *cost_states;                                 /* positions kept for the cost rows */
    uint32_t n_cost;
    size_t cap_cost;
} acc_t;

typedef struct {
    const solve_t *s;
    const state_t *st;
} state_key_t;

static bool same_state(const void *ctx, uint32_t id) {
    const state_key_t *k = ctx;
    return state_equal(solve_state(k->s, id), k->st);
}

static uint32_t solved_hash(const solve_t *s, uint32_t id) {
    return (uint32_t)state_hash(solve_state(s, id));
}

static uint32_t solved_hash_of(const void *ctx, uint32_t id) {
    return solved_hash(ctx, id);
}

static void batch_init(batch_t *b, solve_t *s) {
    uint32_t n = solve_count(s);
    b->s = s;
    for (int k = 0; k < N_MODES; k++) {
        b->stop[k] = xmalloc(n ? n : 1);
        memset(b->stop[k], -2, n);
    }
    htab_init(&b->index);
    for (uint32_t id = 0; id < n; id++)
        htab_add(&b->index, solved_hash(s, id), id, solved_hash_of, s);
}

static void batch_fini(batch_t *b) {
    solve_free(b->s);
    for (int k = 0; k < N_MODES; k++)
        free(b->stop[k]);
    htab_fini(&b->index);
}

/* The solver id of a state, or UINT32_MAX when it is not in the graph. */
static uint32_t batch_find(const batch_t *b, const state_t *st) {
    state_key_t key = {b->s, st};
    uint32_t id = htab_find(&b->index, (uint32_t)state_hash(st), same_state, &key);
    return id == HTAB_NONE ? UINT32_MAX : id;
}

/* lbs_hook without a deadline. */
static int hook_value(acc_t *a, const state_t *s) {
    lbs_hook_t h = {.lbs = a->lbs};
    return lbs_hook(&h, s);
}

/* The symbolic sets' verdict (bddhook_value, or bddhook_proven with values) on a state of
 * the graph; nothing is known of its distance from the initial state (steps 0). */
static int bdd_value(acc_t *a, const state_t *st, bool values) {
    if (!a->bdd) return -1;
    engine_state_set(a->e, a->work, st);
    const uint64_t *w = engine_state_words(a->work);
    return values ? bddhook_proven(a->bdd, w, 0) : bddhook_value(a->bdd, w, 0);
}

/* The verdict of a mode that asks (lbs: every formula, hook: lbs_hook's, bdd, bddval) on a
 * non-terminal state, asked once; a hit that contradicts the exact value is counted (a bug
 * in the backward search). */
static int ask_stop(acc_t *a, batch_t *b, uint32_t id, int mode) {
    int8_t *memo = b->stop[mode];
    if (memo[id] != -2) return memo[id];
    const state_t *st = solve_state(b->s, id);
    int v;
    if (mode == M_LBS) {
        v = lbs_check(a->lbs, st, NULL, 0);
        v = v > 0 ? 100 : v < 0 ? 0 : -1;
    } else {
        v = mode == M_HOOK ? hook_value(a, st) : bdd_value(a, st, mode == M_BDDVAL);
    }
    if (v >= 0 && solve_value(b->s, id, a->role) != v) a->unsound[mode]++;
    a->distinct_checked++;
    memo[id] = (int8_t)v;
    return v;
}

static int ideal_stop(const acc_t *a, const batch_t *b, uint32_t id) {
    if (solve_wmask(b->s, id, a->role) & a->mask_alpha) return 100;
    if (solve_wmask(b->s, id, a->other) & a->mask_beta) return 0;
    return -1;
}

/* Where a rollout of the mode stops: the role's value there, or -1 to go on. */
static int stop_value(acc_t *a, batch_t *b, uint32_t id, int mode) {
    if (mode == M_PLAIN) return -1;
    return mode == M_IDEAL ? ideal_stop(a, b, id) : ask_stop(a, b, id, mode);
}

/* One rollout over the state graph; the role's value 0..100. */
static int rollout(acc_t *a, batch_t *b, uint32_t id, int mode) {
    uint64_t steps = 0;
    int v = -1;
    for (; steps < 10000; steps++) {
        if (solve_terminal(b->s, id)) {
            v = solve_goal(b->s, id, a->role);
            break;
        }
        v = stop_value(a, b, id, mode);
        if (v >= 0) {
            a->stopped[mode]++;
            break;
        }
        const uint32_t *succ;
        uint32_t n = solve_successors(b->s, id, &succ);
        id = succ[splitmix_next(&a->mode_rng[mode]) % n];
    }
    a->rollouts[mode]++;
    a->steps[mode] += steps;
    return v < 0 ? 0 : v;
}

/* Rollouts on one position: the error of the running average at each listed count. */
static void estimate(acc_t *a, batch_t *b, uint32_t id) {
    int exact = solve_value(b->s, id, a->role);
    for (int mode = 0; mode < N_MODES; mode++) {
        double sum = 0;
        uint32_t k = 0;
        for (uint32_t n = 1; k < a->o.n_rollouts; n++) {
            sum += rollout(a, b, id, mode);
            if (n == a->o.rollouts[k]) {
                double d = sum / n - exact;
                a->err[mode][k++] += d < 0 ? -d : d;
            }
        }
    }
    a->n_pos++;
}

/* ---------------- MCTS ---------------- */

typedef struct {
    acc_t *a;
    batch_t *b;
    int mode;
    bool invert; /* the searching role is the other one: values are 100 - v */
} hook_ctx_t;

static int accuracy_hook(void *ctx, const state_t *s) {
    hook_ctx_t *h = ctx;
    uint32_t id = batch_find(h->b, s);
    int v;
    if (id == UINT32_MAX)
        v = hook_value(h->a, s); /* never expected: all states are in the graph */
    else
        v = stop_value(h->a, h->b, id, h->mode);
    return v >= 0 && h->invert ? 100 - v : v;
}

/* The role that chooses in a state (the only one with more than one move), or -1. */
static int mover_of(const acc_t *a, const solve_t *s, uint32_t id) {
    int mover = -1;
    for (uint32_t k = 0; k < a->g->n_roles; k++) {
        const term_t *m;
        if (solve_legal(s, id, k, &m) > 1) {
            if (mover >= 0) return -1;
            mover = (int)k;
        }
    }
    return mover;
}

/* The mover's exact value after each of its moves (the others' replies minimised). */
static void move_values(const solve_t *s, uint32_t id, uint32_t mover, uint32_t n_roles, int *val,
                        uint32_t nm) {
    const uint32_t *succ;
    uint32_t nj = solve_successors(s, id, &succ);
    for (uint32_t a = 0; a < nm; a++)
        val[a] = 1000;
    for (uint32_t j = 0; j < nj; j++) {
        uint32_t rest = j, a = 0;
        for (uint32_t k = n_roles; k-- > 0;) { /* mixed radix, the last role fastest */
            const term_t *m;
            uint32_t n = solve_legal(s, id, k, &m);
            if (k == mover) a = rest % n;
            rest /= n;
        }
        int v = solve_value(s, succ[j], mover);
        if (v < val[a]) val[a] = v;
    }
}

/* The MCTS sets a position is in: bit 0 "any", some move is not optimal (the choice
 * matters); bit 1 "hard", besides, the mover has no win in one and at most half of its
 * moves are optimal (uniform positions are mostly easy: every search finds the move). */
static unsigned mcts_sets(const solve_t *s, uint32_t id, uint32_t mover, const int *val,
                          uint32_t nm, int best) {
    uint32_t optimal = 0;
    for (uint32_t k = 0; k < nm; k++)
        optimal += val[k] == best;
    if (optimal == nm) return 0;
    return 2 * optimal <= nm && solve_win_in(s, id, mover) != 1 ? 3 : 1;
}

/* UCT with each policy and iteration count from the position; counts optimal choices
 * in each of the sets. */
static void mcts_search(acc_t *a, batch_t *b, uint32_t id, uint32_t mover, const int *val, int best,
                        unsigned sets) {
    const term_t *moves;
    uint32_t nm = solve_legal(b->s, id, mover, &moves);
    for (int mode = 0; mode < N_MODES; mode++) {
        hook_ctx_t h = {a, b, mode, mover != a->role};
        uct_t *u = uct_new(a->e, mover, splitmix_next(&a->rng));
        if (mode != M_PLAIN) uct_set_hook(u, accuracy_hook, &h);
        for (uint32_t k = 0; k < a->o.n_iters; k++) {
            uct_clear(u);
            term_t m = uct_choose(u, solve_state(b->s, id), 0, a->o.iters[k]);
            for (uint32_t x = 0; x < nm; x++)
                for (int set = 0; set < 2; set++)
                    if (moves[x] == m && val[x] == best && (sets >> set & 1))
                        a->mcts_opt[set][mode][k]++;
        }
        uct_free(u);
    }
}

/* Runs UCT on a position when it belongs to a set that still wants positions. */
static void mcts_position(acc_t *a, batch_t *b, uint32_t id) {
    int mover = mover_of(a, b->s, id);
    if (mover < 0) return;
    const term_t *moves;
    uint32_t nm = solve_legal(b->s, id, (uint32_t)mover, &moves);
    int val[nm], best = solve_value(b->s, id, (uint32_t)mover);
    move_values(b->s, id, (uint32_t)mover, a->g->n_roles, val, nm);
    unsigned sets = mcts_sets(b->s, id, (uint32_t)mover, val, nm, best);
    for (int set = 0; set < 2; set++)
        if (a->mcts_pos[set] >= a->o.mcts_positions) sets &= ~(1u << set);
    if (!sets) return;
    mcts_search(a, b, id, (uint32_t)mover, val, best, sets);
    for (int set = 0; set < 2; set++)
        a->mcts_pos[set] += sets >> set & 1;
}

/* Whether the MCTS sets still want positions. */
static bool mcts_wanted(const acc_t *a) {
    return a->o.n_iters &&
           (a->mcts_pos[0] < a->o.mcts_positions || a->mcts_pos[1] < a->o.mcts_positions);
}

/* ---------------- positions ---------------- */

static void keep_for_cost(acc_t *a, const state_t *s) {
    if (a->n_cost >= 200) return;
    GROW(a->cost_states, a->cap_cost, a->n_cost + 1);
    state_init(&a->cost_states[a->n_cost]);
    state_copy(&a->cost_states[a->n_cost++], s);
}

static void prepare_rounds(acc_t *a, solve_t *s) {
    shape_t sh;
    regress_shape(a->e, 16, a->o.seed, 0, &sh);
    solve_rounds(s, sh.supported ? sh.noop : NULL);
}

/* Whether a state is a position: non-terminal with an exact value. */
static bool is_position(const acc_t *a, const solve_t *s, uint32_t id) {
    return !solve_terminal(s, id) && solve_value(s, id, a->role) != SOLVE_NO_VALUE;
}

/* all / sample:N: one solve of the whole game. */
static int run_whole(acc_t *a) {
    char err[200];
    double t0 = now_seconds();
    solve_t *s = solve_new(a->e, a->o.max_states, err, sizeof err);
    if (!s) {
        fprintf(stderr, "ggp accuracy: %s: %s\n", a->o.path, err);
        return 3;
    }
    prepare_rounds(a, s);
    double solve_seconds = now_seconds() - t0;
    batch_t b;
    batch_init(&b, s);
    uint32_t n = solve_count(s), *ids = xmalloc((n + 1) * sizeof *ids), np = 0;
    for (uint32_t id = 0; id < n; id++)
        if (is_position(a, s, id)) ids[np++] = id;
    for (uint32_t k = np; k > 1; k--) { /* shuffle: a sample, and varied MCTS positions */
        uint32_t j = (uint32_t)(splitmix_next(&a->rng) % k), t = ids[k - 1];
        ids[k - 1] = ids[j], ids[j] = t;
    }
    uint32_t use = a->o.kind == 1 && a->o.count < np ? a->o.count : np;
    printf("positions game=%s role=%s kind=%s count=%u solver_states=%u solve_seconds=%.3f "
           "skipped=0\n",
           a->name, term_sym_name(a->g->ts, term_sym(a->g->ts, a->g->roles[a->role])),
           a->o.kind ? "sample" : "all", use, n, solve_seconds);
    fflush(stdout);
    for (uint32_t k = 0; k < use; k++) {
        estimate(a, &b, ids[k]);
        keep_for_cost(a, solve_state(s, ids[k]));
    }
    for (uint32_t k = 0; k < np && mcts_wanted(a); k++)
        mcts_position(a, &b, ids[k]);
    free(ids);
    batch_fini(&b);
    return 0;
}

/* A random match from the initial state; true with the state at ply P in out when the
 * match is still running there. Moves are drawn from the canonical order (as the solver
 * sorts them), so that every engine plays the same matches. */
static bool random_position(acc_t *a, state_t *out) {
    eng_state_t *at = engine_state_new(a->e);
    bool found = engine_walk_to(a->e, &a->rng, a->o.ply, true, at);
    if (found) engine_state_terms(a->e, at, out);
    engine_state_free(at);
    return found;
}

/* random:N: positions from random play, each solved from itself. */
static int run_random(acc_t *a) {
    uint32_t done = 0, skipped = 0, attempts = 0, total_states = 0;
    double solve_seconds = 0;
    state_t st;
    state_init(&st);
    while (done < a->o.count && attempts++ < 20 * a->o.count) {
        if (!random_position(a, &st)) continue; /* the match ended before ply P */
        char err[200];
        double t0 = now_seconds();
        solve_t *s = solve_new_from(a->e, &st, a->o.max_states, err, sizeof err);
        if (!s) {
            skipped++;
            continue;
        }
        prepare_rounds(a, s);
        solve_seconds += now_seconds() - t0;
        total_states += solve_count(s);
        batch_t b;
        batch_init(&b, s);
        if (is_position(a, s, 0)) {
            estimate(a, &b, 0);
            keep_for_cost(a, &st);
            if (mcts_wanted(a)) mcts_position(a, &b, 0);
            done++;
            /* progress: a long run shows nothing on stdout until the end */
            fprintf(stderr, "ggp accuracy: position %u/%u solved (%u states), %u skipped\n", done,
                    a->o.count, solve_count(s), skipped);
        }
        batch_fini(&b);
    }
    state_fini(&st);
    printf("positions game=%s role=%s kind=random count=%u ply=%u solver_states=%u "
           "solve_seconds=%.3f skipped=%u\n",
           a->name, term_sym_name(a->g->ts, term_sym(a->g->ts, a->g->roles[a->role])), done,
           a->o.ply, total_states, solve_seconds, skipped);
    return done ? 0 : 3;
}

/* ---------------- cost: engine rollouts, checking every state ---------------- */

/* The bdd hook on an engine state, as the playout loop asks it (the words, no terms),
 * timed (its cost is not in the lbs counters). */
static int bdd_timed(acc_t *a, const eng_state_t *s, bool values, double *seconds) {
    double t0 = now_seconds();
    const uint64_t *w = engine_state_words(s);
    int v = values ? bddhook_proven(a->bdd, w, 0) : bddhook_value(a->bdd, w, 0);
    *seconds += now_seconds() - t0;
    return v;
}

/* The cost of a check includes handing the state to backward search as terms, as a
 * player's search does (lbs, hook; the bdd hook reads the engine's words). */
static void cost_row(acc_t *a, int mode) {
    eng_state_t *s = engine_state_new(a->e), *tmp = engine_state_new(a->e);
    state_t terms;
    state_init(&terms);
    term_t *joint = xcalloc(a->g->n_roles + 1, sizeof *joint);
    uint64_t n = 0, steps = 0, checks = 0;
    double bdd_seconds = 0;
    lbs_stats_t st0, st1;
    lbs_stats(a->lbs, &st0);
    double t0 = now_seconds(), t;
    do { /* one rollout at least, however late the clock reads (a row never empty) */
        engine_state_set(a->e, s, &a->cost_states[n++ % a->n_cost]);
        while (!engine_terminal(a->e, s)) {
            checks += mode != M_PLAIN;
            if (mode == M_LBS || mode == M_HOOK) {
                engine_state_terms(a->e, s, &terms);
                if (mode == M_LBS && lbs_check(a->lbs, &terms, NULL, 0) != 0) break;
                if (mode == M_HOOK && hook_value(a, &terms) >= 0) break;
            } else if (mode != M_PLAIN && bdd_timed(a, s, mode == M_BDDVAL, &bdd_seconds) >= 0) {
                break;
            }
            if (!engine_random_joint(a->e, s, &a->rng, joint)) break;
            engine_next(a->e, s, joint, tmp);
            engine_state_copy(s, tmp);
            steps++;
        }
        if (mode == M_PLAIN) (void)engine_goal_value(a->e, s, a->role);
    } while ((t = now_seconds() - t0) < a->o.cost_seconds);
    lbs_stats(a->lbs, &st1);
    double per = checks ? 1e6 / checks : 0; /* Z3 apart: new hits cost a confirmation */
    printf("cost game=%s mode=%s seconds=%.3f rollouts=%" PRIu64 " rollouts_per_sec=%.1f "
           "steps_per_sec=%.1f checks=%" PRIu64 " us_per_check=%.2f z3_us_per_check=%.2f\n",
           a->name, mode_name[mode], t, n, n / t, steps / t, checks,
           per * (mode >= M_BDD ? bdd_seconds : st1.check_seconds - st0.check_seconds),
           per * (st1.z3_seconds - st0.z3_seconds));
    state_fini(&terms);
    engine_state_free(s);
    engine_state_free(tmp);
    free(joint);
}

/* ---------------- report ---------------- */

static void print_results(acc_t *a) {
    for (int mode = 0; mode < N_MODES; mode++)
        for (uint32_t k = 0; k < a->o.n_rollouts; k++)
            printf("mae game=%s mode=%s rollouts=%u positions=%" PRIu64 " mae=%.4f\n", a->name,
                   mode_name[mode], a->o.rollouts[k], a->n_pos,
                   a->n_pos ? a->err[mode][k] / a->n_pos : 0.0);
    for (int mode = 0; mode < N_MODES; mode++)
        printf("rollout game=%s mode=%s rollouts=%" PRIu64 " avg_len=%.3f stopped_share=%.4f\n",
               a->name, mode_name[mode], a->rollouts[mode],
               a->rollouts[mode] ? (double)a->steps[mode] / a->rollouts[mode] : 0.0,
               a->rollouts[mode] ? (double)a->stopped[mode] / a->rollouts[mode] : 0.0);
    static const char *const set_name[2] = {"any", "hard"};
    for (int set = 0; set < 2; set++)
        for (int mode = 0; mode < N_MODES; mode++)
            for (uint32_t k = 0; k < a->o.n_iters; k++) {
                uint64_t n = a->mcts_pos[set], opt = a->mcts_opt[set][mode][k];
                printf("mcts game=%s set=%s mode=%s iters=%u positions=%" PRIu64 " optimal=%" PRIu64
                       " "
                       "share=%.4f\n",
                       a->name, set_name[set], mode_name[mode], a->o.iters[k], n, opt,
                       n ? (double)opt / n : 0.0);
            }
    fflush(stdout);
}

/* The lbs counters over the whole run: the acceptance check of Z3 against the matcher. */
static int print_check(acc_t *a) {
    lbs_stats_t st;
    lbs_stats(a->lbs, &st);
    uint64_t ha = 0, hb = 0;
    for (int i = 0; i < 64; i++)
        ha += st.hits_alpha[i], hb += st.hits_beta[i];
    printf("check game=%s n_alpha=%u n_beta=%u hook_alpha=%u hook_beta=%u regress_seconds=%.3f "
           "checks=%" PRIu64 " distinct_states=%" PRIu64 " hits_alpha=%" PRIu64
           " hits_beta=%" PRIu64 " unsound=%" PRIu64 " "
           "z3_confirmed=%" PRIu64 " z3_cached=%" PRIu64 " z3_disagree=%" PRIu64
           " z3_unknown=%" PRIu64 " z3_skipped=%" PRIu64 " "
           "check_seconds=%.3f z3_seconds=%.3f step_us=%.2f too_slow=%u match_gave_up=%" PRIu64
           "\n",
           a->name, st.n_alpha, st.n_beta, st.hook_alpha, st.hook_beta, st.regress_seconds,
           st.checks, a->distinct_checked, ha, hb, a->unsound[M_LBS] + a->unsound[M_HOOK],
           st.z3_confirmed, st.z3_cached, st.z3_disagree, st.z3_unknown, st.z3_skipped,
           st.check_seconds, st.z3_seconds, 1e6 * st.step_seconds, st.too_slow, st.match_gave_up);
    printf("hits game=%s side=alpha", a->name);
    for (uint32_t i = 0; i < st.n_alpha && i < 64; i++)
        printf(" i%u=%" PRIu64, i, st.hits_alpha[i]);
    printf("\nhits game=%s side=beta", a->name);
    for (uint32_t i = 0; i < st.n_beta && i < 64; i++)
        printf(" i%u=%" PRIu64, i, st.hits_beta[i]);
    printf("\n");
    printf("bddcheck game=%s unsound_bdd=%" PRIu64 " unsound_bddval=%" PRIu64 "\n", a->name,
           a->unsound[M_BDD], a->unsound[M_BDDVAL]);
    uint64_t unsound = 0;
    for (int mode = 0; mode < N_MODES; mode++)
        unsound += a->unsound[mode];
    return st.z3_disagree || unsound ? 4 : 0;
}

static int find_role(const game_t *g, const char *name) {
    for (uint32_t i = 0; i < g->n_roles; i++)
        if (!strcasecmp(term_sym_name(g->ts, term_sym(g->ts, g->roles[i])), name)) return (int)i;
    char *end;
    unsigned long long k = strtoull(name, &end, 10);
    return *name && !*end && k < g->n_roles ? (int)k : -1;
}

/* Backward search for the role; the W_i masks the ideal policy may use. */
static bool start_lbs(acc_t *a) {
    lbs_opts_t lo;
    lbs_default_opts(&lo);
    lo.budget = a->o.budget;
    lo.confirm = LBS_CONFIRM_Z3;
    char err[300];
    a->lbs = a->o.steps ? lbs_new_steps(a->e, a->role, &lo, a->o.steps, err, sizeof err)
                        : lbs_new(a->e, a->role, &lo, err, sizeof err);
    if (!a->lbs) {
        fprintf(stderr, "ggp accuracy: %s: %s\n", a->o.path, err);
        return false;
    }
    lbs_stats_t st;
    lbs_stats(a->lbs, &st);
    uint32_t na = st.n_alpha > 64 ? 64 : st.n_alpha, nb = st.n_beta > 64 ? 64 : st.n_beta;
    a->mask_alpha = na == 64 ? ~0ull : (1ull << na) - 1;
    a->mask_beta = nb == 64 ? ~0ull : (1ull << nb) - 1;
    printf("lbs game=%s n_alpha=%u n_beta=%u regress_seconds=%.3f\n", a->name, st.n_alpha,
           st.n_beta, st.regress_seconds);
    fflush(stdout);
    return true;
}

/* The symbolic sets with values (mcts/bddhook.h) for the bdd and bddval modes, within the
 * backward-search budget; without them (an engine whose bits are not the network's, a game
 * not grounded) those modes never stop, said on a row. */
static void start_bdd(acc_t *a) {
    bddhook_opts_t ho;
    bddhook_default_opts(&ho);
    ho.horizon = a->o.bdd_horizon, ho.values = true;
    char err[300] = "";
    double budget = a->o.budget > 0 ? a->o.budget : 1e6;
    a->bdd = bddhook_new(a->e, a->role, NULL, &ho, now_seconds() + budget, err, sizeof err);
    if (!a->bdd) {
        printf("bdd game=%s error=\"%s\"\n", a->name, err);
        return;
    }
    a->work = engine_state_new(a->e);
    bddhook_info_t in;
    bddhook_info(a->bdd, &in);
    printf("bdd game=%s horizon=%u n_alpha=%u n_beta=%u first_partial=%d nodes=%" PRIu64
           " seconds=%.3f\n",
           a->name, in.horizon, in.alpha, in.beta,
           in.first_partial == UINT32_MAX ? -1 : (int)in.first_partial, in.nodes, in.seconds);
    fflush(stdout);
}

static int run(acc_t *a) {
    int rc = a->o.kind == 2 ? run_random(a) : run_whole(a);
    if (rc) return rc;
    print_results(a);
    if (a->o.cost_seconds > 0 && a->n_cost)
        for (int mode = M_PLAIN; mode < N_MODES; mode++)
            if (mode != M_IDEAL && (mode < M_BDD || a->bdd)) cost_row(a, mode);
    return print_check(a);
}

static int accuracy(acc_opts_t *o) {
    acc_t a = {.o = *o, .rng = {o->seed}};
    for (int mode = 0; mode < N_MODES; mode++)
        a.mode_rng[mode].s = o->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(mode + 1));
    a.g = cli_load_game(o->path);
    if (!a.g) return 1;
    const char *base = strrchr(o->path, '/');
    static char name[128];
    snprintf(name, sizeof name, "%s", base ? base + 1 : o->path);
    if (strchr(name, '.')) *strchr(name, '.') = 0;
    a.name = name;
    int role = o->role ? find_role(a.g, o->role) : 0, rc = 2;
    if (role < 0 || a.g->n_roles != 2) {
        fprintf(stderr, "ggp accuracy: %s\n", role < 0 ? "unknown role" : "two-player games only");
        game_free(a.g);
        return 2;
    }
    a.role = (uint32_t)role, a.other = 1 - a.role;
    a.e = engine_new(a.g, o->engine, stderr);
    if (start_lbs(&a)) {
        start_bdd(&a);
        rc = run(&a);
    } else {
        rc = 3;
    }
    for (uint32_t k = 0; k < a.n_cost; k++)
        state_fini(&a.cost_states[k]);
    free(a.cost_states);
    if (a.lbs) lbs_free(a.lbs);
    bddhook_free(a.bdd);
    if (a.work) engine_state_free(a.work);
    engine_free(a.e);
    game_free(a.g);
    return rc;
}

int cmd_accuracy(int argc, char **argv) {
    acc_opts_t o;
    default_opts(&o);
    const char *positions = NULL, *rollouts = NULL, *iters = NULL;
    unsigned long long ply = o.ply, mcts_positions = o.mcts_positions, steps = o.steps;
    unsigned long long bdd_horizon = 0;
    unsigned long long seed = o.seed, max_states = o.max_states;
    const opt_spec_t specs[] = {
        {.name = "--role", .value = &o.role},
        {.name = "--positions", .value = &positions, .check = positions_ok},
        {.name = "--ply", .uint = &ply, .max = 100000},
        {.name = "--rollouts", .value = &rollouts, .check = rollouts_ok},
        {.name = "--mcts-iters", .value = &iters, .check = iters_ok},
        {.name = "--mcts-positions", .uint = &mcts_positions, .max = 1000000},
        {.name = "--budget", .real = &o.budget},
        {.name = "--steps", .uint = &steps, .max = 1000},
        {.name = "--bdd-horizon", .uint = &bdd_horizon, .max = 64},
        {.name = "--cost-seconds", .real = &o.cost_seconds},
        {.name = "--seed", .uint = &seed},
        {.name = "--engine", .engine = &o.engine},
        {.name = "--max-states", .uint = &max_states, .min = 1, .max = UINT32_MAX - 1},
        {0}};
    int rc = opt_parse(argc, argv, "accuracy", accuracy_help, NULL, specs, &o.path, 1);
    if (rc >= 0) return rc;
    if (!o.path) {
        opt_usage_error("accuracy", accuracy_help, "no GAME given");
        return 2;
    }
    /* checked as given: cannot fail */
    if (positions) parse_positions(positions, &o);
    if (rollouts) parse_list("--rollouts", rollouts, o.rollouts, &o.n_rollouts);
    if (iters) parse_list("--mcts-iters", iters, o.iters, &o.n_iters);
    if (o.iters[0] == 0) o.n_iters = 0;
    o.ply = (uint32_t)ply, o.mcts_positions = (uint32_t)mcts_positions;
    o.steps = (uint32_t)steps, o.seed = seed, o.max_states = (uint32_t)max_states;
    o.bdd_horizon = (uint32_t)bdd_horizon;
    return accuracy(&o);
}
