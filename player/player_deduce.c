/* The `deduce` player: plays what it can prove (GDL-II).
 *
 * At start it takes the ground network of its engine (the one the agent tracks belief on:
 * the game is grounded once; bnet.h) and starts a Z3 belief reasoner for its role
 * (bsmt.h); each turn it first feeds the reasoner what it was told since (our moves and
 * percepts, turn->history). Then:
 *   1. a legal move after which every consistent outcome is terminal with goal 100 for us
 *      is played at once (on the killer game: accuse exactly when the killer card is
 *      entailed, Algorithm 1 of the paper);
 *   2. otherwise it never gambles: a move that may lower our goal value in some
 *      consistent outcome (on the killer game: a wrong accusation eliminates, 50 -> 0),
 *      or end the game below 100 where our goal is not defined before, is left out while
 *      another move remains (ending the game is no gamble in itself: a guess that may be
 *      right and ends the game then is what a guessing game asks for);
 *   One consistent world sampled by Z3 and played out natively sorts most moves first
 *   (see deduce_play), so that Z3 is asked about few moves per turn;
 *   3. among the rest, flat Monte-Carlo over worlds sampled by Z3, random playouts after
 *      each candidate move, the best average goal.
 * Its legal moves are those of a consistent world (kind->legal), found by the deadline
 * the agent gives: the world of the last turn carried forward natively through the
 * steps since (advance_world), else a Z3 model. The agent then only records the history
 * for it (belief.h's sampled sets lose the true state on the full killer game and would
 * offer illegal moves).
 * A game that did not ground (too large: the engine is the interpreter, or ground rules in
 * a cycle) is played by step 3 alone on the believed states the caller keeps. Counters are logged
 * with
 * --verbose.
 *
 * Options, as "deduce:OPT:OPT":
 *   playouts=N       at most N rounds of playouts per move (one per candidate move each;
 *                    default: as many as the clock allows), for reproducible tests
 *   choose=info      step 3 picks instead the move whose percepts tell most about the
 *                    world: the mutual information between 16 sampled worlds and our
 *                    next two steps' percepts (others random); on the killer game, the
 *                    ask expected to reveal most about the cards
 *   worlds=N         step 3 plays out over N worlds (1..16, default 4): the turn's
 *                    world and N-1 more sampled by Z3 (each a model to read: on the full
 *                    killer game most of a move's time)
 *   choose=playouts  step 3 as above (the default)
 *   choose=random    step 3 picks uniformly among the safe moves: the player of the
 *                    killer paper, which asks and places at random and accuses when Z3
 *                    proves the killer (the baseline of docs/killer.md)
 *   choose=secret    step 3 keeps the safe moves that show the other roles least (the
 *                    surprisal of their percepts under a mirror of their belief, see
 *                    secret_least), then plays out as choose=playouts among them; on the
 *                    killer game, give back a card the asker gave us, place a card
 *                    already known
 *   choose=pimc      step 3 by Perfect-Information Monte Carlo (the tarok seed): each of
 *                    the worlds searched by alpha-beta as a game of perfect information,
 *                    every candidate alone, values summed per move (pimc_play); for a
 *                    last decision (every candidate ends the game) the worlds are every
 *                    consistent state when Z3 finds few, each weighted by the probability
 *                    of its history with the other roles (random too) choosing uniformly
 *                    (pimc_worlds), and a gamble with a better expected goal is a
 *                    candidate too (admit_gamble: Monty Hall's switch); the kind `pimc` is
 *                    deduce with this choice
 *   depth=N          choose=pimc searches N joint moves deep at most (default: deeper
 *                    until the clock runs out or every value is proven)
 *   search=ab|uct    choose=pimc's search in each world: alpha-beta (default with two
 *                    roles besides `random`) or UCT, where each role keeps its own goal
 *                    (default with more: alpha-beta's coalition would minimise ours)
 *   iters=N          search=uct: N iterations per world (default: its share of the clock)
 *   ties=secret|info|first  choose=pimc among moves of equal value: those that show the
 *                    other players least (secret_least), then the most informative to
 *                    us (default; break_tie); the most informative; or the first */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/opts.h"
#include "base/rng.h"
#include "base/util.h"
#include "engine/fluents.h"
#include "engine/joints.h"
#include "mcts/ab.h"
#include "mcts/uct.h"
#include "player/bnet.h"
#include "player/bsmt.h"
#include "player/fallback.h"
#include "player/player.h"

#define INFO_WORLDS 16     /* worlds sampled for choose=info */
#define WORLDS 4           /* worlds per turn for the playouts (default of worlds=N) */
#define PLAYOUT_STEPS 1000 /* a playout longer than this scores 0 */

enum { PIMC_AB = 1, PIMC_UCT = 2 };
enum { TIES_SECRET, TIES_INFO, TIES_FIRST };
typedef enum { CHOOSE_PLAYOUTS, CHOOSE_INFO, CHOOSE_RANDOM, CHOOSE_SECRET, CHOOSE_PIMC } choose_t;

typedef struct {
    uint64_t rounds; /* playouts=N; 0: until the deadline */
    uint32_t worlds; /* worlds=N; 0: WORLDS */
    uint32_t depth;  /* depth=N (choose=pimc); 0: no bound but the clock */
    int search;      /* search=ab|uct: PIMC_AB, PIMC_UCT; 0: by the number of roles */
    uint32_t iters;  /* iters=N (search=uct); 0: the clock */
    int ties;        /* ties=secret|info|first: TIES_SECRET (0), TIES_INFO, TIES_FIRST */
    choose_t choose; /* choose=playouts|info|random|secret */
} deduce_opts_t;

typedef struct {
    player_t base;
    player_setup_t setup;
    bnet_t *net;
    bsmt_t *bsmt;
    uint32_t fed;                /* history entries given to bsmt */
    bool broken;                 /* bsmt found an observation impossible (reported once) */
    const belief_obs_t *history; /* the agent's history, as of the last feed */
    splitmix_t rng;
    joints_t others; /* the joint moves others_random draws from */
    uint64_t proved, gambles_avoided, gambles_taken, turns, particles;
    /* how our legal moves were found: known fluents, a world, checks, some checks only */
    uint64_t legal_known, legal_world, legal_proved, legal_partial;
    /* a world's moves not proved legal in every consistent state; of those, illegal in some */
    uint64_t legal_dropped, legal_refuted;
    uint64_t sat_worlds; /* worlds from CaDiCaL models */
    deduce_opts_t opts;
    state_t world;       /* a consistent state of the current step, from Z3 */
    uint32_t world_step; /* the bsmt step it belongs to + 1; 0: none */
    state_t initial;
    /* choose=secret: the joint moves that lead to world (world_step - 1 of them, n_roles
     * each; valid while has_traj), the generation of that history (a new one when Z3 gave
     * another), and per other role its belief as if it had seen that history (mirror) */
    term_t *traj;
    size_t cap_traj;
    bool has_traj;
    uint64_t traj_gen, mirror_gen;
    uint32_t mirror_fed;
    bsmt_t *mirror[64];
    /* our legal moves in a guess at the state when the world died (near_guess) */
    term_t *near;
    size_t cap_near;
    uint32_t n_near;
    ab_t *ab;   /* choose=pimc's search, its table kept across turns and worlds */
    uct_t *uct; /* ... or its UCT, cleared for each world */
    uint64_t pimc_searches, pimc_depth_sum, pimc_turns; /* depth_sum: alpha-beta's sweeps */
    /* the engine's scratch states (a term state loaded, its successor) and joint move */
    eng_state_t *es[2];
    term_t *joint;
} deduce_player_t;

/* s loaded into scratch state k of the engine. */
static eng_state_t *load(deduce_player_t *p, int k, const state_t *s) {
    engine_state_set(p->setup.engine, p->es[k], s);
    return p->es[k];
}

/* "OPT:OPT..." with OPT playouts=N, worlds=N or choose=...; false with a reason
 * otherwise. */
