/* Unit tests for gdl/term: symbol interning with case folding, the fixed keyword ids,
 * hash-consed terms (equal terms have equal ids), printing, substitution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gdl/term.h"

static int setup(void **state) {
    *state = term_store_new();
    return 0;
}

static int teardown(void **state) {
    term_store_free(*state);
    return 0;
}

static sym_t intern(term_store_t *ts, const char *s) {
    return term_intern(ts, s, strlen(s));
}

static term_t cnst(term_store_t *ts, const char *s) {
    return term_const(ts, intern(ts, s));
}

static term_t fun2(term_store_t *ts, const char *f, term_t a, term_t b) {
    term_t args[2] = {a, b};
    return term_fun(ts, intern(ts, f), args, 2);
}

static term_t fun1(term_store_t *ts, const char *f, term_t a) {
    return term_fun(ts, intern(ts, f), &a, 1);
}

/* Prints t into a static buffer (one at a time). */
static const char *show(term_store_t *ts, term_t t) {
    static char buf[512];
    strbuf_t sb;
    sb_init(&sb);
    term_print(ts, t, &sb);
    snprintf(buf, sizeof buf, "%s", sb_str(&sb));
    sb_fini(&sb);
    return buf;
}

static void test_keywords_fixed_ids(void **state) {
    term_store_t *ts = *state;
    assert_int_equal(intern(ts, "role"), SYM_ROLE);
    assert_int_equal(intern(ts, "init"), SYM_INIT);
    assert_int_equal(intern(ts, "true"), SYM_TRUE);
    assert_int_equal(intern(ts, "next"), SYM_NEXT);
    assert_int_equal(intern(ts, "legal"), SYM_LEGAL);
    assert_int_equal(intern(ts, "does"), SYM_DOES);
    assert_int_equal(intern(ts, "goal"), SYM_GOAL);
    assert_int_equal(intern(ts, "terminal"), SYM_TERMINAL);
    assert_int_equal(intern(ts, "distinct"), SYM_DISTINCT);
    assert_int_equal(intern(ts, "not"), SYM_NOT);
    assert_int_equal(intern(ts, "or"), SYM_OR);
    assert_int_equal(intern(ts, "base"), SYM_BASE);
    assert_int_equal(intern(ts, "input"), SYM_INPUT);
    assert_int_equal(intern(ts, "random"), SYM_RANDOM);
    assert_int_equal(intern(ts, "sees"), SYM_SEES);
    assert_int_equal(intern(ts, "<="), SYM_IMPLIES);
    assert_int_equal(intern(ts, "and"), SYM_AND);
    assert_int_equal(intern(ts, "noop"), SYM_NOOP);
    assert_int_equal(intern(ts, "nil"), SYM_NIL);
    assert_int_equal(term_sym_count(ts), SYM_FIRST_USER);
    assert_string_equal(term_sym_name(ts, SYM_TERMINAL), "terminal");
    assert_string_equal(term_sym_name(ts, SYM_IMPLIES), "<=");
}

static void test_interning(void **state) {
    term_store_t *ts = *state;
    size_t before = term_sym_count(ts);
    sym_t a = intern(ts, "cell");
    sym_t b = intern(ts, "cell");
    sym_t c = intern(ts, "cells");
    assert_int_equal(a, b);
    assert_int_not_equal(a, c);
    assert_true(a >= SYM_FIRST_USER);
    assert_int_equal(term_sym_count(ts), before + 2);
    assert_string_equal(term_sym_name(ts, a), "cell");
    assert_string_equal(term_sym_name(ts, c), "cells");
    /* Only len bytes count, not the rest of the buffer. */
    assert_int_equal(term_intern(ts, "cellsXYZ", 4), a);
    /* Numbers are symbols like any other. */
    sym_t n = intern(ts, "100");
    assert_string_equal(term_sym_name(ts, n), "100");
    assert_int_not_equal(n, intern(ts, "10"));
}

