/* Symbolic backward search: see bddsearch.h. */
#include "regress/bddsearch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/util.h"
#include "engine/fluents.h"

#define REORDER_MIN_NODES 200000 /* below this sifting does not pay */
#define REACH_SHARE 0.4          /* of the budget for the reachable states at most */
#define MERGE_NODES 100000       /* a part of a set grows to at most this many nodes */
#define OP_NODES 1000000         /* nodes one operation of a step may add */
#define SAME_CHECK_MAX 64        /* parts x parts compared for a fixpoint at most */

typedef struct {
    bdds_seq_t s;
    uint32_t target; /* the successor is terminal and meets the goal (bddnet_target) */
    ddunion_t *set;  /* per step */
    ddunion_t fresh; /* WITHIN: the last step's pre-image apart (the frontier of the next) */
    uint32_t *root;  /* per step: its first part in the flat form's roots (n + 1 entries) */
    bdds_step_t *steps;
    uint32_t n, cap;
    bool done;
    ddunion_t held;          /* a deferred step's set (step: made again after its round) */
    double spent, spent_cpu; /* and its seconds */
} seq_t;

struct bddsearch {
    engine_t *e;
    const gnet_t *net;
    uint32_t role, n_roles;
    term_t noop[2];
    bool has_noop;
    bdds_opts_t o;
    bddnet_t *bn;
    seq_t *seqs;
    uint32_t n_seqs;
    double deadline;
    uint64_t reorder_at; /* live nodes that make the next reorder worth it */
    ddflat_t flat;
    uint32_t *xfirst, *xn; /* per part root of flat: its exclusions' roots */
    uint32_t n_excl;       /* exclusion diagrams exported */
    bool dropped;          /* opts.resume: a step cut and dropped, the run ends */
    bool cut_made;         /* opts.cut_step: its cut made */
};

void bdds_default_opts(bdds_opts_t *o) {
    *o = (bdds_opts_t){.budget = 10, .mode = BDDS_WITHIN, .reorder = false};
    bddnet_default_opts(&o->net);
    o->net.reach = true;
}

static uint64_t all_roles(const bddsearch_t *bs) {
    return bs->n_roles >= 64 ? ~0ull : (1ull << bs->n_roles) - 1;
}

/* A sequence, sharing the steps of an earlier one with the same coalition and target. */
static void add_seq(bddsearch_t *bs, bdds_side_t side, uint32_t role, int v, bool above,
                    uint64_t coalition) {
    uint32_t target = bddnet_target(bs->bn, role, v, above);
    seq_t *q = &bs->seqs[bs->n_seqs];
    *q = (seq_t){.s = {.side = side,
                       .role = role,
                       .v = v,
                       .above = above,
                       .coalition = coalition,
                       .same_as = bs->n_seqs},
                 .target = target};
    for (uint32_t k = 0; k < bs->n_seqs; k++)
        if (bs->seqs[k].s.same_as == k && bddnet_same_target(bs->bn, bs->seqs[k].target, target) &&
            bs->seqs[k].s.coalition == coalition && bs->o.mode == BDDS_WITHIN)
            q->s.same_as = k, q->done = true;
    bs->n_seqs++;
}

static void make_seqs(bddsearch_t *bs) {
    uint32_t a = bs->role, nv = 0;
    const int *vals;
    uint64_t me = 1ull << a, others = all_roles(bs) & ~me;
    nv = bddnet_values(bs->bn, a, &vals);
    bs->seqs = xcalloc(2 * nv + 4, sizeof *bs->seqs);
    add_seq(bs, BDDS_ALPHA, a, 100, true, me);
    if (bs->n_roles == 2)
        add_seq(bs, BDDS_BETA, 1 - a, 100, true, 1ull << (1 - a));
    else
        add_seq(bs, BDDS_BETA, a, nv ? vals[0] : 0, false, others);
    if (!bs->o.values || bs->o.mode != BDDS_WITHIN) return;
    for (uint32_t k = nv; k-- > 1;)
        add_seq(bs, BDDS_LOWER, a, vals[k], true, me);
    for (uint32_t k = 0; k + 1 < nv; k++)
        add_seq(bs, BDDS_UPPER, a, vals[k], false, others);
}

