/* Unit tests for gdl/rules: the rule base built from text — `or`/`and` expansion, `not`
 * over `or`/`and` (De Morgan), per-rule variable numbering, roles, predicates, locations,
 * and the located errors for statements that are not rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gdl/rules.h"
#include "rules_fixture.h"

static game_t *load(fix_t *f, const char *text) {
    game_free(f->g);
    diag_fini(&f->d);
    diag_init(&f->d);
    f->g = game_from_text(text, strlen(text), "r.kif", &f->d);
    return f->g;
}

static game_t *load_ok(fix_t *f, const char *text) {
    game_t *g = load(f, text);
    if (!g) {
        diag_print(&f->d, stderr);
        fail_msg("game_from_text failed");
    }
    assert_int_equal(f->d.n, 0);
    return g;
}

static const char *rule_text(fix_t *f, size_t i) {
    assert_true(i < f->g->n_rules);
    sb_clear(&f->sb);
    rule_print(f->g, &f->g->rules[i], &f->sb);
    return sb_str(&f->sb);
}

/* All rules, one per line. */
static const char *all_rules(fix_t *f) {
    static char buf[4096];
    buf[0] = 0;
    for (size_t i = 0; i < f->g->n_rules; i++) {
        strncat(buf, rule_text(f, i), sizeof buf - strlen(buf) - 2);
        strcat(buf, "\n");
    }
    return buf;
}

static const char *diag_text(fix_t *f, size_t i) {
    assert_true(i < f->d.n);
    sb_clear(&f->sb);
    diag_format(&f->d, i, &f->sb);
    return sb_str(&f->sb);
}

static sym_t intern(fix_t *f, const char *s) {
    return term_intern(f->g->ts, s, strlen(s));
}

static void test_facts_and_rules(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(role a)\n(init (c 1))\n(<= (legal a (m ?x)) (true (c ?x)))");
    assert_int_equal(g->n_rules, 3);
    assert_int_equal(g->n_written, 3);
    assert_int_equal(g->rules[0].n_body, 0);
    assert_int_equal(g->rules[2].n_body, 1);
    assert_int_equal(g->rules[2].body[0].kind, LIT_POS);
    assert_int_equal(term_sym(g->ts, g->rules[2].body[0].atom), SYM_TRUE);
    assert_string_equal(all_rules(f),
                        "(role a)\n(init (c 1))\n(<= (legal a (m ?v0)) (true (c ?v0)))\n");
    assert_string_equal(g->file, "r.kif");
}

static void test_or_expansion(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(role r)\n(<= (p ?x) (q ?x) (or (r ?x) (s ?x)))");
    assert_int_equal(g->n_written, 2);
    assert_int_equal(g->n_rules, 3);
    assert_string_equal(all_rules(f), "(role r)\n"
                                      "(<= (p ?v0) (q ?v0) (r ?v0))\n"
                                      "(<= (p ?v0) (q ?v0) (s ?v0))\n");
    /* both expansions come from written rule 1 */
    assert_int_equal(g->rules[1].source, 1);
    assert_int_equal(g->rules[2].source, 1);
    assert_int_equal(g->rules[0].source, 0);
}

static void test_or_nested_and_product(void **state) {
    fix_t *f = *state;
    load_ok(f, "(<= p (or a (or b c)))");
    assert_string_equal(all_rules(f), "(<= p a)\n(<= p b)\n(<= p c)\n");
    load_ok(f, "(<= p (or a b) (or c d))");
    assert_string_equal(all_rules(f), "(<= p a c)\n(<= p a d)\n(<= p b c)\n(<= p b d)\n");
    load_ok(f, "(<= p (or (and a b) c))");
    assert_string_equal(all_rules(f), "(<= p a b)\n(<= p c)\n");
    load_ok(f, "(<= p (or a))");
    assert_string_equal(all_rules(f), "(<= p a)\n");
}

