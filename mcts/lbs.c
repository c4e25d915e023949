/* Rollout early termination with lifted backward search: see lbs.h. */
#include "mcts/lbs.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/fluents.h"
#include "regress/bitform.h"
#include "regress/formcheck.h"
#include "regress/formground.h"
#include "regress/match.h"
#include "regress/regress.h"
#include "regress/verify.h"
#include "truth/bounded.h"

#define LBS_MAX 64                /* formulas per side (the hit counters' size) */
#define NO_GUARD UINT32_MAX       /* a formula without a who-moves conjunct */
#define LBS_GROUND_LIMIT 2000000u /* circuit nodes per formula for Z3 */
#define CAL_SHARE 0.1             /* of the budget, kept for measuring the formulas' cost */
#define GUARD_SHARE 0.1           /* of the budget, kept for the bounded check of the formulas */
#define GUARD_NODES 50000u        /* states one bounded search may expand (else: unverified) */
#define NEW_SHARE 0.15            /* of the rest, assumed taken by regress_new's set-up */
#define CAL_STATES 256            /* sample states for measuring the cost of each formula */
#define CAL_SECONDS 0.03          /* at most this long measuring one formula */
/* Matcher steps (some ns each) one evaluation may take while measuring: a formula that
 * needs more on a sample state is never used, so that no check can hold up a clock. */
#define CAL_WORK 4000000u
#define WORK_SLACK 16 /* later evaluations may take this many times the most measured */
#define WORK_FLOOR 100000u
#define HOOK_COST 3.0    /* default: the hook uses formulas costing <= this many rollout steps */
#define ACTIVE_GAP 0.005 /* seconds: a longer gap between checks is not search time */
#define Z3_GRACE 0.005   /* seconds of Z3 always allowed (the first confirmations) */
#define CACHE_BITS 16    /* Z3 answers remembered (by state hash, side and i) */
/* Bitset circuits (on a ground engine): a formula whose grounding passes these stays on the
 * lifted matcher; the grounding takes at most BIT_SHARE of the budget (BIT_MIN_SECONDS at
 * least). A circuit the size of BIT_SIZE takes some hundred microseconds a state. */
#define BIT_NODES 200000u
#define BIT_SIZE 400000u
#define BIT_SHARE 0.1
#define BIT_MIN_SECONDS 0.2

/* One compiled formula: α_i or β_i. */
typedef struct {
    match_t *m;        /* NULL: the formula is false (empty) and never tried */
    uint32_t guard;    /* index into lbs->guards, or NO_GUARD */
    uint32_t handle;   /* Z3 term of its first disjunct (the others follow), with Z3 */
    double cost;       /* mean seconds of one evaluation on sample states */
    uint64_t work_cap; /* matcher steps an evaluation may take (giving up: no hit) */
    bool in_hook;      /* cheap enough for the rollout hook */
    bool measured;     /* cost measured (as it was made, with stop_cost) */
    form_t *form;      /* the formula, kept for grounding on the engine's fluents */
    bitform_t *bits;   /* its disjuncts on bitset states (a ground engine), or NULL */
    bool bits_tried;   /* its grounding on bitsets was tried */
    double ecost;      /* on bitset states: mean seconds of one evaluation there */
    /* on bitsets, with Z3: the circuit Z3's terms were made of and its roots (one per
     * disjunct), kept to find which of a state's bits make a disjunct hold (witness) */
    circuit_t *zc;
    pn_t *zroots;
} lform_t;

/* Consulting the hook at a depth of the rollout (lbs_state_hook): whether it pays. */
#define PAY_DEPTHS 32 /* depths counted apart (deeper ones share the last) */
#define PAY_WARM 64   /* checks at a depth before its figures are trusted */
#define PAY_PROBE 32  /* where it does not pay, one check in this many still (the figures) */
#define PAY_TIMED 16  /* one call in this many timed (a check's and a step's cost) */
typedef struct {
    uint64_t calls, checks, hits, skipped;
} pay_t;

/* A remembered Z3 answer (the same key always gets the same one): one word, its key's
 * bits but the lowest two, bit 1 set, the answer in bit 0 (0: empty). One word so that
 * a fork's thread reads it whole while the owner writes (relaxed atomics). */
typedef _Atomic uint64_t zcache_t;

/* A formula's common conjunct ("not terminal, p moves"), shared by every formula with the
 * same text: evaluated at most once per check, so the formulas of the player who is not
 * to move are skipped at the cost of one small query. */
typedef struct {
    match_t *m;
    char *key;
    form_t *form;    /* the conjunct alone */
    bitform_t *bits; /* the same on bitset states (a ground engine), or NULL */
} guard_t;

struct lbs {
    const term_store_t *ts;
    lbs_opts_t o;
    lform_t f[2][LBS_MAX];
    uint32_t n[2];
    guard_t *guards;
    uint32_t n_guards;
    int8_t *gval; /* per check: -1 not evaluated yet, else the guard's value */
    match_state_t *ms;
    engine_t *e;    /* the engine whose states are checked, and its fluents */
    vocab_t *vocab; /* NULL: neither Z3 nor bitsets need one */
    formcheck_t *fc;
    lbs_stats_t st;
    double step_cost; /* mean seconds of one rollout step (legal moves and next state) */
    double z3_share;  /* > 0: Z3 may take at most this share of the active time */
    double active;    /* seconds of search seen by the checks: their own time and short gaps */
    double z3_max;    /* the longest Z3 call so far (the estimate for the next one) */
    double last_check;
    zcache_t *cache;
    term_store_t *store; /* the game's store (grounding on bitsets makes terms) */
    double hook_steps;   /* the hook's budget in rollout steps (lbs_set_hook_cost) */
    /* on a ground engine's bitset states */
    bool bitsets;     /* false: the hook reads term states (the interpreter) */
    double bit_left;  /* seconds left for grounding formulas on bitsets (< 0: none) */
    double eng_step;  /* mean seconds of one rollout step on the engine */
    double conv_cost; /* seconds to turn one of its states into indexed terms */
    state_t eterms;   /* the state being checked as terms, when a formula needs them */
    bool eterms_ok;   /* eterms (and ms) hold the state being checked */
    uint32_t nw;      /* state words (bitsets) */
    /* scratch of witness(): per circuit node, its value and whether it was marked */
    uint8_t *wval;
    uint32_t *wstamp, *wseen, wepoch;
    size_t wcap;
    uint64_t *wpos; /* the witness: its bits (nw words), then their values (nw words) */
    /* a fork (lbs_fork): its parent, whose formulas, guards and Z3 cache it shares, with
     * bitset programs of its own; it confirms from the cache only (no Z3) */
    const lbs_t *parent;
    lbs_t *fork;          /* the parent's fork, whose counters lbs_stats adds */
    lbs_hook_t fork_hook; /* the hook of the helper thread on the fork (lbs_attach) */
    /* what the hook pays (lbs_state_hook): per depth of the rollout, and the costs */
    pay_t pay[PAY_DEPTHS];
    double chk_cost, step_cost_now; /* seconds: one check, one rollout step (running means) */
    double len_sum, len_n;          /* rollouts not stopped by a hit: their lengths */
    uint32_t last_depth;            /* the depth of the previous call */
    double last_end;                /* when the previous timed call ended (0: not timed) */
    bool last_hit;                  /* the previous call was a hit (its rollout ended) */
};