static bool set_opt(void *ctx, const char *key, const char *val) {
    deduce_opts_t *o = ctx;
    static const char *const chooses[] = {"playouts", "info", "random", "secret", "pimc"};
    static const char *const searches[] = {"", "ab", "uct"}; /* PIMC_AB, PIMC_UCT */
    if (!strcmp(key, "playouts")) return opts_u64(val, 1, 100000000, &o->rounds);
    if (!strcmp(key, "worlds")) return opts_u32(val, 1, INFO_WORLDS, &o->worlds);
    if (!strcmp(key, "depth")) return opts_u32(val, 1, 200, &o->depth);
    if (!strcmp(key, "iters")) return opts_u32(val, 1, 100000000, &o->iters);
    if (!strcmp(key, "ties")) {
        static const char *const ties[] = {"secret", "info", "first"}; /* TIES_* */
        for (int k = TIES_SECRET; k <= TIES_FIRST; k++)
            if (!strcmp(val, ties[k])) return o->ties = k, true;
        return false;
    }
    if (!strcmp(key, "search")) {
        for (int k = PIMC_AB; k <= PIMC_UCT; k++)
            if (!strcmp(val, searches[k])) return o->search = k, true;
        return false;
    }
    if (strcmp(key, "choose")) return false;
    for (uint32_t c = 0; c < sizeof chooses / sizeof *chooses; c++) /* choose_t's order */
        if (!strcmp(val, chooses[c])) return o->choose = (choose_t)c, true;
    return false;
}

/* "OPT:OPT..." with OPT playouts=N, worlds=N, choose=..., depth=N, search=ab|uct or
 * iters=N; false with a reason otherwise. */
static bool parse_opts(const char *opts, deduce_opts_t *o, strbuf_t *err) {
    return opts_parse(
        opts, "deduce",
        "playouts=N, worlds=N, depth=N, search=ab|uct, iters=N, ties=secret|info|first, "
        "choose=playouts|info|random|secret|pimc",
        set_opt, o, err);
}

static bool deduce_check_options(const char *opts, strbuf_t *err) {
    deduce_opts_t o = {0};
    return parse_opts(opts, &o, err);
}

/* A deduce player whose step 3 is `choose` unless its options say otherwise. */
static player_t *deduce_new(const player_setup_t *setup, choose_t choose) {
    deduce_player_t *p = xcalloc(1, sizeof *p);
    p->opts.choose = choose;
    p->setup = *setup;
    p->rng.s = setup->seed ^ 0xded0ce;
    p->es[0] = engine_state_new(setup->engine);
    p->es[1] = engine_state_new(setup->engine);
    p->joint = xcalloc(setup->game->n_roles + 1, sizeof *p->joint);
    joints_init(&p->others, setup->game->n_roles);
    state_init(&p->world);
    state_init(&p->initial);
    if (setup->options) {
        strbuf_t err;
        sb_init(&err);
        parse_opts(setup->options, &p->opts, &err); /* checked by player_kind_find */
        sb_fini(&err);
    }
    return &p->base;
}

static player_t *deduce_create(const player_setup_t *setup) {
    return deduce_new(setup, CHOOSE_PLAYOUTS);
}

static player_t *pimc_create(const player_setup_t *setup) {
    return deduce_new(setup, CHOOSE_PIMC);
}

static void deduce_start(player_t *pl, const state_t *initial, double deadline) {
    deduce_player_t *p = (deduce_player_t *)pl;
    (void)deadline;       /* the network is the engine's, made before the clock started */
    if (!initial) return; /* no engine of its own to make (player.h) */
    /* the initial state is the first world (every player knows it) */
    state_copy(&p->initial, initial);
    state_copy(&p->world, initial);
    p->world_step = 1;
    p->has_traj = true;
    strbuf_t err;
    sb_init(&err);
    /* the network the engine plays on: the game is grounded once */
    p->bsmt = bsmt_start(&p->net, p->setup.game, engine_network(p->setup.engine), p->setup.role,
                         p->setup.seed, &err);
    if (!p->bsmt) fprintf(stderr, "deduce: %s; playing by sampled playouts only\n", sb_str(&err));
    p->base.own_belief = p->bsmt != NULL; /* our legal moves come from Z3 worlds */
    sb_fini(&err);
}

static void feed(deduce_player_t *p, const player_turn_t *turn) {
    if (!p->bsmt) return;
    p->history = turn->history;
    uint32_t bad = bsmt_feed(p->bsmt, turn->history, turn->n_history, &p->fed);
    if (bad != UINT32_MAX && !p->broken) {
        p->broken = true;
        fprintf(stderr, "deduce: BUG: observation %u cannot happen in the game\n", bad);
    }
    bsmt_live(p->bsmt); /* we are asked to move: the game goes on */
}

/* The others' random moves beside ours (move; TERM_NONE when the caller sets it) in s;
 * false when a role has none. */
static bool others_random(deduce_player_t *p, const eng_state_t *s, term_t move, term_t *joint) {
    if (!joints_load(&p->others, p->setup.engine, s, JOINTS_ENGINE_ORDER, p->setup.role, move))
        return false;
    joints_random(&p->others, &p->rng, joint);
    return true;
}

/* A random playout from s after our move; our goal at the end (0 when too long). */
static int playout(deduce_player_t *p, const state_t *s, term_t move) {
    engine_t *e = p->setup.engine;
    eng_state_t *cur = load(p, 0, s), *nx = p->es[1];
    term_t *joint = p->joint;
    int value = 0;
    for (uint32_t step = 0; step < PLAYOUT_STEPS; step++) {
        if (engine_terminal(e, cur)) {
            value = engine_goal_value(e, cur, p->setup.role);
            break;
        }
        bool drawn = step ? engine_random_joint(e, cur, &p->rng, joint)
                          : others_random(p, cur, move, joint) &&
                                engine_is_legal(e, cur, p->setup.role, move);
        if (!drawn) break;
        engine_next(e, cur, joint, nx);
        eng_state_t *t = cur;
        cur = nx, nx = t;
    }
    return value < 0 ? 0 : value;
}

