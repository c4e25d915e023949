/* Network optimisation: see gopt.h.
 *
 * Rounds of: constants (the nodes that always hold and those that never can: two least
 * fixpoints, alternated because negation reads one from the other), then the rules
 * rewritten (constants folded, literals sorted and unique, a rule with x and not x
 * dropped), each node's rules sorted and unique (a node with an empty rule is true; a rule
 * that contains another of the same node is dropped), aliases (a node that is one literal)
 * and equal nodes (the same rules, compared bottom-up) replaced by one, and last the nodes
 * that no interface node reads removed. Interface nodes (inputs, constants, next, legal,
 * goal, terminal, sees) keep their identity: others may be merged into them, never they
 * into others. Aliases and merges only touch nodes outside cycles, so that a chain of
 * replacements always ends. */
#include "engine/gopt.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/sort.h"
#include "engine/gfactor.h"
#include "engine/ground.h"

#define LIT_TRUE (UINT32_MAX - 1)
#define LIT_FALSE (UINT32_MAX - 2)
enum { CV_UNKNOWN = 0, CV_TRUE, CV_FALSE };

typedef struct {
    graw_t *w;
    const term_store_t *ts;
    bool *pinned;
    uint32_t *sub;             /* node -> the literal it is replaced by (itself: n << 1) */
    uint8_t *cval;             /* CV_* per node */
    uint32_t *fan_start, *fan; /* node -> rule << 1 | negated */
    bool *def, *poss;          /* during constants: always holds, can hold */
} opt_t;

static bool is_interface_atom(const term_store_t *ts, term_t t) {
    if (t == TERM_NONE) return false;
    sym_t s = term_sym(ts, t);
    return s == SYM_NEXT || s == SYM_LEGAL || s == SYM_GOAL || s == SYM_TERMINAL || s == SYM_SEES;
}

/* ---- constants ---- */

static void build_fan(opt_t *O) {
    graw_t *w = O->w;
    free(O->fan_start), free(O->fan);
    O->fan_start = xcalloc((size_t)w->n_nodes + 2, sizeof *O->fan_start);
    for (uint32_t l = 0; l < w->n_lits; l++)
        O->fan_start[(w->lits[l] >> 1) + 2]++;
    for (uint32_t n = 0; n < w->n_nodes; n++)
        O->fan_start[n + 2] += O->fan_start[n + 1];
    O->fan = xmalloc(((size_t)w->n_lits + 1) * sizeof *O->fan);
    for (uint32_t r = 0; r < w->n_rules; r++)
        for (uint32_t l = w->first[r]; l < w->first[r + 1]; l++)
            O->fan[O->fan_start[(w->lits[l] >> 1) + 1]++] = r << 1 | (w->lits[l] & 1);
}

/* The least fixpoint of "some rule has every literal satisfied", where a literal is
 * satisfied as sat() says for nodes not derived, and a positive literal of a derived node
 * when that node is marked. Marks into on. */
static void least(opt_t *O, bool *on, bool neg_sat_when(const opt_t *, uint32_t),
                  bool base(const opt_t *, uint32_t)) {
    graw_t *w = O->w;
    uint32_t *count = xcalloc((size_t)w->n_rules + 1, sizeof *count);
    uint32_t *stack = xmalloc(((size_t)w->n_nodes + 1) * sizeof *stack), sp = 0;
    for (uint32_t n = 0; n < w->n_nodes; n++) {
        on[n] = w->kind[n] != GNODE_DERIVED && base(O, n);
        if (on[n]) stack[sp++] = n;
    }
    for (uint32_t r = 0; r < w->n_rules; r++) {
        for (uint32_t l = w->first[r]; l < w->first[r + 1]; l++)
            if ((w->lits[l] & 1) && neg_sat_when(O, w->lits[l] >> 1)) count[r]++;
        if (count[r] == w->first[r + 1] - w->first[r] && !on[w->head[r]])
            on[w->head[r]] = true, stack[sp++] = w->head[r];
    }
    while (sp) {
        uint32_t n = stack[--sp];
        for (uint32_t k = O->fan_start[n]; k < O->fan_start[n + 1]; k++) {
            if (O->fan[k] & 1) continue;
            uint32_t r = O->fan[k] >> 1;
            if (++count[r] == w->first[r + 1] - w->first[r] && !on[w->head[r]])
                on[w->head[r]] = true, stack[sp++] = w->head[r];
        }
    }
    free(count), free(stack);
}

