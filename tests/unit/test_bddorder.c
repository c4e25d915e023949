/* Unit tests for regress/bddorder (a family of fluents whose value selects another
 * family's cells, read off the rules) and the variable order bddnet makes of it: a
 * counter that picks which cell a rule reads goes above the cells, whatever the names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "engine/fluents.h"
#include "load.h"
#include "regress/bddorder.h"
#include "regress/bddsearch.h"

/* One player turns three lamps on, one at a time: a counter (zpc N) goes round the lamps
 * (cell N V), and the lamp it points at may be switched on. By name the counter sorts
 * after the lamps. SELECT is the rule that reads the lamp the counter points at. */
#define LAMPS(SELECT)                                                                              \
    "(role p)\n"                                                                                   \
    "(init (zpc 1)) (init (cell 1 off)) (init (cell 2 off)) (init (cell 3 off))\n"                 \
    "(succ 1 2) (succ 2 3) (succ 3 1)\n"                                                           \
    "(<= (legal p wait) (true (zpc ?n)))\n" SELECT                                                 \
    "(<= (changed ?n) (does p on) (true (zpc ?n)))\n"                                              \
    "(<= (next (zpc ?m)) (true (zpc ?n)) (succ ?n ?m))\n"                                          \
    "(<= (next (cell ?n on)) (changed ?n))\n"                                                      \
    "(<= (next (cell ?n ?v)) (true (cell ?n ?v)) (not (changed ?n)))\n"                            \
    "(<= (lit ?n) (true (cell ?n on)))\n"                                                          \
    "(<= terminal (lit 1) (lit 2) (lit 3))\n"                                                      \
    "(<= (goal p 100) terminal)\n"                                                                 \
    "(<= (goal p 0) (not terminal))\n"

/* The counter joined with the lamp's number in one body. */
static const char *const lamps_direct =
    LAMPS("(<= (legal p on) (true (zpc ?n)) (true (cell ?n off)))\n");

/* The same through a relation: (dark ?n) reads the lamp. */
static const char *const lamps_relation = LAMPS("(<= (dark ?n) (true (cell ?n off)))\n"
                                                "(<= (legal p on) (true (zpc ?n)) (dark ?n))\n");

/* Tic-tac-toe's kind of join: whose turn it is joined with a cell's value, not with the
 * cell's coordinates: no selection. */
static const char *const marks =
    "(role x) (role o)\n"
    "(init (control x)) (init (cell 1 1 b)) (init (cell 1 2 b))\n"
    "(<= (legal ?p (mark ?i ?j)) (true (control ?p)) (true (cell ?i ?j b)))\n"
    "(<= (owned ?p) (true (control ?p)) (true (cell ?i ?j ?p)))\n"
    "(<= (legal ?p noop) (role ?p) (not (true (control ?p))))\n"
    "(<= (next (cell ?i ?j ?p)) (does ?p (mark ?i ?j)))\n"
    "(<= (next (control o)) (true (control x)))\n"
    "(<= (next (control x)) (true (control o)))\n"
    "(<= terminal (owned x))\n"
    "(<= (goal ?p 50) (role ?p))\n";

static bool has_pair(const game_t *g, const bddsel_t *sel, uint32_t n, const char *above,
                     uint32_t a_arity, const char *below, uint32_t b_arity) {
    for (uint32_t k = 0; k < n; k++)
        if (!strcmp(term_sym_name(g->ts, sel[k].above.sym), above) &&
            sel[k].above.arity == a_arity &&
            !strcmp(term_sym_name(g->ts, sel[k].below.sym), below) && sel[k].below.arity == b_arity)
            return true;
    return false;
}

static void check_selects(const char *text) {
    game_t *g = load_text(text);
    assert_non_null(g);
    bddsel_t *sel;
    uint32_t n = bddorder_selectors(g, &sel);
    assert_true(has_pair(g, sel, n, "zpc", 1, "cell", 2));
    assert_false(has_pair(g, sel, n, "cell", 2, "zpc", 1));
    free(sel);
    game_free(g);
}

static void test_selects_direct(void **state) {
    (void)state;
    check_selects(lamps_direct);
}

static void test_selects_through_relation(void **state) {
    (void)state;
    check_selects(lamps_relation);
}

