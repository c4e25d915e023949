/* One match from one role's point of view: see agent.h. */
#include "player/agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "engine/fluents.h"
#include "gdl/trace.h"
#include "gdl/validate.h"
#include "player/belief.h"
#include "player/bnet.h"
#include "player/bsmt.h"
#include "player/fallback.h"

struct agent {
    game_t *game;
    bool own_game;
    casemap_t spelling;
    engine_t *engine;          /* the player's state machine, and belief tracking's... */
    engine_t *track;           /* ...until a GDL player has its own: then a clone of that */
    eng_state_t *es, *es_next; /* scratch: a state of track */
    uint32_t role;
    agent_config_t cfg;
    belief_t belief;
    player_t *player;
    uint32_t turn; /* turns observed */
    term_t guess;
    term_t first; /* the first legal move of the initial state */
    bool first_known;
    /* the last turn, for agent_stats */
    uint32_t last_legal;
    double last_ms, update_ms, legal_ms, play_ms;
    bool predicted; /* its state and legal moves came from agent_ponder's prediction */
    /* our last turn with a choice: the legal moves, the one played (agent_ponder) */
    term_t *choices;
    uint32_t n_choices;
    term_t chose;
    /* GDL, the state known: each other role's move when it had exactly one in the current
     * state (TERM_NONE otherwise), read at no cost right after our legal moves */
    term_t *forced;
    bool forced_known;
    /* A transition computed ahead by agent_ponder: pred_joint from pred_from leads to
     * pred_next, where our legal moves are pred_legal (sorted as belief_legal sorts). The
     * next agent_advance and agent_play use it when they match, instead of the engine. */
    bool pred_valid;
    state_t pred_from, pred_next;
    term_t *pred_joint, *pred_legal;
    uint32_t n_pred_legal;
    /* GDL-II, a player on the belief's states: a reasoner that proves our moves legal once
     * our moves are not known legal in all those states (a sample, or not all examined in
     * time: belief_legal intersects the states it examined only, and
     * once percepts are ignored the true state may be lost: mcts played a move legal in
     * all of them illegally once in 100 full killer matches); fed the history each turn
     * (CaDiCaL's record: no Z3 work) */
    bnet_t *net;
    bsmt_t *proof;
    uint32_t fed;
    uint64_t proved_turns;
    /* GDL-II: the move legal by construction at turn fallback_turn (player/fallback.h),
     * computed after the observation, sent when nothing better is proved by the deadline */
    term_t fallback;
    uint32_t fallback_turn; /* + 1; 0: none computed */
    uint64_t fallbacks_sent;
    double observe_ms, fallback_ms; /* the last observation: the belief's update, the fallback's */
};

/* The move of the first legal rule for our role (or any role) with a ground move. */
static term_t find_guess(const game_t *g, uint32_t role) {
    const term_store_t *ts = g->ts;
    for (size_t i = 0; i < g->n_rules; i++) {
        term_t h = g->rules[i].head;
        if (term_kind(ts, h) != TERM_FUN || term_sym(ts, h) != SYM_LEGAL || term_arity(ts, h) != 2)
            continue;
        term_t who = term_arg(ts, h, 0), move = term_arg(ts, h, 1);
        if ((who == g->roles[role] || term_is_var(ts, who)) && term_is_ground(ts, move))
            return move;
    }
    return TERM_NONE;
}

agent_t *agent_new(game_t *g, uint32_t role, const agent_config_t *cfg) {
    agent_t *a = xcalloc(1, sizeof *a);
    a->game = g;
    a->role = role;
    a->cfg = *cfg;
    casemap_init(&a->spelling);
    /* GDL-II belief tracking computes many successors a turn: on the fastest engine (3-5x
     * the interpreter on the killer games); GDL's is one state, told every move, and the
     * interpreter needs no grounding before the start clock (a player that searches makes
     * its own engine within the clock) */
    a->engine = g->gdl2 ? engine_new_by(g, engine_default_kind(), NULL, cfg->ready)
                        : engine_new(g, ENGINE_INTERP, NULL);
    a->track = a->engine;
    a->es = engine_state_new(a->track);
    a->es_next = engine_state_new(a->track);
    belief_init(&a->belief, a->engine, role, cfg->seed ^ 0x5bd1e995u);
    a->guess = find_guess(g, role);
    a->forced = xcalloc(g->n_roles + 1, sizeof *a->forced);
    a->pred_joint = xcalloc(g->n_roles + 1, sizeof *a->pred_joint);
    state_init(&a->pred_from);
    state_init(&a->pred_next);
    player_setup_t setup = {.game = g,
                            .engine = a->engine,
                            .role = role,
                            .startclock = cfg->startclock,
                            .playclock = cfg->playclock,
                            .seed = cfg->seed,
                            .verbose = cfg->verbose};
    a->player = player_new(cfg->kind, &setup);
    return a;
}

