/* The engine's ground network seen as the belief reasoner needs it: see bnet.h. */
#include "player/bnet.h"

#include <stdlib.h>

#include "base/hash.h"
#include "base/htab.h"
#include "engine/ground.h"

struct bnet {
    game_t *g;
    const gnet_t *net; /* borrowed */
    uint32_t n;        /* the network's nodes, then a does node for each move it has none for */
    term_t *atom;      /* of the added does nodes (at id - net->n_nodes) */
    uint8_t *kind;     /* bnet_kind_t per node */
    int8_t *cval;      /* bnet_const per node */
    uint32_t *legal;   /* per does node: its legal node */
    htab_t index;      /* node ids by atom */
    /* bodies: those of node id are bodies[body_first[id]], body_count[id] of them */
    uint32_t *body_first, *body_count;
    bnet_body_t *bodies;
    bnet_lit_t *lits;
    uint32_t n_bodies;
    uint32_t *fluents; /* fluent f is node f (ground.h) */
    bool *initial;
    uint32_t **moves, **sees, *n_moves, *n_sees;
};

typedef struct {
    const bnet_t *n;
    term_t t;
} atom_key_t;

static bool same_atom(const void *ctx, uint32_t id) {
    const atom_key_t *k = ctx;
    return bnet_atom(k->n, id) == k->t;
}

static uint32_t atom_hash(const void *ctx, uint32_t id) {
    return hash_mix(0, bnet_atom(ctx, id));
}

static void index_terms(bnet_t *n) {
    /* downwards: of two nodes with one atom, the later is found */
    for (uint32_t i = n->n; i-- > 0;)
        if (bnet_atom(n, i) != TERM_NONE && bnet_find(n, bnet_atom(n, i)) == BNET_NONE)
            htab_add(&n->index, hash_mix(0, bnet_atom(n, i)), i, atom_hash, n);
}

/* Kinds, and the moves of each role with a does node each: the grounder makes none when
 * the rules never read `does`, and the reasoner still chooses and observes moves. */
static void index_moves(bnet_t *n) {
    const gnet_t *net = n->net;
    uint32_t nr = n->g->n_roles, extra = 0;
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            extra += net->move_node[r][k] == GNET_NONE;
    n->n = net->n_nodes + extra;
    n->atom = xmalloc((extra + 1) * sizeof *n->atom);
    n->kind = xmalloc(n->n + 1);
    n->legal = xmalloc((n->n + 1) * sizeof *n->legal);
    for (uint32_t i = 0; i < n->n; i++) {
        uint8_t k = i < net->n_nodes ? net->kind[i] : GNODE_MOVE;
        n->kind[i] = k == GNODE_FLUENT ? BNET_FLUENT : k == GNODE_MOVE ? BNET_DOES : BNET_DERIVED;
        n->legal[i] = BNET_NONE;
    }
    n->moves = xcalloc(nr + 1, sizeof *n->moves);
    n->n_moves = xcalloc(nr + 1, sizeof *n->n_moves);
    uint32_t next = net->n_nodes;
    for (uint32_t r = 0; r < nr; r++) {
        n->n_moves[r] = net->n_moves[r];
        n->moves[r] = xmalloc((net->n_moves[r] + 1) * sizeof **n->moves);
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t d = net->move_node[r][k];
            if (d == GNET_NONE) {
                d = next++;
                term_t args[2] = {n->g->roles[r], net->move_term[r][k]};
                n->atom[d - net->n_nodes] = term_fun(n->g->ts, SYM_DOES, args, 2);
            }
            n->moves[r][k] = d;
            n->legal[d] = net->legal_node[r][k];
        }
    }
}

static int lit_value(const bnet_t *n, bnet_lit_t l) {
    int v = n->cval[l >> 1];
    return v < 0 ? -1 : (l & 1) ? !v : v;
}

/* The bodies of the derived node at order position i, constants folded: a body with a
 * false literal is dropped, true literals are left out, an empty body makes the node
 * true, no body false. The order is the network's evaluation order, dependencies first,
 * so the literals' constants are known. */
static void fold_node(bnet_t *n, uint32_t i, uint32_t *nl) {
    const gnet_t *net = n->net;
    uint32_t id = net->order[i], first_lit = *nl;
    n->body_first[id] = n->n_bodies;
    n->cval[id] = 0;
    for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1] && n->cval[id] != 1; r++) {
        uint32_t start = *nl;
        bool dead = false;
        for (uint32_t k = net->lit_start[r]; k < net->lit_start[r + 1] && !dead; k++) {
            int v = lit_value(n, net->lits[k]);
            dead = v == 0;
            if (v < 0) n->lits[(*nl)++] = net->lits[k];
        }
        if (dead) {
            *nl = start;
        } else if (*nl == start) {
            n->cval[id] = 1;
        } else {
            n->bodies[n->n_bodies++] = (bnet_body_t){n->lits + start, *nl - start};
            n->cval[id] = -1;
        }
    }
    if (n->cval[id] == 1) n->n_bodies = n->body_first[id], *nl = first_lit;
    n->body_count[id] = n->n_bodies - n->body_first[id];
}

static void fold(bnet_t *n) {
    const gnet_t *net = n->net;
    n->cval = xmalloc(n->n + 1);
    for (uint32_t i = 0; i < n->n; i++) {
        uint8_t k = i < net->n_nodes ? net->kind[i] : GNODE_MOVE;
        n->cval[i] = k == GNODE_TRUE ? 1 : k == GNODE_FALSE ? 0 : -1;
    }
    n->body_first = xcalloc(n->n + 1, sizeof *n->body_first);
    n->body_count = xcalloc(n->n + 1, sizeof *n->body_count);
    n->bodies = xmalloc((net->n_rules + 1) * sizeof *n->bodies);
    n->lits = xmalloc((net->n_lits + 1) * sizeof *n->lits); /* never moves: bodies point in */
    uint32_t nl = 0;
    for (uint32_t i = 0; i < net->n_order; i++)
        fold_node(n, i, &nl);
}

