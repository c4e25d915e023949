/* What a ground engine shows of itself, for code that works on its network and states
 * directly: the state layout (which bit of a state's words stands for which fluent), for
 * formulas evaluated on bitset states (regress/bitform.h, used by the MCTS hook in
 * mcts/lbs.c), read through the engine interface so that it holds whatever layout a
 * backend chooses, as long as one bit is one fluent; and the network itself, which the
 * GDL-II belief reasoner unrolls (player/bnet.h), so that a game is grounded once. */
#ifndef ENGINE_FLUENTS_H
#define ENGINE_FLUENTS_H

#include "engine/engine.h"
#include "engine/ground.h"

/* The fluent of each state bit (TERM_NONE: no fluent) into *out (the caller frees it);
 * returns the number of bits, 0 for an engine on term states (the interpreter). */
uint32_t engine_fluent_bits(engine_t *e, term_t **out);
/* The words of a bitset state (as many as engine_fluent_bits' bits / 64), NULL for a
 * term state. */
const uint64_t *engine_state_words(const eng_state_t *s);
/* The ground network e plays on (owned by e, shared by its clones), NULL for the
 * interpreter. */
const gnet_t *engine_network(const engine_t *e);

#endif
