/* Plans and enumeration of rule bindings: see gjoin.h. */
#include "engine/gjoin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/keyset.h"

void gjoin_init(gjoin_t *J, gprog_t *P, gatoms_t *A, double deadline, uint64_t max_work) {
    memset(J, 0, sizeof *J);
    J->max_work = max_work;
    J->P = P;
    J->A = A;
    J->ts = P->ts;
    J->deadline = deadline;
}

static void plan_free(gplan_t *pl) {
    if (!pl) return;
    for (uint32_t s = 0; s < pl->n_steps; s++)
        free(pl->steps[s].key_vars), free(pl->steps[s].memo);
    free(pl->steps), free(pl->sizes);
    free(pl);
}

void gjoin_fini(gjoin_t *J) {
    for (uint32_t r = 0; r < J->n_plans; r++) {
        if (!J->plans[r]) continue;
        for (uint32_t k = 0; k < J->plan_slots[r]; k++)
            plan_free(J->plans[r][k]);
        free(J->plans[r]);
    }
    for (uint32_t p = 0; p < J->n_ndv; p++)
        free(J->ndv[p]);
    free(J->plans), free(J->plan_slots), free(J->ndv), free(J->ndv_at);
    free(J->b.val), free(J->b.trail), free(J->matched);
    free(J->seen_hash), free(J->seen_at), free(J->seen_vals);
    htab_fini(&J->seen);
}

/* ---- variables of terms ---- */

/* ---- estimates: distinct values per argument ---- */

static const double *ndv_of(gjoin_t *J, uint32_t pred) {
    if (pred >= J->n_ndv) {
        uint32_t n = J->P->n_preds + 16;
        J->ndv = xrecalloc(J->ndv, J->n_ndv, n, sizeof *J->ndv);
        J->ndv_at = xrecalloc(J->ndv_at, J->n_ndv, n, sizeof *J->ndv_at);
        J->n_ndv = n;
    }
    const gids_t *ids = gatoms_of(J->A, pred);
    if (J->ndv[pred] && ids->n < 2 * J->ndv_at[pred] + 16) return J->ndv[pred];
    uint32_t ar = J->P->preds[pred].arity;
    free(J->ndv[pred]);
    J->ndv[pred] = xcalloc(ar + 1, sizeof **J->ndv);
    J->ndv_at[pred] = ids->n;
    for (uint32_t i = 0; i < ar; i++) {
        keyset_t seen;
        keyset_init(&seen);
        for (uint32_t k = 0; k < ids->n; k++)
            keyset_add(&seen, term_arg(J->ts, J->A->term[ids->ids[k]], i));
        J->ndv[pred][i] = seen.n > 1 ? seen.n : 1;
        keyset_fini(&seen);
    }
    return J->ndv[pred];
}

/* Expected candidates of a positive literal with the variables bound so far. */
static double estimate(gjoin_t *J, const gp_lit_t *l, const bool *bound) {
    double n = gatoms_of(J->A, l->pred)->n;
    if (n == 0) return 0;
    const double *nd = ndv_of(J, l->pred);
    const term_store_t *ts = J->ts;
    for (uint32_t i = 0; i < term_arity(ts, l->atom); i++)
        if (!gprog_unbound(ts, term_arg(ts, l->atom, i), bound, NULL)) n /= nd[i];
    return n;
}

/* ---- plans ---- */

typedef struct {
    gjoin_t *J;
    const gp_rule_t *r;
    gplan_t *pl;
    bool *bound, *need, *used;
    uint32_t delta;
    bool derive, head_first;
} planner_t;

static uint8_t range_of(const planner_t *Q, uint32_t lit) {
    if (Q->delta == UINT32_MAX) return GR_ALL;
    return lit < Q->delta ? GR_OLD : lit == Q->delta ? GR_DELTA : GR_ALL;
}

