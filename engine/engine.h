/* The state machine every player, search and tool uses: one interface, three backends.
 *
 *   interp    the interpreter (reason.h, used inside engine/ only; interp.c) on term
 *             states (state.h);
 *   ground    the grounded network (ground.h) on bitsets of fluent ids;
 *   compiled  the same network as C code, compiled with the system's C compiler at load
 *             time and loaded with dlopen (cached per game text; see compile.h).
 *
 * engine_new(ENGINE_AUTO) takes the fastest that works: compiled, else ground, else the
 * interpreter, saying in one line on the log why it fell back; it plays a network without
 * compiled code only where a short race finds it faster than the interpreter (race.h). States
 * are opaque, made by the engine that uses them (engine_state_new); moves and percepts are
 * terms of the game's store. Results returned through pointers live in the engine until its
 * next call. An engine is used by one thread at a time; engine_clone gives another thread
 * its own (sharing the read-only network). */
#ifndef ENGINE_ENGINE_H
#define ENGINE_ENGINE_H

#include <pthread.h>
#include <stdio.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/state.h"
#include "gdl/rules.h"

typedef enum { ENGINE_AUTO, ENGINE_INTERP, ENGINE_GROUND, ENGINE_COMPILED } engine_kind_t;

typedef struct engine engine_t;
typedef struct eng_state eng_state_t;

/* Parses "auto", "interp", "ground", "compiled"; false when the name is none of these. */
bool engine_kind_parse(const char *name, engine_kind_t *out);
const char *engine_kind_name(engine_kind_t k);

/* The kind players make their engines with (default ENGINE_AUTO): the --engine option
 * of ggp match and ggp serve sets it once, before any player is made. */
void engine_set_default_kind(engine_kind_t k);
engine_kind_t engine_default_kind(void);

/* A state machine for g (which must outlive it). A forced kind that cannot be built
 * falls back like ENGINE_AUTO does, with its line on log (NULL: silent). */
engine_t *engine_new(game_t *g, engine_kind_t kind, FILE *log);
/* The same, ready by deadline (now_seconds(); 0: no deadline): grounding stops at the
 * deadline (falling back to the interpreter, a failure not remembered in the cache), and
 * when the compiler outlasts it the engine starts on the ground network and switches to
 * the compiled code between two calls once it is ready (engine_kind then says so). */
engine_t *engine_new_by(game_t *g, engine_kind_t kind, FILE *log, double deadline);
/* The file in the cache (GGP_CACHE, else ~/.cache/ggp) where a failure to ground g is
 * remembered: its first line the reason; "limit S" on the second when it ran out of S
 * seconds (then only limits up to S fall back at once). Deleting it makes the next load
 * try again. */
void engine_noground_marker(const game_t *g, char *out, size_t n);
/* The file in the cache where the race of g's ground network against the interpreter is
 * remembered (when the network gets no compiled code, or on a big network whose code is
 * still compiling at the deadline): "ground R" and "interp R", steps of
 * random playouts per CPU second, and "literals N", the network's size; the later loads
 * decide on them without racing (the interpreter where it is faster by a margin: race.h),
 * and without grounding when the interpreter won and N is still over the compiler's cap.
 * Deleting it races again. */
void engine_race_marker(const game_t *g, char *out, size_t n);
/* The same for the race of the engine auto made on a big network (race_interp_lits: its
 * compiled code where the code's race kept it, else the network) against the interpreter,
 * "ground R" then being that engine's rate: a later load that finds the interpreter faster
 * takes it at once, without grounding. */
void engine_vsinterp_marker(const game_t *g, char *out, size_t n);
/* The stack to give a thread that runs an engine: the interpreter's recursion may use 4 MiB
 * of it (REASON_STACK_BUDGET) before it gives up. Set explicitly, because a thread's
 * default size follows `ulimit -s`, which may be smaller (and is 2 MiB when unlimited). */