bddsearch_t *bddsearch_new(engine_t *e, uint32_t role, const term_t *noop, const bdds_opts_t *o,
                           char *err, size_t errlen) {
    const game_t *g = engine_game(e);
    const gnet_t *net = engine_network(e);
    bdds_opts_t opts;
    if (o)
        opts = *o;
    else
        bdds_default_opts(&opts);
    if (g->gdl2) {
        snprintf(err, errlen, "GDL-II games (sees, random) are not supported");
        return NULL;
    }
    if (!net && engine_kind(e) != ENGINE_INTERP) { /* a network with query nodes */
        snprintf(err, errlen,
                 "the network leaves relations to the reasoner (query nodes: "
                 "symbolic search reads the whole game from the network)");
        return NULL;
    }
    if (!net) {
        snprintf(err, errlen, "the game is not grounded (symbolic search reads the network)");
        return NULL;
    }
    if (opts.mode == BDDS_EXACT && (g->n_roles != 2 || !noop)) {
        snprintf(err, errlen, "the sets W_i need two-player turn-taking (no-ops)");
        return NULL;
    }
    if (role >= g->n_roles) {
        snprintf(err, errlen, "no role %u", role);
        return NULL;
    }
    bddsearch_t *bs = xcalloc(1, sizeof *bs);
    bs->e = e, bs->net = net, bs->role = role, bs->n_roles = g->n_roles, bs->o = opts;
    if (noop) bs->noop[0] = noop[0], bs->noop[1] = noop[1], bs->has_noop = true;
    double start = now_seconds();
    bs->deadline = opts.budget > 0 ? start + opts.budget : 0;
    opts.net.deadline = bs->deadline;
    double share = opts.reach_share > 0 ? opts.reach_share : REACH_SHARE;
    opts.net.reach_deadline = opts.budget > 0 ? start + share * opts.budget : 0;
    if (!opts.net.rules) opts.net.rules = g;
    bs->bn = bddnet_new(net, g->ts, &opts.net, err, errlen);
    if (!bs->bn) {
        free(bs);
        return NULL;
    }
    ddflat_init(&bs->flat);
    make_seqs(bs);
    bddnet_forget_goals(bs->bn);
    bs->reorder_at = 2 * dd_live_nodes(bddnet_dd(bs->bn));
    return bs;
}

/* Every step of sequence k dropped: as after make_seqs. */
static void clear_seq(bddsearch_t *bs, uint32_t k) {
    dd_t *d = bddnet_dd(bs->bn);
    seq_t *q = &bs->seqs[k];
    for (uint32_t i = 0; i < q->n; i++)
        ddunion_fini(d, &q->set[i]);
    ddunion_fini(d, &q->fresh);
    ddunion_fini(d, &q->held);
    ddunion_init(&q->fresh, 0), ddunion_init(&q->held, 0);
    q->n = 0, q->done = q->s.same_as != k, q->spent = q->spent_cpu = 0;
}

void bddsearch_free(bddsearch_t *bs) {
    if (!bs) return;
    for (uint32_t k = 0; k < bs->n_seqs; k++) {
        seq_t *q = &bs->seqs[k];
        clear_seq(bs, k);
        free(q->set), free(q->steps), free(q->root);
    }
    free(bs->seqs);
    bddnet_free(bs->bn);
    ddflat_fini(&bs->flat);
    free(bs->xfirst), free(bs->xn);
    free(bs);
}

bddnet_t *bddsearch_net(bddsearch_t *bs) {
    return bs->bn;
}

/* ---- steps ---- */

/* Do two sets hold the same states? Identical parts, or (few parts) each within the
 * other; false when not known. */
static bool same_set(dd_t *d, const ddunion_t *a, const ddunion_t *b) {
    bool same = a->n == b->n;
    for (uint32_t k = 0; k < a->n && same; k++)
        same = a->part[k] == b->part[k] && a->excl[k] == b->excl[k]; /* lists: pooled */
    if (same || (uint64_t)a->n * b->n > SAME_CHECK_MAX || ddunion_has_excl(b)) return same;
    return ddunion_within(d, a, b) && ddunion_within(d, b, a);
}