void lbs_default_opts(lbs_opts_t *o) {
    regress_opts_t ro;
    regress_default_opts(&ro);
    /* every field set: guard_nodes was left to the caller's stack once, and the guard then
     * searched a few nodes or billions depending on what the stack held */
    *o = (lbs_opts_t){.budget = 10, .max_size = ro.max_size, .confirm = LBS_CONFIRM_Z3};
}

/* The guard of a formula's common conjunct (made or found by its printed text). */
static uint32_t guard_of(lbs_t *l, const form_t *f) {
    if (!f->common) return NO_GUARD;
    strbuf_t sb;
    sb_init(&sb);
    fconj_print(l->ts, f->common, &sb);
    for (uint32_t k = 0; k < l->n_guards; k++)
        if (!strcmp(l->guards[k].key, sb_str(&sb))) {
            sb_fini(&sb);
            return k;
        }
    form_t *g = form_new();
    form_push(g, fconj_copy(f->common));
    match_t *m = match_new(l->ts, g);
    if (!m) {
        form_free(g);
        sb_fini(&sb);
        return NO_GUARD;
    }
    l->guards = xrealloc(l->guards, (l->n_guards + 1) * sizeof *l->guards);
    l->guards[l->n_guards] = (guard_t){.m = m, .key = xstrdup(sb_str(&sb)), .form = g};
    sb_fini(&sb);
    return l->n_guards++;
}

/* Grounds f for Z3, one term per disjunct (with the common conjunct): a hit is confirmed
 * on the disjunct the matcher found, which is all the hit claims and a fraction of the
 * whole formula's size. False when the deadline passed first or the grounding is too
 * big. */
static bool ground_one(lbs_t *l, term_store_t *ts, const form_t *f, lform_t *lf, double deadline) {
    if (now_seconds() > deadline) return false;
    circuit_t *c = circuit_new_within(LBS_GROUND_LIMIT, deadline);
    pn_t *roots = xmalloc(f->n * sizeof *roots);
    ground_disjuncts(c, l->vocab, ts, f, roots);
    /* too big to confirm, or late: the formula is left out */
    bool ok = !circuit_overflow(c) && now_seconds() < deadline;
    if (ok) lf->handle = formcheck_terms(l->fc, c, roots, f->n);
    if (ok && l->bitsets) { /* kept for witness() */
        lf->zc = c;
        lf->zroots = roots;
        return ok;
    }
    free(roots);
    circuit_free(c);
    return ok;
}

/* Compiles formula i of a side; false when the matcher cannot take it or Z3 could not
 * before the deadline. */
static bool compile_one(lbs_t *l, term_store_t *ts, const form_t *f, lform_t *lf, double deadline) {
    lf->guard = NO_GUARD;
    if (!f->n) return true; /* false: never tried */
    lf->m = match_new(ts, f);
    if (!lf->m) return false;
    if (l->fc && !ground_one(l, ts, f, lf, deadline)) {
        FREE_AND_NULL(match_free, lf->m);
        return false;
    }
    lf->guard = guard_of(l, f);
    lf->form = form_copy(f);
    return true;
}

/* Forgets a formula: never tried again (like a false one). */
static void lform_clear(lform_t *lf) {
    FREE_AND_NULL(match_free, lf->m);
    FREE_AND_NULL(form_free, lf->form);
    FREE_AND_NULL(bitform_free, lf->bits);
    FREE_AND_NULL(circuit_free, lf->zc);
    FREE_AND_NULL(free, lf->zroots);
}

/* Compiling as backward search goes (regress_cb): each formula is compiled (and grounded
 * for Z3) as soon as it is made, so one deadline covers both and whatever was made in time
 * is usable. A side stops at its first formula that cannot be compiled in time (dropping
 * the rest describes fewer states: still sound). */
/* The sample states of seeded random playouts on the engine: up to CAL_STATES
 * non-terminal states, as terms and (on bitsets) as the engine's states. */
typedef struct {
    state_t *terms;
    eng_state_t **es; /* NULL on term states */
    uint32_t n;
    double idx; /* seconds to index one for the matcher */
} samples_t;

typedef struct {
    lbs_t *l;
    term_store_t *ts;
    regress_t *rg;
    double deadline;
    bool dead[2];
    const samples_t *sm; /* with stop_cost: the states to measure each formula on */
    uint32_t n_samples;
    uint64_t literals[2]; /* each side's newest formula's size */
    double spent;         /* the measured cost of the formulas with i >= 1 so far */
} compile_ctx_t;

static void calibrate_one(lbs_t *l, lform_t *lf, const state_t *st, uint32_t n, double deadline,
                          uint32_t left);
static bool needs_terms(const lbs_t *l, const lform_t *lf);
static void ensure_bits(lbs_t *l, lform_t *lf);
static void measure_formula(lbs_t *l, lform_t *lf, const samples_t *sm);
static void use_bits(lbs_t *l, const samples_t *sm);

/* With stop_cost: measures formula i (i >= 1) as soon as it is made, as the hook will pay
 * it (on bitsets: grounded there, else by the matcher on the state as terms). The next
 * one of its side is predicted to cost as much times its growth in size (literals, at
 * least 1x); when that does not fit in what the hook's budget has left, or the formula
 * was dropped as too slow, the side gets no more: the hook could not use them, and the
 * time goes to the caller's search instead. */
static void maybe_stop(compile_ctx_t *c, int side, uint32_t i, uint64_t literals) {
    lbs_t *l = c->l;
    lform_t *lf = &l->f[side][i];
    uint64_t before = c->literals[side];
    c->literals[side] = literals;
    if (l->o.stop_cost <= 0 || i == 0 || !lf->m || !c->n_samples) return;
    calibrate_one(l, lf, c->sm->terms, c->n_samples, c->deadline, 1);
    lf->measured = true;
    double cost = lf->cost;
    if (lf->m && l->bitsets) {
        ensure_bits(l, lf);
        measure_formula(l, lf, c->sm);
        cost = lf->ecost + (needs_terms(l, lf) ? l->conv_cost : 0);
    }
    double growth = before && literals > before ? (double)literals / before : 1;
    if (lf->m) c->spent += cost;
    double left = l->o.stop_cost * (l->bitsets ? l->eng_step : l->step_cost) - c->spent;
    if (!lf->m || cost * growth > left) {
        regress_stop(c->rg, side);
        l->st.stopped++;
    }
}

