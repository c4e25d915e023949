/* Scratch files and environment variables in the unit tests: a file written whole, a
 * directory's removal with what it holds, and a variable kept and put back. Include after
 * <cmocka.h> (write_file asserts) in a file with _POSIX_C_SOURCE 200809L (setenv). */
#ifndef TESTS_UNIT_SCRATCH_H
#define TESTS_UNIT_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static inline void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* rm -rf dir; its exit status (the caller asserts it once its own clean-up is done). */
static inline int scratch_remove(const char *dir) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

/* A copy of the variable's value (NULL when unset), for env_put. */
static inline char *env_keep(const char *name) {
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

/* The variable back to what env_keep kept (unset for NULL); frees the copy. */
static inline void env_put(const char *name, char *kept) {
    if (kept)
        setenv(name, kept, 1);
    else
        unsetenv(name);
    free(kept);
}

/* Makes GGP_CC a compiler held back until the file gate exists (no clock decides when the
 * code is ready), written into dir. */
static inline void use_gated_cc(const char *dir, const char *gate) {
    char gated[200], script[400];
    snprintf(gated, sizeof gated, "%s/gated-cc", dir);
    snprintf(script, sizeof script,
             "#!/bin/sh\nwhile [ ! -e %s ]; do sleep 0.01; done\nexec cc \"$@\"\n", gate);
    write_file(gated, script);
    assert_int_equal(chmod(gated, 0700), 0);
    setenv("GGP_CC", gated, 1);
}

#endif
