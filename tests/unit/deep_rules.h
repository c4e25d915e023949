/* Game texts whose evaluation recurses deeply, generated (never committed as files): what
 * a game master may send to end a player by stack overflow. Each is a valid one-step game
 * whose only legal move needs the deep part; the reasoner must give up on it instead of
 * overflowing (engine/reason.c, "the recursion's stack"). */
#ifndef TESTS_UNIT_DEEP_RULES_H
#define TESTS_UNIT_DEEP_RULES_H

#include "base/util.h"

/* Role r, one step; (legal r go) when the literal `holds` holds. */
static inline void deep_frame(strbuf_t *sb, const char *holds) {
    sb_printf(sb,
              "(role r) (init (step 0)) (<= (next (step 1)) (true (step 0))) "
              "(<= terminal (true (step 1))) (<= (goal r 100) (true (step 1))) "
              "(<= (goal r 0) (true (step 0))) (<= (legal r go) %s)\n",
              holds);
}

/* n relations, each defined by the next: p0 <= p1 <= ... <= pn, pn a fact. Computing p0
 * computes p1 first, and so on (one recursion level of the reasoner per relation). */
static inline void deep_relation_chain(strbuf_t *sb, unsigned n) {
    deep_frame(sb, "p0");
    for (unsigned i = 0; i < n; i++)
        sb_printf(sb, "(<= p%u p%u)\n", i, i + 1);
    sb_printf(sb, "p%u\n", n);
}

/* A successor chain of n facts walked top-down: (reach n) holds through reach n-1, ...,
 * reach 0, each a memoised call of its own (reach depends on the state, so it is answered
 * per call with its argument bound). */
static inline void deep_call_chain(strbuf_t *sb, unsigned n) {
    char holds[64];
    snprintf(holds, sizeof holds, "(reach %u)", n);
    deep_frame(sb, holds);
    sb_puts(sb, "(<= (reach 0) (true (step 0)))\n(<= (reach ?y) (succ ?x ?y) (reach ?x))\n");
    for (unsigned i = 0; i < n; i++)
        sb_printf(sb, "(succ %u %u)\n", i, i + 1);
}

#endif
