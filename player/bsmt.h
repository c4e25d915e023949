/* What one role of a GDL-II game can prove about the state, on Z3 (through the bridge,
 * logic/z3.h).
 *
 * The game's ground network (bnet.h) is unrolled, as one circuit (logic/circuit.h), over
 * the history the role has seen: one Boolean per fluent and step (step 0 the initial
 * state), one per move of every role and step with exactly one move per role
 * (pseudo-Boolean AtMost/AtLeast) and each move legal, the fluents of step t+1 equivalent
 * to the `next` atoms of step t, no step before the current one terminal, our own moves
 * as told, and for every percept the role could get its `sees` atom equivalent to whether
 * it was received. Each observation adds one step; nothing is retracted (queries use
 * assumptions and scopes, so learned clauses stay).
 *
 * Queries about the current step: consistency (unsat means the history cannot happen: a
 * bug to report), entailment of a fluent (a model gives a candidate, then its negation
 * is refuted: Algorithm 1 of the killer paper), the set of all entailed fluents, samples
 * of consistent states, the number of consistent states (by enumeration up to a cap),
 * whether a move of ours wins in every consistent outcome, and whether it is risky.
 * Every query that checks takes a deadline (now_seconds() time; 0: none): past it, the
 * answer is unknown (the bridge's rounds of conflicts), never a guess; a Z3 error
 * answers unknown from then on. What is asserted outside a query's scope is also
 * recorded as circuit nodes for CaDiCaL (logic/sat.h), which decides the queries made of
 * assumptions only (legality, risk, wins, bsmt_any_sat: its checks stop at the deadline,
 * Z3's rounds and the internalising of new steps do not); Z3 confirms a proved win and
 * answers the queries that need scopes or Z3's models (entailment, samples, counts). */
#ifndef PLAYER_BSMT_H
#define PLAYER_BSMT_H

#include "base/clock.h"
#include "engine/state.h"
#include "logic/z3.h"
#include "player/belief.h"
#include "player/bnet.h"

typedef struct bsmt bsmt_t;

/* For role index `role` of the network's game. */
bsmt_t *bsmt_new(const bnet_t *n, uint32_t role, uint64_t seed);
/* The same on the ground network gn the game's engine plays on, its belief network made
 * into *net first when *net is NULL (the caller keeps and frees it); NULL, with the reason
 * in err, when the game has no belief network. */
bsmt_t *bsmt_start(bnet_t **net, game_t *g, const gnet_t *gn, uint32_t role, uint64_t seed,
                   strbuf_t *err);
void bsmt_free(bsmt_t *b);
/* Steps observed so far (the current step). */
uint32_t bsmt_step(const bsmt_t *b);

/* One step as the role saw it: its move (TERM_NONE when not told) and its percepts.
 * False when the move or a percept cannot occur in the game at all (the history is
 * then inconsistent). */
bool bsmt_observe(bsmt_t *b, term_t move, const term_t *percepts, uint32_t n);

/* The game goes on at the current step (the caller is asked to move): asserts that the
 * current state is not terminal. On the killer game, a wrong accusation is then known to
 * be wrong at once (the right one would have ended the game). */
void bsmt_live(bsmt_t *b);

/* The observations of a history not observed yet, hist[*fed .. n) (*fed becomes n): the
 * index of the first that cannot occur in the game, UINT32_MAX when every one can. */
uint32_t bsmt_feed(bsmt_t *b, const belief_obs_t *hist, uint32_t n, uint32_t *fed);

/* Our moves the fluents every step makes known make legal at the current step (on the
 * killer game: during the deal, noop), without a solver call: their count, the moves into
 * *moves (caller frees). *complete: every move's legality is known so (the count is then
 * all of our legal moves). Legal in every state the game can reach: sound whatever Z3
 * says. */
uint32_t bsmt_known_legal(bsmt_t *b, term_t **moves, bool *complete);

/* 1 when our move is legal in every consistent state (known, or its illegality refuted
 * by one check), 0 when not, -1 unknown (out of time, or the history not found
 * consistent). */
int bsmt_move_legal(bsmt_t *b, term_t move, double deadline);

