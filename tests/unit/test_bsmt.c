/* The Z3 belief reasoner (player/bsmt) against exact belief sets: random matches of small
 * GDL-II games; for every role and step, the set of states consistent with what the role
 * saw is enumerated with the reasoner (every joint move with our move, legal, yielding our
 * percepts), and Z3 must give the same entailed fluents (and the same number of states
 * when few), and the same answer to whether the move played is risky (bsmt_move_risky,
 * against enumeration); the ground network (player/bnet) refuses a cycle through ground
 * rules.
 * BSMT_MATCHES (environment) sets the matches per game, 30 by default (20 at most for
 * numberguessing); BSMT_COUNT the largest belief set also counted, 6 by default. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "base/rng.h"
#include "belief_enum.h"
#include "gdl/validate.h"
#include "load.h"
#include "player/bnet.h"
#include "player/bsmt.h"
#include "terms.h"

typedef struct {
    uint64_t steps, counted, checks, gave_up;
    double seconds;
} tally_t;

/* Belief sets up to this size get the move played checked for risk against enumeration. */
#define RISK_SET_MAX 64

/* Belief sets up to this size are also counted by Z3 (one model per state: slow). */
static uint32_t count_max(void) {
    const char *e = getenv("BSMT_COUNT");
    return e ? (uint32_t)atoi(e) : 6;
}

/* Whether playing move in some state of the set, with any legal moves of the others, lowers
 * the role's goal value or ends the game below 100 where it had none: bsmt_move_risky's
 * meaning, by enumeration (the reference the Z3 answer is compared with). */
typedef struct {
    engine_t *r;
    const game_t *g;
    uint32_t role;
    const state_t *s;
    int before;
    term_t joint[16];
} risk_t;

static bool risky_from(risk_t *k, uint32_t i) {
    if (i == k->g->n_roles) {
        state_t nx;
        state_init(&nx);
        terms_next(k->r, k->s, k->joint, &nx);
        bool term = terms_terminal(k->r, &nx);
        int after = terms_goal_value(k->r, &nx, k->role);
        state_fini(&nx);
        return k->before < 0 ? term && after < 100 : after >= 0 && after < k->before;
    }
    if (i == k->role) return risky_from(k, i + 1);
    const term_t *m;
    uint32_t n = terms_legal(k->r, k->s, i, &m);
    term_t *moves = malloc((n + 1) * sizeof *moves);
    memcpy(moves, m, n * sizeof *m);
    bool risky = false;
    for (uint32_t j = 0; j < n && !risky; j++) {
        k->joint[i] = moves[j];
        risky = risky_from(k, i + 1);
    }
    free(moves);
    return risky;
}

static bool exact_risky(engine_t *r, const game_t *g, uint32_t role, const set_t *cur,
                        term_t move) {
    risk_t k = {.r = r, .g = g, .role = role};
    k.joint[role] = move;
    for (uint32_t i = 0; i < cur->n; i++) {
        k.s = &cur->v[i];
        if (terms_terminal(r, k.s) || !terms_is_legal(r, k.s, role, move)) continue;
        k.before = terms_goal_value(r, k.s, role);
        if (risky_from(&k, 0)) return true;
    }
    return false;
}

