/* Unit tests for mcts/uct: UCT MCTS on tic-tac-toe (take a win, block a loss), nim (the
 * only winning first move), the rollout hook, tree reuse across uct_advance, determinism,
 * and smoke runs on a three-player and a simultaneous-move game. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "gdl/validate.h"
#include "load.h"
#include "many_moves.h"
#include "mcts/uct.h"
#include "moves.h"
#include "race.h"
#include "terms.h"
#include "trap.h"

typedef struct {
    game_t *g;
    engine_t *r;
    state_t s, n;
    strbuf_t sb;
} fix_t;

/* The fixture on game g (loaded): its reasoner, at the initial state. */
static void fix_init(fix_t *f, game_t *g) {
    f->g = g;
    f->r = engine_new(f->g, ENGINE_INTERP, NULL);
    state_init(&f->s);
    state_init(&f->n);
    sb_init(&f->sb);
    terms_initial(f->r, &f->s);
}

static void load(fix_t *f, const char *name) {
    game_t *g = load_file(name);
    if (!g) fail_msg("%s does not load", name);
    fix_init(f, g);
}

static void unload(fix_t *f) {
    engine_free(f->r);
    game_free(f->g);
    state_fini(&f->s);
    state_fini(&f->n);
    sb_fini(&f->sb);
}

static const char *str(fix_t *f, term_t t) {
    sb_clear(&f->sb);
    if (t == TERM_NONE)
        sb_puts(&f->sb, "NONE");
    else
        term_print(f->g->ts, t, &f->sb);
    return sb_str(&f->sb);
}

/* The legal move of a role in the current state whose text is `text`. */
static term_t move(fix_t *f, uint32_t role, const char *text) {
    return legal_by_text_terms(f->r, &f->s, role, text);
}

/* Plays a two-role turn: the first role's move and the second's. */
static void play2(fix_t *f, const char *a, const char *b) {
    term_t joint[2] = {move(f, 0, a), move(f, 1, b)};
    terms_next(f->r, &f->s, joint, &f->n);
    state_copy(&f->s, &f->n);
}

static const char *search(fix_t *f, uint32_t role, uint32_t iters, uint64_t seed) {
    uct_t *u = uct_new(f->r, role, seed);
    term_t m = uct_choose(u, &f->s, 0, iters);
    uct_free(u);
    return str(f, m);
}

/* ---- tic-tac-toe ---- */

/* Tic-tac-toe after X: (1 1) (1 2); O: (2 1) (2 2). X to move wins at (1 3); O threatens
 * (2 3). */
static void x_to_win(fix_t *f) {
    load(f, "tictactoe.kif");
    play2(f, "(mark 1 1)", "noop");
    play2(f, "noop", "(mark 2 1)");
    play2(f, "(mark 1 2)", "noop");
    play2(f, "noop", "(mark 2 2)");
}

static void test_ttt_take_win(void **state) {
    (void)state;
    fix_t f;
    x_to_win(&f);
    for (uint64_t seed = 1; seed <= 3; seed++)
        assert_string_equal(search(&f, 0, 5000, seed), "(mark 1 3)");
    unload(&f);
}

/* The root's statistics per move (what PIMC sums over worlds): the winning move's mean is
 * a win (the search stops once it is proven, so visits say little), the visits are the
 * root's at most, a move that is not the role's gives false. */
static void test_root_move(void **state) {
    (void)state;
    fix_t f;
    x_to_win(&f);
    uct_t *u = uct_new(f.r, 0, 7);
    term_t best = uct_choose(u, &f.s, 0, 3000);
    const term_t *m;
    uint32_t n = terms_legal(f.r, &f.s, 0, &m), sum = 0, bv = 0;
    double bmean = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t visits;
        double mean;
        assert_true(uct_root_move(u, m[i], &visits, &mean));
        assert_true(mean >= 0 && mean <= 100);
        sum += visits;
        if (m[i] == best) bv = visits, bmean = mean;
    }
    assert_string_equal(str(&f, best), "(mark 1 3)");
    assert_true(bmean > 90);
    assert_true(bv > 0);
    uct_stats_t st;
    uct_stats(u, &st);
    assert_true(sum > 0 && sum <= st.root_visits);
    uint32_t visits;
    double mean;
    assert_false(uct_root_move(u, move(&f, 1, "noop"), &visits, &mean));
    assert_int_equal(visits, 0);
    uct_free(u);
    unload(&f);
}

static void test_ttt_block_loss(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    /* X: (1 1) (1 2); O: (3 1). O to move must block at (1 3). */
    play2(&f, "(mark 1 1)", "noop");
    play2(&f, "noop", "(mark 3 1)");
    play2(&f, "(mark 1 2)", "noop");
    for (uint64_t seed = 1; seed <= 3; seed++)
        assert_string_equal(search(&f, 1, 5000, seed), "(mark 1 3)");
    /* The role without a choice plays noop. */
    assert_string_equal(search(&f, 0, 100, 1), "noop");
    unload(&f);
}

/* ---- nim: heaps 1 2 3 5, nim-sum 5; only taking all of heap d leaves nim-sum 0 ---- */

static void test_nim_winning_move(void **state) {
    (void)state;
    fix_t f;
    load(&f, "nim.kif");
    assert_string_equal(search(&f, 0, 20000, 7), "(take d 5)");
    /* After (take d 3): heaps 1 2 3 2, nim-sum 2, player2 to move; the winning replies are
     * (take b 2), (take c 2) and (take d 2). */
    play2(&f, "(take d 3)", "noop");
    const char *m = search(&f, 1, 20000, 7);
    assert_true(strcmp(m, "(take b 2)") == 0 || strcmp(m, "(take c 2)") == 0 ||
                strcmp(m, "(take d 2)") == 0);
    unload(&f);
}

/* ---- the rollout hook ---- */

typedef struct {
    int value;
    uint64_t calls;
} hook_ctx_t;

static int const_hook(void *ctx, const state_t *s) {
    (void)s;
    hook_ctx_t *h = ctx;
    h->calls++;
    return h->value;
}

static void test_hook(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    for (uint32_t role = 0; role < 2; role++) {
        hook_ctx_t h = {100, 0};
        uct_t *u = uct_new(f.r, role, 3);
        uct_set_hook(u, const_hook, &h);
        uct_choose(u, &f.s, 0, 500);
        uct_stats_t st;
        uct_stats(u, &st);
        assert_true(st.rollouts > 0);
        assert_int_equal(st.rollout_steps, 0);
        assert_true(st.avg_rollout_len == 0.0);
        assert_int_equal(st.hook_hits, st.rollouts);
        assert_int_equal(st.hook_hits_win, st.rollouts);
        assert_int_equal(st.hook_calls, h.calls);
        assert_true(st.root_value == 100.0);
        assert_true(st.root_proven);
        uct_free(u);
    }
    /* A hook that never fires changes nothing but the counters. */
    hook_ctx_t h = {-1, 0};
    uct_t *u = uct_new(f.r, 0, 3);
    uct_set_hook(u, const_hook, &h);
    uct_choose(u, &f.s, 0, 300);
    uct_stats_t st;
    uct_stats(u, &st);
    assert_int_equal(st.hook_hits, 0);
    assert_true(st.avg_rollout_len > 4.0);
    assert_int_equal(st.hook_calls, h.calls);
    assert_true(st.hook_calls >= st.rollout_steps);
    uct_free(u);
    unload(&f);
}

/* A hook that proves X's win at one state only (X to move there, one winning move). */
typedef struct {
    state_t *target;
    uint64_t hits;
} target_hook_t;

static int target_hook(void *ctx, const state_t *s) {
    target_hook_t *h = ctx;
    if (!state_equal(s, h->target)) return -1;
    h->hits++;
    return 100;
}

