/* The joint moves of one state, numbered 0..count-1 in mixed radix over the roles' legal
 * moves (role 0 the fastest digit), for searches that find a joint move by its effect: the
 * one that led to a state, those that give a role the percepts it was told. One role's
 * move may be fixed (a player's own move, known). Built on engine.h alone. */
#ifndef ENGINE_JOINTS_H
#define ENGINE_JOINTS_H

#include "base/rng.h"
#include "engine/engine.h"

#define JOINTS_NONE UINT32_MAX /* no role fixed */

typedef struct {
    uint32_t n_roles;
    uint32_t fixed; /* the role whose move is fixed, or JOINTS_NONE */
    term_t **legal; /* legal[r][0..n[r]): copies (the engine reuses its arrays), kept across
                     * loads */
    uint32_t *n;
    uint64_t count; /* the product of the n[r] (from 2^32 on, no longer exact); 0 when a role
                     * has no legal move */
} joints_t;

void joints_init(joints_t *j, uint32_t n_roles);
void joints_fini(joints_t *j);

/* The order of a role's moves: the engine's, canonical (term_sort: the same on every
 * engine), or the trace format's (by text, without repeats: what traces and the game
 * master print and draw from). */
typedef enum { JOINTS_ENGINE_ORDER, JOINTS_CANONICAL, JOINTS_TRACE_ORDER } joints_order_t;

/* The joint moves of s: every role's legal moves in that order, but role fixed
 * (JOINTS_NONE: none) plays move only. Their count. */
uint64_t joints_load(joints_t *j, engine_t *e, const eng_state_t *s, joints_order_t order,
                     uint32_t fixed, term_t move);

/* Joint move number k (k < count) into joint[0..n_roles). */
void joints_get(const joints_t *j, uint64_t k, term_t *joint);

/* A random joint move into joint: one draw of rng per role that is not fixed, in role
 * order. */
void joints_random(const joints_t *j, splitmix_t *rng, term_t *joint);

#endif
