/* The project's hash table: an open-addressing index of 32-bit ids whose keys the caller
 * keeps (terms in the store, tuples in a relation, states in an array, ...).
 *
 * The caller hashes a key and tells whether an id holds it; the table keeps only the ids
 * (id + 1 in a slot, 0 for an empty one), probes linearly and doubles once half full, so
 * a lookup is a few compares in one cache line. htab_find is inline: with a constant
 * `same` the compiler folds the callback into the probe loop. */
#ifndef BASE_HTAB_H
#define BASE_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTAB_NONE UINT32_MAX

typedef struct {
    uint32_t *slot; /* id + 1, or 0 */
    uint32_t mask;  /* slots - 1 */
    uint32_t n;     /* ids held */
} htab_t;

/* Does id hold the key the caller looks for? */
typedef bool (*htab_same_fn)(const void *ctx, uint32_t id);
/* The hash of id's key (to move it when the table grows). */
typedef uint32_t (*htab_hash_fn)(const void *ctx, uint32_t id);

/* An empty table (as is one of all zero bytes); it allocates on the first add. */
void htab_init(htab_t *t);
void htab_fini(htab_t *t);

/* The out-of-line halves of htab_clear and htab_reserve. */
void htab_wipe(htab_t *t);
void htab_grow(htab_t *t, htab_hash_fn hash, const void *ctx);

/* Forgets every id, keeping the slots. */
static inline void htab_clear(htab_t *t) {
    if (t->n) htab_wipe(t);
}

/* The id whose key hashes to h and that `same` accepts; HTAB_NONE when there is none. */
static inline uint32_t htab_find(const htab_t *t, uint32_t h, htab_same_fn same, const void *ctx) {
    if (!t->n) return HTAB_NONE;
    for (size_t i = h & t->mask; t->slot[i]; i = (i + 1) & t->mask)
        if (same(ctx, t->slot[i] - 1)) return t->slot[i] - 1;
    return HTAB_NONE;
}

/* Makes room for one more id: doubles the table (moving the ids by `hash`) when one more
 * would make it more than half full. */
static inline void htab_reserve(htab_t *t, htab_hash_fn hash, const void *ctx) {
    /* more than half full with one more (an empty table, mask 0, always grows) */
    if (t->n >= (t->mask + 1) >> 1) htab_grow(t, hash, ctx);
}

/* Adds id (absent, less than HTAB_NONE) under hash h. */
static inline void htab_add(htab_t *t, uint32_t h, uint32_t id, htab_hash_fn hash,
                            const void *ctx) {
    htab_reserve(t, hash, ctx);
    size_t i = h & t->mask;
    while (t->slot[i])
        i = (i + 1) & t->mask;
    t->slot[i] = id + 1;
    t->n++;
}

/* Find-or-add in one probe. After htab_reserve: the slot of the id whose key hashes to h
 * and that `same` accepts (*slot - 1 is the id), or else (*slot == 0) the empty slot where
 * htab_fill puts a new one; no other add may come between. */
static inline uint32_t *htab_probe(htab_t *t, uint32_t h, htab_same_fn same, const void *ctx) {
    size_t i = h & t->mask;
    for (; t->slot[i]; i = (i + 1) & t->mask)
        if (same(ctx, t->slot[i] - 1)) break;
    return &t->slot[i];
}

static inline void htab_fill(htab_t *t, uint32_t *slot, uint32_t id) {
    *slot = id + 1;
    t->n++;
}

#endif
