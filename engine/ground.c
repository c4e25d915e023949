/* Grounding by relaxed reachability, and the levelled network: see ground.h. */
#include "engine/ground.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hash.h"
#include "engine/reason.h"

ground_opts_t ground_default_opts(void) {
    ground_opts_t o = {.seconds = 10, .max_atoms = 2000000, .max_lits = 20000000};
    /* the test suite shortens the limit: a game that does not ground costs all of it */
    const char *limit = getenv("GGP_GROUND_SECONDS");
    if (limit && atof(limit) > 0) o.seconds = atof(limit);
    return o;
}

/* ---- the atom table: ground atoms with the round they appeared in ---- */

typedef struct {
    term_t term;
    uint32_t pred, stamp;
    bool is_static;
} gatom_t;

typedef struct {
    uint32_t *ids;
    size_t n, cap;
} vec_t;

static void vec_push(vec_t *v, uint32_t x) {
    GROW(v->ids, v->cap, v->n + 1);
    v->ids[v->n++] = x;
}

/* Index key: the atoms of a predicate whose argument `pos` is `val`. */
typedef struct {
    uint32_t pred, pos;
    term_t val;
    vec_t atoms;
} gkey_t;

/* A ground rule under construction: head atom and literals (atom id, or for a negated
 * dynamic atom its term, resolved once every atom is known). */
typedef struct {
    uint32_t v;
    bool neg;
} glit_t;

typedef struct {
    uint32_t head, first, n;
} grule_t;

typedef struct {
    game_t *g;
    term_store_t *ts;
    ground_opts_t opts;
    double deadline;
    bool failed;
    char *why;
    size_t why_n;
    gatom_t *atoms;
    size_t n_atoms, cap_atoms;
    uint32_t *table; /* term -> atom id + 1, open addressing */
    size_t table_cap;
    vec_t *by_pred;
    gkey_t *keys;
    size_t n_keys, cap_keys;
    uint32_t *key_table;
    size_t key_table_cap;
    grule_t *rules;
    size_t n_rules, cap_rules;
    glit_t *lits;
    size_t n_lits, cap_lits;
    uint32_t pred_true, pred_does, pred_next, pred_legal;
    uint64_t work;
    /* the rule being enumerated */
    const rule_t *rule;
    uint32_t *order; /* body literal indices in enumeration order */
    uint32_t n_order;
    term_t *map;
    uint32_t *matched; /* atom matched at each order position */
    uint32_t *trail;
    size_t n_trail, cap_trail;
    uint32_t round, delta; /* delta: the order position bound to the last round's atoms */
    bool static_phase;     /* grounding static relations: atoms only, no ground rules */
} grounder_t;

static void fail(grounder_t *G, const char *msg) {
    if (G->failed) return;
    G->failed = true;
    snprintf(G->why, G->why_n, "%s", msg);
}

static bool pred_is_static(const grounder_t *G, uint32_t p) {
    return G->g->preds[p].layer == LAYER_STATIC;
}

static uint32_t atom_find(const grounder_t *G, term_t t) {
    if (!G->table_cap) return GNET_NONE;
    size_t mask = G->table_cap - 1;
    for (size_t i = (t * 0x9e3779b1u) & mask;; i = (i + 1) & mask) {
        uint32_t e = G->table[i];
        if (!e) return GNET_NONE;
        if (G->atoms[e - 1].term == t) return e - 1;
    }
}

static void table_put(uint32_t *table, size_t cap, term_t t, uint32_t id) {
    size_t mask = cap - 1, i = (t * 0x9e3779b1u) & mask;
    while (table[i])
        i = (i + 1) & mask;
    table[i] = id + 1;
}

static void table_grow(grounder_t *G) {
    size_t cap = G->table_cap ? G->table_cap * 2 : 1024;
    uint32_t *tab = xcalloc(cap, sizeof *tab);
    for (size_t a = 0; a < G->n_atoms; a++)
        table_put(tab, cap, G->atoms[a].term, (uint32_t)a);
    free(G->table);
    G->table = tab;
    G->table_cap = cap;
}

static uint32_t key_hash(uint32_t pred, uint32_t pos, term_t val) {
    return hash_mix(hash_mix(pred * 0x9e3779b1u, pos), val) * 0x85ebca6bu;
}

static gkey_t *key_find(grounder_t *G, uint32_t pred, uint32_t pos, term_t val, bool make) {
    if ((G->n_keys + 1) * 2 > G->key_table_cap) {
        size_t cap = G->key_table_cap ? G->key_table_cap * 2 : 1024;
        uint32_t *tab = xcalloc(cap, sizeof *tab);
        for (size_t k = 0; k < G->n_keys; k++) {
            size_t i = key_hash(G->keys[k].pred, G->keys[k].pos, G->keys[k].val) & (cap - 1);
            while (tab[i])
                i = (i + 1) & (cap - 1);
            tab[i] = (uint32_t)k + 1;
        }
        free(G->key_table);
        G->key_table = tab;
        G->key_table_cap = cap;
    }
    size_t mask = G->key_table_cap - 1;
    size_t i = key_hash(pred, pos, val) & mask;
    for (;; i = (i + 1) & mask) {
        uint32_t e = G->key_table[i];
        if (!e) break;
        gkey_t *k = &G->keys[e - 1];
        if (k->pred == pred && k->pos == pos && k->val == val) return k;
    }
    if (!make) return NULL;
    GROW(G->keys, G->cap_keys, G->n_keys + 1);
    G->keys[G->n_keys] = (gkey_t){.pred = pred, .pos = pos, .val = val};
    G->key_table[i] = (uint32_t)++G->n_keys;
    return &G->keys[G->n_keys - 1];
}