/* Compares one role's view of a played match, step by step. */
static void check_role(game_t *g, engine_t *r, const bnet_t *net, uint32_t role, const obs_t *obs,
                       uint32_t steps, uint64_t seed, tally_t *t) {
    bsmt_t *b = bsmt_new(net, role, seed);
    set_t cur = {0};
    state_t init;
    state_init(&init);
    terms_initial(r, &init);
    set_add(&cur, &init);
    state_fini(&init);
    term_t *want = malloc(4096 * sizeof *want);
    for (uint32_t step = 0;; step++) {
        assert_true(cur.n > 0);
        assert_int_equal(bsmt_consistent(b, 0), 1);
        /* now and then queries at a deadline already past: checks give up (a player's tight
         * clock; Z3 is abreast of the history here), and the answers below must stay exact */
        if (step % 6 == 1 && step < steps) {
            double now = now_seconds();
            state_t w[2];
            state_init(&w[0]);
            state_init(&w[1]);
            bsmt_sample(b, 2, now, w);
            bsmt_move_risky(b, obs[step].move, now);
            state_fini(&w[0]);
            state_fini(&w[1]);
        }
        /* CaDiCaL's world (a model of the record) is one of the consistent states */
        state_t any;
        state_init(&any);
        assert_true(bsmt_any_sat(b, 0, &any));
        if (!set_has(&cur, &any))
            fail_msg("%s role %u step %u: CaDiCaL's world is not consistent", g->file, role, step);
        state_fini(&any);
        state_t some[3];
        for (int i = 0; i < 3; i++)
            state_init(&some[i]);
        uint32_t ns = bsmt_sample_sat(b, 3, 0, some);
        assert_true(ns >= 1 && ns <= cur.n);
        for (uint32_t i = 0; i < ns; i++)
            if (!set_has(&cur, &some[i]))
                fail_msg("%s role %u step %u: a CaDiCaL sample is not consistent", g->file, role,
                         step);
        for (int i = 0; i < 3; i++)
            state_fini(&some[i]);
        term_t *got;
        uint32_t ng = bsmt_entailed_all(b, 0, &got);
        uint32_t nw = intersection(&cur, want);
        if (ng != nw || memcmp(got, want, nw * sizeof *want)) {
            strbuf_t sb;
            sb_init(&sb);
            for (uint32_t i = 0; i < nw; i++)
                term_print(g->ts, want[i], &sb), sb_putc(&sb, ' ');
            sb_puts(&sb, "\n  z3: ");
            for (uint32_t i = 0; i < ng && ng != UINT32_MAX; i++)
                term_print(g->ts, got[i], &sb), sb_putc(&sb, ' ');
            fail_msg("%s role %u step %u: entailed differ\n  enumeration: %s", g->file, role, step,
                     sb_str(&sb));
        }
        free(got);
        if (cur.n <= count_max()) {
            assert_int_equal(bsmt_count(b, 1000, 0), cur.n);
            t->counted++;
        }
        t->steps++;
        if (step == steps) break;
        /* the move played: risky for Z3 exactly when it is by enumeration, asked as a
         * player asks, knowing the game goes on (the set's terminal states are no worlds) */
        bsmt_live(b);
        if (cur.n <= RISK_SET_MAX)
            assert_int_equal(bsmt_move_risky(b, obs[step].move, now_seconds() + 1e6),
                             exact_risky(r, g, role, &cur, obs[step].move));
        assert_true(bsmt_observe(b, obs[step].move, obs[step].pc, obs[step].n));
        belief_step(r, g, role, &obs[step], &cur);
    }
    z3_stats_t st = bsmt_stats(b);
    t->gave_up += st.gave_up;
    t->checks += st.checks;
    t->seconds += st.seconds;
    free(want);
    set_free(&cur);
    bsmt_free(b);
}

/* The belief network of g on a grounding of its own (at most a million atoms), into *gn
 * (freed by the caller after the network). */
static bnet_t *net_of(game_t *g, gnet_t **gn, strbuf_t *err) {
    ground_opts_t opts = ground_default_opts();
    opts.max_atoms = 1000000;
    char why[256] = "";
    *gn = gnet_new(g, &opts, why, sizeof why);
    if (!*gn) sb_printf(err, "the game does not ground (%s)", why);
    return *gn ? bnet_new(g, *gn, err) : NULL;
}

