/* The `mcts` player: UCT Monte-Carlo tree search (mcts/uct.h), one search tree per match.
 *
 * start builds the tree for the match's game on its own engine and, unless the
 * search is iteration-bounded, searches the initial state until the start clock's deadline.
 * Its engine is made by a deadline (80% of the clock left: engine_new_by), and no search
 * call is started that would likely end past a deadline (calls on a slow interpreted game
 * outlast the time they are given by the cost of a state: the player measures by how much).
 * play first re-roots the tree at the current state: it finds the joint move that led from
 * the state it last searched to this one (by trying the previous state's joint moves, at
 * most MAX_JOINTS of them) and calls uct_advance with it; then it searches until the play
 * deadline minus a small margin, offering its best move so far through the sink between
 * slices of the search. When it cannot know the true state (GDL-II, several believed
 * states) it plays a uniformly random legal move, as `random` does.
 *
 * Options, as "mcts:OPT:OPT..." (player_kind_find):
 *   iters=N   at most N iterations per move (1..100000000): reproducible for a seed as long
 *             as the clock does not cut the search short; start does no search
 *   c=X       UCB1 exploration constant (0..100, default 0.8; uct's own default is 1.4)
 *   simc=X    the constant where several roles choose at once (simultaneous moves; 0..100,
 *             default: c's; uct_set_sim_exploration)
 *   ucb=plain|tuned  the exploration term: UCB1's, or UCB1-Tuned's, weighed by each move's
 *             observed variance (uct_set_tuned; default tuned)
 *   margin=S  seconds kept in hand before the play deadline (0..10, default 0.05)
 *   mem=MB    memory cap of the search tree in MiB (default: an eighth of the machine's
 *             memory, uct_default_memory_limit); a full tree stops growing, the search
 *             goes on
 *   engine=K  the state machine: auto (default), interp, ground, compiled
 *   threads=N 1 or 2 threads (2 needs a ground or compiled engine); by default 2 on one
 *             shared tree (parallel=tree) where the engine allows and the search is
 *             time-bounded, else 1 (iters=N stays reproducible)
 *   parallel=root|tree  how two threads search: root, a tree each with merged root
 *             statistics; tree, one shared tree with virtual loss (uct_set_parallel;
 *             default root with threads=2 given, tree with the default threads)
 *   decisive=off|on|anti|auto  the rollout policy (mcts/playout.h); auto (default): anti-decisive
 *             unless a step of it costs more uniform steps than its checks are worth
 *             (playout_anti_pays), measured from the initial state in the start clock
 *             (choose_policy; with iters=N: anti)
 *   dcand=on|off  the decisive checks look only at moves seen winning at once in random
 *             matches of the start clock (playout_cands_learn: at most 5% of the clock
 *             left, 1 s; 1000 matches with iters=N); default off
 *   pdepth=D  the rollout policy (decisive, mast) plays the first D steps of a rollout,
 *             uniform draws by the engine's own loop the rest (default 0: all of it)
 *   heur=on|off|material|adv  on: learn an evaluation in the start clock (mcts/heur.h: piece
 *             counts, goals of non-terminal states, mobility, weighed by how they predict
 *             random matches; at most a quarter of the clock left, or 1000 matches with
 *             iters=N); material (default): the material of the fluents that carry a
 *             role's name (heur_material, no fit; nothing where there are none or
 *             they are never taken); adv: material plus each piece's advancement
 *             towards its role's goal (heur_advance; plain material where pieces do not
 *             advance); used as cut=K (rollouts cut after K steps and
 *             evaluated; default 10 with
 *             heur=on, off with material; off: never), prior=N (each move of a node where
 *             one role chooses starts with N visits worth its successor's value; default
 *             0: none; psharp=K: the prior is the node's own value plus K times the change
 *             to the successor's, default 1: the successor's value,
 *             uct_set_prior_sharpness) and imm=A: implicit minimax backups of the
 *             evaluation, weighed A against the mean (uct_set_implicit; default 0.4: with
 *             material it beat plain search on breakthroughWalls, docs/league.md)
 *   immnz=on|off  implicit minimax in two-role games that are not zero-sum too, on the
 *             goals' difference (uct_set_implicit_nonzero; default on: off, imm acts
 *             there as a one-ply greedy value, docs/mcts.md "skirmishNew")
 *   counter=on|off  with heur=material|adv, each role's score counter (a fluent of its
 *             name and a number: box_count(xplayer, 3)) where its lead predicts random
 *             matches from the start, added to material or alone where there is none
 *             (heur_counter; default on)
 *   ab=on|off  in a time-bounded game of two roles where material gets advancement
 *             (heur_advance), play by alpha-beta (mcts/ab.h) with that evaluation at the
 *             leaves instead of UCT (start_ab; default on: docs/league.md)
 *   abdepth=N there, the alpha-beta search stops at N joint moves (default 0: deepens until
 *             the clock or a proof stops it); with a deadline it cannot reach, every move
 *             is the same for the same seed (what the unit test needs)
 *   mix=on|off  where another role moves at the same time as ours (simultaneous moves),
 *             play a move drawn by its root visits, not the most visited (uct_set_mixed;
 *             default off)
 *   sep=on|off  where two roles of a zero-sum game choose at once and their moves do not
 *             interact (each changes the state on its own: two boards played at once),
 *             search the node as if ours moved first and the other replied to it
 *             (uct_set_sequential; default off: docs/mcts.md)
 *   bounds=on|off  score bounds (MCTS-Solver generalised, mcts/uct.h): proven values backed
 *             up, moves that cannot beat a proven floor pruned, the search stopped on a
 *             proven root (uct_set_bounds; default on: docs/league.md)
 *   line=on|off  in a game of one role, keep the best line found (the moves to the best
 *             terminal state any iteration reached) and play it where it beats what the
 *             tree's choice is proven to reach (uct_set_best_line; default on: it
 *             beat the search without it on tpeg and asteroids, docs/league.md)
 *
 * The `mcts+lbs` kind is the same search with rollouts cut short by backward search
 * (mcts/lbs.h): at start it runs backward search for most of the start clock, then searches
 * the initial state with the hook like `mcts` does. More options:
 *   budget=S        at most S seconds of backward search (default: the start clock allows)
 *   confirm=none|z3 confirm matcher hits with Z3 (default z3)
 *   lbs=on|off      off: plain MCTS under this kind's name (the baseline of --no-lbs)
 *   hookcost=X      the hook uses formulas costing at most X rollout steps (0: all; default 3)
 *   lbssteps=N      tests: backward search stops after α_N/β_N, without the clock (no
 *                   budget nor cost bound: lbs_new_steps), so that the formulas made are the
 *                   same on a loaded machine (with hookcost=0 the hook's too); 0 (default):
 *                   the start clock bounds it. With bdd=on where ab=on acts: the sets'
 *                   steps, α_N/β_N (N >= 2) without the clock (default 2, clock-bounded);
 *                   with bdd=on elsewhere: the start's sets without a horizon stop after
 *                   α_N/β_N too (more_bdd, make_bdd; the clock still bounds them), so
 *                   that a test has sets not complete on a game they would solve
 *   z3share=F       Z3 confirmations may take at most this share of the search time since
 *                   the first check (0: no bound; default 0.25); past it an unconfirmed hit
 *                   is not used
 *   bdd=on|off      on: the hook reads the sets of symbolic backward search (mcts/bddhook.h)
 *                   instead of the lifted formulas: built at start from the initial state
 *                   (where ab=on acts: none unless absets=on, below)
 *                   for the states within bddhorizon=D steps (default 8), in at most
 *                   BDD_SHARE of the start clock (budget=S bounds it too), then rebuilt
 *                   from the match's state at each turn where the others move (in
 *                   BDD_NOOP of that turn's clock), their horizon adapted to that time
 *                   (bddhook_next_horizon, at most BDD_HORIZON_MAX; with iters=N every own
 *                   turn, the horizon D); off by default
 *   absets=on|off   with bdd=on where ab=on acts: the sets without a horizon, α_2/β_2 in
 *                   BDD_SHARE of the start clock, kept for the match, and alpha-beta takes
 *                   a state they hold as a proven win or loss, scored by distance, not
 *                   searched further (start_ab_bdd); asked where abproof=N joint moves of
 *                   depth are left at least, default AB_PROOF_DEPTH 2, 0: the leaves too.
 *                   Off by default: on breakthroughSmallHoles at 0.5 s, half a core each,
 *                   the build's share of the start cost more than the proofs gave (24.0 and
 *                   34.0 against `mcts`, docs/lbs_matches.md "Session 27")
 *   bddvalues=on|off with bdd=on: the lower and upper sequences of every goal value too,
 *                   and a rollout stops where the state's proven bounds meet (a forced draw
 *                   scores its value, not only wins and losses); off by default
 *   bddsolve=on|off with bdd=on: at start a probe (no horizon, one step) and, unless its
 *                   forward search gave up (too many states: then no sets at start, the
 *                   clock left to the tree), the sets without a horizon (in
 *                   BDD_SOLVE_SHARE of the start clock; going on from the probe's network
 *                   and steps where they are complete: more_bdd); where they are solved or deeper
 *                   than D they are kept for the match, never rebuilt (start_bdd); on by
 *                   default. Where the probe gave up, no sets within a horizon either: at
 *                   each turn where the others move and at least bddlate=S s are left,
 *                   the end game is tried on the probe's network (kept for the match, not
 *                   built again): from the match's state, or carried over from the last
 *                   try (a step cut by the deadline made at the next), given to the tree
 *                   from its first step, kept for the match once complete to the last
 *                   layer (solve_late, late_try). Either way an own turn whose state they
 *                   prove lost is searched without them (lost_bdd), and so is the
 *                   start where they prove the initial state lost, and the rest of a
 *                   turn whose tree they prove lost where the state is in no set of
 *                   theirs (lost_tree: sets not complete)
 *   bddlate=S       with bdd=on, where the probe gave up at start: the end game tried only in
 *                   a turn with at least S seconds for it (default BDD_LATE_MIN, 0.1)
 *   bddponder=on|off with bdd=on there: the tree pondered on during a try (default on; off:
 *                   the try alone, the pondering after it)
 *   bddown=F        with bdd=on there: once the end game's sets are under way (their forward
 *                   search done, some step made), this share of each own turn's clock goes
 *                   on with them too, before the search (default 0: none)
 *   bddlong=on|off  with bdd=on: at an own turn the sets prove lost, the move whose loss
 *                   they prove longest (the others' least β step after it) rather than
 *                   the search's, which is kept among equals (longest_loss); on by default
 *   bddreach=F      with bddsolve=on: the probe's forward search may take this share of its
 *                   budget (default 0.4); where it runs out of time (not past its node
 *                   cap: the states may be few) the sets without a horizon are made still,
 *                   with the rest of the clock
 *   bddcut=N        tests: the start's forward searches from the initial state cut after N
 *                   layers as by their deadline, no step made past them (out of time twice:
 *                   bdd_retry), without the clock; 0 (default): never
 *   bddshadow=on|off with bdd=on and iters=N: a measurement; each own turn searched again
 *                   by two fresh trees of the same seed, with and without the sets, and the
 *                   turns where their moves differ counted (shadow_differ); off by default
 * A game backward search does not apply to is said (stderr) and played with plain MCTS.
 * The player sums the search counters of its matches: player_search, player_search_report. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player/player_core.h"

#include "base/clock.h"
#include "base/opts.h"
#include "base/rng.h"
#include "engine/fluents.h"
#include "engine/joints.h"
#include "mcts/ab.h"
#include "mcts/bddhook.h"
#include "mcts/lbs.h"
#include "mcts/uct.h"
#include "player/agent.h"

#define MAX_JOINTS 4096 /* joint moves tried to find the move that was played */
#define SLICE_MIN 0.05  /* seconds: the shortest search slice between offers */
#define SLICE_PARTS 8   /* a budget is searched in about this many slices (with a sink) */
#define LBS_SHARE 0.5   /* of the start clock left, for backward search (the rest: UCT) */
#define BDD_SHARE 0.7   /* of the start clock left, for the symbolic sets (bdd=on) */
/* bddsolve=on: of the start clock left, for the sets without a horizon (what is left of
 * BDD_SHARE after them for those with one, when these are neither solved nor deeper than
 * bddhorizon=D; none left: they are made at the next turn); the search at start is worth
 * little beside a game solved */
#define BDD_SOLVE_SHARE 0.85
/* bdd=on: the sets are rebuilt from the match's state once it is half their horizon past
 * their start, when the last build took at most BDD_RENEW of the play clock; the build
 * may take BDD_RENEW_MAX of it */
#define BDD_RENEW 0.25
#define BDD_RENEW_MAX 0.4
/* bdd=on: at a turn where the others move (we have one legal move) the sets are rebuilt
 * from its state in this share of its clock, before the answer, while the tree is pondered
 * on (without a hook until they are made); their horizon grows or shrinks to fit it, within
 * BDD_HORIZON_MIN..MAX. Not on a thread while the others think: the build reads the game's
 * term store, which is not thread-safe, and a local opponent's turn may write it. */
#define BDD_NOOP 0.9
#define BDD_HORIZON_MAX 16
/* below this the sets built where the others move reach no state our search asks about
 * (our turn is a ply on, the root's children two: α_1 there needs a horizon of 3) */
