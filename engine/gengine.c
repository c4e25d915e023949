/* The ground backends: states are bitsets of fluent ids, the network (or its compiled
 * code) evaluated over one byte per node. The state blocks are evaluated once per state
 * asked about, the move blocks once per (state, joint move); a playout allocates nothing. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/keyset.h"
#include "base/rng.h"
#include "engine/backend.h"
#include "engine/cgen.h"
#include "engine/compile.h"
#include "engine/prop.h"
#include "engine/race.h"
#include "engine/reason.h"

typedef struct {
    engine_t base;
    gnet_t *net;
    bool owns;        /* the network: the first engine made on it */
    netcode_t *code;  /* the compiled code (a reference), NULL: none */
    bool pending;     /* code still being made: switch to it once ready (switch_code) */
    bool race;        /* code kept only where it beats the network (decide_code) */
    gnet_kernels_t k; /* all NULL: the network interpreter */
    prop_t *prop;     /* change-driven propagation (ground engines on acyclic networks) */
    bool goals_valid; /* the goal blocks are evaluated for the loaded state */
    uint8_t *vals;
    uint64_t *zobrist; /* per fluent */
    uint64_t *cur;     /* the state whose state blocks are in vals */
    uint64_t *prev;    /* scratch: the state before */
    uint64_t *next;    /* scratch: the successor's words (store_next) */
    bool cur_valid, move_valid;
    uint32_t *joint_ids; /* per role: the move whose input is set (GNET_NONE: none) */
    term_t **legal_buf;
    term_t *sees_buf;
    uint32_t sees_cap;
    term_t *goal_buf;    /* the goal values of one role that hold (more than one: a defect) */
    keyset_t *moves;     /* per role: the move terms, numbered by move index */
    keyset_t fluents;    /* the fluent terms, numbered by fluent id */
    eng_state_t *hooked; /* the state a playout's hook reads in the compiled loop (lazily) */
    /* query nodes (hybrid grounding): the rules evaluator that answers them, the state in
     * terms it is given */
    reasoner_t *rules;
    state_t qstate;
    bool *qgoal; /* per query: only goal blocks read it (asked when goals are) */
    uint32_t n_goal_queries;
    bool goal_queries_valid; /* those are asked for the loaded state */
} gengine_t;

static const engine_ops_t gengine_ops;

/* A term's number in a set, GNET_NONE when it is not there. */
static uint32_t number_of(const keyset_t *set, term_t t) {
    uint32_t i = keyset_find(set, t);
    return i == UINT32_MAX ? GNET_NONE : i;
}

/* The set of n distinct terms, numbered as listed. */
static void number_terms(keyset_t *set, const term_t *terms, uint32_t n) {
    keyset_init(set);
    for (uint32_t i = 0; i < n; i++)
        if (keyset_add(set, terms[i]) != i) /* the grounder lists each once: a bug, not input */
            die("gengine: a term listed twice in the network");
}

static gengine_t *G(engine_t *e) {
    return (gengine_t *)e;
}

/* With propagation the values always follow the inputs: the evaluations are no-ops. */
static void eval_play(gengine_t *ge) {
    if (ge->prop) return;
    if (ge->k.play)
        ge->k.play(ge->vals);
    else
        gnet_eval(ge->net, ge->vals, 0, ge->net->n_play_blocks);
    ge->move_valid = false;
    ge->goals_valid = false;
}

static void eval_queries(gengine_t *ge, bool goals);

static void eval_goals(gengine_t *ge) {
    if (ge->n_goal_queries && !ge->goal_queries_valid) {
        eval_queries(ge, true);
        ge->goal_queries_valid = true;
        ge->goals_valid = false;
    }
    if (ge->goals_valid || ge->prop) return;
    if (ge->k.goals)
        ge->k.goals(ge->vals);
    else
        gnet_eval(ge->net, ge->vals, ge->net->n_play_blocks, ge->net->n_state_blocks);
    ge->goals_valid = true;
}

/* The query nodes' values on the state in the fluent inputs, from the rules evaluator
 * (each atom asked with its arguments bound, reason_holds): those the play and move blocks read
 * when the state changes, before the play blocks are evaluated; those only goals read (goals) when
 * goals are. */
