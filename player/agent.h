/* One match from one role's point of view: the game, an engine (for GDL the interpreter, then
 * a clone of the player's own engine once it has made one at start; the fastest one for
 * GDL-II belief tracking), what the role knows of the state (belief.h) and the
 * player choosing its moves. The server's worker thread drives an agent from protocol messages;
 * `ggp match` drives one per local seat.
 *
 * An agent is used by one thread: the one that owns the game's term store. */
#ifndef PLAYER_AGENT_H
#define PLAYER_AGENT_H

#include "gdl/casemap.h"
#include "player/player.h"

typedef struct {
    const player_kind_t *kind;
    double startclock, playclock;
    uint64_t seed;
    bool verbose;
    /* GDL-II: the agent's own engine (belief tracking's: the game ground) is made by then
     * (now_seconds(); 0: no deadline but the grounder's own limit): a START's, so that its
     * grounding does not outlast the start clock (SmallDominion2: 10 s of a 2 s clock) */
    double ready;
} agent_config_t;

typedef struct agent agent_t;

/* An agent for the game of a START: rules (text the KIF parser reads), the raw message
 * (spellings of symbols are taken from it), and our role (text). The agent owns the game.
 * NULL with a one-line reason in err when the rules do not load or the role is not one. */
agent_t *agent_load(const char *rules, const char *raw, size_t raw_len, const char *role,
                    const agent_config_t *cfg, strbuf_t *err);
/* An agent on a game the caller owns and keeps alive (role: index in role order). */
agent_t *agent_new(game_t *g, uint32_t role, const agent_config_t *cfg);
void agent_free(agent_t *a);

game_t *agent_game(const agent_t *a);
/* Why the match can no longer be reasoned about (an engine of the agent or its player gave
 * up on the game: engine_error), NULL while it can. From then on the agent knows no legal
 * move, and its caller answers with what it kept (agent_guess, agent_first_move). */
const char *agent_error(const agent_t *a);
/* Our first legal move in the initial state (computed once, before any meta-gaming, so
 * that an answer is ready when preparation outlasts the start clock); TERM_NONE when there
 * is none. */
term_t agent_first_legal(agent_t *a, double deadline);
/* Meta-gaming until deadline (after agent_first_legal, which it calls if needed). */
void agent_start(agent_t *a, double deadline);
/* The first step of agent_start with the same deadline, alone: the player makes its engine
 * (a player that makes one), so that agent_cut_short can be read before the meta-gaming,
 * which on the interpreter may outlast the clock by far. agent_start then goes on. */
void agent_make_engine(agent_t *a, double deadline);

/* GDL: whether the player's engine is the interpreter only because agent_start's deadline
 * cut its grounding short (engine_grounding_cut): a second agent made with agent_prepare
 * may play the match faster. */
bool agent_cut_short(const agent_t *a);
/* The clock of a second agent's preparation (agent_prepare), in seconds: the players give
 * their engine 80% of it, the grounder's default limit (10 s, GGP_GROUND_SECONDS); the
 * compiler is waited for until then, and past it the engine plays the network until its
 * code is ready (so that the match leaves the interpreter as soon as the game is ground). */
#define AGENT_PREPARE_SECONDS 12.5
/* Instead of agent_start, for such a second agent: makes the player's engine only, with no
 * clock but the grounder's own limit (no meta-gaming, no search), and tracks the match on
 * it. May run on a thread of its own: the agent's game and term store are its own. The
 * kind of engine the match is then tracked on. */
engine_kind_t agent_prepare(agent_t *a);
/* No second agent will replace this one (none was made, or it was dropped): the player's
 * engine is the match's (player_t.engine_final). */
void agent_engine_final(agent_t *a);
/* The kind of engine the player plays on (the agent's own when the player has none). */
engine_kind_t agent_engine_kind(const agent_t *a);

/* GDL: every role's move of the last turn, in role order. */
void agent_advance(agent_t *a, const term_t *joint);
/* Same from texts; false with a reason in err (the state is then left as it was). */
bool agent_advance_text(agent_t *a, char *const *moves, uint32_t n, strbuf_t *err);
/* GDL-II: what the game master told us at turn `turn` (our last move, TERM_NONE when NIL,
 * and our percepts). Turn 0 and repeated turns change nothing. */
void agent_observe(agent_t *a, uint32_t turn, term_t lastmove, const term_t *percepts, uint32_t n,
                   double deadline);
bool agent_observe_text(agent_t *a, uint32_t turn, const char *lastmove, char *const *percepts,
                        uint32_t n, double deadline, strbuf_t *err);

/* Our move for this turn, by deadline (best effort: engine calls are not interrupted);
 * moves are offered to sink as they are found, and only moves proven legal in the current
 * state (the first legal move as soon as the legal moves are known, then the player's
 * choices among them). TERM_NONE when no legal move is known. */
term_t agent_play(agent_t *a, double deadline, move_sink_t *sink);
/* The match is over. */
void agent_stop(agent_t *a);
/* Adds the player's search counters to *sum (player_search); false when it keeps none. */
bool agent_search(const agent_t *a, player_search_t *sum);
/* After answering `played` (GDL, the state known): the best guess at our next move, the
 * answer the server falls back on if the next turn's reasoning outlasts the clock. When the
 * other roles had no choice it is our first legal move in the state `played` leads to; that
 * state and our legal moves there are kept, and the next agent_advance and agent_play take
 * them instead of asking the engine again when the turn goes as predicted. Else one of
 * our other choices of our last turn with a choice (a guess, not proven). TERM_NONE when
 * there is no guess. Costs a state update and a legal-move computation at most. */
term_t agent_ponder(agent_t *a, term_t played);

/* A move to answer when there is no time to find a legal one: the move of a legal rule
 * written with a ground move for our role (like `noop`), else TERM_NONE. */
term_t agent_guess(const agent_t *a);
/* The first legal move of the initial state, as computed by agent_start (TERM_NONE when
 * there is none). */
term_t agent_first_move(const agent_t *a);
/* Appends a move in the game master's spelling: "( mark 3 3 )". */
void agent_print_move(const agent_t *a, term_t move, strbuf_t *out);
/* Appends a one-line summary of the last turn (for --verbose logs). */
void agent_stats(const agent_t *a, strbuf_t *out);

#endif
