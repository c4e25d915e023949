/* GDL validation and the dependency graph: see validate.h. */
#include "gdl/validate.h"
#include "gdl/bind.h"

#include "base/scc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    game_t *g;
    diag_t *d;
    strbuf_t sb;
} check_t;

static void report(check_t *c, const rule_t *r, int line, int col, const char *msg) {
    sb_clear(&c->sb);
    rule_print(c->g, r, &c->sb);
    if (c->sb.len > 70) {
        c->sb.len = 67;
        sb_puts(&c->sb, "...");
    }
    diag_add(c->d, c->g->file, line, col, "%s in rule %s", msg, sb_str(&c->sb));
}

/* ---- dependency graph: components of predicates ---- */

/* SCCs numbered so that a predicate's dependencies have smaller or equal numbers. */
static void compute_sccs(game_t *g) {
    uint32_t n = (uint32_t)g->n_preds, *start = xcalloc(n + 2, sizeof *start), *to = NULL;
    /* the edges p -> the predicates its rules read, counted then filled */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t v = 0; v < n; v++) {
            const pred_t *p = &g->preds[v];
            for (uint32_t k = 0; k < p->n_rules; k++) {
                const rule_t *r = &g->rules[p->rules[k]];
                for (uint32_t i = 0; i < r->n_body; i++) {
                    if (r->body[i].kind == LIT_DISTINCT) continue;
                    if (pass == 0)
                        start[v + 2]++;
                    else
                        to[start[v + 1]++] = game_pred_of(g, r->body[i].atom);
                }
            }
        }
        if (pass == 0) {
            for (uint32_t v = 0; v < n; v++)
                start[v + 2] += start[v + 1];
            to = xmalloc((start[n + 1] + 1) * sizeof *to);
        }
    }
    uint32_t *comp = xmalloc((n + 1) * sizeof *comp);
    g->n_sccs = scc_find(n, start, to, NULL, comp, NULL);
    for (uint32_t v = 0; v < n; v++)
        g->preds[v].scc = comp[v];
    free(start), free(to), free(comp);
}

/* ---- the rule graph: rule -> rules whose heads unify with one of its body literals ---- */

typedef struct {
    uint32_t to;
    bool negative;
    uint32_t lit;
} edge_t;

typedef struct {
    edge_t **out;
    uint32_t *n_out;
    size_t *cap_out;
} rule_graph_t;

/* The unifications rule_graph_build tries: for every body literal, the rules of its
 * predicate. The largest corpus game (alexChess) needs 17,121; a rule base made of huge
 * expanded disjunctions can need millions, and is refused rather than checked for minutes. */
#define MAX_RULE_PAIRS 1000000u

static size_t rule_pairs(const game_t *g) {
    size_t pairs = 0;
    for (size_t r = 0; r < g->n_rules; r++)
        for (uint32_t i = 0; i < g->rules[r].n_body; i++)
            if (g->rules[r].body[i].kind != LIT_DISTINCT)
                pairs += g->preds[game_pred_of(g, g->rules[r].body[i].atom)].n_rules;
    return pairs;
}

static void rule_graph_build(const game_t *g, rule_graph_t *rg) {
    size_t n = g->n_rules;
    rg->out = xcalloc(n + 1, sizeof *rg->out);
    rg->n_out = xcalloc(n + 1, sizeof *rg->n_out);
    rg->cap_out = xcalloc(n + 1, sizeof *rg->cap_out);
    for (size_t r = 0; r < n; r++) {
        const rule_t *rule = &g->rules[r];
        for (uint32_t i = 0; i < rule->n_body; i++) {
            const lit_t *l = &rule->body[i];
            if (l->kind == LIT_DISTINCT) continue;
            const pred_t *q = &g->preds[game_pred_of(g, l->atom)];
            for (uint32_t k = 0; k < q->n_rules; k++) {
                const rule_t *r2 = &g->rules[q->rules[k]];
                if (!bind_unifiable_apart(g->ts, l->atom, rule->n_vars, r2->head, r2->n_vars))
                    continue;
                GROW(rg->out[r], rg->cap_out[r], rg->n_out[r] + 1);
                rg->out[r][rg->n_out[r]++] = (edge_t){q->rules[k], l->kind == LIT_NEG, i};
            }
        }
    }
}

