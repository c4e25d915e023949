/* The GDL-II belief reasoner on Z3: see bsmt.h. Reference counting is explicit
 * (Z3_mk_context_rc): every AST built for a step is kept by that step's frame and
 * released with it; what is asserted the solver keeps alive itself. */
#include "player/bsmt.h"
#include "base/clock.h"
#include "base/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <z3.h>

/* The Booleans of one step: memo[atom] once built. */
typedef struct {
    Z3_ast *memo;
    int8_t *val; /* per built atom: 1 / 0 when known at this step (a constant), -1 not */
    Z3_ast *owned;
    size_t n_owned, cap_owned;
} frame_t;

struct bsmt {
    const bnet_t *net;
    const game_t *g;
    uint32_t role;
    Z3_context ctx;
    Z3_solver solver;
    Z3_sort bool_sort;
    frame_t cur, nxt; /* the current step and the next (its fluents, once prepared) */
    bool prepared;    /* the transition from cur to nxt is asserted */
    uint32_t step;
    bool broken;             /* an observation named something the game cannot produce */
    const uint32_t *fluents; /* fluent atom ids */
    uint32_t n_fluents;
    frame_t scratch; /* a query's own ASTs */
    splitmix_t rng;
    bsmt_stats_t stats;
    double deadline;    /* checks give up (unknown) about then; 0: none */
    bool bounded;       /* the solver's conflict budget is set */
    double rate;        /* conflicts per second of this solver (a running average) */
    unsigned conflicts; /* its conflicts so far */
    uint32_t live;      /* bsmt_live asserted for step live - 1; 0: not yet */
    uint32_t depth;     /* open query scopes */
    /* every possible move of every step so far (its Boolean kept): bsmt_trajectory */
    struct past_move {
        uint32_t step, role;
        term_t move;
        Z3_ast does;
    } * past;
    size_t n_past, cap_past;
};

void bsmt_set_deadline(bsmt_t *b, double deadline) {
    b->deadline = deadline;
}

/* Set when Z3 was canceled inside a call (see model_value); any other error is fatal. */
static _Thread_local bool z3_canceled;

static void on_error(Z3_context c, Z3_error_code e) {
    const char *msg = Z3_get_error_msg(c, e);
    if (e == Z3_EXCEPTION && strstr(msg, "cancel")) {
        z3_canceled = true;
        return;
    }
    die("z3: %s", msg);
}

static Z3_ast own(bsmt_t *b, frame_t *f, Z3_ast a) {
    Z3_inc_ref(b->ctx, a);
    GROW(f->owned, f->cap_owned, f->n_owned + 1);
    f->owned[f->n_owned++] = a;
    return a;
}

static void frame_init(bsmt_t *b, frame_t *f) {
    memset(f, 0, sizeof *f);
    f->memo = xcalloc(bnet_count(b->net) + 1, sizeof *f->memo);
    f->val = xcalloc(bnet_count(b->net) + 1, sizeof *f->val);
}

static void frame_release(bsmt_t *b, frame_t *f) {
    for (size_t i = 0; i < f->n_owned; i++)
        Z3_dec_ref(b->ctx, f->owned[i]);
    f->n_owned = 0;
}

static void frame_fini(bsmt_t *b, frame_t *f) {
    frame_release(b, f);
    free(f->owned);
    free(f->memo);
    free(f->val);
}

static Z3_ast fresh(bsmt_t *b, frame_t *f, const char *prefix) {
    return own(b, f, Z3_mk_fresh_const(b->ctx, prefix, b->bool_sort));
}

static Z3_ast mk_bool(bsmt_t *b, frame_t *f, bool v) {
    return own(b, f, v ? Z3_mk_true(b->ctx) : Z3_mk_false(b->ctx));
}

/* The Boolean of an atom in a frame, built on first use, with what is known folded in:
 * a constant when its value follows from the known fluents of the step (much of a
 * game's state is known to every player: control, counters, the deal's position), a
 * move whose legal atom is known false is false. This keeps the unrolling small. Fluents
 * of a frame are set when it is made (step 0: the initial state; later: prepare). */
