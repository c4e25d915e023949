/* Canonical match traces: see trace.h. */
#include "gdl/trace.h"

#include <stdlib.h>
#include <string.h>

#include "gdl/sexp.h"

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

/* A goal value's digits without leading zeros, or NULL when it is not a number. */
static const char *digits(const char *text) {
    if (!*text || strspn(text, "0123456789") != strlen(text)) return NULL;
    while (text[0] == '0' && text[1])
        text++;
    return text;
}

/* Goal values in numeric order; anything not a number after the numbers, bytewise. */
static int cmp_goal(const void *a, const void *b) {
    const char *x = ((const keyed_t *)a)->text, *y = ((const keyed_t *)b)->text;
    const char *dx = digits(x), *dy = digits(y);
    if (dx && dy && strlen(dx) != strlen(dy)) return strlen(dx) < strlen(dy) ? -1 : 1;
    if (dx && dy && strcmp(dx, dy)) return strcmp(dx, dy);
    if (!dx != !dy) return dx ? -1 : 1;
    return strcmp(x, y);
}

void trace_goal_text(const term_store_t *ts, const term_t *values, uint32_t n, strbuf_t *out) {
    if (n == 0) {
        sb_puts(out, "none");
        return;
    }
    strbuf_t all;
    sb_init(&all);
    size_t *off = xmalloc(n * sizeof *off);
    for (uint32_t i = 0; i < n; i++) {
        off[i] = all.len;
        term_print(ts, values[i], &all);
        sb_putc(&all, 0);
    }
    keyed_t *k = xmalloc(n * sizeof *k);
    for (uint32_t i = 0; i < n; i++)
        k[i] = (keyed_t){all.data + off[i], values[i]};
    qsort(k, n, sizeof *k, cmp_goal);
    if (n > 1) sb_puts(out, "ambiguous");
    for (uint32_t i = 0; i < n; i++)
        sb_printf(out, "%s%s", n > 1 ? " " : "", k[i].text);
    free(k);
    free(off);
    sb_fini(&all);
}
