/* Grounding: see ground.h. Two passes over the rule program (gprog.h):
 *   derive: the atoms reachable under relaxed semantics, component by component of the
 *     predicate graph in dependency order (static relations exactly, stratum by stratum;
 *     recursive components semi-naively), each rule read through its join plan (gjoin.h);
 *   instantiate: every rule of a non-static relation enumerated once over those atoms,
 *     each binding a ground rule of the raw network (graw.h).
 * The network is then optimised (gopt.h) and laid out (glayout.h). */
#include "engine/ground.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "engine/gatoms.h"
#include "engine/gjoin.h"
#include "engine/glayout.h"
#include "engine/gmagic.h"
#include "engine/gopt.h"
#include "engine/gprog.h"
#include "engine/gquery.h"
#include "engine/graw.h"
#include "engine/greaders.h"
#include "engine/gsplit.h"

ground_opts_t ground_default_opts(void) {
    ground_opts_t o = {.seconds = 10,
                       .max_atoms = 2000000,
                       .max_lits = 20000000,
                       .split = true,
                       .demand = true,
                       .hybrid = true,
                       .factor = true};
    /* the test suite shortens the limit: a game that does not ground costs all of it */
    const char *limit = getenv("GGP_GROUND_SECONDS");
    if (limit && *limit && atof(limit) >= 0) o.seconds = atof(limit);
    const char *work = getenv("GGP_GROUND_WORK"); /* the suite's limit: a count, not time */
    if (work && *work) o.max_work = strtoull(work, NULL, 10);
    const char *atoms = getenv("GGP_GROUND_ATOMS");
    if (atoms && *atoms) o.max_atoms = (uint32_t)strtoul(atoms, NULL, 10);
    const char *lits = getenv("GGP_GROUND_LITS"); /* to measure a network past the limit */
    if (lits && *lits) o.max_lits = (uint32_t)strtoul(lits, NULL, 10);
    const char *split = getenv("GGP_GROUND_SPLIT"); /* 0: rules as written (to compare) */
    if (split && !strcmp(split, "0")) o.split = false;
    const char *demand = getenv("GGP_GROUND_DEMAND"); /* 0: every relation in full */
    if (demand && !strcmp(demand, "0")) o.demand = false;
    const char *hybrid = getenv("GGP_GROUND_HYBRID"); /* 0: no query nodes */
    if (hybrid && !strcmp(hybrid, "0")) o.hybrid = false;
    const char *factor = getenv("GGP_GROUND_FACTOR"); /* 0: shared conjunctions kept */
    if (factor && !strcmp(factor, "0")) o.factor = false;
    return o;
}

typedef struct {
    game_t *g;
    term_store_t *ts;
    gprog_t *P;
    gatoms_t A;
    gjoin_t J;
    ground_opts_t opts;
    bool failed;
    char *why;
    size_t why_n;
    graw_t W;
    uint32_t *node_of; /* atom -> node (GNET_NONE: not a node, or not made yet) */
    size_t cap_node_of;
    uint64_t *instances; /* per rule, for the report */
    size_t cap_instances;
    double *derive_seconds; /* per rule, for the report */
    uint64_t *derive_steps; /* per rule, for the report: join steps (load-independent) */
    uint32_t n_derive_seconds;
    uint32_t atom_cap;   /* atoms allowed in this attempt */
    bool soft, soft_hit; /* a first attempt, given up when it passes atom_cap */
    double deadline;
    size_t peak_bytes;
    uint32_t n_game;  /* the game's own predicates (before any auxiliary one) */
    uint32_t stopped; /* the component the last derive stopped in (n_sccs: none) */
    bool *full;       /* per game predicate: computed in full (not restricted by demand) */
    bool *kept;       /* per game predicate: its atoms kept from an attempt before */
    gquery_cut_t cut; /* hybrid grounding: the relations left lifted (lifted NULL: none) */
    /* instantiation, readers first: per atom, whether an instance made so far reads it;
     * per predicate, whether an instance whose head no one reads is left out (pruned) */
    uint8_t *read;
    size_t cap_read;
    bool *pruned;
    uint32_t n_pruned; /* (predicates then) */
    uint64_t n_unread; /* instances left out */
} grounder_t;

static void fail(grounder_t *G, const char *msg) {
    G->J.stop = true;
    if (G->failed) return;
    G->failed = true;
    snprintf(G->why, G->why_n, "%s", msg);
}

/* ---- derive: the atoms ---- */

/* Whether a head the rules derive nests past TERM_MAX_DEPTH (a chain of relations each
 * nesting its argument deeper): the grounder fails on it (the interpreter then gives up
 * on the same term) before the network's walks over terms recurse that deep. */
static bool too_deep(grounder_t *G, term_t head) {
    if (term_depth(G->ts, head) <= TERM_MAX_DEPTH) return false;
    char msg[96];
    snprintf(msg, sizeof msg, "a term nested past %u levels", TERM_MAX_DEPTH);
    fail(G, msg);
    return true;
}

static void on_derive(void *arg, gjoin_t *J) {
    grounder_t *G = arg;
    term_t head = term_subst(G->ts, J->rule->head, J->b.val);
    if (too_deep(G, head)) return;
    gatoms_add(&G->A, head, J->rule->pred, NULL);
    if (!G->atom_cap || G->A.n <= G->atom_cap) return;
    if (G->soft)
        G->soft_hit = G->J.stop = true;
    else
        fail(G, "too many ground atoms");
}

