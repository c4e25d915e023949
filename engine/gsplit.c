/* Splitting rules by variable elimination: see gsplit.h. */
#include "engine/gsplit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/keyset.h"
#include "gdl/bind.h"

/* A literal of a rule being split: its distinct variables (rule numbering), and for a
 * positive one the number of atoms that match it and the distinct values of each variable. */
typedef struct {
    gp_lit_t lit;
    uint32_t n_vars, *vars;
    double size, *d;
    bool dyn;
    bool known; /* a positive literal whose atoms are all known (not an auxiliary relation) */
} wlit_t;

typedef struct {
    term_t head;
    uint32_t n, n_vars; /* literals; the original rule's variable count */
    wlit_t *lits;
} wrule_t;

struct gsplit {
    gprog_t *P;
    gatoms_t *A;
    term_store_t *ts;
    keyset_t patterns; /* canonical pattern -> pattern_stats[its number] */
    uint32_t *pattern_stats;
    size_t cap_patterns;
    double *size, **d; /* statistics: of patterns, and of projections */
    size_t n_stats, cap_stats;
    double *aux_size, **aux_d; /* per predicate (auxiliary ones) */
    uint32_t n_aux_slots;
    keyset_t dom_keys; /* (pattern, variable) -> dom_pred[its number] */
    uint32_t *dom_pred;
    size_t cap_dom;
    keyset_t proj_keys; /* pattern << 32 | positions -> proj_stats[its number], proj_pred[..] */
    uint32_t *proj_stats, *proj_pred;
    size_t cap_proj;
    uint32_t n_split, n_aux, n_dom, n_unfolded, n_projected;
};

gsplit_t *gsplit_new(gprog_t *P, gatoms_t *A) {
    gsplit_t *S = xcalloc(1, sizeof *S);
    S->P = P, S->A = A, S->ts = P->ts;
    return S;
}

void gsplit_free(gsplit_t *S) {
    if (!S) return;
    for (size_t i = 0; i < S->n_stats; i++)
        free(S->d[i]);
    for (uint32_t p = 0; p < S->n_aux_slots; p++)
        free(S->aux_d[p]);
    keyset_fini(&S->patterns), keyset_fini(&S->dom_keys), keyset_fini(&S->proj_keys);
    free(S->size), free(S->d), free(S->aux_size), free(S->aux_d), free(S->dom_pred);
    free(S->proj_stats), free(S->proj_pred), free(S->pattern_stats);
    free(S);
}

void gsplit_counts(const gsplit_t *S, gsplit_counts_t *c) {
    *c = (gsplit_counts_t){S->n_split, S->n_aux, S->n_unfolded, S->n_projected};
}

/* ---- statistics of literals ---- */

/* Counts the atoms matching a canonical pattern (projected on the variables marked in
 * cmask, by their canonical numbers; all: ~0) and the distinct values of each variable
 * (d[c] for the c-th variable marked). */
static uint32_t compute_stats(gsplit_t *S, uint32_t pred, term_t pattern, uint32_t m,
                              uint64_t cmask) {
    const gids_t *ids = gatoms_of(S->A, pred);
    keyset_t *sets = xcalloc(m + 1, sizeof *sets); /* the values of each variable */
    keyset_t tuples = {0};
    double *d = xcalloc(m + 1, sizeof *d), size = 0;
    uint32_t k_vars = 0;
    bind_t b;
    bind_init(&b, m);
    for (uint32_t k = 0; k < ids->n; k++) {
        bind_undo(&b, 0);
        if (!bind_match(&b, S->ts, pattern, S->A->term[ids->ids[k]])) continue;
        uint64_t h = 0;
        k_vars = 0;
        for (uint32_t c = 0; c < m; c++) {
            if (c < 64 && !(cmask >> c & 1)) continue;
            h = hash_fmix64(h ^ b.val[c]);
            keyset_add(&sets[k_vars++], b.val[c]);
        }
        if (cmask == ~0ull)
            size++;
        else /* a projection: its distinct tuples (by a 64-bit hash: an estimate) */
            keyset_add(&tuples, h);
    }
    if (cmask != ~0ull) size = tuples.n;
    keyset_fini(&tuples);
    for (uint32_t c = 0; c < m; c++) {
        d[c] = sets[c].n;
        keyset_fini(&sets[c]);
    }
    free(sets);
    bind_fini(&b);
    GROW(S->size, S->cap_stats, S->n_stats + 1);
    S->d = xrealloc(S->d, S->cap_stats * sizeof *S->d);
    S->size[S->n_stats] = size;
    S->d[S->n_stats] = d;
    return (uint32_t)S->n_stats++;
}

static uint32_t stats_of(gsplit_t *S, uint32_t pred, term_t pattern, uint32_t m) {
    uint32_t at = keyset_find(&S->patterns, pattern);
    if (at != UINT32_MAX) return S->pattern_stats[at];
    uint32_t id = compute_stats(S, pred, pattern, m, ~0ull);
    at = keyset_add(&S->patterns, pattern);
    GROW(S->pattern_stats, S->cap_patterns, (size_t)at + 1);
    S->pattern_stats[at] = id;
    return id;
}

static bool is_aux_pred(const gsplit_t *S, uint32_t pred) {
    return pred < S->n_aux_slots && S->aux_d[pred];
}

/* The canonical pattern of a literal (variables renumbered in order of first occurrence,
 * which is the order of its vars) . */
