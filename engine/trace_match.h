/* One canonical match trace (../shared/spec/trace-format.md) played on an engine. */
#ifndef ENGINE_TRACE_MATCH_H
#define ENGINE_TRACE_MATCH_H

#include <stdio.h>

#include "engine/engine.h"
#include "gdl/trace.h"

/* Plays one match from the initial state, printing its trace to out under the game name
 * `name`. Returns 0 on success; on an error (illegal or malformed move, a role without
 * legal moves, too many steps) prints a located message to err and returns non-zero. */
int trace_match(engine_t *e, const char *name, trace_moves_t *mv, uint32_t max_steps, FILE *out,
                FILE *err);

#endif
