/* Instantiating a network's rules readers first, so that an instance whose head no rule
 * reads need not be made.
 *
 * The optimiser removes every node that no interface node reads; most of such nodes' rules
 * (chess's threat relations, read only for some squares) can be known unread before they
 * are made, when every rule that could read a relation has been instantiated before it: the
 * relations ordered by the network's own dependency graph (rules of the network only, no
 * transfers: there `true` and `does` are inputs and the state component is no cycle),
 * readers first. A relation on a cycle of that graph, an interface relation, a query
 * boundary and the auxiliary relations a split made (their readers follow them) are never
 * pruned. */
#ifndef ENGINE_GREADERS_H
#define ENGINE_GREADERS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/gatoms.h"
#include "engine/gprog.h"

/* todo holds the network's rules in groups (group g: todo[groups[g] .. groups[g + 1]), the
 * rules that stand for one game rule, auxiliary ones first), the game rule's predicate
 * heads[g]. Reorders the groups readers first (the rules in a group keep their order) and
 * returns per predicate whether an instance of it whose head no instance made before reads
 * may be left out (the caller's to free). keep: predicates never left out (NULL: none;
 * n_keep of them). Predicates from n_game on are auxiliary. */
bool *greaders_order(const gprog_t *P, uint32_t n_game, gids_t *todo, gids_t *groups,
                     const uint32_t *heads, const bool *keep, uint32_t n_keep);

/* A relation W of the atoms of pred that are read (read[a] set, a < n_read): the "wanted"
 * heads, static, as an auxiliary relation of pred's arity; UINT32_MAX when every atom is
 * read (nothing to gain) or pred has no arguments. */
uint32_t greaders_wanted(gprog_t *P, gatoms_t *A, uint32_t pred, const uint8_t *read,
                         size_t n_read);

/* Rule r with a first literal W(its head's arguments): its instances only those of wanted
 * heads, which the join may read first rather than test last (chess's threat relations:
 * the squares read, not every square). Returns the new rule. */
uint32_t greaders_rule(gprog_t *P, uint32_t r, uint32_t wanted);

#endif
