/* A local game master: see master.h. */
#define _POSIX_C_SOURCE 200809L
#include "match/master.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/joints.h"
#include "gdl/casemap.h"
#include "gdl/trace.h"
#include "gdl/validate.h"
#include "match/httpc.h"
#include "player/agent.h"

#define CONNECT_TIMEOUT 5.0 /* seconds, as the reference game master */
#define PLAY_GRACE 1.0      /* PLAY may take the play clock plus this */
#define ABORT_CLOCK 1.0
#define LOCAL_MARGIN 0.2 /* a local player's deadline: the clock minus this */

struct master {
    game_t *g;
    engine_t *e; /* the interpreter: the rules as written */
    master_config_t cfg;
    casemap_t spelling;
    char *rules;   /* as sent in START: original spellings, comments dropped */
    char *name;    /* the game's name in traces */
    char *id_name; /* the same, fit for match ids */
    uint32_t *seat_role;
    uint32_t n_seats;
    splitmix_t rng;
    strbuf_t sb;
};

/* ---- contestants ---- */

bool contestant_parse(const char *spec, contestant_t *c, strbuf_t *err) {
    memset(c, 0, sizeof *c);
    if (!strncmp(spec, "http://", 7)) {
        if (!httpc_parse_url(spec, &c->host, &c->port)) {
            sb_printf(err, "'%s' is not of the form http://HOST:PORT", spec);
            return false;
        }
    } else if (!(c->kind = player_kind_find(spec))) {
        strbuf_t why;
        sb_init(&why);
        if (player_kind_error(spec, &why)) /* a kind whose options are bad: what is wrong */
            sb_printf(err, "player '%s': %s", spec, sb_str(&why));
        else
            sb_printf(err, "unknown player '%s' (a player kind or http://HOST:PORT)", spec);
        sb_fini(&why);
        return false;
    }
    c->spec = xstrdup(spec);
    return true;
}

void contestant_fini(contestant_t *c) {
    free(c->spec);
    free(c->host);
    free(c->port);
    memset(c, 0, sizeof *c);
}

/* ---- the master ---- */

/* The rules as one line: comments dropped, white space collapsed, spellings kept. */
static char *rules_line(const char *text, size_t len) {
    strbuf_t out;
    sb_init(&out);
    bool space = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == ';') {
            while (i + 1 < len && text[i + 1] != '\n')
                i++;
            space = true;
        } else if (isspace((unsigned char)c)) {
            space = true;
        } else {
            if (space && out.len) sb_putc(&out, ' ');
            space = false;
            size_t j = i;
            if (c == '"')
                while (j + 1 < len && text[j + 1] != '"' && text[j + 1] != '\n')
                    j++;
            sb_putn(&out, text + i, j - i + 1);
            i = j;
        }
    }
    sb_str(&out);
    return out.data;
}

/* A name fit for a match id: letters, digits, '-' and '_' kept, the rest '_'. */
static char *id_name(const char *path) {
    strbuf_t sb;
    sb_init(&sb);
    trace_game_name(path, &sb);
    for (size_t i = 0; i < sb.len; i++)
        if (!isalnum((unsigned char)sb.data[i]) && sb.data[i] != '-') sb.data[i] = '_';
    sb_str(&sb);
    return sb.data;
}

static bool is_random_role(const game_t *g, uint32_t i) {
    return term_kind(g->ts, g->roles[i]) == TERM_SYM && term_sym(g->ts, g->roles[i]) == SYM_RANDOM;
}

