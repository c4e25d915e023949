/* Original spellings of symbols: see casemap.h. */
#include "gdl/casemap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void casemap_init(casemap_t *cm) {
    memset(cm, 0, sizeof *cm);
}

void casemap_fini(casemap_t *cm) {
    for (size_t i = 0; i < cm->cap; i++) {
        free(cm->keys[i]);
        free(cm->vals[i]);
    }
    free(cm->keys);
    free(cm->vals);
    memset(cm, 0, sizeof *cm);
}

static size_t hash_name(const char *s, size_t n) {
    size_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The slot of a folded name: where it is, or the empty slot where it would go. */
static size_t slot_of(const casemap_t *cm, const char *key, size_t n) {
    size_t i = hash_name(key, n) & (cm->cap - 1);
    while (cm->keys[i] && (strlen(cm->keys[i]) != n || memcmp(cm->keys[i], key, n) != 0))
        i = (i + 1) & (cm->cap - 1);
    return i;
}

static void rehash(casemap_t *cm) {
    casemap_t big = {.cap = cm->cap ? cm->cap * 2 : 256};
    big.keys = xcalloc(big.cap, sizeof *big.keys);
    big.vals = xcalloc(big.cap, sizeof *big.vals);
    for (size_t i = 0; i < cm->cap; i++) {
        if (!cm->keys[i]) continue;
        size_t j = slot_of(&big, cm->keys[i], strlen(cm->keys[i]));
        big.keys[j] = cm->keys[i];
        big.vals[j] = cm->vals[i];
    }
    big.n = cm->n;
    free(cm->keys);
    free(cm->vals);
    *cm = big;
}

static char *dup_n(const char *s, size_t n) {
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static void add_token(casemap_t *cm, const char *tok, size_t n) {
    if ((cm->n + 1) * 2 > cm->cap) rehash(cm);
    char *key = dup_n(tok, n);
    for (size_t i = 0; i < n; i++)
        key[i] = (char)tolower((unsigned char)key[i]);
    size_t i = slot_of(cm, key, n);
    if (cm->keys[i]) {
        free(key);
        return;
    }
    cm->keys[i] = key;
    cm->vals[i] = dup_n(tok, n);
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
    if (!cm || !cm->cap) return folded;
    size_t i = slot_of(cm, folded, strlen(folded));
    return cm->keys[i] ? cm->vals[i] : folded;
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
