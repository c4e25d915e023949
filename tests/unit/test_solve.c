/* Unit tests for regress/solve: the exact solver (reachable states, minimax values,
 * forced-win distances, the turn-taking sets W_i) on a hand-made game with known answers
 * and on project games with known state counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/rng.h"
#include "engine/engine.h"
#include "gdl/validate.h"
#include "load.h"
#include "regress/regress.h"
#include "terms.h"
#include "truth/solve.h"

/* Take-away with 3 stones, take 1 or 2, taking the last stone wins: the mover at 3
 * loses, at 1 and 2 wins at once. */
static const char *const take3 =
    "(role a) (role b)\n"
    "(init (stones 3)) (init (control a))\n"
    "(minus 3 1 2) (minus 3 2 1) (minus 2 1 1) (minus 2 2 0) (minus 1 1 0)\n"
    "(<= (legal ?r (take ?n)) (true (control ?r)) (true (stones ?s)) (minus ?s ?n ?t))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (next (stones ?t)) (does ?r (take ?n)) (true (stones ?s)) (minus ?s ?n ?t))\n"
    "(<= (next (control b)) (true (control a)))\n"
    "(<= (next (control a)) (true (control b)))\n"
    "(<= terminal (true (stones 0)))\n"
    "(<= (goal ?r 100) (role ?r) (not (true (control ?r))) (true (stones 0)))\n"
    "(<= (goal ?r 0) (true (control ?r)) (true (stones 0)))\n";

static void test_take3(void **state) {
    (void)state;
    game_t *g = load_text(take3);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    char err[200];
    solve_t *s = solve_new(r, 100, err, sizeof err);
    assert_non_null(s);
    /* by hand: (3, a to move), (2, b), (1, b), (1, a), (0, a), (0, b) */
    assert_int_equal(solve_count(s), 6);
    term_t noop[2] = {term_const(g->ts, SYM_NOOP), term_const(g->ts, SYM_NOOP)};
    solve_rounds(s, noop);
    assert_false(solve_cyclic(s));
    assert_int_equal(solve_value(s, 0, 0), 0); /* a moves at 3 and loses */
    assert_int_equal(solve_value(s, 0, 1), 100);
    assert_int_equal(solve_win_in(s, 0, 1), 2); /* b wins in two rounds */
    assert_int_equal(solve_win_in(s, 0, 0), SOLVE_NONE);
    /* W_2 of b holds at the start (a moves, every move lets b win at once) */
    assert_true((solve_wmask(s, 0, 1) >> 2) & 1);
    assert_false((solve_wmask(s, 0, 1) >> 1) & 1);
    solve_free(s);
    engine_free(r);
    game_free(g);
}

static void test_limit(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    char err[200];
    assert_null(solve_new(r, 1000, err, sizeof err));
    assert_non_null(strstr(err, "more than 1000"));
    engine_free(r);
    game_free(g);
}

