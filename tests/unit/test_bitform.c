/* Backward-search formulas on bitset states (regress/bitform.h, mcts/lbs.h's engine path)
 * against the lifted matcher and Z3.
 *
 * Per game (our tic-tac-toe, connect four, nim, breakthrough; the corpus' connectFour and
 * tictactoe-init1): α_i/β_i are computed (no clock: a step limit), each is grounded on the
 * ground engine's fluents and compiled, both with its common conjunct in every root and
 * split into guard and disjuncts, as the hook uses it. On every state of seeded random
 * playouts on the engine, the disjunct the bitset program finds first is the one the
 * matcher finds first (the same answer, the same hit), and Z3 (its own grounding, on the
 * interpreter's vocabulary) says that disjunct holds: 0 disagreements of either kind. Then
 * the hook, made on the ground engine: lbs_check_state on engine states equals lbs_check
 * on the same states as terms (with Z3 confirming hits, and without, where a wrong hit
 * would show), and a UCT search on the engine uses the state hook. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/engine.h"
#include "engine/fluents.h"
#include "load.h"
#include "mcts/lbs.h"
#include "mcts/uct.h"
#include "regress/bitform.h"
#include "regress/formcheck.h"
#include "regress/match.h"
#include "regress/regress.h"
#include "sample.h"
#include "terms.h"

#define MAX_FORMS 32
#define MAX_STATES 1500 /* per game (divided by test_sample_every()) */
#define WORK 50000000u  /* matcher steps: never reached by these formulas */

static const char *corpus_dir(void) {
    const char *e = getenv("GGP_CORPUS");
    return e ? e : CORPUS_DIR;
}

typedef struct {
    term_store_t *ts;
    form_t *f[MAX_FORMS];
    uint32_t n;
} forms_t;

static void keep(void *ctx, int side, uint32_t i, const regress_step_t *st) {
    (void)side, (void)i;
    forms_t *fs = ctx;
    if (fs->n < MAX_FORMS && st->f->n) fs->f[fs->n++] = form_copy(st->f);
}

/* One formula under test: the matcher, the two bitset programs, Z3's disjunct terms. */
typedef struct {
    match_t *m;
    bitform_t *full, *common, *disj;
    uint32_t handle;
} under_t;

typedef struct {
    uint64_t states, evals, hits, bit_disagree, split_disagree, z3_disagree, z3_unknown;
} tally_t;

static void check_state(under_t *u, uint32_t n, formcheck_t *fc, const match_state_t *ms,
                        const uint64_t *words, const state_t *terms, tally_t *t) {
    for (uint32_t k = 0; k < n; k++) {
        int e = match_eval_within(u[k].m, ms, WORK);
        assert_true(e >= 0);
        int32_t want = e ? match_hit(u[k].m) : -1;
        int32_t got = bitform_eval(u[k].full, words);
        t->bit_disagree += bitform_eval_all(u[k].full, words) != got; /* the two ways */
        int32_t split = bitform_eval(u[k].common, words) == 0 ? bitform_eval(u[k].disj, words) : -1;
        t->evals++;
        t->bit_disagree += got != want;
        t->split_disagree += split != want;
        if (want < 0) continue;
        t->hits++;
        int z = formcheck_eval(fc, u[k].handle + (uint32_t)want, terms);
        t->z3_disagree += z == 0;
        t->z3_unknown += z < 0;
    }
}

