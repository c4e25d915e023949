/* Unit tests for mcts/bddhook (the rollout hook on symbolic backward search's sets) against
 * the exact solver, on every reachable state of tic-tac-toe: with a horizon of D steps from
 * the initial state, a state k steps from it gets 100 only where the role forces its win,
 * 0 only where the other role forces its own, and every forced win within D - k steps is
 * found, a loss's length (bddhook_loss_steps) the solver's where within; on the engine's state
 * through the hook's own entry point (the ply set, depth 0) as by the value query. With values, a
 * proven value is the exact one, and with the whole game's sets (no horizon, or 9 steps) every
 * state has one: tic-tac-toe solved, draws too. */
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
#include "engine/fluents.h"
#include "load.h"
#include "mcts/ab.h"
#include "mcts/bddhook.h"
#include "sample.h"
#include "truth/solve.h"

/* Least steps from the initial state (id 0) to each state, breadth first. */
static uint32_t *distances(const solve_t *s) {
    uint32_t n = solve_count(s);
    uint32_t *d = xmalloc(n * sizeof *d), *queue = xmalloc(n * sizeof *queue);
    for (uint32_t id = 0; id < n; id++)
        d[id] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    d[0] = 0, queue[tail++] = 0;
    while (head < tail) {
        uint32_t id = queue[head++];
        const uint32_t *succ;
        uint32_t ns = solve_successors(s, id, &succ);
        for (uint32_t k = 0; k < ns; k++)
            if (d[succ[k]] == UINT32_MAX) d[succ[k]] = d[id] + 1, queue[tail++] = succ[k];
    }
    free(queue);
    return d;
}

/* Tic-tac-toe on the ground engine with its exact solver (values where `values`) and the
 * least steps to each state: every test's reference. */
typedef struct {
    game_t *g;
    engine_t *e;
    solve_t *s;
    uint32_t *dist;
} ttt_t;

static void ttt_open(ttt_t *t, bool values) {
    t->g = load_file("tictactoe.kif");
    assert_non_null(t->g);
    t->e = engine_new(t->g, ENGINE_GROUND, NULL);
    char err[200];
    t->s = solve_new(t->e, 200000, err, sizeof err);
    assert_non_null(t->s);
    if (values) solve_rounds(t->s, NULL);
    t->dist = distances(t->s);
}

static void ttt_close(ttt_t *t) {
    free(t->dist);
    solve_free(t->s);
    engine_free(t->e);
    game_free(t->g);
}

static void check_role(engine_t *e, const solve_t *s, const uint32_t *dist, uint32_t role,
                       uint32_t horizon) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = horizon;
    char err[300];
    bddhook_t *h = bddhook_new(e, role, NULL, &o, now_seconds() + 1e6, err, sizeof err);
    if (!h) fail_msg("bddhook_new: %s", err);
    bddhook_info_t in;
    bddhook_info(h, &in);
    assert_int_equal(in.first_partial, UINT32_MAX);
    assert_true(in.solved == (horizon == 0)); /* tic-tac-toe's sequences end at fixpoints */
    uint32_t n = solve_count(s);
    uint8_t *win = xmalloc(n), *loss = xmalloc(n);
    solve_force(s, 1ull << role, role, 100, true, win);
    solve_force(s, 1ull << (1 - role), 1 - role, 100, true, loss);
    eng_state_t *st = engine_state_new(e);
    uint32_t hits = 0;
    for (uint32_t id = 0; id < n; id++) {
        if (solve_terminal(s, id)) continue;
        engine_state_set(e, st, solve_state(s, id));
        uint32_t k = dist[id];
        int v = bddhook_value(h, engine_state_words(st), k);
        bddhook_set_ply(h, k);
        assert_int_equal(bddhook_state_hook(h, st, 0), v);
        bool w = win[id] != SOLVE_NONE, l = loss[id] != SOLVE_NONE;
        bool w_in = w && k + win[id] <= horizon, l_in = l && k + loss[id] <= horizon;
        if ((v == 100 && !w) || (v == 0 && !l) || (w_in && v != 100) || (l_in && !w && v != 0))
            fail_msg("role %u, horizon %u, state %u (%u steps from the start): hook %d, solver: "
                     "win in %d, loss in %d",
                     role, horizon, id, k, v, w ? win[id] : -1, l ? loss[id] : -1);
        /* the loss's length: never shorter than the solver's, the same where within */
        uint32_t ls = bddhook_loss_steps(h, engine_state_words(st), k);
        if (l ? ls < loss[id] || (l_in && ls != loss[id]) : ls != UINT32_MAX)
            fail_msg("role %u, horizon %u, state %u: loss in %u steps by the sets, %d by the "
                     "solver",
                     role, horizon, id, ls, l ? loss[id] : -1);
        assert_true(v != 0 || ls != UINT32_MAX);
        hits += v >= 0;
        /* the reach the search gates the hook by never skips a state that hits: from any
         * earlier ply p of the path, the state is k - p rollout steps deep */
        for (uint32_t p = 0; v >= 0 && p <= k; p++)
            assert_true(k - p <= bddhook_reach(horizon, p));
    }
    assert_true(hits > 0);
    engine_state_free(st);
    free(win);
    free(loss);
    bddhook_free(h);
}

