/* A state evaluation learnt from random matches: see heur.h. */
#include "mcts/heur.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/popcount.h"
#include "base/util.h"
#include "engine/fluents.h"
#include "mcts/advance.h"
#include "mcts/counter.h"

#define MAX_CANDIDATES 512 /* features considered */
#define MAX_USED 12        /* features fitted */
#define PER_MATCH 4        /* states kept of each random match */
#define MAX_SAMPLES 20000
#define MAX_PLIES 2000 /* a random match longer than this is cut (no outcome: dropped) */
#define MIN_MATCHES 60
#define RIDGE 1.0         /* regularisation, on standardised features */
#define MIN_R2 0.03       /* a fit predicting the held-out outcome no better is dropped */
#define MIN_CORR 0.05     /* a feature less correlated with every role's outcome is not fitted */
#define MATERIAL_MIN 2    /* pieces each role holds in the initial state, at least (material) */
#define MATERIAL_KINDS 64 /* (functor, argument) pairs considered for the material */
#define VARY_MATCHES 20   /* random matches in which the material must change once */
#define VARY_PLIES 500    /* plies of each, at most */
/* heur_advance: a piece at its goal is worth 1 + ADV_PIECE pieces, one halfway 1 +
 * ADV_PIECE / 2; the most advanced piece of a role ADV_LEAD more times its progress
 * squared (a runner one move from the goal counts, one that has barely left home not) */
#define ADV_PIECE 0.5
#define ADV_LEAD 2.0
#define ADV_WORK 50000000ull /* node visits reading the network, at most per role */
/* heur_counter: random matches from the start that weigh the counter kinds (a third held out), at
 * most; fewer than COUNTER_MIN_MATCHES ended by the deadline: none kept */
#define COUNTER_KINDS 8
#define COUNTER_MATCHES 90
#define COUNTER_MIN_MATCHES 30
/* a lead correlating less with the outcome (either third): dropped */
#define COUNTER_MIN_CORR 0.1
/* a final lead correlating less with the outcome (either third): not a score. Above the
 * noise of 30 held-out matches (two standard errors, about 0.26); a score ends far above
 * it (dotsAndBoxes' boxes 0.87, checkers' pieces 0.8-0.9, quad's 0.6) */
#define COUNTER_END_CORR 0.3
/* a kind some role's value of which fell in more of the matches: a resource spent
 * (cubicup's cubes, quad's pieces left), pieces lost (checkers'), a coordinate (mummyMaze's
 * location), not a score, which only grows (dotsAndBoxes' boxes, captures) */
#define COUNTER_FELL 0.1

typedef enum { F_COUNT, F_GOAL, F_MOBILITY, F_COUNTER } fkind_t;

typedef struct {
    fkind_t kind;
    uint32_t role;            /* F_GOAL, F_MOBILITY, F_COUNTER */
    const counter_t *counter; /* F_COUNTER: the role's value of this counter */
    uint64_t *mask;           /* F_COUNT: the fluents counted (n_words words) */
    sym_t functor;      /* F_COUNT: functor (or constant); argument positions (1..; 0: none) */
    uint32_t arg, arg2; /* and the constants there */
    term_t value, value2;
} feat_t;

struct heur {
    uint32_t nr, n_words;
    feat_t *feat; /* the features used */
    uint32_t n_feat;
    double *mean, *sd; /* standardisation of each used feature */
    double *w;         /* per role: intercept, then one weight per used feature */
    double length;     /* average random match length */
    /* heur_material: feat[r] counts role r's pieces; no weights, the value a sigmoid of
     * the balance */
    bool material;
    double scale;
    /* heur_advance: per role, the span D (its pieces' farthest distance to its goal) and
     * D + 1 masks of its pieces at distance 0..D (adv_off[r]: where they start) */
    bool adv;
    uint32_t adv_span[MATERIAL_KINDS];
    size_t adv_off[MATERIAL_KINDS];
    uint64_t *adv_mask;
    /* heur_counter: a score counter (material or not), its lead over the roles' mean
     * worth sign / unit pieces' balance */
    counter_t *counter;
    double counter_sign, counter_unit;
    heur_stats_t st;
};

static double feature(const feat_t *f, engine_t *e, const eng_state_t *s, uint32_t n_words) {
    if (f->kind == F_COUNT) {
        const uint64_t *w = engine_state_words(s);
        uint32_t c = 0;
        for (uint32_t i = 0; i < n_words; i++)
            c += popcount64(w[i] & f->mask[i]);
        return c;
    }
    if (f->kind == F_COUNTER) return counter_value(f->counter, f->role, engine_state_words(s));
    if (f->kind == F_GOAL) {
        int v = engine_goal_value(e, s, f->role);
        return v < 0 ? 0 : v;
    }
    const term_t *m;
    return engine_legal(e, s, f->role, &m);
}

/* ---- candidates ---- */

typedef struct {
    feat_t *f;
    uint32_t n;
    size_t cap;
} cands_t;

