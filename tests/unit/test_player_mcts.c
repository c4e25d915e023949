/* Unit tests for the `mcts` and `mcts+lbs` player kinds (player/player_mcts.c): options,
 * tic-tac-toe matches against `random` through agents (the code path of `ggp match`), where it must
 * never lose nor answer an illegal move, a time-bounded search that offers its moves
 * through a sink (player.h directly), and the fallback when the true state is unknown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "base/rng.h"
#include "duel.h"
#include "gdl/validate.h"
#include "load.h"
#include "player/agent.h"
#include "player/player.h"
#include "terms.h"
#include "trap.h"

static game_t *load_game(const char *name) {
    game_t *g = load_file(name);
    if (!g) fail_msg("%s does not load", name);
    return g;
}

static bool contains(const term_t *moves, uint32_t n, term_t m) {
    for (uint32_t i = 0; i < n; i++)
        if (moves[i] == m) return true;
    return false;
}

static void test_kind_options(void **state) {
    (void)state;
    const player_kind_t *k = player_kind_find("mcts");
    assert_non_null(k);
    assert_string_equal(k->name, "mcts");
    assert_null(k->options);
    const player_kind_t *k1 = player_kind_find("mcts:iters=100:c=0.7:margin=0.1");
    assert_non_null(k1);
    assert_string_equal(k1->name, "mcts:iters=100:c=0.7:margin=0.1");
    assert_string_equal(k1->options, "iters=100:c=0.7:margin=0.1");
    assert_ptr_equal(k1, player_kind_find("mcts:iters=100:c=0.7:margin=0.1"));
    assert_ptr_equal(k1->play, k->play);
    assert_null(player_kind_find("mcts:iters=0"));
    assert_null(player_kind_find("mcts:iters=x"));
    assert_null(player_kind_find("mcts:iters=-3"));
    assert_null(player_kind_find("mcts:c=-1"));
    assert_null(player_kind_find("mcts:depth=3"));
    assert_null(player_kind_find("mcts:iters"));
    assert_null(player_kind_find("mcts:iters=5:")); /* a trailing colon, as every kind */
    assert_non_null(player_kind_find("mcts:ponder=on:tt=on:decisive=anti:mast=0.1"));
    assert_non_null(player_kind_find("mcts:decisive=on:mast=off:tt=off:ponder=off"));
    assert_null(player_kind_find("mcts:ponder=yes"));
    assert_null(player_kind_find("mcts:decisive=2"));
    assert_null(player_kind_find("mcts:mast=1.5"));
    assert_null(player_kind_find("mcts:mast=-0.1"));
    assert_non_null(player_kind_find("mcts:heur=material:imm=0.4:cut=8"));
    assert_non_null(player_kind_find("mcts:heur=on:imm=0"));
    assert_null(player_kind_find("mcts:heur=pieces"));
    assert_null(player_kind_find("mcts:imm=1.5"));
    assert_null(player_kind_find("random:iters=3"));
    assert_null(player_kind_find("mctsx"));
    assert_null(player_kind_find("mct"));
    strbuf_t names;
    sb_init(&names);
    player_kind_names(&names);
    assert_non_null(strstr(sb_str(&names), "mcts"));
    sb_fini(&names);
}

/* A game of the public corpus (GGP_CORPUS, else the one the build was told of); the test
 * fails where it is missing, not skipped. */
static game_t *load_corpus(const char *name) {
    const char *dir = getenv("GGP_CORPUS");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : CORPUS_DIR, name);
    game_t *g = load_path(path);
    if (!g) fail_msg("corpus game %s not found (set GGP_CORPUS)", path);
    return g;
}

static double start_seconds = 0.2; /* the start clock play_match gives */

/* Plays one match of g between two agents (kind i plays role i; told 1 s clocks, given
 * start_seconds to start and a minute a move: a bound only, as the kinds played here are
 * bounded by iterations, answer at once or stop at a proof, and 5 s could cut a starved
 * search short); returns the goal of role mcts_seat, whose search counters are added to
 * *sum (when not NULL). */
static int play_match(game_t *g, const player_kind_t *k0, const player_kind_t *k1,
                      uint32_t mcts_seat, uint64_t seed, player_search_t *sum) {
    duel_t d = {.kinds = {k0, k1},
                .startclock = 1,
                .playclock = 1,
                .start_seconds = start_seconds,
                .move_seconds = 60,
                .seeds = {seed * 2, seed * 2 + 1},
                .max_steps = 20};
    return duel_play(g, &d, mcts_seat, sum);
}

