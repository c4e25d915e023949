/* The GGP match protocol: see protocol.h. */
#include "server/protocol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdl/sexp.h"

static const char *const kind_names[] = {"info", "start", "play", "stop", "abort", "preview"};
#define N_KINDS (sizeof kind_names / sizeof kind_names[0])

const char *proto_kind_name(msg_kind_t kind) {
    return (unsigned)kind < N_KINDS ? kind_names[kind] : "?";
}

/* The parse of one message: the scratch store, the message and where errors go. */
typedef struct {
    term_store_t *ts;
    proto_msg_t *msg;
    strbuf_t *err;
} pctx_t;

static bool fail(pctx_t *c, const char *what) {
    sb_clear(c->err);
    sb_printf(c->err, "%s %s", proto_kind_name(c->msg->kind), what);
    return false;
}

static char *text_of(const pctx_t *c, const sexp_t *e) {
    strbuf_t sb;
    sb_init(&sb);
    sexp_print(c->ts, e, &sb);
    sb_str(&sb);
    return sb.data;
}

static bool is_atom(const sexp_t *e) {
    return e && e->kind == SEXP_ATOM;
}
static bool is_nil(const sexp_t *e) {
    return is_atom(e) && e->sym == SYM_NIL;
}

/* A ground term: an atom, or a list of ground terms headed by an atom. */
static bool is_term(const sexp_t *e) {
    if (is_atom(e)) return true;
    if (!e || e->kind != SEXP_LIST || !is_atom(e->first)) return false;
    for (const sexp_t *a = e->first->next; a; a = a->next)
        if (!is_term(a)) return false;
    return true;
}

static bool get_number(pctx_t *c, const sexp_t *e, double *out) {
    if (!is_atom(e)) return false;
    const char *s = term_sym_name(c->ts, e->sym);
    char *end;
    if (*s < '0' || *s > '9') return false;
    *out = strtod(s, &end);
    return *end == 0 && isfinite(*out) && *out <= 1e7;
}

/* A list of terms into (*items, *n); NIL or () gives none. */
static bool get_terms(pctx_t *c, const sexp_t *e, char ***items, uint32_t *n) {
    *items = NULL;
    *n = 0;
    if (is_nil(e)) return true;
    if (!e || e->kind != SEXP_LIST) return false;
    for (const sexp_t *a = e->first; a; a = a->next)
        if (!is_term(a)) return false;
    *items = xcalloc(e->n + 1, sizeof **items);
    for (const sexp_t *a = e->first; a; a = a->next)
        (*items)[(*n)++] = text_of(c, a);
    return true;
}

static bool get_rules(pctx_t *c, const sexp_t *e) {
    if (!e || e->kind != SEXP_LIST) return false;
    strbuf_t sb;
    sb_init(&sb);
    for (const sexp_t *r = e->first; r; r = r->next) {
        sexp_print(c->ts, r, &sb);
        sb_putc(&sb, '\n');
    }
    sb_str(&sb);
    c->msg->rules = sb.data;
    c->msg->n_rules = e->n;
    return true;
}

static bool get_id(pctx_t *c, const sexp_t *e) {
    if (!is_atom(e)) return fail(c, "needs a match id (a symbol)");
    c->msg->id = text_of(c, e);
    return true;
}

static bool parse_start(pctx_t *c, const sexp_t *m) {
    if (m->n != 6) return fail(c, "takes 5 arguments: ID ROLE (RULES...) STARTCLOCK PLAYCLOCK");
    if (!get_id(c, sexp_child(m, 1))) return false;
    const sexp_t *role = sexp_child(m, 2);
    if (!is_term(role)) return fail(c, "needs a role (a ground term)");
    c->msg->role = text_of(c, role);
    if (!get_rules(c, sexp_child(m, 3))) return fail(c, "needs the rules as a list");
    if (!get_number(c, sexp_child(m, 4), &c->msg->startclock) ||
        !get_number(c, sexp_child(m, 5), &c->msg->playclock))
        return fail(c, "needs the clocks as non-negative numbers of seconds");
    return true;
}

