/* libFuzzer target for the GGP protocol: the input is one request body, or several
 * separated by blank lines (a match as a game master would send it). Each goes through
 * proto_parse; parsed messages drive an agent the way the server's worker does (START loads
 * the rules and meta-games, PLAY advances or observes and plays, STOP and ABORT end the
 * match; GDL and GDL-II forms). Clocks are cut to a few milliseconds so that an input
 * cannot make the target wait. Any input gets an answer or a clear error: never a crash,
 * a hang, a leak or undefined behaviour. Built with clang and GGP_FUZZ=ON;
 * replay.c runs it on files in the other builds. */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "player/agent.h"
#include "server/protocol.h"

#define CLOCK_S 0.005

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    agent_t *agent;
    char *id;
    strbuf_t out;
} match_t;

static void end_match(match_t *m) {
    agent_free(m->agent);
    m->agent = NULL;
    free(m->id);
    m->id = NULL;
}

static void start(match_t *m, const proto_msg_t *msg, const char *raw, size_t len) {
    end_match(m);
    agent_config_t cfg = {
        .kind = &player_random_kind, .startclock = CLOCK_S, .playclock = CLOCK_S, .seed = len};
    strbuf_t err;
    sb_init(&err);
    m->agent = agent_load(msg->rules, raw, len, msg->role, &cfg, &err);
    if (!m->agent && !err.len) __builtin_trap(); /* a refused START says why */
    if (m->agent) {
        m->id = xstrdup(msg->id);
        agent_start(m->agent, now_seconds() + CLOCK_S);
    }
    sb_fini(&err);
}

static void play(match_t *m, const proto_msg_t *msg) {
    strbuf_t err;
    sb_init(&err);
    bool ok = true;
    if (msg->gdl2)
        ok = agent_observe_text(m->agent, msg->turn, msg->lastmove, msg->percepts, msg->n_percepts,
                                now_seconds() + CLOCK_S, &err);
    else if (!msg->nil)
        ok = agent_advance_text(m->agent, msg->moves, msg->n_moves, &err);
    if (!ok && !err.len) __builtin_trap(); /* an inconsistent PLAY says why */
    sb_fini(&err);
    if (msg->kind == MSG_STOP) return;
    term_t move = agent_play(m->agent, now_seconds() + CLOCK_S, NULL);
    sb_clear(&m->out);
    if (move != TERM_NONE) agent_print_move(m->agent, move, &m->out);
}

static void handle(match_t *m, const char *body, size_t len) {
    proto_msg_t msg;
    strbuf_t err;
    sb_init(&err);
    if (!proto_parse(body, len, &msg, &err)) {
        if (!err.len) __builtin_trap(); /* a refused message says why */
        sb_fini(&err);
        return;
    }
    sb_fini(&err);
    bool current = m->id && msg.id && !strcmp(m->id, msg.id);
    switch (msg.kind) {
    case MSG_INFO:
        sb_clear(&m->out);
        proto_reply_info(&m->out, "fuzz", m->agent != NULL);
        break;
    case MSG_START:
        start(m, &msg, body, len);
        break;
    case MSG_PLAY:
    case MSG_STOP:
        if (current) play(m, &msg);
        if (current && msg.kind == MSG_STOP) end_match(m);
        break;
    case MSG_ABORT:
        if (current) end_match(m);
        break;
    case MSG_PREVIEW:
        break;
    }
    proto_msg_fini(&msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data, *end = p + size;
    match_t m = {0};
    sb_init(&m.out);
    while (p < end) {
        const char *sep = memmem(p, (size_t)(end - p), "\n\n", 2);
        const char *stop = sep ? sep : end;
        handle(&m, p, (size_t)(stop - p));
        p = sep ? sep + 2 : end;
    }
    end_match(&m);
    sb_fini(&m.out);
    return 0;
}
