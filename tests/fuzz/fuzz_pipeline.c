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
#include "gdl/validate.h"

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
    diag_t d;
    diag_init(&d);
    game_t *g = game_load_text((const char *)data, size, "fuzz.kif", &d);
    if (g) {
        uint64_t seed = size;
        for (size_t i = 0; i < size && i < 64; i++)
            seed = seed * 31 + data[i];
        play(g, seed);
        game_free(g);
    } else if (d.n == 0) {
        __builtin_trap(); /* a rejected input always says why */
    }
    diag_fini(&d);
    return 0;
}