static gstep_t *add_step(planner_t *Q, uint8_t op, uint32_t lit) {
    const gp_lit_t *l = &Q->r->body[lit];
    gstep_t *st = &Q->pl->steps[Q->pl->n_steps++];
    *st = (gstep_t){.op = op, .lit = lit, .index = GATOM_NONE, .range = GR_ALL, .est = 1};
    st->dyn = l->kind != GLIT_DISTINCT && !Q->J->P->preds[l->pred].is_static;
    if (op == GS_SCAN || op == GS_LOOKUP) st->range = range_of(Q, lit);
    Q->used[lit] = true;
    return st;
}

/* The pattern of an atom of a rule with nv variables: its variables renumbered 0.. in order
 * of first occurrence (a preorder walk), order[c] the rule's variable numbered c, m of them;
 * plain when every argument is a distinct variable (an index would hold every atom).
 * TERM_NONE when too deep to index. */
static term_t pattern_of(const gjoin_t *J, uint32_t nv, term_t atom, uint32_t *order, uint32_t *m,
                         bool *plain) {
    const term_store_t *ts = J->ts;
    term_t *cmap = xmalloc((nv + 1) * sizeof *cmap);
    for (uint32_t v = 0; v < nv; v++)
        cmap[v] = TERM_NONE;
    uint32_t stack[256], sp = 0;
    *m = 0, *plain = true;
    stack[sp++] = atom;
    while (sp) {
        term_t t = stack[--sp];
        if (term_is_ground(ts, t)) {
            *plain = false;
            continue;
        }
        if (term_is_var(ts, t)) {
            uint32_t v = term_sym(ts, t);
            if (cmap[v] == TERM_NONE) {
                cmap[v] = term_var(J->P->ts, *m);
                order[(*m)++] = v;
            } else {
                *plain = false;
            }
            continue;
        }
        if (t != atom) *plain = false;
        if (sp + term_arity(ts, t) > 256) { /* too deep to index: scan the predicate */
            free(cmap);
            return TERM_NONE;
        }
        for (uint32_t i = term_arity(ts, t); i-- > 0;)
            stack[sp++] = term_arg(ts, t, i);
    }
    term_t pattern = *m <= GINDEX_MAX_VARS ? term_subst(J->P->ts, atom, cmap) : TERM_NONE;
    free(cmap);
    return pattern;
}

/* The index a scan reads: its pattern, keyed by the variables bound when it is read. */
static void choose_index(planner_t *Q, gstep_t *st) {
    const gp_lit_t *l = &Q->r->body[st->lit];
    uint32_t *order = xmalloc((Q->r->n_vars + 1) * sizeof *order), m;
    bool plain;
    term_t pattern = pattern_of(Q->J, Q->r->n_vars, l->atom, order, &m, &plain);
    uint32_t mask = 0, n_key = 0;
    for (uint32_t c = 0; c < m && c < GINDEX_MAX_VARS; c++)
        if (Q->bound[order[c]]) mask |= 1u << c, n_key++;
    if (pattern != TERM_NONE && (mask || !plain) && st->range != GR_DELTA) {
        st->index = gatoms_index(Q->J->A, l->pred, pattern, m, mask);
        st->n_key = n_key;
        st->key_vars = xmalloc((n_key + 1) * sizeof *st->key_vars);
        for (uint32_t c = 0, k = 0; c < m; c++)
            if (mask >> c & 1) st->key_vars[k++] = order[c];
    }
    free(order);
}

/* Filters whose variables are bound, and positive literals wholly bound (lookups). */
static void add_ready(planner_t *Q) {
    const term_store_t *ts = Q->J->ts;
    for (uint32_t i = 0; i < Q->r->n_body; i++) {
        const gp_lit_t *l = &Q->r->body[i];
        if (Q->used[i] || gprog_unbound(ts, l->atom, Q->bound, NULL)) continue;
        if (l->kind == GLIT_DISTINCT) {
            add_step(Q, GS_DISTINCT, i);
        } else if (l->kind == GLIT_NEG) {
            if (Q->derive && !Q->J->P->preds[l->pred].is_static)
                Q->used[i] = true; /* relaxed: not read */
            else
                add_step(Q, GS_NEG, i);
        } else {
            double e = estimate(Q->J, l, Q->bound);
            add_step(Q, GS_LOOKUP, i)->est = e < 1 ? e : 1;
        }
    }
}

