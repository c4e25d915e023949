/* Wildcard arguments: an argument position that rules pass through unchanged, holding "any
 * value of a type" where it comes from, except at the few values where some rule pins it,
 * is grounded over one constant standing for "any other value" plus the pinned values.
 *
 * Chess's threat relations carry a square to ignore, (clear_row_ig ?u ?y ?x ?y ?ix ?iy):
 * the base cases put any coordinate there, the recursive cases pass it on, one rule pins it
 * (the square next to ?u is the one ignored); grounded as it is, every threat exists once
 * per square ignored. Here a position is a wildcard when, in every rule of its relation,
 * it holds a variable that is (a) typed only (a unary fact table, the same one in every
 * such rule), or (b) passed from a wildcard position of one positive literal and read
 * nowhere else, or (c) pinned: bound by a literal that is not a wildcard there (a value of
 * its own). Then for a value c of the type, R(.. c ..) holds exactly when R(.. c ..) is
 * derived with c pinned or R(.. * ..) is derived, * a constant no game can write that
 * satisfies the type and equals nothing else: (a) rules put *, (b) rules pass * on, and a
 * rule reading a wildcard position with a value of its own reads both atoms: a positive
 * literal in two copies of the rule (the * one with the type as a filter), a negated one as
 * two negated literals (the * one only where the value is of the type: the rule is copied
 * per type test). The interface relations and static ones keep their positions.
 *
 * Relations with wildcard positions are marked (gp_pred_t.wild): their atoms are not the
 * game's, so that hybrid grounding never leaves them to the rules evaluator. */
#ifndef ENGINE_GANY_H
#define ENGINE_GANY_H

#include "engine/gprog.h"

/* Rewrites p's rules (before the transfers are added); returns how many positions became
 * wildcards. GGP_GROUND_ANY=0 in the environment: none. */
uint32_t gany_rewrite(gprog_t *p);

#endif
