/* The number of bits set in a 64-bit word, inline. Without -mpopcnt (the build runs on
 * any x86-64) __builtin_popcountll is a call into libgcc; the bit-parallel sum here is a
 * dozen instructions in the caller, and the instruction itself where the build allows it. */
#ifndef BASE_POPCOUNT_H
#define BASE_POPCOUNT_H

#include <stdint.h>

static inline uint32_t popcount64(uint64_t x) {
#ifdef __POPCNT__
    return (uint32_t)__builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555ull;                                /* 2-bit sums */
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull); /* 4-bit */
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;                           /* bytes */
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);                 /* top byte */
#endif
}

#endif
