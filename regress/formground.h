/* Grounding lifted formulas on the game's fluents: a propositional circuit.
 *
 * The vocabulary is the set of ground fluents a state can hold: the game's `base`
 * relation when it has one (checked against sampled states), else the fluents seen in
 * sampled matches (then marked unproven). A lifted formula is grounded by enumerating,
 * scope by scope, the bindings of its positive `true` literals against the vocabulary;
 * each binding gives a conjunction of fluent variables and negated sub-circuits, the
 * scope their disjunction. Fluents outside the vocabulary are never true. The circuit is
 * hash-consed (equal subcircuits share one node) with constants folded. The Z3 bridge
 * (smt.c) turns circuits into solver terms; this file knows nothing of Z3. */
#ifndef REGRESS_GROUND_H
#define REGRESS_GROUND_H

#include "base/clock.h"
#include "engine/reason.h"
#include "regress/form.h"

/* ---- the vocabulary ---- */
typedef struct vocab vocab_t;

/* From base (if defined and consistent with `playouts` sampled matches) or the sampled
 * fluents. */
vocab_t *vocab_new(game_t *g, reasoner_t *r, uint32_t playouts, uint64_t seed);
/* The same, sampling no longer than `deadline` (now_seconds() time; 0: none); a vocabulary
 * whose sample was cut short is not proven. */
vocab_t *vocab_new_within(game_t *g, reasoner_t *r, uint32_t playouts, uint64_t seed,
                          double deadline);
/* A given set of fluents (TERM_NONE entries and repeats skipped; indices in order of
 * first occurrence), proven: a grounded engine's fluent table, outside which no state it
 * represents has a fluent. */
vocab_t *vocab_from_terms(const term_store_t *ts, const term_t *fluents, uint32_t n);
void vocab_free(vocab_t *v);
uint32_t vocab_count(const vocab_t *v);
term_t vocab_fluent(const vocab_t *v, uint32_t i);
/* Index of a ground fluent, or UINT32_MAX. */
uint32_t vocab_index(const vocab_t *v, term_t fluent);
/* True when the vocabulary is known to cover every reachable state (from base). */
bool vocab_proven(const vocab_t *v);
/* The fluents of one functor (sym/arity) as indices; *out owned by v. */
uint32_t vocab_functor(const vocab_t *v, sym_t sym, uint32_t arity, const uint32_t **out);

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
