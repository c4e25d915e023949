/* Factoring a raw ground network (graw.h): a conjunction of literals that many rules of one
 * node share is taken out once, and what the rules hold besides it becomes a node of its
 * own. Chess grounds "a move is legal" once per square of its king: 64 rules a move that
 * repeat the move's five literals, each with the king's square and a threat; factored,
 * the move's rule holds the five once and reads a node per (player, square left) that is
 * an OR over the king's squares, the same node for every move from that square (equal
 * nodes are merged by the optimiser, gopt.h). */
#ifndef ENGINE_GFACTOR_H
#define ENGINE_GFACTOR_H

#include "engine/graw.h"

/* Rewrites w's rules, each of whose literals must be sorted (as the optimiser's rewrite
 * leaves them, gopt.c, the step before): in each derived node, while some literal's rules share a
 * conjunction C whose removal saves at least GFACTOR_MIN_GAIN literals, those rules become one rule
 * C and Y, Y a new derived node (no atom) whose rules are theirs without C; new nodes are
 * factored too. What every node computes stays the same. Returns the number of nodes made
 * (appended after w's). */
uint32_t gfactor_run(graw_t *w);

/* The least number of literals a factoring must save: below it a new node costs more in
 * evaluation (a level, a count) than the literals it saves. */
#define GFACTOR_MIN_GAIN 16

#endif
