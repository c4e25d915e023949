/* ggp belief: what one role of a GDL-II game can prove, step by step (player/bsmt.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "cli/commands.h"
#include "gdl/trace.h"
#include "gdl/validate.h"
#include "player/bnet.h"
#include "player/bsmt.h"

static const char *const belief_help =
    "usage: ggp belief GAME --role R (--moves FILE | --seed S) [--cap N] [--quiet]\n\n"
    "Plays a match of GAME (the joint moves of FILE, one line per step as for `ggp trace`,\n"
    "'-' reads stdin; or random moves from seed S) and shows what role R knows after each\n"
    "step, from its own moves and percepts only, by the Z3 belief reasoner:\n"
    "  step T worlds N entailed K checks C ms_per_check X\n"
    "  entailed FLUENT ...            (omitted with --quiet)\n"
    "worlds is the number of states consistent with what R saw (\">=N\" when counting\n"
    "stopped at the cap, default 10000); entailed the fluents true in all of them.\n"
    "After each step the joint move played: `moves M1 M2 ...` (role order); at the end\n"
    "`terminal goals V1 V2 ...` when the match ended. In a game without `sees` rules the role\n"
    "perceives nothing: the other roles' moves are hidden from it (a line says so).\n"
    "A history the reasoner finds inconsistent is reported as a bug (exit 1).\n";

typedef struct {
    game_t *g;
    engine_t *e; /* the interpreter plays the match */
    FILE *in;    /* moves file, or NULL: random */
    const char *file;
    int line;
    splitmix_t rng;
} mover_t;

/* The next joint move into joint: false at the end of the file or on an error (printed). */
static bool next_joint(mover_t *m, const eng_state_t *s, term_t *joint, bool *error) {
    *error = false;
    if (!m->in) {
        *error = !engine_random_joint(m->e, s, &m->rng, joint);
        return !*error;
    }
    char buf[8192];
    while (fgets(buf, sizeof buf, m->in)) {
        m->line++;
        char *p = buf + strspn(buf, " \t\r\n");
        if (!*p || *p == ';') continue;
        diag_t d;
        diag_init(&d);
        sexp_doc_t doc;
        bool ok = sexp_parse(m->g->ts, p, strlen(p), m->file, &doc, &d) && doc.n == m->g->n_roles;
        uint32_t i = 0;
        for (const sexp_t *e = ok ? doc.first : NULL; e; e = e->next, i++)
            if ((joint[i] = game_ground_term(m->g, e)) == TERM_NONE ||
                !engine_is_legal(m->e, s, i, joint[i]))
                ok = false;
        sexp_doc_free(&doc);
        diag_fini(&d);
        if (!ok) {
            fprintf(stderr, "ggp belief: %s:%d: not a legal joint move (one move per role)\n",
                    m->file, m->line);
            *error = true;
        }
        return ok;
    }
    return false;
}

static void print_step(bsmt_t *b, const game_t *g, uint64_t cap, bool quiet) {
    z3_stats_t before = bsmt_stats(b);
    uint64_t worlds = bsmt_count(b, cap, 0);
    term_t *ent;
    uint32_t ne = bsmt_entailed_all(b, 0, &ent);
    z3_stats_t after = bsmt_stats(b);
    uint64_t checks = after.checks - before.checks;
    double ms = checks ? 1000 * (after.seconds - before.seconds) / (double)checks : 0;
    printf("step %u worlds %s%" PRIu64 " entailed %u checks %" PRIu64 " ms_per_check %.3f\n",
           bsmt_step(b), worlds >= cap ? ">=" : "", worlds, ne, checks, ms);
    if (!quiet && ne != UINT32_MAX) {
        strbuf_t sb;
        sb_init(&sb);
        trace_sort_terms(g->ts, ent, ne, &sb);
        printf("entailed %s\n", sb_str(&sb));
        sb_fini(&sb);
    }
    free(ent);
}

/* The joint move just played, in role order. */
static void print_moves(const game_t *g, const term_t *joint) {
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, "moves");
    for (uint32_t k = 0; k < g->n_roles; k++) {
        sb_putc(&sb, ' ');
        term_print(g->ts, joint[k], &sb);
    }
    printf("%s\n", sb_str(&sb));
    sb_fini(&sb);
}

/* How the match ended: every role's goal value (-1 when it has none). */
static void print_goals(const game_t *g, engine_t *e, const eng_state_t *s) {
    printf("terminal goals");
    for (uint32_t k = 0; k < g->n_roles; k++)
        printf(" %d", engine_goal_value(e, s, k));
    printf("\n");
}