static void check_game(game_t *g, uint32_t steps, uint64_t min_hits) {
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_opts_t ro;
    regress_default_opts(&ro);
    ro.budget = 0;
    ro.max_steps = steps;
    ro.use_mutexes = false; /* Z3 proofs that only prune: seconds under the sanitizers */
    char err[320];
    double t0 = now_seconds();
    regress_t *rg = regress_new(r, 0, &ro, err, sizeof err);
    if (!rg) fprintf(stderr, "%s: %s\n", g->file, err);
    assert_non_null(rg);
    forms_t fs = {.ts = g->ts};
    regress_run(rg, keep, &fs);
    regress_free(rg);
    assert_true(fs.n >= 2);

    engine_t *e = engine_new(g, ENGINE_GROUND, stderr);
    assert_int_equal(engine_kind(e), ENGINE_GROUND);
    term_t *fl;
    uint32_t nb = engine_fluent_bits(e, &fl);
    assert_true(nb > 0);
    free(fl);
    vocab_t *ev = vocab_from_engine(e, 0, 0, 0); /* the engine's fluents, with their bits */
    assert_non_null(vocab_bits(ev));
    /* Z3 on a vocabulary of its own: the interpreter's (base or sampled fluents) */
    vocab_t *zv = vocab_from_engine(r, 16, 1, 0);
    formcheck_t *fc = formcheck_new(zv, false);

    under_t u[MAX_FORMS];
    for (uint32_t k = 0; k < fs.n; k++) {
        const form_t *f = fs.f[k];
        u[k].m = match_new(g->ts, f);
        assert_non_null(u[k].m);
        u[k].full = bitform_of_form(ev, g->ts, f, BF_FULL, 0, 0, 0);
        u[k].common = bitform_of_form(ev, g->ts, f, BF_COMMON, 0, 0, 0);
        u[k].disj = bitform_of_form(ev, g->ts, f, BF_DISJUNCTS, 0, 0, 0);
        assert_true(u[k].full && u[k].common && u[k].disj);
        assert_true(bitform_words(u[k].full) <= nb / 64);
        circuit_t *c = circuit_new();
        pn_t *roots = xmalloc(f->n * sizeof *roots);
        ground_disjuncts(c, zv, g->ts, f, roots);
        u[k].handle = formcheck_terms(fc, c, roots, f->n);
        free(roots);
        circuit_free(c);
    }

    double t1 = now_seconds();
    tally_t t = {0};
    match_state_t *ms = match_state_new();
    eng_state_t *s = engine_state_new(e), *nx = engine_state_new(e);
    state_t terms;
    state_init(&terms);
    splitmix_t rng = {0xb17};
    term_t joint[8];
    assert_true(g->n_roles <= 8);
    const uint32_t max_states = MAX_STATES / test_sample_every();
    while (t.states < max_states) {
        engine_initial(e, s);
        for (uint32_t ply = 0; ply < 500 && t.states < max_states; ply++) {
            engine_state_terms(e, s, &terms);
            match_state_set(ms, g->ts, &terms);
            check_state(u, fs.n, fc, ms, engine_state_words(s), &terms, &t);
            t.states++;
            if (engine_terminal(e, s)) break;
            for (uint32_t k = 0; k < g->n_roles; k++) {
                const term_t *mv;
                uint32_t m = engine_legal(e, s, k, &mv);
                assert_true(m > 0);
                joint[k] = mv[splitmix_next(&rng) % m];
            }
            engine_next(e, s, joint, nx);
            engine_state_copy(s, nx);
        }
    }
    fprintf(stderr,
            "%s: %u formulas, %" PRIu64 " states, %" PRIu64 " evaluations, %" PRIu64
            " hits, disagreements: bitset %" PRIu64 ", "
            "split %" PRIu64 ", z3 %" PRIu64 " (unknown %" PRIu64 "); %.1f s + %.1f s\n",
            g->file, fs.n, t.states, t.evals, t.hits, t.bit_disagree, t.split_disagree,
            t.z3_disagree, t.z3_unknown, t1 - t0, now_seconds() - t1);
    assert_int_equal(t.bit_disagree, 0);
    assert_int_equal(t.split_disagree, 0);
    assert_int_equal(t.z3_disagree, 0);
    assert_int_equal(t.z3_unknown, 0);
    assert_true(t.hits >= min_hits); /* the formulas were exercised, not only false */

    state_fini(&terms);
    engine_state_free(s);
    engine_state_free(nx);
    match_state_free(ms);
    for (uint32_t k = 0; k < fs.n; k++) {
        match_free(u[k].m);
        bitform_free(u[k].full);
        bitform_free(u[k].common);
        bitform_free(u[k].disj);
        form_free(fs.f[k]);
    }
    formcheck_free(fc);
    vocab_free(zv);
    vocab_free(ev);
    engine_free(e);
    engine_free(r);
    game_free(g);
}

