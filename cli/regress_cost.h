/* ggp regress --cost: what checking the formulas costs per rollout step (see the help). */
#ifndef CLI_REGRESS_COST_H
#define CLI_REGRESS_COST_H

#include "engine.h"
#include "regress.h"

/* Plays `playouts` seeded random matches on an engine of kind `kind` (ground or compiled)
 * and prints, per formula of rg, its mean cost on their states by the lifted matcher and
 * on bitsets, against one rollout step; then how many formulas fit in `share` of a step;
 * then the MCTS hook end to end (mcts/lbs.h, made for `role` within `budget` seconds) on
 * bitsets and on terms. Returns an exit code: 0, 3 when the game has no ground engine, 4
 * on a disagreement. */
int regress_cost(game_t *g, reasoner_t *r, uint32_t role, double budget, regress_t *rg,
                 engine_kind_t kind, uint32_t playouts, double share);

#endif