/* Is every state of a step's frontier in the step before (then the step is that one)?
 * False when not known (a frontier of many parts against a set of many). */
static bool adds_nothing(dd_t *d, const ddunion_t *fresh, const ddunion_t *prev) {
    if (!fresh) return false;
    if (!fresh->n) return true;
    return (uint64_t)fresh->n * prev->n <= SAME_CHECK_MAX && ddunion_within(d, fresh, prev);
}

/* Step i holds the states within this many steps of the start (a horizon: horizon - i,
 * where its successors within i steps are all known; UINT32_MAX: every state). */
static uint32_t within_of(const bddsearch_t *bs, uint32_t i) {
    uint32_t h = bddnet_local(bs->bn);
    return h == UINT32_MAX ? h : i <= h ? h - i : 0;
}

/* A step (its set taken over); cut: the budget ran out in it (the sequence ends there);
 * complete: the set is all of S_i (no pre-image capped up to here). */
static void push_step(bddsearch_t *bs, seq_t *q, ddunion_t *set, const ddunion_t *fresh,
                      double seconds, double cpu, bool cut, bool complete) {
    dd_t *d = bddnet_dd(bs->bn);
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 16;
        q->set = xrealloc(q->set, q->cap * sizeof *q->set);
        q->steps = xrealloc(q->steps, q->cap * sizeof *q->steps);
    }
    /* WITHIN: S_i = S_{i-1}; EXACT: W_i = W_{i-2} (i > 2: the mover alternates, so the
     * sequence repeats from there) */
    uint32_t within = within_of(bs, q->n);
    bool fix = !cut && within == UINT32_MAX &&
               (bs->o.mode == BDDS_WITHIN ? q->n && (same_set(d, set, &q->set[q->n - 1]) ||
                                                     adds_nothing(d, fresh, &q->set[q->n - 1]))
                                          : q->n > 2 && same_set(d, set, &q->set[q->n - 2]));
    q->set[q->n] = *set;
    q->steps[q->n++] = (bdds_step_t){.seconds = seconds,
                                     .cpu = cpu,
                                     .nodes = ddunion_nodes(d, set),
                                     .parts = set->n,
                                     .complete = complete,
                                     .fixpoint = fix,
                                     .within = within};
    if (fix || cut || within == 0) q->done = true; /* within 0: the start alone, the last */
}

/* WITHIN, by frontier: S_i = (S_{i-1} within the step's states) ∪ pre(S_{i-1}), where the
 * moves with one answer (an ∃, which distributes over a union) read only the last step's
 * pre-image (q->fresh: every state S_{i-1} added, with more), the rest of S_{i-1} having had
 * its pre-image taken in an earlier step and kept since (S_{i-1} ⊆ S_i, and within D - i of
 * the start the kept states of S_{i-1} are in it). The same set as S_0 ∨ pre(S_{i-1}) where
 * both are complete; a superset of it, still sound, where a step was capped. The pre-image is
 * kept apart as the next frontier. */
/* A step cut by the budget: S_{i-1} and what the pre-image got to (a subset of it:
 * bddnet_pre keeps only the moves it finished), appended without an operation (past the
 * deadline every one gives up). Sound: S_{i-1} ⊆ S_i. */
static void keep_cut(dd_t *d, const ddunion_t *prev, const ddunion_t *pre, ddunion_t *out) {
    ddunion_fini(d, out);
    ddunion_copy(d, out, prev);
    out->merge = 0; /* append: no OR */
    for (uint32_t k = 0; k < pre->n; k++)
        ddunion_add_excl(d, out, dd_dup(d, pre->part[k]), ddexcl_dup(pre->excl[k]));
}