static feat_t *add_cand(cands_t *c, fkind_t kind, uint32_t n_words) {
    if (c->n == MAX_CANDIDATES) return NULL;
    GROW(c->f, c->cap, c->n + 1);
    feat_t *f = &c->f[c->n++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    if (kind == F_COUNT) f->mask = xcalloc(n_words, sizeof *f->mask);
    return f;
}

/* The group of fluents of functor fn with constant v at argument j (j 0: any) and v2 at
 * j2 (j2 0: any), made when missing. */
static feat_t *group(cands_t *c, uint32_t first, uint32_t n_words, sym_t fn, uint32_t j, term_t v,
                     uint32_t j2, term_t v2) {
    for (uint32_t i = first; i < c->n; i++) {
        feat_t *f = &c->f[i];
        if (f->functor == fn && f->arg == j && f->value == v && f->arg2 == j2 && f->value2 == v2)
            return f;
    }
    feat_t *f = add_cand(c, F_COUNT, n_words);
    if (f) {
        f->functor = fn;
        f->arg = j, f->value = v;
        f->arg2 = j2, f->value2 = v2;
    }
    return f;
}

/* The piece counts: how many fluents of a functor hold, with a constant at one argument
 * (cell(_, _, white): white's pieces), or at two (cell(_, 7, white): white's pieces on
 * row 7). */
static void piece_candidates(cands_t *c, game_t *g, const term_t *bits, uint32_t n_bits,
                             uint32_t n_words) {
    term_store_t *ts = g->ts;
    uint32_t first = c->n;
    for (uint32_t b = 0; b < n_bits; b++) {
        term_t t = bits[b];
        if (t == TERM_NONE) continue;
        sym_t fn = term_sym(ts, t);
        uint32_t ar = term_kind(ts, t) == TERM_FUN ? term_arity(ts, t) : 0;
        for (uint32_t j = 0; j <= ar; j++) {
            term_t v = j ? term_arg(ts, t, j - 1) : TERM_NONE;
            if (j && term_kind(ts, v) != TERM_SYM) continue;
            for (uint32_t j2 = j ? j + 1 : 0; j2 <= (j ? ar : 0); j2++) {
                term_t v2 = j2 ? term_arg(ts, t, j2 - 1) : TERM_NONE;
                if (j2 && term_kind(ts, v2) != TERM_SYM) continue;
                feat_t *f = group(c, first, n_words, fn, j, v, j2, v2);
                if (f) f->mask[b >> 6] |= 1ull << (b & 63);
            }
            if (j) { /* one argument fixed */
                feat_t *f = group(c, first, n_words, fn, j, v, 0, TERM_NONE);
                if (f) f->mask[b >> 6] |= 1ull << (b & 63);
            }
        }
    }
    /* a group of one fluent is that fluent: kept (a flag like control(white) can predict) */
}

/* ---- sampling ---- */

typedef struct {
    float *x; /* samples x candidates */
    float *y; /* samples x roles: outcome 0..1 */
    uint32_t *match;
    /* heur_counter's check (scores): each match's terminal state kept too, marked in end[],
     * and, per candidate, the matches in which its value fell at some ply (fell[]) */
    bool scores;
    uint8_t *end;
    uint32_t *fell;
    uint32_t n, cap;
} data_t;

/* Plays random matches until the deadline, keeping PER_MATCH states of each with its
 * outcome (and, d->scores, its terminal state and how the candidates moved). */
static void sample(engine_t *e, const cands_t *c, uint32_t n_words, double deadline,
                   uint32_t max_matches, splitmix_t *rng, data_t *d, heur_stats_t *st,
                   double *length) {
    uint32_t nr = engine_game(e)->n_roles, nc = c->n;
    eng_state_t *s = engine_state_new(e), *t = engine_state_new(e);
    term_t *joint = xcalloc(nr, sizeof *joint);
    float *row = xmalloc((size_t)(PER_MATCH + 1) * nc * sizeof *row);
    /* d->scores: the candidates' values at the previous ply, and whether each fell */
    float *prev = d->scores ? xcalloc(nc, sizeof *prev) : NULL;
    bool *fell = d->scores ? xcalloc(nc, sizeof *fell) : NULL;
    if (d->scores && !d->fell) d->fell = xcalloc(nc, sizeof *d->fell);
    int *goal = xcalloc(nr, sizeof *goal);
    double plies_sum = 0;
    for (uint32_t tries = 0;
         (!deadline || now_seconds() < deadline) && (!max_matches || tries < max_matches) &&
         d->n + PER_MATCH + 1 <= MAX_SAMPLES;
         tries++) {
        engine_initial(e, s);
        uint32_t plies = 0, kept = 0;
        bool ended = false;
        if (fell) memset(fell, 0, nc * sizeof *fell);
        while (plies < MAX_PLIES) {
            if (prev)
                for (uint32_t k = 0; k < nc; k++) {
                    float v = (float)feature(&c->f[k], e, s, n_words);
                    fell[k] = fell[k] || (plies && v < prev[k]);
                    prev[k] = v;
                }
            if (engine_terminal(e, s)) {
                ended = true;
                break;
            }
            /* reservoir of PER_MATCH states over the match */
            uint32_t slot =
                kept < PER_MATCH ? kept++ : (uint32_t)(splitmix_next(rng) % (plies + 1));
            if (slot < PER_MATCH)
                for (uint32_t k = 0; k < nc; k++)
                    row[(size_t)slot * nc + k] = (float)feature(&c->f[k], e, s, n_words);
            if (!engine_random_joint(e, s, rng, joint)) break;
            engine_next(e, s, joint, t);
            engine_state_copy(s, t);
            plies++;
        }
        if (!ended) continue;
        uint32_t states = kept;
        if (d->scores) {
            memcpy(&row[(size_t)kept * nc], prev, nc * sizeof *row); /* the terminal state */
            kept++;
            for (uint32_t k = 0; k < nc; k++)
                d->fell[k] += fell[k];
        }
        st->matches++;
        plies_sum += plies;
        for (uint32_t r = 0; r < nr; r++) {
            int v = engine_goal_value(e, s, r);
            goal[r] = v < 0 ? 0 : v;
        }
        if (d->n + kept > d->cap) {
            d->cap = d->cap ? 2 * d->cap : 1024;
            d->x = xrealloc(d->x, (size_t)d->cap * nc * sizeof *d->x);
            d->y = xrealloc(d->y, (size_t)d->cap * nr * sizeof *d->y);
            d->match = xrealloc(d->match, (size_t)d->cap * sizeof *d->match);
            d->end = xrealloc(d->end, (size_t)d->cap * sizeof *d->end);
        }
        for (uint32_t k = 0; k < kept; k++, d->n++) {
            memcpy(&d->x[(size_t)d->n * nc], &row[(size_t)k * nc], nc * sizeof *row);
            for (uint32_t r = 0; r < nr; r++)
                d->y[(size_t)d->n * nr + r] = goal[r] / 100.0f;
            d->match[d->n] = st->matches;
            d->end[d->n] = k >= states;
        }
    }
    *length = st->matches ? plies_sum / st->matches : 0;
    free(goal);
    free(row);
    free(prev);
    free(fell);
    free(joint);
    engine_state_free(s);
    engine_state_free(t);
}

/* ---- fitting ---- */

/* Solves the n x n system a x = b in place (Gaussian elimination, partial pivoting);
 * false when singular. */
static bool solve(double *a, double *b, uint32_t n) {
    for (uint32_t c = 0; c < n; c++) {
        uint32_t piv = c;
        for (uint32_t r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[piv * n + c])) piv = r;
        if (fabs(a[piv * n + c]) < 1e-12) return false;
        if (piv != c) {
            for (uint32_t k = 0; k < n; k++) {
                double t = a[c * n + k];
                a[c * n + k] = a[piv * n + k];
                a[piv * n + k] = t;
            }
            double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (uint32_t r = 0; r < n; r++) {
            if (r == c) continue;
            double f = a[r * n + c] / a[c * n + c];
            for (uint32_t k = c; k < n; k++)
                a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    for (uint32_t c = 0; c < n; c++)
        b[c] /= a[c * n + c];
    return true;
}

static bool is_test(const data_t *d, uint32_t i) {
    return d->match[i] % 3 == 0;
}

/* Ridge regression of role r's outcome on the used features (standardised), on the
 * training samples: intercept and weights into w (1 + m). */
static bool fit(const data_t *d, uint32_t nc, uint32_t nr, const uint32_t *use, uint32_t m,
                const double *mean, const double *sd, uint32_t r, double *w) {
    uint32_t n = m + 1;
    double *a = xcalloc((size_t)n * n, sizeof *a), *b = xcalloc(n, sizeof *b), z[MAX_USED + 1];
    for (uint32_t i = 0; i < d->n; i++) {
        if (is_test(d, i)) continue;
        z[0] = 1;
        for (uint32_t k = 0; k < m; k++)
            z[k + 1] = (d->x[(size_t)i * nc + use[k]] - mean[k]) / sd[k];
        double y = d->y[(size_t)i * nr + r];
        for (uint32_t p = 0; p < n; p++) {
            b[p] += z[p] * y;
            for (uint32_t q = 0; q < n; q++)
                a[p * n + q] += z[p] * z[q];
        }
    }
    for (uint32_t p = 1; p < n; p++)
        a[p * n + p] += RIDGE;
    bool ok = solve(a, b, n);
    memcpy(w, b, n * sizeof *w);
    free(a);
    free(b);
    return ok;
}

/* R² of role r's fitted outcome on the held-out samples. */
static double held_out_r2(const data_t *d, uint32_t nc, uint32_t nr, const uint32_t *use,
                          uint32_t m, const double *mean, const double *sd, uint32_t r,
                          const double *w) {
    double sy = 0, n = 0;
    for (uint32_t i = 0; i < d->n; i++)
        if (is_test(d, i)) sy += d->y[(size_t)i * nr + r], n++;
    if (n < 10) return 0;
    double my = sy / n, ss_tot = 0, ss_res = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        if (!is_test(d, i)) continue;
        double p = w[0];
        for (uint32_t k = 0; k < m; k++)
            p += w[k + 1] * (d->x[(size_t)i * nc + use[k]] - mean[k]) / sd[k];
        p = p < 0 ? 0 : p > 1 ? 1 : p;
        double y = d->y[(size_t)i * nr + r];
        ss_tot += (y - my) * (y - my);
        ss_res += (y - p) * (y - p);
    }
    return ss_tot > 0 ? 1 - ss_res / ss_tot : 0;
}

/* Each candidate's mean, spread and largest correlation (absolute, over the roles) with
 * an outcome, on the training samples. */
static void correlate(const data_t *d, uint32_t nc, uint32_t nr, double *mean, double *sd,
                      double *corr) {
    double n = 0, *my = xcalloc(nr, sizeof *my), *sy = xcalloc(nr, sizeof *sy);
    for (uint32_t i = 0; i < d->n; i++) {
        if (is_test(d, i)) continue;
        n++;
        for (uint32_t r = 0; r < nr; r++)
            my[r] += d->y[(size_t)i * nr + r];
    }
    for (uint32_t r = 0; r < nr; r++)
        my[r] /= n;
    for (uint32_t i = 0; i < d->n; i++)
        if (!is_test(d, i))
            for (uint32_t r = 0; r < nr; r++) {
                double e = d->y[(size_t)i * nr + r] - my[r];
                sy[r] += e * e;
            }
    for (uint32_t k = 0; k < nc; k++) {
        double sx = 0, sxx = 0;
        for (uint32_t i = 0; i < d->n; i++)
            if (!is_test(d, i)) {
                double x = d->x[(size_t)i * nc + k];
                sx += x;
                sxx += x * x;
            }
        mean[k] = sx / n;
        double var = sxx / n - mean[k] * mean[k];
        sd[k] = var > 1e-12 ? sqrt(var) : 0;
        corr[k] = 0;
        if (sd[k] == 0) continue;
        for (uint32_t r = 0; r < nr; r++) {
            if (sy[r] <= 0) continue;
            double sxy = 0;
            for (uint32_t i = 0; i < d->n; i++)
                if (!is_test(d, i))
                    sxy +=
                        (d->x[(size_t)i * nc + k] - mean[k]) * (d->y[(size_t)i * nr + r] - my[r]);
            double cr = fabs(sxy / (sd[k] * n) / sqrt(sy[r] / n));
            if (cr > corr[k]) corr[k] = cr;
        }
    }
    free(my);
    free(sy);
}

static void log_fit(FILE *log, engine_t *e, const heur_t *h) {
    game_t *g = engine_game(e);
    fprintf(log, "heur: %u features of %u, R2 %.3f (held out), %u random matches of %.1f plies:",
            h->st.used, h->st.features, h->st.r2, h->st.matches, h->length);
    for (uint32_t k = 0; k < h->n_feat; k++) {
        const feat_t *f = &h->feat[k];
        strbuf_t sb;
        sb_init(&sb);
        if (f->kind == F_COUNT) {
            sb_puts(&sb, term_sym_name(g->ts, f->functor));
            if (f->arg) {
                sb_printf(&sb, "#%u=", f->arg);
                term_print(g->ts, f->value, &sb);
            }
            if (f->arg2) {
                sb_printf(&sb, "#%u=", f->arg2);
                term_print(g->ts, f->value2, &sb);
            }
        } else {
            sb_printf(&sb, "%s(role %u)", f->kind == F_GOAL ? "goal" : "mobility", f->role);
        }
        fprintf(log, " %s %+.3f", sb_str(&sb), h->w[k + 1] / h->sd[k]);
        sb_fini(&sb);
    }
    fprintf(log, "\n");
}

heur_t *heur_learn(engine_t *e, double deadline, uint32_t max_matches, splitmix_t *rng, FILE *log) {
    term_t *bits;
    uint32_t n_bits = engine_fluent_bits(e, &bits);
    if (!n_bits) return NULL;
    game_t *g = engine_game(e);
    uint32_t nr = g->n_roles, n_words = n_bits / 64;
    cands_t c = {0};
    for (uint32_t r = 0; r < nr; r++) {
        feat_t *f = add_cand(&c, F_GOAL, n_words);
        f->role = r;
        f = add_cand(&c, F_MOBILITY, n_words);
        f->role = r;
    }
    piece_candidates(&c, g, bits, n_bits, n_words);
    free(bits);
    heur_t *h = xcalloc(1, sizeof *h);
    h->nr = nr;
    h->n_words = n_words;
    h->st.features = c.n;
    data_t d = {0};
    sample(e, &c, n_words, deadline, max_matches, rng, &d, &h->st, &h->length);
    h->st.samples = d.n;
    bool ok = h->st.matches >= MIN_MATCHES;
    uint32_t nc = c.n, use[MAX_USED], m = 0;
    double *mean = xcalloc(nc, sizeof *mean), *sd = xcalloc(nc, sizeof *sd),
           *corr = xcalloc(nc, sizeof *corr);
    if (ok) {
        correlate(&d, nc, nr, mean, sd, corr);
        /* the strongest candidates, each at least MIN_CORR */
        while (m < MAX_USED) {
            uint32_t best = UINT32_MAX;
            for (uint32_t k = 0; k < nc; k++)
                if (corr[k] >= MIN_CORR && (best == UINT32_MAX || corr[k] > corr[best])) best = k;
            if (best == UINT32_MAX) break;
            use[m++] = best;
            corr[best] = -1;
        }
        ok = m > 0;
    }
    if (ok) {
        h->n_feat = m;
        h->feat = xcalloc(m, sizeof *h->feat);
        h->mean = xcalloc(m, sizeof *h->mean);
        h->sd = xcalloc(m, sizeof *h->sd);
        h->w = xcalloc((size_t)nr * (m + 1), sizeof *h->w);
        for (uint32_t k = 0; k < m; k++) {
            h->feat[k] = c.f[use[k]];
            c.f[use[k]].mask = NULL; /* moved */
            h->mean[k] = mean[use[k]];
            h->sd[k] = sd[use[k]];
        }
        for (uint32_t r = 0; r < nr && ok; r++)
            ok = fit(&d, nc, nr, use, m, h->mean, h->sd, r, &h->w[(size_t)r * (m + 1)]);
        if (ok) h->st.r2 = held_out_r2(&d, nc, nr, use, m, h->mean, h->sd, 0, h->w);
        ok = ok && h->st.r2 >= MIN_R2;
        h->st.used = ok ? m : 0;
    }
    if (log && h->n_feat) log_fit(log, e, h);
    if (log && !ok)
        fprintf(log, "heur: no evaluation (%u random matches, R2 %.3f)\n", h->st.matches, h->st.r2);
    for (uint32_t k = 0; k < c.n; k++)
        free(c.f[k].mask);
    free(c.f);
    free(mean);
    free(sd);
    free(corr);
    free(d.x);
    free(d.y);
    free(d.match);
    free(d.end);
    if (!ok) {
        heur_free(h);
        return NULL;
    }
    return h;
}

/* ---- material ---- */

/* A kind of piece fluent: functor fn with a role's name at argument arg (1..), and how
 * many such fluents of each role hold in the initial state. */
typedef struct {
    sym_t fn;
    uint32_t arity, arg;
    uint32_t count[MATERIAL_KINDS]; /* per role (nr <= MATERIAL_KINDS) */
} mkind_t;

/* The role whose name term v is (UINT32_MAX: none). */
static uint32_t role_named(const game_t *g, term_t v) {
    if (term_kind(g->ts, v) != TERM_SYM) return UINT32_MAX;
    for (uint32_t r = 0; r < g->n_roles; r++)
        if (term_kind(g->ts, g->roles[r]) == TERM_SYM &&
            term_sym(g->ts, g->roles[r]) == term_sym(g->ts, v))
            return r;
    return UINT32_MAX;
}

/* The kinds of piece fluents among the fluents holding in s0, counted per role. */
static uint32_t material_kinds(const game_t *g, const term_t *bits, uint32_t n_bits,
                               const uint64_t *w, mkind_t *k) {
    uint32_t n = 0;
    for (uint32_t b = 0; b < n_bits; b++) {
        term_t t = bits[b];
        if (t == TERM_NONE || !(w[b >> 6] >> (b & 63) & 1) || term_kind(g->ts, t) != TERM_FUN)
            continue;
        uint32_t ar = term_arity(g->ts, t);
        if (ar < 2) continue; /* a piece has a place and an owner */
        for (uint32_t j = 1; j <= ar; j++) {
            uint32_t r = role_named(g, term_arg(g->ts, t, j - 1));
            if (r == UINT32_MAX) continue;
            uint32_t i = 0;
            while (i < n && !(k[i].fn == term_sym(g->ts, t) && k[i].arity == ar && k[i].arg == j))
                i++;
            if (i == n) {
                if (n == MATERIAL_KINDS) continue;
                memset(&k[n], 0, sizeof k[n]);
                k[n].fn = term_sym(g->ts, t), k[n].arity = ar, k[n].arg = j;
                n++;
            }
            k[i].count[r]++;
        }
    }
    return n;
}

static void material_eval(const heur_t *h, const eng_state_t *s, double *val);

/* Whether h's value of some state of VARY_MATCHES random matches from s0 differs from s0's:
 * pieces that are never taken (chinese checkers) give a value that never changes, which
 * tells the search nothing and, mixed into its values (imm), only damps them. A fixed seed:
 * the answer is the same at every start and leaves the player's random stream alone. By the
 * deadline (0: none; read every joint move: a big network's random matches take a second
 * while a compiler shares the core): past it, false with *in_time false. */
static bool varies(const heur_t *h, engine_t *e, const eng_state_t *s0, double deadline,
                   bool *in_time) {
    uint32_t nr = h->nr;
    eng_state_t *s = engine_state_new(e), *t = engine_state_new(e);
    term_t *joint = xcalloc(nr, sizeof *joint);
    double v0[MATERIAL_KINDS], v[MATERIAL_KINDS];
    material_eval(h, s0, v0);
    splitmix_t rng = {0x6d61746572ull};
    bool changed = false;
    for (int m = 0; m < VARY_MATCHES && !changed; m++) {
        engine_state_copy(s, s0);
        for (int ply = 0; ply < VARY_PLIES && !changed && !engine_terminal(e, s); ply++) {
            if (deadline > 0 && now_seconds() > deadline) {
                *in_time = false;
                m = VARY_MATCHES;
                break;
            }
            if (!engine_random_joint(e, s, &rng, joint)) break;
            engine_next(e, s, joint, t);
            engine_state_copy(s, t);
            material_eval(h, s, v);
            for (uint32_t r = 0; r < nr; r++)
                changed |= v[r] != v0[r];
        }
    }
    free(joint);
    engine_state_free(s);
    engine_state_free(t);
    return changed;
}

heur_t *heur_material(engine_t *e, const eng_state_t *s0, double scale, FILE *log) {
    return heur_material_by(e, s0, scale, 0, log);
}

heur_t *heur_material_by(engine_t *e, const eng_state_t *s0, double scale, double deadline,
                         FILE *log) {
    game_t *g = engine_game(e);
    uint32_t nr = g->n_roles;
    /* before listing the fluents' terms (pancakes88, one role: 2.3 s of a 2 s start clock
     * for nothing when that listing was quadratic) */
    if (nr < 2 || nr > MATERIAL_KINDS) return NULL;
    term_t *bits;
    uint32_t n_bits = engine_fluent_bits(e, &bits);
    const uint64_t *w = n_bits ? engine_state_words(s0) : NULL;
    if (!w) {
        free(bits);
        return NULL;
    }
    mkind_t *k = xcalloc(MATERIAL_KINDS, sizeof *k);
    uint32_t n = material_kinds(g, bits, n_bits, w, k), best = UINT32_MAX, best_total = 0;
    for (uint32_t i = 0; i < n; i++) { /* every role has pieces; the most pieces in all */
        uint32_t total = 0, least = UINT32_MAX;
        for (uint32_t r = 0; r < nr; r++) {
            total += k[i].count[r];
            if (k[i].count[r] < least) least = k[i].count[r];
        }
        if (least >= MATERIAL_MIN && total > best_total) best = i, best_total = total;
    }
    heur_t *h = NULL;
    if (best != UINT32_MAX) {
        h = xcalloc(1, sizeof *h);
        h->nr = nr;
        h->n_words = n_bits / 64;
        h->material = true;
        h->scale = scale;
        h->n_feat = nr;
        h->feat = xcalloc(nr, sizeof *h->feat);
        for (uint32_t r = 0; r < nr; r++) {
            h->feat[r].kind = F_COUNT;
            h->feat[r].functor = k[best].fn;
            h->feat[r].arg = k[best].arg;
            h->feat[r].value = g->roles[r];
            h->feat[r].mask = xcalloc(h->n_words, sizeof *h->feat[r].mask);
        }
        for (uint32_t b = 0; b < n_bits; b++) { /* every such fluent, held at start or not */
            term_t t = bits[b];
            if (t == TERM_NONE || term_kind(g->ts, t) != TERM_FUN ||
                term_sym(g->ts, t) != k[best].fn || term_arity(g->ts, t) != k[best].arity)
                continue;
            uint32_t r = role_named(g, term_arg(g->ts, t, k[best].arg - 1));
            if (r != UINT32_MAX) h->feat[r].mask[b >> 6] |= 1ull << (b & 63);
        }
        h->st.features = n;
        h->st.used = nr;
    }
    bool in_time = true;
    if (h && !varies(h, e, s0, deadline, &in_time)) {
        if (log && in_time)
            fprintf(log, "heur: no material (%s#%u=ROLE never changes in %d random matches)\n",
                    term_sym_name(g->ts, k[best].fn), k[best].arg, VARY_MATCHES);
        else if (log)
            fprintf(log, "heur: no material (%s#%u=ROLE not seen changing by the deadline)\n",
                    term_sym_name(g->ts, k[best].fn), k[best].arg);
        heur_free(h);
        free(k);
        free(bits);
        return NULL;
    }
    if (log && h)
        fprintf(log, "heur: material: %s#%u=ROLE, %u pieces at start\n",
                term_sym_name(g->ts, k[best].fn), k[best].arg, best_total);
    if (log && !h) fprintf(log, "heur: no material (no role's name on a fluent of its pieces)\n");
    free(k);
    free(bits);
    return h;
}

/* heur_advance's term of role r in state words w: its pieces' progress (D - d) / D
 * summed, times ADV_PIECE, and its most advanced piece's progress squared, times ADV_LEAD. */
static double advance_term(const heur_t *h, uint32_t r, const uint64_t *w) {
    uint32_t span = h->adv_span[r];
    const uint64_t *m = &h->adv_mask[h->adv_off[r]];
    double sum = 0, lead = -1;
    for (uint32_t d = 0; d <= span; d++, m += h->n_words) {
        uint32_t c = 0;
        for (uint32_t i = 0; i < h->n_words; i++)
            c += popcount64(w[i] & m[i]);
        double prog = (double)(span - d) / span;
        if (c && lead < 0) lead = prog;
        sum += c * prog;
    }
    return ADV_PIECE * sum + (lead > 0 ? ADV_LEAD * lead * lead : 0);
}

/* Material: each role's pieces against the roles' mean, scaled (a piece up of sixteen:
 * 0.3, about 58 through the sigmoid); with heur_advance, each role's pieces plus its
 * advancement term against the roles' mean of that, on the same scale (a piece's worth).
 * Into z, per role. */
static void material_logits(const heur_t *h, const eng_state_t *s, double *z) {
    double c[MATERIAL_KINDS], x[MATERIAL_KINDS], sum = 0, xsum = 0;
    for (uint32_t r = 0; r < h->nr; r++) {
        sum += c[r] = feature(&h->feat[r], NULL, s, h->n_words);
        x[r] = c[r] + (h->adv ? advance_term(h, r, engine_state_words(s)) : 0);
        xsum += x[r];
    }
    double avg = sum / h->nr, xavg = xsum / h->nr;
    for (uint32_t r = 0; r < h->nr; r++)
        z[r] = avg > 0 ? h->scale * (x[r] - xavg) / avg : 0;
}

/* heur_counter: each role's counter against the roles' mean, on material's scale with half
 * the counter's range as the mean count (a box up of dotsAndBoxes' 25: 0.4, about 60),
 * added to z. */
static void counter_logits(const heur_t *h, const eng_state_t *s, double *z) {
    double c[MATERIAL_KINDS], sum = 0;
    for (uint32_t r = 0; r < h->nr; r++)
        sum += c[r] = counter_value(h->counter, r, engine_state_words(s));
    for (uint32_t r = 0; r < h->nr; r++)
        z[r] += h->scale * h->counter_sign * (c[r] - sum / h->nr) / h->counter_unit;
}

/* Material and counters through one sigmoid: their balances add up before it. */
static void material_eval(const heur_t *h, const eng_state_t *s, double *val) {
    double z[MATERIAL_KINDS] = {0};
    if (h->material) material_logits(h, s, z);
    if (h->counter) counter_logits(h, s, z);
    for (uint32_t r = 0; r < h->nr; r++)
        val[r] = 100 / (1 + exp(-z[r]));
}

bool heur_advance(heur_t *h, engine_t *e, FILE *log) {
    return heur_advance_by(h, e, 0, log);
}

bool heur_advance_by(heur_t *h, engine_t *e, double deadline, FILE *log) {
    if (!h || !h->material || h->adv) return h && h->adv;
    game_t *g = engine_game(e);
    uint8_t *dist[MATERIAL_KINDS] = {0};
    bool ok = true;
    for (uint32_t r = 0; r < h->nr && ok; r++) {
        dist[r] = advance_distances(e, r, h->feat[r].mask, h->n_words, ADV_WORK, deadline);
        uint32_t span = 0;
        for (uint32_t b = 0; dist[r] && b < h->n_words * 64; b++)
            if (dist[r][b] != ADV_NONE && dist[r][b] > span) span = dist[r][b];
        h->adv_span[r] = span;
        ok = span >= 2; /* pieces that advance, a step at least between them and the goal */
    }
    if (ok) {
        size_t n = 0;
        for (uint32_t r = 0; r < h->nr; r++)
            h->adv_off[r] = n, n += (size_t)(h->adv_span[r] + 1) * h->n_words;
        h->adv_mask = xcalloc(n, sizeof *h->adv_mask);
        for (uint32_t r = 0; r < h->nr; r++)
            for (uint32_t b = 0; b < h->n_words * 64; b++)
                if (dist[r][b] != ADV_NONE)
                    h->adv_mask[h->adv_off[r] + (size_t)dist[r][b] * h->n_words + (b >> 6)] |=
                        1ull << (b & 63);
        h->adv = true;
    }
    if (log) {
        fprintf(log, "heur: advancement %s:", ok ? "on" : "off");
        for (uint32_t r = 0; r < h->nr; r++)
            if (dist[r])
                fprintf(log, " %s's pieces %u moves from its goal at most",
                        term_sym_name(g->ts, term_sym(g->ts, g->roles[r])), h->adv_span[r]);
        fprintf(log, "\n");
    }
    for (uint32_t r = 0; r < h->nr; r++)
        free(dist[r]);
    return ok;
}

/* ---- score counters ---- */

/* The correlation of a role's lead (its counter minus the roles' mean) with its outcome,
 * pooled over the roles, on d's held-out samples (test) or the others, at the matches'
 * terminal states (end) or the states before; kind q's values are candidates q nr .. q nr
 * + nr - 1. 0 where the lead or the outcome never varies. */
static double lead_corr(const data_t *d, uint32_t nc, uint32_t nr, uint32_t q, bool test,
                        bool end) {
    double n = 0, sy = 0, sxx = 0, syy = 0, sxy = 0; /* the leads sum to 0 */
    for (uint32_t i = 0; i < d->n; i++) {
        if (is_test(d, i) != test || d->end[i] != end) continue;
        const float *x = &d->x[(size_t)i * nc + (size_t)q * nr], *y = &d->y[(size_t)i * nr];
        double mean = 0;
        for (uint32_t r = 0; r < nr; r++)
            mean += x[r] / (double)nr;
        for (uint32_t r = 0; r < nr; r++, n++) {
            double a = x[r] - mean;
            sy += y[r], sxx += a * a, syy += (double)y[r] * y[r], sxy += a * y[r];
        }
    }
    double vy = n ? syy / n - (sy / n) * (sy / n) : 0;
    return n && sxx > 1e-12 && vy > 1e-12 ? sxy / n / sqrt(sxx / n * vy) : 0;
}

/* What the check found of one counter kind: the lead's correlation with the outcome over
 * the matches (two thirds, the third held out) and at their terminal states (the same),
 * and the share of matches in which some role's value fell. */
typedef struct {
    double corr[2], end[2], fell;
} kind_check_t;

/* Whether kind check k makes a score: its lead predicts the outcome on both parts (at
 * least COUNTER_MIN_CORR, one sign: a count of penalties may predict the other way), the
 * final lead decides it (at least COUNTER_END_CORR, the same sign: cubicup's cubes left
 * predict a random match's outcome but all are spent by its end), and it only grows
 * (COUNTER_FELL). Where the lead of a resource or a position predicted the outcome of random
 * matches, it misled the search: cubicup 12-7-21 over 40, quad_5x5 21-9-30 over 60. */
static bool kind_is_score(const kind_check_t *k) {
    double sign = k->corr[0] < 0 ? -1 : 1;
    return sign * k->corr[0] >= COUNTER_MIN_CORR && sign * k->corr[1] >= COUNTER_MIN_CORR &&
           sign * k->end[0] >= COUNTER_END_CORR && sign * k->end[1] >= COUNTER_END_CORR &&
           k->fell <= COUNTER_FELL;
}

/* Of the counter kinds k[0..n), the score (kind_is_score) whose lead correlates most with
 * the outcome of random matches (on two thirds of them) into *best, what the check found of
 * each into chk[]; whether there is one (of at least COUNTER_MIN_MATCHES matches). Where
 * none is, *best is the kind of the strongest correlation. A fixed seed: the same answer
 * at every start, the player's random stream untouched. */
static bool counter_pick(engine_t *e, counter_t *const *k, uint32_t n, double deadline,
                         uint32_t *best, kind_check_t *chk, heur_stats_t *st) {
    uint32_t nr = engine_game(e)->n_roles;
    cands_t c = {0};
    for (uint32_t q = 0; q < n; q++)
        for (uint32_t r = 0; r < nr; r++) {
            feat_t *f = add_cand(&c, F_COUNTER, 0);
            f->role = r, f->counter = k[q];
        }
    data_t d = {.scores = true};
    splitmix_t rng = {0x73636f7265ull};
    double length;
    sample(e, &c, 0, deadline, COUNTER_MATCHES, &rng, &d, st, &length);
    bool ok = false;
    *best = 0;
    for (uint32_t q = 0; q < n; q++) {
        kind_check_t *h = &chk[q];
        for (int test = 0; test < 2; test++) {
            h->corr[test] = lead_corr(&d, c.n, nr, q, test, false);
            h->end[test] = lead_corr(&d, c.n, nr, q, test, true);
        }
        h->fell = 0;
        for (uint32_t r = 0; r < nr && st->matches; r++)
            h->fell = fmax(h->fell, (double)d.fell[q * nr + r] / st->matches);
        bool score = st->matches >= COUNTER_MIN_MATCHES && kind_is_score(h);
        if ((score && !ok) || (score == ok && fabs(h->corr[0]) > fabs(chk[*best].corr[0])))
            *best = q, ok = score;
    }
    free(c.f);
    free(d.x);
    free(d.y);
    free(d.match);
    free(d.end);
    free(d.fell);
    return ok;
}

static void log_counter(FILE *log, engine_t *e, const counter_t *k, bool ok, const kind_check_t *h,
                        uint32_t matches, double ms) {
    game_t *g = engine_game(e);
    uint32_t ra, na;
    sym_t fn = counter_functor(k, &ra, &na);
    fprintf(log,
            "heur: %scounter %s#%u=ROLE #%u (a range of %g): the lead correlates %+.3f with the "
            "outcome, %+.3f held out, at the end %+.3f, %+.3f held out, falling in %.0f%% of "
            "%u random matches (%.0f ms)\n",
            ok ? "" : "no ", term_sym_name(g->ts, fn), ra, na, counter_range(k), h->corr[0],
            h->corr[1], h->end[0], h->end[1], 100 * h->fell, matches, ms);
}

heur_t *heur_counter(heur_t *h, engine_t *e, const eng_state_t *s0, double scale, double deadline,
                     FILE *log) {
    uint32_t nr = engine_game(e)->n_roles, n = 0, best = 0;
    counter_t *k[COUNTER_KINDS];
    if (h && h->counter) return h;
    if (nr >= 2 && nr <= MATERIAL_KINDS) /* a candidate per role and kind: within the bound */
        n = counters_find(
            e, s0, k, COUNTER_KINDS < MAX_CANDIDATES / nr ? COUNTER_KINDS : MAX_CANDIDATES / nr);
    if (!n) {
        if (log) fprintf(log, "heur: no counter (no fluent of a role's name and a number)\n");
        return h;
    }
    double t0 = now_seconds();
    heur_stats_t st = {0};
    kind_check_t chk[COUNTER_KINDS];
    bool ok = counter_pick(e, k, n, deadline, &best, chk, &st);
    if (log) log_counter(log, e, k[best], ok, &chk[best], st.matches, (now_seconds() - t0) * 1000);
    for (uint32_t q = 0; q < n; q++)
        if (!ok || q != best) counter_free(k[q]);
    if (!ok) return h;
    if (!h) {
        h = xcalloc(1, sizeof *h);
        h->nr = nr;
        h->scale = scale;
    }
    h->counter = k[best];
    h->counter_sign = chk[best].corr[0] < 0 ? -1 : 1;
    h->counter_unit = counter_range(k[best]) / 2;
    return h;
}

void heur_free(heur_t *h) {
    if (!h) return;
    for (uint32_t k = 0; k < h->n_feat; k++)
        free(h->feat[k].mask);
    free(h->feat);
    free(h->mean);
    free(h->sd);
    free(h->w);
    free(h->adv_mask);
    counter_free(h->counter);
    free(h);
}

void heur_eval(const heur_t *h, engine_t *e, const eng_state_t *s, double *val) {
    if (h->material || h->counter) {
        material_eval(h, s, val);
        return;
    }
    double z[MAX_USED];
    for (uint32_t k = 0; k < h->n_feat; k++)
        z[k] = (feature(&h->feat[k], e, s, h->n_words) - h->mean[k]) / h->sd[k];
    for (uint32_t r = 0; r < h->nr; r++) {
        const double *w = &h->w[(size_t)r * (h->n_feat + 1)];
        double v = w[0];
        for (uint32_t k = 0; k < h->n_feat; k++)
            v += w[k + 1] * z[k];
        val[r] = 100 * (v < 0 ? 0 : v > 1 ? 1 : v);
    }
}

double heur_match_length(const heur_t *h) {
    return h->length;
}

void heur_stats(const heur_t *h, heur_stats_t *out) {
    *out = h->st;
}