static void test_tictactoe_vs_random(void **state) {
    (void)state;
    game_t *g = load_game("tictactoe.kif");
    const player_kind_t *mcts = player_kind_find("mcts:iters=1500");
    const player_kind_t *rnd = player_kind_find("random");
    assert_non_null(mcts);
    assert_non_null(rnd);
    int wins = 0;
    for (uint64_t m = 0; m < 8; m++) {
        bool first = m % 2 == 0;
        int goal = first ? play_match(g, mcts, rnd, 0, 100 + m, NULL)
                         : play_match(g, rnd, mcts, 1, 100 + m, NULL);
        assert_true(goal >= 50); /* never loses: 100 win, 50 draw */
        wins += goal == 100;
    }
    assert_true(wins >= 4);
    /* with the rollout policies and transpositions on */
    mcts = player_kind_find("mcts:iters=1500:tt=on:decisive=anti:mast=0.1");
    assert_non_null(mcts);
    for (uint64_t m = 0; m < 4; m++) {
        bool first = m % 2 == 0;
        int goal = first ? play_match(g, mcts, rnd, 0, 200 + m, NULL)
                         : play_match(g, rnd, mcts, 1, 200 + m, NULL);
        assert_true(goal >= 50);
    }
    game_free(g);
}

/* The mcts+lbs kind: its options (mcts takes none of them), matches against random that it
 * never loses, and the counters summed per kind, with no Z3 disagreement. */
static void test_lbs_kind(void **state) {
    (void)state;
    assert_non_null(player_kind_find("mcts+lbs"));
    assert_non_null(
        player_kind_find("mcts+lbs:iters=10:budget=2:confirm=none:lbs=off:hookcost=0:z3share=0.5"));
    assert_null(player_kind_find("mcts+lbs:confirm=maybe"));
    assert_null(player_kind_find("mcts+lbs:lbs=no"));
    assert_null(player_kind_find("mcts+lbs:budget=0"));
    assert_null(player_kind_find("mcts+lbs:z3share=2"));
    assert_non_null(player_kind_find("mcts+lbs:bdd=on:bddhorizon=9:bddvalues=on"));
    assert_null(player_kind_find("mcts+lbs:bddvalues=maybe"));
    assert_null(player_kind_find("mcts:bddvalues=on"));
    assert_null(player_kind_find("mcts:confirm=z3"));
    assert_null(player_kind_find("mcts:lbs=off"));
    game_t *g = load_game("tictactoe.kif");
    assert_null(player_kind_find("mcts+lbs:lbssteps=64"));
    assert_null(player_kind_find("mcts:lbssteps=2"));
    /* the formulas by work, not by the clock (lbssteps, no cost bound; hookcost=0: the hook
     * uses every one), so that a loaded machine makes the same ones: at a 1.5 s start clock
     * and 5x slower, backward search made none and the test below checked nothing */
    const player_kind_t *lbs =
        player_kind_find("mcts+lbs:iters=1500:confirm=z3:lbssteps=2:hookcost=0:z3share=0");
    const player_kind_t *rnd = player_kind_find("random");
    assert_non_null(lbs);
    start_seconds = 60; /* a bound only: an iteration-bounded start returns when it is done */
    player_search_t sum = {0};
    for (uint64_t m = 0; m < 4; m++) {
        bool first = m % 2 == 0;
        int goal = first ? play_match(g, lbs, rnd, 0, 200 + m, &sum)
                         : play_match(g, rnd, lbs, 1, 200 + m, &sum);
        assert_true(goal >= 50);
    }
    start_seconds = 0.2;
    strbuf_t sb;
    sb_init(&sb);
    assert_true(player_search_report(&sum, &sb));
    printf("# %s\n", sb_str(&sb));
    assert_non_null(strstr(sb_str(&sb), "matches=4 lbs_matches=4 "));
    assert_non_null(strstr(sb_str(&sb), " z3_disagree=0 "));
    assert_null(strstr(sb_str(&sb), " hook_calls=0 "));
    /* every match had formulas the hook used, and their hits were confirmed by Z3 */
    assert_int_equal(sum.lbs.n_alpha, 4 * 3); /* α_0..α_2 */
    assert_int_equal(sum.lbs.n_beta, 4 * 3);
    assert_int_equal(sum.lbs.hook_alpha, 4 * 2); /* α_1, α_2: the hook never sees α_0 */
    assert_true(sum.lbs.checks > 0);
    assert_true(sum.lbs.z3_confirmed > 0);
    sb_clear(&sb);
    player_search_t none = {0};
    assert_false(player_search_report(&none, &sb)); /* no match: no line */
    sb_fini(&sb);
    game_free(g);
}

/* One match of game g (seed 7) between the kind spec, in seat `seat` (0 or 1), and
 * alpha-beta; the spec's goal, its counters added to *sum. The start clock is a bound only
 * (the sets take about 0.01 s of CPU on nim). */
