/* Optimising a raw ground network (graw.h) without changing what any interface node
 * computes. */
#ifndef ENGINE_GOPT_H
#define ENGINE_GOPT_H

#include "engine/graw.h"

/* Interface nodes are recognised by kind (inputs, constants) and by their atoms' predicates
 * (next, legal, goal, terminal, sees): they stay, each with its atom. factor: conjunctions
 * shared by many rules of a node become nodes of their own (gfactor.h). False when the
 * deadline (now_seconds(); 0: none) passed first, read between passes (a pass over
 * amazons' 1.7 million literals takes a tenth of a second; the whole, about one): w is
 * then not to be used. */
bool gopt_run(graw_t *w, const term_store_t *ts, bool factor, double deadline);

#endif
