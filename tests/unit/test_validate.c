/* Unit tests for gdl/validate: every GDL restriction violated once, each reported with the
 * location of the offending rule or literal; the dependency graph facts (acyclic,
 * recursive predicates, layers, GDL-II); loading the project's games. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gdl/validate.h"
#include "rules_fixture.h"

/* Builds the rule base (which must be well-formed) and validates it. */
static bool validate(fix_t *f, const char *text) {
    game_free(f->g);
    diag_fini(&f->d);
    diag_init(&f->d);
    f->g = game_from_text(text, strlen(text), "v.kif", &f->d);
    if (!f->g) {
        diag_print(&f->d, stderr);
        fail_msg("not a well-formed rule base");
    }
    assert_int_equal(f->d.n, 0);
    return validate_game(f->g, &f->d);
}

static void validate_ok(fix_t *f, const char *text) {
    if (!validate(f, text)) {
        diag_print(&f->d, stderr);
        fail_msg("expected a valid game");
    }
    assert_int_equal(f->d.n, 0);
}

/* Validation must fail with a diagnostic at line:col whose message contains `what`. */
static void expect_violation(fix_t *f, const char *text, int line, int col, const char *what) {
    assert_false(validate(f, text));
    assert_true(f->d.n >= 1);
    for (size_t i = 0; i < f->d.n; i++) {
        const diag_item_t *it = &f->d.items[i];
        if (it->line == line && it->col == col && strstr(it->msg, what)) {
            assert_string_equal(it->file, "v.kif");
            return;
        }
    }
    diag_print(&f->d, stderr);
    fail_msg("no diagnostic at %d:%d containing \"%s\"", line, col, what);
}

static uint32_t pred(fix_t *f, const char *name, uint32_t arity) {
    uint32_t p = game_pred(f->g, term_intern(f->g->ts, name, strlen(name)), arity);
    assert_int_not_equal(p, UINT32_MAX);
    return p;
}

static const char *const mini = "(role r)\n(init (s 0))\n(legal r go)\n"
                                "(<= (next (s 1)) (does r go))\n"
                                "(<= terminal (true (s 1)))\n(goal r 100)\n";

static void test_valid_minimal(void **state) {
    fix_t *f = *state;
    validate_ok(f, mini);
    assert_true(f->g->acyclic);
    assert_false(f->g->gdl2);
    for (size_t i = 0; i < f->g->n_preds; i++)
        assert_false(f->g->preds[i].recursive);
}

static void test_unsafe_head_variable(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(role r)\n(q a)\n(<= (p ?x) (q ?y))", 3, 5,
                     "unsafe variable ?v0 in the head");
    /* a fact with a variable is unsafe too */
    expect_violation(f, "(role r)\n(p a)\n  (q ?z)", 3, 3, "unsafe variable");
    /* a variable bound only under `not` or `distinct` does not make the head safe */
    expect_violation(f, "(role r)\n(q a)\n(<= (p ?x) (q a) (not (q ?x)))", 3, 5, "in the head");
}

static void test_unsafe_negation(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(role r)\n(q a)\n(<= (p ?x)\n  (q ?x)\n  (not (s ?y)))", 5, 8,
                     "unsafe variable ?v1 in a negated literal");
}

static void test_unsafe_distinct(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(role r)\n(q a)\n(<= (p ?x) (q ?x) (distinct ?x ?z))", 3, 19,
                     "unsafe variable ?v1 in a distinct");
}

static void test_safe_when_bound_anywhere(void **state) {
    fix_t *f = *state;
    /* order does not matter: the binding literal may come after the negation */
    validate_ok(f, "(role r)\n(q a)\n(s b)\n(<= (p ?x) (not (s ?x)) (distinct ?x b) (q ?x))");
}

static void test_unstratified_negation(void **state) {
    fix_t *f = *state;
    const char *g = "(role r)\n(q a)\n"
                    "(<= (p ?x) (q ?x) (not (s ?x)))\n"
                    "(<= (s ?x) (q ?x) (not (p ?x)))";
    expect_violation(f, g, 3, 24, "not stratified");
    expect_violation(f, g, 4, 24, "not stratified");
    /* direct self-negation */
    expect_violation(f, "(role r)\n(q a)\n(<= (p ?x) (q ?x)\n     (not (p ?x)))", 4, 11,
                     "negation inside recursion");
}

