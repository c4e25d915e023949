/* Lifted backward search: the turn-taking test, the N operator and the sequences. See
 * regress.h. */
#include "regress/regress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "regress/match.h"
#include "regress/mutex.h"
#include "regress/subsume.h"

#define SAMPLE_PLAYOUTS 64
#define SAMPLE_MAX 1500
#define SHAPE_SHARE 0.15   /* of the budget, at most, for sampling the game's shape */
#define SAMPLE_SHARE 0.1   /* of the time left, at most, for sampling states or moves */
#define MUTEX_SHARE 0.25   /* of the time left (or the budget), at most, for proving mutexes */
#define SCORE_WORK 3000000 /* disjuncts x samples scored at most */
#define CHUNKS 8
#define GROUND_MAX 32 /* N is ground over at most this many moves of the mover */

struct regress {
    game_t *g;
    engine_t *e;
    expand_t *x;
    regress_opts_t o;
    shape_t shape;
    uint32_t role; /* A */
    mutex_t *mutexes;
    uint32_t n_mutexes;
    bool mutexes_done;
    term_t *moves[2]; /* each role's moves, from `input` and sampled states (ground N) */
    uint32_t n_moves[2], cap_moves[2];
    bool moves_done, moves_from_input;
    match_state_t **samples; /* states of random matches, indexed for the matcher */
    uint32_t n_samples;
    state_t terms; /* a sampled state as terms */
    regress_step_t *steps[2];
    uint32_t n_steps[2], cap_steps[2];
    bool live[2]; /* regress_run: the sides still to be extended */
    double deadline;
    subsume_t *subs; /* implication tests between a formula's common conjunct and disjuncts */
    /* per mover, once known: the states where it can move out of ends_key (NULL: no
     * exact form) */
    form_t *ends[2];
    bool ends_known[2];
    strbuf_t ends_key[2];
};

void regress_default_opts(regress_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->budget = 10;
    o->max_size = 200000;
    o->max_depth = 4;
    o->use_mutexes = true;
    o->ground_moves = false;
}

/* ---------------- the turn-taking test ---------------- */

/* The shape test on the states of the sampled matches. Pass 0 finds each role's no-op
 * (its only move while the other role chooses); pass 1 checks the shape on the same
 * states (at most `limit` of them when pass 0 was cut short by its deadline). */
typedef struct {
    const game_t *g;
    shape_t *out;
    int pass;
    term_t noop[2];
    bool bad;
    uint64_t seen, limit;
} shape_walk_t;

static engine_walk_next_t shape_visit(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)ply;
    shape_walk_t *w = ctx;
    const term_store_t *ts = w->g->ts;
    shape_t *out = w->out;
    if (w->limit && w->seen >= w->limit) return ENGINE_WALK_STOP;
    w->seen++;
    const term_t *m[2];
    uint32_t n[2];
    term_t *copy[2];
    for (uint32_t k = 0; k < 2; k++) {
        n[k] = engine_legal(e, s, k, &m[k]);
        copy[k] = xmalloc((n[k] + 1) * sizeof *copy[k]);
        if (n[k]) memcpy(copy[k], m[k], n[k] * sizeof *copy[k]); /* (m[k] NULL when none) */
    }
    if (w->pass == 1) out->states++;
    for (uint32_t k = 0; k < 2 && !w->bad; k++) {
        uint32_t o = 1 - k;
        if (n[k] == 0) {
            snprintf(out->reason, sizeof out->reason,
                     "role %s has no legal move in a non-terminal state",
                     term_sym_name(ts, term_sym(ts, w->g->roles[k])));
            w->bad = true;
        } else if (w->pass == 0 && n[k] == 1 && n[o] > 1) {
            if (w->noop[k] == TERM_NONE)
                w->noop[k] = copy[k][0];
            else if (w->noop[k] != copy[k][0]) {
                snprintf(out->reason, sizeof out->reason,
                         "not turn-taking: role %s has more than one waiting move",
                         term_sym_name(ts, term_sym(ts, w->g->roles[k])));
                w->bad = true;
            }
        } else if (w->pass == 0 && n[k] > 1 && n[o] > 1) {
            snprintf(out->reason, sizeof out->reason,
                     "not turn-taking: both roles have a choice (%u and %u legal moves) "
                     "in the same state (simultaneous moves)",
                     n[0], n[1]);
            w->bad = true;
        }
    }
    if (w->pass == 1 && !w->bad) {
        bool waits[2];
        for (uint32_t k = 0; k < 2; k++)
            waits[k] = n[k] == 1 && copy[k][0] == w->noop[k];
        bool has_noop[2] = {false, false};
        for (uint32_t k = 0; k < 2; k++)
            for (uint32_t i = 0; i < n[k]; i++)
                if (copy[k][i] == w->noop[k]) has_noop[k] = true;
        if (waits[0] == waits[1] || (waits[0] && has_noop[1]) || (waits[1] && has_noop[0])) {
            snprintf(out->reason, sizeof out->reason, "not turn-taking: a state where %s",
                     waits[0] == waits[1] ? (waits[0] ? "both roles wait" : "no role waits")
                                          : "the mover may also play its no-op");
            w->bad = true;
        }
    }
    for (uint32_t k = 0; k < 2; k++)
        free(copy[k]);
    return w->bad ? ENGINE_WALK_STOP : ENGINE_WALK_ON;
}