/* The hook proves a leaf at its own state; once the game reaches that leaf, it is the
 * root: the search must still run and find the move that keeps the proof (it used to stop
 * at once, the root being proven, and play the first legal move). */
static void test_hook_proven_root(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    play2(&f, "(mark 1 3)", "noop");
    play2(&f, "noop", "(mark 2 1)");
    play2(&f, "(mark 1 2)", "noop");
    /* O to move; after O's (2 2), X wins at (1 1) only (O threatens (2 3)). */
    state_t target;
    state_init(&target);
    term_t joint[2] = {move(&f, 0, "noop"), move(&f, 1, "(mark 2 2)")};
    terms_next(f.r, &f.s, joint, &target);
    target_hook_t h = {&target, 0};
    uct_t *u = uct_new(f.r, 0, 5);
    uct_set_hook(u, target_hook, &h);
    uct_choose(u, &f.s, 0, 200);
    assert_true(h.hits > 0);
    uct_advance(u, joint);
    state_copy(&f.s, &target);
    const term_t *legal;
    assert_true(terms_legal(f.r, &f.s, 0, &legal) > 1);
    assert_string_not_equal(str(&f, legal[0]), "(mark 1 1)"); /* else the test shows nothing */
    uct_stats_t before, after;
    uct_stats(u, &before);
    assert_string_equal(str(&f, uct_choose(u, &f.s, 0, 300)), "(mark 1 1)");
    uct_stats(u, &after);
    assert_true(after.iterations > before.iterations);
    assert_true(after.root_proven && after.root_value == 100.0);
    uct_free(u);
    state_fini(&target);
    unload(&f);
}

/* ---- tree reuse ---- */

static void test_reuse(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    uct_t *u = uct_new(f.r, 0, 11);
    term_t m = uct_choose(u, &f.s, 0, 3000);
    term_t joint[2] = {m, move(&f, 1, "noop")};
    uint32_t v = uct_child_visits(u, joint);
    assert_true(v > 0);
    uct_stats_t before, st;
    uct_stats(u, &before);
    uct_advance(u, joint);
    uct_stats(u, &st);
    assert_true(st.nodes > 0);
    assert_true(st.nodes < before.nodes);
    assert_int_equal(st.root_visits, v);
    /* Searching from the successor state continues the same tree. */
    terms_next(f.r, &f.s, joint, &f.n);
    state_copy(&f.s, &f.n);
    assert_string_equal(str(&f, uct_choose(u, &f.s, 0, 500)), "noop");
    uct_stats(u, &st);
    assert_true(st.root_proven || st.root_visits == v + 500);
    /* A different state starts afresh. */
    state_t init;
    state_init(&init);
    terms_initial(f.r, &init);
    uct_choose(u, &init, 0, 10);
    uct_stats(u, &st);
    assert_int_equal(st.root_visits, 10);
    state_fini(&init);
    /* Many moves: the pool is reused, a whole game plays out. */
    uct_free(u);
    uct_t *us[2] = {uct_new(f.r, 0, 5), uct_new(f.r, 1, 6)};
    terms_initial(f.r, &f.s);
    while (!terms_terminal(f.r, &f.s)) {
        term_t j[2];
        for (int r = 0; r < 2; r++)
            j[r] = uct_choose(us[r], &f.s, 0, 2000);
        for (int r = 0; r < 2; r++) {
            assert_true(terms_is_legal(f.r, &f.s, (uint32_t)r, j[r]));
            uct_advance(us[r], j);
        }
        terms_next(f.r, &f.s, j, &f.n);
        state_copy(&f.s, &f.n);
    }
    /* Two good players draw tic-tac-toe. */
    assert_int_equal(terms_goal_value(f.r, &f.s, 0), 50);
    for (int r = 0; r < 2; r++)
        uct_free(us[r]);
    unload(&f);
}

/* ---- memory cap ---- */

/* A tree at its memory cap stops growing but the search goes on: every iteration runs,
 * the memory stays under the cap, the tree is reused across moves, the moves are legal. */
static void test_memory_limit(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    uct_t *u = uct_new(f.r, 0, 3);
    uct_stats_t st;
    uct_stats(u, &st);
    assert_true(st.memory_limit >= (size_t)64 << 20); /* an eighth of any machine we run on */
    size_t cap = (size_t)1 << 20;
    uct_set_memory_limit(u, cap);
    uct_stats(u, &st);
    assert_true(st.memory_bytes <= cap);
    uint64_t iterations = 0;
    while (!terms_terminal(f.r, &f.s)) {
        term_t j[2];
        for (uint32_t r = 0; r < 2; r++) {
            const term_t *m;
            terms_legal(f.r, &f.s, r, &m);
            j[r] = r == 0 ? uct_choose(u, &f.s, 0, 20000) : m[0];
        }
        assert_true(terms_is_legal(f.r, &f.s, 0, j[0]));
        uct_stats(u, &st);
        assert_true(st.memory_bytes <= cap);
        iterations = st.iterations;
        uct_advance(u, j);
        terms_next(f.r, &f.s, j, &f.n);
        state_copy(&f.s, &f.n);
    }
    assert_true(st.memory_full > 0);
    assert_true(iterations >= 20000);
    uct_free(u);
    unload(&f);
}

/* ---- determinism ---- */

static void test_deterministic(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    uct_stats_t st[2];
    term_t m[2];
    for (int k = 0; k < 2; k++) {
        uct_t *u = uct_new(f.r, 0, 42);
        m[k] = uct_choose(u, &f.s, 0, 1000);
        uct_stats(u, &st[k]);
        uct_free(u);
    }
    assert_int_equal(m[0], m[1]);
    assert_int_equal(st[0].rollout_steps, st[1].rollout_steps);
    assert_int_equal(st[0].nodes, st[1].nodes);
    assert_true(st[0].root_value == st[1].root_value);
    unload(&f);
}

/* On a ground engine too, with the parallel mode set but one thread: the same seed, the
 * same search. */