static term_t make_atom1(grounder_t *G, sym_t f, term_t a, term_t b, uint32_t n) {
    term_t args[2] = {a, b};
    return term_fun(G->ts, f, args, n);
}

static uint32_t atom_add(grounder_t *G, term_t t, uint32_t pred, bool is_static);

/* `next` atoms make `true` atoms reachable, `legal` atoms make `does` atoms. */
static void transfer(grounder_t *G, term_t t, uint32_t pred) {
    const term_store_t *ts = G->ts;
    if (pred == G->pred_next && G->pred_true != GNET_NONE)
        atom_add(G, make_atom1(G, SYM_TRUE, term_arg(ts, t, 0), 0, 1), G->pred_true, false);
    else if (pred == G->pred_legal && G->pred_does != GNET_NONE)
        atom_add(G, make_atom1(G, SYM_DOES, term_arg(ts, t, 0), term_arg(ts, t, 1), 2),
                 G->pred_does, false);
}

static uint32_t atom_add(grounder_t *G, term_t t, uint32_t pred, bool is_static) {
    uint32_t id = atom_find(G, t);
    if (id != GNET_NONE) return id;
    if (G->opts.max_atoms && G->n_atoms >= G->opts.max_atoms) {
        fail(G, "too many ground atoms");
        return GNET_NONE;
    }
    if ((G->n_atoms + 1) * 2 > G->table_cap) table_grow(G);
    GROW(G->atoms, G->cap_atoms, G->n_atoms + 1);
    id = (uint32_t)G->n_atoms++;
    G->atoms[id] = (gatom_t){.term = t, .pred = pred, .stamp = G->round, .is_static = is_static};
    table_put(G->table, G->table_cap, t, id);
    vec_push(&G->by_pred[pred], id);
    for (uint32_t i = 0; i < term_arity(G->ts, t); i++)
        vec_push(&key_find(G, pred, i, term_arg(G->ts, t, i), true)->atoms, id);
    transfer(G, t, pred);
    return id;
}

/* ---- matching a rule literal against ground atoms ---- */

static void bind(grounder_t *G, uint32_t v, term_t t) {
    G->map[v] = t;
    GROW(G->trail, G->cap_trail, G->n_trail + 1);
    G->trail[G->n_trail++] = v;
}

static void undo(grounder_t *G, size_t mark) {
    while (G->n_trail > mark)
        G->map[G->trail[--G->n_trail]] = TERM_NONE;
}

static bool match(grounder_t *G, term_t pat, term_t t) {
    const term_store_t *ts = G->ts;
    const term_node_t *p = term_node(ts, pat);
    if (p->ground) return pat == t;
    if (p->kind == TERM_VAR) {
        if (G->map[p->sym] != TERM_NONE) return G->map[p->sym] == t;
        bind(G, p->sym, t);
        return true;
    }
    const term_node_t *n = term_node(ts, t);
    if (n->kind != TERM_FUN || n->sym != p->sym || n->arity != p->arity) return false;
    for (uint32_t i = 0; i < p->arity; i++)
        if (!match(G, term_arg(ts, pat, i), term_arg(ts, t, i))) return false;
    return true;
}

static bool over_budget(grounder_t *G) {
    if (G->failed) return true;
    if ((++G->work & 4095) == 0 && G->opts.seconds > 0 && now_seconds() > G->deadline)
        fail(G, "out of time");
    return G->failed;
}

/* ---- enumerating a rule's bindings ---- */

static void emit(grounder_t *G) {
    const rule_t *r = G->rule;
    term_t head = term_subst(G->ts, r->head, G->map);
    uint32_t p = game_pred_of(G->g, head);
    uint32_t h = atom_add(G, head, p, pred_is_static(G, p));
    if (h == GNET_NONE || G->static_phase) return;
    size_t first = G->n_lits;
    for (uint32_t k = 0; k < G->n_order; k++) {
        const lit_t *l = &r->body[G->order[k]];
        if (l->kind == LIT_DISTINCT) continue;
        if (pred_is_static(G, game_pred_of(G->g, l->atom))) continue;
        GROW(G->lits, G->cap_lits, G->n_lits + 1);
        if (l->kind == LIT_POS)
            G->lits[G->n_lits++] = (glit_t){G->matched[k], false};
        else
            G->lits[G->n_lits++] = (glit_t){term_subst(G->ts, l->atom, G->map), true};
    }
    if (G->opts.max_lits && G->n_lits > G->opts.max_lits) fail(G, "too many ground rules");
    GROW(G->rules, G->cap_rules, G->n_rules + 1);
    G->rules[G->n_rules++] = (grule_t){h, (uint32_t)first, (uint32_t)(G->n_lits - first)};
}

/* Whether an atom may be used at order position k in this round (semi-naive: the delta
 * position takes the last round's atoms, earlier ones older atoms, later ones any). */