static void test_not_de_morgan(void **state) {
    fix_t *f = *state;
    /* not (A or B) = not A and not B: one rule */
    game_t *g = load_ok(f, "(<= (p ?x) (q ?x) (not (or (r ?x) (s ?x))))");
    assert_string_equal(all_rules(f), "(<= (p ?v0) (q ?v0) (not (r ?v0)) (not (s ?v0)))\n");
    assert_int_equal(g->rules[0].body[1].kind, LIT_NEG);
    assert_int_equal(g->rules[0].body[2].kind, LIT_NEG);
    /* not (A and B) = not A or not B: two rules */
    load_ok(f, "(<= (p ?x) (q ?x) (not (and (r ?x) (s ?x))))");
    assert_string_equal(all_rules(f), "(<= (p ?v0) (q ?v0) (not (r ?v0)))\n"
                                      "(<= (p ?v0) (q ?v0) (not (s ?v0)))\n");
    /* double negation */
    g = load_ok(f, "(<= (p ?x) (not (not (q ?x))))");
    assert_string_equal(all_rules(f), "(<= (p ?v0) (q ?v0))\n");
    assert_int_equal(g->rules[0].body[0].kind, LIT_POS);
    /* not over an or containing a not */
    load_ok(f, "(<= p (not (or a (not b))))");
    assert_string_equal(all_rules(f), "(<= p (not a) b)\n");
}

static void test_distinct(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(<= (p ?x ?y) (q ?x) (q ?y) (distinct ?x ?y))");
    assert_int_equal(g->rules[0].n_body, 3);
    const lit_t *l = &g->rules[0].body[2];
    assert_int_equal(l->kind, LIT_DISTINCT);
    assert_int_equal(term_sym(g->ts, l->atom), SYM_DISTINCT);
    assert_int_equal(term_arity(g->ts, l->atom), 2);
    /* distinct is not a predicate of the rule base */
    assert_int_equal(game_pred(g, SYM_DISTINCT, 2), UINT32_MAX);
    /* a negated distinct is a negative literal over the distinct atom (an equality) */
    g = load_ok(f, "(<= (p ?x ?y) (q ?x) (q ?y) (not (distinct ?x ?y)))");
    l = &g->rules[0].body[2];
    assert_int_equal(l->kind, LIT_NEG);
    assert_int_equal(term_sym(g->ts, l->atom), SYM_DISTINCT);
}

static void test_variable_numbering(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(<= (p ?y ?x) (q ?x ?y ?z))\n"
                           "(<= (r ?X) (s ?x ?Y))\n"
                           "(t ?a)");
    /* numbered in order of first occurrence, head first; restarting in every rule */
    assert_string_equal(all_rules(f), "(<= (p ?v0 ?v1) (q ?v1 ?v0 ?v2))\n"
                                      "(<= (r ?v0) (s ?v0 ?v1))\n"
                                      "(t ?v0)\n");
    assert_int_equal(g->rules[0].n_vars, 3);
    assert_int_equal(g->rules[1].n_vars, 2);
    assert_int_equal(g->rules[2].n_vars, 1);
    /* the same variable is the same term in head and body */
    assert_int_equal(term_arg(g->ts, g->rules[0].head, 0),
                     term_arg(g->ts, g->rules[0].body[0].atom, 1));
    /* so the heads of rules 0 and 1 share ?v0 */
    assert_int_equal(term_arg(g->ts, g->rules[0].head, 0), term_arg(g->ts, g->rules[1].head, 0));
    /* every expansion of an or keeps the numbering of the written rule */
    g = load_ok(f, "(<= (p ?a) (or (q ?b ?a) (r ?a)))");
    assert_int_equal(g->rules[0].n_vars, 2);
    assert_int_equal(g->rules[1].n_vars, 2);
    assert_string_equal(all_rules(f), "(<= (p ?v0) (q ?v1 ?v0))\n(<= (p ?v0) (r ?v0))\n");
}

static void test_roles(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(role white)\n(p x)\n(ROLE Black)\n(role white)\n(role random)\n"
                           "(<= (role ghost) (p x))");
    /* in the order of the role facts; duplicates and derived roles ignored */
    assert_int_equal(g->n_roles, 3);
    assert_int_equal(term_sym(g->ts, g->roles[0]), intern(f, "white"));
    assert_int_equal(term_sym(g->ts, g->roles[1]), intern(f, "black"));
    assert_int_equal(term_sym(g->ts, g->roles[2]), SYM_RANDOM);
    assert_int_equal(game_role_index(g, g->roles[1]), 1);
    assert_int_equal(game_role_index(g, term_const(g->ts, intern(f, "ghost"))), -1);
    g = load_ok(f, "(p x)");
    assert_int_equal(g->n_roles, 0);
}

