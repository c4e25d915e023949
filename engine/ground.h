/* Grounding: a game's rules instantiated over the atoms reachable under relaxed
 * semantics, as a levelled boolean network with dense ids (docs/engine.md, Grounding).
 *
 * Static relations (those that depend on neither `true` nor `does`) are computed exactly and
 * evaluated away. The other relations are derived with negation ignored (an
 * over-approximation of what any state can derive), `next` atoms feeding `true` atoms and
 * `legal` atoms feeding `does` atoms; relations that grow out of bounds are computed only
 * where their readers ask; rules whose instances would be cross products are split into
 * auxiliary relations; the network is optimised (constants folded, equal nodes merged,
 * what the interface does not read removed). The result is a network of nodes: inputs (one
 * per fluent, one per move), constants, and derived nodes (an OR of ANDs of node literals),
 * evaluated in blocks in dependency order; a block is cyclic when ground rules recurse
 * (positive recursion only: GDL is stratified), and is then iterated to its least fixpoint.
 * State blocks depend on the fluents only and come first: those that terminal, legal, next
 * and sees need (the play blocks), then those only goals need; move blocks also depend on
 * the joint move.
 *
 * The network owns its arrays; gnet_free releases them. The game's term store receives
 * the ground terms (one thread at a time, like the reasoner). */
#ifndef ENGINE_GROUND_H
#define ENGINE_GROUND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gdl/rules.h"

#define GNET_NONE UINT32_MAX
/* Bumped when the grounder reaches games it did not: failures remembered by an older one
 * (engine.h, engine_noground_marker) are then tried again (6: wildcard arguments, chess and
 * slaughter under the atom limit); and when its networks change so much that the races
 * remembered against the interpreter no longer hold (7: factoring, gfactor.h: chess's
 * network plays 7x faster). */
#define GNET_GROUNDER_VERSION 7

typedef struct {
    double seconds;     /* give up after this long (0: no limit) */
    uint64_t max_work;  /* give up past this many join steps (candidate atoms tried and
                         * partial bindings reached; 0: no limit): a count, so that whether
                         * a game grounds does not depend on the machine's load (the test
                         * suite's limit) */
    uint32_t max_atoms; /* give up past this many ground atoms (0: no limit) */
    uint32_t max_lits;  /* give up past this many literals in ground rules (0: no limit) */
    bool split;         /* split rules into auxiliary ones where it shrinks the network */
    bool demand;        /* compute relations only where the rules reading them ask */
    bool hybrid;        /* past the atom limit, leave the relations that blew up lifted and read
                         * them through query nodes (gquery.h) */
    bool factor;        /* conjunctions shared by many rules of a node made nodes (gfactor.h) */
    FILE *stats;        /* where to report phases, sizes and the largest relations (or NULL) */
} ground_opts_t;

/* The defaults: 10 s (GGP_GROUND_SECONDS in the environment overrides it, 0: no time
 * limit), no work limit (GGP_GROUND_WORK), 2 million atoms (GGP_GROUND_ATOMS), 20 million
 * literals, rules
 * split (GGP_GROUND_SPLIT=0: not), demand (GGP_GROUND_DEMAND=0: not), hybrid (GGP_GROUND_HYBRID=0:
 * not); wildcard arguments (gany.h) unless GGP_GROUND_ANY=0; factoring (gfactor.h) unless
 * GGP_GROUND_FACTOR=0. */
ground_opts_t ground_default_opts(void);

/* GNODE_FALSE: a placeholder next node of a fluent that is never derived. GNODE_QUERY: an
 * atom of a relation left lifted (gquery.h), an input whose value the engine computes on
 * each state with the rules evaluator. */
enum { GNODE_DERIVED = 0, GNODE_FLUENT, GNODE_MOVE, GNODE_TRUE, GNODE_FALSE, GNODE_QUERY };

typedef struct {
    uint32_t first, n; /* a range of gnet_t.order */
    bool cyclic;
} gblock_t;

typedef struct {
    uint32_t node;
    term_t term;
    int value; /* goals: 0..100 as engine_goal_value reads it, -1 when not a number */
} gitem_t;

typedef struct {
    uint32_t n_nodes;
    uint8_t *kind;   /* GNODE_* per node */
    term_t *atom;    /* the ground atom of each node; an auxiliary relation's atom
                      * (a symbol "aux N", which no game can write) for nodes the grounder
                      * made itself; TERM_NONE for placeholders */
    uint32_t *input; /* fluent or move index of an input node */
    /* the derived nodes in evaluation order, each an OR of rules, each an AND of literals
     * (node << 1 | negated) */
    uint32_t n_order, *order;
    uint32_t *rule_start; /* rules of order[i]: rule_start[i] .. rule_start[i + 1] */
    uint32_t n_rules, *lit_start, n_lits, *lits;
    /* blocks [0, n_play_blocks) play, [.., n_state_blocks) goals only, [.., n_blocks) move */
    uint32_t n_blocks, n_play_blocks, n_state_blocks;
    gblock_t *blocks;
    /* fluents: the `true` atoms reachable */
    uint32_t n_fluents;
    term_t *fluent_term;    /* f of (true f) */
    uint32_t *fluent_node;  /* its input node */
    uint32_t *next_node;    /* node of (next f), GNET_NONE when never derived */
    uint32_t n_init, *init; /* fluent ids of the initial state */
    /* per role: moves (the reachable legal atoms), goals, percepts */
    uint32_t n_roles;
    uint32_t *n_moves;
    term_t **move_term;
    uint32_t **legal_node, **move_node; /* move_node: the input node of (does r m) */
    uint32_t *n_goals, *n_sees;
    gitem_t **goals, **sees;
    uint32_t terminal; /* node of terminal, GNET_NONE when never derived */
    /* query nodes (hybrid grounding): their atoms are net->atom[query_node[i]]; they
     * depend on the state alone */
    uint32_t n_queries, *query_node;
    /* Node numbering: fluent f's input is node f, its next node is n_fluents + f, and
     * role r's legal nodes are legal_first[r] + k, in move order (contiguous bytes, so
     * that advance is a copy and legal moves are counted a word at a time). */
    uint32_t *legal_first;
    double seconds; /* time the grounding took */
    uint64_t work;  /* join steps it took (ground_opts_t.max_work) */
} gnet_t;

/* Grounds g. Returns NULL and a one-line reason in why (size n) when the game does not
 * ground within the limits. */
gnet_t *gnet_new(game_t *g, const ground_opts_t *opts, char *why, size_t n);
void gnet_free(gnet_t *net);

/* Evaluates blocks [from, to) into vals (one byte per node, inputs already set). */
void gnet_eval(const gnet_t *net, uint8_t *vals, uint32_t from, uint32_t to);

#endif
