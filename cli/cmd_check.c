/* ggp check: parse and validate a game, and describe its rule base. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "engine/engine.h"
#include "gdl/validate.h"

static const char *const check_help =
    "usage: ggp check GAME\n\n"
    "Parses and validates a GDL or GDL-II game description. Prints the roles, the numbers of\n"
    "rules, fluents (in the initial state) and actions (legal in the initial state), whether\n"
    "the rules are acyclic (what backward search needs) and which predicates are recursive.\n"
    "Exits 1 with file:line:col diagnostics when the game is invalid, and saying why when the\n"
    "rules evaluator gives up on it (a relation too large, a recursion too deep).\n";

/* Prints the roles and facts of a valid game; false (and why on stderr) when the rules
 * evaluator gave up on it (engine_error: too large a relation, too deep a recursion). */
static bool print_facts(game_t *g) {
    term_store_t *ts = g->ts;
    printf("roles");
    for (uint32_t i = 0; i < g->n_roles; i++)
        printf(" %s", term_sym_name(ts, term_sym(ts, g->roles[i])));
    printf("\nrules %zu (written %u)\n", g->n_rules, g->n_written);
    engine_t *e = engine_new(g, ENGINE_INTERP, NULL); /* nothing to ground for one state */
    eng_state_t *es = engine_state_new(e);
    state_t s;
    state_init(&s);
    engine_initial(e, es);
    engine_state_terms(e, es, &s);
    uint32_t actions = 0;
    for (uint32_t i = 0; i < g->n_roles; i++) {
        const term_t *m;
        actions += engine_legal(e, es, i, &m);
    }
    printf("fluents %u (initial state)\nactions %u (legal initially, all roles)\n", s.n, actions);
    printf("gdl %s\n", g->gdl2 ? "GDL-II" : "GDL");
    printf("acyclic %s\n", g->acyclic ? "yes" : "no");
    printf("recursive");
    unsigned nrec = 0;
    for (size_t i = 0; i < g->n_preds; i++)
        if (g->preds[i].recursive) {
            printf(" %s/%u", term_sym_name(ts, g->preds[i].sym), g->preds[i].arity);
            nrec++;
        }
    printf("%s\n", nrec ? "" : " none");
    const char *why = engine_error(e);
    if (why) fprintf(stderr, "%s: the rules cannot be evaluated: %s\n", g->file, why);
    state_fini(&s);
    engine_state_free(es);
    engine_free(e);
    return why == NULL;
}

int cmd_check(int argc, char **argv) {
    const char *path = NULL;
    const opt_spec_t specs[] = {{0}};
    int rc = opt_parse(argc, argv, "check", check_help, NULL, specs, &path, 1);
    if (rc >= 0) return rc;
    if (!path) {
        fputs(check_help, stderr);
        return 2;
    }
    diag_t d;
    diag_init(&d);
    game_t *g = game_load_rules(path, &d);
    if (!g) {
        diag_print(&d, stderr);
        fprintf(stderr, "%s: invalid (%zu error%s)\n", path, d.n, d.n == 1 ? "" : "s");
        diag_fini(&d);
        return 1;
    }
    diag_print(&g->warnings, stderr);
    printf("%s: valid%s\n", path, g->warnings.n ? " (with warnings)" : "");
    bool ok = print_facts(g);
    game_free(g);
    diag_fini(&d);
    return ok ? 0 : 1;
}
