/* The native state check: see match.h. */
#include "regress/match.h"
#include "gdl/bind.h"

#include <stdlib.h>
#include <string.h>

enum { M_LOOKUP, M_SCAN, M_NTRUE, M_DIST, M_EQ, M_NOT };

typedef struct {
    uint8_t op;
    term_t a, b;
    uint32_t sub; /* M_NOT: scope index */
    uint64_t key; /* M_SCAN: functor key, or UINT64_MAX for a variable pattern */
} mstep_t;

typedef struct {
    uint32_t first, n;
    uint32_t free_first, n_free; /* enclosing variables the scope's tree mentions */
} mscope_t;

/* A negated scope's value depends only on the state and its free variables' values: it
 * is remembered per state (keyed by them) so that nested scopes are not re-evaluated
 * for every binding of the scopes around them. A direct-mapped cache: a collision only
 * costs a re-evaluation. */
#define MEMO_VARS 12
#define MEMO_MIN 64u
#define MEMO_MAX 65536u /* deep formulas (tic-tac-toe's alpha_9) thrash a smaller one */

typedef struct {
    uint32_t gen, sub;
    uint32_t cost; /* steps its evaluation took: the cheaper of two entries is replaced */
    term_t vals[MEMO_VARS];
    bool value;
} memo_t;

struct match {
    const term_store_t *ts;
    mstep_t *steps;
    size_t n_steps, cap_steps;
    mscope_t *scopes;
    size_t n_scopes, cap_scopes;
    uint32_t *roots;
    uint32_t n_roots;
    int32_t hit;    /* the disjunct that made the last evaluation true, or -1 */
    int32_t common; /* scope of the common conjunct, or -1 */
    bind_t b;
    uint32_t n_vars;
    bool inexact;
    uint32_t *freev; /* the scopes' free variables */
    size_t n_freev, cap_freev;
    memo_t *memo;
    uint32_t memo_mask;        /* its size, a power of two, less one */
    uint64_t work, work_limit; /* steps of this evaluation; the most it may take */
    bool gave_up;              /* the limit was reached: the answer is unknown */
    uint32_t gen;              /* of the state being evaluated */
};

/* The facts of one fluent functor (name and arity) in bucketed[start, start + count). */
typedef struct {
    uint64_t key;
    uint32_t start, count;
} bucket_t;

struct match_state {
    term_t *sorted; /* the state's facts, sorted by id */
    term_t *bucketed;
    uint32_t n, cap;
    /* few per state, looked up linearly; as many as the game text has fluent functors */
    bucket_t *keys;
    uint32_t n_keys;
    size_t cap_keys;
};

static uint64_t key_of(const term_store_t *ts, term_t t) {
    if (term_is_var(ts, t)) return UINT64_MAX;
    return ((uint64_t)term_sym(ts, t) << 32) | term_arity(ts, t);
}

/* ---------------- compilation ---------------- */

typedef struct {
    const term_store_t *ts;
    uint8_t *bound;
    bool all;
} bchk_t;

static void bchk_var(void *ctx, uint32_t v) {
    bchk_t *b = ctx;
    if (!b->bound[v]) b->all = false;
}

static bool all_bound(const term_store_t *ts, term_t t, uint8_t *bound) {
    bchk_t b = {.ts = ts, .bound = bound, .all = true};
    term_each_var(ts, t, bchk_var, &b);
    return b.all;
}

static void set_var(void *ctx, uint32_t v) {
    ((uint8_t *)ctx)[v] = 1;
}

static uint32_t unbound_count(const term_store_t *ts, term_t t, uint8_t *bound) {
    /* counts distinct-ish occurrences; good enough for ordering */
    if (term_is_ground(ts, t)) return 0;
    if (term_is_var(ts, t)) return !bound[term_sym(ts, t)];
    uint32_t n = 0;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        n += unbound_count(ts, term_arg(ts, t, i), bound);
    return n;
}

static void emit(match_t *m, mstep_t *buf, uint32_t *n, mstep_t st) {
    (void)m;
    buf[(*n)++] = st;
}

typedef struct {
    const uint8_t *bound;
    uint8_t *seen;
} freev_t;

static void see_var(void *ctx, uint32_t v) {
    freev_t *f = ctx;
    if (f->bound[v]) f->seen[v] = 1;
}