/* Flat Monte-Carlo over worlds: round robin over (move, world) until deadline. */
static term_t sample_play(deduce_player_t *p, const term_t *moves, uint32_t n,
                          const state_t *worlds, uint32_t nw, double deadline, move_sink_t *sink) {
    double *sum = xcalloc(n, sizeof *sum);
    uint64_t *cnt = xcalloc(n, sizeof *cnt);
    term_t best = moves[0];
    uint64_t round = 0;
    while (nw && now_seconds() < deadline && (!p->opts.rounds || round < p->opts.rounds)) {
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

static term_t info_play(deduce_player_t *p, const term_t *moves, uint32_t n, const state_t *worlds,
                        uint32_t nw);
static uint32_t secret_least(deduce_player_t *p, term_t *cands, uint32_t nc, double deadline);

/* PIMC values ignore what a move shows and what it lets us learn (each world is seen whole
 * by every role): among the moves of the best value (ties=secret) those that show the
 * other players least (secret_least until deadline; on the killer game every safe move is
 * worth 0 in every world, where each opponent sees the killer card), then the one whose
 * percepts tell us most about the world (info_play; in a guessing game, the guess that
 * splits the numbers left, not the first in order). Up to TIE_MAX tied moves; more: best
 * as it is. */
#define TIE_MAX 32
static term_t break_tie(deduce_player_t *p, const term_t *moves, uint32_t n, const double *sum,
                        const state_t *worlds, uint32_t nw, term_t best, double deadline) {
    double top = -HUGE_VAL;
    for (uint32_t i = 0; i < n; i++)
        top = fmax(top, sum[i]);
    term_t tied[TIE_MAX];
    uint32_t nt = 0;
    for (uint32_t i = 0; i < n; i++)
        if (sum[i] >= top - 1e-9 * fmax(1, fabs(top))) {
            if (nt == TIE_MAX) return best;
            tied[nt++] = moves[i];
        }
    if (nt > 1 && p->opts.ties == TIES_SECRET) nt = secret_least(p, tied, nt, deadline);
    return nt > 1 ? info_play(p, tied, nt, worlds, nw) : nt ? tied[0] : best;
}

static bool other_player(deduce_player_t *p, uint32_t j);

/* The end of choose=pimc's search: with ties=secret in a game of other players who see
 * something, a third of the time is kept for secret_least among tied moves. */
static double search_end(deduce_player_t *p, double deadline) {
    if (p->opts.ties != TIES_SECRET || !p->net) return deadline;
    for (uint32_t j = 0; j < p->setup.game->n_roles; j++)
        if (other_player(p, j)) {
            double now = now_seconds();
            return now + (deadline - now) * 2 / 3;
        }
    return deadline;
}

/* choose=pimc: Perfect-Information Monte Carlo. Each world is searched as if every role
 * saw it, by alpha-beta (mcts/ab.h: the others as one coalition, leaves valued by
 * playouts), each candidate move alone (ab_search_move), and a move's values are summed
 * over the worlds; a move illegal in some world is out (our legal moves intersected), unless
 * every move is. Depth by depth: every world and move to d joint moves, then d + 1, until
 * the deadline, depth=N, or every value is proven; the best sum of the last complete sweep
 * is played (none complete: the best over the worlds the first sweep finished, else the
 * first candidate, deduce's safest). */
static term_t pimc_play(deduce_player_t *p, const term_t *moves, uint32_t n, const state_t *worlds,
                        const double *wt, uint32_t nw, double tie_deadline, move_sink_t *sink) {
    engine_t *e = p->setup.engine;
    double deadline = search_end(p, tie_deadline);
    if (!p->ab) {
        ab_opts_t o;
        ab_default_opts(&o);
        p->ab = ab_new(e, p->setup.role, &o, p->setup.seed ^ 0x9137c);
    }
    /* sum: the last complete sweep; cur: this one; part: this one's worlds done so far */
    double *sum = xcalloc(3 * n, sizeof *sum), *cur = sum + n, *part = cur + n;
    bool ranked = false;
    term_t best = moves[0];
    uint32_t max = p->opts.depth ? p->opts.depth : 200;
    p->pimc_turns++;
    for (uint32_t d = 1, proven = 0; d <= max && !proven && now_seconds() < deadline; d++) {
        memset(cur, 0, n * sizeof *cur);
        proven = 1;
        bool cut = false;
        uint32_t worlds_done = 0;
        for (uint32_t w = 0; w < nw && !cut; w++) {
            const eng_state_t *es = load(p, 0, &worlds[w]);
            for (uint32_t i = 0; i < n && !cut; i++) {
                ab_result_t r;
                ab_search_move(p->ab, es, moves[i], d, deadline, &r);
                p->pimc_searches++;
                cut = r.timed_out;
                if (r.move == TERM_NONE) /* not legal in this world */
                    cur[i] = -HUGE_VAL;
                else
                    cur[i] += (wt ? wt[w] : 1) * (r.value < 0 ? 0 : r.value);
                proven = proven && r.proven;
            }
            if (!cut) memcpy(part, cur, n * sizeof *part), worlds_done++;
        }
        /* the first sweep cut short (many moves, a short clock): the worlds it finished
         * rank the moves, better than none */
        if (cut && d == 1 && worlds_done)
            memcpy(cur, part, n * sizeof *cur);
        else if (cut)
            break;
        memcpy(sum, cur, n * sizeof *sum);
        ranked = true;
        uint32_t bi = 0;
        for (uint32_t i = 1; i < n; i++)
            if (sum[i] > sum[bi]) bi = i;
        best = moves[bi];
        if (cut) break;
        p->pimc_depth_sum++; /* one per sweep completed: the depths reached, summed */
        sink_offer(sink, best);
    }
    if (ranked && p->opts.ties != TIES_FIRST)
        best = break_tie(p, moves, n, sum, worlds, nw, best, tie_deadline);
    free(sum);
    return best;
}

/* choose=pimc with search=uct: each world searched by UCT (mcts/uct.h: decoupled, every
 * role its own goal), for its share of the time left (or iters=N iterations), the tree
 * cleared between worlds; a move's mean value at the root is averaged over the worlds
 * where it was tried; a move illegal in some world is out, unless every move is. */
static term_t pimc_uct(deduce_player_t *p, const term_t *moves, uint32_t n, const state_t *worlds,
                       const double *wt, uint32_t nw, double tie_deadline, move_sink_t *sink) {
    double deadline = search_end(p, tie_deadline);
    if (!p->uct) p->uct = uct_new(p->setup.engine, p->setup.role, p->setup.seed ^ 0x9137d);
    double *mean = xcalloc(2 * n, sizeof *mean), *tried = mean + n; /* tried: weight */
    uint32_t *out = xcalloc(n, sizeof *out);
    p->pimc_turns++;
    for (uint32_t w = 0; w < nw; w++) {
        double left = deadline - now_seconds();
        if (!p->opts.iters && left <= 0) break;
        uct_clear(p->uct);
        uct_choose(p->uct, &worlds[w], p->opts.iters ? 0 : left / (nw - w), p->opts.iters);
        p->pimc_searches++;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t visits;
            double v;
            if (!uct_root_move(p->uct, moves[i], &visits, &v))
                out[i] = 1;
            else if (visits)
                mean[i] += (wt ? wt[w] : 1) * v, tried[i] += wt ? wt[w] : 1;
        }
    }
    /* val: the mean of each move tried, -inf for the others and (while any move legal in
     * every world was tried) for the moves illegal in some world */
    double *val = xmalloc(n * sizeof *val);
    bool any_in = false;
    for (uint32_t i = 0; i < n; i++)
        any_in |= tried[i] > 0 && !out[i];
    uint32_t bi = 0;
    for (uint32_t i = 0; i < n; i++) {
        val[i] = tried[i] > 0 && (!any_in || !out[i]) ? mean[i] / tried[i] : -HUGE_VAL;
        if (val[i] > val[bi]) bi = i;
    }
    term_t best = moves[bi];
    sink_offer(sink, best);
    if (val[bi] > -HUGE_VAL && p->opts.ties != TIES_FIRST)
        best = break_tie(p, moves, n, val, worlds, nw, best, tie_deadline);
    free(val);
    free(mean);
    free(out);
    sink_offer(sink, best);
    return best;
}

typedef enum { IN_W_SAFE, IN_W_WINS, IN_W_RISKY, IN_W_UNKNOWN } in_world_t;

/* What move does in one consistent world w, whatever the others play (every joint move
 * of theirs, at most JOINTS_MAX): wins (terminal, goal 100), risky (lowers our goal, or
 * ends the game below 100 where our goal was not defined), else safe there. Native engine only: Z3
 * is asked about the rest. */
#define JOINTS_MAX 256
typedef struct {
    deduce_player_t *p;
    const eng_state_t *w;
    term_t *joint;
    int before;
    uint32_t seen;
    bool all_win, some_risky;
    int worst;     /* our lowest goal value after the move; -1 if undefined in some outcome */
    bool all_term; /* every outcome terminal */
    eng_state_t *nx;
} probe_t;

/* An outcome that lowers our goal value (before: this state's, -1 if not defined): to a
 * lower value, or to a terminal state below 100 when there was no value before. */
static bool outcome_lowers(int before, bool term, int after) {
    if (before < 0) return term && after < 100;
    return after >= 0 && after < before;
}

static void probe(probe_t *pr, uint32_t k) {
    const game_t *g = pr->p->setup.game;
    engine_t *e = pr->p->setup.engine;
    if (pr->seen > JOINTS_MAX) return;
    if (k == g->n_roles) {
        pr->seen++;
        engine_next(e, pr->w, pr->joint, pr->nx);
        bool term = engine_terminal(e, pr->nx);
        int after = engine_goal_value(e, pr->nx, pr->p->setup.role);
        if (!(term && after == 100)) pr->all_win = false;
        if (outcome_lowers(pr->before, term, after)) pr->some_risky = true;
        pr->all_term = pr->all_term && term;
        if (after < 0 || pr->worst < 0)
            pr->worst = -1;
        else if (after < pr->worst)
            pr->worst = after;
        return;
    }
    if (k == pr->p->setup.role) return probe(pr, k + 1);
    const term_t *m;
    uint32_t n = engine_legal(e, pr->w, k, &m);
    term_t *moves = xmalloc((n + 1) * sizeof *moves);
    if (n) memcpy(moves, m, n * sizeof *m);
    for (uint32_t i = 0; i < n && pr->seen <= JOINTS_MAX; i++) {
        pr->joint[k] = moves[i];
        probe(pr, k + 1);
    }
    free(moves);
}

/* Every outcome of move in world into *pr; false when the move is illegal there, or the
 * joint moves of the others are none or more than JOINTS_MAX. */
static bool probe_move(deduce_player_t *p, const state_t *world, term_t move, probe_t *pr) {
    engine_t *e = p->setup.engine;
    eng_state_t *w = load(p, 0, world);
    if (!engine_is_legal(e, w, p->setup.role, move)) return false;
    *pr = (probe_t){.p = p,
                    .w = w,
                    .joint = p->joint,
                    .nx = p->es[1],
                    .before = engine_goal_value(e, w, p->setup.role),
                    .all_win = true,
                    .worst = 101,
                    .all_term = true};
    pr->joint[p->setup.role] = move;
    probe(pr, 0);
    return pr->seen && pr->seen <= JOINTS_MAX;
}

static in_world_t in_world(deduce_player_t *p, const state_t *world, term_t move) {
    probe_t pr;
    if (!probe_move(p, world, move, &pr)) return IN_W_UNKNOWN;
    return pr.all_win ? IN_W_WINS : pr.some_risky ? IN_W_RISKY : IN_W_SAFE;
}

/* Our lowest goal value right after move in world (every joint move of the others); -1
 * when undefined in some outcome, the move illegal there, too many joint moves, or (ends)
 * some outcome not terminal. */
static int worst_goal(deduce_player_t *p, const state_t *world, term_t move, bool ends) {
    probe_t pr;
    if (!probe_move(p, world, move, &pr) || (ends && !pr.all_term)) return -1;
    return pr.worst;
}

/* The mean of worst_goal over weighted worlds; -1 when undefined in one. */
static double expected_goal(deduce_player_t *p, term_t move, const state_t *worlds,
                            const double *wt, uint32_t nw, bool ends) {
    double sum = 0, total = 0;
    for (uint32_t i = 0; i < nw; i++) {
        int g = worst_goal(p, &worlds[i], move, ends);
        if (g < 0) return -1;
        sum += wt[i] * g, total += wt[i];
    }
    return total > 0 ? sum / total : -1;
}

/* Whether every move of cands ends the game in world, whatever the others play. */
static bool moves_end(deduce_player_t *p, const state_t *world, const term_t *cands, uint32_t nc) {
    for (uint32_t i = 0; i < nc; i++)
        if (worst_goal(p, world, cands[i], true) < 0) return false;
    return nc > 0;
}

/* With every consistent state at hand, weighted, and every safe move ending the game (no
 * later percept can tell more: waiting is worth nothing), a gamble is worth taking when
 * its expected goal value beats every safe move's: Monty Hall's switch, 2/3 against 1/3.
 * Where the game goes on, deduce's rule stands (on the killer game: accuse only on proof).
 * The best such gamble joins the candidates (cands has room). */
static uint32_t admit_gamble(deduce_player_t *p, term_t *cands, uint32_t nc, const term_t *gambles,
                             uint32_t ng, const state_t *worlds, const double *wt, uint32_t nw) {
    double safe = -1, best = -1;
    term_t pick = TERM_NONE;
    for (uint32_t i = 0; i < nc; i++) {
        double v = expected_goal(p, cands[i], worlds, wt, nw, true);
        if (v < 0) return nc;
        safe = fmax(safe, v);
    }
    for (uint32_t i = 0; i < ng; i++) {
        double v = expected_goal(p, gambles[i], worlds, wt, nw, false);
        if (v > best) best = v, pick = gambles[i];
    }
    if (pick == TERM_NONE || best <= safe + 1e-9) return nc;
    p->gambles_taken++;
    cands[nc++] = pick;
    return nc;
}

/* The probability of a history (joints: steps joint moves) when every other role, random
 * included, picks uniformly among its legal moves. */
static double history_weight(deduce_player_t *p, const term_t *joints, uint32_t steps) {
    engine_t *e = p->setup.engine;
    uint32_t nr = p->setup.game->n_roles;
    eng_state_t *cur = load(p, 0, &p->initial), *nx = p->es[1];
    double w = 1;
    for (uint32_t t = 0; t < steps && w > 0; t++) {
        for (uint32_t r = 0; r < nr; r++) {
            const term_t *m;
            uint32_t n = r == p->setup.role ? 1 : engine_legal(e, cur, r, &m);
            w = n ? w / n : 0;
        }
        engine_next(e, cur, joints + (size_t)t * nr, nx);
        eng_state_t *x = cur;
        cur = nx, nx = x;
    }
    return w;
}

/* PIMC's worlds: up to k consistent states from Z3, each weighted by the probability of its
 * model's history (history_weight); *all when they are every consistent state (the weights
 * are then the posterior, one history per state). */
static uint32_t pimc_worlds(deduce_player_t *p, uint32_t k, double deadline, state_t *worlds,
                            double *wt, bool *all) {
    uint32_t steps = bsmt_step(p->bsmt), nr = p->setup.game->n_roles;
    size_t per = (size_t)steps * nr;
    term_t *joints = xmalloc((k * per + 1) * sizeof *joints);
    uint32_t n = bsmt_sample_histories(p->bsmt, k, deadline, worlds, joints, all);
    for (uint32_t i = 0; i < n; i++)
        wt[i] = history_weight(p, joints + i * per, steps);
    free(joints);
    return n;
}

/* Our percepts over two steps from world w after our move, the others (and we, on the
 * second step) playing uniformly random moves: a hash of the sequence. */
static uint64_t percept_trace(deduce_player_t *p, const state_t *w, term_t move) {
    engine_t *e = p->setup.engine;
    eng_state_t *cur = load(p, 0, w), *nx = p->es[1];
    uint64_t h = 1469598103934665603ull;
    term_t *joint = p->joint;
    for (int step = 0; step < 2 && !engine_terminal(e, cur); step++) {
        if (step ? !engine_random_joint(e, cur, &p->rng, joint)
                 : !others_random(p, cur, move, joint))
            break; /* a role without moves */
        const term_t *pc;
        uint32_t np = engine_sees(e, cur, joint, p->setup.role, &pc);
        uint64_t sum = 0; /* order-free: percepts are a set */
        for (uint32_t i = 0; i < np; i++)
            sum += (uint64_t)pc[i] * 0x9E3779B97F4A7C15ull;
        h = (h ^ sum ^ (uint64_t)step) * 1099511628211ull;
        engine_next(e, cur, joint, nx);
        eng_state_t *t = cur;
        cur = nx, nx = t;
    }
    return h;
}

/* Entropy (bits) of the values v[0..n) taken as equally likely outcomes. */
static double entropy(uint64_t *v, uint32_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    double e = 0;
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j] == v[i]; j++) {
        }
        double q = (double)(j - i) / n;
        e -= q * log2(q);
    }
    return e;
}