static void rule_graph_free(const game_t *g, rule_graph_t *rg) {
    for (size_t r = 0; r < g->n_rules; r++)
        free(rg->out[r]);
    free(rg->out);
    free(rg->n_out);
    free(rg->cap_out);
}

/* Rule components in dependency order; recursion is decided on the rule graph, so that
 * (goal r 100) :- (not (goal r 0)) is neither recursive nor unstratified. */
static void compute_rule_sccs(game_t *g, const rule_graph_t *rg) {
    uint32_t n = (uint32_t)g->n_rules, *start = xmalloc((n + 2) * sizeof *start);
    start[0] = 0;
    for (uint32_t r = 0; r < n; r++)
        start[r + 1] = start[r] + rg->n_out[r];
    uint32_t *to = xmalloc((start[n] + 1) * sizeof *to), *comp = xmalloc((n + 1) * sizeof *comp);
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t k = 0; k < rg->n_out[r]; k++)
            to[start[r] + k] = rg->out[r][k].to;
    free(g->rule_order);
    g->rule_order = xmalloc((n + 1) * sizeof *g->rule_order);
    g->n_rule_sccs = scc_find(n, start, to, NULL, comp, g->rule_order);
    bool *cyclic = xmalloc((n + 1) * sizeof *cyclic);
    scc_cyclic(n, start, to, comp, g->n_rule_sccs, cyclic);
    g->acyclic = true;
    for (size_t i = 0; i < g->n_preds; i++)
        g->preds[i].recursive = false;
    for (uint32_t r = 0; r < n; r++) {
        g->rules[r].scc = comp[r];
        g->rules[r].recursive = cyclic[r];
        if (cyclic[r]) {
            g->preds[game_pred_of(g, g->rules[r].head)].recursive = true;
            g->acyclic = false;
        }
    }
    free(start), free(to), free(comp), free(cyclic);
}

/* Layers by SCC order: a predicate is as dynamic as the most dynamic one it uses. */
static void compute_layers(game_t *g) {
    uint32_t *order = xmalloc((g->n_preds + 1) * sizeof *order);
    for (size_t i = 0; i < g->n_preds; i++)
        order[i] = (uint32_t)i;
    /* counting sort by scc */
    uint32_t *cnt = xcalloc(g->n_sccs + 1, sizeof *cnt);
    for (size_t i = 0; i < g->n_preds; i++)
        cnt[g->preds[i].scc + 1]++;
    for (uint32_t s = 0; s < g->n_sccs; s++)
        cnt[s + 1] += cnt[s];
    for (size_t i = 0; i < g->n_preds; i++)
        order[cnt[g->preds[i].scc]++] = (uint32_t)i;
    free(cnt);
    for (size_t i = 0; i < g->n_preds; i++) {
        pred_t *p = &g->preds[i];
        p->layer = p->sym == SYM_TRUE   ? LAYER_STATE
                   : p->sym == SYM_DOES ? LAYER_MOVE
                                        : LAYER_STATIC;
    }
    /* Iterate to a fixpoint: within an SCC the layers must agree. */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t k = 0; k < g->n_preds; k++) {
            pred_t *p = &g->preds[order[k]];
            for (uint32_t j = 0; j < p->n_rules; j++) {
                const rule_t *r = &g->rules[p->rules[j]];
                for (uint32_t i = 0; i < r->n_body; i++) {
                    if (r->body[i].kind == LIT_DISTINCT) continue;
                    layer_t l = g->preds[game_pred_of(g, r->body[i].atom)].layer;
                    if (l > p->layer) p->layer = l, changed = true;
                }
            }
        }
    }
    free(order);
}