static void eval_queries(gengine_t *ge, bool goals) {
    const gnet_t *net = ge->net;
    if (!goals) ge->goal_queries_valid = false;
    if (!net->n_queries || (goals ? ge->n_goal_queries : net->n_queries - ge->n_goal_queries) == 0)
        return;
    state_t *st = &ge->qstate;
    st->n = 0;
    for (uint32_t f = 0; f < net->n_fluents; f++)
        if (ge->vals[net->fluent_node[f]]) state_push(st, net->fluent_term[f]);
    state_normalise(st);
    for (uint32_t q = 0; q < net->n_queries; q++) {
        if (ge->qgoal[q] != goals) continue;
        uint8_t v = reason_holds(ge->rules, st, net->atom[net->query_node[q]]);
        if (ge->prop)
            prop_set(ge->prop, net->query_node[q], v);
        else
            ge->vals[net->query_node[q]] = v;
    }
}

/* Each fluent input takes its next value: the successor state, without packing it. */
static void advance(gengine_t *ge) {
    if (ge->prop)
        prop_advance(ge->prop);
    else if (ge->k.advance)
        ge->k.advance(ge->vals);
    else /* inputs 0..nf-1, next nodes nf..2nf-1 */
        memcpy(ge->vals, ge->vals + ge->net->n_fluents, ge->net->n_fluents);
    eval_queries(ge, false);
}

/* Node values are bytes 0 or 1: the sum of 8 of them, by one multiplication (the top
 * byte of w * 0x0101..01 adds all bytes; no popcount instruction needed). */
static inline uint32_t sum8(uint64_t w) {
    return (uint32_t)((w * 0x0101010101010101ull) >> 56);
}

static inline uint64_t load8(const uint8_t *v, uint32_t left) {
    uint64_t w;
    memcpy(&w, v, 8); /* vals has 8 bytes of padding past its last node */
    return left >= 8 ? w : w & ((1ull << (8 * left)) - 1);
}

static uint32_t count_ones(const uint8_t *v, uint32_t n) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i += 8)
        c += sum8(load8(v + i, n - i));
    return c;
}

/* The index of the j-th (from 0) byte set among v[0..n). */
static uint32_t nth_one(const uint8_t *v, uint32_t n, uint32_t j) {
    uint32_t i = 0;
    for (;; i += 8) {
        uint32_t c = sum8(load8(v + i, n - i));
        if (j < c) break;
        j -= c;
    }
    for (;; i++)
        if (v[i] && j-- == 0) return i;
}

/* The code's kernels; with query nodes (hybrid grounding) only the phases: the engine sets
 * the queries' values between them, which a loop or an evaluation from the state before
 * inside the code would not see. */
static gnet_kernels_t kernels(const gnet_t *net, netcode_t *code) {
    gnet_kernels_t k = *netcode_kernels(code);
    if (net->n_queries) k.playout = NULL, k.play_from = NULL;
    return k;
}

static engine_t *make(game_t *g, gnet_t *net, netcode_t *code, bool race, double seconds);

/* The race of ready code against the network, `seconds` in all (race.h), by two engines
 * borrowing ge's network: once per code, by the first engine on it to get there. */
static void race_code(gengine_t *ge, double seconds) {
    engine_t *on_code = make(ge->base.g, ge->net, netcode_ref(ge->code), false, 0);
    engine_t *on_net = make(ge->base.g, ge->net, NULL, false, 0);
    G(on_code)->owns = G(on_net)->owns = false;
    uint64_t nc, nn;
    double rc = race_rate(on_code, seconds / 2, &nc), rn = race_rate(on_net, seconds / 2, &nn);
    engine_free(on_code), engine_free(on_net);
    netcode_decide(ge->code, rc, rn, nc >= RACE_MIN_STEPS && nn >= RACE_MIN_STEPS);
}

/* Whether ge takes its ready code (else it stays on the network: the code is dropped
 * when it lost the race, kept pending while another engine races it). Without time to
 * race (seconds 0) the code is taken and nothing decided. */
