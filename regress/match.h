/* The native state check: does a ground state satisfy an expanded formula?
 *
 * A formula is compiled once into a program per scope: positive `true` patterns joined
 * against the state's facts (bucketed by functor, ground ones looked up by binary search),
 * checks (`not true`, distinct, `=`) placed as soon as their variables are bound, negated
 * scopes last. Evaluation is a backtracking conjunctive query with negation; it allocates
 * nothing (the index and the bindings are preallocated), so it can run in every rollout
 * step. Only expanded formulas (true, not true, distinct, =, negated scopes) compile.
 *
 * Unbound variables follow the formula semantics over an infinite universe: a distinct or
 * `not true` still mentioning one holds. */
#ifndef REGRESS_MATCH_H
#define REGRESS_MATCH_H

#include "engine/state.h"
#include "regress/form.h"

typedef struct match match_t;
typedef struct match_state match_state_t;

/* NULL when f is not expanded. The program keeps term ids only: f may be freed after. */
match_t *match_new(const term_store_t *ts, const form_t *f);
void match_free(match_t *m);

/* A state's facts indexed for matching; reusable across states and formulas. */
match_state_t *match_state_new(void);
void match_state_free(match_state_t *ms);
void match_state_set(match_state_t *ms, const term_store_t *ts, const state_t *s);

bool match_eval(match_t *m, const match_state_t *ms);
/* The same in at most max_work steps (one step: one literal tried under one binding):
 * 1 or 0, or -1 when it gave up. A deep formula can take seconds on one state; a caller
 * on a clock bounds it with this. */
int match_eval_within(match_t *m, const match_state_t *ms, uint64_t max_work);
/* The disjunct (index into the formula's d) that made the last evaluation true: the
 * first one that holds, in order; -1 after a false answer or giving up. */
int32_t match_hit(const match_t *m);
/* Steps taken by the last evaluation. */
uint64_t match_work(const match_t *m);
/* True once an evaluation met a term instance the store never built (its answer may then
 * be wrong; it does not happen with formulas from expand). */
bool match_inexact(const match_t *m);
/* Index and evaluate in one call. */
bool match_check(match_t *m, match_state_t *ms, const state_t *s);

#endif
