/* The joint moves of one state: see joints.h. */
#include "engine/joints.h"

#include <stdlib.h>
#include <string.h>

#include "gdl/trace.h"

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

/* Puts a role's n moves in order; their number (the trace order drops repeats). */
static uint32_t order_moves(const term_store_t *ts, term_t *m, uint32_t n, joints_order_t order) {
    if (order == JOINTS_CANONICAL) term_sort(ts, m, n);
    if (order != JOINTS_TRACE_ORDER) return n;
    strbuf_t texts;
    sb_init(&texts);
    n = trace_sort_terms(ts, m, n, &texts);
    sb_fini(&texts);
    return n;
}

uint64_t joints_load(joints_t *j, engine_t *e, const eng_state_t *s, joints_order_t order,
                     uint32_t fixed, term_t move) {
    j->fixed = fixed;
    j->count = 1;
    for (uint32_t r = 0; r < j->n_roles; r++) {
        const term_t *m = &move;
        uint32_t n = r == fixed ? 1 : engine_legal(e, s, r, &m);
        free(j->legal[r]);
        j->legal[r] = xmalloc((n + 1) * sizeof *m);
        if (n) memcpy(j->legal[r], m, n * sizeof *m);
        n = order_moves(engine_game(e)->ts, j->legal[r], n, order);
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
