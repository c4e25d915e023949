/* Unit tests for engine/race: the choice between the ground network and the interpreter
 * from two rates (a pure function), the race's share of a deadline, the verdict kept in the
 * cache and honoured by engine_new on a network without compiled code (GGP_COMPILE_MAX_LITS
 * below its size), sparing the grounding where the interpreter won; and the race of
 * compiled code against its network, its verdict kept beside the code and honoured, at
 * once or when code made in the background is ready; on a big network the engine so made
 * raced against the interpreter, its verdict kept and honoured without grounding. No assertion
 * reads a measured rate: only what is decided from given ones, or that a decision follows the rates
 * it kept. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/clock.h"
#include "code_started.h"
#include "engine/backend.h"
#include "engine/compile.h"
#include "engine/engine.h"
#include "engine/ground.h"
#include "engine/race.h"
#include "load.h"
#include "scratch.h"

/* The interpreter only where it is faster by the margin; an unmeasured rate (0) loses. */
static void test_choice(void **state) {
    (void)state;
    assert_int_equal(race_choice(100, 1000), ENGINE_INTERP);
    assert_int_equal(race_choice(1.46, 3.1), ENGINE_INTERP);
    assert_int_equal(race_choice(1000, 100), ENGINE_GROUND);
    assert_int_equal(race_choice(100, 100), ENGINE_GROUND);
    assert_int_equal(race_choice(100, 110), ENGINE_GROUND); /* within the margin */
    assert_int_equal(race_choice(0, 5), ENGINE_INTERP);
    assert_int_equal(race_choice(5, 0), ENGINE_GROUND);
    assert_int_equal(race_choice(0, 0), ENGINE_GROUND);
}

/* The code is dropped only where the network is faster by the margin; an unmeasured rate
 * (0) loses. */
static void test_keeps_code(void **state) {
    (void)state;
    assert_true(race_keeps_code(1000, 100));
    assert_true(race_keeps_code(100, 100));
    assert_true(race_keeps_code(100, 120)); /* within the margin */
    assert_false(race_keeps_code(87, 229)); /* alexChess, 28 Nov */
    assert_false(race_keeps_code(0, 5));
    assert_true(race_keeps_code(5, 0));
    assert_true(race_keeps_code(0, 0));
}

/* Without a deadline the race has its bound; with one, a tenth of what is left, nothing when
 * that is too little (a deadline passed, or a tenth of a second away: time only shortens
 * it), the bound when it is far. */
static void test_seconds(void **state) {
    (void)state;
    double none = race_seconds(0);
    assert_true(none > 0.5 && none <= 2.0);
    assert_true(race_seconds(now_seconds() - 1) == 0);
    assert_true(race_seconds(now_seconds() + 0.1) == 0);
    assert_true(race_seconds(now_seconds() + 1e6) == none);
}

/* A temporary cache directory as GGP_CACHE, and no network compiled (both restored by
 * env_restore). */
typedef struct {
    char dir[64];
    char *cache, *max_lits;
} env_t;

static void env_use(env_t *e) {
    snprintf(e->dir, sizeof e->dir, "/tmp/ggp-test-race-XXXXXX");
    e->cache = env_keep("GGP_CACHE"), e->max_lits = env_keep("GGP_COMPILE_MAX_LITS");
    assert_non_null(mkdtemp(e->dir));
    setenv("GGP_CACHE", e->dir, 1);
    setenv("GGP_COMPILE_MAX_LITS", "1", 1);
}

static void env_restore(env_t *e) {
    int rm = scratch_remove(e->dir);
    env_put("GGP_CACHE", e->cache), env_put("GGP_COMPILE_MAX_LITS", e->max_lits);
    assert_int_equal(rm, 0);
}

static void test_read_write(void **state) {
    (void)state;
    env_t env;
    env_use(&env);
    char path[128];
    snprintf(path, sizeof path, "%s/race-x", env.dir);
    double g = -1, i = -1;
    uint32_t lits = 1;
    bool none = race_read(path, &g, &i, &lits);
    race_write(path, 1234.5, 67.5, 7575175);
    bool read = race_read(path, &g, &i, &lits);
    env_restore(&env);
    assert_false(none);
    assert_true(read);
    assert_true(g == 1234.5 && i == 67.5);
    assert_int_equal(lits, 7575175);
}

/* The kind engine_new(kind) makes for g (its grounding seconds into *spent, when given),
 * and that it plays a match to its end. */
static engine_kind_t kind_made(game_t *g, engine_kind_t kind, double *spent) {
    engine_t *e = engine_new(g, kind, NULL);
    engine_kind_t k = engine_kind(e);
    if (spent) *spent = engine_ground_seconds(e);
    eng_state_t *s = engine_state_new(e);
    splitmix_t rng = {7};
    int goals[2];
    engine_initial(e, s);
    engine_playout(e, s, &rng, 1000, goals);
    assert_true(engine_terminal(e, s));
    engine_state_free(s);
    engine_free(e);
    return k;
}

