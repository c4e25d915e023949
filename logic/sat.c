/* The CaDiCaL bridge: see sat.h. */
#include "logic/sat.h"
#include "base/clock.h"
#include "base/util.h"

#include <ccadical.h>
#include <stdlib.h>
#include <string.h>

typedef enum { E_ASSERT, E_IFF, E_ONE } entry_kind_t;

typedef struct {
    entry_kind_t kind;
    pn_t a, b;      /* E_ASSERT: the node (a); E_IFF: the two sides; E_ONE: the guard (a) */
    uint32_t start; /* E_ONE: its nodes in the pool */
    uint32_t n;
} entry_t;

/* Entries are kept until a check encodes them (most records are never checked); the
 * encoding then stays in the solver: lit[node] its literal (0: not yet), vars used. */
struct sat_record {
    const circuit_t *c;
    entry_t *e;
    size_t n_e, cap_e, n_sent;
    pn_t *pool;
    size_t n_pool, cap_pool;
    CCaDiCaL *s;
    int *lit;
    size_t cap_lit;
    int vars;
    pn_t *stack;
    size_t cap_stack;
    double deadline; /* of the check running (read by CaDiCaL's terminate callback) */
    bool model;      /* the last check answered satisfiable */
};

sat_record_t *sat_record_new(const circuit_t *c) {
    sat_record_t *r = xcalloc(1, sizeof *r);
    r->c = c;
    return r;
}

void sat_record_free(sat_record_t *r) {
    if (!r) return;
    if (r->s) ccadical_release(r->s);
    free(r->lit);
    free(r->stack);
    free(r->e);
    free(r->pool);
    free(r);
}

static void add(sat_record_t *r, entry_t en) {
    GROW(r->e, r->cap_e, r->n_e + 1);
    r->e[r->n_e++] = en;
}

void sat_record_assert(sat_record_t *r, pn_t n) {
    add(r, (entry_t){.kind = E_ASSERT, .a = n});
}

void sat_record_iff(sat_record_t *r, pn_t a, pn_t b) {
    add(r, (entry_t){.kind = E_IFF, .a = a, .b = b});
}

void sat_record_one(sat_record_t *r, pn_t guard, const pn_t *nodes, uint32_t n) {
    GROW(r->pool, r->cap_pool, r->n_pool + n);
    for (uint32_t i = 0; i < n; i++)
        r->pool[r->n_pool + i] = nodes[i];
    add(r, (entry_t){.kind = E_ONE, .a = guard, .start = (uint32_t)r->n_pool, .n = n});
    r->n_pool += n;
}

static void clause2(CCaDiCaL *s, int a, int b) {
    ccadical_add(s, a);
    ccadical_add(s, b);
    ccadical_add(s, 0);
}

/* The Tseitin clauses of and/or node n, its kids encoded: v <-> and(kids), or for an or
 * node (by De Morgan) -v <-> and(-kids). */
static int define(sat_record_t *r, pn_t n) {
    int v = ++r->vars, sign = pn_op(r->c, n) == PN_AND ? 1 : -1;
    uint32_t k = pn_arity(r->c, n);
    for (uint32_t i = 0; i < k; i++)
        clause2(r->s, -sign * v, sign * r->lit[pn_kid(r->c, n, i)]);
    ccadical_add(r->s, sign * v);
    for (uint32_t i = 0; i < k; i++)
        ccadical_add(r->s, -sign * r->lit[pn_kid(r->c, n, i)]);
    ccadical_add(r->s, 0);
    return v;
}

/* The literal of node n, encoding it and what it needs (depth first, on a stack of its
 * own: an unrolling of a long match is deeper than the C stack allows). */
static int lit_of(sat_record_t *r, pn_t root) {
    size_t top = 0;
    GROW(r->stack, r->cap_stack, 1);
    r->stack[top++] = root;
    while (top) {
        pn_t n = r->stack[top - 1];
        if (r->lit[n]) {
            top--;
            continue;
        }
        pn_op_t op = pn_op(r->c, n);
        if (op == PN_VAR) {
            r->lit[n] = ++r->vars;
            top--;
            continue;
        }
        uint32_t k = pn_arity(r->c, n);
        bool ready = true;
        for (uint32_t i = 0; i < k; i++) {
            pn_t kid = pn_kid(r->c, n, i);
            if (r->lit[kid]) continue;
            ready = false;
            GROW(r->stack, r->cap_stack, top + 1);
            r->stack[top++] = kid;
        }
        if (!ready) continue;
        r->lit[n] = op == PN_NOT ? -r->lit[pn_kid(r->c, n, 0)] : define(r, n);
        top--;
    }
    return r->lit[root];
}

/* At most one of the literals l[0..n): pairwise for a few; else the sequential counter
 * (Sinz 2005: s_i "one of l[0..i] holds", 3n clauses and n - 1 variables), since a role
 * may have hundreds of moves open at a step (293 in the full killer game's deal: 42,778
 * pairs, every step). */
