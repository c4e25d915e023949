/* Unit tests for base/sort: sort_u64 and sort_u32 give qsort's order on short and long arrays, with
 * duplicates, keys that differ in one byte only, and every byte varying. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/rng.h"
#include "base/sort.h"
#include "base/util.h"

/* Sorts a copy both ways and compares. */
static void check(const uint64_t *keys, size_t n) {
    uint64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
    memcpy(a, keys, n * sizeof *a), memcpy(b, keys, n * sizeof *b);
    sort_u64(a, n);
    qsort(b, n, sizeof *b, cmp_u64);
    assert_memory_equal(a, b, n * sizeof *a);
    free(a), free(b);
}

static void test_sort_sizes(void **state) {
    (void)state;
    splitmix_t s = {1}; /* keys that vary in every byte */
    uint64_t keys[5000];
    size_t sizes[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1000, 5000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        for (size_t i = 0; i < sizes[k]; i++)
            keys[i] = splitmix_next(&s);
        check(keys, sizes[k]);
    }
}

static void test_sort_shapes(void **state) {
    (void)state;
    splitmix_t s = {7};
    uint64_t keys[3000];
    for (size_t i = 0; i < 3000; i++) /* the factoring's shape: lit << 32 | rule */
        keys[i] = (splitmix_next(&s) % 2000000) << 32 | (i / 3);
    check(keys, 3000);
    for (size_t i = 0; i < 3000; i++) /* duplicates, and one byte varying */
        keys[i] = 0x1122334455660000ull | (splitmix_next(&s) & 0xff00);
    check(keys, 3000);
    for (size_t i = 0; i < 3000; i++) /* all equal */
        keys[i] = 42;
    check(keys, 3000);
    for (size_t i = 0; i < 3000; i++) /* descending */
        keys[i] = UINT64_MAX - i;
    check(keys, 3000);
}

static void test_sort_u32(void **state) {
    (void)state;
    splitmix_t s = {3};
    uint32_t a[40], b[40];
    for (size_t n = 0; n <= 40; n++) { /* both sides of the insertion sort's bound */
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] = (uint32_t)(splitmix_next(&s) % 20); /* duplicates */
        sort_u32(a, n);
        qsort(b, n, sizeof *b, cmp_u32);
        assert_memory_equal(a, b, n * sizeof *a);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_sizes),
        cmocka_unit_test(test_sort_shapes),
        cmocka_unit_test(test_sort_u32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
