/* The C operator (expansion) and C^∞, with simplification.
 *
 * C replaces an atom by its complete premise: the bodies of the rules whose heads unify
 * with it, variables renamed apart (fresh, existentially quantified), the unifier kept as
 * `=` constraints and solved. A negated atom becomes one negated scope per rule. Static
 * relations (those depending on neither the state nor the moves) are evaluated away: their
 * tuples, computed once by the engine (engine_query), act as facts. With does binding on,
 * `does(r, x)` is resolved too: x is unified with the move of role r that a FL_MOVE
 * literal names (this is how N replaces `does`). Atoms of recursive predicates are unfolded to a
 * bounded depth; what is cut is replaced by false in a positive scope and dropped from a negated
 * one, so the result describes fewer states, never more, and is marked incomplete.
 *
 * Simplification runs alongside: `=` solved by unification, ground distinct evaluated,
 * duplicates and literals already known from an enclosing scope removed, contradictions
 * (x and not x, mutex pairs) and negations refuted by the context drop their conjunction,
 * a negated scope implied by a sibling is dropped, and subsumed disjuncts are removed. */
#ifndef REGRESS_EXPAND_H
#define REGRESS_EXPAND_H

#include "base/clock.h"
#include "engine/engine.h"
#include "regress/form.h"

/* A proven mutex group: two true fluents f(..) of this signature that agree on every
 * argument but `pos` never hold together. */
typedef struct {
    sym_t sym;
    uint32_t arity, pos;
} mutex_t;

typedef struct {
    uint32_t max_depth;    /* recursive unfoldings per atom (bounded unfolding) */
    uint32_t max_gen;      /* expand only atoms of generation < max_gen (0: C^∞) */
    bool legal_on_does;    /* C(does(r, a)) = does(r, a) and legal(r, a) */
    bool subsume;          /* remove subsumed disjuncts at the end */
    uint64_t max_literals; /* cap on the result (0: none): over it, the rest is dropped */
    double deadline;       /* now_seconds() limit (0: none): over it, expansion aborts */
} expand_opts_t;

typedef struct expand expand_t;

/* On e's game; e answers the static relations (engine_query) and stays the caller's. */
expand_t *expand_new(engine_t *e);
void expand_free(expand_t *x);
expand_opts_t *expand_opts(expand_t *x);
/* With bind set, `does(r, x)` is resolved: x is unified with the move of r named by a
 * FL_MOVE literal of the scope or an enclosing one (no such literal: does is false).
 * The FL_MOVE literals are removed from the result. */
void expand_bind_does(expand_t *x, bool bind);
void expand_set_mutexes(expand_t *x, const mutex_t *m, uint32_t n);

/* C^∞ (or C^max_gen) of f with simplification: a new formula, or NULL when the deadline
 * passed. The result's `complete` is false when f's was, or when a bound or the size cap
 * cut something. */
form_t *expand_form(expand_t *x, const form_t *f);

/* Simplifies a list of disjuncts in place: removes those subsumed by another. */
void expand_subsume(expand_t *x, form_t *f);

/* The formula of one atom (a term such as `terminal` or `(goal xplayer 100)`). */
form_t *form_atom(term_t atom);

#endif
