/* The game text of a fuzz input (fuzz_pipeline.c, fuzz_ground.c): loaded and validated, with
 * a seed drawn from its bytes for the moves played on it. */
#ifndef TESTS_FUZZ_GAME_H
#define TESTS_FUZZ_GAME_H
#include <stddef.h>
#include <stdint.h>

#include "gdl/validate.h"

/* The game, or NULL where the text is rejected; a rejection always says why (else the
 * target traps). */
static inline game_t *fuzz_game(const uint8_t *data, size_t size, uint64_t *seed) {
    diag_t d;
    diag_init(&d);
    game_t *g = game_load_text((const char *)data, size, "fuzz.kif", &d);
    if (!g && d.n == 0) __builtin_trap();
    diag_fini(&d);
    *seed = size;
    for (size_t i = 0; i < size && i < 64; i++)
        *seed = *seed * 31 + data[i];
    return g;
}

#endif
