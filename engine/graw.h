/* The ground network before it is laid out: nodes (with kinds and atoms as in ground.h) and
 * ground rules, each a head node and a conjunction of literals (node << 1 | negated); a node
 * is the disjunction of its rules. The grounder fills it, the optimiser (gopt.h) rewrites
 * it, the layout (glayout.h) turns it into a gnet_t. */
#ifndef ENGINE_GRAW_H
#define ENGINE_GRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdl/term.h"

typedef struct {
    uint32_t n_nodes;
    size_t cap_nodes;
    uint8_t *kind; /* GNODE_* */
    term_t *atom;
    uint32_t n_rules;
    size_t cap_rules;
    uint32_t *head, *first; /* rule i: head[i], literals lits[first[i] .. first[i + 1]) */
    uint32_t n_lits;
    size_t cap_lits;
    uint32_t *lits;
} graw_t;

void graw_init(graw_t *w);
void graw_fini(graw_t *w);
uint32_t graw_node(graw_t *w, uint8_t kind, term_t atom);
/* Starts a rule of head; literals follow with graw_lit. */
void graw_rule(graw_t *w, uint32_t head);
void graw_lit(graw_t *w, uint32_t lit);

/* Rewriting the rules: out starts with w's nodes (taken over, not copied) and no rules;
 * graw_rewrite_end frees w's rules and makes out's rules w's. */
void graw_rewrite_begin(graw_t *out, const graw_t *w);
void graw_rewrite_end(graw_t *w, graw_t *out);

/* Rules grouped by head: rules of node n are order[start[n] .. start[n + 1]). */
typedef struct {
    uint32_t *start, *order;
} graw_heads_t;

void graw_heads(const graw_t *w, graw_heads_t *h);
void graw_heads_fini(graw_heads_t *h);

/* Tarjan's components over the derived nodes (edges to the derived nodes their rules read):
 * order receives the derived nodes dependencies first, comp each one's component. */
void graw_components(const graw_t *w, const graw_heads_t *h, uint32_t *order, uint32_t *comp,
                     uint32_t *n_comps);

/* Whether every literal of sorted a (na of them) is in sorted b (nb): a rule holding
 * another's literals (the optimiser, gopt.c, and factoring, gfactor.c, keep rules sorted). */
bool graw_lits_subset(const uint32_t *a, size_t na, const uint32_t *b, size_t nb);

size_t graw_bytes(const graw_t *w);

#endif
