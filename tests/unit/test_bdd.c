/* Unit tests for logic/bdd (the BuDDy bridge) and logic/ddflat: every operation against
 * the truth table of small functions, quantifiers, substitution, export to the flat form,
 * bounded work (a node limit or a deadline gives DD_NONE and the manager goes on; the
 * deadline also inside one long operation, even one that makes no node), a collection inside a deep
 * recursion, and picking a satisfying assignment; unions of parts with exclusions (logic/ddunion).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "logic/bdd.h"
#include "logic/ddflat.h"
#include "logic/ddunion.h"

#define NV 6

static void assign(uint32_t m, uint8_t *v) {
    for (uint32_t k = 0; k < NV; k++)
        v[k] = m >> k & 1;
}

/* f = (x0 ∧ x1) ∨ (¬x2 ∧ x3), g = x0 ⊕ x4 (by ↔ and ¬) */
static bool f_of(const uint8_t *v) {
    return (v[0] && v[1]) || (!v[2] && v[3]);
}
static bool g_of(const uint8_t *v) {
    return v[0] != v[4];
}

static dd_ref make_f(dd_t *d) {
    dd_ref a = dd_and(d, dd_var(d, 0), dd_var(d, 1));
    dd_ref b = dd_and(d, dd_nvar(d, 2), dd_var(d, 3));
    dd_ref f = dd_or(d, a, b);
    dd_deref(d, a), dd_deref(d, b);
    return f;
}

static dd_ref make_g(dd_t *d) {
    dd_ref e = dd_biimp(d, dd_var(d, 0), dd_var(d, 4));
    dd_ref g = dd_not(d, e);
    dd_deref(d, e);
    return g;
}

