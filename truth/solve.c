/* The exact solver: see solve.h. */
#include "truth/solve.h"
#include "base/htab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (1u << 20)

typedef struct {
    uint32_t facts; /* offset into the fact chunks (chunk * CHUNK + index) */
    uint32_t moves; /* offset of the legal moves of role 0, then role 1, ... */
    uint32_t succ;  /* offset of the successors, joint moves in mixed radix */
    uint8_t terminal;
} node_t;

struct solve {
    game_t *g;
    uint32_t n_roles;
    engine_t *e;      /* while exploring */
    eng_state_t **es; /* while exploring: the engine's states, for interning */
    state_t *states;  /* views into the chunks */
    node_t *nodes;
    uint32_t n, cap;
    term_t **chunks;
    uint32_t n_chunks, chunk_used;
    term_t *moves;
    size_t n_moves, cap_moves;
    uint32_t *nmv; /* per state and role: number of legal moves */
    uint32_t *succ;
    size_t n_succ, cap_succ;
    int8_t *goal; /* per state and role (terminal states) */
    htab_t table; /* state ids by engine state, while exploring */
    bool cyclic;
    uint8_t *win_in; /* per state and role */
    uint64_t *wmask; /* per state and role */
    int16_t *value;  /* per state and role */
};

static term_t *chunk_alloc(solve_t *s, uint32_t n) {
    if (!s->n_chunks || s->chunk_used + n > CHUNK) {
        s->chunks = xrealloc(s->chunks, (s->n_chunks + 1) * sizeof *s->chunks);
        s->chunks[s->n_chunks++] = xmalloc(CHUNK * sizeof **s->chunks);
        s->chunk_used = 0;
        if (n > CHUNK) die("state too large");
    }
    term_t *p = s->chunks[s->n_chunks - 1] + s->chunk_used;
    s->chunk_used += n;
    return p;
}

typedef struct {
    const solve_t *s;
    const eng_state_t *st;
} state_key_t;

static bool same_state(const void *ctx, uint32_t id) {
    const state_key_t *k = ctx;
    return engine_state_equal(k->s->es[id], k->st);
}

static uint32_t state_hash_of(const void *ctx, uint32_t id) {
    return (uint32_t)engine_state_hash(((const solve_t *)ctx)->es[id]);
}

/* The id of the engine state st, adding it when new (its terms through tmp). */
static uint32_t intern(solve_t *s, const eng_state_t *st, state_t *tmp) {
    state_key_t key = {s, st};
    htab_reserve(&s->table, state_hash_of, s);
    uint32_t *slot = htab_probe(&s->table, (uint32_t)engine_state_hash(st), same_state, &key);
    if (*slot) return *slot - 1;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->states = xrealloc(s->states, s->cap * sizeof *s->states);
        s->nodes = xrealloc(s->nodes, s->cap * sizeof *s->nodes);
        s->es = xrealloc(s->es, s->cap * sizeof *s->es);
        /* per state and role; grown here only (ASan's realloc copies even to the same size) */
        s->nmv = xrealloc(s->nmv, (size_t)s->cap * s->n_roles * sizeof *s->nmv);
        s->goal = xrealloc(s->goal, (size_t)s->cap * s->n_roles * sizeof *s->goal);
    }
    uint32_t id = s->n++;
    s->es[id] = engine_state_new(s->e);
    engine_state_copy(s->es[id], st);
    engine_state_terms(s->e, st, tmp);
    state_t *v = &s->states[id];
    v->facts = chunk_alloc(s, tmp->n ? tmp->n : 1);
    memcpy(v->facts, tmp->facts, tmp->n * sizeof *tmp->facts);
    v->n = v->cap = tmp->n;
    memset(&s->nodes[id], 0, sizeof s->nodes[id]);
    htab_fill(&s->table, slot, id);
    return id;
}

/* The engine's states are needed while exploring only. */
static void drop_engine_states(solve_t *s) {
    if (s->es)
        for (uint32_t i = 0; i < s->n; i++)
            engine_state_free(s->es[i]);
    FREE_AND_NULL(free, s->es);
    s->e = NULL;
}

