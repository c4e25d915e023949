/* The engine interface, the choice of backend, and the interpreter backend: see engine.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/backend.h"
#include "engine/compile.h"

static const char *const kind_names[] = {"auto", "interp", "ground", "compiled"};

bool engine_kind_parse(const char *name, engine_kind_t *out) {
    for (int k = 0; k < 4; k++)
        if (strcmp(name, kind_names[k]) == 0) {
            *out = (engine_kind_t)k;
            return true;
        }
    return false;
}

const char *engine_kind_name(engine_kind_t k) {
    return kind_names[k];
}

static engine_kind_t default_kind = ENGINE_AUTO;

void engine_set_default_kind(engine_kind_t k) {
    default_kind = k;
}
engine_kind_t engine_default_kind(void) {
    return default_kind;
}

/* ---- the interpreter backend ---- */

typedef struct {
    engine_t base;
    reasoner_t *r;
    bool owns;
} interp_t;

static const engine_ops_t interp_ops;

static reasoner_t *R(engine_t *e) {
    return ((interp_t *)e)->r;
}

static void interp_free(engine_t *e) {
    if (((interp_t *)e)->owns) reason_free(R(e));
    free(e);
}

static engine_t *interp_make(game_t *g, reasoner_t *r, bool owns) {
    interp_t *in = xcalloc(1, sizeof *in);
    in->base = (engine_t){.ops = &interp_ops, .kind = ENGINE_INTERP, .g = g};
    in->r = r;
    in->owns = owns;
    return &in->base;
}

static engine_t *interp_clone(const engine_t *e) {
    return interp_make(e->g, reason_new(e->g), true);
}

static void interp_initial(engine_t *e, eng_state_t *out) {
    reason_initial(R(e), &out->terms);
}
static bool interp_terminal(engine_t *e, const eng_state_t *s) {
    return reason_terminal(R(e), &s->terms);
}
static uint32_t interp_legal(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **m) {
    return reason_legal(R(e), &s->terms, role, m);
}
static bool interp_is_legal(engine_t *e, const eng_state_t *s, uint32_t role, term_t move) {
    return reason_is_legal(R(e), &s->terms, role, move);
}
static uint32_t interp_goals(engine_t *e, const eng_state_t *s, uint32_t role,
                             const term_t **values) {
    return reason_goals(R(e), &s->terms, role, values);
}
static void interp_next(engine_t *e, const eng_state_t *s, const term_t *joint, eng_state_t *out) {
    reason_next(R(e), &s->terms, joint, &out->terms);
}
static uint32_t interp_sees(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t role,
                            const term_t **p) {
    return reason_sees(R(e), &s->terms, joint, role, p);
}
static void interp_to_terms(engine_t *e, const eng_state_t *s, state_t *out) {
    (void)e;
    state_copy(out, &s->terms);
}
static void interp_from_terms(engine_t *e, eng_state_t *s, const state_t *in) {
    (void)e;
    state_copy(&s->terms, in);
}

/* The generic playout: through the interface (the interpreter allocates inside). */
static uint32_t interp_playout(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                               int *goals) {
    uint32_t nr = e->g->n_roles, steps = 0;
    term_t joint[64];
    term_t *jp = nr <= 64 ? joint : xmalloc(nr * sizeof *jp);
    eng_state_t *t = engine_state_new(e);
    while (steps < max_steps && !engine_terminal(e, s)) {
        uint32_t r = 0;
        for (; r < nr; r++) {
            const term_t *m;
            uint32_t n = engine_legal(e, s, r, &m);
            if (!n) break;
            jp[r] = m[splitmix_next(rng) % n];
        }
        if (r < nr) break; /* a defective game: a role without moves */
        engine_next(e, s, jp, t);
        engine_state_copy(s, t);
        steps++;
    }
    for (uint32_t r = 0; r < nr; r++)
        goals[r] = engine_goal_value(e, s, r);
    engine_state_free(t);
    if (jp != joint) free(jp);
    return steps;
}

