/* Building the rule base from S-expressions: terms, per-rule variable numbering, the
 * expansion of `or`/`and`/`not` in bodies into plain conjunctions, predicate ids. */
#include "gdl/rules.h"
#include "gdl/bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cap on the number of rules one written rule may expand into (or-products). */
#define MAX_EXPANSION 4096

typedef struct {
    lit_t *lits;
    uint32_t n;
    size_t cap;
} conj_t;

typedef struct {
    conj_t *alts;
    uint32_t n;
    size_t cap;
} dnf_t;

typedef struct {
    game_t *g;
    diag_t *d;
    sym_t *var_names;
    uint32_t n_vars;
    size_t cap_vars;
    bool failed;
    term_t *true_facts; /* arguments of stray (true X) facts */
    uint32_t true_fact_vars[64];
    uint32_t n_true_facts;
    size_t cap_true_facts;
} build_t;

static void fail_at(build_t *b, const sexp_t *e, const char *msg, const term_store_t *ts) {
    strbuf_t sb;
    sb_init(&sb);
    sexp_print(ts, e, &sb);
    if (sb.len > 60) {
        sb.len = 57;
        sb_puts(&sb, "...");
    }
    diag_add(b->d, b->g->file, e->line, e->col, "%s: %s", msg, sb_str(&sb));
    sb_fini(&sb);
    b->failed = true;
}

static uint32_t var_number(build_t *b, sym_t name) {
    for (uint32_t i = 0; i < b->n_vars; i++)
        if (b->var_names[i] == name) return i;
    GROW(b->var_names, b->cap_vars, b->n_vars + 1);
    b->var_names[b->n_vars] = name;
    return b->n_vars++;
}

/* e passes one of the reader's caps: "a <what> of more than <cap> <units>". */
static void fail_past_cap(build_t *b, const sexp_t *e, const char *what, unsigned cap,
                          const char *units) {
    char msg[80];
    snprintf(msg, sizeof msg, "a %s of more than %u %s", what, cap, units);
    fail_at(b, e, msg, b->g->ts);
}

/* Converts an expression to a term; lists must start with a symbol. */
static term_t to_term(build_t *b, const sexp_t *e) {
    term_store_t *ts = b->g->ts;
    if (e->kind == SEXP_ATOM) return term_const(ts, e->sym);
    if (e->kind == SEXP_VAR) return term_var(ts, var_number(b, e->sym));
    if (e->n == 0) {
        fail_at(b, e, "empty list is not a term", ts);
        return TERM_NONE;
    }
    if (e->first->kind != SEXP_ATOM) {
        fail_at(b, e, "a compound term must start with a function symbol", ts);
        return TERM_NONE;
    }
    uint32_t n = e->n - 1;
    if (n > RULES_MAX_ARITY) {
        fail_past_cap(b, e, "term", RULES_MAX_ARITY, "arguments");
        return TERM_NONE;
    }
    term_t *args = xmalloc((n ? n : 1) * sizeof *args);
    uint32_t i = 0;
    for (const sexp_t *c = e->first->next; c; c = c->next) {
        args[i] = to_term(b, c);
        if (args[i++] == TERM_NONE) {
            free(args);
            return TERM_NONE;
        }
    }
    term_t t = term_fun(ts, e->first->sym, args, n);
    free(args);
    if (term_depth(ts, t) > TERM_MAX_DEPTH) { /* (said once, where the term passes it) */
        fail_past_cap(b, e, "term", TERM_MAX_DEPTH, "nesting levels");
        return TERM_NONE;
    }
    return t;
}

/* A sentence written `(p)` is a relation with no arguments, which KIF and the reference
 * reasoner (ggp-base) keep apart from the proposition `p`: `(not (terminal))` does not
 * ask `terminal`. It gets its own symbol, named "(p)", and a warning says so. */
