/* The server's log: see log.h. */
#define _POSIX_C_SOURCE 200809L
#include "server/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Atomic bool quiet_;

void log_quiet(bool quiet) {
    quiet_ = quiet;
}

void log_line(const char *fmt, ...) {
    if (quiet_) return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    localtime_r(&now.tv_sec, &tm);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    strbuf_t sb;
    sb_init(&sb);
    sb_printf(&sb, "%s.%03ld ", when, now.tv_nsec / 1000000);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    sb_putc(&sb, '\n');
    fputs(sb_str(&sb), stderr); /* one write per line, so threads do not interleave */
    fflush(stderr);
    sb_fini(&sb);
}
