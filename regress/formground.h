/* Grounding lifted formulas on the game's fluents: a propositional circuit.
 *
 * The fluents are a vocabulary (vocab.h: the engine's fluents, or on the interpreter the
 * game's `base` or sampled fluents). A lifted formula is grounded by enumerating,
 * scope by scope, the bindings of its positive `true` literals against the vocabulary;
 * each binding gives a conjunction of fluent variables and negated sub-circuits, the
 * scope their disjunction. Fluents outside the vocabulary are never true. The circuit is
 * hash-consed (equal subcircuits share one node) with constants folded. The Z3 bridge
 * (smt.c) turns circuits into solver terms; this file knows nothing of Z3. */
#ifndef REGRESS_FORMGROUND_H
#define REGRESS_FORMGROUND_H

#include "base/clock.h"
#include "regress/form.h"
#include "regress/vocab.h"

/* ---- circuits ---- */
typedef uint32_t pn_t;
#define PN_FALSE 0u
#define PN_TRUE 1u

typedef enum { PN_CONST, PN_VAR, PN_NOT, PN_AND, PN_OR } pn_op_t;

typedef struct circuit circuit_t;

circuit_t *circuit_new(void);
void circuit_free(circuit_t *c);
uint32_t circuit_size(const circuit_t *c);
/* Refuses nodes past `nodes` (0: no limit), and grounding past as many memoised scope
 * bindings: a nested formula's grounding can grow exponentially. Once a node was refused
 * circuit_overflow says so and what was built must not be used. */
void circuit_set_limit(circuit_t *c, uint32_t nodes);
/* The same past a time (now_seconds; 0: none): grounding under a clock. */
void circuit_set_deadline(circuit_t *c, double deadline);
bool circuit_overflow(const circuit_t *c);
pn_t pn_var(circuit_t *c, uint32_t fluent);
pn_t pn_not(circuit_t *c, pn_t a);
/* n-ary; kids are copied. */
pn_t pn_and(circuit_t *c, const pn_t *kids, uint32_t n);
pn_t pn_or(circuit_t *c, const pn_t *kids, uint32_t n);
pn_op_t pn_op(const circuit_t *c, pn_t n);
uint32_t pn_arity(const circuit_t *c, pn_t n);
pn_t pn_kid(const circuit_t *c, pn_t n, uint32_t i);
uint32_t pn_fluent(const circuit_t *c, pn_t n); /* PN_VAR */
/* Evaluates on a truth assignment over the vocabulary (for tests). */
bool pn_eval(const circuit_t *c, pn_t n, const uint8_t *truth);

/* ---- grounding ---- */
/* The circuit of an expanded formula (true, not true, distinct, =, negated scopes); the
 * formula's `complete` flag is irrelevant here. Returns PN_FALSE for an empty formula. */
pn_t ground_form(circuit_t *c, const vocab_t *v, term_store_t *ts, const form_t *f);
/* out[i] := the circuit of disjunct i with the common conjunct, for each of f's n
 * disjuncts: each implies the formula, so a state one of them holds in satisfies it. */
void ground_disjuncts(circuit_t *c, const vocab_t *v, term_store_t *ts, const form_t *f, pn_t *out);
/* ds[i] := the circuit of disjunct i alone, *common := that of the common conjunct (PN_TRUE
 * when there is none), in one grounding: a caller that tests the common conjunct once
 * for several formulas (the MCTS hook's guards). */
void ground_split(circuit_t *c, const vocab_t *v, term_store_t *ts, const form_t *f, pn_t *ds,
                  pn_t *common);

#endif