static const engine_ops_t interp_ops = {
    .free = interp_free,
    .clone = interp_clone,
    .initial = interp_initial,
    .terminal = interp_terminal,
    .legal = interp_legal,
    .is_legal = interp_is_legal,
    .goals = interp_goals,
    .next = interp_next,
    .sees = interp_sees,
    .to_terms = interp_to_terms,
    .from_terms = interp_from_terms,
    .playout = interp_playout,
};

engine_t *engine_wrap(reasoner_t *r) {
    return interp_make((game_t *)reason_game(r), r, false);
}

/* ---- choosing a backend ---- */

/* A game that did not ground is remembered in the cache, under the hash of its rules:
 * the next load (a trace test runs three) falls back at once instead of spending the limit
 * again. Delete the cache's noground-* files to try again. */
void engine_noground_marker(const game_t *g, char *out, size_t n) {
    strbuf_t sb;
    sb_init(&sb);
    for (size_t i = 0; i < g->n_rules; i++) {
        rule_print(g, &g->rules[i], &sb);
        sb_putc(&sb, '\n');
    }
    char dir[1024];
    compile_cache_dir(dir, sizeof dir);
    snprintf(out, n, "%s/noground-%016llx-%zu", dir,
             (unsigned long long)compile_hash(sb.data, sb.len), sb.len);
    sb_fini(&sb);
}

/* A remembered failure, unless it was running out of a shorter time limit than `limit`
 * (the test suite grounds with 3 s; a user's 10 s may succeed). */
static bool remembered_noground(const char *path, double limit, char *why, size_t n) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    if (!fgets(why, (int)n, f)) snprintf(why, n, "remembered");
    why[strcspn(why, "\n")] = 0;
    double was = 0;
    bool timed = fscanf(f, "limit %lf", &was) == 1;
    fclose(f);
    return !timed || was >= limit;
}

/* Thread CPU seconds: how much of a time limit the grounder really had. */
static double cpu_seconds(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Remembers a failure. Running out of time is remembered only when the grounder had most
 * of the CPU for it: on a loaded machine the same game may ground next time. */
static void remember_noground(const char *path, const char *why, double limit, double cpu) {
    bool timed = !strncmp(why, "out of time", 11);
    if (timed && cpu < 0.8 * limit) return;
    char dir[1024];
    compile_cache_dir(dir, sizeof dir);
    if (!compile_make_dirs(dir)) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "%s, remembered in %s\n", why, path);
    if (timed) fprintf(f, "limit %g\n", limit);
    fclose(f);
}

/* Seconds the C compiler may take on a network of n literals: generous (connectFourLarge,
 * 3,251 literals, took 2 s at nice 10 on a loaded 2-core machine), so that a compile is
 * not started when it would outlast a start clock. */
static double compile_estimate(uint32_t n_lits) {
    return 1.0 + n_lits * 0.001;
}

engine_t *engine_new(game_t *g, engine_kind_t kind, FILE *log) {
    return engine_new_by(g, kind, log, 0);
}

engine_t *engine_new_by(game_t *g, engine_kind_t kind, FILE *log, double deadline) {
    if (kind == ENGINE_INTERP) return interp_make(g, reason_new(g), true);
    char why[1300] = "", path[1200];
    ground_opts_t opts = ground_default_opts();
    double limit = opts.seconds;
    /* a deadline shortens the limit; running out of that time is not remembered */
    bool shortened = deadline > 0 && deadline - now_seconds() < opts.seconds;
    if (shortened) opts.seconds = deadline - now_seconds();
    engine_noground_marker(g, path, sizeof path);
    gnet_t *net = NULL;
    if (!remembered_noground(path, limit, why, sizeof why)) {
        double cpu0 = cpu_seconds();
        bool no_time = opts.seconds <= 0.01; /* not a fact about the game: not remembered */
        if (no_time)
            snprintf(why, sizeof why, "no time left before the deadline");
        else
            net = gnet_new(g, &opts, why, sizeof why);
        if (!net && !shortened && !no_time)
            remember_noground(path, why, limit, cpu_seconds() - cpu0);
        if (!net && shortened)
            snprintf(why + strlen(why), sizeof why - strlen(why),
                     " in the %.1f s left before the deadline",
                     opts.seconds > 0 ? opts.seconds : 0);
    }
    if (!net) {
        if (log)
            fprintf(log, "engine: %s does not ground (%s); using the interpreter\n", g->file, why);
        return interp_make(g, reason_new(g), true);
    }
    if (kind != ENGINE_GROUND && deadline > 0 &&
        now_seconds() + compile_estimate(net->n_lits) > deadline) {
        if (log)
            fprintf(log,
                    "engine: %s: no time to compile %u literals before the deadline; using the "
                    "ground network\n",
                    g->file, net->n_lits);
        return gengine_new(g, net, NULL, NULL);
    }
    if (kind != ENGINE_GROUND) {
        engine_t *e = compile_engine(g, net, why, sizeof why);
        if (e) return e;
        if (log)
            fprintf(log, "engine: %s: no compiled code (%s); using the ground network\n", g->file,
                    why);
    }
    return gengine_new(g, net, NULL, NULL);
}

