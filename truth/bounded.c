/* The bounded exact search: see bounded.h. */
#include "truth/bounded.h"
#include "base/clock.h"
#include "base/htab.h"

#include <stdlib.h>
#include <string.h>

#define TT_MAX_ENTRIES (1u << 22) /* past this the table is emptied (memory stays bounded) */

typedef struct {
    uint64_t key;
    eng_state_t *state;
    uint8_t role, i, value;
} tt_entry_t;

struct bounded {
    engine_t *e;
    term_t noop[2];
    tt_entry_t *tt; /* the positions solved */
    uint32_t used;
    size_t cap;
    htab_t index;            /* of tt, by position */
    uint64_t nodes, stop_at; /* stop_at: node count where the current query gives up */
    double deadline;         /* > 0: now_seconds() time where the current query gives up */
};

bounded_t *bounded_new(engine_t *e, const term_t *noop) {
    bounded_t *b = xcalloc(1, sizeof *b);
    b->e = e;
    b->noop[0] = noop[0];
    b->noop[1] = noop[1];
    return b;
}

static void tt_clear(bounded_t *b) {
    for (uint32_t k = 0; k < b->used; k++)
        engine_state_free(b->tt[k].state);
    htab_clear(&b->index);
    b->used = 0;
}

void bounded_free(bounded_t *b) {
    if (!b) return;
    tt_clear(b);
    free(b->tt);
    htab_fini(&b->index);
    free(b);
}

uint64_t bounded_nodes(const bounded_t *b) {
    return b->nodes;
}

static uint64_t tt_key(const eng_state_t *s, uint32_t role, uint32_t i) {
    return engine_state_hash(s) ^ ((uint64_t)(role * 64 + i + 1) * 0x9e3779b97f4a7c15ull);
}

typedef struct {
    const bounded_t *b;
    uint64_t key;
    const eng_state_t *s;
    uint32_t role, i;
} tt_probe_t;

static bool tt_same(const void *ctx, uint32_t id) {
    const tt_probe_t *p = ctx;
    const tt_entry_t *e = &p->b->tt[id];
    return e->key == p->key && e->role == p->role && e->i == p->i &&
           engine_state_equal(e->state, p->s);
}

static uint32_t tt_hash(const void *ctx, uint32_t id) {
    return (uint32_t)((const bounded_t *)ctx)->tt[id].key;
}

/* The entry of a position, or NULL. */
static const tt_entry_t *tt_find(const bounded_t *b, uint64_t key, const eng_state_t *s,
                                 uint32_t role, uint32_t i) {
    tt_probe_t p = {b, key, s, role, i};
    uint32_t id = htab_find(&b->index, (uint32_t)key, tt_same, &p);
    return id == HTAB_NONE ? NULL : &b->tt[id];
}

/* Remembers the value of a position. */
static void tt_store(bounded_t *b, uint64_t key, const eng_state_t *s, uint32_t role, uint32_t i,
                     int value) {
    if (b->used >= TT_MAX_ENTRIES) tt_clear(b);
    if (tt_find(b, key, s, role, i)) return;
    GROW(b->tt, b->cap, (size_t)b->used + 1);
    tt_entry_t *e = &b->tt[b->used];
    e->key = key;
    e->state = engine_state_new(b->e);
    engine_state_copy(e->state, s);
    e->role = (uint8_t)role;
    e->i = (uint8_t)i;
    e->value = (uint8_t)value;
    htab_add(&b->index, (uint32_t)key, b->used++, tt_hash, b);
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
    uint64_t key = tt_key(s, role, i);
    const tt_entry_t *e = tt_find(b, key, s, role, i);
    if (e) return e->value;
    int v;
    if (engine_terminal(b->e, s))
        v = i == 0 && engine_goal_value(b->e, s, role) == 100;
    else if (i == 0 || !moves_here(b, s, i % 2 ? role : 1 - role))
        v = 0;
    else
        v = over_moves(b, s, role, i);
    if (v != BOUNDED_UNKNOWN) tt_store(b, key, s, role, i, v);
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