#define BDD_HORIZON_MIN 3
/* sets rebuilt with fewer complete steps than this prove little the search does not find
 * itself (α_1, a win at the next move: the decisive rollouts take it, the tree's solver
 * backs it up) for the CPU their build takes from the pondering; after BDD_POOR_MAX such
 * builds in a row (connect four at 0.5 s under load: every rebuild cut at α_1) they are
 * dropped for the match (counter bdd_dropped) */
#define BDD_MIN_STEPS 3
#define BDD_POOR_MAX 2
/* The steps made for alpha-beta (start_ab_bdd): the walks of deeper ones cost it more (on
 * breakthroughSmallHoles, 5 s start, 0.5 s play, loaded machine, asked at every state: with
 * α_2/β_2, 0.9 s to build, it searched about half the states plain alpha-beta did in a
 * turn, with the partial α_3 too, 3 s to build, a quarter) */
#define AB_BDD_STEPS 2
/* Where alpha-beta asks them: with 2 joint moves left at least, where α_2/β_2 say nothing a
 * search of that depth does not find, but spare it the subtree (same screen: states per
 * search 0.83 of plain alpha-beta's, depth mean 9.5 against 9.4; asked at the leaves too
 * 0.45, depth 8.6 against 9.9: the leaves' walks cost more than their lookahead gives) */
#define AB_PROOF_DEPTH 2
/* where the probe gave up at start (solve_late), the end game is tried only in a turn
 * with at least this many seconds for it. Each try built the network again (0.1 CPU s on
 * connect four) and the end game from ply 34 took about 0.5 CPU s, from ply 32 2-2.6, so
 * 1 s (no try at a 0.5 s clock); since the network is kept and a try carried over the
 * turns (late_try), a try fits a 0.5 s clock's 0.27 s (docs/bdd.md) */
#define BDD_LATE_MIN 0.1
/* solve_late: tries in a row that go on with the sets under way and make no step before
 * the next makes them again from the match's state (its steps cheaper: fewer states left;
 * connect four from ply 26: α_3 3 CPU s, from ply 32 every step to the end 1.3) */
#define BDD_STALL_MAX 2
/* solve_late where the start kept no network: the seconds a try needs to build one (at
 * 0.5 s under load a build overran its 0.27 s by up to 0.13 s, and failed) */
#define BDD_LATE_BUILD 1.0
/* solve_late, a try on the kept network: the share of its time its forward search may
 * take (the network costs nothing; the steps go on at the next try, the search does not:
 * at 0.5 s under load 0.4 of a try let it pass only from ply 37, docs/bdd.md) */
#define LATE_REACH_SHARE 0.8
#define LBS_SAFETY 0.1      /* seconds kept back from it (grounding and calibration overrun) */
#define STATE_COSTS 4       /* a search call overruns by at least this many states' cost */
#define COST_TURN_SHARE 0.5 /* of the play clock left at least, to measure that cost in a turn */
#define HEUR_SHARE 0.25     /* of the start clock left, at most for learning an evaluation */
#define HEUR_MATCHES 1000   /* random matches it learns from in an iteration-bounded search */
#define MATERIAL_SCALE 10   /* heur=material: a piece up of sixteen is worth about 58 (Sancho's) */
#define COST_SHARE 0.03     /* of the start clock left, at most for measuring it */
#define CANDS_SHARE 0.05    /* dcand=on: of the start clock left, at most for learning them */
#define CANDS_MAX 1.0       /* seconds, at most for learning them */
#define CANDS_MATCHES 1000  /* random matches they are learnt from when iteration-bounded */
#define CANDS_PLIES 1000    /* joint moves of one such match at most */
#define COST_MAX 0.5        /* seconds, at most for measuring it */
/* play clocks past a second agent's preparation (AGENT_PREPARE_SECONDS after START) by
 * which the worker has taken its engine, if it made one (it does so between messages) */
#define SECOND_SLACK 2

typedef struct {
    uint32_t iters; /* 0: time-bounded */
    double c;       /* < 0: uct's default */
    double simc;    /* simc=X: c where several roles choose (< 0: c) */
    bool tuned;     /* ucb=tuned */
    double margin;
    uint32_t mem_mb; /* 0: uct's default */
    bool lbs_kind;   /* options of mcts+lbs allowed */
    bool lbs;        /* backward search on (mcts+lbs only) */
    double budget;   /* <= 0: what the start clock allows */
    double hookcost;
    double z3share;
    lbs_confirm_t confirm;
    bool bdd;                /* bdd=on: the hook on symbolic backward search's sets */
    uint32_t bddhorizon;     /* bddhorizon=D */
    bool bddvalues;          /* bddvalues=on: proven values, draws too */
    bool bddshadow;          /* bddshadow=on: each turn searched again with and without them */
    bool bddsolve;           /* bddsolve=on: at start, the sets without a horizon first */
    double bddreach;         /* bddreach=F: the probe's share for its forward search (0: 0.4) */
    uint32_t bddcut;         /* bddcut=N: tests, the start's forward searches cut (0: never) */
    double bddlate;          /* bddlate=S: solve_late's least time for a try */
    bool bddlong;            /* bddlong=on: in a state proven lost, the longest loss */
    bool bddponder;          /* bddponder=on: the tree pondered on during solve_late's tries */
    double bddown;           /* bddown=F: solve_late's share of own turns once under way */
    uint32_t lbssteps;       /* lbssteps=N: tests, backward search to α_N without the clock */
    engine_kind_t engine;    /* engine=K; default: engine_default_kind() */
    uint32_t threads;        /* threads=N (1 or 2; 0: the default, see ensure_uct) */
    uct_parallel_t parallel; /* parallel=root|tree: how two threads share the search */
    bool parallel_given;     /* parallel= was given */
    bool ponder;             /* ponder=on|off: search while the others think */
    bool tt;                 /* tt=on|off: transpositions (one node per state) */
    bool heur;               /* heur=on|off|material: an evaluation learnt at start */
    bool material;           /* heur=material|adv: material instead of the fit */
    bool adv;                /* heur=adv: material with the pieces' advancement */
    bool counter;            /* counter=on|off: material with score counters (heur_counter) */
    int cut;                 /* cut=K|off: rollouts cut after K steps (-1: never) */
    bool cut_given;          /* cut= was given (heur=material: no cut unless given) */
    uint32_t prior;          /* prior=N: prior visits per move (0: none) */
    double psharp;           /* psharp=K: prior sharpness (uct_set_prior_sharpness) */
    double imm;              /* imm=A: implicit minimax weight (uct_set_implicit; 0: off) */
    bool immnz;              /* immnz=on: ... in two-role games not zero-sum too */
    playout_opts_t playout;  /* decisive=off|on|anti, mast=off|E */
    bool decisive_auto;      /* decisive=auto: anti unless it costs too much (choose_policy) */
    bool dcand;              /* dcand=on: decisive checks on learnt candidates (learn_cands) */
    bool line;               /* line=on: the best line of a game of one role */
    bool mix;                /* mix=on: simultaneous moves drawn by visits */
    bool sep;                /* sep=on: separable simultaneous nodes searched as turn-taking */
    bool bounds;             /* bounds=on: score bounds backed up (MCTS-Solver generalised) */
    bool ab;                 /* ab=on: alpha-beta where material gets advancement (start_ab) */
    uint32_t abdepth;        /* abdepth=N: its depth bound in joint moves (0: none) */
    uint32_t abproof;        /* abproof=N: the sets asked with N joint moves left at least */
    bool absets;             /* absets=on: sets for alpha-beta where it acts (start_ab_bdd) */
} mcts_opts_t;

typedef struct {
    player_core_t core; /* its engine (opts.engine): backward search runs on it too */
    mcts_opts_t opts;
    uct_t *uct;
    lbs_t *lbs;
    bddhook_t *bdd;       /* bdd=on: the hook's sets, for this match */
    uint32_t bdd_from;    /* the turn whose state they start from */
    uint32_t bdd_horizon; /* of the next build (bddhook_next_horizon) */
    bool bdd_cut;         /* the last build had a step cut by its deadline */
    bool bdd_global;      /* they hold every state (no horizon): kept for the match */
    bool bdd_off;         /* the hook taken off this turn: they prove its state (or tree) lost */
    uint32_t bdd_poor;    /* builds in a row with fewer than BDD_MIN_STEPS complete steps */
    bool bdd_dropped;     /* BDD_POOR_MAX of them: no sets for the rest of the match */
    bool bdd_late;        /* the probe gave up at start: only the end game's sets (solve_late) */
    bool bdd_retry;       /* one role, and at start the forward search ran out of time twice
                             (not past its node cap: a loaded machine, the states perhaps
                             few): the end game is tried at own turns too (a game of one role
                             has no other's turn), and a try out of time does not skip the
                             next */
    bool bdd_skip;        /* solve_late's last try gave up its forward search: not the next */
    uint32_t bdd_stall;   /* solve_late's tries in a row that went on with the sets and made
                             no step: the next makes them again from the match's state */
    uint32_t proven_turn; /* the first turn whose state the sets proved, plus one (0: none) */
    double bdd_seconds;   /* the last build's time (made or not) */
    /* this match's counters the player keeps itself (the search's come from uct_stats at
     * stop): the sets' builds, CPU seconds, bddshadow=on's turns */
    player_search_t counts;
    heur_t *heur;           /* the evaluation learnt at start (heur=on), for this match */
    playout_cands_t *cands; /* dcand=on: the decisive candidates, for this match */
    ab_t *ab;               /* ab=on where it acts (start_ab): the search, for this match */
    eng_state_t *ab_state;  /* the state it searches */
    double *hval;           /* the evaluation's values, one per role */
    double ab_overrun;      /* how far an alpha-beta search outlasted its stop */
    lbs_hook_t hook;        /* the rollout hook on lbs: the deadline of the search under way */
    state_t prev;           /* the state last searched */
    bool have_prev;
    uint32_t moves; /* moves chosen by search, for the log */
    /* how far a search call outlasted the time it was given (a decaying maximum): in a
     * game whose states take the interpreter a tenth of a second, a call cannot stop sooner,
     * and the next call is not started when less time than this is left */
    double overrun;
    double min_overrun;  /* its floor: a few times what one state costs the engine */
    bool cost_unknown;   /* that cost was not measured at start (no time left) */
    bool cost_once;      /* measured on one state only (measure_cost): again in a turn */
    double cost_last;    /* that one measure, seconds */
    double made_at;      /* when this match's search and engine were made (its START) */
    player_search_t sum; /* the counters of the matches played */
} mcts_player_t;

#define MCTS_OPTS_HELP                                                                             \
    "iters=N, c=X, simc=X, ucb=plain|tuned, margin=S, mem=MB, engine=K, threads=1|2, "             \
    "parallel=root|tree, "                                                                         \
    "ponder=on|off, "                                                                              \
    "tt=on|off, decisive=off|on|anti|auto, dcand=on|off, mast=off|E, pdepth=D, "                   \
    "heur=on|off|material|adv, counter=on|off, "                                                   \
    "cut=K|off, "                                                                                  \
    "prior=N, psharp=K, imm=A, immnz=on|off, line=on|off, mix=on|off, sep=on|off, ab=on|off, "     \
    "abdepth=N, "                                                                                  \
    "bounds=on|off"
#define LBS_OPTS_HELP                                                                              \
    "budget=S, confirm=none|z3, lbs=on|off, hookcost=X, z3share=F, bdd=on|off, bddhorizon=D, "     \
    "bddvalues=on|off, bddshadow=on|off, bddsolve=on|off, bddreach=F, bddcut=N, bddlate=S, "       \
    "bddlong=on|off, bddponder=on|off, bddown=F, lbssteps=N, absets=on|off, abproof=N"

/* One option of mcts+lbs; false when unknown or bad. */
static bool set_lbs_opt(mcts_opts_t *o, const char *key, const char *val) {
    char *rest = NULL;
    if (!strcmp(key, "budget")) {
        o->budget = strtod(val, &rest);
        return *val && !*rest && o->budget > 0 && o->budget <= 3600;
    }
    if (!strcmp(key, "hookcost")) return opts_num(val, 0, 1e6, &o->hookcost);
    if (!strcmp(key, "z3share")) return opts_num(val, 0, 1, &o->z3share);
    if (!strcmp(key, "confirm")) {
        o->confirm = !strcmp(val, "none") ? LBS_CONFIRM_NONE : LBS_CONFIRM_Z3;
        return !strcmp(val, "none") || !strcmp(val, "z3");
    }
    if (!strcmp(key, "lbs")) return opts_onoff(val, &o->lbs);
    if (!strcmp(key, "bdd")) return opts_onoff(val, &o->bdd);
    if (!strcmp(key, "bddhorizon")) return opts_u32(val, 1, 64, &o->bddhorizon);
    if (!strcmp(key, "bddvalues")) return opts_onoff(val, &o->bddvalues);
    if (!strcmp(key, "bddshadow")) return opts_onoff(val, &o->bddshadow);
    if (!strcmp(key, "bddsolve")) return opts_onoff(val, &o->bddsolve);
    if (!strcmp(key, "bddreach")) return opts_num(val, 0, 1, &o->bddreach);
    if (!strcmp(key, "bddcut")) return opts_u32(val, 0, 1000, &o->bddcut);
    if (!strcmp(key, "bddlate")) return opts_num(val, 0, 60, &o->bddlate);
    if (!strcmp(key, "bddlong")) return opts_onoff(val, &o->bddlong);
    if (!strcmp(key, "bddponder")) return opts_onoff(val, &o->bddponder);
    if (!strcmp(key, "bddown")) return opts_num(val, 0, 0.9, &o->bddown);
    if (!strcmp(key, "lbssteps")) return opts_u32(val, 0, 63, &o->lbssteps);
    if (!strcmp(key, "absets")) return opts_onoff(val, &o->absets);
    if (!strcmp(key, "abproof")) return opts_u32(val, 0, 254, &o->abproof);
    return false;
}