static bool decide_code(gengine_t *ge, double seconds) {
    double rc, rn;
    if (!ge->race || seconds <= 0) return true;
    if (!netcode_verdict(ge->code, &rc, &rn)) {
        if (!netcode_claim_race(ge->code)) return false;
        race_code(ge, seconds);
        netcode_verdict(ge->code, &rc, &rn);
    }
    if (race_keeps_code(rc, rn)) return true;
    ge->pending = false;
    FREE_AND_NULL(netcode_unref, ge->code);
    return false;
}

/* The race when code made in the background gets ready: inside a search's turn, on its
 * thread, whose deadline the engine does not know, so short (a quarter of a 1 s play clock;
 * chess's code still plays ~150 steps in it, more than RACE_MIN_STEPS). None on a network
 * with query nodes: the race's engines would each make a reasoner (reason_new) on the
 * game's term store, which another search thread may be writing; the code is taken. */
#define SWITCH_RACE_SECONDS 0.25

static double switch_race_seconds(const gengine_t *ge) {
    return ge->net->n_queries ? 0 : SWITCH_RACE_SECONDS;
}

/* Code made in the background and now ready: the kernels replace the network
 * interpreter (the node values are recomputed from the inputs on the next call) where the
 * race keeps it; code that failed leaves the network interpreter for good. Between calls,
 * so that a call sees one evaluator. */
static void switch_code(gengine_t *ge) {
    netcode_state_t st = netcode_state(ge->code);
    if (st == NETCODE_BUSY) return;
    if (st == NETCODE_FAILED) {
        ge->pending = false;
        FREE_AND_NULL(netcode_unref, ge->code);
        return;
    }
    if (!decide_code(ge, switch_race_seconds(ge))) return;
    ge->pending = false;
    ge->k = kernels(ge->net, ge->code);
    FREE_AND_NULL(prop_free, ge->prop);
    ge->cur_valid = ge->move_valid = ge->goals_valid = false;
    ge->base.kind = ENGINE_COMPILED;
    ge->base.compile_seconds = netcode_seconds(ge->code);
}

static inline void check_code(gengine_t *ge) {
    if (ge->pending) switch_code(ge);
}

/* Loads a state into the fluent inputs and evaluates the play blocks; prev (NULL: none):
 * the state whose play blocks the values hold, compiled code then evaluating only what
 * changed. */
static void load_state(gengine_t *ge, const uint64_t *bits, const uint64_t *prev) {
    const gnet_t *net = ge->net;
    if (ge->prop) {
        for (uint32_t f = 0; f < net->n_fluents; f++)
            prop_set(ge->prop, net->fluent_node[f], (bits[f >> 6] >> (f & 63)) & 1);
        eval_queries(ge, false);
        return;
    }
    if (prev) /* the inputs hold prev (set_state's cur): only the fluents that differ */
        for (uint32_t w = 0; w < ge->base.n_words; w++)
            for (uint64_t d = bits[w] ^ prev[w]; d; d &= d - 1) {
                uint32_t f = (w << 6) | (uint32_t)__builtin_ctzll(d);
                ge->vals[net->fluent_node[f]] = (bits[w] >> (f & 63)) & 1;
            }
    else
        for (uint32_t f = 0; f < net->n_fluents; f++)
            ge->vals[net->fluent_node[f]] = (bits[f >> 6] >> (f & 63)) & 1;
    eval_queries(ge, false);
    if (!prev || !ge->k.play_from) {
        eval_play(ge);
        return;
    }
    ge->k.play_from(ge->vals, prev);
    ge->move_valid = ge->goals_valid = false;
}

/* The bytes (0 or 1) of 8 nodes as 8 bits, byte i to bit i: the multiplication moves
 * byte i's low bit to bit 56 + i, and no two of its partial products meet. */
static inline uint64_t pack8(uint64_t w) {
    return (w * 0x0102040810204080ull) >> 56;
}

/* The values of nodes first + 64 w .. first + 64 w + 63 of the fluents' numbering as a state
 * word: first 0 the fluent inputs, n_fluents their next nodes (ground.h's numbering). */
static uint64_t fluents_word(const gengine_t *ge, uint32_t first, uint32_t w) {
    uint32_t nf = ge->net->n_fluents;
    uint64_t b = 0;
    for (uint32_t f = 64 * w; f < nf && f < 64 * w + 64; f += 8)
        b |= pack8(load8(ge->vals + first + f, nf - f)) << (f & 63);
    return b;
}