static void test_predicates(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(<= (p ?x) (q ?x) (not (r ?x)))\n(p a b)\n(<= s (p a))");
    sym_t p = intern(f, "p");
    uint32_t p1 = game_pred(g, p, 1), p2 = game_pred(g, p, 2);
    assert_int_not_equal(p1, UINT32_MAX);
    assert_int_not_equal(p2, UINT32_MAX);
    assert_int_not_equal(p1, p2);
    assert_int_equal(g->preds[p1].n_rules, 1);
    assert_int_equal(g->preds[p2].n_rules, 1);
    assert_int_equal(g->preds[p1].rules[0], 0);
    assert_int_equal(g->preds[p2].rules[0], 1);
    /* body-only predicates have ids too, with no rules */
    uint32_t q = game_pred(g, intern(f, "q"), 1), r = game_pred(g, intern(f, "r"), 1);
    assert_int_not_equal(q, UINT32_MAX);
    assert_int_not_equal(r, UINT32_MAX);
    assert_int_equal(g->preds[q].n_rules, 0);
    assert_int_equal(g->preds[r].arity, 1);
    uint32_t s = game_pred(g, intern(f, "s"), 0);
    assert_int_not_equal(s, UINT32_MAX);
    assert_int_equal(game_pred_of(g, g->rules[2].head), s);
    assert_int_equal(game_pred_of(g, g->rules[0].head), p1);
    assert_int_equal(game_pred(g, p, 3), UINT32_MAX);
    assert_int_equal(game_pred(g, intern(f, "nothere"), 0), UINT32_MAX);
}

static void test_many_predicates(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    for (int i = 0; i < 300; i++)
        sb_printf(&text, "(p%d a)\n(<= (q%d ?x) (p%d ?x))\n", i, i, i);
    game_t *g = load_ok(f, sb_str(&text));
    sb_fini(&text);
    assert_int_equal(g->n_rules, 600);
    assert_int_equal(g->n_preds, 600);
    char name[16];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "q%d", i);
        uint32_t id = game_pred(g, intern(f, name), 1);
        assert_int_not_equal(id, UINT32_MAX);
        assert_int_equal(g->preds[id].rules[0], 2 * i + 1);
    }
}

static void test_zero_arity(void **state) {
    fix_t *f = *state;
    /* A term (done) is the constant done; a sentence (terminal) is a relation with no
     * arguments, a different predicate from the proposition terminal (KIF, and the
     * reference reasoner), with a warning at each place it is written. */
    game_t *g = load(f, "(<= terminal (true (done)))\n(<= p (not (terminal)))\n(<= q terminal)");
    assert_non_null(g);
    assert_int_equal(term_kind(g->ts, g->rules[0].head), TERM_SYM);
    assert_string_equal(all_rules(f),
                        "(<= terminal (true done))\n(<= p (not (terminal)))\n(<= q terminal)\n");
    term_t paren = g->rules[1].body[0].atom;
    assert_int_not_equal(paren, g->rules[0].head);
    assert_int_equal(g->rules[2].body[0].atom, g->rules[0].head);
    assert_int_equal(game_pred(g, SYM_TERMINAL, 0), game_pred_of(g, g->rules[0].head));
    assert_int_equal(g->warnings.n, 1);
    sb_clear(&f->sb);
    diag_format(&g->warnings, 0, &f->sb);
    assert_string_equal(sb_str(&f->sb),
                        "r.kif:2:12: `(terminal)` is a relation with no arguments, not the "
                        "proposition `terminal` (as the reference reads it)");
}

static void test_locations(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(role a)\n"
                           "(<= (p ?x)\n"
                           "    (q ?x)\n"
                           "    (not (r ?x)))");
    const rule_t *r = &g->rules[1];
    /* a rule is located at its head */
    assert_int_equal(r->line, 2);
    assert_int_equal(r->col, 5);
    assert_int_equal(r->body[0].line, 3);
    assert_int_equal(r->body[0].col, 5);
    /* a negative literal is located at its atom */
    assert_int_equal(r->body[1].line, 4);
    assert_int_equal(r->body[1].col, 10);
    assert_int_equal(g->rules[0].line, 1);
    assert_int_equal(g->rules[0].col, 1);
}

