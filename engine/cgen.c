/* The C text of a ground network: see cgen.h. */
#include "engine/cgen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function holds about this many literals (the compiler's time per function grows faster
 * than its size); a node with more is split into functions of its own. */
#define FUNC_LITS 3000
/* A node that is an OR of this many rules over fluents only (like connect four's lines:
 * 69 of four cells) is a loop over tables of masks, four rules at a time in vector
 * registers, instead of one word test after the other. */
#define VEC_MIN_RULES 16
#define VEC_MAX_WORDS 4
/* A node this costly (literals) is evaluated in the playout loop only when a fluent it
 * depends on changed since the step before (its byte keeps its value otherwise). */
#define SKIP_MIN_LITS 16
/* Guards: a fluent that every rule of a node needs true (like (control white) for
 * white's legal moves). Nodes that share a guard are evaluated in one group, skipped
 * when the guard is false (their bytes then 0): in a turn-taking game the moves of the
 * role not in control cost nothing. A group is worth its test from this many nodes. */
#define GUARD_MIN_NODES 2
/* Segments: in the playout loop a run of state nodes is skipped when none of the fluents
 * they depend on changed since the step before (in connect four, a move changes one
 * column: the nodes of the six others keep their values). A segment grows while the
 * fluents it depends on stay this few. */
#define SEG_MAX_FLUENTS 16
/* Move sets: rules of a node that differ only in one role's move (a frame rule grounds to
 * one rule per move that leaves the cell alone: 300 per cell in breakthroughSuicide) are
 * one test of the role's move index in a table of bits, from this many rules. */
#define MOVESET_MIN 2
/* A move's rules are scattered (place_moves) at any count (alexChess: 16,006 moves, each
 * in a rule per piece that may stand on the square it leaves or enters: as code every step
 * would evaluate them all), unless the move is in more than SCATTER_MAX_RULES rules and
 * either SCATTER_SKEW times the mean of its role's moves (a dead role's noop, in every
 * cell's frame rule and played at every step: code skips it behind a guard on the move;
 * knightwar 0.7x scattered) or more than 1/SCATTER_MIN_MOVES of all their rules (a role of
 * a few moves, tron's four directions: a list read rule by rule costs several times code,
 * which evaluates every move's rules at once; tron_10x10 0.6x, pacman3p 0.75x scattered,
 * connectFourLarger's 21 columns 1.65x). */
#define SCATTER_MAX_RULES 16
#define SCATTER_SKEW 4
#define SCATTER_MIN_MOVES 8
/* Nodes set first (plan_preset): at most this many words in the rows of bits of all the
 * roles' moves (breakthrough: 2 x 156 moves x 2 words; bigger rows miss the cache where a
 * node's table of bits over the moves did not, and slow cc), and at least
 * PRESET_MIN_NODES per role (a row read per role and step replaces that many tests;
 * knightwar's 5 such nodes for 5 roles played 0.95x set first). */
#define PRESET_MAX_WORDS 8192
#define PRESET_MIN_NODES 4
/* Frame words (plan_frames): at least this many frame nodes, else their statements stay
 * (a word and its unpacking per 64 fluents cost what about 16 statements do). */
#define FRAME_MIN_NODES 16
/* Covers (emit_covered): a play node that is an OR of this many single literals is written
 * as the OR of play nodes written before it that are ORs of some of its literals (connect
 * four's "some column open", 42 literals, is the OR of the 7 columns' nodes), where they
 * cover at least half of them. */
#define COVER_MIN_LITS 8
/* Factoring: a node with this many rules (besides the forms above) has the literals that
 * this many of its rules share tested once for them all. */
#define FACTOR_MIN_RULES 8
#define FACTOR_MIN_SHARE 3

typedef struct {
    const gnet_t *net;     /* &simple */
    gnet_t simple;         /* the network with its constants evaluated away (simplify) */
    strbuf_t *code, *data; /* per unit: functions, file-scope tables */
    uint32_t n_units, cur;
    size_t unit_bytes;
    uint32_t *mrole, *midx; /* per node: role and index of a move input (GNET_NONE) */
    uint32_t n_tables;
    strbuf_t term; /* the terms of the node being written, ORed */
    size_t *term_end, n_terms, cap_terms;
    uint32_t *scratch; /* literals of one rule */
    uint32_t *freq;    /* per literal: a count, 0 between uses */
    /* scattering (place_moves): per move (move_base[role] + index) its list; per node
     * whether it is of the move blocks (late), has scattered rules */
    bool can_scatter;
    bool tables;       /* the play blocks driven by changes, read from tables */
    bool split_tables; /* big tables in units of their own (open_table) */
    bool wide_tables;  /* every acyclic play node read from the tables (table_position) */
    bool chunked;      /* the records in tables R<k>_ of R_CHUNK entries (emit_records) */
    /* turn guards (find_turns): per group its literal and first index in X (8-aligned),
     * the positions' count; none: n_turns 0 */
    uint32_t n_turns, *turn_lit, *turn_base, n_x;
    bool short_or; /* terms joined by || (stopping at the first that holds), not | */
    uint32_t node, *move_base, **ent;
    size_t *n_ent, *cap_ent;
    /* set first (plan_preset): per move its list of the move blocks' nodes that are a set
     * of moves alone and that the move blocks read (breakthrough's "a piece leaves this
     * cell"), unpacked from the chosen moves' rows of bits right after the blocks' nodes
     * are zeroed */
    uint32_t **pre, *pre_bit, n_pre_words; /* pre_bit: per node (GNET_NONE: not set first) */
    /* frame words (plan_frames): per node whether it is a frame node (no code of its own);
     * frame_pair: (node set first, fluent) per rule of theirs, sorted, n_frame_pairs */
    uint8_t *frame;
    uint32_t *frame_pair, n_frame_pairs, n_frames;
    size_t *n_pre, *cap_pre, n_pre_all;
    /* late: a node of the move blocks, 1 acyclic (zeroed at their start), 2 cyclic */
    uint8_t *late, *busy;    /* busy: a move node in too many rules to scatter */
    uint8_t *phase;          /* per node: 0 of the play blocks, 1 goals only, 2 move */
    uint8_t *read_late;      /* per node: read by a node of the move blocks */
    uint8_t *rule_scattered; /* per rule */
    /* role guards (find_role_guards): per role the literal, GNET_NONE: none; per node
     * whether it is a legal node without it (its byte holds the rest of its rules) */
    uint32_t *role_guard;
    uint8_t *guarded;
    /* copies: nodes of the move blocks that are one fluent (connect four's cells, which
     * never change once filled), written as runs of byte copies at the start of the move
     * blocks (copy_pair: node and fluent, n_copies of them) instead of one statement each */
    uint32_t *copy_pair, n_copies;
    /* pick guards (find_pick_guards): per role a literal whose falsity makes the legal nodes
     * marked in pick_guarded 0 (a role guard's own, else a literal all their rules have), so
     * that the playout loop's pick reads only the others then (GNET_NONE: none) */
    uint32_t *pick_guard;
    uint8_t *pick_guarded;
    /* covers (emit_covered), while the play blocks are written as straight-line code
     * (covers) and not inside a cyclic block: per literal the first of the list of the play
     * nodes written so far that are ORs of single literals, the first of them that literal
     * (cover_head: order positions), per position the next (cover_next), per literal a
     * mark (cover_mark) */
    bool covers, in_cyclic;
    uint32_t *cover_head, *cover_next;
    uint8_t *cover_mark;
} cg_t;

static strbuf_t *C(cg_t *cg) {
    return &cg->code[cg->cur];
}

static const char *const PARAMS =
    "U *restrict v,const W64 *restrict w,const W64 *restrict d,const unsigned *restrict m";

/* ---- literals and rules ---- */

/* Fluent inputs are nodes 0..F-1 (ground.h); the generated code also holds them packed
 * in 64-bit words w[] (bit f of the state), so that the fluent literals of a rule that
 * fall in one word are tested at once: ((w[k] & MASK) == POSITIVE). */
static bool is_fluent(const gnet_t *net, uint32_t lit) {
    return (lit >> 1) < net->n_fluents;
}

static uint32_t wt_min(void) {
    const char *e = getenv("GGP_WTMIN");
    return e ? (uint32_t)atoi(e) : 3;
}

static uint32_t node_lits(const gnet_t *net, uint32_t i) {
    return net->lit_start[net->rule_start[i + 1]] - net->lit_start[net->rule_start[i]];
}

static void emit_byte_lit(strbuf_t *c, uint32_t x) {
    sb_printf(c, "%s[%u]", x & 1 ? "!v" : "v", x >> 1);
}

/* The AND of literals lits[0..n): fluent literals two or more to a word as one word test,
 * the others as bytes. */
static void emit_lits(strbuf_t *c, const gnet_t *net, const uint32_t *lits, uint32_t n) {
    if (n == 0) {
        sb_puts(c, "1");
        return;
    }
    if (n > 1) sb_putc(c, '(');
    bool first = true;
    uint32_t wmin = wt_min();
    for (uint32_t l = 0; l < n; l++) {
        uint32_t x = lits[l], word = (x >> 1) >> 6;
        uint64_t pos = 0, neg = 0;
        uint32_t count = 0, earlier = 0; /* the fluent literals of x's word, those before l */
        for (uint32_t e = 0; e < n && is_fluent(net, x); e++) {
            uint32_t y = lits[e];
            if (!is_fluent(net, y) || (y >> 1) >> 6 != word) continue;
            count++, earlier += e < l;
            if (y & 1)
                neg |= 1ull << ((y >> 1) & 63);
            else
                pos |= 1ull << ((y >> 1) & 63);
        }
        bool word_test = count >= wmin || (pos & neg);
        if (word_test && earlier) continue; /* tested with the word's first literal */
        if (!first) sb_putc(c, '&');
        first = false;
        if (!word_test)
            emit_byte_lit(c, x);
        else if (pos & neg)
            sb_putc(c, '0'); /* f and not f: the rule never holds */
        else
            sb_printf(c, "((w[%u]&0x%" PRIx64 "ull)==0x%" PRIx64 "ull)", word, pos | neg, pos);
    }
    if (n > 1) sb_putc(c, ')');
}

static void emit_rule(strbuf_t *c, const gnet_t *net, uint32_t r) {
    emit_lits(c, net, net->lits + net->lit_start[r], net->lit_start[r + 1] - net->lit_start[r]);
}

static bool single_positive_fluent(const gnet_t *net, uint32_t r) {
    return net->lit_start[r + 1] - net->lit_start[r] == 1 &&
           is_fluent(net, net->lits[net->lit_start[r]]) && !(net->lits[net->lit_start[r]] & 1);
}

/* A rule that is one positive derived node (not an input). */
static bool single_positive_derived(const gnet_t *net, uint32_t r) {
    uint32_t l = net->lit_start[r];
    return net->lit_start[r + 1] - l == 1 && !(net->lits[l] & 1) &&
           net->kind[net->lits[l] >> 1] == GNODE_DERIVED;
}

/* ---- factoring ---- */

/* Ends a term of the node being written. */
static void term_done(cg_t *cg) {
    GROW(cg->term_end, cg->cap_terms, cg->n_terms + 1);
    cg->term_end[cg->n_terms++] = cg->term.len;
}

/* A rule being factored: its literals not yet tested. */
typedef struct {
    const uint32_t *lit;
    uint32_t n;
} frule_t;

/* The literal most of rs[0..n) have, and in how many (*count). */
static uint32_t most_common(cg_t *cg, const frule_t *rs, uint32_t n, uint32_t *count) {
    uint32_t best = GNET_NONE;
    *count = 0;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t l = 0; l < rs[k].n; l++) {
            uint32_t x = rs[k].lit[l], c = ++cg->freq[x];
            if (c > *count || (c == *count && x < best)) best = x, *count = c;
        }
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t l = 0; l < rs[k].n; l++)
            cg->freq[rs[k].lit[l]] = 0;
    return best;
}

/* A piece of an OR being factored: its text, and the literal factored out first
 * (GNET_NONE: a rule as it is). */
typedef struct {
    strbuf_t text;
    uint32_t x;
} piece_t;

/* The rules of rs[0..left) with literal x: their rests into sub (literals in buf) and the
 * others kept at the front of rs; returns how many are kept, *always when a rule is x
 * alone (the rests' OR is then true). */
static uint32_t split_on(frule_t *rs, uint32_t left, uint32_t x, frule_t *sub, uint32_t *buf,
                         uint32_t *ns, bool *always) {
    uint32_t used = 0, kept = 0;
    *ns = 0, *always = false;
    for (uint32_t k = 0; k < left; k++) {
        bool has = false;
        for (uint32_t l = 0; l < rs[k].n && !has; l++)
            has = rs[k].lit[l] == x;
        if (!has) {
            rs[kept++] = rs[k];
            continue;
        }
        sub[*ns] = (frule_t){buf + used, 0};
        for (uint32_t l = 0; l < rs[k].n; l++)
            if (rs[k].lit[l] != x) buf[used++] = rs[k].lit[l], sub[*ns].n++;
        *always |= sub[*ns].n == 0;
        (*ns)++;
    }
    return kept;
}

static void emit_or(cg_t *cg, strbuf_t *out, frule_t *rs, uint32_t n, bool top);

/* The pieces of the OR of rs[0..n) (reordered): a literal that FACTOR_MIN_SHARE or more
 * rules share, then the next, each tested once for its rules, (x && (OR of their
 * rests)), and the rules left as they are. */
static piece_t *factor_pieces(cg_t *cg, frule_t *rs, uint32_t n, uint32_t *n_pieces) {
    piece_t *ps = xmalloc((n + 1) * sizeof *ps);
    uint32_t np = 0;
    for (uint32_t left = n; left;) {
        uint32_t count, x = most_common(cg, rs, left, &count);
        if (count < FACTOR_MIN_SHARE || left < FACTOR_MIN_SHARE) {
            for (uint32_t k = 0; k < left; k++) {
                sb_init(&ps[np].text);
                ps[np].x = GNET_NONE;
                emit_lits(&ps[np++].text, cg->net, rs[k].lit, rs[k].n);
            }
            break;
        }
        size_t total = 0;
        for (uint32_t k = 0; k < left; k++)
            total += rs[k].n;
        uint32_t *buf = xmalloc((total + 1) * sizeof *buf), ns;
        frule_t *sub = xmalloc(count * sizeof *sub);
        bool always;
        left = split_on(rs, left, x, sub, buf, &ns, &always);
        strbuf_t *t = &ps[np].text;
        sb_init(t);
        ps[np++].x = x;
        sb_printf(t, "(%s[%u]", x & 1 ? "!v" : "v", x >> 1);
        if (!always) {
            sb_puts(t, "&&(");
            emit_or(cg, t, sub, ns, false);
            sb_putc(t, ')');
        }
        sb_putc(t, ')');
        free(buf), free(sub);
    }
    *n_pieces = np;
    return ps;
}

/* The OR of rules rs[0..n) (reordered) into out, factored (factor_pieces), the pieces
 * whose literal is a positive fluent of one word behind one test of the word: in
 * knightwar dead(r), a piece of r and another on one cell, 726 rules of two cells,
 * becomes 13 tests of a word of r's cells. top: each piece a term of its own (out is
 * cg->term), else joined by '|'. */
static void emit_or(cg_t *cg, strbuf_t *out, frule_t *rs, uint32_t n, bool top) {
    const gnet_t *net = cg->net;
    uint32_t np;
    piece_t *ps = factor_pieces(cg, rs, n, &np);
    bool first = true;
    uint8_t *done = xcalloc(np + 1, 1);
    for (uint32_t k = 0; k < np; k++) {
        if (done[k]) continue;
        uint32_t x = ps[k].x, word = x >> 7, same = 0;
        uint64_t mask = 0;
        bool fluent = x != GNET_NONE && !(x & 1) && is_fluent(net, x);
        for (uint32_t j = k; j < np && fluent; j++)
            if (ps[j].x != GNET_NONE && !(ps[j].x & 1) && is_fluent(net, ps[j].x) &&
                ps[j].x >> 7 == word)
                same++, mask |= 1ull << ((ps[j].x >> 1) & 63);
        if (!top && !first) sb_putc(out, '|');
        first = false;
        if (same < 2) {
            sb_putn(out, ps[k].text.data, ps[k].text.len);
        } else {
            sb_printf(out, "(((w[%u]&0x%" PRIx64 "ull)!=0)&&(", word, mask);
            for (uint32_t j = k, i = 0; j < np; j++)
                if (ps[j].x != GNET_NONE && !(ps[j].x & 1) && is_fluent(net, ps[j].x) &&
                    ps[j].x >> 7 == word) {
                    if (i++) sb_putc(out, '|');
                    sb_putn(out, ps[j].text.data, ps[j].text.len);
                    done[j] = 1;
                }
            sb_puts(out, "))");
        }
        if (top) term_done(cg);
    }
    for (uint32_t k = 0; k < np; k++)
        sb_fini(&ps[k].text);
    free(ps), free(done);
}

/* ---- the terms of a node (its value is their OR) ---- */

/* Whether node x is written in the same phase (play, goals or move blocks) as node, so
 * possibly a few statements before node reads it. */
static bool same_phase(const cg_t *cg, uint32_t node, uint32_t x) {
    return cg->phase[node] == cg->phase[x];
}

/* The rules of node order[i] that are one positive derived node each, runs of 3 to 8
 * consecutive node bytes as one load ((load & MASK) != 0), where those bytes are written
 * in the phase before node's (the play blocks' nodes read by the move blocks'). Not in
 * the same phase: a load wider than the byte stores that wrote its bytes is not forwarded
 * from the store buffer and waits for them to reach the cache (dotsAndBoxes' move blocks
 * OR their box nodes just written: "Wide loads, rep stos and frame words" in
 * docs/engine.md). */
static void terms_byte_runs(cg_t *cg, uint32_t i) {
    const gnet_t *net = cg->net;
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1], n = 0, node = net->order[i];
    uint32_t *ids = xmalloc((r1 - r0 + 1) * sizeof *ids);
    for (uint32_t r = r0; r < r1; r++)
        if (single_positive_derived(net, r)) ids[n++] = net->lits[net->lit_start[r]] >> 1;
    qsort(ids, n, sizeof *ids, cmp_u32);
    for (uint32_t j = 0, e; j < n; j = e) {
        for (e = j + 1; e < n && e - j < 8 && ids[e] == ids[e - 1] + 1 &&
                        !same_phase(cg, node, ids[e]) && !same_phase(cg, node, ids[j]);)
            e++;
        if (e - j < 3) e = j + 1;
        if (e - j == 1)
            sb_printf(&cg->term, "v[%u]", ids[j]);
        else
            sb_printf(&cg->term, "((ld8(v+%u)&0x%" PRIx64 "ull)!=0)", ids[j],
                      e - j == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * (e - j))) - 1);
        term_done(cg);
    }
    free(ids);
}

/* Rules that are one positive fluent each, two or more to a word, as one test
 * ((w[k] & MASK) != 0); rule r is the first of its word. */
static void term_fluent_word(cg_t *cg, uint32_t i, uint32_t r) {
    const gnet_t *net = cg->net;
    uint32_t r1 = net->rule_start[i + 1], word = net->lits[net->lit_start[r]] >> 7, count = 0;
    uint64_t mask = 0;
    for (uint32_t e = r; e < r1; e++)
        if (single_positive_fluent(net, e) && net->lits[net->lit_start[e]] >> 7 == word) {
            mask |= 1ull << ((net->lits[net->lit_start[e]] >> 1) & 63);
            count++;
        }
    if (count >= wt_min()) {
        sb_printf(&cg->term, "((w[%u]&0x%" PRIx64 "ull)!=0)", word, mask);
        term_done(cg);
        return;
    }
    for (uint32_t e = r; e < r1; e++) /* the group's fluents as bytes */
        if (single_positive_fluent(net, e) && net->lits[net->lit_start[e]] >> 7 == word) {
            emit_rule(&cg->term, net, e);
            term_done(cg);
        }
}

/* ---- move sets ---- */

typedef struct {
    uint32_t rule, lit; /* lit: the move literal's index in net->lits */
    uint64_t key;       /* hash of the role and the rest of the rule */
    uint32_t group;
} mvrule_t;

/* The positive move literal of rule r that a move set takes (of the last role among
 * them), GNET_NONE when it has none. */
static uint32_t set_lit(const cg_t *cg, uint32_t r) {
    const gnet_t *net = cg->net;
    uint32_t best = GNET_NONE;
    for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++) {
        uint32_t x = net->lits[l];
        if ((x & 1) || cg->mrole[x >> 1] == GNET_NONE) continue;
        if (best == GNET_NONE || cg->mrole[x >> 1] >= cg->mrole[net->lits[best] >> 1]) best = l;
    }
    return best;
}

/* The rest of m's rule, sorted, into out; returns its length. */
static uint32_t rest_of(const gnet_t *net, const mvrule_t *m, uint32_t *out) {
    uint32_t n = 0;
    for (uint32_t l = net->lit_start[m->rule]; l < net->lit_start[m->rule + 1]; l++)
        if (l != m->lit) out[n++] = net->lits[l];
    qsort(out, n, sizeof *out, cmp_u32);
    return n;
}

