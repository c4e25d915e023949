/* Lifted formulas in DNF: construction, copying, substitution, measures, printing.
 * See form.h. */
#include "regress/form.h"

#include <stdlib.h>
#include <string.h>

/* ---------------- construction ---------------- */

fconj_t *fconj_new(void) {
    return xcalloc(1, sizeof(fconj_t));
}

void fconj_free(fconj_t *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->lits[i].kind == FL_NOT) fconj_free(c->lits[i].sub);
    free(c->lits);
    free(c);
}

fconj_t *fconj_copy(const fconj_t *c) {
    fconj_t *r = xcalloc(1, sizeof *r);
    r->n = r->cap = c->n;
    r->nv = c->nv;
    if (c->n) {
        r->lits = xmalloc(c->n * sizeof *r->lits);
        memcpy(r->lits, c->lits, c->n * sizeof *r->lits);
        for (uint32_t i = 0; i < c->n; i++)
            if (r->lits[i].kind == FL_NOT) r->lits[i].sub = fconj_copy(c->lits[i].sub);
    }
    return r;
}

void fconj_push(fconj_t *c, flit_t l) {
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 4;
        c->lits = xrealloc(c->lits, c->cap * sizeof *c->lits);
    }
    c->lits[c->n++] = l;
}

void fconj_add(fconj_t *c, int kind, term_t a, term_t b) {
    flit_t l = {.kind = (uint8_t)kind, .a = a, .b = b};
    fconj_push(c, l);
}

void fconj_add_not(fconj_t *c, fconj_t *sub) {
    flit_t l = {.kind = FL_NOT, .sub = sub};
    fconj_push(c, l);
}

void fconj_remove(fconj_t *c, uint32_t i) {
    if (c->lits[i].kind == FL_NOT) fconj_free(c->lits[i].sub);
    memmove(c->lits + i, c->lits + i + 1, (c->n - i - 1) * sizeof *c->lits);
    c->n--;
}

form_t *form_new(void) {
    form_t *f = xcalloc(1, sizeof *f);
    f->complete = true;
    return f;
}

void form_clear(form_t *f) {
    for (uint32_t i = 0; i < f->n; i++)
        fconj_free(f->d[i]);
    f->n = 0;
    FREE_AND_NULL(fconj_free, f->common);
}

void form_free(form_t *f) {
    if (!f) return;
    form_clear(f);
    free(f->d);
    free(f);
}

form_t *form_copy(const form_t *f) {
    form_t *r = form_new();
    r->complete = f->complete;
    for (uint32_t i = 0; i < f->n; i++)
        form_push(r, fconj_copy(f->d[i]));
    if (f->common) r->common = fconj_copy(f->common);
    return r;
}

void form_push(form_t *f, fconj_t *c) {
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 8;
        f->d = xrealloc(f->d, f->cap * sizeof *f->d);
    }
    f->d[f->n++] = c;
}

/* ---------------- variables ---------------- */

void term_each_var(const term_store_t *ts, term_t t, void (*fn)(void *, uint32_t), void *ctx) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        fn(ctx, term_sym(ts, t));
        return;
    }
    uint32_t n = term_arity(ts, t);
    for (uint32_t i = 0; i < n; i++)
        term_each_var(ts, term_arg(ts, t, i), fn, ctx);
}

void flit_each_var(const term_store_t *ts, const flit_t *l, void (*fn)(void *, uint32_t),
                   void *ctx) {
    if (l->a) term_each_var(ts, l->a, fn, ctx);
    if (l->b) term_each_var(ts, l->b, fn, ctx);
}

void flits_each_var(const term_store_t *ts, const flit_t *lits, uint32_t n,
                    void (*fn)(void *, uint32_t), void *ctx) {
    for (uint32_t i = 0; i < n; i++)
        if (lits[i].kind != FL_NOT) flit_each_var(ts, &lits[i], fn, ctx);
}

void fconj_each_var(const term_store_t *ts, const fconj_t *c, void (*fn)(void *, uint32_t),
                    void *ctx) {
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT)
            fconj_each_var(ts, l->sub, fn, ctx);
        else
            flit_each_var(ts, l, fn, ctx);
    }
}

