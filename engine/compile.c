/* The compiled backend: see compile.h. The code is straight-line byte logic, one
 * assignment per derived node in network order (a cyclic block becomes a loop to its
 * fixpoint), split into functions of bounded size so that the compiler's time stays
 * linear; the object is cached under the hash of its source. */
#include "compile.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Past this many literals cc -O1 takes tens of seconds (superlinear: 334k literals of
 * Mastermind448 took over 2 minutes), more than a match can spend: the network plays. */
#define COMPILE_MAX_LITS 20000
#define STMTS_PER_FUNCTION 2000

static void emit_node(strbuf_t *c, const gnet_t *net, uint32_t i) {
    sb_printf(c, "v[%u]=", net->order[i]);
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1];
    if (r0 == r1) sb_puts(c, "0");
    for (uint32_t r = r0; r < r1; r++) {
        if (r > r0) sb_putc(c, '|');
        uint32_t l0 = net->lit_start[r], l1 = net->lit_start[r + 1];
        if (l0 == l1) sb_puts(c, "1");
        if (l1 - l0 > 1) sb_putc(c, '(');
        for (uint32_t l = l0; l < l1; l++) {
            uint32_t x = net->lits[l];
            sb_printf(c, "%s%s[%u]", l > l0 ? "&" : "", x & 1 ? "!v" : "v", x >> 1);
        }
        if (l1 - l0 > 1) sb_putc(c, ')');
    }
    sb_puts(c, ";\n");
}

static void emit_cyclic(strbuf_t *c, const gnet_t *net, const gblock_t *b) {
    for (uint32_t i = b->first; i < b->first + b->n; i++)
        sb_printf(c, "v[%u]=0;\n", net->order[i]);
    sb_puts(c, "for(int ch=1;ch;){ch=0;\n");
    for (uint32_t i = b->first; i < b->first + b->n; i++) {
        sb_printf(c, "{U o=v[%u];", net->order[i]);
        emit_node(c, net, i);
        sb_printf(c, "ch|=o!=v[%u];}\n", net->order[i]);
    }
    sb_puts(c, "}\n");
}

/* Functions NAME_0 .. NAME_k for blocks [from, to), then NAME calling them in order. */
static void emit_phase(strbuf_t *c, const gnet_t *net, const char *name, uint32_t from,
                       uint32_t to) {
    uint32_t parts = 0, stmts = 0;
    for (uint32_t b = from; b < to; b++) {
        if (stmts == 0) sb_printf(c, "static void %s_%u(U *restrict v){\n", name, parts++);
        const gblock_t *bl = &net->blocks[b];
        if (bl->cyclic)
            emit_cyclic(c, net, bl);
        else
            emit_node(c, net, bl->first);
        stmts += bl->n;
        if (stmts >= STMTS_PER_FUNCTION || b + 1 == to) {
            sb_puts(c, "}\n");
            stmts = 0;
        }
    }
    sb_printf(c, "void %s(U *restrict v){\n", name);
    for (uint32_t p = 0; p < parts; p++)
        sb_printf(c, "%s_%u(v);\n", name, p);
    sb_puts(c, "}\n");
}

/* Inputs are nodes 0..F-1, their next nodes F..2F-1 (ground.h): a copy. */
static void emit_advance(strbuf_t *c, const gnet_t *net) {
    sb_printf(c, "void ggp_advance(U *restrict v){__builtin_memcpy(v,v+%u,%u);}\n", net->n_fluents,
              net->n_fluents);
}

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
static bool build(const char *src, size_t len, const char *so, char *why, size_t n) {
    char csrc[1200], tmp_so[1200], cmd[4096];
    snprintf(csrc, sizeof csrc, "%s.%d.c", so, (int)getpid());
    snprintf(tmp_so, sizeof tmp_so, "%s.%d.tmp", so, (int)getpid());
    FILE *f = fopen(csrc, "w");
    if (!f || fwrite(src, 1, len, f) != len) {
        if (f) fclose(f);
        snprintf(why, n, "cannot write %s", csrc);
        return false;
    }
    fclose(f);
    const char *cc = getenv("GGP_CC"), *flags = getenv("GGP_CFLAGS");
    snprintf(cmd, sizeof cmd, "%s %s -fPIC -shared -w -o '%s' '%s' >/dev/null 2>&1",
             cc && *cc ? cc : "cc", flags && *flags ? flags : "-O1", tmp_so, csrc);
    int rc = system(cmd);
    unlink(csrc);
    if (rc != 0 || rename(tmp_so, so) != 0) {
        unlink(tmp_so);
        snprintf(why, n, "the C compiler failed (exit %d)", rc);
        return false;
    }
    return true;
}

engine_t *compile_engine(game_t *g, gnet_t *net, char *why, size_t n) {
    if (net->n_lits > COMPILE_MAX_LITS) {
        snprintf(why, n, "%u literals, more than %u", net->n_lits, COMPILE_MAX_LITS);
        return NULL;
    }
    double t0 = now_seconds();
    strbuf_t c;
    sb_init(&c);
    sb_puts(&c, "/* generated by ggp: a ground game network */\ntypedef unsigned char U;\n");
    emit_phase(&c, net, "ggp_play", 0, net->n_play_blocks);
    emit_phase(&c, net, "ggp_goals", net->n_play_blocks, net->n_state_blocks);
    emit_phase(&c, net, "ggp_move", net->n_state_blocks, net->n_blocks);
    emit_advance(&c, net);
    char dir[1024], so[1100];
    compile_cache_dir(dir, sizeof dir);
    snprintf(so, sizeof so, "%s/net-%016llx-%zu.so", dir,
             (unsigned long long)compile_hash(c.data, c.len), c.len);
    bool ok = true;
    if (access(so, R_OK) != 0) {
        if (!compile_make_dirs(dir)) {
            snprintf(why, n, "cannot make the cache directory %s", dir);
            ok = false;
        } else {
            ok = build(c.data, c.len, so, why, n);
        }
    }
    sb_fini(&c);
    if (!ok) return NULL;
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    gnet_kernels_t k = {0};
    if (h) {
        k.play = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_play");
        k.goals = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_goals");
        k.move = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_move");
        k.advance = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_advance");
    }
    if (!k.play || !k.goals || !k.move || !k.advance) {
        snprintf(why, n, "cannot load %s", so);
        if (h) dlclose(h);
        return NULL;
    }
    engine_t *e = gengine_new(g, net, &k, h);
    e->compile_seconds = now_seconds() - t0;
    return e;
}
