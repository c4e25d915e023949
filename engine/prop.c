/* Change-driven propagation: see prop.h. */
#include "engine/prop.h"

#include <stdlib.h>
#include <string.h>

/* A rule's state side by side with its node: a fan entry's update reads one cache line,
 * where arrays of counts, needs and heads cost three misses on a network of millions of
 * rules (chess's ground network: +48% steps per CPU second; docs/engine.md, Evaluation). */
typedef struct {
    uint32_t left; /* literals that do not hold: the rule holds at 0 */
    uint32_t head; /* its node */
} prop_rule_t;

struct prop {
    const gnet_t *net;
    uint8_t *vals;
    uint32_t *fan_start, *fan; /* per node: the rules it feeds, rule << 1 | negated */
    prop_rule_t *rule;         /* per rule */
    uint32_t *true_rules;      /* per node: rules that hold */
    uint32_t *stack;           /* node << 1 | new value */
    size_t n_stack, cap_stack;
    uint32_t *fluent_of; /* node -> fluent, for inputs and next nodes (GNET_NONE: neither) */
    uint32_t *dirty, n_dirty;
    uint8_t *is_dirty;
    uint32_t *legal_of; /* node -> role << 20 | move index + 1 (0: not a legal node) */
    uint32_t **legal, *n_legal, **legal_pos;
};

static void mark_dirty(prop_t *p, uint32_t node) {
    uint32_t f = p->fluent_of[node];
    if (f == GNET_NONE || p->is_dirty[f]) return;
    p->is_dirty[f] = 1;
    p->dirty[p->n_dirty++] = f;
}

/* Legal-set membership follows the node's current value (idempotent, so the order in
 * which changes of one node are processed does not matter). */
static void sync_legal(prop_t *p, uint32_t node) {
    uint32_t x = p->legal_of[node];
    if (!x) return;
    uint32_t r = x >> 20, k = (x & 0xfffff) - 1;
    uint32_t pos = p->legal_pos[r][k];
    if (p->vals[node] && pos == GNET_NONE) {
        p->legal_pos[r][k] = p->n_legal[r];
        p->legal[r][p->n_legal[r]++] = k;
    } else if (!p->vals[node] && pos != GNET_NONE) {
        uint32_t last = p->legal[r][--p->n_legal[r]];
        p->legal[r][pos] = last;
        p->legal_pos[r][last] = pos;
        p->legal_pos[r][k] = GNET_NONE;
    }
}

static void push(prop_t *p, uint32_t node, uint8_t v) {
    if (p->n_stack == p->cap_stack) {
        p->cap_stack *= 2;
        p->stack = xrealloc(p->stack, p->cap_stack * sizeof *p->stack);
    }
    p->stack[p->n_stack++] = node << 1 | v;
}

static void run(prop_t *p) {
    uint8_t *vals = p->vals;
    while (p->n_stack) {
        uint32_t e = p->stack[--p->n_stack], n = e >> 1, v = e & 1;
        mark_dirty(p, n);
        sync_legal(p, n);
        for (uint32_t i = p->fan_start[n]; i < p->fan_start[n + 1]; i++) {
            prop_rule_t *r = &p->rule[p->fan[i] >> 1];
            uint32_t h = r->head;
            if (v ^ (p->fan[i] & 1)) { /* the literal now holds */
                if (--r->left == 0 && p->true_rules[h]++ == 0) {
                    vals[h] = 1;
                    push(p, h, 1);
                }
            } else if (r->left++ == 0 && --p->true_rules[h] == 0) {
                vals[h] = 0;
                push(p, h, 0);
            }
        }
    }
}

void prop_set(prop_t *p, uint32_t node, uint8_t v) {
    if (p->vals[node] == v) return;
    p->vals[node] = v;
    push(p, node, v);
    run(p);
}

void prop_advance(prop_t *p) {
    const gnet_t *net = p->net;
    /* the new values first (setting an input changes next values) */
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_dirty; i++) {
        uint32_t f = p->dirty[i], nx = net->next_node[f];
        p->is_dirty[f] = 0;
        uint8_t v = nx == GNET_NONE ? 0 : p->vals[nx];
        if (v != p->vals[net->fluent_node[f]]) p->dirty[n++] = f;
    }
    p->n_dirty = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t node = net->fluent_node[p->dirty[i]];
        p->vals[node] ^= 1;
        push(p, node, p->vals[node]);
    }
    /* the flipped ones are off the dirty list already; marking re-adds them */
    run(p);
}