static void test_operations(void **state) {
    (void)state;
    char err[200];
    dd_t *d = dd_new(NV, NULL, err, sizeof err);
    assert_non_null(d);
    assert_null(dd_new(NV, NULL, err, sizeof err)); /* one per process */
    dd_ref f = make_f(d), g = make_g(d);
    dd_ref fg = dd_and(d, f, g), f_or_g = dd_or(d, f, g), fimp = dd_imp(d, f, g);
    dd_ref ite = dd_ite(d, dd_var(d, 5), f, g);
    uint8_t v[NV];
    for (uint32_t m = 0; m < 1u << NV; m++) {
        assign(m, v);
        assert_int_equal(dd_eval(d, f, v), f_of(v));
        assert_int_equal(dd_eval(d, g, v), g_of(v));
        assert_int_equal(dd_eval(d, fg, v), f_of(v) && g_of(v));
        assert_int_equal(dd_eval(d, f_or_g, v), f_of(v) || g_of(v));
        assert_int_equal(dd_eval(d, fimp, v), !f_of(v) || g_of(v));
        assert_int_equal(dd_eval(d, ite, v), v[5] ? f_of(v) : g_of(v));
    }
    /* ∃x0 f, ∀x0 (f ∨ g), ∃x0 (f ∧ g), ∀x0 (f → g) */
    uint32_t x0 = 0;
    dd_ref cube = dd_cube(d, &x0, NULL, 1);
    dd_ref ex = dd_exists(d, f, cube), all = dd_forall(d, f_or_g, cube);
    dd_ref rp = dd_and_exists(d, f, g, cube), ra = dd_imp_forall(d, f, g, cube);
    for (uint32_t m = 0; m < 1u << NV; m++) {
        assign(m, v);
        uint8_t a[NV], b[NV];
        memcpy(a, v, NV), memcpy(b, v, NV);
        a[0] = 0, b[0] = 1;
        assert_int_equal(dd_eval(d, ex, v), f_of(a) || f_of(b));
        assert_int_equal(dd_eval(d, all, v), (f_of(a) || g_of(a)) && (f_of(b) || g_of(b)));
        assert_int_equal(dd_eval(d, rp, v), (f_of(a) && g_of(a)) || (f_of(b) && g_of(b)));
        assert_int_equal(dd_eval(d, ra, v), (!f_of(a) || g_of(a)) && (!f_of(b) || g_of(b)));
    }
    /* f with x1 := g and x3 := x5, simultaneously; f with x2 fixed to 0 */
    dd_subst_t *s = dd_subst_new(d);
    dd_subst_set(d, s, 1, g);
    dd_subst_set(d, s, 3, dd_var(d, 5));
    dd_ref sub = dd_subst(d, f, s);
    dd_subst_t *rn = dd_subst_new(d); /* x0 -> x5, x1 -> x4 in f (x4, x5 not in f) */
    dd_subst_rename(d, rn, 0, 5);
    dd_subst_rename(d, rn, 1, 4);
    dd_ref ren = dd_rename(d, f, rn);
    uint32_t x2 = 2;
    bool no = false;
    dd_ref c2 = dd_cube(d, &x2, &no, 1);
    dd_ref cof = dd_restrict(d, f, c2);
    dd_ref simp = dd_simplify(d, f, g); /* f where g holds */
    for (uint32_t m = 0; m < 1u << NV; m++) {
        assign(m, v);
        uint8_t w[NV];
        memcpy(w, v, NV);
        w[1] = g_of(v), w[3] = v[5];
        assert_int_equal(dd_eval(d, sub, v), f_of(w));
        memcpy(w, v, NV);
        w[0] = v[5], w[1] = v[4];
        assert_int_equal(dd_eval(d, ren, v), f_of(w));
        memcpy(w, v, NV);
        w[2] = 0;
        assert_int_equal(dd_eval(d, cof, v), f_of(w));
        if (g_of(v)) assert_int_equal(dd_eval(d, simp, v), f_of(v));
    }
    /* counts: f over x0..x3 has 4 + 4 - 1 = 7 models */
    uint32_t four[4] = {0, 1, 2, 3};
    dd_ref c4 = dd_cube(d, four, NULL, 4);
    assert_true(dd_count(d, f, c4) == 7.0);
    assert_true(dd_nodes(d, f) >= 4 && dd_nodes(d, DD_TRUE) == 0);
    /* export: the flat walk agrees with the manager, each variable one bit (x5: either
     * of two bits in different words) */
    uint32_t var_bit[NV] = {70, 3, 64, 0, 5, 127}, start[NV + 1] = {0, 1, 2, 3, 4, 5, 7};
    uint32_t bits[7] = {70, 3, 64, 0, 5, 127, 9};
    dd_ref roots[3] = {f, DD_FALSE, sub};
    ddflat_t flat;
    ddflat_init(&flat);
    dd_export(d, roots, 3, &flat);
    ddflat_set_vars(&flat, NV, start, bits);
    assert_int_equal(flat.n_roots, 3);
    assert_int_equal(ddflat_size(&flat, 0), dd_nodes(d, f));
    for (uint32_t m = 0; m < 1u << NV; m++) {
        assign(m, v);
        uint64_t words[2] = {0, 0};
        for (uint32_t k = 0; k < NV; k++)
            if (v[k]) words[var_bit[k] >> 6] |= 1ull << (var_bit[k] & 63);
        assert_int_equal(ddflat_eval(&flat, 0, words), f_of(v));
        assert_false(ddflat_eval(&flat, 1, words));
        assert_int_equal(ddflat_eval(&flat, 2, words), dd_eval(d, sub, v));
        if (v[5]) { /* the other bit of x5 alone */
            words[1] &= ~(1ull << 63), words[0] |= 1ull << 9;
            assert_int_equal(ddflat_eval(&flat, 2, words), dd_eval(d, sub, v));
        }
    }
    ddflat_fini(&flat);
    dd_ref all_refs[] = {f,   g,  fg, f_or_g, fimp, ite, cube, ex,
                         all, rp, ra, sub,    c2,   cof, c4,   simp};
    for (size_t k = 0; k < sizeof all_refs / sizeof *all_refs; k++)
        dd_deref(d, all_refs[k]);
    dd_subst_free(d, s);
    dd_subst_free(d, rn);
    dd_free(d);
}

/* ∧_k x_k ↔ x_{k+n}: 3n nodes when the pairs are adjacent in the order, ~2^(n+1) in the
 * natural order, where they lie n levels apart. */
static dd_ref pairs_apart(dd_t *d, uint32_t n) {
    dd_ref f = DD_TRUE;
    for (uint32_t k = 0; k < n; k++) {
        dd_ref e = dd_biimp(d, dd_var(d, k), dd_var(d, k + n));
        dd_ref t = dd_and(d, f, e);
        dd_deref(d, e), dd_deref(d, f);
        f = t;
    }
    return f;
}

