/* Grounded formulas on bitset states: see bitform.h. */
#include "regress/bitform.h"

#include <stdlib.h>
#include <string.h>

enum { G_AND, G_OR, G_TRUE, G_FALSE };
#define MAX_GROUP 8 /* tests of a kid gate absorbed as a group of whole tests */

/* The fluents of one state word a gate tests: AND wants every pos bit set and every neg
 * bit clear, OR one pos bit set or one neg bit clear. */
typedef struct {
    uint64_t pos, neg;
    uint32_t word;
    uint32_t last; /* whole tests: 1 on the last test of a group */
} wtest_t;

typedef struct {
    uint8_t op;
    uint32_t t0, nt; /* tests[t0 .. t0 + nt) */
    /* then tests[t0 + nt .. + nw): whole tests, in groups, each group the tests of an
     * absorbed kid gate (an OR's AND kid, an AND's negated AND kid, reading no gate); a
     * group that holds entirely decides the gate (OR: 1, AND: 0). Evaluated without
     * branches: the DNF of a grounded scope. */
    uint32_t nw;
    uint32_t k0, nk; /* kids[k0 .. k0 + nk): earlier gates, gate << 1 | negated */
} gate_t;

struct bitform {
    gate_t *gates;
    wtest_t *tests;
    uint32_t *kids;
    uint32_t n_gates, n_tests, n_kids;
    uint32_t *roots; /* gate << 1 | negated */
    uint32_t *ready; /* root k holds its value once gates [0, ready[k]) are evaluated */
    uint32_t n_roots;
    uint32_t any;    /* a gate: some root holds (UINT32_MAX: one root) */
    uint8_t *val;    /* gate values of the current evaluation */
    uint32_t *stamp; /* val[g] is this evaluation's when stamp[g] == epoch */
    uint32_t epoch;
    uint32_t words;
    const bitform_t *of; /* a clone: the program it shares (its own values), else NULL */
};

/* One fluent literal of a gate being made: state bit and sign. */
typedef struct {
    uint32_t bit;
    uint32_t neg;
} blit_t;

typedef struct {
    const circuit_t *c;
    const uint32_t *var_bit;
    bitform_t *b;
    uint32_t *gate_of; /* circuit node -> gate, UINT32_MAX before it is made */
    size_t cap_gates, cap_tests, cap_kids;
    uint32_t max_size;
    bool over;
} cx_t;

static bool too_big(cx_t *x) {
    const bitform_t *b = x->b;
    if (x->max_size && b->n_gates + b->n_tests + b->n_kids > x->max_size) x->over = true;
    return x->over;
}

static int cmp_blit(const void *p, const void *q) {
    const blit_t *a = p, *b = q;
    return a->bit < b->bit ? -1 : a->bit > b->bit;
}

static uint32_t make_gate(cx_t *x, pn_t node, const pn_t *kids, uint32_t n, uint8_t op);

/* The gate of an AND/OR node (made once, after the gates it reads). */
static uint32_t gate_of(cx_t *x, pn_t node) {
    if (x->gate_of[node] != UINT32_MAX) return x->gate_of[node];
    uint32_t n = pn_arity(x->c, node);
    pn_t *kids = xmalloc((n + 1) * sizeof *kids);
    for (uint32_t i = 0; i < n; i++)
        kids[i] = pn_kid(x->c, node, i);
    uint32_t g = make_gate(x, node, kids, n, pn_op(x->c, node) == PN_AND ? G_AND : G_OR);
    free(kids);
    return g;
}

/* A gate over the given circuit kids: literals become word tests, AND/OR kids (negated
 * or not) earlier gates. node: the circuit node it stands for, or UINT32_MAX. */