static term_t sentence_term(build_t *b, const sexp_t *e) {
    if (e->kind != SEXP_LIST || e->n != 1 || e->first->kind != SEXP_ATOM) return to_term(b, e);
    term_store_t *ts = b->g->ts;
    strbuf_t sb; /* a copy: interning may move the names */
    sb_init(&sb);
    sb_printf(&sb, "(%s)", term_sym_name(ts, e->first->sym));
    sym_t s = term_intern(ts, sb.data, sb.len);
    diag_add(&b->g->warnings, b->g->file, e->line, e->col,
             "`%s` is a relation with no arguments, not the proposition `%.*s` (as the reference "
             "reads it)",
             sb.data, (int)sb.len - 2, sb.data + 1);
    sb_fini(&sb);
    return term_const(ts, s);
}

static void conj_push(conj_t *c, lit_t l) {
    GROW(c->lits, c->cap, c->n + 1);
    c->lits[c->n++] = l;
}

static void dnf_free(dnf_t *d) {
    for (uint32_t i = 0; i < d->n; i++)
        free(d->alts[i].lits);
    free(d->alts);
    memset(d, 0, sizeof *d);
}

static void dnf_push(dnf_t *d, conj_t c) {
    GROW(d->alts, d->cap, d->n + 1);
    d->alts[d->n++] = c;
}

static conj_t conj_concat(const conj_t *a, const conj_t *b) {
    conj_t c = {0};
    for (uint32_t i = 0; i < a->n; i++)
        conj_push(&c, a->lits[i]);
    for (uint32_t i = 0; i < b->n; i++)
        conj_push(&c, b->lits[i]);
    return c;
}

/* a := a AND b (cross product); false when it would grow past the cap. */
static bool dnf_and(dnf_t *a, dnf_t *b) {
    if ((size_t)a->n * b->n > MAX_EXPANSION) return false;
    dnf_t r = {0};
    for (uint32_t i = 0; i < a->n; i++)
        for (uint32_t j = 0; j < b->n; j++)
            dnf_push(&r, conj_concat(&a->alts[i], &b->alts[j]));
    dnf_free(a);
    *a = r;
    return true;
}

/* a := a OR b, taking b's alternatives. */
static bool dnf_or(dnf_t *a, dnf_t *b) {
    if ((size_t)a->n + b->n > MAX_EXPANSION) return false;
    for (uint32_t i = 0; i < b->n; i++)
        dnf_push(a, b->alts[i]);
    free(b->alts);
    memset(b, 0, sizeof *b);
    return true;
}

static dnf_t dnf_true(void) {
    dnf_t d = {0};
    dnf_push(&d, (conj_t){0});
    return d;
}

static bool literal_dnf(build_t *b, const sexp_t *e, bool neg, dnf_t *out);

/* Combines the children of an and/or (conjunctive when conj is true). */
static bool combine_children(build_t *b, const sexp_t *e, bool neg, bool conj, dnf_t *out) {
    *out = conj ? dnf_true() : (dnf_t){0};
    for (const sexp_t *c = e->first->next; c; c = c->next) {
        dnf_t sub;
        if (!literal_dnf(b, c, neg, &sub)) {
            dnf_free(out);
            return false;
        }
        bool ok = conj ? dnf_and(out, &sub) : dnf_or(out, &sub);
        dnf_free(&sub);
        if (!ok) {
            fail_at(b, e, "disjunction expands to too many rules", b->g->ts);
            dnf_free(out);
            return false;
        }
    }
    return true;
}

