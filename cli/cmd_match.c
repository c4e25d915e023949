/* ggp match: a local game master running matches between local and HTTP players. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"

#include "match/master.h"

static const char *const match_help =
    "usage: ggp match GAME --players P1,P2[,...] [--startclock S] [--playclock S] [--matches N]\n"
    "                 [--swap | --duplicate] [--seed N] [--trace] [--max-steps K] [--verbose]\n"
    "                 [--no-lbs] [--confirm none|z3] [--engine E]\n\n"
    "Acts as the game master: plays N matches of GAME and prints a progress line per match\n"
    "(stderr), then a table per player and one machine-readable line per player (stdout):\n"
    "  player=NAME matches=N mean_goal=G ci95=C wins=W draws=D losses=L slowest_move_ms=M"
    " start_timeouts=S timeouts=T illegal=I\n"
    "(S: STARTs not answered within the start clock; T: moves not answered within the play\n"
    "clock + 1 s)\n"
    "A player is a local kind or a remote player, http://HOST:PORT, spoken to over the GGP\n"
    "protocol as the reference game master does (START within the start clock, PLAY within\n"
    "the play clock + 1 s). A late, unparsable or illegal move is replaced by a random legal\n"
    "move and counted. One player per role, in role order; a GDL-II `random` role is played\n"
    "by the master. Local kinds:\n%s"
    "  --startclock S  seconds to answer START (default 10)\n"
    "  --playclock S   seconds per move (default 5)\n"
    "  --matches N     number of matches (default 1)\n"
    "  --swap          rotate the seats each match (player i plays role i+k in match k)\n"
    "  --duplicate     as --swap, and the matches of each rotation (blocks of as many matches\n"
    "                  as seats) alike in every random choice of the master: each deal played\n"
    "                  from every seat, so that the luck of the deal cancels; ci95 is then that\n"
    "                  of the blocks' means (N must be a multiple of the seats)\n"
    "  --seed N        seed of the master's random choices (default: from the clock)\n"
    "  --engine E      the engine mcts players search with: auto (default: the fastest that\n"
    "                  works), interp, ground or compiled; mcts:engine=E sets one player's own\n"
    "  --trace         print each match's canonical trace on stdout (as `ggp trace`)\n"
    "  --max-steps K   abort a match that has not ended after K steps (default 100000)\n"
    "  --verbose       report every replaced move on stderr, and search counters per move\n"
    "  --no-lbs        every mcts+lbs player plays without backward search (lbs=off)\n"
    "  --confirm M     every mcts+lbs player confirms hits with Z3 (z3) or not (none)\n"
    "After the table, one line of search counters per local MCTS or alpha-beta player,\n"
    "summed over its matches, NAME as in its player= line (a spec given twice: NAME#2):\n"
    "  mcts player=NAME matches=N iterations=I rollouts=R avg_rollout_len=L\n"
    "and for mcts+lbs players, with the backward search's counters:\n"
    "  lbs player=NAME matches=N lbs_matches=N iterations=I rollouts=R avg_rollout_len=L\n"
    "      hook_calls=C hook_hits=H ... hits_alpha=i:n,... hits_beta=... z3_confirmed=Z\n"
    "      z3_cached=Z z3_disagree=D z3_unknown=U check_seconds=S z3_seconds=S\n"
    "      regress_seconds_mean=S\n"
    "A win is the strictly highest goal of the match, a draw a shared highest goal (in a\n"
    "one-player game: 100 wins, 0 loses, anything between draws). A match that cannot be\n"
    "played out (a role without legal moves, --max-steps reached) is aborted: its moves are\n"
    "counted, its goals are not, and the exit code is 1.\n";

typedef struct {
    const char *game, *players, *startclock, *playclock, *matches, *seed, *max_steps;
    const char *confirm;
    bool swap, duplicate, trace, verbose, no_lbs;
} match_opts_t;

static bool confirm_ok(const char *v) {
    if (!strcmp(v, "none") || !strcmp(v, "z3")) return true;
    fprintf(stderr, "ggp match: --confirm takes none or z3, not '%s'\n", v);
    return false;
}

static int parse_opts(int argc, char **argv, match_opts_t *o) {
    const opt_spec_t specs[] = {{.name = "--players", .value = &o->players},
                                {.name = "--startclock", .value = &o->startclock},
                                {.name = "--playclock", .value = &o->playclock},
                                {.name = "--matches", .value = &o->matches},
                                {.name = "--seed", .value = &o->seed},
                                {.name = "--engine", .check = opt_default_engine},
                                {.name = "--max-steps", .value = &o->max_steps},
                                {.name = "--swap", .flag = &o->swap},
                                {.name = "--duplicate", .flag = &o->duplicate},
                                {.name = "--trace", .flag = &o->trace},
                                {.name = "--verbose", .flag = &o->verbose},
                                {.name = "--no-lbs", .flag = &o->no_lbs},
                                {.name = "--confirm", .value = &o->confirm, .check = confirm_ok},
                                {0}};
    int rc = opt_parse(argc, argv, "match", match_help, opt_help_kinds, specs, &o->game, 1);
    if (rc >= 0) return rc;
    if (!o->game || !o->players) {
        opt_usage_error("match", match_help, "give a GAME and --players");
        return 2;
    }
    return -1;
}

/* Splits the comma-separated players; 0 when one is not valid. */
static uint32_t parse_players(const char *list, contestant_t **out) {
    char *copy = xstrdup(list), *save = NULL;
    uint32_t n = 0;
    *out = NULL;
    size_t cap = 0;
    strbuf_t err;
    sb_init(&err);
    for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        GROW(*out, cap, n + 1);
        if (!contestant_parse(p, &(*out)[n], &err)) {
            fprintf(stderr, "ggp match: %s\n", sb_str(&err));
            for (uint32_t i = 0; i < n; i++)
                contestant_fini(&(*out)[i]);
            free(*out);
            *out = NULL;
            n = 0;
            break;
        }
        n++;
    }
    sb_fini(&err);
    free(copy);
    return n;
}