/* A ground term from text, in g's store; TERM_NONE when the text is not one term. */
static term_t parse_term(game_t *g, const char *text) {
    diag_t d;
    diag_init(&d);
    sexp_doc_t doc;
    term_t t = TERM_NONE;
    if (sexp_parse(g->ts, text, strlen(text), "message", &doc, &d) && doc.n == 1)
        t = game_ground_term(g, doc.first);
    sexp_doc_free(&doc);
    diag_fini(&d);
    return t;
}

agent_t *agent_load(const char *rules, const char *raw, size_t raw_len, const char *role,
                    const agent_config_t *cfg, strbuf_t *err) {
    diag_t d;
    diag_init(&d);
    game_t *g = game_load_text(rules, strlen(rules), "rules", &d);
    if (!g) {
        sb_puts(err, "the rules do not load: ");
        if (d.n) diag_format(&d, 0, err);
        if (d.n > 1) sb_printf(err, " (and %zu more)", d.n - 1);
        diag_fini(&d);
        return NULL;
    }
    diag_fini(&d);
    term_t rt = parse_term(g, role);
    int ri = rt == TERM_NONE ? -1 : game_role_index(g, rt);
    if (ri < 0) {
        sb_printf(err, "'%.60s' is not a role of the game", role);
        game_free(g);
        return NULL;
    }
    agent_t *a = agent_new(g, (uint32_t)ri, cfg);
    a->own_game = true;
    casemap_scan(&a->spelling, raw, raw_len);
    return a;
}

void agent_free(agent_t *a) {
    if (!a) return;
    if (a->track != a->engine) engine_free(a->track); /* before the player's: it owns the net */
    player_free(a->player);
    bsmt_free(a->proof);
    bnet_free(a->net);
    belief_fini(&a->belief);
    engine_state_free(a->es);
    engine_state_free(a->es_next);
    engine_free(a->engine);
    casemap_fini(&a->spelling);
    if (a->own_game) game_free(a->game);
    free(a->choices);
    free(a->forced);
    free(a->pred_joint);
    free(a->pred_legal);
    state_fini(&a->pred_from);
    state_fini(&a->pred_next);
    free(a);
}

game_t *agent_game(const agent_t *a) {
    return a->game;
}
const char *agent_error(const agent_t *a) {
    /* the engines the match is played on: an interpreter left behind once tracking moved to
     * the player's network (agent_start) may have given up where the network did not */
    const char *why = engine_error(a->track);
    if (!why && a->player && a->player->engine) why = engine_error(a->player->engine);
    return why;
}
term_t agent_guess(const agent_t *a) {
    return a->guess;
}
term_t agent_first_move(const agent_t *a) {
    return a->first;
}

term_t agent_first_legal(agent_t *a, double deadline) {
    if (a->first_known) return a->first;
    double t0 = now_seconds();
    term_t *legal;
    a->last_legal = belief_legal(&a->belief, &legal, deadline, NULL); /* one state, known */
    a->first = a->last_legal ? legal[0] : TERM_NONE;
    free(legal);
    a->first_known = true;
    a->legal_ms = (now_seconds() - t0) * 1000;
    return a->first;
}

/* A GDL match is tracked on the player's own engine once it has one (a clone: the player's
 * may be searching on another thread): on a big board the interpreter's state update and
 * legal moves cost milliseconds a turn, the compiled network's microseconds. */
