/* A game whose one role has 4^8 = 65536 legal moves in each of two rounds, one more than a
 * 16-bit move count holds (a "choose a number" game, made of digits): no player may end
 * the process over it. Picking a first digit 3 in the last round wins. */
#ifndef TESTS_UNIT_MANY_MOVES_H
#define TESTS_UNIT_MANY_MOVES_H

#define MANY_MOVES_N 65536u

static const char *const MANY_MOVES_GAME =
    "(role chooser) (init (round 0)) (digit 0) (digit 1) (digit 2) (digit 3) "
    "(succ 0 1) (succ 1 2) "
    "(<= (legal chooser (choose ?a ?b ?c ?d ?e ?f ?g ?h)) (true (round ?r)) (distinct ?r 2) "
    "(digit ?a) (digit ?b) (digit ?c) (digit ?d) (digit ?e) (digit ?f) (digit ?g) (digit ?h)) "
    "(<= (next (round ?s)) (true (round ?r)) (succ ?r ?s)) "
    "(<= (next (picked ?a)) (does chooser (choose ?a ?b ?c ?d ?e ?f ?g ?h))) "
    "(<= terminal (true (round 2))) "
    "(<= (goal chooser 100) (true (picked 3))) "
    "(<= (goal chooser 0) (not (true (picked 3))))";

#endif
