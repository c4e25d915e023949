/* The HTTP face of the player: see http.h. */
#define _POSIX_C_SOURCE 200809L
#include "server/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#include "base/clock.h"
#include "server/log.h"

#define CONNECTION_LIMIT 64
#define IDLE_TIMEOUT_S 60 /* a connection that sends nothing this long is dropped */

struct http_server {
    struct MHD_Daemon *d;
    service_t *svc;
    http_config_t cfg;
    uint16_t port;
};

/* One request: its body as it arrives, and what the log line will say. */
typedef struct {
    strbuf_t body;
    double t0, deadline;
    bool too_big;
    const char *cmd;
    char *id;
    int status;
    strbuf_t note;
} request_t;

static request_t *request_new(void) {
    request_t *rq = xcalloc(1, sizeof *rq);
    rq->t0 = now_seconds();
    rq->cmd = "-";
    return rq;
}

static void request_free(request_t *rq) {
    sb_fini(&rq->body);
    sb_fini(&rq->note);
    free(rq->id);
    free(rq);
}

static enum MHD_Result send_reply(struct MHD_Connection *c, request_t *rq, unsigned status,
                                  const char *body, const char *ctype) {
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(r, "Access-Control-Allow-Methods", "POST, GET, OPTIONS");
    MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type");
    MHD_add_response_header(r, "Access-Control-Allow-Age", "86400");
    MHD_set_response_options(r, MHD_RF_HTTP_VERSION_1_0_ONLY | MHD_RF_HTTP_VERSION_1_0_RESPONSE,
                             MHD_RO_END);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    rq->status = (int)status;
    sb_clear(&rq->note);
    sb_printf(&rq->note, "%.100s", body);
    while (rq->note.len && rq->note.data[rq->note.len - 1] == '\n')
        rq->note.data[--rq->note.len] = 0;
    return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *c, request_t *rq, unsigned status,
                                  const char *why) {
    strbuf_t body;
    sb_init(&body);
    sb_printf(&body, "error: %s\n", why);
    if (!strcmp(rq->cmd, "-")) rq->cmd = "bad";
    enum MHD_Result ret = send_reply(c, rq, status, sb_str(&body), "text/plain");
    sb_fini(&body);
    return ret;
}

/* GET: the message is the URL path after '/' (microhttpd has decoded it), else the query. */
static enum MHD_Result first_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value) {
    (void)kind;
    strbuf_t *out = cls;
    sb_puts(out, key);
    if (value) sb_printf(out, "=%s", value);
    return MHD_NO;
}

static void message_from_get(struct MHD_Connection *c, const char *url, strbuf_t *out) {
    sb_clear(out);
    if (url[0] == '/' && url[1])
        sb_puts(out, url + 1);
    else
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, first_arg, out);
    sb_str(out);
}

static enum MHD_Result answer(http_server_t *h, struct MHD_Connection *c, request_t *rq) {
    proto_msg_t msg;
    strbuf_t err, reply;
    sb_init(&err);
    sb_init(&reply);
    enum MHD_Result ret;
    if (!proto_parse(rq->body.data, rq->body.len, &msg, &err)) {
        rq->cmd = "bad";
        ret = send_error(c, rq, MHD_HTTP_BAD_REQUEST, sb_str(&err));
    } else {
        rq->cmd = proto_kind_name(msg.kind);
        if (msg.id) rq->id = xstrdup(msg.id);
        service_answer(h->svc, &msg, rq->body.data, rq->body.len, rq->t0, &reply, &rq->deadline);
        ret = send_reply(c, rq, MHD_HTTP_OK, sb_str(&reply), "text/acl");
    }
    sb_fini(&err);
    sb_fini(&reply);
    return ret;
}

static enum MHD_Result respond(http_server_t *h, struct MHD_Connection *c, request_t *rq,
                               const char *url, const char *method) {
    if (!strcmp(method, "OPTIONS")) {
        rq->cmd = "options";
        return send_reply(c, rq, MHD_HTTP_OK, "", "text/acl");
    }
    if (!strcmp(method, "GET"))
        message_from_get(c, url, &rq->body);
    else if (strcmp(method, "POST") != 0)
        return send_error(c, rq, MHD_HTTP_METHOD_NOT_ALLOWED, method);
    if (rq->too_big) return send_error(c, rq, 413 /* content too large */, "message too large");
    sb_str(&rq->body);
    return answer(h, c, rq);
}

/* The first call for a request: refuses a declared body over the limit at once. */
static enum MHD_Result begin(http_server_t *h, struct MHD_Connection *c, request_t *rq) {
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > h->cfg.max_body) {
        rq->too_big = true;
        return send_error(c, rq, 413 /* content too large */, "message too large");
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls) {
    (void)version;
    http_server_t *h = cls;
    request_t *rq = *con_cls;
    if (!rq) {
        *con_cls = rq = request_new();
        return begin(h, c, rq);
    }
    if (rq->status) { /* answered already (413 on the first call): discard the rest */
        *size = 0;
        return MHD_YES;
    }
    if (*size) {
        if (rq->body.len + *size > h->cfg.max_body)
            rq->too_big = true;
        else
            sb_putn(&rq->body, data, *size);
        *size = 0;
        return MHD_YES;
    }
    return respond(h, c, rq, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)c;
    http_server_t *h = cls;
    request_t *rq = *con_cls;
    if (!rq) return;
    double done = now_seconds();
    service_report_sent(h->svc, rq->deadline, done);
    char due[40] = ""; /* when the answer was due by our margin (START and PLAY) */
    if (rq->deadline > 0) snprintf(due, sizeof due, " due_ms=%.0f", (rq->deadline - rq->t0) * 1000);
    log_line("match=%s cmd=%s ms=%.0f%s status=%d%s reply=%s", rq->id ? rq->id : "-", rq->cmd,
             (done - rq->t0) * 1000, due, rq->status,
             toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (connection closed early)",
             rq->note.len ? sb_str(&rq->note) : "-");
    request_free(rq);
    *con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = 0;
    log_line("microhttpd: %s", buf);
}

http_server_t *http_start(const http_config_t *cfg, service_t *svc, strbuf_t *err) {
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(cfg->port)};
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (cfg->bind && inet_pton(AF_INET, cfg->bind, &addr.sin_addr) != 1) {
        sb_printf(err, "'%s' is not an IPv4 address", cfg->bind);
        return NULL;
    }
    http_server_t *h = xcalloc(1, sizeof *h);
    h->svc = svc;
    h->cfg = *cfg;
    h->d = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, cfg->port,
        NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)IDLE_TIMEOUT_S, MHD_OPTION_END);
    if (!h->d) {
        sb_printf(err, "cannot listen on %s:%u", cfg->bind ? cfg->bind : "*", cfg->port);
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : cfg->port;
    return h;
}

uint16_t http_port(const http_server_t *h) {
    return h->port;
}

void http_stop(http_server_t *h) {
    if (!h) return;
    MHD_stop_daemon(h->d);
    free(h);
}
