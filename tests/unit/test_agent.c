/* Unit tests for the agent (player/agent.c): the turn computed ahead by agent_ponder (the
 * successor and our legal moves in it) must be exactly what the reasoner gives from
 * scratch, on random matches of turn-taking games (where the prediction is used) and of a
 * simultaneous one (where it must not be), whether the agent tracks the match on the
 * interpreter or on the ground engine of a player that made one; and only legal moves
 * reach the sink. */
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
#include "gdl/trace.h"
#include "gdl/validate.h"
#include "load.h"
#include "player/agent.h"
#include "player/player.h"
#include "terms.h"

/* A player that records what it was told and plays a random legal move; it also offers an
 * illegal move (a role name) and the last turn's move, which the agent must not pass on. */
typedef struct {
    player_t base;
    splitmix_t rng;
    state_t seen;
    term_t *legal;
    uint32_t n_legal;
    term_t bogus, last;
    game_t *game;
    engine_t *own;
} spy_t;

static spy_t *current;      /* the spy that played last */
static bool spy_own_engine; /* spies make a ground engine of their own at start */

static player_t *spy_create(const player_setup_t *setup) {
    spy_t *p = calloc(1, sizeof *p);
    p->game = setup->game;
    p->rng.s = setup->seed;
    state_init(&p->seen);
    p->bogus = setup->game->roles[0];
    p->last = TERM_NONE;
    return &p->base;
}

static void spy_start(player_t *pl, const state_t *initial, double deadline) {
    (void)initial, (void)deadline;
    spy_t *p = (spy_t *)pl;
    if (spy_own_engine) p->base.engine = p->own = engine_new(p->game, ENGINE_GROUND, NULL);
}

static term_t spy_play(player_t *pl, const player_turn_t *turn, double deadline,
                       move_sink_t *sink) {
    (void)deadline;
    spy_t *p = (spy_t *)pl;
    current = p;
    state_copy(&p->seen, &turn->states[0]);
    free(p->legal);
    p->legal = malloc((turn->n_legal + 1) * sizeof *p->legal);
    memcpy(p->legal, turn->legal, turn->n_legal * sizeof *p->legal);
    p->n_legal = turn->n_legal;
    sink_offer(sink, p->bogus);
    if (p->last != TERM_NONE) sink_offer(sink, p->last);
    p->last = turn->legal[splitmix_next(&p->rng) % turn->n_legal];
    sink_offer(sink, p->last);
    return p->last;
}

static void spy_destroy(player_t *pl) {
    spy_t *p = (spy_t *)pl;
    state_fini(&p->seen);
    free(p->legal);
    engine_free(p->own);
    free(p);
}

static const player_kind_t spy_kind = {.name = "spy",
                                       .create = spy_create,
                                       .start = spy_start,
                                       .play = spy_play,
                                       .destroy = spy_destroy};

static bool contains(const term_t *moves, uint32_t n, term_t m) {
    for (uint32_t i = 0; i < n; i++)
        if (moves[i] == m) return true;
    return false;
}

/* Records every move offered; fails on one that is not legal in the current state. */
typedef struct {
    const term_t *legal;
    uint32_t n;
    uint32_t offers;
} checker_t;

static void check_offer(void *ctx, term_t move) {
    checker_t *c = ctx;
    assert_true(contains(c->legal, c->n, move));
    c->offers++;
}

/* Plays `matches` random matches of the game; returns how many turns took the state and
 * legal moves computed ahead. Every turn, each agent's state and legal moves must equal the
 * reasoner's from scratch. */
