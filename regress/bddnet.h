/* The ground network of a game (engine/ground.h) as decision diagrams, and its strong
 * pre-image: the transition of symbolic backward search.
 *
 * Variables: one per fluent (true in the state), and per role a binary code of its move
 * (ceil(log2 moves) variables). Every node of the network becomes a diagram over them, in
 * the network's order, a cyclic block iterated to its least fixpoint; the diagrams kept are
 * terminal, the goals, legal (per role: a relation between the state and the move code)
 * and next (per fluent: a function of the state and the joint move's codes), the latter
 * only for the fluents in the cone of influence of terminal, the goals and the legal moves
 * (the fluents they read, closed under what those fluents' next functions read): a fluent
 * outside changes nothing a set holds, so its state is left free.
 *
 * Variables: the fluents are sorted by name and arguments (numbers by value) and cut into
 * groups, the fluents that differ in their last argument only (the values of one cell); a
 * family of fluents whose value selects another family's cells in some rule (a program
 * counter and the program's lines, bddorder.h) is moved up to just above that family;
 * a group whose values are mutually exclusive (proven: initially at most one holds, and
 * every legal joint move from a non-terminal state keeps it so) is encoded in binary, as
 * Gamer does: ceil(log2(k+1)) variables for k values, code 0 none, j+1 value j, so that no
 * assignment has two values in one cell (with one variable per fluent such assignments
 * make diagrams explode: both colours' lines would run on through a cell); the other
 * fluents have a variable each. A family's cells (the fluents that differ in their last two
 * arguments: a piece's locations) with one value true initially are tried as one group
 * first (opts.families), split back into their cells if that one breaks. Groups are adjacent in
 * board order, each moved as one block by reordering; the move codes are on top.
 *
 * Sets describe non-terminal states (a terminal state's value is its goal, which the
 * caller knows); so terminal and the goals are evaluated on the successor of a
 * non-terminal state only, where much is known (no line is on the board yet: a line after
 * the move is one the move completes). They are made per part of a joint move when a
 * pre-image first reads it, not with the network: on a large board (minichess: 264 joint
 * moves, past 4M nodes together) the first step then gets the moves that fit in its time
 * (bddnet_pre keeps the moves it finished), and a part past the node limit leaves its move
 * out (a subset) instead of refusing the game.
 *
 * Strong pre-image of a set S for a coalition P of roles, the other roles O:
 *   pre_P(S) = ∃ legal joint move a of P ∀ legal joint move b of O:
 *              next(state, a, b) is terminal and in the target, or not terminal and in S
 * P commits first, O answers knowing a. With P = {A} in a turn-taking game, a is A's move
 * where A moves and its no-op where B moves (then b ranges over B's moves): one formula for
 * turn-taking, simultaneous moves, one role (O empty) and coalitions (the others as one
 * player: the paranoid bound). */
#ifndef REGRESS_BDDNET_H
#define REGRESS_BDDNET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/ground.h"
#include "logic/bdd.h"
#include "logic/ddunion.h"

/* Nodes of the network left unknown at most by default. 16 ran out on shmup, quad, zhadu,
 * urmAdd and atariGo_7x7 (2026-11-28, --budget 10): the 17th slow node then ran to the
 * deadline (refused); with 64, shmup's one-hot network builds with 19 unknowns. 64 ran out
 * on atariGoVariant_7x7, whose two cyclic blocks (the liberties) leave 98 unknown: the rest
 * then iterated to the deadline (2026-11-29). Each slot costs two variables, among the
 * others (bddnet.c, unknowns_placed). */
#define BDDNET_UNKNOWNS 128
/* Nodes of diagrams one node of the network may make by default while unknowns are left
 * (opts.node_work) before it is left unknown: see bddnet_opts_t.node_work. */
#define BDDNET_NODE_WORK 500000

typedef enum {
    BDDNET_PER_MOVE, /* one substitution per joint move, the next functions fixed to it */
    BDDNET_SUBST     /* next functions substituted into S at once, move codes free, then ∀/∃ */
} bddnet_image_t;

