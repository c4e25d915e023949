/* The ground network as decision diagrams: see bddnet.h. */
#include "regress/bddnet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/util.h"
#include "regress/bddinv.h"
#include "regress/bddorder.h"

#define MAX_MASKS 8      /* coalitions cached (a run uses two or three) */
#define ALL_NODES 100000 /* a pre-image's set for one move of P gives up past it */
/* the reachable states' search gives up past this many nodes (connect four: at layer 7 of
 * 42, doubling each layer) */
#define REACH_NODES 20000
#define JOIN_NODES 50000 /* a set made one diagram for a pre-image: its parts up to this */
/* both caps with local sets (bddnet_local): they are small for being local, a global one
 * past the caps would explode (the one-operation cap, dd_set_op_nodes, still holds) */
#define LOCAL_NODES 2000000
/* of the time left to the build's deadline for the implications at most (past it: none;
 * nineBoardTicTacToe's 90 cells take longer than 20 s) */
#define IMPL_SHARE 0.2
/* of the time left to the deadline one node of the network at most, while unknowns are
 * left (opts.unknowns): past it the node is left unknown (skirmishNew's "some move is
 * available" took the whole 10 s alone) */
#define NODE_SHARE (1.0 / 16)
/* seconds a node's share is at least: past the deadline within less, it was the caller's
 * time that ran out (a step's end made nineBoardTicTacToe's small successor nodes unknown) */
#define NODE_MIN 0.25
/* of the time left the proof of the binary codes at most (with unknowns: past it, no code) */
#define INV_SHARE 0.5
/* the same without unknowns, where the codes matter more (nineBoardTicTacToe's proof takes
 * half the time left at load 3, and its joint moves do not fit without codes); past it no
 * code either (IrrelevantMultiboardConnectThreeDecompositionI's proof took all of it: refused) */
#define INV_SHARE_ALONE 0.8
/* ... and with a family joined (opts.families), where the network came fast: the joined
 * games' proofs take milliseconds (the mummy mazes, wargames, tron, snakes: 2-28 ms), but
 * shmup's, its two ships joined, ran to its share and dropped every code (at 0.8 refused,
 * at 0.5 accepted on the budget's edge: proof 6.0 s and one-hot network 2.2 of 10 s) */
#define INV_SHARE_JOINED 0.25
/* of the time left the joint moves one by one at most (past it, with time left, one
 * substitution for all: with its codes proven checkers's 1,278 joint moves took 1.4 s of CPU
 * and did not fit in a corpus run's 10 s at load 4; without codes it had been SUBST) */
#define JOINTS_SHARE 0.5
/* of the time left the legal relations of every role at once at most (past it the proof
 * ANDs them per group, role by role) */
#define JOINT_SHARE 0.25
/* of the time left a layout with binary codes its network at most: past it, or at a node
 * limit before the deadline, every code is dropped and the network made again one-hot with
 * the rest (network_and_codes) */
#define CODES_SHARE 0.5
/* groups the proof of the codes tries before it judges them: past this many, where more
 * than half of those tried broke, every code is dropped (a layout with the few left is
 * another network and another proof, and one-hot is what it comes to: urmAdd kept 4 of
 * 20, IrrelevantMultiboardConnectThreeDecompositionI 24 of 120 after 14 CPU s,
 * checkers-mustjump none of 36) */
#define BREAK_SEEN 8
/* ... and only where more groups than this are coded: the proof of a few is cheap, and the
 * codes that hold are kept (duplicateStateMedium: 9 of its 11 break, 0.001 s; with the 2 left
 * and their implications its forward search took 0.15 CPU s, one-hot it did not finish a
 * layer in 1.8, and the puzzle was no longer solved at start; lightsOnSimul4's 17 groups: α_5
 * solved with its one code, α_3 one-hot; IrrelevantMultiboard... has 120, endgame 66) */
#define BREAK_FEW 32
/* only where the layout one-hot has at most this many times its state variables with codes
 * (checkers-mustjump 2.1, crossers3 1.3, speedChess 2.3; kalaha_2009's counters 23) */
#define ONE_HOT_VARS 4
/* a node that reads the joint move at most this many nodes with the move codes free (opts.next
 * BDDNET_NEXT_AUTO): past it they are made per joint move (3pffa's captures, 108,684 nodes
 * each with the codes free, took its whole budget; per joint move its network took 0.4 of
 * it). Only the size: where such a node ran out of its time instead, per joint move cost
 * more than leaving it unknown (wargame02, wargame03, skirmishNew were refused so at load 6,
 * accepted before). The same on any machine. Also where the node table is full (at_node_limit). */
#define NEXT_FREE_NODES 50000
/* ... and where they made this share of the node table live (free_live_cap) */
#define NEXT_FREE_LIVE 0.5
#define NO_UNK UINT32_MAX
/* Values at most in a group of joined cells (families_joined): 12 code bits. */
#define JOIN_VALUES 4095

typedef struct {
    uint64_t mask;
    dd_ref legal, cube; /* ∧ of the roles' legal relations, their move variables */
} coalition_t;

/* Where a joint move is legal and has one effect: there the successor is the state with
 * the variables of a cube set to its values (in connect four a drop has six parts, one per
 * landing row), or, where the effects did not split into few such parts, the successor is
 * given by the joint move's substitution. Per part, the successor's terminal and goals are
 * small ("this piece completes a line") where per joint move they hold every landing row
 * at once. */
typedef struct {
    dd_ref cond;    /* the states: within the invariant, every role's move legal */
    dd_ref assign;  /* the cube of the variables the move sets there (DD_NONE: subst) */
    dd_ref term;    /* the successor is terminal (meaningful where cond holds; with unknowns
                       for some value of the successor's: bddnet_unknowns) */
    dd_ref raw;     /* with unknowns, until the goals go: terminal over the successor's
                       unknowns (the targets are made from it; DD_FALSE: term is it) */
    dd_ref **goal;  /* per role and goal item: it holds at the successor */
    dd_ref *target; /* per target: terminal and the target's goal at the successor */
    uint8_t state;  /* PART_NEW: term, goal and target not made yet (a step makes them
                       when it first reads the part), PART_READY, PART_FAILED (a node
                       limit: the part's move is left out of every step, a subset) */
} part_t;

enum { PART_NEW, PART_READY, PART_FAILED };

/* A joint move some state allows, or (SUBST) all of them at once with the move codes free:
 * what the successor is. */
typedef struct {
    dd_ref code;       /* the joint move's codes (SUBST: true) */
    dd_subst_t *subst; /* the state variables := their next functions fixed to this move
                          (SUBST: NULL, the network's) */
    dd_ref *legal;     /* per role: legal(r, its move) over the state (SUBST: unused) */
    uint32_t *move;    /* per role: the move index */
    part_t *parts;     /* SUBST: one, true, the substitution */
    uint32_t n_parts;
    uint8_t state; /* JOINT_NEW: subst and parts not made yet (a step makes them when
                      it first reads the move: checkers's 689 moves take 4 s), JOINT_MADE,
                      JOINT_READY (every part's successor made too), JOINT_FAILED (a node
                      limit: the move is left out of every step, a subset) */
} joint_t;

enum { JOINT_NEW, JOINT_MADE, JOINT_READY, JOINT_FAILED };

typedef struct {
    uint32_t role;
    int v;
    bool above;
} target_t;

typedef struct {
    uint32_t first, n;     /* fluents sorted[first .. first + n) */
    uint32_t fine, n_fine; /* its cells bn->fine[fine .. fine + n_fine) */
    bool coded;            /* binary code (proven mutually exclusive) */
    uint32_t var, n_vars;
} group_t;

typedef struct {
    dd_ref *v;         /* per node (DD_NONE: not evaluated) */
    uint8_t *need;     /* per node */
    bool at_next;      /* values at the successor (else at the state) */
    bool whole;        /* no node left unknown; a rule with a constant false literal is false
                          without an operation (a joint move's inputs fixed) */
    bool codes;        /* the move inputs are their codes (at the state, free: opts.move_sets) */
    uint32_t cap;      /* a node past this many nodes gives up (0: no cap), and sets capped */
    uint64_t live_cap; /* with cap: so do the nodes once this many are live (0: no cap) */
    bool capped;
} eval_t;

struct bddnet {
    const gnet_t *net;
    const term_store_t *ts;
    bddnet_opts_t o;
    dd_t *d;
    /* the layout, fixed once the candidates are proven */
    uint32_t *sorted; /* fluents in variable order */
    group_t *groups;
    uint32_t n_groups, n_coded;
    uint32_t n_raised;         /* families placed otherwise than by name (raise_selectors) */
    uint32_t n_implied;        /* implications between groups in the invariant */
    bool *cand;                /* per group: a mutual-exclusion candidate still standing */
    bool *split;               /* per group of joined cells: it broke, to be split back */
    group_t *fine;             /* the cells: the fluents that differ in their last argument */
    uint32_t n_fine, n_joined; /* cells; groups of joined cells in the layout */
    bool *fine_cand;           /* per cell: a candidate still standing */
    uint32_t *fine_init;       /* per cell: its values true initially */
    bool *joined;              /* per cell: in the group of the cell before (families_joined) */
    uint32_t *fgroup, *fpos;   /* per fluent: its group, its place in it */
    uint32_t n_vars, n_roles;
    uint32_t stride; /* 2: each state variable has its successor copy right below it */
    uint32_t *var_start, *var_fluent; /* state variable -> the fluents that set it */
    uint32_t *mbits, **mvars;
    uint32_t *pos;                            /* node -> its place in the network's order */
    uint8_t *implies_terminal, *restrictable; /* per node, per rule */
    uint8_t *cone;             /* per fluent: it may influence terminal, a goal or a legal move */
    uint32_t n_cone;           /* fluents in the cone */
    bool by_joint;             /* the move blocks' next functions are to be made per joint move */
    uint32_t n_next_joints;    /* the joint moves they were made for */
    uint64_t n_move_set_rules; /* rules made as sets of move codes (move_sets) */
    eval_t cur;                /* the network at the state, while building */
    /* diagrams */
    dd_ref *fluent;          /* per fluent, over the variables */
    dd_ref *mcube;           /* per role: its move variables */
    dd_ref state_vars, inv;  /* inv: valid codes, and reachable when computed */
    dd_ref **legal;          /* per role and move, over the state */
    dd_ref *legal_rel;       /* per role, over the state and its move code */
    dd_ref *next;            /* per fluent, over the state and the move codes */
    dd_ref *next_var;        /* per state variable its next function (keep_transition, or per
                                joint move: next_bits), read again by make_joint and reach */
    dd_ref *gr_amo, *gr_any; /* per group: at most one / some value next, made per joint move
                                (next_bits; DD_NONE: from the values' next functions) */
    uint32_t n_by_bits;      /* groups made so (next_bits) */
    int **values;            /* per role: distinct numeric goal values */
    uint32_t *n_values;
    dd_ref *moves_here; /* per role, made on demand (DD_NONE: not yet) */
    dd_subst_t *subst;  /* the state variables := their next functions */
    joint_t *joints;    /* PER_MOVE: the joint moves some state allows; SUBST: one, all */
    uint32_t n_joints;
    target_t *targets;
    uint32_t n_targets;
    dd_ref reach;     /* the states reachable (ignoring terminal), or true when not computed */
    dd_ref split_inv; /* inv before the reachable states went in (DD_NONE: inv): where the
                         joint moves are split into parts */
    uint32_t reach_layers;
    bool reach_late; /* the forward search gave up at its deadline, not past its node cap */
    /* local: the sets are about the states near the start (a horizon cut the search, or
     * the start is not the initial state): upto[d], d < n_upto, the states within d steps
     * of it (in inv); the states within n_upto - 1 or more steps are inv */
    bool local;
    dd_ref *upto;
    uint32_t n_upto;
    double reach_seconds;
    coalition_t masks[MAX_MASKS];
    uint32_t n_masks;
    double seconds;
    bool goals_gone;           /* bddnet_forget_goals */
    uint64_t n_parts, n_ready; /* parts of the joint moves made so far; parts made or failed */
    uint32_t n_done;           /* joint moves JOINT_READY or JOINT_FAILED */
    ddexcl_pool_t *xpool;      /* the exclusion lists of the sets' parts */
    /* nodes left unknown (bddnet_unknowns): unk[k] is node unk_of's k, variable
     * n_vars + 2 unk_slot[k] at the state and that + 1 at the successor (placed among the
     * state variables: unknowns_placed); kept across attempts (a new layout tries it no
     * more, its slot is picked again) */
    uint32_t *unk, *unk_of, n_unk;
    /* per slot: the state variable it lies above (the first below it: n_vars), and whether
     * an unknown has it */
    uint32_t *unk_slot, *slot_at;
    bool *slot_used;
    double node_end; /* while the network with codes has its share: the build's deadline, of
                        which a node's share is taken (0: the manager's deadline) */
    /* per unknown: the parts whose successor it was not put in within the limits (past
     * KNOWN_TRIES no more: each try spends its share, checkers's has_legal_move) */
    uint32_t *unk_missed;
    dd_ref unk_now, unk_next; /* the positive cubes of every unknown variable of each kind */
    /* while a node may become unknown: BuDDy's count of nodes produced past which its
     * evaluation gives up (0: none; opts.node_work), and whether it did */
    uint64_t work_stop;
    bool work_cut;
    bool unk_cyclic; /* some unknown is a node of a cyclic block (know_unknowns: passes) */
    /* why the network gave up where no diagram operation did, so that dd_why says nothing
     * (more joint moves than next_by_joint's cap); empty otherwise */
    char why[96];
};

void bddnet_default_opts(bddnet_opts_t *o) {
    *o = (bddnet_opts_t){.image = BDDNET_PER_MOVE,
                         .invariants = true,
                         .implications = true,
                         .columns = true,
                         .cone = true,
                         .selectors = true,
                         .unknowns = BDDNET_UNKNOWNS,
                         .move_sets = true,
                         .next_bits = true,
                         .families = true,
                         .node_work = BDDNET_NODE_WORK};
}

static void deref_all(dd_t *d, dd_ref *a, uint32_t n) {
    for (uint32_t k = 0; a && k < n; k++)
        dd_deref(d, a[k]);
    free(a);
}

/* ---- groups of fluents, in board order ---- */

/* The sort key of a term: numbers zero-padded so that they sort by value. */
static void term_key(const term_store_t *ts, term_t t, strbuf_t *sb) {
    int n = term_number(ts, t);
    if (n >= 0) {
        sb_printf(sb, "%010d", n);
        return;
    }
    sb_puts(sb, term_sym_name(ts, term_sym(ts, t)));
    for (uint32_t i = 0; i < term_arity(ts, t); i++) {
        sb_putc(sb, ' ');
        term_key(ts, term_arg(ts, t, i), sb);
    }
}

typedef struct {
    char *key, *group, *family; /* the whole key, without the last argument, without the
                                   last two (a piece's cells: families_joined) */
    uint32_t f;
} fkey_t;

static int cmp_fkey(const void *a, const void *b) {
    const fkey_t *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->f > y->f) - (x->f < y->f);
}

/* An argument of a fluent at a position (but the last). */
typedef struct {
    sym_t sym;
    uint32_t pos;
    term_t arg;
} argval_t;

static int cmp_argval(const void *a, const void *b) {
    const argval_t *x = a, *y = b;
    if (x->sym != y->sym) return (x->sym > y->sym) - (x->sym < y->sym);
    if (x->pos != y->pos) return (x->pos > y->pos) - (x->pos < y->pos);
    return (x->arg > y->arg) - (x->arg < y->arg);
}

/* Every fluent's arguments (but the last), sorted, and per entry how many values its
 * symbol's position takes. */
static uint32_t *arg_counts(const bddnet_t *bn, uint32_t *n_out, argval_t **vals) {
    const gnet_t *net = bn->net;
    uint32_t n = 0;
    for (uint32_t f = 0; f < net->n_fluents; f++) {
        uint32_t a = term_arity(bn->ts, net->fluent_term[f]);
        n += a ? a - 1 : 0;
    }
    argval_t *v = xmalloc((n + 1) * sizeof *v);
    n = 0;
    for (uint32_t f = 0; f < net->n_fluents; f++) {
        term_t t = net->fluent_term[f];
        for (uint32_t i = 0; i + 1 < term_arity(bn->ts, t); i++)
            v[n++] = (argval_t){term_sym(bn->ts, t), i, term_arg(bn->ts, t, i)};
    }
    qsort(v, n, sizeof *v, cmp_argval);
    uint32_t *count = xcalloc(n + 1, sizeof *count); /* per entry: its (sym, pos)'s count */
    for (uint32_t a = 0, b; a < n; a = b) {
        uint32_t distinct = 0;
        for (b = a; b < n && v[b].sym == v[a].sym && v[b].pos == v[a].pos; b++)
            distinct += b == a || v[b].arg != v[b - 1].arg;
        for (uint32_t k = a; k < b; k++)
            count[k] = distinct;
    }
    *n_out = n, *vals = v;
    return count;
}