/* The rollout policy's options (decisive=, pdepth=, mast=); false when unknown or bad. */
static bool set_playout_opt(playout_opts_t *o, const char *key, const char *val) {
    char *rest = NULL;
    if (!strcmp(key, "decisive")) {
        o->decisive = strcmp(val, "off") != 0;
        o->antidecisive = !strcmp(val, "anti");
        return !strcmp(val, "off") || !strcmp(val, "on") || !strcmp(val, "anti");
    }
    if (!strcmp(key, "pdepth")) return opts_u32(val, 0, 100000, &o->depth);
    if (strcmp(key, "mast")) return false;
    double e = !strcmp(val, "off") ? -1 : strtod(val, &rest);
    o->mast_eps = e;
    return !strcmp(val, "off") || (*val && !*rest && e >= 0 && e <= 1);
}

/* One option of mcts (and of mcts+lbs, for that kind); false when unknown or bad. */
static bool set_opt(void *ctx, const char *key, const char *val) {
    mcts_opts_t *o = ctx;
    if (!strcmp(key, "iters")) return opts_u32(val, 1, 100000000, &o->iters);
    if (!strcmp(key, "c")) return opts_num(val, 0, 100, &o->c);
    if (!strcmp(key, "simc")) return opts_num(val, 0, 100, &o->simc);
    if (!strcmp(key, "ucb")) {
        o->tuned = !strcmp(val, "tuned");
        return o->tuned || !strcmp(val, "plain");
    }
    if (!strcmp(key, "mem")) return opts_u32(val, 1, 1000000, &o->mem_mb);
    if (!strcmp(key, "margin")) return opts_num(val, 0, 10, &o->margin);
    if (!strcmp(key, "threads")) return opts_u32(val, 1, 2, &o->threads);
    if (!strcmp(key, "parallel")) {
        o->parallel_given = true;
        return uct_parallel_parse(val, &o->parallel);
    }
    if (!strcmp(key, "engine")) return engine_kind_parse(val, &o->engine);
    if (!strcmp(key, "ponder")) return opts_onoff(val, &o->ponder);
    if (!strcmp(key, "tt")) return opts_onoff(val, &o->tt);
    if (!strcmp(key, "heur")) {
        o->adv = !strcmp(val, "adv");
        o->material = o->adv || !strcmp(val, "material");
        if (o->material) return o->heur = true;
        return opts_onoff(val, &o->heur);
    }
    if (!strcmp(key, "counter")) return opts_onoff(val, &o->counter);
    if (!strcmp(key, "dcand")) return opts_onoff(val, &o->dcand);
    if (!strcmp(key, "line")) return opts_onoff(val, &o->line);
    if (!strcmp(key, "mix")) return opts_onoff(val, &o->mix);
    if (!strcmp(key, "sep")) return opts_onoff(val, &o->sep);
    if (!strcmp(key, "bounds")) return opts_onoff(val, &o->bounds);
    if (!strcmp(key, "ab")) return opts_onoff(val, &o->ab);
    if (!strcmp(key, "abdepth")) return opts_u32(val, 0, 1000, &o->abdepth);
    if (!strcmp(key, "prior")) return opts_u32(val, 0, 10000, &o->prior);
    if (!strcmp(key, "psharp")) return opts_num(val, 0, 1000, &o->psharp);
    if (!strcmp(key, "imm")) return opts_num(val, 0, 1, &o->imm);
    if (!strcmp(key, "immnz")) return opts_onoff(val, &o->immnz);
    if (!strcmp(key, "cut")) {
        uint32_t n = 0;
        o->cut_given = true;
        if (!strcmp(val, "off")) return o->cut = -1, true;
        bool ok = opts_u32(val, 0, 100000, &n);
        o->cut = (int)n;
        return ok;
    }
    if (!strcmp(key, "decisive")) {
        o->decisive_auto = !strcmp(val, "auto");
        return set_playout_opt(&o->playout, key, o->decisive_auto ? "anti" : val);
    }
    if (set_playout_opt(&o->playout, key, val)) return true;
    return o->lbs_kind && set_lbs_opt(o, key, val);
}

/* Parses "OPT:OPT..." into o; false (with a reason) on an unknown or bad option. */
static bool parse_opts(const char *text, mcts_opts_t *o, bool lbs_kind, strbuf_t *err) {
    memset(o, 0, sizeof *o);
    o->c = 0.8; /* with ucb=tuned: what beat c=1.4 with UCB1 (docs/league.md) */
    o->simc = -1;
    o->tuned = true;
    o->margin = 0.05;
    o->lbs_kind = o->lbs = lbs_kind;
    o->hookcost = 3;
    o->z3share = 0.25;
    o->confirm = LBS_CONFIRM_Z3;
    o->bddhorizon = 8;
    o->bddsolve = true;
    o->bddlong = true;
    o->bddponder = true;
    o->bddlate = BDD_LATE_MIN;
    o->abproof = AB_PROOF_DEPTH;
    o->engine = engine_default_kind();
    o->playout.mast_eps = -1;
    o->cut = 10;
    o->psharp = 1;
    /* on by default: what beat the same player without it (docs/league.md) */
    o->ponder = o->tt = true;
    o->line = true;   /* acts in games of one role only */
    o->bounds = true; /* docs/league.md: its on/off line */
    /* material with implicit minimax: acts where fluents carry a role's name (heur_material) */
    o->heur = o->material = true;
    o->imm = 0.4;
    /* acts where two roles' goals do not add up to 100 (uct_set_implicit_nonzero): it beat
     * immnz=off on skirmishNew and both checkers with capture counts (docs/mcts.md) */
    o->immnz = true;
    o->counter = true; /* acts where a score counter predicts random matches (heur_counter) */
    /* acts where material gets advancement, two roles (start_ab); mcts+lbs too: with it off
     * there, that kind played UCT against mcts's alpha-beta (breakthroughSmallHoles 0-0-9,
     * docs/lbs_matches.md), which measured the search, not the hook */
    o->ab = true;
    o->playout.decisive = o->playout.antidecisive = o->decisive_auto = true;
    if (lbs_kind)
        return opts_parse(text, "mcts+lbs", MCTS_OPTS_HELP ", " LBS_OPTS_HELP, set_opt, o, err);
    return opts_parse(text, "mcts", MCTS_OPTS_HELP, set_opt, o, err);
}

static bool mcts_check_options(const char *opts, strbuf_t *err) {
    mcts_opts_t o;
    return parse_opts(opts, &o, false, err);
}

static bool lbs_check_options(const char *opts, strbuf_t *err) {
    mcts_opts_t o;
    return parse_opts(opts, &o, true, err);
}

static player_t *create(const player_setup_t *setup, bool lbs_kind) {
    mcts_player_t *p = xcalloc(1, sizeof *p);
    player_core_init(&p->core, setup, "mcts");
    strbuf_t err;
    sb_init(&err);
    if (!parse_opts(setup->options, &p->opts, lbs_kind, &err))
        parse_opts(NULL, &p->opts, lbs_kind, &err);
    sb_fini(&err);
    state_init(&p->prev);
    return &p->core.base;
}

static player_t *mcts_create(const player_setup_t *setup) {
    return create(setup, false);
}
static player_t *lbs_create(const player_setup_t *setup) {
    return create(setup, true);
}

/* Adds this match's counters to the player's (once per match, at stop). */
static void add_match(mcts_player_t *p) {
    if (!p->uct) return;
    uct_stats_t st;
    uct_stats(p->uct, &st);
    player_search_t m = p->counts;
    m.matches = 1, m.iterations = st.iterations, m.rollouts = st.rollouts;
    m.rollout_steps = st.rollout_steps, m.hook_calls = st.hook_calls;
    m.hook_hits = st.hook_hits, m.hook_seconds = st.hook_seconds;
    m.lbs_kind = p->opts.lbs_kind;
    m.bdd_proven = p->proven_turn > 0, m.bdd_proven_turn = p->proven_turn ? p->proven_turn - 1 : 0;
    if (p->lbs) {
        m.lbs_matches = 1;
        lbs_stats(p->lbs, &m.lbs);
    }
    player_search_add(&p->sum, &m);
}

static void mcts_search(const player_t *pl, player_search_t *sum) {
    player_search_add(sum, &((const mcts_player_t *)pl)->sum);
}

/* Appends "i:n,i:n" for the non-zero counts (or "none"). */
static void put_hits(strbuf_t *out, const uint64_t *h) {
    bool any = false;
    for (int i = 0; i < 64; i++)
        if (h[i]) {
            sb_printf(out, "%s%d:%" PRIu64, any ? "," : "", i, h[i]);
            any = true;
        }
    if (!any) sb_puts(out, "none");
}

/* Appends alpha-beta's counters where it searched (ab=on acted), else nothing. */
static void put_ab(strbuf_t *out, const player_search_t *t) {
    if (!t->ab_searches) return;
    sb_printf(out,
              " ab_searches=%u ab_nodes=%" PRIu64 " ab_leaves=%" PRIu64 " ab_tt_hits=%" PRIu64
              " ab_depth_mean=%.2f ab_depth_max=%u ab_proven=%u",
              t->ab_searches, t->ab_nodes, t->ab_leaves, t->ab_tt_hits,
              (double)t->ab_depth_sum / t->ab_searches, t->ab_depth_max, t->ab_proven);
    sb_printf(out, " ab_proofs=%" PRIu64 " ab_wins=%u ab_won_matches=%u ab_first_win=%.2f",
              t->ab_proofs, t->ab_wins, t->ab_won_matches,
              t->ab_won_matches ? (double)t->ab_first_win_sum / t->ab_won_matches : 0.0);
}

bool player_search_report(const player_search_t *t, strbuf_t *out) {
    if (!t->matches) return false;
    if (!t->lbs_kind) {
        sb_printf(out,
                  "matches=%u iterations=%" PRIu64 " rollouts=%" PRIu64
                  " avg_rollout_len=%.2f search_cpu=%.3f",
                  t->matches, t->iterations, t->rollouts,
                  t->rollouts ? (double)t->rollout_steps / t->rollouts : 0, t->search_cpu);
        put_ab(out, t);
        return true;
    }
    const lbs_stats_t *a = &t->lbs;
    double m = t->lbs_matches ? t->lbs_matches : 1;
    sb_printf(out,
              "matches=%u lbs_matches=%u iterations=%" PRIu64 " rollouts=%" PRIu64
              " avg_rollout_len=%.2f "
              "hook_calls=%" PRIu64 " "
              "hook_hits=%" PRIu64
              " hook_seconds=%.3f n_alpha=%.1f n_beta=%.1f hook_alpha=%.1f hook_beta=%.1f "
              "checks=%" PRIu64 " hits_alpha=",
              t->matches, t->lbs_matches, t->iterations, t->rollouts,
              t->rollouts ? (double)t->rollout_steps / t->rollouts : 0, t->hook_calls, t->hook_hits,
              t->hook_seconds, a->n_alpha / m, a->n_beta / m, a->hook_alpha / m, a->hook_beta / m,
              a->checks);
    put_hits(out, a->hits_alpha);
    sb_puts(out, " hits_beta=");
    put_hits(out, a->hits_beta);
    sb_printf(
        out,
        " z3_confirmed=%" PRIu64 " z3_cached=%" PRIu64 " z3_disagree=%" PRIu64
        " z3_unknown=%" PRIu64 " z3_skipped=%" PRIu64 " "
        "check_seconds=%.3f z3_seconds=%.3f regress_seconds_mean=%.3f too_slow=%u "
        "match_gave_up=%" PRIu64 " hook_skipped=%" PRIu64 " stopped_mean=%.2f guard_unsound=%u "
        "guard_unverified=%u guard_hits=%" PRIu64 " pay_skipped=%" PRIu64
        " bdd_builds=%u bdd_seconds=%.3f bdd_cpu=%.3f search_cpu=%.3f shadow_turns=%u"
        " shadow_differ=%u bdd_solved=%u bdd_lost=%u bdd_lost_start=%u bdd_lost_tree=%u "
        "bdd_dropped=%u bdd_reused=%u bdd_longer=%u"
        " bdd_set_turns=%u bdd_proven=%u bdd_proven_turn_mean=%.1f",
        a->z3_confirmed, a->z3_cached, a->z3_disagree, a->z3_unknown, a->z3_skipped,
        a->check_seconds, a->z3_seconds, a->regress_seconds / m, a->too_slow, a->match_gave_up,
        a->hook_skipped, a->stopped / m, a->guard_unsound, a->guard_unverified, a->guard_hits,
        a->pay_skipped, t->bdd_builds, t->bdd_seconds, t->bdd_cpu, t->search_cpu, t->shadow_turns,
        t->shadow_differ, t->bdd_solved, t->bdd_lost, t->bdd_lost_start, t->bdd_lost_tree,
        t->bdd_dropped, t->bdd_reused, t->bdd_longer, t->bdd_set_turns, t->bdd_proven,
        t->bdd_proven ? (double)t->bdd_proven_turn / t->bdd_proven : 0);
    put_ab(out, t);
    return true;
}

