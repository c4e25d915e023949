/* Unit tests for gdl/sexp (the flex scanner and bison parser): comments, case folding,
 * variables, nesting and locations; malformed input with the exact diagnostic text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gdl/sexp.h"

typedef struct {
    term_store_t *ts;
    sexp_doc_t doc;
    diag_t d;
    strbuf_t sb;
} fix_t;

static int setup(void **state) {
    fix_t *f = calloc(1, sizeof *f);
    f->ts = term_store_new();
    diag_init(&f->d);
    sb_init(&f->sb);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fix_t *f = *state;
    sexp_doc_free(&f->doc);
    diag_fini(&f->d);
    sb_fini(&f->sb);
    term_store_free(f->ts);
    free(f);
    return 0;
}

static bool parse_n(fix_t *f, const char *text, size_t len) {
    sexp_doc_free(&f->doc);
    diag_fini(&f->d);
    diag_init(&f->d);
    return sexp_parse(f->ts, text, len, "t.kif", &f->doc, &f->d);
}

static bool parse(fix_t *f, const char *text) {
    return parse_n(f, text, strlen(text));
}

static sym_t intern(fix_t *f, const char *s) {
    return term_intern(f->ts, s, strlen(s));
}

/* The whole document printed, top-level expressions separated by " | ". */
static const char *doc_text(fix_t *f) {
    sb_clear(&f->sb);
    for (const sexp_t *e = f->doc.first; e; e = e->next) {
        if (e != f->doc.first) sb_puts(&f->sb, " | ");
        sexp_print(f->ts, e, &f->sb);
    }
    return sb_str(&f->sb);
}

/* Parsing must fail with exactly one diagnostic, equal to expected. */
static void expect_error(fix_t *f, const char *text, size_t len, const char *expected) {
    assert_false(parse_n(f, text, len));
    assert_int_equal(f->d.n, 1);
    sb_clear(&f->sb);
    diag_format(&f->d, 0, &f->sb);
    assert_string_equal(sb_str(&f->sb), expected);
    /* a failed parse leaves an empty document */
    assert_null(f->doc.first);
    assert_int_equal(f->doc.n, 0);
}

static void test_empty(void **state) {
    fix_t *f = *state;
    assert_true(parse(f, ""));
    assert_int_equal(f->doc.n, 0);
    assert_null(f->doc.first);
    assert_true(parse(f, "  \n\t ; only a comment\n;; and another"));
    assert_int_equal(f->doc.n, 0);
    assert_int_equal(f->d.n, 0);
}

static void test_atoms_and_lists(void **state) {
    fix_t *f = *state;
    assert_true(parse(f, "(role xplayer) (init (cell 1 1 b)) terminal 100"));
    assert_int_equal(f->doc.n, 4);
    assert_string_equal(doc_text(f), "(role xplayer) | (init (cell 1 1 b)) | terminal | 100");
    const sexp_t *e = f->doc.first;
    assert_int_equal(e->kind, SEXP_LIST);
    assert_int_equal(e->n, 2);
    assert_int_equal(e->first->kind, SEXP_ATOM);
    assert_int_equal(e->first->sym, SYM_ROLE);
    assert_int_equal(sexp_child(e, 1)->sym, intern(f, "xplayer"));
    assert_null(sexp_child(e, 2));
    const sexp_t *last = e->next->next->next;
    assert_int_equal(last->kind, SEXP_ATOM);
    assert_string_equal(term_sym_name(f->ts, last->sym), "100");
    assert_null(last->next);
    /* the empty list is a list */
    assert_true(parse(f, "()"));
    assert_int_equal(f->doc.first->kind, SEXP_LIST);
    assert_int_equal(f->doc.first->n, 0);
    assert_string_equal(doc_text(f), "()");
}

static void test_comments(void **state) {
    fix_t *f = *state;
    assert_true(parse(f, "; header comment (with parens\n"
                         "(role x) ; trailing ) comment\n"
                         "(p ;inside a list\n"
                         "   a);end"));
    assert_int_equal(f->doc.n, 2);
    assert_string_equal(doc_text(f), "(role x) | (p a)");
}

