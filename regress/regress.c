/* Lifted backward search: the turn-taking test, the N operator and the sequences. See
 * regress.h. */
#include "regress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutex.h"

struct regress {
    game_t *g;
    reasoner_t *r;
    expand_t *x;
    regress_opts_t o;
    shape_t shape;
    uint32_t role; /* A */
    mutex_t *mutexes;
    uint32_t n_mutexes;
    bool mutexes_done;
    regress_step_t *steps[2];
    uint32_t n_steps[2], cap_steps[2];
    double deadline;
};

void regress_default_opts(regress_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->budget = 10;
    o->max_size = 200000;
    o->max_depth = 4;
    o->use_mutexes = true;
}

/* ---------------- the turn-taking test ---------------- */

static uint64_t rng_next(uint64_t *s) {
    splitmix_t r = {*s};
    uint64_t v = splitmix_next(&r);
    *s = r.s;
    return v;
}

void regress_shape(game_t *g, reasoner_t *r, uint32_t playouts, uint64_t seed, shape_t *out) {
    memset(out, 0, sizeof *out);
    term_store_t *ts = g->ts;
    if (g->n_roles != 2) {
        snprintf(out->reason, sizeof out->reason, "backward search needs two roles; the game has %u",
                 g->n_roles);
        return;
    }
    if (g->gdl2) {
        snprintf(out->reason, sizeof out->reason, "GDL-II games (sees, random) are not supported");
        return;
    }
    state_t s, t;
    state_init(&s);
    state_init(&t);
    term_t noop[2] = {TERM_NONE, TERM_NONE};
    bool bad = false;
    strbuf_t sb;
    sb_init(&sb);
    /* Pass 1 finds each role's no-op (its only move while the other role chooses); pass 2
     * checks the shape on the same states. */
    for (int pass = 0; pass < 2 && !bad; pass++) {
        uint64_t rng = seed;
        for (uint32_t p = 0; p < playouts && !bad; p++) {
            reason_initial(r, &s);
            for (uint32_t ply = 0; ply < 10000 && !bad; ply++) {
                if (reason_terminal(r, &s)) break;
                const term_t *m[2];
                uint32_t n[2];
                term_t *copy[2];
                for (uint32_t k = 0; k < 2; k++) {
                    n[k] = reason_legal(r, &s, k, &m[k]);
                    copy[k] = xmalloc((n[k] + 1) * sizeof *copy[k]);
                    memcpy(copy[k], m[k], n[k] * sizeof *copy[k]);
                }
                if (pass == 1) out->states++;
                for (uint32_t k = 0; k < 2 && !bad; k++) {
                    uint32_t o = 1 - k;
                    if (n[k] == 0) {
                        snprintf(out->reason, sizeof out->reason,
                                 "role %s has no legal move in a non-terminal state",
                                 term_sym_name(ts, term_sym(ts, g->roles[k])));
                        bad = true;
                    } else if (pass == 0 && n[k] == 1 && n[o] > 1) {
                        if (noop[k] == TERM_NONE) noop[k] = copy[k][0];
                        else if (noop[k] != copy[k][0]) {
                            snprintf(out->reason, sizeof out->reason,
                                     "not turn-taking: role %s has more than one waiting move",
                                     term_sym_name(ts, term_sym(ts, g->roles[k])));
                            bad = true;
                        }
                    } else if (pass == 0 && n[k] > 1 && n[o] > 1) {
                        snprintf(out->reason, sizeof out->reason,
                                 "not turn-taking: both roles have a choice (%u and %u legal moves) "
                                 "in the same state (simultaneous moves)",
                                 n[0], n[1]);
                        bad = true;
                    }
                }
                if (pass == 1 && !bad) {
                    bool waits[2];
                    for (uint32_t k = 0; k < 2; k++) waits[k] = n[k] == 1 && copy[k][0] == noop[k];
                    bool has_noop[2] = {false, false};
                    for (uint32_t k = 0; k < 2; k++)
                        for (uint32_t i = 0; i < n[k]; i++)
                            if (copy[k][i] == noop[k]) has_noop[k] = true;
                    if (waits[0] == waits[1] || (waits[0] && has_noop[1]) || (waits[1] && has_noop[0])) {
                        sb_clear(&sb);
                        snprintf(out->reason, sizeof out->reason,
                                 "not turn-taking: a state where %s",
                                 waits[0] == waits[1] ? (waits[0] ? "both roles wait" : "no role waits")
                                                      : "the mover may also play its no-op");
                        bad = true;
                    }
                }
                term_t joint[2];
                for (uint32_t k = 0; k < 2; k++) joint[k] = copy[k][rng_next(&rng) % n[k]];
                for (uint32_t k = 0; k < 2; k++) free(copy[k]);
                if (bad) break;
                reason_next(r, &s, joint, &t);
                state_copy(&s, &t);
            }
        }
        if (pass == 0 && !bad)
            for (uint32_t k = 0; k < 2 && !bad; k++) {
                /* never seen waiting while the other role chose: the GDL convention */
                if (noop[k] == TERM_NONE) {
                    term_t nm = term_const(ts, SYM_NOOP);
                    state_t s0;
                    state_init(&s0);
                    reason_initial(r, &s0);
                    if (reason_is_legal(r, &s0, k, nm) || reason_is_legal(r, &s0, 1 - k, nm)) noop[k] = nm;
                    state_fini(&s0);
                }
                if (noop[k] == TERM_NONE) {
                    snprintf(out->reason, sizeof out->reason,
                             "not turn-taking: role %s never waits with a single no-op move",
                             term_sym_name(ts, term_sym(ts, g->roles[k])));
                    bad = true;
                }
            }
    }
    sb_fini(&sb);
    state_fini(&s);
    state_fini(&t);
    if (bad) return;
    out->supported = true;
    out->noop[0] = noop[0];
    out->noop[1] = noop[1];
}