static Z3_ast expr(bsmt_t *b, frame_t *f, uint32_t id) {
    if (f->memo[id]) return f->memo[id];
    Z3_ast r = NULL;
    int v = -1;
    int c = bnet_const(b->net, id);
    bnet_kind_t kind = bnet_kind(b->net, id);
    if (kind == BNET_FLUENT) {
        r = fresh(b, f, "f");
    } else if (kind == BNET_DOES) {
        uint32_t legal = bnet_legal_of(b->net, id);
        if (legal != BNET_NONE) expr(b, f, legal);
        if (legal == BNET_NONE || f->val[legal] == 0)
            v = 0;
        else
            r = fresh(b, f, "d");
    } else if (c >= 0) {
        v = c;
    } else {
        const bnet_body_t *bodies;
        uint32_t nb = bnet_bodies(b->net, id, &bodies), no = 0;
        Z3_ast *ors = xmalloc((nb + 1) * sizeof *ors);
        for (uint32_t i = 0; i < nb && v != 1; i++) {
            Z3_ast ands[bodies[i].n + 1];
            uint32_t na = 0;
            bool dead = false;
            for (uint32_t k = 0; k < bodies[i].n && !dead; k++) {
                bnet_lit_t l = bodies[i].lits[k];
                Z3_ast a = expr(b, f, l / 2);
                int lv = f->val[l / 2];
                if (lv >= 0 && (l & 1)) lv = !lv;
                if (lv == 0)
                    dead = true;
                else if (lv < 0)
                    ands[na++] = (l & 1) ? own(b, f, Z3_mk_not(b->ctx, a)) : a;
            }
            if (dead) continue;
            if (!na)
                v = 1;
            else
                ors[no++] = na == 1 ? ands[0] : own(b, f, Z3_mk_and(b->ctx, na, ands));
        }
        if (v != 1 && !no) v = 0;
        if (v < 0) r = no == 1 ? ors[0] : own(b, f, Z3_mk_or(b->ctx, no, ors));
        free(ors);
    }
    if (v >= 0) r = mk_bool(b, f, v == 1);
    f->memo[id] = r;
    f->val[id] = (int8_t)v;
    return r;
}

static void assert_ast(bsmt_t *b, Z3_ast a) {
    Z3_solver_assert(b->ctx, b->solver, a);
}

/* Checks are bounded by work, not time: budgets of conflicts. Z3 4.8.12 answers wrongly
 * after a check its timeout canceled (seen: models with every unknown fluent false, then
 * checks that accept them), and a new solver loaded with the whole history starts cold
 * (seconds late in the full killer game); a check that runs out of conflicts leaves the
 * solver sound and warm. A check runs in rounds: the first gets at most FIRST_ROUND
 * conflicts, each next one half the time left at the rate the check has shown so far, so
 * that a wrong guess of the rate costs at most a round. */
#define RATE0 20000.0     /* conflicts per second before any is measured */
#define FIRST_ROUND 2000u /* conflicts: at most 0.1-0.2 s late in the full killer game */

/* Sets the solver's conflict budget (UINT32_MAX: none). */
static void set_budget(bsmt_t *b, unsigned c) {
    if (c == UINT32_MAX && !b->bounded) return; /* the parameter stays set: lift it */
    b->bounded = c != UINT32_MAX;
    Z3_params p = Z3_mk_params(b->ctx);
    Z3_params_inc_ref(b->ctx, p);
    Z3_params_set_uint(b->ctx, p, Z3_mk_string_symbol(b->ctx, "max_conflicts"), c);
    Z3_solver_set_params(b->ctx, b->solver, p);
    Z3_params_dec_ref(b->ctx, p);
}

/* The solver's conflicts so far (Z3's statistics). */
static unsigned solver_conflicts(bsmt_t *b) {
    Z3_stats st = Z3_solver_get_statistics(b->ctx, b->solver);
    Z3_stats_inc_ref(b->ctx, st);
    unsigned c = 0;
    for (unsigned i = 0; i < Z3_stats_size(b->ctx, st); i++)
        if (Z3_stats_is_uint(b->ctx, st, i) &&
            !strcmp(Z3_stats_get_key(b->ctx, st, i), "conflicts"))
            c = Z3_stats_get_uint_value(b->ctx, st, i);
    Z3_stats_dec_ref(b->ctx, st);
    return c;
}