/* A verdict in the cache decides auto's choice without a race: the interpreter where it was
 * faster, the ground network where it was; a forced ground engine, and a forced compiled one
 * that cannot be had, are the network whatever the verdict. Without a verdict, the race's is
 * kept, and the next load follows it. The interpreter picked over a network it grounded
 * (under the cap of the verdict, over the compiler's) reports that grounding's seconds. */
static void test_verdict_honoured(void **state) {
    (void)state;
    env_t env;
    env_use(&env);
    game_t *g = load_file("tictactoe.kif");
    assert_non_null(g);
    char path[1200];
    engine_race_marker(g, path, sizeof path);
    assert_non_null(strstr(path, env.dir));
    engine_kind_t k[6];
    write_file(path, "ground 100\ninterp 1000\n");
    double spent = 0;
    k[0] = kind_made(g, ENGINE_AUTO, &spent);
    k[1] = kind_made(g, ENGINE_COMPILED, NULL);
    k[2] = kind_made(g, ENGINE_GROUND, NULL);
    write_file(path, "ground 1000\ninterp 100\n");
    k[3] = kind_made(g, ENGINE_AUTO, NULL);
    unlink(path);
    /* races, with no deadline: the race's own bound (a deadline 2 s ahead let a starved
     * thread ground past it, or leave under a tenth of a second: then no race, no verdict) */
    engine_free(engine_new_by(g, ENGINE_AUTO, NULL, 0));
    double rg = 0, ri = 0;
    uint32_t lits = 0;
    bool kept = race_read(path, &rg, &ri, &lits);
    k[4] = kind_made(g, ENGINE_AUTO, NULL);
    k[5] = race_choice(rg, ri);
    game_free(g);
    env_restore(&env);
    assert_int_equal(k[0], ENGINE_INTERP);
    assert_true(spent > 0);
    assert_int_equal(k[1], ENGINE_GROUND);
    assert_int_equal(k[2], ENGINE_GROUND);
    assert_int_equal(k[3], ENGINE_GROUND);
    assert_true(kept);
    assert_true(lits > 1); /* tic-tac-toe's network, over the cap of 1 */
    assert_int_equal(k[4], k[5]);
}

/* A verdict for the interpreter on a network over the compiler's cap spares the grounding:
 * with a work limit the grounder cannot meet, no failure to ground is remembered (it did not
 * try); with the network under the cap now (the verdict came from a failed compiler), it
 * grounds again, and fails there. The interpreter reports the grounding it cost: none where
 * spared, some where tried (a count of seconds, any grounding takes more than none). */
static void test_verdict_spares_grounding(void **state) {
    (void)state;
    env_t env;
    env_use(&env);
    char *work = env_keep("GGP_GROUND_WORK");
    setenv("GGP_GROUND_WORK", "10", 1);
    game_t *g = load_file("tictactoe.kif");
    assert_non_null(g);
    char path[1200], noground[1200];
    engine_race_marker(g, path, sizeof path);
    engine_noground_marker(g, noground, sizeof noground);
    write_file(path, "ground 100\ninterp 1000\nliterals 5000\n");
    engine_t *e = engine_new(g, ENGINE_AUTO, NULL);
    engine_kind_t k0 = engine_kind(e);
    double spent0 = engine_ground_seconds(e);
    engine_free(e);
    bool tried0 = access(noground, F_OK) == 0;
    write_file(path, "ground 100\ninterp 1000\nliterals 1\n");
    e = engine_new(g, ENGINE_AUTO, NULL);
    engine_kind_t k1 = engine_kind(e);
    double spent1 = engine_ground_seconds(e);
    engine_free(e);
    bool tried1 = access(noground, F_OK) == 0;
    game_free(g);
    env_put("GGP_GROUND_WORK", work);
    env_restore(&env);
    assert_int_equal(k0, ENGINE_INTERP);
    assert_false(tried0);
    assert_true(spent0 == 0);
    assert_int_equal(k1, ENGINE_INTERP);
    assert_true(tried1);
    assert_true(spent1 > 0);
}

/* The verdict of the code's race in dir (the one file beside an object) into path. */
static bool code_verdict_file(const char *dir, char *path, size_t n) {
    char pattern[200];
    snprintf(pattern, sizeof pattern, "%s/net-*.so.race", dir);
    glob_t gl;
    bool one = glob(pattern, 0, NULL, &gl) == 0 && gl.gl_pathc == 1;
    if (one) snprintf(path, n, "%s", gl.gl_pathv[0]);
    globfree(&gl);
    return one;
}

