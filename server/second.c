/* A second agent prepared on a thread of its own: see second.h. */
#include "server/second.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "engine/engine.h"

struct second {
    pthread_t thread;
    char *rules, *raw, *role;
    size_t raw_len;
    agent_config_t cfg;
    void (*on_done)(void *ctx);
    void *ctx;
    double t0, seconds;
    /* its thread's until done, then the taker's */
    agent_t *agent;
    engine_kind_t kind;
    strbuf_t err;
    atomic_bool done;
    bool joined;
};

static void *second_main(void *arg) {
    second_t *b = arg;
    b->agent = agent_load(b->rules, b->raw, b->raw_len, b->role, &b->cfg, &b->err);
    if (b->agent) b->kind = agent_prepare(b->agent);
    b->seconds = now_seconds() - b->t0;
    atomic_store(&b->done, true);
    b->on_done(b->ctx);
    return NULL;
}

second_t *second_start(const char *rules, const char *raw, size_t raw_len, const char *role,
                       const agent_config_t *cfg, void (*on_done)(void *ctx), void *ctx) {
    second_t *b = xcalloc(1, sizeof *b);
    b->rules = xstrdup(rules);
    b->raw = xmalloc(raw_len + 1);
    memcpy(b->raw, raw, raw_len);
    b->raw[raw_len] = 0;
    b->raw_len = raw_len;
    b->role = xstrdup(role);
    b->cfg = *cfg;
    b->cfg.ready = 0; /* not the start clock's: the grounder's own limit */
    b->on_done = on_done;
    b->ctx = ctx;
    b->t0 = now_seconds();
    sb_init(&b->err);
    /* the same priority as the match's own thread: the grounder's limit is wall-clock time,
     * and a niced thread on a busy core would run out of it (its CPU share ~1.5% at nice 19) */
    if (engine_thread_start(&b->thread, second_main, b) == 0) return b;
    b->joined = true;
    second_free(b);
    return NULL;
}

bool second_done(second_t *b) {
    return atomic_load(&b->done);
}

static void join(second_t *b) {
    if (!b->joined) pthread_join(b->thread, NULL);
    b->joined = true;
}

agent_t *second_take(second_t *b, strbuf_t *why) {
    join(b);
    if (!b->agent) {
        sb_puts(why, sb_str(&b->err));
        return NULL;
    }
    if (b->kind == ENGINE_INTERP) {
        sb_puts(why, "its engine is the interpreter too (the engine's line says why)");
        return NULL;
    }
    agent_t *a = b->agent;
    b->agent = NULL;
    return a;
}

double second_seconds(const second_t *b) {
    return b->seconds;
}

void second_free(second_t *b) {
    if (!b) return;
    join(b);
    agent_free(b->agent);
    sb_fini(&b->err);
    free(b->rules);
    free(b->raw);
    free(b->role);
    free(b);
}
