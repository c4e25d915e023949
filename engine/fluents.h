/* The state layout of the grounded engines, for code that evaluates formulas directly on
 * bitset states (regress/bitform.h, used by the MCTS hook in mcts/lbs.c): which bit of a
 * state's words stands for which fluent. Read through the engine interface only, so it
 * holds whatever layout a backend chooses, as long as one bit is one fluent. */
#ifndef ENGINE_FLUENTS_H
#define ENGINE_FLUENTS_H

#include "engine/engine.h"

/* The fluent of each state bit (TERM_NONE: no fluent) into *out (the caller frees it);
 * returns the number of bits, 0 for an engine on term states (the interpreter). */
uint32_t engine_fluent_bits(engine_t *e, term_t **out);
/* The words of a bitset state (as many as engine_fluent_bits' bits / 64), NULL for a
 * term state. */
const uint64_t *engine_state_words(const eng_state_t *s);

#endif