static void see_scope(const term_store_t *ts, const fconj_t *c, freev_t *f) {
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->lits[i].kind == FL_NOT)
            see_scope(ts, c->lits[i].sub, f);
        else
            flit_each_var(ts, &c->lits[i], see_var, f);
    }
}

/* Records the variables bound around scope `id` (compiled from S) that S's tree mentions. */
static void set_free(match_t *m, uint32_t id, const fconj_t *S, const uint8_t *bound, uint32_t nv) {
    freev_t f = {.bound = bound, .seen = xcalloc(nv + 1, 1)};
    see_scope(m->ts, S, &f);
    m->scopes[id].free_first = (uint32_t)m->n_freev;
    for (uint32_t v = 0; v <= nv; v++)
        if (f.seen[v]) {
            GROW(m->freev, m->cap_freev, m->n_freev + 1);
            m->freev[m->n_freev++] = v;
        }
    m->scopes[id].n_free = (uint32_t)(m->n_freev - m->scopes[id].free_first);
    free(f.seen);
}

static uint32_t compile_scope(match_t *m, const fconj_t *S, const uint8_t *outer, uint32_t nv,
                              bool *ok) {
    const term_store_t *ts = m->ts;
    uint8_t *bound = xmalloc(nv + 1);
    memcpy(bound, outer, nv + 1);
    uint32_t n = S->n;
    mstep_t *buf = xmalloc((n + 1) * sizeof *buf);
    uint8_t *done = xcalloc(n + 1, 1);
    uint32_t nb = 0;
    for (uint32_t i = 0; i < n; i++) {
        int k = S->lits[i].kind;
        if (k == FL_MOVE)
            done[i] = 1;
        else if (k != FL_TRUE && k != FL_NTRUE && k != FL_DIST && k != FL_EQ && k != FL_NOT)
            *ok = false;
        else if (k == FL_NOT)
            done[i] = 2; /* later */
    }
    for (;;) {
        bool progress = true;
        while (progress) {
            progress = false;
            for (uint32_t i = 0; i < n; i++) {
                const flit_t *l = &S->lits[i];
                if (done[i]) continue;
                if (l->kind == FL_NTRUE || l->kind == FL_DIST) {
                    if (all_bound(ts, l->a, bound) && (!l->b || all_bound(ts, l->b, bound))) {
                        emit(m, buf, &nb,
                             (mstep_t){.op = l->kind == FL_NTRUE ? M_NTRUE : M_DIST,
                                       .a = l->a,
                                       .b = l->b});
                        done[i] = 1;
                    }
                } else if (l->kind == FL_EQ) {
                    bool ba = all_bound(ts, l->a, bound), bb = all_bound(ts, l->b, bound);
                    if (ba || bb) {
                        emit(m, buf, &nb, (mstep_t){.op = M_EQ, .a = l->a, .b = l->b});
                        term_each_var(ts, l->a, set_var, bound);
                        term_each_var(ts, l->b, set_var, bound);
                        done[i] = 1;
                        progress = true;
                    }
                }
            }
        }
        int best = -1;
        uint32_t best_u = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            if (done[i] || S->lits[i].kind != FL_TRUE) continue;
            uint32_t u = unbound_count(ts, S->lits[i].a, bound);
            if (u < best_u) best_u = u, best = (int)i;
        }
        if (best < 0) break;
        const flit_t *l = &S->lits[best];
        mstep_t st = {.op = best_u ? M_SCAN : M_LOOKUP, .a = l->a, .key = key_of(ts, l->a)};
        emit(m, buf, &nb, st);
        term_each_var(ts, l->a, set_var, bound);
        done[best] = 1;
    }
    /* what is left has unbound variables: evaluated with the infinite-universe reading */
    for (uint32_t i = 0; i < n; i++) {
        const flit_t *l = &S->lits[i];
        if (done[i]) continue;
        int op = l->kind == FL_NTRUE ? M_NTRUE : l->kind == FL_DIST ? M_DIST : M_EQ;
        emit(m, buf, &nb, (mstep_t){.op = (uint8_t)op, .a = l->a, .b = l->b});
        done[i] = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (S->lits[i].kind != FL_NOT) continue;
        uint32_t sub = compile_scope(m, S->lits[i].sub, bound, nv, ok);
        set_free(m, sub, S->lits[i].sub, bound, nv);
        emit(m, buf, &nb, (mstep_t){.op = M_NOT, .sub = sub});
    }
    /* the scope's steps go in one block */
    GROW(m->scopes, m->cap_scopes, m->n_scopes + 1);
    uint32_t id = (uint32_t)m->n_scopes++;
    GROW(m->steps, m->cap_steps, m->n_steps + nb);
    memcpy(m->steps + m->n_steps, buf, nb * sizeof *buf);
    m->scopes[id].first = (uint32_t)m->n_steps;
    m->scopes[id].n = nb;
    m->scopes[id].free_first = 0;
    m->scopes[id].n_free = MEMO_VARS + 1; /* not a negated scope: never remembered */
    m->n_steps += nb;
    free(buf);
    free(done);
    free(bound);
    return id;
}