static void track_on_player_engine(agent_t *a) {
    const engine_t *pe = a->player->engine;
    if (a->game->gdl2 || a->track != a->engine || !pe || engine_uses_store(pe)) return;
    a->track = engine_clone(pe);
    engine_state_free(a->es);
    engine_state_free(a->es_next);
    a->es = engine_state_new(a->track);
    a->es_next = engine_state_new(a->track);
    belief_set_engine(&a->belief, a->track);
}

void agent_start(agent_t *a, double deadline) {
    /* a legal move first, so that preparation overrunning the clock leaves one ready */
    agent_first_legal(a, deadline);
    player_start(a->player, &a->belief.states[0], deadline);
    track_on_player_engine(a);
    a->belief.history_only = a->player->own_belief;
    if (a->game->gdl2 && !a->player->own_belief && !a->net && engine_network(a->engine)) {
        strbuf_t err;
        sb_init(&err);
        a->proof = bsmt_start(&a->net, a->game, engine_network(a->engine), a->role,
                              a->cfg.seed ^ 0x1e9a1, &err);
        sb_fini(&err);
    }
}

void agent_make_engine(agent_t *a, double deadline) {
    player_start(a->player, NULL, deadline); /* no initial state: the engine only */
}

bool agent_cut_short(const agent_t *a) {
    const engine_t *pe = a->player->engine;
    return !a->game->gdl2 && pe && engine_grounding_cut(pe);
}

engine_kind_t agent_prepare(agent_t *a) {
    agent_make_engine(a, now_seconds() + AGENT_PREPARE_SECONDS);
    track_on_player_engine(a);
    a->belief.history_only = a->player->own_belief;
    return agent_engine_kind(a);
}

void agent_engine_final(agent_t *a) {
    a->player->engine_final = true;
}

engine_kind_t agent_engine_kind(const agent_t *a) {
    const engine_t *pe = a->player->engine;
    return engine_kind(pe ? pe : a->track);
}

/* Gives the proving reasoner the observations since the last turn, and CaDiCaL their
 * encoding until the deadline (proved_only's check encodes the rest by its own). */
static void feed_proof(agent_t *a, double deadline) {
    if (!a->proof) return;
    bsmt_feed(a->proof, a->belief.hist, a->belief.n_hist, &a->fed);
    bsmt_sync_proofs(a->proof, deadline); /* a step at a time */
}

/* GDL-II, our moves not known legal in every consistent state (the believed states are a
 * sample, or not all were examined in time): only those proved legal in every consistent
 * state, into *legal (replaced); their number, 0 when none is proved by deadline, or with
 * no proving reasoner (a game that does not ground): no move sent is better than an
 * illegal one. */
static uint32_t proved_only(agent_t *a, term_t **legal, uint32_t n, double deadline) {
    if (!a->proof) {
        if (a->cfg.verbose)
            fprintf(stderr,
                    "agent: turn %u: %u moves of a sampled belief, none proved legal "
                    "(no belief network): no move\n",
                    a->turn, n);
        return 0;
    }
    bsmt_live(a->proof); /* we are asked to move: the game goes on */
    term_t *pm;
    bool complete;
    uint32_t np = bsmt_proved_legal(a->proof, *legal, n, deadline, &pm, &complete);
    strbuf_t sb;
    sb_init(&sb);
    np = trace_sort_terms(a->game->ts, pm, np, &sb);
    sb_fini(&sb);
    free(*legal);
    *legal = pm;
    a->proved_turns++;
    return np;
}

/* GDL-II: the move legal by construction at this turn (player/fallback.h), once a turn:
 * the player's own when it keeps its belief, else from the proving reasoner (fed the
 * observations; asked only when we are asked to move, so the game goes on). */
static void compute_fallback(agent_t *a, double deadline, bool belief_current) {
    if (!a->game->gdl2 || a->fallback_turn == a->turn + 1) return;
    a->fallback_turn = a->turn + 1;
    a->fallback = TERM_NONE;
    if (a->player->own_belief) {
        player_turn_t told = {
            .turn = a->turn, .history = a->belief.hist, .n_history = a->belief.n_hist};
        a->fallback = player_fallback(a->player, &told, deadline);
    } else if (a->proof) {
        bsmt_feed(a->proof, a->belief.hist, a->belief.n_hist, &a->fed);
        bsmt_live(a->proof);
        a->fallback = fallback_move(a->proof, a->track, a->role,
                                    belief_current && a->belief.n ? &a->belief.states[0] : NULL,
                                    deadline, a->cfg.verbose, "agent", a->turn);
    }
}

