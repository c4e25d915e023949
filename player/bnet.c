/* Grounding a game into a network: see bnet.h. */
#include "bnet.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t *ids;
    size_t n, cap;
} idlist_t;

typedef struct {
    uint32_t head, start, n;
} raw_body_t;

struct bnet {
    game_t *g;
    /* atoms, final numbering */
    term_t *atom;
    uint8_t *kind;
    int8_t *cval;
    uint32_t n;
    uint32_t *tab; /* term -> id + 1, open addressing */
    size_t tab_cap;
    /* bodies: per atom a range of body_of */
    bnet_body_t *bodies;
    uint32_t *body_start, *body_count;
    bnet_lit_t *lits;
    uint32_t n_bodies;
    idlist_t fluents, *moves, *sees;
    uint32_t terminal;
};

/* ---- grounding state ---- */
typedef struct {
    game_t *g;
    term_t *atom;
    uint32_t *pred;
    size_t n, cap;
    uint32_t *tab;
    size_t tab_cap;
    idlist_t *by_pred; /* atoms of each predicate */
    uint32_t max_atoms;
    bool overflow;
    uint32_t p_next, p_legal, p_init;
    /* instantiation output */
    raw_body_t *raw;
    size_t n_raw, cap_raw;
    bnet_lit_t *lits;
    size_t n_lits, cap_lits;
} grounder_t;

static void idlist_push(idlist_t *l, uint32_t v) {
    GROW(l->ids, l->cap, l->n + 1);
    l->ids[l->n++] = v;
}

static uint32_t table_find(const uint32_t *tab, size_t cap, term_t t) {
    if (!cap) return BNET_NONE;
    size_t i = hash_mix(0, t) & (cap - 1);
    while (tab[2 * i]) {
        if (tab[2 * i] == t) return tab[2 * i + 1];
        i = (i + 1) & (cap - 1);
    }
    return BNET_NONE;
}

static void table_put(uint32_t **tab, size_t *cap, size_t count, term_t t, uint32_t id) {
    if (2 * (count + 1) > *cap) {
        size_t old = *cap, ncap = old ? old * 2 : 1024;
        uint32_t *nt = xcalloc(2 * ncap, sizeof *nt);
        for (size_t i = 0; i < old; i++)
            if ((*tab)[2 * i]) {
                size_t j = hash_mix(0, (*tab)[2 * i]) & (ncap - 1);
                while (nt[2 * j])
                    j = (j + 1) & (ncap - 1);
                nt[2 * j] = (*tab)[2 * i];
                nt[2 * j + 1] = (*tab)[2 * i + 1];
            }
        free(*tab);
        *tab = nt;
        *cap = ncap;
    }
    size_t i = hash_mix(0, t) & (*cap - 1);
    while ((*tab)[2 * i])
        i = (i + 1) & (*cap - 1);
    (*tab)[2 * i] = t;
    (*tab)[2 * i + 1] = id;
}

static term_t wrap(game_t *g, sym_t kw, term_t a, term_t b) {
    term_t args[2] = {a, b};
    return term_fun(g->ts, kw, args, b ? 2 : 1);
}

/* Adds a ground atom (and what it implies: next -> true, legal -> does, init -> true);
 * true when it is new. */
static bool gr_add(grounder_t *gr, term_t t) {
    if (table_find(gr->tab, gr->tab_cap, t) != BNET_NONE) return false;
    if (gr->max_atoms && gr->n >= gr->max_atoms) {
        gr->overflow = true;
        return false;
    }
    uint32_t p = game_pred_of(gr->g, t);
    GROW(gr->atom, gr->cap, gr->n + 1);
    gr->pred = xrealloc(gr->pred, gr->cap * sizeof *gr->pred);
    uint32_t id = (uint32_t)gr->n++;
    gr->atom[id] = t;
    gr->pred[id] = p;
    table_put(&gr->tab, &gr->tab_cap, id, t, id);
    if (p != UINT32_MAX) idlist_push(&gr->by_pred[p], id);
    const term_store_t *ts = gr->g->ts;
    if (p == gr->p_next || p == gr->p_init)
        gr_add(gr, wrap(gr->g, SYM_TRUE, term_arg(ts, t, 0), 0));
    if (p == gr->p_legal) gr_add(gr, wrap(gr->g, SYM_DOES, term_arg(ts, t, 0), term_arg(ts, t, 1)));
    return true;
}

