/* The BuDDy bridge: see bdd.h.
 *
 * Bounded work: BuDDy has no deadline of its own, but it calls a hook after every garbage
 * collection (the node table ran full) and an error handler when the table cannot grow
 * past the node limit. Both leave the kernel consistent (BuDDy itself long-jumps out of the
 * same place to reorder), so while an operation runs they long-jump back to it, which
 * then returns DD_NONE; the next operation starts from a clean kernel.
 *
 * Collections alone come too seldom: after the table grows, one operation can fill its
 * free half for half a minute (othelloSuicide's network: 44 s past a 10 s budget). So a
 * timer signals the operation's thread at the deadline, and the handler trips two wires
 * (BuDDy 2.4's kernel globals, not in bdd.h), writing only pointers and ints:
 * - it empties BuDDy's free list (its head, bddfreepos): the next node the operation makes
 *   collects garbage first, and the hook gives up there;
 * - it points BuDDy's reference stack (bddrefstack and its top) into a mapping that may not
 *   be touched: an operation that makes no node (every result already in the node table,
 *   the cache thrashed: checkers-mustjump-torus's invariants ran 100 s past their budget)
 *   still pushes or reads a partial result on that stack between two recursive steps, and
 *   faults there. The fault's handler long-jumps back to the operation: at that point the
 *   kernel is between two steps of a recursion, its node table and hash chains whole; a
 *   cache entry half written is dropped with every cache when the operation gives up
 *   (bdd_clear_error empties them). Only the stack is read by a collection (its marks), so
 *   the collection's own hook puts it back before anything else, and the handler leaves it
 *   alone while a collection runs.
 * The handler itself never jumps (it may interrupt a collection, a resize or malloc); a
 * write that the kernel overwrites is tried again a millisecond later. */
#define _GNU_SOURCE /* SIGEV_THREAD_ID, gettid */
#include "logic/bdd.h"

#include <bdd.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/util.h"

struct dd {
    uint32_t n_vars;
    bool grouped; /* dd_group was called (else each variable sifts alone) */
    double deadline;
    uint64_t op_nodes; /* nodes one operation may add (0: no limit) */
    uint64_t op_start; /* nodes in use when the running operation started */
    bool cut_next;     /* dd_cut_next: cut the next operation at its first step */
    const char *why;
    /* the variables' numbers in BuDDy where dd_set_order numbered them on a fresh manager
     * (NULL: the same): BuDDy's level l is its variable l there, no reorder made */
    int *in;
    uint32_t *out;
};

static int in_var(const dd_t *d, uint32_t v) {
    return d->in ? d->in[v] : (int)v;
}
static uint32_t out_var(const dd_t *d, int v) {
    return d->out ? d->out[v] : (uint32_t)v;
}

