/* Alpha-beta search on the engine interface, for one role of any game (docs/alphabeta.md).
 *
 * Paranoid: the searching role maximises its own goal value and every other role, as one
 * coalition, minimises it. A state is two levels: the role commits to one of its moves,
 * then the others answer with a joint move (the product of their legal moves). In a turn-
 * taking game one of the two levels has a single choice, so this is plain minimax; in a
 * game of more roles it is the paranoid reduction (max^n would keep each role's own goal,
 * but allows only shallow pruning and is not what the exact solver computes); with
 * simultaneous moves the role is assumed to be seen by the others, as truth/solve.h does.
 * So a search to the end gives solve_value() exactly.
 *
 * Iterative deepening (depth counted in joint moves) until the deadline, the depth bound,
 * or a root value that no depth cut influenced (proven). Enhancements, each switchable:
 *   tt       a transposition table keyed by engine_state_hash: depth, bound, value, the
 *            best move and the best reply; entries proven independent of depth are used at
 *            any depth
 *   history  history-heuristic move ordering, for the role's moves and the others'
 *   pvs      null-window search of every child after the first, re-searched on a fail
 *   id       iterative deepening (off: one search at the depth bound)
 * A state where depth runs out is valued by the evaluation hook when set (the heuristic
 * of a later search), else by the mean goal of a few random playouts (eval=playout, the
 * default), or by the role's goal value where the goal rules define it there (eval=goal:
 * else 50; eval=mixed: else playouts). Playouts won: many games define a constant goal
 * before the end (connect four: 50 until a line), which makes the goal value blind
 * (docs/alphabeta.md). */
#ifndef MCTS_AB_H
#define MCTS_AB_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"
#include "engine/engine.h"

typedef enum {
    AB_EVAL_MIXED,   /* the goal value when defined, else playouts */
    AB_EVAL_GOAL,    /* the goal value when defined, else 50 */
    AB_EVAL_PLAYOUT, /* playouts only */
} ab_eval_kind_t;

typedef struct {
    bool tt, history, pvs, id;
    uint32_t max_depth;   /* 0: no bound (iterative deepening until proven or deadline) */
    uint32_t tt_mb;       /* transposition table size in MiB */
    ab_eval_kind_t eval;  /* the leaf value where depth runs out */
    uint32_t playouts;    /* random playouts per leaf (AB_EVAL_MIXED, AB_EVAL_PLAYOUT) */
    uint32_t playout_cap; /* joint moves per playout at most */
    uint32_t proof_depth; /* the proof hook (ab_set_proven) is asked only at states with at
                             least this many joint moves of depth left (0: the leaves too) */
} ab_opts_t;

/* Every enhancement on, no depth bound, 16 MiB table, leaves valued by 2 playouts. */
void ab_default_opts(ab_opts_t *o);
/* One option "key=value" (tt|history|pvs|id=on|off, depth=N, ttmb=MB,
 * eval=mixed|goal|playout, playouts=N, cap=N); false when unknown or bad. proof_depth is
 * no option: it acts only with a proof hook, which its setter (mcts+lbs: abproof=N) sets. */
bool ab_opt_set(ab_opts_t *o, const char *key, const char *val);
/* The option names, for messages. */
#define AB_OPTS_HELP                                                                               \
    "tt=on|off, history=on|off, pvs=on|off, id=on|off, depth=N, ttmb=MB, "                         \
    "eval=mixed|goal|playout, playouts=N, cap=N"

/* "OPT:OPT..." into o (from ab_default_opts); an option ab_opt_set does not know goes to
 * extra (NULL: none), which says whether it took it, and extra_help lists extra's options
 * for the error. False, with a reason in err, on a bad option (proofdepth=N: one that says
 * where the proof hook is). */
typedef bool (*ab_extra_opt_t)(void *ctx, const char *key, const char *val);
bool ab_opts_parse(ab_opts_t *o, const char *text, ab_extra_opt_t extra, const char *extra_help,
                   void *ctx, strbuf_t *err);

/* A heuristic value 0..100 of s for role, or -1 for none (then the default leaf value). */
typedef int (*ab_eval_t)(void *ctx, engine_t *e, const eng_state_t *s, uint32_t role);

/* A proof about the non-terminal state s, `ply` joint moves below the search's root: 100
 * where the role forces its goal 100 within *steps more joint moves, 0 where the others
 * force its loss within *steps, -1 where none is known (mcts/bddhook.h: bddhook_ab_proven).
 * A proven state below the root is not searched further: its value is exact. Asked at the
 * leaves, and at a state within the depth the table does not hold (a proof is stored there
 * for good: a state it holds was asked before), so a hit must hold at any ply. */
typedef int (*ab_proven_t)(void *ctx, const eng_state_t *s, uint32_t ply, uint32_t *steps);

typedef struct ab ab_t;

/* A search for role on e (not owned: it must outlive the search); seed for playouts. */
ab_t *ab_new(engine_t *e, uint32_t role, const ab_opts_t *o, uint64_t seed);
void ab_free(ab_t *a);
void ab_set_eval(ab_t *a, ab_eval_t eval, void *ctx);
/* Sets the proof hook (NULL: none, the default). With one, wins and losses are scored by
 * distance inside the search (a terminal goal 100 or 0 too, so that a nearer win beats a
 * farther one and a farther loss a nearer one, proven or terminal); ab_result_t.value stays
 * the goal scale. The table is cleared (its values were scored the other way). */
void ab_set_proven(ab_t *a, ab_proven_t proven, void *ctx);
/* Forgets the table and the history. */
void ab_clear(ab_t *a);

typedef struct {
    term_t move;     /* the role's best move at the root; TERM_NONE when terminal */
    int value;       /* its value (-1 when the game defines no goal there) */
    bool proven;     /* the value is exact: no depth cut reached it */
    uint32_t depth;  /* the deepest iteration completed (0: none) */
    uint64_t nodes;  /* states searched, over every iteration */
    uint64_t leaves; /* states valued where depth ran out */
    uint64_t tt_hits;
    uint64_t tt_cuts; /* states the table settled: not searched, their moves not read */
    uint64_t loads;   /* states whose legal moves were read from the engine (every role's) */
    uint64_t proofs;  /* states the proof hook settled */
    uint32_t mate;    /* with the proof hook, a root value 100 or 0: the joint moves to the win
                         or loss at most (proven: a path of terminal states and proofs) */
    bool timed_out;   /* the deadline cut an iteration short */
} ab_result_t;

/* Called after each completed iteration (best move so far in r), NULL for none. */
typedef void (*ab_progress_t)(void *ctx, const ab_result_t *r);

/* Searches s (deadline: now_seconds() value, 0 for none; the depth bound or the deadline
 * must bound a game that can last for ever). With a deadline, returns within about one
 * state's cost of it; the move is then the best of the last completed iteration, or one
 * that beat it in the interrupted one; without any completed iteration, the first legal
 * move in the search's order. */
void ab_search(ab_t *a, const eng_state_t *s, double deadline, ab_progress_t progress, void *ctx,
               ab_result_t *out);

/* The value of the role's move `move` in s (the others' best answer to it), searched as
 * ab_search searches s (to max_depth joint moves at most when not 0, else the options'
 * bound): out->move is `move`. For a caller that compares moves by value rather than
 * taking the best one (PIMC sums each move's values over sampled worlds). A move not legal
 * in s: out->move is TERM_NONE (and the value the goal value there). */
void ab_search_move(ab_t *a, const eng_state_t *s, term_t move, uint32_t max_depth, double deadline,
                    ab_result_t *out);

#endif
