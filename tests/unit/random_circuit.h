/* Random circuits for the unit tests of circuits and of the Z3 bridge. */
#ifndef TESTS_UNIT_RANDOM_CIRCUIT_H
#define TESTS_UNIT_RANDOM_CIRCUIT_H

#include "base/rng.h"
#include "logic/circuit.h"

/* The constants, variables 0..nv-1, then random negations, ands and ors (1-4 kids) of
 * earlier nodes, `want` nodes in all, into pool; returns how many. */
static inline uint32_t random_circuit(circuit_t *c, splitmix_t *rng, uint32_t nv, pn_t *pool,
                                      uint32_t want) {
    uint32_t np = 0;
    pool[np++] = PN_TRUE;
    pool[np++] = PN_FALSE;
    for (uint32_t v = 0; v < nv; v++)
        pool[np++] = pn_var(c, v);
    while (np < want) {
        pn_t kids[4];
        uint32_t k = 1 + splitmix_next(rng) % 4;
        for (uint32_t i = 0; i < k; i++)
            kids[i] = pool[splitmix_next(rng) % np];
        uint64_t op = splitmix_next(rng) % 3;
        pool[np++] = op == 0   ? pn_not(c, kids[0])
                     : op == 1 ? pn_and(c, kids, k)
                               : pn_or(c, kids, k);
    }
    return np;
}

#endif