struct dd_subst {
    bddPair *pair;
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static dd_t *live;                      /* the one manager (BuDDy is global) */
static jmp_buf *volatile jump;          /* set while an operation runs: where to give up to */
static const char *fail;                /* why it gave up */
static volatile sig_atomic_t cut_asked; /* the timer fired in the running operation */
static uint64_t cuts_inside;            /* operations the timer cut */

extern int bddfreepos;   /* BuDDy's free list: 0 makes the next new node collect first */
extern int *bddrefstack; /* BuDDy's reference stack: the partial results a collection keeps */
extern int *bddrefstacktop;

/* What dd_why says for the two reasons callers act on (dd_out_of_time, dd_at_node_limit). */
#define WHY_DEADLINE "deadline"
#define WHY_NODE_LIMIT "node limit"
#define WHY_OP_LIMIT "operation node limit"

/* ---- the wire on the reference stack (see the top of the file) ---- */

/* The mapping no access may touch; the stack points to its middle, so that the pushes and
 * pops of one recursion (at most two per level, 100,000 levels) before its next access
 * stay inside it. */
#define TRAP_BYTES ((size_t)8 << 20)

static char *trap_lo;                /* the mapping (NULL: none, no wire) */
static int *trap;                    /* its middle */
static int *saved_stack;             /* bddrefstack before the wire was tripped */
static volatile sig_atomic_t in_gbc; /* a collection runs: its marks read the stack */
static struct sigaction prev_segv;   /* the handler before ours, for faults not ours */

/* The kernel's globals, read and written here as the signal handler sees them. */
#define STACK (*(int *volatile *)&bddrefstack)
#define STACK_TOP (*(int *volatile *)&bddrefstacktop)

static bool in_trap(const void *p) {
    return trap_lo && (const char *)p >= trap_lo && (const char *)p < trap_lo + TRAP_BYTES;
}

static bool segv_ours(void);

/* Asks the running operation to stop: at its next new node, or at its next access to the
 * reference stack, whichever comes first. Writes only (async-signal-safe). */
static void trip(void) {
    cut_asked = 1;
    bddfreepos = 0;
    if (in_gbc || !trap || (STACK != trap && !segv_ours())) return;
    if (STACK != trap) saved_stack = STACK;
    STACK = STACK_TOP = trap;
}

/* The stack as it was (its top, if tripped, at its bottom: BuDDy's operations leave it
 * empty when they end, and one given up drops its partial results). */
static void untrip(void) {
    if (STACK == trap) STACK = saved_stack;
    if (in_trap(STACK_TOP)) STACK_TOP = STACK;
}

/* A fault on the wire inside an operation gives the operation up; any other fault goes to
 * the handler there was before (ours is taken off, the access faults again). */
static void on_segv(int sig, siginfo_t *si, void *uc) {
    (void)sig, (void)uc;
    if (jump && in_trap(si->si_addr)) {
        fail = WHY_DEADLINE;
        longjmp(*jump, 1);
    }
    sigaction(SIGSEGV, &prev_segv, NULL);
}

/* ---- the deadline's timer ---- */

#define TICK_SIGNAL (SIGRTMIN + 5)
#define TICK_RETRY_NS 1000000 /* a write the kernel overwrote is tried again after 1 ms */

static timer_t tick;
static pid_t tick_tid;  /* the thread the timer signals (0: no timer) */
static double tick_for; /* the deadline it is set for (0: disarmed) */

static void tick_at(const struct itimerspec *when, int flags) {
    timer_settime(tick, flags, when, NULL);
}

/* Only writes ints, pointers and the timer, and asks which fault handler is in place
 * (async-signal-safe); the retry of a signal that came as an operation ended checks the
 * clock, so that it cuts no later one before its deadline. */
static void on_tick(int sig) {
    (void)sig;
    /* between operations, or before this one set its jump: it checks the deadline after */
    if (!jump || !live) return;
    if (live->deadline <= 0 || now_seconds() < live->deadline) return;
    trip();
    tick_at(&(struct itimerspec){.it_value = {.tv_nsec = TICK_RETRY_NS}}, 0);
}

/* The timer's handler and the trap's mapping, once per process. */
static void install_cuts(void) {
    struct sigaction sa = {.sa_handler = on_tick, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(TICK_SIGNAL, &sa, NULL);
    if (bdd_versionnum() != 24) return; /* another kernel: no wire on its stack */
    void *m = mmap(NULL, TRAP_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return;
    trap_lo = m;
    trap = (int *)(trap_lo + TRAP_BYTES / 2);
}

/* The fault's handler (SA_NODEFER: it leaves by a long jump, which does not unblock a
 * signal), at every new manager unless it is in place: a program (a test harness) may have
 * put its own since; without it the wire stays off. */
static void install_segv(void) {
    struct sigaction cur, sv = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
    if (!trap_lo || sigaction(SIGSEGV, NULL, &cur) != 0) return;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv) return;
    sigemptyset(&sv.sa_mask);
    sigaction(SIGSEGV, &sv, &prev_segv);
}

/* Our fault handler is in place (another may have been put since: the wire stays off). */
static bool segv_ours(void) {
    struct sigaction cur;
    return sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
           cur.sa_sigaction == on_segv;
}

static pthread_once_t cuts_once = PTHREAD_ONCE_INIT;

/* The timer signals the calling thread (the one running operations) at the deadline. */
static void arm_tick(double deadline) {
    tick_for = deadline;                /* tried once per deadline */
    if (bdd_versionnum() != 24) return; /* another kernel: collections alone check it */
    pid_t tid = gettid();
    if (tick_tid != tid) {
        if (tick_tid) timer_delete(tick);
        struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = TICK_SIGNAL};
        ev._sigev_un._tid = tid; /* sigev_notify_thread_id: not named in glibc 2.36 */
        tick_tid = timer_create(CLOCK_MONOTONIC, &ev, &tick) == 0 ? tid : 0;
        if (!tick_tid) return; /* no timer: collections alone check the deadline */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, TICK_SIGNAL);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    }
    /* now_seconds() is CLOCK_MONOTONIC */
    double whole = (double)(time_t)deadline;
    struct itimerspec at = {
        .it_value = {.tv_sec = (time_t)whole, .tv_nsec = (long)((deadline - whole) * 1e9)}};
    tick_at(&at, TIMER_ABSTIME);
}

