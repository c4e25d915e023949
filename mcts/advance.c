/* Distances of a role's pieces to its goal on the ground network: see advance.h. */
#include "mcts/advance.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/util.h"
#include "engine/fluents.h"

/* A walk of the network from some literals down to its inputs, with the polarity under
 * which each node is reached (a negated literal flips it). */
typedef struct {
    const gnet_t *net;
    uint32_t role;
    uint32_t *pos;     /* order index of each derived node (UINT32_MAX: not derived) */
    uint32_t *move_of; /* per node: 1 + the role's move index of a does node, else 0 */
    uint32_t *stamp;   /* per node and polarity: the walk that last reached it */
    uint32_t walk;
    uint32_t *stack;
    size_t n_stack, cap_stack;
    uint32_t *fl, *mv; /* fluents and the role's moves reached positively */
    size_t n_fl, cap_fl, n_mv, cap_mv;
    uint64_t work, max_work;
    double deadline; /* 0: none */
} walk_t;

static void begin(walk_t *w) {
    w->walk++;
    w->n_stack = w->n_fl = w->n_mv = 0;
}

/* lit: node << 1 | negated */
static void push(walk_t *w, uint32_t lit) {
    if (w->stamp[lit] == w->walk) return;
    w->stamp[lit] = w->walk;
    GROW(w->stack, w->cap_stack, w->n_stack + 1);
    w->stack[w->n_stack++] = lit;
}

/* Walks down from what was pushed; false when past the work bound or the deadline. */
static bool run(walk_t *w) {
    const gnet_t *net = w->net;
    while (w->n_stack) {
        if (++w->work > w->max_work) return false;
        if ((w->work & 65535) == 1 && w->deadline > 0 && now_seconds() > w->deadline) return false;
        uint32_t lit = w->stack[--w->n_stack], node = lit >> 1, neg = lit & 1;
        uint8_t kind = net->kind[node];
        if (kind == GNODE_FLUENT && !neg) {
            GROW(w->fl, w->cap_fl, w->n_fl + 1);
            w->fl[w->n_fl++] = net->input[node];
        } else if (kind == GNODE_MOVE && !neg && w->move_of[node]) {
            GROW(w->mv, w->cap_mv, w->n_mv + 1);
            w->mv[w->n_mv++] = w->move_of[node] - 1;
        } else if (kind == GNODE_DERIVED && w->pos[node] != UINT32_MAX) {
            uint32_t i = w->pos[node];
            for (uint32_t j = net->rule_start[i]; j < net->rule_start[i + 1]; j++)
                for (uint32_t l = net->lit_start[j]; l < net->lit_start[j + 1]; l++)
                    push(w, net->lits[l] ^ neg);
        }
    }
    return true;
}

/* Whether fluent f was reached positively by the current walk. */
static bool reached(const walk_t *w, uint32_t f) {
    return w->stamp[w->net->fluent_node[f] << 1] == w->walk;
}

/* Lists of uint32 in one array (CSR). */
typedef struct {
    uint32_t *start, *item;
    size_t n_item, cap_item;
} lists_t;

static void lists_init(lists_t *l, uint32_t n) {
    memset(l, 0, sizeof *l);
    l->start = xcalloc((size_t)n + 1, sizeof *l->start);
}

static void lists_add(lists_t *l, uint32_t x) {
    GROW(l->item, l->cap_item, l->n_item + 1);
    l->item[l->n_item++] = x;
}

static void lists_free(lists_t *l) {
    free(l->start);
    free(l->item);
}

typedef struct {
    walk_t w;
    const uint32_t *bit_of; /* per fluent: its state bit (UINT32_MAX: none) */
    const uint64_t *pieces;
} ctx_t;

static bool is_piece(const ctx_t *c, uint32_t f) {
    uint32_t b = c->bit_of[f];
    return b != UINT32_MAX && (c->pieces[b >> 6] >> (b & 63) & 1);
}