/* The players with --no-lbs and --confirm applied to every mcts+lbs player (as options
 * appended to its spec: a later option overrides an earlier one). Returns a new string. */
static char *apply_lbs_flags(const char *list, const match_opts_t *o) {
    strbuf_t out;
    sb_init(&out);
    char *copy = xstrdup(list), *save = NULL;
    bool first = true;
    for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        sb_printf(&out, "%s%s", first ? "" : ",", p);
        first = false;
        if (strcmp(p, "mcts+lbs") && strncmp(p, "mcts+lbs:", 9)) continue;
        if (o->no_lbs) sb_puts(&out, ":lbs=off");
        if (o->confirm) sb_printf(&out, ":confirm=%s", o->confirm);
    }
    free(copy);
    char *r = xstrdup(sb_str(&out));
    sb_fini(&out);
    return r;
}

/* What one player collected over the matches. */
typedef struct {
    uint32_t matches, wins, draws, losses, start_timeouts, timeouts, illegal;
    double sum, sum_sq, slowest_ms;
    /* --duplicate: the goals of the block under way, and the blocks' means */
    double block_sum, blocks_sum, blocks_sum_sq;
    uint32_t block_matches, blocks;
} tally_t;

/* Counts the moves of a match; its goals too when it was played out. */
static void tally_moves(tally_t *t, const uint32_t *who, const match_result_t *res, uint32_t n) {
    for (uint32_t s = 0; s < n; s++) {
        tally_t *p = &t[who[s]];
        p->start_timeouts += res->seats[s].start_late;
        p->timeouts += res->seats[s].timeouts;
        p->illegal += res->seats[s].illegal;
        if (res->seats[s].slowest_ms > p->slowest_ms) p->slowest_ms = res->seats[s].slowest_ms;
    }
}

static void tally_goals(tally_t *t, const uint32_t *who, const match_result_t *res, uint32_t n) {
    int best = -1, n_best = 0;
    for (uint32_t s = 0; s < n; s++) {
        int g = res->seats[s].goal;
        if (g > best)
            best = g, n_best = 1;
        else if (g == best)
            n_best++;
    }
    for (uint32_t s = 0; s < n; s++) {
        tally_t *p = &t[who[s]];
        int goal = res->seats[s].goal;
        double g = goal < 0 ? 0 : goal;
        p->matches++;
        p->block_matches++;
        p->block_sum += g;
        p->sum += g;
        p->sum_sq += g * g;
        if (n == 1) {
            if (goal >= 100)
                p->wins++;
            else if (goal <= 0)
                p->losses++;
            else
                p->draws++;
        } else if (goal == best && n_best == 1)
            p->wins++;
        else if (goal == best)
            p->draws++;
        else
            p->losses++;
    }
}

