/* The player interface: what chooses our moves in a match. A player kind is a row of one
 * table (player.c); `ggp serve --player KIND` and `ggp match --players KIND,...` look
 * kinds up there by name.
 *
 * A player is driven by one thread (the one that owns the game's term store): start once
 * with the initial state, then play once per turn, then stop. Every call has a deadline
 * (monotonic seconds, as now_seconds()) and must return by it; play() also offers its best
 * move so far through the sink whenever that changes, because the caller may have to answer
 * before play() returns (an engine call can outlast any clock). */
#ifndef PLAYER_PLAYER_H
#define PLAYER_PLAYER_H

#include <stdbool.h>

#include "base/clock.h"
#include "base/util.h"
#include "engine/engine.h"
#include "mcts/ab.h"
#include "mcts/lbs.h"
#include "player/belief.h"

/* Of the start clock left, the most a player's engine (grounding and compiling) may take:
 * the rest is the player's own preparation. A GDL-II agent's engine gets the same. */
#define PLAYER_ENGINE_SHARE 0.8

typedef struct player player_t;
typedef struct player_kind player_kind_t;

/* Search counters of a player's finished matches (the MCTS players'), summed. */
typedef struct {
    uint32_t matches;
    uint64_t iterations, rollouts, rollout_steps, hook_calls, hook_hits;
    double hook_seconds;
    bool lbs_kind;            /* an mcts+lbs player: the report has backward-search counters */
    uint32_t lbs_matches;     /* matches backward search ran in */
    lbs_stats_t lbs;          /* summed; n_alpha etc. summed over lbs_matches */
    uint32_t bdd_builds;      /* bdd=on: the symbolic sets made (at start and rebuilt) */
    double bdd_seconds;       /* bdd=on: the time their builds took, made or not */
    double bdd_cpu;           /* bdd=on: the same in CPU seconds of the building thread */
    double search_cpu;        /* CPU seconds of the calling thread in the own turns' searches
                                 (all of the search with threads=1 and ponder=off) */
    uint32_t shadow_turns;    /* bddshadow=on: own turns searched again from a fresh tree, */
    uint32_t shadow_differ;   /* with and without the sets: those where the moves differed */
    uint32_t bdd_solved;      /* bdd=on: matches whose sets solved the game (at start or its end) */
    uint32_t bdd_lost;        /* bdd=on: own turns searched without them (they proved it lost) */
    uint32_t bdd_lost_start;  /* bdd=on: matches whose start was searched without them (they
                                 proved the initial state lost) */
    uint32_t bdd_lost_tree;   /* bdd=on: searches (own turns, starts) that went on without
                                 them where the tree proved its root lost from them and they
                                 did not hold the state (not complete: lost_tree) */
    uint32_t bdd_longer;      /* bdd=on, bddlong=on: those where the move whose loss is
                                 longest replaced the search's (longest_loss) */
    uint32_t bdd_dropped;     /* bdd=on: matches where they were dropped (too shallow to pay) */
    uint32_t bdd_reused;      /* bdd=on: start's sets without a horizon made on the probe's
                                 network, not built again (in bdd_builds too); and the end
                                 game's tries made on it (solve_late) */
    uint32_t bdd_set_turns;   /* bdd=on: own turns searched with sets attached to the tree */
    uint32_t bdd_proven;      /* bdd=on: matches where the sets proved the match's state (a
                                 forced win or loss) at some turn, */
    uint32_t bdd_proven_turn; /* the first such turn, summed over them */
    /* ab=on, where alpha-beta acts (the tree's counters are then 0): its searches (the
     * start's and each turn's), the states they searched, valued at the depth bound and
     * found in the table, the deepest iteration each completed (summed, and the most), and
     * the searches whose root value was proven; with the sets' proofs (bdd=on): the
     * states they settled; the searches whose root value was 100 (a win found: without the
     * sets by terminal states, with them by proofs too, or an evaluation of 100), and over
     * the matches with one the searches before the first (the start's and every turn's
     * counted: how early the match was seen won) */
    uint32_t ab_searches;
    uint64_t ab_nodes, ab_leaves, ab_tt_hits, ab_depth_sum, ab_proofs;
    uint32_t ab_depth_max, ab_proven, ab_wins, ab_won_matches, ab_first_win_sum;
} player_search_t;

