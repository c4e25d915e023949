/* Subsumption between lifted conjunctions: a homomorphism search.
 *
 * P maps into targets T when some substitution σ of P's pattern variables makes every
 * literal of Pσ occur among the direct literals of the scopes in T; a negated scope
 * NOT(Q) of P is matched by a NOT(Q') of a target when Q' in turn maps into Qσ (then
 * not Q' implies not Qσ). When P maps into T, the conjunction of T's literals implies
 * ∃P: this drops subsumed disjuncts, negations that the context already refutes, and
 * negations implied by a sibling. The search is bounded; running out answers "no",
 * which only costs a missed simplification. */
#ifndef REGRESS_SUBSUME_H
#define REGRESS_SUBSUME_H

#include "regress/form.h"

typedef struct subsume subsume_t;

subsume_t *subsume_new(term_store_t *ts);
void subsume_free(subsume_t *s);

/* Every variable number of the formulas compared is below cap. */
void subsume_set_cap(subsume_t *s, uint32_t cap);
/* pv[v] != 0 marks the pattern variables (pv sized cap). */
bool subsume_conj(subsume_t *s, const fconj_t *P, const uint8_t *pv, const fconj_t *const *T,
                  uint32_t nt);
/* The same for many P against the same targets T (plus, per call, an optional extra
 * one first): T's variables are collected once. T must not change in between; the
 * next subsume_share replaces it. */
void subsume_share(subsume_t *s, const fconj_t *const *T, uint32_t nt);
bool subsume_shared(subsume_t *s, const fconj_t *P, const uint8_t *pv, const fconj_t *extra);

/* A 64-bit signature of a scope's direct literals (kinds and functors): P can map into T
 * only when sig(P) & ~(sig of T's scopes) == 0. */
uint64_t fconj_sig(const term_store_t *ts, const fconj_t *c);

/* A 256-bit Bloom filter of a scope's ground own literals: P maps into T only if
 * bloom(P) is a subset of bloom(T) (a ground literal of P must occur in T). */
void fconj_bloom(const term_store_t *ts, const fconj_t *c, uint64_t out[4]);

#endif