/* ---------------- construction ---------------- */

regress_t *regress_new(game_t *g, reasoner_t *r, uint32_t role, const regress_opts_t *o, char *err,
                       size_t errlen) {
    shape_t sh;
    regress_shape(g, r, 64, 0x5eed, &sh);
    if (!sh.supported) {
        snprintf(err, errlen, "unsupported by backward search: %s", sh.reason);
        return NULL;
    }
    if (role >= g->n_roles) {
        snprintf(err, errlen, "no role number %u", role);
        return NULL;
    }
    regress_t *rg = xcalloc(1, sizeof *rg);
    rg->g = g;
    rg->r = r;
    rg->o = *o;
    rg->shape = sh;
    rg->role = role;
    rg->x = expand_new(g, r);
    expand_opts(rg->x)->max_depth = o->max_depth;
    return rg;
}

void regress_free(regress_t *rg) {
    if (!rg) return;
    for (int s = 0; s < 2; s++) {
        for (uint32_t i = 0; i < rg->n_steps[s]; i++) form_free(rg->steps[s][i].f);
        free(rg->steps[s]);
    }
    free(rg->mutexes);
    expand_free(rg->x);
    free(rg);
}

const shape_t *regress_shape_of(const regress_t *rg) { return &rg->shape; }
expand_t *regress_expander(regress_t *rg) { return rg->x; }

const mutex_t *regress_mutexes(const regress_t *rg, uint32_t *n) {
    *n = rg->n_mutexes;
    return rg->mutexes;
}

uint32_t regress_prove_mutexes(regress_t *rg) {
    if (rg->mutexes_done) return rg->n_mutexes;
    rg->mutexes_done = true;
    rg->n_mutexes = mutex_prove(rg->g, rg->r, rg->shape.noop, &rg->mutexes, NULL);
    expand_set_mutexes(rg->x, rg->mutexes, rg->n_mutexes);
    return rg->n_mutexes;
}

/* ---------------- N ---------------- */

static void nextify_scope(term_store_t *ts, fconj_t *c) {
    for (uint32_t i = 0; i < c->n; i++) {
        flit_t *l = &c->lits[i];
        if (l->kind == FL_NOT) {
            nextify_scope(ts, l->sub);
            continue;
        }
        if (l->kind != FL_TRUE && l->kind != FL_NTRUE) continue;
        l->a = term_fun(ts, SYM_NEXT, &l->a, 1);
        l->kind = l->kind == FL_TRUE ? FL_ATOM : FL_NATOM;
        l->gen = 0;
        l->depth = 0;
    }
}

form_t *form_nextify(term_store_t *ts, const form_t *f) {
    form_t *r = form_copy(f);
    for (uint32_t i = 0; i < r->n; i++) nextify_scope(ts, r->d[i]);
    if (r->common) nextify_scope(ts, r->common);
    return r;
}

static term_t mk2(term_store_t *ts, sym_t f, term_t a, term_t b) {
    term_t args[2] = {a, b};
    return term_fun(ts, f, args, 2);
}

/* The literals saying "p moves": the state is not terminal, q's only legal move is
 * noop_q, p's no-op is not legal. Ground at the top level (the alternative move of q is
 * quantified inside its negation), so they can be the formula's common conjunct. */