static int against_ab(game_t *g, const char *spec, uint32_t seat, player_search_t *sum) {
    const player_kind_t *k = player_kind_find(spec);
    const player_kind_t *ab = player_kind_find("ab");
    assert_non_null(k);
    assert_non_null(ab);
    start_seconds = 60; /* a bound: at 2 s a starved start made its sets at a turn */
    int goal = seat == 0 ? play_match(g, k, ab, 0, 7, sum) : play_match(g, ab, k, 1, 7, sum);
    start_seconds = 0.2;
    return goal;
}

/* bdd=on solves games/nim.kif (heaps 1, 2, 3, 5: the first player forces its win) at
 * start (after a probe: one step, its forward search not given up) and keeps the sets for
 * the match, never rebuilt: against alpha-beta, which solves
 * it too (one decision-diagram manager per process: not two such players), it wins in the
 * first seat, and in the second searches its start and turns without the sets (each
 * proven lost: plain search's move, not the first legal one every proven move ties at). */
static void test_bdd_solved(void **state) {
    (void)state;
    game_t *g = load_game("nim.kif");
    player_search_t first = {0}, second = {0};
    assert_int_equal(against_ab(g, "mcts+lbs:bdd=on:iters=200", 0, &first), 100);
    assert_int_equal(against_ab(g, "mcts+lbs:bdd=on:iters=200", 1, &second), 0);
    assert_int_equal(first.bdd_solved, 1);
    assert_int_equal(first.bdd_builds, 2); /* the probe, the sets */
    assert_int_equal(first.bdd_reused, 1); /* the sets went on from the probe's network */
    assert_int_equal(second.bdd_reused, 1);
    assert_int_equal(first.bdd_lost, 0);
    assert_int_equal(first.bdd_lost_start, 0);
    assert_int_equal(second.bdd_solved, 1);
    assert_int_equal(second.bdd_builds, 2);
    assert_true(second.bdd_lost >= 1);
    /* the second seat is lost from the initial state: its start is searched without them
     * too (timed, the start clock searched rather than idle at a proven root) */
    assert_int_equal(second.bdd_lost_start, 1);
    assert_non_null(player_kind_find("mcts+lbs:bdd=on:bddsolve=off"));
    assert_null(player_kind_find("mcts:bddsolve=on"));
    assert_non_null(player_kind_find("mcts+lbs:bdd=on:bddlong=off:bddlate=0.3"));
    assert_null(player_kind_find("mcts+lbs:bddlong=maybe"));
    assert_null(player_kind_find("mcts+lbs:bddlate=-1"));
    assert_null(player_kind_find("mcts:bddlong=on"));
    game_free(g);
}

/* Sets not complete (lbssteps=3: the start's sets without a horizon stop at α_3/β_3, kept
 * for the match as deeper than bddhorizon=2, not solved) hold states lost within 3 steps:
 * in the second seat of games/nim.kif against alpha-beta, a turn whose state is lost in 4 is
 * in no β set (lost_bdd keeps them on) while every successor is, so the tree proves its root
 * lost at once; the turn is then searched again without them (lost_tree), not answered from
 * a tree stopped at its proof. */
static void test_bdd_lost_tree(void **state) {
    (void)state;
    game_t *g = load_game("nim.kif");
    player_search_t sum = {0};
    assert_int_equal(against_ab(g, "mcts+lbs:bdd=on:iters=200:lbssteps=3:bddhorizon=2", 1, &sum),
                     0);
    strbuf_t sb;
    sb_init(&sb);
    assert_true(player_search_report(&sum, &sb));
    printf("# %s\n", sb_str(&sb));
    sb_fini(&sb);
    assert_int_equal(sum.bdd_solved, 0);
    assert_int_equal(sum.bdd_builds, 2);     /* the probe, the sets: kept, never rebuilt */
    assert_int_equal(sum.bdd_lost_start, 0); /* the initial state is in no β set */
    assert_true(sum.bdd_lost_tree >= 1);
    game_free(g);
}

/* Sets rebuilt with fewer than three complete steps (a horizon of 1: α_0 and α_1) are
 * dropped for the match after the second such rebuild (with iters=N: at every own turn):
 * the start's sets, the rebuilds at turns 2 and 4, then none; with a horizon of 2 never. */
