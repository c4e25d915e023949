/* The bounded search for forced outcomes: see force.h. */
#include "truth/force.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/util.h"
#include "truth/postab.h"

#define TT_MAX_ENTRIES (1u << 21) /* past this the table is emptied (memory stays bounded) */

typedef struct {
    eng_state_t *next;
    term_t **moves; /* per role, copied (the engine's buffer lives until its next call) */
    uint32_t *n, *cap;
    term_t *joint;
} frame_t;

struct force {
    engine_t *e;
    uint32_t n_roles;
    force_goal_t goal;
    bool have_goal;
    postab_t tt;     /* the positions decided for the current goal: tag i */
    frame_t *frames; /* per depth */
    uint32_t n_frames;
    uint64_t nodes, stop_at;
    double deadline;
};

force_t *force_new(engine_t *e) {
    force_t *f = xcalloc(1, sizeof *f);
    f->e = e;
    f->n_roles = engine_game(e)->n_roles;
    postab_init(&f->tt, e, TT_MAX_ENTRIES);
    return f;
}

void force_free(force_t *f) {
    if (!f) return;
    postab_fini(&f->tt);
    for (uint32_t d = 0; d < f->n_frames; d++) {
        frame_t *fr = &f->frames[d];
        engine_state_free(fr->next);
        for (uint32_t r = 0; r < f->n_roles; r++)
            free(fr->moves[r]);
        free(fr->moves), free(fr->n), free(fr->cap), free(fr->joint);
    }
    free(f->frames);
    free(f);
}

uint64_t force_nodes(const force_t *f) {
    return f->nodes;
}

static frame_t *frame(force_t *f, uint32_t depth) {
    while (f->n_frames <= depth) {
        f->frames = xrealloc(f->frames, (f->n_frames + 1) * sizeof *f->frames);
        frame_t *fr = &f->frames[f->n_frames++];
        fr->next = engine_state_new(f->e);
        fr->moves = xcalloc(f->n_roles + 1, sizeof *fr->moves);
        fr->n = xcalloc(f->n_roles + 1, sizeof *fr->n);
        fr->cap = xcalloc(f->n_roles + 1, sizeof *fr->cap);
        fr->joint = xcalloc(f->n_roles + 1, sizeof *fr->joint);
    }
    return &f->frames[depth];
}

static void load_moves(force_t *f, frame_t *fr, const eng_state_t *s) {
    for (uint32_t r = 0; r < f->n_roles; r++) {
        const term_t *m;
        uint32_t n = engine_legal(f->e, s, r, &m);
        if (n > fr->cap[r]) {
            fr->cap[r] = n;
            fr->moves[r] = xrealloc(fr->moves[r], n * sizeof *m);
        }
        memcpy(fr->moves[r], m, n * sizeof *m);
        fr->n[r] = n;
    }
}

/* The joint move of the coalition's part a and the others' part b (mixed radix each). */
static void set_joint(force_t *f, frame_t *fr, uint64_t a, uint64_t b) {
    for (uint32_t r = f->n_roles; r-- > 0;) {
        uint64_t *part = f->goal.coalition >> r & 1 ? &a : &b;
        fr->joint[r] = fr->moves[r][*part % fr->n[r]];
        *part /= fr->n[r];
    }
}

static bool met(force_t *f, const eng_state_t *s) {
    int g = engine_goal_value(f->e, s, f->goal.role);
    return g >= 0 && (f->goal.above ? g >= f->goal.v : g <= f->goal.v);
}

static int rec(force_t *f, const eng_state_t *s, uint32_t i, uint32_t depth);

/* Some joint move of the coalition after which every answer leads to a forced state. */
static int over_moves(force_t *f, const eng_state_t *s, uint32_t i, uint32_t depth) {
    frame_t *fr = frame(f, depth);
    load_moves(f, fr, s);
    uint64_t pa = 1, pb = 1;
    for (uint32_t r = 0; r < f->n_roles; r++)
        *(f->goal.coalition >> r & 1 ? &pa : &pb) *= fr->n[r];
    bool unknown = false;
    for (uint64_t a = 0; a < pa; a++) {
        bool all = true, a_unknown = false;
        for (uint64_t b = 0; b < pb && all; b++) {
            fr = frame(f, depth); /* the frames may move as the search deepens */
            set_joint(f, fr, a, b);
            engine_next(f->e, s, fr->joint, fr->next);
            int v = rec(f, frame(f, depth)->next, i - 1, depth + 1);
            if (v == 0) all = false;
            if (v == FORCE_UNKNOWN) a_unknown = true;
        }
        if (all && !a_unknown) return 1;
        if (all) unknown = true;
    }
    return unknown ? FORCE_UNKNOWN : 0;
}

static int rec(force_t *f, const eng_state_t *s, uint32_t i, uint32_t depth) {
    if (engine_terminal(f->e, s)) return met(f, s);
    if (i == 0) return 0;
    postab_pos_t pos = postab_pos(s, i);
    int known = postab_find(&f->tt, &pos);
    if (known != POSTAB_NONE) return known;
    if (f->stop_at && f->nodes >= f->stop_at) return FORCE_UNKNOWN;
    if (f->deadline > 0 && (f->nodes & 15) == 0 && now_seconds() > f->deadline)
        return FORCE_UNKNOWN;
    f->nodes++;
    int v = over_moves(f, s, i, depth);
    if (v != FORCE_UNKNOWN) postab_store(&f->tt, &pos, v);
    return v;
}

int force_within(force_t *f, const eng_state_t *s, const force_goal_t *goal, uint32_t i,
                 uint64_t max_nodes, double deadline) {
    if (i > 255 || goal->role >= f->n_roles) return FORCE_UNKNOWN;
    const force_goal_t *o = &f->goal;
    if (!f->have_goal || o->coalition != goal->coalition || o->role != goal->role ||
        o->v != goal->v || o->above != goal->above)
        postab_clear(&f->tt);
    f->goal = *goal, f->have_goal = true;
    f->stop_at = max_nodes ? f->nodes + max_nodes : 0;
    f->deadline = deadline;
    int v = rec(f, s, i, 0);
    f->stop_at = 0, f->deadline = 0;
    return v;
}
