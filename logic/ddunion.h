/* A set as the union of decision diagrams (its parts), kept apart where one diagram of the
 * union would be large: in connect four "the mover completes a line" is small per column
 * and landing row and exponential as one diagram (the parts would have to remember every
 * column's height at once).
 *
 * A part added is OR-ed into the last part when the result stays within the union's merge
 * limit (nodes) and keeps the sharing (it is no larger than the two apart, or small),
 * else it starts a new part: small games get one part. The union owns one reference per
 * part. */
#ifndef LOGIC_DDUNION_H
#define LOGIC_DDUNION_H

#include <stdbool.h>
#include <stdint.h>

#include "logic/bdd.h"

typedef struct {
    dd_ref *part;
    uint32_t n, cap;
    uint64_t merge;      /* nodes a merged part may have (0: never merge) */
    uint64_t last_nodes; /* of the last part (with merge) */
} ddunion_t;

void ddunion_init(ddunion_t *u, uint64_t merge);
void ddunion_fini(dd_t *d, ddunion_t *u);
/* Adds x, taking over its reference (false stays out). False when x is DD_NONE or the OR
 * gave up past the deadline (x is then not added: the union is a subset). */
bool ddunion_add(dd_t *d, ddunion_t *u, dd_ref x);
/* A copy sharing the parts (one more reference each). */
void ddunion_copy(dd_t *d, ddunion_t *to, const ddunion_t *from);
/* The union as one diagram, the parts OR-ed in order while it stays within max_nodes
 * (0: no limit; the first part past it ends the join): *all false when some were left
 * out (a subset), DD_NONE past the deadline. */
dd_ref ddunion_join(dd_t *d, const ddunion_t *u, uint64_t max_nodes, bool *all);
/* Nodes of the parts, shared. */
uint64_t ddunion_nodes(dd_t *d, const ddunion_t *u);
/* Is every state of a in b? False when it is not or when finding out gave up. */
bool ddunion_within(dd_t *d, const ddunion_t *a, const ddunion_t *b);

#endif
