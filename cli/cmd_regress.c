/* ggp regress: compute the lifted backward-search sequences α_i and β_i of a game. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "gdl/validate.h"

#include "base/clock.h"
#include "base/rng.h"
#include "logic/z3.h"
#include "regress/match.h"
#include "regress/mutex.h"
#include "regress/regress.h"
#include "regress/verify.h"
#include "truth/bounded.h"

static const char *const regress_help =
    "usage: ggp regress GAME --role R [--budget SEC] [--max-size N] [--depth D]\n"
    "                   [--steps I] [--no-mutex] [--ground] [--print]\n"
    "                   [--check [--no-z3] [--max-states N]] [--hits N [--hits-seconds S]]\n"
    "                   [--verify N [--seed S] [--verify-nodes K] [--verify-seconds S]]\n"
    "                   [--cost N [--cost-share X] [--engine E]]\n"
    "       ggp regress GAME --role R --bdd [--exact] [--values] [--budget SEC] [--steps I]\n"
    "                   [--horizon D] [--plies K] [--rows] [--image subst|move] [--forall F] "
    "[--reorder]\n"
    "                   [--trace] [--no-reach] [--moves-below] [--no-invariants] [--no-cone] "
    "[--unknowns N]\n"
    "                   [--nodes N] [--max-parts N] [--set-nodes N] [--merge-nodes N] [--op-nodes "
    "N] [--names-order]\n"
    "                   [--node-nodes N] [--node-work N] [--next auto|joint|free] [--no-move-sets] "
    "[--check "
    "[--max-states N]] "
    "[--hits N] "
    "[--verify N (options above)]\n\n"
    "Lifted backward search. Computes alpha_0 = terminal and goal(R, 100), and\n"
    "alpha_i = C(N(alpha_{i-1})): the states from which role R forces a win within i rounds\n"
    "(R to move when i is odd); beta_i is the same for the other role. Prints one line per\n"
    "formula as it is computed:\n"
    "  side=alpha|beta i=I seconds=T disjuncts=D literals=L complete=yes|no\n"
    "and the formula itself after it with --print.\n\n"
    "  --role R       the role A (name or 0-based index); required\n"
    "  --budget SEC   time for the whole run, default 10 (0: none); the step running out\n"
    "                 is dropped, and a line says so: # out of budget: side=S i=I ...\n"
    "  --max-size N   literals per formula, default 200000; a larger one keeps a prefix of\n"
    "                 its disjuncts (still sound) and says complete=no\n"
    "  --depth D      unfolding bound for recursive predicates, default 4 (complete=no\n"
    "                 when it cuts)\n"
    "  --steps I      stop after alpha_I/beta_I\n"
    "  --no-mutex     do not prove and use mutex invariants\n"
    "  --ground       apply N to each of the mover's moves (from `input` and random\n"
    "                 matches, at most 32) instead of a move variable\n"
    "  --print        print the formulas (KIF-like, one disjunct per line)\n"
    "  --check        afterwards, solve the game exactly (small games) and check every\n"
    "                 formula on every reachable state, one line each:\n"
    "                   check side=S i=I states=N exact=E hits=H false_pos=F late=L\n"
    "                         misses=M z3_checked=C z3_disagree=D complete=yes|no\n"
    "                 (exact: states in W_i; false_pos: hits outside it; late: hits where\n"
    "                 no win within i rounds is forced; misses: W_i states not hit); and\n"
    "                 the mutex invariants on every state. Exit 4 when anything is wrong.\n"
    "  --no-z3        with --check, skip the Z3 bridge (matcher only)\n"
    "  --max-states N with --check, give up past N reachable states (default 2000000)\n"
    "  --hits N       afterwards, play N seeded random matches and print for every formula\n"
    "                 the share of their states that satisfy it (native matcher), one line each:\n"
    "                   hits side=S i=I states=N hits=H share=X\n"
    "  --hits-seconds S  with --hits, evaluate a formula for at most S seconds in all: later\n"
    "                 states are left out of its line (states=N says how many it took)\n"
    "  --verify N     afterwards, play N seeded random matches and check every formula on\n"
    "                 their distinct states against the game itself: each state the matcher\n"
    "                 says satisfies alpha_i is searched exactly, i plies deep over the real\n"
    "                 moves (transposition table), for a forced win in the sense of W_i; for\n"
    "                 a complete formula every other state is searched too (misses). One\n"
    "                 line per formula:\n"
    "                   verify side=S i=I states=N hits=H false_pos=F misses=M\n"
    "                          miss_checked=C undecided=U complete=yes|no seconds=T\n"
    "                 (undecided: searches that gave up at the node limit; a line says so).\n"
    "                 Exit 4 on any false positive. For games too big for --check.\n"
    "  --seed S       with --verify, the seed of the random matches (default 1)\n"
    "  --verify-nodes K  with --verify, states one search may expand (default 1000000)\n"
    "  --verify-seconds S  with --verify, time per formula (default 60): states past it are\n"
    "                 left out of its line (states=N says how many it took), and a search\n"
    "                 still running then is undecided; the random matches get as long\n"
    "  --cost N       afterwards, what checking the formulas costs in MCTS rollouts: play N\n"
    "                 seeded random matches on a grounded engine and time, on their states,\n"
    "                 each formula by the lifted matcher (the state turned into terms and\n"
    "                 indexed first, as a hook on terms pays it) and as a circuit on the\n"
    "                 bitset state (the rollout hook on a ground engine), against one\n"
    "                 rollout step (every role's legal moves, then the next state):\n"
    "                   # cost engine=K states=N step_ns=S to_terms_ns=T index_ns=I\n"
    "                   cost side=S i=I literals=L disjuncts=D program=P states=N\n"
    "                        lifted_ns=X bits_ns=Y straight_ns=Z lifted_steps=X/S\n"
    "                        bits_steps=Y/S speedup=X/Y disagree=M\n"
    "                 (program: the circuit's size; bits_ns: its gates on demand, as the\n"
    "                 hook evaluates it; straight_ns: every gate in order, for comparison;\n"
    "                 bits_ns=-1e+09: too big to ground;\n"
    "                 disagree: states where the two find different first disjuncts, exit 4)\n"
    "                 and how many formulas with i >= 1 fit in a share of a step each way\n"
    "                 (--cost-share, then 1 and 3 steps: the hook's default budget):\n"
    "                   fit share=X formulas_i>=1 alpha=A beta=B lifted_alpha=LA\n"
    "                       lifted_beta=LB bits_alpha=BA bits_beta=BB\n"
    "                 then the MCTS rollout hook itself (made again within --budget, no Z3:\n"
    "                 that is paid per hit), with the formulas it takes within that share,\n"
    "                 per state on bitsets and on terms (converted first, as before):\n"
    "                   hook share=X guarded_alpha=A guarded_beta=B hook_alpha=HA\n"
    "                        hook_beta=HB\n"
    "                        bits=N lifted=M bits_ns=Y terms_ns=X bits_steps=Y/S\n"
    "                        terms_steps=X/S hits=H1/H2\n"
    "                 and a 2 s UCT search from the initial state with that hook at its\n"
    "                 default budget (3 steps): without it, on bitsets checking every\n"
    "                 state, on bitsets where checks pay (lbs_state_hook), on terms:\n"
    "                   uct hook=none|bits-every|bits|terms hook_alpha=A hook_beta=B\n"
    "                       seconds=T rollouts=R\n"
    "                       steps=S steps_per_s=X hook_calls=C hook_hits=H hook_ns=N\n"
    "                       hook_share=F\n"
    "  --cost-share X with --cost, the share of a rollout step for the fit line (default "
    "0.2)\n" ENGINE_HELP "                 (--cost needs ground or compiled)\n\n"
    "With --bdd, backward search on binary decision diagrams over the ground fluents of the\n"
    "engine's network, for any deterministic game (any number of roles, simultaneous moves):\n"
    "alpha_i = the states from which R forces goal 100 within i steps (R commits to its\n"
    "move, the others answer knowing it), alpha_0 = terminal and goal(R, 100); beta_i the\n"
    "same for the other role of a two-player game, else the others as one coalition\n"
    "forcing R's least goal. One line per step:\n"
    "  side=alpha|beta i=I seconds=T cpu=C nodes=N parts=P fixpoint=yes|no complete=yes|no\n"
    "(nodes: of its decision diagrams, shared; parts: of the union the set is; fixpoint:\n"
    "alpha_i = alpha_{i-1}, every later step is this one; complete=no: a sound subset, cut\n"
    "by the budget (the set is the previous step's) or capped by --set-nodes).\n"
    "  --exact        the sets W_i of the lifted search instead (two-player turn-taking:\n"
    "                 the mover alternates, exactly i steps)\n"
    "  --values       also, for every goal value v of R, the sequences side=lower v=V (R\n"
    "                 forces goal >= v) and side=upper v=V (the others force R's goal <= v),\n"
    "                 and the proven bounds of the initial state: bounds lower=L upper=U\n"
    "  --next N       the next functions of the nodes that read the joint move: with the\n"
    "                 move codes free (free), one joint move at a time with its inputs fixed\n"
    "                 (joint), or free but joint where a node is past 50,000 nodes (auto,\n"
    "                 default)\n"
    "  --no-move-sets a node's rules that are one move alone ORed one by one (default: made\n"
    "                 at once as the set of their move codes, the same diagram)\n"
    "  --image I      the pre-image by one substitution of the next-state functions with\n"
    "                 free move codes (subst) or one per joint move (move, default)\n"
    "  --set-nodes N  a step whose coalition's move has several answers ORs the parts of\n"
    "                 the last step's set while that stays within N nodes and leaves out\n"
    "                 the rest (a sound subset, complete=no; default 0: no cap)\n"
    "  --merge-nodes N  a set is a union of parts, each OR-ed up to N nodes (default\n"
    "                 100000; 0: never merged)\n"
    "  --op-nodes N   nodes one decision-diagram operation of a step may add (default\n"
    "                 1000000): past it the set it was for is left out (complete=no)\n"
    "  --max-parts N  with --image move, each joint move's states split by its effect (in\n"
    "                 connect four: by landing row) into at most N parts, each a cube of\n"
    "                 the variables it sets (default 64; 1: no split, the substitution)\n"
    "  --moves-below  move codes under the fluents in the variable order (default on top)\n"
    "  --no-invariants  one variable per fluent (no binary codes for cells whose values are\n"
    "                 proven mutually exclusive)\n"
    "  --names-order  the families of fluents in the variable order by name alone (default: a\n"
    "                 family whose value selects another's cells, a program counter, above it)\n"
    "  --no-families  a piece's locations (a family of cells, one value true initially) coded\n"
    "                 cell by cell, not tried as one group\n"
    "  --no-implications  do not keep the sets within the implications between cells proven\n"
    "                 inductive (connect four: a piece has a piece under it)\n"
    "  --no-cone      build every fluent's next function (default: only those of the\n"
    "                 fluents that may influence terminal, a goal or a legal move)\n"
    "  --unknowns N   nodes of the network at most left unknown where one does not build\n"
    "                 within a 16th of the time left (\"some move is available\"): a free\n"
    "                 variable each, the sets made for every value of it (subsets; default\n"
    "                 64, at most 256; 0: none, such a game refused)\n"
    "  --node-nodes N  a node of the network past N nodes is left unknown too (the same\n"
    "                 on any machine; default: no such cap)\n"
    "  --node-work N  a node of the network that makes more than N diagram nodes (counted\n"
    "                 between its rules' operations) is left unknown too, while unknowns\n"
    "                 are left (the same on any machine; default 500000; 0: none)\n"
    "  --no-reach     do not keep the sets within the states reachable from the initial\n"
    "                 one (a forward search, terminal states expanded too, that gets at most\n"
    "                 40% of the budget and gives up past 20000 nodes)\n"
    "  --horizon D    the reachable states only within D steps of the initial state (no\n"
    "                 node cap then): step i holds the states within D - i steps that it\n"
    "                 would hold without (complete=yes: all of them), a sound subset beyond;\n"
    "                 lines end with within=D-i, the last step (i = D) is the initial state\n"
    "                 alone. Connect four: about 10 steps deep within 10 s, every step\n"
    "                 complete, where without a horizon step 2 does not finish\n"
    "  --plies K      start the forward search (and --check, --verify) at ply K of the\n"
    "                 random match of --seed (canonical draws, as ggp alphabeta --plies):\n"
    "                 the sets are then about the states near it (within=D-i on each line,\n"
    "                 D the horizon, or the farthest state from it without one)\n"
    "  --rows         a fluent's argument with the most values last in the variable order\n"
    "                 (connect four: row by row; default: column by column, where the\n"
    "                 reachable states are small and, with the implications, the sets too;\n"
    "                 --columns is the default, kept for older command lines)\n"
    "  --reorder      sift the variable order when the diagrams have doubled\n"
    "  --forall F     the forall of a step (a move with several answers): join, the set\n"
    "                 as one diagram (its parts up to --set-nodes: a subset past it);\n"
    "                 products, the conjunction over the answers kept as a union of products\n"
    "                 and terminal as exclusions (no union made one diagram); auto: join\n"
    "                 where the set and its forall fit, else products. Default: join\n"
    "  --trace        progress lines (# trace ...) while a step runs: the nodes of the set\n"
    "                 joined for a forall step and of each move's set after each answer\n"
    "  --nodes N      decision-diagram nodes at most (default 4000000)\n"
    "  --check, --verify  as above, on every step of every sequence: exact=E is the states\n"
    "                 the coalition forces within i steps (--exact: W_i), false_pos the\n"
    "                 hits outside it, misses the states of it not hit, undecided the\n"
    "                 bounded searches that gave up\n\n"
    "Games that are not two-player turn-taking (one role chooses, the other plays its only\n"
    "move, a no-op), and GDL-II games, are reported as unsupported (exit 3).\n";

typedef struct {
    term_store_t *ts;
    bool print;
} print_ctx_t;

static void on_step(void *ctx, int side, uint32_t i, const regress_step_t *st) {
    print_ctx_t *p = ctx;
    printf("side=%s i=%u seconds=%.3f disjuncts=%u literals=%" PRIu64 " complete=%s\n",
           side ? "beta" : "alpha", i, st->seconds, st->disjuncts, st->literals,
           st->complete ? "yes" : "no");
    if (st->too_deep)
        printf("# side=%s stops at i=%u: its formula nests a term past %u levels (deeper than "
               "any state the engines play)\n",
               side ? "beta" : "alpha", i, TERM_MAX_DEPTH);
    if (p->print) {
        strbuf_t sb;
        sb_init(&sb);
        form_print(p->ts, st->f, &sb);
        printf("%s\n", sb_str(&sb));
        sb_fini(&sb);
    }
    fflush(stdout);
}

/* --check: every formula on every reachable state, against the exact solver. */
static int run_check(engine_t *e, regress_t *rg, uint32_t role, bool z3, uint32_t max_states) {
    game_t *g = engine_game(e);
    char err[200];
    double t0 = now_seconds();
    verify_t *v = verify_new(e, regress_shape_of(rg)->noop, max_states, err, sizeof err);
    if (!v) {
        fprintf(stderr, "ggp regress: --check: %s\n", err);
        return 3;
    }
    printf("# check states=%u solve_seconds=%.3f z3=%s\n", verify_states(v), now_seconds() - t0,
           z3 ? z3_version() : "off");
    int rc = 0;
    uint32_t nm;
    const mutex_t *m = regress_mutexes(rg, &nm);
    for (uint32_t k = 0; k < nm; k++) {
        uint32_t bad = verify_mutex(v, &m[k]);
        printf("check mutex=%s/%u@%u states=%u violations=%u\n", term_sym_name(g->ts, m[k].sym),
               m[k].arity, m[k].pos, verify_states(v), bad);
        if (bad) rc = 4;
    }
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < regress_count(rg, side); i++) {
            const regress_step_t *st = regress_step(rg, side, i);
            verify_row_t row;
            verify_formula(v, st->f, side ? 1 - role : role, i, z3, &row);
            printf("check side=%s i=%u states=%u exact=%u hits=%u false_pos=%u late=%u misses=%u "
                   "z3_checked=%u z3_disagree=%u complete=%s match_seconds=%.3f z3_seconds=%.3f\n",
                   side ? "beta" : "alpha", i, row.states, row.exact, row.hits, row.false_pos,
                   row.late, row.misses, row.z3_checked, row.z3_disagree,
                   st->complete ? "yes" : "no", row.match_seconds, row.z3_seconds);
            if (row.z3_too_big)
                printf("# z3: side=%s i=%u grounds past the node limit, not checked\n",
                       side ? "beta" : "alpha", i);
            fflush(stdout);
            if (row.false_pos || row.late || row.z3_disagree || row.inexact ||
                (st->complete && row.misses))
                rc = 4;
        }
    verify_free(v);
    return rc;
}