static void on_step(void *ctx, int side, uint32_t i, const regress_step_t *st) {
    compile_ctx_t *c = ctx;
    lbs_t *l = c->l;
    if (c->dead[side] || i != l->n[side] || i >= LBS_MAX) return;
    if (!compile_one(l, c->ts, st->f, &l->f[side][i], c->deadline)) {
        c->dead[side] = true;
        return;
    }
    l->n[side] = i + 1;
    maybe_stop(c, side, i, st->literals);
}

/* Trailing false formulas (a step cut by the budget, or the sequence's end) add nothing. */
static void trim(lbs_t *l) {
    for (int side = 0; side < 2; side++)
        while (l->n[side] && !l->f[side][l->n[side] - 1].m)
            l->n[side]--;
}

/* Up to CAL_STATES non-terminal states of seeded random playouts on e (also as e's states
 * with `bitsets`); sets the mean cost of one rollout step (legal moves of every role, then
 * the next state; the state turned into terms included, as a hook on terms pays it). */
static void sample_states(engine_t *e, bool bitsets, samples_t *sm, double *step_cost) {
    sm->terms = xcalloc(CAL_STATES, sizeof *sm->terms);
    eng_state_t **es = xcalloc(CAL_STATES, sizeof *es);
    splitmix_t rng = {0x5eed};
    engine_walk_t w = {.matches = 64, .max_plies = 1000};
    double t0 = now_seconds();
    sm->n = engine_sample(e, &rng, &w, es, CAL_STATES);
    for (uint32_t k = 0; k < sm->n; k++)
        engine_state_terms(e, es[k], &sm->terms[k]);
    *step_cost = sm->n ? (now_seconds() - t0) / sm->n : 0;
    if (bitsets) {
        sm->es = es; /* the states past sm->n are NULL */
        return;
    }
    for (uint32_t k = 0; k < sm->n; k++)
        engine_state_free(es[k]);
    free(es);
}

static void free_states(samples_t *sm) {
    for (uint32_t k = 0; k < CAL_STATES; k++)
        state_fini(&sm->terms[k]);
    free(sm->terms);
    if (sm->es)
        for (uint32_t k = 0; k < CAL_STATES; k++)
            engine_state_free(sm->es[k]);
    free(sm->es);
}

/* On bitsets: the formula (or its guard) is evaluated by the lifted matcher, on the state
 * turned into terms. */
static bool needs_terms(const lbs_t *l, const lform_t *lf) {
    return !lf->bits || (lf->guard != NO_GUARD && !l->guards[lf->guard].bits);
}

/* Which formulas the hook uses: by increasing i, α_i then β_i, those that fit in a total
 * cost of `steps` rollout steps per check (all when steps <= 0): the checks then slow the
 * rollouts down by at most that factor. α_0/β_0 never: the hook is not called on terminal
 * states. */
static void choose_hook(lbs_t *l, double steps) {
    l->hook_steps = steps;
    l->st.hook_alpha = l->st.hook_beta = 0;
    double left = steps * (l->bitsets ? l->eng_step : l->step_cost);
    bool converting = false; /* on bitsets: a formula chosen so far needs the terms */
    uint32_t n = l->n[0] > l->n[1] ? l->n[0] : l->n[1];
    for (uint32_t i = 0; i < n; i++)
        for (int side = 0; side < 2; side++) {
            if (i >= l->n[side]) continue;
            lform_t *lf = &l->f[side][i];
            bool terms = l->bitsets && needs_terms(l, lf);
            double cost =
                !l->bitsets ? lf->cost : lf->ecost + (terms && !converting ? l->conv_cost : 0);
            lf->in_hook = lf->m && i > 0 && (steps <= 0 || cost <= left);
            if (!lf->in_hook) continue;
            left -= cost;
            converting |= terms;
            *(side ? &l->st.hook_beta : &l->st.hook_alpha) += 1;
        }
}

/* Times one Z3 call (on α_1 or β_1, the formulas hit most), so that a check's deadline has
 * an estimate before the first confirmation: a call can take longer than a move. */
static void prime_z3(lbs_t *l, const state_t *s) {
    for (int side = 0; side < 2; side++)
        if (l->n[side] > 1 && l->f[side][1].m) {
            double t0 = now_seconds();
            (void)formcheck_eval(l->fc, l->f[side][1].handle, s); /* its first disjunct */
            l->z3_max = now_seconds() - t0;
            return;
        }
}

/* Measures one formula on the sample states (see calibrate); one that gives up at
 * CAL_WORK on some state, or that there is no time left for, is dropped. */
static void calibrate_one(lbs_t *l, lform_t *lf, const state_t *st, uint32_t n, double deadline,
                          uint32_t left) {
    double t0 = now_seconds(), t = 0;
    double limit = (deadline - t0) / left;
    if (limit > CAL_SECONDS) limit = CAL_SECONDS;
    uint32_t k = 0;
    uint64_t most = 0;
    bool slow = limit <= 0;
    while (!slow && k < n && (k == 0 || t < limit)) {
        match_state_set(l->ms, l->ts, &st[k++]);
        slow = match_eval_within(lf->m, l->ms, CAL_WORK) < 0;
        if (match_work(lf->m) > most) most = match_work(lf->m);
        t = now_seconds() - t0;
    }
    lf->cost = k ? t / k : 0;
    lf->work_cap = most * WORK_SLACK > WORK_FLOOR ? most * WORK_SLACK : WORK_FLOOR;
    if (lf->work_cap > CAL_WORK) lf->work_cap = CAL_WORK;
    if (slow) {
        lform_clear(lf);
        l->st.too_slow++;
    }
}

/* Measures each formula's mean evaluation time on sample states (each for at most
 * CAL_SECONDS, less when the deadline is near; at least once): a formula far dearer than
 * a rollout step costs the search more rollouts than its hits save. */
static void calibrate(lbs_t *l, const state_t *st, uint32_t n, double deadline) {
    uint32_t left = 0;
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++)
            left += l->f[side][i].m && !l->f[side][i].measured;
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++) {
            lform_t *lf = &l->f[side][i];
            if (lf->m && !lf->measured) calibrate_one(l, lf, st, n, deadline, left--);
        }
    if (l->fc && n) prime_z3(l, &st[n / 2]);
    l->st.step_seconds = l->step_cost;
    choose_hook(l, HOOK_COST);
}