static term_t canonical_pattern(gsplit_t *S, const wlit_t *l, uint32_t n_rule_vars) {
    term_t *cmap = xmalloc((n_rule_vars + 1) * sizeof *cmap);
    for (uint32_t v = 0; v < n_rule_vars; v++)
        cmap[v] = TERM_NONE;
    for (uint32_t i = 0; i < l->n_vars; i++)
        cmap[l->vars[i]] = term_var(S->P->ts, i);
    term_t t = term_subst(S->P->ts, l->lit.atom, cmap);
    free(cmap);
    return t;
}

/* A literal of rule r (or of a rule being split) with its variables and statistics. */
static void make_wlit(gsplit_t *S, const gp_lit_t *l, uint32_t n_rule_vars, wlit_t *w) {
    const term_store_t *ts = S->ts;
    bool *seen = xcalloc(n_rule_vars + 1, sizeof *seen);
    w->lit = *l;
    w->vars = xmalloc((n_rule_vars + 1) * sizeof *w->vars);
    w->n_vars = 0;
    gprog_list_vars(ts, l->atom, w->vars, &w->n_vars, seen);
    free(seen);
    w->d = xcalloc(w->n_vars + 1, sizeof *w->d);
    w->dyn = l->kind != GLIT_DISTINCT && !S->P->preds[l->pred].is_static;
    w->size = 1;
    w->known = false;
    if (l->kind != GLIT_POS) return;
    w->known = !is_aux_pred(S, l->pred);
    if (is_aux_pred(S, l->pred)) { /* (aux v1 .. vk): distinct variables in order */
        w->size = S->aux_size[l->pred];
        for (uint32_t i = 0; i < w->n_vars; i++)
            w->d[i] = S->aux_d[l->pred][i];
        return;
    }
    uint32_t id = stats_of(S, l->pred, canonical_pattern(S, w, n_rule_vars), w->n_vars);
    w->size = S->size[id];
    for (uint32_t i = 0; i < w->n_vars; i++)
        w->d[i] = S->d[id][i] > 0 ? S->d[id][i] : 1;
}

static void free_wlits(wlit_t *l, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        free(l[i].vars), free(l[i].d);
}

static bool has_var(const wlit_t *l, uint32_t v) {
    for (uint32_t i = 0; i < l->n_vars; i++)
        if (l->vars[i] == v) return true;
    return false;
}

/* ---- estimates ---- */

/* log of the bindings of the positive literals of set (a mask over the rule's literals)
 * projected on the variables marked in proj (NULL: all). */
static double log_bindings(const wrule_t *R, const bool *set, const bool *proj, double *d) {
    uint32_t nv = R->n_vars;
    for (uint32_t v = 0; v < nv; v++)
        d[v] = INFINITY;
    double sum = 0;
    for (uint32_t i = 0; i < R->n; i++) {
        const wlit_t *l = &R->lits[i];
        if (!set[i] || l->lit.kind != GLIT_POS) continue;
        if (l->size <= 0) return -INFINITY;
        sum += log(l->size);
        for (uint32_t k = 0; k < l->n_vars; k++) {
            sum -= log(l->d[k]);
            if (l->d[k] < d[l->vars[k]]) d[l->vars[k]] = l->d[k];
        }
    }
    double all = 0, projected = 0;
    for (uint32_t v = 0; v < nv; v++) {
        if (d[v] == INFINITY) continue;
        all += log(d[v]);
        if (!proj || proj[v]) projected += log(d[v]);
    }
    sum += all;
    return sum < projected ? sum : projected;
}

/* Estimated ground literals of a rule made of the literals in set, with head variables
 * head: instances (bindings of the head's and the non-static literals' variables) times
 * non-static literals, plus the head atoms. */
static double cost(const wrule_t *R, const bool *set, const bool *head, double *d, bool *need) {
    uint32_t dyn = 0;
    memcpy(need, head, R->n_vars * sizeof *need);
    for (uint32_t i = 0; i < R->n; i++) {
        if (!set[i] || !R->lits[i].dyn) continue;
        dyn++;
        for (uint32_t k = 0; k < R->lits[i].n_vars; k++)
            need[R->lits[i].vars[k]] = true;
    }
    double inst = log_bindings(R, set, need, d), heads = log_bindings(R, set, head, d);
    return exp(inst) * (dyn ? dyn : 1) + exp(heads);
}

/* ---- one elimination ---- */

/* Binders read as projections: the positive literal lit[i] of the rule, projected on the
 * rule variables marked in vars[i] (a static relation of the tuples its atoms have there). */
#define MAX_PROJ 8
typedef struct {
    uint32_t n, lit[MAX_PROJ];
    uint64_t vars[MAX_PROJ];
} proj_t;

typedef struct {
    bool *in;   /* the bucket: literals moved to the auxiliary rule */
    bool *keep; /* the auxiliary head's variables */
    proj_t proj;
    double cost;
} cand_t;

#define MAX_COPIES 8 /* rules a rule's unfolded static filters may make */
/* Estimated literals an unfolding must save: below, the estimates' noise decides (a frame
 * rule of pawnToQueen: 14 estimated, 11 unfolded, 1,300 literals more in fact). */
#define UNFOLD_MIN_GAIN 1000

static uint64_t var_mask(const wlit_t *l) {
    uint64_t m = 0;
    for (uint32_t k = 0; k < l->n_vars; k++)
        m |= 1ull << l->vars[k];
    return m;
}

/* The bucket of variable v: the literals that mention it, with for each negation or
 * distinct among them a positive literal supplying each variable the bucket lacks (the one
 * adding fewest variables, static before not, smaller before larger). With proj, a binder
 * that would bring variables the bucket does not have is read instead as its projection on
 * those it has (a static filter: chess's `legal2 ?player (move ?piece ?u ?v ?x ?y)` binding
 * the squares of a negated threat without the piece, which the OR over the king's squares
 * does not depend on). False when v cannot be eliminated usefully. */