/* ---- the interface ---- */

engine_t *engine_clone(const engine_t *e) {
    return e->ops->clone(e);
}
void engine_free(engine_t *e) {
    if (e) e->ops->free(e);
}
engine_kind_t engine_kind(const engine_t *e) {
    return e->kind;
}
const game_t *engine_game(const engine_t *e) {
    return e->g;
}
double engine_ground_seconds(const engine_t *e) {
    return e->ground_seconds;
}
double engine_compile_seconds(const engine_t *e) {
    return e->compile_seconds;
}

eng_state_t *engine_state_new(const engine_t *e) {
    eng_state_t *s = xcalloc(1, sizeof *s + e->n_words * sizeof(uint64_t));
    s->is_bits = e->kind != ENGINE_INTERP;
    s->n_words = e->n_words;
    state_init(&s->terms);
    return s;
}

void engine_state_free(eng_state_t *s) {
    if (!s) return;
    state_fini(&s->terms);
    free(s);
}

void engine_state_copy(eng_state_t *dst, const eng_state_t *src) {
    if (src->is_bits) {
        memcpy(dst->bits, src->bits, src->n_words * sizeof *src->bits);
        dst->hash = src->hash;
    } else {
        state_copy(&dst->terms, &src->terms);
    }
}

bool engine_state_equal(const eng_state_t *a, const eng_state_t *b) {
    if (a->is_bits)
        return a->hash == b->hash && memcmp(a->bits, b->bits, a->n_words * sizeof *a->bits) == 0;
    return state_equal(&a->terms, &b->terms);
}

uint64_t engine_state_hash(const eng_state_t *s) {
    return s->is_bits ? s->hash : state_hash(&s->terms);
}

void engine_state_terms(engine_t *e, const eng_state_t *s, state_t *out) {
    e->ops->to_terms(e, s, out);
}
void engine_state_set(engine_t *e, eng_state_t *s, const state_t *in) {
    e->ops->from_terms(e, s, in);
}
void engine_initial(engine_t *e, eng_state_t *out) {
    e->ops->initial(e, out);
}
bool engine_terminal(engine_t *e, const eng_state_t *s) {
    return e->ops->terminal(e, s);
}
uint32_t engine_legal(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **moves) {
    return e->ops->legal(e, s, role, moves);
}
bool engine_is_legal(engine_t *e, const eng_state_t *s, uint32_t role, term_t move) {
    return e->ops->is_legal(e, s, role, move);
}
term_t engine_goal(engine_t *e, const eng_state_t *s, uint32_t role) {
    const term_t *v;
    return e->ops->goals(e, s, role, &v) == 1 ? v[0] : TERM_NONE;
}

uint32_t engine_goals(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **values) {
    return e->ops->goals(e, s, role, values);
}

int engine_goal_value(engine_t *e, const eng_state_t *s, uint32_t role) {
    term_t v = engine_goal(e, s, role);
    return v == TERM_NONE ? -1 : term_number(e->g->ts, v);
}

void engine_next(engine_t *e, const eng_state_t *s, const term_t *joint, eng_state_t *out) {
    e->ops->next(e, s, joint, out);
}
uint32_t engine_sees(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t role,
                     const term_t **percepts) {
    return e->ops->sees(e, s, joint, role, percepts);
}
uint32_t engine_playout(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                        int *goals) {
    return e->ops->playout(e, s, rng, max_steps, goals);
}