master_t *master_new(const char *path, const master_config_t *cfg, strbuf_t *err) {
    diag_t d;
    diag_init(&d);
    size_t len;
    char *text = read_file(path, &len);
    game_t *g = text ? game_load_text(text, len, path, &d) : NULL;
    if (!g) {
        if (!text) sb_printf(err, "cannot read %s", path);
        for (size_t i = 0; i < d.n && i < 5; i++) {
            if (i) sb_putc(err, '\n');
            diag_format(&d, i, err);
        }
        diag_fini(&d);
        free(text);
        return NULL;
    }
    diag_fini(&d);
    master_t *m = xcalloc(1, sizeof *m);
    m->g = g;
    m->e = engine_new(g, ENGINE_INTERP, NULL);
    m->cfg = *cfg;
    m->rng.s = cfg->seed;
    casemap_init(&m->spelling);
    casemap_scan(&m->spelling, text, len);
    m->rules = rules_line(text, len);
    m->id_name = id_name(path);
    strbuf_t name;
    sb_init(&name);
    trace_game_name(path, &name);
    m->name = (char *)sb_str(&name);
    free(text);
    m->seat_role = xcalloc(g->n_roles + 1, sizeof *m->seat_role);
    for (uint32_t i = 0; i < g->n_roles; i++)
        if (!is_random_role(g, i)) m->seat_role[m->n_seats++] = i;
    sb_init(&m->sb);
    return m;
}

void master_free(master_t *m) {
    if (!m) return;
    engine_free(m->e);
    game_free(m->g);
    casemap_fini(&m->spelling);
    free(m->rules);
    free(m->name);
    free(m->id_name);
    free(m->seat_role);
    sb_fini(&m->sb);
    free(m);
}

uint32_t master_seats(const master_t *m) {
    return m->n_seats;
}

const char *master_seat_name(const master_t *m, uint32_t seat) {
    return term_sym_name(m->g->ts, term_sym(m->g->ts, m->g->roles[m->seat_role[seat]]));
}

void match_result_fini(match_result_t *res) {
    free(res->seats);
    memset(res, 0, sizeof *res);
}

/* ---- one remote request on its own thread ---- */

typedef struct {
    const contestant_t *who;
    strbuf_t body;
    double timeout;
    httpc_reply_t reply;
    pthread_t th;
    bool running;
} call_t;

static void *call_main(void *arg) {
    call_t *c = arg;
    httpc_post(c->who->host, c->who->port, c->body.data, c->body.len, CONNECT_TIMEOUT, c->timeout,
               &c->reply);
    return NULL;
}

static void call_begin(call_t *c, double timeout) {
    c->timeout = timeout;
    c->running = pthread_create(&c->th, NULL, call_main, c) == 0;
    if (!c->running) call_main(c);
}

static void call_end(call_t *c) {
    if (c->running) pthread_join(c->th, NULL);
    c->running = false;
}

/* ---- one match ---- */

typedef struct {
    contestant_t *who;
    uint32_t role;
    agent_t *agent;   /* a local player */
    call_t call;      /* a remote player's current request */
    term_t *percepts; /* GDL-II: what the role saw last turn */
    uint32_t n_percepts;
    size_t cap_percepts;
    seat_result_t *res;
} seat_t;

typedef struct {
    master_t *m;
    char id[160];
    seat_t *seats;
    uint32_t n_roles, step;
    eng_state_t *cur, *nx; /* the state, and the next one */
    state_t state;         /* the state as terms (traces) */
    joints_t legal;        /* every role's legal moves, in the trace order */
    term_t *joint;         /* the joint move of this step (then the last one) */
    term_t *answer;        /* per seat, TERM_NONE when late or unparsable */
    double *ms;            /* per seat */
    match_result_t *res;
} match_t;

static void trace_line(match_t *mt, const char *head, const term_t *terms, uint32_t n) {
    master_t *m = mt->m;
    if (!m->cfg.trace) return;
    term_t *copy = xmalloc((n + 1) * sizeof *copy);
    if (n) memcpy(copy, terms, n * sizeof *copy);
    n = trace_sort_terms(m->g->ts, copy, n, &m->sb);
    fprintf(m->cfg.trace, "%s%s%s\n", head, n ? " " : "", sb_str(&m->sb));
    free(copy);
}

static const char *role_text(match_t *mt, uint32_t role, strbuf_t *sb) {
    sb_clear(sb);
    term_print(mt->m->g->ts, mt->m->g->roles[role], sb);
    return sb_str(sb);
}

static void trace_head(match_t *mt) {
    FILE *out = mt->m->cfg.trace;
    if (!out) return;
    strbuf_t sb;
    sb_init(&sb);
    fprintf(out, "game %s\nroles", mt->m->name);
    for (uint32_t i = 0; i < mt->n_roles; i++)
        fprintf(out, " %s", role_text(mt, i, &sb));
    fprintf(out, "\n");
    sb_fini(&sb);
}

