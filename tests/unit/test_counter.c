/* Score counters (mcts/counter.h) and the evaluation of their lead (heur_counter). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load.h"
#include "mcts/counter.h"
#include "mcts/heur.h"
#include "race.h"

/* Each role in turn gains a point or waits, three turns each; the higher score wins. The
 * scores are constants ordered by a successor relation only (n0, n1, ...), and the step
 * counter beside them carries no role's name. GOALS: the goal rules. */
#define SCORE_GAME(GOALS)                                                                          \
    "(role a) (role b)\n"                                                                          \
    "(init (score a n0)) (init (score b n0)) (init (control a)) (init (step n0))\n"                \
    "(succ n0 n1) (succ n1 n2) (succ n2 n3) (succ n3 n4) (succ n4 n5) (succ n5 n6)\n"              \
    "(<= (legal ?r gain) (true (control ?r)))\n"                                                   \
    "(<= (legal ?r wait) (true (control ?r)))\n"                                                   \
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"                                   \
    "(<= (next (score ?r ?y)) (does ?r gain) (true (score ?r ?x)) (succ ?x ?y))\n"                 \
    "(<= (next (score ?r ?x)) (true (score ?r ?x)) (not (does ?r gain)))\n"                        \
    "(<= (next (control a)) (true (control b)))\n"                                                 \
    "(<= (next (control b)) (true (control a)))\n"                                                 \
    "(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))\n"                                        \
    "(<= terminal (true (step n6)))\n"                                                             \
    "(<= (gt ?x ?y) (succ ?y ?x))\n"                                                               \
    "(<= (gt ?x ?y) (succ ?z ?x) (gt ?z ?y))\n" GOALS

static const char *SCORE =
    SCORE_GAME("(<= (ahead ?r) (true (score ?r ?x)) (true (score ?o ?y)) (gt ?x ?y))\n"
               "(<= (goal ?r 100) (ahead ?r))\n"
               "(<= (goal ?r 0) (role ?r) (not (ahead ?r)))\n");
/* The same scores, an outcome they do not decide: every match is a draw. */
static const char *DRAW = SCORE_GAME("(<= (goal ?r 50) (role ?r))\n");

/* Each role in turn fills one of its three slots or waits, three turns each; a last step
 * fills what is left, noting who had filled more: that role wins. The slots filled only
 * grow and predict every match until the end, where all are full: the final lead decides
 * nothing (cubicup's cubes, all spent by the end), not a score. */
static const char *FILLED =
    "(role a) (role b)\n"
    "(init (filled a n0)) (init (filled b n0)) (init (control a)) (init (step n0))\n"
    "(succ n0 n1) (succ n1 n2) (succ n2 n3) (succ n3 n4) (succ n4 n5) (succ n5 n6) (succ n6 n7)\n"
    "(<= (legal ?r fill) (true (control ?r)) (true (filled ?r ?x)) (succ ?x ?y) (gt n3 ?x))\n"
    "(<= (legal ?r wait) (true (control ?r)))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (next (filled ?r ?y)) (does ?r fill) (true (filled ?r ?x)) (succ ?x ?y)\n"
    "    (not (true (step n6))))\n"
    "(<= (next (filled ?r ?x)) (true (filled ?r ?x)) (not (does ?r fill)) (not (true (step n6))))\n"
    "(<= (next (filled ?r n3)) (role ?r) (true (step n6)))\n"
    "(<= (next (won ?r)) (true (step n6)) (more ?r))\n"
    "(<= (next (won ?r)) (true (won ?r)))\n"
    "(<= (next (control a)) (true (control b)))\n"
    "(<= (next (control b)) (true (control a)))\n"
    "(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))\n"
    "(<= terminal (true (step n7)))\n"
    "(<= (gt ?x ?y) (succ ?y ?x))\n"
    "(<= (gt ?x ?y) (succ ?z ?x) (gt ?z ?y))\n"
    "(<= (more ?r) (true (filled ?r ?x)) (true (filled ?o ?y)) (gt ?x ?y))\n"
    "(<= (goal ?r 100) (true (won ?r)))\n"
    "(<= (goal ?r 0) (role ?r) (not (true (won ?r))))\n";

/* Each role in turn steps its runner forward or back on a line of seven places, three
 * turns each; the runner ahead at the end wins. Its place predicts the outcome, at the end
 * too, but it falls as well as it grows (mummyMaze's location, a resource spent, pieces
 * lost): not a score. */
static const char *PLACE =
    "(role a) (role b)\n"
    "(init (at a n3)) (init (at b n3)) (init (control a)) (init (step n0))\n"
    "(succ n0 n1) (succ n1 n2) (succ n2 n3) (succ n3 n4) (succ n4 n5) (succ n5 n6)\n"
    "(<= (legal ?r forward) (true (control ?r)))\n"
    "(<= (legal ?r back) (true (control ?r)))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (next (at ?r ?y)) (does ?r forward) (true (at ?r ?x)) (succ ?x ?y))\n"
    "(<= (next (at ?r ?y)) (does ?r back) (true (at ?r ?x)) (succ ?y ?x))\n"
    "(<= (next (at ?r ?x)) (true (at ?r ?x)) (not (true (control ?r))))\n"
    "(<= (next (control a)) (true (control b)))\n"
    "(<= (next (control b)) (true (control a)))\n"
    "(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))\n"
    "(<= terminal (true (step n6)))\n"
    "(<= (gt ?x ?y) (succ ?y ?x))\n"
    "(<= (gt ?x ?y) (succ ?z ?x) (gt ?z ?y))\n"
    "(<= (ahead ?r) (true (at ?r ?x)) (true (at ?o ?y)) (gt ?x ?y))\n"
    "(<= (goal ?r 100) (ahead ?r))\n"
    "(<= (goal ?r 0) (role ?r) (not (ahead ?r)))\n";

