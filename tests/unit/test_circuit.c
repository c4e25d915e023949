/* Unit tests for the hash-consed circuits (logic/circuit): equal nodes made once,
 * constants folded exactly where folding decides them, the node limit and the deadline
 * of a bounded circuit, and evaluation against a direct reading of random circuits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/clock.h"
#include "base/rng.h"
#include "logic/circuit.h"
#include "logic/sat.h"
#include "random_circuit.h"

static void test_hash_consing(void **state) {
    (void)state;
    circuit_t *c = circuit_new();
    pn_t a = pn_var(c, 7), b = pn_var(c, 3);
    assert_int_equal(pn_var(c, 7), a);
    assert_int_equal(pn_op(c, a), PN_VAR);
    assert_int_equal(pn_varnum(c, a), 7);
    pn_t ab[2] = {a, b}, ba[2] = {b, a}, aab[3] = {a, b, a};
    pn_t x = pn_and(c, ab, 2);
    assert_int_equal(pn_and(c, ba, 2), x);  /* kids sorted */
    assert_int_equal(pn_and(c, aab, 3), x); /* and deduplicated */
    assert_int_equal(pn_arity(c, x), 2);
    assert_true(pn_or(c, ab, 2) != x);
    uint32_t size = circuit_size(c);
    (void)pn_and(c, ba, 2);
    assert_int_equal(pn_not(c, pn_not(c, x)), x);
    assert_int_equal(circuit_size(c), size + 1); /* only the negation is new */
    circuit_free(c);
}

static void test_folding(void **state) {
    (void)state;
    circuit_t *c = circuit_new();
    pn_t a = pn_var(c, 0);
    pn_t with_false[3] = {a, PN_FALSE, pn_var(c, 1)}, with_true[2] = {PN_TRUE, a};
    assert_int_equal(pn_and(c, with_false, 3), PN_FALSE);
    assert_int_equal(pn_or(c, with_true, 2), PN_TRUE);
    assert_int_equal(pn_and(c, with_true, 2), a); /* the unit drops, one kid is itself */
    assert_int_equal(pn_and(c, NULL, 0), PN_TRUE);
    assert_int_equal(pn_or(c, NULL, 0), PN_FALSE);
    assert_int_equal(pn_not(c, PN_TRUE), PN_FALSE);
    assert_int_equal(pn_not(c, PN_FALSE), PN_TRUE);
    circuit_free(c);
}

static void test_limits(void **state) {
    (void)state;
    circuit_t *c = circuit_new_within(5, 0); /* two constants and three nodes */
    pn_t a = pn_var(c, 0), b = pn_var(c, 1);
    pn_t ab[2] = {a, b};
    (void)pn_and(c, ab, 2);
    assert_false(circuit_overflow(c));
    assert_true(circuit_within(c, 4));
    (void)pn_var(c, 2);
    assert_true(circuit_overflow(c));
    assert_false(circuit_within(c, 0)); /* stays refused */
    circuit_free(c);

    c = circuit_new_within(100, 0);
    assert_false(circuit_within(c, 100)); /* the caller's work counts against the limit */
    assert_true(circuit_overflow(c));
    circuit_free(c);

    c = circuit_new_within(0, now_seconds() - 1); /* polled every 4096 nodes */
    for (uint32_t v = 0; v < 5000 && !circuit_overflow(c); v++)
        (void)pn_var(c, v);
    assert_true(circuit_overflow(c));
    assert_true(circuit_size(c) <= 4098);
    circuit_free(c);

    c = circuit_new_within(0, now_seconds() + 1e6);
    for (uint32_t v = 0; v < 5000; v++)
        (void)pn_var(c, v);
    assert_false(circuit_overflow(c));
    circuit_free(c);
}

/* The value of node n read directly from the node structure. */
static bool value(const circuit_t *c, pn_t n, const uint8_t *truth) {
    switch (pn_op(c, n)) {
    case PN_CONST:
        return n == PN_TRUE;
    case PN_VAR:
        return truth[pn_varnum(c, n)];
    case PN_NOT:
        return !value(c, pn_kid(c, n, 0), truth);
    default: {
        bool and = pn_op(c, n) == PN_AND;
        for (uint32_t i = 0; i < pn_arity(c, n); i++)
            if (value(c, pn_kid(c, n, i), truth) != and) return !and;
        return and;
    }
    }
}