static bool is_kept(const grounder_t *G, uint32_t p) {
    return G->kept && p < G->n_game && G->kept[p];
}

/* The rules of component c (those of its predicates not kept from an attempt before). */
static uint32_t component_rules(const grounder_t *G, uint32_t c, uint32_t **out, size_t *cap) {
    const gprog_t *P = G->P;
    uint32_t n = 0;
    for (uint32_t i = P->scc_start[c]; i < P->scc_start[c + 1]; i++) {
        if (is_kept(G, P->scc_preds[i])) continue;
        const gp_pred_t *pr = &P->preds[P->scc_preds[i]];
        GROW(*out, *cap, (size_t)n + pr->n_rules + 1);
        for (uint32_t k = 0; k < pr->n_rules; k++)
            (*out)[n++] = pr->rules[k];
    }
    return n;
}

/* One rule's new atoms (timed for the report). */
static void derive_rule(grounder_t *G, uint32_t r, uint32_t lo, uint32_t hi) {
    double t = G->derive_seconds ? now_seconds() : 0;
    uint64_t w = G->J.work;
    gjoin_derive(&G->J, r, lo, hi, on_derive, G);
    if (G->derive_seconds) G->derive_seconds[r] += now_seconds() - t;
    if (G->derive_steps) G->derive_steps[r] += G->J.work - w;
}

/* --stats: a recursive component's rounds and the join steps of each (the fixpoint's cost
 * shows where rules are read again round after round). */
static void report_rounds(const grounder_t *G, uint32_t c, const uint64_t *steps, uint32_t n) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += steps[i];
    if (!G->opts.stats || total < 100000) return;
    const gp_pred_t *p = &G->P->preds[G->P->scc_preds[G->P->scc_start[c]]];
    fprintf(G->opts.stats,
            "ground: component of %s/%u (%u relations): %u rounds, %" PRIu64 " join steps:",
            term_sym_name(G->ts, p->sym), p->arity, G->P->scc_start[c + 1] - G->P->scc_start[c], n,
            total);
    for (uint32_t i = 0; i < n && i < 24; i++)
        fprintf(G->opts.stats, " %" PRIu64, steps[i]);
    fprintf(G->opts.stats, n > 24 ? " ...\n" : "\n");
}

static void derive(grounder_t *G) {
    gprog_t *P = G->P;
    FREE_AND_NULL(free, G->derive_seconds);
    FREE_AND_NULL(free, G->derive_steps);
    if (G->opts.stats) {
        G->derive_seconds = xcalloc(P->n_rules + 1, sizeof *G->derive_seconds);
        G->derive_steps = xcalloc(P->n_rules + 1, sizeof *G->derive_steps);
    }
    G->n_derive_seconds = P->n_rules;
    uint32_t *rules = NULL, *last = xcalloc(P->n_rules + 1, sizeof *last);
    uint64_t *round_steps = NULL;
    size_t cap = 0, cap_rounds = 0;
    G->stopped = P->n_sccs;
    for (uint32_t c = 0; c < P->n_sccs && !G->J.stop; c++) {
        G->stopped = c;
        uint32_t n = component_rules(G, c, &rules, &cap);
        if (!n) continue;
        if (!P->preds[P->scc_preds[P->scc_start[c]]].recursive) {
            for (uint32_t i = 0; i < n && !G->J.stop; i++)
                derive_rule(G, rules[i], 0, G->A.n);
            continue;
        }
        uint32_t rounds = 0;
        for (uint32_t before = UINT32_MAX; before != G->A.n && !G->J.stop; rounds++) {
            before = G->A.n;
            uint64_t w = G->J.work;
            for (uint32_t i = 0; i < n && !G->J.stop; i++) {
                uint32_t hi = G->A.n;
                derive_rule(G, rules[i], last[rules[i]], hi);
                last[rules[i]] = hi;
            }
            GROW(round_steps, cap_rounds, (size_t)rounds + 1);
            round_steps[rounds] = G->J.work - w;
        }
        report_rounds(G, c, round_steps, rounds);
    }
    if (!G->J.stop) G->stopped = P->n_sccs;
    free(rules), free(last), free(round_steps);
}

/* ---- instantiate: the ground rules ---- */

/* Whether an atom of this predicate is a node: atoms of non-static relations, and static
 * atoms the interface reads (they are constant nodes). */
static bool is_node_pred(const grounder_t *G, uint32_t pred) {
    const gp_pred_t *p = &G->P->preds[pred];
    if (!p->is_static) return true;
    sym_t s = p->sym;
    return s == SYM_LEGAL || s == SYM_GOAL || s == SYM_TERMINAL || s == SYM_SEES || s == SYM_NEXT;
}

static uint32_t node(grounder_t *G, uint32_t atom) {
    if (atom >= G->cap_node_of) {
        size_t old = G->cap_node_of;
        G->cap_node_of = (size_t)atom + 1 > 2 * old ? (size_t)atom + 1 : 2 * old;
        G->node_of = xrealloc(G->node_of, G->cap_node_of * sizeof *G->node_of);
        for (size_t a = old; a < G->cap_node_of; a++)
            G->node_of[a] = GNET_NONE;
    }
    if (G->node_of[atom] != GNET_NONE) return G->node_of[atom];
    uint32_t pred = G->A.pred[atom];
    const gp_pred_t *p = &G->P->preds[pred];
    bool query = G->cut.boundary && pred < G->cut.n_preds && G->cut.boundary[pred];
    uint8_t kind = query                  ? GNODE_QUERY
                   : p->is_static         ? GNODE_TRUE
                   : pred == G->P->p_true ? GNODE_FLUENT
                   : pred == G->P->p_does ? GNODE_MOVE
                                          : GNODE_DERIVED;
    return G->node_of[atom] = graw_node(&G->W, kind, G->A.term[atom]);
}