static void trace_end(match_t *mt) {
    FILE *out = mt->m->cfg.trace;
    if (!out) return;
    strbuf_t sb, v;
    sb_init(&sb);
    sb_init(&v);
    fprintf(out, "terminal yes\n");
    for (uint32_t i = 0; i < mt->n_roles; i++) {
        term_t g = engine_goal(mt->m->e, mt->cur, i);
        sb_clear(&v);
        if (g == TERM_NONE)
            sb_puts(&v, "none");
        else
            term_print(mt->m->g->ts, g, &v);
        fprintf(out, "goal %s %s\n", role_text(mt, i, &sb), sb_str(&v));
    }
    fprintf(out, "end\n");
    fflush(out);
    sb_fini(&sb);
    sb_fini(&v);
}

/* ---- messages, in the reference game master's spelling ---- */

static void put_clock(strbuf_t *sb, double s) {
    sb_printf(sb, "%.10g", s);
}

static void start_body(match_t *mt, seat_t *st, strbuf_t *out) {
    master_t *m = mt->m;
    sb_printf(out, "( START %s ", mt->id);
    casemap_print(&m->spelling, m->g->ts, m->g->roles[st->role], out);
    sb_printf(out, " (%s) ", m->rules);
    put_clock(out, m->cfg.startclock);
    sb_putc(out, ' ');
    put_clock(out, m->cfg.playclock);
    sb_putc(out, ')');
}

/* PLAY or STOP: the last joint move (GDL), or turn, last move and percepts (GDL-II). */
static void turn_body(match_t *mt, seat_t *st, const char *kw, strbuf_t *out) {
    master_t *m = mt->m;
    sb_printf(out, "( %s %s ", kw, mt->id);
    if (!m->g->gdl2) {
        if (mt->step == 0)
            sb_puts(out, "NIL");
        else
            casemap_print_list(&m->spelling, m->g->ts, mt->joint, mt->n_roles, out);
    } else {
        sb_printf(out, "%u ", mt->step);
        if (mt->step == 0)
            sb_puts(out, "NIL");
        else
            casemap_print(&m->spelling, m->g->ts, mt->joint[st->role], out);
        sb_putc(out, ' ');
        if (!st->n_percepts)
            sb_puts(out, "NIL");
        else
            casemap_print_list(&m->spelling, m->g->ts, st->percepts, st->n_percepts, out);
    }
    sb_puts(out, " )");
}

static void send_all(match_t *mt, double timeout) {
    for (uint32_t s = 0; s < mt->m->n_seats; s++)
        if (mt->seats[s].call.body.len) call_begin(&mt->seats[s].call, timeout);
}

static void end_all(match_t *mt) {
    for (uint32_t s = 0; s < mt->m->n_seats; s++)
        call_end(&mt->seats[s].call);
}

/* Writes every remote seat's message of kind kw (START, PLAY, STOP or ABORT). */
static void prepare(match_t *mt, const char *kw) {
    for (uint32_t s = 0; s < mt->m->n_seats; s++) {
        seat_t *st = &mt->seats[s];
        sb_clear(&st->call.body);
        if (st->agent || st->who->kind) continue;
        if (!strcmp(kw, "START"))
            start_body(mt, st, &st->call.body);
        else if (!strcmp(kw, "ABORT"))
            sb_printf(&st->call.body, "( ABORT %s )", mt->id);
        else
            turn_body(mt, st, kw, &st->call.body);
    }
}

/* ---- the match ---- */

