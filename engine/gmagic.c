/* The demand transformation: see gmagic.h. */
#include "engine/gmagic.h"

#include <stdlib.h>
#include <string.h>

/* The positions of atom whose arguments are ground under bound, as a mask (arity <= 32). */
static uint32_t bound_positions(const term_store_t *ts, term_t atom, const bool *bound) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < term_arity(ts, atom) && i < 32; i++)
        if (!gprog_unbound(ts, term_arg(ts, atom, i), bound, NULL)) m |= 1u << i;
    return m;
}

typedef struct {
    gprog_t *P;
    uint32_t *adorn; /* per predicate: the positions its demand binds (0: computed in full) */
    bool *candidate;
} magic_t;

/* The order in which rule r's literals bind (its sideways information passing): from the
 * head's demanded positions, each time the positive literal with fewest unbound variables
 * (a literal that would bind many reads like a generator: demand bound by it asks for
 * everything, and a demand rule reading several such is a cross product), the first written
 * on a tie; negations and distinct last. Fills order and, for each literal, the positions bound
 * when it is read. */
static void sips(const magic_t *M, const gp_rule_t *r, uint32_t *order, uint32_t *mask) {
    const term_store_t *ts = M->P->ts;
    bool *bound = xcalloc(r->n_vars + 1, sizeof *bound), *used = xcalloc(r->n_body + 1, 1);
    uint32_t ha = M->adorn[r->pred], n = 0;
    for (uint32_t i = 0; i < term_arity(ts, r->head) && i < 32; i++)
        if (ha >> i & 1) gprog_mark_vars(ts, term_arg(ts, r->head, i), bound);
    for (;;) {
        uint32_t best = UINT32_MAX;
        int64_t best_score = 0;
        for (uint32_t i = 0; i < r->n_body; i++) {
            if (used[i] || r->body[i].kind != GLIT_POS) continue;
            term_t a = r->body[i].atom;
            int64_t score = -(int64_t)gprog_unbound(ts, a, bound, NULL);
            if (best == UINT32_MAX || score > best_score) best = i, best_score = score;
        }
        if (best == UINT32_MAX) break;
        used[best] = true;
        mask[best] = bound_positions(ts, r->body[best].atom, bound);
        order[n++] = best;
        gprog_mark_vars(ts, r->body[best].atom, bound);
    }
    for (uint32_t i = 0; i < r->n_body; i++)
        if (!used[i]) {
            order[n++] = i;
            mask[i] =
                r->body[i].kind == GLIT_DISTINCT ? 0 : bound_positions(ts, r->body[i].atom, bound);
        }
    free(bound), free(used);
}

/* Static relations read under negation, and what they depend on: computed in full. */
static void exclude_negated(magic_t *M) {
    gprog_t *P = M->P;
    bool *full = xcalloc(P->n_preds + 1, sizeof *full);
    for (uint32_t i = 0; i < P->n_rules; i++) {
        const gp_rule_t *r = &P->rules[i];
        if (!P->preds[r->pred].relevant) continue;
        for (uint32_t j = 0; j < r->n_body; j++)
            if (r->body[j].kind == GLIT_NEG && P->preds[r->body[j].pred].is_static)
                full[r->body[j].pred] = true;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < P->n_rules; i++) {
            const gp_rule_t *r = &P->rules[i];
            if (!full[r->pred]) continue;
            for (uint32_t j = 0; j < r->n_body; j++)
                if (r->body[j].kind != GLIT_DISTINCT && !full[r->body[j].pred])
                    full[r->body[j].pred] = changed = true;
        }
    }
    for (uint32_t p = 0; p < P->n_preds; p++)
        if (full[p]) M->candidate[p] = false;
    free(full);
}

/* Calls step on every relevant rule that skip (when given) does not pass over, with the
 * positions each literal's predicate is bound in when read (sips), in rule order, until
 * no step changes anything. */
typedef bool (*rule_skip_fn)(const magic_t *M, const gp_rule_t *r, const void *ctx);
typedef bool (*rule_step_fn)(magic_t *M, const gp_rule_t *r, const uint32_t *mask, void *ctx);
static void until_stable(magic_t *M, rule_skip_fn skip, rule_step_fn step, void *ctx) {
    gprog_t *P = M->P;
    uint32_t *order = NULL, *mask = NULL;
    size_t cap = 0, cap2 = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < P->n_rules; i++) {
            const gp_rule_t *r = &P->rules[i];
            if (!P->preds[r->pred].relevant || (skip && skip(M, r, ctx))) continue;
            GROW(order, cap, (size_t)r->n_body + 1);
            GROW(mask, cap2, (size_t)r->n_body + 1);
            sips(M, r, order, mask);
            if (step(M, r, mask, ctx)) changed = true;
        }
    }
    free(order), free(mask);
}

static bool reader_skip(const magic_t *M, const gp_rule_t *r, const void *ctx) {
    const bool *on = ctx;
    return on[r->pred] || gprog_is_interface(M->P, r->pred);
}

/* A reader binding nothing of a target's literal (its own demand unrestricted: adorn[r->pred]
 * is 0) is restricted too; and so is a static reader: the demand of the rules that read it
 * (the network's, bound by the state) binds more of the target's positions than its own
 * literals do. */
static bool reader_step(magic_t *M, const gp_rule_t *r, const uint32_t *mask, void *ctx) {
    bool *on = ctx, is_static = M->P->preds[r->pred].is_static;
    for (uint32_t j = 0; j < r->n_body; j++)
        if (r->body[j].kind != GLIT_DISTINCT && on[r->body[j].pred] && (!mask[j] || is_static))
            return on[r->pred] = true;
    return false;
}