static uint32_t make_gate(cx_t *x, pn_t node, const pn_t *kids, uint32_t n, uint8_t op) {
    const circuit_t *c = x->c;
    /* the gates this one reads come first */
    for (uint32_t i = 0; i < n && !too_big(x); i++) {
        pn_t k = kids[i];
        if (pn_op(c, k) == PN_NOT) k = pn_kid(c, k, 0);
        if (pn_op(c, k) == PN_AND || pn_op(c, k) == PN_OR) (void)gate_of(x, k);
    }
    if (too_big(x)) return 0;
    bitform_t *b = x->b;
    size_t cap_lits = n + 1;
    blit_t *lits = xmalloc(cap_lits * sizeof *lits);
    uint32_t *whole = xmalloc((n + 1) * sizeof *whole), nw = 0;
    uint32_t nl = 0, k0 = b->n_kids;
    uint8_t absorbing = op == G_AND ? G_FALSE : G_TRUE; /* a kid of this value decides */
    bool decided = false;
    for (uint32_t i = 0; i < n && !decided; i++) {
        pn_t k = kids[i];
        uint32_t neg = 0;
        if (pn_op(c, k) == PN_NOT) k = pn_kid(c, k, 0), neg = 1;
        pn_op_t kop = pn_op(c, k);
        if (kop == PN_CONST) {
            bool v = (k == PN_TRUE) != neg;
            decided = v == (op == G_OR);
        } else if (kop == PN_VAR) {
            uint32_t bit = x->var_bit[pn_varnum(c, k)];
            if (bit == UINT32_MAX) /* never true */
                decided = neg == (op == G_OR);
            else {
                GROW(lits, cap_lits, nl + 1); /* merged kids may have filled it */
                lits[nl++] = (blit_t){bit, neg};
            }
        } else {
            uint32_t kg = x->gate_of[k];
            const gate_t *kt = &b->gates[kg];
            if (kt->op == G_TRUE || kt->op == G_FALSE) {
                bool v = (kt->op == G_TRUE) != neg;
                decided = v == (op == G_OR);
                continue;
            }
            if (!kt->nk && !kt->nw) {                    /* a kid that only tests words */
                bool kid_and = (kt->op == G_AND) != neg; /* what it is, negation applied */
                if (kid_and == (op == G_AND)) {
                    /* the same kind: its literals join this gate's (signs flipped when
                     * negated: not (a or b) is (not a) and (not b)) */
                    for (uint32_t j = 0; j < kt->nt; j++) {
                        wtest_t t = b->tests[kt->t0 + j];
                        for (int sgn = 0; sgn < 2; sgn++)
                            for (uint64_t m = sgn ? t.neg : t.pos; m; m &= m - 1) {
                                GROW(lits, cap_lits, nl + 1);
                                lits[nl++] = (blit_t){t.word * 64 + (uint32_t)__builtin_ctzll(m),
                                                      (uint32_t)sgn ^ neg};
                            }
                    }
                    continue;
                }
                if (kt->nt && kt->nt <= MAX_GROUP) { /* the other kind: a whole group */
                    whole[nw++] = kg;
                    continue;
                }
            }
            GROW(b->kids, x->cap_kids, b->n_kids + 1);
            b->kids[b->n_kids++] = kg << 1 | neg;
        }
    }
    GROW(b->gates, x->cap_gates, b->n_gates + 1);
    gate_t *g = &b->gates[b->n_gates];
    *g = (gate_t){.op = decided ? absorbing : op, .t0 = b->n_tests, .k0 = k0};
    if (decided) {
        b->n_kids = k0;
        nl = nw = 0;
    }
    g->nk = b->n_kids - k0;
    qsort(lits, nl, sizeof *lits, cmp_blit);
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t w = lits[i].bit >> 6;
        if (!g->nt || b->tests[b->n_tests - 1].word != w) {
            GROW(b->tests, x->cap_tests, b->n_tests + 1);
            b->tests[b->n_tests++] = (wtest_t){.word = w};
            g->nt++;
            if (w + 1 > b->words) b->words = w + 1;
        }
        uint64_t m = 1ull << (lits[i].bit & 63);
        *(lits[i].neg ? &b->tests[b->n_tests - 1].neg : &b->tests[b->n_tests - 1].pos) |= m;
    }
    uint32_t n_whole = 0;
    for (uint32_t i = 0; i < nw; i++) {
        /* a group is an AND of tests: an OR kid's tests, flipped, are its negation's */
        const gate_t *kt = &b->gates[whole[i]];
        for (uint32_t j = 0; j < kt->nt; j++) {
            wtest_t t = b->tests[kt->t0 + j];
            if (kt->op == G_OR) {
                uint64_t p = t.pos;
                t.pos = t.neg;
                t.neg = p;
            }
            t.last = j + 1 == kt->nt;
            GROW(b->tests, x->cap_tests, b->n_tests + 1);
            b->tests[b->n_tests++] = t;
            n_whole++;
        }
    }
    b->gates[b->n_gates].nw = n_whole;
    free(whole);
    free(lits);
    if (node != UINT32_MAX) x->gate_of[node] = b->n_gates;
    return b->n_gates++;
}

