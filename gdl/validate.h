/* Validation of a rule base against the restrictions of GDL and GDL-II: keyword placement,
 * roles, safety, stratified negation, the recursion restriction, and the dependency
 * conditions (init static; legal, goal and terminal independent of does). It also builds
 * the dependency graph: strongly connected components in evaluation order, which
 * predicates are recursive, whether the rules are acyclic, and each predicate's layer
 * (static, state or move). */
#ifndef GDL_VALIDATE_H
#define GDL_VALIDATE_H

#include "gdl/rules.h"

/* Fills the graph facts of g and appends one diagnostic per violation to errors (each
 * names the rule and its location). Returns true when there is none. Always computes the
 * graph facts, even for an invalid game. */
bool validate_game(game_t *g, diag_t *errors);

/* Loads and validates a game file: NULL with diagnostics when it cannot be read, parsed
 * or validated. */
game_t *game_load(const char *path, diag_t *d);
/* Loads for inspection (`ggp check`): a game without roles is only a warning (nothing can
 * play it), as the reference reasoner loads such fragments; all else as game_load. */
game_t *game_load_rules(const char *path, diag_t *d);
/* Same from text (file names the source in diagnostics). */
game_t *game_load_text(const char *text, size_t len, const char *file, diag_t *d);

#endif