/* The budget of the next round of a check: half the time left at the rate seen. */
static unsigned round_budget(double left, double rate, bool first) {
    double c = left * rate / 2;
    if (first && c > FIRST_ROUND) c = FIRST_ROUND;
    return c < 1 ? 1 : c > 4e9 ? 4000000000u : (unsigned)c;
}

static Z3_lbool check(bsmt_t *b, uint32_t n, const Z3_ast *assume) {
    double t0 = now_seconds(), t = t0, rate = b->rate;
    Z3_lbool r;
    for (bool first = true;; first = false) {
        set_budget(b, b->deadline > 0 ? round_budget(b->deadline - t, rate, first) : UINT32_MAX);
        r = Z3_solver_check_assumptions(b->ctx, b->solver, n, assume);
        b->stats.rounds++;
        double now = now_seconds(), dt = now - t;
        unsigned c = solver_conflicts(b);
        if (dt > 0.002 && c > b->conflicts) /* long enough to tell */
            rate = (c - b->conflicts) / dt, b->rate = 0.7 * b->rate + 0.3 * rate;
        b->conflicts = c;
        t = now;
        if (r != Z3_L_UNDEF || b->deadline <= 0 || now >= b->deadline) break;
    }
    double dt = now_seconds() - t0;
    b->stats.checks++;
    b->stats.seconds += dt;
    if (dt > b->stats.max_seconds) b->stats.max_seconds = dt;
    b->stats.last_seconds += dt;
    if (r == Z3_L_UNDEF) b->stats.gave_up++;
    return r;
}

