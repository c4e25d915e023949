/* Score counters: fluents that hold a role's score as a number, one of them per role at a
 * time (dotsAndBoxes' box_count(xplayer, 3), score(white, 12), points(R, N)), read off
 * the engine's fluents and the game's static facts.
 *
 * A counter kind is a functor with a role's name at one argument and a number-like
 * constant at another, of which exactly one fluent per role holds in the initial state and
 * every role has at least two (values it can take). A constant is number-like when it is
 * written as a decimal number or lies on a successor relation of the rules: a static
 * relation of two arguments whose facts form one chain (succ(0, 1), succ(1, 2), ...); its
 * value is the number, else its place on the chain. Whether a counter matters (changes,
 * predicts the outcome) is for the caller to check (heur_counter). */
#ifndef MCTS_COUNTER_H
#define MCTS_COUNTER_H

#include <stdint.h>

#include "engine/engine.h"
#include "gdl/term.h"

typedef struct counter counter_t;

/* The counter kinds of e's game, at most max, into out[] (the caller frees each with
 * counter_free); returns how many. None on an engine without bit states. */
uint32_t counters_find(engine_t *e, const eng_state_t *s0, counter_t **out, uint32_t max);
void counter_free(counter_t *c);

/* Role r's value in the state of words w (engine_state_words); the lowest value of the
 * kind where none of r's fluents holds. A few bit tests: cheap enough for every backup. */
double counter_value(const counter_t *c, uint32_t r, const uint64_t *w);
/* The largest value of the kind minus the smallest (> 0). */
double counter_range(const counter_t *c);
/* The kind's functor and argument positions (1..): the role's, the number's. */
sym_t counter_functor(const counter_t *c, uint32_t *role_arg, uint32_t *num_arg);

#endif
