/* The reasoner: on-demand evaluation of GDL rules. See reason.h.
 *
 * Every predicate is a relation: a set of ground tuples (its arguments). State fluents are
 * split by signature into "fluent relations" ((true (cell ?x ?y b)) scans the relation
 * cell/3 of the current state), so that joins see flat tuples and per-argument indexes.
 *
 * Two modes meet here. Recursive predicates and predicates asked for with no argument
 * bound are computed whole, bottom-up (semi-naive inside recursive rule components).
 * A non-recursive predicate that depends on the state and is asked for with some
 * arguments bound is answered top-down for exactly that call, and the answers are
 * memoised per state: chess-like games define relations of six or seven arguments that
 * would be enormous in full but are only ever asked about one square at a time. */
#include "engine/reason.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/keyset.h"
#include "gdl/bind.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { OP_SCAN, OP_TRUE_ANY, OP_NEG, OP_NEG_TRUE_VAR, OP_DISTINCT, OP_EQUAL } op_t;

typedef struct {
    op_t op;
    uint32_t rel;
    uint32_t arity;
    term_t *args; /* argument patterns */
    term_t a, b;  /* distinct/equal operands, or the variable of (true ?x) */
    bool in_scc;  /* on the head's own predicate component */
    /* The literal's still unbound variables occur nowhere after it (nor in the head, for
     * the first flag): one matching tuple gives the same continuations as all of them. */
    bool existential;
    bool existential_if_exists; /* same when the plan runs for an existence-only call */
    bool exists_call_ok;        /* its unbound arguments are distinct plain variables */
} step_t;

typedef struct plan {
    uint32_t mask; /* head argument positions bound on entry */
    uint32_t head_rel;
    uint32_t head_arity;
    term_t *head_args;
    step_t *steps;
    uint32_t n_steps;
    uint32_t n_vars;
    uint64_t tries;    /* tuples tried, for GGP_PROFILE */
    struct plan *next; /* the same rule compiled for other masks */
} plan_t;

typedef struct {
    uint32_t *head; /* hash on the argument's term: chain head, tuple index + 1 */
    size_t cap;
    uint32_t *next; /* per tuple: next tuple index + 1 with the same key */
    size_t next_cap;
    bool built;
} index_t;

typedef struct {
    uint32_t arity;
    layer_t layer;
    bool computed;
    bool computing;
    bool is_fluent; /* a fluent relation, filled from the state */
    bool callable;  /* may be answered per call (derived, dynamic, not recursive) */
    bool call_only; /* static, but too large to compute whole: always answered per call */
    uint32_t pred;  /* predicate id, or UINT32_MAX for fluent relations */
    sym_t sym;      /* fluent signature */
    term_t *data;
    size_t n, cap; /* tuples */
    htab_t set;    /* tuple indices by tuple */
    index_t *idx;  /* one per argument position */
} rel_t;

/* A memoised call: the answers of a predicate with the arguments in mask bound to key. */
typedef struct {
    uint32_t pred, mask;
    bool exists; /* only whether some answer exists is wanted: stops at the first */
    term_t *key;
    rel_t ans;
    bool done;
    bool in_progress;
    bool incomplete;  /* read a call of an enclosing cycle before it was finished */
    bool leads_cycle; /* a later call read this one while it was in progress */
    uint32_t depth;   /* position on the call stack while in progress */
    uint32_t low;     /* lowest stack position of an unfinished call it depends on */
} call_t;

typedef struct {
    call_t **calls; /* stable pointers, reused after a clear */
    uint32_t n, n_alloc;
    size_t cap;
    htab_t table; /* call indices by (pred, mask, exists, key) */
} memo_t;

struct reasoner {
    game_t *g;
    term_store_t *ts;
    rel_t *rels;
    uint32_t n_rels;
    size_t cap_rels;
    plan_t **plans;       /* per rule: its compiled plans, mask 0 first */
    uint32_t **scc_rules; /* per predicate component: its rules, dependencies first */
    uint32_t *scc_n_rules;
    keyset_t fluent_sigs;  /* the (sym, arity) of the fluent relations, */
    uint32_t *fluent_rels; /* and their relation ids */
    size_t cap_fluent_rels;
    memo_t memo[3]; /* per layer */
    /* what the state- and move-dependent relations were computed for */
    state_t cur;
    bool has_state;
    term_t *cur_joint;
    bool has_joint;
    term_t *out;
    size_t out_cap;
    call_t **stack; /* calls in progress, for recursive calls */
    uint32_t depth;
    size_t stack_cap;
    uint64_t call_added; /* tuples added to call answers, to detect a fixpoint */
    size_t budget;       /* while non-zero, a relation growing past it aborts the evaluation */
    bool over;
    size_t max_tuples;    /* no relation grows past it: the reasoner gives up (error) instead */
    char *error;          /* why it gave up, NULL until then: every answer is empty after that */
    uint32_t nest;        /* ensure and call frames open: the recursion's depth */
    uintptr_t stack_base; /* the frame address where the outermost of them was entered */
    size_t stack_budget;  /* bytes of stack the recursion may use below it */
    uint32_t pred_legal, pred_goal, pred_terminal, pred_next, pred_init, pred_sees, pred_does;
    reason_stats_t stats;
};

/* ---------------- relations ---------------- */

static uint32_t tuple_hash(const term_t *t, uint32_t arity) {
    uint32_t h = 0x12345678u;
    for (uint32_t i = 0; i < arity; i++)
        h = hash_mix(h, t[i]);
    return h * 0x9e3779b1u;
}

static void rel_clear(rel_t *rel) {
    htab_clear(&rel->set);
    if (rel->n)
        for (uint32_t j = 0; j < rel->arity; j++)
            if (rel->idx[j].built) memset(rel->idx[j].head, 0, rel->idx[j].cap * sizeof(uint32_t));
    for (uint32_t j = 0; j < rel->arity; j++)
        rel->idx[j].built = false;
    rel->n = 0;
    rel->computed = false;
}

static const term_t *rel_tuple(const rel_t *rel, size_t i) {
    return rel->data + i * rel->arity;
}

typedef struct {
    const rel_t *rel;
    const term_t *t;
} tuple_key_t;

static bool tuple_same(const void *ctx, uint32_t i) {
    const tuple_key_t *k = ctx;
    return memcmp(rel_tuple(k->rel, i), k->t, k->rel->arity * sizeof *k->t) == 0;
}

static uint32_t tuple_hash_of(const void *ctx, uint32_t i) {
    const rel_t *rel = ctx;
    return tuple_hash(rel_tuple(rel, i), rel->arity);
}

static bool rel_contains(const rel_t *rel, const term_t *t) {
    if (rel->n == 0) return false;
    if (rel->arity == 0) return true;
    tuple_key_t key = {rel, t};
    return htab_find(&rel->set, tuple_hash(t, rel->arity), tuple_same, &key) != HTAB_NONE;
}

static void index_add(rel_t *rel, uint32_t j, uint32_t tuple_index);