static void test_errors(void **state) {
    fix_t *f = *state;
    assert_null(load(f, "(role a)\n(<= ?x (p))"));
    assert_int_equal(f->d.n, 1);
    assert_string_equal(diag_text(f, 0), "r.kif:2:5: a variable cannot be the head of a rule: ?x");

    assert_null(load(f, "(<= (p) ?x)"));
    assert_string_equal(diag_text(f, 0), "r.kif:1:9: a variable cannot be a literal: ?x");

    /* an error inside `or` (a leak under LeakSanitizer once: found by the fuzzer) */
    assert_null(load(f, "(<= (p) (or a ?o))"));
    assert_int_equal(f->d.n, 1);
    assert_string_equal(diag_text(f, 0), "r.kif:1:15: a variable cannot be a literal: ?o");
    assert_null(load(f, "(<= (p) (q) (not (or a (and b ?o))))"));
    assert_int_equal(f->d.n, 1);

    assert_null(load(f, "(<= (p) (not a b))"));
    assert_string_equal(diag_text(f, 0), "r.kif:1:9: `not` takes exactly one literal: (not a b)");

    assert_null(load(f, "(<= (p ?x) (q ?x)\n   (distinct ?x))"));
    assert_string_equal(diag_text(f, 0),
                        "r.kif:2:4: `distinct` takes exactly two terms: (distinct ?x)");

    assert_null(load(f, "((f) a)"));
    assert_string_equal(diag_text(f, 0),
                        "r.kif:1:1: a compound term must start with a function symbol: ((f) a)");

    assert_null(load(f, "(p ())"));
    assert_string_equal(diag_text(f, 0), "r.kif:1:4: empty list is not a term: ()");

    assert_null(load(f, "(<=)"));
    assert_string_equal(diag_text(f, 0), "r.kif:1:1: rule without a head: (<=)");

    /* every bad statement is reported, not only the first */
    assert_null(load(f, "(<= ?x (p))\n(role a)\n(<= (p) ?y)"));
    assert_int_equal(f->d.n, 2);
    assert_int_equal(f->d.items[0].line, 1);
    assert_int_equal(f->d.items[1].line, 3);

    /* parse errors come through with their location */
    assert_null(load(f, "(role a)\n(p"));
    assert_int_equal(f->d.n, 1);
    assert_int_equal(f->d.items[0].line, 2);
}

static void test_expansion_cap(void **state) {
    fix_t *f = *state;
    /* 2^13 = 8192 alternatives is past the cap: an error, not an explosion */
    strbuf_t text;
    sb_init(&text);
    sb_puts(&text, "(<= p");
    for (int i = 0; i < 13; i++)
        sb_printf(&text, " (or a%d b%d)", i, i);
    sb_puts(&text, ")");
    assert_null(load(f, sb_str(&text)));
    assert_true(f->d.n >= 1);
    assert_non_null(strstr(f->d.items[0].msg, "disjunction expands to too many rules"));
    /* 2^12 = 4096 is fine */
    sb_clear(&text);
    sb_puts(&text, "(<= p");
    for (int i = 0; i < 12; i++)
        sb_printf(&text, " (or a%d b%d)", i, i);
    sb_puts(&text, ")");
    game_t *g = load_ok(f, sb_str(&text));
    assert_int_equal(g->n_rules, 4096);
    assert_int_equal(g->n_written, 1);
    sb_fini(&text);
}

/* A body of n literals (q ?x0) ... (q ?x(n-1)), on line 2 of the text. */
static void long_body(strbuf_t *text, unsigned n) {
    sb_clear(text);
    sb_puts(text, "(q 0)\n  (<= big");
    for (unsigned i = 0; i < n; i++)
        sb_printf(text, " (q ?x%u)", i);
    sb_puts(text, ")");
}

/* A body past RULES_MAX_BODY literals is a located error: planning it took minutes (time
 * quadratic in its length) and evaluating it overflowed the stack at 100,000 literals. */
static void test_body_cap(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    long_body(&text, RULES_MAX_BODY + 1);
    assert_null(load(f, sb_str(&text)));
    assert_int_equal(f->d.n, 1);
    assert_non_null(strstr(diag_text(f, 0), "r.kif:2:3: a rule body of more than 1000 literals: "
                                            "(<= big (q ?x0) (q ?x1)"));
    /* `or` cannot hide the length: one alternative past the cap is enough */
    sb_clear(&text);
    sb_puts(&text, "(<= big (or (q 1) (and");
    for (unsigned i = 0; i <= RULES_MAX_BODY; i++)
        sb_printf(&text, " (q ?x%u)", i);
    sb_puts(&text, ")))");
    assert_null(load(f, sb_str(&text)));
    assert_non_null(strstr(diag_text(f, 0), "a rule body of more than 1000 literals"));
    long_body(&text, RULES_MAX_BODY);
    game_t *g = load_ok(f, sb_str(&text));
    assert_int_equal(g->rules[1].n_body, RULES_MAX_BODY);
    sb_fini(&text);
}

