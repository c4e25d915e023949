/* Unit tests for regress/bddnet: the network's next functions made by the set-of-codes path
 * (opts.move_sets: a node's rules that are one move alone as the set of their codes) are
 * the same diagrams as the rules' cubes ORed one by one, and the legal relations made as a
 * tree of ite on the code bits the same as the OR of code ∧ legal; a coded group's code
 * bits, at most one and some value next made per joint move (opts.next_bits) the same as
 * from its values' next functions; past the cap on joint moves the refusal says why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "engine/fluents.h"
#include "load.h"
#include "regress/bddnet.h"

/* Two players on a row of five cells: the mover goes from its cell to another free one and
 * puts a wall on a third (amazons on a line). The next functions of (at R C) and (wall C)
 * and the auxiliary (left C) are ORs of rules that are one move alone, of one role each or
 * (wall, left) of both; (at R C) also keeps the piece where it was (a rule with a state
 * literal, ORed as before). */
static const char *const walls =
    "(role red) (role blue)\n"
    "(init (control red)) (init (at red 1)) (init (at blue 5))\n"
    "(cell 1) (cell 2) (cell 3) (cell 4) (cell 5)\n"
    "(other red blue) (other blue red)\n"
    "(<= (free ?c) (cell ?c) (not (true (wall ?c))) (not (true (at red ?c)))\n"
    "    (not (true (at blue ?c))))\n"
    "(<= (legal ?r (go ?a ?b ?c)) (true (control ?r)) (true (at ?r ?a)) (free ?b) (free ?c)\n"
    "    (distinct ?b ?c))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (left ?a) (does ?r (go ?a ?b ?c)))\n"
    "(<= (next (at ?r ?b)) (does ?r (go ?a ?b ?c)))\n"
    "(<= (next (at ?r ?a)) (true (at ?r ?a)) (not (left ?a)))\n"
    "(<= (next (wall ?c)) (does ?r (go ?a ?b ?c)))\n"
    "(<= (next (wall ?c)) (true (wall ?c)))\n"
    "(<= (next (control ?q)) (true (control ?r)) (other ?r ?q))\n"
    "(<= (canmove ?r) (true (at ?r ?a)) (free ?b) (free ?c) (distinct ?b ?c))\n"
    "(<= terminal (true (control ?r)) (not (canmove ?r)))\n"
    "(<= (goal ?r 100) (true (control ?q)) (other ?r ?q) (not (canmove ?q)))\n"
    "(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))\n";

/* The next functions of every fluent and the roles' legal relations, exported, with the
 * set-of-codes path on or off; *rules: the rules it made as sets. */
static void next_flat(engine_t *e, bool sets, bddnet_next_t next, ddflat_t *out, uint64_t *rules) {
    const gnet_t *net = engine_network(e);
    bddnet_opts_t o;
    bddnet_default_opts(&o);
    o.move_sets = sets, o.next = next;
    char err[300];
    bddnet_t *bn = bddnet_new(net, engine_game(e)->ts, &o, err, sizeof err);
    if (!bn) fprintf(stderr, "bddnet_new: %s\n", err);
    assert_non_null(bn);
    uint32_t n = net->n_fluents + net->n_roles;
    dd_ref *roots = malloc((n + 1) * sizeof *roots);
    assert_non_null(roots);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        roots[f] = bddnet_next(bn, f);
    for (uint32_t r = 0; r < net->n_roles; r++) /* and the legal relations, by bits too */
        roots[net->n_fluents + r] = bddnet_legal_rel(bn, r);
    ddflat_init(out);
    dd_export(bddnet_dd(bn), roots, n, out);
    *rules = bddnet_move_set_rules(bn);
    free(roots);
    bddnet_free(bn);
}

