/* The layout of a ground network: see glayout.h. */
#include "engine/glayout.h"

#include <stdlib.h>
#include <string.h>

#include "base/htab.h"

typedef struct {
    const graw_t *w;
    const game_t *g;
    gnet_t *net;
    graw_heads_t h;
    htab_t tab; /* atom -> node */
} layout_t;

typedef struct {
    const graw_t *w;
    term_t t;
} atom_key_t;

static uint32_t atom_hash(term_t t) {
    return t * 0x9e3779b1u;
}

static bool atom_same(const void *ctx, uint32_t node) {
    const atom_key_t *k = ctx;
    return k->w->atom[node] == k->t;
}

static uint32_t atom_hash_of(const void *ctx, uint32_t node) {
    const graw_t *w = ctx;
    return atom_hash(w->atom[node]);
}

static uint32_t node_of(const layout_t *L, term_t t) {
    if (t == TERM_NONE) return GNET_NONE;
    atom_key_t k = {L->w, t};
    uint32_t node = htab_find(&L->tab, atom_hash(t), atom_same, &k);
    return node == HTAB_NONE ? GNET_NONE : node;
}

static void index_atoms(layout_t *L) {
    htab_init(&L->tab);
    for (uint32_t n = 0; n < L->w->n_nodes; n++)
        if (L->w->atom[n] != TERM_NONE)
            htab_add(&L->tab, atom_hash(L->w->atom[n]), n, atom_hash_of, L->w);
}

static bool self_loop(const layout_t *L, uint32_t node) {
    const graw_t *w = L->w;
    for (uint32_t k = L->h.start[node]; k < L->h.start[node + 1]; k++) {
        uint32_t r = L->h.order[k];
        for (uint32_t l = w->first[r]; l < w->first[r + 1]; l++)
            if (w->lits[l] >> 1 == node) return true;
    }
    return false;
}

/* The derived nodes a node's rules read, for each node of a list. */
static void mark_deps(const layout_t *L, uint32_t x, const uint32_t *comp, bool *comp_mark) {
    const graw_t *w = L->w;
    for (uint32_t k = L->h.start[x]; k < L->h.start[x + 1]; k++) {
        uint32_t r = L->h.order[k];
        for (uint32_t l = w->first[r]; l < w->first[r + 1]; l++) {
            uint32_t d = w->lits[l] >> 1;
            if (w->kind[d] == GNODE_DERIVED) comp_mark[comp[d]] = true;
        }
    }
}

static bool is_play_root(const term_store_t *ts, term_t atom) {
    if (atom == TERM_NONE) return false;
    sym_t s = term_sym(ts, atom);
    return s == SYM_TERMINAL || s == SYM_LEGAL || s == SYM_NEXT || s == SYM_SEES;
}

/* Which derived nodes read a move (directly or through another), in emission order. */
static bool *move_nodes(const layout_t *L, const uint32_t *emitted, const uint32_t *comp,
                        uint32_t n_derived, uint32_t n_comps) {
    const graw_t *w = L->w;
    bool *moves = xcalloc(w->n_nodes + 1, sizeof *moves);
    bool *comp_moves = xcalloc(n_comps + 1, sizeof *comp_moves);
    for (uint32_t i = 0; i < n_derived; i++) {
        uint32_t v = emitted[i];
        for (uint32_t k = L->h.start[v]; k < L->h.start[v + 1]; k++) {
            uint32_t r = L->h.order[k];
            for (uint32_t l = w->first[r]; l < w->first[r + 1]; l++) {
                uint32_t x = w->lits[l] >> 1;
                if (w->kind[x] == GNODE_MOVE || moves[x]) comp_moves[comp[v]] = true;
            }
        }
        /* a component is complete once its last node is emitted */
        if (i + 1 == n_derived || comp[emitted[i + 1]] != comp[v])
            for (uint32_t j = i + 1; j-- > 0 && comp[emitted[j]] == comp[v];)
                moves[emitted[j]] = comp_moves[comp[v]];
    }
    free(comp_moves);
    return moves;
}

/* What terminal, legal, next, sees and the move blocks need (goals are read at the end of a
 * match only); marked backwards, dependants before dependencies. */
static bool *play_nodes(const layout_t *L, const uint32_t *emitted, const uint32_t *comp,
                        uint32_t n_derived, uint32_t n_comps, const bool *moves) {
    const graw_t *w = L->w;
    bool *play = xcalloc(w->n_nodes + 1, sizeof *play);
    bool *comp_play = xcalloc(n_comps + 1, sizeof *comp_play);
    for (uint32_t i = n_derived; i-- > 0;) {
        uint32_t v = emitted[i];
        if (moves[v] || is_play_root(L->g->ts, w->atom[v])) comp_play[comp[v]] = true;
        if (i > 0 && comp[emitted[i - 1]] == comp[v]) continue; /* the component's first */
        for (uint32_t j = i; j < n_derived && comp[emitted[j]] == comp[v]; j++) {
            uint32_t x = emitted[j];
            play[x] = comp_play[comp[v]];
            if (play[x]) mark_deps(L, x, comp, comp_play);
        }
    }
    free(comp_play);
    return play;
}

