/* Change-driven propagation over an acyclic ground network (the propnet design): every
 * rule keeps the count of its literals that do not hold, every derived node the count of
 * its rules that hold, and an input that changes updates the counts of what it feeds only,
 * node by node as values change. A step of a match changes a few fluents and two moves,
 * so a step touches a small part of the network instead of all of it. Kept alongside:
 * the fluents whose next value may differ from their value (for advance), and per role
 * the set of legal moves (for a uniform pick without scanning every move).
 *
 * Only for networks without cyclic blocks: counts would let a positive cycle support
 * itself. The values array is the engine's; prop_new takes it fully evaluated. */
#ifndef ENGINE_PROP_H
#define ENGINE_PROP_H

#include "engine/ground.h"

typedef struct prop prop_t;

/* NULL when the network has a cyclic block. */
prop_t *prop_new(const gnet_t *net, uint8_t *vals);
void prop_free(prop_t *p);
/* Sets an input node (fluent or move) and propagates. */
void prop_set(prop_t *p, uint32_t node, uint8_t v);
/* Each fluent input takes the value of its next node. */
void prop_advance(prop_t *p);
/* The legal moves of a role now, as move indices (unordered); owned by p. */
uint32_t prop_legal(const prop_t *p, uint32_t role, const uint32_t **ids);

#endif