/* Never seen waiting while the other role chose: the GDL convention, a `noop` legal
 * initially. False (with the reason) when there is none either. */
static bool conventional_noops(engine_t *e, shape_walk_t *w) {
    const game_t *g = w->g;
    term_store_t *ts = g->ts;
    for (uint32_t k = 0; k < 2; k++) {
        if (w->noop[k] == TERM_NONE) {
            term_t nm = term_const(ts, SYM_NOOP);
            eng_state_t *s0 = engine_state_new(e);
            engine_initial(e, s0);
            if (engine_is_legal(e, s0, k, nm) || engine_is_legal(e, s0, 1 - k, nm)) w->noop[k] = nm;
            engine_state_free(s0);
        }
        if (w->noop[k] == TERM_NONE) {
            snprintf(w->out->reason, sizeof w->out->reason,
                     "not turn-taking: role %s never waits with a single no-op move",
                     term_sym_name(ts, term_sym(ts, g->roles[k])));
            return false;
        }
    }
    return true;
}

void regress_shape(engine_t *e, uint32_t playouts, uint64_t seed, double deadline, shape_t *out) {
    memset(out, 0, sizeof *out);
    const game_t *g = engine_game(e);
    if (g->n_roles != 2) {
        snprintf(out->reason, sizeof out->reason,
                 "backward search needs two roles; the game has %u", g->n_roles);
        return;
    }
    if (g->gdl2) {
        snprintf(out->reason, sizeof out->reason, "GDL-II games (sees, random) are not supported");
        return;
    }
    shape_walk_t w = {.g = g, .out = out, .noop = {TERM_NONE, TERM_NONE}};
    /* With a deadline, pass 1 gets what pass 0 left and replays only the states pass 0 saw
     * (a slow engine samples fewer states rather than overrun the clock). */
    double now = now_seconds();
    engine_walk_t walk = {.matches = playouts,
                          .max_plies = 10000,
                          .deadline = deadline > 0 ? now + (deadline - now) / 2 : 0};
    splitmix_t rng = {seed};
    engine_walked_t first = engine_walk(e, &rng, &walk, shape_visit, &w);
    if (w.bad || !conventional_noops(e, &w)) return;
    w.pass = 1;
    w.seen = 0;
    w.limit = first.timed_out ? first.visits : 0;
    walk.deadline = deadline;
    rng.s = seed;
    engine_walk(e, &rng, &walk, shape_visit, &w);
    if (w.bad) return;
    out->supported = true;
    out->noop[0] = w.noop[0];
    out->noop[1] = w.noop[1];
}

/* ---------------- construction ---------------- */

regress_t *regress_new(engine_t *e, uint32_t role, const regress_opts_t *o, char *err,
                       size_t errlen) {
    game_t *g = engine_game(e);
    shape_t sh;
    regress_shape(e, 64, 0x5eed, o->budget > 0 ? now_seconds() + o->budget * SHAPE_SHARE : 0, &sh);
    if (engine_error(e)) { /* (its empty answers made the shape look wrong: say why) */
        snprintf(err, errlen, "the game cannot be reasoned about: %s", engine_error(e));
        return NULL;
    }
    if (!sh.supported) {
        snprintf(err, errlen, "unsupported by backward search: %s", sh.reason);
        return NULL;
    }
    if (role >= g->n_roles) {
        snprintf(err, errlen, "no role number %u", role);
        return NULL;
    }
    regress_t *rg = xcalloc(1, sizeof *rg);
    rg->g = g;
    rg->e = e;
    rg->o = *o;
    rg->shape = sh;
    rg->role = role;
    rg->x = expand_new(e);
    rg->subs = subsume_new(g->ts);
    sb_init(&rg->ends_key[0]);
    sb_init(&rg->ends_key[1]);
    expand_opts(rg->x)->max_depth = o->max_depth;
    return rg;
}

void regress_free(regress_t *rg) {
    if (!rg) return;
    for (int s = 0; s < 2; s++) {
        for (uint32_t i = 0; i < rg->n_steps[s]; i++)
            form_free(rg->steps[s][i].f);
        free(rg->steps[s]);
    }
    for (uint32_t i = 0; i < rg->n_samples; i++)
        match_state_free(rg->samples[i]);
    free(rg->moves[0]);
    free(rg->moves[1]);
    free(rg->samples);
    state_fini(&rg->terms);
    free(rg->mutexes);
    expand_free(rg->x);
    subsume_free(rg->subs);
    for (int k = 0; k < 2; k++) {
        form_free(rg->ends[k]);
        sb_fini(&rg->ends_key[k]);
    }
    free(rg);
}

const shape_t *regress_shape_of(const regress_t *rg) {
    return &rg->shape;
}
expand_t *regress_expander(regress_t *rg) {
    return rg->x;
}

const mutex_t *regress_mutexes(const regress_t *rg, uint32_t *n) {
    *n = rg->n_mutexes;
    return rg->mutexes;
}

uint32_t regress_prove_mutexes(regress_t *rg) {
    if (rg->mutexes_done) return rg->n_mutexes;
    rg->mutexes_done = true;
    double now = now_seconds(), deadline = 0;
    if (rg->deadline)
        deadline = now + (rg->deadline - now) * MUTEX_SHARE;
    else if (rg->o.budget > 0)
        deadline = now + rg->o.budget * MUTEX_SHARE;
    rg->n_mutexes = mutex_prove(rg->e, rg->shape.noop, deadline, &rg->mutexes, NULL);
    expand_set_mutexes(rg->x, rg->mutexes, rg->n_mutexes);
    return rg->n_mutexes;
}

