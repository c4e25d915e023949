/* Rollout policies: which joint move a Monte-Carlo rollout plays in a state (docs/mcts.md).
 *
 *   uniform       every role draws uniformly among its legal moves;
 *   MAST          each role with a choice plays, with probability 1 - ε, its move with the
 *                 best mean value over the iterations so far (Move-Average Sampling: one
 *                 average per role and move, whatever the state; a move never seen counts
 *                 as a win, so it is tried), else a uniform one (ε-greedy);
 *   decisive      where a single role has a choice (a turn-taking state), a move that ends
 *                 the game with a win for it (its goal above every other role's) is played;
 *                 where several choose at once, each role's move is drawn first and a role
 *                 that wins at once against the others' drawn moves plays its win;
 *   antidecisive  ...and a move after which the next role with a choice has such a move is
 *                 avoided while another move is left (at simultaneous moves: a role's
 *                 drawn move after which another role wins at once, the others checked at
 *                 their first legal moves). The check of the successor is the
 *                 decisive check of the next step, kept for it: both cost about one
 *                 successor per legal move of a step, where the uniform policy costs one.
 *
 * A policy is used by one thread; it reads the engine only through engine.h's calls that
 * touch no term store on a ground or compiled engine (legal, next, terminal, goals). */
#ifndef MCTS_PLAYOUT_H
#define MCTS_PLAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rng.h"
#include "engine/engine.h"

/* Decisive candidates: per role, the moves seen ending a random match with a win for their
 * mover (playout_cands_learn). A decisive check given them computes the successors of
 * those moves only: on breakthrough a few of a state's 20-30 moves (those onto the last
 * row), so the check costs about a successor a step instead of one per legal move; a
 * decisive move never seen is missed (the check stays exact for the others). */
typedef struct playout_cands playout_cands_t;

typedef struct {
    bool decisive;     /* play a move that wins at once */
    bool antidecisive; /* avoid a move that lets the next mover win at once (implies decisive) */
    double mast_eps;   /* MAST ε-greedy with this ε (0..1); < 0: no MAST (uniform) */
    /* steps of a rollout the policy plays (those nearest the tree, where its checks
     * matter most); the rest are uniform draws by the engine's own loop, many times
     * cheaper a step than the checks (uct.c). 0: the whole rollout. */
    uint32_t depth;
    const playout_cands_t *cands; /* the checks look at these moves only (NULL: all) */
} playout_opts_t;

typedef struct playout playout_t;

typedef struct {
    uint64_t steps;      /* joint moves chosen */
    uint64_t successors; /* successor states computed by the checks (beyond the steps) */
    uint64_t decisive;   /* decisive moves played */
    uint64_t avoided;    /* moves given up because they let the next mover win at once */
    uint64_t cut;        /* steps whose checks the deadline cut short (playout_set_until) */
} playout_stats_t;

/* A policy for engine e (not owned). */
playout_t *playout_new(engine_t *e, const playout_opts_t *o);
void playout_free(playout_t *p);
/* True when the options ask for more than uniform draws. */
bool playout_is_uniform(const playout_opts_t *o);

/* Chooses the joint move in s (not terminal) into joint (one move per role) and its
 * successor into out. False when some role has no legal move (a defective game; out is
 * then not set). Moves of roles with a choice are noted for playout_learn. */
bool playout_step(playout_t *p, const eng_state_t *s, splitmix_t *rng, term_t *joint,
                  eng_state_t *out);

/* The steps of p check successors only until `until` (now_seconds(); 0: no limit, the
 * default): past it a step plays the move its policy drew, its checks left undone, and
 * counts a cut. A check computes a successor for each move, so one step can cost hundreds
 * of states: amazons' 2,176 first moves on the interpreter, seconds; a deadline must stop
 * it (the search's, the cost measure's). */
void playout_set_until(playout_t *p, double until);

/* MAST: a new iteration begins (forgets the moves noted). */
void playout_begin(playout_t *p);
/* Notes role's move of this iteration chosen elsewhere (the tree's moves). */
void playout_note(playout_t *p, uint32_t role, term_t move);
/* The iteration ended with these values (0..100 per role): each noted move's average
 * takes its role's value. */
void playout_learn(playout_t *p, const int *val);
/* Weighs what was learnt down (each average keeps its mean with `keep` of its weight),
 * e.g. between turns, so that the averages follow the game. */
void playout_decay(playout_t *p, double keep);

void playout_stats(const playout_t *p, playout_stats_t *out);

/* Plays random matches from the initial state (engine_random_joint's draws on rng, at most
 * max_plies joint moves each) until `matches` are played (0: no bound) or the deadline
 * (0: none; read at every joint move: a match of a big game on the interpreter outlasts
 * any start clock), and keeps the move of every sole mover whose move ended a match with its
 * win. Read-only once made: any number of policies and threads may share it. */
playout_cands_t *playout_cands_learn(engine_t *e, splitmix_t *rng, uint32_t matches,
                                     uint32_t max_plies, double deadline);
void playout_cands_free(playout_cands_t *c);
/* Moves kept (over all roles), and random matches played. */
uint32_t playout_cands_count(const playout_cands_t *c);
uint32_t playout_cands_matches(const playout_cands_t *c);

/* What a step of policy o costs, in steps of the engine's own uniform loop, measured from
 * s (not terminal) until `deadline` or max_steps of the policy, every rollout restarting at s.
 * Rounds of each in turn (policy steps for a short time, uniform ones as long, at least a
 * chunk of them: so a round the scheduler took from the policy leaves the next), the median
 * of the rounds' ratios of the thread's CPU time; 0 from a state no rollout leaves;
 * HUGE_VAL when no round played a step of both or a policy step's checks were cut by the
 * deadline (a step that does not fit in the time to measure it is too dear to play, and no
 * measure is no reason to play it).
 * Timed: for a player's choice within its start clock (mcts's decisive=auto), not for
 * reproducible results. st (may be NULL) receives what the policy's steps did meanwhile:
 * how often its checks changed a move (decisive, avoided) is what they can be worth. */
double playout_cost(engine_t *e, const playout_opts_t *o, const eng_state_t *s, splitmix_t *rng,
                    double deadline, uint64_t max_steps, playout_stats_t *st);
/* The share of the steps of st where the checks changed a move (a win played, a move
 * avoided: several can be avoided in one step); 0 without steps. */
double playout_acts(const playout_stats_t *st);
/* Whether anti-decisive rollouts are worth a step's cost (in uniform steps, playout_cost)
 * given what their checks did in st: not past a fixed cost, nor past a fixed worth for each
 * move the checks change (a game where they never act gets uniform rollouts). */
bool playout_anti_pays(double cost, const playout_stats_t *st);

#endif