static void test_case_folding(void **state) {
    term_store_t *ts = *state;
    sym_t a = intern(ts, "xPlayer");
    assert_int_equal(a, intern(ts, "XPLAYER"));
    assert_int_equal(a, intern(ts, "xplayer"));
    assert_string_equal(term_sym_name(ts, a), "xplayer");
    assert_int_equal(intern(ts, "ROLE"), SYM_ROLE);
    assert_int_equal(intern(ts, "Distinct"), SYM_DISTINCT);
    /* A long name (past any small on-stack buffer) folds the same way. */
    char up[200], low[200];
    for (int i = 0; i < 150; i++)
        up[i] = (char)('A' + i % 26), low[i] = (char)('a' + i % 26);
    up[150] = low[150] = 0;
    sym_t l = intern(ts, up);
    assert_int_equal(l, intern(ts, low));
    assert_string_equal(term_sym_name(ts, l), low);
}

static void test_many_symbols(void **state) {
    term_store_t *ts = *state;
    char name[32];
    sym_t first = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "s%d", i);
        sym_t s = intern(ts, name);
        if (i == 0) first = s;
        assert_int_equal(s, first + (sym_t)i);
    }
    for (int i = 0; i < 5000; i += 97) {
        snprintf(name, sizeof name, "S%d", i);
        assert_int_equal(intern(ts, name), first + (sym_t)i);
        name[0] = 's';
        assert_string_equal(term_sym_name(ts, first + (sym_t)i), name);
    }
    assert_string_equal(term_sym_name(ts, first + 1234), "s1234");
}

static void test_hash_consing(void **state) {
    term_store_t *ts = *state;
    term_t a = cnst(ts, "a"), b = cnst(ts, "b");
    assert_int_not_equal(a, TERM_NONE);
    assert_int_equal(a, cnst(ts, "A"));
    assert_int_not_equal(a, b);
    term_t fab = fun2(ts, "f", a, b);
    assert_int_equal(fab, fun2(ts, "f", a, b));
    assert_int_equal(fab, fun2(ts, "F", cnst(ts, "a"), cnst(ts, "B")));
    assert_int_not_equal(fab, fun2(ts, "f", b, a));
    assert_int_not_equal(fab, fun2(ts, "g", a, b));
    assert_int_not_equal(fun1(ts, "f", a), fab);
    /* nested */
    term_t n1 = fun1(ts, "g", fun2(ts, "f", a, fun1(ts, "h", b)));
    term_t n2 = fun1(ts, "g", fun2(ts, "f", a, fun1(ts, "h", b)));
    assert_int_equal(n1, n2);
    /* (f) is the constant f */
    sym_t f = intern(ts, "f");
    assert_int_equal(term_fun(ts, f, NULL, 0), term_const(ts, f));
    /* variables are numbered terms; a variable is not the constant of the same number */
    assert_int_equal(term_var(ts, 0), term_var(ts, 0));
    assert_int_not_equal(term_var(ts, 0), term_var(ts, 1));
    assert_int_not_equal(term_var(ts, f), term_const(ts, f));
    size_t count = term_count(ts);
    (void)fun2(ts, "f", a, b);
    (void)term_var(ts, 1);
    assert_int_equal(term_count(ts), count);
}

static void test_accessors(void **state) {
    term_store_t *ts = *state;
    term_t a = cnst(ts, "a"), x = term_var(ts, 3);
    term_t t = fun2(ts, "f", a, x);
    assert_int_equal(term_kind(ts, a), TERM_SYM);
    assert_int_equal(term_kind(ts, x), TERM_VAR);
    assert_int_equal(term_kind(ts, t), TERM_FUN);
    assert_true(term_is_var(ts, x));
    assert_false(term_is_var(ts, t));
    assert_int_equal(term_sym(ts, t), intern(ts, "f"));
    assert_int_equal(term_sym(ts, x), 3);
    assert_int_equal(term_arity(ts, t), 2);
    assert_int_equal(term_arity(ts, a), 0);
    assert_int_equal(term_arg(ts, t, 0), a);
    assert_int_equal(term_arg(ts, t, 1), x);
    assert_int_equal(term_args(ts, t)[1], x);
    assert_true(term_is_ground(ts, a));
    assert_false(term_is_ground(ts, x));
    assert_false(term_is_ground(ts, t));
    assert_false(term_is_ground(ts, fun1(ts, "g", t)));
    assert_true(term_is_ground(ts, fun2(ts, "f", a, a)));
}