/* ---- checks ---- */

static bool var_in(const term_store_t *ts, term_t t, term_t var) {
    if (t == var) return true;
    if (term_is_ground(ts, t) || term_kind(ts, t) != TERM_FUN) return false;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        if (var_in(ts, term_arg(ts, t, i), var)) return true;
    return false;
}

/* Calls back for each distinct variable of t. */
static void each_var(const term_store_t *ts, term_t t, void (*fn)(void *, term_t), void *ctx) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        fn(ctx, t);
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        each_var(ts, term_arg(ts, t, i), fn, ctx);
}

static bool bound_positively(const game_t *g, const rule_t *r, term_t var) {
    for (uint32_t i = 0; i < r->n_body; i++)
        if (r->body[i].kind == LIT_POS && var_in(g->ts, r->body[i].atom, var)) return true;
    return false;
}

typedef struct {
    check_t *c;
    const rule_t *r;
    int line, col;
    const char *where;
    bool bad;
} safety_t;

static void safety_var(void *ctx, term_t v) {
    safety_t *s = ctx;
    if (s->bad || bound_positively(s->c->g, s->r, v)) return;
    char msg[160];
    snprintf(msg, sizeof msg, "unsafe variable ?v%u in %s: it occurs in no positive literal",
             term_sym(s->c->g->ts, v), s->where);
    report(s->c, s->r, s->line, s->col, msg);
    s->bad = true;
}

static void check_safety(check_t *c, const rule_t *r) {
    safety_t s = {.c = c, .r = r, .line = r->line, .col = r->col, .where = "the head"};
    each_var(c->g->ts, r->head, safety_var, &s);
    for (uint32_t i = 0; i < r->n_body && !s.bad; i++) {
        if (r->body[i].kind == LIT_POS) continue;
        s.line = r->body[i].line;
        s.col = r->body[i].col;
        s.where = r->body[i].kind == LIT_NEG ? "a negated literal" : "a distinct";
        each_var(c->g->ts, r->body[i].atom, safety_var, &s);
    }
}

static bool is_keyword_head(sym_t s) {
    return s == SYM_TRUE || s == SYM_DOES || s == SYM_DISTINCT || s == SYM_NOT || s == SYM_OR ||
           s == SYM_AND || s == SYM_IMPLIES;
}

static void check_placement(check_t *c, const rule_t *r) {
    const term_store_t *ts = c->g->ts;
    sym_t h = term_sym(ts, r->head);
    if (is_keyword_head(h)) {
        char msg[100];
        snprintf(msg, sizeof msg, "`%s` cannot be defined by a rule", term_sym_name(ts, h));
        report(c, r, r->line, r->col, msg);
    }
    if (h == SYM_ROLE &&
        (r->n_body || !term_is_ground(ts, r->head) || term_arity(ts, r->head) != 1))
        report(c, r, r->line, r->col, "`role` must be a ground fact (role NAME)");
    for (uint32_t i = 0; i < r->n_body; i++) {
        const lit_t *l = &r->body[i];
        sym_t s = term_sym(ts, l->atom);
        uint32_t a = term_arity(ts, l->atom);
        if (s == SYM_INIT || s == SYM_NEXT || s == SYM_LEGAL || s == SYM_GOAL ||
            s == SYM_TERMINAL || s == SYM_SEES || s == SYM_ROLE) {
            /* GDL forbids these in bodies; legal/goal/terminal/role are evaluable though, and
             * published games do use them, so only init/next/sees are errors. */
            if (s == SYM_INIT || s == SYM_NEXT || s == SYM_SEES) {
                char msg[100];
                snprintf(msg, sizeof msg, "`%s` cannot occur in a rule body", term_sym_name(ts, s));
                report(c, r, l->line, l->col, msg);
            }
        }
        if ((s == SYM_TRUE && a != 1) || (s == SYM_DOES && a != 2)) {
            /* Published games have this defect; the literal can never hold, as in the
             * reference reasoner, so it is a warning. */
            char msg[120];
            snprintf(msg, sizeof msg, "`%s` takes %d argument%s (this literal is never true)",
                     term_sym_name(ts, s), s == SYM_TRUE ? 1 : 2, s == SYM_TRUE ? "" : "s");
            diag_t *errors = c->d;
            c->d = &c->g->warnings;
            report(c, r, l->line, l->col, msg);
            c->d = errors;
        }
    }
}