static void mark_read(grounder_t *G, uint32_t atom) {
    GROW_ZEROED(G->read, G->cap_read, (size_t)atom + 1);
    G->read[atom] = 1;
}

/* Whether an instance with head atom h of predicate pred feeds nothing: no instance made
 * before (the readers come first) reads h, and only the readers' could. */
static bool unread(const grounder_t *G, uint32_t pred, uint32_t h) {
    return pred < G->n_pruned && G->pruned[pred] && (h >= G->cap_read || !G->read[h]);
}

static void on_instance(void *arg, gjoin_t *J) {
    grounder_t *G = arg;
    uint32_t h = gatoms_find(&G->A, term_find_subst(G->ts, J->rule->head, J->b.val));
    if (h == GATOM_NONE) { /* an auxiliary relation's atom, found only now */
        term_t head = term_subst(G->ts, J->rule->head, J->b.val);
        if (too_deep(G, head)) return;
        h = gatoms_add(&G->A, head, J->rule->pred, NULL);
    }
    if (unread(G, J->rule->pred, h)) {
        G->n_unread++;
        return;
    }
    graw_rule(&G->W, node(G, h));
    if (G->opts.stats) {
        size_t r = (size_t)(J->rule - G->P->rules);
        GROW_ZEROED(G->instances, G->cap_instances, r + 1);
        G->instances[r]++;
    }
    for (uint32_t s = 0; s < J->plan->n_steps; s++) {
        const gstep_t *st = &J->plan->steps[s];
        uint32_t a = J->matched[s];
        if (!st->dyn || a == GATOM_NONE) continue; /* a negation of an atom never reached */
        mark_read(G, a);
        graw_lit(&G->W, node(G, a) << 1 | (st->op == GS_NEG));
    }
    if (G->opts.max_lits && G->W.n_lits > G->opts.max_lits) fail(G, "too many ground rules");
}

/* The rules of the network: those of non-static relations, split (gsplit.h); groups gets
 * where the rules standing for each rule of the game start in todo. */
static void network_rules(grounder_t *G, gids_t *todo, gids_t *groups, gids_t *heads) {
    gprog_t *P = G->P;
    gids_t rules = {0};
    for (uint32_t c = 0; c < P->n_sccs; c++)
        for (uint32_t i = P->scc_start[c]; i < P->scc_start[c + 1]; i++) {
            const gp_pred_t *pr = &P->preds[P->scc_preds[i]];
            if (pr->is_static) continue;
            GROW(rules.ids, rules.cap, (size_t)rules.n + pr->n_rules + 1);
            for (uint32_t k = 0; k < pr->n_rules; k++)
                if (!P->rules[pr->rules[k]].transfer) rules.ids[rules.n++] = pr->rules[k];
        }
    gsplit_t *S = G->opts.split ? gsplit_new(P, &G->A) : NULL;
    for (uint32_t i = 0; i < rules.n; i++) {
        GROW(groups->ids, groups->cap, (size_t)groups->n + 1);
        groups->ids[groups->n++] = todo->n;
        GROW(heads->ids, heads->cap, (size_t)heads->n + 1);
        heads->ids[heads->n++] = P->rules[rules.ids[i]].pred;
        if (S) {
            gsplit_rule(S, rules.ids[i], todo);
            continue;
        }
        GROW(todo->ids, todo->cap, (size_t)todo->n + 1);
        todo->ids[todo->n++] = rules.ids[i];
    }
    if (S && G->opts.stats) {
        gsplit_counts_t c;
        gsplit_counts(S, &c);
        fprintf(G->opts.stats,
                "ground: split %u rules, %u auxiliary rules, %u binders projected, %u rules "
                "unfolded\n",
                c.split, c.aux, c.projected, c.unfolded);
    }
    gsplit_free(S);
    free(rules.ids);
}

/* Rule r, or when its relation is pruned and not all its atoms are read, r reading the
 * wanted heads first (greaders_rule; the relation of those made on its first rule, when
 * every reader has been instantiated). */
static uint32_t wanted_rule(grounder_t *G, uint32_t r, uint32_t *wanted) {
    uint32_t p = G->P->rules[r].pred;
    if (p >= G->n_pruned || !G->pruned[p]) return r;
    if (wanted[p] == UINT32_MAX - 1)
        wanted[p] = greaders_wanted(G->P, &G->A, p, G->read, G->cap_read);
    return wanted[p] == UINT32_MAX ? r : greaders_rule(G->P, r, wanted[p]);
}

/* --stats: the relations instantiated for their wanted heads only, and the instances left
 * out after all (none but where a relation's atoms are all read: a safety net). */
static void report_wanted(const grounder_t *G, const uint32_t *wanted) {
    uint64_t n_rel = 0, n_wanted = 0, n_all = 0;
    for (uint32_t p = 0; p < G->n_pruned; p++) {
        if (wanted[p] >= UINT32_MAX - 1) continue;
        n_rel++;
        n_wanted += gatoms_of(&G->A, wanted[p])->n;
        n_all += gatoms_of(&G->A, p)->n;
    }
    fprintf(G->opts.stats,
            "ground: %" PRIu64 " relations instantiated for the %" PRIu64 " of their %" PRIu64
            " atoms some instance reads; %" PRIu64 " instances left out\n",
            n_rel, n_wanted, n_all, G->n_unread);
}

