/* UCT Monte-Carlo tree search: decoupled UCB1 per role, a node pool with compaction on
 * re-rooting, MCTS-Solver style proven values, random rollouts with an early-termination
 * hook. See uct.h and docs/mcts.md. */
#include "mcts/uct.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/htab.h"
#include "base/rng.h"
#include "base/util.h"
#include "engine/fluents.h"
#include "mcts/bestline.h"

#define NIL UINT32_MAX
#define INITIAL_NODES (1u << 16)
#define INITIAL_MOVES (1u << 18)
#define MIN_NODES 1024 /* the smallest pool a memory limit can ask for */
/* The most joint moves a node's separability is checked on (an engine step each). */
#define SEP_JOINTS 1024

/* A node is a state of the game: without transpositions one per path from the root (a
 * tree), with them one per state (a graph, nodes found by the state's hash). */
typedef struct {
    uint64_t hash;  /* the state's hash (engine_state_hash; 0 without transpositions) */
    uint32_t first; /* first edge to a child (NIL: none) */
    uint32_t visits;
    uint32_t moff;  /* offset of the move lists in mv/ms; NIL when not expanded */
    uint32_t stamp; /* the last iteration whose path went through it (a cycle: a repeat) */
    double vsum;    /* sum of the searching role's values, in [0,1] */
    /* implicit minimax (uct_set_implicit): the minimax value for role 0 of the evaluations
     * below it, in [0,1] (< 0: none yet) */
    float mm;
    uint8_t terminal, proven;
    uint8_t capped; /* some role has more legal moves than a count holds: see expand */
    uint8_t sep;    /* two roles choose and their moves do not interact (separable) */
} node_t;

/* The child a joint move leads to. */
typedef struct {
    uint64_t key; /* the joint move, mixed radix over the parent's move counts */
    uint32_t child, next;
} edge_t;

typedef struct {
    uint32_t visits;
    uint32_t pruned; /* its child cannot give the mover more than the node's lower bound */
    double sum;      /* in [0,1] */
    double sumsq;    /* of the squared values: their variance, for UCB1-Tuned */
    float mm;        /* implicit minimax: the move's value to its player (< 0: none) */
} mstat_t;

/* One pool: nodes with per-role arrays (move counts, bounds), the move arena, the edges,
 * and the transposition table (none without transpositions). */
typedef struct {
    node_t *nodes;
    uint16_t *cnt; /* cap_nodes * nr: legal move counts per role */
    uint8_t *lo;   /* cap_nodes * nr: proven lower bound of each role's value (0..100) */
    uint8_t *hi;   /* ... and upper bound; lo == hi for every role: proven */
    size_t n_nodes, cap_nodes;
    term_t *mv;
    mstat_t *ms;
    size_t n_mv, cap_mv;
    edge_t *edges;
    size_t n_edges, cap_edges;
    htab_t tt;   /* node ids by their state's hash */
    bool has_tt; /* with transpositions only */
} pool_t;

struct uct {
    game_t *g;
    engine_t *e;
    bool owns_engine;   /* a helper's clone */
    struct uct *helper; /* a second search on its own engine and thread */
    uct_parallel_t parallel;
    /* tree parallelism: the helper's `shared` is the main search, whose tree (pool, root,
     * memory limit) both threads use under its lock, with virtual loss; tree_active is set
     * on the main search while both threads run, tree_iters counts the iterations they
     * claimed */
    struct uct *shared;
    bool tree_active;
    pthread_mutex_t lock;
    uint32_t tree_iters;
    uint32_t role, nr;
    splitmix_t rng;
    double c;
    double simc; /* uct_set_sim_exploration: C where several roles choose (< 0: c) */
    bool tuned;  /* UCB1-Tuned: exploration scaled by each move's observed variance */
    uint32_t cap;
    size_t mem_limit; /* bytes for both pools; 0: none */
    double deadline;  /* of the current uct_choose (0: none); a rollout past it is dropped */
    bool dropped;     /* the current iteration's rollout ran past the deadline */
    bool transpose;   /* one node per state (uct_set_transpositions) */
    bool zero_sum;    /* two roles, and every outcome seen gave 100 in all */
    /* this thread saw an outcome that did not (a rollout notes it without the tree's
     * lock; iterate folds it into the tree's zero_sum under the lock) */
    bool not_zero_sum;
    uint32_t stamp; /* of the current iteration: unique in the tree (next_stamp) */
    /* the tree's last stamp handed out: one counter for every thread searching the tree,
     * so that no two iterations, whichever thread ran them, share a stamp */
    uint32_t next_stamp;
    uct_rollout_hook_t hook;
    uct_state_hook_t state_hook; /* instead of hook: called on engine states */
    void *hook_ctx;
    bool hook_threads;   /* the state hook may run on the search's threads (pondering) */
    void *helper_ctx;    /* with hook_threads: the helper's hook context (NULL: no helper) */
    uint32_t hook_reach; /* the state hook is asked up to this depth from the root only */
    bool hook_moves;     /* its wins choose the root move (uct_set_hook_moves) */
    uint32_t leaf_depth; /* of the rollout's first state, from the root (its tree path) */
    playout_t *pol;      /* the rollout policy; NULL: uniform (the engine's own playout loop) */
    /* knowledge learnt at start (uct_set_heuristic): rollouts cut after `cut` steps and
     * scored by its evaluation (cut < 0: never), moves given `prior` visits worth it */
    const heur_t *heur;
    int cut;
    uint32_t prior;
    double sharp;      /* prior values: the node's own evaluation + sharp x the change */
    double imm;        /* uct_set_implicit: the weight of the minimax value (0: off) */
    bool imm_nz;       /* uct_set_implicit_nonzero: on the goals' difference where not zero-sum */
    double *hval;      /* heur_eval's values */
    term_t *pjoint;    /* the joint move to a successor scored for a prior */
    eng_state_t *succ; /* ... and the successor */
    playout_opts_t pol_opts;
    /* the search must end now (set by uct_ponder_stop); a helper obeys its boss's flag */
    atomic_bool stop;
    struct uct *boss;
    pthread_t ponder_th;
    bool pondering;

    pool_t p, spare;  /* spare: the target of compaction, swapped in afterwards */
    uint32_t *old_of; /* compaction: old index of each new node */
    uint32_t *new_of; /* ... and new index of each old one (NIL: not copied) */
    size_t cap_old_of, cap_new_of;
    uint32_t *child_of; /* uct_choose: the root's child per move of a lone chooser */
    size_t cap_child_of;

    bool have_root;
    eng_state_t *root_state, *sa, *sb, *asked; /* asked: the state uct_choose was given */
    state_t hook_state;                        /* a rollout state as terms, for the hook */
    term_t *joint;
    int *val;
    int *bval;      /* backup: the values passed up, clamped to each node's bounds */
    int *blo, *bhi; /* update_bounds' scratch */
    int *smin;      /* ... and security's: per move of a role, the least bound over the others' */
    size_t cap_smin;
    uint32_t *path, *path_sel;
    size_t cap_path, cap_path_sel;

    /* uct_set_best_line (one role): the best line of the tree this search works on
     * (T(u)'s), and this thread's record of its current iteration's line */
    bool line_on;
    bestline_t line;
    bestline_rec_t rec;
    bool rec_terminal; /* the iteration ended at a terminal state: its line is a plan */
    bool mixed;        /* uct_set_mixed: simultaneous moves drawn by visits */
    bool no_bounds;    /* uct_set_bounds(off): proven values are not backed up */
    bool seq;          /* uct_set_sequential: separable nodes searched as if turn-taking */
    uint32_t n_words;  /* words of a bitset state (0: not known yet, or term states) */
    uint64_t *sepw;    /* separable's scratch: the base successor and each move's change */
    size_t cap_sepw;
    double *reply; /* select_reply's scratch: per move of the replying role, visits, values */
    size_t cap_reply;

    uct_stats_t st;
};

/* The search whose tree u works on: itself, or the main search for a tree-parallel
 * helper. */
static struct uct *T(struct uct *u) {
    return u->shared ? u->shared : u;
}
static const struct uct *CT(const struct uct *u) {
    return u->shared ? u->shared : u;
}

/* Has the search been told to end (uct_ponder_stop)? */
static bool stopped(const struct uct *u) {
    const struct uct *b = u->boss ? u->boss : u;
    return atomic_load_explicit(&b->stop, memory_order_relaxed);
}

/* While both threads share a tree, every access to it holds the main search's lock. */
static void tree_lock(struct uct *u) {
    if (T(u)->tree_active) pthread_mutex_lock(&T(u)->lock);
}
static void tree_unlock(struct uct *u) {
    if (T(u)->tree_active) pthread_mutex_unlock(&T(u)->lock);
}

/* ---- pool ---- */

typedef enum { NODES, MOVES, EDGES } part_t;

static void pool_reserve_nodes(pool_t *p, uint32_t nr, size_t need) {
    if (need <= p->cap_nodes) return;
    p->nodes = xrealloc(p->nodes, need * sizeof *p->nodes);
    p->cnt = xrealloc(p->cnt, need * nr * sizeof *p->cnt);
    p->lo = xrealloc(p->lo, need * nr * sizeof *p->lo);
    p->hi = xrealloc(p->hi, need * nr * sizeof *p->hi);
    p->cap_nodes = need;
}

static void pool_reserve_moves(pool_t *p, size_t need) {
    if (need <= p->cap_mv) return;
    p->mv = xrealloc(p->mv, need * sizeof *p->mv);
    p->ms = xrealloc(p->ms, need * sizeof *p->ms);
    p->cap_mv = need;
}

static void pool_reserve_edges(pool_t *p, size_t need) {
    if (need <= p->cap_edges) return;
    p->edges = xrealloc(p->edges, need * sizeof *p->edges);
    p->cap_edges = need;
}

/* Bytes of the search tree with these capacities: the pool, the spare pool compaction
 * copies into (as large), compaction's two indexes and the transposition tables (at most
 * four slots a node). */
static size_t tree_bytes(uint32_t nr, size_t nodes, size_t moves, size_t edges) {
    size_t per_node =
        sizeof(node_t) + nr * (sizeof(uint16_t) + 2 * sizeof(uint8_t)) + 4 * sizeof(uint32_t);
    size_t per_move = sizeof(term_t) + sizeof(mstat_t);
    return 2 * (nodes * per_node + moves * per_move + edges * sizeof(edge_t)) +
           2 * nodes * sizeof(uint32_t);
}

static size_t part_cap(const pool_t *p, part_t what) {
    return what == NODES ? p->cap_nodes : what == MOVES ? p->cap_mv : p->cap_edges;
}

/* The capacity to grow a part of the pool to so that it holds `need`: doubling, but no
 * further than the memory limit allows; 0 when `need` does not fit. */
static size_t capacity_for(const uct_t *u, part_t what, size_t need) {
    const pool_t *p = &CT(u)->p;
    size_t cap = part_cap(p, what);
    while (cap < need)
        cap *= 2;
    if (!CT(u)->mem_limit) return cap;
    size_t n = p->cap_nodes, m = p->cap_mv, e = p->cap_edges;
    size_t fixed =
        tree_bytes(u->nr, what == NODES ? 0 : n, what == MOVES ? 0 : m, what == EDGES ? 0 : e);
    size_t each = tree_bytes(u->nr, what == NODES, what == MOVES, what == EDGES);
    if (fixed >= CT(u)->mem_limit) return 0;
    size_t fit = (CT(u)->mem_limit - fixed) / each;
    if (cap > fit) cap = fit;
    return cap >= need ? cap : 0;
}

