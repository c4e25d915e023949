/* Unit tests for engine/: no allocation in a playout (every backend with a fast path:
 * propagation, the levelled network on a game with recursion, compiled code), grounding
 * limits and the fallback to the interpreter, the grounding cache's memory of games that
 * ran out of time (per limit), clones that play on their own, the node
 * numbering the fast paths rely on, compiled code made in the
 * background (and the sweep of a dead compile's files), UCT on two threads with an engine each, the
 * random-match walker (the same matches on every engine in the canonical order; its limits,
 * deadline and visitor), queries of static relations on every backend, and what the generated code
 * of small games holds (byte runs, zeroing, frame words). */
#define _GNU_SOURCE /* setenv, pthread_getattr_np */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ambiguous_goal.h"
#include "base/rng.h"
#include "code_started.h"
#include "deep_rules.h"
#include "engine/backend.h"
#include "engine/cgen.h"
#include "engine/compile.h"
#include "engine/engine.h"
#include "engine/fluents.h"
#include "engine/gprog.h"
#include "engine/ground.h"
#include "engine/joints.h"
#include "load.h"
#include "mcts/uct.h"
#include "moves.h"
#include "scratch.h"

/* ---- counting allocations ---- */

static volatile long n_allocs;

#if defined(__SANITIZE_ADDRESS__)
/* from the sanitizer runtime (its header is not installed with gcc on every system) */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void on_malloc(const volatile void *p, size_t n) {
    (void)p, (void)n;
    n_allocs++;
}
static void on_free(const volatile void *p) {
    (void)p;
}
static void count_allocs(void) {
    static int installed;
    if (!installed) installed = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}
#else
/* glibc: the test binary's definitions interpose malloc and friends. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n) {
    n_allocs++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
    n_allocs++;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
    n_allocs++;
    return __libc_realloc(p, n);
}
static void count_allocs(void) {}
#endif

static game_t *must_load(const char *name) {
    game_t *g = load_file(name);
    if (!g) fail_msg("%s does not load", name);
    return g;
}

/* 200 playouts after a warm-up one: not one allocation. */
static void assert_playouts_allocate_nothing(const char *name, engine_kind_t kind) {
    count_allocs();
    game_t *g = must_load(name);
    engine_t *e = engine_new(g, kind, stderr);
    assert_int_equal(engine_kind(e), kind);
    eng_state_t *init = engine_state_new(e), *s = engine_state_new(e);
    int goals[8];
    assert_true(g->n_roles <= 8);
    splitmix_t rng = {42};
    engine_initial(e, init);
    engine_state_copy(s, init);
    engine_playout(e, s, &rng, 10000, goals);
    long before = n_allocs;
    uint64_t steps = 0;
    for (int i = 0; i < 200; i++) {
        engine_state_copy(s, init);
        steps += engine_playout(e, s, &rng, 10000, goals);
    }
    assert_int_equal(n_allocs - before, 0);
    assert_true(steps > 200); /* the playouts did play */
    engine_state_free(init), engine_state_free(s);
    engine_free(e);
    game_free(g);
}

static void test_no_allocation_ground(void **state) {
    (void)state;
    assert_playouts_allocate_nothing("tictactoe.kif", ENGINE_GROUND);
    assert_playouts_allocate_nothing("breakthrough.kif", ENGINE_GROUND);
    assert_playouts_allocate_nothing("killer_small.kif", ENGINE_GROUND);
    assert_playouts_allocate_nothing("hex5.kif", ENGINE_GROUND); /* cyclic: levelled */
}

static void test_no_allocation_compiled(void **state) {
    (void)state;
    assert_playouts_allocate_nothing("connect4.kif", ENGINE_COMPILED);
    assert_playouts_allocate_nothing("three_player.kif", ENGINE_COMPILED);
}

/* The allocation counter counts: the interpreter allocates while it plays. */
static void test_counter_counts(void **state) {
    (void)state;
    count_allocs();
    game_t *g = must_load("tictactoe.kif");
    engine_t *e = engine_new(g, ENGINE_INTERP, NULL);
    eng_state_t *s = engine_state_new(e);
    int goals[2];
    splitmix_t rng = {1};
    long before = n_allocs;
    engine_initial(e, s);
    engine_playout(e, s, &rng, 10000, goals);
    assert_true(n_allocs > before);
    engine_state_free(s);
    engine_free(e);
    game_free(g);
}

static void test_limits_fall_back(void **state) {
    (void)state;
    game_t *g = must_load("breakthrough.kif");
    char why[256] = "";
    ground_opts_t o = ground_default_opts();
    o.max_atoms = 50;
    assert_null(gnet_new(g, &o, why, sizeof why));
    assert_string_equal(why, "too many ground atoms");
    o = ground_default_opts();
    o.max_lits = 10;
    assert_null(gnet_new(g, &o, why, sizeof why));
    assert_string_equal(why, "too many ground rules");
    /* the work limit: a count, the same on any machine (breakthrough needs some thousands) */
    o = ground_default_opts();
    o.seconds = 0;
    o.max_work = 100;
    assert_null(gnet_new(g, &o, why, sizeof why));
    assert_string_equal(why, "out of work (100 join steps)");
    o.max_work = 0;
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    uint64_t work = net->work;
    gnet_free(net);
    assert_true(work > 100);
    o.max_work = work; /* exactly what it needs */
    net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    assert_int_equal(net->work, work);
    gnet_free(net);
    o.max_work = work - 1;
    assert_null(gnet_new(g, &o, why, sizeof why));
    game_free(g);
}

/* Grounding stops at its deadline in every phase, not only in the join: the optimiser and
 * the layout take about as long as the join on a big game (amazons: 1 s each), and a start
 * clock's grounding ran a second past it. Tic-tac-toe's join takes fewer steps than the
 * join reads the clock after (4,096), so a deadline gone at once is seen by the optimiser
 * alone: out of time, not a network. Counted, not timed. */
static void test_deadline_stops_optimiser(void **state) {
    (void)state;
    game_t *g = must_load("tictactoe.kif");
    char why[256] = "";
    ground_opts_t o = ground_default_opts();
    o.seconds = 0;
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    assert_true(net->work < 4096);
    gnet_free(net);
    o.seconds = 1e-9; /* gone before the first phase ends */
    assert_null(gnet_new(g, &o, why, sizeof why));
    assert_string_equal(why, "out of time");
    game_free(g);
}

/* engine_fluent_bits reads each bit's fluent off the network at once: the same as the
 * engine's own terms of a state with that bit alone (what it computed before, in time
 * quadratic in the words), on the network and on its compiled code. */
static void test_fluent_bits(void **state) {
    (void)state;
    game_t *g = must_load("breakthrough.kif");
    engine_kind_t kinds[] = {ENGINE_GROUND, ENGINE_COMPILED};
    for (int k = 0; k < 2; k++) {
        engine_t *e = engine_new(g, kinds[k], NULL);
        term_t *bits;
        uint32_t n = engine_fluent_bits(e, &bits);
        assert_true(n > 0);
        eng_state_t *s = engine_state_new(e);
        uint64_t *w = (uint64_t *)engine_state_words(s);
        assert_non_null(w);
        state_t terms;
        state_init(&terms);
        uint32_t named = 0;
        for (uint32_t b = 0; b < n; b++) {
            memset(w, 0, (n / 64) * sizeof *w);
            w[b >> 6] = 1ull << (b & 63);
            engine_state_terms(e, s, &terms);
            assert_int_equal(bits[b], terms.n == 1 ? terms.facts[0] : TERM_NONE);
            named += bits[b] != TERM_NONE;
        }
        assert_true(named > 64); /* breakthrough's cells and control */
        state_fini(&terms);
        engine_state_free(s);
        free(bits);
        engine_free(e);
    }
    game_free(g);
}

/* The kind engine_new(ENGINE_GROUND) gives with GGP_GROUND_SECONDS=limit. */
static engine_kind_t kind_with_limit(game_t *g, const char *limit) {
    setenv("GGP_GROUND_SECONDS", limit, 1);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    engine_kind_t k = engine_kind(e);
    engine_free(e);
    return k;
}

/* A temporary cache directory as GGP_CACHE (restored by cache_restore). */
static char *cache_use_temp(char *dir) {
    char *keep = env_keep("GGP_CACHE");
    assert_non_null(mkdtemp(dir));
    setenv("GGP_CACHE", dir, 1);
    return keep;
}