static void test_limits(void **state) {
    (void)state;
    char err[200];
    dd_limits_t lim = {.max_nodes = 20000};
    dd_t *d = dd_new(60, &lim, err, sizeof err);
    assert_non_null(d);
    dd_ref small = pairs_apart(d, 8); /* ~512 nodes */
    assert_true(small >= 0);
    dd_ref big = pairs_apart(d, 20); /* ~2 million: past the limit */
    assert_int_equal(big, DD_NONE);
    assert_string_equal(dd_why(d), "node limit");
    assert_true(dd_at_node_limit(d));
    assert_false(dd_out_of_time(d));
    dd_ref again = pairs_apart(d, 8);
    assert_int_equal(again, small);
    assert_int_equal(dd_and(d, DD_NONE, small), DD_NONE);
    dd_deref(d, small), dd_deref(d, again);
    dd_free(d);

    lim = (dd_limits_t){.max_nodes = 1u << 22, .deadline = now_seconds() - 1};
    d = dd_new(60, &lim, err, sizeof err);
    assert_true(dd_deadline(d) == lim.deadline); /* the one given, to be put back */
    assert_int_equal(dd_and(d, dd_var(d, 0), dd_var(d, 1)), DD_NONE);
    assert_string_equal(dd_why(d), "deadline");
    assert_true(dd_out_of_time(d));
    assert_false(dd_at_node_limit(d));
    dd_set_deadline(d, 0);
    assert_true(dd_deadline(d) == 0);
    dd_ref x = dd_and(d, dd_var(d, 0), dd_var(d, 1));
    assert_true(x > 1);
    dd_deref(d, x);
    dd_free(d);
}

/* x_k ↔ y_k (x_k variable k, y_k variable n + k) for the k < n of one parity. */
static dd_ref pairs_of_parity(dd_t *d, uint32_t n, uint32_t parity) {
    dd_ref f = DD_TRUE;
    for (uint32_t k = parity; k < n; k += 2) {
        dd_ref e = dd_biimp(d, dd_var(d, k), dd_var(d, k + n));
        dd_ref t = dd_and(d, f, e);
        dd_deref(d, e), dd_deref(d, f);
        f = t;
    }
    return f;
}

#define CUT_PAIRS 19

/* A manager over 2 CUT_PAIRS variables with the even and the odd pairs apart (each about
 * 2^10 nodes), whose table holds start_nodes at the start: 4M hold their conjunction whole
 * (about 2^20 nodes made by one dd_and, a third of a CPU second), and 256K what it makes in
 * its first few milliseconds (no collection comes by itself before a deadline that close). */
static dd_t *pairs_table(uint32_t start_nodes, dd_ref *even, dd_ref *odd) {
    char err[200];
    dd_limits_t lim = {.max_nodes = 1u << 22, .start_nodes = start_nodes};
    dd_t *d = dd_new(2 * CUT_PAIRS, &lim, err, sizeof err);
    assert_non_null(d);
    *even = pairs_of_parity(d, CUT_PAIRS, 0), *odd = pairs_of_parity(d, CUT_PAIRS, 1);
    assert_true(dd_nodes(d, *even) < 1u << 12 && dd_nodes(d, *odd) < 1u << 12);
    return d;
}

/* The conjunction at a deadline `ahead` seconds from now (0: cut by dd_cut_next instead),
 * which must give up at the deadline whatever the delays: it needs far more. On a fresh
 * manager every time: a cut leaves BuDDy's free list empty, and the next operation on the
 * manager starts with a collection (milliseconds). Returns the nodes it made; *inside:
 * whether it was cut inside. */
static uint64_t cut_pairs(double ahead, bool *inside) {
    dd_ref even, odd;
    dd_t *d = pairs_table(1u << 18, &even, &odd);
    uint64_t cuts = dd_cuts_inside(d), before = dd_produced(d);
    if (ahead > 0)
        dd_set_deadline(d, now_seconds() + ahead);
    else
        dd_cut_next(d);
    assert_int_equal(dd_and(d, even, odd), DD_NONE);
    assert_string_equal(dd_why(d), "deadline");
    uint64_t work = dd_produced(d) - before;
    *inside = dd_cuts_inside(d) == cuts + 1;
    if (!*inside) assert_int_equal(work, 0); /* refused before it started */
    dd_deref(d, even), dd_deref(d, odd);
    dd_free(d);
    return work;
}

