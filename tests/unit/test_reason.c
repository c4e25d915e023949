/* Unit tests for gdl/reason: the GDL / GDL-II state machine on small hand-written games
 * (initial state, legal, next, terminal, goal, sees; recursion, negation, distinct, or) and
 * on the project's tic-tac-toe. States and move lists are compared as canonical text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "deep_rules.h"
#include "engine/reason.h"
#include "gdl/trace.h"
#include "gdl/validate.h"

typedef struct {
    game_t *g;
    reasoner_t *r;
    state_t s, n;
    strbuf_t sb;
    term_t buf[4096];
} fix_t;

static int setup(void **state) {
    fix_t *f = calloc(1, sizeof *f);
    state_init(&f->s);
    state_init(&f->n);
    sb_init(&f->sb);
    *state = f;
    return 0;
}

static void unload(fix_t *f) {
    reason_free(f->r);
    game_free(f->g);
    f->r = NULL;
    f->g = NULL;
}

static int teardown(void **state) {
    fix_t *f = *state;
    unload(f);
    state_fini(&f->s);
    state_fini(&f->n);
    sb_fini(&f->sb);
    free(f);
    return 0;
}

static void use_game(fix_t *f, game_t *g, diag_t *d) {
    if (!g) {
        diag_print(d, stderr);
        fail_msg("the game does not load");
    }
    f->g = g;
    f->r = reason_new(g);
    assert_ptr_equal(reason_game(f->r), g);
    reason_initial(f->r, &f->s);
}

/* Loads and validates a game from text and puts the reasoner in its initial state. */
static void load(fix_t *f, const char *text) {
    unload(f);
    diag_t d;
    diag_init(&d);
    use_game(f, game_load_text(text, strlen(text), "g.kif", &d), &d);
    diag_fini(&d);
}

static void load_file(fix_t *f, const char *name) {
    unload(f);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GAMES_DIR, name);
    diag_t d;
    diag_init(&d);
    use_game(f, game_load(path, &d), &d);
    diag_fini(&d);
}

/* A ground term from text, e.g. "(mark 1 1)". */
static term_t T(fix_t *f, const char *text) {
    sexp_doc_t doc;
    diag_t d;
    diag_init(&d);
    assert_true(sexp_parse(f->g->ts, text, strlen(text), "term", &doc, &d));
    assert_int_equal(doc.n, 1);
    term_t t = game_ground_term(f->g, doc.first);
    assert_int_not_equal(t, TERM_NONE);
    sexp_doc_free(&doc);
    diag_fini(&d);
    return t;
}

/* Canonical text of a set of terms: sorted bytewise, space-separated. */
static const char *terms_str(fix_t *f, const term_t *terms, uint32_t n) {
    assert_true(n <= 4096);
    memcpy(f->buf, terms, n * sizeof *terms);
    trace_sort_terms(f->g->ts, f->buf, n, &f->sb);
    return sb_str(&f->sb);
}

static const char *state_str(fix_t *f, const state_t *s) {
    return terms_str(f, s->facts, s->n);
}

static const char *legal_str(fix_t *f, uint32_t role) {
    const term_t *m;
    uint32_t n = reason_legal(f->r, &f->s, role, &m);
    return terms_str(f, m, n);
}

/* Plays a joint move given as text ("(mark 1 1) noop") from f->s; f->s becomes the next
 * state. Each move must be legal. */
static void play(fix_t *f, const char *joint_text) {
    sexp_doc_t doc;
    diag_t d;
    diag_init(&d);
    assert_true(sexp_parse(f->g->ts, joint_text, strlen(joint_text), "joint", &doc, &d));
    assert_int_equal(doc.n, f->g->n_roles);
    term_t joint[16];
    uint32_t i = 0;
    for (const sexp_t *e = doc.first; e; e = e->next, i++) {
        joint[i] = game_ground_term(f->g, e);
        assert_int_not_equal(joint[i], TERM_NONE);
        if (!reason_is_legal(f->r, &f->s, i, joint[i]))
            fail_msg("move %u of '%s' is not legal", i, joint_text);
    }
    sexp_doc_free(&doc);
    diag_fini(&d);
    reason_next(f->r, &f->s, joint, &f->n);
    state_copy(&f->s, &f->n);
}

