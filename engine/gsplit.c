/* Splitting rules by variable elimination: see gsplit.h. */
#include "engine/gsplit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/keyset.h"
#include "gdl/bind.h"

/* A literal of a rule being split: its distinct variables (rule numbering), and for a
 * positive one the number of atoms that match it and the distinct values of each variable. */
typedef struct {
    gp_lit_t lit;
    uint32_t n_vars, *vars;
    double size, *d;
    bool dyn;
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
    keyset_t patterns; /* canonical pattern -> its statistics (numbered alike) */
    double *size, **d;
    size_t n_stats, cap_stats;
    double *aux_size, **aux_d; /* per predicate (auxiliary ones) */
    uint32_t n_aux_slots;
    keyset_t dom_keys; /* (pattern, variable) -> dom_pred[its number] */
    uint32_t *dom_pred;
    size_t cap_dom;
    uint32_t n_split, n_aux, n_dom;
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
    keyset_fini(&S->patterns), keyset_fini(&S->dom_keys);
    free(S->size), free(S->d), free(S->aux_size), free(S->aux_d), free(S->dom_pred);
    free(S);
}

void gsplit_counts(const gsplit_t *S, uint32_t *split, uint32_t *aux) {
    *split = S->n_split, *aux = S->n_aux;
}

/* ---- statistics of literals ---- */

/* Counts the atoms matching a canonical pattern and the distinct values of each variable. */
static uint32_t compute_stats(gsplit_t *S, uint32_t pred, term_t pattern, uint32_t m) {
    const gids_t *ids = gatoms_of(S->A, pred);
    keyset_t *sets = xcalloc(m + 1, sizeof *sets); /* the values of each variable */
    double *d = xcalloc(m + 1, sizeof *d), size = 0;
    bind_t b;
    bind_init(&b, m);
    for (uint32_t k = 0; k < ids->n; k++) {
        bind_undo(&b, 0);
        if (!bind_match(&b, S->ts, pattern, S->A->term[ids->ids[k]])) continue;
        size++;
        for (uint32_t c = 0; c < m; c++)
            keyset_add(&sets[c], b.val[c]);
    }
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
    uint32_t id = keyset_find(&S->patterns, pattern);
    if (id != UINT32_MAX) return id;
    id = compute_stats(S, pred, pattern, m);
    keyset_add(&S->patterns, pattern); /* numbered id, as its statistics */
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
    if (l->kind != GLIT_POS) return;
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

typedef struct {
    bool *in;   /* the bucket: literals moved to the auxiliary rule */
    bool *keep; /* the auxiliary head's variables */
    double cost;
} cand_t;

/* The bucket of variable v: the literals that mention it, with for each negation or
 * distinct among them a positive literal supplying each variable the bucket lacks (the one
 * adding fewest variables, static before not, smaller before larger). False when v cannot
 * be eliminated usefully. */
static bool bucket(const wrule_t *R, uint32_t v, const bool *head, bool closure, bool *in) {
    bool dyn = false, any_out = false;
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
        for (uint32_t i = 0; i < R->n; i++)
            if (in[i] && R->lits[i].lit.kind == GLIT_POS)
                for (uint32_t k = 0; k < R->lits[i].n_vars; k++)
                    cov[R->lits[i].vars[k]] = true;
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

/* The auxiliary rule of bucket in with head variables keep: the bucket's literals, and for
 * each head variable that a literal left in the rest restricts more than the bucket does, a
 * filter to the values it takes there (the auxiliary atoms outside them would never be
 * read). When real, the filters are relations made; else estimates only. The literals are
 * shallow copies of R's, the filters A's own (from A->lits[n_bucket] on). */
static uint32_t aux_rule(gsplit_t *S, const wrule_t *R, const bool *in, const bool *keep, bool real,
                         wrule_t *A) {
    uint32_t nv = R->n_vars, n_bucket = 0;
    A->n_vars = nv;
    A->n = 0;
    A->lits = xmalloc((R->n + nv + 1) * sizeof *A->lits);
    for (uint32_t i = 0; i < R->n; i++)
        if (in[i]) A->lits[A->n++] = R->lits[i];
    n_bucket = A->n;
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
        w->n_vars = 1, w->vars[0] = v, w->d[0] = best, w->size = best, w->dyn = false;
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
    w->dyn = true;
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
                               const bool *head, double *d, bool *need) {
    wrule_t A;
    uint32_t n_bucket = aux_rule(S, R, in, keep, false, &A);
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
            if (!shared || !bucket(R, v, head, false, in) || !bucket(R, u, head, false, in2))
                continue;
            bool out = false;
            for (uint32_t i = 0; i < n; i++)
                in[i] = in[i] || in2[i], out |= !in[i];
            if (!out) continue;
            aux_head(R, in, head, keep);
            double c = elimination_cost(S, R, in, keep, head, d, need);
            if (c >= single) continue;
            single = c;
            memcpy(best->in, in, n), memcpy(best->keep, keep, nv);
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
    memset(all, 1, n);
    double now = cost(R, all, head, d, need), single = INFINITY, closed = INFINITY;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < R->lits[i].n_vars; k++) {
            uint32_t v = R->lits[i].vars[k];
            if (head[v] || seen[v]) continue;
            seen[v] = true;
            for (int closure = 0; closure < 2; closure++) {
                if (!bucket(R, v, head, closure, in)) continue;
                aux_head(R, in, head, keep);
                double c = elimination_cost(S, R, in, keep, head, d, need);
                if (c >= (closure ? closed : single)) continue;
                if (closure) {
                    closed = c;
                    memcpy(cin, in, n), memcpy(ckeep, keep, nv);
                } else {
                    single = c;
                    memcpy(best->in, in, n), memcpy(best->keep, keep, nv);
                }
            }
        }
    if (single >= 0.8 * now) /* none pays alone: two variables that share a literal */
        single = best_pair(S, R, head, best, single);
    if (closed < single / 1.5) {
        single = closed;
        memcpy(best->in, cin, n), memcpy(best->keep, ckeep, nv);
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
    uint32_t n_bucket = aux_rule(S, R, c->in, c->keep, true, &A);
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

void gsplit_rule(gsplit_t *S, uint32_t ri, gids_t *out) {
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
