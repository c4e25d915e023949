/* The CaDiCaL bridge: the only file of the project that includes ccadical.h
 * (scripts/check_layers.sh fails the `layers` test otherwise).
 *
 * A second opinion on a Z3 answer. A player that acts on a proof (an accusation in the
 * killer game, a move proved to win) has its incremental Z3 solver's "unsatisfiable"
 * confirmed by an independent solver before it acts: Z3 4.8.12's incremental solver once
 * in about 100 killer matches called a consistent history inconsistent (docs/killer.md).
 * The record holds what the caller asserted into Z3, as circuit nodes (logic/circuit.h);
 * the first check makes a CaDiCaL solver and every check gives it the clauses of what was
 * recorded since the last one (Tseitin: one variable per and/or node, each node once), the
 * query's nodes as assumptions. A confirmation shares no learned clause and no code with
 * the solver it confirms; CaDiCaL is kept between checks (a new one paid its memory's
 * first touch each time: 47 ms of CPU for a 0.8 ms solve on killer_small). */
#ifndef LOGIC_SAT_H
#define LOGIC_SAT_H

#include "logic/circuit.h"

typedef struct sat_record sat_record_t;

/* A record over circuit c (which must outlive it). */
sat_record_t *sat_record_new(const circuit_t *c);
void sat_record_free(sat_record_t *r);
/* Node n holds. */
void sat_record_assert(sat_record_t *r, pn_t n);
/* Nodes a and b are equivalent. */
void sat_record_iff(sat_record_t *r, pn_t a, pn_t b);
/* At most one of nodes[0..n), and at least one when guard holds (z3_assert_one). */
void sat_record_one(sat_record_t *r, pn_t guard, const pn_t *nodes, uint32_t n);

/* Gives the solver what was recorded since the last check, entry by entry until the
 * deadline (now_seconds() time; 0: none): the next check's encoding, done ahead (on a turn
 * with time to spare). True when it has it all; a check encodes the rest first. */
bool sat_record_sync(sat_record_t *r, double deadline);

/* The record and assume[0..n) decided by CaDiCaL: 1 satisfiable, 0 not, -1 past the
 * deadline (now_seconds() time; 0: none). */
int sat_check(sat_record_t *r, const pn_t *assume, uint32_t n, double deadline);
/* The value of node n in the model of the last check, which must have answered 1: 1 or 0;
 * -1 when there is no model or n is not in the clauses sent (a model of the record is a
 * consistent history: reading it costs a lookup per node, where a Z3 model of a long
 * unrolling took up to seconds to build). */
int sat_value(const sat_record_t *r, pn_t n);

/* 1 / 0 when node n is implied true / false by the record alone, at CaDiCaL's root level
 * after its last check (what was asserted and what unit propagation and learned units
 * derive from it: on the killer game, that a wrong accuser is eliminated once the game
 * goes on); a node not in the clauses sent, or not fixed, is evaluated from its kids
 * (and: false when one is, true when all are; or: the dual); else -1. Lookups: no search.
 * Sound unless the record is inconsistent (the caller's last check must have found it
 * satisfiable: then a root-level implication holds in every model). */
int sat_fixed(const sat_record_t *r, pn_t n);

#endif
