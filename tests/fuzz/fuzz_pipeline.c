/* libFuzzer target for the whole pipeline on arbitrary game text: parse, validate, then
 * the interpreter plays a few steps with moves chosen from the input's bytes (initial
 * state, terminal, legal, next, goal, and sees in GDL-II games). Any input gives either
 * located diagnostics or a game the reasoner can step through: never a crash, a hang, a
 * leak or undefined behaviour. Built with clang and GGP_FUZZ=ON (tests/CMakeLists.txt);
 * replay.c runs the same function on files in the other builds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/rng.h"
#include "engine/reason.h"
#include "fuzz_game.h"

#define MAX_STEPS 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A joint move chosen by r; false when a role has no legal move (a game defect). */
static bool choose(reasoner_t *r, const state_t *s, splitmix_t *rng, term_t *joint) {
    const game_t *g = reason_game(r);
    for (uint32_t i = 0; i < g->n_roles; i++) {
        const term_t *moves;
        uint32_t n = reason_legal(r, s, i, &moves);
        if (n == 0) return false;
        joint[i] = moves[splitmix_next(rng) % n];
        if (!reason_is_legal(r, s, i, joint[i])) __builtin_trap();
    }
    return true;
}

static void play(game_t *g, uint64_t seed) {
    reasoner_t *r = reason_new(g);
    splitmix_t rng = {seed};
    state_t s, next;
    state_init(&s);
    state_init(&next);
    term_t *joint = calloc(g->n_roles + 1, sizeof *joint);
    reason_initial(r, &s);
    for (int step = 0; step < MAX_STEPS && !reason_terminal(r, &s); step++) {
        if (!choose(r, &s, &rng, joint)) break;
        for (uint32_t i = 0; g->gdl2 && i < g->n_roles; i++) {
            const term_t *p;
            reason_sees(r, &s, joint, i, &p);
        }
        reason_next(r, &s, joint, &next);
        state_copy(&s, &next);
    }
    for (uint32_t i = 0; i < g->n_roles; i++) {
        const term_t *v;
        uint32_t n = reason_goals(r, &s, i, &v); /* before v is read */
        term_highest_number(g->ts, v, n);
    }
    free(joint);
    state_fini(&s);
    state_fini(&next);
    reason_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t seed;
    game_t *g = fuzz_game(data, size, &seed);
    if (!g) return 0;
    play(g, seed);
    game_free(g);
    return 0;
}