static void test_bdd_dropped(void **state) {
    (void)state;
    game_t *g = load_game("tictactoe.kif");
    const player_kind_t *rnd = player_kind_find("random");
    const player_kind_t *k1 =
        player_kind_find("mcts+lbs:bdd=on:bddsolve=off:bddhorizon=1:iters=100");
    const player_kind_t *k2 =
        player_kind_find("mcts+lbs:bdd=on:bddsolve=off:bddhorizon=2:iters=100");
    assert_non_null(k1);
    assert_non_null(k2);
    start_seconds = 2; /* a bound: the sets take milliseconds */
    player_search_t one = {0}, two = {0};
    play_match(g, k1, rnd, 0, 11, &one);
    play_match(g, k2, rnd, 0, 11, &two);
    start_seconds = 0.2;
    assert_int_equal(one.bdd_dropped, 1);
    assert_int_equal(one.bdd_builds, 3);
    assert_int_equal(two.bdd_dropped, 0);
    assert_true(two.bdd_builds >= 3);
    game_free(g);
}

/* A player of `kind` for `role` on a ground engine of g, told clocks of start_s and play_s
 * seconds and given as much: started from init, then one turn (number `turn`) in s, whose
 * move must be legal (ref: the reference engine). Its search counters. */
static player_search_t start_and_turn(game_t *g, engine_t *ref, const char *kind, uint32_t role,
                                      const state_t *init, double start_s, const state_t *s,
                                      uint32_t turn_no, double play_s) {
    const term_t *mv;
    uint32_t nl = terms_legal(ref, s, role, &mv);
    term_t *legal = malloc(nl * sizeof *legal);
    memcpy(legal, mv, nl * sizeof *legal);
    engine_t *mine = engine_new(g, ENGINE_GROUND, NULL);
    player_setup_t setup = {.game = g,
                            .engine = mine,
                            .role = role,
                            .startclock = start_s,
                            .playclock = play_s,
                            .seed = 3};
    player_t *p = player_new(player_kind_find(kind), &setup);
    assert_non_null(p);
    player_start(p, init, now_seconds() + start_s);
    player_turn_t turn = {
        .states = s, .n_states = 1, .exact = true, .legal = legal, .n_legal = nl, .turn = turn_no};
    term_t m = player_play(p, &turn, now_seconds() + play_s, NULL);
    assert_true(contains(legal, nl, m));
    player_stop(p);
    player_search_t sum = {0};
    player_search(p, &sum);
    player_free(p);
    free(legal);
    engine_free(mine);
    return sum;
}

/* The start clock of the tests below that build sets at start, a bound, not a duration
 * (idle they take under a second): under a series at nice -10 a test at nice 0 gets about
 * a tenth of a core, and duplicateStateMedium's sets, 3 CPU s where given a minute, were
 * then not made within 60 s (bdd_solved 0). */
#define START_BOUND 300
/* The clock of a turn where the end game's sets are built (test_bdd_late), a bound too */
#define TURN_BOUND 1200

/* Where the probe at start gives up (games/connect4.kif: its forward search passes its
 * node cap), no sets are made within a horizon: the end game is solved from the match's
 * state instead (the probe from it, then the sets without a horizon, complete to the last
 * layer) and kept for the match. Here a turn at ply 30 of a random match (12 cells left):
 * the start's probe (no step past its forward search, given up), the turn's sets, solved. */
static void test_bdd_late(void **state) {
    (void)state;
    game_t *g = load_game("connect4.kif");
    engine_t *ref = engine_new(g, ENGINE_INTERP, NULL);
    state_t s;
    state_init(&s);
    for (uint64_t seed = 1;; seed++) { /* a random match at least 31 plies long */
        splitmix_t rng = {.s = seed};
        if (terms_random_walk(ref, &s, 30, &rng) == 30 && !terms_terminal(ref, &s)) break;
    }
    const term_t *mv;
    uint32_t role = terms_legal(ref, &s, 0, &mv) > 1 ? 0 : 1;
    state_t init;
    state_init(&init);
    terms_initial(ref, &init);
    /* bounds, not clocks (iters=200): the probe and the end game take about 0.26 CPU s
     * together (7 s of wall time at nice 19 beside other work); the end game gets
     * BDD_RENEW_MAX (0.4) of the turn's clock, its forward search a share of that. Starved
     * (SCHED_IDLE beside a busy loop at nice 0) it took 41-54 s where it was solved, and
     * stopped after 1 step of 13 (bdd_solved 0) at 24 s, a 60 s turn's share, in 3 runs of
     * 3, and at 88 s of a 300 s turn's 120 in 1 of 3: TURN_BOUND gives it 480 s, the test's
     * time-out (1800 s) is the hang guard */
    player_search_t sum = start_and_turn(g, ref, "mcts+lbs:bdd=on:iters=200", role, &init,
                                         START_BOUND, &s, 30, TURN_BOUND);
    assert_int_equal(sum.bdd_solved, 1);
    assert_int_equal(sum.bdd_builds, 2);
    assert_int_equal(sum.bdd_reused, 1); /* the turn's on the probe's network (late_try) */
    assert_int_equal(sum.bdd_dropped, 0);
    assert_int_equal(sum.bdd_proven, sum.bdd_set_turns); /* the turn searched with them */
    state_fini(&init);
    state_fini(&s);
    engine_free(ref);
    game_free(g);
}