/* A root as a gate reference: its node's gate, or a one-kid gate for a literal. */
static uint32_t root_ref(cx_t *x, pn_t r) {
    pn_t k = pn_op(x->c, r) == PN_NOT ? pn_kid(x->c, r, 0) : r;
    if (pn_op(x->c, k) == PN_AND || pn_op(x->c, k) == PN_OR) return gate_of(x, k) << 1 | (k != r);
    return make_gate(x, UINT32_MAX, &r, 1, G_AND) << 1;
}

bitform_t *bitform_new(const circuit_t *c, const pn_t *roots, uint32_t n, const uint32_t *var_bit,
                       uint32_t max_size) {
    bitform_t *b = xcalloc(1, sizeof *b);
    cx_t x = {.c = c, .var_bit = var_bit, .b = b, .max_size = max_size};
    x.gate_of = xmalloc((circuit_size(c) + 1) * sizeof *x.gate_of);
    memset(x.gate_of, 0xff, (circuit_size(c) + 1) * sizeof *x.gate_of);
    b->roots = xmalloc((n + 1) * sizeof *b->roots);
    b->ready = xmalloc((n + 1) * sizeof *b->ready);
    for (uint32_t k = 0; k < n && !x.over; k++) {
        b->roots[k] = root_ref(&x, roots[k]);
        b->ready[k] = b->n_gates;
        b->n_roots++;
    }
    /* most states satisfy no root: one gate over them all says so at once */
    b->any = UINT32_MAX;
    if (n > 1 && !x.over) b->any = make_gate(&x, UINT32_MAX, roots, n, G_OR);
    free(x.gate_of);
    if (too_big(&x)) {
        bitform_free(b);
        return NULL;
    }
    b->val = xcalloc(b->n_gates + 1, 1);
    b->stamp = xcalloc(b->n_gates + 1, sizeof *b->stamp);
    return b;
}

bitform_t *bitform_clone(const bitform_t *b) {
    bitform_t *c = xmalloc(sizeof *c);
    *c = *b;
    c->of = b->of ? b->of : b;
    c->val = xcalloc(b->n_gates + 1, 1);
    c->stamp = xcalloc(b->n_gates + 1, sizeof *c->stamp);
    c->epoch = 0;
    return c;
}

void bitform_free(bitform_t *b) {
    if (!b) return;
    if (b->of) { /* a clone: only its values */
        free(b->val);
        free(b->stamp);
        free(b);
        return;
    }
    free(b->gates);
    free(b->tests);
    free(b->kids);
    free(b->roots);
    free(b->ready);
    free(b->val);
    free(b->stamp);
    free(b);
}

/* Some group of whole tests holds entirely (no branch per test). */
static inline uint8_t any_whole(const wtest_t *t, const wtest_t *te, const uint64_t *bits) {
    uint64_t hit = 0, all = 1; /* all: the current group so far */
    for (; t < te; t++) {
        uint64_t w = bits[t->word];
        all &= ((w & t->pos) == t->pos) & !(w & t->neg);
        hit |= all & t->last;
        all |= t->last; /* a new group starts */
    }
    return hit != 0;
}

/* A gate's own tests and whole tests: 1 or 0 when they decide it, 2 when its kid gates
 * must. */
static inline uint8_t tests_decide(const bitform_t *b, const gate_t *g, const uint64_t *bits) {
    const wtest_t *t = b->tests + g->t0, *te = t + g->nt;
    if (g->op == G_AND) {
        for (; t < te; t++) {
            uint64_t w = bits[t->word];
            if ((w & t->pos) != t->pos || (w & t->neg)) return 0;
        }
        if (g->nw && any_whole(te, te + g->nw, bits)) return 0;
        return g->nk ? 2 : 1;
    }
    if (g->op == G_OR) {
        for (; t < te; t++) {
            uint64_t w = bits[t->word];
            if ((w & t->pos) | (~w & t->neg)) return 1;
        }
        if (g->nw && any_whole(te, te + g->nw, bits)) return 1;
        return g->nk ? 2 : 0;
    }
    return g->op == G_TRUE;
}