/* A role's goal as the engine reads it (engine_goal, engine_goal_value): the one value
 * term, TERM_NONE for none or several; the highest number, -1 for none. */
static term_t goal_term(reasoner_t *r, const state_t *s, uint32_t role) {
    const term_t *v;
    return reason_goals(r, s, role, &v) == 1 ? v[0] : TERM_NONE;
}

static int goal_value(reasoner_t *r, const state_t *s, uint32_t role) {
    const term_t *v;
    uint32_t n = reason_goals(r, s, role, &v);
    return term_highest_number(reason_game(r)->ts, v, n);
}

static const char *goal_str(fix_t *f, uint32_t role) {
    term_t v = goal_term(f->r, &f->s, role);
    if (v == TERM_NONE) return "none";
    return terms_str(f, &v, 1);
}

/* ---- state helpers ---- */

static void test_state_helpers(void **state) {
    (void)state;
    state_t a, b;
    state_init(&a);
    state_init(&b);
    term_t facts[] = {9, 3, 7, 3, 1, 9};
    a.facts = xmalloc(sizeof facts);
    a.cap = 6;
    for (size_t i = 0; i < 6; i++)
        a.facts[a.n++] = facts[i];
    state_normalise(&a);
    assert_int_equal(a.n, 4);
    assert_int_equal(a.facts[0], 1);
    assert_int_equal(a.facts[1], 3);
    assert_int_equal(a.facts[2], 7);
    assert_int_equal(a.facts[3], 9);
    assert_true(state_has(&a, 7));
    assert_false(state_has(&a, 8));
    state_copy(&b, &a);
    assert_true(state_equal(&a, &b));
    assert_int_equal(state_hash(&a), state_hash(&b));
    b.facts[3] = 10;
    assert_false(state_equal(&a, &b));
    assert_int_not_equal(state_hash(&a), state_hash(&b));
    b.n = 3;
    assert_false(state_equal(&a, &b));
    state_t e;
    state_init(&e);
    assert_int_equal(e.n, 0);
    assert_false(state_has(&e, 1));
    state_fini(&a);
    state_fini(&b);
    state_fini(&e);
}

/* ---- a counter: init, legal, next, terminal, goal ---- */

static const char *const counter =
    "(role p)\n"
    "(succ 0 1) (succ 1 2) (succ 2 3)\n"
    "(init (count 0))\n"
    "(<= (legal p inc) (true (count ?x)) (succ ?x ?y))\n"
    "(legal p stay)\n"
    "(<= (next (count ?y)) (does p inc) (true (count ?x)) (succ ?x ?y))\n"
    "(<= (next (count ?x)) (does p stay) (true (count ?x)))\n"
    "(<= terminal (true (count 3)))\n"
    "(<= (goal p 100) (true (count 3)))\n"
    "(<= (goal p 0) (not (true (count 3))))\n";

static void test_counter(void **state) {
    fix_t *f = *state;
    load(f, counter);
    assert_string_equal(state_str(f, &f->s), "(count 0)");
    assert_false(reason_terminal(f->r, &f->s));
    assert_string_equal(legal_str(f, 0), "inc stay");
    assert_string_equal(goal_str(f, 0), "0");
    assert_int_equal(goal_value(f->r, &f->s, 0), 0);
    play(f, "stay");
    assert_string_equal(state_str(f, &f->s), "(count 0)");
    play(f, "inc");
    assert_string_equal(state_str(f, &f->s), "(count 1)");
    play(f, "inc");
    play(f, "inc");
    assert_string_equal(state_str(f, &f->s), "(count 3)");
    assert_true(reason_terminal(f->r, &f->s));
    assert_string_equal(legal_str(f, 0), "stay");
    assert_int_equal(goal_value(f->r, &f->s, 0), 100);
    assert_true(reason_is_legal(f->r, &f->s, 0, T(f, "stay")));
    assert_false(reason_is_legal(f->r, &f->s, 0, T(f, "inc")));
    assert_false(reason_is_legal(f->r, &f->s, 0, T(f, "(jump 2)")));
    /* the initial state again: nothing is left over from the last state asked about */
    reason_initial(f->r, &f->s);
    assert_string_equal(state_str(f, &f->s), "(count 0)");
    assert_false(reason_terminal(f->r, &f->s));
    assert_string_equal(legal_str(f, 0), "inc stay");
}