static void test_case_folding(void **state) {
    fix_t *f = *state;
    assert_true(parse(f, "(ROLE XPlayer) (<= (LEGAL ?R NoOp) (Role ?r))"));
    const sexp_t *e = f->doc.first;
    assert_int_equal(e->first->sym, SYM_ROLE);
    assert_int_equal(sexp_child(e, 1)->sym, intern(f, "xplayer"));
    assert_string_equal(doc_text(f), "(role xplayer) | (<= (legal ?r noop) (role ?r))");
    const sexp_t *rule = e->next;
    assert_int_equal(rule->first->sym, SYM_IMPLIES);
    const sexp_t *head = sexp_child(rule, 1);
    assert_int_equal(head->first->sym, SYM_LEGAL);
    /* ?R and ?r are the same variable */
    assert_int_equal(sexp_child(head, 1)->sym, sexp_child(sexp_child(rule, 2), 1)->sym);
    assert_int_equal(sexp_child(head, 2)->sym, SYM_NOOP);
}

static void test_variables(void **state) {
    fix_t *f = *state;
    assert_true(parse(f, "(f ?x ?Long_Name-1 ?x)"));
    const sexp_t *e = f->doc.first;
    const sexp_t *x1 = sexp_child(e, 1), *y = sexp_child(e, 2), *x2 = sexp_child(e, 3);
    assert_int_equal(x1->kind, SEXP_VAR);
    assert_int_equal(y->kind, SEXP_VAR);
    /* the name is stored without the '?' */
    assert_string_equal(term_sym_name(f->ts, x1->sym), "x");
    assert_string_equal(term_sym_name(f->ts, y->sym), "long_name-1");
    assert_int_equal(x1->sym, x2->sym);
    /* a variable name and an atom of the same spelling share the symbol, not the kind */
    assert_true(parse(f, "(x ?x)"));
    assert_int_equal(f->doc.first->first->kind, SEXP_ATOM);
    assert_int_equal(sexp_child(f->doc.first, 1)->kind, SEXP_VAR);
    assert_string_equal(doc_text(f), "(x ?x)");
}

static void test_nesting(void **state) {
    fix_t *f = *state;
    assert_true(parse(f, "(a (b (c (d e)) f) () g)"));
    const sexp_t *a = f->doc.first;
    assert_int_equal(a->n, 4);
    const sexp_t *b = sexp_child(a, 1);
    assert_int_equal(b->n, 3);
    const sexp_t *c = sexp_child(b, 1);
    assert_int_equal(c->n, 2);
    const sexp_t *d = sexp_child(c, 1);
    assert_int_equal(d->kind, SEXP_LIST);
    assert_int_equal(d->n, 2);
    assert_int_equal(sexp_child(d, 1)->sym, intern(f, "e"));
    assert_int_equal(sexp_child(a, 2)->n, 0);
    assert_ptr_equal(a->last, sexp_child(a, 3));
    assert_string_equal(doc_text(f), "(a (b (c (d e)) f) () g)");
    /* spacing is canonical whatever the input */
    assert_true(parse(f, "(  a\n\t(b\r\n c )  )"));
    assert_string_equal(doc_text(f), "(a (b c))");
}

static void test_max_depth_accepted(void **state) {
    fix_t *f = *state;
    char *text = malloc(2 * SEXP_MAX_DEPTH + 2);
    memset(text, '(', SEXP_MAX_DEPTH);
    memset(text + SEXP_MAX_DEPTH, ')', SEXP_MAX_DEPTH);
    assert_true(parse_n(f, text, 2 * SEXP_MAX_DEPTH));
    assert_int_equal(f->doc.n, 1);
    free(text);
}

static void test_locations(void **state) {
    fix_t *f = *state;
    assert_true(parse(f, "; comment\n"
                         "(role x)\n"
                         "  (<= (p ?x)\n"
                         "\t(q ?x))"));
    const sexp_t *role = f->doc.first;
    assert_int_equal(role->line, 2);
    assert_int_equal(role->col, 1);
    assert_int_equal(sexp_child(role, 1)->line, 2);
    assert_int_equal(sexp_child(role, 1)->col, 7);
    const sexp_t *rule = role->next;
    assert_int_equal(rule->line, 3);
    assert_int_equal(rule->col, 3);
    const sexp_t *head = sexp_child(rule, 1);
    assert_int_equal(head->line, 3);
    assert_int_equal(head->col, 7);
    assert_int_equal(sexp_child(head, 1)->col, 10); /* ?x */
    const sexp_t *body = sexp_child(rule, 2);
    assert_int_equal(body->line, 4);
    assert_int_equal(body->col, 2); /* a tab counts as one column */
    assert_string_equal(f->doc.file, "t.kif");
}