static uint32_t count_of(const argval_t *v, const uint32_t *count, uint32_t n, sym_t sym,
                         uint32_t pos) {
    argval_t key = {sym, pos, 0};
    uint32_t lo = 0, hi = n; /* the first entry of (sym, pos) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cmp_argval(&v[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].sym == sym && v[lo].pos == pos ? count[lo] : 0;
}

/* The order of a fluent's arguments (but the last) in its sort key: with opts.columns the
 * position with the most values first (stable otherwise), so that on a board of 8 columns
 * and 6 rows the cells go column by column, where the states reachable within a few plies
 * are small and, with gravity in the invariant (opts.implications), every set is smaller
 * than row by row (connectFour's α_1: 30,034 nodes against 120,077 row by row without the
 * implications, 516,657 with them); else the most values last (row by row), where the
 * successor's terminal (a line the move completes) alone is 2.5 times smaller. */
static void key_order(const bddnet_t *bn, term_t t, const argval_t *v, const uint32_t *count,
                      uint32_t n, uint32_t *perm) {
    uint32_t k = term_arity(bn->ts, t) - 1;
    for (uint32_t i = 0; i < k; i++)
        perm[i] = i;
    for (uint32_t i = 1; i < k; i++) /* insertion sort: k is small */
        for (uint32_t j = i; j > 0; j--) {
            uint32_t a = count_of(v, count, n, term_sym(bn->ts, t), perm[j - 1]);
            uint32_t b = count_of(v, count, n, term_sym(bn->ts, t), perm[j]);
            if (bn->o.columns ? a >= b : a <= b) break;
            uint32_t x = perm[j];
            perm[j] = perm[j - 1], perm[j - 1] = x;
        }
}

/* The families of the fluents sorted by key, in the order they first appear; fam[i]: the
 * family of k[i]. */
static uint32_t key_families(const bddnet_t *bn, const fkey_t *k, bddfam_t **out, uint32_t *fam) {
    uint32_t n = 0, cap = 0;
    bddfam_t *f = NULL;
    for (uint32_t i = 0; i < bn->net->n_fluents; i++) {
        term_t t = bn->net->fluent_term[k[i].f];
        bddfam_t x = {term_sym(bn->ts, t), term_arity(bn->ts, t)};
        uint32_t j = n;
        while (j > 0 && (f[j - 1].sym != x.sym || f[j - 1].arity != x.arity))
            j--; /* from the last: a family's keys are consecutive */
        if (j) {
            fam[i] = j - 1;
            continue;
        }
        if (n == cap) cap = cap ? 2 * cap : 16, f = xrealloc(f, cap * sizeof *f);
        f[n] = x, fam[i] = n++;
    }
    *out = f;
    return n;
}

/* The families in their order, with --trace. */
static void trace_order(const bddnet_t *bn, const bddfam_t *fams, uint32_t n,
                        const uint32_t *perm) {
    if (!bn->o.trace) return;
    fputs("# trace order families", bn->o.trace);
    for (uint32_t r = 0; r < n; r++)
        fprintf(bn->o.trace, " %s/%u%s", term_sym_name(bn->ts, fams[perm[r]].sym),
                fams[perm[r]].arity, perm[r] != r ? "*" : "");
    fputc('\n', bn->o.trace);
}

/* A family whose values select another's cells (regress/bddorder.h: a program counter and
 * the program's lines) moved up to just above it, each family kept whole, its keys in
 * their order. */
static void raise_selectors(bddnet_t *bn, fkey_t *k) {
    uint32_t nf = bn->net->n_fluents, *fam = xmalloc((nf + 1) * sizeof *fam);
    bddfam_t *fams;
    bddsel_t *sel;
    uint32_t n = key_families(bn, k, &fams, fam), n_sel = bddorder_selectors(bn->o.rules, &sel);
    uint32_t *perm = xmalloc((n + 1) * sizeof *perm), *rank = xmalloc((n + 1) * sizeof *rank);
    if (bddorder_place(fams, n, sel, n_sel, perm)) {
        for (uint32_t r = 0; r < n; r++)
            rank[perm[r]] = r, bn->n_raised += perm[r] != r;
        trace_order(bn, fams, n, perm);
        uint32_t *start = xcalloc(n + 1, sizeof *start); /* counting sort by rank */
        for (uint32_t i = 0; i < nf; i++)
            start[rank[fam[i]] + 1]++;
        for (uint32_t r = 0; r < n; r++)
            start[r + 1] += start[r];
        fkey_t *out = xmalloc((nf + 1) * sizeof *out);
        for (uint32_t i = 0; i < nf; i++)
            out[start[rank[fam[i]]]++] = k[i];
        memcpy(k, out, nf * sizeof *k);
        free(out), free(start);
    }
    free(fam), free(fams), free(sel), free(perm), free(rank);
}

static bool in_init(const gnet_t *net, uint32_t f) {
    for (uint32_t i = 0; i < net->n_init; i++)
        if (net->init[i] == f) return true;
    return false;
}

/* A family: the fluents that differ in their last two arguments (a piece's locations), in
 * their order in the rules. */
static char *family_of(const bddnet_t *bn, term_t t, strbuf_t *sb) {
    uint32_t n = term_arity(bn->ts, t);
    if (n < 2) return xstrdup(""); /* none */
    sb_clear(sb);
    sb_printf(sb, "%s/%u", term_sym_name(bn->ts, term_sym(bn->ts, t)), n);
    for (uint32_t i = 0; i + 2 < n; i++) {
        sb_putc(sb, ' ');
        term_key(bn->ts, term_arg(bn->ts, t, i), sb);
    }
    return xstrdup(sb_str(sb));
}

typedef struct {
    sym_t sym;
    uint32_t arity;
    const char *family;
    term_t cell; /* the argument before the last */
    uint32_t f;
} famkey_t;

static int cmp_famkey(const void *a, const void *b) {
    const famkey_t *x = a, *y = b;
    if (x->sym != y->sym) return (x->sym > y->sym) - (x->sym < y->sym);
    if (x->arity != y->arity) return (x->arity > y->arity) - (x->arity < y->arity);
    int c = strcmp(x->family, y->family);
    return c ? c : (x->cell > y->cell) - (x->cell < y->cell);
}

/* The families of one symbol x[a .. end) (sorted by family): may they be joined? Every
 * family of two cells or more has exactly one value true initially (pieces, one location
 * each: mummymaze1p's mummy and explorer, tron's two riders), none more than JOIN_VALUES
 * values. A board's squares, some empty at the start (chess's (cell X Y COLOUR PIECE): one
 * group per occupied square, the empty ones per colour), are left as they were: joined
 * there, the proof took speedChess past its budget (2026-11-29). */
static bool symbol_joins(const bddnet_t *bn, const famkey_t *x, uint32_t a, uint32_t end) {
    bool any = false;
    for (uint32_t b; a < end; a = b) {
        uint32_t init = 0, cells = 0;
        for (b = a; b < end && !strcmp(x[b].family, x[a].family); b++)
            init += in_init(bn->net, x[b].f), cells += b == a || x[b].cell != x[b - 1].cell;
        if (cells >= 2 && (init != 1 || b - a > JOIN_VALUES)) return false;
        any = any || cells >= 2;
    }
    return any;
}

/* Per fluent: its family may be joined (families_joined; opts.families): one of two cells
 * or more of a symbol whose every such family may (symbol_joins). Its key then keeps the
 * arguments in their order (not column first), so that the family's cells are consecutive. */
static uint8_t *joinable(const bddnet_t *bn, const fkey_t *k) {
    const gnet_t *net = bn->net;
    uint32_t nf = net->n_fluents;
    uint8_t *ok = xcalloc(nf + 1, 1);
    if (!bn->o.families || !bn->o.invariants) return ok;
    famkey_t *x = xmalloc((nf + 1) * sizeof *x);
    for (uint32_t f = 0; f < nf; f++) {
        term_t t = net->fluent_term[f];
        uint32_t n = term_arity(bn->ts, t);
        x[f] = (famkey_t){term_sym(bn->ts, t), n, k[f].family,
                          n >= 2 ? term_arg(bn->ts, t, n - 2) : 0, f};
    }
    qsort(x, nf, sizeof *x, cmp_famkey);
    for (uint32_t a = 0, end; a < nf; a = end) {
        for (end = a; end < nf && x[end].sym == x[a].sym && x[end].arity == x[a].arity; end++)
            ;
        bool j = x[a].family[0] && symbol_joins(bn, x, a, end);
        for (uint32_t i = a; i < end; i++)
            ok[x[i].f] = j;
    }
    free(x);
    return ok;
}

static fkey_t *fluent_keys(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    fkey_t *k = xmalloc((net->n_fluents + 1) * sizeof *k);
    argval_t *vals;
    uint32_t nv, *count = arg_counts(bn, &nv, &vals), *perm = NULL, cap = 0;
    strbuf_t sb;
    sb_init(&sb);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        k[f].family = family_of(bn, net->fluent_term[f], &sb);
    uint8_t *join = joinable(bn, k);
    for (uint32_t f = 0; f < net->n_fluents; f++) {
        term_t t = net->fluent_term[f];
        uint32_t n = term_arity(bn->ts, t);
        sb_clear(&sb);
        sb_printf(&sb, "%s/%u", term_sym_name(bn->ts, term_sym(bn->ts, t)), n);
        if (n > cap) cap = n, perm = xrealloc(perm, cap * sizeof *perm);
        if (n) key_order(bn, t, vals, count, nv, perm);
        for (uint32_t i = 0; i + 1 < n; i++) {
            sb_putc(&sb, ' ');
            term_key(bn->ts, term_arg(bn->ts, t, join[f] ? i : perm[i]), &sb);
        }
        if (!join[f]) k[f].family[0] = 0; /* joins none */
        k[f].group = xstrdup(sb_str(&sb));
        if (n) {
            sb_putc(&sb, ' ');
            term_key(bn->ts, term_arg(bn->ts, t, n - 1), &sb);
        }
        k[f].key = xstrdup(sb_str(&sb));
        k[f].f = f;
    }
    sb_fini(&sb);
    free(vals), free(count), free(perm), free(join);
    qsort(k, net->n_fluents, sizeof *k, cmp_fkey);
    if (bn->o.selectors && bn->o.rules) raise_selectors(bn, k);
    return k;
}

/* The layout's groups from the cells (bn->fine): a cell joined to the one before
 * (bn->joined) is in its group; a group of one cell is a candidate where the cell is, a
 * group of joined cells always (families_joined). fgroup/fpos from them. */
static void layout_groups(bddnet_t *bn) {
    free(bn->groups), free(bn->cand), free(bn->split);
    bn->groups = xcalloc(bn->n_fine + 1, sizeof *bn->groups);
    bn->cand = xcalloc(bn->n_fine + 1, sizeof *bn->cand);
    bn->split = xcalloc(bn->n_fine + 1, sizeof *bn->split);
    bn->n_groups = bn->n_joined = 0;
    for (uint32_t i = 0; i < bn->n_fine; i++) {
        if (!i || !bn->joined[i]) {
            bn->groups[bn->n_groups] = (group_t){.first = bn->fine[i].first, .fine = i};
            bn->cand[bn->n_groups++] = bn->fine_cand[i];
        }
        group_t *gr = &bn->groups[bn->n_groups - 1];
        if (gr->n_fine == 1) bn->n_joined++, bn->cand[bn->n_groups - 1] = true; /* 2nd cell */
        gr->n += bn->fine[i].n, gr->n_fine++;
    }
    for (uint32_t g = 0; g < bn->n_groups; g++)
        for (uint32_t i = 0; i < bn->groups[g].n; i++) {
            uint32_t f = bn->sorted[bn->groups[g].first + i];
            bn->fgroup[f] = g, bn->fpos[f] = i;
        }
}

/* The cells (the fluents that differ in their last argument only); candidates: two or more
 * values, at most one of them initially. joined[i]: cell i has the family of cell i - 1
 * (the same fluent but for its last two arguments), to be confirmed (families_joined). The
 * layout: one group per cell. */
static void make_groups(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    uint32_t nf = net->n_fluents;
    fkey_t *k = fluent_keys(bn);
    bn->sorted = xmalloc((nf + 1) * sizeof *bn->sorted);
    bn->fine = xcalloc(nf + 1, sizeof *bn->fine);
    bn->joined = xcalloc(nf + 1, sizeof *bn->joined);
    bn->fgroup = xmalloc((nf + 1) * sizeof *bn->fgroup);
    bn->fpos = xmalloc((nf + 1) * sizeof *bn->fpos);
    for (uint32_t i = 0; i < nf; i++) {
        bn->sorted[i] = k[i].f;
        if (!i || strcmp(k[i].group, k[i - 1].group)) {
            bn->joined[bn->n_fine] = i && k[i].family[0] && !strcmp(k[i].family, k[i - 1].family);
            bn->fine[bn->n_fine++].first = i;
        }
        bn->fine[bn->n_fine - 1].n++;
    }
    for (uint32_t i = 0; i < nf; i++)
        free(k[i].key), free(k[i].group), free(k[i].family);
    free(k);
    bn->fine_cand = xcalloc(bn->n_fine + 1, sizeof *bn->fine_cand);
    bn->fine_init = xcalloc(bn->n_fine + 1, sizeof *bn->fine_init);
    for (uint32_t g = 0; g < bn->n_fine; g++) {
        for (uint32_t i = 0; i < bn->fine[g].n; i++)
            bn->fine_init[g] += in_init(net, bn->sorted[bn->fine[g].first + i]);
        bn->fine_cand[g] = bn->o.invariants && bn->fine[g].n > 1 && bn->fine_init[g] <= 1;
    }
    bool *joined = bn->joined;
    bn->joined = xcalloc(bn->n_fine + 1, sizeof *bn->joined); /* none yet: find_cone */
    layout_groups(bn);
    free(bn->joined);
    bn->joined = joined;
}

/* Cell i may be in a group of joined cells: a candidate, or one value in the cone (a cell
 * the piece reaches in one place only). */
static bool may_join(const bddnet_t *bn, uint32_t i) {
    return bn->fine_cand[i] || (bn->fine[i].n == 1 && bn->cone[bn->sorted[bn->fine[i].first]]);
}

/* A family's cells joined into one group, one code for the piece's whole board
 * (mummymaze1p's mummy: 7 bits for its 81 locations, not 9 columns of 4 bits, whose chase
 * read both pieces' 9 columns: 461,085 nodes for one location's next function), where
 * every cell may join (may_join) and exactly one of them holds initially (a piece, not a column
 * of a board: empty, or several pieces), at most JOIN_VALUES values in all (opts.families).
 * The proof decides: a joined group that breaks is split back into its cells. */
static void families_joined(bddnet_t *bn) {
    for (uint32_t a = 0, b; a < bn->n_fine; a = b) {
        bool ok = bn->o.families && may_join(bn, a);
        uint32_t init = bn->fine_init[a], n = bn->fine[a].n;
        for (b = a + 1; b < bn->n_fine && bn->joined[b]; b++)
            ok = ok && may_join(bn, b), init += bn->fine_init[b], n += bn->fine[b].n;
        ok = ok && b > a + 1 && init == 1 && n <= JOIN_VALUES;
        for (uint32_t i = a + 1; i < b && !ok; i++)
            bn->joined[i] = false;
    }
    layout_groups(bn);
}

/* The candidates taken back to the cells after a failed proof: a joined group that broke
 * (split) into its cells, each still a candidate; a group dropped (cand false: broken, or
 * every code given up) drops its cells. */
static void regroup(bddnet_t *bn) {
    for (uint32_t g = 0; g < bn->n_groups; g++) {
        const group_t *gr = &bn->groups[g];
        for (uint32_t i = gr->fine; i < gr->fine + gr->n_fine; i++) {
            if (bn->split[g] || !bn->cand[g]) bn->joined[i] = false;
            if (!bn->split[g]) bn->fine_cand[i] = bn->cand[g] && bn->fine[i].n > 1;
        }
    }
    layout_groups(bn);
}

static uint32_t code_bits(uint32_t values) {
    uint32_t b = 0;
    while ((1u << b) < values + 1)
        b++;
    return b;
}

static uint32_t gr_first_var(const bddnet_t *bn) {
    return bn->n_groups ? bn->groups[0].var : 0;
}

/* Variables, levels in this order: the move codes (on top or below), then per group its
 * code bits or its fluents. var_fluent: which fluents set each state variable. */
static void make_vars(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    uint32_t nm = 0, ns = 0;
    bn->n_roles = net->n_roles;
    bn->mbits = xcalloc(bn->n_roles + 1, sizeof *bn->mbits);
    bn->mvars = xcalloc(bn->n_roles + 1, sizeof *bn->mvars);
    for (uint32_t r = 0; r < bn->n_roles; r++)
        nm += bn->mbits[r] = code_bits(net->n_moves[r] - (net->n_moves[r] > 0));
    bn->n_coded = 0;
    bn->stride = bn->o.reach ? 2 : 1;
    for (uint32_t g = 0; g < bn->n_groups; g++) {
        group_t *gr = &bn->groups[g];
        gr->coded = bn->cand[g];
        gr->n_vars = gr->coded ? code_bits(gr->n) : gr->n;
        gr->var = (bn->o.moves_below ? 0 : nm) + ns;
        ns += gr->n_vars * bn->stride;
        bn->n_coded += gr->coded;
    }
    bn->n_vars = ns + nm;
    uint32_t next_move = bn->o.moves_below ? ns : 0;
    for (uint32_t r = 0; r < bn->n_roles; r++) {
        bn->mvars[r] = xmalloc((bn->mbits[r] + 1) * sizeof **bn->mvars);
        for (uint32_t b = 0; b < bn->mbits[r]; b++)
            bn->mvars[r][b] = next_move++;
    }
    uint32_t total = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++)
        for (uint32_t i = 0; i < bn->groups[g].n; i++)
            total += bn->groups[g].coded ? (uint32_t)__builtin_popcount(i + 1) : 1;
    bn->var_start = xcalloc(bn->n_vars + 2, sizeof *bn->var_start);
    bn->var_fluent = xmalloc((total + 1) * sizeof *bn->var_fluent);
    uint32_t n = 0;
    uint32_t v = 0;
    for (; v < gr_first_var(bn); v++) /* move codes on top */
        bn->var_start[v] = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++) {
        const group_t *gr = &bn->groups[g];
        for (uint32_t b = 0; b < gr->n_vars; b++, v++) {
            bn->var_start[v] = n;
            for (uint32_t i = 0; i < gr->n; i++)
                if (gr->coded ? (i + 1) >> b & 1 : i == b)
                    bn->var_fluent[n++] = bn->sorted[gr->first + i];
            if (bn->stride == 2) bn->var_start[++v] = n; /* its successor copy: no fluent */
        }
    }
    for (; v <= bn->n_vars; v++) /* move codes below, and the end */
        bn->var_start[v] = n;
}

/* Each group's variables move together when reordering, and each role's move code. */
static void make_blocks(bddnet_t *bn) {
    for (uint32_t g = 0; g < bn->n_groups; g++)
        dd_group(bn->d, bn->groups[g].var,
                 bn->groups[g].var + bn->groups[g].n_vars * bn->stride - 1);
    for (uint32_t r = 0; r < bn->n_roles; r++)
        if (bn->mbits[r]) dd_group(bn->d, bn->mvars[r][0], bn->mvars[r][bn->mbits[r] - 1]);
}

static void free_layout(bddnet_t *bn) {
    for (uint32_t r = 0; bn->mvars && r < bn->n_roles; r++)
        free(bn->mvars[r]);
    free(bn->mvars), free(bn->mbits), free(bn->var_start), free(bn->var_fluent);
    bn->mvars = NULL, bn->mbits = NULL, bn->var_start = NULL, bn->var_fluent = NULL;
}

/* ---- the network's nodes ---- */

/* The code c in the variables vars[0 .. n) (bit b in vars[b]). */
static dd_ref code_cube(bddnet_t *bn, const uint32_t *vars, uint32_t n, uint32_t c) {
    bool *vals = xmalloc((n + 1) * sizeof *vals);
    for (uint32_t b = 0; b < n; b++)
        vals[b] = c >> b & 1;
    dd_ref r = dd_cube(bn->d, vars, vals, n);
    free(vals);
    return r;
}

static dd_ref move_code(bddnet_t *bn, uint32_t r, uint32_t k) {
    return code_cube(bn, bn->mvars[r], bn->mbits[r], k);
}

static dd_ref group_code(bddnet_t *bn, const group_t *gr, uint32_t c) {
    uint32_t *vars = xmalloc((gr->n_vars + 1) * sizeof *vars);
    for (uint32_t b = 0; b < gr->n_vars; b++)
        vars[b] = gr->var + b * bn->stride;
    dd_ref r = code_cube(bn, vars, gr->n_vars, c);
    free(vars);
    return r;
}

/* Each fluent as a diagram: its variable, or its value of its group's code. */
static void make_fluents(bddnet_t *bn) {
    uint32_t nf = bn->net->n_fluents;
    bn->fluent = xmalloc((nf + 1) * sizeof *bn->fluent);
    for (uint32_t f = 0; f < nf; f++) {
        const group_t *gr = &bn->groups[bn->fgroup[f]];
        bn->fluent[f] = gr->coded ? group_code(bn, gr, bn->fpos[f] + 1)
                                  : dd_var(bn->d, gr->var + bn->fpos[f] * bn->stride);
    }
}

/* ---- the network evaluated: at the state (legal, next) and at its successor (terminal,
 * goals) ----
 *
 * The sets describe non-terminal states only, so terminal and the goals are needed only on
 * the successor y = next(x, m) of a non-terminal state x. There a rule of a node that implies
 * terminal (terminal itself, and down the rules with a single positive literal: (line red)
 * in connect four) has a false body at x; its value at y is restricted by ¬body(x) (still
 * exact for every non-terminal x), which leaves what the move changes: "the move completes
 * this line" instead of "this line, now or after the move". Without it the successor's
 * terminal is as large as the exponential diagram of "some line on the board". */

static dd_ref lit_value(bddnet_t *bn, const eval_t *ev, uint32_t lit) {
    dd_ref v = ev->v[lit >> 1];
    return lit & 1 ? dd_not(bn->d, v) : dd_dup(bn->d, v);
}

/* A literal whose value is the constant false (a move of a joint move not made). */
static bool lit_false(const eval_t *ev, uint32_t lit) {
    dd_ref v = ev->v[lit >> 1];
    return v == (lit & 1 ? DD_TRUE : DD_FALSE);
}

/* A node's evaluation past its work (bn->work_stop): it gives up, as at a deadline, but
 * after the same operations on any machine. */
static bool over_work(bddnet_t *bn) {
    if (!bn->work_stop || dd_produced(bn->d) <= bn->work_stop) return false;
    bn->work_cut = true;
    return true;
}

static dd_ref rule_and(bddnet_t *bn, const eval_t *ev, uint32_t r) {
    const gnet_t *net = bn->net;
    dd_ref all = DD_TRUE;
    for (uint32_t l = net->lit_start[r]; ev->whole && l < net->lit_start[r + 1]; l++)
        if (lit_false(ev, net->lits[l])) return DD_FALSE;
    for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1] && all > 0; l++) {
        if (all > DD_TRUE && over_work(bn)) {
            dd_deref(bn->d, all);
            return DD_NONE;
        }
        dd_ref x = lit_value(bn, ev, net->lits[l]);
        dd_ref t = dd_and(bn->d, all, x);
        dd_deref(bn->d, x), dd_deref(bn->d, all);
        all = t;
    }
    return all;
}

/* Rule r's body at the state, for every value of the unknowns there (∀h): false at every
 * non-terminal state whatever h, as the body is at the true h. With h left in, the
 * successor's terminal read the state's unknowns and each set, ∀h of what was made, lost
 * every state where some h makes the body true (atariGoVariant: a stone's liberties left
 * unknown, h false, hid its capture). */
static dd_ref body_at_state(bddnet_t *bn, uint32_t r) {
    dd_ref body = rule_and(bn, &bn->cur, r);
    if (!bn->n_unk || body <= DD_TRUE) return body;
    dd_ref all = dd_forall(bn->d, body, bn->unk_now);
    dd_deref(bn->d, body);
    return all;
}

/* Rule r's value at the successor, and ¬body at the state when its body implies terminal
 * and reads no such node itself. (A conjunction, not Coudert and Madre's restrict: that
 * picks values freely where body holds, and the OR of many rules then carries their
 * choices, "some line already on the board" again.) */
static dd_ref rule_next(bddnet_t *bn, const eval_t *ev, uint32_t r, bool implies) {
    dd_ref f = rule_and(bn, ev, r);
    if (!implies || !bn->restrictable[r] || f <= 0) return f;
    dd_ref body = body_at_state(bn, r), care = dd_not(bn->d, body);
    dd_ref g = dd_and(bn->d, f, care);
    dd_deref(bn->d, body), dd_deref(bn->d, care), dd_deref(bn->d, f);
    return g;
}

/* The OR of a[0 .. n), pairwise (a balanced tree), consuming the references: for the legal
 * relation, whose terms are on disjoint move codes (their sizes add up; ORed one by one
 * into a growing diagram the thousands of moves of amazons walk it each time). Not for a
 * node's rules: there a tree was 11 times slower on tpeg's `moveable` (76 rules, its
 * halves larger than the whole), the rules one by one are kept. */
static dd_ref or_tree(dd_t *d, dd_ref *a, uint32_t n) {
    if (!n) return DD_FALSE;
    for (; n > 1; n = (n + 1) / 2)
        for (uint32_t k = 0; k < n; k += 2) {
            dd_ref t = k + 1 < n ? dd_or(d, a[k], a[k + 1]) : dd_dup(d, a[k]);
            dd_deref(d, a[k]);
            if (k + 1 < n) dd_deref(d, a[k + 1]);
            a[k / 2] = t;
        }
    return a[0];
}

/* ---- rules that are one move alone, made as a set of move codes ----
 *
 * amazons's (aux 1 X Y), "some role moves the piece on X Y", is the OR of 1,574 rules, each
 * one (does r m); the next functions of its cells' arrows 1,567 such. ORed one by one each
 * cube walks the growing diagram: 174,000 rules per 10x10 board and the network past its
 * budget. Their OR is the set of the moves' codes, made here bit by bit from the sorted
 * codes (a node per distinct subset, one ite each): the same diagram. */

/* Rule r is one positive move literal: its move node, else GNET_NONE. */
static uint32_t move_rule(const gnet_t *net, uint32_t r) {
    uint32_t lit = net->lits[net->lit_start[r]];
    if (net->lit_start[r + 1] - net->lit_start[r] != 1 || lit & 1) return GNET_NONE;
    return net->kind[lit >> 1] == GNODE_MOVE ? lit >> 1 : GNET_NONE;
}

/* The role whose move input node m is. */
static uint32_t move_role(const gnet_t *net, uint32_t m) {
    for (uint32_t r = 0; r < net->n_roles; r++)
        if (net->input[m] < net->n_moves[r] && net->move_node[r][net->input[m]] == m) return r;
    return 0; /* not reached: every move node is some role's */
}

/* codes[0 .. n) with bit b clear first, then those with it set: how many are clear. */
static uint32_t split_codes(uint32_t *codes, uint32_t n, uint32_t b) {
    uint32_t ones = n;
    for (uint32_t k = 0; k < ones;)
        if (codes[k] >> b & 1) {
            uint32_t t = codes[k];
            codes[k] = codes[--ones], codes[ones] = t;
        } else {
            k++;
        }
    return ones;
}

/* The set of codes[0 .. n) over role r's move bits bits[depth ..) (ordered by level, the
 * top first; codes reordered in place). */
static dd_ref code_set(bddnet_t *bn, uint32_t r, const uint32_t *bits, uint32_t depth,
                       uint32_t *codes, uint32_t n) {
    if (!n) return DD_FALSE;
    if (depth == bn->mbits[r]) return DD_TRUE;
    uint32_t b = bits[depth], ones = split_codes(codes, n, b);
    dd_ref lo = code_set(bn, r, bits, depth + 1, codes, ones);
    dd_ref hi = code_set(bn, r, bits, depth + 1, codes + ones, n - ones);
    dd_ref x = dd_ite(bn->d, dd_var(bn->d, bn->mvars[r][b]), hi, lo); /* a variable: kept */
    dd_deref(bn->d, hi), dd_deref(bn->d, lo);
    return x;
}

/* Role r's move bits ordered by their variables' levels, the top first. */
static void bits_by_level(bddnet_t *bn, uint32_t r, uint32_t *bits) {
    for (uint32_t b = 0; b < bn->mbits[r]; b++) {
        uint32_t k = b, lv = dd_level_of(bn->d, bn->mvars[r][b]);
        for (; k > 0 && dd_level_of(bn->d, bn->mvars[r][bits[k - 1]]) > lv; k--)
            bits[k] = bits[k - 1];
        bits[k] = b;
    }
}

/* The OR of order position i's rules that are one move alone (move_rule), as sets of
 * codes per role. */
static dd_ref move_sets(bddnet_t *bn, uint32_t i) {
    const gnet_t *net = bn->net;
    uint32_t first = net->rule_start[i], n = net->rule_start[i + 1] - first;
    uint32_t *codes = xmalloc((n + 1) * sizeof *codes), bits[32];
    dd_ref any = DD_FALSE;
    for (uint32_t r = 0; r < net->n_roles && any != DD_NONE; r++) {
        uint32_t k = 0;
        for (uint32_t j = first; j < first + n; j++) {
            uint32_t m = move_rule(net, j);
            if (m != GNET_NONE && move_role(net, m) == r) codes[k++] = net->input[m];
        }
        if (!k) continue;
        bn->n_move_set_rules += k;
        bits_by_level(bn, r, bits);
        dd_ref set = code_set(bn, r, bits, 0, codes, k), t = dd_or(bn->d, any, set);
        dd_deref(bn->d, set), dd_deref(bn->d, any);
        any = t;
    }
    free(codes);
    return any;
}

/* The OR of the rules of order position i (those that are one move alone as sets of codes
 * where the move inputs are their codes: move_sets). */
static dd_ref eval_node(bddnet_t *bn, const eval_t *ev, uint32_t i) {
    const gnet_t *net = bn->net;
    dd_t *d = bn->d;
    bool implies = ev->at_next && bn->implies_terminal[net->order[i]];
    bool sets = ev->codes && !ev->at_next && bn->o.move_sets;
    dd_ref any = sets ? move_sets(bn, i) : DD_FALSE;
    for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1] && any != DD_NONE; r++) {
        if (sets && move_rule(net, r) != GNET_NONE) continue;
        if (over_work(bn)) {
            dd_deref(d, any);
            return DD_NONE;
        }
        dd_ref all = ev->at_next ? rule_next(bn, ev, r, implies) : rule_and(bn, ev, r);
        dd_ref t = dd_or(d, any, all);
        dd_deref(d, all), dd_deref(d, any);
        any = t;
    }
    return any;
}

/* --trace: a node that took a tenth of a second or more (where a network's build goes) */
static void trace_slow(bddnet_t *bn, uint32_t n, dd_ref v, double cpu, uint64_t made) {
    if (cpu < 0.1) return;
    strbuf_t sb;
    sb_init(&sb);
    if (bn->net->atom[n] != TERM_NONE) term_print(bn->ts, bn->net->atom[n], &sb);
    fprintf(bn->o.trace, "# trace slow node=%u atom=%s rules=%u cpu=%.2f nodes=%llu made=%llu%s\n",
            n, sb.len ? sb.data : "-",
            bn->net->rule_start[bn->pos[n] + 1] - bn->net->rule_start[bn->pos[n]], cpu,
            (unsigned long long)dd_nodes(bn->d, v), (unsigned long long)made,
            v == DD_NONE ? " (given up)" : "");
    fflush(bn->o.trace);
    sb_fini(&sb);
}

static uint32_t unk_var(const bddnet_t *bn, uint32_t k, bool at_next) {
    return bn->n_vars + 2 * bn->unk_slot[k] + at_next;
}

/* Is node n in a cyclic block of the network? */
static bool in_cyclic_block(const bddnet_t *bn, uint32_t n) {
    const gnet_t *net = bn->net;
    uint32_t p = bn->pos[n];
    for (uint32_t b = 0; b < net->n_blocks; b++) {
        const gblock_t *bl = &net->blocks[b];
        if (bl->cyclic && p >= bl->first && p < bl->first + bl->n) return true;
    }
    return false;
}

/* The unknowns' slots on top of the order at most (half of them where there are fewer;
 * unknowns_placed) */
#define UNK_TOP_SLOTS 32

/* The state variable a node reads most: of the fluents its rules read, the one most of
 * them read (go's liberty of a cell: that cell's stone), its last variable; ties to the
 * later. UINT32_MAX where its rules read no fluent. */
static uint32_t unk_anchor(const bddnet_t *bn, uint32_t n) {
    const gnet_t *net = bn->net;
    uint32_t best = UINT32_MAX, best_count = 0, i = bn->pos[n];
    if (!in_cyclic_block(bn, n))
        return UINT32_MAX; /* on top: tic-tac-toe's 64 beside, 3.5 times the CPU */
    for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++)
        for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++) {
            uint32_t m = net->lits[l] >> 1, count = 0;
            if (net->kind[m] != GNODE_FLUENT) continue;
            for (uint32_t q = net->rule_start[i]; q < net->rule_start[i + 1]; q++)
                for (uint32_t j = net->lit_start[q]; j < net->lit_start[q + 1]; j++)
                    if (net->lits[j] >> 1 == m) {
                        count++;
                        break;
                    }
            uint32_t f = net->input[m];
            const group_t *gr = &bn->groups[bn->fgroup[f]];
            uint32_t v = gr->coded ? gr->var + (gr->n_vars - 1) * bn->stride
                                   : gr->var + bn->fpos[f] * bn->stride;
            v += bn->stride - 1;
            if (count > best_count || (count == best_count && v > best))
                best = v, best_count = count;
        }
    return best;
}

/* A free slot for a node that reads no fluent or lies in no cyclic block: the first free
 * on top, else the first free of every r-th below (r the spread slots per UNK_TOP_SLOTS:
 * 1 with 64 slots, 3 with 128), u where none. Those lie where 64 slots put theirs: tic-tac-toe
 * with 55 such unknowns, 23 of them in the first quarter of the order, took 3 times the CPU
 * of α_1 (4.9 s against 1.5) than with them spread over all of it. */
static uint32_t unanchored_slot(const bddnet_t *bn) {
    uint32_t u = bn->o.unknowns, top = u / 2 < UNK_TOP_SLOTS ? u / 2 : UNK_TOP_SLOTS;
    uint32_t r = top < UNK_TOP_SLOTS ? 1 : (u - top) / UNK_TOP_SLOTS;
    for (uint32_t j = 0; j < u; j++)
        if (!bn->slot_used[j] && (j < top || (j - top) % r == 0)) return j;
    return u;
}

