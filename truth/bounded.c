/* The bounded exact search: see bounded.h. */
#include "truth/bounded.h"
#include "base/clock.h"
#include "truth/postab.h"

#include <stdlib.h>
#include <string.h>

#define TT_MAX_ENTRIES (1u << 22) /* past this the table is emptied (memory stays bounded) */

struct bounded {
    engine_t *e;
    term_t noop[2];
    postab_t tt;             /* the positions solved: tag role * 256 + i */
    uint64_t nodes, stop_at; /* stop_at: node count where the current query gives up */
    double deadline;         /* > 0: now_seconds() time where the current query gives up */
};

bounded_t *bounded_new(engine_t *e, const term_t *noop) {
    bounded_t *b = xcalloc(1, sizeof *b);
    b->e = e;
    b->noop[0] = noop[0];
    b->noop[1] = noop[1];
    postab_init(&b->tt, e, TT_MAX_ENTRIES);
    return b;
}

void bounded_free(bounded_t *b) {
    if (!b) return;
    postab_fini(&b->tt);
    free(b);
}

uint64_t bounded_nodes(const bounded_t *b) {
    return b->nodes;
}

/* Does `mover` move here: the other role's only move its no-op, the mover's not legal? */
static bool moves_here(bounded_t *b, const eng_state_t *s, uint32_t mover) {
    const term_t *m;
    uint32_t other = 1 - mover;
    uint32_t n = engine_legal(b->e, s, other, &m);
    if (n != 1 || m[0] != b->noop[other]) return false;
    n = engine_legal(b->e, s, mover, &m);
    for (uint32_t k = 0; k < n; k++)
        if (m[k] == b->noop[mover]) return false;
    return n > 0;
}

static int in_w(bounded_t *b, const eng_state_t *s, uint32_t role, uint32_t i);

/* Some (i odd) or every (i even) move of the mover leads into W_{i-1}. */
static int over_moves(bounded_t *b, const eng_state_t *s, uint32_t role, uint32_t i) {
    uint32_t mover = i % 2 ? role : 1 - role;
    if (b->stop_at && b->nodes >= b->stop_at) return BOUNDED_UNKNOWN;
    if (b->deadline > 0 && (b->nodes & 15) == 0 && now_seconds() > b->deadline)
        return BOUNDED_UNKNOWN;
    b->nodes++;
    const term_t *m;
    uint32_t n = engine_legal(b->e, s, mover, &m);
    term_t *moves = xmalloc((n + 1) * sizeof *moves); /* m lives until the next call */
    memcpy(moves, m, n * sizeof *moves);
    bool exists = i % 2 == 1, unknown = false;
    int result = exists ? 0 : 1;
    eng_state_t *t = engine_state_new(b->e);
    term_t joint[2];
    joint[1 - mover] = b->noop[1 - mover];
    for (uint32_t k = 0; k < n; k++) {
        joint[mover] = moves[k];
        engine_next(b->e, s, joint, t);
        int v = in_w(b, t, role, i - 1);
        if (v == BOUNDED_UNKNOWN) unknown = true;
        if (v == (exists ? 1 : 0)) {
            result = v;
            unknown = false;
            break;
        }
    }
    engine_state_free(t);
    free(moves);
    return unknown ? BOUNDED_UNKNOWN : result;
}

static int in_w(bounded_t *b, const eng_state_t *s, uint32_t role, uint32_t i) {
    uint32_t tag = role * 256 + i;
    postab_pos_t pos = postab_pos(s, tag);
    int v = postab_find(&b->tt, &pos);
    if (v != POSTAB_NONE) return v;
    if (engine_terminal(b->e, s))
        v = i == 0 && engine_goal_value(b->e, s, role) == 100;
    else if (i == 0 || !moves_here(b, s, i % 2 ? role : 1 - role))
        v = 0;
    else
        v = over_moves(b, s, role, i);
    if (v != BOUNDED_UNKNOWN) postab_store(&b->tt, &pos, v);
    return v;
}

int bounded_in_w(bounded_t *b, const state_t *s, uint32_t role, uint32_t i, uint64_t max_nodes,
                 double deadline) {
    if (role > 1 || i > 255) return BOUNDED_UNKNOWN;
    b->stop_at = max_nodes ? b->nodes + max_nodes : 0;
    b->deadline = deadline;
    eng_state_t *es = engine_state_new(b->e);
    engine_state_set(b->e, es, s);
    int v = in_w(b, es, role, i);
    engine_state_free(es);
    b->stop_at = 0;
    b->deadline = 0;
    return v;
}
