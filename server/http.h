/* The HTTP face of the player, on libmicrohttpd: POST / with the message as the body, GET
 * with the message URL-encoded in the path (or as the whole query), OPTIONS with an empty
 * answer. Replies are HTTP/1.0 with Content-Type text/acl, Content-Length and the CORS
 * headers of the reference players, and the connection is closed after each. A body over
 * the size limit gets 413, a message that does not parse 400, another method 405; each
 * request gets one log line (time, match id, command, ms used, status, reply).
 *
 * One thread per connection (request threads may block until a deadline, see service.h). */
#ifndef SERVER_HTTP_H
#define SERVER_HTTP_H

#include <stdint.h>

#include "server/service.h"

typedef struct {
    const char *bind; /* IPv4 address to listen on; NULL for all interfaces */
    uint16_t port;    /* 0 picks a free port */
    size_t max_body;  /* bytes; larger bodies get 413 */
    bool verbose;
} http_config_t;

#define HTTP_DEFAULT_MAX_BODY (4u << 20)

typedef struct http_server http_server_t;

/* Starts serving; NULL with a reason in err when the address cannot be bound. */
http_server_t *http_start(const http_config_t *cfg, service_t *svc, strbuf_t *err);
/* The port actually listened on. */
uint16_t http_port(const http_server_t *h);
/* Stops accepting and waits for the open connections to finish. */
void http_stop(http_server_t *h);

#endif
