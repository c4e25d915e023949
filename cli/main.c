/* ggp: the command line. Dispatches to one subcommand per concept. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "base/opts.h"
#include "cli/commands.h"
#include "engine/engine.h"
#include "player/player.h"

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} command_t;

static const command_t commands[] = {
    {"check", cmd_check, "parse and validate a game; print its roles and rule facts"},
    {"trace", cmd_trace, "play matches (seeded random or given moves) and print canonical traces"},
    {"bench", cmd_bench, "random playouts per second"},
    {"ground", cmd_ground,
     "the grounded network of a game; --check compares it with the interpreter"},
    {"perft", cmd_perft, "count move sequences to a depth (engine correctness check)"},
    {"serve", cmd_serve, "play GGP matches over HTTP for a game master"},
    {"match", cmd_match, "run matches between local and HTTP players (a game master)"},
    {"regress", cmd_regress, "lifted backward search: win formulas alpha_i/beta_i per round"},
    {"solve", cmd_solve, "exact values of a small game over all its reachable states"},
    {"alphabeta", cmd_alphabeta, "alpha-beta search of one position, with its node counts"},
    {"belief", cmd_belief, "what one role of a GDL-II game can prove, step by step (Z3)"},
    {"accuracy", cmd_accuracy,
     "rollout-accuracy experiment: early-stopped rollouts vs exact values"},
    {"blunders", cmd_blunders, "moves of recorded matches that give away a proven win or draw"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: ggp COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'ggp COMMAND --help' describes a command.\n");
}

bool opt_is_help(const char *arg) {
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

void opt_usage_error(const char *cmd, const char *help, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ggp %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const char *end = strstr(help, "\n\n");
    int len = end ? (int)(end - help) : (int)strlen(help);
    fprintf(stderr, "\n%.*s\n(ggp %s --help: what each option does)\n", len, help, cmd);
}

game_t *cli_load_game(const char *path) {
    diag_t d;
    diag_init(&d);
    game_t *g = game_load(path, &d);
    if (!g) diag_print(&d, stderr);
    diag_fini(&d);
    return g;
}

bool cli_engine_gave_up(const char *cmd, const char *path, const engine_t *e) {
    const char *why = engine_error(e);
    if (why) fprintf(stderr, "ggp %s: %s: the game cannot be reasoned about: %s\n", cmd, path, why);
    return why != NULL;
}

bool opt_value(int argc, char **argv, int *i, const char *name, const char **value) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return false;
    if (argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return true;
    }
    if (argv[*i][n] != 0) return false;
    if (*i + 1 >= argc) {
        fprintf(stderr, "ggp: option %s needs a value\n", name);
        exit(2);
    }
    *value = argv[++*i];
    return true;
}

bool opt_uint(const char *name, const char *value, unsigned long long *out) {
    uint64_t n;
    if (opts_u64(value, 0, UINT64_MAX, &n)) return *out = n, true;
    fprintf(stderr, "ggp: %s expects a non-negative integer, not '%s'\n", name, value);
    return false;
}

bool opt_double(const char *name, const char *value, double *out) {
    char *end;
    *out = strtod(value, &end);
    if (!*value || *end || *out < 0) {
        fprintf(stderr, "ggp: %s expects a non-negative number, not '%s'\n", name, value);
        return false;
    }
    return true;
}

bool opt_engine(const char *value, engine_kind_t *out) {
    if (engine_kind_parse(value, out)) return true;
    fprintf(stderr, "ggp: --engine expects auto, interp, ground or compiled, not '%s'\n", value);
    return false;
}

bool opt_default_engine(const char *value) {
    engine_kind_t k;
    if (!opt_engine(value, &k)) return false;
    engine_set_default_kind(k);
    return true;
}

void opt_help_kinds(const char *help, FILE *out) {
    strbuf_t kinds;
    sb_init(&kinds);
    player_kind_help(&kinds);
    fprintf(out, help, sb_str(&kinds));
    sb_fini(&kinds);
}

/* The option of specs that argv[*i] gives (taking its value), or NULL. */
static const opt_spec_t *opt_find(int argc, char **argv, int *i, const opt_spec_t *specs,
                                  const char **value) {
    for (const opt_spec_t *o = specs; o->name; o++)
        if (o->flag ? !strcmp(argv[*i], o->name) : opt_value(argc, argv, i, o->name, value))
            return o;
    return NULL;
}

