/* Radix sort of 64-bit keys: see sort.h. */
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

enum { SHORT = 32 }; /* up to this, an insertion sort: the histograms would cost more */

#define GREATER(x, y) ((x) > (y))

/* One stable pass on byte d: from src into dst, by the counts of that byte. */
static void pass(const uint64_t *src, uint64_t *dst, size_t n, unsigned d, const size_t *count) {
    size_t at[256], sum = 0;
    for (unsigned b = 0; b < 256; b++)
        at[b] = sum, sum += count[b];
    for (size_t i = 0; i < n; i++)
        dst[at[src[i] >> (8 * d) & 255]++] = src[i];
}

void sort_u64(uint64_t *a, size_t n) {
    if (n <= SHORT) {
        INSERTION_SORT(uint64_t, a, n, GREATER);
        return;
    }
    size_t(*count)[256] = xcalloc(8, sizeof *count);
    for (size_t i = 0; i < n; i++)
        for (unsigned d = 0; d < 8; d++)
            count[d][a[i] >> (8 * d) & 255]++;
    uint64_t *buf = xmalloc(n * sizeof *buf), *src = a, *dst = buf;
    for (unsigned d = 0; d < 8; d++) {
        if (count[d][a[0] >> (8 * d) & 255] == n) continue; /* every key has this byte */
        pass(src, dst, n, d, count[d]);
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(buf), free(count);
}

void sort_u32(uint32_t *a, size_t n) {
    if (n > 16)
        qsort(a, n, sizeof *a, cmp_u32);
    else
        INSERTION_SORT(uint32_t, a, n, GREATER);
}