static void test_stratified_negation_accepted(void **state) {
    fix_t *f = *state;
    /* negation of a lower stratum, including a recursive one */
    validate_ok(f, "(role r)\n(e a b)\n(e b c)\n(n a)\n(n b)\n(n c)\n(n d)\n"
                   "(<= (reach ?x ?y) (e ?x ?y))\n"
                   "(<= (reach ?x ?z) (e ?x ?y) (reach ?y ?z))\n"
                   "(<= (unreached ?y) (n ?y) (not (reach a ?y)))");
}

/* The goal-by-negation idiom of many published games: `goal R 100` unless `goal R 0`.
 * The two rules are instances that cannot depend on each other (the reference accepts
 * them), so they are stratified even though both define goal/2. */
static void test_goal_negation_idiom(void **state) {
    fix_t *f = *state;
    validate_ok(f, "(role r)\n(init (lost))\n(legal r a)\n(<= terminal (true (lost)))\n"
                   "(<= (goal r 100) (not (goal r 0)))\n"
                   "(<= (goal r 0) (true (lost)))");
    validate_ok(f, "(role r)\n(init (lost))\n(legal r a)\n(<= terminal (true (lost)))\n"
                   "(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))\n"
                   "(<= (goal ?r 100) (role ?r) (true (won ?r)))");
}

static void test_recursion_restriction(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(role r)\n(q a)\n(<= (p ?x) (q ?x))\n(<= (p ?x) (q ?x)\n    (p ?y))", 5, 5,
                     "recursion restriction");
    /* the same shape with ?y bound by a non-recursive literal is fine */
    validate_ok(f, "(role r)\n(q a)\n(e a a)\n(<= (p ?x) (q ?x))\n(<= (p ?x) (e ?x ?y) (p ?y))");
    /* ?x held by the head only inside (f ?x): each round builds a larger term, forever */
    expect_violation(f, "(role r)\n(q a)\n(<= (p ?x) (q ?x))\n(<= (p (f ?x)) (q a)\n    (p ?x))", 5,
                     5, "recursion restriction");
    /* the same growth bounded by a list type outside the recursion, and a head argument
     * passed whole, are fine */
    validate_ok(f, "(role r)\n(q a)\n(l nil)\n(l (f a))\n(<= (p ?x) (q ?x))\n"
                   "(<= (p (f ?x)) (l (f ?x)) (p ?x))\n(<= (s (f ?x)) (q ?x))\n"
                   "(<= (s (f ?x)) (s (f ?x)) (q ?x))");
}

/* A statement defining `true` or `does` is not GDL, but published games contain such stray
 * statements (ConnectThreeDecompositionII.gdl) and the reference reasoner plays them: they
 * are warnings, located, and never errors. */
static bool has_warning(fix_t *f, int line, int col, const char *what) {
    for (size_t i = 0; i < f->g->warnings.n; i++) {
        const diag_item_t *it = &f->g->warnings.items[i];
        if (it->line == line && it->col == col && strstr(it->msg, what)) return true;
    }
    diag_print(&f->g->warnings, stderr);
    return false;
}

static void test_true_does_in_heads(void **state) {
    fix_t *f = *state;
    validate_ok(f, "(role r)\n(true (c 1))\n(<= (does r a) (q))");
    assert_true(has_warning(f, 2, 1, "`true`"));
    assert_true(has_warning(f, 3, 5, "`does`"));
}

static void test_keywords_in_bodies(void **state) {
    fix_t *f = *state;
    const char *g = "(role r)\n(<= (p) (init a) (next b) (sees r c))";
    expect_violation(f, g, 2, 9, "`init` cannot occur in a rule body");
    expect_violation(f, g, 2, 18, "`next` cannot occur in a rule body");
    expect_violation(f, g, 2, 27, "`sees` cannot occur in a rule body");
}

static void test_init_depends_on_true(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(role r)\n(<= (init (c)) (true (c)))", 2, 5, "`init` depends on `true`");
    /* indirectly, through a helper predicate */
    expect_violation(f, "(role r)\n(<= h (true (c)))\n(<= (init (c))\n   h)", 3, 5,
                     "`init` depends on `true`");
}

static void test_legal_depends_on_does(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(role r)\n(<= (legal r a) (does r b))", 2, 5, "`legal` depends on `does`");
    expect_violation(f, "(role r)\n(<= (moved) (does r b))\n(<= (legal r a) (moved))", 3, 5,
                     "`legal` depends on `does`");
}

static void test_goal_terminal_depend_on_does(void **state) {
    fix_t *f = *state;
    const char *g = "(role r)\n(<= (goal r 100) (does r b))\n(<= terminal (does r b))";
    expect_violation(f, g, 2, 5, "`goal` depends on `does`");
    expect_violation(f, g, 3, 5, "`terminal` depends on `does`");
}