static void copy_rules(layout_t *L) {
    gnet_t *net = L->net;
    const graw_t *w = L->w;
    net->n_rules = 0;
    for (uint32_t i = 0; i < net->n_order; i++)
        net->n_rules += L->h.start[net->order[i] + 1] - L->h.start[net->order[i]];
    net->lit_start = xmalloc((net->n_rules + 1) * sizeof *net->lit_start);
    net->lits = xmalloc(((size_t)w->n_lits + 1) * sizeof *net->lits);
    uint32_t nr = 0;
    net->n_lits = 0;
    for (uint32_t i = 0; i < net->n_order; i++) {
        uint32_t v = net->order[i];
        net->rule_start[i] = nr;
        for (uint32_t k = L->h.start[v]; k < L->h.start[v + 1]; k++) {
            uint32_t r = L->h.order[k];
            net->lit_start[nr++] = net->n_lits;
            for (uint32_t l = w->first[r]; l < w->first[r + 1]; l++)
                net->lits[net->n_lits++] = w->lits[l];
        }
    }
    net->rule_start[net->n_order] = nr;
    net->lit_start[nr] = net->n_lits;
}

static void blocks(layout_t *L) {
    gnet_t *net = L->net;
    uint32_t nn = L->w->n_nodes;
    uint32_t *emitted = xmalloc((nn + 1) * sizeof *emitted),
             *comp = xmalloc((nn + 1) * sizeof *comp);
    uint32_t n_comps = 0, n_derived = 0;
    graw_components(L->w, &L->h, emitted, comp, &n_comps);
    for (uint32_t n = 0; n < nn; n++)
        n_derived += L->w->kind[n] == GNODE_DERIVED;
    bool *moves = move_nodes(L, emitted, comp, n_derived, n_comps);
    bool *play = play_nodes(L, emitted, comp, n_derived, n_comps, moves);
    net->order = xmalloc((n_derived + 1) * sizeof *net->order);
    net->blocks = xmalloc((n_comps + 1) * sizeof *net->blocks);
    net->rule_start = xmalloc((n_derived + 2) * sizeof *net->rule_start);
    for (int phase = 0; phase < 3; phase++) {
        for (uint32_t i = 0; i < n_derived;) {
            uint32_t j = i;
            while (j < n_derived && comp[emitted[j]] == comp[emitted[i]])
                j++;
            uint32_t v = emitted[i];
            int ph = moves[v] ? 2 : play[v] ? 0 : 1;
            if (ph == phase) {
                gblock_t *b = &net->blocks[net->n_blocks++];
                b->first = net->n_order;
                b->n = j - i;
                b->cyclic = j - i > 1 || self_loop(L, emitted[i]);
                for (uint32_t k = i; k < j; k++)
                    net->order[net->n_order++] = emitted[k];
            }
            i = j;
        }
        if (phase == 0) net->n_play_blocks = net->n_blocks;
        if (phase == 1) net->n_state_blocks = net->n_blocks;
    }
    copy_rules(L);
    free(emitted), free(comp), free(moves), free(play);
}

static void alloc_interface(gnet_t *net, uint32_t nn, uint32_t nr) {
    net->n_roles = nr;
    net->fluent_term = xmalloc((nn + 1) * sizeof *net->fluent_term);
    net->fluent_node = xmalloc((nn + 1) * sizeof *net->fluent_node);
    net->next_node = xmalloc((nn + 1) * sizeof *net->next_node);
    net->n_moves = xcalloc(nr + 1, sizeof *net->n_moves);
    net->move_term = xcalloc(nr + 1, sizeof *net->move_term);
    net->legal_node = xcalloc(nr + 1, sizeof *net->legal_node);
    net->move_node = xcalloc(nr + 1, sizeof *net->move_node);
    net->n_goals = xcalloc(nr + 1, sizeof *net->n_goals);
    net->goals = xcalloc(nr + 1, sizeof *net->goals);
    net->n_sees = xcalloc(nr + 1, sizeof *net->n_sees);
    net->sees = xcalloc(nr + 1, sizeof *net->sees);
    net->terminal = GNET_NONE;
    net->query_node = xmalloc((nn + 1) * sizeof *net->query_node);
    for (uint32_t r = 0; r < nr; r++) {
        net->move_term[r] = xmalloc((nn + 1) * sizeof(term_t));
        net->legal_node[r] = xmalloc((nn + 1) * sizeof(uint32_t));
        net->move_node[r] = xmalloc((nn + 1) * sizeof(uint32_t));
        net->goals[r] = xmalloc((nn + 1) * sizeof(gitem_t));
        net->sees[r] = xmalloc((nn + 1) * sizeof(gitem_t));
    }
}