/* ---------------- the movers' moves ---------------- */

static void add_move(regress_t *rg, uint32_t k, term_t m) {
    for (uint32_t i = 0; i < rg->n_moves[k]; i++)
        if (rg->moves[k][i] == m) return;
    if (rg->n_moves[k] == rg->cap_moves[k]) {
        rg->cap_moves[k] = rg->cap_moves[k] ? 2 * rg->cap_moves[k] : 16;
        rg->moves[k] = xrealloc(rg->moves[k], rg->cap_moves[k] * sizeof *rg->moves[k]);
    }
    rg->moves[k][rg->n_moves[k]++] = m;
}

/* When sampling must stop (0: never): a share of the time left before the deadline. */
static double sample_until(const regress_t *rg) {
    if (!rg->deadline) return 0;
    double now = now_seconds();
    return now + (rg->deadline - now) * SAMPLE_SHARE;
}

/* Every legal move of a sampled state is a move of its role. */
static engine_walk_next_t moves_visit(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)ply;
    regress_t *rg = ctx;
    for (uint32_t k = 0; k < 2; k++) {
        const term_t *m;
        uint32_t n = engine_legal(e, s, k, &m);
        term_t *copy = xmalloc((n + 1) * sizeof *copy);
        memcpy(copy, m, n * sizeof *copy);
        for (uint32_t i = 0; i < n; i++)
            add_move(rg, k, copy[i]);
        free(copy);
    }
    return ENGINE_WALK_ON;
}

/* Each role's ground moves: the game's static `input` relation when it has one, and the
 * legal moves met in random matches. Used to ground N over the mover's moves; the forall
 * form adds "no other move is legal", so an incomplete set only costs states. */
static void collect_moves(regress_t *rg) {
    if (rg->moves_done) return;
    rg->moves_done = true;
    game_t *g = rg->g;
    term_store_t *ts = g->ts;
    sym_t in = term_intern(ts, "input", 5);
    for (uint32_t p = 0; p < g->n_preds; p++) {
        if (g->preds[p].sym != in || g->preds[p].arity != 2 || g->preds[p].layer != LAYER_STATIC)
            continue;
        const term_t *tu;
        uint32_t n = engine_query(rg->e, NULL, NULL, p, &tu);
        term_t *copy = xmalloc((2 * (size_t)n + 1) * sizeof *copy);
        memcpy(copy, tu, 2 * (size_t)n * sizeof *copy);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < 2; k++)
                if (copy[2 * i] == g->roles[k] && term_is_ground(ts, copy[2 * i + 1]))
                    add_move(rg, k, copy[2 * i + 1]);
        free(copy);
        rg->moves_from_input = rg->n_moves[0] && rg->n_moves[1];
    }
    splitmix_t rng = {0x3a7e5};
    engine_walk_t w = {.matches = SAMPLE_PLAYOUTS, .max_plies = 1000, .deadline = sample_until(rg)};
    engine_walk(rg->e, &rng, &w, moves_visit, rg);
}

/* The mover's moves when N is to be ground over them (few enough), else 0. */
static uint32_t ground_moves(regress_t *rg, uint32_t p, const term_t **out) {
    if (!rg->o.ground_moves) return 0;
    collect_moves(rg);
    *out = rg->moves[p];
    return rg->n_moves[p] <= GROUND_MAX ? rg->n_moves[p] : 0;
}

/* ---------------- N ---------------- */

static void nextify_scope(term_store_t *ts, fconj_t *c) {
    for (uint32_t i = 0; i < c->n; i++) {
        flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT) {
            nextify_scope(ts, l->sub);
            continue;
        }
        if (l->kind != FL_TRUE && l->kind != FL_NTRUE) continue;
        l->a = term_fun(ts, SYM_NEXT, &l->a, 1);
        l->kind = l->kind == FL_TRUE ? FL_ATOM : FL_NATOM;
        l->gen = 0;
        l->depth = 0;
    }
}

form_t *form_nextify(term_store_t *ts, const form_t *f) {
    form_t *r = form_copy(f);
    for (uint32_t i = 0; i < r->n; i++)
        nextify_scope(ts, r->d[i]);
    if (r->common) nextify_scope(ts, r->common);
    return r;
}

static term_t mk2(term_store_t *ts, sym_t f, term_t a, term_t b) {
    term_t args[2] = {a, b};
    return term_fun(ts, f, args, 2);
}

/* The literals saying "p moves": the state is not terminal, q's only legal move is
 * noop_q, p's no-op is not legal. Ground at the top level (the alternative move of q is
 * quantified inside its negation), so they can be the formula's common conjunct. */
