/* Checking the symbolic sequences against ground truth: see bddcheck.h. */
#include "regress/bddcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/htab.h"
#include "base/rng.h"
#include "base/util.h"
#include "engine/fluents.h"
#include "truth/bounded.h"
#include "truth/force.h"
#include "truth/solve.h"

#define MAX_PLIES 10000

struct bddcheck {
    engine_t *e;
    term_t noop[2];
    bool has_noop;
    uint32_t n, cap, n_words;
    uint64_t *words; /* n states of n_words each */
    uint8_t *term;   /* per state: terminal */
    int8_t *goal;    /* per state and role: the goal value (terminal states) */
    uint32_t *ply;   /* per state: steps from the initial state at most (a horizon's misses
                        are only the states within it) */
    uint32_t n_roles;
    eng_state_t **state; /* sample: the engine states */
    uint32_t matches;
    solve_t *solve; /* solver mode */
    uint8_t *force; /* solve_force of the last goal asked */
    force_goal_t force_goal;
    bool have_force;
    force_t *fs;   /* sample mode, BDDS_WITHIN */
    bounded_t *bd; /* sample mode, BDDS_EXACT */
    htab_t seen;   /* of state, while sampling */
};

/* A state: its words, whether it is terminal, its goals (the sets say nothing about
 * terminal states: there the goals decide). */
static void add_state(bddcheck_t *c, const eng_state_t *s, uint32_t ply) {
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->words = xrealloc(c->words, (size_t)c->cap * c->n_words * sizeof *c->words);
        c->state = xrealloc(c->state, c->cap * sizeof *c->state);
        c->term = xrealloc(c->term, c->cap);
        c->goal = xrealloc(c->goal, (size_t)c->cap * c->n_roles);
        c->ply = xrealloc(c->ply, c->cap * sizeof *c->ply);
    }
    c->ply[c->n] = ply;
    memcpy(c->words + (size_t)c->n * c->n_words, engine_state_words(s),
           c->n_words * sizeof(uint64_t));
    c->term[c->n] = engine_terminal(c->e, s);
    for (uint32_t r = 0; r < c->n_roles; r++)
        c->goal[(size_t)c->n * c->n_roles + r] =
            (int8_t)(c->term[c->n] ? engine_goal_value(c->e, s, r) : -1);
    c->state[c->n++] = NULL;
}

static bddcheck_t *check_new(engine_t *e, const term_t *noop) {
    bddcheck_t *c = xcalloc(1, sizeof *c);
    c->e = e;
    c->n_roles = engine_game(e)->n_roles;
    term_t *bits;
    c->n_words = (engine_fluent_bits(e, &bits) + 63) / 64;
    free(bits);
    if (noop) c->noop[0] = noop[0], c->noop[1] = noop[1], c->has_noop = true;
    return c;
}

/* Breadth-first distances from the root (id 0) over the solver's successors. */
static void solver_plies(bddcheck_t *c) {
    uint32_t *queue = xmalloc((c->n + 1) * sizeof *queue), head = 0, tail = 0;
    if (c->n) c->ply[0] = 0, queue[tail++] = 0;
    while (head < tail) {
        uint32_t id = queue[head++];
        const uint32_t *succ;
        uint32_t n = solve_successors(c->solve, id, &succ);
        for (uint32_t k = 0; k < n; k++)
            if (c->ply[succ[k]] == UINT32_MAX)
                c->ply[succ[k]] = c->ply[id] + 1, queue[tail++] = succ[k];
    }
    free(queue);
}

bddcheck_t *bddcheck_solve(engine_t *e, const term_t *noop, const eng_state_t *start,
                           uint32_t max_states, char *err, size_t errlen) {
    bddcheck_t *c = check_new(e, noop);
    if (start) {
        state_t root;
        state_init(&root);
        engine_state_terms(e, start, &root);
        c->solve = solve_new_from(e, &root, max_states, err, errlen);
        state_fini(&root);
    } else {
        c->solve = solve_new(e, max_states, err, errlen);
    }
    if (!c->solve || !c->n_words) {
        if (c->solve) snprintf(err, errlen, "the engine has no bitset states");
        bddcheck_free(c);
        return NULL;
    }
    solve_rounds(c->solve, noop);
    eng_state_t *s = engine_state_new(e);
    for (uint32_t id = 0; id < solve_count(c->solve); id++) {
        engine_state_set(e, s, solve_state(c->solve, id));
        add_state(c, s, UINT32_MAX);
    }
    engine_state_free(s);
    solver_plies(c);
    return c;
}

/* ---- random matches ---- */

typedef struct {
    const bddcheck_t *c;
    const eng_state_t *s;
} seen_probe_t;

static bool seen_same(const void *ctx, uint32_t id) {
    const seen_probe_t *p = ctx;
    return engine_state_equal(p->c->state[id], p->s);
}

static uint32_t seen_hash(const void *ctx, uint32_t id) {
    return (uint32_t)engine_state_hash(((const bddcheck_t *)ctx)->state[id]);
}

