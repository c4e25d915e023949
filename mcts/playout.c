/* Rollout policies: uniform, MAST ε-greedy, decisive and anti-decisive moves (playout.h). */
#include "mcts/playout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/util.h"

/* MAST averages of one role, indexed by move term (dense: a game's moves are terms of
 * its store, numbered from 1, and the table grows to the largest seen). */
typedef struct {
    float *sum, *cnt;
    size_t cap;
} mast_t;

/* What a playout keeps of one role: its MAST averages and its legal moves in the state
 * being stepped. */
typedef struct {
    mast_t mast;
    term_t *mv;
    uint32_t n_mv;
    size_t cap_mv;
} seat_t;

struct playout {
    engine_t *e;
    playout_opts_t o;
    uint32_t nr;
    seat_t *seat; /* per role */
    struct note {
        uint32_t role;
        term_t move;
    } * notes; /* the moves of this iteration */
    size_t n_notes, cap_notes;
    term_t *next_mv; /* the next mover's moves, for the anti-decisive check */
    uint32_t n_next_mv;
    size_t cap_next_mv;
    uint8_t *dead; /* candidates found to lose at once */
    size_t cap_dead;
    term_t *scratch_joint;
    uint32_t *scratch_n; /* decisive_in: each role's legal moves in the state it checks */
    int *goal;
    eng_state_t **kids; /* successors of one state, for the checks */
    uint32_t *kid_move; /* the index of the move each leads by */
    size_t n_kids;
    /* the state last returned by playout_step and what its check found: its mover's
     * decisive move (TERM_NONE: none), so that the next step need not look again */
    eng_state_t *known;
    bool known_valid;
    term_t known_win;
    playout_stats_t st;
    /* playout_set_until: checks stop past `until`, the clock read every `every` successors
     * (each one on the interpreter, whose successor can cost milliseconds); `cutting`: the
     * current step's checks were cut */
    double until;
    uint32_t every;
    bool cutting;
};

bool playout_is_uniform(const playout_opts_t *o) {
    return !o->decisive && !o->antidecisive && o->mast_eps < 0;
}

playout_t *playout_new(engine_t *e, const playout_opts_t *o) {
    playout_t *p = xcalloc(1, sizeof *p);
    p->e = e;
    p->o = *o;
    if (p->o.antidecisive) p->o.decisive = true;
    if (p->o.mast_eps > 1) p->o.mast_eps = 1;
    p->nr = engine_game(e)->n_roles;
    p->every = engine_kind(e) == ENGINE_INTERP ? 1 : 32;
    p->seat = xcalloc(p->nr, sizeof *p->seat);
    p->scratch_joint = xcalloc(p->nr, sizeof *p->scratch_joint);
    p->scratch_n = xcalloc(p->nr, sizeof *p->scratch_n);
    p->goal = xcalloc(p->nr, sizeof *p->goal);
    p->known = engine_state_new(e);
    return p;
}

void playout_free(playout_t *p) {
    if (!p) return;
    for (uint32_t r = 0; r < p->nr; r++) {
        free(p->seat[r].mast.sum);
        free(p->seat[r].mast.cnt);
        free(p->seat[r].mv);
    }
    free(p->seat);
    free(p->notes);
    free(p->next_mv);
    free(p->dead);
    free(p->scratch_joint);
    free(p->scratch_n);
    free(p->goal);
    for (size_t i = 0; i < p->n_kids; i++)
        engine_state_free(p->kids[i]);
    free(p->kids);
    free(p->kid_move);
    engine_state_free(p->known);
    free(p);
}

/* ---- MAST ---- */

static void mast_fit(mast_t *m, term_t move) {
    if (move < m->cap) return;
    size_t cap = m->cap ? m->cap : 1024;
    while (cap <= move)
        cap *= 2;
    m->sum = xrealloc(m->sum, cap * sizeof *m->sum);
    m->cnt = xrealloc(m->cnt, cap * sizeof *m->cnt);
    memset(m->sum + m->cap, 0, (cap - m->cap) * sizeof *m->sum);
    memset(m->cnt + m->cap, 0, (cap - m->cap) * sizeof *m->cnt);
    m->cap = cap;
}