/* One match of g, a game of one role, played by `kind` (seeded) through an agent, told
 * START_BOUND and 60 s clocks and given as much (bounds: a search from a proven root, or
 * an iteration-bounded one, ends at once); every move legal. Its goal, and its search
 * counters added to *sum. */
static int solo_match(game_t *g, const char *kind, uint64_t seed, player_search_t *sum) {
    engine_t *ref = engine_new(g, ENGINE_INTERP, NULL);
    agent_config_t cfg = {
        .kind = player_kind_find(kind), .startclock = START_BOUND, .playclock = 60, .seed = seed};
    assert_non_null(cfg.kind);
    agent_t *a = agent_new(g, 0, &cfg);
    agent_start(a, now_seconds() + START_BOUND);
    state_t s, n;
    state_init(&s);
    state_init(&n);
    terms_initial(ref, &s);
    for (uint32_t steps = 0; !terms_terminal(ref, &s); steps++) {
        assert_true(steps < 20);
        term_t m = agent_play(a, now_seconds() + 60, NULL);
        assert_true(terms_is_legal(ref, &s, 0, m));
        terms_next(ref, &s, &m, &n);
        state_copy(&s, &n);
        agent_advance(a, &m);
    }
    agent_stop(a);
    assert_true(agent_search(a, sum));
    int goal = terms_goal_value(ref, &s, 0);
    agent_free(a);
    state_fini(&s);
    state_fini(&n);
    engine_free(ref);
    return goal;
}

/* A game solved at start whose tree was searched beside the probe: the corpus's
 * duplicateStateMedium (one role; a tree of depth 10 where one path scores 100). Its
 * graph of states is small and the start's search makes all the nodes it will make while
 * the probe runs, without the sets: they were not asked again, and the match went to the
 * rollouts' 44 (every match of a timed series at 5 s / 0.5 s). The tree is made again once
 * the sets are solved: 100, each move from a proven root. Timed (the probe runs beside the
 * tree only then); the clocks are bounds, not durations: the sets take about 0.4 s, and a
 * search from a proven root stops at once, so a starved machine gets a minute for what
 * takes a second idle. */
static void test_bdd_solved_tree(void **state) {
    (void)state;
    game_t *g = load_corpus("duplicateStateMedium.kif");
    player_search_t sum = {0};
    assert_int_equal(solo_match(g, "mcts+lbs:bdd=on", 5, &sum), 100);
    assert_int_equal(sum.bdd_solved, 1);
    game_free(g);
}

/* A corridor of six steps (one role): `go` each step reaches the goal, 100, and any of
 * nine `walk`s loses it for good (0 at the end, whatever follows): firefighter's shape.
 * The sets solve it at start; at iters=2 a turn expands two of its ten moves, so the
 * visits alone find `go` at a turn with odds of 1 in 5. The move comes from the sets
 * (uct_set_hook_moves): every turn's `go`, proven to win, whether expanded or not. */
static const char *corridor =
    "(role p) (init (pos 0)) (init (step 0))"
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)"
    "(dir 1) (dir 2) (dir 3) (dir 4) (dir 5) (dir 6) (dir 7) (dir 8) (dir 9)"
    "(legal p go) (<= (legal p (walk ?d)) (dir ?d))"
    "(<= (next (pos ?y)) (does p go) (true (pos ?x)) (succ ?x ?y))"
    "(<= (next (pos ?x)) (does p (walk ?d)) (true (pos ?x)))"
    "(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))"
    "(<= terminal (true (step 6)))"
    "(<= (goal p 100) (true (pos 6)))"
    "(<= (goal p 0) (true (pos ?x)) (distinct ?x 6))";

static void test_bdd_moves_from_sets(void **state) {
    (void)state;
    game_t *g = load_text(corridor);
    assert_non_null(g);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        player_search_t sum = {0};
        assert_int_equal(solo_match(g, "mcts+lbs:bdd=on:iters=2:threads=1", seed, &sum), 100);
        assert_int_equal(sum.bdd_solved, 1);
    }
    game_free(g);
}

/* The probe at start out of time (bddreach: its forward search's deadline a microsecond
 * into the clock, past before it starts): duplicateStateMedium's states are few, so the
 * sets without a horizon are made still and solve it within the start clock, where a probe
 * that gave up past its node cap leaves the start to the tree (then none solved there). */