static inline uint8_t gate_eval(const bitform_t *b, const gate_t *g, const uint64_t *bits) {
    uint8_t v = tests_decide(b, g, bits);
    if (v < 2) return v;
    const uint32_t *k = b->kids + g->k0, *ke = k + g->nk;
    uint8_t want = g->op == G_OR; /* the kid value that decides */
    for (; k < ke; k++)
        if ((b->val[*k >> 1] ^ (*k & 1)) == want) return want;
    return !want;
}

int32_t bitform_eval_all(bitform_t *b, const uint64_t *bits) {
    uint32_t g = 0;
    for (uint32_t k = 0; k < b->n_roots; k++) {
        for (; g < b->ready[k]; g++)
            b->val[g] = gate_eval(b, &b->gates[g], bits);
        uint32_t r = b->roots[k];
        if (b->val[r >> 1] ^ (r & 1)) return (int32_t)k;
    }
    return -1;
}

/* Gate g on demand: its tests first (one AND or OR of a few words decides most gates),
 * then the gates it reads, each at most once per evaluation (stamped), stopping at the
 * first input that decides. A gate without kid gates is cheaper evaluated than looked up. */
static uint8_t lazy(bitform_t *b, uint32_t g, const uint64_t *bits) {
    const gate_t *gt = &b->gates[g];
    if (!gt->nk) return tests_decide(b, gt, bits);
    if (b->stamp[g] == b->epoch) return b->val[g];
    uint8_t v = tests_decide(b, gt, bits);
    if (v == 2) {
        uint8_t want = gt->op == G_OR;
        v = !want;
        for (const uint32_t *k = b->kids + gt->k0, *ke = k + gt->nk; k < ke; k++)
            if ((lazy(b, *k >> 1, bits) ^ (*k & 1)) == want) {
                v = want;
                break;
            }
    }
    b->stamp[g] = b->epoch;
    b->val[g] = v;
    return v;
}

int32_t bitform_eval(bitform_t *b, const uint64_t *bits) {
    if (++b->epoch == 0) { /* wrapped: no stamp may look current */
        memset(b->stamp, 0, (b->n_gates + 1) * sizeof *b->stamp);
        b->epoch = 1;
    }
    if (b->any != UINT32_MAX && !lazy(b, b->any, bits)) return -1;
    for (uint32_t k = 0; k < b->n_roots; k++) {
        uint32_t r = b->roots[k];
        if (lazy(b, r >> 1, bits) ^ (r & 1)) return (int32_t)k;
    }
    return -1;
}

uint32_t bitform_size(const bitform_t *b) {
    return b->n_gates + b->n_tests + b->n_kids;
}

uint32_t bitform_words(const bitform_t *b) {
    return b->words;
}

bitform_t *bitform_of_form(const vocab_t *v, term_store_t *ts, const form_t *f, bf_part_t part,
                           uint32_t nodes, uint32_t max_size, double deadline) {
    const uint32_t *var_bit = vocab_bits(v);
    if (!var_bit) return NULL;
    circuit_t *c = circuit_new_within(nodes, deadline);
    pn_t *ds = xmalloc((f->n + 1) * sizeof *ds), common;
    ground_split(c, v, ts, f, ds, &common);
    bitform_t *b = NULL;
    if (!circuit_overflow(c)) {
        uint32_t n = f->n;
        if (part == BF_COMMON) {
            ds[0] = common;
            n = 1;
        } else if (part == BF_FULL) {
            for (uint32_t i = 0; i < n; i++) {
                pn_t both[2] = {common, ds[i]};
                ds[i] = pn_and(c, both, 2);
            }
        }
        if (!circuit_overflow(c)) b = bitform_new(c, ds, n, var_bit, max_size);
    }
    free(ds);
    circuit_free(c);
    return b;
}
