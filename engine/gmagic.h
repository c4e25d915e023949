/* Demand: relations computed only for the argument values the rules that read them can ask
 * about (the magic-set transformation, with one binding pattern per relation).
 *
 * A relation that is not part of the interface (next, legal, goal, terminal, sees, init)
 * and that every rule reading it reads with some argument positions bound (by constants or
 * by variables that literals before it bind) gets a demand relation over those positions:
 * each rule that reads it says, through a demand rule, which values it asks for (the
 * positive literals before the reading one, in an order that binds the most first, and the
 * reading rule's own demand); the relation's own rules then read their demand first. Two
 * uses in the corpus: helper tables over all values of a type when only a few are ever
 * asked about (`count` in chinese checkers), and static tables built from a counter's
 * range when only board coordinates are read.
 *
 * Demand costs a relation's readers: they are joined once more to say what they ask for. The
 * grounder asks for it only for the relations that grew out of bounds without it.
 *
 * Static relations read under negation, and all they depend on, are computed in full:
 * negation of a static relation is evaluated exactly, stratum by stratum, and demand that
 * depends on the state would break the strata. Demand relations are marked static: the
 * instantiation reads them as filters, never as literals of the network. */
#ifndef ENGINE_GMAGIC_H
#define ENGINE_GMAGIC_H

#include "engine/gprog.h"

/* Rewrites P in place, restricting the relations marked in targets (per predicate; NULL:
 * all) and those that read them; returns the number of relations restricted, and marks them
 * in restricted (per predicate of P before the rewrite; NULL: not asked). */
uint32_t gmagic_apply(gprog_t *P, const bool *targets, bool *restricted);

#endif
