/* Grounded formulas decided on states by Z3 (through the bridge, logic/z3.h).
 *
 * One Boolean per fluent of the vocabulary (its index as the variable number). A formula
 * (a circuit, formground.h) is asserted once, as clauses under a fresh selector s: s => F.
 * A state is then handed over as assumptions (every fluent true or false, and s), so that
 * Z3 answers "sat" exactly when the state satisfies F; learned clauses survive between
 * states (no push/pop). The same solver answers plain satisfiability of asserted formulas
 * with free fluents (the mutex proofs). A second way to decide a state, several times
 * faster on per-state checks: the formula as a plain term, evaluated by Z3's model
 * evaluator in the state as a model (formcheck_terms, formcheck_eval; the MCTS hook's
 * confirmation). A Z3 error answers unknown (-1) from then on (the bridge's policy). */
#ifndef REGRESS_FORMCHECK_H
#define REGRESS_FORMCHECK_H

#include "regress/formground.h"

typedef struct formcheck formcheck_t;

/* prove: one solver for hard satisfiability queries over several formulas (Z3's SAT
 * engine); otherwise tuned for many per-state checks (one incremental solver per
 * formula, in one context). */
formcheck_t *formcheck_new(const vocab_t *v, bool prove);
void formcheck_free(formcheck_t *f);

/* Asserts sel => root; returns the handle of sel. */
uint32_t formcheck_assert(formcheck_t *f, const circuit_t *c, pn_t root);
/* 1 when the state satisfies formula h, 0 when not, -1 when unknown (a fact outside the
 * vocabulary, or an error). Every fluent is assumed, so propagation decides: no clock. */
int formcheck_holds(formcheck_t *f, uint32_t h, const state_t *st);
/* Formulas for Z3's model evaluator: roots[0..n) of c become plain terms (no solver,
 * no Tseitin variables; shared subcircuits are built once); returns the handle of the
 * first, the others follow in order. Handles are their own numbering, not
 * formcheck_assert's. */
uint32_t formcheck_terms(formcheck_t *f, const circuit_t *c, const pn_t *roots, uint32_t n);
/* The answer formcheck_holds would give, by evaluation instead of solving: the state
 * becomes a model (every fluent of the vocabulary true or false) and Z3 evaluates term t
 * in it, in time linear in the term's size (no search, so no clock). 1 / 0, or -1 (a fact
 * outside the vocabulary, or an error). */
int formcheck_eval(formcheck_t *f, uint32_t t, const state_t *st);
/* The same on a bitset state of the vocabulary's engine (its words: vocab_bits says which
 * bit each fluent is), touching no term store; -1 on a vocabulary without bits. */
int formcheck_eval_bits(formcheck_t *f, uint32_t t, const uint64_t *words);
/* Satisfiability of the conjunction of formulas hs (fluents free): 1 sat, 0 unsat, -1
 * unknown (past deadline, now_seconds() time, 0: none). Conjunctions of several formulas
 * need a prove-mode checker. */
int formcheck_sat(formcheck_t *f, const uint32_t *hs, uint32_t n, double deadline);

#endif