/* The move whose percepts tell most about the world: the mutual information between the
 * sampled world and our next two steps' percepts, H(percepts) - mean H(percepts | world),
 * estimated with REPEATS random continuations per world. */
#define REPEATS 4
static term_t info_play(deduce_player_t *p, const term_t *moves, uint32_t n, const state_t *worlds,
                        uint32_t nw) {
    term_t best = moves[0];
    double best_gain = -1;
    uint64_t *all = xmalloc((nw * REPEATS + 1) * sizeof *all);
    for (uint32_t i = 0; i < n; i++) {
        double cond = 0;
        for (uint32_t w = 0; w < nw; w++) {
            for (uint32_t k = 0; k < REPEATS; k++)
                all[w * REPEATS + k] = percept_trace(p, &worlds[w], moves[i]);
            uint64_t one[REPEATS];
            memcpy(one, all + w * REPEATS, sizeof one);
            cond += entropy(one, REPEATS) / nw;
        }
        double gain = nw ? entropy(all, nw * REPEATS) - cond : 0;
        if (gain > best_gain + 1e-9) best_gain = gain, best = moves[i];
    }
    free(all);
    return best;
}

/* The world of the last step, carried forward natively (a particle): for each step
 * since, a joint move of the others (legal there, ours as told) after which we would see
 * exactly the percepts we got. A world that survives is consistent with the whole
 * history, and costs no Z3 model (60-90 ms each late in the full killer game); one that
 * cannot explain a step is dropped. At most JOINT_MAX joint moves are tried per step. */
#define JOINT_MAX 65536u

