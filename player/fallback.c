/* The move sent when nothing better is proved in time: see fallback.h. */
#include "player/fallback.h"

#include <stdio.h>
#include <stdlib.h>

#include "gdl/trace.h"

/* Whether move, with each other role's first legal move in world s, leaves the game going
 * with our goal value not lowered (the goal undefined counts as not lowered). False when
 * another role has no legal move in s (the world tells nothing then). */
static bool keeps_going(engine_t *e, eng_state_t *s, eng_state_t *nx, uint32_t role, term_t move,
                        term_t *joint) {
    uint32_t nr = engine_game(e)->n_roles;
    for (uint32_t r = 0; r < nr; r++) {
        const term_t *m;
        if (r == role) {
            joint[r] = move;
        } else if (engine_legal(e, s, r, &m) > 0) {
            joint[r] = m[0];
        } else {
            return false;
        }
    }
    if (!engine_is_legal(e, s, role, move)) return false; /* the world is not the truth */
    engine_next(e, s, joint, nx);
    int before = engine_goal_value(e, s, role), after = engine_goal_value(e, nx, role);
    return !engine_terminal(e, nx) && after >= before;
}

/* The first of moves[0..n) (trace order) that keeps the game going (keeps_going) in a
 * consistent world (the model of the check), else in the caller's world (hint: a believed
 * state, when there is one), else the first. */
static term_t safest(bsmt_t *b, engine_t *e, uint32_t role, const term_t *moves, uint32_t n,
                     bool checked, const state_t *hint) {
    state_t w;
    state_init(&w);
    term_t pick = moves[0];
    bool model = checked && bsmt_sat_model(b, &w); /* the propagating check's model */
    if (model || hint) {
        eng_state_t *s = engine_state_new(e), *nx = engine_state_new(e);
        term_t *joint = xcalloc(engine_game(e)->n_roles + 1, sizeof *joint);
        engine_state_set(e, s, model ? &w : hint);
        for (uint32_t i = 0; i < n; i++)
            if (keeps_going(e, s, nx, role, moves[i], joint)) {
                pick = moves[i];
                break;
            }
        free(joint);
        engine_state_free(s);
        engine_state_free(nx);
    }
    state_fini(&w);
    return pick;
}

term_t fallback_move(bsmt_t *b, engine_t *e, uint32_t role, const state_t *hint, double deadline,
                     bool verbose, const char *who, uint32_t turn) {
    term_t *moves;
    bool checked;
    uint32_t n = bsmt_fixed_legal(b, deadline, &moves, &checked);
    term_t pick = TERM_NONE;
    if (n) {
        strbuf_t sb;
        sb_init(&sb);
        n = trace_sort_terms(engine_game(e)->ts, moves, n, &sb);
        sb_fini(&sb);
        pick = n == 1 ? moves[0] : safest(b, e, role, moves, n, checked, hint);
    } else if (verbose) {
        fprintf(stderr, "%s: turn %u: no move legal by construction (%s): no fallback move\n", who,
                turn,
                checked ? "none fixed by the known fluents and unit propagation"
                        : "none by the known fluents, and the history not found consistent by the "
                          "deadline for unit propagation");
    }
    free(moves);
    return pick;
}
