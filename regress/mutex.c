/* Mutex invariants proven by induction with Z3: see mutex.h.
 *
 * The step of candidate m is the lifted formula
 *   legal(r0, ?a0) ∧ legal(r1, ?a1) [∧ ...] ∧ next(f(x̄, v1)) ∧ next(f(x̄, v2))
 *     ∧ v1 ≠ v2   (v at m's position, does(r_i, y) read as y = ?a_i)
 * expanded (C^∞ with does resolved) and grounded on the vocabulary: it is satisfiable
 * together with the invariants of the current candidates exactly when some state that
 * satisfies them all has a legal joint move breaking m. */
#include "regress/mutex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "regress/formcheck.h"
#include "regress/formground.h"

typedef struct {
    mutex_t m;
    bool alive;
    uint32_t inv; /* formcheck handle of "at most one per group" */
    bool inv_made;
    uint32_t step; /* formcheck handle of the step formula */
} cand_t;

/* Two fluents of one signature agreeing everywhere but pos (and differing there). */
static bool same_group(const term_store_t *ts, term_t a, term_t b, uint32_t pos) {
    uint32_t n = term_arity(ts, a);
    for (uint32_t i = 0; i < n; i++)
        if (i != pos && term_arg(ts, a, i) != term_arg(ts, b, i)) return false;
    return term_arg(ts, a, pos) != term_arg(ts, b, pos);
}

/* Does state s hold two fluents of m's group? */
static bool violated(const term_store_t *ts, const mutex_t *m, const state_t *s) {
    for (uint32_t i = 0; i < s->n; i++) {
        term_t a = s->facts[i];
        if (term_kind(ts, a) != TERM_FUN || term_sym(ts, a) != m->sym ||
            term_arity(ts, a) != m->arity)
            continue;
        for (uint32_t j = i + 1; j < s->n; j++) {
            term_t b = s->facts[j];
            if (term_kind(ts, b) == TERM_FUN && term_sym(ts, b) == m->sym &&
                term_arity(ts, b) == m->arity && same_group(ts, a, b, m->pos))
                return true;
        }
    }
    return false;
}

typedef struct {
    cand_t *c;
    uint32_t n;
    state_t terms;
} refute_t;

/* A sampled state kills the candidates it violates. */
static engine_walk_next_t refute(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)ply;
    refute_t *rf = ctx;
    engine_state_terms(e, s, &rf->terms);
    for (uint32_t k = 0; k < rf->n; k++)
        if (rf->c[k].alive && violated(engine_game(e)->ts, &rf->c[k].m, &rf->terms))
            rf->c[k].alive = false;
    return ENGINE_WALK_ON;
}

/* The candidates: every (functor, position) of the vocabulary with some group of two or
 * more values, not violated in the sampled states. */
static uint32_t candidates(engine_t *e, const vocab_t *v, cand_t **out) {
    term_store_t *ts = engine_game(e)->ts;
    cand_t *c = NULL;
    size_t cap = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < vocab_count(v); i++) {
        term_t f = vocab_fluent(v, i);
        if (term_kind(ts, f) != TERM_FUN) continue;
        for (uint32_t pos = 0; pos < term_arity(ts, f); pos++) {
            bool known = false;
            for (uint32_t k = 0; k < n && !known; k++)
                known = c[k].m.sym == term_sym(ts, f) && c[k].m.arity == term_arity(ts, f) &&
                        c[k].m.pos == pos;
            if (known) continue;
            /* some group-mate in the vocabulary? */
            const uint32_t *ids;
            uint32_t nf = vocab_functor(v, term_sym(ts, f), term_arity(ts, f), &ids);
            bool mate = false;
            for (uint32_t j = 0; j < nf && !mate; j++)
                mate = same_group(ts, f, vocab_fluent(v, ids[j]), pos);
            if (!mate) continue;
            GROW(c, cap, n + 1);
            c[n++] = (cand_t){.m = {.sym = term_sym(ts, f), .arity = term_arity(ts, f), .pos = pos},
                              .alive = true};
        }
    }
    /* sampled states refute some */
    refute_t rf = {.c = c, .n = n};
    state_init(&rf.terms);
    splitmix_t rng = {0x6d757465ull};
    engine_walk_t w = {.matches = 200, .max_plies = 2000, .terminal = true};
    engine_walk(e, &rng, &w, refute, &rf);
    state_fini(&rf.terms);
    uint32_t alive = 0;
    for (uint32_t k = 0; k < n; k++)
        if (c[k].alive) c[alive++] = c[k];
    *out = c;
    return alive;
}

/* "At most one value per group" over the vocabulary. */
static pn_t invariant(circuit_t *c, const vocab_t *v, const term_store_t *ts, const mutex_t *m) {
    const uint32_t *ids;
    uint32_t nf = vocab_functor(v, m->sym, m->arity, &ids);
    pn_t *kids = NULL;
    size_t cap = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < nf; i++)
        for (uint32_t j = i + 1; j < nf; j++) {
            if (!same_group(ts, vocab_fluent(v, ids[i]), vocab_fluent(v, ids[j]), m->pos)) continue;
            pn_t both[2] = {pn_var(c, ids[i]), pn_var(c, ids[j])};
            GROW(kids, cap, n + 1);
            kids[n++] = pn_not(c, pn_and(c, both, 2));
        }
    pn_t r = pn_and(c, kids, n);
    free(kids);
    return r;
}

static term_t mk(term_store_t *ts, sym_t f, const term_t *args, uint32_t n) {
    return term_fun(ts, f, args, n);
}

/* The step formula of m, expanded; NULL when the expansion was cut (recursion bound):
 * then nothing can be concluded. */