static int run(game_t *g, uint32_t role, mover_t *m, uint64_t cap, bool quiet) {
    strbuf_t err;
    sb_init(&err);
    /* the game grounded once, for the belief reasoner (up to 4 million atoms) */
    ground_opts_t opts = ground_default_opts();
    opts.max_atoms = 4000000;
    opts.hybrid = false; /* the belief reasoner reads every relation as nodes: no queries */
    char why[256] = "";
    gnet_t *gn = gnet_new(g, &opts, why, sizeof why);
    if (!gn) sb_printf(&err, "the game does not ground (%s)", why);
    bnet_t *net = gn ? bnet_new(g, gn, &err) : NULL;
    if (!net) {
        fprintf(stderr, "ggp belief: %s\n", sb_str(&err));
        sb_fini(&err);
        gnet_free(gn);
        return 1;
    }
    sb_fini(&err);
    bsmt_t *b = bsmt_new(net, role, 1);
    if (game_pred(g, SYM_SEES, 2) == UINT32_MAX) {
        strbuf_t name;
        sb_init(&name);
        term_print(g->ts, g->roles[role], &name);
        printf("# the game has no sees rules: %s perceives nothing, the other roles' moves are "
               "hidden from it\n",
               sb_str(&name));
        sb_fini(&name);
    }
    eng_state_t *s = engine_state_new(m->e), *nx = engine_state_new(m->e);
    engine_initial(m->e, s);
    term_t *joint = xcalloc(g->n_roles, sizeof *joint);
    int rc = 0;
    bool error = false;
    for (;;) {
        if (bsmt_consistent(b, 0) != 1) {
            fprintf(stderr, "ggp belief: BUG: the history is inconsistent at step %u\n",
                    bsmt_step(b));
            rc = 1;
            break;
        }
        print_step(b, g, cap, quiet);
        fflush(stdout);
        if (engine_terminal(m->e, s)) {
            print_goals(g, m->e, s);
            break;
        }
        if (!next_joint(m, s, joint, &error)) break;
        print_moves(g, joint);
        const term_t *pc;
        uint32_t np = engine_sees(m->e, s, joint, role, &pc);
        term_t *copy = xmalloc((np + 1) * sizeof *copy);
        if (np) memcpy(copy, pc, np * sizeof *pc); /* pc may be NULL when nothing is seen */
        bsmt_observe(b, joint[role], copy, np);
        free(copy);
        engine_next(m->e, s, joint, nx);
        eng_state_t *t = s;
        s = nx, nx = t;
    }
    if (error) rc = 1;
    free(joint);
    engine_state_free(s);
    engine_state_free(nx);
    bsmt_free(b);
    bnet_free(net);
    gnet_free(gn);
    return rc;
}

int cmd_belief(int argc, char **argv) {
    const char *path = NULL, *role_s = NULL, *moves = NULL, *seed_s = NULL, *cap_s = "10000";
    bool quiet = false;
    const opt_spec_t specs[] = {
        {.name = "--role", .value = &role_s}, {.name = "--moves", .value = &moves},
        {.name = "--seed", .value = &seed_s}, {.name = "--cap", .value = &cap_s},
        {.name = "--quiet", .flag = &quiet},  {0}};
    int parsed = opt_parse(argc, argv, "belief", belief_help, NULL, specs, &path, 1);
    if (parsed >= 0) return parsed;
    unsigned long long seed = 0, cap = 0;
    if (!path || !role_s || (!moves == !seed_s)) {
        opt_usage_error("belief", belief_help,
                        "give a GAME, --role and exactly one of --moves and --seed");
        return 2;
    }
    if ((seed_s && !opt_uint("--seed", seed_s, &seed)) || !opt_uint("--cap", cap_s, &cap)) return 2;
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    int role = -1;
    for (uint32_t k = 0; k < g->n_roles; k++)
        if (!strcmp(term_sym_name(g->ts, term_sym(g->ts, g->roles[k])), role_s)) role = (int)k;
    int rc = 2;
    mover_t m = {.g = g, .e = engine_new(g, ENGINE_INTERP, NULL), .file = moves, .rng = {seed}};
    if (role < 0) {
        fprintf(stderr, "ggp belief: %s is not a role of %s\n", role_s, path);
    } else if (moves && !(m.in = strcmp(moves, "-") ? fopen(moves, "r") : stdin)) {
        fprintf(stderr, "ggp belief: cannot read %s: %s\n", moves, strerror(errno));
        rc = 1;
    } else {
        rc = run(g, (uint32_t)role, &m, cap ? cap : 1, quiet);
    }
    if (m.in && m.in != stdin) fclose(m.in);
    engine_free(m.e);
    game_free(g);
    return rc;
}