/* Every rule of the network instantiated, readers first (the components in reverse
 * dependency order, each game rule's split rules in their own order): an instance whose
 * head no instance reads would be removed by the optimiser, and is not made (chess: most
 * of the 4.2 million instances of threatened_with_capture). */
static void instantiate(grounder_t *G) {
    /* every node atom gets its node, in the order found */
    for (uint32_t a = 0; a < G->A.n; a++)
        if (is_node_pred(G, G->A.pred[a])) node(G, a);
    gids_t todo = {0}, groups = {0}, heads = {0};
    uint32_t n_game = G->P->n_preds; /* (the split's auxiliary relations come after) */
    network_rules(G, &todo, &groups, &heads);
    G->pruned = greaders_order(G->P, n_game, &todo, &groups, heads.ids, G->cut.boundary,
                               G->cut.boundary ? G->cut.n_preds : 0);
    G->n_pruned = n_game;
    uint32_t *wanted = xmalloc(((size_t)n_game + 1) * sizeof *wanted);
    for (uint32_t p = 0; p < n_game; p++)
        wanted[p] = UINT32_MAX - G->pruned[p]; /* (UINT32_MAX - 1: not made yet) */
    for (uint32_t i = 0; i < todo.n && !G->J.stop; i++)
        gjoin_instances(&G->J, wanted_rule(G, todo.ids[i], wanted), on_instance, G);
    if (G->opts.stats) report_wanted(G, wanted);
    free(wanted);
    free(todo.ids), free(groups.ids), free(heads.ids);
}

/* The initial state's (true f) atoms. */
static term_t *initial(grounder_t *G, uint32_t *n) {
    const gids_t *ids = gatoms_of(&G->A, G->P->p_init == UINT32_MAX ? 0 : G->P->p_init);
    term_t *out = xmalloc((ids->n + 1) * sizeof *out);
    *n = 0;
    for (uint32_t k = 0; k < ids->n && G->P->p_init != UINT32_MAX; k++)
        out[(*n)++] = term_find(G->ts, SYM_TRUE, term_args(G->ts, G->A.term[ids->ids[k]]), 1);
    return out;
}

/* ---- the report (--stats) ---- */

static term_t gp_lit(const void *ctx, uint32_t i, bool *negative) {
    const gp_lit_t *l = &((const gp_rule_t *)ctx)->body[i];
    *negative = l->kind == GLIT_NEG;
    return l->atom;
}

static void print_rule(const grounder_t *G, const gp_rule_t *r, strbuf_t *b) {
    rule_print_parts(G->ts, r->head, r->n_body, gp_lit, r, b);
}

/* The k largest of n values: their indices, largest first. */
static uint32_t top(const uint64_t *val, uint32_t n, uint32_t *out, uint32_t k) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!val[i]) continue;
        uint32_t j = m < k ? m++ : k;
        if (j == k && val[i] <= val[out[k - 1]]) continue;
        if (j == k) j = k - 1;
        while (j > 0 && val[out[j - 1]] < val[i])
            out[j] = out[j - 1], j--;
        out[j] = i;
    }
    return m;
}

static void report_sizes(grounder_t *G, const char *what, double seconds) {
    size_t bytes = gatoms_bytes(&G->A) + graw_bytes(&G->W);
    if (bytes > G->peak_bytes) G->peak_bytes = bytes;
    fprintf(G->opts.stats,
            "ground: %-11s %7.3f s  atoms=%u nodes=%u rules=%u literals=%u (%.1f MB) "
            "work=%" PRIu64 "\n",
            what, seconds, G->A.n, G->W.n_nodes, G->W.n_rules, G->W.n_lits, bytes / 1048576.0,
            G->J.work);
}

static void report_largest(grounder_t *G) {
    FILE *f = G->opts.stats;
    uint32_t np = G->P->n_preds, ids[12];
    uint64_t *count = xcalloc(np + 1, sizeof *count);
    for (uint32_t p = 0; p < np; p++)
        count[p] = gatoms_of(&G->A, p)->n;
    uint32_t m = top(count, np, ids, 12);
    for (uint32_t i = 0; i < m; i++)
        fprintf(f, "ground:   %10" PRIu64 " atoms of %s/%u%s\n", count[ids[i]],
                term_sym_name(G->ts, G->P->preds[ids[i]].sym), G->P->preds[ids[i]].arity,
                G->P->preds[ids[i]].is_static ? " (static)" : "");
    free(count);
    /* the rules that cost the most join steps (and their seconds, which the load sways) */
    m = G->derive_steps ? top(G->derive_steps, G->n_derive_seconds, ids, 8) : 0;
    strbuf_t b;
    sb_init(&b);
    for (uint32_t i = 0; i < m; i++) {
        sb_clear(&b);
        print_rule(G, &G->P->rules[ids[i]], &b);
        fprintf(f, "ground:   %10" PRIu64 " steps %7.3f s deriving %.300s\n",
                G->derive_steps[ids[i]], G->derive_seconds[ids[i]], sb_str(&b));
    }
    m = top(G->instances, (uint32_t)G->cap_instances, ids, 12);
    for (uint32_t i = 0; i < m; i++) {
        sb_clear(&b);
        print_rule(G, &G->P->rules[ids[i]], &b);
        fprintf(f, "ground:   %10" PRIu64 " instances of %.300s\n", G->instances[ids[i]],
                sb_str(&b));
    }
    sb_fini(&b);
}

