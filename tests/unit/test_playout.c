/* Unit tests for mcts/playout: on tic-tac-toe, the decisive policy takes a win at once,
 * the anti-decisive one blocks the opponent's win (the decisive one alone does not
 * always), MAST with ε = 0 plays the move it learnt is best, the uniform policy plays
 * every move, and a whole rollout with checks ends at a terminal state; on every engine
 * that plays tic-tac-toe; the decisive checks on learnt candidates find the wins they
 * hold and only those; playout_cost measures, and stops on a state it cannot leave; what
 * the checks did while it measured decides whether anti-decisive rollouts pay. */
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
#include "mcts/playout.h"
#include "moves.h"

typedef struct {
    game_t *g;
    engine_t *e;
    eng_state_t *s, *n;
    strbuf_t sb;
} fix_t;

static void load_game(fix_t *f, const char *file, engine_kind_t kind) {
    f->g = load_file(file);
    if (!f->g) fail_msg("%s does not load", file);
    f->e = engine_new(f->g, kind, NULL);
    f->s = engine_state_new(f->e);
    f->n = engine_state_new(f->e);
    sb_init(&f->sb);
    engine_initial(f->e, f->s);
}

static void load(fix_t *f, engine_kind_t kind) {
    load_game(f, "tictactoe.kif", kind);
}

static void unload(fix_t *f) {
    engine_state_free(f->s);
    engine_state_free(f->n);
    engine_free(f->e);
    game_free(f->g);
    sb_fini(&f->sb);
}

static const char *str(fix_t *f, term_t t) {
    sb_clear(&f->sb);
    term_print(f->g->ts, t, &f->sb);
    return sb_str(&f->sb);
}

/* The legal move of a role in the current state whose text is `text`. */
static term_t move(fix_t *f, uint32_t role, const char *text) {
    return legal_by_text(f->e, f->s, role, text);
}

static void play2(fix_t *f, const char *a, const char *b) {
    term_t joint[2] = {move(f, 0, a), move(f, 1, b)};
    engine_next(f->e, f->s, joint, f->n);
    engine_state_copy(f->s, f->n);
}

/* How often role plays `text` in `runs` steps from the current state. */
static int count_plays(fix_t *f, const playout_opts_t *o, uint32_t role, const char *text,
                       int runs) {
    playout_t *p = playout_new(f->e, o);
    splitmix_t rng = {42};
    term_t joint[2];
    int hits = 0;
    for (int i = 0; i < runs; i++) {
        assert_true(playout_step(p, f->s, &rng, joint, f->n));
        hits += strcmp(str(f, joint[role]), text) == 0;
    }
    playout_free(p);
    return hits;
}

static const engine_kind_t kinds[] = {ENGINE_INTERP, ENGINE_GROUND, ENGINE_COMPILED};

static void test_decisive(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        fix_t f;
        load(&f, kinds[k]);
        /* X: (1 1) (1 2); O: (2 1) (2 2). X to move wins at (1 3). */
        play2(&f, "(mark 1 1)", "noop");
        play2(&f, "noop", "(mark 2 1)");
        play2(&f, "(mark 1 2)", "noop");
        play2(&f, "noop", "(mark 2 2)");
        playout_opts_t dec = {.decisive = true, .mast_eps = -1};
        playout_opts_t uni = {.mast_eps = -1};
        assert_int_equal(count_plays(&f, &dec, 0, "(mark 1 3)", 50), 50);
        int u = count_plays(&f, &uni, 0, "(mark 1 3)", 200);
        assert_true(u > 0 && u < 100); /* one of five moves */
        unload(&f);
    }
}