static int cmp_mvrule(const void *a, const void *b) {
    const mvrule_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static bool same_rest(const cg_t *cg, const mvrule_t *a, const mvrule_t *b, uint32_t *tmp) {
    const gnet_t *net = cg->net;
    if (cg->mrole[net->lits[a->lit] >> 1] != cg->mrole[net->lits[b->lit] >> 1]) return false;
    uint32_t na = rest_of(net, a, cg->scratch), nb = rest_of(net, b, tmp);
    return na == nb && memcmp(cg->scratch, tmp, na * sizeof *tmp) == 0;
}

/* Groups the rules of node order[i] with a move literal into move sets: *out (sorted by
 * group) and the count. */
static uint32_t group_moves(cg_t *cg, uint32_t i, mvrule_t **out) {
    const gnet_t *net = cg->net;
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1], n = 0, n_groups = 0;
    mvrule_t *mv = xmalloc((r1 - r0 + 1) * sizeof *mv);
    for (uint32_t r = r0; r < r1; r++) {
        uint32_t l = set_lit(cg, r);
        if (l == GNET_NONE) continue;
        mvrule_t m = {r, l, 0, GNET_NONE};
        uint32_t k = rest_of(net, &m, cg->scratch);
        uint64_t h = 0xcbf29ce484222325ull ^ cg->mrole[net->lits[l] >> 1];
        for (uint32_t j = 0; j < k; j++)
            h = (h ^ cg->scratch[j]) * 0x100000001b3ull;
        m.key = h * 0x9e3779b97f4a7c15ull + k;
        mv[n++] = m;
    }
    qsort(mv, n, sizeof *mv, cmp_mvrule);
    uint32_t *tmp = xmalloc((net->n_lits + 1) * sizeof *tmp);
    for (uint32_t a = 0, end; a < n; a = end) { /* runs of one key: equal rests (collisions) */
        for (end = a + 1; end < n && mv[end].key == mv[a].key;)
            end++;
        for (uint32_t x = a; x < end; x++) {
            if (mv[x].group != GNET_NONE) continue;
            mv[x].group = n_groups++;
            for (uint32_t y = x + 1; y < end; y++)
                if (mv[y].group == GNET_NONE && same_rest(cg, &mv[x], &mv[y], tmp))
                    mv[y].group = mv[x].group;
        }
    }
    free(tmp);
    for (uint32_t x = 1; x < n; x++) /* insertion by group: runs of a key are already together */
        for (uint32_t y = x; y > 0 && mv[y - 1].group > mv[y].group; y--) {
            mvrule_t t = mv[y];
            mv[y] = mv[y - 1], mv[y - 1] = t;
        }
    *out = mv;
    return n;
}

/* Adds rule m (its move the role's move k) to the lists scattered at the start of the move
 * blocks: node, number of other literals, the literals. */
static void scatter_rule(cg_t *cg, const mvrule_t *m) {
    const gnet_t *net = cg->net;
    uint32_t x = net->lits[m->lit] >> 1, id = cg->move_base[cg->mrole[x]] + cg->midx[x];
    uint32_t nr = rest_of(net, m, cg->scratch), head = net->order[cg->node];
    GROW(cg->ent[id], cg->cap_ent[id], cg->n_ent[id] + nr + 2);
    cg->ent[id][cg->n_ent[id]++] = head;
    cg->ent[id][cg->n_ent[id]++] = nr;
    for (uint32_t j = 0; j < nr; j++)
        cg->ent[id][cg->n_ent[id]++] = cg->scratch[j];
}

/* Whether rule m may be scattered: its node is read by no node of the move blocks (the
 * lists are read after them), its other literals read none. */
static bool scatterable(const cg_t *cg, const mvrule_t *m) {
    const gnet_t *net = cg->net;
    if (!cg->can_scatter || cg->read_late[net->order[cg->node]]) return false;
    for (uint32_t l = net->lit_start[m->rule]; l < net->lit_start[m->rule + 1]; l++)
        if (cg->late[net->lits[l] >> 1]) return false;
    return true;
}

/* Whether node order[i] of the move blocks is a set of moves alone (each rule one move
 * literal) and read by the move blocks. */
static bool presettable(const cg_t *cg, uint32_t i) {
    const gnet_t *net = cg->net;
    uint32_t node = net->order[i], r0 = net->rule_start[i], r1 = net->rule_start[i + 1];
    if (cg->late[node] != 1 || !cg->read_late[node] || r0 == r1) return false;
    for (uint32_t r = r0; r < r1; r++) {
        uint32_t l = net->lit_start[r], x = net->lits[l];
        if (net->lit_start[r + 1] != l + 1 || (x & 1) || cg->mrole[x >> 1] == GNET_NONE)
            return false;
    }
    return true;
}

/* The bits of the nodes set first (plan_preset): in node order, each run of consecutive
 * nodes from a multiple of 8, so that 8 of them are one unpk of one word. Returns the
 * number of bits. */
static uint32_t preset_layout(cg_t *cg) {
    uint32_t bit = 0;
    for (uint32_t n = 0; n < cg->net->n_nodes; n++) {
        if (cg->pre_bit[n] == GNET_NONE) continue;
        if (!n || cg->pre_bit[n - 1] == GNET_NONE) bit = (bit + 7) & ~7u;
        cg->pre_bit[n] = bit++;
    }
    return bit;
}

/* The nodes set first (cg->pre): instead of a test of the move index in a table of bits
 * per node and step (breakthrough: 128 such nodes, every frame rule of a cell reads two),
 * the chosen moves' rows of bits (emit_preset), unless the rows would exceed
 * PRESET_MAX_WORDS words or the nodes are fewer than PRESET_MIN_NODES a role. Their rules
 * count as scattered (no code; the zeroing of the move blocks then the rows give their
 * value). */
static void plan_preset(cg_t *cg) {
    const gnet_t *net = cg->net;
    for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++)
            if (!net->blocks[b].cyclic && presettable(cg, i)) cg->pre_bit[net->order[i]] = 0;
    uint64_t nw = (preset_layout(cg) + 63) / 64, rows = 0, nodes = 0;
    for (uint32_t r = 0; r < net->n_roles; r++)
        rows += net->n_moves[r] + 1;
    for (uint32_t n = 0; n < net->n_nodes; n++)
        nodes += cg->pre_bit[n] != GNET_NONE;
    if (nw * rows > PRESET_MAX_WORDS || nodes < PRESET_MIN_NODES * net->n_roles) nw = 0;
    for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++) {
            uint32_t node = net->order[i];
            if (cg->pre_bit[node] == GNET_NONE) continue;
            if (!nw) {
                cg->pre_bit[node] = GNET_NONE;
                continue;
            }
            for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
                uint32_t x = net->lits[net->lit_start[r]] >> 1;
                uint32_t id = cg->move_base[cg->mrole[x]] + cg->midx[x];
                GROW(cg->pre[id], cg->cap_pre[id], cg->n_pre[id] + 1);
                cg->pre[id][cg->n_pre[id]++] = node;
                cg->n_pre_all++;
                cg->rule_scattered[r] = 1;
            }
        }
    cg->n_pre_words = (uint32_t)nw;
}

/* Whether node order[i] is a frame node: a next node of the move blocks each of whose
 * rules is its own fluent and one node set first (plan_preset), but the scattered ones
 * (the scattered lists OR them in after the move blocks, emit_scatter).
 * breakthrough's (next (cellholds x y p)): (true (cellholds x y p)) and "no move of this
 * role leaves or enters (x,y)", a rule per role. */
/* Whether node (order position i) is a frame node: 1 when each of its rules (but the
 * scattered ones) is its own fluent and one node set first (breakthroughWalls: the cell
 * and "no move of role r leaves or enters it", one rule per role), 2 when its one rule is
 * its fluent and nodes set first, all negated (tic-tac-toe's and breakthrough's cells:
 * the cell and "no move marks it", "no move of white, of black, leaves or enters it"),
 * else 0. */
static int frame_node(const cg_t *cg, uint32_t i) {
    const gnet_t *net = cg->net;
    uint32_t node = net->order[i], nf = net->n_fluents;
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1];
    if (cg->late[node] != 1 || node < nf || node >= 2 * nf || r0 == r1) return 0;
    uint32_t own = (node - nf) << 1, kept = 0, neg = 0; /* own: its fluent's positive literal */
    for (uint32_t r = r0; r < r1; r++) {
        uint32_t l = net->lit_start[r], e = net->lit_start[r + 1];
        if (cg->rule_scattered[r]) continue; /* ORed in after the move blocks */
        bool has_own = false, all_neg = true;
        for (uint32_t x = l; x < e; x++) {
            uint32_t a = net->lits[x];
            if (a == own && !has_own)
                has_own = true;
            else if (cg->pre_bit[a >> 1] == GNET_NONE)
                return 0;
            else
                all_neg &= (a & 1) != 0;
        }
        if (!has_own || e - l < 2) return 0;
        if (e - l == 2 && !all_neg)
            kept++;
        else if (all_neg)
            neg++;
        else
            return 0;
    }
    if (neg) return neg == 1 && kept == 0 ? 2 : 0;
    return kept > 0;
}

static int cmp_pair(const void *a, const void *b);

/* Frame words: the frame nodes' values computed 64 at a time, the state's word of their
 * fluents ANDed with the OR of the chosen moves' rows F<r>_ (per role and move, the bits
 * of the fluents whose frame node has a rule with a node that move sets), then unpacked 8
 * bytes a store (emit_frames), instead of a statement of three loads per node
 * (breakthroughWalls: 128 of them a step). Needs the nodes set first; not when there are
 * fewer than FRAME_MIN_NODES or the rows would pass PRESET_MAX_WORDS words. */
static void plan_frames(cg_t *cg) {
    const gnet_t *net = cg->net;
    uint32_t nw = net->n_fluents / 64 + 1, n = 0, np = 0;
    uint64_t rows = 0;
    cg->frame = xcalloc(net->n_nodes + 1, 1);
    if (!cg->n_pre_all) return;
    for (uint32_t r = 0; r < net->n_roles; r++)
        rows += net->n_moves[r] + 1;
    for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++)
            if (!net->blocks[b].cyclic && (cg->frame[net->order[i]] = (uint8_t)frame_node(cg, i)))
                n++, np +=
                     net->lit_start[net->rule_start[i + 1]] - net->lit_start[net->rule_start[i]];
    if (n < FRAME_MIN_NODES || rows * nw > PRESET_MAX_WORDS) {
        memset(cg->frame, 0, net->n_nodes + 1);
        return;
    }
    cg->frame_pair = xmalloc(2 * (size_t)np * sizeof *cg->frame_pair);
    for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++) {
            uint32_t node = net->order[i], own = (node - net->n_fluents) << 1;
            if (!cg->frame[node]) continue;
            for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
                if (cg->rule_scattered[r]) continue;
                for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++) {
                    if (net->lits[l] == own) continue;
                    uint32_t *q = cg->frame_pair + 2 * cg->n_frame_pairs++;
                    q[0] = net->lits[l] >> 1, q[1] = node - net->n_fluents;
                }
            }
        }
    qsort(cg->frame_pair, cg->n_frame_pairs, 2 * sizeof *cg->frame_pair, cmp_pair);
    cg->n_frames = n;
}

/* The move sets of a node (sorted by group) that are not scattered (plan_scatter): a set
 * of MOVESET_MIN or more rules is a term (REST & the role's move in the set, a file-scope
 * table of bits over the role's move indices); in_set[r - r0] marks their rules and the
 * scattered ones. */
static void place_moves(cg_t *cg, const mvrule_t *mv, uint32_t n, uint8_t *in_set, uint32_t r0) {
    const gnet_t *net = cg->net;
    for (uint32_t a = 0, end; a < n; a = end) {
        for (end = a + 1; end < n && mv[end].group == mv[a].group;)
            end++;
        if (cg->rule_scattered[mv[a].rule]) {
            for (uint32_t x = a; x < end; x++)
                in_set[mv[x].rule - r0] = 1;
            continue;
        }
        if (end - a < MOVESET_MIN) continue;
        uint32_t role = cg->mrole[net->lits[mv[a].lit] >> 1];
        uint32_t words = net->n_moves[role] / 64 + 1, t = cg->n_tables++;
        uint64_t *bits = xcalloc(words, sizeof *bits);
        for (uint32_t x = a; x < end; x++) {
            uint32_t k = cg->midx[net->lits[mv[x].lit] >> 1];
            bits[k >> 6] |= 1ull << (k & 63);
            in_set[mv[x].rule - r0] = 1;
        }
        sb_printf(&cg->data[cg->cur], "static const W64 S%u_[%u]={", t, words);
        for (uint32_t k = 0; k < words; k++)
            sb_printf(&cg->data[cg->cur], "0x%" PRIx64 "ull,", bits[k]);
        sb_puts(&cg->data[cg->cur], "};\n");
        free(bits);
        uint32_t nr = rest_of(net, &mv[a], cg->scratch);
        if (nr) {
            sb_putc(&cg->term, '(');
            emit_lits(&cg->term, net, cg->scratch, nr);
            sb_putc(&cg->term, '&');
        }
        sb_printf(&cg->term, "((S%u_[q%u]&b%u)!=0)", t, role, role);
        if (nr) sb_putc(&cg->term, ')');
        term_done(cg);
    }
}

/* The terms of node order[i] into cg->term. */
static void node_terms(cg_t *cg, uint32_t i) {
    const gnet_t *net = cg->net;
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1];
    sb_clear(&cg->term);
    cg->n_terms = 0;
    terms_byte_runs(cg, i);
    uint8_t *in_set = xcalloc(r1 - r0 + 1, 1);
    mvrule_t *mv;
    uint32_t n_mv = group_moves(cg, i, &mv);
    place_moves(cg, mv, n_mv, in_set, r0);
    frule_t *rest = xmalloc((r1 - r0 + 1) * sizeof *rest);
    uint32_t n_rest = 0;
    for (uint32_t r = r0; r < r1; r++) {
        if (single_positive_derived(net, r) || in_set[r - r0]) continue;
        if (!single_positive_fluent(net, r)) {
            rest[n_rest++] =
                (frule_t){net->lits + net->lit_start[r], net->lit_start[r + 1] - net->lit_start[r]};
            continue;
        }
        uint32_t word = net->lits[net->lit_start[r]] >> 7;
        bool seen = false;
        for (uint32_t e = r0; e < r && !seen; e++)
            seen = single_positive_fluent(net, e) && net->lits[net->lit_start[e]] >> 7 == word;
        if (!seen) term_fluent_word(cg, i, r);
    }
    if (n_rest >= FACTOR_MIN_RULES) {
        emit_or(cg, &cg->term, rest, n_rest, true);
    } else {
        for (uint32_t k = 0; k < n_rest; k++) {
            emit_lits(&cg->term, net, rest[k].lit, rest[k].n);
            term_done(cg);
        }
    }
    free(mv), free(in_set), free(rest);
}

/* Terms [from, to) ORed (none: 0). */
static void emit_terms(cg_t *cg, size_t from, size_t to) {
    strbuf_t *c = C(cg);
    if (from == to) sb_putc(c, '0');
    for (size_t t = from; t < to; t++) {
        size_t s = t ? cg->term_end[t - 1] : 0;
        if (t > from) sb_puts(c, cg->short_or ? "||" : "|");
        sb_putn(c, cg->term.data + s, cg->term_end[t] - s);
    }
}

/* A vector node whose rules read at most 64 fluents in all, where cc has the bit-extract
 * instruction (BMI2): those fluents gathered from the state's words into one word (pext),
 * the rules' masks and values over that word, one vector compare a rule instead of one per
 * word read (connect four's lines of a colour: 42 cells over two words). Opens the #if
 * whose #else is the words' form (emit_vector_node closes it); false: nothing written. */
static bool emit_vector_packed(cg_t *cg, uint32_t i, const uint32_t *words, uint32_t nu,
                               uint32_t padded) {
    const gnet_t *net = cg->net;
    strbuf_t *c = C(cg);
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1], base[VEC_MAX_WORDS], total = 0;
    uint64_t used[VEC_MAX_WORDS] = {0};
    if (nu < 2) return false;
    for (uint32_t l = net->lit_start[r0]; l < net->lit_start[r1]; l++) {
        uint32_t f = net->lits[l] >> 1, u = 0;
        while (words[u] != f / 64)
            u++;
        used[u] |= 1ull << (f & 63);
    }
    for (uint32_t u = 0; u < nu; u++)
        base[u] = total, total += (uint32_t)__builtin_popcountll(used[u]);
    if (total > 64) return false;
    sb_printf(c, "\n#ifdef __BMI2__\n{static const W64 A_[2][%u] __attribute__((aligned(32)))={",
              padded);
    for (int want_pos = 0; want_pos < 2; want_pos++) {
        sb_putc(c, '{');
        for (uint32_t r = r0; r < r0 + padded; r++) {
            uint64_t pos = 0, neg = 0;
            for (uint32_t l = r < r1 ? net->lit_start[r] : 0; r < r1 && l < net->lit_start[r + 1];
                 l++) {
                uint32_t x = net->lits[l], f = x >> 1, u = 0;
                while (words[u] != f / 64)
                    u++;
                uint64_t below = used[u] & ((1ull << (f & 63)) - 1);
                uint64_t bit = 1ull << (base[u] + (uint32_t)__builtin_popcountll(below));
                if (x & 1)
                    neg |= bit;
                else
                    pos |= bit;
            }
            bool never = r >= r1 || (pos & neg); /* as in the words' form */
            uint64_t mask = never ? 0 : pos | neg, val = never ? 1 : pos;
            sb_printf(c, "0x%" PRIx64 "ull,", want_pos ? val : mask);
        }
        sb_puts(c, "},");
    }
    sb_puts(c, "};\nconst W64 x_=");
    for (uint32_t u = 0; u < nu; u++)
        sb_printf(c, "%s(__builtin_ia32_pext_di(w[%u],0x%" PRIx64 "ull)<<%u)", u ? "|" : "",
                  words[u], used[u], base[u]);
    sb_printf(c,
              ";\nconst VU X_={x_,x_,x_,x_};VS a_={0,0,0,0};for(unsigned i=0;i<%u;i+=4){"
              "VS t_=(X_&*(const VU *)&A_[0][i])==*(const VU *)&A_[1][i];a_|=t_;}\n"
              "v[%u]=(a_[0]|a_[1]|a_[2]|a_[3])!=0;}\n#else\n",
              padded, net->order[i]);
    return true;
}

static bool emit_vector_node(cg_t *cg, uint32_t i) {
    const gnet_t *net = cg->net;
    strbuf_t *c = C(cg);
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1], words[VEC_MAX_WORDS], nu = 0;
    if (r1 - r0 < VEC_MIN_RULES) return false;
    for (uint32_t l = net->lit_start[r0]; l < net->lit_start[r1]; l++) {
        uint32_t x = net->lits[l], k = 0;
        if (!is_fluent(net, x)) return false;
        while (k < nu && words[k] != (x >> 1) / 64)
            k++;
        if (k == nu) {
            if (nu == VEC_MAX_WORDS) return false;
            words[nu++] = (x >> 1) / 64;
        }
    }
    for (uint32_t r = r0; r < r1; r++) /* single fluents: one mask test per word does it */
        if (net->lit_start[r + 1] - net->lit_start[r] < 2) return false;
    uint32_t padded = (r1 - r0 + 3) / 4 * 4;
    bool packed = emit_vector_packed(cg, i, words, nu, padded);
    sb_printf(c, "{static const W64 A_[%u][%u] __attribute__((aligned(32)))={", 2 * nu, padded);
    for (uint32_t u = 0; u < nu; u++)
        for (int want_pos = 0; want_pos < 2; want_pos++) {
            sb_putc(c, '{');
            for (uint32_t r = r0; r < r0 + padded; r++) {
                uint64_t pos = 0, neg = 0;
                for (uint32_t l = r < r1 ? net->lit_start[r] : 0;
                     r < r1 && l < net->lit_start[r + 1]; l++) {
                    uint32_t x = net->lits[l];
                    if ((x >> 1) / 64 != words[u]) continue;
                    if (x & 1)
                        neg |= 1ull << ((x >> 1) & 63);
                    else
                        pos |= 1ull << ((x >> 1) & 63);
                }
                /* padding, and f with not f: a mask no word can match */
                bool never = r >= r1 || (pos & neg);
                uint64_t mask = never ? 0 : pos | neg, val = never ? 1 : pos;
                sb_printf(c, "0x%" PRIx64 "ull,", want_pos ? val : mask);
            }
            sb_puts(c, "},");
        }
    sb_printf(c, "};\nVS a_={0,0,0,0};for(unsigned i=0;i<%u;i+=4){VS t_=", padded);
    for (uint32_t u = 0; u < nu; u++)
        sb_printf(c, "%s((w[%u]&*(const VU *)&A_[%u][i])==*(const VU *)&A_[%u][i])", u ? "&" : "",
                  words[u], 2 * u, 2 * u + 1);
    sb_printf(c, ";a_|=t_;}\nv[%u]=(a_[0]|a_[1]|a_[2]|a_[3])!=0;}\n", net->order[i]);
    if (packed) sb_puts(c, "#endif\n");
    return true;
}

/* Whether node (of the move blocks) is one fluent, its terms "v[F]": then kept in
 * cg->copy_pair for emit_fluent_copies. Its value is read from an input, which the move
 * blocks never write, so it may be written before every other node of the move blocks
 * (and before their scattered rules, which OR into it). */
static bool take_copy(cg_t *cg, uint32_t node) {
    unsigned f;
    int end = -1;
    if (cg->late[node] != 1 || cg->n_terms != 1 ||
        sscanf(sb_str(&cg->term), "v[%u]%n", &f, &end) != 1 || end != (int)cg->term.len ||
        f >= cg->net->n_fluents)
        return false;
    cg->copy_pair = xrealloc(cg->copy_pair, 2 * (cg->n_copies + 1) * sizeof *cg->copy_pair);
    cg->copy_pair[2 * cg->n_copies] = node, cg->copy_pair[2 * cg->n_copies + 1] = f;
    cg->n_copies++;
    return true;
}

/* Whether node order[i] is an OR of two or more single literals. */
static bool literal_or(const gnet_t *net, uint32_t i) {
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1];
    for (uint32_t r = r0; r < r1; r++)
        if (net->lit_start[r + 1] - net->lit_start[r] != 1) return false;
    return r1 - r0 >= 2;
}