/* A restricted literal's demand keeps only the positions bound wherever it is read. */
static bool adorn_step(magic_t *M, const gp_rule_t *r, const uint32_t *mask, void *ctx) {
    (void)ctx;
    bool changed = false;
    for (uint32_t j = 0; j < r->n_body; j++) {
        const gp_lit_t *l = &r->body[j];
        if (l->kind == GLIT_DISTINCT || !M->adorn[l->pred]) continue;
        uint32_t a = M->adorn[l->pred] & mask[j];
        if (a != M->adorn[l->pred]) M->adorn[l->pred] = a, changed = true;
    }
    return changed;
}

/* The targets, and the readers through which demand has to reach them: a reader whose rule
 * binds nothing of the target's literal unless its own head is bound (a static table read
 * by a static helper, say) is restricted too, up to the interface, and so is a static
 * reader. */
static void choose(magic_t *M, const bool *targets) {
    gprog_t *P = M->P;
    bool *on = xcalloc(P->n_preds + 1, sizeof *on);
    for (uint32_t p = 0; p < P->n_preds; p++)
        on[p] = !targets || targets[p];
    until_stable(M, reader_skip, reader_step, on);
    for (uint32_t p = 0; p < P->n_preds; p++) {
        const gp_pred_t *pr = &P->preds[p];
        M->candidate[p] = on[p] && pr->relevant && !gprog_is_interface(P, p) && p != P->p_true &&
                          p != P->p_does && pr->arity > 0 && pr->arity <= 32 && pr->n_rules > 0;
    }
    free(on);
    exclude_negated(M);
    for (uint32_t p = 0; p < P->n_preds; p++)
        M->adorn[p] = M->candidate[p] ? (uint32_t)((1ull << P->preds[p].arity) - 1) : 0;
    until_stable(M, NULL, adorn_step, NULL);
}

static term_t demand_atom(gprog_t *P, sym_t sym, uint32_t adorn, term_t atom) {
    term_t args[32];
    uint32_t n = 0;
    for (uint32_t i = 0; i < term_arity(P->ts, atom) && i < 32; i++)
        if (adorn >> i & 1) args[n++] = term_arg(P->ts, atom, i);
    return term_fun(P->ts, sym, args, n);
}

static gp_lit_t demand_lit(const magic_t *M, const uint32_t *mpred, uint32_t pred, term_t atom) {
    uint32_t m = mpred[pred];
    return (gp_lit_t){GLIT_POS, m, demand_atom(M->P, M->P->preds[m].sym, M->adorn[pred], atom)};
}

/* The demand rules of rule ri (one per literal of a restricted relation), then its own
 * demand read first. */
static void rewrite_rule(magic_t *M, const uint32_t *mpred, uint32_t ri) {
    gprog_t *P = M->P;
    const gp_rule_t *r = &P->rules[ri];
    uint32_t n = r->n_body, nv = r->n_vars, head_pred = r->pred;
    uint32_t *order = xmalloc((n + 1) * sizeof *order), *mask = xmalloc((n + 1) * sizeof *mask);
    sips(M, r, order, mask);
    gp_lit_t *body = xmalloc((n + 2) * sizeof *body);
    term_t head = r->head;
    bool restricted_head = M->adorn[head_pred] != 0;
    for (uint32_t k = 0; k < n; k++) {
        const gp_lit_t *l = &P->rules[ri].body[order[k]];
        if (l->kind == GLIT_DISTINCT || !M->adorn[l->pred]) continue;
        uint32_t m = 0;
        if (restricted_head) body[m++] = demand_lit(M, mpred, head_pred, head);
        for (uint32_t q = 0; q < k; q++)
            if (P->rules[ri].body[order[q]].kind == GLIT_POS)
                body[m++] = P->rules[ri].body[order[q]];
        gp_lit_t want = demand_lit(M, mpred, l->pred, l->atom);
        gprog_add(P, want.atom, body, m, nv, true);
    }
    if (restricted_head) {
        gp_rule_t *w = &P->rules[ri];
        body[0] = demand_lit(M, mpred, head_pred, head);
        for (uint32_t j = 0; j < w->n_body; j++)
            body[j + 1] = w->body[j];
        free(w->body);
        w->body = xmalloc((w->n_body + 2) * sizeof *w->body);
        memcpy(w->body, body, (w->n_body + 1) * sizeof *body);
        w->n_body++;
    }
    free(order), free(mask), free(body);
}

uint32_t gmagic_apply(gprog_t *P, const bool *targets, bool *restricted_out) {
    magic_t M = {.P = P};
    uint32_t np = P->n_preds, restricted = 0;
    M.adorn = xcalloc(np + 1, sizeof *M.adorn);
    M.candidate = xcalloc(np + 1, sizeof *M.candidate);
    choose(&M, targets);
    uint32_t *mpred = xmalloc((np + 1) * sizeof *mpred);
    for (uint32_t p = 0; p < np; p++) {
        mpred[p] = UINT32_MAX;
        if (restricted_out) restricted_out[p] = M.adorn[p] != 0;
        if (!M.adorn[p]) continue;
        mpred[p] = gprog_aux(P, (uint32_t)__builtin_popcount(M.adorn[p]), true);
        P->preds[mpred[p]].demand = true;
        restricted++;
    }
    /* adornments of the new predicates: none (they are never restricted) */
    M.adorn = xrecalloc(M.adorn, np, P->n_preds + 1, sizeof *M.adorn);
    uint32_t n_rules = P->n_rules;
    for (uint32_t i = 0; i < n_rules && restricted; i++)
        if (P->preds[P->rules[i].pred].relevant && !P->rules[i].transfer)
            rewrite_rule(&M, mpred, i);
    free(M.adorn), free(M.candidate), free(mpred);
    if (restricted) gprog_order(P);
    return restricted;
}
