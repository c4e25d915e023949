/* The searching players' shared part: see player_core.h. */
#include "player/player_core.h"

#include <stdio.h>

void player_core_init(player_core_t *c, const player_setup_t *setup, const char *name) {
    c->game = setup->game;
    c->role = setup->role;
    c->seed = setup->seed;
    c->verbose = setup->verbose;
    c->playclock = setup->playclock;
    c->rng.s = setup->seed ^ 0x9e3779b97f4a7c15ull;
    c->engine = NULL;
    c->name = name;
}

void player_core_fini(player_core_t *c) {
    FREE_AND_NULL(engine_free, c->engine);
    c->base.engine = NULL;
}

engine_t *player_core_engine(player_core_t *c, engine_kind_t kind, double ready) {
    if (!c->engine) c->engine = engine_new_by(c->game, kind, stderr, ready);
    c->base.engine = c->engine;
    return c->engine;
}

term_t player_core_random(player_core_t *c, const player_turn_t *turn) {
    return turn->legal[splitmix_next(&c->rng) % turn->n_legal];
}

term_t player_core_checked(const player_core_t *c, const player_turn_t *turn, term_t move,
                           term_t fallback) {
    if (move != TERM_NONE && term_in(turn->legal, turn->n_legal, move)) return move;
    if (c->verbose)
        fprintf(stderr, "%s: turn %u: the search gave no legal move; playing at random\n", c->name,
                turn->turn);
    return fallback;
}