static void give_up(reasoner_t *r, const rel_t *rel);

/* Adds a tuple; false when it was already there, or when the relation is full (the
 * reasoner then gives up: see give_up). */
static bool rel_add(reasoner_t *r, rel_t *rel, const term_t *t) {
    if (rel_contains(rel, t)) return false;
    if (rel->n >= r->max_tuples) {
        give_up(r, rel);
        return false;
    }
    if (rel->arity == 0) {
        rel->n = 1;
        return true;
    }
    GROW(rel->data, rel->cap, (rel->n + 1) * rel->arity);
    memcpy(rel->data + rel->n * rel->arity, t, rel->arity * sizeof *t);
    uint32_t ti = (uint32_t)rel->n++;
    htab_add(&rel->set, tuple_hash(rel_tuple(rel, ti), rel->arity), ti, tuple_hash_of, rel);
    for (uint32_t j = 0; j < rel->arity; j++)
        if (rel->idx[j].built) index_add(rel, j, ti);
    return true;
}

static void rel_name(const reasoner_t *r, const rel_t *rel, strbuf_t *sb) {
    if (rel->is_fluent)
        sb_printf(sb, "the fluent %s/%u", term_sym_name(r->ts, rel->sym), rel->arity);
    else if (rel->pred >= r->g->n_preds) /* every relation has a name; kept safe anyway */
        sb_printf(sb, "a relation of arity %u", rel->arity);
    else
        sb_printf(sb, "the relation %s/%u", term_sym_name(r->ts, r->g->preds[rel->pred].sym),
                  rel->arity);
}

/* Stops the running evaluation and every answer after it, keeping why (the first reason
 * given: a later one is dropped). */
static void stop_for(reasoner_t *r, strbuf_t *why) {
    r->over = true;
    if (r->error)
        sb_fini(why);
    else
        r->error = why->data;
}

/* stop_for with the reason `before`, the relation's name, then `after`. */
static void stop_naming(reasoner_t *r, const rel_t *rel, const char *before, const char *after) {
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, before);
    rel_name(r, rel, &sb);
    sb_puts(&sb, after);
    stop_for(r, &sb);
}

/* A relation reached the cap: a rule base that does not terminate, or a finite relation
 * too large to hold. Nothing the reasoner would say from here on can be trusted (the
 * relation is incomplete), so it stops the running evaluation as a budget does, keeps the
 * reason, and answers nothing from now on; the caller reads the reason (reason_error). */
static void give_up(reasoner_t *r, const rel_t *rel) {
    char after[200];
    snprintf(after, sizeof after,
             " grew past %zu tuples: the rules do not terminate, or the game is too large to "
             "reason about",
             r->max_tuples);
    stop_naming(r, rel, "", after);
}

/* ---------------- the recursion's stack ----------------
 * Evaluation recurses once per body literal (join_from), per relation a relation needs
 * computed first (ensure) and per top-down call (call): a chain of 100,000 relations, or
 * a successor chain walked top-down, would overflow the thread's stack, and a game text
 * must never end the process. The stack used is measured from the outermost ensure or
 * call (frame addresses, so the arguments' sizes and variable-length arrays count too);
 * past the budget the reasoner gives up as it does at the tuple cap. */
static size_t stack_used(const reasoner_t *r) {
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    return r->stack_base > here ? r->stack_base - here : here - r->stack_base;
}

/* The recursion's stack is spent: gives up as at the tuple cap (give_up). */
static void give_up_deep(reasoner_t *r, const rel_t *rel) {
    char after[200];
    snprintf(after, sizeof after,
             " recursed past the reasoner's %zu KiB of stack: the rules chain too many "
             "relations, calls or literals",
             r->stack_budget >> 10);
    stop_naming(r, rel, "evaluating ", after);
}

/* A rule built a term past TERM_MAX_DEPTH: the rules nest a term deeper every turn, or
 * through a chain of relations. Every walk over terms recurses once per level, so the
 * reasoner gives up as at the tuple cap (give_up) before anything walks it. */
static void give_up_nested(reasoner_t *r, const rel_t *rel) {
    char after[200];
    snprintf(after, sizeof after,
             " would hold a term nested past %u levels: the rules nest terms deeper every turn "
             "or through a chain of relations",
             TERM_MAX_DEPTH);
    stop_naming(r, rel, "", after);
}

/* Opens an ensure or call frame (close it with r->nest--): false when the stack is spent. */
static bool stack_enter(reasoner_t *r, const rel_t *rel) {
    if (r->nest++ == 0) r->stack_base = (uintptr_t)__builtin_frame_address(0);
    if (stack_used(r) <= r->stack_budget) return true;
    give_up_deep(r, rel);
    return false;
}

static void index_add(rel_t *rel, uint32_t j, uint32_t ti) {
    index_t *x = &rel->idx[j];
    GROW(x->next, x->next_cap, ti + 1);
    term_t key = rel_tuple(rel, ti)[j];
    size_t slot = (key * 0x9e3779b1u) & (x->cap - 1);
    x->next[ti] = x->head[slot];
    x->head[slot] = ti + 1;
}

static void index_build(rel_t *rel, uint32_t j) {
    index_t *x = &rel->idx[j];
    size_t want = 16;
    while (want < rel->n * 2 + 16)
        want *= 2;
    if (x->cap < want) {
        free(x->head);
        x->head = xcalloc(want, sizeof *x->head);
        x->cap = want;
    } else {
        memset(x->head, 0, x->cap * sizeof *x->head);
    }
    for (size_t i = 0; i < rel->n; i++)
        index_add(rel, j, (uint32_t)i);
    x->built = true;
}

/* ---------------- compilation ---------------- */

static uint32_t new_rel(reasoner_t *r, uint32_t arity) {
    GROW(r->rels, r->cap_rels, r->n_rels + 1); /* geometric: a game may have 100,000 */
    rel_t *rel = &r->rels[r->n_rels];
    memset(rel, 0, sizeof *rel);
    rel->arity = arity;
    rel->pred = UINT32_MAX;
    rel->idx = xcalloc(arity + 1, sizeof *rel->idx);
    return r->n_rels++;
}

static void rel_fini(rel_t *rel) {
    free(rel->data);
    htab_fini(&rel->set);
    for (uint32_t j = 0; j < rel->arity; j++) {
        free(rel->idx[j].head);
        free(rel->idx[j].next);
    }
    free(rel->idx);
}

static uint32_t fluent_rel(reasoner_t *r, sym_t sym, uint32_t arity, bool create) {
    uint64_t sig = keyset_pair(sym, arity);
    uint32_t k = keyset_find(&r->fluent_sigs, sig);
    if (k != UINT32_MAX || !create) return k == UINT32_MAX ? UINT32_MAX : r->fluent_rels[k];
    uint32_t id = new_rel(r, arity);
    r->rels[id].is_fluent = true;
    r->rels[id].sym = sym;
    r->rels[id].layer = LAYER_STATE;
    k = keyset_add(&r->fluent_sigs, sig);
    GROW(r->fluent_rels, r->cap_fluent_rels, k + 1);
    r->fluent_rels[k] = id;
    return id;
}

