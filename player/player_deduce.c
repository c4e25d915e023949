/* The `deduce` player: plays what it can prove (GDL-II).
 *
 * At start it grounds the game (gnet.h) and starts a Z3 belief reasoner for its role
 * (bsmt.h); each turn it first feeds the reasoner what it was told since (our moves and
 * percepts, turn->history). Then:
 *   1. a legal move after which every consistent outcome is terminal with goal 100 for us
 *      is played at once (on the killer game: accuse exactly when the killer card is
 *      entailed, Algorithm 1 of the paper);
 *   2. otherwise it never gambles: a move that may end the game or lower our goal value
 *      in some consistent outcome (on the killer game: a wrong accusation eliminates, 50
 *      -> 0) is left out while another move remains;
 *   3. among the rest, flat Monte-Carlo over sampled worlds: consistent states sampled by
 *      Z3, random playouts after each candidate move, the best average goal.
 * A game that cannot be grounded (recursive rules, too large) is played by step 3 alone
 * on the believed states the caller keeps. Counters are logged with --verbose.
 *
 * Options, as "deduce:OPT": playouts=N  at most N rounds of playouts per move (one per
 * candidate move each; default: as many as the clock allows), for reproducible tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsmt.h"
#include "gnet.h"
#include "player.h"

#define WORLDS 16          /* states sampled per turn for the playouts */
#define PLAYOUT_STEPS 1000 /* a playout longer than this scores 0 */
#define MAX_ATOMS 2000000u /* ground networks larger than this are not built */

typedef struct {
    player_t base;
    player_setup_t setup;
    gnet_t *net;
    bsmt_t *bsmt;
    uint32_t fed; /* history entries given to bsmt */
    bool broken;  /* bsmt found the history inconsistent (reported once) */
    splitmix_t rng;
    uint64_t proved, gambles_avoided, turns;
    uint64_t max_rounds; /* 0: until the deadline */
} deduce_player_t;

/* "playouts=N" (N >= 1); false with a reason otherwise. */
static bool parse_opts(const char *opts, uint64_t *rounds, strbuf_t *err) {
    char *end;
    if (strncmp(opts, "playouts=", 9) != 0) {
        sb_printf(err, "unknown option '%s' (deduce takes playouts=N)", opts);
        return false;
    }
    unsigned long long v = strtoull(opts + 9, &end, 10);
    if (*end || end == opts + 9 || v < 1 || v > 100000000) {
        sb_printf(err, "playouts wants an integer 1..100000000, not '%s'", opts + 9);
        return false;
    }
    *rounds = v;
    return true;
}

static bool deduce_check_options(const char *opts, strbuf_t *err) {
    uint64_t r;
    return parse_opts(opts, &r, err);
}

static player_t *deduce_create(const player_setup_t *setup) {
    deduce_player_t *p = xcalloc(1, sizeof *p);
    p->setup = *setup;
    p->rng.s = setup->seed ^ 0xded0ce;
    if (setup->options) {
        strbuf_t err;
        sb_init(&err);
        parse_opts(setup->options, &p->max_rounds, &err); /* checked by player_kind_find */
        sb_fini(&err);
    }
    return &p->base;
}

static void deduce_start(player_t *pl, const state_t *initial, double deadline) {
    (void)initial;
    (void)deadline;
    deduce_player_t *p = (deduce_player_t *)pl;
    strbuf_t err;
    sb_init(&err);
    p->net = gnet_new(p->setup.game, MAX_ATOMS, &err);
    if (!p->net)
        fprintf(stderr, "deduce: %s; playing by sampled playouts only\n", sb_str(&err));
    else
        p->bsmt = bsmt_new(p->net, p->setup.role, p->setup.seed);
    sb_fini(&err);
}

static void feed(deduce_player_t *p, const player_turn_t *turn) {
    if (!p->bsmt) return;
    for (; p->fed < turn->n_history; p->fed++) {
        const belief_obs_t *o = &turn->history[p->fed];
        if (!bsmt_observe(p->bsmt, o->move, o->percepts, o->n_percepts) && !p->broken) {
            p->broken = true;
            fprintf(stderr, "deduce: BUG: observation %u cannot happen in the game\n", p->fed);
        }
    }
    if (!p->broken && bsmt_consistent(p->bsmt) == 0) {
        p->broken = true;
        fprintf(stderr, "deduce: BUG: the history is inconsistent at step %u\n", p->fed);
    }
}

/* A random playout from s after our move; our goal at the end (0 when too long). */
static int playout(deduce_player_t *p, const state_t *s, term_t move) {
    reasoner_t *r = p->setup.reasoner;
    const game_t *g = p->setup.game;
    state_t cur, nx;
    state_init(&cur);
    state_init(&nx);
    state_copy(&cur, s);
    term_t joint[64];
    int value = 0;
    for (uint32_t step = 0; step < PLAYOUT_STEPS && g->n_roles <= 64; step++) {
        if (reason_terminal(r, &cur)) {
            value = reason_goal_value(r, &cur, p->setup.role);
            break;
        }
        bool ok = true;
        for (uint32_t k = 0; k < g->n_roles && ok; k++) {
            const term_t *m;
            uint32_t n = reason_legal(r, &cur, k, &m);
            if (!n)
                ok = false;
            else if (step == 0 && k == p->setup.role)
                joint[k] = move;
            else
                joint[k] = m[splitmix_next(&p->rng) % n];
        }
        if (!ok) break;
        if (step == 0 && !reason_is_legal(r, &cur, p->setup.role, move)) break;
        reason_next(r, &cur, joint, &nx);
        state_copy(&cur, &nx);
    }
    state_fini(&cur);
    state_fini(&nx);
    return value < 0 ? 0 : value;
}