static void cache_restore(const char *dir, char *keep) {
    int rm = scratch_remove(dir);
    env_put("GGP_CACHE", keep);
    assert_int_equal(rm, 0);
}

/* A chain of relations that nests a term past TERM_MAX_DEPTH (3 of 150 levels; 2,000 of
 * 490 grounded, and the printing of the 980,000-deep move overflowed the stack): the
 * grounder fails on it, and the engine falls back to the interpreter, which gives up on
 * the same term. 2 relations (a move 301 deep) ground. */
static void test_ground_deep_term_fails(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    deep_nesting_chain(&sb, 3, 150);
    game_t *g = load_text(sb_str(&sb));
    assert_non_null(g);
    char why[256] = "";
    ground_opts_t o = ground_default_opts();
    assert_null(gnet_new(g, &o, why, sizeof why));
    assert_string_equal(why, "a term nested past 400 levels");
    char dir[] = "/tmp/ggp-deep-XXXXXX";
    char *keep = cache_use_temp(dir); /* (the fallback is remembered there) */
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    assert_int_equal(engine_kind(e), ENGINE_INTERP);
    eng_state_t *s = engine_state_new(e);
    const term_t *moves;
    engine_initial(e, s);
    assert_int_equal(engine_legal(e, s, 0, &moves), 0);
    assert_non_null(strstr(engine_error(e), "would hold a term nested past 400 levels"));
    engine_state_free(s);
    engine_free(e);
    cache_restore(dir, keep);
    game_free(g);
    sb_clear(&sb);
    deep_nesting_chain(&sb, 2, 150);
    g = load_text(sb_str(&sb));
    assert_non_null(g);
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    gnet_free(net);
    game_free(g);
    sb_fini(&sb);
}

/* The grounding cache: running out of a time limit is remembered for that limit and
 * shorter ones (the next load falls back at once), not for a longer one (a user's 10 s
 * after the suite's 3 s grounds the game); any other failure is remembered whatever the
 * limit; a limit too short to start is not a failure of the game. Running out of a work
 * limit is remembered for that limit and smaller ones. */
static void test_noground_marker(void **state) {
    (void)state;
    char dir[] = "/tmp/ggp-test-noground-XXXXXX", marker[1200];
    char *keep = cache_use_temp(dir);
    char *keep_limit = env_keep("GGP_GROUND_SECONDS");
    char *keep_work = env_keep("GGP_GROUND_WORK");
    unsetenv("GGP_GROUND_WORK");
    game_t *g = must_load("tictactoe.kif");
    engine_noground_marker(g, marker, sizeof marker);
    engine_kind_t k[10];
    k[0] = kind_with_limit(g, "0.001"); /* no time to start: falls back, nothing kept */
    bool kept_none = access(marker, F_OK) != 0;
    write_file(marker, "out of time, in a test\nlimit 3\n");
    k[1] = kind_with_limit(g, "3");
    k[2] = kind_with_limit(g, "2");
    k[3] = kind_with_limit(g, "10");
    write_file(marker, "too many ground atoms, in a test\n");
    k[4] = kind_with_limit(g, "10");
    unlink(marker);
    k[5] = kind_with_limit(g, "10");
    /* running out of work: remembered for that work limit and smaller ones only */
    write_file(marker, "out of work, in a test\nwork 1000\n");
    setenv("GGP_GROUND_WORK", "1000", 1);
    k[6] = kind_with_limit(g, "0");
    setenv("GGP_GROUND_WORK", "2000", 1);
    k[7] = kind_with_limit(g, "0");
    unsetenv("GGP_GROUND_WORK");
    k[8] = kind_with_limit(g, "10");
    /* and a work limit too small is remembered as such (without a time limit) */
    unlink(marker);
    setenv("GGP_GROUND_WORK", "10", 1);
    k[9] = kind_with_limit(g, "0");
    unsetenv("GGP_GROUND_WORK");
    FILE *mf = fopen(marker, "r");
    char line[200] = "";
    if (mf) {
        if (!fgets(line, sizeof line, mf)) line[0] = 0;
        if (!fgets(line, sizeof line, mf)) line[0] = 0;
        fclose(mf);
    }
    game_free(g);
    env_put("GGP_GROUND_SECONDS", keep_limit);
    env_put("GGP_GROUND_WORK", keep_work);
    cache_restore(dir, keep);
    assert_int_equal(k[0], ENGINE_INTERP);
    assert_true(kept_none);
    assert_int_equal(k[1], ENGINE_INTERP);
    assert_int_equal(k[2], ENGINE_INTERP);
    assert_int_equal(k[3], ENGINE_GROUND);
    assert_int_equal(k[4], ENGINE_INTERP);
    assert_int_equal(k[5], ENGINE_GROUND);
    assert_int_equal(k[6], ENGINE_INTERP);
    assert_int_equal(k[7], ENGINE_GROUND);
    assert_int_equal(k[8], ENGINE_GROUND);
    assert_int_equal(k[9], ENGINE_INTERP);
    assert_string_equal(line, "work 10\n");
}

static void test_numbering(void **state) {
    (void)state;
    game_t *g = must_load("breakthrough.kif");
    char why[256];
    ground_opts_t o = ground_default_opts();
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    for (uint32_t f = 0; f < net->n_fluents; f++) {
        assert_int_equal(net->fluent_node[f], f);
        assert_int_equal(net->next_node[f], net->n_fluents + f);
        assert_int_equal(net->kind[f], GNODE_FLUENT);
    }
    for (uint32_t r = 0; r < net->n_roles; r++)
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            assert_int_equal(net->legal_node[r][k], net->legal_first[r] + k);
    /* breakthrough: 8x8 cells x 2 colours + 2 control fluents reachable */
    assert_int_equal(net->n_fluents, 130);
    gnet_free(net);
    game_free(g);
}

/* A clone plays the same playouts as its original, from the same seed. */
static void test_clone(void **state) {
    (void)state;
    game_t *g = must_load("connect4.kif");
    engine_t *e = engine_new(g, ENGINE_GROUND, stderr), *c = engine_clone(e);
    eng_state_t *a = engine_state_new(e), *b = engine_state_new(c);
    for (int i = 0; i < 20; i++) {
        splitmix_t r1 = {7u + i}, r2 = {7u + i};
        int g1[2], g2[2];
        engine_initial(e, a);
        engine_initial(c, b);
        assert_int_equal(engine_playout(e, a, &r1, 1000, g1), engine_playout(c, b, &r2, 1000, g2));
        assert_true(engine_state_equal(a, b));
        assert_memory_equal(g1, g2, sizeof g1);
    }
    engine_state_free(a), engine_state_free(b);
    engine_free(c);
    engine_free(e);
    game_free(g);
}

/* A hook that notes the hashes of the states it is shown and stops at call `stop`. */
typedef struct {
    engine_t *e;
    uint64_t seen[1100];
    uint32_t n, stop;
    eng_state_t *last; /* a copy of the last state shown */
    bool hash_ok;      /* each state's hash is the one its terms give */
} noting_t;

static bool note_state(void *ctx, const eng_state_t *s) {
    noting_t *h = ctx;
    h->seen[h->n++] = engine_state_hash(s);
    engine_state_copy(h->last, s);
    return h->n == h->stop;
}

/* engine_playout_hooked shows the hook every state that is not terminal, in order, with
 * its right hash (the compiled loop and the loop of engine/gengine.c alike), plays the
 * playouts of engine_playout draw for draw while the hook says no, and ends at the state
 * where it says yes: the state engine_playout reaches in as many steps. The plain
 * playouts run on a clone (d) with the same history: the ground engine's propagation
 * lists its legal moves in an order that depends on the states it saw before. */
