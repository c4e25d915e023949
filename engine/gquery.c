/* Hybrid grounding, the cut: see gquery.h. */
#include "engine/gquery.h"

#include <stdlib.h>
#include <string.h>

/* The rules that count: those of relevant relations, not the grounder's transfers. */
static bool counts(const gprog_t *P, const gp_rule_t *r) {
    return P->preds[r->pred].relevant && !r->transfer;
}

/* Marks in dep the relations that read, directly or not, one marked in seed, within a state
 * (through rules, not through the transfers from one state to the next). */
static void depends(const gprog_t *P, const bool *seed, bool *dep) {
    memcpy(dep, seed, P->n_preds * sizeof *dep);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < P->n_rules; i++) {
            const gp_rule_t *r = &P->rules[i];
            if (dep[r->pred] || r->transfer) continue;
            for (uint32_t j = 0; j < r->n_body && !dep[r->pred]; j++)
                if (r->body[j].kind != GLIT_DISTINCT && dep[r->body[j].pred])
                    dep[r->pred] = changed = true;
        }
    }
}

/* Whether the positive literals of r over relations outside dep bind every variable of t. */
static bool binds(const gprog_t *P, const gp_rule_t *r, term_t t, const bool *dep) {
    bool *bound = xcalloc(r->n_vars + 1, sizeof *bound);
    for (uint32_t j = 0; j < r->n_body; j++)
        if (r->body[j].kind == GLIT_POS && !dep[r->body[j].pred])
            gprog_mark_vars(P->ts, r->body[j].atom, bound);
    bool ok = gprog_unbound(P->ts, t, bound, NULL) == 0;
    free(bound);
    return ok;
}

/* Whether every rule of x binds its head without the cluster: x's atoms are then what
 * those literals allow. */
static bool own_bound(const gprog_t *P, uint32_t x, const bool *dep) {
    const gp_pred_t *pr = &P->preds[x];
    for (uint32_t k = 0; k < pr->n_rules; k++) {
        const gp_rule_t *r = &P->rules[pr->rules[k]];
        if (!r->transfer && !binds(P, r, r->head, dep)) return false;
    }
    return true;
}

/* Lifts the readers outside the cluster that read x with variables nothing independent of
 * the cluster binds (every reader when x is static: a static boundary's readers would be
 * computed as exact over atoms that only may hold); false when one of them is an
 * interface relation. */
static bool lift_readers(const gprog_t *P, uint32_t x, const bool *dep, bool *lifted, bool *changed,
                         uint32_t *bad) {
    bool all = P->preds[x].is_static;
    for (uint32_t i = 0; i < P->n_rules; i++) {
        const gp_rule_t *r = &P->rules[i];
        if (!counts(P, r) || lifted[r->pred]) continue;
        for (uint32_t j = 0; j < r->n_body; j++) {
            const gp_lit_t *l = &r->body[j];
            if (l->kind == GLIT_DISTINCT || l->pred != x || (!all && binds(P, r, l->atom, dep)))
                continue;
            if (gprog_is_interface(P, r->pred)) {
                *bad = r->pred;
                return false;
            }
            lifted[r->pred] = *changed = true;
            break;
        }
    }
    return true;
}

/* Whether a lifted relation depends on does (the query reads the state alone). */
static bool reads_moves(const gprog_t *P, const bool *lifted) {
    if (P->p_does == UINT32_MAX) return false;
    bool *seed = xcalloc(P->n_preds + 1, sizeof *seed),
         *dep = xmalloc((P->n_preds + 1) * sizeof *dep);
    seed[P->p_does] = true;
    depends(P, seed, dep);
    bool any = false;
    for (uint32_t p = 0; p < P->n_preds; p++)
        any = any || (lifted[p] && dep[p]);
    free(seed), free(dep);
    return any;
}

static const char *name(const gprog_t *P, uint32_t p) {
    return term_sym_name(P->ts, P->preds[p].sym);
}

/* The boundary: lifted relations that rules outside the cluster read. */
static void mark_boundary(const gprog_t *P, gquery_cut_t *cut) {
    for (uint32_t i = 0; i < P->n_rules; i++) {
        const gp_rule_t *r = &P->rules[i];
        if (!counts(P, r) || cut->lifted[r->pred]) continue;
        for (uint32_t j = 0; j < r->n_body; j++)
            if (r->body[j].kind != GLIT_DISTINCT && cut->lifted[r->body[j].pred])
                cut->boundary[r->body[j].pred] = true;
    }
    cut->n_lifted = cut->n_boundary = 0;
    for (uint32_t p = 0; p < P->n_preds; p++)
        cut->n_lifted += cut->lifted[p], cut->n_boundary += cut->boundary[p];
}

/* A boundary the network can read through query nodes: not static (its readers would be
 * computed as exact) and a relation of the game as written (the evaluator answers the
 * game's relations). */
static bool admissible(const gprog_t *P, const gquery_cut_t *cut, char *why, size_t n) {
    for (uint32_t p = 0; p < P->n_preds; p++) {
        if (!cut->boundary[p]) continue;
        if (P->preds[p].is_static ||
            game_pred(P->g, P->preds[p].sym, P->preds[p].arity) == UINT32_MAX) {
            snprintf(why, n, "the boundary %s/%u is static or rewritten", name(P, p),
                     P->preds[p].arity);
            return false;
        }
    }
    if (reads_moves(P, cut->lifted)) {
        snprintf(why, n, "the lifted cluster depends on does");
        return false;
    }
    if (!cut->n_boundary) {
        snprintf(why, n, "nothing outside the cluster reads it");
        return false;
    }
    return true;
}