static void match_init(match_t *mt, master_t *m, uint32_t k, contestant_t *const *who,
                       match_result_t *res) {
    memset(mt, 0, sizeof *mt);
    mt->m = m;
    mt->res = res;
    mt->n_roles = m->g->n_roles;
    snprintf(mt->id, sizeof mt->id, "ggp.%.100s.%ld.%u", m->id_name, (long)getpid(), k + 1);
    memset(res, 0, sizeof *res);
    res->seats = xcalloc(m->n_seats + 1, sizeof *res->seats);
    mt->seats = xcalloc(m->n_seats + 1, sizeof *mt->seats);
    for (uint32_t s = 0; s < m->n_seats; s++) {
        seat_t *st = &mt->seats[s];
        st->who = who[s];
        st->role = m->seat_role[s];
        st->res = &res->seats[s];
        st->call.who = who[s];
        httpc_reply_init(&st->call.reply);
    }
    joints_init(&mt->legal, mt->n_roles);
    mt->joint = xcalloc(mt->n_roles + 1, sizeof *mt->joint);
    mt->answer = xcalloc(m->n_seats + 1, sizeof *mt->answer);
    mt->ms = xcalloc(m->n_seats + 1, sizeof *mt->ms);
    state_init(&mt->state);
    mt->cur = engine_state_new(m->e);
    mt->nx = engine_state_new(m->e);
    engine_initial(m->e, mt->cur);
    engine_state_terms(m->e, mt->cur, &mt->state);
}

static void match_fini(match_t *mt) {
    for (uint32_t s = 0; s < mt->m->n_seats; s++) {
        seat_t *st = &mt->seats[s];
        agent_free(st->agent);
        sb_fini(&st->call.body);
        httpc_reply_fini(&st->call.reply);
        free(st->percepts);
    }
    free(mt->seats);
    joints_fini(&mt->legal);
    free(mt->joint);
    free(mt->answer);
    free(mt->ms);
    state_fini(&mt->state);
    engine_state_free(mt->cur);
    engine_state_free(mt->nx);
}

static void start_phase(match_t *mt) {
    master_t *m = mt->m;
    prepare(mt, "START");
    send_all(mt, m->cfg.startclock);
    for (uint32_t s = 0; s < m->n_seats; s++) {
        seat_t *st = &mt->seats[s];
        if (!st->who->kind) continue;
        agent_config_t cfg = {.kind = st->who->kind,
                              .startclock = m->cfg.startclock,
                              .playclock = m->cfg.playclock,
                              .seed = splitmix_next(&m->rng),
                              .verbose = m->cfg.verbose};
        double t0 = now_seconds();
        st->agent = agent_new(m->g, st->role, &cfg);
        agent_engine_final(st->agent); /* no second agent here */
        agent_start(st->agent, t0 + m->cfg.startclock - LOCAL_MARGIN);
        double secs = now_seconds() - t0;
        st->res->start_late = secs > m->cfg.startclock;
        if (st->res->start_late)
            fprintf(stderr,
                    "ggp match: %s: %s answered START after %.1f ms (start clock %.0f ms)\n",
                    mt->id, st->who->spec, secs * 1000, m->cfg.startclock * 1000);
    }
    end_all(mt);
    for (uint32_t s = 0; s < m->n_seats; s++) {
        seat_t *st = &mt->seats[s];
        if (st->agent) continue;
        httpc_reply_t *r = &st->call.reply;
        st->res->start_late = r->result == HTTPC_TIMEOUT || r->result == HTTPC_CONNECT_FAILED;
        bool ok = r->result == HTTPC_OK && r->status == 200 && strstr(sb_str(&r->body), "ready");
        if (!ok) {
            st->res->start_failed = true;
            fprintf(stderr, "ggp match: %s: %s did not answer START with ready (%s%s)\n", mt->id,
                    st->who->spec,
                    r->error[0] ? r->error : "reply: ", r->error[0] ? "" : sb_str(&r->body));
        }
    }
}

/* Every role's legal moves in the current state, sorted; false (with the error set) when a
 * role has none. */
static bool load_legal(match_t *mt) {
    master_t *m = mt->m;
    joints_load(&mt->legal, m->e, mt->cur, JOINTS_TRACE_ORDER, JOINTS_NONE, TERM_NONE);
    for (uint32_t i = 0; i < mt->n_roles; i++) {
        if (!mt->legal.n[i]) {
            const char *why = engine_error(m->e); /* the rules evaluator gave up: say why */
            if (why)
                snprintf(mt->res->error, sizeof mt->res->error, "step %u: %s", mt->step, why);
            else
                snprintf(mt->res->error, sizeof mt->res->error,
                         "step %u: role %s has no legal move", mt->step,
                         term_sym_name(m->g->ts, term_sym(m->g->ts, m->g->roles[i])));
            return false;
        }
    }
    if (m->cfg.trace) {
        strbuf_t head;
        sb_init(&head);
        for (uint32_t i = 0; i < mt->n_roles; i++) {
            sb_clear(&head);
            sb_puts(&head, "legal ");
            role_text(mt, i, &m->sb);
            sb_puts(&head, sb_str(&m->sb));
            trace_line(mt, sb_str(&head), mt->legal.legal[i], mt->legal.n[i]);
        }
        sb_fini(&head);
        fprintf(m->cfg.trace, "terminal no\n");
    }
    return true;
}