/* The ∀ of a pre-image (a move of P with several answers) */
typedef enum {
    BDDNET_JOIN,     /* S as one diagram, its parts up to opts.set_nodes (a subset past it):
                        the default */
    BDDNET_AUTO,     /* S as one diagram where it fits and the ∀ over it stays within the
                        caps, else products of unions */
    BDDNET_PRODUCTS, /* products of unions: neither S nor ¬terminal made one diagram (the
                        parts multiply: connect four's α_2 doubles them at every answer) */
} bddnet_forall_t;

/* How the next functions of the nodes that read the joint move are made */
typedef enum {
    BDDNET_NEXT_AUTO,  /* with the move codes free (nodes left unknown where they do not
                          build), where a node is past 50,000 nodes per joint move, and
                          where that fails (more joint moves than opts.max_per_move, a
                          node limit) free again (the default) */
    BDDNET_NEXT_JOINT, /* per joint move some state allows, its move inputs fixed: each a
                          small diagram where "some piece moved to an occupied cell" over
                          every role's free move code is not (3pffa's captures: 108,684
                          nodes each); the next function is their OR, each under its joint
                          move's code (false on codes no state allows together) */
    BDDNET_NEXT_FREE,  /* with the move codes free only (before 2026-11-28) */
} bddnet_next_t;

typedef struct {
    uint32_t max_nodes; /* decision-diagram nodes at most (0: 4 million) */
    double deadline;    /* now_seconds() time when building gives up (0: none) */
    bddnet_image_t image;
    bool moves_below;      /* move codes under the fluents instead of on top */
    bool columns;          /* a fluent's argument with the most values first in the order
                              (connect four: column by column, where the reachable states
                              and, with opts.implications, the sets are small; the default;
                              false: row by row, where the win test alone is smaller) */
    bool selectors;        /* with rules: a family of fluents whose value selects another
                              family's cells placed above it (regress/bddorder.h: urmAdd's
                              program counter above its lines; the default) */
    const game_t *rules;   /* the rules the network was grounded from (NULL: the families
                              in the order of their names alone) */
    bool invariants;       /* binary codes for the groups proven mutually exclusive */
    bool families;         /* with invariants: the cells of a family (the fluents that differ
                              in their last two arguments) with one value true initially
                              tried as one group, one code for a piece's board
                              (mummymaze1p), split back into its cells where the proof
                              breaks (the default) */
    bool implications;     /* the invariant holds the implications between groups proven
                              inductive (regress/bddinv.h: gravity in connect four) */
    bool cone;             /* next functions only for the fluents that may influence
                              terminal, a goal or a legal move (the default; false: all) */
    uint32_t max_per_move; /* PER_MOVE: more joint moves than this use SUBST (0: 4096) */
    uint32_t set_nodes;    /* a pre-image that needs S as one diagram (the others answer
                              in several ways) ORs S's parts while it stays within this many
                              nodes and leaves out the rest, and gives up a move's set past
                              it (a subset: sound; 0: 50,000 and 100,000) */
    uint32_t max_parts;    /* PER_MOVE: a joint move's states split by its effects into at
                              most this many parts, else it is one (0: 64; 1: no split) */
    bool reach;            /* keep the sets within the states reachable (ignoring terminal) */
    double reach_deadline; /* now_seconds(): forward search given up past it (0: none) */
    const uint64_t *start; /* reach from this state (engine state words, engine/fluents.h:
                              bit f is fluent f), one reachable from the initial state (the
                              invariants are proven from there); NULL: the initial state */
    uint32_t horizon;      /* reach: only the states within this many steps of the initial
                              one (0: all; then the search gives up past 20,000 nodes).
                              The sets stay sound (a pre-image within a subset of the
                              states is a subset of it) and S_i holds every state of S_i
                              within horizon - i steps: in connect four the win test is
                              small within a few plies where as one set it is exponential */
    bddnet_forall_t forall;
    bool keep_exclusions; /* products: no exclusion taken out of a part even where it
                             stays small (tests: the exclusions kept and read) */
    uint32_t unknowns;    /* nodes of the network at most left unknown (0: none; the default
                             BDDNET_UNKNOWNS): a node that does not build within its share of the time
                             left (or at a node limit) becomes a free variable, one at the
                             state and one at the successor, and every set is made for all
                             their values (a subset: see bddnet_unknowns) */
    uint32_t node_nodes;  /* a node of the network past this many nodes is left unknown too
                             (while unknowns are left; 0: no such cap): the same on any
                             machine, where the share of the time is not */
    uint32_t node_work;   /* diagram nodes a node of the network may make (BuDDy's count of
                             nodes produced, checked between its rules' operations) before
                             it is left unknown, while unknowns are left (0: no such cap;
                             default BDDNET_NODE_WORK): a slow node then costs about as much
                             on any machine, not a 16th of the time left each (quad's 22
                             slow nodes, atariGo_7x7's 29, ate the budget so) */
    bddnet_next_t next;   /* how the next functions that read the move are made */
    bool move_sets;       /* with the move codes free, a node's rules that are one move
                             (does r m) alone made as the set of their codes at once, bit by
                             bit, instead of ORing their cubes one by one (the default; the
                             same diagram: amazons's 174,000 such rules took its budget);
                             and each role's legal relation as a tree of ite on its code
                             bits, not ∨ of code ∧ legal */
    bool next_bits;       /* per joint move (next_by_joint), a coded group whose values' next
                             nodes all read the move also gets its code bits' next functions,
                             at most one value next and some value next made there, on the
                             joint move's small diagrams, then ORed under its code (the
                             default; the same diagrams as from the values' next functions
                             over the move codes: kalaha_2009's 200 values a pit) */
    uint32_t cut_reach;   /* tests: the forward search cut after this many layers as by its
                             deadline (dd_cut_next), so that running out of time is tested
                             without the clock (0: never) */
    bool cut_codes;       /* tests: a layout with binary codes past its share of the time
                             from the start (its deadline already passed), so that the
                             one-hot network made instead is tested without the clock */
    FILE *trace;          /* progress lines while a pre-image runs (NULL: none): the nodes
                             of a set joined for the ∀ and of each move's set after each
                             answer's part, and the live nodes (a walk each: slower) */
} bddnet_opts_t;