/* The mean value (0..1) of role r's move; 1 for a move never seen (so it is tried). */
static double mast_mean(const playout_t *p, uint32_t r, term_t move) {
    const mast_t *m = &p->seat[r].mast;
    if (move >= m->cap || m->cnt[move] <= 0) return 1.0;
    return m->sum[move] / m->cnt[move];
}

void playout_begin(playout_t *p) {
    p->n_notes = 0;
}

void playout_note(playout_t *p, uint32_t role, term_t move) {
    if (p->o.mast_eps < 0) return;
    GROW(p->notes, p->cap_notes, p->n_notes + 1);
    p->notes[p->n_notes++] = (struct note){role, move};
}

void playout_learn(playout_t *p, const int *val) {
    for (size_t i = 0; i < p->n_notes; i++) {
        mast_t *m = &p->seat[p->notes[i].role].mast;
        term_t mv = p->notes[i].move;
        mast_fit(m, mv);
        m->sum[mv] += (float)(val[p->notes[i].role] / 100.0);
        m->cnt[mv] += 1;
    }
    p->n_notes = 0;
}

void playout_decay(playout_t *p, double keep) {
    for (uint32_t r = 0; r < p->nr; r++)
        for (size_t i = 0; i < p->seat[r].mast.cap; i++) {
            p->seat[r].mast.sum[i] *= (float)keep;
            p->seat[r].mast.cnt[i] *= (float)keep;
        }
}

/* ---- one step ---- */

/* Copies every role's legal moves in s; false when a role has none. */
static bool load_moves(playout_t *p, const eng_state_t *s) {
    for (uint32_t r = 0; r < p->nr; r++) {
        const term_t *m;
        uint32_t n = engine_legal(p->e, s, r, &m);
        if (n == 0) return false;
        GROW(p->seat[r].mv, p->seat[r].cap_mv, n);
        memcpy(p->seat[r].mv, m, n * sizeof *m);
        p->seat[r].n_mv = n;
    }
    return true;
}

/* A move index of role r among those not dead (dead NULL: all alive; n_alive of them):
 * uniform with probability ε (or without MAST), else the best MAST mean (ties at random). */
static uint32_t pick(playout_t *p, uint32_t r, const uint8_t *dead, uint32_t n_alive,
                     splitmix_t *rng) {
    uint32_t n = p->seat[r].n_mv;
    const term_t *mv = p->seat[r].mv;
    bool greedy =
        p->o.mast_eps >= 0 && (double)(splitmix_next(rng) >> 11) * 0x1.0p-53 >= p->o.mast_eps;
    if (!greedy) {
        uint32_t j = (uint32_t)(splitmix_next(rng) % n_alive);
        for (uint32_t k = 0; k < n; k++)
            if (!(dead && dead[k]) && j-- == 0) return k;
        return 0;
    }
    uint32_t start = (uint32_t)(splitmix_next(rng) % n), best = UINT32_MAX;
    double best_v = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = (start + i) % n;
        if (dead && dead[k]) continue;
        double v = mast_mean(p, r, mv[k]);
        if (v > best_v) {
            best_v = v;
            best = k;
        }
    }
    return best;
}

/* The only role with more than one legal move in the loaded moves, or UINT32_MAX. */
static uint32_t sole_mover(const playout_t *p) {
    uint32_t mover = UINT32_MAX;
    for (uint32_t r = 0; r < p->nr; r++)
        if (p->seat[r].n_mv > 1) {
            if (mover != UINT32_MAX) return UINT32_MAX;
            mover = r;
        }
    return mover;
}

/* Do several roles have a choice in the loaded moves (simultaneous moves)? */
static bool several_choose(const playout_t *p) {
    uint32_t n = 0;
    for (uint32_t r = 0; r < p->nr; r++)
        n += p->seat[r].n_mv > 1;
    return n > 1;
}