/* --duplicate: a block is over; its mean joins the blocks' (a block of aborted matches
 * only: none). */
static void tally_block(tally_t *t, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        tally_t *p = &t[i];
        if (p->block_matches) {
            double mean = p->block_sum / p->block_matches;
            p->blocks++;
            p->blocks_sum += mean;
            p->blocks_sum_sq += mean * mean;
        }
        p->block_sum = 0;
        p->block_matches = 0;
    }
}

/* The 95% interval of the mean of n values of the given sums. */
static double ci95(uint32_t n, double sum, double sum_sq) {
    if (n < 2) return 0;
    double mean = sum / n, var = (sum_sq - n * mean * mean) / (n - 1);
    return 1.96 * sqrt(var > 0 ? var : 0) / sqrt((double)n);
}

static void tally_stats(const tally_t *t, double *mean, double *ci) {
    *mean = t->matches ? t->sum / t->matches : 0;
    *ci = t->blocks ? ci95(t->blocks, t->blocks_sum, t->blocks_sum_sq)
                    : ci95(t->matches, t->sum, t->sum_sq);
}

/* A player's name in the table: its spec, with "#k" when it appears k > 1 times. */
static const char *player_name(const contestant_t *c, uint32_t i, strbuf_t *sb) {
    uint32_t same = 0;
    for (uint32_t j = 0; j < i; j++)
        same += !strcmp(c[j].spec, c[i].spec);
    sb_clear(sb);
    sb_puts(sb, c[i].spec);
    if (same) sb_printf(sb, "#%u", same + 1);
    return sb_str(sb);
}

/* The search counters of the local players that keep them (mcts, mcts+lbs, ab), one line
 * per player named as in the table: two configurations of one kind (mcts, mcts:ab=off)
 * are reported apart, and a spec given twice as NAME and NAME#2. */
static void print_search(const contestant_t *c, uint32_t n) {
    strbuf_t line, name;
    sb_init(&line);
    sb_init(&name);
    for (uint32_t i = 0; i < n; i++) {
        sb_clear(&line);
        if (c[i].kind && player_search_report(&c[i].search, &line))
            printf("%s player=%s %s\n", c[i].search.lbs_kind ? "lbs" : "mcts",
                   player_name(c, i, &name), sb_str(&line));
    }
    sb_fini(&line);
    sb_fini(&name);
}

static void print_table(const contestant_t *c, const tally_t *t, uint32_t n) {
    strbuf_t name;
    sb_init(&name);
    printf("%-28s %7s %5s %5s %6s %9s %7s %10s %14s %8s %7s\n", "player", "matches", "wins",
           "draws", "losses", "mean_goal", "ci95", "slowest_ms", "start_timeouts", "timeouts",
           "illegal");
    double mean, ci;
    for (uint32_t i = 0; i < n; i++) {
        tally_stats(&t[i], &mean, &ci);
        printf("%-28s %7u %5u %5u %6u %9.2f %7.2f %10.0f %14u %8u %7u\n", player_name(c, i, &name),
               t[i].matches, t[i].wins, t[i].draws, t[i].losses, mean, ci, t[i].slowest_ms,
               t[i].start_timeouts, t[i].timeouts, t[i].illegal);
    }
    for (uint32_t i = 0; i < n; i++) {
        tally_stats(&t[i], &mean, &ci);
        printf("player=%s matches=%u mean_goal=%.2f ci95=%.2f wins=%u draws=%u losses=%u "
               "slowest_move_ms=%.0f start_timeouts=%u timeouts=%u illegal=%u\n",
               player_name(c, i, &name), t[i].matches, mean, ci, t[i].wins, t[i].draws, t[i].losses,
               t[i].slowest_ms, t[i].start_timeouts, t[i].timeouts, t[i].illegal);
    }
    sb_fini(&name);
}