static void test_deterministic_engine(void **state) {
    (void)state;
    fix_t f;
    load(&f, "connect4.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, stderr);
    uct_stats_t st[2];
    term_t m[2];
    for (int k = 0; k < 2; k++) {
        uct_t *u = uct_new(e, 0, 42);
        uct_set_parallel(u, k ? UCT_PARALLEL_TREE : UCT_PARALLEL_ROOT);
        m[k] = uct_choose(u, &f.s, 0, 2000);
        uct_stats(u, &st[k]);
        uct_free(u);
    }
    assert_int_equal(m[0], m[1]);
    assert_int_equal(st[0].iterations, 2000);
    assert_int_equal(st[0].rollout_steps, st[1].rollout_steps);
    assert_int_equal(st[0].nodes, st[1].nodes);
    assert_true(st[0].root_value == st[1].root_value);
    engine_free(e);
    unload(&f);
}

/* A state hook that never hits and notes the deepest rollout step it was asked at. */
static int deepest_hook(void *ctx, const eng_state_t *s, uint32_t depth) {
    (void)s;
    uint32_t *deepest = ctx;
    if (depth > *deepest) *deepest = depth;
    return -1;
}

/* uct_set_hook_reach: the state hook is asked no deeper than its reach from the root (the
 * leaf's tree depth included, so a rollout step past it never), and the rollouts go on to
 * the end past it, without the hook. */
static void test_hook_reach(void **state) {
    (void)state;
    fix_t f;
    load(&f, "connect4.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, stderr);
    for (uint32_t reach = 0; reach <= 4; reach += 2) {
        uct_t *u = uct_new(e, 0, 42);
        uint32_t deepest = 0;
        uct_set_state_hook(u, deepest_hook, &deepest);
        uct_set_hook_reach(u, reach);
        uct_choose(u, &f.s, 0, 500);
        uct_stats_t st;
        uct_stats(u, &st);
        assert_true(deepest <= reach);
        /* every rollout starts at a leaf at least one ply down: reach 0 asks none */
        assert_true(reach ? st.hook_calls > 0 : st.hook_calls == 0);
        assert_true(st.rollout_steps > (uint64_t)(reach + 2) * st.rollouts);
        uct_free(u);
    }
    uct_t *u = uct_new(e, 0, 42); /* the default: every state of every rollout */
    uint32_t deepest = 0;
    uct_set_state_hook(u, deepest_hook, &deepest);
    uct_choose(u, &f.s, 0, 500);
    assert_true(deepest > 4);
    uct_free(u);
    engine_free(e);
    unload(&f);
}

/* The visits of the root's children (every joint move of the root's legal moves). */
static uint64_t child_visits(fix_t *f, uct_t *u) {
    const term_t *m0, *m1;
    uint32_t n0 = terms_legal(f->r, &f->s, 0, &m0);
    term_t first[n0 + 1];
    memcpy(first, m0, n0 * sizeof *m0);
    uint32_t n1 = terms_legal(f->r, &f->s, 1, &m1);
    uint64_t sum = 0;
    for (uint32_t a = 0; a < n0; a++)
        for (uint32_t b = 0; b < n1; b++)
            sum += uct_child_visits(u, (term_t[]){first[a], m1[b]});
    return sum;
}

/* Tree parallelism: both threads on one tree. An iteration bound counts the iterations of
 * both; every virtual loss is taken back (the root and its children have exactly one
 * visit per iteration, also when the clock drops rollouts); a win in one is found. */
static void test_tree_parallel(void **state) {
    (void)state;
    fix_t f;
    load(&f, "connect4.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, stderr);
    uct_t *u = uct_new(e, 0, 7);
    uct_set_parallel(u, UCT_PARALLEL_TREE);
    assert_true(uct_set_threads(u, 2));
    term_t m = uct_choose(u, &f.s, 0, 3000);
    assert_true(terms_is_legal(f.r, &f.s, 0, m));
    uct_stats_t st;
    uct_stats(u, &st);
    assert_int_equal(st.iterations, 3000);
    assert_int_equal(st.root_visits, 3000);
    assert_int_equal(child_visits(&f, u), 3000);
    /* time-bounded, reusing the tree: visits still match iterations minus dropped ones */
    uct_reset_stats(u);
    uct_choose(u, &f.s, 0.2, 0);
    uct_stats(u, &st);
    assert_true(st.iterations > 0);
    assert_int_equal(st.root_visits, 3000 + st.iterations);
    assert_int_equal(child_visits(&f, u), st.root_visits);
    uct_free(u);
    engine_free(e);
    unload(&f);

    load(&f, "tictactoe.kif"); /* X has (1 1) (1 2), O (2 1) (2 2): X wins at (1 3) */
    play2(&f, "(mark 1 1)", "noop");
    play2(&f, "noop", "(mark 2 1)");
    play2(&f, "(mark 1 2)", "noop");
    play2(&f, "noop", "(mark 2 2)");
    e = engine_new(f.g, ENGINE_GROUND, stderr);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        u = uct_new(e, 0, seed);
        uct_set_parallel(u, UCT_PARALLEL_TREE);
        assert_true(uct_set_threads(u, 2));
        assert_string_equal(str(&f, uct_choose(u, &f.s, 0, 2000)), "(mark 1 3)");
        uct_free(u);
    }
    engine_free(e);
    unload(&f);
}

/* ---- the time budget ---- */

static void test_time_budget(void **state) {
    (void)state;
    fix_t f;
    load(&f, "connect4.kif");
    uct_t *u = uct_new(f.r, 0, 1);
    double t0 = now_seconds();
    term_t m = uct_choose(u, &f.s, 0.2, 0);
    double t = now_seconds() - t0;
    assert_true(terms_is_legal(f.r, &f.s, 0, m));
    uct_stats_t st;
    uct_stats(u, &st);
    /* it searched: one iteration at least, backed up or, when the deadline passed during
     * its rollout (a starved thread on the interpreter), dropped */
    assert_true(st.iterations + st.dropped_rollouts > 0);
    /* it searches until the deadline, never less (a loaded machine can only make t longer;
     * that it stops at all is the test's ending) */
    assert_true(t >= 0.2);
    uct_free(u);
    unload(&f);
}

/* ---- other games: any number of roles, simultaneous moves ---- */

static void smoke(const char *game) {
    fix_t f;
    load(&f, game);
    uint32_t nr = f.g->n_roles;
    uct_t **us = calloc(nr, sizeof *us);
    term_t *j = calloc(nr, sizeof *j);
    for (uint32_t r = 0; r < nr; r++)
        us[r] = uct_new(f.r, r, 100 + r);
    for (int turn = 0; turn < 200 && !terms_terminal(f.r, &f.s); turn++) {
        for (uint32_t r = 0; r < nr; r++) {
            j[r] = uct_choose(us[r], &f.s, 0, 300);
            assert_true(terms_is_legal(f.r, &f.s, r, j[r]));
        }
        for (uint32_t r = 0; r < nr; r++)
            uct_advance(us[r], j);
        terms_next(f.r, &f.s, j, &f.n);
        state_copy(&f.s, &f.n);
    }
    assert_true(terms_terminal(f.r, &f.s));
    for (uint32_t r = 0; r < nr; r++)
        uct_free(us[r]);
    free(us);
    free(j);
    unload(&f);
}

/* ---- transpositions, score bounds, rollout policies, pondering ---- */

/* Tic-tac-toe is a draw: on a graph of its states (a few thousand) the score bounds prove
 * the root worth 50 within an iteration bound, the tree without transpositions holds more
 * nodes for the same iterations, and with transpositions and every rollout policy the
 * win is still taken and the loss blocked. */
static void test_transpositions_prove_draw(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    uct_stats_t st[2];
    for (int tt = 0; tt < 2; tt++) {
        uct_t *u = uct_new(e, 0, 5);
        uct_set_transpositions(u, tt);
        uct_choose(u, &f.s, 0, 60000);
        uct_stats(u, &st[tt]);
        uct_free(u);
    }
    assert_true(st[1].root_proven);
    assert_true(st[1].root_value == 50);
    assert_true(st[1].iterations < 60000); /* the search stopped at the proof */
    assert_true(st[1].nodes <= 5478 + 1);  /* one node per state */
    assert_true(st[0].nodes > st[1].nodes);
    engine_free(e);
    unload(&f);
}

/* The same search with score bounds off (plain UCT): nothing above the terminal leaves is
 * proven, so the root stays open and every iteration runs; the win is still taken. */
static void test_bounds_off(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    uct_t *u = uct_new(e, 0, 5);
    uct_set_transpositions(u, true);
    uct_set_bounds(u, false);
    uct_choose(u, &f.s, 0, 60000); /* test_transpositions_prove_draw's search: proven */
    uct_stats_t st;
    uct_stats(u, &st);
    assert_false(st.root_proven);
    assert_int_equal(st.iterations, 60000);
    uct_free(u);
    engine_free(e);
    unload(&f);
}

static void ttt_policies(fix_t *f, engine_t *e, uint32_t role, const char *want) {
    playout_opts_t pols[] = {{false, false, -1, 0, NULL}, {true, false, -1, 0, NULL},
                             {true, true, -1, 0, NULL},   {false, false, 0.2, 0, NULL},
                             {true, true, 0.1, 0, NULL},  {true, true, -1, 1, NULL},
                             {true, true, -1, 3, NULL},   {false, false, 0.2, 2, NULL}};
    for (size_t k = 0; k < sizeof pols / sizeof *pols; k++)
        for (int tt = 0; tt < 2; tt++) {
            uct_t *u = uct_new(e, role, 3 + k);
            uct_set_transpositions(u, tt);
            uct_set_playout(u, &pols[k]);
            assert_string_equal(str(f, uct_choose(u, &f->s, 0, 3000)), want);
            uct_free(u);
        }
}

static void test_policies_win_and_block(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    play2(&f, "(mark 1 1)", "noop");
    play2(&f, "noop", "(mark 3 1)");
    play2(&f, "(mark 1 2)", "noop");
    ttt_policies(&f, e, 1, "(mark 1 3)"); /* O blocks */
    play2(&f, "noop", "(mark 2 2)");
    ttt_policies(&f, e, 0, "(mark 1 3)"); /* X wins */
    engine_free(e);
    unload(&f);
}

/* UCB1-Tuned: the win is taken, the loss blocked and nim's winning move found as with
 * UCB1; and it explores less where the values vary little (at most 1/2 of UCB1's term):
 * from the empty tic-tac-toe board its most visited move gets more of the same visits. */
static uint32_t top_visits(fix_t *f, uct_t *u) {
    const term_t *m;
    uint32_t n = terms_legal(f->r, &f->s, 0, &m), top = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t visits;
        double mean;
        if (uct_root_move(u, m[i], &visits, &mean) && visits > top) top = visits;
    }
    return top;
}

static void test_ucb_tuned(void **state) {
    (void)state;
    fix_t f;
    load(&f, "tictactoe.kif");
    uint32_t top[2];
    for (int tuned = 0; tuned < 2; tuned++) {
        uct_t *u = uct_new(f.r, 0, 11);
        uct_set_tuned(u, tuned);
        uct_choose(u, &f.s, 0, 3000);
        top[tuned] = top_visits(&f, u);
        uct_free(u);
    }
    assert_true(top[1] > top[0]);
    play2(&f, "(mark 1 1)", "noop");
    play2(&f, "noop", "(mark 3 1)");
    play2(&f, "(mark 1 2)", "noop");
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uct_t *u = uct_new(f.r, 1, seed);
        uct_set_tuned(u, true);
        assert_string_equal(str(&f, uct_choose(u, &f.s, 0, 5000)), "(mark 1 3)"); /* block */
        uct_free(u);
    }
    play2(&f, "noop", "(mark 2 2)");
    uct_t *u = uct_new(f.r, 0, 2);
    uct_set_tuned(u, true);
    assert_string_equal(str(&f, uct_choose(u, &f.s, 0, 5000)), "(mark 1 3)"); /* win */
    uct_free(u);
    unload(&f);
    load(&f, "nim.kif");
    u = uct_new(f.r, 0, 7);
    uct_set_tuned(u, true);
    assert_string_equal(str(&f, uct_choose(u, &f.s, 0, 20000)), "(take d 5)");
    uct_free(u);
    unload(&f);
}