/* The deadline inside one operation that never collects garbage (pairs_table). No verdict
 * depends on the machine's speed or load (a loaded machine only makes an operation do
 * less before its deadline):
 * - dd_cut_next trips the timer's wire without a clock: the conjunction is cut inside;
 * - the timer, at a deadline a millisecond ahead: every try gives up, either before it
 *   starts (the deadline passed first, nothing made) or cut inside, and the tries go on until
 *   one is cut after making nodes; what that one made is at most a millisecond or two of
 *   work, under a quarter of the whole;
 * - deadlines 1 to 10 microseconds ahead, where the timer's signal came before the operation
 *   was ready to be cut and was dropped (on a table that held it whole, the operation ran to
 *   its end, 1.5 s past its deadline; a loaded machine did the same at 2 ms): every one is
 *   cut inside or refused before it starts, not left to the first collection.
 * The conjunction made then without a deadline is right. */
static void test_deadline_inside(void **state) {
    (void)state;
    bool inside;
    assert_int_equal(cut_pairs(0, &inside), 0);
    assert_true(inside);
    uint64_t work = 0;
    /* a try makes nothing only when its thread is preempted for a millisecond within the
     * microseconds between the clock read and the operation's start */
    for (uint32_t tries = 0; work == 0; tries++) {
        assert_true(tries < 1000);
        work = cut_pairs(1e-3, &inside);
    }
    assert_true(inside);
    for (uint32_t us = 1; us <= 10; us++)
        cut_pairs(us * 1e-6, &inside);
    dd_ref even, odd;
    dd_t *d = pairs_table(1u << 22, &even, &odd);
    uint64_t before = dd_produced(d);
    dd_ref g = dd_and(d, even, odd);
    assert_true(g > 1);
    uint64_t whole = dd_produced(d) - before;
    assert_true(whole > 1u << CUT_PAIRS);
    assert_true(work < whole / 4);
    uint8_t v[2 * CUT_PAIRS] = {0};
    for (uint32_t k = 0; k < CUT_PAIRS; k++)
        v[k] = v[CUT_PAIRS + k] = k % 3 == 0;
    assert_true(dd_eval(d, g, v));
    v[CUT_PAIRS + 1] ^= 1;
    assert_false(dd_eval(d, g, v));
    dd_deref(d, even), dd_deref(d, odd), dd_deref(d, g);
    dd_free(d);
}

/* The cut of an operation that makes no node (every result already in the node table),
 * which a timer's emptied free list never reaches (checkers-mustjump-torus's invariants ran
 * 100 s past a 10 s budget on one): dd_cut_next trips what the timer trips, without a
 * clock. A first cut empties the caches, so that the conjunction made before recurses
 * again rather than finding its result at once; cut, it gives up with no node made, and
 * the manager goes on: the same conjunction is the same diagram, and new ones are right. */
static void test_cut_without_nodes(void **state) {
    (void)state;
    char err[200];
    const uint32_t n = 12;
    dd_t *d = dd_new(2 * n, NULL, err, sizeof err);
    assert_non_null(d);
    dd_ref even = pairs_of_parity(d, n, 0), odd = pairs_of_parity(d, n, 1);
    dd_ref g = dd_and(d, even, odd);
    assert_true(g > 1);
    dd_cut_next(d);
    assert_int_equal(dd_or(d, even, odd), DD_NONE);
    uint64_t cuts = dd_cuts_inside(d), made = dd_produced(d);
    dd_cut_next(d);
    assert_int_equal(dd_and(d, even, odd), DD_NONE);
    assert_string_equal(dd_why(d), "deadline");
    assert_int_equal(dd_cuts_inside(d), cuts + 1);
    assert_int_equal(dd_produced(d), made);
    dd_ref again = dd_and(d, even, odd);
    assert_int_equal(again, g);
    assert_int_equal(dd_produced(d), made);
    dd_ref h = dd_or(d, even, odd), x = dd_var(d, 2 * n - 1);
    dd_ref hx = dd_and(d, h, x);
    uint8_t v[24] = {0};
    for (uint32_t m = 0; m < 4096; m++) {
        for (uint32_t k = 0; k < 2 * n; k++)
            v[k] = (m * 2654435761u) >> (k % 32) & 1;
        bool ev = true, od = true;
        for (uint32_t k = 0; k < n; k++)
            *(k % 2 ? &od : &ev) &= v[k] == v[n + k];
        assert_int_equal(dd_eval(d, g, v), ev && od);
        assert_int_equal(dd_eval(d, hx, v), (ev || od) && v[2 * n - 1]);
    }
    dd_deref(d, even), dd_deref(d, odd), dd_deref(d, g), dd_deref(d, again);
    dd_deref(d, h), dd_deref(d, hx);
    dd_free(d);
}