/* After optimisation: the relations whose nodes hold the most literals (of the network's
 * rules by their head's symbol), so that what fills the network is seen, not only what
 * instantiation made. */
static void report_network(grounder_t *G) {
    uint32_t n = (uint32_t)term_sym_count(G->ts), ids[12];
    uint64_t *lits = xcalloc(n + 1, sizeof *lits), *rules = xcalloc(n + 1, sizeof *rules);
    uint64_t f_lits = 0, f_rules = 0, f_nodes = 0; /* of the nodes factoring made */
    for (uint32_t x = 0; x < G->W.n_nodes; x++)
        f_nodes += G->W.kind[x] == GNODE_DERIVED && G->W.atom[x] == TERM_NONE;
    for (uint32_t r = 0; r < G->W.n_rules; r++) {
        term_t a = G->W.atom[G->W.head[r]];
        if (a == TERM_NONE) {
            f_lits += G->W.first[r + 1] - G->W.first[r], f_rules++;
            continue;
        }
        sym_t s = term_sym(G->ts, a);
        lits[s] += G->W.first[r + 1] - G->W.first[r];
        rules[s]++;
    }
    uint32_t m = top(lits, n, ids, 12);
    for (uint32_t i = 0; i < m; i++)
        fprintf(G->opts.stats, "ground:   %10" PRIu64 " literals %9" PRIu64 " rules of %s\n",
                lits[ids[i]], rules[ids[i]], term_sym_name(G->ts, (sym_t)ids[i]));
    if (f_nodes)
        fprintf(G->opts.stats,
                "ground:   %10" PRIu64 " literals %9" PRIu64 " rules of %" PRIu64
                " nodes made by factoring\n",
                f_lits, f_rules, f_nodes);
    free(lits), free(rules);
}

/* A first attempt gives up past this many atoms, and the grounder starts again with demand
 * on the relations that grew: most games need far fewer atoms, and for them demand would
 * only cost its joins. A second attempt gives up past SOFT_ATOMS_2 (when below the hard
 * limit), and a third adds demand on the relations that grew then: demand on one relation
 * often moves the growth to the relation that reads it. */
#define SOFT_ATOMS 250000
#define SOFT_ATOMS_2 1000000
#define ATTEMPTS 3
/* An attempt with demand may take at most this many times the join steps the first attempt
 * took: where demand pays, its attempt took about as many (alexChess, crisscross,
 * mummymaze1p: 1.0-1.1 times; laikLee_hex's second 4 times); gt_two_thirds_6p's ran to 364
 * million steps, 20 CPU s, where every relation in full takes 10.9 million. */
#define DEMAND_WORK 8

/* Whether the rules read predicate p, and only in negated literals. */
static bool read_negated(const gprog_t *P, uint32_t p) {
    bool read = false;
    for (uint32_t i = 0; i < P->n_rules; i++)
        for (uint32_t j = 0; j < P->rules[i].n_body; j++) {
            const gp_lit_t *l = &P->rules[i].body[j];
            if (l->kind == GLIT_DISTINCT || l->pred != p) continue;
            if (l->kind == GLIT_POS) return false;
            read = true;
        }
    return read;
}

/* Marks in on (over the game's own predicates, n of them) the relations, not the
 * interface's, that hold a tenth of the atoms or more; returns how many were not marked
 * before. A static relation derived to its end and below a tenth of the atom limit is left
 * whole: demand would save few atoms and make its readers read it anew every round (chess's
 * `different_cells`, 65,280 atoms: its frame rule took 72 million join steps so). Nor is a
 * relation with wildcard arguments (gany.h) that the rules read negated only: each negated
 * literal asks for what the whole positive body of its rule binds, and a reader reads such
 * a relation as up to four literals, each a demand rule of its own (chess's
 * `threatened_with_capture`: 25 million join steps to demand what 17 million derive in
 * full; crisscross' `count`, read positively at fixed squares, keeps its demand). */
static uint32_t largest_relations(const grounder_t *G, bool *on, uint32_t n) {
    const gprog_t *P = G->P;
    uint32_t added = 0;
    for (uint32_t p = 0; p < n && p < P->n_preds; p++) {
        if (gprog_is_interface(P, p) || p == P->p_true || p == P->p_does || on[p]) continue;
        if (P->preds[p].is_static && P->preds[p].scc < G->stopped && G->opts.max_atoms &&
            gatoms_of(&G->A, p)->n * 10ull < G->opts.max_atoms)
            continue;
        if (P->preds[p].wild && read_negated(P, p)) continue; /* see above */
        on[p] = gatoms_of(&G->A, p)->n * 10ull >= G->A.n;
        added += on[p];
    }
    return added;
}

/* Whether every relation the rules of pred p read is kept or in p's component (scc). */
static bool reads_kept(const grounder_t *G, const gprog_t *P, uint32_t p, uint32_t scc) {
    const gp_pred_t *pr = &P->preds[p];
    for (uint32_t k = 0; k < pr->n_rules; k++) {
        const gp_rule_t *r = &P->rules[pr->rules[k]];
        for (uint32_t j = 0; j < r->n_body; j++) {
            uint32_t q = r->body[j].pred;
            if (r->body[j].kind == GLIT_DISTINCT) continue;
            if (q >= G->n_game || !(G->kept[q] || P->preds[q].scc == scc)) return false;
        }
    }
    return true;
}