/* Sorts ids by their nodes' atoms in the terms' canonical order (a merge sort: stable,
 * n log n, no shared state). */
static void sort_by_atom(uint32_t *ids, uint32_t *tmp, uint32_t n, const gnet_t *net,
                         const term_store_t *ts) {
    if (n < 2) return;
    uint32_t h = n / 2, i = 0, j = h, k = 0;
    sort_by_atom(ids, tmp, h, net, ts);
    sort_by_atom(ids + h, tmp, n - h, net, ts);
    while (i < h && j < n)
        tmp[k++] = term_order(ts, net->atom[ids[j]], net->atom[ids[i]]) < 0 ? ids[j++] : ids[i++];
    while (i < h)
        tmp[k++] = ids[i++];
    while (j < n)
        tmp[k++] = ids[j++];
    memcpy(ids, tmp, n * sizeof *ids);
}

/* The nodes in the order the interface numbers them: fluents, then legal atoms, each in the
 * terms' canonical order, then the rest. Fluents of one relation and neighbouring arguments
 * get neighbouring ids, so that the literals of a rule tend to fall in one 64-bit word of the
 * state (the compiled code tests a word at a time); moves come in a fixed order whatever
 * order the grounder found them in. */
static uint32_t *interface_order(const gnet_t *net, const term_store_t *ts) {
    uint32_t nn = net->n_nodes, k = 0, f;
    uint32_t *out = xmalloc((nn + 1) * sizeof *out), *tmp = xmalloc((nn + 1) * sizeof *tmp);
    for (uint32_t n = 0; n < nn; n++)
        if (net->kind[n] == GNODE_FLUENT) out[k++] = n;
    sort_by_atom(out, tmp, k, net, ts);
    f = k;
    for (uint32_t n = 0; n < nn; n++)
        if (net->kind[n] != GNODE_FLUENT && net->atom[n] != TERM_NONE &&
            term_sym(ts, net->atom[n]) == SYM_LEGAL)
            out[k++] = n;
    sort_by_atom(out + f, tmp, k - f, net, ts);
    for (uint32_t n = 0; n < nn; n++)
        if (net->kind[n] != GNODE_FLUENT &&
            (net->atom[n] == TERM_NONE || term_sym(ts, net->atom[n]) != SYM_LEGAL))
            out[k++] = n;
    free(tmp);
    return out;
}

/* Fluents, moves, goals, percepts, terminal: the nodes the engine reads and writes. */
static void interface(layout_t *L, const term_t *init, uint32_t n_init) {
    gnet_t *net = L->net;
    const game_t *g = L->g;
    const term_store_t *ts = g->ts;
    uint32_t nn = net->n_nodes;
    alloc_interface(net, nn, g->n_roles);
    uint32_t *visit = interface_order(net, ts);
    for (uint32_t v = 0; v < nn; v++) {
        uint32_t n = visit[v];
        term_t t = net->atom[n];
        if (t == TERM_NONE) continue;
        sym_t s = term_sym(ts, t);
        uint32_t ar = term_arity(ts, t);
        if (net->kind[n] == GNODE_FLUENT) {
            uint32_t f = net->n_fluents++;
            net->input[n] = f;
            net->fluent_term[f] = term_arg(ts, t, 0);
            net->fluent_node[f] = n;
            net->next_node[f] = node_of(L, term_find(ts, SYM_NEXT, term_args(ts, t), 1));
            continue;
        }
        if (net->kind[n] == GNODE_MOVE) continue;
        if (net->kind[n] == GNODE_QUERY) {
            net->query_node[net->n_queries++] = n;
            continue;
        }
        if (s == SYM_TERMINAL && ar == 0) net->terminal = n;
        if (ar != 2 || (s != SYM_LEGAL && s != SYM_GOAL && s != SYM_SEES)) continue;
        int role = game_role_index(g, term_arg(ts, t, 0));
        if (role < 0) continue;
        term_t x = term_arg(ts, t, 1);
        if (s == SYM_LEGAL) {
            uint32_t k = net->n_moves[role]++;
            net->move_term[role][k] = x;
            net->legal_node[role][k] = n;
            uint32_t d = node_of(L, term_find(ts, SYM_DOES, term_args(ts, t), 2));
            net->move_node[role][k] = d;
            if (d != GNET_NONE) net->input[d] = k;
        } else if (s == SYM_GOAL) {
            net->goals[role][net->n_goals[role]++] = (gitem_t){n, x, term_number(ts, x)};
        } else {
            net->sees[role][net->n_sees[role]++] = (gitem_t){n, x, 0};
        }
    }
    free(visit);
    net->init = xmalloc((net->n_fluents + n_init + 1) * sizeof *net->init);
    for (uint32_t i = 0; i < n_init; i++) {
        uint32_t n = node_of(L, init[i]);
        if (n != GNET_NONE && net->kind[n] == GNODE_FLUENT)
            net->init[net->n_init++] = net->input[n];
    }
}