static bool next_within(bddsearch_t *bs, seq_t *q, uint32_t i, dd_ref in, ddunion_t *out,
                        bool *exact) {
    dd_t *d = bddnet_dd(bs->bn);
    const ddunion_t *prev = &q->set[i - 1];
    ddunion_t pre;
    ddunion_init(&pre, out->merge);
    bool ok = bddnet_pre(bs->bn, prev, i > 1 ? &q->fresh : NULL, q->target, q->s.coalition, in,
                         &pre, exact);
    if (!ok) { /* cut: keep what it finished (α_1 of minichess: the moves made in time) */
        keep_cut(d, prev, &pre, out);
        ddunion_fini(d, &pre);
        return false;
    }
    bool same_in = i > 1 && in == bddnet_within(bs->bn, within_of(bs, i - 1));
    for (uint32_t k = 0; k < prev->n && ok && i > 1; k++) {
        dd_ref x = same_in ? dd_dup(d, prev->part[k]) : dd_and(d, prev->part[k], in);
        if (x == DD_NONE && !dd_out_of_time(d)) *exact = false; /* left out */
        ok = x == DD_NONE ? !dd_out_of_time(d)
                          : ddunion_add_excl(d, out, x, ddexcl_dup(prev->excl[k]));
    }
    for (uint32_t k = 0; k < pre.n && ok; k++)
        ok = ddunion_add_excl(d, out, dd_dup(d, pre.part[k]), ddexcl_dup(pre.excl[k]));
    ddunion_t fresh; /* q->fresh replaced only by a step made (opts.resume: a cut one is
                        made again from the same frontier) */
    ddunion_init(&fresh, pre.merge);
    for (uint32_t k = 0; k < pre.n && ok; k++) { /* only what is new */
        dd_ref x = dd_dup(d, pre.part[k]);
        for (uint32_t j = 0; j < prev->n && x > 0; j++) {
            if (prev->excl[j]) continue; /* its exclusions are not taken out: keeps more */
            dd_ref t = dd_diff(d, x, prev->part[j]);
            if (t == DD_NONE) t = dd_dup(d, x); /* keeps more: still a frontier */
            dd_deref(d, x);
            x = t;
        }
        ok = ddunion_add_excl(d, &fresh, x, ddexcl_dup(pre.excl[k]));
    }
    if (ok) ddunion_fini(d, &q->fresh), q->fresh = fresh;
    if (!ok) ddunion_fini(d, &fresh), keep_cut(d, prev, &pre, out);
    ddunion_fini(d, &pre);
    return ok;
}

/* Step i of q from step i-1 into out; false past the budget. WITHIN: the successor
 * terminal in the target or in step i-1; EXACT: the target for i = 1, step i-1 after, and
 * the mover's turn. */
static bool next_set(bddsearch_t *bs, seq_t *q, uint32_t i, ddunion_t *out, bool *exact) {
    dd_t *d = bddnet_dd(bs->bn);
    dd_ref in = bddnet_within(bs->bn, within_of(bs, i));
    if (bs->o.mode == BDDS_WITHIN) return next_within(bs, q, i, in, out, exact);
    ddunion_t none, pre;
    ddunion_init(&none, 0), ddunion_init(&pre, out->merge);
    bool ok = i == 1 ? bddnet_pre(bs->bn, &none, NULL, q->target, q->s.coalition, in, &pre, exact)
                     : bddnet_pre(bs->bn, &q->set[i - 1], NULL, BDDNET_NO_TARGET, q->s.coalition,
                                  in, &pre, exact);
    uint32_t mover = i % 2 ? q->s.role : 1 - q->s.role;
    dd_ref here = bddnet_moves_here(bs->bn, mover, bs->noop);
    for (uint32_t k = 0; k < pre.n && ok; k++) {
        dd_ref x = dd_and(d, pre.part[k], here);
        ok = x != DD_NONE && ddunion_add_excl(d, out, x, ddexcl_dup(pre.excl[k]));
    }
    ddunion_fini(d, &pre);
    return ok && here != DD_NONE;
}

/* Step i of sequence k. defer (WITHIN): a step cut before the budget's end (by its share,
 * step_deadline) is held back and true returned; made again once its round's other steps
 * are done (the parts it made are kept: bddnet.h), cut again it keeps what either try
 * finished (both subsets of S_i), with the seconds of both. */
