/* The compiled backend: see compile.h. */
#include "compile.h"

#include <stdio.h>

engine_t *compile_engine(game_t *g, gnet_t *net, char *why, size_t n) {
    (void)g, (void)net;
    snprintf(why, n, "not built yet");
    return NULL;
}