/* A free slot for node n's unknown: the first below the variable it reads most
 * (unk_anchor), else the last free one above it; the first free one for a node that reads
 * no fluent. The slots lie among the state variables (unknowns_placed), so a diagram that
 * reads a cell and that cell's unknown keeps them together: with the unknowns on top, "some
 * stone without liberties" over 49 cells was 2^49 cofactors (atariGoVariant_7x7). */
static uint32_t pick_slot(bddnet_t *bn, uint32_t n) {
    uint32_t u = bn->o.unknowns, a = unk_anchor(bn, n), below = u, above = u;
    if (a == UINT32_MAX) below = unanchored_slot(bn);
    for (uint32_t j = 0; j < u && below == u; j++) {
        if (bn->slot_used[j]) continue;
        if (a == UINT32_MAX || bn->slot_at[j] > a) {
            below = j;
            break;
        }
        above = j;
    }
    uint32_t j = below < u ? below : above;
    bn->slot_used[j] = true;
    return j;
}

/* --trace: a node left unknown, and why (the manager's reason is stale for a cut of ours) */
static void trace_unknown(bddnet_t *bn, uint32_t n, bool at_next, const char *why) {
    strbuf_t sb;
    sb_init(&sb);
    if (bn->net->atom[n] != TERM_NONE) term_print(bn->ts, bn->net->atom[n], &sb);
    fprintf(bn->o.trace, "# trace unknown node=%u atom=%s at=%s why=%s\n", n,
            sb.len ? sb.data : "-", at_next ? "successor" : "state", why);
    fflush(bn->o.trace);
    sb_fini(&sb);
}

/* A deadline `share` of the time left before end; end itself where there is none (0). */
static double share_of(double end, double share) {
    if (end <= 0) return end;
    double now = now_seconds();
    return now + share * (end > now ? end - now : 0);
}

/* Is node value v (not DD_NONE) past the caps of the move blocks with the codes free (ev->cap,
 * ev->live_cap)? Then they are made per joint move instead. */
static bool past_free_cap(bddnet_t *bn, const eval_t *ev, dd_ref v) {
    if (v > DD_TRUE && dd_nodes(bn->d, v) > ev->cap) return true;
    if (!ev->live_cap || dd_live_nodes(bn->d) <= ev->live_cap) return false;
    if (bn->o.trace)
        fprintf(bn->o.trace, "# trace next free: %llu nodes live\n",
                (unsigned long long)dd_live_nodes(bn->d));
    return true;
}

/* The move blocks with the move codes free (ev->cap, BDDNET_NEXT_AUTO) past the node table's
 * limit: not an unknown but the sign to make them per joint move. Free, a next function is
 * also made for codes no state plays together (both players moving at once) and every node
 * that reads the move is held at once; per joint move only the joint moves listed, one at
 * a time. Free, kalaha's 2,400 next functions of its pits' counts (none past
 * NEXT_FREE_NODES) filled the 4M-node table, each node after that left unknown at the limit
 * or its share of the time, then the deadline (--budget 40: refused; so, accepted). */
static bool at_node_limit(const bddnet_t *bn, const eval_t *ev) {
    return ev->cap && dd_at_node_limit(bn->d);
}

/* Node n left unknown (while unknowns are left): its variable. */
static dd_ref make_unknown(bddnet_t *bn, const eval_t *ev, uint32_t n, const char *why) {
    bn->unk[bn->n_unk] = n, bn->unk_of[n] = bn->n_unk;
    bn->unk_slot[bn->n_unk] = pick_slot(bn, n);
    if (bn->o.trace) trace_unknown(bn, n, ev->at_next, why);
    return dd_var(bn->d, unk_var(bn, bn->n_unk++, ev->at_next));
}

/* The node at order position i of an acyclic block, or its unknown's variable: a node
 * left unknown before is not tried again, and while unknowns are left a node gets
 * NODE_SHARE of the time left (the caller's deadline put back after it); one that gives up
 * within it, or at a node limit, is left unknown. DD_NONE past the caller's deadline. */
static dd_ref eval_or_unknown(bddnet_t *bn, const eval_t *ev, uint32_t i) {
    uint32_t n = bn->net->order[i];
    if (bn->unk_of[n] != NO_UNK) return dd_var(bn->d, unk_var(bn, bn->unk_of[n], ev->at_next));
    if (bn->n_unk == bn->o.unknowns) return eval_node(bn, ev, i);
    double end = dd_deadline(bn->d), now = now_seconds(), from = bn->node_end;
    if (from < end) from = end; /* within the codes' share: the same share of the time as before */
    double left = end > now ? end - now : 0, share = NODE_SHARE * (from > now ? from - now : 0);
    if (share < NODE_MIN) share = NODE_MIN; /* near the deadline: a cut, not an unknown */
    if (end > 0 && share < left) dd_set_deadline(bn->d, now + share);
    /* not in the move blocks with the codes free (ev->cap): there a large node is the sign
     * to make them per joint move (3pffa's captures), not an unknown */
    bool work = bn->o.node_work && !ev->cap;
    uint64_t op_nodes = dd_op_nodes(bn->d);
    bn->work_stop = work ? dd_produced(bn->d) + bn->o.node_work : 0;
    bn->work_cut = false;
    /* inside one operation too (amazons's one large AND): at BuDDy's next collection */
    if (work && (!op_nodes || op_nodes > bn->o.node_work)) dd_set_op_nodes(bn->d, bn->o.node_work);
    dd_ref v = eval_node(bn, ev, i);
    if (v == DD_NONE && work && dd_at_op_limit(bn->d)) bn->work_cut = true;
    bn->work_stop = 0;
    dd_set_op_nodes(bn->d, op_nodes);
    dd_set_deadline(bn->d, end);
    if (v > DD_TRUE && bn->o.node_nodes && dd_nodes(bn->d, v) > bn->o.node_nodes) {
        dd_deref(bn->d, v); /* past opts.node_nodes */
        return make_unknown(bn, ev, n, "node-nodes");
    }
    if (v != DD_NONE ||
        (!bn->work_cut && ((end > 0 && now_seconds() >= end) || at_node_limit(bn, ev))))
        return v;
    return make_unknown(bn, ev, n, bn->work_cut ? "node-work" : dd_why(bn->d));
}

/* Node n of cyclic block b was left unknown (variable h) in the middle of the block's
 * iteration, its value there old: every other node's value x (not an unknown) becomes
 * x ∧ (old → h), and the iteration goes on to G*(h), the least fixpoint of the rest with n
 * fixed to h. Why the sets stay sound: the recursion is positive (stratified), so the
 * block's function F is monotone and its iterates from false rise; where h ≥ old every
 * value n had so far was below h, so by induction x ≤ G*(h) and x ≤ F(x, h): the iteration
 * from there rises to G*(h) and stops; elsewhere x is false, from where it does too (kept
 * there, x could sit above G*(h) and the iteration need not settle; the true h is never
 * there, old ≤ X*_n below). At the true value h = X*_n of the least fixpoint X*: X*_rest ≤
 * G*(h) by induction on F's iterates (each has n below X*_n), and X*_rest is a fixpoint of
 * the rest, so G*(h) ≤ X*_rest: the nodes are exact there, and a set made for every value
 * of h (∀h, or ∃h for a superset) is sound. Where an operation gives up, the rest goes back
 * to false (an iteration from the start, as sound). */
static void reseed_block(bddnet_t *bn, eval_t *ev, const gblock_t *b, uint32_t n, dd_ref old,
                         dd_ref h) {
    const gnet_t *net = bn->net;
    dd_t *d = bn->d;
    dd_ref keep = dd_imp(d, old, h);
    bool ok = keep != DD_NONE;
    for (uint32_t i = b->first; i < b->first + b->n; i++) {
        uint32_t m = net->order[i];
        if (m == n || bn->unk_of[m] != NO_UNK) continue;
        dd_ref x = ok ? dd_and(d, ev->v[m], keep) : DD_FALSE;
        ok = ok && x != DD_NONE;
        dd_deref(d, ev->v[m]);
        ev->v[m] = x == DD_NONE ? DD_FALSE : x;
    }
    dd_deref(d, keep);
    for (uint32_t i = b->first; !ok && i < b->first + b->n; i++) { /* all from false */
        uint32_t m = net->order[i];
        if (m == n || bn->unk_of[m] != NO_UNK) continue;
        dd_deref(d, ev->v[m]);
        ev->v[m] = DD_FALSE;
    }
}

/* Has a cyclic block's iteration spent its share: BLOCK_WORK times opts.node_work diagram
 * nodes made (the same on any machine), or BLOCK_SHARE of the time left at its start? Each
 * node gets its own share and cap, but a block is evaluated sweep after sweep (atariGoVariant's
 * liberties, 49 nodes per colour: 54 sweeps and 109 CPU s for one colour without a budget,
 * 8 of its nodes past the cap). */
#define BLOCK_WORK 8
#define BLOCK_SHARE 0.25
static bool block_spent(bddnet_t *bn, uint64_t made0, double end) {
    if (bn->o.node_work && dd_produced(bn->d) - made0 > BLOCK_WORK * bn->o.node_work) return true;
    return end > 0 && now_seconds() >= end;
}

/* A cyclic block past its share: every node of it not unknown yet left unknown at once
 * (sound: at their true values every node is exact), while unknowns are left; if they ran
 * out, the rest goes back to false and is iterated with those fixed (an iteration from the
 * start, sound as in reseed_block). */
static void cut_block(bddnet_t *bn, eval_t *ev, const gblock_t *b) {
    const gnet_t *net = bn->net;
    for (uint32_t i = b->first; i < b->first + b->n; i++) {
        uint32_t n = net->order[i];
        if (bn->unk_of[n] != NO_UNK) continue;
        dd_deref(bn->d, ev->v[n]);
        ev->v[n] = bn->n_unk < bn->o.unknowns ? make_unknown(bn, ev, n, "block-share") : DD_FALSE;
    }
    bn->unk_cyclic = true;
}

/* --trace: a cyclic block's iteration that took a tenth of a second or more */
static void trace_cyclic(bddnet_t *bn, const eval_t *ev, const gblock_t *b, uint32_t sweeps,
                         double cpu, uint32_t unk) {
    if (!bn->o.trace || cpu < 0.1) return;
    dd_ref *v = xmalloc((b->n + 1) * sizeof *v);
    for (uint32_t i = 0; i < b->n; i++)
        v[i] = ev->v[bn->net->order[b->first + i]];
    fprintf(bn->o.trace,
            "# trace cyclic block nodes=%u at=%s sweeps=%u cpu=%.2f unknowns=%u shared=%llu\n",
            b->n, ev->at_next ? "successor" : "state", sweeps, cpu, bn->n_unk - unk,
            (unsigned long long)dd_nodes_shared(bn->d, v, b->n));
    fflush(bn->o.trace);
    free(v);
}

/* A block's needed nodes; a cyclic block from false again until nothing changes (the
 * recursion is positive, so this is the least fixpoint). A node left unknown in a cyclic
 * block: reseed_block. */
static bool eval_block(bddnet_t *bn, eval_t *ev, const gblock_t *b) {
    const gnet_t *net = bn->net;
    bool any = false;
    for (uint32_t i = b->first; i < b->first + b->n; i++)
        any = any || ev->need[net->order[i]];
    if (!any) return true;
    for (uint32_t i = b->first; i < b->first + b->n; i++)
        if (ev->v[net->order[i]] == DD_NONE) ev->v[net->order[i]] = DD_FALSE;
    double c0 = bn->o.trace && b->cyclic ? cpu_seconds() : 0;
    uint32_t sweeps = 0, unk = bn->n_unk;
    bool cut = !b->cyclic || ev->whole; /* no share: acyclic, or no unknowns made */
    uint64_t made0 = dd_produced(bn->d);
    double end = cut ? 0 : share_of(dd_deadline(bn->d), BLOCK_SHARE);
    for (bool changed = true; changed; sweeps++) {
        changed = false;
        for (uint32_t i = b->first; i < b->first + b->n; i++) {
            uint32_t n = net->order[i];
            if (!b->cyclic && !ev->need[n]) continue;
            if (!cut && block_spent(bn, made0, end)) cut = true, cut_block(bn, ev, b);
            double t0 = bn->o.trace ? cpu_seconds() : 0;
            uint64_t p0 = bn->o.trace ? dd_produced(bn->d) : 0;
            bool known = bn->unk_of[n] == NO_UNK;
            dd_ref v = ev->whole ? eval_node(bn, ev, i) : eval_or_unknown(bn, ev, i);
            if (bn->o.trace) trace_slow(bn, n, v, cpu_seconds() - t0, dd_produced(bn->d) - p0);
            if (ev->cap && v != DD_NONE && past_free_cap(bn, ev, v)) {
                dd_deref(bn->d, v), v = DD_NONE;
                ev->capped = true;
            } else if (v == DD_NONE && at_node_limit(bn, ev))
                ev->capped = true;
            if (v == DD_NONE) return false;
            if (b->cyclic && known && bn->unk_of[n] != NO_UNK) {
                reseed_block(bn, ev, b, n, ev->v[n], v);
                bn->unk_cyclic = true;
            }
            if (v != ev->v[n]) changed = b->cyclic;
            dd_deref(bn->d, ev->v[n]);
            ev->v[n] = v;
        }
    }
    if (c0) trace_cyclic(bn, ev, b, sweeps, cpu_seconds() - c0, unk);
    return true;
}

/* Marks the nodes the roots read, through the rules (iteratively). */
static void mark(const bddnet_t *bn, uint8_t *need, uint32_t root, uint32_t *stack) {
    const gnet_t *net = bn->net;
    if (root == GNET_NONE || need[root]) return;
    uint32_t sp = 0;
    need[root] = 1;
    stack[sp++] = root;
    while (sp) {
        uint32_t n = stack[--sp], i = bn->pos[n];
        if (net->kind[n] != GNODE_DERIVED) continue;
        for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++)
            for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++) {
                uint32_t m = net->lits[l] >> 1;
                if (!need[m]) need[m] = 1, stack[sp++] = m;
            }
    }
}

/* implies_terminal: terminal and the nodes that are the single positive literal of a rule
 * of one; restrictable: the rules of those whose literals read none of them (their bodies
 * are evaluated at the state). */
static void find_implying(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    bn->implies_terminal = xcalloc(net->n_nodes + 1, 1);
    bn->restrictable = xcalloc(net->n_rules + 1, 1);
    if (net->terminal == GNET_NONE || net->kind[net->terminal] != GNODE_DERIVED) return;
    bn->implies_terminal[net->terminal] = 1;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < net->n_order; i++) {
            if (!bn->implies_terminal[net->order[i]]) continue;
            for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
                uint32_t lit = net->lits[net->lit_start[r]], m = lit >> 1;
                if (net->lit_start[r + 1] - net->lit_start[r] == 1 && !(lit & 1) &&
                    net->kind[m] == GNODE_DERIVED && !bn->implies_terminal[m])
                    bn->implies_terminal[m] = 1, changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < net->n_order; i++) {
        if (!bn->implies_terminal[net->order[i]]) continue;
        for (uint32_t r = net->rule_start[i]; r < net->rule_start[i + 1]; r++) {
            bool reads = false;
            for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++)
                reads = reads || bn->implies_terminal[net->lits[l] >> 1];
            bn->restrictable[r] = !reads;
        }
    }
}

/* The cone of influence: the fluents that terminal, the goals or a legal move read, closed
 * under "the next function of a fluent in it reads" and under groups (a coded group's
 * values share their variables). A fluent outside never changes what a set holds: its next
 * function is not built (it stays as it is), and neither the start state nor an invariant
 * says anything about it. (Fluent f's input is node f.) */
static void find_cone(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    uint32_t nf = net->n_fluents;
    uint8_t *need = xcalloc(net->n_nodes + 1, 1), *done = xcalloc(nf + 1, 1);
    uint32_t *stack = xmalloc((net->n_nodes + 1) * sizeof *stack);
    bn->cone = xcalloc(nf + 1, 1);
    if (!bn->o.cone) memset(need, 1, nf);
    mark(bn, need, net->terminal, stack);
    for (uint32_t r = 0; r < net->n_roles; r++) {
        for (uint32_t k = 0; k < net->n_goals[r]; k++)
            mark(bn, need, net->goals[r][k].node, stack);
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            mark(bn, need, net->legal_node[r][k], stack);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t f = 0; f < nf; f++) {
            if (!need[f] || done[f]) continue;
            const group_t *gr = &bn->groups[bn->fgroup[f]];
            for (uint32_t i = 0; i < gr->n; i++)
                need[bn->sorted[gr->first + i]] = 1;
            mark(bn, need, net->next_node[f], stack);
            done[f] = 1, changed = true;
        }
    }
    bn->n_cone = 0;
    for (uint32_t f = 0; f < nf; f++)
        bn->cone[f] = need[f], bn->n_cone += need[f];
    free(need), free(done), free(stack);
}

static void eval_init(const bddnet_t *bn, eval_t *ev, bool at_next) {
    uint32_t n = bn->net->n_nodes;
    ev->v = xmalloc((n + 1) * sizeof *ev->v);
    for (uint32_t k = 0; k < n; k++)
        ev->v[k] = DD_NONE;
    ev->need = xcalloc(n + 1, 1);
    ev->at_next = at_next;
    ev->whole = false, ev->cap = 0, ev->live_cap = 0, ev->capped = false, ev->codes = false;
}

static void eval_fini(bddnet_t *bn, eval_t *ev) {
    for (uint32_t k = 0; ev->v && k < bn->net->n_nodes; k++)
        if (ev->v[k] != DD_NONE) dd_deref(bn->d, ev->v[k]);
    free(ev->v), free(ev->need);
    ev->v = NULL, ev->need = NULL;
}

/* The inputs: fluents (at the state, or at the successor given by their next functions)
 * and move codes. */
static void eval_inputs(bddnet_t *bn, eval_t *ev, const dd_ref *next) {
    const gnet_t *net = bn->net;
    for (uint32_t n = 0; n < net->n_nodes; n++) {
        if (net->kind[n] == GNODE_FLUENT)
            ev->v[n] = dd_dup(bn->d, next ? next[net->input[n]] : bn->fluent[net->input[n]]);
        else if (net->kind[n] != GNODE_DERIVED)
            ev->v[n] = net->kind[n] == GNODE_TRUE ? DD_TRUE : DD_FALSE;
    }
    for (uint32_t r = 0; r < net->n_roles; r++)
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            if (net->move_node[r][k] != GNET_NONE) {
                dd_deref(bn->d, ev->v[net->move_node[r][k]]);
                ev->v[net->move_node[r][k]] = move_code(bn, r, k);
            }
    ev->codes = !next;
}

/* The needed blocks [from, to) in order. */
static bool eval_blocks(bddnet_t *bn, eval_t *ev, uint32_t from, uint32_t to) {
    for (uint32_t b = from; b < to; b++)
        if (!eval_block(bn, ev, &bn->net->blocks[b])) return false;
    return true;
}

/* The inputs, then every needed block in order. */
static bool eval_network(bddnet_t *bn, eval_t *ev, const dd_ref *next) {
    eval_inputs(bn, ev, next);
    return eval_blocks(bn, ev, 0, bn->net->n_blocks);
}

/* The values of the move blocks' nodes dropped (DD_NONE: not evaluated). */
static void clear_moves(bddnet_t *bn, eval_t *ev) {
    const gnet_t *net = bn->net;
    for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++) {
            uint32_t n = net->order[i];
            if (ev->v[n] != DD_NONE) dd_deref(bn->d, ev->v[n]);
            ev->v[n] = DD_NONE;
        }
}

void bddnet_set_deadline(bddnet_t *bn, double deadline) {
    bn->o.deadline = deadline;
}

static bool past_end(const bddnet_t *bn) {
    return bn->o.deadline > 0 && now_seconds() >= bn->o.deadline;
}

/* The live nodes past which the move blocks with the codes free give up for per joint move:
 * NEXT_FREE_LIVE of the node table more than before them. kalaha_2009's free next functions
 * of its pits' counts (2,400 nodes, none past NEXT_FREE_NODES) filled the 4M-node table in
 * 9.6 of its 10 s (2M in 1.6 s), then per joint move they took 2.4 s (--next joint). */
static uint64_t free_live_cap(bddnet_t *bn) {
    uint64_t table = bn->o.max_nodes ? bn->o.max_nodes : 4u << 20; /* dd_new's */
    return dd_live_nodes(bn->d) + (uint64_t)(NEXT_FREE_LIVE * (double)table);
}

/* Would the layout one-hot have at most ONE_HOT_VARS times the state variables it has with
 * its codes? Counters are not: kalaha_2009's pits' seed counts, 262 variables with codes and
 * 6,098 one-hot, where one-hot the joint moves filled the node table after the codes' share
 * (--budget 10: refused either way) and with its codes the network has built in 20.8 of
 * --budget 40's seconds (7986433): a little slower, the share would send it one-hot. */
static bool one_hot_fits(const bddnet_t *bn) {
    uint64_t coded = 0, hot = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++)
        coded += bn->groups[g].n_vars, hot += bn->groups[g].n;
    return hot <= ONE_HOT_VARS * coded;
}

/* The move blocks (the nodes that read the joint move: next functions only, legal reads
 * the state) with the move codes free, nodes left unknown where they do not build (as
 * before), each within NEXT_FREE_NODES (BDDNET_NEXT_AUTO); past it, or always with
 * BDDNET_NEXT_JOINT, they are left for next_by_joint. So at once where codes are counters
 * (not one_hot_fits): kalaha_2009's free attempt always gave up at free_live_cap, after 1.6
 * to 3 of its CPU s (the same functions either way; past the joint moves' cap they are made
 * free again, next_free_again). False past the build's deadline or the unknowns. */
static bool eval_moves(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    if (bn->o.next == BDDNET_NEXT_FREE || net->n_state_blocks == net->n_blocks)
        return eval_blocks(bn, &bn->cur, net->n_state_blocks, net->n_blocks);
    bool counters = bn->o.next == BDDNET_NEXT_AUTO && bn->n_coded && !one_hot_fits(bn);
    if (counters && bn->o.trace) fprintf(bn->o.trace, "# trace next free skipped: counters\n");
    if (bn->o.next == BDDNET_NEXT_AUTO && !counters) {
        bn->cur.cap = NEXT_FREE_NODES, bn->cur.capped = false;
        bn->cur.live_cap = free_live_cap(bn);
        bool ok = eval_blocks(bn, &bn->cur, net->n_state_blocks, net->n_blocks);
        bn->cur.cap = 0, bn->cur.live_cap = 0;
        if (ok || !bn->cur.capped || past_end(bn)) return ok;
        if (bn->o.trace)
            fprintf(bn->o.trace, "# trace next free given up: %s\n",
                    dd_at_node_limit(bn->d) ? "the node table full" : "a node past the cap");
    }
    clear_moves(bn, &bn->cur);
    bn->by_joint = true;
    return true;
}

static dd_ref node_value(bddnet_t *bn, const eval_t *ev, uint32_t node) {
    return node == GNET_NONE ? DD_FALSE : dd_dup(bn->d, ev->v[node]);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Role r's legal relation over moves[0 .. n) (their codes; reordered in place) from bits[depth
 * ..) on: a tree of ite on the code bits, each move's legal function at its leaf. */
static dd_ref legal_tree(bddnet_t *bn, uint32_t r, const uint32_t *bits, uint32_t depth,
                         uint32_t *moves, uint32_t n) {
    if (!n) return DD_FALSE;
    if (depth == bn->mbits[r]) return dd_dup(bn->d, bn->legal[r][moves[0]]); /* one code */
    uint32_t ones = split_codes(moves, n, bits[depth]);
    dd_ref lo = legal_tree(bn, r, bits, depth + 1, moves, ones);
    dd_ref hi = legal_tree(bn, r, bits, depth + 1, moves + ones, n - ones);
    dd_ref x = dd_ite(bn->d, dd_var(bn->d, bn->mvars[r][bits[depth]]), hi, lo);
    dd_deref(bn->d, hi), dd_deref(bn->d, lo);
    return x;
}

/* Role r's legal relation, ∨ over its moves of code ∧ legal, made as a tree of ite on the
 * code bits (opts.move_sets): the same diagram as the ANDs and their OR, without them
 * (amazons's 87,000 moves a role: 1.9 CPU s so). */
static dd_ref legal_by_bits(bddnet_t *bn, uint32_t r) {
    uint32_t n = bn->net->n_moves[r], *moves = xmalloc((n + 1) * sizeof *moves), bits[32];
    for (uint32_t k = 0; k < n; k++)
        moves[k] = k;
    bits_by_level(bn, r, bits);
    dd_ref x = legal_tree(bn, r, bits, 0, moves, n);
    free(moves);
    return x;
}

static void keep_legal(bddnet_t *bn, uint32_t r) {
    const gnet_t *net = bn->net;
    dd_t *d = bn->d;
    bn->moves_here[r] = DD_NONE;
    bn->mcube[r] = dd_cube(d, bn->mvars[r], NULL, bn->mbits[r]);
    bn->legal[r] = xmalloc((net->n_moves[r] + 1) * sizeof **bn->legal);
    dd_ref *both = xmalloc((net->n_moves[r] + 1) * sizeof *both);
    for (uint32_t k = 0; k < net->n_moves[r]; k++)
        bn->legal[r][k] = node_value(bn, &bn->cur, net->legal_node[r][k]);
    if (bn->o.move_sets) {
        bn->legal_rel[r] = legal_by_bits(bn, r);
        free(both);
        return;
    }
    for (uint32_t k = 0; k < net->n_moves[r]; k++) {
        dd_ref code = move_code(bn, r, k);
        both[k] = dd_and(d, code, bn->legal[r][k]);
        dd_deref(d, code);
    }
    bn->legal_rel[r] = or_tree(d, both, net->n_moves[r]);
    free(both);
}

/* The role's distinct numeric goal values, ascending. */
static void keep_values(bddnet_t *bn, uint32_t r) {
    const gnet_t *net = bn->net;
    bn->values[r] = xmalloc((net->n_goals[r] + 1) * sizeof **bn->values);
    for (uint32_t k = 0; k < net->n_goals[r]; k++) {
        int v = net->goals[r][k].value;
        bool seen = v < 0;
        for (uint32_t j = 0; j < bn->n_values[r] && !seen; j++)
            seen = bn->values[r][j] == v;
        if (!seen) bn->values[r][bn->n_values[r]++] = v;
    }
    qsort(bn->values[r], bn->n_values[r], sizeof **bn->values, cmp_int);
}