/* bddhook_proven against the solver's values: sound everywhere, every state proven when
 * the sets cover the whole game; returns the states proven. */
static uint32_t check_values(engine_t *e, const solve_t *s, const uint32_t *dist, uint32_t role,
                             uint32_t horizon) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = horizon, o.values = true;
    char err[300];
    bddhook_t *h = bddhook_new(e, role, NULL, &o, now_seconds() + 1e6, err, sizeof err);
    if (!h) fail_msg("bddhook_new: %s", err);
    eng_state_t *st = engine_state_new(e);
    uint32_t proven = 0, draws = 0, states = 0;
    for (uint32_t id = 0; id < solve_count(s); id++) {
        if (solve_terminal(s, id)) continue;
        engine_state_set(e, st, solve_state(s, id));
        int v = bddhook_proven(h, engine_state_words(st), dist[id]), x = solve_value(s, id, role);
        /* a node's own state (depth 0): wins and losses only; deeper: the value */
        bddhook_set_ply(h, dist[id]);
        int own = bddhook_state_hook(h, st, 0);
        assert_true(own == v || (own == -1 && v != 0 && v != 100));
        if (dist[id]) {
            bddhook_set_ply(h, dist[id] - 1);
            assert_int_equal(bddhook_state_hook(h, st, 1), v);
        }
        if (v >= 0 && v != x)
            fail_msg("role %u, horizon %u, state %u: hook %d, exact %d", role, horizon, id, v, x);
        states++, proven += v >= 0, draws += v == 50;
    }
    if (horizon == 0 || horizon == 9) {
        assert_int_equal(proven, states);
        assert_true(draws > 1000);
    }
    engine_state_free(st);
    bddhook_free(h);
    return proven;
}

/* In every state the sets without a horizon prove lost for the role to move (two moves or
 * more), bddhook_longest_loss takes a move after which the solver's forced loss is the
 * longest; in some of them the first legal move (the one preferred here) is shorter. */
static void check_longest(engine_t *e, const solve_t *s, const uint32_t *dist, uint32_t role) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = 0;
    char err[300];
    bddhook_t *h = bddhook_new(e, role, NULL, &o, now_seconds() + 1e6, err, sizeof err);
    if (!h) fail_msg("bddhook_new: %s", err);
    uint8_t *loss = xmalloc(solve_count(s));
    solve_force(s, 1ull << (1 - role), 1 - role, 100, true, loss);
    eng_state_t *st = engine_state_new(e);
    uint32_t checked = 0, replaced = 0;
    for (uint32_t id = 0; id < solve_count(s); id++) {
        const term_t *mv;
        const uint32_t *succ;
        uint32_t n = solve_legal(s, id, role, &mv);
        if (solve_terminal(s, id) || n < 2 || loss[id] == SOLVE_NONE) continue;
        solve_successors(s, id, &succ); /* the other role's one move: succ[k] after mv[k] */
        engine_state_set(e, st, solve_state(s, id));
        term_t pick = bddhook_longest_loss(h, st, role, dist[id], mv[0], 4096, 0);
        /* past its deadline it looks at no move: the preferred one stays */
        assert_int_equal(bddhook_longest_loss(h, st, role, dist[id], mv[0], 4096, 1e-9), mv[0]);
        uint32_t most = 0, got = UINT32_MAX;
        for (uint32_t k = 0; k < n; k++) {
            if (loss[succ[k]] > most) most = loss[succ[k]];
            if (mv[k] == pick) got = loss[succ[k]];
        }
        assert_int_equal(got, most);
        checked++, replaced += loss[succ[0]] < most;
    }
    assert_true(checked > 0 && replaced > 0);
    engine_state_free(st);
    free(loss);
    bddhook_free(h);
}