static bool poss_base(const opt_t *O, uint32_t n) {
    return O->w->kind[n] != GNODE_FALSE;
}
static bool poss_neg(const opt_t *O, uint32_t n) {
    return !O->def[n];
}
static bool def_base(const opt_t *O, uint32_t n) {
    return O->w->kind[n] == GNODE_TRUE;
}
static bool def_neg(const opt_t *O, uint32_t n) {
    return !O->poss[n];
}

static void constants(opt_t *O) {
    uint32_t nn = O->w->n_nodes;
    bool *def = xcalloc(nn + 1, sizeof *def), *poss = xcalloc(nn + 1, sizeof *poss);
    bool *prev = xcalloc(nn + 1, sizeof *prev);
    build_fan(O);
    for (uint32_t n = 0; n < nn; n++)
        def[n] = O->w->kind[n] == GNODE_TRUE;
    O->def = def, O->poss = poss;
    for (bool changed = true; changed;) {
        least(O, poss, poss_neg, poss_base);
        memcpy(prev, def, nn * sizeof *def);
        least(O, def, def_neg, def_base);
        changed = memcmp(prev, def, nn * sizeof *def) != 0;
    }
    O->def = O->poss = NULL;
    for (uint32_t n = 0; n < nn; n++) {
        bool input = O->w->kind[n] == GNODE_FLUENT || O->w->kind[n] == GNODE_MOVE ||
                     O->w->kind[n] == GNODE_QUERY;
        O->cval[n] = input ? CV_UNKNOWN : def[n] ? CV_TRUE : !poss[n] ? CV_FALSE : CV_UNKNOWN;
    }
    free(def), free(poss), free(prev);
}

/* ---- substitution ---- */

/* The literal lit stands for now: its node's replacement chain followed, constants last. */
static uint32_t resolve(opt_t *O, uint32_t lit) {
    uint32_t neg = 0;
    for (;;) {
        uint32_t n = lit >> 1;
        neg ^= lit & 1;
        if (O->cval[n] != CV_UNKNOWN)
            return (O->cval[n] == CV_TRUE) != (neg != 0) ? LIT_TRUE : LIT_FALSE;
        if (O->sub[n] == n << 1) return n << 1 | neg;
        lit = O->sub[n];
    }
}

/* The rules again: those of replaced nodes dropped, literals resolved, sorted and unique. */
static void rewrite(opt_t *O) {
    graw_t *w = O->w, out;
    graw_rewrite_begin(&out, w);
    uint32_t *buf = NULL;
    size_t cap = 0;
    for (uint32_t r = 0; r < w->n_rules; r++) {
        uint32_t h = w->head[r], n = 0;
        if (O->sub[h] != h << 1 || (!O->pinned[h] && O->cval[h] != CV_UNKNOWN)) continue;
        bool dead = false;
        GROW(buf, cap, (size_t)(w->first[r + 1] - w->first[r]) + 1);
        for (uint32_t l = w->first[r]; l < w->first[r + 1] && !dead; l++) {
            uint32_t x = resolve(O, w->lits[l]);
            if (x == LIT_FALSE)
                dead = true;
            else if (x != LIT_TRUE)
                buf[n++] = x;
        }
        if (dead) continue;
        sort_u32(buf, n);
        uint32_t m = 0;
        for (uint32_t i = 0; i < n && !dead; i++) {
            if (m && buf[m - 1] == buf[i]) continue;
            if (m && buf[m - 1] == (buf[i] ^ 1)) dead = true; /* x and not x */
            buf[m++] = buf[i];
        }
        if (dead) continue;
        graw_rule(&out, h);
        for (uint32_t i = 0; i < m; i++)
            graw_lit(&out, buf[i]);
    }
    free(buf);
    graw_rewrite_end(w, &out);
}

/* ---- each node's rules: sorted, unique, none containing another ---- */

typedef struct {
    const uint32_t *lits;
    uint32_t n;
} span_t;

static int cmp_span(const void *a, const void *b) {
    const span_t *x = a, *y = b;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    for (uint32_t i = 0; i < x->n; i++)
        if (x->lits[i] != y->lits[i]) return x->lits[i] < y->lits[i] ? -1 : 1;
    return 0;
}

