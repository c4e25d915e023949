/* Unit tests for base/htab and base/keyset: ids found by key through growth, colliding
 * hashes, find-or-add in one probe, clearing; key sets number keys in order of addition. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/htab.h"
#include "base/keyset.h"

/* Keys kept by the caller: key i is keys[i]; the hash is deliberately poor (many
 * collisions) so that probing runs through occupied slots. */
typedef struct {
    uint32_t keys[5000];
    uint32_t want;
} keys_t;

static uint32_t poor_hash(uint32_t key) {
    return key % 7;
}

static bool same(const void *ctx, uint32_t id) {
    const keys_t *k = ctx;
    return k->keys[id] == k->want;
}

static uint32_t hash_of(const void *ctx, uint32_t id) {
    return poor_hash(((const keys_t *)ctx)->keys[id]);
}

static uint32_t find(const htab_t *t, keys_t *k, uint32_t key) {
    k->want = key;
    return htab_find(t, poor_hash(key), same, k);
}

static void test_find_through_growth(void **state) {
    (void)state;
    static keys_t k;
    htab_t t;
    htab_init(&t);
    assert_int_equal(find(&t, &k, 5), HTAB_NONE); /* an empty table answers */
    for (uint32_t i = 0; i < 1000; i++) {
        k.keys[i] = 3 * i + 1;
        htab_add(&t, poor_hash(k.keys[i]), i, hash_of, &k);
        assert_true(2 * t.n <= t.mask + 1); /* at most half full */
    }
    assert_int_equal(t.n, 1000);
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(find(&t, &k, 3 * i + 1), i);
    assert_int_equal(find(&t, &k, 3), HTAB_NONE);
    htab_clear(&t);
    assert_int_equal(t.n, 0);
    assert_int_equal(find(&t, &k, 1), HTAB_NONE);
    htab_fini(&t);
}

static void test_probe_finds_or_adds(void **state) {
    (void)state;
    static keys_t k;
    htab_t t = {0}; /* all zero bytes: an empty table */
    uint32_t n = 0;
    for (uint32_t round = 0; round < 2; round++)
        for (uint32_t key = 0; key < 300; key++) {
            k.want = key;
            htab_reserve(&t, hash_of, &k);
            uint32_t *slot = htab_probe(&t, poor_hash(key), same, &k);
            if (round == 0) {
                assert_int_equal(*slot, 0);
                k.keys[n] = key;
                htab_fill(&t, slot, n++);
            } else {
                assert_int_equal(*slot - 1, key); /* added in key order */
            }
        }
    assert_int_equal(t.n, 300);
    htab_fini(&t);
}

static void test_keyset_numbers_in_order(void **state) {
    (void)state;
    keyset_t s;
    keyset_init(&s);
    assert_int_equal(keyset_find(&s, 42), UINT32_MAX);
    for (uint32_t i = 0; i < 2000; i++)
        assert_int_equal(keyset_add(&s, (uint64_t)i * 1000003u), i);
    for (uint32_t i = 0; i < 2000; i++) {
        assert_int_equal(keyset_add(&s, (uint64_t)i * 1000003u), i); /* no second entry */
        assert_int_equal(keyset_find(&s, (uint64_t)i * 1000003u), i);
        assert_true(s.keys[i] == (uint64_t)i * 1000003u);
    }
    assert_int_equal(s.n, 2000);
    /* pairs differ in either half */
    uint32_t a = keyset_add(&s, keyset_pair(7, 2)), b = keyset_add(&s, keyset_pair(2, 7));
    assert_int_not_equal(a, b);
    assert_int_equal(keyset_find(&s, keyset_pair(7, 2)), a);
    keyset_fini(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_through_growth),
        cmocka_unit_test(test_probe_finds_or_adds),
        cmocka_unit_test(test_keyset_numbers_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
