/* The interpreter backend: the engine interface on the rules evaluator (reason.h), on
 * term states. The fallback of every game that does not ground, and the reference the
 * ground backends are checked against (ggp ground --check, the corpus traces). */
#include <stdlib.h>

#include "base/rng.h"
#include "engine/backend.h"
#include "engine/reason.h"

typedef struct {
    engine_t base;
    reasoner_t *r;
} interp_t;

static reasoner_t *R(engine_t *e) {
    return ((interp_t *)e)->r;
}

static void interp_free(engine_t *e) {
    reason_free(R(e));
    free(e);
}

static engine_t *interp_clone(const engine_t *e) {
    return interp_new(e->g);
}

static void interp_initial(engine_t *e, eng_state_t *out) {
    reason_initial(R(e), &out->terms);
}
static bool interp_terminal(engine_t *e, const eng_state_t *s) {
    return reason_terminal(R(e), &s->terms);
}
static uint32_t interp_legal(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **m) {
    return reason_legal(R(e), &s->terms, role, m);
}
static bool interp_is_legal(engine_t *e, const eng_state_t *s, uint32_t role, term_t move) {
    return reason_is_legal(R(e), &s->terms, role, move);
}
static uint32_t interp_goals(engine_t *e, const eng_state_t *s, uint32_t role,
                             const term_t **values) {
    return reason_goals(R(e), &s->terms, role, values);
}
static void interp_next(engine_t *e, const eng_state_t *s, const term_t *joint, eng_state_t *out) {
    reason_next(R(e), &s->terms, joint, &out->terms);
}
static uint32_t interp_sees(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t role,
                            const term_t **p) {
    return reason_sees(R(e), &s->terms, joint, role, p);
}
static void interp_to_terms(engine_t *e, const eng_state_t *s, state_t *out) {
    (void)e;
    state_copy(out, &s->terms);
}
static void interp_from_terms(engine_t *e, eng_state_t *s, const state_t *in) {
    (void)e;
    state_copy(&s->terms, in);
}
static uint32_t interp_query(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t pred,
                             const term_t **tuples) {
    return reason_query(R(e), s ? &s->terms : NULL, joint, pred, tuples);
}

/* The generic playout: through the interface (the interpreter allocates inside). */
static uint32_t interp_playout(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                               int *goals, engine_playout_hook_t hook, void *ctx, bool *stopped) {
    uint32_t nr = e->g->n_roles, steps = 0;
    term_t *joint = xmalloc((nr + 1) * sizeof *joint);
    eng_state_t *t = engine_state_new(e);
    bool stop = false;
    for (; !engine_terminal(e, s); steps++) {
        if (hook && (stop = hook(ctx, s))) break;
        if (steps >= max_steps || !engine_random_joint(e, s, rng, joint)) break; /* no moves */
        engine_next(e, s, joint, t);
        engine_state_copy(s, t);
    }
    if (stop) *stopped = true;
    for (uint32_t r = 0; r < nr && !stop; r++)
        goals[r] = engine_goal_value(e, s, r);
    engine_state_free(t);
    free(joint);
    return steps;
}

static const char *interp_error(const engine_t *e) {
    return reason_error(((const interp_t *)e)->r);
}

static const engine_ops_t interp_ops = {
    .free = interp_free,
    .clone = interp_clone,
    .initial = interp_initial,
    .terminal = interp_terminal,
    .legal = interp_legal,
    .is_legal = interp_is_legal,
    .goals = interp_goals,
    .next = interp_next,
    .sees = interp_sees,
    .to_terms = interp_to_terms,
    .from_terms = interp_from_terms,
    .query = interp_query,
    .playout = interp_playout,
    .error = interp_error,
};

engine_t *interp_new(game_t *g) {
    interp_t *in = xcalloc(1, sizeof *in);
    in->base = (engine_t){.ops = &interp_ops, .kind = ENGINE_INTERP, .g = g};
    in->r = reason_new(g);
    return &in->base;
}
