/* ggp blunders: where the players of recorded matches gave away a result that a bounded
 * search over the real moves (truth/force.h) proves, and how far ahead it was proven.
 *
 * Why: the backward-search sets pay only where a player errs in positions they decide
 * (issue 27, the last point). Counting those errors along a player's own matches (untimed,
 * no clock in the verdict) ranks the games where the sets can win what `mcts` loses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/util.h"
#include "cli/commands.h"
#include "engine/fluents.h"
#include "gdl/sexp.h"
#include "mcts/bddhook.h"
#include "truth/force.h"

static const char *const blunders_help =
    "usage: ggp blunders GAME TRACES [--horizon H] [--nodes N] [--swap] [--players K]\n"
    "                    [--sets S] [--engine E]\n\n"
    "Replays the matches of TRACES (the stdout of `ggp match GAME --trace ...`; only its\n"
    "`game`, `does` and `goal` lines are read) and, at every state where exactly one role\n"
    "has more than one legal move (its turn), searches each of its moves over the real\n"
    "moves (truth/force.c, a transposition table) for a forced win of the mover (goal 100)\n"
    "and a forced loss (goal 0, the others as one coalition) within H-1 further steps.\n"
    "A blunder is a move that gives away what another move keeps:\n"
    "  missed_win  some move forces a win within H steps, the move played does not\n"
    "  into_loss   some move avoids a forced loss within H steps, the move played does not\n"
    "One line per blunder, then one summary line:\n"
    "  blunder match=K step=S role=R player=P kind=missed_win|into_loss dist=D final=G\n"
    "  blunders game= matches= turns= simultaneous= unknown= missed_win= into_loss=\n"
    "           decisive= matches_with= by_dist=D:N,... by_player=P:N,...\n"
    "(dist: the steps from the state to the forced end the mover gave away, the win's\n"
    "least distance or the loss's after the move played; final: the blunderer's goal at\n"
    "the end; decisive: blunders whose player ended below 50 (into_loss) or below 100\n"
    "(missed_win); unknown: turns where a search hit its node limit, not judged.)\n"
    "  --horizon H  the steps searched from each state (default 8)\n"
    "  --nodes N    node limit per search (default 500000)\n"
    "  --swap       the matches rotate the seats (`ggp match --swap`): player P of a blunder\n"
    "               is the one that played its role (else P is the role's index)\n"
    "  --players K  the players of the matches, for --swap (default: the roles)\n"
    "  --sets S     at each blunder, the decision-diagram sets of `mcts+lbs:bdd=on`\n"
    "               (mcts/bddhook) for the mover, built as the player rebuilds them where\n"
    "               the others move: from the state one step before (the blunder's own\n"
    "               state at step 0), with the horizon dist + 2, within S seconds of wall\n"
    "               time; the line then ends `sets=known|unknown sets_cpu=C sets_steps=A/B`\n"
    "               (known: the sets prove the win missed, or the loss walked into, at\n"
    "               the move's state; C: the CPU seconds of the build, network "
    "included)\n" ENGINE_HELP;

#define MAX_DIST 64

typedef struct {
    engine_t *e;
    game_t *g;
    force_t *fwin, *floss; /* one each: a change of goal empties a search's table */
    uint32_t horizon, n_players;
    uint64_t nodes;
    bool swap;
    double sets; /* --sets: seconds per build (0: none) */
    eng_state_t *prev, *s, *child;
    bool have_prev; /* prev: the state one step before s */
    term_t *joint;
    /* counters */
    uint64_t matches, turns, simultaneous, unknown, missed, into, n_decisive, with;
    uint64_t by_dist[MAX_DIST + 1], by_player[16];
    uint64_t known;
    term_t *decisive; /* the joint move whose state the sets must prove (missed: the win) */
    bool missed_now;  /* the blunder being counted is a missed win */
} bl_t;

/* The least i <= max within which the goal is forced from s; -1 none, -2 the node limit. */
static int least(bl_t *b, force_t *f, const eng_state_t *s, const force_goal_t *goal,
                 uint32_t max) {
    for (uint32_t i = 0; i <= max; i++) {
        int v = force_within(f, s, goal, i, b->nodes, 0);
        if (v == 1) return (int)i;
        if (v == FORCE_UNKNOWN) return -2;
    }
    return -1;
}