#define SPAN_AFTER(x, y) (cmp_span(&(x), &(y)) > 0)

/* Spans in cmp_span's order: an insertion sort for a node's few rules (most nodes have one
 * to eight; qsort's calls cost more there), qsort past 16. */
static void sort_spans(span_t *sp, uint32_t k) {
    if (k > 16)
        qsort(sp, k, sizeof *sp, cmp_span);
    else
        INSERTION_SORT(span_t, sp, k, SPAN_AFTER);
}

/* Whether sorted a is a subset of sorted b. */
static bool subset(const span_t *a, const span_t *b) {
    return graw_lits_subset(a->lits, a->n, b->lits, b->n);
}

static void tidy_nodes(opt_t *O) {
    graw_t *w = O->w, out;
    graw_heads_t h;
    graw_heads(w, &h);
    graw_rewrite_begin(&out, w);
    span_t *sp = NULL;
    size_t cap = 0;
    bool *unit = xcalloc(2 * (size_t)w->n_nodes + 2, sizeof *unit); /* per literal */
    for (uint32_t n = 0; n < w->n_nodes; n++) {
        uint32_t k = h.start[n + 1] - h.start[n], m = 0;
        GROW(sp, cap, (size_t)k + 1);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t r = h.order[h.start[n] + i];
            uint32_t len = w->first[r + 1] - w->first[r];
            sp[i] = (span_t){len ? w->lits + w->first[r] : NULL, len}; /* lits NULL when none */
        }
        sort_spans(sp, k); /* shortest first */
        for (uint32_t i = 0; i < k; i++) {
            /* Dropped always: a duplicate (it sorts next to its twin) and a rule containing
             * a one-literal rule (marked in unit); a rule containing a longer one only when
             * that is among the first 64 kept (the check is quadratic). What is dropped does
             * not depend on how the nodes are numbered but for the last case. */
            bool drop = m && !cmp_span(&sp[m - 1], &sp[i]);
            for (uint32_t l = 0; l < sp[i].n && sp[i].n > 1 && !drop; l++)
                drop = unit[sp[i].lits[l]];
            for (uint32_t j = 0; j < m && !drop && (m <= 64 || j < 1); j++)
                drop = subset(&sp[j], &sp[i]);
            if (drop) continue;
            if (sp[i].n == 1) unit[sp[i].lits[0]] = true;
            sp[m++] = sp[i];
        }
        for (uint32_t i = 0; i < m && sp[i].n <= 1; i++)
            if (sp[i].n == 1) unit[sp[i].lits[0]] = false;
        for (uint32_t i = 0; i < m; i++) {
            graw_rule(&out, n);
            for (uint32_t l = 0; l < sp[i].n; l++)
                graw_lit(&out, sp[i].lits[l]);
        }
    }
    free(sp), free(unit);
    graw_heads_fini(&h);
    graw_rewrite_end(w, &out);
}

/* ---- aliases and equal nodes ---- */

typedef struct {
    uint64_t hash;
    uint32_t node, start, len; /* its canonical rules in the buffer */
} canon_t;