static void assert_hooked_playout(engine_t *e) {
    engine_t *d = engine_clone(e);
    eng_state_t *a = engine_state_new(e), *b = engine_state_new(e), *c = engine_state_new(e);
    noting_t h = {.e = e, .last = engine_state_new(e)};
    state_t t;
    state_init(&t);
    int ga[2], gb[2];
    splitmix_t pick = {3};
    uint64_t stops = 0;
    for (int i = 0; i < 60; i++) {
        splitmix_t ra = {100u + i}, rb = {100u + i};
        engine_initial(e, a);
        engine_initial(d, b);
        h.n = 0;
        h.stop = i % 2 ? 0 : 1 + (uint32_t)(splitmix_next(&pick) % 20);
        bool stopped = true;
        uint32_t na = engine_playout_hooked(e, a, &ra, 1000, ga, note_state, &h, &stopped);
        if (!stopped) {
            uint32_t nb = engine_playout(d, b, &rb, 1000, gb);
            assert_int_equal(na, nb);
            assert_true(engine_state_equal(a, b));
            assert_memory_equal(ga, gb, sizeof ga);
            assert_int_equal(h.n, na); /* every state but the terminal one */
            continue;
        }
        stops++;
        assert_int_equal(h.n, h.stop);
        assert_int_equal(na, h.stop - 1);
        assert_true(engine_state_equal(a, h.last));
        assert_int_equal(engine_state_hash(a), h.seen[h.n - 1]);
        engine_state_terms(e, a, &t);
        engine_state_set(e, c, &t);
        assert_int_equal(engine_state_hash(c), h.seen[h.n - 1]);
        assert_int_equal(engine_playout(d, b, &rb, na, gb), na); /* the same draws */
        assert_true(engine_state_equal(a, b));
    }
    assert_true(stops > 10);
    state_fini(&t);
    engine_state_free(a), engine_state_free(b), engine_state_free(c), engine_state_free(h.last);
    engine_free(d);
}

static void test_hooked_playout(void **state) {
    (void)state;
    game_t *g = must_load("connect4.kif");
    engine_t *fast = engine_new(g, ENGINE_COMPILED, stderr);
    setenv("GGP_COMPILED_LOOP", "0", 1);
    engine_t *slow = engine_new(g, ENGINE_COMPILED, stderr);
    unsetenv("GGP_COMPILED_LOOP");
    engine_t *ground = engine_new(g, ENGINE_GROUND, stderr),
             *in = engine_new(g, ENGINE_INTERP, stderr);
    assert_int_equal(engine_kind(fast), ENGINE_COMPILED);
    assert_hooked_playout(fast);
    assert_hooked_playout(slow);
    assert_hooked_playout(ground);
    assert_hooked_playout(in);
    engine_free(fast), engine_free(slow), engine_free(ground), engine_free(in);
    game_free(g);
}

/* The playout loop in the generated code plays the playouts of the loop of
 * engine/gengine.c over the same compiled kernels (GGP_COMPILED_LOOP=0), draw for draw:
 * the same steps, final states, hashes and goals, from the initial state and from states
 * a cut playout (random max_steps) left. */
static void assert_compiled_loop_agrees(const char *name) {
    game_t *g = must_load(name);
    engine_t *fast = engine_new(g, ENGINE_COMPILED, stderr);
    setenv("GGP_COMPILED_LOOP", "0", 1);
    engine_t *slow = engine_new(g, ENGINE_COMPILED, stderr);
    unsetenv("GGP_COMPILED_LOOP");
    assert_int_equal(engine_kind(fast), ENGINE_COMPILED);
    assert_int_equal(engine_kind(slow), ENGINE_COMPILED);
    eng_state_t *a = engine_state_new(fast), *b = engine_state_new(slow);
    int ga[8], gb[8];
    assert_true(g->n_roles <= 8);
    splitmix_t ra = {11}, rb = {11}, cut = {5};
    uint64_t steps = 0;
    for (int i = 0; i < 300; i++) {
        if (i % 3 == 0) {
            engine_initial(fast, a);
            engine_initial(slow, b);
        }
        uint32_t max = i % 3 == 2 ? 1000 : (uint32_t)(splitmix_next(&cut) % 12);
        uint32_t na = engine_playout(fast, a, &ra, max, ga),
                 nb = engine_playout(slow, b, &rb, max, gb);
        assert_int_equal(na, nb);
        assert_true(engine_state_equal(a, b));
        assert_int_equal(engine_state_hash(a), engine_state_hash(b));
        assert_memory_equal(ga, gb, g->n_roles * sizeof *ga);
        steps += na;
    }
    assert_true(steps > 300);
    engine_state_free(a), engine_state_free(b);
    engine_free(fast), engine_free(slow);
    game_free(g);
}

/* Step by step, the compiled engine agrees with the ground network on terminal, legal moves
 * and goals, its play blocks evaluated from the state a call or a playout left
 * (ggp_play_from, and a playout's first step from there): random matches, a playout from
 * a copy of every third state between the steps. */
static void assert_compiled_steps_agree(const char *name) {
    game_t *g = must_load(name);
    engine_t *fast = engine_new(g, ENGINE_COMPILED, stderr),
             *slow = engine_new(g, ENGINE_GROUND, stderr);
    assert_int_equal(engine_kind(fast), ENGINE_COMPILED);
    eng_state_t *s = engine_state_new(fast), *t = engine_state_new(fast);
    term_t joint[8];
    int goals[8];
    assert_true(g->n_roles <= 8);
    splitmix_t rng = {21}, prng = {22};
    uint32_t plies = 0;
    for (int match = 0; match < 6; match++) {
        engine_initial(fast, s);
        for (uint32_t ply = 0; ply < 200; ply++, plies++) {
            if (ply % 3 == 1) {
                engine_state_copy(t, s);
                engine_playout(fast, t, &prng, 1000, goals);
            }
            bool term = engine_terminal(fast, s);
            assert_int_equal(term, engine_terminal(slow, s));
            for (uint32_t r = 0; r < g->n_roles; r++) {
                const term_t *a, *b;
                uint32_t na = engine_legal(fast, s, r, &a), nb = engine_legal(slow, s, r, &b);
                assert_int_equal(na, nb);
                assert_memory_equal(a, b, na * sizeof *a);
                assert_int_equal(engine_goal_value(fast, s, r), engine_goal_value(slow, s, r));
            }
            if (term || !engine_random_joint(fast, s, &rng, joint)) break;
            engine_next(fast, s, joint, t);
            engine_state_copy(s, t);
        }
    }
    assert_true(plies > 30);
    engine_state_free(s), engine_state_free(t);
    engine_free(fast), engine_free(slow);
    game_free(g);
}

static void test_compiled_loop(void **state) {
    (void)state;
    static const char *const games[] = {"tictactoe.kif",    "connect4.kif",     "breakthrough.kif",
                                        "three_player.kif", "killer_small.kif", "hex5.kif"};
    /* then the play blocks driven by changes and the role guards, which only networks of
     * thousands of nodes get by default (GGP_EVENT_NODES: from how many), read from tables
     * (the default), with every fluent guard a turn guard (GGP_TURN_MIN=1: by default
     * those of a thousand tables, whose turn it is in chess) and as straight-line code
     * (GGP_EVENT_TABLES=0) */
    for (int events = 0; events < 4; events++) {
        if (events) setenv("GGP_EVENT_NODES", "0", 1);
        if (events == 2) setenv("GGP_TURN_MIN", "1", 1);
        if (events == 3) unsetenv("GGP_TURN_MIN"), setenv("GGP_EVENT_TABLES", "0", 1);
        for (size_t k = 0; k < sizeof games / sizeof *games; k++) {
            assert_compiled_loop_agrees(games[k]);
            assert_compiled_steps_agree(games[k]);
        }
    }
    unsetenv("GGP_EVENT_NODES");
    unsetenv("GGP_EVENT_TABLES");
}

/* ---- compiled code made in the background ---- */

/* An engine on code still being compiled (the compiler held back until a gate file exists:
 * no clock decides) plays on the ground network, it and its clone; once the code is ready
 * they switch to it (between calls) and play the compiled engine's playouts draw for draw.
 * An engine freed while its code is compiling stops the compiler. */
static engine_t *engine_on_code(game_t *g) {
    gnet_t *net;
    netcode_t *code = code_started(g, &net);
    engine_t *e = gengine_new(g, net, code);
    assert_int_equal(engine_kind(e), ENGINE_GROUND);
    return e;
}

