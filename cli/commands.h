/* The ggp subcommands: each parses its own options and returns the process exit code. */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

int cmd_check(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_perft(int argc, char **argv);
int cmd_ground(int argc, char **argv);
/* The differential check of ggp ground --check (cmd_diff.c); the process exit code. */
#include "gdl/rules.h"
int engine_differential(game_t *g, int kind, unsigned long long matches, unsigned long long seed);
/* The same with matches and playouts of at most max_steps joint moves, the success line and
 * the engine's fallback line only when verbose (a difference is always printed): 0 when
 * they agree, 1 at a difference, 3 when the game gives no ground engine. */
int engine_differential_steps(game_t *g, int kind, unsigned long long matches,
                              unsigned long long seed, uint32_t max_steps, bool verbose);
int cmd_serve(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_alphabeta(int argc, char **argv);
/* Experiments (lab/): the rollout-accuracy experiment, and ggp regress --cost (what
 * checking the formulas costs per rollout step; the exit code: 0, 3 when the game has no
 * ground engine, 4 on a disagreement). */
int cmd_accuracy(int argc, char **argv);
/* ggp blunders (lab/cmd_blunders.c): proven results given away along recorded matches. */
int cmd_blunders(int argc, char **argv);
#include "engine/engine.h"
#include "regress/regress.h"
int regress_cost(game_t *g, uint32_t role, double budget, regress_t *rg, engine_kind_t kind,
                 uint32_t playouts, double share);
int cmd_belief(int argc, char **argv);
/* ggp regress --bdd (cmd_regress_bdd.c): the exit code (0, 3 unsupported, 4 wrong). */
#include "regress/bddsearch.h"
typedef struct {
    bdds_opts_t search;
    bool check;
    uint32_t max_states;
    uint32_t verify; /* random matches (0: no --verify) */
    uint32_t hits;   /* random matches (0: no --hits) */
    unsigned long long seed, verify_nodes;
    double verify_seconds;
    uint32_t plies; /* start at this ply of the match of seed (0: the initial state) */
} regress_bdd_opts_t;
int regress_bdd(game_t *g, uint32_t role, const regress_bdd_opts_t *o);

/* Shared option helpers: true when argv[*i] is name, taking its value into *value. */
#include <stdbool.h>
bool opt_value(int argc, char **argv, int *i, const char *name, const char **value);
bool opt_is_help(const char *arg);
/* A usage error of `ggp CMD`: the message, the usage lines of help (its first paragraph)
 * and where the rest is, so that the error stays on screen. */
void opt_usage_error(const char *cmd, const char *help, const char *fmt, ...);
/* Parses an unsigned integer option value; prints an error and returns false if bad. */
bool opt_uint(const char *name, const char *value, unsigned long long *out);
bool opt_double(const char *name, const char *value, double *out);
/* Parses an --engine value (auto, interp, ground, compiled). */
#include "engine/engine.h"
bool opt_engine(const char *value, engine_kind_t *out);
#define ENGINE_HELP                                                                                \
    "  --engine E     the state machine: auto (default: the fastest that works), interp,\n"        \
    "                 ground or compiled (a game that does not ground falls back, saying so)\n"

/* One option of a command for opt_parse: `--name VALUE` (or --name=VALUE), when value,
 * check, uint, real or engine is given, stores the value in *value (if any) once check (if
 * any) accepts it, or parsed into *uint (opt_uint; within min..max, max 0: no bound), *real
 * (opt_double) or *engine (opt_engine), having printed why not otherwise; a flag (none of
 * them given) sets *flag. */
#include <stdio.h>
typedef struct {
    const char *name;
    const char **value;
    bool *flag;
    bool (*check)(const char *value);
    unsigned long long *uint, min, max;
    double *real;
    engine_kind_t *engine;
} opt_spec_t;
/* Parses argv[1..argc) of `ggp cmd`: --help prints help (through show, when given) and
 * answers 0; the options of specs (up to an entry without a name); up to n_pos positional
 * arguments into pos[0..n_pos) in order; anything else is a usage error (2). -1: go on. */
int opt_parse(int argc, char **argv, const char *cmd, const char *help,
              void (*show)(const char *help, FILE *out), const opt_spec_t *specs, const char **pos,
              int n_pos);
/* Prints help, a format whose one %s is the list of player kinds. */
void opt_help_kinds(const char *help, FILE *out);
/* An opt_spec_t check: --engine E as the players' default engine (mcts:engine=K
 * overrides it). */
bool opt_default_engine(const char *value);

/* Loads and validates a game file; NULL after printing its located diagnostics. */
#include "gdl/validate.h"
game_t *cli_load_game(const char *path);

/* Whether e's rules evaluator gave up (engine_error: a relation past its cap, a recursion
 * past its stack budget, a term nested past TERM_MAX_DEPTH), said on stderr as
 * "ggp CMD: PATH: the game cannot be reasoned about: WHY": from then on it answered nothing
 * (every state terminal, no moves), so what the command printed is not the game's. */
#include "engine/engine.h"
bool cli_engine_gave_up(const char *cmd, const char *path, const engine_t *e);

#endif