typedef struct {
    const uint8_t *mark;
    bool hit;
} mention_t;

static void mention_var(void *ctx, uint32_t v) {
    mention_t *m = ctx;
    if (m->mark[v]) m->hit = true;
}

bool flit_mentions(const term_store_t *ts, const flit_t *l, const uint8_t *mark) {
    mention_t m = {.mark = mark};
    flit_each_var(ts, l, mention_var, &m);
    return m.hit;
}

bool fconj_mentions(const term_store_t *ts, const fconj_t *c, const uint8_t *mark) {
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT ? fconj_mentions(ts, l->sub, mark) : flit_mentions(ts, l, mark))
            return true;
    }
    return false;
}

int flit_complement(int kind) {
    switch (kind) {
    case FL_TRUE:
        return FL_NTRUE;
    case FL_NTRUE:
        return FL_TRUE;
    case FL_DOES:
        return FL_NDOES;
    case FL_NDOES:
        return FL_DOES;
    case FL_ATOM:
        return FL_NATOM;
    case FL_NATOM:
        return FL_ATOM;
    case FL_DIST:
        return FL_EQ;
    case FL_EQ:
        return FL_DIST;
    default:
        return -1;
    }
}

static void mark_one(void *ctx, uint32_t v) {
    ((uint8_t *)ctx)[v] = 1;
}

void fconj_mark_vars(const term_store_t *ts, const fconj_t *c, uint8_t *mark) {
    flits_each_var(ts, c->lits, c->n, mark_one, mark);
}

bool flit_same(const flit_t *p, const flit_t *q) {
    if (p->kind != q->kind || p->kind == FL_NOT) return false;
    if (p->a == q->a && p->b == q->b) return true;
    return (p->kind == FL_DIST || p->kind == FL_EQ) && p->a == q->b && p->b == q->a;
}

bool flit_contradicts(const flit_t *p, const flit_t *q) {
    if (p->kind == FL_NOT || flit_complement(p->kind) != q->kind) return false;
    if (p->a == q->a && p->b == q->b) return true;
    return (p->kind == FL_DIST || p->kind == FL_EQ) && p->a == q->b && p->b == q->a;
}

static uint32_t max_u32(uint32_t a, uint32_t b) {
    return a > b ? a : b;
}

uint32_t fconj_var_bound(const term_store_t *ts, const fconj_t *c) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT) {
            m = max_u32(m, fconj_var_bound(ts, l->sub));
            continue;
        }
        if (l->a) m = max_u32(m, term_var_bound(ts, l->a));
        if (l->b) m = max_u32(m, term_var_bound(ts, l->b));
    }
    return m;
}

void fconj_subst(term_store_t *ts, fconj_t *c, const term_t *map) {
    for (uint32_t i = 0; i < c->n; i++) {
        flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT) {
            fconj_subst(ts, l->sub, map);
            continue;
        }
        if (l->a && !term_is_ground(ts, l->a)) l->a = term_subst(ts, l->a, map);
        if (l->b && !term_is_ground(ts, l->b)) l->b = term_subst(ts, l->b, map);
    }
}

void fconj_shift(term_store_t *ts, fconj_t *c, uint32_t offset) {
    if (!offset) return;
    for (uint32_t i = 0; i < c->n; i++) {
        flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT) {
            fconj_shift(ts, l->sub, offset);
            continue;
        }
        if (l->a && !term_is_ground(ts, l->a)) l->a = term_shift_vars(ts, l->a, offset);
        if (l->b && !term_is_ground(ts, l->b)) l->b = term_shift_vars(ts, l->b, offset);
    }
    c->nv += offset;
}

typedef struct {
    term_store_t *ts;
    term_t *map;
    uint32_t next;
} canon_t;

static void canon_var(void *ctx, uint32_t v) {
    canon_t *k = ctx;
    if (k->map[v] == TERM_NONE) k->map[v] = term_var(k->ts, k->next++);
}

static void canon_walk(canon_t *k, const fconj_t *c) {
    /* Own literals first, then nested scopes: outer variables get the smaller numbers. */
    flits_each_var(k->ts, c->lits, c->n, canon_var, k);
    for (uint32_t i = 0; i < c->n; i++)
        if (c->lits[i].kind == FL_NOT) canon_walk(k, c->lits[i].sub);
}

