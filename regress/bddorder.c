/* Families of fluents that select another family's cells: see bddorder.h. */
#include "regress/bddorder.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

typedef struct {
    const game_t *g;
    const term_store_t *ts;
    bddfam_t *fams; /* the families read by (true X), X of arity 1 or more */
    uint32_t n_fams;
    uint32_t *off;  /* per predicate: its first argument's row in links */
    uint8_t *links; /* per predicate argument, per family: the argument is joined with an
                       index argument of the family (in some rule of the predicate) */
} sel_ctx_t;

static uint32_t fam_of(const sel_ctx_t *c, sym_t sym, uint32_t arity) {
    for (uint32_t i = 0; i < c->n_fams; i++)
        if (c->fams[i].sym == sym && c->fams[i].arity == arity) return i;
    return UINT32_MAX;
}

/* The X of a literal (true X), TERM_NONE when it is not one. */
static term_t true_arg(const term_store_t *ts, const lit_t *l) {
    if (l->kind == LIT_DISTINCT) return TERM_NONE;
    if (term_sym(ts, l->atom) != SYM_TRUE || term_arity(ts, l->atom) != 1) return TERM_NONE;
    term_t x = term_arg(ts, l->atom, 0);
    return term_is_var(ts, x) ? TERM_NONE : x;
}

static void collect_fams(sel_ctx_t *c) {
    uint32_t cap = 0;
    for (size_t r = 0; r < c->g->n_rules; r++) {
        const rule_t *ru = &c->g->rules[r];
        for (uint32_t i = 0; i < ru->n_body; i++) {
            term_t x = true_arg(c->ts, &ru->body[i]);
            if (x == TERM_NONE || term_arity(c->ts, x) < 1) continue;
            sym_t s = term_sym(c->ts, x);
            if (fam_of(c, s, term_arity(c->ts, x)) != UINT32_MAX) continue;
            if (c->n_fams == cap)
                cap = cap ? 2 * cap : 16, c->fams = xrealloc(c->fams, cap * sizeof *c->fams);
            c->fams[c->n_fams++] = (bddfam_t){s, term_arity(c->ts, x)};
        }
    }
}

/* ORs into set (one byte per family) the families whose index argument the literal joins
 * with variable v: (true (B .. v ..)) with v not last, or a relation's argument linked. */
static void uses(const sel_ctx_t *c, const lit_t *l, term_t v, uint8_t *set) {
    const term_store_t *ts = c->ts;
    if (l->kind == LIT_DISTINCT) return;
    term_t x = true_arg(ts, l);
    if (x != TERM_NONE) {
        uint32_t f = fam_of(c, term_sym(ts, x), term_arity(ts, x));
        for (uint32_t k = 0; f != UINT32_MAX && k + 1 < term_arity(ts, x); k++)
            if (term_arg(ts, x, k) == v) set[f] = 1;
        return;
    }
    sym_t s = term_sym(ts, l->atom);
    if (s == SYM_TRUE || s == SYM_DOES || term_is_var(ts, l->atom)) return;
    uint32_t p = game_pred(c->g, s, term_arity(ts, l->atom));
    if (p == UINT32_MAX) return;
    for (uint32_t k = 0; k < term_arity(ts, l->atom); k++)
        if (term_arg(ts, l->atom, k) == v)
            for (uint32_t f = 0; f < c->n_fams; f++)
                set[f] |= c->links[(size_t)(c->off[p] + k) * c->n_fams + f];
}

/* links to their least fixpoint: a relation's argument is linked with what the bodies of
 * its rules join the argument's variable with. */
static void make_links(sel_ctx_t *c) {
    const game_t *g = c->g;
    const term_store_t *ts = c->ts;
    c->off = xmalloc((g->n_preds + 1) * sizeof *c->off);
    uint32_t rows = 0;
    for (size_t p = 0; p < g->n_preds; p++)
        c->off[p] = rows, rows += g->preds[p].arity;
    c->links = xcalloc((size_t)rows * c->n_fams + 1, 1);
    uint8_t *set = xmalloc(c->n_fams + 1);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t r = 0; r < g->n_rules; r++) {
            const rule_t *ru = &g->rules[r];
            sym_t hs = term_sym(ts, ru->head);
            if (!ru->n_body || hs == SYM_NEXT || term_is_var(ts, ru->head)) continue;
            uint32_t p = game_pred(g, hs, term_arity(ts, ru->head));
            for (uint32_t j = 0; p != UINT32_MAX && j < term_arity(ts, ru->head); j++) {
                term_t v = term_arg(ts, ru->head, j);
                if (!term_is_var(ts, v)) continue;
                memset(set, 0, c->n_fams);
                for (uint32_t i = 0; i < ru->n_body; i++)
                    uses(c, &ru->body[i], v, set);
                uint8_t *row = c->links + (size_t)(c->off[p] + j) * c->n_fams;
                for (uint32_t f = 0; f < c->n_fams; f++)
                    if (set[f] && !row[f]) row[f] = 1, changed = true;
            }
        }
    }
    free(set);
}