static void test_tictactoe(void **state) {
    (void)state;
    ttt_t t;
    ttt_open(&t, true);
    engine_t *e = t.e;
    const solve_t *s = t.s;
    const uint32_t *dist = t.dist;
    for (uint32_t role = 0; role < 2; role++) {
        check_role(e, s, dist, role, 5);
        check_role(e, s, dist, role, 9);
        check_role(e, s, dist, role, 0);
        check_values(e, s, dist, role, 0);
        check_longest(e, s, dist, role);
        check_values(e, s, dist, role, 9);
        assert_true(check_values(e, s, dist, role, 5) > 0);
    }
    ttt_close(&t);
}

/* A probe (no horizon, one step): tic-tac-toe's forward search from the initial state
 * ends (its layers counted), connect four's gives up (past 20,000 nodes): the player's
 * sign that the game is not solved within a start clock. With a reach_share whose deadline
 * is past before the search starts (a microsecond of the budget), tic-tac-toe's gives up
 * too, but out of time (reach_late), which the player does not take for that sign. */
static void probe(const char *file, bool small, double reach_share, uint32_t cut) {
    game_t *g = load_file(file);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = 0, o.max_steps = 1, o.reach_share = reach_share, o.cut_reach = cut;
    char err[300];
    bddhook_t *h = bddhook_new(e, 0, NULL, &o, now_seconds() + 1e6, err, sizeof err);
    if (!h) fail_msg("bddhook_new: %s", err);
    bddhook_info_t in;
    bddhook_info(h, &in);
    assert_int_equal(in.alpha, 2); /* α_0, α_1 */
    bool late = reach_share > 0 || cut > 0;
    assert_true(small && !late ? in.reach_layers > 0 : in.reach_layers == 0);
    assert_int_equal(in.reach_late, late);
    bddhook_free(h);
    engine_free(e);
    game_free(g);
}

static void test_probe(void **state) {
    (void)state;
    probe("tictactoe.kif", true, 0, 0);
    probe("connect4.kif", false, 0, 0);
    probe("tictactoe.kif", true, 1e-12, 0);
    probe("tictactoe.kif", true, 0, 3); /* cut after 3 layers as by the deadline: the same */
}

/* The reach: horizon - ply, 0 past it, every depth without a horizon. */
static bddhook_t *new_hook(engine_t *e, uint32_t role, uint32_t max_steps, uint32_t horizon,
                           uint32_t cut, bool values) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = horizon, o.max_steps = max_steps, o.cut_reach = cut, o.values = values;
    char err[300];
    bddhook_t *h = bddhook_new(e, role, NULL, &o, now_seconds() + 1e6, err, sizeof err);
    if (!h) fail_msg("bddhook_new: %s", err);
    return h;
}

/* h's answer (bddhook_proven) on every reachable state of s (-2 on terminal ones and on
 * those fewer than `plies` steps from the start), from sets made `plies` steps on */
static void answers(engine_t *e, const solve_t *s, const uint32_t *dist, const bddhook_t *h,
                    uint32_t plies, int *out) {
    eng_state_t *st = engine_state_new(e);
    for (uint32_t id = 0; id < solve_count(s); id++) {
        out[id] = -2;
        if (solve_terminal(s, id) || dist[id] < plies) continue;
        engine_state_set(e, st, solve_state(s, id));
        out[id] = bddhook_proven(h, engine_state_words(st), dist[id] - plies);
    }
    engine_state_free(st);
}

/* The player's start (start_bdd): the sets without a horizon made by going on from the
 * probe (bddhook_more), its network and steps kept, are the sets a new build makes: the
 * same steps, nodes and answer on every reachable state of tic-tac-toe, values too. It
 * does not go on from sets with a horizon, or from a probe whose forward search was cut. */