static bool step(bddsearch_t *bs, uint32_t k, uint32_t i, bdds_cb cb, void *ctx, bool defer) {
    seq_t *q = &bs->seqs[k];
    dd_t *d = bddnet_dd(bs->bn);
    double t0 = now_seconds() - q->spent, c0 = cpu_seconds() - q->spent_cpu;
    ddunion_t s;
    ddunion_init(&s, bs->o.merge_nodes ? bs->o.merge_nodes : MERGE_NODES);
    if (i == 0) { /* no non-terminal state: terminal ones are judged by their goals */
        push_step(bs, q, &s, NULL, now_seconds() - t0, cpu_seconds() - c0, false, true);
    } else {
        bool exact;
        if (bs->o.cut_step == i && !bs->cut_made) /* a test's: as by the deadline */
            bs->cut_made = true, dd_cut_next(d);
        bool cut = !next_set(bs, q, i, &s, &exact);
        if (cut && defer && bs->o.mode == BDDS_WITHIN && bs->deadline &&
            now_seconds() < bs->deadline) {
            q->held = s; /* taken over */
            q->spent = now_seconds() - t0, q->spent_cpu = cpu_seconds() - c0;
            return true;
        }
        if (cut && bs->o.resume) { /* dropped, the sequence left at step i - 1 */
            ddunion_fini(d, &s), ddunion_fini(d, &q->held);
            ddunion_init(&q->held, 0);
            q->spent = q->spent_cpu = 0;
            bs->dropped = true;
            return false;
        }
        for (uint32_t j = 0; cut && j < q->held.n; j++) /* appended: merge 0 (keep_cut) */
            ddunion_add_excl(d, &s, dd_dup(d, q->held.part[j]), ddexcl_dup(q->held.excl[j]));
        ddunion_fini(d, &q->held);
        ddunion_init(&q->held, 0);
        /* WITHIN: S_{i-1} and the pre-image's finished moves (keep_cut), sound; EXACT:
         * nothing else is */
        if (cut && bs->o.mode != BDDS_WITHIN) {
            ddunion_fini(d, &s);
            ddunion_init(&s, 0);
        }
        push_step(bs, q, &s, bs->o.mode == BDDS_WITHIN && !cut ? &q->fresh : NULL,
                  now_seconds() - t0, cpu_seconds() - c0, cut,
                  !cut && exact && q->steps[i - 1].complete);
    }
    q->spent = q->spent_cpu = 0;
    if (cb) cb(ctx, k, i, &q->steps[i]);
    return false;
}

static void maybe_reorder(bddsearch_t *bs) {
    if (!bs->o.reorder) return;
    uint64_t live = dd_live_nodes(bddnet_dd(bs->bn));
    if (live < REORDER_MIN_NODES || live < bs->reorder_at) return;
    uint64_t before, after;
    bddnet_reorder(bs->bn, &before, &after);
    bs->reorder_at = 2 * after;
}

/* The flat form: every part of every step of every computed sequence (the shared ones
 * point to theirs), then the diagrams of every distinct exclusion list; per part, its
 * list's roots (xfirst, xn). */
static int cmp_ptr(const void *a, const void *b) {
    uintptr_t x = (uintptr_t) * (const ddexcl_t *const *)a,
              y = (uintptr_t) * (const ddexcl_t *const *)b;
    return (x > y) - (x < y);
}

/* The distinct exclusion lists of the computed steps, sorted by address. */
static uint32_t distinct_excl(const bddsearch_t *bs, ddexcl_t ***out) {
    uint32_t n = 0, cap = 16;
    ddexcl_t **x = xmalloc(cap * sizeof *x);
    for (uint32_t k = 0; k < bs->n_seqs; k++)
        for (uint32_t i = 0; bs->seqs[k].s.same_as == k && i < bs->seqs[k].n; i++) {
            const ddunion_t *u = &bs->seqs[k].set[i];
            for (uint32_t j = 0; j < u->n; j++) {
                if (!u->excl[j] || (n && x[n - 1] == u->excl[j])) continue;
                if (n == cap) x = xrealloc(x, (cap *= 2) * sizeof *x);
                x[n++] = u->excl[j];
            }
        }
    qsort(x, n, sizeof *x, cmp_ptr);
    uint32_t m = 0;
    for (uint32_t j = 0; j < n; j++)
        if (!m || x[m - 1] != x[j]) x[m++] = x[j];
    *out = x;
    return m;
}

