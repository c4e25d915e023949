/* Unit tests for base/popcount: popcount64 (the bit-parallel sum where the build has no
 * popcount instruction) counts as a loop over the 64 bits does, on words of every weight
 * and on random words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/popcount.h"
#include "base/rng.h"

static uint32_t bit_loop(uint64_t x) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < 64; i++)
        c += (x >> i) & 1;
    return c;
}

/* 0, all ones, one bit, and the low k bits for every k. */
static void test_popcount_weights(void **state) {
    (void)state;
    assert_int_equal(popcount64(0), 0);
    assert_int_equal(popcount64(~0ull), 64);
    for (uint32_t k = 0; k < 64; k++) {
        assert_int_equal(popcount64(1ull << k), 1);
        assert_int_equal(popcount64((1ull << k) - 1), k);
        assert_int_equal(popcount64(~0ull << k), 64 - k);
    }
}

static void test_popcount_random(void **state) {
    (void)state;
    splitmix_t s = {7};
    for (int i = 0; i < 100000; i++) {
        uint64_t x = splitmix_next(&s), y = splitmix_next(&s);
        assert_int_equal(popcount64(x), bit_loop(x));
        assert_int_equal(popcount64(x & y), bit_loop(x & y)); /* sparser words */
        assert_int_equal(popcount64(x | y), bit_loop(x | y)); /* denser */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_popcount_weights),
        cmocka_unit_test(test_popcount_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
