/* Hash-consed Boolean circuits: see circuit.h. */
#include "logic/circuit.h"
#include "base/clock.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t op;
    uint32_t a; /* PN_VAR: variable; PN_NOT: kid; AND/OR: offset of kids */
    uint32_t n; /* AND/OR: number of kids */
    uint32_t hash;
} node_t;

struct circuit {
    node_t *nodes;
    uint32_t n;
    size_t cap;
    pn_t *kids;
    size_t n_kids, cap_kids;
    htab_t table;    /* the nodes from 2 on, by their hash (hash-consing) */
    uint32_t limit;  /* nodes at most (0: none) */
    double deadline; /* > 0: refuse work past it too */
    uint32_t tick;
    bool overflow; /* a node was refused: the circuits built are wrong */
};

circuit_t *circuit_new(void) {
    circuit_t *c = xcalloc(1, sizeof *c);
    GROW(c->nodes, c->cap, 2);
    c->nodes[0] = (node_t){.op = PN_CONST, .a = 0};
    c->nodes[1] = (node_t){.op = PN_CONST, .a = 1};
    c->n = 2;
    return c;
}

circuit_t *circuit_new_within(uint32_t max_nodes, double deadline) {
    circuit_t *c = circuit_new();
    c->limit = max_nodes;
    c->deadline = deadline;
    return c;
}

void circuit_free(circuit_t *c) {
    if (!c) return;
    free(c->nodes);
    free(c->kids);
    htab_fini(&c->table);
    free(c);
}

uint32_t circuit_size(const circuit_t *c) {
    return c->n;
}

static uint32_t node_hash(uint8_t op, uint32_t a, const pn_t *kids, uint32_t n) {
    uint32_t h = hash_mix(op * 0x85ebca6bu, a);
    for (uint32_t i = 0; i < n; i++)
        h = hash_mix(h, kids[i]);
    return hash_mix(h, n);
}

static bool node_eq(const circuit_t *c, pn_t x, uint8_t op, uint32_t a, const pn_t *kids,
                    uint32_t n) {
    const node_t *nd = &c->nodes[x];
    if (nd->op != op) return false;
    if (op == PN_AND || op == PN_OR)
        return nd->n == n && memcmp(c->kids + nd->a, kids, n * sizeof *kids) == 0;
    return nd->a == a;
}

static uint32_t node_hash_of(const void *ctx, uint32_t x) {
    return ((const circuit_t *)ctx)->nodes[x].hash;
}

/* A node looked for: its hash and contents. */
typedef struct {
    const circuit_t *c;
    uint32_t h, a, n;
    uint8_t op;
    const pn_t *kids;
} node_key_t;

static bool node_same(const void *ctx, uint32_t x) {
    const node_key_t *k = ctx;
    return k->c->nodes[x].hash == k->h && node_eq(k->c, x, k->op, k->a, k->kids, k->n);
}

bool circuit_overflow(const circuit_t *c) {
    return c->overflow;
}

/* Past the deadline (looked at every 4096 calls)? Then overflow. */
static bool late(circuit_t *c) {
    if (c->deadline > 0 && (++c->tick & 4095) == 0 && now_seconds() > c->deadline)
        c->overflow = true;
    return c->overflow;
}

bool circuit_within(circuit_t *c, uint64_t work) {
    if (c->limit && work >= c->limit) c->overflow = true;
    return !late(c);
}

static pn_t make(circuit_t *c, uint8_t op, uint32_t a, const pn_t *kids, uint32_t n) {
    if (late(c)) return PN_FALSE;
    if (c->limit && c->n >= c->limit) {
        c->overflow = true;
        return PN_FALSE;
    }
    htab_reserve(&c->table, node_hash_of, c);
    node_key_t key = {c, node_hash(op, a, kids, n), a, n, op, kids};
    uint32_t *slot = htab_probe(&c->table, key.h, node_same, &key);
    if (*slot) return *slot - 1;
    GROW(c->nodes, c->cap, c->n + 1);
    pn_t x = c->n++;
    node_t *nd = &c->nodes[x];
    nd->op = op;
    nd->hash = key.h;
    nd->n = n;
    if (op == PN_AND || op == PN_OR) {
        GROW(c->kids, c->cap_kids, c->n_kids + n);
        memcpy(c->kids + c->n_kids, kids, n * sizeof *kids);
        nd->a = (uint32_t)c->n_kids;
        c->n_kids += n;
    } else {
        nd->a = a;
    }
    htab_fill(&c->table, slot, x);
    return x;
}

pn_t pn_var(circuit_t *c, uint32_t var) {
    return make(c, PN_VAR, var, NULL, 0);
}

pn_t pn_not(circuit_t *c, pn_t a) {
    if (a == PN_TRUE) return PN_FALSE;
    if (a == PN_FALSE) return PN_TRUE;
    if (c->nodes[a].op == PN_NOT) return c->nodes[a].a;
    return make(c, PN_NOT, a, NULL, 0);
}

static int cmp_pn(const void *x, const void *y) {
    pn_t a = *(const pn_t *)x, b = *(const pn_t *)y;
    return a < b ? -1 : a > b;
}

static pn_t nary(circuit_t *c, uint8_t op, const pn_t *kids, uint32_t n) {
    pn_t unit = op == PN_AND ? PN_TRUE : PN_FALSE, zero = op == PN_AND ? PN_FALSE : PN_TRUE;
    pn_t *k = xmalloc((n + 1) * sizeof *k);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (kids[i] == zero) {
            free(k);
            return zero;
        }
        if (kids[i] != unit) k[m++] = kids[i];
    }
    qsort(k, m, sizeof *k, cmp_pn);
    uint32_t w = 0;
    for (uint32_t i = 0; i < m; i++)
        if (!w || k[w - 1] != k[i]) k[w++] = k[i];
    pn_t r;
    if (w == 0)
        r = unit;
    else if (w == 1)
        r = k[0];
    else
        r = make(c, op, 0, k, w);
    free(k);
    return r;
}

pn_t pn_and(circuit_t *c, const pn_t *kids, uint32_t n) {
    return nary(c, PN_AND, kids, n);
}
pn_t pn_or(circuit_t *c, const pn_t *kids, uint32_t n) {
    return nary(c, PN_OR, kids, n);
}
pn_op_t pn_op(const circuit_t *c, pn_t n) {
    return (pn_op_t)c->nodes[n].op;
}
uint32_t pn_arity(const circuit_t *c, pn_t n) {
    const node_t *nd = &c->nodes[n];
    return nd->op == PN_AND || nd->op == PN_OR ? nd->n : nd->op == PN_NOT ? 1 : 0;
}
pn_t pn_kid(const circuit_t *c, pn_t n, uint32_t i) {
    const node_t *nd = &c->nodes[n];
    return nd->op == PN_NOT ? nd->a : c->kids[nd->a + i];
}
uint32_t pn_varnum(const circuit_t *c, pn_t n) {
    return c->nodes[n].a;
}

bool pn_eval(const circuit_t *c, pn_t n, const uint8_t *truth) {
    const node_t *nd = &c->nodes[n];
    switch (nd->op) {
    case PN_CONST:
        return nd->a;
    case PN_VAR:
        return truth[nd->a];
    case PN_NOT:
        return !pn_eval(c, nd->a, truth);
    case PN_AND:
        for (uint32_t i = 0; i < nd->n; i++)
            if (!pn_eval(c, c->kids[nd->a + i], truth)) return false;
        return true;
    default:
        for (uint32_t i = 0; i < nd->n; i++)
            if (pn_eval(c, c->kids[nd->a + i], truth)) return true;
        return false;
    }
}