/* A local seat learns the last turn and chooses its move. */
static void local_turn(match_t *mt, uint32_t s) {
    master_t *m = mt->m;
    seat_t *st = &mt->seats[s];
    double t0 = now_seconds();
    if (mt->step > 0 && !m->g->gdl2) agent_advance(st->agent, mt->joint);
    if (mt->step > 0 && m->g->gdl2)
        agent_observe(st->agent, mt->step, mt->joint[st->role], st->percepts, st->n_percepts,
                      t0 + m->cfg.playclock / 2);
    double clock = m->cfg.playclock;
    mt->answer[s] = agent_play(
        st->agent, t0 + (clock > 2 * LOCAL_MARGIN ? clock - LOCAL_MARGIN : clock / 2), NULL);
    mt->ms[s] = (now_seconds() - t0) * 1000;
    if (mt->ms[s] > (clock + PLAY_GRACE) * 1000) mt->answer[s] = TERM_NONE;
    if (m->cfg.verbose) {
        strbuf_t stats;
        sb_init(&stats);
        agent_stats(st->agent, &stats);
        fprintf(stderr, "ggp match: %s step %u: %s %s\n", mt->id, mt->step, st->who->spec,
                sb_str(&stats));
        sb_fini(&stats);
    }
}

/* A remote seat's reply as a term (TERM_NONE when late, failed or not one term). */
static term_t reply_move(match_t *mt, seat_t *st, double *ms, bool *late) {
    httpc_reply_t *r = &st->call.reply;
    *ms = r->seconds * 1000;
    *late = r->result == HTTPC_TIMEOUT || r->result == HTTPC_CONNECT_FAILED;
    if (r->result != HTTPC_OK || r->status != 200) return TERM_NONE;
    diag_t d;
    diag_init(&d);
    sexp_doc_t doc;
    term_t t = TERM_NONE;
    if (sexp_parse(mt->m->g->ts, r->body.data, r->body.len, "reply", &doc, &d) && doc.n == 1)
        t = game_ground_term(mt->m->g, doc.first);
    sexp_doc_free(&doc);
    diag_fini(&d);
    return t;
}

static bool is_legal_in(const term_t *legal, uint32_t n, term_t move) {
    for (uint32_t i = 0; i < n; i++)
        if (legal[i] == move) return true;
    return false;
}

/* The joint move: each seat's answer if legal, else a random legal move (counted). */
static void choose(match_t *mt) {
    master_t *m = mt->m;
    joints_random(&mt->legal, &m->rng, mt->joint);
    for (uint32_t s = 0; s < m->n_seats; s++) {
        seat_t *st = &mt->seats[s];
        bool late = false;
        double ms = mt->ms[s];
        term_t move = st->agent ? mt->answer[s] : reply_move(mt, st, &ms, &late);
        if (st->agent) late = move == TERM_NONE;
        st->res->moves++;
        if (ms > st->res->slowest_ms) st->res->slowest_ms = ms;
        if (move != TERM_NONE &&
            is_legal_in(mt->legal.legal[st->role], mt->legal.n[st->role], move)) {
            mt->joint[st->role] = move;
            continue;
        }
        if (late)
            st->res->timeouts++;
        else
            st->res->illegal++;
        if (m->cfg.verbose)
            fprintf(stderr, "ggp match: %s step %u: %s %s; a random move is played for it\n",
                    mt->id, mt->step, st->who->spec,
                    late ? "missed the clock" : "sent an illegal or unparsable move");
    }
}

