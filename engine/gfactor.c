/* Factoring shared conjunctions out of a node's rules: see gfactor.h.
 *
 * Greedy, node by node: count each literal's rules in the node; for each literal l in two
 * or more, C is the intersection of the rules that hold l, and taking C out saves
 * (f - 1) * |C| - 1 literals (f rules of |C| literals become one of |C| + 1). The best
 * literal is taken out while the saving reaches GFACTOR_MIN_GAIN, at most MAX_STEPS times
 * a node, and with it at once every next best whose rules it does not touch (chess's
 * legal rules: a few families of rules of one move, each with its own conjunction; one
 * count of the literals for them all); the new node's rules are factored the same way. A rule equal
 * to C makes the new node true: the rules become C alone. */
#include "engine/gfactor.h"

#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "base/util.h"
#include "engine/ground.h"

enum { MAX_STEPS = 64 };

/* A node's rules: rule i is lits[start[i] .. start[i + 1]), sorted. */
typedef struct {
    uint32_t *lits, *start;
    size_t n_lits, cap_lits, n_rules, cap_rules;
} rset_t;

static void rset_init(rset_t *s) {
    memset(s, 0, sizeof *s);
    GROW(s->start, s->cap_rules, 1);
    s->start[0] = 0;
}

static void rset_fini(rset_t *s) {
    free(s->lits), free(s->start);
}

static void rset_add(rset_t *s, const uint32_t *lits, size_t n) {
    GROW(s->lits, s->cap_lits, s->n_lits + n + 1);
    GROW(s->start, s->cap_rules, s->n_rules + 2);
    if (n) memcpy(s->lits + s->n_lits, lits, n * sizeof *lits); /* a fact: no literals */
    s->n_lits += n;
    s->start[++s->n_rules] = (uint32_t)s->n_lits;
}

/* Sorted a and b: their intersection into a, its length returned. */
static size_t intersect(uint32_t *a, size_t na, const uint32_t *b, size_t nb) {
    size_t i = 0, j = 0, m = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j])
            i++;
        else if (b[j] < a[i])
            j++;
        else
            a[m++] = a[i++], j++;
    }
    return m;
}

/* A conjunction worth taking out: the rules holding lit (f of them, from occ[at]) share
 * the nc literals at pool[c_at]. */
typedef struct {
    long gain;
    uint32_t lit, at, f, c_at, nc;
} cand_t;

typedef struct {
    graw_t *out;
    uint64_t *occ; /* lit << 32 | rule, sorted */
    size_t cap_occ;
    uint32_t *pool; /* the candidates' conjunctions */
    size_t n_pool, cap_pool;
    cand_t *cand;
    size_t n_cand, cap_cand;
    uint8_t *used; /* per rule: in a candidate taken */
    size_t cap_used;
    uint32_t made;
} factor_t;

static int cmp_cand(const void *a, const void *b) {
    const cand_t *x = a, *y = b;
    if (x->gain != y->gain) return x->gain > y->gain ? -1 : 1;
    return x->lit < y->lit ? -1 : x->lit > y->lit;
}

/* Every literal whose rules share a conjunction worth GFACTOR_MIN_GAIN, best first, into
 * F->cand (their conjunctions in F->pool). */
static void candidates(factor_t *F, const rset_t *s) {
    size_t n = 0;
    GROW(F->occ, F->cap_occ, s->n_lits + 1);
    for (size_t r = 0; r < s->n_rules; r++)
        for (uint32_t l = s->start[r]; l < s->start[r + 1]; l++)
            F->occ[n++] = (uint64_t)s->lits[l] << 32 | r;
    sort_u64(F->occ, n);
    F->n_cand = F->n_pool = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && F->occ[j] >> 32 == F->occ[i] >> 32;)
            j++;
        size_t f = j - i;
        uint32_t r0 = (uint32_t)F->occ[i];
        size_t nc = s->start[r0 + 1] - s->start[r0];
        if (f < 2 || (long)(f - 1) * (long)nc - 1 < GFACTOR_MIN_GAIN) continue;
        GROW(F->pool, F->cap_pool, F->n_pool + nc + 1);
        uint32_t *c = F->pool + F->n_pool;
        memcpy(c, s->lits + s->start[r0], nc * sizeof *c);
        for (size_t k = i + 1; k < j && nc; k++) {
            uint32_t r = (uint32_t)F->occ[k];
            nc = intersect(c, nc, s->lits + s->start[r], s->start[r + 1] - s->start[r]);
        }
        long gain = (long)(f - 1) * (long)nc - 1;
        if (gain < GFACTOR_MIN_GAIN) continue;
        GROW(F->cand, F->cap_cand, F->n_cand + 1);
        cand_t *x = &F->cand[F->n_cand++];
        *x = (cand_t){.gain = gain, .lit = (uint32_t)(F->occ[i] >> 32), .at = (uint32_t)i};
        x->f = (uint32_t)f, x->c_at = (uint32_t)F->n_pool, x->nc = (uint32_t)nc;
        F->n_pool += nc;
    }
    if (F->n_cand > 1) qsort(F->cand, F->n_cand, sizeof *F->cand, cmp_cand);
}

