/* Wildcard arguments: see gany.h. */
#include "engine/gany.h"

#include <stdlib.h>
#include <string.h>

#include "base/keyset.h"

#define NONE UINT32_MAX
#define MAX_DIMS 6 /* a rule is copied at most 2^6 times */
#define MAX_PATS 32
#define PASSD (UINT32_MAX - 1) /* a choice: a passed variable read as * or not */

typedef struct {
    gprog_t *p;
    uint32_t np;
    uint64_t *abs;    /* per predicate: its wildcard positions (all candidates at first) */
    uint32_t **type;  /* per predicate and position: the type's predicate (NONE: none yet) */
    uint32_t **next;  /* the same, this round */
    bool **prod;      /* per predicate and position: some rule puts * there */
    uint64_t **pats;  /* per predicate: which of its positions are * together, as derived */
    uint32_t *n_pats; /* (MAX_PATS or more: any) */
    term_t any;
    bool changed;
    bool limit; /* rules read both ways too many times lose their positions */
} any_t;

/* Where a variable of a rule occurs. */
typedef struct {
    uint32_t head;     /* in the head */
    uint32_t conc;     /* in positive literals, not at a wildcard position (types included) */
    uint32_t wild;     /* at wildcard positions of positive literals */
    uint32_t wild_neg; /* at wildcard positions of negated literals */
    uint32_t other;    /* in negated literals or distinct otherwise */
    uint32_t n_types, type;
    bool mixed;      /* typed by two different tables */
    uint32_t wk, wj; /* its wildcard occurrence in a positive literal: literal, position */
} vinfo_t;

enum { K_PIN, K_FREE, K_PASS };

static bool is_abs(const any_t *A, uint32_t q, uint32_t j) {
    return q < A->np && j < 64 && (A->abs[q] >> j & 1); /* no mask past 64 arguments */
}

static void unabs(any_t *A, uint32_t q, uint32_t j) {
    if (!is_abs(A, q, j)) return;
    A->abs[q] &= ~(1ull << j);
    A->changed = true;
}

static void mark_nested(const term_store_t *ts, term_t t, vinfo_t *v, bool conc) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        vinfo_t *x = &v[term_sym(ts, t)];
        if (conc)
            x->conc++;
        else
            x->other++;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        mark_nested(ts, term_arg(ts, t, i), v, conc);
}

static void count_head(const term_store_t *ts, term_t t, vinfo_t *v) {
    if (term_is_ground(ts, t)) return;
    if (term_is_var(ts, t)) {
        v[term_sym(ts, t)].head++;
        return;
    }
    for (uint32_t i = 0; i < term_arity(ts, t); i++)
        count_head(ts, term_arg(ts, t, i), v);
}

/* The occurrences of r's variables; a wildcard position holding a term with variables in it
 * is no wildcard. */
static void count_vars(any_t *A, const gp_rule_t *r, vinfo_t *v) {
    const term_store_t *ts = A->p->ts;
    memset(v, 0, (r->n_vars + 1) * sizeof *v);
    count_head(ts, r->head, v);
    for (uint32_t k = 0; k < r->n_body; k++) {
        const gp_lit_t *l = &r->body[k];
        if (l->kind == GLIT_DISTINCT) {
            mark_nested(ts, l->atom, v, false);
            continue;
        }
        bool pos = l->kind == GLIT_POS, type = pos && gprog_fact_table(A->p, l->pred);
        for (uint32_t j = 0; j < term_arity(ts, l->atom); j++) {
            term_t a = term_arg(ts, l->atom, j);
            if (term_is_ground(ts, a)) continue;
            if (!term_is_var(ts, a)) {
                unabs(A, l->pred, j);
                mark_nested(ts, a, v, pos);
                continue;
            }
            vinfo_t *x = &v[term_sym(ts, a)];
            if (is_abs(A, l->pred, j)) {
                if (pos)
                    x->wild++, x->wk = k, x->wj = j;
                else
                    x->wild_neg++;
            } else if (pos) {
                x->conc++;
                if (type) {
                    if (x->n_types && x->type != l->pred) x->mixed = true;
                    x->n_types++, x->type = l->pred;
                }
            } else {
                x->other++;
            }
        }
    }
}

/* The kind of head position i of r (a wildcard position of its relation). */
static uint8_t head_kind(const any_t *A, const gp_rule_t *r, const vinfo_t *v, uint32_t i) {
    const term_store_t *ts = A->p->ts;
    term_t a = term_arg(ts, r->head, i);
    if (!term_is_var(ts, a)) return K_PIN;
    const vinfo_t *x = &v[term_sym(ts, a)];
    if (x->head != 1 || x->wild_neg || x->other || x->mixed || x->conc != x->n_types) return K_PIN;
    if (!x->wild && x->n_types) return K_FREE;
    if (x->wild == 1) return K_PASS;
    return K_PIN;
}

/* The type a FREE or PASS position gets from rule r (NONE: not known yet); sets *bad when the
 * rule's own type disagrees with the position it passes from. */
