/* GDL-II: the move a player sends when nothing better is proved legal by its deadline.
 *
 * A player of a game with hidden information sends only moves it has proved legal in
 * every state consistent with what it saw (a game master replaces an illegal or missing
 * answer by a random legal move: on the killer game, possibly an accusation that
 * eliminates the player). Proofs take time the clock may not give; this move takes none
 * of the proofs' search: after each observation, the moves legal by construction
 * (bsmt_fixed_legal: what the known fluents and unit propagation make legal), one kept.
 * Of several, the first in the trace order that, in one consistent world (CaDiCaL's
 * model), neither ends the game nor lowers our goal value: the game goes on and nothing
 * is risked on what we do not know (on the killer game: an ask or a noop, never an
 * accusation), else the first. */
#ifndef PLAYER_FALLBACK_H
#define PLAYER_FALLBACK_H

#include "engine/engine.h"
#include "player/bsmt.h"

/* The move for role at b's current step, by deadline (the check that propagates; past it,
 * what the known fluents make legal), played out on e for the choice (in the check's
 * model, else in hint when not NULL: a state the caller believes possible); TERM_NONE when
 * no move is legal by construction (said on stderr when verbose, with `who` and the turn). */
term_t fallback_move(bsmt_t *b, engine_t *e, uint32_t role, const state_t *hint, double deadline,
                     bool verbose, const char *who, uint32_t turn);

#endif
