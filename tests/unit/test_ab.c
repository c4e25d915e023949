/* Unit tests for mcts/ab: alpha-beta agrees with the exact solver (truth/solve.h) on every
 * state of small games, for every role, with each enhancement on and off; its move is
 * one the solver values as much; options, the deadline, the depth bound and the leaf hook;
 * the table changes no result at any depth, and a state it settles reads no legal moves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "engine/engine.h"
#include "load.h"
#include "mcts/ab.h"
#include "sample.h"
#include "truth/solve.h"

/* Take-away for three: 6 stones, take 1 or 2 in turn a, b, c; who takes the last stone
 * gets 100, the others 0. The paranoid value differs from a max^n reading here. */
static const char *const take3p =
    "(role a) (role b) (role c)\n"
    "(init (stones 6)) (init (control a))\n"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)\n"
    "(turn a b) (turn b c) (turn c a)\n"
    "(<= (legal ?r (take 1)) (true (control ?r)) (true (stones ?s)) (succ ?t ?s))\n"
    "(<= (legal ?r (take 2)) (true (control ?r)) (true (stones ?s)) (succ ?t ?s) (succ ?u ?t))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (next (stones ?t)) (does ?r (take 1)) (true (stones ?s)) (succ ?t ?s))\n"
    "(<= (next (stones ?u)) (does ?r (take 2)) (true (stones ?s)) (succ ?t ?s) (succ ?u ?t))\n"
    "(<= (next (control ?n)) (true (control ?r)) (turn ?r ?n))\n"
    "(<= (next (last ?r)) (does ?r (take ?n)))\n"
    "(<= terminal (true (stones 0)))\n"
    "(<= (goal ?r 100) (true (last ?r)) (true (stones 0)))\n"
    "(<= (goal ?r 0) (role ?r) (not (true (last ?r))))\n"
    "(<= (goal ?r 0) (role ?r) (not (true (stones 0))))\n";

/* The configurations every agreement test runs: all on, each off, all off. */
#define N_CONFIGS 6
/* tic-tac-toe's legal moves summed over both roles and its 4520 non-terminal states */
#define MOVES_TTT 20687
static void config(uint32_t k, ab_opts_t *o) {
    ab_default_opts(o);
    o->tt_mb = 1;
    if (k == 1) o->tt = false;
    if (k == 2) o->history = false;
    if (k == 3) o->pvs = false;
    if (k == 4) o->id = false;
    if (k == 5) o->tt = o->history = o->pvs = o->id = false;
}

/* The solver's value for `role` when it plays move m in state id: the least over the
 * others' replies (successors in mixed radix, the last role fastest). */
static int value_after(const solve_t *s, uint32_t n_roles, uint32_t id, uint32_t role, term_t m) {
    const term_t *moves;
    uint32_t nm[16], pick = UINT32_MAX;
    for (uint32_t r = 0; r < n_roles; r++) {
        nm[r] = solve_legal(s, id, r, &moves);
        if (r == role)
            for (uint32_t i = 0; i < nm[r]; i++)
                if (moves[i] == m) pick = i;
    }
    assert_true(pick != UINT32_MAX);
    const uint32_t *succ;
    uint32_t n = solve_successors(s, id, &succ);
    int worst = 1000;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t x = j;
        for (uint32_t r = n_roles; r-- > role + 1;)
            x /= nm[r];
        if (x % nm[role] != pick) continue;
        int v = solve_value(s, succ[j], role);
        if (v < worst) worst = v;
    }
    return worst;
}

/* Each of role's moves in state id searched alone (ab_search_move): its value is the
 * solver's value after it, proven; a move of another role is not one of role's. Returns
 * the number of searches. */