static uint32_t rule_type(const any_t *A, const gp_rule_t *r, const vinfo_t *x, uint8_t kind,
                          bool *bad) {
    *bad = false;
    if (kind == K_FREE) return x->type;
    uint32_t from = A->type[r->body[x->wk].pred][x->wj];
    if (x->n_types && from != NONE && from != x->type) *bad = true;
    return from != NONE ? from : x->n_types ? x->type : NONE;
}

/* Whether variable x of r may be read at wildcard positions: passed through to the head,
 * an existential read once, or bound by a value of its own (then each wildcard occurrence
 * is read both ways). */
static bool var_ok(const vinfo_t *x, bool passed) {
    if (!x->wild && !x->wild_neg) return true;
    if (passed) return true;
    if (x->wild == 1 && !x->wild_neg && !x->head && !x->conc && !x->other) return true;
    return x->conc > 0;
}

/* Whether variable x's wildcard occurrences are read both ways (copy points). */
static bool var_copies(const vinfo_t *x, bool passed) {
    if (!x->wild && !x->wild_neg) return false;
    if (passed) return false;
    return x->conc > 0;
}

static void unabs_var(any_t *A, const gp_rule_t *r, uint32_t var) {
    const term_store_t *ts = A->p->ts;
    for (uint32_t k = 0; k < r->n_body; k++) {
        const gp_lit_t *l = &r->body[k];
        if (l->kind == GLIT_DISTINCT) continue;
        for (uint32_t j = 0; j < term_arity(ts, l->atom); j++) {
            term_t a = term_arg(ts, l->atom, j);
            if (term_is_var(ts, a) && term_sym(ts, a) == var) unabs(A, l->pred, j);
        }
    }
}

/* The variables of r passed through from a wildcard position to the head (passed[v]). */
static void passed_vars(const any_t *A, const gp_rule_t *r, const vinfo_t *v, bool *passed) {
    const term_store_t *ts = A->p->ts;
    memset(passed, 0, (r->n_vars + 1) * sizeof *passed);
    for (uint32_t i = 0; i < term_arity(ts, r->head); i++)
        if (is_abs(A, r->pred, i) && head_kind(A, r, v, i) == K_PASS)
            passed[term_sym(ts, term_arg(ts, r->head, i))] = true;
}

/* How many ways the rule is read both ways at most: its copy points (variables with
 * values of their own, constants) and the passed variables that have a type of their own. */
static uint32_t copy_dims(const any_t *A, const gp_rule_t *r, const vinfo_t *v,
                          const bool *passed) {
    const term_store_t *ts = A->p->ts;
    uint32_t dims = 0;
    for (uint32_t x = 0; x < r->n_vars; x++) {
        if (var_copies(&v[x], passed[x])) dims += v[x].wild + v[x].wild_neg;
        if (passed[x] && v[x].n_types) dims++;
    }
    for (uint32_t k = 0; k < r->n_body; k++) {
        const gp_lit_t *l = &r->body[k];
        if (l->kind == GLIT_DISTINCT) continue;
        for (uint32_t j = 0; j < term_arity(ts, l->atom); j++)
            dims += is_abs(A, l->pred, j) && term_is_ground(ts, term_arg(ts, l->atom, j));
    }
    return dims;
}

/* A rule too big to copy: every wildcard position it reads or writes goes. */
static void unabs_rule(any_t *A, const gp_rule_t *r, const vinfo_t *v, const bool *passed) {
    const term_store_t *ts = A->p->ts;
    (void)v, (void)passed;
    for (uint32_t i = 0; i < term_arity(ts, r->head); i++)
        unabs(A, r->pred, i);
    for (uint32_t k = 0; k < r->n_body; k++)
        for (uint32_t j = 0;
             r->body[k].kind != GLIT_DISTINCT && j < term_arity(ts, r->body[k].atom); j++)
            unabs(A, r->body[k].pred, j);
}

/* One rule in a round: its types for its relation's positions, and the positions it cannot
 * read as wildcards removed. */
static void analyse(any_t *A, const gp_rule_t *r, vinfo_t *v, bool *passed) {
    const term_store_t *ts = A->p->ts;
    count_vars(A, r, v);
    passed_vars(A, r, v, passed);
    for (uint32_t i = 0; i < term_arity(ts, r->head); i++) {
        if (!is_abs(A, r->pred, i)) continue;
        uint8_t kind = head_kind(A, r, v, i);
        if (kind == K_PIN) continue;
        bool bad;
        uint32_t t = rule_type(A, r, &v[term_sym(ts, term_arg(ts, r->head, i))], kind, &bad);
        uint32_t *slot = &A->next[r->pred][i];
        if (bad || (t != NONE && *slot != NONE && *slot != t))
            unabs(A, r->pred, i);
        else if (t != NONE)
            *slot = t;
    }
    for (uint32_t x = 0; x < r->n_vars; x++)
        if (!var_ok(&v[x], passed[x])) unabs_var(A, r, x);
    if (r->n_body >= 256 || (A->limit && copy_dims(A, r, v, passed) > MAX_DIMS))
        unabs_rule(A, r, v, passed);
}

