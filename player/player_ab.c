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
 *   engine=K  the state machine: auto (default), interp, ground, compiled
 *   heur=off|material|adv  leaves where depth runs out valued by the material of the
 *             fluents that carry a role's name (mcts/heur.h: heur_material), with adv
 *             each piece's advancement towards its role's goal too (heur_advance), made
 *             from the initial state at start; where the game has none, the search's own
 *             eval (default off) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player/player_core.h"

#include "base/clock.h"
#include "base/opts.h"
#include "base/rng.h"
#include "mcts/ab.h"
#include "mcts/heur.h"

#define PLAYOUT_SHARE 0.02 /* of the play clock, at most for one leaf playout */
#define PROBE_STEPS 16     /* joint moves of the playout that measures a step's cost */
#define MATERIAL_SCALE 10  /* heur=material|adv: as the mcts player's */

typedef struct {
    ab_opts_t ab;
    double margin;
    engine_kind_t engine;
    bool material, adv; /* heur=material|adv */
} ab_player_opts_t;

typedef struct {
    player_core_t core;
    ab_player_opts_t opts;
    ab_t *ab;
    heur_t *heur; /* heur=material|adv: the leaves' evaluation (NULL: none) */
    double *hval; /* its values, one per role */
    eng_state_t *cur;
    double overrun;             /* how far a search outlasted its deadline (a decaying maximum) */
    player_search_t match, sum; /* the searches' counters: this match's, the matches' */
} ab_player_t;

static bool player_opt(void *ctx, const char *key, const char *val) {
    ab_player_opts_t *o = ctx;
    if (!strcmp(key, "margin")) return opts_num(val, 0, 10, &o->margin);
    if (!strcmp(key, "engine")) return engine_kind_parse(val, &o->engine);
    if (!strcmp(key, "heur")) {
        o->adv = !strcmp(val, "adv");
        o->material = o->adv || !strcmp(val, "material");
        return o->material || !strcmp(val, "off");
    }
    return false;
}

static bool parse_opts(const char *text, ab_player_opts_t *o, strbuf_t *err) {
    memset(o, 0, sizeof *o);
    ab_default_opts(&o->ab);
    o->margin = 0.05;
    o->engine = engine_default_kind();
    return ab_opts_parse(&o->ab, text, player_opt, "margin=S, engine=K, heur=off|material|adv", o,
                         err);
}

static bool ab_check_options(const char *opts, strbuf_t *err) {
    ab_player_opts_t o;
    return parse_opts(opts, &o, err);
}

static player_t *ab_create(const player_setup_t *setup) {
    ab_player_t *p = xcalloc(1, sizeof *p);
    player_core_init(&p->core, setup, "ab");
    strbuf_t err;
    sb_init(&err);
    if (!parse_opts(setup->options, &p->opts, &err)) parse_opts(NULL, &p->opts, &err);
    sb_fini(&err);
    return &p->core.base;
}

/* Caps leaf playouts so that one costs at most PLAYOUT_SHARE of the play clock: a probe
 * playout of a few steps from the initial state measures a step (one on the interpreter,
 * where a step of a big game costs up to a second; none past the deadline, and then the
 * cap is a step: no measure, the cheapest playouts). */
static void cap_playouts(ab_player_t *p, double deadline) {
    ab_opts_t *o = &p->opts.ab;
    if (o->eval == AB_EVAL_GOAL || o->playouts == 0 || p->core.playclock <= 0) return;
    if (deadline > 0 && now_seconds() >= deadline) {
        o->playout_cap = 1;
        return;
    }
    uint32_t probe = engine_kind(p->core.engine) == ENGINE_INTERP ? 1 : PROBE_STEPS;
    int *goals = xcalloc(p->core.game->n_roles, sizeof *goals);
    engine_initial(p->core.engine, p->cur);
    double t0 = now_seconds();
    uint32_t steps = engine_playout(p->core.engine, p->cur, &p->core.rng, probe, goals);
    double per_step = (now_seconds() - t0) / (steps ? steps : 1);
    free(goals);
    double budget = p->core.playclock * PLAYOUT_SHARE / o->playouts;
    if (per_step > 0 && budget / per_step < o->playout_cap)
        o->playout_cap = budget / per_step < 1 ? 1 : (uint32_t)(budget / per_step);
}

/* ab_eval_t: the material evaluation's value of s for role. */
static int heur_value(void *ctx, engine_t *e, const eng_state_t *s, uint32_t role) {
    ab_player_t *p = ctx;
    heur_eval(p->heur, e, s, p->hval);
    return (int)(p->hval[role] + 0.5);
}

/* heur=material|adv: the evaluation, made from the initial state by the deadline (said
 * with verbose). */
