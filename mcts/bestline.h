/* The best line of a game of one role (a puzzle): the moves from the search's root to the
 * best terminal state any iteration reached, and its goal (uct_set_best_line).
 *
 * In a deterministic game of one role a line is a plan: played move by move it reaches
 * its terminal state, whatever the search thinks of the moves meanwhile, so its goal is a
 * value the root is sure of, where a tree's mean is only an average of random endings.
 * An iteration's line is its path in the tree and then its rollout; the engine's own
 * playout loop records no moves, so a rollout that beats the best line is played again
 * (same start, same random draws) with a hook that notes each state's hash, and its moves
 * are found back by trying the legal moves between consecutive states: rare (only on an
 * improvement), so the rollouts keep their speed. */
#ifndef MCTS_BESTLINE_H
#define MCTS_BESTLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rng.h"
#include "engine/engine.h"

typedef struct {
    term_t *mv;
    uint32_t n;
    size_t cap;
    int value; /* the goal of the state it ends in (0..100); -1: no line */
} bestline_t;

/* One search thread's record of its current iteration's line. */
typedef struct {
    term_t *mv; /* the moves so far: the tree's path, then the rollout's */
    uint32_t n;
    size_t cap;
    eng_state_t *start; /* where the engine's playout started (with `playout`) */
    eng_state_t *a, *b; /* scratch states of the replay */
    splitmix_t rng;     /* the draws it started with */
    bool playout;       /* the rollout ended in the engine's own loop, from start */
    uint64_t *hash;     /* the replay's states */
    uint32_t n_hash;
    size_t cap_hash;
} bestline_rec_t;

void bestline_init(bestline_t *b);
void bestline_fini(bestline_t *b);
void bestline_clear(bestline_t *b);
/* Makes b the n moves of src ending in a state worth value. */
void bestline_set(bestline_t *b, const term_t *src, uint32_t n, int value);
/* The move `played` was played at the root: the rest of the line when it was the line's
 * first move, else no line. */
void bestline_advance(bestline_t *b, term_t played);

void bestline_rec_init(bestline_rec_t *r, const engine_t *e);
void bestline_rec_fini(bestline_rec_t *r);
/* A new iteration: no moves yet. */
void bestline_rec_begin(bestline_rec_t *r);
void bestline_rec_push(bestline_rec_t *r, term_t move);
/* The engine's own playout is about to run from s with these draws. */
void bestline_rec_playout(bestline_rec_t *r, const eng_state_t *s, const splitmix_t *rng);
/* Completes the record with the moves of that playout (at most max_steps of them): played
 * again on e with a hook; false when the moves cannot be found back (a state reached by
 * none of the legal moves: the replay differed). Nothing to do without a playout. */
bool bestline_rec_finish(bestline_rec_t *r, engine_t *e, uint32_t max_steps);

#endif
