/* A small blocking HTTP/1.0 client for the game master: one POST per message on a new
 * connection, with the headers the reference game master sends, and poll() timeouts on
 * connecting and on the whole reply. No dependency beyond sockets. Safe from any thread. */
#ifndef SERVER_HTTPC_H
#define SERVER_HTTPC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

typedef enum { HTTPC_OK, HTTPC_CONNECT_FAILED, HTTPC_TIMEOUT, HTTPC_BAD_REPLY } httpc_result_t;

typedef struct {
    httpc_result_t result;
    int status; /* the HTTP status (HTTPC_OK) */
    strbuf_t body;
    double seconds; /* from sending the request to the end of the reply (or the failure) */
    char error[160];
} httpc_reply_t;

#define HTTPC_MAX_REPLY (1u << 20)

void httpc_reply_init(httpc_reply_t *r);
void httpc_reply_fini(httpc_reply_t *r);

/* POSTs body to http://host:port/ and reads the reply: the connection must be made within
 * connect_timeout seconds, and the reply complete within timeout seconds of sending. */
void httpc_post(const char *host, const char *port, const char *body, size_t len,
                double connect_timeout, double timeout, httpc_reply_t *out);

/* Splits "http://HOST:PORT" (a trailing '/' allowed; port 9147 when absent) into fresh
 * strings; false when url is not of that form. */
bool httpc_parse_url(const char *url, char **host, char **port);

#endif