static uint32_t agree_moves(const solve_t *s, engine_t *e, eng_state_t *es, ab_t *a, uint32_t id,
                            uint32_t role) {
    const term_t *moves;
    uint32_t n = solve_legal(s, id, role, &moves), nr = engine_game(e)->n_roles;
    term_t *mine = xmalloc(n * sizeof *mine);
    memcpy(mine, moves, n * sizeof *mine);
    for (uint32_t i = 0; i < n; i++) {
        ab_result_t res;
        ab_search_move(a, es, mine[i], 0, 0, &res);
        assert_int_equal(res.move, mine[i]);
        assert_true(res.proven);
        if (res.value != value_after(s, nr, id, role, mine[i]))
            fail_msg("state %u role %u move %u: alpha-beta %d alone, solver %d", id, role, i,
                     res.value, value_after(s, nr, id, role, mine[i]));
    }
    free(mine);
    return n;
}

/* Every state of g, every role, every configuration (one search object per role and
 * configuration, kept across states as a player keeps it across turns; plus a fresh one
 * with everything on): the value is the solver's and proven, the move keeps the value.
 * Every `stride`-th state only. Returns the number of searches. */
static uint32_t agree(game_t *g, engine_kind_t kind, uint32_t stride) {
    engine_t *e = engine_new(g, kind, stderr);
    char err[200];
    solve_t *s = solve_new(e, 2000000, err, sizeof err);
    assert_non_null(s);
    solve_rounds(s, NULL);
    assert_false(solve_cyclic(s));
    uint32_t nr = g->n_roles, searches = 0;
    ab_t **ab = xcalloc((size_t)nr * N_CONFIGS, sizeof *ab);
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t k = 0; k < N_CONFIGS; k++) {
            ab_opts_t o;
            config(k, &o);
            ab[r * N_CONFIGS + k] = ab_new(e, r, &o, 7);
        }
    eng_state_t *es = engine_state_new(e);
    ab_t **fresh = xcalloc(nr, sizeof *fresh);
    for (uint32_t r = 0; r < nr; r++) {
        ab_opts_t o;
        config(0, &o);
        fresh[r] = ab_new(e, r, &o, 7);
    }
    /* sampled (the sanitizers): past the first eighth of the states in the solver's order
     * (from the root outwards), whose searches to the end cost the most */
    uint32_t from = test_sample_every() > 1 ? solve_count(s) / 8 : 0;
    for (uint32_t id = from; id < solve_count(s); id += stride) {
        engine_state_set(e, es, solve_state(s, id));
        for (uint32_t r = 0; r < nr; r++) {
            int want = solve_value(s, id, r);
            /* and every 16th state with a cleared table and history */
            for (uint32_t k = 0; k <= N_CONFIGS - (id / stride % 16 != 0); k++) {
                ab_t *a = k < N_CONFIGS ? ab[r * N_CONFIGS + k] : fresh[r];
                if (k == N_CONFIGS) ab_clear(a);
                ab_result_t res;
                ab_search(a, es, 0, NULL, NULL, &res);
                searches++;
                if (res.value != want)
                    fail_msg("state %u role %u config %u: alpha-beta %d, solver %d", id, r, k,
                             res.value, want);
                assert_true(res.proven);
                if (solve_terminal(s, id)) {
                    assert_int_equal(res.move, TERM_NONE);
                    continue;
                }
                assert_true(engine_is_legal(e, es, r, res.move));
                if (value_after(s, nr, id, r, res.move) != want)
                    fail_msg("state %u role %u config %u: the move loses value", id, r, k);
            }
            if (!solve_terminal(s, id)) searches += agree_moves(s, e, es, fresh[r], id, r);
        }
    }
    engine_state_free(es);
    for (uint32_t i = 0; i < nr * N_CONFIGS; i++)
        ab_free(ab[i]);
    free(ab);
    for (uint32_t r = 0; r < nr; r++)
        ab_free(fresh[r]);
    free(fresh);
    solve_free(s);
    engine_free(e);
    return searches;
}