/* The joint move of the loaded moves with role r's k-th move and every other role's first
 * (the only one each has in a turn-taking state). */
static void joint_with(const playout_t *p, uint32_t r, uint32_t k, term_t *joint) {
    for (uint32_t o = 0; o < p->nr; o++)
        joint[o] = o == r ? p->seat[r].mv[k] : p->seat[o].mv[0];
}

/* ---- decisive candidates ---- */

struct playout_cands {
    uint32_t nr;
    uint8_t **is; /* per role: is[move term] set for a candidate (dense, like MAST's tables) */
    size_t *cap;
    uint32_t count, matches;
};

static bool cand_is(const playout_cands_t *c, uint32_t r, term_t move) {
    return move < c->cap[r] && c->is[r][move];
}

static void cand_add(playout_cands_t *c, uint32_t r, term_t move) {
    if (move >= c->cap[r]) {
        size_t cap = c->cap[r] ? c->cap[r] : 1024;
        while (cap <= move)
            cap *= 2;
        c->is[r] = xrealloc(c->is[r], cap);
        memset(c->is[r] + c->cap[r], 0, cap - c->cap[r]);
        c->cap[r] = cap;
    }
    c->count += !c->is[r][move];
    c->is[r][move] = 1;
}

/* The only role with more than one legal move in s, or UINT32_MAX (none, or several). */
static uint32_t sole_mover_in(engine_t *e, const eng_state_t *s, uint32_t nr) {
    uint32_t mover = UINT32_MAX;
    for (uint32_t r = 0; r < nr; r++) {
        const term_t *m;
        if (engine_legal(e, s, r, &m) < 2) continue;
        if (mover != UINT32_MAX) return UINT32_MAX;
        mover = r;
    }
    return mover;
}

/* Is s terminal with a win for role r (its goal above every other role's; alone: 100)? */
static bool wins_in(engine_t *e, const eng_state_t *s, uint32_t r, uint32_t nr) {
    if (!engine_terminal(e, s)) return false;
    int mine = engine_goal_value(e, s, r);
    if (nr == 1) return mine >= 100;
    for (uint32_t o = 0; o < nr; o++)
        if (o != r && engine_goal_value(e, s, o) >= mine) return false;
    return true;
}

playout_cands_t *playout_cands_learn(engine_t *e, splitmix_t *rng, uint32_t matches,
                                     uint32_t max_plies, double deadline) {
    playout_cands_t *c = xcalloc(1, sizeof *c);
    uint32_t nr = c->nr = engine_game(e)->n_roles;
    c->is = xcalloc(nr, sizeof *c->is);
    c->cap = xcalloc(nr, sizeof *c->cap);
    eng_state_t *a = engine_state_new(e), *b = engine_state_new(e);
    term_t *joint = xcalloc(nr, sizeof *joint);
    while ((!matches || c->matches < matches) && (!deadline || now_seconds() < deadline)) {
        engine_initial(e, a);
        if (engine_terminal(e, a)) break;
        c->matches++;
        for (uint32_t ply = 0; ply < max_plies; ply++) {
            if (deadline && now_seconds() >= deadline) break;
            if (!engine_random_joint(e, a, rng, joint)) break;
            engine_next(e, a, joint, b);
            if (engine_terminal(e, b)) {
                uint32_t who = sole_mover_in(e, a, nr);
                if (who != UINT32_MAX && wins_in(e, b, who, nr)) cand_add(c, who, joint[who]);
                break;
            }
            eng_state_t *t = a;
            a = b;
            b = t;
        }
    }
    free(joint);
    engine_state_free(a);
    engine_state_free(b);
    return c;
}

void playout_cands_free(playout_cands_t *c) {
    if (!c) return;
    for (uint32_t r = 0; r < c->nr; r++)
        free(c->is[r]);
    free(c->is);
    free(c->cap);
    free(c);
}

uint32_t playout_cands_count(const playout_cands_t *c) {
    return c ? c->count : 0;
}
uint32_t playout_cands_matches(const playout_cands_t *c) {
    return c ? c->matches : 0;
}

