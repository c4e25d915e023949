/* A small blocking HTTP/1.0 client: see httpc.h. */
#define _POSIX_C_SOURCE 200809L
#include "match/httpc.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

void httpc_reply_init(httpc_reply_t *r) {
    memset(r, 0, sizeof *r);
}
void httpc_reply_fini(httpc_reply_t *r) {
    sb_fini(&r->body);
}

static void fail(httpc_reply_t *r, httpc_result_t why, const char *what) {
    r->result = why;
    snprintf(r->error, sizeof r->error, "%s", what);
}

/* Waits until fd is ready for events or the deadline passes; false on timeout. */
static bool wait_fd(int fd, short events, double deadline) {
    for (;;) {
        double left = deadline - now_seconds();
        if (left <= 0) return false;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n > 0) return true;
        if (n < 0 && errno != EINTR) return true; /* let the next call report it */
    }
}

/* A non-blocking socket connected to one of host's addresses, or -1 (r says why). */
static int connect_to(const char *host, const char *port, double deadline, httpc_reply_t *r) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *a;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        fail(r, HTTPC_CONNECT_FAILED, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    fail(r, HTTPC_CONNECT_FAILED, "connection refused");
    for (a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        int err = 0;
        socklen_t el = sizeof err;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS && wait_fd(fd, POLLOUT, deadline) &&
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0)
            break;
        if (now_seconds() >= deadline)
            fail(r, HTTPC_CONNECT_FAILED, "connect timed out");
        else
            fail(r, HTTPC_CONNECT_FAILED, strerror(err ? err : errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

static bool send_all(int fd, const char *p, size_t n, double deadline) {
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!wait_fd(fd, POLLOUT, deadline)) return false;
        } else {
            return false;
        }
    }
    return true;
}

/* Parses the status line and headers of raw (head_len bytes); -1 length when absent. */
static bool parse_head(const char *raw, size_t head_len, int *status, long *length) {
    int major, minor;
    if (sscanf(raw, "HTTP/%d.%d %d", &major, &minor, status) != 3) return false;
    *length = -1;
    for (const char *p = raw; p && p < raw + head_len; p = strstr(p, "\r\n")) {
        p += (*p == '\r') ? 2 : 0;
        if (!strncasecmp(p, "Content-Length:", 15)) *length = strtol(p + 15, NULL, 10);
    }
    return true;
}

/* Reads the reply until it is complete (by Content-Length, else the connection closing). */
static void read_reply(int fd, double deadline, httpc_reply_t *r) {
    strbuf_t raw;
    sb_init(&raw);
    char buf[8192];
    long length = -1;
    size_t head = 0;
    fail(r, HTTPC_TIMEOUT, "no complete reply in time");
    for (;;) {
        if (head && length >= 0 && raw.len >= head + (size_t)length) break;
        if (!wait_fd(fd, POLLIN, deadline)) goto done;
        ssize_t k = recv(fd, buf, sizeof buf, 0);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (k <= 0) break;
        sb_putn(&raw, buf, (size_t)k);
        if (raw.len > HTTPC_MAX_REPLY) {
            fail(r, HTTPC_BAD_REPLY, "reply too large");
            goto done;
        }
        const char *end = head ? NULL : strstr(sb_str(&raw), "\r\n\r\n");
        if (end) {
            head = (size_t)(end - raw.data) + 4;
            if (!parse_head(raw.data, head, &r->status, &length)) break;
        }
    }
    if (!head || !parse_head(raw.data, head, &r->status, &length)) {
        fail(r, HTTPC_BAD_REPLY, "not an HTTP reply");
        goto done;
    }
    size_t n = raw.len - head;
    if (length >= 0 && (size_t)length < n) n = (size_t)length;
    sb_putn(&r->body, raw.data + head, n);
    r->result = HTTPC_OK;
    r->error[0] = 0;
done:
    sb_fini(&raw);
}

void httpc_post(const char *host, const char *port, const char *body, size_t len,
                double connect_timeout, double timeout, httpc_reply_t *out) {
    sb_clear(&out->body);
    sb_str(&out->body);
    out->status = 0;
    int fd = connect_to(host, port, now_seconds() + connect_timeout, out);
    if (fd < 0) return;
    double t0 = now_seconds(), deadline = t0 + timeout;
    strbuf_t req;
    sb_init(&req);
    sb_printf(&req,
              "POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: %s\r\nSender: GAMESERVER\r\n"
              "Receiver: %s\r\nContent-Type: text/acl\r\nContent-Length: %zu\r\n\r\n",
              host, host, len);
    sb_putn(&req, body, len);
    if (!send_all(fd, req.data, req.len, deadline))
        fail(out, HTTPC_TIMEOUT, "could not send the request");
    else
        read_reply(fd, deadline, out);
    out->seconds = now_seconds() - t0;
    sb_fini(&req);
    close(fd);
}

bool httpc_parse_url(const char *url, char **host, char **port) {
    if (strncmp(url, "http://", 7) != 0) return false;
    const char *h = url + 7, *end = h + strcspn(h, ":/");
    if (end == h) return false;
    const char *p = *end == ':' ? end + 1 : NULL;
    size_t plen = p ? strspn(p, "0123456789") : 0;
    const char *rest = p ? p + plen : end;
    if ((p && (plen == 0 || plen > 5)) || (*rest && strcmp(rest, "/") != 0)) return false;
    *host = xmalloc((size_t)(end - h) + 1);
    memcpy(*host, h, (size_t)(end - h));
    (*host)[end - h] = 0;
    *port = xmalloc(plen + 5);
    if (p) {
        memcpy(*port, p, plen);
        (*port)[plen] = 0;
    } else {
        strcpy(*port, "9147");
    }
    return true;
}