bsmt_t *bsmt_new(const bnet_t *n, uint32_t role, uint64_t seed) {
    bsmt_t *b = xcalloc(1, sizeof *b);
    b->net = n;
    b->g = bnet_game(n);
    b->role = role;
    b->rng.s = seed;
    Z3_config cfg = Z3_mk_config();
    b->ctx = Z3_mk_context_rc(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(b->ctx, on_error);
    b->solver = Z3_mk_simple_solver(b->ctx);
    Z3_solver_inc_ref(b->ctx, b->solver);
    b->rate = RATE0;
    b->bool_sort = Z3_mk_bool_sort(b->ctx);
    b->n_fluents = bnet_fluents(n, &b->fluents);
    frame_init(b, &b->cur);
    frame_init(b, &b->nxt);
    frame_init(b, &b->scratch);
    for (uint32_t i = 0; i < b->n_fluents; i++) {
        bool v = bnet_initial(n, b->fluents[i]);
        b->cur.memo[b->fluents[i]] = mk_bool(b, &b->cur, v);
        b->cur.val[b->fluents[i]] = v;
    }
    return b;
}

void bsmt_free(bsmt_t *b) {
    if (!b) return;
    for (size_t i = 0; i < b->n_past; i++)
        Z3_dec_ref(b->ctx, b->past[i].does);
    free(b->past);
    frame_fini(b, &b->cur);
    frame_fini(b, &b->nxt);
    frame_fini(b, &b->scratch);
    Z3_solver_dec_ref(b->ctx, b->solver);
    Z3_del_context(b->ctx);
    free(b);
}

uint32_t bsmt_step(const bsmt_t *b) {
    return b->step;
}

bsmt_stats_t bsmt_stats(const bsmt_t *b) {
    return b->stats;
}

/* Asserts the step from cur to nxt: one move per role unless terminal, moves legal, the
 * next fluents equivalent to their `next` atoms. */
static void prepare(bsmt_t *b) {
    if (b->prepared) return;
    b->prepared = true;
    frame_t *f = &b->cur;
    uint32_t term = bnet_terminal(b->net);
    Z3_ast live = term == BNET_NONE ? NULL : own(b, f, Z3_mk_not(b->ctx, expr(b, f, term)));
    for (uint32_t r = 0; r < b->g->n_roles; r++) {
        const uint32_t *ids;
        uint32_t nm = bnet_moves(b->net, r, &ids), nd = 0;
        if (!nm) continue;
        Z3_ast *d = xmalloc(nm * sizeof *d);
        for (uint32_t i = 0; i < nm; i++) {
            Z3_ast di = expr(b, f, ids[i]);
            if (f->val[ids[i]] == 0) continue; /* cannot be legal */
            d[nd++] = di;
            uint32_t legal = bnet_legal_of(b->net, ids[i]);
            if (f->val[legal] != 1)
                assert_ast(b, own(b, f, Z3_mk_implies(b->ctx, di, expr(b, f, legal))));
        }
        /* one move per role unless terminal (none possible: terminal) */
        Z3_ast least = nd ? own(b, f, Z3_mk_atleast(b->ctx, nd, d, 1)) : mk_bool(b, f, false);
        if (nd > 1) assert_ast(b, own(b, f, Z3_mk_atmost(b->ctx, nd, d, 1)));
        assert_ast(b, live ? own(b, f, Z3_mk_implies(b->ctx, live, least)) : least);
        free(d);
    }
    for (uint32_t i = 0; i < b->n_fluents; i++) {
        uint32_t fl = b->fluents[i];
        uint32_t nx = bnet_next_of(b->net, fl);
        Z3_ast e = nx == BNET_NONE ? mk_bool(b, f, false) : expr(b, f, nx);
        int v = nx == BNET_NONE ? 0 : f->val[nx];
        if (v >= 0) { /* known next step: a constant, no variable */
            b->nxt.memo[fl] = mk_bool(b, &b->nxt, v == 1);
            b->nxt.val[fl] = (int8_t)v;
            continue;
        }
        Z3_ast var = fresh(b, &b->nxt, "f");
        b->nxt.memo[fl] = var;
        b->nxt.val[fl] = -1;
        assert_ast(b, own(b, f, Z3_mk_iff(b->ctx, var, e)));
    }
}

uint32_t bsmt_known_legal(bsmt_t *b, term_t **moves) {
    *moves = NULL;
    const uint32_t *ids;
    uint32_t nm = bnet_moves(b->net, b->role, &ids), n = 0;
    term_t *out = xmalloc((nm + 1) * sizeof *out);
    for (uint32_t i = 0; i < nm; i++) {
        uint32_t legal = bnet_legal_of(b->net, ids[i]);
        int v = 0;
        if (legal != BNET_NONE) {
            expr(b, &b->cur, legal);
            v = b->cur.val[legal];
        }
        if (v < 0) {
            free(out);
            return UINT32_MAX;
        }
        if (v == 1) out[n++] = term_arg(b->g->ts, bnet_atom(b->net, ids[i]), 1);
    }
    *moves = out;
    return n;
}

uint32_t bsmt_entailed_legal(bsmt_t *b, uint32_t max_open, term_t **moves) {
    *moves = NULL;
    b->stats.last_seconds = 0;
    const uint32_t *ids;
    uint32_t nm = bnet_moves(b->net, b->role, &ids), n = 0, open = 0;
    for (uint32_t i = 0; i < nm; i++) {
        uint32_t legal = bnet_legal_of(b->net, ids[i]);
        if (legal == BNET_NONE) continue;
        expr(b, &b->cur, legal);
        open += b->cur.val[legal] < 0;
    }
    if (open > max_open || b->broken || check(b, 0, NULL) != Z3_L_TRUE) return UINT32_MAX;
    term_t *out = xmalloc((nm + 1) * sizeof *out);
    for (uint32_t i = 0; i < nm; i++) {
        uint32_t legal = bnet_legal_of(b->net, ids[i]);
        if (legal == BNET_NONE) continue;
        Z3_ast a = expr(b, &b->cur, legal);
        int v = b->cur.val[legal];
        if (v < 0) { /* legal in every consistent world: its negation unsatisfiable */
            Z3_ast neg = own(b, &b->scratch, Z3_mk_not(b->ctx, a));
            Z3_lbool r = check(b, 1, &neg);
            if (r == Z3_L_UNDEF) {
                frame_release(b, &b->scratch);
                free(out);
                return UINT32_MAX;
            }
            v = r == Z3_L_FALSE;
        }
        if (v == 1) out[n++] = term_arg(b->g->ts, bnet_atom(b->net, ids[i]), 1);
    }
    frame_release(b, &b->scratch);
    *moves = out;
    return n;
}

void bsmt_live(bsmt_t *b) {
    uint32_t term = bnet_terminal(b->net);
    if (b->live == b->step + 1 || term == BNET_NONE) return;
    b->live = b->step + 1;
    assert_ast(b, own(b, &b->cur, Z3_mk_not(b->ctx, expr(b, &b->cur, term))));
}

static term_t sees_term(const bsmt_t *b, term_t percept) {
    term_t args[2] = {b->g->roles[b->role], percept};
    return term_find(b->g->ts, SYM_SEES, args, 2);
}

static bool contains(const term_t *v, uint32_t n, term_t t) {
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == t) return true;
    return false;
}