static int cmp_cover(const void *a, const void *b) { /* by size, largest first */
    const uint32_t *x = a, *y = b;
    return x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Node order[i], an OR of COVER_MIN_LITS or more single literals, as the OR of the nodes
 * of cover_head's lists whose literals are all its own (chosen greedily, largest first,
 * each for at least two literals not yet covered) and its literals left, where they cover
 * at least half of them; false (nothing written) otherwise. Their bytes hold their values
 * here: written before in the same play blocks (evaluated or skipped, when nothing they
 * depend on changed, in the same step), not role-guarded (such a byte holds the rest of its
 * rules). connect four's "some column open" read 42 bytes, 7 of them negated, which cc kept
 * from the columns' own nodes in spilled registers: 1.5x playouts per CPU second as 7. */
static bool emit_covered(cg_t *cg, uint32_t i) {
    const gnet_t *net = cg->net;
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1], n = r1 - r0, nc = 0, done = 0;
    if (!cg->covers || cg->in_cyclic || n < COVER_MIN_LITS || !literal_or(net, i)) return false;
    for (uint32_t r = r0; r < r1; r++) /* fluents: a word test each 64 (term_fluent_word) */
        if (is_fluent(net, net->lits[net->lit_start[r]])) return false;
    uint32_t *cand = xmalloc(2 * ((size_t)net->n_order + 1) * sizeof *cand), *pick = NULL;
    for (uint32_t r = r0; r < r1; r++)
        cg->cover_mark[net->lits[net->lit_start[r]]] = 1;
    for (uint32_t r = r0; r < r1; r++) {
        uint32_t x = net->lits[net->lit_start[r]];
        for (uint32_t c = cg->cover_head[x]; c != GNET_NONE && cg->cover_mark[x] == 1;
             c = cg->cover_next[c]) {
            uint32_t k0 = net->rule_start[c], k1 = net->rule_start[c + 1];
            bool in = true;
            for (uint32_t k = k0; k < k1 && in; k++)
                in = cg->cover_mark[net->lits[net->lit_start[k]]] != 0;
            if (in) cand[2 * nc] = c, cand[2 * nc + 1] = k1 - k0, nc++;
        }
        cg->cover_mark[x] = 2; /* its list seen (a literal twice in the rules: once) */
    }
    for (uint32_t r = r0; r < r1; r++)
        cg->cover_mark[net->lits[net->lit_start[r]]] = 1;
    qsort(cand, nc, 2 * sizeof *cand, cmp_cover);
    uint32_t np = 0;
    pick = xmalloc((nc + 1) * sizeof *pick);
    for (uint32_t a = 0; a < nc; a++) {
        uint32_t ci = cand[2 * a], fresh = 0;
        for (uint32_t k = net->rule_start[ci]; k < net->rule_start[ci + 1]; k++)
            fresh += cg->cover_mark[net->lits[net->lit_start[k]]] == 1;
        if (fresh < 2) continue;
        for (uint32_t k = net->rule_start[ci]; k < net->rule_start[ci + 1]; k++)
            cg->cover_mark[net->lits[net->lit_start[k]]] = 3;
        pick[np++] = cand[2 * a], done += fresh;
    }
    bool use = np && 2 * done >= n;
    if (use) {
        strbuf_t *c = C(cg);
        sb_printf(c, "v[%u]=", net->order[i]);
        for (uint32_t a = 0; a < np; a++)
            sb_printf(c, "%sv[%u]", a ? "|" : "", net->order[pick[a]]);
        for (uint32_t r = r0; r < r1; r++) {
            uint32_t x = net->lits[net->lit_start[r]];
            if (cg->cover_mark[x] != 1) continue;
            sb_putc(c, '|');
            emit_byte_lit(c, x);
            cg->cover_mark[x] = 3; /* once */
        }
        sb_puts(c, ";\n");
    }
    for (uint32_t r = r0; r < r1; r++)
        cg->cover_mark[net->lits[net->lit_start[r]]] = 0;
    free(cand), free(pick);
    return use;
}

/* After node order[i] is written: a cover for the nodes after it, if it may be one. */
static void add_cover(cg_t *cg, uint32_t i) {
    const gnet_t *net = cg->net;
    uint32_t node = net->order[i];
    if (!cg->covers || cg->in_cyclic || cg->guarded[node] || !literal_or(net, i)) return;
    uint32_t x = net->lits[net->lit_start[net->rule_start[i]]];
    cg->cover_next[i] = cg->cover_head[x], cg->cover_head[x] = i;
}

static void emit_node(cg_t *cg, uint32_t i) {
    if (cg->frame && cg->frame[cg->net->order[i]]) return; /* emit_frames writes it */
    if (emit_vector_node(cg, i)) return;
    uint32_t node = cg->net->order[i];
    if (emit_covered(cg, i)) {
        add_cover(cg, i);
        return;
    }
    node_terms(cg, i);
    if (cg->late[node] == 1 && !cg->n_terms) return; /* 0, or what the scattered rules set */
    if (take_copy(cg, node)) return;
    sb_printf(C(cg), "v[%u]=", node);
    emit_terms(cg, 0, cg->n_terms);
    sb_puts(C(cg), ";\n");
    add_cover(cg, i);
}

static void emit_cyclic(cg_t *cg, const gblock_t *b) {
    const gnet_t *net = cg->net;
    bool can = cg->can_scatter;
    cg->can_scatter = false, cg->in_cyclic = true; /* a fixpoint starts from 0 */
    for (uint32_t i = b->first; i < b->first + b->n; i++)
        sb_printf(C(cg), "v[%u]=0;\n", net->order[i]);
    sb_puts(C(cg), "for(int ch=1;ch;){ch=0;\n");
    for (uint32_t i = b->first; i < b->first + b->n; i++) {
        sb_printf(C(cg), "{U o_=v[%u];", net->order[i]);
        emit_node(cg, i);
        sb_printf(C(cg), "ch|=o_!=v[%u];}\n", net->order[i]);
    }
    sb_puts(C(cg), "}\n");
    cg->can_scatter = can, cg->in_cyclic = false;
}

/* ---- what a node depends on ---- */

/* Per node, the fluents its value depends on (through the nodes it reads): words of
 * n_fluents / 64 + 1, for the state blocks (every node of a cyclic block gets the
 * block's). */
static uint64_t *state_support(const gnet_t *net) {
    uint32_t nw = net->n_fluents / 64 + 1;
    uint64_t *sup = xcalloc((size_t)net->n_nodes * nw + 1, sizeof *sup);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        sup[(size_t)f * nw + f / 64] = 1ull << (f & 63);
    for (uint32_t q = 0; q < net->n_queries; q++) /* a query reads the whole state */
        for (uint32_t f = 0; f < net->n_fluents; f++)
            sup[(size_t)net->query_node[q] * nw + f / 64] |= 1ull << (f & 63);
    for (uint32_t b = 0; b < net->n_state_blocks; b++) {
        const gblock_t *bl = &net->blocks[b];
        uint64_t *u = sup + (size_t)net->order[bl->first] * nw;
        for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
            for (uint32_t l = net->lit_start[net->rule_start[i]];
                 l < net->lit_start[net->rule_start[i + 1]]; l++)
                for (uint32_t k = 0; k < nw; k++)
                    u[k] |= sup[(size_t)(net->lits[l] >> 1) * nw + k];
        for (uint32_t i = bl->first + 1; i < bl->first + bl->n; i++)
            memcpy(sup + (size_t)net->order[i] * nw, u, nw * sizeof *u);
    }
    return sup;
}

/* "if(CHANGED)": whether a fluent of s (words nw) changed (none: nothing, and false). */
static bool emit_if_changed(cg_t *cg, const uint64_t *s, uint32_t nw) {
    bool any = false;
    for (uint32_t k = 0; k < nw; k++)
        if (s[k]) {
            sb_printf(C(cg), "%s(d[%u]&0x%" PRIx64 "ull)", any ? "|" : "if(", k, s[k]);
            any = true;
        }
    if (any) sb_puts(C(cg), ")");
    return any;
}

/* "if(CHANGED)" before the node when its value is worth keeping across unchanged steps:
 * d[] holds the fluents that changed (all of them outside the playout loop). */
static void emit_skip_test(cg_t *cg, const uint64_t *sup, uint32_t i) {
    const gnet_t *net = cg->net;
    uint32_t nw = net->n_fluents / 64 + 1;
    if (!sup || node_lits(net, i) < SKIP_MIN_LITS) return;
    emit_if_changed(cg, sup + (size_t)net->order[i] * nw, nw);
}

static uint32_t block_lits(const gnet_t *net, uint32_t b) {
    const gblock_t *bl = &net->blocks[b];
    return net->lit_start[net->rule_start[bl->first + bl->n]] -
           net->lit_start[net->rule_start[bl->first]];
}

/* A node too big for one function: split into functions of its own. */
static bool is_huge(const gnet_t *net, uint32_t b) {
    return !net->blocks[b].cyclic && block_lits(net, b) > FUNC_LITS;
}

/* The guard of every acyclic block of [from, to) (GNET_NONE: none): the fluent, among
 * those every rule of the node has positive, that most nodes of the range share; in the
 * move blocks (zeroed first: a node whose guard is off needs no code) any node computed
 * before them, a move too, and the scattered rules do not count. */
static uint32_t *block_guards(const cg_t *cg, uint32_t from, uint32_t to, bool moves) {
    const gnet_t *net = cg->net;
    uint32_t lim = moves ? net->n_nodes : net->n_fluents, *freq = xcalloc(lim + 1, sizeof *freq);
    uint32_t *guard = xmalloc((to - from + 1) * sizeof *guard), *rs = NULL;
    size_t cap = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t b = from; b < to; b++) {
            const gblock_t *bl = &net->blocks[b];
            uint32_t i = bl->first, n = 0, best = GNET_NONE;
            for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++)
                if (!cg->rule_scattered[r]) GROW(rs, cap, n + 1), rs[n++] = r;
            bool can = !bl->cyclic && !is_huge(net, b) && n > 0;
            for (uint32_t l = can ? net->lit_start[rs[0]] : 0; can && l < net->lit_start[rs[0] + 1];
                 l++) {
                uint32_t x = net->lits[l];
                if ((x & 1) || (x >> 1) >= lim || (moves && cg->late[x >> 1])) continue;
                bool in_all = true;
                for (uint32_t k = 1; k < n && in_all; k++) {
                    in_all = false;
                    for (uint32_t e = net->lit_start[rs[k]];
                         e < net->lit_start[rs[k] + 1] && !in_all; e++)
                        in_all = net->lits[e] == x;
                }
                if (!in_all) continue;
                if (pass == 0)
                    freq[x >> 1]++;
                else if (best == GNET_NONE || freq[x >> 1] > freq[best])
                    best = x >> 1;
            }
            if (pass == 1)
                guard[b - from] =
                    best != GNET_NONE && freq[best] >= GUARD_MIN_NODES ? best : GNET_NONE;
        }
    free(freq), free(rs);
    return guard;
}

/* Calls f(ctx, src, dst) for every dependency between two blocks of [from, to) (src
 * computes a node dst reads; indices from `from`). */
static void each_dependency(const gnet_t *net, uint32_t from, uint32_t to, const uint32_t *blk_of,
                            void (*f)(void *, uint32_t, uint32_t), void *ctx) {
    for (uint32_t b = from; b < to; b++) {
        const gblock_t *bl = &net->blocks[b];
        for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
            for (uint32_t l = net->lit_start[net->rule_start[i]];
                 l < net->lit_start[net->rule_start[i + 1]]; l++) {
                uint32_t src = blk_of[net->lits[l] >> 1];
                if (src != GNET_NONE && src != b - from) f(ctx, src, b - from);
            }
    }
}

typedef struct {
    uint32_t *start, *fill, *adj, *waiting;
} graph_t;

static void count_edge(void *ctx, uint32_t src, uint32_t dst) {
    graph_t *gr = ctx;
    gr->start[src + 1]++;
    gr->waiting[dst]++;
}

static void add_edge(void *ctx, uint32_t src, uint32_t dst) {
    graph_t *gr = ctx;
    (void)dst;
    gr->adj[gr->start[src] + gr->fill[src]++] = dst;
}

static uint32_t support_size(const uint64_t *a, const uint64_t *b, uint32_t nw) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < nw; k++)
        n += (uint32_t)__builtin_popcountll(a[k] | (b ? b[k] : 0));
    return n;
}

/* The blocks of [from, to) in an order that respects their dependencies and keeps the
 * blocks of a guard together: a topological order that takes, among the blocks ready,
 * one without a guard (with sup: the one, among the first 64 ready, that adds the fewest
 * fluents to the current segment's), else one of the current guard, else starts another
 * guard. */
static uint32_t *schedule(const gnet_t *net, uint32_t from, uint32_t to, const uint32_t *guard,
                          const uint64_t *sup) {
    uint32_t n = to - from, nf = net->n_fluents, nw = nf / 64 + 1;
    uint32_t *blk_of = xmalloc((net->n_nodes + 1) * sizeof *blk_of);
    for (uint32_t k = 0; k < net->n_nodes; k++)
        blk_of[k] = GNET_NONE;
    for (uint32_t b = from; b < to; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++)
            blk_of[net->order[i]] = b - from;
    graph_t gr = {xcalloc(n + 2, sizeof(uint32_t)), xcalloc(n + 1, sizeof(uint32_t)), NULL,
                  xcalloc(n + 1, sizeof(uint32_t))};
    each_dependency(net, from, to, blk_of, count_edge, &gr);
    for (uint32_t k = 0; k < n; k++)
        gr.start[k + 1] += gr.start[k];
    gr.adj = xmalloc((gr.start[n] + 1) * sizeof *gr.adj);
    each_dependency(net, from, to, blk_of, add_edge, &gr);
    /* ready blocks: a stack per guard fluent; those without a guard in a list */
    uint32_t ng = net->n_nodes; /* guards are node ids */
    uint32_t *link = xmalloc((n + 1) * sizeof *link), *head = xmalloc((ng + 1) * sizeof *head);
    uint32_t *free_ready = xmalloc((n + 1) * sizeof *free_ready), n_free = 0;
    uint64_t *seg = xcalloc(nw, sizeof *seg);
    for (uint32_t k = 0; k <= ng; k++)
        head[k] = GNET_NONE;
    for (uint32_t k = 0; k < n; k++)
        if (!gr.waiting[k]) {
            if (guard[k] == GNET_NONE)
                free_ready[n_free++] = k;
            else
                link[k] = head[guard[k]], head[guard[k]] = k;
        }
    uint32_t *out = xmalloc((n + 1) * sizeof *out), cur = GNET_NONE, scan = 0;
    for (uint32_t done = 0; done < n; done++) {
        uint32_t b;
        if (n_free) {
            uint32_t pick = 0;
            if (sup) {
                uint32_t best = UINT32_MAX, base = support_size(seg, NULL, nw);
                for (uint32_t j = 0; j < n_free && j < 64 && best; j++) {
                    const uint64_t *sb =
                        sup + (size_t)net->order[net->blocks[free_ready[j] + from].first] * nw;
                    uint32_t grow = support_size(seg, sb, nw) - base;
                    if (grow < best) best = grow, pick = j;
                }
                const uint64_t *sb =
                    sup + (size_t)net->order[net->blocks[free_ready[pick] + from].first] * nw;
                if (support_size(seg, sb, nw) > SEG_MAX_FLUENTS) memset(seg, 0, nw * sizeof *seg);
                for (uint32_t k = 0; k < nw; k++)
                    seg[k] |= sb[k];
            }
            b = free_ready[pick];
            free_ready[pick] = free_ready[--n_free];
        } else {
            if (cur == GNET_NONE || head[cur] == GNET_NONE) { /* start another guard */
                while (head[scan] == GNET_NONE)
                    scan = scan + 1 == ng ? 0 : scan + 1;
                cur = scan;
            }
            b = head[cur];
            head[cur] = link[b];
            memset(seg, 0, nw * sizeof *seg);
        }
        out[done] = b + from;
        for (uint32_t e = gr.start[b]; e < gr.start[b + 1]; e++)
            if (--gr.waiting[gr.adj[e]] == 0) {
                uint32_t x = gr.adj[e];
                if (guard[x] == GNET_NONE)
                    free_ready[n_free++] = x;
                else
                    link[x] = head[guard[x]], head[guard[x]] = x;
            }
    }
    free(blk_of), free(gr.start), free(gr.fill), free(gr.adj), free(gr.waiting);
    free(link), free(head), free(free_ready), free(seg);
    return out;
}

static const uint64_t *block_support(const gnet_t *net, const uint64_t *sup, uint32_t b) {
    return sup + (size_t)net->order[net->blocks[b].first] * (net->n_fluents / 64 + 1);
}

/* "if(CHANGED){" for the fluents of s (none: nothing, and false) */
static bool emit_change_test(cg_t *cg, const uint64_t *s, uint32_t nw) {
    bool any = emit_if_changed(cg, s, nw);
    if (any) sb_puts(C(cg), "{\n");
    return any;
}

/* Runs of ZERO_STORES_MIN to ZERO_STORES_MAX bytes zeroed by explicit 16- and 32-byte
 * stores (z16, z32), the others by a memset: gcc 12 at -O1 turns a memset of about 128
 * bytes or more into `rep stos`, whose start costs tens of cycles (breakthroughWalls: a
 * role's 140 legal nodes cleared at every change of turn, 19% of the play blocks' samples
 * on the instruction after it); past ZERO_STORES_MAX its start is a small part and the
 * stores' text would grow with the run. */
#define ZERO_STORES_MIN 16
#define ZERO_STORES_MAX 1024

/* Zeroes bytes [at, at + n) of v: z32 from at on, the last one ending at at + n (over
 * bytes already zeroed when n is not a multiple of 32), or two z16 under 32 bytes. */
static void emit_zero_run(strbuf_t *c, uint32_t at, uint32_t n) {
    if (n < ZERO_STORES_MIN || n > ZERO_STORES_MAX) {
        sb_printf(c, "__builtin_memset(v+%u,0,%u);", at, n);
    } else if (n < 32) {
        sb_printf(c, "z16(v+%u);z16(v+%u);", at, at + n - 16);
    } else {
        uint32_t k = 0;
        for (; k + 32 <= n; k += 32)
            sb_printf(c, "z32(v+%u);", at + k);
        if (k < n) sb_printf(c, "z32(v+%u);", at + n - 32);
    }
}

/* Zeroes the nodes of n (acyclic) blocks: runs of consecutive nodes as one emit_zero_run. */
static void emit_zeroes(cg_t *cg, const uint32_t *blocks, uint32_t n) {
    const gnet_t *net = cg->net;
    uint32_t *nodes = xmalloc((n + 1) * sizeof *nodes);
    for (uint32_t j = 0; j < n; j++)
        nodes[j] = net->order[net->blocks[blocks[j]].first];
    qsort(nodes, n, sizeof *nodes, cmp_u32);
    for (uint32_t j = 0, e; j < n; j = e) {
        for (e = j + 1; e < n && nodes[e] == nodes[e - 1] + 1;)
            e++;
        if (e - j == 1)
            sb_printf(C(cg), "v[%u]=0;", nodes[j]);
        else
            emit_zero_run(C(cg), nodes[j], e - j);
    }
    sb_puts(C(cg), "\n");
    free(nodes);
}

static void emit_block(cg_t *cg, const uint64_t *sup, uint32_t b) {
    const gblock_t *bl = &cg->net->blocks[b];
    if (bl->cyclic) {
        emit_cyclic(cg, bl);
    } else {
        emit_skip_test(cg, sup, bl->first);
        emit_node(cg, bl->first);
    }
}

/* ---- functions and units ---- */

typedef struct {
    const char *name, *params; /* the functions' names and parameters */
    bool moves;                /* the move blocks: move sets read m */
    uint32_t parts;
    bool open;
} phase_t;

/* The next unit when this one is full. */
static void unit_room(cg_t *cg) {
    if (cg->unit_bytes && C(cg)->len + cg->data[cg->cur].len > cg->unit_bytes) {
        cg->cur = cg->n_units++;
        cg->code = xrealloc(cg->code, cg->n_units * sizeof *cg->code);
        cg->data = xrealloc(cg->data, cg->n_units * sizeof *cg->data);
        sb_init(&cg->code[cg->cur]), sb_init(&cg->data[cg->cur]);
    }
}

/* Opens the phase's next function, in the next unit when this one is full. */
static void open_part(cg_t *cg, phase_t *ph) {
    unit_room(cg);
    sb_printf(C(cg), "PART void %s_%u(%s){\n", ph->name, ph->parts++, ph->params);
    /* the move sets' word and bit (a shift by a variable in every test costs the compiler's
     * combiner time quadratic in their number) */
    for (uint32_t r = 0; ph->moves && r < cg->net->n_roles; r++)
        sb_printf(C(cg), "const unsigned q%u=m[%u]>>6;const W64 b%u=1ull<<(m[%u]&63);\n", r, r, r,
                  r);
    ph->open = true;
}

static void close_part(cg_t *cg, phase_t *ph) {
    if (!ph->open) return;
    sb_puts(C(cg), "}\n");
    ph->open = false;
}

/* A file-scope table of this many entries or more, in a program of several units, is a
 * unit of its own (open_table). */
#define TABLE_UNIT_MIN 16384

/* Opens the file-scope table "TYPE NAME[n]={" and returns where its entries go (to be
 * closed with "};" before the next table is opened): c, or in a program of several units,
 * for a big table, a new unit, the table declared in c, so that unit 0 (the kernels and the
 * playout loop) is not one translation unit of all the tables (alexChess's: 19.9 MB of
 * text, 10.9 CPU s and 400 MB of cc, done after the rest) and cc compiles them in
 * parallel. */
static strbuf_t *open_table(cg_t *cg, strbuf_t *c, const char *type, const char *name, size_t n) {
    if (!cg->split_tables || n < TABLE_UNIT_MIN) {
        sb_printf(c, "static const %s %s[%zu]={", type, name, n);
        return c;
    }
    uint32_t u = cg->n_units++;
    cg->code = xrealloc(cg->code, cg->n_units * sizeof *cg->code);
    cg->data = xrealloc(cg->data, cg->n_units * sizeof *cg->data);
    sb_init(&cg->code[u]), sb_init(&cg->data[u]);
    sb_printf(c, "PART extern const %s %s[%zu];\n", type, name, n);
    sb_printf(&cg->data[u], "PART const %s %s[%zu]={", type, name, n);
    return &cg->data[u];
}