/* Takes the value v of option o; false when it is refused (said why). */
static bool opt_take(const opt_spec_t *o, const char *v) {
    if (o->check && !o->check(v)) return false;
    if (o->uint && !opt_uint(o->name, v, o->uint)) return false;
    if (o->uint && (*o->uint < o->min || (o->max && *o->uint > o->max))) {
        fprintf(stderr, "ggp: %s expects an integer from %llu to %llu, not '%s'\n", o->name, o->min,
                o->max ? o->max : (unsigned long long)UINT64_MAX, v);
        return false;
    }
    if (o->real && !opt_double(o->name, v, o->real)) return false;
    if (o->engine && !opt_engine(v, o->engine)) return false;
    if (o->value) *o->value = v;
    if (o->flag) *o->flag = true;
    return true;
}

int opt_parse(int argc, char **argv, const char *cmd, const char *help,
              void (*show)(const char *help, FILE *out), const opt_spec_t *specs, const char **pos,
              int n_pos) {
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        const opt_spec_t *o;
        if (opt_is_help(argv[i])) {
            if (show)
                show(help, stdout);
            else
                fputs(help, stdout);
            return 0;
        } else if ((o = opt_find(argc, argv, &i, specs, &v))) {
            if (!opt_take(o, v)) return 2;
        } else if (argv[i][0] == '-' || n == n_pos) {
            opt_usage_error(cmd, help, "unexpected argument '%s'", argv[i]);
            return 2;
        } else
            pos[n++] = argv[i];
    }
    return -1;
}

/* Freed memory stays in the process for reuse: blocks up to 32 MB come from the heap
 * (not mmap, unmapped at free) and the heap is not trimmed. A page touched for the first
 * time costs about 125 us on a paravirtualised machine (measured: 64 MB in 2 s), and Z3
 * allocates and frees large tables at every check and model: with this, a deterministic
 * replay of killer matches (test_deduce) took 30% less CPU and 24% fewer page faults. */
static void keep_memory(void) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 16 << 20);
#endif
}

typedef struct {
    const command_t *cmd;
    int argc;
    char **argv;
    sigset_t mask; /* the signals as main had them */
    int rc;
} run_t;

static void *run_command(void *arg) {
    run_t *r = arg;
    pthread_sigmask(SIG_SETMASK, &r->mask, NULL);
    r->rc = r->cmd->fn(r->argc, r->argv);
    return NULL;
}

/* The main thread's stack (`ulimit -s`) below which a command runs on a thread of its own:
 * the 8 MiB of a default shell, where the rules evaluator's 4 MiB budget leaves as much
 * spare (REASON_STACK_BUDGET). */
#define MAIN_STACK_ENOUGH ((rlim_t)8 << 20)

/* Runs a command, on a thread with the engines' stack (engine_thread_start) when the main
 * thread's is smaller than MAIN_STACK_ENOUGH: below about 5 MiB the evaluator's recursion
 * overflowed it before its budget stopped it (ggp check or ggp match on a chain of 3,000
 * relations under `ulimit -s 1024`: SIGSEGV). With a default stack the command stays on the
 * main thread, as before (its allocations in the main arena, where keep_memory's settings
 * were measured). On the thread, main blocks every signal while it waits, so that the
 * process's signals reach the command's thread (ggp serve waits for SIGINT and SIGTERM
 * there). Without a thread (no memory for its stack), the command runs on main. */
static int run_command_on_stack(const command_t *c, int argc, char **argv) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= MAIN_STACK_ENOUGH)
        return c->fn(argc, argv);
    run_t r = {.cmd = c, .argc = argc, .argv = argv};
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &r.mask); /* (inherited by the thread until it starts) */
    pthread_t t;
    if (engine_thread_start(&t, run_command, &r) != 0) {
        pthread_sigmask(SIG_SETMASK, &r.mask, NULL);
        return c->fn(argc, argv);
    }
    pthread_join(t, NULL);
    return r.rc;
}

int main(int argc, char **argv) {
    keep_memory();
    if (argc < 2 || opt_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return run_command_on_stack(&commands[i], argc - 1, argv + 1);
    fprintf(stderr, "ggp: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