static uint32_t play_random(const char *file, uint32_t matches) {
    game_t *g = load_file(file);
    assert_non_null(g);
    engine_t *ref = engine_new(g, ENGINE_INTERP, NULL);
    uint32_t nr = g->n_roles, hits = 0;
    agent_t **a = calloc(nr, sizeof *a);
    term_t *joint = calloc(nr, sizeof *joint), *ref_legal = NULL;
    strbuf_t sb, stats;
    sb_init(&sb);
    sb_init(&stats);
    state_t s, n;
    state_init(&s);
    state_init(&n);
    for (uint32_t m = 0; m < matches; m++) {
        for (uint32_t i = 0; i < nr; i++) {
            agent_config_t cfg = {
                .kind = &spy_kind, .startclock = 1, .playclock = 1, .seed = m * 7 + i + 1};
            a[i] = agent_new(g, i, &cfg);
            agent_start(a[i], now_seconds() + 1);
        }
        terms_initial(ref, &s);
        for (uint32_t step = 0; step < 200 && !terms_terminal(ref, &s); step++) {
            for (uint32_t i = 0; i < nr; i++) {
                const term_t *mv;
                uint32_t k = terms_legal(ref, &s, i, &mv);
                ref_legal = realloc(ref_legal, (k + 1) * sizeof *ref_legal);
                memcpy(ref_legal, mv, k * sizeof *mv);
                k = trace_sort_terms(g->ts, ref_legal, k, &sb);
                checker_t c = {ref_legal, k, 0};
                move_sink_t sink = {.offer = check_offer, .ctx = &c};
                joint[i] = agent_play(a[i], now_seconds() + 5, &sink);
                assert_true(c.offers >= 1);
                assert_true(state_equal(&current->seen, &s));
                assert_int_equal(current->n_legal, k);
                assert_memory_equal(current->legal, ref_legal, k * sizeof *ref_legal);
                assert_true(contains(ref_legal, k, joint[i]));
                sb_clear(&stats);
                agent_stats(a[i], &stats);
                hits += strstr(sb_str(&stats), "computed ahead") != NULL;
                assert_non_null(
                    strstr(sb_str(&stats), spy_own_engine ? "engine: ground" : "engine: interp"));
            }
            for (uint32_t i = 0; i < nr; i++)
                agent_ponder(a[i], joint[i]);
            terms_next(ref, &s, joint, &n);
            state_copy(&s, &n);
            for (uint32_t i = 0; i < nr; i++)
                agent_advance(a[i], joint);
        }
        for (uint32_t i = 0; i < nr; i++)
            agent_free(a[i]);
    }
    free(ref_legal);
    free(joint);
    free(a);
    state_fini(&s);
    state_fini(&n);
    sb_fini(&sb);
    sb_fini(&stats);
    engine_free(ref);
    game_free(g);
    return hits;
}

static void test_predicted_turns_turn_taking(void **state) {
    (void)state;
    assert_true(play_random("tictactoe.kif", 20) > 50);
    assert_true(play_random("connect4.kif", 10) > 50);
    assert_true(play_random("breakthrough.kif", 3) > 20);
    assert_true(play_random("nim.kif", 20) > 20);
}

static void test_no_prediction_when_simultaneous(void **state) {
    (void)state;
    assert_int_equal(play_random("simultaneous.kif", 20), 0);
}

/* A player with an engine of its own: the agent tracks the match on a clone of it (a
 * ground engine here), with the same states and legal moves as the interpreter's. */
static void test_tracks_on_player_engine(void **state) {
    (void)state;
    spy_own_engine = true;
    assert_true(play_random("tictactoe.kif", 10) > 25);
    assert_true(play_random("connect4.kif", 5) > 25);
    assert_true(play_random("breakthrough.kif", 2) > 10);
    assert_int_equal(play_random("simultaneous.kif", 10), 0);
    spy_own_engine = false;
}

/* `auto` (ggp serve's default) is deduce on a GDL-II game, mcts on a GDL one. */
static void test_auto_kind(void **state) {
    (void)state;
    const player_kind_t *a = player_kind_find("auto");
    assert_ptr_equal(a, &player_auto_kind);
    game_t *gdl = load_file("tictactoe.kif"), *gdl2 = load_file("guess.kif");
    assert_string_equal(player_kind_resolve(a, gdl)->name, "mcts");
    assert_string_equal(player_kind_resolve(a, gdl2)->name, "deduce");
    assert_ptr_equal(player_kind_resolve(&player_random_kind, gdl2), &player_random_kind);
    game_free(gdl);
    game_free(gdl2);
}

