/* The Z3 bridge: see z3.h. Reference counting is explicit (Z3_mk_context_rc): every AST
 * the bridge keeps sits in a slot of the context's table with a count of its holders
 * (the context itself, encoders, z3_keep), and is dec_ref'd when the count drops to 0;
 * temporaries are released where they are made. What a solver asserts it keeps alive
 * itself. */
#define _POSIX_C_SOURCE 200809L
#include "logic/z3.h"
#include "base/clock.h"
#include "base/util.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <z3.h>

typedef struct {
    Z3_ast ast;
    uint32_t holders; /* 0: a free slot, next free in `next` */
    uint32_t next;
} slot_t;

typedef struct {
    z3_term_t pos, neg;
    Z3_func_decl decl; /* for models that give it a value (z3_eval) */
} var_t;

/* The watchdog: a thread that calls Z3_interrupt when an armed check's deadline passes
 * (Z3's rounds and the internalising of new assertions stop only so). It interrupts only
 * while armed, under the lock the check's thread takes to disarm: an interrupt that lands
 * just after Z3 returned is harmless (Z3 resets it at the next call). */
typedef struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started, quit;
    double deadline; /* armed: > 0, now_seconds() time */
    bool hit;        /* it interrupted the armed call */
    bool test_now;   /* z3_test_interrupt: the next armed check's deadline has passed */
} watch_t;

struct z3 {
    Z3_context ctx;
    watch_t watch;
    slot_t *slots; /* slot 0 unused: the handle 0 is "no term" */
    uint32_t n_slots, free_slot;
    size_t cap_slots;
    var_t *vars;
    uint32_t n_vars;
    size_t cap_vars;
    z3_term_t yes, no; /* the constants */
    bool failed;
    z3_stats_t stats;
};

struct z3_enc {
    z3_t *z;
    const circuit_t *c;
    z3_term_t *memo; /* per node, 0: not built */
    size_t cap;
};

struct z3_solver {
    z3_t *z;
    Z3_solver solver;
    bool incremental;   /* not the SAT engine (whose every check starts afresh) */
    bool bounded;       /* its conflict budget is set */
    double rate;        /* conflicts per second (a running average) */
    unsigned conflicts; /* its conflicts so far */
    Z3_model model;     /* of the last check, once read */
    int last;           /* the last check's answer */
    bool spoiled;       /* a check of it was interrupted: it answers unknown from then on */
    z3_term_t halt;     /* a variable asserted false: z3_settle assumes it */
};

/* ---------------- errors ---------------- */

/* The context of the error Z3 reported in a call of this thread (the handler runs
 * synchronously, inside the call), and its message; NULL: none. */
static _Thread_local Z3_context z3_error;
static _Thread_local char z3_error_msg[160];

static void on_error(Z3_context c, Z3_error_code e) {
    if (z3_error != c) snprintf(z3_error_msg, sizeof z3_error_msg, "%s", Z3_get_error_msg(c, e));
    z3_error = c;
}

/* False, and the context failed, when Z3 reported an error of this context since the
 * last look. */
static bool ok(z3_t *z) {
    if (z3_error != z->ctx) return !z->failed;
    z3_error = NULL;
    z->stats.errors++;
    if (!z->failed)
        fprintf(stderr, "z3: %s (this solver answers unknown from now on)\n", z3_error_msg);
    z->failed = true;
    return false;
}

/* ---------------- terms ---------------- */

/* A new slot holding a (referenced here); 0 when a is NULL or Z3 reported an error. */
static z3_term_t put(z3_t *z, Z3_ast a) {
    if (!ok(z) || !a) {
        z->failed = true;
        return 0;
    }
    Z3_inc_ref(z->ctx, a);
    uint32_t t = z->free_slot;
    if (t)
        z->free_slot = z->slots[t].next;
    else {
        GROW(z->slots, z->cap_slots, z->n_slots + 1);
        t = z->n_slots++;
    }
    z->slots[t] = (slot_t){.ast = a, .holders = 1};
    return t;
}

static Z3_ast ast(const z3_t *z, z3_term_t t) {
    return z->slots[t].ast;
}