/* Adds s unless it is there (then its least ply). */
static void seen_add(bddcheck_t *c, const eng_state_t *s, uint32_t ply) {
    seen_probe_t p = {c, s};
    uint32_t h = (uint32_t)engine_state_hash(s), id = htab_find(&c->seen, h, seen_same, &p);
    if (id != HTAB_NONE) {
        if (ply < c->ply[id]) c->ply[id] = ply;
        return;
    }
    add_state(c, s, ply);
    c->state[c->n - 1] = engine_state_new(c->e);
    engine_state_copy(c->state[c->n - 1], s);
    htab_add(&c->seen, h, c->n - 1, seen_hash, c);
}

static engine_walk_next_t visit(void *ctx, engine_t *e, const eng_state_t *s, uint32_t ply) {
    (void)e;
    bddcheck_t *c = ctx;
    seen_add(c, s, ply);
    return ENGINE_WALK_ON;
}

/* Random matches from start (engine_random_joint's draws), each state with its ply from
 * there. */
static uint32_t walk_from(bddcheck_t *c, const eng_state_t *start, splitmix_t *rng,
                          uint32_t matches, double deadline) {
    engine_t *e = c->e;
    eng_state_t *s = engine_state_new(e), *t = engine_state_new(e);
    term_t *joint = xcalloc(c->n_roles + 1, sizeof *joint);
    uint32_t m = 0;
    for (; m < matches && !(deadline > 0 && now_seconds() > deadline); m++) {
        engine_state_copy(s, start);
        for (uint32_t ply = 0; ply < MAX_PLIES; ply++) {
            seen_add(c, s, ply);
            if (engine_terminal(e, s) || !engine_random_joint(e, s, rng, joint)) break;
            engine_next(e, s, joint, t);
            eng_state_t *x = s;
            s = t, t = x;
        }
    }
    free(joint);
    engine_state_free(s), engine_state_free(t);
    return m;
}

bddcheck_t *bddcheck_sample(engine_t *e, const term_t *noop, const eng_state_t *start,
                            uint32_t matches, uint64_t seed, double deadline) {
    bddcheck_t *c = check_new(e, noop);
    c->fs = force_new(e);
    if (noop) c->bd = bounded_new(e, noop);
    splitmix_t rng = {seed};
    if (start) {
        c->matches = walk_from(c, start, &rng, matches, deadline);
        htab_fini(&c->seen);
        return c;
    }
    engine_walk_t w = {.matches = matches,
                       .max_plies = MAX_PLIES,
                       .deadline = deadline,
                       .terminal = true,
                       .canonical = true};
    c->matches = engine_walk(e, &rng, &w, visit, c).matches;
    htab_fini(&c->seen);
    return c;
}

uint32_t bddcheck_matches(const bddcheck_t *c) {
    return c->matches;
}
uint32_t bddcheck_states(const bddcheck_t *c) {
    return c->n;
}

void bddcheck_free(bddcheck_t *c) {
    if (!c) return;
    for (uint32_t k = 0; k < c->n; k++)
        engine_state_free(c->state[k]);
    free(c->state), free(c->words), free(c->force), free(c->term), free(c->goal), free(c->ply);
    solve_free(c->solve);
    force_free(c->fs);
    bounded_free(c->bd);
    free(c);
}

/* ---- the checks ---- */

static force_goal_t goal_of(const bdds_seq_t *q) {
    return (force_goal_t){.coalition = q->coalition, .role = q->role, .v = q->v, .above = q->above};
}

static const uint8_t *solver_force(bddcheck_t *c, const bdds_seq_t *q) {
    force_goal_t g = goal_of(q);
    const force_goal_t *o = &c->force_goal;
    if (c->have_force && o->coalition == g.coalition && o->role == g.role && o->v == g.v &&
        o->above == g.above)
        return c->force;
    c->force = xrealloc(c->force, c->n + 1);
    solve_force(c->solve, g.coalition, g.role, g.v, g.above, c->force);
    c->force_goal = g, c->have_force = true;
    return c->force;
}

/* Is state k in the reference set of step i (the exact solver)? *late: a hit there would
 * be late (BDDS_EXACT). */
static bool solver_in(bddcheck_t *c, const bddsearch_t *bs, const bdds_seq_t *q, uint32_t k,
                      uint32_t i, bool *late) {
    if (bddsearch_mode(bs) == BDDS_EXACT) {
        *late = solve_win_in(c->solve, k, q->role) > i;
        return i < 64 && (solve_wmask(c->solve, k, q->role) >> i & 1);
    }
    uint8_t d = solver_force(c, q)[k];
    *late = d == SOLVE_NONE || d > i;
    return !*late;
}

/* The same by the bounded search: 1, 0 or unknown. */
static int bounded_in(bddcheck_t *c, const bddsearch_t *bs, const bdds_seq_t *q, uint32_t k,
                      uint32_t i, const bddcheck_opts_t *o) {
    if (bddsearch_mode(bs) == BDDS_EXACT) {
        if (!c->bd) return BOUNDED_UNKNOWN;
        state_t terms;
        state_init(&terms);
        engine_state_terms(c->e, c->state[k], &terms);
        int v = bounded_in_w(c->bd, &terms, q->role, i, o->max_nodes, o->deadline);
        state_fini(&terms);
        return v == BOUNDED_UNKNOWN ? FORCE_UNKNOWN : v;
    }
    force_goal_t g = goal_of(q);
    return force_within(c->fs, c->state[k], &g, i, o->max_nodes, o->deadline);
}

