/* The player service: answers protocol messages for one match at a time.
 *
 * Threading. All reasoning (parsing the game into terms, engine calls, the player's
 * search) happens in one worker thread per service, because the term store is not
 * thread-safe. Any number of request threads call service_answer: INFO, PREVIEW, a START
 * while a match runs (busy), an unknown match id (busy), STOP and ABORT are answered at
 * once from the shared match record; START and PLAY become jobs for the worker, and the
 * request thread waits for the job until its deadline, the message's clock minus a safety
 * margin. If the worker has not finished by then, the answer is the best known so far:
 * `ready` for START, and for PLAY the last move the player offered in this turn (every
 * offer is legal in the turn's state: the agent computes the state and our legal moves
 * before the player searches), else on the first PLAY the first legal move of the initial
 * state, else a guess (agent_ponder's, or a move of the rules), logged as not proven. After
 * each answer the worker prepares the next turn (agent_ponder) unless a message waits. A
 * match the start clock left on the interpreter (agent_cut_short) gets a second agent,
 * loaded and ground on a thread of its own with its own term store (second.h); the worker
 * replays the match into it and plays on it from then on (between two turns). The
 * margin is measured: how long past a deadline replies finish being sent (reported by the
 * HTTP layer), doubled, plus a fixed base. */
#ifndef SERVER_SERVICE_H
#define SERVER_SERVICE_H

#include "base/clock.h"
#include "player/player.h"
#include "server/protocol.h"

typedef struct {
    const char *name;          /* our name in INFO */
    const player_kind_t *kind; /* the player of every match */
    uint64_t seed;
    bool verbose;            /* per-turn statistics in the log */
    unsigned think_delay_ms; /* testing aid: the worker sleeps this long before each move */
} service_config_t;

typedef struct service service_t;

service_t *service_new(const service_config_t *cfg);
/* Stops the worker and frees the service; when the worker is inside a job (an engine
 * call cannot be interrupted) it returns at once and the worker frees it as the job ends. */
void service_free(service_t *s);
/* Blocks until every message sent so far has been handled and the worker is idle (STOP
 * and ABORT are answered before their clean-up runs): then service_free frees all. */
void service_wait_idle(service_t *s);

/* Answers msg, received at time t0 (now_seconds()), into reply; blocks until the answer
 * is ready or due. raw is the request body (START takes symbol spellings from it). msg is
 * consumed (left empty). *deadline receives the deadline used (0 for an immediate answer).
 * Safe from any thread. */
void service_answer(service_t *s, proto_msg_t *msg, const char *raw, size_t raw_len, double t0,
                    strbuf_t *reply, double *deadline);
/* The kind of engine the current match is played on (ENGINE_INTERP when none): a match the
 * start clock left on the interpreter moves to the ground network or compiled code once a
 * second agent has grounded the game (second.h), between two turns. */
engine_kind_t service_engine_kind(service_t *s);
/* A reply with the given deadline finished sending at time done: feeds the margin. */
void service_report_sent(service_t *s, double deadline, double done);
/* The current safety margin in seconds. */
double service_margin(service_t *s);

#endif