static void test_background_compile(void **state) {
    (void)state;
    char dir[] = "/tmp/ggp-test-compile-XXXXXX", gate[100];
    char *keep = cache_use_temp(dir);
    snprintf(gate, sizeof gate, "%s/gate", dir);
    use_gated_cc(dir, gate);
    game_t *g = must_load("breakthrough.kif");
    engine_free(engine_on_code(g)); /* its compilation is cancelled */
    engine_t *e = engine_on_code(g), *c = engine_clone(e);
    assert_int_equal(engine_kind(c), ENGINE_GROUND);
    eng_state_t *s = engine_state_new(e);
    splitmix_t rng = {3};
    int goals[2];
    engine_initial(e, s);
    engine_playout(e, s, &rng, 1000, goals);
    assert_int_equal(engine_kind(e), ENGINE_GROUND);
    write_file(gate, "open\n");
    /* waiting for the compiler: a bound on the number of waits, not on time */
    for (int i = 0; i < 60000 && engine_kind(e) != ENGINE_COMPILED; i++) {
        engine_initial(e, s);
        engine_playout(e, s, &rng, 1000, goals);
        struct timespec t = {0, 10000000};
        nanosleep(&t, NULL);
    }
    assert_int_equal(engine_kind(e), ENGINE_COMPILED);
    engine_t *f = engine_new(g, ENGINE_COMPILED, stderr); /* from the cache now */
    assert_int_equal(engine_kind(f), ENGINE_COMPILED);
    eng_state_t *a = engine_state_new(f), *b = engine_state_new(c);
    for (int i = 0; i < 50; i++) {
        splitmix_t r1 = {100u + i}, r2 = {100u + i}, r3 = {100u + i};
        int g1[2], g2[2], g3[2];
        engine_initial(e, s), engine_initial(f, a), engine_initial(c, b);
        uint32_t n1 = engine_playout(e, s, &r1, 1000, g1), n2 = engine_playout(f, a, &r2, 1000, g2),
                 n3 = engine_playout(c, b, &r3, 1000, g3);
        assert_int_equal(n1, n2), assert_int_equal(n1, n3);
        assert_true(engine_state_equal(s, a)), assert_true(engine_state_equal(s, b));
        assert_memory_equal(g1, g2, sizeof g1), assert_memory_equal(g1, g3, sizeof g1);
    }
    assert_int_equal(engine_kind(c), ENGINE_COMPILED);
    engine_state_free(s), engine_state_free(a), engine_state_free(b);
    engine_free(c), engine_free(e), engine_free(f);
    game_free(g);
    unsetenv("GGP_CC");
    cache_restore(dir, keep);
}

/* A compile sweeps the temporary files that a dead process left in the cache (a match
 * that ended while its code compiled) and keeps a live process's and the race markers. */
static void test_compile_sweeps_orphans(void **state) {
    (void)state;
    char dir[] = "/tmp/ggp-test-sweep-XXXXXX", dead_c[200], live_c[200], race[200];
    char *keep = cache_use_temp(dir);
    pid_t child = fork();
    if (child == 0) _exit(0);
    assert_true(child > 0);
    assert_int_equal(waitpid(child, NULL, 0), child); /* a pid no process has now */
    snprintf(dead_c, sizeof dead_c, "%s/net-00-1-1.so.%d.0x1.tmp.0.c", dir, (int)child);
    snprintf(live_c, sizeof live_c, "%s/net-00-1-1.so.%d.0x2.tmp.0.c", dir, (int)getpid());
    snprintf(race, sizeof race, "%s/net-00-1-1.so.race", dir);
    write_file(dead_c, "int x;\n"), write_file(live_c, "int y;\n"), write_file(race, "1 1\n");
    game_t *g = must_load("tictactoe.kif");
    engine_t *e = engine_new(g, ENGINE_COMPILED, NULL);
    assert_int_equal(engine_kind(e), ENGINE_COMPILED);
    assert_int_not_equal(access(dead_c, F_OK), 0);
    assert_int_equal(access(live_c, F_OK), 0);
    assert_int_equal(access(race, F_OK), 0);
    engine_free(e);
    game_free(g);
    cache_restore(dir, keep);
}

/* ---- two-thread search ---- */

/* X: (1 1) (1 2); O: (2 1) (2 2); X to move wins at (1 3). Both threads search; the move is
 * the win, and the same seed gives the same move and the same iterations. */
static void test_two_threads(void **state) {
    (void)state;
    game_t *g = must_load("tictactoe.kif");
    static const char *const plies[][2] = {{"(mark 1 1)", "noop"},
                                           {"noop", "(mark 2 1)"},
                                           {"(mark 1 2)", "noop"},
                                           {"noop", "(mark 2 2)"}};
    engine_kind_t kinds[] = {ENGINE_GROUND, ENGINE_COMPILED};
    for (int k = 0; k < 2; k++) {
        engine_t *e = engine_new(g, kinds[k], stderr);
        eng_state_t *s = engine_state_new(e), *n = engine_state_new(e);
        engine_initial(e, s);
        for (int i = 0; i < 4; i++) {
            term_t joint[2] = {legal_by_text(e, s, 0, plies[i][0]),
                               legal_by_text(e, s, 1, plies[i][1])};
            engine_next(e, s, joint, n);
            engine_state_copy(s, n);
        }
        state_t terms, start;
        state_init(&terms), state_init(&start);
        engine_state_terms(e, s, &terms);
        engine_initial(e, n);
        engine_state_terms(e, n, &start);
        term_t win = legal_by_text(e, s, 0, "(mark 1 3)"), first = TERM_NONE;
        for (int run = 0; run < 2; run++) {
            uct_t *u = uct_new(e, 0, 5);
            assert_true(uct_set_threads(u, 2));
            assert_int_equal(uct_choose(u, &terms, 0, 3000), win);
            uct_clear(u);
            uct_reset_stats(u);
            /* from the start nothing is proven in 500 iterations: each thread does 500 */
            term_t m = uct_choose(u, &start, 0, 500);
            uct_stats_t st;
            uct_stats(u, &st);
            assert_int_equal(st.iterations, 1000);
            if (run == 0) first = m;
            assert_int_equal(m, first);
            uct_free(u);
        }
        state_fini(&start);
        state_fini(&terms);
        engine_state_free(s), engine_state_free(n);
        engine_free(e);
    }
    /* the interpreter is not thread-safe: one thread only */
    engine_t *e = engine_new(g, ENGINE_INTERP, NULL);
    uct_t *u = uct_new(e, 0, 5);
    assert_false(uct_set_threads(u, 2));
    uct_free(u);
    engine_free(e);
    game_free(g);
}

/* ---- the random-match walker ---- */

typedef struct {
    state_t *seen; /* the states visited, as terms */
    uint32_t n, cap, stop_after, plies_sum, terminals;
} walk_log_t;

static engine_walk_next_t log_state(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    walk_log_t *w = ctx;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->seen = realloc(w->seen, w->cap * sizeof *w->seen);
    }
    state_init(&w->seen[w->n]);
    engine_state_terms(e, s, &w->seen[w->n++]);
    w->plies_sum += ply;
    w->terminals += engine_terminal(e, s);
    return w->stop_after && w->n >= w->stop_after ? ENGINE_WALK_STOP : ENGINE_WALK_ON;
}

static void log_fini(walk_log_t *w) {
    for (uint32_t k = 0; k < w->n; k++)
        state_fini(&w->seen[k]);
    free(w->seen);
    memset(w, 0, sizeof *w);
}

/* In the canonical order every engine plays the same matches, draw for draw; terminal
 * states are visited when asked; the visitor's stop and the ply limit are kept. */
static void test_walk(void **state) {
    (void)state;
    game_t *g = must_load("tictactoe.kif");
    engine_kind_t kinds[2] = {ENGINE_INTERP, ENGINE_GROUND};
    walk_log_t log[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        engine_t *e = engine_new(g, kinds[k], NULL);
        assert_int_equal(engine_kind(e), kinds[k]);
        splitmix_t rng = {42};
        engine_walk_t w = {.matches = 5, .max_plies = 100, .terminal = true, .canonical = true};
        engine_walked_t r = engine_walk(e, &rng, &w, log_state, &log[k]);
        assert_int_equal(r.matches, 5);
        assert_int_equal(r.visits, log[k].n);
        assert_false(r.timed_out);
        assert_int_equal(log[k].terminals, 5); /* each match ends at a terminal state */
        engine_free(e);
    }
    assert_int_equal(log[0].n, log[1].n);
    for (uint32_t i = 0; i < log[0].n; i++)
        assert_true(state_equal(&log[0].seen[i], &log[1].seen[i]));
    /* no terminal states, at most 3 states a match, a stop after 7 */
    engine_t *e = engine_new(g, ENGINE_INTERP, NULL);
    walk_log_t short_log = {.stop_after = 7};
    splitmix_t rng = {42};
    engine_walk_t w = {.matches = 100, .max_plies = 3};
    engine_walked_t r = engine_walk(e, &rng, &w, log_state, &short_log);
    assert_int_equal(short_log.n, 7);
    assert_int_equal(short_log.terminals, 0);
    assert_int_equal(short_log.plies_sum, 2 * (0 + 1 + 2) + 0); /* plies 0,1,2 twice, then 0 */
    assert_int_equal(r.matches, 3);
    assert_true(state_equal(&short_log.seen[0], &log[0].seen[0])); /* the initial state */
    /* a deadline already past: nothing visited */
    walk_log_t none = {0};
    w.deadline = 1e-9;
    r = engine_walk(e, &rng, &w, log_state, &none);
    assert_true(r.timed_out);
    assert_int_equal(r.matches, 0);
    assert_int_equal(none.n, 0);
    /* the state at a ply of one match: the walk's, drawn the same; none past the end */
    eng_state_t *at = engine_state_new(e);
    state_t terms;
    state_init(&terms);
    rng = (splitmix_t){42};
    assert_true(engine_walk_to(e, &rng, 3, true, at));
    engine_state_terms(e, at, &terms);
    assert_true(state_equal(&terms, &log[0].seen[3]));
    rng = (splitmix_t){42};
    assert_false(engine_walk_to(e, &rng, 10, true, at)); /* tic-tac-toe ends by ply 9 */
    state_fini(&terms);
    engine_state_free(at);
    engine_free(e);
    log_fini(&short_log);
    log_fini(&log[0]);
    log_fini(&log[1]);
    game_free(g);
}