/* Marks in G->kept the relations whose atoms the next attempt can take over from the last
 * (old, its program): computed in full to the end there, not restricted by the next, and
 * reading only such relations, so the next would derive the same atoms again. */
static void mark_kept(grounder_t *G, const gprog_t *old, const bool *restricted) {
    for (uint32_t c = 0; c < old->n_sccs && c < G->stopped; c++) {
        bool all = true;
        for (uint32_t i = old->scc_start[c]; i < old->scc_start[c + 1]; i++) {
            uint32_t p = old->scc_preds[i];
            all = all && p < G->n_game && G->full[p] && !restricted[p];
        }
        for (uint32_t i = old->scc_start[c]; i < old->scc_start[c + 1] && all; i++)
            all = reads_kept(G, old, old->scc_preds[i], c);
        for (uint32_t i = old->scc_start[c]; i < old->scc_start[c + 1]; i++)
            if (old->scc_preds[i] < G->n_game) G->kept[old->scc_preds[i]] = all;
    }
}

/* --stats: the relations the next attempt restricts, with their atoms in this one. */
static void report_targets(const grounder_t *G, const bool *targets) {
    for (uint32_t p = 0; p < G->n_game; p++)
        if (targets[p])
            fprintf(G->opts.stats, "ground:   demand on %s/%u (%u atoms)\n",
                    term_sym_name(G->ts, G->P->preds[p].sym), G->P->preds[p].arity,
                    gatoms_of(&G->A, p)->n);
}

/* Whether the last attempt's atoms of predicate p carry over to the next: those of the
 * relations it computed in full (kept: the next skips their rules), and those of every
 * relation of the game that neither restricts, even where the last stopped before its
 * fixpoint. Demand leaves a relation's readers with the atoms they had (it drops only atoms
 * of the restricted relations that no reader asks for), so the next attempt would find
 * these again: it starts from them instead (alexChess: 100,747 atoms, 3.2 million of its
 * 12.5 million join steps saved). */
static bool carried(const grounder_t *G, uint32_t p, const bool *restricted) {
    /* (not past a hybrid cut, which changes what the relations the network keeps read) */
    return is_kept(G, p) || (!G->cut.lifted && p < G->n_game && G->full[p] && !restricted[p]);
}

/* A fresh program with demand on targets (NULL: none), and fresh atoms but those the last
 * attempt found that this one will find too (the work counted so far kept). */
static uint32_t restart_with_demand(grounder_t *G, const bool *targets) {
    gprog_t *old = G->P;
    G->P = gprog_new(G->g);
    if (G->cut.lifted) gquery_apply(G->P, &G->cut);
    bool *restricted = xcalloc(G->n_game + 1, sizeof *restricted);
    uint32_t n_restricted = targets ? gmagic_apply(G->P, targets, restricted) : 0;
    memset(G->kept, 0, G->n_game * sizeof *G->kept);
    mark_kept(G, old, restricted);
    for (uint32_t p = 0; p < G->n_game && G->cut.lifted; p++)
        G->kept[p] = G->kept[p] && !G->cut.lifted[p] && G->P->preds[p].relevant;
    gprog_free(old);
    uint64_t work = G->J.work; /* the limit is on all attempts together */
    gjoin_fini(&G->J);
    gatoms_t A = G->A;
    gatoms_init(&G->A, G->ts);
    for (uint32_t a = 0; a < A.n; a++)
        if (carried(G, A.pred[a], restricted)) gatoms_add(&G->A, A.term[a], A.pred[a], NULL);
    gatoms_fini(&A);
    for (uint32_t p = 0; p < G->n_game; p++)
        G->full[p] = !restricted[p];
    free(restricted);
    if (G->opts.stats)
        fprintf(G->opts.stats, "ground: %u atoms carried over from the attempt before\n", G->A.n);
    gjoin_init(&G->J, G->P, &G->A, G->deadline, G->opts.max_work);
    G->J.work = work;
    return n_restricted;
}

/* An attempt with demand may use half of the work and time left, and DEMAND_WORK times the
 * first attempt's work (first): the rest is for the relations in full when demand does not
 * pay. */
static uint64_t half_budget(grounder_t *G, uint64_t first) {
    if (G->J.max_work) G->J.max_work = G->J.work + (G->J.max_work - G->J.work) / 2;
    uint64_t half = G->J.max_work, cap = G->J.work + DEMAND_WORK * first;
    if (!G->J.max_work || G->J.max_work > cap) G->J.max_work = cap;
    if (G->J.deadline > 0) {
        double now = now_seconds();
        G->J.deadline = now < G->J.deadline ? now + (G->J.deadline - now) / 2 : G->J.deadline;
    }
    return half; /* (the work without the cap: an attempt that goes on past it) */
}

/* The largest relation of the game's own, not the interface's (UINT32_MAX: none). */
static uint32_t largest_relation(const grounder_t *G) {
    const gprog_t *P = G->P;
    uint32_t best = UINT32_MAX, most = 0;
    for (uint32_t p = 0; p < G->n_game && p < P->n_preds; p++) {
        if (gprog_is_interface(P, p) || p == P->p_true || p == P->p_does) continue;
        uint32_t n = gatoms_of(&G->A, p)->n;
        if (n > most) most = n, best = p;
    }
    return best;
}