/* A node too big for one function: its terms in functions of about FUNC_LITS bytes of
 * text each, the first assigning and the others ORing (each behind the node's skip test). */
static void emit_huge(cg_t *cg, phase_t *ph, const uint64_t *sup, uint32_t b) {
    uint32_t i = cg->net->blocks[b].first, node = cg->net->order[i];
    close_part(cg, ph);
    node_terms(cg, i);
    size_t budget = 24 * FUNC_LITS; /* bytes of terms: about FUNC_LITS literals */
    for (size_t t = 0, e; t < cg->n_terms || t == 0; t = e) {
        size_t s = t ? cg->term_end[t - 1] : 0;
        for (e = t + 1; e < cg->n_terms && cg->term_end[e] - s < budget;)
            e++;
        if (e > cg->n_terms) e = cg->n_terms;
        open_part(cg, ph);
        emit_skip_test(cg, sup, i);
        sb_printf(C(cg), "v[%u]%s=", node, t ? "|" : "");
        emit_terms(cg, t, e);
        sb_puts(C(cg), ";\n");
        close_part(cg, ph);
        if (e == t) break;
    }
}

/* A guard group from order[k]: its blocks (the guard's run, to a function's worth),
 * behind if(guard); when the guard is off they are 0, written when it turned off (the move
 * blocks are zeroed already). Returns where the group ends, its cost added to *cost. */
static uint32_t emit_group(cg_t *cg, const phase_t *ph, const uint32_t *order, uint32_t k,
                           uint32_t n, const uint32_t *guard, const uint64_t *sup, uint32_t *cost) {
    const gnet_t *net = cg->net;
    uint32_t g = guard[order[k]], end = k + 1;
    while (end < n && guard[order[end]] == g && *cost < FUNC_LITS)
        *cost += block_lits(net, order[end++]) + 1;
    sb_printf(C(cg), "if(v[%u]){\n", g);
    for (uint32_t j = k; j < end; j++)
        emit_block(cg, sup, order[j]);
    if (ph->moves) {
        sb_puts(C(cg), "}\n");
        return end;
    }
    sb_printf(C(cg), "}else if(d[%u]&0x%llxull){\n", g / 64, 1ull << (g & 63));
    emit_zeroes(cg, order + k, end - k);
    sb_puts(C(cg), "}\n");
    return end;
}

/* Guard groups from order[k] (guard indexed by block): consecutive groups whose guards are
 * fluents of one word behind one test of the word (and of its changes, outside the move
 * blocks): in a board game most cells are empty, most words of guards 0. Returns where
 * they end, their cost added to *cost (from the first block's). */
static uint32_t emit_guards(cg_t *cg, const phase_t *ph, const uint32_t *order, uint32_t k,
                            uint32_t n, const uint32_t *guard, const uint64_t *sup,
                            uint32_t *cost) {
    const gnet_t *net = cg->net;
    uint32_t g = guard[order[k]], word = g / 64, end = k, groups = 0;
    uint64_t mask = 0;
    if (g >= net->n_fluents) return emit_group(cg, ph, order, k, n, guard, sup, cost);
    /* the extent first: groups while their guards are fluents of the word */
    uint32_t c = *cost - block_lits(net, order[k]) - 1;
    for (uint32_t e = k; e < n && c < FUNC_LITS;) {
        uint32_t h = guard[order[e]];
        if (h == GNET_NONE || h >= net->n_fluents || h / 64 != word) break;
        mask |= 1ull << (h & 63), groups++;
        for (; e < n && guard[order[e]] == h && c < FUNC_LITS; e++)
            c += block_lits(net, order[e]) + 1;
        end = e;
    }
    if (groups < 2) return emit_group(cg, ph, order, k, n, guard, sup, cost);
    if (ph->moves)
        sb_printf(C(cg), "if(w[%u]&0x%" PRIx64 "ull){\n", word, mask);
    else
        sb_printf(C(cg), "if((w[%u]|d[%u])&0x%" PRIx64 "ull){\n", word, word, mask);
    *cost = 0;
    for (uint32_t j = k; j < end;) {
        uint32_t part = block_lits(net, order[j]) + 1;
        j = emit_group(cg, ph, order, j, end, guard, sup, &part);
        *cost += part;
    }
    sb_puts(C(cg), "}\n");
    return end;
}

/* Functions NAME_0 .. NAME_k for blocks [from, to) (the body, which calls them in order, is
 * written with the kernels). sup: the state support, for the skip tests and segments
 * (NULL: none). */
static void emit_phase(cg_t *cg, phase_t *ph, uint32_t from, uint32_t to, const uint64_t *sup) {
    const gnet_t *net = cg->net;
    uint32_t lits = 0, n = to - from, nw = net->n_fluents / 64 + 1;
    uint32_t *guard = block_guards(cg, from, to, ph->moves);
    uint32_t *order = schedule(net, from, to, guard, sup);
    uint64_t *seg = xcalloc(nw, sizeof *seg);
    /* the guards of runs too short for a group do not count */
    for (uint32_t k = 0, end; k < n; k = end) {
        uint32_t g = guard[order[k] - from];
        for (end = k + 1; g != GNET_NONE && end < n && guard[order[end] - from] == g;)
            end++;
        for (uint32_t j = k; j < end && end - k < GUARD_MIN_NODES; j++)
            guard[order[j] - from] = GNET_NONE;
    }
    for (uint32_t k = 0, end; k < n; k = end) {
        uint32_t g = guard[order[k] - from], cost = block_lits(net, order[k]) + 1;
        end = k + 1;
        if (is_huge(net, order[k])) {
            emit_huge(cg, ph, sup, order[k]);
            lits = 0;
            continue;
        }
        if (!ph->open) open_part(cg, ph);
        if (g != GNET_NONE) {
            end = emit_guards(cg, ph, order, k, n, guard - from, sup, &cost);
        } else if (sup) { /* a segment */
            memcpy(seg, block_support(net, sup, order[k]), nw * sizeof *seg);
            while (end < n && guard[order[end] - from] == GNET_NONE && cost < FUNC_LITS &&
                   !is_huge(net, order[end]) &&
                   support_size(seg, block_support(net, sup, order[end]), nw) <= SEG_MAX_FLUENTS) {
                for (uint32_t w = 0; w < nw; w++)
                    seg[w] |= block_support(net, sup, order[end])[w];
                cost += block_lits(net, order[end++]) + 1;
            }
            bool test = end - k > 1 && support_size(seg, NULL, nw) <= SEG_MAX_FLUENTS &&
                        emit_change_test(cg, seg, nw);
            for (uint32_t j = k; j < end; j++)
                emit_block(cg, sup, order[j]);
            if (test) sb_puts(C(cg), "}\n");
        } else {
            emit_block(cg, sup, order[k]);
        }
        lits += cost;
        if (lits >= FUNC_LITS || end == n) {
            close_part(cg, ph);
            lits = 0;
        }
    }
    close_part(cg, ph);
    free(guard), free(order), free(seg);
}

/* ---- the play blocks driven by changes (a big network) ---- */

/* From this many state nodes the play blocks are evaluated by change: a node is evaluated
 * when a node or fluent it reads changed (skirmishNew: of 19,085 state nodes 404 a step),
 * not every node every step behind tests of the fluents they depend on. */
#define EVENT_MIN_NODES 2000

/* Whether the play blocks are evaluated by change: from EVENT_MIN_NODES state nodes, or
 * GGP_EVENT_NODES (for the tests: 0, always). */
static bool use_events(const gnet_t *net) {
    const char *e = getenv("GGP_EVENT_NODES");
    uint32_t min = e && *e ? (uint32_t)atol(e) : EVENT_MIN_NODES;
    /* events start from the fluents that changed: a query node's change is not one */
    if (!net->n_play_blocks || net->n_queries) return false;
    const gblock_t *last = &net->blocks[net->n_state_blocks - 1];
    return last->first + last->n >= min;
}

/* Positions: the play blocks in a topological order; a bit per position in D[] says it is
 * to be evaluated (its inputs changed), in order: a change only marks later positions. */
typedef struct {
    uint32_t n_pos, *block, *pos_of; /* pos_of: per node, GNET_NONE when not a play node */
    uint32_t *rd_start, *rd;         /* per position: the positions that read it */
    uint32_t *fr_start, *fr;         /* per fluent: the positions that read it */
    uint32_t *huge_part;             /* per position: its first function (huge nodes) */
    /* copies: a node whose one rule is one literal of a node of another position is
     * written by that position's case when it changes (no event of its own but when
     * every position is evaluated): per position the literal, GNET_NONE: none */
    uint32_t *copy;
} events_t;

static int cmp_pair(const void *a, const void *b) {
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Pairs (from, to) sorted and unique as lists per from (n lists): start[n + 1], list. */
static void make_lists(uint32_t *pairs, size_t np, uint32_t n, uint32_t **start, uint32_t **list) {
    if (np) qsort(pairs, np, 2 * sizeof *pairs, cmp_pair);
    *start = xcalloc(n + 2, sizeof **start);
    *list = xmalloc((np + 1) * sizeof **list);
    size_t k = 0;
    for (size_t i = 0; i < np; i++) {
        if (i && pairs[2 * i] == pairs[2 * i - 2] && pairs[2 * i + 1] == pairs[2 * i - 1]) continue;
        (*start)[pairs[2 * i] + 1]++;
        (*list)[k++] = pairs[2 * i + 1];
    }
    for (uint32_t i = 0; i < n; i++)
        (*start)[i + 1] += (*start)[i];
}

static void events_init(events_t *ev, const gnet_t *net) {
    uint32_t n = net->n_play_blocks, *none = xcalloc(n + 1, sizeof *none);
    for (uint32_t b = 0; b < n; b++)
        none[b] = GNET_NONE;
    ev->n_pos = n;
    ev->block = schedule(net, 0, n, none, NULL);
    free(none);
    ev->pos_of = xmalloc((net->n_nodes + 1) * sizeof *ev->pos_of);
    for (uint32_t k = 0; k < net->n_nodes; k++)
        ev->pos_of[k] = GNET_NONE;
    size_t np = 0, nf = 0, cap = 0, capf = 0;
    uint32_t *pairs = NULL, *fpairs = NULL;
    for (uint32_t p = 0; p < n; p++) {
        const gblock_t *bl = &net->blocks[ev->block[p]];
        for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
            ev->pos_of[net->order[i]] = p;
    }
    for (uint32_t p = 0; p < n; p++) {
        const gblock_t *bl = &net->blocks[ev->block[p]];
        for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
            for (uint32_t l = net->lit_start[net->rule_start[i]];
                 l < net->lit_start[net->rule_start[i + 1]]; l++) {
                uint32_t y = net->lits[l] >> 1, q = ev->pos_of[y];
                if (q != GNET_NONE && q != p) {
                    GROW(pairs, cap, 2 * np + 2);
                    pairs[2 * np] = q, pairs[2 * np + 1] = p, np++;
                } else if (y < net->n_fluents) {
                    GROW(fpairs, capf, 2 * nf + 2);
                    fpairs[2 * nf] = y, fpairs[2 * nf + 1] = p, nf++;
                }
            }
    }
    ev->copy = xmalloc((n + 1) * sizeof *ev->copy);
    for (uint32_t p = 0; p < n; p++) {
        const gblock_t *bl = &net->blocks[ev->block[p]];
        uint32_t i = bl->first, r = net->rule_start[i], x = net->lits[net->lit_start[r]];
        bool one = !bl->cyclic && bl->n == 1 && net->rule_start[i + 1] == r + 1 &&
                   net->lit_start[r + 1] == net->lit_start[r] + 1;
        ev->copy[p] =
            one && ev->pos_of[x >> 1] != GNET_NONE && ev->pos_of[x >> 1] != p ? x : GNET_NONE;
    }
    make_lists(pairs, np, n, &ev->rd_start, &ev->rd);
    make_lists(fpairs, nf, net->n_fluents, &ev->fr_start, &ev->fr);
    free(pairs), free(fpairs);
    ev->huge_part = xmalloc((n + 1) * sizeof *ev->huge_part);
}

static void events_fini(events_t *ev) {
    free(ev->block), free(ev->pos_of), free(ev->rd_start), free(ev->rd), free(ev->fr_start);
    free(ev->fr), free(ev->huge_part), free(ev->copy);
}

/* D[...] |= the bits of positions list[0..n) (sorted), a word at a time. */
static void emit_marks(strbuf_t *c, const uint32_t *list, uint32_t n) {
    for (uint32_t j = 0, e; j < n; j = e) {
        uint64_t mask = 0;
        for (e = j; e < n && list[e] / 64 == list[j] / 64; e++)
            mask |= 1ull << (list[e] & 63);
        sb_printf(c, "D[%u]|=0x%" PRIx64 "ull;", list[j] / 64, mask);
    }
}

/* What a change of position p does: its copies written (and theirs), the other readers
 * of them all added to marks (*n of them). */
static void emit_copies(strbuf_t *c, const gnet_t *net, const events_t *ev, uint32_t p,
                        uint32_t **marks, uint32_t *n, size_t *cap) {
    for (uint32_t k = ev->rd_start[p]; k < ev->rd_start[p + 1]; k++) {
        uint32_t r = ev->rd[k], x = ev->copy[r];
        if (x == GNET_NONE || ev->pos_of[x >> 1] != p) {
            GROW(*marks, *cap, *n + 1);
            (*marks)[(*n)++] = r;
            continue;
        }
        sb_printf(c, "v[%u]=%sv[%u];", net->order[net->blocks[ev->block[r]].first],
                  x & 1 ? "!" : "", x >> 1);
        emit_copies(c, net, ev, r, marks, n, cap);
    }
}

/* Position p: when its bit is set, its nodes evaluated and, when one changed, their
 * readers marked (a position nothing reads is evaluated and no more). */
static void emit_event_case(cg_t *cg, const events_t *ev, uint32_t p, const phase_t *huge) {
    const gnet_t *net = cg->net;
    const gblock_t *bl = &net->blocks[ev->block[p]];
    strbuf_t *c = C(cg);
    bool read = ev->rd_start[p + 1] > ev->rd_start[p];
    sb_printf(c, "if(D[%u]&0x%llxull){", p / 64, 1ull << (p & 63));
    if (read) {
        sb_printf(c, "U o_[%u];", bl->n);
        for (uint32_t j = 0; j < bl->n; j++)
            sb_printf(c, "o_[%u]=v[%u];", j, net->order[bl->first + j]);
    }
    sb_putc(c, '\n');
    if (bl->cyclic) {
        emit_cyclic(cg, bl);
    } else if (is_huge(net, ev->block[p])) {
        for (uint32_t k = ev->huge_part[p]; k < ev->huge_part[p + 1]; k++)
            sb_printf(C(cg), "%s_%u(v,w,w,0);", huge->name, k);
    } else {
        emit_node(cg, bl->first);
    }
    c = C(cg);
    if (!read) {
        sb_puts(c, "}\n");
        return;
    }
    sb_puts(c, "if(");
    for (uint32_t j = 0; j < bl->n; j++)
        sb_printf(c, "%s(o_[%u]!=v[%u])", j ? "|" : "", j, net->order[bl->first + j]);
    sb_puts(c, "){");
    uint32_t *marks = NULL, n = 0;
    size_t cap = 0;
    emit_copies(c, net, ev, p, &marks, &n, &cap);
    if (n) qsort(marks, n, sizeof *marks, cmp_u32);
    uint32_t u = 0;
    for (uint32_t k = 0; k < n; k++)
        if (!u || marks[k] != marks[u - 1]) marks[u++] = marks[k];
    emit_marks(c, marks, u);
    free(marks);
    sb_puts(c, "}}\n");
}

/* The mask of positions [from, to) in word k. */
static uint64_t word_mask(uint32_t from, uint32_t to, uint32_t k) {
    uint64_t m = ~0ull;
    if (from > 64 * k) m &= ~0ull << (from - 64 * k);
    if (to < 64 * k + 64) m &= (1ull << (to - 64 * k)) - 1;
    return m;
}

/* Functions ggp_ev_K over the positions, about FUNC_LITS literals each: straight-line code
 * in position order, each position behind a test of its bit, each 8 behind a test of
 * their byte and each 64 behind a test of their word (a word with one mark then reads
 * the code of 16 positions, not 64: skirmishNew's instruction cache) (a loop over the marked bits
 * with a switch on the position was 2.9x slower on knightwar, callgrind: its indirect jump per
 * position). The huge nodes' functions come first (ggp_evh_K). Returns the number of ggp_ev
 * functions; *ranges their first positions (and the end). */
static uint32_t emit_events(cg_t *cg, const events_t *ev, phase_t *ph, phase_t *huge,
                            uint32_t **ranges) {
    const gnet_t *net = cg->net;
    for (uint32_t p = 0; p < ev->n_pos; p++) {
        ev->huge_part[p] = huge->parts;
        if (is_huge(net, ev->block[p])) emit_huge(cg, huge, NULL, ev->block[p]);
    }
    ev->huge_part[ev->n_pos] = huge->parts;
    uint32_t *r = xmalloc((ev->n_pos + 2) * sizeof *r), n = 0;
    for (uint32_t p = 0, end; p < ev->n_pos; p = end) {
        uint32_t cost = 0;
        for (end = p; end < ev->n_pos && (end == p || cost < FUNC_LITS); end++)
            cost += (is_huge(net, ev->block[end]) ? 8 : block_lits(net, ev->block[end])) + 4;
        r[n++] = p;
        open_part(cg, ph);
        for (uint32_t k = p / 64; k <= (end - 1) / 64; k++) {
            sb_printf(C(cg), "if(D[%u]&0x%" PRIx64 "ull){\n", k, word_mask(p, end, k));
            uint32_t q0 = p > 64 * k ? p : 64 * k, q1 = end < 64 * k + 64 ? end : 64 * k + 64;
            for (uint32_t g = q0; g < q1; g = (g / 8 + 1) * 8) { /* groups of 8 bits */
                uint32_t ge = (g / 8 + 1) * 8 < q1 ? (g / 8 + 1) * 8 : q1;
                sb_printf(C(cg), "if(D[%u]&0x%" PRIx64 "ull){\n", k, word_mask(g, ge, k));
                for (uint32_t q = g; q < ge; q++)
                    emit_event_case(cg, ev, q, huge);
                sb_puts(C(cg), "}\n");
            }
            sb_puts(C(cg), "}\n");
        }
        close_part(cg, ph);
    }
    r[n] = ev->n_pos;
    *ranges = r;
    return n;
}

/* ggp_play_from: the play blocks of the state in the fluent bytes, the node values those
 * of the state prev (fluent words), evaluated: only what the changed fluents feed
 * (legal_unfix reads the guards of prev: its fluent bytes put back meanwhile). */
static void emit_play_from(strbuf_t *c) {
    sb_puts(c, "void ggp_play_from(U *restrict v,const W64 *restrict prev){W64 w[NW],d[NW];"
               "static const unsigned m[1];pack(v,w);\n"
               "for(unsigned k=0;k<NW;k++)d[k]=w[k]^prev[k];\n"
               "unpack(v,prev);legal_unfix(v);unpack(v,w);ggp_play_body(v,w,d,m);legal_fix(v);}"
               "\n");
}

/* Turn guards: a fluent literal that guards this many table positions or more is a turn
 * guard (whose turn it is: alexChess's (control white) guards 17,299, chess's 2,214, most
 * of them 0 at any time). A guard marks the positions it guards whenever it changes, each
 * record then read: at every step a turn marked 35,000 records in alexChess to change a
 * few hundred nodes, where prop.c updates a count per rule. A position of a turn guard
 * keeps instead the OR of its rules without the guard (its rest) in a byte X of its own,
 * evaluated whenever another input changes, the guard on or off (it sets no Z); its node
 * is the rest and the guard. A change of the guard marks only the positions whose rest
 * holds, found by a scan of the guard's X bytes (8 a word, mostly 0). (Marking a position
 * while its guard is off and evaluating it when it turns on instead: alexChess 0.7-1.0x.)
 * In guard[] a turn guard is its literal | TURN_BIT. */
#define TURN_MIN_POSITIONS 1000
/* ... and at least a TURN_SHARE-th of them all: a guard that changes at every step (whose
 * turn it is: alexChess's 15%). Of a few percent (chess's turn 2.4%, amazons' 0.6%) it is
 * not (amazons 0.74-0.82x): those positions' marks while it is off cost more than their
 * evaluation when it turns on. */
#define TURN_SHARE 16
#define TURN_BIT 0x40000000u

static size_t turn_at(const gnet_t *net);

/* The fewest positions of a turn guard, of n_pos: TURN_MIN_POSITIONS and a TURN_SHARE-th,
 * or GGP_TURN_MIN (for the tests: 1, every fluent guard). */
static uint32_t turn_min(uint32_t n_pos) {
    const char *e = getenv("GGP_TURN_MIN");
    if (e && *e) return (uint32_t)atol(e);
    return n_pos / TURN_SHARE > TURN_MIN_POSITIONS ? n_pos / TURN_SHARE : TURN_MIN_POSITIONS;
}

static bool is_turn_of(uint32_t guard, uint32_t src) {
    return guard != GNET_NONE && (guard & TURN_BIT) && (guard & ~TURN_BIT) >> 1 == src;
}

/* The bytes of X: at most n_play_blocks positions, each group's start aligned to 8, and
 * a word of padding (its scan reads whole words). */
static size_t turn_bytes(const gnet_t *net) {
    return ((size_t)net->n_play_blocks + 8 * (net->n_play_blocks / TURN_MIN_POSITIONS + 2)) / 8 * 8;
}

/* Words and bits of D (wd, mk) for the positions of list[0..n) (sorted) whose guard
 * (guard: per position a literal, GNET_NONE: none; NULL: no guards) is a literal of node
 * src (own) or not (!own), but those src is the turn guard of (find_turns: its change
 * marks them by their rest, X); returns how many. */
static uint32_t reader_words(strbuf_t *wd, strbuf_t *mk, const uint32_t *list, uint32_t n,
                             const uint32_t *guard, uint32_t src, bool own) {
    uint32_t ne = 0;
    for (uint32_t j = 0; j < n;) {
        uint64_t mask = 0;
        uint32_t word = list[j] / 64;
        for (; j < n && list[j] / 64 == word; j++)
            if (!guard || ((guard[list[j]] != GNET_NONE && guard[list[j]] >> 1 == src) == own &&
                           !is_turn_of(guard[list[j]], src)))
                mask |= 1ull << (list[j] & 63);
        if (!mask) continue;
        sb_printf(wd, "%u,", word);
        sb_printf(mk, "0x%" PRIx64 "ull,", mask);
        ne++;
    }
    return ne;
}

/* A change of a turn guard's fluent marks the positions whose rest holds (X). */
static void emit_turn_marks(strbuf_t *c, const cg_t *cg) {
    if (cg->n_turns) sb_putc(c, '\n');
    for (uint32_t t = 0; t < cg->n_turns; t++) {
        uint32_t f = cg->turn_lit[t] >> 1, end = cg->turn_base[t + 1];
        sb_printf(c,
                  "if((d[%u]>>%u)&1)for(unsigned i=%u;i<%u;i+=8)"
                  "for(W64 b=ld8(X+i);b;b&=b-1){unsigned j=i+((unsigned)__builtin_ctzll(b)>>3);"
                  "MK(TW_[j],TM_[j]);}\n",
                  f / 64, f % 64, cg->turn_base[t], end);
    }
}

/* The start of the event kernel's body on tables: D, a bit per position to evaluate, and
 * S, a bit per word of D that may have one (so that a step with 80 positions to evaluate
 * among 16,000 reads a few words); MK(k, bits) marks positions. All, or those that read a
 * fluent that changed (FO_ gives per fluent two lists in FW_/FM_: those it guards, and the
 * others then left out while their guard is off, Z). */
static void emit_table_marks(strbuf_t *c, const cg_t *cg, const events_t *ev, uint32_t nd,
                             size_t z_at) {
    uint32_t ns = nd / 64 + 1;
    char xdecl[64] = "";
    if (cg->n_turns) snprintf(xdecl, sizeof xdecl, "U *restrict X=v+%zu;", turn_at(cg->net));
    sb_printf(c,
              "static inline void ggp_play_body(%s){\nW64 D[%u],S[%u];\n"
              "W64 *restrict Z=(W64 *)(v+%zu);%s\n"
              "#define MK(k,bits) (D[k]|=(bits),S[(k)>>6]|=1ull<<((k)&63))\n"
              "if(d==all){__builtin_memset(D,0xff,sizeof D);__builtin_memset(S,0xff,sizeof S);\n"
              "D[%u]&=0x%" PRIx64 "ull;S[%u]&=0x%" PRIx64 "ull;}\n"
              "else{__builtin_memset(D,0,sizeof D);__builtin_memset(S,0,sizeof S);\n"
              "for(unsigned k=0;k<NW;k++)for(W64 x=d[k];x;x&=x-1){"
              "unsigned f=2*(64*k+(unsigned)__builtin_ctzll(x)),e=FO_[f];\n"
              "for(;e<FO_[f+1];e++)MK(FW_[e],FM_[e]);\n"
              "for(;e<FO_[f+2];e++)MK(FW_[e],FM_[e]&~Z[FW_[e]]);}",
              PARAMS, nd, ns, z_at, xdecl, nd - 1, word_mask(0, ev->n_pos, nd - 1), ns - 1,
              word_mask(0, nd, ns - 1));
    emit_turn_marks(c, cg);
    sb_puts(c, "}\n");
}

/* The start of the event kernel's body: the positions to evaluate, all (d is all: every
 * fluent changed) or those reading a fluent changed (FO_/FW_/FM_: per fluent its readers'
 * words and bits; with guards, those a fluent guards first, the others then left out
 * while their guard is off: Z). */
static void emit_event_marks(strbuf_t *c, cg_t *cg, const events_t *ev, const uint32_t *guard,
                             size_t z_at) {
    const gnet_t *net = cg->net;
    uint32_t nd = ev->n_pos / 64 + 1, lists = guard ? 2 : 1;
    strbuf_t fw, fm;
    sb_init(&fw), sb_init(&fm);
    uint32_t ne = 0;
    sb_printf(c, "static const unsigned FO_[%u]={0", lists * net->n_fluents + 1);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        for (uint32_t own = guard ? 1 : 0, k = 0; k < lists; k++, own = 0) {
            ne += reader_words(&fw, &fm, ev->fr + ev->fr_start[f],
                               ev->fr_start[f + 1] - ev->fr_start[f], guard, f, own);
            sb_printf(c, ",%u", ne);
        }
    sb_puts(c, "};\n");
    strbuf_t *t = open_table(cg, c, "unsigned", "FW_", ne + 1);
    sb_printf(t, "%s0};\n", fw.data ? fw.data : "");
    t = open_table(cg, c, "W64", "FM_", ne + 1);
    sb_printf(t, "%s0};\n", fm.data ? fm.data : "");
    sb_fini(&fw), sb_fini(&fm);
    if (guard) {
        emit_table_marks(c, cg, ev, nd, z_at);
        return;
    }
    sb_printf(c, "static inline void ggp_play_body(%s){\nW64 D[%u];\n", PARAMS, nd);
    sb_printf(c,
              "if(d==all){for(unsigned k=0;k<%u;k++)D[k]=~0ull;}\n"
              "else{for(unsigned k=0;k<%u;k++)D[k]=0;\n"
              "for(unsigned k=0;k<NW;k++)for(W64 x=d[k];x;x&=x-1){"
              "unsigned f=%u*(64*k+(unsigned)__builtin_ctzll(x)),e=FO_[f];\n",
              nd, nd, lists);
    sb_puts(c, "for(;e<FO_[f+1];e++)D[FW_[e]]|=FM_[e];}}\n");
}

/* The end of the event kernel's body, and the kernels on it. */
static void emit_event_end(strbuf_t *c) {
    sb_puts(c, "(void)m;}\nvoid ggp_play(U *restrict v){W64 w[NW];static const unsigned m[1];"
               "pack(v,w);ggp_play_body(v,w,all,m);legal_fix(v);}\n");
    emit_play_from(c);
}

/* The event kernel's body: the marks, then the functions whose range has a mark. */
static void emit_event_body(strbuf_t *c, cg_t *cg, const events_t *ev, const phase_t *ph,
                            const phase_t *huge, const uint32_t *ranges, uint32_t n, bool one) {
    for (uint32_t k = 0; k < ph->parts && !one; k++)
        sb_printf(c, "PART void %s_%u(%s);\n", ph->name, k, ph->params);
    for (uint32_t k = 0; k < huge->parts && !one; k++)
        sb_printf(c, "PART void %s_%u(%s);\n", huge->name, k, PARAMS);
    emit_event_marks(c, cg, ev, NULL, 0);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t a = ranges[k], b = ranges[k + 1];
        sb_puts(c, "if(");
        for (uint32_t j = a / 64; j <= (b - 1) / 64; j++)
            sb_printf(c, "%s(D[%u]&0x%" PRIx64 "ull)", j > a / 64 ? "|" : "", j,
                      word_mask(a, b, j));
        sb_printf(c, ")%s_%u(v,w,D);\n", ph->name, k);
    }
    emit_event_end(c);
}