/* The next literal to read: the most selective (fewest expected candidates); on a tie one
 * that binds a variable the cut waits for. Head first: the most selective of those that
 * bind a variable the cut waits for, while there are any. */
static uint32_t pick(planner_t *Q) {
    uint32_t best = UINT32_MAX;
    double best_est = 0;
    bool best_needed = false;
    for (uint32_t i = 0; i < Q->r->n_body; i++) {
        const gp_lit_t *l = &Q->r->body[i];
        if (Q->used[i] || l->kind != GLIT_POS) continue;
        bool needed = gprog_unbound(Q->J->ts, l->atom, Q->bound, Q->need) > 0;
        double e = estimate(Q->J, l, Q->bound);
        bool better = Q->head_first && needed != best_needed
                          ? needed
                          : e < best_est || (e == best_est && needed && !best_needed);
        if (best == UINT32_MAX || better) best = i, best_est = e, best_needed = needed;
    }
    return best;
}

static void bind_step(planner_t *Q, gstep_t *st) {
    const term_store_t *ts = Q->J->ts;
    bool *now = xcalloc(Q->r->n_vars + 1, sizeof *now);
    gprog_mark_vars(ts, Q->r->body[st->lit].atom, now);
    for (uint32_t v = 0; v < Q->r->n_vars; v++) {
        if (!now[v] || Q->bound[v]) continue;
        Q->bound[v] = true;
        if (Q->need[v]) st->binds_need++;
    }
    free(now);
}

/* Derive: at each step where a variable bound before it is read no more (neither by later
 * steps nor by the head), the bindings that agree on the variables still read lead to the
 * same heads: the step records those variables, and the enumeration visits each of their
 * values once (a join projected as it goes: chains of sums stay polynomial). */
static void plan_memo(gjoin_t *J, const gp_rule_t *r, gplan_t *pl) {
    uint32_t nv = r->n_vars;
    bool *bound = xcalloc(nv + 1, sizeof *bound), *live = xmalloc(nv + 1);
    for (uint32_t s = 0; s < pl->n_steps; s++) {
        memset(live, 0, nv);
        gprog_mark_vars(J->ts, r->head, live);
        for (uint32_t t = s; t < pl->n_steps; t++)
            gprog_mark_vars(J->ts, r->body[pl->steps[t].lit].atom, live);
        bool dead = false;
        uint32_t n = 0;
        for (uint32_t v = 0; v < nv; v++)
            dead |= bound[v] && !live[v], n += bound[v] && live[v];
        gstep_t *st = &pl->steps[s];
        if (dead) {
            st->memo = xmalloc((n + 1) * sizeof *st->memo);
            for (uint32_t v = 0; v < nv; v++)
                if (bound[v] && live[v]) st->memo[st->n_memo++] = v;
        }
        if (st->op == GS_SCAN) gprog_mark_vars(J->ts, r->body[st->lit].atom, bound);
    }
    free(bound), free(live);
}

/* Per variable of r, the fewest distinct values it takes as an argument of a positive
 * literal (INFINITY when only nested in terms). */
static double *var_domains(gjoin_t *J, const gp_rule_t *r) {
    const term_store_t *ts = J->ts;
    double *dom = xmalloc((r->n_vars + 1) * sizeof *dom);
    for (uint32_t v = 0; v < r->n_vars; v++)
        dom[v] = INFINITY;
    for (uint32_t i = 0; i < r->n_body; i++) {
        const gp_lit_t *l = &r->body[i];
        if (l->kind != GLIT_POS) continue;
        const double *nd = ndv_of(J, l->pred);
        for (uint32_t k = 0; k < term_arity(ts, l->atom); k++) {
            term_t a = term_arg(ts, l->atom, k);
            if (!term_is_var(ts, a)) continue;
            uint32_t v = term_sym(ts, a);
            if (nd[k] < dom[v]) dom[v] = nd[k];
        }
    }
    return dom;
}