void lbs_set_z3_share(lbs_t *l, double share) {
    l->z3_share = share;
}

void lbs_set_hook_cost(lbs_t *l, double steps) {
    choose_hook(l, steps);
}

/* Drops formula i of a side and every later one (they are built on it). */
static void drop_from(lbs_t *l, int side, uint32_t i) {
    for (uint32_t k = i; k < l->n[side]; k++)
        lform_clear(&l->f[side][k]);
    l->n[side] = i;
}

/* The guard: a formula is used only once the game itself confirmed it on the sample
 * states, every state it claims searched exactly over the real moves (bounded.h; α_1/β_1
 * cost one ply). One that claims a state that is no forced win, or that could not be
 * checked in time, is dropped with the rest of its side, and the log says which: an
 * unsound formula must never decide a match, whatever the bug behind it. */
static void guard(lbs_t *l, regress_t *rg, uint32_t role, const state_t *samples, uint32_t n,
                  double deadline) {
    const game_t *g = engine_game(l->e);
    bounded_t *b = bounded_new(l->e, regress_shape_of(rg)->noop);
    verify_bounded_opts_t o = {.max_nodes = l->o.guard_nodes ? l->o.guard_nodes : GUARD_NODES,
                               .deadline = deadline,
                               .stop_at_false = true};
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++) {
            if (!l->f[side][i].m) continue;
            verify_bounded_row_t row;
            verify_bounded(b, l->f[side][i].m, samples, n, side ? 1 - role : role, i, &o, &row);
            l->st.guard_hits += row.hits;
            const char *why = row.false_pos    ? "claims a state that is no forced win"
                              : row.undecided  ? "could not be checked on a state it claims"
                              : row.states < n ? "could not be checked in time"
                                               : NULL;
            if (!why) continue;
            fprintf(stderr,
                    "lbs: %s: %s_%u of role %s %s (bounded check on %u sample states): "
                    "dropped, with the later formulas of its side\n",
                    g->file ? g->file : "game", side ? "beta" : "alpha", i,
                    term_sym_name(g->ts, term_sym(g->ts, g->roles[side ? 1 - role : role])), why,
                    row.states);
            *(row.false_pos ? &l->st.guard_unsound : &l->st.guard_unverified) += 1;
            drop_from(l, side, i);
        }
    bounded_free(b);
}

/* Why backward search cannot be used on g, or NULL. */
static const char *unsupported(const game_t *g) {
    if (g->gdl2) return "a GDL-II game (hidden information or chance)";
    if (g->n_roles != 2) return "not a two-player game";
    if (!g->acyclic) return "recursive rules";
    return NULL;
}

lbs_t *lbs_new(engine_t *e, uint32_t role, const lbs_opts_t *o, char *err, size_t errlen) {
    return lbs_new_steps(e, role, o, 0, err, errlen);
}

/* Measures what the hook pays on bitsets, before any formula: a rollout step on the
 * engine, and turning a state into indexed terms (for formulas left on the matcher). */
static void measure_steps(lbs_t *l, samples_t *sm) {
    l->eng_step = lbs_engine_step_seconds(l->e, CAL_SECONDS);
    state_t scratch;
    state_init(&scratch);
    double t0 = now_seconds();
    for (uint32_t k = 0; k < sm->n; k++)
        engine_state_terms(l->e, sm->es[k], &scratch);
    double t1 = now_seconds();
    for (uint32_t k = 0; k < sm->n; k++)
        match_state_set(l->ms, l->ts, &sm->terms[k]);
    sm->idx = sm->n ? (now_seconds() - t1) / sm->n : 0;
    l->conv_cost = sm->n ? (t1 - t0) / sm->n + sm->idx : 0;
    state_fini(&scratch);
    l->st.engine_step_seconds = l->eng_step;
    l->st.conv_seconds = l->conv_cost;
}

lbs_t *lbs_new_steps(engine_t *e, uint32_t role, const lbs_opts_t *o, uint32_t max_steps, char *err,
                     size_t errlen) {
    double t0 = now_seconds();
    game_t *g = engine_game(e);
    const char *why = unsupported(g);
    if (why) {
        snprintf(err, errlen, "backward search does not apply: %s", why);
        return NULL;
    }
    bool z3 = o->confirm == LBS_CONFIRM_Z3;
    lbs_t *l = xcalloc(1, sizeof *l);
    l->ts = g->ts;
    l->store = g->ts;
    l->e = e;
    l->hook_steps = HOOK_COST;
    state_init(&l->eterms);
    l->o = *o;
    l->ms = match_state_new();
    /* one vocabulary, the engine's fluents (vocab.h): Z3's constants and the state bits */
    l->bitsets = engine_kind(e) != ENGINE_INTERP;
    if (z3 || l->bitsets) l->vocab = vocab_from_engine(e, 16, 1, 0);
    l->bitsets = l->vocab && vocab_bits(l->vocab);
    for (uint32_t k = 0; l->bitsets && k < vocab_count(l->vocab); k++) {
        uint32_t b = vocab_bits(l->vocab)[k];
        if (b != UINT32_MAX && b / 64 + 1 > l->nw) l->nw = b / 64 + 1;
    }
    l->bit_left = o->budget > 0 ? fmax(BIT_MIN_SECONDS, o->budget * BIT_SHARE) : -1;
    if (z3) l->fc = formcheck_new(l->vocab, false);
    /* the sample states for measuring the formulas, drawn first: with stop_cost each
     * formula is measured as soon as it is made */
    samples_t sm = {0};
    sample_states(e, l->bitsets, &sm, &l->step_cost);
    if (l->bitsets) measure_steps(l, &sm);
    /* One deadline for backward search and compiling, less a share kept for measuring the
     * formulas; regress_new's own set-up (sampling the game's shape) comes out of it too. */
    double deadline = o->budget > 0 ? t0 + o->budget * (1 - CAL_SHARE - GUARD_SHARE) : 1e300;
    regress_opts_t ro;
    regress_default_opts(&ro);
    ro.max_size = o->max_size;
    ro.max_steps = max_steps && max_steps < LBS_MAX ? max_steps : LBS_MAX - 1;
    ro.budget = o->budget > 0 ? (deadline - now_seconds()) * (1 - NEW_SHARE) : 0;
    if (o->budget > 0 && ro.budget < 0.01) ro.budget = 0.01;
    char why2[320];
    regress_t *rg = regress_new(e, role, &ro, why2, sizeof why2);
    if (!rg) {
        snprintf(err, errlen, "backward search does not apply: %s", why2);
        free_states(&sm);
        lbs_free(l);
        return NULL;
    }
    compile_ctx_t cc = {
        .l = l, .ts = g->ts, .rg = rg, .deadline = deadline, .sm = &sm, .n_samples = sm.n};
    regress_run(rg, on_step, &cc);
    /* The guard and the calibration get their shares from when they start: backward search
     * may end past its deadline (a step is cut at its next check), and a formula must not
     * be dropped for want of a check the budget had kept time for. */
    double guard_end = o->budget > 0 ? fmax(deadline, now_seconds()) + o->budget * GUARD_SHARE : 0;
    guard(l, rg, role, sm.terms, sm.n, guard_end);
    regress_free(rg);
    trim(l);
    l->gval = xcalloc(l->n_guards + 1, 1);
    if (z3) l->cache = xcalloc((size_t)1 << CACHE_BITS, sizeof *l->cache);
    double cal_end = o->budget > 0 ? fmax(guard_end, now_seconds()) + o->budget * CAL_SHARE : 1e300;
    calibrate(l, sm.terms, sm.n, cal_end);
    trim(l); /* calibration may have dropped the last ones */
    if (l->bitsets) use_bits(l, &sm);
    free_states(&sm);
    l->st.n_alpha = l->n[0];
    l->st.n_beta = l->n[1];
    l->st.regress_seconds = now_seconds() - t0;
    return l;
}