match_t *match_new(const term_store_t *ts, const form_t *f) {
    match_t *m = xcalloc(1, sizeof *m);
    m->ts = ts;
    m->roots = xmalloc((f->n + 1) * sizeof *m->roots);
    uint32_t nv = 1;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t b = fconj_var_bound(ts, f->d[i]) + 1;
        if (b > nv) nv = b;
    }
    m->n_vars = nv;
    if (f->common) {
        uint32_t b = fconj_var_bound(ts, f->common) + 1;
        if (b > nv) nv = b;
    }
    m->n_vars = nv;
    uint8_t *outer = xcalloc(nv + 1, 1);
    bool ok = true;
    m->common = f->common ? (int32_t)compile_scope(m, f->common, outer, nv, &ok) : -1;
    for (uint32_t i = 0; i < f->n; i++)
        m->roots[m->n_roots++] = compile_scope(m, f->d[i], outer, nv, &ok);
    free(outer);
    if (!ok) {
        match_free(m);
        return NULL;
    }
    bind_init(&m->b, nv + 1);
    /* slots for several bindings per negated scope */
    uint32_t size = MEMO_MIN;
    while (size < MEMO_MAX && size < 32 * m->n_scopes)
        size *= 2;
    m->memo = xcalloc(size, sizeof *m->memo);
    m->memo_mask = size - 1;
    return m;
}

void match_free(match_t *m) {
    if (!m) return;
    free(m->steps);
    free(m->scopes);
    free(m->roots);
    bind_fini(&m->b);
    free(m->freev);
    free(m->memo);
    free(m);
}

/* ---------------- state index ---------------- */

match_state_t *match_state_new(void) {
    return xcalloc(1, sizeof(match_state_t));
}

void match_state_free(match_state_t *ms) {
    if (!ms) return;
    free(ms->sorted);
    free(ms->bucketed);
    free(ms->keys);
    free(ms);
}

void match_state_set(match_state_t *ms, const term_store_t *ts, const state_t *s) {
    if (s->n > ms->cap) {
        ms->cap = s->n * 2;
        ms->sorted = xrealloc(ms->sorted, ms->cap * sizeof *ms->sorted);
        ms->bucketed = xrealloc(ms->bucketed, ms->cap * sizeof *ms->bucketed);
    }
    ms->n = s->n;
    memcpy(ms->sorted, s->facts, s->n * sizeof *s->facts);
    ms->n_keys = 0;
    /* count per functor key (few distinct keys per state) */
    for (uint32_t i = 0; i < s->n; i++) {
        uint64_t k = key_of(ts, s->facts[i]);
        uint32_t j = 0;
        while (j < ms->n_keys && ms->keys[j].key != k)
            j++;
        if (j == ms->n_keys) {
            GROW(ms->keys, ms->cap_keys, ms->n_keys + 1);
            ms->keys[ms->n_keys++] = (bucket_t){.key = k};
        }
        ms->keys[j].count++;
    }
    uint32_t acc = 0;
    for (uint32_t j = 0; j < ms->n_keys; j++) {
        ms->keys[j].start = acc;
        acc += ms->keys[j].count;
        ms->keys[j].count = 0;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        uint64_t k = key_of(ts, s->facts[i]);
        uint32_t j = 0;
        while (ms->keys[j].key != k)
            j++;
        ms->bucketed[ms->keys[j].start + ms->keys[j].count++] = s->facts[i];
    }
}

