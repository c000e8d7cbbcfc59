/* lib/wake.c — see wake.h. */
#include "lib/wake.h"

#include <limits.h>
#include <string.h>

#include "lib/futex.h"
#include "lib/waitaddr.h"

static _Atomic int strategy = FL_WAKE_EXACT;

void fl_wake_set_strategy(enum fl_wake_strategy s)
{
	atomic_store_explicit(&strategy, s, memory_order_relaxed);
}

enum fl_wake_strategy fl_wake_get_strategy(void)
{
	return atomic_load_explicit(&strategy, memory_order_relaxed);
}

static const char *const names[] = {
	[FL_WAKE_EXACT] = "exact", [FL_WAKE_ONE] = "one", [FL_WAKE_ALL] = "all",
};

int fl_wake_parse(const char *name)
{
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

const char *fl_wake_name(enum fl_wake_strategy s)
{
	return names[s];
}

int fl_notify(_Atomic uint32_t *addr, int n, bool shared)
{
	return fl_notify_on(&fl_wa_futex, addr, n, shared);
}

int fl_notify_on(const struct fl_waitaddr *wa, _Atomic uint32_t *addr, int n, bool shared)
{
	switch (fl_wake_get_strategy()) {
	case FL_WAKE_ONE: {
		int woken = 0;
		/* Stop at the first call that finds nobody asleep: the claims still
		 * owed belong to threads not yet asleep, and those re-read the word
		 * before sleeping. */
		while (woken < n) {
			int r = wa->wake(addr, 1, shared);
			if (r == 0)
				break;
			woken += r;
		}
		return woken;
	}
	case FL_WAKE_ALL:
		return wa->wake(addr, INT_MAX, shared);
	case FL_WAKE_EXACT:
	default:
		return wa->wake(addr, n, shared);
	}
}
