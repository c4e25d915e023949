/* UCT Monte-Carlo tree search over an engine (engine.h) (see docs/mcts.md).
 *
 * Any number of roles, decoupled UCT: at each node every role picks its own move by UCB1
 * over its own legal moves, with statistics per (node, role, move); the joint move is the
 * tuple, and children are keyed by it. Goal values 0..100 are scaled to [0,1].
 * Nodes live in a pool allocated up front and grown in big chunks (no allocation per
 * iteration in steady state), never past a memory cap (uct_set_memory_limit); uct_advance
 * keeps the subtree below the joint move played.
 * Score bounds (MCTS-Solver generalised): every node has a proven lower and upper bound of
 * each role's value; terminal nodes and nodes whose rollout hook fires at their own state
 * are exact, a node's bounds follow from its children's (where one role moves: the best
 * of its children's for it; else their span once every joint move has a child, and each
 * choosing role's lower bound at least its security level in pure moves; mirrored in a
 * zero-sum game of two roles), a move that cannot beat its node's lower bound is
 * pruned, and backed-up values are clamped to each node's bounds, so that draws and other
 * proven values propagate, not only wins and losses.
 * Random rollouts run to a terminal state (capped), asking an optional hook at each state
 * whether it can prove the value for the searching role (early termination).
 *
 * A uct_t uses the engine it is given, from one thread at a time. Deterministic for a
 * seed when iteration-bounded (a time budget makes the number of iterations vary). */
#ifndef MCTS_UCT_H
#define MCTS_UCT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "mcts/heur.h"
#include "mcts/playout.h"

/* Called at each rollout state (never a terminal one). Returns the proven value 0..100 of
 * the searching role in s, or -1 to continue the rollout. In a two-role game the other
 * role is given 100 - value (zero-sum assumption; likewise every other role with more). */
typedef int (*uct_rollout_hook_t)(void *ctx, const state_t *s);
/* The same on the engine's own state: no conversion to terms per rollout step (a hook
 * that reads bitset states, mcts/lbs.h); depth: the rollout's steps so far (0: the leaf).
 * Without a rollout policy (or past its depth) it is called inside the engine's own
 * playout loop (engine_playout_hooked): it must call nothing of the engine but the state
 * reads that allows. */
typedef int (*uct_state_hook_t)(void *ctx, const eng_state_t *s, uint32_t depth);

typedef struct uct uct_t;

typedef struct {
    uint64_t iterations;     /* search iterations (cumulative since uct_new / uct_reset_stats) */
    uint64_t rollouts;       /* leaf evaluations by rollout (a hook hit at the leaf: length 0) */
    uint64_t rollout_steps;  /* joint moves played in rollouts */
    double avg_rollout_len;  /* rollout_steps / rollouts */
    uint64_t rollout_capped; /* rollouts stopped by the step cap */
    uint64_t rollout_cut;    /* rollouts cut short and evaluated (uct_set_heuristic) */
    uint64_t hook_calls, hook_hits;
    uint64_t hook_hits_win, hook_hits_loss, hook_hits_other; /* value 100, 0, other */
    double hook_seconds;                                     /* time spent in the hook */
    uint64_t proven_backups;   /* iterations that ended on a proven node without a rollout */
    uint64_t terminal_leaves;  /* new leaves that were terminal (scored without a rollout) */
    uint64_t repeats;          /* iterations that met a state already on their path (a cycle) */
    uint64_t sim_proven;       /* nodes where several roles choose proven (update_bounds) */
    uint64_t sim_secured;      /* ... of those, with a bound only a security level gave */
    uint64_t sep_nodes;        /* nodes expanded found separable (uct_set_sequential) */
    uint64_t nodes;            /* nodes in the tree now */
    uint64_t node_capacity;    /* nodes the pool holds before it grows */
    uint64_t memory_full;      /* iterations that found no room for a node or its moves */
    uint64_t dropped_rollouts; /* rollouts still running at the deadline, not backed up */
    size_t memory_bytes;       /* the tree's memory now (pools as allocated) */
    size_t memory_limit;       /* 0: none */
    uint32_t root_visits;
    double root_value; /* mean value (0..100) for the role at the root; exact if proven */
    bool root_proven;
    int best_line; /* the best line's value (uct_set_best_line; -1: none) */
} uct_stats_t;

/* A search on engine e (not owned; it must outlive the search). */
uct_t *uct_new(engine_t *e, uint32_t role, uint64_t seed);
void uct_free(uct_t *u);

/* Exploration constant C of UCB1 (values in [0,1]); default 1.4. */
void uct_set_exploration(uct_t *u, double c);
/* The exploration constant at nodes where several roles choose at once (simultaneous
 * moves; < 0, the default: C there too), decoupled UCT's and uct_set_sequential's. */
void uct_set_sim_exploration(uct_t *u, double c);
/* UCB1-Tuned (default off): a move's exploration term C sqrt(log N / n) has log N / n
 * weighed by min(1/4, var + sqrt(2 log N / n)), var the variance of its values so far. */
