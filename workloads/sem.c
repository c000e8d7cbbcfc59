/* workloads/sem.c — a workload's semaphore instance at a fixed address and
 * the wrappers every op of a workload goes through (fl_sem_*: they keep the
 * stranded-waiter detector's counts). See sem.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "stranded/stranded.h"
#include "variants/waitany.h"
#include "workloads/sem.h"

/* ---- a semaphore instance at a fixed address ----------------------------- */

/* Every rep's semaphores come from one static arena, lowest free slot
 * first, so every design of a point — and the baseline and its control —
 * runs on the very same addresses. From the heap, whose layout drifts as
 * the harness keeps each CSV row in memory, the control (the baseline run
 * twice per round) sits a few percent off the baseline for a stretch of
 * rounds in one A/A sweep and the other way in the next: an
 * address-dependent cost (4K aliasing, cache-set placement) that a random
 * order cannot average out within one run. A slot is a cache line of its own (two semaphores never
 * share one); every design's state fits 64 bytes (FL_VARIANT asserts it
 * fits a sem_t) and needs no more than 64-byte alignment. */
#define SLOTS FL_SEM_SLOTS
static _Alignas(4096) unsigned char arena[SLOTS][64];
static bool slot_used[SLOTS];
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;

static void release(void *s)
{
	pthread_mutex_lock(&arena_lock);
	slot_used[((unsigned char (*)[64])s) - arena] = false;
	pthread_mutex_unlock(&arena_lock);
}

int fl_sem_open(struct fl_sem *m, const struct fl_variant *v, unsigned value)
{
	if (v->size > 64 || v->align > 64)
		return EINVAL;
	m->v = v;
	m->s = NULL;
	m->id = -1;
	pthread_mutex_lock(&arena_lock);
	for (int i = 0; i < SLOTS && !m->s; i++)
		if (!slot_used[i]) {
			slot_used[i] = true;
			m->s = arena[i];
			m->id = i;
		}
	pthread_mutex_unlock(&arena_lock);
	if (!m->s)
		return ENOMEM;
	memset(m->s, 0, 64);
	int r = v->init(m->s, value, 0);
	if (r) {
		release(m->s);
		m->s = NULL;
	} else {
		fl_stranded_opened(m->id, v, m->s, value);
	}
	return r;
}

void fl_sem_close(struct fl_sem *m)
{
	if (m->s) {
		fl_stranded_closed(m->id);
		m->v->destroy(m->s);
		release(m->s);
		m->s = NULL;
	}
}

int fl_sems_open(struct fl_sem *m, int n, const struct fl_variant *v, unsigned value)
{
	for (int i = 0; i < n; i++) {
		int e = fl_sem_open(&m[i], v, value);
		if (e) {
			fl_sems_close(m, i);
			return e;
		}
	}
	return 0;
}

void fl_sems_close(struct fl_sem *m, int n)
{
	for (int i = 0; i < n; i++)
		fl_sem_close(&m[i]);
}

/* ---- the wrappers: every op of a workload --------------------------------
 *
 * wait, trywait, timedwait and post_r are inline (sem.h: a call each cost
 * as much as the marks themselves); these two are not on anybody's fast
 * path. */

static inline uint64_t bit(const struct fl_sem *m)
{
	return (uint64_t)1 << m->id;
}

int fl_sem_wait_any(struct fl_sem *m, int n, const struct timespec *abs_deadline)
{
	void *s[FL_WAITANY_MAX];
	uint64_t mask = 0;
	if (n < 1 || n > FL_WAITANY_MAX)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		s[i] = m[i].s;
		mask |= bit(&m[i]);
	}
	struct fl_stranded_thread *t = fl_stranded_self();
	if (!t)
		return fl_policy_wait_any(m[0].v, s, n, abs_deadline);
	uint64_t op = fl_stranded_enter_set(t, mask, FL_OP_ANY);
	int r = fl_policy_wait_any(m[0].v, s, n, abs_deadline);
	if (r >= 0 && r < n)
		fl_stranded_add(&t->taken[m[r].id], 1);
	fl_stranded_leave(t, op);
	return r;
}

/* The detector's logical value is what it counted of the slot: the wrappers
 * above are the only way a workload's ops reach the design, so it counted
 * every one (stranded/stranded.h: fl_stranded_value). */
int fl_sem_value_or(struct fl_sem *m, int expected)
{
	if (m->v->getvalue)
		return m->v->getvalue(m->s);
	int64_t v;
	return fl_stranded_value(m->id, &v) ? (int)v : expected;
}
