/* The compiled backend: see compile.h. The code is straight-line byte logic, one
 * assignment per derived node in network order (a cyclic block becomes a loop to its
 * fixpoint), split into functions of bounded size so that the compiler's time stays
 * linear; the object is cached under the hash of its source. */
#include "engine/compile.h"
#include "base/clock.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Past this many literals cc -O1 takes tens of seconds (superlinear: 334k literals of
 * Mastermind448 took over 2 minutes), more than a match can spend: the network plays. */
#define COMPILE_MAX_LITS 20000
#define STMTS_PER_FUNCTION 2000

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

static void emit_byte_lit(strbuf_t *c, uint32_t x) {
    sb_printf(c, "%s[%u]", x & 1 ? "!v" : "v", x >> 1);
}

/* The literals of rule r, joined by '&': fluent literals two or more to a word as one word
 * test, the others as bytes. */
static void emit_rule(strbuf_t *c, const gnet_t *net, uint32_t r) {
    uint32_t l0 = net->lit_start[r], l1 = net->lit_start[r + 1];
    if (l0 == l1) {
        sb_puts(c, "1");
        return;
    }
    if (l1 - l0 > 1) sb_putc(c, '(');
    bool first = true;
    for (uint32_t l = l0; l < l1; l++) {
        uint32_t x = net->lits[l], word = (x >> 1) >> 6;
        uint64_t pos = 0, neg = 0;
        uint32_t count = 0, earlier = 0; /* the fluent literals of x's word, those before l */
        for (uint32_t e = l0; e < l1 && is_fluent(net, x); e++) {
            uint32_t y = net->lits[e];
            if (!is_fluent(net, y) || (y >> 1) >> 6 != word) continue;
            count++, earlier += e < l;
            if (y & 1)
                neg |= 1ull << ((y >> 1) & 63);
            else
                pos |= 1ull << ((y >> 1) & 63);
        }
        bool word_test = count >= wt_min() || (pos & neg);
        if (word_test && earlier) continue; /* tested with the word's first literal */
        if (!first) sb_putc(c, '&');
        first = false;
        if (!word_test)
            emit_byte_lit(c, x);
        else if (pos & neg)
            sb_putc(c, '0'); /* f and not f: the rule never holds */
        else
            sb_printf(c, "((w[%u]&0x%llxull)==0x%llxull)", word, (unsigned long long)(pos | neg),
                      (unsigned long long)pos);
    }
    if (l1 - l0 > 1) sb_putc(c, ')');
}

static bool single_positive_fluent(const gnet_t *net, uint32_t r) {
    return net->lit_start[r + 1] - net->lit_start[r] == 1 &&
           is_fluent(net, net->lits[net->lit_start[r]]) && !(net->lits[net->lit_start[r]] & 1);
}

/* The OR of node order[i]'s rules; rules that are one positive fluent each, two or more
 * to a word, as one test ((w[k] & MASK) != 0). */
static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* A rule that is one positive derived node (not an input). */
static bool single_positive_derived(const gnet_t *net, uint32_t r) {
    uint32_t l = net->lit_start[r];
    return net->lit_start[r + 1] - l == 1 && !(net->lits[l] & 1) &&
           net->kind[net->lits[l] >> 1] == GNODE_DERIVED;
}

/* The ORed rules of node order[i] that are one positive derived node each, runs of 3 to 8
 * consecutive node bytes as one load ((load & MASK) != 0); *first as in emit_expr. */
static void emit_byte_runs(strbuf_t *c, const gnet_t *net, uint32_t i, bool *first) {
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1], n = 0;
    uint32_t *ids = xmalloc((r1 - r0 + 1) * sizeof *ids);
    for (uint32_t r = r0; r < r1; r++)
        if (single_positive_derived(net, r)) ids[n++] = net->lits[net->lit_start[r]] >> 1;
    qsort(ids, n, sizeof *ids, cmp_u32);
    for (uint32_t j = 0, e; j < n; j = e) {
        for (e = j + 1; e < n && e - j < 8 && ids[e] == ids[e - 1] + 1;)
            e++;
        if (e - j < 3) e = j + 1;
        if (!*first) sb_putc(c, '|');
        *first = false;
        if (e - j == 1)
            sb_printf(c, "v[%u]", ids[j]);
        else
            sb_printf(c, "((ld8(v+%u)&0x%llxull)!=0)", ids[j],
                      (unsigned long long)(e - j == 8 ? ~0ull : (1ull << (8 * (e - j))) - 1));
    }
    free(ids);
}

