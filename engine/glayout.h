/* Laying a raw ground network out as a gnet_t (ground.h): derived nodes in blocks in
 * dependency order (Tarjan's components; a component of several nodes, or one reading
 * itself, is a cyclic block), play blocks first, then those only goals need, then those that
 * read moves; the interface (fluents, moves, goals, percepts, terminal, the initial state)
 * read off the nodes' atoms; nodes renumbered as ground.h lays them out. */
#ifndef ENGINE_GLAYOUT_H
#define ENGINE_GLAYOUT_H

#include "engine/graw.h"
#include "engine/ground.h"

/* init: the initial fluents' (true f) atoms. Every node that is an interface atom (next,
 * legal, goal, sees, terminal) must be the only node with that atom. */
gnet_t *glayout_net(const graw_t *w, const game_t *g, const term_t *init, uint32_t n_init);

#endif