/* The kind the kept rates at path decide. */
static engine_kind_t kind_kept(const char *path) {
    double rc = 0, rn = 0;
    assert_true(race_code_read(path, &rc, &rn));
    return race_keeps_code(rc, rn) ? ENGINE_COMPILED : ENGINE_GROUND;
}

/* An engine made as auto does on code still being compiled (the compiler held back until
 * a gate file exists: no clock decides), its clone, both played until the code is ready
 * and once more; their kinds then into k[0] and k[1]. */
static void kinds_once_ready(game_t *g, const char *gate, engine_kind_t *k) {
    gnet_t *net;
    netcode_t *code = code_started(g, &net);
    netcode_ref(code); /* to watch it */
    engine_t *e = gengine_new_raced(g, net, code, 0), *c = engine_clone(e);
    assert_int_equal(engine_kind(e), ENGINE_GROUND);
    write_file(gate, "open\n");
    eng_state_t *s = engine_state_new(e);
    splitmix_t rng = {3};
    int goals[2];
    /* a bound on the number of waits, not on time */
    for (int i = 0; i < 60000 && netcode_state(code) == NETCODE_BUSY; i++) {
        struct timespec t = {0, 10000000};
        nanosleep(&t, NULL);
    }
    engine_t *both[2] = {e, c};
    for (int i = 0; i < 2; i++) {
        engine_initial(both[i], s);
        engine_playout(both[i], s, &rng, 1000, goals);
        k[i] = engine_kind(both[i]);
    }
    engine_state_free(s);
    engine_free(c), engine_free(e);
    netcode_unref(code);
}

/* Every network is compiled (no cap that tic-tac-toe's could meet), and auto keeps the
 * code only where it beats the network: the first load races and keeps the rates beside
 * the code, which decide as they say; rates kept there decide the next loads (a forced
 * compiled kind keeps the code whatever they say). Code ready in the background is raced
 * then (the rates kept, the engine and its clone following them), or follows the rates
 * already kept. */
static void test_code_raced(void **state) {
    (void)state;
    env_t env;
    env_use(&env);
    unsetenv("GGP_COMPILE_MAX_LITS");
    char *cc = env_keep("GGP_CC");
    game_t *g = load_file("tictactoe.kif");
    assert_non_null(g);
    char path[1200], gate[200];
    engine_kind_t k[6], once[2], kept[2];
    k[0] = kind_made(g, ENGINE_AUTO, NULL);
    assert_true(code_verdict_file(env.dir, path, sizeof path));
    engine_kind_t raced = kind_kept(path);
    write_file(path, "code 100\nnetwork 1000\n");
    k[1] = kind_made(g, ENGINE_AUTO, NULL);
    k[2] = kind_made(g, ENGINE_COMPILED, NULL);
    write_file(path, "code 1000\nnetwork 100\n");
    k[3] = kind_made(g, ENGINE_AUTO, NULL);
    /* the code made again, in the background: no rates kept, then rates for the network */
    snprintf(gate, sizeof gate, "%s/gate", env.dir);
    use_gated_cc(env.dir, gate);
    unlink(path);
    path[strlen(path) - strlen(".race")] = 0;
    unlink(path); /* the object: made again */
    kinds_once_ready(g, gate, once);
    assert_true(code_verdict_file(env.dir, path, sizeof path));
    engine_kind_t raced_later = kind_kept(path);
    write_file(path, "code 100\nnetwork 1000\n");
    unlink(gate);
    kinds_once_ready(g, gate, kept);
    env_put("GGP_CC", cc);
    game_free(g);
    env_restore(&env);
    assert_int_equal(k[0], raced);
    assert_int_equal(k[1], ENGINE_GROUND);
    assert_int_equal(k[2], ENGINE_COMPILED);
    assert_int_equal(k[3], ENGINE_COMPILED);
    assert_int_equal(once[0], raced_later), assert_int_equal(once[1], raced_later);
    assert_int_equal(kept[0], ENGINE_GROUND), assert_int_equal(kept[1], ENGINE_GROUND);
}

/* On a network of at least race_interp_lits() literals (1 here) the engine auto makes with
 * its code races the interpreter: a kept verdict for the interpreter takes it at once,
 * without grounding; one for the engine keeps what the code's race chose (code or
 * network); without one, the race is kept and decides. Under the bound (the default, over
 * tic-tac-toe's network) nothing races. */
