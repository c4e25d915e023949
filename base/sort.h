/* Sorting arrays of unsigned 64-bit keys in place, faster than qsort where the grounder sorts
 * millions of them (a node's literal occurrences, lit << 32 | rule, in factoring): a least
 * significant digit radix sort, byte by byte, skipping the bytes every key shares; an insertion
 * sort for short arrays. The result is the ascending order, as qsort with cmp_u64 gives. */
#ifndef BASE_SORT_H
#define BASE_SORT_H

#include <stddef.h>
#include <stdint.h>

void sort_u64(uint64_t *a, size_t n);

/* Sorts a[0..n) of type T in place by insertion, x after y where AFTER(x, y): for the few
 * elements where a comparator's calls (qsort) or a radix sort's histograms cost more than
 * the sort itself (sort_u64's and sort_u32's short arrays, the optimiser's spans). Stable. */
#define INSERTION_SORT(T, a, n, AFTER)                                                             \
    do {                                                                                           \
        for (size_t i_ = 1; i_ < (size_t)(n); i_++) {                                              \
            T x_ = (a)[i_];                                                                        \
            size_t j_ = i_;                                                                        \
            for (; j_ > 0 && AFTER((a)[j_ - 1], x_); j_--)                                         \
                (a)[j_] = (a)[j_ - 1];                                                             \
            (a)[j_] = x_;                                                                          \
        }                                                                                          \
    } while (0)

/* Ascending, as qsort with cmp_u32: an insertion sort for the few words of a ground rule's
 * literals (sorted by the million in the optimiser, where qsort's calls cost more than the
 * sort), qsort past 16. */
void sort_u32(uint32_t *a, size_t n);

#endif
