/* Binary decision diagrams: the BuDDy library behind a small interface of variables and
 * handles. This bridge is the only file that includes BuDDy's bdd.h.
 *
 * A manager holds variables 0 .. n-1 and the diagrams made over them. A diagram is a
 * handle (dd_ref); 0 and 1 are the constants false and true. Every handle an operation
 * returns is referenced for the caller, who releases it with dd_deref (constants need
 * not be released); dd_dup takes one more reference.
 *
 * Work is bounded: an operation that runs past the manager's deadline or would need more
 * than its node limit gives up and returns DD_NONE (dd_why says which); the manager stays
 * usable. The deadline is also kept inside an operation: a timer signals the thread that
 * runs it (a real-time signal, SIGRTMIN + 5, handled here), and the operation gives up at
 * the next node it makes or its next recursive step, whichever comes first (a fault on a
 * page of this bridge's: SIGSEGV is handled here too, other faults go on to the handler
 * there was before). Operations on DD_NONE return DD_NONE, so a sequence of them can be
 * checked once at its end.
 *
 * The functions are named dd_*, not bdd_*: BuDDy, linked into the same program, owns
 * every bdd_* name. BuDDy keeps one global state, so there is at most one manager per
 * process at a time (dd_new refuses a second), used by one thread. A diagram meant for
 * other threads or for later is exported to a flat, read-only form (logic/ddflat.h). */
#ifndef LOGIC_BDD_H
#define LOGIC_BDD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logic/ddflat.h"

typedef int32_t dd_ref;
#define DD_FALSE ((dd_ref)0)
#define DD_TRUE ((dd_ref)1)
#define DD_NONE ((dd_ref)-1)

typedef struct dd dd_t;
typedef struct dd_subst dd_subst_t;

typedef struct {
    uint32_t max_nodes;   /* live nodes at most (0: 4 million) */
    double deadline;      /* now_seconds() time after which operations give up (0: none) */
    uint32_t start_nodes; /* the node table's size at the start (0: 64K; it grows as needed) */
} dd_limits_t;

/* A manager of n_vars variables, ordered by their numbers until dd_set_order. NULL with
 * a message in err when another manager is alive or BuDDy cannot start. */
dd_t *dd_new(uint32_t n_vars, const dd_limits_t *lim, char *err, size_t errlen);
void dd_free(dd_t *d);
uint32_t dd_var_count(const dd_t *d);
void dd_set_deadline(dd_t *d, double deadline);
/* The deadline in force (0: none), so that a caller who narrows it for one task (a node
 * of a network given a share of the time left) can put the caller's back. */
double dd_deadline(const dd_t *d);
/* Nodes one operation may add at most (0: no limit; checked when BuDDy collects garbage,
 * so an operation may pass it by up to the table's free nodes): past it the operation
 * gives up ("operation node limit"), so that one step that cannot finish does not eat
 * the whole table and budget. */
void dd_set_op_nodes(dd_t *d, uint64_t nodes);
uint64_t dd_op_nodes(const dd_t *d); /* the limit in force, to be put back */
/* Why the last operation that returned DD_NONE gave up ("deadline", "node limit",
 * "operation node limit", ...). */
const char *dd_why(const dd_t *d);
/* Whether the last operation that returned DD_NONE gave up at the deadline (a caller may
 * try again with more time), at the manager's node limit (the table is full), or at the
 * operation's own (dd_set_op_nodes). */
bool dd_out_of_time(const dd_t *d);
bool dd_at_node_limit(const dd_t *d);
bool dd_at_op_limit(const dd_t *d);
/* The next operation gives up at its first recursive step, as one that runs past its
 * deadline does when the timer fires (why: "deadline"): for tests of that cut that do not
 * depend on the clock. */
void dd_cut_next(dd_t *d);
/* Operations the deadline's timer cut while they ran (rather than before they started or
 * at a garbage collection that came by itself), since the process started. */
uint64_t dd_cuts_inside(const dd_t *d);
/* Nodes made since the manager started (the work done, whatever was freed since). */
uint64_t dd_produced(dd_t *d);

dd_ref dd_dup(dd_t *d, dd_ref a);
void dd_deref(dd_t *d, dd_ref a);

