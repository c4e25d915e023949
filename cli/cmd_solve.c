/* ggp solve: exact values of a small game, by levels over all its reachable states. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "engine/engine.h"
#include "gdl/validate.h"

#include "base/clock.h"
#include "regress/regress.h"
#include "truth/solve.h"

static const char *const solve_help =
    "usage: ggp solve GAME [--max-states N] [--engine E]\n\n"
    "Explores every reachable state of a small game and solves it exactly: the minimax\n"
    "value of each role's goal (the role maximises, the others minimise), and the least\n"
    "number of rounds in which each role forces a win. Prints the initial state's values,\n"
    "then for each role the number of states per value and per forced-win distance.\n"
    "Gives up past --max-states reachable states (default 5000000).\n"
    "  --engine E  the state machine that explores the states: auto (default: the fastest\n"
    "              that works), interp, ground or compiled; every engine gives the same\n"
    "              states and values\n";

int cmd_solve(int argc, char **argv) {
    const char *path = NULL;
    unsigned long long max_states = 5000000;
    engine_kind_t kind = ENGINE_AUTO;
    const opt_spec_t specs[] = {
        {.name = "--max-states", .uint = &max_states}, {.name = "--engine", .engine = &kind}, {0}};
    int rc = opt_parse(argc, argv, "solve", solve_help, NULL, specs, &path, 1);
    if (rc >= 0) return rc;
    if (!path) {
        fputs(solve_help, stderr);
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    char err[200];
    double t0 = now_seconds();
    engine_t *e = engine_new(g, kind, stderr);
    solve_t *s = solve_new(e, (uint32_t)(max_states > UINT32_MAX - 1 ? UINT32_MAX - 1 : max_states),
                           err, sizeof err);
    if (!s) {
        fprintf(stderr, "ggp solve: %s: %s\n", path, err);
        engine_free(e);
        game_free(g);
        return 3;
    }
    shape_t sh;
    regress_shape(e, 16, 1, 0, &sh);
    if (cli_engine_gave_up("solve", path, e)) { /* the states it found are not the game's */
        solve_free(s);
        engine_free(e);
        game_free(g);
        return 1;
    }
    engine_free(e);
    solve_rounds(s, sh.supported ? sh.noop : NULL);
    term_store_t *ts = g->ts;
    uint32_t n = solve_count(s);
    printf("%s: states=%u seconds=%.3f%s\n", path, n, now_seconds() - t0,
           solve_cyclic(s) ? " cyclic (no values)" : "");
    for (uint32_t role = 0; role < g->n_roles; role++) {
        const char *name = term_sym_name(ts, term_sym(ts, g->roles[role]));
        uint8_t w = solve_win_in(s, 0, role);
        printf("role=%s value=%d", name, solve_value(s, 0, role));
        if (w == SOLVE_NONE)
            printf(" win_in=none\n");
        else
            printf(" win_in=%u\n", w);
    }
    for (uint32_t role = 0; role < g->n_roles; role++) {
        const char *name = term_sym_name(ts, term_sym(ts, g->roles[role]));
        uint32_t count[102] = {0}, none = 0;
        uint32_t dist[256] = {0};
        for (uint32_t id = 0; id < n; id++) {
            int v = solve_value(s, id, role);
            if (v >= 0 && v <= 100)
                count[v]++;
            else
                count[101]++;
            dist[solve_win_in(s, id, role)]++;
        }
        printf("role=%s states per value:", name);
        for (int v = 0; v <= 100; v++)
            if (count[v]) printf(" %d:%u", v, count[v]);
        if (count[101]) printf(" none:%u", count[101]);
        printf("\nrole=%s states per forced-win rounds:", name);
        for (int k = 0; k < 255; k++)
            if (dist[k]) printf(" %d:%u", k, dist[k]);
        none = dist[SOLVE_NONE];
        printf(" none:%u\n", none);
    }
    solve_free(s);
    game_free(g);
    return 0;
}
