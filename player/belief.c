/* What one role knows about the state of a match: see belief.h. */
#include "player/belief.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "base/util.h"
#include "engine/joints.h"
#include "gdl/trace.h"

#define MAX_STATES 256  /* bound on the believed set */
#define ENUM_LIMIT 256  /* joint moves enumerated per state; beyond, sampled */
#define SAMPLES 64      /* joint moves sampled per state */
#define REGEN_STATES 32 /* states a replay of the history looks for */

/* ---- sets of states ---- */

/* A set of states under construction, deduplicated by hash then equality; once full it is
 * a reservoir sample of everything offered. */
typedef struct {
    state_t *s;
    uint64_t *hash;
    uint32_t n, max;
    size_t cap, hash_cap;
    uint64_t offered; /* distinct-looking states offered when full */
    splitmix_t *rng;
} stateset_t;

static int find_state(const stateset_t *set, const state_t *s, uint64_t h) {
    for (uint32_t i = 0; i < set->n; i++)
        if (set->hash[i] == h && state_equal(&set->s[i], s)) return (int)i;
    return -1;
}

/* Adds s; false when the set was full (s may then have replaced a member at random). */
static bool set_add(stateset_t *set, const state_t *s) {
    uint64_t h = state_hash(s);
    if (find_state(set, s, h) >= 0) return true;
    if (set->n >= set->max) {
        uint64_t j = splitmix_next(set->rng) % (++set->offered + set->max);
        if (j < set->max) {
            state_copy(&set->s[j], s);
            set->hash[j] = h;
        }
        return false;
    }
    GROW(set->s, set->cap, set->n + 1);
    GROW(set->hash, set->hash_cap, set->n + 1);
    state_init(&set->s[set->n]);
    state_copy(&set->s[set->n], s);
    set->hash[set->n++] = h;
    return true;
}

static void set_fini(stateset_t *set) {
    for (uint32_t i = 0; i < set->n; i++)
        state_fini(&set->s[i]);
    free(set->s);
    free(set->hash);
    memset(set, 0, sizeof *set);
}

/* Replaces the believed states by those of set (which is consumed). */
static void adopt(belief_t *b, stateset_t *set) {
    for (uint32_t i = 0; i < b->n; i++)
        state_fini(&b->states[i]);
    free(b->states);
    b->states = set->s;
    b->n = set->n;
    b->cap = (uint32_t)set->cap;
    free(set->hash);
    memset(set, 0, sizeof *set);
}

/* The engine's view of a believed state (terms) in b->cur. */
static void load_state(belief_t *b, const state_t *s) {
    engine_state_set(b->e, b->cur, s);
}

/* The successor of cur under joint, as terms, into out. */
static void next_terms(belief_t *b, const eng_state_t *cur, const term_t *joint, state_t *out) {
    engine_next(b->e, cur, joint, b->nxt);
    engine_state_terms(b->e, b->nxt, out);
}

void belief_init(belief_t *b, engine_t *e, uint32_t role, uint64_t seed) {
    memset(b, 0, sizeof *b);
    b->e = e;
    b->cur = engine_state_new(e);
    b->nxt = engine_state_new(e);
    b->role = role;
    b->max_states = MAX_STATES;
    b->complete = true;
    b->rng.s = seed;
    b->states = xcalloc(1, sizeof *b->states);
    b->cap = 1;
    b->n = 1;
    state_init(&b->states[0]);
    engine_initial(e, b->nxt);
    engine_state_terms(e, b->nxt, &b->states[0]);
}

void belief_set_engine(belief_t *b, engine_t *e) {
    engine_state_free(b->cur);
    engine_state_free(b->nxt);
    b->e = e;
    b->cur = engine_state_new(e);
    b->nxt = engine_state_new(e);
}

static void snap_fini(belief_snap_t *sn) {
    for (uint32_t i = 0; i < sn->n; i++)
        state_fini(&sn->states[i]);
    free(sn->states);
    memset(sn, 0, sizeof *sn);
}