/* Keeps the step's possible moves (their Booleans outlive the frame) for trajectories. */
static void remember_moves(bsmt_t *b) {
    for (uint32_t r = 0; r < b->g->n_roles; r++) {
        const uint32_t *ids;
        uint32_t nm = bnet_moves(b->net, r, &ids);
        for (uint32_t i = 0; i < nm; i++) {
            Z3_ast a = b->cur.memo[ids[i]];
            if (!a || b->cur.val[ids[i]] == 0) continue;
            GROW(b->past, b->cap_past, b->n_past + 1);
            Z3_inc_ref(b->ctx, a);
            b->past[b->n_past++] =
                (struct past_move){b->step, r, bnet_move_term(b->net, ids[i]), a};
        }
    }
}

bool bsmt_observe(bsmt_t *b, term_t move, const term_t *percepts, uint32_t n) {
    prepare(b);
    frame_t *f = &b->cur;
    const term_store_t *ts = b->g->ts;
    bsmt_live(b); /* no step before the current one terminal */
    if (move != TERM_NONE) {
        term_t args[2] = {b->g->roles[b->role], move};
        uint32_t d = bnet_find(b->net, term_find(ts, SYM_DOES, args, 2));
        if (d == BNET_NONE)
            b->broken = true;
        else
            assert_ast(b, expr(b, f, d));
    }
    for (uint32_t i = 0; i < n; i++)
        if (bnet_find(b->net, sees_term(b, percepts[i])) == BNET_NONE) b->broken = true;
    const uint32_t *ids;
    uint32_t ns = bnet_sees(b->net, b->role, &ids);
    for (uint32_t i = 0; i < ns; i++) {
        Z3_ast s = expr(b, f, ids[i]);
        bool got = contains(percepts, n, term_arg(ts, bnet_atom(b->net, ids[i]), 1));
        assert_ast(b, got ? s : own(b, f, Z3_mk_not(b->ctx, s)));
    }
    remember_moves(b);
    frame_release(b, &b->cur);
    frame_t old = b->cur;
    b->cur = b->nxt;
    b->nxt = old;
    memset(b->nxt.memo, 0, (bnet_count(b->net) + 1) * sizeof *b->nxt.memo);
    b->prepared = false;
    b->step++;
    return !b->broken;
}

/* 1 / 0 the value of a in model m, -1 when it cannot be read (no model, evaluation
 * canceled): no answer, never "false". */
static int model_value(bsmt_t *b, Z3_model m, Z3_ast a) {
    Z3_ast v;
    if (!m || !Z3_model_eval(b->ctx, m, a, true, &v) || !v) return -1;
    Z3_inc_ref(b->ctx, v);
    Z3_lbool r = Z3_get_bool_value(b->ctx, v);
    Z3_dec_ref(b->ctx, v);
    return r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
}

/* The model of the last satisfiable check; NULL when Z3 was canceled meanwhile. */
static Z3_model get_model(bsmt_t *b) {
    double t0 = now_seconds();
    z3_canceled = false;
    Z3_model m = Z3_solver_get_model(b->ctx, b->solver);
    if (z3_canceled || !m) return NULL;
    Z3_model_inc_ref(b->ctx, m);
    b->stats.models++;
    b->stats.model_seconds += now_seconds() - t0;
    return m;
}

static void model_free(bsmt_t *b, Z3_model m) {
    if (m) Z3_model_dec_ref(b->ctx, m);
}

static Z3_ast fluent_now(bsmt_t *b, uint32_t i) {
    return b->cur.memo[b->fluents[i]];
}

int bsmt_consistent(bsmt_t *b) {
    b->stats.last_seconds = 0;
    if (b->broken) return 0;
    Z3_lbool r = check(b, 0, NULL);
    return r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
}

