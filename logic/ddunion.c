/* Unions of decision diagrams: see ddunion.h. */
#include "logic/ddunion.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define MERGE_SMALL 2000 /* nodes: a part this small is merged whatever it costs */

void ddunion_init(ddunion_t *u, uint64_t merge) {
    *u = (ddunion_t){.merge = merge};
}

void ddunion_fini(dd_t *d, ddunion_t *u) {
    for (uint32_t k = 0; k < u->n; k++)
        dd_deref(d, u->part[k]);
    free(u->part);
    u->part = NULL, u->n = u->cap = 0;
}

static void push(ddunion_t *u, dd_ref x) {
    if (u->n == u->cap) {
        u->cap = u->cap ? 2 * u->cap : 8;
        u->part = xrealloc(u->part, u->cap * sizeof *u->part);
    }
    u->part[u->n++] = x;
}

/* Merging pays while the OR keeps the sharing: no larger than its parts apart (or small).
 * The node counts are walks of the diagrams (a tenth of a run's CPU with a horizon, where
 * every part is added here): the last part's is kept. */
bool ddunion_add(dd_t *d, ddunion_t *u, dd_ref x) {
    if (x == DD_FALSE) return true;
    if (x == DD_NONE) return false;
    uint64_t nx = u->merge ? dd_nodes(d, x) : 0;
    if (u->n && u->merge && nx <= u->merge && u->last_nodes <= u->merge) {
        dd_ref *last = &u->part[u->n - 1];
        dd_ref t = dd_or(d, *last, x);
        uint64_t nt = t >= 0 ? dd_nodes(d, t) : 0;
        if (t >= 0 && nt <= u->merge && (nt <= MERGE_SMALL || nt <= u->last_nodes + nx)) {
            dd_deref(d, *last), dd_deref(d, x);
            *last = t, u->last_nodes = nt;
            return true;
        }
        dd_deref(d, t);
        if (t == DD_NONE && !strcmp(dd_why(d), "deadline")) {
            dd_deref(d, x);
            return false;
        }
    }
    push(u, x);
    u->last_nodes = nx;
    return true;
}

void ddunion_copy(dd_t *d, ddunion_t *to, const ddunion_t *from) {
    ddunion_init(to, from->merge);
    to->last_nodes = from->last_nodes;
    for (uint32_t k = 0; k < from->n; k++)
        push(to, dd_dup(d, from->part[k]));
}

dd_ref ddunion_join(dd_t *d, const ddunion_t *u, uint64_t max_nodes, bool *all) {
    dd_ref r = DD_FALSE;
    *all = true;
    for (uint32_t k = 0; k < u->n; k++) {
        dd_ref t = dd_or(d, r, u->part[k]);
        if (t == DD_NONE && !strcmp(dd_why(d), "deadline")) {
            dd_deref(d, r);
            return DD_NONE;
        }
        if (t == DD_NONE || (max_nodes && dd_nodes(d, t) > max_nodes)) {
            dd_deref(d, t);
            *all = false;
            break; /* the union has outgrown the cap: more ORs would cost as much */
        }
        dd_deref(d, r);
        r = t;
    }
    return r;
}

uint64_t ddunion_nodes(dd_t *d, const ddunion_t *u) {
    return dd_nodes_shared(d, u->part, u->n);
}

bool ddunion_within(dd_t *d, const ddunion_t *a, const ddunion_t *b) {
    bool in = true;
    for (uint32_t k = 0; k < a->n && in; k++) {
        dd_ref rest = dd_dup(d, a->part[k]); /* the part's states outside b so far */
        for (uint32_t j = 0; j < b->n && rest > 0; j++) {
            dd_ref no = dd_not(d, b->part[j]), t = dd_and(d, rest, no);
            dd_deref(d, no), dd_deref(d, rest);
            rest = t;
        }
        in = rest == DD_FALSE;
        dd_deref(d, rest);
    }
    return in;
}