static void test_err_unclosed(void **state) {
    fix_t *f = *state;
    const char *t = "(role x";
    expect_error(f, t, strlen(t),
                 "t.kif:1:7: syntax error, unexpected end of file, expecting symbol or variable or "
                 "'(' or ')'");
    t = "(a\n  (b";
    expect_error(f, t, strlen(t),
                 "t.kif:2:4: syntax error, unexpected end of file, expecting symbol or variable or "
                 "'(' or ')'");
}

static void test_err_stray_close(void **state) {
    fix_t *f = *state;
    const char *t = ")";
    expect_error(f, t, strlen(t),
                 "t.kif:1:1: syntax error, unexpected ')', expecting end of file or symbol or "
                 "variable or '('");
    t = "(a (b c)\n  )\n )";
    expect_error(f, t, strlen(t),
                 "t.kif:3:2: syntax error, unexpected ')', expecting end of file or symbol or "
                 "variable or '('");
}

static void test_err_lone_question_mark(void **state) {
    fix_t *f = *state;
    const char *t = "(role ?)";
    expect_error(f, t, strlen(t),
                 "t.kif:1:7: syntax error, unexpected '?' without a name, expecting symbol or "
                 "variable or '(' or ')'");
    t = "(role x)\n(p ? x)";
    expect_error(f, t, strlen(t),
                 "t.kif:2:4: syntax error, unexpected '?' without a name, expecting symbol or "
                 "variable or '(' or ')'");
    t = "?";
    expect_error(f, t, strlen(t),
                 "t.kif:1:1: syntax error, unexpected '?' without a name, expecting end of file or "
                 "symbol or variable or '('");
}

static void test_err_nul_byte(void **state) {
    fix_t *f = *state;
    expect_error(f, "(role\0 x)", 9, "t.kif:1:6: NUL byte in input");
    expect_error(f, "(a)\n(b c\0)", 9, "t.kif:2:5: NUL byte in input");
    expect_error(f, "\0", 1, "t.kif:1:1: NUL byte in input");
}

static void test_err_too_deep(void **state) {
    fix_t *f = *state;
    size_t n = SEXP_MAX_DEPTH + 1;
    char *text = malloc(2 * n + 1);
    memset(text, '(', n);
    memset(text + n, ')', n);
    char expected[80];
    snprintf(expected, sizeof expected, "t.kif:1:%zu: parentheses nested too deeply", n);
    expect_error(f, text, 2 * n, expected);
    free(text);
    /* far deeper input (a stack-smashing attempt) is the same error, not a crash */
    n = 200000;
    text = malloc(n);
    memset(text, '(', n);
    expect_error(f, text, n, expected);
    free(text);
}

static void test_err_unterminated_string(void **state) {
    fix_t *f = *state;
    const char *t = "(a b)\n\n   (c \"unterminated\n";
    expect_error(f, t, strlen(t),
                 "t.kif:3:7: syntax error, unexpected unterminated string, expecting symbol or "
                 "variable or '(' or ')'");
}

static void test_err_file_name(void **state) {
    fix_t *f = *state;
    sexp_doc_free(&f->doc);
    assert_false(sexp_parse(f->ts, ")", 1, "dir/game.kif", &f->doc, &f->d));
    sb_clear(&f->sb);
    diag_format(&f->d, 0, &f->sb);
    assert_true(strncmp(sb_str(&f->sb), "dir/game.kif:1:1: ", 18) == 0);
}

/* Garbage never crashes: every byte value 1..255 in a few positions. */
static void test_all_bytes(void **state) {
    fix_t *f = *state;
    char text[16];
    for (int c = 1; c < 256; c++) {
        int n = snprintf(text, sizeof text, "(a %c b)", c);
        bool ok = parse_n(f, text, (size_t)n);
        if (!ok) {
            assert_int_equal(f->d.n, 1);
            assert_int_equal(f->d.items[0].line, 1);
        } else {
            assert_int_equal(f->doc.n, 1);
        }
    }
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_empty),
        T(test_atoms_and_lists),
        T(test_comments),
        T(test_case_folding),
        T(test_variables),
        T(test_nesting),
        T(test_max_depth_accepted),
        T(test_locations),
        T(test_err_unclosed),
        T(test_err_stray_close),
        T(test_err_lone_question_mark),
        T(test_err_nul_byte),
        T(test_err_too_deep),
        T(test_err_unterminated_string),
        T(test_err_file_name),
        T(test_all_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