/* A balanced OR of many terms that keeps log2 of them: levels[k] is the OR of 2^k terms
 * where bit k of n, the terms so far, is set (a binary counter). Held whole, blobwars's
 * 1,524 joint moves' terms for 413 nodes filled the 4M-node table. x's reference taken. */
#define OR_LEVELS 32
static void or_push(dd_t *d, dd_ref *levels, uint32_t n, dd_ref x) {
    uint32_t k = 0;
    for (; n >> k & 1; k++) {
        dd_ref t = dd_or(d, levels[k], x);
        dd_deref(d, levels[k]), dd_deref(d, x);
        x = t;
    }
    levels[k] = x;
}

/* The OR of every level of n terms (their references taken). */
static dd_ref or_pop(dd_t *d, dd_ref *levels, uint32_t n) {
    dd_ref all = DD_FALSE;
    for (uint32_t k = 0; k < OR_LEVELS; k++)
        if (n >> k & 1) {
            dd_ref t = dd_or(d, all, levels[k]);
            dd_deref(d, all), dd_deref(d, levels[k]);
            all = t;
        }
    return all;
}

/* The next value of state variable v: its fluent's next function, or for a bit of a code
 * the OR of the next functions of the values whose code has that bit, balanced (the same
 * set): ORed one after the other, kalaha_2009's counters' bits (about 180 values each) took
 * 3.5 of the network's 12 CPU seconds (509d407, --next joint), most of it in collections. */
static dd_ref next_of_var(bddnet_t *bn, uint32_t v) {
    dd_ref lv[OR_LEVELS] = {0};
    uint32_t n = 0;
    for (uint32_t k = bn->var_start[v]; k < bn->var_start[v + 1]; k++, n++)
        or_push(bn->d, lv, n, dd_dup(bn->d, bn->next[bn->var_fluent[k]]));
    return or_pop(bn->d, lv, n);
}

/* The assignments that are states: every code at most its group's size. */
static dd_ref valid_codes(bddnet_t *bn) {
    dd_ref all = DD_TRUE;
    for (uint32_t g = 0; g < bn->n_groups; g++) {
        const group_t *gr = &bn->groups[g];
        if (!gr->coded || gr->n + 1 == 1u << gr->n_vars) continue;
        dd_ref any = DD_FALSE;
        for (uint32_t c = 0; c <= gr->n; c++) {
            dd_ref x = group_code(bn, gr, c), t = dd_or(bn->d, any, x);
            dd_deref(bn->d, x), dd_deref(bn->d, any);
            any = t;
        }
        dd_ref t = dd_and(bn->d, all, any);
        dd_deref(bn->d, any), dd_deref(bn->d, all);
        all = t;
    }
    return all;
}

/* At the state: legal and next (and the bodies of the restricted rules). */
static bool eval_current(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    eval_init(bn, &bn->cur, false);
    bn->by_joint = false, bn->n_next_joints = 0; /* a new attempt decides again */
    bn->n_move_set_rules = 0;
    uint32_t *stack = xmalloc((net->n_nodes + 1) * sizeof *stack);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        if (bn->cone[f]) mark(bn, bn->cur.need, net->next_node[f], stack);
    for (uint32_t r = 0; r < net->n_roles; r++)
        for (uint32_t k = 0; k < net->n_moves[r]; k++)
            mark(bn, bn->cur.need, net->legal_node[r][k], stack);
    for (uint32_t r = 0; r < net->n_rules; r++)
        if (bn->restrictable[r])
            for (uint32_t l = net->lit_start[r]; l < net->lit_start[r + 1]; l++)
                mark(bn, bn->cur.need, net->lits[l] >> 1, stack);
    free(stack);
    eval_inputs(bn, &bn->cur, NULL);
    return eval_blocks(bn, &bn->cur, 0, net->n_state_blocks) && eval_moves(bn);
}

/* The next functions from the nodes' values at the state. */
static void keep_next(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    bn->next = xmalloc((net->n_fluents + 1) * sizeof *bn->next);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        bn->next[f] = bn->cone[f] ? node_value(bn, &bn->cur, net->next_node[f])
                                  : dd_dup(bn->d, bn->fluent[f]); /* outside: as it is */
}

/* At the successor in part pt of joint move jm: terminal and the goals. The inputs are the
 * state's fluents with the part's cube set, or the next functions fixed to the move. The
 * network's values there go to *out (left empty where cond is false): the caller frees them. */
static bool eval_successor(bddnet_t *bn, const joint_t *jm, part_t *pt, eval_t *out) {
    const gnet_t *net = bn->net;
    dd_t *d = bn->d;
    if (pt->cond == DD_FALSE) { /* no state kept has it (a horizon, a start): nothing to say */
        pt->goal = xcalloc(net->n_roles + 1, sizeof *pt->goal);
        for (uint32_t r = 0; r < net->n_roles; r++)
            pt->goal[r] = xcalloc(net->n_goals[r] + 1, sizeof **pt->goal); /* DD_FALSE */
        return true;
    }
    eval_t nx;
    eval_init(bn, &nx, true);
    uint32_t *stack = xmalloc((net->n_nodes + 1) * sizeof *stack);
    mark(bn, nx.need, net->terminal, stack);
    for (uint32_t r = 0; r < net->n_roles; r++)
        for (uint32_t k = 0; k < net->n_goals[r]; k++)
            mark(bn, nx.need, net->goals[r][k].node, stack);
    free(stack);
    dd_ref *inputs = xmalloc((net->n_fluents + 1) * sizeof *inputs);
    for (uint32_t f = 0; f < net->n_fluents; f++)
        inputs[f] = pt->assign != DD_NONE ? dd_restrict(d, bn->fluent[f], pt->assign)
                                          : dd_restrict(d, bn->next[f], jm->code);
    bool ok = eval_network(bn, &nx, inputs);
    deref_all(d, inputs, net->n_fluents);
    pt->goal = xcalloc(net->n_roles + 1, sizeof *pt->goal);
    if (ok) {
        pt->term = node_value(bn, &nx, net->terminal);
        ok = pt->term >= 0;
        for (uint32_t r = 0; r < net->n_roles; r++) {
            pt->goal[r] = xmalloc((net->n_goals[r] + 1) * sizeof **pt->goal);
            for (uint32_t k = 0; k < net->n_goals[r]; k++)
                pt->goal[r][k] = node_value(bn, &nx, net->goals[r][k].node);
        }
    }
    *out = nx; /* the caller's: the targets read the unknowns' rules at the successor */
    return ok;
}

/* next_var and the groups' made per joint move: none yet. */
static void alloc_next(bddnet_t *bn) {
    bn->next_var = xmalloc((bn->n_vars + 1) * sizeof *bn->next_var);
    for (uint32_t v = 0; v < bn->n_vars; v++)
        bn->next_var[v] = DD_NONE;
    bn->gr_amo = xmalloc((bn->n_groups + 1) * sizeof *bn->gr_amo);
    bn->gr_any = xmalloc((bn->n_groups + 1) * sizeof *bn->gr_any);
    for (uint32_t g = 0; g < bn->n_groups; g++)
        bn->gr_amo[g] = bn->gr_any[g] = DD_NONE;
    bn->n_by_bits = 0;
}

static void free_next(bddnet_t *bn) {
    deref_all(bn->d, bn->next_var, bn->next_var ? bn->n_vars : 0);
    deref_all(bn->d, bn->gr_amo, bn->gr_amo ? bn->n_groups : 0);
    deref_all(bn->d, bn->gr_any, bn->gr_any ? bn->n_groups : 0);
    bn->next_var = bn->gr_amo = bn->gr_any = NULL;
}

static void alloc_roles(bddnet_t *bn) {
    uint32_t nr = bn->net->n_roles;
    bn->legal = xcalloc(nr + 1, sizeof *bn->legal);
    bn->legal_rel = xcalloc(nr + 1, sizeof *bn->legal_rel);
    bn->mcube = xcalloc(nr + 1, sizeof *bn->mcube);
    bn->values = xcalloc(nr + 1, sizeof *bn->values);
    bn->n_values = xcalloc(nr + 1, sizeof *bn->n_values);
    bn->moves_here = xmalloc((nr + 1) * sizeof *bn->moves_here);
    for (uint32_t r = 0; r < nr; r++)
        bn->moves_here[r] = DD_NONE;
}

/* The substitution of the next functions, the state variables' cube (DD_NONE where a code
 * bit's next function, the OR of its values', gave up: outputs_ok then fails the network,
 * where a false one would have made every pre-image wrong), the valid codes. */
static void keep_transition(bddnet_t *bn) {
    dd_t *d = bn->d;
    uint32_t *sv = xmalloc((bn->n_vars + 1) * sizeof *sv), ns = 0;
    bool ok = true;
    bn->subst = dd_subst_new(d);
    for (uint32_t v = 0; v < bn->n_vars; v++) {
        if (bn->var_start[v] == bn->var_start[v + 1]) continue; /* a move code */
        sv[ns++] = v;
        if (bn->next_var[v] == DD_NONE) bn->next_var[v] = next_of_var(bn, v);
        dd_ref nx = bn->next_var[v];
        ok = ok && nx >= 0;
        dd_subst_set(d, bn->subst, v, nx < 0 ? DD_FALSE : nx);
    }
    bn->state_vars = ok ? dd_cube(d, sv, NULL, ns) : DD_NONE;
    free(sv);
    bn->inv = valid_codes(bn);
}

/* Did any output at the state give up (the limits)? */
static bool outputs_ok(const bddnet_t *bn) {
    const gnet_t *net = bn->net;
    bool ok = bn->state_vars >= 0 && bn->inv >= 0;
    for (uint32_t f = 0; f < net->n_fluents; f++)
        ok = ok && bn->next[f] >= 0;
    for (uint32_t r = 0; r < net->n_roles; r++)
        ok = ok && bn->legal_rel[r] >= 0 && bn->mcube[r] >= 0;
    return ok;
}

/* ---- mutual exclusion, proven by induction ---- */

/* At most one of x[0 .. n) holds. */
static dd_ref at_most_one(dd_t *d, const dd_ref *xs, uint32_t n) {
    dd_ref none = DD_TRUE, one = DD_FALSE;
    for (uint32_t i = 0; i < n; i++) {
        dd_ref x = xs[i], nx = dd_not(d, x);
        dd_ref a = dd_and(d, one, nx), b = dd_and(d, none, x), one2 = dd_or(d, a, b);
        dd_ref none2 = dd_and(d, none, nx);
        dd_deref(d, nx), dd_deref(d, a), dd_deref(d, b), dd_deref(d, one), dd_deref(d, none);
        one = one2, none = none2;
    }
    dd_ref r = dd_or(d, none, one);
    dd_deref(d, none), dd_deref(d, one);
    return r;
}

/* At most one of group g's next functions holds (made per joint move where next_bits did). */
static dd_ref at_most_one_next(bddnet_t *bn, uint32_t g) {
    if (bn->gr_amo[g] != DD_NONE) return dd_dup(bn->d, bn->gr_amo[g]);
    const group_t *gr = &bn->groups[g];
    dd_ref *xs = xmalloc((gr->n + 1) * sizeof *xs);
    for (uint32_t i = 0; i < gr->n; i++)
        xs[i] = bn->next[bn->sorted[gr->first + i]];
    dd_ref r = at_most_one(bn->d, xs, gr->n);
    free(xs);
    return r;
}

/* The invariant and every role's legal relation, built before `deadline` (and the build's
 * own); DD_NONE past it or a node limit. */
static dd_ref all_legal(bddnet_t *bn, double deadline) {
    dd_t *d = bn->d;
    double keep = dd_deadline(d);
    dd_set_deadline(d, keep > 0 && keep < deadline ? keep : deadline);
    dd_ref all = dd_dup(d, bn->inv);
    for (uint32_t r = 0; r < bn->n_roles && all != DD_NONE; r++) {
        dd_ref t = dd_and(d, all, bn->legal_rel[r]);
        dd_deref(d, all);
        all = t;
    }
    dd_set_deadline(d, keep);
    return all;
}

/* Every code dropped: the network is made again one-hot (no code to prove). How many. */
static int drop_every_code(bddnet_t *bn) {
    int dropped = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++)
        if (bn->groups[g].coded) bn->cand[g] = bn->split[g] = false, dropped++;
    return dropped;
}

/* The cube of every variable of the manager: ∃ over it asks whether a set is empty. */
static dd_ref every_var(bddnet_t *bn) {
    uint32_t n = dd_var_count(bn->d), *v = xmalloc((n + 1) * sizeof *v);
    for (uint32_t k = 0; k < n; k++)
        v[k] = k;
    dd_ref c = dd_cube(bn->d, v, NULL, n);
    free(v);
    return c;
}

/* Some state of the invariant with every role's legal move in bad: DD_TRUE or DD_FALSE
 * (DD_NONE past a limit). The roles' relations ANDed in turn, the last one only asked for
 * emptiness (∃ over every variable): no diagram of the broken states is made. */
static dd_ref by_role(bddnet_t *bn, dd_ref bad, dd_ref every) {
    dd_t *d = bn->d;
    dd_ref x = dd_and(d, bn->inv, bad); /* a game has a role */
    for (uint32_t r = 0; r + 1 < bn->n_roles && x > DD_FALSE; r++) {
        dd_ref t = dd_and(d, x, bn->legal_rel[r]);
        dd_deref(d, x);
        x = t;
    }
    if (x <= DD_FALSE) return x; /* empty, or past a limit */
    dd_ref t = dd_and_exists(d, x, bn->legal_rel[bn->n_roles - 1], every);
    dd_deref(d, x);
    return t;
}

/* The encoding assumes the coded groups exclusive in every state it describes; it is
 * inductive when no such state with a legal joint move makes two values of a coded group
 * true next (the initial state has at most one: a candidate's condition). Terminal states
 * are not excluded (their diagram is not made): a stronger claim, still sound. The
 * invariant and every role's legal relation are ANDed once for all groups where that
 * builds within JOINT_SHARE of the time left (the proofs' CPU s, group by group against
 * once: choicethroughalt 6.9 / 1.2, nineBoardTicTacToePie 13.1 / 0.4, chineseCheckers6 4.4 /
 * 0.05, checkersBarrelNoKings a node limit at 17.4 / 0.6); else, and without a deadline, each
 * group's bad states are ANDed with each role's relation in turn (the relation of every role at
 * once took speedChess past 27 s of CPU, unfinished): the same diagram either way, only the time
 * differs. With nodes left unknown (their legal relations are larger) within INV_SHARE of the time
 * left, else every code is dropped: a layout without codes, tried again, proves nothing (checkers,
 * endgame); without unknowns INV_SHARE_ALONE of it (nineBoardTicTacToe's proof takes half of it
 * at load 3, and its joint moves do not fit in the budget without codes). A node limit with time
 * left drops every code too (knightwar's proof: refused before). Drops the groups that
 * break; returns how many, -1 past the build's deadline. */
static int drop_broken(bddnet_t *bn) {
    dd_t *d = bn->d;
    int dropped = 0;
    if (!bn->n_coded)
        return 0; /* nothing to prove: the legal relations' AND not made (1.4 s
                     of checkers-mustjump's one-hot layout, at load 6) */
    double end = bn->o.deadline;
    dd_ref joint = end > 0 ? all_legal(bn, share_of(end, JOINT_SHARE)) : DD_NONE;
    double inv = bn->n_joined ? INV_SHARE_JOINED : bn->n_unk ? INV_SHARE : INV_SHARE_ALONE;
    if (end > 0) dd_set_deadline(d, share_of(end, inv));
    dd_ref every = every_var(bn);
    uint32_t tried = 0, cells = 0;
    /* the cells first, the joined families last: where most cells break every code is given
     * up before a family's proof, the slower one (shmup's two ships: 6.1 CPU s at --budget 30,
     * past its share, where its 81 cells broke in 0.25 s) */
    for (uint32_t k = 0; k < 2 * bn->n_groups && dropped >= 0; k++) {
        uint32_t g = k % bn->n_groups;
        if ((k < bn->n_groups) == (bn->groups[g].n_fine > 1)) continue;
        if (!bn->groups[g].coded || !bn->cone[bn->sorted[bn->groups[g].first]]) continue;
        dd_ref ok = at_most_one_next(bn, g), bad = dd_not(d, ok);
        dd_ref broken = DD_NONE;
        if (joint != DD_NONE)
            broken = dd_and_exists(d, joint, bad, every);
        else
            broken = by_role(bn, bad, every);
        if (broken < 0) dropped = -1;
        bool joined = bn->groups[g].n_fine > 1;
        if (broken > 0 && joined)
            bn->split[g] = true; /* its cells tried again (regroup) */
        else if (broken > 0)
            bn->cand[g] = false, cells++;
        dropped += broken > 0;
        dd_deref(d, ok), dd_deref(d, bad), dd_deref(d, broken);
        tried += !joined; /* a family that breaks says nothing of its cells' codes */
        if (dropped >= 0 && tried >= BREAK_SEEN && 2 * cells > tried && bn->n_coded > BREAK_FEW) {
            if (bn->o.trace)
                fprintf(bn->o.trace, "# trace codes given up: %u of the first %u broke\n", cells,
                        tried);
            dropped = -1; /* most break: one-hot (below) */
        }
    }
    dd_deref(d, joint), dd_deref(d, every);
    dd_set_deadline(d, end);
    if (dropped >= 0 || (end > 0 && now_seconds() >= end)) return dropped;
    return drop_every_code(bn); /* the share, a node limit with time left, most broken */
}

/* ---- implications between groups, proven by induction (a care set) ---- */

/* A group's atom: some value holds (a code not 0), or an uncoded fluent (some value next:
 * made per joint move where next_bits did). */
static bddinv_atom_t group_atom(bddnet_t *bn, uint32_t g, uint32_t i) {
    dd_t *d = bn->d;
    const group_t *gr = &bn->groups[g];
    bool made = gr->coded && bn->gr_any[g] != DD_NONE;
    bddinv_atom_t at = {.now = DD_FALSE, .next = made ? dd_dup(d, bn->gr_any[g]) : DD_FALSE};
    for (uint32_t k = gr->coded ? 0 : i; k < (gr->coded ? gr->n : i + 1); k++) {
        uint32_t f = bn->sorted[gr->first + k];
        dd_ref a = dd_or(d, at.now, bn->fluent[f]);
        dd_deref(d, at.now);
        at.now = a, at.init = at.init || in_init(bn->net, f);
        if (made) continue; /* its next: gr_any already */
        dd_ref b = dd_or(d, at.next, bn->next[f]);
        dd_deref(d, at.next);
        at.next = b;
    }
    return at;
}

/* The invariant gets the implications between groups ("a piece here has one under it")
 * that hold initially and after every legal joint move: the junk states they exclude make
 * a drop land in every gap of a column (many parts per move) and every set larger. None
 * when they are not proven within IMPL_SHARE of the time left or the node limits; false
 * past the build's deadline. */
static bool add_implications(bddnet_t *bn) {
    dd_t *d = bn->d;
    uint32_t n = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++)
        n += bn->groups[g].coded ? 1 : bn->groups[g].n;
    bddinv_atom_t *at = xmalloc((n + 1) * sizeof *at);
    /* the share holds from here: in chess the atoms and the legal relations' context cost
     * more than the proof (speedChess: 22 s of CPU before the share was set) */
    double end = bn->o.deadline;
    dd_set_deadline(d, share_of(end, IMPL_SHARE));
    n = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++) /* outside the cone: next is not built */
        for (uint32_t i = 0; bn->cone[bn->sorted[bn->groups[g].first]] &&
                             i < (bn->groups[g].coded ? 1 : bn->groups[g].n);
             i++)
            at[n++] = group_atom(bn, g, i);
    dd_ref ctx = dd_dup(d, bn->inv);
    for (uint32_t r = 0; r < bn->n_roles; r++) {
        dd_ref t = dd_and(d, ctx, bn->legal_rel[r]);
        dd_deref(d, ctx);
        ctx = t;
    }
    dd_ref h = bddinv_implications(d, at, n, ctx, &bn->n_implied);
    dd_ref t = dd_and(d, bn->inv, h);
    dd_set_deadline(d, end);
    for (uint32_t k = 0; k < n; k++)
        dd_deref(d, at[k].now), dd_deref(d, at[k].next);
    free(at);
    dd_deref(d, ctx), dd_deref(d, h);
    if (t == DD_NONE) { /* none then: a weaker invariant, the same sets within it */
        bn->n_implied = 0;
        return !(end > 0 && now_seconds() > end);
    }
    dd_deref(d, bn->inv);
    bn->inv = t;
    return true;
}

/* ---- joint moves ---- */

static void free_joints(bddnet_t *bn);

static joint_t *new_joint(bddnet_t *bn) {
    joint_t *jm = &bn->joints[bn->n_joints++];
    jm->legal = xcalloc(bn->n_roles + 1, sizeof *jm->legal);
    jm->move = xcalloc(bn->n_roles + 1, sizeof *jm->move);
    return jm;
}

/* Splitting a joint move's states into parts (see part_t): state variable by variable,
 * where the move changes it in some states of a part and not in others, the part splits
 * into both; where it changes it everywhere, the variable's old value must be one constant
 * (else the part splits by it), and the new one is the cube's. */
typedef struct {
    bddnet_t *bn;
    joint_t *jm;
    const dd_ref *nx; /* per variable: its next function fixed to the move (DD_NONE: none) */
    uint32_t *vars, depth, cap;
    bool *vals;
    bool ok; /* false: an operation gave up, or more than cap parts */
} split_t;

static void add_part(split_t *s, dd_ref cond) {
    joint_t *jm = s->jm;
    if (jm->n_parts == s->cap) {
        s->ok = false;
        return;
    }
    dd_ref cube = dd_cube(s->bn->d, s->vars, s->vals, s->depth);
    s->ok = cube >= 0;
    jm->parts[jm->n_parts++] =
        (part_t){.cond = dd_dup(s->bn->d, cond), .assign = cube, .term = DD_FALSE};
}

static void split(split_t *s, dd_ref c, uint32_t v);

static void split_by(split_t *s, dd_ref c, dd_ref by, uint32_t v) {
    dd_t *d = s->bn->d;
    dd_ref no = dd_not(d, by), a = dd_and(d, c, by), b = dd_and(d, c, no);
    s->ok = a >= 0 && b >= 0;
    if (s->ok) split(s, a, v);
    if (s->ok) split(s, b, v);
    dd_deref(d, no), dd_deref(d, a), dd_deref(d, b);
}

static void split(split_t *s, dd_ref c, uint32_t v) {
    bddnet_t *bn = s->bn;
    dd_t *d = bn->d;
    uint32_t depth = s->depth;
    bool leaf = true;
    for (; v < bn->n_vars && s->ok && leaf && c != DD_FALSE; v++) {
        if (s->nx[v] == DD_NONE) continue;
        dd_ref x = dd_var(d, v), same = dd_biimp(d, s->nx[v], x), diff = dd_not(d, same);
        dd_ref ch = dd_and(d, c, diff), hi = DD_FALSE;
        dd_deref(d, same), dd_deref(d, diff);
        s->ok = ch >= 0;
        if (s->ok && ch != DD_FALSE && ch != c) { /* changed in some states only */
            split_by(s, c, ch, v);
            leaf = false;
        } else if (s->ok && ch == c) {
            hi = dd_and(d, c, x);
            s->ok = hi >= 0;
            if (s->ok && hi != DD_FALSE && hi != c) { /* the old value varies */
                split_by(s, c, x, v);
                leaf = false;
            } else {
                s->vars[s->depth] = v, s->vals[s->depth++] = hi == DD_FALSE; /* it flips */
            }
        }
        dd_deref(d, ch), dd_deref(d, hi);
    }
    if (leaf && s->ok && c != DD_FALSE) add_part(s, c);
    s->depth = depth;
}

/* jm's parts' states within the invariant (the reachable states, when the parts were
 * split within split_inv: a part no kept state has is then empty, its successor never made;
 * left within split_inv, smaller, they made connectFour's --horizon 11 cost 7% more
 * instructions, callgrind); false when an operation gave up. */
static bool parts_within(bddnet_t *bn, joint_t *jm) {
    if (bn->split_inv == DD_NONE) return true;
    bool ok = true;
    for (uint32_t p = 0; p < jm->n_parts; p++) {
        part_t *pt = &jm->parts[p];
        dd_ref c = dd_and(bn->d, pt->cond, bn->inv);
        ok = ok && c >= 0;
        dd_deref(bn->d, pt->cond);
        pt->cond = c;
    }
    return ok;
}

/* The parts of jm from its next functions nx (per variable), split within split_inv (the
 * invariant without the reachable states: their diagram is large, and a split ANDs at every
 * variable the move sets: connectFour's --horizon 12 spent 62% of its time there); false
 * when an operation gave up (one part when more than cap: where jm is legal, the
 * substitution). */
static bool make_parts(bddnet_t *bn, joint_t *jm, const dd_ref *nx) {
    dd_t *d = bn->d;
    uint32_t cap = bn->o.max_parts ? bn->o.max_parts : 64;
    jm->parts = xcalloc(cap + 1, sizeof *jm->parts);
    dd_ref c = dd_dup(d, bn->split_inv != DD_NONE ? bn->split_inv : bn->inv);
    for (uint32_t r = 0; r < bn->n_roles && c >= 0; r++) {
        dd_ref t = dd_and(d, c, jm->legal[r]);
        dd_deref(d, c);
        c = t;
    }
    split_t s = {.bn = bn,
                 .jm = jm,
                 .nx = nx,
                 .vars = xmalloc((bn->n_vars + 1) * sizeof *s.vars),
                 .vals = xmalloc((bn->n_vars + 1) * sizeof *s.vals),
                 .cap = cap,
                 .ok = c >= 0};
    if (s.ok) split(&s, c, 0);
    free(s.vars), free(s.vals);
    if (!s.ok) { /* one part: the substitution */
        for (uint32_t p = 0; p < jm->n_parts; p++)
            dd_deref(d, jm->parts[p].cond), dd_deref(d, jm->parts[p].assign);
        jm->n_parts = 1;
        jm->parts[0] = (part_t){.cond = c, .assign = DD_NONE, .term = DD_FALSE};
        return c >= 0 && parts_within(bn, jm);
    }
    dd_deref(d, c);
    return parts_within(bn, jm);
}

