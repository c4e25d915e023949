/* Subsumption between lifted conjunctions: see subsume.h.
 *
 * Backtracking over P's literals: those without pattern variables first (an identity
 * test each), then binding literals (true, does, atoms) against the target literals of
 * the same kind and functor, then the other checks, then negated scopes once every
 * pattern variable is bound. Comparing negated scopes recurses with the roles swapped;
 * the substitutions of the enclosing levels are applied lazily, one scope's own literals
 * at a time (a "view"), never by copying whole subtrees. */
#include "regress/subsume.h"
#include "base/hash.h"
#include "gdl/bind.h"

#include <stdlib.h>
#include <string.h>

#define SUBSUME_BUDGET 20000u
#define MAX_LEVELS 16

/* Substitutions of the enclosing levels: disjoint domains, values closed terms. */
typedef struct {
    const term_t *maps[MAX_LEVELS];
    uint32_t n;
} chain_t;

/* A scope's own literals with a chain applied. */
typedef struct {
    const fconj_t *scope;
    const flit_t *lits;
    flit_t *owned; /* lits when materialised here */
    uint32_t n;
    chain_t chain;
    /* per literal, the signature of a negated scope (0 for others): made on first need,
     * freed with the view unless kept in *keep (a shared target's, which outlives it) */
    uint64_t *sigs, **keep;
} view_t;

/* Per nesting level: reusable buffers sized cap. */
typedef struct {
    bind_t b;
    uint8_t *pv;
    uint64_t *tv; /* stamps: variables of the level's targets (own literals) */
    uint32_t cap;
} level_t;

struct subsume {
    term_store_t *ts;
    uint64_t steps;
    uint64_t stamp, shared_stamp; /* the last stamp handed out; subsume_share's */
    const fconj_t *const *shared; /* subsume_share's targets */
    uint32_t n_shared, cap_shared;
    uint64_t **shared_sigs; /* their view_sigs, once made */
    uint32_t cap;           /* bound on variable numbers */
    level_t lv[MAX_LEVELS];
    int depth;
};

subsume_t *subsume_new(term_store_t *ts) {
    subsume_t *s = xcalloc(1, sizeof *s);
    s->ts = ts;
    return s;
}

static void drop_shared(subsume_t *s) {
    for (uint32_t k = 0; k < s->n_shared; k++) {
        FREE_AND_NULL(free, s->shared_sigs[k]);
    }
    s->n_shared = 0;
}

void subsume_free(subsume_t *s) {
    if (!s) return;
    drop_shared(s);
    free(s->shared_sigs);
    for (int i = 0; i < MAX_LEVELS; i++) {
        bind_fini(&s->lv[i].b);
        free(s->lv[i].pv);
        free(s->lv[i].tv);
    }
    free(s);
}

void subsume_set_cap(subsume_t *s, uint32_t cap) {
    s->cap = cap;
}

static level_t *level(subsume_t *s, int d) {
    level_t *l = &s->lv[d];
    if (l->cap < s->cap) {
        bind_reserve(&l->b, s->cap);
        l->pv = xrealloc(l->pv, s->cap);
        l->tv = xrealloc(l->tv, s->cap * sizeof *l->tv);
        for (uint32_t v = l->cap; v < s->cap; v++) {
            l->pv[v] = 0;
            l->tv[v] = 0;
        }
        l->cap = s->cap;
    }
    return l;
}

/* A fresh stamp for marking target variables (64 bits: never wraps). */
static uint64_t next_stamp(subsume_t *s) {
    return ++s->stamp;
}

/* ---- signatures ---- */

static uint32_t lit_key(const term_store_t *ts, const flit_t *l) {
    term_t t = l->a;
    uint32_t f = 0;
    if (l->kind == FL_TRUE || l->kind == FL_NTRUE || l->kind == FL_ATOM || l->kind == FL_NATOM)
        f = term_is_var(ts, t) ? 0 : term_sym(ts, t) * 31u + term_arity(ts, t);
    else if (l->kind == FL_DOES || l->kind == FL_NDOES)
        f = term_is_var(ts, l->b) ? 0 : term_sym(ts, l->b) * 31u + term_arity(ts, l->b);
    return hash_mix(l->kind, f);
}

uint64_t fconj_sig(const term_store_t *ts, const fconj_t *c) {
    uint64_t s = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT || l->kind == FL_DIST || l->kind == FL_EQ) {
            s |= 1ull << (l->kind * 7 % 64);
            continue;
        }
        s |= 1ull << (lit_key(ts, l) % 64);
    }
    return s;
}

