/* The grounder's rule program: see gprog.h. */
#include "engine/gprog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/keyset.h"
#include "base/scc.h"
#include "engine/gany.h"

uint32_t gprog_pred(gprog_t *p, sym_t sym, uint32_t arity, bool make) {
    uint64_t key = keyset_pair(sym, arity);
    if (!make) return keyset_find(&p->pred_keys, key);
    uint32_t id = keyset_add(&p->pred_keys, key);
    if (id < p->n_preds) return id;
    GROW(p->preds, p->cap_preds, p->n_preds + 1);
    p->n_preds++;
    p->preds[id] = (gp_pred_t){.sym = sym, .arity = arity, .scc = UINT32_MAX};
    return id;
}

uint32_t gprog_pred_of(const gprog_t *p, term_t atom) {
    const term_store_t *ts = p->ts;
    return gprog_pred((gprog_t *)p, term_sym(ts, atom), term_arity(ts, atom), false);
}

uint32_t gprog_aux(gprog_t *p, uint32_t arity, bool is_static) {
    char name[48];
    sym_t s;
    do { /* a name no game can write: KIF symbols have no spaces */
        int n = snprintf(name, sizeof name, "aux %u", p->n_aux++);
        s = term_intern(p->ts, name, (size_t)n);
    } while (gprog_pred(p, s, arity, false) != UINT32_MAX);
    uint32_t id = gprog_pred(p, s, arity, true);
    p->preds[id].is_static = is_static;
    p->preds[id].relevant = true;
    return id;
}

uint32_t gprog_add(gprog_t *p, term_t head, const gp_lit_t *body, uint32_t n_body, uint32_t n_vars,
                   bool transfer) {
    GROW(p->rules, p->cap_rules, p->n_rules + 1);
    uint32_t id = p->n_rules++;
    gp_rule_t *r = &p->rules[id];
    r->head = head;
    r->pred = gprog_pred_of(p, head);
    r->n_body = n_body;
    r->n_vars = n_vars;
    r->transfer = transfer;
    r->body = xmalloc((n_body + 1) * sizeof *r->body);
    for (uint32_t i = 0; i < n_body; i++)
        r->body[i] = body[i];
    gp_pred_t *pr = &p->preds[r->pred];
    GROW(pr->rules, pr->cap_rules, pr->n_rules + 1);
    pr->rules[pr->n_rules++] = id;
    return id;
}

void gprog_mark_vars(const term_store_t *ts, term_t t, bool *on) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        on[term_sym(ts, t)] = true;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        gprog_mark_vars(ts, term_arg(ts, t, i), on);
}

void gprog_list_vars(const term_store_t *ts, term_t t, uint32_t *out, uint32_t *n, bool *seen) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        uint32_t v = term_sym(ts, t);
        if (!seen[v]) seen[v] = true, out[(*n)++] = v;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        gprog_list_vars(ts, term_arg(ts, t, i), out, n, seen);
}

uint32_t gprog_unbound(const term_store_t *ts, term_t t, const bool *bound, const bool *of) {
    if (term_is_ground(ts, t)) return 0;
    if (term_is_var(ts, t)) {
        uint32_t v = term_sym(ts, t);
        return !bound[v] && (!of || of[v]);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        n += gprog_unbound(ts, term_arg(ts, t, i), bound, of);
    return n;
}

bool gprog_is_interface(const gprog_t *p, uint32_t pred) {
    sym_t s = p->preds[pred].sym;
    return s == SYM_LEGAL || s == SYM_NEXT || s == SYM_GOAL || s == SYM_TERMINAL || s == SYM_SEES ||
           s == SYM_INIT;
}

/* What the interface reads, and everything that feeds it. The state is part of the
 * interface too: where no rule reads a fluent, true must still be made from init and next
 * (else the initial state of such a game would have none of its fluents). */
static void mark_relevant(gprog_t *p) {
    for (uint32_t k = 0; k < p->n_preds; k++)
        p->preds[k].relevant = gprog_is_interface(p, k) || k == p->p_true;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < p->n_rules; i++) {
            const gp_rule_t *r = &p->rules[i];
            if (!p->preds[r->pred].relevant) continue;
            for (uint32_t j = 0; j < r->n_body; j++)
                if (r->body[j].kind != GLIT_DISTINCT && !p->preds[r->body[j].pred].relevant)
                    p->preds[r->body[j].pred].relevant = changed = true;
        }
    }
}