/* Asking about two states in turn gives each its own answers (memoisation is per state). */
static void test_alternating_states(void **state) {
    fix_t *f = *state;
    load(f, counter);
    state_t s0, s3;
    state_init(&s0);
    state_init(&s3);
    state_copy(&s0, &f->s);
    play(f, "inc");
    play(f, "inc");
    play(f, "inc");
    state_copy(&s3, &f->s);
    for (int i = 0; i < 3; i++) {
        assert_false(reason_terminal(f->r, &s0));
        assert_true(reason_terminal(f->r, &s3));
        assert_int_equal(goal_value(f->r, &s0, 0), 0);
        assert_int_equal(goal_value(f->r, &s3, 0), 100);
        const term_t *m;
        assert_int_equal(reason_legal(f->r, &s0, 0, &m), 2);
        assert_int_equal(reason_legal(f->r, &s3, 0, &m), 1);
    }
    /* the same joint move from two states, and two joint moves from one state */
    term_t inc = T(f, "inc"), stay = T(f, "stay");
    reason_next(f->r, &s0, &inc, &f->n);
    assert_string_equal(state_str(f, &f->n), "(count 1)");
    reason_next(f->r, &s0, &stay, &f->n);
    assert_string_equal(state_str(f, &f->n), "(count 0)");
    reason_next(f->r, &s3, &stay, &f->n);
    assert_string_equal(state_str(f, &f->n), "(count 3)");
    reason_next(f->r, &s0, &inc, &f->n);
    assert_string_equal(state_str(f, &f->n), "(count 1)");
    /* reason_next leaves its input alone */
    assert_string_equal(state_str(f, &s0), "(count 0)");
    state_fini(&s0);
    state_fini(&s3);
}

/* ---- recursion: transitive closure over edges in the state ---- */

static const char *const closure =
    "(role p)\n"
    "(node a) (node b) (node c) (node d)\n"
    "(init (edge a b)) (init (edge b c))\n"
    "(<= (path ?x ?y) (true (edge ?x ?y)))\n"
    "(<= (path ?x ?z) (true (edge ?x ?y)) (path ?y ?z))\n"
    "(<= (legal p (link ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y) (not (path ?x ?y)))\n"
    "(<= (next (edge ?x ?y)) (does p (link ?x ?y)))\n"
    "(<= (next (edge ?x ?y)) (true (edge ?x ?y)))\n"
    "(<= terminal (path a d))\n"
    "(<= (goal p 100) (path a d))\n"
    "(<= (goal p 0) (not (path a d)))\n";

static const char *paths(fix_t *f) {
    uint32_t pred = game_pred(f->g, term_intern(f->g->ts, "path", 4), 2);
    assert_int_not_equal(pred, UINT32_MAX);
    const term_t *tuples;
    uint32_t n = reason_query(f->r, &f->s, NULL, pred, &tuples);
    /* print each tuple as (x y) */
    term_t *pairs = malloc((n + 1) * sizeof *pairs);
    sym_t pair = term_intern(f->g->ts, "p", 1);
    for (uint32_t i = 0; i < n; i++)
        pairs[i] = term_fun(f->g->ts, pair, tuples + 2 * i, 2);
    const char *s = terms_str(f, pairs, n);
    free(pairs);
    return s;
}

static void test_recursion_transitive_closure(void **state) {
    fix_t *f = *state;
    load(f, closure);
    assert_false(f->g->acyclic);
    assert_string_equal(paths(f), "(p a b) (p a c) (p b c)");
    /* 4 nodes: 12 ordered pairs of distinct nodes, minus the 3 paths */
    assert_string_equal(legal_str(f, 0), "(link a d) (link b a) (link b d) (link c a) (link c b) "
                                         "(link c d) (link d a) (link d b) (link d c)");
    assert_false(reason_terminal(f->r, &f->s));
    /* a cycle: the closure must still terminate, and include (x x) */
    play(f, "(link c a)");
    assert_string_equal(paths(f), "(p a a) (p a b) (p a c) (p b a) (p b b) (p b c) (p c a) "
                                  "(p c b) (p c c)");
    assert_false(reason_terminal(f->r, &f->s));
    assert_int_equal(goal_value(f->r, &f->s, 0), 0);
    /* a path a -> d appears through three hops */
    play(f, "(link c d)");
    assert_true(reason_terminal(f->r, &f->s));
    assert_int_equal(goal_value(f->r, &f->s, 0), 100);
    assert_string_equal(state_str(f, &f->s), "(edge a b) (edge b c) (edge c a) (edge c d)");
}

