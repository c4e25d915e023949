/* Grounded formulas decided on states by Z3: see formcheck.h. */
#include "regress/formcheck.h"
#include "logic/z3.h"

#include <stdlib.h>
#include <string.h>

struct formcheck {
    z3_t *z;
    z3_solver_t *solver; /* prove mode: the one solver; check mode: NULL */
    z3_solver_t **per;   /* check mode: each formula's own solver */
    const vocab_t *v;
    uint32_t n;
    z3_term_t *sel; /* selectors of asserted formulas */
    uint32_t n_sel;
    size_t cap_sel;
    z3_term_t *terms; /* formulas as plain terms, for the model evaluator */
    uint32_t n_terms;
    size_t cap_terms;
    uint8_t *truth;    /* scratch: per fluent, whether the state being checked holds it */
    z3_term_t *assume; /* scratch: n + selectors */
    size_t cap_assume;
};

formcheck_t *formcheck_new(const vocab_t *v, bool prove) {
    formcheck_t *f = xcalloc(1, sizeof *f);
    f->z = z3_new();
    /* Per-state checks get one incremental solver per formula (formcheck_assert): a
     * solver holding other formulas would have to model them too at every check. */
    if (prove) f->solver = z3_solver_new(f->z, true);
    f->v = v;
    f->n = vocab_count(v);
    for (uint32_t i = 0; i < f->n; i++) /* every fluent, as every state assumes them */
        (void)z3_var(f->z, i);
    f->truth = xmalloc(f->n + 1);
    return f;
}

void formcheck_free(formcheck_t *f) {
    if (!f) return;
    if (f->solver)
        z3_solver_free(f->solver);
    else
        for (uint32_t i = 0; i < f->n_sel; i++)
            z3_solver_free(f->per[i]);
    z3_free(f->z);
    free(f->per);
    free(f->sel);
    free(f->terms);
    free(f->truth);
    free(f->assume);
    free(f);
}

uint32_t formcheck_assert(formcheck_t *f, const circuit_t *c, pn_t root) {
    z3_solver_t *s = f->solver;
    if (!s) {
        s = z3_solver_new(f->z, false);
        f->per = xrealloc(f->per, (f->n_sel + 1) * sizeof *f->per);
        f->per[f->n_sel] = s;
    }
    GROW(f->sel, f->cap_sel, f->n_sel + 1);
    f->sel[f->n_sel] = z3_assert_selected(s, c, root);
    return f->n_sel++;
}

/* f->truth := the state's fluents; false when one is outside the vocabulary. */
static bool fill_truth(formcheck_t *f, const state_t *st) {
    memset(f->truth, 0, f->n + 1);
    for (uint32_t i = 0; i < st->n; i++) {
        uint32_t k = vocab_index(f->v, st->facts[i]);
        if (k == UINT32_MAX) return false;
        f->truth[k] = 1;
    }
    return true;
}

int formcheck_holds(formcheck_t *f, uint32_t h, const state_t *st) {
    if (!fill_truth(f, st)) return -1;
    GROW(f->assume, f->cap_assume, f->n + 1);
    for (uint32_t i = 0; i < f->n; i++)
        f->assume[i] = z3_lit(f->z, i, f->truth[i]);
    f->assume[f->n] = f->sel[h];
    return z3_check(f->solver ? f->solver : f->per[h], f->assume, f->n + 1, 0);
}

uint32_t formcheck_terms(formcheck_t *f, const circuit_t *c, const pn_t *roots, uint32_t n) {
    uint32_t first = f->n_terms;
    z3_enc_t *e = z3_enc_new(f->z, c); /* shared: common parts built once */
    GROW(f->terms, f->cap_terms, f->n_terms + n + 1);
    for (uint32_t i = 0; i < n; i++) {
        z3_term_t t = z3_enc_term(e, roots[i]);
        z3_keep(f->z, t); /* past the encoder */
        f->terms[f->n_terms++] = t;
    }
    z3_enc_free(e);
    return first;
}

int formcheck_eval(formcheck_t *f, uint32_t t, const state_t *st) {
    if (!fill_truth(f, st)) return -1;
    return z3_eval(f->z, f->terms[t], f->truth, f->n);
}

int formcheck_eval_bits(formcheck_t *f, uint32_t t, const uint64_t *words) {
    const uint32_t *bit = vocab_bits(f->v);
    if (!bit) return -1;
    for (uint32_t k = 0; k < f->n; k++)
        f->truth[k] = bit[k] != UINT32_MAX && (words[bit[k] >> 6] >> (bit[k] & 63) & 1);
    return z3_eval(f->z, f->terms[t], f->truth, f->n);
}

int formcheck_sat(formcheck_t *f, const uint32_t *hs, uint32_t n, double deadline) {
    GROW(f->assume, f->cap_assume, n + 1);
    for (uint32_t i = 0; i < n; i++)
        f->assume[i] = f->sel[hs[i]];
    if (!f->solver) return n == 1 ? z3_check(f->per[hs[0]], f->assume, 1, deadline) : -1;
    return z3_check(f->solver, f->assume, n, deadline);
}
