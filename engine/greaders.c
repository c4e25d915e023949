/* Instantiation readers first: see greaders.h. */
#include "engine/greaders.h"

#include <stdlib.h>
#include <string.h>

#include "base/scc.h"
#include "base/util.h"

static uint32_t group_end(const gids_t *todo, const gids_t *groups, uint32_t g) {
    return g + 1 < groups->n ? groups->ids[g + 1] : todo->n;
}

/* The game predicates group g reads into out (their number returned; out NULL: counted). */
static uint32_t group_reads(const gprog_t *P, uint32_t n_game, const gids_t *todo,
                            const gids_t *groups, uint32_t g, uint32_t *out) {
    uint32_t n = 0;
    for (uint32_t i = groups->ids[g]; i < group_end(todo, groups, g); i++) {
        const gp_rule_t *r = &P->rules[todo->ids[i]];
        for (uint32_t k = 0; k < r->n_body; k++) {
            uint32_t q = r->body[k].pred;
            if (r->body[k].kind == GLIT_DISTINCT || q >= n_game) continue;
            if (out) out[n] = q;
            n++;
        }
    }
    return n;
}

/* The network's graph over game predicates (a head to what its rules read), its components
 * into comp (dependencies first) and cyclic. */
static void components(const gprog_t *P, uint32_t n_game, const gids_t *todo, const gids_t *groups,
                       const uint32_t *heads, uint32_t *comp, bool *cyclic) {
    uint32_t *start = xcalloc((size_t)n_game + 2, sizeof *start);
    for (uint32_t g = 0; g < groups->n; g++)
        start[heads[g] + 2] += group_reads(P, n_game, todo, groups, g, NULL);
    for (uint32_t p = 0; p < n_game; p++)
        start[p + 2] += start[p + 1];
    uint32_t *to = xmalloc(((size_t)start[n_game + 1] + 1) * sizeof *to);
    for (uint32_t g = 0; g < groups->n; g++)
        start[heads[g] + 1] += group_reads(P, n_game, todo, groups, g, to + start[heads[g] + 1]);
    uint32_t n_comps = scc_find(n_game, start, to, NULL, comp, NULL);
    scc_cyclic(n_game, start, to, comp, n_comps, cyclic);
    free(start), free(to);
}

/* The groups reordered by their head's component, largest first, stably. */
static void reorder(gids_t *todo, gids_t *groups, const uint32_t *heads, const uint32_t *comp) {
    uint32_t n = groups->n;
    uint64_t *key = xmalloc(((size_t)n + 1) * sizeof *key);
    for (uint32_t g = 0; g < n; g++) /* component descending, then group ascending */
        key[g] = (uint64_t)(UINT32_MAX - comp[heads[g]]) << 32 | g;
    qsort(key, n, sizeof *key, cmp_u64);
    uint32_t *ids = xmalloc(((size_t)todo->n + 1) * sizeof *ids),
             *at = xmalloc((n + 1) * sizeof *at);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = (uint32_t)key[i];
        at[i] = m;
        for (uint32_t k = groups->ids[g]; k < group_end(todo, groups, g); k++)
            ids[m++] = todo->ids[k];
    }
    if (m) memcpy(todo->ids, ids, m * sizeof *ids);
    if (n) memcpy(groups->ids, at, n * sizeof *at);
    free(ids), free(at), free(key);
}

static bool is_interface(sym_t s) {
    return s == SYM_LEGAL || s == SYM_GOAL || s == SYM_TERMINAL || s == SYM_SEES || s == SYM_NEXT;
}

bool *greaders_order(const gprog_t *P, uint32_t n_game, gids_t *todo, gids_t *groups,
                     const uint32_t *heads, const bool *keep, uint32_t n_keep) {
    uint32_t *comp = xmalloc(((size_t)n_game + 1) * sizeof *comp);
    bool *cyclic = xcalloc((size_t)n_game + 1, sizeof *cyclic);
    components(P, n_game, todo, groups, heads, comp, cyclic);
    reorder(todo, groups, heads, comp);
    bool *pruned = xcalloc((size_t)P->n_preds + 1, sizeof *pruned);
    for (uint32_t p = 0; p < n_game; p++) {
        const gp_pred_t *q = &P->preds[p];
        bool kept = keep && p < n_keep && keep[p];
        bool input = p == P->p_true || p == P->p_does;
        pruned[p] =
            !q->is_static && !cyclic[p] && !q->demand && !is_interface(q->sym) && !kept && !input;
    }
    free(comp), free(cyclic);
    return pruned;
}

uint32_t greaders_wanted(gprog_t *P, gatoms_t *A, uint32_t pred, const uint8_t *read,
                         size_t n_read) {
    uint32_t arity = P->preds[pred].arity, n = 0;
    const gids_t *ids = gatoms_of(A, pred);
    for (uint32_t k = 0; k < ids->n; k++)
        n += ids->ids[k] < n_read && read[ids->ids[k]];
    if (!arity || n == ids->n) return UINT32_MAX;
    uint32_t w = gprog_aux(P, arity, true);
    sym_t sym = P->preds[w].sym;
    term_t *args = xmalloc(arity * sizeof *args); /* (copied: a new term moves the store's) */
    for (uint32_t k = 0; k < ids->n; k++, ids = gatoms_of(A, pred)) { /* (adds move the lists) */
        uint32_t a = ids->ids[k];
        if (a >= n_read || !read[a]) continue;
        memcpy(args, term_args(P->ts, A->term[a]), arity * sizeof *args);
        gatoms_add(A, term_fun(P->ts, sym, args, arity), w, NULL);
    }
    free(args);
    return w;
}

uint32_t greaders_rule(gprog_t *P, uint32_t r, uint32_t wanted) {
    const gp_rule_t *old = &P->rules[r];
    uint32_t n = old->n_body, arity = P->preds[wanted].arity;
    gp_lit_t *body = xmalloc((n + 1) * sizeof *body);
    term_t head = old->head, *args = xmalloc(arity * sizeof *args);
    memcpy(args, term_args(P->ts, head), arity * sizeof *args);
    term_t atom = term_fun(P->ts, P->preds[wanted].sym, args, arity);
    body[0] = (gp_lit_t){.kind = GLIT_POS, .pred = wanted, .atom = atom};
    memcpy(body + 1, old->body, n * sizeof *body);
    free(args);
    uint32_t id = gprog_add(P, head, body, n + 1, old->n_vars, false); /* (moves P->rules) */
    free(body);
    return id;
}