/* How many of our moves the known fluents leave open at the current step. */
uint32_t bsmt_open_legal(bsmt_t *b);

/* Our moves legal in every consistent state: those bsmt_known_legal gives, those the
 * consistency check's unit propagation fixes (bsmt_fixed_legal), and each move
 * the known fluents leave open whose illegality CaDiCaL refutes (one check each, no model:
 * reading one cost up to seconds late in the full killer game), the moves of prefer[0..np)
 * first (those the caller expects legal), until the deadline. Their count, the moves into
 * *moves (caller frees); *complete when every move was decided (the count is then all of
 * our legal moves). Only the known ones when the history is not found consistent in time
 * (an inconsistent one would prove every move). */
uint32_t bsmt_proved_legal(bsmt_t *b, const term_t *prefer, uint32_t np, double deadline,
                           term_t **moves, bool *complete);

/* Our moves legal at the current step by construction, with no search: those the known
 * fluents make legal (bsmt_known_legal) and those whose legality CaDiCaL's unit
 * propagation derives from the history (a check of the record's consistency by deadline,
 * then a lookup per move: sat_fixed; on the killer game, after a wrong accusation, whose
 * turn it is). Their count, the moves into *moves (caller frees), in the network's order;
 * *checked when the check answered consistent (else the known ones only). */
uint32_t bsmt_fixed_legal(bsmt_t *b, double deadline, term_t **moves, bool *checked);

/* 1 consistent, 0 not, -1 the solver gave up. */
int bsmt_consistent(bsmt_t *b, double deadline);
/* 1 when fluent holds in every consistent state, 0 when not, -1 inconsistent/unknown. */
int bsmt_entailed(bsmt_t *b, term_t fluent, double deadline);
/* Every entailed fluent, sorted by term id, into *out (caller frees); UINT32_MAX when
 * the history is inconsistent or the solver gave up (deadline). */
uint32_t bsmt_entailed_all(bsmt_t *b, double deadline, term_t **out);
/* Up to k distinct consistent states into out[0..k) (initialised by the caller), random
 * ones; returns how many (past the deadline, those found so far). */
uint32_t bsmt_sample(bsmt_t *b, uint32_t k, double deadline, state_t *out);
/* The same, with the history of each state's model (joints + i * bsmt_step() * n_roles, as
 * bsmt_trajectory); *all set when the states returned are every consistent state. */
uint32_t bsmt_sample_histories(bsmt_t *b, uint32_t k, double deadline, state_t *out, term_t *joints,
                               bool *all);
/* One consistent state, the solver's first (no random phases: the same query as
 * bsmt_consistent, fast when that was just asked; random ones cost seconds at the end of
 * the full killer game's deal). */
bool bsmt_any(bsmt_t *b, double deadline, state_t *out);
/* The same by CaDiCaL on the record of what Z3 was given (logic/sat.h): its check stops
 * at the deadline (Z3's rounds and model building do not), and its model is read by a
 * lookup per fluent (a Z3 model of the full killer game's unrolling took 50-300 ms under
 * load). The encoding of the steps since the last sync (bsmt_sync_proofs) stops at
 * the deadline between entries: sync on idle turns. */
bool bsmt_any_sat(bsmt_t *b, double deadline, state_t *out);
/* The current state of CaDiCaL's last model (its last check answered satisfiable: after
 * bsmt_fixed_legal's check, a consistent state), read by a lookup per fluent with no
 * check; false when there is none to read. */
bool bsmt_sat_model(bsmt_t *b, state_t *out);
/* Up to k distinct consistent states into out[0..k) (initialised by the caller) by
 * CaDiCaL, random phases on a few unknown fluents each; returns how many (past the
 * deadline, those found so far). Not uniform, as bsmt_sample is not. */
uint32_t bsmt_sample_sat(bsmt_t *b, uint32_t k, double deadline, state_t *out);
/* A whole consistent history: the joint move of every step so far (bsmt_step() of them,
 * the roles' moves in game order) into joints[step * n_roles + role]. False when the
 * solver gave up or the history is inconsistent. */