static uint64_t words_hash(const gengine_t *ge, const uint64_t *bits);

/* The state in the fluent inputs, packed into s. */
static void store_inputs(gengine_t *ge, eng_state_t *s) {
    for (uint32_t w = 0; w < ge->base.n_words; w++)
        s->bits[w] = fluents_word(ge, 0, w);
    s->hash = words_hash(ge, s->bits);
}

static void set_state(gengine_t *ge, const eng_state_t *s) {
    check_code(ge);
    size_t bytes = ge->base.n_words * sizeof *s->bits;
    if (ge->cur_valid && memcmp(ge->cur, s->bits, bytes) == 0) return;
    uint64_t *prev = ge->cur_valid ? ge->prev : NULL;
    if (prev) memcpy(prev, ge->cur, bytes);
    memcpy(ge->cur, s->bits, bytes);
    ge->cur_valid = true;
    load_state(ge, s->bits, prev);
}

/* Sets the move inputs of a joint move (move indices per role) and evaluates the move
 * blocks. */
static void load_joint(gengine_t *ge, const uint32_t *ids) {
    const gnet_t *net = ge->net;
    if (ge->prop) {
        for (uint32_t r = 0; r < net->n_roles; r++) {
            uint32_t old = ge->joint_ids[r];
            if (old != GNET_NONE && net->move_node[r][old] != GNET_NONE)
                prop_set(ge->prop, net->move_node[r][old], 0);
        }
        for (uint32_t r = 0; r < net->n_roles; r++) {
            ge->joint_ids[r] = ids[r];
            if (ids[r] != GNET_NONE && net->move_node[r][ids[r]] != GNET_NONE)
                prop_set(ge->prop, net->move_node[r][ids[r]], 1);
        }
        ge->move_valid = true;
        return;
    }
    for (uint32_t r = 0; r < net->n_roles; r++) {
        uint32_t old = ge->joint_ids[r];
        if (old != GNET_NONE && net->move_node[r][old] != GNET_NONE)
            ge->vals[net->move_node[r][old]] = 0;
        ge->joint_ids[r] = ids[r];
        if (ids[r] != GNET_NONE && net->move_node[r][ids[r]] != GNET_NONE)
            ge->vals[net->move_node[r][ids[r]]] = 1;
    }
    if (ge->k.move)
        ge->k.move(ge->vals, ge->joint_ids); /* GNET_NONE: past every role's moves */
    else
        gnet_eval(net, ge->vals, net->n_state_blocks, net->n_blocks);
    ge->move_valid = true;
}

static void set_joint(gengine_t *ge, const term_t *joint) {
    uint32_t nr = ge->net->n_roles;
    bool same = ge->move_valid;
    uint32_t ids[64], *idp = nr <= 64 ? ids : xmalloc(nr * sizeof *idp);
    for (uint32_t r = 0; r < nr; r++) {
        idp[r] = number_of(&ge->moves[r], joint[r]);
        same = same && idp[r] == ge->joint_ids[r];
    }
    if (!same) load_joint(ge, idp);
    if (idp != ids) free(idp);
}

/* The successor of the loaded state s and joint move into out (out may be s): a word at a
 * time, the hash s's with the fluents that change toggled (the few of a step, not every
 * one that holds). */
static void store_next(gengine_t *ge, const eng_state_t *s, eng_state_t *out) {
    uint64_t h = s->hash, *next = ge->next;
    if (ge->k.next_bits) /* the code's packer (vector instructions where the CPU has them) */
        ge->k.next_bits(ge->vals, next); /* its words; the rest stay 0 */
    else
        for (uint32_t w = 0; w < ge->base.n_words; w++)
            next[w] = fluents_word(ge, ge->net->n_fluents, w);
    for (uint32_t w = 0; w < ge->base.n_words; w++) {
        uint64_t b = next[w];
        for (uint64_t d = b ^ s->bits[w]; d; d &= d - 1)
            h ^= ge->zobrist[64 * w + (uint32_t)__builtin_ctzll(d)];
        out->bits[w] = b;
    }
    out->hash = h;
    assert(h == words_hash(ge, out->bits));
}