/* A long chain: recursion depth 60, closure of 1830 pairs. */
static void test_recursion_long_chain(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    sb_puts(&text, "(role p)\n(legal p noop)\n(goal p 0)\n(<= terminal (reach n0 n60))\n"
                   "(<= (reach ?x ?y) (e ?x ?y))\n(<= (reach ?x ?z) (e ?x ?y) (reach ?y ?z))\n");
    for (int i = 0; i < 60; i++)
        sb_printf(&text, "(e n%d n%d)\n", i, i + 1);
    load(f, sb_str(&text));
    sb_fini(&text);
    assert_true(reason_terminal(f->r, &f->s));
    uint32_t pred = game_pred(f->g, term_intern(f->g->ts, "reach", 5), 2);
    const term_t *tuples;
    assert_int_equal(reason_query(f->r, &f->s, NULL, pred, &tuples), 61 * 60 / 2);
}

/* ---- negation, distinct, or ---- */

static const char *const lights =
    "(role p)\n"
    "(colour red) (colour green) (colour yellow)\n"
    "(init (light red))\n"
    "(<= moving (or (true (light green)) (true (light yellow))))\n"
    "(<= (legal p go) moving)\n"
    "(<= (legal p wait) (not moving))\n"
    "(<= (legal p (switch ?c)) (colour ?c) (true (light ?d)) (distinct ?c ?d))\n"
    "(<= (legal p repaint) (not (or (true (light green)) (true (light red)))))\n"
    "(<= (next (light ?c)) (does p (switch ?c)))\n"
    "(<= (next (light ?c)) (true (light ?c)) (not (does p (switch green))) "
    "    (not (does p (switch red))) (not (does p (switch yellow))))\n"
    "(<= (next went) (does p go))\n"
    "(<= (next went) (true went))\n"
    "(<= (same ?c ?d) (colour ?c) (colour ?d) (not (distinct ?c ?d)))\n"
    "(<= terminal (true went))\n"
    "(<= (goal p 100) (true went) (true (light green)))\n"
    "(<= (goal p 50) (true went) (not (true (light green))))\n"
    "(<= (goal p 0) (not (true went)))\n";

