/* Unit tests for the Z3 bridge (logic/z3): both circuit encoders (plain terms for the
 * model evaluator, Tseitin clauses under a selector) against circuit evaluation on every
 * assignment of random circuits; "exactly one" under a guard; models; a check whose
 * deadline has passed gives up and leaves the solver sound; constant assumptions; and the
 * error policy (an error fails the context: unknown from then on, no crash). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "base/rng.h"
#include "logic/circuit.h"
#include "logic/z3.h"
#include "random_circuit.h"

#define NV 5

static void test_encoders(void **state) {
    (void)state;
    splitmix_t rng = {7};
    for (int round = 0; round < 10; round++) {
        z3_t *z = z3_new();
        z3_solver_t *inc = z3_solver_new(z, false), *sat = z3_solver_new(z, true);
        circuit_t *c = circuit_new();
        pn_t pool[40];
        uint32_t np = random_circuit(c, &rng, NV, pool, 40);
        z3_enc_t *e = z3_enc_new(z, c);
        z3_term_t terms[40], sel[40], sel_sat[40];
        for (uint32_t i = 0; i < np; i++) {
            terms[i] = z3_enc_term(e, pool[i]);
            sel[i] = z3_assert_selected(inc, c, pool[i]);
            sel_sat[i] = z3_assert_selected(sat, c, pool[i]);
        }
        for (uint32_t i = 0; i < np; i++) {
            bool some = false;
            for (uint32_t m = 0; m < (1u << NV); m++) {
                uint8_t truth[NV];
                z3_term_t assume[NV + 1];
                for (uint32_t v = 0; v < NV; v++) {
                    truth[v] = (m >> v) & 1;
                    assume[v] = z3_lit(z, v, truth[v]);
                }
                assume[NV] = sel[i];
                bool want = pn_eval(c, pool[i], truth);
                some |= want;
                assert_int_equal(z3_eval(z, terms[i], truth, NV), want);
                assert_int_equal(z3_check(inc, assume, NV + 1, 0), want);
            }
            assert_int_equal(z3_check(sat, &sel_sat[i], 1, 0), some);
        }
        z3_enc_free(e);
        circuit_free(c);
        z3_stats_t st = z3_stats(z);
        assert_int_equal(st.errors, 0);
        assert_int_equal(st.gave_up, 0);
        z3_solver_free(inc);
        z3_solver_free(sat);
        z3_free(z);
    }
}

/* guard => exactly one of four moves (at most one always); a model has one move. */
static void test_exactly_one(void **state) {
    (void)state;
    z3_t *z = z3_new();
    z3_solver_t *s = z3_solver_new(z, false);
    z3_term_t moves[4];
    for (uint32_t v = 0; v < 4; v++)
        moves[v] = z3_var(z, v);
    z3_term_t guard = z3_var(z, 9);
    z3_assert_one(s, guard, moves, 4);
    for (uint32_t m = 0; m < 16; m++)
        for (int g = 0; g < 2; g++) {
            z3_term_t assume[5];
            for (uint32_t v = 0; v < 4; v++)
                assume[v] = z3_lit(z, v, (m >> v) & 1);
            assume[4] = z3_lit(z, 9, g);
            int ones = __builtin_popcount(m);
            assert_int_equal(z3_check(s, assume, 5, 0), g ? ones == 1 : ones <= 1);
        }
    assert_int_equal(z3_check(s, &guard, 1, 0), 1);
    int ones = 0;
    for (uint32_t v = 0; v < 4; v++) {
        int x = z3_value(s, moves[v]);
        assert_true(x == 0 || x == 1);
        ones += x;
    }
    assert_int_equal(ones, 1);
    assert_int_equal(z3_value(s, guard), 1);
    /* none to choose from: the guard cannot hold */
    z3_solver_t *none = z3_solver_new(z, false);
    z3_assert_one(none, guard, NULL, 0);
    assert_int_equal(z3_check(none, &guard, 1, 0), 0);
    z3_solver_free(none);
    z3_solver_free(s);
    z3_free(z);
}

/* z3_settle internalises what was asserted with no search: it answers done, counts a check,
 * and changes no answer (its variable asserted false is no assumption of a later check);
 * a settled solver's scopes still work. */
