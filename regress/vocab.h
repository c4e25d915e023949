/* The vocabulary of backward search: the ground fluents a state can hold, numbered, on
 * which lifted formulas are grounded (formground.h), Z3 makes its constants (formcheck.h) and
 * bitset formulas read states (bitform.h). It is taken from the engine:
 *
 *   - a ground or compiled engine: the engine's own fluent table, in its order (fluent i
 *     of the vocabulary is the one of state bit vocab_bit(v, i)); proven: no state the
 *     engine represents holds another fluent (grounding over-approximates reachability);
 *   - the interpreter, which grounds nothing (a game too big to ground): the game's
 *     `base` relation when it has one and sampled random matches agree with it (proven),
 *     else the fluents seen in those matches, marked unproven (a reachable state may hold
 *     a fluent outside it: what is built on it is then sound only on the states seen). */
#ifndef REGRESS_VOCAB_H
#define REGRESS_VOCAB_H

#include "engine/engine.h"

typedef struct vocab vocab_t;

/* The fluents of e (see above). On the interpreter, `playouts` random matches (seeded)
 * are sampled through the engine, until `deadline` (now_seconds() time; 0: none): a
 * vocabulary whose sample was cut short is not proven. */
vocab_t *vocab_from_engine(engine_t *e, uint32_t playouts, uint64_t seed, double deadline);
void vocab_free(vocab_t *v);
uint32_t vocab_count(const vocab_t *v);
term_t vocab_fluent(const vocab_t *v, uint32_t i);
/* Index of a ground fluent, or UINT32_MAX. */
uint32_t vocab_index(const vocab_t *v, term_t fluent);
/* True when the vocabulary is known to cover every reachable state. */
bool vocab_proven(const vocab_t *v);
/* The fluents of one functor (sym/arity) as indices; *out owned by v. */
uint32_t vocab_functor(const vocab_t *v, sym_t sym, uint32_t arity, const uint32_t **out);
/* The state bit of each fluent of an engine's vocabulary (vocab_count of them), NULL for
 * a vocabulary of the interpreter (term states have no bits). */
const uint32_t *vocab_bits(const vocab_t *v);

#endif
