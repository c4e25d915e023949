/* The GDL-II belief reasoner: see bsmt.h. The unrolling is one circuit (logic/circuit.h)
 * that grows by a step per observation, its variables the fluents and moves of every step
 * (numbered as they are made); the Z3 bridge (logic/z3.h) encodes what is asserted or
 * assumed, each node once, and decides the checks. */
#include "player/bsmt.h"
#include "base/clock.h"
#include "base/rng.h"
#include "base/util.h"
#include "logic/sat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNBUILT UINT32_MAX /* an atom with no node yet in a frame */

/* The nodes of one step: memo[atom] once built. */
typedef struct {
    pn_t *memo;
} frame_t;

struct bsmt {
    const bnet_t *net;
    const game_t *g;
    uint32_t role;
    z3_t *z;
    z3_solver_t *solver;
    circuit_t *c;         /* the unrolling */
    z3_enc_t *enc;        /* its nodes as Z3 terms */
    sat_record_t *record; /* what is asserted outside a query's scope, for confirmations */
    uint32_t scope;       /* query scopes open (z3_push) */
    bsmt_proofs_t proofs;
    uint32_t n_vars;  /* the circuit's variables so far */
    frame_t cur, nxt; /* the current step and the next (its fluents, once prepared) */
    bool prepared;    /* the transition from cur to nxt is asserted */
    uint32_t step;
    bool broken;             /* an observation named something the game cannot produce */
    const uint32_t *fluents; /* fluent atom ids */
    uint32_t n_fluents;
    splitmix_t rng;
    uint32_t live; /* bsmt_live asserted for step live - 1; 0: not yet */
    /* every possible move of every step so far: bsmt_trajectory */
    struct past_move {
        uint32_t step, role;
        term_t move;
        pn_t does;
    } * past;
    size_t n_past, cap_past;
    /* what is asserted outside a scope waits here until a Z3 query needs it (z3_abreast):
     * giving Z3 a step of the full killer game took up to 1.8 s (not interruptible), on the
     * move's clock; CaDiCaL answers the queries of a move, Z3 catches up entry by entry */
    struct pending {
        enum { P_ASSERT, P_IFF, P_ONE } kind;
        pn_t a, b;         /* P_ONE: the guard (a) */
        uint32_t start, n; /* P_ONE: its nodes in pool */
    } * pend;
    size_t n_pend, cap_pend;
    size_t n_given;       /* entries given to the current solver */
    size_t n_known;       /* of those, the ones a check of it internalised (uninterrupted) */
    size_t chunk;         /* BSMT_CHUNK but in tests */
    double chunk_seconds; /* the slowest chunk lately, given and internalised (time_for_chunk) */
    bsmt_feed_t feed;
    pn_t *pool;
    size_t n_pool, cap_pool;
};

static void frame_init(bsmt_t *b, frame_t *f) {
    f->memo = xmalloc((bnet_count(b->net) + 1) * sizeof *f->memo);
    memset(f->memo, 0xff, (bnet_count(b->net) + 1) * sizeof *f->memo); /* UNBUILT */
}

static z3_term_t term(bsmt_t *b, pn_t n) {
    return z3_enc_term(b->enc, n);
}

static pn_t fresh(bsmt_t *b) {
    return pn_var(b->c, b->n_vars++);
}

/* 1 / 0 when a built atom's value is known at its step (a constant), else -1. */
static int known(const frame_t *f, uint32_t id) {
    return f->memo[id] == PN_TRUE ? 1 : f->memo[id] == PN_FALSE ? 0 : -1;
}

/* The node of an atom in a frame, built on first use, with what is known folded in: a
 * constant when its value follows from the known fluents of the step (much of a game's
 * state is known to every player: control, counters, the deal's position), a move whose
 * legal atom is known false is false. This keeps the unrolling small. Fluents of a frame
 * are set when it is made (step 0: the initial state; later: prepare). */
static pn_t expr(bsmt_t *b, frame_t *f, uint32_t id) {
    if (f->memo[id] != UNBUILT) return f->memo[id];
    pn_t r;
    int c = bnet_const(b->net, id);
    bnet_kind_t kind = bnet_kind(b->net, id);
    if (kind == BNET_FLUENT) {
        r = fresh(b);
    } else if (kind == BNET_DOES) {
        uint32_t legal = bnet_legal_of(b->net, id);
        r = legal == BNET_NONE || expr(b, f, legal) == PN_FALSE ? PN_FALSE : fresh(b);
    } else if (c >= 0) {
        r = c ? PN_TRUE : PN_FALSE;
    } else {
        const bnet_body_t *bodies;
        uint32_t nb = bnet_bodies(b->net, id, &bodies), no = 0;
        pn_t *ors = xmalloc((nb + 1) * sizeof *ors);
        r = PN_FALSE;
        for (uint32_t i = 0; i < nb && r != PN_TRUE; i++) {
            pn_t ands[bodies[i].n + 1];
            uint32_t na = 0;
            bool dead = false;
            for (uint32_t k = 0; k < bodies[i].n && !dead; k++) {
                bnet_lit_t l = bodies[i].lits[k];
                pn_t a = expr(b, f, l / 2);
                if (l & 1) a = pn_not(b->c, a);
                dead = a == PN_FALSE;
                if (a != PN_TRUE) ands[na++] = a;
            }
            if (dead) continue;
            ors[no] = pn_and(b->c, ands, na);
            if (ors[no++] == PN_TRUE) r = PN_TRUE;
        }
        if (r != PN_TRUE) r = pn_or(b->c, ors, no);
        free(ors);
    }
    f->memo[id] = r;
    return r;
}

static void defer(bsmt_t *b, struct pending e) {
    GROW(b->pend, b->cap_pend, b->n_pend + 1);
    b->pend[b->n_pend++] = e;
}

/* A solver whose check the watchdog interrupted answers unknown from then on: out of every
 * scope, a new one takes its place and is given every entry again (z3_abreast). */
static void renew(bsmt_t *b) {
    if (b->scope || !z3_solver_spoiled(b->solver)) return;
    z3_solver_free(b->solver);
    b->solver = z3_solver_new(b->z, false);
    b->n_given = b->n_known = 0;
    b->feed.renewed++;
}