/* ---- the play blocks driven by changes, read from tables ---- */

/* Tables: an acyclic position of at most this many literals is evaluated by a loop over a
 * table of its rules, data rather than code (skirmishNew evaluates about 70 of its 16,000
 * play nodes a step: as straight-line code, a few lines each spread over 2.2 MB, the
 * instruction cache missed); bigger ones by code of their own (knightwar's dead(r), 605
 * rules over two cells mostly false: its word tests 3x faster than the table; an OR of a
 * role's legal nodes, false while the other role moves: cylinder-checkers 1.3x faster
 * as code), and cyclic blocks. */
#define TABLE_MAX_LITS 64
/* ... unless more positions than this are that big: then all acyclic ones are tables. A
 * few wide nodes as code pay (the two above); thousands (alexChess's 8,105, chess's 7,054:
 * factoring's shared conjunctions, each an OR over a king's squares or checking pieces)
 * are 85 of alexChess's 90 CPU s of cc, a function each. */
#define WIDE_CODE_MAX 1000

/* Whether the play blocks driven by changes read tables (GGP_EVENT_TABLES=0: not). */
static bool use_tables(void) {
    const char *e = getenv("GGP_EVENT_TABLES");
    return !e || !*e || atoi(e) != 0;
}

/* Whether position p is read from the tables (else code). */
static bool table_position(const cg_t *cg, const events_t *ev, uint32_t p) {
    uint32_t b = ev->block[p];
    return !cg->net->blocks[b].cyclic &&
           (cg->wide_tables || block_lits(cg->net, b) <= TABLE_MAX_LITS);
}

/* Sets cg->wide_tables: whether more than WIDE_CODE_MAX acyclic positions are wide. */
static void choose_wide_tables(cg_t *cg, const events_t *ev) {
    uint32_t wide = 0;
    for (uint32_t p = 0; p < ev->n_pos; p++) {
        uint32_t b = ev->block[p];
        wide += !cg->net->blocks[b].cyclic && block_lits(cg->net, b) > TABLE_MAX_LITS;
    }
    cg->wide_tables = wide > WIDE_CODE_MAX;
}

/* Functions ggp_evc_K for the positions evaluated by code, each setting *ch when a node
 * of it changed (a huge node's parts, ggp_evh_K, come first). code[p]: K, GNET_NONE for a
 * table position. Returns how many. */
static uint32_t emit_code_positions(cg_t *cg, const events_t *ev, phase_t *huge, uint32_t *code) {
    const gnet_t *net = cg->net;
    phase_t ph = {"ggp_evc", "U *restrict v,const W64 *restrict w,int *restrict ch", false, 0,
                  false};
    choose_wide_tables(cg, ev);
    for (uint32_t p = 0; p < ev->n_pos; p++) {
        const gblock_t *bl = &net->blocks[ev->block[p]];
        uint32_t h0 = huge->parts, i = bl->first, node = net->order[i];
        code[p] = GNET_NONE;
        if (table_position(cg, ev, p)) continue;
        /* an OR of single literals stops at the first that holds (a role's legal nodes
         * while it moves), reading on to its end otherwise as before */
        cg->short_or = !bl->cyclic &&
                       block_lits(net, ev->block[p]) == net->rule_start[i + 1] - net->rule_start[i];
        if (is_huge(net, ev->block[p])) emit_huge(cg, huge, NULL, ev->block[p]);
        unit_room(cg);
        for (uint32_t k = h0; k < huge->parts; k++) /* declared in this unit */
            sb_printf(C(cg), "PART void %s_%u(%s);\n", huge->name, k, PARAMS);
        code[p] = ph.parts;
        open_part(cg, &ph);
        sb_printf(C(cg), "U o_[%u];", bl->n);
        for (uint32_t j = 0; j < bl->n; j++)
            sb_printf(C(cg), "o_[%u]=v[%u];", j, net->order[bl->first + j]);
        sb_putc(C(cg), '\n');
        if (bl->cyclic)
            emit_cyclic(cg, bl);
        else if (h0 < huge->parts)
            for (uint32_t k = h0; k < huge->parts; k++) { /* the first part assigns */
                if (k > h0 && cg->short_or) sb_printf(C(cg), "if(!v[%u])", node);
                sb_printf(C(cg), "%s_%u(v,w,w,0);\n", huge->name, k);
            }
        else
            emit_node(cg, bl->first);
        cg->short_or = false;
        sb_puts(C(cg), "*ch=");
        for (uint32_t j = 0; j < bl->n; j++)
            sb_printf(C(cg), "%s(o_[%u]!=v[%u])", j ? "|" : "", j, net->order[bl->first + j]);
        sb_puts(C(cg), ";(void)w;\n");
        close_part(cg, &ph);
    }
    return ph.parts;
}

static bool holds_in_all(const gnet_t *net, uint32_t i, uint32_t x);

/* The readers of literal x's node (positions). */
static uint32_t readers_of(const events_t *ev, const gnet_t *net, uint32_t x) {
    uint32_t n = x >> 1, q = ev->pos_of[n];
    if (n < net->n_fluents) return ev->fr_start[n + 1] - ev->fr_start[n];
    return q == GNET_NONE ? 0 : ev->rd_start[q + 1] - ev->rd_start[q];
}

/* The guard of table position p (GNET_NONE: none): a literal every rule of its node has,
 * so that while it is false the node is 0 whatever else changes, and the changes of its
 * other inputs need not mark it (in skirmishNew a move's legalMove node needs its piece on
 * its cell: of the 70 moves into a cell whose occupant changed, a few). Positive fluents
 * first (most cells are empty), then positive nodes, then negative literals; among those,
 * the one with the fewest readers (a piece on a cell rather than whose turn it is: in
 * cylinder-checkers every legal node needs both, and a turn would evaluate them all). */
static uint32_t table_guard(const cg_t *cg, const events_t *ev, const uint32_t *code, uint32_t p) {
    const gnet_t *net = cg->net;
    uint32_t i = net->blocks[ev->block[p]].first, r = net->rule_start[i], best = GNET_NONE;
    uint32_t best_readers = 0;
    int best_rank = 0;
    if (code[p] != GNET_NONE || r == net->rule_start[i + 1]) return GNET_NONE;
    for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++) {
        uint32_t x = net->lits[l], readers = readers_of(ev, net, x);
        int rank = x & 1 ? 1 : is_fluent(net, x) ? 3 : 2;
        if (rank < best_rank || (rank == best_rank && readers >= best_readers)) continue;
        if (holds_in_all(net, i, x)) best = x, best_rank = rank, best_readers = readers;
    }
    return best;
}

/* Where the guard words Z (a bit per position: its guard was off when it was last
 * evaluated, so its node is 0) start in the node values: past legal_fix's save area. */
static size_t guard_words_at(const gnet_t *net) {
    size_t n = (size_t)net->n_nodes + 64;
    for (uint32_t r = 0; r < net->n_roles; r++)
        n += net->n_moves[r];
    return (n + 64 + 7) / 8 * 8;
}

/* Positions list[0..n) (sorted, repeats allowed) as triples (a word of D, its low bits,
 * its high bits) into out; returns how many. */
static uint32_t triples(strbuf_t *out, const uint32_t *list, uint32_t n) {
    uint32_t ne = 0;
    for (uint32_t j = 0; j < n; ne++) {
        uint64_t mask = 0;
        uint32_t word = list[j] / 64;
        for (; j < n && list[j] / 64 == word; j++)
            mask |= 1ull << (list[j] & 63);
        sb_printf(out, "%u,%u,%u,", word, (uint32_t)mask, (uint32_t)(mask >> 32));
    }
    return ne;
}

/* The words of the guards (Z) */
static size_t guard_words(const gnet_t *net) {
    return (size_t)net->n_play_blocks / 64 + 1;
}

/* The playout loop's snapshot (tables only): the node values of the state its last playout
 * started from, which the next playout starts from when that state is nearer its own than
 * the state the values hold (the previous playout's last: a search's playouts start near
 * each other and end far apart). At snapshot_at(net): a flag (taken), the state's words,
 * the guard words, the node bytes. */
static size_t snapshot_at(const gnet_t *net) {
    return guard_words_at(net) + 8 * guard_words(net);
}

/* What a change of position p's node does, gathered: its copies (readers that are one
 * literal of it: written at once, node and negation into copies, *n_copies of them, and
 * theirs; copies: whether there may be any, a table position's), the readers of it and
 * of them that it (they) guard into own, the others into other. neg: whether p's node is
 * negated relative to the position the record is of. */
typedef struct {
    uint32_t *own, *other;
    size_t n_own, n_other, cap_own, cap_other;
    strbuf_t copies;
    uint32_t n_copies;
} effects_t;

static void gather_effects(const cg_t *cg, const events_t *ev, const uint32_t *guard, uint32_t p,
                           uint32_t neg, bool copies, effects_t *fx) {
    const gnet_t *net = cg->net;
    uint32_t node = net->order[net->blocks[ev->block[p]].first];
    for (uint32_t k = ev->rd_start[p]; k < ev->rd_start[p + 1]; k++) {
        uint32_t r = ev->rd[k], x = ev->copy[r];
        if (copies && x != GNET_NONE && x >> 1 == node) {
            uint32_t rn = net->order[net->blocks[ev->block[r]].first];
            sb_printf(&fx->copies, "%u,%u,", rn, neg ^ (x & 1));
            fx->n_copies++;
            gather_effects(cg, ev, guard, r, neg ^ (x & 1), true, fx);
        } else if (guard[r] != GNET_NONE && guard[r] >> 1 == node) {
            GROW(fx->own, fx->cap_own, fx->n_own + 1);
            fx->own[fx->n_own++] = r;
        } else {
            GROW(fx->other, fx->cap_other, fx->n_other + 1);
            fx->other[fx->n_other++] = r;
        }
    }
}

/* Records of this many entries at most are a table of their own (R0_, R1_, ...) where every
 * acyclic node is a table's (wide_tables: chess's 18.8 MB of records, one cc of 8.8 s and
 * 534 MB otherwise); PO_ then gives a record's table and its offset there, in the bits
 * above and below R_SHIFT. */
#define R_CHUNK (1u << 20)
#define R_SHIFT 21

/* PO_ and the records rec (by: the positions in their order, po: each one's offset, start:
 * per record in that order where its text starts in rec, and where the last ends; at:
 * the entries in all): R_, or chunks of at most R_CHUNK entries and RB_, their starts. */
static void emit_records(strbuf_t *c, cg_t *cg, const events_t *ev, const uint64_t *by, size_t *po,
                         const size_t *start, size_t at, const strbuf_t *rec) {
    size_t biggest = 0;
    for (uint32_t k = 0; k < ev->n_pos; k++) {
        size_t end = k + 1 < ev->n_pos ? po[(uint32_t)by[k + 1]] : at;
        if (end - po[(uint32_t)by[k]] > biggest) biggest = end - po[(uint32_t)by[k]];
    }
    cg->chunked = cg->wide_tables && cg->split_tables && at > R_CHUNK && biggest <= R_CHUNK;
    uint32_t n_chunks = 0;
    if (cg->chunked) { /* cut before a record that would pass R_CHUNK, rec's text with it */
        size_t base = 0, from = 0;
        char name[32];
        for (uint32_t k = 0; k <= ev->n_pos; k++) {
            size_t off = k < ev->n_pos ? po[(uint32_t)by[k]] : at;
            size_t end = k + 1 < ev->n_pos ? po[(uint32_t)by[k + 1]] : at;
            if (k < ev->n_pos && end - base <= R_CHUNK) continue;
            snprintf(name, sizeof name, "R%u_", n_chunks);
            strbuf_t *t = open_table(cg, c, "unsigned", name, off - base + 1);
            sb_putn(t, rec->data + start[from], start[k] - start[from]);
            sb_puts(t, "0};\n");
            for (uint32_t j = from; j < k; j++)
                po[(uint32_t)by[j]] = (size_t)n_chunks << R_SHIFT | (po[(uint32_t)by[j]] - base);
            n_chunks++, base = off, from = k;
        }
    }
    strbuf_t *t = open_table(cg, c, "unsigned", "PO_", ev->n_pos + 1);
    for (uint32_t p = 0; p < ev->n_pos; p++)
        sb_printf(t, "%zu,", po[p]);
    sb_printf(t, "%zu};\n", cg->chunked ? 0 : at);
    if (!cg->chunked) {
        t = open_table(cg, c, "unsigned", "R_", at + 1);
        sb_printf(t, "%s0};\n", rec->data ? rec->data : "");
        return;
    }
    sb_printf(c, "static const unsigned *const RB_[%u]={", n_chunks);
    for (uint32_t j = 0; j < n_chunks; j++)
        sb_printf(c, "R%u_,", j);
    sb_printf(c, "};\n#define REC(o) (RB_[(o)>>%u]+((o)&0x%xu))\n", R_SHIFT, (1u << R_SHIFT) - 1);
}

/* The tables: PO_ per position where its record starts in R_ (a last entry ends them); a
 * record, read at once: its node (code positions: 0x80000000 | K), its guard (~0u: none),
 * the words of its rules, how many words of readers it guards, how many of others, its
 * rules (per rule its number of literals, then the literals; the guard left
 * out), then its readers as triples (a word of D and its bits: first those it guards). */
