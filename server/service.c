/* The player service: see service.h. */
#define _POSIX_C_SOURCE 200809L
#include "server/service.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "engine/engine.h"
#include "player/agent.h"
#include "server/log.h"
#include "server/second.h"

#define BASE_MARGIN 0.2 /* seconds kept in hand before every deadline */
#define MAX_MARGIN 2.0
#define IDLE_GRACE 30.0 /* a match silent this long past its clocks is abandoned */

/* A message for the worker and its answer so far (guarded by the service mutex). */
typedef struct job {
    struct service *service; /* the one it was sent to */
    proto_msg_t msg;
    char *raw;
    size_t raw_len;
    double t0, deadline; /* when the message came, when its answer is due */
    strbuf_t reply;
    bool proven; /* reply is a move proven legal in this turn's state */
    bool done, abandoned;
    struct job *next;
} job_t;

struct service {
    service_config_t cfg;
    char *name;
    pthread_mutex_t mu;
    pthread_cond_t work;     /* the worker waits for a job */
    pthread_cond_t answered; /* request threads wait for their job */
    job_t *head, *tail;
    bool quit, running;
    bool orphaned;  /* service_free found the worker busy: the worker frees the service */
    bool pondering; /* running, but only a few engine calls after a job: worth waiting */
    pthread_t worker;
    /* the match as the request threads see it (under mu) */
    char *match_id; /* NULL when there is none */
    double last_seen, startclock, playclock;
    char *fallback;  /* a guess to answer when no move is proven legal in time */
    char *first;     /* the first legal move of the initial state, for the first PLAY */
    uint32_t plays;  /* PLAYs of the match so far */
    double lateness; /* how far past deadlines replies finish (decaying maximum) */
    /* the worker's own */
    agent_t *agent;
    char *agent_id;
    term_t played; /* our answer to the last PLAY (TERM_NONE: none), for ponder() */
    uint64_t n_starts;
    bool error_told; /* the agent's error (agent_error) is in the log */
    /* a second agent preparing for the match (second.h), and the joint moves so far (texts,
     * n_roles a turn) to replay into it; the seconds no longer wanted, until their threads end */
    second_t *second;
    char **history;
    size_t n_history, cap_history;
    uint32_t n_roles;
    second_t **dropped;
    size_t n_dropped, cap_dropped;
    engine_kind_t kind; /* the current agent's engine (under mu), for service_engine_kind */
};

static void job_free(job_t *j) {
    proto_msg_fini(&j->msg);
    free(j->raw);
    sb_fini(&j->reply);
    free(j);
}

/* Sets a string field to a copy of value (NULL clears it). */
static void set_str(char **field, const char *value) {
    free(*field);
    *field = value ? xstrdup(value) : NULL;
}

/* The job's answer so far, and whether it is a move proven legal (both at once). */
static void set_reply(service_t *s, job_t *j, const char *text, bool proven) {
    pthread_mutex_lock(&s->mu);
    sb_clear(&j->reply);
    sb_puts(&j->reply, text);
    j->proven = proven;
    pthread_mutex_unlock(&s->mu);
}

/* ---- the worker ---- */