/* Gives Z3 the entries up to end, one at a time until the deadline (0: none); true when
 * it has them. */
static bool give(bsmt_t *b, size_t end, double deadline) {
    for (; b->n_given < end; b->n_given++) {
        if (deadline > 0 && now_seconds() > deadline) return false;
        const struct pending *e = &b->pend[b->n_given];
        if (e->kind == P_ASSERT) {
            z3_assert(b->solver, term(b, e->a));
        } else if (e->kind == P_IFF) {
            z3_assert_iff(b->solver, term(b, e->a), term(b, e->b));
        } else {
            z3_term_t *d = xmalloc((e->n + 1) * sizeof *d);
            for (uint32_t i = 0; i < e->n; i++)
                d[i] = term(b, b->pool[e->start + i]);
            z3_assert_one(b->solver, term(b, e->a), d, e->n);
            free(d);
        }
    }
    return true; /* the entries stay: a renewed solver is given them again */
}

/* The entries a check is about to internalise, for the largest batch in the statistics. */
static void note_batch(bsmt_t *b) {
    size_t batch = b->n_given - b->n_known;
    if (batch > b->feed.max_batch) b->feed.max_batch = batch;
}

/* A check of the solver by deadline; what it was given is internalised after it unless it
 * was cut (interrupted, or not started: past the deadline). */
static int z3_run(bsmt_t *b, const z3_term_t *ts, uint32_t n, double deadline) {
    uint64_t before = z3_stats(b->z).checks;
    int r = z3_check(b->solver, ts, n, deadline);
    if (z3_stats(b->z).checks == before) return r;
    note_batch(b);
    if (!z3_solver_spoiled(b->solver)) b->n_known = b->n_given;
    return r;
}

/* The chunk given internalised with no search and no watchdog (an interrupt spoils the
 * solver: the whole history again); a chunk costs a few ms. */
static void settle(bsmt_t *b) {
    note_batch(b);
    if (z3_settle(b->solver)) b->n_known = b->n_given;
}

/* Whether a chunk (given and internalised) fits before the deadline at the pace of the
 * slowest chunk lately: z3_settle has no watchdog, and its time swings with the load (up
 * to 2.2 s late in a full killer match at load 8-14, where the last chunk's pace, halved
 * at each refusal, let the next start anyway). The pace is forgotten slowly (by a tenth a
 * chunk, a fifth a refusal), so that one slow chunk does not stop the feed for good. */
static bool time_for_chunk(bsmt_t *b, double deadline) {
    if (now_seconds() + b->chunk_seconds <= deadline) return true;
    b->chunk_seconds *= 0.8;
    return false;
}

/* Makes Z3 abreast of the history, so that no check internalises more than BSMT_CHUNK
 * entries: Z3_interrupt reaches Z3 only after it has internalised what it was given, and
 * a renewed solver given the whole history of the full killer game took 2 s in one check
 * at a 0.5 s clock, again on every later turn. A lagging solver is given the next chunk
 * and a check of no assumptions internalises it, at most `chunks` times (by the deadline).
 * True when every entry is given and at most a chunk is left to internalise (a query's
 * check takes it); no deadline (0): every entry given at once. */
static bool z3_abreast(bsmt_t *b, double deadline, uint32_t chunks) {
    renew(b);
    if (deadline <= 0) return give(b, b->n_pend, 0);
    for (;;) {
        size_t end = b->n_known + b->chunk < b->n_pend ? b->n_known + b->chunk : b->n_pend;
        if (b->n_given < end && !time_for_chunk(b, deadline)) return false;
        double t0 = now_seconds();
        if (!give(b, end, deadline)) return false;
        if (b->n_pend - b->n_known <= b->chunk) return true;
        /* the settle cannot be interrupted: none started without the time for it (the
         * chunk stays given, not internalised: at most a chunk, as a query may find it) */
        if (!chunks-- || z3_solver_spoiled(b->solver) || !time_for_chunk(b, deadline)) return false;
        settle(b);
        double took = now_seconds() - t0;
        b->chunk_seconds = took > b->chunk_seconds * 0.9 ? took : b->chunk_seconds * 0.9;
        if (b->n_known != b->n_given) return false; /* an error */
    }
}

bool bsmt_catch_up(bsmt_t *b, double deadline) {
    return z3_abreast(b, deadline, UINT32_MAX);
}

bsmt_feed_t bsmt_feed_stats(const bsmt_t *b) {
    bsmt_feed_t f = b->feed;
    f.entries = b->n_pend;
    f.given = b->n_given;
    f.known = b->n_known;
    return f;
}

void bsmt_test_interrupt(bsmt_t *b) {
    z3_test_interrupt(b->z);
}

void bsmt_test_chunk(bsmt_t *b, size_t entries) {
    b->chunk = entries;
}

/* Node n holds: in a scope at once (nothing waits then: scope_push), else recorded for
 * CaDiCaL and queued for Z3. */
static void assert_node(bsmt_t *b, pn_t n) {
    if (b->scope) {
        z3_assert(b->solver, term(b, n));
        return;
    }
    sat_record_assert(b->record, n);
    defer(b, (struct pending){.kind = P_ASSERT, .a = n});
}

/* A query's scope: what it asserts is retracted at its end (and not recorded). */
static void scope_push(bsmt_t *b) {
    /* what waits is no query's: it goes below the scope, given when abreast (z3_abreast:
     * at most a chunk is left; the callers' first check made sure) */
    give(b, b->n_pend, 0);
    z3_push(b->solver);
    b->scope++;
}

static void scope_pop(bsmt_t *b) {
    z3_pop(b->solver);
    b->scope--;
}

/* A check of the assertions and the nodes assume[0..n), by deadline: 1 / 0 / -1. */
static int check(bsmt_t *b, uint32_t n, const pn_t *assume, double deadline) {
    /* not abreast of the history yet: unknown (a few chunks more are given per query) */
    if (!z3_abreast(b, deadline, BSMT_QUERY_CHUNKS)) return -1;
    z3_term_t small[8] = {0}, *ts = n <= 8 ? small : xmalloc(n * sizeof *ts);
    for (uint32_t i = 0; i < n; i++)
        ts[i] = term(b, assume[i]);
    int r = z3_run(b, ts, n, deadline);
    if (ts != small) free(ts);
    return r;
}