static void disarm_tick(void) {
    if (tick_tid && tick_for > 0) tick_at(&(struct itimerspec){0}, 0);
    tick_for = 0;
}

static void drop_tick(void) {
    if (tick_tid) timer_delete(tick);
    tick_tid = 0, tick_for = 0;
}

/* After a collection the nodes in use are the live diagrams and the running operation's
 * partial results (BuDDy keeps those referenced): what it added so far, or more. */
static void on_gbc(int pre, bddGbcStat *st) {
    if (!jump) return;
    if (pre) { /* the stack put back before the collection marks it; the wire stays off */
        in_gbc = 1;
        atomic_signal_fence(memory_order_seq_cst);
        untrip();
        if (!cut_asked) return;
        in_gbc = 0; /* nothing collected yet: give up before */
        fail = WHY_DEADLINE;
        longjmp(*jump, 1);
    }
    in_gbc = 0;
    if (cut_asked || (live->deadline > 0 && now_seconds() > live->deadline)) {
        fail = WHY_DEADLINE;
        longjmp(*jump, 1);
    }
    uint64_t used = (uint64_t)(st->nodes - st->freenodes);
    if (live->op_nodes && used > live->op_start + live->op_nodes) {
        fail = WHY_OP_LIMIT;
        longjmp(*jump, 1);
    }
}

static void on_error(int code) {
    /* the free list the timer emptied, found empty again right after a collection */
    fail = cut_asked             ? WHY_DEADLINE
           : code == BDD_NODENUM ? WHY_NODE_LIMIT
           : code == BDD_MEMORY  ? "out of memory"
                                 : bdd_errstring(code);
    if (jump) longjmp(*jump, 1);
    die("dd: BuDDy: %s", fail); /* outside an operation: a bug of the caller */
}

dd_t *dd_new(uint32_t n_vars, const dd_limits_t *lim, char *err, size_t errlen) {
    pthread_mutex_lock(&live_lock);
    if (live) {
        pthread_mutex_unlock(&live_lock);
        snprintf(err, errlen, "another decision-diagram manager is in use (one per process)");
        return NULL;
    }
    uint32_t max = lim && lim->max_nodes ? lim->max_nodes : 4u << 20;
    /* BuDDy grows its table as needed: a small start spares small games the setup */
    uint32_t start = max / 2 < (1u << 16) ? max / 2 : 1u << 16;
    if (lim && lim->start_nodes) start = lim->start_nodes < max ? lim->start_nodes : max;
    if (n_vars == 0 || n_vars > 100000 || bdd_init((int)start, 1 << 16) < 0) {
        pthread_mutex_unlock(&live_lock);
        snprintf(err, errlen, "BuDDy does not start with %u variables", n_vars);
        return NULL;
    }
    pthread_once(&cuts_once, install_cuts);
    install_segv();
    dd_t *d = xcalloc(1, sizeof *d);
    live = d;
    pthread_mutex_unlock(&live_lock);
    bdd_error_hook(on_error);
    bdd_gbc_hook(on_gbc);
    bdd_reorder_verbose(0);
    bdd_setcacheratio(4);
    bdd_setmaxincrease(1 << 20);
    bdd_setmaxnodenum((int)max > bdd_getallocnum() ? (int)max : bdd_getallocnum() + 1);
    bdd_setvarnum((int)n_vars);
    /* BuDDy 2.4's apply moves the stack's top before the recursive call whose result it
     * stores there, so a collection under that call marks a slot not yet written: stale
     * numbers of nodes are harmless (marked or free), but fresh memory the allocator had
     * handed out before holds garbage (alexChess's network crashed in bdd_mark). Its
     * size: bdd_setvarnum's. */
    if (bdd_versionnum() == 24) memset(bddrefstack, 0, (2 * (size_t)n_vars + 4) * sizeof(int));
    d->n_vars = n_vars;
    d->deadline = lim ? lim->deadline : 0;
    d->why = "";
    return d;
}