/* The options every search tree of the player gets (not the threads, hooks, heuristic). */
static void tune_uct(const mcts_player_t *p, uct_t *u) {
    if (p->opts.c >= 0) uct_set_exploration(u, p->opts.c);
    uct_set_sim_exploration(u, p->opts.simc);
    uct_set_tuned(u, p->opts.tuned);
    if (p->opts.mem_mb) uct_set_memory_limit(u, (size_t)p->opts.mem_mb << 20);
    uct_set_playout(u, &p->opts.playout);
    uct_set_transpositions(u, p->opts.tt);
    uct_set_best_line(u, p->opts.line);
    uct_set_mixed(u, p->opts.mix);
    uct_set_sequential(u, p->opts.sep);
    uct_set_bounds(u, p->opts.bounds);
    uct_set_implicit_nonzero(u, p->opts.immnz);
}

/* heur=...: where its evaluation cuts rollouts (-1: never; material: unless cut= given). */
static int heur_cut(const mcts_player_t *p) {
    return p->opts.material && !p->opts.cut_given ? -1 : p->opts.cut;
}

/* The search tree, and the engine (ready by `ready`). */
static void ensure_uct(mcts_player_t *p, double ready) {
    if (p->uct) return;
    player_core_engine(&p->core, p->opts.engine, ready);
    p->uct = uct_new(p->core.engine, p->core.role, p->core.seed);
    p->made_at = now_seconds();
    /* the default: both cores on one tree, what beat one thread (docs/league.md), unless
     * iteration-bounded (two threads interleave: not reproducible) */
    bool dflt = p->opts.threads == 0;
    uint32_t threads = dflt ? (p->opts.iters ? 1 : 2) : p->opts.threads;
    uct_set_parallel(p->uct,
                     dflt && !p->opts.parallel_given ? UCT_PARALLEL_TREE : p->opts.parallel);
    if (threads > 1 && !uct_set_threads(p->uct, threads) && !dflt)
        fprintf(stderr, "mcts: threads=%u needs a ground engine; searching on one thread\n",
                threads);
    tune_uct(p, p->uct);
    if (p->lbs) { /* on bitsets with a ground engine */
        p->hook.lbs = p->lbs;
        lbs_attach(&p->hook, p->uct);
    }
    if (p->bdd) bddhook_attach(p->bdd, p->uct);
    p->have_prev = false;
}

static void log_stats(mcts_player_t *p, const char *what, double secs) {
    if (!p->core.verbose || !p->uct) return;
    uct_stats_t st;
    uct_stats(p->uct, &st);
    fprintf(stderr,
            "mcts: %s: %.0f ms, %" PRIu64 " iterations (cumulative), root visits %u, value %.1f%s, "
            "%" PRIu64 " nodes, avg rollout %.1f, tree %.1f of %.0f MiB%s\n",
            what, secs * 1000, st.iterations, st.root_visits, st.root_value,
            st.root_proven ? " (proven)" : "", st.nodes, st.avg_rollout_len,
            st.memory_bytes / 1048576.0, st.memory_limit / 1048576.0,
            st.memory_full ? " (full: the tree stopped growing)" : "");
    if (st.best_line >= 0) fprintf(stderr, "mcts: best line worth %d\n", st.best_line);
    if (st.sim_proven || st.sep_nodes)
        fprintf(stderr,
                "mcts: %" PRIu64 " simultaneous nodes proven (cumulative), %" PRIu64
                " with a security level; %" PRIu64 " separable nodes\n",
                st.sim_proven, st.sim_secured, st.sep_nodes);
    if (!p->lbs) return;
    lbs_stats_t ls;
    lbs_stats(p->lbs, &ls);
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, "hits_alpha=");
    put_hits(&sb, ls.hits_alpha);
    sb_puts(&sb, " hits_beta=");
    put_hits(&sb, ls.hits_beta);
    fprintf(stderr,
            "lbs: %s: rollouts %" PRIu64 ", hook calls %" PRIu64 ", hits %" PRIu64
            ", %s, z3 confirmed %" PRIu64 " cached %" PRIu64 " "
            "disagree %" PRIu64 ", checking %.0f ms (z3 %.0f ms)\n",
            what, st.rollouts, st.hook_calls, st.hook_hits, sb_str(&sb), ls.z3_confirmed,
            ls.z3_cached, ls.z3_disagree, ls.check_seconds * 1000, ls.z3_seconds * 1000);
    sb_fini(&sb);
}

/* Backward search within the start clock (mcts+lbs with lbs on), on the search's engine
 * (made first, with the share of the clock it would have after backward search); a game
 * it does not apply to is said and played with plain MCTS. */
static void start_lbs(mcts_player_t *p, double deadline) {
    if (!p->opts.lbs || p->lbs) return;
    double t0 = now_seconds();
    player_core_engine(&p->core, p->opts.engine,
                       t0 + (deadline - t0) * (1 - LBS_SHARE) * PLAYER_ENGINE_SHARE);
    lbs_opts_t o;
    lbs_default_opts(&o);
    o.confirm = p->opts.confirm;
    o.stop_cost = p->opts.hookcost; /* formulas the hook cannot use are not worth the clock */
    o.budget = (deadline - now_seconds()) * LBS_SHARE - LBS_SAFETY - p->opts.margin;
    if (p->opts.budget > 0 && p->opts.budget < o.budget) o.budget = p->opts.budget;
    if (o.budget < 0.05) o.budget = 0.05;
    char err[400];
    if (p->opts.lbssteps) o.budget = 0, o.stop_cost = 0; /* a test's: α_N/β_N, no clock */
    t0 = now_seconds();
    p->lbs = lbs_new_steps(p->core.engine, p->core.role, &o, p->opts.lbssteps, err, sizeof err);
    if (!p->lbs) {
        fprintf(stderr, "%s: %s; playing plain MCTS\n", p->core.base.kind->name, err);
        p->opts.lbs = false;
        return;
    }
    lbs_set_hook_cost(p->lbs, p->opts.hookcost);
    lbs_set_z3_share(p->lbs, p->opts.z3share);
    if (p->core.verbose) {
        lbs_stats_t ls;
        lbs_stats(p->lbs, &ls);
        fprintf(stderr,
                "lbs: backward search %.0f ms (budget %.0f ms): %u alpha, %u beta formulas, hook "
                "uses %u/%u, "
                "rollout step %.1f us\n",
                (now_seconds() - t0) * 1000, o.budget * 1000, ls.n_alpha, ls.n_beta, ls.hook_alpha,
                ls.hook_beta, ls.step_seconds * 1e6);
    }
}

/* The sets from es (NULL: the initial state) within `horizon` steps of it (0: none), at
 * most max_steps (0: no limit), by `until`, counted (counts.bdd_*); NULL with a message in
 * err. */
static bddhook_t *make_bdd(mcts_player_t *p, const eng_state_t *es, uint32_t horizon,
                           uint32_t max_steps, double until, bool layout_known, char *err,
                           size_t errlen) {
    bddhook_opts_t o;
    bddhook_default_opts(&o);
    o.horizon = horizon, o.values = p->opts.bddvalues, o.layout_known = layout_known;
    /* the probe at start and solve_late: no step past a forward search given up */
    o.reach_first = !horizon && (p->bdd_late || max_steps == 1);
    o.resume = !horizon && p->bdd_late; /* solve_late: a cut step made at the next try */
    o.max_steps = max_steps;
    if (!es && !horizon && max_steps == 1) o.reach_share = p->opts.bddreach; /* the probe */
    if (!es && !horizon && p->opts.bddcut) /* the start's, no step past the cut: a test's */
        o.cut_reach = p->opts.bddcut, o.reach_first = true;
    double t0 = now_seconds(), c0 = cpu_seconds();
    bddhook_t *h = bddhook_new(p->core.engine, p->core.role, es, &o, until, err, errlen);
    p->counts.bdd_builds += h != NULL, p->counts.bdd_seconds += now_seconds() - t0;
    p->counts.bdd_cpu += cpu_seconds() - c0;
    return h;
}

/* The sets without a horizon from the start's probe *probe (taken: NULL after), its
 * network, forward search and step α_1 not made again (bddhook_more: where they are
 * complete; the same rules, order and steps as a new build), by `until` (and lbssteps=N:
 * α_N/β_N, a test's sets not complete), counted as a build (counts.bdd_*, bdd_reused); NULL
 * where it cannot go on (*probe is then kept). */
static bddhook_t *more_bdd(mcts_player_t *p, bddhook_t **probe, double until) {
    if (!*probe) return NULL;
    double t0 = now_seconds(), c0 = cpu_seconds();
    if (!bddhook_more(*probe, p->opts.lbssteps, until)) return NULL;
    p->counts.bdd_builds++, p->counts.bdd_reused++;
    p->counts.bdd_seconds += now_seconds() - t0, p->counts.bdd_cpu += cpu_seconds() - c0;
    bddhook_t *h = *probe;
    *probe = NULL;
    return h;
}

/* The sets without a horizon from the start's probe *probe (taken: NULL after) whose
 * forward search ran out of time: that search again from the initial state on its network
 * (bddhook_restart, steps even where it runs out again: as make_bdd's), not built again;
 * counted as more_bdd; NULL where no time is left (*probe is then kept). */
static bddhook_t *again_bdd(mcts_player_t *p, bddhook_t **probe, double until) {
    if (!*probe) return NULL;
    double t0 = now_seconds(), c0 = cpu_seconds();
    /* (bddcut=N: no step past the cut, as make_bdd's) */
    if (!bddhook_restart(*probe, NULL, false, p->opts.bddcut, 0, p->opts.lbssteps, until))
        return NULL;
    p->counts.bdd_builds++, p->counts.bdd_reused++;
    p->counts.bdd_seconds += now_seconds() - t0, p->counts.bdd_cpu += cpu_seconds() - c0;
    bddhook_t *h = *probe;
    *probe = NULL;
    return h;
}

/* The steps complete on every side the hook reads (α_0..α_{k-1}: k). */
static uint32_t complete_steps(const bddhook_info_t *in) {
    uint32_t k = in->beta && in->beta < in->alpha ? in->beta : in->alpha;
    return in->first_partial < k ? in->first_partial : k;
}

/* The symbolic sets within the start clock (mcts+lbs with bdd=on) from the initial state,
 * on the search's engine (made by ensure_uct), given to its tree; a game they do not apply
 * to, or a network not built in time, is said and played with plain MCTS. */
