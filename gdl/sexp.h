/* S-expressions as read from KIF text: the parser's output, with a location on every node.
 * Game descriptions and protocol messages are both read through this one parser. Atoms and
 * variables are interned (case-folded) in the caller's term store; the document owns its
 * nodes and frees them all at once. */
#ifndef GDL_SEXP_H
#define GDL_SEXP_H

#include <stdbool.h>

#include "gdl/diag.h"
#include "gdl/term.h"

enum { SEXP_ATOM, SEXP_VAR, SEXP_LIST };

typedef struct sexp sexp_t;
struct sexp {
    int kind;
    sym_t sym; /* atom, or variable name without the '?' */
    int line, col;
    uint32_t n;    /* list length */
    sexp_t *first; /* list children, linked by next */
    sexp_t *last;
    sexp_t *next;  /* next sibling */
    sexp_t *alloc; /* every node of a document, for freeing */
};

typedef struct {
    sexp_t *first; /* top-level expressions, linked by next */
    uint32_t n;
    sexp_t *all;
    const char *file;
} sexp_doc_t;

/* Maximum nesting of parentheses accepted; deeper input is an error, never a crash. */
#define SEXP_MAX_DEPTH 500
/* A move the engines derive (an atom's argument: below TERM_MAX_DEPTH) inside a PLAY's list
 * of moves, or a percept inside a GDL-II PLAY's list, is read back. */
_Static_assert(TERM_MAX_DEPTH + 3 <= SEXP_MAX_DEPTH, "derived terms must fit in a message");

/* Parses text (len bytes, NUL bytes are errors). Returns true on success; on failure the
 * diagnostics say where and why, and doc is empty. Always call sexp_doc_free. */
bool sexp_parse(term_store_t *ts, const char *text, size_t len, const char *file, sexp_doc_t *doc,
                diag_t *d);
void sexp_doc_free(sexp_doc_t *doc);

/* The i-th child of a list (NULL when out of range); linear, for short lists. */
sexp_t *sexp_child(const sexp_t *list, uint32_t i);
/* Appends the expression as text, lower-case, canonical spacing. */
void sexp_print(const term_store_t *ts, const sexp_t *e, strbuf_t *out);

/* Internal to the parser. */
typedef struct {
    term_store_t *ts;
    sexp_doc_t *doc;
    diag_t *diag;
    const char *file;
    int depth;
    sexp_t *last_top;
    bool failed;
} sexp_parse_ctx_t;
sexp_t *sexp_new_node(sexp_parse_ctx_t *c, int kind, int line, int col);

#endif