/* The only role with more than one legal move, or -1 (none: a forced step), or -2 (more
 * than one: simultaneous moves, not judged). */
static int mover_of(bl_t *b, const eng_state_t *s) {
    int mover = -1;
    for (uint32_t r = 0; r < b->g->n_roles; r++) {
        const term_t *m;
        if (engine_legal(b->e, s, r, &m) > 1) {
            if (mover >= 0) return -2;
            mover = (int)r;
        }
    }
    return mover;
}

typedef struct {
    int win, loss; /* least steps after the move (least()), for the mover */
} verdict_t;

/* The mover's moves judged from s: out[k] for its k-th legal move; the index of played. */
static uint32_t judge(bl_t *b, uint32_t mover, const term_t *played, verdict_t *out) {
    const term_t *mv;
    uint32_t n = engine_legal(b->e, b->s, mover, &mv), at = n;
    term_t *moves = xcalloc(n, sizeof *moves);
    memcpy(moves, mv, n * sizeof *moves);
    force_goal_t win = {.coalition = 1ull << mover, .role = mover, .v = 100, .above = true};
    force_goal_t loss = {.coalition = ((1ull << b->g->n_roles) - 1) & ~(1ull << mover),
                         .role = mover,
                         .v = 0,
                         .above = false};
    for (uint32_t k = 0; k < n; k++) {
        for (uint32_t r = 0; r < b->g->n_roles; r++)
            b->joint[r] = played[r];
        b->joint[mover] = moves[k];
        if (moves[k] == played[mover]) at = k;
        engine_next(b->e, b->s, b->joint, b->child);
        out[k].win = least(b, b->fwin, b->child, &win, b->horizon - 1);
        out[k].loss = least(b, b->floss, b->child, &loss, b->horizon - 1);
    }
    free(moves);
    return at;
}

/* Whether the sets the player would have built before this turn prove what the move gave
 * away: the winning move's state in α (win) or the played move's state in β (else). */
static void sets_verdict(bl_t *b, uint32_t mover, int dist) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    const eng_state_t *from = b->have_prev ? b->prev : b->s;
    uint32_t before = b->have_prev ? 2 : 1; /* steps from the sets' start to the move's state */
    o.horizon = (uint32_t)dist + before;
    char err[256] = "";
    double c0 = cpu_seconds();
    bddhook_t *h = bddhook_new(b->e, mover, from, &o, now_seconds() + b->sets, err, sizeof err);
    double cpu = cpu_seconds() - c0;
    if (!h) {
        printf(" sets=none sets_cpu=%.3f (%s)\n", cpu, err);
        return;
    }
    engine_next(b->e, b->s, b->decisive, b->child);
    /* a terminal state is no set's (bddhook_value): its goal, which the tree reads itself */
    int v = engine_terminal(b->e, b->child)
                ? engine_goal_value(b->e, b->child, mover)
                : bddhook_value(h, engine_state_words(b->child), before);
    bool known = v == (b->missed_now ? 100 : 0);
    bddhook_info_t in;
    bddhook_info(h, &in);
    b->known += known;
    printf(" sets=%s sets_cpu=%.3f sets_steps=%u/%u\n", known ? "known" : "unknown", cpu, in.alpha,
           in.beta);
    bddhook_free(h);
}

static void count(bl_t *b, const char *kind, uint32_t step, uint32_t mover, int dist, int final,
                  bool *any) {
    uint32_t player = mover;
    if (b->swap) /* match k: player p plays role (p + k) mod n */
        player = (uint32_t)((mover + b->n_players * 64 - b->matches % b->n_players) % b->n_players);
    bool dec = !strcmp(kind, "into_loss") ? final < 50 : final < 100;
    printf("blunder match=%llu step=%u role=%u player=%u kind=%s dist=%d final=%d%s",
           (unsigned long long)b->matches, step, mover, player, kind, dist, final,
           dec ? " decisive" : "");
    if (b->sets > 0 && dist <= MAX_DIST)
        sets_verdict(b, mover, dist);
    else
        printf("\n");
    b->n_decisive += dec;
    b->by_dist[dist > MAX_DIST ? MAX_DIST : dist]++;
    if (player < 16) b->by_player[player]++;
    *any = true;
}

