/* The engine interface: the choice of backend, the dispatch to it, and what is built on
 * the operations alone (goal values, queries through the rules evaluator, random matches).
 * See engine.h; the backends are interp.c and gengine.c (compiled code: compile.c). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "engine/engine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/backend.h"
#include "engine/compile.h"
#include "engine/race.h"
#include "engine/reason.h"

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

/* ---- choosing a backend ---- */

/* A file of the cache about g's network: `what` then the hash of the grounder's version
 * and the rules. */
static void network_file(const game_t *g, const char *what, char *out, size_t n) {
    strbuf_t sb;
    sb_init(&sb);
    sb_printf(&sb, "grounder %d\n", GNET_GROUNDER_VERSION);
    for (size_t i = 0; i < g->n_rules; i++) {
        rule_print(g, &g->rules[i], &sb);
        sb_putc(&sb, '\n');
    }
    char dir[1024];
    compile_cache_dir(dir, sizeof dir);
    snprintf(out, n, "%s/%s-%016" PRIx64 "-%zu", dir, what, compile_hash(sb.data, sb.len), sb.len);
    sb_fini(&sb);
}

/* A game that did not ground is remembered in the cache, under the hash of its rules:
 * the next load (a trace test runs three) falls back at once instead of spending the limit
 * again. Delete the cache's noground-* files to try again. */
void engine_noground_marker(const game_t *g, char *out, size_t n) {
    network_file(g, "noground", out, n);
}

void engine_race_marker(const game_t *g, char *out, size_t n) {
    network_file(g, "race", out, n);
}

void engine_vsinterp_marker(const game_t *g, char *out, size_t n) {
    network_file(g, "vsinterp", out, n);
}

/* A remembered failure, unless it was running out of a shorter time limit than the one
 * in opts (the test suite grounds with 3 s; a user's 10 s may succeed), of a smaller work
 * limit than opts' (a failure of work says nothing to a grounder without one), or of a
 * smaller atom limit (with more atoms, hybrid grounding may find its cut). */
static bool remembered_noground(const char *path, const ground_opts_t *opts, char *why, size_t n) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    if (!fgets(why, (int)n, f)) snprintf(why, n, "remembered");
    why[strcspn(why, "\n")] = 0;
    double was = 0;
    unsigned long long work = 0, atoms = 0;
    bool timed = fscanf(f, "limit %lf", &was) == 1;
    bool worked = !timed && fscanf(f, "work %llu", &work) == 1;
    bool atomed = !timed && !worked && fscanf(f, "atoms %llu", &atoms) == 1;
    fclose(f);
    if (timed) return opts->seconds > 0 && was >= opts->seconds;
    if (worked) return opts->max_work && work >= opts->max_work;
    if (atomed) return opts->max_atoms && atoms >= opts->max_atoms;
    return true;
}

/* Remembers a failure. Running out of time is remembered only when the grounder had most
 * of the CPU for it: on a loaded machine the same game may ground next time. Running out
 * of work is a fact of the game and the limit. */
static void remember_noground(const char *path, const char *why, const ground_opts_t *opts,
                              double cpu) {
    bool timed = !strncmp(why, "out of time", 11), worked = !strncmp(why, "out of work", 11);
    bool atomed = !strncmp(why, "too many ground atoms", 21);
    if (timed && cpu < 0.8 * opts->seconds) return;
    char dir[1024];
    compile_cache_dir(dir, sizeof dir);
    if (!compile_make_dirs(dir)) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "%s, remembered in %s\n", why, path);
    if (timed) fprintf(f, "limit %g\n", opts->seconds);
    if (worked) fprintf(f, "work %" PRIu64 "\n", opts->max_work);
    if (atomed) fprintf(f, "atoms %u\n", opts->max_atoms);
    fclose(f);
}

/* The race of an engine on the ground network against a new interpreter (into *interp),
 * `seconds` in all: their rates into r[0] and r[1], remembered at path when both played
 * enough steps to be kept; what was done into how. */