static fconj_t *turn(regress_t *rg, uint32_t p, uint32_t q) {
    term_store_t *ts = rg->g->ts;
    term_t rp = rg->g->roles[p], rq = rg->g->roles[q];
    term_t nq = rg->shape.noop[q], np = rg->shape.noop[p];
    fconj_t *D = fconj_new();
    fconj_add(D, FL_NATOM, term_const(ts, SYM_TERMINAL), TERM_NONE);
    fconj_add(D, FL_ATOM, mk2(ts, SYM_LEGAL, rq, nq), TERM_NONE);
    fconj_add(D, FL_NATOM, mk2(ts, SYM_LEGAL, rp, np), TERM_NONE);
    fconj_t *other = fconj_new();
    term_t v = term_var(ts, 0);
    fconj_add(other, FL_ATOM, mk2(ts, SYM_LEGAL, rq, v), TERM_NONE);
    fconj_add(other, FL_DIST, v, nq);
    fconj_add_not(D, other);
    D->nv = 1;
    return D;
}

/* The literals of c appended to d (c's variables moved above d's first). */
static void append_scope(term_store_t *ts, fconj_t *d, const fconj_t *c) {
    fconj_t *cc = fconj_copy(c);
    uint32_t off = fconj_var_bound(ts, d);
    fconj_shift(ts, cc, off);
    for (uint32_t i = 0; i < cc->n; i++) fconj_push(d, cc->lits[i]);
    cc->n = 0;
    fconj_free(cc);
}

form_t *regress_N(regress_t *rg, const form_t *f, uint32_t mover, bool exists) {
    term_store_t *ts = rg->g->ts;
    uint32_t p = mover, q = 1 - mover;
    term_t rp = rg->g->roles[p], rq = rg->g->roles[q];
    form_t *phi = form_nextify(ts, f);
    form_t *in = form_new();
    in->complete = f->complete;
    in->common = turn(rg, p, q);
    if (exists) {
        /* ∃m: legal(p, m) ∧ common' ∧ D_j'  for each disjunct; ?0 = m */
        for (uint32_t i = 0; i < phi->n; i++) {
            fconj_t *d = phi->d[i];
            phi->d[i] = NULL;
            fconj_canon_vars(ts, d);
            fconj_shift(ts, d, 1);
            if (phi->common) append_scope(ts, d, phi->common);
            fconj_add(d, FL_ATOM, mk2(ts, SYM_LEGAL, rp, term_var(ts, 0)), TERM_NONE);
            fconj_add(d, FL_MOVE, rp, term_var(ts, 0));
            fconj_add(d, FL_MOVE, rq, rg->shape.noop[q]);
            form_push(in, d);
        }
        phi->n = 0;
    } else {
        /* ∀b: legal(p, b) → common' ∧ ∨_j D_j', as
         *   ¬∃b (legal(p, b) ∧ ¬common')  ∧  ¬∃b (legal(p, b) ∧ ∧_j ¬D_j'); ?0 = b */
        fconj_t *D = fconj_new();
        fconj_add(D, FL_MOVE, rq, rg->shape.noop[q]);
        uint32_t next_var = 1;
        for (int part = phi->common ? 0 : 1; part < 2; part++) {
            fconj_t *all = fconj_new();
            fconj_add(all, FL_ATOM, mk2(ts, SYM_LEGAL, rp, term_var(ts, 0)), TERM_NONE);
            fconj_add(all, FL_MOVE, rp, term_var(ts, 0));
            uint32_t nd = part == 0 ? 1 : phi->n;
            for (uint32_t i = 0; i < nd; i++) {
                fconj_t *d = part == 0 ? fconj_copy(phi->common) : phi->d[i];
                if (part) phi->d[i] = NULL;
                fconj_canon_vars(ts, d);
                uint32_t nv = d->nv;
                fconj_shift(ts, d, next_var);
                next_var += nv;
                fconj_add_not(all, d);
            }
            fconj_add_not(D, all);
        }
        phi->n = 0;
        form_push(in, D);
    }
    form_free(phi);
    for (uint32_t i = 0; i < in->n; i++) in->d[i]->nv = fconj_var_bound(ts, in->d[i]);
    expand_bind_does(rg->x, true);
    form_t *out = expand_form(rg->x, in);
    expand_bind_does(rg->x, false);
    form_free(in);
    return out;
}

/* ---------------- the sequences ---------------- */

static void push_step(regress_t *rg, int side, form_t *f, double secs) {
    if (rg->n_steps[side] == rg->cap_steps[side]) {
        rg->cap_steps[side] = rg->cap_steps[side] ? 2 * rg->cap_steps[side] : 16;
        rg->steps[side] = xrealloc(rg->steps[side], rg->cap_steps[side] * sizeof *rg->steps[side]);
    }
    regress_step_t *st = &rg->steps[side][rg->n_steps[side]++];
    st->f = f;
    st->seconds = secs;
    st->disjuncts = f->n;
    st->literals = form_literals(f);
    st->complete = f->complete;
}

