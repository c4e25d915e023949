/* libFuzzer target for the HTTP request handling: the input is sent as raw bytes (request
 * line, headers, body, chunks) to a `ggp serve` HTTP server (http.h over a service with
 * the random player) listening on loopback in this process; the write side is then closed
 * and the reply read. Any input gets a well-formed HTTP reply or a closed connection, in
 * time: never a crash, a hang, a leak or undefined behaviour. The server lives as long as
 * the process, so a match started by one input may still be running at the next (as with
 * a real game master). Built with clang and GGP_FUZZ=ON; replay.c runs it on files in the
 * other builds. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "server/http.h"
#include "server/log.h"

#define REPLY_WAIT_S 20.0 /* longer than any clock a fuzzed START could make us wait */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint16_t server_port(void) {
    static uint16_t port;
    if (port) return port;
    signal(SIGPIPE, SIG_IGN);
    log_quiet(true);
    service_config_t sc = {.name = "fuzz", .kind = &player_random_kind, .seed = 1};
    service_t *svc = service_new(&sc);
    http_config_t hc = {.bind = "127.0.0.1", .port = 0, .max_body = 1 << 16};
    strbuf_t err;
    sb_init(&err);
    http_server_t *h = http_start(&hc, svc, &err);
    if (!h) die("fuzz_http: %s", sb_str(&err));
    sb_fini(&err);
    port = http_port(h);
    return port; /* the server and service live until the process ends */
}

/* libFuzzer's timer (SIGALRM, once a second) interrupts system calls: each is retried. */
static int connect_to(uint16_t port) {
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) die("fuzz_http: socket: %s", strerror(errno));
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
        if (errno != EINTR) die("fuzz_http: connect: %s", strerror(errno));
        close(fd);
    }
}

/* Sends what the server takes (it may close early, after a 413 for instance). */
static void send_all(int fd, const uint8_t *data, size_t size) {
    while (size) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n;
        size -= (size_t)n;
    }
}

/* Reads the reply until the server closes; dies when it takes longer than REPLY_WAIT_S. */
static void read_reply(int fd, strbuf_t *reply) {
    double until = now_seconds() + REPLY_WAIT_S;
    char buf[4096];
    for (;;) {
        double left = until - now_seconds();
        if (left <= 0) die("fuzz_http: no reply within %.0f s", REPLY_WAIT_S);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)(left * 1000) + 1) <= 0) continue;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; /* closed (or reset after a refused request) */
        sb_putn(reply, buf, (size_t)n);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = connect_to(server_port());
    send_all(fd, data, size);
    shutdown(fd, SHUT_WR);
    strbuf_t reply;
    sb_init(&reply);
    read_reply(fd, &reply);
    close(fd);
    /* Whatever was asked, an answer is an HTTP status line. */
    if (reply.len && strncmp(sb_str(&reply), "HTTP/1.", 7) != 0) __builtin_trap();
    sb_fini(&reply);
    return 0;
}