void playout_set_until(playout_t *p, double until) {
    p->until = until;
}

/* Whether the checks stop before the k-th successor of a check: once past p->until, the
 * rest of the step's checks too. */
static bool past_until(playout_t *p, uint32_t k) {
    if (!p->cutting && p->until > 0 && k % p->every == 0 && now_seconds() > p->until)
        p->cutting = true;
    return p->cutting;
}

/* The index of the first of role who's n moves in s (every other role's move fixed in
 * joint) after which who has won, or -1; the successors go to p->kids. Only the
 * candidates' successors when the policy has candidates. All successors first, then the
 * tests: the engine keeps s loaded while it computes them. */
static int first_win(playout_t *p, const eng_state_t *s, uint32_t who, const term_t *moves,
                     uint32_t n, term_t *joint) {
    if (n > p->n_kids) {
        p->kids = xrealloc(p->kids, n * sizeof *p->kids);
        p->kid_move = xrealloc(p->kid_move, n * sizeof *p->kid_move);
        while (p->n_kids < n)
            p->kids[p->n_kids++] = engine_state_new(p->e);
    }
    uint32_t nk = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (past_until(p, k)) break;
        if (p->o.cands && !cand_is(p->o.cands, who, moves[k])) continue;
        joint[who] = moves[k];
        engine_next(p->e, s, joint, p->kids[nk]);
        p->kid_move[nk++] = k;
    }
    p->st.successors += nk;
    for (uint32_t i = 0; i < nk; i++)
        if (wins_in(p->e, p->kids[i], who, p->nr)) {
            if (i != 0) { /* the winner's successor first: the callers read p->kids[0] */
                eng_state_t *t = p->kids[0];
                p->kids[0] = p->kids[i];
                p->kids[i] = t;
            }
            return (int)p->kid_move[i];
        }
    return -1;
}

/* A winning move in s (not terminal) of a role with a choice other than `but` (UINT32_MAX:
 * any), TERM_NONE when none has one; *mover receives that role (UINT32_MAX: no role has a
 * choice). Where several roles choose at once (simultaneous moves) each is checked with
 * the others at their first legal moves: exact where the roles' moves do not interact
 * (connectFourSimultaneous's two boards), a guess elsewhere, as a rollout may take. */
static term_t decisive_in(playout_t *p, const eng_state_t *s, uint32_t but, uint32_t *mover) {
    uint32_t nr = p->nr, first = UINT32_MAX, *n = p->scratch_n;
    term_t *joint = p->scratch_joint;
    *mover = UINT32_MAX;
    for (uint32_t r = 0; r < nr; r++) {
        const term_t *m;
        n[r] = engine_legal(p->e, s, r, &m);
        if (n[r] == 0) return TERM_NONE;
        joint[r] = m[0];
        if (n[r] < 2) continue;
        *mover = r;
        if (first != UINT32_MAX || r == but) continue;
        first = r; /* its moves kept now: a turn-taking state asks the engine once a role */
        GROW(p->next_mv, p->cap_next_mv, n[r]);
        memcpy(p->next_mv, m, n[r] * sizeof *m);
    }
    for (uint32_t r = first; r < nr; r++) {
        if (n[r] < 2 || r == but) continue;
        if (r != first) {
            const term_t *m;
            engine_legal(p->e, s, r, &m);
            GROW(p->next_mv, p->cap_next_mv, n[r]);
            memcpy(p->next_mv, m, n[r] * sizeof *m);
        }
        p->n_next_mv = n[r];
        int k = first_win(p, s, r, p->next_mv, n[r], joint);
        joint[r] = p->next_mv[0];
        if (k >= 0) {
            *mover = r;
            return p->next_mv[k];
        }
    }
    return TERM_NONE;
}

/* Every role picks on its own (no checks): uniform or MAST. */
static void step_free(playout_t *p, const eng_state_t *s, splitmix_t *rng, term_t *joint,
                      eng_state_t *out) {
    for (uint32_t r = 0; r < p->nr; r++) {
        uint32_t k = p->seat[r].n_mv > 1 ? pick(p, r, NULL, p->seat[r].n_mv, rng) : 0;
        joint[r] = p->seat[r].mv[k];
        if (p->seat[r].n_mv > 1) playout_note(p, r, joint[r]);
    }
    engine_next(p->e, s, joint, out);
}