void dd_free(dd_t *d) {
    if (!d) return;
    pthread_mutex_lock(&live_lock);
    drop_tick();
    bdd_done();
    live = NULL;
    pthread_mutex_unlock(&live_lock);
    free(d->in), free(d->out);
    free(d);
}

uint32_t dd_var_count(const dd_t *d) {
    return d->n_vars;
}
void dd_set_deadline(dd_t *d, double deadline) {
    d->deadline = deadline;
    if (deadline <= 0) disarm_tick();
}
double dd_deadline(const dd_t *d) {
    return d->deadline;
}
void dd_set_op_nodes(dd_t *d, uint64_t nodes) {
    d->op_nodes = nodes;
}
uint64_t dd_op_nodes(const dd_t *d) {
    return d->op_nodes;
}
const char *dd_why(const dd_t *d) {
    return d->why;
}
bool dd_out_of_time(const dd_t *d) {
    return !strcmp(d->why, WHY_DEADLINE);
}
bool dd_at_node_limit(const dd_t *d) {
    return !strcmp(d->why, WHY_NODE_LIMIT);
}
bool dd_at_op_limit(const dd_t *d) {
    return !strcmp(d->why, WHY_OP_LIMIT);
}
void dd_cut_next(dd_t *d) {
    d->cut_next = true;
}
uint64_t dd_cuts_inside(const dd_t *d) {
    (void)d;
    return cuts_inside;
}
uint64_t dd_produced(dd_t *d) {
    (void)d;
    bddStat st;
    bdd_stats(&st);
    return (uint64_t)st.produced;
}

dd_ref dd_dup(dd_t *d, dd_ref a) {
    (void)d;
    return a < 0 ? a : bdd_addref(a);
}

void dd_deref(dd_t *d, dd_ref a) {
    (void)d;
    if (a > 1) bdd_delref(a);
}

/* ---- operations, each bounded ---- */

typedef enum {
    OP_NOT,
    OP_APPLY,
    OP_ITE,
    OP_EXIST,
    OP_FORALL,
    OP_APPEX,
    OP_APPALL,
    OP_RESTRICT,
    OP_SIMPLIFY,
    OP_COMPOSE,
    OP_REPLACE
} op_t;

typedef struct {
    op_t op;
    int bop; /* bddop_* for apply, appex, appall */
    BDD a, b, c;
    bddPair *pair;
} call_t;

static BDD call(const call_t *c) {
    switch (c->op) {
    case OP_NOT:
        return bdd_not(c->a);
    case OP_APPLY:
        return bdd_apply(c->a, c->b, c->bop);
    case OP_ITE:
        return bdd_ite(c->a, c->b, c->c);
    case OP_EXIST:
        return bdd_exist(c->a, c->b);
    case OP_FORALL:
        return bdd_forall(c->a, c->b);
    case OP_APPEX:
        return bdd_appex(c->a, c->b, c->bop, c->c);
    case OP_APPALL:
        return bdd_appall(c->a, c->b, c->bop, c->c);
    case OP_RESTRICT:
        return bdd_restrict(c->a, c->b);
    case OP_SIMPLIFY:
        return bdd_simplify(c->a, c->b);
    case OP_COMPOSE:
        return bdd_veccompose(c->a, c->pair);
    case OP_REPLACE:
        return bdd_replace(c->a, c->pair);
    }
    return bddfalse;
}