/* Makes room for `need` of a part of the pool; false when the limit forbids it. */
static bool room_for(uct_t *u, part_t what, size_t need) {
    pool_t *p = &T(u)->p;
    if (need <= part_cap(p, what)) return true;
    size_t cap = capacity_for(u, what, need);
    if (!cap) return false;
    if (what == NODES) {
        pool_reserve_nodes(p, u->nr, cap);
    } else if (what == MOVES) {
        pool_reserve_moves(p, cap);
    } else {
        pool_reserve_edges(p, cap);
    }
    return true;
}

/* Sets the capacities to exactly these (the pool must hold no more than they allow). */
static void pool_resize(pool_t *p, uint32_t nr, size_t nodes, size_t moves, size_t edges) {
    p->nodes = xrealloc(p->nodes, nodes * sizeof *p->nodes);
    p->cnt = xrealloc(p->cnt, nodes * nr * sizeof *p->cnt);
    p->lo = xrealloc(p->lo, nodes * nr * sizeof *p->lo);
    p->hi = xrealloc(p->hi, nodes * nr * sizeof *p->hi);
    p->mv = xrealloc(p->mv, moves * sizeof *p->mv);
    p->ms = xrealloc(p->ms, moves * sizeof *p->ms);
    p->edges = xrealloc(p->edges, edges * sizeof *p->edges);
    p->cap_nodes = nodes;
    p->cap_mv = moves;
    p->cap_edges = edges;
}

static void pool_free(pool_t *p) {
    free(p->nodes);
    free(p->cnt);
    free(p->lo);
    free(p->hi);
    free(p->mv);
    free(p->ms);
    free(p->edges);
    htab_fini(&p->tt);
}

/* ---- transpositions ---- */

static uint32_t tt_hash(uint64_t h) {
    return (uint32_t)(h ^ (h >> 29));
}

static uint32_t tt_hash_of(const void *ctx, uint32_t id) {
    return tt_hash(((const pool_t *)ctx)->nodes[id].hash);
}

typedef struct {
    const pool_t *p;
    uint64_t h;
} tt_key_t;

static bool tt_same(const void *ctx, uint32_t id) {
    const tt_key_t *k = ctx;
    return k->p->nodes[id].hash == k->h;
}

static void tt_put(pool_t *p, uint32_t id) {
    htab_add(&p->tt, tt_hash(p->nodes[id].hash), id, tt_hash_of, p);
}

/* A table holding the pool's nodes. */
static void tt_rebuild(pool_t *p) {
    htab_clear(&p->tt);
    p->has_tt = true;
    for (size_t i = 0; i < p->n_nodes; i++)
        tt_put(p, (uint32_t)i);
}

/* The node of the state with hash h (NIL: none); a state's hash is in the table once. */
static uint32_t tt_find(const pool_t *p, uint64_t h) {
    tt_key_t k = {p, h};
    uint32_t id = htab_find(&p->tt, tt_hash(h), tt_same, &k);
    return id == HTAB_NONE ? NIL : id;
}

/* ---- nodes ---- */

/* A new node for a state of hash h (NIL when the memory limit leaves no room for it). */
static uint32_t new_node(uct_t *u, uint64_t h) {
    pool_t *p = &T(u)->p;
    if (!room_for(u, NODES, p->n_nodes + 1)) return NIL;
    uint32_t i = (uint32_t)p->n_nodes++;
    node_t *n = &p->nodes[i];
    memset(n, 0, sizeof *n);
    n->hash = h;
    n->first = NIL;
    n->moff = NIL;
    n->mm = -1;
    memset(&p->cnt[(size_t)i * u->nr], 0, u->nr * sizeof *p->cnt);
    memset(&p->lo[(size_t)i * u->nr], 0, u->nr);
    memset(&p->hi[(size_t)i * u->nr], 100, u->nr);
    if (p->has_tt) tt_put(p, i);
    return i;
}

/* An edge from i to c for the joint move key; false when there is no room for it. */
static bool new_edge(uct_t *u, uint32_t i, uint64_t key, uint32_t c) {
    pool_t *p = &T(u)->p;
    if (!room_for(u, EDGES, p->n_edges + 1)) return false;
    uint32_t e = (uint32_t)p->n_edges++;
    p->edges[e] = (edge_t){key, c, p->nodes[i].first};
    p->nodes[i].first = e;
    return true;
}

static void set_exact(uct_t *u, uint32_t i, const int *val) {
    pool_t *p = &T(u)->p;
    p->nodes[i].proven = 1;
    for (uint32_t r = 0; r < u->nr; r++)
        p->lo[(size_t)i * u->nr + r] = p->hi[(size_t)i * u->nr + r] = (uint8_t)val[r];
}

/* Offset of role r's moves of node i. */
static uint32_t role_off(const uct_t *u, uint32_t i, uint32_t r) {
    uint32_t off = CT(u)->p.nodes[i].moff;
    const uint16_t *cnt = &CT(u)->p.cnt[(size_t)i * u->nr];
    for (uint32_t j = 0; j < r; j++)
        off += cnt[j];
    return off;
}

/* An outcome of the game: two roles whose values do not add up to 100 are no zero-sum
 * game (then bounds of one role say nothing about the other's). */
static void note_outcome(uct_t *u, const int *val) {
    if (u->nr == 2 && val[0] + val[1] != 100) u->not_zero_sum = true;
}

static void goals(uct_t *u, const eng_state_t *s, int *val) {
    for (uint32_t r = 0; r < u->nr; r++) {
        int v = engine_goal_value(u->e, s, r);
        val[r] = v < 0 ? 0 : v;
    }
}

static void hook_values(uct_t *u, int v, int *val) {
    for (uint32_t r = 0; r < u->nr; r++)
        val[r] = r == u->role ? v : 100 - v;
}

/* The value of state s (not the root) for role r, 0..100: its goal when terminal, else
 * the evaluation's (*term: which). */
static double state_value(uct_t *u, const eng_state_t *s, uint32_t r, bool *term) {
    *term = engine_terminal(u->e, s);
    if (*term) {
        int v = engine_goal_value(u->e, s, r);
        return v < 0 ? 0 : v;
    }
    heur_eval(u->heur, u->e, s, u->hval);
    return u->hval[r];
}

/* The value to role r (of two) of state s, whose value to r is v (state_value; term: s is
 * terminal and v its goal), on the scale of the goals' difference: (v_r + 100 - v_other)
 * / 2. Where the two values add up to 100 (a zero-sum game's goals, the material's
 * balance) that is v itself; where they do not (each role scores its own captures:
 * skirmishNew), implicit minimax keeps one value per node only if it takes both roles'
 * into account (uct_set_implicit_nonzero). */
static double pair_value(uct_t *u, const eng_state_t *s, double v, uint32_t r, bool term) {
    double o;
    if (term) {
        int g = engine_goal_value(u->e, s, 1 - r);
        o = g < 0 ? 0 : g;
    } else {
        o = u->hval[1 - r]; /* state_value evaluated s just now */
    }
    return (v + 100 - o) / 2;
}

/* Priors at node i (state s, just expanded) where one role chooses: each of its moves
 * starts with u->prior visits worth the value of its successor for it (progressive bias
 * that fades as real visits come). Where several roles choose, no prior (a successor
 * per joint move would be needed). */
static void add_priors(uct_t *u, uint32_t i, const eng_state_t *s) {
    pool_t *p = &T(u)->p;
    const uint16_t *cnt = &p->cnt[(size_t)i * u->nr];
    uint32_t mover = UINT32_MAX;
    for (uint32_t r = 0; r < u->nr; r++) {
        if (cnt[r] > 1 && mover != UINT32_MAX) return;
        if (cnt[r] > 1) mover = r;
        if (cnt[r]) u->pjoint[r] = p->mv[role_off(u, i, r)];
    }
    if (mover == UINT32_MAX) return;
    uint32_t off = role_off(u, i, mover);
    double base = 0;
    if (u->sharp != 1) {
        heur_eval(u->heur, u->e, s, u->hval);
        base = u->hval[mover];
    }
    float best = -1;
    for (uint32_t k = 0; k < cnt[mover]; k++) {
        u->pjoint[mover] = p->mv[off + k];
        engine_next(u->e, s, u->pjoint, u->succ);
        bool term;
        double v = state_value(u, u->succ, mover, &term);
        if (u->imm > 0) {
            double w = u->imm_nz && u->nr == 2 ? pair_value(u, u->succ, v, mover, term) : v;
            p->ms[off + k].mm = (float)(w / 100.0);
            if (p->ms[off + k].mm > best) best = p->ms[off + k].mm;
        }
        if (!u->prior) continue;
        if (u->sharp != 1 && !term) {
            v = base + u->sharp * (v - base);
            v = v < 0 ? 0 : v > 100 ? 100 : v;
        }
        v /= 100.0;
        p->ms[off + k].visits = u->prior;
        p->ms[off + k].sum = u->prior * v;
        p->ms[off + k].sumsq = u->prior * v * v;
    }
    if (best >= 0) p->nodes[i].mm = mover == 0 ? best : 1 - best;
}

/* The successor of s by the two roles' moves a and b, as words (n_words of them). */
static const uint64_t *succ_words(uct_t *u, const eng_state_t *s, term_t a, term_t b) {
    term_t joint[2] = {a, b};
    engine_next(u->e, s, joint, u->succ);
    return engine_state_words(u->succ);
}

/* Whether node i (state s, expanded, two roles with a choice each) is separable: every
 * joint move's successor is the successor of both roles' first moves with each role's own
 * change from it applied (bitwise: what a role's move changes does not depend on the
 * other's), as where the roles drop on two boards at once. Checked on every joint move (at
 * most SEP_JOINTS), so exact; a term state (the interpreter) is never separable. */
static bool separable(uct_t *u, uint32_t i, const eng_state_t *s) {
    pool_t *p = &T(u)->p;
    const uint16_t *cnt = &p->cnt[(size_t)i * 2];
    uint32_t n0 = cnt[0], n1 = cnt[1];
    if ((uint64_t)n0 * n1 > SEP_JOINTS || !engine_state_words(s)) return false;
    if (!u->n_words) {
        term_t *bits = NULL;
        u->n_words = (engine_fluent_bits(u->e, &bits) + 63) / 64;
        free(bits);
        if (!u->n_words) return false;
    }
    uint32_t nw = u->n_words;
    const term_t *m0 = &p->mv[role_off(u, i, 0)], *m1 = &p->mv[role_off(u, i, 1)];
    GROW(u->sepw, u->cap_sepw, (size_t)(1 + n0 + n1) * nw);
    uint64_t *base = u->sepw, *d0 = base + nw, *d1 = d0 + (size_t)n0 * nw;
    memcpy(base, succ_words(u, s, m0[0], m1[0]), nw * sizeof *base);
    for (uint32_t k = 1; k < n0; k++) {
        const uint64_t *w = succ_words(u, s, m0[k], m1[0]);
        for (uint32_t x = 0; x < nw; x++)
            d0[(size_t)k * nw + x] = w[x] ^ base[x];
    }
    for (uint32_t j = 1; j < n1; j++) {
        const uint64_t *w = succ_words(u, s, m0[0], m1[j]);
        for (uint32_t x = 0; x < nw; x++)
            d1[(size_t)j * nw + x] = w[x] ^ base[x];
    }
    for (uint32_t k = 1; k < n0; k++)
        for (uint32_t j = 1; j < n1; j++) {
            const uint64_t *w = succ_words(u, s, m0[k], m1[j]);
            for (uint32_t x = 0; x < nw; x++)
                if (w[x] != (base[x] ^ d0[(size_t)k * nw + x] ^ d1[(size_t)j * nw + x]))
                    return false;
        }
    return true;
}