/* A joint move some state allows: its legality per role (its next functions and parts are
 * made when a step first reads it: make_joint). */
static void add_joint(bddnet_t *bn, const uint32_t *k, dd_ref code) {
    dd_t *d = bn->d;
    joint_t *jm = new_joint(bn);
    jm->code = dd_dup(d, code);
    for (uint32_t r = 0; r < bn->n_roles; r++)
        jm->move[r] = k[r], jm->legal[r] = dd_dup(d, bn->legal[r][k[r]]);
}

/* The joint move's next functions fixed to it and its parts; false when an operation gave
 * up (nothing kept then). */
static bool make_joint(bddnet_t *bn, joint_t *jm) {
    dd_t *d = bn->d;
    jm->subst = dd_subst_new(d);
    dd_ref *nx = xmalloc((bn->n_vars + 1) * sizeof *nx);
    bool ok = true;
    for (uint32_t v = 0; v < bn->n_vars; v++) {
        nx[v] = DD_NONE;
        if (bn->var_start[v] == bn->var_start[v + 1] || !ok) continue;
        nx[v] = dd_restrict(d, bn->next_var[v], jm->code);
        ok = nx[v] >= 0;
        if (ok) dd_subst_set(d, jm->subst, v, nx[v]);
    }
    ok = ok && make_parts(bn, jm, nx);
    for (uint32_t v = 0; v < bn->n_vars; v++)
        if (nx[v] != DD_NONE) dd_deref(d, nx[v]);
    free(nx);
    if (!ok) {
        for (uint32_t p = 0; p < jm->n_parts; p++)
            dd_deref(d, jm->parts[p].cond), dd_deref(d, jm->parts[p].assign);
        FREE_AND_NULL(free, jm->parts);
        jm->n_parts = 0;
        dd_subst_free(d, jm->subst);
        jm->subst = NULL;
        return false;
    }
    jm->state = JOINT_MADE;
    bn->n_parts += jm->n_parts;
    return true;
}

/* The joint moves some state allows, role by role from the first, a partial joint move
 * dropped as soon as no state allows it (turn-taking: the mover's moves with the others'
 * no-ops, not the whole product); false when more than the cap are found. */
typedef struct {
    uint32_t *k;
    uint64_t found, cap;
    bool ok;
} joints_dfs_t;

static void joints_from(bddnet_t *bn, joints_dfs_t *s, uint32_t r, dd_ref both, dd_ref code) {
    dd_t *d = bn->d;
    if (r == bn->n_roles) {
        if (++s->found <= s->cap) add_joint(bn, s->k, code);
        return;
    }
    for (uint32_t m = 0; m < bn->net->n_moves[r] && s->ok && s->found <= s->cap; m++) {
        s->k[r] = m;
        dd_ref t = dd_and(d, both, bn->legal[r][m]), c = move_code(bn, r, m);
        dd_ref u = dd_and(d, code, c);
        s->ok = t >= 0 && u >= 0;
        if (s->ok && t != DD_FALSE) joints_from(bn, s, r + 1, t, u);
        dd_deref(d, t), dd_deref(d, c), dd_deref(d, u);
    }
}

static uint32_t joints_cap(const bddnet_t *bn) {
    return bn->o.max_per_move ? bn->o.max_per_move : 4096;
}

static bool per_move(bddnet_t *bn, bool *ok) {
    joints_dfs_t s = {
        .k = xcalloc(bn->n_roles + 1, sizeof *s.k), .cap = joints_cap(bn), .ok = true};
    bn->joints = xcalloc(s.cap + 1, sizeof *bn->joints);
    joints_from(bn, &s, 0, bn->inv, DD_TRUE);
    free(s.k);
    *ok = s.ok;
    if (s.found <= s.cap || !s.ok) return true;
    free_joints(bn); /* too many: SUBST */
    return false;
}

/* SUBST: one pseudo joint move, the move codes free. */
static bool all_moves(bddnet_t *bn) {
    bn->joints = xcalloc(2, sizeof *bn->joints);
    joint_t *jm = new_joint(bn);
    jm->code = DD_TRUE;
    jm->parts = xcalloc(2, sizeof *jm->parts);
    jm->n_parts = 1;
    jm->parts[0] = (part_t){.cond = DD_TRUE, .assign = DD_NONE, .term = DD_FALSE};
    jm->state = JOINT_MADE;
    bn->n_parts = 1;
    return true;
}

/* The joint moves listed by next_by_joint (within valid codes) that some state of the
 * invariant allows (it may hold implications since): each one's legality checked, where
 * listing them again tries every move of each role after each prefix (4pttc: 1.6 of the
 * network's 7.7 CPU s). True, or false when an operation gave up. */
static bool kept_joints(bddnet_t *bn, bool *ok) {
    dd_t *d = bn->d;
    uint32_t n = 0;
    for (uint32_t j = 0; j < bn->n_joints; j++) {
        joint_t *jm = &bn->joints[j];
        dd_ref c = dd_dup(d, bn->inv);
        for (uint32_t r = 0; r < bn->n_roles && c > DD_FALSE; r++) {
            dd_ref t = dd_and(d, c, jm->legal[r]);
            dd_deref(d, c);
            c = t;
        }
        *ok = *ok && c >= 0;
        dd_deref(d, c);
        if (c == DD_FALSE) { /* no state allows it */
            dd_deref(d, jm->code);
            deref_all(d, jm->legal, bn->n_roles);
            free(jm->move);
        } else
            bn->joints[n++] = *jm;
    }
    bn->n_joints = n;
    return true;
}

/* The joint moves one by one within JOINTS_SHARE of the time left, else (too many, or
 * past the share with time left) SUBST. */
static bool make_joints(bddnet_t *bn) {
    bool ok = true;
    if (bn->o.image == BDDNET_PER_MOVE) {
        dd_t *d = bn->d;
        double end = dd_deadline(d);
        dd_set_deadline(d, share_of(end, JOINTS_SHARE));
        bool done = bn->n_joints ? kept_joints(bn, &ok) : per_move(bn, &ok);
        dd_set_deadline(d, end);
        bool share = !ok && end > 0 && dd_out_of_time(d) && now_seconds() < end;
        if (done && !share) return ok;
        if (done) free_joints(bn), ok = true; /* past the share: SUBST */
    }
    bn->o.image = BDDNET_SUBST;
    return all_moves(bn);
}

static void free_goals(bddnet_t *bn, part_t *pt) {
    for (uint32_t r = 0; pt->goal && r < bn->n_roles; r++)
        deref_all(bn->d, pt->goal[r], pt->goal[r] ? bn->net->n_goals[r] : 0);
    FREE_AND_NULL(free, pt->goal);
    dd_deref(bn->d, pt->raw);
    pt->raw = DD_FALSE;
}

static void free_joints(bddnet_t *bn) {
    dd_t *d = bn->d;
    for (uint32_t j = 0; j < bn->n_joints; j++) {
        joint_t *jm = &bn->joints[j];
        dd_deref(d, jm->code);
        dd_subst_free(d, jm->subst);
        deref_all(d, jm->legal, bn->n_roles);
        for (uint32_t p = 0; p < jm->n_parts; p++) {
            part_t *pt = &jm->parts[p];
            dd_deref(d, pt->cond), dd_deref(d, pt->assign), dd_deref(d, pt->term);
            free_goals(bn, pt);
            deref_all(d, pt->target, pt->target ? bn->n_targets : 0);
        }
        free(jm->parts), free(jm->move);
    }
    free(bn->joints);
    bn->joints = NULL, bn->n_joints = 0;
}

/* ---- the states reachable, ignoring terminal ----
 *
 * Forward breadth-first search from the initial state over every legal joint move, terminal
 * states expanded too (their successors only add states: still a superset of the reachable
 * ones, and a much smaller diagram than the exact set, which in connect four would hold
 * "no line yet"). The sets are kept within it: no junk (floating pieces, wrong counts). The
 * successor copies of the state variables serve the images. */

static dd_ref joint_relation(bddnet_t *bn, const joint_t *jm) {
    dd_t *d = bn->d;
    dd_ref rel = DD_TRUE;
    for (uint32_t r = 0; r < bn->n_roles; r++) {
        dd_ref t = dd_and(d, rel, bn->o.image == BDDNET_PER_MOVE ? jm->legal[r] : bn->legal_rel[r]);
        dd_deref(d, rel);
        rel = t;
    }
    for (uint32_t v = 0; v < bn->n_vars && rel > 0; v++) {
        if (bn->var_start[v] == bn->var_start[v + 1]) continue;
        dd_ref f = dd_restrict(d, bn->next_var[v], jm->code);
        dd_ref eq = dd_biimp(d, dd_var(d, v + 1), f), t = dd_and(d, rel, eq);
        dd_deref(d, f), dd_deref(d, eq), dd_deref(d, rel);
        rel = t;
    }
    return rel;
}

/* The forward search's first state: opts.start, or the initial state. */
static dd_ref start_state(bddnet_t *bn) {
    dd_t *d = bn->d;
    const uint64_t *w = bn->o.start;
    dd_ref s = DD_TRUE;
    for (uint32_t f = 0; f < bn->net->n_fluents; f++) {
        if (!bn->cone[f]) continue; /* free: its next function is not built */
        bool on = w ? w[f / 64] >> (f % 64) & 1 : in_init(bn->net, f);
        dd_ref lit = on ? dd_dup(d, bn->fluent[f]) : dd_not(d, bn->fluent[f]);
        dd_ref t = dd_and(d, s, lit);
        dd_deref(d, lit), dd_deref(d, s);
        s = t;
    }
    return s;
}

/* The successors of F under every joint move. */
static dd_ref image(bddnet_t *bn, dd_ref f, const dd_ref *rel, dd_ref quant,
                    const dd_subst_t *back) {
    dd_t *d = bn->d;
    dd_ref all = DD_FALSE;
    for (uint32_t j = 0; j < bn->n_joints && all >= 0; j++) {
        dd_ref primed = dd_and_exists(d, f, rel[j], quant), img = dd_rename(d, primed, back);
        dd_ref t = dd_or(d, all, img);
        dd_deref(d, primed), dd_deref(d, img), dd_deref(d, all);
        all = t;
    }
    return all;
}

/* Layer by layer until no new state or the horizon; DD_NONE past the deadline or (no
 * horizon) REACH_NODES. */
static dd_ref reach_from(bddnet_t *bn, const dd_ref *rel, dd_ref quant, const dd_subst_t *back) {
    dd_t *d = bn->d;
    dd_ref r = start_state(bn), front = dd_dup(d, r);
    bn->local = bn->o.start != NULL;
    bool capped = false;
    while (front > 0) {
        bn->upto = xrealloc(bn->upto, (bn->n_upto + 1) * sizeof *bn->upto);
        bn->upto[bn->n_upto++] = dd_dup(d, r);
        if (bn->o.horizon && bn->reach_layers == bn->o.horizon) {
            bn->local = true;
            break;
        }
        if (bn->o.cut_reach && bn->reach_layers == bn->o.cut_reach) dd_cut_next(d);
        dd_ref next = image(bn, front, rel, quant, back), nr = dd_not(d, r);
        dd_ref fresh = dd_and(d, next, nr), t = dd_or(d, r, fresh);
        dd_deref(d, next), dd_deref(d, nr), dd_deref(d, front), dd_deref(d, r);
        front = fresh, r = t;
        bn->reach_layers++;
        if (bn->o.trace && r > 0) /* without a budget, its progress */
            fprintf(bn->o.trace, "# trace reach layer=%u nodes=%llu\n", bn->reach_layers,
                    (unsigned long long)dd_nodes(d, r));
        if (!bn->o.horizon && r > 0 && dd_nodes(d, r) > REACH_NODES) { /* it will not pay */
            dd_deref(d, front);
            front = DD_NONE, capped = true;
        }
    }
    /* given up at the deadline (out of time: the states may still be few), or past a node
     * cap (REACH_NODES, one operation's: too many) */
    if (front < 0) bn->reach_late = !capped && dd_out_of_time(d);
    if (front < 0) dd_deref(d, r), r = DD_NONE;
    dd_deref(d, front);
    return r;
}

static void free_upto(bddnet_t *bn) {
    deref_all(bn->d, bn->upto, bn->n_upto); /* frees the array */
    bn->upto = NULL, bn->n_upto = 0, bn->local = false;
}

/* Every part's states within the reachable ones: the successors' terminal and goals are
 * then made where they matter only, and every pre-image stays within them. */
static void within_reach(bddnet_t *bn) {
    for (uint32_t j = 0; j < bn->n_joints; j++)
        for (uint32_t p = 0; p < bn->joints[j].n_parts; p++) {
            part_t *pt = &bn->joints[j].parts[p];
            dd_ref c = dd_and(bn->d, pt->cond, bn->inv);
            if (c < 0) continue; /* keeps the larger one: still right, within inv at the end */
            dd_deref(bn->d, pt->cond);
            pt->cond = c;
        }
}

/* Within the deadline of opts.reach_deadline, else no restriction. */
static void compute_reach(bddnet_t *bn) {
    dd_t *d = bn->d;
    double t0 = now_seconds();
    bn->reach = DD_TRUE, bn->reach_late = false;
    if (!bn->o.reach) return;
    dd_set_deadline(d, bn->o.reach_deadline);
    dd_ref *rel = xcalloc(bn->n_joints + 1, sizeof *rel);
    for (uint32_t j = 0; j < bn->n_joints; j++)
        rel[j] = joint_relation(bn, &bn->joints[j]);
    if (bn->o.trace)
        fprintf(bn->o.trace, "# trace reach relations=%u nodes=%llu seconds=%.3f\n", bn->n_joints,
                (unsigned long long)dd_nodes_shared(d, rel, bn->n_joints), now_seconds() - t0);
    uint32_t *qv = xmalloc((bn->n_vars + bn->o.unknowns + 1) * sizeof *qv), nq = 0;
    dd_subst_t *back = dd_subst_new(d);
    for (uint32_t k = 0; k < bn->o.unknowns; k++) /* any value: a superset */
        qv[nq++] = bn->n_vars + 2 * k;            /* every slot, taken or not */
    for (uint32_t v = 0; v < bn->n_vars; v++) {
        bool state = bn->var_start[v] != bn->var_start[v + 1];
        bool code = !state && !(bn->stride == 2 && v && bn->var_start[v - 1] != bn->var_start[v]);
        if (state) dd_subst_rename(d, back, v + 1, v);
        if (state || (code && bn->o.image == BDDNET_SUBST)) qv[nq++] = v;
    }
    dd_ref quant = dd_cube(d, qv, NULL, nq);
    dd_ref r = reach_from(bn, rel, quant, back);
    dd_set_deadline(d, bn->o.deadline);
    if (r >= 0) {
        dd_ref t = dd_and(d, bn->inv, r);
        if (t >= 0) bn->split_inv = bn->inv, bn->inv = t, bn->reach = dd_dup(d, r);
        if (t < 0) bn->reach_late = dd_out_of_time(d);
        dd_deref(d, r);
        if (t >= 0) within_reach(bn);
    }
    if (r < 0 || !bn->local) free_upto(bn);
    for (uint32_t k = 0; k < bn->n_upto; k++) {
        dd_ref t = dd_and(d, bn->upto[k], bn->inv);
        dd_deref(d, bn->upto[k]);
        bn->upto[k] = t;
    }
    dd_deref(d, quant);
    dd_subst_free(d, back);
    deref_all(d, rel, bn->n_joints);
    free(qv);
    dd_set_deadline(d, bn->o.deadline);
    bn->reach_seconds = now_seconds() - t0;
}

bool bddnet_restart(bddnet_t *bn, const uint64_t *start, double reach_deadline) {
    dd_t *d = bn->d;
    if (bn->split_inv != DD_NONE) { /* the invariant before the last start's states */
        dd_deref(d, bn->inv);
        bn->inv = bn->split_inv, bn->split_inv = DD_NONE;
    }
    dd_deref(d, bn->reach);
    free_upto(bn);
    bn->reach_layers = 0;
    if (start) bn->o.cut_reach = 0; /* a test's cut of the search from the initial state */
    bn->o.start = start, bn->o.reach_deadline = reach_deadline;
    compute_reach(bn);  /* the parts made so far cut to the new states too (within_reach) */
    bn->o.start = NULL; /* (the caller's words: read by compute_reach only) */
    return bn->reach != DD_TRUE;
}

/* ---- building ---- */

/* Everything made from the network's diagrams (a rebuild starts again from here). */
static void free_outputs(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    dd_t *d = bn->d;
    free_joints(bn);
    for (uint32_t m = 0; m < bn->n_masks; m++)
        dd_deref(d, bn->masks[m].legal), dd_deref(d, bn->masks[m].cube);
    bn->n_masks = 0;
    for (uint32_t r = 0; bn->legal && r < net->n_roles; r++) {
        deref_all(d, bn->legal[r], bn->legal[r] ? net->n_moves[r] : 0);
        dd_deref(d, bn->legal_rel[r]), dd_deref(d, bn->mcube[r]);
        if (bn->moves_here[r] != DD_NONE) dd_deref(d, bn->moves_here[r]);
        free(bn->values[r]);
    }
    deref_all(d, bn->next, bn->next ? net->n_fluents : 0);
    free_next(bn);
    deref_all(d, bn->fluent, bn->fluent ? net->n_fluents : 0);
    dd_deref(d, bn->state_vars), dd_deref(d, bn->inv), dd_deref(d, bn->reach);
    if (bn->split_inv != DD_NONE) dd_deref(d, bn->split_inv);
    bn->split_inv = DD_NONE;
    free_upto(bn);
    dd_subst_free(d, bn->subst);
    free(bn->legal), free(bn->legal_rel), free(bn->values), free(bn->n_values);
    free(bn->moves_here), free(bn->mcube);
    eval_fini(bn, &bn->cur);
    bn->legal = NULL, bn->legal_rel = NULL, bn->values = NULL, bn->n_values = NULL;
    bn->moves_here = NULL, bn->mcube = NULL, bn->next = NULL, bn->fluent = NULL;
    bn->subst = NULL;
    bn->state_vars = bn->inv = bn->reach = DD_FALSE;
    dd_deref(d, bn->unk_now), dd_deref(d, bn->unk_next);
    bn->unk_now = bn->unk_next = DD_TRUE;
}

/* --trace: a phase of the build done (ok) or given up, its seconds since the last one,
 * the manager's live nodes (a walk: only when tracing) and what it made. */
static void trace_phase(bddnet_t *bn, const char *phase, bool ok, double *t, const char *what) {
    double now = now_seconds(), c = cpu_seconds();
    if (bn->o.trace) {
        fprintf(bn->o.trace, "# trace build phase=%s ok=%s seconds=%.3f cpu=%.3f live=%llu%s%s\n",
                phase, ok ? "yes" : "no", now - t[0], c - t[1],
                (unsigned long long)dd_live_nodes(bn->d), what ? " " : "", what ? what : "");
        fflush(bn->o.trace);
    }
    t[0] = now, t[1] = c;
}

/* The distinct next nodes of the cone's fluents in the move blocks, in *nodes (the
 * caller frees it); moves[x] (zeroed, the caller's): 1 x is in a move block, 2 listed. */
static uint32_t move_next_nodes(bddnet_t *bn, uint32_t **nodes, uint8_t *moves) {
    const gnet_t *net = bn->net;
    uint32_t n = 0;
    for (uint32_t b = net->n_state_blocks; b < net->n_blocks; b++)
        for (uint32_t i = net->blocks[b].first; i < net->blocks[b].first + net->blocks[b].n; i++)
            moves[net->order[i]] = 1;
    *nodes = xmalloc((net->n_fluents + 1) * sizeof **nodes);
    for (uint32_t f = 0; f < net->n_fluents; f++) {
        uint32_t x = net->next_node[f];
        if (bn->cone[f] && x != GNET_NONE && moves[x] == 1) (*nodes)[n++] = x, moves[x] = 2;
    }
    return n;
}

/* ---- a coded group's code bits per joint move (opts.next_bits) ----
 *
 * A code bit's next function is the OR of its values' (next_of_var), at most one value next
 * the codes' proof (at_most_one_next) and some value next the implications' atom: each over
 * the values' next functions with the move codes free, about 200 a pit in kalaha_2009, each
 * already the OR of 45 joint moves' terms. Made per joint move instead, on that move's small
 * diagrams (a pit the move leaves as it is: its fluents themselves, made once), then ORed
 * under the joint moves' codes: the same diagrams (a code no joint move has: no value next,
 * so at most one). */

typedef struct {
    bool *on;          /* per group: made so (every value's next node in the move blocks) */
    dd_ref *lv;        /* per state variable OR_LEVELS: its terms */
    dd_ref *amo, *any; /* per group OR_LEVELS each */
    dd_ref listed[OR_LEVELS];
    dd_ref *same_var, *same_any; /* the terms of a group the move leaves alone (DD_NONE: not
                                    made yet) */
    uint32_t made, same;         /* --trace: groups' terms made, of them left alone */
    double cpu;
} bits_t;

/* The coded groups in the cone whose every value's next node lies in the move blocks
 * (moves[x] != 0). */
static uint32_t bits_on(bddnet_t *bn, const uint8_t *moves, bool *on) {
    const gnet_t *net = bn->net;
    uint32_t n = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++) {
        const group_t *gr = &bn->groups[g];
        on[g] = bn->o.next_bits && gr->coded;
        for (uint32_t i = 0; i < gr->n && on[g]; i++) {
            uint32_t f = bn->sorted[gr->first + i], x = net->next_node[f];
            on[g] = bn->cone[f] && x != GNET_NONE && moves[x];
        }
        n += on[g];
    }
    return n;
}

static void bits_init(bddnet_t *bn, bits_t *a, const uint8_t *moves) {
    a->on = xcalloc(bn->n_groups + 1, sizeof *a->on);
    a->made = a->same = 0, a->cpu = 0;
    bn->n_by_bits = bits_on(bn, moves, a->on);
    a->lv = xcalloc((size_t)bn->n_vars * OR_LEVELS + 1, sizeof *a->lv);
    a->amo = xcalloc((size_t)bn->n_groups * OR_LEVELS + 1, sizeof *a->amo);
    a->any = xcalloc((size_t)bn->n_groups * OR_LEVELS + 1, sizeof *a->any);
    memset(a->listed, 0, sizeof a->listed);
    a->same_var = xmalloc((bn->n_vars + 1) * sizeof *a->same_var);
    a->same_any = xmalloc((bn->n_groups + 1) * sizeof *a->same_any);
    for (uint32_t v = 0; v < bn->n_vars; v++)
        a->same_var[v] = DD_NONE;
    for (uint32_t g = 0; g < bn->n_groups; g++)
        a->same_any[g] = DD_NONE;
}

/* Group gr's values' next functions at ev into xs; whether each is its fluent (the move
 * leaves the group as it is). */
static bool group_values(bddnet_t *bn, const eval_t *ev, const group_t *gr, dd_ref *xs) {
    bool same = true;
    for (uint32_t i = 0; i < gr->n; i++) {
        uint32_t f = bn->sorted[gr->first + i];
        xs[i] = ev->v[bn->net->next_node[f]];
        same = same && xs[i] == bn->fluent[f];
    }
    return same;
}

/* The group's values xs[0 .. n) (code c is xs[c - 1]) over the codes [lo, lo + 2^k): *any
 * some value holds there, bits[b] (b < k) some value whose code has bit b; returns at most
 * one holds. Halves by the top bit: its bit the upper half's any, the others both halves'
 * OR, at most one in each and not some in both (per joint move, kalaha_2009: the values ORed
 * per bit and at most one's chain took 4.2 CPU s, their halves 1.8). */
static dd_ref code_halves(dd_t *d, const dd_ref *xs, uint32_t n, uint32_t lo, uint32_t k,
                          dd_ref *bits, dd_ref *any) {
    if (lo > n || k == 0) {
        for (uint32_t b = 0; b < k; b++)
            bits[b] = DD_FALSE;
        *any = lo >= 1 && lo <= n ? dd_dup(d, xs[lo - 1]) : DD_FALSE; /* code 0: none */
        return DD_TRUE;
    }
    dd_ref lb[32], la, ha, lm = code_halves(d, xs, n, lo, k - 1, lb, &la);
    dd_ref hm = code_halves(d, xs, n, lo + (1u << (k - 1)), k - 1, bits, &ha);
    for (uint32_t b = 0; b + 1 < k; b++) {
        dd_ref t = dd_or(d, lb[b], bits[b]);
        dd_deref(d, lb[b]), dd_deref(d, bits[b]);
        bits[b] = t;
    }
    bits[k - 1] = dd_dup(d, ha), *any = dd_or(d, la, ha);
    dd_ref both = dd_and(d, la, ha), m = dd_and(d, lm, hm), r = dd_diff(d, m, both);
    dd_deref(d, la), dd_deref(d, ha), dd_deref(d, lm), dd_deref(d, hm);
    dd_deref(d, both), dd_deref(d, m);
    return r;
}

/* x under the joint move's code, pushed as the done-th term of levels lv; false when an
 * operation gave up. x's reference taken. */
static bool push_coded(dd_t *d, dd_ref *lv, uint32_t done, dd_ref code, dd_ref x) {
    dd_ref t = dd_and(d, code, x);
    dd_deref(d, x);
    or_push(d, lv, done, t);
    return t >= 0;
}

/* Group g's terms at joint move ev (code), the done-th; false when an operation gave up. A
 * group the move leaves alone has its fluents' terms, made once (at most one: true, the
 * codes distinct). */
