/* Alpha-beta search: see ab.h. */
#include "mcts/ab.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/opts.h"
#include "base/rng.h"

#define AB_INF 1000
#define DEPTH_PROVEN 255       /* a table entry no depth cut influenced */
#define DEPTH_MAX 254          /* iterations go at most this deep */
#define NO_INDEX 0xFFFFu       /* no move or reply recorded */
#define ORDER_MAX 65536u       /* joint replies ordered at most (more: the engine's order) */
#define JOINT_MAX (1ull << 40) /* joint replies counted at most (no search gets that far) */
#define HIST_CAP (1ull << 40)
#define CHECK_SECONDS 0.001 /* the deadline is looked at about this often */
/* With the proof hook, a win d joint moves away scores WIN_SCORE - d and a loss LOSS_SCORE
 * + d: above and below every goal and evaluation (0..100, -1) for any d the search meets
 * (ply <= DEPTH_MAX, steps <= STEPS_MAX), within +-AB_INF and a table entry's int16 */
#define WIN_SCORE 612
#define LOSS_SCORE (-512)
#define STEPS_MAX 256u

enum { BOUND_NONE, BOUND_LOWER, BOUND_UPPER, BOUND_EXACT };

/* 16 bytes: the key, the value, the depth it was searched to, the bound and the age of
 * the search that stored it, the best move of the role and the others' best reply to it
 * (indices in the engine's order of the state's legal moves). */
typedef struct {
    uint64_t key;
    int16_t value;
    uint8_t depth;
    uint8_t bound_gen; /* bound in the low 2 bits, generation in the rest */
    uint16_t move, reply;
} tt_entry_t;

/* What one ply of the search keeps: every role's legal moves, the orders, the child. */
typedef struct {
    term_t **moves;   /* per role, copied from the engine */
    uint32_t *n;      /* per role */
    size_t *cap;      /* per role */
    uint64_t n_joint; /* joint replies of the others */
    uint32_t *order, *rorder;
    uint64_t *keys;
    size_t order_cap, rorder_cap, keys_cap;
    term_t *joint;
    eng_state_t *child;
} frame_t;

struct ab {
    engine_t *e;
    uint32_t role, n_roles;
    ab_opts_t o;
    splitmix_t rng;
    ab_eval_t eval;
    void *eval_ctx;
    ab_proven_t proof; /* the proof hook (NULL: none; scores by distance when set) */
    void *proof_ctx;
    tt_entry_t *tt;
    uint64_t tt_mask; /* entries - 1 (a power of two) */
    uint8_t gen;
    uint64_t **hist; /* per role, by term id */
    size_t *hist_cap;
    frame_t **frames;
    size_t n_frames;
    eng_state_t *scratch; /* playouts */
    int *goals;
    /* per search */
    double deadline, next_check, last_check;
    uint64_t check_every, since_check;
    bool aborted;
    uint64_t nodes, leaves, tt_hits, tt_cuts, loads, proofs;
    uint32_t pv;        /* the root move of the last iteration (index), NO_INDEX */
    uint32_t iter_move; /* the root's best so far in this iteration */
    uint32_t iter_rank; /* its place in the root's order */
    int iter_value;
    term_t root_move; /* ab_search_move: the role's only move at the root; else TERM_NONE */
};

/* ---------------- options ---------------- */

void ab_default_opts(ab_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->tt = o->history = o->pvs = o->id = true;
    o->tt_mb = 16;
    o->eval = AB_EVAL_PLAYOUT;
    o->playouts = 2;
    o->playout_cap = 1000;
}

bool ab_opt_set(ab_opts_t *o, const char *key, const char *val) {
    if (!strcmp(key, "tt")) return opts_onoff(val, &o->tt);
    if (!strcmp(key, "history")) return opts_onoff(val, &o->history);
    if (!strcmp(key, "pvs")) return opts_onoff(val, &o->pvs);
    if (!strcmp(key, "id")) return opts_onoff(val, &o->id);
    if (!strcmp(key, "depth")) return opts_u32(val, 0, DEPTH_MAX, &o->max_depth);
    if (!strcmp(key, "ttmb")) return opts_u32(val, 1, 65536, &o->tt_mb);
    if (!strcmp(key, "playouts")) return opts_u32(val, 0, 10000, &o->playouts);
    if (!strcmp(key, "cap")) return opts_u32(val, 1, 1000000, &o->playout_cap);
    if (!strcmp(key, "eval")) {
        if (!strcmp(val, "mixed"))
            o->eval = AB_EVAL_MIXED;
        else if (!strcmp(val, "goal"))
            o->eval = AB_EVAL_GOAL;
        else if (!strcmp(val, "playout"))
            o->eval = AB_EVAL_PLAYOUT;
        else
            return false;
        return true;
    }
    return false;
}

