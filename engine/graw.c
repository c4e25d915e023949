/* The raw ground network: see graw.h. */
#include "engine/graw.h"

#include <stdlib.h>
#include <string.h>

#include "base/scc.h"
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

void graw_rewrite_begin(graw_t *out, const graw_t *w) {
    graw_init(out);
    out->n_nodes = w->n_nodes, out->cap_nodes = w->cap_nodes;
    out->kind = w->kind, out->atom = w->atom;
}

void graw_rewrite_end(graw_t *w, graw_t *out) {
    w->kind = NULL, w->atom = NULL;
    graw_fini(w);
    *w = *out;
}

void graw_heads_fini(graw_heads_t *h) {
    free(h->start), free(h->order);
}

size_t graw_bytes(const graw_t *w) {
    return w->cap_nodes * (sizeof *w->kind + sizeof *w->atom) +
           w->cap_rules * (sizeof *w->head + sizeof *w->first) + w->cap_lits * sizeof *w->lits;
}
typedef struct {
    const graw_t *w;
    const graw_heads_t *h;
} deps_t;

/* The dependencies of a node (derived nodes its rules read), one at a time: the cursor is
 * the rule (high half) and the literal in it (low half). */
static uint32_t next_dep(const void *ctx, uint32_t node, uint64_t *cursor) {
    const graw_t *w = ((const deps_t *)ctx)->w;
    const graw_heads_t *h = ((const deps_t *)ctx)->h;
    uint32_t nr = h->start[node + 1] - h->start[node];
    uint32_t rule = (uint32_t)(*cursor >> 32), lit = (uint32_t)*cursor;
    uint32_t found = SCC_NONE;
    while (rule < nr && found == SCC_NONE) {
        uint32_t r = h->order[h->start[node] + rule];
        while (w->first[r] + lit < w->first[r + 1] && found == SCC_NONE) {
            uint32_t v = w->lits[w->first[r] + lit++] >> 1;
            if (w->kind[v] == GNODE_DERIVED) found = v;
        }
        if (found == SCC_NONE) rule++, lit = 0;
    }
    *cursor = (uint64_t)rule << 32 | lit;
    return found;
}

void graw_components(const graw_t *w, const graw_heads_t *h, uint32_t *order, uint32_t *comp,
                     uint32_t *n_comps) {
    bool *derived = xmalloc((w->n_nodes + 1) * sizeof *derived);
    for (uint32_t n = 0; n < w->n_nodes; n++)
        derived[n] = w->kind[n] == GNODE_DERIVED;
    deps_t d = {w, h};
    *n_comps = scc_find_by(w->n_nodes, next_dep, &d, derived, comp, order);
    free(derived);
}

bool graw_lits_subset(const uint32_t *a, size_t na, const uint32_t *b, size_t nb) {
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && b[j] < a[i])
            j++;
        if (j == nb || b[j] != a[i]) return false;
        j++;
    }
    return true;
}