/* A GDL-II game where our legal moves depend on what we do not know: random hides a
 * door (0 or 1), we see nothing, and at step 1 `open` is legal only behind door 1, `wait`
 * always. The agent's belief then holds both states, complete. */
static const char *hidden_door = "(role random) (role player) (init (step 0)) (bit 0) (bit 1)"
                                 "(<= (legal random (set ?b)) (true (step 0)) (bit ?b))"
                                 "(<= (legal random noop) (true (step 1)))"
                                 "(<= (legal player noop) (true (step 0)))"
                                 "(<= (legal player wait) (true (step 1)))"
                                 "(<= (legal player open) (true (step 1)) (true (door 1)))"
                                 "(<= (next (door ?b)) (does random (set ?b)))"
                                 "(<= (next (door ?b)) (true (door ?b)))"
                                 "(<= (next (step 1)) (true (step 0)))"
                                 "(<= (next (step 2)) (true (step 1)))"
                                 "(<= terminal (true (step 2)))"
                                 "(<= (next opened) (does player open))"
                                 "(<= (goal player 100) (true opened))"
                                 "(<= (goal player 0) (not (true opened)))"
                                 "(goal random 0)";

/* The GDL-II kinds the legality tests below run. */
static const char *const gdl2_kinds[] = {"random", "legal", "mcts:iters=20:ponder=off", "deduce",
                                         "pimc"};

/* A fresh agent of kind `name` for role 1 of g (a game whose first move is noop): that
 * move played and observed, then its move at step 1 by deadline (a term of g). */
static term_t move_at_step_one(game_t *g, const char *name, uint64_t seed, double deadline) {
    const player_kind_t *pk = player_kind_find(name);
    assert_non_null(pk);
    agent_config_t cfg = {.kind = pk, .startclock = 1, .playclock = 1, .seed = seed};
    agent_t *a = agent_new(g, 1, &cfg);
    agent_start(a, now_seconds() + 1e6);
    term_t m0 = agent_play(a, now_seconds() + 1e6, NULL);
    assert_string_equal(term_sym_name(g->ts, term_sym(g->ts, m0)), "noop");
    agent_observe(a, 1, m0, NULL, 0, now_seconds() + 1e6);
    term_t m = agent_play(a, deadline, NULL);
    agent_free(a);
    return m;
}

/* Issue 26: every kind sends only a move legal in every consistent state. At step 1, with
 * a deadline far away the moves common to both believed states (`wait`); with one already
 * past (the belief's states not all examined) the moves the belief reasoner proves from
 * the known fluents (`wait`), or none without one (the interpreter: no belief network):
 * never `open` behind door 0. Before, a past deadline gave the first believed state's
 * moves, `open` half the time; `deduce` and `pimc` (their own reasoner) took a world's
 * moves, `open` in a world behind door 1. */
static void hidden_door_turns(engine_kind_t kind) {
    engine_kind_t was = engine_default_kind();
    engine_set_default_kind(kind);
    game_t *g = load_text(hidden_door);
    assert_non_null(g);
    assert_true(g->gdl2);
    uint32_t sent = 0, none = 0;
    for (size_t ki = 0; ki < sizeof gdl2_kinds / sizeof *gdl2_kinds; ki++) {
        for (uint64_t seed = 1; seed <= 8; seed++) {
            uint32_t door = (uint32_t)(seed & 1);
            bool pressed = seed & 2;
            term_t m = move_at_step_one(g, gdl2_kinds[ki], seed,
                                        pressed ? now_seconds() - 1 : now_seconds() + 1e6);
            if (m == TERM_NONE) {
                assert_true(pressed && kind == ENGINE_INTERP);
                none++;
            } else {
                const char *name = term_sym_name(g->ts, term_sym(g->ts, m));
                assert_true(!strcmp(name, "wait") || (door == 1 && !strcmp(name, "open")));
                assert_string_equal(name, "wait"); /* the only move known legal */
                sent++;
            }
        }
    }
    printf("hidden door, %s engine: %u moves sent, %u turns with none proved\n",
           kind == ENGINE_INTERP ? "interpreter" : "default", sent, none);
    assert_true(sent >= 20);
    game_free(g);
    engine_set_default_kind(was);
}