int bsmt_entailed(bsmt_t *b, term_t fluent) {
    b->stats.last_seconds = 0;
    if (b->broken) return -1;
    uint32_t id = bnet_find(b->net, term_find(b->g->ts, SYM_TRUE, &fluent, 1));
    Z3_lbool r = check(b, 0, NULL);
    if (r != Z3_L_TRUE) return -1;
    if (id == BNET_NONE) return 0;
    Z3_ast a = b->cur.memo[id];
    Z3_model m = get_model(b);
    int cand = model_value(b, m, a);
    model_free(b, m);
    if (cand <= 0) return cand;
    Z3_ast neg = own(b, &b->scratch, Z3_mk_not(b->ctx, a));
    r = check(b, 1, &neg);
    frame_release(b, &b->scratch);
    return r == Z3_L_FALSE ? 1 : r == Z3_L_TRUE ? 0 : -1;
}

static int cmp_term(const void *a, const void *b) {
    term_t x = *(const term_t *)a, y = *(const term_t *)b;
    return x < y ? -1 : x > y;
}

/* Constraints of one query live in a solver scope (push/pop): retired clauses would
 * otherwise pile up over a match and slow every later check. */
static void scope_begin(bsmt_t *b) {
    Z3_solver_push(b->ctx, b->solver);
    b->depth++;
}

static void scope_end(bsmt_t *b) {
    Z3_solver_pop(b->ctx, b->solver, 1);
    b->depth--;
    frame_release(b, &b->scratch);
}

uint32_t bsmt_entailed_all(bsmt_t *b, term_t **out) {
    b->stats.last_seconds = 0;
    *out = NULL;
    if (b->broken || check(b, 0, NULL) != Z3_L_TRUE) return UINT32_MAX;
    uint32_t *cand = xmalloc((b->n_fluents + 1) * sizeof *cand), nc = 0;
    bool unread = false; /* a model could not be read: no answer */
    Z3_model m = get_model(b);
    for (uint32_t i = 0; i < b->n_fluents && !unread; i++) {
        int v = model_value(b, m, fluent_now(b, i));
        unread = v < 0;
        if (v == 1) cand[nc++] = i;
    }
    model_free(b, m);
    Z3_ast *neg = xmalloc((b->n_fluents + 1) * sizeof *neg);
    for (;;) {
        if (!nc || unread) break;
        for (uint32_t k = 0; k < nc; k++)
            neg[k] = own(b, &b->scratch, Z3_mk_not(b->ctx, fluent_now(b, cand[k])));
        scope_begin(b);
        assert_ast(b, own(b, &b->scratch, Z3_mk_or(b->ctx, nc, neg)));
        Z3_lbool r = check(b, 0, NULL);
        if (r == Z3_L_TRUE) {
            m = get_model(b);
            uint32_t kept = 0;
            for (uint32_t k = 0; k < nc && !unread; k++) {
                int v = model_value(b, m, fluent_now(b, cand[k]));
                unread = v < 0;
                if (v == 1) cand[kept++] = cand[k];
            }
            model_free(b, m);
            nc = kept;
        }
        scope_end(b);
        if (r != Z3_L_TRUE) {
            unread |= r != Z3_L_FALSE; /* gave up: the candidates are not proved */
            break;
        }
    }
    if (unread) {
        free(neg);
        free(cand);
        frame_release(b, &b->scratch);
        return UINT32_MAX;
    }
    term_t *res = xmalloc((nc + 1) * sizeof *res);
    for (uint32_t k = 0; k < nc; k++)
        res[k] = bnet_fluent_term(b->net, b->fluents[cand[k]]);
    qsort(res, nc, sizeof *res, cmp_term);
    free(neg);
    free(cand);
    frame_release(b, &b->scratch);
    *out = res;
    return nc;
}

/* The current state of model m; and the clause that excludes it. False when the model
 * could not be read (st is then not a state). */
static bool model_state(bsmt_t *b, Z3_model m, state_t *st, Z3_ast *differ, Z3_ast *lits) {
    st->n = 0;
    for (uint32_t i = 0; i < b->n_fluents; i++) {
        Z3_ast a = fluent_now(b, i);
        int v = model_value(b, m, a);
        if (v < 0) return false;
        bool t = v == 1;
        if (t) {
            if (st->n == st->cap) {
                st->cap = st->cap ? 2 * st->cap : 64;
                st->facts = xrealloc(st->facts, st->cap * sizeof *st->facts);
            }
            st->facts[st->n++] = bnet_fluent_term(b->net, b->fluents[i]);
        }
        Z3_ast na = own(b, &b->scratch, Z3_mk_not(b->ctx, a));
        differ[i] = t ? na : a;
        lits[i] = t ? a : na;
    }
    state_normalise(st);
    return true;
}

