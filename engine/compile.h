/* The compiled backend: the ground network as C code, compiled with the system's C
 * compiler at load time and loaded with dlopen. Objects are cached per game text in
 * $GGP_CACHE (default $XDG_CACHE_HOME/ggp or ~/.cache/ggp), so a game compiles once.
 * The generated code holds a whole playout loop; GGP_COMPILED_LOOP=0 plays the loop of
 * engine/gengine.c over the compiled kernels instead (the same playouts, draw for draw:
 * the test that checks the generated loop compares the two). */
#ifndef ENGINE_COMPILE_H
#define ENGINE_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/backend.h"

/* A compiled engine on net (adopted on success); NULL with a reason in why when no C
 * compiler works or the code does not build (net then stays the caller's). */
engine_t *compile_engine(game_t *g, gnet_t *net, char *why, size_t n);

/* The cache directory ($GGP_CACHE, else $XDG_CACHE_HOME/ggp, else ~/.cache/ggp). */
void compile_cache_dir(char *out, size_t n);
bool compile_make_dirs(const char *path);
/* FNV-1a, 64 bits. */
uint64_t compile_hash(const char *s, size_t n);

#endif
