/* Enumerating a rule's bindings over the atom store: a plan per rule (and per semi-naive
 * delta literal) orders the body so that filters run as soon as their variables are bound
 * and each positive literal is read through an index on its bound variables, the most
 * selective first (estimated from the predicates' sizes and distinct values per argument).
 *
 * Two uses. derive: the head atoms of the bindings that read at least one atom of a range
 * of new ids (semi-naive), ignoring negation of non-static relations (relaxed
 * reachability); once the head's variables are bound the rest only has to hold once, and
 * not at all when the head atom is already known. instances: every binding over the atoms
 * known, negation included as literals of the ground rule; bindings that differ only in
 * variables of static literals give one instance. */
#ifndef ENGINE_GJOIN_H
#define ENGINE_GJOIN_H

#include "base/htab.h"
#include "engine/gatoms.h"
#include "engine/gprog.h"
#include "gdl/bind.h"

enum { GS_SCAN, GS_LOOKUP, GS_NEG, GS_DISTINCT };
enum { GR_ALL, GR_OLD, GR_DELTA };

typedef struct {
    uint8_t op, range;
    bool dyn;                  /* a literal of a relation that is not static */
    uint32_t lit;              /* body index */
    uint32_t index;            /* SCAN: the index read, GATOM_NONE: the predicate's list */
    uint32_t n_key, *key_vars; /* SCAN through an index: the rule variables of its key */
    uint32_t binds_need;       /* variables this step binds that the cut waits for */
    double est;                /* expected candidates per binding reaching this step */
    uint32_t n_memo, *memo;    /* derive: when some bound variable is read no more, the
                                * variables that still are (the state this step is in) */
} gstep_t;

typedef struct {
    gstep_t *steps;
    uint32_t n_steps;
    uint32_t cut;    /* steps from here on only have to hold once */
    uint32_t *sizes; /* each body relation's size when planned */
    double work;     /* expected partial bindings visited (per delta atom for a delta plan;
                      * up to the cut for a head-first plan) */
    double work_all; /* the same through every step (a head-first plan's witnesses too) */
    double heads;    /* expected bindings reaching the cut (a head-first plan: candidate heads) */
} gplan_t;

typedef struct gjoin gjoin_t;
/* Called at each binding; the binding is J->b.val, the atom read by step s J->matched[s]
 * (for a negation of a dynamic relation the atom or GATOM_NONE). */
typedef void (*gjoin_emit_fn)(void *arg, gjoin_t *J);

struct gjoin {
    gprog_t *P;
    gatoms_t *A;
    term_store_t *ts;
    double deadline;   /* 0: none */
    uint64_t max_work; /* join steps before giving up (0: no limit) */
    bool stop;         /* out of time or work (below), or the caller said so */
    bool out_of_time, out_of_work;
    uint64_t work; /* join steps: candidate atoms tried and partial bindings reached */
    /* the rule being enumerated */
    const gp_rule_t *rule;
    const gplan_t *plan;
    bind_t b; /* the binding: b.val[v] the value of the rule's variable v */
    uint32_t *matched;
    uint32_t lo, hi;
    bool derive;
    gjoin_emit_fn emit;
    void *arg;
    /* caches */
    gplan_t ***plans; /* per rule: n_body + 1 plans (derive: by delta literal; last: full) */
    uint32_t n_plans, *plan_slots; /* slots made per rule (its body may grow later) */
    double **ndv;                  /* per predicate: distinct values per argument */
    uint32_t *ndv_at, n_ndv;
    size_t cap_map;
    /* derive: the states already visited in this enumeration (step and live values) */
    htab_t seen;                   /* ids of visited states */
    uint32_t *seen_hash, *seen_at; /* per state: its hash, its values' offset in seen_vals */
    size_t seen_cap;
    term_t *seen_vals;
    size_t vals_n, vals_cap;
};

void gjoin_init(gjoin_t *J, gprog_t *P, gatoms_t *A, double deadline, uint64_t max_work);
void gjoin_fini(gjoin_t *J);

/* New head atoms of rule r from bindings reading at least one atom with id in [lo, hi) and
 * only atoms below hi (lo = 0: every binding). */
void gjoin_derive(gjoin_t *J, uint32_t r, uint32_t lo, uint32_t hi, gjoin_emit_fn emit, void *arg);
/* Every binding of rule r over the atoms known, once per distinct binding of the head's
 * variables and those of its non-static literals. */
void gjoin_instances(gjoin_t *J, uint32_t r, gjoin_emit_fn emit, void *arg);

#endif