void uct_set_tuned(uct_t *u, bool on);
/* Rollout step cap (default 10000); a capped rollout scores the state's goals (0 if none). */
void uct_set_rollout_cap(uct_t *u, uint32_t cap);
/* The memory cap of the search tree in bytes (0: none; the default is
 * uct_default_memory_limit()). Set before the first search, it may make the first
 * allocation smaller (down to 1024 nodes); later, less than the tree holds means that.
 * A full tree stops growing: iterations still select down it and roll out from its
 * leaves, so the search goes on, with a tree as deep as memory allows. */
void uct_set_memory_limit(uct_t *u, size_t bytes);
/* An eighth of the machine's physical memory. */
size_t uct_default_memory_limit(void);
/* Root parallelism: with 2, a second search with its own tree, random stream and engine
 * (engine_clone) runs on a second thread during uct_choose, and the move is chosen by the
 * root visits of both (while no hook is set: hooks are not thread-safe). False when the
 * engine is the interpreter (not thread-safe) or threads > 2. Deterministic for a seed
 * when iteration-bounded, like one thread. */
bool uct_set_threads(uct_t *u, uint32_t threads);
/* How two threads share the work (default UCT_PARALLEL_ROOT, see uct_set_threads):
 * UCT_PARALLEL_TREE runs both threads on one tree under a lock, each with its own engine
 * (engine_clone) and random stream; a thread takes the lock to select and expand, with a
 * virtual loss on the moves it selected until it backs the rollout up, and rolls out
 * without it. An iteration bound then counts the iterations of both threads, and the run
 * is not deterministic (the threads interleave). One thread, or a hook set, searches as
 * without threads. */
typedef enum { UCT_PARALLEL_ROOT, UCT_PARALLEL_TREE } uct_parallel_t;
void uct_set_parallel(uct_t *u, uct_parallel_t mode);
/* Parses "root" or "tree"; false when the name is neither. */
bool uct_parallel_parse(const char *name, uct_parallel_t *out);
/* Knowledge learnt at start (mcts/heur.h; NULL: none; not owned, shared with the helper
 * thread): rollouts cut after `cut` steps (0: at the leaf; < 0: never) and scored by h's
 * evaluation, and with prior > 0, at a node where one role chooses, each of its moves
 * starts with `prior` visits worth the value of its successor (its goal if terminal,
 * else the evaluation). Set before the search: priors go to nodes expanded after. */
void uct_set_heuristic(uct_t *u, const heur_t *h, int cut, uint32_t prior);
/* Priors relative to the node (default 1: the successor's value as it is): with k != 1 a
 * move's prior value is the node's own evaluation plus k times the change its successor
 * makes to it (clamped to 0..100; a terminal successor keeps its goal), so that an
 * evaluation fitted to random matches, whose values differ little between siblings
 * (a capture moves it by a point), still tells the moves apart, as a player that
 * scores material relative to the position at hand does. */
void uct_set_prior_sharpness(uct_t *u, double k);
/* Implicit minimax backups (Lanctot et al. 2014; default 0: off), with the evaluation of
 * uct_set_heuristic, in a zero-sum game of two roles where one role chooses at a time:
 * each node keeps the minimax value of the evaluations of the states below it (its
 * successors evaluated when it is expanded, a terminal one worth its goal, a proven node
 * its value), updated on the way up every iteration, and UCB takes
 * (1 - alpha) x a move's mean + alpha x its minimax value; an unvisited move of the best
 * minimax value is tried first. Set before the search. */
void uct_set_implicit(uct_t *u, double alpha);
/* Implicit minimax in a game of two roles that is not zero-sum too (default off): there the
 * minimax values are kept on the scale of the goals' difference, (v_r + 100 - v_other) / 2
 * for role r (a terminal state's goals, a proven node's values, the evaluation's pair: the
 * same as v_r where the two add up to 100, as material's do), instead of stopping at the
 * first outcome that does not add up to 100 and leaving each move its successor's
 * evaluation alone, a one-ply greedy value that takes a defended piece (skirmishNew: each
 * role scores its own captures). Where the game is zero-sum nothing changes (with an
 * evaluation whose pair adds up to 100). Set before the search. */
void uct_set_implicit_nonzero(uct_t *u, bool on);
/* Transpositions (default off): one node per state, found by its hash, so that what is
 * learnt about a state reached by several move orders is shared (the tree becomes a
 * graph; a state repeating on a path is scored by a rollout from there). Forgets the
 * tree. */
void uct_set_transpositions(uct_t *u, bool on);
/* Keep the best line (default off; a game of one role only, mcts/bestline.h): the moves
 * from the root to the best terminal state any iteration reached, tree path and rollout,
 * and its goal. In a deterministic game of one role the line is a plan whose goal the
 * root is sure of, so uct_choose plays its first move where that goal beats what the
 * tree's choice is proven to reach; uct_advance keeps the rest of the line when its move
 * was played. True when on (false for a game of more roles). */