/* --hits: the states of n seeded random matches, and how many satisfy each formula (how
 * often a rollout would be cut short by it). With a time limit per formula (0: none), a
 * formula that used it up is not evaluated on later states: its line counts the states it
 * was evaluated on. */
typedef struct {
    match_t *m;
    uint64_t states, hits;
    double seconds;
} hits_t;

static void eval_hits(hits_t *h, const match_state_t *ms, double limit) {
    if (!h->m || (limit > 0 && h->seconds >= limit)) return;
    double t0 = now_seconds();
    h->hits += match_eval(h->m, ms);
    h->states++;
    h->seconds += now_seconds() - t0;
}

typedef struct {
    const term_store_t *ts;
    match_state_t *ms;
    state_t terms;
    hits_t *h[2];
    uint32_t nf[2];
    double limit;
} hits_walk_t;

static engine_walk_next_t hits_on_state(void *ctx, engine_t *e, const eng_state_t *s,
                                        uint32_t ply) {
    (void)ply;
    hits_walk_t *w = ctx;
    engine_state_terms(e, s, &w->terms);
    match_state_set(w->ms, w->ts, &w->terms);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < w->nf[side]; i++)
            eval_hits(&w->h[side][i], w->ms, w->limit);
    return ENGINE_WALK_ON;
}