static void test_no_roles(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(p a)\n(<= terminal (p a))", 1, 1, "no `role`");
}

static void test_role_not_ground_fact(void **state) {
    fix_t *f = *state;
    expect_violation(f, "(role a)\n(p x)\n(<= (role r) (p x))", 3, 5,
                     "`role` must be a ground fact");
}

static void test_every_violation_reported(void **state) {
    fix_t *f = *state;
    assert_false(validate(f, "(role r)\n(q a)\n(<= (p ?x) (q ?y))\n(<= (legal r a) (does r b))"));
    assert_true(f->d.n >= 2);
}

/* An expanded disjunction repeats one defect in every rule it makes: the report stops
 * after 100 errors and says how many rules were left unchecked. */
static void test_error_limit(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    sb_puts(&text, "(role r)\n(q a)\n");
    for (int i = 0; i < 300; i++)
        sb_printf(&text, "(<= (p%d ?x) (q ?y))\n", i);
    assert_false(validate(f, sb_str(&text)));
    assert_int_equal(f->d.n, 101);
    assert_non_null(strstr(f->d.items[100].msg, "too many errors; 200 more rules"));
    sb_fini(&text);
}

/* A rule base whose body literals match millions of rule heads is refused at once. */
static void test_rule_pairs_limit(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    sb_puts(&text, "(role r)\n");
    for (int i = 0; i < 1100; i++)
        sb_printf(&text, "(<= (p %d) (p %d))\n", i, i + 1);
    assert_false(validate(f, sb_str(&text)));
    assert_int_equal(f->d.n, 1);
    assert_non_null(strstr(f->d.items[0].msg, "too large to check"));
    sb_fini(&text);
}

static void test_acyclic_and_recursive(void **state) {
    fix_t *f = *state;
    validate_ok(f, "(role r)\n(e a b)\n(e b c)\n"
                   "(<= (path ?x ?y) (e ?x ?y))\n"
                   "(<= (path ?x ?z) (e ?x ?y) (path ?y ?z))\n"
                   "(<= p1 (e a b) p2)\n(<= p2 p1)\n(<= p2 (e b c))\n"
                   "(<= (flat ?x) (path ?x c))");
    game_t *g = f->g;
    assert_false(g->acyclic);
    assert_true(g->preds[pred(f, "path", 2)].recursive);
    assert_true(g->preds[pred(f, "p1", 0)].recursive);
    assert_true(g->preds[pred(f, "p2", 0)].recursive);
    assert_false(g->preds[pred(f, "flat", 1)].recursive);
    assert_false(g->preds[pred(f, "e", 2)].recursive);
    /* mutual recursion: one component; dependencies come first */
    assert_int_equal(g->preds[pred(f, "p1", 0)].scc, g->preds[pred(f, "p2", 0)].scc);
    assert_true(g->preds[pred(f, "e", 2)].scc < g->preds[pred(f, "path", 2)].scc);
    assert_true(g->preds[pred(f, "path", 2)].scc < g->preds[pred(f, "flat", 1)].scc);
    /* without the recursive rules the same game is acyclic */
    validate_ok(f, "(role r)\n(e a b)\n(<= (path ?x ?y) (e ?x ?y))\n(<= (flat ?x) (path ?x c))");
    assert_true(f->g->acyclic);
}

static void test_layers(void **state) {
    fix_t *f = *state;
    validate_ok(f, "(role r)\n(succ 1 2)\n(init (c 1))\n"
                   "(<= (cur ?x) (true (c ?x)))\n"
                   "(<= (nxt ?y) (cur ?x) (succ ?x ?y))\n"
                   "(<= (moved ?x) (does r (m ?x)))\n"
                   "(<= (legal r (m ?y)) (nxt ?y))\n"
                   "(<= (next (c ?y)) (moved ?y))\n"
                   "(<= terminal (cur 2))\n(goal r 0)");
    game_t *g = f->g;
    assert_int_equal(g->preds[pred(f, "succ", 2)].layer, LAYER_STATIC);
    assert_int_equal(g->preds[pred(f, "role", 1)].layer, LAYER_STATIC);
    assert_int_equal(g->preds[pred(f, "init", 1)].layer, LAYER_STATIC);
    assert_int_equal(g->preds[pred(f, "cur", 1)].layer, LAYER_STATE);
    assert_int_equal(g->preds[pred(f, "nxt", 1)].layer, LAYER_STATE);
    assert_int_equal(g->preds[pred(f, "legal", 2)].layer, LAYER_STATE);
    assert_int_equal(g->preds[pred(f, "moved", 1)].layer, LAYER_MOVE);
    assert_int_equal(g->preds[pred(f, "next", 1)].layer, LAYER_MOVE);
}

