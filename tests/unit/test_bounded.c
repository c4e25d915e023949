/* The bounded exact search (truth/bounded.h) against the exact solver: on every
 * reachable state of tic-tac-toe and nim, for both roles and i up to 6, "is the state in
 * W_i" has the same answer; a node limit makes it give up instead of answering; and
 * verify_bounded counts a formula's false positives and misses as the solver does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "load.h"
#include "regress/regress.h"
#include "regress/verify.h"
#include "sequences.h"
#include "terms.h"
#include "truth/bounded.h"
#include "truth/solve.h"

#define MAX_I 6

static void same_as_solver(const char *file) {
    game_t *g = load_file(file);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_t *rg = run_sequences(r, 1);
    const term_t *noop = regress_shape_of(rg)->noop;
    char err[200];
    solve_t *s = solve_new(r, 1000000, err, sizeof err);
    assert_non_null(s);
    solve_rounds(s, noop);
    bounded_t *b = bounded_new(r, noop);
    uint32_t in = 0;
    for (uint32_t id = 0; id < solve_count(s); id++)
        for (uint32_t role = 0; role < 2; role++)
            for (uint32_t i = 0; i <= MAX_I; i++) {
                int want = (int)((solve_wmask(s, id, role) >> i) & 1);
                int got = bounded_in_w(b, solve_state(s, id), role, i, 0, 0);
                if (got != want)
                    fprintf(stderr, "%s state %u role %u i %u: bounded %d, solver %d\n", file, id,
                            role, i, got, want);
                assert_int_equal(got, want);
                in += want;
            }
    assert_true(in > 0); /* the comparison saw wins, not only empty sets */
    bounded_free(b);
    solve_free(s);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

static void test_tictactoe(void **state) {
    (void)state;
    same_as_solver("tictactoe.kif");
}

static void test_nim(void **state) {
    (void)state;
    same_as_solver("nim.kif");
}

/* From the initial state of tic-tac-toe, W_5 needs thousands of states: a limit of 10
 * gives up (and remembers nothing wrong: without the limit the answer is the solver's). */
static void test_node_limit(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_t *rg = run_sequences(r, 1);
    bounded_t *b = bounded_new(r, regress_shape_of(rg)->noop);
    state_t s;
    state_init(&s);
    terms_initial(r, &s);
    assert_int_equal(bounded_in_w(b, &s, 0, 5, 10, 0), BOUNDED_UNKNOWN);
    assert_true(bounded_nodes(b) <= 11);
    assert_int_equal(bounded_in_w(b, &s, 0, 5, 0, 0), 0); /* no forced win in 5 plies */
    state_fini(&s);
    bounded_free(b);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

/* verify_bounded on α_1 of tic-tac-toe over all reachable states: no false positive, no
 * miss; and a formula made wrong on purpose (α_0 claimed as α_1) has false positives. */
static void test_check_formula(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_t *rg = run_sequences(r, 1);
    char err[200];
    solve_t *s = solve_new(r, 1000000, err, sizeof err);
    assert_non_null(s);
    uint32_t n = solve_count(s);
    state_t *states = xmalloc(n * sizeof *states);
    for (uint32_t id = 0; id < n; id++) {
        state_init(&states[id]);
        state_copy(&states[id], solve_state(s, id));
    }
    bounded_t *b = bounded_new(r, regress_shape_of(rg)->noop);
    verify_bounded_opts_t o = {.misses = true};
    verify_bounded_row_t row;
    match_t *m = match_new(g->ts, regress_step(rg, 0, 1)->f);
    verify_bounded(b, m, states, n, 0, 1, &o, &row);
    match_free(m);
    assert_int_equal(row.states, n);
    assert_true(row.hits > 0);
    assert_int_equal(row.false_pos, 0);
    assert_int_equal(row.misses, 0);
    assert_int_equal(row.undecided, 0);
    m = match_new(g->ts, regress_step(rg, 0, 0)->f); /* terminal wins are not in W_1 */
    verify_bounded(b, m, states, n, 0, 1, &o, &row);
    match_free(m);
    assert_true(row.false_pos > 0);
    assert_int_equal(row.false_pos, row.hits);
    for (uint32_t id = 0; id < n; id++)
        state_fini(&states[id]);
    free(states);
    bounded_free(b);
    solve_free(s);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tictactoe),
        cmocka_unit_test(test_nim),
        cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_check_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