static void test_hidden_legality(void **state) {
    (void)state;
    hidden_door_turns(ENGINE_AUTO);
    hidden_door_turns(ENGINE_INTERP);
}

/* A door random hides (0 or 1) where door 0 ends the game at once: asked to move at step
 * 1, the player knows the door is 1, though no fluent it was told says so (it sees
 * nothing). Both `wait` (not behind door 0) and `open` (behind door 1) are legal; neither
 * is known by the known fluents alone, both by unit propagation from "the game goes on"
 * (so, on the killer game, is the turn after a wrong accusation). */
static const char *trap_door = "(role random) (role player) (init (step 0)) (bit 0) (bit 1)"
                               "(<= (legal random (set ?b)) (true (step 0)) (bit ?b))"
                               "(<= (legal random noop) (true (step 1)))"
                               "(<= (legal player noop) (true (step 0)))"
                               "(<= (legal player wait) (true (step 1)) (not (true (door 0))))"
                               "(<= (legal player open) (true (step 1)) (true (door 1)))"
                               "(<= (next (door ?b)) (does random (set ?b)))"
                               "(<= (next (step 1)) (true (step 0)))"
                               "(<= (next (step 2)) (true (step 1)))"
                               "(<= (next opened) (does player open))"
                               "(<= terminal (true (door 0)))"
                               "(<= terminal (true (step 2)))"
                               "(<= (goal player 100) (true opened))"
                               "(<= (goal player 0) (not (true opened)))"
                               "(goal random 0)";

/* Issue 24: every GDL-II kind answers with a move legal by construction even when its
 * deadline has passed before it starts (the move computed after the observation, within
 * the observation's deadline): at step 1 of trap_door, `open` or `wait`, never no move.
 * Before, every kind answered none (no move proved by the deadline). Without a belief
 * network (the interpreter) nothing is legal by construction: no move. */
static void trap_door_turns(engine_kind_t kind) {
    engine_kind_t was = engine_default_kind();
    engine_set_default_kind(kind);
    game_t *g = load_text(trap_door);
    assert_non_null(g);
    uint32_t sent = 0;
    for (size_t ki = 0; ki < sizeof gdl2_kinds / sizeof *gdl2_kinds; ki++) {
        for (uint64_t seed = 1; seed <= 2; seed++) {
            /* the deadline past */
            term_t m = move_at_step_one(g, gdl2_kinds[ki], seed, now_seconds() - 1);
            if (kind == ENGINE_INTERP) {
                assert_true(m == TERM_NONE);
            } else {
                assert_true(m != TERM_NONE);
                const char *name = term_sym_name(g->ts, term_sym(g->ts, m));
                assert_true(!strcmp(name, "open") || !strcmp(name, "wait"));
                sent++;
            }
        }
    }
    assert_int_equal(sent, kind == ENGINE_INTERP ? 0 : 10);
    game_free(g);
    engine_set_default_kind(was);
}

static void test_fallback_past_deadline(void **state) {
    (void)state;
    trap_door_turns(ENGINE_AUTO);
    trap_door_turns(ENGINE_INTERP);
}

int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one test by name */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predicted_turns_turn_taking),
        cmocka_unit_test(test_no_prediction_when_simultaneous),
        cmocka_unit_test(test_tracks_on_player_engine),
        cmocka_unit_test(test_auto_kind),
        cmocka_unit_test(test_hidden_legality),
        cmocka_unit_test(test_fallback_past_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