static void g_initial(engine_t *e, eng_state_t *out) {
    const gnet_t *net = G(e)->net;
    memset(out->bits, 0, e->n_words * sizeof *out->bits);
    out->hash = 0;
    for (uint32_t i = 0; i < net->n_init; i++) {
        uint32_t f = net->init[i];
        if (out->bits[f >> 6] >> (f & 63) & 1) continue;
        out->bits[f >> 6] |= 1ull << (f & 63);
        out->hash ^= G(e)->zobrist[f];
    }
}

static bool g_terminal(engine_t *e, const eng_state_t *s) {
    gengine_t *ge = G(e);
    if (ge->net->terminal == GNET_NONE) return false;
    set_state(ge, s);
    return ge->vals[ge->net->terminal];
}

static uint32_t g_legal(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **moves) {
    gengine_t *ge = G(e);
    const gnet_t *net = ge->net;
    set_state(ge, s);
    /* the legal nodes are contiguous bytes 0 or 1 (ground.h): 8 at a time, a step per move
     * that holds rather than a test per move */
    const uint8_t *lv = ge->vals + net->legal_first[role];
    const term_t *mt = net->move_term[role];
    term_t *buf = ge->legal_buf[role];
    uint32_t nm = net->n_moves[role], n = 0;
    for (uint32_t i = 0; i < nm; i += 8)
        for (uint64_t x = load8(lv + i, nm - i); x; x &= x - 1)
            buf[n++] = mt[i + (uint32_t)__builtin_ctzll(x) / 8];
    *moves = buf;
    return n;
}

static bool g_is_legal(engine_t *e, const eng_state_t *s, uint32_t role, term_t move) {
    gengine_t *ge = G(e);
    uint32_t k = number_of(&ge->moves[role], move);
    if (k == GNET_NONE) return false;
    set_state(ge, s);
    return ge->vals[ge->net->legal_node[role][k]];
}

static uint32_t g_goals(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **values) {
    gengine_t *ge = G(e);
    const gnet_t *net = ge->net;
    set_state(ge, s);
    eval_goals(ge);
    uint32_t n = 0;
    for (uint32_t k = 0; k < net->n_goals[role]; k++)
        if (ge->vals[net->goals[role][k].node]) ge->goal_buf[n++] = net->goals[role][k].term;
    *values = ge->goal_buf;
    return n;
}

/* The highest goal value of the role that holds (-1: none), from the network's numbers:
 * no term store read, so a search thread may ask while another thread uses the store. */
static int g_goal_value(engine_t *e, const eng_state_t *s, uint32_t role) {
    gengine_t *ge = G(e);
    const gnet_t *net = ge->net;
    set_state(ge, s);
    eval_goals(ge);
    int v = -1;
    for (uint32_t k = 0; k < net->n_goals[role]; k++)
        if (ge->vals[net->goals[role][k].node] && net->goals[role][k].value > v)
            v = net->goals[role][k].value;
    return v;
}

static void g_next(engine_t *e, const eng_state_t *s, const term_t *joint, eng_state_t *out) {
    gengine_t *ge = G(e);
    set_state(ge, s);
    set_joint(ge, joint);
    store_next(ge, s, out);
}

static uint32_t g_sees(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t role,
                       const term_t **percepts) {
    gengine_t *ge = G(e);
    const gnet_t *net = ge->net;
    set_state(ge, s);
    set_joint(ge, joint);
    uint32_t n = 0;
    for (uint32_t k = 0; k < net->n_sees[role]; k++)
        if (ge->vals[net->sees[role][k].node]) ge->sees_buf[n++] = net->sees[role][k].term;
    *percepts = ge->sees_buf;
    return n;
}

static void g_to_terms(engine_t *e, const eng_state_t *s, state_t *out) {
    const gnet_t *net = G(e)->net;
    out->n = 0;
    for (uint32_t f = 0; f < net->n_fluents; f++)
        if (s->bits[f >> 6] >> (f & 63) & 1) {
            if (out->n == out->cap) {
                out->cap = out->cap ? 2 * out->cap : 16;
                out->facts = xrealloc(out->facts, out->cap * sizeof *out->facts);
            }
            out->facts[out->n++] = net->fluent_term[f];
        }
    state_normalise(out);
}

