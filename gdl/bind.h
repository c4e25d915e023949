/* Variable bindings with an undo trail, and what is done with them on terms: one-way
 * matching, unification, instances.
 *
 * The variables are those of one rule or formula (numbered 0..n-1, term.h); a binding maps
 * variable v to a term, TERM_NONE while v is free. Every binding made is recorded on the
 * trail, so a backtracking search marks, binds, recurses and undoes to the mark. The
 * matching core is inline: the interpreter's joins and the rollouts' formula matcher run
 * it in their innermost loops. */
#ifndef GDL_BIND_H
#define GDL_BIND_H

#include <stdbool.h>
#include <stdint.h>

#include "gdl/term.h"

typedef struct {
    term_t *val;     /* val[v]: the binding of variable v, TERM_NONE when free */
    uint32_t *trail; /* the variables bound, in order */
    uint32_t n_trail;
    uint32_t cap;         /* variables val and trail hold (0: the caller's storage) */
    uint32_t unify_steps; /* bind_unify answers "no" past this many steps; 0: no bound */
} bind_t;

/* Bindings for variables 0..n_vars-1, all free. */
void bind_init(bind_t *b, uint32_t n_vars);
void bind_fini(bind_t *b);
/* Room for variables 0..n_vars-1 (the new ones free). */
void bind_reserve(bind_t *b, uint32_t n_vars);

/* Bindings on the caller's storage (n + 1 entries each for n variables, val all
 * TERM_NONE), such as arrays on the stack of a hot caller. */
static inline bind_t bind_over(term_t *val, uint32_t *trail) {
    return (bind_t){.val = val, .trail = trail};
}

static inline void bind_set(bind_t *b, uint32_t v, term_t t) {
    b->val[v] = t;
    b->trail[b->n_trail++] = v;
}

/* A mark to undo to: the bindings made after it go. */
static inline uint32_t bind_mark(const bind_t *b) {
    return b->n_trail;
}

static inline void bind_undo(bind_t *b, uint32_t mark) {
    while (b->n_trail > mark)
        b->val[b->trail[--b->n_trail]] = TERM_NONE;
}

/* Matches pattern p (its variables bound or not) against a ground term g, binding p's free
 * variables; on failure some may stay bound (undo to a mark). */
static inline bool bind_match(bind_t *b, const term_store_t *ts, term_t p, term_t g) {
    if (p == g) return true;
    const term_node_t *pn = &ts->nodes[p];
    if (pn->ground) return false;
    if (pn->kind == TERM_VAR) {
        term_t *slot = &b->val[pn->sym];
        if (*slot) return *slot == g;
        *slot = g;
        b->trail[b->n_trail++] = pn->sym;
        return true;
    }
    const term_node_t *gn = &ts->nodes[g];
    if (gn->kind != TERM_FUN || gn->sym != pn->sym || gn->arity != pn->arity) return false;
    for (uint32_t i = 0; i < pn->arity; i++)
        if (!bind_match(b, ts, ts->args[pn->args + i], ts->args[gn->args + i])) return false;
    return true;
}

/* Matches pattern p onto any term t (variables in t are constants here): only the
 * variables v of p with bindable[v] set are bound; any other must equal its counterpart. */
bool bind_match_onto(bind_t *b, const term_store_t *ts, term_t p, term_t t,
                     const uint8_t *bindable);

/* Whether every variable of t is bound. */
bool bind_bound(const bind_t *b, const term_store_t *ts, term_t t);

/* The instance of t under the bindings (free variables stay), built in the store. */
static inline term_t bind_subst(const bind_t *b, term_store_t *ts, term_t t) {
    return term_is_ground(ts, t) ? t : term_subst(ts, t, b->val);
}

/* Unifies a and c (with the occurs check), extending the bindings; a bound variable may
 * now stand for a term with bound variables in it (bind_resolve reads through). Of two
 * variables, the one of higher rank is bound to the other (rank NULL: a's variable). */
typedef int (*bind_rank_fn)(const void *ctx, uint32_t v);
bool bind_unify(bind_t *b, const term_store_t *ts, term_t a, term_t c, bind_rank_fn rank,
                const void *ctx);
/* t with every bound variable replaced, through chains of bindings. */
static inline term_t bind_resolve(const bind_t *b, term_store_t *ts, term_t t) {
    return term_resolve(ts, t, b->val);
}
/* t itself, or what a chain of bound variables starting at t leads to. */
term_t bind_deref(const bind_t *b, const term_store_t *ts, term_t t);

/* Whether a and c unify, each with its own variables (a's 0..a_vars-1, c's 0..c_vars-1,
 * renamed apart), without building terms. Past a bound on the work it answers true. */
bool bind_unifiable_apart(const term_store_t *ts, term_t a, uint32_t a_vars, term_t c,
                          uint32_t c_vars);

#endif