static void test_bdd_probe_late(void **state) {
    (void)state;
    game_t *g = load_corpus("duplicateStateMedium.kif");
    /* iters=200: no search after the sets, so the start clock is a bound (the sets take
     * about 0.5 s idle), wide enough for a starved machine */
    agent_config_t cfg = {.kind = player_kind_find("mcts+lbs:bdd=on:bddreach=0.0000002:iters=200"),
                          .startclock = START_BOUND,
                          .playclock = 1,
                          .seed = 5};
    assert_non_null(cfg.kind);
    agent_t *a = agent_new(g, 0, &cfg);
    agent_start(a, now_seconds() + START_BOUND);
    agent_stop(a);
    player_search_t sum = {0};
    assert_true(agent_search(a, &sum));
    assert_int_equal(sum.bdd_solved, 1);
    agent_free(a);
    game_free(g);
}

/* Where the start's forward searches run out of time twice (bddcut=1: the probe's and the
 * sets' cut after one layer as by their deadline, a loaded machine's, without the clock),
 * the game is not taken for one of too many states: timed, the end game is tried at the
 * first own turn (games/lightsout.kif, one role: no other's turn, where alone it was tried
 * before, so such a game lost its sets for the match) and solved there. The clocks are
 * bounds: the sets take milliseconds, and the turn's search stops at its proven root. */
static void test_bdd_retry(void **state) {
    (void)state;
    game_t *g = load_game("lightsout.kif");
    engine_t *ref = engine_new(g, ENGINE_INTERP, NULL);
    state_t s;
    state_init(&s);
    terms_initial(ref, &s);
    /* the turn's sets get a share of its 60 s; the start ends where its tree proves the
     * root (165 iterations). A 2 s start was a verdict: starved (ASan, a busy loop at nice 0
     * on the core) the network's diagrams met its deadline ("playing plain MCTS", no
     * build: 3 runs of 3) */
    player_search_t sum =
        start_and_turn(g, ref, "mcts+lbs:bdd=on:bddcut=1:threads=1", 0, &s, START_BOUND, &s, 0, 60);
    assert_int_equal(sum.bdd_builds, 3); /* the probe, the start's sets, the turn's */
    assert_int_equal(sum.bdd_solved, 1);
    state_fini(&s);
    engine_free(ref);
    game_free(g);
}

/* Where the probe at start gives up (games/connect4.kif: its forward search passes its
 * node cap; counted as a build) and no end game is tried (a 120 s move: solve_late's share
 * of it, 48 s, is under bddlate=60), `mcts+lbs:bdd=on` is `mcts`: at equal iterations and seeds,
 * from either seat, the same match (the goal) searched alike (its counters: any other
 * move, tree or random stream shows in the rollouts' steps). Clocks are bounds only. */
static void test_bdd_gave_up_is_mcts(void **state) {
    (void)state;
    game_t *g = load_game("connect4.kif");
    const player_kind_t *bdd =
        player_kind_find("mcts+lbs:bdd=on:iters=200:ponder=off:threads=1:bddlate=60");
    const player_kind_t *plain = player_kind_find("mcts:iters=200:ponder=off:threads=1");
    assert_non_null(bdd);
    assert_non_null(plain);
    for (uint32_t seat = 0; seat < 2; seat++) {
        player_search_t with = {0}, without = {0};
        duel_t d = {.kinds = {plain, plain},
                    .startclock = 60,
                    .playclock = 120,
                    .start_seconds = 60, /* iters=N: the start ends with the probe */
                    .move_seconds = 120, /* iters=N: a bound (2 s cut starved searches) */
                    .seeds = {11, 12},
                    .max_steps = 43};
        int goal = duel_play(g, &d, seat, &without);
        d.kinds[seat] = bdd;
        assert_int_equal(duel_play(g, &d, seat, &with), goal);
        assert_int_equal(with.bdd_builds, 1); /* the probe */
        assert_int_equal(with.bdd_solved, 0);
        assert_int_equal(with.hook_calls, 0);
        assert_int_equal(with.iterations, without.iterations);
        assert_int_equal(with.rollouts, without.rollouts);
        assert_int_equal(with.rollout_steps, without.rollout_steps);
    }
    game_free(g);
}

typedef struct {
    const term_t *legal;
    uint32_t n_legal;
    uint32_t offers, bad;
} offers_t;

static void record_offer(void *ctx, term_t move) {
    offers_t *o = ctx;
    o->offers++;
    if (!contains(o->legal, o->n_legal, move)) o->bad++;
}