static bool stamp_ok(const grounder_t *G, uint32_t k, uint32_t stamp) {
    uint32_t last = G->round - 1;
    if (G->delta == GNET_NONE) return stamp <= last;
    if (k < G->delta) return stamp < last;
    if (k == G->delta) return stamp == last;
    return stamp <= last;
}

static void enum_from(grounder_t *G, uint32_t k);

static void enum_pos(grounder_t *G, uint32_t k, const lit_t *l) {
    const term_store_t *ts = G->ts;
    uint32_t p = game_pred_of(G->g, l->atom);
    term_t whole = term_find_subst(ts, l->atom, G->map);
    if (whole != TERM_NONE || term_is_ground(ts, l->atom)) {
        uint32_t a = whole == TERM_NONE ? GNET_NONE : atom_find(G, whole);
        if (a == GNET_NONE || !stamp_ok(G, k, G->atoms[a].stamp)) return;
        G->matched[k] = a;
        enum_from(G, k + 1);
        return;
    }
    /* the candidates: by the first argument bound to a ground term, else all; held by
     * index, as new atoms and keys may move the arrays while we iterate */
    size_t key = SIZE_MAX;
    for (uint32_t i = 0; i < term_arity(ts, l->atom); i++) {
        term_t v = term_find_subst(ts, term_arg(ts, l->atom, i), G->map);
        if (v == TERM_NONE) continue; /* an open variable (or no such term): next position */
        const gkey_t *kp = key_find(G, p, i, v, false);
        if (!kp) return;
        key = (size_t)(kp - G->keys);
        break;
    }
    size_t n = key == SIZE_MAX ? G->by_pred[p].n : G->keys[key].atoms.n;
    for (size_t c = 0; c < n && !over_budget(G); c++) {
        uint32_t a = key == SIZE_MAX ? G->by_pred[p].ids[c] : G->keys[key].atoms.ids[c];
        if (!stamp_ok(G, k, G->atoms[a].stamp)) continue;
        size_t mark = G->n_trail;
        if (match(G, l->atom, G->atoms[a].term)) {
            G->matched[k] = a;
            enum_from(G, k + 1);
        }
        undo(G, mark);
    }
}

static void enum_from(grounder_t *G, uint32_t k) {
    if (G->failed) return;
    if (k == G->n_order) {
        emit(G);
        return;
    }
    const lit_t *l = &G->rule->body[G->order[k]];
    const term_store_t *ts = G->ts;
    if (l->kind == LIT_DISTINCT) {
        term_t a = term_subst(G->ts, term_arg(ts, l->atom, 0), G->map);
        term_t b = term_subst(G->ts, term_arg(ts, l->atom, 1), G->map);
        if (a != b) enum_from(G, k + 1);
    } else if (l->kind == LIT_NEG) {
        uint32_t p = game_pred_of(G->g, l->atom);
        if (pred_is_static(G, p)) {
            term_t t = term_find_subst(ts, l->atom, G->map);
            if (t != TERM_NONE && atom_find(G, t) != GNET_NONE) return;
        }
        enum_from(G, k + 1);
    } else {
        enum_pos(G, k, l);
    }
}

/* Variables of t into seen (marks); returns how many were already bound. */
static uint32_t count_bound(const term_store_t *ts, term_t t, const bool *bound) {
    if (term_is_ground(ts, t)) return 0;
    if (term_is_var(ts, t)) return bound[term_sym(ts, t)];
    uint32_t n = 0;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        n += count_bound(ts, term_arg(ts, t, i), bound);
    return n;
}

static bool all_bound(const term_store_t *ts, term_t t, const bool *bound) {
    if (term_is_ground(ts, t)) return true;
    if (term_is_var(ts, t)) return bound[term_sym(ts, t)];
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        if (!all_bound(ts, term_arg(ts, t, i), bound)) return false;
    return true;
}

static void mark_bound(const term_store_t *ts, term_t t, bool *bound) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        bound[term_sym(ts, t)] = true;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        mark_bound(ts, term_arg(ts, t, i), bound);
}

/* The enumeration order: each filter (negation, distinct) as soon as its variables are
 * bound; among positive literals the one with the most bound variables first. */
static void plan_rule(grounder_t *G, const rule_t *r) {
    const term_store_t *ts = G->ts;
    bool *bound = xcalloc(r->n_vars + 1, sizeof *bound);
    bool *used = xcalloc(r->n_body + 1, sizeof *used);
    G->n_order = 0;
    while (G->n_order < r->n_body) {
        bool progress = false;
        for (uint32_t i = 0; i < r->n_body; i++)
            if (!used[i] && r->body[i].kind != LIT_POS && all_bound(ts, r->body[i].atom, bound)) {
                used[i] = true, progress = true;
                G->order[G->n_order++] = i;
            }
        uint32_t best = GNET_NONE, best_n = 0;
        for (uint32_t i = 0; i < r->n_body; i++) {
            if (used[i] || r->body[i].kind != LIT_POS) continue;
            uint32_t n = count_bound(ts, r->body[i].atom, bound) + 1;
            if (best == GNET_NONE || n > best_n) best = i, best_n = n;
        }
        if (best != GNET_NONE) {
            used[best] = true, progress = true;
            G->order[G->n_order++] = best;
            mark_bound(ts, r->body[best].atom, bound);
        }
        if (!progress) /* unsafe filters (validation rejects these): last */
            for (uint32_t i = 0; i < r->n_body; i++)
                if (!used[i]) used[i] = true, G->order[G->n_order++] = i;
    }
    free(bound);
    free(used);
}

