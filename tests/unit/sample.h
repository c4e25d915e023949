/* How much of a property test's sample to run. The Sanitize build sets
 * GGP_TEST_SAMPLE_EVERY (tests/CMakeLists.txt): a test that checks every state (or every
 * k-th) checks every k*N-th there, where the sanitizers make each check 5-20 times dearer
 * and look for memory errors, which the same code paths show on fewer states; the Release
 * build checks the whole sample. Every test still asserts on what it checks. */
#ifndef TESTS_UNIT_SAMPLE_H
#define TESTS_UNIT_SAMPLE_H

#include <stdint.h>
#include <stdlib.h>

/* N, from 1 (the whole sample, the default) to 1000. */
static inline uint32_t test_sample_every(void) {
    const char *e = getenv("GGP_TEST_SAMPLE_EVERY");
    long n = e ? strtol(e, NULL, 10) : 1;
    return n < 1 ? 1 : n > 1000 ? 1000 : (uint32_t)n;
}

#endif