void fconj_bloom(const term_store_t *ts, const fconj_t *c, uint64_t out[4]) {
    out[0] = out[1] = out[2] = out[3] = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT || (l->a && !term_is_ground(ts, l->a)) ||
            (l->b && !term_is_ground(ts, l->b)))
            continue;
        term_t a = l->a, b = l->b;
        if ((l->kind == FL_DIST || l->kind == FL_EQ) && a > b) a = l->b, b = l->a;
        uint32_t h = hash_mix(hash_mix(l->kind * 0x9e3779b1u, a), b);
        h = hash_mix(h, h >> 16);
        out[(h >> 6) & 3] |= 1ull << (h & 63);
    }
}

/* ---- views ---- */

static term_t chain_subst(term_store_t *ts, term_t t, const chain_t *c) {
    return c->n ? term_subst_chain(ts, t, c->maps, c->n) : t;
}

static void view_init(term_store_t *ts, view_t *v, const fconj_t *scope, const chain_t *chain) {
    v->scope = scope;
    v->n = scope->n;
    v->chain = *chain;
    v->owned = NULL;
    v->sigs = NULL;
    v->keep = NULL;
    if (!chain->n) {
        v->lits = scope->lits;
        return;
    }
    v->owned = xmalloc((scope->n + 1) * sizeof *v->owned);
    for (uint32_t i = 0; i < scope->n; i++) {
        flit_t l = scope->lits[i];
        if (l.kind != FL_NOT) {
            if (l.a) l.a = chain_subst(ts, l.a, chain);
            if (l.b) l.b = chain_subst(ts, l.b, chain);
        }
        v->owned[i] = l;
    }
    v->lits = v->owned;
}

static void view_fini(view_t *v) {
    if (!v->keep) free(v->sigs);
    free(v->owned);
}

static const uint64_t *view_sigs(const term_store_t *ts, view_t *v) {
    if (v->sigs) return v->sigs;
    v->sigs = xmalloc((v->n + 1) * sizeof *v->sigs);
    for (uint32_t i = 0; i < v->n; i++)
        v->sigs[i] = v->lits[i].kind == FL_NOT ? fconj_sig(ts, v->lits[i].sub) : 0;
    if (v->keep) *v->keep = v->sigs;
    return v->sigs;
}

/* ---- the search ---- */

typedef struct {
    subsume_t *s;
    view_t *P;
    const uint8_t *pv;
    view_t *T;
    uint32_t nt;
    bind_t *b;       /* pattern variable -> target term */
    uint32_t *order; /* P's literal indices: fixed ones, binding ones, checks, negations */
    uint32_t n_fixed;
    bool checked;
    /* Target variables: tv[v] is shared_stamp (targets marked by subsume_share) or
     * own_stamp (the job's first n_own targets, marked on the first negation compared). */
    uint64_t *tv;
    uint64_t shared_stamp, own_stamp;
    uint32_t n_own;
} job_t;

static bool pmatch(job_t *j, term_t p, term_t t) {
    return bind_match_onto(j->b, j->s->ts, p, t, j->pv);
}

typedef struct {
    uint8_t *mark;
    uint32_t cap;
    uint8_t value;
} vmark_t;

static void mark_var(void *ctx, uint32_t v) {
    vmark_t *m = ctx;
    if (v < m->cap) m->mark[v] = m->value;
}

typedef struct {
    const job_t *j;
    bool ok;
} bound_chk_t;

static void chk_bound(void *ctx, uint32_t v) {
    bound_chk_t *b = ctx;
    if (b->j->pv[v] && b->j->b->val[v] == TERM_NONE) b->ok = false;
}

/* Are all pattern variables of P's own literals bound? */
static bool all_bound(const job_t *j) {
    bound_chk_t b = {.j = j, .ok = true};
    flits_each_var(j->s->ts, j->P->lits, j->P->n, chk_bound, &b);
    return b.ok;
}

static bool run_job(subsume_t *s, view_t *P, const uint8_t *pv, view_t *T, uint32_t nt,
                    uint32_t n_own, uint64_t shared_stamp);

typedef struct {
    uint64_t *tv, keep, stamp;
    uint32_t cap;
} stamp_t;

static void stamp_var(void *ctx, uint32_t v) {
    stamp_t *m = ctx;
    if (v < m->cap && (!m->keep || m->tv[v] != m->keep)) m->tv[v] = m->stamp;
}

/* Pattern variables of a negated scope: its own, less those the targets use. */
typedef struct {
    uint8_t *pv;
    const job_t *j;
    uint32_t cap;
} pat_mark_t;

static void mark_pat_var(void *ctx, uint32_t v) {
    pat_mark_t *m = ctx;
    if (v >= m->cap) return;
    uint64_t t = m->j->tv[v];
    if (!t || (t != m->j->shared_stamp && t != m->j->own_stamp)) m->pv[v] = 1;
}