static uint32_t excl_index(ddexcl_t *const *x, uint32_t n, const ddexcl_t *e) {
    ddexcl_t *const *f = bsearch(&e, x, n, sizeof *x, cmp_ptr);
    return (uint32_t)(f - x);
}

static void export_all(bddsearch_t *bs) {
    dd_t *d = bddnet_dd(bs->bn);
    uint32_t n = 0;
    for (uint32_t k = 0; k < bs->n_seqs; k++)
        for (uint32_t i = 0; bs->seqs[k].s.same_as == k && i < bs->seqs[k].n; i++)
            n += bs->seqs[k].set[i].n;
    ddexcl_t **xs;
    uint32_t nx = distinct_excl(bs, &xs), ne = 0;
    uint32_t *first = xmalloc((nx + 1) * sizeof *first);
    for (uint32_t j = 0; j < nx; j++)
        first[j] = n + ne, ne += xs[j]->n;
    dd_ref *roots = xmalloc((n + ne + 1) * sizeof *roots);
    bs->xfirst = xrealloc(bs->xfirst, (n + 1) * sizeof *bs->xfirst);
    bs->xn = xrealloc(bs->xn, (n + 1) * sizeof *bs->xn);
    n = 0;
    for (uint32_t k = 0; k < bs->n_seqs; k++) {
        seq_t *q = &bs->seqs[k];
        if (q->s.same_as != k) continue;
        q->root = xrealloc(q->root, (q->n + 1) * sizeof *q->root);
        for (uint32_t i = 0; i < q->n; i++) {
            q->root[i] = n;
            for (uint32_t j = 0; j < q->set[i].n; j++) {
                const ddexcl_t *e = q->set[i].excl[j];
                bs->xfirst[n] = e ? first[excl_index(xs, nx, e)] : 0, bs->xn[n] = e ? e->n : 0;
                roots[n++] = q->set[i].part[j];
            }
        }
        q->root[q->n] = n;
    }
    for (uint32_t j = 0; j < nx; j++)
        memcpy(roots + first[j], xs[j]->e, xs[j]->n * sizeof *roots);
    dd_export(d, roots, n + ne, &bs->flat);
    bs->n_excl = ne;
    bddnet_flat_vars(bs->bn, &bs->flat);
    free(roots), free(xs), free(first);
}

/* The sequences still to make step i: from k on, and those deferred before it. */
static uint32_t left_in_round(const bddsearch_t *bs, uint32_t i, uint32_t from,
                              const bool *deferred) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < bs->n_seqs; k++)
        n += k < from ? deferred[k] : !bs->seqs[k].done && bs->seqs[k].n == i;
    return n;
}

/* Step 1 of each sequence gets an equal share of the time left in its round: it makes the
 * successors' terminal and goals of the parts it reads (bddnet.h), which on a large board
 * (minichess) take the whole budget; so every side gets its first moves. A step cut by its
 * share is made again after the round with the time the others left (step: deferred), and
 * a cut step keeps what it finished. Later steps run to the budget as before. */
static void step_deadline(bddsearch_t *bs, uint32_t k, uint32_t i, const bool *deferred) {
    double end = bs->deadline, now = now_seconds();
    if (i == 1 && end > now) end = now + (end - now) / left_in_round(bs, i, k, deferred);
    dd_set_deadline(bddnet_dd(bs->bn), end);
}

void bddsearch_more(bddsearch_t *bs, uint32_t max_steps, double budget) {
    bs->o.max_steps = max_steps, bs->o.budget = budget;
    bs->deadline = budget > 0 ? now_seconds() + budget : 0;
    bddnet_set_deadline(bs->bn, bs->deadline);
}