void solve_free(solve_t *s) {
    if (!s) return;
    drop_engine_states(s);
    for (uint32_t i = 0; i < s->n_chunks; i++)
        free(s->chunks[i]);
    free(s->chunks);
    free(s->states);
    free(s->nodes);
    free(s->moves);
    free(s->nmv);
    free(s->succ);
    free(s->goal);
    htab_fini(&s->table);
    free(s->win_in);
    free(s->wmask);
    free(s->value);
    free(s);
}

static uint32_t *nmv_of(solve_t *s, uint32_t id) {
    return s->nmv + (size_t)id * s->n_roles;
}

/* Expands state id: legal moves (in the canonical order, so that every engine numbers the
 * states alike), successors (interning new states). */
static bool expand_state(solve_t *s, uint32_t id, uint32_t max_states, eng_state_t *next,
                         state_t *tmp) {
    uint32_t nr = s->n_roles;
    engine_t *e = s->e;
    const eng_state_t *cur = s->es[id];
    node_t *nd = &s->nodes[id];
    nd->terminal = engine_terminal(e, cur);
    uint32_t *nm = nmv_of(s, id);
    for (uint32_t k = 0; k < nr; k++)
        s->goal[(size_t)id * nr + k] = -1;
    nd->moves = (uint32_t)s->n_moves;
    nd->succ = (uint32_t)s->n_succ;
    if (nd->terminal) {
        for (uint32_t k = 0; k < nr; k++) {
            nm[k] = 0;
            s->goal[(size_t)id * nr + k] = (int8_t)engine_goal_value(e, cur, k);
        }
        return true;
    }
    uint64_t product = 1;
    for (uint32_t k = 0; k < nr; k++) {
        const term_t *m;
        uint32_t n = engine_legal(e, cur, k, &m);
        nm[k] = n;
        GROW(s->moves, s->cap_moves, s->n_moves + n);
        memcpy(s->moves + s->n_moves, m, n * sizeof *m);
        term_sort(s->g->ts, s->moves + s->n_moves, n);
        s->n_moves += n;
        product *= n;
    }
    term_t joint[nr + 1];
    uint32_t idx[nr + 1], n_of[nr + 1]; /* nm moves when a new state grows the tables */
    memset(idx, 0, sizeof idx);
    memcpy(n_of, nm, nr * sizeof *nm);
    GROW(s->succ, s->cap_succ, s->n_succ + product);
    for (uint64_t j = 0; j < product; j++) {
        uint64_t rest = j;
        uint32_t off = s->nodes[id].moves;
        /* mixed radix, the last role varying fastest */
        for (uint32_t k = nr; k-- > 0;) {
            idx[k] = (uint32_t)(rest % n_of[k]);
            rest /= n_of[k];
        }
        for (uint32_t k = 0; k < nr; k++) {
            joint[k] = s->moves[off + idx[k]];
            off += n_of[k];
        }
        engine_next(e, s->es[id], joint, next); /* s->es may move when a state is added */
        uint32_t sid = intern(s, next, tmp);
        if (s->n > max_states) return false;
        s->succ[s->n_succ++] = sid;
    }
    return true;
}

solve_t *solve_new_from(engine_t *e, const state_t *root, uint32_t max_states, char *err,
                        size_t errlen) {
    solve_t *s = xcalloc(1, sizeof *s);
    s->g = engine_game(e);
    s->n_roles = s->g->n_roles;
    s->e = e;
    eng_state_t *next = engine_state_new(e);
    state_t tmp;
    state_init(&tmp);
    engine_state_set(e, next, root);
    bool ok = true;
    intern(s, next, &tmp);
    for (uint32_t id = 0; id < s->n && ok; id++)
        ok = expand_state(s, id, max_states, next, &tmp);
    state_fini(&tmp);
    engine_state_free(next);
    drop_engine_states(s);
    if (!ok) {
        snprintf(err, errlen, "more than %u reachable states", max_states);
        solve_free(s);
        return NULL;
    }
    return s;
}