static void test_more(void **state) {
    (void)state;
    ttt_t t;
    ttt_open(&t, false);
    engine_t *e = t.e;
    const solve_t *s = t.s;
    const uint32_t *dist = t.dist;
    int *want = xcalloc(solve_count(s), sizeof *want), *got = xcalloc(solve_count(s), sizeof *got);
    for (uint32_t role = 0; role < 2; role++)
        for (int values = 0; values < 2; values++) {
            /* one decision-diagram manager per process: the new build's answers first */
            bddhook_t *fresh = new_hook(e, role, 0, 0, 0, values);
            bddhook_info_t a, b;
            bddhook_info(fresh, &b);
            answers(e, s, dist, fresh, 0, want);
            bddhook_free(fresh);
            bddhook_t *more = new_hook(e, role, 1, 0, 0, values);
            assert_true(bddhook_more(more, 0, now_seconds() + 1e6));
            bddhook_info(more, &a);
            assert_true(a.solved && b.solved);
            assert_int_equal(a.alpha, b.alpha);
            assert_int_equal(a.beta, b.beta);
            assert_int_equal(a.nodes, b.nodes);
            assert_int_equal(a.first_partial, UINT32_MAX);
            answers(e, s, dist, more, 0, got);
            assert_memory_equal(got, want, solve_count(s) * sizeof *got);
            bddhook_free(more);
        }
    bddhook_t *h = new_hook(e, 0, 1, 5, 0, false);
    assert_false(bddhook_more(h, 0, now_seconds() + 1e6));
    bddhook_free(h);
    h = new_hook(e, 0, 1, 0, 3, false); /* the forward search cut as by its deadline */
    assert_false(bddhook_more(h, 0, now_seconds() + 1e6));
    bddhook_free(h);
    free(want), free(got);
    ttt_close(&t);
}

/* Sets from `start` without a horizon: a new build (probe: the start's probe from the
 * initial state first, then bddhook_restart from `start` on its network), resume and a
 * cut of step cut_step as by the deadline (then bddhook_more for the rest); their info in
 * *in, h's answers (from the start: dist - plies) on every state of s in out. */
static void from_start(engine_t *e, const solve_t *s, const uint32_t *dist, uint32_t plies,
                       const eng_state_t *start, bool probe, uint32_t cut_step, int *out,
                       bddhook_info_t *in) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = 0, o.resume = true, o.cut_step = cut_step, o.max_steps = probe ? 1 : 0;
    char err[300];
    double far = now_seconds() + 1e6;
    bddhook_t *h = bddhook_new(e, 0, probe ? NULL : start, &o, far, err, sizeof err);
    if (!h) fail_msg("bddhook_new: %s", err);
    if (probe) assert_true(bddhook_restart(h, start, true, true, 0, 0, far));
    bddhook_info(h, in);
    if (cut_step) { /* the cut step dropped, not kept as a subset: gone on from there */
        assert_int_equal(in->alpha, cut_step);
        assert_int_equal(in->first_partial, UINT32_MAX);
        assert_true(bddhook_more(h, 0, far));
        bddhook_info(h, in);
    }
    answers(e, s, dist, h, plies, out);
    assert_false(
        bddhook_restart(h, start, true, true, 0, 0, now_seconds() - 1)); /* no time: unchanged */
    bddhook_free(h);
}

/* The start's probe restarted from `start` to at most max_steps steps; its info in *in. */
static void restart_bounded(engine_t *e, const eng_state_t *start, uint32_t max_steps,
                            bddhook_info_t *in) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = 0, o.resume = true, o.max_steps = 1;
    char err[300];
    double far = now_seconds() + 1e6;
    bddhook_t *h = bddhook_new(e, 0, NULL, &o, far, err, sizeof err);
    if (!h) fail_msg("bddhook_new: %s", err);
    assert_true(bddhook_restart(h, start, true, true, 0, max_steps, far));
    bddhook_info(h, in);
    bddhook_free(h);
}

/* solve_late's tries: the sets from a later state made on the start probe's network
 * (bddhook_restart: its forward search again, the network kept) and a try cut by its
 * deadline and gone on with at a later turn (resume, bddhook_more) are the sets a new
 * build from that state makes: the same steps, nodes, layers and answer on every state of
 * tic-tac-toe, from the states two and four plies on. Without the clock (bdds cut_step). */
