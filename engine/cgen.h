/* The C text of a ground network, which engine/compile.c compiles and loads: straight-line
 * byte logic, one assignment per derived node in network order (a cyclic block becomes a
 * loop to its fixpoint), in functions of bounded size, in translation units of bounded size,
 * so that the compiler's time grows linearly with the network and the units compile in
 * parallel. The text depends on the network alone (no term store): it can be made on any
 * thread, from a snapshot of the network (cgen_snapshot).
 *
 * The units define, with C linkage (U: unsigned char, one byte per node; W64: uint64_t):
 *   void ggp_play(U *v), ggp_goals(U *v), ggp_advance(U *v)  (backend.h's kernels)
 *   void ggp_move(U *v, const unsigned *m)   m: per role the index of its move, any index
 *                                            past its moves meaning none
 *   void ggp_play_from(U *v, const W64 *prev)
 *   void ggp_next_bits(const U *v, W64 *bits)  the next nodes as state words (n_fluents / 64
 *                                            + 1 of them)
 *   unsigned ggp_playout(U *v, W64 *bits, const W64 *prev, W64 *rng, unsigned max_steps)
 * (backend.h says what each does). The node values take cgen_vals_bytes(net) bytes: the
 * code keeps bytes of its own past the nodes. */
#ifndef ENGINE_CGEN_H
#define ENGINE_CGEN_H

#include "base/util.h"
#include "engine/ground.h"

typedef struct {
    uint32_t n_units;
    strbuf_t *units; /* unit 0 holds the kernels and the playout loop */
} cgen_t;

/* The program for net, in units of about unit_bytes each (0: one unit); header (a comment
 * line: what compiles it) opens every unit. */
void cgen_program(const gnet_t *net, const char *header, size_t unit_bytes, cgen_t *out);
void cgen_fini(cgen_t *out);
/* The bytes of node values the code of net reads and writes. */
size_t cgen_vals_bytes(const gnet_t *net);

/* A copy of what cgen_program reads of net (its other fields zero), for a thread of its
 * own; freed with cgen_snapshot_free. */
gnet_t *cgen_snapshot(const gnet_t *net);
void cgen_snapshot_free(gnet_t *snap);

#endif