static bool bits_group(bddnet_t *bn, bits_t *a, const eval_t *ev, uint32_t g, dd_ref code,
                       uint32_t done, dd_ref *xs) {
    dd_t *d = bn->d;
    const group_t *gr = &bn->groups[g];
    bool same = group_values(bn, ev, gr, xs), ok = true;
    a->made++, a->same += same;
    dd_ref bits[32], any, amo = DD_TRUE;
    uint32_t v0 = gr->var;
    if (!same || a->same_any[g] == DD_NONE)
        amo = code_halves(d, xs, gr->n, 0, gr->n_vars, bits, &any);
    if (same && a->same_any[g] == DD_NONE) { /* kept for the next move that leaves it */
        for (uint32_t b = 0; b < gr->n_vars; b++)
            a->same_var[v0 + b * bn->stride] = bits[b];
        a->same_any[g] = any;
    }
    for (uint32_t b = 0; b < gr->n_vars && same; b++)
        bits[b] = dd_dup(d, a->same_var[v0 + b * bn->stride]);
    if (same) any = dd_dup(d, a->same_any[g]), dd_deref(d, amo), amo = DD_TRUE;
    for (uint32_t b = 0; b < gr->n_vars; b++) {
        uint32_t v = v0 + b * bn->stride;
        ok = push_coded(d, a->lv + (size_t)v * OR_LEVELS, done, code, bits[b]) && ok;
    }
    ok = push_coded(d, a->amo + (size_t)g * OR_LEVELS, done, code, amo) && ok;
    return push_coded(d, a->any + (size_t)g * OR_LEVELS, done, code, any) && ok;
}

/* Every group's terms at joint move ev, the done-th; false when an operation gave up. */
static bool bits_joint(bddnet_t *bn, bits_t *a, const eval_t *ev, dd_ref code, uint32_t done) {
    bool ok = true;
    double t0 = cpu_seconds();
    dd_ref *xs = xmalloc((bn->net->n_fluents + 1) * sizeof *xs);
    for (uint32_t g = 0; g < bn->n_groups; g++) /* every group's levels get the term */
        if (a->on[g]) ok = bits_group(bn, a, ev, g, code, done, xs) && ok;
    free(xs);
    or_push(bn->d, a->listed, done, dd_dup(bn->d, code));
    a->cpu += cpu_seconds() - t0;
    return ok;
}

/* The ORs of done terms into next_var, gr_amo (with every code no joint move has) and
 * gr_any; false when one gave up. */
static bool bits_fini(bddnet_t *bn, bits_t *a, uint32_t done) {
    dd_t *d = bn->d;
    dd_ref listed = or_pop(d, a->listed, done), unlisted = dd_not(d, listed);
    bool ok = unlisted >= 0;
    for (uint32_t g = 0; g < bn->n_groups; g++) {
        const group_t *gr = &bn->groups[g];
        for (uint32_t b = 0; b < gr->n_vars && a->on[g]; b++) {
            uint32_t v = gr->var + b * bn->stride;
            bn->next_var[v] = or_pop(d, a->lv + (size_t)v * OR_LEVELS, done);
            ok = ok && bn->next_var[v] >= 0;
        }
        if (!a->on[g]) continue;
        dd_ref amo = or_pop(d, a->amo + (size_t)g * OR_LEVELS, done);
        bn->gr_amo[g] = dd_or(d, amo, unlisted);
        bn->gr_any[g] = or_pop(d, a->any + (size_t)g * OR_LEVELS, done);
        dd_deref(d, amo);
        ok = ok && bn->gr_amo[g] >= 0 && bn->gr_any[g] >= 0;
    }
    dd_deref(d, listed), dd_deref(d, unlisted);
    deref_all(d, a->same_var, bn->n_vars), deref_all(d, a->same_any, bn->n_groups);
    free(a->on), free(a->lv), free(a->amo), free(a->any);
    return ok;
}

/* The move blocks' next nodes per joint move some valid state allows (opts.max_per_move
 * at most), its move inputs the constants: each node the OR over the joint moves of its
 * value there under the move's code. That is the node's function wherever the joint move
 * is legal in a state of the invariant (the codes' proof, the implications, the images
 * and the forward search all read next within every role's move legal); on codes no such
 * state allows together it is false. False when an operation gave up or there are more
 * joint moves. */
static bool next_by_joint(bddnet_t *bn) {
    const gnet_t *net = bn->net;
    dd_t *d = bn->d;
    bn->inv = valid_codes(bn);
    bool ok = bn->inv >= 0, listed = ok && per_move(bn, &ok);
    dd_deref(d, bn->inv);
    bn->inv = DD_FALSE;
    if (!listed || !ok) {
        if (ok) /* no operation gave up, so dd_why would say nothing: the cap did */
            snprintf(bn->why, sizeof bn->why, "more than %u joint moves (the cap per joint move)",
                     joints_cap(bn));
        free_joints(bn);
        return false;
    }
    uint8_t *moves = xcalloc(net->n_nodes + 1, 1);
    uint32_t *nodes, nn = move_next_nodes(bn, &nodes, moves), nj = bn->n_joints, done = 0;
    dd_ref *lv = xcalloc((size_t)nn * OR_LEVELS + 1, sizeof *lv); /* per node its levels */
    bits_t bits;
    bits_init(bn, &bits, moves);
    free(moves);
    eval_t ev = {
        .v = xmalloc((net->n_nodes + 1) * sizeof *ev.v), .need = bn->cur.need, .whole = true};
    memcpy(ev.v, bn->cur.v, net->n_nodes * sizeof *ev.v); /* borrowed, the move blocks' none */
    double t0 = cpu_seconds();
    for (uint32_t j = 0; j < nj && ok; j++) {
        const joint_t *jm = &bn->joints[j];
        for (uint32_t r = 0; r < net->n_roles; r++)
            for (uint32_t k = 0; k < net->n_moves[r]; k++)
                if (net->move_node[r][k] != GNET_NONE)
                    ev.v[net->move_node[r][k]] = k == jm->move[r] ? DD_TRUE : DD_FALSE;
        bool eval_ok = eval_blocks(bn, &ev, net->n_state_blocks, net->n_blocks);
        ok = eval_ok;
        for (uint32_t i = 0; i < nn && eval_ok; i++) { /* every node, or none */
            dd_ref t = dd_and(d, jm->code, ev.v[nodes[i]]);
            ok = t >= 0 && ok;
            or_push(d, lv + (size_t)i * OR_LEVELS, done, t);
        }
        if (eval_ok) ok = bits_joint(bn, &bits, &ev, jm->code, done) && ok;
        done += eval_ok;
        clear_moves(bn, &ev);
    }
    double t1 = cpu_seconds();
    if (bn->o.trace)
        fprintf(bn->o.trace, "# trace next bits groups=%u made=%u same=%u cpu=%.3f\n",
                bn->n_by_bits, bits.made, bits.same, bits.cpu);
    ok = bits_fini(bn, &bits, done) && ok;
    if (!ok) free_next(bn), alloc_next(bn); /* none kept: made again as they are read */
    for (uint32_t i = 0; i < nn; i++) {
        dd_ref x = or_pop(d, lv + (size_t)i * OR_LEVELS, done);
        if (!ok || x < 0) dd_deref(d, x), x = DD_NONE, ok = false;
        dd_deref(d, bn->cur.v[nodes[i]]);
        bn->cur.v[nodes[i]] = x;
    }
    bn->n_next_joints = done;
    if (bn->o.trace)
        fprintf(bn->o.trace,
                "# trace next joints=%u nodes=%u by_bits=%u eval_cpu=%.3f or_cpu=%.3f\n", nj, nn,
                bn->n_by_bits, t1 - t0, cpu_seconds() - t1);
    free(lv), free(ev.v), free(nodes);
    if (!ok || bn->o.image != BDDNET_PER_MOVE) free_joints(bn); /* else make_joints reads them */
    return ok;
}

/* Per joint move given up with time left (more joint moves than opts.max_per_move, a node
 * limit): the move blocks with the move codes free again, their nodes left unknown where
 * they do not build (as before the joint moves were tried). */
static bool next_free_again(bddnet_t *bn) {
    bn->why[0] = 0; /* the cap no longer stops the network */
    clear_moves(bn, &bn->cur);
    bn->by_joint = false, bn->n_next_joints = 0;
    const gnet_t *net = bn->net;
    return eval_blocks(bn, &bn->cur, net->n_state_blocks, net->n_blocks);
}

/* The network at the state: legal, next and the restricted rules' bodies, the goal
 * values, the transition's substitution. */
static bool network_phase(bddnet_t *bn, double *t) {
    make_blocks(bn);
    make_fluents(bn);
    alloc_roles(bn);
    alloc_next(bn);
    bool ok = eval_current(bn);
    if (ok) {
        for (uint32_t r = 0; r < bn->n_roles; r++)
            keep_legal(bn, r), keep_values(bn, r);
        ok = !bn->by_joint || next_by_joint(bn);
        if (bn->by_joint) trace_phase(bn, "next-by-joint", ok, t, NULL);
        if (!ok && bn->o.next == BDDNET_NEXT_AUTO && !past_end(bn)) ok = next_free_again(bn);
    }
    if (ok) {
        keep_next(bn);
        keep_transition(bn);
    }
    ok = ok && outputs_ok(bn);
    char buf[128];
    snprintf(buf, sizeof buf, "vars=%u groups=%u coded=%u joined=%u cone=%u/%u raised=%u",
             bn->n_vars, bn->n_groups, bn->n_coded, bn->n_joined, bn->n_cone, bn->net->n_fluents,
             bn->n_raised);
    trace_phase(bn, "network", ok, t, buf);
    return ok;
}

/* Variables past which the unknowns stay below the others: BuDDy's bdd_setvarorder moves
 * each one level at a time, clearing its caches at each swap (crossers3, 3,076 variables:
 * 9.2 s of CPU before the network's first node; hexPie, 6,674: past its 30 s budget); the
 * largest network accepted with unknowns had 1,960 (2026-11-27). */
#define UNK_TOP_VARS 2048

/* The unknowns' slots: the first half on top (for nodes outside cyclic blocks, as before),
 * the rest spread among the state variables (slot j above variable (2j - u) n_vars / u or
 * the next that starts a group's block, dd_group; past UNK_TOP_VARS all below), the unknowns
 * kept from an earlier attempt given theirs again (pick_slot), and the cubes of every slot's
 * variables. The order alone: the sets are the same either way. On top (before), a diagram that
 * read a cell and that cell's unknown was each unknown's cofactors side by side, the product of the
 * cells'. */
static void unknowns_placed(bddnet_t *bn) {
    uint32_t u = bn->o.unknowns, k = 2 * u, n = bn->n_vars + k;
    bn->unk_now = bn->unk_next = DD_TRUE;
    if (!k) return;
    bool spread = bn->n_vars <= UNK_TOP_VARS;
    bool *inside = xcalloc(bn->n_vars + 2, sizeof *inside);
    for (uint32_t g = 0; g < bn->n_groups; g++)
        for (uint32_t v = 1; v < bn->groups[g].n_vars * bn->stride; v++)
            inside[bn->groups[g].var + v] = true;
    for (uint32_t r = 0; r < bn->n_roles; r++)
        for (uint32_t b = 1; b < bn->mbits[r]; b++)
            inside[bn->mvars[r][b]] = true;
    uint32_t top = u / 2 < UNK_TOP_SLOTS ? u / 2 : UNK_TOP_SLOTS;
    for (uint32_t j = 0; j < u; j++) { /* between blocks: BuDDy's are ranges of levels */
        uint32_t v = !spread   ? bn->n_vars
                     : j < top ? 0
                               : (uint32_t)((uint64_t)(j - top) * bn->n_vars / (u - top));
        while (inside[v])
            v++;
        bn->slot_at[j] = v;
    }
    free(inside);
    memset(bn->slot_used, 0, u * sizeof *bn->slot_used);
    for (uint32_t q = 0; q < bn->n_unk; q++)
        bn->unk_slot[q] = pick_slot(bn, bn->unk[q]);
    uint32_t *order = xmalloc((n + 1) * sizeof *order), *now = xmalloc((k + 1) * sizeof *now);
    uint32_t l = 0, j = 0;
    for (uint32_t v = 0; v <= bn->n_vars; v++) {
        for (; j < u && bn->slot_at[j] == v; j++)
            order[l++] = bn->n_vars + 2 * j, order[l++] = bn->n_vars + 2 * j + 1;
        if (v < bn->n_vars) order[l++] = v;
    }
    if (spread) dd_set_order(bn->d, order);
    for (j = 0; j < u; j++)
        now[j] = bn->n_vars + 2 * j, now[u + j] = bn->n_vars + 2 * j + 1;
    bn->unk_now = dd_cube(bn->d, now, NULL, u);
    bn->unk_next = dd_cube(bn->d, now + u, NULL, u);
    free(order), free(now);
}

/* Why the network gave up: the cap on joint moves where it stopped it, else the manager's
 * reason. */
static const char *network_why(const bddnet_t *bn) {
    return bn->why[0] ? bn->why : dd_why(bn->d);
}

/* The network and the codes' proof: 1 the codes proven, 0 some dropped, -1 past the
 * limits. A layout with codes that one-hot fits (one_hot_fits) gets CODES_SHARE of the time
 * left for its network (the build's deadline put back after it; the proof keeps its own
 * shares of the build's time); a network that gives up with codes (its share, a node limit)
 * before the build's deadline drops every code, and so does a proof past its share: one-hot
 * the network is made again with the rest. Before, the attempt with codes could take the whole
 * budget (checkers-mustjump: 36 codes, every one broken, 7.9 of its 9.1 s before the one-hot
 * network built in 0.24 s; now and then the network with codes alone past the deadline). */
static int network_and_codes(bddnet_t *bn, double *t, char *err, size_t errlen) {
    double end = bn->o.deadline;
    bool capped = bn->n_coded && (bn->o.cut_codes || one_hot_fits(bn));
    if (capped) bn->o.deadline = bn->o.cut_codes ? now_seconds() - 1 : share_of(end, CODES_SHARE);
    dd_set_deadline(bn->d, bn->o.deadline);
    bn->node_end = end;
    bool ok = network_phase(bn, t);
    bn->node_end = 0;
    bn->o.deadline = end;
    dd_set_deadline(bn->d, end);
    int dropped = ok ? drop_broken(bn) : -1;
    bool again = capped && !ok && !past_end(bn);
    if (again) dropped = drop_every_code(bn);
    if (ok) {
        char buf[64];
        snprintf(buf, sizeof buf, "dropped=%d", dropped);
        trace_phase(bn, "invariants", dropped >= 0, t, buf);
    } else if (again && bn->o.trace) {
        fprintf(bn->o.trace, "# trace codes given up: the network with codes, %s\n",
                network_why(bn));
    }
    if (!ok && !again)
        snprintf(err, errlen, "the network's decision diagrams: %s", network_why(bn));
    else if (dropped < 0)
        snprintf(err, errlen, "the invariants: %s", dd_why(bn->d));
    return dropped < 0 ? -1 : !dropped;
}

/* One attempt with the current candidates: 1 done, 0 some candidate broke (dropped),
 * -1 past the limits. */
static int attempt(bddnet_t *bn, char *err, size_t errlen) {
    make_vars(bn);
    dd_limits_t lim = {.max_nodes = bn->o.max_nodes, .deadline = bn->o.deadline};
    bn->d = dd_new(bn->n_vars + 2 * bn->o.unknowns, &lim, err, errlen);
    if (!bn->d) return -1;
    double t[2] = {now_seconds(), cpu_seconds()};
    char buf[128];
    unknowns_placed(bn);
    snprintf(buf, sizeof buf, "vars=%u slots=%u", bn->n_vars, bn->o.unknowns);
    trace_phase(bn, "slots", true, t, buf); /* BuDDy's reorder: zombieAttack1PL6's took seconds */
    bn->why[0] = 0; /* a new manager: nothing has stopped this attempt yet */
    int codes = network_and_codes(bn, t, err, errlen);
    if (codes <= 0) return codes;
    if (bn->o.implications && !add_implications(bn)) {
        trace_phase(bn, "implications", false, t, NULL);
        snprintf(err, errlen, "the implications: %s", dd_why(bn->d));
        return -1;
    }
    snprintf(buf, sizeof buf, "implications=%u", bn->n_implied);
    trace_phase(bn, "implications", true, t, buf);
    bn->n_parts = bn->n_ready = bn->n_done = 0;
    bool ok = make_joints(bn);
    snprintf(buf, sizeof buf, "joints=%u image=%s", bn->n_joints,
             bn->o.image == BDDNET_SUBST ? "subst" : "per-move");
    trace_phase(bn, "joints", ok, t, buf);
    if (!ok) {
        snprintf(err, errlen, "the joint moves: %s", dd_why(bn->d));
        eval_fini(bn, &bn->cur);
        return -1;
    }
    compute_reach(bn);
    snprintf(buf, sizeof buf, "layers=%u", bn->reach_layers);
    trace_phase(bn, "reach", true, t, buf);
    /* the successors' terminal and goals are made part by part as the steps read them
     * (ready_part): α_1 of minichess needs all 264 moves', which do not fit in 4M nodes
     * together, and a step cut by the budget keeps the moves it finished */
    return 1;
}

bddnet_t *bddnet_new(const gnet_t *net, const term_store_t *ts, const bddnet_opts_t *o, char *err,
                     size_t errlen) {
    double t0 = now_seconds();
    bddnet_t *bn = xcalloc(1, sizeof *bn);
    bn->split_inv = DD_NONE;
    bn->xpool = ddexcl_pool_new();
    bn->net = net, bn->ts = ts;
    if (o)
        bn->o = *o;
    else
        bddnet_default_opts(&bn->o);
    make_groups(bn);
    bn->pos = xmalloc((net->n_nodes + 1) * sizeof *bn->pos);
    for (uint32_t i = 0; i < net->n_order; i++)
        bn->pos[net->order[i]] = i;
    find_implying(bn);
    find_cone(bn);
    bn->unk = xcalloc(bn->o.unknowns + 1, sizeof *bn->unk);
    bn->unk_missed = xcalloc(bn->o.unknowns + 1, sizeof *bn->unk_missed);
    bn->unk_slot = xcalloc(bn->o.unknowns + 1, sizeof *bn->unk_slot);
    bn->slot_at = xcalloc(bn->o.unknowns + 1, sizeof *bn->slot_at);
    bn->slot_used = xcalloc(bn->o.unknowns + 1, sizeof *bn->slot_used);
    bn->unk_of = xmalloc((net->n_nodes + 1) * sizeof *bn->unk_of);
    for (uint32_t n = 0; n < net->n_nodes; n++)
        bn->unk_of[n] = NO_UNK;
    for (uint32_t g = 0; g < bn->n_fine; g++) /* outside: no code, whose range a state */
        if (!bn->cone[bn->sorted[bn->fine[g].first]]) bn->fine_cand[g] = false; /* could leave */
    families_joined(bn);
    for (;;) {
        int a = attempt(bn, err, errlen);
        if (a > 0) break;
        if (a < 0) {
            bddnet_free(bn);
            return NULL;
        }
        free_outputs(bn); /* again with fewer candidates: a new layout */
        FREE_AND_NULL(dd_free, bn->d);
        free_layout(bn);
        regroup(bn);
    }
    bn->seconds = now_seconds() - t0;
    return bn;
}

void bddnet_free(bddnet_t *bn) {
    if (!bn) return;
    if (bn->d) {
        ddexcl_pool_free(bn->d, bn->xpool);
        free_outputs(bn);
        dd_free(bn->d);
    } else {
        ddexcl_pool_free(NULL, bn->xpool); /* empty: no diagram was made */
    }
    free_layout(bn);
    free(bn->sorted), free(bn->groups), free(bn->cand), free(bn->fgroup), free(bn->fpos);
    free(bn->split), free(bn->fine), free(bn->fine_cand), free(bn->fine_init), free(bn->joined);
    free(bn->pos), free(bn->implies_terminal), free(bn->restrictable), free(bn->targets);
    free(bn->cone), free(bn->unk), free(bn->unk_of), free(bn->unk_missed);
    free(bn->unk_slot), free(bn->slot_at), free(bn->slot_used);
    free(bn);
}

/* ---- queries ---- */

dd_t *bddnet_dd(bddnet_t *bn) {
    return bn->d;
}
const gnet_t *bddnet_net(const bddnet_t *bn) {
    return bn->net;
}
double bddnet_seconds(const bddnet_t *bn) {
    return bn->seconds;
}
dd_ref bddnet_fluent(const bddnet_t *bn, uint32_t f) {
    return bn->fluent[f];
}
uint32_t bddnet_var_fluents(const bddnet_t *bn, uint32_t v, const uint32_t **fluents) {
    *fluents = bn->var_fluent;
    if (v >= bn->n_vars) return 0; /* an unknown's */
    *fluents = bn->var_fluent + bn->var_start[v];
    return bn->var_start[v + 1] - bn->var_start[v];
}
void bddnet_flat_vars(const bddnet_t *bn, ddflat_t *f) {
    ddflat_set_vars(f, bn->n_vars, bn->var_start, bn->var_fluent); /* fluent f is bit f */
}
uint32_t bddnet_local(const bddnet_t *bn) {
    return bn->reach != DD_TRUE && bn->local ? bn->n_upto - 1 : UINT32_MAX;
}
dd_ref bddnet_within(const bddnet_t *bn, uint32_t steps) {
    return bddnet_local(bn) == UINT32_MAX || steps + 1 >= bn->n_upto ? bn->inv : bn->upto[steps];
}
uint32_t bddnet_reach_layers(const bddnet_t *bn, double *seconds) {
    *seconds = bn->reach_seconds;
    return bn->reach != DD_TRUE ? bn->reach_layers : 0;
}
bool bddnet_reach_late(const bddnet_t *bn) {
    return bn->reach == DD_TRUE && bn->reach_late;
}
bddnet_image_t bddnet_image(const bddnet_t *bn) {
    return bn->o.image;
}
dd_ref bddnet_state_vars(const bddnet_t *bn) {
    return bn->state_vars;
}
dd_ref bddnet_invariant(const bddnet_t *bn) {
    return bn->inv;
}
uint32_t bddnet_mutex_groups(const bddnet_t *bn) {
    return bn->n_coded;
}
uint32_t bddnet_joined_groups(const bddnet_t *bn) {
    uint32_t n = 0;
    for (uint32_t g = 0; g < bn->n_groups; g++)
        n += bn->groups[g].coded && bn->groups[g].n_fine > 1;
    return n;
}
uint32_t bddnet_cone(const bddnet_t *bn) {
    return bn->n_cone;
}
uint32_t bddnet_next_joints(const bddnet_t *bn) {
    return bn->n_next_joints;
}
uint64_t bddnet_move_set_rules(const bddnet_t *bn) {
    return bn->n_move_set_rules;
}
dd_ref bddnet_next(const bddnet_t *bn, uint32_t f) {
    return bn->next[f];
}
dd_ref bddnet_next_var(const bddnet_t *bn, uint32_t v) {
    return v < bn->n_vars && bn->var_start[v] != bn->var_start[v + 1] ? bn->next_var[v] : DD_FALSE;
}
dd_ref bddnet_group_next(bddnet_t *bn, uint32_t g, bool any) {
    if (g >= bn->n_groups) return DD_NONE;
    if (!any) return at_most_one_next(bn, g);
    bddinv_atom_t at = group_atom(bn, g, 0);
    dd_deref(bn->d, at.now);
    return at.next;
}
uint32_t bddnet_groups_by_bits(const bddnet_t *bn) {
    return bn->n_by_bits;
}
dd_ref bddnet_legal_rel(const bddnet_t *bn, uint32_t r) {
    return bn->legal_rel[r];
}
uint32_t bddnet_unknowns(const bddnet_t *bn) {
    return bn->n_unk;
}
uint32_t bddnet_unknown(const bddnet_t *bn, uint32_t k, uint32_t *node) {
    *node = bn->unk[k];
    return unk_var(bn, k, false);
}
uint32_t bddnet_unknowns_cyclic(const bddnet_t *bn) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < bn->n_unk; k++)
        n += in_cyclic_block(bn, bn->unk[k]);
    return n;
}
uint32_t bddnet_implications(const bddnet_t *bn) {
    return bn->n_implied;
}
uint32_t bddnet_values(const bddnet_t *bn, uint32_t role, const int **values) {
    *values = bn->values[role];
    return bn->n_values[role];
}

/* Some numeric goal of the role in (lo, hi] holds at the successor in part pt. */
static dd_ref goal_between(bddnet_t *bn, const part_t *pt, uint32_t role, int lo, int hi) {
    const gnet_t *net = bn->net;
    dd_ref any = DD_FALSE;
    for (uint32_t k = 0; k < net->n_goals[role]; k++) {
        int w = net->goals[role][k].value;
        if (w < 0 || w <= lo || w > hi) continue;
        dd_ref x = dd_or(bn->d, any, pt->goal[role][k]);
        dd_deref(bn->d, any);
        any = x;
    }
    return any;
}

/* of the time left a part's targets' unknowns at the successor at most (past it, ∀h') */
#define KNOWN_SHARE (1.0 / 64)
/* parts an unknown may miss its share in before it is no more put in */
#define KNOWN_TRIES 2
/* passes over the unknowns at most where some are nodes of cyclic blocks */
#define KNOWN_PASSES 4

/* y ∧ H (or y ∧ ¬H), H node n's value at the successor (nx), made rule by rule within y:
 * the node was left unknown as a whole, its rules' values there are small ("some move is
 * available": each move's own pattern). DD_NONE past a limit or the deadline. */