/* Keeps a copy of the believed set, to replay from if the observation about to be applied
 * (history index first) or a later one is explained by no believed state. */
static void snapshot(belief_t *b, uint32_t first) {
    if (b->n_snaps == BELIEF_SNAPSHOTS) snap_fini(&b->snaps[--b->n_snaps]);
    memmove(&b->snaps[1], &b->snaps[0], b->n_snaps * sizeof b->snaps[0]);
    b->n_snaps++;
    belief_snap_t *sn = &b->snaps[0];
    sn->states = xcalloc(b->n + 1, sizeof *sn->states);
    sn->n = b->n;
    sn->first = first;
    for (uint32_t i = 0; i < b->n; i++) {
        state_init(&sn->states[i]);
        state_copy(&sn->states[i], &b->states[i]);
    }
}

void belief_fini(belief_t *b) {
    for (uint32_t i = 0; i < b->n; i++)
        state_fini(&b->states[i]);
    free(b->states);
    for (uint32_t i = 0; i < b->n_snaps; i++)
        snap_fini(&b->snaps[i]);
    for (uint32_t i = 0; i < b->n_hist; i++)
        free(b->hist[i].percepts);
    free(b->hist);
    engine_state_free(b->cur);
    engine_state_free(b->nxt);
    memset(b, 0, sizeof *b);
}

void belief_advance(belief_t *b, const term_t *joint) {
    stateset_t set = {.max = b->max_states, .rng = &b->rng};
    state_t next;
    state_init(&next);
    for (uint32_t i = 0; i < b->n; i++) {
        load_state(b, &b->states[i]);
        next_terms(b, b->cur, joint, &next);
        set_add(&set, &next);
    }
    state_fini(&next);
    adopt(b, &set);
}

/* Sorts terms by id and removes duplicates; returns the count. */
static uint32_t sort_ids(term_t *t, uint32_t n) {
    if (n) qsort(t, n, sizeof *t, cmp_u32);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!m || t[m - 1] != t[i]) t[m++] = t[i];
    return m;
}

/* ---- successors consistent with one observation ---- */

/* A state's successors: every role's legal moves (copied out of the engine, which reuses
 * its arrays, and sorted in the canonical order so that every engine enumerates and
 * samples the same joint moves), the joint move being tried, the successor. */
typedef struct {
    belief_t *b;
    const belief_obs_t *obs;
    joints_t j;
    term_t *joint;
    term_t *seen;
    size_t seen_cap;
    eng_state_t *cur; /* the state whose successors these are (replays nest) */
    state_t next;
} succ_t;

static void succ_init(succ_t *x, belief_t *b, const belief_obs_t *obs) {
    memset(x, 0, sizeof *x);
    x->b = b;
    x->obs = obs;
    uint32_t n_roles = engine_game(b->e)->n_roles;
    joints_init(&x->j, n_roles);
    x->joint = xcalloc(n_roles + 1, sizeof *x->joint);
    x->cur = engine_state_new(b->e);
    state_init(&x->next);
}

static void succ_fini(succ_t *x) {
    joints_fini(&x->j);
    free(x->joint);
    free(x->seen);
    engine_state_free(x->cur);
    state_fini(&x->next);
}

/* Loads s into the engine (x->cur) and every role's legal moves in it; false when s
 * cannot have produced the observation (terminal, a role without moves, or our move not
 * legal there). */
static bool succ_load(succ_t *x, const state_t *s) {
    belief_t *b = x->b;
    engine_state_set(b->e, x->cur, s);
    if (engine_terminal(b->e, x->cur)) return false;
    term_t move = x->obs->move;
    uint32_t fixed = move == TERM_NONE ? JOINTS_NONE : b->role;
    if (!joints_load(&x->j, b->e, x->cur, JOINTS_CANONICAL, fixed, move)) return false;
    return move == TERM_NONE || engine_is_legal(b->e, x->cur, b->role, move);
}

