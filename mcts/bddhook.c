/* Rollout early termination with symbolic backward search: see bddhook.h. */
#include "mcts/bddhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "engine/fluents.h"
#include "engine/joints.h"
#include "regress/bddsearch.h"

struct bddhook {
    engine_t *e;
    bddsearch_t *bs;
    uint32_t alpha, beta; /* their sequences (beta UINT32_MAX: not used) */
    bool values;          /* the lower and upper sequences too (bddhook_opts_t.values) */
    _Atomic uint32_t ply; /* of the searched state, from the start */
    bddhook_info_t info;
};

void bddhook_default_opts(bddhook_opts_t *o) {
    *o = (bddhook_opts_t){.horizon = 8, .columns = true};
}

/* Whether bit f of e's states is fluent f of its network (what the flat diagrams read). */
static bool same_layout(engine_t *e, const gnet_t *net) {
    term_t *bits;
    uint32_t n = engine_fluent_bits(e, &bits);
    bool ok = n >= net->n_fluents;
    for (uint32_t b = 0; ok && b < n; b++)
        ok = bits[b] == (b < net->n_fluents ? net->fluent_term[b] : TERM_NONE);
    free(bits);
    return ok;
}

static void note_steps(bddhook_t *h) {
    const bddsearch_t *bs = h->bs;
    h->info.nodes = 0;
    h->info.alpha = bddsearch_steps(bs, h->alpha);
    h->info.beta = h->beta == UINT32_MAX ? 0 : bddsearch_steps(bs, h->beta);
    h->info.first_partial = UINT32_MAX;
    h->info.solved = h->info.horizon == 0;
    for (uint32_t side = 0; side < 2; side++) {
        uint32_t seq = side ? h->beta : h->alpha;
        uint32_t n = side ? h->info.beta : h->info.alpha;
        for (uint32_t i = 0; i < n; i++) {
            const bdds_step_t *st = bddsearch_step(bs, seq, i);
            h->info.nodes += st->nodes;
            if (!st->complete && i < h->info.first_partial) h->info.first_partial = i;
            if (i + 1 == n && !(st->complete && st->fixpoint)) h->info.solved = false;
        }
        if (!n && (!side || h->beta != UINT32_MAX)) h->info.solved = false; /* none made */
    }
}

bddhook_t *bddhook_new(engine_t *e, uint32_t role, const eng_state_t *start,
                       const bddhook_opts_t *o, double deadline, char *err, size_t errlen) {
    bddhook_opts_t ho;
    if (o)
        ho = *o;
    else
        bddhook_default_opts(&ho);
    const gnet_t *net = engine_network(e);
    double t0 = now_seconds();
    if (!net || (!ho.layout_known && !same_layout(e, net))) {
        snprintf(err, errlen, "the engine's states are not the ground network's fluents");
        return NULL;
    }
    if (ho.horizon > 64 || deadline <= t0) {
        snprintf(err, errlen, ho.horizon > 64 ? "horizon not in 0..64" : "no time left");
        return NULL;
    }
    bdds_opts_t so;
    bdds_default_opts(&so);
    so.budget = deadline - t0, so.values = ho.values, so.reach_share = ho.reach_share;
    so.max_steps = ho.max_steps ? ho.max_steps : ho.horizon;
    so.net.horizon = ho.horizon, so.net.columns = ho.columns;
    so.net.start = start ? engine_state_words(start) : NULL;
    so.net.cut_reach = ho.cut_reach, so.resume = ho.resume;
    so.cut_step = ho.cut_step;
    bddsearch_t *bs = bddsearch_new(e, role, NULL, &so, err, errlen);
    if (!bs) return NULL;
    double reach_seconds;
    if (!ho.reach_first || ho.horizon || bddnet_reach_layers(bddsearch_net(bs), &reach_seconds))
        bddsearch_run(bs, NULL, NULL);
    bddhook_t *h = xcalloc(1, sizeof *h);
    h->e = e, h->bs = bs, h->values = ho.values;
    h->alpha = bddsearch_find(bs, BDDS_ALPHA, 0);
    /* β is the other role's win: 0 for us only where the game is two-player */
    h->beta = engine_game(e)->n_roles == 2 ? bddsearch_find(bs, BDDS_BETA, 0) : UINT32_MAX;
    h->info.horizon = ho.horizon;
    note_steps(h); /* (after the horizon: it reads it) */
    h->info.reach_layers = bddnet_reach_layers(bddsearch_net(bs), &reach_seconds);
    h->info.reach_late = bddnet_reach_late(bddsearch_net(bs));
    h->info.seconds = now_seconds() - t0;
    return h;
}