/* Fluents outside the reachable set cannot be represented: no reachable state has them. */
static void g_from_terms(engine_t *e, eng_state_t *s, const state_t *in) {
    gengine_t *ge = G(e);
    memset(s->bits, 0, e->n_words * sizeof *s->bits);
    s->hash = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        uint32_t f = number_of(&ge->fluents, in->facts[i]);
        if (f == GNET_NONE || (s->bits[f >> 6] >> (f & 63) & 1)) continue;
        s->bits[f >> 6] |= 1ull << (f & 63);
        s->hash ^= ge->zobrist[f];
    }
}

/* A playout's hook in the compiled loop: the loop's words become a state of the engine
 * (not the playout's own: the loop holds its words apart until it ends). */
typedef struct {
    gengine_t *ge;
    engine_playout_hook_t hook;
    void *ctx;
    bool stopped;
} hooked_t;

static uint64_t words_hash(const gengine_t *ge, const uint64_t *bits) {
    uint64_t h = 0;
    for (uint32_t k = 0; k < ge->base.n_words; k++)
        for (uint64_t x = bits[k]; x; x &= x - 1)
            h ^= ge->zobrist[64 * k + (uint32_t)__builtin_ctzll(x)];
    return h;
}

static int on_words(void *ctx, const uint64_t *w) {
    hooked_t *h = ctx;
    eng_state_t *t = h->ge->hooked;
    memcpy(t->bits, w, (h->ge->net->n_fluents / 64 + 1) * sizeof *w); /* the loop's NW */
    t->hash = words_hash(h->ge, t->bits);
    return h->stopped = h->hook(h->ctx, t);
}

/* The compiled playout loop (every move input off first) on s's bits, which become the
 * final state's. */
static uint32_t compiled_playout(gengine_t *ge, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                                 hooked_t *hk) {
    const gnet_t *net = ge->net;
    for (uint32_t r = 0; r < net->n_roles; r++) {
        uint32_t old = ge->joint_ids[r];
        if (old != GNET_NONE && net->move_node[r][old] != GNET_NONE)
            ge->vals[net->move_node[r][old]] = 0;
        ge->joint_ids[r] = GNET_NONE;
    }
    ge->move_valid = ge->goals_valid = false;
    if (hk && !ge->hooked) ge->hooked = engine_state_new(&ge->base);
    const uint64_t *prev = ge->cur_valid ? ge->cur : NULL;
    uint32_t steps =
        ge->k.playout(ge->vals, s->bits, prev, &rng->s, max_steps, hk ? on_words : NULL, hk);
    s->hash = words_hash(ge, s->bits);
    return steps;
}

/* The playout keeps the state in the fluent inputs from step to step (advance) and
 * packs it once at the end. */
static uint32_t g_playout(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                          int *goals, engine_playout_hook_t hook, void *ctx, bool *stopped) {
    gengine_t *ge = G(e);
    const gnet_t *net = ge->net;
    uint32_t nr = net->n_roles, steps = 0;
    uint32_t *pick = ge->joint_ids + nr; /* scratch beside joint_ids */
    hooked_t hk = {.ge = ge, .hook = hook, .ctx = ctx};
    check_code(ge);
    if (ge->k.playout)
        steps = compiled_playout(ge, s, rng, max_steps, hook ? &hk : NULL);
    else
        load_state(ge, s->bits, NULL);
    for (; !ge->k.playout;) {
        if (net->terminal != GNET_NONE && ge->vals[net->terminal]) break;
        if (hook) { /* the state the hook reads is the playout's own, packed */
            store_inputs(ge, s);
            if ((hk.stopped = hook(ctx, s))) break;
        }
        if (steps >= max_steps) break;
        uint32_t r = 0;
        for (; r < nr; r++) {
            const uint32_t *ids = (uint32_t *)ge->legal_buf[r];
            uint32_t n = 0;
            const uint8_t *lv = ge->vals + net->legal_first[r];
            n = ge->prop ? prop_legal(ge->prop, r, &ids) : count_ones(lv, net->n_moves[r]);
            if (!n) break;
            /* a multiply-shift instead of a 64-bit division: unbiased enough for playouts */
            uint32_t j = (uint32_t)(((splitmix_next(rng) >> 32) * n) >> 32);
            pick[r] = ge->prop ? ids[j] : nth_one(lv, net->n_moves[r], j);
        }
        if (r < nr) break; /* a defective game: a role without moves */
        load_joint(ge, pick);
        advance(ge);
        eval_play(ge);
        steps++;
    }
    if (hk.stopped) *stopped = true;
    eval_goals(ge);
    for (uint32_t r = 0; r < nr; r++) {
        int v = -1;
        for (uint32_t k = 0; k < net->n_goals[r]; k++)
            if (ge->vals[net->goals[r][k].node] && net->goals[r][k].value > v)
                v = net->goals[r][k].value; /* several: the highest (term_highest_number) */
        goals[r] = v;
    }
    if (!ge->k.playout) store_inputs(ge, s);
    memcpy(ge->cur, s->bits, e->n_words * sizeof *s->bits);
    ge->cur_valid = true;
    return steps;
}