#define DEEP_VARS 3000

/* The cube of the variables k < n of one parity, all true. */
static dd_ref cube_of_parity(dd_t *d, uint32_t n, uint32_t parity) {
    uint32_t vars[DEEP_VARS], m = 0;
    for (uint32_t k = parity; k < n; k += 2)
        vars[m++] = k;
    return dd_cube(d, vars, NULL, m);
}

/* A collection inside an operation that recurses deeper than any before it: BuDDy 2.4's
 * apply moves its reference stack's top before the recursive call whose result it stores
 * there, so a collection under that call marks slots not yet written. On memory the
 * allocator had handed out before, they hold garbage node numbers: alexChess's network
 * (3,374 variables) crashed in bdd_mark. Here the stack is likely to be given memory filled
 * with large numbers, and the conjunction of the even and the odd cube recurses through all
 * DEEP_VARS levels while a table just larger than the cubes runs full. */
static void test_collect_deep(void **state) {
    (void)state;
    char err[200];
    /* heap memory, filled and freed (blocks under malloc's mmap threshold; the guard keeps
     * them from the top, which would go back to the system; volatile: the compiler may
     * not drop allocations nothing reads) */
    enum { BLOCKS = 8, BLOCK = 100000 };
    void *volatile used[BLOCKS];
    for (int k = 0; k < BLOCKS; k++)
        memset(used[k] = malloc(BLOCK), 0x7f, BLOCK);
    void *volatile guard = malloc(16);
    for (int k = 0; k < BLOCKS; k++)
        free(used[k]);
    dd_limits_t lim = {.max_nodes = 1u << 22, .start_nodes = 3 * DEEP_VARS + 1000};
    dd_t *d = dd_new(DEEP_VARS, &lim, err, sizeof err);
    free(guard);
    assert_non_null(d);
    dd_ref even = cube_of_parity(d, DEEP_VARS, 0), odd = cube_of_parity(d, DEEP_VARS, 1);
    dd_ref all = dd_and(d, even, odd);
    assert_true(all > 1);
    assert_int_equal(dd_nodes(d, all), DEEP_VARS);
    dd_deref(d, even), dd_deref(d, odd), dd_deref(d, all);
    dd_free(d);
}

/* An operation that adds more nodes than its limit gives up (seen at a garbage collection:
 * BuDDy starts with a table of 64K nodes); the manager goes on, without the limit the same
 * diagram is made. */
static void test_op_limit(void **state) {
    (void)state;
    char err[200];
    dd_t *d = dd_new(40, NULL, err, sizeof err);
    assert_non_null(d);
    dd_set_op_nodes(d, 1000);
    dd_ref small = pairs_apart(d, 4);
    assert_true(small > 1);
    assert_int_equal(pairs_apart(d, 18), DD_NONE); /* about half a million nodes */
    assert_string_equal(dd_why(d), "operation node limit");
    assert_true(dd_at_op_limit(d));
    assert_false(dd_at_node_limit(d)); /* not the table: one operation */
    dd_set_op_nodes(d, 0);
    dd_ref big = pairs_apart(d, 18);
    assert_true(big > 1);
    assert_true(dd_nodes(d, big) > 100000);
    dd_deref(d, small), dd_deref(d, big);
    dd_free(d);
}

