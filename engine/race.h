/* The races: a network's compiled code against the network, and a network without code
 * against the interpreter. Compiled code re-reads a wide node at each change of an input
 * where prop.c updates a count per rule, so on networks of wide nodes (chess) the code can
 * be the slower; and propagation over a big network can be slower than the interpreter: a
 * move changes nodes whose fan-out reaches millions of literals where a lifted rule looks
 * at a few facts. So the auto choice (engine.c, gengine.c) plays random steps on each for a
 * moment, keeps the faster per CPU second and remembers the two rates in the cache (beside
 * the code's object; engine_race_marker): a later load does not race.
 *
 * The decisions (race_keeps_code, race_choice) are pure functions of the two rates, so
 * that tests decide nothing on a clock; only race_rate reads one. */
#ifndef ENGINE_RACE_H
#define ENGINE_RACE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"

/* A verdict is remembered only when both engines played at least this many steps in the
 * race (fewer: the rates are too coarse to be kept for good; they still decide once). */
#define RACE_MIN_STEPS 20

/* The kind to play on, given steps per CPU second measured on each: ENGINE_INTERP when the
 * interpreter is faster than RACE_MARGIN times the ground network, else ENGINE_GROUND. A
 * rate that is not positive was not measured: the other engine is taken (the ground network
 * when neither was). */
engine_kind_t race_choice(double ground, double interp);

/* Whether compiled code measured at `code` steps per CPU second is kept against its
 * network measured at `net`: unless the network is faster by RACE_MARGIN (the code of a
 * network of wide nodes can be slower than the counts of prop.c; a near tie goes to the
 * code, which is 3-30x faster on most games); a rate not positive was not measured. */
bool race_keeps_code(double code, double net);

/* The smallest network (literals) whose compiled code, or network where the code lost,
 * races the interpreter too: GGP_RACE_INTERP_LITS, else RACE_INTERP_LITS. A move of a big
 * network can change nodes whose fan-out reaches so many literals that the lifted rules do
 * less: pancakes88 (645,218 literals) ran its code at 1/45 of the interpreter's steps; below
 * 100,000 no corpus game's interpreter came within 1.4x of the engine auto chose
 * (docs/bench.md, 2026-11-29). */
#define RACE_INTERP_LITS 100000u
uint32_t race_interp_lits(void);

/* Seconds of wall clock the race may take in all (both engines), from the deadline
 * (now_seconds(); 0: none): a tenth of the time left, at most 2 s; 0 when that leaves too
 * little to measure anything. */
double race_seconds(double deadline);

/* Steps of random playouts per CPU second of the calling thread on e, played from e's
 * initial state (a new match whenever one ends) for about `seconds` of wall clock after an
 * untimed first step, or less once 1,000 steps took a tenth of a second; the steps timed into
 * *steps. */
double race_rate(engine_t *e, double seconds, uint64_t *steps);

/* The rates remembered at path (steps per CPU second of the ground network and the
 * interpreter) and the network's literals (0 when not said); false when there is no such
 * file or it does not read. */
bool race_read(const char *path, double *ground, double *interp, uint32_t *lits);
/* Remembers them (through a temporary file renamed into place: processes loading the same
 * game at once read a whole file or none). */
void race_write(const char *path, double ground, double interp, uint32_t lits);

/* The rates of the code's race remembered at path (beside the code's object: a new text
 * races again), and remembering them. */
bool race_code_read(const char *path, double *code, double *net);
void race_code_write(const char *path, double code, double net);

#endif