static void emit_expr(strbuf_t *c, const gnet_t *net, uint32_t i) {
    uint32_t r0 = net->rule_start[i], r1 = net->rule_start[i + 1];
    if (r0 == r1) sb_puts(c, "0");
    bool first = true;
    emit_byte_runs(c, net, i, &first);
    for (uint32_t r = r0; r < r1; r++) {
        if (single_positive_derived(net, r)) continue;
        if (!single_positive_fluent(net, r)) {
            if (!first) sb_putc(c, '|');
            first = false;
            emit_rule(c, net, r);
            continue;
        }
        uint32_t word = net->lits[net->lit_start[r]] >> 7;
        bool seen = false;
        for (uint32_t e = r0; e < r && !seen; e++)
            seen = single_positive_fluent(net, e) && net->lits[net->lit_start[e]] >> 7 == word;
        if (seen) continue;
        uint64_t mask = 0;
        uint32_t count = 0;
        for (uint32_t e = r; e < r1; e++)
            if (single_positive_fluent(net, e) && net->lits[net->lit_start[e]] >> 7 == word) {
                mask |= 1ull << ((net->lits[net->lit_start[e]] >> 1) & 63);
                count++;
            }
        if (!first) sb_putc(c, '|');
        first = false;
        if (count >= wt_min()) {
            sb_printf(c, "((w[%u]&0x%llxull)!=0)", word, (unsigned long long)mask);
            continue;
        }
        for (uint32_t e = r, k = 0; e < r1; e++) /* the group's fluents as bytes */
            if (single_positive_fluent(net, e) && net->lits[net->lit_start[e]] >> 7 == word) {
                if (k++) sb_putc(c, '|');
                emit_rule(c, net, e);
            }
    }
}

/* A node that is an OR of this many rules over fluents only (like connect four's lines:
 * 69 of four cells) is a loop over tables of masks, four rules at a time in vector
 * registers, instead of one word test after the other. */
#define VEC_MIN_RULES 16
#define VEC_MAX_WORDS 4

static bool emit_vector_node(strbuf_t *c, const gnet_t *net, uint32_t i) {
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
                sb_printf(c, "0x%llxull,", (unsigned long long)(want_pos ? val : mask));
            }
            sb_puts(c, "},");
        }
    sb_printf(c, "};\nVS a_={0,0,0,0};for(unsigned i=0;i<%u;i+=4){VS t_=", padded);
    for (uint32_t u = 0; u < nu; u++)
        sb_printf(c, "%s((w[%u]&*(const VU *)&A_[%u][i])==*(const VU *)&A_[%u][i])", u ? "&" : "",
                  words[u], 2 * u, 2 * u + 1);
    sb_printf(c, ";a_|=t_;}\nv[%u]=(a_[0]|a_[1]|a_[2]|a_[3])!=0;}\n", net->order[i]);
    return true;
}

static void emit_node(strbuf_t *c, const gnet_t *net, uint32_t i) {
    if (emit_vector_node(c, net, i)) return;
    sb_printf(c, "v[%u]=", net->order[i]);
    emit_expr(c, net, i);
    sb_puts(c, ";\n");
}

static void emit_cyclic(strbuf_t *c, const gnet_t *net, const gblock_t *b) {
    for (uint32_t i = b->first; i < b->first + b->n; i++)
        sb_printf(c, "v[%u]=0;\n", net->order[i]);
    sb_puts(c, "for(int ch=1;ch;){ch=0;\n");
    for (uint32_t i = b->first; i < b->first + b->n; i++) {
        sb_printf(c, "{U o_=v[%u];", net->order[i]);
        emit_node(c, net, i);
        sb_printf(c, "ch|=o_!=v[%u];}\n", net->order[i]);
    }
    sb_puts(c, "}\n");
}

/* Per node, the fluents its value depends on (through the nodes it reads): words of
 * n_fluents / 64 + 1, for the state blocks (every node of a cyclic block gets the
 * block's). */
