/* A second agent for a match whose first one plays on the interpreter only because the
 * start clock cut grounding short (agent_cut_short): loaded from the same START on a thread
 * of its own and prepared without that clock (agent_prepare), so that the service can
 * replay the match into it and play the rest on the ground network or compiled code.
 *
 * Its thread owns everything it touches: its own game and term store (agent_load), nothing
 * of the first agent's. Grounding cannot be interrupted: a second agent no longer wanted is
 * freed once its thread ends (second_free waits for it; second_done says whether it would). */
#ifndef SERVER_SECOND_H
#define SERVER_SECOND_H

#include "player/agent.h"

typedef struct second second_t;

/* Starts loading and preparing the agent of a START (texts copied); on_done(ctx) is called
 * from its thread once it is done, and must not block. NULL when no thread can be started. */
second_t *second_start(const char *rules, const char *raw, size_t raw_len, const char *role,
                       const agent_config_t *cfg, void (*on_done)(void *ctx), void *ctx);
/* Whether its thread is done (second_take and second_free then do not wait). */
bool second_done(second_t *b);
/* Waits for its thread; the agent, now the caller's, when it loaded and its engine is no
 * longer the interpreter, else NULL with the reason in why. */
agent_t *second_take(second_t *b, strbuf_t *why);
/* Seconds from second_start to the end of its preparation (once done). */
double second_seconds(const second_t *b);
/* Waits for its thread and frees it with the agent it made unless taken. */
void second_free(second_t *b);

#endif