/* One player through player.h against random moves, on a time budget, with a sink. */
static void test_timed_with_sink(void **state) {
    (void)state;
    game_t *g = load_game("connect4.kif");
    engine_t *mine = engine_new(g, ENGINE_INTERP, NULL), *ref = engine_new(g, ENGINE_INTERP, NULL);
    player_setup_t setup = {
        .game = g, .engine = mine, .role = 0, .startclock = 1, .playclock = 1, .seed = 9};
    player_t *p = player_new(player_kind_find("mcts"), &setup);
    state_t s, n;
    state_init(&s);
    state_init(&n);
    terms_initial(ref, &s);
    player_start(p, &s, now_seconds() + 0.1);
    splitmix_t rng = {.s = 5};
    for (uint32_t t = 0; t < 6 && !terms_terminal(ref, &s); t++) {
        term_t joint[2];
        for (uint32_t i = 0; i < 2; i++) {
            const term_t *mv;
            uint32_t nl = terms_legal(ref, &s, i, &mv);
            term_t *legal = malloc(nl * sizeof *legal);
            memcpy(legal, mv, nl * sizeof *legal);
            if (i == 0) {
                player_turn_t turn = {.states = &s,
                                      .n_states = 1,
                                      .exact = true,
                                      .legal = legal,
                                      .n_legal = nl,
                                      .turn = t};
                offers_t o = {.legal = legal, .n_legal = nl};
                move_sink_t sink = {.offer = record_offer, .ctx = &o};
                /* (how late it answers is a timing, measured by the clock scripts) */
                joint[0] = player_play(p, &turn, now_seconds() + 0.15, &sink);
                assert_true(contains(legal, nl, joint[0]));
                assert_true(o.offers >= 1);
                assert_int_equal(o.bad, 0);
            } else {
                joint[1] = legal[splitmix_next(&rng) % nl];
            }
            free(legal);
        }
        terms_next(ref, &s, joint, &n);
        state_copy(&s, &n);
    }
    player_stop(p);
    player_free(p);
    state_fini(&s);
    state_fini(&n);
    engine_free(mine);
    engine_free(ref);
    game_free(g);
}

/* One match of `kind` on tic-tac-toe started with no start clock (as a START whose clock
 * is gone: test_protocol's test_service_gdl2_start_clock), then one own turn with three
 * moves left and `seconds` to answer: the iterations it searched, and whether the player's
 * engine is an interpreter the deadline cut the grounding of (a second agent's to come,
 * unless `final`: player_t.engine_final set after the start, as a server whose second
 * agent was dropped does). */
static uint64_t turn_after_no_start_clock(const char *kind, bool final, double seconds, bool *cut) {
    game_t *g = load_game("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    player_setup_t setup = {
        .game = g, .engine = r, .role = 0, .startclock = 0, .playclock = 1, .seed = 3};
    player_t *p = player_new(player_kind_find(kind), &setup);
    assert_non_null(p);
    state_t s;
    state_init(&s);
    terms_initial(r, &s);
    player_start(p, &s, now_seconds()); /* no time: a state's cost is not measured */
    assert_non_null(p->engine);
    *cut = engine_kind(p->engine) == ENGINE_INTERP && engine_grounding_cut(p->engine);
    p->engine_final = final;
    /* xplayer to move with three cells left (a seed whose six random plies end no match) */
    const term_t *mv;
    uint32_t nl = 0;
    for (uint64_t seed = 1; nl < 2; seed++) {
        splitmix_t rng = {.s = seed};
        if (terms_random_walk(r, &s, 6, &rng) == 6 && !terms_terminal(r, &s))
            nl = terms_legal(r, &s, 0, &mv);
    }
    term_t *legal = malloc(nl * sizeof *legal);
    memcpy(legal, mv, nl * sizeof *legal);
    player_turn_t turn = {
        .states = &s, .n_states = 1, .exact = true, .legal = legal, .n_legal = nl, .turn = 6};
    offers_t o = {.legal = legal, .n_legal = nl};
    move_sink_t sink = {.offer = record_offer, .ctx = &o};
    /* a search ends when its root is proven (a few hundred iterations), before the clock */
    term_t m = player_play(p, &turn, now_seconds() + seconds, &sink);
    assert_true(contains(legal, nl, m));
    assert_int_equal(o.bad, 0);
    player_stop(p);
    player_search_t sum = {0};
    player_search(p, &sum);
    player_free(p);
    free(legal);
    state_fini(&s);
    engine_free(r);
    game_free(g);
    return sum.iterations;
}

/* On an interpreter for good (here engine=interp; a game that does not ground, such as
 * sudoku), a start clock too short to measure a state's cost leaves the turn to measure
 * it, and the turn searches (4aee689 answered every turn of the match without search). */
static void test_interp_searches_in_turn(void **state) {
    (void)state;
    bool cut;
    uint64_t iters = turn_after_no_start_clock("mcts:engine=interp", false, 30, &cut);
    assert_false(cut);
    assert_true(iters > 0);
}

