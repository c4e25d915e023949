/* The raw ground network: see graw.h. */
#include "engine/graw.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "engine/ground.h"

void graw_init(graw_t *w) {
    memset(w, 0, sizeof *w);
    w->cap_rules = 16;
    w->first = xmalloc(w->cap_rules * sizeof *w->first);
    w->head = xmalloc(w->cap_rules * sizeof *w->head);
    w->first[0] = 0;
}

void graw_fini(graw_t *w) {
    free(w->kind), free(w->atom), free(w->head), free(w->first), free(w->lits);
    memset(w, 0, sizeof *w);
}

uint32_t graw_node(graw_t *w, uint8_t kind, term_t atom) {
    if (w->n_nodes == w->cap_nodes) {
        w->cap_nodes = w->cap_nodes ? 2 * w->cap_nodes : 1024;
        w->kind = xrealloc(w->kind, w->cap_nodes * sizeof *w->kind);
        w->atom = xrealloc(w->atom, w->cap_nodes * sizeof *w->atom);
    }
    w->kind[w->n_nodes] = kind;
    w->atom[w->n_nodes] = atom;
    return w->n_nodes++;
}

void graw_rule(graw_t *w, uint32_t head) {
    if (w->n_rules + 2 > w->cap_rules) {
        w->cap_rules *= 2;
        w->first = xrealloc(w->first, w->cap_rules * sizeof *w->first);
        w->head = xrealloc(w->head, w->cap_rules * sizeof *w->head);
    }
    w->head[w->n_rules++] = head;
    w->first[w->n_rules] = w->n_lits;
}

void graw_lit(graw_t *w, uint32_t lit) {
    GROW(w->lits, w->cap_lits, (size_t)w->n_lits + 1);
    w->lits[w->n_lits++] = lit;
    w->first[w->n_rules] = w->n_lits;
}

void graw_heads(const graw_t *w, graw_heads_t *h) {
    h->start = xcalloc((size_t)w->n_nodes + 2, sizeof *h->start);
    h->order = xmalloc(((size_t)w->n_rules + 1) * sizeof *h->order);
    for (uint32_t r = 0; r < w->n_rules; r++)
        h->start[w->head[r] + 2]++;
    for (uint32_t n = 0; n < w->n_nodes; n++)
        h->start[n + 2] += h->start[n + 1];
    for (uint32_t r = 0; r < w->n_rules; r++)
        h->order[h->start[w->head[r] + 1]++] = r;
}

void graw_heads_fini(graw_heads_t *h) {
    free(h->start), free(h->order);
}

size_t graw_bytes(const graw_t *w) {
    return w->cap_nodes * (sizeof *w->kind + sizeof *w->atom) +
           w->cap_rules * (sizeof *w->head + sizeof *w->first) + w->cap_lits * sizeof *w->lits;
}
/* The dependencies of a node (derived nodes its rules read), one at a time. */
typedef struct {
    uint32_t rule, lit;
} dep_iter_t;

static uint32_t next_dep(const graw_t *w, const graw_heads_t *h, uint32_t node, dep_iter_t *it) {
    uint32_t nr = h->start[node + 1] - h->start[node];
    while (it->rule < nr) {
        uint32_t r = h->order[h->start[node] + it->rule];
        while (w->first[r] + it->lit < w->first[r + 1]) {
            uint32_t v = w->lits[w->first[r] + it->lit++] >> 1;
            if (w->kind[v] == GNODE_DERIVED) return v;
        }
        it->rule++, it->lit = 0;
    }
    return UINT32_MAX;
}

/* Tarjan's components over the derived nodes, emitted dependencies first. */
void graw_components(const graw_t *w, const graw_heads_t *h, uint32_t *order_out, uint32_t *comp_of,
                     uint32_t *n_comps) {
    uint32_t nn = w->n_nodes;
    uint32_t *index = xmalloc((nn + 1) * sizeof *index), *low = xmalloc((nn + 1) * sizeof *low);
    uint32_t *st = xmalloc((nn + 1) * sizeof *st), *call = xmalloc((nn + 1) * sizeof *call);
    dep_iter_t *it = xmalloc((nn + 1) * sizeof *it);
    bool *on = xcalloc(nn + 1, sizeof *on);
    for (uint32_t n = 0; n < nn; n++)
        index[n] = UINT32_MAX;
    uint32_t next_index = 0, sp = 0, n_out = 0, nc = 0;
    for (uint32_t root = 0; root < nn; root++) {
        if (w->kind[root] != GNODE_DERIVED || index[root] != UINT32_MAX) continue;
        uint32_t depth = 0;
        call[depth++] = root;
        index[root] = low[root] = next_index++;
        st[sp++] = root, on[root] = true;
        it[root] = (dep_iter_t){0, 0};
        while (depth) {
            uint32_t v = call[depth - 1];
            uint32_t x = next_dep(w, h, v, &it[v]);
            if (x != UINT32_MAX) {
                if (index[x] == UINT32_MAX) {
                    index[x] = low[x] = next_index++;
                    st[sp++] = x, on[x] = true;
                    it[x] = (dep_iter_t){0, 0};
                    call[depth++] = x;
                } else if (on[x] && index[x] < low[v]) {
                    low[v] = index[x];
                }
                continue;
            }
            depth--;
            if (depth && low[v] < low[call[depth - 1]]) low[call[depth - 1]] = low[v];
            if (low[v] == index[v]) {
                uint32_t w2;
                do {
                    w2 = st[--sp];
                    on[w2] = false;
                    comp_of[w2] = nc;
                    order_out[n_out++] = w2;
                } while (w2 != v);
                nc++;
            }
        }
    }
    *n_comps = nc;
    free(index), free(low), free(st), free(call), free(it), free(on);
}