static void start_bdd(mcts_player_t *p, const state_t *initial, double deadline) {
    if (!p->opts.lbs || !p->opts.bdd || p->bdd || !initial) return;
    double t0 = now_seconds();
    player_core_engine(&p->core, p->opts.engine,
                       t0 + (deadline - t0) * (1 - BDD_SHARE) * PLAYER_ENGINE_SHARE);
    t0 = now_seconds();
    double budget = (deadline - t0) * BDD_SHARE - LBS_SAFETY - p->opts.margin;
    double solve = (deadline - t0) * BDD_SOLVE_SHARE - LBS_SAFETY - p->opts.margin;
    if (p->opts.budget > 0 && p->opts.budget < budget) budget = p->opts.budget;
    if (p->opts.budget > 0 && p->opts.budget < solve) solve = p->opts.budget;
    eng_state_t *es = engine_state_new(p->core.engine);
    engine_state_set(p->core.engine, es, initial);
    char err[400] = "no time for the sets";
    double until = t0 + budget;
    bddhook_info_t in;
    bool supported = false; /* sets were made: the game is one they apply to */
    bool many = false;      /* the probe's forward search gave up: too many states */
    bool late = false;      /* it ran out of time instead (under load): maybe few states */
    bddhook_t *probe = NULL;
    if (p->opts.bddsolve && solve > 0.05) {
        /* a probe first (the network, its forward search, α_1): where the search gives up
         * the game is not solved in a start clock, and the clock is left to the tree;
         * timed, the tree is searched meanwhile (the probe reads only the network and the
         * term store once the layout is checked, as a rebuild does), so that where it gives
         * up the start costs the tree a third of the probe's CPU, not all of it */
        bool layout = bddhook_layout_ok(p->core.engine);
        bool pondering =
            layout && p->opts.ponder && !p->opts.iters && p->uct && uct_ponder(p->uct, initial, 0);
        p->bdd = make_bdd(p, NULL, 0, 1, t0 + solve, layout, err, sizeof err);
        if (pondering) uct_ponder_stop(p->uct);
        if (p->bdd) bddhook_info(p->bdd, &in);
        supported = p->bdd != NULL, late = p->bdd && in.reach_late; /* (0 layers then) */
        many = p->bdd && !in.reach_layers && !late;
        p->bdd_late = many;
        probe = p->bdd, p->bdd = NULL; /* the sets without a horizon may go on from it */
        if (p->core.verbose && supported)
            fprintf(stderr, "bdd: probe in %.0f ms: %u layers of reachable states%s\n",
                    (now_seconds() - t0) * 1000, in.reach_layers,
                    many   ? " (given up): no sets at start"
                    : late ? " (out of time): the sets with the rest of the clock"
                           : "");
    }
    if (p->opts.bddsolve && supported && !many) {
        /* from the initial state (NULL), not from es: forward search from a given state
         * keeps the sets within its layers (bddnet_local), from the initial one they are
         * global, restricted to what it reaches */
        p->bdd = more_bdd(p, &probe, t0 + solve);
        if (!p->bdd && late) p->bdd = again_bdd(p, &probe, t0 + solve);
        if (!p->bdd) { /* built again: the probe first freed, as one manager holds both */
            FREE_AND_NULL(bddhook_free, probe);
            p->bdd = make_bdd(p, NULL, 0, p->opts.lbssteps, t0 + solve, false, err, sizeof err);
        }
        if (p->bdd) bddhook_info(p->bdd, &in);
        if (p->core.verbose)
            fprintf(stderr, "bdd: the sets without a horizon in %.0f ms: %s\n",
                    (now_seconds() - t0) * 1000,
                    !p->bdd     ? err
                    : in.solved ? "solved"
                                : "not solved");
        if (p->bdd && p->core.verbose)
            fprintf(stderr, "bdd: %u alpha, %u beta steps, first cut %d, %u complete\n", in.alpha,
                    in.beta, in.first_partial == UINT32_MAX ? -1 : (int)in.first_partial,
                    complete_steps(&in));
        if (p->bdd && (in.solved || complete_steps(&in) > p->opts.bddhorizon))
            p->bdd_global = true, p->counts.bdd_solved += in.solved;
        else if (late && !probe) /* (out of time again: its network for solve_late) */
            probe = p->bdd, p->bdd = NULL;
        else
            FREE_AND_NULL(bddhook_free, p->bdd);
    }
    /* out of time twice: the match goes on as where the probe gave up (solve_late); with
     * one role at own turns too (bdd_retry), which with more would take their search's
     * clock where connect four under load can run out of time too */
    if (late && !p->bdd) many = p->bdd_late = true, p->bdd_retry = p->core.game->n_roles == 1;
    if (many && !p->bdd) p->bdd = probe, probe = NULL; /* its network, for solve_late */
    FREE_AND_NULL(bddhook_free, probe);
    if (!p->bdd && !many && until - now_seconds() > 0.05)
        p->bdd = make_bdd(p, es, p->opts.bddhorizon, 0, until, false, err, sizeof err);
    engine_state_free(es);
    if (p->bdd_late && p->bdd) return; /* the probe's network, no sets: not attached */
    if (!p->bdd && supported) {        /* made at the next turn that affords them (renew_bdd) */
        if (p->core.verbose && !many)
            fprintf(stderr, "bdd: no time left for the sets within a horizon\n");
        return;
    }
    if (!p->bdd) {
        fprintf(stderr, "%s: bdd: %s; playing plain MCTS\n", p->core.base.kind->name, err);
        p->opts.lbs = false;
        return;
    }
    if (p->uct) bddhook_attach(p->bdd, p->uct);
    bddhook_info(p->bdd, &in);
    /* solved: the nodes the tree made beside the probe were made without them and keep the
     * rollouts' values (duplicateStateMedium: every state it reaches, so the hook was not
     * asked again and the match went to the rollouts' 44, where the sets prove 100); the
     * tree is made again, each node proven as it is made */
    if (p->uct && in.solved) uct_clear(p->uct);
    p->bdd_horizon = in.horizon ? in.horizon : p->opts.bddhorizon;
    p->bdd_cut = in.first_partial != UINT32_MAX;
    p->bdd_seconds = in.seconds;
    if (p->core.verbose)
        fprintf(stderr,
                "bdd: sets within %u steps of the start (0: all) in %.0f ms (budget %.0f ms): "
                "%u alpha, %u beta steps, first cut %d, %" PRIu64 " nodes%s\n",
                in.horizon, (now_seconds() - t0) * 1000, budget * 1000, in.alpha, in.beta,
                in.first_partial == UINT32_MAX ? -1 : (int)in.first_partial, in.nodes,
                in.solved       ? ", solved"
                : p->bdd_global ? ", kept for the match"
                                : "");
}

/* bdd=on: the hook's ply at `turn`, and how deep into a rollout it may hit from there. */
static void set_bdd_ply(mcts_player_t *p, uint32_t turn) {
    if (!p->bdd) return;
    bddhook_info_t in;
    bddhook_info(p->bdd, &in);
    uint32_t since = turn - p->bdd_from;
    bddhook_set_ply(p->bdd, since);
    if (p->uct) uct_set_hook_reach(p->uct, bddhook_reach(in.horizon, since));
}

static void ponder(mcts_player_t *p, const state_t *s, term_t move);

/* bdd=on: the sets rebuilt from s (turn `turn`) until `until`, the horizon chosen from the
 * last build's time (fixed with iters=N: the build's time is not the search's). The search
 * is stopped. BuDDy has one manager per process: the old sets go first, and when the new
 * ones are not made in time the turn goes on without a hook (the next build shallower). */
static void rebuild_bdd(mcts_player_t *p, const state_t *s, uint32_t turn, double until,
                        bool pondering) {
    double b0 = now_seconds();
    bddhook_info_t in;
    uint32_t horizon = p->opts.iters
                           ? p->opts.bddhorizon
                           : bddhook_next_horizon(p->bdd_horizon, p->bdd_seconds, p->bdd_cut,
                                                  until - b0, BDD_HORIZON_MIN, BDD_HORIZON_MAX);
    eng_state_t *es = engine_state_new(p->core.engine);
    engine_state_set(p->core.engine, es, s);
    char err[400];
    uct_set_state_hook(p->uct, NULL, NULL);
    FREE_AND_NULL(bddhook_free, p->bdd);
    /* the tree searched on meanwhile (without a hook): the build reads only the network
     * and the term store (layout_known), the search threads neither the store nor this */
    if (pondering) ponder(p, s, TERM_NONE);
    bddhook_t *h = make_bdd(p, es, horizon, 0, until, true, err, sizeof err);
    engine_state_free(es);
    p->bdd_horizon = h || horizon <= BDD_HORIZON_MIN ? horizon : horizon - 1;
    if (h) bddhook_info(h, &in);
    p->bdd_cut = h && in.first_partial != UINT32_MAX;
    p->bdd_seconds = h ? in.seconds : now_seconds() - b0;
    if (p->core.verbose)
        fprintf(stderr,
                "bdd: turn %u: sets within %u steps of this state in %.0f ms (budget %.0f ms, "
                "first cut %d)%s%s\n",
                turn, horizon, (now_seconds() - b0) * 1000, (until - b0) * 1000,
                p->bdd_cut ? (int)in.first_partial : -1, h ? "" : ": ", h ? "" : err);
    p->bdd_poor = h && complete_steps(&in) >= BDD_MIN_STEPS ? 0 : p->bdd_poor + 1;
    if (p->bdd_poor >= BDD_POOR_MAX) { /* the match goes on without them */
        FREE_AND_NULL(bddhook_free, h);
        p->bdd_dropped = true, p->counts.bdd_dropped++;
        if (p->core.verbose) fprintf(stderr, "bdd: too shallow to pay: dropped for the match\n");
    }
    if (!h) return;
    bddhook_attach(h, p->uct); /* (stops the search) */
    p->bdd = h, p->bdd_from = turn, p->bdd_off = false;
    set_bdd_ply(p, turn);
    if (pondering) ponder(p, s, TERM_NONE);
}

/* Whether sets made without a horizon from a state `since` steps before the match's hold
 * every step to the last layer of the states reachable from the match's state, each
 * complete: every state of the rest of the match is in them (a state k steps from their
 * start is read in the steps to reach_layers - 1 - k), and in a game whose every play from
 * a state at ply k ends within the layers left (connect four: a piece a ply) its value
 * there is exact. */
static bool complete_to_end(const bddhook_info_t *in, uint32_t since) {
    return in->solved || (in->reach_layers && complete_steps(in) + since >= in->reach_layers);
}

/* Sets with some step past S_0 (which holds no non-terminal state): worth a hook. */
static bool has_steps(const bddhook_info_t *in) {
    return in->alpha > 1 || in->beta > 1;
}

/* The first turn whose state the sets prove (a forced win or loss), for the counters. */
static void note_proven(mcts_player_t *p, const eng_state_t *es, uint32_t turn) {
    if (p->proven_turn || !p->bdd || engine_terminal(p->core.engine, es)) return;
    if (bddhook_value(p->bdd, engine_state_words(es), turn - p->bdd_from) >= 0)
        p->proven_turn = turn + 1;
}

/* solve_late's try by `until`: goes on with the sets under way (bddhook_more, from the
 * turn they start at: every later state is in them) where their forward search was done
 * and the last BDD_STALL_MAX tries made some step, else makes them again from es (turn
 * `turn`) on their network (bddhook_restart), else builds them (make_bdd: where the start
 * kept no network); counted as a build (bdd_reused but the last). What it did, or NULL
 * with a message in err. */
static const char *late_try(mcts_player_t *p, const eng_state_t *es, uint32_t turn, double until,
                            char *err, size_t errlen) {
    double t0 = now_seconds(), c0 = cpu_seconds();
    bddhook_info_t in = {0};
    if (p->bdd) bddhook_info(p->bdd, &in);
    uint32_t before = complete_steps(&in);
    const char *how = "went on";
    if (!p->bdd || !in.reach_layers || p->bdd_stall >= BDD_STALL_MAX ||
        !bddhook_more(p->bdd, 0, until)) {
        how = "made again", p->bdd_stall = 0, before = UINT32_MAX;
        if (p->bdd &&
            !bddhook_restart(p->bdd, es, true, true, LATE_REACH_SHARE, p->opts.lbssteps, until))
            return NULL; /* no time */
        p->bdd_from = turn;
    }
    if (!p->bdd) { /* no network kept: built only where a try may afford it */
        if (until - t0 < BDD_LATE_BUILD) return snprintf(err, errlen, "no network"), NULL;
        p->bdd = make_bdd(p, es, 0, 0, until, true, err, errlen);
        return p->bdd ? "built" : NULL;
    }
    p->counts.bdd_builds++, p->counts.bdd_reused++;
    p->counts.bdd_seconds += now_seconds() - t0, p->counts.bdd_cpu += cpu_seconds() - c0;
    bddhook_info(p->bdd, &in);
    if (before != UINT32_MAX) p->bdd_stall = complete_steps(&in) > before ? 0 : p->bdd_stall + 1;
    return how;
}

/* bdd=on where the probe gave up at start (bdd_late: too many states for a start clock,
 * connect four): no sets within a horizon (measured: on connect four they cost as much CPU
 * as the search and changed nothing, docs/lbs_matches.md), only the end game: from s (turn
 * `turn`), by `until` (at least bddlate=S away, else nothing is tried), the sets without a
 * horizon on the start probe's network (not built again: late_try), none where the forward
 * search from s gives up (reach_first: that search only), carried over the turns (a step
 * cut by the deadline is made at the next try, resume) and given to the tree from their
 * first step on (sound wherever they stop); once complete to the last layer from the
 * match's state (complete_to_end) kept for the match and read as solved, no more tries.
 * After a forward search given up the next turn's try is skipped (bdd_skip: connect four's
 * took about 1 s of wall time of the 2.5 at a 3 s clock, until some 24 plies were
 * played). With `pondering` the tree is searched on meanwhile, as in rebuild_bdd. */
static void solve_late(mcts_player_t *p, const state_t *s, uint32_t turn, double until,
                       bool pondering) {
    double b0 = now_seconds();
    bool skip = p->bdd_skip;
    p->bdd_skip = false;
    if (until - b0 < p->opts.bddlate || skip) {
        if (pondering) ponder(p, s, TERM_NONE);
        return;
    }
    eng_state_t *es = engine_state_new(p->core.engine);
    engine_state_set(p->core.engine, es, s);
    char err[400] = "no time left";
    bddhook_info_t in = {0};
    if (p->bdd && p->uct) uct_set_state_hook(p->uct, NULL, NULL); /* the try rewrites them */
    if (pondering && p->opts.bddponder) ponder(p, s, TERM_NONE);
    const char *how = late_try(p, es, turn, until, err, sizeof err);
    if (p->bdd) bddhook_info(p->bdd, &in);
    uint32_t since = turn - p->bdd_from;
    bool many = how && !in.reach_layers, keep = how && complete_to_end(&in, since);
    /* out of time, not past its node cap: tried again at the next turn (a try costs the
     * turn's share only; with one role at own turns too: bdd_retry) */
    bool slow = many && in.reach_late;
    p->bdd_skip = many && !slow;
    if (p->core.verbose)
        fprintf(
            stderr,
            "bdd: turn %u: the end game from turn %u (%s) in %.0f ms (budget %.0f ms): %u "
            "complete steps of %u: %s\n",
            turn, p->bdd_from, how ? how : "-", (now_seconds() - b0) * 1000, (until - b0) * 1000,
            complete_steps(&in), in.reach_layers > since ? in.reach_layers - since : 0,
            !how   ? err
            : slow ? "out of time"
            : many
                ? (in.reach_late ? "out of time, the next turn's try skipped" : "too many states")
            : keep ? "solved, kept for the match"
                   : "not solved");
    bool attach = p->bdd && p->uct && has_steps(&in) && !p->bdd_off;
    if (attach) bddhook_attach(p->bdd, p->uct); /* (stops the search) */
    if (keep) {
        if (p->bdd_retry) uct_clear(p->uct); /* as at start: its nodes were made without them */
        p->bdd_global = true, p->counts.bdd_solved++;
    }
    if (attach) set_bdd_ply(p, turn);
    note_proven(p, es, turn);
    engine_state_free(es);
    if (pondering && (attach || !p->opts.bddponder)) ponder(p, s, TERM_NONE);
}