static gplan_t *make_plan(gjoin_t *J, const gp_rule_t *r, uint32_t delta, bool derive,
                          bool head_first) {
    uint32_t nv = r->n_vars, nb = r->n_body;
    planner_t Q = {.J = J, .r = r, .delta = delta, .derive = derive, .head_first = head_first};
    Q.pl = xcalloc(1, sizeof *Q.pl);
    Q.pl->steps = xcalloc(nb + 1, sizeof *Q.pl->steps);
    Q.bound = xcalloc(nv + 1, sizeof *Q.bound);
    Q.need = xcalloc(nv + 1, sizeof *Q.need);
    Q.used = xcalloc(nb + 1, sizeof *Q.used);
    gprog_mark_vars(J->ts, r->head, Q.need);
    for (uint32_t i = 0; i < nb && !derive; i++)
        if (r->body[i].kind != GLIT_DISTINCT && !J->P->preds[r->body[i].pred].is_static)
            gprog_mark_vars(J->ts, r->body[i].atom, Q.need);
    Q.pl->sizes = xcalloc(nb + 1, sizeof *Q.pl->sizes);
    for (uint32_t i = 0; i < nb; i++)
        if (r->body[i].kind != GLIT_DISTINCT) Q.pl->sizes[i] = gatoms_of(J->A, r->body[i].pred)->n;
    if (delta != UINT32_MAX && !head_first) bind_step(&Q, add_step(&Q, GS_SCAN, delta));
    for (;;) {
        add_ready(&Q);
        uint32_t i = pick(&Q);
        if (i == UINT32_MAX) break;
        double e = estimate(J, &r->body[i], Q.bound);
        gstep_t *st = add_step(&Q, GS_SCAN, i);
        st->est = e;
        choose_index(&Q, st);
        bind_step(&Q, st);
    }
    for (uint32_t i = 0; i < nb; i++) /* unsafe filters (validation rejects them): last */
        if (!Q.used[i]) add_step(&Q, r->body[i].kind == GLIT_DISTINCT ? GS_DISTINCT : GS_NEG, i);
    /* the cut: the tail of steps that bind nothing the cut waits for (and, for instances,
     * record no literal of the ground rule) */
    uint32_t cut = Q.pl->n_steps;
    while (cut > 0) {
        const gstep_t *st = &Q.pl->steps[cut - 1];
        if (st->binds_need || (!derive && st->dyn)) break;
        cut--;
    }
    Q.pl->cut = cut;
    if (derive) plan_memo(J, r, Q.pl);
    double *dom = var_domains(J, r), prod = 1;
    for (uint32_t s = 0; s < Q.pl->n_steps; s++) {
        const gstep_t *st = &Q.pl->steps[s];
        double states = 1; /* a step is entered once per state (plan_memo) */
        for (uint32_t k = 0; k < st->n_memo; k++)
            states *= dom[st->memo[k]];
        if (st->memo && states < prod) prod = states;
        prod *= st->est, Q.pl->work_all += prod;
        if (!head_first || s < cut) Q.pl->work += prod;
        if (s + 1 == cut) Q.pl->heads = prod;
    }
    if (cut == 0) Q.pl->heads = 1;
    free(dom);
    free(Q.bound), free(Q.need), free(Q.used);
    return Q.pl;
}