/* A query of assumptions only, out of every scope, decided by CaDiCaL on the record (what
 * Z3 was given outside queries): its check stops at the deadline, where a Z3 round (with
 * the internalising of the steps since its last check) does not: late in the full killer
 * game at a 0.3 s deadline one risk check took 658 ms. 1 / 0 / -1 as check. */
static int decide(bsmt_t *b, uint32_t n, const pn_t *assume, double deadline) {
    return sat_check(b->record, assume, n, deadline);
}

/* 1 / 0 the value of node n in the model of the last check, -1 when it cannot be read:
 * no answer, never "false". Past the deadline none is read: building the model and reading
 * a history (a value per possible move of every step) took 50-300 ms late in the full
 * killer game. */
static int model_value(bsmt_t *b, pn_t n, double deadline) {
    if (deadline > 0 && now_seconds() > deadline) return -1;
    return z3_value(b->solver, term(b, n));
}

bsmt_t *bsmt_start(bnet_t **net, game_t *g, const gnet_t *gn, uint32_t role, uint64_t seed,
                   strbuf_t *err) {
    if (!*net) *net = bnet_new(g, gn, err);
    return *net ? bsmt_new(*net, role, seed) : NULL;
}

bsmt_t *bsmt_new(const bnet_t *n, uint32_t role, uint64_t seed) {
    bsmt_t *b = xcalloc(1, sizeof *b);
    b->net = n;
    b->g = bnet_game(n);
    b->role = role;
    b->rng.s = seed;
    b->chunk = BSMT_CHUNK;
    b->z = z3_new();
    b->solver = z3_solver_new(b->z, false);
    b->c = circuit_new();
    b->enc = z3_enc_new(b->z, b->c);
    b->record = sat_record_new(b->c);
    b->n_fluents = bnet_fluents(n, &b->fluents);
    frame_init(b, &b->cur);
    frame_init(b, &b->nxt);
    for (uint32_t i = 0; i < b->n_fluents; i++)
        b->cur.memo[b->fluents[i]] = bnet_initial(n, b->fluents[i]) ? PN_TRUE : PN_FALSE;
    return b;
}

void bsmt_free(bsmt_t *b) {
    if (!b) return;
    free(b->past);
    free(b->pend);
    free(b->pool);
    free(b->cur.memo);
    free(b->nxt.memo);
    z3_enc_free(b->enc);
    sat_record_free(b->record);
    circuit_free(b->c);
    z3_solver_free(b->solver);
    z3_free(b->z);
    free(b);
}

/* Asserts the step from cur to nxt: one move per role unless terminal, moves legal, the
 * next fluents equivalent to their `next` atoms. */
static void prepare(bsmt_t *b) {
    if (b->prepared) return;
    b->prepared = true;
    frame_t *f = &b->cur;
    uint32_t term_id = bnet_terminal(b->net);
    pn_t live = term_id == BNET_NONE ? PN_TRUE : pn_not(b->c, expr(b, f, term_id));
    for (uint32_t r = 0; r < b->g->n_roles; r++) {
        const uint32_t *ids;
        uint32_t nm = bnet_moves(b->net, r, &ids), nd = 0;
        if (!nm) continue;
        pn_t *dn = xmalloc((nm + 1) * sizeof *dn);
        for (uint32_t i = 0; i < nm; i++) {
            pn_t di = expr(b, f, ids[i]);
            if (di == PN_FALSE) continue; /* cannot be legal */
            dn[nd++] = di;
            uint32_t legal = bnet_legal_of(b->net, ids[i]);
            if (known(f, legal) != 1) { /* does => legal */
                pn_t two[2] = {pn_not(b->c, di), expr(b, f, legal)};
                assert_node(b, pn_or(b->c, two, 2));
            }
        }
        /* one move per role unless terminal (none possible: terminal) */
        sat_record_one(b->record, live, dn, nd);
        GROW(b->pool, b->cap_pool, b->n_pool + nd + 1);
        memcpy(b->pool + b->n_pool, dn, nd * sizeof *dn);
        defer(b, (struct pending){.kind = P_ONE, .a = live, .start = (uint32_t)b->n_pool, .n = nd});
        b->n_pool += nd;
        free(dn);
    }
    for (uint32_t i = 0; i < b->n_fluents; i++) {
        uint32_t fl = b->fluents[i];
        uint32_t nx = bnet_next_of(b->net, fl);
        pn_t e = nx == BNET_NONE ? PN_FALSE : expr(b, f, nx);
        if (e == PN_TRUE || e == PN_FALSE) { /* known next step: a constant, no variable */
            b->nxt.memo[fl] = e;
            continue;
        }
        pn_t var = fresh(b);
        b->nxt.memo[fl] = var;
        sat_record_iff(b->record, var, e);
        defer(b, (struct pending){.kind = P_IFF, .a = var, .b = e});
    }
}

/* The node of the legal atom of our move atom id at the current step; PN_FALSE when the
 * move has none. */
static pn_t legal_node(bsmt_t *b, uint32_t id) {
    uint32_t legal = bnet_legal_of(b->net, id);
    return legal == BNET_NONE ? PN_FALSE : expr(b, &b->cur, legal);
}

uint32_t bsmt_known_legal(bsmt_t *b, term_t **moves, bool *complete) {
    const uint32_t *ids;
    uint32_t nm = bnet_moves(b->net, b->role, &ids), n = 0;
    term_t *out = xmalloc((nm + 1) * sizeof *out);
    *complete = true;
    for (uint32_t i = 0; i < nm; i++) {
        pn_t a = legal_node(b, ids[i]);
        *complete &= a == PN_TRUE || a == PN_FALSE;
        if (a == PN_TRUE) out[n++] = bnet_move_term(b->net, ids[i]);
    }
    *moves = out;
    return n;
}