/* The sets made from s where none hold (at start or rebuilt): the end game only where the
 * probe gave up (solve_late), else within a horizon (rebuild_bdd). */
static void sets_from(mcts_player_t *p, const state_t *s, uint32_t turn, double until,
                      bool pondering) {
    if (p->bdd_late)
        solve_late(p, s, turn, until, pondering);
    else
        rebuild_bdd(p, s, turn, until, pondering);
}

/* bdd=on, at an own turn: the hook's ply, and the sets rebuilt from s when they are half
 * their horizon behind and the clock affords it (see BDD_RENEW); with iters=N whenever they
 * do not start here. */
static void renew_bdd(mcts_player_t *p, const state_t *s, uint32_t turn, double t0,
                      double deadline) {
    double clock = deadline - t0;
    if (p->bdd_dropped) return;
    if (p->bdd_late) { /* the end game's tries (solve_late): with iters=N here, timed where
                          the others move (and here where the start ran out of time) */
        set_bdd_ply(p, turn);
        bddhook_info_t in = {0};
        if (p->bdd) bddhook_info(p->bdd, &in);
        if (!p->bdd_global && p->opts.lbs && p->opts.bdd && (p->opts.iters || p->bdd_retry))
            sets_from(p, s, turn, t0 + BDD_RENEW_MAX * clock, false);
        else if (!p->bdd_global && p->opts.bddown > 0 && in.reach_layers && has_steps(&in))
            solve_late(p, s, turn, t0 + p->opts.bddown * clock, false); /* under way: on */
        return;
    }
    if (!p->bdd) { /* none made at start: with iters=N now, timed where the others move */
        if (p->opts.lbs && p->opts.bdd && (p->opts.iters || p->bdd_retry))
            sets_from(p, s, turn, t0 + BDD_RENEW_MAX * clock, false);
        return;
    }
    set_bdd_ply(p, turn);
    if (p->bdd_global) return; /* they hold every state: never rebuilt */
    bddhook_info_t in;
    bddhook_info(p->bdd, &in);
    uint32_t since = turn - p->bdd_from;
    /* (timed: not the turn after a build where the others moved, which those serve) */
    bool due = p->opts.iters
                   ? since > 0
                   : since >= 2 && 2 * since >= in.horizon && in.seconds <= BDD_RENEW * clock;
    if (!due) return;
    rebuild_bdd(p, s, turn, t0 + BDD_RENEW_MAX * clock, false); /* sets the ply when made */
}

/* The sets taken off the tree for this turn (bdd_off), which starts afresh: its proofs came
 * from them. */
static void sets_off(mcts_player_t *p) {
    p->bdd_off = true;
    uct_set_state_hook(p->uct, NULL, NULL);
    uct_clear(p->uct);
}

/* bdd=on, at an own turn: where the sets prove s lost (the others force their win whatever
 * we play), the turn is searched without them, on a fresh tree: with them every move is
 * proven lost at once and the search plays the first legal one (uct_choose: the proven
 * moves are ranked by visits), without them it plays the move plain search prefers, which
 * leaves an imperfect opponent the most ways to go wrong. They are given back at the
 * first own turn they do not prove lost (counts.bdd_lost: the turns without them). Also
 * asked at start, of the initial state (turn 0). Whether s is searched without them. */
static bool lost_bdd(mcts_player_t *p, const state_t *s, uint32_t turn) {
    if (!p->bdd || !p->uct) return false;
    engine_t *e = p->core.engine;
    eng_state_t *es = engine_state_new(e);
    engine_state_set(e, es, s);
    bool lost = !engine_terminal(e, es) &&
                bddhook_value(p->bdd, engine_state_words(es), turn - p->bdd_from) == 0;
    engine_state_free(es);
    if (lost == p->bdd_off) return lost;
    if (!lost) {
        p->bdd_off = false;
        bddhook_attach(p->bdd, p->uct);
        return false;
    }
    sets_off(p);
    return true;
}

/* bdd=on, after a search with the sets: whether its tree proved the root lost (value 0 for
 * us) where lost_bdd did not find the state lost. Sets not complete (cut by the clock:
 * mummymaze2p's α_15/β_16) may hold every successor and not the state, so the tree proves
 * its root lost from its children at once, and a search stopped there answers the first of
 * moves that tie (verbose: `turn 0: 24 ms ... value 0.0 (proven)`). Then they are taken off
 * as lost_bdd does (given back at the next own turn they do not prove lost) and the turn is
 * searched on without them, for the move plain search prefers (counts.bdd_lost_tree). */
static bool lost_tree(mcts_player_t *p) {
    if (!p->bdd || p->bdd_off || !p->uct) return false;
    bddhook_info_t in;
    bddhook_info(p->bdd, &in);
    if (!has_steps(&in)) return false; /* none attached (the probe's network: bdd_late) */
    uct_stats_t st;
    uct_stats(p->uct, &st);
    if (!st.root_proven || st.root_value > 0) return false;
    sets_off(p);
    p->counts.bdd_lost_tree++;
    return true;
}

/* bdd=on, at an own turn: whether the tree searches with sets (counts.bdd_set_turns), and
 * whether they prove the state (note_proven). */
static void count_sets(mcts_player_t *p, const state_t *s, uint32_t turn) {
    if (!p->bdd) return;
    bddhook_info_t in;
    bddhook_info(p->bdd, &in);
    p->counts.bdd_set_turns += has_steps(&in) && !p->bdd_off;
    eng_state_t *es = engine_state_new(p->core.engine);
    engine_state_set(p->core.engine, es, s);
    note_proven(p, es, turn);
    engine_state_free(es);
}

/* The most successors longest_loss looks at (an engine step and a walk of the sets each). */
#define LONG_JOINTS 4096

/* bddlong=on, at an own turn the sets prove lost (bdd_off, lost_bdd): the move after which
 * they prove the others' win longest (bddhook_longest_loss), the search's move `best`
 * among moves as long (counts.bdd_longer: turns it was replaced). Plain search in a lost
 * state plays as though it were not, and may take a move whose loss is near while a longer
 * one leaves an imperfect winner (`mcts` errs at long distances) more steps to go wrong. */
static term_t longest_loss(mcts_player_t *p, const state_t *s, uint32_t turn, term_t best,
                           double until) {
    if (!p->opts.bddlong || !p->bdd || !p->bdd_off || best == TERM_NONE) return best;
    eng_state_t *es = engine_state_new(p->core.engine);
    engine_state_set(p->core.engine, es, s);
    term_t pick = bddhook_longest_loss(p->bdd, es, p->core.role, turn - p->bdd_from, best,
                                       LONG_JOINTS, until);
    engine_state_free(es);
    p->counts.bdd_longer += pick != best;
    return pick;
}

/* bddshadow=on (with iters=N): s searched again by two fresh trees with the same seed and
 * iterations, one with the sets and one without; their moves compared (counts.shadow_*).
 * Until a hook hit both draw the same numbers, so a move that differs is the sets' doing
 * (directly, or through the search's path after a hit). */
static void shadow_bdd(mcts_player_t *p, const state_t *s, uint32_t turn) {
    if (!p->opts.bddshadow || !p->opts.iters || !p->bdd) return;
    term_t m[2];
    uint64_t seed = p->core.seed ^ ((uint64_t)turn << 32);
    for (int with = 0; with < 2; with++) {
        uct_t *u = uct_new(p->core.engine, p->core.role, seed);
        tune_uct(p, u);
        if (p->heur) uct_set_heuristic(u, p->heur, heur_cut(p), p->opts.prior);
        uct_set_prior_sharpness(u, p->opts.psharp);
        uct_set_implicit(u, p->heur ? p->opts.imm : 0);
        if (with) {
            bddhook_attach(p->bdd, u);
            bddhook_info_t in;
            bddhook_info(p->bdd, &in);
            uct_set_hook_reach(u, bddhook_reach(in.horizon, turn - p->bdd_from));
        }
        m[with] = uct_choose(u, s, 0, p->opts.iters);
        uct_free(u);
    }
    p->counts.shadow_turns++;
    p->counts.shadow_differ += m[0] != m[1];
}

/* uct_choose for about `seconds`, noting how much longer it took. */
static term_t timed_choose(mcts_player_t *p, const state_t *s, double seconds, uint32_t iters) {
    double t0 = now_seconds();
    term_t m = uct_choose(p->uct, s, seconds, iters);
    double over = now_seconds() - t0 - seconds;
    p->overrun = over > p->overrun * 0.8 ? over : p->overrun * 0.8;
    if (p->overrun < p->min_overrun) p->overrun = p->min_overrun;
    return m;
}

/* Seconds one state costs the search's engine (its terminal test and every role's legal
 * moves): a search call expands and plays out several, so a call can end no sooner than a
 * few times this after it was due (on a slow interpreted game: chess, about 0.2 s unloaded). */
static double state_cost(mcts_player_t *p, const state_t *s) {
    eng_state_t *es = engine_state_new(p->core.engine);
    double t0 = now_seconds();
    engine_state_set(p->core.engine, es, s);
    engine_terminal(p->core.engine, es);
    for (uint32_t r = 0; r < p->core.game->n_roles; r++) {
        const term_t *m;
        engine_legal(p->core.engine, es, r, &m);
    }
    double cost = now_seconds() - t0;
    engine_state_free(es);
    return cost;
}

/* A state's cost for the floor of a search call's overrun (min_overrun): state_cost of s,
 * then, when the time until `until` allows another as long, of a successor of s (a state
 * not seen yet), which is the one kept. A fresh interpreter's first terminal test computes
 * what its later ones reuse (laikLee_hex: 348 ms of a 1 s clock under clock_sweep.sh's
 * load, where later states cost it under a millisecond): four times the first measure
 * kept every search call of the match from fitting a turn. Where the second did not fit,
 * a later turn measures again (cost_once). */
static double measure_cost(mcts_player_t *p, const state_t *s, double until) {
    double cost = state_cost(p, s);
    p->cost_once = true;
    p->cost_last = cost;
    if (now_seconds() + cost > until) return cost;
    p->cost_once = false;
    engine_t *e = p->core.engine;
    uint32_t nr = p->core.game->n_roles;
    eng_state_t *es = engine_state_new(e), *next = engine_state_new(e);
    term_t *joint = xcalloc(nr, sizeof *joint); /* one move a role */
    splitmix_t rng = {p->core.seed};            /* not the player's own draws */
    engine_state_set(e, es, s);
    if (!engine_terminal(e, es) && engine_random_joint(e, es, &rng, joint)) {
        engine_next(e, es, joint, next);
        state_t t;
        state_init(&t);
        engine_state_terms(e, next, &t);
        cost = state_cost(p, &t);
        state_fini(&t);
    }
    free(joint);
    engine_state_free(es);
    engine_state_free(next);
    return cost;
}

/* Whether a second agent may still bring a ground engine for the match: the player's is an
 * interpreter only because the start clock cut its grounding short (engine_grounding_cut),
 * the agent's owner has not said it is final (engine_final: it made no second agent, or
 * dropped it), and it is not yet AGENT_PREPARE_SECONDS past START, by when a second agent
 * that grounded has come (taken between messages). */
static bool second_pending(const mcts_player_t *p, double now) {
    return engine_kind(p->core.engine) == ENGINE_INTERP && engine_grounding_cut(p->core.engine) &&
           !p->core.base.engine_final &&
           now <= p->made_at + AGENT_PREPARE_SECONDS + SECOND_SLACK * p->core.playclock;
}

/* Where the start clock left no time to measure a state's cost (cost_unknown): whether the
 * turn whose agent's work ended at t0 measures it now (then searches with what is left),
 * else answers without search and asks again at the next turn. A state's cost cannot be
 * cut; the proxy at hand is the turn's own work on the state (the agent's update and legal
 * moves before t0): at least COST_TURN_SHARE of the play clock must be left after it. On
 * the interpreter that proxy misses what a fresh reasoner computes once, on its first
 * terminal test (laikLee_hex: 200 ms where the legal moves took 0.01 ms, unloaded; 1 s and
 * once 5 s of a 1 s clock under clock_sweep.sh's load, 4aee689): no measure there while a
 * second agent may replace the interpreter (second_pending). A game that does not ground
 * (sudoku: its second agent is dropped) is searched on the interpreter in the turns the
 * proxy allows. */
static bool cost_fits(const mcts_player_t *p, double t0, double deadline) {
    return deadline - t0 >= p->core.playclock * COST_TURN_SHARE && !second_pending(p, t0);
}