static uint64_t *state_support(const gnet_t *net) {
    uint32_t nw = net->n_fluents / 64 + 1;
    uint64_t *sup = xcalloc((size_t)net->n_nodes * nw + 1, sizeof *sup);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        sup[(size_t)f * nw + f / 64] = 1ull << (f & 63);
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

/* A node this costly (literals) is evaluated in the playout loop only when a fluent it
 * depends on changed since the step before (its byte keeps its value otherwise). */
#define SKIP_MIN_LITS 16

/* "if(CHANGED)" before the node when its value is worth keeping across unchanged steps:
 * d[] holds the fluents that changed (all of them outside the playout loop). */
static void emit_skip_test(strbuf_t *c, const gnet_t *net, const uint64_t *sup, uint32_t i) {
    uint32_t nw = net->n_fluents / 64 + 1;
    if (!sup ||
        net->lit_start[net->rule_start[i + 1]] - net->lit_start[net->rule_start[i]] < SKIP_MIN_LITS)
        return;
    const uint64_t *s = sup + (size_t)net->order[i] * nw;
    bool any = false;
    for (uint32_t k = 0; k < nw; k++)
        if (s[k]) {
            sb_printf(c, "%s(d[%u]&0x%llxull)", any ? "|" : "if(", k, (unsigned long long)s[k]);
            any = true;
        }
    if (any) sb_puts(c, ")");
}

/* Guards: a fluent that every rule of a node needs true (like (control white) for
 * white's legal moves). Nodes that share a guard are evaluated in one group, skipped
 * when the guard is false (their bytes then 0): in a turn-taking game the moves of the
 * role not in control cost nothing. A group is worth its test from this many nodes. */
#define GUARD_MIN_NODES 8

/* The guard of every acyclic block of [from, to) (GNET_NONE: none): the fluent, among
 * those every rule of the node has positive, that most nodes of the range share. */
static uint32_t *block_guards(const gnet_t *net, uint32_t from, uint32_t to) {
    uint32_t nf = net->n_fluents, *freq = xcalloc(nf + 1, sizeof *freq);
    uint32_t *guard = xmalloc((to - from + 1) * sizeof *guard);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t b = from; b < to; b++) {
            const gblock_t *bl = &net->blocks[b];
            uint32_t i = bl->first, r0 = net->rule_start[i], r1 = net->rule_start[i + 1];
            uint32_t best = GNET_NONE;
            for (uint32_t l = net->lit_start[r0];
                 !bl->cyclic && r1 > r0 && l < net->lit_start[r0 + 1]; l++) {
                uint32_t x = net->lits[l];
                if ((x & 1) || (x >> 1) >= nf) continue;
                bool in_all = true;
                for (uint32_t r = r0 + 1; r < r1 && in_all; r++) {
                    in_all = false;
                    for (uint32_t e = net->lit_start[r]; e < net->lit_start[r + 1] && !in_all; e++)
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
    free(freq);
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

/* Segments: in the playout loop a run of state nodes is skipped when none of the fluents
 * they depend on changed since the step before (in connect four, a move changes one
 * column: the nodes of the six others keep their values). A segment grows while the
 * fluents it depends on stay this few. */
#define SEG_MAX_FLUENTS 16

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
    uint32_t *link = xmalloc((n + 1) * sizeof *link), *head = xmalloc((nf + 1) * sizeof *head);
    uint32_t *free_ready = xmalloc((n + 1) * sizeof *free_ready), n_free = 0;
    uint64_t *seg = xcalloc(nw, sizeof *seg);
    for (uint32_t k = 0; k <= nf; k++)
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
                    scan = scan + 1 == nf ? 0 : scan + 1;
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

/* Static functions NAME_0 .. NAME_k for blocks [from, to), the inline NAME_body calling
 * them in order (for the playout loop), and the kernel NAME, which packs the fluent words
 * first and evaluates every node (d: all fluents changed). sup: the state support, for
 * the skip tests (NULL: none). */
static const uint64_t *block_support(const gnet_t *net, const uint64_t *sup, uint32_t b) {
    return sup + (size_t)net->order[net->blocks[b].first] * (net->n_fluents / 64 + 1);
}

/* "if(CHANGED){" for the fluents of s (none: nothing, and false) */
static bool emit_change_test(strbuf_t *c, const uint64_t *s, uint32_t nw) {
    bool any = false;
    for (uint32_t k = 0; k < nw; k++)
        if (s[k]) {
            sb_printf(c, "%s(d[%u]&0x%llxull)", any ? "|" : "if(", k, (unsigned long long)s[k]);
            any = true;
        }
    if (any) sb_puts(c, "){\n");
    return any;
}

/* Zeroes the nodes of n (acyclic) blocks: runs of consecutive nodes as one memset. */
static void emit_zeroes(strbuf_t *c, const gnet_t *net, const uint32_t *blocks, uint32_t n) {
    uint32_t *nodes = xmalloc((n + 1) * sizeof *nodes);
    for (uint32_t j = 0; j < n; j++)
        nodes[j] = net->order[net->blocks[blocks[j]].first];
    qsort(nodes, n, sizeof *nodes, cmp_u32);
    for (uint32_t j = 0, e; j < n; j = e) {
        for (e = j + 1; e < n && nodes[e] == nodes[e - 1] + 1;)
            e++;
        if (e - j == 1)
            sb_printf(c, "v[%u]=0;", nodes[j]);
        else
            sb_printf(c, "__builtin_memset(v+%u,0,%u);", nodes[j], e - j);
    }
    sb_puts(c, "\n");
    free(nodes);
}

static void emit_block(strbuf_t *c, const gnet_t *net, const uint64_t *sup, uint32_t b) {
    const gblock_t *bl = &net->blocks[b];
    if (bl->cyclic) {
        emit_cyclic(c, net, bl);
    } else {
        emit_skip_test(c, net, sup, bl->first);
        emit_node(c, net, bl->first);
    }
}

/* Static functions NAME_0 .. NAME_k for blocks [from, to), the inline NAME_body calling
 * them in order (for the playout loop), and the kernel NAME, which packs the fluent words
 * first and evaluates every node (d: all fluents changed). sup: the state support, for
 * the skip tests and segments (NULL: none). */
static void emit_phase(strbuf_t *c, const gnet_t *net, const char *name, uint32_t from, uint32_t to,
                       const uint64_t *sup) {
    uint32_t parts = 0, stmts = 0, n = to - from, nw = net->n_fluents / 64 + 1;
    const char *params = "U *restrict v,const W64 *restrict w,const W64 *restrict d";
    uint32_t *guard = block_guards(net, from, to), *order = schedule(net, from, to, guard, sup);
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
        uint32_t g = guard[order[k] - from];
        end = k + 1;
        if (stmts == 0) sb_printf(c, "static void %s_%u(%s){\n", name, parts++, params);
        if (g != GNET_NONE) { /* a guard group; off: 0, written when the guard turned off */
            while (end < n && guard[order[end] - from] == g)
                end++;
            sb_printf(c, "if(v[%u]){\n", g);
            for (uint32_t j = k; j < end; j++)
                emit_block(c, net, sup, order[j]);
            sb_printf(c, "}else if(d[%u]&0x%llxull){\n", g / 64, 1ull << (g & 63));
            emit_zeroes(c, net, order + k, end - k);
            sb_puts(c, "}\n");
        } else if (sup) { /* a segment */
            memcpy(seg, block_support(net, sup, order[k]), nw * sizeof *seg);
            while (end < n && guard[order[end] - from] == GNET_NONE &&
                   support_size(seg, block_support(net, sup, order[end]), nw) <= SEG_MAX_FLUENTS) {
                for (uint32_t w = 0; w < nw; w++)
                    seg[w] |= block_support(net, sup, order[end])[w];
                end++;
            }
            bool test = end - k > 1 && support_size(seg, NULL, nw) <= SEG_MAX_FLUENTS &&
                        emit_change_test(c, seg, nw);
            for (uint32_t j = k; j < end; j++)
                emit_block(c, net, sup, order[j]);
            if (test) sb_puts(c, "}\n");
        } else {
            emit_block(c, net, sup, order[k]);
        }
        for (uint32_t j = k; j < end; j++)
            stmts += net->blocks[order[j]].n;
        if (stmts >= STMTS_PER_FUNCTION || end == n) {
            sb_puts(c, "}\n");
            stmts = 0;
        }
    }
    free(guard), free(order), free(seg);
    sb_printf(c, "static inline void %s_body(%s){\n", name, params);
    for (uint32_t p = 0; p < parts; p++)
        sb_printf(c, "%s_%u(v,w,d);\n", name, p);
    sb_printf(c, "}\nvoid %s(U *restrict v){W64 w[NW];pack(v,w);%s_body(v,w,all);}\n", name, name);
}

/* The header of the generated file: the fluent words, packing 8 bytes of 0/1 into 8 bits
 * (the multiplication gathers their low bits in the top byte) and unpacking (a byte per
 * bit, then each byte's bit 7 set by adding 0x7f when the byte is not 0), and the random
 * numbers of base/rng.h, which the playout loop must reproduce draw for draw. */
static void emit_prelude(strbuf_t *c, const gnet_t *net) {
    uint32_t nf = net->n_fluents, nw = nf / 64 + 1;
    sb_puts(c, "/* generated by ggp: a ground game network */\n"
               "#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__\n#error little-endian only\n#endif\n"
               "typedef unsigned char U;\ntypedef unsigned long long W64;\n"
               "typedef W64 VU __attribute__((vector_size(32)));\n"
               "typedef long long VS __attribute__((vector_size(32)));\n");
    sb_printf(c, "#define NW %u\nstatic const W64 all[NW]={", nw);
    for (uint32_t k = 0; k < nw; k++)
        sb_puts(c, "~0ull,");
    sb_puts(c, "};\n");
    sb_puts(c, "static inline W64 ld8(const U *p){W64 x;__builtin_memcpy(&x,p,8);return x;}\n"
               "static inline void st8(U *p,W64 x){__builtin_memcpy(p,&x,8);}\n"
               "#define PK(x) ((((x)*0x0102040810204080ull)>>56))\n"
               "static inline W64 UNPK(W64 b){W64 x=((b&0xff)*0x0101010101010101ull)&"
               "0x8040201008040201ull;\n"
               "return ((x+0x7f7f7f7f7f7f7f7full)>>7)&0x0101010101010101ull;}\n"
               "/* n<=8 bytes at p from the bits of b, the bytes past them kept */\n"
               "static inline void unpk(U *p,W64 b,unsigned n){W64 x=UNPK(b);\n"
               "if(n>=8)st8(p,x);else{W64 m=(1ull<<(8*n))-1;st8(p,(ld8(p)&~m)|(x&m));}}\n"
               "static inline void pack(const U *restrict v,W64 *restrict w){\n");
    for (uint32_t k = 0; k < nw; k++)
        sb_printf(c, "%sw[%u]=0", k ? "," : "", k);
    sb_puts(c, ";\n");
    for (uint32_t i = 0; i < nf; i += 8) {
        uint32_t left = nf - i;
        if (left >= 8)
            sb_printf(c, "w[%u]|=PK(ld8(v+%u))<<%u;\n", i >> 6, i, i & 63);
        else
            sb_printf(c, "w[%u]|=PK(ld8(v+%u)&0x%llxull)<<%u;\n", i >> 6, i,
                      (unsigned long long)((1ull << (8 * left)) - 1), i & 63);
    }
    sb_puts(c, "}\n/* the fluent bytes from F words (the inputs, or the next nodes) */\n"
               "static inline void unpack(U *restrict v,const W64 *restrict w){\n");
    for (uint32_t i = 0; i < nf; i += 8)
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
               "return 64*k+(unsigned)__builtin_ctzll(x);}j-=c;}}\n");
}

/* Inputs are nodes 0..F-1, their next nodes F..2F-1 (ground.h): a copy. */
static void emit_advance(strbuf_t *c, const gnet_t *net) {
    sb_printf(c, "void ggp_advance(U *restrict v){__builtin_memcpy(v,v+%u,%u);}\n", net->n_fluents,
              net->n_fluents);
}

/* A whole random playout in the generated code, the loop of g_playout (engine/gengine.c)
 * draw for draw. The state comes in as fluent words (the move inputs all off) and goes
 * out as the final state's words; each step unpacks the words into the fluent bytes,
 * packs the legal bytes of each role into words to pick a move (a popcount and a
 * select) and packs the next bytes into the successor's words (no byte copy: reading
 * whole words of bytes just written one by one stalls the store buffer). A move whose
 * input no rule reads is set in a scratch byte past the nodes. Returns the joint moves
 * played; the final state's play blocks are evaluated. */
static void emit_playout(strbuf_t *c, const gnet_t *net) {
    uint32_t nr = net->n_roles, scratch = net->n_nodes, nl = 1;
    for (uint32_t r = 0; r < nr; r++) {
        nl += (net->n_moves[r] + 63) / 64;
        sb_printf(c, "static const unsigned mv%u[%u]={", r, net->n_moves[r] + 1);
        for (uint32_t k = 0; k < net->n_moves[r]; k++) {
            uint32_t m = net->move_node[r][k];
            sb_printf(c, "%u,", m == GNET_NONE ? scratch : m);
        }
        sb_printf(c, "%u};\n", scratch);
    }
    sb_printf(c,
              "unsigned ggp_playout(U *restrict v,W64 *restrict bits,W64 *restrict rng,"
              "unsigned max_steps){\n"
              "W64 w[NW],d[NW],lw[%u];unsigned steps=0,n,j;\n",
              nl);
    for (uint32_t r = 0; r < nr; r++)
        sb_printf(c, "unsigned m%u;\n", r);
    sb_puts(c, "for(unsigned k=0;k<NW;k++)w[k]=bits[k],d[k]=~0ull;\n"
               "for(;;){\nunpack(v,w);ggp_play_body(v,w,d);\n");
    if (net->terminal != GNET_NONE) sb_printf(c, "if(v[%u])break;\n", net->terminal);
    sb_puts(c, "if(steps>=max_steps)break;\n");
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t nm = net->n_moves[r], lf = net->legal_first[r], nwr = (nm + 63) / 64;
        for (uint32_t k = 0; k < nwr; k++)
            sb_printf(c, "lw[%u]=0;", k);
        for (uint32_t i = 0; i < nm; i += 8) {
            uint32_t left = nm - i;
            sb_printf(c, "lw[%u]|=PK(ld8(v+%u)", i >> 6, lf + i);
            if (left < 8)
                sb_printf(c, "&0x%llxull", (unsigned long long)((1ull << (8 * left)) - 1));
            sb_printf(c, ")<<%u;", i & 63);
        }
        sb_puts(c, "\nn=0");
        for (uint32_t k = 0; k < nwr; k++)
            sb_printf(c, "+(unsigned)__builtin_popcountll(lw[%u])", k);
        sb_printf(c, ";if(!n)break;j=(unsigned)(((rnd(rng)>>32)*n)>>32);m%u=mv%u[sel(lw,%u,j)];\n",
                  r, r, nwr);
    }
    for (uint32_t r = 0; r < nr; r++)
        sb_printf(c, "v[m%u]=1;", r);
    sb_puts(c, "\nggp_move_body(v,w,d);\nfor(unsigned k=0;k<NW;k++)d[k]=w[k];\n");
    for (uint32_t r = 0; r < nr; r++)
        sb_printf(c, "v[m%u]=0;", r);
    sb_printf(c, "\npack(v+%u,w);steps++;\nfor(unsigned k=0;k<NW;k++)d[k]^=w[k];\n}\n",
              net->n_fluents);
    sb_puts(c, "for(unsigned k=0;k<NW;k++)bits[k]=w[k];\nreturn steps;\n}\n");
}

static void emit_program(strbuf_t *c, const gnet_t *net) {
    emit_prelude(c, net);
    uint64_t *sup = state_support(net);
    emit_phase(c, net, "ggp_play", 0, net->n_play_blocks, sup);
    emit_phase(c, net, "ggp_goals", net->n_play_blocks, net->n_state_blocks, NULL);
    emit_phase(c, net, "ggp_move", net->n_state_blocks, net->n_blocks, NULL);
    free(sup);
    emit_advance(c, net);
    emit_playout(c, net);
}

uint64_t compile_hash(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

bool compile_make_dirs(const char *path) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0700) != 0 && errno != EEXIST) return false;
            *p = '/';
        }
    return mkdir(buf, 0700) == 0 || errno == EEXIST;
}

