/* Unit tests for alpha-beta with the material evaluation: the `ab` player kind
 * (player/player_ab.c): its heur= option, and that the material evaluation with
 * advancement reaches the leaves: on breakthrough, a one-ply search valued by it beats the
 * same search valued by the goal alone from both seats (two searches alike would give the
 * same match from either seat); and the `mcts` kind's ab=on (player/player_mcts.c), which
 * plays so where the evaluation gets advancement: bounded by abdepth, it wins from both
 * seats against that one-ply search, every move legal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "gdl/validate.h"
#include "load.h"
#include "player/agent.h"
#include "player/player.h"
#include "terms.h"

static void test_options(void **state) {
    (void)state;
    assert_non_null(player_kind_find("ab:heur=adv"));
    assert_non_null(player_kind_find("ab:heur=material:depth=3"));
    assert_non_null(player_kind_find("ab:heur=off"));
    assert_null(player_kind_find("ab:heur=maybe"));
    assert_non_null(player_kind_find("mcts:ab=off"));
    assert_non_null(player_kind_find("mcts:ab=on:heur=adv"));
    assert_non_null(player_kind_find("mcts:abdepth=3"));
    assert_null(player_kind_find("mcts:abdepth=-1"));
    assert_null(player_kind_find("mcts:ab=maybe"));
}

/* One match of g between kinds k0 (role 0) and k1 (role 1) through agents, every move
 * checked legal; role 0's goal. */
static int play_match(game_t *g, const player_kind_t *k0, const player_kind_t *k1,
                      double move_seconds) {
    engine_t *ref = engine_new(g, ENGINE_INTERP, NULL);
    agent_t *a[2];
    const player_kind_t *kinds[2] = {k0, k1};
    for (uint32_t i = 0; i < 2; i++) {
        agent_config_t cfg = {
            .kind = kinds[i], .startclock = move_seconds, .playclock = move_seconds, .seed = 7 + i};
        a[i] = agent_new(g, i, &cfg);
        agent_start(a[i], now_seconds() + move_seconds);
    }
    state_t s, n;
    state_init(&s);
    state_init(&n);
    terms_initial(ref, &s);
    term_t joint[2];
    for (uint32_t steps = 0; !terms_terminal(ref, &s); steps++) {
        assert_true(steps < 400);
        for (uint32_t i = 0; i < 2; i++) {
            joint[i] = agent_play(a[i], now_seconds() + move_seconds, NULL);
            assert_true(terms_is_legal(ref, &s, i, joint[i]));
        }
        terms_next(ref, &s, joint, &n);
        state_copy(&s, &n);
        for (uint32_t i = 0; i < 2; i++)
            agent_advance(a[i], joint);
    }
    int goal = terms_goal_value(ref, &s, 0);
    for (uint32_t i = 0; i < 2; i++) {
        agent_stop(a[i]);
        agent_free(a[i]);
    }
    state_fini(&s);
    state_fini(&n);
    engine_free(ref);
    return goal;
}

/* On breakthrough, each kind that values leaves by material with advancement beats the
 * one-ply search valued by the goal alone from both seats: the `ab` player searching one
 * ply, and the default `mcts` (ab=on acts there) bounded at two joint moves. Depth bounds
 * and a clock no search reaches make every move the same on any machine. */
static void test_breakthrough(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    const player_kind_t *goal = player_kind_find("ab:eval=goal:depth=1");
    assert_non_null(goal);
    const char *kinds[] = {"ab:eval=goal:depth=1:heur=adv", "mcts:abdepth=2"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        const player_kind_t *adv = player_kind_find(kinds[i]);
        assert_non_null(adv);
        assert_int_equal(play_match(g, adv, goal, 60), 100);
        assert_int_equal(play_match(g, goal, adv, 60), 0);
    }
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_breakthrough),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
