/* Sets of keys: see keyset.h. */
#include "base/keyset.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static uint32_t key_hash(uint64_t key) {
    return (uint32_t)(key ^ key >> 32) * 0x9e3779b1u;
}

typedef struct {
    const keyset_t *s;
    uint64_t key;
} probe_t;

static bool same_key(const void *ctx, uint32_t i) {
    const probe_t *p = ctx;
    return p->s->keys[i] == p->key;
}

static uint32_t hash_of(const void *ctx, uint32_t i) {
    return key_hash(((const keyset_t *)ctx)->keys[i]);
}

void keyset_init(keyset_t *s) {
    memset(s, 0, sizeof *s);
}

void keyset_fini(keyset_t *s) {
    free(s->keys);
    htab_fini(&s->index);
    keyset_init(s);
}

uint32_t keyset_find(const keyset_t *s, uint64_t key) {
    probe_t p = {s, key};
    uint32_t i = htab_find(&s->index, key_hash(key), same_key, &p);
    return i == HTAB_NONE ? UINT32_MAX : i;
}

uint32_t keyset_add(keyset_t *s, uint64_t key) {
    probe_t p = {s, key};
    htab_reserve(&s->index, hash_of, s);
    uint32_t *slot = htab_probe(&s->index, key_hash(key), same_key, &p);
    if (*slot) return *slot - 1;
    GROW(s->keys, s->cap, (size_t)s->n + 1);
    s->keys[s->n] = key;
    htab_fill(&s->index, slot, s->n);
    return s->n++;
}