bool bddhook_more(bddhook_t *h, uint32_t max_steps, double deadline) {
    double t0 = now_seconds();
    if (h->info.horizon || h->info.first_partial != UINT32_MAX || !h->info.reach_layers ||
        deadline <= t0)
        return false;
    bddsearch_more(h->bs, max_steps, deadline - t0);
    bddsearch_run(h->bs, NULL, NULL);
    note_steps(h);
    h->info.seconds += now_seconds() - t0;
    return true;
}

bool bddhook_restart(bddhook_t *h, const eng_state_t *start, bool resume, bool reach_first,
                     double reach_share, uint32_t max_steps, double deadline) {
    double t0 = now_seconds(), reach_seconds;
    if (h->info.horizon || deadline <= t0) return false;
    bddsearch_t *bs = h->bs;
    const uint64_t *w = start ? engine_state_words(start) : NULL;
    if (bddsearch_restart(bs, w, max_steps, deadline - t0, resume, reach_share) || !reach_first)
        bddsearch_run(bs, NULL, NULL);
    note_steps(h);
    h->info.reach_layers = bddnet_reach_layers(bddsearch_net(bs), &reach_seconds);
    h->info.reach_late = bddnet_reach_late(bddsearch_net(bs));
    h->info.seconds = now_seconds() - t0;
    return true;
}

void bddhook_free(bddhook_t *h) {
    if (!h) return;
    bddsearch_free(h->bs);
    free(h);
}

void bddhook_set_ply(bddhook_t *h, uint32_t ply) {
    atomic_store_explicit(&h->ply, ply, memory_order_relaxed);
}

uint32_t bddhook_reach(uint32_t horizon, uint32_t ply) {
    if (!horizon) return UINT32_MAX;
    return ply < horizon ? horizon - ply : 0;
}

uint32_t bddhook_next_horizon(uint32_t horizon, double seconds, bool cut, double budget,
                              uint32_t min, uint32_t max) {
    if (min < 1) min = 1;
    if ((cut || seconds > budget) && horizon > min)
        horizon--;
    else if (!cut && seconds * BDDHOOK_GROW < budget && horizon < max)
        horizon++;
    return horizon < min ? min : horizon > max ? max : horizon;
}

int bddhook_value(const bddhook_t *h, const uint64_t *words, uint32_t steps) {
    if (h->info.alpha && bddsearch_holds_from(h->bs, h->alpha, steps, words)) return 100;
    if (h->info.beta && bddsearch_holds_from(h->bs, h->beta, steps, words)) return 0;
    return -1;
}

/* The least i < n whose step of sequence seq holds the state of words, as bddhook_value
 * tries the steps; UINT32_MAX where none does. */
static uint32_t least_step(const bddhook_t *h, uint32_t seq, uint32_t n, const uint64_t *words,
                           uint32_t steps) {
    for (uint32_t i = 1; i < n; i++) { /* S_i grows with i: the first is the least */
        const bdds_step_t *st = bddsearch_step(h->bs, seq, i);
        if (st->within >= steps && st->nodes && bddsearch_holds(h->bs, seq, i, words)) return i;
    }
    return UINT32_MAX;
}

uint32_t bddhook_loss_steps(const bddhook_t *h, const uint64_t *words, uint32_t steps) {
    return least_step(h, h->beta, h->info.beta, words, steps);
}

uint32_t bddhook_win_steps(const bddhook_t *h, const uint64_t *words, uint32_t steps) {
    return least_step(h, h->alpha, h->info.alpha, words, steps);
}

/* The membership walk first (one per side); only on a hit the least step, a walk per step
 * (a hit ends the search there, which costs far more). */