static bool literal_dnf(build_t *b, const sexp_t *e, bool neg, dnf_t *out) {
    *out = (dnf_t){0};
    term_store_t *ts = b->g->ts;
    sym_t head = (e->kind == SEXP_LIST && e->n > 0 && e->first->kind == SEXP_ATOM) ? e->first->sym
                 : e->kind == SEXP_ATOM                                            ? e->sym
                                                                                   : SYM_NONE;
    if (e->kind == SEXP_VAR) {
        fail_at(b, e, "a variable cannot be a literal", ts);
        return false;
    }
    if (e->kind == SEXP_LIST && (head == SYM_OR || head == SYM_AND)) {
        /* De Morgan: under negation `or` becomes a conjunction and `and` a disjunction. */
        bool conj = (head == SYM_AND) != neg;
        return combine_children(b, e, neg, conj, out);
    }
    if (e->kind == SEXP_LIST && head == SYM_NOT) {
        if (e->n != 2) {
            fail_at(b, e, "`not` takes exactly one literal", ts);
            return false;
        }
        return literal_dnf(b, e->first->next, !neg, out);
    }
    if (head == SYM_DISTINCT && (e->kind != SEXP_LIST || e->n != 3)) { /* or a bare atom */
        fail_at(b, e, "`distinct` takes exactly two terms", ts);
        return false;
    }
    term_t atom = sentence_term(b, e);
    if (atom == TERM_NONE) return false;
    lit_t l = {.atom = atom, .line = e->line, .col = e->col};
    l.kind = head == SYM_DISTINCT && !neg ? LIT_DISTINCT : neg ? LIT_NEG : LIT_POS;
    *out = dnf_true();
    conj_push(&out->alts[0], l);
    return true;
}

uint32_t game_pred(const game_t *g, sym_t sym, uint32_t arity) {
    return keyset_find(&g->pred_sigs, keyset_pair(sym, arity));
}

uint32_t game_pred_of(const game_t *g, term_t atom) {
    const term_store_t *ts = g->ts;
    return game_pred(g, term_sym(ts, atom), term_arity(ts, atom));
}

static uint32_t pred_add(game_t *g, term_t atom) {
    uint32_t id =
        keyset_add(&g->pred_sigs, keyset_pair(term_sym(g->ts, atom), term_arity(g->ts, atom)));
    if (id < g->n_preds) return id;
    GROW(g->preds, g->cap_preds, g->n_preds + 1);
    pred_t *p = &g->preds[g->n_preds++];
    memset(p, 0, sizeof *p);
    p->sym = term_sym(g->ts, atom);
    p->arity = term_arity(g->ts, atom);
    return id;
}

static void append_rule(game_t *g, term_t head, const lit_t *body, uint32_t n_body, uint32_t n_vars,
                        int line, int col) {
    GROW(g->rules, g->cap_rules, g->n_rules + 1);
    rule_t *r = &g->rules[g->n_rules];
    memset(r, 0, sizeof *r);
    r->head = head;
    r->n_body = n_body;
    r->body = xmalloc((n_body ? n_body : 1) * sizeof *r->body);
    if (n_body) memcpy(r->body, body, n_body * sizeof *r->body);
    r->n_vars = n_vars;
    r->source = g->n_written;
    r->line = line;
    r->col = col;
    uint32_t hp = pred_add(g, head);
    pred_t *p = &g->preds[hp];
    GROW(p->rules, p->cap_rules, p->n_rules + 1);
    p->rules[p->n_rules++] = (uint32_t)g->n_rules;
    for (uint32_t i = 0; i < n_body; i++)
        if (body[i].kind != LIT_DISTINCT) pred_add(g, body[i].atom);
    g->n_rules++;
}

/* Whether some alternative of a body has grown past RULES_MAX_BODY literals. */
static bool body_too_long(const dnf_t *body) {
    for (uint32_t i = 0; i < body->n; i++)
        if (body->alts[i].n > RULES_MAX_BODY) return true;
    return false;
}

static void add_rule(build_t *b, term_t head, const conj_t *body, const sexp_t *src) {
    append_rule(b->g, head, body->lits, body->n, b->n_vars, src->line, src->col);
}

static bool is_head_term(const term_store_t *ts, term_t t) {
    return !term_is_var(ts, t);
}

