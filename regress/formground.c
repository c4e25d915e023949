/* Grounding lifted formulas on the vocabulary of fluents: see formground.h. */
#include "regress/formground.h"
#include "base/clock.h"
#include "base/hash.h"
#include "base/htab.h"
#include "gdl/bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- grounding ---------------- */

/* Memo of grounded scopes: a scope under given values of the variables it shares with
 * the enclosing scopes always grounds to the same circuit. */
typedef struct {
    const fconj_t *scope;
    uint32_t *vars; /* the variables of the scope's tree (sorted, distinct) */
    uint32_t n_vars;
} svars_t;

typedef struct {
    const fconj_t *scope;
    uint32_t hash;
    uint32_t key; /* offset of the values in keys */
    pn_t result;
} memo_t;

typedef struct {
    circuit_t *c;
    const vocab_t *v;
    term_store_t *ts;
    bind_t b; /* variable -> ground term */
    uint32_t nv;
    pn_t *buf; /* collected disjuncts, a stack shared by the nested scopes */
    size_t n_buf, cap_buf;
    svars_t *sv; /* per scope met, indexed by its pointer in sv_tab */
    size_t sv_cap, sv_n;
    htab_t sv_tab;
    memo_t *memo; /* per scope and values of its variables, indexed in memo_tab */
    size_t memo_cap, memo_n;
    htab_t memo_tab;
    term_t *keys;
    size_t n_keys, cap_keys;
    uint8_t *mark;
    /* literal_groups: per variable, a literal of the current scope using it, valid where
     * first_at equals the scope's stamp (nothing to clear between scopes) */
    uint32_t *first, *first_at, stamp;
} gr_t;

static size_t ptr_hash(const void *p) {
    return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull);
}

static void collect_vars(void *ctx, uint32_t v) {
    gr_t *g = ctx;
    g->mark[v] = 1;
}

static uint32_t sv_hash(const void *ctx, uint32_t id) {
    return (uint32_t)ptr_hash(((const gr_t *)ctx)->sv[id].scope);
}

typedef struct {
    const gr_t *g;
    const fconj_t *scope;
} sv_key_t;

static bool sv_same(const void *ctx, uint32_t id) {
    const sv_key_t *k = ctx;
    return k->g->sv[id].scope == k->scope;
}

static const svars_t *scope_vars(gr_t *g, const fconj_t *S) {
    htab_reserve(&g->sv_tab, sv_hash, g);
    sv_key_t k = {g, S};
    uint32_t *slot = htab_probe(&g->sv_tab, (uint32_t)ptr_hash(S), sv_same, &k);
    if (*slot) return &g->sv[*slot - 1];
    fconj_each_var(g->ts, S, collect_vars, g);
    svars_t e = {.scope = S};
    for (uint32_t v = 0; v < g->nv; v++)
        if (g->mark[v]) {
            e.vars = xrealloc(e.vars, (e.n_vars + 1) * sizeof *e.vars);
            e.vars[e.n_vars++] = v;
            g->mark[v] = 0;
        }
    GROW(g->sv, g->sv_cap, g->sv_n + 1);
    g->sv[g->sv_n] = e;
    htab_fill(&g->sv_tab, slot, (uint32_t)g->sv_n);
    return &g->sv[g->sv_n++];
}

static uint32_t memo_hash(const void *ctx, uint32_t id) {
    return ((const gr_t *)ctx)->memo[id].hash;
}

/* A memo entry looked for: the scope, the hash, the values of its variables now. */
typedef struct {
    const gr_t *g;
    const fconj_t *scope;
    const svars_t *sv;
    uint32_t hash;
} memo_key_t;

static bool memo_same(const void *ctx, uint32_t id) {
    const memo_key_t *k = ctx;
    const gr_t *g = k->g;
    const memo_t *m = &g->memo[id];
    if (m->scope != k->scope || m->hash != k->hash) return false;
    for (uint32_t i = 0; i < k->sv->n_vars; i++)
        if (g->keys[m->key + i] != g->b.val[k->sv->vars[i]]) return false;
    return true;
}

static bool g_bound(const gr_t *g, term_t t) {
    return bind_bound(&g->b, g->ts, t);
}

static term_t g_inst(gr_t *g, term_t t) {
    return bind_subst(&g->b, g->ts, t);
}

/* Pattern p (variables bound or not) against a ground term t. */
static bool g_match(gr_t *g, term_t p, term_t t) {
    return bind_match(&g->b, g->ts, p, t);
}

static void g_undo(gr_t *g, uint32_t mark) {
    bind_undo(&g->b, mark);
}