/* Role r's move in joint (the others' fixed) drawn again by the policy while another role
 * wins at once after it and another is left (step_sim's anti-decisive check). */
static void avoid_losing(playout_t *p, const eng_state_t *s, uint32_t r, splitmix_t *rng,
                         term_t *joint, eng_state_t *out) {
    uint32_t n = p->seat[r].n_mv;
    if (n < 2) return;
    GROW(p->dead, p->cap_dead, n);
    memset(p->dead, 0, n);
    uint32_t alive = n, k = 0;
    while (k < n && p->seat[r].mv[k] != joint[r])
        k++;
    for (;;) {
        engine_next(p->e, s, joint, out);
        if (engine_terminal(p->e, out)) return;
        uint32_t winner;
        if (decisive_in(p, out, r, &winner) == TERM_NONE || alive == 1 || p->cutting) return;
        p->dead[k < n ? k : 0] = 1;
        alive--;
        p->st.avoided++;
        k = pick(p, r, p->dead, alive, rng);
        joint[r] = p->seat[r].mv[k];
    }
}

/* Several roles choose at once: every role's move drawn by the policy; a role with a move
 * that wins at once against the others' drawn moves plays it; else (anti-decisive) a
 * role's drawn move after which another role wins at once (decisive_in) is drawn again
 * while another is left. */
static void step_sim(playout_t *p, const eng_state_t *s, splitmix_t *rng, term_t *joint,
                     eng_state_t *out) {
    uint32_t nr = p->nr;
    for (uint32_t r = 0; r < nr; r++)
        joint[r] = p->seat[r].mv[p->seat[r].n_mv > 1 ? pick(p, r, NULL, p->seat[r].n_mv, rng) : 0];
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t n = p->seat[r].n_mv;
        if (n < 2) continue;
        term_t drawn = joint[r];
        int k = first_win(p, s, r, p->seat[r].mv, n, joint);
        joint[r] = drawn;
        if (k < 0) continue;
        joint[r] = p->seat[r].mv[k];
        engine_state_copy(out, p->kids[0]);
        p->st.decisive++;
        for (uint32_t o = 0; o < nr; o++)
            if (p->seat[o].n_mv > 1) playout_note(p, o, joint[o]);
        return;
    }
    for (uint32_t r = 0; r < nr && p->o.antidecisive; r++)
        avoid_losing(p, s, r, rng, joint, out);
    engine_next(p->e, s, joint, out);
    for (uint32_t r = 0; r < nr; r++)
        if (p->seat[r].n_mv > 1) playout_note(p, r, joint[r]);
}

/* playout_step's move, the state's moves loaded (known, known_win: what the last step's
 * check found about s). */
