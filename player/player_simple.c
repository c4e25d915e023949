/* The simple players: `random` (a uniformly random legal move, chosen at once) and `legal`
 * (the first legal move in canonical order). Neither thinks, so neither can miss a clock. */
#include <stdlib.h>

#include "base/rng.h"
#include "player/player.h"

typedef struct {
    player_t base;
    splitmix_t rng;
} simple_player_t;

static player_t *simple_create(const player_setup_t *setup) {
    simple_player_t *p = xcalloc(1, sizeof *p);
    p->rng.s = setup->seed;
    return &p->base;
}

static void simple_destroy(player_t *p) {
    free(p);
}

static term_t random_play(player_t *p, const player_turn_t *turn, double deadline,
                          move_sink_t *sink) {
    (void)deadline;
    simple_player_t *sp = (simple_player_t *)p;
    term_t move = turn->legal[splitmix_next(&sp->rng) % turn->n_legal];
    sink_offer(sink, move);
    return move;
}

static term_t legal_play(player_t *p, const player_turn_t *turn, double deadline,
                         move_sink_t *sink) {
    (void)p;
    (void)deadline;
    sink_offer(sink, turn->legal[0]);
    return turn->legal[0];
}

/* The two kinds differ only in how they pick. */
#define SIMPLE_KIND(NAME, SUMMARY, PLAY)                                                           \
    {                                                                                              \
        .name = NAME, .summary = SUMMARY, .create = simple_create, .play = PLAY,                   \
        .destroy = simple_destroy                                                                  \
    }

const player_kind_t player_random_kind =
    SIMPLE_KIND("random", "a uniformly random legal move", random_play);
const player_kind_t player_legal_kind =
    SIMPLE_KIND("legal", "the first legal move (canonical order)", legal_play);
