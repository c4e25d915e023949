/* The grounder's rule program: see gprog.h. */
#include "engine/gprog.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/hash.h"
#include "base/scc.h"

uint32_t gprog_pred(gprog_t *p, sym_t sym, uint32_t arity, bool make) {
    uint64_t key = keyset_pair(sym, arity);
    if (!make) return keyset_find(&p->pred_keys, key);
    uint32_t id = keyset_add(&p->pred_keys, key);
    if (id < p->n_preds) return id;
    GROW(p->preds, p->cap_preds, p->n_preds + 1);
    p->n_preds++;
    p->preds[id] = (gp_pred_t){.sym = sym, .arity = arity, .scc = UINT32_MAX};
    return id;
}

uint32_t gprog_pred_of(const gprog_t *p, term_t atom) {
    const term_store_t *ts = p->ts;
    return gprog_pred((gprog_t *)p, term_sym(ts, atom), term_arity(ts, atom), false);
}

uint32_t gprog_aux(gprog_t *p, uint32_t arity, bool is_static) {
    char name[48];
    sym_t s;
    do { /* a name no game can write: KIF symbols have no spaces */
        int n = snprintf(name, sizeof name, "aux %u", p->n_aux++);
        s = term_intern(p->ts, name, (size_t)n);
    } while (gprog_pred(p, s, arity, false) != UINT32_MAX);
    uint32_t id = gprog_pred(p, s, arity, true);
    p->preds[id].is_static = is_static;
    p->preds[id].relevant = true;
    return id;
}

uint32_t gprog_add(gprog_t *p, term_t head, const gp_lit_t *body, uint32_t n_body, uint32_t n_vars,
                   bool transfer) {
    GROW(p->rules, p->cap_rules, p->n_rules + 1);
    uint32_t id = p->n_rules++;
    gp_rule_t *r = &p->rules[id];
    r->head = head;
    r->pred = gprog_pred_of(p, head);
    r->n_body = n_body;
    r->n_vars = n_vars;
    r->transfer = transfer;
    r->body = xmalloc((n_body + 1) * sizeof *r->body);
    for (uint32_t i = 0; i < n_body; i++)
        r->body[i] = body[i];
    gp_pred_t *pr = &p->preds[r->pred];
    GROW(pr->rules, pr->cap_rules, pr->n_rules + 1);
    pr->rules[pr->n_rules++] = id;
    return id;
}

void gprog_mark_vars(const term_store_t *ts, term_t t, bool *on) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        on[term_sym(ts, t)] = true;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        gprog_mark_vars(ts, term_arg(ts, t, i), on);
}

void gprog_list_vars(const term_store_t *ts, term_t t, uint32_t *out, uint32_t *n, bool *seen) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        uint32_t v = term_sym(ts, t);
        if (!seen[v]) seen[v] = true, out[(*n)++] = v;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        gprog_list_vars(ts, term_arg(ts, t, i), out, n, seen);
}

uint32_t gprog_unbound(const term_store_t *ts, term_t t, const bool *bound, const bool *of) {
    if (term_is_ground(ts, t)) return 0;
    if (term_is_var(ts, t)) {
        uint32_t v = term_sym(ts, t);
        return !bound[v] && (!of || of[v]);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        n += gprog_unbound(ts, term_arg(ts, t, i), bound, of);
    return n;
}

bool gprog_is_interface(const gprog_t *p, uint32_t pred) {
    sym_t s = p->preds[pred].sym;
    return s == SYM_LEGAL || s == SYM_NEXT || s == SYM_GOAL || s == SYM_TERMINAL || s == SYM_SEES ||
           s == SYM_INIT;
}

/* What the interface reads, and everything that feeds it. */
static void mark_relevant(gprog_t *p) {
    for (uint32_t k = 0; k < p->n_preds; k++)
        p->preds[k].relevant = gprog_is_interface(p, k);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < p->n_rules; i++) {
            const gp_rule_t *r = &p->rules[i];
            if (!p->preds[r->pred].relevant) continue;
            for (uint32_t j = 0; j < r->n_body; j++)
                if (r->body[j].kind != GLIT_DISTINCT && !p->preds[r->body[j].pred].relevant)
                    p->preds[r->body[j].pred].relevant = changed = true;
        }
    }
}

static void copy_rules(gprog_t *p) {
    game_t *g = p->g;
    for (uint32_t k = 0; k < g->n_preds; k++) {
        uint32_t id = gprog_pred(p, g->preds[k].sym, g->preds[k].arity, true);
        p->preds[id].is_static = g->preds[k].layer == LAYER_STATIC;
    }
    gp_lit_t *body = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < g->n_rules; i++) {
        const rule_t *r = &g->rules[i];
        GROW(body, cap, r->n_body + 1);
        for (uint32_t j = 0; j < r->n_body; j++) {
            const lit_t *l = &r->body[j];
            body[j].kind = l->kind == LIT_POS   ? GLIT_POS
                           : l->kind == LIT_NEG ? GLIT_NEG
                                                : GLIT_DISTINCT;
            body[j].atom = l->atom;
            body[j].pred = l->kind == LIT_DISTINCT ? UINT32_MAX : gprog_pred_of(p, l->atom);
        }
        gprog_add(p, r->head, body, r->n_body, r->n_vars, false);
    }
    free(body);
}