/* Random circuits over 6 variables: pn_eval agrees with the structure on every
 * assignment, and a node folded to a constant is that constant on every assignment. */
static void test_eval_random(void **state) {
    (void)state;
    splitmix_t rng = {42};
    for (int round = 0; round < 50; round++) {
        circuit_t *c = circuit_new();
        pn_t pool[64];
        uint32_t np = random_circuit(c, &rng, 6, pool, 64);
        for (uint32_t m = 0; m < 64; m++) {
            uint8_t truth[6];
            for (uint32_t v = 0; v < 6; v++)
                truth[v] = (m >> v) & 1;
            for (uint32_t i = 0; i < np; i++) {
                bool want = value(c, pool[i], truth);
                assert_int_equal(pn_eval(c, pool[i], truth), want);
                if (pool[i] == PN_TRUE || pool[i] == PN_FALSE)
                    assert_int_equal(want, pool[i] == PN_TRUE);
            }
        }
        circuit_free(c);
    }
}

/* What a record asserts, on one assignment: every assert, iff and "one" holds. */
typedef struct {
    pn_t asserted[2], iff[2], guard, one[16];
    uint32_t n_one;
} recorded_t;

static bool holds(const circuit_t *c, const recorded_t *w, uint32_t entries, const uint8_t *t) {
    bool ok = pn_eval(c, w->asserted[0], t);
    if (entries > 1) ok &= pn_eval(c, w->iff[0], t) == pn_eval(c, w->iff[1], t);
    if (entries > 2) {
        uint32_t on = 0;
        for (uint32_t i = 0; i < w->n_one; i++)
            on += pn_eval(c, w->one[i], t);
        ok &= on <= 1 && (on == 1 || !pn_eval(c, w->guard, t));
    }
    if (entries > 3) ok &= pn_eval(c, w->asserted[1], t);
    return ok;
}

/* CaDiCaL on a record (logic/sat.h) against every assignment of 6 variables: random
 * circuits, entries added between checks (the solver is kept and fed what is new), "one"
 * over 2-16 nodes (pairwise and the sequential counter), random assumptions. */
static void test_sat_random(void **state) {
    (void)state;
    splitmix_t rng = {7};
    for (int round = 0; round < 60; round++) {
        circuit_t *c = circuit_new();
        pn_t pool[48];
        uint32_t np = random_circuit(c, &rng, 6, pool, 48);
        recorded_t w = {.n_one = 2 + (uint32_t)(splitmix_next(&rng) % 15)};
        w.asserted[0] = pool[splitmix_next(&rng) % np];
        w.asserted[1] = pool[splitmix_next(&rng) % np];
        w.iff[0] = pool[splitmix_next(&rng) % np];
        w.iff[1] = pool[splitmix_next(&rng) % np];
        w.guard = pool[splitmix_next(&rng) % np];
        for (uint32_t i = 0; i < w.n_one; i++) /* variables mostly, as moves are */
            w.one[i] = pool[2 + splitmix_next(&rng) % (i % 3 ? 6 : np - 2)];
        sat_record_t *r = sat_record_new(c);
        for (uint32_t entries = 1; entries <= 4; entries++) {
            if (entries == 1) sat_record_assert(r, w.asserted[0]);
            if (entries == 2) sat_record_iff(r, w.iff[0], w.iff[1]);
            if (entries == 3) sat_record_one(r, w.guard, w.one, w.n_one);
            if (entries == 4) sat_record_assert(r, w.asserted[1]);
            for (int q = 0; q < 3; q++) {
                pn_t assume[2] = {pool[splitmix_next(&rng) % np], pool[splitmix_next(&rng) % np]};
                uint32_t na = (uint32_t)q;
                bool want = false;
                for (uint32_t m = 0; m < 64 && !want; m++) {
                    uint8_t t[6];
                    for (uint32_t v = 0; v < 6; v++)
                        t[v] = (m >> v) & 1;
                    want = holds(c, &w, entries, t);
                    for (uint32_t i = 0; i < na; i++)
                        want &= pn_eval(c, assume[i], t);
                }
                assert_int_equal(sat_check(r, assume, na, 0), want);
            }
        }
        sat_record_free(r);
        circuit_free(c);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_consing), cmocka_unit_test(test_folding),
        cmocka_unit_test(test_limits),       cmocka_unit_test(test_eval_random),
        cmocka_unit_test(test_sat_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