/* engine_random_joint draws one number per role, in role order, like the loops it replaced. */
static void test_random_joint(void **state) {
    (void)state;
    game_t *g = must_load("simultaneous.kif");
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    eng_state_t *s = engine_state_new(e);
    engine_initial(e, s);
    term_t joint[2], want[2];
    splitmix_t a = {7}, b = {7};
    assert_true(engine_random_joint(e, s, &a, joint));
    for (uint32_t r = 0; r < 2; r++) {
        const term_t *m;
        uint32_t n = engine_legal(e, s, r, &m);
        assert_true(n > 1);
        want[r] = m[splitmix_next(&b) % n];
        assert_true(engine_is_legal(e, s, r, joint[r]));
    }
    assert_memory_equal(joint, want, sizeof joint);
    assert_int_equal(a.s, b.s);
    engine_state_free(s);
    engine_free(e);
    game_free(g);
}

/* joints: in rock-paper-scissors every joint move once, in mixed radix (role 0 the fastest
 * digit); a fixed role plays its move only and takes no draw of the generator. */
static void test_joints(void **state) {
    (void)state;
    game_t *g = must_load("simultaneous.kif");
    engine_t *e = engine_new(g, ENGINE_INTERP, NULL);
    eng_state_t *s = engine_state_new(e);
    engine_initial(e, s);
    const term_t *m0, *m1;
    uint32_t n0 = engine_legal(e, s, 0, &m0);
    term_t first0 = m0[0];
    uint32_t n1 = engine_legal(e, s, 1, &m1);
    joints_t j;
    joints_init(&j, 2);
    assert_int_equal(joints_load(&j, e, s, JOINTS_ENGINE_ORDER, JOINTS_NONE, TERM_NONE), n0 * n1);
    term_t joint[2];
    for (uint64_t k = 0; k < j.count; k++) {
        joints_get(&j, k, joint);
        assert_true(engine_is_legal(e, s, 0, joint[0]) && engine_is_legal(e, s, 1, joint[1]));
        assert_int_equal(joint[0], j.legal[0][k % n0]);
        assert_int_equal(joint[1], j.legal[1][k / n0]);
    }
    assert_int_equal(joints_load(&j, e, s, JOINTS_CANONICAL, 0, first0), n1);
    splitmix_t a = {7}, b = {7};
    joints_random(&j, &a, joint);
    assert_int_equal(joint[0], first0);
    assert_int_equal(joint[1], j.legal[1][splitmix_next(&b) % n1]);
    assert_int_equal(a.s, b.s);
    joints_fini(&j);
    engine_state_free(s);
    engine_free(e);
    game_free(g);
}

/* A static relation has the same tuples on every backend (the ground ones answer through
 * an interpreter of their own). */
static void test_query_static(void **state) {
    (void)state;
    game_t *g = must_load("connect4.kif");
    uint32_t p = UINT32_MAX;
    for (uint32_t i = 0; i < g->n_preds && p == UINT32_MAX; i++)
        if (g->preds[i].layer == LAYER_STATIC && g->preds[i].n_rules) p = i;
    assert_int_not_equal(p, UINT32_MAX);
    engine_kind_t kinds[3] = {ENGINE_INTERP, ENGINE_GROUND, ENGINE_COMPILED};
    term_t *first = NULL;
    uint32_t n0 = 0, arity = g->preds[p].arity;
    for (int k = 0; k < 3; k++) {
        engine_t *e = engine_new(g, kinds[k], NULL);
        const term_t *t;
        uint32_t n = engine_query(e, NULL, NULL, p, &t);
        assert_true(n > 0);
        if (!k) {
            n0 = n;
            first = malloc(n * arity * sizeof *first);
            memcpy(first, t, n * arity * sizeof *t);
        } else {
            assert_int_equal(n, n0);
            assert_memory_equal(t, first, n * arity * sizeof *t);
        }
        engine_free(e);
    }
    free(first);
    game_free(g);
}

/* Every backend reads the ambiguous goal as the highest value, in engine_goal_value and in
 * a playout's goals. */
static void test_ambiguous_goal_value(void **state) {
    (void)state;
    game_t *g = load_text(ambiguous_goal_game);
    assert_non_null(g);
    engine_kind_t kinds[] = {ENGINE_INTERP, ENGINE_GROUND, ENGINE_COMPILED};
    for (int k = 0; k < 3; k++) {
        engine_t *e = engine_new(g, kinds[k], stderr);
        assert_int_equal(engine_kind(e), kinds[k]);
        eng_state_t *s = engine_state_new(e), *t = engine_state_new(e);
        engine_initial(e, s);
        term_t joint[2];
        const term_t *mv;
        uint32_t n = engine_legal(e, s, 0, &mv);
        assert_int_equal(n, 2);
        joint[0] = mv[0]; /* (pick x): canonical order */
        engine_legal(e, s, 1, &mv);
        joint[1] = mv[0];
        engine_next(e, s, joint, t);
        engine_legal(e, t, 0, &mv);
        joint[0] = mv[0];
        engine_legal(e, t, 1, &mv);
        joint[1] = mv[0];
        engine_next(e, t, joint, s);
        assert_true(engine_terminal(e, s));
        const term_t *vals;
        assert_int_equal(engine_goals(e, s, 0, &vals), 2);
        assert_int_equal(engine_goal_value(e, s, 0), 100);
        assert_int_equal(engine_goal_value(e, s, 1), 0);
        /* playouts: a's goal is 100 after x, 50 after y; never -1 */
        splitmix_t rng = {7};
        int goals[2];
        for (int i = 0; i < 20; i++) {
            engine_initial(e, t);
            engine_playout(e, t, &rng, 100, goals);
            assert_true(goals[0] == 100 || goals[0] == 50);
        }
        engine_state_free(s), engine_state_free(t);
        engine_free(e);
    }
    game_free(g);
}

/* ---- what the grounder reduces ---- */

/* Both engines walk the same matches, state for state (canonical order). */
/* The interpreter's walks and those of engine kind k: the same states. */
static void assert_walks_agree_on(game_t *g, uint32_t matches, engine_kind_t k2) {
    engine_kind_t kinds[2] = {ENGINE_INTERP, k2};
    walk_log_t log[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        engine_t *e = engine_new(g, kinds[k], NULL);
        assert_int_equal(engine_kind(e), kinds[k]);
        splitmix_t rng = {3};
        engine_walk_t w = {
            .matches = matches, .max_plies = 100, .terminal = true, .canonical = true};
        engine_walk(e, &rng, &w, log_state, &log[k]);
        engine_free(e);
    }
    assert_int_equal(log[0].n, log[1].n);
    for (uint32_t i = 0; i < log[0].n; i++)
        assert_true(state_equal(&log[0].seen[i], &log[1].seen[i]));
    log_fini(&log[0]);
    log_fini(&log[1]);
}

static void assert_walks_agree(game_t *g, uint32_t matches) {
    assert_walks_agree_on(g, matches, ENGINE_GROUND);
}

