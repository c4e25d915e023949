/* Hash mixing for the project's hash tables. */
#ifndef BASE_HASH_H
#define BASE_HASH_H

#include <stdint.h>

static inline uint32_t hash_mix(uint32_t h, uint32_t v) {
    h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h;
}

#endif