void bddnet_default_opts(bddnet_opts_t *o);

typedef struct bddnet bddnet_t;

/* NULL with a message in err when the network cannot be built within the limits. The
 * network and term store must outlive bn. */
bddnet_t *bddnet_new(const gnet_t *net, const term_store_t *ts, const bddnet_opts_t *o, char *err,
                     size_t errlen);
void bddnet_free(bddnet_t *bn);

dd_t *bddnet_dd(bddnet_t *bn);
const gnet_t *bddnet_net(const bddnet_t *bn);
double bddnet_seconds(const bddnet_t *bn); /* time to build */

/* Fluent f (engine state bit f) as a diagram over the variables (owned by bn). */
dd_ref bddnet_fluent(const bddnet_t *bn, uint32_t f);
/* The fluents whose truth makes state variable v true (a variable of a binary code: the
 * values whose code has that bit), in *fluents (owned by bn); 0 for a move code or an
 * unknown's variable (bddnet_unknowns). */
uint32_t bddnet_var_fluents(const bddnet_t *bn, uint32_t v, const uint32_t **fluents);
/* The variable of every state's fluents, in a flat diagram's tests (ddflat_set_vars). */
void bddnet_flat_vars(const bddnet_t *bn, ddflat_t *f);
/* The positive cube of the state variables (for dd_count). */
dd_ref bddnet_state_vars(const bddnet_t *bn);

/* The breadth-first layers of the reachable states (0: not computed, or given up at the
 * deadline), the seconds it took in *seconds. */
uint32_t bddnet_reach_layers(const bddnet_t *bn, double *seconds);
/* Whether the forward search was given up at its deadline (opts.reach_deadline or the
 * build's): out of time, where past its node caps it gives up for too many states. */
