/* Lifted formulas over a game's terms, kept in disjunctive normal form.
 *
 * A formula is a disjunction of disjuncts; a disjunct is an existentially quantified
 * conjunction of literals. Literals are `true(t)`, `does(r, a)`, unexpanded atoms (legal,
 * goal, terminal, next, user predicates), their negations, `distinct(a, b)`, `a = b`, and
 * negated existential conjunctions `not exists y (l1 and ... and lk)` (FL_NOT). The last
 * kind is what the complete premise of a negated atom becomes when its rules have local
 * variables: the language has no universal quantifier, and `not exists` keeps it compact
 * (the negation of a disjunction is a conjunction of such literals, never a DNF product).
 *
 * Variables are term variables, numbered per top-level disjunct (nested scopes share the
 * numbering; fresh variables take the next free number). A variable is quantified at the
 * shallowest scope on its path whose own literals mention it. Negative literals and
 * distinct only mention variables bound by positive literals of their scope or of an
 * enclosing one (safety, inherited from the rules).
 *
 * A disjunct owns its literal array and its nested scopes; a form_t owns its disjuncts.
 * Terms live in the game's store. */
#ifndef REGRESS_FORM_H
#define REGRESS_FORM_H

#include <stdbool.h>
#include <stdint.h>

#include "gdl/rules.h"

typedef enum {
    FL_TRUE,  /* true(a) */
    FL_DOES,  /* does(a, b) */
    FL_ATOM,  /* unexpanded atom a */
    FL_NTRUE, /* not true(a) */
    FL_NDOES, /* not does(a, b) */
    FL_NATOM, /* not a, a unexpanded */
    FL_DIST,  /* distinct(a, b) */
    FL_EQ,    /* a = b (only in nested scopes: a is a variable of an enclosing scope) */
    FL_NOT,   /* not exists (sub) */
    FL_MOVE,  /* the move b of role a, for resolving does (N's joint move; not a constraint) */
    FL_OPEN,  /* a FL_NOT while its own scope is being normalised (expand.c): no context */
} flit_kind_t;

typedef struct fconj fconj_t;

typedef struct {
    uint8_t kind;
    uint8_t gen;    /* expansions that produced this literal (for C^n) */
    uint16_t depth; /* recursive unfoldings that produced an atom (bounded unfolding) */
    term_t a, b;
    fconj_t *sub; /* FL_NOT: the negated scope */
} flit_t;

struct fconj {
    flit_t *lits;
    uint32_t n, cap;
    uint32_t nv; /* top level: next free variable number of the whole disjunct */
};

/* common ∧ (d[0] ∨ d[1] ∨ ...). The common conjunct (NULL: none) factors out what every
 * disjunct shares (N's "not terminal, p moves"); it has no variables of its own at its
 * top level, so it never shares a variable with a disjunct. */
typedef struct {
    fconj_t **d;
    uint32_t n, cap;
    fconj_t *common;
    bool complete; /* false when a bound or a cap under-approximated it */
} form_t;

/* ---- construction ---- */
fconj_t *fconj_new(void);
void fconj_free(fconj_t *c);
fconj_t *fconj_copy(const fconj_t *c);
void fconj_push(fconj_t *c, flit_t l);
void fconj_add(fconj_t *c, int kind, term_t a, term_t b);
/* Appends NOT(sub), adopting sub. */
void fconj_add_not(fconj_t *c, fconj_t *sub);
void fconj_remove(fconj_t *c, uint32_t i); /* frees a FL_NOT's scope */

form_t *form_new(void);
void form_free(form_t *f);
form_t *form_copy(const form_t *f);
void form_push(form_t *f, fconj_t *c); /* adopts c */
void form_clear(form_t *f);

/* The kind of a literal's negation (not x for x and back, distinct for =), or -1 for
 * FL_NOT and FL_MOVE. */
int flit_complement(int kind);

/* ---- terms and variables ---- */
/* Largest variable number in the whole tree plus one. */
uint32_t fconj_var_bound(const term_store_t *ts, const fconj_t *c);
/* Applies term_subst(map) to every term of the tree (map sized past every variable). */
void fconj_subst(term_store_t *ts, fconj_t *c, const term_t *map);
/* Renumbers the variables of a top-level disjunct densely, in order of first occurrence
 * (a canonical form for comparisons); sets c->nv. */
void fconj_canon_vars(term_store_t *ts, fconj_t *c);
/* Adds offset to every variable number. */
void fconj_shift(term_store_t *ts, fconj_t *c, uint32_t offset);
/* Calls fn for each variable occurrence in a term. */
void term_each_var(const term_store_t *ts, term_t t, void (*fn)(void *, uint32_t), void *ctx);
/* The same over a literal's own terms (not a negated literal's scope). */
void flit_each_var(const term_store_t *ts, const flit_t *l, void (*fn)(void *, uint32_t),
                   void *ctx);
/* The same over the own literals of lits[0..n) (not over their negated scopes). */
void flits_each_var(const term_store_t *ts, const flit_t *lits, uint32_t n,
                    void (*fn)(void *, uint32_t), void *ctx);
/* The same over all of c: its negated scopes where they stand, in order. */
void fconj_each_var(const term_store_t *ts, const fconj_t *c, void (*fn)(void *, uint32_t),
                    void *ctx);
/* Whether a literal's own terms mention a variable v with mark[v] set (mark sized past
 * every variable of the literal). */
bool flit_mentions(const term_store_t *ts, const flit_t *l, const uint8_t *mark);
/* The same over a scope's whole tree. */
bool fconj_mentions(const term_store_t *ts, const fconj_t *c, const uint8_t *mark);
/* Sets mark[v] for the variables of c's own literals (not those of its negated scopes). */
void fconj_mark_vars(const term_store_t *ts, const fconj_t *c, uint8_t *mark);
/* The same literal (distinct and = in either order); never for FL_NOT. */
bool flit_same(const flit_t *p, const flit_t *q);
/* q is p's complement (not x for x, distinct for =); never for FL_NOT. */
bool flit_contradicts(const flit_t *p, const flit_t *q);

/* ---- measures ---- */
/* Literals in the whole tree (a FL_NOT counts one plus its scope). */
uint64_t fconj_size(const fconj_t *c);
uint64_t form_literals(const form_t *f);
uint32_t fconj_depth(const fconj_t *c);

/* ---- sound shrinking ---- */
/* Makes f describe fewer states until it has at most max_literals literals (or cannot
 * shrink further): drops whole disjuncts (the largest first), then negated scopes inside
 * negated scopes. Marks f incomplete; returns whether it changed anything. */
bool form_shrink(form_t *f, uint64_t max_literals);

/* ---- printing (KIF-like) ---- */
void flit_print(const term_store_t *ts, const flit_t *l, strbuf_t *out);
void fconj_print(const term_store_t *ts, const fconj_t *c, strbuf_t *out);
/* One disjunct per line: "(or\n  D1\n  D2)"; "false" when empty; with a common
 * conjunct "(and COMMON\n(or ...))". */
void form_print(const term_store_t *ts, const form_t *f, strbuf_t *out);

#endif