/* Whether the percepts of our role after joint in s are exactly obs's (a set, sorted). */
static bool sees_as_told(deduce_player_t *p, const eng_state_t *s, const term_t *joint,
                         const belief_obs_t *obs, term_t *buf) {
    const term_t *pc;
    uint32_t n = engine_sees(p->setup.engine, s, joint, p->setup.role, &pc);
    if (n != obs->n_percepts) return false;
    memcpy(buf, pc, n * sizeof *pc);
    qsort(buf, n, sizeof *buf, cmp_u32);
    return !memcmp(buf, obs->percepts, n * sizeof *buf);
}

/* One step of the particle: false when no joint move explains obs. Relaxed (for a guess,
 * not a world): our percepts are not compared, the first joint move tried is taken. */
static bool particle_step(deduce_player_t *p, const belief_obs_t *obs, bool relaxed) {
    engine_t *e = p->setup.engine;
    uint32_t nr = p->setup.game->n_roles, me = p->setup.role;
    eng_state_t *w = load(p, 0, &p->world);
    if (engine_terminal(e, w)) return false;
    if (obs->move == TERM_NONE || !engine_is_legal(e, w, me, obs->move)) return false;
    term_t *joint = p->joint;
    term_t *buf = xmalloc((obs->n_percepts + 1) * sizeof *buf);
    joints_t jm;
    joints_init(&jm, nr);
    uint64_t total = joints_load(&jm, e, w, JOINTS_ENGINE_ORDER, me, obs->move);
    if (total > JOINT_MAX) total = 0;
    bool found = false;
    uint64_t start = total ? splitmix_next(&p->rng) % total : 0;
    for (uint64_t i = 0; i < total && !found; i++) {
        joints_get(&jm, (start + i) % total, joint);
        found = relaxed || sees_as_told(p, w, joint, obs, buf);
    }
    if (found) {
        if (p->has_traj) {
            size_t at = (size_t)(p->world_step - 1) * nr;
            GROW(p->traj, p->cap_traj, at + nr);
            memcpy(p->traj + at, joint, nr * sizeof *joint);
        }
        engine_next(e, w, joint, p->es[1]);
        engine_state_terms(e, p->es[1], &p->world);
    }
    joints_fini(&jm);
    free(buf);
    return found;
}

/* When the world dies at history entry k: our legal moves in a guess at the current
 * state (the world carried on through the steps from k with any legal joint move, our
 * percepts ignored), the moves to prove legal first (deduce_legal). */
static void near_guess(deduce_player_t *p, const player_turn_t *turn, uint32_t k) {
    bool has_traj = p->has_traj;
    p->has_traj = false; /* the trajectory stays the world's */
    state_t keep;
    state_init(&keep);
    state_copy(&keep, &p->world);
    p->n_near = 0;
    bool ok = true;
    for (; k < turn->n_history && ok; k++)
        ok = particle_step(p, &turn->history[k], true);
    if (ok) {
        const term_t *m;
        uint32_t n = engine_legal(p->setup.engine, load(p, 0, &p->world), p->setup.role, &m);
        GROW(p->near, p->cap_near, n + 1);
        memcpy(p->near, m, n * sizeof *m);
        p->n_near = n;
    }
    state_copy(&p->world, &keep);
    state_fini(&keep);
    p->has_traj = has_traj;
}

/* Carries the kept world forward to the current step (history entries since); false when
 * it cannot explain them, or the step is terminal there (we are asked to move). */
static bool advance_world(deduce_player_t *p, const player_turn_t *turn) {
    if (!p->world_step || p->world_step - 1 > turn->n_history) return false;
    for (uint32_t k = p->world_step - 1; k < turn->n_history; k++, p->world_step++)
        if (!particle_step(p, &turn->history[k], false)) {
            near_guess(p, turn, k);
            p->world_step = 0;
            p->has_traj = false;
            return false;
        }
    if (engine_terminal(p->setup.engine, load(p, 0, &p->world)))
        p->world_step = 0, p->has_traj = false;
    p->particles += p->world_step != 0;
    return p->world_step != 0;
}

/* A whole consistent history from Z3, replayed natively (its moves checked legal): the
 * world at its end, with its trajectory. */
static bool world_from_trajectory(deduce_player_t *p, double deadline) {
    engine_t *e = p->setup.engine;
    uint32_t nr = p->setup.game->n_roles, steps = bsmt_step(p->bsmt);
    GROW(p->traj, p->cap_traj, (size_t)steps * nr + 1);
    if (nr > 64 || !bsmt_trajectory(p->bsmt, deadline, p->traj)) return false;
    eng_state_t *cur = load(p, 0, &p->initial), *nx = p->es[1];
    bool ok = true;
    for (uint32_t t = 0; t < steps && ok; t++) {
        const term_t *joint = p->traj + (size_t)t * nr;
        for (uint32_t k = 0; k < nr && ok; k++)
            ok = engine_is_legal(e, cur, k, joint[k]);
        engine_next(e, cur, joint, nx);
        eng_state_t *x = cur;
        cur = nx, nx = x;
    }
    engine_state_terms(e, cur, &p->world);
    p->has_traj = ok;
    p->world_step = ok ? steps + 1 : 0;
    p->traj_gen++;
    return ok;
}

/* A world from CaDiCaL (bsmt_any_sat): its check stops at the deadline and its model
 * costs a lookup per fluent; false when out of time. */
static bool sat_world(deduce_player_t *p, double deadline) {
    if (!bsmt_any_sat(p->bsmt, deadline, &p->world)) return false;
    p->world_step = bsmt_step(p->bsmt) + 1;
    p->has_traj = false;
    p->sat_worlds++;
    return true;
}

/* A consistent state of the current step, kept for the step: the last one carried
 * forward, else a trajectory's, else CaDiCaL's; never a Z3 model (a model, or the round
 * before it, internalises the steps given since the last check: not interruptible, up to
 * seconds late in the full killer game). */
static bool current_world(deduce_player_t *p, const player_turn_t *turn, double deadline) {
    if (!p->bsmt || p->broken) return false;
    if (p->world_step == bsmt_step(p->bsmt) + 1) return true;
    if (turn && bsmt_step(p->bsmt) == turn->n_history && advance_world(p, turn)) return true;
    if (p->opts.choose == CHOOSE_SECRET && world_from_trajectory(p, deadline)) return true;
    return sat_world(p, deadline);
}

/* Sorts moves[0..n) by id (as kind->legal answers); returns n. */
static uint32_t sorted(term_t *moves, uint32_t n) {
    qsort(moves, n, sizeof *moves, cmp_u32);
    return n;
}

/* Our legal moves in the world that are legal in every consistent state (sorted by id)
 * into *moves (caller frees): the known fluents make most so, one check by deadline
 * each of the others (a role need not know its own moves: where its legality hangs on a
 * hidden fluent, a world's move may be illegal in the true state). */
static uint32_t world_legal(deduce_player_t *p, term_t **moves, double deadline) {
    const term_t *m;
    uint32_t n = engine_legal(p->setup.engine, load(p, 0, &p->world), p->setup.role, &m), k = 0;
    *moves = xmalloc((n + 1) * sizeof **moves);
    memcpy(*moves, m, n * sizeof *m);
    for (uint32_t i = 0; i < n; i++) {
        int r = bsmt_move_legal(p->bsmt, (*moves)[i], deadline);
        if (r == 1) (*moves)[k++] = (*moves)[i];
        p->legal_refuted += r == 0;
    }
    p->legal_dropped += n - k;
    return sorted(*moves, k);
}

/* Our legal moves, never a move we have not proved legal: first those the known fluents
 * fix (no solver); else those of a consistent world proved legal in every consistent
 * state (world_legal): the one carried forward natively, else, with at most OPEN_CHECKS moves the
 * known fluents leave open (on the killer game: the cards we could give), those proved
 * legal by one check each, else a Z3 model (a new world). When none of that answers in
 * time, the moves proved legal one by one until a later deadline (the clock's slack: the
 * game master replaces a missing or illegal move by a random one, which on the killer
 * game may be an accusation that eliminates us), then the known ones; 0 only when
 * nothing is proved. */