uint32_t prop_legal(const prop_t *p, uint32_t role, const uint32_t **ids) {
    *ids = p->legal[role];
    return p->n_legal[role];
}

/* Fan-out lists and counts from the network and the values it has now. */
static void build_counts(prop_t *p) {
    const gnet_t *net = p->net;
    uint32_t nn = net->n_nodes;
    p->fan_start = xcalloc(nn + 2, sizeof *p->fan_start);
    p->rule = xcalloc(net->n_rules + 1, sizeof *p->rule);
    p->true_rules = xcalloc(nn + 1, sizeof *p->true_rules);
    for (uint32_t i = 0; i < net->n_order; i++)
        for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
            p->rule[r].head = net->order[i];
            for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++) {
                uint32_t x = net->lits[l];
                p->fan_start[(x >> 1) + 2]++;
                p->rule[r].left += !(p->vals[x >> 1] ^ (x & 1));
            }
            p->true_rules[p->rule[r].head] += p->rule[r].left == 0;
        }
    for (uint32_t n = 0; n < nn; n++)
        p->fan_start[n + 2] += p->fan_start[n + 1];
    p->fan = xmalloc((net->n_lits + 1) * sizeof *p->fan);
    for (uint32_t r = 0; r < net->n_rules; r++)
        for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++) {
            uint32_t x = net->lits[l];
            p->fan[p->fan_start[(x >> 1) + 1]++] = r << 1 | (x & 1);
        }
}

static void build_sets(prop_t *p) {
    const gnet_t *net = p->net;
    uint32_t nn = net->n_nodes, nr = net->n_roles;
    p->fluent_of = xmalloc((nn + 1) * sizeof *p->fluent_of);
    for (uint32_t n = 0; n < nn; n++)
        p->fluent_of[n] = GNET_NONE;
    p->dirty = xmalloc((net->n_fluents + 1) * sizeof *p->dirty);
    p->is_dirty = xcalloc(net->n_fluents + 1, 1);
    for (uint32_t f = 0; f < net->n_fluents; f++) {
        p->fluent_of[net->fluent_node[f]] = f;
        if (net->next_node[f] != GNET_NONE) p->fluent_of[net->next_node[f]] = f;
        p->is_dirty[f] = 1; /* at first, any fluent may change */
        p->dirty[p->n_dirty++] = f;
    }
    p->legal_of = xcalloc(nn + 1, sizeof *p->legal_of);
    p->legal = xcalloc(nr + 1, sizeof *p->legal);
    p->legal_pos = xcalloc(nr + 1, sizeof *p->legal_pos);
    p->n_legal = xcalloc(nr + 1, sizeof *p->n_legal);
    for (uint32_t r = 0; r < nr; r++) {
        p->legal[r] = xmalloc((net->n_moves[r] + 1) * sizeof **p->legal);
        p->legal_pos[r] = xmalloc((net->n_moves[r] + 1) * sizeof **p->legal_pos);
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t n = net->legal_node[r][k];
            p->legal_pos[r][k] = GNET_NONE;
            /* a legal node shared by two roles or moves (a constant) is synced per move */
            if (net->kind[n] == GNODE_DERIVED) p->legal_of[n] = r << 20 | (k + 1);
            if (p->vals[n]) {
                p->legal_pos[r][k] = p->n_legal[r];
                p->legal[r][p->n_legal[r]++] = k;
            }
        }
    }
}

prop_t *prop_new(const gnet_t *net, uint8_t *vals) {
    for (uint32_t b = 0; b < net->n_blocks; b++)
        if (net->blocks[b].cyclic) return NULL;
    for (uint32_t r = 0; r < net->n_roles; r++)
        if (net->n_moves[r] >= 0xfffff || r >= 4096) return NULL;
    prop_t *p = xcalloc(1, sizeof *p);
    p->net = net;
    p->vals = vals;
    p->cap_stack = 2 * (size_t)net->n_nodes + 64; /* grows only on long chains of glitches */
    p->stack = xmalloc(p->cap_stack * sizeof *p->stack);
    build_counts(p);
    build_sets(p);
    return p;
}

void prop_free(prop_t *p) {
    if (!p) return;
    for (uint32_t r = 0; r < p->net->n_roles; r++)
        free(p->legal[r]), free(p->legal_pos[r]);
    free(p->legal), free(p->legal_pos), free(p->n_legal), free(p->legal_of);
    free(p->fluent_of), free(p->dirty), free(p->is_dirty);
    free(p->fan_start), free(p->fan), free(p->rule);
    free(p->true_rules), free(p->stack);
    free(p);
}