/* Negation inside a cycle of the rule graph makes the rules unstratified. */
static void check_stratified(check_t *c, const rule_graph_t *rg, uint32_t ri) {
    const game_t *g = c->g;
    const rule_t *r = &g->rules[ri];
    for (uint32_t k = 0; k < rg->n_out[ri]; k++) {
        const edge_t *e = &rg->out[ri][k];
        if (!e->negative || g->rules[e->to].scc != r->scc) continue;
        report(c, r, r->body[e->lit].line, r->body[e->lit].col,
               "negation inside recursion (the rules are not stratified)");
        return;
    }
}

typedef struct {
    check_t *c;
    const rule_t *r;
    const lit_t *lit;
    bool *recursive_lit;
    bool bad;
} recursion_t;

/* Whether t is one of the head's arguments itself (not only inside one of them). */
static bool head_argument(const term_store_t *ts, term_t head, term_t t) {
    for (uint32_t i = 0; i < term_arity(ts, head); i++)
        if (term_arg(ts, head, i) == t) return true;
    return false;
}

/* A variable that the head holds only inside a function term would let the recursion build
 * ever larger terms ((<= (p (f ?x)) (p ?x)) never ends), so it must be a whole head argument
 * or bound by a positive literal outside the recursion. The specification and ggp-base's
 * validator ask more (the recursive literal's argument itself must be ground, a head
 * argument, or an argument of a literal outside the recursion): every game they accept
 * passes here. */
static void recursion_var(void *ctx, term_t v) {
    recursion_t *s = ctx;
    const game_t *g = s->c->g;
    if (s->bad || head_argument(g->ts, s->r->head, v)) return;
    for (uint32_t i = 0; i < s->r->n_body; i++) {
        const lit_t *l = &s->r->body[i];
        if (l->kind == LIT_POS && !s->recursive_lit[i] && var_in(g->ts, l->atom, v)) return;
    }
    report(s->c, s->r, s->lit->line, s->lit->col,
           "recursion restriction violated: a variable of a recursive literal is neither an "
           "argument of the head nor bound by a non-recursive positive literal");
    s->bad = true;
}

static void check_recursion_restriction(check_t *c, const rule_graph_t *rg, uint32_t ri) {
    const game_t *g = c->g;
    const rule_t *r = &g->rules[ri];
    if (!r->recursive) return;
    bool *rec = xcalloc(r->n_body + 1, sizeof *rec);
    for (uint32_t k = 0; k < rg->n_out[ri]; k++)
        if (g->rules[rg->out[ri][k].to].scc == r->scc) rec[rg->out[ri][k].lit] = true;
    recursion_t s = {.c = c, .r = r, .recursive_lit = rec};
    for (uint32_t i = 0; i < r->n_body && !s.bad; i++) {
        if (!rec[i] || r->body[i].kind != LIT_POS) continue;
        s.lit = &r->body[i];
        term_t atom = r->body[i].atom;
        for (uint32_t j = 0; j < term_arity(g->ts, atom) && !s.bad; j++) {
            term_t arg = term_arg(g->ts, atom, j);
            if (!head_argument(g->ts, r->head, arg)) each_var(g->ts, arg, recursion_var, &s);
        }
    }
    free(rec);
}