/* Positions where some rule puts *: a FREE rule, or a PASS rule from such a position. */
static void producing(any_t *A, vinfo_t *v) {
    gprog_t *p = A->p;
    const term_store_t *ts = p->ts;
    for (uint32_t q = 0; q < A->np; q++)
        if (A->abs[q]) memset(A->prod[q], 0, p->preds[q].arity * sizeof **A->prod);
    for (bool grew = true; grew;) {
        grew = false;
        for (uint32_t r = 0; r < p->n_rules; r++) {
            const gp_rule_t *rule = &p->rules[r];
            if (!A->abs[rule->pred]) continue;
            count_vars(A, rule, v);
            for (uint32_t i = 0; i < term_arity(ts, rule->head); i++) {
                if (!is_abs(A, rule->pred, i) || A->prod[rule->pred][i]) continue;
                uint8_t kind = head_kind(A, rule, v, i);
                const vinfo_t *x =
                    kind == K_PIN ? NULL : &v[term_sym(ts, term_arg(ts, rule->head, i))];
                if (kind == K_FREE || (kind == K_PASS && A->prod[rule->body[x->wk].pred][x->wj]))
                    A->prod[rule->pred][i] = grew = true;
            }
        }
    }
}

/* One round over the rules: positions that never get *, then the types and what the rules
 * cannot read as wildcards. */
static void round_once(any_t *A, vinfo_t *v, bool *passed, bool final) {
    gprog_t *p = A->p;
    producing(A, v);
    for (uint32_t q = 0; q < A->np; q++)
        for (uint32_t i = 0; A->abs[q] && i < p->preds[q].arity; i++)
            if (is_abs(A, q, i) && !A->prod[q][i]) unabs(A, q, i);
    for (uint32_t q = 0; q < A->np; q++)
        for (uint32_t i = 0; A->abs[q] && i < p->preds[q].arity; i++)
            A->next[q][i] = NONE;
    for (uint32_t r = 0; r < p->n_rules; r++)
        analyse(A, &p->rules[r], v, passed);
    for (uint32_t q = 0; q < A->np; q++)
        for (uint32_t i = 0; A->abs[q] && i < p->preds[q].arity; i++) {
            if (A->type[q][i] != A->next[q][i]) A->type[q][i] = A->next[q][i], A->changed = true;
            if (final && is_abs(A, q, i) && A->type[q][i] == NONE) unabs(A, q, i);
        }
}

/* The final set: rounds until nothing changes, then with the types required and the limit
 * of copies; false when that does not settle (no rewrite then). */
static bool choose(any_t *A, vinfo_t *v, bool *passed) {
    bool final = false;
    for (uint32_t round = 0; round < 512; round++) {
        A->changed = false;
        A->limit = final;
        round_once(A, v, passed, final);
        if (!A->changed) {
            if (final) return true;
            final = true;
        }
    }
    return false;
}

/* ---- which positions are * together ----
 * A rule's head has * where it puts it (FREE) and where the literal it passes from has it:
 * the patterns of a relation are those its rules can make from the patterns of what they
 * read. A rule reading a wildcard literal both ways reads only the combinations some atom
 * can have (chess's ignored square is * in both coordinates or in neither). */

static void add_pat(any_t *A, uint32_t q, uint64_t m) {
    if (A->n_pats[q] >= MAX_PATS) return;
    for (uint32_t k = 0; k < A->n_pats[q]; k++)
        if (A->pats[q][k] == m) return;
    if (!A->pats[q]) A->pats[q] = xmalloc(MAX_PATS * sizeof **A->pats);
    A->pats[q][A->n_pats[q]++] = m;
    A->changed = true;
}

/* The head patterns of rule r: head, with the passed positions to[at..n) set where the
 * patterns of the literals they pass from (src, at position from; grouped by literal) have *. */
static void head_pats(any_t *A, const gp_rule_t *r, const uint32_t *src, const uint32_t *from,
                      const uint32_t *to, uint32_t n, uint32_t at, uint64_t head) {
    if (at == n) {
        add_pat(A, r->pred, head);
        return;
    }
    uint32_t S = r->body[src[at]].pred;
    if (A->n_pats[S] >= MAX_PATS) { /* any: so is the head */
        A->n_pats[r->pred] = MAX_PATS, A->changed = true;
        return;
    }
    for (uint32_t k = 0; k < A->n_pats[S]; k++) {
        uint64_t h = head;
        for (uint32_t b = 0; b < n; b++) /* every passed position from this literal */
            if (src[b] == src[at] && A->pats[S][k] >> from[b] & 1) h |= 1ull << to[b];
        uint32_t next = at + 1; /* the next literal (they are grouped) */
        while (next < n && src[next] == src[at])
            next++;
        head_pats(A, r, src, from, to, n, next, h);
    }
}