/* ---- on a ground engine's bitset states ---- */

typedef struct {
    uint64_t steps;
} stepping_t;

static engine_walk_next_t count_step(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)e, (void)s, (void)ply;
    ((stepping_t *)ctx)->steps++; /* a random step follows */
    return ENGINE_WALK_ON;
}

double lbs_engine_step_seconds(engine_t *e, double seconds) {
    stepping_t x = {0};
    splitmix_t rng = {0x5eed};
    double t0 = now_seconds();
    engine_walk_t w = {.matches = UINT32_MAX, .max_plies = 1000, .deadline = t0 + seconds};
    engine_walk(e, &rng, &w, count_step, &x);
    return x.steps ? (now_seconds() - t0) / x.steps : 0;
}

/* Mean seconds of the matcher on the states (terms[0..n), for at most CAL_SECONDS), less
 * idx: the indexing each evaluation needs first. */
static double lifted_seconds(lbs_t *l, match_t *m, uint64_t cap, const state_t *terms, uint32_t n,
                             double idx) {
    double t0 = now_seconds(), t = 0;
    uint32_t k = 0;
    while (k < n && (k == 0 || t < CAL_SECONDS)) {
        match_state_set(l->ms, l->ts, &terms[k++]);
        (void)match_eval_within(m, l->ms, cap);
        t = now_seconds() - t0;
    }
    return k && t / k > idx ? t / k - idx : 0;
}

static double bits_seconds(bitform_t *b, eng_state_t **st, uint32_t n) {
    double t0 = now_seconds();
    for (uint32_t k = 0; k < n; k++)
        (void)bitform_eval(b, engine_state_words(st[k]));
    return n ? (now_seconds() - t0) / n : 0;
}

/* Grounds a formula on the bitsets once (its guard too), within what is left of the
 * time kept for it (none left: it stays on the matcher). */
static bool ground_bits(lbs_t *l, const form_t *f, bf_part_t part, bitform_t **out) {
    if (l->bit_left == 0) return false;
    double t0 = now_seconds();
    *out = bitform_of_form(l->vocab, l->store, f, part, BIT_NODES, BIT_SIZE,
                           l->bit_left > 0 ? t0 + l->bit_left : 0);
    double dt = now_seconds() - t0;
    if (l->bit_left > 0) l->bit_left = fmax(0, l->bit_left - dt);
    l->st.bit_seconds += dt;
    return *out != NULL;
}

static void ensure_bits(lbs_t *l, lform_t *lf) {
    if (lf->bits_tried || !lf->m || !lf->form) return;
    lf->bits_tried = true;
    if (lf->guard != NO_GUARD && !l->guards[lf->guard].bits) /* its one disjunct */
        ground_bits(l, l->guards[lf->guard].form, BF_FULL, &l->guards[lf->guard].bits);
    /* a formula without a guard has its common conjunct in every root */
    bf_part_t part = lf->guard == NO_GUARD ? BF_FULL : BF_DISJUNCTS;
    *(ground_bits(l, lf->form, part, &lf->bits) ? &l->st.bit_formulas : &l->st.bit_lifted) += 1;
}

/* The cost of one formula on the sample's engine states, as the hook pays it: on
 * bitsets, or by the matcher on the state as terms (the conversion apart: choose_hook
 * adds it once per check, to the first formula that needs it). */
static void measure_formula(lbs_t *l, lform_t *lf, const samples_t *sm) {
    lf->ecost = lf->bits ? bits_seconds(lf->bits, sm->es, sm->n)
                         : lifted_seconds(l, lf->m, lf->work_cap, sm->terms, sm->n, sm->idx);
    if (lf->guard == NO_GUARD) return;
    guard_t *g = &l->guards[lf->guard];
    lf->ecost += g->bits ? bits_seconds(g->bits, sm->es, sm->n)
                         : lifted_seconds(l, g->m, CAL_WORK, sm->terms, sm->n, sm->idx);
}

/* Every formula the guard and the calibration kept, grounded on the bitsets (those not
 * already) and measured there; the hook's formulas are then chosen on those costs. */
static void use_bits(lbs_t *l, const samples_t *sm) {
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++)
            ensure_bits(l, &l->f[side][i]);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++)
            if (l->f[side][i].m) measure_formula(l, &l->f[side][i], sm);
    choose_hook(l, l->hook_steps);
}

/* A fork's own parts: its programs, its scratch. */
static void fork_free(lbs_t *l) {
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++)
            bitform_free(l->f[side][i].bits);
    for (uint32_t k = 0; k < l->n_guards; k++)
        bitform_free(l->guards[k].bits);
    free(l->guards);
    free(l->gval);
    free(l->wval), free(l->wstamp), free(l->wseen), free(l->wpos);
    state_fini(&l->eterms);
    match_state_free(l->ms);
    free(l);
}

bool lbs_hook_threadable(const lbs_t *l) {
    if (!l->bitsets) return false;
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++) {
            const lform_t *lf = &l->f[side][i];
            if (!lf->m || !lf->in_hook) continue;
            if (needs_terms(l, lf) || (l->fc && !lf->zc)) return false;
        }
    return true;
}