static bool has_fact(const match_state_t *ms, term_t f) {
    uint32_t lo = 0, hi = ms->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (ms->sorted[mid] < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ms->n && ms->sorted[lo] == f;
}

/* ---------------- evaluation ---------------- */

static bool bound_all(const match_t *m, term_t t) {
    return bind_bound(&m->b, m->ts, t);
}

static void undo(match_t *m, uint32_t mark) {
    bind_undo(&m->b, mark);
}

static term_t deref(const match_t *m, term_t t) {
    return term_is_var(m->ts, t) ? m->b.val[term_sym(m->ts, t)] : t;
}

/* Pattern p against a ground fact f. */
static bool pmatch(match_t *m, term_t p, term_t f) {
    return bind_match(&m->b, m->ts, p, f);
}

/* Are the instances of p and q (both fully bound) equal? */
static bool same_inst(const match_t *m, term_t p, term_t q) {
    const term_store_t *ts = m->ts;
    p = deref(m, p);
    q = deref(m, q);
    if (p == q) return true;
    if (term_is_ground(ts, p) && term_is_ground(ts, q)) return false;
    if (term_kind(ts, p) != TERM_FUN || term_kind(ts, q) != TERM_FUN ||
        term_sym(ts, p) != term_sym(ts, q) || term_arity(ts, p) != term_arity(ts, q))
        return false;
    for (uint32_t i = 0; i < term_arity(ts, p); i++)
        if (!same_inst(m, term_arg(ts, p, i), term_arg(ts, q, i))) return false;
    return true;
}

/* Pattern p against the instance of a fully bound q. */
static bool pmatch_inst(match_t *m, term_t p, term_t q) {
    const term_store_t *ts = m->ts;
    if (term_is_ground(ts, p)) return same_inst(m, p, q);
    if (term_is_var(ts, p)) {
        uint32_t v = term_sym(ts, p);
        if (m->b.val[v] != TERM_NONE) return same_inst(m, m->b.val[v], q);
        term_t t = term_is_ground(ts, q) ? q
                   : term_is_var(ts, q)  ? deref(m, q)
                                         : term_find_subst(ts, q, m->b.val);
        if (t == TERM_NONE) {
            m->inexact = true; /* the instance was never built: not representable here */
            return false;
        }
        bind_set(&m->b, v, t);
        return true;
    }
    q = deref(m, q);
    if (term_kind(ts, q) != TERM_FUN || term_sym(ts, q) != term_sym(ts, p) ||
        term_arity(ts, q) != term_arity(ts, p))
        return false;
    for (uint32_t i = 0; i < term_arity(ts, p); i++)
        if (!pmatch_inst(m, term_arg(ts, p, i), term_arg(ts, q, i))) return false;
    return true;
}

static bool run(match_t *m, const match_state_t *ms, uint32_t scope, uint32_t k);

/* Does negated scope sub's conjunction hold under the current bindings (remembered)? Its
 * free variables are bound outside it, so their values are the same before and after. */
static bool not_sat(match_t *m, const match_state_t *ms, uint32_t sub) {
    const mscope_t *sc = &m->scopes[sub];
    bool memo = sc->n_free <= MEMO_VARS;
    term_t vals[MEMO_VARS];
    uint64_t h = sub * 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; memo && i < sc->n_free; i++) {
        vals[i] = m->b.val[m->freev[sc->free_first + i]];
        h = (h ^ vals[i]) * 0x100000001b3ull;
    }
    /* two slots per key (a pair): deep scopes with many bindings do not evict the
     * dearer entries of the scopes around them */
    memo_t *pair = &m->memo[(h >> 20) & m->memo_mask & ~1u];
    for (int w = 0; memo && w < 2; w++) {
        const memo_t *e = &pair[w];
        if (e->gen == m->gen && e->sub == sub && !memcmp(e->vals, vals, sc->n_free * sizeof *vals))
            return e->value;
    }
    uint32_t mark = bind_mark(&m->b);
    uint64_t work0 = m->work;
    bool sat = run(m, ms, sub, 0);
    undo(m, mark);
    if (memo && !m->gave_up) { /* written after the nested evaluation (it may have used
                                * the slots), and only when it ran to the end */
        memo_t *e = pair[0].gen != m->gen                                  ? &pair[0]
                    : pair[1].gen != m->gen || pair[1].cost < pair[0].cost ? &pair[1]
                                                                           : &pair[0];
        uint64_t cost = m->work - work0;
        memcpy(e->vals, vals, sc->n_free * sizeof *vals);
        e->sub = sub;
        e->value = sat;
        e->gen = m->gen;
        e->cost = cost > UINT32_MAX ? UINT32_MAX : (uint32_t)cost;
    }
    return sat;
}