/* The cached plan of slot k of rule r, made again when a relation it reads grew a lot. */
static const gplan_t *plan_for(gjoin_t *J, uint32_t ri, uint32_t k, uint32_t delta, bool derive,
                               bool head_first) {
    if (ri >= J->n_plans) {
        uint32_t n = J->P->n_rules + 16;
        J->plans = xrecalloc(J->plans, J->n_plans, n, sizeof *J->plans);
        J->plan_slots = xrecalloc(J->plan_slots, J->n_plans, n, sizeof *J->plan_slots);
        J->n_plans = n;
    }
    const gp_rule_t *r = &J->P->rules[ri];
    if (!J->plans[ri]) {
        J->plans[ri] = xcalloc(2 * r->n_body + 3, sizeof **J->plans);
        J->plan_slots[ri] = 2 * r->n_body + 3;
    }
    gplan_t *pl = J->plans[ri][k];
    if (pl) {
        bool grew = false;
        for (uint32_t i = 0; i < r->n_body && !grew; i++)
            grew = r->body[i].kind != GLIT_DISTINCT &&
                   gatoms_of(J->A, r->body[i].pred)->n > 2 * pl->sizes[i] + 16;
        if (!grew) return pl;
        plan_free(pl);
    }
    return J->plans[ri][k] = make_plan(J, r, delta, derive, head_first);
}

/* ---- enumeration ---- */

static void tick(gjoin_t *J) {
    if (++J->work > J->max_work && J->max_work) J->stop = J->out_of_work = true;
    if ((J->work & 4095) == 0 && J->deadline > 0 && now_seconds() > J->deadline)
        J->stop = J->out_of_time = true;
}

static bool in_range(const gjoin_t *J, uint8_t range, uint32_t id) {
    return range == GR_OLD     ? id < J->lo
           : range == GR_DELTA ? id >= J->lo && id < J->hi
                               : id < J->hi;
}

static uint32_t lookup(const gjoin_t *J, term_t atom) {
    return gatoms_find(J->A, term_find_subst(J->ts, atom, J->b.val));
}

/* Whether two terms are equal under the binding (both sides fully bound). */
static bool equal_under(const term_store_t *ts, term_t a, term_t b, const term_t *map) {
    if (term_is_var(ts, a)) a = map[term_sym(ts, a)];
    if (term_is_var(ts, b)) b = map[term_sym(ts, b)];
    if (a == b) return a != TERM_NONE;
    if (a == TERM_NONE || b == TERM_NONE) return false;
    if (term_is_ground(ts, a) && term_is_ground(ts, b)) return false;
    if (term_kind(ts, a) != TERM_FUN || term_kind(ts, b) != TERM_FUN ||
        term_sym(ts, a) != term_sym(ts, b) || term_arity(ts, a) != term_arity(ts, b))
        return false;
    for (uint32_t i = 0; i < term_arity(ts, a); i++)
        if (!equal_under(ts, term_arg(ts, a, i), term_arg(ts, b, i), map)) return false;
    return true;
}

static bool head_known(const gjoin_t *J) {
    return gatoms_find(J->A, term_find_subst(J->ts, J->rule->head, J->b.val)) != GATOM_NONE;
}

static bool run(gjoin_t *J, uint32_t s);

/* One candidate atom of a scan: returns whether the levels from the cut on are done. */
static bool try_atom(gjoin_t *J, uint32_t s, term_t pat, uint32_t id) {
    uint32_t mark = bind_mark(&J->b);
    bool done = false;
    tick(J);
    if (bind_match(&J->b, J->ts, pat, J->A->term[id])) {
        J->matched[s] = id;
        done = run(J, s + 1) && s >= J->plan->cut;
    }
    bind_undo(&J->b, mark);
    return done;
}

