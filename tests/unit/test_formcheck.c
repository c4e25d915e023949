/* Unit tests for the state checks: the native matcher (regress/match), the grounding on
 * the vocabulary (regress/formground) and Z3 (regress/formcheck) must give the same
 * answer — on hand-written formulas with negated scopes, `=` and distinct, and on every
 * reachable tic-tac-toe state for the first sequence formulas. */
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
#include "regress/formcheck.h"
#include "regress/formground.h"
#include "regress/match.h"
#include "regress/regress.h"
#include "sample.h"
#include "sequences.h"
#include "terms.h"
#include "truth/solve.h"

typedef struct {
    game_t *g;
    engine_t *r;
    vocab_t *v;
    formcheck_t *z;
    match_state_t *ms;
} fix_t;

static int setup(void **state) {
    fix_t *f = calloc(1, sizeof *f);
    f->g = load_file("tictactoe.kif");
    if (!f->g) return -1;
    f->r = engine_new(f->g, ENGINE_INTERP, NULL);
    f->v = vocab_from_engine(f->r, 8, 1, 0);
    f->z = formcheck_new(f->v, false);
    f->ms = match_state_new();
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fix_t *f = *state;
    match_state_free(f->ms);
    formcheck_free(f->z);
    vocab_free(f->v);
    engine_free(f->r);
    game_free(f->g);
    free(f);
    return 0;
}

static term_t cst(fix_t *f, const char *s) {
    return term_const(f->g->ts, term_intern(f->g->ts, s, strlen(s)));
}

static term_t cell(fix_t *f, term_t x, term_t y, term_t m) {
    term_t a[3] = {x, y, m};
    return term_fun(f->g->ts, term_intern(f->g->ts, "cell", 4), a, 3);
}

/* The three checks on one state; asserts they agree and returns the answer. */
static bool check3(fix_t *f, const form_t *form, const state_t *s) {
    match_t *m = match_new(f->g->ts, form);
    assert_non_null(m);
    bool a = match_check(m, f->ms, s);
    assert_false(match_inexact(m));
    match_free(m);
    circuit_t *c = circuit_new();
    pn_t root = ground_form(c, f->v, f->g->ts, form);
    uint8_t *truth = calloc(vocab_count(f->v) + 1, 1);
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t k = vocab_index(f->v, s->facts[i]);
        assert_true(k != UINT32_MAX);
        truth[k] = 1;
    }
    bool b = pn_eval(c, root, truth);
    free(truth);
    uint32_t h = formcheck_assert(f->z, c, root);
    int z = formcheck_holds(f->z, h, s);
    int e = formcheck_eval(f->z, formcheck_terms(f->z, c, &root, 1), s);
    circuit_free(c);
    assert_int_equal(a, b);
    assert_int_equal(z, a ? 1 : 0);
    assert_int_equal(e, z);
    return a;
}

