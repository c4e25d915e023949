/* The Z3 bridge: the only file that sees the solver.
 *
 * One Boolean constant per fluent of the vocabulary, made once. A formula (a grounded
 * circuit, see ground.h) is asserted once, as clauses (Tseitin: one fresh variable per
 * and/or node), guarded by a fresh selector s: s => F. A state
 * is then handed over as assumptions (every fluent true or false, and s), so that Z3
 * answers "sat" exactly when the state satisfies F; learned clauses survive between
 * states (no push/pop). The same solver answers plain satisfiability of asserted
 * formulas with free fluents (the mutex proofs). A second way to decide a state, several
 * times faster on per-state checks: the formula as a plain term, evaluated by Z3's model
 * evaluator in the state as a model (smt_terms, smt_eval; the MCTS hook's confirmation).
 * Z3 errors are fatal (an error handler installed with the context). */
#ifndef REGRESS_SMT_H
#define REGRESS_SMT_H

#include "regress/formground.h"

typedef struct smt smt_t;

/* prove: one solver for hard satisfiability queries over several formulas (Z3's SAT
 * engine); otherwise tuned for many per-state checks (one incremental solver per
 * formula, in one context). */
smt_t *smt_new(const vocab_t *v, bool prove);
void smt_free(smt_t *s);

/* Asserts sel => root; returns the handle of sel. */
uint32_t smt_assert(smt_t *s, const circuit_t *c, pn_t root);
/* 1 when the state satisfies formula h, 0 when not, -1 when unknown (a fact outside the
 * vocabulary, or the solver gave up). */
int smt_holds(smt_t *s, uint32_t h, const state_t *st);
/* Formulas for Z3's model evaluator: roots[0..n) of c become plain terms (no solver,
 * no Tseitin variables; shared subcircuits are built once); returns the handle of the
 * first, the others follow in order. Handles are their own numbering, not smt_assert's. */
uint32_t smt_terms(smt_t *s, const circuit_t *c, const pn_t *roots, uint32_t n);
/* The answer smt_holds would give, by evaluation instead of solving: the state becomes a
 * model (every fluent of the vocabulary true or false) and Z3 evaluates term t in it, in
 * time linear in the term's size (no search, so no timer is needed). 1 / 0, or -1 (a
 * fact outside the vocabulary). */
int smt_eval(smt_t *s, uint32_t t, const state_t *st);
/* Satisfiability of the conjunction of formulas hs (fluents free): 1 sat, 0 unsat,
 * -1 unknown. Conjunctions of several formulas need a prove-mode bridge. */
int smt_sat(smt_t *s, const uint32_t *hs, uint32_t n);
/* The solver's version string. */
const char *smt_version(void);

#endif