static void patterns(any_t *A, vinfo_t *v) {
    gprog_t *p = A->p;
    const term_store_t *ts = p->ts;
    for (uint32_t round = 0; round < 256; round++) {
        A->changed = false;
        for (uint32_t ri = 0; ri < p->n_rules; ri++) {
            const gp_rule_t *r = &p->rules[ri];
            if (r->pred >= A->np || !A->abs[r->pred] || A->n_pats[r->pred] >= MAX_PATS) continue;
            count_vars(A, r, v);
            uint64_t head = 0;
            uint32_t src[64], from[64], to[64], n = 0;
            for (uint32_t i = 0; i < term_arity(ts, r->head); i++) {
                if (!is_abs(A, r->pred, i)) continue;
                uint8_t kind = head_kind(A, r, v, i);
                if (kind == K_FREE) head |= 1ull << i;
                if (kind != K_PASS) continue;
                const vinfo_t *x = &v[term_sym(ts, term_arg(ts, r->head, i))];
                src[n] = x->wk, from[n] = x->wj, to[n++] = i;
            }
            for (uint32_t a = 1; a < n; a++) /* grouped by literal */
                for (uint32_t b = a; b > 0 && src[b - 1] > src[b]; b--) {
                    uint32_t t;
                    t = src[b], src[b] = src[b - 1], src[b - 1] = t;
                    t = from[b], from[b] = from[b - 1], from[b - 1] = t;
                    t = to[b], to[b] = to[b - 1], to[b - 1] = t;
                }
            uint32_t before = A->n_pats[r->pred];
            head_pats(A, r, src, from, to, n, 0, head);
            if (A->n_pats[r->pred] != before) A->changed = true;
        }
        if (!A->changed) return;
    }
    for (uint32_t q = 0; q < A->np; q++) /* did not settle: any */
        A->n_pats[q] = MAX_PATS;
}

/* Whether some atom of S has * exactly at positions T among positions C. */
static bool pat_allowed(const any_t *A, uint32_t S, uint64_t C, uint64_t T) {
    if (!T || S >= A->np || A->n_pats[S] >= MAX_PATS) return true;
    for (uint32_t k = 0; k < A->n_pats[S]; k++)
        if ((A->pats[S][k] & C) == T) return true;
    return false;
}

/* Positions that are * only where a few values are read as one: readers pay a literal per
 * combination read, so a position is kept where some atom has * at it together with other
 * positions whose types make MIN_GAIN values or more (chess's ignored square: 16 x 16
 * coordinates; a role of two players is not worth it: tictactoe_3d_6player's network grew
 * by three quarters so). Returns whether any position went. */
#define MIN_GAIN 64

static bool drop_small(any_t *A) {
    const gprog_t *p = A->p;
    bool dropped = false;
    for (uint32_t q = 0; q < A->np; q++) {
        if (!A->abs[q] || A->n_pats[q] >= MAX_PATS) continue;
        for (uint32_t i = 0; i < p->preds[q].arity; i++) {
            if (!is_abs(A, q, i)) continue;
            double best = 0;
            for (uint32_t k = 0; k < A->n_pats[q]; k++) {
                uint64_t m = A->pats[q][k];
                if (!(m >> i & 1)) continue;
                double gain = 1;
                for (uint32_t j = 0; j < p->preds[q].arity; j++)
                    if (m >> j & 1) gain *= p->preds[A->type[q][j]].n_rules;
                if (gain > best) best = gain;
            }
            if (best < MIN_GAIN) unabs(A, q, i), dropped = true;
        }
    }
    return dropped;
}

/* ---- the rewrite ---- */

/* A wildcard occurrence read both ways: literal k, position j, the variable (NONE: a
 * constant of the type), the type. */
typedef struct {
    uint32_t k, j, var, type;
} cpoint_t;

static term_t with_arg(gprog_t *p, term_t atom, uint32_t j, term_t val) {
    const term_store_t *ts = p->ts;
    uint32_t n = term_arity(ts, atom);
    term_t args[64];
    for (uint32_t i = 0; i < n; i++)
        args[i] = i == j ? val : term_arg(ts, atom, i);
    return term_fun(p->ts, term_sym(ts, atom), args, n);
}

static gp_lit_t type_lit(gprog_t *p, uint32_t type, uint32_t var, uint8_t kind) {
    term_t x = term_var(p->ts, var);
    return (gp_lit_t){kind, type, term_fun(p->ts, p->preds[type].sym, &x, 1)};
}

static bool of_type(const gprog_t *p, uint32_t type, term_t c) {
    const gp_pred_t *pr = &p->preds[type];
    for (uint32_t k = 0; k < pr->n_rules; k++)
        if (term_arg(p->ts, p->rules[pr->rules[k]].head, 0) == c) return true;
    return false;
}