static void copy_rules(gprog_t *p) {
    game_t *g = p->g;
    for (uint32_t k = 0; k < g->n_preds; k++) {
        uint32_t id = gprog_pred(p, g->preds[k].sym, g->preds[k].arity, true);
        p->preds[id].is_static = g->preds[k].layer == LAYER_STATIC;
    }
    gp_lit_t *body = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < g->n_rules; i++) {
        const rule_t *r = &g->rules[i];
        GROW(body, cap, r->n_body + 1);
        for (uint32_t j = 0; j < r->n_body; j++) {
            const lit_t *l = &r->body[j];
            body[j].kind = l->kind == LIT_POS   ? GLIT_POS
                           : l->kind == LIT_NEG ? GLIT_NEG
                                                : GLIT_DISTINCT;
            body[j].atom = l->atom;
            body[j].pred = l->kind == LIT_DISTINCT ? UINT32_MAX : gprog_pred_of(p, l->atom);
        }
        gprog_add(p, r->head, body, r->n_body, r->n_vars, false);
    }
    free(body);
}

/* true <= init, true <= next, does <= legal */
static void add_transfers(gprog_t *p) {
    term_store_t *ts = p->ts;
    term_t v[2] = {term_var(ts, 0), term_var(ts, 1)};
    p->p_true = gprog_pred(p, SYM_TRUE, 1, false);
    p->p_does = gprog_pred(p, SYM_DOES, 2, false);
    p->p_next = gprog_pred(p, SYM_NEXT, 1, false);
    p->p_legal = gprog_pred(p, SYM_LEGAL, 2, false);
    p->p_init = gprog_pred(p, SYM_INIT, 1, false);
    if (p->p_true != UINT32_MAX) {
        term_t head = term_fun(ts, SYM_TRUE, v, 1);
        uint32_t from[2] = {p->p_init, p->p_next};
        sym_t sym[2] = {SYM_INIT, SYM_NEXT};
        for (int k = 0; k < 2; k++) {
            if (from[k] == UINT32_MAX) continue;
            gp_lit_t l = {GLIT_POS, from[k], term_fun(ts, sym[k], v, 1)};
            gprog_add(p, head, &l, 1, 1, true);
        }
    }
    if (p->p_does != UINT32_MAX && p->p_legal != UINT32_MAX) {
        gp_lit_t l = {GLIT_POS, p->p_legal, term_fun(ts, SYM_LEGAL, v, 2)};
        gprog_add(p, term_fun(ts, SYM_DOES, v, 2), &l, 1, 2, true);
    }
}

/* ---- fluents that never change ---- */

/* The fluent key of a state term: its symbol and arity (a constant: arity 0). */
static uint64_t fluent_key(const term_store_t *ts, term_t f) {
    return keyset_pair(term_sym(ts, f), term_kind(ts, f) == TERM_FUN ? term_arity(ts, f) : 0);
}

/* Whether rule r is the plain frame rule (next F) <= (true F). */
static bool is_frame_rule(const gprog_t *p, const gp_rule_t *r) {
    const term_store_t *ts = p->ts;
    return r->n_body == 1 && r->body[0].kind == GLIT_POS && r->body[0].pred == p->p_true &&
           term_arg(ts, r->body[0].atom, 0) == term_arg(ts, r->head, 0);
}

/* Fluents whose only next rules are plain frame rules hold, in every reachable state,
 * exactly where the initial state has them (walls of a maze, the cells of a board): the
 * rules read them as (init F), a static relation, so that what depends only on them is
 * computed once, negation included, instead of being reached under relaxed semantics.
 * Returns how many literals were rewritten. */