static bool scan(gjoin_t *J, uint32_t s, const gstep_t *st, const gp_lit_t *l) {
    uint32_t limit = st->range == GR_OLD ? J->lo : J->hi;
    if (st->index == GATOM_NONE) {
        const gids_t *ids = gatoms_of(J->A, l->pred);
        uint32_t k = st->range == GR_DELTA ? gatoms_lower(ids, J->lo) : 0;
        for (; k < ids->n && !J->stop; k++, ids = gatoms_of(J->A, l->pred)) {
            uint32_t id = ids->ids[k];
            if (id >= limit) break;
            if (try_atom(J, s, l->atom, id)) return true;
        }
        return false;
    }
    term_t vals[GINDEX_MAX_VARS];
    for (uint32_t k = 0; k < st->n_key; k++)
        vals[k] = J->b.val[st->key_vars[k]];
    for (uint32_t e = gatoms_group(J->A, gatoms_key(st->index, vals, st->n_key)); e && !J->stop;
         e = J->A->ent[e].next) {
        uint32_t id = J->A->ent[e].atom;
        if (id >= limit) break;
        if (try_atom(J, s, l->atom, id)) return true;
    }
    return false;
}

/* Steps s.. of the plan; returns whether a binding was completed (which, past the cut,
 * ends the enumeration back to the cut). */
static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

typedef struct {
    const gjoin_t *J;
    const gstep_t *st;
    uint32_t s, hash;
} seen_key_t;

static bool seen_same(const void *ctx, uint32_t id) {
    const seen_key_t *k = ctx;
    const gjoin_t *J = k->J;
    if (J->seen_hash[id] != k->hash) return false;
    const term_t *v = J->seen_vals + J->seen_at[id];
    for (uint32_t q = 0; q < k->st->n_memo; q++)
        if (v[q] != J->b.val[k->st->memo[q]]) return false;
    return v[k->st->n_memo] == k->s;
}

static uint32_t seen_hash_of(const void *ctx, uint32_t id) {
    const gjoin_t *J = ctx;
    return J->seen_hash[id];
}

/* Whether step s was entered before with the same values of its state's variables
 * (recording them when not). */
static bool visited(gjoin_t *J, uint32_t s, const gstep_t *st) {
    uint64_t h = mix(s + 1);
    for (uint32_t k = 0; k < st->n_memo; k++)
        h = mix(h ^ J->b.val[st->memo[k]]);
    seen_key_t key = {J, st, s, (uint32_t)h};
    htab_reserve(&J->seen, seen_hash_of, J);
    uint32_t *slot = htab_probe(&J->seen, key.hash, seen_same, &key);
    if (*slot) return true;
    uint32_t id = J->seen.n;
    if (id >= J->seen_cap) {
        GROW(J->seen_hash, J->seen_cap, (size_t)id + 1);
        J->seen_at = xrealloc(J->seen_at, J->seen_cap * sizeof *J->seen_at);
    }
    GROW(J->seen_vals, J->vals_cap, J->vals_n + st->n_memo + 1);
    J->seen_hash[id] = key.hash;
    J->seen_at[id] = (uint32_t)J->vals_n;
    for (uint32_t k = 0; k < st->n_memo; k++)
        J->seen_vals[J->vals_n++] = J->b.val[st->memo[k]];
    J->seen_vals[J->vals_n++] = s;
    htab_fill(&J->seen, slot, id);
    return false;
}

static bool run(gjoin_t *J, uint32_t s) {
    tick(J);
    if (J->stop) return false;
    const gplan_t *pl = J->plan;
    if (J->derive && s < pl->n_steps && pl->steps[s].memo && visited(J, s, &pl->steps[s]))
        return false;
    if (J->derive && s == pl->cut && head_known(J)) return false;
    if (s == pl->n_steps) {
        J->emit(J->arg, J);
        return true;
    }
    const gstep_t *st = &pl->steps[s];
    const gp_lit_t *l = &J->rule->body[st->lit];
    const term_store_t *ts = J->ts;
    uint32_t id;
    switch (st->op) {
    case GS_DISTINCT:
        if (equal_under(ts, term_arg(ts, l->atom, 0), term_arg(ts, l->atom, 1), J->b.val))
            return false;
        break;
    case GS_NEG:
        id = lookup(J, l->atom);
        if (!st->dyn && id != GATOM_NONE) return false;
        J->matched[s] = id;
        break;
    case GS_LOOKUP:
        id = lookup(J, l->atom);
        if (id == GATOM_NONE || !in_range(J, st->range, id)) return false;
        J->matched[s] = id;
        break;
    default:
        return scan(J, s, st, l);
    }
    return run(J, s + 1) && s >= pl->cut;
}

