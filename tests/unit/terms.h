/* The engine on term states, for tests that keep their states as terms (solver states,
 * hand-made states): each call loads the state into the engine (engine_state_set) and
 * asks; results returned through pointers live in the engine until its next call. */
#ifndef TESTS_UNIT_TERMS_H
#define TESTS_UNIT_TERMS_H

#include "base/rng.h"
#include "engine/engine.h"

static inline eng_state_t *terms_load(engine_t *e, const state_t *s) {
    eng_state_t *es = engine_state_new(e);
    engine_state_set(e, es, s);
    return es;
}

static inline void terms_initial(engine_t *e, state_t *out) {
    eng_state_t *es = engine_state_new(e);
    engine_initial(e, es);
    engine_state_terms(e, es, out);
    engine_state_free(es);
}

static inline bool terms_terminal(engine_t *e, const state_t *s) {
    eng_state_t *es = terms_load(e, s);
    bool t = engine_terminal(e, es);
    engine_state_free(es);
    return t;
}

static inline uint32_t terms_legal(engine_t *e, const state_t *s, uint32_t role,
                                   const term_t **moves) {
    eng_state_t *es = terms_load(e, s);
    uint32_t n = engine_legal(e, es, role, moves);
    engine_state_free(es);
    return n;
}

static inline bool terms_is_legal(engine_t *e, const state_t *s, uint32_t role, term_t move) {
    eng_state_t *es = terms_load(e, s);
    bool l = engine_is_legal(e, es, role, move);
    engine_state_free(es);
    return l;
}

static inline int terms_goal_value(engine_t *e, const state_t *s, uint32_t role) {
    eng_state_t *es = terms_load(e, s);
    int v = engine_goal_value(e, es, role);
    engine_state_free(es);
    return v;
}

static inline void terms_next(engine_t *e, const state_t *s, const term_t *joint, state_t *out) {
    eng_state_t *es = terms_load(e, s), *nx = engine_state_new(e);
    engine_next(e, es, joint, nx);
    engine_state_terms(e, nx, out);
    engine_state_free(es);
    engine_state_free(nx);
}

static inline uint32_t terms_sees(engine_t *e, const state_t *s, const term_t *joint, uint32_t role,
                                  const term_t **percepts) {
    eng_state_t *es = terms_load(e, s);
    uint32_t n = engine_sees(e, es, joint, role, percepts);
    engine_state_free(es);
    return n;
}

/* From the initial state, up to `plies` joint moves drawn by rng (each role's move uniform
 * among its legal ones); stops early at a terminal state. The plies
 * played. */
static inline uint32_t terms_random_walk(engine_t *e, state_t *s, uint32_t plies, splitmix_t *rng) {
    uint32_t nr = engine_game(e)->n_roles, ply = 0;
    state_t nx;
    state_init(&nx);
    terms_initial(e, s);
    for (; ply < plies && !terms_terminal(e, s); ply++) {
        term_t joint[nr];
        for (uint32_t k = 0; k < nr; k++) {
            const term_t *mv;
            uint32_t n = terms_legal(e, s, k, &mv);
            joint[k] = mv[splitmix_next(rng) % n];
        }
        terms_next(e, s, joint, &nx);
        state_copy(s, &nx);
    }
    state_fini(&nx);
    return ply;
}

#endif
