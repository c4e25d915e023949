/* The table of player kinds and the calls through it: see player.h. */
#include "player/player.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Every kind `ggp serve --player` and `ggp match --players` know. Add new kinds here: a kind
 * lives in player/player_NAME.c (it may call into mcts/, which player links when present). */
/* auto: never made itself; player_new makes the kind player_kind_resolve picks. */
const player_kind_t player_auto_kind = {
    .name = "auto",
    .summary = "the strongest kind for the game at hand, chosen at START: deduce for a GDL-II "
               "game (hidden information), mcts with its defaults otherwise",
};

static const player_kind_t *const kinds[] = {
    &player_auto_kind, &player_random_kind, &player_legal_kind, &player_deduce_kind,
    &player_mcts_kind, &player_lbs_kind,    &player_ab_kind,    &player_pimc_kind,
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* Kinds made from "NAME:OPTS", kept for the life of the process (kinds are referred to by
 * pointer from players and configurations). */
typedef struct made_kind {
    player_kind_t kind;
    struct made_kind *next;
} made_kind_t;
static made_kind_t *made_kinds;
static pthread_mutex_t made_mu = PTHREAD_MUTEX_INITIALIZER;

/* The built-in kind named by the first len characters of name; NULL: none. */
static const player_kind_t *base_kind(const char *name, size_t len) {
    for (size_t i = 0; i < N_KINDS; i++)
        if (strlen(kinds[i]->name) == len && !strncmp(kinds[i]->name, name, len)) return kinds[i];
    return NULL;
}

const player_kind_t *player_kind_find(const char *name) {
    const char *colon = strchr(name, ':');
    const player_kind_t *base = base_kind(name, colon ? (size_t)(colon - name) : strlen(name));
    if (!base || !colon) return base;
    if (!base->check_options) return NULL;
    strbuf_t err;
    sb_init(&err);
    bool ok = base->check_options(colon + 1, &err);
    sb_fini(&err);
    if (!ok) return NULL;
    pthread_mutex_lock(&made_mu);
    made_kind_t *mk = made_kinds;
    while (mk && strcmp(mk->kind.name, name) != 0)
        mk = mk->next;
    if (!mk) {
        mk = xcalloc(1, sizeof *mk);
        mk->kind = *base;
        mk->kind.name = xstrdup(name);
        mk->kind.options = xstrdup(colon + 1);
        mk->next = made_kinds;
        made_kinds = mk;
    }
    pthread_mutex_unlock(&made_mu);
    return &mk->kind;
}

/* The base kind NAME of "NAME:OPTS" whose options are bad: their error (the kind's
 * check_options), so that a caller can say why player_kind_find gave NULL. */
bool player_kind_error(const char *name, strbuf_t *err) {
    const char *colon = strchr(name, ':');
    const player_kind_t *k = colon ? base_kind(name, (size_t)(colon - name)) : NULL;
    return k && k->check_options && !k->check_options(colon + 1, err);
}

void player_kind_names(strbuf_t *out) {
    for (size_t i = 0; i < N_KINDS; i++)
        sb_printf(out, "%s%s", i ? "|" : "", kinds[i]->name);
}

void player_kind_help(strbuf_t *out) {
    for (size_t i = 0; i < N_KINDS; i++)
        sb_printf(out, "      %-10s %s\n", kinds[i]->name, kinds[i]->summary);
}

const player_kind_t *player_kind_resolve(const player_kind_t *kind, const game_t *g) {
    if (kind != &player_auto_kind) return kind;
    return g->gdl2 ? &player_deduce_kind : &player_mcts_kind;
}

player_t *player_new(const player_kind_t *kind, const player_setup_t *setup) {
    kind = player_kind_resolve(kind, setup->game);
    player_setup_t with = *setup;
    with.options = kind->options;
    player_t *p = kind->create(&with);
    p->kind = kind;
    return p;
}

void player_start(player_t *p, const state_t *initial, double deadline) {
    if (p->kind->start) p->kind->start(p, initial, deadline);
}

term_t player_play(player_t *p, const player_turn_t *turn, double deadline, move_sink_t *sink) {
    return p->kind->play(p, turn, deadline, sink);
}

uint32_t player_legal(player_t *p, const player_turn_t *turn, double deadline, term_t **moves) {
    *moves = NULL;
    return p->own_belief && p->kind->legal ? p->kind->legal(p, turn, deadline, moves) : 0;
}

term_t player_fallback(player_t *p, const player_turn_t *turn, double deadline) {
    return p->own_belief && p->kind->fallback ? p->kind->fallback(p, turn, deadline) : TERM_NONE;
}

void player_stop(player_t *p) {
    if (p->kind->stop) p->kind->stop(p);
}

bool player_search(const player_t *p, player_search_t *sum) {
    if (!p->kind->search) return false;
    p->kind->search(p, sum);
    return true;
}

void player_search_add(player_search_t *sum, const player_search_t *more) {
    sum->matches += more->matches;
    sum->iterations += more->iterations;
    sum->rollouts += more->rollouts;
    sum->rollout_steps += more->rollout_steps;
    sum->hook_calls += more->hook_calls;
    sum->hook_hits += more->hook_hits;
    sum->hook_seconds += more->hook_seconds;
    sum->lbs_kind |= more->lbs_kind;
    sum->lbs_matches += more->lbs_matches;
    sum->bdd_builds += more->bdd_builds;
    sum->bdd_seconds += more->bdd_seconds;
    sum->bdd_cpu += more->bdd_cpu;
    sum->search_cpu += more->search_cpu;
    sum->shadow_turns += more->shadow_turns;
    sum->shadow_differ += more->shadow_differ;
    sum->bdd_solved += more->bdd_solved;
    sum->bdd_lost += more->bdd_lost;
    sum->bdd_lost_start += more->bdd_lost_start;
    sum->bdd_lost_tree += more->bdd_lost_tree;
    sum->bdd_longer += more->bdd_longer;
    sum->bdd_reused += more->bdd_reused;
    sum->bdd_set_turns += more->bdd_set_turns;
    sum->bdd_proven += more->bdd_proven;
    sum->bdd_proven_turn += more->bdd_proven_turn;
    sum->ab_searches += more->ab_searches;
    sum->ab_nodes += more->ab_nodes;
    sum->ab_leaves += more->ab_leaves;
    sum->ab_tt_hits += more->ab_tt_hits;
    sum->ab_depth_sum += more->ab_depth_sum;
    if (more->ab_depth_max > sum->ab_depth_max) sum->ab_depth_max = more->ab_depth_max;
    sum->ab_proven += more->ab_proven;
    sum->ab_proofs += more->ab_proofs;
    sum->ab_wins += more->ab_wins;
    sum->ab_won_matches += more->ab_won_matches;
    sum->ab_first_win_sum += more->ab_first_win_sum;
    sum->bdd_dropped += more->bdd_dropped;
    lbs_stats_t *a = &sum->lbs;
    const lbs_stats_t *ls = &more->lbs;
    lbs_stats_add(a, ls); /* the events; the sizes of each match's search: */
    a->n_alpha += ls->n_alpha;
    a->n_beta += ls->n_beta;
    a->hook_alpha += ls->hook_alpha;
    a->hook_beta += ls->hook_beta;
    a->too_slow += ls->too_slow;
    a->stopped += ls->stopped;
    a->guard_unsound += ls->guard_unsound;
    a->guard_unverified += ls->guard_unverified;
    a->guard_hits += ls->guard_hits;
    a->regress_seconds += ls->regress_seconds;
}

void player_search_add_ab(player_search_t *c, const ab_result_t *r) {
    c->ab_searches++;
    c->ab_nodes += r->nodes, c->ab_leaves += r->leaves, c->ab_tt_hits += r->tt_hits;
    c->ab_depth_sum += r->depth;
    if (r->depth > c->ab_depth_max) c->ab_depth_max = r->depth;
    c->ab_proven += r->proven;
    c->ab_proofs += r->proofs;
    bool won = r->value == 100; /* (a terminal or proven win, or an evaluation of 100) */
    if (won && !c->ab_wins) c->ab_won_matches++, c->ab_first_win_sum += c->ab_searches - 1;
    c->ab_wins += won;
}

void player_free(player_t *p) {
    if (p) p->kind->destroy(p);
}
