/* The Z3 bridge: see smt.h. Reference counting is explicit (Z3_mk_context_rc): every AST
 * kept is inc_ref'd once and dec_ref'd in smt_free. */
#include "regress/smt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <z3.h>

struct smt {
    Z3_context ctx;
    Z3_solver solver; /* prove mode: the one solver; check mode: NULL */
    Z3_solver target; /* where clauses go */
    Z3_solver *per;   /* check mode: each formula's own solver */
    bool prove;
    const vocab_t *v;
    uint32_t n;
    Z3_ast *pos, *neg; /* per fluent: p and (not p) */
    Z3_ast *sel;       /* selectors of asserted formulas */
    Z3_ast *terms;     /* formulas as plain terms, for the model evaluator (smt_terms) */
    uint32_t n_terms;
    Z3_func_decl *decl; /* per fluent: its constant's declaration (models) */
    uint8_t *truth;     /* scratch: per fluent, whether the state being checked holds it */
    uint32_t n_sel;
    size_t cap_sel;
    Z3_ast *assume; /* scratch: n + selectors */
    size_t cap_assume;
    uint32_t n_aux; /* Tseitin variables made */
};

static void on_error(Z3_context c, Z3_error_code e) {
    die("z3: %s", Z3_get_error_msg(c, e));
}

static Z3_ast keep(smt_t *s, Z3_ast a) {
    Z3_inc_ref(s->ctx, a);
    return a;
}

smt_t *smt_new(const vocab_t *v, bool prove) {
    smt_t *s = xcalloc(1, sizeof *s);
    Z3_config cfg = Z3_mk_config();
    s->ctx = Z3_mk_context_rc(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(s->ctx, on_error);
    if (prove) {
        /* Hard propositional queries: Z3's SAT engine directly (the clauses are CNF). */
        Z3_tactic t = Z3_mk_tactic(s->ctx, "sat");
        Z3_tactic_inc_ref(s->ctx, t);
        s->solver = Z3_mk_solver_from_tactic(s->ctx, t);
        Z3_tactic_dec_ref(s->ctx, t);
        Z3_solver_inc_ref(s->ctx, s->solver);
    }
    /* Per-state checks get one incremental solver per formula (smt_assert): a solver
     * holding other formulas would have to model them too at every check. */
    s->prove = prove;
    s->v = v;
    s->n = vocab_count(v);
    s->pos = xmalloc((s->n + 1) * sizeof *s->pos);
    s->neg = xmalloc((s->n + 1) * sizeof *s->neg);
    Z3_sort b = Z3_mk_bool_sort(s->ctx);
    for (uint32_t i = 0; i < s->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%u", i);
        s->pos[i] = keep(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), b));
        s->neg[i] = keep(s, Z3_mk_not(s->ctx, s->pos[i]));
    }
    s->decl = xmalloc((s->n + 1) * sizeof *s->decl);
    s->truth = xmalloc(s->n + 1);
    for (uint32_t i = 0; i < s->n; i++) {
        s->decl[i] = Z3_get_app_decl(s->ctx, Z3_to_app(s->ctx, s->pos[i]));
        Z3_inc_ref(s->ctx, Z3_func_decl_to_ast(s->ctx, s->decl[i]));
    }
    return s;
}

void smt_free(smt_t *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->n; i++) {
        Z3_dec_ref(s->ctx, s->pos[i]);
        Z3_dec_ref(s->ctx, s->neg[i]);
        Z3_dec_ref(s->ctx, Z3_func_decl_to_ast(s->ctx, s->decl[i]));
    }
    for (uint32_t i = 0; i < s->n_sel; i++) {
        Z3_dec_ref(s->ctx, s->sel[i]);
        if (!s->prove) Z3_solver_dec_ref(s->ctx, s->per[i]);
    }
    for (uint32_t i = 0; i < s->n_terms; i++)
        Z3_dec_ref(s->ctx, s->terms[i]);
    if (s->prove) Z3_solver_dec_ref(s->ctx, s->solver);
    free(s->per);
    free(s->terms);
    free(s->decl);
    free(s->truth);
    Z3_del_context(s->ctx);
    free(s->pos);
    free(s->neg);
    free(s->sel);
    free(s->assume);
    free(s);
}

static Z3_ast term_of(smt_t *s, const circuit_t *c, pn_t n, Z3_ast *memo, bool tseitin);

