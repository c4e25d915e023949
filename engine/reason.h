/* The reasoner: a GDL / GDL-II state machine over a validated rule base.
 *
 * Evaluation is bottom-up and on demand, per predicate: asking for `legal` computes just
 * the relations legal depends on, stratum by stratum (semi-naive iteration inside
 * recursive strata). Relations that depend on nothing are computed once; those that depend
 * on the state are kept until a different state is asked about; those that depend on
 * `does` until a different joint move is. Rule bodies are reordered at load time so that
 * negations and distinct run as soon as their variables are bound.
 *
 * Results returned through pointers live in the reasoner until its next call.
 * A reasoner is used by one thread at a time (it builds terms in the game's store).
 *
 * Included inside engine/ only (and by the reasoner's own tests; scripts/check_layers.sh
 * checks it): everything above plays through engine.h, where this is the interpreter
 * backend (interp.c). */
#ifndef ENGINE_REASON_H
#define ENGINE_REASON_H

#include "engine/state.h"
#include "gdl/rules.h"

typedef struct reasoner reasoner_t;

/* The most tuples a relation may hold by default (reason_set_max_tuples). */
#define REASON_MAX_TUPLES 20000000u

/* The stack the evaluation's recursion may use (bytes): past it the reasoner gives up
 * (reason_error). Half the 8 MiB a thread gets by default: a thread that runs a reasoner
 * needs this much and some to spare (docs/http.md, "Deep recursion"). */
#define REASON_STACK_BUDGET ((size_t)4 << 20)

reasoner_t *reason_new(game_t *g);
void reason_free(reasoner_t *r);
const game_t *reason_game(const reasoner_t *r);

/* A relation that would grow past n tuples (a rule base whose recursion the validator
 * cannot see through, or a finite relation too large to hold) makes the reasoner give up
 * instead of running out of memory: the query stops, and from then on every answer is
 * empty (no fluents, moves, goals or tuples; every state terminal, no atom holding) and
 * reason_error says why. A game text must never end the process that reasons about it. */
void reason_set_max_tuples(reasoner_t *r, size_t n);
/* Why the reasoner gave up, naming the relation; NULL while it has not. */
const char *reason_error(const reasoner_t *r);

void reason_initial(reasoner_t *r, state_t *out);
bool reason_terminal(reasoner_t *r, const state_t *s);
/* Legal moves of role number `role` (game role order); *moves owned by r. */
uint32_t reason_legal(reasoner_t *r, const state_t *s, uint32_t role, const term_t **moves);
bool reason_is_legal(reasoner_t *r, const state_t *s, uint32_t role, term_t move);
/* Every goal value term of a role in s (a well-formed game gives exactly one); *values
 * owned by r. */
uint32_t reason_goals(reasoner_t *r, const state_t *s, uint32_t role, const term_t **values);
/* The successor state for a joint move (one move per role, in role order). */
void reason_next(reasoner_t *r, const state_t *s, const term_t *joint, state_t *out);
/* GDL-II: what `role` sees when joint is played in s; *percepts owned by r. */
uint32_t reason_sees(reasoner_t *r, const state_t *s, const term_t *joint, uint32_t role,
                     const term_t **percepts);

/* All ground tuples of a predicate in a state (and joint move, NULL when the predicate
 * does not depend on one): n tuples of the predicate's arity, owned by r. */
uint32_t reason_query(reasoner_t *r, const state_t *s, const term_t *joint, uint32_t pred,
                      const term_t **tuples);

/* Whether a ground atom of a relation that depends on the state alone holds in s: asked
 * with every argument bound, top-down where the relation is answered per call (memoised
 * per state), else from the whole relation. */
bool reason_holds(reasoner_t *r, const state_t *s, term_t atom);

typedef struct {
    uint64_t states_set, rules_fired, tuples_derived;
    uint32_t deepest; /* the deepest argument of a tuple derived (term_depth) */
} reason_stats_t;
reason_stats_t reason_stats(const reasoner_t *r);

#endif