static void emit_tables(strbuf_t *c, cg_t *cg, const events_t *ev, const uint32_t *code,
                        const uint32_t *guard) {
    const gnet_t *net = cg->net;
    strbuf_t rec, body, rd;
    sb_init(&rec), sb_init(&body), sb_init(&rd);
    /* the records of a guard together: a change of the guard evaluates them all (a queen
     * that moves in: its 27 moves) */
    effects_t fx = {0};
    sb_init(&fx.copies);
    uint64_t *by = xmalloc((ev->n_pos + 1) * sizeof *by); /* guard << 32 | position */
    size_t *po = xmalloc((ev->n_pos + 1) * sizeof *po), at = 0;
    size_t *start = xmalloc((ev->n_pos + 1) * sizeof *start); /* by order: bytes of rec */
    for (uint32_t p = 0; p < ev->n_pos; p++)
        by[p] = (uint64_t)guard[p] << 32 | p;
    qsort(by, ev->n_pos, sizeof *by, cmp_u64);
    for (uint32_t k = 0; k < ev->n_pos; k++) {
        uint32_t p = (uint32_t)by[k];
        const gblock_t *bl = &net->blocks[ev->block[p]];
        uint32_t i = bl->first, node = net->order[i], g = guard[p], words = 0;
        sb_clear(&body), sb_clear(&rd);
        for (uint32_t r = net->rule_start[i]; code[p] == GNET_NONE && r < net->rule_start[i + 1];
             r++) {
            uint32_t n = net->lit_start[r + 1] - net->lit_start[r] - (g != GNET_NONE);
            sb_printf(&body, "%u,", n);
            for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++)
                if (g == GNET_NONE || net->lits[l] != (g & ~TURN_BIT))
                    sb_printf(&body, "%u,", net->lits[l]);
            words += 1 + n;
        }
        fx.n_own = fx.n_other = 0, fx.n_copies = 0;
        sb_clear(&fx.copies);
        if (!net->blocks[ev->block[p]].cyclic) /* copies: of a table position (y) */
            gather_effects(cg, ev, guard, p, 0, code[p] == GNET_NONE, &fx);
        else /* a cyclic block: its readers, marked whatever their guard (it may be a node of
              * the block other than the first) */
            for (uint32_t j = ev->rd_start[p]; j < ev->rd_start[p + 1]; j++) {
                GROW(fx.own, fx.cap_own, fx.n_own + 1);
                fx.own[fx.n_own++] = ev->rd[j];
            }
        if (fx.n_own) qsort(fx.own, fx.n_own, sizeof *fx.own, cmp_u32);
        if (fx.n_other) qsort(fx.other, fx.n_other, sizeof *fx.other, cmp_u32);
        uint32_t own = triples(&rd, fx.own, (uint32_t)fx.n_own);
        uint32_t other = triples(&rd, fx.other, (uint32_t)fx.n_other);
        po[p] = at, start[k] = rec.len;
        sb_printf(&rec, "%u,%u,%u,%u,%u,%u,", code[p] == GNET_NONE ? node : 0x80000000u | code[p],
                  g == GNET_NONE ? ~0u : g, words, fx.n_copies, own, other);
        sb_putn(&rec, body.data ? body.data : "", body.len);
        sb_putn(&rec, fx.copies.data ? fx.copies.data : "", fx.copies.len);
        sb_putn(&rec, rd.data ? rd.data : "", rd.len);
        sb_putc(&rec, '\n');
        at += 6 + words + 2 * fx.n_copies + 3 * (own + other);
    }
    start[ev->n_pos] = rec.len;
    emit_records(c, cg, ev, by, po, start, at, &rec);
    sb_fini(&rec), sb_fini(&body), sb_fini(&rd);
    free(by), free(po), free(start), free(fx.own), free(fx.other);
    sb_fini(&fx.copies);
}

/* The turn guards among guard[] (TURN_BIT set in theirs), into cg (groups by literal, in
 * the order of the literals; the positions of each in order), and their tables: XI_ per
 * position its byte in X, TW_ and TM_ per byte of X its position's word and bit of D. */
static void find_turns(strbuf_t *c, cg_t *cg, const events_t *ev, uint32_t *guard) {
    const gnet_t *net = cg->net;
    uint32_t nl = 2 * net->n_fluents, *count = xcalloc(nl + 1, sizeof *count);
    if (2 * (uint64_t)net->n_nodes >= TURN_BIT) {
        free(count);
        return;
    }
    for (uint32_t p = 0; p < ev->n_pos; p++)
        if (guard[p] != GNET_NONE && guard[p] < nl) count[guard[p]]++;
    cg->turn_lit = xmalloc((nl + 1) * sizeof *cg->turn_lit);
    cg->turn_base = xmalloc((nl + 2) * sizeof *cg->turn_base);
    uint32_t nx = 0, min = turn_min(ev->n_pos);
    for (uint32_t x = 0; x < nl; x++)
        if (count[x] >= min && nx + (count[x] + 7) / 8 * 8 + 8 <= turn_bytes(net)) {
            cg->turn_lit[cg->n_turns] = x, cg->turn_base[cg->n_turns++] = nx;
            nx = (nx + count[x] + 7) / 8 * 8;
        }
    cg->turn_base[cg->n_turns] = nx, cg->n_x = nx;
    free(count);
    if (!cg->n_turns) return;
    uint32_t *fill = xcalloc(nl + 1, sizeof *fill), *of = xmalloc((nl + 1) * sizeof *of);
    for (uint32_t x = 0; x < nl; x++)
        of[x] = GNET_NONE;
    for (uint32_t t = 0; t < cg->n_turns; t++)
        of[cg->turn_lit[t]] = t;
    strbuf_t *xi = open_table(cg, c, "unsigned", "XI_", ev->n_pos + 1);
    uint32_t *pos = xcalloc(nx + 1, sizeof *pos);
    for (uint32_t p = 0; p < ev->n_pos; p++) {
        uint32_t t = guard[p] != GNET_NONE && guard[p] < nl ? of[guard[p]] : GNET_NONE;
        if (t == GNET_NONE) {
            sb_puts(xi, "0,");
            continue;
        }
        uint32_t j = cg->turn_base[t] + fill[t]++;
        pos[j] = p, guard[p] |= TURN_BIT;
        sb_printf(xi, "%u,", j);
    }
    sb_puts(xi, "0};\n");
    strbuf_t *tw = open_table(cg, c, "unsigned", "TW_", nx + 1);
    for (uint32_t j = 0; j < nx; j++)
        sb_printf(tw, "%u,", pos[j] / 64);
    sb_puts(tw, "0};\n");
    strbuf_t *tm = open_table(cg, c, "W64", "TM_", nx + 1);
    for (uint32_t j = 0; j < nx; j++)
        sb_printf(tm, "0x%" PRIx64 "ull,", (uint64_t)1 << (pos[j] % 64));
    sb_puts(tm, "0};\n");
    free(fill), free(of), free(pos);
}

/* The event kernel's body on tables: the marks, then the marked positions in order, each
 * a table position's rules read (nothing while its guard is off; an AND stops at its first
 * literal false, the OR at its first rule true) or a code position's function called; a
 * change marks its readers, all later in the order (those whose guard is off only when it
 * is the guard). */
static void emit_table_body(strbuf_t *c, cg_t *cg, const events_t *ev, const uint32_t *code,
                            uint32_t n_code, bool one) {
    uint32_t *guard = xmalloc((ev->n_pos + 1) * sizeof *guard);
    for (uint32_t p = 0; p < ev->n_pos; p++)
        guard[p] = table_guard(cg, ev, code, p);
    find_turns(c, cg, ev, guard);
    for (uint32_t k = 0; k < n_code && !one; k++)
        sb_printf(
            c, "PART void ggp_evc_%u(U *restrict v,const W64 *restrict w,int *restrict ch);\n", k);
    sb_printf(c, "static void (*const EVC_[%u])(U *restrict,const W64 *restrict,int *restrict)={",
              n_code + 1);
    for (uint32_t k = 0; k < n_code; k++)
        sb_printf(c, "ggp_evc_%u,", k);
    sb_puts(c, "0};\n");
    emit_tables(c, cg, ev, code, guard);
    emit_event_marks(c, cg, ev, guard, guard_words_at(cg->net));
    free(guard);
    /* a record's address: in R_, or in its chunk (emit_records) */
    const char *rec = cg->chunked ? "REC(" : "R_+", *rec_end = cg->chunked ? ")" : "";
    sb_printf(c,
              "for(unsigned s=0;s<%u;s++){W64 sw;while((sw=S[s])!=0){unsigned k=64*s+"
              "(unsigned)__builtin_ctzll(sw);W64 x;\n"
              "while((x=D[k])!=0){D[k]=x&(x-1);\n"
              "const unsigned *q=%sPO_[64*k+(unsigned)__builtin_ctzll(x)]%s;unsigned n=q[0];"
              "if(x&(x-1))__builtin_prefetch(%sPO_[64*k+(unsigned)__builtin_ctzll(x&(x-1))]%s);"
              "int ch=0;U y=0;\n"
              "if(n>>31)EVC_[n&0x7fffffffu](v,w,&ch);\n"
              "else{unsigned g=q[1];W64 bit=x&-x;\n"
              "if(%s&&!(v[g>>1]^(g&1)))Z[k]|=bit;\n"
              "else{const unsigned *e=q+6,*end=e+q[2];Z[k]&=~bit;\n"
              "while(e<end){const unsigned *re=e+1+*e;U ok=1;\n"
              "for(e++;e<re;e++){unsigned l=*e;if(!(v[l>>1]^(l&1))){ok=0;break;}}\n"
              "if(ok){y=1;break;}e=re;}%s}\n"
              "ch=y!=v[n];v[n]=y;}\n"
              "if(ch){const unsigned *e=q+6+q[2],*c=e+2*q[3],*o=c+3*q[4],*end=o+3*q[5];\n"
              "for(;e<c;e+=2)v[e[0]]=y^(U)e[1];\n"
              "for(;e<o;e+=3)MK(e[0],(W64)e[2]<<32|e[1]);\n"
              "for(;e<end;e+=3)MK(e[0],((W64)e[2]<<32|e[1])&~Z[e[0]]);}}\n"
              "S[s]&=~(1ull<<(k&63));}}\n#undef MK\n",
              (ev->n_pos / 64 + 1) / 64 + 1, rec, rec_end, rec, rec_end,
              cg->n_turns ? "g<0x40000000u" : "g!=~0u",
              cg->n_turns ? "\nif((g>>30)==1){X[XI_[64*k+(unsigned)__builtin_ctzll(x)]]=y;"
                            "y&=v[(g&0x3fffffffu)>>1]^(g&1);}"
                          : "");
    emit_event_end(c);
}

/* ---- the kernels and the playout loop (unit 0) ---- */

/* The header of every unit: the types, the fluent words, packing 8 bytes of 0/1 into 8
 * bits (the multiplication gathers their low bits in the top byte) and unpacking (a byte
 * per bit, then each byte's bit 7 set by adding 0x7f when the byte is not 0), and the random
 * numbers of base/rng.h, which the playout loop must reproduce draw for draw. */
static void emit_prelude(strbuf_t *c, const gnet_t *net, bool one_unit) {
    uint32_t nf = net->n_fluents, nw = nf / 64 + 1;
    sb_puts(c, "/* generated by ggp: a ground game network */\n"
               "#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__\n#error little-endian only\n#endif\n"
               "typedef unsigned char U;\ntypedef unsigned long long W64;\n"
               "typedef W64 VU __attribute__((vector_size(32)));\n"
               "typedef long long VS __attribute__((vector_size(32)));\n");
    sb_puts(c, one_unit ? "#define PART static\n"
                        : "#define PART __attribute__((visibility(\"hidden\")))\n");
    sb_printf(c, "#define NW %u\nstatic const W64 all[NW]={", nw);
    for (uint32_t k = 0; k < nw; k++)
        sb_puts(c, "~0ull,");
    sb_puts(c, "};\n");
    sb_puts(c,
            "static inline W64 ld8(const U *p){W64 x;__builtin_memcpy(&x,p,8);return x;}\n"
            "static inline void st8(U *p,W64 x){__builtin_memcpy(p,&x,8);}\n"
            "static inline void z16(U *p){W64 z[2]={0,0};__builtin_memcpy(p,z,16);}\n"
            "static inline void z32(U *p){VS z={0,0,0,0};__builtin_memcpy(p,&z,32);}\n"
            "#define PK(x) ((((x)*0x0102040810204080ull)>>56))\n"
            "static inline W64 UNPK(W64 b){W64 x=((b&0xff)*0x0101010101010101ull)&"
            "0x8040201008040201ull;\n"
            "return ((x+0x7f7f7f7f7f7f7f7full)>>7)&0x0101010101010101ull;}\n"
            "/* n<=8 bytes at p from the bits of b, the bytes past them kept */\n"
            "static inline void unpk(U *p,W64 b,unsigned n){W64 x=UNPK(b);\n"
            "if(n>=8)st8(p,x);else{W64 m=(1ull<<(8*n))-1;st8(p,(ld8(p)&~m)|(x&m));}}\n"
            "/* the bits of n<=32 bytes at p (with AVX2: a byte's bit 0 shifted to its bit 7,\n"
            "   gathered by movemask; the bytes read past n are in the nodes' padding) */\n"
            "#ifdef __AVX2__\n"
            "typedef char V32Q __attribute__((vector_size(32)));\n"
            "static inline W64 pkn(const U *p,unsigned n){VS x;__builtin_memcpy(&x,p,32);\n"
            "W64 r=(unsigned)__builtin_ia32_pmovmskb256((V32Q)(x<<7));\n"
            "return n>=32?r:r&((1ull<<n)-1);}\n"
            "/* 32 bytes at p from the bits of b: each byte takes its byte of b (shuffle), then\n"
            "   its bit */\n"
            "static inline void unpk32(U *p,W64 b){\n"
            "const V32Q I={0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3};\n"
            "const V32Q M={1,2,4,8,16,32,64,-128,1,2,4,8,16,32,64,-128,1,2,4,8,16,32,64,-128,\n"
            "1,2,4,8,16,32,64,-128};\n"
            "V32Q x=(V32Q)(VS){(long long)b,(long long)b,(long long)b,(long long)b};\n"
            "x=__builtin_ia32_pshufb256(x,I);x=((x&M)==M)&1;__builtin_memcpy(p,&x,32);}\n"
            "#else\n"
            "static inline W64 pkn(const U *p,unsigned n){W64 r=0;\n"
            "for(unsigned k=0;k<n;k+=8){W64 y=ld8(p+k);if(n-k<8)y&=(1ull<<(8*(n-k)))-1;\n"
            "r|=PK(y)<<k;}return r;}\n"
            "static inline void unpk32(U *p,W64 b){for(unsigned k=0;k<32;k+=8)unpk(p+k,b>>k,8);}\n"
            "#endif\n"
            "static inline void pack(const U *restrict v,W64 *restrict w){\n");
    for (uint32_t k = 0; k < nw; k++)
        sb_printf(c, "%sw[%u]=0", k ? "," : "", k);
    sb_puts(c, ";\n");
    for (uint32_t i = 0; i < nf; i += 32)
        sb_printf(c, "w[%u]|=pkn(v+%u,%u)<<%u;\n", i >> 6, i, nf - i < 32 ? nf - i : 32, i & 63);
    sb_puts(c, "}\n/* the fluent bytes from F words (the inputs, or the next nodes) */\n"
               "static inline void unpack(U *restrict v,const W64 *restrict w){\n");
    for (uint32_t i = 0; i < nf; i += 8)
        if (i % 32 == 0 && nf - i >= 32)
            sb_printf(c, "unpk32(v+%u,w[%u]>>%u);\n", i, i >> 6, i & 63), i += 24;
        else
            sb_printf(c, "unpk(v+%u,w[%u]>>%u,%u);\n", i, i >> 6, i & 63, nf - i < 8 ? nf - i : 8);
    sb_puts(c, "}\n"
               "static inline W64 rnd(W64 *s){W64 z=(*s+=0x9E3779B97F4A7C15ull);\n"
               "z=(z^(z>>30))*0xBF58476D1CE4E5B9ull;z=(z^(z>>27))*0x94D049BB133111EBull;\n"
               "return z^(z>>31);}\n"
               "/* the index of the j-th (from 0) bit set among words l[0..n) */\n"
               "static inline unsigned sel(const W64 *l,unsigned n,unsigned j){\n"
               "for(unsigned k=0;;k++){unsigned c=(unsigned)__builtin_popcountll(l[k]);\n"
               "if(j<c){W64 x=l[k];\n"
               "#ifdef __BMI2__\n"
               "x=__builtin_ia32_pdep_di(1ull<<j,x);\n"
               "#else\n"
               "for(;j;j--)x&=x-1;\n"
               "#endif\n"
               "return 64*k+(unsigned)__builtin_ctzll(x);}j-=c;}}\n"
               "/* the rules of a scattered list [e, end) */\n"
               "static inline void scatter(U *restrict v,const unsigned *e,const unsigned *end){\n"
               "while(e<end){unsigned n=*e++,k=*e++;U ok=1;\n"
               "for(;k;k--){unsigned x=*e++;ok&=v[x>>1]^(x&1);}\nv[n]|=ok;}}\n");
}

/* Sets in row the bits of preset node p (a node some move sets first). */
typedef void (*row_bits_fn)(const cg_t *cg, uint32_t p, uint64_t *row);

/* Per role a table <letter><r>_ of nw words per move (up to the role's moves: none, 0): the
 * bits that set_bits gives the nodes the move sets first (preset_layout). */
static void emit_move_rows(strbuf_t *c, cg_t *cg, char letter, uint32_t nw, row_bits_fn set_bits) {
    const gnet_t *net = cg->net;
    uint64_t *row = xmalloc(nw * sizeof *row);
    for (uint32_t r = 0; r < net->n_roles; r++) {
        uint32_t nm = net->n_moves[r], base = cg->move_base[r];
        char name[32];
        snprintf(name, sizeof name, "%c%u_", letter, r);
        strbuf_t *t = open_table(cg, c, "W64", name, (size_t)(nm + 1) * nw);
        for (uint32_t k = 0; k <= nm; k++) {
            memset(row, 0, nw * sizeof *row);
            for (size_t e = 0; k < nm && e < cg->n_pre[base + k]; e++)
                set_bits(cg, cg->pre[base + k][e], row);
            for (uint32_t x = 0; x < nw; x++)
                sb_printf(t, "0x%" PRIx64 "ull,", row[x]);
        }
        sb_puts(t, "};\n");
    }
    free(row);
}

static void preset_bit(const cg_t *cg, uint32_t p, uint64_t *row) {
    uint32_t b = cg->pre_bit[p];
    row[b >> 6] |= 1ull << (b & 63);
}

/* Per role T<r>_: per move the words of the bits of the nodes it sets. */
static void emit_preset_tables(strbuf_t *c, cg_t *cg) {
    if (cg->n_pre_all) emit_move_rows(c, cg, 'T', cg->n_pre_words, preset_bit);
}

/* After the zeroing: the chosen moves' words ORed, and the nodes set first unpacked from
 * them 8 at a time (stores at fixed addresses: the move blocks' loads of these bytes are
 * forwarded from them; bytes stored at addresses read from a table, just before those
 * loads, cost breakthroughSmallHoles 3%), but for runs of 8 that no statement or scattered
 * rule reads: the frame words read their nodes from the rows (breakthroughWalls 1.10x,
 * breakthrough 1.08x unpacked no more). */
static void emit_preset(strbuf_t *c, const cg_t *cg) {
    const gnet_t *net = cg->net;
    uint32_t nw = cg->n_pre_words;
    if (!cg->n_pre_all) return;
    sb_printf(c, "{W64 p_[%u];", nw);
    for (uint32_t x = 0; x < nw; x++) {
        sb_printf(c, "p_[%u]=", x);
        for (uint32_t r = 0; r < net->n_roles; r++)
            sb_printf(c, "%sT%u_[m[%u]*%u+%u]", r ? "|" : "", r, r, nw, x);
        sb_putc(c, ';');
    }
    /* the nodes some statement or scattered rule reads: the frame words read the rest
     * from p_'s rows (tic-tac-toe's "a move marks this cell": none unpacked) */
    uint8_t *read = xcalloc(net->n_nodes + 1, 1);
    for (uint32_t i = 0; i < net->n_order; i++)
        for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++)
            for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++)
                if (!cg->frame[net->order[i]] || cg->rule_scattered[r]) read[net->lits[l] >> 1] = 1;
    for (uint32_t n = 0, e; n < net->n_nodes; n = e) {
        e = n + 1;
        if (cg->pre_bit[n] == GNET_NONE) continue;
        bool any = read[n];
        while (e < net->n_nodes && cg->pre_bit[e] != GNET_NONE && e - n < 8)
            any |= read[e++];
        uint32_t b = cg->pre_bit[n];
        if (any) sb_printf(c, "unpk(v+%u,p_[%u]>>%u,%u);", n, b >> 6, b & 63, e - n);
    }
    free(read);
    sb_puts(c, "}\n");
}

