/* Exact belief sets for the unit tests: the states consistent with what one role saw,
 * by enumeration with the reasoner (every joint move with our move, legal, yielding
 * exactly our percepts). */
#ifndef TESTS_UNIT_BELIEF_ENUM_H
#define TESTS_UNIT_BELIEF_ENUM_H

#include <stdlib.h>
#include <string.h>

#include "terms.h"

typedef struct {
    state_t *v;
    uint32_t n, cap;
    uint32_t *index; /* open addressing on state_hash: position + 1 */
    uint32_t index_cap;
} set_t;

static inline void set_reindex(set_t *s) {
    free(s->index);
    s->index_cap = s->index_cap ? 2 * s->index_cap : 64;
    s->index = calloc(s->index_cap, sizeof *s->index);
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t h = (uint32_t)state_hash(&s->v[i]) & (s->index_cap - 1);
        while (s->index[h])
            h = (h + 1) & (s->index_cap - 1);
        s->index[h] = i + 1;
    }
}

static inline void set_add(set_t *s, const state_t *st) {
    if (2 * (s->n + 1) > s->index_cap) set_reindex(s);
    uint32_t h = (uint32_t)state_hash(st) & (s->index_cap - 1);
    while (s->index[h]) {
        if (state_equal(&s->v[s->index[h] - 1], st)) return;
        h = (h + 1) & (s->index_cap - 1);
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
    }
    state_init(&s->v[s->n]);
    state_copy(&s->v[s->n++], st);
    s->index[h] = s->n;
}

static inline bool set_has(const set_t *s, const state_t *st) {
    for (uint32_t h = (uint32_t)state_hash(st) & (s->index_cap - 1); s->index[h];
         h = (h + 1) & (s->index_cap - 1))
        if (state_equal(&s->v[s->index[h] - 1], st)) return true;
    return false;
}

static inline void set_free(set_t *s) {
    for (uint32_t i = 0; i < s->n; i++)
        state_fini(&s->v[i]);
    free(s->v);
    free(s->index);
    memset(s, 0, sizeof *s);
}

/* One step of one role's view: its move and percepts (sorted copies). */
typedef struct {
    term_t move;
    term_t *pc;
    uint32_t n;
} obs_t;

static inline uint32_t sorted_percepts(engine_t *r, const state_t *s, const term_t *joint,
                                       uint32_t role, term_t *out) {
    const term_t *p;
    uint32_t n = terms_sees(r, s, joint, role, &p);
    memcpy(out, p, n * sizeof *p);
    qsort(out, n, sizeof *out, cmp_u32);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!k || out[k - 1] != out[i]) out[k++] = out[i];
    return k;
}

/* Role k's view of the step from s by joint, kept in *o (its percepts' copy is the
 * caller's to free). */
static inline void obs_record(obs_t *o, engine_t *r, const state_t *s, const term_t *joint,
                              uint32_t k) {
    term_t buf[256];
    o->move = joint[k];
    o->n = sorted_percepts(r, s, joint, k, buf);
    o->pc = malloc((o->n + 1) * sizeof *o->pc);
    memcpy(o->pc, buf, o->n * sizeof *buf);
}

/* Successors of every state of cur under joint moves with our move that give our percepts. */
typedef struct {
    engine_t *r;
    const game_t *g;
    uint32_t role;
    const obs_t *o;
    const state_t *s;
    term_t joint[16];
    set_t *out;
    term_t buf[256];
} expand_t;

static inline void expand(expand_t *e, uint32_t k) {
    if (k == e->g->n_roles) {
        uint32_t n = sorted_percepts(e->r, e->s, e->joint, e->role, e->buf);
        if (n != e->o->n || memcmp(e->buf, e->o->pc, n * sizeof *e->buf)) return;
        state_t nx;
        state_init(&nx);
        terms_next(e->r, e->s, e->joint, &nx);
        set_add(e->out, &nx);
        state_fini(&nx);
        return;
    }
    const term_t *m;
    uint32_t nm = terms_legal(e->r, e->s, k, &m);
    term_t *moves = malloc((nm + 1) * sizeof *moves);
    memcpy(moves, m, nm * sizeof *m);
    for (uint32_t i = 0; i < nm; i++) {
        if (k == e->role && moves[i] != e->o->move) continue;
        e->joint[k] = moves[i];
        expand(e, k + 1);
    }
    free(moves);
}

static inline void belief_step(engine_t *r, const game_t *g, uint32_t role, const obs_t *o,
                               set_t *cur) {
    set_t next = {0};
    expand_t e = {.r = r, .g = g, .role = role, .o = o, .out = &next};
    for (uint32_t i = 0; i < cur->n; i++) {
        if (terms_terminal(r, &cur->v[i])) continue;
        e.s = &cur->v[i];
        expand(&e, 0);
    }
    set_free(cur);
    *cur = next;
}

/* Fluents true in every state of the set, sorted. */
static inline uint32_t intersection(const set_t *s, term_t *out) {
    uint32_t n = s->v[0].n;
    memcpy(out, s->v[0].facts, n * sizeof *out);
    for (uint32_t i = 1; i < s->n; i++) {
        uint32_t k = 0;
        for (uint32_t j = 0; j < n; j++)
            if (state_has(&s->v[i], out[j])) out[k++] = out[j];
        n = k;
    }
    qsort(out, n, sizeof *out, cmp_u32);
    return n;
}

#endif
