/* A game's ground network (default options) and its compiled code started on it, both
 * asserted made: the start of the tests of code made in the background (test_engine's
 * switch to the code, test_race's race of it). Include after <cmocka.h>. */
#ifndef TESTS_UNIT_CODE_STARTED_H
#define TESTS_UNIT_CODE_STARTED_H

#include "engine/compile.h"
#include "engine/ground.h"

/* The code (compiling, or ready) of g's network, the network into *net. */
static inline netcode_t *code_started(game_t *g, gnet_t **net) {
    char why[300];
    ground_opts_t opts = ground_default_opts();
    *net = gnet_new(g, &opts, why, sizeof why);
    assert_non_null(*net);
    netcode_t *code = netcode_start(*net, why, sizeof why);
    assert_non_null(code);
    return code;
}

#endif
