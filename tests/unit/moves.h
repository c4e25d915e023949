/* Moves named by their text in the unit tests ("(mark 1 3)"): the one legal move that
 * prints so. Include after cmocka.h (a move that is not legal fails the test). */
#ifndef TESTS_UNIT_MOVES_H
#define TESTS_UNIT_MOVES_H

#include <string.h>

#include "engine/engine.h"

/* The move of role in s that prints as text; fails the test when no legal move does. */
static inline term_t legal_by_text(engine_t *e, const eng_state_t *s, uint32_t role,
                                   const char *text) {
    const term_t *m;
    uint32_t n = engine_legal(e, s, role, &m);
    strbuf_t sb;
    sb_init(&sb);
    term_t found = TERM_NONE;
    for (uint32_t i = 0; i < n && found == TERM_NONE; i++) {
        sb_clear(&sb);
        term_print(engine_game(e)->ts, m[i], &sb);
        if (!strcmp(sb_str(&sb), text)) found = m[i];
    }
    sb_fini(&sb);
    if (found == TERM_NONE) fail_msg("'%s' is not legal for role %u", text, role);
    return found;
}

/* The same in a state kept as terms. */
static inline term_t legal_by_text_terms(engine_t *e, const state_t *s, uint32_t role,
                                         const char *text) {
    eng_state_t *es = engine_state_new(e);
    engine_state_set(e, es, s);
    term_t found = legal_by_text(e, es, role, text);
    engine_state_free(es);
    return found;
}

#endif
