/* Bindings, matching and unification: see bind.h. */
#include "gdl/bind.h"

#include <stdlib.h>

void bind_init(bind_t *b, uint32_t n_vars) {
    *b = (bind_t){0};
    bind_reserve(b, n_vars);
}

void bind_fini(bind_t *b) {
    free(b->val);
    free(b->trail);
    *b = (bind_t){0};
}

void bind_reserve(bind_t *b, uint32_t n_vars) {
    if (n_vars < b->cap || (n_vars == 0 && b->val)) return;
    uint32_t cap = b->cap ? b->cap : 16;
    while (cap <= n_vars)
        cap *= 2;
    b->val = xrealloc(b->val, cap * sizeof *b->val);
    b->trail = xrealloc(b->trail, cap * sizeof *b->trail);
    for (uint32_t v = b->cap; v < cap; v++)
        b->val[v] = TERM_NONE;
    b->cap = cap;
}

bool bind_match_onto(bind_t *b, const term_store_t *ts, term_t p, term_t t,
                     const uint8_t *bindable) {
    /* no shortcut on p == t: equal terms still bind p's variables (to themselves) */
    if (term_is_ground(ts, p)) return p == t;
    if (term_is_var(ts, p)) {
        uint32_t v = term_sym(ts, p);
        if (!bindable[v]) return p == t;
        if (b->val[v] != TERM_NONE) return b->val[v] == t;
        bind_set(b, v, t);
        return true;
    }
    if (term_kind(ts, t) != TERM_FUN || term_sym(ts, p) != term_sym(ts, t) ||
        term_arity(ts, p) != term_arity(ts, t))
        return false;
    for (uint32_t i = 0; i < term_arity(ts, p); i++)
        if (!bind_match_onto(b, ts, term_arg(ts, p, i), term_arg(ts, t, i), bindable)) return false;
    return true;
}

bool bind_bound(const bind_t *b, const term_store_t *ts, term_t t) {
    if (term_is_ground(ts, t)) return true;
    if (term_is_var(ts, t)) return b->val[term_sym(ts, t)] != TERM_NONE;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        if (!bind_bound(b, ts, term_arg(ts, t, i))) return false;
    return true;
}

term_t bind_deref(const bind_t *b, const term_store_t *ts, term_t t) {
    while (term_is_var(ts, t) && b->val[term_sym(ts, t)] != TERM_NONE)
        t = b->val[term_sym(ts, t)];
    return t;
}

static bool occurs(const bind_t *b, const term_store_t *ts, uint32_t v, term_t t) {
    t = bind_deref(b, ts, t);
    if (term_is_ground(ts, t)) return false;
    if (term_is_var(ts, t)) return term_sym(ts, t) == v;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        if (occurs(b, ts, v, term_arg(ts, t, i))) return true;
    return false;
}

typedef struct {
    bind_t *b;
    const term_store_t *ts;
    bind_rank_fn rank;
    const void *ctx;
    uint32_t steps;
} unifier_t;

static int rank_of(const unifier_t *u, uint32_t v) {
    return u->rank ? u->rank(u->ctx, v) : 0;
}

/* Binds variable v to t unless t contains it. */
static bool bind_var(unifier_t *u, uint32_t v, term_t t) {
    if (occurs(u->b, u->ts, v, t)) return false;
    bind_set(u->b, v, t);
    return true;
}

static bool unify(unifier_t *u, term_t a, term_t c) {
    if (u->b->unify_steps && ++u->steps > u->b->unify_steps) return false;
    const term_store_t *ts = u->ts;
    a = bind_deref(u->b, ts, a);
    c = bind_deref(u->b, ts, c);
    if (a == c) return true;
    bool va = term_is_var(ts, a), vc = term_is_var(ts, c);
    if (va && vc) {
        uint32_t p = term_sym(ts, a), q = term_sym(ts, c);
        if (rank_of(u, p) >= rank_of(u, q))
            bind_set(u->b, p, c);
        else
            bind_set(u->b, q, a);
        return true;
    }
    if (va) return bind_var(u, term_sym(ts, a), c);
    if (vc) return bind_var(u, term_sym(ts, c), a);
    if (term_is_ground(ts, a) && term_is_ground(ts, c)) return false;
    if (term_kind(ts, a) != term_kind(ts, c) || term_sym(ts, a) != term_sym(ts, c) ||
        term_arity(ts, a) != term_arity(ts, c))
        return false;
    for (uint32_t i = 0; i < term_arity(ts, a); i++)
        if (!unify(u, term_arg(ts, a, i), term_arg(ts, c, i))) return false;
    return true;
}

bool bind_unify(bind_t *b, const term_store_t *ts, term_t a, term_t c, bind_rank_fn rank,
                const void *ctx) {
    unifier_t u = {.b = b, .ts = ts, .rank = rank, .ctx = ctx};
    return unify(&u, a, c);
}

/* ---- unifiability of two atoms renamed apart, without building terms ---- */

typedef struct {
    term_t t;
    uint8_t side;
} sided_t;

typedef struct {
    const term_store_t *ts;
    sided_t *val[2]; /* per side: variable -> the term (and its side) it is bound to */
    uint32_t steps;
} apart_t;

static void apart_deref(apart_t *u, term_t *t, int *side) {
    while (term_is_var(u->ts, *t) && u->val[*side][term_sym(u->ts, *t)].t) {
        sided_t b = u->val[*side][term_sym(u->ts, *t)];
        *t = b.t;
        *side = b.side;
    }
}

static bool apart_unify(apart_t *u, term_t a, int sa, term_t c, int sc) {
    /* Without an occurs check a term could be cyclic: past a bound we answer "may unify",
     * which only adds dependencies, never hides one. */
    if (++u->steps > 100000) return true;
    apart_deref(u, &a, &sa);
    apart_deref(u, &c, &sc);
    const term_store_t *ts = u->ts;
    if (term_is_var(ts, a)) {
        if (!(term_is_var(ts, c) && a == c && sa == sc))
            u->val[sa][term_sym(ts, a)] = (sided_t){c, (uint8_t)sc};
        return true;
    }
    if (term_is_var(ts, c)) {
        u->val[sc][term_sym(ts, c)] = (sided_t){a, (uint8_t)sa};
        return true;
    }
    if (term_is_ground(ts, a) && term_is_ground(ts, c)) return a == c;
    if (term_kind(ts, a) != term_kind(ts, c) || term_sym(ts, a) != term_sym(ts, c) ||
        term_arity(ts, a) != term_arity(ts, c))
        return false;
    for (uint32_t i = 0; i < term_arity(ts, a); i++)
        if (!apart_unify(u, term_arg(ts, a, i), sa, term_arg(ts, c, i), sc)) return false;
    return true;
}

bool bind_unifiable_apart(const term_store_t *ts, term_t a, uint32_t a_vars, term_t c,
                          uint32_t c_vars) {
    /* Validation asks this for every pair of a body literal and a rule of its predicate:
     * small rules bind on the stack, without allocating. */
    sided_t small[2][32] = {0};
    apart_t u = {.ts = ts, .val = {small[0], small[1]}};
    if (a_vars > 32) u.val[0] = xcalloc(a_vars + 1, sizeof(sided_t));
    if (c_vars > 32) u.val[1] = xcalloc(c_vars + 1, sizeof(sided_t));
    bool ok = apart_unify(&u, a, 0, c, 1);
    if (u.val[0] != small[0]) free(u.val[0]);
    if (u.val[1] != small[1]) free(u.val[1]);
    return ok;
}