void fconj_canon_vars(term_store_t *ts, fconj_t *c) {
    uint32_t bound = fconj_var_bound(ts, c);
    term_t *map = xcalloc(bound + 1, sizeof *map);
    canon_t k = {.ts = ts, .map = map, .next = 0};
    canon_walk(&k, c);
    fconj_subst(ts, c, map);
    c->nv = k.next;
    free(map);
}

/* ---------------- measures ---------------- */

uint64_t fconj_size(const fconj_t *c) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        n++;
        if (c->lits[i].kind == FL_NOT) n += fconj_size(c->lits[i].sub);
    }
    return n;
}

uint64_t form_literals(const form_t *f) {
    uint64_t n = f->common && f->n ? fconj_size(f->common) : 0;
    for (uint32_t i = 0; i < f->n; i++)
        n += fconj_size(f->d[i]);
    return n;
}

uint32_t fconj_depth(const fconj_t *c) {
    uint32_t d = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->lits[i].kind == FL_NOT) d = max_u32(d, 1 + fconj_depth(c->lits[i].sub));
    return d;
}

/* ---------------- printing ---------------- */

void flit_print(const term_store_t *ts, const flit_t *l, strbuf_t *out) {
    switch (l->kind) {
    case FL_TRUE:
    case FL_NTRUE:
        sb_puts(out, l->kind == FL_NTRUE ? "(not (true " : "(true ");
        term_print(ts, l->a, out);
        sb_puts(out, l->kind == FL_NTRUE ? "))" : ")");
        break;
    case FL_DOES:
    case FL_NDOES:
        sb_puts(out, l->kind == FL_NDOES ? "(not (does " : "(does ");
        term_print(ts, l->a, out);
        sb_putc(out, ' ');
        term_print(ts, l->b, out);
        sb_puts(out, l->kind == FL_NDOES ? "))" : ")");
        break;
    case FL_ATOM:
        term_print(ts, l->a, out);
        break;
    case FL_NATOM:
        sb_puts(out, "(not ");
        term_print(ts, l->a, out);
        sb_putc(out, ')');
        break;
    case FL_DIST:
    case FL_EQ:
        sb_puts(out, l->kind == FL_DIST ? "(distinct " : "(= ");
        term_print(ts, l->a, out);
        sb_putc(out, ' ');
        term_print(ts, l->b, out);
        sb_putc(out, ')');
        break;
    case FL_NOT:
        sb_puts(out, "(not ");
        fconj_print(ts, l->sub, out);
        sb_putc(out, ')');
        break;
    case FL_MOVE:
        sb_puts(out, "(move ");
        term_print(ts, l->a, out);
        sb_putc(out, ' ');
        term_print(ts, l->b, out);
        sb_putc(out, ')');
        break;
    }
}

typedef struct {
    const term_store_t *ts;
    uint8_t *seen; /* variables quantified by an enclosing scope */
    uint32_t cap;
    uint32_t *own;
    uint32_t n_own, cap_own;
} pr_t;

static void pr_var(void *ctx, uint32_t v) {
    pr_t *p = ctx;
    if (v >= p->cap || p->seen[v]) return;
    p->seen[v] = 1;
    if (p->n_own == p->cap_own) {
        p->cap_own = p->cap_own ? 2 * p->cap_own : 16;
        p->own = xrealloc(p->own, p->cap_own * sizeof *p->own);
    }
    p->own[p->n_own++] = v;
}

static void pr_conj(pr_t *p, const fconj_t *c, strbuf_t *out);

static void pr_lits(pr_t *p, const fconj_t *c, strbuf_t *out) {
    for (uint32_t i = 0; i < c->n; i++) {
        if (i) sb_putc(out, ' ');
        const flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT) {
            sb_puts(out, "(not ");
            pr_conj(p, l->sub, out);
            sb_putc(out, ')');
        } else {
            flit_print(p->ts, l, out);
        }
    }
}