static void read_statement(build_t *b, const sexp_t *e) {
    term_store_t *ts = b->g->ts;
    b->n_vars = 0;
    bool is_rule = e->kind == SEXP_LIST && e->n > 0 && e->first->kind == SEXP_ATOM &&
                   e->first->sym == SYM_IMPLIES;
    const sexp_t *head_e = is_rule ? e->first->next : e;
    if (!head_e) {
        fail_at(b, e, "rule without a head", ts);
        return;
    }
    term_t head = sentence_term(b, head_e);
    if (head == TERM_NONE) return;
    if (!is_head_term(ts, head)) {
        fail_at(b, head_e, "a variable cannot be the head of a rule", ts);
        return;
    }
    sym_t hs = term_sym(ts, head);
    if (hs == SYM_TRUE || hs == SYM_DOES) {
        /* Published games contain such stray statements; the reference reasoner ignores
         * them (the state and the joint move define these relations), and so do we. */
        diag_add(&b->g->warnings, b->g->file, head_e->line, head_e->col,
                 "a statement defining `%s` is not GDL; read as a fact that always holds",
                 term_sym_name(ts, hs));
        if (hs == SYM_TRUE && !is_rule && term_arity(ts, head) == 1) {
            GROW(b->true_facts, b->cap_true_facts, b->n_true_facts + 1);
            b->true_facts[b->n_true_facts] = term_arg(ts, head, 0);
            b->true_fact_vars[b->n_true_facts < 64 ? b->n_true_facts : 63] = b->n_vars;
            b->n_true_facts++;
        }
        b->g->n_written++;
        return;
    }
    dnf_t body = dnf_true();
    if (is_rule) {
        for (const sexp_t *c = head_e->next; c && !b->failed; c = c->next) {
            dnf_t lit;
            if (!literal_dnf(b, c, false, &lit)) break;
            if (!dnf_and(&body, &lit)) fail_at(b, e, "disjunction expands to too many rules", ts);
            dnf_free(&lit);
            if (!b->failed && body_too_long(&body))
                fail_past_cap(b, e, "rule body", RULES_MAX_BODY, "literals");
        }
    }
    if (!b->failed)
        for (uint32_t i = 0; i < body.n; i++)
            add_rule(b, head, &body.alts[i], head_e);
    dnf_free(&body);
    b->g->n_written++;
}

static void collect_roles(game_t *g) {
    for (size_t i = 0; i < g->n_rules; i++) {
        rule_t *r = &g->rules[i];
        const term_store_t *ts = g->ts;
        if (term_sym(ts, r->head) != SYM_ROLE || term_arity(ts, r->head) != 1 || r->n_body)
            continue;
        term_t role = term_arg(ts, r->head, 0);
        if (game_role_index(g, role) >= 0) continue;
        g->roles = xrealloc(g->roles, (g->n_roles + 1) * sizeof *g->roles);
        g->roles[g->n_roles++] = role;
    }
}

/* ---- stray (true X) facts ----
 * The reference reasoner keeps such a statement in its knowledge base, where it makes
 * (true X) hold in every state. We get the same meaning by resolving every positive
 * (true T) literal that unifies with X away, as an extra rule. */

static void resolve_with_fact(game_t *g, size_t ri, uint32_t li, term_t fact, uint32_t fact_vars) {
    const rule_t *r = &g->rules[ri];
    uint32_t n_vars = r->n_vars + fact_vars;
    bind_t s;
    bind_init(&s, n_vars + 1);
    s.unify_steps = 100000;
    term_t f = term_shift_vars(g->ts, fact, r->n_vars);
    if (bind_unify(&s, g->ts, term_fun(g->ts, SYM_TRUE, &f, 1), r->body[li].atom, NULL, NULL)) {
        lit_t *body = xmalloc((r->n_body + 1) * sizeof *body);
        uint32_t n = 0;
        for (uint32_t i = 0; i < r->n_body; i++) {
            if (i == li) continue;
            body[n] = g->rules[ri].body[i];
            body[n].atom = bind_resolve(&s, g->ts, body[n].atom);
            n++;
        }
        term_t head = bind_resolve(&s, g->ts, g->rules[ri].head);
        int line = g->rules[ri].line, col = g->rules[ri].col;
        append_rule(g, head, body, n, n_vars, line, col);
        free(body);
    }
    bind_fini(&s);
}

