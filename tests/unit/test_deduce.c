/* The `deduce` player on killer_small against exact enumeration: three deducing players
 * (`deduce:playouts=4`, `deduce:choose=secret`, `pimc` with alpha-beta, `pimc` with UCT, in turn)
 * play seeded matches (the master's `random` deals); at every turn where a player may
 * accuse, its belief set is enumerated exactly from what it saw, and the player must
 * accuse exactly when the killer card is the same in every consistent state, naming that
 * card; it must never accuse wrongly; the legal moves it tells (from its own belief) are
 * the true ones at every step, even after turns played past their deadline (p1's, always already
 * gone: no timing). DEDUCE_MATCHES (environment) sets the number of matches, 10 by default.
 * On Monty Hall (corpus), `pimc` switches (weighted worlds) and `deduce` stays. */
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
#include "player/agent.h"
#include "player/player.h"

#define ROLES 4

static bool named(const game_t *g, term_t t, const char *name) {
    return !strcmp(term_sym_name(g->ts, term_sym(g->ts, t)), name);
}

/* The killer card if every non-terminal state agrees on it, else TERM_NONE; as the term
 * (killer X Y). A player asked to move knows the game goes on: after a wrong accusation
 * the states where it was right (terminal) are not its worlds. */
static term_t entailed_killer(const game_t *g, engine_t *r, const set_t *s) {
    term_t k = TERM_NONE;
    bool first = true;
    for (uint32_t i = 0; i < s->n; i++) {
        if (terms_terminal(r, &s->v[i])) continue;
        term_t here = TERM_NONE;
        for (uint32_t j = 0; j < s->v[i].n; j++)
            if (term_kind(g->ts, s->v[i].facts[j]) == TERM_FUN &&
                named(g, s->v[i].facts[j], "killer"))
                here = s->v[i].facts[j];
        if (first) k = here;
        first = false;
        if (here != k) return TERM_NONE;
    }
    return k;
}

typedef struct {
    uint64_t choices, accusations, entailed_turns;
    uint64_t legal_asked, legal_unknown; /* player_legal calls; those it could not answer */
} tally_t;

/* The match played on r (the interpreter: the referee), the players on pe (a ground
 * engine, whose network their belief reasoner unrolls). */
