/* Which families of fluents select another family's cells, read off the game's rules: a
 * static hint for the variable order of the decision diagrams (bddnet.h).
 *
 * A family is a fluent's functor and arity; its cells are the fluents that differ in the
 * last argument only (their values), and its other arguments index them. Family A selects
 * family B when a rule reads (true (A ... ?v)) and, in the same body, ?v as an index
 * argument of B: directly, (true (B ?v ...)), or through a relation whose argument is
 * joined with one, (hasCode ?v) defined by (true (line ?v ?i)). A program counter
 * (pc ?n) and the program's lines (line ?n ?i): "the line pc points at holds incr". With
 * A's variables below B's, a diagram of such a read remembers every cell of B until it
 * meets A's value; with A's above, it is one path per value of A (urmAdd's first network
 * built in 0.6 s instead of not within 10 s, docs/bdd.md). */
#ifndef REGRESS_BDDORDER_H
#define REGRESS_BDDORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "gdl/rules.h"

typedef struct {
    sym_t sym;
    uint32_t arity;
} bddfam_t;

typedef struct {
    bddfam_t above, below; /* above selects below's cells */
} bddsel_t;

/* The pairs (above, below), each once, A ≠ B; *out is the caller's to free (NULL when
 * none). */
uint32_t bddorder_selectors(const game_t *g, bddsel_t **out);

/* A permutation of n families, given in their order by name: each family that selects
 * others is moved up to just above the highest of them (transitively), the rest keep their
 * order; selections on a cycle are left out (its families by name). perm[i] is the
 * family at place i. Returns whether it differs from the order by name. */
bool bddorder_place(const bddfam_t *fams, uint32_t n, const bddsel_t *sel, uint32_t n_sel,
                    uint32_t *perm);

#endif