#define PAIRWISE_MAX 8
static void at_most_one(sat_record_t *r, const int *l, uint32_t n) {
    if (n <= PAIRWISE_MAX) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                clause2(r->s, -l[i], -l[j]);
        return;
    }
    int prev = ++r->vars; /* s_0 */
    clause2(r->s, -l[0], prev);
    for (uint32_t i = 1; i + 1 < n; i++) {
        int s = ++r->vars;
        clause2(r->s, -l[i], s);
        clause2(r->s, -prev, s);
        clause2(r->s, -l[i], -prev);
        prev = s;
    }
    clause2(r->s, -l[n - 1], -prev);
}

static void send(sat_record_t *r, const entry_t *en) {
    if (en->kind == E_ASSERT) {
        ccadical_add(r->s, lit_of(r, en->a));
        ccadical_add(r->s, 0);
        return;
    }
    if (en->kind == E_IFF) {
        int a = lit_of(r, en->a), b = lit_of(r, en->b);
        clause2(r->s, -a, b);
        clause2(r->s, a, -b);
        return;
    }
    /* an exactly-one of no nodes (its guard then false) may have no pool at all */
    const pn_t *nodes = en->n ? r->pool + en->start : NULL;
    int g = lit_of(r, en->a);
    int *l = xmalloc((en->n + 1) * sizeof *l);
    for (uint32_t i = 0; i < en->n; i++)
        l[i] = lit_of(r, nodes[i]);
    at_most_one(r, l, en->n);
    ccadical_add(r->s, -g); /* guard -> at least one */
    for (uint32_t i = 0; i < en->n; i++)
        ccadical_add(r->s, l[i]);
    ccadical_add(r->s, 0);
    free(l);
}

static int past_deadline(void *deadline) {
    double d = *(const double *)deadline;
    return d > 0 && now_seconds() > d;
}

bool sat_record_sync(sat_record_t *r, double deadline) {
    r->model = false; /* new clauses: CaDiCaL has no model to read until the next check */
    size_t had = r->cap_lit, need = (size_t)circuit_size(r->c) + 2;
    if (need > had) { /* the circuit grew: its new nodes are not encoded yet */
        GROW(r->lit, r->cap_lit, need);
        memset(r->lit + had, 0, (r->cap_lit - had) * sizeof *r->lit);
    }
    if (!r->s) {
        r->s = ccadical_init();
        ccadical_set_option(r->s, "quiet", 1); /* it prints on stdout, ggp's output */
        ccadical_set_terminate(r->s, &r->deadline, past_deadline);
        r->lit[PN_TRUE] = ++r->vars; /* the constants: a variable forced true */
        r->lit[PN_FALSE] = -r->lit[PN_TRUE];
        ccadical_add(r->s, r->lit[PN_TRUE]);
        ccadical_add(r->s, 0);
    }
    for (; r->n_sent < r->n_e; r->n_sent++) {
        if (deadline > 0 && now_seconds() > deadline) return false;
        send(r, &r->e[r->n_sent]);
    }
    return true;
}

int sat_check(sat_record_t *r, const pn_t *assume, uint32_t n, double deadline) {
    r->deadline = deadline;
    r->model = false;
    if (past_deadline(&r->deadline)) return -1;
    if (!sat_record_sync(r, deadline)) return -1; /* the rest is encoded by the next */
    for (uint32_t i = 0; i < n; i++) {
        int l = lit_of(r, assume[i]);
        ccadical_assume(r->s, l);
    }
    int res = ccadical_solve(r->s);
    r->model = res == 10;
    return res == 10 ? 1 : res == 20 ? 0 : -1;
}

int sat_value(const sat_record_t *r, pn_t n) {
    if (!r->model || (size_t)n >= r->cap_lit || !r->lit[n]) return -1;
    return ccadical_val(r->s, r->lit[n]) > 0;
}

/* sat_fixed to a depth of kids (an unencoded node is evaluated from its kids: the legal
 * atoms of a step are built on its fluents when a query first asks). */
#define FIXED_DEPTH 64
static int fixed_at(const sat_record_t *r, pn_t n, int depth) {
    if (n == PN_TRUE || n == PN_FALSE) return n == PN_TRUE;
    if ((size_t)n < r->cap_lit && r->lit[n]) {
        int f = ccadical_fixed(r->s, r->lit[n]);
        if (f) return f > 0;
    }
    pn_op_t op = pn_op(r->c, n);
    if (op == PN_VAR || !depth) return -1;
    if (op == PN_NOT) {
        int v = fixed_at(r, pn_kid(r->c, n, 0), depth - 1);
        return v < 0 ? -1 : !v;
    }
    /* and: 0 when a kid is 0, 1 when all are 1 (or: the dual), else unknown */
    int absorb = op == PN_AND ? 0 : 1, res = !absorb;
    uint32_t k = pn_arity(r->c, n);
    for (uint32_t i = 0; i < k; i++) {
        int v = fixed_at(r, pn_kid(r->c, n, i), depth - 1);
        if (v == absorb) return absorb;
        if (v < 0) res = -1;
    }
    return res;
}

int sat_fixed(const sat_record_t *r, pn_t n) {
    if (!r->s) return n == PN_TRUE ? 1 : n == PN_FALSE ? 0 : -1;
    return fixed_at(r, n, FIXED_DEPTH);
}
