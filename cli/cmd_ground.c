/* ggp ground: the grounded network of a game (sizes, times), and the differential check
 * of a ground engine against the interpreter on random matches. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "cli/commands.h"
#include "engine/ground.h"

static const char *const ground_help =
    "usage: ggp ground GAME [--stats] [--check N] [--seed S] [--engine ground|compiled]\n\n"
    "Grounds GAME and prints the network's sizes and the time it took:\n"
    "  nodes=N fluents=F moves=M derived=D rules=R literals=L blocks=B cyclic=C seconds=T\n"
    "  work=W\n"
    "  (D: the nodes evaluated from rules; W: the grounder's join steps, the count\n"
    "  GGP_GROUND_WORK limits)\n"
    "  --stats     also report on stderr each phase's time, the sizes, the largest relations,\n"
    "              the rules with most ground instances, the relations whose rules hold\n"
    "              the most literals after optimisation and a digest of the network (the\n"
    "              same for the same network, however its nodes are numbered)\n"
    "  --check N   then play N random matches (seed S, default 1) with the engine (default\n"
    "              compiled) and the interpreter side by side, comparing at every step the\n"
    "              state, terminal, legal moves, goals, next state and percepts, and after\n"
    "              each match a playout of the engine's own (the interpreter must agree on\n"
    "              its final state's goals); prints the first difference and exits 1, or\n"
    "              'check: N matches, K steps agree'.\n"
    "Exits 1 when the game does not ground (saying why).\n";

static void print_sizes(const gnet_t *net) {
    uint32_t moves = 0, cyclic = 0;
    for (uint32_t r = 0; r < net->n_roles; r++)
        moves += net->n_moves[r];
    for (uint32_t b = 0; b < net->n_blocks; b++)
        cyclic += net->blocks[b].cyclic;
    printf("nodes=%u fluents=%u moves=%u derived=%u rules=%u literals=%u blocks=%u cyclic=%u "
           "seconds=%.3f work=%" PRIu64 "\n",
           net->n_nodes, net->n_fluents, moves, net->n_order, net->n_rules, net->n_lits,
           net->n_blocks, cyclic, net->seconds, net->work);
}

/* A digest of the network that does not depend on how its nodes are numbered, nor on which
 * of two equal nodes the optimiser kept: inputs, constants and the interface's nodes hashed
 * by their kind and atom as printed, the other derived nodes (auxiliary relations and
 * intermediate ones) by their rules, each rule by its head and the set of its literals, all
 * summed. Two groundings of a game that find the atoms in another order (a change of join
 * strategy) must give the same digest. (Nodes of cyclic blocks are hashed by their atom.) */
static uint64_t node_name_hash(const gnet_t *net, term_store_t *ts, uint32_t n, strbuf_t *b) {
    sb_clear(b);
    if (net->atom[n] != TERM_NONE) term_print(ts, net->atom[n], b);
    const char *s = sb_str(b);
    size_t len = strlen(s);
    uint64_t lo = hash_bytes(s, len), hi = hash_bytes(s, len / 2);
    return hash_fmix64((hi << 32 | lo) ^ ((uint64_t)net->kind[n] << 56));
}

static bool is_interface(const gnet_t *net, term_store_t *ts, uint32_t n) {
    if (net->kind[n] != GNODE_DERIVED || net->atom[n] == TERM_NONE) return true;
    sym_t s = term_sym(ts, net->atom[n]);
    return s == SYM_LEGAL || s == SYM_GOAL || s == SYM_TERMINAL || s == SYM_SEES || s == SYM_NEXT;
}

/* The sum of node i's (of the order) rules, each from the hashes of its literals. */
static uint64_t rules_hash(const gnet_t *net, const uint64_t *h, uint32_t i) {
    uint64_t sum = 0;
    for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
        uint64_t body = 0;
        for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++)
            body += hash_fmix64(h[net->lits[l] >> 1] ^ (net->lits[l] & 1));
        sum += hash_fmix64(body);
    }
    return sum;
}

static uint64_t network_digest(const gnet_t *net, term_store_t *ts) {
    uint64_t *h = xmalloc(((size_t)net->n_nodes + 1) * sizeof *h), digest = 0;
    strbuf_t b;
    sb_init(&b);
    for (uint32_t n = 0; n < net->n_nodes; n++)
        h[n] = node_name_hash(net, ts, n, &b);
    sb_fini(&b);
    for (uint32_t k = 0; k < net->n_blocks; k++) { /* dependencies first */
        const gblock_t *bl = &net->blocks[k];
        uint32_t n = net->order[bl->first];
        if (!bl->cyclic && !is_interface(net, ts, n))
            h[n] = hash_fmix64(rules_hash(net, h, bl->first) + 0x9e3779b97f4a7c15ull);
    }
    for (uint32_t n = 0; n < net->n_nodes; n++)
        digest += h[n];
    for (uint32_t i = 0; i < net->n_order; i++)
        digest += hash_fmix64(h[net->order[i]] * 0x9e3779b97f4a7c15ull ^ rules_hash(net, h, i));
    for (uint32_t k = 0; k < net->n_init; k++)
        digest += hash_fmix64(h[net->fluent_node[net->init[k]]] + 1);
    free(h);
    return digest;
}

int cmd_ground(int argc, char **argv) {
    const char *path = NULL;
    unsigned long long check = 0, seed = 1;
    engine_kind_t kind = ENGINE_COMPILED;
    bool stats = false;
    const opt_spec_t specs[] = {{.name = "--stats", .flag = &stats},
                                {.name = "--check", .uint = &check},
                                {.name = "--seed", .uint = &seed},
                                {.name = "--engine", .engine = &kind},
                                {0}};
    int rc = opt_parse(argc, argv, "ground", ground_help, NULL, specs, &path, 1);
    if (rc >= 0) return rc;
    if (!path) {
        fputs(ground_help, stderr);
        return 2;
    }
    game_t *g = cli_load_game(path);
    if (!g) return 1;
    char why[256];
    ground_opts_t opts = ground_default_opts();
    if (stats) opts.stats = stderr;
    gnet_t *net = gnet_new(g, &opts, why, sizeof why);
    if (!net) {
        printf("%s does not ground: %s\n", path, why);
        game_free(g);
        return 1;
    }
    print_sizes(net);
    if (stats) fprintf(stderr, "ground: digest %016" PRIx64 "\n", network_digest(net, g->ts));
    gnet_free(net);
    rc = check ? engine_differential(g, kind, check, seed) : 0;
    game_free(g);
    return rc;
}