/* Where the start clock cut the grounding short (a second agent may bring a ground engine
 * soon), the interpreter does not measure a state in a turn: the legal move, no search
 * (laikLee_hex: a fresh interpreter's first terminal test took 1 s, once 5 s, under load),
 * at the turn's end (its clock left to the second agent). */
static void test_interp_waits_for_second_engine(void **state) {
    (void)state;
    bool cut;
    uint64_t iters = turn_after_no_start_clock("mcts", false, 1, &cut);
    assert_true(cut);
    assert_int_equal(iters, 0);
}

/* ... until no second agent is to come (sudoku: its second agent does not ground either, and
 * is dropped): then the turn measures and searches as on an interpreter for good. */
static void test_interp_final_searches(void **state) {
    (void)state;
    bool cut;
    uint64_t iters = turn_after_no_start_clock("mcts", true, 30, &cut);
    assert_true(cut);
    assert_true(iters > 0);
}

/* Not knowing the true state, the player answers at once with a legal move. */
static void test_inexact_fallback(void **state) {
    (void)state;
    game_t *g = load_game("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    player_setup_t setup = {.game = g, .engine = r, .role = 0, .seed = 3};
    player_t *p = player_new(player_kind_find("mcts:iters=100000"), &setup);
    state_t s;
    state_init(&s);
    terms_initial(r, &s);
    player_start(p, &s, now_seconds()); /* no start clock: no search before the turn */
    const term_t *mv;
    uint32_t nl = terms_legal(r, &s, 0, &mv);
    term_t *legal = malloc(nl * sizeof *legal);
    memcpy(legal, mv, nl * sizeof *legal);
    player_turn_t turn = {
        .states = &s, .n_states = 1, .exact = false, .legal = legal, .n_legal = nl};
    term_t m = player_play(p, &turn, now_seconds() + 10, NULL);
    assert_true(contains(legal, nl, m));
    player_stop(p);
    /* at once: a search of the turn would run to its 100,000 iterations (the clock is long) */
    player_search_t sum = {0};
    player_search(p, &sum);
    assert_true(sum.iterations < 1000);
    player_free(p);
    free(legal);
    state_fini(&s);
    engine_free(r);
    game_free(g);
}

/* The default plays implicit minimax on the goals' difference where a game of two roles is
 * not zero-sum (immnz=on): on the trap of trap.h it plays safe, where immnz=off takes the
 * piece (bounds off: the solver would settle the tiny game first; iters: reproducible). */
static void test_trap_not_zero_sum(void **state) {
    (void)state;
    game_t *g = load_text(TRAP);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    state_t s;
    state_init(&s);
    terms_initial(r, &s);
    const char *kinds[2] = {"mcts:iters=400:bounds=off:engine=ground",
                            "mcts:iters=400:bounds=off:engine=ground:immnz=off"};
    const char *want[2] = {"safe", "greedy"};
    for (int k = 0; k < 2; k++) {
        player_setup_t setup = {.game = g, .engine = r, .role = 0, .seed = 5};
        player_t *p = player_new(player_kind_find(kinds[k]), &setup);
        player_start(p, &s, now_seconds() + 10);
        const term_t *mv;
        uint32_t nl = terms_legal(r, &s, 0, &mv);
        term_t *legal = malloc(nl * sizeof *legal);
        memcpy(legal, mv, nl * sizeof *legal);
        player_turn_t turn = {
            .states = &s, .n_states = 1, .exact = true, .legal = legal, .n_legal = nl};
        term_t m = player_play(p, &turn, now_seconds() + 60, NULL);
        strbuf_t sb;
        sb_init(&sb);
        term_print(g->ts, m, &sb);
        assert_string_equal(sb_str(&sb), want[k]);
        sb_fini(&sb);
        player_stop(p);
        player_free(p);
        free(legal);
    }
    state_fini(&s);
    engine_free(r);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_options),
        cmocka_unit_test(test_tictactoe_vs_random),
        cmocka_unit_test(test_lbs_kind),
        cmocka_unit_test(test_bdd_solved),
        cmocka_unit_test(test_bdd_lost_tree),
        cmocka_unit_test(test_bdd_dropped),
        cmocka_unit_test(test_bdd_late),
        cmocka_unit_test(test_bdd_solved_tree),
        cmocka_unit_test(test_bdd_moves_from_sets),
        cmocka_unit_test(test_bdd_probe_late),
        cmocka_unit_test(test_bdd_retry),
        cmocka_unit_test(test_bdd_gave_up_is_mcts),
        cmocka_unit_test(test_timed_with_sink),
        cmocka_unit_test(test_inexact_fallback),
        cmocka_unit_test(test_interp_searches_in_turn),
        cmocka_unit_test(test_interp_waits_for_second_engine),
        cmocka_unit_test(test_interp_final_searches),
        cmocka_unit_test(test_trap_not_zero_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
