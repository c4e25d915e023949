/* Distances of a role's pieces to its goal on the ground network (mcts/advance.h) and the
 * advancement term of the material evaluation (heur_advance). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"

#include "engine/fluents.h"
#include "load.h"
#include "mcts/advance.h"
#include "mcts/heur.h"
#include "race.h"

/* The state bits of the fluents of functor fn with role r's name at argument arg (1..). */
static uint64_t *pieces(engine_t *e, const char *fn, uint32_t arg, uint32_t r, uint32_t *n_words) {
    game_t *g = engine_game(e);
    term_t *bits;
    uint32_t n = engine_fluent_bits(e, &bits);
    *n_words = n / 64;
    uint64_t *m = calloc(*n_words, sizeof *m);
    for (uint32_t b = 0; b < n; b++) {
        term_t t = bits[b];
        if (t == TERM_NONE || term_kind(g->ts, t) != TERM_FUN ||
            strcmp(term_sym_name(g->ts, term_sym(g->ts, t)), fn) ||
            term_arg(g->ts, t, arg - 1) != g->roles[r])
            continue;
        m[b >> 6] |= 1ull << (b & 63);
    }
    free(bits);
    return m;
}

/* The number at argument arg (1..) of the fluent of state bit b. */
static int number_at(engine_t *e, uint32_t b, uint32_t arg) {
    game_t *g = engine_game(e);
    term_t *bits;
    engine_fluent_bits(e, &bits);
    int v = atoi(term_sym_name(g->ts, term_sym(g->ts, term_arg(g->ts, bits[b], arg - 1))));
    free(bits);
    return v;
}

/* Checks that every piece of role r (functor fn, the role at argument `owner`) is as far
 * from the goal as expect(its number at argument `row`) says; returns how many pieces. */
static uint32_t check_distances(engine_t *e, const char *fn, uint32_t owner, uint32_t row,
                                uint32_t r, int (*expect)(int)) {
    uint32_t n_words, n = 0;
    uint64_t *m = pieces(e, fn, owner, r, &n_words);
    uint8_t *d = advance_distances(e, r, m, n_words, 100000000ull, 0);
    assert_non_null(d);
    for (uint32_t b = 0; b < n_words * 64; b++) {
        if (!(m[b >> 6] >> (b & 63) & 1)) {
            assert_int_equal(d[b], ADV_NONE);
            continue;
        }
        assert_int_equal(d[b], expect(number_at(e, b, row)));
        n++;
    }
    free(d);
    free(m);
    return n;
}

static int white_to_8(int y) {
    return 8 - y;
}
static int black_to_1(int y) {
    return y - 1;
}

/* Breakthrough: a white piece on row y is 8 - y of white's moves from the far row, a black
 * one y - 1. The frame rule (next(cell) <= true(cell), not vacated, not entered) keeps a
 * piece, it does not make one: read as a maker, every piece would be one move from the
 * goal. */
static void test_breakthrough(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    assert_int_equal(check_distances(e, "cell", 3, 2, 0, white_to_8), 64);
    assert_int_equal(check_distances(e, "cell", 3, 2, 1, black_to_1), 64);
    engine_free(e);
    game_free(g);
}

/* A race of tokens whose move names no square (step(i)): the piece it moves is in the
 * next rule itself (next(tok(r, i, q)) <= does(r, step(i)), true(tok(r, i, p)),
 * succ(p, q)), so tok(r, i, p) is 3 - p moves from home, not one from every square. */
/* RACE: race.h. */

static int to_3(int p) {
    return 3 - p;
}

static void test_race(void **state) {
    (void)state;
    game_t *g = load_text(RACE);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    assert_int_equal(check_distances(e, "tok", 1, 3, 0, to_3), 8);
    assert_int_equal(check_distances(e, "tok", 1, 3, 1, to_3), 8);
    engine_free(e);
    game_free(g);
}

/* The start's readings stop at their deadline: with one gone, no material is seen
 * changing in random matches (none played: NULL) and no advancement read off the network
 * (false), where without a deadline breakthrough has both (chess_200's network took a
 * second to read while a compiler shared the core, past a 2 s start clock). Counted: a
 * deadline already past. */
static void test_deadline(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    eng_state_t *s = engine_state_new(e);
    engine_initial(e, s);
    double gone = now_seconds() - 1;
    assert_null(heur_material_by(e, s, 10, gone, NULL));
    heur_t *h = heur_material_by(e, s, 10, 0, NULL);
    assert_non_null(h);
    assert_false(heur_advance_by(h, e, gone, NULL));
    assert_true(heur_advance_by(h, e, 0, NULL));
    heur_free(h);
    engine_state_free(s);
    engine_free(e);
    game_free(g);
}

/* The evaluation: from breakthrough's start, white's piece one row forward (material
 * even) is worth more than 50 to white with advancement, exactly 50 without; the values
 * still add to 100. */
static void test_eval(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    eng_state_t *s = engine_state_new(e), *t = engine_state_new(e);
    engine_initial(e, s);
    heur_t *plain = heur_material(e, s, 10, NULL), *adv = heur_material(e, s, 10, NULL);
    assert_non_null(adv);
    assert_true(heur_advance(adv, e, NULL));
    const term_t *m;
    term_t joint[2];
    assert_int_equal(engine_legal(e, s, 1, &m), 1);
    joint[1] = m[0];
    uint32_t n = engine_legal(e, s, 0, &m);
    double v[2], w[2];
    uint32_t k = 0;
    for (; k < n; k++) { /* a straight step from row 2 to 3 */
        joint[0] = m[k];
        engine_next(e, s, joint, t);
        heur_eval(adv, e, t, v);
        heur_eval(plain, e, t, w);
        if (v[0] > 50) break;
        n = engine_legal(e, s, 0, &m);
    }
    assert_true(k < n);
    assert_true(fabs(w[0] - 50) < 1e-9);
    assert_true(fabs(v[0] + v[1] - 100) < 1e-9);
    heur_eval(adv, e, s, v); /* the start: even */
    assert_true(fabs(v[0] - 50) < 1e-9);
    heur_free(plain);
    heur_free(adv);
    engine_state_free(s);
    engine_state_free(t);
    engine_free(e);
    game_free(g);
}

/* Connect three's discs never move: dropped where they stay, every disc of a line is at
 * the goal or nowhere near it, so the spans are below two and advancement stays off. */
static void test_no_advancement(void **state) {
    (void)state;
    game_t *g = load_file("connect3_4x4.kif");
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t n_words;
        uint64_t *m = pieces(e, "cell", 3, r, &n_words);
        uint8_t *d = advance_distances(e, r, m, n_words, 100000000ull, 0);
        for (uint32_t b = 0; d && b < n_words * 64; b++)
            assert_true(d[b] == ADV_NONE || d[b] < 2);
        free(d);
        free(m);
    }
    engine_free(e);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breakthrough),   cmocka_unit_test(test_race),
        cmocka_unit_test(test_eval),           cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_no_advancement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
