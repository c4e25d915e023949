/* Inductive implications between atoms (Houdini): see bddinv.h. */
#include "regress/bddinv.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ∧ over a of (a ⇒ ∧ of the b still standing with it). */
static dd_ref conjunction(dd_t *d, const bddinv_atom_t *atoms, uint32_t n, const uint8_t *cand) {
    dd_ref h = DD_TRUE;
    for (uint32_t a = 0; a < n && h != DD_NONE; a++) {
        dd_ref all = DD_TRUE;
        for (uint32_t b = 0; b < n && all != DD_NONE; b++) {
            if (!cand[(size_t)a * n + b]) continue;
            dd_ref t = dd_and(d, all, atoms[b].now);
            dd_deref(d, all);
            all = t;
        }
        dd_ref c = dd_imp(d, atoms[a].now, all), t = dd_and(d, h, c);
        dd_deref(d, all), dd_deref(d, c), dd_deref(d, h);
        h = t;
    }
    return h;
}

/* Drops a's candidates a ⇒ b broken by a joint move from ta (the context where every
 * candidate holds, and a after the move): a move that breaks one is a witness (a state and
 * a move) that drops every b false after it, one walk each, so most candidates cost no
 * diagram operation (one per candidate made the first passes cost n^2 of them). How many,
 * -1 past the limits. */
static int drop_for(dd_t *d, const bddinv_atom_t *atoms, uint32_t n, dd_ref ta, uint8_t *row,
                    uint8_t *w) {
    int dropped = 0;
    for (uint32_t b = 0; b < n; b++) {
        if (!row[b]) continue;
        dd_ref bad = dd_diff(d, ta, atoms[b].next);
        if (bad == DD_NONE) return -1;
        if (bad == DD_FALSE) continue;
        memset(w, 0, dd_var_count(d));
        dd_pick(d, bad, w);
        dd_deref(d, bad);
        for (uint32_t c = b; c < n; c++)
            if (row[c] && !dd_eval(d, atoms[c].next, w)) row[c] = 0, dropped++;
    }
    return dropped;
}

/* One pass over the atoms a: how many candidates dropped, -1 past the limits. */
static int drop_broken(dd_t *d, const bddinv_atom_t *atoms, uint32_t n, dd_ref t, uint8_t *cand) {
    int dropped = 0;
    uint8_t *w = xmalloc(dd_var_count(d) + 1);
    for (uint32_t a = 0; a < n && dropped >= 0; a++) {
        bool any = false;
        for (uint32_t b = 0; b < n && !any; b++)
            any = cand[(size_t)a * n + b];
        if (!any) continue;
        dd_ref ta = dd_and(d, t, atoms[a].next); /* a holds after the move */
        int k = ta == DD_NONE    ? -1
                : ta == DD_FALSE ? 0
                                 : drop_for(d, atoms, n, ta, cand + (size_t)a * n, w);
        dropped = k < 0 ? -1 : dropped + k;
        dd_deref(d, ta);
    }
    free(w);
    return dropped;
}

/* Does the atom stay true once true (after every joint move of ctx)? Only such atoms are
 * candidates: in games that fill a board (connect four, tic-tac-toe) the cells, where the
 * implications are; in games that move pieces (breakthrough) none, and the candidates
 * between cells that empty and fill would cost thousands of checks for nothing. */
static bool persistent(dd_t *d, const bddinv_atom_t *at, dd_ref ctx) {
    dd_ref x = dd_and(d, ctx, at->now), bad = dd_diff(d, x, at->next);
    dd_deref(d, x), dd_deref(d, bad);
    return bad == DD_FALSE;
}

dd_ref bddinv_implications(dd_t *d, const bddinv_atom_t *atoms, uint32_t n, dd_ref ctx,
                           uint32_t *kept) {
    uint8_t *cand = xcalloc((size_t)n * n + 1, 1), *keeps = xcalloc(n + 1, 1);
    for (uint32_t a = 0; a < n; a++)
        keeps[a] = persistent(d, &atoms[a], ctx);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            cand[(size_t)a * n + b] =
                a != b && keeps[a] && keeps[b] && (!atoms[a].init || atoms[b].init);
    free(keeps);
    int dropped = 1;
    while (dropped > 0) {
        dd_ref h = conjunction(d, atoms, n, cand), t = dd_and(d, ctx, h);
        dropped = t == DD_NONE ? -1 : drop_broken(d, atoms, n, t, cand);
        dd_deref(d, h), dd_deref(d, t);
    }
    *kept = 0;
    if (dropped < 0) { /* what stands is not proven */
        free(cand);
        return DD_NONE;
    }
    for (size_t k = 0; k < (size_t)n * n; k++)
        *kept += cand[k];
    dd_ref h = conjunction(d, atoms, n, cand);
    free(cand);
    return h;
}