/* Depth: 0 for a constant or variable, one more than the deepest argument for a compound
 * (the engines' cap, TERM_MAX_DEPTH, reads it); it stops counting at TERM_DEPTH_SATURATED. */
static void test_depth(void **state) {
    term_store_t *ts = *state;
    term_t a = cnst(ts, "a"), x = term_var(ts, 0);
    assert_int_equal(term_depth(ts, a), 0);
    assert_int_equal(term_depth(ts, x), 0);
    term_t t = fun2(ts, "f", fun1(ts, "g", fun1(ts, "g", a)), x);
    assert_int_equal(term_depth(ts, t), 3);
    assert_int_equal(term_depth(ts, fun2(ts, "f", x, t)), 4);
    assert_int_equal(term_depth(ts, term_fun(ts, intern(ts, "h"), NULL, 0)), 0);
    term_t deep = a;
    for (uint32_t i = 0; i < TERM_DEPTH_SATURATED + 10; i++) {
        deep = fun1(ts, "s", deep);
        assert_int_equal(term_depth(ts, deep),
                         i + 1 < TERM_DEPTH_SATURATED ? i + 1 : TERM_DEPTH_SATURATED);
    }
}

static void test_find(void **state) {
    term_store_t *ts = *state;
    term_t a = cnst(ts, "a"), b = cnst(ts, "b");
    sym_t f = intern(ts, "f");
    term_t args[2] = {a, b};
    assert_int_equal(term_find(ts, f, args, 2), TERM_NONE);
    term_t fab = term_fun(ts, f, args, 2);
    assert_int_equal(term_find(ts, f, args, 2), fab);
    assert_int_equal(term_find(ts, intern(ts, "a"), NULL, 0), a);
    assert_int_equal(term_find(ts, intern(ts, "zzz"), NULL, 0), TERM_NONE);
    /* instance lookup without creation */
    term_t pat = fun2(ts, "f", term_var(ts, 0), term_var(ts, 1));
    term_t map[2] = {a, b};
    assert_int_equal(term_find_subst(ts, pat, map), fab);
    term_t map2[2] = {b, a};
    size_t count = term_count(ts);
    assert_int_equal(term_find_subst(ts, pat, map2), TERM_NONE);
    assert_int_equal(term_count(ts), count);
    assert_int_equal(term_find_subst(ts, a, map), a);
}

static void test_print(void **state) {
    term_store_t *ts = *state;
    term_t a = cnst(ts, "A"), one = cnst(ts, "1");
    assert_string_equal(show(ts, a), "a");
    assert_string_equal(show(ts, one), "1");
    term_t t = fun2(ts, "Cell", one, fun1(ts, "g", term_var(ts, 2)));
    assert_string_equal(show(ts, t), "(cell 1 (g ?v2))");
    assert_string_equal(show(ts, fun2(ts, "f", a, fun2(ts, "g", one, a))), "(f a (g 1 a))");
    assert_string_equal(show(ts, term_fun(ts, intern(ts, "Empty"), NULL, 0)), "empty");
    /* term_print appends */
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, "x=");
    term_print(ts, fun1(ts, "h", a), &sb);
    assert_string_equal(sb_str(&sb), "x=(h a)");
    sb_fini(&sb);
}

/* The same terms made in opposite orders in two stores (so with other ids): term_sort
 * puts them in the same order, by name, arity, then arguments. */