bool bddsearch_restart(bddsearch_t *bs, const uint64_t *start, uint32_t max_steps, double budget,
                       bool resume, double reach_share) {
    bs->o.resume = resume;
    if (reach_share > 0) bs->o.reach_share = reach_share;
    for (uint32_t k = 0; k < bs->n_seqs; k++)
        clear_seq(bs, k);
    double now = now_seconds();
    double share = bs->o.reach_share > 0 ? bs->o.reach_share : REACH_SHARE;
    bddsearch_more(bs, max_steps, budget);
    bddnet_set_deadline(bs->bn, bs->deadline);
    dd_set_deadline(bddnet_dd(bs->bn), bs->deadline);
    bool ok = bddnet_restart(bs->bn, start, budget > 0 ? now + share * budget : 0);
    export_all(bs); /* no step: the old ones' flat form goes */
    return ok;
}

/* The first step some sequence still has to make (0 before any run; after one, where it
 * stopped: bddsearch_more). */
static uint32_t first_round(const bddsearch_t *bs) {
    uint32_t first = UINT32_MAX;
    for (uint32_t k = 0; k < bs->n_seqs; k++)
        if (!bs->seqs[k].done && bs->seqs[k].n < first) first = bs->seqs[k].n;
    return first == UINT32_MAX ? 0 : first;
}

void bddsearch_run(bddsearch_t *bs, bdds_cb cb, void *ctx) {
    dd_set_deadline(bddnet_dd(bs->bn), bs->deadline);
    dd_set_op_nodes(bddnet_dd(bs->bn), bs->o.op_nodes ? bs->o.op_nodes : OP_NODES);
    bool *deferred = xcalloc(bs->n_seqs + 1, sizeof *deferred);
    uint32_t first = first_round(bs);
    if (first) maybe_reorder(bs); /* resumed: what the round before would have done next */
    bs->dropped = false;
    for (uint32_t i = first; !bs->dropped; i++) {
        bool any = false;
        for (uint32_t k = 0; k < bs->n_seqs && !bs->dropped; k++) {
            seq_t *q = &bs->seqs[k];
            if (q->done || q->n != i) continue;
            if (bs->deadline && now_seconds() >= bs->deadline) break;
            step_deadline(bs, k, i, deferred);
            deferred[k] = step(bs, k, i, cb, ctx, i == 1);
            any = true;
        }
        dd_set_deadline(bddnet_dd(bs->bn), bs->deadline);
        for (uint32_t k = 0; k < bs->n_seqs; k++) /* again with the round's time left */
            if (deferred[k] && !bs->dropped) deferred[k] = false, step(bs, k, i, cb, ctx, false);
        if (!any || (bs->o.max_steps && i >= bs->o.max_steps)) break;
        if (bs->deadline && now_seconds() >= bs->deadline) break;
        maybe_reorder(bs);
    }
    free(deferred);
    dd_set_deadline(bddnet_dd(bs->bn), 0);
    dd_set_op_nodes(bddnet_dd(bs->bn), 0);
    export_all(bs);
}

/* ---- queries ---- */

bdds_mode_t bddsearch_mode(const bddsearch_t *bs) {
    return bs->o.mode;
}
uint32_t bddsearch_seqs(const bddsearch_t *bs) {
    return bs->n_seqs;
}
const bdds_seq_t *bddsearch_seq(const bddsearch_t *bs, uint32_t k) {
    return &bs->seqs[k].s;
}
uint32_t bddsearch_steps(const bddsearch_t *bs, uint32_t seq) {
    return bs->seqs[bs->seqs[seq].s.same_as].n;
}
const bdds_step_t *bddsearch_step(const bddsearch_t *bs, uint32_t seq, uint32_t i) {
    return &bs->seqs[bs->seqs[seq].s.same_as].steps[i];
}

uint32_t bddsearch_values(const bddsearch_t *bs, const int **values) {
    return bddnet_values(bs->bn, bs->role, values);
}

uint32_t bddsearch_find(const bddsearch_t *bs, bdds_side_t side, int v) {
    for (uint32_t k = 0; k < bs->n_seqs; k++)
        if (bs->seqs[k].s.side == side &&
            (side == BDDS_ALPHA || side == BDDS_BETA || bs->seqs[k].s.v == v))
            return k;
    return UINT32_MAX;
}