/* A chain of relations passing each bit of a counter down, each holding for every
 * combination of its bits (2^k atoms at depth k): the bits are free arguments, dropped, and
 * the game grounds in a few dozen atoms. */
static void test_ground_free_arguments(void **state) {
    (void)state;
    enum { DEPTH = 14 };
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, "(role r) (init (step 1)) (bit 0) (bit 1) (legal r wait)\n"
                 "(<= (legal r go) (p1 0)) (<= (next done) (does r go))\n"
                 "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))\n"
                 "(<= terminal (true done)) (<= (goal r 100) (true done))\n"
                 "(<= (goal r 0) (not (true done)))\n");
    sb_printf(&sb, "(<= terminal (true (step %d)))\n", DEPTH);
    for (int k = 1; k <= DEPTH; k++) {
        if (k < DEPTH) sb_printf(&sb, "(succ %d %d)\n", k, k + 1);
        for (int rule = 0; rule < (k < DEPTH ? 2 : 1); rule++) {
            sb_printf(&sb, "(<= (p%d", k);
            for (int b = 0; b < k; b++)
                sb_printf(&sb, " ?b%d", b);
            sb_puts(&sb, ")");
            for (int b = 0; b < k; b++)
                sb_printf(&sb, " (bit ?b%d)", b);
            if (!rule) {
                sb_printf(&sb, " (true (step %d)))\n", k);
                continue;
            }
            sb_printf(&sb, " (not (true (step %d)))", k);
            for (int last = 0; last < 2; last++) {
                sb_printf(&sb, " (p%d", k + 1);
                for (int b = 0; b < k; b++)
                    sb_printf(&sb, " ?b%d", b);
                sb_printf(&sb, " %d)", last);
            }
            sb_puts(&sb, ")\n");
        }
    }
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    char why[256];
    ground_opts_t o = ground_default_opts();
    o.max_atoms = 1000; /* 2^15 without the reduction */
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    gnet_free(net);
    assert_walks_agree(g, 20);
    game_free(g);
}

/* Walls kept only by frame rules are read as the initial state's: the walker's position stays
 * in the corridor, where relaxed reachability (blind to the negated wall) would take it to
 * the end of the counter. */
static const char *const corridor_game =
    "(role r) (init (at 0)) (init (wall 4)) (init (wall 9))\n"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)\n"
    "(succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12)\n"
    "(legal r right) (legal r stay)\n"
    "(<= (next (wall ?x)) (true (wall ?x)))\n"
    "(<= (next (at ?y)) (true (at ?x)) (does r right) (succ ?x ?y) (not (true (wall ?y))))\n"
    "(<= (next (at ?x)) (true (at ?x)) (does r right) (succ ?x ?y) (true (wall ?y)))\n"
    "(<= (next (at ?x)) (true (at ?x)) (does r stay))\n"
    "(<= (next (count ?y)) (true (count ?x)) (succ ?x ?y)) (init (count 0))\n"
    "(<= terminal (true (count 12)))\n"
    "(<= (goal r 100) (true (at 3))) (<= (goal r 0) (not (true (at 3))))\n";

static void test_ground_constant_fluents(void **state) {
    (void)state;
    game_t *g = load_text(corridor_game);
    assert_non_null(g);
    char why[256];
    ground_opts_t o = ground_default_opts();
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    /* at 0..3, two walls, count 0..12 (relaxed without the walls: at 0..12) */
    assert_int_equal(net->n_fluents, 4 + 2 + 13);
    gnet_free(net);
    assert_walks_agree(g, 20);
    game_free(g);
}

/* A square to ignore passed through a line's clear relation (chess's threats): the base case
 * puts any coordinate there, one rule pins it, one passes it on. Read with a value of the
 * reader's own (the king's square, positively and negated), a constant of the type and one
 * outside it, and a value of a table partly outside the type (a copy per type test): the
 * positions are wildcards (the type has 70 values: worth it), and the engines agree on every
 * state. */
static const char *const ignore_game =
    "(role p)\n"
    "(succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (val 3) (val 9)\n"
    "(init (cell 1 r)) (init (cell 2 b)) (init (cell 3 k)) (init (cell 4 b)) (init (cell 5 b))\n"
    "(init (cell 6 b)) (init (step 0))\n"
    "(<= (clear ?u ?x ?i) (succ ?u ?x) (coord ?i))\n"
    "(<= (clear ?u ?x ?i) (succ ?u ?i) (clear ?i ?x ?i))\n"
    "(<= (clear ?u ?x ?i) (succ ?u ?v) (true (cell ?v b)) (clear ?v ?x ?i))\n"
    "(<= (threat ?x ?i) (true (cell ?u r)) (clear ?u ?x ?i))\n"
    "(<= (legal p (move ?u ?x)) (true (cell ?u k)) (succ ?u ?x) (true (cell ?x b))\n"
    "    (not (threat ?x ?u)))\n"
    "(<= (legal p (rook ?u ?x)) (true (cell ?u r)) (succ ?u ?x) (true (cell ?x b)))\n"
    "(<= (legal p (back ?u ?x)) (true (cell ?u r)) (succ ?x ?u) (true (cell ?x b)))\n"
    "(<= (legal p (probe ?v)) (val ?v) (not (threat 6 ?v)))\n"
    "(<= (legal p wait) (not (threat 6 4)) (not (threat 5 9)))\n"
    "(<= (moved ?u ?x) (does p (move ?u ?x))) (<= (moved ?u ?x) (does p (rook ?u ?x)))\n"
    "(<= (moved ?u ?x) (does p (back ?u ?x)))\n"
    "(<= (next (cell ?y ?c)) (true (cell ?y ?c)) (moved ?u ?x) (distinct ?y ?u) (distinct ?y ?x))\n"
    "(<= (next (cell ?y ?c)) (true (cell ?y ?c)) (does p (probe ?v)))\n"
    "(<= (next (cell ?y ?c)) (true (cell ?y ?c)) (does p wait))\n"
    "(<= (next (cell ?u b)) (moved ?u ?x))\n"
    "(<= (next (cell ?x ?c)) (moved ?u ?x) (true (cell ?u ?c)))\n"
    "(<= (next (seen ?u)) (does p (move ?u ?x)) (threat ?x ?u))\n"
    "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))\n"
    "(<= terminal (true (step 5)))\n"
    "(<= (goal p 100) (true (cell 6 k))) (<= (goal p 0) (not (true (cell 6 k))))\n";

static void test_ground_wildcards(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, ignore_game);
    for (int c = 1; c <= 70; c++)
        sb_printf(&sb, "(coord %d)\n", c);
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    gprog_t *p = gprog_new(g);
    assert_int_equal(p->n_wild, 2); /* clear's and threat's ignored square */
    uint32_t wild = 0;
    for (uint32_t q = 0; q < p->n_preds; q++)
        wild += p->preds[q].wild;
    assert_int_equal(wild, 2);
    gprog_free(p);
    assert_walks_agree(g, 40);
    setenv("GGP_GROUND_ANY", "0", 1); /* the same game without: the same walks */
    assert_walks_agree(g, 40);
    unsetenv("GGP_GROUND_ANY");
    game_free(g);
}

/* A move legal when the king, on any of ten squares, is not attacked once the piece has
 * left its square (chess's legal rules): each move's rules repeat three literals for each
 * square of the king. Factored (gfactor.h), a move's rule holds them once and reads a node
 * per square left, an OR over the king's squares that every move from that square shares;
 * the engines agree on every state either way. */
static const char *const king_game =
    "(role r)\n"
    "(init (pawn 1)) (init (pawn 2)) (init (king 5)) (init (wall 7)) (init (step 0))\n"
    "(<= (legal r (move ?s ?t)) (true (pawn ?s)) (cellc ?t) (distinct ?s ?t)\n"
    "    (not (true (pawn ?t))) (not (true (wall ?t))) (not (true (frozen)))\n"
    "    (true (king ?k)) (not (attacked ?k ?s)))\n"
    "(<= (legal r wait) (true (step ?n)))\n"
    "(<= (attacked ?k ?s) (true (wall ?w)) (adj ?w ?k) (cellc ?s) (distinct ?s ?w))\n"
    "(<= (attacked ?k ?s) (true (pawn ?w)) (adj ?w ?k) (cellc ?s) (distinct ?s ?w))\n"
    "(<= (moved ?s) (does r (move ?s ?t)))\n"
    "(<= (next (pawn ?t)) (does r (move ?s ?t)))\n"
    "(<= (next (pawn ?p)) (true (pawn ?p)) (not (moved ?p)))\n"
    "(<= (next (king ?k)) (true (king ?k)) (not (does r wait)))\n"
    "(<= (next (king ?m)) (true (king ?k)) (does r wait) (succ ?k ?m))\n"
    "(<= (next (wall ?w)) (true (wall ?w)) (not (does r wait)))\n"
    "(<= (next (wall ?m)) (true (wall ?w)) (does r wait) (succ ?w ?m))\n"
    "(<= (next frozen) (true (pawn 9)))\n"
    "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))\n"
    "(<= terminal (true (step 12)))\n"
    "(<= (goal r 100) (true (pawn 10))) (<= (goal r 0) (not (true (pawn 10))))\n";

