/* Unit tests for regress/: the C operator (expansion) and the N operator on small rule
 * sets written out here, with the expected formulas; simplification; the turn-taking
 * test; bounded unfolding of recursive rules; sound shrinking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gdl/validate.h"
#include "load.h"
#include "regress/expand.h"
#include "regress/match.h"
#include "regress/regress.h"
#include "regress/verify.h"
#include "sequences.h"
#include "terms.h"

/* C: q has two rules; r has a local variable; s uses not r; u a static relation;
 * dup a distinct. */
static const char *const c_game = "(role a) (role b)\n"
                                  "(<= (q ?x) (true (f ?x)))\n"
                                  "(<= (q ?y) (true (g ?y)))\n"
                                  "(<= r (true (h ?z)))\n"
                                  "(<= (s ?x) (q ?x) (not r))\n"
                                  "(st 1) (st 2)\n"
                                  "(<= (u ?x) (st ?x) (true (f ?x)))\n"
                                  "(<= (dup ?x) (true (f ?x)) (distinct ?x 1))\n"
                                  "(<= (reach ?x) (true (start ?x)))\n"
                                  "(<= (reach ?y) (reach ?x) (edge ?x ?y))\n"
                                  "(edge 1 2) (edge 2 3) (edge 3 4) (edge 4 5) (edge 5 6)\n"
                                  "(<= (legal ?p noop) (role ?p))\n"
                                  "(<= (next (f ?x)) (true (f ?x)))\n"
                                  "(<= terminal (true done))\n"
                                  "(<= (goal ?p 100) (role ?p))\n"
                                  "(init (f 1))\n";

/* N: a tiny turn-taking game. Whoever takes cell 1 wins; the other cells only pass the
 * turn. */
static const char *const n_game =
    "(role a) (role b)\n"
    "(cell 1) (cell 2) (cell 3)\n"
    "(init (control a))\n"
    "(<= (base (control ?r)) (role ?r))\n"
    "(<= (base (owner ?x ?r)) (cell ?x) (role ?r))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (legal ?r (mark ?x)) (true (control ?r)) (cell ?x) (not (taken ?x)))\n"
    "(<= (taken ?x) (true (owner ?x ?r)))\n"
    "(<= (next (owner ?x ?r)) (does ?r (mark ?x)))\n"
    "(<= (next (owner ?x ?r)) (true (owner ?x ?r)))\n"
    "(<= (next (control b)) (true (control a)))\n"
    "(<= (next (control a)) (true (control b)))\n"
    "(<= terminal (true (owner 1 ?r)))\n"
    "(<= terminal (taken 1) (taken 2) (taken 3))\n"
    "(<= (goal ?r 100) (true (owner 1 ?r)))\n"
    "(<= (goal ?r 0) (role ?r) (not (true (owner 1 ?r))))\n";

typedef struct {
    game_t *g;
    engine_t *r;
    expand_t *x;
    strbuf_t sb;
} fix_t;

static int setup_c(void **state) {
    fix_t *f = calloc(1, sizeof *f);
    f->g = load_text(c_game);
    if (!f->g) return -1;
    f->r = engine_new(f->g, ENGINE_INTERP, NULL);
    f->x = expand_new(f->r);
    sb_init(&f->sb);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fix_t *f = *state;
    expand_free(f->x);
    engine_free(f->r);
    game_free(f->g);
    sb_fini(&f->sb);
    free(f);
    return 0;
}

static term_t sym(fix_t *f, const char *name) {
    return term_const(f->g->ts, term_intern(f->g->ts, name, strlen(name)));
}

static term_t app1(fix_t *f, const char *fn, term_t a) {
    return term_fun(f->g->ts, term_intern(f->g->ts, fn, strlen(fn)), &a, 1);
}