static bool known_state(const agent_t *a) {
    return !a->game->gdl2 && a->belief.complete && a->belief.n == 1;
}

/* Takes the predicted successor when joint is the predicted move from the current state. */
static bool advance_predicted(agent_t *a, const term_t *joint) {
    if (!a->pred_valid || !known_state(a) || !state_equal(&a->belief.states[0], &a->pred_from))
        return false;
    for (uint32_t r = 0; r < a->game->n_roles; r++)
        if (joint[r] != a->pred_joint[r]) return false;
    state_copy(&a->belief.states[0], &a->pred_next);
    return true;
}

void agent_advance(agent_t *a, const term_t *joint) {
    double t0 = now_seconds();
    a->predicted = advance_predicted(a, joint);
    if (!a->predicted) belief_advance(&a->belief, joint);
    a->turn++;
    a->forced_known = false;
    a->update_ms = (now_seconds() - t0) * 1000;
}

bool agent_advance_text(agent_t *a, char *const *moves, uint32_t n, strbuf_t *err) {
    if (n != a->game->n_roles) {
        sb_printf(err, "%u moves for %u roles", n, a->game->n_roles);
        return false;
    }
    term_t *joint = xcalloc(n + 1, sizeof *joint);
    uint32_t i = 0;
    while (i < n && (joint[i] = parse_term(a->game, moves[i])) != TERM_NONE)
        i++;
    if (i < n)
        sb_printf(err, "move %u '%.60s' is not a ground term of at most %u levels", i + 1, moves[i],
                  TERM_MAX_DEPTH);
    else
        agent_advance(a, joint);
    free(joint);
    return i == n;
}

void agent_observe(agent_t *a, uint32_t turn, term_t lastmove, const term_t *percepts, uint32_t n,
                   double deadline) {
    if (turn <= a->turn) return;
    if (turn > a->turn + 1 && a->cfg.verbose)
        fprintf(stderr, "agent: turn %u follows turn %u: turns were missed\n", turn, a->turn);
    double t0 = now_seconds(), t1 = t0;
    if (!a->player->own_belief && a->proof) {
        /* the agent's reasoner needs the history only: the observation first, and the move
         * legal by construction in half the time, before the believed states (a sample for
         * a player that searches them, whose replays of the history took their whole half
         * late in the full killer game while the fallback's check missed its own) */
        bsmt_feed(a->proof, a->belief.hist, a->belief.n_hist, &a->fed);
        bsmt_observe(a->proof, lastmove, percepts, n);
        a->fed++; /* belief_observe records it next, at index fed - 1 */
        a->turn = turn;
        compute_fallback(a, t0 + (deadline - t0) * 0.5, false);
        t1 = now_seconds();
    }
    belief_observe(&a->belief, lastmove, percepts, n, deadline);
    a->turn = turn;
    double t2 = now_seconds();
    compute_fallback(a, deadline, true); /* the player's own (deduce, pimc) */
    a->fallback_ms = (now_seconds() - t2 + t1 - t0) * 1000;
    a->observe_ms = (t2 - t1) * 1000;
}

/* A percept as told: P, or (sees ROLE P) from a master that sends the whole atom. */
static term_t percept_of(const agent_t *a, term_t t) {
    const term_store_t *ts = a->game->ts;
    if (term_kind(ts, t) == TERM_FUN && term_sym(ts, t) == SYM_SEES && term_arity(ts, t) == 2)
        return term_arg(ts, t, 1);
    return t;
}

bool agent_observe_text(agent_t *a, uint32_t turn, const char *lastmove, char *const *percepts,
                        uint32_t n, double deadline, strbuf_t *err) {
    term_t move = lastmove ? parse_term(a->game, lastmove) : TERM_NONE;
    if (lastmove && move == TERM_NONE) {
        sb_printf(err, "last move '%.60s' is not a ground term of at most %u levels", lastmove,
                  TERM_MAX_DEPTH);
        return false;
    }
    term_t *p = xcalloc(n + 1, sizeof *p);
    uint32_t i = 0;
    while (i < n && (p[i] = parse_term(a->game, percepts[i])) != TERM_NONE) {
        p[i] = percept_of(a, p[i]);
        i++;
    }
    if (i < n)
        sb_printf(err, "percept '%.60s' is not a ground term of at most %u levels", percepts[i],
                  TERM_MAX_DEPTH);
    else
        agent_observe(a, turn, move, p, n, deadline);
    free(p);
    return i == n;
}

