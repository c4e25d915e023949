/* Unit tests for player/belief on the engine interface: the sampled belief sets of a
 * GDL-II role tracked on the ground and compiled engines are the sets tracked on the
 * interpreter, state for state, turn after turn of random matches (the same seed, the
 * same observations), and so are the legal moves drawn from them; a set that claims to be
 * complete holds the true state. */
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
#include "load.h"
#include "player/belief.h"
#include "terms.h"

#define FAR 1e9 /* a deadline that never stops the work: the sets must not depend on time */

static bool contains_state(const belief_t *b, const state_t *s) {
    for (uint32_t i = 0; i < b->n; i++)
        if (state_equal(&b->states[i], s)) return true;
    return false;
}

static void same_sets(const belief_t *a, const belief_t *b) {
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->complete, b->complete);
    assert_int_equal(a->regenerated, b->regenerated);
    assert_int_equal(a->relaxed, b->relaxed);
    for (uint32_t i = 0; i < a->n; i++)
        assert_true(state_equal(&a->states[i], &b->states[i]));
}

static void same_legal(belief_t *a, belief_t *b) {
    term_t *ma, *mb;
    uint32_t na = belief_legal(a, &ma, FAR, NULL), nb = belief_legal(b, &mb, FAR, NULL);
    assert_int_equal(na, nb);
    assert_memory_equal(ma, mb, na * sizeof *ma);
    free(ma);
    free(mb);
}

/* Random matches of g played on the interpreter; every role's belief is tracked on the
 * interpreter and on engine `kind` side by side. Returns the turns compared. */
static uint32_t track(const char *game, engine_kind_t kind, uint32_t matches) {
    game_t *g = load_file(game);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    engine_t *e = engine_new(g, kind, stderr);
    assert_int_equal(engine_kind(e), kind);
    uint32_t nr = g->n_roles, turns = 0;
    splitmix_t rng = {11};
    state_t s, next;
    state_init(&s), state_init(&next);
    term_t joint[nr + 1];
    belief_t bi[nr + 1], be[nr + 1];
    for (uint32_t m = 0; m < matches; m++) {
        terms_initial(r, &s);
        for (uint32_t k = 0; k < nr; k++) {
            belief_init(&bi[k], r, k, 100 + m);
            belief_init(&be[k], e, k, 100 + m);
        }
        while (!terms_terminal(r, &s)) {
            for (uint32_t k = 0; k < nr; k++) {
                const term_t *mv;
                uint32_t n = terms_legal(r, &s, k, &mv);
                assert_true(n > 0);
                joint[k] = mv[splitmix_next(&rng) % n];
            }
            for (uint32_t k = 0; k < nr; k++) {
                const term_t *p;
                uint32_t np = terms_sees(r, &s, joint, k, &p);
                term_t percepts[np + 1];
                if (np) memcpy(percepts, p, np * sizeof *p);
                if (g->gdl2) {
                    belief_observe(&bi[k], joint[k], percepts, np, FAR);
                    belief_observe(&be[k], joint[k], percepts, np, FAR);
                } else {
                    belief_advance(&bi[k], joint);
                    belief_advance(&be[k], joint);
                }
            }
            terms_next(r, &s, joint, &next);
            state_copy(&s, &next);
            for (uint32_t k = 0; k < nr; k++) {
                same_sets(&bi[k], &be[k]);
                if (bi[k].complete) assert_true(contains_state(&bi[k], &s));
                if (!terms_terminal(r, &s)) same_legal(&bi[k], &be[k]);
            }
            turns++;
        }
        for (uint32_t k = 0; k < nr; k++) {
            belief_fini(&bi[k]);
            belief_fini(&be[k]);
        }
    }
    state_fini(&s), state_fini(&next);
    engine_free(e);
    engine_free(r);
    game_free(g);
    return turns;
}

static void test_guess(void **state) {
    (void)state;
    assert_true(track("guess.kif", ENGINE_GROUND, 10) > 10);
    assert_true(track("guess.kif", ENGINE_COMPILED, 10) > 10);
}

static void test_killer_small(void **state) {
    (void)state;
    assert_true(track("killer_small.kif", ENGINE_GROUND, 3) > 10);
    assert_true(track("killer_small.kif", ENGINE_COMPILED, 3) > 10);
}

/* GDL: the set is the one true state, told every move. */
static void test_tictactoe(void **state) {
    (void)state;
    assert_true(track("tictactoe.kif", ENGINE_COMPILED, 3) > 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guess),
        cmocka_unit_test(test_killer_small),
        cmocka_unit_test(test_tictactoe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