/* n seeded random matches, every state visited, the terminal one included (--hits and
 * --verify). */
static engine_walk_t random_matches(uint32_t n, double deadline) {
    return (engine_walk_t){
        .matches = n, .max_plies = 10000, .deadline = deadline, .terminal = true};
}

static void run_hits(engine_t *e, regress_t *rg, uint32_t n, double limit) {
    game_t *g = engine_game(e);
    uint32_t nf[2] = {regress_count(rg, 0), regress_count(rg, 1)};
    hits_t *h[2];
    for (int side = 0; side < 2; side++) {
        h[side] = xcalloc(nf[side] + 1, sizeof *h[side]);
        for (uint32_t i = 0; i < nf[side]; i++)
            h[side][i].m = match_new(g->ts, regress_step(rg, side, i)->f);
    }
    hits_walk_t w = {.ts = g->ts, .ms = match_state_new(), .limit = limit};
    for (int side = 0; side < 2; side++)
        w.h[side] = h[side], w.nf[side] = nf[side];
    splitmix_t rng = {0x417};
    engine_walk_t walk = random_matches(n, 0);
    engine_walk(e, &rng, &walk, hits_on_state, &w);
    state_fini(&w.terms);
    for (int side = 0; side < 2; side++) {
        for (uint32_t i = 0; i < nf[side]; i++) {
            const hits_t *x = &h[side][i];
            printf("hits side=%s i=%u states=%" PRIu64 " hits=%" PRIu64 " share=%.5f\n",
                   side ? "beta" : "alpha", i, x->states, x->hits,
                   x->states ? (double)x->hits / (double)x->states : 0.0);
            match_free(x->m);
        }
        free(h[side]);
    }
    match_state_free(w.ms);
}