static void test_restart(void **state) {
    (void)state;
    ttt_t t;
    ttt_open(&t, false);
    engine_t *e = t.e;
    const solve_t *s = t.s;
    const uint32_t *dist = t.dist;
    int *want = xcalloc(solve_count(s), sizeof *want), *got = xcalloc(solve_count(s), sizeof *got);
    eng_state_t *st = engine_state_new(e), *next = engine_state_new(e);
    engine_initial(e, st);
    term_t joint[2];
    for (uint32_t plies = 1; plies <= 4; plies++) {
        for (uint32_t r = 0; r < 2; r++) { /* the last legal move of each: some line */
            const term_t *m;
            uint32_t n = engine_legal(e, st, r, &m);
            joint[r] = m[n - 1];
        }
        engine_next(e, st, joint, next);
        engine_state_copy(st, next);
        if (plies % 2) continue;
        bddhook_info_t a, b;
        from_start(e, s, dist, plies, st, false, 0, want, &b);
        assert_true(b.reach_layers > 0 && b.alpha > 2);
        from_start(e, s, dist, plies, st, true, 0, got, &a);
        assert_int_equal(a.alpha, b.alpha);
        assert_int_equal(a.beta, b.beta);
        assert_int_equal(a.nodes, b.nodes);
        assert_int_equal(a.reach_layers, b.reach_layers);
        assert_memory_equal(got, want, solve_count(s) * sizeof *got);
        from_start(e, s, dist, plies, st, true, 2, got, &a);
        assert_int_equal(a.alpha, b.alpha);
        assert_int_equal(a.nodes, b.nodes);
        assert_memory_equal(got, want, solve_count(s) * sizeof *got);
        restart_bounded(e, st, 2, &a); /* a test's lbssteps=2: α_0..α_2, not all of them */
        assert_int_equal(a.alpha, 3);
        assert_true(b.alpha > 3);
    }
    engine_state_free(st), engine_state_free(next);
    free(want), free(got);
    ttt_close(&t);
}

static void test_reach(void **state) {
    (void)state;
    assert_int_equal(bddhook_reach(8, 0), 8);
    assert_int_equal(bddhook_reach(8, 3), 5);
    assert_int_equal(bddhook_reach(8, 8), 0);
    assert_int_equal(bddhook_reach(8, 12), 0);
    assert_int_equal(bddhook_reach(0, 5), UINT32_MAX);
}

/* The next build's horizon: shallower when cut or over its budget, deeper when it took
 * under a BDDHOOK_GROW-th of it, within min..max. */
static void test_next_horizon(void **state) {
    (void)state;
    assert_int_equal(bddhook_next_horizon(8, 0.1, true, 1.0, 1, 16), 7);
    assert_int_equal(bddhook_next_horizon(8, 1.5, false, 1.0, 1, 16), 7);
    assert_int_equal(bddhook_next_horizon(8, 0.5, false, 1.0, 1, 16), 8);
    assert_int_equal(bddhook_next_horizon(8, 0.2, false, 1.0, 1, 16), 9);
    assert_int_equal(bddhook_next_horizon(16, 0.01, false, 1.0, 1, 16), 16);
    assert_int_equal(bddhook_next_horizon(1, 2.0, true, 1.0, 1, 16), 1);
    assert_int_equal(bddhook_next_horizon(20, 0.5, false, 1.0, 1, 16), 16);
    assert_int_equal(bddhook_next_horizon(3, 2.0, true, 1.0, 3, 16), 3);
    assert_int_equal(bddhook_next_horizon(2, 0.5, false, 1.0, 3, 16), 3);
    assert_int_equal(bddhook_next_horizon(5, 0.5, false, 1.0, 0, 16), 5);
}

/* One search of es by a, and where its value is `exact` or a mate, a check of its move:
 * alpha-beta to the end without proofs (`plain`) values the move as much. */
static void search_at(ab_t *a, ab_t *plain, eng_state_t *es, bool exact, ab_result_t *r) {
    ab_search(a, es, 0, NULL, NULL, r);
    if (r->move == TERM_NONE || (!exact && !r->mate)) return;
    ab_result_t m;
    ab_search_move(plain, es, r->move, 0, 0, &m);
    assert_true(m.proven);
    assert_int_equal(m.value, r->value);
}

/* The least steps of a forced win and loss (UINT32_MAX: none within them) of every state
 * of s by sets to α_steps/β_steps without a horizon (-: terminal states). */
static void least_steps(engine_t *e, const solve_t *s, uint32_t role, uint32_t steps, uint32_t *win,
                        uint32_t *loss) {
    bddhook_t *h = new_hook(e, role, steps, 0, 0, false);
    eng_state_t *es = engine_state_new(e);
    for (uint32_t id = 0; id < solve_count(s); id++) {
        win[id] = loss[id] = UINT32_MAX;
        if (solve_terminal(s, id)) continue;
        engine_state_set(e, es, solve_state(s, id));
        win[id] = bddhook_win_steps(h, engine_state_words(es), 0);
        loss[id] = bddhook_loss_steps(h, engine_state_words(es), 0);
    }
    engine_state_free(es);
    bddhook_free(h); /* (one manager per process) */
}