static uint32_t fold_constant_fluents(gprog_t *p) {
    uint32_t p_true = gprog_pred(p, SYM_TRUE, 1, false), p_next = gprog_pred(p, SYM_NEXT, 1, false);
    if (p_true == UINT32_MAX || p_next == UINT32_MAX) return 0;
    p->p_true = p_true;
    const term_store_t *ts = p->ts;
    keyset_t changing, framed; /* keys some next rule changes; keys of frame rules */
    keyset_init(&changing), keyset_init(&framed);
    const gp_pred_t *next = &p->preds[p_next];
    for (uint32_t k = 0; k < next->n_rules; k++) {
        const gp_rule_t *r = &p->rules[next->rules[k]];
        term_t f = term_arg(ts, r->head, 0);
        if (term_is_var(ts, f)) { /* (next ?x): any fluent may change */
            keyset_fini(&changing), keyset_fini(&framed);
            return 0;
        }
        keyset_add(is_frame_rule(p, r) ? &framed : &changing, fluent_key(ts, f));
    }
    uint32_t p_init = gprog_pred(p, SYM_INIT, 1, true), n = 0;
    for (uint32_t i = 0; i < p->n_rules; i++) {
        gp_rule_t *r = &p->rules[i];
        if (r->pred == p_next && is_frame_rule(p, r)) continue;
        for (uint32_t j = 0; j < r->n_body; j++) {
            gp_lit_t *l = &r->body[j];
            if (l->kind == GLIT_DISTINCT || l->pred != p_true) continue;
            term_t f = term_arg(ts, l->atom, 0);
            if (term_is_var(ts, f)) continue;
            uint64_t key = fluent_key(ts, f);
            if (keyset_find(&framed, key) == UINT32_MAX ||
                keyset_find(&changing, key) != UINT32_MAX)
                continue;
            l->pred = p_init;
            l->atom = term_fun(p->ts, SYM_INIT, &f, 1);
            n++;
        }
    }
    keyset_fini(&changing), keyset_fini(&framed);
    return n;
}

/* Static: depends on neither true nor does (again, after the rules changed). */
static void mark_static(gprog_t *p) {
    for (uint32_t k = 0; k < p->n_preds; k++)
        p->preds[k].is_static = p->preds[k].sym != SYM_TRUE && p->preds[k].sym != SYM_DOES;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < p->n_rules; i++) {
            const gp_rule_t *r = &p->rules[i];
            if (!p->preds[r->pred].is_static) continue;
            for (uint32_t j = 0; j < r->n_body; j++)
                if (r->body[j].kind != GLIT_DISTINCT && !p->preds[r->body[j].pred].is_static) {
                    p->preds[r->pred].is_static = false, changed = true;
                    break;
                }
        }
    }
}

/* ---- arguments that do not matter ---- */

/* An argument position of a relation is free when, in every rule of the relation, it holds
 * a variable that occurs nowhere else but in unary static fact tables (its type) and in
 * free positions of the literals it reads, with the same type in every rule: the relation
 * then holds for a value there exactly when it holds for any other value of the type, and is
 * computed without the position (a chain of relations that pass each bit of a counter down,
 * each holding for every combination of bits: 2^n atoms, or one). Readers read the
 * relation without it and the type of what they put there. */

#define MAX_TYPES 64

typedef struct {
    gprog_t *p;
    uint32_t n_types, type_pred[MAX_TYPES];
    keyset_t values[MAX_TYPES];
    int32_t *type_of; /* per predicate: its type id, or -1 */
    uint64_t *free;   /* per predicate: its free positions (candidates: all) */
    uint64_t **type;  /* per predicate and position: the type mask (0: none yet) */
    uint64_t **next_type;
    uint32_t n_preds; /* the predicates before the rewrite */
} freeargs_t;

bool gprog_fact_table(const gprog_t *p, uint32_t q) {
    const gp_pred_t *pr = &p->preds[q];
    if (pr->arity != 1 || !pr->is_static || !pr->n_rules) return false;
    for (uint32_t k = 0; k < pr->n_rules; k++) {
        const gp_rule_t *r = &p->rules[pr->rules[k]];
        if (r->n_body || !term_is_ground(p->ts, r->head)) return false;
    }
    return true;
}

/* Whether ground term t is a value of every type in mask. */
static bool of_type(const freeargs_t *F, uint64_t mask, term_t t) {
    for (uint32_t k = 0; k < F->n_types; k++)
        if (mask >> k & 1 && keyset_find(&F->values[k], t) == UINT32_MAX) return false;
    return true;
}

/* Whether position i of predicate q is free (a predicate of more than 64 arguments has none:
 * its mask could not say, and a shift past 63 is undefined). */
static bool is_free(const freeargs_t *F, uint32_t q, uint32_t i) {
    return i < 64 && (F->free[q] >> i & 1);
}

static uint32_t occurrences(const term_store_t *ts, term_t t, term_t var) {
    if (t == var) return 1;
    if (term_is_ground(ts, t) || term_kind(ts, t) != TERM_FUN) return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        n += occurrences(ts, term_arg(ts, t, i), var);
    return n;
}