#define ENGINE_THREAD_STACK ((size_t)16 << 20)
/* Starts a thread that may run an engine (fn(arg)) with ENGINE_THREAD_STACK: pthread_create's
 * result, 0 when started. */
int engine_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* Another engine on the same network or rules, for another thread. */
engine_t *engine_clone(const engine_t *e);
void engine_free(engine_t *e);
engine_kind_t engine_kind(const engine_t *e);
/* Why the engine can no longer answer for this game (a rules evaluator of its own gave up
 * on a relation past its cap: reason.h), NULL while it can. Once set it stays, and the
 * answers are not to be trusted: the interpreter's are empty (every state terminal, no
 * legal moves, goals or fluents, so that a search ends at once), a ground network's query
 * nodes read false. Whoever plays a match reads this to say so and fall back. */
const char *engine_error(const engine_t *e);
/* Whether evaluating states builds terms in the game's store (the interpreter; a ground
 * network with query nodes, hybrid grounding): such an engine must not run while another
 * thread uses the store. */
bool engine_uses_store(const engine_t *e);
/* The game (its term store receives the terms the engine builds). */
game_t *engine_game(const engine_t *e);
/* Seconds spent grounding and compiling when it was made; an interpreter chosen after a
 * grounding (given up, or raced and slower) reports that grounding's seconds. */
double engine_ground_seconds(const engine_t *e);
double engine_compile_seconds(const engine_t *e);
/* Whether e is the interpreter only because engine_new_by's deadline cut grounding short
 * (not a game that does not ground, nor an interpreter a race chose): the same game made
 * without that deadline may ground. */
bool engine_grounding_cut(const engine_t *e);

eng_state_t *engine_state_new(const engine_t *e);
void engine_state_free(eng_state_t *s);
void engine_state_copy(eng_state_t *dst, const eng_state_t *src);
bool engine_state_equal(const eng_state_t *a, const eng_state_t *b);
uint64_t engine_state_hash(const eng_state_t *s);
/* The fluents of s as terms (in the interpreter's order), and back. */
void engine_state_terms(engine_t *e, const eng_state_t *s, state_t *out);
void engine_state_set(engine_t *e, eng_state_t *s, const state_t *in);

void engine_initial(engine_t *e, eng_state_t *out);
bool engine_terminal(engine_t *e, const eng_state_t *s);
/* Legal moves of role number `role`; *moves owned by e. */
uint32_t engine_legal(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **moves);
bool engine_is_legal(engine_t *e, const eng_state_t *s, uint32_t role, term_t move);
/* The goal value term of a role; TERM_NONE when it has none or more than one. */
term_t engine_goal(engine_t *e, const eng_state_t *s, uint32_t role);
/* Every goal value of the role that holds (none, one, or several in a defective game);
 * *values owned by e. */
uint32_t engine_goals(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **values);
/* Goal as an integer; -1 when undefined or not a number. When the rules derive several
 * values (a defective game) the highest (gdl/term.h term_highest_number): the one reading
 * of the project, the same as backward search's goal(R, 100) and the solver's. On a ground
 * or compiled engine it reads no term store, like legal, next, terminal and the state
 * calls other than _terms/_set: a search may run them on a thread of its own while
 * another thread adds terms to the game's store. */
int engine_goal_value(engine_t *e, const eng_state_t *s, uint32_t role);
/* The successor for a joint move (one legal move per role, in role order). */
void engine_next(engine_t *e, const eng_state_t *s, const term_t *joint, eng_state_t *out);
/* GDL-II: what role sees when joint is played in s; *percepts owned by e. */
uint32_t engine_sees(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t role,
                     const term_t **percepts);

/* All ground tuples of relation `pred` (an index of g->preds) in state s under joint move
 * joint: s NULL for a static relation (one that depends on neither), joint NULL for one
 * that does not depend on `does`. Returns n tuples of the predicate's arity, one after the
 * other, owned by e until its next call. Every backend answers with the rules evaluator
 * (reason.h): the interpreter on its own states; the ground backends through an
 * interpreter of their own, made on first use and given s as terms, since their network
 * keeps only what play reads (static relations are evaluated away when grounding). */
