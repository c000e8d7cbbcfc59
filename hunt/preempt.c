/* hunt/preempt.c — the in-library-text preemption (preempt.h). */
#include "hunt/preempt.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/cpu.h"
#include "hunt/elfsym.h"

#ifndef sigev_notify_thread_id /* glibc 2.36 has the field, not the name */
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Written by fl_preempt_begin only while no timer is armed; nranges is
 * stored last (release) and loaded first (acquire) by the handler, so a
 * signal still queued from an earlier rep sees either no ranges or whole
 * ones. */
static struct fl_range ranges[FL_PREEMPT_MAX_RANGES];
static _Atomic int nranges;
static _Atomic int64_t stall_for;
static _Atomic int64_t n_signals, n_hits;
static _Atomic int n_arm_failed;
static int64_t interval;
static __thread timer_t my_timer;
static __thread int my_timer_set;

static uintptr_t interrupted_pc(void *ucv)
{
	ucontext_t *uc = ucv;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__) && defined(__GLIBC__)
	return (uintptr_t)uc->uc_mcontext.pc;
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0; /* no PC here: nothing is ever in library text (hits stay 0) */
#endif
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	int saved = errno;
	atomic_fetch_add_explicit(&n_signals, 1, memory_order_relaxed);
	int n = atomic_load_explicit(&nranges, memory_order_acquire);
	if (n && fl_in_ranges(ranges, n, interrupted_pc(uc))) {
		atomic_fetch_add_explicit(&n_hits, 1, memory_order_relaxed);
		int64_t end = fl_now_ns() + atomic_load_explicit(&stall_for, memory_order_relaxed);
		while (fl_now_ns() < end)
			fl_cpu_relax();
	}
	errno = saved;
}

int fl_preempt_begin(const char *spec, int64_t stall_ns, int64_t interval_ns, char *why,
		     size_t whyn)
{
	static struct fl_range tmp[FL_PREEMPT_MAX_RANGES];
	int n = fl_text_ranges(spec, tmp, FL_PREEMPT_MAX_RANGES, why, whyn);
	if (n < 0)
		return -1;
	if (n == 0) {
		snprintf(why, whyn, "text spec '%s' matches no code in this process", spec);
		return -1;
	}
	atomic_store_explicit(&nranges, 0, memory_order_release);
	memcpy(ranges, tmp, (size_t)n * sizeof *tmp);
	atomic_store_explicit(&stall_for, stall_ns, memory_order_relaxed);
	interval = interval_ns;
	atomic_store(&n_signals, 0);
	atomic_store(&n_hits, 0);
	atomic_store(&n_arm_failed, 0);
	atomic_store_explicit(&nranges, n, memory_order_release);
	struct sigaction sa = { .sa_sigaction = on_tick, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	if (sigaction(FL_PREEMPT_SIG, &sa, NULL)) {
		snprintf(why, whyn, "sigaction(%d): %s", FL_PREEMPT_SIG, strerror(errno));
		return -1;
	}
	return 0;
}

void fl_preempt_thread_begin(void)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = FL_PREEMPT_SIG;
	sev.sigev_notify_thread_id = gettid();
	my_timer_set = 0;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &my_timer)) {
		atomic_fetch_add(&n_arm_failed, 1);
		return;
	}
	struct itimerspec it = { .it_value = fl_ns_to_ts(interval),
				 .it_interval = fl_ns_to_ts(interval) };
	if (timer_settime(my_timer, 0, &it, NULL)) {
		timer_delete(my_timer);
		atomic_fetch_add(&n_arm_failed, 1);
		return;
	}
	my_timer_set = 1;
}

void fl_preempt_thread_end(void)
{
	if (my_timer_set)
		timer_delete(my_timer);
	my_timer_set = 0;
}

int fl_preempt_end(struct fl_preempt_stats *out)
{
	int n = atomic_load(&nranges);
	int64_t bytes = 0;
	for (int i = 0; i < n; i++)
		bytes += (int64_t)(ranges[i].hi - ranges[i].lo);
	*out = (struct fl_preempt_stats){ atomic_load(&n_signals), atomic_load(&n_hits), n, bytes };
	return atomic_load(&n_arm_failed);
}