/* PLAY and STOP: (KW ID MOVES) in GDL, (KW ID TURN LASTMOVE PERCEPTS) in GDL-II. */
static bool parse_play(pctx_t *c, const sexp_t *m) {
    proto_msg_t *msg = c->msg;
    if (m->n != 3 && m->n != 5)
        return fail(c, "takes ID MOVES (GDL) or ID TURN LASTMOVE PERCEPTS (GDL-II)");
    if (!get_id(c, sexp_child(m, 1))) return false;
    if (m->n == 3) {
        const sexp_t *mv = sexp_child(m, 2);
        if (!get_terms(c, mv, &msg->moves, &msg->n_moves))
            return fail(c, "needs NIL or a list of moves");
        msg->nil = msg->n_moves == 0;
        return true;
    }
    msg->gdl2 = true;
    double turn;
    if (!get_number(c, sexp_child(m, 2), &turn) || turn != floor(turn) || turn > UINT32_MAX)
        return fail(c, "needs the turn as a non-negative integer");
    msg->turn = (uint32_t)turn;
    const sexp_t *last = sexp_child(m, 3);
    if (!is_nil(last) && !is_term(last)) return fail(c, "needs NIL or a move as the last move");
    if (!is_nil(last)) msg->lastmove = text_of(c, last);
    if (!get_terms(c, sexp_child(m, 4), &msg->percepts, &msg->n_percepts))
        return fail(c, "needs NIL or a list of percepts");
    return true;
}

static bool parse_body(pctx_t *c, const sexp_t *m) {
    switch (c->msg->kind) {
    case MSG_INFO:
        return m->n == 1 || fail(c, "takes no arguments");
    case MSG_START:
        return parse_start(c, m);
    case MSG_PLAY:
    case MSG_STOP:
        return parse_play(c, m);
    case MSG_ABORT:
        return (m->n == 2 || fail(c, "takes 1 argument: ID")) && get_id(c, sexp_child(m, 1));
    case MSG_PREVIEW:
        if (m->n != 3) return fail(c, "takes 2 arguments: (RULES...) CLOCK");
        if (!get_rules(c, sexp_child(m, 1))) return fail(c, "needs the rules as a list");
        return get_number(c, sexp_child(m, 2), &c->msg->startclock) ||
               fail(c, "needs the clock as a non-negative number of seconds");
    }
    return false;
}

static bool parse_message(pctx_t *c, const sexp_doc_t *doc) {
    const sexp_t *m = doc->first;
    if (doc->n != 1 || m->kind != SEXP_LIST || !is_atom(m->first)) {
        sb_puts(c->err, "a message is one list headed by a keyword");
        return false;
    }
    const char *kw = term_sym_name(c->ts, m->first->sym);
    for (unsigned k = 0; k < N_KINDS; k++) {
        if (strcmp(kw, kind_names[k]) != 0) continue;
        c->msg->kind = (msg_kind_t)k;
        return parse_body(c, m);
    }
    sb_printf(c->err, "unknown command '%.40s'", kw);
    return false;
}

bool proto_parse(const char *body, size_t len, proto_msg_t *msg, strbuf_t *err) {
    memset(msg, 0, sizeof *msg);
    sb_clear(err);
    pctx_t c = {.ts = term_store_new(), .msg = msg, .err = err};
    diag_t d;
    diag_init(&d);
    sexp_doc_t doc;
    bool ok = false;
    if (!sexp_parse(c.ts, body, len, "request", &doc, &d))
        sb_printf(err, "malformed S-expression: %s", d.n ? d.items[0].msg : "parse error");
    else
        ok = parse_message(&c, &doc);
    sexp_doc_free(&doc);
    diag_fini(&d);
    term_store_free(c.ts);
    if (!ok) {
        proto_msg_fini(msg);
        if (!err->len) sb_puts(err, "malformed message");
    }
    return ok;
}

static void free_list(char **items, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        free(items[i]);
    free(items);
}

void proto_msg_fini(proto_msg_t *msg) {
    free(msg->id);
    free(msg->role);
    free(msg->rules);
    free_list(msg->moves, msg->n_moves);
    free(msg->lastmove);
    free_list(msg->percepts, msg->n_percepts);
    memset(msg, 0, sizeof *msg);
}

void proto_reply_info(strbuf_t *out, const char *name, bool busy) {
    sb_puts(out, "((name ");
    if (!*name) sb_putc(out, '_');
    for (const char *p = name; *p; p++)
        sb_putc(out, strchr(" \t\r\n\f\v();?\"", *p) || (unsigned char)*p < 32 ? '_' : *p);
    sb_printf(out, ") (status %s))", busy ? "busy" : "available");
}