/* Computes the legal moves of node i in state s. A role without legal moves makes the
 * node terminal (a malformed game: scored by its goals). False when the memory limit
 * leaves no room for the moves (the node stays a leaf). A role with more moves than a
 * count holds (UINT16_MAX: a "choose a number" game) keeps the first UINT16_MAX: the
 * search then plays among those, a legal move still, and the node is never proven
 * (update_bounds), since a move left out might change its value. */
static bool expand(uct_t *u, uint32_t i, const eng_state_t *s) {
    pool_t *p = &T(u)->p;
    uint32_t moff = (uint32_t)p->n_mv;
    for (uint32_t r = 0; r < u->nr; r++) {
        const term_t *m;
        uint32_t n = engine_legal(u->e, s, r, &m);
        if (n > UINT16_MAX) {
            n = UINT16_MAX;
            p->nodes[i].capped = 1;
        }
        if (!room_for(u, MOVES, p->n_mv + n)) {
            p->n_mv = moff;
            return false;
        }
        memcpy(&p->mv[p->n_mv], m, n * sizeof *m);
        memset(&p->ms[p->n_mv], 0, n * sizeof *p->ms);
        for (uint32_t k = 0; k < n; k++)
            p->ms[p->n_mv + k].mm = -1;
        p->n_mv += n;
        p->cnt[(size_t)i * u->nr + r] = (uint16_t)n;
        if (n == 0) {
            p->nodes[i].terminal = 1;
            int *val = u->val;
            goals(u, s, val);
            set_exact(u, i, val);
        }
    }
    p->nodes[i].moff = moff;
    if (u->heur && (u->prior || u->imm > 0) && !p->nodes[i].terminal) add_priors(u, i, s);
    const uint16_t *cnt = &p->cnt[(size_t)i * u->nr];
    if (u->seq && u->nr == 2 && cnt[0] > 1 && cnt[1] > 1 && !p->nodes[i].terminal)
        u->st.sep_nodes += p->nodes[i].sep = separable(u, i, s);
    return true;
}

static uint32_t find_child(const uct_t *u, uint32_t i, uint64_t key) {
    const pool_t *p = &CT(u)->p;
    for (uint32_t e = p->nodes[i].first; e != NIL; e = p->edges[e].next)
        if (p->edges[e].key == key) return p->edges[e].child;
    return NIL;
}

/* The exploration term of a move visited n times (n > 0) at a node visited with log N =
 * logn: UCB1's c sqrt(log N / n), or UCB1-Tuned's (Auer et al. 2002), where log N / n is
 * weighed by the move's variance bound min(1/4, var + sqrt(2 log N / n)) instead of 1: a
 * move whose values barely vary is explored less. */
static double explore(const uct_t *u, double c, const mstat_t *m, double logn) {
    double l = logn / m->visits;
    if (!u->tuned) return c * sqrt(l);
    double mean = m->sum / m->visits, var = m->sumsq / m->visits - mean * mean;
    double bound = (var > 0 ? var : 0) + sqrt(2 * l);
    return c * sqrt(l * (bound < 0.25 ? bound : 0.25));
}

/* The exploration constant at node i: uct_set_sim_exploration's where several roles
 * choose (when set), else C. */
static double node_c(const uct_t *u, uint32_t i) {
    if (u->simc < 0) return u->c;
    const uint16_t *cnt = &CT(u)->p.cnt[(size_t)i * u->nr];
    uint32_t choosers = 0;
    for (uint32_t r = 0; r < u->nr; r++)
        choosers += cnt[r] > 1;
    return choosers > 1 ? u->simc : u->c;
}

/* A move's value to its player: its mean, or with implicit minimax that weighed with the
 * minimax value of the evaluations below it ((1 - a) mean + a minimax, Lanctot et al.
 * 2014). */
static double exploit(const uct_t *u, const mstat_t *m) {
    double mean = m->sum / m->visits;
    return u->imm > 0 && m->mm >= 0 ? (1 - u->imm) * mean + u->imm * m->mm : mean;
}

/* With implicit minimax: the unvisited move (not pruned) of the best minimax value, ties
 * broken at random (a capture or a win is tried first). */
static uint32_t best_unvisited(uct_t *u, const mstat_t *ms, uint32_t n, uint32_t unvisited) {
    uint32_t pick = (uint32_t)(splitmix_next(&u->rng) % unvisited), best = UINT32_MAX;
    float best_v = -2;
    for (uint32_t j = 0, seen = 0; j < n; j++) { /* from the pick-th unvisited one on */
        if (ms[j].visits || ms[j].pruned) continue;
        if (seen++ < pick) continue;
        if (ms[j].mm > best_v) best_v = ms[j].mm, best = j;
    }
    for (uint32_t j = 0, seen = 0; j < n && seen < pick; j++) {
        if (ms[j].visits || ms[j].pruned) continue;
        seen++;
        if (ms[j].mm > best_v) best_v = ms[j].mm, best = j;
    }
    return best;
}

/* UCB1 choice of role r's move at node i, among the moves not pruned (while one is left). */
static uint32_t select_move(uct_t *u, uint32_t i, uint32_t r) {
    pool_t *p = &T(u)->p;
    uint32_t n = p->cnt[(size_t)i * u->nr + r];
    if (n <= 1) return 0;
    uint32_t off = role_off(u, i, r);
    const mstat_t *ms = &p->ms[off];
    uint32_t unvisited = 0, pruned = 0;
    for (uint32_t k = 0; k < n; k++) {
        unvisited += ms[k].visits == 0 && !ms[k].pruned;
        pruned += ms[k].pruned != 0;
    }
    bool skip = pruned < n;
    if (unvisited && u->imm > 0) return best_unvisited(u, ms, n, unvisited);
    if (unvisited) {
        uint32_t pick = (uint32_t)(splitmix_next(&u->rng) % unvisited);
        for (uint32_t k = 0; k < n; k++)
            if (ms[k].visits == 0 && !ms[k].pruned && pick-- == 0) return k;
    }
    /* no visit yet: only where every move has prior visits (else an unvisited one is
     * taken above) */
    double logn = p->nodes[i].visits ? log((double)p->nodes[i].visits) : 0, c = node_c(u, i);
    uint32_t best = 0;
    double best_v = -1.0;
    for (uint32_t k = 0; k < n; k++) {
        if (skip && ms[k].pruned) continue;
        double v = ms[k].visits ? exploit(u, &ms[k]) + explore(u, c, &ms[k], logn) : 2.0;
        if (v > best_v) {
            best_v = v;
            best = k;
        }
    }
    return best;
}

/* Once the mover's value at node i is settled (`best`: no child can give it more than a
 * child already guarantees), it plays one of the children that guarantee `best`, so every
 * other role's bounds span those children's only (maxⁿ: each role takes its own best, and
 * the others get what that move leaves them), whether or not every move has a child: in a
 * game of three roles, a role that can win at once makes its node worth 0 to the others,
 * not anything from 0 to 100. */
static void settled_span(const uct_t *u, uint32_t i, uint32_t mover, int best, int *lo, int *hi) {
    const pool_t *p = &CT(u)->p;
    uint32_t nr = u->nr;
    for (uint32_t r = 0; r < nr; r++)
        if (r != mover) lo[r] = 100, hi[r] = 0;
    for (uint32_t e = p->nodes[i].first; e != NIL; e = p->edges[e].next) {
        uint32_t c = p->edges[e].child;
        if (p->lo[(size_t)c * nr + mover] < best) continue;
        for (uint32_t r = 0; r < nr; r++) {
            if (r == mover) continue;
            int l = p->lo[(size_t)c * nr + r], h = p->hi[(size_t)c * nr + r];
            if (l < lo[r]) lo[r] = l;
            if (h > hi[r]) hi[r] = h;
        }
    }
}

/* ---- bounds ---- */

/* Where several roles choose at once: each choosing role's lower bound is at least its
 * security level in pure moves, the best over its moves that have a child for every
 * joint move of the others of the least lower bound those children give (a move that wins
 * against every reply proves the win, as in a turn-taking node); with two roles in a
 * zero-sum game the other's upper bound mirrors it. Sound whatever the others do, so for
 * the mixed strategies the tree's visits approach too. */
static bool security(uct_t *u, uint32_t i, uint64_t joints, int *lo, int *hi) {
    pool_t *p = &T(u)->p;
    uint32_t nr = u->nr;
    const uint16_t *cnt = &p->cnt[(size_t)i * nr];
    const node_t *n = &p->nodes[i];
    uint64_t radix = 1;
    bool raised = false;
    for (uint32_t r = 0; r < nr; radix *= cnt[r], r++) {
        if (cnt[r] < 2) continue;
        uint32_t c = cnt[r];
        GROW(u->smin, u->cap_smin, 2 * (size_t)c);
        int *least = u->smin, *seen = u->smin + c; /* per move of r */
        for (uint32_t k = 0; k < c; k++)
            least[k] = 100, seen[k] = 0;
        for (uint32_t e = n->first; e != NIL; e = p->edges[e].next) {
            uint32_t k = (uint32_t)(p->edges[e].key / radix % c);
            int l = p->lo[(size_t)p->edges[e].child * nr + r];
            if (l < least[k]) least[k] = l;
            seen[k]++;
        }
        int best = -1;
        for (uint32_t k = 0; k < c; k++)
            if ((uint64_t)seen[k] >= joints / c && least[k] > best) best = least[k];
        if (best < 0) continue;
        if (best > lo[r]) lo[r] = best, raised = true;
        if (nr == 2 && T(u)->zero_sum && 100 - best < hi[1 - r])
            hi[1 - r] = 100 - best, raised = true;
    }
    return raised;
}

/* Recomputes node i's bounds from its children's (a proven value where lower and upper
 * bound meet for every role); true when they changed. Where one role has a choice, its
 * lower bound is the best of its children's and its upper bound the best of theirs once
 * every move has a child (else 100); every other role's bounds span its children's (each
 * reachable), within the mover's mirrored in a zero-sum game; the mover's moves whose
 * child cannot beat its lower bound are pruned from selection. Where several roles choose
 * (simultaneous moves), each role's bounds span its children's once every joint move has
 * one. Bounds only tighten: the old ones (from a hook, say) are kept where tighter. */
