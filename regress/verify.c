/* Checking the sequences against the exact solver: see verify.h. */
#include "regress/verify.h"

/* circuit nodes at most for Z3: deeply nested formulas can ground exponentially */
#define VERIFY_GROUND_LIMIT 4000000u

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "regress/formcheck.h"
#include "regress/formground.h"
#include "regress/match.h"
#include "truth/bounded.h"
#include "truth/solve.h"

struct verify {
    game_t *g;
    engine_t *e;
    solve_t *s;
    vocab_t *vocab;
    formcheck_t *fc;
    match_state_t *ms;
};

verify_t *verify_new(engine_t *e, const term_t *noop, uint32_t max_states, char *err,
                     size_t errlen) {
    solve_t *s = solve_new(e, max_states, err, errlen);
    if (!s) return NULL;
    solve_rounds(s, noop);
    verify_t *v = xcalloc(1, sizeof *v);
    v->g = engine_game(e);
    v->e = e;
    v->s = s;
    v->ms = match_state_new();
    return v;
}

void verify_free(verify_t *v) {
    if (!v) return;
    formcheck_free(v->fc);
    vocab_free(v->vocab);
    match_state_free(v->ms);
    solve_free(v->s);
    free(v);
}

uint32_t verify_states(const verify_t *v) {
    return solve_count(v->s);
}

void verify_formula(verify_t *v, const form_t *f, uint32_t role, uint32_t i, bool use_z3,
                    verify_row_t *out) {
    memset(out, 0, sizeof *out);
    match_t *m = match_new(v->g->ts, f);
    if (!m) die("verify: the formula is not expanded");
    uint32_t h = 0, t = 0;
    if (use_z3) {
        if (!v->vocab) {
            v->vocab = vocab_from_engine(v->e, 16, 1, 0);
            v->fc = formcheck_new(v->vocab, false);
        }
        circuit_t *c = circuit_new_within(VERIFY_GROUND_LIMIT, 0);
        /* grounded once: the disjuncts for the evaluator, their disjunction for the solver */
        pn_t *roots = xmalloc((f->n + 1) * sizeof *roots);
        ground_disjuncts(c, v->vocab, v->g->ts, f, roots);
        pn_t root = pn_or(c, roots, f->n);
        if (circuit_overflow(c))
            use_z3 = false, out->z3_too_big = true;
        else {
            h = formcheck_assert(v->fc, c, root);
            t = formcheck_terms(v->fc, c, roots, f->n);
        }
        free(roots);
        circuit_free(c);
    }
    uint32_t n = solve_count(v->s);
    out->states = n;
    for (uint32_t id = 0; id < n; id++) {
        const state_t *st = solve_state(v->s, id);
        double t0 = now_seconds();
        bool sat = match_check(m, v->ms, st);
        double t1 = now_seconds();
        out->match_seconds += t1 - t0;
        if (use_z3) {
            /* Z3's solver on the whole formula, and on a hit, as the MCTS hook confirms
             * one, its model evaluator on the disjunct the matcher found */
            int z = formcheck_holds(v->fc, h, st);
            int e = sat ? formcheck_eval(v->fc, t + (uint32_t)match_hit(m), st) : z;
            out->z3_seconds += now_seconds() - t1;
            if (z < 0 || e < 0)
                out->z3_unknown++;
            else {
                out->z3_checked++;
                if ((z == 1) != sat || e != z) out->z3_disagree++;
            }
        }
        bool in = i < 64 && ((solve_wmask(v->s, id, role) >> i) & 1);
        uint8_t w = solve_win_in(v->s, id, role);
        out->exact += in;
        out->hits += sat;
        if (sat && !in) out->false_pos++;
        if (sat && (w == SOLVE_NONE || w > i)) out->late++;
        if (!sat && in) out->misses++;
    }
    out->inexact = match_inexact(m);
    match_free(m);
}

uint32_t verify_mutex(const verify_t *v, const mutex_t *m) {
    const term_store_t *ts = v->g->ts;
    uint32_t bad = 0;
    for (uint32_t id = 0; id < solve_count(v->s); id++) {
        const state_t *st = solve_state(v->s, id);
        bool hit = false;
        for (uint32_t a = 0; a < st->n && !hit; a++) {
            term_t x = st->facts[a];
            if (term_kind(ts, x) != TERM_FUN || term_sym(ts, x) != m->sym ||
                term_arity(ts, x) != m->arity)
                continue;
            for (uint32_t b = a + 1; b < st->n && !hit; b++) {
                term_t y = st->facts[b];
                if (term_kind(ts, y) != TERM_FUN || term_sym(ts, y) != m->sym ||
                    term_arity(ts, y) != m->arity)
                    continue;
                bool same = true;
                for (uint32_t k = 0; k < m->arity && same; k++)
                    if (k != m->pos && term_arg(ts, x, k) != term_arg(ts, y, k)) same = false;
                hit = same;
            }
        }
        bad += hit;
    }
    return bad;
}

void verify_bounded(bounded_t *b, match_t *m, const state_t *states, uint32_t n, uint32_t role,
                    uint32_t i, const verify_bounded_opts_t *o, verify_bounded_row_t *out) {
    memset(out, 0, sizeof *out);
    double t0 = now_seconds();
    match_state_t *ms = match_state_new();
    for (uint32_t k = 0; k < n; k++) {
        if (o->deadline > 0 && now_seconds() > o->deadline) break;
        out->states++;
        bool hit = match_check(m, ms, &states[k]);
        out->hits += hit;
        if (!hit && !o->misses) continue;
        int v = bounded_in_w(b, &states[k], role, i, o->max_nodes, o->deadline);
        out->miss_checked += !hit;
        if (v == BOUNDED_UNKNOWN)
            out->undecided++;
        else if (hit && !v) {
            if (!out->false_pos) out->first_false = k;
            out->false_pos++;
            if (o->stop_at_false) break;
        } else if (!hit && v)
            out->misses++;
    }
    match_state_free(ms);
    out->seconds = now_seconds() - t0;
}