static void sleep_ms(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* The player's best move so far, proven legal in this turn's state (agent_play offers no
 * other), becomes the job's answer. It is not kept as a fallback for later turns: a move
 * of an earlier state is the likeliest illegal answer of all. */
static void offer(void *job, term_t move) {
    job_t *j = job;
    strbuf_t text;
    sb_init(&text);
    agent_print_move(j->service->agent, move, &text);
    set_reply(j->service, j, sb_str(&text), true);
    sb_fini(&text);
}

/* Forgets the match if it is still the one called id. */
static void drop_match(service_t *s, const char *id) {
    pthread_mutex_lock(&s->mu);
    if (s->match_id && !strcmp(s->match_id, id)) set_str(&s->match_id, NULL);
    pthread_mutex_unlock(&s->mu);
}

/* Frees the second agents no longer wanted whose threads have ended (all: wait). */
static void reap_dropped(service_t *s, bool wait) {
    size_t kept = 0;
    for (size_t i = 0; i < s->n_dropped; i++)
        if (wait || second_done(s->dropped[i]))
            second_free(s->dropped[i]);
        else
            s->dropped[kept++] = s->dropped[i];
    s->n_dropped = kept;
}

/* The second agent is no longer wanted: freed at once when its thread has ended, else
 * once it has (its grounding cannot be interrupted). */
static void drop_second(service_t *s) {
    if (!s->second) return;
    GROW(s->dropped, s->cap_dropped, s->n_dropped + 1);
    s->dropped[s->n_dropped++] = s->second;
    s->second = NULL;
    reap_dropped(s, false);
}

static void set_kind(service_t *s, engine_kind_t kind) {
    pthread_mutex_lock(&s->mu);
    s->kind = kind;
    pthread_mutex_unlock(&s->mu);
}

static void end_agent(service_t *s) {
    drop_second(s);
    for (size_t i = 0; i < s->n_history; i++)
        free(s->history[i]);
    s->n_history = 0;
    FREE_AND_NULL(agent_free, s->agent);
    s->played = TERM_NONE;
    s->error_told = false;
    set_str(&s->agent_id, NULL);
    set_kind(s, ENGINE_INTERP);
}

/* Keeps the text of move as a fallback answer (*field: s->fallback for any PLAY, s->first
 * for the first) while the match is still id and, for the first, no PLAY has come yet. */
static void keep_move(service_t *s, const char *id, term_t move, char **field) {
    if (move == TERM_NONE) return;
    strbuf_t text;
    sb_init(&text);
    agent_print_move(s->agent, move, &text);
    pthread_mutex_lock(&s->mu);
    if (s->match_id && !strcmp(s->match_id, id) && (field != &s->first || !s->plays))
        set_str(field, sb_str(&text));
    pthread_mutex_unlock(&s->mu);
    sb_fini(&text);
}

/* Says once per match that the game can no longer be reasoned about, and why: the
 * answers from then on are the moves kept (the guess, the first move) or the preset. */
static void tell_error(service_t *s, const char *id) {
    const char *why = s->agent ? agent_error(s->agent) : NULL;
    if (!why || s->error_told) return;
    s->error_told = true;
    log_line("match=%s the game cannot be reasoned about: %s; the answers are the fallback "
             "moves from now on",
             id, why);
}

/* Called by a second agent's thread when it is done: wakes the worker to take it. */
static void second_ready(void *ctx) {
    service_t *s = ctx;
    pthread_mutex_lock(&s->mu);
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
}

/* When the start clock cut the player's grounding short, a second agent grounds the game
 * without it on a thread of its own: a match on the interpreter is 20 to 100 times slower. */
static void start_second(service_t *s, job_t *j, const agent_config_t *cfg) {
    if (!agent_cut_short(s->agent)) return;
    s->second = second_start(j->msg.rules, j->raw, j->raw_len, j->msg.role, cfg, second_ready, s);
    if (s->second)
        log_line("match=%s the interpreter plays until a second agent has grounded the game "
                 "without the start clock",
                 j->msg.id);
    else
        agent_engine_final(s->agent);
}

static void run_start(service_t *s, job_t *j) {
    end_agent(s);
    double t = now_seconds();
    agent_config_t cfg = {.kind = s->cfg.kind,
                          .startclock = j->msg.startclock,
                          .playclock = j->msg.playclock,
                          .seed = s->cfg.seed + 0x9E3779B97F4A7C15ull * ++s->n_starts,
                          .verbose = s->cfg.verbose,
                          /* a GDL-II agent grounds the game as it loads: by the share of the
                           * clock a player's engine gets (the rest is the player's) */
                          .ready =
                              t + (j->deadline > t ? (j->deadline - t) * PLAYER_ENGINE_SHARE : 0)};
    strbuf_t err;
    sb_init(&err);
    s->agent = agent_load(j->msg.rules, j->raw, j->raw_len, j->msg.role, &cfg, &err);
    if (!s->agent) {
        log_line("match=%s start refused: %s", j->msg.id, sb_str(&err));
        set_reply(s, j, PROTO_BUSY, false);
        drop_match(s, j->msg.id);
    } else {
        s->agent_id = xstrdup(j->msg.id);
        if (s->cfg.kind == &player_auto_kind) /* the choice, said once per match */
            log_line("match=%s player auto: %s for this %s game", j->msg.id,
                     player_kind_resolve(s->cfg.kind, agent_game(s->agent))->name,
                     agent_game(s->agent)->gdl2 ? "GDL-II" : "GDL");
        keep_move(s, j->msg.id, agent_guess(s->agent), &s->fallback);
        /* the first move is ready before the player prepares (which may outlast the clock) */
        keep_move(s, j->msg.id, agent_first_legal(s->agent, j->deadline), &s->first);
        /* the engine first: a second agent, if one is needed, starts before meta-gaming */
        agent_make_engine(s->agent, j->deadline);
        s->n_roles = agent_game(s->agent)->n_roles;
        set_kind(s, agent_engine_kind(s->agent));
        start_second(s, j, &cfg);
        agent_start(s->agent, j->deadline);
        tell_error(s, j->msg.id);
    }
    /* what the next PLAY waits for: a START that outlasts its deadline leaves the first
     * turns to guesses */
    log_line("match=%s start: worker done after %.0f ms (due at %.0f ms)", j->msg.id,
             (now_seconds() - j->t0) * 1000, (j->deadline - j->t0) * 1000);
    sb_fini(&err);
}

/* Brings the agent up to date with what a PLAY tells. */
static void observe(service_t *s, job_t *j) {
    const proto_msg_t *m = &j->msg;
    strbuf_t err;
    sb_init(&err);
    bool ok = true;
    if (m->gdl2) {
        double budget = j->deadline - now_seconds();
        ok = agent_observe_text(s->agent, m->turn, m->lastmove, m->percepts, m->n_percepts,
                                now_seconds() + budget * 0.5, &err);
    } else if (!m->nil) {
        ok = agent_advance_text(s->agent, m->moves, m->n_moves, &err);
        for (uint32_t r = 0; ok && r < m->n_moves; r++) { /* for a second agent's replay */
            GROW(s->history, s->cap_history, s->n_history + 1);
            s->history[s->n_history++] = xstrdup(m->moves[r]);
        }
    }
    if (!ok)
        log_line("match=%s %s: inconsistent with the game: %s", m->id, proto_kind_name(m->kind),
                 sb_str(&err));
    sb_fini(&err);
}

static void run_play(service_t *s, job_t *j) {
    if (!s->agent || strcmp(s->agent_id, j->msg.id) != 0) return;
    observe(s, j);
    double late = now_seconds() - j->deadline;
    if (late > 0) {
        /* The turn was answered while the worker was busy before it: its legal moves
         * and search would only make the next turn late too (on a game whose legal moves
         * take most of the clock, every turn after). The state is up to date; that is all. */
        log_line("match=%s play: reached %.0f ms past its deadline (already answered): "
                 "state updated, no move computed",
                 j->msg.id, late * 1000);
        return;
    }
    if (s->cfg.think_delay_ms) sleep_ms(s->cfg.think_delay_ms);
    move_sink_t sink = {.offer = offer, .ctx = j};
    term_t move = agent_play(s->agent, j->deadline, &sink);
    s->played = move;
    tell_error(s, j->msg.id);
    if (move == TERM_NONE)
        log_line("match=%s play: no legal move is known", j->msg.id);
    else
        offer(j, move);
    if (s->cfg.verbose) {
        strbuf_t st;
        sb_init(&st);
        agent_stats(s->agent, &st);
        log_line("match=%s %s", j->msg.id, sb_str(&st));
        sb_fini(&st);
    }
}

/* The match's search counters, one line (what `ggp match` prints per player), so that a
 * series between servers can be read for what each search did. */
static void log_search(service_t *s, const char *id) {
    player_search_t sum = {0};
    if (!agent_search(s->agent, &sum)) return;
    strbuf_t line;
    sb_init(&line);
    if (player_search_report(&sum, &line)) log_line("match=%s search: %s", id, sb_str(&line));
    sb_fini(&line);
}

static void run_end(service_t *s, job_t *j) {
    if (!s->agent || strcmp(s->agent_id, j->msg.id) != 0) return;
    if (j->msg.kind == MSG_STOP) agent_stop(s->agent);
    log_search(s, j->msg.id);
    end_agent(s);
}

/* After a PLAY is answered: the guess at our next move becomes the fallback answer, so
 * that a next turn whose reasoning outlasts the clock still gets a likely legal move. */
static void ponder(service_t *s) {
    if (!s->agent || s->played == TERM_NONE) return;
    pthread_mutex_lock(&s->mu);
    bool queued = s->head != NULL;
    pthread_mutex_unlock(&s->mu);
    if (queued) { /* the next message came meanwhile: it is worth more than a guess */
        s->played = TERM_NONE;
        keep_move(s, s->agent_id, agent_guess(s->agent), &s->fallback);
        return;
    }
    term_t guess = agent_ponder(s->agent, s->played);
    s->played = TERM_NONE;
    keep_move(s, s->agent_id, guess != TERM_NONE ? guess : agent_guess(s->agent), &s->fallback);
    /* A PLAY that came in meanwhile (the worker runs late) answers it too, until the
     * player offers better. */
    pthread_mutex_lock(&s->mu);
    job_t *next = s->head;
    if (guess != TERM_NONE && s->fallback && next && next->msg.kind == MSG_PLAY &&
        !strcmp(next->msg.id, s->agent_id)) {
        sb_clear(&next->reply);
        sb_puts(&next->reply, s->fallback);
    }
    pthread_mutex_unlock(&s->mu);
}

/* The second agent, done: replays the match into it and plays the rest on it (the first
 * agent freed, its search threads stopped first), or drops it. Between turns: no message
 * waits, and the replay is a state update a move on the new engine. */
static void take_second(service_t *s) {
    strbuf_t why;
    sb_init(&why);
    double secs = second_seconds(s->second);
    agent_t *a = second_take(s->second, &why);
    second_free(s->second);
    s->second = NULL;
    size_t turns = s->n_roles ? s->n_history / s->n_roles : 0;
    for (size_t t = 0; a && t < turns; t++)
        if (!agent_advance_text(a, s->history + t * s->n_roles, s->n_roles, &why))
            FREE_AND_NULL(agent_free, a);
    if (!a) {
        log_line("match=%s the second agent is dropped after %.1f s: %s", s->agent_id, secs,
                 sb_str(&why));
        agent_engine_final(s->agent); /* the interpreter plays the match to its end */
    } else {
        engine_kind_t kind = agent_engine_kind(a);
        /* turn: the number of the next PLAY, which brings joint move turns + 1 */
        log_line("match=%s engine ready after %.1f s: the %s replaces the interpreter from turn "
                 "%zu (%zu joint moves replayed)",
                 s->agent_id, secs, kind == ENGINE_COMPILED ? "compiled code" : "ground network",
                 turns + 2, turns);
        agent_free(s->agent);
        s->agent = a;
        s->played = TERM_NONE;
        set_kind(s, kind);
    }
    sb_fini(&why);
}

static void run_job(service_t *s, job_t *j) {
    switch (j->msg.kind) {
    case MSG_START:
        run_start(s, j);
        break;
    case MSG_PLAY:
        run_play(s, j);
        break;
    case MSG_STOP:
    case MSG_ABORT:
        run_end(s, j);
        break;
    default:
        break;
    }
}

static void service_destroy(service_t *s);

/* A second agent done is taken (mu held) when no message waits, or when the next is a PLAY
 * answered already (its deadline passed: only its state update is left, on the new engine
 * a fraction of the interpreter's); not before a STOP or ABORT, which would free it. */
static bool second_due(const service_t *s) {
    const job_t *next = s->head;
    return s->second && second_done(s->second) &&
           (!next || (next->msg.kind == MSG_PLAY && now_seconds() > next->deadline));
}

static void *worker_main(void *arg) {
    service_t *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->head && !s->quit && !second_due(s))
            pthread_cond_wait(&s->work, &s->mu);
        if (s->quit) break;
        if (second_due(s)) {
            s->running = s->pondering = true;
            pthread_mutex_unlock(&s->mu);
            take_second(s);
            pthread_mutex_lock(&s->mu);
            s->running = s->pondering = false;
            pthread_cond_broadcast(&s->answered); /* for service_wait_idle */
            continue;
        }
        job_t *j = s->head;
        s->head = j->next;
        if (!s->head) s->tail = NULL;
        s->running = true;
        pthread_mutex_unlock(&s->mu);
        run_job(s, j);
        pthread_mutex_lock(&s->mu);
        j->done = true;
        if (j->abandoned)
            job_free(j);
        else
            pthread_cond_broadcast(&s->answered);
        s->pondering = true;
        pthread_mutex_unlock(&s->mu);
        ponder(s); /* the answer is out (or due): the time until the next PLAY is free */
        pthread_mutex_lock(&s->mu);
        s->running = s->pondering = false;
        pthread_cond_broadcast(&s->answered); /* for service_wait_idle */
    }
    bool orphaned = s->orphaned;
    pthread_mutex_unlock(&s->mu);
    if (orphaned) service_destroy(s);
    return NULL;
}