/* Sets the joint move number k (mixed radix), or a random one when sample. */
static void succ_joint(succ_t *x, uint64_t k, bool sample) {
    if (sample)
        joints_random(&x->j, &x->b->rng, x->joint);
    else
        joints_get(&x->j, k, x->joint);
}

/* Whether the joint move in x->cur gives our percepts. */
static bool succ_sees_match(succ_t *x) {
    const term_t *p;
    uint32_t n = engine_sees(x->b->e, x->cur, x->joint, x->b->role, &p);
    GROW(x->seen, x->seen_cap, n + 1);
    if (n) memcpy(x->seen, p, n * sizeof *p);
    n = sort_ids(x->seen, n);
    return n == x->obs->n_percepts && (!n || !memcmp(x->seen, x->obs->percepts, n * sizeof *p));
}

/* Calls visit for each successor of s consistent with the observation, in a random order
 * (all of them when few joint moves, else a sample); stops when visit returns false or at
 * the deadline. Returns false when it stopped early; *sampled tells if it sampled. */
typedef bool (*visit_fn)(void *ctx, const state_t *next);

static bool successors(belief_t *b, const belief_obs_t *obs, const state_t *s, double deadline,
                       visit_fn visit, void *ctx, bool *sampled) {
    succ_t x;
    succ_init(&x, b, obs);
    bool go_on = true;
    if (succ_load(&x, s)) {
        uint64_t count = x.j.count, offset = splitmix_next(&b->rng);
        bool sample = count > ENUM_LIMIT;
        *sampled |= sample;
        for (uint64_t k = 0; go_on && k < (sample ? SAMPLES : count); k++) {
            if (now_seconds() > deadline)
                go_on = false;
            else {
                succ_joint(&x, (k + offset) % count, sample);
                if (!succ_sees_match(&x)) continue;
                next_terms(b, x.cur, x.joint, &x.next);
                go_on = visit(ctx, &x.next);
            }
        }
    }
    succ_fini(&x);
    return go_on;
}

/* ---- one observation ---- */

static bool visit_add(void *ctx, const state_t *next) {
    set_add(ctx, next);
    return true; /* a full set keeps sampling */
}

/* Replays the history from s (at history depth d), adding the states reached at its end. */
typedef struct {
    belief_t *b;
    stateset_t *set;
    double deadline;
    uint32_t depth;
} replay_t;

static bool replay_from(replay_t *rp, const state_t *s);

static bool visit_replay(void *ctx, const state_t *next) {
    replay_t *rp = ctx, deeper = *rp;
    deeper.depth++;
    return replay_from(&deeper, next);
}

static bool replay_from(replay_t *rp, const state_t *s) {
    if (rp->depth == rp->b->n_hist) return set_add(rp->set, s) && rp->set->n < rp->set->max;
    bool sampled = false;
    return successors(rp->b, &rp->b->hist[rp->depth], s, rp->deadline, visit_replay, rp, &sampled);
}

/* Replays the history from each state of a snapshot (in a random order) into found. */
static void replay_snap(belief_t *b, const belief_snap_t *sn, stateset_t *found, double deadline) {
    replay_t rp = {.b = b, .set = found, .deadline = deadline, .depth = sn->first};
    uint32_t start = (uint32_t)(splitmix_next(&b->rng) % sn->n);
    for (uint32_t k = 0; k < sn->n && found->n < found->max && now_seconds() < deadline; k++)
        replay_from(&rp, &sn->states[(start + k) % sn->n]);
}

/* No believed state explains the last observation: replay the history from the sets
 * believed a few turns back, then from the initial state. snaps[0] is the set that failed. */