static void test_order(void **state) {
    (void)state;
    static const char *const want[] = {"1",     "a",       "b",       "(f a)",
                                       "(f b)", "(g 1 a)", "(g 1 b)", "(g a 1)"};
    enum { N = sizeof want / sizeof *want };
    term_store_t *st[2] = {term_store_new(), term_store_new()};
    term_t t[2][N];
    for (int k = 0; k < 2; k++) {
        term_store_t *ts = st[k];
        if (k) { /* the second store interns the names backwards */
            intern(ts, "g"), intern(ts, "f"), intern(ts, "b"), intern(ts, "a");
        }
        term_t one = cnst(ts, "1"), a = cnst(ts, "a"), b = cnst(ts, "b");
        term_t made[N] = {fun2(ts, "g", a, one), b,   fun1(ts, "f", b), fun2(ts, "g", one, b), a,
                          fun2(ts, "g", one, a), one, fun1(ts, "f", a)};
        if (k)
            for (int i = 0; i < N; i++)
                t[k][i] = made[N - 1 - i];
        else
            memcpy(t[k], made, sizeof made);
        term_sort(ts, t[k], N);
        for (int i = 0; i < N; i++)
            assert_string_equal(show(ts, t[k][i]), want[i]);
        assert_true(term_order(ts, t[k][0], t[k][1]) < 0);
        assert_true(term_order(ts, t[k][7], t[k][6]) > 0);
        assert_int_equal(term_order(ts, t[k][3], t[k][3]), 0);
    }
    term_store_free(st[0]);
    term_store_free(st[1]);
}

static void test_var_bound(void **state) {
    term_store_t *ts = *state;
    term_t a = cnst(ts, "a");
    assert_int_equal(term_var_bound(ts, a), 0);
    assert_int_equal(term_var_bound(ts, term_var(ts, 0)), 1);
    assert_int_equal(
        term_var_bound(ts, fun2(ts, "f", term_var(ts, 4), fun1(ts, "g", term_var(ts, 7)))), 8);
    assert_int_equal(term_var_bound(ts, fun2(ts, "f", a, a)), 0);
}

static void test_subst(void **state) {
    term_store_t *ts = *state;
    term_t a = cnst(ts, "a"), b = cnst(ts, "b");
    term_t v0 = term_var(ts, 0), v1 = term_var(ts, 1);
    term_t t = fun2(ts, "f", v0, fun1(ts, "g", v1));
    term_t map[2] = {a, TERM_NONE};
    term_t part = term_subst(ts, t, map);
    assert_string_equal(show(ts, part), "(f a (g ?v1))");
    assert_false(term_is_ground(ts, part));
    map[1] = b;
    term_t full = term_subst(ts, t, map);
    assert_string_equal(show(ts, full), "(f a (g b))");
    assert_true(term_is_ground(ts, full));
    assert_int_equal(full, fun2(ts, "f", a, fun1(ts, "g", b)));
    /* a variable mapped to a term containing a variable */
    term_t map3[2] = {fun1(ts, "h", v1), v0};
    assert_string_equal(show(ts, term_subst(ts, t, map3)), "(f (h ?v1) (g ?v0))");
    /* ground terms are returned unchanged */
    assert_int_equal(term_subst(ts, full, map), full);
    /* shifting renames apart */
    assert_string_equal(show(ts, term_shift_vars(ts, t, 5)), "(f ?v5 (g ?v6))");
    assert_int_equal(term_shift_vars(ts, t, 0), t);
    assert_int_equal(term_shift_vars(ts, a, 3), a);
}

static void test_many_terms(void **state) {
    term_store_t *ts = *state;
    term_t prev = cnst(ts, "z");
    term_t ids[5000];
    for (int i = 0; i < 5000; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i % 50);
        prev = ids[i] = fun2(ts, "s", cnst(ts, name), prev);
    }
    /* rebuilding the chain yields the same ids, and no new nodes */
    size_t count = term_count(ts);
    prev = cnst(ts, "z");
    for (int i = 0; i < 5000; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i % 50);
        prev = fun2(ts, "s", cnst(ts, name), prev);
        assert_int_equal(prev, ids[i]);
    }
    assert_int_equal(term_count(ts), count);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_keywords_fixed_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_case_folding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_symbols, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hash_consing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_accessors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_print, setup, teardown),
        cmocka_unit_test(test_order),
        cmocka_unit_test_setup_teardown(test_var_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subst, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_terms, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