/* The candidates to take out at once: the best, and each next one whose rules no one taken
 * holds (its conjunction is then still what its rules share). Their conjunctions, each
 * preceded by its length, into *out (the caller's to free); returns how many. */
static uint32_t disjoint(factor_t *F, const rset_t *s, uint32_t **out) {
    GROW(F->used, F->cap_used, s->n_rules + 1);
    memset(F->used, 0, s->n_rules);
    size_t words = 0;
    uint32_t taken = 0;
    for (size_t k = 0; k < F->n_cand; k++)
        words += F->cand[k].nc + 1;
    uint32_t *buf = xmalloc((words + 1) * sizeof *buf), at = 0;
    for (size_t k = 0; k < F->n_cand; k++) {
        const cand_t *c = &F->cand[k];
        bool free_rules = true;
        for (uint32_t i = 0; i < c->f && free_rules; i++)
            free_rules = !F->used[(uint32_t)F->occ[c->at + i]];
        if (!free_rules) continue;
        for (uint32_t i = 0; i < c->f; i++)
            F->used[(uint32_t)F->occ[c->at + i]] = 1;
        buf[at++] = c->nc;
        memcpy(buf + at, F->pool + c->c_at, c->nc * sizeof *buf);
        at += c->nc;
        taken++;
    }
    *out = buf;
    return taken;
}

static void emit(graw_t *out, uint32_t head, const rset_t *s) {
    for (size_t r = 0; r < s->n_rules; r++) {
        graw_rule(out, head);
        for (uint32_t l = s->start[r]; l < s->start[r + 1]; l++)
            graw_lit(out, s->lits[l]);
    }
}

static void factor_node(factor_t *F, uint32_t head, rset_t *s);

/* Takes c (n literals, sorted) out of the rules of s that hold it all. */
static void take_out(factor_t *F, rset_t *s, const uint32_t *c, size_t n) {
    rset_t keep, rest;
    rset_init(&keep), rset_init(&rest);
    bool empty = false;
    uint32_t *buf = xmalloc((s->n_lits + 2) * sizeof *buf);
    for (size_t r = 0; r < s->n_rules; r++) {
        const uint32_t *rule = s->lits + s->start[r];
        size_t len = s->start[r + 1] - s->start[r], m = 0;
        if (!graw_lits_subset(c, n, rule, len)) {
            rset_add(&keep, rule, len);
            continue;
        }
        for (size_t i = 0, j = 0; i < len; i++) {
            while (j < n && c[j] < rule[i])
                j++;
            if (j < n && c[j] == rule[i]) continue;
            buf[m++] = rule[i];
        }
        empty |= m == 0;
        rset_add(&rest, buf, m);
    }
    /* The factored rule: c and the new node (numbered past every literal of c). */
    memcpy(buf, c, n * sizeof *buf);
    size_t m = n;
    if (!empty) {
        uint32_t y = graw_node(F->out, GNODE_DERIVED, TERM_NONE);
        F->made++;
        buf[m++] = y << 1;
        factor_node(F, y, &rest);
    }
    rset_add(&keep, buf, m);
    free(buf);
    rset_fini(&rest);
    rset_fini(s);
    *s = keep;
}

/* Factors s, the rules of head, and emits them (s stays the caller's to free). */
static void factor_node(factor_t *F, uint32_t head, rset_t *s) {
    for (int step = 0; step < MAX_STEPS && s->n_rules > 1; step++) {
        candidates(F, s);
        if (!F->n_cand) break;
        uint32_t *cs, k = disjoint(F, s, &cs), at = 0;
        for (uint32_t i = 0; i < k; i++) { /* (take_out factors new nodes: F's buffers change) */
            take_out(F, s, cs + at + 1, cs[at]);
            at += cs[at] + 1;
        }
        free(cs);
    }
    emit(F->out, head, s);
}

uint32_t gfactor_run(graw_t *w) {
    graw_heads_t h;
    graw_heads(w, &h);
    graw_t out;
    graw_rewrite_begin(&out, w);
    factor_t F = {.out = &out};
    uint32_t nn = w->n_nodes;
    for (uint32_t n = 0; n < nn; n++) {
        rset_t s;
        rset_init(&s);
        for (uint32_t k = h.start[n]; k < h.start[n + 1]; k++) {
            uint32_t r = h.order[k], len = w->first[r + 1] - w->first[r];
            rset_add(&s, len ? w->lits + w->first[r] : NULL, len); /* lits NULL when none */
        }
        factor_node(&F, n, &s);
        rset_fini(&s);
    }
    free(F.occ), free(F.pool), free(F.cand), free(F.used);
    graw_heads_fini(&h);
    graw_rewrite_end(w, &out);
    return F.made;
}
