/* Grounding lifted formulas on the game's fluents: a propositional circuit.
 *
 * The fluents are a vocabulary (vocab.h: the engine's fluents, or on the interpreter the
 * game's `base` or sampled fluents). A lifted formula is grounded by enumerating,
 * scope by scope, the bindings of its positive `true` literals against the vocabulary;
 * each binding gives a conjunction of fluent variables and negated sub-circuits, the
 * scope their disjunction. Fluents outside the vocabulary are never true. The circuit
 * (logic/circuit.h) has one variable per fluent, numbered by the vocabulary's index. */
#ifndef REGRESS_FORMGROUND_H
#define REGRESS_FORMGROUND_H

#include "base/clock.h"
#include "logic/circuit.h"
#include "regress/form.h"
#include "regress/vocab.h"

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