static term_t *copy_args(const term_store_t *ts, term_t atom, uint32_t *arity) {
    *arity = term_arity(ts, atom);
    term_t *a = xmalloc((*arity + 1) * sizeof *a);
    for (uint32_t i = 0; i < *arity; i++)
        a[i] = term_arg(ts, atom, i);
    return a;
}

static void vars_of(const term_store_t *ts, term_t t, bool *mark) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        mark[term_sym(ts, t)] = true;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        vars_of(ts, term_arg(ts, t, i), mark);
}

/* Counts occurrences of variables of t not yet bound. */
static uint32_t unbound_vars(const term_store_t *ts, term_t t, const bool *bound) {
    if (term_is_ground(ts, t)) return 0;
    if (term_is_var(ts, t)) return !bound[term_sym(ts, t)];
    uint32_t n = 0;
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        n += unbound_vars(ts, term_arg(ts, t, i), bound);
    return n;
}

static step_t make_step(reasoner_t *r, const lit_t *l, uint32_t head_scc) {
    const term_store_t *ts = r->ts;
    const game_t *g = r->g;
    step_t s = {0};
    term_t atom = l->atom;
    sym_t sym = term_sym(ts, atom);
    if (sym == SYM_DISTINCT && term_arity(ts, atom) == 2 && l->kind != LIT_POS) {
        s.op = l->kind == LIT_DISTINCT ? OP_DISTINCT : OP_EQUAL;
        s.a = term_arg(ts, atom, 0);
        s.b = term_arg(ts, atom, 1);
        return s;
    }
    if (sym == SYM_TRUE && term_arity(ts, atom) == 1) {
        term_t f = term_arg(ts, atom, 0);
        if (term_is_var(ts, f)) {
            s.op = l->kind == LIT_POS ? OP_TRUE_ANY : OP_NEG_TRUE_VAR;
            s.a = f;
            return s;
        }
        s.op = l->kind == LIT_POS ? OP_SCAN : OP_NEG;
        s.rel = fluent_rel(r, term_sym(ts, f), term_arity(ts, f), true);
        s.args = copy_args(ts, f, &s.arity);
        return s;
    }
    s.op = l->kind == LIT_POS ? OP_SCAN : OP_NEG;
    s.rel = game_pred_of(g, atom);
    s.args = copy_args(ts, atom, &s.arity);
    s.in_scc = g->preds[s.rel].scc == head_scc;
    return s;
}

/* Roughly how many tuples a literal yields with the given variables bound. Static
 * relations are computed by now and their sizes are exact; the rest are guesses. */
static double literal_cost(reasoner_t *r, const lit_t *l, const bool *bound) {
    const term_store_t *ts = r->ts;
    term_t atom = l->atom;
    uint32_t pred = game_pred_of(r->g, atom);
    double size = 1000;
    if (term_sym(ts, atom) == SYM_TRUE)
        size = 30;
    else if (pred == r->pred_does)
        size = r->g->n_roles;
    else if (r->rels[pred].computed && r->rels[pred].layer == LAYER_STATIC)
        size = (double)r->rels[pred].n;
    const term_t *args = term_args(ts, atom);
    uint32_t n = term_arity(ts, atom);
    if (term_sym(ts, atom) == SYM_TRUE && n == 1 && !term_is_var(ts, args[0]))
        args = term_args(ts, args[0]), n = term_arity(ts, term_arg(ts, atom, 0));
    bool open = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ub = unbound_vars(ts, args[i], bound);
        if (ub == 0)
            size /= 6;
        else if (!term_is_var(ts, args[i]))
            size /= 2;
        open |= ub != 0;
    }
    /* A recursive call with an open argument may enumerate far more than any estimate
     * (every path of a connection rule, say): bind what the other literals can first. */
    if (open && pred != UINT32_MAX && r->g->preds[pred].recursive &&
        r->rels[pred].layer != LAYER_STATIC)
        size *= 1000;
    return size;
}

/* Chooses the next literal: a filter whose variables are all bound goes first, then a
 * positive literal with all variables bound (a lookup), then the cheapest by estimate;
 * the written order breaks ties. */
static int pick_literal(reasoner_t *r, const rule_t *rule, const bool *used, const bool *bound) {
    const term_store_t *ts = r->ts;
    int best = -1;
    double best_cost = 1e300;
    for (uint32_t i = 0; i < rule->n_body; i++) {
        if (used[i]) continue;
        const lit_t *l = &rule->body[i];
        uint32_t ub = unbound_vars(ts, l->atom, bound);
        if (ub == 0) return (int)i;
        if (l->kind != LIT_POS) continue;
        double cost = literal_cost(r, l, bound);
        if (cost < best_cost) best = (int)i, best_cost = cost;
    }
    if (best < 0) /* only filters with unbound variables remain: unsafe, rejected earlier */
        for (uint32_t i = 0; i < rule->n_body && best < 0; i++)
            if (!used[i]) best = (int)i;
    return best;
}

static void ensure(reasoner_t *r, uint32_t rel_id);
static bool ensure_small(reasoner_t *r, uint32_t rel_id);

/* Static relations a rule reads are computed before the rule is planned, so that the
 * planner knows their sizes. */
static void ensure_static_inputs(reasoner_t *r, const rule_t *rule) {
    uint32_t head_scc = r->g->preds[game_pred_of(r->g, rule->head)].scc;
    for (uint32_t i = 0; i < rule->n_body; i++) {
        if (rule->body[i].kind == LIT_DISTINCT) continue;
        uint32_t p = game_pred_of(r->g, rule->body[i].atom);
        if (r->rels[p].layer == LAYER_STATIC && r->g->preds[p].scc != head_scc) ensure_small(r, p);
    }
}

/* Sets the existential flags of each positive step (see step_t), given the body order. */
static void mark_existential(reasoner_t *r, const rule_t *rule, plan_t *p, const uint32_t *order,
                             uint32_t mask) {
    const term_store_t *ts = r->ts;
    uint32_t nv = rule->n_vars + 1;
    bool *before = xcalloc(nv, sizeof *before), *later = xcalloc(nv, sizeof *later);
    bool *head = xcalloc(nv, sizeof *head), *mine = xcalloc(nv, sizeof *mine);
    for (uint32_t j = 0; j < p->head_arity; j++) {
        vars_of(ts, p->head_args[j], head);
        if (j < 32 && (mask & (1u << j))) vars_of(ts, p->head_args[j], before);
    }
    for (uint32_t k = 0; k < p->n_steps; k++) {
        step_t *s = &p->steps[k];
        term_t atom = rule->body[order[k]].atom;
        if (s->op == OP_SCAN && rule->body[order[k]].kind == LIT_POS) {
            memset(later, 0, nv * sizeof *later);
            for (uint32_t q = k + 1; q < p->n_steps; q++)
                vars_of(ts, rule->body[order[q]].atom, later);
            memset(mine, 0, nv * sizeof *mine);
            vars_of(ts, atom, mine);
            bool dead = true, dead_head = true;
            for (uint32_t v = 0; v < rule->n_vars; v++) {
                if (!mine[v] || before[v]) continue;
                if (later[v]) dead = dead_head = false;
                if (head[v]) dead = false;
            }
            s->existential = dead;
            s->existential_if_exists = dead_head;
            s->exists_call_ok = true;
            memset(mine, 0, nv * sizeof *mine);
            for (uint32_t i = 0; i < s->arity; i++) {
                term_t a = s->args[i];
                if (term_is_ground(ts, a)) continue;
                if (!term_is_var(ts, a))
                    s->exists_call_ok = false;
                else if (!before[term_sym(ts, a)] && mine[term_sym(ts, a)])
                    s->exists_call_ok = false;
                else
                    mine[term_sym(ts, a)] = true;
            }
        }
        vars_of(ts, atom, before);
    }
    free(before), free(later), free(head), free(mine);
}