static bool run(match_t *m, const match_state_t *ms, uint32_t scope, uint32_t k) {
    if (++m->work > m->work_limit) { /* every caller unwinds at once from here on */
        m->gave_up = true;
        return false;
    }
    const mscope_t *sc = &m->scopes[scope];
    if (k == sc->n) return true;
    const mstep_t *st = &m->steps[sc->first + k];
    const term_store_t *ts = m->ts;
    switch (st->op) {
    case M_LOOKUP: {
        term_t f = term_is_ground(ts, st->a) ? st->a : term_find_subst(ts, st->a, m->b.val);
        return f != TERM_NONE && has_fact(ms, f) && run(m, ms, scope, k + 1);
    }
    case M_SCAN: {
        uint32_t lo = 0, hi = ms->n;
        const term_t *facts = ms->sorted;
        if (st->key != UINT64_MAX) {
            uint32_t j = 0;
            while (j < ms->n_keys && ms->keys[j].key != st->key)
                j++;
            if (j == ms->n_keys) return false;
            facts = ms->bucketed;
            lo = ms->keys[j].start;
            hi = lo + ms->keys[j].count;
        }
        for (uint32_t i = lo; i < hi; i++) {
            uint32_t mark = bind_mark(&m->b);
            if (pmatch(m, st->a, facts[i]) && run(m, ms, scope, k + 1)) return true;
            undo(m, mark);
        }
        return false;
    }
    case M_NTRUE: {
        if (bound_all(m, st->a)) {
            term_t f = term_is_ground(ts, st->a) ? st->a : term_find_subst(ts, st->a, m->b.val);
            if (f != TERM_NONE && has_fact(ms, f)) return false;
        }
        return run(m, ms, scope, k + 1);
    }
    case M_DIST:
        if (bound_all(m, st->a) && bound_all(m, st->b) && same_inst(m, st->a, st->b)) return false;
        return run(m, ms, scope, k + 1);
    case M_EQ: {
        uint32_t mark = bind_mark(&m->b);
        bool ba = bound_all(m, st->a), bb = bound_all(m, st->b), ok;
        if (ba && bb)
            ok = same_inst(m, st->a, st->b);
        else if (bb)
            ok = pmatch_inst(m, st->a, st->b);
        else if (ba)
            ok = pmatch_inst(m, st->b, st->a);
        else {
            m->inexact = true;
            ok = true;
        }
        if (ok && run(m, ms, scope, k + 1)) return true;
        undo(m, mark);
        return false;
    }
    case M_NOT:
        return !not_sat(m, ms, st->sub) && run(m, ms, scope, k + 1);
    }
    return false;
}

static bool eval(match_t *m, const match_state_t *ms) {
    m->hit = -1;
    if (!m->n_roots) return false;
    if (++m->gen == 0) { /* wrapped: forget every entry */
        memset(m->memo, 0, (m->memo_mask + 1) * sizeof *m->memo);
        m->gen = 1;
    }
    if (m->common >= 0) {
        bool ok = run(m, ms, (uint32_t)m->common, 0);
        undo(m, 0);
        if (!ok) return false;
    }
    for (uint32_t i = 0; i < m->n_roots; i++) {
        bool ok = run(m, ms, m->roots[i], 0);
        undo(m, 0);
        if (ok) {
            m->hit = (int32_t)i;
            return true;
        }
    }
    return false;
}

bool match_eval(match_t *m, const match_state_t *ms) {
    return match_eval_within(m, ms, UINT64_MAX) == 1; /* never gives up */
}

int match_eval_within(match_t *m, const match_state_t *ms, uint64_t max_work) {
    m->work = 0;
    m->work_limit = max_work;
    m->gave_up = false;
    bool r = eval(m, ms);
    return m->gave_up ? -1 : r;
}

int32_t match_hit(const match_t *m) {
    return m->gave_up ? -1 : m->hit;
}

uint64_t match_work(const match_t *m) {
    return m->work;
}

bool match_check(match_t *m, match_state_t *ms, const state_t *s) {
    match_state_set(ms, m->ts, s);
    return match_eval(m, ms);
}

bool match_inexact(const match_t *m) {
    return m->inexact;
}