/* Searches s in slices until stop, starting no slice that would likely end past it. */
static void search_until(mcts_player_t *p, const state_t *s, double stop) {
    double slice = (stop - now_seconds()) / SLICE_PARTS;
    if (slice < SLICE_MIN) slice = SLICE_MIN;
    for (;;) {
        double left = stop - now_seconds() - p->overrun;
        if (left <= 0) break;
        timed_choose(p, s, left < slice ? left : slice, 0);
        if (lost_tree(p)) continue; /* searched on without the sets */
        uct_stats_t st;
        uct_stats(p->uct, &st);
        if (st.root_proven) break;
    }
}

/* heur=on: an evaluation learnt from random matches, within a share of the start clock
 * (or a number of matches when iteration-bounded: reproducible), given to the search;
 * none when nothing predicts the outcome (said with verbose). */
static void learn_heur(mcts_player_t *p, const state_t *initial, double deadline) {
    if (!p->opts.heur || p->heur || engine_kind(p->core.engine) == ENGINE_INTERP) return;
    double t0 = now_seconds();
    bool bounded = p->opts.iters != 0;
    FILE *log = p->core.verbose ? stderr : NULL;
    if (p->opts.material) {
        eng_state_t *es = engine_state_new(p->core.engine);
        engine_state_set(p->core.engine, es, initial);
        p->heur = heur_material_by(p->core.engine, es, MATERIAL_SCALE,
                                   bounded ? 0 : t0 + (deadline - t0) * HEUR_SHARE, log);
        if (p->opts.adv) heur_advance_by(p->heur, p->core.engine, bounded ? 0 : deadline, log);
        if (p->opts.counter)
            p->heur = heur_counter(p->heur, p->core.engine, es, MATERIAL_SCALE,
                                   bounded ? 0 : t0 + (deadline - t0) * HEUR_SHARE, log);
        engine_state_free(es);
    } else {
        p->heur = heur_learn(p->core.engine, bounded ? 0 : t0 + (deadline - t0) * HEUR_SHARE,
                             bounded ? HEUR_MATCHES : 0, &p->core.rng, log);
    }
    if (p->heur) uct_set_heuristic(p->uct, p->heur, heur_cut(p), p->opts.prior);
    uct_set_prior_sharpness(p->uct, p->opts.psharp);
    uct_set_implicit(p->uct, p->heur ? p->opts.imm : 0);
}

/* dcand=on: the decisive checks look only at moves seen winning at once in random matches,
 * learnt within a share of the start clock (or a number of matches when
 * iteration-bounded: reproducible); before choose_policy, which then measures their cost. */
static void learn_cands(mcts_player_t *p, double deadline) {
    if (!p->opts.dcand || !p->opts.playout.decisive || p->cands) return;
    double t0 = now_seconds(), secs = (deadline - t0) * CANDS_SHARE;
    bool bounded = p->opts.iters != 0;
    p->cands =
        playout_cands_learn(p->core.engine, &p->core.rng, bounded ? CANDS_MATCHES : 0, CANDS_PLIES,
                            bounded ? 0 : t0 + (secs < CANDS_MAX ? secs : CANDS_MAX));
    playout_opts_t o = p->opts.playout;
    o.cands = p->cands;
    uct_set_playout(p->uct, &o);
    if (p->core.verbose)
        fprintf(stderr, "mcts: %u decisive candidates from %u random matches (%.0f ms)\n",
                playout_cands_count(p->cands), playout_cands_matches(p->cands),
                (now_seconds() - t0) * 1000);
}

/* decisive=auto's uniform rollouts, for this match's tree only: the options stay for the
 * next match. */
static void uniform_rollouts(mcts_player_t *p) {
    playout_opts_t o = p->opts.playout;
    o.cands = p->cands;
    o.decisive = o.antidecisive = false;
    uct_set_playout(p->uct, &o);
}

/* decisive=auto: measures what an anti-decisive rollout step costs from the initial state,
 * and how often its checks change a move, and plays uniform rollouts instead when it costs
 * too much for what it changes (said with verbose). */
static void choose_policy(mcts_player_t *p, const state_t *initial, double deadline) {
    if (!p->opts.decisive_auto || p->opts.iters) return;
    if (engine_kind(p->core.engine) == ENGINE_INTERP) {
        /* the interpreter plays the games that do not ground in time, the big ones: a
         * check's successor per move costs milliseconds there, and a state tenths of a
         * second (laikLee_hex: one step measured took 0.8 s of a 2 s start clock) */
        uniform_rollouts(p);
        if (p->core.verbose)
            fprintf(stderr, "mcts: uniform rollouts on the interpreter (no measure)\n");
        return;
    }
    double t0 = now_seconds(), secs = (deadline - t0) * COST_SHARE;
    playout_opts_t policy = p->opts.playout;
    policy.cands = p->cands;
    eng_state_t *es = engine_state_new(p->core.engine);
    engine_state_set(p->core.engine, es, initial);
    playout_stats_t st = {0};
    double cost = engine_terminal(p->core.engine, es)
                      ? 0
                      : playout_cost(p->core.engine, &policy, es, &p->core.rng,
                                     t0 + (secs < COST_MAX ? secs : COST_MAX), UINT64_MAX, &st);
    engine_state_free(es);
    bool off = !playout_anti_pays(cost, &st);
    if (off) uniform_rollouts(p);
    if (p->core.verbose)
        fprintf(stderr,
                "mcts: an anti-decisive rollout step costs %.1f uniform ones (%.0f ms), its checks "
                "act at %.2f%% of %llu steps: %s\n",
                cost, (now_seconds() - t0) * 1000, 100 * playout_acts(&st),
                (unsigned long long)st.steps, off ? "uniform rollouts" : "anti-decisive rollouts");
}

/* ab_eval_t: the evaluation's value of s for role. */
static int ab_value(void *ctx, engine_t *e, const eng_state_t *s, uint32_t role) {
    mcts_player_t *p = ctx;
    heur_eval(p->heur, e, s, p->hval);
    return (int)(p->hval[role] + 0.5);
}

/* ab=on: where the material evaluation gets each piece's advancement (heur_advance) in a
 * time-bounded game of two roles, the match is played by alpha-beta (mcts/ab.h, its
 * defaults) with that evaluation at the leaves instead of UCT: it beat the UCT default
 * and Sancho on breakthroughWalls (docs/league.md). Said with verbose. */
static void start_ab(mcts_player_t *p, double deadline) {
    if (!p->opts.ab || p->ab || !p->heur || p->opts.iters || p->core.game->n_roles != 2) return;
    FILE *log = p->core.verbose ? stderr : NULL;
    if (!heur_advance_by(p->heur, p->core.engine, deadline, log)) return;
    ab_opts_t o;
    ab_default_opts(&o);
    o.max_depth = p->opts.abdepth;
    o.proof_depth = p->opts.abproof; /* (inert without the sets: start_ab_bdd) */
    p->ab = ab_new(p->core.engine, p->core.role, &o, p->core.seed);
    free(p->hval);
    p->hval = xcalloc(p->core.game->n_roles, sizeof *p->hval);
    ab_set_eval(p->ab, ab_value, p);
    if (!p->ab_state) p->ab_state = engine_state_new(p->core.engine);
    p->ab_overrun = 0;
    if (log) fprintf(log, "mcts: alpha-beta with material and advancement (ab=on)\n");
}

/* bdd=on:absets=on where alpha-beta plays (start_ab): the sets without a horizon from the initial
 * state (its leaves, 7 to 10 plies down on breakthroughSmallHoles at 0.5 s, lie past any
 * horizon), to α_AB_BDD_STEPS/β_AB_BDD_STEPS within BDD_SHARE of the start clock (budget=S
 * bounds it too; lbssteps=N: α_N/β_N without the clock), kept for the match and given to
 * alpha-beta as proofs (bddhook_ab_proven): a state they hold is a win or loss, not
 * searched further. */
static void start_ab_bdd(mcts_player_t *p, double deadline) {
    if (!p->ab || !p->opts.lbs || !p->opts.bdd || !p->opts.absets || p->bdd) return;
    double t0 = now_seconds();
    double budget = (deadline - t0) * BDD_SHARE - LBS_SAFETY - p->opts.margin;
    if (p->opts.budget > 0 && p->opts.budget < budget) budget = p->opts.budget;
    uint32_t steps = p->opts.lbssteps ? p->opts.lbssteps : AB_BDD_STEPS;
    if (p->opts.lbssteps) budget = 3600; /* a test's: the steps bound it, not the clock */
    char err[400] = "no time for the sets";
    if (budget > 0.05) p->bdd = make_bdd(p, NULL, 0, steps, t0 + budget, false, err, sizeof err);
    if (!p->bdd) {
        fprintf(stderr, "%s: bdd: %s; alpha-beta without them\n", p->core.base.kind->name, err);
        return;
    }
    p->bdd_global = true, p->bdd_from = 0;
    bddhook_set_ply(p->bdd, 0);
    ab_set_proven(p->ab, bddhook_ab_proven, p->bdd);
    bddhook_info_t in;
    bddhook_info(p->bdd, &in);
    if (p->core.verbose)
        fprintf(stderr,
                "bdd: sets for alpha-beta in %.0f ms (budget %.0f ms): %u alpha, %u beta steps, "
                "first cut %d, %u complete\n",
                (now_seconds() - t0) * 1000, budget * 1000, in.alpha, in.beta,
                in.first_partial == UINT32_MAX ? -1 : (int)in.first_partial, complete_steps(&in));
}

/* Searches state s by alpha-beta until deadline less the margin and what the last searches
 * overran it by; the best move (TERM_NONE when none). */
static term_t ab_until(mcts_player_t *p, const state_t *s, double deadline) {
    engine_state_set(p->core.engine, p->ab_state, s);
    double t0 = now_seconds(), stop = deadline - p->opts.margin - p->ab_overrun;
    if (stop < t0 + 0.001) stop = t0 + 0.001;
    ab_result_t r;
    ab_search(p->ab, p->ab_state, stop, NULL, NULL, &r);
    double over = now_seconds() - stop;
    p->ab_overrun = over > p->ab_overrun * 0.8 ? over : p->ab_overrun * 0.8;
    player_search_add_ab(&p->counts, &r);
    if (p->core.verbose)
        fprintf(stderr,
                "mcts: ab %.0f ms, depth %u, value %d%s, mate %u, %" PRIu64 " nodes, %" PRIu64
                " proofs\n",
                (now_seconds() - t0) * 1000, r.depth, r.value, r.proven ? " (proven)" : "", r.mate,
                r.nodes, r.proofs);
    return r.move;
}

static void mcts_start(player_t *pl, const state_t *initial, double deadline) {
    mcts_player_t *p = (mcts_player_t *)pl;
    if (!p->core.game->gdl2 && !p->opts.bdd) start_lbs(p, deadline);
    double t0 = now_seconds();
    ensure_uct(p, t0 + (deadline - t0) * PLAYER_ENGINE_SHARE);
    if (!p->core.game->gdl2 && initial) learn_cands(p, deadline);
    if (!p->core.game->gdl2 && initial) choose_policy(p, initial, deadline);
    if (!p->core.game->gdl2 && initial) learn_heur(p, initial, deadline);
    if (!p->core.game->gdl2 && initial) start_ab(p, deadline);
    /* where alpha-beta plays, sets of its own only with absets=on (start_ab_bdd) */
    if (!p->core.game->gdl2 && p->opts.bdd && !p->ab) start_bdd(p, initial, deadline);
    if (!p->core.game->gdl2 && initial) start_ab_bdd(p, deadline);
    /* sets that prove the initial state lost leave the start's search too, as an own turn's
     * (lost_bdd): with them its root is proven at once and the start clock idles, and the
     * first turn cleared the tree anyway (mummymaze2p at 5 s / 0.5 s: the explorer, lost
     * from the start, chose its first move from a fresh tree of about 5,000 visits where
     * plain `mcts` had some 20,000 from its start) */
    if (!p->core.game->gdl2 && initial && !p->ab)
        p->counts.bdd_lost_start += lost_bdd(p, initial, 0);
    if (p->core.game->gdl2 || p->opts.iters || !initial) return;
    if (p->ab) { /* its table and history keep what the start finds */
        ab_until(p, initial, now_seconds() + (deadline - now_seconds()) * 0.9);
        return;
    }
    /* a state's cost cannot be cut (on a big game on the interpreter, tenths of a second
     * and more: laikLee_hex 0.74 s while a second agent grounded on the core): not begun
     * once the start clock is gone, nor on the interpreter with less time left than a turn
     * needs to measure it; measured in the first turn that has the time instead (cost_fits;
     * no search before it: cost_unknown) */
    double left = deadline - p->opts.margin - now_seconds();
    if (left <= 0 || (engine_kind(p->core.engine) == ENGINE_INTERP &&
                      left < p->core.playclock * COST_TURN_SHARE)) {
        p->cost_unknown = true;
        return;
    }
    p->min_overrun = STATE_COSTS * measure_cost(p, initial, deadline - p->opts.margin);
    p->overrun = p->min_overrun;
    t0 = now_seconds();
    double budget = (deadline - t0) * 0.9 - p->opts.margin;
    eng_state_t *es = engine_state_new(p->core.engine);
    engine_state_set(p->core.engine, es, initial);
    bool over = engine_terminal(p->core.engine, es);
    engine_state_free(es);
    if (budget < 0.01 || over) return;
    p->hook.deadline = t0 + budget;
    search_until(p, initial, t0 + budget);
    state_copy(&p->prev, initial);
    p->have_prev = true;
    log_stats(p, "start", now_seconds() - t0);
    ponder(p, initial, TERM_NONE);
}