static game_t *corpus_game(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", corpus_dir(), name);
    return load_path(path);
}

static void test_tictactoe(void **state) {
    (void)state;
    check_game(load_file("tictactoe.kif"), 4, 100);
}
static void test_connect4(void **state) {
    (void)state;
    check_game(load_file("connect4.kif"), 1, 20);
}
static void test_nim(void **state) {
    (void)state;
    check_game(load_file("nim.kif"), 2, 20);
}
static void test_breakthrough(void **state) {
    (void)state;
    check_game(load_file("breakthrough.kif"), 1, 1);
}
static void test_corpus_connect_four(void **state) {
    (void)state;
    check_game(corpus_game("connectFour.kif"), 1, 20);
}
static void test_corpus_tictactoe_init1(void **state) {
    (void)state;
    check_game(corpus_game("tictactoe-init1.kif"), 3, 100);
}

/* A small circuit by hand: literals of several words, negation, shared gates, a root that
 * is a bare literal, and the first true root reported. */
static void test_program(void **state) {
    (void)state;
    circuit_t *c = circuit_new();
    pn_t a = pn_var(c, 0), b = pn_var(c, 1), x = pn_var(c, 2), never = pn_var(c, 3);
    pn_t ab[2] = {a, pn_not(c, b)};
    pn_t and_ab = pn_and(c, ab, 2);
    pn_t ox[2] = {and_ab, x};
    pn_t or_x = pn_or(c, ox, 2);
    pn_t nn[2] = {pn_not(c, or_x), pn_not(c, never)};
    pn_t roots[4] = {never, and_ab, pn_and(c, nn, 2), x};
    uint32_t var_bit[4] = {3, 64 + 5, 130, UINT32_MAX};
    bitform_t *bf = bitform_new(c, roots, 4, var_bit, 0);
    assert_non_null(bf);
    assert_int_equal(bitform_words(bf), 3);
    for (uint32_t m = 0; m < 8; m++) {
        uint64_t w[3] = {0};
        uint8_t truth[4] = {m & 1, (m >> 1) & 1, (m >> 2) & 1, 0};
        if (truth[0]) w[0] |= 1ull << 3;
        if (truth[1]) w[1] |= 1ull << 5;
        if (truth[2]) w[2] |= 1ull << 2;
        int32_t want = -1;
        for (int k = 0; k < 4 && want < 0; k++)
            if (pn_eval(c, roots[k], truth)) want = k;
        assert_int_equal(bitform_eval(bf, w), want);
    }
    bitform_free(bf);
    assert_null(bitform_new(c, roots, 4, var_bit, 3)); /* over the size limit */
    circuit_free(c);
}