/* The pairs of one rule: (true (A .. ?v)) and another literal joining ?v with B's index. */
static void rule_pairs(const sel_ctx_t *c, const rule_t *ru, uint8_t *pair, uint8_t *set) {
    const term_store_t *ts = c->ts;
    for (uint32_t i = 0; i < ru->n_body; i++) {
        term_t x = true_arg(ts, &ru->body[i]);
        if (x == TERM_NONE || term_arity(ts, x) < 1) continue;
        term_t v = term_arg(ts, x, term_arity(ts, x) - 1);
        if (!term_is_var(ts, v)) continue;
        uint32_t a = fam_of(c, term_sym(ts, x), term_arity(ts, x));
        memset(set, 0, c->n_fams);
        for (uint32_t k = 0; k < ru->n_body; k++)
            if (k != i) uses(c, &ru->body[k], v, set);
        for (uint32_t b = 0; b < c->n_fams; b++)
            if (set[b] && b != a) pair[(size_t)a * c->n_fams + b] = 1;
    }
}

uint32_t bddorder_selectors(const game_t *g, bddsel_t **out) {
    sel_ctx_t c = {.g = g, .ts = g->ts};
    *out = NULL;
    collect_fams(&c);
    if (!c.n_fams) return 0;
    make_links(&c);
    uint8_t *pair = xcalloc((size_t)c.n_fams * c.n_fams, 1), *set = xmalloc(c.n_fams + 1);
    for (size_t r = 0; r < g->n_rules; r++)
        rule_pairs(&c, &g->rules[r], pair, set);
    uint32_t n = 0;
    for (size_t k = 0; k < (size_t)c.n_fams * c.n_fams; k++)
        n += pair[k];
    *out = n ? xmalloc(n * sizeof **out) : NULL;
    n = 0;
    for (size_t k = 0; k < (size_t)c.n_fams * c.n_fams; k++)
        if (pair[k]) (*out)[n++] = (bddsel_t){c.fams[k / c.n_fams], c.fams[k % c.n_fams]};
    free(pair), free(set), free(c.fams), free(c.off), free(c.links);
    return n;
}

/* The place of a family: the first of it and the families it selects, transitively (the
 * least fixpoint of min over its selections). */
static void places(uint32_t n, uint32_t n_sel, const uint32_t *from, const uint32_t *to,
                   uint32_t *p) {
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t e = 0; e < n_sel; e++)
            if (from[e] != UINT32_MAX && to[e] != UINT32_MAX && p[to[e]] < p[from[e]])
                p[from[e]] = p[to[e]], changed = true;
    }
}

static uint32_t fam_index(const bddfam_t *fams, uint32_t n, bddfam_t f) {
    for (uint32_t i = 0; i < n; i++)
        if (fams[i].sym == f.sym && fams[i].arity == f.arity) return i;
    return UINT32_MAX;
}

/* Whether family a reaches family b by selections (from[e] selects to[e]). */
static bool reaches(uint32_t n, uint32_t n_sel, const uint32_t *from, const uint32_t *to,
                    uint32_t a, uint32_t b) {
    bool *seen = xcalloc(n + 1, sizeof *seen), found = false;
    uint32_t *stack = xmalloc((n + 1) * sizeof *stack), top = 0;
    stack[top++] = a, seen[a] = true;
    while (top && !found) {
        uint32_t x = stack[--top];
        found = x == b;
        for (uint32_t e = 0; e < n_sel; e++)
            if (from[e] == x && to[e] != UINT32_MAX && !seen[to[e]])
                seen[to[e]] = true, stack[top++] = to[e];
    }
    free(seen), free(stack);
    return found;
}

/* The next family: of those whose selectors are all placed, the one with the least
 * (place, index). */
static uint32_t next_fam(uint32_t n, const uint32_t *p, const uint32_t *waiting, const bool *done) {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (done[i] || waiting[i]) continue;
        if (best == UINT32_MAX || p[i] < p[best] || (p[i] == p[best] && i < best)) best = i;
    }
    return best;
}

bool bddorder_place(const bddfam_t *fams, uint32_t n, const bddsel_t *sel, uint32_t n_sel,
                    uint32_t *perm) {
    uint32_t *from = xmalloc((n_sel + 1) * sizeof *from), *to = xmalloc((n_sel + 1) * sizeof *to);
    uint32_t *p = xmalloc((n + 1) * sizeof *p), *waiting = xcalloc(n + 1, sizeof *waiting);
    bool *done = xcalloc(n + 1, sizeof *done), moved = false;
    for (uint32_t e = 0; e < n_sel; e++) {
        from[e] = fam_index(fams, n, sel[e].above), to[e] = fam_index(fams, n, sel[e].below);
        if (to[e] == UINT32_MAX) from[e] = UINT32_MAX;
    }
    bool *cycle = xcalloc(n_sel + 1, sizeof *cycle); /* on one: neither goes above */
    for (uint32_t e = 0; e < n_sel; e++)
        cycle[e] = from[e] != UINT32_MAX && reaches(n, n_sel, from, to, to[e], from[e]);
    for (uint32_t e = 0; e < n_sel; e++) {
        if (cycle[e]) from[e] = UINT32_MAX;
        if (from[e] != UINT32_MAX) waiting[to[e]]++;
    }
    free(cycle);
    places(n, n_sel, from, to, p);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t f = next_fam(n, p, waiting, done);
        perm[k] = f, done[f] = true, moved = moved || f != k;
        for (uint32_t e = 0; e < n_sel; e++)
            if (from[e] == f && to[e] != UINT32_MAX && waiting[to[e]]) waiting[to[e]]--;
    }
    free(from), free(to), free(p), free(waiting), free(done);
    return moved;
}
