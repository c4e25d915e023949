/* ggp regress --cost: the formulas' cost per rollout step, lifted matcher against bitset
 * circuits (declared in cli/commands.h).
 *
 * Plays `playouts` seeded random matches on an engine of kind `kind` (ground or compiled)
 * and prints, per formula of rg, its mean cost on their states by the lifted matcher and
 * on bitsets, against one rollout step; then how many formulas fit in `share` of a step;
 * then the MCTS hook end to end (mcts/lbs.h, made for `role` within `budget` seconds) on
 * bitsets and on terms. Returns an exit code: 0, 3 when the game has no ground engine, 4
 * on a disagreement. */
#include "cli/commands.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/fluents.h"
#include "mcts/lbs.h"
#include "mcts/uct.h"
#include "regress/bitform.h"
#include "regress/match.h"

#define MAX_STATES 20000
#define FORMULA_SECONDS 2.0 /* the matcher on one formula: states past it are left out */
#define BIT_NODES 200000u   /* as the hook grounds them (mcts/lbs.c) */
#define BIT_SIZE 400000u
#define WARM_UP 256 /* states evaluated before timing */
/* Each timing is the best of REPS passes (the machine is shared: the least disturbed
 * pass is the cost), unless one pass took REPEAT_BELOW seconds or more. */
#define REPS 5
#define REPEAT_BELOW 0.5
#define UCT_SECONDS 2.0 /* each UCT search with the hook */

typedef struct {
    engine_t *e;
    eng_state_t **es; /* the sample: non-terminal states of the random matches */
    state_t *terms;   /* the same as terms */
    uint32_t n;
    double conv, idx; /* seconds per state: to terms, then indexed for the matcher */
    int32_t *hit;     /* the matcher's first disjunct per state (-1: none; -2: not timed) */
    vocab_t *v;       /* the engine's fluents */
} sample_t;

static void sample_states(sample_t *s, game_t *g, uint32_t playouts) {
    engine_t *e = s->e;
    s->es = xmalloc(MAX_STATES * sizeof *s->es);
    s->terms = xcalloc(MAX_STATES, sizeof *s->terms);
    splitmix_t rng = {0xc057};
    engine_walk_t w = {.matches = playouts, .max_plies = 1000};
    s->n = engine_sample(e, &rng, &w, s->es, MAX_STATES);
    for (uint32_t k = 0; k < s->n; k++) {
        state_init(&s->terms[k]);
        engine_state_terms(e, s->es[k], &s->terms[k]);
    }
    /* the conversion the hook on terms pays per step: to terms (into one reused state, as
     * UCT does), then the matcher's index; best of REPS passes */
    state_t scratch;
    state_init(&scratch);
    match_state_t *ms = match_state_new();
    s->conv = s->idx = 1e300;
    for (uint32_t rep = 0; rep < REPS && s->n; rep++) {
        double t0 = now_seconds();
        for (uint32_t k = 0; k < s->n; k++)
            engine_state_terms(e, s->es[k], &scratch);
        double t1 = now_seconds();
        for (uint32_t k = 0; k < s->n; k++)
            match_state_set(ms, g->ts, &s->terms[k]);
        double t2 = now_seconds();
        if ((t1 - t0) / s->n < s->conv) s->conv = (t1 - t0) / s->n;
        if ((t2 - t1) / s->n < s->idx) s->idx = (t2 - t1) / s->n;
    }
    if (!s->n) s->conv = s->idx = 0;
    match_state_free(ms);
    state_fini(&scratch);
    s->hit = xmalloc((s->n + 1) * sizeof *s->hit);
}

/* Mean seconds of the matcher per state, its index excluded (each answer into s->hit). */
static double lifted_cost(sample_t *s, game_t *g, match_t *m, uint32_t *done) {
    match_state_t *ms = match_state_new();
    for (uint32_t k = 0; k < s->n && k < WARM_UP; k++) { /* caches and branch predictors */
        match_state_set(ms, g->ts, &s->terms[k]);
        (void)match_eval(m, ms);
    }
    double best = 1e300, t = 0;
    uint32_t k = 0;
    for (uint32_t rep = 0; rep < REPS && (rep == 0 || t < REPEAT_BELOW); rep++) {
        double t0 = now_seconds();
        t = 0;
        for (k = 0; k < s->n && (k == 0 || t < FORMULA_SECONDS); k++) {
            match_state_set(ms, g->ts, &s->terms[k]);
            s->hit[k] = match_eval(m, ms) ? match_hit(m) : -1;
            if ((k & 63) == 0) t = now_seconds() - t0;
        }
        t = now_seconds() - t0;
        if (t / k < best) best = t / k;
    }
    t = best * k;
    for (uint32_t j = k; j < s->n; j++)
        s->hit[j] = -2;
    match_state_free(ms);
    *done = k;
    return k && t / k > s->idx ? t / k - s->idx : 0;
}