/* The fluents whose frame node has a rule with preset node p (the pairs sorted by node). */
static void frame_bits(const cg_t *cg, uint32_t p, uint64_t *row) {
    uint32_t np = cg->n_frame_pairs, *fp = cg->frame_pair, lo = 0, hi = np;
    while (lo < hi) { /* the first pair of p */
        uint32_t mid = (lo + hi) / 2;
        if (fp[2 * mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < np && fp[2 * lo] == p; lo++)
        row[fp[2 * lo + 1] >> 6] |= 1ull << (fp[2 * lo + 1] & 63);
}

/* Per role F<r>_: per move the words of the fluents whose frame node has a rule with a
 * node the move sets (plan_frames). */
static void emit_frame_tables(strbuf_t *c, cg_t *cg) {
    if (cg->n_frames) emit_move_rows(c, cg, 'F', cg->net->n_fluents / 64 + 1, frame_bits);
}

/* After the nodes set first, before the copies: per word of fluents with frame nodes, the
 * state's word ANDed with the chosen moves' rows (their complement at the fluents of
 * negated frame nodes, the XOR: kept unless a move sets a node), unpacked into the next
 * nodes of each 8
 * fluents with a frame node among them: 8 bytes a store where those 8 next nodes are all
 * acyclic nodes of the move blocks not set first (the others among them are 0 there, as
 * zeroed, and written later by their code, the copies or the scattered rules), else a
 * store per frame node (a next node that no move changes is written by the play blocks,
 * and kept). */
/* Whether emit_frames writes the 8 next nodes of fluents [g, g + 8) (to the last fluent)
 * 8 bytes a store: one of them a frame node, all acyclic nodes of the move blocks not set
 * first. */
static bool frame_group(const cg_t *cg, uint32_t g) {
    uint32_t nf = cg->net->n_fluents, end = nf - g < 8 ? nf : g + 8;
    bool any = false, whole = true;
    for (uint32_t f = g; f < end; f++)
        any |= cg->frame[nf + f],
            whole &= cg->late[nf + f] == 1 && cg->pre_bit[nf + f] == GNET_NONE;
    return any && whole;
}

static void emit_frames(strbuf_t *c, const cg_t *cg) {
    const gnet_t *net = cg->net;
    uint32_t nf = net->n_fluents, nw = nf / 64 + 1;
    if (!cg->n_frames) return;
    sb_puts(c, "{W64 f_;");
    for (uint32_t x = 0; x < nw; x++) {
        bool any = false;
        for (uint32_t f = 64 * x; f < nf && f < 64 * x + 64 && !any; f++)
            any = cg->frame[nf + f];
        if (!any) continue;
        uint64_t neg = 0; /* the fluents of negated frame nodes: kept where no row has them */
        for (uint32_t f = 64 * x; f < nf && f < 64 * x + 64; f++)
            neg |= (uint64_t)(cg->frame[nf + f] == 2) << (f & 63);
        sb_printf(c, "f_=w[%u]&(%s", x, neg ? "(" : "");
        for (uint32_t r = 0; r < net->n_roles; r++)
            sb_printf(c, "%sF%u_[m[%u]*%u+%u]", r ? "|" : "", r, r, nw, x);
        if (neg) sb_printf(c, ")^0x%" PRIx64 "ull", neg);
        sb_puts(c, ");");
        for (uint32_t g = 64 * x; g < nf && g < 64 * x + 64; g += 8) {
            uint32_t end = nf - g < 8 ? nf : g + 8;
            if (frame_group(cg, g)) {
                sb_printf(c, "unpk(v+%u,f_>>%u,%u);", nf + g, g & 63, end - g);
                continue;
            }
            for (uint32_t f = g; f < end; f++)
                if (cg->frame[nf + f]) sb_printf(c, "v[%u]=(U)(f_>>%u&1);", nf + f, f & 63);
        }
    }
    sb_puts(c, "}\n");
}

/* The scattered rules of every role: E<r>_ the lists one after the other (per rule its
 * node, the number of its other literals, those literals), O<r>_[k] where move k's list
 * starts (k up to the role's moves: none, an empty list). */
static void emit_scatter_tables(strbuf_t *c, cg_t *cg) {
    const gnet_t *net = cg->net;
    for (uint32_t r = 0; r < net->n_roles; r++) {
        uint32_t nm = net->n_moves[r], base = cg->move_base[r];
        size_t total = 0;
        char name[32];
        snprintf(name, sizeof name, "O%u_", r);
        strbuf_t *t = open_table(cg, c, "unsigned", name, nm + 2);
        sb_putc(t, '0');
        for (uint32_t k = 0; k < nm; k++)
            sb_printf(t, ",%zu", total += cg->n_ent[base + k]);
        sb_printf(t, ",%zu};\n", total);
        snprintf(name, sizeof name, "E%u_", r);
        t = open_table(cg, c, "unsigned", name, total + 1);
        for (uint32_t k = 0; k < nm; k++)
            for (size_t e = 0; e < cg->n_ent[base + k]; e++)
                sb_printf(t, "%u,", cg->ent[base + k][e]);
        sb_puts(t, "0};\n");
    }
    emit_preset_tables(c, cg);
    emit_frame_tables(c, cg);
}

/* The start of the move blocks: their nodes (but those of cyclic blocks) zeroed (a node of
 * a guard whose guard is off is 0, one without code 0 but for its scattered rules). */
static void emit_zero_moves(strbuf_t *c, const cg_t *cg) {
    const gnet_t *net = cg->net;
    uint8_t *zero = xcalloc(net->n_nodes + 1, 1);
    for (uint32_t n = 0; n < net->n_nodes; n++)
        zero[n] = cg->late[n] == 1;
    /* but the bytes every call writes whole before they are read: the nodes set first
     * (emit_preset) and the frame words' groups (emit_frames); breakthroughWalls' move
     * blocks zeroed their 128 of each, two `rep stos` (19% of the move blocks' samples) */
    for (uint32_t n = 0; n < net->n_nodes; n++)
        if (cg->pre_bit[n] != GNET_NONE) zero[n] = 0;
    for (uint32_t g = 0, nf = net->n_fluents; cg->n_frames && g < nf; g += 8)
        if (frame_group(cg, g))
            for (uint32_t f = g; f < nf && f < g + 8; f++)
                zero[nf + f] = 0;
    for (uint32_t n = 0, e; n < net->n_nodes; n = e) {
        for (e = n + 1; e < net->n_nodes && zero[e] == zero[n];)
            e++;
        if (zero[n]) sb_printf(c, "__builtin_memset(v+%u,0,%u);", n, e - n);
    }
    sb_putc(c, '\n');
    free(zero);
}

/* The copies (take_copy) in runs of consecutive nodes from consecutive fluents, one
 * memcpy each (connect four: 84 cells in 2 runs, not 84 loads and stores). */
static void emit_fluent_copies(strbuf_t *c, cg_t *cg) {
    uint32_t *p = cg->copy_pair, n = cg->n_copies;
    if (!n) return;
    qsort(p, n, 2 * sizeof *p, cmp_pair);
    for (uint32_t k = 0, e; k < n; k = e) {
        for (e = k + 1;
             e < n && p[2 * e] == p[2 * k] + (e - k) && p[2 * e + 1] == p[2 * k + 1] + (e - k);)
            e++;
        if (e - k == 1)
            sb_printf(c, "v[%u]=v[%u];", p[2 * k], p[2 * k + 1]);
        else
            sb_printf(c, "__builtin_memcpy(v+%u,v+%u,%u);", p[2 * k], p[2 * k + 1], e - k);
    }
    sb_putc(c, '\n');
}

/* The end of the move blocks: the scattered rules of the moves chosen OR into their nodes
 * (after the code: storing at an address read from a table, then reading bytes near it,
 * stalls the processor's memory pipeline). */
static void emit_scatter(strbuf_t *c, const cg_t *cg) {
    const gnet_t *net = cg->net;
    for (uint32_t r = 0; r < net->n_roles; r++)
        sb_printf(c, "scatter(v,E%u_+O%u_[m[%u]],E%u_+O%u_[m[%u]+1]);\n", r, r, r, r, r, r);
}

/* NAME_body calling the phase's functions in order (declared first when they live in other
 * units), and the kernel NAME, which packs the fluent words first and evaluates every node
 * (d: all fluents changed). */
static void emit_kernel(strbuf_t *c, cg_t *cg, const phase_t *ph, bool one_unit) {
    const gnet_t *net = cg->net;
    for (uint32_t p = 0; p < ph->parts && !one_unit; p++)
        sb_printf(c, "PART void %s_%u(%s);\n", ph->name, p, PARAMS);
    if (ph->moves) emit_scatter_tables(c, cg);
    sb_printf(c, "static inline void %s_body(%s){\n", ph->name, PARAMS);
    if (ph->moves)
        emit_zero_moves(c, cg), emit_preset(c, cg), emit_frames(c, cg), emit_fluent_copies(c, cg);
    for (uint32_t p = 0; p < ph->parts; p++)
        sb_printf(c, "%s_%u(v,w,d,m);\n", ph->name, p);
    if (ph->moves) emit_scatter(c, cg);
    sb_puts(c, "}\n");
    if (!ph->moves) {
        sb_printf(c,
                  "void %s(U *restrict v){W64 w[NW];static const unsigned m[1];pack(v,w);"
                  "%s_body(v,w,all,m);}\n",
                  ph->name, ph->name);
        if (strcmp(ph->name, "ggp_play") == 0) emit_play_from(c);
        return;
    }
    /* an index past the role's moves: none (the bit past them in every table) */
    sb_printf(c, "void ggp_move(U *restrict v,const unsigned *mi){W64 w[NW];unsigned m[%u];\n",
              net->n_roles + 1);
    for (uint32_t r = 0; r < net->n_roles; r++)
        sb_printf(c, "m[%u]=mi[%u]<%uu?mi[%u]:%uu;", r, r, net->n_moves[r], r, net->n_moves[r]);
    sb_puts(c, "\npack(v,w);ggp_move_body(v,w,all,m);}\n");
}

/* legal_fix: the legal nodes of a role guard (their bytes the rest of their rules) zeroed
 * while the guard is off: every legal byte true, for the engine, after a kernel or a
 * playout; their bytes kept first in the save area past the nodes (cgen_vals_bytes), and
 * put back by legal_unfix, so that the next evaluation can start from these values and
 * evaluate only what changed. */
static void emit_legal_fix(strbuf_t *c, const cg_t *cg) {
    const gnet_t *net = cg->net;
    for (int unfix = 0; unfix < 2; unfix++) {
        sb_printf(c, "static inline void legal_%s(U *restrict v){\n", unfix ? "unfix" : "fix");
        for (uint32_t r = 0, save = net->n_nodes + 64; r < net->n_roles; r++) {
            uint32_t lf = net->legal_first[r], nm = net->n_moves[r];
            save += r ? net->n_moves[r - 1] : 0;
            if (cg->role_guard[r] == GNET_NONE) continue;
            uint32_t g = cg->role_guard[r];
            sb_printf(c, "if(%sv[%u]){__builtin_memcpy(v+%u,v+%u,%u);", g & 1 ? "" : "!", g >> 1,
                      unfix ? lf : save, unfix ? save : lf, nm);
            for (uint32_t k = 0, e; k < nm && !unfix; k = e) {
                bool gk = cg->guarded[lf + k];
                for (e = k + 1; e < nm && cg->guarded[lf + e] == gk;)
                    e++;
                if (gk) sb_printf(c, "__builtin_memset(v+%u,0,%u);", lf + k, e - k);
            }
            sb_puts(c, "}\n");
        }
        sb_puts(c, "(void)v;}\n");
    }
}

/* From this many moves a role's legal bytes are packed and counted by loops (over a table
 * of the moves not guarded), not straight-line code: amazons' 86,981 moves a role made
 * ggp_playout a function of 2 x 4,100 statements, 16 CPU s of cc. */
#define PICK_LOOP_MOVES 4096

/* The bits of the moves of role r that its role guard does not guard, 32 to an entry, as
 * the file-scope table OPEN<r>_. */
static void emit_open_moves(strbuf_t *c, const cg_t *cg, uint32_t r) {
    const gnet_t *net = cg->net;
    uint32_t nm = net->n_moves[r];
    sb_printf(c, "static const W64 OPEN%u_[%u]={", r, (nm + 31) / 32);
    for (uint32_t i = 0; i < nm; i += 32) {
        uint64_t open = 0;
        for (uint32_t k = i; k < nm && k < i + 32; k++)
            if (!cg->guarded[net->legal_first[r] + k]) open |= 1ull << (k - i);
        sb_printf(c, "0x%" PRIx64 "ull,", open);
    }
    sb_puts(c, "};\n");
}

/* emit_pack_legal's loops, and the count n of the moves (its statement left open): a loop
 * over the whole chunks of 32 legal bytes (masked by OPEN<r>_ while the role guard is
 * off), then the last part. */
static void emit_pack_legal_loop(strbuf_t *c, const cg_t *cg, uint32_t r) {
    const gnet_t *net = cg->net;
    uint32_t nm = net->n_moves[r], lf = net->legal_first[r], g = cg->role_guard[r];
    uint32_t nwr = (nm + 63) / 64, whole = nm / 32 * 32;
    sb_printf(c, "for(unsigned k=0;k<%u;k++)lw[k]=0;\n", nwr);
    for (int off = 0; off < (g == GNET_NONE ? 1 : 2); off++) {
        char mask[48] = "";
        if (g != GNET_NONE && !off) sb_printf(c, "if(%sv[%u]){", g & 1 ? "!" : "", g >> 1);
        if (off) sb_puts(c, "else{"), snprintf(mask, sizeof mask, "&OPEN%u_[i>>5]", r);
        sb_printf(c, "for(unsigned i=0;i<%u;i+=32)lw[i>>6]|=(pkn(v+%u+i,32)%s)<<(i&63);\n", whole,
                  lf, mask);
        if (off) snprintf(mask, sizeof mask, "&OPEN%u_[%u]", r, whole >> 5);
        if (whole < nm)
            sb_printf(c, "lw[%u]|=(pkn(v+%u,%u)%s)<<%u;", whole >> 6, lf + whole, nm - whole, mask,
                      whole & 63);
        if (g != GNET_NONE) sb_puts(c, "}");
    }
    sb_printf(c, "\nn=0;for(unsigned k=0;k<%u;k++)n+=(unsigned)__builtin_popcountll(lw[k])", nwr);
}

/* Up to this many moves a role's legal bytes are gathered into its word one byte load at a
 * time, not packed by a vector load: the bytes, just written one by one by the play
 * blocks, cannot be forwarded from the store buffer to a wider load, which then waits for
 * them on the playout's critical path (tic-tac-toe's 10 moves a role 1.19x playouts per
 * CPU second, connect four's 8 1.16x; connectFourLarger's 21 even, breakthroughSmallHoles'
 * 81 0.78x, breakthrough's 155 0.73x). */
#define PICK_BYTE_MOVES 16

/* The gathering of role r's legal bytes lf.. into lw (0 before); open_only: only the moves
 * its role guard does not guard. */
static void emit_gather(strbuf_t *c, const cg_t *cg, uint32_t lf, uint32_t nm, bool open_only) {
    for (uint32_t k = 0; k < nm; k++)
        if (!open_only || !cg->pick_guarded[lf + k])
            sb_printf(c, "lw[%u]|=(W64)v[%u]<<%u;", k >> 6, lf + k, k & 63);
}

/* The legal moves of role r packed into words lw (its pick guard off: only its moves not
 * guarded, gathered byte by byte when they are few: a waiting role's noop). */
static void emit_pack_legal(strbuf_t *c, const cg_t *cg, uint32_t r) {
    const gnet_t *net = cg->net;
    uint32_t nm = net->n_moves[r], lf = net->legal_first[r], g = cg->pick_guard[r], n_open = 0;
    for (uint32_t k = 0; k < nm; k++)
        n_open += !cg->pick_guarded[lf + k];
    if (nm <= PICK_BYTE_MOVES) {
        sb_puts(c, "lw[0]=0;");
        if (g != GNET_NONE) sb_printf(c, "if(%sv[%u]){", g & 1 ? "!" : "", g >> 1);
        emit_gather(c, cg, lf, nm, false);
        if (g == GNET_NONE) return;
        sb_puts(c, "}else{");
        emit_gather(c, cg, lf, nm, true);
        sb_puts(c, "}");
        return;
    }
    for (uint32_t k = 0; k < (nm + 63) / 64; k++)
        sb_printf(c, "lw[%u]=0;", k);
    if (g != GNET_NONE) sb_printf(c, "if(%sv[%u]){", g & 1 ? "!" : "", g >> 1);
    for (uint32_t i = 0; i < nm; i += 32)
        sb_printf(c, "lw[%u]|=pkn(v+%u,%u)<<%u;", i >> 6, lf + i, nm - i < 32 ? nm - i : 32,
                  i & 63);
    if (g == GNET_NONE) return;
    sb_puts(c, "}else{");
    if (n_open <= PICK_BYTE_MOVES) {
        emit_gather(c, cg, lf, nm, true);
        sb_puts(c, "}");
        return;
    }
    for (uint32_t i = 0; i < nm; i += 32) {
        uint64_t open = 0; /* the moves not guarded */
        for (uint32_t k = i; k < nm && k < i + 32; k++)
            if (!cg->pick_guarded[(net->legal_first[r] + k)]) open |= 1ull << (k - i);
        if (open)
            sb_printf(c, "lw[%u]|=(pkn(v+%u,%u)&0x%" PRIx64 "ull)<<%u;", i >> 6, lf + i,
                      nm - i < 32 ? nm - i : 32, open, i & 63);
    }
    sb_puts(c, "}");
}

/* Inputs are nodes 0..F-1, their next nodes F..2F-1 (ground.h): a copy; and the next
 * nodes packed into state words (the successor of a step, as the playout loop packs it). */
static void emit_advance(strbuf_t *c, const gnet_t *net) {
    sb_printf(c, "void ggp_advance(U *restrict v){__builtin_memcpy(v,v+%u,%u);}\n", net->n_fluents,
              net->n_fluents);
    sb_printf(c, "void ggp_next_bits(const U *restrict v,W64 *restrict w){pack(v+%u,w);}\n",
              net->n_fluents);
}

/* A whole random playout in the generated code, the loop of g_playout (engine/gengine.c)
 * draw for draw. The state comes in as fluent words (the move inputs all off) and goes
 * out as the final state's words; each step unpacks the words into the fluent bytes,
 * packs the legal bytes of each role into words to pick a move (a popcount and a
 * select) and packs the next bytes into the successor's words (no byte copy: reading
 * whole words of bytes just written one by one stalls the store buffer). A move whose
 * input no rule reads is set in a scratch byte past the nodes. Returns the joint moves
 * played; the final state's play blocks are evaluated. A hook (NULL: none) is called on
 * each state that is not terminal, with its words, before its move is drawn: true ends
 * the playout there. */
static void emit_playout(strbuf_t *c, const cg_t *cg) {
    const gnet_t *net = cg->net;
    uint32_t nr = net->n_roles, scratch = net->n_nodes, nl = 1;
    for (uint32_t r = 0; r < nr; r++) {
        nl += (net->n_moves[r] + 63) / 64;
        sb_printf(c, "static const unsigned mv%u[%u]={", r, net->n_moves[r] + 1);
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t m = net->move_node[r][k];
            sb_printf(c, "%u,", m == GNET_NONE ? scratch : m);
        }
        sb_printf(c, "%u};\n", scratch);
        if (net->n_moves[r] >= PICK_LOOP_MOVES && cg->role_guard[r] != GNET_NONE)
            emit_open_moves(c, cg, r);
    }
    sb_printf(c,
              "unsigned ggp_playout(U *restrict v,W64 *restrict bits,const W64 *restrict prev,"
              "W64 *restrict rng,unsigned max_steps,int(*hook)(void*,const W64*),void *ctx){\n"
              "W64 w[NW],d[NW],lw[%u];unsigned steps=0,n,j,m[%u];\n",
              nl, nr + 1);
    sb_puts(c, "for(unsigned k=0;k<NW;k++)w[k]=bits[k],d[k]=prev?prev[k]^bits[k]:~0ull;\n");
    if (cg->tables) {
        size_t at = snapshot_at(net), zw = guard_words(net), nw = net->n_fluents / 64 + 1;
        strbuf_t turns[2]; /* the turn guards' bytes with the snapshot: put back, kept */
        sb_init(&turns[0]), sb_init(&turns[1]);
        if (cg->n_turns)
            for (int keep = 0; keep < 2; keep++)
                sb_printf(&turns[keep], "__builtin_memcpy(v+%zu,v+%zu,%u);",
                          turn_at(net) + (keep ? turn_bytes(net) : 0),
                          turn_at(net) + (keep ? 0 : turn_bytes(net)), cg->n_x);
        sb_printf(c,
                  "W64 *restrict S=(W64 *)(v+%zu);int snap=0;\n"
                  "if(S[0]){unsigned a=0,b=0;for(unsigned k=0;k<NW;k++)"
                  "a+=(unsigned)__builtin_popcountll(d[k]),"
                  "b+=(unsigned)__builtin_popcountll(S[1+k]^w[k]);\n"
                  "if(b<a){snap=1;for(unsigned k=0;k<NW;k++)d[k]=S[1+k]^w[k];\n"
                  "__builtin_memcpy(v+%zu,S+1+NW,%zu);__builtin_memcpy(v,S+1+NW+%zu,%u);%s}}\n"
                  "if(prev&&!snap)legal_unfix(v);\n"
                  "for(;;){\nunpack(v,w);ggp_play_body(v,w,steps||prev||snap?d:all,m);\n"
                  "if(!steps&&!snap){S[0]=1;for(unsigned k=0;k<NW;k++)S[1+k]=w[k];\n"
                  "__builtin_memcpy(S+1+NW,v+%zu,%zu);__builtin_memcpy(S+1+NW+%zu,v,%u);%s}\n",
                  at, guard_words_at(net), 8 * zw, zw, net->n_nodes,
                  turns[0].data ? turns[0].data : "", guard_words_at(net), 8 * zw, zw, net->n_nodes,
                  turns[1].data ? turns[1].data : "");
        sb_fini(&turns[0]), sb_fini(&turns[1]);
        (void)nw;
    } else {
        sb_puts(c, "if(prev)legal_unfix(v);\n"
                   "for(;;){\nunpack(v,w);ggp_play_body(v,w,steps||prev?d:all,m);\n");
    }
    if (net->terminal != GNET_NONE) sb_printf(c, "if(v[%u])break;\n", net->terminal);
    sb_puts(c, "if(hook&&hook(ctx,w))break;\nif(steps>=max_steps)break;\n");
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t nwr = (net->n_moves[r] + 63) / 64;
        if (net->n_moves[r] >= PICK_LOOP_MOVES) {
            emit_pack_legal_loop(c, cg, r);
        } else {
            emit_pack_legal(c, cg, r);
            sb_puts(c, "\nn=0");
            for (uint32_t k = 0; k < nwr; k++)
                sb_printf(c, "+(unsigned)__builtin_popcountll(lw[%u])", k);
        }
        sb_printf(c, ";if(!n)break;j=(unsigned)(((rnd(rng)>>32)*n)>>32);m[%u]=sel(lw,%u,j);\n", r,
                  nwr);
    }
    for (uint32_t r = 0; r < nr; r++)
        sb_printf(c, "v[mv%u[m[%u]]]=1;", r, r);
    sb_puts(c, "\nggp_move_body(v,w,d,m);\nfor(unsigned k=0;k<NW;k++)d[k]=w[k];\n");
    for (uint32_t r = 0; r < nr; r++)
        sb_printf(c, "v[mv%u[m[%u]]]=0;", r, r);
    sb_printf(c, "\npack(v+%u,w);steps++;\nfor(unsigned k=0;k<NW;k++)d[k]^=w[k];\n}\n",
              net->n_fluents);
    sb_puts(c, "legal_fix(v);\nfor(unsigned k=0;k<NW;k++)bits[k]=w[k];\nreturn steps;\n}\n");
}