solve_t *solve_new(engine_t *e, uint32_t max_states, char *err, size_t errlen) {
    eng_state_t *init = engine_state_new(e);
    state_t terms;
    state_init(&terms);
    engine_initial(e, init);
    engine_state_terms(e, init, &terms);
    solve_t *s = solve_new_from(e, &terms, max_states, err, errlen);
    state_fini(&terms);
    engine_state_free(init);
    return s;
}

uint32_t solve_count(const solve_t *s) {
    return s->n;
}
const state_t *solve_state(const solve_t *s, uint32_t id) {
    return &s->states[id];
}
bool solve_terminal(const solve_t *s, uint32_t id) {
    return s->nodes[id].terminal;
}
int solve_goal(const solve_t *s, uint32_t id, uint32_t role) {
    return s->goal[(size_t)id * s->n_roles + role];
}
bool solve_cyclic(const solve_t *s) {
    return s->cyclic;
}

uint32_t solve_legal(const solve_t *s, uint32_t id, uint32_t role, const term_t **moves) {
    const uint32_t *nm = s->nmv + (size_t)id * s->n_roles;
    uint32_t off = s->nodes[id].moves;
    for (uint32_t k = 0; k < role; k++)
        off += nm[k];
    *moves = s->moves + off;
    return nm[role];
}

/* The successors of a state, one per joint move in mixed radix (the last role varying
 * fastest); 0 for a terminal state. Lets callers walk the graph without the engine. */
uint32_t solve_successors(const solve_t *s, uint32_t id, const uint32_t **succ) {
    *succ = s->succ + s->nodes[id].succ;
    if (s->nodes[id].terminal) return 0;
    uint32_t p = 1;
    for (uint32_t k = 0; k < s->n_roles; k++)
        p *= s->nmv[(size_t)id * s->n_roles + k];
    return p;
}

/* ---------------- values ---------------- */

static uint32_t joint_count(const solve_t *s, uint32_t id) {
    if (s->nodes[id].terminal) return 0;
    uint32_t p = 1;
    for (uint32_t k = 0; k < s->n_roles; k++)
        p *= s->nmv[(size_t)id * s->n_roles + k];
    return p;
}

/* The role's move index within joint move j. */
static uint32_t move_of(const solve_t *s, uint32_t id, uint32_t j, uint32_t role) {
    const uint32_t *nm = s->nmv + (size_t)id * s->n_roles;
    for (uint32_t k = s->n_roles; k-- > role + 1;)
        j /= nm[k];
    return j % nm[role];
}

/* Reverse topological order by iterative DFS; false when the graph has a cycle. */
static bool topo_order(const solve_t *s, uint32_t *order) {
    uint8_t *color = xcalloc(s->n + 1, 1);
    uint32_t *stack = xmalloc((s->n + 1) * sizeof *stack), *next = xcalloc(s->n + 1, sizeof *next);
    uint32_t sp = 0, k = 0;
    bool acyclic = true;
    stack[sp++] = 0;
    color[0] = 1;
    while (sp && acyclic) {
        uint32_t v = stack[sp - 1];
        uint32_t nj = joint_count(s, v);
        if (next[v] < nj) {
            uint32_t w = s->succ[s->nodes[v].succ + next[v]++];
            if (color[w] == 1)
                acyclic = false;
            else if (color[w] == 0) {
                color[w] = 1;
                stack[sp++] = w;
            }
        } else {
            color[v] = 2;
            order[k++] = v;
            sp--;
        }
    }
    free(color);
    free(stack);
    free(next);
    return acyclic;
}