static bool bucket(const wrule_t *R, uint32_t v, const bool *head, bool closure, proj_t *proj,
                   bool *in) {
    bool dyn = false, any_out = false;
    if (proj) proj->n = 0;
    if (proj && R->n_vars > 64) return false;
    for (uint32_t i = 0; i < R->n; i++)
        in[i] = has_var(&R->lits[i], v);
    /* the closure: every literal that shares a variable the head does not read */
    for (bool grew = closure; grew;) {
        grew = false;
        for (uint32_t i = 0; i < R->n; i++) {
            if (in[i]) continue;
            for (uint32_t j = 0; j < R->n && !in[i]; j++) {
                if (!in[j]) continue;
                for (uint32_t q = 0; q < R->lits[i].n_vars && !in[i]; q++)
                    if (!head[R->lits[i].vars[q]] && has_var(&R->lits[j], R->lits[i].vars[q]))
                        in[i] = grew = true;
            }
        }
    }
    for (uint32_t i = 0; i < R->n; i++)
        dyn |= in[i] && R->lits[i].dyn;
    if (!dyn) return false;
    bool *cov = xcalloc(R->n_vars + 1, sizeof *cov);
    for (bool again = true; again;) {
        again = false;
        memset(cov, 0, R->n_vars * sizeof *cov);
        uint64_t all = 0; /* the bucket's variables (with proj) */
        for (uint32_t i = 0; i < R->n; i++)
            if (in[i] && R->lits[i].lit.kind == GLIT_POS)
                for (uint32_t k = 0; k < R->lits[i].n_vars; k++)
                    cov[R->lits[i].vars[k]] = true;
        for (uint32_t i = 0; proj && i < R->n; i++)
            all |= in[i] ? var_mask(&R->lits[i]) : 0;
        for (uint32_t k = 0; proj && k < proj->n; k++)
            for (uint32_t u = 0; u < R->n_vars; u++)
                cov[u] = cov[u] || (proj->vars[k] >> u & 1);
        for (uint32_t i = 0; i < R->n && !again; i++) {
            if (!in[i] || R->lits[i].lit.kind == GLIT_POS) continue;
            for (uint32_t k = 0; k < R->lits[i].n_vars && !again; k++) {
                uint32_t u = R->lits[i].vars[k], best = UINT32_MAX, best_new = 0;
                if (cov[u]) continue;
                for (uint32_t j = 0; j < R->n; j++) {
                    const wlit_t *l = &R->lits[j];
                    if (in[j] || l->lit.kind != GLIT_POS || !has_var(l, u)) continue;
                    uint32_t fresh = 0;
                    for (uint32_t q = 0; q < l->n_vars; q++)
                        fresh += !cov[l->vars[q]];
                    const wlit_t *b = best == UINT32_MAX ? NULL : &R->lits[best];
                    if (!b || fresh < best_new ||
                        (fresh == best_new &&
                         (b->dyn > l->dyn || (b->dyn == l->dyn && l->size < b->size))))
                        best = j, best_new = fresh;
                }
                if (best == UINT32_MAX) {
                    free(cov);
                    return false;
                }
                uint64_t has = var_mask(&R->lits[best]);
                if (proj && R->lits[best].known && R->lits[best].n_vars <= 32 && (has & ~all) &&
                    proj->n < MAX_PROJ) {
                    proj->lit[proj->n] = best, proj->vars[proj->n++] = has & all;
                    again = true;
                    continue;
                }
                in[best] = again = true;
            }
        }
    }
    free(cov);
    for (uint32_t i = 0; i < R->n; i++)
        any_out |= !in[i];
    return any_out;
}

/* The auxiliary head of bucket in: the bucket's variables that the head or a literal outside
 * the bucket reads. */
static void aux_head(const wrule_t *R, const bool *in, const bool *head, bool *keep) {
    uint32_t nv = R->n_vars;
    bool *inside = xcalloc(nv + 1, 1);
    memcpy(keep, head, nv);
    for (uint32_t j = 0; j < R->n; j++)
        for (uint32_t q = 0; q < R->lits[j].n_vars; q++)
            (in[j] ? inside : keep)[R->lits[j].vars[q]] = true;
    for (uint32_t u = 0; u < nv; u++)
        keep[u] = keep[u] && inside[u];
    free(inside);
}

/* The values variable number c (canonical) takes in the atoms matching pattern, as a unary
 * static relation of its own (made once per pattern and variable). */
static uint32_t domain_pred(gsplit_t *S, uint32_t pred, term_t pattern, uint32_t c, uint32_t m) {
    uint64_t key = (uint64_t)pattern << 8 | c;
    uint32_t known = keyset_find(&S->dom_keys, key);
    if (known != UINT32_MAX) return S->dom_pred[known];
    uint32_t dom = gprog_aux(S->P, 1, true);
    sym_t sym = S->P->preds[dom].sym;
    const gids_t *ids = gatoms_of(S->A, pred);
    bind_t b;
    bind_init(&b, m);
    for (uint32_t k = 0; k < ids->n; k++, ids = gatoms_of(S->A, pred)) {
        bind_undo(&b, 0);
        if (!bind_match(&b, S->ts, pattern, S->A->term[ids->ids[k]])) continue;
        gatoms_add(S->A, term_fun(S->P->ts, sym, &b.val[c], 1), dom, NULL);
    }
    bind_fini(&b);
    uint32_t at = keyset_add(&S->dom_keys, key);
    GROW(S->dom_pred, S->cap_dom, (size_t)at + 1);
    S->dom_pred[at] = dom;
    S->n_dom++;
    return dom;
}