static void expand_true_facts(game_t *g, build_t *b) {
    size_t cap = g->n_rules * 4 + 1000;
    for (size_t ri = 0; ri < g->n_rules && ri < cap; ri++)
        for (uint32_t li = 0; li < g->rules[ri].n_body; li++) {
            const lit_t *l = &g->rules[ri].body[li];
            if (l->kind != LIT_POS || term_sym(g->ts, l->atom) != SYM_TRUE) continue;
            for (uint32_t k = 0; k < b->n_true_facts && k < 64; k++)
                resolve_with_fact(g, ri, li, b->true_facts[k], b->true_fact_vars[k]);
        }
}

game_t *game_from_sexp(term_store_t *ts, const sexp_doc_t *doc, const char *file, diag_t *d) {
    game_t *g = xcalloc(1, sizeof *g);
    g->ts = ts;
    g->file = xstrdup(file ? file : "<input>");
    build_t b = {.g = g, .d = d};
    size_t before = d->n;
    /* Keep going after an error: report every malformed statement at once. */
    for (const sexp_t *e = doc->first; e; e = e->next) {
        b.failed = false;
        read_statement(&b, e);
    }
    free(b.var_names);
    expand_true_facts(g, &b);
    free(b.true_facts);
    if (d->n > before) {
        game_free(g);
        return NULL;
    }
    collect_roles(g);
    return g;
}

game_t *game_from_text(const char *text, size_t len, const char *file, diag_t *d) {
    term_store_t *ts = term_store_new();
    sexp_doc_t doc;
    size_t before = d->n;
    if (!sexp_parse(ts, text, len, file, &doc, d) || d->n > before) {
        sexp_doc_free(&doc);
        term_store_free(ts);
        return NULL;
    }
    game_t *g = game_from_sexp(ts, &doc, file, d);
    sexp_doc_free(&doc);
    return g;
}

void game_free(game_t *g) {
    if (!g) return;
    for (size_t i = 0; i < g->n_rules; i++)
        free(g->rules[i].body);
    for (size_t i = 0; i < g->n_preds; i++)
        free(g->preds[i].rules);
    free(g->rules);
    free(g->preds);
    keyset_fini(&g->pred_sigs);
    free(g->roles);
    free(g->rule_order);
    diag_fini(&g->warnings);
    free(g->file);
    term_store_free(g->ts);
    free(g);
}

term_t game_ground_term(game_t *g, const sexp_t *e) {
    diag_t d;
    diag_init(&d);
    build_t b = {.g = g, .d = &d};
    term_t t = to_term(&b, e);
    free(b.var_names);
    diag_fini(&d);
    if (t != TERM_NONE && !term_is_ground(g->ts, t)) return TERM_NONE;
    return t;
}

int game_role_index(const game_t *g, term_t role) {
    for (uint32_t i = 0; i < g->n_roles; i++)
        if (g->roles[i] == role) return (int)i;
    return -1;
}

void rule_print_parts(const term_store_t *ts, term_t head, uint32_t n_body, rule_lit_fn lit,
                      const void *ctx, strbuf_t *out) {
    if (n_body == 0) {
        term_print(ts, head, out);
        return;
    }
    sb_puts(out, "(<= ");
    term_print(ts, head, out);
    for (uint32_t i = 0; i < n_body; i++) {
        bool negative = false;
        term_t atom = lit(ctx, i, &negative);
        sb_puts(out, negative ? " (not " : " ");
        term_print(ts, atom, out);
        if (negative) sb_putc(out, ')');
    }
    sb_putc(out, ')');
}

static term_t rule_lit(const void *ctx, uint32_t i, bool *negative) {
    const lit_t *l = &((const rule_t *)ctx)->body[i];
    *negative = l->kind == LIT_NEG;
    return l->atom;
}

void rule_print(const game_t *g, const rule_t *r, strbuf_t *out) {
    rule_print_parts(g->ts, r->head, r->n_body, rule_lit, r, out);
}
