/* ggp regress --bdd: backward search on decision diagrams (regress/bddsearch.h), its lines,
 * and its checks against the exact solver (--check) and the bounded search (--verify). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "cli/commands.h"
#include "engine/fluents.h"
#include "regress/bddcheck.h"
#include "regress/bddsearch.h"
#include "regress/regress.h"

static const char *side_name(bdds_side_t s) {
    return s == BDDS_ALPHA   ? "alpha"
           : s == BDDS_BETA  ? "beta"
           : s == BDDS_LOWER ? "lower"
                             : "upper";
}

/* "side=alpha" or "side=lower v=50" */
static void seq_label(const bdds_seq_t *q, char *out, size_t n) {
    if (q->side == BDDS_LOWER || q->side == BDDS_UPPER)
        snprintf(out, n, "side=%s v=%d", side_name(q->side), q->v);
    else
        snprintf(out, n, "side=%s", side_name(q->side));
}

static void on_step(void *ctx, uint32_t seq, uint32_t i, const bdds_step_t *st) {
    const bddsearch_t *bs = ctx;
    char label[64];
    seq_label(bddsearch_seq(bs, seq), label, sizeof label);
    char within[32] = "";
    if (st->within != UINT32_MAX) snprintf(within, sizeof within, " within=%u", st->within);
    printf("%s i=%u seconds=%.3f cpu=%.3f nodes=%" PRIu64 " parts=%u fixpoint=%s complete=%s%s\n",
           label, i, st->seconds, st->cpu, st->nodes, st->parts, st->fixpoint ? "yes" : "no",
           st->complete ? "yes" : "no", within);
    fflush(stdout);
}

/* The lines of a run: the steps of the shared sequences are printed under each name. */
static void print_aliases(const bddsearch_t *bs) {
    for (uint32_t k = 0; k < bddsearch_seqs(bs); k++) {
        const bdds_seq_t *q = bddsearch_seq(bs, k);
        if (q->same_as == k) continue;
        char label[64], other[64];
        seq_label(q, label, sizeof label);
        seq_label(bddsearch_seq(bs, q->same_as), other, sizeof other);
        printf("# %s is %s (the same coalition and target)\n", label, other);
    }
}

static bool row_bad(const bdds_step_t *st, const bddcheck_row_t *row) {
    return row->false_pos || row->late || (st->complete && row->misses);
}

static int check_all(bddcheck_t *c, const bddsearch_t *bs, const char *what,
                     const bddcheck_opts_t *o, double seconds_each) {
    int rc = 0;
    for (uint32_t k = 0; k < bddsearch_seqs(bs); k++) {
        char label[64];
        seq_label(bddsearch_seq(bs, k), label, sizeof label);
        for (uint32_t i = 0; i < bddsearch_steps(bs, k); i++) {
            const bdds_step_t *st = bddsearch_step(bs, k, i);
            bddcheck_opts_t oi = *o;
            if (seconds_each > 0) oi.deadline = now_seconds() + seconds_each;
            bddcheck_row_t row;
            bddcheck_step(c, bs, k, i, &oi, &row);
            printf("%s %s i=%u states=%u exact=%u hits=%u false_pos=%u late=%u misses=%u "
                   "undecided=%u complete=%s seconds=%.3f decided=%u\n",
                   what, label, i, row.states, row.exact, row.hits, row.false_pos, row.late,
                   row.misses, row.undecided, st->complete ? "yes" : "no", row.seconds,
                   row.decided);
            if (row.states < bddcheck_states(c))
                printf("# %s: %s i=%u: time limit, %u of %u states checked\n", what, label, i,
                       row.states, bddcheck_states(c));
            fflush(stdout);
            if (row_bad(st, &row) && (row.false_pos || !strcmp(what, "check"))) rc = 4;
        }
    }
    return rc;
}

/* --hits: the share of the states of seeded random matches in each step. */
static void print_hits(engine_t *e, const bddsearch_t *bs, const eng_state_t *start,
                       uint32_t matches) {
    bddcheck_t *c = bddcheck_sample(e, NULL, start, matches, 0x417, 0);
    for (uint32_t k = 0; k < bddsearch_seqs(bs); k++) {
        char label[64];
        seq_label(bddsearch_seq(bs, k), label, sizeof label);
        for (uint32_t i = 0; i < bddsearch_steps(bs, k); i++) {
            uint32_t h = bddcheck_hits(c, bs, k, i), n = bddcheck_states(c);
            printf("hits %s i=%u states=%u hits=%u share=%.5f\n", label, i, n, h,
                   n ? (double)h / n : 0.0);
        }
    }
    bddcheck_free(c);
}

/* The proven bounds of the initial state (bddsearch_bounds, as a search would ask). */
static void print_bounds(engine_t *e, const bddsearch_t *bs) {
    eng_state_t *s = engine_state_new(e);
    engine_initial(e, s);
    int lo, hi;
    bddsearch_bounds(bs, engine_state_words(s), 0, &lo, &hi);
    printf("bounds state=initial lower=%d upper=%d\n", lo, hi);
    engine_state_free(s);
}

/* --check --values: the bounds of every non-terminal state against the exact ones; true
 * when one is wrong. */