static void start(gjoin_t *J, uint32_t ri, const gplan_t *pl) {
    const gp_rule_t *r = &J->P->rules[ri];
    size_t need = (size_t)r->n_vars + r->n_body + 1;
    if (need > J->cap_map) {
        J->cap_map = need;
        J->b.val = xrealloc(J->b.val, need * sizeof *J->b.val);
        J->b.trail = xrealloc(J->b.trail, need * sizeof *J->b.trail);
        J->matched = xrealloc(J->matched, need * sizeof *J->matched);
    }
    for (uint32_t v = 0; v < r->n_vars; v++)
        J->b.val[v] = TERM_NONE;
    J->b.n_trail = 0;
    J->rule = r;
    J->plan = pl;
    htab_clear(&J->seen); /* a new enumeration: forget the states */
    J->vals_n = 0;
    run(J, 0);
}

/* Whether literal k shares no variable with the rule's head (none: no variable bound). */
static bool apart_from_head(const gjoin_t *J, const gp_rule_t *r, uint32_t k, const bool *none) {
    bool *in_head = xcalloc(r->n_vars + 1, sizeof *in_head);
    gprog_mark_vars(J->ts, r->head, in_head);
    bool apart = !gprog_unbound(J->ts, r->body[k].atom, none, in_head);
    free(in_head);
    return apart;
}

/* Whether a semi-naive round of rule ri should visit the candidate heads again rather than
 * read the new atoms (delta: the literals with some) first. Only when new atoms bind no head
 * variable, nearly every candidate head is known already (at most a tenth is not: each
 * unknown one costs a witness search, round after round) and the visit looks cheaper: a
 * frame rule whose heads all exist (chess: 36.7 million steps the one way). Where most
 * candidates stay unknown the visit costs every round what it cost the round before
 * (alexChess's interposition rules: 1-1.7 million steps a round, the estimates that chose
 * it off by 3-20 times). */
static bool heads_again(gjoin_t *J, uint32_t ri, const bool *delta) {
    const gp_rule_t *r = &J->P->rules[ri];
    bool *none = xcalloc(r->n_vars + 1, sizeof *none), apart = false;
    double delta_work = 0;
    for (uint32_t k = 0; k < r->n_body; k++) {
        if (!delta[k]) continue;
        apart |= apart_from_head(J, r, k, none);
        const gids_t *ids = gatoms_of(J->A, r->body[k].pred);
        uint32_t n_new = gatoms_lower(ids, J->hi) - gatoms_lower(ids, J->lo);
        /* the new atoms that match the literal: in proportion to its selectivity */
        double match = estimate(J, &r->body[k], none) / ids->n;
        delta_work += n_new * match * plan_for(J, ri, k, k, true, false)->work;
    }
    free(none);
    if (!apart) return false;
    const gplan_t *heads = plan_for(J, ri, r->n_body, UINT32_MAX, true, true);
    if (heads->work >= delta_work) return false;
    /* the known atoms of the head's shape (an index of them: exact, kept up to date) */
    uint32_t *order = xmalloc((r->n_vars + 1) * sizeof *order), m;
    bool plain;
    term_t pattern = pattern_of(J, r->n_vars, r->head, order, &m, &plain);
    double known = gatoms_of(J->A, r->pred)->n;
    if (pattern != TERM_NONE && !plain) { /* (made first: it may move the indexes) */
        uint32_t ix = gatoms_index(J->A, r->pred, pattern, m, 0);
        known = J->A->idx[ix].n_entries;
    }
    free(order);
    double unknown = heads->heads - known;
    if (unknown > heads->heads / 100) return false;
    double witness = heads->heads > 0 ? (heads->work_all - heads->work) / heads->heads : 0;
    return heads->work + (unknown > 0 ? unknown : 0) * witness < delta_work;
}