static fconj_t *turn(regress_t *rg, uint32_t p, uint32_t q) {
    term_store_t *ts = rg->g->ts;
    term_t rp = rg->g->roles[p], rq = rg->g->roles[q];
    term_t nq = rg->shape.noop[q], np = rg->shape.noop[p];
    fconj_t *D = fconj_new();
    fconj_add(D, FL_NATOM, term_const(ts, SYM_TERMINAL), TERM_NONE);
    fconj_add(D, FL_ATOM, mk2(ts, SYM_LEGAL, rq, nq), TERM_NONE);
    fconj_add(D, FL_NATOM, mk2(ts, SYM_LEGAL, rp, np), TERM_NONE);
    fconj_t *other = fconj_new();
    term_t v = term_var(ts, 0);
    fconj_add(other, FL_ATOM, mk2(ts, SYM_LEGAL, rq, v), TERM_NONE);
    fconj_add(other, FL_DIST, v, nq);
    fconj_add_not(D, other);
    D->nv = 1;
    return D;
}

/* The literals of c appended to d (c's variables moved above d's first). */
static void append_scope(term_store_t *ts, fconj_t *d, const fconj_t *c) {
    fconj_t *cc = fconj_copy(c);
    uint32_t off = fconj_var_bound(ts, d);
    fconj_shift(ts, cc, off);
    for (uint32_t i = 0; i < cc->n; i++)
        fconj_push(d, cc->lits[i]);
    cc->n = 0;
    fconj_free(cc);
}

/* One disjunct of the exists form: D (variables above 0) with the move m of p. */
static fconj_t *exists_disjunct(regress_t *rg, const fconj_t *d, const fconj_t *common, uint32_t p,
                                term_t m) {
    term_store_t *ts = rg->g->ts;
    uint32_t q = 1 - p;
    fconj_t *c = fconj_copy(d);
    if (common) append_scope(ts, c, common);
    fconj_add(c, FL_ATOM, mk2(ts, SYM_LEGAL, rg->g->roles[p], m), TERM_NONE);
    fconj_add(c, FL_MOVE, rg->g->roles[p], m);
    fconj_add(c, FL_MOVE, rg->g->roles[q], rg->shape.noop[q]);
    return c;
}

/* not exists b (legal(p, b) and not d_1 and ... and not d_n) for the move b = m (a
 * variable, ?0, or ground), the d_k renumbered above *next_var. */
static fconj_t *forall_scope(regress_t *rg, fconj_t *const *ds, uint32_t n, uint32_t p, term_t m,
                             uint32_t *next_var) {
    term_store_t *ts = rg->g->ts;
    fconj_t *all = fconj_new();
    fconj_add(all, FL_ATOM, mk2(ts, SYM_LEGAL, rg->g->roles[p], m), TERM_NONE);
    fconj_add(all, FL_MOVE, rg->g->roles[p], m);
    for (uint32_t i = 0; i < n; i++) {
        fconj_t *d = fconj_copy(ds[i]);
        fconj_canon_vars(ts, d);
        uint32_t nv = d->nv;
        fconj_shift(ts, d, *next_var);
        *next_var += nv;
        fconj_add_not(all, d);
    }
    return all;
}

/* ---------------- what every disjunct already implies ---------------- */

/* Does P map into the targets, its direct variables outside `fixed` being the pattern? */
static bool maps_into(regress_t *rg, const fconj_t *P, const uint8_t *fixed,
                      const fconj_t *const *T, uint32_t nt, uint32_t cap) {
    uint8_t *pv = xcalloc(cap, 1);
    fconj_mark_vars(rg->g->ts, P, pv);
    for (uint32_t v = 0; v < cap; v++)
        if (fixed && fixed[v]) pv[v] = 0;
    subsume_set_cap(rg->subs, cap);
    bool ok = subsume_conj(rg->subs, P, pv, T, nt);
    free(pv);
    return ok;
}

/* Whether disjunct D implies NOT(S) (S's variables numbered above D's), by one of two
 * sufficient tests: a negation NOT(S2) of D whose conjunction S entails (S2 maps into S
 * and D), or a conjunct NOT(A) of S, closed within A, whose conjunction D entails. */
static bool implies_not(regress_t *rg, const fconj_t *D, const fconj_t *S, uint32_t cap) {
    const term_store_t *ts = rg->g->ts;
    uint8_t *fixed = xcalloc(cap, 1);
    fconj_mark_vars(ts, D, fixed);
    bool yes = false;
    const fconj_t *SD[2] = {S, D};
    for (uint32_t i = 0; i < D->n && !yes; i++)
        if (D->lits[i].kind == FL_NOT) yes = maps_into(rg, D->lits[i].sub, fixed, SD, 2, cap);
    uint8_t *own = xcalloc(cap, 1);
    fconj_mark_vars(ts, S, own);
    for (uint32_t i = 0; i < S->n && !yes; i++) {
        const flit_t *l = &S->lits[i];
        if (l->kind == FL_NOT) {
            if (!fconj_mentions(ts, l->sub, own)) yes = maps_into(rg, l->sub, NULL, &D, 1, cap);
        } else if (!flit_mentions(ts, l, own)) {
            for (uint32_t j = 0; j < D->n && !yes; j++)
                yes = flit_contradicts(l, &D->lits[j]);
        }
    }
    free(own);
    free(fixed);
    return yes;
}

/* Whether disjunct d implies literal l of the common conjunct. */
static bool implies_lit(regress_t *rg, const fconj_t *d, const flit_t *l) {
    term_store_t *ts = rg->g->ts;
    if (l->kind != FL_NOT) {
        for (uint32_t j = 0; j < d->n; j++)
            if (flit_same(l, &d->lits[j])) return true;
        return false;
    }
    uint32_t off = fconj_var_bound(ts, d);
    fconj_t *S = fconj_copy(l->sub);
    fconj_shift(ts, S, off);
    uint32_t cap = fconj_var_bound(ts, S) + 1;
    if (cap <= off) cap = off + 1;
    bool yes = implies_not(rg, d, S, cap);
    fconj_free(S);
    return yes;
}