typedef struct {
    game_t *g;
    engine_t *e;
    eng_state_t *s0;
} fix_t;

static void open_game(fix_t *f, game_t *g) {
    assert_non_null(g);
    f->g = g;
    f->e = engine_new(g, ENGINE_GROUND, NULL);
    f->s0 = engine_state_new(f->e);
    engine_initial(f->e, f->s0);
}

static void close_game(fix_t *f) {
    engine_state_free(f->s0);
    engine_free(f->e);
    game_free(f->g);
}

/* How many counter kinds the game has (each freed). */
static uint32_t kinds(fix_t *f) {
    counter_t *k[8];
    uint32_t n = counters_find(f->e, f->s0, k, 8);
    for (uint32_t i = 0; i < n; i++)
        counter_free(k[i]);
    return n;
}

/* The state after a's move `name` (b waits: noop). */
static void after(fix_t *f, const char *name, eng_state_t *t) {
    const term_t *m;
    term_t joint[2];
    assert_int_equal(engine_legal(f->e, f->s0, 1, &m), 1);
    joint[1] = m[0];
    uint32_t n = engine_legal(f->e, f->s0, 0, &m), k = 0;
    while (k < n && strcmp(term_sym_name(f->g->ts, term_sym(f->g->ts, m[k])), name))
        k++;
    assert_true(k < n);
    joint[0] = m[k];
    engine_next(f->e, f->s0, joint, t);
}

/* The score is one counter (the step counter has no role's name), ranged by its chain; its
 * lead predicts random matches, so a leads after gaining (above 50, the two adding to
 * 100), and waiting keeps the start's 50. */
static void test_lead(void **state) {
    (void)state;
    fix_t f;
    open_game(&f, load_text(SCORE));
    counter_t *k[8];
    assert_int_equal(counters_find(f.e, f.s0, k, 8), 1);
    uint32_t ra, na;
    assert_string_equal(term_sym_name(f.g->ts, counter_functor(k[0], &ra, &na)), "score");
    assert_int_equal(ra, 1);
    assert_int_equal(na, 2);
    assert_true(counter_range(k[0]) >= 3);
    counter_free(k[0]);
    heur_t *h = heur_counter(NULL, f.e, f.s0, 10, 0, NULL);
    assert_non_null(h);
    eng_state_t *t = engine_state_new(f.e);
    double v[2];
    heur_eval(h, f.e, f.s0, v);
    assert_true(fabs(v[0] - 50) < 1e-9);
    after(&f, "gain", t);
    heur_eval(h, f.e, t, v);
    assert_true(v[0] > 55);
    assert_true(fabs(v[0] + v[1] - 100) < 1e-9);
    after(&f, "wait", t);
    heur_eval(h, f.e, t, v);
    assert_true(fabs(v[0] - 50) < 1e-9);
    engine_state_free(t);
    heur_free(h);
    close_game(&f);
}

/* A counter whose lead does not predict the outcome (always a draw) is dropped: none. */
static void test_no_prediction(void **state) {
    (void)state;
    fix_t f;
    open_game(&f, load_text(DRAW));
    assert_int_equal(kinds(&f), 1);
    assert_null(heur_counter(NULL, f.e, f.s0, 10, 0, NULL));
    close_game(&f);
}

/* A counter whose final lead decides nothing (FILLED) or that falls (PLACE) is found, and
 * its lead predicts random matches, but it is no score: none kept. */
static void test_not_a_score(void **state) {
    (void)state;
    fix_t f;
    open_game(&f, load_text(FILLED));
    assert_int_equal(kinds(&f), 1);
    assert_null(heur_counter(NULL, f.e, f.s0, 10, 0, NULL));
    close_game(&f);
    open_game(&f, load_text(PLACE));
    assert_int_equal(kinds(&f), 1);
    assert_null(heur_counter(NULL, f.e, f.s0, 10, 0, NULL));
    close_game(&f);
}

/* No counters: breakthrough's pieces carry a role's name and numbers (cell(x, y, white)),
 * but many hold per role; the race's tokens two per role; tic-tac-toe's control(xplayer)
 * has no number. Material stays as it was. */
static void test_none(void **state) {
    (void)state;
    fix_t f;
    open_game(&f, load_file("breakthrough.kif"));
    assert_int_equal(kinds(&f), 0);
    heur_t *h = heur_material(f.e, f.s0, 10, NULL);
    assert_non_null(h);
    assert_ptr_equal(heur_counter(h, f.e, f.s0, 10, 0, NULL), h);
    heur_free(h);
    close_game(&f);
    open_game(&f, load_text(RACE));
    assert_int_equal(kinds(&f), 0);
    close_game(&f);
    open_game(&f, load_file("tictactoe.kif"));
    assert_int_equal(kinds(&f), 0);
    assert_null(heur_counter(NULL, f.e, f.s0, 10, 0, NULL));
    close_game(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lead),
        cmocka_unit_test(test_no_prediction),
        cmocka_unit_test(test_not_a_score),
        cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