lbs_t *lbs_fork(lbs_t *l) {
    if (l->parent || l->fork || !lbs_hook_threadable(l)) return NULL;
    lbs_t *k = xmalloc(sizeof *k);
    *k = *l;
    k->parent = l;
    k->fc = NULL;
    k->store = NULL;
    memset(&k->st, 0, sizeof k->st);
    memset(k->pay, 0, sizeof k->pay);
    k->ms = match_state_new();
    state_init(&k->eterms);
    k->gval = xcalloc(l->n_guards + 1, 1);
    k->wval = NULL, k->wstamp = k->wseen = NULL, k->wcap = 0, k->wpos = NULL;
    k->guards = xmalloc((l->n_guards + 1) * sizeof *k->guards);
    for (uint32_t g = 0; g < l->n_guards; g++) {
        k->guards[g] = l->guards[g];
        if (l->guards[g].bits) k->guards[g].bits = bitform_clone(l->guards[g].bits);
    }
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++) {
            lform_t *lf = &k->f[side][i];
            if (lf->bits) lf->bits = bitform_clone(lf->bits);
            if (!lf->bits) lf->in_hook = false; /* the matcher is the parent's */
        }
    k->st.n_alpha = l->n[0], k->st.n_beta = l->n[1];
    k->st.hook_alpha = l->st.hook_alpha, k->st.hook_beta = l->st.hook_beta;
    l->fork = k;
    return k;
}

void lbs_free(lbs_t *l) {
    if (!l) return;
    if (l->parent) { /* a fork: freed with its parent */
        ((lbs_t *)l->parent)->fork = NULL;
        fork_free(l);
        return;
    }
    if (l->fork) fork_free(l->fork);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < LBS_MAX; i++)
            lform_clear(&l->f[side][i]);
    for (uint32_t k = 0; k < l->n_guards; k++) {
        match_free(l->guards[k].m);
        free(l->guards[k].key);
        form_free(l->guards[k].form);
        bitform_free(l->guards[k].bits);
    }
    state_fini(&l->eterms);
    free(l->guards);
    free(l->gval);
    free(l->cache);
    free(l->wval), free(l->wstamp), free(l->wseen), free(l->wpos);
    formcheck_free(l->fc);
    vocab_free(l->vocab);
    match_state_free(l->ms);
    free(l);
}

/* The engine state being checked, as terms indexed for the matcher (once per check). */
static void ensure_terms(lbs_t *l, const eng_state_t *es) {
    if (l->eterms_ok) return;
    engine_state_terms(l->e, es, &l->eterms);
    match_state_set(l->ms, l->ts, &l->eterms);
    l->eterms_ok = true;
    l->st.term_conversions++;
}

/* The state being checked: indexed terms (es NULL), or an engine state es whose words
 * (NULL: a term state) the bitset circuits read; the matcher then gets it as terms. */
typedef struct {
    const state_t *s;
    const eng_state_t *es;
    const uint64_t *words;
    double deadline; /* > 0: no Z3 call that might end after it */
} checked_t;

/* The formula's guard holds in the state (evaluated once per check). */
static bool guard_ok(lbs_t *l, uint32_t g, const checked_t *c) {
    if (g == NO_GUARD) return true;
    if (l->gval[g] < 0) {
        if (c->words && l->guards[g].bits) {
            l->gval[g] = bitform_eval(l->guards[g].bits, c->words) == 0;
        } else {
            if (c->es) ensure_terms(l, c->es);
            l->gval[g] = match_eval(l->guards[g].m, l->ms) ? 1 : 0;
        }
    }
    return l->gval[g] == 1;
}

/* Has Z3 used up its share of the search time (lbs_set_z3_share)? */
static bool z3_spent(const lbs_t *l) {
    return l->fc && l->z3_share > 0 && l->st.z3_seconds > l->z3_share * l->active + Z3_GRACE;
}

/* Node n of c on the state's words (memoised for this epoch). */
static bool w_eval(lbs_t *l, const circuit_t *c, pn_t n, const uint64_t *words) {
    if (l->wstamp[n] == l->wepoch) return l->wval[n];
    bool v = false;
    uint32_t k = 0, na = pn_arity(c, n);
    switch (pn_op(c, n)) {
    case PN_CONST:
        v = n == PN_TRUE;
        break;
    case PN_VAR: {
        uint32_t b = vocab_bits(l->vocab)[pn_varnum(c, n)];
        v = b != UINT32_MAX && (words[b >> 6] >> (b & 63) & 1);
        break;
    }
    case PN_NOT:
        v = !w_eval(l, c, pn_kid(c, n, 0), words);
        break;
    case PN_AND:
        for (v = true; k < na && v; k++)
            v = w_eval(l, c, pn_kid(c, n, k), words);
        break;
    case PN_OR:
        for (; k < na && !v; k++)
            v = w_eval(l, c, pn_kid(c, n, k), words);
        break;
    }
    l->wstamp[n] = l->wepoch;
    l->wval[n] = v;
    return v;
}

/* Adds to the witness the state bits that fix node n's value: a variable's bit, every
 * kid of an AND that holds (an OR that fails), one kid that decides otherwise. */
static void w_mark(lbs_t *l, const circuit_t *c, pn_t n, const uint64_t *words) {
    if (l->wseen[n] == l->wepoch) return;
    l->wseen[n] = l->wepoch;
    bool v = w_eval(l, c, n, words);
    pn_op_t op = pn_op(c, n);
    uint32_t na = pn_arity(c, n);
    if (op == PN_VAR) {
        uint32_t b = vocab_bits(l->vocab)[pn_varnum(c, n)];
        if (b == UINT32_MAX) return; /* no state has it: false in every one */
        l->wpos[b >> 6] |= 1ull << (b & 63);
        if (v) l->wpos[l->nw + (b >> 6)] |= 1ull << (b & 63);
        return;
    }
    if (op == PN_NOT) {
        w_mark(l, c, pn_kid(c, n, 0), words);
        return;
    }
    if (op != PN_AND && op != PN_OR) return;
    if ((op == PN_OR) == v) { /* one kid with the node's value decides it */
        for (uint32_t k = 0; k < na; k++)
            if (w_eval(l, c, pn_kid(c, n, k), words) == v) {
                w_mark(l, c, pn_kid(c, n, k), words);
                return;
            }
    }
    for (uint32_t k = 0; k < na; k++)
        w_mark(l, c, pn_kid(c, n, k), words);
}

/* The witness of disjunct d of lf on the state's words into l->wpos: state bits and their
 * values that fix the value of Z3's term for d (every state that agrees there gives it
 * the same value). */
