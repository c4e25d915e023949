/* The hash table: see htab.h. */
#include "base/htab.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void htab_init(htab_t *t) {
    memset(t, 0, sizeof *t);
}

void htab_fini(htab_t *t) {
    free(t->slot);
    htab_init(t);
}

/* htab_clear's work, out of line. */
void htab_wipe(htab_t *t) {
    memset(t->slot, 0, ((size_t)t->mask + 1) * sizeof *t->slot);
    t->n = 0;
}

static void put(htab_t *t, uint32_t h, uint32_t id) {
    uint32_t i = h & t->mask;
    while (t->slot[i])
        i = (i + 1) & t->mask;
    t->slot[i] = id + 1;
}

/* Doubles the table: out of line, it is rare. */
void htab_grow(htab_t *t, htab_hash_fn hash, const void *ctx) {
    uint32_t *old = t->slot;
    size_t old_size = old ? (size_t)t->mask + 1 : 0;
    size_t size = old_size ? 2 * old_size : 16;
    /* Out of memory in all but name, like xmalloc's: 2^30 entries index at least as many
     * items (terms of 16 bytes and more, the reasoner's tuples, capped far below), so a
     * game text runs out of memory before it gets here. */
    if (size > ((size_t)1 << 31)) die("hash table: more than 2^30 entries");
    t->slot = xcalloc(size, sizeof *t->slot);
    t->mask = (uint32_t)(size - 1);
    for (size_t i = 0; i < old_size; i++)
        if (old[i]) put(t, hash(ctx, old[i] - 1), old[i] - 1);
    free(old);
}
