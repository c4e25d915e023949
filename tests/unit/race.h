/* A race of two tokens per role moved by step(i) (the move names no square), never taken:
 * shared by test_advance (distances read off the next rules) and test_uct (material whose
 * count never changes). */
#ifndef TESTS_UNIT_RACE_H
#define TESTS_UNIT_RACE_H

static const char *RACE = "(role a) (role b)\n"
                          "(init (tok a 1 0)) (init (tok a 2 0)) (init (tok b 1 0))\n"
                          "(init (tok b 2 0)) (init (control a))\n"
                          "(succ 0 1) (succ 1 2) (succ 2 3)\n"
                          "(<= (legal ?r (step ?i)) (true (control ?r))\n"
                          "    (true (tok ?r ?i ?p)) (succ ?p ?q))\n"
                          "(<= (legal a noop) (true (control b)))\n"
                          "(<= (legal b noop) (true (control a)))\n"
                          "(<= (next (tok ?r ?i ?q)) (does ?r (step ?i))\n"
                          "    (true (tok ?r ?i ?p)) (succ ?p ?q))\n"
                          "(<= (next (tok ?r ?i ?p)) (true (tok ?r ?i ?p))\n"
                          "    (not (does ?r (step ?i))))\n"
                          "(<= (next (control b)) (true (control a)))\n"
                          "(<= (next (control a)) (true (control b)))\n"
                          "(<= (home ?r) (true (tok ?r 1 3)) (true (tok ?r 2 3)))\n"
                          "(<= terminal (home ?r))\n"
                          "(<= (goal ?r 100) (home ?r))\n"
                          "(<= (goal ?r 0) (role ?r) (not (home ?r)))\n";

#endif