static bool update_bounds(uct_t *u, uint32_t i) {
    pool_t *p = &T(u)->p;
    node_t *n = &p->nodes[i];
    if (n->proven || n->moff == NIL || n->capped) return false;
    uint32_t nr = u->nr, movers = 0, mover = 0;
    const uint16_t *cnt = &p->cnt[(size_t)i * nr];
    uint64_t joints = 1;
    for (uint32_t r = 0; r < nr; r++) {
        joints *= cnt[r];
        if (cnt[r] > 1) movers++, mover = r;
    }
    int *lo = u->blo, *hi = u->bhi; /* over the children: the least lo, the most hi */
    for (uint32_t r = 0; r < nr; r++)
        lo[r] = 100, hi[r] = 0;
    uint64_t children = 0;
    int best_lo = 0; /* the mover's best lower bound */
    for (uint32_t e = n->first; e != NIL; e = p->edges[e].next) {
        uint32_t c = p->edges[e].child;
        children++;
        for (uint32_t r = 0; r < nr; r++) {
            int l = p->lo[(size_t)c * nr + r], h = p->hi[(size_t)c * nr + r];
            if (l < lo[r]) lo[r] = l;
            if (h > hi[r]) hi[r] = h;
        }
        if (p->lo[(size_t)c * nr + mover] > best_lo) best_lo = p->lo[(size_t)c * nr + mover];
    }
    if (!children) return false;
    bool all = children >= joints;
    for (uint32_t r = 0; r < nr; r++) {
        if (!all) lo[r] = 0, hi[r] = 100;
        if (movers == 1 && r == mover) lo[r] = best_lo;
    }
    bool secured = movers > 1 && security(u, i, joints, lo, hi);
    bool mirror = movers == 1 && u->nr == 2 && T(u)->zero_sum;
    if (mirror) {
        uint32_t o = 1 - mover;
        if (100 - hi[mover] > lo[o]) lo[o] = 100 - hi[mover];
        if (100 - lo[mover] < hi[o]) hi[o] = 100 - lo[mover];
    } else if (movers == 1 && best_lo >= hi[mover]) {
        settled_span(u, i, mover, best_lo, lo, hi);
    }
    bool changed = false, exact = true;
    for (uint32_t r = 0; r < nr; r++) {
        uint8_t *l = &p->lo[(size_t)i * nr + r], *h = &p->hi[(size_t)i * nr + r];
        if (lo[r] > *l) *l = (uint8_t)lo[r], changed = true;
        if (hi[r] < *h) *h = (uint8_t)hi[r], changed = true;
        if (*l > *h) *l = *h; /* inconsistent (a hash collision, or a hook's mistake) */
        exact = exact && *l == *h;
    }
    if (exact) n->proven = 1;
    if (exact && movers > 1) {
        u->st.sim_proven++;
        u->st.sim_secured += secured;
    }
    if (movers == 1 && changed && !exact) {
        uint32_t off = role_off(u, i, mover);
        uint8_t floor = p->lo[(size_t)i * nr + mover];
        for (uint32_t e = n->first; e != NIL; e = p->edges[e].next) {
            uint32_t c = p->edges[e].child;
            /* where the values of the others do not mirror the mover's (three roles, or
             * no zero-sum game), a move that keeps the floor is not pruned: the others'
             * values come from the moves the mover would play */
            bool keeps = !mirror && p->lo[(size_t)c * nr + mover] >= floor;
            p->ms[off + (uint32_t)p->edges[e].key].pruned =
                p->hi[(size_t)c * nr + mover] <= floor && !keeps;
        }
    }
    return changed;
}
/* The state hook inside the engine's playout loop: depth counts the states it saw. */
typedef struct {
    uct_t *u;
    uint32_t depth;
    int v; /* the hook's value where it stopped the playout */
} hooked_t;

/* Every HOOK_TIMED-th call is timed (hook_seconds: that time times HOOK_TIMED): two clock
 * reads per call would cost a fast hook a good share of its time. */
#define HOOK_TIMED 16

static bool on_state(void *ctx, const eng_state_t *s) {
    hooked_t *h = ctx;
    uct_t *u = h->u;
    bool timed = u->st.hook_calls++ % HOOK_TIMED == 0;
    double t0 = timed ? now_seconds() : 0;
    int v = u->state_hook(u->hook_ctx, s, h->depth++);
    if (timed) u->st.hook_seconds += (now_seconds() - t0) * HOOK_TIMED;
    h->v = v;
    return v >= 0;
}

static void count_hit(uct_t *u, int v, int *val) {
    u->st.hook_hits++;
    if (v == 100)
        u->st.hook_hits_win++;
    else if (v == 0)
        u->st.hook_hits_loss++;
    else
        u->st.hook_hits_other++;
    hook_values(u, v, val);
}

/* Whether the state hook may be asked `steps` into the rollout (uct_set_hook_reach: within
 * its reach of the root, the tree's path included), and on how many more steps (*more). */
static bool hook_room(const uct_t *u, uint32_t steps, uint32_t *more) {
    if (!u->state_hook) return false;
    if (u->hook_reach == UINT32_MAX) {
        *more = UINT32_MAX;
        return true;
    }
    uint64_t at = (uint64_t)u->leaf_depth + steps;
    if (at > u->hook_reach) return false;
    *more = u->hook_reach - (uint32_t)at;
    return true;
}

/* The engine's own playout to the end from a, `steps` into the rollout, with the state
 * hook if one is set; true when the hook stopped it (val: the hook's values). */
static bool engine_rollout(uct_t *u, eng_state_t *a, uint32_t *steps, int *val) {
    hooked_t h = {.u = u, .depth = *steps};
    bool stop = false;
    uint32_t room = u->cap - *steps, more = 0, near = 0;
    if (hook_room(u, *steps, &near)) {
        /* the hook on the states up to its reach (that one included), then without it */
        if (near > room) near = room;
        more = engine_playout_hooked(u->e, a, &u->rng, near, val, on_state, &h, &stop);
        if (!stop && more == near && near < room && !engine_terminal(u->e, a))
            more += engine_playout(u->e, a, &u->rng, room - near, val);
    } else {
        more = engine_playout(u->e, a, &u->rng, room, val);
    }
    *steps += more;
    if (stop) {
        count_hit(u, h.v > 100 ? 100 : h.v, val);
        return true;
    }
    for (uint32_t r = 0; r < u->nr; r++)
        if (val[r] < 0) val[r] = 0;
    if (*steps >= u->cap && !engine_terminal(u->e, a))
        u->st.rollout_capped++;
    else
        note_outcome(u, val);
    return false;
}

/* Did the engine's playout, `steps` into the rollout and not stopped by the hook, end at a
 * terminal state (not at the step cap)? */
static bool ended(uct_t *u, const eng_state_t *a, uint32_t steps) {
    return steps < u->cap || engine_terminal(u->e, a);
}

/* A random playout from *a (a and b are the two state buffers); fills u->val. Returns
 * whether the hook proved the value at the starting state itself. A playout still running
 * at the deadline is dropped (u->dropped): in a game where a step takes a tenth of a
 * second, one playout can outlast any clock. */
static bool rollout(uct_t *u, eng_state_t *a, eng_state_t *b) {
    int *val = u->val;
    uint32_t steps = 0;
    bool leaf_hit = false;
    /* the engine's own playout: no allocation (the interpreter takes the loop below: its
     * steps can be slow, and a rollout past the deadline is dropped) */
    bool cut = u->heur && u->cut >= 0;
    /* the engine's loop, a state hook inside it */
    bool fast = !u->hook && !cut && engine_kind(u->e) != ENGINE_INTERP;
    bool rec = u->line_on;
    u->rec_terminal = false;
    if (fast && !u->pol) {
        if (rec) bestline_rec_playout(&u->rec, a, &u->rng);
        bool hit = engine_rollout(u, a, &steps, val);
        leaf_hit = hit && steps == 0;
        u->rec_terminal = rec && !hit && ended(u, a, steps);
        u->st.rollouts++;
        u->st.rollout_steps += steps;
        return leaf_hit;
    }
    for (;;) {
        if (engine_terminal(u->e, a)) {
            goals(u, a, val);
            note_outcome(u, val);
            u->rec_terminal = rec;
            break;
        }
        if (fast && u->pol_opts.depth && steps >= u->pol_opts.depth) {
            /* past the policy's depth: the engine's own uniform loop to the end */
            if (rec) bestline_rec_playout(&u->rec, a, &u->rng);
            bool hit = engine_rollout(u, a, &steps, val);
            leaf_hit = hit && steps == 0;
            u->rec_terminal = rec && !hit && ended(u, a, steps);
            break;
        }
        uint32_t near;
        if (u->hook || hook_room(u, steps, &near)) {
            double t0 = now_seconds();
            int v;
            if (u->state_hook) {
                v = u->state_hook(u->hook_ctx, a, steps);
            } else {
                engine_state_terms(u->e, a, &u->hook_state);
                v = u->hook(u->hook_ctx, &u->hook_state);
            }
            u->st.hook_seconds += now_seconds() - t0;
            u->st.hook_calls++;
            if (v >= 0) {
                count_hit(u, v > 100 ? 100 : v, val);
                leaf_hit = steps == 0;
                break;
            }
        }
        if (cut && steps >= (uint32_t)u->cut) { /* cut short: the evaluation's values */
            heur_eval(u->heur, u->e, a, u->hval);
            for (uint32_t r = 0; r < u->nr; r++)
                val[r] = (int)(u->hval[r] + 0.5);
            u->st.rollout_cut++;
            break;
        }
        if ((u->deadline > 0 && now_seconds() > u->deadline) || stopped(u)) {
            u->dropped = true;
            return false;
        }
        if (steps >= u->cap) {
            u->st.rollout_capped++;
            goals(u, a, val);
            break;
        }
        bool moved = u->pol ? playout_step(u->pol, a, &u->rng, u->joint, b)
                            : engine_random_joint(u->e, a, &u->rng, u->joint);
        if (!moved) { /* a role without moves */
            goals(u, a, val);
            break;
        }
        if (!u->pol) engine_next(u->e, a, u->joint, b);
        if (rec) bestline_rec_push(&u->rec, u->joint[0]);
        eng_state_t *t = a;
        a = b;
        b = t;
        steps++;
    }
    u->st.rollouts++;
    u->st.rollout_steps += steps;
    return leaf_hit;
}

/* A stamp for a new iteration, unique in the tree (under its lock when shared). When
 * the counter wraps, every node's stamp is cleared first (no stale stamp can match). */
static uint32_t take_stamp(uct_t *u) {
    uct_t *t = T(u);
    if (++t->next_stamp == 0) {
        for (size_t i = 0; i < t->p.n_nodes; i++)
            t->p.nodes[i].stamp = 0;
        t->next_stamp = 1;
    }
    return t->next_stamp;
}

/* Puts node on the path at depth, stamped with this iteration. */
static void push_path(uct_t *u, size_t depth, uint32_t node) {
    GROW(u->path, u->cap_path, depth + 1);
    u->path[depth] = node;
    node_t *n = &T(u)->p.nodes[node];
    n->stamp = u->stamp;
    if (T(u)->tree_active) n->visits++; /* virtual loss: a visit worth 0 */
}

/* Rolls out from a (see rollout) without the tree's lock: the other thread may use the
 * tree meanwhile (it may grow and move; indices stay valid). */
static bool rollout_unlocked(uct_t *u, eng_state_t *a, eng_state_t *b, size_t leaf_depth) {
    u->leaf_depth = leaf_depth < UINT32_MAX ? (uint32_t)leaf_depth : UINT32_MAX;
    tree_unlock(u);
    bool hit = rollout(u, a, b);
    tree_lock(u);
    return hit;
}

/* Node c's implicit minimax value for role 0 (< 0: none): exact where proven. */
static float node_mm(const uct_t *u, uint32_t c) {
    const pool_t *p = &CT(u)->p;
    if (p->nodes[c].proven && u->imm_nz && !CT(u)->zero_sum) /* the difference's scale */
        return (p->lo[(size_t)c * 2] + 100 - p->lo[(size_t)c * 2 + 1]) / 200.0f;
    if (p->nodes[c].proven) return p->lo[(size_t)c * u->nr] / 100.0f;
    return p->nodes[c].mm;
}

