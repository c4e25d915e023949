/* The grounder's atom store and join indexes: see gatoms.h. */
#include "engine/gatoms.h"

#include "base/hash.h"
#include "gdl/bind.h"

#include <stdlib.h>
#include <string.h>

void gatoms_init(gatoms_t *a, term_store_t *ts) {
    memset(a, 0, sizeof *a);
    a->ts = ts;
    a->n_ent = 1; /* entry 0 means none */
}

void gatoms_fini(gatoms_t *a) {
    for (uint32_t p = 0; p < a->n_preds; p++)
        free(a->of_pred[p].ids), free(a->pred_idx[p].ids);
    free(a->of_pred), free(a->pred_idx);
    free(a->term), free(a->pred);
    free(a->id_of);
    free(a->idx), free(a->groups), free(a->ent);
    htab_fini(&a->group_tab);
    memset(a, 0, sizeof *a);
}

static void ids_push(gids_t *v, uint32_t x) {
    GROW(v->ids, v->cap, (size_t)v->n + 1);
    v->ids[v->n++] = x;
}

static void id_of_set(gatoms_t *a, term_t t, uint32_t id) {
    GROW_ZEROED(a->id_of, a->cap_id_of, (size_t)t + 1); /* (0: not an atom) */
    a->id_of[t] = id + 1;
}

static void preds_grow(gatoms_t *a, uint32_t pred) {
    if (pred < a->n_preds) return;
    uint32_t n = pred + 1 > 2 * a->n_preds ? pred + 1 : 2 * a->n_preds;
    a->of_pred = xrecalloc(a->of_pred, a->n_preds, n, sizeof *a->of_pred);
    a->pred_idx = xrecalloc(a->pred_idx, a->n_preds, n, sizeof *a->pred_idx);
    a->n_preds = n;
}

/* ---- groups: a table of 64-bit keys ---- */

uint64_t gatoms_key(uint32_t index, const term_t *vals, uint32_t n) {
    uint64_t h = hash_fmix64(index + 0x9e3779b97f4a7c15ull);
    for (uint32_t i = 0; i < n; i++)
        h = hash_fmix64(h ^ (vals[i] + 0x632be59bd9b4e019ull * (i + 1)));
    return h;
}

typedef struct {
    const ggroup_t *groups;
    uint64_t key;
} group_key_t;

static bool group_same(const void *ctx, uint32_t g) {
    const group_key_t *k = ctx;
    return k->groups[g].key == k->key;
}

static uint32_t group_hash_of(const void *ctx, uint32_t g) {
    const gatoms_t *a = ctx;
    return (uint32_t)a->groups[g].key;
}

uint32_t gatoms_group(const gatoms_t *a, uint64_t key) {
    group_key_t k = {a->groups, key};
    uint32_t g = htab_find(&a->group_tab, (uint32_t)key, group_same, &k);
    return g == HTAB_NONE ? 0 : a->groups[g].head;
}

/* Puts an atom into an index when it matches the pattern. */
static void index_put(gatoms_t *a, uint32_t ix, uint32_t atom) {
    gindex_t *x = &a->idx[ix];
    term_t map[GINDEX_MAX_VARS + 1];
    uint32_t trail[GINDEX_MAX_VARS + 1];
    for (uint32_t v = 0; v < x->n_vars; v++)
        map[v] = TERM_NONE;
    bind_t b = bind_over(map, trail);
    if (!bind_match(&b, a->ts, x->pattern, a->term[atom])) return;
    term_t vals[GINDEX_MAX_VARS];
    uint32_t n = 0;
    for (uint32_t v = 0; v < x->n_vars; v++)
        if (x->mask >> v & 1) vals[n++] = map[v];
    uint64_t key = gatoms_key(ix, vals, n);
    GROW(a->ent, a->cap_ent, a->n_ent + 1);
    uint32_t e = (uint32_t)a->n_ent++;
    a->ent[e] = (gentry_t){atom, 0};
    x->n_entries++;
    htab_reserve(&a->group_tab, group_hash_of, a);
    group_key_t k = {a->groups, key};
    uint32_t *slot = htab_probe(&a->group_tab, (uint32_t)key, group_same, &k);
    if (*slot) {
        ggroup_t *g = &a->groups[*slot - 1];
        a->ent[g->tail].next = e;
        g->tail = e;
        return;
    }
    GROW(a->groups, a->groups_cap, a->n_groups + 1);
    a->groups[a->n_groups] = (ggroup_t){key, e, e};
    htab_fill(&a->group_tab, slot, (uint32_t)a->n_groups++);
    x->n_groups++;
}

uint32_t gatoms_index(gatoms_t *a, uint32_t pred, term_t pattern, uint32_t n_vars, uint32_t mask) {
    preds_grow(a, pred);
    gids_t *mine = &a->pred_idx[pred];
    for (uint32_t k = 0; k < mine->n; k++) {
        const gindex_t *x = &a->idx[mine->ids[k]];
        if (x->pattern == pattern && x->mask == mask) return mine->ids[k];
    }
    GROW(a->idx, a->cap_idx, (size_t)a->n_idx + 1);
    uint32_t ix = a->n_idx++;
    a->idx[ix] = (gindex_t){.pred = pred, .pattern = pattern, .n_vars = n_vars, .mask = mask};
    ids_push(mine, ix);
    const gids_t *all = &a->of_pred[pred];
    for (uint32_t k = 0; k < all->n; k++)
        index_put(a, ix, all->ids[k]);
    return ix;
}

uint32_t gatoms_add(gatoms_t *a, term_t t, uint32_t pred, bool *added) {
    uint32_t id = gatoms_find(a, t);
    if (added) *added = id == GATOM_NONE;
    if (id != GATOM_NONE) return id;
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 1024;
        a->term = xrealloc(a->term, a->cap * sizeof *a->term);
        a->pred = xrealloc(a->pred, a->cap * sizeof *a->pred);
    }
    id = a->n++;
    a->term[id] = t;
    a->pred[id] = pred;
    id_of_set(a, t, id);
    preds_grow(a, pred);
    ids_push(&a->of_pred[pred], id);
    const gids_t *mine = &a->pred_idx[pred];
    for (uint32_t k = 0; k < mine->n; k++)
        index_put(a, mine->ids[k], id);
    return id;
}

uint32_t gatoms_lower(const gids_t *ids, uint32_t id) {
    uint32_t lo = 0, hi = ids->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ids->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t gatoms_bytes(const gatoms_t *a) {
    size_t b = a->cap * (sizeof *a->term + sizeof *a->pred) + a->cap_id_of * sizeof *a->id_of;
    for (uint32_t p = 0; p < a->n_preds; p++)
        b += (a->of_pred[p].cap + a->pred_idx[p].cap) * sizeof(uint32_t);
    return b + a->cap_idx * sizeof *a->idx + a->groups_cap * sizeof *a->groups +
           ((size_t)a->group_tab.mask + 1) * sizeof *a->group_tab.slot +
           a->cap_ent * sizeof *a->ent;
}