typedef struct {
    ab_opts_t *o;
    ab_extra_opt_t extra;
    void *ctx;
    bool proofdepth; /* the bad option was proofdepth=N */
} ab_parse_t;

static bool ab_set(void *ctx, const char *key, const char *val) {
    ab_parse_t *ap = ctx;
    /* ab_opts_t.proof_depth only acts with a proof hook: neither the ab player nor ggp
     * alphabeta has one, so the option would do nothing (mcts+lbs sets it: abproof=N) */
    ap->proofdepth = !strcmp(key, "proofdepth");
    if (ap->proofdepth) return false;
    return ab_opt_set(ap->o, key, val) || (ap->extra && ap->extra(ap->ctx, key, val));
}

bool ab_opts_parse(ab_opts_t *o, const char *text, ab_extra_opt_t extra, const char *extra_help,
                   void *ctx, strbuf_t *err) {
    ab_parse_t ap = {o, extra, ctx, false};
    char help[512];
    snprintf(help, sizeof help, "%s%s%s", AB_OPTS_HELP, extra_help ? ", " : "",
             extra_help ? extra_help : "");
    if (opts_parse(text, "alpha-beta", help, ab_set, &ap, err)) return true;
    if (ap.proofdepth)
        sb_puts(err, "; proofdepth: this alpha-beta has no proof hook (mcts+lbs:bdd=on gives its "
                     "own one: abproof=N)");
    return false;
}

/* ---------------- the search object ---------------- */

static void tt_alloc(ab_t *a) {
    uint64_t n = 1;
    while (n * 2 * sizeof(tt_entry_t) <= (uint64_t)a->o.tt_mb << 20)
        n *= 2;
    /* touched now, so that the first search does not pay for the pages */
    a->tt = xmalloc(n * sizeof *a->tt);
    memset(a->tt, 0, n * sizeof *a->tt);
    a->tt_mask = n - 1;
}

ab_t *ab_new(engine_t *e, uint32_t role, const ab_opts_t *o, uint64_t seed) {
    ab_t *a = xcalloc(1, sizeof *a);
    a->e = e;
    a->role = role;
    a->n_roles = engine_game(e)->n_roles;
    a->o = *o;
    a->rng.s = seed;
    if (a->o.tt) tt_alloc(a);
    a->hist = xcalloc(a->n_roles, sizeof *a->hist);
    a->hist_cap = xcalloc(a->n_roles, sizeof *a->hist_cap);
    a->scratch = engine_state_new(e);
    a->goals = xcalloc(a->n_roles, sizeof *a->goals);
    a->root_move = TERM_NONE;
    return a;
}

static void frame_free(ab_t *a, frame_t *f) {
    for (uint32_t r = 0; r < a->n_roles; r++)
        free(f->moves[r]);
    free(f->moves);
    free(f->n);
    free(f->cap);
    free(f->order);
    free(f->rorder);
    free(f->keys);
    free(f->joint);
    engine_state_free(f->child);
    free(f);
}

void ab_free(ab_t *a) {
    if (!a) return;
    for (size_t i = 0; i < a->n_frames; i++)
        frame_free(a, a->frames[i]);
    free(a->frames);
    for (uint32_t r = 0; r < a->n_roles; r++)
        free(a->hist[r]);
    free(a->hist);
    free(a->hist_cap);
    free(a->tt);
    engine_state_free(a->scratch);
    free(a->goals);
    free(a);
}

void ab_set_eval(ab_t *a, ab_eval_t eval, void *ctx) {
    a->eval = eval;
    a->eval_ctx = ctx;
}

void ab_set_proven(ab_t *a, ab_proven_t proven, void *ctx) {
    a->proof = proven;
    a->proof_ctx = ctx;
    ab_clear(a);
}

void ab_clear(ab_t *a) {
    if (a->tt) memset(a->tt, 0, (a->tt_mask + 1) * sizeof *a->tt);
    for (uint32_t r = 0; r < a->n_roles; r++)
        if (a->hist[r]) memset(a->hist[r], 0, a->hist_cap[r] * sizeof *a->hist[r]);
}

