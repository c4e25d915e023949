/* S-expression documents: the driver around the flex scanner and bison parser. */
#include "gdl/sexp.h"

#include <stdlib.h>
#include <string.h>

#include "parser.h"

typedef void *yyscan_t;
int gdl_yylex_init_extra(sexp_parse_ctx_t *extra, yyscan_t *scanner);
int gdl_yylex_destroy(yyscan_t scanner);
struct yy_buffer_state *gdl_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);

sexp_t *sexp_new_node(sexp_parse_ctx_t *c, int kind, int line, int col) {
    sexp_t *e = xcalloc(1, sizeof *e);
    e->kind = kind;
    e->line = line;
    e->col = col;
    e->alloc = c->doc->all;
    c->doc->all = e;
    return e;
}

static bool find_nul(const char *text, size_t len, const char *file, diag_t *d) {
    const char *z = memchr(text, 0, len);
    if (!z) return false;
    int line = 1, col = 1;
    for (const char *p = text; p < z; p++) {
        if (*p == '\n')
            line++, col = 1;
        else
            col++;
    }
    diag_add(d, file, line, col, "NUL byte in input");
    return true;
}

bool sexp_parse(term_store_t *ts, const char *text, size_t len, const char *file, sexp_doc_t *doc,
                diag_t *d) {
    memset(doc, 0, sizeof *doc);
    doc->file = file;
    if (find_nul(text, len, file, d)) return false;
    if (len > (size_t)INT32_MAX) {
        diag_add(d, file, 1, 1, "input too large");
        return false;
    }
    sexp_parse_ctx_t ctx = {.ts = ts, .doc = doc, .diag = d, .file = file};
    yyscan_t scanner;
    if (gdl_yylex_init_extra(&ctx, &scanner)) die("cannot create the scanner");
    gdl_yy_scan_bytes(text, (int)len, scanner);
    int rc = gdl_yyparse(scanner, &ctx);
    gdl_yylex_destroy(scanner);
    if (rc != 0 || ctx.failed) {
        if (!ctx.failed) diag_add(d, file, 1, 1, "parse failed");
        sexp_t *all = doc->all;
        sexp_doc_free(doc);
        (void)all;
        doc->file = file;
        return false;
    }
    return true;
}

void sexp_doc_free(sexp_doc_t *doc) {
    sexp_t *e = doc->all;
    while (e) {
        sexp_t *next = e->alloc;
        free(e);
        e = next;
    }
    memset(doc, 0, sizeof *doc);
}

sexp_t *sexp_child(const sexp_t *list, uint32_t i) {
    if (!list || list->kind != SEXP_LIST) return NULL;
    sexp_t *c = list->first;
    while (c && i--)
        c = c->next;
    return c;
}

void sexp_print(const term_store_t *ts, const sexp_t *e, strbuf_t *out) {
    if (e->kind == SEXP_ATOM) {
        sb_puts(out, term_sym_name(ts, e->sym));
    } else if (e->kind == SEXP_VAR) {
        sb_putc(out, '?');
        sb_puts(out, term_sym_name(ts, e->sym));
    } else {
        sb_putc(out, '(');
        for (sexp_t *c = e->first; c; c = c->next) {
            if (c != e->first) sb_putc(out, ' ');
            sexp_print(ts, c, out);
        }
        sb_putc(out, ')');
    }
}