static void clause(smt_t *s, Z3_ast *lits, uint32_t k) {
    Z3_ast cl = k == 1 ? lits[0] : Z3_mk_or(s->ctx, k, lits);
    Z3_inc_ref(s->ctx, cl);
    Z3_solver_assert(s->ctx, s->target, cl);
    Z3_dec_ref(s->ctx, cl);
}

/* not a, referenced (the caller releases it). */
static Z3_ast neg(smt_t *s, Z3_ast a) {
    return keep(s, Z3_mk_not(s->ctx, a));
}

/* An and/or node as a fresh variable t defined by clauses asserted in s->target (Tseitin),
 * so that Z3 receives plain clauses; referenced. */
static Z3_ast tseitin_node(smt_t *s, const circuit_t *c, pn_t n, Z3_ast *memo) {
    bool is_and = pn_op(c, n) == PN_AND;
    uint32_t k = pn_arity(c, n);
    char name[32];
    snprintf(name, sizeof name, "t%u", s->n_aux++);
    Z3_ast r =
        keep(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), Z3_mk_bool_sort(s->ctx)));
    Z3_ast nr = neg(s, r);
    Z3_ast *big = xmalloc((k + 1) * sizeof *big);
    for (uint32_t i = 0; i < k; i++) {
        Z3_ast x = term_of(s, c, pn_kid(c, n, i), memo, true);
        Z3_ast nx = neg(s, x);
        /* AND: t -> x_i; OR: x_i -> t */
        Z3_ast two[2] = {is_and ? nr : nx, is_and ? x : r};
        clause(s, two, 2);
        big[i] = is_and ? nx : keep(s, x);
        if (!is_and) Z3_dec_ref(s->ctx, nx);
    }
    /* AND: (and x_i) -> t; OR: t -> (or x_i) */
    big[k] = is_and ? r : nr;
    clause(s, big, k + 1);
    for (uint32_t i = 0; i < k; i++)
        Z3_dec_ref(s->ctx, big[i]);
    Z3_dec_ref(s->ctx, nr);
    free(big);
    return r;
}

/* An and/or node as a plain term (for the model evaluator); referenced. */
static Z3_ast plain_node(smt_t *s, const circuit_t *c, pn_t n, Z3_ast *memo) {
    uint32_t k = pn_arity(c, n);
    Z3_ast *kids = xmalloc(k * sizeof *kids);
    for (uint32_t i = 0; i < k; i++)
        kids[i] = term_of(s, c, pn_kid(c, n, i), memo, false);
    Z3_ast r =
        keep(s, pn_op(c, n) == PN_AND ? Z3_mk_and(s->ctx, k, kids) : Z3_mk_or(s->ctx, k, kids));
    free(kids);
    return r;
}

/* Circuit node n as a Z3 term, referenced and remembered in memo (NULL: not yet built);
 * and/or nodes become Tseitin variables or plain terms. */
static Z3_ast term_of(smt_t *s, const circuit_t *c, pn_t n, Z3_ast *memo, bool tseitin) {
    if (memo[n]) return memo[n];
    Z3_ast r;
    switch (pn_op(c, n)) {
    case PN_CONST:
        r = keep(s, n == PN_TRUE ? Z3_mk_true(s->ctx) : Z3_mk_false(s->ctx));
        break;
    case PN_VAR:
        r = keep(s, s->pos[pn_fluent(c, n)]);
        break;
    case PN_NOT:
        r = neg(s, term_of(s, c, pn_kid(c, n, 0), memo, tseitin));
        break;
    default:
        r = tseitin ? tseitin_node(s, c, n, memo) : plain_node(s, c, n, memo);
    }
    memo[n] = r;
    return r;
}

static void release(smt_t *s, Z3_ast *memo, uint32_t size) {
    for (uint32_t i = 0; i <= size; i++)
        if (memo[i]) Z3_dec_ref(s->ctx, memo[i]), memo[i] = NULL;
}