static void test_negation_distinct_or(void **state) {
    fix_t *f = *state;
    load(f, lights);
    assert_string_equal(state_str(f, &f->s), "(light red)");
    assert_string_equal(legal_str(f, 0), "(switch green) (switch yellow) wait");
    play(f, "(switch green)");
    assert_string_equal(state_str(f, &f->s), "(light green)");
    assert_string_equal(legal_str(f, 0), "(switch red) (switch yellow) go");
    play(f, "(switch yellow)");
    /* only yellow: not (green or red) */
    assert_string_equal(legal_str(f, 0), "(switch green) (switch red) go repaint");
    play(f, "go");
    assert_string_equal(state_str(f, &f->s), "(light yellow) went");
    assert_true(reason_terminal(f->r, &f->s));
    assert_int_equal(goal_value(f->r, &f->s, 0), 50);
    /* (not (distinct ?c ?d)) is equality */
    uint32_t same = game_pred(f->g, term_intern(f->g->ts, "same", 4), 2);
    const term_t *tuples;
    assert_int_equal(reason_query(f->r, &f->s, NULL, same, &tuples), 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(tuples[2 * i], tuples[2 * i + 1]);
}

/* ---- simultaneous moves and three roles ---- */

static const char *const pennies =
    "(role even) (role odd)\n"
    "(side heads) (side tails)\n"
    "(init (round 0))\n"
    "(succ 0 1) (succ 1 2)\n"
    "(<= (legal ?r (show ?s)) (role ?r) (side ?s))\n"
    "(<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))\n"
    "(<= (next (point even)) (does even (show ?s)) (does odd (show ?s)))\n"
    "(<= (next (point odd)) (does even (show ?s)) (does odd (show ?t)) (distinct ?s ?t))\n"
    "(<= (next (point ?r)) (true (point ?r)))\n"
    "(<= terminal (true (round 2)))\n"
    "(<= (goal ?r 100) (role ?r) (true (point ?r)))\n"
    "(<= (goal ?r 0) (role ?r) (not (true (point ?r))))\n";

static void test_simultaneous(void **state) {
    fix_t *f = *state;
    load(f, pennies);
    assert_int_equal(f->g->n_roles, 2);
    assert_string_equal(legal_str(f, 0), "(show heads) (show tails)");
    assert_string_equal(legal_str(f, 1), "(show heads) (show tails)");
    play(f, "(show heads) (show tails)");
    assert_string_equal(state_str(f, &f->s), "(point odd) (round 1)");
    play(f, "(show tails) (show tails)");
    assert_string_equal(state_str(f, &f->s), "(point even) (point odd) (round 2)");
    assert_true(reason_terminal(f->r, &f->s));
    assert_int_equal(goal_value(f->r, &f->s, 0), 100);
    assert_int_equal(goal_value(f->r, &f->s, 1), 100);
}

/* ---- goal values that are missing, several or not numbers ---- */

static void test_goal_defects(void **state) {
    fix_t *f = *state;
    load(f, "(role a) (role b) (role c) (role d)\n"
            "(goal a 50)\n(goal b 10)\n(goal b 20)\n(goal d high)\n"
            "(<= (legal ?r noop) (role ?r))\n");
    assert_false(reason_terminal(f->r, &f->s)); /* no terminal rule: never terminal */
    assert_int_equal(goal_value(f->r, &f->s, 0), 50);
    assert_string_equal(goal_str(f, 0), "50");
    assert_int_equal(goal_term(f->r, &f->s, 1), TERM_NONE); /* two values: no one term */
    assert_int_equal(goal_value(f->r, &f->s, 1), 20);       /* and the highest counts */
    assert_int_equal(goal_term(f->r, &f->s, 2), TERM_NONE); /* none */
    assert_int_equal(goal_value(f->r, &f->s, 2), -1);
    assert_string_equal(goal_str(f, 3), "high"); /* not a number */
    assert_int_equal(goal_value(f->r, &f->s, 3), -1);
    assert_int_equal(f->s.n, 0); /* no init: the empty state */
}

/* ---- GDL-II: the random role and percepts ---- */

static const char *const cards = "(role random) (role p)\n"
                                 "(card 1) (card 2)\n"
                                 "(init (phase deal))\n"
                                 "(<= (legal random (deal ?c)) (true (phase deal)) (card ?c))\n"
                                 "(<= (legal random noop) (true (phase guess)))\n"
                                 "(<= (legal p noop) (true (phase deal)))\n"
                                 "(<= (legal p (guess ?c)) (true (phase guess)) (card ?c))\n"
                                 "(<= (next (secret ?c)) (does random (deal ?c)))\n"
                                 "(<= (next (secret ?c)) (true (secret ?c)))\n"
                                 "(<= (next (phase guess)) (true (phase deal)))\n"
                                 "(<= (next (phase done)) (true (phase guess)))\n"
                                 "(<= (next right) (does p (guess ?c)) (true (secret ?c)))\n"
                                 "(<= (sees p dealt) (does random (deal ?c)))\n"
                                 "(<= (sees p (parity odd)) (does random (deal 1)))\n"
                                 "(<= (sees p (parity even)) (does random (deal 2)))\n"
                                 "(<= (sees p (yourguess ?c)) (does p (guess ?c)))\n"
                                 "(<= terminal (true (phase done)))\n"
                                 "(<= (goal p 100) (true right))\n"
                                 "(<= (goal p 0) (not (true right)))\n"
                                 "(goal random 0)\n";

static const char *sees_str(fix_t *f, const char *joint_text, uint32_t role) {
    sexp_doc_t doc;
    diag_t d;
    diag_init(&d);
    assert_true(sexp_parse(f->g->ts, joint_text, strlen(joint_text), "joint", &doc, &d));
    term_t joint[8];
    uint32_t i = 0;
    for (const sexp_t *e = doc.first; e; e = e->next)
        joint[i++] = game_ground_term(f->g, e);
    sexp_doc_free(&doc);
    diag_fini(&d);
    const term_t *p;
    uint32_t n = reason_sees(f->r, &f->s, joint, role, &p);
    return terms_str(f, p, n);
}

static void test_gdl2_sees_and_random(void **state) {
    fix_t *f = *state;
    load(f, cards);
    assert_true(f->g->gdl2);
    assert_int_equal(term_sym(f->g->ts, f->g->roles[0]), SYM_RANDOM);
    assert_string_equal(legal_str(f, 0), "(deal 1) (deal 2)");
    assert_string_equal(legal_str(f, 1), "noop");
    assert_string_equal(sees_str(f, "(deal 1) noop", 1), "(parity odd) dealt");
    assert_string_equal(sees_str(f, "(deal 2) noop", 1), "(parity even) dealt");
    assert_string_equal(sees_str(f, "(deal 2) noop", 0), "");
    play(f, "(deal 2) noop");
    assert_string_equal(state_str(f, &f->s), "(phase guess) (secret 2)");
    assert_string_equal(legal_str(f, 1), "(guess 1) (guess 2)");
    assert_string_equal(sees_str(f, "noop (guess 1)", 1), "(yourguess 1)");
    assert_string_equal(sees_str(f, "noop (guess 1)", 0), "");
    play(f, "noop (guess 2)");
    assert_true(reason_terminal(f->r, &f->s));
    assert_int_equal(goal_value(f->r, &f->s, 1), 100);
    assert_int_equal(goal_value(f->r, &f->s, 0), 0);
}

/* ---- the project's tic-tac-toe ---- */

static void test_tictactoe(void **state) {
    fix_t *f = *state;
    load_file(f, "tictactoe.kif");
    assert_string_equal(state_str(f, &f->s),
                        "(cell 1 1 b) (cell 1 2 b) (cell 1 3 b) (cell 2 1 b) (cell 2 2 b) "
                        "(cell 2 3 b) (cell 3 1 b) (cell 3 2 b) (cell 3 3 b) (control xplayer)");
    assert_string_equal(legal_str(f, 0), "(mark 1 1) (mark 1 2) (mark 1 3) (mark 2 1) (mark 2 2) "
                                         "(mark 2 3) (mark 3 1) (mark 3 2) (mark 3 3)");
    assert_string_equal(legal_str(f, 1), "noop");
    assert_false(reason_terminal(f->r, &f->s));
    play(f, "(mark 2 2) noop");
    assert_string_equal(legal_str(f, 0), "noop");
    assert_false(reason_is_legal(f->r, &f->s, 1, T(f, "(mark 2 2)")));
    assert_true(reason_is_legal(f->r, &f->s, 1, T(f, "(mark 1 1)")));
    play(f, "noop (mark 1 1)");
    play(f, "(mark 1 3) noop");
    play(f, "noop (mark 3 1)");
    play(f, "(mark 2 1) noop");
    play(f, "noop (mark 2 3)");
    play(f, "(mark 3 2) noop");
    assert_false(reason_terminal(f->r, &f->s));
    play(f, "noop (mark 1 2)");
    play(f, "(mark 3 3) noop");
    /* a full board, no line: a draw */
    assert_true(reason_terminal(f->r, &f->s));
    assert_int_equal(goal_value(f->r, &f->s, 0), 50);
    assert_int_equal(goal_value(f->r, &f->s, 1), 50);
    /* a win on the diagonal for xplayer */
    reason_initial(f->r, &f->s);
    play(f, "(mark 1 1) noop");
    play(f, "noop (mark 1 2)");
    play(f, "(mark 2 2) noop");
    play(f, "noop (mark 1 3)");
    assert_false(reason_terminal(f->r, &f->s));
    play(f, "(mark 3 3) noop");
    assert_true(reason_terminal(f->r, &f->s));
    assert_int_equal(goal_value(f->r, &f->s, 0), 100);
    assert_int_equal(goal_value(f->r, &f->s, 1), 0);
    assert_string_equal(state_str(f, &f->s),
                        "(cell 1 1 x) (cell 1 2 o) (cell 1 3 o) (cell 2 1 b) (cell 2 2 x) "
                        "(cell 2 3 b) (cell 3 1 b) (cell 3 2 b) (cell 3 3 x) (control oplayer)");
}

/* Move sequences of length d from s (perft), through the public interface. */
static unsigned long perft(fix_t *f, const state_t *s, int d) {
    if (d == 0) return 1;
    if (reason_terminal(f->r, s)) return 0;
    const term_t *m;
    term_t moves[2][16];
    uint32_t n[2];
    for (uint32_t i = 0; i < 2; i++) {
        n[i] = reason_legal(f->r, s, i, &m);
        memcpy(moves[i], m, n[i] * sizeof *m);
    }
    unsigned long total = 0;
    state_t next;
    state_init(&next);
    for (uint32_t a = 0; a < n[0]; a++)
        for (uint32_t b = 0; b < n[1]; b++) {
            term_t joint[2] = {moves[0][a], moves[1][b]};
            reason_next(f->r, s, joint, &next);
            total += perft(f, &next, d - 1);
        }
    state_fini(&next);
    return total;
}

static void test_tictactoe_perft(void **state) {
    fix_t *f = *state;
    load_file(f, "tictactoe.kif");
    assert_int_equal(perft(f, &f->s, 1), 9);
    assert_int_equal(perft(f, &f->s, 2), 72);
    assert_int_equal(perft(f, &f->s, 3), 504);
    assert_int_equal(perft(f, &f->s, 4), 3024);
}

/* A finite game whose one relation (pair/2: 100 tuples in the first state) outgrows the
 * cap. Stands for the runaway recursion or the huge relation a game master may send. */
static const char *PAIRS = "(role p) (init (step 0)) "
                           "(n 0) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8) (n 9) "
                           "(<= (pair ?a ?b) (true (step 0)) (n ?a) (n ?b)) "
                           "(<= (legal p (go ?a ?b)) (pair ?a ?b)) "
                           "(<= (next (step 1)) (does p (go ?a ?b))) "
                           "(<= terminal (true (step 1))) "
                           "(<= (goal p 100) (true (step 1))) (<= (goal p 0) (true (step 0)))";

/* Past its cap the reasoner fails the query and says why, naming the relation, instead of
 * ending the process; every answer after is empty (terminal, no moves, no successor). */
static void test_cap_gives_up(void **state) {
    fix_t *f = *state;
    load(f, PAIRS);
    assert_string_equal(state_str(f, &f->s), "(step 0)");
    assert_null(reason_error(f->r));
    reason_set_max_tuples(f->r, 50);
    const term_t *m;
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 0);
    assert_non_null(reason_error(f->r));
    assert_non_null(strstr(reason_error(f->r), "the relation pair/2 grew past 50 tuples"));
    assert_true(reason_terminal(f->r, &f->s));
    assert_false(reason_is_legal(f->r, &f->s, 0, T(f, "(go 1 1)")));
    const term_t *v;
    assert_int_equal(reason_goals(f->r, &f->s, 0, &v), 0);
    term_t joint[1] = {T(f, "(go 1 1)")};
    reason_next(f->r, &f->s, joint, &f->n);
    assert_int_equal(f->n.n, 0);
    reason_initial(f->r, &f->n);
    assert_int_equal(f->n.n, 0);
    /* the same game under the default cap: nothing wrong with it */
    load(f, PAIRS);
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 100);
    assert_false(reason_terminal(f->r, &f->s));
    assert_null(reason_error(f->r));
}