/* A pondered search is the search itself, begun earlier: N iterations pondered, then N
 * more by uct_choose on the same tree, visit for visit as 2N by uct_choose alone (the
 * same seed); pondering from the root uct_advance left too. */
static void test_ponder(void **state) {
    (void)state;
    fix_t f;
    load(&f, "connect4.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    uct_stats_t st[2];
    term_t m[2];
    uint64_t cv[2];
    for (int k = 0; k < 2; k++) {
        uct_t *u = uct_new(e, 0, 11);
        uct_set_transpositions(u, true);
        if (k) {
            assert_true(uct_ponder(u, &f.s, 1500));
            uct_ponder_wait(u);
            uct_stats(u, &st[k]);
            assert_int_equal(st[k].iterations, 1500);
            m[k] = uct_choose(u, &f.s, 0, 1500);
        } else {
            m[k] = uct_choose(u, &f.s, 0, 3000);
        }
        uct_stats(u, &st[k]);
        cv[k] = child_visits(&f, u);
        uct_free(u);
    }
    assert_int_equal(m[0], m[1]);
    assert_int_equal(st[0].iterations, 3000);
    assert_int_equal(st[1].iterations, 3000);
    assert_int_equal(st[0].root_visits, st[1].root_visits);
    assert_int_equal(st[0].nodes, st[1].nodes);
    assert_int_equal(cv[0], cv[1]);
    /* after a move: the kept subtree grows by what is pondered */
    uct_t *u = uct_new(e, 0, 11);
    term_t mv = uct_choose(u, &f.s, 0, 2000);
    const term_t *o;
    assert_int_equal(terms_legal(f.r, &f.s, 1, &o), 1);
    term_t joint[2] = {mv, o[0]};
    uct_advance(u, joint);
    uct_stats(u, &st[0]);
    assert_true(uct_ponder(u, NULL, 500));
    uct_ponder_wait(u);
    uct_stats(u, &st[1]);
    assert_int_equal(st[1].root_visits, st[0].root_visits + 500);
    uct_ponder(u, NULL, 0); /* unbounded: stopped by the next call */
    uct_ponder_stop(u);
    uct_free(u);
    engine_free(e);
    unload(&f);
}

/* A game of cycles: a token on a ring of six, the mover steps it one or two on; a stops
 * (and wins) at 3, b at 5. With transpositions its graph has a dozen nodes and most
 * iterations meet a state already on their path. */
static const char *RING =
    "(role a) (role b) (init (pos 0)) (init (control a))"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 0)"
    "(<= (legal ?r step) (true (control ?r))) (<= (legal ?r jump) (true (control ?r)))"
    "(<= (legal a stop) (true (control a)) (true (pos 3)))"
    "(<= (legal b stop) (true (control b)) (true (pos 5)))"
    "(<= (legal a noop) (true (control b))) (<= (legal b noop) (true (control a)))"
    "(<= (next (pos ?y)) (does ?r step) (true (pos ?x)) (succ ?x ?y))"
    "(<= (next (pos ?z)) (does ?r jump) (true (pos ?x)) (succ ?x ?y) (succ ?y ?z))"
    "(<= (next (pos ?x)) (does ?r stop) (true (pos ?x))) (<= (next stopped) (does ?r stop))"
    "(<= (next (control a)) (true (control b))) (<= (next (control b)) (true (control a)))"
    "(<= terminal (true stopped))"
    "(<= (goal a 100) (true (pos 3))) (<= (goal a 0) (true (pos 5)))"
    "(<= (goal a 50) (not (true (pos 3))) (not (true (pos 5))))"
    "(<= (goal b 0) (true (pos 3))) (<= (goal b 100) (true (pos 5)))"
    "(<= (goal b 50) (not (true (pos 3))) (not (true (pos 5))))";

/* Cycle stamps are the tree's, not a thread's: a thread marks the nodes of its path with
 * its iteration's stamp, and a state met again on the path is a repeat. On a game
 * without cycles (connect four) no iteration may meet a repeat, however the threads
 * interleave and also after the tree's second thread is made anew on the kept tree (its
 * own count restarted, the tree holding the stamps of the first helper: stale stamps
 * read as repeats). On the ring repeats are met, and with two threads every visit is
 * still counted once and the graph is the same (one node per state). */
