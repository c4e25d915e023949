/* Symbol interning and hash-consed terms: see term.h. */
#include "gdl/term.h"
#include "base/hash.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keyword_names[SYM_FIRST_USER] = {
    "",    "role", "init", "true",  "next",   "legal", "does", "goal", "terminal", "distinct",
    "not", "or",   "base", "input", "random", "sees",  "<=",   "and",  "noop",     "nil"};

typedef struct {
    const term_store_t *ts;
    const char *name;
    size_t len;
} sym_key_t;

static bool sym_same(const void *ctx, uint32_t s) {
    const sym_key_t *k = ctx;
    return k->ts->sym_len[s] == k->len &&
           memcmp(k->ts->names + k->ts->sym_name[s], k->name, k->len) == 0;
}

static uint32_t sym_hash(const void *ctx, uint32_t s) {
    const term_store_t *ts = ctx;
    return hash_bytes(ts->names + ts->sym_name[s], ts->sym_len[s]);
}

static sym_t sym_lookup_or_add(term_store_t *ts, const char *low, size_t len) {
    sym_key_t key = {ts, low, len};
    htab_reserve(&ts->sym_table, sym_hash, ts);
    uint32_t *slot = htab_probe(&ts->sym_table, hash_bytes(low, len), sym_same, &key);
    if (*slot) return *slot - 1;
    sym_t s = (sym_t)ts->n_syms++;
    size_t cap = ts->cap_syms;
    GROW(ts->sym_name, ts->cap_syms, ts->n_syms);
    /* only when the capacity grew: AddressSanitizer's realloc copies even to the same size
     * (quadratic in the symbols, minutes for the 100,000 of tests/unit/deep_rules.h) */
    if (ts->cap_syms != cap)
        ts->sym_len = xrealloc(ts->sym_len, ts->cap_syms * sizeof *ts->sym_len);
    GROW(ts->names, ts->names_cap, ts->names_len + len + 1);
    memcpy(ts->names + ts->names_len, low, len);
    ts->names[ts->names_len + len] = 0;
    ts->sym_name[s] = (uint32_t)ts->names_len;
    ts->sym_len[s] = (uint32_t)len;
    ts->names_len += len + 1;
    htab_fill(&ts->sym_table, slot, s);
    return s;
}

sym_t term_intern(term_store_t *ts, const char *name, size_t len) {
    char small[64];
    char *low = len < sizeof small ? small : xmalloc(len + 1);
    for (size_t i = 0; i < len; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    sym_t s = sym_lookup_or_add(ts, low, len);
    if (low != small) free(low);
    return s;
}

const char *term_sym_name(const term_store_t *ts, sym_t s) {
    return ts->names + ts->sym_name[s];
}
size_t term_sym_count(const term_store_t *ts) {
    return ts->n_syms;
}

int term_number(const term_store_t *ts, term_t t) {
    if (term_kind(ts, t) != TERM_SYM) return -1;
    const char *name = term_sym_name(ts, term_sym(ts, t));
    int x = 0;
    if (!*name) return -1;
    for (const char *p = name; *p; p++) {
        if (*p < '0' || *p > '9' || x > 100000) return -1;
        x = x * 10 + (*p - '0');
    }
    return x;
}

bool term_in(const term_t *v, uint32_t n, term_t t) {
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == t) return true;
    return false;
}

int term_highest_number(const term_store_t *ts, const term_t *t, uint32_t n) {
    int best = -1;
    for (uint32_t k = 0; k < n; k++) {
        int v = term_number(ts, t[k]);
        if (v > best) best = v;
    }
    return best;
}

/* Room for node n_nodes - 1, in the nodes and their hashes. */
static void grow_nodes(term_store_t *ts) {
    size_t cap = ts->cap_nodes;
    GROW(ts->nodes, ts->cap_nodes, ts->n_nodes);
    if (ts->cap_nodes != cap || !ts->hash)
        ts->hash = xrealloc(ts->hash, ts->cap_nodes * sizeof *ts->hash);
}

term_store_t *term_store_new(void) {
    term_store_t *ts = xcalloc(1, sizeof *ts);
    htab_init(&ts->table);
    htab_init(&ts->sym_table);
    ts->n_syms = 1; /* symbol 0 is SYM_NONE */
    GROW(ts->sym_name, ts->cap_syms, 1);
    ts->sym_len = xrealloc(ts->sym_len, ts->cap_syms * sizeof *ts->sym_len);
    ts->sym_name[0] = 0;
    ts->sym_len[0] = 0;
    GROW(ts->names, ts->names_cap, 1);
    ts->names[0] = 0;
    ts->names_len = 1;
    for (int k = 1; k < SYM_FIRST_USER; k++) {
        sym_t s = term_intern(ts, keyword_names[k], strlen(keyword_names[k]));
        if (s != (sym_t)k) die("keyword table out of order");
    }
    ts->n_nodes = 1; /* term 0 is TERM_NONE */
    grow_nodes(ts);
    memset(&ts->nodes[0], 0, sizeof ts->nodes[0]);
    ts->hash[0] = 0;
    return ts;
}