static plan_t *compile_plan(reasoner_t *r, uint32_t ri, uint32_t mask) {
    const term_store_t *ts = r->ts;
    const rule_t *rule = &r->g->rules[ri];
    ensure_static_inputs(r, rule);
    plan_t *p = xcalloc(1, sizeof *p);
    p->mask = mask;
    p->head_rel = game_pred_of(r->g, rule->head);
    p->head_args = copy_args(ts, rule->head, &p->head_arity);
    p->n_vars = rule->n_vars;
    p->steps = xcalloc(rule->n_body + 1, sizeof *p->steps);
    bool *bound = xcalloc(rule->n_vars + 1, sizeof *bound);
    bool *used = xcalloc(rule->n_body + 1, sizeof *used);
    uint32_t *order = xcalloc(rule->n_body + 1, sizeof *order);
    for (uint32_t j = 0; j < p->head_arity && j < 32; j++)
        if (mask & (1u << j)) vars_of(ts, p->head_args[j], bound);
    uint32_t head_scc = r->g->preds[p->head_rel].scc;
    while (p->n_steps < rule->n_body) {
        int best = pick_literal(r, rule, used, bound);
        used[best] = true;
        p->steps[p->n_steps++] = make_step(r, &rule->body[best], head_scc);
        order[p->n_steps - 1] = (uint32_t)best;
        vars_of(ts, rule->body[best].atom, bound);
    }
    mark_existential(r, rule, p, order, mask);
    free(order);
    free(bound);
    free(used);
    return p;
}

/* The plan of a rule for a call with the head arguments in mask bound, compiled on first
 * use. */
static plan_t *plan_for(reasoner_t *r, uint32_t ri, uint32_t mask) {
    plan_t *p = r->plans[ri];
    for (; p; p = p->next)
        if (p->mask == mask) return p;
    p = compile_plan(r, ri, mask);
    p->next = r->plans[ri];
    r->plans[ri] = p;
    return p;
}

static void compile(reasoner_t *r) {
    game_t *g = r->g;
    for (size_t i = 0; i < g->n_preds; i++) {
        uint32_t id = new_rel(r, g->preds[i].arity);
        rel_t *rel = &r->rels[id];
        rel->pred = (uint32_t)i;
        rel->layer = g->preds[i].layer;
        rel->callable = g->preds[i].n_rules && !g->preds[i].recursive && rel->layer != LAYER_STATIC;
    }
    r->plans = xcalloc(g->n_rules + 1, sizeof *r->plans);
    /* Every fluent relation exists before plans are compiled (lazily, mid-evaluation), so
     * that the relation array never moves under a running join. */
    for (size_t i = 0; i < g->n_rules; i++)
        for (uint32_t k = 0; k < g->rules[i].n_body; k++) {
            term_t atom = g->rules[i].body[k].atom;
            if (term_sym(r->ts, atom) != SYM_TRUE || term_arity(r->ts, atom) != 1) continue;
            term_t f = term_arg(r->ts, atom, 0);
            if (!term_is_var(r->ts, f))
                fluent_rel(r, term_sym(r->ts, f), term_arity(r->ts, f), true);
        }
    r->scc_n_rules = xcalloc(g->n_sccs + 1, sizeof *r->scc_n_rules);
    r->scc_rules = xcalloc(g->n_sccs + 1, sizeof *r->scc_rules);
    for (size_t i = 0; i < g->n_rules; i++)
        r->scc_n_rules[g->preds[game_pred_of(g, g->rules[i].head)].scc]++;
    for (uint32_t s = 0; s < g->n_sccs; s++) {
        r->scc_rules[s] = xmalloc((r->scc_n_rules[s] + 1) * sizeof **r->scc_rules);
        r->scc_n_rules[s] = 0;
    }
    for (size_t k = 0; k < g->n_rules; k++) {
        uint32_t ri = g->rule_order[k];
        uint32_t s = g->preds[game_pred_of(g, g->rules[ri].head)].scc;
        r->scc_rules[s][r->scc_n_rules[s]++] = ri;
    }
}

reasoner_t *reason_new(game_t *g) {
    reasoner_t *r = xcalloc(1, sizeof *r);
    r->g = g;
    r->ts = g->ts;
    compile(r);
    r->pred_legal = game_pred(g, SYM_LEGAL, 2);
    r->pred_goal = game_pred(g, SYM_GOAL, 2);
    r->pred_terminal = game_pred(g, SYM_TERMINAL, 0);
    r->pred_next = game_pred(g, SYM_NEXT, 1);
    r->pred_init = game_pred(g, SYM_INIT, 1);
    r->pred_sees = game_pred(g, SYM_SEES, 2);
    r->pred_does = game_pred(g, SYM_DOES, 2);
    r->cur_joint = xcalloc(g->n_roles + 1, sizeof *r->cur_joint);
    state_init(&r->cur);
    r->max_tuples = REASON_MAX_TUPLES;
    r->stack_budget = REASON_STACK_BUDGET;
    return r;
}

void reason_set_max_tuples(reasoner_t *r, size_t n) {
    r->max_tuples = n;
}

const char *reason_error(const reasoner_t *r) {
    return r->error;
}

static void print_profile(const reasoner_t *r) {
    strbuf_t sb;
    sb_init(&sb);
    for (size_t i = 0; i < r->g->n_rules; i++) {
        uint64_t tries = 0;
        for (plan_t *p = r->plans[i]; p; p = p->next)
            tries += p->tries;
        if (tries < 100000) continue;
        sb_clear(&sb);
        rule_print(r->g, &r->g->rules[i], &sb);
        fprintf(stderr, "%12" PRIu64 " %.300s\n", tries, sb_str(&sb));
    }
    sb_fini(&sb);
}

static void memo_fini(memo_t *m) {
    for (uint32_t i = 0; i < m->n_alloc; i++) {
        rel_fini(&m->calls[i]->ans);
        free(m->calls[i]->key);
        free(m->calls[i]);
    }
    free(m->calls);
    htab_fini(&m->table);
}