static pn_t ground_scope(gr_t *g, const fconj_t *S);

/* Enumerates the bindings of S's positive literals from literal order[k] on; each
 * complete binding pushes the conjunction of the literals in `in` (all when NULL) onto
 * g->buf. */
static void enumerate(gr_t *g, const fconj_t *S, const uint8_t *in, const uint32_t *order,
                      uint32_t n_order, uint32_t k) {
    if (circuit_overflow(g->c)) return; /* the result is thrown away: stop early */
    if (k == n_order) {
        /* complete: the checks and negations of S */
        size_t base = g->n_buf;
        pn_t conj_small[64];
        uint32_t nc = 0;
        pn_t *conj = conj_small;
        uint32_t cap = 64;
        bool dead = false;
        for (uint32_t i = 0; i < S->n && !dead; i++) {
            if (in && !in[i]) continue;
            const flit_t *l = &S->lits[i];
            pn_t p = PN_TRUE;
            switch (l->kind) {
            case FL_TRUE: {
                uint32_t f = vocab_index(g->v, g_inst(g, l->a));
                p = f == UINT32_MAX ? PN_FALSE : pn_var(g->c, f);
                break;
            }
            case FL_NTRUE:
                if (g_bound(g, l->a)) {
                    uint32_t f = vocab_index(g->v, g_inst(g, l->a));
                    p = f == UINT32_MAX ? PN_TRUE : pn_not(g->c, pn_var(g->c, f));
                }
                break;
            case FL_DIST:
                if (g_bound(g, l->a) && g_bound(g, l->b) && g_inst(g, l->a) == g_inst(g, l->b))
                    p = PN_FALSE;
                break;
            case FL_NOT:
                p = pn_not(g->c, ground_scope(g, l->sub));
                break;
            default:
                break; /* true literals and = were enumerated; moves are not constraints */
            }
            if (p == PN_FALSE)
                dead = true;
            else if (p != PN_TRUE) {
                if (nc == cap) {
                    pn_t *bigger = xmalloc(2 * cap * sizeof *bigger);
                    memcpy(bigger, conj, nc * sizeof *conj);
                    if (conj != conj_small) free(conj);
                    conj = bigger;
                    cap *= 2;
                }
                conj[nc++] = p;
            }
        }
        if (!dead) {
            pn_t r = pn_and(g->c, conj, nc);
            GROW(g->buf, g->cap_buf, g->n_buf + 1);
            g->buf[g->n_buf++] = r;
        }
        if (conj != conj_small) free(conj);
        (void)base;
        return;
    }
    const flit_t *l = &S->lits[order[k]];
    uint32_t mark = bind_mark(&g->b);
    if (l->kind == FL_EQ) {
        bool ba = g_bound(g, l->a), bb = g_bound(g, l->b);
        bool ok;
        if (ba && bb)
            ok = g_inst(g, l->a) == g_inst(g, l->b);
        else if (bb)
            ok = g_match(g, l->a, g_inst(g, l->b));
        else if (ba)
            ok = g_match(g, l->b, g_inst(g, l->a));
        else
            ok = true; /* both sides open: some instance makes them equal */
        if (ok) enumerate(g, S, in, order, n_order, k + 1);
        g_undo(g, mark);
        return;
    }
    /* FL_TRUE: against the fluents of its functor */
    term_t p = l->a;
    const term_store_t *ts = g->ts;
    if (g_bound(g, p)) {
        /* a lookup: whether it holds is a variable of the circuit, added at the end */
        enumerate(g, S, in, order, n_order, k + 1);
        return;
    }
    if (term_is_var(ts, p)) {
        for (uint32_t i = 0; i < vocab_count(g->v); i++) {
            if (g_match(g, p, vocab_fluent(g->v, i))) enumerate(g, S, in, order, n_order, k + 1);
            g_undo(g, mark);
        }
        return;
    }
    const uint32_t *ids;
    uint32_t n = vocab_functor(g->v, term_sym(ts, p),
                               term_kind(ts, p) == TERM_FUN ? term_arity(ts, p) : 0, &ids);
    for (uint32_t i = 0; i < n; i++) {
        if (g_match(g, p, vocab_fluent(g->v, ids[i]))) enumerate(g, S, in, order, n_order, k + 1);
        g_undo(g, mark);
    }
}

static pn_t ground_scope_raw(gr_t *g, const fconj_t *S);