/* One turn: judged and counted. */
static void turn(bl_t *b, uint32_t step, const term_t *played, const int *finals, bool *any) {
    int mover = mover_of(b, b->s);
    if (mover == -2) b->simultaneous++;
    if (mover < 0) return;
    const term_t *mv;
    uint32_t n = engine_legal(b->e, b->s, (uint32_t)mover, &mv);
    verdict_t *v = xcalloc(n, sizeof *v);
    uint32_t at = judge(b, (uint32_t)mover, played, v);
    b->turns++;
    int best_win = -1;
    uint32_t best = 0;
    bool safe = false, unsure = false;
    for (uint32_t k = 0; k < n; k++) {
        if (v[k].win >= 0 && (best_win < 0 || v[k].win < best_win)) best_win = v[k].win, best = k;
        if (v[k].loss == -1) safe = true;
        if (v[k].win == -2 || v[k].loss == -2) unsure = true;
    }
    int final = finals[mover];
    if (at == n) {
        fprintf(stderr, "blunders: match %llu step %u: the move played is not legal\n",
                (unsigned long long)b->matches, step);
    } else if (best_win >= 0 && v[at].win == -1) {
        b->missed++, b->missed_now = true;
        memcpy(b->decisive, played, b->g->n_roles * sizeof *played);
        engine_legal(b->e, b->s, (uint32_t)mover, &mv);
        b->decisive[mover] = mv[best];
        count(b, "missed_win", step, (uint32_t)mover, best_win + 1, final, any);
    } else if (safe && v[at].loss >= 0) {
        b->into++, b->missed_now = false;
        memcpy(b->decisive, played, b->g->n_roles * sizeof *played);
        count(b, "into_loss", step, (uint32_t)mover, v[at].loss + 1, final, any);
    } else if (unsure) {
        b->unknown++;
    }
    free(v);
}

/* Parses the moves of one `does` line into joint; false when malformed. */
static bool parse_joint(bl_t *b, const char *line, size_t len, term_t *joint) {
    diag_t d;
    diag_init(&d);
    sexp_doc_t doc;
    bool ok = sexp_parse(b->g->ts, line, len, "<traces>", &doc, &d) && doc.n == b->g->n_roles;
    uint32_t i = 0;
    if (ok)
        for (const sexp_t *x = doc.first; x; x = x->next, i++)
            if ((joint[i] = game_ground_term(b->g, x)) == TERM_NONE) ok = false;
    sexp_doc_free(&doc);
    diag_fini(&d);
    return ok;
}

typedef struct {
    term_t *joints; /* n_roles per step */
    uint32_t steps, cap;
    int finals[16];
} match_t;

/* Reads the next match of the traces from *pos into m; false at the end. */
static bool read_match(bl_t *b, const char *text, size_t len, size_t *pos, match_t *m) {
    bool in = false;
    m->steps = 0;
    uint32_t nr = b->g->n_roles, goals = 0;
    while (*pos < len) {
        const char *s = text + *pos, *nl = memchr(s, '\n', len - *pos);
        size_t n = nl ? (size_t)(nl - s) : len - *pos;
        *pos += n + (nl != NULL);
        if (n >= 5 && !strncmp(s, "game ", 5)) in = true;
        if (!in) continue;
        if (n >= 5 && !strncmp(s, "does ", 5)) {
            if (m->steps == m->cap) {
                m->cap = m->cap ? 2 * m->cap : 64;
                m->joints = xrealloc(m->joints, (size_t)m->cap * nr * sizeof *m->joints);
            }
            if (!parse_joint(b, s + 5, n - 5, m->joints + (size_t)m->steps * nr)) return false;
            m->steps++;
        } else if (n >= 5 && !strncmp(s, "goal ", 5) && goals < 16) {
            size_t k = n;
            while (k > 0 && s[k - 1] != ' ')
                k--;
            m->finals[goals++] = atoi(s + k);
        } else if (n == 3 && !strncmp(s, "end", 3)) {
            return true;
        }
    }
    return false;
}

