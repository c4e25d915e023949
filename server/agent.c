/* One match from one role's point of view: see agent.h. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "belief.h"
#include "validate.h"

struct agent {
    game_t *game;
    bool own_game;
    casemap_t spelling;
    reasoner_t *r;
    engine_t *engine; /* GDL-II: belief tracking's state machine (NULL: the interpreter) */
    uint32_t role;
    agent_config_t cfg;
    belief_t belief;
    player_t *player;
    uint32_t turn; /* turns observed */
    term_t guess;
    term_t first; /* the first legal move of the initial state */
    /* the last turn, for agent_stats */
    uint32_t last_legal;
    double last_ms;
    /* our last turn with a choice: the legal moves, the one played (agent_ponder) */
    term_t *choices;
    uint32_t n_choices;
    term_t chose;
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
    a->r = reason_new(g);
    /* GDL-II belief tracking computes many successors a turn: on the fastest engine (3-5x
     * the interpreter on the killer games); GDL's is one state, told every move */
    if (g->gdl2) a->engine = engine_new(g, engine_default_kind(), NULL);
    if (a->engine)
        belief_init_engine(&a->belief, a->engine, role, cfg->seed ^ 0x5bd1e995u);
    else
        belief_init(&a->belief, a->r, role, cfg->seed ^ 0x5bd1e995u);
    a->guess = find_guess(g, role);
    player_setup_t setup = {.game = g,
                            .reasoner = a->r,
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
    player_free(a->player);
    belief_fini(&a->belief);
    engine_free(a->engine);
    reason_free(a->r);
    casemap_fini(&a->spelling);
    if (a->own_game) game_free(a->game);
    free(a->choices);
    free(a);
}

game_t *agent_game(const agent_t *a) {
    return a->game;
}
term_t agent_guess(const agent_t *a) {
    return a->guess;
}
term_t agent_first_move(const agent_t *a) {
    return a->first;
}

void agent_start(agent_t *a, double deadline) {
    player_start(a->player, &a->belief.states[0], deadline);
    a->belief.history_only = a->player->own_belief;
    term_t *legal;
    a->last_legal = belief_legal(&a->belief, &legal, deadline); /* warms the reasoner */
    a->first = a->last_legal ? legal[0] : TERM_NONE;
    free(legal);
}

void agent_advance(agent_t *a, const term_t *joint) {
    belief_advance(&a->belief, joint);
    a->turn++;
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
        sb_printf(err, "move %u '%.60s' is not a ground term", i + 1, moves[i]);
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
    belief_observe(&a->belief, lastmove, percepts, n, deadline);
    a->turn = turn;
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
        sb_printf(err, "last move '%.60s' is not a ground term", lastmove);
        return false;
    }
    term_t *p = xcalloc(n + 1, sizeof *p);
    uint32_t i = 0;
    while (i < n && (p[i] = parse_term(a->game, percepts[i])) != TERM_NONE) {
        p[i] = percept_of(a, p[i]);
        i++;
    }
    if (i < n)
        sb_printf(err, "percept '%.60s' is not a ground term", percepts[i]);
    else
        agent_observe(a, turn, move, p, n, deadline);
    free(p);
    return i == n;
}

static bool contains(const term_t *moves, uint32_t n, term_t m) {
    for (uint32_t i = 0; i < n; i++)
        if (moves[i] == m) return true;
    return false;
}

term_t agent_play(agent_t *a, double deadline, move_sink_t *sink) {
    double t0 = now_seconds();
    term_t *legal;
    player_turn_t told = {
        .turn = a->turn, .history = a->belief.hist, .n_history = a->belief.n_hist};
    uint32_t n = player_legal(a->player, &told, &legal);
    if (!n) {
        free(legal);
        n = belief_legal(&a->belief, &legal, t0 + (deadline - t0) * 0.5);
    }
    a->last_legal = n;
    term_t move = TERM_NONE;
    if (n > 1) {
        free(a->choices);
        a->choices = xmalloc(n * sizeof *legal);
        memcpy(a->choices, legal, n * sizeof *legal);
        a->n_choices = n;
    }
    if (n) {
        sink_offer(sink, legal[0]);
        player_turn_t turn = {.states = a->belief.states,
                              .n_states = a->belief.n,
                              .exact = a->belief.complete && a->belief.n == 1,
                              .legal = legal,
                              .n_legal = n,
                              .turn = a->turn,
                              .history = a->belief.hist,
                              .n_history = a->belief.n_hist};
        move = player_play(a->player, &turn, deadline, sink);
        if (!contains(legal, n, move)) move = legal[0];
        if (n > 1) a->chose = move;
    }
    free(legal);
    a->last_ms = (now_seconds() - t0) * 1000;
    return move;
}

/* Our one legal move after `played` when every other role had a single move (turn-taking:
 * they wait while we move), from the state it leads to. */
static term_t predicted_move(agent_t *a, const state_t *s, term_t played) {
    uint32_t nr = a->game->n_roles;
    term_t *joint = xcalloc(nr, sizeof *joint);
    const term_t *m;
    bool fixed = true;
    for (uint32_t r = 0; r < nr && fixed; r++) {
        if (r == a->role)
            joint[r] = played;
        else if ((fixed = reason_legal(a->r, s, r, &m) == 1))
            joint[r] = m[0];
    }
    term_t move = TERM_NONE;
    if (fixed) {
        state_t next;
        state_init(&next);
        reason_next(a->r, s, joint, &next);
        if (!reason_terminal(a->r, &next) && reason_legal(a->r, &next, a->role, &m) > 0)
            move = m[0];
        state_fini(&next);
    }
    free(joint);
    return move;
}

term_t agent_ponder(agent_t *a, term_t played) {
    if (a->game->gdl2 || !a->belief.complete || a->belief.n != 1 || played == TERM_NONE)
        return TERM_NONE;
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

void agent_print_move(const agent_t *a, term_t move, strbuf_t *out) {
    casemap_print(&a->spelling, a->game->ts, move, out);
}

void agent_stats(const agent_t *a, strbuf_t *out) {
    reason_stats_t st = reason_stats(a->r);
    sb_printf(out,
              "turn %u: %u believed state%s%s (history replayed %u, percepts ignored %u times), "
              "%u legal, %.0f ms; reasoner: %llu states set",
              a->turn, a->belief.n, a->belief.n == 1 ? "" : "s",
              a->belief.complete ? "" : " (sampled)", a->belief.regenerated, a->belief.relaxed,
              a->last_legal, a->last_ms, (unsigned long long)st.states_set);
}
