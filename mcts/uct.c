/* UCT Monte-Carlo tree search: decoupled UCB1 per role, a node pool with compaction on
 * re-rooting, MCTS-Solver style proven values, random rollouts with an early-termination
 * hook. See uct.h and docs/mcts.md. */
#include "mcts/uct.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/rng.h"
#include "base/util.h"

#define NIL UINT32_MAX
#define INITIAL_NODES (1u << 16)
#define INITIAL_MOVES (1u << 18)
#define MIN_NODES 1024 /* the smallest pool a memory limit can ask for */

typedef struct {
    uint64_t key;         /* joint move from the parent, mixed radix over the parent's counts */
    uint32_t first, next; /* first child, next sibling */
    uint32_t visits;
    uint32_t moff; /* offset of the move lists in mv/ms; NIL when not expanded */
    double vsum;   /* sum of the searching role's values, in [0,1] */
    uint8_t terminal, proven;
} node_t;

typedef struct {
    uint32_t visits;
    double sum; /* in [0,1] */
} mstat_t;

/* One pool: nodes with per-role arrays (move counts, proven values), and the move arena. */
typedef struct {
    node_t *nodes;
    uint16_t *cnt; /* cap_nodes * nr: legal move counts per role */
    uint8_t *pv;   /* cap_nodes * nr: proven values per role */
    size_t n_nodes, cap_nodes;
    term_t *mv;
    mstat_t *ms;
    size_t n_mv, cap_mv;
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
    uint32_t cap;
    size_t mem_limit; /* bytes for both pools; 0: none */
    double deadline;  /* of the current uct_choose (0: none); a rollout past it is dropped */
    bool dropped;     /* the current iteration's rollout ran past the deadline */
    uct_rollout_hook_t hook;
    uct_state_hook_t state_hook; /* instead of hook: called on engine states */
    void *hook_ctx;

    pool_t p, spare;  /* spare: the target of compaction, swapped in afterwards */
    uint32_t *old_of; /* compaction: old index of each new node */
    size_t cap_old_of;

    bool have_root;
    eng_state_t *root_state, *sa, *sb, *asked; /* asked: the state uct_choose was given */
    state_t hook_state;                        /* a rollout state as terms, for the hook */
    term_t *joint;
    uint32_t *sel;
    int *val;
    uint32_t *path, *path_sel;
    size_t cap_path, cap_path_sel;

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

/* While both threads share a tree, every access to it holds the main search's lock. */
static void tree_lock(struct uct *u) {
    if (T(u)->tree_active) pthread_mutex_lock(&T(u)->lock);
}
static void tree_unlock(struct uct *u) {
    if (T(u)->tree_active) pthread_mutex_unlock(&T(u)->lock);
}

/* ---- pool ---- */

/* Grows the pool to exactly `need` (capacity_for chose it: doubling again here would pass
 * the memory limit, up to twice over). */
static void pool_reserve_nodes(pool_t *p, uint32_t nr, size_t need) {
    if (need <= p->cap_nodes) return;
    size_t cap = need;
    p->nodes = xrealloc(p->nodes, cap * sizeof *p->nodes);
    p->cnt = xrealloc(p->cnt, cap * nr * sizeof *p->cnt);
    p->pv = xrealloc(p->pv, cap * nr * sizeof *p->pv);
    p->cap_nodes = cap;
}

static void pool_reserve_moves(pool_t *p, size_t need) {
    if (need <= p->cap_mv) return;
    size_t cap = need;
    p->mv = xrealloc(p->mv, cap * sizeof *p->mv);
    p->ms = xrealloc(p->ms, cap * sizeof *p->ms);
    p->cap_mv = cap;
}

/* Bytes of the search tree with these capacities: the pool, the spare pool compaction
 * copies into (as large) and compaction's index. */
static size_t tree_bytes(uint32_t nr, size_t cap_nodes, size_t cap_mv) {
    size_t per_node = sizeof(node_t) + nr * (sizeof(uint16_t) + sizeof(uint8_t));
    size_t per_move = sizeof(term_t) + sizeof(mstat_t);
    return 2 * (cap_nodes * per_node + cap_mv * per_move) + cap_nodes * sizeof(uint32_t);
}

/* The capacity to grow the pool's nodes (or moves) to so that it holds `need`: doubling,
 * but no further than the memory limit allows; 0 when `need` does not fit. */
static size_t capacity_for(const uct_t *u, bool nodes, size_t need) {
    const pool_t *p = &CT(u)->p;
    size_t cap = nodes ? p->cap_nodes : p->cap_mv;
    while (cap < need)
        cap *= 2;
    if (!CT(u)->mem_limit) return cap;
    size_t fixed = nodes ? tree_bytes(u->nr, 0, p->cap_mv) : tree_bytes(u->nr, p->cap_nodes, 0);
    size_t each = nodes ? tree_bytes(u->nr, 1, 0) : tree_bytes(u->nr, 0, 1);
    if (fixed >= CT(u)->mem_limit) return 0;
    size_t fit = (CT(u)->mem_limit - fixed) / each;
    if (cap > fit) cap = fit;
    return cap >= need ? cap : 0;
}

/* Makes room for `need` nodes (or moves) in the pool; false when the limit forbids it. */
static bool room_for(uct_t *u, bool nodes, size_t need) {
    pool_t *p = &T(u)->p;
    if (need <= (nodes ? p->cap_nodes : p->cap_mv)) return true;
    size_t cap = capacity_for(u, nodes, need);
    if (!cap) return false;
    if (nodes)
        pool_reserve_nodes(p, u->nr, cap);
    else
        pool_reserve_moves(p, cap);
    return true;
}

/* Sets the capacities to exactly these (the pool must hold no more than they allow). */
static void pool_resize(pool_t *p, uint32_t nr, size_t nodes, size_t moves) {
    p->nodes = xrealloc(p->nodes, nodes * sizeof *p->nodes);
    p->cnt = xrealloc(p->cnt, nodes * nr * sizeof *p->cnt);
    p->pv = xrealloc(p->pv, nodes * nr * sizeof *p->pv);
    p->mv = xrealloc(p->mv, moves * sizeof *p->mv);
    p->ms = xrealloc(p->ms, moves * sizeof *p->ms);
    p->cap_nodes = nodes;
    p->cap_mv = moves;
}

static void pool_free(pool_t *p) {
    free(p->nodes);
    free(p->cnt);
    free(p->pv);
    free(p->mv);
    free(p->ms);
}

/* A new node (NIL when the memory limit leaves no room for it). */
static uint32_t new_node(uct_t *u, uint64_t key) {
    pool_t *p = &T(u)->p;
    if (!room_for(u, true, p->n_nodes + 1)) return NIL;
    uint32_t i = (uint32_t)p->n_nodes++;
    node_t *n = &p->nodes[i];
    memset(n, 0, sizeof *n);
    n->key = key;
    n->first = n->next = NIL;
    n->moff = NIL;
    memset(&p->cnt[(size_t)i * u->nr], 0, u->nr * sizeof *p->cnt);
    memset(&p->pv[(size_t)i * u->nr], 0, u->nr * sizeof *p->pv);
    return i;
}

static void set_proven(uct_t *u, uint32_t i, const int *val) {
    T(u)->p.nodes[i].proven = 1;
    for (uint32_t r = 0; r < u->nr; r++)
        T(u)->p.pv[(size_t)i * u->nr + r] = (uint8_t)val[r];
}

/* Offset of role r's moves of node i. */
static uint32_t role_off(const uct_t *u, uint32_t i, uint32_t r) {
    uint32_t off = CT(u)->p.nodes[i].moff;
    const uint16_t *cnt = &CT(u)->p.cnt[(size_t)i * u->nr];
    for (uint32_t j = 0; j < r; j++)
        off += cnt[j];
    return off;
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

/* Computes the legal moves of node i in state s. A role without legal moves makes the
 * node terminal (a malformed game: scored by its goals). False when the memory limit
 * leaves no room for the moves (the node stays a leaf). */
static bool expand(uct_t *u, uint32_t i, const eng_state_t *s) {
    pool_t *p = &T(u)->p;
    uint32_t moff = (uint32_t)p->n_mv;
    for (uint32_t r = 0; r < u->nr; r++) {
        const term_t *m;
        uint32_t n = engine_legal(u->e, s, r, &m);
        if (n > UINT16_MAX) die("uct: more than %u legal moves", UINT16_MAX);
        if (!room_for(u, false, p->n_mv + n)) {
            p->n_mv = moff;
            return false;
        }
        memcpy(&p->mv[p->n_mv], m, n * sizeof *m);
        memset(&p->ms[p->n_mv], 0, n * sizeof *p->ms);
        p->n_mv += n;
        p->cnt[(size_t)i * u->nr + r] = (uint16_t)n;
        if (n == 0) {
            p->nodes[i].terminal = 1;
            int *val = u->val;
            goals(u, s, val);
            set_proven(u, i, val);
        }
    }
    p->nodes[i].moff = moff;
    return true;
}

static uint32_t find_child(const uct_t *u, uint32_t i, uint64_t key) {
    for (uint32_t c = CT(u)->p.nodes[i].first; c != NIL; c = CT(u)->p.nodes[c].next)
        if (CT(u)->p.nodes[c].key == key) return c;
    return NIL;
}

/* UCB1 choice of role r's move at node i. */
static uint32_t select_move(uct_t *u, uint32_t i, uint32_t r) {
    pool_t *p = &T(u)->p;
    uint32_t n = p->cnt[(size_t)i * u->nr + r];
    if (n <= 1) return 0;
    uint32_t off = role_off(u, i, r);
    const mstat_t *ms = &p->ms[off];
    uint32_t unvisited = 0;
    for (uint32_t k = 0; k < n; k++)
        unvisited += ms[k].visits == 0;
    if (unvisited) {
        uint32_t pick = (uint32_t)(splitmix_next(&u->rng) % unvisited);
        for (uint32_t k = 0; k < n; k++)
            if (ms[k].visits == 0 && pick-- == 0) return k;
    }
    double logn = log((double)p->nodes[i].visits);
    uint32_t best = 0;
    double best_v = -1.0;
    for (uint32_t k = 0; k < n; k++) {
        double v = ms[k].sum / ms[k].visits + u->c * sqrt(logn / ms[k].visits);
        if (v > best_v) {
            best_v = v;
            best = k;
        }
    }
    return best;
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
    if (!u->hook && !u->state_hook && engine_kind(u->e) != ENGINE_INTERP) {
        steps = engine_playout(u->e, a, &u->rng, u->cap, val);
        for (uint32_t r = 0; r < u->nr; r++)
            if (val[r] < 0) val[r] = 0;
        if (steps >= u->cap && !engine_terminal(u->e, a)) u->st.rollout_capped++;
        u->st.rollouts++;
        u->st.rollout_steps += steps;
        return false;
    }
    for (;;) {
        if (engine_terminal(u->e, a)) {
            goals(u, a, val);
            break;
        }
        if (u->hook || u->state_hook) {
            double t0 = now_seconds();
            int v;
            if (u->state_hook) {
                v = u->state_hook(u->hook_ctx, a);
            } else {
                engine_state_terms(u->e, a, &u->hook_state);
                v = u->hook(u->hook_ctx, &u->hook_state);
            }
            u->st.hook_seconds += now_seconds() - t0;
            u->st.hook_calls++;
            if (v >= 0) {
                if (v > 100) v = 100;
                u->st.hook_hits++;
                if (v == 100)
                    u->st.hook_hits_win++;
                else if (v == 0)
                    u->st.hook_hits_loss++;
                else
                    u->st.hook_hits_other++;
                hook_values(u, v, val);
                leaf_hit = steps == 0;
                break;
            }
        }
        if (u->deadline > 0 && now_seconds() > u->deadline) {
            u->dropped = true;
            return false;
        }
        if (steps >= u->cap) {
            u->st.rollout_capped++;
            goals(u, a, val);
            break;
        }
        if (!engine_random_joint(u->e, a, &u->rng, u->joint)) { /* a role without moves */
            goals(u, a, val);
            break;
        }
        engine_next(u->e, a, u->joint, b);
        eng_state_t *t = a;
        a = b;
        b = t;
        steps++;
    }
    u->st.rollouts++;
    u->st.rollout_steps += steps;
    return leaf_hit;
}

/* Tries to prove node i from its children: when nobody has a choice, the only child; when
 * a single role has one (games of one or two roles), a child worth 100 to it, or the best
 * child once all are proven. */
static bool try_prove(uct_t *u, uint32_t i) {
    pool_t *p = &T(u)->p;
    node_t *n = &p->nodes[i];
    if (n->proven) return true;
    if (n->moff == NIL) return false;
    const uint16_t *cnt = &p->cnt[(size_t)i * u->nr];
    uint32_t movers = 0, mover = 0;
    for (uint32_t r = 0; r < u->nr; r++)
        if (cnt[r] > 1) {
            movers++;
            mover = r;
        }
    if (movers > 1 || (movers == 1 && u->nr > 2)) return false;
    uint32_t proven = 0, best = NIL;
    for (uint32_t c = n->first; c != NIL; c = p->nodes[c].next) {
        if (!p->nodes[c].proven) continue;
        proven++;
        uint8_t v = p->pv[(size_t)c * u->nr + mover];
        if (best == NIL || v > p->pv[(size_t)best * u->nr + mover]) best = c;
        if (v == 100) break;
    }
    if (best == NIL) return false;
    uint32_t need = movers ? cnt[mover] : 1;
    if (p->pv[(size_t)best * u->nr + mover] != 100 && proven < need) return false;
    n->proven = 1;
    memcpy(&p->pv[(size_t)i * u->nr], &p->pv[(size_t)best * u->nr], u->nr * sizeof *p->pv);
    return true;
}

static void push_path(uct_t *u, size_t depth, uint32_t node) {
    GROW(u->path, u->cap_path, depth + 1);
    u->path[depth] = node;
    if (T(u)->tree_active) T(u)->p.nodes[node].visits++; /* virtual loss: a visit worth 0 */
}

/* Rolls out from a (see rollout) without the tree's lock: the other thread may use the
 * tree meanwhile (it may grow and move; indices stay valid). */
static bool rollout_unlocked(uct_t *u, eng_state_t *a, eng_state_t *b) {
    tree_unlock(u);
    bool hit = rollout(u, a, b);
    tree_lock(u);
    return hit;
}

/* Adds the iteration's values to the path: node values of path[0..depth], and move
 * statistics of the first n_sel nodes (those where moves were selected). With a virtual
 * loss the visits were counted at selection; a dropped rollout takes them back. */
static void backup(uct_t *u, size_t depth, size_t n_sel, bool dropped) {
    pool_t *p = &T(u)->p;
    uint32_t nr = u->nr;
    bool vl = T(u)->tree_active;
    for (size_t d = 0; d <= depth; d++) {
        uint32_t n = u->path[d];
        if (dropped) {
            if (vl) p->nodes[n].visits--;
        } else {
            p->nodes[n].visits += !vl;
            p->nodes[n].vsum += u->val[u->role] / 100.0;
        }
        if (d >= n_sel) break;
        for (uint32_t r = 0; r < nr; r++) {
            mstat_t *m = &p->ms[role_off(u, n, r) + u->path_sel[d * nr + r]];
            if (dropped) {
                if (vl) m->visits--;
            } else {
                m->visits += !vl;
                m->sum += u->val[r] / 100.0;
            }
        }
    }
}

/* Selects the moves of every role at node i (the path's node at depth) into u->joint,
 * with their key among i's children; a virtual loss on them when the tree is shared. */
static uint64_t select_joint(uct_t *u, uint32_t i, size_t depth) {
    pool_t *p = &T(u)->p;
    uint32_t nr = u->nr;
    uint64_t key = 0, radix = 1;
    GROW(u->path_sel, u->cap_path_sel, (depth + 1) * nr);
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t k = select_move(u, i, r);
        u->sel[r] = k;
        u->path_sel[depth * nr + r] = k;
        u->joint[r] = p->mv[role_off(u, i, r) + k];
        if (T(u)->tree_active) p->ms[role_off(u, i, r) + k].visits++;
        key += k * radix;
        radix *= p->cnt[(size_t)i * nr + r];
    }
    return key;
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
    tree_lock(u);
    push_path(u, 0, 0);
    for (;;) {
        if (p->nodes[i].moff == NIL && !p->nodes[i].proven && !expand(u, i, cur)) {
            full = true;
            rollout_unlocked(u, cur, nxt); /* from the leaf, which stays one */
            break;
        }
        if (p->nodes[i].proven) {
            for (uint32_t r = 0; r < u->nr; r++)
                val[r] = p->pv[(size_t)i * u->nr + r];
            u->st.proven_backups++;
            leaf_proven = true;
            break;
        }
        uint64_t key = select_joint(u, i, depth);
        n_sel++;
        engine_next(u->e, cur, u->joint, nxt);
        eng_state_t *t = cur;
        cur = nxt;
        nxt = t;
        uint32_t c = find_child(u, i, key);
        if (c != NIL) {
            i = c;
            push_path(u, ++depth, i);
            continue;
        }
        c = new_node(u, key); /* may move p->nodes */
        if (c == NIL) {       /* no room: score the move's state without keeping a node for it */
            full = true;
            if (engine_terminal(u->e, cur))
                goals(u, cur, val);
            else
                rollout_unlocked(u, cur, nxt);
            break;
        }
        p->nodes[c].next = p->nodes[i].first;
        p->nodes[i].first = c;
        push_path(u, ++depth, c);
        if (engine_terminal(u->e, cur)) {
            p->nodes[c].terminal = 1;
            goals(u, cur, val);
            set_proven(u, c, val);
            u->st.terminal_leaves++;
            leaf_proven = true;
        } else if (rollout_unlocked(u, cur, nxt)) {
            set_proven(u, c, val);
            leaf_proven = true;
        }
        break;
    }
    backup(u, depth, n_sel, u->dropped);
    if (u->dropped) { /* nothing learnt (a new leaf just stays unvisited) */
        tree_unlock(u);
        u->dropped = false;
        u->st.dropped_rollouts++;
        return;
    }
    if (leaf_proven)
        for (size_t d = depth; d-- > 0;)
            if (!try_prove(u, u->path[d])) break;
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
    if (role >= u->nr) die("uct: role %u out of range", role);
    u->rng.s = seed;
    u->c = 1.4;
    u->cap = 10000;
    u->mem_limit = uct_default_memory_limit();
    pthread_mutex_init(&u->lock, NULL);
    u->root_state = engine_state_new(e);
    u->sa = engine_state_new(e);
    u->sb = engine_state_new(e);
    u->asked = engine_state_new(e);
    state_init(&u->hook_state);
    u->joint = xcalloc(u->nr, sizeof *u->joint);
    u->sel = xcalloc(u->nr, sizeof *u->sel);
    u->val = xcalloc(u->nr, sizeof *u->val);
    pool_reserve_nodes(&u->p, u->nr, INITIAL_NODES);
    pool_reserve_moves(&u->p, INITIAL_MOVES);
    return u;
}

void uct_free(uct_t *u) {
    if (!u) return;
    uct_free(u->helper);
    pthread_mutex_destroy(&u->lock);
    pool_free(&u->p);
    pool_free(&u->spare);
    free(u->old_of);
    engine_state_free(u->root_state);
    engine_state_free(u->sa);
    engine_state_free(u->sb);
    engine_state_free(u->asked);
    state_fini(&u->hook_state);
    if (u->owns_engine) engine_free(u->e);
    free(u->joint);
    free(u->sel);
    free(u->val);
    free(u->path);
    free(u->path_sel);
    free(u);
}

void uct_set_exploration(uct_t *u, double c) {
    u->c = c;
    if (u->helper) u->helper->c = c;
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
        size_t nodes = p->cap_nodes, moves = p->cap_mv;
        while (nodes > MIN_NODES && tree_bytes(u->nr, nodes, moves) > bytes) {
            nodes /= 2;
            moves /= 2;
        }
        if (nodes != p->cap_nodes) pool_resize(p, u->nr, nodes, moves);
    }
    size_t least = tree_bytes(u->nr, p->cap_nodes, p->cap_mv);
    u->mem_limit = bytes && bytes < least ? least : bytes;
}

