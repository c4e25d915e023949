/* A set of 64-bit keys numbered in the order they were added: key -> number through the
 * project's hash table, number -> key through the array. Its keys are terms (fluents,
 * moves, ground atoms) or signatures (symbol and arity, keyset_pair). */
#ifndef BASE_KEYSET_H
#define BASE_KEYSET_H

#include <stddef.h>
#include <stdint.h>

#include "base/htab.h"

typedef struct {
    uint64_t *keys; /* keys[i]: the key numbered i */
    uint32_t n;
    size_t cap;
    htab_t index;
} keyset_t;

/* An empty set (as is one of all zero bytes). */
void keyset_init(keyset_t *s);
void keyset_fini(keyset_t *s);
/* The number of key, or UINT32_MAX when it is not in the set. */
uint32_t keyset_find(const keyset_t *s, uint64_t key);
/* The number of key, adding it when new. */
uint32_t keyset_add(keyset_t *s, uint64_t key);

/* One key of two 32-bit values (a symbol and an arity). */
static inline uint64_t keyset_pair(uint32_t a, uint32_t b) {
    return (uint64_t)a << 32 | b;
}

#endif