/* Is the state in part r of the flat form, none of its exclusions holding it? */
static bool in_part(const bddsearch_t *bs, uint32_t r, const uint64_t *words) {
    if (!ddflat_eval(&bs->flat, r, words)) return false;
    for (uint32_t x = bs->xfirst[r]; x < bs->xfirst[r] + bs->xn[r]; x++)
        if (ddflat_eval(&bs->flat, x, words)) return false;
    return true;
}

/* Is the state in some part of step i of the computed sequence q? */
static bool in_step(const bddsearch_t *bs, const seq_t *q, uint32_t i, const uint64_t *words) {
    for (uint32_t r = q->root[i]; r < q->root[i + 1]; r++)
        if (in_part(bs, r, words)) return true;
    return false;
}

bool bddsearch_holds(const bddsearch_t *bs, uint32_t seq, uint32_t i, const uint64_t *words) {
    return in_step(bs, &bs->seqs[bs->seqs[seq].s.same_as], i, words);
}

bool bddsearch_holds_from(const bddsearch_t *bs, uint32_t seq, uint32_t steps,
                          const uint64_t *words) {
    const seq_t *q = &bs->seqs[bs->seqs[seq].s.same_as];
    for (uint32_t i = q->n; i-- > 1;) {
        const bdds_step_t *st = &q->steps[i];
        if (st->within < steps) continue;
        if (st->nodes && in_step(bs, q, i, words)) return true;
        /* without a horizon a complete step holds every shallower step's states */
        if (st->complete && st->within == UINT32_MAX) return false;
    }
    return false;
}

/* A sequence that bounds the role's value: lower (A forces goal >= v) or upper (the others
 * force goal <= v). */
static bool bounds_seq(const bddsearch_t *bs, const bdds_seq_t *s, bool lower) {
    uint64_t me = 1ull << bs->role, others = all_roles(bs) & ~me;
    if (s->role != bs->role || bs->o.mode != BDDS_WITHIN) return false;
    return lower ? s->above && s->coalition == me : !s->above && s->coalition == others;
}

void bddsearch_bounds(const bddsearch_t *bs, const uint64_t *words, uint32_t steps, int *lower,
                      int *upper) {
    const int *vals;
    uint32_t nv = bddnet_values(bs->bn, bs->role, &vals);
    *lower = nv ? vals[0] : -1, *upper = nv ? vals[nv - 1] : -1;
    for (uint32_t k = 0; k < bs->n_seqs; k++) {
        const bdds_seq_t *s = &bs->seqs[k].s;
        if (bounds_seq(bs, s, true) && s->v > *lower && bddsearch_holds_from(bs, k, steps, words))
            *lower = s->v;
        if (bounds_seq(bs, s, false) && s->v < *upper && bddsearch_holds_from(bs, k, steps, words))
            *upper = s->v;
    }
}

int bddsearch_value(const bddsearch_t *bs, const uint64_t *words, uint32_t steps) {
    const int *vals;
    uint32_t nv = bddnet_values(bs->bn, bs->role, &vals);
    if (nv < 2) return -1;
    int lower = vals[0];
    for (uint32_t k = 0; k < bs->n_seqs; k++) { /* greatest v first: fewer walks */
        const bdds_seq_t *s = &bs->seqs[k].s;
        if (bounds_seq(bs, s, true) && s->v > lower && bddsearch_holds_from(bs, k, steps, words))
            lower = s->v;
    }
    if (lower == vals[nv - 1]) return lower;
    /* the upper bound is at least the lower one (both proven): they meet where the upper
     * sequence of that value holds */
    for (uint32_t k = 0; k < bs->n_seqs; k++) {
        const bdds_seq_t *s = &bs->seqs[k].s;
        if (bounds_seq(bs, s, false) && s->v == lower)
            return bddsearch_holds_from(bs, k, steps, words) ? lower : -1;
    }
    return -1;
}

uint32_t bddsearch_exclusions(const bddsearch_t *bs) {
    return bs->n_excl;
}

const ddflat_t *bddsearch_flat(const bddsearch_t *bs) {
    return &bs->flat;
}