/* Sifting finds the interleaved order for x_k ↔ y_k when the variables start apart. */
static void test_reorder(void **state) {
    (void)state;
    char err[200];
    dd_t *d = dd_new(24, NULL, err, sizeof err);
    dd_ref f = pairs_apart(d, 12);
    uint64_t apart = dd_nodes(d, f), before, after;
    dd_reorder(d, &before, &after);
    assert_true(dd_nodes(d, f) < apart / 10);
    assert_true(after < before);
    uint32_t order[24];
    for (uint32_t k = 0; k < 12; k++)
        order[2 * k] = k, order[2 * k + 1] = k + 12;
    dd_set_order(d, order);
    assert_int_equal(dd_level_of(d, 12), 1);
    assert_int_equal(dd_nodes(d, f), 3 * 12);
    dd_deref(d, f);
    dd_free(d);
}

/* The order set on a fresh manager (no diagram yet: the variables numbered in BuDDy, no
 * swap) and the same set after a diagram was made (BuDDy's reorder): the same levels, the
 * same diagrams node for node through every call that names a variable (dd_var, dd_cube,
 * renaming, substitution, dd_eval, dd_pick, dd_export, dd_group). */
static void fresh_or_not(bool fresh, ddflat_t *out, uint32_t *levels) {
    char err[200];
    dd_t *d = dd_new(24, NULL, err, sizeof err);
    assert_non_null(d);
    dd_ref early = fresh ? DD_TRUE : dd_and(d, dd_var(d, 5), dd_var(d, 17)); /* a node */
    uint32_t order[24];
    for (uint32_t k = 0; k < 12; k++) /* x_k above y_k: k + 12 */
        order[2 * k] = k, order[2 * k + 1] = k + 12;
    dd_set_order(d, order);
    for (uint32_t v = 0; v < 24; v++)
        levels[v] = dd_level_of(d, v);
    dd_ref f = pairs_apart(d, 12); /* x_k <-> y_k for every k */
    assert_int_equal(dd_nodes(d, f), 3 * 12);
    dd_subst_t *s = dd_subst_new(d);
    for (uint32_t k = 0; k < 12; k++)
        dd_subst_rename(d, s, k + 12, (k + 1) % 12 + 12); /* y_k := y_{k+1} */
    dd_ref g = dd_rename(d, f, s);
    dd_subst_free(d, s);
    s = dd_subst_new(d);
    dd_subst_set(d, s, 0, dd_nvar(d, 12)); /* x_0 := not y_0 */
    dd_ref h = dd_subst(d, f, s);
    dd_subst_free(d, s);
    uint32_t vars[3] = {0, 13, 23};
    bool vals[3] = {true, false, true};
    dd_ref c = dd_cube(d, vars, vals, 3);
    uint8_t values[24] = {0};
    assert_true(dd_pick(d, c, values));
    assert_true(values[0] && !values[13] && values[23] && dd_eval(d, c, values));
    values[0] = 0;
    assert_false(dd_eval(d, c, values));
    for (uint32_t v = 0; v < 24; v++)
        dd_group(d, v, v); /* each variable a block (in BuDDy's numbers too) */
    dd_ref roots[4] = {f, g, h, c};
    dd_export(d, roots, 4, out);
    for (uint32_t k = 0; k < 4; k++)
        dd_deref(d, roots[k]);
    dd_deref(d, early);
    dd_free(d);
}

static void test_order_fresh(void **state) {
    (void)state;
    ddflat_t a, b;
    ddflat_init(&a), ddflat_init(&b);
    uint32_t la[24], lb[24];
    fresh_or_not(true, &a, la);
    fresh_or_not(false, &b, lb);
    for (uint32_t v = 0; v < 24; v++)
        assert_int_equal(la[v], lb[v]);
    assert_int_equal(la[12], 1);
    assert_int_equal(a.n_nodes, b.n_nodes);
    for (uint32_t k = 0; k < a.n_roots; k++)
        assert_int_equal(a.roots[k], b.roots[k]);
    for (uint32_t k = 2; k < a.n_nodes; k++) {
        assert_int_equal(a.nodes[k].var, b.nodes[k].var);
        assert_int_equal(a.nodes[k].lo, b.nodes[k].lo);
        assert_int_equal(a.nodes[k].hi, b.nodes[k].hi);
    }
    assert_int_equal(a.nodes[a.roots[3]].var, 0); /* the cube's top: x_0, ext numbers */
    ddflat_fini(&a), ddflat_fini(&b);
}