/* Matches pattern against a ground term, binding variables in map (undone from trail). */
static bool match(const term_store_t *ts, term_t pat, term_t gnd, term_t *map, uint32_t *trail,
                  uint32_t *nt) {
    if (term_is_ground(ts, pat)) return pat == gnd;
    if (term_is_var(ts, pat)) {
        uint32_t v = term_sym(ts, pat);
        if (map[v]) return map[v] == gnd;
        map[v] = gnd;
        trail[(*nt)++] = v;
        return true;
    }
    if (term_kind(ts, gnd) != TERM_FUN || term_sym(ts, pat) != term_sym(ts, gnd) ||
        term_arity(ts, pat) != term_arity(ts, gnd))
        return false;
    for (uint32_t i = 0; i < term_arity(ts, pat); i++)
        if (!match(ts, term_arg(ts, pat, i), term_arg(ts, gnd, i), map, trail, nt)) return false;
    return true;
}

typedef struct {
    const rule_t *r;
    uint32_t *pos; /* indices of positive literals */
    uint32_t n_pos;
    term_t *map;
    uint32_t *matched; /* atom id per positive literal */
    bool instantiate;
    bool changed;
} join_t;

static bool distinct_ok(grounder_t *gr, const join_t *j) {
    for (uint32_t i = 0; i < j->r->n_body; i++) {
        const lit_t *l = &j->r->body[i];
        if (l->kind != LIT_DISTINCT) continue;
        term_t a = term_subst(gr->g->ts, term_arg(gr->g->ts, l->atom, 0), j->map);
        term_t b = term_subst(gr->g->ts, term_arg(gr->g->ts, l->atom, 1), j->map);
        if (a == b) return false;
    }
    return true;
}

static void push_lit(grounder_t *gr, bnet_lit_t l) {
    GROW(gr->lits, gr->cap_lits, gr->n_lits + 1);
    gr->lits[gr->n_lits++] = l;
}

/* One binding of the positive literals: add the head, or record the ground rule. */
static void emit(grounder_t *gr, join_t *j) {
    if (!distinct_ok(gr, j)) return;
    term_t head = term_subst(gr->g->ts, j->r->head, j->map);
    if (!j->instantiate) {
        if (gr_add(gr, head)) j->changed = true;
        return;
    }
    uint32_t h = table_find(gr->tab, gr->tab_cap, head);
    if (h == BNET_NONE) return; /* cannot happen after the fixed point; be safe */
    uint32_t start = (uint32_t)gr->n_lits, k = 0;
    for (uint32_t i = 0; i < j->r->n_body; i++) {
        const lit_t *l = &j->r->body[i];
        if (l->kind == LIT_POS) {
            push_lit(gr, j->matched[k++] * 2);
        } else if (l->kind == LIT_NEG) {
            term_t t = term_find_subst(gr->g->ts, l->atom, j->map);
            uint32_t id = t ? table_find(gr->tab, gr->tab_cap, t) : BNET_NONE;
            if (id != BNET_NONE) push_lit(gr, id * 2 + 1);
        }
    }
    GROW(gr->raw, gr->cap_raw, gr->n_raw + 1);
    gr->raw[gr->n_raw++] = (raw_body_t){h, start, (uint32_t)gr->n_lits - start};
}