/* Expands, prints, frees; returns the text (valid until the next call). */
static const char *show(fix_t *f, form_t *in, bool *complete) {
    form_t *e = expand_form(f->x, in);
    form_free(in);
    assert_non_null(e);
    sb_clear(&f->sb);
    form_print(f->g->ts, e, &f->sb);
    if (complete) *complete = e->complete;
    form_free(e);
    return sb_str(&f->sb);
}

static void test_c_two_rules(void **state) {
    fix_t *f = *state;
    term_t v = term_var(f->g->ts, 0);
    assert_string_equal(show(f, form_atom(app1(f, "q", v)), NULL),
                        "(or\n  (exists (?v0) (true (f ?v0)))\n  (exists (?v0) (true (g ?v0))))");
}

/* The seed's example: C(q(t) ∧ does(a)) = (p1(t) ∨ p2(t)) ∧ does(a) ∧ legal(a), one step. */
static void test_c_one_step_with_does(void **state) {
    fix_t *f = *state;
    expand_opts(f->x)->max_gen = 1;
    expand_opts(f->x)->legal_on_does = true;
    form_t *in = form_atom(app1(f, "q", sym(f, "c")));
    fconj_add(in->d[0], FL_DOES, f->g->roles[0], sym(f, "m"));
    assert_string_equal(show(f, in, NULL), "(or\n  (and (does a m) (legal a m) (true (f c)))\n"
                                           "  (and (does a m) (legal a m) (true (g c))))");
    expand_opts(f->x)->max_gen = 0;
    expand_opts(f->x)->legal_on_does = false;
}

/* A negated atom whose premise has a local variable: not exists. */
static void test_c_negation_local_variable(void **state) {
    fix_t *f = *state;
    form_t *in = form_new();
    fconj_t *d = fconj_new();
    fconj_add(d, FL_NATOM, sym(f, "r"), TERM_NONE);
    form_push(in, d);
    assert_string_equal(show(f, in, NULL), "(not (exists (?v0) (true (h ?v0))))");
    term_t v = term_var(f->g->ts, 0);
    assert_string_equal(
        show(f, form_atom(app1(f, "s", v)), NULL),
        "(or\n  (exists (?v0) (and (not (exists (?v1) (true (h ?v1)))) (true (f ?v0))))\n"
        "  (exists (?v0) (and (not (exists (?v1) (true (h ?v1)))) (true (g ?v0)))))");
}

/* Static relations are evaluated away; ground distinct decides. */
static void test_c_static_and_distinct(void **state) {
    fix_t *f = *state;
    term_t v = term_var(f->g->ts, 0);
    assert_string_equal(show(f, form_atom(app1(f, "u", v)), NULL),
                        "(or\n  (true (f 1))\n  (true (f 2)))");
    assert_string_equal(show(f, form_atom(app1(f, "dup", sym(f, "1"))), NULL), "false");
    assert_string_equal(show(f, form_atom(app1(f, "dup", sym(f, "2"))), NULL), "(true (f 2))");
}

/* A disjunct that is an instance of another (plus literals) is dropped; x and not x. */
static void test_simplify_subsumption_contradiction(void **state) {
    fix_t *f = *state;
    term_t v = term_var(f->g->ts, 0);
    form_t *in = form_atom(app1(f, "q", v));
    fconj_t *d = fconj_new();
    fconj_add(d, FL_TRUE, app1(f, "f", sym(f, "1")), TERM_NONE);
    fconj_add(d, FL_TRUE, app1(f, "g", sym(f, "1")), TERM_NONE);
    form_push(in, d);
    d = fconj_new();
    fconj_add(d, FL_TRUE, app1(f, "f", sym(f, "2")), TERM_NONE);
    fconj_add(d, FL_NTRUE, app1(f, "f", sym(f, "2")), TERM_NONE);
    form_push(in, d);
    assert_string_equal(show(f, in, NULL),
                        "(or\n  (exists (?v0) (true (f ?v0)))\n  (exists (?v0) (true (g ?v0))))");
}

