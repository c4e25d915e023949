/* The `mcts` player: UCT Monte-Carlo tree search (mcts/uct.h), one search tree per match.
 *
 * start builds the tree for the match's game with the match's reasoner and, unless the
 * search is iteration-bounded, searches the initial state until the start clock's deadline.
 * play first re-roots the tree at the current state: it finds the joint move that led from
 * the state it last searched to this one (by trying the previous state's joint moves, at
 * most MAX_JOINTS of them) and calls uct_advance with it; then it searches until the play
 * deadline minus a small margin, offering its best move so far through the sink between
 * slices of the search. When it cannot know the true state (GDL-II, several believed
 * states) it plays a uniformly random legal move, as `random` does.
 *
 * Options, as "mcts:OPT:OPT..." (player_kind_find):
 *   iters=N   at most N iterations per move (1..100000000): reproducible for a seed as long
 *             as the clock does not cut the search short; start does no search
 *   c=X       UCB1 exploration constant (0..100, default 1.4)
 *   margin=S  seconds kept in hand before the play deadline (0..10, default 0.05) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player.h"

#ifdef PLAYER_HAVE_MCTS

#include "uct.h"

#define MAX_JOINTS 4096   /* joint moves tried to find the move that was played */
#define SLICE_MIN 0.05    /* seconds: the shortest search slice between offers */
#define SLICE_PARTS 8     /* a budget is searched in about this many slices (with a sink) */

typedef struct {
    uint32_t iters; /* 0: time-bounded */
    double c;       /* < 0: uct's default */
    double margin;
} mcts_opts_t;

typedef struct {
    player_t base;
    game_t *game;
    reasoner_t *r;
    uint32_t role;
    uint64_t seed;
    bool verbose;
    mcts_opts_t opts;
    splitmix_t rng;
    uct_t *uct;
    state_t prev; /* the state last searched */
    bool have_prev;
    uint32_t moves; /* moves chosen by search, for the log */
} mcts_player_t;

/* Parses "OPT:OPT..." into o; false (with a reason) on an unknown or bad option. */
static bool parse_opts(const char *text, mcts_opts_t *o, strbuf_t *err) {
    o->iters = 0;
    o->c = -1;
    o->margin = 0.05;
    if (!text) return true;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char buf[64];
        if (len == 0 || len >= sizeof buf) {
            sb_printf(err, "bad mcts option '%.*s'", (int)(len < 60 ? len : 60), p);
            return false;
        }
        memcpy(buf, p, len);
        buf[len] = 0;
        char *eq = strchr(buf, '=');
        char *rest = NULL;
        bool ok = eq != NULL;
        if (ok) {
            *eq = 0;
            const char *val = eq + 1;
            if (!strcmp(buf, "iters")) {
                unsigned long long n = strtoull(val, &rest, 10);
                ok = *val && *val != '-' && !*rest && n >= 1 && n <= 100000000ull;
                o->iters = (uint32_t)n;
            } else if (!strcmp(buf, "c")) {
                double c = strtod(val, &rest);
                ok = *val && !*rest && c >= 0 && c <= 100;
                o->c = c;
            } else if (!strcmp(buf, "margin")) {
                double m = strtod(val, &rest);
                ok = *val && !*rest && m >= 0 && m <= 10;
                o->margin = m;
            } else {
                ok = false;
            }
        }
        if (!ok) {
            sb_printf(err, "bad mcts option '%s' (iters=N, c=X, margin=S)", buf);
            return false;
        }
        p += len;
        if (*p == ':') p++;
    }
    return true;
}

static bool mcts_check_options(const char *opts, strbuf_t *err) {
    mcts_opts_t o;
    return parse_opts(opts, &o, err);
}

static player_t *mcts_create(const player_setup_t *setup) {
    mcts_player_t *p = xcalloc(1, sizeof *p);
    p->game = setup->game;
    p->r = setup->reasoner;
    p->role = setup->role;
    p->seed = setup->seed;
    p->verbose = setup->verbose;
    p->rng.s = setup->seed ^ 0x9e3779b97f4a7c15ull;
    strbuf_t err;
    sb_init(&err);
    if (!parse_opts(setup->options, &p->opts, &err)) parse_opts(NULL, &p->opts, &err);
    sb_fini(&err);
    state_init(&p->prev);
    return &p->base;
}

static void ensure_uct(mcts_player_t *p) {
    if (p->uct) return;
    p->uct = uct_new(p->game, p->r, p->role, p->seed);
    if (p->opts.c >= 0) uct_set_exploration(p->uct, p->opts.c);
    p->have_prev = false;
}

static void log_stats(mcts_player_t *p, const char *what, double secs) {
    if (!p->verbose || !p->uct) return;
    uct_stats_t st;
    uct_stats(p->uct, &st);
    fprintf(stderr,
            "mcts: %s: %.0f ms, %llu iterations (cumulative), root visits %u, value %.1f%s, "
            "%llu nodes, avg rollout %.1f\n",
            what, secs * 1000, (unsigned long long)st.iterations, st.root_visits, st.root_value,
            st.root_proven ? " (proven)" : "", (unsigned long long)st.nodes, st.avg_rollout_len);
}