void term_store_free(term_store_t *ts) {
    if (!ts) return;
    free(ts->nodes), free(ts->hash);
    free(ts->args);
    htab_fini(&ts->table);
    free(ts->names);
    free(ts->sym_name);
    free(ts->sym_len);
    htab_fini(&ts->sym_table);
    free(ts);
}

static uint32_t node_hash(int kind, sym_t sym, const term_t *args, uint32_t n) {
    uint32_t h = hash_mix((uint32_t)kind * 0x85ebca6bu, sym);
    for (uint32_t i = 0; i < n; i++)
        h = hash_mix(h, args[i]);
    /* term ids are small consecutive integers, and the table uses the low bits: without
     * the avalanche nested terms such as long lists cluster */
    return (uint32_t)hash_fmix64(h);
}

static bool node_equal(const term_store_t *ts, term_t t, int kind, sym_t sym, const term_t *args,
                       uint32_t n) {
    const term_node_t *nd = &ts->nodes[t];
    if (nd->kind != kind || nd->sym != sym || nd->arity != n) return false;
    if (n == 0) return true; /* (args may be NULL while no term has any) */
    const term_t *mine = ts->args + nd->args;
    for (uint32_t i = 0; i < n; i++) /* (a few words: no call to memcmp) */
        if (mine[i] != args[i]) return false;
    return true;
}

typedef struct {
    const term_store_t *ts;
    int kind;
    sym_t sym;
    const term_t *args;
    uint32_t n, hash;
} node_key_t;

static bool node_same(const void *ctx, uint32_t t) {
    const node_key_t *k = ctx;
    return k->ts->hash[t] == k->hash && node_equal(k->ts, t, k->kind, k->sym, k->args, k->n);
}

static uint32_t node_hash_of(const void *ctx, uint32_t t) {
    return ((const term_store_t *)ctx)->hash[t];
}

static term_t find_node(const term_store_t *ts, int kind, sym_t sym, const term_t *args,
                        uint32_t n) {
    node_key_t key = {ts, kind, sym, args, n, node_hash(kind, sym, args, n)};
    uint32_t t = htab_find(&ts->table, key.hash, node_same, &key);
    return t == HTAB_NONE ? TERM_NONE : t;
}

static term_t make_node(term_store_t *ts, int kind, sym_t sym, const term_t *args, uint32_t n) {
    uint32_t h = node_hash(kind, sym, args, n);
    node_key_t key = {ts, kind, sym, args, n, h};
    htab_reserve(&ts->table, node_hash_of, ts);
    uint32_t *slot = htab_probe(&ts->table, h, node_same, &key);
    if (*slot) return *slot - 1;
    /* 4G terms are more than 64 GiB of nodes: memory runs out first (xmalloc) */
    if (ts->n_nodes >= UINT32_MAX - 1) die("too many terms");
    term_t t = (term_t)ts->n_nodes++;
    grow_nodes(ts);
    GROW(ts->args, ts->cap_args, ts->n_args + n);
    term_node_t *nd = &ts->nodes[t];
    nd->kind = (uint8_t)kind;
    nd->sym = sym;
    nd->arity = n;
    nd->args = (uint32_t)ts->n_args;
    ts->hash[t] = h;
    bool ground = kind != TERM_VAR;
    uint32_t deepest = 0;
    for (uint32_t k = 0; k < n; k++) {
        ts->args[ts->n_args + k] = args[k];
        ground = ground && ts->nodes[args[k]].ground;
        if (ts->nodes[args[k]].depth > deepest) deepest = ts->nodes[args[k]].depth;
    }
    nd->ground = ground;
    nd->depth = (uint16_t)(n == 0                            ? 0
                           : deepest >= TERM_DEPTH_SATURATED ? TERM_DEPTH_SATURATED
                                                             : deepest + 1);
    ts->n_args += n;
    htab_fill(&ts->table, slot, t);
    return t;
}

term_t term_find(const term_store_t *ts, sym_t f, const term_t *args, uint32_t n) {
    return find_node(ts, n ? TERM_FUN : TERM_SYM, f, args, n);
}

term_t term_find_subst(const term_store_t *ts, term_t t, const term_t *map) {
    const term_node_t *nd = &ts->nodes[t];
    if (nd->ground) return t;
    if (nd->kind == TERM_VAR) return map[nd->sym];
    term_t small[16] = {0};
    term_t *args = nd->arity <= 16 ? small : xmalloc(nd->arity * sizeof *args);
    term_t r = TERM_NONE;
    uint32_t i = 0;
    for (; i < nd->arity; i++) {
        args[i] = term_find_subst(ts, ts->args[nd->args + i], map);
        if (args[i] == TERM_NONE) break;
    }
    if (i == nd->arity) r = find_node(ts, TERM_FUN, nd->sym, args, nd->arity);
    if (args != small) free(args);
    return r;
}