/* Implicit minimax, on the way up from child (NIL: none): the move selected at node n
 * (path depth d; SIZE_MAX: none) takes the child's minimax value, and n takes the best of
 * its mover's moves (two roles, zero-sum or uct_set_implicit_nonzero, one role choosing; a
 * node where no one chooses takes its child's). */
static void implicit_update(uct_t *u, uint32_t n, size_t d, uint32_t child) {
    pool_t *p = &T(u)->p;
    node_t *nd = &p->nodes[n];
    if (nd->proven || nd->moff == NIL || u->nr != 2 || (!T(u)->zero_sum && !u->imm_nz)) return;
    const uint16_t *cnt = &p->cnt[(size_t)n * 2];
    float cm = child != NIL ? node_mm(u, child) : -1;
    if (cnt[0] > 1 && cnt[1] > 1) return; /* simultaneous moves: none */
    if (cnt[0] <= 1 && cnt[1] <= 1) {
        if (cm >= 0) nd->mm = cm;
        return;
    }
    uint32_t mover = cnt[0] > 1 ? 0 : 1, off = role_off(u, n, mover);
    mstat_t *ms = &p->ms[off];
    if (d != SIZE_MAX && cm >= 0) ms[u->path_sel[d * 2 + mover]].mm = mover == 0 ? cm : 1 - cm;
    float best = -1;
    for (uint32_t k = 0; k < cnt[mover]; k++)
        if (ms[k].mm > best) best = ms[k].mm;
    if (best >= 0) nd->mm = mover == 0 ? best : 1 - best;
}

/* Adds the iteration's values (u->val) to the path, from its end up: node values of
 * path[0..depth], and move statistics of the first n_sel nodes (those where moves were
 * selected). The values are clamped to each node's bounds on the way (a node proven worth
 * at least 50 to a role passes at least 50 up for it, whatever its rollout gave). With a
 * virtual loss the visits were counted at selection; a dropped rollout takes them back. */
static void backup(uct_t *u, size_t depth, size_t n_sel, bool dropped) {
    pool_t *p = &T(u)->p;
    uint32_t nr = u->nr;
    bool vl = T(u)->tree_active;
    int *v = u->bval;
    memcpy(v, u->val, nr * sizeof *v);
    for (size_t d = depth + 1; d-- > 0;) {
        uint32_t n = u->path[d];
        if (d < n_sel) /* the moves selected here led to path[d + 1]: its values, in v */
            for (uint32_t r = 0; r < nr; r++) {
                mstat_t *m = &p->ms[role_off(u, n, r) + u->path_sel[d * nr + r]];
                if (dropped) {
                    if (vl) m->visits--;
                } else {
                    m->visits += !vl;
                    m->sum += v[r] / 100.0;
                    m->sumsq += v[r] / 100.0 * (v[r] / 100.0);
                }
            }
        for (uint32_t r = 0; r < nr; r++) {
            int lo = p->lo[(size_t)n * nr + r], hi = p->hi[(size_t)n * nr + r];
            v[r] = v[r] < lo ? lo : v[r] > hi ? hi : v[r];
        }
        if (dropped) {
            if (vl) p->nodes[n].visits--;
        } else {
            p->nodes[n].visits += !vl;
            p->nodes[n].vsum += v[u->role] / 100.0;
            if (u->imm > 0)
                implicit_update(u, n, d < n_sel ? d : SIZE_MAX, d < depth ? u->path[d + 1] : NIL);
        }
    }
}

/* At a separable node searched as if turn-taking (uct_set_sequential), the other role's
 * reply to the searching role's move ks: UCB over the children of ks's joint moves (their
 * visits, and the other's value: the searching role's mirrored, exact where proven), an
 * untried joint move first, the variance bound of UCB1-Tuned that of a mean of values in
 * [0,1] (the node keeps no squares). The searching role's own statistics then average its
 * move's values against the replies that suit the other role best, as at a turn-taking
 * node where it moves first: they approach its pure maximin (a lower bound, which a
 * separable game, the other's move changing nothing of the searching role's, keeps close
 * to the game's value), where decoupled UCT's average it against the other's mix. */
static uint32_t select_reply(uct_t *u, uint32_t i, uint32_t ks) {
    pool_t *p = &T(u)->p;
    const uint16_t *cnt = &p->cnt[(size_t)i * 2];
    uint32_t s = u->role, o = 1 - s, n = cnt[o];
    GROW(u->reply, u->cap_reply, 2 * (size_t)n);
    double *vis = u->reply, *val = u->reply + n;
    for (uint32_t k = 0; k < n; k++)
        vis[k] = val[k] = 0;
    double total = 0;
    for (uint32_t e = p->nodes[i].first; e != NIL; e = p->edges[e].next) {
        uint64_t key = p->edges[e].key;
        uint32_t a = (uint32_t)(key % cnt[0]), b = (uint32_t)(key / cnt[0]);
        if ((s == 0 ? a : b) != ks) continue;
        uint32_t k = s == 0 ? b : a, c = p->edges[e].child;
        const node_t *cn = &p->nodes[c];
        if (!cn->visits) continue;
        vis[k] = cn->visits;
        val[k] = cn->proven ? p->lo[(size_t)c * 2 + o] / 100.0 : 1 - cn->vsum / cn->visits;
        total += cn->visits;
    }
    uint32_t unvisited = 0;
    for (uint32_t k = 0; k < n; k++)
        unvisited += vis[k] == 0;
    if (unvisited) {
        uint32_t pick = (uint32_t)(splitmix_next(&u->rng) % unvisited);
        for (uint32_t k = 0; k < n; k++)
            if (vis[k] == 0 && pick-- == 0) return k;
    }
    double logn = log(total), c = node_c(u, i);
    uint32_t best = 0;
    double best_v = -1.0;
    for (uint32_t k = 0; k < n; k++) {
        mstat_t m = {.visits = (uint32_t)vis[k], .sum = val[k] * vis[k]};
        m.sumsq = m.sum; /* the most variance a mean of values in [0,1] allows */
        double v = val[k] + explore(u, c, &m, logn);
        if (v > best_v) best_v = v, best = k;
    }
    return best;
}

/* Selects the moves of every role at node i (the path's node at depth) into u->joint,
 * with their key among i's children; a virtual loss on them when the tree is shared. At
 * a separable node searched as if turn-taking, the searching role first, the other's
 * reply to it (select_reply). */
static uint64_t select_joint(uct_t *u, uint32_t i, size_t depth) {
    pool_t *p = &T(u)->p;
    uint32_t nr = u->nr;
    uint64_t key = 0, radix = 1;
    GROW(u->path_sel, u->cap_path_sel, (depth + 1) * nr);
    uint32_t seq[2] = {0, 0};
    bool in_turn = p->nodes[i].sep && u->seq && T(u)->zero_sum;
    if (in_turn) {
        seq[u->role] = select_move(u, i, u->role);
        seq[1 - u->role] = select_reply(u, i, seq[u->role]);
    }
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t k = in_turn ? seq[r] : select_move(u, i, r);
        u->path_sel[depth * nr + r] = k;
        u->joint[r] = p->mv[role_off(u, i, r) + k];
        if (u->pol && p->cnt[(size_t)i * nr + r] > 1) playout_note(u->pol, r, u->joint[r]);
        if (T(u)->tree_active) p->ms[role_off(u, i, r) + k].visits++;
        key += k * radix;
        radix *= p->cnt[(size_t)i * nr + r];
    }
    return key;
}

/* The node the joint move `key` leads to from node i, whose state is s: the child of an
 * edge, else (transpositions) the node of s, linked by a new edge; NIL when there is none
 * (or no room for the edge). */
static uint32_t next_node(uct_t *u, uint32_t i, uint64_t key, const eng_state_t *s, bool *full) {
    uint32_t c = find_child(u, i, key);
    if (c != NIL || !T(u)->transpose) return c;
    c = tt_find(&T(u)->p, engine_state_hash(s));
    if (c != NIL && !new_edge(u, i, key, c)) {
        *full = true;
        return NIL;
    }
    return c;
}

/* With a best line kept: the iteration's line, when it ended at a terminal state worth
 * more to the role than the best line so far, becomes the best line (under the tree's
 * lock; a rollout in the engine's own loop is replayed to find its moves). */
static void keep_line(uct_t *u) {
    bestline_t *best = &T(u)->line;
    if (!u->rec_terminal || u->val[0] <= best->value) return;
    if (!bestline_rec_finish(&u->rec, u->e, u->cap)) return;
    bestline_set(best, u->rec.mv, u->rec.n, u->val[0]);
}

/* One iteration: selection and expansion under the tree's lock (when shared), the
 * rollout without it, the backup under it again. */
static void iterate(uct_t *u) {
    pool_t *p = &T(u)->p;
    eng_state_t *cur = u->sa, *nxt = u->sb;
    engine_state_copy(cur, T(u)->root_state);
    int *val = u->val;
    size_t depth = 0; /* index of the last node on the path */
    size_t n_sel = 0; /* nodes of the path where moves were selected */
    uint32_t i = 0;
    bool leaf_proven = false;
    bool full = false; /* the memory limit stopped the tree from growing this iteration */
    if (u->pol) playout_begin(u->pol);
    if (u->line_on) bestline_rec_begin(&u->rec);
    u->rec_terminal = false;
    tree_lock(u);
    u->stamp = take_stamp(u);
    push_path(u, 0, 0);
    for (;;) {
        if (p->nodes[i].moff == NIL && !p->nodes[i].proven && !expand(u, i, cur)) {
            full = true;
            rollout_unlocked(u, cur, nxt, depth); /* from the leaf, which stays one */
            break;
        }
        if (p->nodes[i].proven) {
            for (uint32_t r = 0; r < u->nr; r++)
                val[r] = p->lo[(size_t)i * u->nr + r];
            u->st.proven_backups++;
            leaf_proven = true;
            u->rec_terminal = u->line_on && p->nodes[i].terminal;
            break;
        }
        uint64_t key = select_joint(u, i, depth);
        n_sel++;
        if (u->line_on) bestline_rec_push(&u->rec, u->joint[0]);
        engine_next(u->e, cur, u->joint, nxt);
        eng_state_t *t = cur;
        cur = nxt;
        nxt = t;
        bool no_room = false;
        uint32_t c = next_node(u, i, key, cur, &no_room);
        if (c != NIL && p->nodes[c].stamp == u->stamp) {
            /* the state repeats on this path (a cycle): scored from here, not entered */
            u->st.repeats++;
            rollout_unlocked(u, cur, nxt, depth + 1);
            break;
        }
        if (c != NIL) {
            i = c;
            push_path(u, ++depth, i);
            continue;
        }
        if (!no_room && room_for(u, EDGES, p->n_edges + 1)) /* the edge first: a node */
            c = new_node(u, T(u)->transpose ? engine_state_hash(cur) : 0); /* needs one */
        if (c != NIL) new_edge(u, i, key, c);
        if (c == NIL) { /* no room: score the move's state without keeping a node for it */
            full = true;
            if (engine_terminal(u->e, cur)) {
                goals(u, cur, val);
                u->rec_terminal = u->line_on;
            } else
                rollout_unlocked(u, cur, nxt, depth + 1);
            break;
        }
        push_path(u, ++depth, c);
        if (engine_terminal(u->e, cur)) {
            p->nodes[c].terminal = 1;
            goals(u, cur, val);
            note_outcome(u, val);
            set_exact(u, c, val);
            u->st.terminal_leaves++;
            leaf_proven = true;
            u->rec_terminal = u->line_on;
        } else if (rollout_unlocked(u, cur, nxt, depth)) {
            set_exact(u, c, val);
            leaf_proven = true;
        }
        break;
    }
    if (u->not_zero_sum) T(u)->zero_sum = false; /* under the lock, before the bounds */
    backup(u, depth, n_sel, u->dropped);
    if (u->pol && !u->dropped) playout_learn(u->pol, val);
    if (u->dropped) { /* nothing learnt (a new leaf just stays unvisited) */
        tree_unlock(u);
        u->dropped = false;
        u->st.dropped_rollouts++;
        return;
    }
    keep_line(u);
    if (leaf_proven && !u->no_bounds)
        for (size_t d = depth; d-- > 0;)
            if (!update_bounds(u, u->path[d])) break;
    tree_unlock(u);
    u->st.memory_full += full;
    u->st.iterations++;
}