void uct_set_hook(uct_t *u, uct_rollout_hook_t hook, void *ctx) {
    u->hook = hook;
    u->state_hook = NULL;
    u->hook_ctx = ctx;
}

void uct_set_state_hook(uct_t *u, uct_state_hook_t hook, void *ctx) {
    u->state_hook = hook;
    u->hook = NULL;
    u->hook_ctx = ctx;
}

void uct_clear(uct_t *u) {
    if (u->helper) uct_clear(u->helper);
    u->p.n_nodes = 0;
    u->p.n_mv = 0;
    u->have_root = false;
}

/* A fresh tree rooted at u->root_state. */
static void fresh_root(uct_t *u) {
    u->p.n_nodes = 0;
    u->p.n_mv = 0;
    new_node(u, 0);
    u->have_root = true;
}

/* Makes u's root the state s (keeping the tree when it is the same); false when s is
 * terminal. */
static bool set_root(uct_t *u, const state_t *s) {
    engine_state_set(u->e, u->asked, s);
    if (!u->have_root || !engine_state_equal(u->root_state, u->asked)) {
        engine_state_copy(u->root_state, u->asked);
        fresh_root(u);
    }
    return !engine_terminal(u->e, u->asked);
}

/* Claims the next iteration of the tree's search: false once the bound is reached or the
 * root is proven. */