/* After the joint move: what each role sees (kept for GDL-II messages and traced). */
static void percepts_and_trace(match_t *mt) {
    master_t *m = mt->m;
    if (m->cfg.trace) {
        strbuf_t sb;
        sb_init(&sb);
        for (uint32_t i = 0; i < mt->n_roles; i++) {
            sb_putc(&sb, ' ');
            term_print(m->g->ts, mt->joint[i], &sb);
        }
        fprintf(m->cfg.trace, "does%s\n", sb_str(&sb));
        sb_fini(&sb);
    }
    if (!m->g->gdl2) return;
    strbuf_t head;
    sb_init(&head);
    for (uint32_t i = 0; i < mt->n_roles; i++) {
        const term_t *p;
        uint32_t n = engine_sees(m->e, mt->cur, mt->joint, i, &p);
        sb_clear(&head);
        sb_printf(&head, "sees %s", role_text(mt, i, &m->sb));
        if (n) trace_line(mt, sb_str(&head), p, n);
        for (uint32_t s = 0; s < m->n_seats; s++) {
            seat_t *st = &mt->seats[s];
            if (st->role != i) continue;
            GROW(st->percepts, st->cap_percepts, n + 1);
            if (n) memcpy(st->percepts, p, n * sizeof *p);
            st->n_percepts = n;
        }
    }
    sb_fini(&head);
}

/* One step from a non-terminal state; false when the match cannot go on. */
static bool play_step(match_t *mt) {
    master_t *m = mt->m;
    if (!load_legal(mt)) return false;
    prepare(mt, "PLAY");
    send_all(mt, m->cfg.playclock + PLAY_GRACE);
    for (uint32_t s = 0; s < m->n_seats; s++)
        if (mt->seats[s].agent) local_turn(mt, s);
    end_all(mt);
    choose(mt);
    percepts_and_trace(mt);
    engine_next(m->e, mt->cur, mt->joint, mt->nx);
    eng_state_t *t = mt->cur;
    mt->cur = mt->nx, mt->nx = t;
    engine_state_terms(m->e, mt->cur, &mt->state);
    mt->step++;
    return true;
}

static void finish(match_t *mt) {
    master_t *m = mt->m;
    prepare(mt, "STOP");
    send_all(mt, m->cfg.playclock);
    for (uint32_t s = 0; s < m->n_seats; s++)
        if (mt->seats[s].agent) {
            agent_stop(mt->seats[s].agent);
            agent_search(mt->seats[s].agent, &mt->seats[s].who->search);
        }
    end_all(mt);
    for (uint32_t s = 0; s < m->n_seats; s++)
        mt->seats[s].res->goal = engine_goal_value(m->e, mt->cur, mt->seats[s].role);
    trace_end(mt);
}

bool master_play(master_t *m, uint32_t k, contestant_t *const *who, match_result_t *res) {
    match_t mt;
    double t0 = now_seconds();
    if (m->cfg.duplicate) {
        splitmix_t block = {k / m->cfg.duplicate}; /* the block's number, mixed */
        m->rng.s = m->cfg.seed ^ splitmix_next(&block);
    }
    match_init(&mt, m, k, who, res);
    trace_head(&mt);
    start_phase(&mt);
    bool ok = true;
    for (;;) {
        if (m->cfg.trace) fprintf(m->cfg.trace, "step %u\n", mt.step);
        trace_line(&mt, "state", mt.state.facts, mt.state.n);
        bool terminal = engine_terminal(m->e, mt.cur);
        if (engine_error(m->e)) { /* every state reads terminal then: no match to score */
            snprintf(res->error, sizeof res->error, "step %u: %s", mt.step, engine_error(m->e));
            ok = false;
            break;
        }
        if (terminal) break;
        if (mt.step >= m->cfg.max_steps) {
            snprintf(res->error, sizeof res->error, "no end within %u steps", m->cfg.max_steps);
            ok = false;
        }
        if (!ok || !(ok = play_step(&mt))) break;
    }
    if (ok) {
        finish(&mt);
    } else {
        prepare(&mt, "ABORT");
        send_all(&mt, ABORT_CLOCK);
        end_all(&mt);
        if (m->cfg.trace) fflush(m->cfg.trace);
    }
    res->steps = mt.step;
    res->seconds = now_seconds() - t0;
    match_fini(&mt);
    return ok;
}