/* Mutex pruning: two values of one group cannot hold together; a variable in the
 * valued position is then decided. */
static void test_simplify_mutex(void **state) {
    fix_t *f = *state;
    mutex_t m = {.sym = term_intern(f->g->ts, "f", 1), .arity = 1, .pos = 0};
    expand_set_mutexes(f->x, &m, 1);
    form_t *in = form_new();
    fconj_t *d = fconj_new();
    fconj_add(d, FL_TRUE, app1(f, "f", sym(f, "1")), TERM_NONE);
    fconj_add(d, FL_TRUE, app1(f, "f", sym(f, "2")), TERM_NONE);
    form_push(in, d);
    assert_string_equal(show(f, in, NULL), "false");
    in = form_new();
    d = fconj_new();
    fconj_add(d, FL_TRUE, app1(f, "f", sym(f, "1")), TERM_NONE);
    fconj_add(d, FL_TRUE, app1(f, "f", term_var(f->g->ts, 0)), TERM_NONE);
    fconj_add(d, FL_TRUE, app1(f, "g", term_var(f->g->ts, 0)), TERM_NONE);
    form_push(in, d);
    assert_string_equal(show(f, in, NULL), "(and (true (f 1)) (true (g 1)))");
    expand_set_mutexes(f->x, NULL, 0);
}

/* Recursive predicates: bounded unfolding, marked incomplete; what is kept is sound. */
static void test_c_recursion_bounded(void **state) {
    fix_t *f = *state;
    expand_opts(f->x)->max_depth = 2;
    bool complete = true;
    const char *txt = show(f, form_atom(app1(f, "reach", sym(f, "3"))), &complete);
    assert_false(complete);
    /* start 3, start 2 (one edge), start 1 (two edges) */
    assert_non_null(strstr(txt, "(true (start 3))"));
    assert_non_null(strstr(txt, "(true (start 2))"));
    assert_non_null(strstr(txt, "(true (start 1))"));
    complete = true;
    txt = show(f, form_atom(app1(f, "reach", sym(f, "6"))), &complete);
    assert_false(complete);
    assert_null(strstr(txt, "(true (start 1))")); /* five edges away: cut */
    expand_opts(f->x)->max_depth = 4;
}

/* N on the tiny game: α_0, α_1 written out, and every α_i/β_i exact on all its states. */
static void test_n_tiny_game(void **state) {
    (void)state;
    game_t *g = load_text(n_game);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_t *rg = run_sequences(r, 4);
    strbuf_t sb;
    sb_init(&sb);
    form_print(g->ts, regress_step(rg, 0, 0)->f, &sb);
    assert_string_equal(sb_str(&sb), "(true (owner 1 a))");
    /* α_1: a moves (b's only move is noop), cell 1 is free: a takes it. The common
     * conjunct is "not terminal, a to move"; nothing else is needed. */
    sb_clear(&sb);
    form_print(g->ts, regress_step(rg, 0, 1)->f, &sb);
    assert_non_null(strstr(sb_str(&sb), "(not (exists (?v0) (true (owner 1 ?v0))))"));
    assert_non_null(strstr(sb_str(&sb), "(true (control a))"));
    sb_fini(&sb);
    char err[300];
    verify_t *v = verify_new(r, regress_shape_of(rg)->noop, 1000, err, sizeof err);
    assert_non_null(v);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < regress_count(rg, side); i++) {
            verify_row_t row;
            verify_formula(v, regress_step(rg, side, i)->f, (uint32_t)side, i, true, &row);
            assert_int_equal(row.false_pos, 0);
            assert_int_equal(row.late, 0);
            assert_int_equal(row.misses, 0);
            assert_int_equal(row.z3_disagree, 0);
        }
    assert_int_equal(regress_step(rg, 0, 1)->disjuncts, 1);
    verify_free(v);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