bool gquery_cut(const gprog_t *P, uint32_t blew, gquery_cut_t *cut, char *why, size_t n) {
    uint32_t np = P->n_preds;
    *cut = (gquery_cut_t){.n_preds = np, .blew = blew};
    cut->lifted = xcalloc(np + 1, sizeof *cut->lifted);
    cut->boundary = xcalloc(np + 1, sizeof *cut->boundary);
    bool *dep = xmalloc((np + 1) * sizeof *dep);
    if (P->n_wild) { /* query atoms could hold the wildcard, which the rules evaluator
                      * does not know (gany.h) */
        snprintf(why, n, "the program reads wildcard arguments");
        free(dep);
        return false;
    }
    if (gprog_is_interface(P, blew) || blew == P->p_true || blew == P->p_does) {
        snprintf(why, n, "%s/%u is read by the interface", name(P, blew), P->preds[blew].arity);
        free(dep);
        return false;
    }
    cut->lifted[blew] = true;
    bool ok = true;
    for (bool changed = true; changed && ok;) {
        changed = false;
        depends(P, cut->lifted, dep);
        for (uint32_t x = 0; x < np && ok; x++) {
            bool boundary = x != blew && !P->preds[x].is_static && own_bound(P, x, dep);
            if (!cut->lifted[x] || boundary) continue;
            uint32_t bad = UINT32_MAX;
            ok = lift_readers(P, x, dep, cut->lifted, &changed, &bad);
            if (!ok)
                snprintf(why, n, "the interface relation %s/%u reads %s/%u unbound", name(P, bad),
                         P->preds[bad].arity, name(P, x), P->preds[x].arity);
        }
    }
    free(dep);
    if (!ok) return false;
    mark_boundary(P, cut);
    return admissible(P, cut, why, n);
}

void gquery_cut_fini(gquery_cut_t *cut) {
    free(cut->lifted), free(cut->boundary);
    *cut = (gquery_cut_t){0};
}

/* A transfer rule head <= the positive literals of r over relations outside dep. */
static void add_transfer(gprog_t *P, uint32_t ri, term_t head, const bool *dep) {
    const gp_rule_t *r = &P->rules[ri];
    gp_lit_t *body = xmalloc((r->n_body + 1) * sizeof *body);
    uint32_t m = 0, n_vars = r->n_vars;
    for (uint32_t j = 0; j < r->n_body; j++)
        if (r->body[j].kind == GLIT_POS && !dep[r->body[j].pred]) body[m++] = r->body[j];
    gprog_add(P, head, body, m, n_vars, true);
    free(body);
}

/* The atoms of boundary relation x the network may read, as transfer rules: x's own rules
 * where they bind their heads, else what each reader asks for. */
static void boundary_transfers(gprog_t *P, const gquery_cut_t *cut, uint32_t x, const bool *dep) {
    uint32_t n_rules = P->n_rules;
    if (x != cut->blew && !P->preds[x].is_static && own_bound(P, x, dep)) {
        const gp_pred_t *pr = &P->preds[x];
        uint32_t k_end = pr->n_rules;
        for (uint32_t k = 0; k < k_end; k++) {
            uint32_t ri = P->preds[x].rules[k];
            if (!P->rules[ri].transfer) add_transfer(P, ri, P->rules[ri].head, dep);
        }
        return;
    }
    for (uint32_t i = 0; i < n_rules; i++) {
        if (!counts(P, &P->rules[i]) || cut->lifted[P->rules[i].pred]) continue;
        for (uint32_t j = 0; j < P->rules[i].n_body; j++) {
            const gp_lit_t *l = &P->rules[i].body[j];
            if (l->kind != GLIT_DISTINCT && l->pred == x) add_transfer(P, i, l->atom, dep);
        }
    }
}

void gquery_apply(gprog_t *P, const gquery_cut_t *cut) {
    uint32_t np = cut->n_preds < P->n_preds ? cut->n_preds : P->n_preds, n_rules = P->n_rules;
    bool *dep = xcalloc(P->n_preds + 1, sizeof *dep);
    depends(P, cut->lifted, dep);
    bool *old = xcalloc(n_rules + 1, sizeof *old); /* the rules the cluster had */
    for (uint32_t i = 0; i < n_rules; i++)
        old[i] = P->rules[i].pred < np && cut->lifted[P->rules[i].pred];
    for (uint32_t x = 0; x < np; x++)
        if (cut->boundary[x]) boundary_transfers(P, cut, x, dep);
    for (uint32_t i = 0; i < n_rules; i++) { /* out of the program: no body, no list */
        if (!old[i]) continue;
        P->rules[i].n_body = 0;
        P->rules[i].transfer = true;
    }
    for (uint32_t x = 0; x < np; x++) {
        if (!cut->lifted[x]) continue;
        gp_pred_t *pr = &P->preds[x];
        uint32_t k = 0;
        for (uint32_t i = 0; i < pr->n_rules; i++)
            if (pr->rules[i] >= n_rules) pr->rules[k++] = pr->rules[i];
        pr->n_rules = k;
        pr->is_static = pr->is_static && !cut->boundary[x];
    }
    free(old), free(dep);
    gprog_refresh(P);
}

void gquery_report(FILE *f, const gprog_t *P, const gquery_cut_t *cut) {
    fprintf(f, "ground: hybrid: %u relations left lifted from %s/%u:", cut->n_lifted,
            name(P, cut->blew), P->preds[cut->blew].arity);
    for (uint32_t p = 0; p < cut->n_preds; p++)
        if (cut->lifted[p]) fprintf(f, " %s/%u", name(P, p), P->preds[p].arity);
    fprintf(f, "; queried:");
    for (uint32_t p = 0; p < cut->n_preds; p++)
        if (cut->boundary[p]) fprintf(f, " %s/%u", name(P, p), P->preds[p].arity);
    fprintf(f, "\n");
}
