/* The canonical match trace (docs/trace-format.md): one match printed as text so
 * that two reasoners can be compared with diff. Moves come either from the seeded
 * SplitMix64 procedure of the spec or from a file of joint moves. */
#ifndef GDL_TRACE_H
#define GDL_TRACE_H

#include <stdio.h>

#include "base/rng.h"
#include "gdl/rules.h"

/* Where the moves come from: a random stream, or lines of joint moves. */
typedef struct {
    splitmix_t *rng;   /* random when non-NULL */
    const char *moves; /* else: text with one joint move per line */
    const char *moves_file;
    size_t moves_len, pos; /* read position in moves */
    int line;
} trace_moves_t;

/* Sorts terms bytewise by their canonical text and removes duplicates; returns the count.
 * texts receives the printed forms, joined by single spaces. */
uint32_t trace_sort_terms(const term_store_t *ts, term_t *terms, uint32_t n, strbuf_t *texts);

/* A goal line's value from the goal values of a role that hold: V, `none`, or
 * `ambiguous V1 V2 ...` (numbers in numeric order, then the rest bytewise). */
void trace_goal_text(const term_store_t *ts, const term_t *values, uint32_t n, strbuf_t *out);

/* The game name of a path: its file name without directory and extension. */
void trace_game_name(const char *path, strbuf_t *out);

#endif