static void test_cycle_stamps(void **state) {
    (void)state;
    fix_t f;
    load(&f, "connect4.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    uct_t *u = uct_new(e, 0, 9);
    uct_set_transpositions(u, true);
    uct_set_parallel(u, UCT_PARALLEL_TREE);
    assert_true(uct_set_threads(u, 2));
    uct_stats_t st;
    for (int round = 0; round < 6; round++) {
        uct_choose(u, &f.s, 0, 4000);
        uct_set_parallel(u, UCT_PARALLEL_ROOT); /* the helper made anew, the tree kept */
        uct_set_parallel(u, UCT_PARALLEL_TREE);
    }
    uct_stats(u, &st);
    assert_int_equal(st.repeats, 0);
    assert_int_equal(st.root_visits, 6 * 4000);
    uct_free(u);
    engine_free(e);
    unload(&f);

    game_t *g = load_text(RING);
    assert_non_null(g);
    e = engine_new(g, ENGINE_GROUND, NULL);
    engine_t *ri = engine_new(g, ENGINE_INTERP, NULL);
    state_t s;
    state_init(&s);
    terms_initial(ri, &s);
    uct_stats_t one;
    u = uct_new(e, 0, 4);
    uct_set_transpositions(u, true);
    uct_choose(u, &s, 0, 2000);
    uct_stats(u, &one);
    uct_free(u);
    assert_true(one.repeats > 1000);
    u = uct_new(e, 0, 4);
    uct_set_transpositions(u, true);
    uct_set_parallel(u, UCT_PARALLEL_TREE);
    assert_true(uct_set_threads(u, 2));
    uct_choose(u, &s, 0, 2000);
    uct_stats(u, &st);
    assert_true(st.repeats > 1000);
    assert_int_equal(st.root_visits, 2000);
    assert_int_equal(st.nodes, one.nodes);
    uct_free(u);
    state_fini(&s);
    engine_free(ri);
    engine_free(e);
    game_free(g);
}

/* ---- knowledge learnt at start (mcts/heur) ---- */

/* Breakthrough: random matches are decided by how far the pieces have come, so piece
 * counts predict them; the fit is kept, learnt the same for a seed, and an advanced
 * white piece is worth more to white. Tic-tac-toe's fluents say little about a random
 * match's end in no one's favour: nothing is kept there or something weak (either way no
 * crash). With the evaluation, a rollout cut at 0 steps is the leaf's evaluation; priors
 * keep the search's bookkeeping (one root visit per iteration) and its move legal, and
 * the same for a seed. */
static void test_heuristic(void **state) {
    (void)state;
    fix_t f;
    load(&f, "breakthrough.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    heur_stats_t hs[2];
    heur_t *h[2];
    for (int k = 0; k < 2; k++) {
        splitmix_t rng = {77};
        h[k] = heur_learn(e, 0, 1000, &rng, NULL);
        assert_non_null(h[k]);
        heur_stats(h[k], &hs[k]);
    }
    assert_true(hs[0].used > 0 && hs[0].r2 > 0.03);
    assert_int_equal(hs[0].matches, 1000);
    assert_true(hs[0].r2 == hs[1].r2);
    heur_free(h[1]);
    /* the initial state is even for random play; white one row further up is better */
    eng_state_t *es = engine_state_new(e), *t = engine_state_new(e);
    double v0[2], v1[2];
    engine_initial(e, es);
    heur_eval(h[0], e, es, v0);
    assert_true(v0[0] > 25 && v0[0] < 75);
    const term_t *m;
    uint32_t n = engine_legal(e, es, 0, &m);
    assert_true(n > 0);
    term_t joint[2] = {m[0], TERM_NONE};
    assert_int_equal(engine_legal(e, es, 1, &m), 1);
    joint[1] = m[0];
    engine_next(e, es, joint, t);
    heur_eval(h[0], e, t, v1);
    assert_true(v1[0] >= v0[0]);

    uct_stats_t st[2];
    term_t mv[2], sharp[2];
    for (int k = 0; k < 2; k++) {
        uct_t *u = uct_new(e, 0, 3);
        uct_set_heuristic(u, h[0], 0, 0);
        mv[k] = uct_choose(u, &f.s, 0, 500);
        uct_stats(u, &st[k]);
        assert_int_equal(st[k].rollout_cut, st[k].rollouts);
        assert_int_equal(st[k].rollout_steps, 0);
        uct_set_heuristic(u, h[0], -1, 8); /* priors, rollouts to the end */
        uct_clear(u);
        mv[k] = uct_choose(u, &f.s, 0, 500);
        assert_true(terms_is_legal(f.r, &f.s, 0, mv[k]));
        uct_set_prior_sharpness(u, 5); /* priors relative to the node, sharpened */
        uct_clear(u);
        sharp[k] = uct_choose(u, &f.s, 0, 500);
        assert_true(terms_is_legal(f.r, &f.s, 0, sharp[k]));
        uct_free(u);
    }
    assert_int_equal(mv[0], mv[1]);
    assert_int_equal(sharp[0], sharp[1]);
    heur_free(h[0]);
    engine_state_free(es);
    engine_state_free(t);
    engine_free(e);
    unload(&f);

    load(&f, "tictactoe.kif");
    e = engine_new(f.g, ENGINE_GROUND, NULL);
    splitmix_t rng = {5};
    heur_t *w = heur_learn(e, 0, 300, &rng, NULL);
    if (w) {
        heur_stats(w, &hs[0]);
        assert_true(hs[0].r2 >= 0.03);
    }
    heur_free(w);
    engine_free(e);
    unload(&f);
}

/* Whether heur_material finds material in g's initial state (on its ground engine). */
static bool has_material(game_t *g) {
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    eng_state_t *es = engine_state_new(e);
    engine_initial(e, es);
    heur_t *h = heur_material(e, es, 10, NULL);
    bool found = h != NULL;
    heur_free(h);
    engine_state_free(es);
    engine_free(e);
    return found;
}

/* Material (heur_material): breakthrough's pieces carry their role's name (cell(_, _,
 * white)), so both roles start even at 50; once a random match has taken more of one
 * role's pieces, the other is worth more than 50 and the two values still add to 100.
 * Tic-tac-toe's marks carry no role's name (x, not xplayer): no material. */
static void test_material(void **state) {
    (void)state;
    fix_t f;
    load(&f, "breakthrough.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    eng_state_t *es = engine_state_new(e), *t = engine_state_new(e);
    engine_initial(e, es);
    heur_t *h = heur_material(e, es, 10, NULL);
    assert_non_null(h);
    double v[2];
    heur_eval(h, e, es, v);
    assert_true(fabs(v[0] - 50) < 1e-9 && fabs(v[1] - 50) < 1e-9);
    splitmix_t rng = {9};
    term_t joint[2];
    bool uneven = false;
    for (int step = 0; step < 400 && !uneven && !engine_terminal(e, es); step++) {
        assert_true(engine_random_joint(e, es, &rng, joint));
        engine_next(e, es, joint, t);
        engine_state_copy(es, t);
        heur_eval(h, e, es, v);
        assert_true(fabs(v[0] + v[1] - 100) < 1e-9);
        uneven = fabs(v[0] - 50) > 1;
    }
    assert_true(uneven);
    heur_free(h);
    engine_state_free(es);
    engine_state_free(t);
    engine_free(e);
    unload(&f);

    load(&f, "tictactoe.kif");
    assert_false(has_material(f.g));
    unload(&f);
}

/* A race of two tokens each, never taken: the tokens carry their role's name, two each at
 * the start, but their count never changes, so there is no material (an evaluation that
 * is always even says nothing). */
/* RACE: race.h. */

static void test_material_constant(void **state) {
    (void)state;
    game_t *g = load_text(RACE);
    assert_non_null(g);
    assert_false(has_material(g));
    game_free(g);
}

/* A move of the role to move in s (role 0, white, moving) that wins at once: its index among
 * the legal moves, -1 if none. */
static int winning_move(engine_t *e, const eng_state_t *s, eng_state_t *t) {
    const term_t *m;
    term_t joint[2];
    uint32_t n1 = engine_legal(e, s, 1, &m);
    if (n1 != 1) return -1;
    joint[1] = m[0];
    uint32_t n = engine_legal(e, s, 0, &m);
    for (uint32_t k = 0; k < n; k++) {
        joint[0] = m[k];
        engine_next(e, s, joint, t);
        if (engine_terminal(e, t) && engine_goal_value(e, t, 0) == 100) return (int)k;
        n = engine_legal(e, s, 0, &m); /* engine_next may reuse the move buffer */
    }
    return -1;
}

/* Implicit minimax (uct_set_implicit) with material: where white can win at once, the
 * successors evaluated at the root's expansion show the win (a terminal successor is worth
 * its goal), that move is tried first, proves the root, and the search stops after one
 * iteration with it; the same search from the start plays a legal move, the same for a
 * seed. */
static void test_implicit(void **state) {
    (void)state;
    fix_t f;
    load(&f, "breakthrough.kif");
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    eng_state_t *es = engine_state_new(e), *t = engine_state_new(e);
    engine_initial(e, es);
    heur_t *h = heur_material(e, es, 10, NULL);
    assert_non_null(h);
    term_t mv[2];
    for (int k = 0; k < 2; k++) {
        uct_t *u = uct_new(e, 0, 11);
        uct_set_heuristic(u, h, -1, 0);
        uct_set_implicit(u, 0.4);
        mv[k] = uct_choose(u, &f.s, 0, 800);
        assert_true(terms_is_legal(f.r, &f.s, 0, mv[k]));
        uct_free(u);
    }
    assert_int_equal(mv[0], mv[1]);
    splitmix_t rng = {21};
    term_t joint[2];
    int win = -1;
    for (int step = 0; step < 2000 && win < 0; step++) {
        if (engine_terminal(e, es)) engine_initial(e, es);
        win = winning_move(e, es, t);
        if (win >= 0) break;
        assert_true(engine_random_joint(e, es, &rng, joint));
        engine_next(e, es, joint, t);
        engine_state_copy(es, t);
    }
    assert_true(win >= 0);
    state_t s;
    state_init(&s);
    engine_state_terms(e, es, &s);
    uct_t *u = uct_new(e, 0, 12);
    uct_set_heuristic(u, h, -1, 0);
    uct_set_implicit(u, 0.4);
    term_t m = uct_choose(u, &s, 0, 1000);
    uct_stats_t st;
    uct_stats(u, &st);
    assert_true(st.root_proven);
    assert_int_equal(st.iterations, 1);
    const term_t *ms;
    uint32_t n = engine_legal(e, es, 0, &ms);
    bool wins = false;
    for (uint32_t k = 0; k < n && !wins; k++) {
        term_t j2[2] = {ms[k], TERM_NONE};
        const term_t *m1;
        engine_legal(e, es, 1, &m1);
        j2[1] = m1[0];
        engine_next(e, es, j2, t);
        wins = ms[k] == m && engine_terminal(e, t) && engine_goal_value(e, t, 0) == 100;
        n = engine_legal(e, es, 0, &ms);
    }
    assert_true(wins);
    uct_free(u);
    state_fini(&s);
    heur_free(h);
    engine_state_free(es);
    engine_state_free(t);
    engine_free(e);
    unload(&f);
}

/* TRAP: trap.h. */

/* Implicit minimax where the game is not zero-sum (uct_set_implicit_nonzero), bounds off so
 * that the solver does not settle the trap first: on, the minimax of the goals' difference
 * below greedy (black punishes: 45) falls under safe's (55) and white plays safe; off, the
 * minimax stops at the first outcome that does not add up to 100, so greedy keeps its
 * successor's material (white a piece up: 88) for good and white takes the piece. */
static void test_implicit_nonzero(void **state) {
    (void)state;
    game_t *g = load_text(TRAP);
    assert_non_null(g);
    fix_t f;
    fix_init(&f, g);
    engine_t *e = engine_new(f.g, ENGINE_GROUND, NULL);
    eng_state_t *es = engine_state_new(e);
    engine_initial(e, es);
    heur_t *h = heur_material(e, es, 10, NULL);
    assert_non_null(h);
    for (int on = 0; on < 2; on++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uct_t *u = uct_new(e, 0, seed);
            uct_set_heuristic(u, h, -1, 0);
            uct_set_implicit(u, 0.4);
            uct_set_implicit_nonzero(u, on);
            uct_set_bounds(u, false);
            term_t m = uct_choose(u, &f.s, 0, 400);
            assert_string_equal(str(&f, m), on ? "safe" : "greedy");
            uct_free(u);
        }
    heur_free(h);
    engine_state_free(es);
    engine_free(e);
    unload(&f);
}

static void test_three_player(void **state) {
    (void)state;
    smoke("three_player.kif");
}

/* Plays a turn of three_player.kif: the role in control marks (x, y), the others noop. */
static void mark3(fix_t *f, uint32_t mover, const char *cell) {
    term_t joint[3];
    for (uint32_t r = 0; r < 3; r++)
        joint[r] = move(f, r, r == mover ? cell : "noop");
    terms_next(f->r, &f->s, joint, &f->n);
    state_copy(&f->s, &f->n);
}

/* Three roles: r2 threatens (3 1), r3 threatens (3 3), r1 to move, after which r1 plays
 * `then` (NULL: none). */
static void threats3(fix_t *f, const char *then) {
    load(f, "three_player.kif");
    mark3(f, 0, "(mark 4 2)");
    mark3(f, 1, "(mark 1 1)");
    mark3(f, 2, "(mark 1 3)");
    mark3(f, 0, "(mark 1 4)");
    mark3(f, 1, "(mark 2 1)");
    mark3(f, 2, "(mark 2 3)");
    if (then) mark3(f, 0, then);
}

/* Three roles, each backing up its own value (max^n), not the searching role's opponents
 * all against it (paranoid). In threats3's position only blocking r2, the next to move,
 * keeps r1 alive, for r2 then blocks r3 for its own sake (a paranoid r2 would let r3 win,
 * and every move of r1 would be worth 0). At the state after r1's block, r1's search
 * expects r2 to block and values the root well above 0. (Before, r3's node, once its
 * win was proven, pruned that very move and took the others' values from its other
 * moves: r1 played (mark 4 4), worth 98.6 to it in the tree, and r2 wins at once.) */
static void test_three_player_own_values(void **state) {
    (void)state;
    fix_t f;
    threats3(&f, NULL);
    for (uint64_t seed = 1; seed <= 3; seed++)
        assert_string_equal(search(&f, 0, 3000, seed), "(mark 3 1)");
    unload(&f);
    threats3(&f, "(mark 3 1)");
    assert_string_equal(search(&f, 1, 3000, 1), "(mark 3 3)");
    uct_t *u = uct_new(f.r, 0, 1);
    assert_string_equal(str(&f, uct_choose(u, &f.s, 0, 3000)), "noop");
    uct_stats_t st;
    uct_stats(u, &st);
    assert_true(st.root_value > 20);
    uct_free(u);
    unload(&f);
}

static void test_simultaneous(void **state) {
    (void)state;
    smoke("simultaneous.kif");
}

/* ---- the root move from the hook's proofs (uct_set_hook_moves) ---- */

/* One round at the same time, then a wait: a's move v wins whatever b plays, t1 wins
 * against x only (and comes first), t2..t5 lose. */
#define SURE_RULES                                                                                 \
    "(role a) (role b) (init (phase 0))"                                                           \
    "(amove t1) (amove t2) (amove t3) (amove v) (amove t4) (amove t5)"                             \
    "(bmove x) (bmove y) (bmove z)"                                                                \
    "(<= (legal a ?m) (true (phase 0)) (amove ?m))"                                                \
    "(<= (legal b ?m) (true (phase 0)) (bmove ?m))"                                                \
    "(<= (legal ?r wait) (role ?r) (true (phase 1)))"                                              \
    "(<= (next (phase 1)) (true (phase 0))) (<= (next (phase 2)) (true (phase 1)))"                \
    "(<= (next safe) (does a v)) (<= (next lucky) (does a t1) (does b x))"                         \
    "(<= terminal (true (phase 2)))"                                                               \
    "(<= won (true safe)) (<= won (true lucky))"                                                   \
    "(<= (goal a 100) won) (<= (goal a 0) (not won))"                                              \
    "(<= (goal b 0) won) (<= (goal b 100) (not won))"
static const char *SURE = SURE_RULES;

/* A state hook proving a's win at the states after the first round where it has won
 * (they are not terminal: the hook, not the goals, proves them). */
typedef struct {
    eng_state_t *safe, *lucky;
} sure_hook_t;

static int sure_hook(void *ctx, const eng_state_t *s, uint32_t depth) {
    (void)depth;
    const sure_hook_t *h = ctx;
    return engine_state_equal(s, h->safe) || engine_state_equal(s, h->lucky) ? 100 : -1;
}

/* The hook's state after a's move `am` and b's `bm` from the initial state. */
static eng_state_t *after(fix_t *f, engine_t *e, const char *am, const char *bm) {
    term_t joint[2] = {move(f, 0, am), move(f, 1, bm)};
    terms_next(f->r, &f->s, joint, &f->n);
    eng_state_t *es = engine_state_new(e);
    engine_state_set(e, es, &f->n);
    return es;
}

/* With simultaneous moves the move whose every joint move the hook proves won is played
 * after one iteration, which saw one joint move: v, not t1 (won against x only), though
 * the visits alone play another at some seed. */
static void test_hook_moves_simultaneous(void **state) {
    (void)state;
    game_t *g = load_text(SURE);
    assert_non_null(g);
    fix_t f;
    fix_init(&f, g);
    engine_t *e = engine_new(f.g, ENGINE_GROUND, stderr);
    sure_hook_t h = {after(&f, e, "v", "y"), after(&f, e, "t1", "x")};
    uint32_t other = 0;
    for (uint64_t seed = 1; seed <= 8; seed++)
        for (int on = 0; on < 2; on++) {
            uct_t *u = uct_new(e, 0, seed);
            uct_set_state_hook(u, sure_hook, &h);
            uct_set_hook_moves(u, on);
            const char *m = str(&f, uct_choose(u, &f.s, 0, 1));
            if (on)
                assert_string_equal(m, "v");
            else
                other += strcmp(m, "v") != 0;
            uct_free(u);
        }
    assert_true(other > 0); /* else the test shows nothing */
    engine_state_free(h.safe);
    engine_state_free(h.lucky);
    engine_free(e);
    unload(&f);
}

/* SURE with the round's outcome kept to the end: the goals, not a hook, say who won. */
static const char *SURE_KEPT =
    SURE_RULES "(<= (next safe) (true safe)) (<= (next lucky) (true lucky))";

/* Security levels at simultaneous moves: the search proves SURE_KEPT's root won for a (its
 * v wins whatever b plays) once v's three joint moves are proven, and plays v; the
 * children's span alone (the least and the most of each role's bounds) proves nothing
 * where a's other moves lose. */
static void test_simultaneous_security(void **state) {
    (void)state;
    game_t *g = load_text(SURE_KEPT);
    assert_non_null(g);
    fix_t f;
    fix_init(&f, g);
    engine_t *e = engine_new(f.g, ENGINE_GROUND, stderr);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        uct_t *u = uct_new(e, 0, seed);
        const char *m = str(&f, uct_choose(u, &f.s, 0, 20000));
        uct_stats_t st;
        uct_stats(u, &st);
        assert_true(st.root_proven);
        assert_true(st.root_value == 100.0);
        assert_string_equal(m, "v");
        /* the root and v's children at least: counted (the root by its security level) */
        assert_true(st.sim_proven >= 1);
        assert_true(st.sim_secured >= 1);
        uct_free(u);
    }
    engine_free(e);
    unload(&f);
}

/* One round at once, each role's move kept in a fluent of its own (separable): matching
 * pennies (p against x and q against y win for a, the other two lose) with a safe r worth
 * 40 to a whatever b plays. */
static const char *PENNIES =
    "(role a) (role b) (init (phase 0))"
    "(amove p) (amove q) (amove r) (bmove x) (bmove y)"
    "(<= (legal a ?m) (true (phase 0)) (amove ?m))"
    "(<= (legal b ?m) (true (phase 0)) (bmove ?m))"
    "(<= (next (phase 1)) (true (phase 0)))"
    "(<= (next (played ?r ?m)) (does ?r ?m))"
    "(<= terminal (true (phase 1)))"
    "(<= (score 100) (true (played a p)) (true (played b x)))"
    "(<= (score 100) (true (played a q)) (true (played b y)))"
    "(<= (score 0) (true (played a p)) (true (played b y)))"
    "(<= (score 0) (true (played a q)) (true (played b x)))"
    "(<= (score 40) (true (played a r)))"
    "(other 100 0) (other 0 100) (other 40 60)"
    "(<= (goal a ?v) (score ?v)) (<= (goal b ?w) (score ?v) (other ?v ?w))";

/* uct_set_sequential: PENNIES' root is separable, and searched as if a moved first (b
 * replying to its move) a's statistics approach its pure maximin, r (40 against p's and
 * q's 0), which it plays; decoupled UCT, whose b mixes x and y, values p and q at about 50
 * and plays one of them. SURE_KEPT's moves interact (t1 with x): never separable. */
static void test_sequential(void **state) {
    (void)state;
    game_t *g = load_text(PENNIES);
    assert_non_null(g);
    fix_t f;
    fix_init(&f, g);
    engine_t *e = engine_new(f.g, ENGINE_GROUND, stderr);
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (int on = 0; on < 2; on++) {
            uct_t *u = uct_new(e, 0, seed);
            uct_set_sequential(u, on);
            const char *m = str(&f, uct_choose(u, &f.s, 0, 3000));
            uct_stats_t st;
            uct_stats(u, &st);
            assert_int_equal(st.sep_nodes, on);
            if (on)
                assert_string_equal(m, "r");
            else
                assert_string_not_equal(m, "r");
            uct_free(u);
        }
    engine_free(e);
    unload(&f);
    g = load_text(SURE_KEPT);
    assert_non_null(g);
    fix_init(&f, g);
    e = engine_new(f.g, ENGINE_GROUND, stderr);
    uct_t *u = uct_new(e, 0, 1);
    uct_set_sequential(u, true);
    uct_choose(u, &f.s, 0, 1000);
    uct_stats_t st;
    uct_stats(u, &st);
    assert_int_equal(st.sep_nodes, 0);
    uct_free(u);
    engine_free(e);
    unload(&f);
}

/* The fewest root visits of a's moves in PENNIES after 3,000 iterations, with the
 * exploration constant simc where both roles choose (< 0: none set). */
static uint32_t pennies_fewest(fix_t *f, engine_t *e, double simc) {
    uct_t *u = uct_new(e, 0, 5);
    if (simc >= 0) uct_set_sim_exploration(u, simc);
    uct_choose(u, &f->s, 0, 3000);
    const term_t *m;
    uint32_t n = terms_legal(f->r, &f->s, 0, &m), fewest = UINT32_MAX;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t visits;
        double mean;
        assert_true(uct_root_move(u, m[k], &visits, &mean));
        if (visits < fewest) fewest = visits;
    }
    uct_free(u);
    return fewest;
}

/* uct_set_sim_exploration: a large constant where both roles choose spreads PENNIES' root
 * visits near evenly (r, worth 40 against about 50, gets its third), C's own (1.4) does
 * not; on tic-tac-toe, where one role chooses at a time, it changes no visit. */
static void test_sim_exploration(void **state) {
    (void)state;
    game_t *g = load_text(PENNIES);
    assert_non_null(g);
    fix_t f;
    fix_init(&f, g);
    engine_t *e = engine_new(f.g, ENGINE_GROUND, stderr);
    assert_true(pennies_fewest(&f, e, -1) < 900);
    assert_true(pennies_fewest(&f, e, 100) > 900);
    engine_free(e);
    unload(&f);
    load(&f, "tictactoe.kif");
    uct_t *a = uct_new(f.r, 0, 5), *b = uct_new(f.r, 0, 5);
    uct_set_sim_exploration(b, 100);
    uct_choose(a, &f.s, 0, 2000);
    uct_choose(b, &f.s, 0, 2000);
    const term_t *m;
    uint32_t n = terms_legal(f.r, &f.s, 0, &m);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t va, vb;
        double ma, mb;
        uct_root_move(a, m[k], &va, &ma);
        uct_root_move(b, m[k], &vb, &mb);
        assert_int_equal(va, vb);
    }
    uct_free(a);
    uct_free(b);
    unload(&f);
}