/* Does a target's negated scope Qt imply not Qσ (Q a negated scope of P), i.e. does Qt
 * map into Qσ? Every pattern variable is bound by now. */
static bool not_matches(job_t *j, const fconj_t *Q, const fconj_t *Qt, const chain_t *t_chain) {
    subsume_t *s = j->s;
    if (s->depth + 1 >= MAX_LEVELS || j->P->chain.n + 1 >= MAX_LEVELS) return false;
    view_t pat, tgt;
    view_init(s->ts, &pat, Qt, t_chain);
    chain_t qc = j->P->chain;
    qc.maps[qc.n++] = j->b->val;
    view_init(s->ts, &tgt, Q, &qc);
    /* Pattern variables of Qt: those of its own literals that the current targets' own
     * literals do not use. */
    if (!j->own_stamp) { /* once per job, not per comparison: the targets are large */
        j->own_stamp = next_stamp(s);
        stamp_t t = {.tv = j->tv, .cap = s->cap, .keep = j->shared_stamp, .stamp = j->own_stamp};
        for (uint32_t k = 0; k < j->n_own; k++)
            flits_each_var(s->ts, j->T[k].lits, j->T[k].n, stamp_var, &t);
    }
    uint8_t *pv = level(s, s->depth + 1)->pv;
    pat_mark_t pm = {.pv = pv, .j = j, .cap = s->cap};
    flits_each_var(s->ts, pat.lits, pat.n, mark_pat_var, &pm);
    vmark_t m = {.mark = pv, .cap = s->cap, .value = 0};
    s->depth++;
    bool r = run_job(s, &pat, pv, &tgt, 1, 1, 0);
    s->depth--;
    flits_each_var(s->ts, pat.lits, pat.n, mark_var, &m); /* clears pv */
    view_fini(&pat);
    view_fini(&tgt);
    return r;
}

static bool search(job_t *j, uint32_t k);

static bool try_lit(job_t *j, uint32_t k, const flit_t *p, const flit_t *t) {
    uint32_t mark = bind_mark(j->b);
    if (pmatch(j, p->a, t->a) && (!p->b || pmatch(j, p->b, t->b)) && search(j, k + 1)) return true;
    bind_undo(j->b, mark);
    if ((p->kind == FL_DIST || p->kind == FL_EQ) && pmatch(j, p->a, t->b) &&
        pmatch(j, p->b, t->a) && search(j, k + 1))
        return true;
    bind_undo(j->b, mark);
    return false;
}

static bool same_functor(const term_store_t *ts, term_t a, term_t b) {
    if (term_is_var(ts, a) || term_is_var(ts, b)) return true;
    return term_sym(ts, a) == term_sym(ts, b) && term_arity(ts, a) == term_arity(ts, b);
}

static bool search(job_t *j, uint32_t k) {
    if (k == j->P->n) return true;
    if (++j->s->steps > SUBSUME_BUDGET) return false;
    const flit_t *p = &j->P->lits[j->order[k]];
    const term_store_t *ts = j->s->ts;
    bool fixed = k < j->n_fixed; /* no pattern variable: identity only, one try */
    for (uint32_t x = 0; x < j->nt; x++) {
        view_t *T = &j->T[x];
        for (uint32_t i = 0; i < T->n; i++) {
            const flit_t *t = &T->lits[i];
            if (t->kind != p->kind) continue;
            if (p->kind == FL_NOT) {
                if (!j->checked) {
                    /* all pattern variables must be bound before negations are compared */
                    if (!all_bound(j)) return false;
                    j->checked = true;
                }
                /* Qt can map into Q only with sig(Qt) within sig(Q) */
                if (view_sigs(ts, T)[i] & ~view_sigs(ts, j->P)[j->order[k]]) continue;
                if (++j->s->steps > SUBSUME_BUDGET) return false; /* each try costs */
                /* Matching a negation binds nothing: the first match will do, another
                 * one could not help the literals after it. */
                if (not_matches(j, p->sub, t->sub, &T->chain)) return search(j, k + 1);
                if (j->s->steps > SUBSUME_BUDGET) return false;
                continue;
            }
            if (fixed) {
                bool same =
                    (t->a == p->a && t->b == p->b) ||
                    ((p->kind == FL_DIST || p->kind == FL_EQ) && t->a == p->b && t->b == p->a);
                if (same) return search(j, k + 1);
                continue;
            }
            bool sym = p->kind == FL_DIST || p->kind == FL_EQ;
            if (!sym) {
                term_t pa = p->kind == FL_DOES || p->kind == FL_NDOES ? p->b : p->a;
                term_t ta = p->kind == FL_DOES || p->kind == FL_NDOES ? t->b : t->a;
                if (!same_functor(ts, pa, ta)) continue;
            }
            if (try_lit(j, k, p, t)) return true;
            if (j->s->steps > SUBSUME_BUDGET) return false;
        }
    }
    return false;
}