/* One rule in one round: in a phase's first (full) round once over every atom known,
 * afterwards once per delta position (a binding must use an atom of the last round). */
static void ground_rule(grounder_t *G, const rule_t *r, bool full) {
    G->rule = r;
    plan_rule(G, r);
    if (full) {
        G->delta = GNET_NONE;
        enum_from(G, 0);
        return;
    }
    for (uint32_t k = 0; k < G->n_order && !G->failed; k++) {
        if (r->body[G->order[k]].kind != LIT_POS) continue;
        G->delta = k;
        enum_from(G, 0);
    }
}

/* The static relations grounding reads: those in the bodies of the other rules, the
 * interface relations when static (init, legal, goal, terminal, next, sees), and what
 * they use. Others (base, input, their helpers) are never computed: some are large. */
static bool *needed_statics(grounder_t *G) {
    const game_t *g = G->g;
    bool *need = xcalloc(g->n_preds + 1, sizeof *need);
    for (uint32_t p = 0; p < g->n_preds; p++) {
        sym_t s = g->preds[p].sym;
        need[p] = pred_is_static(G, p) && (s == SYM_INIT || s == SYM_LEGAL || s == SYM_GOAL ||
                                           s == SYM_TERMINAL || s == SYM_NEXT || s == SYM_SEES);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < g->n_rules; i++) {
            const rule_t *r = &g->rules[i];
            uint32_t h = game_pred_of(g, r->head);
            if (pred_is_static(G, h) && !need[h]) continue;
            for (uint32_t k = 0; k < r->n_body; k++) {
                if (r->body[k].kind == LIT_DISTINCT) continue;
                uint32_t p = game_pred_of(g, r->body[k].atom);
                if (pred_is_static(G, p) && !need[p]) need[p] = changed = true;
            }
        }
    }
    return need;
}

/* One phase of the fixpoint over the rules whose head predicate is in heads: a full
 * round, then semi-naive rounds until one adds nothing. */
static void run_phase(grounder_t *G, const bool *heads) {
    for (bool full = true; !G->failed; full = false) {
        size_t atoms = G->n_atoms, rules = G->n_rules;
        for (size_t i = 0; i < G->g->n_rules && !G->failed; i++) {
            const rule_t *r = &G->g->rules[i];
            if (heads[game_pred_of(G->g, r->head)]) ground_rule(G, r, full);
        }
        G->round++;
        if (G->n_atoms == atoms && G->n_rules == rules) break;
    }
}

/* The static relations the game needs, exactly: stratum by stratum (components of the
 * predicate graph bottom-up), so that a negated static atom is looked up in a complete
 * relation. */
static void ground_statics(grounder_t *G) {
    const game_t *g = G->g;
    bool *need = needed_statics(G), *heads = xcalloc(g->n_preds + 1, sizeof *heads);
    uint32_t *by_scc = xmalloc((g->n_preds + 1) * sizeof *by_scc), n = 0;
    for (uint32_t p = 0; p < g->n_preds; p++)
        if (need[p]) by_scc[n++] = p;
    for (uint32_t i = 1; i < n; i++) /* insertion sort by component: n is small */
        for (uint32_t j = i; j > 0 && g->preds[by_scc[j]].scc < g->preds[by_scc[j - 1]].scc; j--) {
            uint32_t t = by_scc[j];
            by_scc[j] = by_scc[j - 1], by_scc[j - 1] = t;
        }
    G->static_phase = true;
    for (uint32_t i = 0; i < n && !G->failed;) {
        uint32_t j = i;
        for (; j < n && g->preds[by_scc[j]].scc == g->preds[by_scc[i]].scc; j++)
            heads[by_scc[j]] = true;
        run_phase(G, heads);
        for (; i < j; i++)
            heads[by_scc[i]] = false;
    }
    G->static_phase = false;
    free(need), free(heads), free(by_scc);
}

static void fixpoint(grounder_t *G) {
    const game_t *g = G->g;
    G->round = 1;
    ground_statics(G);
    /* the initial fluents */
    uint32_t pred_init = game_pred(g, SYM_INIT, 1);
    for (size_t a = 0; a < G->n_atoms && pred_init != GNET_NONE && !G->failed; a++)
        if (G->atoms[a].pred == pred_init)
            atom_add(G, make_atom1(G, SYM_TRUE, term_arg(G->ts, G->atoms[a].term, 0), 0, 1),
                     G->pred_true, false);
    G->round++;
    bool *heads = xcalloc(g->n_preds + 1, sizeof *heads);
    for (uint32_t p = 0; p < g->n_preds; p++)
        heads[p] = !pred_is_static(G, p);
    run_phase(G, heads);
    free(heads);
}

static uint32_t pred_of_sym(const game_t *g, sym_t s, uint32_t arity) {
    return game_pred(g, s, arity);
}

