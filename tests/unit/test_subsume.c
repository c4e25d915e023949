/* Unit tests for regress/subsume: the homomorphism test between lifted conjunctions, with
 * negated scopes, and its shared-target form (subsume_share/subsume_shared), which must
 * answer exactly as subsume_conj on the same targets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "regress/subsume.h"

#define CAP 16

typedef struct {
    term_store_t *ts;
    subsume_t *s;
    uint8_t pv[CAP];
} fx_t;

static term_t fn1(term_store_t *ts, const char *f, term_t a) {
    return term_fun(ts, term_intern(ts, f, strlen(f)), &a, 1);
}

static term_t con(term_store_t *ts, const char *c) {
    return term_const(ts, term_intern(ts, c, strlen(c)));
}

/* true(f(x)) */
static void add_true(fx_t *x, fconj_t *c, const char *f, term_t arg) {
    fconj_add(c, FL_TRUE, fn1(x->ts, f, arg), TERM_NONE);
}

/* A scope holding the single literal true(f(arg)), to be negated. */
static fconj_t *scope1(fx_t *x, const char *f, term_t arg) {
    fconj_t *c = fconj_new();
    add_true(x, c, f, arg);
    return c;
}

static int setup(void **state) {
    fx_t *x = calloc(1, sizeof *x);
    x->ts = term_store_new();
    x->s = subsume_new(x->ts);
    subsume_set_cap(x->s, CAP);
    *state = x;
    return 0;
}

static int teardown(void **state) {
    fx_t *x = *state;
    subsume_free(x->s);
    term_store_free(x->ts);
    free(x);
    return 0;
}

static void test_positive_literals(void **state) {
    fx_t *x = *state;
    term_store_t *ts = x->ts;
    fconj_t *T = fconj_new();
    add_true(x, T, "f", con(ts, "a"));
    add_true(x, T, "g", con(ts, "b"));
    const fconj_t *targets[1] = {T};

    fconj_t *P = fconj_new(); /* true(f(?0)) with ?0 a pattern variable */
    add_true(x, P, "f", term_var(ts, 0));
    memset(x->pv, 0, CAP);
    x->pv[0] = 1;
    assert_true(subsume_conj(x->s, P, x->pv, targets, 1));

    fconj_t *Q = fconj_new(); /* true(f(?0)) and true(g(?0)): no single value fits */
    add_true(x, Q, "f", term_var(ts, 0));
    add_true(x, Q, "g", term_var(ts, 0));
    assert_false(subsume_conj(x->s, Q, x->pv, targets, 1));
    fconj_free(P);
    fconj_free(Q);
    fconj_free(T);
}

/* not exists y g(y) implies not g(a); not g(b) does not. */
static void test_negated_scopes(void **state) {
    fx_t *x = *state;
    term_store_t *ts = x->ts;
    memset(x->pv, 0, CAP);
    x->pv[0] = 1;
    fconj_t *P = fconj_new();
    add_true(x, P, "f", term_var(ts, 0));
    fconj_add_not(P, scope1(x, "g", term_var(ts, 0)));

    fconj_t *T1 = fconj_new();
    add_true(x, T1, "f", con(ts, "a"));
    fconj_add_not(T1, scope1(x, "g", term_var(ts, 1)));
    const fconj_t *t1[1] = {T1};
    assert_true(subsume_conj(x->s, P, x->pv, t1, 1));

    fconj_t *T2 = fconj_new();
    add_true(x, T2, "f", con(ts, "a"));
    fconj_add_not(T2, scope1(x, "g", con(ts, "b")));
    const fconj_t *t2[1] = {T2};
    assert_false(subsume_conj(x->s, P, x->pv, t2, 1));
    fconj_free(P);
    fconj_free(T1);
    fconj_free(T2);
}

/* P = not g(c). The extra target says not g(?5). When the shared targets use ?5 in their
 * own literals, ?5 is theirs (some fixed value), so not g(?5) says nothing about c; when
 * they do not, ?5 belongs to the negated scope and not exists g(?5) implies not g(c). */
static void check_shared_var(fx_t *x, bool shared_uses_var) {
    term_store_t *ts = x->ts;
    memset(x->pv, 0, CAP);
    fconj_t *P = fconj_new();
    fconj_add_not(P, scope1(x, "g", con(ts, "c")));
    fconj_t *extra = fconj_new();
    fconj_add_not(extra, scope1(x, "g", term_var(ts, 5)));
    fconj_t *S = fconj_new();
    add_true(x, S, "f", shared_uses_var ? term_var(ts, 5) : con(ts, "a"));
    fconj_t *C = fconj_new();
    add_true(x, C, "h", con(ts, "d"));
    const fconj_t *shared[2] = {S, C};
    const fconj_t *all[3] = {extra, S, C};

    bool expected = !shared_uses_var;
    assert_int_equal(subsume_conj(x->s, P, x->pv, all, 3), expected);
    subsume_share(x->s, shared, 2);
    assert_int_equal(subsume_shared(x->s, P, x->pv, extra), expected);
    /* asked again, the marks of the first call must not leak into the second */
    assert_int_equal(subsume_shared(x->s, P, x->pv, extra), expected);
    /* without the extra target there is no negation to match */
    assert_false(subsume_shared(x->s, P, x->pv, NULL));
    fconj_free(P);
    fconj_free(extra);
    fconj_free(S);
    fconj_free(C);
}

static void test_shared_targets_own_variables(void **state) {
    fx_t *x = *state;
    check_shared_var(x, true);
    check_shared_var(x, false);
    check_shared_var(x, true); /* a new share replaces the old one's marks */
}

/* Several patterns against one share, each compared with subsume_conj. */
static void test_shared_agrees_with_conj(void **state) {
    fx_t *x = *state;
    term_store_t *ts = x->ts;
    const char *val[3] = {"a", "b", "c"};
    fconj_t *S = fconj_new();
    add_true(x, S, "f", con(ts, "a"));
    fconj_add_not(S, scope1(x, "g", con(ts, "b")));
    fconj_add_not(S, scope1(x, "k", term_var(ts, 3)));
    const fconj_t *shared[1] = {S};
    subsume_share(x->s, shared, 1);
    uint32_t yes = 0, no = 0;
    for (int e = 0; e < 3; e++) {
        fconj_t *extra = fconj_new();
        fconj_add_not(extra, scope1(x, "h", con(ts, val[e])));
        for (int kind = 0; kind < 3; kind++)
            for (int v = 0; v < 3; v++) {
                memset(x->pv, 0, CAP);
                fconj_t *P = fconj_new();
                const char *fn[3] = {"g", "h", "k"};
                fconj_add_not(P, scope1(x, fn[kind], con(ts, val[v])));
                const fconj_t *all[2] = {extra, S};
                bool a = subsume_conj(x->s, P, x->pv, all, 2);
                subsume_share(x->s, shared, 1);
                bool b = subsume_shared(x->s, P, x->pv, extra);
                assert_int_equal(a, b);
                yes += a;
                no += !a;
                fconj_free(P);
            }
        fconj_free(extra);
    }
    /* g(b) (the shared negation), h(e) (the extra's) and k(anything): 3 + 3 + 9 of 27 */
    assert_int_equal(yes, 3 + 3 + 9);
    assert_int_equal(no, 27 - 15);
    fconj_free(S);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_positive_literals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negated_scopes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_targets_own_variables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_agrees_with_conj, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
