/* Implications between state atoms proven inductive on decision diagrams: a care set for
 * symbolic search (an over-approximation of the reachable states).
 *
 * An atom is a diagram over the state variables ("this cell holds a piece"), with its
 * value in the initial state and its value at the successor (a diagram over the state and
 * the move codes). A candidate "a implies b" stands when it holds initially; the standing
 * candidates are then checked together (Houdini: each one must hold after every legal joint
 * move from a state of the context where all of them hold), the broken ones dropped, until
 * none breaks. What stands is inductive: it holds in every state reachable from the initial
 * one. In connect four it is gravity ("a piece at row y+1 has a piece under it"), which the
 * rules do not say and without which a drop lands in every gap of a column at once. */
#ifndef REGRESS_BDDINV_H
#define REGRESS_BDDINV_H

#include <stdbool.h>
#include <stdint.h>

#include "logic/bdd.h"

typedef struct {
    dd_ref now;  /* over the state variables */
    dd_ref next; /* at the successor: over the state and the move codes */
    bool init;   /* its value in the initial state */
} bddinv_atom_t;

/* The conjunction of the implications between the n atoms that are inductive within ctx
 * (the states considered with their legal joint moves: a relation over the state and the
 * move codes, itself inductive, e.g. valid codes ∧ every role's move legal), referenced for
 * the caller; DD_TRUE when none stands, DD_NONE past the manager's limits (nothing proven).
 * *kept: the implications kept. */
dd_ref bddinv_implications(dd_t *d, const bddinv_atom_t *atoms, uint32_t n, dd_ref ctx,
                           uint32_t *kept);

#endif