static void play_match(game_t *g, engine_t *r, engine_t *pe, const player_kind_t *kind,
                       uint64_t seed, tally_t *t) {
    player_t *pl[ROLES] = {0};
    belief_obs_t *hist[ROLES] = {0};
    obs_t *obs[ROLES] = {0};
    set_t bel[ROLES] = {{0}};
    uint32_t steps = 0, cap = 0;
    state_t s, nx;
    state_init(&s);
    state_init(&nx);
    terms_initial(r, &s);
    for (uint32_t k = 1; k < ROLES; k++) {
        player_setup_t su = {.game = g,
                             .engine = pe,
                             .role = k,
                             .startclock = 10,
                             .playclock = 10,
                             .seed = seed * 7 + k};
        pl[k] = player_new(kind, &su);
        player_start(pl[k], &s, now_seconds() + 1e6);
        set_add(&bel[k], &s);
    }
    splitmix_t rng = {seed};
    while (!terms_terminal(r, &s)) {
        term_t joint[ROLES];
        for (uint32_t k = 0; k < ROLES; k++) {
            const term_t *m;
            uint32_t n = terms_legal(r, &s, k, &m);
            assert_true(n > 0);
            if (k == 0) {
                joint[k] = m[splitmix_next(&rng) % n];
                continue;
            }
            term_t *legal = malloc(n * sizeof *legal);
            memcpy(legal, m, n * sizeof *m);
            player_turn_t turn = {.legal = legal,
                                  .n_legal = n,
                                  .turn = steps,
                                  .history = hist[k],
                                  .n_history = steps};
            /* the legal moves it knows are the true ones */
            term_t *own;
            uint32_t no = player_legal(pl[k], &turn, now_seconds() + 1e6, &own);
            qsort(legal, n, sizeof *legal, cmp_u32);
            /* never "cannot tell" (0), even after p1's turns past its clock */
            t->legal_asked++;
            if (no == 0) t->legal_unknown++;
            assert_int_equal(no, n);
            assert_memory_equal(own, legal, n * sizeof *legal);
            free(own);
            /* p1 plays past its deadline (already gone, not a few milliseconds away, so that
             * the match does not depend on the machine's load): Z3 answers nothing, it must
             * still know its legal moves at the next step */
            joint[k] = player_play(pl[k], &turn, now_seconds() + (k == 1 ? -1 : 1e6), NULL);
            bool can_accuse = false;
            for (uint32_t i = 0; i < n; i++)
                can_accuse |=
                    term_kind(g->ts, legal[i]) == TERM_FUN && named(g, legal[i], "accuse");
            if (can_accuse && k != 1) {
                t->choices++;
                term_t killer = entailed_killer(g, r, &bel[k]);
                bool accuses =
                    term_kind(g->ts, joint[k]) == TERM_FUN && named(g, joint[k], "accuse");
                if (killer != TERM_NONE) t->entailed_turns++;
                if (accuses) t->accusations++;
                if (accuses != (killer != TERM_NONE)) {
                    strbuf_t sb;
                    sb_init(&sb);
                    term_print(g->ts, joint[k], &sb);
                    sb_puts(&sb, " killer ");
                    if (killer) term_print(g->ts, killer, &sb);
                    print_message("role %u step %u: %u states, plays %s\n", k, steps, bel[k].n,
                                  sb_str(&sb));
                }
                /* accuse exactly when the killer is entailed, and name it */
                assert_int_equal(accuses, killer != TERM_NONE);
                if (accuses) {
                    assert_int_equal(term_arg(g->ts, joint[k], 0), term_arg(g->ts, killer, 0));
                    assert_int_equal(term_arg(g->ts, joint[k], 1), term_arg(g->ts, killer, 1));
                }
            }
            free(legal);
        }
        if (steps == cap) {
            cap = cap ? 2 * cap : 128;
            for (uint32_t k = 0; k < ROLES; k++) {
                hist[k] = realloc(hist[k], cap * sizeof *hist[k]);
                obs[k] = realloc(obs[k], cap * sizeof *obs[k]);
            }
        }
        for (uint32_t k = 1; k < ROLES; k++) {
            obs_t *o = &obs[k][steps];
            obs_record(o, r, &s, joint, k);
            hist[k][steps] = (belief_obs_t){o->move, o->pc, o->n};
            belief_step(r, g, k, o, &bel[k]);
            assert_true(bel[k].n > 0);
        }
        terms_next(r, &s, joint, &nx);
        state_copy(&s, &nx);
        steps++;
    }
    for (uint32_t k = 1; k < ROLES; k++) {
        player_stop(pl[k]);
        player_free(pl[k]);
        for (uint32_t i = 0; i < steps; i++)
            free(obs[k][i].pc);
        free(obs[k]);
        free(hist[k]);
        set_free(&bel[k]);
    }
    free(obs[0]); /* the random role's entries: allocated, never filled */
    free(hist[0]);
    state_fini(&s);
    state_fini(&nx);
}

static void test_deduce_killer_small(void **state) {
    (void)state;
    game_t *g = load_file("killer_small.kif");
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL), *pe = engine_new(g, ENGINE_GROUND, stderr);
    assert_int_equal(engine_kind(pe), ENGINE_GROUND);
    /* the default player, and the one that hides what it shows (every other match) */
    const player_kind_t *kind = player_kind_find("deduce:playouts=4");
    const player_kind_t *secret = player_kind_find("deduce:choose=secret:playouts=4");
    /* PIMC with alpha-beta to two joint moves, with 200 UCT iterations per world (bounds,
     * not the clock: the deadlines are far away) */
    const player_kind_t *pimc = player_kind_find("pimc:search=ab:depth=2:worlds=2");
    const player_kind_t *pimc_uct = player_kind_find("pimc:search=uct:iters=200:worlds=2");
    assert_non_null(kind);
    assert_non_null(secret);
    assert_non_null(pimc);
    assert_non_null(pimc_uct);
    const player_kind_t *kinds[] = {kind, secret, pimc, pimc_uct};
    const char *e = getenv("DEDUCE_MATCHES");
    uint32_t matches = e ? (uint32_t)atoi(e) : 10;
    tally_t t = {0};
    for (uint32_t m = 0; m < matches; m++)
        play_match(g, r, pe, kinds[m % 4], 1000 + m, &t);
    printf("deduce killer_small: %u matches, %llu choices, %llu with the killer entailed, "
           "%llu accusations, all right\n",
           matches, (unsigned long long)t.choices, (unsigned long long)t.entailed_turns,
           (unsigned long long)t.accusations);
    assert_true(t.accusations > 0);
    printf("deduce killer_small: legal moves asked %llu times, not known %llu times\n",
           (unsigned long long)t.legal_asked, (unsigned long long)t.legal_unknown);
    assert_int_equal(t.legal_unknown, 0);
    engine_free(r);
    engine_free(pe);
    game_free(g);
}

