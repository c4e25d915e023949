/* Rollout early termination with lifted backward search: see lbs.h. */
#include "lbs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "ground.h"
#include "match.h"
#include "regress.h"
#include "smt.h"

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

/* One compiled formula: α_i or β_i. */
typedef struct {
    match_t *m;        /* NULL: the formula is false (empty) and never tried */
    uint32_t guard;    /* index into lbs->guards, or NO_GUARD */
    uint32_t handle;   /* Z3 term of its first disjunct (the others follow), with Z3 */
    double cost;       /* mean seconds of one evaluation on sample states */
    uint64_t work_cap; /* matcher steps an evaluation may take (giving up: no hit) */
    bool in_hook;      /* cheap enough for the rollout hook */
    bool measured;     /* cost measured (as it was made, with stop_cost) */
} lform_t;

/* A remembered Z3 answer: the same state and formula always get the same one. */
typedef struct {
    uint64_t key; /* 0: empty */
    int8_t z;
} zcache_t;

/* A formula's common conjunct ("not terminal, p moves"), shared by every formula with the
 * same text: evaluated at most once per check, so the formulas of the player who is not
 * to move are skipped at the cost of one small query. */
typedef struct {
    match_t *m;
    char *key;
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
    vocab_t *vocab;
    smt_t *smt;
    lbs_stats_t st;
    double step_cost; /* mean seconds of one rollout step (legal moves and next state) */
    double z3_share;  /* > 0: Z3 may take at most this share of the active time */
    double active;    /* seconds of search seen by the checks: their own time and short gaps */
    double deadline;  /* > 0: no Z3 call that might end after it */
    double z3_max;    /* the longest Z3 call so far (the estimate for the next one) */
    double last_check;
    zcache_t *cache;
};

void lbs_default_opts(lbs_opts_t *o) {
    regress_opts_t ro;
    regress_default_opts(&ro);
    o->budget = 10;
    o->max_size = ro.max_size;
    o->confirm = LBS_CONFIRM_Z3;
    o->stop_cost = 0;
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
    form_free(g);
    if (!m) {
        sb_fini(&sb);
        return NO_GUARD;
    }
    l->guards = xrealloc(l->guards, (l->n_guards + 1) * sizeof *l->guards);
    l->guards[l->n_guards].m = m;
    l->guards[l->n_guards].key = xstrdup(sb_str(&sb));
    sb_fini(&sb);
    return l->n_guards++;
}

/* Grounds f for Z3, one term per disjunct (with the common conjunct): a hit is confirmed
 * on the disjunct the matcher found, which is all the hit claims and a fraction of the
 * whole formula's size. False when the deadline passed first or the grounding is too
 * big. */
static bool ground_one(lbs_t *l, term_store_t *ts, const form_t *f, lform_t *lf, double deadline) {
    if (now_seconds() > deadline) return false;
    circuit_t *c = circuit_new();
    circuit_set_limit(c, LBS_GROUND_LIMIT);
    circuit_set_deadline(c, deadline);
    pn_t *roots = xmalloc(f->n * sizeof *roots);
    ground_disjuncts(c, l->vocab, ts, f, roots);
    /* too big to confirm, or late: the formula is left out */
    bool ok = !circuit_overflow(c) && now_seconds() < deadline;
    if (ok) lf->handle = smt_terms(l->smt, c, roots, f->n);
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
    if (l->smt && !ground_one(l, ts, f, lf, deadline)) {
        match_free(lf->m);
        lf->m = NULL;
        return false;
    }
    lf->guard = guard_of(l, f);
    return true;
}

/* Compiling as backward search goes (regress_cb): each formula is compiled (and grounded
 * for Z3) as soon as it is made, so one deadline covers both and whatever was made in time
 * is usable. A side stops at its first formula that cannot be compiled in time (dropping
 * the rest describes fewer states: still sound). */
typedef struct {
    lbs_t *l;
    term_store_t *ts;
    regress_t *rg;
    double deadline;
    bool dead[2];
    const state_t *samples; /* with stop_cost: the states to measure each formula on */
    uint32_t n_samples;
    uint64_t literals[2]; /* each side's newest formula's size */
    double spent;         /* the measured cost of the formulas with i >= 1 so far */
} compile_ctx_t;

static void calibrate_one(lbs_t *l, lform_t *lf, const state_t *st, uint32_t n, double deadline,
                          uint32_t left);