/* Where a player offers its best move so far. */
typedef struct {
    void (*offer)(void *ctx, term_t move);
    void *ctx;
    /* when set, the only moves passed on (the others are dropped): legal[0..n_legal) */
    const term_t *legal;
    uint32_t n_legal;
} move_sink_t;

static inline void sink_offer(move_sink_t *sink, term_t move) {
    if (sink && sink->offer && (!sink->legal || term_in(sink->legal, sink->n_legal, move)))
        sink->offer(sink->ctx, move);
}

/* What a player is made with. The game and engine belong to the caller and outlive the
 * player; the player may use the engine (same thread) or make its own. */
typedef struct {
    game_t *game;
    engine_t *engine;
    uint32_t role; /* index in game role order */
    double startclock, playclock;
    uint64_t seed;
    bool verbose;        /* log search statistics to stderr */
    const char *options; /* "OPTS" of a kind named "NAME:OPTS" (set by player_new), or NULL */
} player_setup_t;

/* One turn as the player knows it. In GDL the single state is the true one; in GDL-II the
 * states are those consistent with what the player was told (complete or a sample). */
typedef struct {
    const state_t *states;
    uint32_t n_states;
    bool exact;          /* states[0] is the true state */
    const term_t *legal; /* this role's legal moves, sorted canonically, n_legal >= 1 */
    uint32_t n_legal;
    uint32_t turn; /* 0 on the first move */
    /* GDL-II: every observation so far (our move, our percepts), oldest first */
    const belief_obs_t *history;
    uint32_t n_history;
} player_turn_t;

struct player_kind {
    const char *name;
    const char *summary;
    player_t *(*create)(const player_setup_t *setup);
    /* Meta-gaming until deadline (may return early). initial NULL: a player that makes an
     * engine of its own makes it (ready by the deadline's share) and does nothing else. */
    void (*start)(player_t *p, const state_t *initial, double deadline);
    /* The move to play: one of turn->legal. */
    term_t (*play)(player_t *p, const player_turn_t *turn, double deadline, move_sink_t *sink);
    /* The match is over (or aborted). */
    void (*stop)(player_t *p);
    void (*destroy)(player_t *p);
    /* Kinds that take options ("NAME:OPTS", e.g. "mcts:iters=500"): true when OPTS are
     * valid (else, with a reason in err). NULL: the kind takes none. */
    bool (*check_options)(const char *opts, strbuf_t *err);
    /* Optional: our legal moves as the player knows them this turn (turn->history is
     * set; turn->legal is not), sorted by term id, into *moves (caller frees): all of
     * them, or those it proved legal by the deadline (then fewer); 0 when it proved none.
     * Used when the player set own_belief (the agent then sends no move rather than one
     * it did not prove legal). */
    uint32_t (*legal)(player_t *p, const player_turn_t *turn, double deadline, term_t **moves);
    /* Optional, with own_belief: after an observation (turn->history holds it; turn->legal
     * is not set), a move legal in the current state by construction, found with no
     * search by the deadline (player/fallback.h): the agent sends it when kind->legal
     * proves none in time. TERM_NONE when there is none. */
    term_t (*fallback)(player_t *p, const player_turn_t *turn, double deadline);
    /* Optional: adds the search counters of the player's finished matches to *sum. */
    void (*search)(const player_t *p, player_search_t *sum);
    /* The OPTS of a kind player_kind_find made from "NAME:OPTS"; NULL for a table row. */
    const char *options;
};