/* The positions (canonical numbers) of l's variables marked in vars. */
static uint64_t canonical_mask(const wlit_t *l, uint64_t vars) {
    uint64_t c = 0;
    for (uint32_t i = 0; i < l->n_vars && i < 64; i++)
        if (vars >> l->vars[i] & 1) c |= 1ull << i;
    return c;
}

/* The statistics of literal l projected on the rule variables vars (computed once per
 * pattern and positions), and with real its static relation (the tuples of l's atoms
 * there, made once): its predicate, else UINT32_MAX. */
static uint32_t projection(gsplit_t *S, const wlit_t *l, uint64_t vars, uint32_t nv, bool real,
                           uint32_t *pred) {
    term_t pattern = canonical_pattern(S, l, nv);
    uint64_t cmask = canonical_mask(l, vars), key = (uint64_t)pattern << 32 | cmask;
    uint32_t at = keyset_find(&S->proj_keys, key);
    if (at == UINT32_MAX) {
        uint32_t id = compute_stats(S, l->lit.pred, pattern, l->n_vars, cmask);
        at = keyset_add(&S->proj_keys, key);
        GROW(S->proj_stats, S->cap_proj, (size_t)at + 1);
        S->proj_pred = xrealloc(S->proj_pred, S->cap_proj * sizeof *S->proj_pred);
        S->proj_stats[at] = id, S->proj_pred[at] = UINT32_MAX;
    }
    *pred = S->proj_pred[at];
    if (!real || *pred != UINT32_MAX) return S->proj_stats[at];
    uint32_t k = (uint32_t)__builtin_popcountll(cmask), p = gprog_aux(S->P, k, true);
    sym_t sym = S->P->preds[p].sym;
    term_t vals[64];
    bind_t b;
    bind_init(&b, l->n_vars);
    const gids_t *ids = gatoms_of(S->A, l->lit.pred);
    for (uint32_t a = 0; a < ids->n; a++, ids = gatoms_of(S->A, l->lit.pred)) {
        bind_undo(&b, 0);
        if (!bind_match(&b, S->ts, pattern, S->A->term[ids->ids[a]])) continue;
        uint32_t n = 0;
        for (uint32_t c = 0; c < l->n_vars && c < 64; c++)
            if (cmask >> c & 1) vals[n++] = b.val[c];
        gatoms_add(S->A, term_fun(S->P->ts, sym, vals, n), p, NULL);
    }
    bind_fini(&b);
    *pred = S->proj_pred[at] = p;
    return S->proj_stats[at];
}

/* The filters of projections proj appended to A (estimates; with real, the relations). */
static void add_projections(gsplit_t *S, const wrule_t *R, const proj_t *proj, bool real,
                            wrule_t *A) {
    for (uint32_t k = 0; proj && k < proj->n; k++) {
        const wlit_t *l = &R->lits[proj->lit[k]];
        uint32_t pred, id = projection(S, l, proj->vars[k], R->n_vars, real, &pred);
        wlit_t *w = &A->lits[A->n++];
        w->vars = xmalloc((l->n_vars + 1) * sizeof *w->vars);
        w->d = xmalloc((l->n_vars + 1) * sizeof *w->d);
        w->n_vars = 0, w->size = S->size[id], w->dyn = false, w->known = false;
        term_t args[64];
        for (uint32_t i = 0; i < l->n_vars; i++) {
            if (!(proj->vars[k] >> l->vars[i] & 1)) continue;
            args[w->n_vars] = term_var(S->P->ts, l->vars[i]);
            w->d[w->n_vars] = S->d[id][w->n_vars] > 0 ? S->d[id][w->n_vars] : 1;
            w->vars[w->n_vars++] = l->vars[i];
        }
        w->lit = (gp_lit_t){GLIT_POS, UINT32_MAX, TERM_NONE};
        if (real)
            w->lit = (gp_lit_t){GLIT_POS, pred,
                                term_fun(S->P->ts, S->P->preds[pred].sym, args, w->n_vars)};
    }
}

/* The auxiliary rule of bucket in with head variables keep: the bucket's literals, and for
 * each head variable that a literal left in the rest restricts more than the bucket does, a
 * filter to the values it takes there (the auxiliary atoms outside them would never be
 * read). When real, the filters are relations made; else estimates only. The literals are
 * shallow copies of R's, the filters A's own (from A->lits[n_bucket] on). */
static uint32_t aux_rule(gsplit_t *S, const wrule_t *R, const bool *in, const bool *keep,
                         const proj_t *proj, bool real, wrule_t *A) {
    uint32_t nv = R->n_vars, n_bucket = 0;
    A->n_vars = nv;
    A->n = 0;
    A->lits = xmalloc((R->n + nv + MAX_PROJ + 1) * sizeof *A->lits);
    for (uint32_t i = 0; i < R->n; i++)
        if (in[i]) A->lits[A->n++] = R->lits[i];
    n_bucket = A->n;
    add_projections(S, R, proj, real, A);
    for (uint32_t v = 0; v < nv; v++) {
        if (!keep[v]) continue;
        double inside = INFINITY, best = INFINITY;
        uint32_t from = UINT32_MAX, at = 0;
        for (uint32_t i = 0; i < R->n; i++) {
            const wlit_t *l = &R->lits[i];
            if (l->lit.kind != GLIT_POS) continue;
            for (uint32_t q = 0; q < l->n_vars; q++) {
                if (l->vars[q] != v) continue;
                if (in[i] && l->d[q] < inside) inside = l->d[q];
                if (!in[i] && l->lit.pred != UINT32_MAX && !is_aux_pred(S, l->lit.pred) &&
                    l->d[q] < best)
                    best = l->d[q], from = i, at = q;
            }
        }
        if (from == UINT32_MAX || best >= 0.9 * inside) continue;
        wlit_t *w = &A->lits[A->n++];
        w->vars = xmalloc(2 * sizeof *w->vars);
        w->d = xmalloc(2 * sizeof *w->d);
        w->n_vars = 1, w->vars[0] = v, w->d[0] = best, w->size = best, w->dyn = false,
        w->known = false;
        w->lit = (gp_lit_t){GLIT_POS, UINT32_MAX, TERM_NONE};
        if (!real) continue;
        const wlit_t *l = &R->lits[from];
        uint32_t dom = domain_pred(S, l->lit.pred, canonical_pattern(S, l, nv), at, l->n_vars);
        term_t arg = term_var(S->P->ts, v);
        w->lit = (gp_lit_t){GLIT_POS, dom, term_fun(S->P->ts, S->P->preds[dom].sym, &arg, 1)};
    }
    return n_bucket;
}

