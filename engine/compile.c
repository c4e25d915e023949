/* The compiled backend: see compile.h. The text (engine/cgen.c) comes in translation
 * units compiled by as many compilers at once as there are cores, then linked into one
 * shared object, cached under the hash of the text. */
#define _POSIX_C_SOURCE 200809L /* posix_spawn's environ, kill */
#include "engine/compile.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "engine/cgen.h"
#include "engine/race.h"

extern char **environ;

/* A translation unit holds about this much text: the units of a big network compile on
 * every core, a small network is one unit (its functions inlined into the playout loop). */
#define UNIT_BYTES (256 * 1024)

uint64_t compile_hash(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

bool compile_make_dirs(const char *path) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0700) != 0 && errno != EEXIST) return false;
            *p = '/';
        }
    return mkdir(buf, 0700) == 0 || errno == EEXIST;
}

void compile_cache_dir(char *out, size_t n) {
    const char *env = getenv("GGP_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (xdg && *xdg)
        snprintf(out, n, "%s/ggp", xdg);
    else if (home && *home)
        snprintf(out, n, "%s/.cache/ggp", home);
    else
        snprintf(out, n, "/tmp/ggp-cache-%u", (unsigned)getuid());
}

/* Compiles src into so (through temporary files renamed into place, so that processes
 * compiling the same game at once do not see half-written files). */
static const char *compiler(void) {
    const char *cc = getenv("GGP_CC");
    return cc && *cc ? cc : "cc";
}

/* GGP_CFLAGS, else -O1 (-O2 compiles slower and runs no faster) with the popcount and
 * bit-deposit instructions (the playout loop's pick) and 256-bit vectors (the mask
 * tables) where this CPU has them. The flags are part of the generated text, so of the
 * cache key. */
static void compile_flags(char *out, size_t n) {
    const char *flags = getenv("GGP_CFLAGS");
    if (flags && *flags) {
        snprintf(out, n, "%s", flags);
        return;
    }
    snprintf(out, n, "-O1");
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt")) snprintf(out + strlen(out), n - strlen(out), " -mpopcnt");
    if (__builtin_cpu_supports("bmi2")) snprintf(out + strlen(out), n - strlen(out), " -mbmi2");
    if (__builtin_cpu_supports("avx2")) snprintf(out + strlen(out), n - strlen(out), " -mavx2");
#endif
}

/* Compilers run at once: GGP_CC_JOBS, else the cores online. */
static uint32_t compile_jobs(void) {
    const char *e = getenv("GGP_CC_JOBS");
    long n = e && *e ? atol(e) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (uint32_t)n;
}

/* The largest network compiled (literals): GGP_COMPILE_MAX_LITS, else COMPILE_MAX_LITS.
 * Not a choice of engine (the race of the code against the network decides that, race.h)
 * but a bound on cc's work and memory, which grow with the text, a few bytes a literal
 * (chess's 2.75 million: 15.7 CPU s of cc, at most 534 MB for a unit): the grounder's own
 * bound on literals (ground.c), so that no network it makes is refused for its size. */
#define COMPILE_MAX_LITS 20000000u

uint32_t compile_max_lits(void) {
    const char *e = getenv("GGP_COMPILE_MAX_LITS");
    return e && *e ? (uint32_t)strtoul(e, NULL, 10) : COMPILE_MAX_LITS;
}

/* ---- the code of a network ---- */

struct netcode {
    pthread_mutex_t mu;
    pthread_cond_t done;
    int refs;          /* under mu */
    bool cancel;       /* under mu: the last reference is gone */
    pid_t running[64]; /* under mu: compilers running (their process groups) */
    _Atomic int state; /* netcode_state_t; READY or FAILED final */
    gnet_t *snap;      /* the thread's */
    gnet_kernels_t k;  /* once ready */
    void *handle;
    double t0, seconds;
    char why[1400];
    /* the race of the code against the network (under mu): none yet, one running, or
     * decided (the two rates), read from beside the object or raced */
    enum { VERDICT_NONE, VERDICT_RACING, VERDICT_DECIDED } verdict;
    double rate_code, rate_net;
    char race_path[1200]; /* beside the object, once ready */
};

netcode_t *netcode_ref(netcode_t *c) {
    pthread_mutex_lock(&c->mu);
    c->refs++;
    pthread_mutex_unlock(&c->mu);
    return c;
}

void netcode_unref(netcode_t *c) {
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    int left = --c->refs;
    if (left == 1 && atomic_load(&c->state) == NETCODE_BUSY) { /* only the thread's left */
        c->cancel = true;
        for (uint32_t i = 0; i < 64; i++)
            if (c->running[i] > 0) kill(-c->running[i], SIGTERM);
    }
    pthread_mutex_unlock(&c->mu);
    if (left) return;
    if (c->handle) dlclose(c->handle);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->done);
    free(c);
}