static void check_layers(check_t *c) {
    const game_t *g = c->g;
    static const struct {
        sym_t sym;
        layer_t max;
        const char *msg;
    } limits[] = {
        {SYM_INIT, LAYER_STATIC, "`init` depends on `true` or `does`"},
        {SYM_ROLE, LAYER_STATIC, "`role` depends on the state"},
        {SYM_LEGAL, LAYER_STATE, "`legal` depends on `does`"},
        {SYM_GOAL, LAYER_STATE, "`goal` depends on `does`"},
        {SYM_TERMINAL, LAYER_STATE, "`terminal` depends on `does`"},
    };
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++)
        for (size_t p = 0; p < g->n_preds; p++) {
            const pred_t *pr = &g->preds[p];
            if (pr->sym != limits[k].sym || pr->layer <= limits[k].max) continue;
            const rule_t *r = pr->n_rules ? &g->rules[pr->rules[0]] : NULL;
            if (r) report(c, r, r->line, r->col, limits[k].msg);
        }
}

#define MAX_ERRORS 100 /* reported per game; past them, checking stops */

static bool validate_x(game_t *g, diag_t *errors, bool roles_required);

bool validate_game(game_t *g, diag_t *errors) {
    return validate_x(g, errors, true);
}

static bool validate_x(game_t *g, diag_t *errors, bool roles_required) {
    check_t c = {.g = g, .d = errors};
    sb_init(&c.sb);
    size_t before = errors->n;
    size_t pairs = rule_pairs(g);
    if (pairs > MAX_RULE_PAIRS) {
        diag_add(errors, g->file, 1, 1,
                 "the rules are too large to check: %zu rules (%u as written) whose body "
                 "literals match %zu rule heads (at most %u)",
                 g->n_rules, g->n_written, pairs, MAX_RULE_PAIRS);
        sb_fini(&c.sb);
        return false;
    }
    compute_sccs(g);
    rule_graph_t rg;
    rule_graph_build(g, &rg);
    compute_rule_sccs(g, &rg);
    compute_layers(g);
    g->gdl2 = game_pred(g, SYM_SEES, 2) != UINT32_MAX;
    for (uint32_t i = 0; i < g->n_roles; i++)
        if (term_sym(g->ts, g->roles[i]) == SYM_RANDOM) g->gdl2 = true;
    if (g->n_roles == 0)
        diag_add(roles_required ? errors : &g->warnings, g->file, 1, 1,
                 roles_required ? "the game has no `role` facts"
                                : "the game has no `role` facts: nothing can play it");
    for (size_t i = 0; i < g->n_rules; i++) {
        const rule_t *r = &g->rules[i];
        if (errors->n - before >= MAX_ERRORS) {
            /* Expanded disjunctions repeat one defect thousands of times: say it once. */
            diag_add(errors, g->file, r->line, r->col,
                     "too many errors; %zu more rules were not checked", g->n_rules - i);
            break;
        }
        check_placement(&c, r);
        check_safety(&c, r);
        check_stratified(&c, &rg, (uint32_t)i);
        check_recursion_restriction(&c, &rg, (uint32_t)i);
    }
    rule_graph_free(g, &rg);
    check_layers(&c);
    sb_fini(&c.sb);
    return errors->n == before;
}

static game_t *load_text(const char *text, size_t len, const char *file, diag_t *d,
                         bool roles_required) {
    game_t *g = game_from_text(text, len, file, d);
    if (g && !validate_x(g, d, roles_required)) {
        game_free(g);
        return NULL;
    }
    return g;
}

game_t *game_load_text(const char *text, size_t len, const char *file, diag_t *d) {
    return load_text(text, len, file, d, true);
}

static game_t *load_file(const char *path, diag_t *d, bool roles_required) {
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        diag_add(d, path, 0, 0, "cannot read: %s", strerror(errno));
        return NULL;
    }
    game_t *g = load_text(text, len, path, d, roles_required);
    free(text);
    return g;
}

game_t *game_load(const char *path, diag_t *d) {
    return load_file(path, d, true);
}

game_t *game_load_rules(const char *path, diag_t *d) {
    return load_file(path, d, false);
}