/* ---- values of a type ----
 * Whether every value a rule's variable takes is of a type: a negated wildcard literal
 * whose value is always of its type needs no copy of the rule per type test. A place is an
 * argument position of a relation, or one inside a compound argument (the square of
 * (true (cell ?x ?y ?p))); it holds only values of the type when every rule of the relation
 * puts there a constant of the type or a variable that holds only such values (true: those
 * of init and next, does: those of legal). Computed as a greatest fixpoint over the places
 * reached from the questions asked. */

typedef struct {
    const gprog_t *p;
    uint32_t type;
    uint32_t p_init, p_next, p_legal; /* (the transfers are not there yet) */
    keyset_t places;
    bool *no; /* per place: not only values of the type */
    size_t cap;
    bool changed;
} typing_t;

/* A place: predicate, position, and inside a compound there its functor, arity and position
 * (f = 0: the position itself). */
static uint64_t place_key(uint32_t pred, uint32_t i, sym_t f, uint32_t n, uint32_t k) {
    return (uint64_t)pred << 44 | (uint64_t)(i & 63) << 38 | (uint64_t)(f & 0x3ffffff) << 12 |
           (n & 63) << 6 | (k & 63);
}

static bool place_no(typing_t *T, uint64_t key) {
    uint32_t id = keyset_add(&T->places, key);
    GROW_ZEROED(T->no, T->cap, (size_t)id + 1);
    return T->no[id];
}

static bool var_typed(typing_t *T, const gp_rule_t *r, term_t x);

/* Whether term a of rule r (at a place) holds only values of the type. */
static bool term_typed(typing_t *T, const gp_rule_t *r, term_t a) {
    const term_store_t *ts = T->p->ts;
    if (term_is_ground(ts, a)) return of_type(T->p, T->type, a);
    return term_is_var(ts, a) && var_typed(T, r, a);
}

/* Whether the values at place (pred, i[, f/n, k]) are all of the type (as far as known). */
static bool place_typed(typing_t *T, uint32_t pred, uint32_t i, sym_t f, uint32_t n, uint32_t k) {
    return !place_no(T, place_key(pred, i, f, n, k));
}

static bool var_typed(typing_t *T, const gp_rule_t *r, term_t x) {
    const gprog_t *p = T->p;
    const term_store_t *ts = p->ts;
    for (uint32_t j = 0; j < r->n_body; j++) {
        const gp_lit_t *l = &r->body[j];
        if (l->kind != GLIT_POS) continue;
        for (uint32_t i = 0; i < term_arity(ts, l->atom); i++) {
            term_t a = term_arg(ts, l->atom, i);
            if (a == x && (l->pred == T->type || place_typed(T, l->pred, i, 0, 0, 0))) return true;
            if (term_is_ground(ts, a) || term_kind(ts, a) != TERM_FUN) continue;
            for (uint32_t k = 0; k < term_arity(ts, a) && k < 64; k++)
                if (term_arg(ts, a, k) == x &&
                    place_typed(T, l->pred, i, term_sym(ts, a), term_arity(ts, a), k))
                    return true;
        }
    }
    return false;
}

/* The place's condition over its rules, with the other places as known. */
static bool place_holds(typing_t *T, uint64_t key) {
    const gprog_t *p = T->p;
    const term_store_t *ts = p->ts;
    uint32_t pred = (uint32_t)(key >> 44), i = key >> 38 & 63, n = key >> 6 & 63, k = key & 63;
    sym_t f = key >> 12 & 0x3ffffff;
    const gp_pred_t *pr = &p->preds[pred];
    if (pred == T->type) return true;
    if (pr->sym == SYM_TRUE)
        return (T->p_init == NONE || place_typed(T, T->p_init, i, f, n, k)) &&
               (T->p_next == NONE || place_typed(T, T->p_next, i, f, n, k));
    if (pr->sym == SYM_DOES) return T->p_legal != NONE && place_typed(T, T->p_legal, i, f, n, k);
    for (uint32_t q = 0; q < pr->n_rules; q++) {
        const gp_rule_t *r = &p->rules[pr->rules[q]];
        if (i >= term_arity(ts, r->head)) return false;
        term_t a = term_arg(ts, r->head, i);
        if (!f) {
            if (!term_typed(T, r, a)) return false;
            continue;
        }
        if (term_is_var(ts, a)) return false; /* a whole term passed on: not followed */
        if (term_kind(ts, a) != TERM_FUN || term_sym(ts, a) != f || term_arity(ts, a) != n)
            continue; /* another shape: no values at this place */
        if (!term_typed(T, r, term_arg(ts, a, k))) return false;
    }
    return true;
}

/* Whether variable x of rule r holds only values of type t (a place at a time, to a
 * fixpoint: places start typed and lose it). */