void compile_cache_dir(char *out, size_t n) {
    const char *env = getenv("GGP_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (xdg && *xdg)
        snprintf(out, n, "%s/ggp", xdg);
    else if (home && *home)
        snprintf(out, n, "%s/.cache/ggp", home);
    else
        snprintf(out, n, "/tmp/ggp-cache-%u", (unsigned)getuid());
}

/* Compiles src into so (through temporary files renamed into place, so that processes
 * compiling the same game at once do not see half-written files). */
static const char *compiler(void) {
    const char *cc = getenv("GGP_CC");
    return cc && *cc ? cc : "cc";
}

/* GGP_CFLAGS, else -O1 (-O2 compiles slower and runs no faster) with the popcount and
 * bit-deposit instructions (the playout loop's pick) and 256-bit vectors (the mask
 * tables) where this CPU has them. The flags
 * are part of the generated text, so of the cache key. */
static void compile_flags(char *out, size_t n) {
    const char *flags = getenv("GGP_CFLAGS");
    if (flags && *flags) {
        snprintf(out, n, "%s", flags);
        return;
    }
    snprintf(out, n, "-O1");
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt")) snprintf(out + strlen(out), n - strlen(out), " -mpopcnt");
    if (__builtin_cpu_supports("bmi2")) snprintf(out + strlen(out), n - strlen(out), " -mbmi2");
    if (__builtin_cpu_supports("avx2")) snprintf(out + strlen(out), n - strlen(out), " -mavx2");
#endif
}

static bool build(const char *src, size_t len, const char *so, const char *flags, char *why,
                  size_t n) {
    char csrc[1200], tmp_so[1200], cmd[4096];
    snprintf(csrc, sizeof csrc, "%s.%d.c", so, (int)getpid());
    snprintf(tmp_so, sizeof tmp_so, "%s.%d.tmp", so, (int)getpid());
    FILE *f = fopen(csrc, "w");
    if (!f || fwrite(src, 1, len, f) != len) {
        if (f) fclose(f);
        snprintf(why, n, "cannot write %s", csrc);
        return false;
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s %s -fPIC -shared -w -o '%s' '%s' >/dev/null 2>&1", compiler(),
             flags, tmp_so, csrc);
    int rc = system(cmd);
    unlink(csrc);
    if (rc != 0 || rename(tmp_so, so) != 0) {
        unlink(tmp_so);
        snprintf(why, n, "the C compiler failed (exit %d)", rc);
        return false;
    }
    return true;
}

engine_t *compile_engine(game_t *g, gnet_t *net, char *why, size_t n) {
    if (net->n_lits > COMPILE_MAX_LITS) {
        snprintf(why, n, "%u literals, more than %u", net->n_lits, COMPILE_MAX_LITS);
        return NULL;
    }
    double t0 = now_seconds();
    strbuf_t c;
    sb_init(&c);
    char flags[256];
    compile_flags(flags, sizeof flags);
    sb_printf(&c, "/* %s %s */\n", compiler(), flags);
    emit_program(&c, net);
    char dir[1024], so[1100];
    compile_cache_dir(dir, sizeof dir);
    snprintf(so, sizeof so, "%s/net-%016llx-%zu.so", dir,
             (unsigned long long)compile_hash(c.data, c.len), c.len);
    bool ok = true;
    if (access(so, R_OK) != 0) {
        if (!compile_make_dirs(dir)) {
            snprintf(why, n, "cannot make the cache directory %s", dir);
            ok = false;
        } else {
            ok = build(c.data, c.len, so, flags, why, n);
        }
    }
    sb_fini(&c);
    if (!ok) return NULL;
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    gnet_kernels_t k = {0};
    if (h) {
        k.play = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_play");
        k.goals = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_goals");
        k.move = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_move");
        k.advance = (gnet_kernel_t)(uintptr_t)dlsym(h, "ggp_advance");
        k.playout = (gnet_playout_t)(uintptr_t)dlsym(h, "ggp_playout");
    }
    const char *loop = getenv("GGP_COMPILED_LOOP");
    bool no_loop = loop && strcmp(loop, "0") == 0;
    if (!k.play || !k.goals || !k.move || !k.advance || !k.playout) {
        snprintf(why, n, "cannot load %s", so);
        if (h) dlclose(h);
        return NULL;
    }
    if (no_loop) k.playout = NULL; /* the loop of engine/gengine.c over the kernels */
    engine_t *e = gengine_new(g, net, &k, h);
    e->compile_seconds = now_seconds() - t0;
    return e;
}