/* The type of head variable x in rule r from its body, in *mask (0: not known yet);
 * false when x is read otherwise. */
static bool var_type(const freeargs_t *F, const gp_rule_t *r, term_t x, uint64_t *mask) {
    const term_store_t *ts = F->p->ts;
    *mask = 0;
    for (uint32_t j = 0; j < r->n_body; j++) {
        const gp_lit_t *l = &r->body[j];
        uint32_t n = occurrences(ts, l->atom, x);
        if (!n) continue;
        if (l->kind != GLIT_POS) return false;
        if (F->type_of[l->pred] >= 0) {
            if (term_arg(ts, l->atom, 0) != x) return false; /* nested */
            *mask |= 1ull << F->type_of[l->pred];
            continue;
        }
        for (uint32_t i = 0; i < term_arity(ts, l->atom) && n; i++)
            if (term_arg(ts, l->atom, i) == x) {
                if (!is_free(F, l->pred, i)) return false;
                *mask |= F->type[l->pred][i], n--;
            }
        if (n) return false; /* nested in a term */
    }
    return true;
}

/* What readers put at the free positions of the literals they read: a variable, or a value
 * of the type (else the position is not free). Returns whether a position was dropped. */
static bool check_readers(freeargs_t *F) {
    const gprog_t *p = F->p;
    const term_store_t *ts = p->ts;
    bool dropped = false;
    for (uint32_t r = 0; r < p->n_rules; r++)
        for (uint32_t j = 0; j < p->rules[r].n_body; j++) {
            const gp_lit_t *l = &p->rules[r].body[j];
            if (l->kind == GLIT_DISTINCT || !F->free[l->pred]) continue;
            for (uint32_t i = 0; i < term_arity(ts, l->atom); i++) {
                if (!is_free(F, l->pred, i)) continue;
                term_t a = term_arg(ts, l->atom, i);
                bool ok = term_is_ground(ts, a) ? of_type(F, F->type[l->pred][i], a)
                                                : l->kind == GLIT_POS && term_is_var(ts, a);
                if (!ok) F->free[l->pred] &= ~(1ull << i), dropped = true;
            }
        }
    return dropped;
}

/* One round: each candidate position's type from its rules (disagreeing rules, or a
 * variable read otherwise: not free; final: no type either). Returns whether anything
 * changed. */
static bool free_round(freeargs_t *F, bool final) {
    gprog_t *p = F->p;
    const term_store_t *ts = p->ts;
    bool changed = check_readers(F);
    for (uint32_t q = 0; q < p->n_preds; q++) {
        if (!F->free[q]) continue;
        const gp_pred_t *pr = &p->preds[q];
        for (uint32_t i = 0; i < pr->arity; i++) {
            if (!is_free(F, q, i)) continue;
            uint64_t t = 0, m = 0;
            bool ok = true;
            for (uint32_t k = 0; k < pr->n_rules && ok; k++) {
                const gp_rule_t *r = &p->rules[pr->rules[k]];
                term_t x = term_arg(ts, r->head, i);
                ok = term_is_var(ts, x) && occurrences(ts, r->head, x) == 1 &&
                     var_type(F, r, x, &m) && (!m || !t || m == t);
                if (m) t = m; /* 0: reads only positions of no type yet */
            }
            F->next_type[q][i] = ok ? t : UINT64_MAX;
        }
    }
    for (uint32_t q = 0; q < p->n_preds; q++)
        for (uint32_t i = 0; i < p->preds[q].arity && F->free[q]; i++) {
            if (!is_free(F, q, i)) continue;
            uint64_t t = F->next_type[q][i];
            if (t == UINT64_MAX || (final && !t))
                F->free[q] &= ~(1ull << i), changed = true;
            else if (t != F->type[q][i])
                F->type[q][i] = t, changed = true;
        }
    return changed;
}