static void test_ground_factoring(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, king_game);
    for (int c = 1; c <= 12; c++) {
        if (c <= 10) sb_printf(&sb, "(cellc %d)\n", c);
        sb_printf(&sb, "(succ %d %d)\n", c - 1, c);
        if (c < 10) sb_printf(&sb, "(adj %d %d) (adj %d %d)\n", c, c + 1, c + 1, c);
    }
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    char why[256];
    ground_opts_t o = ground_default_opts();
    o.split = false; /* (the splitter makes the same node of the king's OR here, not in chess) */
    o.factor = false;
    gnet_t *plain = gnet_new(g, &o, why, sizeof why);
    o.factor = true;
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(plain);
    assert_non_null(net);
    /* 90 moves of 10 rules each, one per king square, each of 4 shared literals (the pawn,
     * the square free of pawn and wall, not frozen) and 1 or 2 of the king's (on the square,
     * not attacked there): 4,000 literals in all; factored, a move is one rule of 5 and the
     * squares left an OR over the king's squares each, shared by their moves (8 nodes more) */
    assert_int_equal(plain->n_lits, 4000);
    assert_int_equal(net->n_lits, 812);
    assert_int_equal(net->n_nodes - plain->n_nodes, 8);
    gnet_free(plain);
    gnet_free(net);
    assert_walks_agree(g, 40);
    setenv("GGP_GROUND_SPLIT", "0", 1); /* factored without the splitter, and neither */
    assert_walks_agree(g, 40);
    assert_walks_agree_on(g, 40, ENGINE_COMPILED); /* the factored network as code */
    setenv("GGP_GROUND_FACTOR", "0", 1);
    assert_walks_agree(g, 40);
    unsetenv("GGP_GROUND_FACTOR");
    unsetenv("GGP_GROUND_SPLIT");
    game_free(g);
}

/* ---- the generated code ---- */

/* The C text of g's network (one unit). */
static char *code_of(game_t *g) {
    char why[256];
    ground_opts_t o = ground_default_opts();
    gnet_t *net = gnet_new(g, &o, why, sizeof why);
    assert_non_null(net);
    cgen_t c;
    cgen_program(net, "/* test */", 0, &c);
    assert_int_equal(c.n_units, 1);
    char *text = xstrdup(sb_str(&c.units[0]));
    cgen_fini(&c);
    gnet_free(net);
    return text;
}

static uint32_t count_of(const char *text, const char *what) {
    uint32_t n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* ORs of 4 consecutive nodes: anyopen (play) of open nodes (play), anymoved (move) of
 * moved nodes (move), (next (h)) (move, by its noop rule) of closed nodes (play). Only
 * the last reads its bytes as one 8-byte load: the others' bytes are stored a few
 * statements before, one by one, and a wider load of them waits for the stores to reach
 * the cache (terms_byte_runs). */
static const char *const runs_game =
    "(role r) (init (s 0)) (init (f 1)) (init (f 2)) (init (f 3)) (init (f 4))\n"
    "(num 1) (num 2) (num 3) (num 4) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)\n"
    "(<= (legal r (go ?x)) (num ?x) (true (f ?x))) (<= (legal r noop) (true (s 4)))\n"
    "(<= (open ?x) (true (f ?x)) (not (true (s 3)))) (<= anyopen (open ?x))\n"
    "(<= (moved ?x) (does r (go ?x)) (true (f ?x)) (not (true (s 4))))\n"
    "(<= (next (f ?x)) (true (f ?x)) (not (moved ?x)))\n"
    "(<= (next (s ?y)) (true (s ?x)) (succ ?x ?y) anymoved)\n"
    "(<= (next (s ?x)) (true (s ?x)) (not anymoved)) (<= anymoved (moved ?x))\n"
    "(<= (next (g)) anymoved anyopen)\n"
    "(<= (closed ?x) (true (f ?x)) (true (s 3)))\n"
    "(<= (next (h)) (closed ?x)) (<= (next (h)) (does r noop))\n"
    "(<= terminal (true (s 4))) (<= terminal (not anyopen))\n"
    "(<= (goal r 100) (true (g))) (<= (goal r 0) (not (true (g))))\n";

static void test_code_byte_runs(void **state) {
    (void)state;
    game_t *g = load_text(runs_game);
    assert_non_null(g);
    char *text = code_of(g);
    const char *move = strstr(text, "void ggp_move_0(");
    assert_non_null(move);
    assert_int_equal(count_of(text, "=((ld8(v+"), 1);
    assert_int_equal(count_of(move, "=((ld8(v+"), 1);
    free(text);
    assert_walks_agree_on(g, 20, ENGINE_COMPILED);
    game_free(g);
}

/* Two roles taking turns to mark one of n cells (a noop when waiting): the play blocks
 * clear a role's n legal nodes when its turn ends, by a memset under 16 bytes, two
 * 16-byte stores under 32 and 32-byte stores from 32 on (emit_zero_run: not cc's
 * `rep stos`). */
static const char *const turns_game =
    "(role a) (role b) (init (control a)) (init (step 0))\n"
    "(<= (legal ?r (mark ?x)) (true (control ?r)) (cell ?x) (not (true (taken ?x))))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (next (taken ?x)) (true (taken ?x))) (<= (next (taken ?x)) (does ?r (mark ?x)))\n"
    "(<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))\n"
    "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m)) (<= terminal (true (step 6)))\n"
    "(<= (goal ?r 50) (role ?r))\n"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)\n";

static void test_code_zeroes(void **state) {
    (void)state;
    const uint32_t cells[3] = {8, 20, 40}, z16s[3] = {0, 4, 0}, z32s[3] = {0, 0, 4};
    for (int k = 0; k < 3; k++) {
        strbuf_t sb;
        sb_init(&sb);
        sb_puts(&sb, turns_game);
        for (uint32_t c = 1; c <= cells[k]; c++)
            sb_printf(&sb, "(cell %u)\n", c);
        game_t *g = load_text(sb_str(&sb));
        sb_fini(&sb);
        assert_non_null(g);
        char *text = code_of(g);
        char *play = strstr(text, "void ggp_play_0(");
        assert_non_null(play);
        char *end = strstr(play, "PART void "); /* the next function */
        assert_non_null(end);
        *end = 0; /* the play blocks' function alone */
        assert_int_equal(count_of(play, "z16(v+"), z16s[k]);
        assert_int_equal(count_of(play, "z32(v+"), z32s[k]);
        assert_int_equal(count_of(play, "__builtin_memset("), k == 0 ? 2 : 0);
        free(text);
        assert_walks_agree_on(g, 10, ENGINE_COMPILED);
        game_free(g);
    }
}

/* Two roles taking turns to take one of 20 cells: a cell stays on when the mover takes
 * another, a rule per role over "this role takes another cell" (breakthroughWalls' frame:
 * a set of nearly all a role's moves, set first). The cells' next nodes are frame nodes,
 * computed as words (emit_frames): 8 bytes a store where the 8 next nodes are all the move
 * blocks', a byte a store beside the next nodes of control and step, which the play
 * blocks write (no move changes them) and the words must not overwrite. */
static const char *const frame_game =
    "(role a) (role b) (init (control a)) (init (step 0))\n"
    "(<= (legal ?r (take ?x)) (true (control ?r)) (true (on ?x)))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (kept ?r ?x) (cell ?x) (does ?r (take ?y)) (distinct ?x ?y))\n"
    "(<= (next (on ?x)) (true (on ?x)) (kept a ?x))\n"
    "(<= (next (on ?x)) (true (on ?x)) (kept b ?x))\n"
    "(<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))\n"
    "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m)) (<= terminal (true (step 8)))\n"
    "(<= (goal ?r 50) (role ?r))\n"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)\n";