int bsmt_move_legal(bsmt_t *b, term_t move, double deadline) {
    term_t args[2] = {b->g->roles[b->role], move};
    uint32_t d = bnet_find(b->net, term_find(b->g->ts, SYM_DOES, args, 2));
    if (d == BNET_NONE) return 0;
    pn_t a = legal_node(b, d);
    if (a == PN_TRUE || a == PN_FALSE) return a == PN_TRUE;
    if (b->broken || decide(b, 0, NULL, deadline) != 1) return -1;
    pn_t neg = pn_not(b->c, a);
    int r = decide(b, 1, &neg, deadline);
    return r < 0 ? -1 : r == 0;
}

uint32_t bsmt_open_legal(bsmt_t *b) {
    const uint32_t *ids;
    uint32_t nm = bnet_moves(b->net, b->role, &ids), open = 0;
    for (uint32_t i = 0; i < nm; i++) {
        pn_t a = legal_node(b, ids[i]);
        open += a != PN_TRUE && a != PN_FALSE;
    }
    return open;
}

/* Whether move is among prefer[0..np). */
static bool preferred(const term_t *prefer, uint32_t np, term_t move) {
    for (uint32_t i = 0; i < np; i++)
        if (prefer[i] == move) return true;
    return false;
}

uint32_t bsmt_proved_legal(bsmt_t *b, const term_t *prefer, uint32_t np, double deadline,
                           term_t **moves, bool *complete) {
    const uint32_t *ids;
    uint32_t nm = bnet_moves(b->net, b->role, &ids), n = 0, decided = 0;
    term_t *out = xmalloc((nm + 1) * sizeof *out);
    *moves = out;
    *complete = false;
    for (uint32_t i = 0; i < nm; i++) { /* the known ones need no check */
        pn_t a = legal_node(b, ids[i]);
        decided += a == PN_TRUE || a == PN_FALSE;
        if (a == PN_TRUE) out[n++] = bnet_move_term(b->net, ids[i]);
    }
    /* an inconsistent history would prove every move: the checks need a consistent one */
    if (decided < nm && (b->broken || decide(b, 0, NULL, deadline) != 1)) return n;
    /* what the check's unit propagation fixed needs no check of its own */
    uint8_t *done = xcalloc(nm + 1, 1);
    for (uint32_t i = 0; i < nm; i++) {
        pn_t a = legal_node(b, ids[i]);
        int f = a == PN_TRUE || a == PN_FALSE ? -1 : sat_fixed(b->record, a);
        if (f < 0) continue;
        done[i] = 1;
        decided++;
        if (f == 1) out[n++] = bnet_move_term(b->net, ids[i]);
    }
    /* the preferred open moves first, then the others */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < nm; i++) {
            pn_t a = legal_node(b, ids[i]);
            term_t m = bnet_move_term(b->net, ids[i]);
            if (a == PN_TRUE || a == PN_FALSE || done[i] || preferred(prefer, np, m) != (pass == 0))
                continue;
            pn_t neg = pn_not(b->c, a); /* legal in every consistent world: refuted */
            int r = decide(b, 1, &neg, deadline);
            if (r < 0) continue; /* out of time: the moves proved so far */
            decided++;
            if (r == 0) out[n++] = m;
        }
    free(done);
    *complete = decided == nm;
    return n;
}

uint32_t bsmt_fixed_legal(bsmt_t *b, double deadline, term_t **moves, bool *checked) {
    const uint32_t *ids;
    uint32_t nm = bnet_moves(b->net, b->role, &ids), n = 0;
    term_t *out = xmalloc((nm + 1) * sizeof *out);
    *moves = out;
    /* the check propagates the steps given since the last one (its answer must be
     * "consistent": an inconsistent record fixes every node) */
    *checked = !b->broken && bsmt_open_legal(b) && decide(b, 0, NULL, deadline) == 1;
    for (uint32_t i = 0; i < nm; i++) {
        pn_t a = legal_node(b, ids[i]);
        int f = a == PN_TRUE ? 1 : a == PN_FALSE || !*checked ? 0 : sat_fixed(b->record, a);
        if (f == 1) out[n++] = bnet_move_term(b->net, ids[i]);
    }
    return n;
}

void bsmt_live(bsmt_t *b) {
    uint32_t term_id = bnet_terminal(b->net);
    if (b->live == b->step + 1 || term_id == BNET_NONE) return;
    b->live = b->step + 1;
    assert_node(b, pn_not(b->c, expr(b, &b->cur, term_id)));
}

static term_t sees_term(const bsmt_t *b, term_t percept) {
    term_t args[2] = {b->g->roles[b->role], percept};
    return term_find(b->g->ts, SYM_SEES, args, 2);
}

/* Keeps the step's possible moves (their nodes) for trajectories. */
static void remember_moves(bsmt_t *b) {
    for (uint32_t r = 0; r < b->g->n_roles; r++) {
        const uint32_t *ids;
        uint32_t nm = bnet_moves(b->net, r, &ids);
        for (uint32_t i = 0; i < nm; i++) {
            pn_t a = b->cur.memo[ids[i]];
            if (a == UNBUILT || a == PN_FALSE) continue;
            GROW(b->past, b->cap_past, b->n_past + 1);
            b->past[b->n_past++] =
                (struct past_move){b->step, r, bnet_move_term(b->net, ids[i]), a};
        }
    }
}

/* The derived atoms of a frame forgotten (built again on use): after a fluent or a move of
 * it became a constant, so that what depends on it folds too. */
static void unbuild_derived(bsmt_t *b, frame_t *f) {
    for (uint32_t id = 0; id < bnet_count(b->net); id++) {
        bnet_kind_t k = bnet_kind(b->net, id);
        if (k != BNET_FLUENT && k != BNET_DOES) f->memo[id] = UNBUILT;
    }
}

/* A node asserted with its value (a percept's: seen or not). */
typedef struct {
    pn_t node;
    bool val;
} unit_t;

static int cmp_unit(const void *x, const void *y) {
    pn_t a = ((const unit_t *)x)->node, c = ((const unit_t *)y)->node;
    return a < c ? -1 : a > c;
}