static void compute_values(solve_t *s) {
    uint32_t nr = s->n_roles;
    s->value = xmalloc((size_t)s->n * nr * sizeof *s->value);
    for (size_t i = 0; i < (size_t)s->n * nr; i++)
        s->value[i] = SOLVE_NO_VALUE;
    uint32_t *order = xmalloc((s->n + 1) * sizeof *order);
    s->cyclic = !topo_order(s, order);
    if (s->cyclic) {
        free(order);
        return;
    }
    for (uint32_t oi = 0; oi < s->n; oi++) {
        uint32_t v = order[oi];
        for (uint32_t role = 0; role < nr; role++) {
            if (s->nodes[v].terminal) {
                s->value[(size_t)v * nr + role] = s->goal[(size_t)v * nr + role];
                continue;
            }
            uint32_t nj = joint_count(s, v), na = s->nmv[(size_t)v * nr + role];
            int best = -2;
            for (uint32_t a = 0; a < na; a++) {
                int worst = 1000;
                for (uint32_t j = 0; j < nj; j++) {
                    if (move_of(s, v, j, role) != a) continue;
                    int w = s->value[(size_t)s->succ[s->nodes[v].succ + j] * nr + role];
                    if (w < worst) worst = w;
                }
                if (worst > best) best = worst;
            }
            s->value[(size_t)v * nr + role] = (int16_t)best;
        }
    }
    free(order);
}

static void compute_win_in(solve_t *s) {
    uint32_t nr = s->n_roles;
    s->win_in = xmalloc((size_t)s->n * nr);
    memset(s->win_in, SOLVE_NONE, (size_t)s->n * nr);
    for (uint32_t role = 0; role < nr; role++) {
        for (uint32_t v = 0; v < s->n; v++)
            if (s->nodes[v].terminal && s->goal[(size_t)v * nr + role] == 100)
                s->win_in[(size_t)v * nr + role] = 0;
        for (uint32_t i = 1; i < SOLVE_NONE; i++) {
            bool changed = false;
            for (uint32_t v = 0; v < s->n; v++) {
                if (s->nodes[v].terminal || s->win_in[(size_t)v * nr + role] != SOLVE_NONE)
                    continue;
                uint32_t nj = joint_count(s, v), na = s->nmv[(size_t)v * nr + role];
                bool win = false;
                for (uint32_t a = 0; a < na && !win; a++) {
                    bool all = true;
                    for (uint32_t j = 0; j < nj && all; j++) {
                        if (move_of(s, v, j, role) != a) continue;
                        uint8_t d = s->win_in[(size_t)s->succ[s->nodes[v].succ + j] * nr + role];
                        if (d == SOLVE_NONE || d >= i) all = false;
                    }
                    win = all;
                }
                if (win) {
                    s->win_in[(size_t)v * nr + role] = (uint8_t)i;
                    changed = true;
                }
            }
            if (!changed) break;
        }
    }
}

/* The index of the coalition's part of joint move j (mixed radix over its roles). */
static uint32_t coalition_part(const solve_t *s, uint32_t id, uint32_t j, uint64_t coalition) {
    uint32_t part = 0;
    for (uint32_t r = 0; r < s->n_roles; r++)
        if (coalition >> r & 1)
            part = part * s->nmv[(size_t)id * s->n_roles + r] + move_of(s, id, j, r);
    return part;
}

/* Some part of the coalition's whose every joint move leads to a state forced within
 * fewer than i rounds (ok: scratch, one flag per part). */
static bool forced_here(const solve_t *s, uint32_t v, uint64_t coalition, const uint8_t *out,
                        uint32_t i, uint8_t *ok) {
    uint32_t nj = joint_count(s, v), parts = 1;
    for (uint32_t r = 0; r < s->n_roles; r++)
        if (coalition >> r & 1) parts *= s->nmv[(size_t)v * s->n_roles + r];
    memset(ok, 1, parts);
    for (uint32_t j = 0; j < nj; j++) {
        uint8_t d = out[s->succ[s->nodes[v].succ + j]];
        if (d == SOLVE_NONE || d >= i) ok[coalition_part(s, v, j, coalition)] = 0;
    }
    for (uint32_t a = 0; a < parts; a++)
        if (ok[a]) return true;
    return false;
}