/* A terminal state is in every step of WITHIN when its goal meets the target, in W_0 only
 * when its goal is 100 (EXACT). */
static bool terminal_in(const bddcheck_t *c, const bddsearch_t *bs, const bdds_seq_t *q, uint32_t k,
                        uint32_t i) {
    int g = c->goal[(size_t)k * c->n_roles + q->role];
    bool met = g >= 0 && (q->above ? g >= q->v : g <= q->v);
    return bddsearch_mode(bs) == BDDS_EXACT ? i == 0 && met : met;
}

static bool holds(const bddcheck_t *c, const bddsearch_t *bs, const bdds_seq_t *q, uint32_t seq,
                  uint32_t k, uint32_t i) {
    return c->term[k] ? terminal_in(c, bs, q, k, i)
                      : bddsearch_holds(bs, seq, i, c->words + (size_t)k * c->n_words);
}

uint32_t bddcheck_hits(const bddcheck_t *c, const bddsearch_t *bs, uint32_t seq, uint32_t i) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->n; k++)
        n += holds(c, bs, bddsearch_seq(bs, seq), seq, k, i);
    return n;
}

void bddcheck_step(bddcheck_t *c, const bddsearch_t *bs, uint32_t seq, uint32_t i,
                   const bddcheck_opts_t *o, bddcheck_row_t *out) {
    double t0 = now_seconds();
    memset(out, 0, sizeof *out);
    const bdds_seq_t *q = bddsearch_seq(bs, seq);
    const bdds_step_t *st = bddsearch_step(bs, seq, i);
    for (uint32_t k = 0; k < c->n; k++) {
        if (o && o->deadline > 0 && now_seconds() > o->deadline) break;
        out->states++;
        bool hit = holds(c, bs, q, seq, k, i);
        /* a step says nothing of the states beyond its horizon but that they are sound */
        bool inside = st->within == UINT32_MAX || c->ply[k] <= st->within;
        bool complete = st->complete && inside;
        bool late = false;
        out->hits += hit;
        int in;
        if (c->solve)
            in = solver_in(c, bs, q, k, i, &late);
        else if (hit || (o && o->misses && complete))
            in = bounded_in(c, bs, q, k, i, o);
        else
            continue;
        if (in == FORCE_UNKNOWN) {
            out->undecided++;
            continue;
        }
        out->decided++;
        out->exact += in;
        if (hit && !in && !out->false_pos++) out->first_false = k;
        if (hit && late) out->late++;
        if (!hit && in && inside) out->misses++;
    }
    out->seconds = now_seconds() - t0;
}

/* The exact bound of each state from the sequences of one kind (lower: the greatest v
 * forced; upper: the least), starting from the trivial one in b. */
static void exact_bounds(bddcheck_t *c, const bddsearch_t *bs, bool lower, int *b) {
    uint64_t me = 1ull << bddsearch_seq(bs, 0)->role;
    for (uint32_t k = 0; k < bddsearch_seqs(bs); k++) {
        const bdds_seq_t *q = bddsearch_seq(bs, k);
        if (q->role != bddsearch_seq(bs, 0)->role || q->above != lower ||
            (lower ? q->coalition != me : (q->coalition & me)))
            continue;
        const uint8_t *d = solver_force(c, q);
        for (uint32_t s = 0; s < c->n; s++)
            if (d[s] != SOLVE_NONE && (lower ? q->v > b[s] : q->v < b[s])) b[s] = q->v;
    }
}

void bddcheck_bounds(bddcheck_t *c, const bddsearch_t *bs, bddcheck_bounds_t *out) {
    memset(out, 0, sizeof *out);
    if (!c->solve || !c->n || bddsearch_mode(bs) != BDDS_WITHIN) return;
    const int *vals;
    uint32_t nv = bddsearch_values(bs, &vals);
    if (!nv) return;
    int *lo = xmalloc(c->n * sizeof *lo), *hi = xmalloc(c->n * sizeof *hi);
    int min = vals[0], max = vals[nv - 1]; /* the trivial bounds, without a proof */
    for (uint32_t k = 0; k < c->n; k++)
        lo[k] = min, hi[k] = max;
    exact_bounds(c, bs, true, lo);
    exact_bounds(c, bs, false, hi);
    for (uint32_t k = 0; k < c->n; k++) {
        if (c->term[k]) continue;
        int l, h;
        bddsearch_bounds(bs, c->words + (size_t)k * c->n_words, c->ply[k], &l, &h);
        out->states++;
        out->proven += l == h;
        out->exact += l == lo[k] && h == hi[k];
        if ((l > lo[k] || h < hi[k]) && !out->wrong++) out->first_wrong = k;
    }
    free(lo), free(hi);
}
