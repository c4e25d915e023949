/* Backward search in the unit tests: the sequences of role 0 to a depth, without a clock
 * (so the same formulas every run). Include after cmocka.h. */
#ifndef TESTS_UNIT_SEQUENCES_H
#define TESTS_UNIT_SEQUENCES_H

#include "regress/regress.h"

/* alpha_0..alpha_steps and beta_0..beta_steps of role 0 (regress_free it). */
static inline regress_t *run_sequences(engine_t *r, uint32_t steps) {
    regress_opts_t o;
    regress_default_opts(&o);
    o.budget = 0;
    o.max_steps = steps;
    char err[300];
    regress_t *rg = regress_new(r, 0, &o, err, sizeof err);
    if (!rg) fprintf(stderr, "regress_new: %s\n", err);
    assert_non_null(rg);
    regress_run(rg, NULL, NULL);
    return rg;
}

#endif
