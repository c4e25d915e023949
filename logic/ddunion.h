/* A set as the union of decision diagrams (its parts), kept apart where one diagram of the
 * union would be large: in connect four "the mover completes a line" is small per column
 * and landing row and exponential as one diagram (the parts would have to remember every
 * column's height at once).
 *
 * A part may have exclusions: a list of diagrams whose union is taken out of it (the part
 * holds where its diagram holds and none of the list's does). "The other side cannot
 * complete a line" is the complement of such a union, as large as one diagram as the union
 * is; as an exclusion it stays the union's parts. Lists are shared between parts (counted
 * references) and never cut: a part without some of its exclusions would be a superset.
 *
 * A part added is OR-ed into the last part when both have the same exclusions (the same
 * list), the result stays within the union's merge limit (nodes) and keeps the sharing (it
 * is no larger than the two apart, or small), else it starts a new part: small games get
 * one part. The union owns one reference per part and per part's list. */
#ifndef LOGIC_DDUNION_H
#define LOGIC_DDUNION_H

#include <stdbool.h>
#include <stdint.h>

#include "logic/bdd.h"

/* The union of e[0 .. n) excluded from a part (handles ascending, each once); refs: the
 * parts and holders sharing it. Lists are made by a pool, one list per set of diagrams,
 * so that parts with the same exclusions have the same list and merge. */
typedef struct {
    uint32_t refs, n;
    uint32_t hash;
    dd_ref e[];
} ddexcl_t;

typedef struct ddexcl_pool ddexcl_pool_t;
ddexcl_pool_t *ddexcl_pool_new(void);
/* Drops the pool's reference to its lists (the parts holding one keep it). */
void ddexcl_pool_free(dd_t *d, ddexcl_pool_t *p);
/* The list of the n diagrams e (any order, repeats and false dropped), taking over their
 * references; NULL when none is left. */
ddexcl_t *ddexcl_make(dd_t *d, ddexcl_pool_t *p, dd_ref *e, uint32_t n);
ddexcl_t *ddexcl_dup(ddexcl_t *x); /* one more reference (NULL stays NULL) */
void ddexcl_free(dd_t *d, ddexcl_t *x);
/* The list of both lists' diagrams. */
ddexcl_t *ddexcl_join(dd_t *d, ddexcl_pool_t *p, ddexcl_t *a, ddexcl_t *b);
/* Is the state of the full assignment values in the list's union? */
bool ddexcl_eval(dd_t *d, const ddexcl_t *x, const uint8_t *values);

typedef struct {
    dd_ref *part;
    ddexcl_t **excl; /* per part: its exclusions (NULL: none) */
    uint32_t n, cap;
    uint64_t merge;      /* nodes a merged part may have (0: never merge) */
    uint64_t last_nodes; /* of the last part (with merge) */
} ddunion_t;

void ddunion_init(ddunion_t *u, uint64_t merge);
void ddunion_fini(dd_t *d, ddunion_t *u);
/* Adds x, taking over its reference (false stays out). False when x is DD_NONE or the OR
 * gave up past the deadline (x is then not added: the union is a subset). */
bool ddunion_add(dd_t *d, ddunion_t *u, dd_ref x);
/* Adds x less the union of excl's diagrams, taking over both references (excl NULL: none). */
bool ddunion_add_excl(dd_t *d, ddunion_t *u, dd_ref x, ddexcl_t *excl);
/* Does some part have exclusions? */
bool ddunion_has_excl(const ddunion_t *u);
/* A copy sharing the parts (one more reference each). */
void ddunion_copy(dd_t *d, ddunion_t *to, const ddunion_t *from);
/* The union as one diagram, the parts OR-ed in order while it stays within max_nodes
 * (0: no limit; the first part past it ends the join): *all false when some were left
 * out (a subset), DD_NONE past the deadline. Parts with exclusions are left out. */
dd_ref ddunion_join(dd_t *d, const ddunion_t *u, uint64_t max_nodes, bool *all);
/* Nodes of the parts and their exclusions, shared. */
uint64_t ddunion_nodes(dd_t *d, const ddunion_t *u);
/* Is every state of a in b? False when it is not or when finding out gave up (a part of
 * a is read without its exclusions, and b's parts with exclusions are not used: a subset
 * of b). */
bool ddunion_within(dd_t *d, const ddunion_t *a, const ddunion_t *b);
/* Is the state of the full assignment values in the union? */
bool ddunion_eval(dd_t *d, const ddunion_t *u, const uint8_t *values);

#endif