static frame_t *frame_at(ab_t *a, uint32_t ply) {
    if (ply < a->n_frames) return a->frames[ply];
    a->frames = xrealloc(a->frames, (ply + 1) * sizeof *a->frames);
    while (a->n_frames <= ply) {
        frame_t *f = xcalloc(1, sizeof *f);
        f->moves = xcalloc(a->n_roles, sizeof *f->moves);
        f->n = xcalloc(a->n_roles, sizeof *f->n);
        f->cap = xcalloc(a->n_roles, sizeof *f->cap);
        f->joint = xcalloc(a->n_roles, sizeof *f->joint);
        f->child = engine_state_new(a->e);
        a->frames[a->n_frames++] = f;
    }
    return a->frames[ply];
}

/* Copies every role's legal moves in s into f; false when some role has none (a
 * defective game: the state is valued as if terminal). */
static bool load_moves(ab_t *a, frame_t *f, const eng_state_t *s) {
    a->loads++;
    f->n_joint = 1;
    for (uint32_t r = 0; r < a->n_roles; r++) {
        const term_t *m;
        uint32_t n = engine_legal(a->e, s, r, &m);
        if (n == 0) return false;
        GROW(f->moves[r], f->cap[r], n);
        memcpy(f->moves[r], m, n * sizeof *m);
        f->n[r] = n;
        if (r != a->role && f->n_joint < JOINT_MAX) f->n_joint *= n;
    }
    return true;
}

/* At the root of ab_search_move: the role's moves in f cut down to the one given; false
 * when it is not among them. */
static bool restrict_root(ab_t *a, frame_t *f) {
    for (uint32_t i = 0; i < f->n[a->role]; i++)
        if (f->moves[a->role][i] == a->root_move) {
            f->moves[a->role][0] = a->root_move;
            f->n[a->role] = 1;
            return true;
        }
    return false;
}

/* ---------------- table and history ---------------- */

static tt_entry_t *tt_probe(ab_t *a, uint64_t key) {
    tt_entry_t *b = a->tt + (key & a->tt_mask & ~1ull);
    if (b[0].key == key && (b[0].bound_gen & 3)) return &b[0];
    if (b[1].key == key && (b[1].bound_gen & 3)) return &b[1];
    return NULL;
}

/* Two entries per bucket: the first kept for the deeper search (or a newer one), the
 * second always replaced. */
static void tt_store(ab_t *a, uint64_t key, int value, uint32_t depth, int bound, uint32_t move,
                     uint32_t reply) {
    tt_entry_t *b = a->tt + (key & a->tt_mask & ~1ull), *t;
    if (b[0].key == key || !(b[0].bound_gen & 3) || (b[0].bound_gen >> 2) != a->gen ||
        b[0].depth <= depth)
        t = &b[0];
    else
        t = &b[1];
    if (t == &b[0] && b[0].key != key && (b[0].bound_gen & 3)) b[1] = b[0]; /* keep it a while */
    t->key = key;
    t->value = (int16_t)value;
    t->depth = (uint8_t)depth;
    t->bound_gen = (uint8_t)(bound | (a->gen << 2));
    t->move = (uint16_t)(move < NO_INDEX ? move : NO_INDEX);
    t->reply = (uint16_t)(reply < NO_INDEX ? reply : NO_INDEX);
}

static uint64_t hist_get(const ab_t *a, uint32_t role, term_t t) {
    return t < a->hist_cap[role] ? a->hist[role][t] : 0;
}

static void hist_add(ab_t *a, uint32_t role, term_t t, uint32_t depth) {
    if (t >= a->hist_cap[role]) {
        size_t old = a->hist_cap[role];
        GROW(a->hist[role], a->hist_cap[role], (size_t)t + 1);
        memset(a->hist[role] + old, 0, (a->hist_cap[role] - old) * sizeof *a->hist[role]);
    }
    uint64_t *h = &a->hist[role][t];
    *h += (uint64_t)depth * depth;
    if (*h > HIST_CAP) *h = HIST_CAP;
}

/* Older searches count half at each new one. */
static void hist_age(ab_t *a) {
    for (uint32_t r = 0; r < a->n_roles; r++)
        for (size_t i = 0; i < a->hist_cap[r]; i++)
            a->hist[r][i] >>= 1;
}

/* ---------------- ordering ---------------- */

