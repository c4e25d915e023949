/* The best line of a game of one role: see bestline.h. */
#include "mcts/bestline.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void bestline_init(bestline_t *b) {
    memset(b, 0, sizeof *b);
    b->value = -1;
}

void bestline_fini(bestline_t *b) {
    free(b->mv);
    bestline_init(b);
}

void bestline_clear(bestline_t *b) {
    b->n = 0;
    b->value = -1;
}

void bestline_set(bestline_t *b, const term_t *src, uint32_t n, int value) {
    GROW(b->mv, b->cap, n ? n : 1);
    memcpy(b->mv, src, n * sizeof *src);
    b->n = n;
    b->value = value;
}

void bestline_advance(bestline_t *b, term_t played) {
    if (b->value < 0) return;
    if (!b->n || b->mv[0] != played) {
        bestline_clear(b);
        return;
    }
    memmove(b->mv, b->mv + 1, (b->n - 1) * sizeof *b->mv);
    b->n--;
}

void bestline_rec_init(bestline_rec_t *r, const engine_t *e) {
    memset(r, 0, sizeof *r);
    r->start = engine_state_new(e);
    r->a = engine_state_new(e);
    r->b = engine_state_new(e);
}

void bestline_rec_fini(bestline_rec_t *r) {
    free(r->mv);
    free(r->hash);
    engine_state_free(r->start);
    engine_state_free(r->a);
    engine_state_free(r->b);
    memset(r, 0, sizeof *r);
}

void bestline_rec_begin(bestline_rec_t *r) {
    r->n = 0;
    r->playout = false;
}

void bestline_rec_push(bestline_rec_t *r, term_t move) {
    GROW(r->mv, r->cap, r->n + 1);
    r->mv[r->n++] = move;
}

void bestline_rec_playout(bestline_rec_t *r, const eng_state_t *s, const splitmix_t *rng) {
    engine_state_copy(r->start, s);
    r->rng = *rng;
    r->playout = true;
}

/* The replay's hook: notes each state's hash (it may call nothing of the engine). */
static bool note_hash(void *ctx, const eng_state_t *s) {
    bestline_rec_t *r = ctx;
    GROW(r->hash, r->cap_hash, r->n_hash + 1);
    r->hash[r->n_hash++] = engine_state_hash(s);
    return false;
}

/* Appends the move of the one role that leads from cur to a state of hash h (into next);
 * false when none does. */
static bool find_move(bestline_rec_t *r, engine_t *e, const eng_state_t *cur, uint64_t h,
                      eng_state_t *next) {
    const term_t *m;
    uint32_t n = engine_legal(e, cur, 0, &m);
    for (uint32_t k = 0; k < n; k++) {
        term_t mv = m[k]; /* engine_next may reuse the legal moves' buffer */
        engine_next(e, cur, &mv, next);
        if (engine_state_hash(next) == h) {
            bestline_rec_push(r, mv);
            return true;
        }
        n = engine_legal(e, cur, 0, &m);
    }
    return false;
}

bool bestline_rec_finish(bestline_rec_t *r, engine_t *e, uint32_t max_steps) {
    if (!r->playout) return true;
    r->playout = false;
    engine_state_copy(r->a, r->start);
    splitmix_t rng = r->rng;
    int *goals = xcalloc(engine_game(e)->n_roles, sizeof *goals);
    bool stopped;
    r->n_hash = 0;
    uint32_t steps = engine_playout_hooked(e, r->a, &rng, max_steps, goals, note_hash, r, &stopped);
    free(goals);
    /* the states the playout went through: start (hash[0]) .. hash[steps - 1], then a */
    note_hash(r, r->a);
    if (r->n_hash != steps + 1) return false;
    eng_state_t *cur = r->b, *next = r->a;
    engine_state_copy(cur, r->start);
    for (uint32_t k = 1; k <= steps; k++) {
        if (!find_move(r, e, cur, r->hash[k], next)) return false;
        eng_state_t *t = cur;
        cur = next;
        next = t;
    }
    return true;
}