static void free_filters(wrule_t *A, uint32_t n_bucket) {
    free_wlits(A->lits + n_bucket, A->n - n_bucket);
    free(A->lits);
}

/* The literal of an auxiliary relation with head variables keep and rule A: its size is
 * A's bindings projected on keep. */
static void aux_wlit(const wrule_t *A, const bool *keep, double *d, wlit_t *w) {
    uint32_t nv = A->n_vars;
    bool *all = xmalloc(A->n + 1);
    memset(all, 1, A->n);
    double size = exp(log_bindings(A, all, keep, d));
    free(all);
    w->lit = (gp_lit_t){GLIT_POS, UINT32_MAX, TERM_NONE};
    w->vars = xmalloc((nv + 1) * sizeof *w->vars);
    w->d = xmalloc((nv + 1) * sizeof *w->d);
    w->n_vars = 0;
    w->dyn = true, w->known = false;
    w->size = size;
    for (uint32_t v = 0; v < nv; v++)
        if (keep[v]) {
            w->vars[w->n_vars] = v;
            w->d[w->n_vars++] = d[v] < size ? d[v] : size;
        }
}

/* The estimated cost of eliminating with bucket in: the auxiliary rule's and that of the
 * rest reading the auxiliary relation. */
static double elimination_cost(gsplit_t *S, const wrule_t *R, const bool *in, const bool *keep,
                               const proj_t *proj, const bool *head, double *d, bool *need) {
    wrule_t A;
    uint32_t n_bucket = aux_rule(S, R, in, keep, proj, false, &A);
    bool *all = xmalloc(A.n + R->n + 2);
    memset(all, 1, A.n + R->n + 1);
    double aux = cost(&A, all, keep, d, need);
    wrule_t rest = {.head = R->head, .n_vars = R->n_vars};
    rest.lits = xmalloc((R->n + 1) * sizeof *rest.lits);
    for (uint32_t j = 0; j < R->n; j++)
        if (!in[j]) rest.lits[rest.n++] = R->lits[j];
    aux_wlit(&A, keep, d, &rest.lits[rest.n++]);
    double c = aux + cost(&rest, all, head, d, need);
    free_wlits(&rest.lits[rest.n - 1], 1);
    free(rest.lits), free(all);
    free_filters(&A, n_bucket);
    return c;
}

/* The best elimination of two variables at once (their buckets together) when it costs
 * less than single: eliminating either alone may leave as many instances (a sum of two
 * players' bids: each bid alone is replaced by the partial result), both at once do not. */
static double best_pair(gsplit_t *S, const wrule_t *R, const bool *head, cand_t *best,
                        double single) {
    uint32_t nv = R->n_vars, n = R->n;
    bool *in = xmalloc(n + 1), *in2 = xmalloc(n + 1), *keep = xmalloc(nv + 1);
    bool *need = xmalloc(nv + 1), *free_var = xcalloc(nv + 1, 1);
    double *d = xmalloc((nv + 1) * sizeof *d);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < R->lits[i].n_vars; k++)
            free_var[R->lits[i].vars[k]] = !head[R->lits[i].vars[k]];
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t u = v + 1; u < nv && free_var[v]; u++) {
            if (!free_var[u]) continue;
            bool shared = false;
            for (uint32_t i = 0; i < n && !shared; i++)
                shared = has_var(&R->lits[i], v) && has_var(&R->lits[i], u);
            if (!shared || !bucket(R, v, head, false, NULL, in) ||
                !bucket(R, u, head, false, NULL, in2))
                continue;
            bool out = false;
            for (uint32_t i = 0; i < n; i++)
                in[i] = in[i] || in2[i], out |= !in[i];
            if (!out) continue;
            aux_head(R, in, head, keep);
            double c = elimination_cost(S, R, in, keep, NULL, head, d, need);
            if (c >= single) continue;
            single = c;
            memcpy(best->in, in, n), memcpy(best->keep, keep, nv);
            best->proj.n = 0;
        }
    free(in), free(in2), free(keep), free(need), free(free_var), free(d);
    return single;
}

/* The best elimination of rule R (head variables head), or false when none pays: a
 * variable's own bucket, or its closure over the variables the head does not read when that
 * is estimated much cheaper (several eliminations at once; step by step they tend to leave
 * auxiliary relations that the optimiser can merge, which no estimate here sees). */