/* The hook's engine path: the same answers as on terms, and UCT calls it. */
static void check_lbs(const char *file, uint32_t steps, lbs_confirm_t confirm) {
    game_t *g = load_file(file);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, stderr);
    lbs_opts_t o;
    lbs_default_opts(&o);
    o.budget = 0;
    o.confirm = confirm;
    char err[320];
    lbs_t *l = lbs_new_steps(e, 0, &o, steps, err, sizeof err);
    if (!l) fprintf(stderr, "%s: %s\n", file, err);
    assert_non_null(l);
    lbs_set_hook_cost(l, 0); /* every formula */
    lbs_stats_t ls;
    lbs_stats(l, &ls);
    assert_true(ls.bit_formulas > 0);
    assert_int_equal(ls.bit_lifted, 0);
    eng_state_t *s = engine_state_new(e), *nx = engine_state_new(e);
    state_t terms;
    state_init(&terms);
    splitmix_t rng = {0x1b5};
    uint32_t hits = 0;
    lbs_hook_t hook = {.lbs = l, .every = true};
    /* a fork (the helper thread's) answers as its parent, from the answers it remembered */
    assert_true(lbs_hook_threadable(l));
    lbs_hook_t fork = {.lbs = lbs_fork(l), .every = true};
    assert_non_null(fork.lbs);
    assert_null(lbs_fork(l));
    for (uint32_t play = 0; play < 60; play++) {
        engine_initial(e, s);
        while (!engine_terminal(e, s)) {
            engine_state_terms(e, s, &terms);
            uint32_t i1 = 99, i2 = 99;
            int a = lbs_check_state(l, s, &i1, 0), b = lbs_check(l, &terms, &i2, 0);
            assert_int_equal(a, b);
            if (a) assert_int_equal(i1, i2);
            int h = lbs_state_hook(&hook, s, 0);
            assert_int_equal(h, lbs_hook(&hook, &terms));
            assert_int_equal(lbs_state_hook(&fork, s, 0), h);
            if (confirm == LBS_CONFIRM_Z3 && play < 6 && a) /* where a hit is confirmed */
                assert_int_equal(lbs_witness_check(l, s, &rng, 2), 0);
            hits += a != 0;
            term_t joint[2];
            for (uint32_t k = 0; k < 2; k++) {
                const term_t *mv;
                uint32_t m = engine_legal(e, s, k, &mv);
                joint[k] = mv[splitmix_next(&rng) % m];
            }
            engine_next(e, s, joint, nx);
            engine_state_copy(s, nx);
        }
    }
    assert_true(hits > 0);
    lbs_stats(l, &ls);
    assert_int_equal(ls.z3_disagree, 0);
    /* every formula and guard on bitsets: terms only for Z3 */
    assert_true(ls.term_conversions <= ls.z3_confirmed + ls.z3_disagree + ls.z3_unknown);

    uct_t *u = uct_new(e, 0, 7);
    lbs_attach(&hook, u);
    lbs_set_hook_cost(l, 0);
    engine_initial(e, s);
    engine_state_terms(e, s, &terms);
    assert_true(uct_choose(u, &terms, 0, 300) != TERM_NONE);
    uct_stats_t us;
    uct_stats(u, &us);
    assert_true(us.hook_calls > 0);
    assert_true(us.hook_hits > 0);
    lbs_stats(l, &ls);
    assert_true(ls.term_conversions <= ls.z3_confirmed + ls.z3_disagree + ls.z3_unknown);
    assert_int_equal(ls.z3_disagree, 0);
    uct_free(u);
    /* two threads on one tree, the helper's hook on the fork */
    u = uct_new(e, 0, 7);
    assert_true(uct_set_threads(u, 2));
    lbs_attach(&hook, u);
    assert_true(uct_choose(u, &terms, 0, 600) != TERM_NONE);
    uct_stats(u, &us);
    assert_true(us.hook_calls > 0);
    uct_free(u);
    state_fini(&terms);
    engine_state_free(s);
    engine_state_free(nx);
    lbs_free(l);
    engine_free(e);
    game_free(g);
}

static void test_lbs_tictactoe(void **state) {
    (void)state;
    check_lbs("tictactoe.kif", 4, LBS_CONFIRM_Z3);
    check_lbs("tictactoe.kif", 4, LBS_CONFIRM_NONE); /* no Z3 to hide a wrong hit */
}
static void test_lbs_connect4(void **state) {
    (void)state;
    check_lbs("connect4.kif", 1, LBS_CONFIRM_Z3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program),
        cmocka_unit_test(test_tictactoe),
        cmocka_unit_test(test_connect4),
        cmocka_unit_test(test_nim),
        cmocka_unit_test(test_breakthrough),
        cmocka_unit_test(test_corpus_connect_four),
        cmocka_unit_test(test_corpus_tictactoe_init1),
        cmocka_unit_test(test_lbs_tictactoe),
        cmocka_unit_test(test_lbs_connect4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