static void test_tictactoe(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    uint32_t n = agree(g, ENGINE_GROUND, test_sample_every());
    /* 2 roles x 6 configurations per state, a fresh search every 16th state, and each
     * legal move alone in every non-terminal state */
    if (test_sample_every() == 1) assert_int_equal(n, 5478 * 2 * N_CONFIGS + 343 * 2 + MOVES_TTT);
    assert_true(n >= (5478 - 5478 / 8) / test_sample_every() * 2 * N_CONFIGS);
    /* the interpreter's states and move order: a sample */
    assert_true(agree(g, ENGINE_INTERP, 97) > 100);
    game_free(g);
}

static void test_small_games(void **state) {
    (void)state;
    /* nim; rock-paper-scissors (simultaneous: the role commits first, as the solver
     * says); lights out (one role); take-away for three (paranoid) */
    static const char *const files[] = {"nim.kif", "simultaneous.kif", "lightsout.kif"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        game_t *g = load_file(files[i]);
        assert_true(agree(g, ENGINE_GROUND, 1) > 50);
        game_free(g);
    }
    game_t *g = load_text(take3p);
    assert_non_null(g);
    assert_true(agree(g, ENGINE_GROUND, 1) > 50);
    assert_true(agree(g, ENGINE_INTERP, 1) > 50);
    game_free(g);
}

static void test_connect3(void **state) {
    (void)state;
    game_t *g = load_file("connect3_4x4.kif");
    assert_true(agree(g, ENGINE_GROUND, 41 * test_sample_every()) >
                700 / test_sample_every() * 2 * N_CONFIGS);
    game_free(g);
}

static void test_options(void **state) {
    (void)state;
    ab_opts_t o;
    ab_default_opts(&o);
    strbuf_t err;
    sb_init(&err);
    assert_true(ab_opts_parse(&o, "tt=off:history=off:pvs=off:id=off:depth=9:eval=goal", NULL, NULL,
                              NULL, &err));
    assert_false(o.tt || o.history || o.pvs || o.id);
    assert_int_equal(o.max_depth, 9);
    assert_int_equal(o.eval, AB_EVAL_GOAL);
    assert_true(ab_opts_parse(&o, "playouts=0:ttmb=4:cap=50", NULL, NULL, NULL, &err));
    assert_int_equal(o.playouts, 0);
    /* no proof hook here: proofdepth refused, and the error says where it is */
    assert_false(ab_opts_parse(&o, "playouts=0:proofdepth=2", NULL, NULL, NULL, &err));
    assert_non_null(strstr(sb_str(&err), "no proof hook"));
    assert_non_null(strstr(sb_str(&err), "abproof=N"));
    assert_int_equal(o.proof_depth, 0);
    assert_false(ab_opts_parse(&o, "tt=maybe", NULL, NULL, NULL, &err));
    assert_false(ab_opts_parse(&o, "depth=-1", NULL, NULL, NULL, &err));
    assert_false(ab_opts_parse(&o, "depth=1000", NULL, NULL, NULL, &err));
    assert_false(ab_opts_parse(&o, "bogus=1", NULL, NULL, NULL, &err));
    assert_false(ab_opts_parse(&o, "tt", NULL, NULL, NULL, &err));
    assert_false(ab_opts_parse(&o, "tt=on::pvs=on", NULL, NULL, NULL, &err));
    assert_non_null(strstr(sb_str(&err), "bad option"));
    sb_fini(&err);
}

static int constant_eval(void *ctx, engine_t *e, const eng_state_t *s, uint32_t role) {
    (void)e, (void)s, (void)role;
    ++*(int *)ctx;
    return 37;
}

/* A depth bound leaves the value unproven and calls the leaf hook; a deadline in the past
 * still gives a legal move at once. */