/* ---- the request side ---- */

service_t *service_new(const service_config_t *cfg) {
    service_t *s = xcalloc(1, sizeof *s);
    s->cfg = *cfg;
    s->name = xstrdup(cfg->name);
    s->cfg.name = s->name;
    s->played = TERM_NONE;
    s->kind = ENGINE_INTERP;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->answered, &attr);
    pthread_condattr_destroy(&attr);
    if (engine_thread_start(&s->worker, worker_main, s) != 0) /* it runs the engines */
        die("cannot start the worker thread");
    return s;
}

void service_free(service_t *s) {
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->quit = true;
    /* An engine call cannot be interrupted: a busy worker frees the service when its
     * job ends (if the process has not ended before; it then still holds it). */
    s->orphaned = s->running && !s->pondering;
    bool orphaned = s->orphaned;
    pthread_t worker = s->worker; /* s may be gone once mu is released */
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    if (orphaned) {
        pthread_detach(worker);
        return;
    }
    pthread_join(s->worker, NULL);
    service_destroy(s);
}

/* Frees s once its worker has ended (or from the worker itself, as it ends). */
static void service_destroy(service_t *s) {
    while (s->head) {
        job_t *j = s->head;
        s->head = j->next;
        job_free(j);
    }
    end_agent(s);
    reap_dropped(s, true);
    free(s->dropped);
    free(s->history);
    pthread_cond_destroy(&s->answered);
    pthread_cond_destroy(&s->work);
    pthread_mutex_destroy(&s->mu);
    free(s->match_id);
    free(s->fallback);
    free(s->first);
    free(s->name);
    free(s);
}

