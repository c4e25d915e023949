/* The random generator of the project: SplitMix64, the generator of the canonical trace
 * format (docs/trace-format.md), so that seeded runs repeat everywhere. */
#ifndef BASE_RNG_H
#define BASE_RNG_H

#include <stdint.h>

/* The SplitMix64 generator of the canonical trace format. */
typedef struct {
    uint64_t s;
} splitmix_t;
static inline uint64_t splitmix_next(splitmix_t *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