/* The plan of a semi-naive round for new atoms of literal k: read first; or, when the
 * literal binds no head variable and its new atoms outnumber the candidate heads by far, read
 * last, as a witness of each candidate head not known yet (the heads from the other
 * literals): the frame rule of chess's cells read each new move against every cell, 12
 * million steps a round, where the cells are 1,617 and all but a few known. */
static const gplan_t *delta_plan(gjoin_t *J, uint32_t ri, uint32_t k) {
    const gp_rule_t *r = &J->P->rules[ri];
    bool *none = xcalloc(r->n_vars + 1, sizeof *none);
    bool apart = apart_from_head(J, r, k, none);
    free(none);
    if (apart) {
        const gids_t *ids = gatoms_of(J->A, r->body[k].pred);
        double n_new = gatoms_lower(ids, J->hi) - gatoms_lower(ids, J->lo);
        const gplan_t *w = plan_for(J, ri, r->n_body + 3 + k, k, true, true);
        bool after_cut = false; /* (read as a witness indeed) */
        for (uint32_t s = w->cut; s < w->n_steps; s++)
            after_cut |= w->steps[s].lit == k;
        if (after_cut && n_new > 4 * (w->heads + 1)) return w;
    }
    return plan_for(J, ri, k, k, true, false);
}

void gjoin_derive(gjoin_t *J, uint32_t ri, uint32_t lo, uint32_t hi, gjoin_emit_fn emit,
                  void *arg) {
    const gp_rule_t *r = &J->P->rules[ri];
    J->lo = lo, J->hi = hi, J->derive = true, J->emit = emit, J->arg = arg;
    if (lo == 0) {
        /* every binding at once: the candidate heads, each unknown one searched for a
         * witness, or the body in the order that binds fastest when the states it passes
         * through are fewer (a chain of sums) */
        const gplan_t *heads = plan_for(J, ri, r->n_body, UINT32_MAX, true, true);
        const gplan_t *all = plan_for(J, ri, r->n_body + 2, UINT32_MAX, true, false);
        start(J, ri, all->work < heads->work_all ? all : heads);
        return;
    }
    /* Semi-naive: only bindings that read a new atom (id in [lo, hi)) can give a new head.
     * Each positive literal with new atoms is read first over them, those before it over
     * the old atoms only (a binding with several new atoms is found once), those after it
     * over all; or the candidate heads are visited again (heads_again). */
    bool *delta = xcalloc(r->n_body + 1, sizeof *delta);
    for (uint32_t k = 0; k < r->n_body; k++) {
        if (r->body[k].kind != GLIT_POS) continue;
        const gids_t *ids = gatoms_of(J->A, r->body[k].pred);
        uint32_t at = gatoms_lower(ids, lo);
        delta[k] = at < ids->n && ids->ids[at] < hi;
    }
    if (heads_again(J, ri, delta)) {
        J->lo = 0;
        start(J, ri, plan_for(J, ri, r->n_body, UINT32_MAX, true, true));
    } else {
        for (uint32_t k = 0; k < r->n_body && !J->stop; k++)
            if (delta[k]) start(J, ri, delta_plan(J, ri, k));
    }
    free(delta);
}

void gjoin_instances(gjoin_t *J, uint32_t ri, gjoin_emit_fn emit, void *arg) {
    const gp_rule_t *r = &J->P->rules[ri];
    J->lo = 0, J->hi = J->A->n, J->derive = false, J->emit = emit, J->arg = arg;
    start(J, ri, plan_for(J, ri, r->n_body + 1, UINT32_MAX, false, false));
}