static void test_bounds(void **state) {
    (void)state;
    game_t *g = load_file("connect4.kif");
    engine_t *e = engine_new(g, ENGINE_GROUND, stderr);
    eng_state_t *s = engine_state_new(e);
    engine_initial(e, s);
    ab_opts_t o;
    ab_default_opts(&o);
    o.max_depth = 2;
    ab_t *a = ab_new(e, 0, &o, 1);
    int calls = 0;
    ab_set_eval(a, constant_eval, &calls);
    ab_result_t r;
    ab_search(a, s, 0, NULL, NULL, &r);
    assert_false(r.proven);
    assert_int_equal(r.depth, 2);
    assert_int_equal(r.value, 37);
    assert_true(calls > 7 && (uint64_t)calls == r.leaves);
    assert_true(engine_is_legal(e, s, 0, r.move));
    ab_free(a);
    ab_default_opts(&o);
    a = ab_new(e, 0, &o, 1);
    double t0 = now_seconds();
    ab_search(a, s, t0 - 1, NULL, NULL, &r);
    assert_true(r.timed_out);
    assert_true(engine_is_legal(e, s, 0, r.move));
    /* connect four is not solved in 50 ms: the search stops at the deadline */
    ab_search(a, s, now_seconds() + 0.05, NULL, NULL, &r);
    assert_true(r.timed_out);
    assert_true(engine_is_legal(e, s, 0, r.move));
    ab_free(a);
    engine_state_free(s);
    engine_free(e);
    game_free(g);
}

/* One search of the position `plies` canonical joint moves into g, to `depth` (history off:
 * the root's order then depends on nothing the table changes). */
static void search_at(engine_t *e, uint32_t plies, uint32_t depth, bool tt, ab_result_t *r) {
    eng_state_t *s = engine_state_new(e);
    splitmix_t rng = {1};
    assert_true(engine_walk_to(e, &rng, plies, true, s));
    ab_opts_t o;
    ab_default_opts(&o);
    o.tt = tt, o.history = false, o.eval = AB_EVAL_GOAL, o.max_depth = depth, o.tt_mb = 1;
    ab_t *a = ab_new(e, 0, &o, 1);
    ab_search(a, s, 0, NULL, NULL, r);
    ab_free(a);
    engine_state_free(s);
}

/* The table changes the work, not the result: at each depth the value, the move and the
 * proof are those of the search without it (in these games a state is met at one ply
 * only, so an entry never holds a deeper search than the one asked). */
static void same_with_table(const char *file, uint32_t plies, uint32_t max_depth) {
    game_t *g = load_file(file);
    engine_t *e = engine_new(g, ENGINE_GROUND, stderr);
    uint64_t cuts = 0;
    for (uint32_t d = 1; d <= max_depth; d++) {
        ab_result_t on, off;
        search_at(e, plies, d, true, &on);
        search_at(e, plies, d, false, &off);
        assert_int_equal(on.value, off.value);
        assert_true(on.move == off.move);
        assert_int_equal(on.proven, off.proven);
        assert_int_equal(on.depth, off.depth);
        cuts += on.tt_cuts;
    }
    assert_true(cuts > 0); /* the table did cut */
    engine_free(e);
    game_free(g);
}

static void test_table_same(void **state) {
    (void)state;
    same_with_table("tictactoe.kif", 0, 9);
    same_with_table("tictactoe.kif", 3, 6);
    same_with_table("connect4.kif", 0, 6);
    same_with_table("connect4.kif", 8, 6);
}

/* A state the table settles costs no engine call: its legal moves are not read. Four joint
 * moves into tic-tac-toe no state is terminal, so every state searched is a leaf, a cut or
 * one whose moves were read (and ab_search reads the root's once more first). */
static void test_cut_reads_no_moves(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    engine_t *e = engine_new(g, ENGINE_GROUND, stderr);
    ab_result_t r;
    search_at(e, 0, 4, true, &r);
    assert_true(r.tt_cuts > 0);
    assert_int_equal(r.loads, 1 + r.nodes - r.leaves - r.tt_cuts);
    engine_free(e);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_tictactoe),
        cmocka_unit_test(test_small_games),
        cmocka_unit_test(test_connect3),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_table_same),
        cmocka_unit_test(test_cut_reads_no_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