/* Returns the number of checks that gave up (their later answers were exact). */
static uint64_t check_game(game_t *g, uint32_t matches) {
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    strbuf_t err;
    sb_init(&err);
    gnet_t *gn;
    bnet_t *net = net_of(g, &gn, &err);
    if (!net) fail_msg("%s: %s", g->file, sb_str(&err));
    sb_fini(&err);
    splitmix_t rng = {0x5eed};
    tally_t t = {0};
    uint32_t nr = g->n_roles;
    for (uint32_t m = 0; m < matches; m++) {
        obs_t *obs[16] = {0};
        uint32_t steps = 0, cap = 0;
        state_t s, nx;
        state_init(&s);
        state_init(&nx);
        terms_initial(r, &s);
        while (!terms_terminal(r, &s)) {
            term_t joint[16];
            for (uint32_t k = 0; k < nr; k++) {
                const term_t *mv;
                uint32_t n = terms_legal(r, &s, k, &mv);
                assert_true(n > 0);
                joint[k] = mv[splitmix_next(&rng) % n];
            }
            if (steps == cap) {
                cap = cap ? 2 * cap : 64;
                for (uint32_t k = 0; k < nr; k++)
                    obs[k] = realloc(obs[k], cap * sizeof *obs[k]);
            }
            for (uint32_t k = 0; k < nr; k++)
                obs_record(&obs[k][steps], r, &s, joint, k);
            terms_next(r, &s, joint, &nx);
            state_copy(&s, &nx);
            steps++;
        }
        for (uint32_t k = 0; k < nr; k++)
            if (strcmp(term_sym_name(g->ts, term_sym(g->ts, g->roles[k])), "random"))
                check_role(g, r, net, k, obs[k], steps, m * 31 + k, &t);
        for (uint32_t k = 0; k < nr; k++) {
            for (uint32_t i = 0; i < steps; i++)
                free(obs[k][i].pc);
            free(obs[k]);
        }
        state_fini(&s);
        state_fini(&nx);
    }
    printf("bsmt %s: %u matches, %llu role-steps equal (%llu counted exactly), %llu z3 checks, "
           "%.3f ms per check, %llu gave up (out of conflicts) with exact answers after\n",
           g->file, matches, (unsigned long long)t.steps, (unsigned long long)t.counted,
           (unsigned long long)t.checks, t.checks ? 1000 * t.seconds / t.checks : 0.0,
           (unsigned long long)t.gave_up);
    bnet_free(net);
    gnet_free(gn);
    engine_free(r);
    return t.gave_up;
}

static uint32_t n_matches(void) {
    const char *e = getenv("BSMT_MATCHES");
    return e ? (uint32_t)atoi(e) : 30;
}

static uint64_t run_file(const char *path) {
    game_t *g = load_path(path);
    assert_non_null(g);
    uint64_t gave_up = check_game(g, n_matches());
    game_free(g);
    return gave_up;
}

static void test_guess(void **state) {
    (void)state;
    run_file(GAMES_DIR "/guess.kif");
}

static void test_killer_small(void **state) {
    (void)state;
    /* the give-up path is exercised here: checks out of conflicts, answers exact after */
    assert_true(run_file(GAMES_DIR "/killer_small.kif") > 0);
}

/* Percepts that show the others' moves (every card played is seen): those moves, and
 * what follows from them, fold to constants (fix_seen); answers still exact (two matches: each
 * costs seconds under ASan). */
static void test_tarok(void **state) {
    (void)state;
    game_t *g = load_path(GAMES_DIR "/tarok.kif");
    assert_non_null(g);
    check_game(g, 2);
    game_free(g);
}

static const char *corpus_dir(void) {
    const char *e = getenv("GGP_CORPUS");
    return e ? e : CORPUS_DIR;
}

static void run_corpus(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", corpus_dir(), name);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("corpus game %s not found (set GGP_CORPUS)", path);
    fclose(f);
    run_file(path);
}

static void test_montyhall(void **state) {
    (void)state;
    run_corpus("MontyHall.gdl");
}

static void test_montyhall20(void **state) {
    (void)state;
    run_corpus("MontyHall-20door.gdl");
}

/* Recursive rules whose ground rules are acyclic (`less` is static): accepted and exact. */
static void test_numberguessing(void **state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/numberguessing.gdl", corpus_dir());
    game_t *g = load_path(path);
    if (!g) fail_msg("corpus game %s not found (set GGP_CORPUS)", path);
    uint32_t m = n_matches();
    check_game(g, m < 20 ? m : 20);
    game_free(g);
}

/* Rules that never read `does`: the grounder makes no move nodes, the reasoner still
 * needs one per move (observed moves, one move per role). */
static void test_no_does(void **state) {
    (void)state;
    game_t *g = load_text("(role a) (role random) (init (s 0))"
                          "(<= (legal a x) (true (s ?n))) (<= (legal a y) (true (s ?n)))"
                          "(<= (legal random p) (true (s 0))) (<= (legal random q) (true (s 0)))"
                          "(<= (legal random p) (true (s 1)))"
                          "(<= (next (s 1)) (true (s 0))) (<= (next (s 2)) (true (s 1)))"
                          "(<= (sees a tick) (true (s 0))) (<= terminal (true (s 2)))"
                          "(<= (goal a 100) terminal) (<= (goal a 0) (not terminal))"
                          "(<= (goal random 0))");
    assert_non_null(g);
    check_game(g, 3);
    game_free(g);
}