void reason_free(reasoner_t *r) {
    if (!r) return;
    if (getenv("GGP_PROFILE")) print_profile(r);
    for (uint32_t i = 0; i < r->n_rels; i++)
        rel_fini(&r->rels[i]);
    for (size_t i = 0; i < r->g->n_rules; i++)
        for (plan_t *p = r->plans[i], *next; p; p = next) {
            next = p->next;
            for (uint32_t k = 0; k < p->n_steps; k++)
                free(p->steps[k].args);
            free(p->steps);
            free(p->head_args);
            free(p);
        }
    for (uint32_t s = 0; s < r->g->n_sccs; s++)
        free(r->scc_rules[s]);
    for (int l = 0; l < 3; l++)
        memo_fini(&r->memo[l]);
    free(r->scc_rules);
    free(r->scc_n_rules);
    free(r->plans);
    free(r->rels);
    keyset_fini(&r->fluent_sigs);
    free(r->fluent_rels);
    free(r->out);
    free(r->stack);
    free(r->cur_joint);
    state_fini(&r->cur);
    free(r->error);
    free(r);
}

const game_t *reason_game(const reasoner_t *r) {
    return r->g;
}

/* ---------------- joins ---------------- */

typedef struct {
    reasoner_t *r;
    plan_t *plan;
    rel_t *target;  /* where the head tuples go */
    bool full_mode; /* computing whole relations: own-component literals read them as built */
    bool exists;    /* for an existence-only call: stop once the target has a tuple */
    int delta_step; /* step restricted to [delta_lo, delta_hi), or -1 */
    size_t delta_lo, delta_hi;
    bind_t b; /* the rule's variables */
    uint32_t added;
} join_t;

static void ensure(reasoner_t *r, uint32_t rel_id);
static call_t *call(reasoner_t *r, uint32_t pred, uint32_t mask, const term_t *key, bool exists);

/* Matches pattern p against ground g, extending the bindings. */
static bool match(join_t *j, term_t p, term_t g) {
    return bind_match(&j->b, j->r->ts, p, g);
}

static void undo(join_t *j, uint32_t mark) {
    bind_undo(&j->b, mark);
}

/* The value of a pattern under the bindings when it is a ground term or a bound variable;
 * TERM_NONE otherwise. */
static term_t bound_value(const join_t *j, term_t p) {
    const term_node_t *n = &j->r->ts->nodes[p];
    if (n->ground) return p;
    if (n->kind == TERM_VAR) return j->b.val[n->sym];
    return TERM_NONE;
}

static void join_from(join_t *j, uint32_t k);

static bool try_tuple(join_t *j, uint32_t k, const step_t *s, const rel_t *rel, size_t ti) {
    j->plan->tries++;
    uint32_t mark = bind_mark(&j->b);
    const term_t *t = rel_tuple(rel, ti);
    uint32_t i = 0;
    for (; i < s->arity; i++)
        if (!match(j, s->args[i], t[i])) break;
    if (i == s->arity) join_from(j, k + 1);
    undo(j, mark);
    return i == s->arity;
}

static bool is_existential(const join_t *j, const step_t *s) {
    return j->exists ? s->existential_if_exists : s->existential;
}

/* Joins step k against the tuples [lo, hi) of rel, through an index when an argument is
 * bound and the range is not tiny. */
static void scan_rel(join_t *j, uint32_t k, const step_t *s, rel_t *rel, size_t lo, size_t hi) {
    if (hi <= lo) return;
    if (s->arity == 0) {
        join_from(j, k + 1);
        return;
    }
    uint32_t pos = UINT32_MAX, n_bound = 0;
    term_t key = TERM_NONE, tuple[s->arity];
    for (uint32_t i = 0; i < s->arity; i++)
        if ((tuple[i] = bound_value(j, s->args[i])) != TERM_NONE && n_bound++ == 0)
            pos = i, key = tuple[i];
    if (n_bound == s->arity && lo == 0 && hi == rel->n) {
        /* a membership test: the hash set answers it */
        j->plan->tries++;
        if (rel_contains(rel, tuple)) join_from(j, k + 1);
        return;
    }
    bool one = is_existential(j, s);
    if (pos == UINT32_MAX || hi - lo <= 6) {
        for (size_t ti = lo; ti < hi; ti++)
            if (try_tuple(j, k, s, rel, ti) && one) return;
        return;
    }
    if (!rel->idx[pos].built) index_build(rel, pos);
    /* Chains run from newer to older tuples; new ones land at the head, unseen here. */
    index_t *x = &rel->idx[pos];
    for (uint32_t e = x->head[(key * 0x9e3779b1u) & (x->cap - 1)]; e; e = x->next[e - 1]) {
        size_t ti = e - 1;
        if (ti >= hi) continue;
        if (ti < lo) break;
        if (rel_tuple(rel, ti)[pos] == key && try_tuple(j, k, s, rel, ti) && one) return;
    }
}

/* Which relation a literal on a predicate reads: the one being built (own component, in
 * full mode), a memoised call (some arguments bound), or the whole relation. */
static bool ensure_small(reasoner_t *r, uint32_t rel_id);

static rel_t *source_of(join_t *j, const step_t *s, const term_t *key, uint32_t mask) {
    reasoner_t *r = j->r;
    bool exists = s->op == OP_SCAN && is_existential(j, s) && s->exists_call_ok;
    rel_t *rel = &r->rels[s->rel];
    if (rel->is_fluent || rel->computed) return rel;
    if (j->full_mode && s->in_scc) return rel;
    if (mask && (rel->callable || rel->call_only)) return &call(r, s->rel, mask, key, exists)->ans;
    /* Static and recursive relations are computed whole when they are small; past a
     * budget they are answered per call (recursive ones with a fixpoint over cycles). */
    if (mask && (rel->layer == LAYER_STATIC || r->g->preds[s->rel].recursive) &&
        !ensure_small(r, s->rel))
        return &call(r, s->rel, mask, key, exists)->ans;
    ensure(r, s->rel);
    return rel;
}

static uint32_t call_key(const join_t *j, const step_t *s, term_t *key) {
    uint32_t mask = 0;
    for (uint32_t i = 0; i < s->arity; i++) {
        key[i] = bound_value(j, s->args[i]);
        if (key[i] != TERM_NONE && i < 32) mask |= 1u << i;
    }
    return mask;
}

static void scan(join_t *j, uint32_t k, const step_t *s) {
    term_t key[s->arity + 1];
    uint32_t mask = call_key(j, s, key);
    rel_t *rel = source_of(j, s, key, mask);
    size_t lo = 0, hi = rel->n;
    if ((int)k == j->delta_step) lo = j->delta_lo, hi = j->delta_hi;
    scan_rel(j, k, s, rel, lo, hi);
}