/* The value of node n when it is one of units[0..nu) (sorted), else -1. */
static int unit_value(const unit_t *units, uint32_t nu, pn_t n) {
    unit_t key = {n, false};
    const unit_t *u = nu ? bsearch(&key, units, nu, sizeof *units, cmp_unit) : NULL;
    return u ? u->val : -1;
}

/* The prepared step's next fluents folded again: after atoms of the step became constants
 * (its derived atoms forgotten), or nodes were asserted (units, sorted: a next fluent
 * defined by a percept's node, like a card dealt to us, takes its value). A next fluent
 * that folds becomes its constant, its variable asserted equal to it (the others keep
 * their variable and its definition); the next step's derived atoms, built on its fluents
 * alone, are forgotten when one folded. */
static void refold(bsmt_t *b, const unit_t *units, uint32_t nu) {
    bool folded = false;
    for (uint32_t i = 0; i < b->n_fluents; i++) {
        uint32_t fl = b->fluents[i], nx = bnet_next_of(b->net, fl);
        pn_t v = b->nxt.memo[fl];
        if (v == PN_TRUE || v == PN_FALSE || nx == BNET_NONE) continue;
        pn_t e = expr(b, &b->cur, nx);
        int val = e == PN_TRUE ? 1 : e == PN_FALSE ? 0 : unit_value(units, nu, e);
        if (val < 0) continue;
        assert_node(b, val ? v : pn_not(b->c, v));
        b->nxt.memo[fl] = val ? PN_TRUE : PN_FALSE;
        folded = true;
    }
    if (folded) unbuild_derived(b, &b->nxt);
}

/* Role r's move atoms in the current step: `chosen` true, the others false. */
static void fix_move(bsmt_t *b, uint32_t r, uint32_t chosen) {
    const uint32_t *ids;
    uint32_t nm = bnet_moves(b->net, r, &ids);
    for (uint32_t i = 0; i < nm; i++)
        b->cur.memo[ids[i]] = ids[i] == chosen ? PN_TRUE : PN_FALSE;
}

/* What the percepts decide (units[0..n): each percept's node and whether it was seen,
 * sorted here): a move or fluent of the prepared step whose node is a percept's becomes the
 * constant (tarok: every player sees each card played, so the play is known; a role's move
 * seen makes its others false), the step's derived atoms forgotten when one did. */
static void fix_seen(bsmt_t *b, unit_t *units, uint32_t n) {
    if (!n) return;
    qsort(units, n, sizeof *units, cmp_unit);
    bool changed = false;
    for (uint32_t id = 0; id < bnet_count(b->net); id++) {
        bnet_kind_t k = bnet_kind(b->net, id);
        pn_t m = b->cur.memo[id];
        if ((k != BNET_FLUENT && k != BNET_DOES) || m == UNBUILT || m == PN_TRUE || m == PN_FALSE)
            continue;
        int val = unit_value(units, n, m);
        if (val < 0) continue;
        b->cur.memo[id] = val ? PN_TRUE : PN_FALSE;
        changed = true;
    }
    for (uint32_t r = 0; changed && r < b->g->n_roles; r++) {
        const uint32_t *ids;
        uint32_t nm = bnet_moves(b->net, r, &ids);
        for (uint32_t i = 0; i < nm; i++)
            if (b->cur.memo[ids[i]] == PN_TRUE) fix_move(b, r, ids[i]);
    }
    if (changed) unbuild_derived(b, &b->cur);
}

uint32_t bsmt_feed(bsmt_t *b, const belief_obs_t *hist, uint32_t n, uint32_t *fed) {
    uint32_t bad = UINT32_MAX;
    for (; *fed < n; (*fed)++) {
        const belief_obs_t *o = &hist[*fed];
        if (!bsmt_observe(b, o->move, o->percepts, o->n_percepts) && bad == UINT32_MAX) bad = *fed;
    }
    return bad;
}

bool bsmt_observe(bsmt_t *b, term_t move, const term_t *percepts, uint32_t n) {
    frame_t *f = &b->cur;
    const term_store_t *ts = b->g->ts;
    uint32_t d = BNET_NONE;
    if (move != TERM_NONE) {
        term_t args[2] = {b->g->roles[b->role], move};
        d = bnet_find(b->net, term_find(ts, SYM_DOES, args, 2));
        if (d == BNET_NONE) b->broken = true;
    }
    /* our move (told, hence known) as constants, so that what follows from our own moves
     * folds (a cell we cleared, a card we played: the legal moves they decide are known
     * without a solver): before prepare builds the next step on it, or, when a query
     * prepared the step on our move's variables, forgotten and refolded below */
    bool was_prepared = b->prepared, own_late = d != BNET_NONE && was_prepared;
    if (d != BNET_NONE && !was_prepared) fix_move(b, b->role, d);
    prepare(b);
    bsmt_live(b); /* no step before the current one terminal */
    /* legal: prepare asserted does => legal */
    if (d != BNET_NONE) assert_node(b, expr(b, f, d));
    if (own_late) {
        fix_move(b, b->role, d);
        unbuild_derived(b, f);
    }
    for (uint32_t i = 0; i < n; i++)
        if (bnet_find(b->net, sees_term(b, percepts[i])) == BNET_NONE) b->broken = true;
    const uint32_t *ids;
    uint32_t ns = bnet_sees(b->net, b->role, &ids), nu = 0;
    unit_t *units = xmalloc((ns + 1) * sizeof *units);
    for (uint32_t i = 0; i < ns; i++) {
        pn_t s = expr(b, f, ids[i]);
        bool got = term_in(percepts, n, term_arg(ts, bnet_atom(b->net, ids[i]), 1));
        assert_node(b, got ? s : pn_not(b->c, s));
        if (s != PN_TRUE && s != PN_FALSE) units[nu++] = (unit_t){s, got};
    }
    fix_seen(b, units, nu);
    if (own_late || nu) refold(b, units, nu); /* once for both */
    free(units);
    remember_moves(b);
    frame_t old = b->cur;
    b->cur = b->nxt;
    b->nxt = old;
    memset(b->nxt.memo, 0xff, (bnet_count(b->net) + 1) * sizeof *b->nxt.memo);
    b->prepared = false;
    b->step++;
    return !b->broken;
}