/* ---- the program ---- */

/* The rules of net as the code reads them, into out (its other arrays net's): a literal
 * of a constant node (a static one, a move no role has, a node whose rules all fail or
 * one of which is empty) evaluated away, a rule it fails dropped; drop (NULL: none): per
 * node a literal left out of its rules. */
static void simplify(const gnet_t *net, const uint32_t *mrole, const uint32_t *drop, gnet_t *out) {
    *out = *net;
    uint8_t *val = xcalloc(net->n_nodes + 1, 1); /* 0 unknown, 1 false, 2 true */
    for (uint32_t n = 0; n < net->n_nodes; n++)
        val[n] = net->kind[n] == GNODE_TRUE                            ? 2
                 : net->kind[n] == GNODE_FALSE                         ? 1
                 : net->kind[n] == GNODE_MOVE && mrole[n] == GNET_NONE ? 1
                                                                       : 0;
    out->rule_start = xmalloc((net->n_order + 1) * sizeof *out->rule_start);
    out->lit_start = xmalloc((net->n_rules + 1) * sizeof *out->lit_start);
    out->lits = xmalloc((net->n_lits + 1) * sizeof *out->lits);
    uint32_t nr = 0, nl = 0;
    for (uint32_t b = 0; b < net->n_blocks; b++) {
        const gblock_t *bl = &net->blocks[b];
        for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
            out->rule_start[i] = nr;
            bool empty = false;
            for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1] && !empty; r++) {
                uint32_t l0 = nl;
                bool fails = false;
                for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1] && !fails; l++) {
                    uint32_t x = net->lits[l], c = val[x >> 1];
                    if (drop && drop[net->order[i]] == x) continue;
                    if (!c)
                        out->lits[nl++] = x;
                    else
                        fails = (c == 2) == (x & 1); /* true and negated, or false */
                }
                if (fails) {
                    nl = l0;
                    continue;
                }
                out->lit_start[nr++] = l0;
                empty = nl == l0;
            }
            if (empty) /* the OR is true: that rule alone */
                nr = out->rule_start[i] + 1, nl = out->lit_start[nr - 1];
            if (!bl->cyclic && (empty || nr == out->rule_start[i]))
                val[net->order[i]] = empty ? 2 : 1;
        }
    }
    out->rule_start[net->n_order] = nr;
    out->lit_start[nr] = nl;
    out->n_rules = nr, out->n_lits = nl;
    free(val);
}

/* Whether literal x is in every rule of order[i] (and it has one). */
static bool holds_in_all(const gnet_t *net, uint32_t i, uint32_t x) {
    if (net->rule_start[i] == net->rule_start[i + 1]) return false;
    for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
        bool has = false;
        for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1] && !has; l++)
            has = net->lits[l] == x;
        if (!has) return false;
    }
    return true;
}

/* The literal that every rule of most of role r's legal nodes has (pos: per node its
 * index in order; count: per literal, zeros), GNET_NONE when there is none for half of
 * them: a fluent (true (control white)) or a node before them (not (dead red)). */
static uint32_t role_guard(const gnet_t *net, uint32_t r, const uint32_t *pos, uint32_t *count) {
    uint32_t best = GNET_NONE;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t i = pos[(net->legal_first[r] + k)],
                     r0 = i == GNET_NONE ? 0 : net->rule_start[i];
            for (uint32_t l = net->lit_start[r0]; i != GNET_NONE && l < net->lit_start[r0 + 1];
                 l++) {
                uint32_t x = net->lits[l], kind = net->kind[x >> 1];
                if ((kind != GNODE_FLUENT && kind != GNODE_DERIVED) || !holds_in_all(net, i, x))
                    continue;
                if (pass == 0)
                    count[x]++;
                else if (best == GNET_NONE || count[x] > count[best])
                    best = x;
            }
        }
    bool enough = best != GNET_NONE && 2 * count[best] >= net->n_moves[r];
    for (uint32_t k = 0; k < net->n_moves[r]; k++) { /* the counts back to 0 */
        uint32_t i = pos[(net->legal_first[r] + k)], r0 = i == GNET_NONE ? 0 : net->rule_start[i];
        for (uint32_t l = net->lit_start[r0]; i != GNET_NONE && l < net->lit_start[r0 + 1]; l++)
            count[net->lits[l]] = 0;
    }
    return enough ? best : GNET_NONE;
}

/* Role guards, for the play blocks driven by changes: a literal every rule of most legal
 * nodes of a role has (true (control white), not (dead red)) is left out of their rules,
 * so that a turn flipping it does not make every legal node of both roles to evaluate
 * (skirmishNew: 7,666 of the 8,083 a step; knightwar: a role's 700 when it dies). Their bytes hold
 * the rest: the playout loop reads them only while the guard holds, and a kernel leaves them true
 * (legal_fix). Only when no rule reads a legal node. Returns the literal to drop per node (NULL:
 * none). */
static uint32_t *find_role_guards(cg_t *cg, const gnet_t *net) {
    cg->role_guard = xmalloc((net->n_roles + 1) * sizeof *cg->role_guard);
    cg->guarded = xcalloc(net->n_nodes + 1, 1);
    uint8_t *is_legal = xcalloc(net->n_nodes + 1, 1); /* moves it is the legal node of, to 2 */
    for (uint32_t r = 0; r < net->n_roles; r++) {
        cg->role_guard[r] = GNET_NONE;
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            is_legal[(net->legal_first[r] + k)] += is_legal[(net->legal_first[r] + k)] < 2;
    }
    bool read = !use_events(net);
    for (uint32_t l = 0; l < net->n_lits && !read; l++)
        read = is_legal[net->lits[l] >> 1];
    if (read) {
        free(is_legal);
        return NULL;
    }
    uint32_t *count = xcalloc(2 * (size_t)net->n_nodes + 2, sizeof *count);
    uint32_t *pos = xmalloc((net->n_nodes + 1) * sizeof *pos), *drop = NULL;
    for (uint32_t k = 0; k < net->n_nodes; k++)
        pos[k] = GNET_NONE;
    for (uint32_t i = 0; i < net->n_order; i++)
        pos[net->order[i]] = i;
    for (uint32_t r = 0; r < net->n_roles; r++) {
        uint32_t g = cg->role_guard[r] = role_guard(net, r, pos, count);
        for (uint32_t k = 0; g != GNET_NONE && k < net->n_moves[r]; k++) {
            uint32_t n = (net->legal_first[r] + k);
            if (pos[n] == GNET_NONE || is_legal[n] > 1 || !holds_in_all(net, pos[n], g)) continue;
            if (!drop) {
                drop = xmalloc((net->n_nodes + 1) * sizeof *drop);
                for (uint32_t j = 0; j < net->n_nodes; j++)
                    drop[j] = GNET_NONE;
            }
            drop[n] = g, cg->guarded[n] = 1;
        }
    }
    free(count), free(pos), free(is_legal);
    return drop;
}

/* Pick guards: a role's role guard, else, for a role of more moves than are gathered byte
 * by byte (and fewer than make its pick a loop), the literal that every rule of most of its
 * legal nodes has (role_guard; (true (control white)) in breakthrough, where a waiting role
 * has its noop): while it is false those nodes are 0 (every rule fails), so the pick need
 * not read them. Unlike a role guard nothing is left out of the rules: only the pick reads
 * it. */
static void find_pick_guards(cg_t *cg) {
    const gnet_t *net = cg->net;
    cg->pick_guard = xmalloc((net->n_roles + 1) * sizeof *cg->pick_guard);
    cg->pick_guarded = xcalloc(net->n_nodes + 1, 1);
    uint32_t *count = xcalloc(2 * (size_t)net->n_nodes + 2, sizeof *count);
    uint32_t *pos = xmalloc((net->n_nodes + 1) * sizeof *pos);
    for (uint32_t k = 0; k < net->n_nodes; k++)
        pos[k] = GNET_NONE;
    for (uint32_t i = 0; i < net->n_order; i++)
        pos[net->order[i]] = i;
    for (uint32_t r = 0; r < net->n_roles; r++) {
        uint32_t nm = net->n_moves[r], lf = net->legal_first[r], g = cg->role_guard[r];
        bool own = g != GNET_NONE;
        if (!own && nm > PICK_BYTE_MOVES && nm < PICK_LOOP_MOVES)
            g = role_guard(net, r, pos, count);
        cg->pick_guard[r] = g;
        for (uint32_t k = 0; k < nm && g != GNET_NONE; k++)
            cg->pick_guarded[lf + k] =
                own ? cg->guarded[lf + k]
                    : pos[lf + k] != GNET_NONE && holds_in_all(net, pos[lf + k], g);
    }
    free(count), free(pos);
}

static void cg_init(cg_t *cg, const gnet_t *net, size_t unit_bytes) {
    memset(cg, 0, sizeof *cg);
    cg->unit_bytes = unit_bytes;
    cg->n_units = 1;
    cg->code = xmalloc(sizeof *cg->code), cg->data = xmalloc(sizeof *cg->data);
    sb_init(&cg->code[0]), sb_init(&cg->data[0]), sb_init(&cg->term);
    cg->mrole = xmalloc((net->n_nodes + 1) * sizeof *cg->mrole);
    cg->midx = xmalloc((net->n_nodes + 1) * sizeof *cg->midx);
    for (uint32_t n = 0; n < net->n_nodes; n++)
        cg->mrole[n] = cg->midx[n] = GNET_NONE;
    for (uint32_t r = 0; r < net->n_roles; r++)
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t m = net->move_node[r][k];
            if (m != GNET_NONE && net->kind[m] == GNODE_MOVE) cg->mrole[m] = r, cg->midx[m] = k;
        }
    uint32_t *drop = find_role_guards(cg, net);
    simplify(net, cg->mrole, drop, &cg->simple);
    free(drop);
    cg->net = net = &cg->simple;
    find_pick_guards(cg);
    cg->scratch = xmalloc((net->n_lits + 1) * sizeof *cg->scratch);
    cg->freq = xcalloc(2 * (size_t)net->n_nodes + 2, sizeof *cg->freq);
    cg->cover_mark = xcalloc(2 * (size_t)net->n_nodes + 2, 1);
    cg->cover_head = xmalloc((2 * (size_t)net->n_nodes + 2) * sizeof *cg->cover_head);
    cg->cover_next = xmalloc(((size_t)net->n_order + 1) * sizeof *cg->cover_next);
    for (size_t x = 0; x < 2 * (size_t)net->n_nodes + 2; x++)
        cg->cover_head[x] = GNET_NONE;
    cg->move_base = xmalloc((net->n_roles + 1) * sizeof *cg->move_base);
    uint32_t moves = 0;
    for (uint32_t r = 0; r < net->n_roles; r++)
        cg->move_base[r] = moves, moves += net->n_moves[r];
    cg->ent = xcalloc(moves + 1, sizeof *cg->ent);
    cg->n_ent = xcalloc(moves + 1, sizeof *cg->n_ent);
    cg->cap_ent = xcalloc(moves + 1, sizeof *cg->cap_ent);
    cg->pre = xcalloc(moves + 1, sizeof *cg->pre);
    cg->n_pre = xcalloc(moves + 1, sizeof *cg->n_pre);
    cg->cap_pre = xcalloc(moves + 1, sizeof *cg->cap_pre);
    cg->pre_bit = xmalloc((net->n_nodes + 1) * sizeof *cg->pre_bit);
    for (uint32_t n = 0; n <= net->n_nodes; n++)
        cg->pre_bit[n] = GNET_NONE;
    cg->late = xcalloc(net->n_nodes + 1, 1);
    cg->busy = xcalloc(net->n_nodes + 1, 1);
    cg->read_late = xcalloc(net->n_nodes + 1, 1);
    cg->rule_scattered = xcalloc(net->n_rules + 1, 1);
    cg->phase = xcalloc(net->n_nodes + 1, 1);
    for (uint32_t b = net->n_play_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++)
            cg->phase[net->order[i]] = b < net->n_state_blocks ? 1 : 2;
    for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++) {
            cg->late[net->order[i]] = net->blocks[b].cyclic ? 2 : 1;
            for (uint32_t l = net->lit_start[net->rule_start[i]];
                 l < net->lit_start[net->rule_start[i + 1]]; l++)
                cg->read_late[net->lits[l] >> 1] = 1;
        }
}

/* Marks busy (cg->busy) the moves in more than SCATTER_MAX_RULES scattered rules (uses:
 * per node) and SCATTER_SKEW times the mean of their role's moves (those in any) or more
 * than 1/SCATTER_MIN_MOVES of their sum. */
static void mark_busy(cg_t *cg, const uint32_t *uses) {
    const gnet_t *net = cg->net;
    for (uint32_t r = 0; r < net->n_roles; r++) {
        uint64_t sum = 0, n = 0;
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t m = net->move_node[r][k];
            if (m != GNET_NONE && cg->mrole[m] == r && uses[m]) sum += uses[m], n++;
        }
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t m = net->move_node[r][k];
            if (m == GNET_NONE || cg->mrole[m] != r) continue;
            uint64_t u = uses[m];
            cg->busy[m] = u > SCATTER_MAX_RULES &&
                          (u * n > SCATTER_SKEW * sum || u * SCATTER_MIN_MOVES > sum);
        }
    }
}

/* Which rules of the move blocks are scattered (place_moves says how): first the moves
 * in too many rules that would be (cg->busy), then the rules. */
static void plan_scatter(cg_t *cg) {
    const gnet_t *net = cg->net;
    uint32_t *uses = xcalloc(net->n_nodes + 1, sizeof *uses);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++) {
            if (net->blocks[b].cyclic) continue;
            mvrule_t *mv;
            uint32_t n = group_moves(cg, net->blocks[b].first, &mv);
            cg->node = net->blocks[b].first;
            for (uint32_t a = 0, end; a < n; a = end) {
                for (end = a + 1; end < n && mv[end].group == mv[a].group;)
                    end++;
                uint32_t role = cg->mrole[net->lits[mv[a].lit] >> 1];
                if (2 * (end - a) >= net->n_moves[role] || !scatterable(cg, &mv[a])) continue;
                bool busy = false;
                for (uint32_t x = a; x < end; x++) {
                    uint32_t m = net->lits[mv[x].lit] >> 1;
                    if (pass == 0) uses[m]++;
                    busy |= cg->busy[m];
                }
                for (uint32_t x = a; x < end && pass == 1 && !busy; x++) {
                    scatter_rule(cg, &mv[x]);
                    cg->rule_scattered[mv[x].rule] = 1;
                }
            }
            free(mv);
        }
        if (pass == 0) mark_busy(cg, uses);
    }
    free(uses);
}

static void cg_fini(cg_t *cg) {
    uint32_t moves = 0;
    for (uint32_t r = 0; r < cg->net->n_roles; r++)
        moves += cg->net->n_moves[r];
    for (uint32_t k = 0; k < moves; k++)
        free(cg->ent[k]), free(cg->pre[k]);
    free(cg->ent), free(cg->n_ent), free(cg->cap_ent), free(cg->move_base);
    free(cg->pre), free(cg->n_pre), free(cg->cap_pre), free(cg->pre_bit);
    free(cg->frame), free(cg->frame_pair), free(cg->late), free(cg->phase), free(cg->busy),
        free(cg->read_late), free(cg->role_guard), free(cg->guarded), free(cg->rule_scattered),
        free(cg->copy_pair), free(cg->pick_guard), free(cg->pick_guarded);
    free(cg->simple.rule_start), free(cg->simple.lit_start), free(cg->simple.lits);
    sb_fini(&cg->term);
    free(cg->code), free(cg->data), free(cg->mrole), free(cg->midx), free(cg->scratch);
    free(cg->freq), free(cg->term_end), free(cg->turn_lit), free(cg->turn_base);
    free(cg->cover_mark), free(cg->cover_head), free(cg->cover_next);
}

void cgen_program(const gnet_t *net, const char *header, size_t unit_bytes, cgen_t *out) {
    cg_t cg;
    cg_init(&cg, net, unit_bytes);
    net = cg.net;
    uint64_t *sup = state_support(net);
    phase_t play = {"ggp_play", PARAMS, false, 0, false},
            goals = {"ggp_goals", PARAMS, false, 0, false},
            move = {"ggp_move", PARAMS, true, 0, false},
            evp = {"ggp_ev", "U *restrict v,const W64 *restrict w,W64 *restrict D", false, 0,
                   false},
            evh = {"ggp_evh", PARAMS, false, 0, false};
    events_t ev;
    uint32_t *ranges = NULL, n_ranges = 0;
    bool event = use_events(net);
    uint32_t *code = NULL, n_code = 0;
    bool tables = cg.tables = event && use_tables();
    if (tables) {
        events_init(&ev, net);
        code = xmalloc((ev.n_pos + 1) * sizeof *code);
        n_code = emit_code_positions(&cg, &ev, &evh, code);
    } else if (event) {
        events_init(&ev, net);
        n_ranges = emit_events(&cg, &ev, &evp, &evh, &ranges);
    } else {
        cg.covers = true;
        emit_phase(&cg, &play, 0, net->n_play_blocks, sup);
        cg.covers = false;
    }
    emit_phase(&cg, &goals, net->n_play_blocks, net->n_state_blocks, NULL);
    cg.can_scatter = true;
    plan_preset(&cg);
    plan_scatter(&cg);
    plan_frames(&cg);
    emit_phase(&cg, &move, net->n_state_blocks, net->n_blocks, NULL);
    free(sup);
    bool one = cg.n_units == 1;
    cg.split_tables = !one;
    strbuf_t tail;
    sb_init(&tail);
    emit_legal_fix(&tail, &cg);
    if (tables) {
        emit_table_body(&tail, &cg, &ev, code, n_code, one);
        events_fini(&ev);
        free(code);
    } else if (event) {
        emit_event_body(&tail, &cg, &ev, &evp, &evh, ranges, n_ranges, one);
        events_fini(&ev);
        free(ranges);
    } else {
        emit_kernel(&tail, &cg, &play, one);
    }
    emit_kernel(&tail, &cg, &goals, one);
    emit_kernel(&tail, &cg, &move, one);
    emit_advance(&tail, net);
    emit_playout(&tail, &cg);
    out->n_units = cg.n_units;
    out->units = xmalloc(cg.n_units * sizeof *out->units);
    for (uint32_t u = 0; u < cg.n_units; u++) {
        strbuf_t *t = &out->units[u];
        sb_init(t);
        sb_printf(t, "%s\n", header);
        emit_prelude(t, net, one);
        sb_putn(t, cg.data[u].data ? cg.data[u].data : "", cg.data[u].len);
        sb_putn(t, cg.code[u].data ? cg.code[u].data : "", cg.code[u].len);
        if (u == 0) sb_putn(t, tail.data, tail.len);
        sb_fini(&cg.code[u]), sb_fini(&cg.data[u]);
    }
    sb_fini(&tail);
    cg_fini(&cg);
}

void cgen_fini(cgen_t *out) {
    for (uint32_t u = 0; u < out->n_units; u++)
        sb_fini(&out->units[u]);
    free(out->units);
    out->units = NULL, out->n_units = 0;
}

static void *dup_array(const void *a, size_t n, size_t size) {
    void *b = xmalloc(n * size + 1);
    if (n) memcpy(b, a, n * size);
    return b;
}

gnet_t *cgen_snapshot(const gnet_t *net) {
    gnet_t *s = xcalloc(1, sizeof *s);
    s->n_nodes = net->n_nodes, s->n_order = net->n_order, s->n_rules = net->n_rules;
    s->n_lits = net->n_lits, s->n_blocks = net->n_blocks, s->n_play_blocks = net->n_play_blocks;
    s->n_state_blocks = net->n_state_blocks, s->n_fluents = net->n_fluents;
    s->n_roles = net->n_roles, s->terminal = net->terminal;
    s->kind = dup_array(net->kind, net->n_nodes, sizeof *net->kind);
    s->order = dup_array(net->order, net->n_order, sizeof *net->order);
    s->rule_start = dup_array(net->rule_start, net->n_order + 1, sizeof *net->rule_start);
    s->lit_start = dup_array(net->lit_start, net->n_rules + 1, sizeof *net->lit_start);
    s->lits = dup_array(net->lits, net->n_lits, sizeof *net->lits);
    s->blocks = dup_array(net->blocks, net->n_blocks, sizeof *net->blocks);
    s->n_moves = dup_array(net->n_moves, net->n_roles, sizeof *net->n_moves);
    s->legal_first = dup_array(net->legal_first, net->n_roles, sizeof *net->legal_first);
    s->move_node = xcalloc(net->n_roles + 1, sizeof *s->move_node);
    for (uint32_t r = 0; r < net->n_roles; r++)
        s->move_node[r] = dup_array(net->move_node[r], net->n_moves[r], sizeof **net->move_node);
    s->n_queries = net->n_queries;
    s->query_node = dup_array(net->query_node, net->n_queries, sizeof *net->query_node);
    return s;
}

void cgen_snapshot_free(gnet_t *s) {
    if (!s) return;
    for (uint32_t r = 0; r < s->n_roles; r++)
        free(s->move_node[r]);
    free(s->move_node), free(s->kind), free(s->order), free(s->rule_start), free(s->lit_start);
    free(s->lits), free(s->blocks), free(s->n_moves), free(s->legal_first), free(s->query_node);
    free(s);
}

/* The turn guards' X bytes (find_turns): past the snapshot, then their copy in it. */
static size_t turn_at(const gnet_t *net) {
    size_t nw = net->n_fluents / 64 + 1;
    return snapshot_at(net) + 8 * (1 + nw + guard_words(net)) + ((size_t)net->n_nodes + 7) / 8 * 8;
}

size_t cgen_vals_bytes(const gnet_t *net) {
    /* the nodes, a scratch byte, 32-byte reads, legal_fix's save area, then the guard words
     * of the play blocks driven by changes and the playout loop's snapshot, the turn
     * guards' bytes and their snapshot */
    return turn_at(net) + 2 * turn_bytes(net);
}