/* The same diagrams node for node (one variable order: the same layout either way). */
static void assert_same_flat(const ddflat_t *a, const ddflat_t *b) {
    assert_int_equal(a->n_roots, b->n_roots);
    assert_int_equal(a->n_nodes, b->n_nodes);
    for (uint32_t k = 0; k < a->n_roots; k++)
        assert_int_equal(a->roots[k], b->roots[k]);
    for (uint32_t k = 2; k < a->n_nodes; k++) {
        assert_int_equal(a->nodes[k].var, b->nodes[k].var);
        assert_int_equal(a->nodes[k].lo, b->nodes[k].lo);
        assert_int_equal(a->nodes[k].hi, b->nodes[k].hi);
    }
}

static void check_sets(const char *text) {
    game_t *g = load_text(text);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    assert_non_null(engine_network(e));
    ddflat_t old, now;
    uint64_t old_rules, now_rules;
    next_flat(e, false, BDDNET_NEXT_FREE, &old, &old_rules);
    next_flat(e, true, BDDNET_NEXT_FREE, &now, &now_rules);
    assert_int_equal(old_rules, 0);
    assert_true(now_rules >= 3 * 5); /* at least (at R C), (wall C) and (left C) per cell */
    assert_true(old.n_nodes > 2);    /* the next functions are not all constants */
    assert_same_flat(&old, &now);
    ddflat_fini(&old), ddflat_fini(&now);
    /* per joint move the move inputs are constants: no set is made, the same diagrams */
    next_flat(e, false, BDDNET_NEXT_JOINT, &old, &old_rules);
    next_flat(e, true, BDDNET_NEXT_JOINT, &now, &now_rules);
    assert_int_equal(now_rules, 0);
    assert_same_flat(&old, &now);
    ddflat_fini(&old), ddflat_fini(&now);
    engine_free(e);
    game_free(g);
}

static void test_move_sets(void **state) {
    (void)state;
    check_sets(walls);
}

/* A counter of 0..40 (6 code bits, kalaha's pits on a small scale) that the mover adds 1 or
 * 2 to, leaves alone (wait: the group's values are its fluents there; keep holds from then
 * on) or resets, which also keeps it where keep holds (never: reset is not legal then; two
 * values next only there: at most one next is not true). */
static char *counter_text(void) {
    size_t cap = 8192, n = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    n += (size_t)snprintf(t + n, cap - n,
                          "(role a) (role b) (init (count 0)) (init (control a))\n"
                          "(other a b) (other b a)\n");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(t + n, cap - n, "(add 1 %d %d) (add 2 %d %d)\n", i, i + 1, i,
                              i + 2 < 40 ? i + 2 : 40);
    n += (size_t)snprintf(
        t + n, cap - n,
        "(<= (legal ?r (inc ?k)) (true (control ?r)) (add ?k 0 ?y))\n"
        "(<= (legal ?r wait) (true (control ?r)))\n"
        "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
        "(<= (next (count ?y)) (does ?r (inc ?k)) (true (count ?x)) (add ?k ?x ?y))\n"
        "(<= (next (count ?x)) (does ?r wait) (true (count ?x)))\n"
        "(<= (legal ?r reset) (true (control ?r)) (not (true keep)))\n"
        "(<= (next (count 0)) (does ?r reset))\n"
        "(<= (next (count ?x)) (does ?r reset) (true keep) (true (count ?x)))\n"
        "(<= (next keep) (true keep)) (<= (next keep) (does ?r wait))\n"
        "(<= (next (control ?q)) (true (control ?r)) (other ?r ?q))\n"
        "(<= terminal (true (count 40)))\n"
        "(<= (goal ?r 100) (true (control ?r))) (<= (goal ?r 0) (true (control ?q)) (other ?r "
        "?q))\n");
    assert_true(n < cap);
    return t;
}

/* Every state variable's next function and every group's at most one and some value next,
 * exported, made per joint move (next_bits on or off); *groups: the groups made so. */