/* Our legal moves as predicted by agent_ponder, when the state is the predicted one. */
static uint32_t predicted_legal(agent_t *a, term_t **moves) {
    *moves = NULL;
    bool hit = a->pred_valid && a->predicted && known_state(a) &&
               state_equal(&a->belief.states[0], &a->pred_next);
    a->pred_valid = false;
    if (!hit || !a->n_pred_legal) return 0;
    *moves = a->pred_legal;
    a->pred_legal = NULL;
    return a->n_pred_legal;
}

/* The other roles' single moves in the known state (the engine has just computed the
 * legal relation of that state for our moves, so this costs lookups only). */
static void note_forced(agent_t *a) {
    a->forced_known = known_state(a);
    if (a->forced_known) engine_state_set(a->track, a->es, &a->belief.states[0]);
    for (uint32_t r = 0; a->forced_known && r < a->game->n_roles; r++) {
        const term_t *m;
        a->forced[r] = r != a->role && engine_legal(a->track, a->es, r, &m) == 1 ? m[0] : TERM_NONE;
    }
}

term_t agent_play(agent_t *a, double deadline, move_sink_t *sink) {
    double t0 = now_seconds();
    /* GDL-II: the move legal by construction first (computed after the observation; else,
     * or when none was found by the observation's deadline, now in a quarter of the time),
     * the answer when nothing better is proved in time */
    if (a->game->gdl2 && a->fallback == TERM_NONE) {
        a->fallback_turn = 0;
        /* none in hand and the time gone (the observation's reasoning overran: up to
         * 570 ms at a 0.5 s clock, load 7, late in a 200-step killer match): the master
         * counts no answer as a missed clock, an answer within its grace as a move, so
         * the turn gets a fifth of the play clock at least */
        double floor = t0 + 0.2 * a->cfg.playclock;
        if (deadline < floor) deadline = floor;
    }
    compute_fallback(a, t0 + (deadline - t0) * 0.25, true);
    term_t fallback = a->game->gdl2 ? a->fallback : TERM_NONE;
    if (fallback != TERM_NONE) sink_offer(sink, fallback);
    term_t *legal;
    player_turn_t told = {
        .turn = a->turn, .history = a->belief.hist, .n_history = a->belief.n_hist};
    /* our moves come first: most of the clock may go to them, the rest to choosing */
    uint32_t n = player_legal(a->player, &told, t0 + (deadline - t0) * 0.6, &legal);
    if (!n) {
        free(legal);
        n = predicted_legal(a, &legal);
    }
    if (!n && !a->player->own_belief) {
        free(legal);
        bool exact;
        n = belief_legal(&a->belief, &legal, t0 + (deadline - t0) * 0.5, &exact);
        note_forced(a);
        feed_proof(a, t0 + (deadline - t0) * 0.6);
        if (a->game->gdl2 && !exact) n = proved_only(a, &legal, n, t0 + (deadline - t0) * 0.6);
    }
    if (!n && fallback != TERM_NONE) {
        free(legal);
        legal = xmalloc(sizeof *legal);
        legal[0] = fallback;
        n = 1;
        a->fallbacks_sent++;
        if (a->cfg.verbose)
            fprintf(stderr, "agent: turn %u: no move proved legal in time: the fallback move\n",
                    a->turn);
    }
    a->last_legal = n;
    double t1 = now_seconds();
    a->legal_ms = (t1 - t0) * 1000;
    term_t move = TERM_NONE;
    if (n > 1) {
        free(a->choices);
        a->choices = xmalloc(n * sizeof *legal);
        memcpy(a->choices, legal, n * sizeof *legal);
        a->n_choices = n;
    }
    if (n) {
        sink_offer(sink, legal[0]);
        /* the player's offers pass only when legal in the current state */
        move_sink_t checked = {.legal = legal, .n_legal = n};
        if (sink) checked.offer = sink->offer, checked.ctx = sink->ctx;
        player_turn_t turn = {.states = a->belief.states,
                              .n_states = a->belief.n,
                              .exact = a->belief.complete && a->belief.n == 1,
                              .legal = legal,
                              .n_legal = n,
                              .turn = a->turn,
                              .history = a->belief.hist,
                              .n_history = a->belief.n_hist};
        move = player_play(a->player, &turn, deadline, sink ? &checked : NULL);
        if (!term_in(legal, n, move)) move = legal[0];
        if (n > 1) a->chose = move;
    }
    free(legal);
    a->play_ms = (now_seconds() - t1) * 1000;
    a->last_ms = (now_seconds() - t0) * 1000;
    return move;
}