typedef int32_t (*bits_eval_t)(bitform_t *b, const uint64_t *bits);

static double bits_time(sample_t *s, bitform_t *common, bitform_t *disj, bits_eval_t eval) {
    for (uint32_t k = 0; k < s->n && k < WARM_UP; k++) {
        const uint64_t *w = engine_state_words(s->es[k]);
        if (eval(common, w) == 0) (void)eval(disj, w);
    }
    double best = 1e300, t = 0;
    for (uint32_t rep = 0; rep < REPS && (rep == 0 || t < REPEAT_BELOW); rep++) {
        double t0 = now_seconds();
        for (uint32_t k = 0; k < s->n; k++) {
            const uint64_t *w = engine_state_words(s->es[k]);
            if (eval(common, w) == 0) (void)eval(disj, w);
        }
        t = now_seconds() - t0;
        if (t < best) best = t;
    }
    return best / (s->n ? s->n : 1);
}

/* Mean seconds per state as the hook evaluates it: the guard (common conjunct), then the
 * disjuncts where it holds, on demand (*all: every gate in order); *disagree: states
 * where the first disjunct found differs from the matcher's, either way. */
static double bits_cost(sample_t *s, bitform_t *common, bitform_t *disj, double *all,
                        uint32_t *disagree) {
    double t = bits_time(s, common, disj, bitform_eval);
    *all = bits_time(s, common, disj, bitform_eval_all);
    *disagree = 0;
    for (uint32_t k = 0; k < s->n; k++) {
        if (s->hit[k] == -2) continue;
        const uint64_t *w = engine_state_words(s->es[k]);
        int32_t d = bitform_eval(common, w) == 0 ? bitform_eval(disj, w) : -1;
        int32_t d2 = bitform_eval_all(common, w) == 0 ? bitform_eval_all(disj, w) : -1;
        *disagree += d != s->hit[k] || d2 != d;
    }
    return t;
}

typedef struct {
    double lifted, bits; /* seconds per state; bits < 0: not grounded */
} fcost_t;

/* How many formulas with i >= 1 fit in budget seconds per check, by increasing i, alpha
 * then beta (as the hook chooses them); the lifted ones pay the conversion once. */
static void fit(const fcost_t *c[2], const uint32_t n[2], double budget, double conv, bool bits,
                uint32_t out[2]) {
    out[0] = out[1] = 0;
    bool stop[2] = {false, false}, converted = false;
    uint32_t most = n[0] > n[1] ? n[0] : n[1];
    for (uint32_t i = 1; i < most; i++)
        for (int side = 0; side < 2; side++) {
            if (i >= n[side] || stop[side]) continue;
            bool on_bits = bits && c[side][i].bits >= 0;
            double cost = on_bits ? c[side][i].bits : c[side][i].lifted + (converted ? 0 : conv);
            if (cost > budget) {
                stop[side] = true; /* later ones are built on it: the side ends here */
                continue;
            }
            budget -= cost;
            converted |= !on_bits;
            out[side]++;
        }
}

/* Mean seconds per state of a hook over the sample (best of REPS passes); on terms it
 * first turns the state into terms, as UCT does for a hook on terms. */
static double hook_time(sample_t *s, lbs_t *l, bool on_bits, uint64_t *hits) {
    state_t t;
    state_init(&t);
    lbs_hook_t h = {.lbs = l, .every = true};
    double best = 1e300;
    for (uint32_t rep = 0; rep < REPS; rep++) {
        double t0 = now_seconds();
        *hits = 0;
        for (uint32_t k = 0; k < s->n; k++) {
            int v;
            if (on_bits) {
                v = lbs_state_hook(&h, s->es[k], 0);
            } else {
                engine_state_terms(s->e, s->es[k], &t);
                v = lbs_hook(&h, &t);
            }
            *hits += v >= 0;
        }
        double dt = now_seconds() - t0;
        if (dt < best) best = dt;
        if (dt > REPEAT_BELOW) break;
    }
    state_fini(&t);
    return best / (s->n ? s->n : 1);
}