static void race_both(engine_t *ground, engine_t **interp, double seconds, const char *path,
                      double *r, char *how, size_t n) {
    uint64_t ng, ni;
    *interp = interp_new(ground->g);
    r[0] = race_rate(ground, seconds / 2, &ng);
    r[1] = race_rate(*interp, seconds / 2, &ni);
    char dir[1024];
    compile_cache_dir(dir, sizeof dir);
    if (ng >= RACE_MIN_STEPS && ni >= RACE_MIN_STEPS && compile_make_dirs(dir))
        race_write(path, r[0], r[1], ground->net->n_lits);
    snprintf(how, n, "raced %" PRIu64 " and %" PRIu64 " steps", ng, ni);
}

/* Without compiled code for net (why): the ground network, or, when the choice is ours
 * (race), the interpreter where it is faster by a race of the two (race.h) or by the
 * verdict of an earlier one in the cache. The race takes a share of the time left before
 * the deadline; with too little, the ground network plays and nothing is remembered. */
static engine_t *uncompiled(game_t *g, gnet_t *net, FILE *log, double deadline, const char *why,
                            bool race) {
    engine_t *ground = gengine_new(g, net, NULL), *interp = NULL;
    char path[1200], how[1300];
    double r[2], seconds = race ? race_seconds(deadline) : 0;
    uint32_t lits;
    engine_race_marker(g, path, sizeof path);
    if (race && race_read(path, &r[0], &r[1], &lits))
        snprintf(how, sizeof how, "remembered in %s", path);
    else if (seconds > 0)
        race_both(ground, &interp, seconds, path, r, how, sizeof how);
    else {
        if (log)
            fprintf(log, "engine: %s: no compiled code (%s); %susing the ground network\n", g->file,
                    why, race ? "no time to race the interpreter: " : "");
        return ground;
    }
    bool slow = race_choice(r[0], r[1]) == ENGINE_INTERP;
    double grounding = net->seconds;
    if (log)
        fprintf(log,
                "engine: %s: no compiled code (%s); ground network %.0f steps per CPU s, "
                "interpreter %.0f (%s): using the %s\n",
                g->file, why, r[0], r[1], how, slow ? "interpreter" : "ground network");
    engine_free(slow ? ground : interp);
    if (!slow) return ground;
    if (!interp) interp = interp_new(g);
    interp->ground_seconds = grounding; /* spent before the race chose it */
    return interp;
}

/* e, the engine made on a big network (race_interp_lits() literals or more), or the
 * interpreter where a race of the two, or its verdict remembered at path, finds the
 * interpreter faster by the margin (race_choice). e's code is ready (path: the vsinterp
 * marker; e plays the code where its race kept it, else the network) or still compiling
 * (code, path: the race marker: until the code is ready e plays the network, on which a
 * move can reach so many literals that the interpreter is the faster: kalaha_2009's 60,435
 * steps per CPU s against 190,387 on a loaded core). An interpreter chosen while the code
 * compiles keeps the compile going, so that the code reaches the cache and the next load
 * races the code itself. */
static engine_t *or_interp(engine_t *e, FILE *log, double deadline, const char *path,
                           netcode_t *code) {
    if (e->net->n_lits < race_interp_lits()) return e;
    game_t *g = e->g;
    char how[1300];
    double r[2], seconds = race_seconds(deadline);
    uint32_t lits;
    engine_t *interp = NULL;
    if (race_read(path, &r[0], &r[1], &lits))
        snprintf(how, sizeof how, "remembered in %s", path);
    else if (seconds > 0)
        race_both(e, &interp, seconds, path, r, how, sizeof how);
    else
        return e;
    bool slow = race_choice(r[0], r[1]) == ENGINE_INTERP;
    const char *mine = code                                ? "ground network (its code compiling)"
                       : engine_kind(e) == ENGINE_COMPILED ? "compiled code"
                                                           : "ground network";
    if (log)
        fprintf(log, "engine: %s: %s %.0f steps per CPU s, interpreter %.0f (%s): using the %s\n",
                g->file, mine, r[0], r[1], how, slow ? "interpreter" : mine);
    if (!slow) {
        engine_free(interp);
        return e;
    }
    if (!interp) interp = interp_new(g);
    interp->ground_seconds = e->net->seconds; /* spent before the race chose it */
    interp->compiling = code ? netcode_ref(code) : NULL;
    engine_free(e);
    return interp;
}

