/* Strongly connected components: see scc.h. */
#include "base/scc.h"

#include "base/util.h"

#include <stdlib.h>

typedef struct {
    scc_next_fn succ;
    const void *ctx;
    uint32_t *comp, *order, n_order;
    uint32_t *index, *low, *stack, n_index, n_stack;
    uint32_t *call; /* the depth-first path */
    uint64_t *next; /* the cursor of each vertex on it */
    bool *on;
    uint32_t n_comps;
} tarjan_t;

static void enter(tarjan_t *t, uint32_t v, uint32_t *depth) {
    t->index[v] = t->low[v] = t->n_index++;
    t->stack[t->n_stack++] = v, t->on[v] = true;
    t->call[*depth] = v, t->next[(*depth)++] = 0;
}

/* Pops v's component off the stack when v is its root. */
static void close_component(tarjan_t *t, uint32_t v) {
    if (t->low[v] != t->index[v]) return;
    uint32_t w;
    do {
        w = t->stack[--t->n_stack];
        t->on[w] = false;
        t->comp[w] = t->n_comps;
        if (t->order) t->order[t->n_order++] = w;
    } while (w != v);
    t->n_comps++;
}

static void visit(tarjan_t *t, uint32_t root) {
    uint32_t depth = 0;
    enter(t, root, &depth);
    while (depth) {
        uint32_t v = t->call[depth - 1];
        uint32_t w = t->succ(t->ctx, v, &t->next[depth - 1]);
        if (w != SCC_NONE) {
            if (t->index[w] == SCC_NONE)
                enter(t, w, &depth);
            else if (t->on[w] && t->index[w] < t->low[v])
                t->low[v] = t->index[w];
            continue;
        }
        depth--;
        if (depth && t->low[v] < t->low[t->call[depth - 1]]) t->low[t->call[depth - 1]] = t->low[v];
        close_component(t, v);
    }
}

uint32_t scc_find_by(uint32_t n, scc_next_fn next, const void *ctx, const bool *roots,
                     uint32_t *comp, uint32_t *order) {
    tarjan_t t = {.succ = next, .ctx = ctx, .comp = comp, .order = order};
    t.index = xmalloc((n + 1) * sizeof *t.index);
    t.low = xmalloc((n + 1) * sizeof *t.low);
    t.stack = xmalloc((n + 1) * sizeof *t.stack);
    t.call = xmalloc((n + 1) * sizeof *t.call);
    t.next = xmalloc((n + 1) * sizeof *t.next);
    t.on = xcalloc(n + 1, sizeof *t.on);
    for (uint32_t v = 0; v < n; v++)
        t.index[v] = comp[v] = SCC_NONE;
    for (uint32_t v = 0; v < n; v++)
        if ((!roots || roots[v]) && t.index[v] == SCC_NONE) visit(&t, v);
    free(t.index), free(t.low), free(t.stack), free(t.call), free(t.next), free(t.on);
    return t.n_comps;
}

typedef struct {
    const uint32_t *start, *to;
} rows_t;

static uint32_t row_next(const void *ctx, uint32_t v, uint64_t *cursor) {
    const rows_t *g = ctx;
    uint64_t e = g->start[v] + *cursor;
    if (e >= g->start[v + 1]) return SCC_NONE;
    ++*cursor;
    return g->to[e];
}

uint32_t scc_find(uint32_t n, const uint32_t *start, const uint32_t *to, const bool *roots,
                  uint32_t *comp, uint32_t *order) {
    rows_t g = {start, to};
    return scc_find_by(n, row_next, &g, roots, comp, order);
}

void scc_cyclic(uint32_t n, const uint32_t *start, const uint32_t *to, const uint32_t *comp,
                uint32_t n_comps, bool *cyclic) {
    uint32_t *size = xcalloc(n_comps + 1, sizeof *size);
    for (uint32_t v = 0; v < n; v++)
        if (comp[v] != SCC_NONE) size[comp[v]]++;
    for (uint32_t v = 0; v < n; v++) {
        cyclic[v] = comp[v] != SCC_NONE && size[comp[v]] > 1;
        for (uint32_t e = start[v]; e < start[v + 1] && comp[v] != SCC_NONE && !cyclic[v]; e++)
            cyclic[v] = to[e] == v;
    }
    free(size);
}