#define OPEN_CHECKS 12
static uint32_t deduce_legal(player_t *pl, const player_turn_t *turn, double deadline,
                             term_t **moves) {
    deduce_player_t *p = (deduce_player_t *)pl;
    double t0 = now_seconds();
    feed(p, turn);
    *moves = NULL;
    if (!p->bsmt) return 0;
    if (p->broken) { /* Z3 cannot be trusted: the world carried forward natively, if any */
        if (advance_world(p, turn)) return p->legal_world++, world_legal(p, moves, deadline);
    }
    /* what the known fluents fix needs no solver answer (nor a model) */
    bool complete;
    uint32_t n = bsmt_known_legal(p->bsmt, moves, &complete);
    if (complete || p->broken) {
        p->legal_known += complete && n;
        return sorted(*moves, n); /* broken: only those, Z3 cannot be trusted */
    }
    free(*moves);
    *moves = NULL;
    p->n_near = 0;
    if (bsmt_step(p->bsmt) == turn->n_history && advance_world(p, turn))
        return p->legal_world++, world_legal(p, moves, deadline);
    if (sat_world(p, deadline)) return p->legal_world++, world_legal(p, moves, deadline);
    if (p->n_near == 1) { /* a forced move guessed (on the killer game: noop when others
                           * move): proved, it is the move to play, whatever else is legal */
        if (bsmt_move_legal(p->bsmt, p->near[0], deadline) == 1) {
            *moves = xmalloc(sizeof **moves);
            (*moves)[0] = p->near[0];
            return p->legal_proved++, 1;
        }
    }
    if (bsmt_open_legal(p->bsmt) <= OPEN_CHECKS) { /* checks instead of a model */
        n = bsmt_proved_legal(p->bsmt, p->near, p->n_near, deadline, moves, &complete);
        if (complete && n) return p->legal_proved++, sorted(*moves, n);
        free(*moves);
        *moves = NULL;
    }
    if (current_world(p, turn, deadline)) return p->legal_world++, world_legal(p, moves, deadline);
    /* out of time: what can still be proved in the slack (the agent gives the legal
     * moves 0.6 of the turn: until the turn's deadline), the guessed moves first */
    n = bsmt_proved_legal(p->bsmt, p->near, p->n_near, deadline + (deadline - t0) * 2 / 3, moves,
                          &complete);
    if (n) p->legal_partial++;
    if (p->setup.verbose)
        fprintf(stderr,
                "deduce: %u legal moves proved (%s) after %.0f ms (%.0f ms past the deadline)\n", n,
                complete ? "all" : "some", 1000 * (now_seconds() - t0),
                1000 * (now_seconds() - deadline));
    return sorted(*moves, n);
}

/* After an observation: the move legal by construction (player/fallback.h), the world
 * carried to this step, if any, for its choice among several. */
static term_t deduce_fallback(player_t *pl, const player_turn_t *turn, double deadline) {
    deduce_player_t *p = (deduce_player_t *)pl;
    feed(p, turn);
    if (!p->bsmt) return TERM_NONE;
    bool current = p->world_step == bsmt_step(p->bsmt) + 1;
    return fallback_move(p->bsmt, p->setup.engine, p->setup.role, current ? &p->world : NULL,
                         deadline, p->setup.verbose, p->base.kind->name, turn->turn);
}

/* choose=secret: reveal as little as possible to the other roles.
 *
 * Each other role (not `random`) gets a mirror: a belief reasoner fed with what that role
 * would have seen along our world's trajectory (its moves and percepts there). What a
 * candidate move of ours shows role j is the part of j's percepts that depends on our
 * choice (in our world, the others' moves fixed: j's percepts after the move minus those
 * common to every candidate). Its cost is the surprisal for j: -log2 of the probability,
 * over worlds j holds possible (sampled from the mirror) and our move uniformly among our
 * legal moves there, that j would see those percepts. On the killer game: give back a
 * card the asker gave us, place a card already known. The moves revealing least are
 * kept, and the playouts choose among them (in a game where nothing is shown, all). */
#define MIRROR_WORLDS 16

static bool other_player(deduce_player_t *p, uint32_t j) {
    const game_t *g = p->setup.game;
    const uint32_t *ids;
    return j != p->setup.role &&
           !(term_kind(g->ts, g->roles[j]) == TERM_SYM &&
             term_sym(g->ts, g->roles[j]) == SYM_RANDOM) &&
           bnet_sees(p->net, j, &ids) > 0;
}

/* The percepts of role j after joint in s, sorted, into *out (grown). */
static uint32_t percepts_of(deduce_player_t *p, const eng_state_t *s, const term_t *joint,
                            uint32_t j, term_t **out, size_t *cap) {
    const term_t *pc;
    uint32_t n = engine_sees(p->setup.engine, s, joint, j, &pc);
    GROW(*out, *cap, n + 1);
    memcpy(*out, pc, n * sizeof *pc);
    qsort(*out, n, sizeof **out, cmp_u32);
    return n;
}

/* Feeds the mirrors the trajectory's steps they have not seen (new mirrors when the
 * trajectory is another one). False when there is no trajectory. */
static bool mirrors_update(deduce_player_t *p) {
    const game_t *g = p->setup.game;
    uint32_t nr = g->n_roles;
    if (!p->has_traj || !p->world_step || nr > 64) return false;
    if (p->mirror_gen != p->traj_gen) {
        for (uint32_t j = 0; j < nr; j++)
            bsmt_free(p->mirror[j]), p->mirror[j] = NULL;
        p->mirror_fed = 0;
        p->mirror_gen = p->traj_gen;
    }
    for (uint32_t j = 0; j < nr; j++)
        if (!p->mirror[j] && other_player(p, j))
            p->mirror[j] = bsmt_new(p->net, j, p->setup.seed ^ (0x5ec0 + j));
    uint32_t steps = p->world_step - 1;
    eng_state_t *s = load(p, 0, &p->initial), *nx = p->es[1];
    term_t *pc = NULL;
    size_t cap = 0;
    for (uint32_t t = 0; t < steps; t++) {
        const term_t *joint = p->traj + (size_t)t * nr;
        for (uint32_t j = 0; j < nr && t >= p->mirror_fed; j++)
            if (p->mirror[j]) {
                uint32_t n = percepts_of(p, s, joint, j, &pc, &cap);
                bsmt_observe(p->mirror[j], joint[j], pc, n);
            }
        engine_next(p->setup.engine, s, joint, nx);
        eng_state_t *x = s;
        s = nx, nx = x;
    }
    p->mirror_fed = steps;
    for (uint32_t j = 0; j < nr; j++)
        if (p->mirror[j]) bsmt_live(p->mirror[j]);
    free(pc);
    return true;
}

static bool subset(const term_t *a, uint32_t na, const term_t *b, uint32_t nb) {
    for (uint32_t i = 0, k = 0; i < na; i++) {
        while (k < nb && b[k] < a[i])
            k++;
        if (k == nb || b[k] != a[i]) return false;
    }
    return true;
}