/* Flat Monte-Carlo over worlds: round robin over (move, world) until deadline. */
static term_t sample_play(deduce_player_t *p, const term_t *moves, uint32_t n,
                          const state_t *worlds, uint32_t nw, double deadline, move_sink_t *sink) {
    double *sum = xcalloc(n, sizeof *sum);
    uint64_t *cnt = xcalloc(n, sizeof *cnt);
    term_t best = moves[0];
    uint64_t round = 0;
    while (nw && now_seconds() < deadline && (!p->max_rounds || round < p->max_rounds)) {
        for (uint32_t i = 0; i < n && now_seconds() < deadline; i++) {
            sum[i] += playout(p, &worlds[round % nw], moves[i]);
            cnt[i]++;
        }
        round++;
        double bv = -1;
        for (uint32_t i = 0; i < n; i++)
            if (cnt[i] && sum[i] / cnt[i] > bv) bv = sum[i] / cnt[i], best = moves[i];
        sink_offer(sink, best);
    }
    free(sum);
    free(cnt);
    return best;
}

/* 1 when the move may end the game or lower our goal in some consistent outcome, 0 when
 * in none, -1 unknown. */
static int risky(bsmt_t *b, term_t move) {
    int e = bsmt_move_may_end(b, move);
    if (e != 0) return e;
    return bsmt_move_may_lose(b, move);
}

static term_t deduce_play(player_t *pl, const player_turn_t *turn, double deadline,
                          move_sink_t *sink) {
    deduce_player_t *p = (deduce_player_t *)pl;
    double t0 = now_seconds();
    double stop = t0 + (deadline - t0) * 0.8;
    p->turns++;
    feed(p, turn);
    sink_offer(sink, turn->legal[0]);
    if (turn->n_legal == 1) return turn->legal[0];
    /* safe: can neither end the game nor lower our goal in any consistent outcome;
     * unknown: not examined in time; gambles: risky without a win in all outcomes. Played
     * in that order of preference. */
    uint32_t n = turn->n_legal;
    term_t *cands = xmalloc(3 * n * sizeof *cands), *unknown = cands + n, *gambles = cands + 2 * n;
    uint32_t nc = 0, nu = 0, ng = 0;
    bool usable = p->bsmt && !p->broken;
    int *ends = xmalloc(n * sizeof *ends);
    for (uint32_t i = 0; i < n; i++) /* one check per move first */
        ends[i] = !usable || now_seconds() > stop ? -1 : risky(p->bsmt, turn->legal[i]);
    for (uint32_t i = 0; i < n; i++) {
        term_t m = turn->legal[i];
        if (ends[i] == 0) {
            cands[nc++] = m;
        } else if (ends[i] < 0 || now_seconds() > stop) {
            unknown[nu++] = m;
        } else if (bsmt_move_wins(p->bsmt, m) == 1) {
            p->proved++;
            if (p->setup.verbose) fprintf(stderr, "deduce: a proved win at turn %u\n", turn->turn);
            free(cands);
            free(ends);
            sink_offer(sink, m);
            return m;
        } else {
            gambles[ng++] = m;
            p->gambles_avoided++;
        }
    }
    free(ends);
    if (!nc) {
        memmove(cands, nu ? unknown : gambles, (nu ? nu : ng) * sizeof *cands);
        nc = nu ? nu : ng;
    }
    term_t move = cands[0];
    if (nc > 1) {
        state_t worlds[WORLDS];
        uint32_t nw = 0;
        if (usable) {
            for (uint32_t i = 0; i < WORLDS; i++)
                state_init(&worlds[i]);
            nw = bsmt_sample(p->bsmt, WORLDS, worlds);
            move = sample_play(p, cands, nc, worlds, nw, stop, sink);
            for (uint32_t i = 0; i < WORLDS; i++)
                state_fini(&worlds[i]);
        } else {
            move = sample_play(p, cands, nc, turn->states, turn->n_states, stop, sink);
        }
    }
    free(cands);
    sink_offer(sink, move);
    return move;
}

static void deduce_stop(player_t *pl) {
    deduce_player_t *p = (deduce_player_t *)pl;
    if (p->setup.verbose && p->bsmt) {
        bsmt_stats_t st = bsmt_stats(p->bsmt);
        fprintf(stderr,
                "deduce: %llu turns, %llu proved wins, %llu gambles avoided; z3 %llu checks, "
                "%.2f ms average, %.1f ms max\n",
                (unsigned long long)p->turns, (unsigned long long)p->proved,
                (unsigned long long)p->gambles_avoided, (unsigned long long)st.checks,
                st.checks ? 1000 * st.seconds / st.checks : 0.0, 1000 * st.max_seconds);
    }
}

static void deduce_destroy(player_t *pl) {
    deduce_player_t *p = (deduce_player_t *)pl;
    bsmt_free(p->bsmt);
    gnet_free(p->net);
    free(p);
}

const player_kind_t player_deduce_kind = {
    .name = "deduce",
    .summary = "GDL-II: plays a move proved to win (Z3 belief), never gambles, else playouts "
               "over sampled worlds (deduce:playouts=N)",
    .create = deduce_create,
    .start = deduce_start,
    .play = deduce_play,
    .stop = deduce_stop,
    .destroy = deduce_destroy,
    .check_options = deduce_check_options,
};
