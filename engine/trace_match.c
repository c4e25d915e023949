/* Playing and printing one canonical match trace on an engine: see trace_match.h. */
#include "engine/trace_match.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "engine/joints.h"
#include "gdl/sexp.h"

/* Reads the next non-blank line of the moves text into line; false at the end. */
static bool next_line(trace_moves_t *mv, strbuf_t *line) {
    while (mv->pos < mv->moves_len) {
        const char *s = mv->moves + mv->pos;
        const char *nl = memchr(s, '\n', mv->moves_len - mv->pos);
        size_t n = nl ? (size_t)(nl - s) : mv->moves_len - mv->pos;
        mv->pos += n + (nl != NULL);
        mv->line++;
        sb_clear(line);
        sb_putn(line, s, n);
        for (size_t i = 0; i < n; i++)
            if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return true;
    }
    return false;
}

typedef struct {
    engine_t *e;
    game_t *g;
    FILE *out, *err;
    strbuf_t sb;
    term_t *buf;
    size_t buf_cap;
    state_t terms;
} tracer_t;

/* Reads one joint move from the moves text into joint; prints an error and returns false
 * when it is missing or malformed. */
static bool read_joint(tracer_t *t, trace_moves_t *mv, uint32_t step, term_t *joint) {
    strbuf_t line;
    sb_init(&line);
    bool ok = false;
    const char *file = mv->moves_file ? mv->moves_file : "<moves>";
    if (!next_line(mv, &line)) {
        fprintf(t->err, "%s: the moves end at step %u before the match is over\n", file, step);
        goto done;
    }
    diag_t d;
    diag_init(&d);
    sexp_doc_t doc;
    if (!sexp_parse(t->g->ts, line.data, line.len, file, &doc, &d)) {
        fprintf(t->err, "%s:%d: step %u: malformed joint move: %s\n", file, mv->line, step,
                d.n ? d.items[0].msg : "parse error");
    } else if (doc.n != t->g->n_roles) {
        fprintf(t->err, "%s:%d: step %u: %u moves given for %u roles\n", file, mv->line, step,
                doc.n, t->g->n_roles);
    } else {
        uint32_t i = 0;
        for (const sexp_t *e = doc.first; e; e = e->next, i++) {
            joint[i] = game_ground_term(t->g, e);
            if (joint[i] == TERM_NONE) break;
        }
        if (i < doc.n)
            fprintf(t->err, "%s:%d: step %u: the move of role %s is not a ground term\n", file,
                    mv->line, step, term_sym_name(t->g->ts, term_sym(t->g->ts, t->g->roles[i])));
        ok = i == doc.n;
    }
    sexp_doc_free(&doc);
    diag_fini(&d);
done:
    sb_fini(&line);
    return ok;
}

static void print_state(tracer_t *t, const eng_state_t *es) {
    engine_state_terms(t->e, es, &t->terms);
    const state_t *s = &t->terms;
    GROW(t->buf, t->buf_cap, s->n + 1);
    memcpy(t->buf, s->facts, s->n * sizeof *t->buf);
    trace_sort_terms(t->g->ts, t->buf, s->n, &t->sb);
    fprintf(t->out, "state%s%s\n", s->n ? " " : "", sb_str(&t->sb));
}

static const char *role_name(tracer_t *t, uint32_t i) {
    static strbuf_t sb;
    sb_clear(&sb);
    term_print(t->g->ts, t->g->roles[i], &sb);
    return sb_str(&sb);
}

static void print_terminal(tracer_t *t, const eng_state_t *s) {
    fprintf(t->out, "terminal yes\n");
    for (uint32_t i = 0; i < t->g->n_roles; i++) {
        const term_t *vals;
        uint32_t n = engine_goals(t->e, s, i, &vals);
        sb_clear(&t->sb);
        trace_goal_text(t->g->ts, vals, n, &t->sb);
        fprintf(t->out, "goal %s %s\n", role_name(t, i), sb_str(&t->sb));
    }
    fprintf(t->out, "end\n");
}