static bool typed_var(const gprog_t *p, const gp_rule_t *r, uint32_t x, uint32_t t) {
    gprog_t *mp = (gprog_t *)p; /* (lookups only) */
    typing_t T = {.p = p,
                  .type = t,
                  .p_init = gprog_pred(mp, SYM_INIT, 1, false),
                  .p_next = gprog_pred(mp, SYM_NEXT, 1, false),
                  .p_legal = gprog_pred(mp, SYM_LEGAL, 2, false)};
    keyset_init(&T.places);
    term_t var = term_var(p->ts, x);
    bool typed = false;
    for (uint32_t round = 0; round < 1000; round++) {
        typed = var_typed(&T, r, var);
        T.changed = false;
        for (uint32_t id = 0; id < T.places.n; id++) /* (places are added as it goes) */
            if (!T.no[id] && !place_holds(&T, T.places.keys[id])) T.no[id] = T.changed = true;
        if (!T.changed) break;
        typed = false;
    }
    keyset_fini(&T.places);
    free(T.no);
    return typed;
}

typedef struct {
    any_t *A;
    gp_rule_t r; /* a copy of the rule (its body owned by the program) */
    vinfo_t *v;
    bool *passed;
    bool drop[256]; /* body literals dropped in every copy (the types of FREE variables) */
    uint32_t n_cp;  /* copy points */
    cpoint_t cp[MAX_DIMS * 2];
    uint32_t n_dims;               /* choices: positive copy points, then negated ones' variables */
    uint32_t dim_cp[MAX_DIMS * 2]; /* positive: the copy point; negated: NONE; PASSD */
    uint32_t dim_var[MAX_DIMS * 2], dim_type[MAX_DIMS * 2], dim_head[MAX_DIMS * 2];
    gp_lit_t *body;
    uint32_t n_body;
    bool first;
    uint32_t index; /* the rule's own index */
} rewrite_t;

static void push(rewrite_t *W, gp_lit_t l) {
    W->body[W->n_body++] = l;
}

/* Whether variable x is typed in choice mask m (a negated copy point's test). */
static bool typed_in(const rewrite_t *W, uint32_t m, uint32_t var) {
    for (uint32_t d = 0; d < W->n_dims; d++)
        if (W->dim_cp[d] == NONE && W->dim_var[d] == var) return m >> d & 1;
    return true; /* the rule types it itself */
}

/* Whether literal k is the type of a passed variable read as * in choice mask m. */
static bool passed_type(const rewrite_t *W, uint32_t m, uint32_t k) {
    const gprog_t *p = W->A->p;
    const gp_lit_t *l = &W->r.body[k];
    if (l->kind != GLIT_POS || !gprog_fact_table(p, l->pred)) return false;
    for (uint32_t d = 0; d < W->n_dims; d++)
        if (W->dim_cp[d] == PASSD && m >> d & 1 &&
            term_arg(p->ts, l->atom, 0) == term_var(p->ts, W->dim_var[d]))
            return true;
    return false;
}

/* Whether choice mask m reads every positive literal with a combination of * its atoms can
 * have. */
static bool copy_allowed(const rewrite_t *W, uint32_t m) {
    for (uint32_t k = 0; k < W->r.n_body; k++) {
        if (W->r.body[k].kind != GLIT_POS) continue;
        uint64_t C = 0, T = 0;
        for (uint32_t d = 0; d < W->n_dims; d++) {
            if (W->dim_cp[d] >= PASSD || W->cp[W->dim_cp[d]].k != k) continue;
            C |= 1ull << W->cp[W->dim_cp[d]].j;
            if (m >> d & 1) T |= 1ull << W->cp[W->dim_cp[d]].j;
        }
        if (!pat_allowed(W->A, W->r.body[k].pred, C, T)) return false;
    }
    return true;
}