bool uct_set_best_line(uct_t *u, bool on);
/* Simultaneous moves (default off): where another role chooses at the same time as the
 * searching one at the root, uct_choose draws the move in proportion to its visits (the
 * mixed strategy decoupled UCT approaches) instead of taking the most visited. */
void uct_set_mixed(uct_t *u, bool on);
/* Separable nodes searched as if turn-taking (default off): at a node where two roles of a
 * zero-sum game choose at once and their moves do not interact (each joint move's
 * successor is both roles' own changes applied to one state, checked on every joint move
 * when the node is expanded: the two boards of connectFourSimultaneous), the searching
 * role selects its move by UCB over its own statistics, and the other role its reply by
 * UCB over the children of that move (a turn-taking node where the searching role moves
 * first): the searching role's statistics approach its pure maximin instead of its value
 * against the other's mix. Elsewhere decoupled UCT as before. Set before the search. */
void uct_set_sequential(uct_t *u, bool on);
/* Score bounds (default on). Off: a proven leaf (terminal, or stopped by the hook) keeps
 * its exact value, but no bound is backed up to the nodes above it, nothing is pruned and
 * the search never stops on a proven root: plain UCT, the "off" side of the enhancement's
 * line in docs/league.md. Set before the search. */
void uct_set_bounds(uct_t *u, bool on);
/* The rollout policy (mcts/playout.h; default uniform: the engine's own playout loop). */
void uct_set_playout(uct_t *u, const playout_opts_t *o);
/* Rollout hook (NULL: none). */
void uct_set_hook(uct_t *u, uct_rollout_hook_t hook, void *ctx);
/* A hook on engine states instead (NULL: none); it replaces the other kind. */
void uct_set_state_hook(uct_t *u, uct_state_hook_t hook, void *ctx);
/* The same for a hook that may run on a thread of the search's own while the caller's
 * thread uses the game's store (it touches neither the store nor the engine): u ponders
 * with it, and its helper thread searches with the hook on helper_ctx (NULL: no helper
 * while the hook is set). Hooks are never called on one context from two threads. */
void uct_set_state_hook_threads(uct_t *u, uct_state_hook_t hook, void *ctx, void *helper_ctx);
/* The state hook's wins choose the root move too (default off; cleared when a hook is set):
 * uct_choose, where the tree has not proven the root a win, plays the first move of the
 * role whose every successor (one per move of the others at the same time, at most
 * 4096 in all) is terminal with goal 100 or proven 100 by the hook, asked as on a tree
 * leaf (depth 0, within its reach). For a hook whose hits are proofs (mcts/bddhook.h):
 * with few iterations the move that wins may never be expanded. Set after the hook. */
void uct_set_hook_moves(uct_t *u, bool on);
/* The state hook is asked on the states of a rollout up to `depth` steps into it only (that
 * one included; default UINT32_MAX: every state): a hook that cannot hit past some depth
 * (mcts/bddhook.h: bddhook_reach) costs nothing there. On both threads; set it while no
 * search runs. */
void uct_set_hook_reach(uct_t *u, uint32_t depth);

/* Searches from s for at most `seconds` (<= 0: no time limit) and at most max_iterations
 * (0: no limit; one of the two must bound it) and returns the move for the role, or
 * TERM_NONE when s is terminal. Reuses the tree when s is the current root's state.
 * The search also stops once the root is proven. With a time limit, a rollout still
 * running at it is dropped, so the call returns within about one engine step of it. */
term_t uct_choose(uct_t *u, const state_t *s, double seconds, uint32_t max_iterations);

/* The joint move (one per role, in role order) was played from the root state: re-roots
 * at the matching child, keeping its subtree, or starts afresh from the successor state. */
void uct_advance(uct_t *u, const term_t *joint);

/* Thinks about s (NULL: the root uct_advance left) on a thread of its own (and the
 * helper's, with two threads), keeping the tree, until uct_ponder_stop or any other call
 * on u, or until max_iterations (0: no bound; a bound is for tests, with
 * uct_ponder_wait): a player searches this way while the opponent thinks. Meanwhile the
 * caller may use the game's term store (add terms) but not u's engine. False (no search)
 * on the interpreter, with a hook set (they use the store) or when s is terminal. */
bool uct_ponder(uct_t *u, const state_t *s, uint32_t max_iterations);
/* Waits until the search uct_ponder started ends by its iteration bound. */
void uct_ponder_wait(uct_t *u);
/* Ends the search uct_ponder started (returns once it has stopped); nothing when none. */
void uct_ponder_stop(uct_t *u);

/* Forgets the tree. */
void uct_clear(uct_t *u);

void uct_stats(const uct_t *u, uct_stats_t *out);
void uct_reset_stats(uct_t *u);

/* Visits of the root's child reached by a joint move (0 when there is none). */
uint32_t uct_child_visits(const uct_t *u, const term_t *joint);
/* After uct_choose: the searching role's move `move` at the root, its visits and mean
 * value (0..100, the role's own); false (0 and 0) when it is not among the root's moves. */
bool uct_root_move(const uct_t *u, term_t move, uint32_t *visits, double *mean);

#endif