static pn_t ground_scope(gr_t *g, const fconj_t *S) {
    /* the memo grows with every binding tried, even where no node is made: it counts
     * against the node limit too */
    if (!circuit_within(g->c, g->memo_n)) return PN_FALSE; /* thrown away: stop early */
    const svars_t *sv = scope_vars(g, S);
    uint32_t h = (uint32_t)ptr_hash(S);
    for (uint32_t i = 0; i < sv->n_vars; i++)
        h = hash_mix(h, g->b.val[sv->vars[i]]);
    memo_key_t mk = {g, S, sv, h};
    uint32_t found = htab_find(&g->memo_tab, h, memo_same, &mk);
    if (found != HTAB_NONE) return g->memo[found].result;
    uint32_t n_vars = sv->n_vars;
    uint32_t *vars = sv->vars; /* stable: svars entries keep their arrays */
    pn_t r = ground_scope_raw(g, S);
    GROW(g->keys, g->cap_keys, g->n_keys + n_vars);
    uint32_t key = (uint32_t)g->n_keys;
    for (uint32_t i = 0; i < n_vars; i++)
        g->keys[g->n_keys++] = g->b.val[vars[i]];
    GROW(g->memo, g->memo_cap, g->memo_n + 1);
    g->memo[g->memo_n] = (memo_t){.scope = S, .hash = h, .key = key, .result = r};
    htab_add(&g->memo_tab, h, (uint32_t)g->memo_n++, memo_hash, g);
    return r;
}

typedef struct {
    gr_t *g;
    uint32_t unbound;
} ucount_t;

static void count_unbound(void *ctx, uint32_t v) {
    ucount_t *u = ctx;
    if (u->g->b.val[v] == TERM_NONE && !u->g->mark[v]) u->unbound++;
}

static void sim_bind(void *ctx, uint32_t v) {
    ((gr_t *)ctx)->mark[v] = 1;
}
static void sim_clear(void *ctx, uint32_t v) {
    ((gr_t *)ctx)->mark[v] = 0;
}

/* The enumeration order of the positive literals in `in` (all when NULL): most bound
 * first (simulated with g->mark), then the `=` literals. Returns how many. */
static uint32_t literal_order(gr_t *g, const fconj_t *S, const uint8_t *in, uint32_t *order,
                              uint8_t *used) {
    memset(used, 0, S->n);
    uint32_t n = 0;
    for (;;) {
        int best = -1;
        uint32_t best_u = UINT32_MAX;
        for (uint32_t i = 0; i < S->n; i++) {
            if (used[i] || S->lits[i].kind != FL_TRUE || (in && !in[i])) continue;
            ucount_t u = {.g = g};
            term_each_var(g->ts, S->lits[i].a, count_unbound, &u);
            if (u.unbound < best_u) best_u = u.unbound, best = (int)i;
        }
        if (best < 0) break;
        used[best] = 1;
        order[n++] = (uint32_t)best;
        term_each_var(g->ts, S->lits[best].a, sim_bind, g);
    }
    for (uint32_t i = 0; i < n; i++)
        term_each_var(g->ts, S->lits[order[i]].a, sim_clear, g);
    for (uint32_t i = 0; i < S->n; i++)
        if (S->lits[i].kind == FL_EQ && (!in || in[i])) order[n++] = i;
    return n;
}

/* The disjunction, over the bindings of the literals in `in`, of their conjunction. */
static pn_t ground_part(gr_t *g, const fconj_t *S, const uint8_t *in, uint32_t *order,
                        uint8_t *used) {
    uint32_t n = literal_order(g, S, in, order, used);
    size_t base = g->n_buf;
    enumerate(g, S, in, order, n, 0);
    pn_t r = pn_or(g->c, g->buf + base, (uint32_t)(g->n_buf - base));
    g->n_buf = base;
    return r;
}