/* The same past the cap of a recursive relation: the transitive closure of a chain of 40
 * (820 paths; the chain itself, 40 tuples, stays under the cap), computed bottom-up. */
static void test_cap_gives_up_recursive(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    sb_puts(&text, "(role p) (init on) (<= (path ?x ?y) (true on) (succ ?x ?y)) "
                   "(<= (path ?x ?z) (path ?x ?y) (succ ?y ?z)) "
                   "(<= (legal p (go ?x ?y)) (path ?x ?y)) (<= (next off) (does p (go ?x ?y))) "
                   "(<= terminal (true off)) (<= (goal p 100) (true off)) "
                   "(<= (goal p 0) (true on))");
    for (int i = 0; i < 40; i++)
        sb_printf(&text, " (succ %d %d)", i, i + 1);
    load(f, sb_str(&text));
    reason_set_max_tuples(f->r, 50);
    assert_false(reason_terminal(f->r, &f->s));
    const term_t *m;
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 0);
    assert_non_null(reason_error(f->r));
    assert_non_null(strstr(reason_error(f->r), "the relation path/2 grew past 50 tuples"));
    assert_true(reason_terminal(f->r, &f->s));
    load(f, sb_str(&text));
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 40 * 41 / 2);
    assert_null(reason_error(f->r));
    sb_fini(&text);
}