int bddhook_ab_proven(void *ctx, const eng_state_t *s, uint32_t ply, uint32_t *steps) {
    const bddhook_t *h = ctx;
    uint32_t at = atomic_load_explicit(&h->ply, memory_order_relaxed) + ply;
    const uint64_t *w = engine_state_words(s);
    int v = bddhook_value(h, w, at);
    if (v < 0) return -1;
    uint32_t k = v ? bddhook_win_steps(h, w, at) : bddhook_loss_steps(h, w, at);
    *steps = k != UINT32_MAX ? k : v ? h->info.alpha : h->info.beta; /* (not met: a bound) */
    return v;
}

/* After role's `move` at es: the least loss steps over the others' answers (see
 * bddhook_longest_loss). */
static uint32_t loss_after(const bddhook_t *h, const eng_state_t *es, uint32_t role, term_t move,
                           uint32_t steps, joints_t *j, term_t *joint, eng_state_t *succ) {
    uint64_t n = joints_load(j, h->e, es, JOINTS_ENGINE_ORDER, role, move);
    uint32_t least = UINT32_MAX;
    for (uint64_t k = 0; k < n && least > 0; k++) {
        joints_get(j, k, joint);
        engine_next(h->e, es, joint, succ);
        uint32_t d = engine_terminal(h->e, succ)
                         ? (engine_goal_value(h->e, succ, role) < 100 ? 0 : UINT32_MAX)
                         : bddhook_loss_steps(h, engine_state_words(succ), steps + 1);
        if (d < least) least = d;
    }
    return least;
}

term_t bddhook_longest_loss(const bddhook_t *h, const eng_state_t *es, uint32_t role,
                            uint32_t steps, term_t prefer, uint64_t max_joints, double until) {
    const term_t *legal;
    uint32_t n = engine_legal(h->e, es, role, &legal), nr = engine_game(h->e)->n_roles;
    term_t *mine = xmalloc(n * sizeof *mine), *joint = xmalloc(nr * sizeof *joint);
    memcpy(mine, legal, n * sizeof *mine); /* (the engine reuses its array) */
    joints_t j;
    joints_init(&j, nr);
    eng_state_t *succ = engine_state_new(h->e);
    term_t pick = prefer;
    if (n && joints_load(&j, h->e, es, JOINTS_ENGINE_ORDER, role, mine[0]) * n <= max_joints) {
        uint32_t most = loss_after(h, es, role, prefer, steps, &j, joint, succ);
        for (uint32_t k = 0; k < n && (until <= 0 || now_seconds() < until); k++) {
            if (mine[k] == prefer) continue; /* its loss is `most` */
            uint32_t d = loss_after(h, es, role, mine[k], steps, &j, joint, succ);
            if (d > most) most = d, pick = mine[k];
        }
    }
    engine_state_free(succ);
    joints_fini(&j);
    free(mine), free(joint);
    return pick;
}

int bddhook_proven(const bddhook_t *h, const uint64_t *words, uint32_t steps) {
    int v = bddhook_value(h, words, steps);
    return v >= 0 || !h->values ? v : bddsearch_value(h->bs, words, steps);
}

/* At a rollout's first state (depth 0, a tree node's own state) wins and losses only:
 * UCT takes a hit there as the node's exact value without children. A node so proven that
 * becomes the root is now opened and searched again (uct.c: open_unwitnessed_root), but
 * with values nearly every node of a solved game would be one (tic-tac-toe: every node a
 * proven draw), its value found again through its children at every move. */
int bddhook_state_hook(void *ctx, const eng_state_t *s, uint32_t depth) {
    const bddhook_t *h = ctx;
    uint32_t ply = atomic_load_explicit(&h->ply, memory_order_relaxed);
    const uint64_t *w = engine_state_words(s);
    return depth ? bddhook_proven(h, w, ply + depth) : bddhook_value(h, w, ply);
}

void bddhook_attach(bddhook_t *h, uct_t *u) {
    uct_set_state_hook_threads(u, bddhook_state_hook, h, h);
    uct_set_hook_moves(u, true); /* its hits are proofs */
}

void bddhook_info(const bddhook_t *h, bddhook_info_t *out) {
    *out = h->info;
}

bool bddhook_layout_ok(engine_t *e) {
    const gnet_t *net = engine_network(e);
    return net && same_layout(e, net);
}
