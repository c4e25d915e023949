/* Lifted backward search: the N operator and the sequences α_i, β_i.
 *
 * α_0 = C^∞(terminal ∧ goal(A, 100)); α_i = simplify(C^∞(N(α_{i-1}))), with A to move when
 * i is odd (A picks a move into α_{i-1}) and B to move when i is even (every move of B
 * leads into α_{i-1}); β_i is the same with the roles swapped. A state satisfying α_i is
 * one from which A forces a win within i rounds.
 *
 * N for a mover p and the other role q (noop_r: r's no-op move):
 *   exists (p is the sequence's owner):
 *     ¬terminal ∧ legal(q, noop_q) ∧ ¬∃m'(legal(q, m') ∧ m' ≠ noop_q) ∧ ¬legal(p, noop_p)
 *       ∧ ∃m (legal(p, m) ∧ φ'[does(p, x) ↦ x = m, does(q, y) ↦ y = noop_q])
 *   forall (p is the opponent):
 *     ¬terminal ∧ legal(q, noop_q) ∧ ¬∃m'(legal(q, m') ∧ m' ≠ noop_q) ∧ ¬legal(p, noop_p)
 *       ∧ ¬∃b (legal(p, b) ∧ ¬φ'[does(p, x) ↦ x = b, does(q, y) ↦ y = noop_q])
 * where φ' is α_{i-1} with true(t) read as next(t). "q's only legal move is its no-op and
 * p's no-op is not legal" is what "p moves" means; with it the formula is exact whatever
 * the game, so the turn-taking test below only decides what to report.
 *
 * The sequence stops at the time budget; a formula larger than the size cap is cut to a
 * prefix of its disjuncts (sound: it describes fewer states) and marked incomplete. */
#ifndef REGRESS_REGRESS_H
#define REGRESS_REGRESS_H

#include "base/clock.h"
#include "engine/engine.h"
#include "regress/expand.h"
#include "regress/form.h"

/* Two-player turn-taking in the sense backward search needs. */
typedef struct {
    bool supported;
    char reason[256]; /* why not, when not */
    term_t noop[2];   /* each role's no-op, in game role order */
    uint32_t states;  /* sampled non-terminal states */
} shape_t;

/* Samples `playouts` random matches (seeded) on e and checks that in every non-terminal
 * state exactly one role's legal moves are just its no-op and the other role's no-op is
 * not legal; samples fewer states when needed to end by `deadline` (now_seconds() time;
 * 0: none): a slow engine must not hold up a clock. */
void regress_shape(engine_t *e, uint32_t playouts, uint64_t seed, double deadline, shape_t *out);

typedef struct {
    double budget;      /* seconds for the whole run (0: no limit) */
    uint64_t max_size;  /* literals per formula (0: no cap) */
    uint32_t max_depth; /* recursive unfoldings */
    uint32_t max_steps; /* largest i (0: until the budget) */
    bool use_mutexes;   /* prove candidate mutexes with Z3 and prune with them */
    bool ground_moves;  /* N ground over the mover's moves when they are few and known */
} regress_opts_t;

void regress_default_opts(regress_opts_t *o);

typedef struct {
    form_t *f;
    double seconds;
    uint32_t disjuncts;
    uint64_t literals;
    bool complete;
    bool too_deep; /* a term of f nests past TERM_MAX_DEPTH: the side's last step */
} regress_step_t;

typedef struct regress regress_t;

/* On e's game, e answering its queries and sampling its matches (the vocabulary of the
 * mutex proofs is e's: vocab.h). NULL (with a message in err) when the game is not
 * supported: not two roles, GDL-II, not turn-taking. role is A's index. e stays the
 * caller's and must outlive rg. */
regress_t *regress_new(engine_t *e, uint32_t role, const regress_opts_t *o, char *err,
                       size_t errlen);
void regress_free(regress_t *rg);

const shape_t *regress_shape_of(const regress_t *rg);
expand_t *regress_expander(regress_t *rg);
/* The proven mutex groups in use (after regress_run or regress_prove_mutexes). */
const mutex_t *regress_mutexes(const regress_t *rg, uint32_t *n);
/* Proves candidate mutexes (once); returns how many hold. */
uint32_t regress_prove_mutexes(regress_t *rg);

/* Called after each step: side 0 = α, 1 = β. */
typedef void (*regress_cb)(void *ctx, int side, uint32_t i, const regress_step_t *st);

/* Computes α_0, β_0, α_1, β_1, ... until the budget, the step limit, or both sequences
 * are false; a side stops after a step whose formula holds a term nested past
 * TERM_MAX_DEPTH (too_deep: no state the engines play has one, and the rounds would nest
 * deeper without end, past any stack: rules that nest a term deeper every turn). Returns false when
 * the budget ran out: the step then being computed was dropped (regress_count tells which were
 * kept). */
bool regress_run(regress_t *rg, regress_cb cb, void *ctx);
/* From the callback of regress_run: no more steps for that side (regress_run returns
 * once neither side has any left). */
void regress_stop(regress_t *rg, int side);
/* The steps computed so far (owned by rg). */
uint32_t regress_count(const regress_t *rg, int side);
const regress_step_t *regress_step(const regress_t *rg, int side, uint32_t i);

/* One application of N (then C^∞ and simplification): the states where `mover` moves and
 * either can (exists) or must (!exists) reach a state of f. NULL past the deadline. */
form_t *regress_N(regress_t *rg, const form_t *f, uint32_t mover, bool exists);

/* f with every true(t) replaced by next(t) (all scopes). */
form_t *form_nextify(term_store_t *ts, const form_t *f);

#endif