static void join(grounder_t *gr, join_t *j, uint32_t k) {
    if (gr->overflow) return;
    if (k == j->n_pos) {
        emit(gr, j);
        return;
    }
    const term_store_t *ts = gr->g->ts;
    term_t pat = j->r->body[j->pos[k]].atom;
    uint32_t p = game_pred_of(gr->g, pat);
    if (p == UINT32_MAX) return;
    uint32_t trail[64], nt;
    for (size_t i = 0; i < gr->by_pred[p].n; i++) {
        uint32_t id = gr->by_pred[p].ids[i];
        nt = 0;
        if (match(ts, pat, gr->atom[id], j->map, trail, &nt)) {
            j->matched[k] = id;
            join(gr, j, k + 1);
        }
        for (uint32_t t = 0; t < nt; t++)
            j->map[trail[t]] = TERM_NONE;
    }
}

/* Applies every rule once; true when an atom was added. */
static bool apply_rules(grounder_t *gr, bool instantiate) {
    game_t *g = gr->g;
    bool changed = false;
    for (size_t o = 0; o < g->n_rules; o++) {
        const rule_t *r = &g->rules[g->rule_order ? g->rule_order[o] : o];
        uint32_t pos[r->n_body + 1], matched[r->n_body + 1];
        term_t map[r->n_vars + 1];
        memset(map, 0, sizeof map);
        join_t j = {.r = r, .pos = pos, .map = map, .matched = matched, .instantiate = instantiate};
        for (uint32_t i = 0; i < r->n_body; i++)
            if (r->body[i].kind == LIT_POS) pos[j.n_pos++] = i;
        join(gr, &j, 0);
        changed |= j.changed;
    }
    return changed;
}

/* ---- the final network ---- */

static bnet_kind_t atom_kind(const term_store_t *ts, term_t t) {
    if (term_kind(ts, t) != TERM_FUN) return BNET_DERIVED;
    if (term_sym(ts, t) == SYM_TRUE && term_arity(ts, t) == 1) return BNET_FLUENT;
    if (term_sym(ts, t) == SYM_DOES && term_arity(ts, t) == 2) return BNET_DOES;
    return BNET_DERIVED;
}

static uint32_t order_key(const game_t *g, const grounder_t *gr, uint32_t id) {
    uint32_t p = gr->pred[id];
    if (atom_kind(g->ts, gr->atom[id]) != BNET_DERIVED || p == UINT32_MAX) return 0;
    return 1 + g->preds[p].scc;
}

/* (key << 32 | id) values: atoms sorted by key, then id (no global state: players
 * ground games in several threads). */
