/* Unions of decision diagrams: see ddunion.h. */
#include "logic/ddunion.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "base/util.h"

#define MERGE_SMALL 2000 /* nodes: a part this small is merged whatever it costs */

struct ddexcl_pool {
    ddexcl_t **list;
    uint32_t n, cap;
    htab_t index;
    const dd_ref *key; /* the list looked for (sorted) */
    uint32_t key_n;
};

ddexcl_pool_t *ddexcl_pool_new(void) {
    ddexcl_pool_t *p = xcalloc(1, sizeof *p);
    htab_init(&p->index);
    return p;
}

void ddexcl_pool_free(dd_t *d, ddexcl_pool_t *p) {
    if (!p) return;
    for (uint32_t k = 0; k < p->n; k++)
        ddexcl_free(d, p->list[k]);
    free(p->list);
    htab_fini(&p->index);
    free(p);
}

static int cmp_ref(const void *a, const void *b) {
    dd_ref x = *(const dd_ref *)a, y = *(const dd_ref *)b;
    return (x > y) - (x < y);
}

static uint32_t hash_refs(const dd_ref *e, uint32_t n) {
    uint32_t h = 0x5bd1e995u;
    for (uint32_t k = 0; k < n; k++)
        h = hash_mix(h, (uint32_t)e[k]);
    return h;
}

static bool same_list(const void *ctx, uint32_t id) {
    const ddexcl_pool_t *p = ctx;
    const ddexcl_t *x = p->list[id];
    return x->n == p->key_n && !memcmp(x->e, p->key, p->key_n * sizeof *p->key);
}

static uint32_t list_hash(const void *ctx, uint32_t id) {
    return ((const ddexcl_pool_t *)ctx)->list[id]->hash;
}

ddexcl_t *ddexcl_make(dd_t *d, ddexcl_pool_t *p, dd_ref *e, uint32_t n) {
    qsort(e, n, sizeof *e, cmp_ref);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (e[k] == DD_FALSE || (m && e[m - 1] == e[k]))
            dd_deref(d, e[k]);
        else
            e[m++] = e[k];
    }
    if (!m) return NULL;
    uint32_t h = hash_refs(e, m);
    p->key = e, p->key_n = m;
    htab_reserve(&p->index, list_hash, p);
    uint32_t *slot = htab_probe(&p->index, h, same_list, p);
    if (*slot) {
        for (uint32_t k = 0; k < m; k++)
            dd_deref(d, e[k]);
        return ddexcl_dup(p->list[*slot - 1]);
    }
    ddexcl_t *x = xmalloc(sizeof *x + m * sizeof *x->e);
    x->refs = 2, x->n = m, x->hash = h; /* the pool's and the caller's */
    memcpy(x->e, e, m * sizeof *e);
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->list = xrealloc(p->list, p->cap * sizeof *p->list);
    }
    p->list[p->n] = x;
    htab_fill(&p->index, slot, p->n++);
    return x;
}

ddexcl_t *ddexcl_dup(ddexcl_t *x) {
    if (x) x->refs++;
    return x;
}

void ddexcl_free(dd_t *d, ddexcl_t *x) {
    if (!x || --x->refs) return;
    for (uint32_t k = 0; k < x->n; k++)
        dd_deref(d, x->e[k]);
    free(x);
}

ddexcl_t *ddexcl_join(dd_t *d, ddexcl_pool_t *p, ddexcl_t *a, ddexcl_t *b) {
    if (!b || a == b) return ddexcl_dup(a);
    if (!a) return ddexcl_dup(b);
    dd_ref *e = xmalloc((a->n + b->n) * sizeof *e);
    for (uint32_t k = 0; k < a->n; k++)
        e[k] = dd_dup(d, a->e[k]);
    for (uint32_t k = 0; k < b->n; k++)
        e[a->n + k] = dd_dup(d, b->e[k]);
    ddexcl_t *x = ddexcl_make(d, p, e, a->n + b->n);
    free(e);
    return x;
}

bool ddexcl_eval(dd_t *d, const ddexcl_t *x, const uint8_t *values) {
    for (uint32_t k = 0; x && k < x->n; k++)
        if (dd_eval(d, x->e[k], values)) return true;
    return false;
}

void ddunion_init(ddunion_t *u, uint64_t merge) {
    *u = (ddunion_t){.merge = merge};
}

void ddunion_fini(dd_t *d, ddunion_t *u) {
    for (uint32_t k = 0; k < u->n; k++)
        dd_deref(d, u->part[k]), ddexcl_free(d, u->excl[k]);
    free(u->part), free(u->excl);
    u->part = NULL, u->excl = NULL, u->n = u->cap = 0;
}