/* Whether one relation holds most of the atoms, past what a first attempt allows (or the
 * limit, when lower). */
static bool dominated(const grounder_t *G) {
    uint32_t p = largest_relation(G), hard = G->opts.max_atoms;
    bool past = G->A.n >= SOFT_ATOMS || (hard && G->A.n >= hard);
    return p != UINT32_MAX && past && 2ull * gatoms_of(&G->A, p)->n >= G->A.n;
}

/* Whether deriving stopped (past the atom limit, out of time or work), one relation
 * holding most of the atoms. */
static bool blew_up(const grounder_t *G) {
    bool stopped = (G->failed && !strcmp(G->why, "too many ground atoms")) ||
                   (!G->failed && (G->J.out_of_time || G->J.out_of_work));
    return stopped && dominated(G);
}

/* Past the atom limit: the relations that depend on the one that grew most, up to a cut
 * the network can read through query nodes, are left lifted (gquery.h), and the atoms are
 * derived again without them, demand kept on the others, with the work and time left. */
static bool hybrid(grounder_t *G, bool *targets) {
    uint32_t blew = largest_relation(G);
    if (blew == UINT32_MAX) return false;
    gprog_t *fresh = gprog_new(G->g); /* numbered as G->P's own predicates */
    char why[160];
    bool ok = gquery_cut(fresh, blew, &G->cut, why, sizeof why);
    if (G->opts.stats && ok) gquery_report(G->opts.stats, fresh, &G->cut);
    if (G->opts.stats && !ok)
        fprintf(G->opts.stats, "ground: hybrid: no cut around %s/%u: %s\n",
                term_sym_name(G->ts, fresh->preds[blew].sym), fresh->preds[blew].arity, why);
    gprog_free(fresh);
    if (!ok) {
        gquery_cut_fini(&G->cut);
        return false;
    }
    for (uint32_t p = 0; p < G->n_game; p++)
        targets[p] = targets[p] && !G->cut.lifted[p];
    G->failed = false;
    restart_with_demand(G, targets);
    G->soft = false;
    G->atom_cap = G->opts.max_atoms;
    G->J.stop = false;
    derive(G);
    return true;
}

/* Derives the atoms: every relation in full, else (when that passes SOFT_ATOMS) again from
 * the start with demand on the largest relations, and again with demand on those that grew
 * then; when no new relation can be restricted, on from where the last attempt stopped. */
static void atoms(grounder_t *G) {
    uint32_t hard = G->opts.max_atoms, n_game = G->n_game = G->P->n_preds;
    bool *targets = xcalloc(n_game + 1, sizeof *targets);
    G->kept = xcalloc(n_game + 1, sizeof *G->kept);
    G->full = xmalloc((n_game + 1) * sizeof *G->full);
    for (uint32_t p = 0; p < n_game; p++)
        G->full[p] = true;
    uint64_t first = 0, half = G->J.max_work; /* the first attempt's steps; work uncapped */
    for (uint32_t attempt = 0;; attempt++) {
        uint32_t cap = attempt == 0 ? SOFT_ATOMS : SOFT_ATOMS_2;
        G->soft = G->opts.demand && attempt + 1 < ATTEMPTS && (!hard || hard > cap);
        G->atom_cap = G->soft ? cap : hard;
        G->soft_hit = false;
        G->J.stop = false;
        if (attempt > 0) half = half_budget(G, first);
        derive(G);
        if (attempt == 0) first = G->J.work;
        if (attempt > 0 && !G->failed && (G->J.out_of_work || G->J.out_of_time)) {
            /* demand cost more joins than it saved (a chain of sums whose demand grows
             * with each sum): every relation in full, with what is left */
            restart_with_demand(G, NULL);
            if (G->opts.stats) fprintf(G->opts.stats, "ground: demand out of work: none\n");
            G->soft = false;
            G->atom_cap = hard;
            derive(G);
            break;
        }
        if (!G->soft_hit || G->failed) break;
        uint32_t added = largest_relations(G, targets, n_game), n_atoms = G->A.n;
        if (added && G->opts.stats) report_targets(G, targets);
        uint32_t restricted = added ? restart_with_demand(G, targets) : 0;
        if (G->opts.stats)
            fprintf(G->opts.stats,
                    "ground: %u atoms and counting (%" PRIu64
                    " join steps): demand on %u relations\n",
                    n_atoms, G->J.work, restricted);
        /* demand restricts nothing more and one relation dominates: lifted, where a cut
         * allows (gquery.h) */
        if (!added && G->opts.hybrid && !G->cut.lifted && dominated(G) && hybrid(G, targets)) break;
        if (!added) { /* on from here, without a limit of its own */
            G->soft = false;
            G->atom_cap = hard;
            G->J.stop = false;
            G->J.max_work = half;
            derive(G);
            break;
        }
    }
    if (G->opts.hybrid && !G->cut.lifted && blew_up(G)) hybrid(G, targets);
    free(targets), free(G->kept), free(G->full);
    G->kept = G->full = NULL;
}

/* GGP_GROUND_LIFT=NAME (to measure a cut): the relation NAME, and the cut around it, left
 * lifted from the first attempt on. */
