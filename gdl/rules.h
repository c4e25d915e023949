/* The rule base: a game description as rules over hash-consed terms.
 *
 * Built from a parsed document. `or` (and `and`, and `not` over them) in bodies is
 * expanded away, so a rule body is a conjunction of positive atoms, negated atoms and
 * `distinct` constraints. Variables are numbered per rule, 0..n_vars-1. Each literal keeps
 * its source location for diagnostics. Predicates are (symbol, arity) pairs with dense ids.
 * The game owns its term store, rules and tables; game_free releases everything. */
#ifndef GDL_RULES_H
#define GDL_RULES_H

#include <stdbool.h>

#include "base/keyset.h"
#include "gdl/diag.h"
#include "gdl/sexp.h"
#include "gdl/term.h"

typedef enum { LIT_POS, LIT_NEG, LIT_DISTINCT } lit_kind_t;

typedef struct {
    lit_kind_t kind;
    term_t atom; /* the atom; for distinct, the term (distinct a b) */
    int line, col;
} lit_t;

typedef struct {
    term_t head;
    lit_t *body;
    uint32_t n_body;
    uint32_t n_vars;
    uint32_t source; /* index of the written rule it came from (before `or` expansion) */
    int line, col;
    uint32_t scc;   /* component of the rule graph (filled by validation) */
    bool recursive; /* on a cycle of the rule graph */
} rule_t;

/* What a predicate's truth depends on: nothing (static), the state, or the joint move. */
typedef enum { LAYER_STATIC = 0, LAYER_STATE = 1, LAYER_MOVE = 2 } layer_t;

typedef struct {
    sym_t sym;
    uint32_t arity;
    uint32_t *rules; /* ids of the rules defining it */
    uint32_t n_rules;
    size_t cap_rules;
    layer_t layer;
    bool recursive; /* one of its rules is on a cycle of the rule graph */
    uint32_t scc;   /* strongly connected component, numbered bottom-up */
    bool has_facts_only;
} pred_t;

typedef struct {
    term_store_t *ts;
    char *file;
    rule_t *rules;
    size_t n_rules, cap_rules;
    uint32_t n_written; /* rules as written, before expansion */
    term_t *roles;      /* in the order of the role facts */
    uint32_t n_roles;
    pred_t *preds;
    size_t n_preds, cap_preds;
    keyset_t pred_sigs; /* (sym, arity) of pred id i: number i */
    /* filled by validation */
    bool acyclic;
    bool gdl2;            /* uses sees or random */
    uint32_t n_sccs;      /* components of the predicate graph */
    uint32_t n_rule_sccs; /* components of the rule graph */
    uint32_t *rule_order; /* rule ids, dependencies first (by rule component) */
    diag_t warnings;      /* defects that do not stop play (filled by validation) */
} game_t;

/* The most literals a rule body may have (after `or` is expanded). Evaluation and the
 * planning of a body cost time quadratic in its length and stack linear in it, and a body
 * of 100,000 literals would take minutes or overflow the stack; the public corpus's
 * longest body has 42. */
#define RULES_MAX_BODY 1000
/* The most arguments a term of the rules may have. The reasoner keeps a literal's
 * arguments on the stack while it joins it (variable-length arrays, 8 bytes an argument),
 * and a literal of a million arguments would overflow it in one frame (one of 900,000 took
 * more than the reasoner's budget); the corpus's widest term has 50. */
#define RULES_MAX_ARITY 10000
/* Terms nest at most TERM_MAX_DEPTH levels (gdl/term.h), sentences included: the engines
 * refuse to derive a deeper one, and the reader refuses to read one (a located error). */

/* Reads a whole game from text; appends diagnostics and returns NULL when the text is not
 * a well-formed rule base (validation is separate: see validate.h). */
game_t *game_from_text(const char *text, size_t len, const char *file, diag_t *d);
/* Same, from an already parsed document whose atoms live in ts (ts is adopted). */
game_t *game_from_sexp(term_store_t *ts, const sexp_doc_t *doc, const char *file, diag_t *d);
void game_free(game_t *g);

/* Predicate id of (sym, arity); UINT32_MAX when no rule or literal mentions it. */
uint32_t game_pred(const game_t *g, sym_t sym, uint32_t arity);
/* Predicate id of an atom term. */
uint32_t game_pred_of(const game_t *g, term_t atom);

/* Index of a role term, or -1. */
int game_role_index(const game_t *g, term_t role);

/* A ground term from an expression (variables, malformed lists and terms nested past
 * TERM_MAX_DEPTH give TERM_NONE). */
term_t game_ground_term(game_t *g, const sexp_t *e);

void rule_print(const game_t *g, const rule_t *r, strbuf_t *out);
/* A rule of another layer's making (the grounder's) printed as rule_print does: lit(ctx, i,
 * &negative) gives body literal i's atom (for distinct, the term (distinct a b)). */
typedef term_t (*rule_lit_fn)(const void *ctx, uint32_t i, bool *negative);
void rule_print_parts(const term_store_t *ts, term_t head, uint32_t n_body, rule_lit_fn lit,
                      const void *ctx, strbuf_t *out);

#endif