/* forall_scope for the move variable, or once per ground move, negated into D. */
static void add_forall(regress_t *rg, fconj_t *D, fconj_t *const *ds, uint32_t n, uint32_t p,
                       uint32_t ng, const term_t *gm, uint32_t *next_var) {
    if (!ng) fconj_add_not(D, forall_scope(rg, ds, n, p, term_var(rg->g->ts, 0), next_var));
    for (uint32_t k = 0; k < ng; k++)
        fconj_add_not(D, forall_scope(rg, ds, n, p, gm[k], next_var));
}

/* Whether every disjunct of f implies l. */
static bool all_imply(regress_t *rg, const form_t *f, const flit_t *l) {
    for (uint32_t j = 0; j < f->n; j++)
        if (!implies_lit(rg, f->d[j], l)) return false;
    return f->n > 0;
}

/* f's common conjunct less the literals every disjunct implies (NULL: nothing left): in
 * the forall form they need no separate check, since every move must lead into some
 * disjunct anyway (in connect four: "the board is not full", implied by the landing row
 * of every threat). */
static fconj_t *kept_common(regress_t *rg, const form_t *f) {
    fconj_t *c = fconj_new();
    for (uint32_t i = 0; i < f->common->n; i++) {
        flit_t l = f->common->lits[i];
        if (all_imply(rg, f, &l)) continue;
        if (l.kind == FL_NOT) l.sub = fconj_copy(l.sub);
        fconj_push(c, l);
    }
    if (!c->n) fconj_free(c), c = NULL;
    return c;
}

/* The negation of c as a formula: one disjunct per literal (NULL when a literal has no
 * complement at the top level). */
static form_t *negation(const fconj_t *c) {
    form_t *F = form_new();
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        int k = flit_complement(l->kind);
        if (l->kind == FL_NOT) {
            form_push(F, fconj_copy(l->sub));
        } else if (l->kind == FL_TRUE || l->kind == FL_NTRUE || l->kind == FL_ATOM ||
                   l->kind == FL_NATOM) {
            fconj_t *d = fconj_new();
            flit_t m = *l;
            m.kind = (uint8_t)k;
            fconj_push(d, m);
            form_push(F, d);
        } else {
            form_free(F);
            return NULL;
        }
    }
    return F;
}

/* E = the states where p can move out of c: ∃b (legal(p, b) ∧ ¬c'(b)), by the exists
 * form of N on the negation of c, cached per mover and c. NULL when it is not exact
 * (a bound, cap or missing move cut it: its negation would then say too much) or time
 * ran out (*timed_out). */
static const form_t *ending_moves(regress_t *rg, const fconj_t *c, uint32_t p, bool *timed_out) {
    strbuf_t key;
    sb_init(&key);
    fconj_print(rg->g->ts, c, &key);
    if (rg->ends_known[p] && !strcmp(sb_str(&rg->ends_key[p]), sb_str(&key))) {
        sb_fini(&key);
        return rg->ends[p];
    }
    form_t *F = negation(c);
    form_t *E = F ? regress_N(rg, F, p, true) : NULL;
    form_free(F);
    *timed_out = F && !E;
    if (!*timed_out) { /* an inexact answer is remembered too: it would be again */
        if (E && !E->complete) form_free(E), E = NULL;
        form_free(rg->ends[p]);
        rg->ends[p] = E;
        rg->ends_known[p] = true;
        sb_clear(&rg->ends_key[p]);
        sb_puts(&rg->ends_key[p], sb_str(&key));
    }
    sb_fini(&key);
    return E;
}

/* Adds to D (the forall form's disjunct) "no move of p leaves f's common conjunct":
 * ¬E_1 ∧ … ∧ ¬E_k for the disjuncts of ending_moves, a flat form (E's disjuncts are
 * those of an exists step), or, when that is not exact, the nested form
 * ¬∃b (legal(p, b) ∧ ¬common'). The literals every disjunct of f implies are left out.
 * False when time ran out. */
static bool no_ending(regress_t *rg, fconj_t *D, const form_t *f, uint32_t p, uint32_t ng,
                      const term_t *gm, uint32_t *next_var) {
    term_store_t *ts = rg->g->ts;
    fconj_t *c = kept_common(rg, f);
    if (!c) return true;
    bool timed_out = false;
    const form_t *E = ending_moves(rg, c, p, &timed_out);
    if (timed_out) {
        fconj_free(c);
        return false;
    }
    if (E) {
        for (uint32_t k = 0; k < E->n; k++) {
            fconj_t *e = fconj_copy(E->d[k]);
            fconj_canon_vars(ts, e);
            uint32_t nv = e->nv;
            fconj_shift(ts, e, *next_var);
            *next_var += nv;
            fconj_add_not(D, e);
        }
    } else {
        form_t one = {.d = NULL, .n = 0, .common = c};
        form_t *cn = form_nextify(ts, &one);
        add_forall(rg, D, &cn->common, 1, p, ng, gm, next_var);
        form_free(cn);
    }
    fconj_free(c);
    return true;
}