/* The same N by hand: regress_N of α_0 for the mover a, "exists". */
static void test_n_direct(void **state) {
    (void)state;
    game_t *g = load_text(n_game);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_opts_t o;
    regress_default_opts(&o);
    o.budget = 0;
    char err[300];
    regress_t *rg = regress_new(r, 0, &o, err, sizeof err);
    assert_non_null(rg);
    term_store_t *ts = g->ts;
    term_t one = term_const(ts, term_intern(ts, "1", 1));
    term_t args[2] = {one, g->roles[0]};
    form_t *a0 = form_new();
    fconj_t *d = fconj_new();
    fconj_add(d, FL_TRUE, term_fun(ts, term_intern(ts, "owner", 5), args, 2), TERM_NONE);
    form_push(a0, d);
    form_t *a1 = regress_N(rg, a0, 0, true);
    assert_non_null(a1);
    assert_int_equal(a1->n, 1);
    assert_non_null(a1->common);
    /* b to move: nothing a can do */
    form_t *b1 = regress_N(rg, a0, 1, true);
    assert_non_null(b1);
    match_t *m = match_new(ts, b1);
    match_state_t *ms = match_state_new();
    state_t s;
    state_init(&s);
    terms_initial(r, &s);
    assert_false(match_check(m, ms, &s)); /* the initial state has a to move */
    match_t *ma = match_new(ts, a1);
    assert_true(match_check(ma, ms, &s)); /* and a takes cell 1 */
    state_fini(&s);
    match_free(m);
    match_free(ma);
    match_state_free(ms);
    form_free(a0);
    form_free(a1);
    form_free(b1);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

/* A game whose fluent is one step (s ...) of 390 levels shallower every turn: backward,
 * each round nests it 390 levels deeper without end (`ggp regress --budget 150`: 1,300
 * rounds, a term some 250,000 levels deep, which printing and comparing walk recursively;
 * no crash within those 150 s on the 16 MiB stack, but nothing bounds it). A side now
 * stops after the step whose formula passes TERM_MAX_DEPTH. */
static void test_deep_terms_stop(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, "(role r) (role o) (init (c z)) (init (control r))\n"
                 "(<= (legal r go) (true (control r))) (<= (legal r noop) (true (control o)))\n"
                 "(<= (legal o go) (true (control o))) (<= (legal o noop) (true (control r)))\n"
                 "(<= (next (control o)) (true (control r)))\n"
                 "(<= (next (control r)) (true (control o)))\n(<= (next (c z)) (true (c z)))\n"
                 "(<= terminal (true (c z))) (<= (goal r 100) (true (c z)))\n"
                 "(<= (goal r 0) (not (true (c z)))) (<= (goal o 0) (true (c z)))\n"
                 "(<= (goal o 100) (not (true (c z))))\n(<= (next (c ?x)) (true (c");
    for (int i = 0; i < 390; i++)
        sb_puts(&sb, " (s");
    sb_puts(&sb, " ?x");
    for (int i = 0; i < 390 + 3; i++)
        sb_putc(&sb, ')');
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_opts_t o;
    regress_default_opts(&o);
    o.budget = 0;
    o.max_steps = 20;
    char err[300];
    regress_t *rg = regress_new(r, 0, &o, err, sizeof err);
    assert_non_null(rg);
    assert_true(regress_run(rg, NULL, NULL));
    uint32_t n = regress_count(rg, 0);
    assert_int_equal(n, 3); /* α_2 holds (c s^390(s^390(z))) */
    assert_true(regress_step(rg, 0, n - 1)->too_deep);
    assert_false(regress_step(rg, 0, n - 2)->too_deep);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

/* A game the interpreter gives up on (a chain of 20,000 relations, past its stack budget)
 * is refused with the interpreter's reason: its empty answers made the game look not
 * turn-taking ("role r never waits with a single no-op move"). */
static void test_gave_up_said(void **state) {
    (void)state;
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, "(role r) (role o) (init (step 0)) (<= (next (step 1)) (true (step 0)))\n"
                 "(<= terminal (true (step 1))) (goal r 100) (goal o 0)\n"
                 "(<= (legal r go) (true (step 0)) p0) (<= (legal o noop) (true (step 0)))\n"
                 "(<= p20000 (true (step 0)))\n");
    for (int i = 0; i < 20000; i++)
        sb_printf(&sb, "(<= p%d p%d)\n", i, i + 1);
    game_t *g = load_text(sb_str(&sb));
    sb_fini(&sb);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_opts_t o;
    regress_default_opts(&o);
    o.budget = 0;
    char err[300] = "";
    assert_null(regress_new(r, 0, &o, err, sizeof err));
    assert_non_null(strstr(err, "the game cannot be reasoned about: evaluating the relation p"));
    assert_non_null(strstr(err, "recursed past the reasoner's 4096 KiB of stack"));
    engine_free(r);
    game_free(g);
}