static void test_code_frames(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, frame_game);
    for (int c = 1; c <= 20; c++)
        sb_printf(&sb, "(cell %d) (init (on %d))\n", c, c);
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    char *text = code_of(g), *frames = strstr(text, "{W64 f_;f_=w[0]&(F0_[");
    assert_non_null(frames);
    /* the move blocks zero the next nodes of on 1..6 and 15..20 alone: not those of on
     * 7..14, which the words write 8 bytes a store, nor the nodes set first */
    assert_non_null(
        strstr(text, "{\n__builtin_memset(v+33,0,6);__builtin_memset(v+47,0,6);\n{W64 p_"));
    char *end = strchr(frames, '}');
    assert_non_null(end);
    *end = 0;
    assert_int_equal(count_of(frames, "unpk(v+"), 1);    /* on 7..14 */
    assert_int_equal(count_of(frames, "=(U)(f_>>"), 12); /* on 1..6 and 15..20 */
    free(text);
    assert_walks_agree_on(g, 20, ENGINE_COMPILED);
    game_free(g);
}

/* The same turns, but a cell stays on unless a move takes it: one rule, the cell and the
 * negation of "some move takes it" (tic-tac-toe's and breakthrough's frame: the cell and
 * "no move marks it", a node set first). Such frame nodes are words too: the state's word
 * ANDed with the complement of the chosen moves' rows (the XOR with the negated nodes'
 * fluents). */
static const char *const neg_frame_game =
    "(role a) (role b) (init (control a)) (init (step 0))\n"
    "(<= (legal ?r (take ?x)) (true (control ?r)) (true (on ?x)))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (taken ?x) (does ?r (take ?x)))\n"
    "(<= (next (on ?x)) (true (on ?x)) (not (taken ?x)))\n"
    "(<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))\n"
    "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m)) (<= terminal (true (step 8)))\n"
    "(<= (goal ?r 50) (role ?r))\n"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)\n";

static void test_code_negated_frames(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, neg_frame_game);
    for (int c = 1; c <= 20; c++)
        sb_printf(&sb, "(cell %d) (init (on %d))\n", c, c);
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    char *text = code_of(g), *frames = strstr(text, "{W64 f_;f_=w[0]&((F0_[");
    assert_non_null(frames);
    char *end = strchr(frames, '}');
    assert_non_null(end);
    *end = 0;
    /* on 1..20 are fluents 2..21: kept where no chosen move takes the cell */
    assert_non_null(strstr(frames, "])^0x3ffffcull);"));
    assert_int_equal(count_of(frames, "unpk(v+"), 1);    /* on 7..14 */
    assert_int_equal(count_of(frames, "=(U)(f_>>"), 12); /* on 1..6 and 15..20 */
    /* "some move takes cell c", set first, is read by the frame words alone (from the
     * rows): not unpacked into its bytes */
    char *pre = strstr(text, "{W64 p_[");
    assert_non_null(pre);
    assert_true(pre < frames);
    *frames = 0; /* the block of the nodes set first alone */
    assert_int_equal(count_of(pre, "unpk(v+"), 0);
    free(text);
    assert_walks_agree_on(g, 20, ENGINE_COMPILED);
    game_free(g);
}

/* Three rows of four cells, a cell open while on and not locked: "some cell open" is an
 * OR of the 12 cells' nodes, each row's "some cell open" an OR of 4 of them; written as the
 * OR of the three rows' nodes (emit_covered), not of the 12 (cc kept connect four's 42 in
 * spilled registers). */
static const char *const cover_game =
    "(role r) (init (step 0))\n"
    "(<= (open ?c) (true (on ?c)) (not (true (lock ?c))))\n"
    "(<= (rowopen ?w) (row ?w ?c) (open ?c)) (<= anyopen (open ?c))\n"
    "(<= (legal r (take ?c)) (open ?c)) (<= (legal r (clear ?w)) (rowopen ?w))\n"
    "(<= (legal r wait) (not anyopen))\n"
    "(<= (next (on ?c)) (true (on ?c)) (not (does r (take ?c))))\n"
    "(<= (next (lock ?c)) (true (lock ?c)))\n"
    "(<= (next (lock ?c)) (does r (clear ?w)) (row ?w ?c))\n"
    "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m)) (<= terminal (true (step 8)))\n"
    "(<= terminal (not anyopen))\n"
    "(<= (goal r 100) (true (step 8))) (<= (goal r 0) (not (true (step 8))))\n"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)\n";

/* The longest OR (in terms) of a statement of text. */
static uint32_t longest_or(const char *text) {
    uint32_t best = 0, n = 0;
    for (const char *p = text; *p; p++)
        if (*p == '|')
            n++;
        else if (*p == ';' || *p == '\n')
            best = n + 1 > best ? n + 1 : best, n = 0;
    return best;
}

static void test_code_covers(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, cover_game);
    for (int w = 1; w <= 3; w++)
        for (int c = 1; c <= 4; c++)
            sb_printf(&sb, "(row %d c%d%d) (init (on c%d%d))\n", w, w, c, w, c);
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    char *text = code_of(g), *play = strstr(text, "void ggp_play_0("), *end;
    assert_non_null(play);
    end = strstr(play, "PART void "); /* the next function */
    assert_non_null(end);
    *end = 0;
    assert_int_equal(longest_or(play), 4); /* a row's; "some cell open" of the 3 rows */
    free(text);
    assert_walks_agree_on(g, 20, ENGINE_COMPILED);
    game_free(g);
}

/* connect four's lines of a colour (the two vector nodes, 69 rules over 42 cells in two
 * words): where cc has BMI2, the cells gathered into one word (pext, two words each) and
 * one vector compare a rule, the words' form kept for the others (emit_vector_packed). The
 * walks compile the form this CPU has. */
static void test_code_vector_packed(void **state) {
    (void)state;
    game_t *g = must_load("connect4.kif");
    char *text = code_of(g);
    assert_int_equal(count_of(text, "__builtin_ia32_pext_di(w["), 4);
    assert_int_equal(count_of(text, "\n#ifdef __BMI2__\n{static const W64 A_[2]["), 2);
    free(text);
    assert_walks_agree_on(g, 40, ENGINE_COMPILED);
    game_free(g);
}

/* A thread that may run an engine gets ENGINE_THREAD_STACK, whatever `ulimit -s` says (the
 * interpreter's recursion may use 4 MiB of it before it gives up). */
static void *stack_size_of_self(void *arg) {
    pthread_attr_t at;
    size_t *size = arg;
    if (pthread_getattr_np(pthread_self(), &at) == 0) {
        pthread_attr_getstacksize(&at, size);
        pthread_attr_destroy(&at);
    }
    return NULL;
}

static void test_thread_stack(void **state) {
    (void)state;
    size_t size = 0;
    pthread_t t;
    assert_int_equal(engine_thread_start(&t, stack_size_of_self, &size), 0);
    pthread_join(t, NULL);
    assert_true(size >= ENGINE_THREAD_STACK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_allocation_ground),
        cmocka_unit_test(test_thread_stack),
        cmocka_unit_test(test_no_allocation_compiled),
        cmocka_unit_test(test_counter_counts),
        cmocka_unit_test(test_limits_fall_back),
        cmocka_unit_test(test_deadline_stops_optimiser),
        cmocka_unit_test(test_fluent_bits),
        cmocka_unit_test(test_ground_deep_term_fails),
        cmocka_unit_test(test_noground_marker),
        cmocka_unit_test(test_numbering),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_compiled_loop),
        cmocka_unit_test(test_hooked_playout),
        cmocka_unit_test(test_background_compile),
        cmocka_unit_test(test_compile_sweeps_orphans),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_walk),
        cmocka_unit_test(test_random_joint),
        cmocka_unit_test(test_joints),
        cmocka_unit_test(test_query_static),
        cmocka_unit_test(test_ambiguous_goal_value),
        cmocka_unit_test(test_ground_free_arguments),
        cmocka_unit_test(test_ground_constant_fluents),
        cmocka_unit_test(test_ground_wildcards),
        cmocka_unit_test(test_ground_factoring),
        cmocka_unit_test(test_code_byte_runs),
        cmocka_unit_test(test_code_zeroes),
        cmocka_unit_test(test_code_frames),
        cmocka_unit_test(test_code_negated_frames),
        cmocka_unit_test(test_code_covers),
        cmocka_unit_test(test_code_vector_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