/* A chain of 100,000 relations, each computed before the one that reads it, ended the
 * process with a stack overflow; the reasoner now gives up past its stack budget, as it
 * does past the tuple cap. A chain of 1,000 is evaluated as before. */
static void test_deep_relation_chain_gives_up(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    deep_relation_chain(&text, 100000);
    load(f, sb_str(&text));
    const term_t *m;
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 0);
    assert_non_null(reason_error(f->r));
    assert_non_null(strstr(reason_error(f->r), "recursed past the reasoner's 4096 KiB of stack"));
    assert_true(reason_terminal(f->r, &f->s));
    sb_clear(&text);
    deep_relation_chain(&text, 1000);
    load(f, sb_str(&text));
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 1);
    assert_null(reason_error(f->r));
    sb_fini(&text);
}

/* The same for a successor chain walked top-down, one memoised call per step: 20,000
 * steps overflowed the stack (about 1 KiB a step); 1,000 are answered. */
static void test_deep_call_chain_gives_up(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    deep_call_chain(&text, 20000);
    load(f, sb_str(&text));
    const term_t *m;
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 0);
    assert_non_null(reason_error(f->r));
    assert_non_null(strstr(reason_error(f->r), "recursed past the reasoner's 4096 KiB of stack"));
    sb_clear(&text);
    deep_call_chain(&text, 1000);
    load(f, sb_str(&text));
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 1);
    assert_null(reason_error(f->r));
    sb_fini(&text);
}