static void freeargs_init(freeargs_t *F, gprog_t *p) {
    memset(F, 0, sizeof *F);
    F->p = p;
    uint32_t np = F->n_preds = p->n_preds;
    F->type_of = xmalloc((np + 1) * sizeof *F->type_of);
    F->free = xcalloc(np + 1, sizeof *F->free);
    F->type = xcalloc(np + 1, sizeof *F->type);
    F->next_type = xcalloc(np + 1, sizeof *F->next_type);
    for (uint32_t q = 0; q < np; q++) {
        F->type_of[q] = -1;
        if (F->n_types < MAX_TYPES && gprog_fact_table(p, q)) {
            uint32_t k = F->n_types++;
            F->type_pred[k] = q;
            F->type_of[q] = (int32_t)k;
            keyset_init(&F->values[k]);
            for (uint32_t i = 0; i < p->preds[q].n_rules; i++)
                keyset_add(&F->values[k], term_arg(p->ts, p->rules[p->preds[q].rules[i]].head, 0));
        }
    }
    for (uint32_t q = 0; q < np; q++) {
        const gp_pred_t *pr = &p->preds[q];
        if (!pr->n_rules || !pr->arity || pr->arity > 64 || gprog_is_interface(p, q) ||
            pr->sym == SYM_TRUE || pr->sym == SYM_DOES || F->type_of[q] >= 0)
            continue;
        F->free[q] = pr->arity == 64 ? ~0ull : (1ull << pr->arity) - 1;
        F->type[q] = xcalloc(pr->arity + 1, sizeof **F->type);
        F->next_type[q] = xcalloc(pr->arity + 1, sizeof **F->next_type);
    }
}

static void freeargs_fini(freeargs_t *F) {
    for (uint32_t k = 0; k < F->n_types; k++)
        keyset_fini(&F->values[k]);
    for (uint32_t q = 0; q < F->n_preds; q++)
        if (F->type[q]) free(F->type[q]), free(F->next_type[q]);
    free(F->type_of), free(F->free), free(F->type), free(F->next_type);
}

/* The atom without its free positions, of predicate np; the type literals of the variables
 * it had there appended to body (n counts them). */
static term_t drop_free(freeargs_t *F, uint32_t q, term_t atom, uint32_t np, gp_lit_t *body,
                        uint32_t *n) {
    gprog_t *p = F->p;
    uint32_t ar = p->preds[q].arity, m = 0;
    term_t *args = xmalloc((ar + 1) * sizeof *args);
    for (uint32_t i = 0; i < ar; i++) {
        term_t a = term_arg(p->ts, atom, i);
        if (!is_free(F, q, i)) {
            args[m++] = a;
            continue;
        }
        if (!body || !term_is_var(p->ts, a)) continue;
        for (uint32_t k = 0; k < F->n_types; k++)
            if (F->type[q][i] >> k & 1) {
                uint32_t tp = F->type_pred[k];
                body[(*n)++] = (gp_lit_t){GLIT_POS, tp, term_fun(p->ts, p->preds[tp].sym, &a, 1)};
            }
    }
    term_t t = term_fun(p->ts, p->preds[np].sym, args, m);
    free(args);
    return t;
}

static void rewrite_free(freeargs_t *F) {
    gprog_t *p = F->p;
    uint32_t np0 = p->n_preds, *repl = xmalloc((np0 + 1) * sizeof *repl);
    for (uint32_t q = 0; q < np0; q++) {
        repl[q] = UINT32_MAX;
        if (!F->free[q]) continue;
        uint32_t k = (uint32_t)__builtin_popcountll(F->free[q]);
        repl[q] = gprog_aux(p, p->preds[q].arity - k, p->preds[q].is_static);
    }
    for (uint32_t r = 0; r < p->n_rules; r++) {
        gp_rule_t *rule = &p->rules[r];
        uint32_t extra = 0;
        for (uint32_t j = 0; j < rule->n_body; j++)
            if (rule->body[j].kind == GLIT_POS && repl[rule->body[j].pred] != UINT32_MAX)
                extra += p->preds[rule->body[j].pred].arity * F->n_types;
        gp_lit_t *body = xmalloc((rule->n_body + extra + 1) * sizeof *body);
        uint32_t n = rule->n_body;
        memcpy(body, rule->body, n * sizeof *body);
        for (uint32_t j = 0; j < rule->n_body; j++) {
            uint32_t q = rule->body[j].pred;
            if (rule->body[j].kind == GLIT_DISTINCT || repl[q] == UINT32_MAX) continue;
            body[j].atom = drop_free(F, q, rule->body[j].atom, repl[q], body, &n);
            body[j].pred = repl[q];
        }
        free(rule->body);
        rule->body = body, rule->n_body = n;
        if (rule->pred < np0 && repl[rule->pred] != UINT32_MAX) {
            rule->head = drop_free(F, rule->pred, rule->head, repl[rule->pred], NULL, NULL);
            rule->pred = repl[rule->pred];
        }
    }
    for (uint32_t q = 0; q < np0; q++) { /* the rules move to the new relation */
        if (repl[q] == UINT32_MAX) continue;
        gp_pred_t *to = &p->preds[repl[q]], *from = &p->preds[q];
        free(to->rules);
        to->rules = from->rules, to->n_rules = from->n_rules, to->cap_rules = from->cap_rules;
        from->rules = NULL, from->n_rules = 0, from->cap_rules = 0;
    }
    free(repl);
}