/* The move literal m of the mover p: ?0 lifted. With ground moves (few enough, known):
 * one copy per move, which lets unification with the move decide most `does` at once
 * instead of carrying `= ?m` constraints through every nested scope. The forall form
 * then also says that no other move is legal. */
form_t *regress_N(regress_t *rg, const form_t *f, uint32_t mover, bool exists) {
    term_store_t *ts = rg->g->ts;
    uint32_t p = mover, q = 1 - mover;
    term_t rp = rg->g->roles[p];
    const term_t *gm = NULL;
    uint32_t ng = ground_moves(rg, p, &gm);
    term_t v0 = term_var(ts, 0);
    form_t *phi = form_nextify(ts, f);
    form_t *in = form_new();
    in->complete = f->complete && (exists ? !ng || rg->moves_from_input : true);
    in->common = turn(rg, p, q);
    if (exists) {
        /* ∃m: legal(p, m) ∧ common' ∧ D_j'  for each disjunct; ?0 = m */
        for (uint32_t i = 0; i < phi->n; i++) {
            fconj_t *d = phi->d[i];
            fconj_canon_vars(ts, d);
            fconj_shift(ts, d, 1);
            if (!ng) form_push(in, exists_disjunct(rg, d, phi->common, p, v0));
            for (uint32_t k = 0; k < ng; k++)
                form_push(in, exists_disjunct(rg, d, phi->common, p, gm[k]));
        }
    } else {
        /* ∀b: legal(p, b) → common' ∧ ∨_j D_j', as
         *   ¬∃b (legal(p, b) ∧ ¬common')  ∧  ¬∃b (legal(p, b) ∧ ∧_j ¬D_j'); ?0 = b */
        fconj_t *D = fconj_new();
        fconj_add(D, FL_MOVE, rg->g->roles[q], rg->shape.noop[q]);
        uint32_t next_var = 1;
        if (f->common && !no_ending(rg, D, f, p, ng, gm, &next_var)) {
            fconj_free(D);
            form_free(phi);
            form_free(in);
            return NULL;
        }
        add_forall(rg, D, phi->d, phi->n, p, ng, gm, &next_var);
        if (ng) {
            /* no legal move outside the known ones */
            fconj_t *other = fconj_new();
            fconj_add(other, FL_ATOM, mk2(ts, SYM_LEGAL, rp, v0), TERM_NONE);
            for (uint32_t k = 0; k < ng; k++)
                fconj_add(other, FL_DIST, v0, gm[k]);
            fconj_add_not(D, other);
        }
        form_push(in, D);
    }
    form_free(phi);
    for (uint32_t i = 0; i < in->n; i++)
        in->d[i]->nv = fconj_var_bound(ts, in->d[i]);
    expand_bind_does(rg->x, true);
    form_t *out = expand_form(rg->x, in);
    expand_bind_does(rg->x, false);
    form_free(in);
    return out;
}

/* ---------------- the sequences ---------------- */

/* The deepest term of a conjunction's literals, negated scopes included. */
static uint32_t fconj_deepest(const term_store_t *ts, const fconj_t *c) {
    uint32_t d = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        if (l->a) d = term_depth(ts, l->a) > d ? term_depth(ts, l->a) : d;
        if (l->b) d = term_depth(ts, l->b) > d ? term_depth(ts, l->b) : d;
        uint32_t sub = l->sub ? fconj_deepest(ts, l->sub) : 0;
        if (sub > d) d = sub;
    }
    return d;
}

static bool form_too_deep(const term_store_t *ts, const form_t *f) {
    if (f->common && f->n && fconj_deepest(ts, f->common) > TERM_MAX_DEPTH) return true;
    for (uint32_t i = 0; i < f->n; i++)
        if (fconj_deepest(ts, f->d[i]) > TERM_MAX_DEPTH) return true;
    return false;
}

static void push_step(regress_t *rg, int side, form_t *f, double secs) {
    if (rg->n_steps[side] == rg->cap_steps[side]) {
        rg->cap_steps[side] = rg->cap_steps[side] ? 2 * rg->cap_steps[side] : 16;
        rg->steps[side] = xrealloc(rg->steps[side], rg->cap_steps[side] * sizeof *rg->steps[side]);
    }
    regress_step_t *st = &rg->steps[side][rg->n_steps[side]++];
    st->f = f;
    st->seconds = secs;
    st->disjuncts = f->n;
    st->literals = form_literals(f);
    st->complete = f->complete;
    st->too_deep = form_too_deep(rg->g->ts, f);
    if (st->too_deep) rg->live[side] = false;
}

static form_t *win_formula(regress_t *rg, uint32_t role) {
    term_store_t *ts = rg->g->ts;
    form_t *f = form_new();
    fconj_t *c = fconj_new();
    fconj_add(c, FL_ATOM, term_const(ts, SYM_TERMINAL), TERM_NONE);
    fconj_add(c, FL_ATOM,
              mk2(ts, SYM_GOAL, rg->g->roles[role], term_const(ts, term_intern(ts, "100", 3))),
              TERM_NONE);
    form_push(f, c);
    return f;
}

uint32_t regress_count(const regress_t *rg, int side) {
    return rg->n_steps[side];
}

void regress_stop(regress_t *rg, int side) {
    rg->live[side] = false;
}