static void forced_cut(grounder_t *G) {
    const char *name = getenv("GGP_GROUND_LIFT");
    if (!name || !*name || !G->opts.hybrid) return;
    uint32_t blew = UINT32_MAX;
    for (uint32_t p = 0; p < G->P->n_preds && blew == UINT32_MAX; p++)
        if (!strcmp(term_sym_name(G->ts, G->P->preds[p].sym), name)) blew = p;
    char why[160] = "no such relation";
    bool ok = blew != UINT32_MAX && gquery_cut(G->P, blew, &G->cut, why, sizeof why);
    if (G->opts.stats && ok) gquery_report(G->opts.stats, G->P, &G->cut);
    if (G->opts.stats && !ok)
        fprintf(G->opts.stats, "ground: hybrid: no cut around %s: %s\n", name, why);
    if (ok)
        gquery_apply(G->P, &G->cut);
    else
        gquery_cut_fini(&G->cut);
}

gnet_t *gnet_new(game_t *g, const ground_opts_t *opts, char *why, size_t n) {
    double t0 = now_seconds();
    grounder_t G = {.g = g, .ts = g->ts, .opts = *opts, .why = why, .why_n = n};
    G.deadline = opts->seconds > 0 ? t0 + opts->seconds : 0;
    G.P = gprog_new(g);
    if (opts->stats && G.P->n_wild)
        fprintf(opts->stats, "ground: %u argument positions read as wildcards\n", G.P->n_wild);
    forced_cut(&G);
    gatoms_init(&G.A, g->ts);
    gjoin_init(&G.J, G.P, &G.A, G.deadline, opts->max_work);
    graw_init(&G.W);
    if (G.P->p_true == UINT32_MAX) fail(&G, "the rules never mention true");
    double t = now_seconds();
    if (!G.failed) atoms(&G);
    if (opts->stats) report_sizes(&G, "derive", now_seconds() - t);
    t = now_seconds();
    if (!G.failed && !G.J.stop) instantiate(&G);
    if (opts->stats) report_sizes(&G, "instantiate", now_seconds() - t);
    if (!G.failed && G.J.out_of_work) {
        char msg[80];
        snprintf(msg, sizeof msg, "out of work (%" PRIu64 " join steps)", opts->max_work);
        fail(&G, msg);
    }
    if (!G.failed && G.J.stop) fail(&G, "out of time");
    if (opts->stats) report_largest(&G);
    gnet_t *net = NULL;
    /* the optimiser and the layout take about as long as the join on a big game (amazons:
     * 1.0 and 1.0 s): the deadline stops them too, else a start clock's grounding ends a
     * second past it; the layout cannot be cut, so it is not begun past the deadline */
    t = now_seconds();
    if (!G.failed && !gopt_run(&G.W, G.ts, G.opts.factor, G.deadline)) fail(&G, "out of time");
    if (!G.failed && G.deadline > 0 && now_seconds() > G.deadline) fail(&G, "out of time");
    if (!G.failed) {
        if (opts->stats) report_sizes(&G, "optimise", now_seconds() - t);
        if (opts->stats) report_network(&G);
        t = now_seconds();
        uint32_t n_init;
        term_t *init = initial(&G, &n_init);
        net = glayout_net(&G.W, g, init, n_init);
        free(init);
        net->seconds = now_seconds() - t0;
        net->work = G.J.work;
        if (opts->stats)
            fprintf(opts->stats, "ground: layout      %7.3f s  peak %.1f MB held by the grounder\n",
                    now_seconds() - t, G.peak_bytes / 1048576.0);
    }
    free(G.instances), free(G.derive_seconds), free(G.derive_steps);
    graw_fini(&G.W);
    gjoin_fini(&G.J);
    gatoms_fini(&G.A);
    gprog_free(G.P);
    gquery_cut_fini(&G.cut);
    free(G.node_of), free(G.read), free(G.pruned);
    return net;
}

void gnet_free(gnet_t *net) {
    if (!net) return;
    for (uint32_t r = 0; r < net->n_roles; r++) {
        free(net->move_term[r]), free(net->legal_node[r]), free(net->move_node[r]);
        free(net->goals[r]), free(net->sees[r]);
    }
    free(net->move_term), free(net->legal_node), free(net->move_node);
    free(net->goals), free(net->sees), free(net->n_goals), free(net->n_sees), free(net->n_moves);
    free(net->fluent_term), free(net->fluent_node), free(net->next_node), free(net->init);
    free(net->kind), free(net->atom), free(net->input);
    free(net->order), free(net->rule_start), free(net->lit_start), free(net->lits);
    free(net->blocks), free(net->legal_first), free(net->query_node);
    free(net);
}

/* ---- evaluation ---- */

static inline uint8_t eval_node(const gnet_t *net, const uint8_t *vals, uint32_t i) {
    for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
        uint32_t l = net->lit_start[r], end = net->lit_start[r + 1];
        while (l < end && (vals[net->lits[l] >> 1] ^ (net->lits[l] & 1)))
            l++;
        if (l == end) return 1;
    }
    return 0;
}

void gnet_eval(const gnet_t *net, uint8_t *vals, uint32_t from, uint32_t to) {
    for (uint32_t b = from; b < to; b++) {
        const gblock_t *bl = &net->blocks[b];
        if (!bl->cyclic) {
            vals[net->order[bl->first]] = eval_node(net, vals, bl->first);
            continue;
        }
        for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
            vals[net->order[i]] = 0;
        for (bool changed = true; changed;) {
            changed = false;
            for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
                uint8_t v = eval_node(net, vals, i);
                if (v != vals[net->order[i]]) vals[net->order[i]] = v, changed = true;
            }
        }
    }
}