static bool neg_holds(join_t *j, const step_t *s) {
    reasoner_t *r = j->r;
    term_t tuple[s->arity + 1];
    for (uint32_t i = 0; i < s->arity; i++) {
        tuple[i] = term_find_subst(r->ts, s->args[i], j->b.val);
        if (tuple[i] == TERM_NONE) return true; /* a term never built is in no relation */
    }
    uint32_t mask = s->arity >= 32 ? UINT32_MAX : (1u << s->arity) - 1;
    rel_t *rel = source_of(j, s, tuple, mask);
    return !rel_contains(rel, tuple);
}

static void true_any(join_t *j, uint32_t k, const step_t *s) {
    reasoner_t *r = j->r;
    term_t v = j->b.val[term_sym(r->ts, s->a)];
    if (v) {
        if (state_has(&r->cur, v)) join_from(j, k + 1);
        return;
    }
    for (uint32_t i = 0; i < r->cur.n; i++) {
        uint32_t mark = bind_mark(&j->b);
        if (match(j, s->a, r->cur.facts[i])) join_from(j, k + 1);
        undo(j, mark);
    }
}

static void fire(join_t *j) {
    reasoner_t *r = j->r;
    const plan_t *p = j->plan;
    term_t tuple[p->head_arity + 1];
    for (uint32_t i = 0; i < p->head_arity; i++) {
        tuple[i] = term_subst(r->ts, p->head_args[i], j->b.val);
        uint32_t depth = term_depth(r->ts, tuple[i]);
        if (depth > r->stats.deepest) {
            r->stats.deepest = depth;
            if (depth >= TERM_MAX_DEPTH) { /* (an atom of the relation nests one more) */
                give_up_nested(r, j->target);
                return;
            }
        }
    }
    r->stats.rules_fired++;
    if (rel_add(r, j->target, tuple)) j->added++, r->stats.tuples_derived++, r->call_added++;
    if (r->budget && j->target->n > r->budget) r->over = true;
}

static void join_from(join_t *j, uint32_t k) {
    reasoner_t *r = j->r;
    if (r->over || (j->exists && j->target->n)) return;
    if (stack_used(r) > r->stack_budget) {
        give_up_deep(r, j->target);
        return;
    }
    if (k == j->plan->n_steps) {
        fire(j);
        return;
    }
    const step_t *s = &j->plan->steps[k];
    switch (s->op) {
    case OP_SCAN:
        scan(j, k, s);
        break;
    case OP_TRUE_ANY:
        true_any(j, k, s);
        break;
    case OP_NEG:
        if (neg_holds(j, s)) join_from(j, k + 1);
        break;
    case OP_NEG_TRUE_VAR: {
        term_t v = j->b.val[term_sym(r->ts, s->a)];
        if (!v || !state_has(&r->cur, v)) join_from(j, k + 1);
        break;
    }
    case OP_DISTINCT:
    case OP_EQUAL: {
        term_t a = term_subst(r->ts, s->a, j->b.val), b = term_subst(r->ts, s->b, j->b.val);
        if ((a != b) == (s->op == OP_DISTINCT)) join_from(j, k + 1);
        break;
    }
    }
}

/* Runs a plan into target. With a key, the head arguments in the plan's mask are first
 * matched against it (the call's bound arguments). */
static uint32_t run_plan_x(reasoner_t *r, plan_t *p, rel_t *target, const term_t *key,
                           bool full_mode, bool exists, int delta_step, size_t lo, size_t hi) {
    term_t vars[p->n_vars + 1];
    uint32_t trail[p->n_vars + 1];
    memset(vars, 0, sizeof vars); /* all TERM_NONE */
    join_t j = {.r = r,
                .plan = p,
                .target = target,
                .full_mode = full_mode,
                .exists = exists,
                .delta_step = delta_step,
                .delta_lo = lo,
                .delta_hi = hi,
                .b = bind_over(vars, trail)};
    for (uint32_t i = 0; key && i < p->head_arity && i < 32; i++)
        if ((p->mask & (1u << i)) && !match(&j, p->head_args[i], key[i])) return 0;
    join_from(&j, 0);
    return j.added;
}

static uint32_t run_plan(reasoner_t *r, plan_t *p, rel_t *target, const term_t *key, bool full_mode,
                         int delta_step, size_t lo, size_t hi) {
    return run_plan_x(r, p, target, key, full_mode, false, delta_step, lo, hi);
}

/* ---------------- whole relations, by components ---------------- */

/* Semi-naive iteration over one recursive rule component: each round joins every rule once
 * per own-component literal, that literal restricted to the tuples the last round added. */
static void eval_recursive(reasoner_t *r, const uint32_t *rules, uint32_t n) {
    size_t n_rels = r->g->n_preds;
    size_t *lo = xcalloc(n_rels + 1, sizeof *lo), *hi = xcalloc(n_rels + 1, sizeof *hi);
    for (size_t i = 0; i < n_rels; i++)
        lo[i] = r->rels[i].n;
    for (uint32_t k = 0; k < n; k++) {
        plan_t *p = plan_for(r, rules[k], 0);
        run_plan(r, p, &r->rels[p->head_rel], NULL, true, -1, 0, 0);
    }
    for (size_t i = 0; i < n_rels; i++)
        hi[i] = r->rels[i].n;
    for (bool more = true; more;) {
        more = false;
        for (uint32_t k = 0; k < n; k++) {
            plan_t *p = plan_for(r, rules[k], 0);
            for (uint32_t i = 0; i < p->n_steps; i++) {
                const step_t *s = &p->steps[i];
                if (s->op != OP_SCAN || !s->in_scc || lo[s->rel] >= hi[s->rel]) continue;
                run_plan(r, p, &r->rels[p->head_rel], NULL, true, (int)i, lo[s->rel], hi[s->rel]);
            }
        }
        for (size_t i = 0; i < n_rels; i++) {
            lo[i] = hi[i];
            hi[i] = r->rels[i].n;
            if (lo[i] < hi[i]) more = true;
        }
    }
    free(lo);
    free(hi);
}

/* Computes a relation whole, and first those it reads (ensure, recursively). */
static void ensure_rel(reasoner_t *r, rel_t *rel) {
    const game_t *g = r->g;
    uint32_t scc = g->preds[rel->pred].scc;
    const uint32_t *rules = r->scc_rules[scc];
    uint32_t n = r->scc_n_rules[scc];
    for (uint32_t k = 0; k < n; k++)
        r->rels[game_pred_of(g, g->rules[rules[k]].head)].computing = true;
    /* Rule components in dependency order: a negated own-component literal reads only
     * tuples whose rules are already done. */
    for (uint32_t k = 0; k < n;) {
        uint32_t e = k + 1;
        while (e < n && g->rules[rules[e]].scc == g->rules[rules[k]].scc)
            e++;
        if (e - k == 1 && !g->rules[rules[k]].recursive) {
            plan_t *p = plan_for(r, rules[k], 0);
            run_plan(r, p, &r->rels[p->head_rel], NULL, true, -1, 0, 0);
        } else {
            eval_recursive(r, rules + k, e - k);
        }
        k = e;
    }
    for (uint32_t k = 0; k < n; k++) {
        rel_t *h = &r->rels[game_pred_of(g, g->rules[rules[k]].head)];
        h->computing = false;
        if (r->over) { /* aborted by a budget: forget the partial relation */
            rel_clear(h);
            h->call_only = true;
        } else {
            h->computed = true;
        }
    }
    if (!r->over) rel->computed = true;
}

