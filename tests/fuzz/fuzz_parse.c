/* libFuzzer target for the front end: arbitrary bytes through the KIF parser, the rule
 * base builder and validation (game_load_text). Any input must give either a game or
 * located diagnostics: never a crash, a hang, a leak or undefined behaviour.
 * Built only with clang and GGP_FUZZ=ON (see tests/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>

#include "gdl/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    diag_t d;
    diag_init(&d);
    game_t *g = game_load_text((const char *)data, size, "fuzz.kif", &d);
    if (g) {
        /* Accepted: no errors were reported. (Whether a game without roles is valid is
         * validation policy, tested in tests/unit/test_validate.c, not here.) */
        if (d.n != 0) __builtin_trap();
        game_free(g);
    } else {
        /* A rejected input always says where and why. */
        if (d.n == 0) __builtin_trap();
        strbuf_t sb;
        sb_init(&sb);
        for (size_t i = 0; i < d.n; i++)
            diag_format(&d, i, &sb);
        sb_fini(&sb);
    }
    diag_fini(&d);
    return 0;
}