const regress_step_t *regress_step(const regress_t *rg, int side, uint32_t i) {
    return i < rg->n_steps[side] ? &rg->steps[side][i] : NULL;
}

/* ---------------- which parts of a formula matter ---------------- */

/* States of seeded random matches: a disjunct that holds in more of them is worth more
 * when a cap must cut (the formula stays non-trivial where play actually goes). */
static void sample_states(regress_t *rg) {
    if (rg->n_samples) return;
    rg->samples = xcalloc(SAMPLE_MAX, sizeof *rg->samples);
    eng_state_t **es = xmalloc(SAMPLE_MAX * sizeof *es);
    splitmix_t rng = {0x5a3b1e};
    engine_walk_t w = {.matches = SAMPLE_PLAYOUTS,
                       .max_plies = 1000,
                       .deadline = sample_until(rg),
                       .terminal = true};
    uint32_t n = engine_sample(rg->e, &rng, &w, es, SAMPLE_MAX);
    for (uint32_t k = 0; k < n; k++) {
        engine_state_terms(rg->e, es[k], &rg->terms);
        rg->samples[k] = match_state_new();
        match_state_set(rg->samples[k], rg->g->ts, &rg->terms);
        engine_state_free(es[k]);
    }
    rg->n_samples = n;
    free(es);
}

/* Sampled states satisfying disjunct d alone (the common conjunct is everyone's). */
static uint32_t sample_hits(regress_t *rg, fconj_t *d) {
    fconj_t *one[1] = {d};
    form_t f = {.d = one, .n = 1, .cap = 1, .complete = true};
    match_t *m = match_new(rg->g->ts, &f);
    if (!m) return 0;
    uint32_t h = 0;
    for (uint32_t i = 0; i < rg->n_samples; i++)
        h += match_eval(m, rg->samples[i]);
    match_free(m);
    return h;
}

typedef struct {
    fconj_t *d;
    uint32_t hits;
    uint64_t size;
} ranked_t;

static int by_value(const void *a, const void *b) {
    const ranked_t *p = a, *q = b;
    if (p->hits != q->hits) return p->hits > q->hits ? -1 : 1;
    return p->size < q->size ? -1 : p->size > q->size;
}

/* Reorders f's disjuncts, most valuable first: most sampled states hit, then smallest. */
static void order_by_value(regress_t *rg, form_t *f) {
    if (f->n < 2) return;
    sample_states(rg);
    bool score = (uint64_t)f->n * rg->n_samples <= SCORE_WORK;
    ranked_t *r = xmalloc(f->n * sizeof *r);
    for (uint32_t i = 0; i < f->n; i++) {
        r[i].d = f->d[i];
        r[i].hits = score ? sample_hits(rg, f->d[i]) : 0;
        r[i].size = fconj_size(f->d[i]);
    }
    qsort(r, f->n, sizeof *r, by_value);
    for (uint32_t i = 0; i < f->n; i++)
        f->d[i] = r[i].d;
    free(r);
}

/* Cuts f (ordered by value) to at most max literals: the least valuable disjuncts go
 * first; a single one left over the cap loses negated scopes inside negated scopes
 * (form_shrink). Sound: f describes fewer states. Returns whether it shrank. */
static bool shrink_ordered(form_t *f, uint64_t max) {
    uint64_t size = form_literals(f);
    if (size <= max) return false;
    while (f->n > 1 && size > max) {
        size -= fconj_size(f->d[f->n - 1]);
        fconj_free(f->d[--f->n]);
    }
    if (size > max) form_shrink(f, max);
    f->complete = false;
    return true;
}

/* The time a step may take: what is left, shared between the sides still to be done in
 * this round. Generous on purpose: each step builds on the one before, and a step cut
 * short mostly yields a formula that holds nowhere in play, while an exact one is worth
 * having; later steps get whatever the earlier ones did not use. */
static double slice_end(const regress_t *rg, int side, const bool *live) {
    if (!rg->deadline) return 0;
    double now = now_seconds(), left = rg->deadline - now;
    uint32_t parts = side == 0 && live[1] ? 2 : 1;
    return now + left / parts;
}

/* The size cap on a finished step, keeping the most valuable disjuncts. */
static void cap(regress_t *rg, form_t *f) {
    if (!rg->o.max_size || form_literals(f) <= rg->o.max_size) return;
    if (rg->deadline) order_by_value(rg, f);
    shrink_ordered(f, rg->o.max_size);
}

/* One form holding the common conjunct of f and the disjuncts [from, to) (copies). */
static form_t *sub_form(const form_t *f, uint32_t from, uint32_t to) {
    form_t *r = form_new();
    r->complete = f->complete;
    if (f->common) r->common = fconj_copy(f->common);
    for (uint32_t i = from; i < to; i++)
        form_push(r, fconj_copy(f->d[i]));
    return r;
}

static bool same_common(const term_store_t *ts, const fconj_t *a, const fconj_t *b) {
    if (!a || !b) return a == b;
    strbuf_t x, y;
    sb_init(&x);
    sb_init(&y);
    fconj_print(ts, a, &x);
    fconj_print(ts, b, &y);
    bool same = !strcmp(sb_str(&x), sb_str(&y));
    sb_fini(&x);
    sb_fini(&y);
    return same;
}