/* One match of three players, each through an agent as `ggp match` drives a
 * local seat, where each turn's deadline is, by a seeded coin, already past (Z3 answers
 * nothing: a player has only what it carries natively and what the known fluents fix) or
 * far away (every check answers): a fact about every path, not a timing. The move an
 * agent sends must be legal; when its player proves no move legal (a past deadline) it
 * sends the move legal by construction, computed after the observation (issue 24), else
 * none and the master plays a random legal move for it. At most max_steps steps.
 * observe_far: the agents' belief updates get a far deadline, else one already past. */
static void play_pressed(game_t *g, engine_t *r, const player_kind_t *kind, uint64_t seed,
                         uint32_t max_steps, bool observe_far, tally_t *t) {
    agent_t *a[ROLES] = {0};
    uint32_t steps = 0;
    term_t joint[ROLES], buf[256];
    state_t s, nx;
    state_init(&s);
    state_init(&nx);
    terms_initial(r, &s);
    for (uint32_t k = 1; k < ROLES; k++) {
        agent_config_t cfg = {.kind = kind, .startclock = 1, .playclock = 1, .seed = seed * 7 + k};
        a[k] = agent_new(g, k, &cfg);
        agent_start(a[k], now_seconds() + 1e6);
    }
    splitmix_t rng = {seed}, coin = {seed ^ 0xc0ffee};
    while (!terms_terminal(r, &s) && steps < max_steps) {
        for (uint32_t k = 0; k < ROLES; k++) {
            const term_t *m;
            uint32_t n = terms_legal(r, &s, k, &m);
            assert_true(n > 0);
            term_t any = m[splitmix_next(&rng) % n]; /* random's, or the master's for a seat */
            joint[k] = any;
            if (k == 0) continue;
            bool pressed = splitmix_next(&coin) % 3 == 0;
            double deadline = pressed ? now_seconds() - 1 : now_seconds() + 1e6;
            term_t move = agent_play(a[k], deadline, NULL);
            t->legal_asked++;
            terms_legal(r, &s, k, &m); /* the agent's engine calls may have moved it */
            if (move == TERM_NONE) {
                t->legal_unknown++;
                assert_true(pressed); /* with time, a move is always known */
                continue;
            }
            assert_true(term_in(m, n, move)); /* never an illegal move */
            joint[k] = move;
        }
        for (uint32_t k = 1; k < ROLES; k++) {
            uint32_t n = sorted_percepts(r, &s, joint, k, buf);
            agent_observe(a[k], steps + 1, joint[k], buf, n,
                          now_seconds() + (observe_far ? 1e6 : -1));
        }
        terms_next(r, &s, joint, &nx);
        state_copy(&s, &nx);
        steps++;
    }
    for (uint32_t k = 1; k < ROLES; k++) {
        agent_stop(a[k]);
        agent_free(a[k]);
    }
    state_fini(&s);
    state_fini(&nx);
}

/* The seeds of `ggp match games/killer.kif --players deduce,deduce,deduce --playclock 0.5
 * --seed 1` (issue 24: illegal moves where the player, out of time, fell back on stale
 * belief states) replayed with deadlines past or far by a coin; and killer_small. */