static void test_antidecisive(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        fix_t f;
        load(&f, kinds[k]);
        /* X: (1 1) (1 2); O: (3 1). O to move must block at (1 3). */
        play2(&f, "(mark 1 1)", "noop");
        play2(&f, "noop", "(mark 3 1)");
        play2(&f, "(mark 1 2)", "noop");
        playout_opts_t anti = {.antidecisive = true, .mast_eps = -1};
        playout_opts_t dec = {.decisive = true, .mast_eps = -1};
        assert_int_equal(count_plays(&f, &anti, 1, "(mark 1 3)", 50), 50);
        assert_true(count_plays(&f, &dec, 1, "(mark 1 3)", 200) < 100);
        /* the next step knows X has no win after the block: the check is not redone */
        playout_t *p = playout_new(f.e, &anti);
        splitmix_t rng = {1};
        term_t joint[2];
        playout_stats_t st;
        assert_true(playout_step(p, f.s, &rng, joint, f.n));
        playout_stats(p, &st);
        uint64_t before = st.successors;
        engine_state_copy(f.s, f.n);
        assert_true(playout_step(p, f.s, &rng, joint, f.n));
        playout_stats(p, &st);
        assert_true(st.avoided > 0 || before > 0);
        /* X's moves after the block: no decisive scan, only the anti-decisive check of
         * the move chosen (O's replies: at most 5) */
        assert_true(st.successors - before <= 5 * 5);
        playout_free(p);
        unload(&f);
    }
}

/* Candidates learnt from random matches hold X's winning (mark 1 3), and the check on them
 * plays it with fewer successors than the check of every move; with none learnt (no
 * plies) the check finds no win: X plays (mark 1 3) as often as a uniform draw. */
static void test_cands(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        fix_t f;
        load(&f, kinds[k]);
        splitmix_t rng = {7};
        playout_cands_t *c = playout_cands_learn(f.e, &rng, 300, 100, 0);
        assert_int_equal(playout_cands_matches(c), 300);
        assert_true(playout_cands_count(c) > 0);
        playout_cands_t *none = playout_cands_learn(f.e, &rng, 5, 0, 0);
        assert_int_equal(playout_cands_count(none), 0);
        play2(&f, "(mark 1 1)", "noop");
        play2(&f, "noop", "(mark 2 1)");
        play2(&f, "(mark 1 2)", "noop");
        play2(&f, "noop", "(mark 2 2)");
        playout_opts_t dec = {.decisive = true, .mast_eps = -1};
        playout_opts_t cand = {.decisive = true, .mast_eps = -1, .cands = c};
        playout_opts_t empty = {.decisive = true, .mast_eps = -1, .cands = none};
        assert_int_equal(count_plays(&f, &cand, 0, "(mark 1 3)", 50), 50);
        int u = count_plays(&f, &empty, 0, "(mark 1 3)", 200);
        assert_true(u > 0 && u < 100); /* one of five moves */
        uint64_t succ[2];
        for (int i = 0; i < 2; i++) {
            playout_t *p = playout_new(f.e, i ? &cand : &dec);
            term_t joint[2];
            assert_true(playout_step(p, f.s, &rng, joint, f.n));
            assert_string_equal(str(&f, joint[0]), "(mark 1 3)");
            playout_stats_t st;
            playout_stats(p, &st);
            succ[i] = st.successors;
            playout_free(p);
        }
        assert_true(succ[1] >= 1 && succ[1] <= succ[0]);
        playout_cands_free(c);
        playout_cands_free(none);
        unload(&f);
    }
}

static void test_mast(void **state) {
    (void)state;
    fix_t f;
    load(&f, ENGINE_GROUND);
    playout_opts_t greedy = {.mast_eps = 0};
    playout_t *p = playout_new(f.e, &greedy);
    /* every first move of X but the centre is learnt as a loss, the centre as a win */
    const term_t *m;
    uint32_t n = engine_legal(f.e, f.s, 0, &m);
    term_t *moves = malloc(n * sizeof *moves);
    memcpy(moves, m, n * sizeof *m);
    term_t centre = move(&f, 0, "(mark 2 2)");
    for (uint32_t i = 0; i < n; i++) {
        int val[2] = {moves[i] == centre ? 100 : 0, moves[i] == centre ? 0 : 100};
        playout_begin(p);
        playout_note(p, 0, moves[i]);
        playout_learn(p, val);
    }
    splitmix_t rng = {3};
    term_t joint[2];
    for (int i = 0; i < 20; i++) {
        assert_true(playout_step(p, f.s, &rng, joint, f.n));
        assert_int_equal(joint[0], centre);
    }
    /* halved weights keep the means */
    playout_decay(p, 0.5);
    assert_true(playout_step(p, f.s, &rng, joint, f.n));
    assert_int_equal(joint[0], centre);
    /* with ε = 1 every move comes up */
    playout_free(p);
    playout_opts_t eps1 = {.mast_eps = 1};
    p = playout_new(f.e, &eps1);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < n; i++)
        for (int t = 0; t < 200 && !(seen & (1u << i)); t++) {
            playout_step(p, f.s, &rng, joint, f.n);
            for (uint32_t j = 0; j < n; j++)
                if (joint[0] == moves[j]) seen |= 1u << j;
        }
    assert_int_equal(seen, (1u << n) - 1);
    playout_free(p);
    free(moves);
    unload(&f);
}

