/* The Z3 bridge: see smt.h. Reference counting is explicit (Z3_mk_context_rc): every AST
 * kept is inc_ref'd once and dec_ref'd in smt_free. */
#include "smt.h"

#include <stdio.h>
#include <stdlib.h>
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
    return s;
}

void smt_free(smt_t *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->n; i++) {
        Z3_dec_ref(s->ctx, s->pos[i]);
        Z3_dec_ref(s->ctx, s->neg[i]);
    }
    for (uint32_t i = 0; i < s->n_sel; i++) {
        Z3_dec_ref(s->ctx, s->sel[i]);
        if (!s->prove) Z3_solver_dec_ref(s->ctx, s->per[i]);
    }
    if (s->prove) Z3_solver_dec_ref(s->ctx, s->solver);
    free(s->per);
    Z3_del_context(s->ctx);
    free(s->pos);
    free(s->neg);
    free(s->sel);
    free(s->assume);
    free(s);
}

/* The literal standing for circuit node n (Tseitin: each AND/OR node gets a fresh
 * variable defined by clauses, so Z3 receives plain clauses). memo holds referenced
 * literals (NULL: not yet built). */
static Z3_ast lit_of(smt_t *s, const circuit_t *c, pn_t n, Z3_ast *memo);

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

static Z3_ast lit_of(smt_t *s, const circuit_t *c, pn_t n, Z3_ast *memo) {
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
        r = neg(s, lit_of(s, c, pn_kid(c, n, 0), memo));
        break;
    default: {
        bool is_and = pn_op(c, n) == PN_AND;
        uint32_t k = pn_arity(c, n);
        char name[32];
        snprintf(name, sizeof name, "t%u", s->n_aux++);
        r = keep(s,
                 Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), Z3_mk_bool_sort(s->ctx)));
        Z3_ast nr = neg(s, r);
        Z3_ast *big = xmalloc((k + 1) * sizeof *big);
        for (uint32_t i = 0; i < k; i++) {
            Z3_ast x = lit_of(s, c, pn_kid(c, n, i), memo);
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
    }
    }
    memo[n] = r;
    return r;
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
    Z3_ast f = lit_of(s, c, root, memo);
    char name[32];
    snprintf(name, sizeof name, "sel%u", s->n_sel);
    Z3_ast sel =
        keep(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, name), Z3_mk_bool_sort(s->ctx)));
    Z3_ast nsel = neg(s, sel);
    Z3_ast two[2] = {nsel, f};
    clause(s, two, 2);
    Z3_dec_ref(s->ctx, nsel);
    for (uint32_t i = 0; i < size; i++)
        if (memo[i]) Z3_dec_ref(s->ctx, memo[i]);
    free(memo);
    GROW(s->sel, s->cap_sel, s->n_sel + 1);
    s->sel[s->n_sel] = sel;
    return s->n_sel++;
}

static int check(smt_t *s, Z3_solver solver, uint32_t n) {
    Z3_lbool r = Z3_solver_check_assumptions(s->ctx, solver, n, s->assume);
    return r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
}

int smt_holds(smt_t *s, uint32_t h, const state_t *st) {
    GROW(s->assume, s->cap_assume, s->n + 1);
    for (uint32_t i = 0; i < s->n; i++)
        s->assume[i] = s->neg[i];
    for (uint32_t i = 0; i < st->n; i++) {
        uint32_t f = vocab_index(s->v, st->facts[i]);
        if (f == UINT32_MAX) return -1;
        s->assume[f] = s->pos[f];
    }
    s->assume[s->n] = s->sel[h];
    return check(s, s->prove ? s->solver : s->per[h], s->n + 1);
}

int smt_holds_within(smt_t *s, uint32_t h, const state_t *st, double seconds) {
    Z3_solver solver = s->prove ? s->solver : s->per[h];
    double ms = seconds * 1000;
    if (ms < 1) ms = 1;
    /* Z3's own timer: a check that would outlast the caller's clock answers unknown */
    Z3_params p = Z3_mk_params(s->ctx);
    Z3_params_inc_ref(s->ctx, p);
    Z3_params_set_uint(s->ctx, p, Z3_mk_string_symbol(s->ctx, "timeout"),
                       ms > 4e9 ? 4000000000u : (unsigned)ms);
    Z3_solver_set_params(s->ctx, solver, p);
    int r = smt_holds(s, h, st);
    Z3_params_set_uint(s->ctx, p, Z3_mk_string_symbol(s->ctx, "timeout"), 4294967295u);
    Z3_solver_set_params(s->ctx, solver, p);
    Z3_params_dec_ref(s->ctx, p);
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