/* ---- a game of one role: the best line ---- */

/* Plays lights out to its end from the initial state with a search of `first`
 * iterations, then one a turn; the goal reached (*best_line and *proven: after the first). */
static int play_lightsout(fix_t *f, engine_t *e, uint64_t seed, bool line, uint32_t first,
                          int *best_line, bool *proven) {
    uct_t *u = uct_new(e, 0, seed);
    assert_true(uct_set_best_line(u, line) == line);
    terms_initial(f->r, &f->s);
    for (uint32_t turn = 0; !terms_terminal(f->r, &f->s); turn++) {
        term_t m = uct_choose(u, &f->s, 0, turn ? 1 : first);
        assert_true(terms_is_legal(f->r, &f->s, 0, m));
        if (!turn) {
            uct_stats_t st;
            uct_stats(u, &st);
            *best_line = st.best_line;
            *proven = st.root_proven;
        }
        uct_advance(u, &m);
        terms_next(f->r, &f->s, &m, &f->n);
        state_copy(&f->s, &f->n);
    }
    uct_free(u);
    return terms_goal_value(f->r, &f->s, 0);
}

/* Lights out: random play never solves it (0 of 200 random matches). A search that keeps
 * its best line and found a solution in a rollout, not proven in the tree, plays it move
 * by move with one iteration a turn; on the ground engine the rollout ran in the engine's
 * own loop (its moves found back by a replay), on the interpreter in uct's. Without the
 * line the same searches solve it in none of these matches. Two roles: no line. */
