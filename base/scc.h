/* Strongly connected components of a directed graph (Tarjan's algorithm, without recursion:
 * rule graphs of large games are deep). The graph is given in compressed rows: the
 * successors of vertex v are to[start[v] .. start[v + 1]). */
#ifndef BASE_SCC_H
#define BASE_SCC_H

#include <stdbool.h>
#include <stdint.h>

#define SCC_NONE UINT32_MAX

/* Numbers the components reached from the roots (every vertex when roots is NULL, else
 * those with roots[v] set), in vertex order, so that a vertex's successors lie in its own
 * component or in ones of smaller numbers (dependencies first). comp[v] gets v's component
 * (SCC_NONE when not reached); order (when not NULL) gets the reached vertices in the order
 * they were assigned, component by component. Returns the number of components. */
uint32_t scc_find(uint32_t n, const uint32_t *start, const uint32_t *to, const bool *roots,
                  uint32_t *comp, uint32_t *order);

/* The same over successors told one at a time (a graph too large to copy into rows): next
 * returns v's successor after the one *cursor stands at (0 before the first) and moves the
 * cursor, or SCC_NONE when there are no more. */
typedef uint32_t (*scc_next_fn)(const void *ctx, uint32_t v, uint64_t *cursor);
uint32_t scc_find_by(uint32_t n, scc_next_fn next, const void *ctx, const bool *roots,
                     uint32_t *comp, uint32_t *order);

/* cyclic[v]: v's component (of n_comps found by scc_find) is a cycle, that is it has
 * several vertices or v is its own successor; false for a vertex not reached. */
void scc_cyclic(uint32_t n, const uint32_t *start, const uint32_t *to, const uint32_t *comp,
                uint32_t n_comps, bool *cyclic);

#endif
