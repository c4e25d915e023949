/* Canonical match traces: see trace.h. */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "sexp.h"

typedef struct {
    const char *text;
    term_t term;
} keyed_t;

static int cmp_keyed(const void *a, const void *b) {
    return strcmp(((const keyed_t *)a)->text, ((const keyed_t *)b)->text);
}

uint32_t trace_sort_terms(const term_store_t *ts, term_t *terms, uint32_t n, strbuf_t *texts) {
    strbuf_t all;
    sb_init(&all);
    size_t *off = xmalloc((n + 1) * sizeof *off);
    for (uint32_t i = 0; i < n; i++) {
        off[i] = all.len;
        term_print(ts, terms[i], &all);
        sb_putc(&all, 0);
    }
    keyed_t *k = xmalloc((n + 1) * sizeof *k);
    for (uint32_t i = 0; i < n; i++)
        k[i] = (keyed_t){all.data + off[i], terms[i]};
    qsort(k, n, sizeof *k, cmp_keyed);
    uint32_t m = 0;
    sb_clear(texts);
    for (uint32_t i = 0; i < n; i++) {
        if (m && strcmp(k[m - 1].text, k[i].text) == 0) continue;
        if (m) sb_putc(texts, ' ');
        sb_puts(texts, k[i].text);
        k[m++] = k[i];
    }
    for (uint32_t i = 0; i < m; i++)
        terms[i] = k[i].term;
    free(k);
    free(off);
    sb_fini(&all);
    return m;
}

void trace_game_name(const char *path, strbuf_t *out) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    sb_putn(out, base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}