static bool claim_iteration(uct_t *u, uint32_t max_iterations) {
    uct_t *t = T(u);
    tree_lock(u);
    bool go = !(max_iterations && t->tree_iters >= max_iterations) && !t->p.nodes[0].proven;
    t->tree_iters += go;
    tree_unlock(u);
    return go;
}

/* Iterations on u's tree (or the shared one) within the bounds. */
static void search_loop(uct_t *u, double seconds, uint32_t max_iterations) {
    if (seconds <= 0 && max_iterations == 0) max_iterations = 10000;
    double deadline = now_seconds() + seconds;
    u->deadline = seconds > 0 ? deadline : 0;
    for (uint32_t it = 0;; it++) {
        if (it && seconds > 0 && now_seconds() >= deadline) break;
        if (!claim_iteration(u, max_iterations)) break;
        iterate(u);
    }
}

/* Iterations from s within the bounds; false when s is terminal. */
static bool search(uct_t *u, const state_t *s, double seconds, uint32_t max_iterations) {
    if (!set_root(u, s)) return false;
    u->tree_iters = 0;
    search_loop(u, seconds, max_iterations);
    return true;
}

typedef struct {
    uct_t *u;
    const state_t *s;
    double seconds;
    uint32_t max_iterations;
} search_job_t;

