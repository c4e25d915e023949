/* Term states: a state as the sorted list of its true fluents (ground terms). The
 * interpreter's states, and the form in which states cross the engine interface
 * (engine_state_terms / engine_state_set), are kept in sets (belief tracking, the exact
 * solver) and are read by the lifted matcher of backward search (regress/match.h). */
#ifndef ENGINE_STATE_H
#define ENGINE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "gdl/term.h"

/* A state: the true fluents, ground terms, sorted by term id, without duplicates. */
typedef struct {
    term_t *facts;
    uint32_t n, cap;
} state_t;

void state_init(state_t *s);
void state_fini(state_t *s);
void state_copy(state_t *dst, const state_t *src);
bool state_equal(const state_t *a, const state_t *b);
uint64_t state_hash(const state_t *s);
bool state_has(const state_t *s, term_t fluent);
/* Appends a fluent (the state is then unsorted until state_normalise). */
void state_push(state_t *s, term_t fluent);
/* Sorts and deduplicates s->facts in place. */
void state_normalise(state_t *s);

#endif