static void print_progress(master_t *m, uint32_t k, uint32_t n_matches, const contestant_t *c,
                           const uint32_t *who, const match_result_t *res) {
    /* "mcts as xplayer 100": a player spec can hold ':' and '=' (mcts:iters=500), so the
     * line uses neither to join a seat to its goal. */
    fprintf(stderr, "match %u/%u:", k + 1, n_matches);
    for (uint32_t s = 0; s < master_seats(m); s++)
        fprintf(stderr, "%s %s as %s %d", s ? "," : "", c[who[s]].spec, master_seat_name(m, s),
                res->seats[s].goal);
    fprintf(stderr, " (%u steps, %.1f s)%s%s\n", res->steps, res->seconds,
            res->error[0] ? " error: " : "", res->error);
}

/* Plays the matches; returns the exit code. */
static int run(master_t *m, contestant_t *c, uint32_t n, unsigned long long matches, bool swap,
               bool duplicate) {
    tally_t *t = xcalloc(n, sizeof *t);
    uint32_t *who = xcalloc(n, sizeof *who);
    contestant_t **seat = xcalloc(n, sizeof *seat);
    int rc = 0;
    for (uint32_t k = 0; k < matches; k++) {
        for (uint32_t s = 0; s < n; s++) {
            who[s] = swap ? (uint32_t)((s + n - k % n) % n) : s;
            seat[s] = &c[who[s]];
        }
        match_result_t res;
        if (!master_play(m, k, seat, &res)) rc = 1;
        print_progress(m, k, (uint32_t)matches, c, who, &res);
        tally_moves(t, who, &res, n);
        if (!res.error[0]) tally_goals(t, who, &res, n);
        if (duplicate && (k + 1) % n == 0) tally_block(t, n);
        match_result_fini(&res);
    }
    print_table(c, t, n);
    print_search(c, n);
    free(t);
    free(who);
    free(seat);
    return rc;
}

int cmd_match(int argc, char **argv) {
    match_opts_t o = {.startclock = "10", .playclock = "5", .matches = "1", .max_steps = "100000"};
    int rc = parse_opts(argc, argv, &o);
    if (rc >= 0) return rc;
    double sc, pc;
    unsigned long long matches, seed = 0, max_steps;
    if (!opt_double("--startclock", o.startclock, &sc) ||
        !opt_double("--playclock", o.playclock, &pc) ||
        !opt_uint("--matches", o.matches, &matches) ||
        !opt_uint("--max-steps", o.max_steps, &max_steps) ||
        (o.seed && !opt_uint("--seed", o.seed, &seed)))
        return 2;
    if (!o.seed) seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
    contestant_t *c;
    char *players = apply_lbs_flags(o.players, &o);
    uint32_t n = parse_players(players, &c);
    free(players);
    if (!n) return 2;
    master_config_t cfg = {.startclock = sc,
                           .playclock = pc,
                           .seed = seed,
                           .trace = o.trace ? stdout : NULL,
                           .verbose = o.verbose,
                           .max_steps = max_steps > UINT32_MAX ? UINT32_MAX : (uint32_t)max_steps,
                           .duplicate = o.duplicate ? n : 0};
    strbuf_t err;
    sb_init(&err);
    master_t *m = master_new(o.game, &cfg, &err);
    if (!m) {
        fprintf(stderr, "ggp match: %s\n", sb_str(&err));
        rc = 1;
    } else if (o.duplicate && matches % n) {
        fprintf(stderr,
                "ggp match: --duplicate plays blocks of %u matches (one per seat): give a "
                "multiple of %u to --matches, not %llu\n",
                n, n, matches);
        rc = 2;
    } else if (master_seats(m) != n) {
        fprintf(stderr, "ggp match: %s needs %u players (one per role other than random), not %u\n",
                o.game, master_seats(m), n);
        rc = 2;
    } else {
        signal(SIGPIPE, SIG_IGN);
        fprintf(stderr, "ggp match: %s, %llu matches, seed %llu\n", o.game, matches, seed);
        rc = run(m, c, n, matches, o.swap || o.duplicate, o.duplicate);
    }
    master_free(m);
    for (uint32_t i = 0; i < n; i++)
        contestant_fini(&c[i]);
    free(c);
    sb_fini(&err);
    return rc;
}