static void *search_main(void *arg) {
    search_job_t *j = arg;
    if (j->u->shared)
        search_loop(j->u, j->seconds, j->max_iterations);
    else
        search(j->u, j->s, j->seconds, j->max_iterations);
    return NULL;
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
    if (u->parallel == mode) return;
    u->parallel = mode;
    if (!u->helper) return;
    uint32_t threads = 2; /* a helper of the other kind is made afresh */
    uct_set_threads(u, 1);
    uct_set_threads(u, threads);
}

bool uct_set_threads(uct_t *u, uint32_t threads) {
    if (threads <= 1) {
        uct_free(u->helper);
        u->helper = NULL;
        return true;
    }
    if (threads > 2 || engine_kind(u->e) == ENGINE_INTERP) return false;
    if (u->helper) return true;
    u->helper = uct_new(engine_clone(u->e), u->role, u->rng.s ^ 0x9e3779b97f4a7c15ull);
    u->helper->owns_engine = true;
    u->helper->c = u->c, u->helper->cap = u->cap;
    u->helper->mem_limit = u->mem_limit; /* each tree under the cap: twice it in all */
    if (u->parallel == UCT_PARALLEL_TREE) make_tree_helper(u);
    return true;
}

/* Both threads on u's tree from s; false when s is terminal. */
static bool search_tree_parallel(uct_t *u, const state_t *s, double seconds,
                                 uint32_t max_iterations) {
    if (!set_root(u, s)) return false;
    u->tree_iters = 0;
    u->tree_active = true;
    search_job_t job = {u->helper, s, seconds, max_iterations};
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, search_main, &job) == 0;
    if (!threaded) u->tree_active = false;
    search_loop(u, seconds, max_iterations);
    if (threaded) pthread_join(th, NULL);
    u->tree_active = false;
    return true;
}