static void test_settle(void **state) {
    (void)state;
    z3_t *z = z3_new();
    z3_solver_t *s = z3_solver_new(z, false);
    z3_assert(s, z3_lit(z, 0, true));
    assert_true(z3_settle(s));
    assert_int_equal(z3_stats(z).checks, 1);
    z3_term_t x1 = z3_lit(z, 1, true), nx0 = z3_lit(z, 0, false);
    assert_int_equal(z3_check(s, &x1, 1, 0), 1);
    assert_int_equal(z3_value(s, z3_var(z, 0)), 1);
    assert_int_equal(z3_check(s, &nx0, 1, 0), 0);
    z3_push(s);
    z3_assert(s, nx0);
    assert_int_equal(z3_check(s, NULL, 0, 0), 0);
    z3_pop(s);
    z3_assert(s, z3_lit(z, 1, false));
    assert_true(z3_settle(s));
    assert_int_equal(z3_check(s, NULL, 0, 0), 1);
    assert_int_equal(z3_check(s, &x1, 1, 0), 0);
    assert_false(z3_solver_spoiled(s));
    z3_solver_free(s);
    z3_free(z);
}

/* An equivalence, scopes, and a model read through terms of an encoder. */
static void test_iff_scopes_models(void **state) {
    (void)state;
    z3_t *z = z3_new();
    z3_solver_t *s = z3_solver_new(z, false);
    circuit_t *c = circuit_new();
    pn_t ab[2] = {pn_var(c, 1), pn_var(c, 2)};
    pn_t both = pn_and(c, ab, 2);
    z3_enc_t *e = z3_enc_new(z, c);
    z3_assert_iff(s, z3_var(z, 0), z3_enc_term(e, both));
    z3_term_t yes[2] = {z3_lit(z, 1, true), z3_lit(z, 2, true)};
    assert_int_equal(z3_check(s, yes, 2, 0), 1);
    assert_int_equal(z3_value(s, z3_var(z, 0)), 1);
    assert_int_equal(z3_value(s, z3_enc_term(e, both)), 1);
    z3_push(s);
    z3_assert(s, z3_lit(z, 0, false));
    assert_int_equal(z3_value(s, z3_var(z, 0)), -1); /* the model went with the assertion */
    assert_int_equal(z3_check(s, yes, 2, 0), 0);
    z3_pop(s);
    assert_int_equal(z3_check(s, yes, 2, 0), 1);
    /* terms kept past their encoder */
    pn_t nb = pn_not(c, both);
    z3_term_t t = z3_enc_term(e, nb);
    z3_keep(z, t);
    z3_enc_free(e);
    uint8_t truth[3] = {0, 1, 0};
    assert_int_equal(z3_eval(z, t, truth, 3), 1);
    truth[2] = 1;
    assert_int_equal(z3_eval(z, t, truth, 3), 0);
    z3_release(z, t);
    circuit_free(c);
    assert_int_equal(z3_stats(z).errors, 0);
    z3_solver_free(s);
    z3_free(z);
}

/* Pigeons 0..5 in holes 0..4 (variable p * 5 + h), pigeon p placed when selector 100 + p
 * is assumed: unsatisfiable with all six, satisfiable with five. */
static void pigeons(z3_t *z, z3_solver_t *s, circuit_t *c, z3_enc_t *e) {
    for (uint32_t p = 0; p < 6; p++) {
        pn_t some[6];
        for (uint32_t h = 0; h < 5; h++)
            some[h] = pn_var(c, p * 5 + h);
        some[5] = pn_not(c, pn_var(c, 100 + p));
        z3_assert(s, z3_enc_term(e, pn_or(c, some, 6)));
    }
    for (uint32_t h = 0; h < 5; h++)
        for (uint32_t p = 0; p < 6; p++)
            for (uint32_t q = p + 1; q < 6; q++) {
                pn_t two[2] = {pn_var(c, p * 5 + h), pn_var(c, q * 5 + h)};
                z3_assert(s, z3_enc_term(e, pn_not(c, pn_and(c, two, 2))));
            }
    (void)z;
}