static int rank(int kind) {
    switch (kind) {
    case FL_TRUE:
    case FL_DOES:
    case FL_ATOM:
        return 0;
    case FL_NOT:
        return 2;
    default:
        return 1;
    }
}

/* T's first n_own scopes are the job's own targets; the rest were marked shared_stamp. */
static bool run_job(subsume_t *s, view_t *P, const uint8_t *pv, view_t *T, uint32_t nt,
                    uint32_t n_own, uint64_t shared_stamp) {
    level_t *lv = level(s, s->depth);
    job_t j = {.s = s,
               .P = P,
               .pv = pv,
               .T = T,
               .nt = nt,
               .b = &lv->b,
               .tv = lv->tv,
               .n_own = n_own,
               .shared_stamp = shared_stamp};
    uint32_t order_small[64];
    j.order = P->n <= 64 ? order_small : xmalloc(P->n * sizeof *j.order);
    uint32_t n = 0;
    for (uint32_t i = 0; i < P->n; i++)
        if (P->lits[i].kind != FL_NOT && !flit_mentions(s->ts, &P->lits[i], pv)) j.order[n++] = i;
    j.n_fixed = n;
    for (int r = 0; r <= 2; r++)
        for (uint32_t i = 0; i < P->n; i++)
            if (rank(P->lits[i].kind) == r &&
                (P->lits[i].kind == FL_NOT || flit_mentions(s->ts, &P->lits[i], pv)))
                j.order[n++] = i;
    bool ok = search(&j, 0);
    bind_undo(j.b, 0);
    if (j.order != order_small) free(j.order);
    return ok;
}

void subsume_share(subsume_t *s, const fconj_t *const *T, uint32_t nt) {
    level(s, 0);
    drop_shared(s);
    if (nt > s->cap_shared) {
        s->shared_sigs = xrealloc(s->shared_sigs, nt * sizeof *s->shared_sigs);
        for (uint32_t k = s->cap_shared; k < nt; k++)
            s->shared_sigs[k] = NULL;
        s->cap_shared = nt;
    }
    s->shared = T;
    s->n_shared = nt;
    s->shared_stamp = next_stamp(s);
    stamp_t m = {.tv = s->lv[0].tv, .cap = s->cap, .keep = 0, .stamp = s->shared_stamp};
    for (uint32_t k = 0; k < nt; k++)
        flits_each_var(s->ts, T[k]->lits, T[k]->n, stamp_var, &m);
}

/* A whole test: P against the target views tv[0..nt) (see run_job), which it finishes
 * and, unless small, frees. */
static bool top_job(subsume_t *s, const fconj_t *P, const uint8_t *pv, view_t *tv, uint32_t nt,
                    uint32_t n_own, uint64_t shared_stamp, view_t *small) {
    chain_t none = {.n = 0};
    view_t pview;
    view_init(s->ts, &pview, P, &none);
    s->steps = 0;
    s->depth = 0;
    bool ok = run_job(s, &pview, pv, tv, nt, n_own, shared_stamp);
    view_fini(&pview);
    for (uint32_t k = 0; k < nt; k++)
        view_fini(&tv[k]);
    if (tv != small) free(tv);
    return ok;
}

bool subsume_shared(subsume_t *s, const fconj_t *P, const uint8_t *pv, const fconj_t *extra) {
    chain_t none = {.n = 0};
    uint32_t n_own = extra != NULL, nt = n_own + s->n_shared;
    view_t small[8];
    view_t *tv = nt <= 8 ? small : xmalloc(nt * sizeof *tv);
    if (extra) view_init(s->ts, &tv[0], extra, &none);
    for (uint32_t k = 0; k < s->n_shared; k++) {
        view_init(s->ts, &tv[n_own + k], s->shared[k], &none);
        tv[n_own + k].sigs = s->shared_sigs[k];
        tv[n_own + k].keep = &s->shared_sigs[k];
    }
    return top_job(s, P, pv, tv, nt, n_own, s->shared_stamp, small);
}

bool subsume_conj(subsume_t *s, const fconj_t *P, const uint8_t *pv, const fconj_t *const *T,
                  uint32_t nt) {
    chain_t none = {.n = 0};
    view_t small[8];
    view_t *tv = nt <= 8 ? small : xmalloc(nt * sizeof *tv);
    for (uint32_t k = 0; k < nt; k++)
        view_init(s->ts, &tv[k], T[k], &none);
    return top_job(s, P, pv, tv, nt, nt, 0, small);
}