term_t uct_choose(uct_t *u, const state_t *s, double seconds, uint32_t max_iterations) {
    /* the helper searches on its own thread unless a hook is set (hooks are not
     * thread-safe): on its own tree, whose root visits are added to ours when the move is
     * chosen, or on ours */
    uct_t *h = u->hook || u->state_hook ? NULL : u->helper;
    bool live, threaded = false;
    if (h && h->shared) {
        live = search_tree_parallel(u, s, seconds, max_iterations);
        h = NULL;
    } else {
        search_job_t job = {h, s, seconds, max_iterations};
        pthread_t th;
        threaded = h && pthread_create(&th, NULL, search_main, &job) == 0;
        live = search(u, s, seconds, max_iterations);
        if (threaded) pthread_join(th, NULL);
    }
    if (!threaded) h = NULL;
    if (!live) return TERM_NONE;
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
    /* Is the role the only one with a choice? Then child keys are its move indices and
     * proven children tell wins and losses apart. */
    bool alone = true;
    for (uint32_t r = 0; r < nr; r++)
        if (r != role && cnt[r] > 1) alone = false;
    uint32_t best = 0;
    int best_class = -1;
    double best_visits = -1, best_mean = -1;
    for (uint32_t k = 0; k < n; k++) {
        int cls = 1; /* 2: proven best, 1: unknown, 0: proven worse */
        if (alone) {
            uint32_t c = find_child(u, 0, k);
            if (c != NIL && p->nodes[c].proven) {
                uint8_t v = p->pv[(size_t)c * nr + role];
                if (v == 100 || (p->nodes[0].proven && v == p->pv[role]))
                    cls = 2;
                else if (v == 0 || p->nodes[0].proven)
                    cls = 0;
            }
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
    return p->mv[off + best];
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

/* Copies the subtree of node `root` into the spare pool (breadth first) and swaps. */
static void compact(uct_t *u, uint32_t root) {
    pool_t *p = &u->p, *q = &u->spare;
    uint32_t nr = u->nr;
    /* as large as p, no larger: the memory limit counts the spare pool as p's twin */
    if (q->cap_nodes != p->cap_nodes || q->cap_mv != p->cap_mv)
        pool_resize(q, nr, p->cap_nodes, p->cap_mv);
    if (u->cap_old_of < q->cap_nodes) {
        u->old_of = xrealloc(u->old_of, q->cap_nodes * sizeof *u->old_of);
        u->cap_old_of = q->cap_nodes;
    }
    q->n_nodes = 0;
    q->n_mv = 0;
#define COPY_NODE(dst, src)                                                                        \
    do {                                                                                           \
        q->nodes[dst] = p->nodes[src];                                                             \
        q->nodes[dst].first = q->nodes[dst].next = NIL;                                            \
        memcpy(&q->cnt[(size_t)(dst)*nr], &p->cnt[(size_t)(src)*nr], nr * sizeof *q->cnt);         \
        memcpy(&q->pv[(size_t)(dst)*nr], &p->pv[(size_t)(src)*nr], nr * sizeof *q->pv);            \
        u->old_of[dst] = src;                                                                      \
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
        for (uint32_t c = on->first; c != NIL; c = p->nodes[c].next) {
            uint32_t d = (uint32_t)q->n_nodes++;
            COPY_NODE(d, c);
            if (tail == NIL)
                q->nodes[i].first = d;
            else
                q->nodes[tail].next = d;
            tail = d;
        }
    }
#undef COPY_NODE
    pool_t t = *p;
    *p = *q;
    *q = t;
}

void uct_advance(uct_t *u, const term_t *joint) {
    if (u->helper) uct_advance(u->helper, joint);
    if (!u->have_root) return;
    uint64_t key;
    uint32_t c = root_key(u, joint, &key) ? find_child(u, 0, key) : NIL;
    engine_next(u->e, u->root_state, joint, u->sa);
    engine_state_copy(u->root_state, u->sa);
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
    }
    out->avg_rollout_len = out->rollouts ? (double)out->rollout_steps / out->rollouts : 0;
    out->nodes = u->have_root ? u->p.n_nodes : 0;
    out->node_capacity = u->p.cap_nodes;
    out->memory_bytes = tree_bytes(u->nr, u->p.cap_nodes, u->p.cap_mv);
    out->memory_limit = u->mem_limit;
    out->root_visits = 0;
    out->root_value = 0;
    out->root_proven = false;
    if (u->have_root && u->p.n_nodes) {
        const node_t *n = &u->p.nodes[0];
        out->root_visits = n->visits;
        out->root_proven = n->proven;
        if (n->proven)
            out->root_value = u->p.pv[u->role];
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