/* The distinct states seen so far (--verify). */
typedef struct {
    state_t *all;
    uint64_t *hashes;
    uint32_t count, cap;
    state_t terms; /* the state visited */
} distinct_t;

static engine_walk_next_t add_distinct(void *ctx, engine_t *e, const eng_state_t *es,
                                       uint32_t ply) {
    (void)ply;
    distinct_t *d = ctx;
    state_t *s = &d->terms;
    engine_state_terms(e, es, s);
    uint64_t h = state_hash(s);
    for (uint32_t k = 0; k < d->count; k++)
        if (d->hashes[k] == h && state_equal(&d->all[k], s)) return ENGINE_WALK_ON;
    if (d->count == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 256;
        d->all = xrealloc(d->all, d->cap * sizeof *d->all);
        d->hashes = xrealloc(d->hashes, d->cap * sizeof *d->hashes);
    }
    state_init(&d->all[d->count]);
    state_copy(&d->all[d->count], s);
    d->hashes[d->count++] = h;
    return ENGINE_WALK_ON;
}

/* The distinct states of n seeded random matches (--verify). */
static uint32_t random_states(engine_t *e, uint32_t n, uint64_t seed, double deadline,
                              uint32_t *played, state_t **out) {
    distinct_t d = {0};
    splitmix_t rng = {seed};
    engine_walk_t walk = random_matches(n, deadline);
    *played = engine_walk(e, &rng, &walk, add_distinct, &d).matches;
    free(d.hashes);
    state_fini(&d.terms);
    *out = d.all;
    return d.count;
}