/* Per move of the role: the pieces supporting its legality. */
static bool legal_support(ctx_t *c, lists_t *l) {
    const gnet_t *net = c->w.net;
    uint32_t r = c->w.role;
    for (uint32_t k = 0; k < net->n_moves[r]; k++) {
        l->start[k] = (uint32_t)l->n_item;
        begin(&c->w);
        if (net->legal_node[r][k] != GNET_NONE) push(&c->w, net->legal_node[r][k] << 1);
        if (!run(&c->w)) return false;
        for (size_t i = 0; i < c->w.n_fl; i++)
            if (is_piece(c, c->w.fl[i])) lists_add(l, c->w.fl[i]);
    }
    l->start[net->n_moves[r]] = (uint32_t)l->n_item;
    return true;
}

/* Per piece g: what makes it, rule by rule of next(g) that does not keep g: the pieces
 * in the rule's own support (a move that names no squares, as step(i), leaves the piece
 * it moves in the rule: next(tok(i, q)) <= does(step(i)), true(tok(i, p))) into fl,
 * else the role's moves there (whose legality then says where the piece comes from) into
 * mv. */
static bool creators(ctx_t *c, lists_t *fl, lists_t *mv) {
    const gnet_t *net = c->w.net;
    for (uint32_t g = 0; g < net->n_fluents; g++) {
        fl->start[g] = (uint32_t)fl->n_item;
        mv->start[g] = (uint32_t)mv->n_item;
        uint32_t nx = net->next_node[g];
        if (!is_piece(c, g) || nx == GNET_NONE) continue;
        uint32_t i = c->w.pos[nx];
        uint32_t j0 = i == UINT32_MAX ? 0 : net->rule_start[i],
                 j1 = i == UINT32_MAX ? 1 : net->rule_start[i + 1];
        for (uint32_t j = j0; j < j1; j++) { /* a rule at a time (not derived: the node) */
            begin(&c->w);
            if (i == UINT32_MAX)
                push(&c->w, nx << 1);
            else
                for (uint32_t x = net->lit_start[j]; x < net->lit_start[j + 1]; x++)
                    push(&c->w, net->lits[x]);
            if (!run(&c->w)) return false;
            if (reached(&c->w, g)) continue; /* a frame rule */
            size_t before = fl->n_item;
            for (size_t k = 0; k < c->w.n_fl; k++)
                if (is_piece(c, c->w.fl[k])) lists_add(fl, c->w.fl[k]);
            if (fl->n_item == before)
                for (size_t k = 0; k < c->w.n_mv; k++)
                    lists_add(mv, c->w.mv[k]);
        }
    }
    fl->start[net->n_fluents] = (uint32_t)fl->n_item;
    mv->start[net->n_fluents] = (uint32_t)mv->n_item;
    return true;
}

/* The distances by breadth-first search back from the goal fluents. */
static bool distances(ctx_t *c, const lists_t *legal, const lists_t *make_fl,
                      const lists_t *make_mv, uint8_t *dist) {
    const gnet_t *net = c->w.net;
    uint32_t r = c->w.role, *queue = xmalloc((net->n_fluents + 1) * sizeof *queue), nq = 0;
    memset(dist, ADV_NONE, net->n_fluents);
    int best = -1;
    for (uint32_t i = 0; i < net->n_goals[r]; i++)
        if (net->goals[r][i].value > best) best = net->goals[r][i].value;
    begin(&c->w);
    for (uint32_t i = 0; i < net->n_goals[r]; i++)
        if (net->goals[r][i].value == best) push(&c->w, net->goals[r][i].node << 1);
    bool ok = best > 0 && run(&c->w);
    for (size_t i = 0; ok && i < c->w.n_fl; i++) {
        uint32_t f = c->w.fl[i];
        if (is_piece(c, f) && dist[f] == ADV_NONE) dist[f] = 0, queue[nq++] = f;
    }
    for (uint32_t q = 0; q < nq; q++) {
        uint32_t g = queue[q];
        if (dist[g] + 1 >= ADV_MAX) break;
        for (uint32_t a = make_fl->start[g]; a < make_fl->start[g + 1]; a++) {
            uint32_t f = make_fl->item[a];
            if (dist[f] == ADV_NONE) dist[f] = (uint8_t)(dist[g] + 1), queue[nq++] = f;
        }
        for (uint32_t a = make_mv->start[g]; a < make_mv->start[g + 1]; a++) {
            uint32_t m = make_mv->item[a];
            for (uint32_t b = legal->start[m]; b < legal->start[m + 1]; b++) {
                uint32_t f = legal->item[b];
                if (dist[f] == ADV_NONE) dist[f] = (uint8_t)(dist[g] + 1), queue[nq++] = f;
            }
        }
    }
    free(queue);
    return ok && nq > 0;
}