static bool step(playout_t *p, const eng_state_t *s, splitmix_t *rng, term_t *joint,
                 eng_state_t *out, bool known, term_t known_win) {
    uint32_t mover = sole_mover(p);
    if (p->o.decisive && mover == UINT32_MAX && several_choose(p)) {
        step_sim(p, s, rng, joint, out);
        return true;
    }
    if (!p->o.decisive || mover == UINT32_MAX) {
        step_free(p, s, rng, joint, out);
        return true;
    }
    uint32_t n = p->seat[mover].n_mv;
    /* a win at once */
    if (!known) {
        joint_with(p, mover, 0, joint);
        int k = first_win(p, s, mover, p->seat[mover].mv, n, joint);
        if (k >= 0) {
            known_win = joint[mover] = p->seat[mover].mv[k];
            engine_state_copy(out, p->kids[0]);
            p->st.decisive++;
            playout_note(p, mover, known_win);
            return true;
        }
    } else if (known_win != TERM_NONE) {
        for (uint32_t k = 0; k < n; k++)
            if (p->seat[mover].mv[k] == known_win) {
                joint_with(p, mover, k, joint);
                engine_next(p->e, s, joint, out);
                p->st.decisive++;
                playout_note(p, mover, known_win);
                return true;
            }
    }
    /* none: a move by the policy, and (anti-decisive) not one the next mover wins after */
    GROW(p->dead, p->cap_dead, n);
    memset(p->dead, 0, n);
    uint32_t alive = n;
    for (;;) {
        uint32_t k = pick(p, mover, p->dead, alive, rng);
        joint_with(p, mover, k, joint);
        engine_next(p->e, s, joint, out);
        if (p->cutting || !p->o.antidecisive || engine_terminal(p->e, out)) break;
        uint32_t next_mover = 0;
        term_t reply = decisive_in(p, out, UINT32_MAX, &next_mover);
        if (p->cutting) break; /* unchecked: nothing known about out */
        if (reply == TERM_NONE || next_mover == mover || alive == 1) {
            engine_state_copy(p->known, out);
            p->known_valid = true;
            p->known_win = reply;
            break;
        }
        p->dead[k] = 1;
        alive--;
        p->st.avoided++;
    }
    playout_note(p, mover, joint[mover]);
    return true;
}

bool playout_step(playout_t *p, const eng_state_t *s, splitmix_t *rng, term_t *joint,
                  eng_state_t *out) {
    bool known = p->known_valid && engine_state_equal(s, p->known);
    term_t known_win = known ? p->known_win : TERM_NONE;
    p->known_valid = false;
    if (!load_moves(p, s)) return false;
    p->st.steps++;
    p->cutting = false;
    bool moved = step(p, s, rng, joint, out, known, known_win);
    p->st.cut += p->cutting;
    return moved;
}

void playout_stats(const playout_t *p, playout_stats_t *out) {
    *out = p->st;
}

/* ---- cost ---- */

#define COST_CHUNK 16   /* uniform steps between clock reads */
#define COST_SLICE 0.01 /* seconds of policy steps, then as long of uniform ones, per round */

/* A rollout under way from s, for the cost measurement: its state and what it has spent. */
typedef struct {
    eng_state_t *a, *b;
    uint64_t steps;
    double secs;
    bool stuck; /* no step from s: a defective game */
} cost_run_t;

/* Steps of policy p on r until `until` or r->steps reaches max (a rollout restarts at s). */
static void cost_policy(playout_t *p, const eng_state_t *s, splitmix_t *rng, term_t *joint,
                        cost_run_t *r, double until, uint64_t max) {
    uint64_t at_reset = UINT64_MAX;
    double t0 = cpu_seconds();
    while (r->steps < max && now_seconds() < until) {
        if (engine_terminal(p->e, r->a) || !playout_step(p, r->a, rng, joint, r->b)) {
            if (at_reset == r->steps) {
                r->stuck = true;
                break;
            }
            at_reset = r->steps;
            engine_state_copy(r->a, s);
            continue;
        }
        eng_state_t *t = r->a;
        r->a = r->b;
        r->b = t;
        r->steps++;
    }
    r->secs += cpu_seconds() - t0;
}

/* Uniform steps (the engine's own loop) on r until `until` or r->steps reaches max, at least one
 * chunk of `chunk` steps between clock reads (one on the interpreter: a step of a big game
 * there costs up to a second). */
static void cost_uniform(engine_t *e, const eng_state_t *s, splitmix_t *rng, int *goals,
                         cost_run_t *r, double until, uint64_t max, uint32_t chunk) {
    double t0 = cpu_seconds();
    /* at least one chunk: a round whose wall time the scheduler took whole still compares */
    do {
        uint32_t k = engine_playout(e, r->a, rng, chunk, goals);
        r->steps += k;
        if (k == 0 && engine_state_equal(r->a, s)) {
            r->stuck = true;
            break;
        }
        if (k < chunk) engine_state_copy(r->a, s); /* ended: the next rollout */
    } while (r->steps < max && now_seconds() < until);
    r->secs += cpu_seconds() - t0;
}