static void test_tictactoe(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    char err[200];
    solve_t *s = solve_new(r, 100000, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(solve_count(s), 5478); /* the known number of tic-tac-toe positions */
    shape_t sh;
    regress_shape(r, 16, 1, 0, &sh);
    assert_true(sh.supported);
    solve_rounds(s, sh.noop);
    assert_int_equal(solve_value(s, 0, 0), 50); /* a draw */
    assert_int_equal(solve_value(s, 0, 1), 50);
    assert_int_equal(solve_win_in(s, 0, 0), SOLVE_NONE);
    uint32_t terminal = 0, xwins = 0;
    for (uint32_t i = 0; i < solve_count(s); i++) {
        terminal += solve_terminal(s, i);
        xwins += solve_terminal(s, i) && solve_goal(s, i, 0) == 100;
    }
    assert_int_equal(terminal, 958);
    assert_int_equal(xwins, 626);
    solve_free(s);
    engine_free(r);
    game_free(g);
}

static void test_nim(void **state) {
    (void)state;
    game_t *g = load_file("nim.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    char err[200];
    solve_t *s = solve_new(r, 100000, err, sizeof err);
    assert_non_null(s);
    shape_t sh;
    regress_shape(r, 16, 1, 0, &sh);
    solve_rounds(s, sh.noop);
    /* nim-sum 1^2^3^5 = 5 != 0: the first player wins */
    assert_int_equal(solve_value(s, 0, 0), 100);
    assert_int_equal(solve_value(s, 0, 1), 0);
    assert_true(solve_win_in(s, 0, 0) != SOLVE_NONE);
    /* every state of nim: the player to move wins iff the nim-sum is not zero */
    uint32_t checked = 0;
    for (uint32_t i = 0; i < solve_count(s); i++) {
        const state_t *st = solve_state(s, i);
        int sum = 0, mover = -1;
        for (uint32_t k = 0; k < st->n; k++) {
            term_t f = st->facts[k];
            const char *fn = term_sym_name(g->ts, term_sym(g->ts, f));
            if (!strcmp(fn, "heap"))
                sum ^= atoi(term_sym_name(g->ts, term_sym(g->ts, term_arg(g->ts, f, 1))));
            if (!strcmp(fn, "control")) mover = term_arg(g->ts, f, 0) == g->roles[0] ? 0 : 1;
        }
        if (solve_terminal(s, i) || mover < 0) continue;
        assert_int_equal(solve_value(s, i, (uint32_t)mover), sum ? 100 : 0);
        checked++;
    }
    assert_true(checked > 100);
    solve_free(s);
    engine_free(r);
    game_free(g);
}

/* Solves g on the interpreter and on `kind`, and checks that both give the same graph:
 * states (as terms) by id, terminal flags, goals, legal moves, successors, values,
 * forced-win rounds and W_i masks. Returns the number of states. */
static uint32_t same_solve(game_t *g, engine_kind_t kind, const state_t *root) {
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    shape_t sh;
    regress_shape(r, 16, 1, 0, &sh);
    engine_t *e[2] = {engine_new(g, ENGINE_INTERP, NULL), engine_new(g, kind, stderr)};
    if (kind != ENGINE_INTERP) assert_int_equal(engine_kind(e[1]), kind);
    solve_t *s[2];
    char err[200];
    for (int k = 0; k < 2; k++) {
        s[k] = root ? solve_new_from(e[k], root, 1000000, err, sizeof err)
                    : solve_new(e[k], 1000000, err, sizeof err);
        assert_non_null(s[k]);
        solve_rounds(s[k], sh.supported ? sh.noop : NULL);
    }
    uint32_t n = solve_count(s[0]), nr = g->n_roles;
    assert_int_equal(solve_count(s[1]), n);
    assert_int_equal(solve_cyclic(s[1]), solve_cyclic(s[0]));
    for (uint32_t id = 0; id < n; id++) {
        assert_true(state_equal(solve_state(s[0], id), solve_state(s[1], id)));
        assert_int_equal(solve_terminal(s[0], id), solve_terminal(s[1], id));
        const uint32_t *a, *b;
        uint32_t na = solve_successors(s[0], id, &a);
        assert_int_equal(solve_successors(s[1], id, &b), na);
        assert_memory_equal(a, b, na * sizeof *a);
        for (uint32_t role = 0; role < nr; role++) {
            const term_t *ma, *mb;
            uint32_t nm = solve_legal(s[0], id, role, &ma);
            assert_int_equal(solve_legal(s[1], id, role, &mb), nm);
            assert_memory_equal(ma, mb, nm * sizeof *ma);
            assert_int_equal(solve_goal(s[0], id, role), solve_goal(s[1], id, role));
            assert_int_equal(solve_value(s[0], id, role), solve_value(s[1], id, role));
            assert_int_equal(solve_win_in(s[0], id, role), solve_win_in(s[1], id, role));
            assert_true(solve_wmask(s[0], id, role) == solve_wmask(s[1], id, role));
        }
    }
    for (int k = 0; k < 2; k++) {
        solve_free(s[k]);
        engine_free(e[k]);
    }
    engine_free(r);
    return n;
}

/* The solver on the ground and compiled engines gives what it gives on the interpreter
 * (whose legal moves come in another order: the solver sorts them). */
#define PLY 26
static void test_engines_agree(void **state) {
    (void)state;
    static const char *const games[] = {"tictactoe.kif", "nim.kif", "simultaneous.kif"};
    engine_kind_t kinds[] = {ENGINE_GROUND, ENGINE_COMPILED};
    for (size_t i = 0; i < sizeof games / sizeof *games; i++) {
        game_t *g = load_file(games[i]);
        for (int k = 0; k < 2; k++)
            assert_true(same_solve(g, kinds[k], NULL) > 10);
        game_free(g);
    }
    game_t *g = load_text(take3);
    assert_int_equal(same_solve(g, ENGINE_GROUND, NULL), 6);
    game_free(g);
    /* from a position of connect four, where the whole game is too large */
    g = load_file("connect4.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    state_t st;
    state_init(&st);
    splitmix_t rng = {3};
    while (terms_random_walk(r, &st, PLY, &rng) < PLY || terms_terminal(r, &st))
        ; /* a random match still running at ply PLY */
    assert_true(same_solve(g, ENGINE_COMPILED, &st) > 100);
    state_fini(&st);
    engine_free(r);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take3),         cmocka_unit_test(test_limit),
        cmocka_unit_test(test_tictactoe),     cmocka_unit_test(test_nim),
        cmocka_unit_test(test_engines_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