/* UCT from the initial state for UCT_SECONDS with the hook at its default budget (3
 * steps): none, on bitsets (every state, or where it pays) or on terms: rollout steps per
 * second and the hook's share of the time, as the search sees them (its clock is around
 * the call, conversion included; on bitsets one call in 16 is timed). */
typedef enum { HOOK_NONE, HOOK_BITS_EVERY, HOOK_BITS, HOOK_TERMS } hook_mode_t;

static void uct_line(sample_t *s, uint32_t role, lbs_t *l, hook_mode_t mode) {
    static const char *const name[] = {"none", "bits-every", "bits", "terms"};
    lbs_set_hook_cost(l, 3);
    lbs_stats_t ls;
    lbs_stats(l, &ls);
    uct_t *u = uct_new(s->e, role, 1);
    lbs_hook_t h = {.lbs = l, .every = mode == HOOK_BITS_EVERY};
    if (mode == HOOK_BITS || mode == HOOK_BITS_EVERY)
        uct_set_state_hook(u, lbs_state_hook, &h);
    else if (mode == HOOK_TERMS)
        uct_set_hook(u, lbs_hook, &h);
    eng_state_t *es = engine_state_new(s->e);
    state_t init;
    state_init(&init);
    engine_initial(s->e, es);
    engine_state_terms(s->e, es, &init);
    double t0 = now_seconds();
    (void)uct_choose(u, &init, UCT_SECONDS, 0);
    double dt = now_seconds() - t0;
    uct_stats_t st;
    uct_stats(u, &st);
    printf("uct hook=%s hook_alpha=%u hook_beta=%u seconds=%.2f rollouts=%" PRIu64 " steps=%" PRIu64
           " "
           "steps_per_s=%.0f hook_calls=%" PRIu64 " hook_hits=%" PRIu64
           " hook_ns=%.1f hook_share=%.3f\n",
           name[mode], ls.hook_alpha, ls.hook_beta, dt, st.rollouts, st.rollout_steps,
           st.rollout_steps / dt, st.hook_calls, st.hook_hits,
           st.hook_calls ? st.hook_seconds / st.hook_calls * 1e9 : 0, st.hook_seconds / dt);
    fflush(stdout);
    state_fini(&init);
    engine_state_free(es);
    uct_free(u);
}

/* The hook end to end, as a search pays it per rollout step: lbs_new's formulas (backward
 * search again under the budget, guarded; no Z3, which is paid per hit, not per step),
 * those the hook takes within `share` of a step on the engine, timed on the sample on
 * bitsets and on terms. */
static void hook_line(sample_t *s, uint32_t role, double budget, double share, double step) {
    lbs_opts_t o;
    lbs_default_opts(&o);
    o.budget = budget;
    o.confirm = LBS_CONFIRM_NONE;
    char err[400];
    lbs_t *l = lbs_new(s->e, role, &o, err, sizeof err);
    if (!l) {
        printf("# hook: %s\n", err);
        return;
    }
    lbs_set_hook_cost(l, share);
    lbs_stats_t st;
    lbs_stats(l, &st);
    uint64_t hb, ht;
    double tb = hook_time(s, l, true, &hb), tt = hook_time(s, l, false, &ht);
    printf("hook share=%.2f guarded_alpha=%u guarded_beta=%u hook_alpha=%u hook_beta=%u bits=%u "
           "lifted=%u "
           "bits_ns=%.1f terms_ns=%.1f bits_steps=%.4f terms_steps=%.3f hits=%" PRIu64 "/%" PRIu64
           "%s\n",
           share, st.n_alpha, st.n_beta, st.hook_alpha, st.hook_beta, st.bit_formulas,
           st.bit_lifted, tb * 1e9, tt * 1e9, step > 0 ? tb / step : 0, step > 0 ? tt / step : 0,
           hb, ht, hb != ht ? " DIFFERENT" : "");
    for (hook_mode_t m = HOOK_NONE; m <= HOOK_TERMS; m++)
        uct_line(s, role, l, m);
    lbs_free(l);
}