/* Union-find root, with path halving. */
static uint32_t uf_root(uint32_t *up, uint32_t i) {
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

typedef struct {
    gr_t *g;
    uint32_t *up; /* union-find forest over the scope's literals */
    uint32_t lit;
} joiner_t;

static void join_var(void *ctx, uint32_t v) {
    joiner_t *j = ctx;
    gr_t *g = j->g;
    if (g->b.val[v] != TERM_NONE) return; /* bound by an enclosing scope: no link */
    if (g->first_at[v] != g->stamp) {
        g->first_at[v] = g->stamp;
        g->first[v] = j->lit;
    } else {
        j->up[uf_root(j->up, j->lit)] = uf_root(j->up, g->first[v]);
    }
}

/* Groups S's literals by the variables unbound here that they share (up: a union-find
 * forest over the literals); returns the number of groups. */
static uint32_t literal_groups(gr_t *g, const fconj_t *S, uint32_t *up) {
    joiner_t j = {.g = g, .up = up};
    g->stamp++;
    for (uint32_t i = 0; i < S->n; i++)
        up[i] = i;
    for (uint32_t i = 0; i < S->n; i++) {
        const flit_t *l = &S->lits[i];
        j.lit = i;
        if (l->kind == FL_NOT) {
            const svars_t *sv = scope_vars(g, l->sub);
            for (uint32_t k = 0; k < sv->n_vars; k++)
                join_var(&j, sv->vars[k]);
        } else {
            flit_each_var(g->ts, l, join_var, &j);
        }
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < S->n; i++)
        n += uf_root(up, i) == i;
    return n;
}

/* A scope whose literals fall into groups sharing no open variable is the conjunction of
 * the groups, each grounded on its own: ∃x∃y (A(x) ∧ B(y)) = ∃x A(x) ∧ ∃y B(y). Without
 * that, breakthrough's "some black piece and some white piece" grounds to 64 x 64
 * conjunctions instead of 64 + 64 fluents. */
static pn_t ground_scope_raw(gr_t *g, const fconj_t *S) {
    /* scratch per literal: on the stack for the usual small scope */
    uint32_t order_small[64], up_small[64];
    uint8_t used_small[64], in_small[64];
    bool small = S->n <= 64;
    uint32_t *order = small ? order_small : xmalloc(S->n * sizeof *order);
    uint32_t *up = small ? up_small : xmalloc(S->n * sizeof *up);
    uint8_t *used = small ? used_small : xmalloc(S->n);
    pn_t r;
    if (literal_groups(g, S, up) <= 1) {
        r = ground_part(g, S, NULL, order, used);
    } else {
        uint8_t *in = small ? in_small : xmalloc(S->n);
        pn_t *parts = xmalloc(S->n * sizeof *parts);
        uint32_t np = 0;
        for (uint32_t root = 0; root < S->n; root++) {
            if (uf_root(up, root) != root) continue;
            for (uint32_t i = 0; i < S->n; i++)
                in[i] = uf_root(up, i) == root;
            parts[np] = ground_part(g, S, in, order, used);
            if (parts[np++] == PN_FALSE) break;
        }
        r = pn_and(g->c, parts, np);
        free(parts);
        if (!small) free(in);
    }
    if (!small) free(order), free(up), free(used);
    return r;
}

/* ds[i] := the circuit of disjunct i, *common := that of the common conjunct (PN_TRUE
 * when there is none), all in one grounding (its memo shared). */
void ground_split(circuit_t *c, const vocab_t *v, term_store_t *ts, const form_t *f, pn_t *ds,
                  pn_t *common) {
    uint32_t nv = 1;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t b = fconj_var_bound(ts, f->d[i]) + 1;
        if (b > nv) nv = b;
    }
    if (f->common) {
        uint32_t b = fconj_var_bound(ts, f->common) + 1;
        if (b > nv) nv = b;
    }
    gr_t g = {.c = c, .v = v, .ts = ts, .nv = nv};
    bind_init(&g.b, nv + 1);
    g.mark = xcalloc(nv + 1, 1);
    g.first = xmalloc((nv + 1) * sizeof *g.first);
    g.first_at = xcalloc(nv + 1, sizeof *g.first_at); /* stamps start at 1 */
    for (uint32_t i = 0; i < f->n; i++)
        ds[i] = ground_scope(&g, f->d[i]);
    *common = f->common ? ground_scope(&g, f->common) : PN_TRUE;
    for (size_t i = 0; i < g.sv_n; i++)
        free(g.sv[i].vars);
    free(g.sv);
    htab_fini(&g.sv_tab);
    free(g.memo);
    htab_fini(&g.memo_tab);
    free(g.keys);
    free(g.mark);
    free(g.first);
    free(g.first_at);
    bind_fini(&g.b);
    free(g.buf);
}

pn_t ground_form(circuit_t *c, const vocab_t *v, term_store_t *ts, const form_t *f) {
    pn_t *ds = xmalloc((f->n + 1) * sizeof *ds), common;
    ground_split(c, v, ts, f, ds, &common);
    pn_t r = pn_or(c, ds, f->n);
    if (r != PN_FALSE) {
        pn_t both[2] = {common, r};
        r = pn_and(c, both, 2);
    }
    free(ds);
    return r;
}

void ground_disjuncts(circuit_t *c, const vocab_t *v, term_store_t *ts, const form_t *f,
                      pn_t *out) {
    pn_t common;
    ground_split(c, v, ts, f, out, &common);
    for (uint32_t i = 0; i < f->n; i++) {
        pn_t both[2] = {common, out[i]};
        out[i] = pn_and(c, both, 2);
    }
}