uint32_t smt_assert(smt_t *s, const circuit_t *c, pn_t root) {
    uint32_t size = circuit_size(c);
    if (s->prove)
        s->target = s->solver;
    else {
        /* the plain incremental solver: about 3x faster per state check than the default
         * combined solver, which dispatches on every call */
        s->target = Z3_mk_simple_solver(s->ctx);
        Z3_solver_inc_ref(s->ctx, s->target);
        s->per = xrealloc(s->per, (s->n_sel + 1) * sizeof *s->per);
        s->per[s->n_sel] = s->target;
    }
    Z3_ast *memo = xcalloc(size + 1, sizeof *memo);
    Z3_ast f = term_of(s, c, root, memo, true);
    char name[32];
    snprintf(name, sizeof name, "sel%u", s->n_sel);
    Z3_ast sel =
        keep(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), Z3_mk_bool_sort(s->ctx)));
    Z3_ast nsel = neg(s, sel);
    Z3_ast two[2] = {nsel, f};
    clause(s, two, 2);
    Z3_dec_ref(s->ctx, nsel);
    release(s, memo, size);
    free(memo);
    GROW(s->sel, s->cap_sel, s->n_sel + 1);
    s->sel[s->n_sel] = sel;
    return s->n_sel++;
}

static int check(smt_t *s, Z3_solver solver, uint32_t n) {
    Z3_lbool r = Z3_solver_check_assumptions(s->ctx, solver, n, s->assume);
    return r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
}

/* s->truth := the state's fluents; false when one is outside the vocabulary. */
static bool fill_truth(smt_t *s, const state_t *st) {
    memset(s->truth, 0, s->n + 1);
    for (uint32_t i = 0; i < st->n; i++) {
        uint32_t f = vocab_index(s->v, st->facts[i]);
        if (f == UINT32_MAX) return false;
        s->truth[f] = 1;
    }
    return true;
}

int smt_holds(smt_t *s, uint32_t h, const state_t *st) {
    if (!fill_truth(s, st)) return -1;
    GROW(s->assume, s->cap_assume, s->n + 1);
    for (uint32_t i = 0; i < s->n; i++)
        s->assume[i] = s->truth[i] ? s->pos[i] : s->neg[i];
    s->assume[s->n] = s->sel[h];
    return check(s, s->prove ? s->solver : s->per[h], s->n + 1);
}

uint32_t smt_terms(smt_t *s, const circuit_t *c, const pn_t *roots, uint32_t n) {
    uint32_t size = circuit_size(c), first = s->n_terms;
    Z3_ast *memo = xcalloc(size + 1, sizeof *memo); /* shared: common parts built once */
    s->terms = xrealloc(s->terms, (s->n_terms + n + 1) * sizeof *s->terms);
    for (uint32_t i = 0; i < n; i++)
        s->terms[s->n_terms++] = keep(s, term_of(s, c, roots[i], memo, false));
    release(s, memo, size);
    free(memo);
    return first;
}

int smt_eval(smt_t *s, uint32_t t, const state_t *st) {
    if (!fill_truth(s, st)) return -1;
    Z3_model m = Z3_mk_model(s->ctx);
    Z3_model_inc_ref(s->ctx, m);
    Z3_ast yes = Z3_mk_true(s->ctx), no = Z3_mk_false(s->ctx);
    Z3_inc_ref(s->ctx, yes);
    Z3_inc_ref(s->ctx, no);
    /* every fluent gets a value, so the evaluation leaves nothing open */
    for (uint32_t i = 0; i < s->n; i++)
        Z3_add_const_interp(s->ctx, m, s->decl[i], s->truth[i] ? yes : no);
    Z3_ast out = NULL;
    int r = -1;
    if (Z3_model_eval(s->ctx, m, s->terms[t], true, &out)) {
        Z3_inc_ref(s->ctx, out);
        r = Z3_is_eq_ast(s->ctx, out, yes) ? 1 : Z3_is_eq_ast(s->ctx, out, no) ? 0 : -1;
        Z3_dec_ref(s->ctx, out);
    }
    Z3_dec_ref(s->ctx, yes);
    Z3_dec_ref(s->ctx, no);
    Z3_model_dec_ref(s->ctx, m);
    return r;
}

int smt_sat(smt_t *s, const uint32_t *hs, uint32_t n) {
    GROW(s->assume, s->cap_assume, n + 1);
    for (uint32_t i = 0; i < n; i++)
        s->assume[i] = s->sel[hs[i]];
    if (!s->prove) return n == 1 ? check(s, s->per[hs[0]], 1) : -1;
    return check(s, s->solver, n);
}

const char *smt_version(void) {
    static char buf[64];
    unsigned a, b, c, d;
    Z3_get_version(&a, &b, &c, &d);
    snprintf(buf, sizeof buf, "%u.%u.%u", a, b, c);
    return buf;
}
