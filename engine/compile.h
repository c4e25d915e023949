/* The compiled backend: the ground network as C code (engine/cgen.h), compiled with the
 * system's C compiler and loaded with dlopen. Objects are cached per generated text in
 * $GGP_CACHE (default $XDG_CACHE_HOME/ggp or ~/.cache/ggp), so a game compiles once.
 *
 * The code is made by a thread of its own from a snapshot of the network (it reads nothing
 * else: neither the network, which its engine may free, nor the term store), its
 * translation units compiled by as many compilers at once as there are cores: an engine
 * can start on the ground network and switch to the code when it is ready (gengine.c).
 *
 * The generated code holds a whole playout loop; GGP_COMPILED_LOOP=0 plays the loop of
 * engine/gengine.c over the compiled kernels instead (the same playouts, draw for draw:
 * the test that checks the generated loop compares the two). */
#ifndef ENGINE_COMPILE_H
#define ENGINE_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/backend.h"

typedef enum { NETCODE_BUSY, NETCODE_READY, NETCODE_FAILED } netcode_state_t;

/* Starts making net's code (the snapshot taken now; net stays the caller's). NULL with a
 * reason in why when the network has more literals than compile_max_lits() or no thread
 * can be started. */
netcode_t *netcode_start(const gnet_t *net, char *why, size_t n);
/* Waits until the code is ready or has failed, or until the deadline (now_seconds(); 0:
 * none) has passed; returns the state then. */
netcode_state_t netcode_wait(netcode_t *c, double deadline);
/* The state now (no waiting). */
netcode_state_t netcode_state(netcode_t *c);
/* Once ready: the kernels (valid while a reference is held). */
const gnet_kernels_t *netcode_kernels(const netcode_t *c);
/* Once ready or failed: seconds from the start to then; why it failed. */
double netcode_seconds(const netcode_t *c);
const char *netcode_why(const netcode_t *c);
/* The race of the code against the network (gengine.c decides, race.h measures), once per
 * code: the two rates (steps per CPU second) when decided, from the cache beside the
 * object or by an engine's race; netcode_claim_race is true for the one caller that is
 * to race (none decided, none racing), which then calls netcode_decide (keep: remember
 * the rates beside the object). Once ready. */
bool netcode_verdict(netcode_t *c, double *code, double *net);
bool netcode_claim_race(netcode_t *c);
void netcode_decide(netcode_t *c, double code, double net, bool keep);
/* References: the last one dropped stops a compilation still running and unloads. */
netcode_t *netcode_ref(netcode_t *c);
void netcode_unref(netcode_t *c);

/* The largest network compiled, in literals (GGP_COMPILE_MAX_LITS, else 20 million, the
 * grounder's own bound: a bound on cc's work and memory, not a choice of engine). */
uint32_t compile_max_lits(void);

/* The cache directory ($GGP_CACHE, else $XDG_CACHE_HOME/ggp, else ~/.cache/ggp). */
void compile_cache_dir(char *out, size_t n);
bool compile_make_dirs(const char *path);
/* FNV-1a, 64 bits. */
uint64_t compile_hash(const char *s, size_t n);

#endif