static dd_ref with_node(bddnet_t *bn, const eval_t *nx, uint32_t n, dd_ref y, bool holds) {
    dd_t *d = bn->d;
    uint32_t i = bn->pos[n];
    bool implies = bn->implies_terminal[n]; /* as eval_node made it */
    dd_ref acc = holds ? DD_FALSE : dd_dup(d, y);
    for (uint32_t r = bn->net->rule_start[i];
         r < bn->net->rule_start[i + 1] && acc != DD_NONE && (holds || acc != DD_FALSE); r++) {
        dd_ref body = rule_next(bn, nx, r, implies), t;
        if (holds) {
            dd_ref part = dd_and(d, body, y);
            t = dd_or(d, acc, part);
            dd_deref(d, part);
        } else {
            t = dd_diff(d, acc, body);
        }
        dd_deref(d, body), dd_deref(d, acc);
        acc = t;
    }
    return acc;
}

/* One side of know_one: H ∧ (r1 − r0) (side 1) or ¬H ∧ (r0 − r1) (side 0), within cond.
 * Past a limit: left out for a subset (false), as it is for a superset (sup), DD_NONE when
 * even that gives up. */
static dd_ref know_side(bddnet_t *bn, const eval_t *nx, uint32_t k, dd_ref r1, dd_ref r0,
                        dd_ref cond, int side, bool sup) {
    dd_t *d = bn->d;
    dd_ref only = side ? dd_diff(d, r1, r0) : dd_diff(d, r0, r1), y = dd_and(d, only, cond);
    dd_ref x = y > DD_FALSE ? with_node(bn, nx, bn->unk[k], y, side) : dd_dup(d, y);
    dd_deref(d, y);
    if (x == DD_NONE) bn->unk_missed[k]++, x = sup ? dd_dup(d, only) : DD_FALSE;
    dd_deref(d, only);
    return x;
}

/* r with successor unknown k's variable h' replaced by the node's value H there, within
 * cond: r1 ∧ r0 (whatever H) ∨ each side of know_side. For a subset (targets) a side past
 * a limit is left out: never less than ∀h' r; for a superset (terminal, sup) it stays as
 * it is: never more than ∃h' r. Consumes r (returned as it is past the limits). */
static dd_ref know_one(bddnet_t *bn, const eval_t *nx, dd_ref cond, uint32_t k, dd_ref r,
                       bool sup) {
    dd_t *d = bn->d;
    if (bn->unk_missed[k] >= KNOWN_TRIES) return r;
    uint32_t v = unk_var(bn, k, true);
    dd_ref r1 = dd_restrict(d, r, dd_var(d, v)), r0 = dd_restrict(d, r, dd_nvar(d, v));
    if (r1 == r0 || r1 == DD_NONE || r0 == DD_NONE) {
        dd_deref(d, r1), dd_deref(d, r0);
        return r;
    }
    dd_ref out = dd_and(d, r1, r0);
    for (int side = 0; side < 2 && out != DD_NONE; side++) {
        dd_ref x = know_side(bn, nx, k, r1, r0, cond, side, sup);
        dd_ref t = x == DD_NONE ? DD_NONE : dd_or(d, out, x);
        dd_deref(d, x), dd_deref(d, out);
        out = t;
    }
    dd_deref(d, r1), dd_deref(d, r0);
    if (out == DD_NONE) return r;
    dd_deref(d, r);
    return out;
}

/* r (over the successor's unknowns) with their values put in where their rules at the
 * successor allow, within KNOWN_SHARE of the time left: the latest node first, whose
 * rules may read earlier unknowns (terminal reads (line x) in tic-tac-toe). Between the
 * real value and ∀h' r (the caller's quantifier after), or with sup between it and ∃h' r.
 * Consumes r. */
static dd_ref know_unknowns(bddnet_t *bn, const part_t *pt, const eval_t *nx, dd_ref r, bool sup) {
    dd_t *d = bn->d;
    if (!nx->v) return r; /* cond false: nothing was evaluated */
    double end = dd_deadline(d);
    dd_set_deadline(d, share_of(end, KNOWN_SHARE));
    uint32_t *ks = xmalloc((bn->n_unk + 1) * sizeof *ks);
    for (uint32_t k = 0; k < bn->n_unk; k++)
        ks[k] = k;
    for (uint32_t a = 1; a < bn->n_unk; a++) /* by order position, latest first (few) */
        for (uint32_t b = a; b > 0 && bn->pos[bn->unk[ks[b]]] > bn->pos[bn->unk[ks[b - 1]]]; b--) {
            uint32_t t = ks[b];
            ks[b] = ks[b - 1], ks[b - 1] = t;
        }
    /* one pass puts in an acyclic network's unknowns (a node's rules read earlier ones);
     * a cyclic block's read each other: passes until nothing changes (a lone stone's
     * liberty read its neighbours', put in a pass later: atariGoVariant's captures) */
    for (uint32_t pass = 0; pass < (bn->unk_cyclic ? KNOWN_PASSES : 1) && r > DD_TRUE; pass++) {
        dd_ref was = dd_dup(d, r);
        for (uint32_t j = 0; j < bn->n_unk && r > DD_TRUE; j++)
            r = know_one(bn, nx, pt->cond, ks[j], r, sup);
        dd_deref(d, was);
        if (r == was) break;
    }
    free(ks);
    dd_set_deadline(d, end);
    return r;
}

/* Terminal and the goal condition at the successor in part pt. The role's value is the
 * highest numeric goal that holds (engine_goal_value): at least v when some goal >= v
 * holds; at most v when some numeric goal holds and none above v. With the network's values
 * at the successor (nx, else NULL) the unknowns there are put in where they fit. */
static dd_ref part_target(bddnet_t *bn, const part_t *pt, const target_t *t, const eval_t *nx) {
    dd_t *d = bn->d;
    dd_ref g;
    if (t->above) {
        g = goal_between(bn, pt, t->role, t->v - 1, INT32_MAX);
    } else {
        dd_ref any = goal_between(bn, pt, t->role, -1, INT32_MAX);
        dd_ref over = goal_between(bn, pt, t->role, t->v, INT32_MAX), no = dd_not(d, over);
        g = dd_and(d, any, no);
        dd_deref(d, any), dd_deref(d, over), dd_deref(d, no);
    }
    /* with unknowns: terminal and in the target for every value of the successor's */
    dd_ref r = dd_and(d, g, pt->raw != DD_FALSE ? pt->raw : pt->term);
    dd_deref(d, g);
    if (!bn->n_unk || r <= DD_TRUE) return r;
    if (nx) r = know_unknowns(bn, pt, nx, r, false);
    dd_ref all = dd_forall(d, r, bn->unk_next);
    dd_deref(d, r);
    return all;
}

uint32_t bddnet_target(bddnet_t *bn, uint32_t role, int v, bool above) {
    for (uint32_t t = 0; t < bn->n_targets; t++)
        if (bn->targets[t].role == role && bn->targets[t].v == v && bn->targets[t].above == above)
            return t;
    if (bn->goals_gone) die("bddnet_target: a new target after bddnet_forget_goals");
    uint32_t t = bn->n_targets++;
    bn->targets = xrealloc(bn->targets, bn->n_targets * sizeof *bn->targets);
    bn->targets[t] = (target_t){.role = role, .v = v, .above = above};
    for (uint32_t j = 0; j < bn->n_joints; j++) /* the parts made already; the others later */
        for (uint32_t p = 0; p < bn->joints[j].n_parts; p++) {
            part_t *pt = &bn->joints[j].parts[p];
            if (pt->state != PART_READY) continue;
            pt->target = xrealloc(pt->target, bn->n_targets * sizeof *pt->target);
            pt->target[t] = part_target(bn, pt, &bn->targets[t], NULL);
        }
    return t;
}

void bddnet_forget_goals(bddnet_t *bn) {
    for (uint32_t j = 0; j < bn->n_joints; j++)
        for (uint32_t p = 0; p < bn->joints[j].n_parts; p++)
            free_goals(bn, &bn->joints[j].parts[p]);
    bn->goals_gone = true;
}

/* Does goal item k count for the target: for "at least v" a goal of v or more holds, for
 * "at most v" (some numeric goal, and none above v) one above v (then it fails)? */
static bool item_counts(const bddnet_t *bn, const target_t *t, uint32_t k) {
    int w = bn->net->goals[t->role][k].value;
    return w >= 0 && (t->above ? w >= t->v : w > t->v);
}

/* The same role and the same goal items counted: the same diagrams in every part (made
 * from the items alone). Decided without the parts, which are made later (ready_part). */
bool bddnet_same_target(const bddnet_t *bn, uint32_t a, uint32_t b) {
    const target_t *x = &bn->targets[a], *y = &bn->targets[b];
    if (x->role != y->role || x->above != y->above) return false;
    for (uint32_t k = 0; k < bn->net->n_goals[x->role]; k++)
        if (item_counts(bn, x, k) != item_counts(bn, y, k)) return false;
    return true;
}

/* ---- the successors' terminal and goals, made when a step first reads a part ---- */

/* --trace: a line per tenth of the joint moves done. */
static void trace_ready(bddnet_t *bn) {
    uint32_t tenth = bn->n_joints / 10 ? bn->n_joints / 10 : 1;
    if (!bn->o.trace || (bn->n_done % tenth && bn->n_done != bn->n_joints)) return;
    fprintf(bn->o.trace, "# trace successors joints_done=%u of=%u parts=%llu live=%llu\n",
            bn->n_done, bn->n_joints, (unsigned long long)bn->n_parts,
            (unsigned long long)dd_live_nodes(bn->d));
    fflush(bn->o.trace);
}

/* The part's successor terminal, goals and targets: 1 made, 0 given up at a node limit
 * (PART_FAILED: its move is left out of every step, a subset), -1 past the deadline (made
 * again when read again). */
static int ready_part(bddnet_t *bn, const joint_t *jm, part_t *pt) {
    if (pt->state != PART_NEW) return pt->state == PART_READY;
    eval_t nx = {0};
    bool ok = eval_successor(bn, jm, pt, &nx);
    if (ok && bn->n_unk) { /* the targets from the raw terminal; the kept one ∃h' of
                             it with the unknowns put in where they fit */
        pt->raw = pt->term;
        dd_ref x = know_unknowns(bn, pt, &nx, dd_dup(bn->d, pt->raw), true);
        pt->term = dd_exists(bn->d, x, bn->unk_next);
        dd_deref(bn->d, x);
        ok = pt->term != DD_NONE;
    }
    pt->target = xcalloc(bn->n_targets + 1, sizeof *pt->target);
    for (uint32_t t = 0; t < bn->n_targets && ok; t++) {
        pt->target[t] = part_target(bn, pt, &bn->targets[t], &nx);
        ok = pt->target[t] != DD_NONE;
    }
    eval_fini(bn, &nx);
    if (!ok) {
        double end = dd_deadline(bn->d); /* not a node's share (eval_or_unknown) */
        bool late = dd_out_of_time(bn->d) && end > 0 && now_seconds() >= end;
        if (pt->term != DD_NONE) dd_deref(bn->d, pt->term);
        pt->term = DD_FALSE;
        free_goals(bn, pt);
        deref_all(bn->d, pt->target, bn->n_targets);
        pt->target = NULL;
        if (late) return -1;
        pt->state = PART_FAILED;
    } else {
        pt->state = PART_READY;
        if (bn->goals_gone) free_goals(bn, pt);
    }
    bn->n_ready++;
    return ok;
}

/* Joint move j's next functions, parts and their successors made: 1, 0 (given up at a
 * node limit: JOINT_FAILED), -1 (the deadline; made again when read again). Once every
 * joint move is done the network at the state goes. */
static int ready_joint(bddnet_t *bn, uint32_t j) {
    joint_t *jm = &bn->joints[j];
    if (jm->state == JOINT_READY || jm->state == JOINT_FAILED) return jm->state == JOINT_READY;
    int r = 1;
    if (jm->state == JOINT_NEW && !make_joint(bn, jm)) r = dd_out_of_time(bn->d) ? -1 : 0;
    for (uint32_t p = 0; p < jm->n_parts && r > 0; p++)
        r = ready_part(bn, jm, &jm->parts[p]);
    if (r < 0) return r;
    jm->state = r ? JOINT_READY : JOINT_FAILED;
    bn->n_done++;
    trace_ready(bn);
    if (bn->n_done == bn->n_joints) eval_fini(bn, &bn->cur);
    return r;
}

/* ---- the strong pre-image ---- */

static const coalition_t *coalition(bddnet_t *bn, uint64_t mask) {
    for (uint32_t m = 0; m < bn->n_masks; m++)
        if (bn->masks[m].mask == mask) return &bn->masks[m];
    dd_t *d = bn->d;
    dd_ref legal = DD_TRUE, cube = DD_TRUE;
    for (uint32_t r = 0; r < bn->n_roles; r++) {
        if (!(mask >> r & 1)) continue;
        dd_ref a = dd_and(d, legal, bn->legal_rel[r]), b = dd_and(d, cube, bn->mcube[r]);
        dd_deref(d, legal), dd_deref(d, cube);
        legal = a, cube = b;
    }
    if (legal < 0 || cube < 0 || bn->n_masks == MAX_MASKS) {
        dd_deref(d, legal), dd_deref(d, cube);
        return NULL;
    }
    bn->masks[bn->n_masks] = (coalition_t){.mask = mask, .legal = legal, .cube = cube};
    return &bn->masks[bn->n_masks++];
}

/* Did the last operation give up at the deadline (not at a node limit)? */
static bool past_deadline(bddnet_t *bn, dd_ref x) {
    return x == DD_NONE && dd_out_of_time(bn->d);
}

/* The successor in part pt of jm is in the set s (one diagram). */
static dd_ref succ_in(bddnet_t *bn, const joint_t *jm, const part_t *pt, dd_ref s) {
    if (s == DD_FALSE || s == DD_TRUE) return s;
    if (pt->assign != DD_NONE) return dd_restrict(bn->d, s, pt->assign);
    return dd_subst(bn->d, s, jm->subst ? jm->subst : bn->subst);
}

/* The successor in part pt: terminal and in the target, or not terminal and in S. */
static dd_ref part_in(bddnet_t *bn, const joint_t *jm, const part_t *pt, dd_ref s,
                      uint32_t target) {
    dd_t *d = bn->d;
    dd_ref tg = target == BDDNET_NO_TARGET ? DD_FALSE : pt->target[target];
    if (s == DD_FALSE) return dd_dup(d, tg);
    dd_ref sub = succ_in(bn, jm, pt, s), nt = dd_not(d, pt->term);
    dd_ref in = dd_and(d, nt, sub), r = dd_or(d, tg, in);
    dd_deref(d, sub), dd_deref(d, nt), dd_deref(d, in);
    return r;
}

/* opts.set_nodes, else the default cap of a global set or LOCAL_NODES */
static uint64_t set_cap(const bddnet_t *bn, uint64_t global) {
    if (bn->o.set_nodes) return bn->o.set_nodes;
    return bddnet_local(bn) == UINT32_MAX ? global : LOCAL_NODES;
}

/* --trace: the join of S's parts into j, whether every part went in. */
static void trace_join(bddnet_t *bn, const ddunion_t *s, dd_ref j, bool all) {
    if (bn->o.trace)
        fprintf(bn->o.trace, "# trace join parts=%u nodes=%llu all=%s live=%llu\n", s->n,
                (unsigned long long)(j >= 0 ? dd_nodes(bn->d, j) : 0), all ? "yes" : "no",
                (unsigned long long)dd_live_nodes(bn->d));
}

/* S as one diagram (at most opts.set_nodes, 0: JOIN_NODES: parts left out, *exact false). */
static dd_ref joined(bddnet_t *bn, const ddunion_t *s, bool *exact) {
    bool all;
    dd_ref j = ddunion_join(bn->d, s, set_cap(bn, JOIN_NODES), &all);
    if (!all) *exact = false;
    trace_join(bn, s, j, all);
    return j;
}

/* S as one diagram where it fits (opts.set_nodes) and has no exclusions; else, with
 * opts.forall BDDNET_AUTO, *products (the ∀ by products of unions instead), or (JOIN) the
 * parts that fit, *exact false. */
static dd_ref joined_all(bddnet_t *bn, const ddunion_t *s, bool *exact, bool *products) {
    bool all = true;
    dd_ref j = ddunion_has_excl(s) ? DD_FALSE : DD_NONE;
    if (j == DD_NONE) j = ddunion_join(bn->d, s, set_cap(bn, JOIN_NODES), &all);
    if (j == DD_FALSE && s->n) all = false;
    if (!all && bn->o.forall == BDDNET_AUTO && !past_deadline(bn, j)) {
        dd_deref(bn->d, j);
        *products = true;
        return DD_NONE;
    }
    if (!all) *exact = false;
    trace_join(bn, s, j, all);
    return j;
}

/* SUBST: ∃ P's move code (legal ∧ ∀ O's move code (legal → successor in)). */
static dd_ref pre_subst(bddnet_t *bn, dd_ref s, uint32_t target, uint64_t p) {
    dd_t *d = bn->d;
    uint64_t all = bn->n_roles >= 64 ? ~0ull : (1ull << bn->n_roles) - 1;
    const coalition_t *cp = coalition(bn, p & all), *co = coalition(bn, ~p & all);
    if (!cp || !co) return DD_NONE;
    dd_ref in = part_in(bn, &bn->joints[0], &bn->joints[0].parts[0], s, target);
    dd_ref x = dd_imp_forall(d, co->legal, in, co->cube);
    dd_deref(d, in);
    dd_ref y = dd_and_exists(d, cp->legal, x, cp->cube);
    dd_deref(d, x);
    return y;
}

/* the legal moves of the roles in mask, in joint move j, as one diagram */
static dd_ref joint_legal(bddnet_t *bn, const joint_t *jm, uint64_t mask) {
    dd_ref l = DD_TRUE;
    for (uint32_t r = 0; r < bn->n_roles; r++) {
        if (!(mask >> r & 1)) continue;
        dd_ref t = dd_and(bn->d, l, jm->legal[r]);
        dd_deref(bn->d, l);
        l = t;
    }
    return l;
}

static bool same_moves(const bddnet_t *bn, const joint_t *a, const joint_t *b, uint64_t mask) {
    for (uint32_t r = 0; r < bn->n_roles; r++)
        if ((mask >> r & 1) && a->move[r] != b->move[r]) return false;
    return true;
}

#define FOLD_NODES 2000 /* an exclusion is taken out of a part that stays this small */

/* x less the exclusions of *excl that keep it small (no larger than x, or FOLD_NODES), the
 * others left in *excl (a new list); x's reference taken over. Only a part of at most
 * FOLD_NODES is tried: three_player's α_2 took 6.7 of its 13 s of CPU trying every part (the
 * product's 250 parts less "the answer ends the game"), 1.5 s so; tic-tac-toe's parts all
 * fold (without it α_6 has 45,234 parts and is cut). */
static dd_ref fold_excl(bddnet_t *bn, dd_ref x, ddexcl_t **excl) {
    dd_t *d = bn->d;
    ddexcl_t *e = *excl;
    uint64_t nx = dd_nodes(d, x);
    if (nx > FOLD_NODES)
        return x; /* a large part keeps its list (and merges with the
                      parts that have the same one) */
    dd_ref *left = xmalloc((e->n + 1) * sizeof *left);
    uint32_t n = 0;
    for (uint32_t k = 0; k < e->n && x != DD_FALSE; k++) {
        dd_ref t = dd_diff(d, x, e->e[k]);
        uint64_t nt = t >= 0 ? dd_nodes(d, t) : 0;
        if (t >= 0 && (nt <= FOLD_NODES || nt <= nx)) {
            dd_deref(d, x);
            x = t, nx = nt;
        } else {
            dd_deref(d, t);
            left[n++] = dd_dup(d, e->e[k]);
        }
    }
    if (n == e->n && x != DD_FALSE) { /* nothing folded: the same list */
        for (uint32_t k = 0; k < n; k++)
            dd_deref(d, left[k]);
    } else {
        ddexcl_free(d, e);
        if (x == DD_FALSE)
            for (uint32_t k = 0; k < n; k++)
                dd_deref(d, left[k]);
        *excl = ddexcl_make(d, bn->xpool, left, x == DD_FALSE ? 0 : n);
    }
    free(left);
    return x;
}

/* ∀h (x less excl's union) = ∀h x less the union of ∃h of each exclusion (both references
 * taken over, *excl replaced): the states in x whatever the unknowns' values at the state. */
static dd_ref for_every_unknown(bddnet_t *bn, dd_ref x, ddexcl_t **excl) {
    dd_t *d = bn->d;
    dd_ref all = dd_forall(d, x, bn->unk_now);
    dd_deref(d, x);
    ddexcl_t *e = *excl;
    if (!e || all <= DD_FALSE) return all;
    dd_ref *some = xmalloc((e->n + 1) * sizeof *some);
    bool ok = true;
    for (uint32_t k = 0; k < e->n; k++)
        some[k] = dd_exists(d, e->e[k], bn->unk_now), ok = ok && some[k] != DD_NONE;
    if (!ok) { /* the part is left out (a subset) */
        for (uint32_t k = 0; k < e->n; k++)
            dd_deref(d, some[k]);
        dd_deref(d, all);
        all = DD_NONE;
    }
    *excl = ok ? ddexcl_make(d, bn->xpool, some, e->n) : NULL;
    ddexcl_free(d, e);
    free(some);
    return all;
}

/* x less excl's union within the invariant into out (both references taken over); false past
 * the deadline. A set that ran into the node limit is left out (*exact false: a subset). */
static bool add_set_excl(bddnet_t *bn, ddunion_t *out, dd_ref x, ddexcl_t *excl, dd_ref within,
                         bool *exact) {
    if (bn->n_unk) x = for_every_unknown(bn, x, &excl);
    dd_ref y = dd_and(bn->d, x, within);
    dd_deref(bn->d, x);
    if (excl && y > DD_FALSE && !bn->o.keep_exclusions) y = fold_excl(bn, y, &excl);
    if (y == DD_NONE) {
        *exact = false;
        ddexcl_free(bn->d, excl);
        return !past_deadline(bn, y);
    }
    return ddunion_add_excl(bn->d, out, y, excl);
}

static bool add_set(bddnet_t *bn, ddunion_t *out, dd_ref x, dd_ref within, bool *exact) {
    return add_set_excl(bn, out, x, NULL, within, exact);
}

/* The exclusions of a part of S read at the successor in part pt of jm: the states whose
 * successor is in one of them. *all: some is true there (the whole part is excluded). NULL
 * with *ok false when an operation gave up (the part is then left out: a subset). */
static ddexcl_t *succ_excl(bddnet_t *bn, const joint_t *jm, const part_t *pt, const ddexcl_t *x,
                           bool *all, bool *ok) {
    dd_ref *e = xmalloc((x->n + 1) * sizeof *e);
    uint32_t n = 0;
    *all = false, *ok = true;
    for (uint32_t k = 0; k < x->n && *ok && !*all; k++) {
        dd_ref t = succ_in(bn, jm, pt, x->e[k]);
        *ok = t != DD_NONE, *all = t == DD_TRUE;
        e[n++] = t;
    }
    if (!*ok || *all) {
        for (uint32_t k = 0; k < n; k++)
            dd_deref(bn->d, e[k]);
        n = 0;
    }
    ddexcl_t *r = ddexcl_make(bn->d, bn->xpool, e, n);
    free(e);
    return r;
}

/* The pre-image of excl in part pt, made once per list (parts share them): a small cache. */
#define EXCL_CACHE 8
typedef struct {
    const ddexcl_t *from[EXCL_CACHE];
    ddexcl_t *to[EXCL_CACHE];
    bool all[EXCL_CACHE];
    uint32_t n;
} excl_cache_t;

static void excl_cache_clear(dd_t *d, excl_cache_t *c) {
    for (uint32_t k = 0; k < c->n; k++)
        ddexcl_free(d, c->to[k]);
    c->n = 0;
}

/* excl at the successor (a reference for the caller); *skip: the part is excluded there
 * whole, or its exclusions could not be made (*exact false then). */
static ddexcl_t *excl_at(bddnet_t *bn, excl_cache_t *c, const joint_t *jm, const part_t *pt,
                         const ddexcl_t *x, bool *skip, bool *exact) {
    *skip = false;
    if (!x) return NULL;
    for (uint32_t k = 0; k < c->n; k++)
        if (c->from[k] == x) {
            *skip = c->all[k];
            return ddexcl_dup(c->to[k]);
        }
    bool all, ok;
    ddexcl_t *r = succ_excl(bn, jm, pt, x, &all, &ok);
    if (!ok) *exact = false;
    *skip = all || !ok;
    if (!ok) return NULL;
    if (c->n == EXCL_CACHE) excl_cache_clear(bn->d, c);
    c->from[c->n] = x, c->to[c->n] = ddexcl_dup(r), c->all[c->n++] = all;
    return r;
}

/* P's move has one joint move b (the others' only answer, where b is legal): per part of
 * b, where the successor is terminal in the target, and for each part of S where it is not
 * terminal and in that part (less its exclusions there): a union, never one diagram (the
 * distributed ∃). */
static bool pre_spread(bddnet_t *bn, const joint_t *jm, const ddunion_t *s, uint32_t target,
                       dd_ref within, ddunion_t *out, bool *exact) {
    dd_t *d = bn->d;
    bool ok = true;
    excl_cache_t cache = {.n = 0};
    for (uint32_t p = 0; p < jm->n_parts && ok; p++) {
        const part_t *pt = &jm->parts[p];
        dd_ref cw = dd_and(d, pt->cond, within); /* within first: the smallest */
        if (cw == DD_FALSE) continue;
        if (target != BDDNET_NO_TARGET)
            ok = add_set(bn, out, dd_and(d, cw, pt->target[target]), within, exact);
        dd_ref c = dd_diff(d, cw, pt->term);
        dd_deref(d, cw);
        ok = ok && !past_deadline(bn, c);
        for (uint32_t k = 0; k < s->n && ok && c > 0; k++) {
            bool skip;
            ddexcl_t *x = excl_at(bn, &cache, jm, pt, s->excl[k], &skip, exact);
            if (skip) continue;
            dd_ref in = succ_in(bn, jm, pt, s->part[k]);
            ok = add_set_excl(bn, out, dd_and(d, c, in), x, within, exact);
            dd_deref(d, in);
        }
        if (c == DD_NONE) *exact = false;
        dd_deref(d, c);
        excl_cache_clear(d, &cache);
    }
    return ok;
}