static uint32_t remap(const uint32_t *perm, uint32_t n) {
    return n == GNET_NONE ? GNET_NONE : perm[n];
}

/* The numbering of ground.h: fluent inputs, their next nodes (placeholders where there is
 * none), legal nodes role by role, then the rest. */
static void renumber(gnet_t *net) {
    uint32_t nn = net->n_nodes, nf = net->n_fluents, nr = net->n_roles;
    uint32_t *perm = xmalloc((nn + 1) * sizeof *perm);
    for (uint32_t n = 0; n < nn; n++)
        perm[n] = GNET_NONE;
    uint32_t next = 0;
    for (uint32_t f = 0; f < nf; f++)
        perm[net->fluent_node[f]] = next++;
    for (uint32_t f = 0; f < nf; f++, next++)
        if (net->next_node[f] != GNET_NONE) perm[net->next_node[f]] = next;
    net->legal_first = xcalloc(nr + 1, sizeof *net->legal_first);
    for (uint32_t r = 0; r < nr; r++) {
        net->legal_first[r] = next;
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            perm[net->legal_node[r][k]] = next++;
    }
    for (uint32_t n = 0; n < nn; n++)
        if (perm[n] == GNET_NONE) perm[n] = next++;
    uint32_t total = next;
    uint8_t *kind = xmalloc(total + 1);
    term_t *atom = xmalloc((total + 1) * sizeof *atom);
    uint32_t *input = xmalloc((total + 1) * sizeof *input);
    for (uint32_t n = 0; n < total; n++)
        kind[n] = GNODE_FALSE, atom[n] = TERM_NONE, input[n] = GNET_NONE;
    for (uint32_t n = 0; n < nn; n++)
        kind[perm[n]] = net->kind[n], atom[perm[n]] = net->atom[n], input[perm[n]] = net->input[n];
    free(net->kind), free(net->atom), free(net->input);
    net->kind = kind, net->atom = atom, net->input = input;
    net->n_nodes = total;
    for (uint32_t i = 0; i < net->n_order; i++)
        net->order[i] = perm[net->order[i]];
    for (uint32_t l = 0; l < net->n_lits; l++)
        net->lits[l] = perm[net->lits[l] >> 1] << 1 | (net->lits[l] & 1);
    for (uint32_t f = 0; f < nf; f++)
        net->fluent_node[f] = f, net->next_node[f] = nf + f;
    for (uint32_t r = 0; r < nr; r++) {
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            net->legal_node[r][k] = net->legal_first[r] + k;
            net->move_node[r][k] = remap(perm, net->move_node[r][k]);
        }
        for (uint32_t k = 0; k < net->n_goals[r]; k++)
            net->goals[r][k].node = perm[net->goals[r][k].node];
        for (uint32_t k = 0; k < net->n_sees[r]; k++)
            net->sees[r][k].node = perm[net->sees[r][k].node];
    }
    net->terminal = remap(perm, net->terminal);
    for (uint32_t q = 0; q < net->n_queries; q++)
        net->query_node[q] = perm[net->query_node[q]];
    free(perm);
}

gnet_t *glayout_net(const graw_t *w, const game_t *g, const term_t *init, uint32_t n_init) {
    gnet_t *net = xcalloc(1, sizeof *net);
    layout_t L = {.w = w, .g = g, .net = net};
    uint32_t nn = w->n_nodes;
    net->n_nodes = nn;
    net->kind = xmalloc(nn + 1);
    net->atom = xmalloc((nn + 1) * sizeof *net->atom);
    net->input = xmalloc((nn + 1) * sizeof *net->input);
    for (uint32_t n = 0; n < nn; n++)
        net->kind[n] = w->kind[n], net->atom[n] = w->atom[n], net->input[n] = GNET_NONE;
    graw_heads(w, &L.h);
    index_atoms(&L);
    blocks(&L);
    interface(&L, init, n_init);
    renumber(net);
    graw_heads_fini(&L.h);
    htab_fini(&L.tab);
    return net;
}