static void test_best_line(void **state) {
    (void)state;
    fix_t f;
    load(&f, "lightsout.kif");
    for (int kind = 0; kind < 2; kind++) {
        engine_t *e = kind ? f.r : engine_new(f.g, ENGINE_GROUND, NULL);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            int best;
            bool proven;
            assert_int_equal(play_lightsout(&f, e, seed, true, 400, &best, &proven), 100);
            assert_int_equal(best, 100);
            assert_false(proven);
            assert_int_equal(play_lightsout(&f, e, seed, false, 400, &best, &proven), 0);
            assert_int_equal(best, -1);
        }
        if (!kind) engine_free(e);
    }
    unload(&f);
    load(&f, "tictactoe.kif");
    uct_t *u = uct_new(f.r, 0, 1);
    assert_false(uct_set_best_line(u, true));
    uct_free(u);
    unload(&f);
}

/* Distinct moves uct_choose gives on rock-paper-scissors (simultaneous.kif) in 20 calls
 * after a search of 3,000 iterations, each call one more iteration on the same tree. */
static uint32_t distinct_moves(fix_t *f, bool mixed) {
    uct_t *u = uct_new(f->r, 0, 3);
    uct_set_mixed(u, mixed);
    term_t seen[20];
    uint32_t n = 0;
    uct_choose(u, &f->s, 0, 3000);
    for (int call = 0; call < 20; call++) {
        term_t m = uct_choose(u, &f->s, 0, 1);
        assert_true(terms_is_legal(f->r, &f->s, 0, m));
        uint32_t k = 0;
        while (k < n && seen[k] != m)
            k++;
        if (k == n) seen[n++] = m;
    }
    uct_free(u);
    return n;
}

