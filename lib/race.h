/* lib/race.h — race windows, widened on purpose in test builds.
 *
 * A bug between two adjacent atomic operations (a post between its count
 * add and its grant add, a waiter between its claim and its sleep) lives in
 * a window of a few nanoseconds: a stress test on two cores almost never
 * lands in it. Designs mark those windows with fl_race_window(). In the
 * release build it is nothing. In the test build of the variants
 * (-DFL_RACE_WINDOWS, see variants/meson.build) it spins or yields for a
 * random few microseconds a fraction of the time, so the conformance suite
 * lands in every marked window thousands of times per run. */
#ifndef FUTEXLAB_RACE_H
#define FUTEXLAB_RACE_H

#include <stdbool.h>

/* A test arms the calling thread's race windows: while armed, every window
 * the thread reaches calls fn(arg) instead of its random delay, so a test
 * can hold a thread at a window on purpose, or act there (tests/edge.c
 * stale_post). fl_race_arm(NULL, NULL) disarms. Only the race-window build
 * has windows; elsewhere arming does nothing. */
void fl_race_arm(void (*fn)(void *), void *arg);
/* True once any thread of the process has passed a race window: the
 * variants linked in are the race-window build. */
bool fl_race_windows_seen(void);

#ifdef FL_RACE_WINDOWS
void fl_race_window(void);
#else
static inline void fl_race_window(void)
{
}
#endif

#endif