/* Whole rollouts with every check end at terminal states, in at most nine steps. */
static void test_rollouts(void **state) {
    (void)state;
    fix_t f;
    load(&f, ENGINE_COMPILED);
    playout_opts_t all = {.antidecisive = true, .mast_eps = 0.2};
    playout_t *p = playout_new(f.e, &all);
    splitmix_t rng = {9};
    term_t joint[2];
    eng_state_t *a = engine_state_new(f.e), *b = engine_state_new(f.e);
    for (int i = 0; i < 100; i++) {
        engine_initial(f.e, a);
        int steps = 0;
        playout_begin(p);
        while (!engine_terminal(f.e, a)) {
            assert_true(playout_step(p, a, &rng, joint, b));
            eng_state_t *t = a;
            a = b;
            b = t;
            steps++;
        }
        assert_true(steps >= 5 && steps <= 9);
        int val[2] = {engine_goal_value(f.e, a, 0), engine_goal_value(f.e, a, 1)};
        playout_learn(p, val);
    }
    playout_stats_t st;
    playout_stats(p, &st);
    assert_true(st.decisive > 0 && st.avoided > 0);
    engine_state_free(a);
    engine_state_free(b);
    playout_free(p);
    unload(&f);
}

/* The cost of a policy's step, bounded by steps (a far deadline): measured from the initial
 * state, and 0 from a state no rollout can leave (a terminal one), where it must not spin. */
static void test_cost(void **state) {
    (void)state;
    fix_t f;
    load(&f, ENGINE_COMPILED);
    playout_opts_t anti = {.antidecisive = true, .mast_eps = -1};
    splitmix_t rng = {3};
    double far = now_seconds() + 1e6;
    double cost = playout_cost(f.e, &anti, f.s, &rng, far, 2000, NULL);
    assert_true(cost > 0 && cost < 1e6);
    play2(&f, "(mark 1 1)", "noop");
    play2(&f, "noop", "(mark 2 1)");
    play2(&f, "(mark 1 2)", "noop");
    play2(&f, "noop", "(mark 2 2)");
    play2(&f, "(mark 1 3)", "noop"); /* x wins: terminal */
    assert_true(engine_terminal(f.e, f.s));
    assert_true(playout_cost(f.e, &anti, f.s, &rng, far, 2000, NULL) == 0);
    unload(&f);
}

/* A deadline stops a step's checks (each check computes a successor per move: on a big
 * game on the interpreter, seconds): past it, an anti-decisive step on tic-tac-toe's empty
 * board (nine moves, each one's successor and the opponent's eight replies checked) plays
 * the drawn move unchecked, a legal one, and counts the cut; the cost measured by such a
 * deadline is no reason to play those rollouts. Counted, not timed: a deadline already
 * past (and one never reached, for the contrast). */
static void test_until(void **state) {
    (void)state;
    fix_t f;
    load(&f, ENGINE_INTERP);
    playout_opts_t anti = {.antidecisive = true, .mast_eps = -1};
    splitmix_t rng = {7};
    term_t joint[2];
    playout_stats_t st;
    playout_t *p = playout_new(f.e, &anti);
    assert_true(playout_step(p, f.s, &rng, joint, f.n)); /* no deadline: every check */
    playout_stats(p, &st);
    assert_true(st.successors >= 9 && st.cut == 0);
    playout_set_until(p, now_seconds() + 1e6);
    assert_true(playout_step(p, f.s, &rng, joint, f.n));
    playout_stats(p, &st);
    assert_true(st.successors >= 18 && st.cut == 0);
    uint64_t before = st.successors;
    playout_set_until(p, now_seconds() - 1); /* gone */
    assert_true(playout_step(p, f.s, &rng, joint, f.n));
    playout_stats(p, &st);
    assert_int_equal(st.successors, before); /* no successor checked */
    assert_int_equal(st.cut, 1);
    const term_t *m;
    uint32_t n = engine_legal(f.e, f.s, 0, &m);
    assert_true(term_in(m, n, joint[0]));
    playout_free(p);
    /* a cost measured by a deadline gone: nothing measured, anti-decisive rollouts off */
    playout_stats_t none = {0};
    double cost = playout_cost(f.e, &anti, f.s, &rng, now_seconds() - 1, 2000, &none);
    assert_false(playout_anti_pays(cost, &none));
    unload(&f);
}

