/* ggp bench and ggp perft: speed of random playouts, and exact move-tree counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "cli/commands.h"
#include "engine/engine.h"
#include "gdl/validate.h"

static const char *const bench_help =
    "usage: ggp bench GAME [--seconds S] [--seed N] [--engine E]\n\n"
    "Plays uniformly random matches from the initial state for S seconds (default 5) with the\n"
    "engine and prints playouts per second, state updates per second and the average match\n"
    "length. The last line is machine-readable:\n"
    "  playouts_per_sec=X states_per_sec=Y avg_length=Z\n"
    "The line before names the engine and its grounding and compiling time.\n" ENGINE_HELP;

static const char *const perft_help =
    "usage: ggp perft GAME --depth D [--engine E]\n\n"
    "Counts the sequences of D joint moves from the initial state in which every joint move is\n"
    "legal and no state before the last is terminal; prints one line per depth 1..D:\n"
    "  depth=K count=N\n" ENGINE_HELP;

int cmd_bench(int argc, char **argv) {
    const char *path = NULL;
    double seconds = 5;
    unsigned long long seed = 1;
    engine_kind_t kind = ENGINE_AUTO;
    const opt_spec_t specs[] = {{.name = "--seconds", .real = &seconds},
                                {.name = "--seed", .uint = &seed},
                                {.name = "--engine", .engine = &kind},
                                {0}};
    int rc = opt_parse(argc, argv, "bench", bench_help, NULL, specs, &path, 1);
    if (rc >= 0) return rc;
    if (!path) {
        fputs(bench_help, stderr);
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    engine_t *e = engine_new(g, kind, stderr);
    eng_state_t *init = engine_state_new(e), *s = engine_state_new(e);
    engine_initial(e, init);
    int *goals = xcalloc(g->n_roles + 1, sizeof *goals);
    splitmix_t rng = {seed};
    unsigned long long playouts = 0, steps = 0;
    double start = now_seconds(), elapsed = 0;
    do {
        /* the clock is read every 16 playouts once they are short (a slow game's first
         * playouts can take seconds each) */
        for (int k = 0; k < (playouts < 64 ? 1 : 16); k++) {
            engine_state_copy(s, init);
            steps += engine_playout(e, s, &rng, 100000, goals);
            playouts++;
        }
        elapsed = now_seconds() - start;
    } while (elapsed < seconds);
    double pps = playouts / elapsed, sps = steps / elapsed;
    printf("game %s: %llu playouts in %.2f s, engine=%s ground_s=%.3f compile_s=%.3f\n", path,
           playouts, elapsed, engine_kind_name(engine_kind(e)), engine_ground_seconds(e),
           engine_compile_seconds(e));
    printf("playouts_per_sec=%.1f states_per_sec=%.1f avg_length=%.2f\n", pps, sps,
           playouts ? (double)steps / playouts : 0.0);
    bool gave_up = cli_engine_gave_up("bench", path, e);
    free(goals);
    engine_state_free(init), engine_state_free(s);
    engine_free(e);
    game_free(g);
    return gave_up;
}

/* Counts paths of exactly `depth` more joint moves; adds counts per depth into per_depth. */
static void perft_rec(engine_t *r, const eng_state_t *s, uint32_t depth, uint32_t level,
                      unsigned long long *per_depth) {
    if (level == depth || engine_terminal(r, s)) return;
    const game_t *g = engine_game(r);
    uint32_t n_roles = g->n_roles;
    term_t **moves = xcalloc(n_roles, sizeof *moves);
    uint32_t *counts = xcalloc(n_roles, sizeof *counts), *pick = xcalloc(n_roles, sizeof *pick);
    bool any = true;
    for (uint32_t i = 0; i < n_roles; i++) {
        const term_t *m;
        counts[i] = engine_legal(r, s, i, &m);
        moves[i] = xmalloc((counts[i] + 1) * sizeof **moves);
        memcpy(moves[i], m, counts[i] * sizeof *m);
        if (!counts[i]) any = false;
    }
    term_t *joint = xcalloc(n_roles + 1, sizeof *joint);
    eng_state_t *next = engine_state_new(r);
    while (any) {
        for (uint32_t i = 0; i < n_roles; i++)
            joint[i] = moves[i][pick[i]];
        engine_next(r, s, joint, next);
        per_depth[level + 1]++;
        perft_rec(r, next, depth, level + 1, per_depth);
        uint32_t i = 0;
        while (i < n_roles && ++pick[i] == counts[i])
            pick[i++] = 0;
        any = i < n_roles;
    }
    engine_state_free(next);
    free(joint);
    for (uint32_t i = 0; i < n_roles; i++)
        free(moves[i]);
    free(moves), free(counts), free(pick);
}

int cmd_perft(int argc, char **argv) {
    const char *path = NULL;
    unsigned long long depth = 0;
    engine_kind_t kind = ENGINE_AUTO;
    const opt_spec_t specs[] = {
        {.name = "--depth", .uint = &depth}, {.name = "--engine", .engine = &kind}, {0}};
    int rc = opt_parse(argc, argv, "perft", perft_help, NULL, specs, &path, 1);
    if (rc >= 0) return rc;
    if (!path || depth == 0 || depth > 64) {
        opt_usage_error("perft", perft_help, "give a GAME and --depth 1..64");
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    engine_t *r = engine_new(g, kind, stderr);
    eng_state_t *s = engine_state_new(r);
    engine_initial(r, s);
    unsigned long long per_depth[66] = {0};
    perft_rec(r, s, (uint32_t)depth, 0, per_depth);
    for (unsigned k = 1; k <= depth; k++)
        printf("depth=%u count=%llu\n", k, per_depth[k]);
    bool gave_up = cli_engine_gave_up("perft", path, r);
    engine_state_free(s);
    engine_free(r);
    game_free(g);
    return gave_up;
}