static bool best_elimination(gsplit_t *S, const wrule_t *R, const bool *head, cand_t *best) {
    uint32_t nv = R->n_vars, n = R->n;
    bool *all = xmalloc(n + 1), *in = xmalloc(n + 1);
    bool *keep = xmalloc(nv + 1), *need = xmalloc(nv + 1), *seen = xcalloc(nv + 1, 1);
    bool *cin = xmalloc(n + 1), *ckeep = xmalloc(nv + 1);
    double *d = xmalloc((nv + 1) * sizeof *d);
    proj_t pr = {0}, cproj = {0};
    memset(all, 1, n);
    double now = cost(R, all, head, d, need), single = INFINITY, closed = INFINITY;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < R->lits[i].n_vars; k++) {
            uint32_t v = R->lits[i].vars[k];
            if (head[v] || seen[v]) continue;
            seen[v] = true;
            for (int variant = 0; variant < 4; variant++) { /* closure, projections */
                bool closure = variant & 1, with = variant >> 1;
                if (!bucket(R, v, head, closure, with ? &pr : NULL, in)) continue;
                if (with && !pr.n) continue; /* the same bucket as without */
                aux_head(R, in, head, keep);
                double c = elimination_cost(S, R, in, keep, with ? &pr : NULL, head, d, need);
                if (c >= (closure ? closed : single)) continue;
                if (closure) {
                    closed = c;
                    memcpy(cin, in, n), memcpy(ckeep, keep, nv);
                    cproj.n = with ? pr.n : 0;
                    if (with) cproj = pr;
                } else {
                    single = c;
                    memcpy(best->in, in, n), memcpy(best->keep, keep, nv);
                    best->proj.n = 0;
                    if (with) best->proj = pr;
                }
            }
        }
    if (single >= 0.8 * now) /* none pays alone: two variables that share a literal */
        single = best_pair(S, R, head, best, single);
    if (closed < single / 1.5) {
        single = closed;
        memcpy(best->in, cin, n), memcpy(best->keep, ckeep, nv);
        best->proj = cproj;
    }
    best->cost = single;
    free(all), free(in), free(keep), free(need), free(seen), free(d), free(cin), free(ckeep);
    return single < 0.8 * now;
}

/* ---- making the rules ---- */

/* Adds rule (head, literals) to the program with its variables renumbered 0..k-1. */
static uint32_t emit_rule(gsplit_t *S, term_t head, const wlit_t *lits, uint32_t n, uint32_t nv) {
    term_store_t *ts = S->P->ts;
    term_t *map = xmalloc((nv + 1) * sizeof *map);
    uint32_t *order = xmalloc((nv + 1) * sizeof *order), m = 0;
    bool *seen = xcalloc(nv + 1, sizeof *seen);
    gprog_list_vars(ts, head, order, &m, seen);
    for (uint32_t i = 0; i < n; i++)
        gprog_list_vars(ts, lits[i].lit.atom, order, &m, seen);
    for (uint32_t v = 0; v < nv; v++)
        map[v] = TERM_NONE;
    for (uint32_t k = 0; k < m; k++)
        map[order[k]] = term_var(ts, k);
    gp_lit_t *body = xmalloc((n + 1) * sizeof *body);
    for (uint32_t i = 0; i < n; i++) {
        body[i] = lits[i].lit;
        body[i].atom = term_subst(ts, lits[i].lit.atom, map);
    }
    uint32_t id = gprog_add(S->P, term_subst(ts, head, map), body, n, m, false);
    free(map), free(order), free(seen), free(body);
    return id;
}

static void split(gsplit_t *S, wrule_t *R, const bool *head, gids_t *out);

/* Moves the bucket of c into an auxiliary rule (split in turn, emitted to out) and puts
 * a literal of it in its place in R. */
static void eliminate(gsplit_t *S, wrule_t *R, const cand_t *c, gids_t *out) {
    term_store_t *ts = S->P->ts;
    uint32_t nv = R->n_vars, k = 0;
    term_t *args = xmalloc((nv + 1) * sizeof *args);
    for (uint32_t v = 0; v < nv; v++)
        if (c->keep[v]) args[k++] = term_var(ts, v);
    uint32_t pred = gprog_aux(S->P, k, false);
    term_t head = term_fun(ts, S->P->preds[pred].sym, args, k);
    free(args);
    wrule_t A = {0};
    uint32_t n_bucket = aux_rule(S, R, c->in, c->keep, &c->proj, true, &A);
    S->n_projected += c->proj.n;
    A.head = head;
    wlit_t *rest = xmalloc((R->n + 1) * sizeof *rest);
    uint32_t n_rest = 0;
    for (uint32_t i = 0; i < R->n; i++)
        if (!c->in[i]) rest[n_rest++] = R->lits[i];
    (void)n_bucket; /* the bucket's literals move to A: A owns all its literals now */
    /* the auxiliary relation's estimates, for the literal that reads it */
    if (pred >= S->n_aux_slots) {
        uint32_t n = pred + 64;
        S->aux_size = xrealloc(S->aux_size, n * sizeof *S->aux_size);
        S->aux_d = xrealloc(S->aux_d, n * sizeof *S->aux_d);
        for (uint32_t p = S->n_aux_slots; p < n; p++)
            S->aux_size[p] = 0, S->aux_d[p] = NULL;
        S->n_aux_slots = n;
    }
    double *d = xmalloc((nv + 1) * sizeof *d);
    wlit_t w;
    aux_wlit(&A, c->keep, d, &w);
    S->aux_size[pred] = w.size;
    S->aux_d[pred] = w.d;
    free(w.vars), free(d);
    S->n_aux++;
    split(S, &A, c->keep, out);
    gp_lit_t l = {GLIT_POS, pred, head};
    make_wlit(S, &l, nv, &rest[n_rest++]);
    free(R->lits);
    R->lits = rest;
    R->n = n_rest;
}

