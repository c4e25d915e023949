/* Inside the engine layer: the backends' table of operations and the state layout.
 * Only the engine folder includes this. */
#ifndef ENGINE_BACKEND_H
#define ENGINE_BACKEND_H

#include "base/rng.h"
#include "engine/engine.h"
#include "engine/ground.h"

struct eng_state {
    bool is_bits; /* bits (ground backends) or terms (interpreter) */
    uint32_t n_words;
    uint64_t hash; /* Zobrist hash of the bits */
    state_t terms;
    uint64_t bits[];
};

typedef struct {
    void (*free)(engine_t *e);
    engine_t *(*clone)(const engine_t *e);
    void (*initial)(engine_t *e, eng_state_t *out);
    bool (*terminal)(engine_t *e, const eng_state_t *s);
    uint32_t (*legal)(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **moves);
    bool (*is_legal)(engine_t *e, const eng_state_t *s, uint32_t role, term_t move);
    /* every goal value of the role that holds (*values owned by e) */
    uint32_t (*goals)(engine_t *e, const eng_state_t *s, uint32_t role, const term_t **values);
    /* NULL: engine_goal_value reads the values of ops->goals in the term store */
    int (*goal_value)(engine_t *e, const eng_state_t *s, uint32_t role);
    void (*next)(engine_t *e, const eng_state_t *s, const term_t *joint, eng_state_t *out);
    uint32_t (*sees)(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t role,
                     const term_t **percepts);
    void (*to_terms)(engine_t *e, const eng_state_t *s, state_t *out);
    void (*from_terms)(engine_t *e, eng_state_t *s, const state_t *in);
    /* NULL: engine_query asks an interpreter of the engine's own (engine.c) */
    uint32_t (*query)(engine_t *e, const eng_state_t *s, const term_t *joint, uint32_t pred,
                      const term_t **tuples);
    /* engine_playout_hooked (hook NULL: engine_playout) */
    uint32_t (*playout)(engine_t *e, eng_state_t *s, splitmix_t *rng, uint32_t max_steps,
                        int *goals, engine_playout_hook_t hook, void *ctx, bool *stopped);
    /* why the backend's own reasoner gave up (reason_error); NULL: it has none, or it has
     * not */
    const char *(*error)(const engine_t *e);
} engine_ops_t;

struct engine {
    const engine_ops_t *ops;
    engine_kind_t kind;
    game_t *g;
    uint32_t n_words;  /* state words (0: term states) */
    const gnet_t *net; /* the ground backends' network (NULL: the interpreter) */
    double ground_seconds, compile_seconds;
    /* code still compiling when the interpreter was chosen over its network (engine.c's
     * or_interp): held so that the compile goes on into the cache; NULL otherwise */
    struct netcode *compiling;
    bool cut; /* an interpreter made because the deadline cut grounding short */
    /* engine_query without ops->query: the rules evaluator, made on first use, and the
     * state it was last given as terms */
    struct reasoner *rules;
    state_t rules_state;
};

/* The evaluation kernels of a ground engine, compiled code over the node values: the play
 * blocks, the goal blocks, the move blocks, advance (each fluent input takes the value of
 * its next node). */
typedef void (*gnet_kernel_t)(uint8_t *vals);
/* The move blocks, for the move of each role (its index; an index past the role's moves:
 * none). */
typedef void (*gnet_move_kernel_t)(uint8_t *vals, const uint32_t *moves);
/* The play blocks of the state in the fluent inputs, the node values being those left by
 * a kernel or a playout for the state prev (its bits): only what the fluents that differ
 * feed is evaluated. */
typedef void (*gnet_play_from_t)(uint8_t *vals, const uint64_t *prev);
/* The next nodes (evaluated by the move blocks) packed into the words of a state:
 * n_fluents / 64 + 1 of them. */
typedef void (*gnet_next_bits_t)(const uint8_t *vals, uint64_t *bits);
/* A whole random playout from the state bits (which become the final state's; the move
 * inputs must be off): the loop of the ground backend's playout, draw for draw on the
 * splitmix state rng. prev (NULL: none): the state whose play blocks the node values
 * hold (a kernel's or a playout's), so that the first step evaluates only what changed.
 * Returns the joint moves played; the final state is left in the fluent inputs with its
 * play blocks evaluated. */
typedef uint32_t (*gnet_playout_t)(uint8_t *vals, uint64_t *bits, const uint64_t *prev,
                                   uint64_t *rng, uint32_t max_steps,
                                   int (*hook)(void *, const uint64_t *), void *ctx);
typedef struct {
    gnet_kernel_t play, goals, advance;
    gnet_play_from_t play_from;
    gnet_move_kernel_t move;
    gnet_next_bits_t next_bits; /* NULL: the engine packs the bytes itself */
    gnet_playout_t playout;     /* NULL: the loop of engine/gengine.c */
} gnet_kernels_t;

/* The interpreter backend (interp.c). */
engine_t *interp_new(game_t *g);

/* The compiled code of a network (engine/compile.h). */
typedef struct netcode netcode_t;

/* The ground backend on net (owned by the engine; clones borrow it), evaluated by code
 * (its reference adopted): NULL, the network interpreter; code still being made, the
 * network interpreter until the code is ready, then the code (the engine's kind becomes
 * ENGINE_COMPILED). */
engine_t *gengine_new(game_t *g, gnet_t *net, netcode_t *code);
/* The same, but the code taken only where it beats the network in a race of the two
 * (race.h; the verdict kept beside the code's object): raced at once for a share of the
 * time left before the deadline when the code is ready (no time: the code is taken), else
 * once it is ready, by the first of the engine and its clones to get there. */
engine_t *gengine_new_raced(game_t *g, gnet_t *net, netcode_t *code, double deadline);

#endif