static void test_deadline(void **state) {
    (void)state;
    z3_t *z = z3_new();
    z3_solver_t *s = z3_solver_new(z, false);
    circuit_t *c = circuit_new();
    z3_enc_t *e = z3_enc_new(z, c);
    pigeons(z, s, c, e);
    z3_term_t sel[6];
    for (uint32_t p = 0; p < 6; p++)
        sel[p] = z3_var(z, 100 + p);
    /* no time: no round starts (nothing reaches the solver), unknown */
    assert_int_equal(z3_check(s, sel, 6, now_seconds() - 1), -1);
    z3_stats_t st = z3_stats(z);
    assert_int_equal(st.gave_up, 1);
    assert_int_equal(st.checks, 0);
    assert_int_equal(st.rounds, 0);
    assert_int_equal(z3_value(s, sel[0]), -1); /* no model of an unknown answer */
    /* a microsecond, on a solver of its own: out of time (no round, a round of one
     * conflict, or interrupted), unknown */
    z3_solver_t *quick = z3_solver_new(z, false);
    pigeons(z, quick, c, e);
    assert_int_equal(z3_check(quick, sel, 6, now_seconds() + 1e-6), -1);
    /* interrupted by the watchdog (forced: no test waits for a clock): unknown, and
     * unknown from then on (Z3 4.8.12 was seen calling 6 pigeons in 5 holes satisfiable
     * after an interrupt) */
    z3_solver_t *cut = z3_solver_new(z, false);
    pigeons(z, cut, c, e);
    uint64_t before = z3_stats(z).interrupted;
    z3_test_interrupt(z);
    assert_int_equal(z3_check(cut, sel, 6, now_seconds() + 1e6), -1);
    assert_int_equal(z3_stats(z).interrupted, before + 1);
    assert_true(z3_solver_spoiled(cut));
    assert_int_equal(z3_value(cut, sel[0]), -1);
    assert_int_equal(z3_check(cut, sel, 6, 0), -1);
    assert_int_equal(z3_check(cut, sel, 5, 0), -1);
    z3_solver_free(cut);
    z3_solver_free(quick);
    assert_false(z3_solver_spoiled(s));
    /* the solver still answers exactly, with and without a clock */
    assert_int_equal(z3_check(s, sel, 6, 0), 0);
    assert_int_equal(z3_check(s, sel, 6, now_seconds() + 1e6), 0);
    assert_int_equal(z3_check(s, sel, 5, 0), 1);
    for (uint32_t h = 0; h < 5; h++) { /* the model places five pigeons apart */
        int in = 0;
        for (uint32_t p = 0; p < 5; p++)
            in += z3_value(s, z3_var(z, p * 5 + h));
        assert_int_equal(in, 1);
    }
    /* the SAT engine gives up too, then answers */
    z3_solver_t *hard = z3_solver_new(z, true);
    pigeons(z, hard, c, e);
    assert_int_equal(z3_check(hard, sel, 6, now_seconds() - 1), -1);
    assert_int_equal(z3_check(hard, sel, 6, 0), 0);
    assert_int_equal(z3_stats(z).errors, 0);
    z3_solver_free(hard);
    z3_enc_free(e);
    circuit_free(c);
    z3_solver_free(s);
    z3_free(z);
}

static void test_constant_assumptions(void **state) {
    (void)state;
    z3_t *z = z3_new();
    z3_solver_t *s = z3_solver_new(z, false);
    z3_term_t yes = z3_const(z, true), no = z3_const(z, false), v = z3_var(z, 3);
    z3_term_t a[2] = {yes, v}, b[2] = {v, no};
    assert_int_equal(z3_check(s, a, 2, 0), 1);
    assert_int_equal(z3_value(s, v), 1);
    assert_int_equal(z3_check(s, b, 2, 0), 0);
    assert_int_equal(z3_stats(z).checks, 1); /* the second needed no solver */
    z3_solver_free(s);
    z3_free(z);
}

/* An error (a scope closed that was never opened) fails the context: every later answer
 * is unknown, every term 0, and nothing crashes. */
static void test_error_policy(void **state) {
    (void)state;
    z3_t *z = z3_new();
    z3_solver_t *s = z3_solver_new(z, false);
    z3_term_t v = z3_var(z, 0);
    assert_int_equal(z3_check(s, &v, 1, 0), 1);
    assert_false(z3_failed(z));
    z3_pop(s);
    assert_true(z3_failed(z));
    assert_int_equal(z3_stats(z).errors, 1);
    assert_int_equal(z3_check(s, &v, 1, 0), -1);
    assert_int_equal(z3_value(s, v), -1);
    uint8_t truth[1] = {1};
    assert_int_equal(z3_eval(z, v, truth, 1), -1);
    assert_int_equal(z3_var(z, 7), 0);
    circuit_t *c = circuit_new();
    pn_t ab[2] = {pn_var(c, 0), pn_var(c, 1)};
    pn_t x = pn_or(c, ab, 2);
    z3_enc_t *e = z3_enc_new(z, c);
    assert_int_equal(z3_enc_term(e, x), 0);
    assert_int_equal(z3_assert_selected(s, c, x), 0);
    z3_assert(s, 0);
    z3_assert_iff(s, v, 0);
    z3_assert_one(s, v, &v, 1);
    z3_push(s);
    z3_term_t none = 0;
    assert_int_equal(z3_check(s, &none, 1, 0), -1);
    assert_int_equal(z3_stats(z).errors, 1);
    z3_enc_free(e);
    circuit_free(c);
    z3_solver_free(s);
    z3_free(z);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoders),          cmocka_unit_test(test_exactly_one),
        cmocka_unit_test(test_iff_scopes_models), cmocka_unit_test(test_settle),
        cmocka_unit_test(test_deadline),          cmocka_unit_test(test_constant_assumptions),
        cmocka_unit_test(test_error_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