static void g_free(engine_t *e) {
    gengine_t *ge = G(e);
    const gnet_t *net = ge->net;
    for (uint32_t r = 0; r < net->n_roles; r++) {
        free(ge->legal_buf[r]);
        keyset_fini(&ge->moves[r]);
    }
    free(ge->legal_buf), free(ge->moves), free(ge->sees_buf), free(ge->goal_buf);
    keyset_fini(&ge->fluents);
    prop_free(ge->prop);
    free(ge->vals), free(ge->zobrist), free(ge->cur), free(ge->prev), free(ge->next),
        free(ge->joint_ids);
    engine_state_free(ge->hooked);
    reason_free(ge->rules);
    state_fini(&ge->qstate);
    free(ge->qgoal);
    netcode_unref(ge->code);
    if (ge->owns) gnet_free(ge->net);
    free(ge);
}

static engine_t *g_clone(const engine_t *e) {
    const gengine_t *ge = (const gengine_t *)e;
    engine_t *c = make(e->g, ge->net, ge->code ? netcode_ref(ge->code) : NULL,
                       ge->race && ge->pending, switch_race_seconds(ge));
    ((gengine_t *)c)->owns = false;
    c->ground_seconds = e->ground_seconds, c->compile_seconds = e->compile_seconds;
    return c;
}

/* The query nodes' reasoner (hybrid grounding): a node it can no longer answer would
 * read false, so its giving up is the engine's error. */
static const char *g_error(const engine_t *e) {
    const gengine_t *ge = (const gengine_t *)e;
    return ge->rules ? reason_error(ge->rules) : NULL;
}

static const engine_ops_t gengine_ops = {
    .free = g_free,
    .clone = g_clone,
    .initial = g_initial,
    .terminal = g_terminal,
    .legal = g_legal,
    .is_legal = g_is_legal,
    .goals = g_goals,
    .goal_value = g_goal_value,
    .next = g_next,
    .sees = g_sees,
    .to_terms = g_to_terms,
    .from_terms = g_from_terms,
    .playout = g_playout,
    .error = g_error,
};

/* The queries that only goal blocks read: asked once goals are, not on every state. */
static void mark_goal_queries(gengine_t *ge) {
    const gnet_t *net = ge->net;
    uint32_t *qof = xmalloc((net->n_nodes + 1) * sizeof *qof);
    for (uint32_t n = 0; n < net->n_nodes; n++)
        qof[n] = GNET_NONE;
    ge->qgoal = xmalloc((net->n_queries + 1) * sizeof *ge->qgoal);
    for (uint32_t q = 0; q < net->n_queries; q++)
        qof[net->query_node[q]] = q, ge->qgoal[q] = true;
    for (uint32_t b = 0; b < net->n_blocks; b++) {
        if (b >= net->n_play_blocks && b < net->n_state_blocks) continue; /* goal blocks */
        const gblock_t *bl = &net->blocks[b];
        for (uint32_t l = net->lit_start[net->rule_start[bl->first]];
             l < net->lit_start[net->rule_start[bl->first + bl->n]]; l++)
            if (qof[net->lits[l] >> 1] != GNET_NONE) ge->qgoal[qof[net->lits[l] >> 1]] = false;
    }
    ge->n_goal_queries = 0;
    for (uint32_t q = 0; q < net->n_queries; q++)
        ge->n_goal_queries += ge->qgoal[q];
    free(qof);
}

