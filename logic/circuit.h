/* Hash-consed Boolean circuits over numbered variables.
 *
 * A node is a constant, a variable (a number the caller chooses: a fluent id, a fluent
 * at a step of an unrolling, ...), a negation, or an n-ary and/or. Equal nodes are made
 * once (hash-consing), constants are folded, double negations cancel, and/or kids are
 * sorted and deduplicated, so that a node is PN_TRUE or PN_FALSE exactly when folding
 * decides it. Node numbers are stable for the circuit's life; a circuit only grows.
 * Consumers: the Z3 bridge (logic/z3.h), the bitset programs (regress/bitform.h), the
 * grounding of lifted formulas (regress/formground.h). */
#ifndef LOGIC_CIRCUIT_H
#define LOGIC_CIRCUIT_H

#include <stdbool.h>
#include <stdint.h>

typedef uint32_t pn_t;
#define PN_FALSE 0u
#define PN_TRUE 1u

typedef enum { PN_CONST, PN_VAR, PN_NOT, PN_AND, PN_OR } pn_op_t;

typedef struct circuit circuit_t;

circuit_t *circuit_new(void);
/* A circuit that refuses nodes past max_nodes (0: no limit) or past a time (now_seconds();
 * 0: none): building under a size bound and a clock. Once a node was refused
 * circuit_overflow says so, and what was built since must not be used. */
circuit_t *circuit_new_within(uint32_t max_nodes, double deadline);
void circuit_free(circuit_t *c);
uint32_t circuit_size(const circuit_t *c);
bool circuit_overflow(const circuit_t *c);
/* For a builder that does work besides making nodes (memoised bindings, say): false,
 * and the circuit overflowed, once `work` reached the node limit or the deadline passed
 * (looked at every 4096 calls); true while building may go on. */
bool circuit_within(circuit_t *c, uint64_t work);

pn_t pn_var(circuit_t *c, uint32_t var);
pn_t pn_not(circuit_t *c, pn_t a);
/* n-ary; kids are copied. */
pn_t pn_and(circuit_t *c, const pn_t *kids, uint32_t n);
pn_t pn_or(circuit_t *c, const pn_t *kids, uint32_t n);

pn_op_t pn_op(const circuit_t *c, pn_t n);
uint32_t pn_arity(const circuit_t *c, pn_t n);
pn_t pn_kid(const circuit_t *c, pn_t n, uint32_t i);
uint32_t pn_varnum(const circuit_t *c, pn_t n); /* PN_VAR: its variable */
/* The value of n when variable v has truth[v] (every variable of n must be covered). */
bool pn_eval(const circuit_t *c, pn_t n, const uint8_t *truth);

#endif