/* Two roles take turns choosing a or b for four turns; every match is a draw, so the
 * anti-decisive checks never find a win to play or to avoid. */
static const char *ALWAYS_DRAWN = "(role p) (role q) (init (control p)) (init (step 0))"
                                  "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)"
                                  "(<= (legal ?r a) (true (control ?r)))"
                                  "(<= (legal ?r b) (true (control ?r)))"
                                  "(<= (legal p noop) (true (control q)))"
                                  "(<= (legal q noop) (true (control p)))"
                                  "(<= (next (control q)) (true (control p)))"
                                  "(<= (next (control p)) (true (control q)))"
                                  "(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))"
                                  "(<= terminal (true (step 4)))"
                                  "(goal p 50) (goal q 50)";

/* What the checks did while their cost was measured (bounded by steps): they act on
 * tic-tac-toe, so anti-decisive rollouts pay there at a moderate cost and not past the
 * cap; they never act where every match is drawn, so they never pay there. */
static void test_anti_pays(void **state) {
    (void)state;
    fix_t f;
    load(&f, ENGINE_COMPILED);
    playout_opts_t anti = {.antidecisive = true, .mast_eps = -1};
    splitmix_t rng = {5};
    double far = now_seconds() + 1e6;
    playout_stats_t st = {0};
    assert_true(playout_cost(f.e, &anti, f.s, &rng, far, 2000, &st) > 0);
    assert_true(st.steps >= 2000 && st.decisive + st.avoided > 0);
    assert_true(playout_acts(&st) > 0.2);
    assert_true(playout_anti_pays(20, &st));
    assert_false(playout_anti_pays(60, &st)); /* the fixed cap */
    unload(&f);

    game_t *g = load_text(ALWAYS_DRAWN);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_INTERP, NULL);
    eng_state_t *s = engine_state_new(e);
    engine_initial(e, s);
    playout_stats_t none = {0};
    assert_true(playout_cost(e, &anti, s, &rng, far, 500, &none) > 0);
    assert_true(none.steps >= 500);
    assert_true(none.decisive == 0 && none.avoided == 0);
    assert_false(playout_anti_pays(1.5, &none));
    engine_state_free(s);
    engine_free(e);
    game_free(g);
}

/* Simultaneous moves (rock-paper-scissors, the fifth round at 0-0: a role wins it by
 * beating the other's move): with decisive checks a role's move wins against the other's
 * drawn move in every step (the first role checked, alice, takes it); uniform draws win
 * a third of the rounds. */
static void test_decisive_simultaneous(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        fix_t f;
        load_game(&f, "simultaneous.kif", kinds[k]);
        for (int round = 0; round < 4; round++)
            play2(&f, "rock", "rock");
        playout_opts_t dec = {.decisive = true, .mast_eps = -1}, uni = {.mast_eps = -1};
        int wins[2] = {0, 0};
        for (int which = 0; which < 2; which++) {
            playout_t *p = playout_new(f.e, which ? &uni : &dec);
            splitmix_t rng = {7};
            term_t joint[2];
            for (int i = 0; i < 60; i++) {
                assert_true(playout_step(p, f.s, &rng, joint, f.n));
                assert_true(engine_terminal(f.e, f.n));
                wins[which] += engine_goal_value(f.e, f.n, 0) == 100;
            }
            playout_free(p);
        }
        assert_int_equal(wins[0], 60);
        assert_true(wins[1] > 0 && wins[1] < 40);
        unload(&f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decisive),  cmocka_unit_test(test_antidecisive),
        cmocka_unit_test(test_cands),     cmocka_unit_test(test_mast),
        cmocka_unit_test(test_rollouts),  cmocka_unit_test(test_cost),
        cmocka_unit_test(test_anti_pays), cmocka_unit_test(test_decisive_simultaneous),
        cmocka_unit_test(test_until),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