static void witness(lbs_t *l, const lform_t *lf, int32_t d, const uint64_t *words) {
    size_t size = circuit_size(lf->zc);
    if (size > l->wcap) {
        l->wcap = size;
        free(l->wval), free(l->wstamp), free(l->wseen);
        l->wval = xmalloc(size);
        l->wstamp = xcalloc(size, sizeof *l->wstamp);
        l->wseen = xcalloc(size, sizeof *l->wseen);
        l->wepoch = 0;
    }
    if (++l->wepoch == 0) { /* wrapped: no stamp may look current */
        memset(l->wstamp, 0, l->wcap * sizeof *l->wstamp);
        memset(l->wseen, 0, l->wcap * sizeof *l->wseen);
        l->wepoch = 1;
    }
    if (!l->wpos) l->wpos = xmalloc(2 * l->nw * sizeof *l->wpos);
    memset(l->wpos, 0, 2 * l->nw * sizeof *l->wpos);
    w_mark(l, lf->zc, lf->zroots[d], words);
}

uint32_t lbs_witness_check(lbs_t *l, const eng_state_t *s, splitmix_t *rng, uint32_t flips) {
    const uint64_t *words = engine_state_words(s);
    if (!words || !l->nw) return 0;
    uint32_t nv = vocab_count(l->vocab), bad = 0;
    const uint32_t *bit = vocab_bits(l->vocab);
    uint8_t *truth = xmalloc(nv + 1), *orig = xmalloc(nv + 1);
    uint64_t *w = xmalloc(l->nw * sizeof *w);
    for (uint32_t v = 0; v < nv; v++)
        orig[v] = bit[v] != UINT32_MAX && (words[bit[v] >> 6] >> (bit[v] & 63) & 1);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++) {
            const lform_t *lf = &l->f[side][i];
            for (uint32_t d = 0; lf->zc && d < lf->form->n; d++) {
                bool want = pn_eval(lf->zc, lf->zroots[d], orig);
                witness(l, lf, (int32_t)d, words);
                for (uint32_t k = 0; k < flips; k++) {
                    for (uint32_t j = 0; j < l->nw; j++) /* the witness kept, the rest drawn */
                        w[j] =
                            (l->wpos[l->nw + j] & l->wpos[j]) | (splitmix_next(rng) & ~l->wpos[j]);
                    for (uint32_t v = 0; v < nv; v++)
                        truth[v] = bit[v] != UINT32_MAX && (w[bit[v] >> 6] >> (bit[v] & 63) & 1);
                    bad += pn_eval(lf->zc, lf->zroots[d], truth) != want;
                }
            }
        }
    free(truth), free(orig), free(w);
    return bad;
}

/* The key of Z3's answer for disjunct d of a formula on a state. On bitsets: the
 * disjunct's witness in the state (witness()), so that one answer serves every state
 * with the same witness (on connect four: the same line about to be completed). Else the
 * state's hash (term or engine hash: they key the same cache, a clash of the two as
 * unlikely as any). */
static uint64_t zkey(lbs_t *l, int side, uint32_t i, int32_t d, const checked_t *c) {
    const lform_t *lf = &l->f[side][i];
    uint64_t key = ((uint64_t)side << 63) ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull);
    if (c->words && lf->zc) {
        witness(l, lf, d, c->words);
        key ^= (uint64_t)(uint32_t)d * 0xbf58476d1ce4e5b9ull;
        for (uint32_t k = 0; k < 2 * l->nw; k++) {
            splitmix_t mix = {key ^ l->wpos[k]};
            key = splitmix_next(&mix) + k;
        }
        return key;
    }
    uint64_t hash = c->es ? engine_state_hash(c->es) : state_hash(c->s);
    return hash ^ key;
}

/* A matcher hit on disjunct d, confirmed by Z3 when asked: true when it may be used. Z3's
 * answer never changes for a key (zkey), so it is remembered (replaced on a clash of
 * slots). On bitsets Z3 reads the words, no terms. */
static bool confirmed(lbs_t *l, int side, uint32_t i, int32_t d, const checked_t *ck) {
    if (!l->cache) return true; /* no confirmation asked for */
    uint64_t key = (zkey(l, side, i, d, ck) & ~3ull) | 2;
    zcache_t *c = &l->cache[(key >> 7) & (((uint64_t)1 << CACHE_BITS) - 1)];
    uint64_t had = atomic_load_explicit(c, memory_order_relaxed);
    if ((had & ~1ull) == key) {
        l->st.z3_cached++;
        return had & 1;
    }
    double t0 = now_seconds();
    bool late = ck->deadline > 0 && t0 + l->z3_max > ck->deadline;
    if (late || !l->fc || z3_spent(l)) { /* a fork has no Z3 */
        l->st.z3_skipped++;              /* over the confirmation budget: the hit is not used */
        return false;
    }
    const lform_t *lf = &l->f[side][i];
    int z;
    if (ck->words && lf->zc) {
        z = formcheck_eval_bits(l->fc, lf->handle + (uint32_t)d, ck->words);
    } else {
        const state_t *s = ck->s;
        if (!s) {
            ensure_terms(l, ck->es);
            s = &l->eterms;
        }
        z = formcheck_eval(l->fc, lf->handle + (uint32_t)d, s);
    }
    double dt = now_seconds() - t0;
    l->st.z3_seconds += dt;
    if (dt > l->z3_max) l->z3_max = dt;
    if (z == 1)
        l->st.z3_confirmed++;
    else if (z == 0)
        l->st.z3_disagree++;
    else
        l->st.z3_unknown++;
    if (z >= 0) /* an unknown is not remembered: it says nothing of the state */
        atomic_store_explicit(c, key | (uint64_t)z, memory_order_relaxed);
    return z == 1;
}

/* The least i of one side whose formula s satisfies (confirmed), or -1; hook: only the
 * formulas chosen for the hook. */
static int first_hit(lbs_t *l, int side, const checked_t *c, bool hook) {
    for (uint32_t i = 0; i < l->n[side]; i++) {
        const lform_t *lf = &l->f[side][i];
        if (!lf->m || (hook && !lf->in_hook)) continue;
        if (!guard_ok(l, lf->guard, c)) continue;
        int32_t d; /* the disjunct that holds */
        if (c->words && lf->bits) {
            d = bitform_eval(lf->bits, c->words);
        } else {
            if (c->es) ensure_terms(l, c->es);
            int e = match_eval_within(lf->m, l->ms, lf->work_cap);
            if (e < 0) l->st.match_gave_up++;
            d = e == 1 ? match_hit(lf->m) : -1;
        }
        if (d < 0) continue;
        if (confirmed(l, side, i, d, c)) return (int)i;
    }
    return -1;
}

