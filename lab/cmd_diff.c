/* The differential check of a ground engine against the interpreter (ggp ground --check):
 * random matches played on both side by side, everything the interface answers compared
 * at every step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/util.h"
#include "cli/commands.h"
#include "engine/joints.h"

typedef struct {
    engine_t *a, *b; /* the interpreter, the engine under test */
    eng_state_t *hb; /* b's state made again from its terms: its hash from scratch */
    const game_t *g;
    state_t ta, tb;
    term_t *ma, *mb;
    size_t cap_a, cap_b;
    joints_t moves; /* the interpreter's legal moves, the joint move drawn from them */
    unsigned long long match;
    uint32_t step;
    uint32_t max_steps; /* joint moves per match and per playout at most */
} diff_t;

/* Copies and sorts a term list into *buf. */
static uint32_t sorted(const term_t *in, uint32_t n, term_t **buf, size_t *cap) {
    GROW(*buf, *cap, n + 1);
    if (n) memcpy(*buf, in, n * sizeof *in); /* in may be NULL when n is 0 */
    qsort(*buf, n, sizeof **buf, cmp_u32);
    return n;
}

static bool report(diff_t *d, const char *what, uint32_t role) {
    for (int k = 0; k < 2; k++) { /* an engine that gave up answers nothing: say why */
        engine_t *e = k ? d->b : d->a;
        if (!engine_error(e)) continue;
        printf("check: the %s engine gave up at match %llu step %u: %s\n",
               engine_kind_name(engine_kind(e)), d->match, d->step, engine_error(e));
        return false;
    }
    strbuf_t sb;
    sb_init(&sb);
    term_print(d->g->ts, d->g->roles[role], &sb);
    printf("check: %s %s differs from the interpreter's at match %llu step %u (role %s)\n",
           engine_kind_name(engine_kind(d->b)), what, d->match, d->step, sb_str(&sb));
    sb_fini(&sb);
    return false;
}

/* Sorted lists of both engines compared. */
static bool same_lists(diff_t *d, const term_t *x, uint32_t nx, const term_t *y, uint32_t ny) {
    if (nx != ny) return false;
    sorted(x, nx, &d->ma, &d->cap_a);
    sorted(y, ny, &d->mb, &d->cap_b);
    return memcmp(d->ma, d->mb, nx * sizeof *d->ma) == 0;
}

/* The hash of the engine's state is the one its terms give (engine_next updates the hash of
 * the state before rather than making it again). */
static bool same_hash(diff_t *d, const eng_state_t *sb) {
    engine_state_set(d->b, d->hb, &d->tb);
    if (engine_state_hash(d->hb) == engine_state_hash(sb)) return true;
    printf("check: %s state's hash differs from its terms' at match %llu step %u\n",
           engine_kind_name(engine_kind(d->b)), d->match, d->step);
    return false;
}

static bool same_state(diff_t *d, const eng_state_t *sa, const eng_state_t *sb) {
    engine_state_terms(d->a, sa, &d->ta);
    engine_state_terms(d->b, sb, &d->tb);
    if (!state_equal(&d->ta, &d->tb)) return report(d, "state", 0);
    if (!same_hash(d, sb)) return false;
    if (engine_terminal(d->a, sa) != engine_terminal(d->b, sb)) return report(d, "terminal", 0);
    for (uint32_t r = 0; r < d->g->n_roles; r++)
        if (engine_goal(d->a, sa, r) != engine_goal(d->b, sb, r)) return report(d, "goal", r);
    return true;
}

/* Legal moves compared, the joint move drawn from the interpreter's (canonical order). */
static bool same_legal(diff_t *d, const eng_state_t *sa, const eng_state_t *sb, term_t *joint,
                       splitmix_t *rng, bool *stuck) {
    for (uint32_t r = 0; r < d->g->n_roles; r++) {
        const term_t *x, *y;
        uint32_t nx = engine_legal(d->a, sa, r, &x), ny = engine_legal(d->b, sb, r, &y);
        if (!same_lists(d, x, nx, y, ny)) return report(d, "legal moves", r);
    }
    *stuck = joints_load(&d->moves, d->a, sa, JOINTS_CANONICAL, JOINTS_NONE, 0) == 0;
    if (*stuck) return true;
    joints_random(&d->moves, rng, joint);
    for (uint32_t r = 0; r < d->g->n_roles; r++)
        if (!engine_is_legal(d->b, sb, r, joint[r])) return report(d, "is_legal", r);
    return true;
}

