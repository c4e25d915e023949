/* Unit tests for gdl/bind: matching against ground terms and undoing to a mark, matching
 * onto terms with only some variables bindable, unification (occurs check, rank,
 * step bound), resolution through chains, unifiability of atoms renamed apart; and the
 * substitutions of gdl/term it relies on (chains of maps, deep resolution). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gdl/bind.h"

static term_store_t *ts;

static int setup(void **state) {
    (void)state;
    ts = term_store_new();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    term_store_free(ts);
    return 0;
}

static term_t c(const char *s) {
    return term_const(ts, term_intern(ts, s, strlen(s)));
}

static term_t v(uint32_t n) {
    return term_var(ts, n);
}

static term_t f2(const char *f, term_t a, term_t b) {
    term_t args[2] = {a, b};
    return term_fun(ts, term_intern(ts, f, strlen(f)), args, 2);
}

static term_t f1(const char *f, term_t a) {
    return term_fun(ts, term_intern(ts, f, strlen(f)), &a, 1);
}

static void test_match_and_undo(void **state) {
    (void)state;
    bind_t b;
    bind_init(&b, 4);
    term_t p = f2("cell", v(0), v(0)), q = f2("cell", v(0), v(1));
    assert_true(bind_match(&b, ts, p, f2("cell", c("a"), c("a"))));
    assert_int_equal(b.val[0], c("a"));
    uint32_t mark = bind_mark(&b);
    assert_int_equal(mark, 1);
    bind_undo(&b, 0);
    assert_int_equal(b.val[0], TERM_NONE);
    /* a repeated variable must match equal arguments */
    assert_false(bind_match(&b, ts, p, f2("cell", c("a"), c("b"))));
    bind_undo(&b, 0);
    /* bound variables constrain later matches; undo returns to the mark only */
    assert_true(bind_match(&b, ts, v(0), c("x")));
    mark = bind_mark(&b);
    assert_false(bind_match(&b, ts, q, f2("cell", c("y"), c("z"))));
    bind_undo(&b, mark);
    assert_true(bind_match(&b, ts, q, f2("cell", c("x"), c("z"))));
    assert_int_equal(b.val[1], c("z"));
    bind_undo(&b, mark);
    assert_int_equal(b.val[0], c("x"));
    assert_int_equal(b.val[1], TERM_NONE);
    /* functor and arity must agree; a ground pattern matches only itself */
    assert_false(bind_match(&b, ts, f1("cell", v(2)), f2("cell", c("a"), c("b"))));
    assert_false(bind_match(&b, ts, c("a"), c("b")));
    assert_true(bind_bound(&b, ts, f2("g", v(0), c("k"))));
    assert_false(bind_bound(&b, ts, f2("g", v(0), v(3))));
    assert_int_equal(bind_subst(&b, ts, f2("g", v(0), v(3))), f2("g", c("x"), v(3)));
    bind_fini(&b);
}

static void test_match_over_caller_storage(void **state) {
    (void)state;
    term_t val[3] = {TERM_NONE, TERM_NONE, TERM_NONE};
    uint32_t trail[3];
    bind_t b = bind_over(val, trail);
    assert_true(bind_match(&b, ts, f2("p", v(1), v(0)), f2("p", c("a"), c("b"))));
    assert_int_equal(val[0], c("b"));
    assert_int_equal(val[1], c("a"));
    bind_undo(&b, 0);
    assert_int_equal(val[0], TERM_NONE);
    assert_int_equal(val[1], TERM_NONE);
}

static void test_match_onto(void **state) {
    (void)state;
    bind_t b;
    bind_init(&b, 4);
    uint8_t bindable[4] = {1, 0, 0, 0};
    /* ?0 binds, to a term with variables; ?1 is a constant here */
    assert_true(
        bind_match_onto(&b, ts, f2("p", v(0), v(1)), f2("p", f1("s", v(2)), v(1)), bindable));
    assert_int_equal(b.val[0], f1("s", v(2)));
    bind_undo(&b, 0);
    assert_false(bind_match_onto(&b, ts, f2("p", v(0), v(1)), f2("p", c("a"), v(2)), bindable));
    bind_undo(&b, 0);
    /* equal terms still bind the bindable variables, to themselves */
    assert_true(bind_match_onto(&b, ts, v(0), v(0), bindable));
    assert_int_equal(b.val[0], v(0));
    bind_fini(&b);
}