static void ensure(reasoner_t *r, uint32_t rel_id) {
    rel_t *rel = &r->rels[rel_id];
    if (rel->computed || rel->is_fluent || rel->computing) return;
    if (stack_enter(r, rel)) ensure_rel(r, rel);
    r->nest--;
}

/* Computes a static or recursive relation whole if it stays under a size budget; false
 * (and the relation answered per call from then on) when it would not. A static relation
 * is computed once, so it may be large; a state-dependent one is recomputed in every
 * state, where answering only the calls asked is cheaper unless it is tiny (chess's
 * six-argument clear-path relations: 16x faster per call than whole). */
#define WHOLE_STATIC_MAX 100000u
#define WHOLE_DYNAMIC_MAX 1000u
static bool ensure_small(reasoner_t *r, uint32_t rel_id) {
    rel_t *rel = &r->rels[rel_id];
    if (rel->computed) return true;
    if (rel->call_only || r->budget) return false;
    r->budget = rel->layer == LAYER_STATIC ? WHOLE_STATIC_MAX : WHOLE_DYNAMIC_MAX;
    ensure(r, rel_id);
    bool ok = !r->over;
    r->budget = 0;
    r->over = r->error != NULL; /* a reasoner that gave up stays stopped */
    if (!ok) rel->call_only = true;
    return ok;
}

/* ---------------- memoised calls ---------------- */

/* A call looked for: pred with the arguments in mask bound to key. */
typedef struct {
    uint32_t pred, mask, arity;
    bool exists;
    const term_t *key;
} call_key_t;

static uint32_t call_hash(const call_key_t *k) {
    uint32_t h = hash_mix(k->pred * 0x9e3779b1u + k->exists, k->mask);
    for (uint32_t i = 0; i < k->arity && i < 32; i++)
        if (k->mask & (1u << i)) h = hash_mix(h, k->key[i]);
    return h * 0x85ebca6bu;
}

static call_key_t call_key_of(const call_t *c) {
    return (call_key_t){c->pred, c->mask, c->ans.arity, c->exists, c->key};
}

static bool call_matches(const call_t *c, const call_key_t *k) {
    if (c->pred != k->pred || c->mask != k->mask || c->exists != k->exists) return false;
    for (uint32_t i = 0; i < k->arity && i < 32; i++)
        if ((k->mask & (1u << i)) && c->key[i] != k->key[i]) return false;
    return true;
}

typedef struct {
    const memo_t *m;
    call_key_t want;
} call_probe_t;

static bool call_same(const void *ctx, uint32_t i) {
    const call_probe_t *p = ctx;
    return call_matches(p->m->calls[i], &p->want);
}

static uint32_t call_hash_of(const void *ctx, uint32_t i) {
    call_key_t k = call_key_of(((const memo_t *)ctx)->calls[i]);
    return call_hash(&k);
}

static call_t *memo_new(reasoner_t *r, memo_t *m, uint32_t pred, uint32_t mask, bool exists,
                        const term_t *key, uint32_t *slot) {
    uint32_t arity = r->rels[pred].arity;
    if (m->n == m->n_alloc) {
        GROW(m->calls, m->cap, m->n_alloc + 1);
        m->calls[m->n_alloc++] = xcalloc(1, sizeof(call_t));
    }
    call_t *c = m->calls[m->n];
    if (c->ans.idx == NULL || c->ans.arity != arity) {
        rel_fini(&c->ans);
        free(c->key);
        memset(&c->ans, 0, sizeof c->ans);
        c->ans.arity = arity;
        c->ans.idx = xcalloc(arity + 1, sizeof *c->ans.idx);
        c->key = xcalloc(arity + 1, sizeof *c->key);
    }
    rel_clear(&c->ans);
    c->pred = pred;
    c->mask = mask;
    c->exists = exists;
    c->ans.pred = pred; /* names the relation should the answers outgrow the cap */
    c->done = c->in_progress = c->incomplete = c->leads_cycle = false;
    memcpy(c->key, key, arity * sizeof *key);
    htab_fill(&m->table, slot, m->n++);
    return c;
}

/* A call read another that is still in progress: every call above it on the stack
 * depends on an unfinished answer set and must be redone until the cycle settles. */
static void mark_cycle(reasoner_t *r, call_t *reader_of) {
    reader_of->leads_cycle = true;
    for (uint32_t d = reader_of->depth + 1; d < r->depth; d++) {
        call_t *c = r->stack[d];
        c->incomplete = true;
        if (reader_of->depth < c->low) c->low = reader_of->depth;
    }
}

static void run_call(reasoner_t *r, call_t *c) {
    const pred_t *p = &r->g->preds[c->pred];
    GROW(r->stack, r->stack_cap, r->depth + 1);
    c->depth = c->low = r->depth;
    r->stack[r->depth++] = c;
    c->in_progress = true;
    c->incomplete = c->leads_cycle = false;
    uint64_t before;
    do { /* a cycle leader iterates until no call of its cycle learns anything new */
        before = r->call_added;
        for (uint32_t q = 0; q < p->n_rules && !r->over && !(c->exists && c->ans.n); q++)
            run_plan_x(r, plan_for(r, p->rules[q], c->mask), &c->ans, c->key, false, c->exists, -1,
                       0, 0);
    } while (c->leads_cycle && c->low == c->depth && r->call_added != before && !r->over);
    r->depth--;
    c->in_progress = false;
    /* Finished unless it hangs on an enclosing unfinished call; calls left incomplete
     * above a settled leader are redone when asked again (their answers are kept). */
    c->done = !r->over && !(c->incomplete && c->low < c->depth);
    if (c->done) c->incomplete = c->leads_cycle = false;
    if (c->incomplete && c->low < c->depth && r->depth) {
        call_t *parent = r->stack[r->depth - 1];
        if (c->low < parent->low) parent->low = c->low, parent->incomplete = true;
    }
}

/* The answers of pred with the arguments in mask bound to key, computed on first use. */
static call_t *call(reasoner_t *r, uint32_t pred, uint32_t mask, const term_t *key, bool exists) {
    memo_t *m = &r->memo[r->rels[pred].layer];
    uint32_t arity = r->rels[pred].arity;
    call_probe_t p = {m, {pred, mask, arity, exists, key}};
    htab_reserve(&m->table, call_hash_of, m);
    uint32_t *slot = htab_probe(&m->table, call_hash(&p.want), call_same, &p);
    call_t *c = NULL;
    if (*slot) {
        call_t *e = m->calls[*slot - 1];
        if (e->done) return e;
        if (e->in_progress) {
            mark_cycle(r, e);
            return e;
        }
        c = e;
        if (!c->incomplete) rel_clear(&c->ans); /* aborted by a budget: start over */
    }
    if (!c) c = memo_new(r, m, pred, mask, exists, key, slot);
    if (stack_enter(r, &c->ans)) run_call(r, c);
    r->nest--;
    return c;
}

