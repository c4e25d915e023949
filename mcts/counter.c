/* Score counters read off the engine's fluents and the game's static facts: see counter.h. */
#include "mcts/counter.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "engine/fluents.h"

#define CHAIN_MIN 3    /* facts of a successor relation, at least (shorter: a flag, not an order) */
#define CHAIN_MAX 1024 /* facts read of a relation, at most (the check is quadratic) */
#define MAX_CHAINS 16  /* successor relations kept */
#define MAX_KEYS 64    /* (functor, role argument, number argument) triples considered */
#define COUNTER_MIN 2  /* fluents each role has of a kind, at least: a value can change */

struct counter {
    sym_t fn;
    uint32_t arity, role_arg, num_arg; /* argument positions 1.. */
    uint32_t *start;                   /* role r's fluents: bit[start[r] .. start[r + 1]) */
    uint32_t *bit;
    double *value;
    double lo, hi;
};

/* A successor relation's constants in chain order. */
typedef struct {
    term_t t[CHAIN_MAX + 1];
    uint32_t n;
} chain_t;

/* The facts of static relation p (two constants each) into a[], b[]; false when p has a
 * rule with a body, other terms, or too many facts. */
static bool fact_pairs(const game_t *g, const pred_t *p, term_t *a, term_t *b) {
    if (p->arity != 2 || p->layer != LAYER_STATIC || p->n_rules < CHAIN_MIN ||
        p->n_rules > CHAIN_MAX)
        return false;
    for (uint32_t i = 0; i < p->n_rules; i++) {
        const rule_t *r = &g->rules[p->rules[i]];
        if (r->n_body || term_kind(g->ts, r->head) != TERM_FUN) return false;
        a[i] = term_arg(g->ts, r->head, 0), b[i] = term_arg(g->ts, r->head, 1);
        if (term_kind(g->ts, a[i]) != TERM_SYM || term_kind(g->ts, b[i]) != TERM_SYM) return false;
    }
    return true;
}

/* Whether p's facts form one chain (every constant at most once first and once second,
 * one start, no cycle), which then goes into c: a successor relation orders numbers. */
static bool chain_of(const game_t *g, const pred_t *p, chain_t *c) {
    term_t a[CHAIN_MAX], b[CHAIN_MAX];
    if (!fact_pairs(g, p, a, b)) return false;
    uint32_t n = p->n_rules, head = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (term_in(a, i, a[i]) || term_in(b, i, b[i])) return false; /* a branch */
        if (!term_in(b, n, a[i])) {
            if (head != UINT32_MAX) return false; /* two chains */
            head = i;
        }
    }
    if (head == UINT32_MAX) return false; /* a cycle */
    c->n = 0;
    c->t[c->n++] = a[head];
    for (uint32_t i = head; c->n <= n;) {
        c->t[c->n++] = b[i];
        uint32_t j = 0;
        while (j < n && a[j] != b[i])
            j++;
        if (j == n) break;
        i = j;
    }
    return c->n == n + 1; /* every fact on the chain from its start */
}

/* The successor relations of g, at most MAX_CHAINS, into c[]. */
static uint32_t chains_find(const game_t *g, chain_t *c) {
    uint32_t n = 0;
    for (size_t p = 0; p < g->n_preds && n < MAX_CHAINS; p++)
        if (chain_of(g, &g->preds[p], &c[n])) n++;
    return n;
}

/* Place of t on chain c, or -1. */
static int place(const chain_t *c, term_t t) {
    for (uint32_t i = 0; i < c->n; i++)
        if (c->t[i] == t) return (int)i;
    return -1;
}

static bool number_like(const game_t *g, const chain_t *c, uint32_t nc, term_t t) {
    if (term_number(g->ts, t) >= 0) return true;
    for (uint32_t i = 0; i < nc; i++)
        if (place(&c[i], t) >= 0) return true;
    return false;
}

/* The values of the n constants t[] into v[]: their numbers where all are decimal numbers,
 * else their places on one chain holding all; false when neither. */
static bool values_of(const game_t *g, const chain_t *c, uint32_t nc, const term_t *t, uint32_t n,
                      double *v) {
    uint32_t i = 0;
    while (i < n && term_number(g->ts, t[i]) >= 0)
        v[i] = term_number(g->ts, t[i]), i++;
    if (i == n) return true;
    for (uint32_t k = 0; k < nc; k++) {
        for (i = 0; i < n && place(&c[k], t[i]) >= 0; i++)
            v[i] = place(&c[k], t[i]);
        if (i == n) return true;
    }
    return false;
}

typedef struct {
    sym_t fn;
    uint32_t arity, ra, na;
} ckey_t;

static bool same_key(const ckey_t *a, const ckey_t *b) {
    return a->fn == b->fn && a->arity == b->arity && a->ra == b->ra && a->na == b->na;
}