/* (wide a a ... a) with n arguments, on line 1. */
static void wide_fact(strbuf_t *text, unsigned n) {
    sb_clear(text);
    sb_puts(text, "(wide");
    for (unsigned i = 0; i < n; i++)
        sb_puts(text, " a");
    sb_puts(text, ")");
}

/* A term past RULES_MAX_ARITY arguments is a located error: the reasoner joins a literal
 * with its arguments on the stack, and one of 1,100,000 (ggp check, 4.4 MB) overflowed it. */
static void test_arity_cap(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    wide_fact(&text, RULES_MAX_ARITY + 1);
    assert_null(load(f, sb_str(&text)));
    assert_non_null(
        strstr(diag_text(f, 0), "r.kif:1:1: a term of more than 10000 arguments: (wide a a"));
    wide_fact(&text, RULES_MAX_ARITY);
    game_t *g = load_ok(f, sb_str(&text));
    assert_int_equal(term_arity(g->ts, g->rules[0].head), RULES_MAX_ARITY);
    sb_fini(&text);
}

/* (init (c (s (s ... z)))), the init sentence nested 2 + k deep, on line 1. */
static void deep_init(strbuf_t *text, unsigned k) {
    sb_clear(text);
    sb_puts(text, "(init (c");
    for (unsigned i = 0; i < k; i++)
        sb_puts(text, " (s");
    sb_puts(text, " z");
    for (unsigned i = 0; i < k + 2; i++)
        sb_putc(text, ')');
}

/* A term nested past TERM_MAX_DEPTH is a located error, as the engines refuse to derive one
 * (every walk over terms recurses once per level); the reader's parentheses stop at 500. */
static void test_depth_cap(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    deep_init(&text, TERM_MAX_DEPTH - 1);
    assert_null(load(f, sb_str(&text)));
    assert_non_null(strstr(diag_text(f, 0), "r.kif:1:1: a term of more than 400 nesting levels: "
                                            "(init (c (s (s"));
    deep_init(&text, TERM_MAX_DEPTH + 50); /* said where the term passes the cap */
    assert_null(load(f, sb_str(&text)));
    assert_int_equal(f->d.n, 1);
    assert_non_null(strstr(diag_text(f, 0), "r.kif:1:157: a term of more than 400 nesting "));
    deep_init(&text, TERM_MAX_DEPTH - 2);
    game_t *g = load_ok(f, sb_str(&text));
    assert_int_equal(term_depth(g->ts, g->rules[0].head), TERM_MAX_DEPTH);
    sb_fini(&text);
}

static void test_ground_term(void **state) {
    fix_t *f = *state;
    game_t *g = load_ok(f, "(role a)");
    sexp_doc_t doc;
    diag_t d;
    diag_init(&d);
    const char *text = "(Mark 1 (F x)) ?v (g ?x) noop";
    assert_true(sexp_parse(g->ts, text, strlen(text), "m", &doc, &d));
    const sexp_t *e = doc.first;
    term_t t = game_ground_term(g, e);
    assert_int_not_equal(t, TERM_NONE);
    sb_clear(&f->sb);
    term_print(g->ts, t, &f->sb);
    assert_string_equal(sb_str(&f->sb), "(mark 1 (f x))");
    assert_int_equal(game_ground_term(g, e->next), TERM_NONE);
    assert_int_equal(game_ground_term(g, e->next->next), TERM_NONE);
    assert_int_equal(game_ground_term(g, e->next->next->next), term_const(g->ts, SYM_NOOP));
    sexp_doc_free(&doc);
    diag_fini(&d);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_facts_and_rules), T(test_or_expansion), T(test_or_nested_and_product),
        T(test_not_de_morgan),   T(test_distinct),     T(test_variable_numbering),
        T(test_roles),           T(test_predicates),   T(test_many_predicates),
        T(test_zero_arity),      T(test_locations),    T(test_errors),
        T(test_expansion_cap),   T(test_body_cap),     T(test_arity_cap),
        T(test_depth_cap),       T(test_ground_term),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