static pn_t fluent_now(bsmt_t *b, uint32_t i) {
    return b->cur.memo[b->fluents[i]];
}

int bsmt_consistent(bsmt_t *b, double deadline) {
    if (b->broken) return 0;
    return check(b, 0, NULL, deadline);
}

int bsmt_entailed(bsmt_t *b, term_t fluent, double deadline) {
    if (b->broken) return -1;
    uint32_t id = bnet_find(b->net, term_find(b->g->ts, SYM_TRUE, &fluent, 1));
    if (check(b, 0, NULL, deadline) != 1) return -1;
    if (id == BNET_NONE) return 0;
    pn_t a = b->cur.memo[id];
    int cand = model_value(b, a, deadline);
    if (cand <= 0) return cand;
    pn_t neg = pn_not(b->c, a);
    int r = check(b, 1, &neg, deadline);
    return r < 0 ? -1 : r == 0;
}

/* Constraints of one query live in a solver scope (push/pop): retired clauses would
 * otherwise pile up over a match and slow every later check. */
uint32_t bsmt_entailed_all(bsmt_t *b, double deadline, term_t **out) {
    *out = NULL;
    if (b->broken || check(b, 0, NULL, deadline) != 1) return UINT32_MAX;
    uint32_t *cand = xmalloc((b->n_fluents + 1) * sizeof *cand), nc = 0;
    bool unread = false; /* a model could not be read: no answer */
    for (uint32_t i = 0; i < b->n_fluents && !unread; i++) {
        int v = model_value(b, fluent_now(b, i), deadline);
        unread = v < 0;
        if (v == 1) cand[nc++] = i;
    }
    pn_t *neg = xmalloc((b->n_fluents + 1) * sizeof *neg);
    while (nc && !unread) {
        for (uint32_t k = 0; k < nc; k++)
            neg[k] = pn_not(b->c, fluent_now(b, cand[k]));
        scope_push(b);
        assert_node(b, pn_or(b->c, neg, nc));
        int r = check(b, 0, NULL, deadline);
        if (r == 1) {
            uint32_t kept = 0;
            for (uint32_t k = 0; k < nc && !unread; k++) {
                int v = model_value(b, fluent_now(b, cand[k]), deadline);
                unread = v < 0;
                if (v == 1) cand[kept++] = cand[k];
            }
            nc = kept;
        }
        scope_pop(b);
        if (r != 1) {
            unread |= r != 0; /* gave up: the candidates are not proved */
            break;
        }
    }
    free(neg);
    if (unread) {
        free(cand);
        return UINT32_MAX;
    }
    term_t *res = xmalloc((nc + 1) * sizeof *res);
    for (uint32_t k = 0; k < nc; k++)
        res[k] = bnet_fluent_term(b->net, b->fluents[cand[k]]);
    qsort(res, nc, sizeof *res, cmp_u32);
    free(cand);
    *out = res;
    return nc;
}

/* The current state of the last model (CaDiCaL's when sat, else Z3's); the nodes of its fluent
 * literals into lits and of their negations into differ (the clause that excludes it). False when
 * the model could not be read (st is then not a state). */
static bool model_state(bsmt_t *b, state_t *st, pn_t *differ, pn_t *lits, bool sat,
                        double deadline) {
    st->n = 0;
    for (uint32_t i = 0; i < b->n_fluents; i++) {
        pn_t a = fluent_now(b, i);
        int v = sat ? sat_value(b->record, a) : model_value(b, a, deadline);
        if (v < 0) return false;
        bool t = v == 1;
        if (t) {
            if (st->n == st->cap) {
                st->cap = st->cap ? 2 * st->cap : 64;
                st->facts = xrealloc(st->facts, st->cap * sizeof *st->facts);
            }
            st->facts[st->n++] = bnet_fluent_term(b->net, b->fluents[i]);
        }
        pn_t na = pn_not(b->c, a);
        differ[i] = t ? na : a;
        lits[i] = t ? a : na;
    }
    state_normalise(st);
    return true;
}

/* Whether the state whose fluent literals are lits (model_state) is consistent: one
 * check with the unknown fluents as assumptions. A sample is a player's world, its legal
 * moves; after a check its timeout canceled Z3 4.8 once answered with an empty model
 * (every unknown fluent false, no legal moves): checks are no longer canceled (see
 * logic/z3.h), and samples are still checked. */
static bool state_consistent(bsmt_t *b, const pn_t *lits, const uint32_t *var, uint32_t nv,
                             pn_t *assume, double deadline) {
    for (uint32_t j = 0; j < nv; j++)
        assume[j] = lits[var[j]];
    return check(b, nv, assume, deadline) == 1;
}

/* Enumerates distinct states (random ones first when out is given) until k or none left,
 * each found state excluded by a clause of the query's scope. */
/* The current model's history into joints[step * n_roles + role]; false when a move of
 * some step is not read. */
static bool model_trajectory(bsmt_t *b, term_t *joints, double deadline) {
    uint32_t nr = b->g->n_roles;
    for (size_t i = 0; i < (size_t)b->step * nr; i++)
        joints[i] = TERM_NONE;
    bool ok = true;
    for (size_t i = 0; i < b->n_past && ok; i++) {
        const struct past_move *pm = &b->past[i];
        int v = model_value(b, pm->does, deadline);
        ok = v >= 0;
        if (v == 1) joints[(size_t)pm->step * nr + pm->role] = pm->move;
    }
    for (size_t i = 0; i < (size_t)b->step * nr && ok; i++)
        ok = joints[i] != TERM_NONE;
    return ok;
}

/* Up to k distinct consistent states (into out, when given) and the histories of their
 * models (into joints, when given: bsmt_step() * n_roles each); *all (when given) set
 * when they are every consistent state. */