/* What role j learns from each candidate (bits, added to leak[]). */
static void leak_to(deduce_player_t *p, uint32_t j, const state_t *world, const term_t *cands,
                    uint32_t nc, double deadline, double *leak) {
    uint32_t me = p->setup.role;
    term_t *joint = p->joint;
    eng_state_t *w = load(p, 0, world);
    if (!others_random(p, w, TERM_NONE, joint)) return; /* ours set below */
    term_t **shown = xcalloc(nc, sizeof *shown), *pc = NULL;
    uint32_t *ns = xcalloc(nc, sizeof *ns);
    size_t cap = 0;
    bool any = false;
    for (uint32_t i = 0; i < nc; i++) { /* j's percepts after each candidate */
        size_t c = 0;
        joint[me] = cands[i];
        ns[i] = percepts_of(p, w, joint, j, &shown[i], &c);
    }
    /* minus those every candidate gives (the common ones: in the first and all others) */
    term_t *common = xmalloc((ns[0] + 1) * sizeof *common);
    uint32_t nco = 0;
    for (uint32_t k = 0; k < ns[0]; k++) {
        bool all = true;
        for (uint32_t o = 1; o < nc && all; o++)
            all = subset(&shown[0][k], 1, shown[o], ns[o]);
        if (all) common[nco++] = shown[0][k];
    }
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t kept = 0;
        for (uint32_t k = 0; k < ns[i]; k++)
            if (!subset(&shown[i][k], 1, common, nco)) shown[i][kept++] = shown[i][k];
        ns[i] = kept;
        any |= kept > 0;
    }
    free(common);
    state_t worlds[MIRROR_WORLDS];
    for (uint32_t v = 0; v < MIRROR_WORLDS; v++)
        state_init(&worlds[v]);
    uint32_t nw = any ? bsmt_sample(p->mirror[j], MIRROR_WORLDS, deadline, worlds) : 0;
    double *hit = xcalloc(nc, sizeof *hit);
    for (uint32_t v = 0; v < nw; v++) {
        if (now_seconds() > deadline) { /* the worlds seen so far */
            nw = v;
            break;
        }
        const term_t *m;
        eng_state_t *wv = load(p, 1, &worlds[v]);
        uint32_t nl = engine_legal(p->setup.engine, wv, me, &m);
        term_t *ours = xmalloc((nl + 1) * sizeof *ours);
        if (nl) memcpy(ours, m, nl * sizeof *m);
        if (others_random(p, wv, TERM_NONE, joint))
            for (uint32_t l = 0; l < nl; l++) {
                joint[me] = ours[l];
                uint32_t n = percepts_of(p, wv, joint, j, &pc, &cap);
                for (uint32_t i = 0; i < nc; i++)
                    if (subset(shown[i], ns[i], pc, n)) hit[i] += 1.0 / nl;
            }
        free(ours);
    }
    for (uint32_t i = 0; i < nc && nw; i++) {
        double q = hit[i] / nw, floor = 0.5 / (nw * 64.0);
        leak[i] += -log2(q > floor ? q : floor);
    }
    for (uint32_t v = 0; v < MIRROR_WORLDS; v++)
        state_fini(&worlds[v]);
    for (uint32_t i = 0; i < nc; i++)
        free(shown[i]);
    free(shown);
    free(ns);
    free(hit);
    free(pc);
}

/* The candidates that reveal least (within 0.01 bit), moved to the front of cands
 * (stable); their number. All of them without a trajectory or past the deadline. */
static uint32_t secret_least(deduce_player_t *p, term_t *cands, uint32_t nc, double deadline) {
    if (now_seconds() > deadline || !mirrors_update(p)) return nc;
    double *leak = xcalloc(nc, sizeof *leak);
    for (uint32_t j = 0; j < p->setup.game->n_roles; j++)
        if (p->mirror[j]) leak_to(p, j, &p->world, cands, nc, deadline, leak);
    double best = leak[0];
    for (uint32_t i = 1; i < nc; i++)
        if (leak[i] < best) best = leak[i];
    if (p->setup.verbose) {
        strbuf_t sb;
        sb_init(&sb);
        for (uint32_t i = 0; i < nc; i++) {
            sb_putc(&sb, ' ');
            term_print(p->setup.game->ts, cands[i], &sb);
            sb_printf(&sb, "=%.2f", leak[i]);
        }
        fprintf(stderr, "deduce: bits shown:%s\n", sb_str(&sb));
        sb_fini(&sb);
    }
    uint32_t least = 0;
    for (uint32_t i = 0; i < nc; i++)
        if (leak[i] <= best + 0.01) {
            term_t m = cands[i];
            memmove(cands + least + 1, cands + least, (i - least) * sizeof *cands);
            cands[least++] = m;
        }
    free(leak);
    return least;
}

/* choose=pimc's search: as asked, else alpha-beta with at most two roles besides
 * `random`, UCT with more. */
static int pimc_search(const deduce_player_t *p) {
    if (p->opts.search) return p->opts.search;
    const game_t *g = p->setup.game;
    uint32_t players = 0;
    for (uint32_t r = 0; r < g->n_roles; r++)
        players += term_sym(g->ts, g->roles[r]) != SYM_RANDOM;
    return players > 2 ? PIMC_UCT : PIMC_AB;
}

/* Step 3: the move among the safe candidates, by the chosen method, over the worlds. */
static term_t choose_among(deduce_player_t *p, const term_t *cands, uint32_t nc,
                           const state_t *worlds, const double *wt, uint32_t nw, double deadline,
                           move_sink_t *sink) {
    if (p->opts.choose == CHOOSE_INFO) return info_play(p, cands, nc, worlds, nw);
    if (p->opts.choose == CHOOSE_PIMC && nw)
        return pimc_search(p) == PIMC_UCT ? pimc_uct(p, cands, nc, worlds, wt, nw, deadline, sink)
                                          : pimc_play(p, cands, nc, worlds, wt, nw, deadline, sink);
    return sample_play(p, cands, nc, worlds, nw, deadline, sink);
}

/* Moves safe in the turn's world (or not examined), sorted by Z3 into safe (into cands;
 * returns how many), risky (appended to gambles) and unknown (left in unknown): first all
 * at once, one check when none is risky (a turn of Mastermind offers 256 moves), then one
 * by one until the deadline. */
static uint32_t split_safe(deduce_player_t *p, term_t *unknown, uint32_t *nu, term_t *cands,
                           term_t *gambles, uint32_t *ng, double deadline) {
    if (*nu > 1 && bsmt_moves_risky(p->bsmt, unknown, *nu, deadline) == 0) {
        memcpy(cands, unknown, *nu * sizeof *cands);
        uint32_t nc = *nu;
        *nu = 0;
        return nc;
    }
    uint32_t nc = 0, left = 0;
    for (uint32_t i = 0; i < *nu; i++) {
        int r = now_seconds() < deadline ? bsmt_move_risky(p->bsmt, unknown[i], deadline) : -1;
        if (r == 0)
            cands[nc++] = unknown[i];
        else if (r > 0)
            gambles[(*ng)++] = unknown[i];
        else
            unknown[left++] = unknown[i];
    }
    *nu = left;
    return nc;
}

