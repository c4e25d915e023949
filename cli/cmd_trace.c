/* ggp trace: canonical match traces, from a seed or from a file of joint moves. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "cli/commands.h"
#include "engine/trace_match.h"
#include "gdl/validate.h"

static const char *const trace_help =
    "usage: ggp trace GAME (--seed S [--matches N] | --moves FILE) [--max-steps K]\n"
    "                 [--engine E] [--show-engine]\n\n"
    "Prints the canonical trace of a match (the format: docs/trace-format.md).\n"
    "  --seed S       choose moves with the SplitMix64 stream seeded with S (unsigned 64-bit)\n"
    "  --matches N    play N matches in a row from that one stream (default 1)\n"
    "  --moves FILE   replay the joint moves of FILE, one line per step ('-' reads stdin)\n"
    "  --max-steps K  give up (exit 1) when a match has not ended after K steps (default "
    "100000)\n"
    "  --show-engine  say on stderr which engine plays (engine: "
    "interp|ground|compiled)\n" ENGINE_HELP
    "Exits 1 on an illegal move (naming the step and role) or an invalid game.\n";

static char *read_moves(const char *path, size_t *len) {
    return strcmp(path, "-") ? read_file(path, len) : read_stream(stdin, len);
}

int cmd_trace(int argc, char **argv) {
    const char *path = NULL, *seed_s = NULL, *matches_s = "1", *moves = NULL, *max_s = "100000";
    engine_kind_t kind = ENGINE_AUTO;
    bool show_engine = false;
    const opt_spec_t specs[] = {{.name = "--show-engine", .flag = &show_engine},
                                {.name = "--seed", .value = &seed_s},
                                {.name = "--matches", .value = &matches_s},
                                {.name = "--moves", .value = &moves},
                                {.name = "--max-steps", .value = &max_s},
                                {.name = "--engine", .engine = &kind},
                                {0}};
    int parsed = opt_parse(argc, argv, "trace", trace_help, NULL, specs, &path, 1);
    if (parsed >= 0) return parsed;
    unsigned long long seed = 0, matches = 1, max_steps = 0;
    if (!path || (!seed_s == !moves)) {
        opt_usage_error("trace", trace_help, "give a GAME and exactly one of --seed and --moves");
        return 2;
    }
    if ((seed_s && !opt_uint("--seed", seed_s, &seed)) ||
        !opt_uint("--matches", matches_s, &matches) || !opt_uint("--max-steps", max_s, &max_steps))
        return 2;
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    engine_t *e = engine_new(g, kind, stderr);
    if (show_engine) fprintf(stderr, "engine: %s\n", engine_kind_name(engine_kind(e)));
    strbuf_t name;
    sb_init(&name);
    trace_game_name(path, &name);
    splitmix_t rng = {seed};
    trace_moves_t mv = {.rng = seed_s ? &rng : NULL, .moves_file = moves};
    char *text = NULL;
    int rc = 0;
    if (moves) {
        text = read_moves(moves, &mv.moves_len);
        if (!text) {
            fprintf(stderr, "ggp trace: cannot read %s: %s\n", moves, strerror(errno));
            rc = 1;
        }
        mv.moves = text;
        matches = 1;
    }
    for (unsigned long long m = 0; rc == 0 && m < matches; m++)
        rc = trace_match(e, sb_str(&name), &mv,
                         (uint32_t)(max_steps > UINT32_MAX ? UINT32_MAX : max_steps), stdout,
                         stderr);
    if (cli_engine_gave_up("trace", path, e)) rc = 1;
    free(text);
    sb_fini(&name);
    engine_free(e);
    game_free(g);
    return rc;
}