/* The engine on net with its compiled code: waited for without a deadline; with one, until
 * a little before it, then the engine starts on the network and switches to the code when
 * it is ready (compilation outlasting a start clock goes on in the background). When the
 * choice is ours (race: the auto kind), the code is kept only where it beats the network
 * (gengine_new_raced; a forced compiled kind keeps it). Without code (over the compiler's
 * bound, the compiler failed): uncompiled's choice. */
static engine_t *compiled(game_t *g, gnet_t *net, FILE *log, double deadline, bool race) {
    char why[400];
    netcode_t *code = netcode_start(net, why, sizeof why);
    if (!code) return uncompiled(g, net, log, deadline, why, race);
    double left = deadline - now_seconds(); /* the ground engine's making needs a little */
    netcode_state_t st =
        netcode_wait(code, deadline > 0 ? deadline - 0.1 * (left > 0 ? left : 0) : 0);
    if (st == NETCODE_FAILED) {
        snprintf(why, sizeof why, "%s", netcode_why(code));
        netcode_unref(code);
        return uncompiled(g, net, log, deadline, why, race);
    }
    if (st == NETCODE_BUSY && log)
        fprintf(log,
                "engine: %s: compiling %u literals in the background; the ground network plays "
                "until the code is ready\n",
                g->file, net->n_lits);
    if (!race) return gengine_new(g, net, code);
    netcode_ref(code); /* to say the race's verdict */
    engine_t *e = gengine_new_raced(g, net, code, deadline);
    double rc, rn;
    if (st == NETCODE_READY && engine_kind(e) == ENGINE_GROUND && netcode_verdict(code, &rc, &rn) &&
        log)
        fprintf(log,
                "engine: %s: compiled code %.0f steps per CPU s, ground network %.0f (raced or "
                "remembered beside the code): using the ground network\n",
                g->file, rc, rn);
    char path[1200];
    if (st == NETCODE_READY)
        engine_vsinterp_marker(g, path, sizeof path);
    else
        engine_race_marker(g, path, sizeof path);
    e = or_interp(e, log, deadline, path, st == NETCODE_READY ? NULL : code);
    netcode_unref(code);
    return e;
}

/* The interpreter at once, without grounding, where an earlier race found it faster than a
 * network that the compiler does not take (its literals over the cap, as read now), or than
 * the engine made on a big network with its code (or_interp); NULL otherwise. A verdict
 * after a failure of the compiler is read only once the network is made (uncompiled): the
 * compiler may work this time. */
static engine_t *interp_by_verdict(game_t *g, FILE *log) {
    char path[1200], big[1200];
    double rg, ri;
    uint32_t lits;
    engine_race_marker(g, path, sizeof path);
    engine_vsinterp_marker(g, big, sizeof big);
    bool uncompiled = race_read(path, &rg, &ri, &lits) && lits > compile_max_lits() &&
                      race_choice(rg, ri) == ENGINE_INTERP;
    if (!uncompiled && race_read(big, &rg, &ri, &lits) && race_choice(rg, ri) == ENGINE_INTERP) {
        if (log)
            fprintf(log,
                    "engine: %s: its engine on the network %.0f steps per CPU s, interpreter "
                    "%.0f (remembered in %s): using the interpreter, not grounding\n",
                    g->file, rg, ri, big);
        return interp_new(g);
    }
    if (!uncompiled) return NULL;
    if (log)
        fprintf(log,
                "engine: %s: no compiled code (%u literals, more than %u); ground network %.0f "
                "steps per CPU s, interpreter %.0f (remembered in %s): using the interpreter, "
                "not grounding\n",
                g->file, lits, compile_max_lits(), rg, ri, path);
    return interp_new(g);
}

engine_t *engine_new(game_t *g, engine_kind_t kind, FILE *log) {
    return engine_new_by(g, kind, log, 0);
}