static dd_ref guarded(dd_t *d, const call_t *c) {
    if (c->a < 0 || c->b < 0 || c->c < 0) return DD_NONE;
    if (d->deadline > 0 && now_seconds() > d->deadline) {
        d->why = WHY_DEADLINE;
        return DD_NONE;
    }
    if (d->deadline > 0 && tick_for != d->deadline) arm_tick(d->deadline);
    jmp_buf env;
    if (setjmp(env)) {
        jump = NULL;
        atomic_signal_fence(memory_order_seq_cst);
        in_gbc = 0;
        untrip();
        bdd_clear_error(); /* also empties the caches: an entry may be half written */
        d->why = fail;
        if (cut_asked) cuts_inside++, disarm_tick();
        return DD_NONE;
    }
    cut_asked = 0;
    d->op_start = (uint64_t)bdd_getnodenum();
    jump = &env;
    atomic_signal_fence(memory_order_seq_cst);
    /* The timer's signal that came before the jump was set found no operation to cut and
     * was dropped (the deadline passed between the check above and here: a deadline a few
     * microseconds ahead, or a thread preempted here on a loaded machine; the operation
     * then ran 1.5 s past it): a deadline passed by now cuts the operation at once. */
    if (d->cut_next || (d->deadline > 0 && now_seconds() >= d->deadline))
        d->cut_next = false, trip();
    BDD r = call(c);
    jump = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    untrip(); /* the timer may have tripped the wire as the operation ended */
    return bdd_addref(r);
}

dd_ref dd_var(dd_t *d, uint32_t v) {
    return bdd_ithvar(in_var(d, v)); /* BuDDy keeps variables referenced */
}
dd_ref dd_nvar(dd_t *d, uint32_t v) {
    return bdd_nithvar(in_var(d, v));
}
dd_ref dd_not(dd_t *d, dd_ref a) {
    return guarded(d, &(call_t){.op = OP_NOT, .a = a});
}
static dd_ref apply(dd_t *d, dd_ref a, dd_ref b, int op) {
    return guarded(d, &(call_t){.op = OP_APPLY, .bop = op, .a = a, .b = b});
}
dd_ref dd_and(dd_t *d, dd_ref a, dd_ref b) {
    return apply(d, a, b, bddop_and);
}
dd_ref dd_or(dd_t *d, dd_ref a, dd_ref b) {
    return apply(d, a, b, bddop_or);
}
dd_ref dd_imp(dd_t *d, dd_ref a, dd_ref b) {
    return apply(d, a, b, bddop_imp);
}
dd_ref dd_diff(dd_t *d, dd_ref a, dd_ref b) {
    return apply(d, a, b, bddop_diff);
}
dd_ref dd_biimp(dd_t *d, dd_ref a, dd_ref b) {
    return apply(d, a, b, bddop_biimp);
}
dd_ref dd_ite(dd_t *d, dd_ref c, dd_ref t, dd_ref e) {
    return guarded(d, &(call_t){.op = OP_ITE, .a = c, .b = t, .c = e});
}

dd_ref dd_cube(dd_t *d, const uint32_t *vars, const bool *vals, uint32_t n) {
    dd_ref r = DD_TRUE;
    for (uint32_t k = n; k-- > 0;) {
        dd_ref lit = !vals || vals[k] ? dd_var(d, vars[k]) : dd_nvar(d, vars[k]);
        dd_ref t = dd_and(d, r, lit);
        dd_deref(d, r);
        r = t;
    }
    return r;
}