void solve_force(const solve_t *s, uint64_t coalition, uint32_t role, int v, bool above,
                 uint8_t *out) {
    uint32_t nr = s->n_roles, most = 1;
    memset(out, SOLVE_NONE, s->n);
    for (uint32_t id = 0; id < s->n; id++) {
        int g = s->goal[(size_t)id * nr + role];
        if (s->nodes[id].terminal && g >= 0 && (above ? g >= v : g <= v)) out[id] = 0;
        uint32_t parts = 1;
        for (uint32_t r = 0; r < nr && !s->nodes[id].terminal; r++)
            if (coalition >> r & 1) parts *= s->nmv[(size_t)id * nr + r];
        if (parts > most) most = parts;
    }
    uint8_t *ok = xmalloc(most);
    for (uint32_t i = 1; i < SOLVE_NONE; i++) {
        bool changed = false;
        for (uint32_t id = 0; id < s->n; id++) {
            if (s->nodes[id].terminal || out[id] != SOLVE_NONE) continue;
            if (forced_here(s, id, coalition, out, i, ok)) out[id] = (uint8_t)i, changed = true;
        }
        if (!changed) break;
    }
    free(ok);
}

/* Is the state one where `mover` moves: the other role's only move is its no-op and the
 * mover's no-op is not legal? */
static bool moves_here(const solve_t *s, uint32_t v, uint32_t mover, const term_t *noop) {
    const term_t *m;
    uint32_t other = 1 - mover;
    uint32_t n = solve_legal(s, v, other, &m);
    if (n != 1 || m[0] != noop[other]) return false;
    n = solve_legal(s, v, mover, &m);
    for (uint32_t k = 0; k < n; k++)
        if (m[k] == noop[mover]) return false;
    return true;
}

static void compute_wmask(solve_t *s, const term_t *noop) {
    uint32_t nr = s->n_roles;
    s->wmask = xcalloc((size_t)s->n * nr, sizeof *s->wmask);
    if (!noop || nr != 2) return;
    for (uint32_t role = 0; role < 2; role++) {
        uint32_t any = 0;
        for (uint32_t v = 0; v < s->n; v++)
            if (s->nodes[v].terminal && s->goal[(size_t)v * nr + role] == 100) {
                s->wmask[(size_t)v * nr + role] |= 1;
                any++;
            }
        for (uint32_t i = 1; i < 64 && any; i++) {
            bool exists = i % 2 == 1;
            uint32_t mover = exists ? role : 1 - role;
            uint64_t prev = 1ull << (i - 1);
            any = 0;
            for (uint32_t v = 0; v < s->n; v++) {
                if (s->nodes[v].terminal || !moves_here(s, v, mover, noop)) continue;
                /* the joint moves are (a, noop): one successor per mover move */
                uint32_t nj = joint_count(s, v);
                bool ok = !exists;
                for (uint32_t j = 0; j < nj; j++) {
                    bool in = s->wmask[(size_t)s->succ[s->nodes[v].succ + j] * nr + role] & prev;
                    if (exists && in) ok = true;
                    if (!exists && !in) ok = false;
                }
                if (ok) {
                    s->wmask[(size_t)v * nr + role] |= 1ull << i;
                    any++;
                }
            }
        }
    }
}

void solve_rounds(solve_t *s, const term_t *noop) {
    if (!s->value) compute_values(s);
    if (!s->win_in) compute_win_in(s);
    if (!s->wmask) compute_wmask(s, noop);
}

uint8_t solve_win_in(const solve_t *s, uint32_t id, uint32_t role) {
    return s->win_in ? s->win_in[(size_t)id * s->n_roles + role] : SOLVE_NONE;
}
uint64_t solve_wmask(const solve_t *s, uint32_t id, uint32_t role) {
    return s->wmask ? s->wmask[(size_t)id * s->n_roles + role] : 0;
}
int solve_value(const solve_t *s, uint32_t id, uint32_t role) {
    return s->value ? s->value[(size_t)id * s->n_roles + role] : SOLVE_NO_VALUE;
}