static uint64_t enumerate(bsmt_t *b, uint64_t k, state_t *out, bool random, double deadline,
                          term_t *joints, bool *all) {
    if (all) *all = false;
    /* a scope's checks take the whole history: none before Z3 is abreast of it */
    if (b->broken || !b->n_fluents || !z3_abreast(b, deadline, BSMT_QUERY_CHUNKS)) return 0;
    size_t per = (size_t)b->step * b->g->n_roles;
    bool exhausted = false;
    pn_t *differ = xmalloc(b->n_fluents * sizeof *differ);
    pn_t *lits = xmalloc(2 * b->n_fluents * sizeof *lits); /* and assumptions */
    pn_t assume[4];
    state_t tmp;
    state_init(&tmp);
    uint64_t found = 0;
    /* random phases on the fluents unknown at this step only: Z3 answers "unknown" to
     * an assumption that is a constant (a known fluent), which failed the sample */
    uint32_t *var = xmalloc((b->n_fluents + 1) * sizeof *var), nv = 0;
    for (uint32_t i = 0; i < b->n_fluents; i++)
        if (known(&b->cur, b->fluents[i]) < 0) var[nv++] = i;
    scope_push(b);
    /* no unknown fluent: one state only; past the deadline, the states found so far */
    while (found < k && (nv || !found) && !(found && deadline > 0 && now_seconds() > deadline)) {
        uint32_t na = 0;
        for (int j = 0; random && nv && j < 4; j++) {
            pn_t a = fluent_now(b, var[splitmix_next(&b->rng) % nv]);
            assume[na++] = splitmix_next(&b->rng) & 1 ? a : pn_not(b->c, a);
        }
        int r;
        while ((r = check(b, na, assume, deadline)) == 0 && na > 0)
            na--;
        if (r != 1) {
            exhausted = r == 0;
            break;
        }
        bool read = model_state(b, out ? &out[found] : &tmp, differ, lits, false, deadline);
        if (read && joints) read = model_trajectory(b, joints + found * per, deadline);
        /* a sample is checked (the player's, under a deadline); counting is not */
        if (!read || (out && !state_consistent(b, lits, var, nv, lits + b->n_fluents, deadline)))
            break;
        found++;
        assert_node(b, pn_or(b->c, differ, b->n_fluents));
    }
    if (all) *all = exhausted || (!nv && found);
    scope_pop(b);
    state_fini(&tmp);
    free(differ);
    free(lits);
    free(var);
    return found;
}

uint32_t bsmt_sample(bsmt_t *b, uint32_t k, double deadline, state_t *out) {
    return (uint32_t)enumerate(b, k, out, true, deadline, NULL, NULL);
}

uint32_t bsmt_sample_histories(bsmt_t *b, uint32_t k, double deadline, state_t *out, term_t *joints,
                               bool *all) {
    return (uint32_t)enumerate(b, k, out, true, deadline, joints, all);
}

bool bsmt_any(bsmt_t *b, double deadline, state_t *out) {
    return enumerate(b, 1, out, false, deadline, NULL, NULL) == 1;
}

bool bsmt_any_sat(bsmt_t *b, double deadline, state_t *out) {
    if (b->broken || sat_check(b->record, NULL, 0, deadline) != 1) return false;
    pn_t *lits = xmalloc(2 * (b->n_fluents + 1) * sizeof *lits);
    bool read = model_state(b, out, lits, lits + b->n_fluents, true, 0);
    free(lits);
    return read;
}

bool bsmt_sat_model(bsmt_t *b, state_t *out) {
    pn_t *lits = xmalloc(2 * (b->n_fluents + 1) * sizeof *lits);
    bool read = !b->broken && model_state(b, out, lits, lits + b->n_fluents, true, 0);
    free(lits);
    return read;
}

uint32_t bsmt_sample_sat(bsmt_t *b, uint32_t k, double deadline, state_t *out) {
    if (b->broken || !k) return 0;
    uint32_t *var = xmalloc((b->n_fluents + 1) * sizeof *var), nv = 0, found = 0;
    for (uint32_t i = 0; i < b->n_fluents; i++)
        if (known(&b->cur, b->fluents[i]) < 0) var[nv++] = i;
    pn_t *lits = xmalloc(2 * (b->n_fluents + 1) * sizeof *lits), assume[4];
    /* random phases on unknown fluents, fewer while unsatisfiable; a repeated state is
     * not counted (no clause excludes it: the record takes no retractable clause) */
    for (uint32_t tries = 0; found < k && tries < 4 * k; tries++) {
        uint32_t na = 0;
        for (; nv && na < 4; na++) {
            pn_t a = fluent_now(b, var[splitmix_next(&b->rng) % nv]);
            assume[na] = splitmix_next(&b->rng) & 1 ? a : pn_not(b->c, a);
        }
        int r;
        while ((r = sat_check(b->record, assume, na, deadline)) == 0 && na > 0)
            na--;
        if (r != 1 || !model_state(b, &out[found], lits, lits + b->n_fluents, true, 0)) break;
        bool seen = false;
        for (uint32_t j = 0; j < found && !seen; j++)
            seen = state_equal(&out[j], &out[found]);
        found += !seen;
        if (!nv) break; /* one state only */
    }
    free(var);
    free(lits);
    return found;
}

uint64_t bsmt_count(bsmt_t *b, uint64_t cap, double deadline) {
    return enumerate(b, cap, NULL, false, deadline, NULL, NULL);
}

/* The query "move wins": its nodes {does(move) now, not (terminal and goal(us, 100)) next}
 * into q (unsatisfiable together: a win in every consistent outcome); false when the game
 * or the move has no such atoms (the move cannot win). */
static bool win_query(bsmt_t *b, term_t move, pn_t *q) {
    prepare(b);
    const term_store_t *ts = b->g->ts;
    term_t args[2] = {b->g->roles[b->role], move};
    uint32_t d = bnet_find(b->net, term_find(ts, SYM_DOES, args, 2));
    term_t hundred = term_const(b->g->ts, term_intern(b->g->ts, "100", 3));
    term_t gargs[2] = {b->g->roles[b->role], hundred};
    uint32_t goal = bnet_find(b->net, term_find(ts, SYM_GOAL, gargs, 2));
    uint32_t term_id = bnet_terminal(b->net);
    if (d == BNET_NONE || goal == BNET_NONE || term_id == BNET_NONE) return false;
    /* the next step's goal and terminal, built in the next frame (no moves needed) */
    pn_t both[2] = {expr(b, &b->nxt, term_id), expr(b, &b->nxt, goal)};
    q[0] = expr(b, &b->cur, d);
    q[1] = pn_not(b->c, pn_and(b->c, both, 2));
    return true;
}

