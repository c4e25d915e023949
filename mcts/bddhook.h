/* Rollout early termination with symbolic backward search (regress/bddsearch.h): α_i and
 * β_i as decision diagrams over the engine's ground fluents, built (at the start of a
 * match within its clock, again from later states: player_mcts.c) for the states within a
 * horizon of D steps of a start state, and read on the engine's bitset states by walks of
 * their flat form: no allocation, no engine call, any thread, inside the engine's playout
 * loop (engine_playout_hooked).
 *
 * Which step: with a horizon, step i holds S_i for the states within D - i steps of the
 * start (bddnet_within), so it shrinks as i grows; inside that region S_i holds S_{i-1}.
 * A state whose nearest path from the start has k steps is in the region of steps
 * 0..D - k. The hook knows a lower bound of the length of a path to the state: the
 * searched state's ply from the start (set by the caller) plus the rollout's depth; it
 * tries the steps whose region may hold the state, from the deepest, α then β. Past the
 * horizon it tries nothing. Without a horizon (every region all states) the deepest
 * complete step holds the shallower ones: one walk per side.
 *
 * Why no Z3 confirmation per hit: a lifted formula is a rewriting of the rules that may go
 * wrong in ways the grounding does not (hence Z3 on the ground terms of the disjunct);
 * these sets are computed from the ground network itself, the one the engine plays on
 * (engine_diff and the corpus traces check it against the interpreter), by the strong
 * pre-image, which is a subset of the true one wherever it is cut (bddnet_pre). Their
 * checks against ground truth are `ggp regress --bdd --check` (exact solver, every state)
 * and `--verify` (bounded search on random matches): 0 false positives on every game of
 * docs/bdd.md, and the unit test of this hook compares its answers with the exact solver.
 * The answer is the paranoid bound: the other roles as one coalition answering knowing our
 * move, so a hit is a proof whatever they play. */
#ifndef MCTS_BDDHOOK_H
#define MCTS_BDDHOOK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "mcts/uct.h"

typedef struct {
    uint32_t horizon;   /* D: the sets within this many steps of the start (1..64; 0: no
                           horizon, every state, until the fixpoints or the deadline) */
    bool columns;       /* the variable order column by column (bddnet_opts_t.columns) */
    bool values;        /* the lower and upper sequences of every goal value too
                           (bdds_opts_t.values): the hook scores a proven value, a draw too */
    uint32_t max_steps; /* the steps made at most (0: until the horizon, the fixpoints or the
                           deadline): a probe of what the network and its forward search cost */
    bool layout_known;  /* an earlier bddhook_new on this engine found its bits the network's
                           fluents: not checked again (the check calls the engine, so without
                           it the build reads only the network and the term store, and may
                           run while a search thread plays out on the engine) */
    uint32_t cut_reach; /* tests: the forward search cut after this many layers as by its
                           deadline (bddnet_opts_t.cut_reach; 0: never) */
    bool reach_first;   /* no horizon: no step where the forward search gives up (too many
                           states; bddhook_info_t.reach_layers 0): the end game's try costs
                           the network and that search only, not the deadline */
    double reach_share; /* of the time to the deadline for the forward search at most (0:
                           bddsearch's default, 0.4) */
    bool resume;        /* a step cut by the deadline is dropped (bdds_opts_t.resume), so that
                           bddhook_more goes on with it at the next turn */
    uint32_t cut_step;  /* tests: step cut_step cut as by the deadline (bdds_opts_t) */
} bddhook_opts_t;

/* horizon 8, columns on (connect four: α_10/β_10 in about 2 s of CPU, docs/bdd.md), values
 * off */
void bddhook_default_opts(bddhook_opts_t *o);

typedef struct bddhook bddhook_t;

/* The sets for `role` on e's ground network, from start (e's bitset state; NULL: the
 * initial state), computed until `deadline` (now_seconds() time; the network included:
 * NULL with a message when it is not built by then), step by step: the steps done by the
 * deadline are kept. NULL with a message when the game is not supported (not grounded,
 * GDL-II, an engine whose bits are not the network's fluents). e must outlive the hook. */
bddhook_t *bddhook_new(engine_t *e, uint32_t role, const eng_state_t *start,
                       const bddhook_opts_t *o, double deadline, char *err, size_t errlen);
void bddhook_free(bddhook_t *h);
/* Goes on from h's steps (made by a build of at most opts.max_steps, no horizon: the
 * start's probe) to at most max_steps (0: until the fixpoints) by `deadline`, on the same
 * network: the network and its forward search are not built again, the steps made are
 * kept. As a build of those limits from the start where h's steps are complete (no step
 * cut: bddhook_info_t.first_partial) and its forward search done (reach_layers): false,
 * h unchanged, otherwise, or with no time left. */
bool bddhook_more(bddhook_t *h, uint32_t max_steps, double deadline);

/* The sets made again from `start` (a state of the match after h's start; NULL: the
 * initial state, the sets global as from bddhook_new's NULL) on h's network, without a
 * horizon (h's none), to at most max_steps steps (0: no limit; a test's lbssteps=N), by
 * `deadline`: the network's diagrams kept (bddsearch_restart:
 * 0.1 CPU s of connect four's 0.2-0.4 s try), the forward search made again from it
 * (reach_share of the time where above 0, else h's share) and the steps after it, none
 * where it gave up with reach_first. As bddhook_new with those options (resume too) from
 * `start`; false, h unchanged, with a horizon or no time left. Its info's seconds are this
 * try's. */