static void emit_copy(rewrite_t *W, uint32_t m) {
    if (!copy_allowed(W, m)) return;
    any_t *A = W->A;
    gprog_t *p = A->p;
    const term_store_t *ts = p->ts;
    const gp_rule_t *r = &W->r;
    term_t head = r->head;
    for (uint32_t i = 0; i < term_arity(ts, head); i++)
        if (is_abs(A, r->pred, i) && head_kind(A, r, W->v, i) == K_FREE)
            head = with_arg(p, head, i, A->any);
    for (uint32_t d = 0; d < W->n_dims; d++)
        if (W->dim_cp[d] == PASSD && m >> d & 1) head = with_arg(p, head, W->dim_head[d], A->any);
    W->n_body = 0;
    for (uint32_t k = 0; k < r->n_body; k++) {
        if (W->drop[k] || passed_type(W, m, k)) continue;
        gp_lit_t l = r->body[k];
        if (l.kind == GLIT_POS) {
            for (uint32_t d = 0; d < W->n_dims; d++) {
                if (W->dim_cp[d] != PASSD || !(m >> d & 1)) continue;
                const vinfo_t *x = &W->v[W->dim_var[d]];
                if (x->wk == k) l.atom = with_arg(p, l.atom, x->wj, A->any);
            }
            for (uint32_t d = 0; d < W->n_dims; d++) {
                const cpoint_t *c = W->dim_cp[d] >= PASSD ? NULL : &W->cp[W->dim_cp[d]];
                if (!c || c->k != k || !(m >> d & 1)) continue;
                l.atom = with_arg(p, l.atom, c->j, A->any);
                if (c->var != NONE) push(W, type_lit(p, c->type, c->var, GLIT_POS));
            }
            push(W, l);
            continue;
        }
        push(W, l);
        if (l.kind != GLIT_NEG) continue;
        uint32_t mine[MAX_DIMS * 2], n = 0; /* its copy points */
        for (uint32_t c = 0; c < W->n_cp; c++)
            if (W->cp[c].k == k) mine[n++] = c;
        uint64_t C = 0;
        for (uint32_t b = 0; b < n; b++)
            C |= 1ull << W->cp[mine[b]].j;
        for (uint32_t s = 1; s < (1u << n); s++) { /* every nonempty subset read as * */
            term_t atom = l.atom;
            uint64_t T = 0;
            for (uint32_t b = 0; b < n; b++)
                if (s >> b & 1) T |= 1ull << W->cp[mine[b]].j;
            bool ok = pat_allowed(A, l.pred, C, T);
            for (uint32_t b = 0; b < n && ok; b++) {
                if (!(s >> b & 1)) continue;
                const cpoint_t *c = &W->cp[mine[b]];
                ok = c->var == NONE || typed_in(W, m, c->var);
                atom = with_arg(p, atom, c->j, A->any);
            }
            if (ok) push(W, (gp_lit_t){GLIT_NEG, l.pred, atom});
        }
    }
    for (uint32_t d = 0; d < W->n_dims; d++)
        if (W->dim_cp[d] == NONE)
            push(W, type_lit(p, W->dim_type[d], W->dim_var[d], m >> d & 1 ? GLIT_POS : GLIT_NEG));
    if (W->first) { /* the rule itself becomes the first copy */
        gp_rule_t *own = &p->rules[W->index];
        gp_lit_t *body = xmalloc((W->n_body + 1) * sizeof *body);
        memcpy(body, W->body, W->n_body * sizeof *body);
        own->head = head, own->body = body, own->n_body = W->n_body;
        W->first = false;
    } else {
        gprog_add(p, head, W->body, W->n_body, r->n_vars, r->transfer);
    }
}

/* Whether rule r's variable x has a positive literal of type t. */
static bool has_type_lit(const gprog_t *p, const gp_rule_t *r, uint32_t x, uint32_t t) {
    const term_store_t *ts = p->ts;
    for (uint32_t k = 0; k < r->n_body; k++) {
        const gp_lit_t *l = &r->body[k];
        if (l->kind == GLIT_POS && l->pred == t && term_arg(ts, l->atom, 0) == term_var(p->ts, x))
            return true;
    }
    return false;
}

/* The copy points and choices of W's rule. */
static void plan_rule(rewrite_t *W) {
    any_t *A = W->A;
    gprog_t *p = A->p;
    const term_store_t *ts = p->ts;
    const gp_rule_t *r = &W->r;
    W->n_cp = W->n_dims = 0;
    for (uint32_t k = 0; k < r->n_body; k++) {
        const gp_lit_t *l = &r->body[k];
        if (l->kind == GLIT_DISTINCT) continue;
        for (uint32_t j = 0; j < term_arity(ts, l->atom); j++) {
            if (!is_abs(A, l->pred, j)) continue;
            term_t a = term_arg(ts, l->atom, j);
            uint32_t t = A->type[l->pred][j], x = term_is_var(ts, a) ? term_sym(ts, a) : NONE;
            if (x == NONE ? !of_type(p, t, a) : !var_copies(&W->v[x], W->passed[x])) continue;
            W->cp[W->n_cp] = (cpoint_t){k, j, x, t};
            if (l->kind == GLIT_POS) {
                W->dim_cp[W->n_dims] = W->n_cp;
                W->n_dims++;
            } else if (x != NONE && !has_type_lit(p, r, x, t) && !typed_var(p, r, x, t)) {
                bool known = false;
                for (uint32_t d = 0; d < W->n_dims; d++)
                    known |= W->dim_cp[d] == NONE && W->dim_var[d] == x;
                if (!known) {
                    W->dim_cp[W->n_dims] = NONE, W->dim_var[W->n_dims] = x;
                    W->dim_type[W->n_dims++] = t;
                }
            }
            W->n_cp++;
        }
    }
    /* passed variables with a type of their own: read as * (their type goes) or not */
    for (uint32_t i = 0; i < term_arity(ts, r->head); i++) {
        if (!is_abs(A, r->pred, i) || head_kind(A, r, W->v, i) != K_PASS) continue;
        uint32_t x = term_sym(ts, term_arg(ts, r->head, i));
        if (!W->v[x].n_types) continue;
        W->dim_cp[W->n_dims] = PASSD, W->dim_var[W->n_dims] = x, W->dim_head[W->n_dims++] = i;
    }
    /* FREE variables: their types go (the head reads *) */
    memset(W->drop, 0, sizeof W->drop);
    for (uint32_t i = 0; i < term_arity(ts, r->head); i++) {
        if (!is_abs(A, r->pred, i) || head_kind(A, r, W->v, i) != K_FREE) continue;
        term_t x = term_arg(ts, r->head, i);
        for (uint32_t k = 0; k < r->n_body; k++)
            if (r->body[k].kind == GLIT_POS && term_arg(ts, r->body[k].atom, 0) == x &&
                gprog_fact_table(p, r->body[k].pred))
                W->drop[k] = true;
    }
}