/* The reasoner states each atom as an equivalence with its bodies: over a cycle those
 * admit more than the least fixed point, so a network with a cyclic block is refused. */
static bool acyclic(const gnet_t *net, const game_t *g, strbuf_t *err) {
    for (uint32_t b = 0; b < net->n_blocks; b++) {
        const gblock_t *bl = &net->blocks[b];
        if (!bl->cyclic) continue;
        sb_printf(err, "the ground rules are recursive (%u atoms in a cycle", bl->n);
        for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
            if (net->atom[net->order[i]] == TERM_NONE) continue; /* a node factoring made */
            sb_puts(err, ", among them ");
            term_print(g->ts, net->atom[net->order[i]], err);
            break;
        }
        sb_puts(err, "): not unrolled");
        return false;
    }
    return true;
}

static void index_roles(bnet_t *n) {
    const gnet_t *net = n->net;
    uint32_t nr = n->g->n_roles;
    n->sees = xcalloc(nr + 1, sizeof *n->sees);
    n->n_sees = xcalloc(nr + 1, sizeof *n->n_sees);
    for (uint32_t r = 0; r < nr; r++) {
        n->n_sees[r] = net->n_sees[r];
        n->sees[r] = xmalloc((net->n_sees[r] + 1) * sizeof **n->sees);
        for (uint32_t k = 0; k < net->n_sees[r]; k++)
            n->sees[r][k] = net->sees[r][k].node;
    }
    n->fluents = xmalloc((net->n_fluents + 1) * sizeof *n->fluents);
    n->initial = xcalloc(net->n_fluents + 1, sizeof *n->initial);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        n->fluents[f] = net->fluent_node[f];
    for (uint32_t i = 0; i < net->n_init; i++)
        n->initial[net->init[i]] = true;
}

bnet_t *bnet_new(game_t *g, const gnet_t *net, strbuf_t *err) {
    if (!net) {
        sb_puts(err, "the game does not ground (its engine is the interpreter)");
        return NULL;
    }
    if (!acyclic(net, g, err)) return NULL;
    bnet_t *n = xcalloc(1, sizeof *n);
    n->g = g;
    n->net = net;
    index_moves(n);
    index_roles(n);
    fold(n);
    index_terms(n);
    return n;
}

void bnet_free(bnet_t *n) {
    if (!n) return;
    for (uint32_t r = 0; r < n->g->n_roles; r++)
        free(n->moves[r]), free(n->sees[r]);
    free(n->moves), free(n->sees), free(n->n_moves), free(n->n_sees);
    free(n->fluents), free(n->initial);
    free(n->atom), free(n->kind), free(n->cval), free(n->legal);
    htab_fini(&n->index);
    free(n->body_first), free(n->body_count), free(n->bodies), free(n->lits);
    free(n);
}

const game_t *bnet_game(const bnet_t *n) {
    return n->g;
}
uint32_t bnet_count(const bnet_t *n) {
    return n->n;
}
term_t bnet_atom(const bnet_t *n, uint32_t id) {
    return id < n->net->n_nodes ? n->net->atom[id] : n->atom[id - n->net->n_nodes];
}
bnet_kind_t bnet_kind(const bnet_t *n, uint32_t id) {
    return (bnet_kind_t)n->kind[id];
}
uint32_t bnet_find(const bnet_t *n, term_t atom) {
    if (atom == TERM_NONE) return BNET_NONE;
    atom_key_t key = {n, atom};
    uint32_t id = htab_find(&n->index, hash_mix(0, atom), same_atom, &key);
    return id == HTAB_NONE ? BNET_NONE : id;
}
int bnet_const(const bnet_t *n, uint32_t id) {
    return n->cval[id];
}
uint32_t bnet_bodies(const bnet_t *n, uint32_t id, const bnet_body_t **out) {
    *out = n->bodies + n->body_first[id];
    return n->body_count[id];
}
uint32_t bnet_body_total(const bnet_t *n) {
    return n->n_bodies;
}
uint32_t bnet_fluents(const bnet_t *n, const uint32_t **ids) {
    *ids = n->fluents;
    return n->net->n_fluents;
}
term_t bnet_fluent_term(const bnet_t *n, uint32_t id) {
    return n->net->fluent_term[n->net->input[id]];
}
uint32_t bnet_next_of(const bnet_t *n, uint32_t fluent_id) {
    uint32_t x = n->net->next_node[n->net->input[fluent_id]];
    return x == GNET_NONE || n->net->kind[x] == GNODE_FALSE ? BNET_NONE : x;
}
bool bnet_initial(const bnet_t *n, uint32_t fluent_id) {
    return n->initial[n->net->input[fluent_id]];
}
uint32_t bnet_moves(const bnet_t *n, uint32_t r, const uint32_t **ids) {
    *ids = n->moves[r];
    return n->n_moves[r];
}
uint32_t bnet_legal_of(const bnet_t *n, uint32_t does_id) {
    return n->legal[does_id];
}
term_t bnet_move_term(const bnet_t *n, uint32_t does_id) {
    return term_arg(n->g->ts, bnet_atom(n, does_id), 1);
}
uint32_t bnet_sees(const bnet_t *n, uint32_t r, const uint32_t **ids) {
    *ids = n->sees[r];
    return n->n_sees[r];
}
uint32_t bnet_terminal(const bnet_t *n) {
    return n->net->terminal;
}
