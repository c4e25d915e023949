/* Optimising a raw ground network (graw.h) without changing what any interface node
 * computes. */
#ifndef ENGINE_GOPT_H
#define ENGINE_GOPT_H

#include "engine/graw.h"

/* Interface nodes are recognised by kind (inputs, constants) and by their atoms' predicates
 * (next, legal, goal, terminal, sees): they stay, each with its atom. factor: conjunctions
 * shared by many rules of a node become nodes of their own (gfactor.h). */
void gopt_run(graw_t *w, const term_store_t *ts, bool factor);

#endif