/* all ∧ (cond → (target ∨ ¬terminal)) of a part, or all ∧ (cond → (target ∨ successor in
 * s)): the states of all the part drops, found within all ∧ cond only (all is small where
 * the win test is not: a horizon). */
static dd_ref part_keep(bddnet_t *bn, const joint_t *jm, const part_t *pt, dd_ref all, dd_ref sj,
                        uint32_t target, bool terminal) {
    dd_t *d = bn->d;
    dd_ref ac = dd_and(d, all, pt->cond);
    if (ac == DD_FALSE) return dd_dup(d, all);
    dd_ref tg = target == BDDNET_NO_TARGET ? DD_FALSE : pt->target[target];
    /* bad: ac where the successor is not in the target and not in S (terminal) */
    dd_ref x = terminal ? dd_dup(d, pt->term) : succ_in(bn, jm, pt, sj);
    dd_ref out = terminal ? dd_and(d, ac, x) : dd_diff(d, ac, x);
    dd_ref bad = tg == DD_FALSE ? dd_dup(d, out) : dd_diff(d, out, tg);
    dd_ref r = dd_diff(d, all, bad);
    dd_deref(d, ac), dd_deref(d, x), dd_deref(d, out), dd_deref(d, bad);
    return r;
}

/* --trace: the move's set after answer b's part q in pass 0 ("in S") or 1 (¬terminal) */
static void trace_all(bddnet_t *bn, uint32_t a, int pass, uint32_t b, uint32_t q, dd_ref all) {
    if (!bn->o.trace) return;
    fprintf(bn->o.trace, "# trace forall move=%u pass=%d answer=%u part=%u nodes=%llu live=%llu\n",
            a, pass, b, q, (unsigned long long)(all >= 0 ? dd_nodes(bn->d, all) : 0),
            (unsigned long long)dd_live_nodes(bn->d));
    fflush(bn->o.trace);
}

/* The states where P's joint move a is legal and every joint move b extending it that is
 * legal has its successor in: ∧ over b's parts of cond → (target ∨ (¬terminal ∧ in S)),
 * split in two passes, "in S" first: "¬terminal" alone is large (in connect four, "the
 * other side cannot complete a line": exponential) and small within the states the first
 * pass leaves. sj: S as one diagram. Past opts.set_nodes nodes (0: ALL_NODES) it gives
 * up: false, *exact false (the move's states left out). */
static dd_ref pre_all(bddnet_t *bn, uint32_t a, dd_ref sj, uint32_t target, uint64_t p,
                      dd_ref within, bool *exact) {
    dd_t *d = bn->d;
    const joint_t *ja = &bn->joints[a];
    uint64_t max = set_cap(bn, ALL_NODES);
    dd_ref legal = joint_legal(bn, ja, p), all = dd_and(d, legal, within);
    dd_deref(d, legal);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t b = a; b < bn->n_joints && all > 0; b++) {
            const joint_t *jb = &bn->joints[b];
            if (!same_moves(bn, ja, jb, p)) continue;
            for (uint32_t q = 0; q < jb->n_parts && all > 0; q++) {
                dd_ref t = part_keep(bn, jb, &jb->parts[q], all, sj, target, pass == 1);
                dd_deref(d, all);
                all = t;
                trace_all(bn, a, pass, b, q, all);
                /* it will not get small again soon (the live nodes bound it: no walk) */
                if (all > 0 && dd_live_nodes(d) > max && dd_nodes(d, all) > max) {
                    dd_deref(d, all);
                    *exact = false;
                    return DD_FALSE;
                }
            }
        }
    return all;
}

/* ---- the ∀ by products of unions ----
 *
 * A move a of P with several answers b, S a union of parts D_k less their exclusions E_k:
 *   ctx ∧ ¬bad ∧ ∧_b (¬legal_b ∨ tg_b ∨ ∪_k (pre_b(D_k) less pre_b(E_k)))
 * ctx: a legal, within; bad: ∪_{b,q} cond_bq ∧ terminal_bq ∧ ¬target_bq (an answer that
 * ends the game outside the target), kept as exclusions; pre_b(X) = ∪_q cond_bq ∧ X at the
 * successor. The conjunction over b is kept as a union of products, each a part: its
 * diagram the conjunction of one choice per answer, its exclusions theirs, so that neither
 * S nor "¬bad" is ever one diagram (in connect four both are "a line anywhere", exponential;
 * a product is "red completes a line here and there"). A product within a choice of the
 * next answer is kept whole (the other choices would give subsets of it), and a new product
 * within a kept part of the same choice is left out. Exact where no operation gave up; the
 * parts multiply (connect four's α_2: docs/bdd.md). */

typedef struct {
    dd_ref u;       /* the choice's states (right where b is legal, or ¬legal_b) */
    ddexcl_t *x;    /* their exclusions (right where b is legal) */
    uint32_t label; /* the part of S it reads (LABEL_NONE: ¬legal_b or the target) */
} choice_t;

#define LABEL_NONE UINT32_MAX

typedef struct {
    choice_t *c;
    uint32_t n, cap;
    dd_ref legal; /* where b is legal (in ctx) */
} choices_t;

static void choices_add(choices_t *cs, dd_ref u, ddexcl_t *x, uint32_t label) {
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? 2 * cs->cap : 16;
        cs->c = xrealloc(cs->c, cs->cap * sizeof *cs->c);
    }
    cs->c[cs->n++] = (choice_t){u, x, label};
}

/* Adds a choice unless the same one is there (references taken over). */
static void choice_add_new(choices_t *cs, dd_ref u, ddexcl_t *x, uint32_t label, dd_t *d) {
    for (uint32_t k = 0; k < cs->n; k++)
        if (cs->c[k].u == u && cs->c[k].x == x) {
            dd_deref(d, u), ddexcl_free(d, x);
            return;
        }
    choices_add(cs, u, x, label);
}

static void choices_clear(dd_t *d, choices_t *cs) {
    for (uint32_t k = 0; k < cs->n; k++)
        dd_deref(d, cs->c[k].u), ddexcl_free(d, cs->c[k].x);
    dd_deref(d, cs->legal);
    cs->n = 0, cs->legal = DD_FALSE;
}

/* x ∨= y, y's reference taken over; false when it gave up (x then DD_NONE). */
static bool or_into(dd_t *d, dd_ref *x, dd_ref y) {
    dd_ref t = dd_or(d, *x, y);
    dd_deref(d, *x), dd_deref(d, y);
    *x = t;
    return t != DD_NONE;
}

/* pre_b(X) = ∪_q cond_bq ∧ ctx ∧ X at the successor of part q. */
static dd_ref pre_answer(bddnet_t *bn, const joint_t *jb, dd_ref x, dd_ref ctx) {
    dd_t *d = bn->d;
    dd_ref r = DD_FALSE;
    for (uint32_t q = 0; q < jb->n_parts && r != DD_NONE; q++) {
        dd_ref c = dd_and(d, jb->parts[q].cond, ctx);
        if (c == DD_FALSE) continue;
        dd_ref in = succ_in(bn, jb, &jb->parts[q], x), t = dd_and(d, c, in);
        dd_deref(d, c), dd_deref(d, in);
        or_into(d, &r, t);
    }
    return r;
}

/* The exclusions E at the successor under answer b: pre_b of each (*ok false: gave up). */
static ddexcl_t *pre_answer_excl(bddnet_t *bn, const joint_t *jb, const ddexcl_t *e, dd_ref care,
                                 bool *ok) {
    dd_ref *x = xmalloc((e->n + 1) * sizeof *x);
    uint32_t n = 0;
    for (uint32_t k = 0; k < e->n && *ok; k++) { /* read where b is legal (care) only */
        dd_ref t = pre_answer(bn, jb, e->e[k], care);
        x[n] = dd_simplify(bn->d, t, care);
        dd_deref(bn->d, t);
        *ok = x[n++] != DD_NONE;
    }
    for (uint32_t k = 0; !*ok && k < n; k++)
        dd_deref(bn->d, x[k]);
    ddexcl_t *r = ddexcl_make(bn->d, bn->xpool, x, *ok ? n : 0);
    free(x);
    return r;
}

/* The choices of answer b: ¬legal_b, the target, and each part of S read after b, each
 * within legal_b: a product within legal_b and "red completes a line in column 3" after
 * black's drop in column 1 is within the same after black's drop in column 5 (absorbed),
 * where with "¬legal_b ∨" in every choice the states where b is not legal would split it
 * again at every answer. The exclusions are read where b is legal only (simplified there:
 * Coudert and Madre's restrict, care set legal_b). Adds b's bad states to bad. False when
 * an operation gave up (*exact false: the choices are a subset). */
static bool answer_choices(bddnet_t *bn, const joint_t *jb, const ddunion_t *s, uint32_t target,
                           dd_ref ctx, choices_t *cs, ddunion_t *bad, bool *exact) {
    dd_t *d = bn->d;
    dd_ref legal = DD_FALSE, tg = DD_FALSE;
    bool ok = true;
    for (uint32_t q = 0; q < jb->n_parts && ok; q++) {
        const part_t *pt = &jb->parts[q];
        dd_ref c = dd_and(d, pt->cond, ctx);
        if (c == DD_FALSE) continue;
        dd_ref t = target == BDDNET_NO_TARGET ? DD_FALSE : pt->target[target];
        dd_ref term = dd_and(d, c, pt->term), b = dd_diff(d, term, t);
        dd_deref(d, term);
        ok = or_into(d, &legal, dd_dup(d, c)) && or_into(d, &tg, dd_and(d, c, t)) && b != DD_NONE &&
             ddunion_add(d, bad, b);
        dd_deref(d, c);
    }
    if (ok) choices_add(cs, dd_not(d, legal), NULL, LABEL_NONE);
    cs->legal = dd_dup(d, legal);
    if (ok && tg != DD_FALSE) choices_add(cs, dd_dup(d, tg), NULL, LABEL_NONE);
    const ddexcl_t *last_from = NULL;
    ddexcl_t *last_to = NULL;
    for (uint32_t k = 0; k < s->n && ok; k++) {
        dd_ref v = pre_answer(bn, jb, s->part[k], ctx);
        ok = v != DD_NONE;
        if (!ok || v == DD_FALSE) continue;
        if (s->excl[k] && s->excl[k] != last_from) {
            ddexcl_free(d, last_to);
            last_from = s->excl[k], last_to = pre_answer_excl(bn, jb, s->excl[k], legal, &ok);
        }
        choice_add_new(cs, v, ddexcl_dup(s->excl[k] ? last_to : NULL), k, d);
    }
    ddexcl_free(d, last_to);
    for (uint32_t k = 0; k < cs->n && ok; k++)
        ok = cs->c[k].u != DD_NONE;
    dd_deref(d, legal), dd_deref(d, tg);
    if (!ok) *exact = false;
    return ok;
}

/* Is every state of x's union that is in dr in `have`'s union (so dr less have is outside
 * x)? Each list's diagrams in turn; the same list at once. */
static bool excl_covers(dd_t *d, dd_ref dr, const ddexcl_t *have, const ddexcl_t *x) {
    if (!x || x == have) return true;
    bool in = true;
    for (uint32_t k = 0; k < x->n && in; k++) {
        dd_ref t = dd_and(d, dr, x->e[k]);
        for (uint32_t j = 0; have && j < have->n && t > DD_FALSE; j++) {
            dd_ref u = dd_diff(d, t, have->e[j]);
            dd_deref(d, t);
            t = u;
        }
        in = t == DD_FALSE;
        dd_deref(d, t);
    }
    return in;
}

/* Is part (dr less excl) within the choice c? */
static bool within_choice(dd_t *d, dd_ref dr, const ddexcl_t *excl, const choice_t *c) {
    dd_ref t = dd_diff(d, dr, c->u);
    dd_deref(d, t);
    return t == DD_FALSE && excl_covers(d, dr, excl, c->x);
}

/* Is part r (less excl) within the conjunct of answer b (b not legal, or one choice)? A
 * choice is right only where b is legal, so r is read there; its own label's choice first
 * ("red completes a line in column 3" stays so after most black drops). */
static bool absorbed(bddnet_t *bn, dd_ref r, const ddexcl_t *excl, uint32_t label,
                     const choices_t *cs) {
    dd_t *d = bn->d;
    dd_ref rl = dd_and(d, r, cs->legal);
    bool in = rl == DD_FALSE;
    for (uint32_t k = 1; k < cs->n && !in && rl > DD_FALSE; k++) /* its own label first */
        in = cs->c[k].label == label && within_choice(d, rl, excl, &cs->c[k]);
    for (uint32_t k = 1; k < cs->n && !in && rl > DD_FALSE; k++)
        in = cs->c[k].label != label && within_choice(d, rl, excl, &cs->c[k]);
    dd_deref(d, rl);
    return in;
}

/* The products so far: a union (never merged) and per part the label of the choice that
 * made it (the part of S that a product within it most likely reads too). */
typedef struct {
    ddunion_t u;
    uint32_t *lab;
    uint32_t cap;
} prods_t;

static void prods_add(dd_t *d, prods_t *p, dd_ref x, ddexcl_t *excl, uint32_t label) {
    if (p->u.n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->lab = xrealloc(p->lab, p->cap * sizeof *p->lab);
    }
    p->lab[p->u.n] = label;
    ddunion_add_excl(d, &p->u, x, excl); /* x is not false and nothing merges: one push */
}

static void prods_fini(dd_t *d, prods_t *p) {
    ddunion_fini(d, &p->u);
    free(p->lab);
    p->lab = NULL, p->cap = 0;
}

/* Is t (less excl) within one of the parts next[0 .. n) of the same label? */
static bool covered(dd_t *d, dd_ref t, const ddexcl_t *excl, uint32_t label, const prods_t *next,
                    uint32_t n) {
    for (uint32_t k = 0; k < n; k++) {
        if (next->lab[k] != label) continue;
        dd_ref x = dd_diff(d, t, next->u.part[k]);
        bool in = x == DD_FALSE && excl_covers(d, t, excl, next->u.excl[k]);
        dd_deref(d, x);
        if (in) return true;
    }
    return false;
}

/* The products R ∧ (∪ choices) into next, at most max parts (past it the rest is left out:
 * a subset, *exact false). The parts of R within the answer's conjunct go first, as they
 * are; a product within one of them of its choice's label is left out ("red completes lines
 * in columns 2 and 5" is within "... in column 5", kept whole). False past the deadline. */
static bool product(bddnet_t *bn, const prods_t *r, const choices_t *cs, uint64_t max,
                    prods_t *next, bool *exact) {
    dd_t *d = bn->d;
    bool *in = xmalloc((r->u.n + 1) * sizeof *in);
    for (uint32_t i = 0; i < r->u.n; i++)
        if ((in[i] = absorbed(bn, r->u.part[i], r->u.excl[i], r->lab[i], cs)))
            prods_add(d, next, dd_dup(d, r->u.part[i]), ddexcl_dup(r->u.excl[i]), r->lab[i]);
    uint32_t kept = next->u.n;
    bool ok = true;
    for (uint32_t i = 0; i < r->u.n && ok; i++) {
        if (in[i]) continue;
        for (uint32_t k = 0; k < cs->n && ok; k++) {
            dd_ref t = dd_and(d, r->u.part[i], cs->c[k].u);
            ok = !past_deadline(bn, t);
            if (t == DD_NONE) *exact = false;
            if (t <= DD_FALSE) continue;
            ddexcl_t *x = ddexcl_join(d, bn->xpool, r->u.excl[i], cs->c[k].x);
            if (covered(d, t, x, cs->c[k].label, next, kept)) {
                dd_deref(d, t), ddexcl_free(d, x);
                continue;
            }
            prods_add(d, next, t, x, cs->c[k].label);
            if (next->u.n > max) {
                *exact = false;
                free(in);
                return true;
            }
        }
    }
    free(in);
    return ok;
}

static void trace_product(bddnet_t *bn, uint32_t a, uint32_t b, uint32_t choices,
                          const prods_t *p) {
    if (!bn->o.trace) return;
    fprintf(bn->o.trace,
            "# trace product move=%u answer=%u choices=%u parts=%u nodes=%llu live=%llu "
            "cpu=%.3f\n",
            a, b, choices, p->u.n, (unsigned long long)ddunion_nodes(bn->d, &p->u),
            (unsigned long long)dd_live_nodes(bn->d), cpu_seconds());
    fflush(bn->o.trace);
}

#define PRODUCT_PARTS 20000 /* parts of a move's product at most (past it: a subset) */

/* The states of P's move a (the first joint move of it) as parts into out (see above). */
static bool pre_product(bddnet_t *bn, uint32_t a, const ddunion_t *s, uint32_t target, uint64_t p,
                        dd_ref within, ddunion_t *out, bool *exact) {
    dd_t *d = bn->d;
    const joint_t *ja = &bn->joints[a];
    dd_ref legal = joint_legal(bn, ja, p), ctx = dd_and(d, legal, within);
    dd_deref(d, legal);
    prods_t r = {0};
    ddunion_t bad;
    ddunion_init(&r.u, 0), ddunion_init(&bad, out->merge);
    bool ok = ctx != DD_NONE;
    if (ctx > DD_FALSE) prods_add(d, &r, dd_dup(d, ctx), NULL, LABEL_NONE);
    choices_t cs = {0};
    for (uint32_t b = a; b < bn->n_joints && ok && r.u.n; b++) {
        const joint_t *jb = &bn->joints[b];
        if (!same_moves(bn, ja, jb, p)) continue;
        ok = answer_choices(bn, jb, s, target, ctx, &cs, &bad, exact);
        prods_t next = {0};
        ddunion_init(&next.u, 0);
        ok = ok && product(bn, &r, &cs, PRODUCT_PARTS, &next, exact);
        trace_product(bn, a, b, cs.n, &next);
        choices_clear(d, &cs);
        prods_fini(d, &r);
        r = next;
    }
    free(cs.c);
    ddexcl_t *bx = ddexcl_make(d, bn->xpool, bad.part, bad.n); /* references taken over */
    bad.n = 0;
    ddunion_fini(d, &bad);
    for (uint32_t i = 0; i < r.u.n && ok; i++)
        ok = add_set_excl(bn, out, dd_dup(d, r.u.part[i]),
                          ddexcl_join(d, bn->xpool, r.u.excl[i], bx), within, exact);
    ddexcl_free(d, bx);
    prods_fini(d, &r);
    dd_deref(d, ctx);
    if (!ok) *exact = false; /* the move's states left out: a subset */
    return ok || !dd_out_of_time(d);
}

/* Move a's states by the ∀ over S joined (sj) into out; with opts.forall AUTO, where that
 * gives up (a set past its cap, an operation past its node limit), by products instead
 * (breakthrough's α_2: S joins in 38,440 nodes, the ∀ passes 100,000). False past the
 * deadline. */
static bool pre_joined(bddnet_t *bn, uint32_t a, const ddunion_t *s, dd_ref sj, uint32_t target,
                       uint64_t p, dd_ref within, ddunion_t *out, bool *exact) {
    bool ex = true, ok;
    dd_ref x = pre_all(bn, a, sj, target, p, within, &ex);
    if (!ex && bn->o.forall == BDDNET_AUTO && !past_deadline(bn, x)) {
        dd_deref(bn->d, x);
        ex = true;
        ok = pre_product(bn, a, s, target, p, within, out, &ex);
    } else {
        ok = !past_deadline(bn, x) && add_set(bn, out, x, within, &ex);
    }
    if (!ex) *exact = false;
    return ok;
}

/* The parts of P's joint move a and of every answer to it (the joint moves after a with
 * P's same moves) made: 1, 0 (a part given up), -1 (the deadline). */
static int ready_answers(bddnet_t *bn, uint32_t a, uint64_t p) {
    int r = 1;
    for (uint32_t b = a; b < bn->n_joints && r > 0; b++)
        if (b == a || same_moves(bn, &bn->joints[a], &bn->joints[b], p)) r = ready_joint(bn, b);
    return r;
}

/* P's moves (the first joint move of each, in *first; n of them) and whether each has one
 * answer (one[k]). */
static uint32_t p_moves(bddnet_t *bn, uint64_t p, uint32_t *first, bool *one) {
    uint32_t n = 0;
    for (uint32_t a = 0; a < bn->n_joints; a++) {
        bool is_first = true, alone = true;
        for (uint32_t e = 0; e < a && is_first; e++)
            is_first = !same_moves(bn, &bn->joints[e], &bn->joints[a], p);
        if (!is_first) continue;
        for (uint32_t b = a + 1; b < bn->n_joints && alone; b++)
            alone = !same_moves(bn, &bn->joints[a], &bn->joints[b], p);
        first[n] = a, one[n++] = alone;
    }
    return n;
}

/* PER_MOVE: over P's joint moves a, those with one answer first (an ∃ each: cheap, and
 * where the others move, such as nineBoardTicTacToe's α_1 with O to move, the ∀ over their
 * 81 answers makes 5,184 parts' successors first; a step cut by the budget keeps what it
 * finished). The joint moves no state allows are left out: where legal(a) holds, legal(b)
 * is false for them. A move with one answer reads fresh (and the target where
 * spread_target), one with several all of s. */
static bool pre_per_move(bddnet_t *bn, const ddunion_t *s, const ddunion_t *fresh, uint32_t target,
                         bool spread_target, uint64_t p, dd_ref within, ddunion_t *out,
                         bool *exact) {
    dd_t *d = bn->d;
    dd_ref sj = DD_NONE; /* S as one diagram, made when needed */
    bool ok = true, products = bn->o.forall == BDDNET_PRODUCTS;
    uint32_t *first = xmalloc((bn->n_joints + 1) * sizeof *first);
    bool *one = xmalloc((bn->n_joints + 1) * sizeof *one);
    uint32_t n = p_moves(bn, p, first, one);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < n && ok; k++) {
            uint32_t a = first[k];
            if (one[k] != (pass == 0) || (one[k] && !fresh->n && !spread_target)) continue;
            int ready = ready_answers(bn, a, p);
            if (ready <= 0) { /* a part given up: the move's states left out (a subset) */
                *exact = false;
                ok = ready == 0;
                continue;
            }
            if (one[k]) {
                ok = pre_spread(bn, &bn->joints[a], fresh,
                                spread_target ? target : BDDNET_NO_TARGET, within, out, exact);
                continue;
            }
            if (sj == DD_NONE && !products) sj = joined_all(bn, s, exact, &products);
            if (products) {
                ok = pre_product(bn, a, s, target, p, within, out, exact);
                continue;
            }
            ok = !past_deadline(bn, sj) && pre_joined(bn, a, s, sj, target, p, within, out, exact);
        }
    free(first), free(one);
    dd_deref(d, sj);
    return ok;
}

static bool pre_image(bddnet_t *bn, const ddunion_t *s, const ddunion_t *fresh, uint32_t target,
                      uint64_t p, dd_ref within, ddunion_t *out, bool *exact) {
    *exact = true;
    if (bn->o.image == BDDNET_PER_MOVE)
        return pre_per_move(bn, s, fresh ? fresh : s, target, !fresh, p, within, out, exact);
    int ready = ready_joint(bn, 0); /* SUBST: one part, every move */
    if (ready <= 0) {
        *exact = false;
        return ready == 0;
    }
    dd_ref sj = joined(bn, s, exact);
    if (past_deadline(bn, sj)) return false;
    return add_set(bn, out, pre_subst(bn, sj, target, p), within, exact);
}

bool bddnet_pre(bddnet_t *bn, const ddunion_t *s, const ddunion_t *fresh, uint32_t target,
                uint64_t p, dd_ref within, ddunion_t *out, bool *exact) {
    bool ok = pre_image(bn, s, fresh, target, p, within, out, exact);
    if (bn->n_unk) *exact = false; /* for every value of an unknown: a subset */
    return ok;
}

/* ---- turn-taking ---- */

static uint32_t move_index(const gnet_t *net, uint32_t r, term_t m) {
    for (uint32_t k = 0; k < net->n_moves[r]; k++)
        if (net->move_term[r][k] == m) return k;
    return UINT32_MAX;
}

/* only the no-op is legal for role r (which may be absent: then never) */
static dd_ref only_noop(bddnet_t *bn, uint32_t r, uint32_t noop) {
    if (noop == UINT32_MAX) return DD_FALSE;
    dd_ref x = dd_dup(bn->d, bn->legal[r][noop]);
    for (uint32_t k = 0; k < bn->net->n_moves[r]; k++) {
        if (k == noop) continue;
        dd_ref no = dd_not(bn->d, bn->legal[r][k]), t = dd_and(bn->d, x, no);
        dd_deref(bn->d, no), dd_deref(bn->d, x);
        x = t;
    }
    return x;
}

dd_ref bddnet_moves_here(bddnet_t *bn, uint32_t mover, const term_t *noop) {
    if (!noop) return DD_FALSE;
    if (bn->moves_here[mover] != DD_NONE) return bn->moves_here[mover];
    const gnet_t *net = bn->net;
    dd_t *d = bn->d;
    uint32_t own = move_index(net, mover, noop[mover]);
    dd_ref x = own == UINT32_MAX ? DD_TRUE : dd_not(d, bn->legal[mover][own]);
    for (uint32_t r = 0; r < net->n_roles; r++) {
        if (r == mover) continue;
        dd_ref o = only_noop(bn, r, move_index(net, r, noop[r])), t = dd_and(d, x, o);
        dd_deref(d, o), dd_deref(d, x);
        x = t;
    }
    if (bn->n_unk && x > DD_TRUE) { /* the mover's turn whatever the unknowns: a subset */
        dd_ref all = dd_forall(d, x, bn->unk_now);
        dd_deref(d, x);
        x = all;
    }
    if (x >= 0) bn->moves_here[mover] = x;
    return x;
}

void bddnet_reorder(bddnet_t *bn, uint64_t *before, uint64_t *after) {
    dd_reorder(bn->d, before, after);
}