/* With stop_cost: measures formula i (i >= 1) as soon as it is made. The next one of its
 * side is predicted to cost as much times its growth in size (literals, at least 1x);
 * when that does not fit in what the hook's budget has left, or the formula was dropped
 * as too slow, the side gets no more: the hook could not use them, and the time goes to
 * the caller's search instead. */
static void maybe_stop(compile_ctx_t *c, int side, uint32_t i, uint64_t literals) {
    lbs_t *l = c->l;
    lform_t *lf = &l->f[side][i];
    uint64_t before = c->literals[side];
    c->literals[side] = literals;
    if (l->o.stop_cost <= 0 || i == 0 || !lf->m || !c->n_samples) return;
    calibrate_one(l, lf, c->samples, c->n_samples, c->deadline, 1);
    lf->measured = true;
    double growth = before && literals > before ? (double)literals / before : 1;
    if (lf->m) c->spent += lf->cost;
    double left = l->o.stop_cost * l->step_cost - c->spent;
    if (!lf->m || lf->cost * growth > left) {
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

/* Up to CAL_STATES non-terminal states of seeded random playouts (*count of them, in an
 * array of CAL_STATES for free_states); sets the mean cost of one rollout step (legal
 * moves of every role, then the next state). */
static state_t *sample_states(reasoner_t *r, uint32_t *count, double *step_cost) {
    state_t *out = xcalloc(CAL_STATES, sizeof *out);
    for (uint32_t k = 0; k < CAL_STATES; k++)
        state_init(&out[k]);
    splitmix_t rng = {0x5eed};
    state_t s, next;
    state_init(&s);
    state_init(&next);
    uint32_t n = 0, steps = 0;
    double t0 = now_seconds();
    for (uint32_t play = 0; play < 64 && n < CAL_STATES; play++) {
        reason_initial(r, &s);
        for (uint32_t k = 0; k < 1000 && n < CAL_STATES && !reason_terminal(r, &s); k++) {
            state_copy(&out[n++], &s);
            term_t joint[2];
            for (uint32_t i = 0; i < 2; i++) {
                const term_t *mv;
                uint32_t m = reason_legal(r, &s, i, &mv);
                joint[i] = m ? mv[splitmix_next(&rng) % m] : TERM_NONE;
            }
            reason_next(r, &s, joint, &next);
            state_copy(&s, &next);
            steps++;
        }
    }
    *step_cost = steps ? (now_seconds() - t0) / steps : 0;
    state_fini(&s);
    state_fini(&next);
    *count = n;
    return out;
}

static void free_states(state_t *st) {
    for (uint32_t k = 0; k < CAL_STATES; k++)
        state_fini(&st[k]);
    free(st);
}

/* Which formulas the hook uses: by increasing i, α_i then β_i, those that fit in a total
 * cost of `steps` rollout steps per check (all when steps <= 0): the checks then slow the
 * rollouts down by at most that factor. α_0/β_0 never: the hook is not called on terminal
 * states. */
static void choose_hook(lbs_t *l, double steps) {
    l->st.hook_alpha = l->st.hook_beta = 0;
    double left = steps * l->step_cost;
    uint32_t n = l->n[0] > l->n[1] ? l->n[0] : l->n[1];
    for (uint32_t i = 0; i < n; i++)
        for (int side = 0; side < 2; side++) {
            if (i >= l->n[side]) continue;
            lform_t *lf = &l->f[side][i];
            lf->in_hook = lf->m && i > 0 && (steps <= 0 || lf->cost <= left);
            if (!lf->in_hook) continue;
            left -= lf->cost;
            *(side ? &l->st.hook_beta : &l->st.hook_alpha) += 1;
        }
}

/* Times one Z3 call (on α_1 or β_1, the formulas hit most), so that lbs_set_deadline has
 * an estimate before the first confirmation: a call can take longer than a move. */
static void prime_z3(lbs_t *l, const state_t *s) {
    for (int side = 0; side < 2; side++)
        if (l->n[side] > 1 && l->f[side][1].m) {
            double t0 = now_seconds();
            (void)smt_eval(l->smt, l->f[side][1].handle, s); /* its first disjunct */
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
        match_free(lf->m); /* never tried again (like a false formula) */
        lf->m = NULL;
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
    if (l->smt && n) prime_z3(l, &st[n / 2]);
    l->st.step_seconds = l->step_cost;
    choose_hook(l, HOOK_COST);
}

void lbs_set_deadline(lbs_t *l, double deadline) {
    l->deadline = deadline;
}

void lbs_set_z3_share(lbs_t *l, double share) {
    l->z3_share = share;
}

void lbs_set_hook_cost(lbs_t *l, double steps) {
    choose_hook(l, steps);
}

/* Drops formula i of a side and every later one (they are built on it). */
static void drop_from(lbs_t *l, int side, uint32_t i) {
    for (uint32_t k = i; k < l->n[side]; k++) {
        match_free(l->f[side][k].m);
        l->f[side][k].m = NULL;
    }
    l->n[side] = i;
}

/* The guard: a formula is used only once the game itself confirmed it on the sample
 * states, every state it claims searched exactly over the real moves (bounded.h; α_1/β_1
 * cost one ply). One that claims a state that is no forced win, or that could not be
 * checked in time, is dropped with the rest of its side, and the log says which: an
 * unsound formula must never decide a match, whatever the bug behind it. */
static void guard(lbs_t *l, game_t *g, reasoner_t *r, regress_t *rg, uint32_t role,
                  const state_t *samples, uint32_t n, double deadline) {
    bounded_t *b = bounded_new(g, r, regress_shape_of(rg)->noop);
    bounded_opts_t o = {.max_nodes = l->o.guard_nodes ? l->o.guard_nodes : GUARD_NODES,
                        .deadline = deadline,
                        .stop_at_false = true};
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++) {
            if (!l->f[side][i].m) continue;
            bounded_row_t row;
            bounded_check(b, l->f[side][i].m, samples, n, side ? 1 - role : role, i, &o, &row);
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

lbs_t *lbs_new(game_t *g, reasoner_t *r, uint32_t role, const lbs_opts_t *o, char *err,
               size_t errlen) {
    return lbs_new_steps(g, r, role, o, 0, err, errlen);
}

lbs_t *lbs_new_steps(game_t *g, reasoner_t *r, uint32_t role, const lbs_opts_t *o,
                     uint32_t max_steps, char *err, size_t errlen) {
    double t0 = now_seconds();
    const char *why = unsupported(g);
    if (why) {
        snprintf(err, errlen, "backward search does not apply: %s", why);
        return NULL;
    }
    bool z3 = o->confirm == LBS_CONFIRM_Z3;
    lbs_t *l = xcalloc(1, sizeof *l);
    l->ts = g->ts;
    l->o = *o;
    l->ms = match_state_new();
    if (z3) {
        l->vocab = vocab_new(g, r, 16, 1);
        l->smt = smt_new(l->vocab, false);
    }
    /* the sample states for measuring the formulas, drawn first: with stop_cost each
     * formula is measured as soon as it is made */
    uint32_t n;
    state_t *samples = sample_states(r, &n, &l->step_cost);
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
    regress_t *rg = regress_new(g, r, role, &ro, why2, sizeof why2);
    if (!rg) {
        snprintf(err, errlen, "backward search does not apply: %s", why2);
        free_states(samples);
        lbs_free(l);
        return NULL;
    }
    compile_ctx_t cc = {
        .l = l, .ts = g->ts, .rg = rg, .deadline = deadline, .samples = samples, .n_samples = n};
    regress_run(rg, on_step, &cc);
    /* The guard and the calibration get their shares from when they start: backward search
     * may end past its deadline (a step is cut at its next check), and a formula must not
     * be dropped for want of a check the budget had kept time for. */
    double guard_end = o->budget > 0 ? fmax(deadline, now_seconds()) + o->budget * GUARD_SHARE : 0;
    guard(l, g, r, rg, role, samples, n, guard_end);
    regress_free(rg);
    trim(l);
    l->gval = xcalloc(l->n_guards + 1, 1);
    if (z3) l->cache = xcalloc((size_t)1 << CACHE_BITS, sizeof *l->cache);
    double cal_end = o->budget > 0 ? fmax(guard_end, now_seconds()) + o->budget * CAL_SHARE : 1e300;
    calibrate(l, samples, n, cal_end);
    free_states(samples);
    trim(l); /* calibration may have dropped the last ones */
    l->st.n_alpha = l->n[0];
    l->st.n_beta = l->n[1];
    l->st.regress_seconds = now_seconds() - t0;
    return l;
}

void lbs_free(lbs_t *l) {
    if (!l) return;
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < l->n[side]; i++)
            match_free(l->f[side][i].m);
    for (uint32_t k = 0; k < l->n_guards; k++) {
        match_free(l->guards[k].m);
        free(l->guards[k].key);
    }
    free(l->guards);
    free(l->gval);
    free(l->cache);
    smt_free(l->smt);
    vocab_free(l->vocab);
    match_state_free(l->ms);
    free(l);
}

/* The formula's guard holds in the indexed state (evaluated once per check). */
static bool guard_ok(lbs_t *l, uint32_t g) {
    if (g == NO_GUARD) return true;
    if (l->gval[g] < 0) l->gval[g] = match_eval(l->guards[g].m, l->ms) ? 1 : 0;
    return l->gval[g] == 1;
}

/* Has Z3 used up its share of the search time (lbs_set_z3_share)? */
static bool z3_spent(const lbs_t *l) {
    return l->smt && l->z3_share > 0 && l->st.z3_seconds > l->z3_share * l->active + Z3_GRACE;
}

/* A matcher hit, confirmed by Z3 when asked: true when it may be used. Z3's answer for
 * a state and a formula never changes, so it is remembered (keyed by a 64-bit hash of
 * the state, the side and i; replaced on collision of slots). */
static bool confirmed(lbs_t *l, int side, uint32_t i, const state_t *s) {
    if (!l->smt) return true;
    uint64_t key =
        (state_hash(s) ^ ((uint64_t)side << 63) ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull)) | 1;
    zcache_t *c = &l->cache[(key >> 7) & (((uint64_t)1 << CACHE_BITS) - 1)];
    if (c->key == key) {
        l->st.z3_cached++;
        return c->z == 1;
    }
    double t0 = now_seconds();
    bool late = l->deadline > 0 && t0 + l->z3_max > l->deadline;
    if (late || z3_spent(l)) {
        l->st.z3_skipped++; /* over the confirmation budget: the hit is not used */
        return false;
    }
    const lform_t *lf = &l->f[side][i];
    int z = smt_eval(l->smt, lf->handle + (uint32_t)match_hit(lf->m), s);
    double dt = now_seconds() - t0;
    l->st.z3_seconds += dt;
    if (dt > l->z3_max) l->z3_max = dt;
    if (z == 1)
        l->st.z3_confirmed++;
    else if (z == 0)
        l->st.z3_disagree++;
    else
        l->st.z3_unknown++;
    if (z >= 0) { /* an unknown is not remembered: it says nothing of the state */
        c->key = key;
        c->z = (int8_t)z;
    }
    return z == 1;
}

/* The least i of one side whose formula s satisfies (confirmed), or -1; hook: only the
 * formulas chosen for the hook. */
static int first_hit(lbs_t *l, int side, const state_t *s, bool hook) {
    for (uint32_t i = 0; i < l->n[side]; i++) {
        const lform_t *lf = &l->f[side][i];
        if (!lf->m || (hook && !lf->in_hook)) continue;
        if (!guard_ok(l, lf->guard)) continue;
        int e = match_eval_within(lf->m, l->ms, lf->work_cap);
        if (e < 0) l->st.match_gave_up++;
        if (e != 1) continue;
        if (confirmed(l, side, i, s)) return (int)i;
    }
    return -1;
}

static int check(lbs_t *l, const state_t *s, uint32_t *i, bool hook) {
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
    match_state_set(l->ms, l->ts, s);
    memset(l->gval, 0xff, l->n_guards);
    int res = 0;
    for (int side = 0; side < 2 && !res; side++) {
        int k = first_hit(l, side, s, hook);
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

int lbs_check(lbs_t *l, const state_t *s, uint32_t *i) {
    return check(l, s, i, false);
}

int lbs_hook(void *ctx, const state_t *s) {
    lbs_t *l = ctx;
    if (!l->st.hook_alpha && !l->st.hook_beta) return -1; /* nothing to check: no cost */
    int r = check(l, s, NULL, true);
    return r > 0 ? 100 : r < 0 ? 0 : -1;
}

void lbs_stats(const lbs_t *l, lbs_stats_t *out) {
    *out = l->st;
}