bool bsmt_trajectory(bsmt_t *b, double deadline, term_t *joints);
/* The number of distinct consistent states, counting stops at cap (or past the deadline,
 * at those counted so far). */
uint64_t bsmt_count(bsmt_t *b, uint64_t cap, double deadline);
/* 1 when playing move now ends the game with goal 100 for us in every consistent
 * outcome (whatever the others play), 0 when not, -1 unknown. A proof acted on, so
 * CaDiCaL's answer is confirmed by Z3 before it is 1: unconfirmed in time, or refuted
 * (reported on stderr), it is -1. */
int bsmt_move_wins(bsmt_t *b, term_t move, double deadline);

/* What came of the proofs acted on (bsmt_move_wins): confirmed, not confirmed in time,
 * refuted by the second solver, and the seconds the confirmations took. */
typedef struct {
    uint64_t confirmed, unconfirmed, refuted;
    double seconds;
} bsmt_proofs_t;
bsmt_proofs_t bsmt_proofs(const bsmt_t *b);
/* Gives CaDiCaL what was asserted so far, entry by entry until the deadline (0: none), so
 * that a query on a later turn encodes only the steps since (called on an idle turn; a
 * query encodes what is left by its own deadline, else answers unknown); true when
 * CaDiCaL has it all. */
bool bsmt_sync_proofs(bsmt_t *b, double deadline);

/* Z3 is given what was asserted outside queries BSMT_CHUNK entries at a time, each chunk
 * internalised by a check of its own, so that no check internalises more (Z3_interrupt
 * lands only after internalising: a renewed solver given the full killer game's whole
 * history took 2 s in one check at a 0.5 s clock). A query made while Z3 lags gives it up
 * to BSMT_QUERY_CHUNKS chunks by its deadline, and answers unknown when more than a chunk is
 * left (the player acts meanwhile on CaDiCaL's answers); with no deadline (0) every entry
 * is given at once. */
#define BSMT_CHUNK 512
/* The chunks a query may give by its deadline before it answers unknown: a move turn's
 * lag (a step of the full killer game is about 3 chunks) is caught up, not a renewed
 * solver's whole history. */
#define BSMT_QUERY_CHUNKS 8
/* Catches Z3 up, chunk by chunk until the deadline (0: none; called on an idle turn);
 * true when it is abreast: every entry given, at most a chunk not internalised. */
bool bsmt_catch_up(bsmt_t *b, double deadline);
/* Z3's feed: entries asserted outside queries, given to the current solver, internalised
 * by a check of it; the most entries one check was left to internalise; solvers renewed
 * after an interrupted check (each is given the history again). */
typedef struct {
    size_t entries, given, known, max_batch;
    uint64_t renewed;
} bsmt_feed_t;
bsmt_feed_t bsmt_feed_stats(const bsmt_t *b);
/* For tests only: the next Z3 check is interrupted (z3_test_interrupt), its solver spoiled;
 * chunks of `entries` entries (a small game's whole history fits in one BSMT_CHUNK). */
void bsmt_test_interrupt(bsmt_t *b);
void bsmt_test_chunk(bsmt_t *b, size_t entries);

/* For tests only: asserts into CaDiCaL's record alone (not into Z3, which confirms) that
 * move wins, the kind of wrong answer a confirmation must catch. */
void bsmt_test_false_win(bsmt_t *b, term_t move);

/* 1 when playing move now can lower our goal value (the next state's goal below this
 * one's), or end the game below goal 100 where our goal is not defined now, in some
 * consistent outcome; 0 when in none; -1 unknown. A player asks after bsmt_live (worlds
 * where the game has ended have outcomes of their own, not this match's). */
int bsmt_move_risky(bsmt_t *b, term_t move, double deadline);
/* The same for a set of moves, in one check: 1 when some move of moves[0..n) is risky, 0
 * when none is (with 256 moves a turn, one check instead of 256), -1 unknown. */
int bsmt_moves_risky(bsmt_t *b, const term_t *moves, uint32_t n, double deadline);

/* The statistics of its checks (counts, times, gave up, models, errors). */
z3_stats_t bsmt_stats(const bsmt_t *b);

#endif
