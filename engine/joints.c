/* The joint moves of one state: see joints.h. */
#include "engine/joints.h"

#include <stdlib.h>
#include <string.h>

void joints_init(joints_t *j, uint32_t n_roles) {
    memset(j, 0, sizeof *j);
    j->n_roles = n_roles;
    j->fixed = JOINTS_NONE;
    j->legal = xcalloc(n_roles + 1, sizeof *j->legal);
    j->n = xcalloc(n_roles + 1, sizeof *j->n);
}

void joints_fini(joints_t *j) {
    for (uint32_t r = 0; r < j->n_roles; r++)
        free(j->legal[r]);
    free(j->legal);
    free(j->n);
    memset(j, 0, sizeof *j);
}

uint64_t joints_load(joints_t *j, engine_t *e, const eng_state_t *s, bool sorted, uint32_t fixed,
                     term_t move) {
    j->fixed = fixed;
    j->count = 1;
    for (uint32_t r = 0; r < j->n_roles; r++) {
        const term_t *m = &move;
        uint32_t n = r == fixed ? 1 : engine_legal(e, s, r, &m);
        free(j->legal[r]);
        j->legal[r] = xmalloc((n + 1) * sizeof *m);
        if (n) memcpy(j->legal[r], m, n * sizeof *m);
        if (sorted) term_sort(engine_game(e)->ts, j->legal[r], n);
        j->n[r] = n;
        if (!n || j->count <= UINT32_MAX) j->count *= n; /* saturates: callers cap far below */
    }
    return j->count;
}

void joints_get(const joints_t *j, uint64_t k, term_t *joint) {
    for (uint32_t r = 0; r < j->n_roles; r++) {
        joint[r] = j->legal[r][k % j->n[r]];
        k /= j->n[r];
    }
}

void joints_random(const joints_t *j, splitmix_t *rng, term_t *joint) {
    for (uint32_t r = 0; r < j->n_roles; r++)
        joint[r] = j->legal[r][r == j->fixed ? 0 : splitmix_next(rng) % j->n[r]];
}
