/* ggp bench and ggp perft: speed of random playouts, and exact move-tree counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "reason.h"
#include "validate.h"

static const char *const bench_help =
    "usage: ggp bench GAME [--seconds S] [--seed N]\n\n"
    "Plays uniformly random matches from the initial state for S seconds (default 5) with the\n"
    "reasoner and prints playouts per second, state updates per second and the average match\n"
    "length. The last line is machine-readable:\n"
    "  playouts_per_sec=X states_per_sec=Y avg_length=Z\n";

static const char *const perft_help =
    "usage: ggp perft GAME --depth D\n\n"
    "Counts the sequences of D joint moves from the initial state in which every joint move is\n"
    "legal and no state before the last is terminal; prints one line per depth 1..D:\n"
    "  depth=K count=N\n";

/* One random playout from s to a terminal state; returns the number of steps. */
static uint32_t playout(reasoner_t *r, state_t *s, state_t *tmp, term_t *joint, splitmix_t *rng) {
    const game_t *g = reason_game(r);
    uint32_t steps = 0;
    while (!reason_terminal(r, s) && steps < 100000) {
        for (uint32_t i = 0; i < g->n_roles; i++) {
            const term_t *m;
            uint32_t n = reason_legal(r, s, i, &m);
            if (n == 0) return steps; /* a defective game: stop this playout */
            joint[i] = m[splitmix_next(rng) % n];
        }
        reason_next(r, s, joint, tmp);
        state_copy(s, tmp);
        steps++;
    }
    for (uint32_t i = 0; i < g->n_roles; i++)
        (void)reason_goal(r, s, i);
    return steps;
}

int cmd_bench(int argc, char **argv) {
    const char *path = NULL, *v;
    double seconds = 5;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (opt_is_help(argv[i])) {
            fputs(bench_help, stdout);
            return 0;
        } else if (opt_value(argc, argv, &i, "--seconds", &v)) {
            if (!opt_double("--seconds", v, &seconds)) return 2;
        } else if (opt_value(argc, argv, &i, "--seed", &v)) {
            if (!opt_uint("--seed", v, &seed)) return 2;
        } else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "ggp bench: unexpected argument '%s'\n%s", argv[i], bench_help);
            return 2;
        } else
            path = argv[i];
    }
    if (!path) {
        fputs(bench_help, stderr);
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    reasoner_t *r = reason_new(g);
    state_t init, s, tmp;
    state_init(&init), state_init(&s), state_init(&tmp);
    reason_initial(r, &init);
    term_t *joint = xcalloc(g->n_roles + 1, sizeof *joint);
    splitmix_t rng = {seed};
    unsigned long long playouts = 0, steps = 0;
    double start = now_seconds(), elapsed = 0;
    do {
        state_copy(&s, &init);
        steps += playout(r, &s, &tmp, joint, &rng);
        playouts++;
        elapsed = now_seconds() - start;
    } while (elapsed < seconds);
    double pps = playouts / elapsed, sps = steps / elapsed;
    printf("game %s: %llu playouts in %.2f s\n", path, playouts, elapsed);
    printf("playouts_per_sec=%.1f states_per_sec=%.1f avg_length=%.2f\n", pps, sps,
           playouts ? (double)steps / playouts : 0.0);
    free(joint);
    state_fini(&init), state_fini(&s), state_fini(&tmp);
    reason_free(r);
    game_free(g);
    return 0;
}

/* Counts paths of exactly `depth` more joint moves; adds counts per depth into per_depth. */
static void perft_rec(reasoner_t *r, const state_t *s, uint32_t depth, uint32_t level,
                      unsigned long long *per_depth) {
    if (level == depth || reason_terminal(r, s)) return;
    const game_t *g = reason_game(r);
    uint32_t n_roles = g->n_roles;
    term_t **moves = xcalloc(n_roles, sizeof *moves);
    uint32_t *counts = xcalloc(n_roles, sizeof *counts), *pick = xcalloc(n_roles, sizeof *pick);
    bool any = true;
    for (uint32_t i = 0; i < n_roles; i++) {
        const term_t *m;
        counts[i] = reason_legal(r, s, i, &m);
        moves[i] = xmalloc((counts[i] + 1) * sizeof **moves);
        memcpy(moves[i], m, counts[i] * sizeof *m);
        if (!counts[i]) any = false;
    }
    term_t *joint = xcalloc(n_roles + 1, sizeof *joint);
    state_t next;
    state_init(&next);
    while (any) {
        for (uint32_t i = 0; i < n_roles; i++)
            joint[i] = moves[i][pick[i]];
        reason_next(r, s, joint, &next);
        per_depth[level + 1]++;
        perft_rec(r, &next, depth, level + 1, per_depth);
        uint32_t i = 0;
        while (i < n_roles && ++pick[i] == counts[i])
            pick[i++] = 0;
        any = i < n_roles;
    }
    state_fini(&next);
    free(joint);
    for (uint32_t i = 0; i < n_roles; i++)
        free(moves[i]);
    free(moves), free(counts), free(pick);
}

int cmd_perft(int argc, char **argv) {
    const char *path = NULL, *v;
    unsigned long long depth = 0;
    for (int i = 1; i < argc; i++) {
        if (opt_is_help(argv[i])) {
            fputs(perft_help, stdout);
            return 0;
        } else if (opt_value(argc, argv, &i, "--depth", &v)) {
            if (!opt_uint("--depth", v, &depth)) return 2;
        } else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "ggp perft: unexpected argument '%s'\n%s", argv[i], perft_help);
            return 2;
        } else
            path = argv[i];
    }
    if (!path || depth == 0 || depth > 64) {
        fprintf(stderr, "ggp perft: give a GAME and --depth 1..64\n%s", perft_help);
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    reasoner_t *r = reason_new(g);
    state_t s;
    state_init(&s);
    reason_initial(r, &s);
    unsigned long long per_depth[66] = {0};
    perft_rec(r, &s, (uint32_t)depth, 0, per_depth);
    for (unsigned k = 1; k <= depth; k++)
        printf("depth=%u count=%llu\n", k, per_depth[k]);
    state_fini(&s);
    reason_free(r);
    game_free(g);
    return 0;
}
