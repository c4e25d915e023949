/* The positions a search over the real moves has decided: a value per (state, tag), the
 * tag naming the question asked of the state (steps left, the role asked about, ...). The
 * table keeps its own copies of the states, in the engine's layout; past max_entries it
 * is emptied, so that memory stays bounded. */
#ifndef TRUTH_POSTAB_H
#define TRUTH_POSTAB_H

#include "base/htab.h"
#include "engine/engine.h"

#define POSTAB_NONE (-128)

typedef struct postab_entry postab_entry_t;

typedef struct {
    engine_t *e;
    postab_entry_t *v;
    uint32_t used, max;
    size_t cap;
    htab_t index; /* of v, by position */
} postab_t;

void postab_init(postab_t *t, engine_t *e, uint32_t max_entries);
void postab_fini(postab_t *t);
/* Forgets every position. */
void postab_clear(postab_t *t);
/* A position asked about: (s, tag) and its hash, computed once for a lookup and the
 * store that may follow it. */
typedef struct {
    const eng_state_t *s;
    uint64_t key;
    uint32_t tag;
} postab_pos_t;

postab_pos_t postab_pos(const eng_state_t *s, uint32_t tag);
/* The value of p, or POSTAB_NONE. */
int postab_find(const postab_t *t, const postab_pos_t *p);
/* Remembers the value (-127..127) of p, unless it is there. */
void postab_store(postab_t *t, const postab_pos_t *p, int value);

#endif