bool bddhook_restart(bddhook_t *h, const eng_state_t *start, bool resume, bool reach_first,
                     double reach_share, uint32_t max_steps, double deadline);

/* The searched state is `ply` steps from the start (the player sets it before each
 * search; read by the hook on any thread). */
void bddhook_set_ply(bddhook_t *h, uint32_t ply);

/* The deepest rollout depth at which a hook whose sets have this horizon (0: none) can
 * hit when the searched state is `ply` steps from their start: horizon - ply (a state
 * farther from the start is in no set, so a walk past it is pure cost), 0 past the
 * horizon (only the leaf's own state is asked: it tries nothing there), UINT32_MAX
 * without a horizon. For uct_set_hook_reach. */
uint32_t bddhook_reach(uint32_t horizon, uint32_t ply);

/* The horizon of the next build from the last one (`horizon`, built in `seconds`, `cut`
 * when a step was cut by its deadline) for a build that may take `budget` seconds: one
 * less when it was cut or overran, one more when it took under a BDDHOOK_GROW-th of the
 * budget (a ply more costs connect four 1.5 to 4 times as much), within min..max (min at
 * least 1). */
#define BDDHOOK_GROW 4.0
uint32_t bddhook_next_horizon(uint32_t horizon, double seconds, bool cut, double budget,
                              uint32_t min, uint32_t max);

/* 100: role forces its goal 100 from the state of words (an α step holds), 0: with two
 * roles the other forces its goal 100 (a β step holds), -1: no proof found; the path
 * the search took to the state has at least `steps` steps (steps whose region ends
 * before are not tried: any hit is a proof, a skipped one a miss). Not for terminal states. */
int bddhook_value(const bddhook_t *h, const uint64_t *words, uint32_t steps);
/* Where a β step holds the state of words (the other role forces its win): the least i
 * of the steps tried as bddhook_value tries them whose β_i holds it, i.e. how many steps
 * the other role needs at most (a cut step is a subset: an upper bound); UINT32_MAX where
 * none does. A state the sets prove lost is left best by the move whose loss is longest:
 * an imperfect winner has the most steps to go wrong (player_mcts.c: longest_loss). */
uint32_t bddhook_loss_steps(const bddhook_t *h, const uint64_t *words, uint32_t steps);
/* Where an α step holds the state of words (role forces its win): the least i of the steps
 * tried as bddhook_value tries them whose α_i holds it (the joint moves to the win at most);
 * UINT32_MAX where none does. */
uint32_t bddhook_win_steps(const bddhook_t *h, const uint64_t *words, uint32_t steps);
/* ab_proven_t (mcts/ab.h; ctx: the bddhook_t): bddhook_value of s at the ply set plus `ply`,
 * *steps its least step (bddhook_win_steps or bddhook_loss_steps). Not for terminal states. */
int bddhook_ab_proven(void *ctx, const eng_state_t *s, uint32_t ply, uint32_t *steps);
/* Of role's legal moves at es (a state `steps` steps from the sets' start, not terminal),
 * one after which the other roles need the most steps to force their win: the least
 * bddhook_loss_steps over their answers (a terminal successor not won by role: 0; none
 * proven: UINT32_MAX, the most). `prefer` (one of the moves) is kept among equals, else
 * the first in the engine's order; `prefer` itself where the successors are more than
 * max_joints (each costs an engine step and a walk of the sets). No move is looked at past
 * `until` (the turn's deadline; <= 0: none): the longest of those seen so far. */
term_t bddhook_longest_loss(const bddhook_t *h, const eng_state_t *es, uint32_t role,
                            uint32_t steps, term_t prefer, uint64_t max_joints, double until);
/* With opts.values: bddhook_value, else the value where the state's proven bounds meet
 * (bddsearch_value: a forced draw scores its value), else -1; without: bddhook_value. */
int bddhook_proven(const bddhook_t *h, const uint64_t *words, uint32_t steps);
/* uct_state_hook_t (ctx: the bddhook_t): bddhook_proven at the ply set plus depth; at
 * depth 0 (a tree node's own state) bddhook_value (see bddhook.c). */
int bddhook_state_hook(void *ctx, const eng_state_t *s, uint32_t depth);
/* Sets u's hook to h on both of its threads (h is only read there: one context serves
 * both), and lets its wins choose the root move (uct_set_hook_moves). */
void bddhook_attach(bddhook_t *h, uct_t *u);

typedef struct {
    uint32_t horizon;       /* D */
    uint32_t alpha, beta;   /* steps made (the deepest i + 1; 0: none) */
    uint32_t first_partial; /* the first step cut by the deadline (UINT32_MAX: none) */
    uint64_t nodes;         /* of the flat diagrams read by the hook */
    uint32_t reach_layers;  /* of the forward search from the start (0: given up, as past 20,000
                               nodes without a horizon: too many states to solve) */
    bool reach_late;        /* reach_layers 0 because the search ran out of time, not past a
                               node cap: the states may be few (bddnet_reach_late) */
    bool solved;            /* no horizon, and every sequence the hook reads ends at a complete
                               fixpoint: it holds every state of its kind, however far (the
                               hook then knows every forced win and loss of the game) */
    double seconds;         /* to build (network and steps) */
} bddhook_info_t;

void bddhook_info(const bddhook_t *h, bddhook_info_t *out);

/* Whether e's state bits are its ground network's fluents (what bddhook_new checks unless
 * opts.layout_known): it calls the engine, so not while a search thread plays out on it. */
bool bddhook_layout_ok(engine_t *e);

#endif