/* Our first legal move after `played` when every other role had a single move (turn-taking:
 * they wait while we move), from the state it leads to; the transition and our legal
 * moves there are kept for the next turn (pred_*). */
static term_t predicted_move(agent_t *a, const state_t *s, term_t played) {
    uint32_t nr = a->game->n_roles;
    const term_t *m;
    if (!a->forced_known) note_forced(a);
    for (uint32_t r = 0; r < nr; r++) {
        a->pred_joint[r] = r == a->role ? played : a->forced[r];
        if (a->pred_joint[r] == TERM_NONE) return TERM_NONE;
    }
    /* no terminal test: a terminal state gets no PLAY, so the prediction is not used */
    state_copy(&a->pred_from, s);
    engine_state_set(a->track, a->es, s);
    engine_next(a->track, a->es, a->pred_joint, a->es_next);
    engine_state_terms(a->track, a->es_next, &a->pred_next);
    uint32_t n = engine_legal(a->track, a->es_next, a->role, &m);
    free(a->pred_legal);
    a->pred_legal = xmalloc((n + 1) * sizeof *m);
    if (n) memcpy(a->pred_legal, m, n * sizeof *m);
    strbuf_t sb;
    sb_init(&sb);
    a->n_pred_legal = trace_sort_terms(a->game->ts, a->pred_legal, n, &sb);
    sb_fini(&sb);
    a->pred_valid = true;
    return a->n_pred_legal ? a->pred_legal[0] : TERM_NONE;
}

term_t agent_ponder(agent_t *a, term_t played) {
    a->pred_valid = false;
    if (!known_state(a) || played == TERM_NONE) return TERM_NONE;
    term_t move = predicted_move(a, &a->belief.states[0], played);
    if (move != TERM_NONE) return move;
    /* Others move now: one of our choices of last time, not the one we played, is the
     * likeliest to be legal again (most moves of a board game stay legal a turn later). */
    for (uint32_t i = 0; i < a->n_choices; i++)
        if (a->choices[i] != a->chose) return a->choices[i];
    return TERM_NONE;
}

void agent_stop(agent_t *a) {
    player_stop(a->player);
}

bool agent_search(const agent_t *a, player_search_t *sum) {
    return player_search(a->player, sum);
}

void agent_print_move(const agent_t *a, term_t move, strbuf_t *out) {
    casemap_print(&a->spelling, a->game->ts, move, out);
}

void agent_stats(const agent_t *a, strbuf_t *out) {
    sb_printf(out,
              "turn %u: %u believed state%s%s (history replayed %u, percepts ignored %u times), "
              "%u legal, %.0f ms (state update %.0f ms, legal moves %.0f ms%s, player %.0f ms); "
              "engine: %s",
              a->turn, a->belief.n, a->belief.n == 1 ? "" : "s",
              a->belief.complete ? "" : " (sampled)", a->belief.regenerated, a->belief.relaxed,
              a->last_legal, a->last_ms, a->update_ms, a->legal_ms,
              a->predicted ? ", both computed ahead" : "", a->play_ms,
              engine_kind_name(engine_kind(a->track)));
    if (a->game->gdl2)
        sb_printf(out, "; observed in %.0f ms, fallback move %s in %.0f ms (%llu sent)",
                  a->observe_ms, a->fallback == TERM_NONE ? "none" : "found", a->fallback_ms,
                  (unsigned long long)a->fallbacks_sent);
}
