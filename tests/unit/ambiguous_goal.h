/* A defective goal, for the tests that read it alike everywhere (test_engine.c,
 * test_regress_sound.c): when a picks x, a's goal rules derive 100 and 0 at once (the
 * reference game master rejects such a state). The project reads it one way everywhere:
 * the highest value counts (engine_goal_value), so the state is a win for a, as α_0's
 * goal(a, 100) claims; a plays x, b waits, the match ends. */
#ifndef TESTS_UNIT_AMBIGUOUS_GOAL_H
#define TESTS_UNIT_AMBIGUOUS_GOAL_H

static const char *const ambiguous_goal_game =
    "(role a) (role b) (init (control a))\n"
    "(<= (legal a (pick x)) (true (control a))) (<= (legal a (pick y)) (true (control a)))\n"
    "(<= (legal a noop) (true (control b))) (<= (legal b noop) (true (control a)))\n"
    "(<= (legal b wait) (true (control b)))\n"
    "(<= (next (chose ?m)) (does a (pick ?m))) (<= (next (chose ?m)) (true (chose ?m)))\n"
    "(<= (next (control b)) (true (control a))) (<= (next over) (true (control b)))\n"
    "(<= terminal (true over))\n"
    "(<= (goal a 100) (true (chose x))) (<= (goal a 0) (true (chose x)))\n"
    "(<= (goal a 50) (true (chose y)))\n"
    "(<= (goal b 0) (true (chose x))) (<= (goal b 50) (true (chose y)))\n";

#endif