typedef struct {
    uint32_t matches;
    uint64_t seed, max_nodes;
    double seconds;
} verify_opts_t;

/* --verify: every formula on the states of random matches, against the bounded search. */
static int run_verify(engine_t *e, regress_t *rg, uint32_t role, const verify_opts_t *vo) {
    game_t *g = engine_game(e);
    state_t *states;
    uint32_t played;
    uint32_t n =
        random_states(e, vo->matches, vo->seed, now_seconds() + vo->seconds, &played, &states);
    printf("# verify matches=%u seed=%" PRIu64 " states=%u nodes_per_search=%" PRIu64 "\n",
           vo->matches, vo->seed, n, vo->max_nodes);
    if (played < vo->matches)
        printf("# verify: the engine is slow here: %u of %u matches played within %.0f s "
               "(the last one cut short)\n",
               played, vo->matches, vo->seconds);
    bounded_t *b = bounded_new(e, regress_shape_of(rg)->noop);
    int rc = 0;
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < regress_count(rg, side); i++) {
            const regress_step_t *st = regress_step(rg, side, i);
            match_t *m = match_new(g->ts, st->f);
            verify_bounded_opts_t o = {.max_nodes = vo->max_nodes,
                                       .deadline = now_seconds() + vo->seconds,
                                       .misses = st->complete};
            verify_bounded_row_t row;
            verify_bounded(b, m, states, n, side ? 1 - role : role, i, &o, &row);
            match_free(m);
            const char *name = side ? "beta" : "alpha";
            printf("verify side=%s i=%u states=%u hits=%u false_pos=%u misses=%u miss_checked=%u "
                   "undecided=%u complete=%s seconds=%.3f\n",
                   name, i, row.states, row.hits, row.false_pos, row.misses, row.miss_checked,
                   row.undecided, st->complete ? "yes" : "no", row.seconds);
            if (row.undecided)
                printf("# verify: side=%s i=%u: the search gave up on %u states (more than %" PRIu64
                       " "
                       "nodes each): not verified there\n",
                       name, i, row.undecided, vo->max_nodes);
            if (row.states < n)
                printf("# verify: side=%s i=%u: time limit, %u of %u states checked\n", name, i,
                       row.states, n);
            fflush(stdout);
            if (row.false_pos) rc = 4;
        }
    bounded_free(b);
    for (uint32_t k = 0; k < n; k++)
        state_fini(&states[k]);
    free(states);
    return rc;
}