/* CaDiCaL's "unsatisfiable" for the assertions and assume[0..n) (decide), a proof the
 * caller acts on, confirmed by Z3: 1 confirmed; -1 (unknown) when it is not in time or Z3
 * finds the assumptions satisfiable (reported: one of the two solvers is wrong, and the
 * proof is not used). */
static int confirmed(bsmt_t *b, const pn_t *assume, uint32_t n, double deadline, term_t move) {
    double t0 = now_seconds();
    int r = check(b, n, assume, deadline);
    b->proofs.seconds += now_seconds() - t0;
    if (r == 0) return b->proofs.confirmed++, 1;
    if (r < 0) return b->proofs.unconfirmed++, -1;
    b->proofs.refuted++;
    strbuf_t sb;
    sb_init(&sb);
    term_print(b->g->ts, move, &sb);
    fprintf(stderr,
            "bsmt: BUG: CaDiCaL proved that %s wins at step %u, Z3 refutes it: "
            "the proof is not used\n",
            sb_str(&sb), b->step);
    sb_fini(&sb);
    return -1;
}

void bsmt_test_false_win(bsmt_t *b, term_t move) {
    pn_t w[2];
    if (!win_query(b, move, w)) return;
    /* into the record alone (CaDiCaL decides): playing move ends the game with our win */
    pn_t two[2] = {pn_not(b->c, w[0]), pn_not(b->c, w[1])};
    sat_record_assert(b->record, pn_or(b->c, two, 2));
}

bool bsmt_sync_proofs(bsmt_t *b, double deadline) {
    return sat_record_sync(b->record, deadline);
}

bsmt_proofs_t bsmt_proofs(const bsmt_t *b) {
    return b->proofs;
}

int bsmt_move_wins(bsmt_t *b, term_t move, double deadline) {
    pn_t assume[2];
    if (b->broken) return -1;
    if (!win_query(b, move, assume)) return 0;
    if (decide(b, 1, assume, deadline) != 1) return -1;
    int r = decide(b, 2, assume, deadline);
    if (r != 0) return r < 0 ? -1 : 0;
    return confirmed(b, assume, 2, deadline, move);
}

/* Our goal value atoms, with their values. */
static uint32_t goal_atoms(bsmt_t *b, uint32_t *ids, int *vals, uint32_t cap) {
    const term_store_t *ts = b->g->ts;
    uint32_t n = 0;
    for (uint32_t i = 0; i < bnet_count(b->net) && n < cap; i++) {
        term_t t = bnet_atom(b->net, i);
        if (t == TERM_NONE || term_kind(ts, t) != TERM_FUN || term_sym(ts, t) != SYM_GOAL ||
            term_arity(ts, t) != 2 || term_arg(ts, t, 0) != b->g->roles[b->role])
            continue;
        ids[n] = i;
        vals[n++] = atoi(term_sym_name(ts, term_sym(ts, term_arg(ts, t, 1))));
    }
    return n;
}

/* The next state is terminal with our goal below 100 (no goal 100 atom true), and no goal
 * value of ours is defined now (else a lower value is what counts: see the pairs). */
static pn_t ends_below_100(bsmt_t *b, uint32_t term_id, const uint32_t *ids, const int *vals,
                           uint32_t n) {
    pn_t *all = xmalloc((2 * n + 1) * sizeof *all);
    uint32_t k = 0;
    all[k++] = expr(b, &b->nxt, term_id);
    for (uint32_t i = 0; i < n; i++) {
        all[k++] = pn_not(b->c, expr(b, &b->cur, ids[i]));
        if (vals[i] == 100) all[k++] = pn_not(b->c, expr(b, &b->nxt, ids[i]));
    }
    pn_t r = pn_and(b->c, all, k);
    free(all);
    return r;
}

int bsmt_moves_risky(bsmt_t *b, const term_t *moves, uint32_t n_moves, double deadline) {
    if (b->broken) return -1;
    prepare(b);
    pn_t *played = xmalloc((n_moves + 1) * sizeof *played);
    uint32_t np = 0;
    for (uint32_t i = 0; i < n_moves; i++) {
        term_t args[2] = {b->g->roles[b->role], moves[i]};
        uint32_t d = bnet_find(b->net, term_find(b->g->ts, SYM_DOES, args, 2));
        if (d != BNET_NONE) played[np++] = expr(b, &b->cur, d);
    }
    uint32_t ids[128];
    int vals[128];
    uint32_t n = goal_atoms(b, ids, vals, 128), nd = 0;
    pn_t *bad = xmalloc((n * n + 2) * sizeof *bad);
    uint32_t term_id = bnet_terminal(b->net);
    if (term_id != BNET_NONE) bad[nd++] = ends_below_100(b, term_id, ids, vals, n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            if (vals[i] > vals[j]) {
                pn_t pair[2] = {expr(b, &b->cur, ids[i]), expr(b, &b->nxt, ids[j])};
                bad[nd++] = pn_and(b->c, pair, 2);
            }
    int res = 0;
    if (nd && np) {
        pn_t assume[2] = {pn_or(b->c, played, np), pn_or(b->c, bad, nd)};
        res = decide(b, 2, assume, deadline);
    }
    free(bad);
    free(played);
    return res;
}

int bsmt_move_risky(bsmt_t *b, term_t move, double deadline) {
    return bsmt_moves_risky(b, &move, 1, deadline);
}

bool bsmt_trajectory(bsmt_t *b, double deadline, term_t *joints) {
    if (b->broken || check(b, 0, NULL, deadline) != 1) return false;
    return model_trajectory(b, joints, deadline);
}

uint32_t bsmt_step(const bsmt_t *b) {
    return b->step;
}

z3_stats_t bsmt_stats(const bsmt_t *b) {
    return z3_stats(b->z);
}