/* The rules evaluator, and which queries only goals read. */
static void init_queries(gengine_t *ge) {
    state_init(&ge->qstate);
    if (!ge->net->n_queries) return;
    ge->rules = reason_new(ge->base.g);
    mark_goal_queries(ge);
}

/* The engine on net and code; race: the code only where it beats the network, raced now
 * for `seconds` when it is ready, else once it is. */
static engine_t *make(game_t *g, gnet_t *net, netcode_t *code, bool race, double seconds) {
    gengine_t *ge = xcalloc(1, sizeof *ge);
    uint32_t nr = net->n_roles;
    ge->base = (engine_t){.ops = &gengine_ops,
                          .g = g,
                          .n_words = (net->n_fluents + 63) / 64 + 1,
                          .net = net,
                          .ground_seconds = net->seconds};
    ge->net = net, ge->owns = true, ge->code = code, ge->race = race;
    bool ready = code && netcode_state(code) == NETCODE_READY && decide_code(ge, seconds);
    ge->pending = ge->code && !ready;
    if (ready) ge->k = kernels(net, code);
    ge->base.kind = ready ? ENGINE_COMPILED : ENGINE_GROUND;
    if (ready) ge->base.compile_seconds = netcode_seconds(code);
    ge->vals = xcalloc(cgen_vals_bytes(net), 1); /* bytes of the compiled code's past the nodes */
    for (uint32_t n = 0; n < net->n_nodes; n++)
        if (net->kind[n] == GNODE_TRUE) ge->vals[n] = 1;
    ge->zobrist = xmalloc((net->n_fluents + 1) * sizeof *ge->zobrist);
    splitmix_t rng = {0x5eed};
    for (uint32_t f = 0; f < net->n_fluents; f++)
        ge->zobrist[f] = splitmix_next(&rng);
    ge->cur = xcalloc(ge->base.n_words, sizeof *ge->cur);
    ge->prev = xcalloc(ge->base.n_words, sizeof *ge->prev);
    ge->next = xcalloc(ge->base.n_words, sizeof *ge->next);
    ge->joint_ids = xmalloc((2 * nr + 1) * sizeof *ge->joint_ids);
    for (uint32_t r = 0; r < 2 * nr; r++)
        ge->joint_ids[r] = GNET_NONE;
    ge->legal_buf = xcalloc(nr + 1, sizeof *ge->legal_buf);
    ge->moves = xcalloc(nr + 1, sizeof *ge->moves);
    uint32_t max_sees = 1;
    for (uint32_t r = 0; r < nr; r++) {
        ge->legal_buf[r] = xmalloc((net->n_moves[r] + 1) * sizeof(term_t));
        number_terms(&ge->moves[r], net->move_term[r], net->n_moves[r]);
        if (net->n_sees[r] + 1 > max_sees) max_sees = net->n_sees[r] + 1;
    }
    ge->sees_buf = xmalloc(max_sees * sizeof *ge->sees_buf);
    uint32_t max_goals = 1;
    for (uint32_t r = 0; r < nr; r++)
        if (net->n_goals[r] + 1 > max_goals) max_goals = net->n_goals[r] + 1;
    ge->goal_buf = xmalloc(max_goals * sizeof *ge->goal_buf);
    if (!ready) { /* all inputs off, every node evaluated, then the counts */
        gnet_eval(net, ge->vals, 0, net->n_blocks);
        ge->prop = prop_new(net, ge->vals);
    }
    number_terms(&ge->fluents, net->fluent_term, net->n_fluents);
    init_queries(ge);
    return &ge->base;
}

engine_t *gengine_new(game_t *g, gnet_t *net, netcode_t *code) {
    return make(g, net, code, false, 0);
}

engine_t *gengine_new_raced(game_t *g, gnet_t *net, netcode_t *code, double deadline) {
    return make(g, net, code, true, race_seconds(deadline));
}