/* Adds the disjuncts of r (consumed) to acc; false when their common conjuncts differ
 * (r is then dropped: sound, fewer states). */
static bool merge(const term_store_t *ts, form_t *acc, form_t *r) {
    if (!r->n) {
        acc->complete &= r->complete;
        form_free(r);
        return true;
    }
    if (!acc->n && !acc->common) {
        acc->common = r->common;
        r->common = NULL;
    } else if (!same_common(ts, acc->common, r->common)) {
        form_free(r);
        return false;
    }
    for (uint32_t i = 0; i < r->n; i++)
        form_push(acc, r->d[i]);
    acc->complete &= r->complete;
    r->n = 0;
    form_free(r);
    return true;
}

/* The exists form of N distributes over disjunctions: it is applied to the disjuncts of
 * `in` a group of `chunk` at a time, most valuable first, and what is done when the time
 * runs out is kept (fewer disjuncts: sound, incomplete). NULL when not even the first
 * group finished. */
static form_t *exists_groups(regress_t *rg, const form_t *in, uint32_t mover, uint32_t chunk,
                             double end) {
    expand_opts_t *xo = expand_opts(rg->x);
    form_t *acc = form_new();
    acc->complete = in->complete;
    bool any = false;
    for (uint32_t k = 0; k < in->n; k += chunk) {
        uint32_t to = k + chunk < in->n ? k + chunk : in->n;
        form_t *sub = sub_form(in, k, to);
        xo->deadline = end;
        form_t *r = regress_N(rg, sub, mover, true);
        form_free(sub);
        if (!r) {
            acc->complete = false;
            break;
        }
        any = true;
        if (!merge(rg->g->ts, acc, r)) acc->complete = false;
    }
    if (!any) {
        form_free(acc);
        return NULL;
    }
    if (acc->n > 1) {
        xo->deadline = rg->deadline;
        expand_subsume(rg->x, acc);
    }
    if (!acc->n) {
        FREE_AND_NULL(fconj_free, acc->common);
    }
    return acc;
}

/* N of input within the slice ending at end; NULL when it ran out of time. */
static form_t *attempt(regress_t *rg, const form_t *input, uint32_t mover, bool exists,
                       double end) {
    if (exists && input->n > 1) return exists_groups(rg, input, mover, input->n / CHUNKS + 1, end);
    expand_opts(rg->x)->deadline = end;
    return regress_N(rg, input, mover, exists);
}

/* One step: N of prev within the time slice ending at end (the exists form keeps the
 * chunks it finished). Past the slice the step is false and incomplete: N of a part of
 * prev (fewer disjuncts, or a cut disjunct) was tried as a fallback and mostly gave a
 * formula that holds nowhere in play, so the time goes to the whole. NULL when the whole
 * budget is spent. */
static form_t *step(regress_t *rg, const form_t *prev, uint32_t mover, bool exists, double end) {
    if (!prev->n) {
        /* N(false) = false: a non-terminal state where the mover has no legal move does
         * not occur in a valid game. */
        form_t *f = form_new();
        f->complete = prev->complete;
        return f;
    }
    if (!rg->deadline) return attempt(rg, prev, mover, exists, 0);
    form_t *ordered = form_copy(prev);
    order_by_value(rg, ordered);
    form_t *f = attempt(rg, ordered, mover, exists, end);
    form_free(ordered);
    if (!f && now_seconds() < rg->deadline) {
        f = form_new();
        f->complete = false;
    }
    return f;
}

bool regress_run(regress_t *rg, regress_cb cb, void *ctx) {
    double start = now_seconds();
    rg->live[0] = rg->live[1] = true;
    rg->deadline = rg->o.budget > 0 ? start + rg->o.budget : 0;
    expand_opts_t *xo = expand_opts(rg->x);
    /* a safety net against blow-ups inside one expansion; the real cap is the shrinking */
    xo->max_literals = rg->o.max_size ? rg->o.max_size * 64 : 0;
    if (rg->o.use_mutexes) regress_prove_mutexes(rg);
    uint32_t owner[2] = {rg->role, 1 - rg->role};
    for (int side = 0; side < 2; side++) {
        double t0 = now_seconds();
        xo->deadline = rg->deadline;
        form_t *w = win_formula(rg, owner[side]);
        form_t *f = expand_form(rg->x, w);
        form_free(w);
        if (!f) return false;
        cap(rg, f);
        push_step(rg, side, f, now_seconds() - t0);
        if (cb) cb(ctx, side, 0, &rg->steps[side][0]);
    }
    bool *live = rg->live;
    for (uint32_t i = 1; !rg->o.max_steps || i <= rg->o.max_steps; i++) {
        for (int side = 0; side < 2; side++) {
            if (!live[side]) continue;
            const form_t *prev = rg->steps[side][i - 1].f;
            bool odd = i % 2 == 1;
            uint32_t mover = odd ? owner[side] : 1 - owner[side];
            double t0 = now_seconds();
            form_t *f = step(rg, prev, mover, odd, slice_end(rg, side, live));
            if (!f) return false; /* out of time: the step is discarded */
            cap(rg, f);
            push_step(rg, side, f, now_seconds() - t0);
            if (cb) cb(ctx, side, i, &rg->steps[side][i]);
            if (f->n == 0) live[side] = false; /* false from here on */
        }
        if (!live[0] && !live[1]) return true;
    }
    return true;
}