static void replay(bl_t *b, const match_t *m) {
    bool any = false;
    engine_initial(b->e, b->s);
    b->have_prev = false;
    for (uint32_t t = 0; t < m->steps; t++) {
        const term_t *joint = m->joints + (size_t)t * b->g->n_roles;
        turn(b, t, joint, m->finals, &any);
        engine_next(b->e, b->s, joint, b->child);
        engine_state_copy(b->prev, b->s), b->have_prev = true;
        engine_state_copy(b->s, b->child);
    }
    b->with += any;
    b->matches++;
}

static void summary(bl_t *b, const char *path) {
    printf("blunders game=%s matches=%llu turns=%llu simultaneous=%llu unknown=%llu "
           "missed_win=%llu into_loss=%llu decisive=%llu sets_known=%llu matches_with=%llu "
           "horizon=%u by_dist=",
           path, (unsigned long long)b->matches, (unsigned long long)b->turns,
           (unsigned long long)b->simultaneous, (unsigned long long)b->unknown,
           (unsigned long long)b->missed, (unsigned long long)b->into,
           (unsigned long long)b->n_decisive, (unsigned long long)b->known,
           (unsigned long long)b->with, b->horizon);
    const char *sep = "";
    for (int d = 0; d <= MAX_DIST; d++)
        if (b->by_dist[d])
            printf("%s%d:%llu", sep, d, (unsigned long long)b->by_dist[d]), sep = ",";
    printf(" by_player=");
    sep = "";
    for (uint32_t p = 0; p < 16; p++)
        if (b->by_player[p])
            printf("%s%u:%llu", sep, p, (unsigned long long)b->by_player[p]), sep = ",";
    printf("\n");
}

int cmd_blunders(int argc, char **argv) {
    const char *pos[2] = {NULL, NULL};
    unsigned long long horizon = 8, nodes = 500000, players = 0;
    double sets = 0;
    bool swap = false;
    engine_kind_t kind = ENGINE_AUTO;
    const opt_spec_t specs[] = {{.name = "--horizon", .uint = &horizon, .min = 1, .max = 200},
                                {.name = "--nodes", .uint = &nodes},
                                {.name = "--players", .uint = &players, .max = 16},
                                {.name = "--swap", .flag = &swap},
                                {.name = "--sets", .real = &sets},
                                {.name = "--engine", .engine = &kind},
                                {0}};
    int parsed = opt_parse(argc, argv, "blunders", blunders_help, NULL, specs, pos, 2);
    if (parsed >= 0) return parsed;
    if (!pos[1]) {
        opt_usage_error("blunders", blunders_help, "give a GAME and a file of TRACES");
        return 2;
    }
    size_t len;
    char *text = !strcmp(pos[1], "-") ? read_stream(stdin, &len) : read_file(pos[1], &len);
    game_t *g = text ? cli_load_game(pos[0]) : NULL;
    if (!g) {
        if (!text) fprintf(stderr, "ggp blunders: cannot read %s\n", pos[1]);
        free(text);
        return 1;
    }
    bl_t b = {.g = g, .horizon = (uint32_t)horizon, .nodes = nodes, .swap = swap, .sets = sets};
    b.n_players = players ? (uint32_t)players : g->n_roles;
    b.e = engine_new(g, kind, stderr);
    b.fwin = force_new(b.e), b.floss = force_new(b.e);
    b.s = engine_state_new(b.e), b.child = engine_state_new(b.e), b.prev = engine_state_new(b.e);
    b.joint = xcalloc(g->n_roles, sizeof *b.joint);
    b.decisive = xcalloc(g->n_roles, sizeof *b.decisive);
    match_t m = {0};
    size_t at = 0;
    int rc = 0;
    while (at < len) {
        size_t before = at;
        if (!read_match(&b, text, len, &at, &m)) {
            if (m.steps || at == before) rc = at < len || m.steps ? 1 : 0;
            break;
        }
        replay(&b, &m);
    }
    summary(&b, pos[0]);
    free(m.joints), free(b.joint), free(b.decisive), free(text);
    engine_state_free(b.s), engine_state_free(b.child), engine_state_free(b.prev);
    force_free(b.fwin), force_free(b.floss);
    engine_free(b.e);
    game_free(g);
    return rc;
}