dd_ref dd_exists(dd_t *d, dd_ref a, dd_ref vars) {
    return guarded(d, &(call_t){.op = OP_EXIST, .a = a, .b = vars});
}
dd_ref dd_forall(dd_t *d, dd_ref a, dd_ref vars) {
    return guarded(d, &(call_t){.op = OP_FORALL, .a = a, .b = vars});
}
dd_ref dd_and_exists(dd_t *d, dd_ref a, dd_ref b, dd_ref vars) {
    return guarded(d, &(call_t){.op = OP_APPEX, .bop = bddop_and, .a = a, .b = b, .c = vars});
}
dd_ref dd_imp_forall(dd_t *d, dd_ref a, dd_ref b, dd_ref vars) {
    return guarded(d, &(call_t){.op = OP_APPALL, .bop = bddop_imp, .a = a, .b = b, .c = vars});
}
dd_ref dd_restrict(dd_t *d, dd_ref a, dd_ref cube) {
    return guarded(d, &(call_t){.op = OP_RESTRICT, .a = a, .b = cube});
}

dd_ref dd_simplify(dd_t *d, dd_ref a, dd_ref care) {
    return guarded(d, &(call_t){.op = OP_SIMPLIFY, .a = a, .b = care});
}

/* ---- substitution ---- */

dd_subst_t *dd_subst_new(dd_t *d) {
    (void)d;
    dd_subst_t *s = xcalloc(1, sizeof *s);
    s->pair = bdd_newpair();
    if (!s->pair) die("dd: BuDDy: no substitution table");
    return s;
}

void dd_subst_set(dd_t *d, dd_subst_t *s, uint32_t var, dd_ref f) {
    if (f < 0) die("dd_subst_set: no diagram for variable %u", var);
    bdd_setbddpair(s->pair, in_var(d, var), f); /* the pair holds its own reference */
}

dd_ref dd_subst(dd_t *d, dd_ref a, const dd_subst_t *s) {
    return guarded(d, &(call_t){.op = OP_COMPOSE, .a = a, .pair = s->pair});
}

void dd_subst_rename(dd_t *d, dd_subst_t *s, uint32_t var, uint32_t to) {
    bdd_setpair(s->pair, in_var(d, var), in_var(d, to));
}

dd_ref dd_rename(dd_t *d, dd_ref a, const dd_subst_t *s) {
    return guarded(d, &(call_t){.op = OP_REPLACE, .a = a, .pair = s->pair});
}

void dd_subst_free(dd_t *d, dd_subst_t *s) {
    (void)d;
    if (!s) return;
    bdd_freepair(s->pair);
    free(s);
}

/* ---- sizes and evaluation ---- */

uint64_t dd_nodes(dd_t *d, dd_ref a) {
    (void)d;
    return a < 0 ? 0 : (uint64_t)bdd_nodecount(a);
}

uint64_t dd_nodes_shared(dd_t *d, const dd_ref *a, uint32_t n) {
    (void)d;
    BDD *v = xmalloc((n + 1) * sizeof *v);
    int m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (a[k] >= 0) v[m++] = a[k];
    uint64_t c = m ? (uint64_t)bdd_anodecount(v, m) : 0;
    free(v);
    return c;
}

double dd_count(dd_t *d, dd_ref a, dd_ref vars) {
    (void)d;
    return a < 0 ? 0 : bdd_satcountset(a, vars);
}

bool dd_eval(dd_t *d, dd_ref a, const uint8_t *values) {
    while (a > 1)
        a = values[out_var(d, bdd_var(a))] ? bdd_high(a) : bdd_low(a);
    return a == 1;
}

bool dd_pick(dd_t *d, dd_ref a, uint8_t *values) {
    if (a <= 0) return false;
    while (a > 1) { /* reduced: every node but false reaches true */
        bool hi = bdd_low(a) == 0;
        values[out_var(d, bdd_var(a))] = hi;
        a = hi ? bdd_high(a) : bdd_low(a);
    }
    return true;
}

/* ---- order ---- */

/* A manager with no node but its variables' and no block (right after dd_new): the
 * variables numbered so that BuDDy's variable l is level_var[l], in its initial order. */
static bool fresh(const dd_t *d) {
    return !d->in && !d->grouped && bdd_getnodenum() <= 2 * (int)d->n_vars + 2;
}

