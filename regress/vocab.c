/* The vocabulary of backward search: see vocab.h. */
#include "regress/vocab.h"

#include <stdlib.h>
#include <string.h>

#include "engine/fluents.h"

typedef struct {
    sym_t sym;
    uint32_t arity;
    uint32_t *ids;
    uint32_t n;
    size_t cap;
} vfun_t;

struct vocab {
    term_t *fluents;
    uint32_t n;
    size_t cap;
    uint32_t *table; /* fluent term -> index + 1 */
    size_t table_cap;
    vfun_t *funs;
    uint32_t n_funs;
    bool proven;
    uint32_t *bits;  /* per fluent: its state bit (an engine's vocabulary), else NULL */
    state_t scratch; /* sampling: the state visited, as terms */
};

static void vocab_rehash(vocab_t *v) {
    size_t cap = v->table_cap ? v->table_cap * 2 : 256;
    uint32_t *t = xcalloc(cap, sizeof *t);
    for (uint32_t i = 0; i < v->n; i++) {
        size_t h = (v->fluents[i] * 0x9e3779b1u) & (cap - 1);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = i + 1;
    }
    free(v->table);
    v->table = t;
    v->table_cap = cap;
}

uint32_t vocab_index(const vocab_t *v, term_t f) {
    if (!v->table_cap) return UINT32_MAX;
    for (size_t h = (f * 0x9e3779b1u) & (v->table_cap - 1); v->table[h];
         h = (h + 1) & (v->table_cap - 1))
        if (v->fluents[v->table[h] - 1] == f) return v->table[h] - 1;
    return UINT32_MAX;
}

static void vocab_add(vocab_t *v, const term_store_t *ts, term_t f) {
    if (vocab_index(v, f) != UINT32_MAX) return;
    if ((v->n + 1) * 2 > v->table_cap) vocab_rehash(v);
    GROW(v->fluents, v->cap, v->n + 1);
    uint32_t id = v->n++;
    v->fluents[id] = f;
    size_t h = (f * 0x9e3779b1u) & (v->table_cap - 1);
    while (v->table[h])
        h = (h + 1) & (v->table_cap - 1);
    v->table[h] = id + 1;
    sym_t s = term_sym(ts, f);
    uint32_t a = term_kind(ts, f) == TERM_FUN ? term_arity(ts, f) : 0;
    uint32_t k = 0;
    while (k < v->n_funs && (v->funs[k].sym != s || v->funs[k].arity != a))
        k++;
    if (k == v->n_funs) {
        v->funs = xrealloc(v->funs, (v->n_funs + 1) * sizeof *v->funs);
        memset(&v->funs[k], 0, sizeof v->funs[k]);
        v->funs[k].sym = s;
        v->funs[k].arity = a;
        v->n_funs++;
    }
    GROW(v->funs[k].ids, v->funs[k].cap, v->funs[k].n + 1);
    v->funs[k].ids[v->funs[k].n++] = id;
}

/* Each state of the sampled matches adds its fluents. */
static engine_walk_next_t collect(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)ply;
    vocab_t *v = ctx;
    state_t *t = &v->scratch;
    engine_state_terms(e, s, t);
    for (uint32_t i = 0; i < t->n; i++)
        vocab_add(v, engine_game(e)->ts, t->facts[i]);
    return ENGINE_WALK_ON;
}

/* A ground engine's fluents, in the order of their state bits. */
static bool from_bits(vocab_t *v, engine_t *e) {
    term_t *fl;
    uint32_t nb = engine_fluent_bits(e, &fl);
    if (!nb) return false;
    v->bits = xmalloc((nb + 1) * sizeof *v->bits);
    for (uint32_t b = 0; b < nb; b++)
        if (fl[b] != TERM_NONE && vocab_index(v, fl[b]) == UINT32_MAX) {
            v->bits[v->n] = b;
            vocab_add(v, engine_game(e)->ts, fl[b]);
        }
    free(fl);
    v->proven = true;
    return true;
}

vocab_t *vocab_from_engine(engine_t *e, uint32_t playouts, uint64_t seed, double deadline) {
    vocab_t *v = xcalloc(1, sizeof *v);
    if (from_bits(v, e)) return v;
    game_t *g = engine_game(e);
    uint32_t pb = game_pred(g, SYM_BASE, 1);
    bool has_base = pb != UINT32_MAX && g->preds[pb].layer == LAYER_STATIC && g->preds[pb].n_rules;
    if (has_base) {
        const term_t *t;
        uint32_t n = engine_query(e, NULL, NULL, pb, &t);
        term_t *copy = xmalloc((n + 1) * sizeof *copy);
        memcpy(copy, t, n * sizeof *t);
        for (uint32_t i = 0; i < n; i++)
            vocab_add(v, g->ts, copy[i]);
        free(copy);
    }
    /* sampled matches: check base, or collect */
    uint32_t before = v->n;
    splitmix_t rng = {seed};
    engine_walk_t w = {
        .matches = playouts, .max_plies = 2000, .deadline = deadline, .terminal = true};
    state_init(&v->scratch);
    bool cut = engine_walk(e, &rng, &w, collect, v).timed_out;
    state_fini(&v->scratch);
    /* a cut sample checked `base` too little */
    v->proven = has_base && v->n == before && !cut;
    return v;
}

void vocab_free(vocab_t *v) {
    if (!v) return;
    for (uint32_t k = 0; k < v->n_funs; k++)
        free(v->funs[k].ids);
    free(v->funs);
    free(v->fluents);
    free(v->table);
    free(v->bits);
    free(v);
}

uint32_t vocab_count(const vocab_t *v) {
    return v->n;
}
term_t vocab_fluent(const vocab_t *v, uint32_t i) {
    return v->fluents[i];
}
bool vocab_proven(const vocab_t *v) {
    return v->proven;
}

uint32_t vocab_functor(const vocab_t *v, sym_t sym, uint32_t arity, const uint32_t **out) {
    for (uint32_t k = 0; k < v->n_funs; k++)
        if (v->funs[k].sym == sym && v->funs[k].arity == arity) {
            *out = v->funs[k].ids;
            return v->funs[k].n;
        }
    *out = NULL;
    return 0;
}

const uint32_t *vocab_bits(const vocab_t *v) {
    return v->bits;
}
