/* ggp serve: a GGP player over HTTP (the match protocol: docs/http.md). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"

#include "server/http.h"
#include "server/log.h"

static const char *const serve_help =
    "usage: ggp serve [--port P] [--bind ADDR] [--player KIND] [--name NAME] [--seed N]\n"
    "                 [--max-body BYTES] [--verbose] [--engine E]\n\n"
    "Plays GGP matches for a game master over HTTP: one POST / per message, GDL\n"
    "(START, PLAY, STOP, ABORT, INFO, PREVIEW) and GDL-II (PLAY ID TURN LASTMOVE PERCEPTS);\n"
    "the protocol and the clocks are described in docs/http.md. One match at a time: a\n"
    "second START gets 'busy'. Each request is logged to stderr: time, match id, command,\n"
    "ms used.\n"
    "  --port P        TCP port (default 9147; 0 picks a free one)\n"
    "  --bind ADDR     IPv4 address to listen on (default: all interfaces)\n"
    "  --player KIND   who chooses the moves (default auto: deduce for a GDL-II game, else\n"
    "                  mcts with its defaults, as measured in docs/league.md; logged at\n"
    "                  START):\n%s"
    "  --name NAME     the name answered to INFO (default ggp-KIND)\n"
    "  --seed N        seed of the player's random choices (default: from the clock)\n"
    "  --engine E      the engine mcts players search with: auto (default: the fastest that\n"
    "                  works), interp, ground or compiled; mcts:engine=E sets one player's own\n"
    "  --max-body B    larger requests get HTTP 413 (default 4194304)\n"
    "  --verbose       log per-turn statistics (believed states, legal moves, time)\n"
    "Stops on SIGINT or SIGTERM. For tests, GGP_TEST_THINK_DELAY_MS=N in the environment makes\n"
    "the player sleep N ms before every move (the answer must still meet the clock).\n";

typedef struct {
    const char *port, *bind, *player, *name, *seed, *max_body;
    bool verbose;
} serve_opts_t;

/* Parses the options; -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, serve_opts_t *o) {
    const opt_spec_t specs[] = {{.name = "--port", .value = &o->port},
                                {.name = "--bind", .value = &o->bind},
                                {.name = "--player", .value = &o->player},
                                {.name = "--name", .value = &o->name},
                                {.name = "--seed", .value = &o->seed},
                                {.name = "--engine", .check = opt_default_engine},
                                {.name = "--max-body", .value = &o->max_body},
                                {.name = "--verbose", .flag = &o->verbose},
                                {0}};
    return opt_parse(argc, argv, "serve", serve_help, opt_help_kinds, specs, NULL, 0);
}

/* Blocks until SIGINT or SIGTERM (blocked in every thread, so only this one sees them). */
static void wait_for_signal(const sigset_t *set) {
    int sig;
    sigwait(set, &sig);
    log_line("ggp serve: signal %d, stopping", sig);
}

static int serve(const serve_opts_t *o, const player_kind_t *kind, unsigned long long port,
                 unsigned long long seed, unsigned long long max_body) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    strbuf_t name, err;
    sb_init(&name);
    sb_init(&err);
    if (o->name)
        sb_puts(&name, o->name);
    else
        sb_printf(&name, "ggp-%s", kind->name);
    const char *delay = getenv("GGP_TEST_THINK_DELAY_MS");
    service_config_t sc = {.name = sb_str(&name),
                           .kind = kind,
                           .seed = seed,
                           .verbose = o->verbose,
                           .think_delay_ms = delay ? (unsigned)strtoul(delay, NULL, 10) : 0};
    service_t *svc = service_new(&sc);
    http_config_t hc = {
        .bind = o->bind, .port = (uint16_t)port, .max_body = max_body, .verbose = o->verbose};
    http_server_t *h = http_start(&hc, svc, &err);
    int rc = 0;
    if (!h) {
        fprintf(stderr, "ggp serve: %s\n", sb_str(&err));
        rc = 1;
    } else {
        log_line("ggp serve: listening on %s:%u as %s (player %s)", o->bind ? o->bind : "*",
                 http_port(h), sb_str(&name), kind->name);
        wait_for_signal(&set);
        http_stop(h);
    }
    service_free(svc);
    sb_fini(&name);
    sb_fini(&err);
    return rc;
}

int cmd_serve(int argc, char **argv) {
    serve_opts_t o = {.port = "9147", .player = "auto", .max_body = "4194304"};
    int rc = parse_opts(argc, argv, &o);
    if (rc >= 0) return rc;
    unsigned long long port, seed = 0, max_body;
    if (!opt_uint("--port", o.port, &port) || !opt_uint("--max-body", o.max_body, &max_body) ||
        (o.seed && !opt_uint("--seed", o.seed, &seed)))
        return 2;
    if (port > 65535) {
        fprintf(stderr, "ggp serve: --port must be at most 65535\n");
        return 2;
    }
    const player_kind_t *kind = player_kind_find(o.player);
    if (!kind) {
        strbuf_t why;
        sb_init(&why);
        if (player_kind_error(o.player, &why)) /* a kind whose options are bad: what is wrong */
            opt_usage_error("serve", serve_help, "player '%s': %s", o.player, sb_str(&why));
        else
            opt_usage_error("serve", serve_help, "unknown player '%s'", o.player);
        sb_fini(&why);
        return 2;
    }
    if (!o.seed) seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
    return serve(&o, kind, port, seed, max_body);
}