uint32_t engine_query(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t pred,
                      const term_t **tuples);

/* ---- random matches ---- */

/* A uniformly random legal joint move in s into joint (one slot per role): each role in
 * role order draws splitmix_next(rng) % n among its n legal moves in the engine's order
 * (the same draws on every engine; the moves they pick follow each backend's order).
 * False when some role has no legal move (a defective game): the roles after it draw
 * nothing. */
bool engine_random_joint(engine_t *e, const eng_state_t *s, splitmix_t *rng, term_t *joint);

/* What a visitor of engine_walk says after a state: go on, end this match, stop. */
typedef enum { ENGINE_WALK_ON, ENGINE_WALK_END, ENGINE_WALK_STOP } engine_walk_next_t;
/* Called with each state of the random matches (ply 0: the initial state of a new match);
 * s is the walker's, valid during the call. */
typedef engine_walk_next_t (*engine_visit_t)(void *ctx, engine_t *e, const eng_state_t *s,
                                             uint32_t ply);

typedef struct {
    uint32_t matches;   /* random matches, each from the initial state */
    uint32_t max_plies; /* states per match at most (plies 0 .. max_plies - 1) */
    double deadline;    /* now_seconds() time after which no state is looked at (0: none) */
    bool terminal;      /* visit the terminal states too (a match ends at one either way) */
    /* draw among the legal moves sorted canonically (term_sort), so that every engine
     * plays the same matches; else in the engine's order (engine_random_joint) */
    bool canonical;
} engine_walk_t;

typedef struct {
    uint32_t matches; /* matches started */
    uint64_t visits;  /* states visited */
    bool timed_out;   /* the deadline ended the walk */
} engine_walked_t;

/* Plays random matches (engine_random_joint's draws on rng): from the initial state, each
 * state is visited (the terminal one only when asked) and then left by a random joint
 * move, until the match ends (a terminal state, a role without moves, max_plies, the
 * visitor), the matches are played, the visitor stops or the deadline passes. */
engine_walked_t engine_walk(engine_t *e, splitmix_t *rng, const engine_walk_t *w,
                            engine_visit_t visit, void *ctx);
/* The state at ply `ply` of one such match (drawn canonically or not) into out; false when
 * the match ends before it. */
bool engine_walk_to(engine_t *e, splitmix_t *rng, uint32_t ply, bool canonical, eng_state_t *out);
/* The first `max` states such a walk visits, copied into out[0..n) (made here, the caller
 * frees them); n. */
uint32_t engine_sample(engine_t *e, splitmix_t *rng, const engine_walk_t *w, eng_state_t **out,
                       uint32_t max);

/* One uniformly random playout from s (which becomes the final state), at most max_steps
 * joint moves; goals (one per role, -1 when undefined) of the final state into goals.
 * Returns the number of joint moves played. No allocation. */
uint32_t engine_playout(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                        int *goals);
/* A hook of engine_playout_hooked, called on a state of the playout; true ends the playout
 * there. It may read the state (engine_state_words, _hash, _terms) but must call nothing
 * else of the engine: the playout's evaluation is under way. */
typedef bool (*engine_playout_hook_t)(void *ctx, const eng_state_t *s);
/* engine_playout, calling hook on every state it reaches that is not terminal (the first
 * included, the one at max_steps too) before a joint move is drawn there: the playout of
 * engine_playout draw for draw while the hook returns false; on a ground or compiled
 * engine inside the engine's own loop (no allocation; a rollout with a hook at the speed
 * of one without, but for the hook). When the hook returns true the playout ends at that
 * state (s), *stopped is set and goals are not. */
uint32_t engine_playout_hooked(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                               int *goals, engine_playout_hook_t hook, void *ctx, bool *stopped);

#endif
