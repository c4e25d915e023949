/* The deal of games/killer_small.kif, proved by exact enumeration: every way the deal can
 * go is followed with its exact probability (random's legal moves equally likely), states
 * reached with the same percept histories merged. After the deal
 *   - every split (three hands and a killer card) has the same probability, and all
 *     10!/(3!3!3!1!) = 16800 of them occur;
 *   - each player's percept history tells it exactly its hand (the hand is the same in
 *     every state with that history), and the killer is then uniform over the 7 cards it
 *     does not hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gdl/validate.h"
#include "load.h"
#include "terms.h"

#define PLAYERS 3
#define HIST_MAX 64

/* An exact probability num/den. */
typedef struct {
    uint64_t num, den;
} ratio_t;

static uint64_t gcd(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static ratio_t ratio_norm(ratio_t r) {
    uint64_t g = gcd(r.num, r.den);
    return (ratio_t){r.num / g, r.den / g};
}

static ratio_t ratio_add(ratio_t a, ratio_t b) {
    uint64_t l = a.den / gcd(a.den, b.den) * b.den;
    return ratio_norm((ratio_t){a.num * (l / a.den) + b.num * (l / b.den), l});
}

static bool ratio_eq(ratio_t a, ratio_t b) {
    return a.num == b.num && a.den == b.den;
}

/* A state with each player's percept history (term ids, TERM_NONE closing each step). */
typedef struct {
    state_t s;
    term_t hist[PLAYERS][HIST_MAX];
    uint32_t n_hist[PLAYERS];
    ratio_t p;
} node_t;

typedef struct {
    node_t *v;
    size_t n, cap;
} layer_t_;

static bool same_history(const node_t *a, const node_t *b) {
    for (int i = 0; i < PLAYERS; i++)
        if (a->n_hist[i] != b->n_hist[i] ||
            memcmp(a->hist[i], b->hist[i], a->n_hist[i] * sizeof(term_t)))
            return false;
    return true;
}

/* Adds node (taking its state) to the layer, merging with an equal one. Linear search is
 * enough here: a layer holds at most a few ten thousand nodes and few steps are played. */
static void layer_add(layer_t_ *l, node_t *nd, uint64_t *index, size_t index_cap) {
    uint64_t h = state_hash(&nd->s);
    for (int i = 0; i < PLAYERS; i++)
        for (uint32_t k = 0; k < nd->n_hist[i]; k++)
            h = h * 0x100000001b3ull ^ nd->hist[i][k];
    size_t slot = h & (index_cap - 1);
    while (index[slot]) {
        node_t *o = &l->v[index[slot] - 1];
        if (state_equal(&o->s, &nd->s) && same_history(o, nd)) {
            o->p = ratio_add(o->p, nd->p);
            state_fini(&nd->s);
            return;
        }
        slot = (slot + 1) & (index_cap - 1);
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n] = *nd;
    index[slot] = ++l->n;
}

static bool in_deal(game_t *g, const state_t *s) {
    term_t args[1] = {term_const(g->ts, term_intern(g->ts, "deal", 4))};
    term_t f = term_fun(g->ts, term_intern(g->ts, "stage", 5), args, 1);
    return state_has(s, f);
}

/* One step of the deal from every node: random's moves each with probability 1/n, the
 * players' single move (noop while dealing). */
static layer_t_ deal_step(engine_t *r, layer_t_ *cur) {
    layer_t_ next = {0};
    size_t index_cap = 1u << 20;
    uint64_t *index = calloc(index_cap, sizeof *index);
    for (size_t i = 0; i < cur->n; i++) {
        node_t *nd = &cur->v[i];
        term_t joint[1 + PLAYERS];
        for (uint32_t role = 1; role <= PLAYERS; role++) {
            const term_t *m;
            assert_int_equal(terms_legal(r, &nd->s, role, &m), 1);
            joint[role] = m[0];
        }
        const term_t *rm;
        uint32_t n = terms_legal(r, &nd->s, 0, &rm);
        assert_true(n > 0);
        term_t *moves = malloc(n * sizeof *moves);
        memcpy(moves, rm, n * sizeof *moves);
        for (uint32_t k = 0; k < n; k++) {
            joint[0] = moves[k];
            node_t child = *nd;
            state_init(&child.s);
            terms_next(r, &nd->s, joint, &child.s);
            child.p = ratio_norm((ratio_t){nd->p.num, nd->p.den * n});
            for (uint32_t role = 1; role <= PLAYERS; role++) {
                const term_t *pc;
                uint32_t np = terms_sees(r, &nd->s, joint, role, &pc);
                node_t *c = &child;
                assert_true(c->n_hist[role - 1] + np + 1 <= HIST_MAX);
                memcpy(c->hist[role - 1] + c->n_hist[role - 1], pc, np * sizeof *pc);
                c->n_hist[role - 1] += np;
                c->hist[role - 1][c->n_hist[role - 1]++] = TERM_NONE;
            }
            layer_add(&next, &child, index, index_cap);
        }
        free(moves);
    }
    free(index);
    return next;
}

static void layer_free(layer_t_ *l) {
    for (size_t i = 0; i < l->n; i++)
        state_fini(&l->v[i].s);
    free(l->v);
}

/* The card (x, y) of a fluent (f A X Y) with f = name, A = owner when given. */
static bool card_of(game_t *g, term_t f, const char *name, term_t owner, uint32_t *card) {
    const term_store_t *ts = g->ts;
    uint32_t ar = owner ? 3 : 2;
    if (term_kind(ts, f) != TERM_FUN || term_arity(ts, f) != ar) return false;
    if (strcmp(term_sym_name(ts, term_sym(ts, f)), name)) return false;
    if (owner && term_arg(ts, f, 0) != owner) return false;
    const char *x = term_sym_name(ts, term_sym(ts, term_arg(ts, f, ar - 2)));
    const char *y = term_sym_name(ts, term_sym(ts, term_arg(ts, f, ar - 1)));
    *card = (uint32_t)(atoi(x) - 1) * 5 + (uint32_t)(atoi(y) - 1);
    return true;
}

static uint32_t hand_mask(game_t *g, const state_t *s, term_t player) {
    uint32_t m = 0, c;
    for (uint32_t i = 0; i < s->n; i++)
        if (card_of(g, s->facts[i], "has", player, &c)) m |= 1u << c;
    return m;
}

static int killer_of(game_t *g, const state_t *s) {
    uint32_t c;
    int k = -1;
    for (uint32_t i = 0; i < s->n; i++)
        if (card_of(g, s->facts[i], "killer", TERM_NONE, &c)) {
            assert_int_equal(k, -1);
            k = (int)c;
        }
    return k;
}

/* Every split once, all with the same probability summing to 1. */
static void check_splits(game_t *g, layer_t_ *l) {
    ratio_t total = {0, 1}, first = l->v[0].p;
    uint64_t *keys = malloc(l->n * sizeof *keys);
    for (size_t i = 0; i < l->n; i++) {
        assert_true(ratio_eq(l->v[i].p, first));
        total = ratio_add(total, l->v[i].p);
        uint32_t all = 0;
        for (uint32_t p = 1; p <= PLAYERS; p++) {
            uint32_t h = hand_mask(g, &l->v[i].s, g->roles[p]);
            assert_int_equal(__builtin_popcount(h), 3);
            assert_int_equal(all & h, 0);
            all |= h;
        }
        int k = killer_of(g, &l->v[i].s);
        assert_true(k >= 0 && !((all >> k) & 1));
        keys[i] = (uint64_t)k;
        for (uint32_t p = 1; p <= PLAYERS; p++)
            keys[i] = keys[i] << 10 | hand_mask(g, &l->v[i].s, g->roles[p]);
    }
    /* no split is reached with two different histories: its probability is all here */
    qsort(keys, l->n, sizeof *keys, cmp_u64);
    for (size_t i = 1; i < l->n; i++)
        assert_true(keys[i - 1] != keys[i]);
    free(keys);
    assert_int_equal(l->n, 16800);
    assert_true(ratio_eq(total, (ratio_t){1, 1}));
}

/* Per player and history: one hand, the killer uniform over the other 7 cards. */
static void check_player_view(game_t *g, layer_t_ *l, uint32_t role) {
    bool *done = calloc(l->n, sizeof *done);
    uint32_t groups = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (done[i]) continue;
        groups++;
        const node_t *a = &l->v[i];
        uint32_t hand = hand_mask(g, &a->s, g->roles[role]);
        ratio_t pk[10];
        for (int c = 0; c < 10; c++)
            pk[c] = (ratio_t){0, 1};
        for (size_t j = i; j < l->n; j++) {
            const node_t *b = &l->v[j];
            if (done[j] || b->n_hist[role - 1] != a->n_hist[role - 1] ||
                memcmp(b->hist[role - 1], a->hist[role - 1], a->n_hist[role - 1] * sizeof(term_t)))
                continue;
            done[j] = true;
            assert_int_equal(hand_mask(g, &b->s, g->roles[role]), hand);
            int k = killer_of(g, &b->s);
            pk[k] = ratio_add(pk[k], b->p);
        }
        ratio_t some = {0, 0};
        for (int c = 0; c < 10; c++) {
            if ((hand >> c) & 1) {
                assert_int_equal(pk[c].num, 0);
                continue;
            }
            assert_true(pk[c].num > 0);
            if (some.den == 0) some = pk[c];
            assert_true(ratio_eq(pk[c], some));
        }
    }
    /* one history per hand: C(10,3) */
    assert_int_equal(groups, 120);
    free(done);
}

static void test_deal_uniform_leak_free(void **state) {
    (void)state;
    game_t *g = load_file("killer_small.kif");
    assert_non_null(g);
    assert_int_equal(g->n_roles, 1 + PLAYERS);
    engine_t *r = engine_new(g, ENGINE_INTERP, NULL);
    layer_t_ cur = {0};
    node_t start;
    memset(&start, 0, sizeof start);
    state_init(&start.s);
    terms_initial(r, &start.s);
    start.p = (ratio_t){1, 1};
    cur.v = malloc(sizeof *cur.v);
    cur.v[0] = start;
    cur.n = cur.cap = 1;
    uint32_t steps = 0;
    while (in_deal(g, &cur.v[0].s)) {
        for (size_t i = 1; i < cur.n; i++)
            assert_true(in_deal(g, &cur.v[i].s));
        layer_t_ next = deal_step(r, &cur);
        layer_free(&cur);
        cur = next;
        steps++;
    }
    assert_int_equal(steps, 10);
    check_splits(g, &cur);
    for (uint32_t role = 1; role <= PLAYERS; role++)
        check_player_view(g, &cur, role);
    layer_free(&cur);
    engine_free(r);
    game_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deal_uniform_leak_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
