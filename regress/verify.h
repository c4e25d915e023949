/* Checking the sequences against the exact solver, on every reachable state.
 *
 * For a formula claimed to be α_i of a role: every reachable state that satisfies it
 * (native matcher) must be in the exact set W_i (0 false positives) and must let the role
 * force a win within i rounds per the solver; when the formula is complete, every state
 * of W_i must satisfy it (0 misses). Optionally Z3 decides every state too and must agree
 * with the matcher. Mutex invariants must hold on every reachable state. */
#ifndef REGRESS_VERIFY_H
#define REGRESS_VERIFY_H

#include "engine/engine.h"
#include "regress/expand.h"
#include "regress/form.h"
#include "regress/match.h"
#include "truth/bounded.h"

typedef struct {
    uint32_t states;      /* reachable states checked */
    uint32_t exact;       /* states in W_i */
    uint32_t hits;        /* states satisfying the formula */
    uint32_t false_pos;   /* hits outside W_i */
    uint32_t late;        /* hits where the role cannot force a win within i rounds */
    uint32_t misses;      /* states of W_i not satisfying it */
    uint32_t z3_checked;  /* states Z3 decided (solver; evaluator on hits) */
    uint32_t z3_disagree; /* Z3 and the matcher differ */
    uint32_t z3_unknown;
    bool z3_too_big; /* its grounding passed the node limit: Z3 did not check it */
    bool inexact;    /* the matcher met an unrepresentable instance */
    double match_seconds, z3_seconds;
} verify_row_t;

typedef struct verify verify_t;

/* Solves e's game on e (NULL with a message past max_states); Z3 grounds on e's
 * vocabulary (vocab.h). noop: each role's no-op. e must outlive v. */
verify_t *verify_new(engine_t *e, const term_t *noop, uint32_t max_states, char *err,
                     size_t errlen);
void verify_free(verify_t *v);
uint32_t verify_states(const verify_t *v);

/* Checks f as α_i of role (β_i: the other role's α_i). */
void verify_formula(verify_t *v, const form_t *f, uint32_t role, uint32_t i, bool use_z3,
                    verify_row_t *out);

/* States where a mutex group has two members (0 expected). */
uint32_t verify_mutex(const verify_t *v, const mutex_t *m);

/* ---- on sample states of a big game, by the bounded search (truth/bounded.h) ----
 * A formula claimed to be α_i of role, checked on given states. */
typedef struct {
    uint32_t states;       /* states looked at (within the time limit) */
    uint32_t hits;         /* states the matcher says satisfy it */
    uint32_t false_pos;    /* hits the search says are not in W_i */
    uint32_t misses;       /* with misses asked for: states of W_i it does not hit */
    uint32_t miss_checked; /* non-hit states searched for misses */
    uint32_t undecided;    /* searches that gave up at the node limit */
    uint32_t first_false;  /* index of the first false positive's state (if any) */
    double seconds;
} verify_bounded_row_t;

typedef struct {
    uint64_t max_nodes; /* per search (0: no limit) */
    double deadline;    /* now_seconds() after which no state is started and a search
                           gives up (undecided); 0: none */
    bool misses;        /* also search the states it does not hit */
    bool stop_at_false; /* stop at the first false positive (a guard needs no more) */
} verify_bounded_opts_t;

/* The matcher m (of the formula) on each state; every hit decided by the search, and with
 * o->misses every other state too. */
void verify_bounded(bounded_t *b, match_t *m, const state_t *states, uint32_t n, uint32_t role,
                    uint32_t i, const verify_bounded_opts_t *o, verify_bounded_row_t *out);

#endif