/* Finds the free positions and rewrites the rules without them; returns whether any. */
static bool drop_free_args(gprog_t *p) {
    freeargs_t F;
    freeargs_init(&F, p);
    bool any = false, converged = false;
    for (uint32_t round = 0; round < 256 && !converged; round++)
        converged = !free_round(&F, false) && !free_round(&F, true);
    for (uint32_t q = 0; q < p->n_preds && converged; q++)
        any |= F.free[q] != 0;
    if (any) rewrite_free(&F);
    freeargs_fini(&F);
    return any;
}

gprog_t *gprog_new(game_t *g) {
    gprog_t *p = xcalloc(1, sizeof *p);
    p->g = g;
    p->ts = g->ts;
    copy_rules(p);
    if (fold_constant_fluents(p)) mark_static(p);
    drop_free_args(p);
    p->n_wild = gany_rewrite(p);
    add_transfers(p);
    mark_relevant(p);
    gprog_order(p);
    return p;
}

void gprog_refresh(gprog_t *p) {
    mark_relevant(p);
    gprog_order(p);
}

void gprog_free(gprog_t *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->n_rules; i++)
        free(p->rules[i].body);
    for (uint32_t k = 0; k < p->n_preds; k++)
        free(p->preds[k].rules);
    keyset_fini(&p->pred_keys);
    free(p->rules), free(p->preds), free(p->scc_preds), free(p->scc_start);
    free(p);
}

/* ---- components, dependencies first ---- */

/* The graph of components: a relevant predicate -> the predicates its rules read. */
static void build_edges(const gprog_t *p, uint32_t **start, uint32_t **edges) {
    uint32_t np = p->n_preds, *st = xcalloc(np + 2, sizeof *st), *to = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < p->n_rules; i++) {
            const gp_rule_t *r = &p->rules[i];
            if (!p->preds[r->pred].relevant) continue;
            for (uint32_t j = 0; j < r->n_body; j++) {
                if (r->body[j].kind == GLIT_DISTINCT) continue;
                if (pass == 0)
                    st[r->pred + 2]++;
                else
                    to[st[r->pred + 1]++] = r->body[j].pred;
            }
        }
        if (pass == 0) {
            for (uint32_t k = 0; k < np; k++)
                st[k + 2] += st[k + 1];
            to = xmalloc((st[np + 1] + 1) * sizeof *to);
        }
    }
    *start = st, *edges = to;
}

void gprog_order(gprog_t *p) {
    uint32_t np = p->n_preds, *start, *edges;
    build_edges(p, &start, &edges);
    uint32_t *comp = xmalloc((np + 1) * sizeof *comp);
    bool *roots = xmalloc((np + 1) * sizeof *roots), *cyclic = xmalloc((np + 1) * sizeof *cyclic);
    for (uint32_t k = 0; k < np; k++)
        roots[k] = p->preds[k].relevant;
    p->n_sccs = scc_find(np, start, edges, roots, comp, NULL);
    scc_cyclic(np, start, edges, comp, p->n_sccs, cyclic);
    for (uint32_t k = 0; k < np; k++)
        p->preds[k].scc = comp[k], p->preds[k].recursive = cyclic[k];
    free(p->scc_preds), free(p->scc_start);
    p->scc_start = xcalloc(p->n_sccs + 2, sizeof *p->scc_start);
    p->scc_preds = xmalloc((np + 1) * sizeof *p->scc_preds);
    for (uint32_t k = 0; k < np; k++)
        if (comp[k] != SCC_NONE) p->scc_start[comp[k] + 2]++;
    for (uint32_t c = 0; c < p->n_sccs; c++)
        p->scc_start[c + 2] += p->scc_start[c + 1];
    for (uint32_t k = 0; k < np; k++)
        if (comp[k] != SCC_NONE) p->scc_preds[p->scc_start[comp[k] + 1]++] = k;
    free(comp), free(roots), free(cyclic), free(start), free(edges);
}