static void rewrite_rule(any_t *A, uint32_t index, vinfo_t *v, bool *passed) {
    gprog_t *p = A->p;
    rewrite_t W = {
        .A = A, .r = p->rules[index], .v = v, .passed = passed, .first = true, .index = index};
    const gp_rule_t *r = &W.r;
    if (r->n_body >= 256) return;
    count_vars(A, r, v);
    passed_vars(A, r, v, passed);
    plan_rule(&W);
    bool any_free = false;
    for (uint32_t i = 0; i < term_arity(p->ts, r->head); i++)
        any_free |= is_abs(A, r->pred, i) && head_kind(A, r, v, i) == K_FREE;
    if (!W.n_cp && !W.n_dims && !any_free) return;
    uint32_t cap = r->n_body * (1u << MAX_DIMS) + 2 * MAX_DIMS + 1;
    W.body = xmalloc(cap * sizeof *W.body);
    gp_lit_t *old = r->body;
    for (uint32_t m = 0; m < (1u << W.n_dims); m++)
        emit_copy(&W, m);
    free(old);
    free(W.body);
}

static void any_fini(any_t *A) {
    for (uint32_t q = 0; q < A->np; q++)
        if (A->type[q]) free(A->type[q]), free(A->next[q]), free(A->prod[q]);
    for (uint32_t q = 0; q < A->np; q++)
        free(A->pats[q]);
    free(A->abs), free(A->type), free(A->next), free(A->prod), free(A->pats), free(A->n_pats);
}

static bool candidate(const gprog_t *p, uint32_t q) {
    const gp_pred_t *pr = &p->preds[q];
    return pr->n_rules && pr->arity && pr->arity <= 64 && !pr->is_static &&
           !gprog_is_interface(p, q) && pr->sym != SYM_TRUE && pr->sym != SYM_DOES;
}

uint32_t gany_rewrite(gprog_t *p) {
    const char *env = getenv("GGP_GROUND_ANY");
    if (env && !strcmp(env, "0")) return 0;
    any_t A = {.p = p, .np = p->n_preds};
    A.abs = xcalloc(A.np + 1, sizeof *A.abs);
    A.type = xcalloc(A.np + 1, sizeof *A.type);
    A.next = xcalloc(A.np + 1, sizeof *A.next);
    A.prod = xcalloc(A.np + 1, sizeof *A.prod);
    A.pats = xcalloc(A.np + 1, sizeof *A.pats);
    A.n_pats = xcalloc(A.np + 1, sizeof *A.n_pats);
    uint32_t max_vars = 1;
    for (uint32_t r = 0; r < p->n_rules; r++)
        if (p->rules[r].n_vars > max_vars) max_vars = p->rules[r].n_vars;
    for (uint32_t q = 0; q < A.np; q++) {
        if (!candidate(p, q)) continue;
        uint32_t ar = p->preds[q].arity;
        A.abs[q] = ar == 64 ? ~0ull : (1ull << ar) - 1;
        A.type[q] = xmalloc(ar * sizeof **A.type);
        A.next[q] = xmalloc(ar * sizeof **A.next);
        A.prod[q] = xcalloc(ar, sizeof **A.prod);
        for (uint32_t i = 0; i < ar; i++)
            A.type[q][i] = NONE;
    }
    vinfo_t *v = xmalloc((max_vars + 1) * sizeof *v);
    bool *passed = xmalloc(max_vars + 1);
    uint32_t n = 0;
    bool ok = false;
    for (uint32_t round = 0; round < 16; round++) {
        ok = choose(&A, v, passed);
        if (!ok) break;
        memset(A.n_pats, 0, A.np * sizeof *A.n_pats);
        patterns(&A, v);
        if (!drop_small(&A)) break;
        ok = false;
    }
    for (uint32_t q = 0; q < A.np && ok; q++)
        n += (uint32_t)__builtin_popcountll(A.abs[q]);
    if (n) {
        const char *name = "any value"; /* no game can write it: KIF symbols have no spaces */
        A.any = term_const(p->ts, term_intern(p->ts, name, strlen(name)));
        uint32_t n_rules = p->n_rules;
        for (uint32_t r = 0; r < n_rules; r++)
            rewrite_rule(&A, r, v, passed);
        for (uint32_t q = 0; q < A.np; q++)
            p->preds[q].wild = A.abs[q] != 0;
    }
    free(v), free(passed);
    any_fini(&A);
    return n;
}