/* dd_pick: an assignment satisfying the diagram, whatever the other variables hold; none
 * for false. */
static void test_pick(void **state) {
    (void)state;
    char err[200];
    dd_t *d = dd_new(NV, NULL, err, sizeof err);
    dd_ref f = make_f(d), g = make_g(d), fg = dd_and(d, f, g), nf = dd_not(d, f);
    dd_ref both[] = {f, g, fg, nf, DD_TRUE};
    for (size_t k = 0; k < sizeof both / sizeof *both; k++)
        for (uint32_t fill = 0; fill < 2; fill++) {
            uint8_t v[NV];
            memset(v, fill, sizeof v);
            assert_true(dd_pick(d, both[k], v));
            assert_true(dd_eval(d, both[k], v));
        }
    uint8_t v[NV] = {0};
    assert_false(dd_pick(d, DD_FALSE, v));
    assert_false(dd_pick(d, DD_NONE, v));
    dd_deref(d, f), dd_deref(d, g), dd_deref(d, fg), dd_deref(d, nf);
    dd_free(d);
}

/* Exclusion lists: one list per set of diagrams (any order, repeats and false dropped), a
 * union's part less its list on every assignment, merging only parts with the same list. */
static void test_exclusions(void **state) {
    (void)state;
    char err[200];
    dd_t *d = dd_new(NV, NULL, err, sizeof err);
    ddexcl_pool_t *p = ddexcl_pool_new();
    dd_ref f = make_f(d), g = make_g(d);
    dd_ref e1[] = {dd_dup(d, f), dd_dup(d, g), dd_dup(d, f), DD_FALSE};
    dd_ref e2[] = {dd_dup(d, g), dd_dup(d, f)};
    ddexcl_t *a = ddexcl_make(d, p, e1, 4), *b = ddexcl_make(d, p, e2, 2);
    assert_ptr_equal(a, b);
    assert_int_equal(a->n, 2);
    dd_ref e3[] = {DD_FALSE};
    assert_null(ddexcl_make(d, p, e3, 1));
    dd_ref e4[] = {dd_dup(d, g)};
    ddexcl_t *c = ddexcl_make(d, p, e4, 1), *j = ddexcl_join(d, p, c, a);
    assert_ptr_equal(j, a); /* {g} ∪ {f, g} */
    ddunion_t u;
    ddunion_init(&u, 1000);
    /* x0 less (f ∨ g), then x1 less g: two parts (different lists), then x2 less g: merged */
    assert_true(ddunion_add_excl(d, &u, dd_var(d, 0), ddexcl_dup(a)));
    assert_true(ddunion_add_excl(d, &u, dd_var(d, 1), ddexcl_dup(c)));
    assert_true(ddunion_add_excl(d, &u, dd_var(d, 2), ddexcl_dup(c)));
    assert_int_equal(u.n, 2);
    assert_true(ddunion_has_excl(&u));
    for (uint32_t m = 0; m < 1u << NV; m++) {
        uint8_t v[NV];
        assign(m, v);
        bool want = (v[0] && !f_of(v) && !g_of(v)) || ((v[1] || v[2]) && !g_of(v));
        assert_int_equal(ddunion_eval(d, &u, v), want);
    }
    bool all;
    dd_ref none = ddunion_join(d, &u, 0, &all); /* parts with exclusions are left out */
    assert_int_equal(none, DD_FALSE);
    assert_false(all);
    ddunion_fini(d, &u);
    ddexcl_free(d, a), ddexcl_free(d, b), ddexcl_free(d, c), ddexcl_free(d, j);
    ddexcl_pool_free(d, p);
    dd_deref(d, f), dd_deref(d, g);
    dd_free(d);
}

int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one test by name */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operations),        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_op_limit),          cmocka_unit_test(test_reorder),
        cmocka_unit_test(test_order_fresh),       cmocka_unit_test(test_pick),
        cmocka_unit_test(test_exclusions),        cmocka_unit_test(test_deadline_inside),
        cmocka_unit_test(test_cut_without_nodes), cmocka_unit_test(test_collect_deep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