static void bits_flat(engine_t *e, bool bits, ddflat_t *out, uint32_t *groups) {
    const gnet_t *net = engine_network(e);
    bddnet_opts_t o;
    bddnet_default_opts(&o);
    o.next = BDDNET_NEXT_JOINT, o.next_bits = bits, o.implications = false;
    char err[300];
    bddnet_t *bn = bddnet_new(net, engine_game(e)->ts, &o, err, sizeof err);
    assert_non_null(bn);
    uint32_t nv = dd_var_count(bddnet_dd(bn)), ng = bddnet_mutex_groups(bn), n = 0;
    dd_ref *roots = malloc((nv + 2 * (ng + net->n_fluents) + 1) * sizeof *roots);
    assert_non_null(roots);
    for (uint32_t v = 0; v < nv; v++)
        roots[n++] = dd_dup(bddnet_dd(bn), bddnet_next_var(bn, v));
    for (uint32_t g = 0; g < net->n_fluents; g++) { /* every group: past the last, none */
        dd_ref amo = bddnet_group_next(bn, g, false);
        if (amo == DD_NONE) break;
        roots[n++] = amo, roots[n++] = bddnet_group_next(bn, g, true);
    }
    ddflat_init(out);
    dd_export(bddnet_dd(bn), roots, n, out);
    for (uint32_t k = 0; k < n; k++)
        dd_deref(bddnet_dd(bn), roots[k]);
    *groups = bddnet_groups_by_bits(bn);
    free(roots);
    bddnet_free(bn);
}

static void test_next_bits(void **state) {
    (void)state;
    char *text = counter_text();
    game_t *g = load_text(text);
    free(text);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    ddflat_t old, now;
    uint32_t old_groups, now_groups;
    bits_flat(e, false, &old, &old_groups);
    bits_flat(e, true, &now, &now_groups);
    assert_int_equal(old_groups, 0);
    assert_true(now_groups >= 1); /* the counter */
    assert_true(old.n_nodes > 2);
    assert_same_flat(&old, &now);
    ddflat_fini(&old), ddflat_fini(&now);
    engine_free(e);
    game_free(g);
}

/* Two roles each pick one of three numbers at once (nine joint moves), a coordination game:
 * a wins where the picks match. */
static const char *const pick3 = "(role a) (role b) (init (step 0)) (num 1) (num 2) (num 3)\n"
                                 "(<= (legal ?r (pick ?n)) (role ?r) (num ?n) (true (step 0)))\n"
                                 "(<= (next (chose ?r ?n)) (does ?r (pick ?n)))\n"
                                 "(<= (next (step 1)) (true (step 0)))\n"
                                 "(<= terminal (true (step 1)))\n"
                                 "(<= (goal a 100) (true (chose a ?n)) (true (chose b ?n)))\n"
                                 "(<= (goal a 0) (not (goal a 100)))\n"
                                 "(<= (goal b 100) (goal a 0)) (<= (goal b 0) (goal a 100))\n";

/* bddnet_new per joint move (BDDNET_NEXT_JOINT) with at most `cap` joint moves. */
static bddnet_t *joint_net(engine_t *e, uint32_t cap, char *err, size_t errlen) {
    bddnet_opts_t o;
    bddnet_default_opts(&o);
    o.next = BDDNET_NEXT_JOINT, o.max_per_move = cap;
    return bddnet_new(engine_network(e), engine_game(e)->ts, &o, err, errlen);
}

/* More joint moves than the cap: refused, and the reason says so (it was empty: no diagram
 * operation gave up, so the manager had none to give). */
static void test_joint_cap_reason(void **state) {
    (void)state;
    game_t *g = load_text(pick3);
    assert_non_null(g);
    engine_t *e = engine_new(g, ENGINE_GROUND, NULL);
    char err[300] = "";
    bddnet_t *bn = joint_net(e, 9, err, sizeof err); /* all nine fit */
    assert_non_null(bn);
    bddnet_free(bn);
    assert_null(joint_net(e, 8, err, sizeof err));
    assert_non_null(strstr(err, "more than 8 joint moves"));
    engine_free(e);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_sets),
        cmocka_unit_test(test_next_bits),
        cmocka_unit_test(test_joint_cap_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