static void mcts_start(player_t *pl, const state_t *initial, double deadline) {
    mcts_player_t *p = (mcts_player_t *)pl;
    ensure_uct(p);
    if (p->game->gdl2 || p->opts.iters || !initial) return;
    double t0 = now_seconds();
    double budget = (deadline - t0) * 0.9 - p->opts.margin;
    if (budget < 0.01 || reason_terminal(p->r, initial)) return;
    uct_choose(p->uct, initial, budget, 0);
    state_copy(&p->prev, initial);
    p->have_prev = true;
    log_stats(p, "start", now_seconds() - t0);
}

/* Re-roots the tree at s: finds a joint move from p->prev to s and advances with it. */
static void advance_to(mcts_player_t *p, const state_t *s) {
    if (!p->have_prev || state_equal(&p->prev, s)) return;
    uint32_t n_roles = p->game->n_roles;
    term_t **legal = xcalloc(n_roles, sizeof *legal);
    uint32_t *n = xcalloc(n_roles, sizeof *n);
    uint64_t total = 1;
    for (uint32_t i = 0; i < n_roles && total <= MAX_JOINTS; i++) {
        const term_t *mv;
        n[i] = reason_legal(p->r, &p->prev, i, &mv);
        legal[i] = xmalloc((n[i] + 1) * sizeof *mv);
        if (n[i]) memcpy(legal[i], mv, n[i] * sizeof *mv);
        total *= n[i];
    }
    bool found = false;
    if (total >= 1 && total <= MAX_JOINTS) {
        term_t *joint = xcalloc(n_roles + 1, sizeof *joint);
        state_t next;
        state_init(&next);
        for (uint64_t k = 0; k < total && !found; k++) {
            uint64_t x = k;
            for (uint32_t i = 0; i < n_roles; i++) {
                joint[i] = legal[i][x % n[i]];
                x /= n[i];
            }
            reason_next(p->r, &p->prev, joint, &next);
            if (state_equal(&next, s)) found = true;
        }
        if (found) uct_advance(p->uct, joint);
        state_fini(&next);
        free(joint);
    }
    for (uint32_t i = 0; i < n_roles; i++)
        free(legal[i]);
    free(legal);
    free(n);
    /* Not found: uct_choose starts afresh at s. */
    p->have_prev = false;
}

static bool contains(const term_t *moves, uint32_t n, term_t m) {
    for (uint32_t i = 0; i < n; i++)
        if (moves[i] == m) return true;
    return false;
}

static term_t mcts_play(player_t *pl, const player_turn_t *turn, double deadline,
                        move_sink_t *sink) {
    mcts_player_t *p = (mcts_player_t *)pl;
    term_t fallback = turn->legal[splitmix_next(&p->rng) % turn->n_legal];
    if (!turn->exact || turn->n_states < 1 || turn->n_legal == 1) {
        /* The true state is unknown (or there is nothing to choose): play as `random`. */
        sink_offer(sink, fallback);
        p->have_prev = false;
        return fallback;
    }
    ensure_uct(p);
    const state_t *s = &turn->states[0];
    double t0 = now_seconds();
    advance_to(p, s);
    term_t best = TERM_NONE;
    double remaining = deadline - now_seconds();
    double budget = remaining * 0.95 - p->opts.margin;
    if (budget < 0.005) budget = 0.005;
    double stop = now_seconds() + budget;
    if (p->opts.iters || !sink) {
        best = uct_choose(p->uct, s, budget, p->opts.iters);
    } else {
        double slice = budget / SLICE_PARTS;
        if (slice < SLICE_MIN) slice = SLICE_MIN;
        for (;;) {
            double left = stop - now_seconds();
            if (left <= 0 && best != TERM_NONE) break;
            double secs = left < slice ? left : slice;
            if (secs < 0.001) secs = 0.001;
            term_t m = uct_choose(p->uct, s, secs, 0);
            if (m == TERM_NONE || !contains(turn->legal, turn->n_legal, m)) break;
            if (m != best) sink_offer(sink, m);
            best = m;
            uct_stats_t st;
            uct_stats(p->uct, &st);
            if (st.root_proven) break;
        }
    }
    if (best == TERM_NONE || !contains(turn->legal, turn->n_legal, best)) {
        if (p->verbose)
            fprintf(stderr, "mcts: turn %u: the search gave no legal move; playing at random\n",
                    turn->turn);
        best = fallback;
    }
    sink_offer(sink, best);
    state_copy(&p->prev, s);
    p->have_prev = true;
    p->moves++;
    if (p->verbose) {
        char what[32];
        snprintf(what, sizeof what, "turn %u", turn->turn);
        log_stats(p, what, now_seconds() - t0);
    }
    return best;
}

static void mcts_stop(player_t *pl) {
    mcts_player_t *p = (mcts_player_t *)pl;
    uct_free(p->uct);
    p->uct = NULL;
    p->have_prev = false;
}

static void mcts_destroy(player_t *pl) {
    mcts_player_t *p = (mcts_player_t *)pl;
    uct_free(p->uct);
    state_fini(&p->prev);
    free(p);
}

const player_kind_t player_mcts_kind = {
    .name = "mcts",
    .summary = "UCT Monte-Carlo tree search (mcts:iters=N:c=X:margin=S)",
    .create = mcts_create,
    .start = mcts_start,
    .play = mcts_play,
    .stop = mcts_stop,
    .destroy = mcts_destroy,
    .check_options = mcts_check_options,
};

#endif
