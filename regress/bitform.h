/* Grounded formulas evaluated on bitset states: straight-line code over 64-bit words.
 *
 * A circuit (logic/circuit.h) whose variables are fluents is compiled, given the bit each fluent
 * occupies in a state's words, into a program: its gates in dependency order, each an AND
 * or an OR of word tests (the fluent literals grouped by word: one test covers up to 64 of
 * them) and of earlier gates. The roots (a formula's disjuncts) are tried in order, each
 * right after the last gate it needs, and the first that holds is reported, as match_hit
 * does for the lifted matcher. Evaluation allocates nothing: the gate values live in the
 * program, so one program is used by one thread at a time. */
#ifndef REGRESS_BITFORM_H
#define REGRESS_BITFORM_H

#include "base/clock.h"
#include "regress/formground.h"

typedef struct bitform bitform_t;

/* roots[0..n) of c. var_bit[v]: the state bit of circuit variable v, UINT32_MAX for a
 * fluent no state has (never true). NULL when the program would exceed max_size gates,
 * tests and gate inputs in all (0: no limit). */
bitform_t *bitform_new(const circuit_t *c, const pn_t *roots, uint32_t n, const uint32_t *var_bit,
                       uint32_t max_size);
void bitform_free(bitform_t *b);
/* The same program with gate values of its own, for another thread; b must outlive it. */
bitform_t *bitform_clone(const bitform_t *b);

/* The first root that holds in the state whose words are `bits`, or -1: gates on demand,
 * each input read only while it can still decide its gate (short-circuit), each gate at
 * most once. */
int32_t bitform_eval(bitform_t *b, const uint64_t *bits);
/* The same answer by evaluating every gate in order up to the root that holds (straight
 * line, no short-circuit between gates): the simpler way, kept to check and time the other. */
int32_t bitform_eval_all(bitform_t *b, const uint64_t *bits);
/* Gates, tests and gate inputs: the program's size (its cost on a state). */
uint32_t bitform_size(const bitform_t *b);
/* The highest word index the program reads, plus one (0: none). */
uint32_t bitform_words(const bitform_t *b);

/* What of an expanded formula becomes roots. */
typedef enum {
    BF_DISJUNCTS, /* one root per disjunct, without the common conjunct */
    BF_FULL,      /* one root per disjunct, each with the common conjunct */
    BF_COMMON,    /* one root: the common conjunct alone (true when there is none) */
} bf_part_t;

/* f grounded on v, an engine's vocabulary (vocab_bits: each fluent's state bit), and
 * compiled. NULL when the grounding passes `nodes` circuit nodes or the deadline
 * (now_seconds(); 0: none), or the program max_size, or v has no state bits (the
 * interpreter's). */
bitform_t *bitform_of_form(const vocab_t *v, term_store_t *ts, const form_t *f, bf_part_t part,
                           uint32_t nodes, uint32_t max_size, double deadline);

#endif
