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
#include "duel.h"
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
    /* a bad option's error lists the search's options and the player's, each once */
    strbuf_t err;
    sb_init(&err);
    assert_true(player_kind_error("ab:foo=1", &err));
    const char *cap = strstr(sb_str(&err), "cap=N");
    assert_non_null(cap);
    assert_null(strstr(cap + 1, "cap=N"));
    assert_non_null(strstr(sb_str(&err), "heur=off|material|adv"));
    sb_fini(&err);
}

/* One match of g between kinds k0 (role 0) and k1 (role 1), each told and given
 * move_seconds a move; role 0's goal. */
static int play_match(game_t *g, const player_kind_t *k0, const player_kind_t *k1,
                      double move_seconds) {
    duel_t d = {.kinds = {k0, k1},
                .startclock = move_seconds,
                .playclock = move_seconds,
                .start_seconds = move_seconds,
                .move_seconds = move_seconds,
                .seeds = {7, 8},
                .max_steps = 400};
    return duel_play(g, &d, 0, NULL);
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

/* The search counters of a match of `kind` on g stopped after its first move (a start clock
 * of `start` seconds, a play clock of a minute: the kinds tested are bounded by depth or
 * iterations, so the clocks are bounds only, whatever the load): the tree's iterations
 * (none where ab=on acts: alpha-beta chooses), the symbolic sets built (bdd=on). */
static player_search_t first_move(game_t *g, const char *kind, double start) {
    engine_t *mine = engine_new(g, ENGINE_INTERP, NULL), *ref = engine_new(g, ENGINE_INTERP, NULL);
    player_setup_t setup = {
        .game = g, .engine = mine, .role = 0, .startclock = start, .playclock = 1, .seed = 3};
    player_t *p = player_new(player_kind_find(kind), &setup);
    assert_non_null(p);
    state_t s;
    state_init(&s);
    terms_initial(ref, &s);
    player_start(p, &s, now_seconds() + start);
    const term_t *mv;
    uint32_t nl = terms_legal(ref, &s, 0, &mv);
    term_t *legal = malloc(nl * sizeof *legal);
    memcpy(legal, mv, nl * sizeof *legal);
    player_turn_t turn = {
        .states = &s, .n_states = 1, .exact = true, .legal = legal, .n_legal = nl};
    term_t m = player_play(p, &turn, now_seconds() + 60, NULL);
    assert_true(terms_is_legal(ref, &s, 0, m));
    free(legal);
    player_stop(p);
    player_search_t sum = {0};
    assert_true(player_search(p, &sum));
    player_free(p);
    state_fini(&s);
    engine_free(mine);
    engine_free(ref);
    return sum;
}

static uint64_t first_move_iterations(game_t *g, const char *kind) {
    return first_move(g, kind, 60).iterations;
}

/* ab=on is the default of mcts+lbs too, with the decision-diagram hook or the lifted
 * formulas: on breakthrough it chooses by alpha-beta as `mcts` does (it played UCT there,
 * so a series against `mcts` measured UCT against alpha-beta); ab=off still gives UCT. */
static void test_lbs_kind_ab(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    assert_int_equal(first_move_iterations(g, "mcts:abdepth=2"), 0);
    assert_int_equal(first_move(g, "mcts+lbs:abdepth=2:lbs=off", 60).ab_searches, 2);
    assert_int_equal(first_move_iterations(g, "mcts+lbs:abdepth=2:lbs=off"), 0);
    assert_int_equal(first_move_iterations(g, "mcts+lbs:abdepth=2:bdd=on:bddhorizon=1"), 0);
    assert_true(first_move_iterations(g, "mcts+lbs:ab=off:lbs=off:iters=50") > 0);
    game_free(g);
}

/* mcts+lbs:bdd=on:absets=on where ab=on acts builds the sets for alpha-beta (start_ab_bdd:
 * without a horizon, lbssteps=2: α_2/β_2 without the clock, so whatever the load) and
 * searches by alpha-beta with them, no tree; without absets=on (the default) and mcts build
 * none. With ab off the sets are built for the
 * tree (bddsolve=off: the sets without a horizon would take their share of the minute);
 * neither searches at start (alpha-beta bounded at two joint moves, UCT by iterations), so
 * the clock is only a bound. */
static void test_bdd_with_ab(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    player_search_t ab = first_move(g, "mcts+lbs:bdd=on:absets=on:lbssteps=2:abdepth=2", 60);
    assert_int_equal(ab.iterations, 0);
    assert_int_equal(ab.bdd_builds, 1);
    assert_int_equal(ab.ab_searches, 2);
    player_search_t plain = first_move(g, "mcts+lbs:bdd=on:lbssteps=2:abdepth=2", 60);
    assert_int_equal(plain.bdd_builds, 0);
    assert_int_equal(plain.ab_searches, 2);
    assert_int_equal(first_move(g, "mcts:abdepth=2", 60).bdd_builds, 0);
    player_search_t uct =
        first_move(g, "mcts+lbs:bdd=on:bddsolve=off:bddhorizon=1:ab=off:iters=10", 60);
    assert_true(uct.iterations > 0);
    assert_true(uct.bdd_builds >= 1);
    assert_true(uct.bdd_seconds > 0);
    strbuf_t sb;
    sb_init(&sb);
    assert_true(player_search_report(&uct, &sb));
    assert_non_null(strstr(sb_str(&sb), " bdd_builds="));
    sb_fini(&sb);
    game_free(g);
}

/* The counters of one match whose alpha-beta searched twice (the start and the first turn),
 * each completed to depth 2: the states searched, the leaves valued and the table's hits
 * (the turn's search finds the start's entries), none of the tree's, and the report's line. */
static void check_ab_counts(const player_search_t *t) {
    assert_int_equal(t->matches, 1);
    assert_int_equal(t->iterations, 0);
    assert_int_equal(t->ab_searches, 2);
    assert_int_equal(t->ab_depth_max, 2);
    assert_int_equal(t->ab_depth_sum, 4);
    assert_true(t->ab_nodes > 0 && t->ab_leaves > 0 && t->ab_tt_hits > 0);
    strbuf_t sb;
    sb_init(&sb);
    assert_true(player_search_report(t, &sb));
    printf("# %s\n", sb_str(&sb));
    assert_non_null(strstr(sb_str(&sb), "matches=1 "));
    assert_non_null(strstr(sb_str(&sb), " ab_searches=2 ab_nodes="));
    assert_non_null(strstr(sb_str(&sb), " ab_depth_mean=2.00 ab_depth_max=2 "));
    assert_null(strstr(sb_str(&sb), " ab_nodes=0 "));
    sb_fini(&sb);
}

/* Where ab=on acts, the search counters (the serve log's `match=ID search:` line) are
 * alpha-beta's: the start's search and the first turn's, each completed to the depth bound
 * (two joint moves: reached whatever the load, the clocks a minute); the tree's are 0. */
static void test_ab_counters(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    player_search_t t = first_move(g, "mcts:abdepth=2", 60);
    check_ab_counts(&t);
    /* UCT's report has none of them */
    player_search_t u = first_move(g, "mcts:ab=off:iters=50", 60);
    assert_int_equal(u.ab_searches, 0);
    strbuf_t sb;
    sb_init(&sb);
    assert_true(player_search_report(&u, &sb));
    assert_null(strstr(sb_str(&sb), "ab_"));
    sb_fini(&sb);
    game_free(g);
}

/* The `ab` kind keeps the same counters in the same line. */
static void test_ab_kind_counters(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    player_search_t t = first_move(g, "ab:depth=2", 60);
    check_ab_counts(&t);
    game_free(g);
}

/* bddshadow=on searches each own turn again from two fresh trees of one seed, with the sets
 * and without: at breakthrough's first move, sets within one step of the start (no
 * terminal state there: both empty; bddsolve=off, else sets without a horizon, deeper than
 * one step, are kept and catch every rollout a step before its end) cannot hit, so the two draw the
 * same numbers and must choose the same move; the CPU of the builds and of the search is counted.
 */
static void test_bdd_shadow(void **state) {
    (void)state;
    game_t *g = load_file("breakthrough.kif");
    assert_non_null(g);
    player_search_t t = first_move(
        g, "mcts+lbs:bdd=on:bddsolve=off:bddhorizon=1:ab=off:iters=300:bddshadow=on", 60);
    assert_int_equal(t.shadow_turns, 1);
    assert_int_equal(t.shadow_differ, 0);
    assert_int_equal(t.hook_hits, 0);
    assert_true(t.bdd_builds >= 1 && t.bdd_cpu > 0);
    strbuf_t sb;
    sb_init(&sb);
    assert_true(player_search_report(&t, &sb));
    assert_non_null(strstr(sb_str(&sb), " shadow_turns=1 shadow_differ=0"));
    sb_fini(&sb);
    assert_null(player_kind_find("mcts:bddshadow=on"));
    assert_null(player_kind_find("mcts+lbs:bddshadow=maybe"));
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),          cmocka_unit_test(test_breakthrough),
        cmocka_unit_test(test_lbs_kind_ab),      cmocka_unit_test(test_bdd_with_ab),
        cmocka_unit_test(test_bdd_shadow),       cmocka_unit_test(test_ab_counters),
        cmocka_unit_test(test_ab_kind_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