netcode_state_t netcode_state(netcode_t *c) {
    return (netcode_state_t)atomic_load(&c->state);
}

const gnet_kernels_t *netcode_kernels(const netcode_t *c) {
    return &c->k;
}

double netcode_seconds(const netcode_t *c) {
    return c->seconds;
}

const char *netcode_why(const netcode_t *c) {
    return c->why;
}

bool netcode_verdict(netcode_t *c, double *code, double *net) {
    pthread_mutex_lock(&c->mu);
    bool decided = c->verdict == VERDICT_DECIDED;
    *code = c->rate_code, *net = c->rate_net;
    pthread_mutex_unlock(&c->mu);
    return decided;
}

bool netcode_claim_race(netcode_t *c) {
    pthread_mutex_lock(&c->mu);
    bool mine = c->verdict == VERDICT_NONE;
    if (mine) c->verdict = VERDICT_RACING;
    pthread_mutex_unlock(&c->mu);
    return mine;
}

void netcode_decide(netcode_t *c, double code, double net, bool keep) {
    pthread_mutex_lock(&c->mu);
    c->verdict = VERDICT_DECIDED, c->rate_code = code, c->rate_net = net;
    pthread_mutex_unlock(&c->mu);
    if (keep) race_code_write(c->race_path, code, net);
}

netcode_state_t netcode_wait(netcode_t *c, double deadline) {
    pthread_mutex_lock(&c->mu);
    while (atomic_load(&c->state) == NETCODE_BUSY) {
        if (deadline <= 0) {
            pthread_cond_wait(&c->done, &c->mu);
            continue;
        }
        double left = deadline - now_seconds();
        if (left <= 0) break;
        struct timespec t; /* the condition's clock: CLOCK_REALTIME */
        clock_gettime(CLOCK_REALTIME, &t);
        double s = t.tv_sec + t.tv_nsec * 1e-9 + (left < 1 ? left : 1);
        t.tv_sec = (time_t)s, t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
        pthread_cond_timedwait(&c->done, &c->mu, &t);
    }
    netcode_state_t st = (netcode_state_t)atomic_load(&c->state);
    pthread_mutex_unlock(&c->mu);
    return st;
}

/* Spawns the shell command cmd in a process group of its own, registered in c (none when
 * cancelled); 0 when it could not start. */
static pid_t spawn(netcode_t *c, const char *cmd) {
    pid_t pid = 0;
    pthread_mutex_lock(&c->mu);
    uint32_t slot = 0;
    while (slot < 64 && c->running[slot])
        slot++;
    if (!c->cancel && slot < 64) {
        posix_spawnattr_t at;
        posix_spawnattr_init(&at);
        posix_spawnattr_setpgroup(&at, 0);
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
        char *argv[] = {"sh", "-c", (char *)cmd, NULL};
        if (posix_spawn(&pid, "/bin/sh", NULL, &at, argv, environ) != 0) pid = 0;
        posix_spawnattr_destroy(&at);
        if (pid > 0) c->running[slot] = pid;
    }
    pthread_mutex_unlock(&c->mu);
    return pid;
}

/* Waits for a spawned command; true when it exited 0 (*rc: its status otherwise). */
static bool reap(netcode_t *c, pid_t pid, int *rc) {
    int status;
    pid_t p;
    while ((p = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&c->mu);
    for (uint32_t i = 0; i < 64; i++)
        if (c->running[i] == pid) c->running[i] = 0;
    pthread_mutex_unlock(&c->mu);
    bool ok = p == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) *rc = p == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return ok;
}

/* Runs the shell commands cmds[0..n), at most jobs at once; false when one fails or does
 * not start (*rc: its exit status, -1 when killed or not started). */