/* Prints the legal lines and chooses (or checks) the joint move. */
static bool legal_and_choose(tracer_t *t, const eng_state_t *s, trace_moves_t *mv, uint32_t step,
                             term_t *joint, term_t *given) {
    uint32_t n_roles = t->g->n_roles;
    joints_t j;
    joints_init(&j, n_roles);
    joints_load(&j, t->e, s, JOINTS_TRACE_ORDER, JOINTS_NONE, TERM_NONE);
    for (uint32_t i = 0; i < n_roles; i++) {
        sb_clear(&t->sb);
        for (uint32_t k = 0; k < j.n[i]; k++) {
            sb_putc(&t->sb, ' ');
            term_print(t->g->ts, j.legal[i][k], &t->sb);
        }
        fprintf(t->out, "legal %s%s\n", role_name(t, i), sb_str(&t->sb));
    }
    fprintf(t->out, "terminal no\n");
    bool ok = mv->rng || read_joint(t, mv, step, given);
    for (uint32_t i = 0; ok && i < n_roles; i++) {
        if (j.n[i] == 0) {
            fprintf(t->err, "step %u: role %s has no legal move in a non-terminal state\n", step,
                    role_name(t, i));
            ok = false;
        } else if (!mv->rng && !engine_is_legal(t->e, s, i, given[i])) {
            sb_clear(&t->sb);
            term_print(t->g->ts, given[i], &t->sb);
            fprintf(t->err, "%s:%d: step %u: move %s of role %s is not legal\n",
                    mv->moves_file ? mv->moves_file : "<moves>", mv->line, step, sb_str(&t->sb),
                    role_name(t, i));
            ok = false;
        }
    }
    if (ok && mv->rng)
        joints_random(&j, mv->rng, joint);
    else if (ok)
        memcpy(joint, given, n_roles * sizeof *joint);
    joints_fini(&j);
    return ok;
}

static void print_does_and_sees(tracer_t *t, const eng_state_t *s, const term_t *joint) {
    sb_clear(&t->sb);
    for (uint32_t i = 0; i < t->g->n_roles; i++) {
        sb_putc(&t->sb, ' ');
        term_print(t->g->ts, joint[i], &t->sb);
    }
    fprintf(t->out, "does%s\n", sb_str(&t->sb));
    if (!t->g->gdl2) return;
    for (uint32_t i = 0; i < t->g->n_roles; i++) {
        const term_t *p;
        uint32_t n = engine_sees(t->e, s, joint, i, &p);
        if (!n) continue;
        GROW(t->buf, t->buf_cap, n + 1);
        memcpy(t->buf, p, n * sizeof *p);
        trace_sort_terms(t->g->ts, t->buf, n, &t->sb);
        fprintf(t->out, "sees %s %s\n", role_name(t, i), sb_str(&t->sb));
    }
}

int trace_match(engine_t *e, const char *name, trace_moves_t *mv, uint32_t max_steps, FILE *out,
                FILE *err) {
    tracer_t t = {.e = e, .g = (game_t *)engine_game(e), .out = out, .err = err};
    sb_init(&t.sb);
    state_init(&t.terms);
    uint32_t n_roles = t.g->n_roles;
    term_t *joint = xcalloc(n_roles + 1, sizeof *joint),
           *given = xcalloc(n_roles + 1, sizeof *given);
    eng_state_t *s = engine_state_new(e), *next = engine_state_new(e);
    engine_initial(e, s);
    fprintf(out, "game %s\nroles", name);
    for (uint32_t i = 0; i < n_roles; i++)
        fprintf(out, " %s", role_name(&t, i));
    fprintf(out, "\n");
    int rc = 0;
    for (uint32_t step = 0;; step++) {
        fprintf(out, "step %u\n", step);
        print_state(&t, s);
        if (engine_terminal(e, s)) {
            print_terminal(&t, s);
            break;
        }
        if (step >= max_steps) {
            fprintf(err, "the match did not end within %u steps\n", max_steps);
            rc = 1;
            break;
        }
        if (!legal_and_choose(&t, s, mv, step, joint, given)) {
            rc = 1;
            break;
        }
        print_does_and_sees(&t, s, joint);
        engine_next(e, s, joint, next);
        engine_state_copy(s, next);
    }
    fflush(out);
    engine_state_free(s);
    engine_state_free(next);
    state_fini(&t.terms);
    free(joint);
    free(given);
    free(t.buf);
    sb_fini(&t.sb);
    return rc;
}