/* Rules that nest a term deeper than TERM_MAX_DEPTH: through a chain of relations in one
 * state (3 relations of 150 levels; 2,000 relations of 490 made a move nested 980,000 deep,
 * and the walks over it overflowed the stack), or deeper every turn. The reasoner gives up,
 * naming the relation, before anything walks such a term; 2 relations (300 levels) are
 * fine. */
static void test_deep_terms_give_up(void **state) {
    fix_t *f = *state;
    strbuf_t text;
    sb_init(&text);
    deep_nesting_chain(&text, 3, 150);
    load(f, sb_str(&text));
    const term_t *m;
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 0);
    assert_non_null(reason_error(f->r));
    assert_non_null(strstr(reason_error(f->r), "the relation q3/1 would hold a term nested past "
                                               "400 levels"));
    assert_true(reason_terminal(f->r, &f->s));
    sb_clear(&text);
    deep_nesting_chain(&text, 2, 150);
    load(f, sb_str(&text));
    assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 1);
    assert_int_equal(term_depth(f->g->ts, m[0]), 301);
    assert_null(reason_error(f->r));
    /* 150 levels a turn: the third turn's (c ...) is 451 deep */
    sb_clear(&text);
    deep_nesting_turns(&text, 150, 10);
    load(f, sb_str(&text));
    for (int turn = 0; turn < 3; turn++) {
        assert_false(reason_terminal(f->r, &f->s));
        assert_int_equal(reason_legal(f->r, &f->s, 0, &m), 1);
        assert_null(reason_error(f->r));
        reason_next(f->r, &f->s, m, &f->n);
        state_copy(&f->s, &f->n);
    }
    assert_int_equal(f->s.n, 0);
    assert_non_null(reason_error(f->r));
    assert_non_null(strstr(reason_error(f->r), "the relation next/1 would hold a term nested"));
    assert_true(reason_terminal(f->r, &f->s));
    sb_fini(&text);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_state_helpers),
        T(test_counter),
        T(test_alternating_states),
        T(test_recursion_transitive_closure),
        T(test_recursion_long_chain),
        T(test_negation_distinct_or),
        T(test_simultaneous),
        T(test_goal_defects),
        T(test_gdl2_sees_and_random),
        T(test_tictactoe),
        T(test_tictactoe_perft),
        T(test_cap_gives_up),
        T(test_cap_gives_up_recursive),
        T(test_deep_relation_chain_gives_up),
        T(test_deep_call_chain_gives_up),
        T(test_deep_terms_give_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