static void test_deduce_legal_pressed(void **state) {
    (void)state;
    const player_kind_t *kind = player_kind_find("deduce:playouts=2:worlds=1");
    assert_non_null(kind);
    const char *games[] = {"killer_small.kif", "killer.kif"};
    const uint32_t max_steps[] = {1000, 60};
    for (int gi = 0; gi < 2; gi++) {
        game_t *g = load_file(games[gi]);
        assert_non_null(g);
        engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
        tally_t t = {0};
        for (uint64_t seed = 1; seed <= (gi ? 1u : 2u); seed++)
            play_pressed(g, r, kind, seed, max_steps[gi], true, &t);
        printf("deduce %s pressed: legal moves asked %llu times, none proved %llu times\n",
               games[gi], (unsigned long long)t.legal_asked, (unsigned long long)t.legal_unknown);
        /* observed in time, every turn has a move legal by construction (at 7ff78fa,
         * before it, 5 and 8 turns had none) */
        assert_int_equal(t.legal_unknown, 0);
        engine_free(r);
        game_free(g);
    }
}

/* mcts, a player on the agent's sampled belief states, on the full killer game (issue 24:
 * `ggp match games/killer.kif --players mcts,mcts,mcts --playclock 0.5 --matches 100`
 * sent one illegal move, legal in every sampled state, not in the true one): the moves
 * sent are those CaDiCaL proves legal, deadlines past or far by a coin, iterations fixed. */
static void test_mcts_legal_pressed(void **state) {
    (void)state;
    const player_kind_t *kind = player_kind_find("mcts:iters=50:ponder=off");
    assert_non_null(kind);
    game_t *g = load_file("killer.kif");
    assert_non_null(g);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    tally_t t = {0};
    play_pressed(g, r, kind, 1, 60, true, &t);
    printf("mcts killer.kif pressed: legal moves asked %llu times, none proved %llu times\n",
           (unsigned long long)t.legal_asked, (unsigned long long)t.legal_unknown);
    assert_int_equal(t.legal_unknown, 0);
    engine_free(r);
    game_free(g);
}

/* Every kind that plays on the agent's belief (`random`, `legal`, `mcts`) on tarok and
 * killer_small (issue 26: at 773fd45 `random` and `mcts` sent 41 illegal moves in 300
 * tarok matches, from sampled belief states): the moves sent are legal in the true state
 * whether the turn's deadline is far or already past. The belief is updated with a past
 * deadline (a far one replays tarok's history for minutes): its states are a sample, the
 * moves those the belief reasoner proves. */
static void test_belief_kinds_legal_pressed(void **state) {
    (void)state;
    const char *kinds[] = {"random", "legal", "mcts:iters=20:ponder=off"};
    const char *games[] = {"tarok.kif", "killer_small.kif"};
    for (int gi = 0; gi < 2; gi++) {
        game_t *g = load_file(games[gi]);
        assert_non_null(g);
        engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
        for (int ki = 0; ki < 3; ki++) {
            const player_kind_t *kind = player_kind_find(kinds[ki]);
            assert_non_null(kind);
            tally_t t = {0};
            for (uint64_t seed = 1; seed <= 2; seed++)
                play_pressed(g, r, kind, seed, 1000, false, &t);
            printf("%s %s pressed: legal moves asked %llu times, none proved %llu times\n",
                   kinds[ki], games[gi], (unsigned long long)t.legal_asked,
                   (unsigned long long)t.legal_unknown);
        }
        engine_free(r);
        game_free(g);
    }
}

/* The move `kind` plays, as candidate, at the last step of a Monty Hall match (the
 * master's `random` hides the car and opens a door by seed): switch or noop. */