/* A cycle through ground rules (hex: connected cells) is refused with a reason: the
 * reasoner's equivalences would admit more than the least fixed point. */
static void test_cyclic_refused(void **state) {
    (void)state;
    game_t *g = load_file("hex5.kif");
    assert_non_null(g);
    strbuf_t err;
    sb_init(&err);
    gnet_t *gn;
    assert_null(net_of(g, &gn, &err));
    gnet_free(gn);
    assert_non_null(strstr(sb_str(&err), "recursive"));
    sb_fini(&err);
    game_free(g);
}

static term_t sym(game_t *g, const char *name) {
    return term_const(g->ts, term_intern(g->ts, name, (uint32_t)strlen(name)));
}

/* A proof acted on is confirmed by a second solver (Z3 confirms CaDiCaL): `win` wins
 * whatever the hidden pick was (confirmed), `guess` only in one world (no proof); CaDiCaL
 * told alone that `guess` wins (a wrong answer forced) is refuted, and the proof is not
 * given. */
static void test_confirm(void **state) {
    (void)state;
    game_t *g = load_text("(role a) (role random) (init (s 0))"
                          "(<= (legal random p) (true (s 0))) (<= (legal random q) (true (s 0)))"
                          "(<= (legal random noop) (true (s 1))) (<= (legal a noop) (true (s 0)))"
                          "(<= (legal a win) (true (s 1))) (<= (legal a guess) (true (s 1)))"
                          "(<= (next (s 1)) (true (s 0))) (<= (next (s 2)) (true (s 1)))"
                          "(<= (next (pick ?x)) (does random ?x) (true (s 0)))"
                          "(<= (next (pick ?x)) (true (pick ?x)))"
                          "(<= (next won) (does a win))"
                          "(<= (next won) (does a guess) (true (pick p)))"
                          "(<= (sees a tick) (true (s 0))) (<= terminal (true (s 2)))"
                          "(<= (goal a 100) (true won)) (<= (goal a 0) (not (true won)))"
                          "(<= (goal random 0))");
    assert_non_null(g);
    strbuf_t err;
    sb_init(&err);
    gnet_t *gn;
    bnet_t *net = net_of(g, &gn, &err);
    assert_non_null(net);
    bsmt_t *b = bsmt_new(net, 0, 1);
    term_t tick = sym(g, "tick");
    assert_true(bsmt_observe(b, sym(g, "noop"), &tick, 1));
    assert_int_equal(bsmt_move_wins(b, sym(g, "win"), 0), 1);
    assert_int_equal(bsmt_move_wins(b, sym(g, "guess"), 0), 0);
    bsmt_proofs_t p = bsmt_proofs(b);
    assert_int_equal(p.confirmed, 1);
    assert_int_equal(p.refuted, 0);
    bsmt_test_false_win(b, sym(g, "guess"));
    assert_int_equal(bsmt_move_wins(b, sym(g, "guess"), 0), -1);
    p = bsmt_proofs(b);
    assert_int_equal(p.refuted, 1);
    assert_int_equal(p.confirmed, 1);
    bsmt_free(b);
    bnet_free(net);
    gnet_free(gn);
    sb_fini(&err);
    game_free(g);
}

#define CHUNK 4 /* entries: killer_small's match has about 360 */
#define PER_QUERY BSMT_QUERY_CHUNKS

/* Two reasoners of role 0 fed the same random match of killer_small: b, to be queried at
 * a far deadline (1e6 s: Z3 fed by chunks), and ref at none (every entry given at once);
 * `steps` steps at most. */
static void feed_pair(game_t *g, engine_t *r, bsmt_t *b, bsmt_t *ref, uint32_t steps) {
    splitmix_t rng = {7};
    state_t s, nx;
    state_init(&s);
    state_init(&nx);
    terms_initial(r, &s);
    uint32_t t = 0;
    for (; t < steps && !terms_terminal(r, &s); t++) {
        term_t joint[16], pc[256];
        for (uint32_t k = 0; k < g->n_roles; k++) {
            const term_t *mv;
            uint32_t n = terms_legal(r, &s, k, &mv);
            joint[k] = mv[splitmix_next(&rng) % n];
        }
        uint32_t np = sorted_percepts(r, &s, joint, 0, pc);
        assert_true(bsmt_observe(b, joint[0], pc, np));
        assert_true(bsmt_observe(ref, joint[0], pc, np));
        terms_next(r, &s, joint, &nx);
        state_copy(&s, &nx);
    }
    state_fini(&s);
    state_fini(&nx);
}