/* Eliminates variables while it pays, then emits the rule. */
static void split(gsplit_t *S, wrule_t *R, const bool *head, gids_t *out) {
    cand_t c = {.in = xmalloc(R->n + 2), .keep = xmalloc(R->n_vars + 1)};
    while (best_elimination(S, R, head, &c)) {
        eliminate(S, R, &c, out);
        c.in = xrealloc(c.in, R->n + 2);
    }
    free(c.in), free(c.keep);
    uint32_t id = emit_rule(S, R->head, R->lits, R->n, R->n_vars);
    GROW(out->ids, out->cap, (size_t)out->n + 1);
    out->ids[out->n++] = id;
    free_wlits(R->lits, R->n);
    free(R->lits);
    R->lits = NULL, R->n = 0;
}

/* Splits rule ri (appending what stands for it to out), without unfolding. */
static void split_rule(gsplit_t *S, uint32_t ri, gids_t *out) {
    const gp_rule_t *r = &S->P->rules[ri];
    uint32_t nv = r->n_vars, n = r->n_body;
    wrule_t R = {.head = r->head, .n = n, .n_vars = nv};
    R.lits = xmalloc((n + 1) * sizeof *R.lits);
    for (uint32_t i = 0; i < n; i++)
        make_wlit(S, &S->P->rules[ri].body[i], nv, &R.lits[i]);
    bool *head = xcalloc(nv + 1, sizeof *head);
    uint32_t *hv = xmalloc((nv + 1) * sizeof *hv), m = 0;
    bool *seen = xcalloc(nv + 1, sizeof *seen);
    gprog_list_vars(S->ts, r->head, hv, &m, seen);
    for (uint32_t k = 0; k < m; k++)
        head[hv[k]] = true;
    free(hv), free(seen);
    cand_t c = {.in = xmalloc(n + 2), .keep = xmalloc(nv + 1)};
    bool any = best_elimination(S, &R, head, &c);
    free(c.in), free(c.keep);
    if (!any) {
        GROW(out->ids, out->cap, (size_t)out->n + 1);
        out->ids[out->n++] = ri;
        free_wlits(R.lits, R.n);
        free(R.lits);
    } else {
        split(S, &R, head, out); /* frees R's literals */
        S->n_split++;
    }
    free(head);
}

/* ---- static filters unfolded ---- */

static bool is_fact_table(const gprog_t *P, uint32_t q) {
    const gp_pred_t *pr = &P->preds[q];
    if (pr->arity != 1 || !pr->is_static || !pr->n_rules) return false;
    for (uint32_t k = 0; k < pr->n_rules; k++) {
        const gp_rule_t *r = &P->rules[pr->rules[k]];
        if (r->n_body || !term_is_ground(P->ts, r->head)) return false;
    }
    return true;
}

/* Whether static relation q is a union of filters on its arguments: at most MAX_COPIES
 * rules, each with distinct variables as its head's arguments and a body of distinct
 * literals and unary fact tables over them, and demand (which a reader's binding satisfies:
 * it is what the reader asked for). */
static bool unfoldable(const gprog_t *P, uint32_t q) {
    const term_store_t *ts = P->ts;
    const gp_pred_t *pr = &P->preds[q];
    if (!pr->is_static || pr->demand || !pr->n_rules || pr->n_rules > MAX_COPIES) return false;
    for (uint32_t k = 0; k < pr->n_rules; k++) {
        const gp_rule_t *r = &P->rules[pr->rules[k]];
        if (r->transfer || r->n_vars > 64 || term_kind(ts, r->head) != TERM_FUN) return false;
        uint64_t head = 0;
        for (uint32_t i = 0; i < term_arity(ts, r->head); i++) {
            term_t a = term_arg(ts, r->head, i);
            if (!term_is_var(ts, a) || (head >> term_sym(ts, a) & 1)) return false;
            head |= 1ull << term_sym(ts, a);
        }
        for (uint32_t j = 0; j < r->n_body; j++) {
            const gp_lit_t *l = &r->body[j];
            if (l->kind == GLIT_POS && P->preds[l->pred].demand) continue;
            bool on[64] = {0};
            gprog_mark_vars(ts, l->atom, on);
            for (uint32_t v = 0; v < r->n_vars; v++)
                if (on[v] && !(head >> v & 1)) return false;
            if (l->kind == GLIT_DISTINCT) continue;
            if (l->kind != GLIT_POS || !is_fact_table(P, l->pred)) return false;
        }
    }
    return true;
}

/* The estimated ground literals of R once split as split() would (the auxiliary rules not
 * split further). */
static double split_estimate(gsplit_t *S, const wrule_t *R0, const bool *head) {
    uint32_t nv = R0->n_vars, n_made = 0;
    wrule_t R = {.head = R0->head, .n = R0->n, .n_vars = nv};
    R.lits = xmalloc((R0->n + 1) * sizeof *R.lits);
    memcpy(R.lits, R0->lits, R0->n * sizeof *R.lits);
    wlit_t *made = xmalloc((nv + 1) * sizeof *made); /* each elimination drops a variable */
    double *d = xmalloc((nv + 1) * sizeof *d), total = 0;
    bool *need = xmalloc(nv + 1), *all = xmalloc(R0->n + nv + MAX_PROJ + 2);
    memset(all, 1, R0->n + nv + MAX_PROJ + 1);
    cand_t c = {.in = xmalloc(R.n + 2), .keep = xmalloc(nv + 1)};
    while (n_made < nv && best_elimination(S, &R, head, &c)) {
        wrule_t A;
        uint32_t n_bucket = aux_rule(S, &R, c.in, c.keep, &c.proj, false, &A);
        total += cost(&A, all, c.keep, d, need);
        aux_wlit(&A, c.keep, d, &made[n_made]);
        free_filters(&A, n_bucket);
        uint32_t k = 0;
        for (uint32_t i = 0; i < R.n; i++)
            if (!c.in[i]) R.lits[k++] = R.lits[i];
        R.lits[k++] = made[n_made++];
        R.n = k;
    }
    total += cost(&R, all, head, d, need);
    free_wlits(made, n_made);
    free(made), free(R.lits), free(d), free(need), free(all), free(c.in), free(c.keep);
    return total;
}