static int check(lbs_t *l, const checked_t *c, uint32_t *i, bool hook) {
    double t0 = now_seconds();
    /* a gap shorter than ACTIVE_GAP between two checks is search (a rollout step); a longer
     * one is idle (the other player's turn) */
    if (l->st.checks++ && t0 - l->last_check < ACTIVE_GAP) l->active += t0 - l->last_check;
    if (hook && z3_spent(l)) {
        /* no hit could be confirmed, so none could be used: the rollout gets the time.
         * The gaps still count as search, so Z3's share refills and checks resume. */
        l->st.hook_skipped++;
        l->last_check = now_seconds();
        return 0;
    }
    if (c->es)
        l->eterms_ok = false;
    else
        match_state_set(l->ms, l->ts, c->s);
    memset(l->gval, 0xff, l->n_guards);
    int res = 0;
    for (int side = 0; side < 2 && !res; side++) {
        int k = first_hit(l, side, c, hook);
        if (k < 0) continue;
        res = side ? -1 : 1;
        (side ? l->st.hits_beta : l->st.hits_alpha)[k]++;
        if (i) *i = (uint32_t)k;
    }
    l->last_check = now_seconds();
    l->st.check_seconds += l->last_check - t0;
    l->active += l->last_check - t0;
    return res;
}

int lbs_check(lbs_t *l, const state_t *s, uint32_t *i, double deadline) {
    checked_t c = {.s = s, .deadline = deadline};
    return check(l, &c, i, false);
}

int lbs_hook(void *ctx, const state_t *s) {
    const lbs_hook_t *h = ctx;
    lbs_t *l = h->lbs;
    if (!l->st.hook_alpha && !l->st.hook_beta) return -1; /* nothing to check: no cost */
    checked_t c = {.s = s, .deadline = h->deadline};
    int r = check(l, &c, NULL, true);
    return r > 0 ? 100 : r < 0 ? 0 : -1;
}

int lbs_check_state(lbs_t *l, const eng_state_t *s, uint32_t *i, double deadline) {
    checked_t c = {.es = s, .words = engine_state_words(s), .deadline = deadline};
    return check(l, &c, i, false);
}

/* What a hit at depth d saves: the rest of a rollout (the running mean length of those
 * no hit ended, less d; at least one step). */
static double pay_saving(const lbs_t *l, uint32_t d) {
    double len = l->len_n > 0 ? l->len_sum / l->len_n : 0;
    return len > d + 1 ? len - d : 1;
}

/* Whether to check at this depth: while its figures are few, where a check saves more
 * rollout time than it costs (its hit rate there times the steps a hit saves times a
 * step's cost, against a check's cost), and one call in PAY_PROBE elsewhere (the figures
 * follow the game). */
static bool pays(lbs_t *l, pay_t *p, uint32_t depth) {
    if (p->checks < PAY_WARM || l->chk_cost <= 0 || l->step_cost_now <= 0) return true;
    double saving = (double)p->hits / (double)p->checks * pay_saving(l, depth) * l->step_cost_now;
    if (saving >= l->chk_cost || p->calls % PAY_PROBE == 0) return true;
    p->skipped++;
    l->st.pay_skipped++;
    return false;
}

static void running_mean(double *m, double x) {
    *m = *m > 0 ? *m + (x - *m) / 32 : x;
}

int lbs_state_hook(void *ctx, const eng_state_t *s, uint32_t depth) {
    const lbs_hook_t *h = ctx;
    lbs_t *l = h->lbs;
    if (!l->st.hook_alpha && !l->st.hook_beta) return -1;   /* nothing to check: no cost */
    bool next = depth == l->last_depth + 1 && !l->last_hit; /* the same rollout, one on */
    if (!next && !l->last_hit) { /* the last rollout ended without a hit */
        l->len_sum = l->len_sum * 0.999 + l->last_depth + 1;
        l->len_n = l->len_n * 0.999 + 1;
    }
    pay_t *p = &l->pay[depth < PAY_DEPTHS ? depth : PAY_DEPTHS - 1];
    bool timed = p->calls++ % PAY_TIMED == 0;
    double t0 = timed || l->last_end > 0 ? now_seconds() : 0;
    if (l->last_end > 0 && next) running_mean(&l->step_cost_now, t0 - l->last_end);
    l->last_end = 0;
    l->last_depth = depth;
    l->last_hit = false;
    if (!h->every && !pays(l, p, depth)) return -1;
    double deadline = h->main ? h->main->deadline : h->deadline;
    checked_t c = {.es = s, .words = engine_state_words(s), .deadline = deadline};
    int r = check(l, &c, NULL, true);
    p->checks++;
    if (r) p->hits++, l->last_hit = true;
    if (timed) {
        l->last_end = now_seconds();
        running_mean(&l->chk_cost, l->last_end - t0);
    }
    return r > 0 ? 100 : r < 0 ? 0 : -1;
}

void lbs_attach(lbs_hook_t *h, uct_t *u) {
    lbs_t *l = h->lbs;
    if (!l->bitsets) {
        uct_set_hook(u, lbs_hook, h);
        return;
    }
    if (!lbs_hook_threadable(l)) {
        uct_set_state_hook(u, lbs_state_hook, h);
        return;
    }
    lbs_t *k = l->fork ? l->fork : lbs_fork(l);
    l->fork_hook = (lbs_hook_t){.lbs = k, .every = h->every, .main = h};
    uct_set_state_hook_threads(u, lbs_state_hook, h, k ? &l->fork_hook : NULL);
}

void lbs_stats_add(lbs_stats_t *sum, const lbs_stats_t *more) {
    sum->checks += more->checks;
    for (uint32_t i = 0; i < LBS_MAX; i++) {
        sum->hits_alpha[i] += more->hits_alpha[i];
        sum->hits_beta[i] += more->hits_beta[i];
    }
    sum->z3_confirmed += more->z3_confirmed;
    sum->z3_disagree += more->z3_disagree;
    sum->z3_cached += more->z3_cached;
    sum->z3_unknown += more->z3_unknown;
    sum->z3_skipped += more->z3_skipped;
    sum->match_gave_up += more->match_gave_up;
    sum->hook_skipped += more->hook_skipped;
    sum->pay_skipped += more->pay_skipped;
    sum->term_conversions += more->term_conversions;
    sum->check_seconds += more->check_seconds;
    sum->z3_seconds += more->z3_seconds;
}

/* A fork counts events only (it has no Z3 of its own: its confirmations are 0). */
void lbs_stats(const lbs_t *l, lbs_stats_t *out) {
    *out = l->st;
    if (l->fork) lbs_stats_add(out, &l->fork->st);
}