/* regress_new refuses `file` with a message containing `why`. */
static void expect_unsupported(const char *file, const char *why) {
    game_t *g = load_file(file);
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_opts_t o;
    regress_default_opts(&o);
    char err[300];
    assert_null(regress_new(r, 0, &o, err, sizeof err));
    assert_non_null(strstr(err, why));
    engine_free(r);
    game_free(g);
}

static void test_shape_unsupported(void **state) {
    (void)state;
    expect_unsupported("simultaneous.kif", "not turn-taking");
    expect_unsupported("three_player.kif", "two roles");
}

/* Shrinking keeps a formula sound: the states it describes are a subset. */
static void test_shrink_is_sound(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_t *rg = run_sequences(r, 3);
    char err[300];
    verify_t *v = verify_new(r, regress_shape_of(rg)->noop, 100000, err, sizeof err);
    for (uint32_t i = 1; i <= 3; i++) {
        form_t *f = form_copy(regress_step(rg, 0, i)->f);
        uint64_t before = form_literals(f);
        form_shrink(f, before / 2);
        assert_false(f->complete);
        assert_true(form_literals(f) < before);
        verify_row_t row;
        verify_formula(v, f, 0, i, false, &row);
        assert_int_equal(row.false_pos, 0);
        form_free(f);
    }
    verify_free(v);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

/* match_eval_within answers as match_eval with the work that one took, and gives up
 * (-1) with one step less; on tic-tac-toe's alpha_1..alpha_5 over random-match states. */
/* match_hit names the first disjunct that holds: it holds alone (with the common
 * conjunct) and none before it does. Returns 1. */
static uint32_t first_disjunct_held(game_t *g, const form_t *f, int32_t hit, match_state_t *ms) {
    assert_true(hit >= 0 && (uint32_t)hit < f->n);
    for (uint32_t k = 0; k <= (uint32_t)hit; k++) {
        fconj_t *one[1] = {f->d[k]};
        form_t sub = {.d = one, .n = 1, .cap = 1, .common = f->common, .complete = true};
        match_t *m = match_new(g->ts, &sub);
        assert_int_equal(match_eval(m, ms), k == (uint32_t)hit);
        match_free(m);
    }
    return 1;
}

static void test_match_work_limit(void **state) {
    (void)state;
    game_t *g = load_file("tictactoe.kif");
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    regress_t *rg = run_sequences(r, 5);
    match_state_t *ms = match_state_new();
    state_t s, t;
    state_init(&s);
    state_init(&t);
    uint64_t rng = 7;
    uint32_t checked = 0, gave_up = 0, hits = 0;
    for (uint32_t play = 0; play < 20; play++) {
        terms_initial(r, &s);
        while (!terms_terminal(r, &s)) {
            match_state_set(ms, g->ts, &s);
            for (uint32_t i = 1; i <= 5; i++) {
                match_t *m = match_new(g->ts, regress_step(rg, 0, i)->f);
                assert_non_null(m);
                bool full = match_eval(m, ms);
                uint64_t w = match_work(m);
                if (full)
                    hits += first_disjunct_held(g, regress_step(rg, 0, i)->f, match_hit(m), ms);
                else
                    assert_int_equal(match_hit(m), -1);
                assert_int_equal(match_eval_within(m, ms, w), full);
                if (w > 1) {
                    assert_int_equal(match_eval_within(m, ms, w - 1), -1);
                    assert_int_equal(match_hit(m), -1);
                    gave_up++;
                }
                assert_int_equal(match_eval(m, ms), full); /* giving up left no trace */
                match_free(m);
                checked++;
            }
            term_t joint[2];
            for (uint32_t k = 0; k < 2; k++) {
                const term_t *mv;
                uint32_t n = terms_legal(r, &s, k, &mv);
                assert_true(n > 0);
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                joint[k] = mv[(rng >> 33) % n];
            }
            terms_next(r, &s, joint, &t);
            state_copy(&s, &t);
        }
    }
    assert_true(checked > 100);
    assert_true(gave_up > 100);
    assert_true(hits > 10);
    state_fini(&s);
    state_fini(&t);
    match_state_free(ms);
    regress_free(rg);
    engine_free(r);
    game_free(g);
}

/* A state of more fluent functors than a fixed table held (64 once, then the process
 * ended): a game text may have as many as it likes. The last one is still found. */
static void test_match_many_functors(void **state) {
    (void)state;
    enum { N_FUNCTORS = 100 };
    term_store_t *ts = term_store_new();
    term_t a = term_const(ts, term_intern(ts, "a", 1));
    state_t s;
    state_init(&s);
    sym_t first = 0, last = 0;
    for (uint32_t i = 0; i < N_FUNCTORS; i++) {
        char name[16];
        int len = snprintf(name, sizeof name, "f%u", i);
        last = term_intern(ts, name, (size_t)len);
        if (i == 0) first = last;
        state_push(&s, term_fun(ts, last, &a, 1));
    }
    state_normalise(&s);
    term_t x = term_var(ts, 0);
    form_t *f = form_new();
    fconj_t *d = fconj_new();
    fconj_add(d, FL_TRUE, term_fun(ts, last, &x, 1), TERM_NONE);
    form_push(f, d);
    match_t *m = match_new(ts, f);
    assert_non_null(m);
    match_state_t *ms = match_state_new();
    assert_true(match_check(m, ms, &s));
    state_t one;
    state_init(&one);
    state_push(&one, term_fun(ts, first, &a, 1));
    state_normalise(&one);
    assert_false(match_check(m, ms, &one)); /* the same index, set again: no stale bucket */
    state_fini(&one);
    match_state_free(ms);
    match_free(m);
    form_free(f);
    state_fini(&s);
    term_store_free(ts);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_many_functors),
        cmocka_unit_test_setup_teardown(test_c_two_rules, setup_c, teardown),
        cmocka_unit_test_setup_teardown(test_c_one_step_with_does, setup_c, teardown),
        cmocka_unit_test_setup_teardown(test_c_negation_local_variable, setup_c, teardown),
        cmocka_unit_test_setup_teardown(test_c_static_and_distinct, setup_c, teardown),
        cmocka_unit_test_setup_teardown(test_simplify_subsumption_contradiction, setup_c, teardown),
        cmocka_unit_test_setup_teardown(test_simplify_mutex, setup_c, teardown),
        cmocka_unit_test_setup_teardown(test_c_recursion_bounded, setup_c, teardown),
        cmocka_unit_test(test_n_tiny_game),
        cmocka_unit_test(test_n_direct),
        cmocka_unit_test(test_shape_unsupported),
        cmocka_unit_test(test_deep_terms_stop),
        cmocka_unit_test(test_gave_up_said),
        cmocka_unit_test(test_match_work_limit),
        cmocka_unit_test(test_shrink_is_sound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