static void pr_conj(pr_t *p, const fconj_t *c, strbuf_t *out) {
    uint32_t first = p->n_own;
    for (uint32_t i = 0; i < c->n; i++) {
        const flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT) continue;
        flit_each_var(p->ts, l, pr_var, p);
    }
    uint32_t last = p->n_own;
    if (last > first) {
        sb_puts(out, "(exists (");
        for (uint32_t k = first; k < last; k++)
            sb_printf(out, "%s?v%u", k > first ? " " : "", p->own[k]);
        sb_puts(out, ") ");
    }
    if (c->n == 1)
        pr_lits(p, c, out);
    else if (c->n == 0)
        sb_puts(out, "true");
    else {
        sb_puts(out, "(and ");
        pr_lits(p, c, out);
        sb_putc(out, ')');
    }
    if (last > first) sb_putc(out, ')');
    for (uint32_t k = first; k < last; k++)
        p->seen[p->own[k]] = 0;
    p->n_own = first;
}

void fconj_print(const term_store_t *ts, const fconj_t *c, strbuf_t *out) {
    pr_t p = {.ts = ts};
    p.cap = fconj_var_bound(ts, c) + 1;
    p.seen = xcalloc(p.cap, 1);
    pr_conj(&p, c, out);
    free(p.seen);
    free(p.own);
}

void form_print(const term_store_t *ts, const form_t *f, strbuf_t *out) {
    if (f->n == 0) {
        sb_puts(out, "false");
        return;
    }
    if (f->common) {
        sb_puts(out, "(and ");
        fconj_print(ts, f->common, out);
        sb_puts(out, "\n");
    }
    if (f->n == 1) {
        fconj_print(ts, f->d[0], out);
    } else {
        sb_puts(out, "(or");
        for (uint32_t i = 0; i < f->n; i++) {
            sb_puts(out, "\n  ");
            fconj_print(ts, f->d[i], out);
        }
        sb_putc(out, ')');
    }
    if (f->common) sb_putc(out, ')');
}

/* ---------------- sound shrinking ---------------- */

static uint64_t shrink_scope(fconj_t *c, int depth, uint64_t excess) {
    uint64_t removed = 0;
    /* In a negated scope (odd depth) a negated child may go: the scope gets weaker, its
     * negation stronger, the formula smaller. Largest first; one negated child is kept
     * (without any, "not exists b (legal(b))" would say "no move at all": sound, but
     * empty in practice). */
    if (depth % 2 == 1) {
        for (;;) {
            int best = -1;
            uint64_t best_size = 0;
            uint32_t nots = 0;
            for (uint32_t i = 0; i < c->n; i++)
                if (c->lits[i].kind == FL_NOT) {
                    nots++;
                    uint64_t sz = 1 + fconj_size(c->lits[i].sub);
                    if (sz > best_size) best_size = sz, best = (int)i;
                }
            if (best < 0 || nots < 2 || removed >= excess) break;
            fconj_remove(c, (uint32_t)best);
            removed += best_size;
        }
    }
    for (uint32_t i = 0; i < c->n && removed < excess; i++)
        if (c->lits[i].kind == FL_NOT)
            removed += shrink_scope(c->lits[i].sub, depth + 1, excess - removed);
    return removed;
}

bool form_shrink(form_t *f, uint64_t max_literals) {
    uint64_t size = form_literals(f);
    if (size <= max_literals) return false;
    /* whole disjuncts first, the largest */
    while (f->n > 1 && size > max_literals) {
        uint32_t best = 0;
        uint64_t best_size = 0;
        for (uint32_t i = 0; i < f->n; i++) {
            uint64_t sz = fconj_size(f->d[i]);
            if (sz > best_size) best_size = sz, best = i;
        }
        fconj_free(f->d[best]);
        f->d[best] = f->d[--f->n];
        size -= best_size;
    }
    for (int pass = 0; pass < 8 && size > max_literals; pass++) {
        uint64_t got = 0;
        for (uint32_t i = 0; i < f->n && size - got > max_literals; i++)
            got += shrink_scope(f->d[i], 0, size - got - max_literals);
        if (f->common && size - got > max_literals)
            got += shrink_scope(f->common, 0, size - got - max_literals);
        if (!got) break;
        size = form_literals(f);
    }
    f->complete = false;
    return true;
}
