/* The grounder's atom store: ground atoms with dense ids in the order they were found, a
 * table from term to id, the ids of each predicate in order, and indexes for joins.
 *
 * An index serves one literal shape: a pattern (an atom whose variables are numbered in
 * order of first occurrence, 0..n-1) and the set of its variables that are bound when it is
 * read (a bit mask). It holds the atoms that match the pattern, grouped by the values of the
 * bound variables, each group in id order (so that "the atoms found before id k" is a
 * prefix). Indexes are made on first use and kept up to date as atoms are added.
 * A group is found by a 64-bit hash of its values: a rare collision adds candidates that
 * the caller's match then rejects, never loses one. */
#ifndef ENGINE_GATOMS_H
#define ENGINE_GATOMS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/htab.h"
#include "gdl/term.h"

#define GATOM_NONE UINT32_MAX
#define GINDEX_MAX_VARS 32

typedef struct {
    uint32_t atom, next; /* next entry of the group (0: the last) */
} gentry_t;

typedef struct {
    uint32_t pred;
    term_t pattern;
    uint32_t n_vars, mask;
    uint64_t n_entries, n_groups;
} gindex_t;

typedef struct {
    uint32_t *ids;
    uint32_t n;
    size_t cap;
} gids_t;

typedef struct {
    uint64_t key;
    uint32_t head, tail; /* entries */
} ggroup_t;

typedef struct {
    term_store_t *ts;
    term_t *term;
    uint32_t *pred;
    uint32_t n;
    size_t cap;
    /* term -> id + 1 (0: not an atom), by term id: one load where a hash table took a
     * probe and a compare, on the grounder's hottest path (every instance's head) */
    uint32_t *id_of;
    size_t cap_id_of;
    gids_t *of_pred;
    uint32_t n_preds;
    gindex_t *idx;
    uint32_t n_idx;
    size_t cap_idx;
    gids_t *pred_idx; /* per predicate: its indexes */
    ggroup_t *groups; /* in order of creation */
    size_t n_groups, groups_cap;
    htab_t group_tab; /* key -> group */
    gentry_t *ent;    /* entry 0 unused */
    size_t n_ent, cap_ent;
} gatoms_t;

void gatoms_init(gatoms_t *a, term_store_t *ts);
void gatoms_fini(gatoms_t *a);

/* The id of ground atom t, GATOM_NONE when it is not in the store. */
static inline uint32_t gatoms_find(const gatoms_t *a, term_t t) {
    return t < a->cap_id_of ? a->id_of[t] - 1 : GATOM_NONE; /* (0 - 1: GATOM_NONE) */
}

/* Adds a ground atom of predicate pred (no-op when known); returns its id. */
uint32_t gatoms_add(gatoms_t *a, term_t t, uint32_t pred, bool *added);

/* The ids of a predicate, ascending. */
static inline const gids_t *gatoms_of(const gatoms_t *a, uint32_t pred) {
    static const gids_t none = {0};
    return pred < a->n_preds ? &a->of_pred[pred] : &none;
}

/* The first position of ids (ascending) holding an id >= id. */
uint32_t gatoms_lower(const gids_t *ids, uint32_t id);

/* The index of (pred, pattern, mask), made (and filled) when new. */
uint32_t gatoms_index(gatoms_t *a, uint32_t pred, term_t pattern, uint32_t n_vars, uint32_t mask);

/* The key of a group: the values of the bound variables in variable order. */
uint64_t gatoms_key(uint32_t index, const term_t *vals, uint32_t n);

/* The first entry of a group (0 when empty). */
uint32_t gatoms_group(const gatoms_t *a, uint64_t key);

/* Bytes held. */
size_t gatoms_bytes(const gatoms_t *a);

#endif