/* Re-roots the tree at s: finds a joint move from p->prev to s and advances with it. */
/* Gives up at `until` (the tree then starts afresh): in a slow game each try costs an
 * engine step, and the move must still be answered in time. */
static void advance_to(mcts_player_t *p, const state_t *s, double until) {
    if (!p->have_prev || state_equal(&p->prev, s)) return;
    engine_t *e = p->core.engine;
    uint32_t n_roles = p->core.game->n_roles;
    eng_state_t *prev = engine_state_new(e), *next = engine_state_new(e),
                *want = engine_state_new(e);
    engine_state_set(e, prev, &p->prev);
    engine_state_set(e, want, s);
    joints_t j;
    joints_init(&j, n_roles);
    uint64_t total = joints_load(&j, e, prev, JOINTS_ENGINE_ORDER, JOINTS_NONE, TERM_NONE);
    if (total >= 1 && total <= MAX_JOINTS) {
        term_t *joint = xcalloc(n_roles + 1, sizeof *joint);
        bool found = false;
        for (uint64_t k = 0; k < total && !found && now_seconds() < until; k++) {
            joints_get(&j, k, joint);
            engine_next(e, prev, joint, next);
            found = engine_state_equal(next, want);
        }
        if (found) uct_advance(p->uct, joint);
        free(joint);
    }
    joints_fini(&j);
    engine_state_free(prev);
    engine_state_free(next);
    engine_state_free(want);
    /* Not found: uct_choose starts afresh at s. */
    p->have_prev = false;
}

/* ponder=on: thinks on in the background from where the game is after our answer in s
 * (the tree is kept; the next play stops it): the state our move leads to when every
 * other role has a single move in s (a turn-taking game where we moved), else s itself
 * (the others choose there). p->prev becomes that state. */
static void ponder(mcts_player_t *p, const state_t *s, term_t move) {
    if (!p->opts.ponder || !p->uct || p->opts.iters) return;
    engine_t *e = p->core.engine;
    uint32_t nr = p->core.game->n_roles;
    eng_state_t *es = engine_state_new(e), *next = engine_state_new(e);
    term_t *joint = xcalloc(nr, sizeof *joint);
    engine_state_set(e, es, s);
    bool forced = move != TERM_NONE;
    for (uint32_t r = 0; r < nr && forced; r++) {
        const term_t *m;
        if (r == p->core.role)
            joint[r] = move;
        else if (engine_legal(e, es, r, &m) == 1)
            joint[r] = m[0];
        else
            forced = false;
    }
    bool on;
    p->hook.deadline = 0; /* pondering has no clock: a confirmation may take its time */
    if (forced) {
        engine_next(e, es, joint, next);
        engine_state_terms(e, next, &p->prev);
        uct_advance(p->uct, joint);
        on = uct_ponder(p->uct, NULL, 0);
    } else {
        state_copy(&p->prev, s);
        on = uct_ponder(p->uct, s, 0);
    }
    p->have_prev = true;
    free(joint);
    engine_state_free(es);
    engine_state_free(next);
    if (p->core.verbose && on)
        fprintf(stderr, "mcts: pondering%s\n", forced ? " after our move" : "");
}

static term_t mcts_play(player_t *pl, const player_turn_t *turn, double deadline,
                        move_sink_t *sink) {
    mcts_player_t *p = (mcts_player_t *)pl;
    term_t fallback = player_core_random(&p->core, turn);
    if (p->uct) uct_ponder_stop(p->uct);
    if (p->ab && turn->exact && turn->n_states >= 1) {
        sink_offer(sink, turn->n_legal == 1 ? turn->legal[0] : fallback);
        if (p->bdd) bddhook_set_ply(p->bdd, turn->turn - p->bdd_from);
        double c0 = cpu_seconds();
        term_t m = ab_until(p, &turn->states[0], deadline);
        p->counts.search_cpu += cpu_seconds() - c0;
        if (turn->n_legal == 1) return turn->legal[0];
        m = player_core_checked(&p->core, turn, m, fallback);
        sink_offer(sink, m);
        p->moves++;
        return m;
    }
    set_bdd_ply(p, turn->turn);
    if (turn->exact && turn->n_states >= 1 && turn->n_legal == 1 && p->opts.ponder &&
        !p->opts.iters) {
        /* nothing to choose: answer at once, and think on while the others choose */
        sink_offer(sink, turn->legal[0]);
        double t0 = now_seconds();
        ensure_uct(p, t0 + (deadline - t0) * PLAYER_ENGINE_SHARE);
        advance_to(p, &turn->states[0], t0 + (deadline - t0) * 0.3);
        /* (after a build not made in time too: p->bdd is NULL then) */
        if (p->opts.lbs && p->opts.bdd && !p->core.game->gdl2 && turn->turn != p->bdd_from &&
            !p->bdd_global && !p->bdd_dropped) {
            sets_from(p, &turn->states[0], turn->turn, t0 + (deadline - t0) * BDD_NOOP, true);
            return turn->legal[0];
        }
        ponder(p, &turn->states[0], TERM_NONE);
        return turn->legal[0];
    }
    if (!turn->exact || turn->n_states < 1 || turn->n_legal == 1) {
        /* The true state is unknown (or there is nothing to choose): play as `random`. */
        sink_offer(sink, fallback);
        p->have_prev = false;
        return fallback;
    }
    double t0 = now_seconds();
    ensure_uct(p, t0 + (deadline - t0) * PLAYER_ENGINE_SHARE);
    const state_t *s = &turn->states[0];
    /* measured once only (perhaps a fresh interpreter's first state): again, in a turn
     * whose time left would hold that measure */
    bool again = p->cost_once && deadline - t0 - p->opts.margin > p->cost_last;
    if ((p->cost_unknown || again) && cost_fits(p, t0, deadline)) {
        /* the start clock left no time to measure a state: now, in a turn that has it */
        p->cost_unknown = false;
        p->min_overrun = STATE_COSTS * measure_cost(p, s, deadline - p->opts.margin);
        p->overrun = p->min_overrun; /* (a floor measured again replaces the one it held) */
        t0 = now_seconds();          /* what is left of the turn after it */
    } else {
        p->overrun *= 0.8; /* searched again a few turns after a call too long to start */
    }
    if (p->overrun < p->min_overrun) p->overrun = p->min_overrun;
    if (p->cost_unknown || deadline - t0 - p->opts.margin < p->overrun) {
        /* no search call would end in time: the move is the random legal one, at once
         * (but below), leaving the time to the next turn (the tree starts afresh then) */
        if (p->core.verbose && p->cost_unknown)
            fprintf(stderr, "mcts: turn %u: no search: a state's cost not measured yet\n",
                    turn->turn);
        else if (p->core.verbose)
            fprintf(stderr, "mcts: turn %u: no time to search (a call overruns by %.0f ms)\n",
                    turn->turn, p->overrun * 1000);
        sink_offer(sink, fallback);
        /* waiting for a second agent: its move offered, the turn's clock left to it (it
         * grounds on another thread, on one core under load); answered at once, a game of
         * one role ran to its end before the second agent could be dropped (sudoku at 2 s /
         * 1 s: 81 steps in 0.1 s, no search) */
        if (p->cost_unknown && sink && second_pending(p, t0))
            sleep_until(deadline - p->opts.margin);
        p->have_prev = false;
        return fallback;
    }
    advance_to(p, s, t0 + (deadline - t0) * 0.3);
    renew_bdd(p, s, turn->turn, t0, deadline);
    p->counts.bdd_lost += lost_bdd(p, s, turn->turn);
    count_sets(p, s, turn->turn);
    term_t best = TERM_NONE;
    double remaining = deadline - now_seconds();
    double budget = remaining * 0.95 - p->opts.margin;
    if (budget < 0.005) budget = 0.005;
    double stop = now_seconds() + budget;
    p->hook.deadline = stop; /* a Z3 confirmation must not outlast the move */
    double c0 = cpu_seconds();
    if (p->opts.iters || !sink) {
        best = uct_choose(p->uct, s, budget, p->opts.iters);
        /* (not without a sink: a second search would overrun the clock) */
        if (p->opts.iters && lost_tree(p)) best = uct_choose(p->uct, s, budget, p->opts.iters);
    } else {
        double slice = budget / SLICE_PARTS;
        if (slice < SLICE_MIN) slice = SLICE_MIN;
        for (;;) {
            /* a call that would end past the deadline is not started (the agent has
             * offered a legal move already) */
            double left = stop - now_seconds() - p->overrun;
            if (left <= 0) break;
            double secs = left < slice ? left : slice;
            if (secs < 0.001) secs = 0.001;
            term_t m = timed_choose(p, s, secs, 0);
            if (m == TERM_NONE || !term_in(turn->legal, turn->n_legal, m)) break;
            if (m != best) sink_offer(sink, m);
            best = m;
            if (lost_tree(p)) continue; /* searched on without the sets */
            uct_stats_t st;
            uct_stats(p->uct, &st);
            if (st.root_proven) break;
        }
    }
    p->counts.search_cpu += cpu_seconds() - c0;
    shadow_bdd(p, s, turn->turn);
    best = longest_loss(p, s, turn->turn, best, deadline - p->opts.margin);
    best = player_core_checked(&p->core, turn, best, fallback);
    sink_offer(sink, best);
    state_copy(&p->prev, s);
    p->have_prev = true;
    p->moves++;
    if (p->core.verbose) {
        char what[32];
        snprintf(what, sizeof what, "turn %u", turn->turn);
        log_stats(p, what, now_seconds() - t0);
    }
    ponder(p, s, best);
    return best;
}

static void mcts_stop(player_t *pl) {
    mcts_player_t *p = (mcts_player_t *)pl;
    if (p->uct) uct_ponder_stop(p->uct);
    add_match(p);
    FREE_AND_NULL(uct_free, p->uct);
    FREE_AND_NULL(lbs_free, p->lbs);
    FREE_AND_NULL(bddhook_free, p->bdd);
    p->bdd_from = 0, p->bdd_cut = false, p->bdd_seconds = 0;
    p->bdd_global = p->bdd_off = p->bdd_dropped = p->bdd_late = p->bdd_skip = false;
    p->bdd_retry = false;
    p->bdd_poor = p->bdd_stall = p->proven_turn = 0;
    p->cost_unknown = p->cost_once = false; /* the next match's start measures it again */
    p->counts = (player_search_t){0};
    FREE_AND_NULL(ab_free, p->ab); /* before the evaluation it reads */
    FREE_AND_NULL(engine_state_free, p->ab_state);
    FREE_AND_NULL(heur_free, p->heur);
    FREE_AND_NULL(playout_cands_free, p->cands); /* after the tree: its policies read them */
    p->have_prev = false;
}

static void mcts_destroy(player_t *pl) {
    mcts_player_t *p = (mcts_player_t *)pl;
    uct_free(p->uct);
    lbs_free(p->lbs);
    bddhook_free(p->bdd);
    ab_free(p->ab);
    heur_free(p->heur);
    free(p->hval);
    engine_state_free(p->ab_state);
    playout_cands_free(p->cands);
    player_core_fini(&p->core);
    state_fini(&p->prev);
    free(p);
}

/* What mcts and mcts+lbs share: all but the name, the summary, the options they take and
 * how they are made. */
#define MCTS_CALLS                                                                                 \
    .start = mcts_start, .play = mcts_play, .stop = mcts_stop, .destroy = mcts_destroy,            \
    .search = mcts_search

const player_kind_t player_mcts_kind = {
    .name = "mcts",
    .summary =
        "UCT Monte-Carlo tree search "
        "(mcts:iters=N:c=X:simc=X:ucb=plain|tuned:margin=S:mem=MB:engine=K:"
        "threads=1|2:parallel=root|tree:ponder=on|off:tt=on|off:decisive=off|on|anti|auto:dcand=on|"
        "off:mast=off|"
        "E:"
        "pdepth=D:heur=on|off|material|adv:counter=on|off:cut=K|off:prior=N:psharp=K:imm=A:immnz="
        "on|off:"
        "line=on|"
        "off:mix=on|"
        "off:sep=on|off:ab=on|off:abdepth=N:bounds=on|off)",
    .create = mcts_create,
    .check_options = mcts_check_options,
    MCTS_CALLS,
};

const player_kind_t player_lbs_kind = {
    .name = "mcts+lbs",
    .summary =
        "UCT with rollouts cut by backward search (mcts+lbs:iters=N:c=X:margin=S:mem=MB:"
        "budget=S:"
        "confirm=none|z3:lbs=on|off:hookcost=X:z3share=F:bdd=on|off:bddhorizon=D:bddlate=S:"
        "bddponder=on|off:bddown=F:absets=on|off:abproof=N:bddvalues=on|off:bddshadow=on|off:"
        "bddsolve=on|off:bddreach=F:bddcut=N:bddlong=on|off:lbssteps=N)",
    .create = lbs_create,
    .check_options = lbs_check_options,
    MCTS_CALLS,
};