static void push(ddunion_t *u, dd_ref x, ddexcl_t *excl) {
    if (u->n == u->cap) {
        u->cap = u->cap ? 2 * u->cap : 8;
        u->part = xrealloc(u->part, u->cap * sizeof *u->part);
        u->excl = xrealloc(u->excl, u->cap * sizeof *u->excl);
    }
    u->part[u->n] = x, u->excl[u->n++] = excl;
}

/* Merging pays while the OR keeps the sharing: no larger than its parts apart (or small).
 * The node counts are walks of the diagrams (a tenth of a run's CPU with a horizon, where
 * every part is added here): the last part's is kept. Only parts with the same exclusions
 * merge ((a − E) ∪ (b − E) = (a ∪ b) − E). */
bool ddunion_add_excl(dd_t *d, ddunion_t *u, dd_ref x, ddexcl_t *excl) {
    if (x == DD_FALSE || x == DD_NONE) {
        ddexcl_free(d, excl);
        return x != DD_NONE;
    }
    uint64_t nx = u->merge ? dd_nodes(d, x) : 0;
    if (u->n && u->merge && nx <= u->merge && u->last_nodes <= u->merge &&
        u->excl[u->n - 1] == excl) {
        dd_ref *last = &u->part[u->n - 1];
        dd_ref t = dd_or(d, *last, x);
        uint64_t nt = t >= 0 ? dd_nodes(d, t) : 0;
        if (t >= 0 && nt <= u->merge && (nt <= MERGE_SMALL || nt <= u->last_nodes + nx)) {
            dd_deref(d, *last), dd_deref(d, x), ddexcl_free(d, excl);
            *last = t, u->last_nodes = nt;
            return true;
        }
        dd_deref(d, t);
        if (t == DD_NONE && dd_out_of_time(d)) {
            dd_deref(d, x), ddexcl_free(d, excl);
            return false;
        }
    }
    push(u, x, excl);
    u->last_nodes = nx;
    return true;
}

bool ddunion_add(dd_t *d, ddunion_t *u, dd_ref x) {
    return ddunion_add_excl(d, u, x, NULL);
}

bool ddunion_has_excl(const ddunion_t *u) {
    for (uint32_t k = 0; k < u->n; k++)
        if (u->excl[k]) return true;
    return false;
}

void ddunion_copy(dd_t *d, ddunion_t *to, const ddunion_t *from) {
    ddunion_init(to, from->merge);
    to->last_nodes = from->last_nodes;
    for (uint32_t k = 0; k < from->n; k++)
        push(to, dd_dup(d, from->part[k]), ddexcl_dup(from->excl[k]));
}

dd_ref ddunion_join(dd_t *d, const ddunion_t *u, uint64_t max_nodes, bool *all) {
    dd_ref r = DD_FALSE;
    *all = true;
    for (uint32_t k = 0; k < u->n; k++) {
        if (u->excl[k]) {
            *all = false;
            continue;
        }
        dd_ref t = dd_or(d, r, u->part[k]);
        if (t == DD_NONE && dd_out_of_time(d)) {
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
    uint32_t n = u->n;
    for (uint32_t k = 0; k < u->n; k++) /* a list shared by consecutive parts once */
        n += u->excl[k] && (!k || u->excl[k - 1] != u->excl[k]) ? u->excl[k]->n : 0;
    dd_ref *all = xmalloc((n + 1) * sizeof *all);
    n = 0;
    for (uint32_t k = 0; k < u->n; k++) {
        all[n++] = u->part[k];
        if (!u->excl[k] || (k && u->excl[k - 1] == u->excl[k])) continue;
        for (uint32_t j = 0; j < u->excl[k]->n; j++)
            all[n++] = u->excl[k]->e[j];
    }
    uint64_t r = dd_nodes_shared(d, all, n);
    free(all);
    return r;
}

bool ddunion_within(dd_t *d, const ddunion_t *a, const ddunion_t *b) {
    bool in = true;
    for (uint32_t k = 0; k < a->n && in; k++) {
        dd_ref rest = dd_dup(d, a->part[k]); /* the part's states outside b so far */
        for (uint32_t j = 0; j < b->n && rest > 0; j++) {
            if (b->excl[j]) continue;
            dd_ref t = dd_diff(d, rest, b->part[j]);
            dd_deref(d, rest);
            rest = t;
        }
        in = rest == DD_FALSE;
        dd_deref(d, rest);
    }
    return in;
}

bool ddunion_eval(dd_t *d, const ddunion_t *u, const uint8_t *values) {
    for (uint32_t k = 0; k < u->n; k++)
        if (dd_eval(d, u->part[k], values) && !ddexcl_eval(d, u->excl[k], values)) return true;
    return false;
}
