/* An evaluation of states learnt from the rules and random matches in the start clock
 * (issue 25, item 3): what predicts how a random match ends.
 *
 * Candidate features, read off the engine's fluents and states:
 *   pieces    for every fluent functor, argument position and constant there, how many
 *             such fluents hold (cell(_, _, white): white's pieces), and how many of a
 *             functor hold at all;
 *   goals     each role's goal value in states that are not terminal, where the rules
 *             define it;
 *   mobility  each role's number of legal moves.
 * heur_learn plays random matches until its deadline and keeps a few states of each with
 * the match's outcome; every candidate is weighed by its correlation with each role's
 * outcome, the strongest few are fitted by ridge regression on two thirds of the matches,
 * and the fit is kept only when it predicts the outcome of the other third better than a
 * constant does (its R² is the measure). A grounded engine is needed (bit states).
 *
 * heur_eval reads the engine only through calls that touch no term store (a search
 * thread may evaluate while another thread uses the store). */
#ifndef MCTS_HEUR_H
#define MCTS_HEUR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rng.h"
#include "engine/engine.h"

typedef struct heur heur_t;

typedef struct {
    uint32_t matches;  /* random matches played */
    uint32_t samples;  /* states kept (train and test) */
    uint32_t features; /* candidates considered, then used */
    uint32_t used;
    double r2; /* on the held-out matches, of the first role's outcome */
} heur_stats_t;

/* Learns from at most max_matches random matches (0: no bound) by deadline (now_seconds();
 * 0: none; one of the two must bound it); NULL when nothing predicts the outcome (or the
 * engine has no bit states, or too few matches ended). log (NULL: silent) gets one line:
 * the features kept and the fit. */
heur_t *heur_learn(engine_t *e, double deadline, uint32_t max_matches, splitmix_t *rng, FILE *log);
/* Material instead of a fit (Sancho's and Clune's assumption that pieces are worth having):
 * the fluents that carry a role's name (cellholds(_, _, white): white's pieces), of the
 * functor and argument with the most such fluents in s0 (the initial state) where every
 * role has at least two; a role's value is 100 / (1 + exp(-scale (n_r - n) / n)), n_r its
 * pieces and n the roles' mean. NULL when there is no such kind of fluent (or no bit
 * states), or when the value never changes in a few random matches from s0 (pieces never
 * taken). log (NULL: silent) gets one line. */
heur_t *heur_material(engine_t *e, const eng_state_t *s0, double scale, FILE *log);
/* The same by a deadline (now_seconds(); 0: none): the random matches that look for a
 * change stop there, and material not seen changing by then is none (NULL). */
heur_t *heur_material_by(engine_t *e, const eng_state_t *s0, double scale, double deadline,
                         FILE *log);
/* Adds to a material evaluation (heur_material) each role's advancement: how far its
 * pieces are from its goal, in its own moves, read off the ground network
 * (mcts/advance.h); a piece is worth more the closer it is, and a role's most advanced
 * piece more again. False (h unchanged) where some role's pieces have no such distances,
 * or all within one move of the goal (pieces that do not move towards a goal: connect
 * four's discs, the marks of tic-tac-toe), or h is not material. log (NULL: silent) gets
 * one line. */
bool heur_advance(heur_t *h, engine_t *e, FILE *log);
/* The same by a deadline (now_seconds(); 0: none): the network's reading stops there, and
 * advancement not read by then is none (false). */
bool heur_advance_by(heur_t *h, engine_t *e, double deadline, FILE *log);
/* Adds to h (a material evaluation, or NULL: a new evaluation of counters alone) a score
 * counter (mcts/counter.h: box_count(xplayer, 3)), the one among the game's whose lead
 * (a role's value minus the roles' mean) correlates most with the outcome of random
 * matches from the start (at most 90, by deadline: now_seconds(), 0 for none), the same
 * way on the third held out, among those that are scores (the lead at the matches' end
 * decides them, the value never falls: not cubicup's cubes left, spent by the end, nor
 * checkers' pieces or a coordinate); a role's value is then 100 / (1 + exp(-scale (m + c))), m
 * material's balance above (0 without) and c = (v_r - v) / (R / 2), v_r its counter, v
 * the roles' mean, R the counter's range (negated for a counter whose lead loses). h as
 * it was (NULL stays NULL) where no counter predicts. log (NULL: silent) gets one line. */
heur_t *heur_counter(heur_t *h, engine_t *e, const eng_state_t *s0, double scale, double deadline,
                     FILE *log);
void heur_free(heur_t *h);

/* The predicted value of state s for every role, 0..100, into val; e is the caller's
 * engine on the same game (a search thread's own clone, say). No allocation, no state
 * in h: threads may share h. */
void heur_eval(const heur_t *h, engine_t *e, const eng_state_t *s, double *val);

/* The average length of the random matches heur_learn played (plies). */
double heur_match_length(const heur_t *h);

void heur_stats(const heur_t *h, heur_stats_t *out);

#endif
