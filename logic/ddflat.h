/* Decision diagrams frozen as data: nodes in an array, read-only once made (logic/bdd.h
 * exports them). Each node tests one variable, and a variable is true on a word array when
 * any of its bits is set (one bit for a plain variable, several for a bit of a binary code
 * whose values are separate bits). A membership test is one walk from a root to a
 * constant, no allocation, safe from any number of threads. */
#ifndef LOGIC_DDFLAT_H
#define LOGIC_DDFLAT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint32_t var;    /* the variable tested */
    uint32_t lo, hi; /* next node when it is false / true; 0 and 1 are the constants */
} ddnode_t;

typedef struct {
    ddnode_t *nodes; /* nodes[0] and nodes[1] stand for false and true */
    uint32_t n_nodes;
    uint32_t *roots; /* one per exported diagram: an index into nodes */
    uint32_t n_roots;
    /* variable v: the (word, mask) pairs test_start[v] .. test_start[v + 1] */
    uint32_t n_vars;
    uint32_t *test_start, *test_word;
    uint64_t *test_mask;
} ddflat_t;

void ddflat_init(ddflat_t *f);
void ddflat_fini(ddflat_t *f);
/* Variable v is true when any of bits[start[v] .. start[v + 1]) is set (n_vars
 * variables). */
void ddflat_set_vars(ddflat_t *f, uint32_t n_vars, const uint32_t *start, const uint32_t *bits);

static inline bool ddflat_var(const ddflat_t *f, uint32_t v, const uint64_t *words) {
    for (uint32_t k = f->test_start[v]; k < f->test_start[v + 1]; k++)
        if (words[f->test_word[k]] & f->test_mask[k]) return true;
    return false;
}

/* Is the diagram of root k true on the bits of words? */
static inline bool ddflat_eval(const ddflat_t *f, uint32_t k, const uint64_t *words) {
    uint32_t n = f->roots[k];
    while (n > 1) {
        const ddnode_t *d = &f->nodes[n];
        n = ddflat_var(f, d->var, words) ? d->hi : d->lo;
    }
    return n == 1;
}

/* Nodes reachable from root k (the constants not counted). */
uint32_t ddflat_size(const ddflat_t *f, uint32_t k);

#endif