/* Sorts idx[0..n) by keys[] descending (keys distinct: the index is in their low bits). */
static int key_desc(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

#define IDX_BITS 22
static uint64_t sort_key(uint64_t score, uint32_t idx) {
    if (score > HIST_CAP * 2) score = HIST_CAP * 2;
    return score << IDX_BITS | ((1u << IDX_BITS) - 1 - idx);
}

static void sort_keys(uint64_t *keys, uint32_t *idx, uint32_t n) {
    if (n > 16) {
        qsort(keys, n, sizeof *keys, key_desc);
    } else {
        for (uint32_t i = 1; i < n; i++) {
            uint64_t k = keys[i];
            uint32_t j = i;
            for (; j > 0 && keys[j - 1] < k; j--)
                keys[j] = keys[j - 1];
            keys[j] = k;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        idx[i] = (1u << IDX_BITS) - 1 - (uint32_t)(keys[i] & ((1u << IDX_BITS) - 1));
}

/* The role's moves in the order to try: `first` (the table's or the last iteration's),
 * then by history. */
static void order_moves(ab_t *a, frame_t *f, uint32_t first) {
    uint32_t n = f->n[a->role];
    GROW(f->order, f->order_cap, n);
    for (uint32_t i = 0; i < n; i++)
        f->order[i] = i;
    if (!a->o.history && (first == NO_INDEX || first >= n)) return;
    GROW(f->keys, f->keys_cap, n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = a->o.history ? hist_get(a, a->role, f->moves[a->role][i]) : 0;
        f->keys[i] = sort_key(i == first ? HIST_CAP * 2 : s, i);
    }
    sort_keys(f->keys, f->order, n);
}

/* The others' joint reply number j into f->joint (mixed radix over the other roles in
 * role order, the last fastest: the solver's numbering). */
static void decode_reply(ab_t *a, frame_t *f, uint64_t j) {
    for (uint32_t r = a->n_roles; r-- > 0;) {
        if (r == a->role) continue;
        f->joint[r] = f->moves[r][j % f->n[r]];
        j /= f->n[r];
    }
}

static void order_replies(ab_t *a, frame_t *f, uint32_t first) {
    if (f->n_joint > ORDER_MAX) return; /* replies() takes them in the engine's order */
    uint32_t n = (uint32_t)f->n_joint;
    GROW(f->rorder, f->rorder_cap, n);
    for (uint32_t i = 0; i < n; i++)
        f->rorder[i] = i;
    if (n <= 1 || (!a->o.history && (first == NO_INDEX || first >= n))) return;
    GROW(f->keys, f->keys_cap, n);
    for (uint32_t j = 0; j < n; j++) {
        uint64_t s = 0;
        if (a->o.history) {
            decode_reply(a, f, j);
            for (uint32_t r = 0; r < a->n_roles; r++)
                if (r != a->role) s += hist_get(a, r, f->joint[r]);
        }
        f->keys[j] = sort_key(j == first ? HIST_CAP * 2 : s, j);
    }
    sort_keys(f->keys, f->rorder, n);
}

/* ---------------- values ---------------- */

static bool out_of_time(ab_t *a) {
    if (a->aborted) return true;
    if (a->deadline <= 0 || ++a->since_check < a->check_every) return false;
    a->since_check = 0;
    double now = now_seconds();
    /* look at the clock about every CHECK_SECONDS, whatever a state costs */
    if (now - a->last_check < CHECK_SECONDS / 2 && a->check_every < 1024)
        a->check_every *= 2;
    else if (now - a->last_check > CHECK_SECONDS * 2 && a->check_every > 1)
        a->check_every /= 2;
    a->last_check = now;
    if (now >= a->deadline) a->aborted = true;
    return a->aborted;
}

static int playouts_value(ab_t *a, const eng_state_t *s) {
    uint32_t k = a->o.playouts;
    if (k == 0) return 50;
    int sum = 0;
    for (uint32_t i = 0; i < k; i++) {
        engine_state_copy(a->scratch, s);
        engine_playout(a->e, a->scratch, &a->rng, a->o.playout_cap, a->goals);
        sum += a->goals[a->role] > 0 ? a->goals[a->role] : 0;
    }
    return (sum + (int)k / 2) / (int)k;
}

/* A win (goal 100) or loss (0) `dist` joint moves from the root, scored by distance with the
 * proof hook; any other value, or without the hook, as it is. */
static int by_distance(const ab_t *a, int v, uint32_t dist) {
    if (!a->proof || (v != 100 && v != 0)) return v;
    return v == 100 ? WIN_SCORE - (int)dist : LOSS_SCORE + (int)dist;
}

/* A terminal state's value `ply` joint moves from the root. */
static int terminal_value(ab_t *a, const eng_state_t *s, uint32_t ply) {
    return by_distance(a, engine_goal_value(a->e, s, a->role), ply);
}

/* Scores by distance are from the root; the table keeps them from its entry's state, so
 * that one reached at another ply reads them right (the chess engines' mate scores). */
static int to_table(int v, uint32_t ply) {
    return v > 100 ? v + (int)ply : v < -1 ? v - (int)ply : v;
}

static int from_table(int v, uint32_t ply) {
    return v > 100 ? v - (int)ply : v < -1 ? v + (int)ply : v;
}

/* The goal scale of a root value, and the joint moves to its win or loss (0: none). */
static int goal_scale(int v, uint32_t *mate) {
    *mate = v > 100 ? (uint32_t)(WIN_SCORE - v) : v < -1 ? (uint32_t)(v - LOSS_SCORE) : 0;
    return v > 100 ? 100 : v < -1 ? 0 : v;
}

/* The proof hook's value of the non-terminal state s below the root, by distance; false
 * where it knows none. */
static bool proof_value(ab_t *a, const eng_state_t *s, uint32_t ply, int *v) {
    if (!a->proof || ply == 0) return false; /* the root must still choose a move */
    uint32_t steps = 0;
    int g = a->proof(a->proof_ctx, s, ply, &steps);
    if (g != 100 && g != 0) return false;
    a->proofs++;
    *v = by_distance(a, g, ply + (steps < STEPS_MAX ? steps : STEPS_MAX));
    return true;
}

/* The value of a non-terminal state where depth ran out. */
static int leaf_value(ab_t *a, const eng_state_t *s) {
    a->leaves++;
    if (a->eval) {
        int v = a->eval(a->eval_ctx, a->e, s, a->role);
        if (v >= 0) return v > 100 ? 100 : v;
    }
    if (a->o.eval != AB_EVAL_PLAYOUT) {
        int g = engine_goal_value(a->e, s, a->role);
        if (g >= 0) return g;
        if (a->o.eval == AB_EVAL_GOAL) return 50;
    }
    return playouts_value(a, s);
}

/* ---------------- the search ---------------- */

static int search(ab_t *a, const eng_state_t *s, uint32_t depth, int alpha, int beta, uint32_t ply,
                  bool *proven);

/* The others' best answer (least value for the role) to the role's move `mine` in s:
 * the min level. *best gets the reply's number. */
static int replies(ab_t *a, const eng_state_t *s, frame_t *f, uint32_t mine, uint32_t first,
                   uint32_t depth, int alpha, int beta, uint32_t ply, bool *proven,
                   uint32_t *best) {
    order_replies(a, f, first);
    int worst = AB_INF;
    bool all = true;
    *best = NO_INDEX;
    for (uint64_t k = 0; k < f->n_joint; k++) {
        uint64_t j = f->n_joint <= ORDER_MAX ? f->rorder[k] : k;
        decode_reply(a, f, j);
        f->joint[a->role] = f->moves[a->role][mine];
        engine_next(a->e, s, f->joint, f->child);
        int hi = worst < beta ? worst : beta, v;
        bool p;
        if (k == 0 || !a->o.pvs) {
            v = search(a, f->child, depth - 1, alpha, hi, ply + 1, &p);
        } else {
            v = search(a, f->child, depth - 1, hi - 1, hi, ply + 1, &p);
            if (!a->aborted && v < hi && v > alpha)
                v = search(a, f->child, depth - 1, alpha, hi, ply + 1, &p);
        }
        if (a->aborted) return 0;
        all = all && p;
        if (v < worst) {
            worst = v;
            *best = (uint32_t)(j < NO_INDEX ? j : NO_INDEX);
        }
        if (worst <= alpha) break;
    }
    if (a->o.history && worst < beta && *best != NO_INDEX && f->n_joint > 1) {
        decode_reply(a, f, *best);
        for (uint32_t r = 0; r < a->n_roles; r++)
            if (r != a->role && f->n[r] > 1) hist_add(a, r, f->joint[r], depth);
    }
    *proven = all;
    return worst;
}

/* A value from the table that settles the node; false when there is none. */
static bool tt_cut(const tt_entry_t *t, uint32_t depth, uint32_t ply, int alpha, int beta, int *v,
                   bool *proven) {
    if (!t || t->depth < depth) return false;
    int b = t->bound_gen & 3;
    *v = from_table(t->value, ply);
    *proven = t->depth == DEPTH_PROVEN;
    return b == BOUND_EXACT || (b == BOUND_LOWER && *v >= beta) ||
           (b == BOUND_UPPER && *v <= alpha);
}

/* The root keeps its best move so far in this iteration. */
static void note_root(ab_t *a, uint32_t i, uint32_t rank, int v) {
    if (a->iter_move != NO_INDEX && v <= a->iter_value) return;
    a->iter_move = i;
    a->iter_rank = rank;
    a->iter_value = v;
}

/* What the table gives a state: its entry (NULL: none, or no table) under key, and the
 * moves to try first. */
typedef struct {
    bool on; /* the table is read and written here (not at a restricted root) */
    uint64_t key;
    const tt_entry_t *t;
    uint32_t first, first_reply;
} probe_t;

/* Looks s up in the table: true when its entry settles the state below the root (*v,
 * *proven). Asked before the state's legal moves are read, as a cut needs none: every
 * entry was stored with its state's moves read, so a state without moves (a defective
 * game's, valued as terminal) is never cut. */
static bool probe(ab_t *a, const eng_state_t *s, uint32_t depth, uint32_t ply, int alpha, int beta,
                  probe_t *p, int *v, bool *proven) {
    p->key = 0, p->t = NULL;
    p->first = ply == 0 ? a->pv : NO_INDEX, p->first_reply = NO_INDEX;
    if (!p->on) return false;
    p->key = engine_state_hash(s);
    p->t = tt_probe(a, p->key);
    if (!p->t) return false;
    a->tt_hits++;
    bool exact;
    if (ply > 0 && tt_cut(p->t, depth, ply, alpha, beta, v, &exact)) {
        a->tt_cuts++;
        *proven = exact;
        return true;
    }
    if (p->first == NO_INDEX) p->first = p->t->move;
    p->first_reply = p->t->reply;
    return false;
}

/* The max level of search: the role's moves in f, each valued by the others' best reply;
 * *best_i and *best_reply the best found, *all when no depth cut reached any value. */
static int max_level(ab_t *a, const eng_state_t *s, frame_t *f, const probe_t *p, uint32_t depth,
                     int alpha, int beta, uint32_t ply, uint32_t *best_i, uint32_t *best_reply,
                     bool *all) {
    uint32_t n = f->n[a->role];
    int best = -AB_INF, v;
    *best_i = f->order[0], *best_reply = NO_INDEX, *all = true;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = f->order[k], rep;
        uint32_t fr = i == p->first ? p->first_reply : NO_INDEX;
        int lo = best > alpha ? best : alpha;
        bool pr;
        if (k == 0 || !a->o.pvs) {
            v = replies(a, s, f, i, fr, depth, lo, beta, ply, &pr, &rep);
        } else {
            v = replies(a, s, f, i, fr, depth, lo, lo + 1, ply, &pr, &rep);
            if (!a->aborted && v > lo && v < beta)
                v = replies(a, s, f, i, fr, depth, lo, beta, ply, &pr, &rep);
        }
        if (a->aborted) return 0;
        *all = *all && pr;
        if (v > best) {
            best = v, *best_i = i, *best_reply = rep;
            if (ply == 0) note_root(a, i, k, v);
        }
        if (best >= beta) break;
    }
    return best;
}

/* The value of s for the role to `depth` more joint moves (fail-soft alpha-beta: a value
 * <= alpha is an upper bound, >= beta a lower bound); *proven when no depth cut reached it.
 * The table is probed before the legal moves are read: a cut costs no engine call. */
static int search(ab_t *a, const eng_state_t *s, uint32_t depth, int alpha, int beta, uint32_t ply,
                  bool *proven) {
    a->nodes++;
    if (out_of_time(a)) return 0;
    *proven = true;
    if (engine_terminal(a->e, s)) return terminal_value(a, s, ply);
    int v;
    if (depth == 0) {
        if (a->o.proof_depth == 0 && proof_value(a, s, ply, &v)) return v; /* exact */
        *proven = false;
        return leaf_value(a, s);
    }
    /* a root cut down to one move is not the state's value: not for the table */
    bool restricted = ply == 0 && a->root_move != TERM_NONE;
    probe_t p = {.on = a->o.tt && !restricted};
    if (probe(a, s, depth, ply, alpha, beta, &p, &v, proven)) return v;
    frame_t *f = frame_at(a, ply);
    if (!load_moves(a, f, s)) return terminal_value(a, s, ply);
    if (restricted) restrict_root(a, f); /* ab_search_move found the move there */
    /* a state in the table was asked before (its proof would be there, DEPTH_PROVEN): the
     * walk is not made again; a proof is exact, the state not searched further */
    if (!p.t && depth >= a->o.proof_depth && proof_value(a, s, ply, &v)) {
        if (p.on)
            tt_store(a, p.key, to_table(v, ply), DEPTH_PROVEN, BOUND_EXACT, NO_INDEX, NO_INDEX);
        return v;
    }
    order_moves(a, f, p.first);
    uint32_t best_i, best_reply;
    bool all;
    int best = max_level(a, s, f, &p, depth, alpha, beta, ply, &best_i, &best_reply, &all);
    if (a->aborted) return 0;
    if (a->o.history && f->n[a->role] > 1 && best > alpha)
        hist_add(a, a->role, f->moves[a->role][best_i], depth);
    if (p.on) {
        int bound = best >= beta ? BOUND_LOWER : best <= alpha ? BOUND_UPPER : BOUND_EXACT;
        tt_store(a, p.key, to_table(best, ply), all ? DEPTH_PROVEN : depth, bound, best_i,
                 best_reply);
    }
    *proven = all;
    return best;
}

static void put_counters(const ab_t *a, ab_result_t *out) {
    out->nodes = a->nodes;
    out->leaves = a->leaves;
    out->tt_hits = a->tt_hits;
    out->tt_cuts = a->tt_cuts;
    out->loads = a->loads;
    out->proofs = a->proofs;
}

void ab_search_move(ab_t *a, const eng_state_t *s, term_t move, uint32_t max_depth, double deadline,
                    ab_result_t *out) {
    uint32_t bound = a->o.max_depth;
    a->root_move = move;
    if (max_depth) a->o.max_depth = max_depth;
    ab_search(a, s, deadline, NULL, NULL, out);
    a->o.max_depth = bound;
    a->root_move = TERM_NONE;
}

void ab_search(ab_t *a, const eng_state_t *s, double deadline, ab_progress_t progress, void *ctx,
               ab_result_t *out) {
    memset(out, 0, sizeof *out);
    a->deadline = deadline;
    a->aborted = false;
    a->check_every = 1;
    a->since_check = 0;
    a->last_check = now_seconds();
    a->nodes = a->leaves = a->tt_hits = a->tt_cuts = a->loads = a->proofs = 0;
    a->gen = (uint8_t)((a->gen + 1) & 63);
    hist_age(a);
    out->move = TERM_NONE;
    if (engine_terminal(a->e, s)) {
        out->value = engine_goal_value(a->e, s, a->role);
        out->proven = true;
        return;
    }
    frame_t *f0 = frame_at(a, 0);
    if (!load_moves(a, f0, s) || (a->root_move != TERM_NONE && !restrict_root(a, f0))) {
        out->value = engine_goal_value(a->e, s, a->role);
        out->proven = true;
        return;
    }
    out->move = f0->moves[a->role][0];
    uint32_t max = a->o.max_depth ? a->o.max_depth : DEPTH_MAX;
    a->pv = NO_INDEX;
    for (uint32_t d = a->o.id ? 1 : max; d <= max; d++) {
        a->iter_move = NO_INDEX;
        bool p;
        int v = search(a, s, d, -AB_INF, AB_INF, 0, &p);
        /* the root's moves in f0 are the same on every iteration (same state, same engine) */
        if (a->aborted) {
            /* a move that beat the last iteration's best, searched fully at this depth */
            if (a->iter_move != NO_INDEX && (a->iter_rank > 0 || out->depth == 0))
                out->move = f0->moves[a->role][a->iter_move];
            out->timed_out = true;
            break;
        }
        out->move = f0->moves[a->role][a->iter_move];
        out->value = goal_scale(v, &out->mate);
        out->proven = p;
        out->depth = d;
        a->pv = a->iter_move;
        put_counters(a, out);
        if (progress) progress(ctx, out);
        if (p) break;
    }
    put_counters(a, out);
}