dd_ref dd_var(dd_t *d, uint32_t v);  /* the variable */
dd_ref dd_nvar(dd_t *d, uint32_t v); /* its negation */
dd_ref dd_not(dd_t *d, dd_ref a);
dd_ref dd_and(dd_t *d, dd_ref a, dd_ref b);
dd_ref dd_or(dd_t *d, dd_ref a, dd_ref b);
dd_ref dd_imp(dd_t *d, dd_ref a, dd_ref b);
dd_ref dd_diff(dd_t *d, dd_ref a, dd_ref b); /* a ∧ ¬b in one pass (no ¬b made) */
dd_ref dd_biimp(dd_t *d, dd_ref a, dd_ref b);
dd_ref dd_ite(dd_t *d, dd_ref c, dd_ref t, dd_ref e);
/* The conjunction of the literals vars[k] = vals[k] (vals NULL: all true). */
dd_ref dd_cube(dd_t *d, const uint32_t *vars, const bool *vals, uint32_t n);

/* Quantification over the variables of a positive cube (dd_cube with vals NULL). */
dd_ref dd_exists(dd_t *d, dd_ref a, dd_ref vars);
dd_ref dd_forall(dd_t *d, dd_ref a, dd_ref vars);
/* ∃vars (a ∧ b) and ∀vars (a → b), each in one pass. */
dd_ref dd_and_exists(dd_t *d, dd_ref a, dd_ref b, dd_ref vars);
dd_ref dd_imp_forall(dd_t *d, dd_ref a, dd_ref b, dd_ref vars);
/* a with the variables of the cube fixed to the cube's values (a cofactor). */
dd_ref dd_restrict(dd_t *d, dd_ref a, dd_ref cube);
/* A diagram equal to a wherever care holds, anything elsewhere, usually smaller (Coudert
 * and Madre's restrict: BuDDy's bdd_simplify). */
dd_ref dd_simplify(dd_t *d, dd_ref a, dd_ref care);

/* Simultaneous substitution of diagrams for variables (variables not set stay). */
dd_subst_t *dd_subst_new(dd_t *d);
void dd_subst_set(dd_t *d, dd_subst_t *s, uint32_t var, dd_ref f);
dd_ref dd_subst(dd_t *d, dd_ref a, const dd_subst_t *s);
void dd_subst_free(dd_t *d, dd_subst_t *s);
/* Renaming, a substitution of variables for variables (made with dd_subst_new, set with
 * dd_subst_rename only): faster than dd_subst. The new variables must not occur in a. */
void dd_subst_rename(dd_t *d, dd_subst_t *s, uint32_t var, uint32_t to);
dd_ref dd_rename(dd_t *d, dd_ref a, const dd_subst_t *s);

/* Nodes of a (0 and 1 for constants), of several diagrams shared. */
uint64_t dd_nodes(dd_t *d, dd_ref a);
uint64_t dd_nodes_shared(dd_t *d, const dd_ref *a, uint32_t n);
/* Satisfying assignments of a over the variables of the positive cube vars (which must
 * hold every variable a depends on). */
double dd_count(dd_t *d, dd_ref a, dd_ref vars);
/* a under a full assignment (values[v] for variable v). */
bool dd_eval(dd_t *d, dd_ref a, const uint8_t *values);
/* One satisfying assignment of a: the variables on one path to true set in values (the
 * others left as they are: any value satisfies a); false when a is false or DD_NONE. */
bool dd_pick(dd_t *d, dd_ref a, uint8_t *values);

/* The variable order: level_var[l] is the variable at level l (top first). Clears the
 * groups (dd_group). On a manager with no diagram made yet and no group (right after
 * dd_new) no variable moves: they are numbered in BuDDy so that its initial order is this
 * one (a reorder of 2,000 variables took seconds); the numbers given out stay the same. */
void dd_set_order(dd_t *d, const uint32_t *level_var);
uint32_t dd_level_of(dd_t *d, uint32_t v);
/* Variables first..last (by number, an interval of the current order) move together when
 * the order changes. Once a group is made, only grouped variables move (make singleton
 * groups for the others); with none, every variable moves alone. */
void dd_group(dd_t *d, uint32_t first, uint32_t last);
/* Reorders the variables now by sifting (groups kept together); returns the nodes in use
 * before and after in *before and *after. */
void dd_reorder(dd_t *d, uint64_t *before, uint64_t *after);
/* Live nodes in the manager. */
uint64_t dd_live_nodes(dd_t *d);

/* Exports diagrams into a flat form (its nodes and roots replaced; roots[k] becomes
 * out->roots[k]); the caller says what each variable tests (ddflat_set_vars). */
void dd_export(dd_t *d, const dd_ref *roots, uint32_t n, ddflat_t *out);

#endif