static void test_value_join_selects_nothing(void **state) {
    (void)state;
    game_t *g = load_text(marks);
    assert_non_null(g);
    bddsel_t *sel;
    assert_int_equal(bddorder_selectors(g, &sel), 0);
    assert_null(sel);
    game_free(g);
}

/* The order of families: a selector just above the first family it selects (transitively),
 * the rest by name; a cycle in the order by name. */
static void test_place(void **state) {
    (void)state;
    bddfam_t f[4] = {{100, 2}, {101, 2}, {102, 1}, {103, 1}}; /* cell, line, pc, step */
    uint32_t perm[4];
    bddsel_t pc_line = {f[2], f[1]};
    assert_true(bddorder_place(f, 4, &pc_line, 1, perm));
    assert_int_equal(perm[0], 0), assert_int_equal(perm[1], 2);
    assert_int_equal(perm[2], 1), assert_int_equal(perm[3], 3);
    bddsel_t chain[2] = {{f[3], f[2]}, {f[2], f[0]}}; /* step selects pc selects cell */
    assert_true(bddorder_place(f, 4, chain, 2, perm));
    assert_int_equal(perm[0], 3), assert_int_equal(perm[1], 2);
    assert_int_equal(perm[2], 0), assert_int_equal(perm[3], 1);
    bddsel_t cycle[2] = {{f[0], f[1]}, {f[1], f[0]}};
    assert_false(bddorder_place(f, 4, cycle, 2, perm));
    bddsel_t none = {f[0], {999, 1}}; /* a family the network does not have */
    assert_false(bddorder_place(f, 4, &none, 1, perm));
}

/* The first state variable of the fluents named name. */
static uint32_t first_var(engine_t *e, bddnet_t *bn, const char *name) {
    term_t *bits;
    engine_fluent_bits(e, &bits);
    const term_store_t *ts = engine_game(e)->ts;
    dd_t *d = bddnet_dd(bn);
    uint32_t found = UINT32_MAX;
    for (uint32_t v = 0; v < dd_var_count(d) && found == UINT32_MAX; v++) {
        const uint32_t *fl;
        uint32_t n = bddnet_var_fluents(bn, v, &fl);
        for (uint32_t k = 0; k < n; k++)
            if (!strcmp(term_sym_name(ts, term_sym(ts, bits[fl[k]])), name)) found = v;
    }
    free(bits);
    return found;
}

/* The counter's variables above the lamps' (below them by name: --names-order); per
 * sequence the number of steps to its fixpoint, *steps (at most 8 sequences). */
static uint32_t check_order(bool selectors, bool counter_first, uint32_t *steps) {
    game_t *g = load_text(lamps_relation);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    assert_non_null(engine_network(e));
    bdds_opts_t o;
    bdds_default_opts(&o);
    o.budget = 0, o.mode = BDDS_WITHIN, o.net.selectors = selectors;
    char err[300];
    bddsearch_t *bs = bddsearch_new(e, 0, NULL, &o, err, sizeof err);
    if (!bs) fprintf(stderr, "bddsearch_new: %s\n", err);
    assert_non_null(bs);
    bddsearch_run(bs, NULL, NULL);
    bddnet_t *bn = bddsearch_net(bs);
    uint32_t pc = first_var(e, bn, "zpc"), cell = first_var(e, bn, "cell");
    assert_int_not_equal(pc, UINT32_MAX), assert_int_not_equal(cell, UINT32_MAX);
    assert_true(counter_first ? pc < cell : cell < pc);
    uint32_t n = bddsearch_seqs(bs);
    assert_true(n > 0 && n <= 8);
    for (uint32_t k = 0; k < n; k++) {
        steps[k] = bddsearch_steps(bs, k);
        assert_true(bddsearch_step(bs, k, steps[k] - 1)->fixpoint);
    }
    bddsearch_free(bs);
    engine_free(e);
    game_free(g);
    return n;
}

/* The counter above the lamps; by names alone below; the same sets' depths either way. */
static void test_order(void **state) {
    (void)state;
    uint32_t a[8], b[8];
    uint32_t n = check_order(true, true, a);
    assert_int_equal(check_order(false, false, b), n);
    for (uint32_t k = 0; k < n; k++)
        assert_int_equal(a[k], b[k]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selects_direct),
        cmocka_unit_test(test_selects_through_relation),
        cmocka_unit_test(test_value_join_selects_nothing),
        cmocka_unit_test(test_place),
        cmocka_unit_test(test_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
