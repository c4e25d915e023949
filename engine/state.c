/* Term states: see state.h. */
#include "engine/state.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void state_init(state_t *s) {
    memset(s, 0, sizeof *s);
}
void state_fini(state_t *s) {
    free(s->facts);
    memset(s, 0, sizeof *s);
}
void state_copy(state_t *dst, const state_t *src) {
    if (dst->cap < src->n) {
        dst->facts = xrealloc(dst->facts, (src->n + 1) * sizeof *dst->facts);
        dst->cap = src->n + 1;
    }
    if (src->n) memcpy(dst->facts, src->facts, src->n * sizeof *dst->facts);
    dst->n = src->n;
}
bool state_equal(const state_t *a, const state_t *b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->facts, b->facts, a->n * sizeof *a->facts) == 0);
}
uint64_t state_hash(const state_t *s) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < s->n; i++)
        h = (h ^ s->facts[i]) * 1099511628211ull;
    return h;
}
bool state_has(const state_t *s, term_t f) {
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->facts[mid] < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->facts[lo] == f;
}
void state_normalise(state_t *s) {
    if (s->n < 2) return;
    qsort(s->facts, s->n, sizeof *s->facts, cmp_u32);
    uint32_t k = 1;
    for (uint32_t i = 1; i < s->n; i++)
        if (s->facts[i] != s->facts[k - 1]) s->facts[k++] = s->facts[i];
    s->n = k;
}
void state_push(state_t *s, term_t f) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->facts = xrealloc(s->facts, s->cap * sizeof *s->facts);
    }
    s->facts[s->n++] = f;
}
