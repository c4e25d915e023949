/* Diagnostics list: see diag.h. */
#include "gdl/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_init(diag_t *d) {
    memset(d, 0, sizeof *d);
}

void diag_fini(diag_t *d) {
    for (size_t i = 0; i < d->n; i++) {
        free(d->items[i].file);
        free(d->items[i].msg);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

void diag_add(diag_t *d, const char *file, int line, int col, const char *fmt, ...) {
    GROW(d->items, d->cap, d->n + 1);
    diag_item_t *it = &d->items[d->n++];
    it->file = xstrdup(file ? file : "<input>");
    it->line = line;
    it->col = col;
    strbuf_t sb;
    sb_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    char tmp[1024];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sb_puts(&sb, tmp);
    it->msg = xstrdup(sb_str(&sb));
    sb_fini(&sb);
}

void diag_format(const diag_t *d, size_t i, strbuf_t *out) {
    const diag_item_t *it = &d->items[i];
    if (it->line <= 0) /* about the whole file (it cannot be read): no location to give */
        sb_printf(out, "%s: %s", it->file, it->msg);
    else
        sb_printf(out, "%s:%d:%d: %s", it->file, it->line, it->col, it->msg);
}

void diag_print(const diag_t *d, FILE *out) {
    strbuf_t sb;
    sb_init(&sb);
    for (size_t i = 0; i < d->n; i++) {
        sb_clear(&sb);
        diag_format(d, i, &sb);
        fprintf(out, "%s\n", sb_str(&sb));
    }
    sb_fini(&sb);
}
