/* Original spellings of symbols. The term store folds case; a game master that compares
 * moves case-sensitively needs them back as it wrote them. A case map records, for every
 * symbol token of a KIF text, its first spelling, keyed by the folded name, and prints
 * terms the way the reference game master and players do: "( mark 3 3 )". */
#ifndef SERVER_CASEMAP_H
#define SERVER_CASEMAP_H

#include <stddef.h>

#include "base/htab.h"
#include "gdl/term.h"

typedef struct {
    char *folded, *spelling; /* a name and its first spelling */
} casemap_entry_t;

typedef struct {
    casemap_entry_t *e;
    size_t n, cap;
    htab_t index; /* entries by folded name */
} casemap_t;

void casemap_init(casemap_t *cm);
void casemap_fini(casemap_t *cm);
/* Records the spelling of every symbol token of text (comments, strings and variables
 * are skipped; the first spelling seen of a name wins). */
void casemap_scan(casemap_t *cm, const char *text, size_t len);
/* The recorded spelling of a folded name, or the name itself. */
const char *casemap_spell(const casemap_t *cm, const char *folded);
/* Appends t in KIF with original spellings: a constant bare, a compound "( f a b )".
 * cm may be NULL (canonical names). */
void casemap_print(const casemap_t *cm, const term_store_t *ts, term_t t, strbuf_t *out);
/* Appends a list of terms the way ggp-base writes a joint move: "(( mark 1 2 ) noop )". */
void casemap_print_list(const casemap_t *cm, const term_store_t *ts, const term_t *terms,
                        uint32_t n, strbuf_t *out);

#endif