static term_t deduce_play(player_t *pl, const player_turn_t *turn, double deadline,
                          move_sink_t *sink) {
    deduce_player_t *p = (deduce_player_t *)pl;
    double t0 = now_seconds();
    double stop = t0 + (deadline - t0) * 0.8;
    p->turns++;
    feed(p, turn);
    sink_offer(sink, turn->legal[0]);
    if (turn->n_legal == 1) {
        /* an idle turn: CaDiCaL's encoding of the steps, Z3 given them by chunks, each
         * internalised (it confirms proved wins), and a check by the turn's stop, so that a
         * confirmation has little left (its watchdog cuts it at the stop: a round late in
         * the full killer game took up to 26 s at load 12) */
        if (p->bsmt && bsmt_sync_proofs(p->bsmt, stop) && bsmt_catch_up(p->bsmt, stop))
            bsmt_consistent(p->bsmt, stop);
        return turn->legal[0];
    }
    /* safe: can neither end the game nor lower our goal in any consistent outcome;
     * unknown: not examined in time; gambles: risky without a win in all outcomes. Played
     * in that order of preference. One consistent world, played out natively, sorts most
     * moves at once: a move risky there is risky; only a move winning there can win in
     * all worlds (the paper's candidate), and only one safe there needs Z3 to be safe. */
    uint32_t n = turn->n_legal;
    term_t *cands = xmalloc(3 * n * sizeof *cands), *unknown = cands + n, *gambles = cands + 2 * n;
    uint32_t nc = 0, nu = 0, ng = 0;
    bool usable = p->bsmt && !p->broken;
    /* the world: one of the agent's believed states (a Z3 model of a long unrolling costs
     * up to seconds on the full killer game), else one sampled by Z3 */
    state_t w;
    state_init(&w);
    bool have_w = false;
    if (usable && current_world(p, turn, stop)) {
        state_copy(&w, &p->world);
        have_w = true;
    } else if (turn->n_states && !pl->own_belief) {
        state_copy(&w, &turn->states[splitmix_next(&p->rng) % turn->n_states]);
        have_w = true;
    }
    term_t move = TERM_NONE;
    for (uint32_t i = 0; i < n && move == TERM_NONE; i++) {
        term_t m = turn->legal[i];
        in_world_t iw = have_w ? in_world(p, &w, m) : IN_W_UNKNOWN;
        if (!usable || now_seconds() > stop) {
            /* not examined: what the world says is all we know */
            if (iw == IN_W_RISKY || iw == IN_W_WINS)
                gambles[ng++] = m;
            else
                unknown[nu++] = m;
        } else if ((iw == IN_W_WINS || iw == IN_W_UNKNOWN) &&
                   bsmt_move_wins(p->bsmt, m, stop) == 1) {
            move = m;
        } else if (iw == IN_W_WINS || iw == IN_W_RISKY) {
            gambles[ng++] = m; /* risky in the world, or a win there not proved in all */
        } else {
            unknown[nu++] = m; /* safe in the world: Z3 is asked below */
        }
    }
    if (move == TERM_NONE && nu && usable && now_seconds() < stop)
        nc = split_safe(p, unknown, &nu, cands, gambles, &ng, stop);
    if (move != TERM_NONE) {
        p->proved++;
        if (p->setup.verbose) fprintf(stderr, "deduce: a proved win at turn %u\n", turn->turn);
        free(cands);
        state_fini(&w);
        sink_offer(sink, move);
        return move;
    }
    p->gambles_avoided += ng;
    bool gambles_out = nc && ng; /* safe moves kept, gambles left out */
    if (!nc) {
        memmove(cands, nu ? unknown : gambles, (nu ? nu : ng) * sizeof *cands);
        nc = nu ? nu : ng;
    }
    if (nc > 1 && p->opts.choose == CHOOSE_SECRET && have_w && usable)
        /* half the time left, then playouts among those */
        nc = secret_least(p, cands, nc, now_seconds() + (stop - now_seconds()) / 2);
    move = cands[0];
    if (nc > 1 && p->opts.choose == CHOOSE_RANDOM) {
        move = cands[splitmix_next(&p->rng) % nc];
    } else if (nc > 1 || (gambles_out && p->opts.choose == CHOOSE_PIMC)) {
        state_t worlds[INFO_WORLDS];
        double wt[INFO_WORLDS];
        uint32_t nw = 0;
        if (usable && (pl->own_belief || !turn->n_states)) {
            uint32_t k = p->opts.choose == CHOOSE_INFO ? INFO_WORLDS
                         : p->opts.worlds              ? p->opts.worlds
                                                       : WORLDS;
            for (uint32_t i = 0; i < k; i++)
                state_init(&worlds[i]), wt[i] = 1;
            state_t *ws = worlds; /* the worlds used, from ws[0] */
            if (p->opts.choose == CHOOSE_PIMC) {
                /* sampling gets half the time at most, the search the rest */
                double sampled = now_seconds() + (stop - now_seconds()) / 2;
                if (have_w) state_copy(&worlds[nw++], &w); /* the turn's world is one */
                bool all = false;
                uint32_t got = 0;
                /* weighted worlds (Z3 models and their histories) for a last decision:
                 * every candidate ends the game in the turn's world (on the killer game
                 * none does, and a Z3 model there takes up to seconds) */
                if (have_w && k > 1 && now_seconds() < sampled && moves_end(p, &w, cands, nc))
                    got = pimc_worlds(p, k - 1, sampled, worlds + 1, wt + 1, &all);
                if (all && got) {
                    ws = worlds + 1, nw = got; /* every consistent state, the turn's too */
                    if (gambles_out) nc = admit_gamble(p, cands, nc, gambles, ng, ws, wt + 1, nw);
                } else {
                    for (uint32_t i = 1; i <= got; i++)
                        wt[i] = 1; /* a sample: weights of a few histories mislead */
                    nw += got;
                    if (k > nw && now_seconds() < sampled)
                        nw += bsmt_sample_sat(p->bsmt, k - nw, sampled, worlds + nw);
                }
            } else {
                if (have_w) state_copy(&worlds[nw++], &w); /* the turn's world is one */
                if (k > nw && now_seconds() < stop)        /* CaDiCaL's: Z3's took up to 1 s */
                    nw += bsmt_sample_sat(p->bsmt, k - nw, stop, worlds + nw);
            }
            if (nc > 1) move = choose_among(p, cands, nc, ws, wt + (ws - worlds), nw, stop, sink);
            for (uint32_t i = 0; i < k; i++)
                state_fini(&worlds[i]);
        } else if (nc > 1) {
            move = choose_among(p, cands, nc, turn->states, NULL, turn->n_states, stop, sink);
        }
    }
    free(cands);
    state_fini(&w);
    sink_offer(sink, move);
    return move;
}

static void deduce_stop(player_t *pl) {
    deduce_player_t *p = (deduce_player_t *)pl;
    if (p->setup.verbose && p->bsmt) {
        z3_stats_t st = bsmt_stats(p->bsmt);
        strbuf_t line;
        sb_init(&line);
        sb_printf(&line,
                  "deduce: %" PRIu64 " turns, %" PRIu64 " proved wins, %" PRIu64
                  " gambles avoided, %" PRIu64 " taken, %" PRIu64 " worlds carried forward; ",
                  p->turns, p->proved, p->gambles_avoided, p->gambles_taken, p->particles);
        z3_stats_print(&st, &line);
        sb_printf(&line,
                  "; legal moves known %" PRIu64 ", from a world %" PRIu64 ", proved %" PRIu64
                  ", some proved %" PRIu64 " times, a world's not proved %" PRIu64
                  " (illegal in some state %" PRIu64 "); %" PRIu64 " worlds from CaDiCaL\n",
                  p->legal_known, p->legal_world, p->legal_proved, p->legal_partial,
                  p->legal_dropped, p->legal_refuted, p->sat_worlds);
        fputs(sb_str(&line), stderr);
        sb_fini(&line);
        bsmt_proofs_t pr = bsmt_proofs(p->bsmt);
        fprintf(stderr,
                "deduce: proofs acted on: %" PRIu64 " confirmed by Z3 (%.1f ms), %" PRIu64
                " not in time, "
                "%" PRIu64 " refuted\n",
                pr.confirmed, 1000 * pr.seconds, pr.unconfirmed, pr.refuted);
        bsmt_feed_t fd = bsmt_feed_stats(p->bsmt);
        fprintf(stderr,
                "deduce: z3 feed: %zu entries over %u steps, %zu given, %zu internalised, "
                "at most %zu left to one check, %" PRIu64 " solvers renewed\n",
                fd.entries, bsmt_step(p->bsmt), fd.given, fd.known, fd.max_batch, fd.renewed);
    }
    if (p->setup.verbose && p->pimc_turns)
        fprintf(stderr,
                "pimc: %" PRIu64 " turns searched, %" PRIu64
                " searches (a world and move each with "
                "alpha-beta, a world with UCT), mean alpha-beta depth %.2f\n",
                p->pimc_turns, p->pimc_searches, (double)p->pimc_depth_sum / (double)p->pimc_turns);
}

static void deduce_destroy(player_t *pl) {
    deduce_player_t *p = (deduce_player_t *)pl;
    state_fini(&p->world);
    state_fini(&p->initial);
    for (uint32_t j = 0; j < 64; j++)
        bsmt_free(p->mirror[j]);
    free(p->traj);
    free(p->near);
    bsmt_free(p->bsmt);
    bnet_free(p->net);
    ab_free(p->ab);
    uct_free(p->uct);
    engine_state_free(p->es[0]);
    engine_state_free(p->es[1]);
    free(p->joint);
    joints_fini(&p->others);
    free(p);
}

/* What deduce and pimc share: all but the name, the summary and the default choice. */
#define DEDUCE_CALLS                                                                               \
    .start = deduce_start, .play = deduce_play, .stop = deduce_stop, .destroy = deduce_destroy,    \
    .check_options = deduce_check_options, .legal = deduce_legal, .fallback = deduce_fallback

const player_kind_t player_deduce_kind = {
    .name = "deduce",
    .summary = "GDL-II: plays a move proved to win (Z3 belief), never gambles, else playouts "
               "over sampled worlds (deduce:playouts=N:worlds=N:"
               "choose=playouts|info|random|secret|pimc)",
    .create = deduce_create,
    DEDUCE_CALLS,
};

const player_kind_t player_pimc_kind = {
    .name = "pimc",
    .summary =
        "GDL-II: deduce's proofs and safety, then Perfect-Information Monte Carlo: each "
        "sampled world searched (alpha-beta, or UCT with more than two players), values "
        "summed per move (pimc:worlds=N:depth=N:search=ab|uct:iters=N:ties=secret|info|first; "
        "deduce's options)",
    .create = pimc_create,
    DEDUCE_CALLS,
};