engine_t *engine_new_by(game_t *g, engine_kind_t kind, FILE *log, double deadline) {
    if (kind == ENGINE_INTERP) return interp_new(g);
    engine_t *known = kind == ENGINE_AUTO ? interp_by_verdict(g, log) : NULL;
    if (known) return known;
    char why[1300] = "", path[1200];
    ground_opts_t opts = ground_default_opts(), asked = opts;
    /* a deadline shortens the limit; running out of that time is not remembered */
    bool shortened = deadline > 0 && (opts.seconds <= 0 || deadline - now_seconds() < opts.seconds);
    if (shortened) opts.seconds = deadline - now_seconds();
    engine_noground_marker(g, path, sizeof path);
    gnet_t *net = NULL;
    double tried = now_seconds();
    bool remembered = remembered_noground(path, &asked, why, sizeof why);
    if (!remembered) {
        double cpu0 = cpu_seconds();
        /* not a fact about the game: not remembered */
        bool no_time = (shortened || opts.seconds > 0) && opts.seconds <= 0.01;
        if (no_time)
            snprintf(why, sizeof why, "no time left before the deadline");
        else
            net = gnet_new(g, &opts, why, sizeof why);
        if (!net && !shortened && !no_time)
            remember_noground(path, why, &asked, cpu_seconds() - cpu0);
        if (!net && shortened)
            snprintf(why + strlen(why), sizeof why - strlen(why),
                     " in the %.1f s left before the deadline",
                     opts.seconds > 0 ? opts.seconds : 0);
    }
    if (!net) {
        if (log)
            fprintf(log, "engine: %s does not ground (%s); using the interpreter\n", g->file, why);
        engine_t *interp = interp_new(g);
        interp->ground_seconds = now_seconds() - tried; /* the grounding given up */
        /* the deadline's doing, not the game's: another grounding without it may work */
        interp->cut = shortened && !remembered &&
                      (!strncmp(why, "out of time", 11) || !strncmp(why, "no time", 7));
        return interp;
    }
    if (kind == ENGINE_GROUND) return gengine_new(g, net, NULL);
    return compiled(g, net, log, deadline, kind == ENGINE_AUTO);
}

/* ---- the interface ---- */

int engine_thread_start(pthread_t *t, void *(*fn)(void *), void *arg) {
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, ENGINE_THREAD_STACK);
    int rc = pthread_create(t, &at, fn, arg);
    pthread_attr_destroy(&at);
    return rc;
}

engine_t *engine_clone(const engine_t *e) {
    return e->ops->clone(e);
}
void engine_free(engine_t *e) {
    if (!e) return;
    reason_free(e->rules);
    state_fini(&e->rules_state);
    netcode_unref(e->compiling);
    e->ops->free(e);
}
engine_kind_t engine_kind(const engine_t *e) {
    return e->kind;
}
const char *engine_error(const engine_t *e) {
    const char *own = e->ops->error ? e->ops->error(e) : NULL;
    if (own) return own;
    return e->rules ? reason_error(e->rules) : NULL;
}
bool engine_uses_store(const engine_t *e) {
    return e->kind == ENGINE_INTERP || (e->net && e->net->n_queries);
}
game_t *engine_game(const engine_t *e) {
    return e->g;
}
double engine_ground_seconds(const engine_t *e) {
    return e->ground_seconds;
}
double engine_compile_seconds(const engine_t *e) {
    return e->compile_seconds;
}
bool engine_grounding_cut(const engine_t *e) {
    return e->cut;
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
    if (e->ops->goal_value) return e->ops->goal_value(e, s, role);
    const term_t *vals;
    uint32_t n = engine_goals(e, s, role, &vals);
    return term_highest_number(e->g->ts, vals, n);
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
    return e->ops->playout(e, s, rng, max_steps, goals, NULL, NULL, NULL);
}
uint32_t engine_playout_hooked(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                               int *goals, engine_playout_hook_t hook, void *ctx, bool *stopped) {
    *stopped = false;
    return e->ops->playout(e, s, rng, max_steps, goals, hook, ctx, stopped);
}

uint32_t engine_query(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t pred,
                      const term_t **tuples) {
    if (e->ops->query) return e->ops->query(e, s, joint, pred, tuples);
    if (!e->rules) e->rules = reason_new(e->g);
    if (s) engine_state_terms(e, s, &e->rules_state);
    return reason_query(e->rules, s ? &e->rules_state : NULL, joint, pred, tuples);
}