static void grounder_init(grounder_t *G, game_t *g, const ground_opts_t *opts, char *why,
                          size_t n) {
    memset(G, 0, sizeof *G);
    G->g = g;
    G->ts = g->ts;
    G->opts = *opts;
    G->deadline = now_seconds() + opts->seconds;
    G->why = why, G->why_n = n;
    G->by_pred = xcalloc(g->n_preds + 1, sizeof *G->by_pred);
    G->pred_true = pred_of_sym(g, SYM_TRUE, 1);
    G->pred_does = pred_of_sym(g, SYM_DOES, 2);
    G->pred_next = pred_of_sym(g, SYM_NEXT, 1);
    G->pred_legal = pred_of_sym(g, SYM_LEGAL, 2);
    uint32_t max_body = 1, max_vars = 1;
    for (size_t i = 0; i < g->n_rules; i++) {
        if (g->rules[i].n_body + 1 > max_body) max_body = g->rules[i].n_body + 1;
        if (g->rules[i].n_vars + 1 > max_vars) max_vars = g->rules[i].n_vars + 1;
    }
    G->order = xcalloc(max_body, sizeof *G->order);
    G->matched = xcalloc(max_body, sizeof *G->matched);
    G->map = xcalloc(max_vars, sizeof *G->map);
}

static void grounder_fini(grounder_t *G) {
    for (uint32_t p = 0; p < G->g->n_preds; p++)
        free(G->by_pred[p].ids);
    free(G->by_pred);
    for (size_t k = 0; k < G->n_keys; k++)
        free(G->keys[k].atoms.ids);
    free(G->keys), free(G->key_table);
    free(G->atoms), free(G->table);
    free(G->rules), free(G->lits);
    free(G->order), free(G->matched), free(G->map), free(G->trail);
}

/* ---- the network ---- */

typedef struct {
    grounder_t *G;
    gnet_t *net;
    uint32_t *node_of;                 /* atom -> node */
    uint32_t *head_start, *head_rules; /* ground rules by head node */
} builder_t;

static bool is_special(const grounder_t *G, uint32_t pred) {
    sym_t s = G->g->preds[pred].sym;
    return s == SYM_LEGAL || s == SYM_GOAL || s == SYM_TERMINAL || s == SYM_SEES || s == SYM_NEXT;
}

static void make_nodes(builder_t *B) {
    grounder_t *G = B->G;
    gnet_t *net = B->net;
    B->node_of = xmalloc((G->n_atoms + 1) * sizeof *B->node_of);
    net->kind = xmalloc((G->n_atoms + 1) * sizeof *net->kind);
    net->atom = xmalloc((G->n_atoms + 1) * sizeof *net->atom);
    net->input = xmalloc((G->n_atoms + 1) * sizeof *net->input);
    for (size_t a = 0; a < G->n_atoms; a++) {
        const gatom_t *at = &G->atoms[a];
        B->node_of[a] = GNET_NONE;
        if (at->is_static && !is_special(G, at->pred)) continue;
        uint32_t n = net->n_nodes++;
        B->node_of[a] = n;
        net->atom[n] = at->term;
        net->input[n] = GNET_NONE;
        net->kind[n] = at->is_static              ? GNODE_TRUE
                       : at->pred == G->pred_true ? GNODE_FLUENT
                       : at->pred == G->pred_does ? GNODE_MOVE
                                                  : GNODE_DERIVED;
    }
}

/* Ground rules grouped by head node, literals resolved to nodes. */
static void group_rules(builder_t *B) {
    grounder_t *G = B->G;
    uint32_t nn = B->net->n_nodes;
    B->head_start = xcalloc(nn + 2, sizeof *B->head_start);
    for (size_t r = 0; r < G->n_rules; r++)
        B->head_start[B->node_of[G->rules[r].head] + 2]++;
    for (uint32_t n = 0; n < nn; n++)
        B->head_start[n + 2] += B->head_start[n + 1];
    B->head_rules = xmalloc((G->n_rules + 1) * sizeof *B->head_rules);
    for (size_t r = 0; r < G->n_rules; r++)
        B->head_rules[B->head_start[B->node_of[G->rules[r].head] + 1]++] = (uint32_t)r;
    /* literals: atoms to nodes; a negated atom never reached is always true (dropped by
     * marking it GNET_NONE) */
    for (size_t i = 0; i < G->n_lits; i++) {
        glit_t *l = &G->lits[i];
        uint32_t a = l->neg ? atom_find(G, l->v) : l->v;
        l->v = a == GNET_NONE ? GNET_NONE : B->node_of[a];
    }
}

/* Levels: Tarjan's components over derived nodes (edges to the nodes a rule uses), which
 * come out dependencies first. */
typedef struct {
    builder_t *B;
    uint32_t *index, *low, *stack, *cstack, *citer;
    bool *on;
    uint32_t n_index, n_stack;
    uint32_t *comp; /* component of each node */
    uint32_t n_comps;
    uint32_t *out; /* nodes in emission order */
    uint32_t n_out;
    uint32_t *comp_first;
} tarjan_t;

/* The i-th dependency of a node (over all its rules' literals); GNET_NONE past the end. */
typedef struct {
    uint32_t rule, lit;
} dep_iter_t;

static uint32_t next_dep(builder_t *B, uint32_t node, dep_iter_t *it) {
    grounder_t *G = B->G;
    uint32_t nr = B->head_start[node + 1] - B->head_start[node];
    while (it->rule < nr) {
        const grule_t *r = &G->rules[B->head_rules[B->head_start[node] + it->rule]];
        while (it->lit < r->n) {
            uint32_t v = G->lits[r->first + it->lit++].v;
            if (v != GNET_NONE && B->net->kind[v] == GNODE_DERIVED) return v;
        }
        it->rule++, it->lit = 0;
    }
    return GNET_NONE;
}