static int find_role(const game_t *g, const char *name) {
    for (uint32_t i = 0; i < g->n_roles; i++)
        if (!strcasecmp(term_sym_name(g->ts, term_sym(g->ts, g->roles[i])), name)) return (int)i;
    unsigned long long k;
    char *end;
    k = strtoull(name, &end, 10);
    if (*name && !*end && k < g->n_roles) return (int)k;
    return -1;
}

/* The budget ran out in the middle of a step: say which one was dropped (the next of the
 * side with fewer steps, α first; a side whose last formula is false is finished). */
static void print_dropped(const regress_t *rg) {
    int side = -1;
    uint32_t least = UINT32_MAX;
    for (int s = 0; s < 2; s++) {
        uint32_t n = regress_count(rg, s);
        if (n && regress_step(rg, s, n - 1)->f->n == 0) continue;
        if (n < least) least = n, side = s;
    }
    if (side >= 0)
        printf("# out of budget: side=%s i=%u was not finished and is dropped\n",
               side ? "beta" : "alpha", least);
}

static bool image_ok(const char *v) {
    if (!strcmp(v, "subst") || !strcmp(v, "move")) return true;
    fprintf(stderr, "ggp regress: --image: subst or move, not '%s'\n", v);
    return false;
}

static bool next_ok(const char *v) {
    if (!strcmp(v, "auto") || !strcmp(v, "joint") || !strcmp(v, "free")) return true;
    fprintf(stderr, "ggp regress: --next: auto, joint or free, not '%s'\n", v);
    return false;
}

static bool forall_ok(const char *v) {
    if (!strcmp(v, "auto") || !strcmp(v, "join") || !strcmp(v, "products")) return true;
    fprintf(stderr, "ggp regress: --forall: auto, join or products, not '%s'\n", v);
    return false;
}