/* The rule of the given head and body as split() sees it (literals and head variables). */
static void make_wrule(gsplit_t *S, term_t head, const gp_lit_t *body, uint32_t n, uint32_t nv,
                       wrule_t *R, bool *head_vars) {
    *R = (wrule_t){.head = head, .n = n, .n_vars = nv};
    R->lits = xmalloc((n + 1) * sizeof *R->lits);
    for (uint32_t i = 0; i < n; i++)
        make_wlit(S, &body[i], nv, &R->lits[i]);
    memset(head_vars, 0, nv + 1);
    gprog_mark_vars(S->ts, head, head_vars);
}

/* Copy c of rule r with its unfoldable literals (which, nw of them) replaced by the bodies
 * of their relations' rules (the mixed-radix digits of c choosing them); false when the copy
 * cannot hold (a distinct of two equal constants). */
static bool unfolded_copy(gsplit_t *S, const gp_rule_t *r, const uint32_t *which, uint32_t nw,
                          uint32_t c, gp_lit_t *body, uint32_t *n) {
    gprog_t *P = S->P;
    term_store_t *ts = P->ts;
    *n = 0;
    for (uint32_t j = 0, w = 0; j < r->n_body; j++)
        if (w < nw && which[w] == j)
            w++;
        else
            body[(*n)++] = r->body[j];
    for (uint32_t w = 0; w < nw; w++) {
        const gp_lit_t *l = &r->body[which[w]];
        const gp_pred_t *q = &P->preds[l->pred];
        const gp_rule_t *rho = &P->rules[q->rules[c % q->n_rules]];
        c /= q->n_rules;
        term_t map[64];
        for (uint32_t v = 0; v < rho->n_vars; v++)
            map[v] = TERM_NONE;
        for (uint32_t i = 0; i < term_arity(ts, rho->head); i++)
            map[term_sym(ts, term_arg(ts, rho->head, i))] = term_arg(ts, l->atom, i);
        for (uint32_t j = 0; j < rho->n_body; j++) {
            gp_lit_t x = rho->body[j];
            if (x.kind == GLIT_POS && P->preds[x.pred].demand) continue;
            x.atom = term_subst(ts, x.atom, map);
            if (x.kind == GLIT_DISTINCT && term_is_ground(ts, x.atom)) {
                if (term_arg(ts, x.atom, 0) == term_arg(ts, x.atom, 1)) return false;
                continue;
            }
            body[(*n)++] = x;
        }
    }
    return true;
}

/* Rule ri with its static filters unfolded (chess's (different_cells ?cx ?cy ?u ?v): one
 * copy reading (distinct ?cx ?u), one (distinct ?cy ?v)), when the copies split into
 * estimated fewer literals by a fifth: a filter over several variables ties them
 * together, its rules each tie fewer, so that the splitter can eliminate the rest
 * (threatened_with_capture's OR over every attacker's square other than (?cx ?cy) becomes
 * an OR over the attacker's files other than ?cx, of an OR over its ranks). */
static bool unfold(gsplit_t *S, uint32_t ri, gids_t *out) {
    gprog_t *P = S->P;
    const gp_rule_t *r = &P->rules[ri];
    uint32_t which[MAX_COPIES], nw = 0, copies = 1, nv = r->n_vars, extra = 0;
    for (uint32_t j = 0; j < r->n_body && nv <= 64; j++) {
        const gp_lit_t *l = &r->body[j];
        if (l->kind != GLIT_POS || !unfoldable(P, l->pred)) continue;
        const gp_pred_t *q = &P->preds[l->pred];
        copies *= q->n_rules;
        if (nw == MAX_COPIES || copies > MAX_COPIES) return false;
        which[nw++] = j;
        for (uint32_t k = 0; k < q->n_rules; k++)
            extra += P->rules[q->rules[k]].n_body;
    }
    if (!nw || nv > 64) return false;
    uint32_t cap = r->n_body + extra + 1, *n_body = xmalloc(copies * sizeof *n_body);
    gp_lit_t *bodies = xmalloc((size_t)copies * cap * sizeof *bodies);
    bool *head = xmalloc(nv + 1), *ok = xmalloc(copies);
    wrule_t R;
    make_wrule(S, r->head, r->body, r->n_body, nv, &R, head);
    double before = split_estimate(S, &R, head), after = 0;
    free_wlits(R.lits, R.n), free(R.lits);
    for (uint32_t c = 0; c < copies && after < 0.8 * before; c++) {
        ok[c] = unfolded_copy(S, r, which, nw, c, &bodies[(size_t)c * cap], &n_body[c]);
        if (!ok[c]) continue;
        make_wrule(S, r->head, &bodies[(size_t)c * cap], n_body[c], nv, &R, head);
        after += split_estimate(S, &R, head);
        free_wlits(R.lits, R.n), free(R.lits);
    }
    bool pays = after < 0.8 * before && before - after >= UNFOLD_MIN_GAIN;
    term_t h = r->head;
    for (uint32_t c = 0; c < copies && pays; c++)
        if (ok[c])
            split_rule(S, gprog_add(P, h, &bodies[(size_t)c * cap], n_body[c], nv, false), out);
    S->n_unfolded += pays;
    free(n_body), free(bodies), free(head), free(ok);
    return pays;
}

void gsplit_rule(gsplit_t *S, uint32_t ri, gids_t *out) {
    if (!unfold(S, ri, out)) split_rule(S, ri, out);
}