/* ---- random matches ---- */

/* One role's draw among its n legal moves m: in the engine's order, or sorted canonically
 * into *buf (grown as needed). */
static term_t draw(const engine_t *e, const term_t *m, uint32_t n, splitmix_t *rng, term_t **buf,
                   size_t *cap) {
    if (buf) {
        GROW(*buf, *cap, n);
        memcpy(*buf, m, n * sizeof *m);
        term_sort(e->g->ts, *buf, n);
        m = *buf;
    }
    return m[splitmix_next(rng) % n];
}

static bool random_joint(engine_t *e, const eng_state_t *s, splitmix_t *rng, term_t *joint,
                         term_t **buf, size_t *cap) {
    for (uint32_t r = 0; r < e->g->n_roles; r++) {
        const term_t *m;
        uint32_t n = engine_legal(e, s, r, &m);
        if (!n) return false;
        joint[r] = draw(e, m, n, rng, buf, cap);
    }
    return true;
}

bool engine_random_joint(engine_t *e, const eng_state_t *s, splitmix_t *rng, term_t *joint) {
    return random_joint(e, s, rng, joint, NULL, NULL);
}

static bool late(const engine_walk_t *w) {
    return w->deadline > 0 && now_seconds() > w->deadline;
}

engine_walked_t engine_walk(engine_t *e, splitmix_t *rng, const engine_walk_t *w,
                            engine_visit_t visit, void *ctx) {
    engine_walked_t out = {0};
    term_t *joint = xmalloc((e->g->n_roles + 1) * sizeof *joint), *sorted = NULL;
    size_t cap = 0;
    eng_state_t *s = engine_state_new(e), *t = engine_state_new(e);
    bool stop = false;
    for (uint32_t m = 0; m < w->matches && !stop; m++) {
        if (late(w)) {
            out.timed_out = true;
            break;
        }
        out.matches++;
        engine_initial(e, s);
        for (uint32_t ply = 0; ply < w->max_plies; ply++) {
            if (ply && late(w)) {
                out.timed_out = stop = true;
                break;
            }
            bool end = engine_terminal(e, s);
            if (!end || w->terminal) {
                out.visits++;
                engine_walk_next_t next = visit(ctx, e, s, ply);
                stop = next == ENGINE_WALK_STOP;
                end = end || next != ENGINE_WALK_ON;
            }
            if (end || !random_joint(e, s, rng, joint, w->canonical ? &sorted : NULL, &cap)) break;
            engine_next(e, s, joint, t);
            eng_state_t *x = s;
            s = t, t = x;
        }
    }
    engine_state_free(s);
    engine_state_free(t);
    free(joint);
    free(sorted);
    return out;
}

typedef struct {
    uint32_t ply;
    eng_state_t *out;
    bool found;
} walk_to_t;

static engine_walk_next_t take_at_ply(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)e;
    walk_to_t *x = ctx;
    if (ply < x->ply) return ENGINE_WALK_ON;
    engine_state_copy(x->out, s);
    x->found = true;
    return ENGINE_WALK_STOP;
}

typedef struct {
    eng_state_t **out;
    uint32_t n, max;
} sample_t;

static engine_walk_next_t keep_copy(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)ply;
    sample_t *x = ctx;
    x->out[x->n] = engine_state_new(e);
    engine_state_copy(x->out[x->n++], s);
    return x->n < x->max ? ENGINE_WALK_ON : ENGINE_WALK_STOP;
}

uint32_t engine_sample(engine_t *e, splitmix_t *rng, const engine_walk_t *w, eng_state_t **out,
                       uint32_t max) {
    sample_t x = {out, 0, max};
    if (max) engine_walk(e, rng, w, keep_copy, &x);
    return x.n;
}

bool engine_walk_to(engine_t *e, splitmix_t *rng, uint32_t ply, bool canonical, eng_state_t *out) {
    walk_to_t x = {.ply = ply, .out = out};
    engine_walk_t w = {.matches = 1, .max_plies = ply + 1, .canonical = canonical};
    engine_walk(e, rng, &w, take_at_ply, &x);
    return x.found;
}
