/* A trap in a game of two roles that is not zero-sum: shared by test_uct (implicit minimax
 * on the goals' difference, uct_set_implicit_nonzero) and test_player_mcts (the player's
 * default, immnz=on). */
#ifndef TESTS_UNIT_TRAP_H
#define TESTS_UNIT_TRAP_H

/* A trap in a game that is not zero-sum (the goals add up to 90): white may take a black
 * piece (greedy), after which black takes two of white's (punish) or idles five ways, or
 * play safe (black then passes). Greedy leaves white 40 against black's punish (60 if black
 * idles), safe 50; black's own goals agree (punish 50, idle 30, after safe 40). Each
 * role's pieces carry its name: material. */
static const char *TRAP = "(role white) (role black)\n"
                          "(init (has white w1)) (init (has white w2)) (init (has white w3))\n"
                          "(init (has black b1)) (init (has black b2)) (init (has black b3))\n"
                          "(init (control white)) (init (step 0))\n"
                          "(idx 1) (idx 2) (idx 3) (idx 4) (idx 5)\n"
                          "(<= (legal white greedy) (true (control white)))\n"
                          "(<= (legal white safe) (true (control white)))\n"
                          "(<= (legal black noop) (true (control white)))\n"
                          "(<= (legal white noop) (true (control black)))\n"
                          "(<= (legal black punish) (true (control black)) (true (took)))\n"
                          "(<= (legal black (idle ?k)) (true (control black)) (true (took))\n"
                          "    (idx ?k))\n"
                          "(<= (legal black pass) (true (control black)) (not (true (took))))\n"
                          "(<= (next (control black)) (true (control white)))\n"
                          "(<= (next (control white)) (true (control black)))\n"
                          "(<= (next (took)) (does white greedy))\n"
                          "(<= (next (took)) (true (took)))\n"
                          "(<= (gone b1) (does white greedy))\n"
                          "(<= (gone w1) (does black punish))\n"
                          "(<= (gone w2) (does black punish))\n"
                          "(<= (next (has ?r ?p)) (true (has ?r ?p)) (not (gone ?p)))\n"
                          "(<= (next (step 1)) (true (step 0)))\n"
                          "(<= (next (step 2)) (true (step 1)))\n"
                          "(<= terminal (true (step 2)))\n"
                          "(<= (goal white 40) (not (true (has black b1)))\n"
                          "    (not (true (has white w1))))\n"
                          "(<= (goal white 60) (not (true (has black b1))) (true (has white w1)))\n"
                          "(<= (goal white 50) (true (has black b1)))\n"
                          "(<= (goal black 50) (not (true (has white w1))))\n"
                          "(<= (goal black 30) (true (has white w1)) (not (true (has black b1))))\n"
                          "(<= (goal black 40) (true (has black b1)))\n";

#endif