/* ---- public ---- */

uct_t *uct_new(engine_t *e, uint32_t role, uint64_t seed) {
    uct_t *u = xcalloc(1, sizeof *u);
    game_t *g = engine_game(e);
    u->g = g;
    u->e = e;
    u->role = role;
    u->nr = g->n_roles;
    if (role >= u->nr) /* a caller's bug: roles come from the game (agent_load checks them) */
        die("uct: role %u out of range", role);
    u->rng.s = seed;
    u->c = 1.4;
    u->simc = -1;
    u->cap = 10000;
    u->hook_reach = UINT32_MAX;
    u->sharp = 1;
    u->mem_limit = uct_default_memory_limit();
    u->pol_opts.mast_eps = -1;
    atomic_init(&u->stop, false);
    pthread_mutex_init(&u->lock, NULL);
    u->root_state = engine_state_new(e);
    u->sa = engine_state_new(e);
    u->sb = engine_state_new(e);
    u->asked = engine_state_new(e);
    state_init(&u->hook_state);
    u->joint = xcalloc(u->nr, sizeof *u->joint);
    u->val = xcalloc(u->nr, sizeof *u->val);
    u->bval = xcalloc(u->nr, sizeof *u->bval);
    u->hval = xcalloc(u->nr, sizeof *u->hval);
    u->pjoint = xcalloc(u->nr, sizeof *u->pjoint);
    u->succ = engine_state_new(e);
    u->cut = -1;
    u->blo = xcalloc(u->nr, sizeof *u->blo);
    u->bhi = xcalloc(u->nr, sizeof *u->bhi);
    u->zero_sum = u->nr == 2;
    bestline_init(&u->line);
    pool_reserve_nodes(&u->p, u->nr, INITIAL_NODES);
    pool_reserve_moves(&u->p, INITIAL_MOVES);
    pool_reserve_edges(&u->p, INITIAL_NODES);
    return u;
}

void uct_free(uct_t *u) {
    if (!u) return;
    uct_ponder_stop(u);
    uct_free(u->helper);
    playout_free(u->pol);
    pthread_mutex_destroy(&u->lock);
    pool_free(&u->p);
    pool_free(&u->spare);
    free(u->old_of);
    free(u->child_of);
    engine_state_free(u->root_state);
    engine_state_free(u->sa);
    engine_state_free(u->sb);
    engine_state_free(u->asked);
    state_fini(&u->hook_state);
    if (u->owns_engine) engine_free(u->e);
    free(u->joint);
    free(u->val);
    free(u->bval);
    free(u->hval);
    free(u->pjoint);
    engine_state_free(u->succ);
    free(u->blo);
    free(u->bhi);
    free(u->smin);
    free(u->sepw);
    free(u->reply);
    free(u->new_of);
    free(u->path);
    free(u->path_sel);
    bestline_fini(&u->line);
    bestline_rec_fini(&u->rec);
    free(u);
}

void uct_set_exploration(uct_t *u, double c) {
    u->c = c;
    if (u->helper) u->helper->c = c;
}
void uct_set_sim_exploration(uct_t *u, double c) {
    u->simc = c;
    if (u->helper) u->helper->simc = c;
}
void uct_set_tuned(uct_t *u, bool on) {
    u->tuned = on;
    if (u->helper) u->helper->tuned = on;
}
void uct_set_hook_reach(uct_t *u, uint32_t depth) {
    u->hook_reach = depth;
    if (u->helper) u->helper->hook_reach = depth;
}
void uct_set_rollout_cap(uct_t *u, uint32_t cap) {
    u->cap = cap;
    if (u->helper) u->helper->cap = cap;
}
size_t uct_default_memory_limit(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    size_t phys = pages > 0 && size > 0 ? (size_t)pages * (size_t)size : (size_t)4 << 30;
    return phys / 8;
}

void uct_set_memory_limit(uct_t *u, size_t bytes) {
    pool_t *p = &u->p;
    if (bytes && !u->have_root) { /* an empty tree starts smaller when the limit asks */
        size_t nodes = p->cap_nodes, moves = p->cap_mv, edges = p->cap_edges;
        while (nodes > MIN_NODES && tree_bytes(u->nr, nodes, moves, edges) > bytes) {
            nodes /= 2;
            moves /= 2;
            edges /= 2;
        }
        if (nodes != p->cap_nodes) pool_resize(p, u->nr, nodes, moves, edges);
    }
    size_t least = tree_bytes(u->nr, p->cap_nodes, p->cap_mv, p->cap_edges);
    u->mem_limit = bytes && bytes < least ? least : bytes;
}

/* The helper's hook: u's state hook on u's helper context, when it may run there. */
static void helper_hook(uct_t *u) {
    uct_t *h = u->helper;
    if (!h) return;
    bool on = u->state_hook && u->hook_threads && u->helper_ctx;
    h->hook = NULL;
    h->state_hook = on ? u->state_hook : NULL;
    h->hook_ctx = on ? u->helper_ctx : NULL;
    h->hook_threads = on;
    h->helper_ctx = NULL;
}

void uct_set_hook(uct_t *u, uct_rollout_hook_t hook, void *ctx) {
    uct_ponder_stop(u);
    u->hook = hook;
    u->state_hook = NULL;
    u->hook_ctx = ctx;
    u->hook_threads = false;
    u->helper_ctx = NULL;
    u->hook_moves = false;
    helper_hook(u);
}

void uct_set_state_hook(uct_t *u, uct_state_hook_t hook, void *ctx) {
    uct_set_hook(u, NULL, NULL);
    u->state_hook = hook;
    u->hook_ctx = ctx;
}

void uct_set_state_hook_threads(uct_t *u, uct_state_hook_t hook, void *ctx, void *helper_ctx) {
    uct_set_state_hook(u, hook, ctx);
    u->hook_threads = hook != NULL;
    u->helper_ctx = hook ? helper_ctx : NULL;
    helper_hook(u);
}

void uct_set_hook_moves(uct_t *u, bool on) {
    u->hook_moves = on && u->state_hook;
}

void uct_clear(uct_t *u) {
    uct_ponder_stop(u);
    if (u->helper) uct_clear(u->helper);
    bestline_clear(&u->line);
    u->p.n_nodes = 0;
    u->p.n_mv = 0;
    u->p.n_edges = 0;
    u->have_root = false;
}

/* A fresh tree rooted at u->root_state (an empty transposition table with it). */
static void fresh_root(uct_t *u) {
    pool_t *p = &u->p;
    p->n_nodes = p->n_mv = p->n_edges = 0;
    if (u->transpose)
        tt_rebuild(p);
    else if (p->has_tt) {
        htab_fini(&p->tt);
        p->has_tt = false;
    }
    new_node(u, u->transpose ? engine_state_hash(u->root_state) : 0);
    u->have_root = true;
}

void uct_set_heuristic(uct_t *u, const heur_t *h, int cut, uint32_t prior) {
    uct_ponder_stop(u);
    u->heur = h;
    u->cut = h ? cut : -1;
    u->prior = h ? prior : 0;
    if (u->helper) uct_set_heuristic(u->helper, h, cut, prior);
}

void uct_set_implicit(uct_t *u, double alpha) {
    uct_ponder_stop(u);
    u->imm = alpha;
    if (u->helper) uct_set_implicit(u->helper, alpha);
}

void uct_set_implicit_nonzero(uct_t *u, bool on) {
    uct_ponder_stop(u);
    u->imm_nz = on;
    if (u->helper) uct_set_implicit_nonzero(u->helper, on);
}

void uct_set_prior_sharpness(uct_t *u, double k) {
    u->sharp = k;
    if (u->helper) uct_set_prior_sharpness(u->helper, k);
}

void uct_set_transpositions(uct_t *u, bool on) {
    uct_ponder_stop(u);
    u->transpose = on;
    u->have_root = false; /* a tree of the other kind is grown afresh */
    if (u->helper) uct_set_transpositions(u->helper, on);
}

/* Whether u's role is the only one with a choice at p's root: then the root's child keys
 * are its move indices, and a child's bounds are those of the move. */
static bool lone_chooser(const uct_t *u, const pool_t *p) {
    for (uint32_t r = 0; r < u->nr; r++)
        if (r != u->role && p->cnt[r] > 1) return false;
    return true;
}

/* Whether a proven root lacks a child that proves its value. A root proven by the rollout
 * hook at its own state has no children; a lone chooser's root can come proven from the
 * turns before with the child that proved it not among its edges (firefighter under load:
 * the root proven, its one child the losing walks' transposition, and the move chosen by
 * visits: a walk, goal 0). Searched as it is, no iteration would run and the move would be
 * chosen without the proof. With others choosing, only the first case is looked for. */
static bool proof_unwitnessed(const uct_t *u, const pool_t *p) {
    if (!p->nodes[0].proven || p->nodes[0].terminal) return false;
    if (p->nodes[0].moff == NIL) return true;
    if (!lone_chooser(u, p)) return false;
    uint32_t nr = u->nr, role = u->role;
    for (uint32_t e = p->nodes[0].first; e != NIL; e = p->edges[e].next)
        if (p->lo[(size_t)p->edges[e].child * nr + role] >= p->lo[role]) return false;
    return true;
}

/* Such a root is opened (bounds cleared) as an iteration is claimed: the search proves its
 * value again through its children, and the move that keeps it is found. */
static void open_unwitnessed_root(uct_t *u, pool_t *p) {
    if (!u->have_root || !proof_unwitnessed(u, p)) return;
    p->nodes[0].proven = 0;
    for (uint32_t r = 0; r < u->nr; r++) {
        p->lo[r] = 0;
        p->hi[r] = 100;
    }
}

/* Makes u's root the state s (keeping the tree when it is the same); false when s is
 * terminal. */
static bool set_root(uct_t *u, const state_t *s) {
    engine_state_set(u->e, u->asked, s);
    if (!u->have_root || !engine_state_equal(u->root_state, u->asked)) {
        engine_state_copy(u->root_state, u->asked);
        fresh_root(u);
        bestline_clear(&u->line); /* a line from another root */
    }
    return !engine_terminal(u->e, u->asked);
}

/* Claims the next iteration of the tree's search: false once the bound is reached or the
 * root is proven. */
static bool claim_iteration(uct_t *u, uint32_t max_iterations) {
    uct_t *t = T(u);
    tree_lock(u);
    /* here, not where the root is set: a root comes proven from the turns before (set_root,
     * uct_advance before pondering) or is proven in the search itself */
    open_unwitnessed_root(t, &t->p);
    bool go = !(max_iterations && t->tree_iters >= max_iterations) && !t->p.nodes[0].proven;
    t->tree_iters += go;
    tree_unlock(u);
    return go;
}

