/* One match of a two-role game between two agents (agent i plays role i, through
 * player/agent.h: the code path of `ggp match`), refereed by the interpreter: every move
 * must be legal there. For the player tests (after cmocka.h: it asserts). */
#ifndef TESTS_UNIT_DUEL_H
#define TESTS_UNIT_DUEL_H

#include "base/clock.h"
#include "player/agent.h"
#include "terms.h"

typedef struct {
    const player_kind_t *kinds[2];
    double startclock, playclock; /* the clocks the agents are told */
    double start_seconds;         /* the start phase they get */
    double move_seconds;          /* each move's deadline from the moment it is asked */
    uint64_t seeds[2];
    uint32_t max_steps; /* a longer match fails the test */
} duel_t;

/* Plays the match; returns role `seat`'s goal, and adds that agent's search counters to
 * *sum when sum is not NULL. */
static inline int duel_play(game_t *g, const duel_t *d, uint32_t seat, player_search_t *sum) {
    assert_int_equal(g->n_roles, 2);
    engine_t *ref = engine_new(g, ENGINE_INTERP, NULL);
    agent_t *a[2];
    for (uint32_t i = 0; i < 2; i++) {
        agent_config_t cfg = {.kind = d->kinds[i],
                              .startclock = d->startclock,
                              .playclock = d->playclock,
                              .seed = d->seeds[i]};
        a[i] = agent_new(g, i, &cfg);
        agent_start(a[i], now_seconds() + d->start_seconds);
    }
    state_t s, n;
    state_init(&s);
    state_init(&n);
    terms_initial(ref, &s);
    term_t joint[2];
    for (uint32_t steps = 0; !terms_terminal(ref, &s); steps++) {
        assert_true(steps < d->max_steps);
        for (uint32_t i = 0; i < 2; i++) {
            joint[i] = agent_play(a[i], now_seconds() + d->move_seconds, NULL);
            assert_true(joint[i] != TERM_NONE);
            assert_true(terms_is_legal(ref, &s, i, joint[i]));
        }
        terms_next(ref, &s, joint, &n);
        state_copy(&s, &n);
        for (uint32_t i = 0; i < 2; i++)
            agent_advance(a[i], joint);
    }
    int goal = terms_goal_value(ref, &s, seat);
    for (uint32_t i = 0; i < 2; i++)
        agent_stop(a[i]);
    if (sum) assert_true(agent_search(a[seat], sum));
    for (uint32_t i = 0; i < 2; i++)
        agent_free(a[i]);
    state_fini(&s);
    state_fini(&n);
    engine_free(ref);
    return goal;
}

#endif