/* mix=on: where the other role moves at the same time, the move is drawn by root visits
 * (a mixed strategy), not the most visited one, which stays the same from call to call. */
static void test_mixed(void **state) {
    (void)state;
    fix_t f;
    load(&f, "simultaneous.kif");
    assert_int_equal(distinct_moves(&f, false), 1);
    assert_true(distinct_moves(&f, true) >= 2);
    unload(&f);
}

/* More legal moves than a node's 16-bit count holds: the search keeps the first 65535 and
 * plays one of them (it once ended the process), and a move played past them (the last
 * legal one) re-roots the tree on its successor like any move the tree lacks. */
static void test_more_moves_than_a_count(void **state) {
    (void)state;
    fix_t f;
    game_t *g = load_text(MANY_MOVES_GAME);
    assert_non_null(g);
    fix_init(&f, g);
    const term_t *mv;
    assert_int_equal(terms_legal(f.r, &f.s, 0, &mv), MANY_MOVES_N);
    term_t last = mv[MANY_MOVES_N - 1];
    uct_t *u = uct_new(f.r, 0, 7);
    term_t m = uct_choose(u, &f.s, 0, 30);
    assert_int_not_equal(m, TERM_NONE);
    eng_state_t *es = terms_load(f.r, &f.s);
    assert_true(engine_is_legal(f.r, es, 0, m));
    engine_state_free(es);
    uct_advance(u, &last);
    terms_next(f.r, &f.s, &last, &f.n);
    m = uct_choose(u, &f.n, 0, 30);
    es = terms_load(f.r, &f.n);
    assert_true(engine_is_legal(f.r, es, 0, m));
    engine_state_free(es);
    uct_free(u);
    unload(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_more_moves_than_a_count),
        cmocka_unit_test(test_ttt_take_win),
        cmocka_unit_test(test_ttt_block_loss),
        cmocka_unit_test(test_root_move),
        cmocka_unit_test(test_nim_winning_move),
        cmocka_unit_test(test_hook),
        cmocka_unit_test(test_hook_proven_root),
        cmocka_unit_test(test_hook_moves_simultaneous),
        cmocka_unit_test(test_simultaneous_security),
        cmocka_unit_test(test_sequential),
        cmocka_unit_test(test_sim_exploration),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_deterministic_engine),
        cmocka_unit_test(test_tree_parallel),
        cmocka_unit_test(test_time_budget),
        cmocka_unit_test(test_transpositions_prove_draw),
        cmocka_unit_test(test_policies_win_and_block),
        cmocka_unit_test(test_ucb_tuned),
        cmocka_unit_test(test_ponder),
        cmocka_unit_test(test_cycle_stamps),
        cmocka_unit_test(test_heuristic),
        cmocka_unit_test(test_material),
        cmocka_unit_test(test_material_constant),
        cmocka_unit_test(test_implicit),
        cmocka_unit_test(test_implicit_nonzero),
        cmocka_unit_test(test_three_player),
        cmocka_unit_test(test_three_player_own_values),
        cmocka_unit_test(test_simultaneous),
        cmocka_unit_test(test_best_line),
        cmocka_unit_test(test_bounds_off),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_hook_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
