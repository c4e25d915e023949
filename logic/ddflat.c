/* Flat decision diagrams: see ddflat.h. */
#include "logic/ddflat.h"

#include <stdlib.h>

#include "base/util.h"

void ddflat_init(ddflat_t *f) {
    *f = (ddflat_t){0};
}

void ddflat_fini(ddflat_t *f) {
    free(f->nodes), free(f->roots);
    free(f->test_start), free(f->test_word), free(f->test_mask);
    *f = (ddflat_t){0};
}

/* One (word, mask) pair per word a variable's bits fall in. */
void ddflat_set_vars(ddflat_t *f, uint32_t n_vars, const uint32_t *start, const uint32_t *bits) {
    free(f->test_start), free(f->test_word), free(f->test_mask);
    uint32_t total = start[n_vars];
    f->n_vars = n_vars;
    f->test_start = xmalloc((n_vars + 1) * sizeof *f->test_start);
    f->test_word = xmalloc((total + 1) * sizeof *f->test_word);
    f->test_mask = xmalloc((total + 1) * sizeof *f->test_mask);
    uint32_t n = 0;
    for (uint32_t v = 0; v < n_vars; v++) {
        f->test_start[v] = n;
        for (uint32_t k = start[v]; k < start[v + 1]; k++) {
            uint32_t w = bits[k] >> 6, p = f->test_start[v];
            while (p < n && f->test_word[p] != w)
                p++;
            if (p == n) f->test_word[n] = w, f->test_mask[n++] = 0;
            f->test_mask[p] |= 1ull << (bits[k] & 63);
        }
    }
    f->test_start[n_vars] = n;
}

uint32_t ddflat_size(const ddflat_t *f, uint32_t k) {
    uint8_t *seen = xcalloc(f->n_nodes + 1, 1);
    uint32_t *stack = xmalloc((2 * (size_t)f->n_nodes + 2) * sizeof *stack), sp = 0, count = 0;
    stack[sp++] = f->roots[k];
    while (sp) {
        uint32_t n = stack[--sp];
        if (n <= 1 || seen[n]) continue;
        seen[n] = 1;
        count++;
        stack[sp++] = f->nodes[n].lo;
        stack[sp++] = f->nodes[n].hi;
    }
    free(seen);
    free(stack);
    return count;
}
