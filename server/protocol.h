/* The GGP match protocol (docs/http.md): request bodies parsed into a
 * message struct, and the texts of the replies.
 *
 * Parsing goes through the KIF parser (sexp.h) with a scratch term store per call, so it
 * is safe from any thread. Keywords are case-insensitive. Every term of a message is kept
 * as canonical lower-case text (sexp_print): the receiver parses it into its own store. */
#ifndef SERVER_PROTOCOL_H
#define SERVER_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

typedef enum { MSG_INFO, MSG_START, MSG_PLAY, MSG_STOP, MSG_ABORT, MSG_PREVIEW } msg_kind_t;

typedef struct {
    msg_kind_t kind;
    char *id;    /* START, PLAY, STOP, ABORT: the match id */
    char *role;  /* START */
    char *rules; /* START, PREVIEW: one rule per line, canonical text */
    uint32_t n_rules;
    double startclock, playclock; /* START (seconds); PREVIEW's clock is startclock */
    bool gdl2;                    /* PLAY, STOP in the GDL-II form (TURN LASTMOVE PERCEPTS) */
    bool nil;                     /* GDL PLAY, STOP: NIL instead of a joint move */
    char **moves;                 /* GDL PLAY, STOP: the joint move, in role order */
    uint32_t n_moves;
    uint32_t turn;   /* GDL-II */
    char *lastmove;  /* GDL-II: NULL for NIL */
    char **percepts; /* GDL-II */
    uint32_t n_percepts;
} proto_msg_t;

/* Parses a request body. Returns true and fills msg (release it with proto_msg_fini), or
 * false with a one-line reason in err (msg is then empty, and proto_msg_fini is harmless). */
bool proto_parse(const char *body, size_t len, proto_msg_t *msg, strbuf_t *err);
void proto_msg_fini(proto_msg_t *msg);

/* The lower-case name of a message kind: "info", "start", ... */
const char *proto_kind_name(msg_kind_t kind);

#define PROTO_READY "ready"
#define PROTO_DONE "done"
#define PROTO_ABORTED "aborted"
#define PROTO_BUSY "busy"

/* The reply to INFO: ((name NAME) (status available|busy)). A name that is not a plain
 * symbol is sanitised (spaces and parentheses become '_'). */
void proto_reply_info(strbuf_t *out, const char *name, bool busy);

#endif