static int by_key(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_head(const void *a, const void *b) {
    const raw_body_t *x = a, *y = b;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int lit_value(const bnet_t *n, bnet_lit_t l) {
    int v = n->cval[l / 2];
    return v < 0 ? -1 : (l & 1) ? !v : v;
}

/* Renumbers atoms (dependencies first), folds constants, keeps the bodies that can hold. */
static void build(bnet_t *n, grounder_t *gr) {
    uint64_t *keyed = xmalloc((gr->n + 1) * sizeof *keyed);
    uint32_t *order = xmalloc((gr->n + 1) * sizeof *order),
             *newid = xmalloc((gr->n + 1) * sizeof *newid);
    for (uint32_t i = 0; i < gr->n; i++)
        keyed[i] = (uint64_t)order_key(gr->g, gr, i) << 32 | i;
    qsort(keyed, gr->n, sizeof *keyed, by_key);
    for (uint32_t i = 0; i < gr->n; i++)
        order[i] = (uint32_t)keyed[i];
    free(keyed);
    n->n = (uint32_t)gr->n;
    n->atom = xmalloc((n->n + 1) * sizeof *n->atom);
    n->kind = xmalloc(n->n + 1);
    n->cval = xmalloc(n->n + 1);
    for (uint32_t i = 0; i < n->n; i++) {
        uint32_t o = order[i];
        newid[o] = i;
        n->atom[i] = gr->atom[o];
        n->kind[i] = atom_kind(gr->g->ts, gr->atom[o]);
        n->cval[i] = n->kind[i] == BNET_DERIVED ? 0 : -1;
        table_put(&n->tab, &n->tab_cap, i, n->atom[i], i);
    }
    for (size_t b = 0; b < gr->n_raw; b++) {
        gr->raw[b].head = newid[gr->raw[b].head];
        for (uint32_t k = 0; k < gr->raw[b].n; k++) {
            bnet_lit_t *l = &gr->lits[gr->raw[b].start + k];
            *l = newid[*l / 2] * 2 + (*l & 1);
        }
    }
    qsort(gr->raw, gr->n_raw, sizeof *gr->raw, by_head);
    n->body_start = xcalloc(n->n + 1, sizeof *n->body_start);
    n->body_count = xcalloc(n->n + 1, sizeof *n->body_count);
    n->bodies = xmalloc((gr->n_raw + 1) * sizeof *n->bodies);
    n->lits = xmalloc((gr->n_lits + 1) * sizeof *n->lits);
    size_t nl = 0, b = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        n->body_start[i] = n->n_bodies;
        for (; b < gr->n_raw && gr->raw[b].head == i; b++) {
            if (n->cval[i] == 1) continue;
            size_t start = nl;
            bool dead = false;
            for (uint32_t k = 0; k < gr->raw[b].n && !dead; k++) {
                bnet_lit_t l = gr->lits[gr->raw[b].start + k];
                int v = lit_value(n, l);
                if (v == 0) dead = true;
                if (v < 0) n->lits[nl++] = l;
            }
            if (dead) {
                nl = start;
                continue;
            }
            if (nl == start) { /* every literal true: a constant */
                n->cval[i] = 1;
                n->body_count[i] = 0;
                n->n_bodies = n->body_start[i];
                continue;
            }
            n->bodies[n->n_bodies++] = (bnet_body_t){n->lits + start, (uint32_t)(nl - start)};
            n->body_count[i]++;
        }
        if (n->kind[i] == BNET_DERIVED && n->cval[i] == 0 && n->body_count[i]) n->cval[i] = -1;
    }
    free(order);
    free(newid);
}

static void index_atoms(bnet_t *n) {
    game_t *g = n->g;
    const term_store_t *ts = g->ts;
    n->moves = xcalloc(g->n_roles, sizeof *n->moves);
    n->sees = xcalloc(g->n_roles, sizeof *n->sees);
    n->terminal = BNET_NONE;
    for (uint32_t i = 0; i < n->n; i++) {
        term_t t = n->atom[i];
        if (n->kind[i] == BNET_FLUENT) idlist_push(&n->fluents, i);
        int r = -1;
        if (term_kind(ts, t) == TERM_FUN && term_arity(ts, t) == 2 &&
            (term_sym(ts, t) == SYM_DOES || term_sym(ts, t) == SYM_SEES))
            r = game_role_index(g, term_arg(ts, t, 0));
        if (r >= 0 && n->kind[i] == BNET_DOES) idlist_push(&n->moves[r], i);
        if (r >= 0 && term_sym(ts, t) == SYM_SEES) idlist_push(&n->sees[r], i);
        if (term_kind(ts, t) == TERM_SYM && term_sym(ts, t) == SYM_TERMINAL) n->terminal = i;
    }
}

bnet_t *bnet_new(game_t *g, uint32_t max_atoms, strbuf_t *err) {
    for (size_t p = 0; p < g->n_preds; p++)
        if (g->preds[p].recursive) {
            sb_printf(err, "the rules are recursive (%s/%u): not grounded",
                      term_sym_name(g->ts, g->preds[p].sym), g->preds[p].arity);
            return NULL;
        }
    grounder_t gr = {.g = g, .max_atoms = max_atoms};
    gr.by_pred = xcalloc(g->n_preds + 1, sizeof *gr.by_pred);
    gr.p_next = game_pred(g, SYM_NEXT, 1);
    gr.p_legal = game_pred(g, SYM_LEGAL, 2);
    gr.p_init = game_pred(g, SYM_INIT, 1);
    while (apply_rules(&gr, false) && !gr.overflow) {
    }
    bnet_t *n = NULL;
    if (gr.overflow) {
        sb_printf(err, "the game grounds to more than %u atoms", max_atoms);
    } else {
        apply_rules(&gr, true);
        n = xcalloc(1, sizeof *n);
        n->g = g;
        build(n, &gr);
        index_atoms(n);
    }
    for (size_t p = 0; p < g->n_preds; p++)
        free(gr.by_pred[p].ids);
    free(gr.by_pred);
    free(gr.atom);
    free(gr.pred);
    free(gr.tab);
    free(gr.raw);
    free(gr.lits);
    return n;
}

void bnet_free(bnet_t *n) {
    if (!n) return;
    for (uint32_t r = 0; r < n->g->n_roles; r++) {
        free(n->moves[r].ids);
        free(n->sees[r].ids);
    }
    free(n->moves);
    free(n->sees);
    free(n->fluents.ids);
    free(n->atom);
    free(n->kind);
    free(n->cval);
    free(n->tab);
    free(n->bodies);
    free(n->body_start);
    free(n->body_count);
    free(n->lits);
    free(n);
}

const game_t *bnet_game(const bnet_t *n) {
    return n->g;
}
uint32_t bnet_count(const bnet_t *n) {
    return n->n;
}
term_t bnet_atom(const bnet_t *n, uint32_t id) {
    return n->atom[id];
}
bnet_kind_t bnet_kind(const bnet_t *n, uint32_t id) {
    return (bnet_kind_t)n->kind[id];
}
uint32_t bnet_find(const bnet_t *n, term_t atom) {
    return atom ? table_find(n->tab, n->tab_cap, atom) : BNET_NONE;
}
int bnet_const(const bnet_t *n, uint32_t id) {
    return n->cval[id];
}
uint32_t bnet_bodies(const bnet_t *n, uint32_t id, const bnet_body_t **out) {
    *out = n->bodies + n->body_start[id];
    return n->body_count[id];
}
uint32_t bnet_body_total(const bnet_t *n) {
    return n->n_bodies;
}
uint32_t bnet_fluents(const bnet_t *n, const uint32_t **ids) {
    *ids = n->fluents.ids;
    return (uint32_t)n->fluents.n;
}
term_t bnet_fluent_term(const bnet_t *n, uint32_t id) {
    return term_arg(n->g->ts, n->atom[id], 0);
}
uint32_t bnet_next_of(const bnet_t *n, uint32_t fluent_id) {
    term_t f = bnet_fluent_term(n, fluent_id);
    return bnet_find(n, term_find(n->g->ts, SYM_NEXT, &f, 1));
}
bool bnet_initial(const bnet_t *n, uint32_t fluent_id) {
    term_t f = bnet_fluent_term(n, fluent_id);
    uint32_t id = bnet_find(n, term_find(n->g->ts, SYM_INIT, &f, 1));
    return id != BNET_NONE && n->cval[id] == 1;
}
uint32_t bnet_moves(const bnet_t *n, uint32_t r, const uint32_t **ids) {
    *ids = n->moves[r].ids;
    return (uint32_t)n->moves[r].n;
}
uint32_t bnet_legal_of(const bnet_t *n, uint32_t does_id) {
    const term_store_t *ts = n->g->ts;
    return bnet_find(n, term_find(ts, SYM_LEGAL, term_args(ts, n->atom[does_id]), 2));
}
term_t bnet_move_term(const bnet_t *n, uint32_t does_id) {
    return term_arg(n->g->ts, n->atom[does_id], 1);
}
uint32_t bnet_sees(const bnet_t *n, uint32_t r, const uint32_t **ids) {
    *ids = n->sees[r].ids;
    return (uint32_t)n->sees[r].n;
}
uint32_t bnet_terminal(const bnet_t *n) {
    return n->terminal;
}