/* The (functor, role argument, number argument) triples of the fluents, at most max. */
static uint32_t keys_find(const game_t *g, const chain_t *c, uint32_t nc, const term_t *bits,
                          uint32_t n_bits, ckey_t *k, uint32_t max) {
    uint32_t n = 0;
    for (uint32_t b = 0; b < n_bits; b++) {
        term_t t = bits[b];
        if (t == TERM_NONE || term_kind(g->ts, t) != TERM_FUN || term_arity(g->ts, t) < 2) continue;
        ckey_t key = {term_sym(g->ts, t), term_arity(g->ts, t), 0, 0};
        for (key.ra = 1; key.ra <= key.arity; key.ra++) {
            if (game_role_index(g, term_arg(g->ts, t, key.ra - 1)) < 0) continue;
            for (key.na = 1; key.na <= key.arity; key.na++) {
                if (key.na == key.ra || !number_like(g, c, nc, term_arg(g->ts, t, key.na - 1)))
                    continue;
                uint32_t i = 0;
                while (i < n && !same_key(&k[i], &key))
                    i++;
                if (i == n && n < max) k[n++] = key;
            }
        }
    }
    return n;
}

static bool holds(const uint64_t *w, uint32_t b) {
    return w[b >> 6] >> (b & 63) & 1;
}

/* Whether fluent t is of kind k, with a role's name (*r) and a constant at k's places. */
static bool of_kind(const game_t *g, term_t t, const ckey_t *k, int *r) {
    if (t == TERM_NONE || term_kind(g->ts, t) != TERM_FUN || term_sym(g->ts, t) != k->fn ||
        term_arity(g->ts, t) != k->arity)
        return false;
    *r = game_role_index(g, term_arg(g->ts, t, k->ra - 1));
    return *r >= 0 && term_kind(g->ts, term_arg(g->ts, t, k->na - 1)) == TERM_SYM;
}

/* The counter of kind k, or NULL where it is none: some role with fewer than COUNTER_MIN
 * fluents of it or not exactly one holding in s0 (w), or values not numbers. */
static counter_t *counter_make(const game_t *g, const chain_t *c, uint32_t nc, const term_t *bits,
                               uint32_t n_bits, const uint64_t *w, const ckey_t *k) {
    uint32_t nr = g->n_roles, *count = xcalloc(nr + 1, sizeof *count), n = 0;
    uint32_t *held = xcalloc(nr, sizeof *held);
    int r;
    for (uint32_t b = 0; b < n_bits; b++)
        if (of_kind(g, bits[b], k, &r)) count[r + 1]++, n++, held[r] += holds(w, b);
    bool ok = true;
    for (uint32_t i = 0; i < nr; i++) {
        ok = ok && count[i + 1] >= COUNTER_MIN && held[i] == 1;
        count[i + 1] += count[i]; /* starts */
    }
    free(held);
    if (!ok) {
        free(count);
        return NULL;
    }
    counter_t *ct = xcalloc(1, sizeof *ct);
    ct->fn = k->fn, ct->arity = k->arity, ct->role_arg = k->ra, ct->num_arg = k->na;
    ct->start = count;
    ct->bit = xcalloc(n, sizeof *ct->bit);
    ct->value = xcalloc(n, sizeof *ct->value);
    term_t *num = xcalloc(n, sizeof *num);
    uint32_t *fill = xcalloc(nr, sizeof *fill);
    for (uint32_t b = 0; b < n_bits; b++)
        if (of_kind(g, bits[b], k, &r)) {
            uint32_t i = count[r] + fill[r]++;
            ct->bit[i] = b;
            num[i] = term_arg(g->ts, bits[b], k->na - 1);
        }
    ok = values_of(g, c, nc, num, n, ct->value);
    ct->lo = ct->hi = ct->value[0];
    for (uint32_t i = 1; i < n; i++) {
        if (ct->value[i] < ct->lo) ct->lo = ct->value[i];
        if (ct->value[i] > ct->hi) ct->hi = ct->value[i];
    }
    free(num);
    free(fill);
    if (!ok || ct->hi <= ct->lo) {
        counter_free(ct);
        return NULL;
    }
    return ct;
}

uint32_t counters_find(engine_t *e, const eng_state_t *s0, counter_t **out, uint32_t max) {
    term_t *bits;
    uint32_t n_bits = engine_fluent_bits(e, &bits), n = 0;
    const game_t *g = engine_game(e);
    const uint64_t *w = n_bits ? engine_state_words(s0) : NULL;
    if (w && g->n_roles >= 2) {
        chain_t *c = xcalloc(MAX_CHAINS, sizeof *c);
        ckey_t k[MAX_KEYS];
        uint32_t nc = chains_find(g, c), nk = keys_find(g, c, nc, bits, n_bits, k, MAX_KEYS);
        for (uint32_t i = 0; i < nk && n < max; i++)
            if ((out[n] = counter_make(g, c, nc, bits, n_bits, w, &k[i]))) n++;
        free(c);
    }
    free(bits);
    return n;
}

void counter_free(counter_t *c) {
    if (!c) return;
    free(c->start);
    free(c->bit);
    free(c->value);
    free(c);
}

double counter_value(const counter_t *c, uint32_t r, const uint64_t *w) {
    for (uint32_t i = c->start[r]; i < c->start[r + 1]; i++)
        if (holds(w, c->bit[i])) return c->value[i];
    return c->lo;
}

double counter_range(const counter_t *c) {
    return c->hi - c->lo;
}

sym_t counter_functor(const counter_t *c, uint32_t *role_arg, uint32_t *num_arg) {
    *role_arg = c->role_arg;
    *num_arg = c->num_arg;
    return c->fn;
}