static form_t *win_formula(regress_t *rg, uint32_t role) {
    term_store_t *ts = rg->g->ts;
    form_t *f = form_new();
    fconj_t *c = fconj_new();
    fconj_add(c, FL_ATOM, term_const(ts, SYM_TERMINAL), TERM_NONE);
    fconj_add(c, FL_ATOM, mk2(ts, SYM_GOAL, rg->g->roles[role], term_const(ts, term_intern(ts, "100", 3))),
              TERM_NONE);
    form_push(f, c);
    return f;
}

uint32_t regress_count(const regress_t *rg, int side) { return rg->n_steps[side]; }
const regress_step_t *regress_step(const regress_t *rg, int side, uint32_t i) {
    return i < rg->n_steps[side] ? &rg->steps[side][i] : NULL;
}

/* The time one attempt at a step may take: a share of what is left. */
static double slice_end(const regress_t *rg) {
    if (!rg->deadline) return 0;
    double now = now_seconds(), left = rg->deadline - now;
    double share = left / 6, floor = rg->o.budget / 50;
    if (share < floor) share = floor;
    return now + share < rg->deadline ? now + share : rg->deadline;
}

/* One step: N of prev; when an attempt runs out of its time slice, again on a shrunk
 * copy of prev (half the literals: a sound under-approximation). NULL when the whole
 * budget is spent. */
static form_t *step(regress_t *rg, const form_t *prev, uint32_t mover, bool exists) {
    if (!prev->n) {
        /* N(false) = false: a non-terminal state where the mover has no legal move does
         * not occur in a valid game. */
        form_t *f = form_new();
        f->complete = prev->complete;
        return f;
    }
    expand_opts_t *xo = expand_opts(rg->x);
    form_t *input = NULL; /* a shrunk copy, when one was needed */
    for (;;) {
        xo->deadline = slice_end(rg);
        form_t *f = regress_N(rg, input ? input : prev, mover, exists);
        if (f) {
            if (input) f->complete = false;
            form_free(input);
            return f;
        }
        if (rg->deadline && now_seconds() >= rg->deadline) {
            form_free(input);
            return NULL;
        }
        const form_t *cur = input ? input : prev;
        uint64_t lits = form_literals(cur);
        form_t *smaller = form_copy(cur);
        if (!form_shrink(smaller, lits / 2) || form_literals(smaller) >= lits) {
            /* nothing left to drop: give up on this step soundly */
            form_free(smaller);
            form_free(input);
            f = form_new();
            f->complete = false;
            return f;
        }
        form_free(input);
        input = smaller;
    }
}

void regress_run(regress_t *rg, regress_cb cb, void *ctx) {
    double start = now_seconds();
    rg->deadline = rg->o.budget > 0 ? start + rg->o.budget : 0;
    expand_opts_t *xo = expand_opts(rg->x);
    /* a safety net against blow-ups inside one expansion; the real cap is form_shrink */
    xo->max_literals = rg->o.max_size ? rg->o.max_size * 64 : 0;
    if (rg->o.use_mutexes) regress_prove_mutexes(rg);
    uint32_t owner[2] = {rg->role, 1 - rg->role};
    for (int side = 0; side < 2; side++) {
        double t0 = now_seconds();
        xo->deadline = rg->deadline;
        form_t *w = win_formula(rg, owner[side]);
        form_t *f = expand_form(rg->x, w);
        form_free(w);
        if (!f) return;
        if (rg->o.max_size) form_shrink(f, rg->o.max_size);
        push_step(rg, side, f, now_seconds() - t0);
        if (cb) cb(ctx, side, 0, &rg->steps[side][0]);
    }
    bool live[2] = {true, true};
    for (uint32_t i = 1; !rg->o.max_steps || i <= rg->o.max_steps; i++) {
        for (int side = 0; side < 2; side++) {
            if (!live[side]) continue;
            const form_t *prev = rg->steps[side][i - 1].f;
            bool odd = i % 2 == 1;
            uint32_t mover = odd ? owner[side] : 1 - owner[side];
            double t0 = now_seconds();
            form_t *f = step(rg, prev, mover, odd);
            if (!f) return; /* out of time: the step is discarded */
            if (rg->o.max_size) form_shrink(f, rg->o.max_size);
            push_step(rg, side, f, now_seconds() - t0);
            if (cb) cb(ctx, side, i, &rg->steps[side][i]);
            if (f->n == 0) live[side] = false; /* false from here on */
        }
        if (!live[0] && !live[1]) return;
    }
}
