/* libFuzzer target for the grounder and the ground engine on arbitrary game text: a game
 * that loads and grounds within a count of work (GGP_GROUND_WORK join steps, a few
 * thousand atoms: never a time) is played by the ground engine and the interpreter side
 * by side (lab/cmd_diff.c, `ggp ground --check`: the state, terminal, goals, legal moves,
 * percepts and a playout compared at every step of two short random matches). Any input
 * gives located diagnostics, a game that does not ground, or two engines that agree: never
 * a crash, a hang, a leak, undefined behaviour or a difference. GGP_FUZZ_ENGINE=compiled
 * puts the compiled engine in the ground engine's place (a C compiler run per input: for
 * slow campaigns, not the smoke run). Built with clang and
 * GGP_FUZZ=ON (tests/CMakeLists.txt); replay.c runs the same function on files in the
 * other builds. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/commands.h"
#include "engine/engine.h"
#include "fuzz_game.h"

#define MATCHES 2
#define MAX_STEPS 40

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char cache[] = "/tmp/ggp-fuzz-ground-XXXXXX";

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* The cache and what it holds (compiled networks, with GGP_FUZZ_ENGINE=compiled). */
static void remove_cache(void) {
    nftw(cache, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* The target's own limits, by counts (the suite's are for whole corpus games), and a cache
 * of its own, emptied after each input (a game that does not ground is remembered there). */
static void set_up(void) {
    static bool done;
    if (done) return;
    done = true;
    setenv("GGP_GROUND_WORK", "200000", 1);
    setenv("GGP_GROUND_ATOMS", "20000", 1);
    setenv("GGP_GROUND_SECONDS", "0", 1);
    if (mkdtemp(cache)) {
        setenv("GGP_CACHE", cache, 1);
        atexit(remove_cache);
    }
}

/* The engine under test: ground, or compiled (GGP_FUZZ_ENGINE). */
static engine_kind_t kind_under_test(void) {
    const char *name = getenv("GGP_FUZZ_ENGINE");
    engine_kind_t k;
    return name && engine_kind_parse(name, &k) && k == ENGINE_COMPILED ? k : ENGINE_GROUND;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    set_up();
    uint64_t seed;
    game_t *g = fuzz_game(data, size, &seed);
    if (!g) return 0;
    if (engine_differential_steps(g, kind_under_test(), MATCHES, seed, MAX_STEPS, false) == 1) {
        fflush(stdout); /* the difference, printed there */
        __builtin_trap();
    }
    char marker[1200];
    engine_noground_marker(g, marker, sizeof marker);
    unlink(marker);
    game_free(g);
    return 0;
}