/* Iterations on u's tree (or the shared one) within the bounds; `forever`: no bound but
 * the stop flag (pondering). */
static void search_loop(uct_t *u, double seconds, uint32_t max_iterations, bool forever) {
    if (!forever && seconds <= 0 && max_iterations == 0) max_iterations = 10000;
    double deadline = now_seconds() + seconds;
    u->deadline = seconds > 0 ? deadline : 0;
    /* a policy step's checks stop there too (a step of a big game on the interpreter
     * computes thousands of successors) */
    if (u->pol) playout_set_until(u->pol, u->deadline);
    for (uint32_t it = 0;; it++) {
        if (stopped(u)) break;
        if (it && seconds > 0 && now_seconds() >= deadline) break;
        if (!claim_iteration(u, max_iterations)) break;
        iterate(u);
    }
}

typedef struct {
    uct_t *u;
    double seconds;
    uint32_t max_iterations;
    bool forever;
} search_job_t;

static void *search_main(void *arg) {
    search_job_t *j = arg;
    search_loop(j->u, j->seconds, j->max_iterations, j->forever);
    return NULL;
}

/* The helper that searches beside u: none while a hook is set that may not run there
 * (uct_set_state_hook_threads). */
static uct_t *active_helper(uct_t *u) {
    if (u->hook || (u->state_hook && !(u->hook_threads && u->helper_ctx))) return NULL;
    return u->helper;
}

/* Roots every tree at s, on the calling thread (the state is read from terms in the
 * game's store); false when s is terminal. */
static bool prepare(uct_t *u, const state_t *s) {
    if (!set_root(u, s)) return false;
    u->tree_iters = 0;
    uct_t *h = active_helper(u);
    if (h && !h->shared) {
        set_root(h, s);
        h->tree_iters = 0;
    }
    return true;
}

/* Searches the prepared trees: u on this thread, its helper (if any) on another, on its
 * own tree or on u's. True when a helper searched a tree of its own (its root visits count
 * in the move choice). */
static bool run(uct_t *u, double seconds, uint32_t max_iterations, bool forever) {
    uct_t *h = active_helper(u);
    if (h && h->shared) u->tree_active = true;
    search_job_t job = {h, seconds, max_iterations, forever};
    pthread_t th;
    bool threaded = h && engine_thread_start(&th, search_main, &job) == 0;
    if (!threaded) u->tree_active = false;
    search_loop(u, seconds, max_iterations, forever);
    if (threaded) pthread_join(th, NULL);
    u->tree_active = false;
    return threaded && !h->shared;
}

/* The helper's visits of the root move `move` of the searching role (0 if none). */
static double helper_visits(const uct_t *h, term_t move) {
    const pool_t *p = &h->p;
    if (!h->have_root || p->nodes[0].moff == NIL) return 0;
    uint32_t off = role_off(h, 0, h->role), n = p->cnt[h->role];
    for (uint32_t k = 0; k < n; k++)
        if (p->mv[off + k] == move) return p->ms[off + k].visits;
    return 0;
}

bool uct_parallel_parse(const char *name, uct_parallel_t *out) {
    if (!strcmp(name, "root"))
        *out = UCT_PARALLEL_ROOT;
    else if (!strcmp(name, "tree"))
        *out = UCT_PARALLEL_TREE;
    else
        return false;
    return true;
}

/* The helper of a shared tree keeps no tree of its own. */
static void make_tree_helper(uct_t *u) {
    uct_t *h = u->helper;
    h->shared = u;
    pool_free(&h->p);
    memset(&h->p, 0, sizeof h->p);
}

void uct_set_parallel(uct_t *u, uct_parallel_t mode) {
    uct_ponder_stop(u);
    if (u->parallel == mode) return;
    u->parallel = mode;
    if (!u->helper) return;
    uint32_t threads = 2; /* a helper of the other kind is made afresh */
    uct_set_threads(u, 1);
    uct_set_threads(u, threads);
}

bool uct_set_threads(uct_t *u, uint32_t threads) {
    uct_ponder_stop(u);
    if (threads <= 1) {
        FREE_AND_NULL(uct_free, u->helper);
        return true;
    }
    if (threads > 2 || engine_uses_store(u->e)) return false;
    if (u->helper) return true;
    u->helper = uct_new(engine_clone(u->e), u->role, u->rng.s ^ 0x9e3779b97f4a7c15ull);
    u->helper->owns_engine = true;
    u->helper->boss = u;
    u->helper->c = u->c, u->helper->cap = u->cap, u->helper->tuned = u->tuned;
    u->helper->simc = u->simc;
    u->helper->hook_reach = u->hook_reach;
    u->helper->mem_limit = u->mem_limit; /* each tree under the cap: twice it in all */
    uct_set_playout(u->helper, &u->pol_opts);
    uct_set_transpositions(u->helper, u->transpose);
    uct_set_heuristic(u->helper, u->heur, u->cut, u->prior);
    uct_set_prior_sharpness(u->helper, u->sharp);
    uct_set_implicit(u->helper, u->imm);
    uct_set_implicit_nonzero(u->helper, u->imm_nz);
    uct_set_best_line(u->helper, u->line_on);
    uct_set_bounds(u->helper, !u->no_bounds);
    uct_set_sequential(u->helper, u->seq);
    helper_hook(u);
    if (u->parallel == UCT_PARALLEL_TREE) make_tree_helper(u);
    return true;
}

void uct_set_mixed(uct_t *u, bool on) {
    u->mixed = on;
}

void uct_set_sequential(uct_t *u, bool on) {
    uct_ponder_stop(u);
    u->seq = on;
    if (u->helper) uct_set_sequential(u->helper, on);
}

void uct_set_bounds(uct_t *u, bool on) {
    u->no_bounds = !on;
    if (u->helper) uct_set_bounds(u->helper, on);
}

bool uct_set_best_line(uct_t *u, bool on) {
    uct_ponder_stop(u);
    on = on && u->nr == 1;
    if (on && !u->rec.start) bestline_rec_init(&u->rec, u->e);
    u->line_on = on;
    bestline_clear(&u->line);
    if (u->helper) uct_set_best_line(u->helper, on);
    return on;
}

void uct_set_playout(uct_t *u, const playout_opts_t *o) {
    uct_ponder_stop(u);
    FREE_AND_NULL(playout_free, u->pol);
    u->pol_opts = *o;
    if (!playout_is_uniform(o)) u->pol = playout_new(u->e, o);
    if (u->helper) uct_set_playout(u->helper, o);
}

typedef struct {
    uct_t *u;
    uint32_t max_iterations;
} ponder_job_t;

static void *ponder_main(void *arg) {
    ponder_job_t *j = arg;
    run(j->u, 0, j->max_iterations, j->max_iterations == 0);
    free(j);
    return NULL;
}

bool uct_ponder(uct_t *u, const state_t *s, uint32_t max_iterations) {
    uct_ponder_stop(u);
    /* the interpreter and hooks on terms use the game's store; a state hook may ask Z3 */
    if (engine_uses_store(u->e) || u->hook || (u->state_hook && !u->hook_threads)) return false;
    if (s) {
        if (!prepare(u, s)) return false;
    } else {
        if (!u->have_root || engine_terminal(u->e, u->root_state)) return false;
        u->tree_iters = 0; /* the bound counts this search's iterations */
        if (u->helper) u->helper->tree_iters = 0;
    }
    atomic_store(&u->stop, false);
    ponder_job_t *j = xmalloc(sizeof *j);
    *j = (ponder_job_t){u, max_iterations};
    u->pondering = engine_thread_start(&u->ponder_th, ponder_main, j) == 0; /* may interpret */
    if (!u->pondering) free(j);
    return u->pondering;
}

void uct_ponder_wait(uct_t *u) {
    if (!u->pondering) return;
    pthread_join(u->ponder_th, NULL);
    u->pondering = false;
}

void uct_ponder_stop(uct_t *u) {
    if (!u->pondering) return;
    atomic_store(&u->stop, true);
    pthread_join(u->ponder_th, NULL);
    u->pondering = false;
    atomic_store(&u->stop, false);
}

/* Where another role chooses at the same time as the searching one (simultaneous moves),
 * a move drawn in proportion to its root visits (both trees' with a helper of its own):
 * decoupled UCT's visits approach a mixed strategy, and its most visited move alone can
 * be read and beaten by an opponent who guesses it. */
static term_t mixed_move(uct_t *u, const uct_t *h, uint32_t off, uint32_t n) {
    const pool_t *p = &u->p;
    double total = 0;
    for (uint32_t k = 0; k < n; k++)
        total += p->ms[off + k].visits + (h ? helper_visits(h, p->mv[off + k]) : 0);
    double x = (double)(splitmix_next(&u->rng) >> 11) / 9007199254740992.0 * total;
    for (uint32_t k = 0; k < n; k++) {
        x -= p->ms[off + k].visits + (h ? helper_visits(h, p->mv[off + k]) : 0);
        if (x < 0) return p->mv[off + k];
    }
    return p->mv[off + n - 1];
}

/* With a best line (one role): its first move where its value beats what the tree's
 * choice, the root's k-th move, is proven to reach (that child's lower bound); the better
 * line of the two trees when a helper searched one of its own (h). */
static term_t line_move(const uct_t *u, const uct_t *h, uint32_t k) {
    const bestline_t *b = h && h->line.value > u->line.value ? &h->line : &u->line;
    const pool_t *p = &u->p;
    term_t move = p->mv[role_off(u, 0, u->role) + k];
    if (b->value < 0 || b->n == 0) return move;
    uint32_t c = find_child(u, 0, k);
    int sure = c == NIL ? 0 : p->lo[(size_t)c * u->nr + u->role];
    return b->value > sure ? b->mv[0] : move;
}

/* The most successors of the root hook_win_move asks the hook about (one per joint move:
 * an engine step and a hook call each). */
#define HOOK_WIN_JOINTS 4096

/* Whether state s, one step from the root, is a win for u's role proven by the state
 * hook as a tree leaf's is (asked at depth 0, within its reach of the root), or terminal
 * with goal 100. */
static bool hook_won(uct_t *u, const eng_state_t *s) {
    if (engine_terminal(u->e, s)) return engine_goal_value(u->e, s, u->role) == 100;
    uint32_t more;
    u->leaf_depth = 1;
    return hook_room(u, 0, &more) && u->state_hook(u->hook_ctx, s, 0) >= 100;
}

/* Whether the root's k-th move of u's role wins whatever the others play with it: every
 * joint move of it (the others' moves in mixed radix) leads to a state hook_won proves. */
static bool move_won(uct_t *u, uint32_t k, uint64_t joints) {
    const pool_t *p = &u->p;
    for (uint64_t j = 0; j < joints; j++) {
        uint64_t x = j;
        for (uint32_t r = 0; r < u->nr; r++) {
            uint32_t i = r == u->role ? k : (uint32_t)(x % p->cnt[r]);
            if (r != u->role) x /= p->cnt[r];
            u->joint[r] = p->mv[role_off(u, 0, r) + i];
        }
        engine_next(u->e, u->asked, u->joint, u->succ);
        if (!hook_won(u, u->succ)) return false;
    }
    return true;
}

/* With uct_set_hook_moves, where the tree has not proven the root a win: the first root
 * move of u's role whose every successor the hook proves a win (NIL: none). With few
 * iterations the winning move may never have been expanded, and the visits would pick a
 * move of unknown value, which may lose for good (firefighter at iters=2..8: most matches
 * lost with the sets solved); one hook call per successor costs far less than an
 * iteration. */