static bool run_all(netcode_t *c, char **cmds, uint32_t n, uint32_t jobs, int *rc) {
    pid_t *pids = xcalloc(n + 1, sizeof *pids);
    uint32_t started = 0, reaped = 0;
    bool ok = true;
    *rc = 0;
    while (reaped < started || (ok && started < n)) {
        if (ok && started < n && started - reaped < jobs) {
            pids[started] = spawn(c, cmds[started]);
            if (pids[started] <= 0) {
                ok = false, *rc = -1;
                continue;
            }
            started++;
            continue;
        }
        if (!reap(c, pids[reaped++], rc)) ok = false;
    }
    free(pids);
    return ok;
}

static bool write_file(const char *path, const strbuf_t *sb) {
    FILE *f = fopen(path, "w");
    bool ok = f && fwrite(sb->data, 1, sb->len, f) == sb->len;
    if (f && fclose(f) != 0) ok = false;
    return ok;
}

/* Removes the temporary files of compiles whose process is gone: a match that ends while
 * its code compiles takes the compiling thread with it, and its files stayed in the cache
 * for good. Their names hold the pid (build's "SO.PID.PTR.tmp..."); a file is removed only
 * when no process has that pid (a live process, ours or another's, keeps its files). */
static void sweep_orphans(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        const char *at = strstr(e->d_name, ".so.");
        char *end = NULL;
        long pid = at ? strtol(at + 4, &end, 10) : 0;
        if (pid <= 0 || *end != '.' || !strstr(end, ".tmp")) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* Compiles the units into so (through temporary files renamed into place, so that processes
 * compiling the same game at once do not see half-written files): one unit straight into a
 * shared object, several into objects (jobs at once) linked together. */
static bool build(netcode_t *c, const cgen_t *p, const char *so, const char *flags) {
    uint32_t nu = p->n_units;
    char tmp_so[1200];
    snprintf(tmp_so, sizeof tmp_so, "%s.%d.%p.tmp", so, (int)getpid(), (void *)c);
    char **src = xcalloc(nu, sizeof *src), **obj = xcalloc(nu, sizeof *obj);
    char **cmds = xcalloc(nu + 1, sizeof *cmds);
    bool ok = true;
    for (uint32_t u = 0; u < nu; u++) {
        src[u] = xmalloc(1300), obj[u] = xmalloc(1300), cmds[u] = xmalloc(4096);
        snprintf(src[u], 1300, "%s.%u.c", tmp_so, u);
        snprintf(obj[u], 1300, "%s.%u.o", tmp_so, u);
        if (ok && !write_file(src[u], &p->units[u])) {
            snprintf(c->why, sizeof c->why, "cannot write %s", src[u]);
            ok = false;
        }
        /* exec: the compiler is the process that a cancellation kills */
        if (nu == 1)
            snprintf(cmds[u], 4096, "exec %s %s -fPIC -shared -w -o '%s' '%s' >/dev/null 2>&1",
                     compiler(), flags, tmp_so, src[u]);
        else
            snprintf(cmds[u], 4096, "exec %s %s -fPIC -c -w -o '%s' '%s' >/dev/null 2>&1",
                     compiler(), flags, obj[u], src[u]);
    }
    int rc = 0;
    if (ok && !run_all(c, cmds, nu, compile_jobs(), &rc)) {
        snprintf(c->why, sizeof c->why, "the C compiler failed (exit %d)", rc);
        ok = false;
    }
    if (ok && nu > 1) { /* link */
        strbuf_t link;
        sb_init(&link);
        sb_printf(&link, "exec %s %s -shared -o '%s'", compiler(), flags, tmp_so);
        for (uint32_t u = 0; u < nu; u++)
            sb_printf(&link, " '%s'", obj[u]);
        sb_puts(&link, " >/dev/null 2>&1");
        char *cmd = link.data;
        if (!run_all(c, &cmd, 1, 1, &rc)) {
            snprintf(c->why, sizeof c->why, "the linker failed (exit %d)", rc);
            ok = false;
        }
        sb_fini(&link);
    }
    if (ok && rename(tmp_so, so) != 0) {
        snprintf(c->why, sizeof c->why, "cannot rename %s", tmp_so);
        ok = false;
    }
    for (uint32_t u = 0; u < nu; u++) {
        unlink(src[u]), unlink(obj[u]);
        free(src[u]), free(obj[u]), free(cmds[u]);
    }
    if (!ok) unlink(tmp_so);
    free(src), free(obj), free(cmds);
    return ok;
}

/* The cached object of program p (hash and length of all its units). */
static void object_path(const cgen_t *p, const char *dir, char *out, size_t n) {
    uint64_t h = 0;
    size_t len = 0;
    for (uint32_t u = 0; u < p->n_units; u++) {
        h = h * 0x100000001b3ull ^ compile_hash(p->units[u].data, p->units[u].len);
        len += p->units[u].len;
    }
    snprintf(out, n, "%s/net-%016" PRIx64 "-%zu-%u.so", dir, h, len, p->n_units);
}

/* Loads so's kernels into c. */
static bool load(netcode_t *c, const char *so) {
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    gnet_kernels_t k = {0};
    if (h) {
        k.play = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_play");
        k.play_from = (gnet_play_from_t)(uintptr_t)dlsym(h, "ggp_play_from");
        k.goals = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_goals");
        k.move = (gnet_move_kernel_t)(uintptr_t)dlsym(h, "ggp_move");
        k.advance = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_advance");
        k.next_bits = (gnet_next_bits_t)(uintptr_t)dlsym(h, "ggp_next_bits");
        k.playout = (gnet_playout_t)(uintptr_t)dlsym(h, "ggp_playout");
    }
    if (!k.play || !k.play_from || !k.goals || !k.move || !k.advance || !k.next_bits ||
        !k.playout) {
        snprintf(c->why, sizeof c->why, "cannot load %s", so);
        if (h) dlclose(h);
        return false;
    }
    const char *loop = getenv("GGP_COMPILED_LOOP");
    if (loop && strcmp(loop, "0") == 0) k.playout = NULL; /* the loop of engine/gengine.c */
    c->k = k, c->handle = h;
    return true;
}

/* Text, cache, compiler, object: the thread's work. */
static bool cancelled(netcode_t *c) {
    pthread_mutex_lock(&c->mu);
    bool x = c->cancel;
    pthread_mutex_unlock(&c->mu);
    return x;
}

static bool make(netcode_t *c) {
    char flags[256], header[512], dir[1024], so[1100];
    compile_flags(flags, sizeof flags);
    snprintf(header, sizeof header, "/* %s %s */", compiler(), flags);
    cgen_t prog;
    cgen_program(c->snap, header, UNIT_BYTES, &prog);
    FREE_AND_NULL(cgen_snapshot_free, c->snap);
    compile_cache_dir(dir, sizeof dir);
    object_path(&prog, dir, so, sizeof so);
    bool ok = !cancelled(c);
    if (ok && access(so, R_OK) != 0) {
        if (!compile_make_dirs(dir)) {
            snprintf(c->why, sizeof c->why, "cannot make the cache directory %s", dir);
            ok = false;
        } else {
            sweep_orphans(dir);
            ok = build(c, &prog, so, flags);
        }
    }
    cgen_fini(&prog);
    if (!ok || !load(c, so)) return false;
    double code, net;
    snprintf(c->race_path, sizeof c->race_path, "%s.race", so);
    bool known = race_code_read(c->race_path, &code, &net);
    pthread_mutex_lock(&c->mu);
    if (known) c->verdict = VERDICT_DECIDED, c->rate_code = code, c->rate_net = net;
    pthread_mutex_unlock(&c->mu);
    return true;
}

static void *netcode_thread(void *arg) {
    netcode_t *c = arg;
    bool ok = make(c);
    pthread_mutex_lock(&c->mu);
    if (c->cancel && !ok) snprintf(c->why, sizeof c->why, "cancelled");
    c->seconds = now_seconds() - c->t0;
    atomic_store(&c->state, ok ? NETCODE_READY : NETCODE_FAILED);
    pthread_cond_broadcast(&c->done);
    pthread_mutex_unlock(&c->mu);
    netcode_unref(c);
    return NULL;
}

netcode_t *netcode_start(const gnet_t *net, char *why, size_t n) {
    if (net->n_lits > compile_max_lits()) {
        snprintf(why, n, "%u literals, more than %u (GGP_COMPILE_MAX_LITS)", net->n_lits,
                 compile_max_lits());
        return NULL;
    }
    netcode_t *c = xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->done, NULL);
    c->refs = 2; /* the caller's and the thread's */
    atomic_store(&c->state, NETCODE_BUSY);
    c->t0 = now_seconds();
    c->snap = cgen_snapshot(net);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &at, netcode_thread, c);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        snprintf(why, n, "cannot start a thread to compile");
        cgen_snapshot_free(c->snap);
        pthread_mutex_destroy(&c->mu);
        pthread_cond_destroy(&c->done);
        free(c);
        return NULL;
    }
    return c;
}
