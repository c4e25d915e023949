/* The rules as the grounder works on them: a copy of the game's rules that the grounder may
 * extend with predicates of its own (the auxiliary relations of split rules), with the
 * transfers that make states and moves reachable written as rules (true <= init,
 * true <= next, does <= legal), the predicates the interface needs (relevant), and the
 * components of the predicate graph in dependency order.
 *
 * Two rewrites that keep every reachable state's answers and shrink what is grounded:
 * fluents whose only next rules are plain frame rules ((next F) <= (true F)) are read as
 * (init F), a static relation (a maze's walls: what depends only on them is computed once,
 * negation included, instead of being reached under relaxed semantics); and argument
 * positions that do not matter (in every rule a variable of a unary fact table's type that
 * is only passed to positions of the same kind) are dropped, readers keeping the type as a
 * filter (a relation that holds for every combination of a counter's bits: 2^n atoms, or
 * one).
 *
 * Variables are numbered per rule, 0..n_vars-1, as in the game. The program owns its
 * arrays; terms live in the game's store. */
#ifndef ENGINE_GPROG_H
#define ENGINE_GPROG_H

#include "base/keyset.h"
#include "gdl/rules.h"

enum { GLIT_POS, GLIT_NEG, GLIT_DISTINCT };

typedef struct {
    uint8_t kind;  /* GLIT_* */
    uint32_t pred; /* POS, NEG: the literal's predicate */
    term_t atom;   /* the atom; for distinct the term (distinct a b) */
} gp_lit_t;

typedef struct {
    term_t head;
    uint32_t pred, n_body, n_vars;
    gp_lit_t *body;
    bool transfer; /* a reachability transfer, not a rule of the network */
} gp_rule_t;

typedef struct {
    sym_t sym;
    uint32_t arity;
    bool is_static; /* depends on neither true nor does */
    bool relevant;  /* something the interface reads depends on it */
    bool recursive; /* on a cycle of the predicate graph */
    bool demand;    /* a demand relation (gmagic.h): what the readers of another ask for */
    bool wild;      /* has wildcard positions (gany.h): its atoms are not the game's */
    uint32_t scc;   /* component, numbered dependencies first */
    uint32_t *rules, n_rules;
    size_t cap_rules;
} gp_pred_t;

typedef struct {
    game_t *g;
    term_store_t *ts;
    gp_pred_t *preds;
    uint32_t n_preds;
    size_t cap_preds;
    keyset_t pred_keys; /* (sym, arity) -> pred, numbered as preds */
    gp_rule_t *rules;
    uint32_t n_rules;
    size_t cap_rules;
    uint32_t n_sccs;
    uint32_t *scc_preds, *scc_start; /* preds of component c: scc_preds[scc_start[c]..[c+1]) */
    uint32_t p_true, p_does, p_next, p_legal, p_init; /* UINT32_MAX when absent */
    uint32_t n_aux;
    uint32_t n_wild; /* wildcard positions (gany.h) */
} gprog_t;

/* The game's rules (those the interface needs), with the transfers. */
gprog_t *gprog_new(game_t *g);
void gprog_free(gprog_t *p);

/* The predicate of (sym, arity), made when make is set (UINT32_MAX when absent). */
uint32_t gprog_pred(gprog_t *p, sym_t sym, uint32_t arity, bool make);
uint32_t gprog_pred_of(const gprog_t *p, term_t atom);
/* A fresh predicate of the given arity, static or not, relevant. */
uint32_t gprog_aux(gprog_t *p, uint32_t arity, bool is_static);
/* Adds a rule (the body is copied); returns its index. Components are not updated. */
uint32_t gprog_add(gprog_t *p, term_t head, const gp_lit_t *body, uint32_t n_body, uint32_t n_vars,
                   bool transfer);
/* Components of the predicate graph over the relevant predicates, dependencies first. */
void gprog_order(gprog_t *p);
/* After rules were taken out or added: what the interface reads again, and the components. */
void gprog_refresh(gprog_t *p);

/* Variables of rule terms (numbers 0..n_vars-1): marks those of t in on. */
void gprog_mark_vars(const term_store_t *ts, term_t t, bool *on);
/* The variables of t in order of first occurrence, each once: appended to out (n counts
 * them), seen marks them. */
void gprog_list_vars(const term_store_t *ts, term_t t, uint32_t *out, uint32_t *n, bool *seen);
/* How many occurrences of variables of t are not bound (among those marked in of; NULL:
 * any); 0 when t is ground under bound. */
uint32_t gprog_unbound(const term_store_t *ts, term_t t, const bool *bound, const bool *of);

/* Whether the predicate is a unary static table of facts (a type). */
bool gprog_fact_table(const gprog_t *p, uint32_t pred);

/* Whether the predicate is one the interface reads (legal, next, goal, terminal, sees, init). */
bool gprog_is_interface(const gprog_t *p, uint32_t pred);

#endif