/* The entailed fluents of b (at a far deadline) are ref's (at none). */
static void same_entailed(bsmt_t *b, bsmt_t *ref, double far) {
    term_t *got, *want;
    uint32_t ng = bsmt_entailed_all(b, far, &got), nw = bsmt_entailed_all(ref, 0, &want);
    assert_int_not_equal(nw, UINT32_MAX);
    assert_int_equal(ng, nw);
    assert_memory_equal(got, want, nw * sizeof *want);
    free(got);
    free(want);
}

/* A lagging or renewed Z3 solver is fed BSMT_QUERY_CHUNKS chunks of entries per query, each
 * internalised by a check of its own; until it is abreast (at most a chunk left) its
 * queries answer unknown and a scoped query (sampling) does not run; then its answers are
 * those of a reasoner given everything at once. An interrupted check spoils the solver: the
 * next query renews it, fed by chunks again; bsmt_catch_up catches up in one call. Counts,
 * no clock: the deadline is 1e6 s away. */
static void test_feed_chunks(void **state) {
    (void)state;
    game_t *g = load_path(GAMES_DIR "/killer_small.kif");
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    strbuf_t err;
    sb_init(&err);
    gnet_t *gn;
    bnet_t *net = net_of(g, &gn, &err);
    assert_non_null(net);
    bsmt_t *b = bsmt_new(net, 0, 1), *ref = bsmt_new(net, 0, 1);
    bsmt_test_chunk(b, CHUNK);
    feed_pair(g, r, b, ref, 100);
    bsmt_feed_t f = bsmt_feed_stats(b);
    assert_true(f.entries > (2 * PER_QUERY + 1) * CHUNK);
    assert_int_equal(f.given, 0);
    double far = now_seconds() + 1e6;
    /* a lagging solver: unknown while more than a chunk is left after the query's chunk */
    size_t lagging = (f.entries - CHUNK + PER_QUERY * CHUNK - 1) / (PER_QUERY * CHUNK) - 1;
    state_t w[2];
    state_init(&w[0]);
    state_init(&w[1]);
    assert_int_equal(bsmt_sample(b, 2, far, w), 0); /* no scope on a partial feed */
    for (size_t i = 1; i < lagging; i++) {
        assert_int_equal(bsmt_consistent(b, far), -1);
        f = bsmt_feed_stats(b);
        assert_int_equal(f.known, (i + 1) * PER_QUERY * CHUNK);
    }
    assert_int_equal(bsmt_consistent(b, far), 1);
    f = bsmt_feed_stats(b);
    assert_int_equal(f.known, f.entries);
    assert_true(f.max_batch <= CHUNK);
    assert_int_equal(bsmt_sample(b, 2, far, w), 2);
    same_entailed(b, ref, far);
    /* an interrupted check: its solver is renewed and fed by chunks again */
    bsmt_test_interrupt(b);
    assert_int_equal(bsmt_consistent(b, far), -1);
    assert_int_equal(bsmt_consistent(b, far), -1);
    f = bsmt_feed_stats(b);
    assert_int_equal(f.renewed, 1);
    assert_int_equal(f.known, PER_QUERY * CHUNK);
    assert_true(bsmt_catch_up(b, far));
    f = bsmt_feed_stats(b);
    assert_true(f.given == f.entries && f.entries - f.known <= CHUNK);
    assert_true(f.max_batch <= CHUNK);
    same_entailed(b, ref, far);
    state_fini(&w[0]);
    state_fini(&w[1]);
    bsmt_free(b);
    bsmt_free(ref);
    bnet_free(net);
    gnet_free(gn);
    sb_fini(&err);
    engine_free(r);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guess),       cmocka_unit_test(test_montyhall),
        cmocka_unit_test(test_montyhall20), cmocka_unit_test(test_killer_small),
        cmocka_unit_test(test_tarok),       cmocka_unit_test(test_numberguessing),
        cmocka_unit_test(test_no_does),     cmocka_unit_test(test_cyclic_refused),
        cmocka_unit_test(test_confirm),     cmocka_unit_test(test_feed_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