/* Every player starts with this header. */
struct player {
    const player_kind_t *kind;
    /* Set by a player (at start) that knows its legal moves from a belief of its own
     * (kind->legal): the agent then only records the history for it. */
    bool own_belief;
    /* The engine the player plays on, set when it makes its own (at start; NULL: none of
     * its own). A GDL agent then tracks the match on a clone of it (the same trace on every
     * engine), not on the interpreter it was made with. */
    const engine_t *engine;
    /* Set by whoever runs the player's agent (agent_engine_final): no other engine will
     * replace the player's, so that one whose grounding the start clock cut short
     * (engine_grounding_cut) need not wait for a second agent's (a server that made none,
     * or whose second agent was dropped; `ggp match`, which makes none). */
    bool engine_final;
};

/* The kind called name, or NULL. "NAME:OPTS" gives the kind NAME with options OPTS (when
 * NAME takes options and they are valid): a kind made once per distinct string and kept
 * for the life of the process, named by the whole string. */
const player_kind_t *player_kind_find(const char *name);
/* Where player_kind_find(name) gives NULL because NAME is a kind that takes options and
 * OPTS are bad: true, with their error appended to err. False otherwise (an unknown kind,
 * or one that takes no options: no more to say). */
bool player_kind_error(const char *name, strbuf_t *err);
/* Appends the kind names joined by '|' ("random|legal"). */
void player_kind_names(strbuf_t *out);
/* Appends one "  NAME  SUMMARY" line per kind. */
void player_kind_help(strbuf_t *out);

/* `auto`: the kind for the game at hand (deduce for GDL-II, else mcts); player_new makes
 * that kind. */
extern const player_kind_t player_auto_kind;
/* The kind player_new makes for kind on g: kind itself, unless it is `auto`. */
const player_kind_t *player_kind_resolve(const player_kind_t *kind, const game_t *g);

player_t *player_new(const player_kind_t *kind, const player_setup_t *setup);
void player_start(player_t *p, const state_t *initial, double deadline);
term_t player_play(player_t *p, const player_turn_t *turn, double deadline, move_sink_t *sink);
/* The player's own legal moves (kind->legal), 0 when it has none to tell by deadline. */
uint32_t player_legal(player_t *p, const player_turn_t *turn, double deadline, term_t **moves);
/* The player's own fallback move (kind->fallback), TERM_NONE when it has none. */
term_t player_fallback(player_t *p, const player_turn_t *turn, double deadline);
void player_stop(player_t *p);
void player_free(player_t *p);
/* Adds p's search counters to *sum (kind->search); false when its kind keeps none. */
bool player_search(const player_t *p, player_search_t *sum);

/* The simple players of player_simple.c. */
extern const player_kind_t player_random_kind; /* a uniformly random legal move */
extern const player_kind_t player_legal_kind;  /* the first legal move (canonical order) */

/* The deducing player (player_deduce.c): Z3 belief, plays proved wins; pimc is the same
 * with Perfect-Information Monte Carlo among the safe moves. */
extern const player_kind_t player_deduce_kind;
extern const player_kind_t player_pimc_kind;

/* UCT MCTS (player_mcts.c). */
extern const player_kind_t player_mcts_kind;
/* mcts+lbs: the same search with rollouts cut short by backward search (mcts/lbs.h). */
extern const player_kind_t player_lbs_kind;
/* Adds the counters of more to *sum. */
void player_search_add(player_search_t *sum, const player_search_t *more);
/* Adds one alpha-beta search's counters (a match's, for the serve log's search line). */
void player_search_add_ab(player_search_t *c, const ab_result_t *r);
/* Appends one line of search counters (and backward-search counters for mcts+lbs); false
 * when they count no match. */
bool player_search_report(const player_search_t *s, strbuf_t *out);
/* Alpha-beta with iterative deepening (player_ab.c, mcts/ab.h). */
extern const player_kind_t player_ab_kind;

#endif
