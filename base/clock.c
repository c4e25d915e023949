#define _POSIX_C_SOURCE 200809L
#include "base/clock.h"

#include <errno.h>
#include <time.h>

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sleep_until(double t) {
    if (t <= 0) return;
    struct timespec ts = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    } /* (a signal woke it early: sleep on; any other error returns) */
}

double cpu_seconds(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