bool bddnet_reach_late(const bddnet_t *bn);
/* The sets are local when the forward search stopped at opts.horizon, or started at
 * opts.start: then D, the steps from the start to the farthest states kept (the sets say
 * what holds within D - i steps of the start: bddnet_within); else UINT32_MAX. */
uint32_t bddnet_local(const bddnet_t *bn);
/* The states within `steps` steps of the start when local (in the invariant; all the kept
 * ones from D on), else the invariant (owned by bn). */
dd_ref bddnet_within(const bddnet_t *bn, uint32_t steps);
/* The image computation in use (PER_MOVE falls back to SUBST past max_per_move). */
bddnet_image_t bddnet_image(const bddnet_t *bn);

/* A target: "the successor is terminal and role's goal value there (engine_goal_value:
 * the highest numeric goal that holds) is at least v (above) or at most v (not above)",
 * made per part with its successor's terminal and goals (every target known then); its
 * number. */
#define BDDNET_NO_TARGET UINT32_MAX
uint32_t bddnet_target(bddnet_t *bn, uint32_t role, int v, bool above);
/* Every target is known: the successors' goal diagrams are freed once a part's targets are
 * made (in connect four most of the network's nodes); a later bddnet_target is a bug (dies). */
void bddnet_forget_goals(bddnet_t *bn);
/* Do two targets hold after the same joint moves in the same states? (The same role and
 * goal items counted: known before any part is made.) */
bool bddnet_same_target(const bddnet_t *bn, uint32_t a, uint32_t b);
/* The role's distinct numeric goal values, ascending (owned by bn). */
uint32_t bddnet_values(const bddnet_t *bn, uint32_t role, const int **values);
/* The assignments that are states: every binary code below its group's size, and
 * reachable from the initial state when opts.reach (the sets are kept within it). */
dd_ref bddnet_invariant(const bddnet_t *bn);
/* Groups of mutually exclusive fluents proven and encoded (0 without opts.invariants). */
uint32_t bddnet_mutex_groups(const bddnet_t *bn);
/* Groups of a family's cells joined (opts.families), proven and encoded. */
uint32_t bddnet_joined_groups(const bddnet_t *bn);
/* Implications between groups proven and kept in the invariant (opts.implications). */
uint32_t bddnet_implications(const bddnet_t *bn);
/* Fluents in the cone of influence (opts.cone: those that may influence terminal, a goal or a
 * legal move; the others' next functions are not made, and no set says anything about them). */
uint32_t bddnet_cone(const bddnet_t *bn);

/* The strong pre-image for the coalition of roles in the bit mask p (bit r: role r): the
 * non-terminal states where P has a joint move after which, whatever the others answer,
 * the successor is terminal and meets the target (BDDNET_NO_TARGET: none) or is not
 * terminal and in S (a set of non-terminal states, a union; empty: none). Added to out,
 * within `within` (the invariant, or a subset of it: bddnet_within), as parts: where P's move has
 * one answer the ∃ is distributed over the parts of the move and of S, and no diagram of the whole
 * is made. False past the deadline (out is then a subset). *exact false: out holds a subset of it
 * (opts.set_nodes, or a set that ran into the node limit, left out): still sound, every state in it
 * is one. The result says nothing about terminal states (its value there is arbitrary).
 * fresh (NULL: all of S, and the target): a frontier, for a caller who holds the pre-image of
 * the rest of S already: the moves with one answer read only fresh's states and not the target
 * (their pre-image distributes over a union), the others all of S and the target (a ∀ does
 * not); out then holds what is new, with more. With the image SUBST fresh is ignored. S's
 * parts may have exclusions (logic/ddunion.h; made by opts.forall PRODUCTS or AUTO, which
 * read them; JOIN leaves such parts out of its join: a subset). */
bool bddnet_pre(bddnet_t *bn, const ddunion_t *s, const ddunion_t *fresh, uint32_t target,
                uint64_t p, dd_ref within, ddunion_t *out, bool *exact);