static int rank_high_three(const void *ctx, uint32_t var) {
    (void)ctx;
    return var == 3 ? 1 : 0;
}

static void test_unify(void **state) {
    (void)state;
    bind_t b;
    bind_init(&b, 8);
    /* f(?0, g(?1)) = f(g(?2), ?0): ?0 = g(?2) = g(?1) */
    term_t a = f2("f", v(0), f1("g", v(1))), d = f2("f", f1("g", v(2)), v(0));
    assert_true(bind_unify(&b, ts, a, d, NULL, NULL));
    assert_int_equal(bind_resolve(&b, ts, a), bind_resolve(&b, ts, d));
    bind_undo(&b, 0);
    /* the occurs check */
    assert_false(bind_unify(&b, ts, v(0), f1("g", v(0)), NULL, NULL));
    bind_undo(&b, 0);
    assert_false(bind_unify(&b, ts, f2("f", c("a"), v(0)), f2("f", c("b"), v(0)), NULL, NULL));
    bind_undo(&b, 0);
    /* of two variables the one of higher rank is bound (equal ranks: the first) */
    assert_true(bind_unify(&b, ts, v(4), v(5), NULL, NULL));
    assert_int_equal(b.val[4], v(5));
    bind_undo(&b, 0);
    assert_true(bind_unify(&b, ts, v(4), v(3), rank_high_three, NULL));
    assert_int_equal(b.val[3], v(4));
    assert_int_equal(b.val[4], TERM_NONE);
    bind_undo(&b, 0);
    assert_true(bind_unify(&b, ts, v(3), v(4), rank_high_three, NULL));
    assert_int_equal(b.val[3], v(4));
    bind_undo(&b, 0);
    /* a bound on the steps answers no */
    b.unify_steps = 2;
    assert_false(bind_unify(&b, ts, f2("f", v(0), v(1)), f2("f", c("a"), c("b")), NULL, NULL));
    bind_fini(&b);
}

static void test_resolve_and_chains(void **state) {
    (void)state;
    bind_t b;
    bind_init(&b, 4);
    bind_set(&b, 0, f1("s", v(1)));
    bind_set(&b, 1, c("z"));
    assert_int_equal(bind_deref(&b, ts, v(0)), f1("s", v(1)));
    assert_int_equal(bind_resolve(&b, ts, f2("p", v(0), v(2))), f2("p", f1("s", c("z")), v(2)));
    /* one level only: term_subst */
    assert_int_equal(term_subst(ts, v(0), b.val), f1("s", v(1)));
    /* a chain: the first map that binds a variable gives its value, as it is */
    term_t m1[3] = {TERM_NONE, c("one"), TERM_NONE}, m2[3] = {v(1), c("two"), c("three")};
    const term_t *maps[2] = {m1, m2};
    assert_int_equal(term_subst_chain(ts, f2("p", v(0), f2("q", v(1), v(2))), maps, 2),
                     f2("p", v(1), f2("q", c("one"), c("three"))));
    bind_fini(&b);
}

static void test_unifiable_apart(void **state) {
    (void)state;
    /* the same variable numbers on the two sides are different variables */
    assert_true(bind_unifiable_apart(ts, f2("p", v(0), c("a")), 1, f2("p", c("b"), v(0)), 1));
    assert_false(bind_unifiable_apart(ts, f2("p", v(0), v(0)), 1, f2("p", c("a"), c("b")), 1));
    assert_false(bind_unifiable_apart(ts, f1("p", c("a")), 0, f1("q", v(0)), 1));
    /* many variables: the bindings no longer fit on the stack */
    term_t big = c("nil"), ground = c("nil");
    for (uint32_t i = 0; i < 40; i++) {
        big = f2("cons", v(i), big);
        ground = f2("cons", c("x"), ground);
    }
    assert_true(bind_unifiable_apart(ts, big, 40, ground, 0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_match_and_undo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_over_caller_storage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_onto, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolve_and_chains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unifiable_apart, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