static uint32_t hook_win_move(uct_t *u) {
    const pool_t *p = &u->p;
    uint32_t n = p->cnt[u->role];
    if (!u->hook_moves || n < 2 || p->nodes[0].terminal || p->lo[u->role] == 100) return NIL;
    uint64_t joints = 1;
    for (uint32_t r = 0; r < u->nr; r++)
        if (r != u->role && (joints *= p->cnt[r]) * n > HOOK_WIN_JOINTS) return NIL;
    if (joints == 0) return NIL;
    for (uint32_t k = 0; k < n; k++)
        if (move_won(u, k, joints)) return k;
    return NIL;
}

/* The root's child for each of the lone chooser's n moves (its key is the move's index;
 * NIL: none), in one walk over the root's edges: find_child per move was quadratic, seconds
 * past the clock on a role with tens of thousands of moves. */
static const uint32_t *root_children(uct_t *u, uint32_t n) {
    const pool_t *p = &CT(u)->p;
    GROW(u->child_of, u->cap_child_of, n);
    for (uint32_t k = 0; k < n; k++)
        u->child_of[k] = NIL;
    for (uint32_t e = p->nodes[0].first; e != NIL; e = p->edges[e].next)
        if (p->edges[e].key < n && u->child_of[p->edges[e].key] == NIL)
            u->child_of[p->edges[e].key] = p->edges[e].child;
    return u->child_of;
}

term_t uct_choose(uct_t *u, const state_t *s, double seconds, uint32_t max_iterations) {
    uct_ponder_stop(u);
    if (!prepare(u, s)) return TERM_NONE;
    uct_t *h = run(u, seconds, max_iterations, false) ? u->helper : NULL;
    pool_t *p = &u->p;
    if (p->nodes[0].moff == NIL) { /* not a single iteration: any legal move */
        const term_t *m;
        uint32_t n = engine_legal(u->e, u->asked, u->role, &m);
        return n ? m[0] : TERM_NONE;
    }
    uint32_t nr = u->nr, role = u->role;
    const uint16_t *cnt = &p->cnt[0];
    uint32_t n = cnt[role];
    if (n == 0) return TERM_NONE;
    uint32_t off = role_off(u, 0, role);
    uint32_t won = hook_win_move(u);
    if (won != NIL) return p->mv[off + won];
    /* the only one with a choice: the children's bounds tell moves that win, keep the
     * root's proven value or cannot reach what another move guarantees apart */
    bool alone = lone_chooser(u, p);
    if (!alone && u->mixed && n > 1 && !p->nodes[0].proven) return mixed_move(u, h, off, n);
    int floor = p->lo[role], root_hi = p->hi[role];
    uint32_t best = 0;
    int best_class = -1;
    double best_visits = -1, best_mean = -1;
    const uint32_t *child = alone ? root_children(u, n) : NULL;
    for (uint32_t k = 0; k < n; k++) {
        int cls = 1; /* 3: a proven win, 2: keeps the root's proven value, 1: unknown, 0: worse */
        uint32_t c = child ? child[k] : NIL;
        if (c != NIL) {
            int lo = p->lo[(size_t)c * nr + role], hi = p->hi[(size_t)c * nr + role];
            if (lo == 100)
                cls = 3;
            else if (p->nodes[0].proven && lo == root_hi)
                cls = 2;
            else if (hi < floor || hi == 0 || (p->nodes[0].proven && hi < root_hi))
                cls = 0;
        }
        const mstat_t *m = &p->ms[off + k];
        double mean = m->visits ? m->sum / m->visits : 0;
        double visits = m->visits + (h ? helper_visits(h, p->mv[off + k]) : 0);
        if (cls > best_class ||
            (cls == best_class &&
             (visits > best_visits || (visits == best_visits && mean > best_mean)))) {
            best = k;
            best_class = cls;
            best_visits = visits;
            best_mean = mean;
        }
    }
    return u->line_on ? line_move(u, h, best) : p->mv[off + best];
}

/* The key of the root's child for a joint move; false when a move is not among the root's. */
static bool root_key(const uct_t *u, const term_t *joint, uint64_t *key) {
    const pool_t *p = &u->p;
    if (!u->have_root || p->n_nodes == 0 || p->nodes[0].moff == NIL) return false;
    uint64_t k = 0, radix = 1;
    for (uint32_t r = 0; r < u->nr; r++) {
        uint32_t off = role_off(u, 0, r), n = p->cnt[r], j;
        for (j = 0; j < n && p->mv[off + j] != joint[r]; j++) {
        }
        if (j == n) return false;
        k += j * radix;
        radix *= n;
    }
    *key = k;
    return true;
}

/* Copies what node `root` reaches into the spare pool (breadth first; a node reached
 * twice, a transposition, is copied once) and swaps. */
static void compact(uct_t *u, uint32_t root) {
    pool_t *p = &u->p, *q = &u->spare;
    uint32_t nr = u->nr;
    /* as large as p, no larger: the memory limit counts the spare pool as p's twin */
    if (q->cap_nodes != p->cap_nodes || q->cap_mv != p->cap_mv || q->cap_edges != p->cap_edges)
        pool_resize(q, nr, p->cap_nodes, p->cap_mv, p->cap_edges);
    GROW(u->old_of, u->cap_old_of, q->cap_nodes);
    GROW(u->new_of, u->cap_new_of, p->cap_nodes);
    for (size_t i = 0; i < p->n_nodes; i++)
        u->new_of[i] = NIL;
    q->n_nodes = q->n_mv = q->n_edges = 0;
#define COPY_NODE(dst, src)                                                                        \
    do {                                                                                           \
        q->nodes[dst] = p->nodes[src];                                                             \
        q->nodes[dst].first = NIL;                                                                 \
        memcpy(&q->cnt[(size_t)(dst)*nr], &p->cnt[(size_t)(src)*nr], nr * sizeof *q->cnt);         \
        memcpy(&q->lo[(size_t)(dst)*nr], &p->lo[(size_t)(src)*nr], nr);                            \
        memcpy(&q->hi[(size_t)(dst)*nr], &p->hi[(size_t)(src)*nr], nr);                            \
        u->old_of[dst] = src;                                                                      \
        u->new_of[src] = dst;                                                                      \
    } while (0)
    COPY_NODE(0, root);
    q->n_nodes = 1;
    for (size_t i = 0; i < q->n_nodes; i++) {
        uint32_t o = u->old_of[i];
        node_t *on = &p->nodes[o];
        if (on->moff != NIL) {
            size_t len = 0;
            for (uint32_t r = 0; r < nr; r++)
                len += p->cnt[(size_t)o * nr + r];
            memcpy(&q->mv[q->n_mv], &p->mv[on->moff], len * sizeof *q->mv);
            memcpy(&q->ms[q->n_mv], &p->ms[on->moff], len * sizeof *q->ms);
            q->nodes[i].moff = (uint32_t)q->n_mv;
            q->n_mv += len;
        }
        uint32_t tail = NIL;
        for (uint32_t e = on->first; e != NIL; e = p->edges[e].next) {
            uint32_t c = p->edges[e].child;
            if (u->new_of[c] == NIL) {
                uint32_t d = (uint32_t)q->n_nodes++;
                COPY_NODE(d, c);
            }
            uint32_t f = (uint32_t)q->n_edges++;
            q->edges[f] = (edge_t){p->edges[e].key, u->new_of[c], NIL};
            if (tail == NIL)
                q->nodes[i].first = f;
            else
                q->edges[tail].next = f;
            tail = f;
        }
    }
#undef COPY_NODE
    pool_t t = *p;
    *p = *q;
    *q = t;
    if (u->transpose) tt_rebuild(p);
}

void uct_advance(uct_t *u, const term_t *joint) {
    uct_ponder_stop(u);
    if (u->helper) uct_advance(u->helper, joint);
    if (!u->have_root) return;
    uint64_t key;
    uint32_t c = root_key(u, joint, &key) ? find_child(u, 0, key) : NIL;
    engine_next(u->e, u->root_state, joint, u->sa);
    engine_state_copy(u->root_state, u->sa);
    if (u->line_on) bestline_advance(&u->line, joint[0]);
    if (c != NIL)
        compact(u, c);
    else
        fresh_root(u);
}

void uct_stats(const uct_t *u, uct_stats_t *out) {
    *out = u->st;
    if (u->helper) { /* the work of both threads */
        const uct_stats_t *h = &u->helper->st;
        out->iterations += h->iterations, out->rollouts += h->rollouts;
        out->rollout_steps += h->rollout_steps, out->rollout_capped += h->rollout_capped;
        out->proven_backups += h->proven_backups, out->terminal_leaves += h->terminal_leaves;
        out->memory_full += h->memory_full, out->dropped_rollouts += h->dropped_rollouts;
        out->repeats += h->repeats, out->rollout_cut += h->rollout_cut;
        out->hook_calls += h->hook_calls, out->hook_hits += h->hook_hits;
        out->hook_hits_win += h->hook_hits_win, out->hook_hits_loss += h->hook_hits_loss;
        out->hook_hits_other += h->hook_hits_other, out->hook_seconds += h->hook_seconds;
        out->sim_proven += h->sim_proven, out->sim_secured += h->sim_secured;
        out->sep_nodes += h->sep_nodes;
    }
    out->avg_rollout_len = out->rollouts ? (double)out->rollout_steps / out->rollouts : 0;
    out->nodes = u->have_root ? u->p.n_nodes : 0;
    out->node_capacity = u->p.cap_nodes;
    out->memory_bytes = tree_bytes(u->nr, u->p.cap_nodes, u->p.cap_mv, u->p.cap_edges);
    out->memory_limit = u->mem_limit;
    out->best_line = u->line.value;
    if (u->helper && !u->helper->shared && u->helper->line.value > out->best_line)
        out->best_line = u->helper->line.value;
    out->root_visits = 0;
    out->root_value = 0;
    out->root_proven = false;
    if (u->have_root && u->p.n_nodes) {
        const node_t *n = &u->p.nodes[0];
        out->root_visits = n->visits;
        out->root_proven = n->proven;
        if (n->proven)
            out->root_value = u->p.lo[u->role];
        else if (n->visits)
            out->root_value = 100.0 * n->vsum / n->visits;
    }
}

void uct_reset_stats(uct_t *u) {
    if (u->helper) uct_reset_stats(u->helper);
    memset(&u->st, 0, sizeof u->st);
}

uint32_t uct_child_visits(const uct_t *u, const term_t *joint) {
    uint64_t key;
    if (!root_key(u, joint, &key)) return 0;
    uint32_t c = find_child(u, 0, key);
    return c == NIL ? 0 : u->p.nodes[c].visits;
}

bool uct_root_move(const uct_t *u, term_t move, uint32_t *visits, double *mean) {
    const pool_t *p = &u->p;
    *visits = 0;
    *mean = 0;
    if (!u->have_root || p->n_nodes == 0 || p->nodes[0].moff == NIL) return false;
    uint32_t off = role_off(u, 0, u->role), n = p->cnt[u->role];
    for (uint32_t k = 0; k < n; k++)
        if (p->mv[off + k] == move) {
            const mstat_t *m = &p->ms[off + k];
            *visits = m->visits;
            *mean = m->visits ? 100 * m->sum / m->visits : 0;
            return true;
        }
    return false;
}
