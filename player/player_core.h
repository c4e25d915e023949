/* What the searching players (ab, mcts, mcts+lbs) share: the setup they keep, a random
 * generator, an engine made by a deadline and kept across matches, and the uniformly random
 * legal move they play when they cannot search (GDL-II) or the search gives no legal move. */
#ifndef PLAYER_PLAYER_CORE_H
#define PLAYER_PLAYER_CORE_H

#include "base/rng.h"
#include "player/player.h"

typedef struct {
    player_t base; /* first: a searching player is a player_t */
    game_t *game;
    uint32_t role;
    uint64_t seed;
    bool verbose;
    double playclock;
    splitmix_t rng;
    engine_t *engine; /* made by player_core_engine, kept across matches */
    const char *name; /* the family's name, for messages ("ab", "mcts") */
} player_core_t;

void player_core_init(player_core_t *c, const player_setup_t *setup, const char *name);
void player_core_fini(player_core_t *c);
/* The engine, made when there is none yet: ready by `ready` (grounding and compiling
 * respect it; a game that cannot be prepared in time is played on the interpreter). */
engine_t *player_core_engine(player_core_t *c, engine_kind_t kind, double ready);
/* A uniformly random legal move of the turn (one draw of the generator). */
term_t player_core_random(player_core_t *c, const player_turn_t *turn);
/* move when it is one of the turn's legal moves, else fallback (said when verbose). */
term_t player_core_checked(const player_core_t *c, const player_turn_t *turn, term_t move,
                           term_t fallback);

#endif
