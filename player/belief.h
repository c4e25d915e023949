/* What one role knows about the state of a match: the set of states consistent with what
 * it was told. In GDL it is told every joint move, so the set is the one true state. In
 * GDL-II it is told only its own move and its percepts; the set is then every successor of
 * a believed state under some joint move that includes our move and yields exactly our
 * percepts.
 *
 * The set is bounded: when more states are consistent than it holds, or when time runs
 * out, it is a uniform sample (reservoir) of those found. A sample can lose the true state;
 * when no believed state explains new percepts, the set is rebuilt by randomised
 * depth-first replays of the history of moves and percepts: first from the sets believed a
 * few turns back (kept for this), then from the initial state, within the time left. Only
 * if that finds nothing either are the successors under our move kept regardless of
 * percepts. The set is never empty. */
#ifndef PLAYER_BELIEF_H
#define PLAYER_BELIEF_H

#include "base/rng.h"
#include "engine/engine.h"

/* One observation: our move (TERM_NONE when not told) and our percepts, sorted by id. */
typedef struct {
    term_t move;
    term_t *percepts;
    uint32_t n_percepts;
} belief_obs_t;

#define BELIEF_SNAPSHOTS 4

/* The believed set before observation number `first` of the history. */
typedef struct {
    state_t *states;
    uint32_t n;
    uint32_t first;
} belief_snap_t;

typedef struct {
    engine_t *e;            /* the state machine every successor is computed with */
    eng_state_t *cur, *nxt; /* a believed state and a successor, in the engine's form */
    uint32_t role;
    state_t *states;
    uint32_t n, cap;
    uint32_t max_states; /* bound on n */
    bool complete;       /* states are all the consistent states (no sampling, no fallback) */
    uint32_t regenerated, relaxed; /* times the history was replayed / percepts ignored */
    belief_obs_t *hist;            /* every observation so far */
    uint32_t n_hist;
    size_t cap_hist;
    belief_snap_t snaps[BELIEF_SNAPSHOTS]; /* the most recent first */
    uint32_t n_snaps;
    splitmix_t rng;
    bool history_only; /* only record observations (the player tracks belief itself) */
} belief_t;

/* Starts from the initial state, on engine e (borrowed; a ground or compiled engine
 * computes successors and percepts much faster than the interpreter). Believed states are
 * kept as terms, and every engine gives the same sets for a seed: legal moves are taken
 * in the canonical order (term_sort). */
void belief_init(belief_t *b, engine_t *e, uint32_t role, uint64_t seed);
void belief_fini(belief_t *b);
/* Goes on on engine e (borrowed, on the same game): the believed states are terms, so
 * nothing else changes. */
void belief_set_engine(belief_t *b, engine_t *e);
/* GDL: every role's move is known (joint in role order). */
void belief_advance(belief_t *b, const term_t *joint);
/* GDL-II: our move (TERM_NONE when unknown) and our percepts were told; work stops at
 * deadline (the set is then a sample). */
void belief_observe(belief_t *b, term_t move, const term_t *percepts, uint32_t n_percepts,
                    double deadline);
/* The role's legal moves, sorted canonically, into *moves (caller frees): the moves of
 * the first believed state that are legal in every other believed state examined before
 * deadline, or all of the first state's if none is common. 0 when it has none. *exact
 * (may be NULL): the moves are legal in every consistent state (the set is complete,
 * every state of it was examined, and some move is common to all). */
uint32_t belief_legal(belief_t *b, term_t **moves, double deadline, bool *exact);

#endif