/* exists x,y: cell(x, y, b) and not exists z (cell(z, y, o)) and x != 2 */
static void test_hand_formulas(void **state) {
    fix_t *f = *state;
    term_store_t *ts = f->g->ts;
    term_t x = term_var(ts, 0), y = term_var(ts, 1), z = term_var(ts, 2);
    form_t *form = form_new();
    fconj_t *d = fconj_new();
    fconj_add(d, FL_TRUE, cell(f, x, y, cst(f, "b")), TERM_NONE);
    fconj_t *n = fconj_new();
    fconj_add(n, FL_TRUE, cell(f, z, y, cst(f, "o")), TERM_NONE);
    fconj_add_not(d, n);
    fconj_add(d, FL_DIST, x, cst(f, "2"));
    form_push(form, d);
    state_t s;
    state_init(&s);
    terms_initial(f->r, &s); /* all blank */
    assert_true(check3(f, form, &s));
    /* o at (1,1), (1,2), (1,3): every column y has an o now, so no blank qualifies */
    state_t t;
    state_init(&t);
    t.facts = malloc((s.n + 1) * sizeof *t.facts);
    t.cap = s.n + 1;
    for (uint32_t i = 0; i < s.n; i++) {
        term_t fct = s.facts[i];
        if (term_sym(ts, fct) == term_intern(ts, "cell", 4) &&
            term_arg(ts, fct, 0) == cst(f, "1")) {
            fct = cell(f, cst(f, "1"), term_arg(ts, fct, 1), cst(f, "o"));
        }
        t.facts[t.n++] = fct;
    }
    state_normalise(&t);
    assert_false(check3(f, form, &t));
    /* `=` in a negated scope: not exists z (cell(1, z, o) and z = y) with y bound */
    form_t *f2 = form_new();
    d = fconj_new();
    fconj_add(d, FL_TRUE, cell(f, x, y, cst(f, "b")), TERM_NONE);
    n = fconj_new();
    fconj_add(n, FL_TRUE, cell(f, cst(f, "1"), z, cst(f, "o")), TERM_NONE);
    fconj_add(n, FL_EQ, y, z);
    fconj_add_not(d, n);
    form_push(f2, d);
    assert_true(check3(f, f2, &s));
    assert_false(check3(f, f2, &t));
    /* a fact outside the vocabulary: neither Z3 path guesses */
    circuit_t *c = circuit_new();
    pn_t root = ground_form(c, f->v, ts, form);
    uint32_t h = formcheck_assert(f->z, c, root), e = formcheck_terms(f->z, c, &root, 1);
    circuit_free(c);
    t.facts[0] = cell(f, cst(f, "9"), cst(f, "9"), cst(f, "b"));
    state_normalise(&t);
    assert_int_equal(formcheck_holds(f->z, h, &t), -1);
    assert_int_equal(formcheck_eval(f->z, e, &t), -1);
    form_free(form);
    form_free(f2);
    state_fini(&s);
    state_fini(&t);
}

/* A node limit refuses what would pass it and says so; under it nothing changes. */
static void test_circuit_limit(void **state) {
    fix_t *f = *state;
    term_store_t *ts = f->g->ts;
    term_t x = term_var(ts, 0), y = term_var(ts, 1);
    form_t *form = form_new();
    fconj_t *d = fconj_new();
    fconj_add(d, FL_TRUE, cell(f, x, y, cst(f, "b")), TERM_NONE);
    form_push(form, d); /* one of nine blanks: nine fluents and an or */
    circuit_t *free_c = circuit_new();
    pn_t root = ground_form(free_c, f->v, ts, form);
    assert_false(circuit_overflow(free_c));
    uint32_t need = circuit_size(free_c);
    circuit_t *c = circuit_new_within(need, 0);
    assert_int_equal(ground_form(c, f->v, ts, form), root);
    assert_false(circuit_overflow(c));
    circuit_free(c);
    c = circuit_new_within(need - 1, 0);
    (void)ground_form(c, f->v, ts, form);
    assert_true(circuit_overflow(c));
    circuit_free(c);
    circuit_free(free_c);
    form_free(form);
}

/* Replaces the marks of the given cells (row, column, mark) in the state s. */
static void mark_cells(fix_t *f, state_t *s, const char *cells[][3], uint32_t n) {
    term_store_t *ts = f->g->ts;
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t k = 0; k < n; k++)
            if (term_sym(ts, s->facts[i]) == term_intern(ts, "cell", 4) &&
                term_arg(ts, s->facts[i], 0) == cst(f, cells[k][0]) &&
                term_arg(ts, s->facts[i], 1) == cst(f, cells[k][1]))
                s->facts[i] =
                    cell(f, cst(f, cells[k][0]), cst(f, cells[k][1]), cst(f, cells[k][2]));
    state_normalise(s);
}

/* exists x,y,z,w: cell(x, y, x) and cell(z, w, o) and not exists v cell(z, v, b), as two
 * groups of literals sharing no variable, grounded one by one: about 9 + 9 fluents
 * instead of 9 x 9 conjunctions; the same answers on states (check3). */
