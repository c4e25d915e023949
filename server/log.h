/* The server's log: one line per event on stderr, prefixed with the wall-clock time. */
#ifndef SERVER_LOG_H
#define SERVER_LOG_H

#include "base/util.h"

#include <stdbool.h>

void log_line(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* Silences (or restores) the log, for tests that make thousands of requests. */
void log_quiet(bool quiet);

#endif