/* true <= init, true <= next, does <= legal */
static void add_transfers(gprog_t *p) {
    term_store_t *ts = p->ts;
    term_t v[2] = {term_var(ts, 0), term_var(ts, 1)};
    p->p_true = gprog_pred(p, SYM_TRUE, 1, false);
    p->p_does = gprog_pred(p, SYM_DOES, 2, false);
    p->p_next = gprog_pred(p, SYM_NEXT, 1, false);
    p->p_legal = gprog_pred(p, SYM_LEGAL, 2, false);
    p->p_init = gprog_pred(p, SYM_INIT, 1, false);
    if (p->p_true != UINT32_MAX) {
        term_t head = term_fun(ts, SYM_TRUE, v, 1);
        uint32_t from[2] = {p->p_init, p->p_next};
        sym_t sym[2] = {SYM_INIT, SYM_NEXT};
        for (int k = 0; k < 2; k++) {
            if (from[k] == UINT32_MAX) continue;
            gp_lit_t l = {GLIT_POS, from[k], term_fun(ts, sym[k], v, 1)};
            gprog_add(p, head, &l, 1, 1, true);
        }
    }
    if (p->p_does != UINT32_MAX && p->p_legal != UINT32_MAX) {
        gp_lit_t l = {GLIT_POS, p->p_legal, term_fun(ts, SYM_LEGAL, v, 2)};
        gprog_add(p, term_fun(ts, SYM_DOES, v, 2), &l, 1, 2, true);
    }
}

gprog_t *gprog_new(game_t *g) {
    gprog_t *p = xcalloc(1, sizeof *p);
    p->g = g;
    p->ts = g->ts;
    copy_rules(p);
    add_transfers(p);
    mark_relevant(p);
    gprog_order(p);
    return p;
}

void gprog_free(gprog_t *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->n_rules; i++)
        free(p->rules[i].body);
    for (uint32_t k = 0; k < p->n_preds; k++)
        free(p->preds[k].rules);
    keyset_fini(&p->pred_keys);
    free(p->rules), free(p->preds), free(p->scc_preds), free(p->scc_start);
    free(p);
}

/* ---- components, dependencies first ---- */

/* The graph of components: a relevant predicate -> the predicates its rules read. */
static void build_edges(const gprog_t *p, uint32_t **start, uint32_t **edges) {
    uint32_t np = p->n_preds, *st = xcalloc(np + 2, sizeof *st), *to = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < p->n_rules; i++) {
            const gp_rule_t *r = &p->rules[i];
            if (!p->preds[r->pred].relevant) continue;
            for (uint32_t j = 0; j < r->n_body; j++) {
                if (r->body[j].kind == GLIT_DISTINCT) continue;
                if (pass == 0)
                    st[r->pred + 2]++;
                else
                    to[st[r->pred + 1]++] = r->body[j].pred;
            }
        }
        if (pass == 0) {
            for (uint32_t k = 0; k < np; k++)
                st[k + 2] += st[k + 1];
            to = xmalloc((st[np + 1] + 1) * sizeof *to);
        }
    }
    *start = st, *edges = to;
}

void gprog_order(gprog_t *p) {
    uint32_t np = p->n_preds, *start, *edges;
    build_edges(p, &start, &edges);
    uint32_t *comp = xmalloc((np + 1) * sizeof *comp);
    bool *roots = xmalloc((np + 1) * sizeof *roots), *cyclic = xmalloc((np + 1) * sizeof *cyclic);
    for (uint32_t k = 0; k < np; k++)
        roots[k] = p->preds[k].relevant;
    p->n_sccs = scc_find(np, start, edges, roots, comp, NULL);
    scc_cyclic(np, start, edges, comp, p->n_sccs, cyclic);
    for (uint32_t k = 0; k < np; k++)
        p->preds[k].scc = comp[k], p->preds[k].recursive = cyclic[k];
    free(p->scc_preds), free(p->scc_start);
    p->scc_start = xcalloc(p->n_sccs + 2, sizeof *p->scc_start);
    p->scc_preds = xmalloc((np + 1) * sizeof *p->scc_preds);
    for (uint32_t k = 0; k < np; k++)
        if (comp[k] != SCC_NONE) p->scc_start[comp[k] + 2]++;
    for (uint32_t c = 0; c < p->n_sccs; c++)
        p->scc_start[c + 2] += p->scc_start[c + 1];
    for (uint32_t k = 0; k < np; k++)
        if (comp[k] != SCC_NONE) p->scc_preds[p->scc_start[comp[k] + 1]++] = k;
    free(comp), free(roots), free(cyclic), free(start), free(edges);
}
