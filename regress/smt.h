/* The Z3 bridge: the only file that sees the solver.
 *
 * One Boolean constant per fluent of the vocabulary, made once. A formula (a grounded
 * circuit, see ground.h) is asserted once, as clauses (Tseitin: one fresh variable per
 * and/or node), guarded by a fresh selector s: s => F. A state
 * is then handed over as assumptions (every fluent true or false, and s), so that Z3
 * answers "sat" exactly when the state satisfies F; learned clauses survive between
 * states (no push/pop). The same solver answers plain satisfiability of asserted
 * formulas with free fluents (the mutex proofs). Z3 errors are fatal (an error handler
 * installed with the context). */
#ifndef REGRESS_SMT_H
#define REGRESS_SMT_H

#include "ground.h"

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
/* smt_holds, but answering -1 (unknown) when Z3 needs more than `seconds` (its own
 * timer): for callers with a clock. */
int smt_holds_within(smt_t *s, uint32_t h, const state_t *st, double seconds);
/* Satisfiability of the conjunction of formulas hs (fluents free): 1 sat, 0 unsat,
 * -1 unknown. Conjunctions of several formulas need a prove-mode bridge. */
int smt_sat(smt_t *s, const uint32_t *hs, uint32_t n);
/* The solver's version string. */
const char *smt_version(void);

#endif