static void regenerate(belief_t *b, stateset_t *set, double deadline) {
    stateset_t found = {.max = REGEN_STATES, .rng = &b->rng};
    for (uint32_t k = 1; k < b->n_snaps && !found.n && now_seconds() < deadline; k++)
        replay_snap(b, &b->snaps[k], &found, deadline);
    if (!found.n && now_seconds() < deadline) {
        state_t s0;
        state_init(&s0);
        engine_initial(b->e, b->nxt);
        engine_state_terms(b->e, b->nxt, &s0);
        belief_snap_t initial = {.states = &s0, .n = 1, .first = 0};
        replay_snap(b, &initial, &found, deadline);
        state_fini(&s0);
    }
    for (uint32_t i = 0; i < found.n; i++)
        set_add(set, &found.s[i]);
    set_fini(&found);
    b->regenerated++;
}

/* Nothing explains the percepts at all: keep one successor of each state under our move. */
static void relax(belief_t *b, const belief_obs_t *obs, stateset_t *set) {
    belief_obs_t any = *obs;
    succ_t x;
    succ_init(&x, b, &any);
    for (uint32_t i = 0; i < b->n; i++) {
        if (!succ_load(&x, &b->states[i])) continue;
        succ_joint(&x, 0, true);
        next_terms(b, x.cur, x.joint, &x.next);
        set_add(set, &x.next);
    }
    succ_fini(&x);
    b->relaxed++;
}

static const belief_obs_t *record(belief_t *b, term_t move, const term_t *percepts, uint32_t n) {
    GROW(b->hist, b->cap_hist, b->n_hist + 1);
    belief_obs_t *o = &b->hist[b->n_hist++];
    o->move = move;
    o->percepts = xmalloc((n + 1) * sizeof *percepts);
    if (n) memcpy(o->percepts, percepts, n * sizeof *percepts);
    o->n_percepts = sort_ids(o->percepts, n);
    return o;
}

void belief_observe(belief_t *b, term_t move, const term_t *percepts, uint32_t n_percepts,
                    double deadline) {
    if (b->history_only) {
        record(b, move, percepts, n_percepts);
        return;
    }
    snapshot(b, b->n_hist);
    const belief_obs_t *obs = record(b, move, percepts, n_percepts);
    stateset_t set = {.max = b->max_states, .rng = &b->rng};
    bool sampled = false, stopped = false;
    uint32_t start = (uint32_t)(splitmix_next(&b->rng) % b->n);
    for (uint32_t k = 0; k < b->n && !stopped; k++)
        stopped = !successors(b, obs, &b->states[(start + k) % b->n], deadline, visit_add, &set,
                              &sampled);
    b->complete = b->complete && !sampled && !stopped && !set.offered;
    if (!set.n) {
        b->complete = false;
        regenerate(b, &set, deadline);
    }
    if (!set.n) relax(b, obs, &set);
    if (set.n)
        adopt(b, &set);
    else
        set_fini(&set);
}

/* ---- legal moves ---- */

uint32_t belief_legal(belief_t *b, term_t **moves, double deadline, bool *exact) {
    const term_t *m = NULL;
    load_state(b, &b->states[0]);
    uint32_t n = engine_legal(b->e, b->cur, b->role, &m);
    term_t *all = xmalloc((n + 1) * sizeof *all), *common = xmalloc((n + 1) * sizeof *common);
    if (n) memcpy(all, m, n * sizeof *m);
    memcpy(common, all, (n + 1) * sizeof *all);
    uint32_t kept = n, k = 1;
    for (; k < b->n && kept && now_seconds() < deadline; k++) {
        load_state(b, &b->states[k]);
        uint32_t nk = engine_legal(b->e, b->cur, b->role, &m), w = 0;
        for (uint32_t i = 0; i < kept; i++)
            if (term_in(m, nk, common[i])) common[w++] = common[i];
        kept = w;
    }
    if (exact) *exact = b->complete && k >= b->n && kept;
    if (kept) {
        free(all);
        all = common;
        n = kept;
    } else {
        free(common);
    }
    strbuf_t sb;
    sb_init(&sb);
    n = trace_sort_terms(engine_game(b->e)->ts, all, n, &sb);
    sb_fini(&sb);
    *moves = all;
    return n;
}