/* Whether the state whose fluent literals are lits (model_state) is consistent: one
 * check with the unknown fluents as assumptions. A sample is a player's world, its legal
 * moves; after a check its timeout canceled Z3 4.8 once answered with an empty model
 * (every unknown fluent false, no legal moves): checks are no longer canceled (see
 * bound_check), and samples are still checked. */
static bool state_consistent(bsmt_t *b, const Z3_ast *lits, const uint32_t *var, uint32_t nv,
                             Z3_ast *assume) {
    for (uint32_t j = 0; j < nv; j++)
        assume[j] = lits[var[j]];
    return check(b, nv, assume) == Z3_L_TRUE;
}

/* Enumerates distinct states (random ones first when out is given) until k or none left,
 * each found state excluded by a clause of the query's scope. */
static uint64_t enumerate(bsmt_t *b, uint64_t k, state_t *out, bool random) {
    b->stats.last_seconds = 0;
    if (b->broken || !b->n_fluents) return 0;
    Z3_ast *differ = xmalloc(b->n_fluents * sizeof *differ);
    Z3_ast *lits = xmalloc(2 * b->n_fluents * sizeof *lits); /* and assumptions */
    Z3_ast assume[4];
    state_t tmp;
    state_init(&tmp);
    uint64_t found = 0;
    /* random phases on the fluents unknown at this step only: Z3 answers "unknown" to
     * an assumption that is a constant (a known fluent), which failed the sample */
    uint32_t *var = xmalloc((b->n_fluents + 1) * sizeof *var), nv = 0;
    for (uint32_t i = 0; i < b->n_fluents; i++)
        if (b->cur.val[b->fluents[i]] < 0) var[nv++] = i;
    scope_begin(b);
    /* no unknown fluent: one state only; past the deadline, the states found so far */
    while (found < k && (nv || !found) &&
           !(found && b->deadline > 0 && now_seconds() > b->deadline)) {
        uint32_t na = 0;
        for (int j = 0; random && nv && j < 4; j++) {
            Z3_ast a = fluent_now(b, var[splitmix_next(&b->rng) % nv]);
            assume[na++] =
                splitmix_next(&b->rng) & 1 ? a : own(b, &b->scratch, Z3_mk_not(b->ctx, a));
        }
        Z3_lbool r;
        while ((r = check(b, na, assume)) == Z3_L_FALSE && na > 0)
            na--;
        if (r != Z3_L_TRUE) break;
        Z3_model m = get_model(b);
        bool read = model_state(b, m, out ? &out[found] : &tmp, differ, lits);
        model_free(b, m);
        /* a sample is checked (the player's, under a deadline); counting is not */
        if (!read || (out && !state_consistent(b, lits, var, nv, lits + b->n_fluents))) break;
        found++;
        assert_ast(b, own(b, &b->scratch, Z3_mk_or(b->ctx, b->n_fluents, differ)));
        if (b->scratch.n_owned > 4096) frame_release(b, &b->scratch); /* asserted: Z3 keeps them */
    }
    scope_end(b);
    state_fini(&tmp);
    free(differ);
    free(lits);
    free(var);
    return found;
}

uint32_t bsmt_sample(bsmt_t *b, uint32_t k, state_t *out) {
    return (uint32_t)enumerate(b, k, out, true);
}

bool bsmt_any(bsmt_t *b, state_t *out) {
    return enumerate(b, 1, out, false) == 1;
}

uint64_t bsmt_count(bsmt_t *b, uint64_t cap) {
    return enumerate(b, cap, NULL, false);
}