static bool check_bounds(bddcheck_t *c, const bddsearch_t *bs) {
    bddcheck_bounds_t b;
    bddcheck_bounds(c, bs, &b);
    printf("check bounds states=%u proven=%u exact=%u wrong=%u\n", b.states, b.proven, b.exact,
           b.wrong);
    if (b.wrong) printf("# check bounds: the first wrong state is %u\n", b.first_wrong);
    return b.wrong > 0;
}

static void print_header(bddsearch_t *bs, const bdds_opts_t *o) {
    bddnet_t *bn = bddsearch_net(bs);
    const gnet_t *net = bddnet_net(bn);
    double reach_seconds;
    uint32_t layers = bddnet_reach_layers(bn, &reach_seconds);
    printf("# bdd mode=%s fluents=%u cone=%u vars=%u mutex_groups=%u implications=%u "
           "unknowns=%u next_joints=%u network_seconds=%.3f "
           "image=%s "
           "moves=%s reorder=%s reach_layers=%u reach_nodes=%" PRIu64 " reach_seconds=%.3f\n",
           o->mode == BDDS_EXACT ? "exact" : "within", net->n_fluents, bddnet_cone(bn),
           dd_var_count(bddnet_dd(bn)), bddnet_mutex_groups(bn), bddnet_implications(bn),
           bddnet_unknowns(bn), bddnet_next_joints(bn), bddnet_seconds(bn),
           bddnet_image(bn) == BDDNET_PER_MOVE ? "per-move" : "subst",
           o->net.moves_below ? "below" : "top", o->reorder ? "yes" : "no", layers,
           dd_nodes(bddnet_dd(bn), bddnet_invariant(bn)), reach_seconds);
}

int regress_bdd(game_t *g, uint32_t role, const regress_bdd_opts_t *o) {
    engine_t *e = engine_new(g, ENGINE_GROUND, stderr);
    const term_t *noop = NULL;
    shape_t sh;
    char err[320];
    int rc = 0;
    if (o->search.mode == BDDS_EXACT) {
        regress_shape(e, 64, 0x5eed, 0, &sh);
        if (!sh.supported) {
            fprintf(stderr, "ggp regress: %s: unsupported by backward search: %s\n", g->file,
                    sh.reason);
            engine_free(e);
            return 3;
        }
        noop = sh.noop;
    }
    eng_state_t *start = NULL;
    bdds_opts_t so = o->search;
    if (o->plies) {
        start = engine_state_new(e);
        splitmix_t rng = {o->seed};
        if (!engine_walk_to(e, &rng, o->plies, true, start)) {
            fprintf(stderr, "ggp regress: %s: the match with seed %llu ends before ply %u\n",
                    g->file, o->seed, o->plies);
            engine_state_free(start);
            engine_free(e);
            return 1;
        }
        so.net.start = engine_state_words(start);
    }
    double c0 = cpu_seconds(); /* cpu= below: the network and the steps on one core, what a */
                               /* budget on a shared machine means (seconds= is wall clock) */
    bddsearch_t *bs = bddsearch_new(e, role, noop, &so, err, sizeof err);
    if (!bs) {
        fprintf(stderr, "ggp regress: %s: unsupported by symbolic backward search: %s\n", g->file,
                err);
        rc = 3;
    } else {
        double t0 = now_seconds();
        print_header(bs, &o->search);
        bddsearch_run(bs, on_step, bs);
        print_aliases(bs);
        dd_t *d = bddnet_dd(bddsearch_net(bs)); /* cuts: operations the deadline cut inside */
        printf("# bdd seconds=%.3f live_nodes=%" PRIu64 " cpu=%.3f cuts=%" PRIu64 "\n",
               now_seconds() - t0, dd_live_nodes(d), cpu_seconds() - c0, dd_cuts_inside(d));
        if (o->search.values) print_bounds(e, bs);
        if (o->check) {
            bddcheck_t *c = bddcheck_solve(e, noop, start, o->max_states, err, sizeof err);
            if (!c) {
                fprintf(stderr, "ggp regress: --check: %s\n", err);
                rc = 3;
            } else {
                printf("# check states=%u\n", bddcheck_states(c));
                bddcheck_opts_t co = {0};
                rc = check_all(c, bs, "check", &co, 0);
                if (o->search.values && check_bounds(c, bs)) rc = 4;
                bddcheck_free(c);
            }
        }
        if (o->hits) print_hits(e, bs, start, o->hits);
        if (o->verify && !rc) {
            bddcheck_t *c = bddcheck_sample(e, noop, start, o->verify, o->seed,
                                            now_seconds() + o->verify_seconds);
            printf("# verify matches=%u of %u seed=%llu states=%u nodes_per_search=%llu\n",
                   bddcheck_matches(c), o->verify, (unsigned long long)o->seed, bddcheck_states(c),
                   (unsigned long long)o->verify_nodes);
            bddcheck_opts_t co = {.max_nodes = o->verify_nodes, .misses = true};
            rc = check_all(c, bs, "verify", &co, o->verify_seconds);
            bddcheck_free(c);
        }
        bddsearch_free(bs);
    }
    engine_state_free(start);
    engine_free(e);
    return rc;
}