void dd_set_order(dd_t *d, const uint32_t *level_var) {
    if (fresh(d)) { /* no swap: bdd_setvarorder swapped level by level (zombieAttack1PL6,
                       1,976 variables: 3 CPU s) */
        d->in = xmalloc((d->n_vars + 1) * sizeof *d->in);
        d->out = xmalloc((d->n_vars + 1) * sizeof *d->out);
        for (uint32_t l = 0; l < d->n_vars; l++)
            d->in[level_var[l]] = (int)l, d->out[l] = level_var[l];
        return;
    }
    int *o = xmalloc(d->n_vars * sizeof *o);
    for (uint32_t l = 0; l < d->n_vars; l++)
        o[l] = in_var(d, level_var[l]);
    bdd_clrvarblocks(); /* BuDDy swaps variables only without blocks */
    d->grouped = false;
    bdd_setvarorder(o);
    free(o);
}

uint32_t dd_level_of(dd_t *d, uint32_t v) {
    return (uint32_t)bdd_var2level(in_var(d, v));
}

void dd_group(dd_t *d, uint32_t first, uint32_t last) {
    d->grouped = true;
    int lo = in_var(d, first), hi = lo; /* BuDDy's block: a range of its numbers */
    for (uint32_t v = first + 1; v <= last; v++) {
        int x = in_var(d, v);
        lo = x < lo ? x : lo, hi = x > hi ? x : hi;
    }
    if ((uint32_t)(hi - lo) != last - first)
        die("dd_group: variables %u..%u not adjacent in the order", first, last);
    bdd_intaddvarblock(lo, hi, BDD_REORDER_FREE);
}

void dd_reorder(dd_t *d, uint64_t *before, uint64_t *after) {
    bdd_gbc();
    *before = (uint64_t)(bdd_getnodenum());
    if (!d->grouped) { /* BuDDy sifts blocks only */
        bdd_varblockall();
        d->grouped = true;
    }
    bdd_reorder(BDD_REORDER_SIFT);
    bdd_gbc();
    *after = (uint64_t)(bdd_getnodenum());
}

uint64_t dd_live_nodes(dd_t *d) {
    (void)d;
    return (uint64_t)bdd_getnodenum();
}

/* ---- export ---- */

typedef struct {
    const dd_t *d;
    uint32_t *index; /* BuDDy node -> flat index + 1 (0: not yet) */
    ddflat_t *out;
    uint32_t cap;
} export_t;

static uint32_t export_node(export_t *x, BDD a) {
    if (a <= 1) return (uint32_t)a;
    if (x->index[a]) return x->index[a] - 1;
    /* children first (depth at most the number of variables) */
    uint32_t lo = export_node(x, bdd_low(a)), hi = export_node(x, bdd_high(a));
    ddflat_t *f = x->out;
    if (f->n_nodes == x->cap) {
        x->cap *= 2;
        f->nodes = xrealloc(f->nodes, x->cap * sizeof *f->nodes);
    }
    f->nodes[f->n_nodes] = (ddnode_t){.var = out_var(x->d, bdd_var(a)), .lo = lo, .hi = hi};
    x->index[a] = ++f->n_nodes;
    return f->n_nodes - 1;
}

void dd_export(dd_t *d, const dd_ref *roots, uint32_t n, ddflat_t *out) {
    free(out->nodes), free(out->roots);
    export_t x = {.d = d,
                  .index = xcalloc((size_t)bdd_getallocnum() + 2, sizeof *x.index),
                  .out = out,
                  .cap = 64};
    out->nodes = xmalloc(x.cap * sizeof *out->nodes);
    out->nodes[0] = (ddnode_t){0};
    out->nodes[1] = (ddnode_t){0};
    out->n_nodes = 2;
    out->roots = xmalloc((n + 1) * sizeof *out->roots);
    out->n_roots = n;
    for (uint32_t k = 0; k < n; k++)
        out->roots[k] = roots[k] < 0 ? 0 : export_node(&x, roots[k]);
    free(x.index);
}