static term_t montyhall_last(game_t *g, engine_t *r, engine_t *pe, const player_kind_t *kind,
                             uint64_t seed) {
    const uint32_t me = 1;
    player_setup_t su = {
        .game = g, .engine = pe, .role = me, .startclock = 10, .playclock = 10, .seed = seed};
    player_t *pl = player_new(kind, &su);
    state_t s, nx;
    state_init(&s);
    state_init(&nx);
    terms_initial(r, &s);
    player_start(pl, &s, now_seconds() + 1e6);
    splitmix_t rng = {seed};
    belief_obs_t hist[8];
    term_t pc[8][16], last = TERM_NONE;
    for (uint32_t step = 0; !terms_terminal(r, &s); step++) {
        assert_true(step < 8);
        term_t joint[2];
        const term_t *m;
        uint32_t n = terms_legal(r, &s, 0, &m);
        joint[0] = m[splitmix_next(&rng) % n];
        n = terms_legal(r, &s, me, &m);
        term_t *legal = malloc(n * sizeof *legal);
        memcpy(legal, m, n * sizeof *m);
        player_turn_t turn = {
            .legal = legal, .n_legal = n, .turn = step, .history = hist, .n_history = step};
        joint[me] = last = player_play(pl, &turn, now_seconds() + 1e6, NULL);
        free(legal);
        hist[step] =
            (belief_obs_t){joint[me], pc[step], sorted_percepts(r, &s, joint, me, pc[step])};
        terms_next(r, &s, joint, &nx);
        state_copy(&s, &nx);
    }
    player_stop(pl);
    player_free(pl);
    state_fini(&s);
    state_fini(&nx);
    return last;
}

/* Monty Hall (corpus): the two consistent states weighted by the host's choices (2/3 that
 * the car is behind the other door) and both last moves ending the game, `pimc` switches
 * in every match; `deduce` never gambles and stays (switching loses in one world). */
static void test_pimc_montyhall(void **state) {
    (void)state;
    const char *dir = getenv("GGP_CORPUS");
    char path[1024];
    snprintf(path, sizeof path, "%s/MontyHall.gdl", dir ? dir : CORPUS_DIR);
    game_t *g = load_path(path);
    if (!g) fail_msg("corpus game %s not found (set GGP_CORPUS)", path);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL), *pe = engine_new(g, ENGINE_GROUND, stderr);
    const player_kind_t *pimc = player_kind_find("pimc:depth=2");
    const player_kind_t *deduce = player_kind_find("deduce:playouts=4");
    for (uint64_t seed = 1; seed <= 6; seed++) {
        assert_true(named(g, montyhall_last(g, r, pe, pimc, seed), "switch"));
        assert_true(named(g, montyhall_last(g, r, pe, deduce, seed), "noop"));
    }
    engine_free(pe);
    engine_free(r);
    game_free(g);
}

static void test_options(void **state) {
    (void)state;
    assert_non_null(player_kind_find("deduce:playouts=3:choose=info"));
    assert_non_null(player_kind_find("deduce:choose=playouts"));
    assert_non_null(player_kind_find("deduce:choose=random:worlds=1"));
    assert_non_null(player_kind_find("deduce:choose=secret"));
    assert_null(player_kind_find("deduce:worlds=0"));
    assert_null(player_kind_find("deduce:worlds=17"));
    assert_null(player_kind_find("deduce:choose=bogus"));
    assert_null(player_kind_find("deduce:playouts=0"));
    assert_null(player_kind_find("deduce:playouts=3:"));
    assert_non_null(player_kind_find("deduce:choose=pimc:depth=3"));
    assert_non_null(player_kind_find("pimc"));
    assert_non_null(player_kind_find("pimc:worlds=8:depth=200"));
    assert_null(player_kind_find("pimc:depth=0"));
    assert_null(player_kind_find("pimc:depth=201"));
    assert_non_null(player_kind_find("pimc:search=uct:iters=50"));
    assert_null(player_kind_find("pimc:search=mcts"));
    assert_null(player_kind_find("pimc:iters=0"));
    assert_non_null(player_kind_find("pimc:ties=first"));
    assert_non_null(player_kind_find("pimc:ties=secret"));
    assert_non_null(player_kind_find("pimc:ties=info"));
    assert_null(player_kind_find("pimc:ties=last"));
}

int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one test by name */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_deduce_killer_small),
        cmocka_unit_test(test_deduce_legal_pressed),
        cmocka_unit_test(test_mcts_legal_pressed),
        cmocka_unit_test(test_belief_kinds_legal_pressed),
        cmocka_unit_test(test_pimc_montyhall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
