/* The option walker and value parsers: see opts.h. */
#include "base/opts.h"

#include <stdlib.h>
#include <string.h>

bool opts_parse(const char *text, const char *what, const char *help, opts_set_t set, void *ctx,
                strbuf_t *err) {
    for (const char *p = text ? text : ""; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char buf[64];
        bool ok = len > 0 && len < sizeof buf && !(end && !end[1]);
        if (ok) {
            memcpy(buf, p, len);
            buf[len] = 0;
            char *eq = strchr(buf, '=');
            ok = eq != NULL;
            if (ok) {
                *eq = 0;
                ok = set(ctx, buf, eq + 1);
            }
        }
        if (!ok) {
            sb_printf(err, "bad option '%.*s' (%s takes %s)", (int)(len < 60 ? len : 60), p, what,
                      help);
            return false;
        }
        p += len + (end != NULL);
    }
    return true;
}

bool opts_u64(const char *val, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    if (!*val || *val == '-') return false;
    unsigned long long n = strtoull(val, &end, 10);
    if (*end || n < lo || n > hi) return false;
    *out = n;
    return true;
}

bool opts_u32(const char *val, uint32_t lo, uint32_t hi, uint32_t *out) {
    uint64_t n;
    if (!opts_u64(val, lo, hi, &n)) return false;
    *out = (uint32_t)n;
    return true;
}

bool opts_num(const char *val, double lo, double hi, double *out) {
    char *end;
    if (!*val) return false;
    double x = strtod(val, &end);
    if (*end || !(x >= lo && x <= hi)) return false;
    *out = x;
    return true;
}

bool opts_onoff(const char *val, bool *out) {
    if (!strcmp(val, "on")) return *out = true;
    if (!strcmp(val, "off")) return !(*out = false);
    return false;
}