/* The checks of test_ab_proofs for one role; the number of states proven only with them. */
static uint32_t ab_proofs_role(engine_t *e, const solve_t *s, uint32_t role) {
    uint32_t n = solve_count(s), only_with = 0;
    uint32_t *win = xmalloc(n * sizeof *win), *loss = xmalloc(n * sizeof *loss);
    least_steps(e, s, role, 3, win, loss);
    bddhook_t *h = new_hook(e, role, 2, 0, 0, false);
    ab_opts_t o;
    ab_default_opts(&o);
    o.tt_mb = 1, o.eval = AB_EVAL_GOAL;
    ab_t *full = ab_new(e, role, &o, 7), *plain = ab_new(e, role, &o, 7);
    o.proof_depth = 2;
    ab_t *inner = ab_new(e, role, &o, 7); /* the player's: not at the last joint move */
    o.proof_depth = 0, o.max_depth = 1;
    ab_t *one = ab_new(e, role, &o, 7), *one_plain = ab_new(e, role, &o, 7);
    ab_set_proven(full, bddhook_ab_proven, h);
    ab_set_proven(inner, bddhook_ab_proven, h);
    ab_set_proven(one, bddhook_ab_proven, h);
    eng_state_t *es = engine_state_new(e);
    for (uint32_t id = role; id < n; id += test_sample_every()) {
        if (solve_terminal(s, id)) continue;
        engine_state_set(e, es, solve_state(s, id));
        ab_result_t r;
        search_at(full, plain, es, true, &r);
        assert_true(r.proven);
        if (r.value != solve_value(s, id, role))
            fail_msg("state %u role %u: %d with proofs, solver %d", id, role, r.value,
                     solve_value(s, id, role));
        search_at(inner, plain, es, true, &r);
        assert_true(r.proven);
        assert_int_equal(r.value, solve_value(s, id, role));
        search_at(one, plain, es, false, &r);
        uint32_t want = win[id] != UINT32_MAX ? win[id] : loss[id];
        if (r.mate != (want != UINT32_MAX ? want : 0))
            fail_msg("state %u role %u: mate %u, the sets %u/%u", id, role, r.mate, win[id],
                     loss[id]);
        if (r.mate) assert_int_equal(r.value, win[id] != UINT32_MAX ? 100 : 0);
        if (win[id] == UINT32_MAX || win[id] < 2) continue;
        ab_result_t p;
        search_at(one_plain, plain, es, false, &p);
        assert_int_equal(p.mate, 0);
        only_with += p.value != 100;
    }
    engine_state_free(es);
    ab_free(full), ab_free(plain), ab_free(one), ab_free(one_plain), ab_free(inner);
    bddhook_free(h);
    free(win), free(loss);
    return only_with;
}

/* Alpha-beta with the sets' proofs (bddhook_ab_proven on α_2/β_2 without a horizon, as the
 * player's start_ab_bdd builds them) on every reachable non-terminal state of tic-tac-toe,
 * for each role, against the exact solver and the deeper sets α_3/β_3 (the least step of a
 * forced win or loss within 3): searched to the end (asked at the leaves too, or only with
 * 2 joint moves left as the player asks), the value is the solver's, proven, its move keeps
 * it; searched one joint move deep, where α_3 (β_3) holds the state with least step k the
 * value is 100 (0) with mate k exactly (the nearest win, the farthest loss) and the move
 * keeps it, and no other state gets a mate. Without the proofs the same search finds no
 * win beyond one step: some states are proven only with them. */
static void test_ab_proofs(void **state) {
    (void)state;
    ttt_t t;
    ttt_open(&t, true);
    for (uint32_t role = 0; role < 2; role++)
        assert_true(ab_proofs_role(t.e, t.s, role) > 0);
    ttt_close(&t);
}

int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one test by name */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reach),     cmocka_unit_test(test_next_horizon),
        cmocka_unit_test(test_tictactoe), cmocka_unit_test(test_probe),
        cmocka_unit_test(test_more),      cmocka_unit_test(test_restart),
        cmocka_unit_test(test_ab_proofs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