static bool same_sees(diff_t *d, const eng_state_t *sa, const eng_state_t *sb,
                      const term_t *joint) {
    for (uint32_t r = 0; r < d->g->n_roles; r++) {
        const term_t *x, *y;
        uint32_t nx = engine_sees(d->a, sa, joint, r, &x), ny = engine_sees(d->b, sb, joint, r, &y);
        if (!same_lists(d, x, nx, y, ny)) return report(d, "percepts", r);
    }
    return true;
}

/* A playout of the engine (its own fast path) from its initial state: the interpreter
 * must find the final state terminal (unless the playout was cut) with the same goals. */
static bool check_playout(diff_t *d, splitmix_t *rng, int *goals) {
    eng_state_t *sb = engine_state_new(d->b), *sa = engine_state_new(d->a);
    engine_initial(d->b, sb);
    uint32_t steps = engine_playout(d->b, sb, rng, d->max_steps, goals);
    engine_state_terms(d->b, sb, &d->tb);
    engine_state_set(d->a, sa, &d->tb);
    bool ok = true;
    d->step = steps;
    if (steps < d->max_steps && !engine_terminal(d->a, sa)) {
        bool stuck = false;
        for (uint32_t r = 0; r < d->g->n_roles && !stuck; r++) {
            const term_t *m;
            stuck = engine_legal(d->a, sa, r, &m) == 0;
        }
        if (!stuck) ok = report(d, "playout's final state (not terminal)", 0);
    }
    for (uint32_t r = 0; ok && r < d->g->n_roles; r++)
        if (engine_goal_value(d->a, sa, r) != goals[r]) ok = report(d, "playout's goal", r);
    engine_state_free(sa), engine_state_free(sb);
    return ok;
}

/* One match; false at the first difference. */
static bool check_match(diff_t *d, splitmix_t *rng, term_t *joint, unsigned long long *steps) {
    eng_state_t *sa = engine_state_new(d->a), *sb = engine_state_new(d->b);
    eng_state_t *na = engine_state_new(d->a), *nb = engine_state_new(d->b);
    engine_initial(d->a, sa);
    engine_initial(d->b, sb);
    bool ok = true, stuck = false;
    for (d->step = 0; ok && d->step < d->max_steps; d->step++, (*steps)++) {
        ok = same_state(d, sa, sb);
        if (!ok || engine_terminal(d->a, sa)) break;
        ok = same_legal(d, sa, sb, joint, rng, &stuck);
        if (!ok || stuck) break;
        ok = same_sees(d, sa, sb, joint);
        engine_next(d->a, sa, joint, na);
        engine_next(d->b, sb, joint, nb);
        engine_state_copy(sa, na);
        engine_state_copy(sb, nb);
    }
    engine_state_free(sa), engine_state_free(sb), engine_state_free(na), engine_state_free(nb);
    return ok;
}

int engine_differential(game_t *g, int kind, unsigned long long matches, unsigned long long seed) {
    int rc = engine_differential_steps(g, kind, matches, seed, 1000, true);
    if (rc == 3) printf("check: no ground engine to compare\n");
    return rc ? 1 : 0;
}

int engine_differential_steps(game_t *g, int kind, unsigned long long matches,
                              unsigned long long seed, uint32_t max_steps, bool verbose) {
    diff_t d = {.g = g, .max_steps = max_steps};
    d.a = engine_new(g, ENGINE_INTERP, NULL);
    d.b = engine_new(g, (engine_kind_t)kind, verbose ? stderr : NULL);
    d.hb = engine_state_new(d.b);
    state_init(&d.ta), state_init(&d.tb);
    joints_init(&d.moves, g->n_roles);
    term_t *joint = xcalloc(g->n_roles + 1, sizeof *joint);
    splitmix_t rng = {seed};
    unsigned long long steps = 0;
    bool grounded = engine_kind(d.b) != ENGINE_INTERP, ok = grounded;
    int *goals = xcalloc(g->n_roles + 1, sizeof *goals);
    for (d.match = 0; ok && d.match < matches; d.match++)
        ok = check_match(&d, &rng, joint, &steps) && check_playout(&d, &rng, goals);
    free(goals);
    if (ok && verbose)
        printf("check: %llu matches, %llu steps agree (%s engine)\n", matches, steps,
               engine_kind_name(engine_kind(d.b)));
    free(joint), free(d.ma), free(d.mb);
    state_fini(&d.ta), state_fini(&d.tb);
    joints_fini(&d.moves);
    engine_state_free(d.hb);
    engine_free(d.a), engine_free(d.b);
    return !grounded ? 3 : ok ? 0 : 1;
}