static void test_big_network_races_interp(void **state) {
    (void)state;
    env_t env;
    env_use(&env);
    unsetenv("GGP_COMPILE_MAX_LITS");
    char *bound = env_keep("GGP_RACE_INTERP_LITS");
    unsetenv("GGP_RACE_INTERP_LITS");
    game_t *g = load_file("tictactoe.kif");
    assert_non_null(g);
    char path[1200], code[1200];
    engine_vsinterp_marker(g, path, sizeof path);
    engine_kind_t k[4];
    k[0] = kind_made(g, ENGINE_AUTO, NULL);
    bool under = access(path, F_OK) != 0;
    /* the code's own race (kept beside it) decides code or network: not asserted here */
    assert_true(code_verdict_file(env.dir, code, sizeof code));
    engine_kind_t on_net = kind_kept(code);
    setenv("GGP_RACE_INTERP_LITS", "1", 1);
    write_file(path, "ground 100\ninterp 1000\n");
    double spent = 1;
    k[1] = kind_made(g, ENGINE_AUTO, &spent);
    write_file(path, "ground 1000\ninterp 100\n");
    k[2] = kind_made(g, ENGINE_AUTO, NULL);
    unlink(path);
    engine_free(engine_new_by(g, ENGINE_AUTO, NULL, 0)); /* races: no deadline, its own bound */
    double re = 0, ri = 0;
    uint32_t lits = 0;
    bool kept = race_read(path, &re, &ri, &lits);
    k[3] = kind_made(g, ENGINE_AUTO, NULL);
    env_put("GGP_RACE_INTERP_LITS", bound);
    game_free(g);
    env_restore(&env);
    assert_true(under);
    assert_int_equal(k[0], on_net);
    assert_int_equal(k[1], ENGINE_INTERP);
    assert_true(spent == 0);
    assert_int_equal(k[2], on_net);
    assert_true(kept);
    assert_int_equal(k[3] == ENGINE_INTERP, race_choice(re, ri) == ENGINE_INTERP);
}

/* Whether an object of compiled code is in dir. */
static bool object_made(const char *dir) {
    char pattern[200];
    snprintf(pattern, sizeof pattern, "%s/net-*.so", dir);
    glob_t gl;
    bool made = glob(pattern, 0, NULL, &gl) == 0 && gl.gl_pathc > 0;
    globfree(&gl);
    return made;
}

/* The kind auto makes by a near deadline on a big network (bound 1) whose code the gated
 * compiler holds back, with verdict (ground against interpreter) in the race marker; then
 * the gate opened: whether the object reached the cache while that engine lived (*made). */
static engine_kind_t kind_while_compiling(game_t *g, const char *dir, const char *verdict,
                                          bool *made) {
    char path[1200], gate[200];
    engine_race_marker(g, path, sizeof path);
    write_file(path, verdict);
    snprintf(gate, sizeof gate, "%s/gate", dir);
    unlink(gate);
    engine_t *e = engine_new_by(g, ENGINE_AUTO, NULL, now_seconds() + 0.5);
    engine_kind_t k = engine_kind(e);
    write_file(gate, "open\n");
    /* a bound on the number of waits, not on time */
    for (int i = 0; i < 30000 && !object_made(dir); i++) {
        struct timespec t = {0, 10000000};
        nanosleep(&t, NULL);
    }
    *made = object_made(dir);
    engine_free(e);
    return k;
}

/* On a big network whose code is still compiling at the deadline the network plays until
 * the code is ready, and the interpreter can be the faster: a verdict of the race marker
 * (network against interpreter) for the interpreter takes it, and the compile goes on into
 * the cache; one for the network keeps the network (its code compiling). */
static void test_busy_code_races_interp(void **state) {
    (void)state;
    env_t env;
    env_use(&env);
    unsetenv("GGP_COMPILE_MAX_LITS");
    char *bound = env_keep("GGP_RACE_INTERP_LITS"), *cc = env_keep("GGP_CC");
    setenv("GGP_RACE_INTERP_LITS", "1", 1);
    char gate[200];
    snprintf(gate, sizeof gate, "%s/gate", env.dir);
    use_gated_cc(env.dir, gate);
    game_t *g = load_file("tictactoe.kif");
    assert_non_null(g);
    bool made[2];
    engine_kind_t k0 = kind_while_compiling(g, env.dir, "ground 100\ninterp 1000\n", &made[0]);
    char pattern[200];
    snprintf(pattern, sizeof pattern, "rm -f %s/net-*", env.dir);
    assert_int_equal(system(pattern), 0); /* the code made again */
    engine_kind_t k1 = kind_while_compiling(g, env.dir, "ground 1000\ninterp 100\n", &made[1]);
    game_free(g);
    env_put("GGP_CC", cc);
    env_put("GGP_RACE_INTERP_LITS", bound);
    env_restore(&env);
    assert_int_equal(k0, ENGINE_INTERP);
    assert_true(made[0]);
    assert_int_equal(k1, ENGINE_GROUND);
    assert_true(made[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_keeps_code),
        cmocka_unit_test(test_seconds),
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_verdict_honoured),
        cmocka_unit_test(test_verdict_spares_grounding),
        cmocka_unit_test(test_code_raced),
        cmocka_unit_test(test_big_network_races_interp),
        cmocka_unit_test(test_busy_code_races_interp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