/* The states where `mover` moves in the turn-taking sense of backward search: every other
 * role's only legal move is its no-op (noop[r], a move term), and the mover's no-op is not
 * legal (owned by bn; noop NULL: false). */
dd_ref bddnet_moves_here(bddnet_t *bn, uint32_t mover, const term_t *noop);

/* Nodes of the network left unknown (opts.unknowns): "some move is available" in amazons
 * or chess, the OR of a local pattern over every square, is exponential as one diagram,
 * and legal or next read it. Such a node is a free variable h (at the state; h' at the
 * successor, where terminal reads it), and the pre-image holds for every value of it: a
 * state's set is ∀h of what was made per part (the real value is one of them: sound, the
 * ∀ outside the ∃ of P's move since h is the state's), the successor's terminal ∃h' and
 * its targets ∀h' per part (before any ∃: the successor's value depends on the move).
 * Every step is then a subset (not complete). */
uint32_t bddnet_unknowns(const bddnet_t *bn);
/* Unknown k (k < bddnet_unknowns): its node in *node, its variable at the state returned
 * (that at the successor the next one, beside it in the order). */
uint32_t bddnet_unknown(const bddnet_t *bn, uint32_t k, uint32_t *node);
/* Of those, the nodes of cyclic blocks (recursive rules: go's liberties), left unknown in
 * the middle of their block's iteration to its least fixpoint (the rest iterated with them
 * fixed, exact where they have their true values). */
uint32_t bddnet_unknowns_cyclic(const bddnet_t *bn);
/* The joint moves whose next functions were made one by one with their inputs fixed
 * (opts.next; 0: with the move codes free). */
uint32_t bddnet_next_joints(const bddnet_t *bn);
/* The rules made as sets of move codes (opts.move_sets) in the last build of the network. */
uint64_t bddnet_move_set_rules(const bddnet_t *bn);
/* The next function of fluent f (over the state and the move codes; not referenced for the
 * caller). */
dd_ref bddnet_next(const bddnet_t *bn, uint32_t f);
/* The next function of state variable v (a code bit: the OR of its values'; DD_FALSE for a
 * move code's or a successor's variable; not referenced for the caller). */
dd_ref bddnet_next_var(const bddnet_t *bn, uint32_t v);
/* Group g's "at most one value next" (any: "some value next", of an uncoded group its
 * first fluent's next) over the state and the move codes, referenced for the caller
 * (DD_NONE past a limit or the last group). */
dd_ref bddnet_group_next(bddnet_t *bn, uint32_t g, bool any);
/* The groups whose code bits' next functions were made per joint move (opts.next_bits). */
uint32_t bddnet_groups_by_bits(const bddnet_t *bn);
/* Role r's legal relation (over the state and its move code; not referenced for the caller). */
dd_ref bddnet_legal_rel(const bddnet_t *bn, uint32_t r);

/* A new deadline for what is built from now on (the parts a pre-image makes, the next
 * steps of a search resumed on this network: bddsearch_more); 0: none. */
void bddnet_set_deadline(bddnet_t *bn, double deadline);

/* The forward search again, from `start` (engine state words) by reach_deadline (0: none),
 * on the same network: its diagrams, joint moves and the parts made so far (their
 * successors' terminal, goals and targets) are kept, the reachable states, the invariant
 * and the layers (bddnet_within) made again, the parts' states cut to the new reachable
 * ones. `start` must be a state the kept states hold (reachable from the last start: the
 * match's state later on), so that every part's states are those a network built from it
 * would have (tests: test_bddsearch); false where the search gave up (bddnet_reach_late
 * tells why), the sets then over the invariant. opts.cut_reach is kept for a start NULL
 * (the initial state again), dropped for any other. The caller drops every set made over the
 * old states (bddsearch_restart). */
bool bddnet_restart(bddnet_t *bn, const uint64_t *start, double reach_deadline);

/* Sifts the variable order now (groups kept together); nodes before and after. */
void bddnet_reorder(bddnet_t *bn, uint64_t *before, uint64_t *after);

#endif