static void memo_clear(memo_t *m) {
    if (!m->n) return;
    m->n = 0;
    htab_clear(&m->table);
}

/* ---------------- memo: state and joint move ---------------- */

static void clear_layer(reasoner_t *r, layer_t from) {
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].layer >= from) rel_clear(&r->rels[i]);
    for (int l = (int)from; l <= (int)LAYER_MOVE; l++)
        memo_clear(&r->memo[l]);
}

static void set_state(reasoner_t *r, const state_t *s) {
    if (r->has_state && state_equal(&r->cur, s)) return;
    state_copy(&r->cur, s);
    r->has_state = true;
    r->has_joint = false;
    r->stats.states_set++;
    clear_layer(r, LAYER_STATE);
    const term_store_t *ts = r->ts;
    for (uint32_t i = 0; i < s->n; i++) {
        term_t f = s->facts[i];
        uint32_t id = fluent_rel(r, term_sym(ts, f), term_arity(ts, f), false);
        if (id == UINT32_MAX) continue;
        rel_add(r, &r->rels[id], term_kind(ts, f) == TERM_FUN ? term_args(ts, f) : NULL);
    }
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].is_fluent) r->rels[i].computed = true;
}

static void set_joint(reasoner_t *r, const term_t *joint) {
    uint32_t n = r->g->n_roles;
    if (r->has_joint && memcmp(r->cur_joint, joint, n * sizeof *joint) == 0) return;
    memcpy(r->cur_joint, joint, n * sizeof *joint);
    r->has_joint = true;
    clear_layer(r, LAYER_MOVE);
    if (r->pred_does == UINT32_MAX) return;
    rel_t *does = &r->rels[r->pred_does];
    for (uint32_t i = 0; i < n; i++) {
        term_t t[2] = {r->g->roles[i], joint[i]};
        rel_add(r, does, t);
    }
    does->computed = true;
}

/* ---------------- queries ---------------- */

static void out_push(reasoner_t *r, size_t *n, term_t t) {
    GROW(r->out, r->out_cap, *n + 1);
    r->out[(*n)++] = t;
}

/* Whether the reasoner gave up (give_up), before or during this call: the answer is then
 * empty (a state with no fluents, no moves, no goals; terminal), never a partial one. */
static bool failed(const reasoner_t *r) {
    return r->error != NULL;
}

/* Second arguments of the tuples of a binary relation whose first argument is key. */
static uint32_t select_second(reasoner_t *r, uint32_t pred, term_t key, const term_t **out) {
    size_t n = 0;
    *out = r->out;
    if (failed(r)) return 0;
    if (pred != UINT32_MAX) {
        ensure(r, pred);
        if (failed(r)) return 0;
        const rel_t *rel = &r->rels[pred];
        for (size_t i = 0; i < rel->n; i++)
            if (rel_tuple(rel, i)[0] == key) out_push(r, &n, rel_tuple(rel, i)[1]);
    }
    *out = r->out;
    return (uint32_t)n;
}

void reason_initial(reasoner_t *r, state_t *out) {
    out->n = 0;
    if (failed(r)) return;
    if (r->pred_init != UINT32_MAX) {
        ensure(r, r->pred_init);
        if (failed(r)) return;
        const rel_t *rel = &r->rels[r->pred_init];
        for (size_t i = 0; i < rel->n; i++)
            state_push(out, rel_tuple(rel, i)[0]);
    }
    state_normalise(out);
}

bool reason_terminal(reasoner_t *r, const state_t *s) {
    if (failed(r)) return true; /* so that no search goes on from a state it cannot read */
    if (r->pred_terminal == UINT32_MAX) return false;
    set_state(r, s);
    ensure(r, r->pred_terminal);
    return failed(r) || r->rels[r->pred_terminal].n > 0;
}

uint32_t reason_legal(reasoner_t *r, const state_t *s, uint32_t role, const term_t **moves) {
    set_state(r, s);
    return select_second(r, r->pred_legal, r->g->roles[role], moves);
}

bool reason_is_legal(reasoner_t *r, const state_t *s, uint32_t role, term_t move) {
    if (r->pred_legal == UINT32_MAX || failed(r)) return false;
    set_state(r, s);
    ensure(r, r->pred_legal);
    if (failed(r)) return false;
    term_t t[2] = {r->g->roles[role], move};
    return rel_contains(&r->rels[r->pred_legal], t);
}

uint32_t reason_goals(reasoner_t *r, const state_t *s, uint32_t role, const term_t **values) {
    set_state(r, s);
    return select_second(r, r->pred_goal, r->g->roles[role], values);
}

void reason_next(reasoner_t *r, const state_t *s, const term_t *joint, state_t *out) {
    out->n = 0;
    if (failed(r)) return;
    set_state(r, s);
    set_joint(r, joint);
    if (r->pred_next != UINT32_MAX) {
        ensure(r, r->pred_next);
        if (failed(r)) return;
        const rel_t *rel = &r->rels[r->pred_next];
        for (size_t i = 0; i < rel->n; i++)
            state_push(out, rel_tuple(rel, i)[0]);
    }
    state_normalise(out);
}

uint32_t reason_sees(reasoner_t *r, const state_t *s, const term_t *joint, uint32_t role,
                     const term_t **percepts) {
    set_state(r, s);
    set_joint(r, joint);
    return select_second(r, r->pred_sees, r->g->roles[role], percepts);
}

uint32_t reason_query(reasoner_t *r, const state_t *s, const term_t *joint, uint32_t pred,
                      const term_t **tuples) {
    *tuples = NULL;
    if (failed(r)) return 0;
    if (s) set_state(r, s);
    if (joint) set_joint(r, joint);
    ensure(r, pred);
    if (failed(r)) return 0;
    const rel_t *rel = &r->rels[pred];
    *tuples = rel->data;
    return (uint32_t)rel->n;
}

bool reason_holds(reasoner_t *r, const state_t *s, term_t atom) {
    uint32_t pred = game_pred_of(r->g, atom);
    if (pred == UINT32_MAX || failed(r)) return false;
    set_state(r, s);
    const rel_t *rel = &r->rels[pred];
    uint32_t ar = rel->arity;
    term_t key[32];
    for (uint32_t i = 0; i < ar && i < 32; i++)
        key[i] = term_arg(r->ts, atom, i);
    if (rel->callable && ar > 0 && ar < 32)
        return call(r, pred, (1u << ar) - 1, key, true)->ans.n > 0 && !failed(r);
    ensure(r, pred);
    if (failed(r)) return false;
    return ar == 0 ? rel->n > 0 : ar < 32 && rel_contains(&r->rels[pred], key);
}

reason_stats_t reason_stats(const reasoner_t *r) {
    return r->stats;
}
