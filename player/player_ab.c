/* The `ab` player: alpha-beta (mcts/ab.h) with iterative deepening within the clock.
 *
 * start makes the engine by a deadline (80% of the start clock: engine_new_by) and the
 * search, and searches the initial state until the start deadline (the transposition
 * table and the history keep what it found). play searches the current state until the
 * play deadline minus a margin and what the last searches overran it by, offering the best
 * move of every completed iteration through the sink (a legal move is offered before any
 * search). It searches when it has a single move too: the table keeps the others' answers
 * for the next turn. A leaf playout is capped so that it costs at most a small share of
 * the play clock (measured at start). When it cannot know the true state (GDL-II, several
 * believed states) it plays a uniformly random legal move, as `random` does.
 *
 * Options, as "ab:OPT:OPT..." (player_kind_find): the search's (ab.h, AB_OPTS_HELP:
 * tt, history, pvs, id =on|off, depth=N, ttmb=MB, eval=mixed|goal|playout, playouts=N,
 * cap=N), and
 *   margin=S  seconds kept in hand before the play deadline (0..10, default 0.05)
 *   engine=K  the state machine: auto (default), interp, ground, compiled */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player/player.h"

#include "base/clock.h"
#include "base/rng.h"
#include "mcts/ab.h"

#define ENGINE_SHARE 0.8   /* of the start clock left, at most for grounding and compiling */
#define PLAYOUT_SHARE 0.02 /* of the play clock, at most for one leaf playout */
#define PROBE_STEPS 16     /* joint moves of the playout that measures a step's cost */

typedef struct {
    ab_opts_t ab;
    double margin;
    engine_kind_t engine;
} ab_player_opts_t;

typedef struct {
    player_t base;
    game_t *game;
    uint32_t role;
    uint64_t seed;
    bool verbose;
    double playclock;
    ab_player_opts_t opts;
    splitmix_t rng;
    engine_t *engine; /* kept across matches */
    ab_t *ab;
    eng_state_t *cur;
    double overrun; /* how far a search outlasted its deadline (a decaying maximum) */
} ab_player_t;

static bool player_opt(void *ctx, const char *key, const char *val) {
    ab_player_opts_t *o = ctx;
    char *rest = NULL;
    if (!strcmp(key, "margin")) {
        o->margin = strtod(val, &rest);
        return *val && !*rest && o->margin >= 0 && o->margin <= 10;
    }
    if (!strcmp(key, "engine")) return engine_kind_parse(val, &o->engine);
    return false;
}

static bool parse_opts(const char *text, ab_player_opts_t *o, strbuf_t *err) {
    memset(o, 0, sizeof *o);
    ab_default_opts(&o->ab);
    o->margin = 0.05;
    o->engine = engine_default_kind();
    if (ab_opts_parse(&o->ab, text, player_opt, o, err)) return true;
    sb_puts(err, " (" AB_OPTS_HELP ", margin=S, engine=K)");
    return false;
}

static bool ab_check_options(const char *opts, strbuf_t *err) {
    ab_player_opts_t o;
    return parse_opts(opts, &o, err);
}

static player_t *ab_create(const player_setup_t *setup) {
    ab_player_t *p = xcalloc(1, sizeof *p);
    p->game = setup->game;
    p->role = setup->role;
    p->seed = setup->seed;
    p->verbose = setup->verbose;
    p->playclock = setup->playclock;
    p->rng.s = setup->seed ^ 0x9e3779b97f4a7c15ull;
    strbuf_t err;
    sb_init(&err);
    if (!parse_opts(setup->options, &p->opts, &err)) parse_opts(NULL, &p->opts, &err);
    sb_fini(&err);
    return &p->base;
}

/* Caps leaf playouts so that one costs at most PLAYOUT_SHARE of the play clock: a probe
 * playout of a few steps from the initial state measures a step. */
static void cap_playouts(ab_player_t *p) {
    ab_opts_t *o = &p->opts.ab;
    if (o->eval == AB_EVAL_GOAL || o->playouts == 0 || p->playclock <= 0) return;
    int *goals = xcalloc(p->game->n_roles, sizeof *goals);
    engine_initial(p->engine, p->cur);
    double t0 = now_seconds();
    uint32_t steps = engine_playout(p->engine, p->cur, &p->rng, PROBE_STEPS, goals);
    double per_step = (now_seconds() - t0) / (steps ? steps : 1);
    free(goals);
    double budget = p->playclock * PLAYOUT_SHARE / o->playouts;
    if (per_step > 0 && budget / per_step < o->playout_cap)
        o->playout_cap = budget / per_step < 1 ? 1 : (uint32_t)(budget / per_step);
}