void z3_keep(z3_t *z, z3_term_t t) {
    if (t) z->slots[t].holders++;
}

void z3_release(z3_t *z, z3_term_t t) {
    if (!t || --z->slots[t].holders) return;
    Z3_dec_ref(z->ctx, z->slots[t].ast);
    z->slots[t] = (slot_t){.next = z->free_slot};
    z->free_slot = t;
}

/* ---------------- the watchdog ---------------- */

static struct timespec abs_time(double t) {
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    return ts;
}

static void *watch_main(void *arg) {
    z3_t *z = arg;
    watch_t *w = &z->watch;
    pthread_mutex_lock(&w->mu);
    while (!w->quit) {
        if (w->deadline <= 0) {
            pthread_cond_wait(&w->cv, &w->mu);
        } else if (now_seconds() >= w->deadline) {
            Z3_interrupt(z->ctx);
            w->hit = true;
            w->deadline = 0;
        } else {
            struct timespec ts = abs_time(w->deadline);
            pthread_cond_timedwait(&w->cv, &w->mu, &ts);
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Arms the watchdog for a call that must end by deadline (> 0); false when no thread
 * could be started (the call then runs on its rounds alone). */
static bool watch_arm(z3_t *z, double deadline) {
    watch_t *w = &z->watch;
    if (!w->started) {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* now_seconds()'s clock */
        pthread_mutex_init(&w->mu, NULL);
        pthread_cond_init(&w->cv, &ca);
        pthread_condattr_destroy(&ca);
        if (pthread_create(&w->thread, NULL, watch_main, z) != 0) {
            pthread_cond_destroy(&w->cv);
            pthread_mutex_destroy(&w->mu);
            return false;
        }
        w->started = true;
    }
    pthread_mutex_lock(&w->mu);
    w->deadline = deadline;
    w->hit = false;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return true;
}

/* Disarms it; true when it interrupted the call. */
static bool watch_disarm(z3_t *z) {
    watch_t *w = &z->watch;
    pthread_mutex_lock(&w->mu);
    w->deadline = 0;
    bool hit = w->hit;
    w->hit = false;
    pthread_mutex_unlock(&w->mu);
    return hit;
}

static void watch_stop(z3_t *z) {
    watch_t *w = &z->watch;
    if (!w->started) return;
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
}

z3_t *z3_new(void) {
    z3_t *z = xcalloc(1, sizeof *z);
    Z3_config cfg = Z3_mk_config();
    z->ctx = Z3_mk_context_rc(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(z->ctx, on_error);
    if (z3_error == z->ctx) z3_error = NULL; /* a freed context's, at the same address */
    GROW(z->slots, z->cap_slots, 1);
    z->n_slots = 1;
    z->yes = put(z, Z3_mk_true(z->ctx));
    z->no = put(z, Z3_mk_false(z->ctx));
    return z;
}

void z3_free(z3_t *z) {
    if (!z) return;
    for (uint32_t v = 0; v < z->n_vars; v++)
        if (z->vars[v].pos) Z3_dec_ref(z->ctx, Z3_func_decl_to_ast(z->ctx, z->vars[v].decl));
    for (uint32_t t = 1; t < z->n_slots; t++)
        if (z->slots[t].holders) Z3_dec_ref(z->ctx, z->slots[t].ast);
    watch_stop(z);
    Z3_del_context(z->ctx);
    free(z->slots);
    free(z->vars);
    free(z);
}

z3_stats_t z3_stats(const z3_t *z) {
    return z->stats;
}

void z3_stats_print(const z3_stats_t *st, strbuf_t *out) {
    sb_printf(out,
              "z3 %" PRIu64 " checks, %.2f ms average, %.1f ms max; %" PRIu64
              " models, %.2f ms average; %" PRIu64 " "
              "checks gave up, %" PRIu64 " rounds, %" PRIu64 " interrupted",
              st->checks, st->checks ? 1000 * st->seconds / st->checks : 0.0,
              1000 * st->max_seconds, st->models,
              st->models ? 1000 * st->model_seconds / st->models : 0.0, st->gave_up, st->rounds,
              st->interrupted);
}

bool z3_failed(const z3_t *z) {
    return z->failed;
}

const char *z3_version(void) {
    static char buf[64];
    unsigned a, b, c, d;
    Z3_get_version(&a, &b, &c, &d);
    snprintf(buf, sizeof buf, "%u.%u.%u", a, b, c);
    return buf;
}

static var_t *var(z3_t *z, uint32_t v) {
    if (v >= z->n_vars) {
        GROW(z->vars, z->cap_vars, (size_t)v + 1);
        memset(z->vars + z->n_vars, 0, (v + 1 - z->n_vars) * sizeof *z->vars);
        z->n_vars = v + 1;
    }
    var_t *x = &z->vars[v];
    if (x->pos || z->failed) return x;
    char name[32];
    snprintf(name, sizeof name, "v%u", v);
    x->pos =
        put(z, Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, name), Z3_mk_bool_sort(z->ctx)));
    if (!x->pos) return x;
    x->neg = put(z, Z3_mk_not(z->ctx, ast(z, x->pos)));
    x->decl = Z3_get_app_decl(z->ctx, Z3_to_app(z->ctx, ast(z, x->pos)));
    Z3_inc_ref(z->ctx, Z3_func_decl_to_ast(z->ctx, x->decl));
    if (!x->neg || !ok(z)) x->pos = x->neg = 0;
    return x;
}

z3_term_t z3_var(z3_t *z, uint32_t v) {
    return var(z, v)->pos;
}

z3_term_t z3_lit(z3_t *z, uint32_t v, bool value) {
    var_t *x = var(z, v);
    return value ? x->pos : x->neg;
}

z3_term_t z3_const(z3_t *z, bool value) {
    return value ? z->yes : z->no;
}

/* ---------------- circuits ---------------- */

z3_enc_t *z3_enc_new(z3_t *z, const circuit_t *c) {
    z3_enc_t *e = xcalloc(1, sizeof *e);
    e->z = z;
    e->c = c;
    return e;
}

void z3_enc_free(z3_enc_t *e) {
    if (!e) return;
    for (size_t i = 0; i < e->cap; i++)
        z3_release(e->z, e->memo[i]);
    free(e->memo);
    free(e);
}

/* Tseitin's encoding of a circuit into a solver: node n's AST, referenced by the memo
 * (NULL: not yet built), and/or nodes as fresh variables defined by clauses. */
typedef struct {
    z3_t *z;
    const circuit_t *c;
    Z3_solver tseitin;
    Z3_ast *memo;
} build_t;

static Z3_ast build(build_t *b, pn_t n);

/* Asserts the clause lits[0..k) in the Tseitin solver. */
static void clause(build_t *b, Z3_ast *lits, uint32_t k) {
    Z3_context ctx = b->z->ctx;
    Z3_ast cl = k == 1 ? lits[0] : Z3_mk_or(ctx, k, lits);
    if (!cl) return;
    Z3_inc_ref(ctx, cl);
    Z3_solver_assert(ctx, b->tseitin, cl);
    Z3_dec_ref(ctx, cl);
}

static Z3_ast held(build_t *b, Z3_ast a) {
    if (a) Z3_inc_ref(b->z->ctx, a);
    return a;
}

/* An and/or node as a fresh variable r defined by clauses (AND: r -> x_i, (and x_i) -> r;
 * OR: x_i -> r, r -> (or x_i)); referenced. */
static Z3_ast tseitin_node(build_t *b, pn_t n) {
    Z3_context ctx = b->z->ctx;
    bool is_and = pn_op(b->c, n) == PN_AND;
    uint32_t k = pn_arity(b->c, n);
    Z3_ast r = held(b, Z3_mk_fresh_const(ctx, "t", Z3_mk_bool_sort(ctx)));
    if (!r) return NULL;
    Z3_ast nr = held(b, Z3_mk_not(ctx, r));
    Z3_ast *big = xcalloc(k + 1, sizeof *big);
    bool good = nr != NULL;
    for (uint32_t i = 0; i < k && good; i++) {
        Z3_ast x = build(b, pn_kid(b->c, n, i));
        Z3_ast nx = x ? held(b, Z3_mk_not(ctx, x)) : NULL;
        good = nx != NULL;
        if (!good) break;
        Z3_ast two[2] = {is_and ? nr : nx, is_and ? x : r};
        clause(b, two, 2);
        big[i] = is_and ? nx : held(b, x);
        if (!is_and) Z3_dec_ref(ctx, nx);
    }
    if (good) {
        big[k] = is_and ? r : nr;
        clause(b, big, k + 1);
    }
    for (uint32_t i = 0; i < k; i++)
        if (big[i]) Z3_dec_ref(ctx, big[i]);
    if (nr) Z3_dec_ref(ctx, nr);
    free(big);
    if (!good) Z3_dec_ref(ctx, r);
    return good ? r : NULL;
}

/* NULL after an error (the context has then failed). */
static Z3_ast build(build_t *b, pn_t n) {
    if (b->memo[n]) return b->memo[n];
    z3_t *z = b->z;
    if (z->failed) return NULL;
    Z3_ast r;
    switch (pn_op(b->c, n)) {
    case PN_CONST:
        r = held(b, ast(z, n == PN_TRUE ? z->yes : z->no));
        break;
    case PN_VAR: {
        z3_term_t v = z3_var(z, pn_varnum(b->c, n));
        r = v ? held(b, ast(z, v)) : NULL;
        break;
    }
    case PN_NOT: {
        Z3_ast k = build(b, pn_kid(b->c, n, 0));
        r = k ? held(b, Z3_mk_not(z->ctx, k)) : NULL;
        break;
    }
    default:
        r = tseitin_node(b, n);
    }
    if (!ok(z) || !r) {
        z->failed = true;
        return NULL; /* r, if any, stays referenced: the context is given up */
    }
    b->memo[n] = r;
    return r;
}

/* Node n as a plain term held by the memo (and/or nodes over their kids' terms). */
static z3_term_t enc(z3_enc_t *e, pn_t n) {
    if (e->memo[n]) return e->memo[n];
    z3_t *z = e->z;
    const circuit_t *c = e->c;
    z3_term_t t = 0;
    switch (pn_op(c, n)) {
    case PN_CONST:
    case PN_VAR:
        t = pn_op(c, n) == PN_VAR ? z3_var(z, pn_varnum(c, n)) : z3_const(z, n == PN_TRUE);
        z3_keep(z, t);
        break;
    case PN_NOT: {
        z3_term_t k = enc(e, pn_kid(c, n, 0));
        if (k) t = put(z, Z3_mk_not(z->ctx, ast(z, k)));
        break;
    }
    default: {
        uint32_t k = pn_arity(c, n), i = 0;
        Z3_ast *kids = xmalloc((k + 1) * sizeof *kids);
        for (z3_term_t x; i < k && (x = enc(e, pn_kid(c, n, i))); i++)
            kids[i] = ast(z, x);
        if (i == k)
            t = put(z,
                    pn_op(c, n) == PN_AND ? Z3_mk_and(z->ctx, k, kids) : Z3_mk_or(z->ctx, k, kids));
        free(kids);
    }
    }
    e->memo[n] = t;
    return t;
}

z3_term_t z3_enc_term(z3_enc_t *e, pn_t n) {
    if (e->z->failed) return 0;
    uint32_t size = circuit_size(e->c);
    if (size > e->cap) {
        size_t old = e->cap;
        GROW(e->memo, e->cap, size);
        memset(e->memo + old, 0, (e->cap - old) * sizeof *e->memo);
    }
    return enc(e, n);
}

int z3_eval(z3_t *z, z3_term_t t, const uint8_t *truth, uint32_t n) {
    if (!t || z->failed) return -1;
    Z3_context ctx = z->ctx;
    Z3_model m = Z3_mk_model(ctx);
    if (!ok(z) || !m) return -1;
    Z3_model_inc_ref(ctx, m);
    for (uint32_t v = 0; v < n && v < z->n_vars; v++)
        if (z->vars[v].pos)
            Z3_add_const_interp(ctx, m, z->vars[v].decl, ast(z, truth[v] ? z->yes : z->no));
    Z3_ast out = NULL;
    int r = -1;
    if (Z3_model_eval(ctx, m, ast(z, t), true, &out) && out && ok(z)) {
        Z3_inc_ref(ctx, out);
        r = Z3_is_eq_ast(ctx, out, ast(z, z->yes))  ? 1
            : Z3_is_eq_ast(ctx, out, ast(z, z->no)) ? 0
                                                    : -1;
        Z3_dec_ref(ctx, out);
    }
    Z3_model_dec_ref(ctx, m);
    return ok(z) ? r : -1;
}

/* ---------------- solvers ---------------- */

/* Checks are bounded by work: budgets of conflicts, in rounds (see z3.h). */
#define RATE0 20000.0     /* conflicts per second before any is measured */
#define FIRST_ROUND 2000u /* conflicts: at most 0.1-0.2 s late in the full killer game */

z3_solver_t *z3_solver_new(z3_t *z, bool sat_engine) {
    z3_solver_t *s = xcalloc(1, sizeof *s);
    s->z = z;
    s->rate = RATE0;
    s->incremental = !sat_engine;
    Z3_context ctx = z->ctx;
    if (sat_engine) {
        /* hard propositional queries: Z3's SAT engine directly (the clauses are CNF) */
        Z3_tactic t = Z3_mk_tactic(ctx, "sat");
        if (t) {
            Z3_tactic_inc_ref(ctx, t);
            s->solver = Z3_mk_solver_from_tactic(ctx, t);
            Z3_tactic_dec_ref(ctx, t);
        }
    } else {
        /* the plain incremental solver: about 3x faster per check than the default
         * combined solver, which dispatches on every call */
        s->solver = Z3_mk_simple_solver(ctx);
    }
    if (ok(z) && s->solver)
        Z3_solver_inc_ref(ctx, s->solver);
    else
        s->solver = NULL, z->failed = true;
    return s;
}

static void forget_model(z3_solver_t *s) {
    if (s->model) Z3_model_dec_ref(s->z->ctx, s->model);
    s->model = NULL;
    s->last = -1;
}

void z3_solver_free(z3_solver_t *s) {
    if (!s) return;
    forget_model(s);
    if (s->solver) Z3_solver_dec_ref(s->z->ctx, s->solver);
    free(s);
}

/* Whether s can take a call: the context has not failed. */
static bool usable(z3_solver_t *s) {
    forget_model(s);
    return s->solver && !s->z->failed;
}

void z3_assert(z3_solver_t *s, z3_term_t t) {
    if (!usable(s) || !t) return;
    Z3_solver_assert(s->z->ctx, s->solver, ast(s->z, t));
    ok(s->z);
}

/* Asserts a, made just now (NULL: an error), and releases it. */
static void assert_made(z3_solver_t *s, Z3_ast a) {
    Z3_context ctx = s->z->ctx;
    if (!ok(s->z) || !a) {
        s->z->failed = true;
        return;
    }
    Z3_inc_ref(ctx, a);
    Z3_solver_assert(ctx, s->solver, a);
    Z3_dec_ref(ctx, a);
    ok(s->z);
}

void z3_assert_iff(z3_solver_t *s, z3_term_t a, z3_term_t b) {
    if (!usable(s) || !a || !b) return;
    assert_made(s, Z3_mk_iff(s->z->ctx, ast(s->z, a), ast(s->z, b)));
}

void z3_assert_one(z3_solver_t *s, z3_term_t guard, const z3_term_t *ts, uint32_t n) {
    if (!usable(s) || !guard) return;
    z3_t *z = s->z;
    Z3_context ctx = z->ctx;
    Z3_ast *a = xmalloc((n + 1) * sizeof *a);
    bool all = true;
    for (uint32_t i = 0; i < n; i++)
        all &= (a[i] = ts[i] ? ast(z, ts[i]) : NULL) != NULL;
    if (all && n > 1) assert_made(s, Z3_mk_atmost(ctx, n, a, 1));
    if (all && !z->failed) {
        Z3_ast least = n ? Z3_mk_atleast(ctx, n, a, 1) : ast(z, z->no);
        if (guard == z->yes || !least || !ok(z))
            assert_made(s, least);
        else {
            Z3_inc_ref(ctx, least);
            assert_made(s, Z3_mk_implies(ctx, ast(z, guard), least));
            Z3_dec_ref(ctx, least);
        }
    }
    free(a);
}

z3_term_t z3_assert_selected(z3_solver_t *s, const circuit_t *c, pn_t root) {
    if (!usable(s)) return 0;
    z3_t *z = s->z;
    Z3_context ctx = z->ctx;
    uint32_t size = circuit_size(c);
    build_t b = {.z = z, .c = c, .tseitin = s->solver};
    b.memo = xcalloc(size + 1, sizeof *b.memo);
    Z3_ast f = build(&b, root);
    z3_term_t sel = put(z, Z3_mk_fresh_const(ctx, "sel", Z3_mk_bool_sort(ctx)));
    if (f && sel) {
        Z3_ast nsel = Z3_mk_not(ctx, ast(z, sel));
        if (nsel) {
            Z3_inc_ref(ctx, nsel);
            Z3_ast two[2] = {nsel, f};
            build_t cl = b;
            clause(&cl, two, 2);
            Z3_dec_ref(ctx, nsel);
        }
    }
    for (uint32_t i = 0; i < size; i++)
        if (b.memo[i]) Z3_dec_ref(ctx, b.memo[i]);
    free(b.memo);
    return ok(z) ? sel : 0;
}

void z3_push(z3_solver_t *s) {
    if (!usable(s)) return;
    Z3_solver_push(s->z->ctx, s->solver);
    ok(s->z);
}

void z3_pop(z3_solver_t *s) {
    if (!usable(s)) return;
    Z3_solver_pop(s->z->ctx, s->solver, 1);
    ok(s->z);
}

/* Sets the solver's conflict budget (UINT32_MAX: none). */
static void set_budget(z3_solver_t *s, unsigned c) {
    if (c == UINT32_MAX && !s->bounded) return; /* the parameter stays set: lift it */
    Z3_context ctx = s->z->ctx;
    s->bounded = c != UINT32_MAX;
    Z3_params p = Z3_mk_params(ctx);
    Z3_params_inc_ref(ctx, p);
    Z3_params_set_uint(ctx, p, Z3_mk_string_symbol(ctx, "max_conflicts"), c);
    Z3_solver_set_params(ctx, s->solver, p);
    Z3_params_dec_ref(ctx, p);
}

/* The solver's conflicts so far (Z3's statistics; the SAT engine names them otherwise). */
static unsigned solver_conflicts(z3_solver_t *s) {
    Z3_context ctx = s->z->ctx;
    Z3_stats st = Z3_solver_get_statistics(ctx, s->solver);
    if (!st) return s->conflicts;
    Z3_stats_inc_ref(ctx, st);
    unsigned c = 0;
    for (unsigned i = 0; i < Z3_stats_size(ctx, st); i++)
        if (Z3_stats_is_uint(ctx, st, i) &&
            (!strcmp(Z3_stats_get_key(ctx, st, i), "conflicts") ||
             !strcmp(Z3_stats_get_key(ctx, st, i), "sat conflicts")))
            c = Z3_stats_get_uint_value(ctx, st, i);
    Z3_stats_dec_ref(ctx, st);
    return c;
}

/* The budget of the next round of a check: half the time left at the rate seen. */
static unsigned round_budget(double left, double rate, bool first) {
    double c = left * rate / 2;
    if (first && c > FIRST_ROUND) c = FIRST_ROUND;
    return c < 1 ? 1 : c > 4e9 ? 4000000000u : (unsigned)c;
}

/* A check's count and time in the statistics (z3_check, z3_settle). */
static void note_check(z3_t *z, double seconds) {
    z->stats.checks++;
    z->stats.seconds += seconds;
    if (seconds > z->stats.max_seconds) z->stats.max_seconds = seconds;
}

int z3_check(z3_solver_t *s, const z3_term_t *assume, uint32_t n, double deadline) {
    if (!usable(s) || s->spoiled) return -1;
    z3_t *z = s->z;
    Z3_ast small[8], *as = n <= 8 ? small : xmalloc(n * sizeof *as);
    uint32_t na = 0;
    bool refuted = false, missing = false;
    for (uint32_t i = 0; i < n; i++) {
        refuted |= assume[i] == z->no;
        missing |= !assume[i];
        if (assume[i] != z->yes && assume[i]) as[na++] = ast(z, assume[i]);
    }
    int answer = missing ? -1 : 0;
    /* past the deadline no round starts: even a round of one conflict first internalises
     * what was asserted since the last check (100-600 ms late in the full killer game) */
    bool late = deadline > 0 && now_seconds() >= deadline;
    if (late && !refuted && !missing) {
        z->stats.gave_up++;
        answer = -1;
    } else if (!refuted && !missing) {
        double t0 = now_seconds(), t = t0, rate = s->rate;
        Z3_lbool r = Z3_L_UNDEF;
        bool forced = z->watch.test_now;
        z->watch.test_now = false;
        bool armed = (forced || deadline > 0) && watch_arm(z, forced ? 1e-9 : deadline);
        for (bool first = true;; first = false) {
            set_budget(s, deadline > 0 ? round_budget(deadline - t, rate, first) : UINT32_MAX);
            r = Z3_solver_check_assumptions(z->ctx, s->solver, na, as);
            z->stats.rounds++;
            double now = now_seconds(), dt = now - t;
            /* the SAT engine counts each check's conflicts afresh */
            unsigned c = solver_conflicts(s), before = s->incremental ? s->conflicts : 0;
            if (dt > 0.002 && c > before) /* long enough to tell */
                rate = (c - before) / dt, s->rate = 0.7 * s->rate + 0.3 * rate;
            s->conflicts = c;
            t = now;
            if (!ok(z)) r = Z3_L_UNDEF;
            if (r != Z3_L_UNDEF || z->failed || deadline <= 0 || now >= deadline) break;
        }
        /* an interrupted check answers unknown, whatever it returned */
        if (armed && (watch_disarm(z) || forced)) {
            r = Z3_L_UNDEF;
            s->spoiled = true;
            z->stats.interrupted++;
        }
        note_check(z, now_seconds() - t0);
        if (r == Z3_L_UNDEF && !z->failed) z->stats.gave_up++;
        answer = r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
    }
    if (as != small) free(as);
    s->last = answer;
    return answer;
}

bool z3_settle(z3_solver_t *s) {
    if (!usable(s) || s->spoiled) return false;
    z3_t *z = s->z;
    Z3_context ctx = z->ctx;
    if (!s->halt) { /* at its first settle, out of every scope (bsmt settles only there) */
        s->halt = put(z, Z3_mk_fresh_const(ctx, "halt", Z3_mk_bool_sort(ctx)));
        if (!s->halt) return false;
        z3_assert(s, put(z, Z3_mk_not(ctx, ast(z, s->halt))));
    }
    double t0 = now_seconds();
    Z3_ast h = ast(z, s->halt);
    Z3_lbool r = Z3_solver_check_assumptions(ctx, s->solver, 1, &h);
    bool done = ok(z) && r == Z3_L_FALSE;
    note_check(z, now_seconds() - t0);
    z->stats.rounds++;
    return done;
}

int z3_value(z3_solver_t *s, z3_term_t t) {
    z3_t *z = s->z;
    if (s->last != 1 || !t || z->failed) return -1;
    Z3_context ctx = z->ctx;
    if (!s->model) {
        double t0 = now_seconds();
        Z3_model m = Z3_solver_get_model(ctx, s->solver);
        if (!ok(z) || !m) return -1;
        Z3_model_inc_ref(ctx, m);
        s->model = m;
        z->stats.models++;
        z->stats.model_seconds += now_seconds() - t0;
    }
    Z3_ast v = NULL;
    if (!Z3_model_eval(ctx, s->model, ast(z, t), true, &v) || !v || !ok(z)) return -1;
    Z3_inc_ref(ctx, v);
    Z3_lbool r = Z3_get_bool_value(ctx, v);
    Z3_dec_ref(ctx, v);
    return !ok(z) ? -1 : r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
}

void z3_test_interrupt(z3_t *z) {
    z->watch.test_now = true;
}

bool z3_solver_spoiled(const z3_solver_t *s) {
    return s->spoiled;
}