static void test_independent_groups(void **state) {
    fix_t *f = *state;
    term_store_t *ts = f->g->ts;
    term_t x = term_var(ts, 0), y = term_var(ts, 1), z = term_var(ts, 2), w = term_var(ts, 3);
    term_t v = term_var(ts, 4);
    form_t *form = form_new();
    fconj_t *d = fconj_new();
    fconj_add(d, FL_TRUE, cell(f, x, y, cst(f, "x")), TERM_NONE);
    fconj_add(d, FL_TRUE, cell(f, z, w, cst(f, "o")), TERM_NONE);
    fconj_t *n = fconj_new();
    fconj_add(n, FL_TRUE, cell(f, z, v, cst(f, "b")), TERM_NONE); /* linked to z only */
    fconj_add_not(d, n);
    form_push(form, d);
    circuit_t *c = circuit_new();
    (void)ground_form(c, f->v, ts, form);
    assert_true(circuit_size(c) < 81);
    circuit_free(c);
    state_t s;
    state_init(&s);
    terms_initial(f->r, &s); /* all blank: no x */
    assert_false(check3(f, form, &s));
    /* x at (1,1), o at (2,2): row 2 still has blanks */
    const char *some[][3] = {{"1", "1", "x"}, {"2", "2", "o"}};
    mark_cells(f, &s, some, 2);
    assert_false(check3(f, form, &s));
    /* and o on all of row 3: an o whose row has no blank */
    const char *more[][3] = {{"3", "1", "o"}, {"3", "2", "o"}, {"3", "3", "o"}};
    mark_cells(f, &s, more, 3);
    assert_true(check3(f, form, &s));
    state_fini(&s);
    form_free(form);
}

/* A deadline already passed stops a grounding that is long enough to look at the clock
 * (tic-tac-toe's alpha_5); one far ahead changes nothing. */
static void test_circuit_deadline(void **state) {
    fix_t *f = *state;
    regress_t *rg = run_sequences(f->r, 5);
    const form_t *a5 = regress_step(rg, 0, 5)->f;
    term_store_t *ts = f->g->ts;
    circuit_t *free_c = circuit_new();
    pn_t root = ground_form(free_c, f->v, ts, a5);
    assert_false(circuit_overflow(free_c));
    circuit_t *c = circuit_new_within(0, now_seconds() + 1e6);
    assert_int_equal(ground_form(c, f->v, ts, a5), root);
    assert_false(circuit_overflow(c));
    circuit_free(c);
    c = circuit_new_within(0, now_seconds() - 1);
    (void)ground_form(c, f->v, ts, a5);
    assert_true(circuit_overflow(c));
    assert_true(circuit_size(c) < circuit_size(free_c));
    circuit_free(c);
    circuit_free(free_c);
    regress_free(rg);
}

/* α_0..α_3 and β_0..β_3 of tic-tac-toe on every reachable state: matcher, Z3's solver
 * and Z3's model evaluator give the same answer. */
static void test_tictactoe_all_states(void **state) {
    fix_t *f = *state;
    regress_t *rg = run_sequences(f->r, 3);
    char err[300];
    solve_t *s = solve_new(f->r, 100000, err, sizeof err);
    assert_non_null(s);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < regress_count(rg, side); i++) {
            const form_t *form = regress_step(rg, side, i)->f;
            match_t *m = match_new(f->g->ts, form);
            circuit_t *c = circuit_new();
            pn_t root = ground_form(c, f->v, f->g->ts, form);
            uint32_t h = formcheck_assert(f->z, c, root), e = formcheck_terms(f->z, c, &root, 1);
            pn_t *parts = malloc((form->n + 1) * sizeof *parts);
            ground_disjuncts(c, f->v, f->g->ts, form, parts);
            uint32_t d0 = formcheck_terms(f->z, c, parts, form->n);
            free(parts);
            circuit_free(c);
            uint32_t hits = 0, every = test_sample_every();
            for (uint32_t id = 0; id < solve_count(s); id += every) {
                const state_t *st = solve_state(s, id);
                bool a = match_check(m, f->ms, st);
                int z = formcheck_holds(f->z, h, st);
                assert_int_equal(z, a ? 1 : 0);
                assert_int_equal(formcheck_eval(f->z, e, st), z);
                /* the hook's confirmation: the disjunct the matcher found */
                if (a) assert_int_equal(formcheck_eval(f->z, d0 + (uint32_t)match_hit(m), st), 1);
                hits += a;
            }
            assert_true(hits > 0);
            match_free(m);
        }
    solve_free(s);
    regress_free(rg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hand_formulas, setup, teardown),
        cmocka_unit_test_setup_teardown(test_circuit_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_circuit_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_independent_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tictactoe_all_states, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
