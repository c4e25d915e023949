/* ggp alphabeta: one alpha-beta search (mcts/ab.h) of a position, with its counters. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "cli/commands.h"
#include "engine/engine.h"
#include "mcts/ab.h"

static const char *const alphabeta_help =
    "usage: ggp alphabeta GAME [--plies N [--seed S]] [--role R] [--seconds S]\n"
    "                      [--options OPTS] [--engine E]\n\n"
    "Searches one position with alpha-beta (the `ab` player's search: paranoid for more\n"
    "than two roles, iterative deepening, transposition table, history heuristic, null\n"
    "windows) and prints one line:\n"
    "  depth=D value=V proven=yes|no move=M nodes=N leaves=L tt_hits=H tt_cuts=C loads=M\n"
    "  seconds=T\n"
    "nodes counts every state searched over all iterations; tt_cuts the states the table\n"
    "settled; loads the states whose legal moves were read from the engine (one call per\n"
    "role each); proven: no depth cut reached the value (it is then the exact solver's\n"
    "value).\n"
    "  --plies N      the position after N random joint moves from the initial state (the\n"
    "                 canonical draws of the walker: the same position on every engine;\n"
    "                 default 0)\n"
    "  --seed S       the random stream of those moves (default 1)\n"
    "  --role R       the searching role, by name (default: the first)\n"
    "  --seconds S    stop at this time limit (default: none; then give depth=N in\n"
    "                 --options for a game too large to solve)\n"
    "  --options OPTS the search's options, as the ab player's: " AB_OPTS_HELP "\n" ENGINE_HELP;

static int role_index(game_t *g, const char *name) {
    if (!name) return 0;
    for (uint32_t i = 0; i < g->n_roles; i++)
        if (!strcmp(term_sym_name(g->ts, term_sym(g->ts, g->roles[i])), name)) return (int)i;
    return -1;
}

static int search_position(game_t *g, engine_kind_t kind, unsigned long long plies,
                           unsigned long long seed, uint32_t role, double seconds,
                           const ab_opts_t *o, const char *path) {
    engine_t *e = engine_new(g, kind, stderr);
    eng_state_t *at = engine_state_new(e);
    splitmix_t rng = {seed};
    int rc = 0;
    if (!engine_walk_to(e, &rng, (uint32_t)plies, true, at)) {
        fprintf(stderr, "ggp alphabeta: %s: the match with seed %llu ends before ply %llu\n", path,
                seed, plies);
        rc = 1;
    } else {
        ab_t *a = ab_new(e, role, o, seed);
        ab_result_t r;
        double t0 = now_seconds();
        ab_search(a, at, seconds > 0 ? t0 + seconds : 0, NULL, NULL, &r);
        double secs = now_seconds() - t0;
        strbuf_t mv;
        sb_init(&mv);
        if (r.move == TERM_NONE)
            sb_puts(&mv, "none");
        else
            term_print(g->ts, r.move, &mv);
        printf("depth=%u value=%d proven=%s move=%s nodes=%" PRIu64 " leaves=%" PRIu64
               " tt_hits=%" PRIu64 " tt_cuts=%" PRIu64 " loads=%" PRIu64 " seconds=%.4f\n",
               r.depth, r.value, r.proven ? "yes" : "no", sb_str(&mv), r.nodes, r.leaves, r.tt_hits,
               r.tt_cuts, r.loads, secs);
        sb_fini(&mv);
        ab_free(a);
    }
    if (cli_engine_gave_up("alphabeta", path, e)) rc = 1;
    engine_state_free(at);
    engine_free(e);
    return rc;
}

int cmd_alphabeta(int argc, char **argv) {
    const char *path = NULL, *role_name = NULL, *options = NULL;
    unsigned long long plies = 0, seed = 1;
    double seconds = 0;
    engine_kind_t kind = ENGINE_AUTO;
    const opt_spec_t specs[] = {{.name = "--plies", .uint = &plies},
                                {.name = "--seed", .uint = &seed},
                                {.name = "--role", .value = &role_name},
                                {.name = "--seconds", .real = &seconds},
                                {.name = "--engine", .engine = &kind},
                                {.name = "--options", .value = &options},
                                {0}};
    int parsed = opt_parse(argc, argv, "alphabeta", alphabeta_help, NULL, specs, &path, 1);
    if (parsed >= 0) return parsed;
    if (plies > 100000) return 2;
    ab_opts_t o;
    ab_default_opts(&o);
    if (options) {
        strbuf_t err;
        sb_init(&err);
        bool ok = ab_opts_parse(&o, options, NULL, NULL, NULL, &err);
        if (!ok) fprintf(stderr, "ggp alphabeta: %s\n", sb_str(&err));
        sb_fini(&err);
        if (!ok) return 2;
    }
    if (!path) {
        fputs(alphabeta_help, stderr);
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    int role = role_index(g, role_name);
    int rc = 2;
    if (role < 0)
        fprintf(stderr, "ggp alphabeta: %s has no role '%s'\n", path, role_name);
    else
        rc = search_position(g, kind, plies, seed, (uint32_t)role, seconds, &o, path);
    game_free(g);
    return rc;
}
