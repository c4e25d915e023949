/* The table of decided positions: see postab.h. */
#include "truth/postab.h"

#include <stdlib.h>

#include "base/util.h"

struct postab_entry {
    uint64_t key;
    eng_state_t *state;
    uint32_t tag;
    int8_t value;
};

void postab_init(postab_t *t, engine_t *e, uint32_t max_entries) {
    *t = (postab_t){.e = e, .max = max_entries};
    htab_init(&t->index);
}

void postab_clear(postab_t *t) {
    for (uint32_t k = 0; k < t->used; k++)
        engine_state_free(t->v[k].state);
    htab_clear(&t->index);
    t->used = 0;
}

void postab_fini(postab_t *t) {
    postab_clear(t);
    free(t->v);
    htab_fini(&t->index);
}

postab_pos_t postab_pos(const eng_state_t *s, uint32_t tag) {
    uint64_t key = engine_state_hash(s) ^ ((uint64_t)tag + 1) * 0x9e3779b97f4a7c15ull;
    return (postab_pos_t){s, key, tag};
}

typedef struct {
    const postab_t *t;
    const postab_pos_t *want;
} probe_t;

static bool same(const void *ctx, uint32_t id) {
    const probe_t *p = ctx;
    const postab_entry_t *e = &p->t->v[id];
    return e->key == p->want->key && e->tag == p->want->tag &&
           engine_state_equal(e->state, p->want->s);
}

static uint32_t hash(const void *ctx, uint32_t id) {
    return (uint32_t)((const postab_t *)ctx)->v[id].key;
}

int postab_find(const postab_t *t, const postab_pos_t *p) {
    probe_t probe = {t, p};
    uint32_t id = htab_find(&t->index, (uint32_t)p->key, same, &probe);
    return id == HTAB_NONE ? POSTAB_NONE : t->v[id].value;
}

void postab_store(postab_t *t, const postab_pos_t *p, int value) {
    if (t->used >= t->max) postab_clear(t);
    if (postab_find(t, p) != POSTAB_NONE) return;
    GROW(t->v, t->cap, (size_t)t->used + 1);
    postab_entry_t *e = &t->v[t->used];
    e->key = p->key;
    e->state = engine_state_new(t->e);
    engine_state_copy(e->state, p->s);
    e->tag = p->tag;
    e->value = (int8_t)value;
    htab_add(&t->index, (uint32_t)p->key, t->used++, hash, t);
}