static void make_heur(ab_player_t *p, double deadline) {
    if (!p->opts.material || p->heur || engine_kind(p->core.engine) == ENGINE_INTERP) return;
    FILE *log = p->core.verbose ? stderr : NULL;
    eng_state_t *s0 = engine_state_new(p->core.engine);
    engine_initial(p->core.engine, s0);
    p->heur = heur_material_by(p->core.engine, s0, MATERIAL_SCALE, deadline, log);
    engine_state_free(s0);
    if (p->opts.adv) heur_advance_by(p->heur, p->core.engine, deadline, log);
    free(p->hval);
    p->hval = xcalloc(p->core.game->n_roles, sizeof *p->hval);
}

/* The engine by `ready`, the rest (the playouts' cap, the evaluation) by `deadline`. */
static void ensure_search(ab_player_t *p, double ready, double deadline) {
    if (p->ab) return;
    player_core_engine(&p->core, p->opts.engine, ready);
    if (!p->cur) p->cur = engine_state_new(p->core.engine);
    cap_playouts(p, deadline);
    p->ab = ab_new(p->core.engine, p->core.role, &p->opts.ab, p->core.seed);
    make_heur(p, deadline);
    if (p->heur) ab_set_eval(p->ab, heur_value, p);
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
    double c0 = cpu_seconds();
    ab_search(p->ab, p->cur, stop, on_iteration, &c, r);
    p->match.search_cpu += cpu_seconds() - c0;
    player_search_add_ab(&p->match, r);
    double over = now_seconds() - stop;
    p->overrun = over > p->overrun * 0.8 ? over : p->overrun * 0.8;
    if (p->core.verbose)
        fprintf(stderr,
                "ab: %.0f ms, depth %u%s, value %d%s, %" PRIu64 " nodes, %" PRIu64
                " leaves, %" PRIu64 " table hits, "
                "overrun %.1f ms\n",
                (now_seconds() - t0) * 1000, r->depth, r->timed_out ? " (cut)" : "", r->value,
                r->proven ? " (proven)" : "", r->nodes, r->leaves, r->tt_hits, p->overrun * 1000);
}

static void ab_start(player_t *pl, const state_t *initial, double deadline) {
    ab_player_t *p = (ab_player_t *)pl;
    double t0 = now_seconds();
    ensure_search(p, t0 + (deadline - t0) * PLAYER_ENGINE_SHARE, deadline);
    if (p->core.game->gdl2 || !initial) return;
    engine_state_set(p->core.engine, p->cur, initial);
    ab_result_t r;
    search_until(p, t0 + (deadline - t0) * 0.9, NULL, &r);
}

static term_t ab_play(player_t *pl, const player_turn_t *turn, double deadline, move_sink_t *sink) {
    ab_player_t *p = (ab_player_t *)pl;
    term_t fallback = player_core_random(&p->core, turn);
    sink_offer(sink, fallback);
    if (!turn->exact || turn->n_states < 1) return fallback;
    double t0 = now_seconds();
    ensure_search(p, t0 + (deadline - t0) * PLAYER_ENGINE_SHARE, deadline);
    engine_state_set(p->core.engine, p->cur, &turn->states[0]);
    ab_result_t r;
    search_until(p, deadline, turn->n_legal > 1 ? sink : NULL, &r);
    if (turn->n_legal == 1) return turn->legal[0];
    term_t move = player_core_checked(&p->core, turn, r.move, fallback);
    if (move == r.move) sink_offer(sink, move);
    return move;
}

static void ab_stop(player_t *pl) {
    ab_player_t *p = (ab_player_t *)pl;
    p->match.matches = 1;
    player_search_add(&p->sum, &p->match);
    memset(&p->match, 0, sizeof p->match);
    ab_free(p->ab); /* a new match may be another game's: the engine is kept, not the table */
    p->ab = NULL;
    heur_free(p->heur);
    p->heur = NULL;
}

static void ab_search_counts(const player_t *pl, player_search_t *sum) {
    player_search_add(sum, &((const ab_player_t *)pl)->sum);
}

static void ab_destroy(player_t *pl) {
    ab_player_t *p = (ab_player_t *)pl;
    ab_free(p->ab);
    heur_free(p->heur);
    free(p->hval);
    engine_state_free(p->cur);
    player_core_fini(&p->core);
    free(p);
}

const player_kind_t player_ab_kind = {
    .name = "ab",
    .summary = "alpha-beta, iterative deepening within the clock (ab:tt=on|off:history=on|off:"
               "pvs=on|off:id=on|off:depth=N:ttmb=MB:eval=mixed|goal|playout:playouts=N:cap=N:"
               "margin=S:engine=K:heur=off|material|adv)",
    .create = ab_create,
    .start = ab_start,
    .play = ab_play,
    .stop = ab_stop,
    .destroy = ab_destroy,
    .check_options = ab_check_options,
    .search = ab_search_counts,
};
