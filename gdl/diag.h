/* Diagnostics: errors in input are data, a list of located messages handed back to the
 * caller, printed as "file:line:col: message". */
#ifndef GDL_DIAG_H
#define GDL_DIAG_H

#include <stdio.h>

#include "base/util.h"

typedef struct {
    char *file;
    int line, col;
    char *msg;
} diag_item_t;

typedef struct {
    diag_item_t *items;
    size_t n, cap;
} diag_t;

void diag_init(diag_t *d);
void diag_fini(diag_t *d);
void diag_add(diag_t *d, const char *file, int line, int col, const char *fmt, ...)
    PRINTF_LIKE(5, 6);
void diag_print(const diag_t *d, FILE *out);
/* The n-th diagnostic as "file:line:col: message" into out. */
void diag_format(const diag_t *d, size_t i, strbuf_t *out);

#endif