static form_t *step_formula(game_t *g, expand_t *x, const mutex_t *m) {
    term_store_t *ts = g->ts;
    fconj_t *d = fconj_new();
    uint32_t nr = g->n_roles;
    /* variables: moves 0..nr-1, then the fluent arguments, then v1, v2 */
    uint32_t base = nr;
    /* no ¬terminal: a weaker hypothesis, so still a sound proof, and much smaller */
    for (uint32_t k = 0; k < nr; k++) {
        term_t args[2] = {g->roles[k], term_var(ts, k)};
        fconj_add(d, FL_ATOM, mk(ts, SYM_LEGAL, args, 2), TERM_NONE);
        fconj_add(d, FL_MOVE, g->roles[k], term_var(ts, k));
    }
    term_t a1[m->arity], a2[m->arity];
    for (uint32_t i = 0; i < m->arity; i++)
        a1[i] = a2[i] = term_var(ts, base + i);
    term_t v1 = term_var(ts, base + m->arity), v2 = term_var(ts, base + m->arity + 1);
    a1[m->pos] = v1;
    a2[m->pos] = v2;
    term_t f1 = mk(ts, m->sym, a1, m->arity), f2 = mk(ts, m->sym, a2, m->arity);
    fconj_add(d, FL_ATOM, mk(ts, SYM_NEXT, &f1, 1), TERM_NONE);
    fconj_add(d, FL_ATOM, mk(ts, SYM_NEXT, &f2, 1), TERM_NONE);
    fconj_add(d, FL_DIST, v1, v2);
    d->nv = base + m->arity + 2;
    form_t *f = form_new();
    form_push(f, d);
    expand_bind_does(x, true);
    form_t *e = expand_form(x, f);
    expand_bind_does(x, false);
    form_free(f);
    if (e && !e->complete) {
        form_free(e);
        return NULL;
    }
    return e;
}

uint32_t mutex_prove(engine_t *e, const term_t *noop, double deadline, mutex_t **out,
                     mutex_report_t *rep) {
    (void)noop;
    game_t *g = engine_game(e);
    double t0 = now_seconds();
    mutex_report_t local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    *out = NULL;
    vocab_t *v = vocab_from_engine(e, 64, 0x766f63ull, deadline);
    if (!vocab_proven(v) || g->gdl2) {
        rep->no_vocabulary = true;
        vocab_free(v);
        rep->seconds = now_seconds() - t0;
        return 0;
    }
    cand_t *c;
    uint32_t n = candidates(e, v, &c);
    rep->candidates = n;
    /* base case: the initial state */
    eng_state_t *init = engine_state_new(e);
    state_t terms;
    state_init(&terms);
    engine_initial(e, init);
    engine_state_terms(e, init, &terms);
    for (uint32_t k = 0; k < n; k++)
        if (violated(g->ts, &c[k].m, &terms)) c[k].alive = false;
    state_fini(&terms);
    engine_state_free(init);
    /* Houdini. The step formulas are expanded under the hypothesis that every live
     * candidate holds in the current state (the induction hypothesis), so the expander
     * may prune with them; when a candidate dies they are rebuilt without it. */
    expand_t *x = expand_new(e);
    expand_opts(x)->max_literals = 2000000;
    expand_opts(x)->deadline = deadline;
    formcheck_t *s = formcheck_new(v, true);
    circuit_t *circ = circuit_new();
    mutex_t *live = xmalloc((n + 1) * sizeof *live);
    uint32_t *hs = xmalloc((n + 2) * sizeof *hs);
    for (bool changed = true; changed;) {
        changed = false;
        rep->rounds++;
        if (deadline > 0 && now_seconds() > deadline) {
            /* out of time: nothing is proven (no candidate may be used unproven) */
            for (uint32_t k = 0; k < n; k++)
                c[k].alive = false;
            rep->timed_out = true;
            break;
        }
        uint32_t nl = 0;
        for (uint32_t k = 0; k < n; k++)
            if (c[k].alive) live[nl++] = c[k].m;
        expand_set_mutexes(x, live, nl);
        for (uint32_t k = 0; k < n && !changed; k++) {
            if (!c[k].alive) continue;
            form_t *f = step_formula(g, x, &c[k].m);
            if (!f) {
                c[k].alive = false;
                changed = true;
                break;
            }
            pn_t root = ground_form(circ, v, g->ts, f);
            form_free(f);
            c[k].step = formcheck_assert(s, circ, root);
            if (!c[k].inv_made) {
                c[k].inv = formcheck_assert(s, circ, invariant(circ, v, g->ts, &c[k].m));
                c[k].inv_made = true;
            }
        }
        if (changed) continue;
        for (uint32_t k = 0; k < n && !changed; k++) {
            if (!c[k].alive) continue;
            uint32_t nh = 0;
            for (uint32_t j = 0; j < n; j++)
                if (c[j].alive) hs[nh++] = c[j].inv;
            hs[nh++] = c[k].step;
            if (formcheck_sat(s, hs, nh, deadline) != 0) { /* sat or unknown: not proven */
                c[k].alive = false;
                changed = true; /* the hypothesis shrank: rebuild the step formulas */
            }
        }
    }
    free(hs);
    free(live);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (c[k].alive) m++;
    *out = xmalloc((m + 1) * sizeof **out);
    m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (c[k].alive) (*out)[m++] = c[k].m;
    rep->proven = m;
    circuit_free(circ);
    formcheck_free(s);
    expand_free(x);
    vocab_free(v);
    free(c);
    rep->seconds = now_seconds() - t0;
    return m;
}
