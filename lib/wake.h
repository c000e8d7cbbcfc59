/* lib/wake.h — how a release wakes the threads it owes a wakeup.
 *
 * The negative-counter note: a semaphore release wants to wake exactly
 * min(released, waiting) threads. Linux can (FUTEX_WAKE with a count), but the
 * designs compared here also run on primitives that only offer wake-one or
 * wake-all, so the notify call takes the fallback from the call site:
 *   FL_WAKE_EXACT  one wake call for n threads (the native futex ability);
 *   FL_WAKE_ONE    n wake-one calls: serialised wakeups, one syscall each;
 *   FL_WAKE_ALL    one wake-all call: the thundering herd, everyone re-checks.
 * All three are correct for a caller whose waiters loop on their condition;
 * only the cost differs.  The strategy is a process-wide run parameter
 * (set once before worker threads start; read relaxed on the slow path). */
#ifndef FUTEXLAB_WAKE_H
#define FUTEXLAB_WAKE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum fl_wake_strategy { FL_WAKE_EXACT, FL_WAKE_ONE, FL_WAKE_ALL };

void fl_wake_set_strategy(enum fl_wake_strategy s);
enum fl_wake_strategy fl_wake_get_strategy(void);
/* "exact", "one", "all" -> strategy; -1 for anything else. */
int fl_wake_parse(const char *name);
const char *fl_wake_name(enum fl_wake_strategy s);

struct fl_waitaddr;

/* Wake n (>= 1) waiters on addr with the run's strategy through the futex
 * backend; returns the number of threads reported woken. */
int fl_notify(_Atomic uint32_t *addr, int n, bool shared);
/* The same through any wait-on-address backend. */
int fl_notify_on(const struct fl_waitaddr *wa, _Atomic uint32_t *addr, int n, bool shared);

#endif
