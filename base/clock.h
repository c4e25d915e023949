/* The clock: monotonic seconds, for timing and deadlines (a deadline is a now_seconds()
 * value passed as an argument; 0 means none). */
#ifndef BASE_CLOCK_H
#define BASE_CLOCK_H

/* Monotonic seconds, for timing and deadlines. */
double now_seconds(void);
/* The calling thread's CPU seconds (what a measurement on a shared machine can trust). */
double cpu_seconds(void);
/* Sleeps until now_seconds() reaches t (at once when it has). */
void sleep_until(double t);

#endif
