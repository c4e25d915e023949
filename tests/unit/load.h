/* Loading games in the unit tests: NULL when a game does not load, its diagnostics
 * printed to stderr. */
#ifndef TESTS_UNIT_LOAD_H
#define TESTS_UNIT_LOAD_H

#include <stdio.h>
#include <string.h>

#include "gdl/validate.h"

/* GDL text; name is the file name its diagnostics give. */
static inline game_t *load_text_as(const char *text, const char *name) {
    diag_t d;
    diag_init(&d);
    game_t *g = game_load_text(text, strlen(text), name, &d);
    if (!g) diag_print(&d, stderr);
    diag_fini(&d);
    return g;
}

static inline game_t *load_text(const char *text) {
    return load_text_as(text, "t.kif");
}

static inline game_t *load_path(const char *path) {
    diag_t d;
    diag_init(&d);
    game_t *g = game_load(path, &d);
    if (!g) diag_print(&d, stderr);
    diag_fini(&d);
    return g;
}

/* A game of the project's games/ folder. */
static inline game_t *load_file(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GAMES_DIR, name);
    return load_path(path);
}

#endif
