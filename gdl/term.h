/* Interned symbols and hash-consed terms.
 *
 * A symbol is a small integer naming a case-folded string; the GDL keywords are interned
 * first, at the fixed ids below, so keyword tests are integer compares. A term is a 32-bit
 * index into the store's node array; the constructors look a term up before they make it,
 * so two terms are equal exactly when their ids are. Variables are terms too (numbered per
 * rule, 0..k-1). The store owns everything; term_store_free releases it all at once.
 *
 * The store is not thread-safe: one thread builds terms at a time. */
#ifndef GDL_TERM_H
#define GDL_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/htab.h"
#include "base/util.h"

typedef uint32_t sym_t;
typedef uint32_t term_t;

#define TERM_NONE 0u

/* Keywords, interned in this order at creation. */
enum {
    SYM_NONE = 0,
    SYM_ROLE,
    SYM_INIT,
    SYM_TRUE,
    SYM_NEXT,
    SYM_LEGAL,
    SYM_DOES,
    SYM_GOAL,
    SYM_TERMINAL,
    SYM_DISTINCT,
    SYM_NOT,
    SYM_OR,
    SYM_BASE,
    SYM_INPUT,
    SYM_RANDOM,
    SYM_SEES,
    SYM_IMPLIES, /* "<=" */
    SYM_AND,
    SYM_NOOP,
    SYM_NIL,
    SYM_FIRST_USER
};

enum { TERM_SYM = 0, TERM_VAR = 1, TERM_FUN = 2 };

typedef struct {
    uint8_t kind;
    uint8_t ground;
    uint16_t depth; /* nesting: 0 for a constant or variable, 1 + the deepest argument's
                     * for a compound; it stops at TERM_DEPTH_SATURATED */
    uint32_t arity;
    sym_t sym;     /* functor or constant; for a variable its number */
    uint32_t args; /* offset of the arguments in the store's argument array */
} term_node_t;

/* term_depth stops counting here (a term may be deeper still). */
#define TERM_DEPTH_SATURATED UINT16_MAX

/* The deepest term the engines derive while playing (rules that nest a term a level deeper
 * every turn, or through a chain of relations, would go on past any stack): past it the
 * rules evaluator and the grounder give up on the game with an error. The walks over terms
 * (printing, comparing, substituting, unifying) recurse once per level, and may do so up to
 * this depth on any thread. Below the reader's cap (SEXP_MAX_DEPTH, 500 parentheses), so
 * that whatever the engines derive can be sent in a message, a trace or a game and read back
 * (gdl/sexp.h asserts it). The corpus's deepest is 14 (docs/http.md, "Deep recursion"). */
#define TERM_MAX_DEPTH 400

typedef struct term_store term_store_t;

struct term_store {
    term_node_t *nodes;
    uint32_t *hash; /* per node: its hash, apart so that a probe of the table reads 4 bytes a
                     * term, not a node's 16 (the grounder's hottest path, chess's 2 million
                     * terms) */
    size_t n_nodes, cap_nodes;
    term_t *args;
    size_t n_args, cap_args;
    htab_t table; /* term ids by node */
    /* symbols */
    char *names;
    size_t names_len, names_cap;
    uint32_t *sym_name; /* offset into names */
    uint32_t *sym_len;
    size_t n_syms, cap_syms;
    htab_t sym_table; /* symbols by name */
};

term_store_t *term_store_new(void);
void term_store_free(term_store_t *ts);

/* Interns a name, case-folded to lower case. */
sym_t term_intern(term_store_t *ts, const char *name, size_t len);
const char *term_sym_name(const term_store_t *ts, sym_t s);
size_t term_sym_count(const term_store_t *ts);
/* The value of a symbol written as a decimal number (a goal value), -1 when t is no such
 * symbol or the number passes 100,000. */
int term_number(const term_store_t *ts, term_t t);
/* The highest term_number among n terms, -1 when none is a number: a role's goal value
 * when its goal rules derive several (a defect the reference game master rejects; the
 * project reads it as the highest, as backward search's goal(R, 100) claims do). */
int term_highest_number(const term_store_t *ts, const term_t *t, uint32_t n);
/* Whether t is one of v[0..n) (a legal move among a turn's, a percept among a step's). */
bool term_in(const term_t *v, uint32_t n, term_t t);

term_t term_const(term_store_t *ts, sym_t s);
term_t term_var(term_store_t *ts, uint32_t number);
/* A compound term f(args...); with n == 0 it is the constant f, as GDL reads "(f)". */
term_t term_fun(term_store_t *ts, sym_t f, const term_t *args, uint32_t n);

static inline const term_node_t *term_node(const term_store_t *ts, term_t t) {
    return &ts->nodes[t];
}
static inline int term_kind(const term_store_t *ts, term_t t) {
    return ts->nodes[t].kind;
}
static inline bool term_is_var(const term_store_t *ts, term_t t) {
    return ts->nodes[t].kind == TERM_VAR;
}
static inline bool term_is_ground(const term_store_t *ts, term_t t) {
    return ts->nodes[t].ground;
}
/* The functor of a compound, the symbol of a constant, the number of a variable. */
static inline sym_t term_sym(const term_store_t *ts, term_t t) {
    return ts->nodes[t].sym;
}
/* How deeply t nests (see term_node_t.depth), TERM_DEPTH_SATURATED when deeper still. */
static inline uint32_t term_depth(const term_store_t *ts, term_t t) {
    return ts->nodes[t].depth;
}
static inline uint32_t term_arity(const term_store_t *ts, term_t t) {
    return ts->nodes[t].arity;
}
static inline term_t term_arg(const term_store_t *ts, term_t t, uint32_t i) {
    return ts->args[ts->nodes[t].args + i];
}
static inline const term_t *term_args(const term_store_t *ts, term_t t) {
    return ts->args + ts->nodes[t].args;
}
static inline size_t term_count(const term_store_t *ts) {
    return ts->n_nodes;
}

/* Looks a compound up without creating it: TERM_NONE when it does not exist yet. */
term_t term_find(const term_store_t *ts, sym_t f, const term_t *args, uint32_t n);
/* The ground instance of t under map (every variable of t must be mapped), without
 * creating terms: TERM_NONE when that instance does not exist in the store. */
term_t term_find_subst(const term_store_t *ts, term_t t, const term_t *map);

/* Appends the canonical text of t (trace format: "(f a b)", variables as ?vN). */
void term_print(const term_store_t *ts, term_t t, strbuf_t *out);
/* A canonical order of terms, the same whichever order they were made in (term ids are
 * not): by kind, name, arity, then arguments; <0, 0 or >0. */
int term_order(const term_store_t *ts, term_t a, term_t b);
/* Sorts terms in that order (insertion sort: for short lists such as legal moves). */
void term_sort(const term_store_t *ts, term_t *t, uint32_t n);
/* Largest variable number in t plus one (0 for a ground term). */
uint32_t term_var_bound(const term_store_t *ts, term_t t);
/* Replaces every variable v by map[v] (TERM_NONE leaves it). */
term_t term_subst(term_store_t *ts, term_t t, const term_t *map);
/* Adds offset to every variable number. */
term_t term_shift_vars(term_store_t *ts, term_t t, uint32_t offset);
/* Replaces every variable v by the first maps[k][v] that is not TERM_NONE (none: v stays). */
term_t term_subst_chain(term_store_t *ts, term_t t, const term_t *const *maps, uint32_t n);
/* Replaces every variable v by map[v] resolved in turn (map's bindings must not cycle). */
term_t term_resolve(term_store_t *ts, term_t t, const term_t *map);

#endif