/* Anti-decisive rollouts are not worth more than this many uniform steps a step
 * (docs/league.md: anti won timed series on connect four, where a step of it costs 39-41
 * uniform ones, and lost at equal work and in timed series on breakthroughWalls, where it
 * cost 76; nineBoardTicTacToe 27-28) ... */
#define ANTI_MAX_COST 55
/* ... nor more than this many for each move their checks change. Connect four's checks act
 * at about 60% of the steps (a step costs 19-41 uniform ones: anti won its timed series);
 * dotsAndBoxes's never (a match ends with the last line, never a choice), where uniform
 * rollouts won 10-0 (docs/league.md, 2026-11-29). */
#define ANTI_ACT_WORTH 100

double playout_acts(const playout_stats_t *st) {
    return st->steps ? (double)(st->decisive + st->avoided) / (double)st->steps : 0;
}

bool playout_anti_pays(double cost, const playout_stats_t *st) {
    return cost <= ANTI_MAX_COST && cost <= ANTI_ACT_WORTH * playout_acts(st);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double playout_cost(engine_t *e, const playout_opts_t *o, const eng_state_t *s, splitmix_t *rng,
                    double deadline, uint64_t max_steps, playout_stats_t *st) {
    playout_t *p = playout_new(e, o);
    term_t *joint = xcalloc(p->nr, sizeof *joint);
    int *goals = xcalloc(p->nr + 1, sizeof *goals);
    cost_run_t run[2] = {{0}, {0}}; /* the policy's, the uniform loop's */
    for (int k = 0; k < 2; k++) {
        run[k].a = engine_state_new(e);
        run[k].b = engine_state_new(e);
        engine_state_copy(run[k].a, s);
    }
    /* each round's ratio of the thread's CPU seconds (not wall-clock: on a loaded machine the
     * thread is descheduled at random), and their median */
    double *ratio = NULL;
    size_t n_ratio = 0, cap_ratio = 0;
    /* short rounds of each in turn, so that a change of the machine's load falls on both; the
     * policy's steps bound the work (the uniform ones are not capped: a round where the policy
     * got no CPU must not let the uniform run use up its steps and leave no round to compare) */
    playout_set_until(p, deadline);
    uint32_t chunk = engine_kind(e) == ENGINE_INTERP ? 1 : COST_CHUNK;
    while (!run[0].stuck && !run[1].stuck && now_seconds() < deadline && run[0].steps < max_steps) {
        cost_run_t was[2] = {run[0], run[1]};
        double t0 = now_seconds(), left = (deadline - t0) / 2;
        cost_policy(p, s, rng, joint, &run[0], t0 + (left < COST_SLICE ? left : COST_SLICE),
                    max_steps);
        if (p->st.cut) break; /* a step longer than the time to measure it: too dear */
        double spent = now_seconds() - t0;
        cost_uniform(e, s, rng, goals, &run[1], now_seconds() + spent, UINT64_MAX, chunk);
        uint64_t pn = run[0].steps - was[0].steps, un = run[1].steps - was[1].steps;
        double ps = run[0].secs - was[0].secs, us = run[1].secs - was[1].secs;
        if (!pn || !un || us <= 0) continue;
        GROW(ratio, cap_ratio, n_ratio + 1);
        ratio[n_ratio++] = (ps / (double)pn) / (us / (double)un);
    }
    double cost = 0; /* a state no rollout leaves: nothing to measure, nor to play */
    if (p->st.cut || (!n_ratio && !run[0].stuck && !run[1].stuck)) {
        cost = HUGE_VAL;
    } else if (n_ratio && !run[0].stuck && !run[1].stuck) {
        qsort(ratio, n_ratio, sizeof *ratio, cmp_double);
        cost = ratio[n_ratio / 2];
    }
    free(ratio);
    if (st) playout_stats(p, st);
    for (int k = 0; k < 2; k++) {
        engine_state_free(run[k].a);
        engine_state_free(run[k].b);
    }
    free(joint);
    free(goals);
    playout_free(p);
    return cost;
}
