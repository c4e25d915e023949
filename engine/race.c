/* The race between the ground network and the interpreter (race.h): the decision, the
 * measurement and the verdict kept in the cache. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "engine/race.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/rng.h"
#include "base/util.h"

/* A near tie goes to the ground network: besides its steps it gives bitset states (cheap
 * copies and hashes, the bitset checks of backward search) and a search may run it on two
 * threads, where the interpreter, building terms in the game's store, allows one; and a
 * short race's rates move by a tenth from run to run. */
#define RACE_MARGIN 1.25
/* The whole race at most (both engines), and the share of the time left before a deadline. */
#define RACE_MAX_SECONDS 2.0
#define RACE_SHARE 0.1
/* Less than this in all measures nothing worth deciding on. */
#define RACE_MIN_SECONDS 0.04
/* An engine's race ends early once it timed this many steps over at least this long: a
 * small game's rate is known long before a second. */
#define RACE_ENOUGH_STEPS 1000
#define RACE_ENOUGH_SECONDS 0.1

engine_kind_t race_choice(double ground, double interp) {
    if (ground <= 0) return interp > 0 ? ENGINE_INTERP : ENGINE_GROUND;
    return interp > RACE_MARGIN * ground ? ENGINE_INTERP : ENGINE_GROUND;
}

bool race_keeps_code(double code, double net) {
    if (code <= 0) return net <= 0;
    return net <= RACE_MARGIN * code;
}

uint32_t race_interp_lits(void) {
    const char *e = getenv("GGP_RACE_INTERP_LITS");
    return e && *e ? (uint32_t)strtoul(e, NULL, 10) : RACE_INTERP_LITS;
}

double race_seconds(double deadline) {
    double s = RACE_MAX_SECONDS;
    if (deadline > 0) {
        double share = RACE_SHARE * (deadline - now_seconds());
        if (share < s) s = share;
    }
    return s < RACE_MIN_SECONDS ? 0 : s;
}

double race_rate(engine_t *e, double seconds, uint64_t *steps) {
    eng_state_t *s = engine_state_new(e);
    int *goals = xcalloc(engine_game(e)->n_roles + 1, sizeof *goals);
    splitmix_t rng = {1};
    engine_initial(e, s);
    engine_playout(e, s, &rng, 1, goals); /* the first evaluation of a state costs more */
    uint64_t n = 0;
    uint32_t chunk = 1; /* steps between two looks at the clock, doubled while cheap */
    double t0 = now_seconds(), cpu0 = cpu_seconds(), end = t0 + seconds;
    for (double t = t0; t < end && (n < RACE_ENOUGH_STEPS || t - t0 < RACE_ENOUGH_SECONDS);) {
        uint32_t k = engine_playout(e, s, &rng, chunk, goals);
        n += k;
        if (k < chunk) engine_initial(e, s); /* the match ended: the next one */
        double now = now_seconds();
        if (now - t < seconds / 32 && chunk < 64) chunk *= 2;
        t = now;
    }
    double cpu = cpu_seconds() - cpu0;
    free(goals);
    engine_state_free(s);
    *steps = n;
    if (engine_error(e)) return 0; /* an engine that gave up ends every playout at once */
    return n && cpu > 0 ? (double)n / cpu : 0;
}

bool race_read(const char *path, double *ground, double *interp, uint32_t *lits) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    unsigned long n = 0;
    bool ok = fscanf(f, "ground %lf interp %lf", ground, interp) == 2;
    if (ok && fscanf(f, " literals %lu", &n) != 1) n = 0;
    fclose(f);
    *lits = (uint32_t)n;
    return ok;
}

/* The text as the file at path, whole or not at all (written aside, then renamed: two
 * loads of one game at once read a whole file or none). */
static void write_whole(const char *path, const char *text) {
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fputs(text, f);
    fputs("steps of random playouts per CPU second; delete this file to race again\n", f);
    bool ok = fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}

void race_write(const char *path, double ground, double interp, uint32_t lits) {
    char text[200];
    snprintf(text, sizeof text, "ground %.1f\ninterp %.1f\nliterals %u\n", ground, interp, lits);
    write_whole(path, text);
}

bool race_code_read(const char *path, double *code, double *net) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fscanf(f, "code %lf network %lf", code, net) == 2;
    fclose(f);
    return ok;
}

void race_code_write(const char *path, double code, double net) {
    char text[200];
    snprintf(text, sizeof text, "code %.1f\nnetwork %.1f\n", code, net);
    write_whole(path, text);
}
