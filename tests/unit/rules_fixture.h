/* The fixture of the rule-base tests (test_rules.c, test_validate.c): the game loaded last,
 * the diagnostics of its loading, and a buffer for printing; cmocka's setup and teardown. */
#ifndef TESTS_UNIT_RULES_FIXTURE_H
#define TESTS_UNIT_RULES_FIXTURE_H

#include <stdlib.h>

#include "gdl/rules.h"

typedef struct {
    game_t *g;
    diag_t d;
    strbuf_t sb;
} fix_t;

static int setup(void **state) {
    fix_t *f = calloc(1, sizeof *f);
    diag_init(&f->d);
    sb_init(&f->sb);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fix_t *f = *state;
    game_free(f->g);
    diag_fini(&f->d);
    sb_fini(&f->sb);
    free(f);
    return 0;
}

#endif