term_t term_const(term_store_t *ts, sym_t s) {
    return make_node(ts, TERM_SYM, s, NULL, 0);
}
term_t term_var(term_store_t *ts, uint32_t number) {
    return make_node(ts, TERM_VAR, number, NULL, 0);
}
term_t term_fun(term_store_t *ts, sym_t f, const term_t *args, uint32_t n) {
    if (n == 0) return term_const(ts, f);
    return make_node(ts, TERM_FUN, f, args, n);
}

void term_print(const term_store_t *ts, term_t t, strbuf_t *out) {
    const term_node_t *nd = &ts->nodes[t];
    if (nd->kind == TERM_VAR) {
        sb_printf(out, "?v%u", nd->sym);
        return;
    }
    if (nd->kind == TERM_SYM) {
        sb_puts(out, term_sym_name(ts, nd->sym));
        return;
    }
    sb_putc(out, '(');
    sb_puts(out, term_sym_name(ts, nd->sym));
    for (uint32_t i = 0; i < nd->arity; i++) {
        sb_putc(out, ' ');
        term_print(ts, ts->args[nd->args + i], out);
    }
    sb_putc(out, ')');
}

int term_order(const term_store_t *ts, term_t a, term_t b) {
    if (a == b) return 0;
    int ka = term_kind(ts, a), kb = term_kind(ts, b);
    if (ka != kb) return ka < kb ? -1 : 1;
    if (ka == TERM_VAR) return term_sym(ts, a) < term_sym(ts, b) ? -1 : 1;
    int c = strcmp(term_sym_name(ts, term_sym(ts, a)), term_sym_name(ts, term_sym(ts, b)));
    if (c) return c;
    uint32_t na = term_arity(ts, a), nb = term_arity(ts, b);
    if (na != nb) return na < nb ? -1 : 1;
    for (uint32_t i = 0; i < na; i++)
        if ((c = term_order(ts, term_arg(ts, a, i), term_arg(ts, b, i)))) return c;
    return 0;
}

void term_sort(const term_store_t *ts, term_t *t, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        term_t x = t[i];
        uint32_t j = i;
        for (; j > 0 && term_order(ts, t[j - 1], x) > 0; j--)
            t[j] = t[j - 1];
        t[j] = x;
    }
}

uint32_t term_var_bound(const term_store_t *ts, term_t t) {
    const term_node_t *nd = &ts->nodes[t];
    if (nd->ground) return 0;
    if (nd->kind == TERM_VAR) return nd->sym + 1;
    uint32_t m = 0;
    for (uint32_t i = 0; i < nd->arity; i++) {
        uint32_t b = term_var_bound(ts, ts->args[nd->args + i]);
        if (b > m) m = b;
    }
    return m;
}

/* What a substitution does to a variable v: the value the first of maps gives it (deep: that
 * value substituted in turn), else ?v+offset. */
typedef struct {
    const term_t *const *maps;
    uint32_t n_maps, offset;
    bool deep;
} subst_t;

/* The one substitute-and-rebuild routine behind term_subst, term_shift_vars,
 * term_subst_chain and term_resolve. */
static term_t subst_rec(term_store_t *ts, term_t t, const subst_t *s) {
    const term_node_t *nd = &ts->nodes[t];
    if (nd->ground) return t;
    if (nd->kind == TERM_VAR) {
        for (uint32_t k = 0; k < s->n_maps; k++) {
            term_t v = s->maps[k][nd->sym];
            if (v != TERM_NONE) return s->deep ? subst_rec(ts, v, s) : v;
        }
        return s->offset ? term_var(ts, nd->sym + s->offset) : t;
    }
    uint32_t n = nd->arity;
    term_t small[16] = {0};
    term_t *args = n <= 16 ? small : xmalloc(n * sizeof *args);
    uint32_t base = nd->args;
    sym_t f = nd->sym;
    bool changed = false;
    for (uint32_t i = 0; i < n; i++) {
        args[i] = subst_rec(ts, ts->args[base + i], s);
        changed |= args[i] != ts->args[base + i];
    }
    /* an unchanged term is not looked up again (hot in backward search) */
    term_t r = changed ? term_fun(ts, f, args, n) : t;
    if (args != small) free(args);
    return r;
}

term_t term_subst(term_store_t *ts, term_t t, const term_t *map) {
    subst_t s = {.maps = &map, .n_maps = 1};
    return subst_rec(ts, t, &s);
}

term_t term_shift_vars(term_store_t *ts, term_t t, uint32_t offset) {
    subst_t s = {.offset = offset};
    return subst_rec(ts, t, &s);
}

term_t term_subst_chain(term_store_t *ts, term_t t, const term_t *const *maps, uint32_t n) {
    subst_t s = {.maps = maps, .n_maps = n};
    return subst_rec(ts, t, &s);
}

term_t term_resolve(term_store_t *ts, term_t t, const term_t *map) {
    subst_t s = {.maps = &map, .n_maps = 1, .deep = true};
    return subst_rec(ts, t, &s);
}
