/* Original spellings of symbols: see casemap.h. */
#include "gdl/casemap.h"
#include "base/hash.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void casemap_init(casemap_t *cm) {
    memset(cm, 0, sizeof *cm);
}

void casemap_fini(casemap_t *cm) {
    for (size_t i = 0; i < cm->n; i++) {
        free(cm->e[i].folded);
        free(cm->e[i].spelling);
    }
    free(cm->e);
    htab_fini(&cm->index);
    memset(cm, 0, sizeof *cm);
}

typedef struct {
    const casemap_t *cm;
    const char *key;
    size_t n;
} name_key_t;

static bool same_name(const void *ctx, uint32_t i) {
    const name_key_t *k = ctx;
    const char *key = k->cm->e[i].folded;
    return strlen(key) == k->n && memcmp(key, k->key, k->n) == 0;
}

static uint32_t name_hash(const void *ctx, uint32_t i) {
    const char *key = ((const casemap_t *)ctx)->e[i].folded;
    return hash_bytes(key, strlen(key));
}

/* The entry of a folded name, or HTAB_NONE. */
static uint32_t find(const casemap_t *cm, const char *key, size_t n) {
    name_key_t k = {cm, key, n};
    return htab_find(&cm->index, hash_bytes(key, n), same_name, &k);
}

static char *dup_n(const char *s, size_t n) {
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static void add_token(casemap_t *cm, const char *tok, size_t n) {
    char *key = dup_n(tok, n);
    for (size_t i = 0; i < n; i++)
        key[i] = (char)tolower((unsigned char)key[i]);
    if (find(cm, key, n) != HTAB_NONE) {
        free(key);
        return;
    }
    GROW(cm->e, cm->cap, cm->n + 1);
    cm->e[cm->n] = (casemap_entry_t){key, dup_n(tok, n)};
    htab_add(&cm->index, hash_bytes(key, n), (uint32_t)cm->n, name_hash, cm);
    cm->n++;
}

/* A character of a symbol, as the KIF scanner reads them. */
static bool atom_char(unsigned char ch) {
    return ch > 0x20 && ch != 0x7f && !strchr("();?\"", ch);
}

void casemap_scan(casemap_t *cm, const char *text, size_t len) {
    size_t i = 0;
    while (i < len) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == ';') {
            while (i < len && text[i] != '\n')
                i++;
        } else if (ch == '"') {
            for (i++; i < len && text[i] != '"' && text[i] != '\n'; i++) {
            }
            i++;
        } else if (ch == '?') {
            for (i++; i < len && atom_char((unsigned char)text[i]); i++) {
            }
        } else if (atom_char(ch)) {
            size_t start = i;
            while (i < len && atom_char((unsigned char)text[i]))
                i++;
            add_token(cm, text + start, i - start);
        } else {
            i++;
        }
    }
}

const char *casemap_spell(const casemap_t *cm, const char *folded) {
    uint32_t i = cm ? find(cm, folded, strlen(folded)) : HTAB_NONE;
    return i == HTAB_NONE ? folded : cm->e[i].spelling;
}

void casemap_print(const casemap_t *cm, const term_store_t *ts, term_t t, strbuf_t *out) {
    const char *name = casemap_spell(cm, term_sym_name(ts, term_sym(ts, t)));
    if (term_kind(ts, t) != TERM_FUN) {
        sb_puts(out, name);
        return;
    }
    sb_puts(out, "( ");
    sb_puts(out, name);
    for (uint32_t i = 0; i < term_arity(ts, t); i++) {
        sb_putc(out, ' ');
        casemap_print(cm, ts, term_arg(ts, t, i), out);
    }
    sb_puts(out, " )");
}

void casemap_print_list(const casemap_t *cm, const term_store_t *ts, const term_t *terms,
                        uint32_t n, strbuf_t *out) {
    sb_putc(out, '(');
    for (uint32_t i = 0; i < n; i++) {
        casemap_print(cm, ts, terms[i], out);
        sb_putc(out, ' ');
    }
    sb_putc(out, ')');
}