int cmd_regress(int argc, char **argv) {
    const char *path = NULL, *role = NULL, *image = NULL, *forall = NULL, *next = NULL;
    double budget = 10, hits_seconds = 0;
    unsigned long long max_size = 200000, depth = 4, steps = 0;
    bool print = false, no_mutex = false, check = false, no_z3 = false, ground = false;
    unsigned long long max_states = 2000000, hits = 0, verify = 0, seed = 1, verify_nodes = 1000000;
    double verify_seconds = 60, cost_share = 0.2;
    unsigned long long cost = 0;
    engine_kind_t engine = ENGINE_AUTO;
    bool bdd = false, exact = false, values = false, moves_below = false, no_invariants = false,
         no_implications = false, no_cone = false, names_order = false, no_move_sets = false,
         no_families = false;
    bool reorder = false, no_reach = false, columns = false, rows = false, trace = false;
    regress_bdd_opts_t bo = {0};
    bdds_default_opts(&bo.search);
    const bddnet_opts_t *net = &bo.search.net;
    unsigned long long nodes = 0, set_nodes = net->set_nodes, merge_nodes = bo.search.merge_nodes,
                       op_nodes = bo.search.op_nodes, max_parts = net->max_parts, horizon = 0,
                       plies = 0, unknowns = net->unknowns, node_nodes = 0,
                       node_work = net->node_work;
    const opt_spec_t specs[] = {{.name = "--role", .value = &role},
                                {.name = "--budget", .real = &budget},
                                {.name = "--max-size", .uint = &max_size},
                                {.name = "--depth", .uint = &depth},
                                {.name = "--steps", .uint = &steps},
                                {.name = "--max-states", .uint = &max_states},
                                {.name = "--hits", .uint = &hits},
                                {.name = "--hits-seconds", .real = &hits_seconds},
                                {.name = "--verify", .uint = &verify},
                                {.name = "--seed", .uint = &seed},
                                {.name = "--verify-nodes", .uint = &verify_nodes},
                                {.name = "--verify-seconds", .real = &verify_seconds},
                                {.name = "--cost", .uint = &cost},
                                {.name = "--cost-share", .real = &cost_share},
                                {.name = "--engine", .engine = &engine},
                                {.name = "--nodes", .uint = &nodes, .max = 1000000000},
                                {.name = "--set-nodes", .uint = &set_nodes, .max = 1000000000},
                                {.name = "--merge-nodes", .uint = &merge_nodes, .max = 1000000000},
                                {.name = "--op-nodes", .uint = &op_nodes, .max = 1000000000},
                                {.name = "--max-parts", .uint = &max_parts, .max = 1000000},
                                {.name = "--unknowns", .uint = &unknowns, .max = 256},
                                {.name = "--node-nodes", .uint = &node_nodes, .max = 1000000000},
                                {.name = "--node-work", .uint = &node_work, .max = 4000000000u},
                                {.name = "--horizon", .uint = &horizon, .max = 1000000},
                                {.name = "--plies", .uint = &plies, .max = 1000000},
                                {.name = "--image", .value = &image, .check = image_ok},
                                {.name = "--forall", .value = &forall, .check = forall_ok},
                                {.name = "--next", .value = &next, .check = next_ok},
                                {.name = "--bdd", .flag = &bdd},
                                {.name = "--exact", .flag = &exact},
                                {.name = "--values", .flag = &values},
                                {.name = "--moves-below", .flag = &moves_below},
                                {.name = "--columns", .flag = &columns},
                                {.name = "--rows", .flag = &rows},
                                {.name = "--no-invariants", .flag = &no_invariants},
                                {.name = "--no-implications", .flag = &no_implications},
                                {.name = "--no-cone", .flag = &no_cone},
                                {.name = "--names-order", .flag = &names_order},
                                {.name = "--no-move-sets", .flag = &no_move_sets},
                                {.name = "--no-families", .flag = &no_families},
                                {.name = "--reorder", .flag = &reorder},
                                {.name = "--trace", .flag = &trace},
                                {.name = "--no-reach", .flag = &no_reach},
                                {.name = "--ground", .flag = &ground},
                                {.name = "--print", .flag = &print},
                                {.name = "--check", .flag = &check},
                                {.name = "--no-z3", .flag = &no_z3},
                                {.name = "--no-mutex", .flag = &no_mutex},
                                {0}};
    int prc = opt_parse(argc, argv, "regress", regress_help, NULL, specs, &path, 1);
    if (prc >= 0) return prc;
    bool mutexes = !no_mutex, z3 = !no_z3;
    if (forall)
        bo.search.net.forall = !strcmp(forall, "auto")       ? BDDNET_AUTO
                               : !strcmp(forall, "products") ? BDDNET_PRODUCTS
                                                             : BDDNET_JOIN;
    if (next)
        bo.search.net.next = !strcmp(next, "joint")  ? BDDNET_NEXT_JOINT
                             : !strcmp(next, "free") ? BDDNET_NEXT_FREE
                                                     : BDDNET_NEXT_AUTO;
    if (image) bo.search.net.image = strcmp(image, "move") ? BDDNET_SUBST : BDDNET_PER_MOVE;
    if (exact) bo.search.mode = BDDS_EXACT;
    if (values) bo.search.values = true;
    if (moves_below) bo.search.net.moves_below = true;
    if (columns) bo.search.net.columns = true;
    if (rows) bo.search.net.columns = false;
    if (no_invariants) bo.search.net.invariants = false;
    if (no_implications) bo.search.net.implications = false;
    if (no_cone) bo.search.net.cone = false;
    if (names_order) bo.search.net.selectors = false;
    if (no_move_sets) bo.search.net.move_sets = false;
    if (no_families) bo.search.net.families = false;
    if (reorder) bo.search.reorder = true;
    if (no_reach) bo.search.net.reach = false;
    if (trace) bo.search.net.trace = stdout;
    bo.search.net.set_nodes = (uint32_t)set_nodes;
    bo.search.merge_nodes = (uint32_t)merge_nodes;
    bo.search.op_nodes = (uint32_t)op_nodes;
    bo.search.net.max_parts = (uint32_t)max_parts;
    bo.search.net.unknowns = (uint32_t)unknowns;
    bo.search.net.node_nodes = (uint32_t)node_nodes;
    bo.search.net.node_work = (uint32_t)node_work;
    bo.search.net.horizon = (uint32_t)horizon;
    if (!path || !role) {
        opt_usage_error("regress", regress_help, !path ? "no GAME given" : "--role is required");
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    int ri = find_role(g, role);
    if (ri < 0) {
        fprintf(stderr, "ggp regress: %s has no role '%s'\n", path, role);
        game_free(g);
        return 2;
    }
    if (bdd) {
        bo.search.budget = budget;
        bo.search.max_steps = (uint32_t)steps;
        bo.search.net.max_nodes = (uint32_t)nodes;
        bo.check = check;
        bo.max_states = (uint32_t)max_states;
        bo.verify = (uint32_t)verify;
        bo.hits = (uint32_t)hits;
        bo.seed = seed;
        bo.plies = (uint32_t)plies;
        bo.verify_nodes = verify_nodes;
        bo.verify_seconds = verify_seconds;
        int rc = regress_bdd(g, (uint32_t)ri, &bo);
        game_free(g);
        return rc;
    }
    /* the interpreter: backward search reads the rules as written (--cost makes an engine
     * of its own) */
    engine_t *e = engine_new(g, ENGINE_INTERP, NULL);
    regress_opts_t o;
    regress_default_opts(&o);
    o.budget = budget;
    o.max_size = max_size;
    o.max_depth = (uint32_t)depth;
    o.max_steps = (uint32_t)steps;
    o.use_mutexes = mutexes;
    o.ground_moves = ground;
    char err[320];
    regress_t *rg = regress_new(e, (uint32_t)ri, &o, err, sizeof err);
    int rc = 0;
    if (!rg) {
        fprintf(stderr, "ggp regress: %s: %s\n", path, err);
        rc = 3;
    } else {
        if (!g->acyclic)
            printf("# recursive rules: recursive predicates are unfolded at most %llu times; a "
                   "formula cut by that bound says complete=no (it is still sound)\n",
                   depth);
        double t0 = now_seconds();
        if (mutexes) {
            uint32_t n = regress_prove_mutexes(rg);
            uint32_t nm;
            const mutex_t *m = regress_mutexes(rg, &nm);
            printf("# mutexes proven=%u seconds=%.3f", n, now_seconds() - t0);
            for (uint32_t k = 0; k < nm; k++)
                printf(" %s/%u@%u", term_sym_name(g->ts, m[k].sym), m[k].arity, m[k].pos);
            printf("\n");
        }
        print_ctx_t pc = {.ts = g->ts, .print = print};
        if (!regress_run(rg, on_step, &pc)) print_dropped(rg);
        if (hits) run_hits(e, rg, (uint32_t)hits, hits_seconds);
        if (check) rc = run_check(e, rg, (uint32_t)ri, z3, (uint32_t)max_states);
        if (verify) {
            verify_opts_t vo = {.matches = (uint32_t)verify,
                                .seed = seed,
                                .max_nodes = verify_nodes,
                                .seconds = verify_seconds};
            int vrc = run_verify(e, rg, (uint32_t)ri, &vo);
            if (vrc) rc = vrc;
        }
        if (cost) {
            int crc = regress_cost(g, (uint32_t)ri, budget, rg, engine, (uint32_t)cost, cost_share);
            if (crc) rc = crc;
        }
        regress_free(rg);
    }
    engine_free(e);
    game_free(g);
    return rc;
}