static uint64_t hash_words(const uint32_t *x, uint32_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= x[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

typedef struct {
    uint32_t *buf;
    size_t n, cap;
    canon_t *canon; /* the distinct rule sets, in order found */
    size_t n_canon, cap_canon;
    htab_t tab; /* rule set -> canon */
} canons_t;

typedef struct {
    const canons_t *C;
    uint64_t hash;
    uint32_t start, len;
} canon_key_t;

static bool canon_same(const void *ctx, uint32_t i) {
    const canon_key_t *k = ctx;
    const canon_t *c = &k->C->canon[i];
    return c->hash == k->hash && c->len == k->len &&
           !memcmp(k->C->buf + c->start, k->C->buf + k->start, k->len * sizeof *k->C->buf);
}

static uint32_t canon_hash_of(const void *ctx, uint32_t i) {
    const canons_t *C = ctx;
    return (uint32_t)C->canon[i].hash;
}

/* Node n's rules, literals resolved, as a word sequence: rule lengths and literals, rules in
 * sorted order. Returns the start in the buffer. */
static uint32_t canonical(opt_t *O, const graw_heads_t *h, uint32_t n, canons_t *C) {
    graw_t *w = O->w;
    uint32_t start = (uint32_t)C->n, k = h->start[n + 1] - h->start[n];
    span_t *sp = xmalloc((k + 1) * sizeof *sp);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t r = h->order[h->start[n] + i], len = w->first[r + 1] - w->first[r];
        GROW(C->buf, C->cap, C->n + len + 1);
        uint32_t at = (uint32_t)C->n;
        for (uint32_t l = 0; l < len; l++)
            C->buf[C->n++] = resolve(O, w->lits[w->first[r] + l]);
        sort_u32(C->buf + at, len);
        sp[i] = (span_t){(const uint32_t *)(uintptr_t)at, len};
    }
    for (uint32_t i = 0; i < k; i++) /* offsets to pointers, now that buf stays */
        sp[i].lits = C->buf + (uintptr_t)sp[i].lits;
    sort_spans(sp, k);
    uint32_t total = 0;
    for (uint32_t i = 0; i < k; i++)
        total += sp[i].n + 1;
    uint32_t *tmp = xmalloc((total + 1) * sizeof *tmp), t = 0;
    for (uint32_t i = 0; i < k; i++) {
        tmp[t++] = sp[i].n;
        for (uint32_t l = 0; l < sp[i].n; l++)
            tmp[t++] = sp[i].lits[l];
    }
    C->n = start;
    GROW(C->buf, C->cap, C->n + total + 1);
    memcpy(C->buf + C->n, tmp, total * sizeof *tmp);
    C->n += total;
    free(tmp), free(sp);
    return start;
}

/* The node already holding these rules, or none (then n is recorded as holding them). */
static uint32_t find_equal(canons_t *C, uint32_t n, uint32_t start) {
    uint32_t len = (uint32_t)C->n - start;
    canon_key_t k = {C, hash_words(C->buf + start, len), start, len};
    htab_reserve(&C->tab, canon_hash_of, C);
    uint32_t *slot = htab_probe(&C->tab, (uint32_t)k.hash, canon_same, &k);
    if (*slot) {
        C->n = start; /* not kept */
        return C->canon[*slot - 1].node;
    }
    GROW(C->canon, C->cap_canon, C->n_canon + 1);
    C->canon[C->n_canon] = (canon_t){k.hash, n, start, len};
    htab_fill(&C->tab, slot, (uint32_t)C->n_canon++);
    return UINT32_MAX;
}

/* Aliases and equal nodes, bottom-up over the components (cyclic ones left alone). */
static void merge(opt_t *O) {
    graw_t *w = O->w;
    graw_heads_t h;
    graw_heads(w, &h);
    uint32_t nn = w->n_nodes, n_comps = 0;
    uint32_t *order = xmalloc((nn + 1) * sizeof *order), *comp = xmalloc((nn + 1) * sizeof *comp);
    graw_components(w, &h, order, comp, &n_comps);
    uint32_t n_derived = 0;
    for (uint32_t n = 0; n < nn; n++)
        n_derived += w->kind[n] == GNODE_DERIVED;
    canons_t C = {0};
    for (uint32_t i = 0; i < n_derived; i++) {
        uint32_t n = order[i];
        bool cyclic = (i > 0 && comp[order[i - 1]] == comp[n]) ||
                      (i + 1 < n_derived && comp[order[i + 1]] == comp[n]);
        if (cyclic) continue;
        bool self = false;
        for (uint32_t k = h.start[n]; k < h.start[n + 1] && !self; k++)
            for (uint32_t l = w->first[h.order[k]]; l < w->first[h.order[k] + 1]; l++)
                self |= w->lits[l] >> 1 == n;
        if (self) continue;
        if (!O->pinned[n] && h.start[n + 1] - h.start[n] == 1) {
            uint32_t r = h.order[h.start[n]];
            if (w->first[r + 1] - w->first[r] == 1) {
                O->sub[n] = w->lits[w->first[r]]; /* an alias */
                continue;
            }
        }
        uint32_t start = canonical(O, &h, n, &C), same = find_equal(&C, n, start);
        if (same != UINT32_MAX && !O->pinned[n]) O->sub[n] = same << 1;
    }
    free(C.buf), free(C.canon), free(order), free(comp);
    htab_fini(&C.tab);
    graw_heads_fini(&h);
}

/* ---- what the interface reads ---- */

static bool compact(opt_t *O) {
    graw_t *w = O->w, out;
    uint32_t nn = w->n_nodes;
    graw_heads_t h;
    graw_heads(w, &h);
    uint32_t *id = xmalloc((nn + 1) * sizeof *id), *stack = xmalloc((nn + 1) * sizeof *stack);
    uint32_t sp = 0;
    for (uint32_t n = 0; n < nn; n++) {
        id[n] = O->pinned[n] ? 0 : UINT32_MAX;
        if (O->pinned[n]) stack[sp++] = n;
    }
    while (sp) {
        uint32_t n = stack[--sp];
        for (uint32_t k = h.start[n]; k < h.start[n + 1]; k++)
            for (uint32_t l = w->first[h.order[k]]; l < w->first[h.order[k] + 1]; l++) {
                uint32_t x = w->lits[l] >> 1;
                if (id[x] == UINT32_MAX) id[x] = 0, stack[sp++] = x;
            }
    }
    graw_init(&out);
    for (uint32_t n = 0; n < nn; n++)
        if (id[n] != UINT32_MAX) id[n] = graw_node(&out, w->kind[n], w->atom[n]);
    for (uint32_t n = 0; n < nn; n++) {
        if (id[n] == UINT32_MAX) continue;
        for (uint32_t k = h.start[n]; k < h.start[n + 1]; k++) {
            uint32_t r = h.order[k];
            graw_rule(&out, id[n]);
            for (uint32_t l = w->first[r]; l < w->first[r + 1]; l++)
                graw_lit(&out, id[w->lits[l] >> 1] << 1 | (w->lits[l] & 1));
        }
    }
    bool changed = out.n_nodes != nn;
    bool *pinned = xcalloc((size_t)out.n_nodes + 1, sizeof *pinned);
    for (uint32_t n = 0; n < nn; n++)
        if (id[n] != UINT32_MAX) pinned[id[n]] = O->pinned[n];
    free(O->pinned);
    O->pinned = pinned;
    free(id), free(stack);
    graw_heads_fini(&h);
    graw_fini(w);
    *w = out;
    return changed;
}

static void reset(opt_t *O) {
    uint32_t nn = O->w->n_nodes;
    free(O->sub), free(O->cval);
    O->sub = xmalloc((nn + 1) * sizeof *O->sub);
    O->cval = xcalloc(nn + 1, sizeof *O->cval);
    for (uint32_t n = 0; n < nn; n++)
        O->sub[n] = n << 1;
}

/* Factoring (gfactor.h), its new nodes not pinned. */
static void factor(opt_t *O) {
    uint32_t before = O->w->n_nodes, made = gfactor_run(O->w);
    if (!made) return;
    O->pinned = xrealloc(O->pinned, (size_t)before + made + 1);
    memset(O->pinned + before, 0, made);
}

/* Whether the deadline (0: none) has passed. */
static bool gone(double deadline) {
    return deadline > 0 && now_seconds() > deadline;
}

bool gopt_run(graw_t *w, const term_store_t *ts, bool factoring, double deadline) {
    opt_t O = {.w = w, .ts = ts};
    O.pinned = xmalloc((size_t)w->n_nodes + 1);
    for (uint32_t n = 0; n < w->n_nodes; n++)
        O.pinned[n] = w->kind[n] != GNODE_DERIVED || is_interface_atom(ts, w->atom[n]);
    bool in_time = true;
    for (int round = 0; round < 8 && (in_time = !gone(deadline)); round++) {
        uint32_t lits = w->n_lits, rules = w->n_rules;
        reset(&O);
        constants(&O);
        rewrite(&O);
        if (!(in_time = !gone(deadline))) break;
        tidy_nodes(&O);
        if (factoring) factor(&O);
        if (!(in_time = !gone(deadline))) break;
        reset(&O);
        merge(&O);
        rewrite(&O);
        bool fewer = compact(&O);
        if (!fewer && w->n_lits == lits && w->n_rules == rules) break;
    }
    free(O.pinned), free(O.sub), free(O.cval), free(O.fan_start), free(O.fan);
    return in_time;
}