engine_kind_t service_engine_kind(service_t *s) {
    pthread_mutex_lock(&s->mu);
    engine_kind_t k = s->kind;
    pthread_mutex_unlock(&s->mu);
    return k;
}

void service_wait_idle(service_t *s) {
    pthread_mutex_lock(&s->mu);
    while (s->head || s->running)
        pthread_cond_wait(&s->answered, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static double margin_locked(const service_t *s) {
    return fmin(MAX_MARGIN, BASE_MARGIN + 2 * s->lateness);
}

double service_margin(service_t *s) {
    pthread_mutex_lock(&s->mu);
    double m = margin_locked(s);
    pthread_mutex_unlock(&s->mu);
    return m;
}

void service_report_sent(service_t *s, double deadline, double done) {
    if (deadline <= 0) return;
    pthread_mutex_lock(&s->mu);
    s->lateness = fmax(done - deadline, s->lateness * 0.9);
    pthread_mutex_unlock(&s->mu);
}

/* The deadline for a clock: the clock minus the margin, but at least half the clock. */
static double deadline_for(const service_t *s, double t0, double clock) {
    return t0 + fmax(clock * 0.5, clock - margin_locked(s));
}

static bool match_busy(const service_t *s, double t0) {
    if (!s->match_id) return false;
    return t0 - s->last_seen <= s->startclock + 2 * s->playclock + IDLE_GRACE;
}

static bool is_current(const service_t *s, const char *id) {
    return s->match_id && !strcmp(s->match_id, id);
}

static job_t *enqueue(service_t *s, proto_msg_t *msg, double deadline, const char *preset) {
    job_t *j = xcalloc(1, sizeof *j);
    j->service = s;
    j->msg = *msg;
    memset(msg, 0, sizeof *msg);
    j->deadline = deadline;
    sb_puts(&j->reply, preset);
    if (s->tail)
        s->tail->next = j;
    else
        s->head = j;
    s->tail = j;
    pthread_cond_signal(&s->work);
    return j;
}

/* Waits (mu held) for the job until it is done or its deadline passes; takes its answer. */
static void await(service_t *s, job_t *j, strbuf_t *reply) {
    struct timespec now_rt;
    clock_gettime(CLOCK_MONOTONIC, &now_rt);
    double wait = j->deadline - now_seconds();
    double at = (double)now_rt.tv_sec + (double)now_rt.tv_nsec * 1e-9 + (wait > 0 ? wait : 0);
    struct timespec until = {.tv_sec = (time_t)at, .tv_nsec = (long)((at - floor(at)) * 1e9)};
    while (!j->done && now_seconds() < j->deadline)
        pthread_cond_timedwait(&s->answered, &s->mu, &until);
    sb_puts(reply, sb_str(&j->reply));
    if (j->done) {
        job_free(j);
        return;
    }
    /* The worker is still in an engine or search call: the answer goes out on time
     * anyway (the best move offered so far, else a guess), and the log says which. */
    if (j->msg.kind != MSG_PLAY || j->proven)
        log_line("match=%s %s: answered at the deadline with '%.60s' while the player was "
                 "still thinking (margin %.0f ms)",
                 j->msg.id, proto_kind_name(j->msg.kind), sb_str(&j->reply),
                 margin_locked(s) * 1000);
    else
        log_line("match=%s play: no legal move proven in time (the state and its legal moves "
                 "were not computed by the deadline): answered the unproven guess '%.60s' "
                 "(margin %.0f ms)",
                 j->msg.id, sb_str(&j->reply), margin_locked(s) * 1000);
    j->abandoned = true;
}

static void answer_start(service_t *s, proto_msg_t *msg, const char *raw, size_t raw_len, double t0,
                         strbuf_t *reply, double *deadline) {
    if (match_busy(s, t0)) {
        sb_puts(reply, PROTO_BUSY);
        return;
    }
    set_str(&s->match_id, msg->id);
    set_str(&s->fallback, NULL);
    set_str(&s->first, NULL);
    s->plays = 0;
    s->last_seen = t0;
    s->startclock = msg->startclock;
    s->playclock = msg->playclock;
    *deadline = deadline_for(s, t0, msg->startclock);
    job_t *j = enqueue(s, msg, *deadline, PROTO_READY);
    j->t0 = t0;
    j->raw = xmalloc(raw_len + 1);
    memcpy(j->raw, raw, raw_len);
    j->raw[raw_len] = 0;
    j->raw_len = raw_len;
    await(s, j, reply);
}

static void answer_match(service_t *s, proto_msg_t *msg, double t0, strbuf_t *reply,
                         double *deadline) {
    if (!is_current(s, msg->id)) {
        sb_puts(reply, PROTO_BUSY);
        return;
    }
    s->last_seen = t0;
    if (msg->kind == MSG_PLAY) {
        *deadline = deadline_for(s, t0, s->playclock);
        /* the first PLAY is in the initial state, where s->first is legal */
        bool first = s->plays++ == 0 && s->first;
        const char *preset = first ? s->first : s->fallback;
        job_t *j = enqueue(s, msg, *deadline, preset ? preset : "nil");
        j->proven = first;
        await(s, j, reply);
        return;
    }
    sb_puts(reply, msg->kind == MSG_STOP ? PROTO_DONE : PROTO_ABORTED);
    set_str(&s->match_id, NULL);
    enqueue(s, msg, t0, "")->abandoned = true; /* the worker cleans up; nobody waits */
}

void service_answer(service_t *s, proto_msg_t *msg, const char *raw, size_t raw_len, double t0,
                    strbuf_t *reply, double *deadline) {
    *deadline = 0;
    pthread_mutex_lock(&s->mu);
    switch (msg->kind) {
    case MSG_INFO:
        proto_reply_info(reply, s->name, match_busy(s, t0));
        break;
    case MSG_PREVIEW:
        sb_puts(reply, PROTO_READY);
        break;
    case MSG_START:
        answer_start(s, msg, raw, raw_len, t0, reply, deadline);
        break;
    default:
        answer_match(s, msg, t0, reply, deadline);
        break;
    }
    pthread_mutex_unlock(&s->mu);
    proto_msg_fini(msg);
}
