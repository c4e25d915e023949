/* The Z3 bridge: the only file of the project that includes z3.h (scripts/check_layers.sh
 * fails the build's `layers` test otherwise).
 *
 * A context (z3_t) holds Boolean terms and the solvers that use them; one thread uses a
 * context at a time. Terms are handles (z3_term_t) the context keeps referenced:
 *   - variables, numbered by the caller (fluent ids, fluents at the steps of an
 *     unrolling, ...) and made on first use, the same Z3 constant in every circuit;
 *   - the nodes of a circuit (logic/circuit.h), encoded by an encoder as plain terms
 *     (and, or, not over the variables), each node once, for the encoder's life.
 * A solver takes terms as assertions, an equivalence, "exactly one of" as pseudo-Boolean
 * constraints, or a circuit as clauses under a fresh selector (Tseitin: one fresh Boolean
 * per and/or node, so that the solver receives plain clauses); scopes (push/pop) hold a
 * query's own assertions. It decides satisfiability under assumptions by a deadline and
 * gives the model of a satisfiable check. Evaluation (z3_eval) decides a term in a total
 * assignment of its variables by Z3's model evaluator: no search, no solver.
 *
 * Deadlines are arguments of the queries that search (z3_check), never a setting. A check
 * runs in rounds of conflicts (Z3's `max_conflicts`): the first at most 2,000, each next
 * half the time left at the rate of conflicts the solver has shown; past the deadline it
 * answers unknown (called past it, at once: no round starts). A round, with the internalising
 * of what was asserted since the last check, runs under a watchdog thread that calls
 * Z3_interrupt when the deadline passes: an interrupted check answers unknown (z3_stats:
 * interrupted), and so does every later check of that solver (z3_solver_spoiled): an
 * interrupted Z3 4.8.12 solver answers wrongly afterwards (test_z3 saw it call 6 pigeons
 * in 5 holes satisfiable; a check its `timeout` canceled gave models with every open
 * variable false, docs/killer.md). The context and its other solvers are not affected.
 * Building a model and asserting are not interrupted.
 *
 * Errors: a Z3 error never ends the process and is never read as an answer. The context
 * records it (z3_stats: errors; the message on stderr, once) and fails: that query and
 * every later one answer unknown (-1), and terms made after it are 0 (no term), which
 * every function accepts. A caller treats "unknown" as it does a check out of time. */
#ifndef LOGIC_Z3_H
#define LOGIC_Z3_H

#include "base/util.h"
#include "logic/circuit.h"

typedef struct z3 z3_t;
typedef struct z3_enc z3_enc_t;
typedef struct z3_solver z3_solver_t;
/* A term the context keeps; 0: no term (only after an error). */
typedef uint32_t z3_term_t;

typedef struct {
    uint64_t checks;    /* z3_check calls that reached the solver */
    uint64_t rounds;    /* solver calls of those checks (a check may take several) */
    uint64_t gave_up;   /* checks that ran out of their deadline: unknown */
    double seconds;     /* the checks' total time */
    double max_seconds; /* the longest check */
    uint64_t models;    /* models read */
    double model_seconds;
    uint64_t errors;      /* Z3 errors (the first fails the context) */
    uint64_t interrupted; /* checks the watchdog interrupted at their deadline */
} z3_stats_t;

z3_t *z3_new(void);
void z3_free(z3_t *z);
z3_stats_t z3_stats(const z3_t *z);
/* The statistics as one line's phrase: "z3 N checks, ... N rounds". */
void z3_stats_print(const z3_stats_t *st, strbuf_t *out);
/* True once a Z3 error failed the context. */
bool z3_failed(const z3_t *z);
/* The solver's version string, "4.8.12". */
const char *z3_version(void);

/* ---- terms ---- */
/* Variable v, and its literal of the given value (v or not v); kept for the context's
 * life. */
z3_term_t z3_var(z3_t *z, uint32_t v);
z3_term_t z3_lit(z3_t *z, uint32_t v, bool value);
/* The constant true or false. */
z3_term_t z3_const(z3_t *z, bool value);
/* An extra reference to t (a term an encoder made, kept past the encoder), released by
 * z3_release. */
void z3_keep(z3_t *z, z3_term_t t);
void z3_release(z3_t *z, z3_term_t t);

/* Circuit c's nodes as plain terms, built when first asked (shared subcircuits once). c
 * may grow meanwhile; it is read only by z3_enc_term. Terms are valid until z3_enc_free,
 * those kept (z3_keep) longer. */
z3_enc_t *z3_enc_new(z3_t *z, const circuit_t *c);
void z3_enc_free(z3_enc_t *e);
z3_term_t z3_enc_term(z3_enc_t *e, pn_t n);

/* The value of term t in the assignment giving variable v the value truth[v], v < n
 * (variables from n on: false): 1, 0, or -1 (an error). */
int z3_eval(z3_t *z, z3_term_t t, const uint8_t *truth, uint32_t n);

/* ---- solvers ---- */
/* sat_engine: Z3's SAT engine on the clauses (hard one-off queries; every check starts
 * afresh); otherwise the incremental solver (clauses learned stay between checks). */
z3_solver_t *z3_solver_new(z3_t *z, bool sat_engine);
void z3_solver_free(z3_solver_t *s);
void z3_assert(z3_solver_t *s, z3_term_t t);
void z3_assert_iff(z3_solver_t *s, z3_term_t a, z3_term_t b);
/* At most one of ts[0..n), and at least one when guard holds (z3_const(z, true): always;
 * n = 0: guard is false), as pseudo-Boolean constraints. */
void z3_assert_one(z3_solver_t *s, z3_term_t guard, const z3_term_t *ts, uint32_t n);
/* sel => root, root asserted as clauses (Tseitin); returns sel, a fresh variable kept for
 * the context's life: assumed true, it makes the solver require root. */
z3_term_t z3_assert_selected(z3_solver_t *s, const circuit_t *c, pn_t root);
/* A scope: what is asserted after z3_push goes at the matching z3_pop. */
void z3_push(z3_solver_t *s);
void z3_pop(z3_solver_t *s);
/* Satisfiability of the assertions and assume[0..n): 1 sat, 0 unsat, -1 unknown (the
 * deadline passed, now_seconds() time, 0: none; or an error). The constant true among
 * the assumptions is dropped, the constant false answers 0 at once. */
int z3_check(z3_solver_t *s, const z3_term_t *assume, uint32_t n, double deadline);
/* Internalises what was asserted since the last check, with no search and no watchdog (so
 * it never spoils the solver): a check under the assumption of a variable asserted false,
 * refuted as soon as the assertions are in. Its time is the internalising, which the
 * caller bounds by asserting little between two (a check of one conflict searched up to
 * 2.5 s on the full killer game: no conflict before a whole assignment). First called
 * out of every scope; true when done. */
bool z3_settle(z3_solver_t *s);
/* True once a check of s was interrupted (its deadline passed mid-round): s answers
 * unknown from then on (an interrupted Z3 4.8.12 solver was seen calling a pigeonhole
 * formula satisfiable); a caller that needs answers makes a new solver. */
bool z3_solver_spoiled(const z3_solver_t *s);
/* For tests only: the watchdog of the next check fires at once, as if its deadline had
 * passed when it started (the check answers unknown, counted as interrupted). */
void z3_test_interrupt(z3_t *z);
/* The value of t in the model of the solver's last check, which must have answered 1
 * (read once per check): 1, 0, or -1 (no model). */
int z3_value(z3_solver_t *s, z3_term_t t);

#endif
