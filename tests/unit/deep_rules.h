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

/* `(s (s ... x))`, x nested k levels deep. */
static inline void deep_nest(strbuf_t *sb, unsigned k, const char *x) {
    for (unsigned i = 0; i < k; i++)
        sb_puts(sb, "(s ");
    sb_puts(sb, x);
    for (unsigned i = 0; i < k; i++)
        sb_putc(sb, ')');
}

/* n relations, each nesting its argument k levels deeper than the one before: the only
 * legal move, (m x), holds a term nested n * k deep (2,000 relations of 490 levels, each
 * within the reader's 500 parentheses, made the grounder and then the printing of the move
 * recurse 980,000 deep; the reader now refuses terms past 400 levels, so k stays below). */
static inline void deep_nesting_chain(strbuf_t *sb, unsigned n, unsigned k) {
    char holds[32];
    snprintf(holds, sizeof holds, "(q%u ?x)", n);
    sb_puts(sb, "(role r) (init (step 0)) (<= (next (step 1)) (true (step 0))) "
                "(<= terminal (true (step 1))) (<= (goal r 100) (true (step 1))) "
                "(<= (goal r 0) (true (step 0))) (q0 z)\n");
    sb_printf(sb, "(<= (legal r (m ?x)) %s)\n", holds);
    for (unsigned i = 0; i < n; i++) {
        sb_printf(sb, "(<= (q%u ", i + 1);
        deep_nest(sb, k, "?x");
        sb_printf(sb, ") (q%u ?x))\n", i);
    }
}

/* A fluent nested k levels deeper every turn, (c z) first: the only legal move, (m x),
 * carries it; the game ends after `turns` turns. */
static inline void deep_nesting_turns(strbuf_t *sb, unsigned k, unsigned turns) {
    sb_puts(sb, "(role r) (init (c z)) (init (step 0)) (<= (legal r (m ?x)) (true (c ?x)))\n"
                "(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))\n(<= (next (c ");
    deep_nest(sb, k, "?x");
    sb_printf(sb,
              ")) (true (c ?x)))\n(<= terminal (true (step %u))) (<= (goal r 100) terminal) "
              "(<= (goal r 0) (not terminal))\n",
              turns);
    for (unsigned i = 0; i < turns; i++)
        sb_printf(sb, "(succ %u %u)\n", i, i + 1);
}

#endif