static void test_gdl2_detection(void **state) {
    fix_t *f = *state;
    validate_ok(f, mini);
    assert_false(f->g->gdl2);
    validate_ok(f, "(role random)\n(role p)\n(legal random a)\n(legal p b)\n(goal p 0)\n"
                   "(goal random 0)\n(init x)\n(<= terminal (true x))");
    assert_true(f->g->gdl2);
    validate_ok(f, "(role p)\n(legal p b)\n(<= (sees p saw) (does p b))\n(goal p 0)");
    assert_true(f->g->gdl2);
}

/* A literal `true` or `does` of the wrong arity is a defect of some published games (e.g.
 * `(not (true secretnumber ?n))`); the reference plays them (the literal is never true), so
 * validation must accept them too. */
static void test_wrong_arity_true_is_not_an_error(void **state) {
    fix_t *f = *state;
    validate_ok(f, "(role g)\n(init (secretnumber 3))\n(num 3)\n(num 4)\n"
                   "(<= (legal g (guess ?n)) (num ?n))\n"
                   "(<= (next wrong) (does g (guess ?n)) (not (true secretnumber ?n)))\n"
                   "(<= terminal (true wrong))\n(goal g 0)");
}

static void test_game_load_text_and_file(void **state) {
    (void)state;
    diag_t d;
    diag_init(&d);
    game_t *g = game_load_text(mini, strlen(mini), "m.kif", &d);
    assert_non_null(g);
    assert_int_equal(d.n, 0);
    game_free(g);
    /* invalid text: NULL with the validation diagnostics */
    const char *bad = "(role r)\n(<= (legal r a) (does r b))";
    assert_null(game_load_text(bad, strlen(bad), "b.kif", &d));
    assert_int_equal(d.n, 1);
    assert_string_equal(d.items[0].file, "b.kif");
    assert_int_equal(d.items[0].line, 2);
    diag_fini(&d);
    /* malformed text: NULL with the parse diagnostic */
    diag_init(&d);
    assert_null(game_load_text("(role r", 7, "p.kif", &d));
    assert_int_equal(d.n, 1);
    diag_fini(&d);
    /* missing file */
    diag_init(&d);
    assert_null(game_load("/nonexistent/dir/none.kif", &d));
    assert_int_equal(d.n, 1);
    assert_non_null(strstr(d.items[0].msg, "cannot read"));
    diag_fini(&d);
}

static void test_project_games_valid(void **state) {
    (void)state;
    static const char *const games[] = {"tictactoe.kif",    "connect4.kif",     "breakthrough.kif",
                                        "nim.kif",          "lightsout.kif",    "three_player.kif",
                                        "simultaneous.kif", "hex5.kif",         "guess.kif",
                                        "killer.kif",       "killer_small.kif", "connect3_4x4.kif"};
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", GAMES_DIR, games[i]);
        diag_t d;
        diag_init(&d);
        game_t *g = game_load(path, &d);
        if (!g) {
            diag_print(&d, stderr);
            fail_msg("%s does not validate", games[i]);
        }
        assert_true(g->n_roles >= 1);
        bool killer = strncmp(games[i], "killer", 6) == 0;
        if (killer || !strcmp(games[i], "guess.kif")) assert_true(g->gdl2);
        if (!strcmp(games[i], "tictactoe.kif")) {
            assert_true(g->acyclic);
            assert_int_equal(g->n_roles, 2);
            assert_false(g->gdl2);
        }
        if (!strcmp(games[i], "hex5.kif")) assert_false(g->acyclic); /* connection by recursion */
        game_free(g);
        diag_fini(&d);
    }
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_valid_minimal),
        T(test_unsafe_head_variable),
        T(test_unsafe_negation),
        T(test_unsafe_distinct),
        T(test_safe_when_bound_anywhere),
        T(test_unstratified_negation),
        T(test_stratified_negation_accepted),
        T(test_goal_negation_idiom),
        T(test_recursion_restriction),
        T(test_true_does_in_heads),
        T(test_keywords_in_bodies),
        T(test_init_depends_on_true),
        T(test_legal_depends_on_does),
        T(test_goal_terminal_depend_on_does),
        T(test_no_roles),
        T(test_role_not_ground_fact),
        T(test_every_violation_reported),
        T(test_error_limit),
        T(test_rule_pairs_limit),
        T(test_acyclic_and_recursive),
        T(test_layers),
        T(test_gdl2_detection),
        T(test_wrong_arity_true_is_not_an_error),
        T(test_game_load_text_and_file),
        T(test_project_games_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