/* Per fluent of the network: its state bit. */
static uint32_t *bits_of_fluents(engine_t *e, const gnet_t *net) {
    term_t *terms;
    uint32_t n_bits = engine_fluent_bits(e, &terms);
    uint32_t *bit_of = xmalloc((net->n_fluents + 1) * sizeof *bit_of);
    for (uint32_t f = 0; f < net->n_fluents; f++) {
        term_t t = net->fluent_term[f];
        bit_of[f] = UINT32_MAX;
        if (f < n_bits && terms[f] == t) bit_of[f] = f; /* the ground layout */
        for (uint32_t b = 0; bit_of[f] == UINT32_MAX && b < n_bits; b++)
            if (terms[b] == t) bit_of[f] = b;
    }
    free(terms);
    return bit_of;
}

uint8_t *advance_distances(engine_t *e, uint32_t r, const uint64_t *pieces, uint32_t n_words,
                           uint64_t max_work, double deadline) {
    const gnet_t *net = engine_network(e);
    if (!net || r >= net->n_roles) return NULL;
    ctx_t c = {.pieces = pieces};
    walk_t *w = &c.w;
    w->net = net;
    w->role = r;
    w->max_work = max_work;
    w->deadline = deadline;
    w->pos = xmalloc(((size_t)net->n_nodes + 1) * sizeof *w->pos);
    memset(w->pos, 0xff, ((size_t)net->n_nodes + 1) * sizeof *w->pos);
    for (uint32_t i = 0; i < net->n_order; i++)
        w->pos[net->order[i]] = i;
    w->move_of = xcalloc((size_t)net->n_nodes + 1, sizeof *w->move_of);
    for (uint32_t k = 0; k < net->n_moves[r]; k++)
        if (net->move_node[r][k] != GNET_NONE) w->move_of[net->move_node[r][k]] = k + 1;
    w->stamp = xcalloc(2 * (size_t)net->n_nodes + 2, sizeof *w->stamp);
    uint32_t *bit_of = bits_of_fluents(e, net);
    c.bit_of = bit_of;
    lists_t legal, make_fl, make_mv;
    lists_init(&legal, net->n_moves[r]);
    lists_init(&make_fl, net->n_fluents);
    lists_init(&make_mv, net->n_fluents);
    uint8_t *dist = xmalloc(net->n_fluents + 1), *out = NULL;
    if (legal_support(&c, &legal) && creators(&c, &make_fl, &make_mv) &&
        distances(&c, &legal, &make_fl, &make_mv, dist)) {
        out = xmalloc((size_t)n_words * 64);
        memset(out, ADV_NONE, (size_t)n_words * 64);
        for (uint32_t f = 0; f < net->n_fluents; f++)
            if (is_piece(&c, f) && bit_of[f] < n_words * 64) out[bit_of[f]] = dist[f];
    }
    free(dist);
    lists_free(&legal);
    lists_free(&make_fl);
    lists_free(&make_mv);
    free(bit_of);
    free(w->pos);
    free(w->move_of);
    free(w->stamp);
    free(w->stack);
    free(w->fl);
    free(w->mv);
    return out;
}