int regress_cost(game_t *g, uint32_t role, double budget, regress_t *rg, engine_kind_t kind,
                 uint32_t playouts, double share) {
    sample_t s = {.e = engine_new(g, kind, stderr)};
    if (engine_kind(s.e) == ENGINE_INTERP) {
        fprintf(stderr, "ggp regress: --cost needs a ground or compiled engine\n");
        engine_free(s.e);
        return 3;
    }
    s.v = vocab_from_engine(s.e, 0, 0, 0);
    sample_states(&s, g, playouts);
    double step = 1e300;
    for (uint32_t rep = 0; rep < 3; rep++) {
        double x = lbs_engine_step_seconds(s.e, 0.2);
        if (x < step) step = x;
    }
    printf("# cost engine=%s states=%u step_ns=%.1f to_terms_ns=%.1f index_ns=%.1f\n",
           engine_kind_name(engine_kind(s.e)), s.n, step * 1e9, s.conv * 1e9, s.idx * 1e9);
    int rc = 0;
    fcost_t *c[2];
    uint32_t n[2];
    for (int side = 0; side < 2; side++) {
        n[side] = regress_count(rg, side);
        c[side] = xcalloc(n[side] + 1, sizeof *c[side]);
        for (uint32_t i = 0; i < n[side]; i++) {
            const regress_step_t *st = regress_step(rg, side, i);
            match_t *m = match_new(g->ts, st->f);
            uint32_t done = 0, disagree = 0, size = 0;
            double all = -1;
            c[side][i].lifted = m ? lifted_cost(&s, g, m, &done) : 0;
            bitform_t *common =
                bitform_of_form(s.v, g->ts, st->f, BF_COMMON, BIT_NODES, BIT_SIZE, 0);
            bitform_t *disj =
                bitform_of_form(s.v, g->ts, st->f, BF_DISJUNCTS, BIT_NODES, BIT_SIZE, 0);
            if (common && disj) {
                c[side][i].bits = bits_cost(&s, common, disj, &all, &disagree);
                size = bitform_size(common) + bitform_size(disj);
            } else {
                c[side][i].bits = -1;
            }
            if (disagree) rc = 4;
            double lifted = c[side][i].lifted + s.conv + s.idx; /* as the old hook paid it */
            printf("cost side=%s i=%u literals=%" PRIu64 " disjuncts=%u program=%u states=%u "
                   "lifted_ns=%.1f bits_ns=%.1f straight_ns=%.1f lifted_steps=%.3f "
                   "bits_steps=%.4f speedup=%.1f disagree=%u\n",
                   side ? "beta" : "alpha", i, st->literals, st->disjuncts, size, done,
                   lifted * 1e9, c[side][i].bits * 1e9, all * 1e9, step > 0 ? lifted / step : 0,
                   step > 0 ? c[side][i].bits / step : 0,
                   c[side][i].bits > 0 ? lifted / c[side][i].bits : 0, disagree);
            fflush(stdout);
            bitform_free(common);
            bitform_free(disj);
            match_free(m);
        }
    }
    for (int side = 0; side < 2; side++) /* trailing false formulas (the sequence ended) */
        while (n[side] && !regress_step(rg, side, n[side] - 1)->literals)
            n[side]--;
    const fcost_t *cc[2] = {c[0], c[1]};
    double shares[3] = {share, 1, 3}; /* and a whole step, and the hook's default 3 */
    for (int k = 0; k < 3; k++) {
        uint32_t lf[2], bf[2];
        fit(cc, n, shares[k] * step, s.conv + s.idx, false, lf);
        fit(cc, n, shares[k] * step, 0, true, bf);
        printf("fit share=%.2f formulas_i>=1 alpha=%u beta=%u lifted_alpha=%u lifted_beta=%u "
               "bits_alpha=%u bits_beta=%u\n",
               shares[k], n[0] ? n[0] - 1 : 0, n[1] ? n[1] - 1 : 0, lf[0], lf[1], bf[0], bf[1]);
    }
    fflush(stdout);
    hook_line(&s, role, budget, share, step);
    for (uint32_t k = 0; k < s.n; k++) {
        engine_state_free(s.es[k]);
        state_fini(&s.terms[k]);
    }
    free(s.es);
    free(s.terms);
    free(s.hit);
    free(c[0]);
    free(c[1]);
    vocab_free(s.v);
    engine_free(s.e);
    return rc;
}