static void ensure_search(ab_player_t *p, double ready) {
    if (p->ab) return;
    if (!p->engine) p->engine = engine_new_by(p->game, p->opts.engine, stderr, ready);
    if (!p->cur) p->cur = engine_state_new(p->engine);
    cap_playouts(p);
    p->ab = ab_new(p->engine, p->role, &p->opts.ab, p->seed);
}

typedef struct {
    ab_player_t *p;
    move_sink_t *sink;
} progress_ctx_t;

static void on_iteration(void *ctx, const ab_result_t *r) {
    progress_ctx_t *c = ctx;
    sink_offer(c->sink, r->move);
}

/* Searches p->cur until deadline, noting by how much the search outlasted it. */
static void search_until(ab_player_t *p, double deadline, move_sink_t *sink, ab_result_t *r) {
    progress_ctx_t c = {p, sink};
    double stop = deadline - p->opts.margin - p->overrun;
    double t0 = now_seconds();
    if (stop < t0 + 0.001) stop = t0 + 0.001;
    ab_search(p->ab, p->cur, stop, on_iteration, &c, r);
    double over = now_seconds() - stop;
    p->overrun = over > p->overrun * 0.8 ? over : p->overrun * 0.8;
    if (p->verbose)
        fprintf(stderr,
                "ab: %.0f ms, depth %u%s, value %d%s, %llu nodes, %llu leaves, %llu table hits, "
                "overrun %.1f ms\n",
                (now_seconds() - t0) * 1000, r->depth, r->timed_out ? " (cut)" : "", r->value,
                r->proven ? " (proven)" : "", (unsigned long long)r->nodes,
                (unsigned long long)r->leaves, (unsigned long long)r->tt_hits, p->overrun * 1000);
}

static void ab_start(player_t *pl, const state_t *initial, double deadline) {
    ab_player_t *p = (ab_player_t *)pl;
    double t0 = now_seconds();
    ensure_search(p, t0 + (deadline - t0) * ENGINE_SHARE);
    if (p->game->gdl2 || !initial) return;
    engine_state_set(p->engine, p->cur, initial);
    ab_result_t r;
    search_until(p, t0 + (deadline - t0) * 0.9, NULL, &r);
}

static term_t ab_play(player_t *pl, const player_turn_t *turn, double deadline, move_sink_t *sink) {
    ab_player_t *p = (ab_player_t *)pl;
    term_t fallback = turn->legal[splitmix_next(&p->rng) % turn->n_legal];
    sink_offer(sink, fallback);
    if (!turn->exact || turn->n_states < 1) return fallback;
    double t0 = now_seconds();
    ensure_search(p, t0 + (deadline - t0) * ENGINE_SHARE);
    engine_state_set(p->engine, p->cur, &turn->states[0]);
    ab_result_t r;
    search_until(p, deadline, turn->n_legal > 1 ? sink : NULL, &r);
    if (turn->n_legal == 1) return turn->legal[0];
    if (r.move == TERM_NONE || !term_in(turn->legal, turn->n_legal, r.move)) {
        if (p->verbose)
            fprintf(stderr, "ab: turn %u: the search gave no legal move; playing at random\n",
                    turn->turn);
        return fallback;
    }
    sink_offer(sink, r.move);
    return r.move;
}

static void ab_stop(player_t *pl) {
    ab_player_t *p = (ab_player_t *)pl;
    ab_free(p->ab); /* a new match may be another game's: the engine is kept, not the table */
    p->ab = NULL;
}

static void ab_destroy(player_t *pl) {
    ab_player_t *p = (ab_player_t *)pl;
    ab_free(p->ab);
    engine_state_free(p->cur);
    engine_free(p->engine);
    free(p);
}

const player_kind_t player_ab_kind = {
    .name = "ab",
    .summary = "alpha-beta, iterative deepening within the clock (ab:tt=on|off:history=on|off:"
               "pvs=on|off:id=on|off:depth=N:ttmb=MB:eval=mixed|goal|playout:playouts=N:cap=N:"
               "margin=S:engine=K)",
    .create = ab_create,
    .start = ab_start,
    .play = ab_play,
    .stop = ab_stop,
    .destroy = ab_destroy,
    .check_options = ab_check_options,
};