static void tarjan(builder_t *B, uint32_t *order_out, uint32_t *comp_of, uint32_t *n_comps) {
    uint32_t nn = B->net->n_nodes;
    uint32_t *index = xmalloc((nn + 1) * sizeof *index), *low = xmalloc((nn + 1) * sizeof *low);
    uint32_t *st = xmalloc((nn + 1) * sizeof *st), *call = xmalloc((nn + 1) * sizeof *call);
    dep_iter_t *it = xmalloc((nn + 1) * sizeof *it);
    bool *on = xcalloc(nn + 1, sizeof *on);
    for (uint32_t n = 0; n < nn; n++)
        index[n] = GNET_NONE;
    uint32_t next_index = 0, sp = 0, n_out = 0, nc = 0;
    for (uint32_t root = 0; root < nn; root++) {
        if (B->net->kind[root] != GNODE_DERIVED || index[root] != GNET_NONE) continue;
        uint32_t depth = 0;
        call[depth++] = root;
        index[root] = low[root] = next_index++;
        st[sp++] = root, on[root] = true;
        it[root] = (dep_iter_t){0, 0};
        while (depth) {
            uint32_t v = call[depth - 1];
            uint32_t w = next_dep(B, v, &it[v]);
            if (w != GNET_NONE) {
                if (index[w] == GNET_NONE) {
                    index[w] = low[w] = next_index++;
                    st[sp++] = w, on[w] = true;
                    it[w] = (dep_iter_t){0, 0};
                    call[depth++] = w;
                } else if (on[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            depth--;
            if (depth && low[v] < low[call[depth - 1]]) low[call[depth - 1]] = low[v];
            if (low[v] == index[v]) {
                uint32_t w2;
                do {
                    w2 = st[--sp];
                    on[w2] = false;
                    comp_of[w2] = nc;
                    order_out[n_out++] = w2;
                } while (w2 != v);
                nc++;
            }
        }
    }
    *n_comps = nc;
    free(index), free(low), free(st), free(call), free(it), free(on);
}

static bool self_loop(builder_t *B, uint32_t node) {
    dep_iter_t it = {0, 0};
    for (uint32_t w; (w = next_dep(B, node, &it)) != GNET_NONE;)
        if (w == node) return true;
    return false;
}

static bool is_play_root(const grounder_t *G, term_t atom) {
    sym_t s = term_sym(G->ts, atom);
    return s == SYM_TERMINAL || s == SYM_LEGAL || s == SYM_NEXT || s == SYM_SEES;
}

/* Lays the derived nodes out in blocks, state blocks first, with their rules. */
static void layout(builder_t *B) {
    gnet_t *net = B->net;
    grounder_t *G = B->G;
    uint32_t nn = net->n_nodes;
    uint32_t *emitted = xmalloc((nn + 1) * sizeof *emitted),
             *comp = xmalloc((nn + 1) * sizeof *comp);
    uint32_t n_comps = 0;
    tarjan(B, emitted, comp, &n_comps);
    uint32_t n_derived = 0;
    for (uint32_t n = 0; n < nn; n++)
        n_derived += net->kind[n] == GNODE_DERIVED;
    /* move phase: depends on a move input, directly or through a derived node */
    bool *moves = xcalloc(nn + 1, sizeof *moves);
    bool *comp_moves = xcalloc(n_comps + 1, sizeof *comp_moves);
    for (uint32_t i = 0; i < n_derived; i++) {
        uint32_t v = emitted[i];
        uint32_t r0 = B->head_start[v], r1 = B->head_start[v + 1];
        for (uint32_t r = r0; r < r1; r++) {
            const grule_t *gr = &G->rules[B->head_rules[r]];
            for (uint32_t l = 0; l < gr->n; l++) {
                uint32_t w = G->lits[gr->first + l].v;
                if (w != GNET_NONE && (net->kind[w] == GNODE_MOVE || moves[w]))
                    comp_moves[comp[v]] = true;
            }
        }
        /* a component is complete once its last node is emitted */
        if (i + 1 == n_derived || comp[emitted[i + 1]] != comp[v]) {
            for (uint32_t j = i + 1; j-- > 0 && comp[emitted[j]] == comp[v];)
                moves[emitted[j]] = comp_moves[comp[v]];
        }
    }
    /* play: what terminal, legal, next, sees and the move blocks need (goals are read
     * at the end of a match only); marked backwards, dependants before dependencies */
    bool *play = xcalloc(nn + 1, sizeof *play),
         *comp_play = xcalloc(n_comps + 1, sizeof *comp_play);
    for (uint32_t i = n_derived; i-- > 0;) {
        uint32_t v = emitted[i];
        if (moves[v] || is_play_root(G, net->atom[v])) comp_play[comp[v]] = true;
        if (i > 0 && comp[emitted[i - 1]] == comp[v]) continue; /* the component's first */
        for (uint32_t j = i; j < n_derived && comp[emitted[j]] == comp[v]; j++) {
            uint32_t x = emitted[j];
            play[x] = comp_play[comp[v]];
            if (!play[x]) continue;
            dep_iter_t it = {0, 0};
            for (uint32_t w; (w = next_dep(B, x, &it)) != GNET_NONE;)
                comp_play[comp[w]] = true;
        }
    }
    net->order = xmalloc((n_derived + 1) * sizeof *net->order);
    net->blocks = xmalloc((n_comps + 1) * sizeof *net->blocks);
    net->rule_start = xmalloc((n_derived + 2) * sizeof *net->rule_start);
    for (int phase = 0; phase < 3; phase++) {
        for (uint32_t i = 0; i < n_derived;) {
            uint32_t j = i;
            while (j < n_derived && comp[emitted[j]] == comp[emitted[i]])
                j++;
            uint32_t v = emitted[i];
            int ph = moves[v] ? 2 : play[v] ? 0 : 1;
            if (ph == phase) {
                gblock_t *b = &net->blocks[net->n_blocks++];
                b->first = net->n_order;
                b->n = j - i;
                b->cyclic = j - i > 1 || self_loop(B, emitted[i]);
                for (uint32_t k = i; k < j; k++)
                    net->order[net->n_order++] = emitted[k];
            }
            i = j;
        }
        if (phase == 0) net->n_play_blocks = net->n_blocks;
        if (phase == 1) net->n_state_blocks = net->n_blocks;
    }
    /* rules and literals in order */
    net->n_rules = 0;
    for (uint32_t i = 0; i < net->n_order; i++)
        net->n_rules += B->head_start[net->order[i] + 1] - B->head_start[net->order[i]];
    net->lit_start = xmalloc((net->n_rules + 1) * sizeof *net->lit_start);
    net->lits = xmalloc((G->n_lits + 1) * sizeof *net->lits);
    uint32_t nr = 0;
    net->n_lits = 0;
    for (uint32_t i = 0; i < net->n_order; i++) {
        uint32_t v = net->order[i];
        net->rule_start[i] = nr;
        for (uint32_t r = B->head_start[v]; r < B->head_start[v + 1]; r++) {
            const grule_t *gr = &G->rules[B->head_rules[r]];
            net->lit_start[nr++] = net->n_lits;
            for (uint32_t l = 0; l < gr->n; l++) {
                const glit_t *gl = &G->lits[gr->first + l];
                if (gl->v == GNET_NONE) continue; /* a negation of an unreachable atom */
                net->lits[net->n_lits++] = gl->v << 1 | gl->neg;
            }
        }
    }
    net->rule_start[net->n_order] = nr;
    net->lit_start[nr] = net->n_lits;
    free(emitted), free(comp), free(moves), free(comp_moves), free(play), free(comp_play);
}

/* Fluents, moves, goals, percepts, terminal: the nodes the engine reads and writes. */
static void interface(builder_t *B) {
    gnet_t *net = B->net;
    grounder_t *G = B->G;
    const game_t *g = G->g;
    const term_store_t *ts = G->ts;
    uint32_t nn = net->n_nodes, nr = g->n_roles;
    net->n_roles = nr;
    net->fluent_term = xmalloc((nn + 1) * sizeof *net->fluent_term);
    net->fluent_node = xmalloc((nn + 1) * sizeof *net->fluent_node);
    net->next_node = xmalloc((nn + 1) * sizeof *net->next_node);
    net->n_moves = xcalloc(nr + 1, sizeof *net->n_moves);
    net->move_term = xcalloc(nr + 1, sizeof *net->move_term);
    net->legal_node = xcalloc(nr + 1, sizeof *net->legal_node);
    net->move_node = xcalloc(nr + 1, sizeof *net->move_node);
    net->n_goals = xcalloc(nr + 1, sizeof *net->n_goals);
    net->goals = xcalloc(nr + 1, sizeof *net->goals);
    net->n_sees = xcalloc(nr + 1, sizeof *net->n_sees);
    net->sees = xcalloc(nr + 1, sizeof *net->sees);
    net->terminal = GNET_NONE;
    for (uint32_t r = 0; r < nr; r++) {
        net->move_term[r] = xmalloc((nn + 1) * sizeof(term_t));
        net->legal_node[r] = xmalloc((nn + 1) * sizeof(uint32_t));
        net->move_node[r] = xmalloc((nn + 1) * sizeof(uint32_t));
        net->goals[r] = xmalloc((nn + 1) * sizeof(gitem_t));
        net->sees[r] = xmalloc((nn + 1) * sizeof(gitem_t));
    }
    for (uint32_t n = 0; n < nn; n++) {
        term_t t = net->atom[n];
        sym_t s = term_sym(ts, t);
        uint32_t ar = term_arity(ts, t);
        if (net->kind[n] == GNODE_FLUENT) {
            uint32_t f = net->n_fluents++;
            net->input[n] = f;
            net->fluent_term[f] = term_arg(ts, t, 0);
            net->fluent_node[f] = n;
            term_t nx = term_find(ts, SYM_NEXT, term_args(ts, t), 1);
            uint32_t a = nx == TERM_NONE ? GNET_NONE : atom_find(G, nx);
            net->next_node[f] = a == GNET_NONE ? GNET_NONE : B->node_of[a];
            continue;
        }
        if (s == SYM_TERMINAL && ar == 0) net->terminal = n;
        if (ar != 2 || (s != SYM_LEGAL && s != SYM_GOAL && s != SYM_SEES)) continue;
        int role = game_role_index(g, term_arg(ts, t, 0));
        if (role < 0) continue;
        term_t x = term_arg(ts, t, 1);
        if (s == SYM_LEGAL) {
            uint32_t k = net->n_moves[role]++;
            net->move_term[role][k] = x;
            net->legal_node[role][k] = n;
            term_t d = term_find(ts, SYM_DOES, term_args(ts, t), 2);
            uint32_t a = d == TERM_NONE ? GNET_NONE : atom_find(G, d);
            net->move_node[role][k] = a == GNET_NONE ? GNET_NONE : B->node_of[a];
            if (a != GNET_NONE) net->input[B->node_of[a]] = k;
        } else if (s == SYM_GOAL) {
            net->goals[role][net->n_goals[role]++] = (gitem_t){n, x, term_number(ts, x)};
        } else {
            net->sees[role][net->n_sees[role]++] = (gitem_t){n, x, 0};
        }
    }
    /* initial fluents */
    net->init = xmalloc((net->n_fluents + 1) * sizeof *net->init);
    uint32_t pred_init = game_pred(g, SYM_INIT, 1);
    for (size_t i = 0; i < G->n_atoms && pred_init != GNET_NONE; i++) {
        if (G->atoms[i].pred != pred_init) continue;
        term_t t = term_find(ts, SYM_TRUE, term_args(ts, G->atoms[i].term), 1);
        net->init[net->n_init++] = net->input[B->node_of[atom_find(G, t)]];
    }
}

static uint32_t remap(const uint32_t *perm, uint32_t n) {
    return n == GNET_NONE ? GNET_NONE : perm[n];
}

/* The numbering of ground.h: fluent inputs, their next nodes (placeholders where there is
 * none), legal nodes role by role, then the rest. */
static void renumber(gnet_t *net) {
    uint32_t nn = net->n_nodes, nf = net->n_fluents, nr = net->n_roles;
    uint32_t total = nn + nf; /* room for the placeholders */
    uint32_t *perm = xmalloc((nn + 1) * sizeof *perm);
    for (uint32_t n = 0; n < nn; n++)
        perm[n] = GNET_NONE;
    uint32_t next = 0;
    for (uint32_t f = 0; f < nf; f++)
        perm[net->fluent_node[f]] = next++;
    for (uint32_t f = 0; f < nf; f++, next++)
        if (net->next_node[f] != GNET_NONE) perm[net->next_node[f]] = next;
    net->legal_first = xcalloc(nr + 1, sizeof *net->legal_first);
    for (uint32_t r = 0; r < nr; r++) {
        net->legal_first[r] = next;
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            perm[net->legal_node[r][k]] = next++;
    }
    for (uint32_t n = 0; n < nn; n++)
        if (perm[n] == GNET_NONE) perm[n] = next++;
    total = next;
    uint8_t *kind = xmalloc(total + 1);
    term_t *atom = xmalloc((total + 1) * sizeof *atom);
    uint32_t *input = xmalloc((total + 1) * sizeof *input);
    for (uint32_t n = 0; n < total; n++)
        kind[n] = GNODE_FALSE, atom[n] = TERM_NONE, input[n] = GNET_NONE;
    for (uint32_t n = 0; n < nn; n++)
        kind[perm[n]] = net->kind[n], atom[perm[n]] = net->atom[n], input[perm[n]] = net->input[n];
    free(net->kind), free(net->atom), free(net->input);
    net->kind = kind, net->atom = atom, net->input = input;
    net->n_nodes = total;
    for (uint32_t i = 0; i < net->n_order; i++)
        net->order[i] = perm[net->order[i]];
    for (uint32_t l = 0; l < net->n_lits; l++)
        net->lits[l] = perm[net->lits[l] >> 1] << 1 | (net->lits[l] & 1);
    for (uint32_t f = 0; f < nf; f++)
        net->fluent_node[f] = f, net->next_node[f] = nf + f;
    for (uint32_t r = 0; r < nr; r++) {
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            net->legal_node[r][k] = net->legal_first[r] + k;
            net->move_node[r][k] = remap(perm, net->move_node[r][k]);
        }
        for (uint32_t k = 0; k < net->n_goals[r]; k++)
            net->goals[r][k].node = perm[net->goals[r][k].node];
        for (uint32_t k = 0; k < net->n_sees[r]; k++)
            net->sees[r][k].node = perm[net->sees[r][k].node];
    }
    net->terminal = remap(perm, net->terminal);
    free(perm);
}

gnet_t *gnet_new(game_t *g, const ground_opts_t *opts, char *why, size_t n) {
    double t0 = now_seconds();
    grounder_t G;
    grounder_init(&G, g, opts, why, n);
    if (G.pred_true == GNET_NONE) fail(&G, "the rules never mention true");
    if (!G.failed) fixpoint(&G);
    if (G.failed) {
        grounder_fini(&G);
        return NULL;
    }
    gnet_t *net = xcalloc(1, sizeof *net);
    builder_t B = {.G = &G, .net = net};
    make_nodes(&B);
    group_rules(&B);
    layout(&B);
    interface(&B);
    renumber(net);
    free(B.node_of), free(B.head_start), free(B.head_rules);
    grounder_fini(&G);
    net->seconds = now_seconds() - t0;
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
    free(net->blocks), free(net->legal_first);
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