int bsmt_move_wins(bsmt_t *b, term_t move) {
    b->stats.last_seconds = 0;
    if (b->broken) return -1;
    prepare(b);
    const term_store_t *ts = b->g->ts;
    term_t args[2] = {b->g->roles[b->role], move};
    uint32_t d = bnet_find(b->net, term_find(ts, SYM_DOES, args, 2));
    term_t hundred = term_const(b->g->ts, term_intern(b->g->ts, "100", 3));
    term_t gargs[2] = {b->g->roles[b->role], hundred};
    uint32_t goal = bnet_find(b->net, term_find(ts, SYM_GOAL, gargs, 2));
    uint32_t term = bnet_terminal(b->net);
    if (d == BNET_NONE || goal == BNET_NONE || term == BNET_NONE) return 0;
    /* the next step's goal and terminal, built in the next frame (no moves needed) */
    Z3_ast win =
        own(b, &b->nxt,
            Z3_mk_and(b->ctx, 2, (Z3_ast[]){expr(b, &b->nxt, term), expr(b, &b->nxt, goal)}));
    Z3_ast assume[2] = {expr(b, &b->cur, d), own(b, &b->scratch, Z3_mk_not(b->ctx, win))};
    if (check(b, 1, assume) != Z3_L_TRUE) return frame_release(b, &b->scratch), -1;
    Z3_lbool r = check(b, 2, assume);
    frame_release(b, &b->scratch);
    return r == Z3_L_FALSE ? 1 : r == Z3_L_TRUE ? 0 : -1;
}

/* Our goal value atoms, with their values. */
static uint32_t goal_atoms(bsmt_t *b, uint32_t *ids, int *vals, uint32_t cap) {
    const term_store_t *ts = b->g->ts;
    uint32_t n = 0;
    for (uint32_t i = 0; i < bnet_count(b->net) && n < cap; i++) {
        term_t t = bnet_atom(b->net, i);
        if (t == TERM_NONE || term_kind(ts, t) != TERM_FUN || term_sym(ts, t) != SYM_GOAL ||
            term_arity(ts, t) != 2 || term_arg(ts, t, 0) != b->g->roles[b->role])
            continue;
        ids[n] = i;
        vals[n++] = atoi(term_sym_name(ts, term_sym(ts, term_arg(ts, t, 1))));
    }
    return n;
}

int bsmt_move_risky(bsmt_t *b, term_t move) {
    b->stats.last_seconds = 0;
    if (b->broken) return -1;
    prepare(b);
    term_t args[2] = {b->g->roles[b->role], move};
    uint32_t d = bnet_find(b->net, term_find(b->g->ts, SYM_DOES, args, 2));
    if (d == BNET_NONE) return 0;
    uint32_t ids[128];
    int vals[128];
    uint32_t n = goal_atoms(b, ids, vals, 128), nd = 0;
    Z3_ast *bad = xmalloc((n * n + 2) * sizeof *bad);
    uint32_t term = bnet_terminal(b->net);
    if (term != BNET_NONE) bad[nd++] = expr(b, &b->nxt, term);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            if (vals[i] > vals[j]) {
                Z3_ast pair[2] = {expr(b, &b->cur, ids[i]), expr(b, &b->nxt, ids[j])};
                bad[nd++] = own(b, &b->scratch, Z3_mk_and(b->ctx, 2, pair));
            }
    int res = 0;
    if (nd) {
        Z3_ast assume[2] = {expr(b, &b->cur, d), own(b, &b->scratch, Z3_mk_or(b->ctx, nd, bad))};
        Z3_lbool r = check(b, 2, assume);
        res = r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
    }
    free(bad);
    frame_release(b, &b->scratch);
    return res;
}

bool bsmt_trajectory(bsmt_t *b, term_t *joints) {
    b->stats.last_seconds = 0;
    uint32_t nr = b->g->n_roles;
    if (b->broken || check(b, 0, NULL) != Z3_L_TRUE) return false;
    Z3_model m = get_model(b);
    if (!m) return false;
    for (size_t i = 0; i < (size_t)b->step * nr; i++)
        joints[i] = TERM_NONE;
    bool ok = true;
    for (size_t i = 0; i < b->n_past && ok; i++) {
        const struct past_move *pm = &b->past[i];
        int v = model_value(b, m, pm->does);
        ok = v >= 0;
        if (v == 1) joints[(size_t)pm->step * nr + pm->role] = pm->move;
    }
    model_free(b, m);
    for (size_t i = 0; i < (size_t)b->step * nr && ok; i++)
        ok = joints[i] != TERM_NONE;
    return ok;
}
