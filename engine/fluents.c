/* The grounded engines' state layout: see fluents.h. */
#include "engine/fluents.h"

#include <stdlib.h>
#include <string.h>

#include "engine/backend.h"

/* Bit f is the network's fluent f (gengine.c's layout, its to_terms): read off at once.
 * Each bit alone turned into terms by the engine read every word each time, quadratic in
 * the state's words (hexPie: 0.4 s of a 2 s start clock for heur_material's look). Without
 * a network (no bit engine has none): each bit alone, one fact is that bit's fluent. */
uint32_t engine_fluent_bits(engine_t *e, term_t **out) {
    *out = NULL;
    if (!e->n_words) return 0;
    uint32_t n = e->n_words * 64;
    term_t *t = xmalloc(n * sizeof *t);
    if (e->net) {
        for (uint32_t b = 0; b < n; b++)
            t[b] = b < e->net->n_fluents ? e->net->fluent_term[b] : TERM_NONE;
        *out = t;
        return n;
    }
    eng_state_t *s = engine_state_new(e);
    state_t terms;
    state_init(&terms);
    memset(s->bits, 0, e->n_words * sizeof *s->bits);
    for (uint32_t b = 0; b < n; b++) {
        s->bits[b >> 6] = 1ull << (b & 63);
        engine_state_terms(e, s, &terms);
        t[b] = terms.n == 1 ? terms.facts[0] : TERM_NONE;
        s->bits[b >> 6] = 0;
    }
    state_fini(&terms);
    engine_state_free(s);
    *out = t;
    return n;
}

const uint64_t *engine_state_words(const eng_state_t *s) {
    return s->is_bits ? s->bits : NULL;
}

const gnet_t *engine_network(const engine_t *e) {
    return e->net && !e->net->n_queries ? e->net : NULL; /* query nodes: not the whole game */
}
