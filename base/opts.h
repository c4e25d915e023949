/* Options of a player kind or a search as one string, "KEY=VAL:KEY=VAL..." (the OPTS of
 * "mcts:iters=500:c=0.7"): one walker over the pairs and the value parsers they share. */
#ifndef BASE_OPTS_H
#define BASE_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

/* Takes one pair; false when the key is unknown or the value bad. */
typedef bool (*opts_set_t)(void *ctx, const char *key, const char *val);

/* Hands each KEY=VAL of text (NULL: none) to set, in order. False at the first pair that
 * is empty, has no '=', is longer than 63 characters or that set refuses, with "bad option
 * 'PAIR' (WHAT takes HELP)" in err. */
bool opts_parse(const char *text, const char *what, const char *help, opts_set_t set, void *ctx,
                strbuf_t *err);

/* A decimal integer lo..hi into *out (not empty, no '-'); false (*out untouched)
 * otherwise. */
bool opts_u32(const char *val, uint32_t lo, uint32_t hi, uint32_t *out);
bool opts_u64(const char *val, uint64_t lo, uint64_t hi, uint64_t *out);
/* A number lo..hi. */
bool opts_num(const char *val, double lo, double hi, double *out);
/* "on" or "off". */
bool opts_onoff(const char *val, bool *out);

#endif
