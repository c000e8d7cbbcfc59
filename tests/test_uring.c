/* tests/test_uring.c — the io_uring futex wrappers (lib/uring.h) keep the
 * futex contract; ring wakes reach futex(2) waiters and futex(2) wakes reach
 * ring waiters (same kernel queue); the ring's waitv reports the index;
 * skipped (77) where io_uring futex ops are unavailable. */
#include <signal.h>
#include <dirent.h>
#include <sys/wait.h>

#include "lib/futex.h"
#include "lib/uring.h"
#include "tests/waitaddr_cases.h"

static _Atomic pid_t x_tid[1];
static _Atomic uint32_t x_words[3];
static int x_r;

static void *ringv_waiter(void *a)
{
	(void)a;
	struct fl_waitv w[3];
	for (int i = 0; i < 3; i++)
		w[i] = (struct fl_waitv){ &x_words[i], 0, false };
	atomic_store(&x_tid[0], gettid());
	struct timespec dl = fl_deadline_after_ns(10LL * 1000000000);
	x_r = fl_uring_waitv(w, 3, &dl);
	return NULL;
}

static void t_waitv(void *arg)
{
	(void)arg;
	if (fl_uring_waitv_unavailable()) {
		SKIP_TEST("%s", fl_uring_waitv_unavailable());
		return;
	}
	struct fl_waitv w[3];
	for (int i = 0; i < 3; i++) {
		atomic_store(&x_words[i], 0);
		w[i] = (struct fl_waitv){ &x_words[i], 0, false };
	}
	/* t0 before the absolute deadline is computed, never after it: the
	 * wait may rightly return sooner than the full interval after a later t0. */
	int64_t t0 = fl_now_ns();
	struct timespec dl = fl_deadline_after_ns(10000000);
	CHECK(fl_uring_waitv(w, 3, &dl) == -ETIMEDOUT, "times out");
	CHECK(fl_now_ns() - t0 >= 10000000, "never early: %lld ns", (long long)(fl_now_ns() - t0));
	CHECK(fl_deadline_passed(&dl), "not before the deadline");
	atomic_store(&x_words[1], 5);
	CHECK(fl_uring_waitv(w, 3, NULL) == -EAGAIN, "a changed word: -EAGAIN");
	atomic_store(&x_words[1], 0);
	pthread_t t;
	atomic_store(&x_tid[0], 0);
	pthread_create(&t, NULL, ringv_waiter, NULL);
	CHECK(wait_sleeping(x_tid, 1, 5000), "waitv asleep");
	CHECK(fl_futex_wake(&x_words[2], 1, false) == 1, "a futex(2) wake on word 2 finds it");
	pthread_join(t, NULL);
	CHECK(x_r == 2, "index of the woken word: %d", x_r);
}

/* How many io_uring instances this process holds open. */
static int rings_open(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char p[300], l[64];
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(p, l, sizeof l - 1);
		if (k > 0 && (l[k] = 0, !strcmp(l, "anon_inode:[io_uring]")))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void *short_lived(void *a)
{
	(void)a;
	_Atomic uint32_t w = 0;
	struct timespec dl = fl_deadline_after_ns(100000);
	bool ok = fl_uring_wait(&w, 0, &dl, false) == ETIMEDOUT && fl_uring_wake(&w, 1, false) == 0;
	return ok ? &x_r : NULL;
}

static bool run_short_lived(void)
{
	pthread_t t;
	void *ok;
	pthread_create(&t, NULL, short_lived, NULL);
	pthread_join(t, &ok);
	return ok != NULL;
}

/* A thread's ring outlives the thread (lib/uring.c: parked, handed to the
 * next thread under a lock, never unmapped and re-mapped at a recycled
 * address): 400 threads, two at a time, open at most two rings more than
 * the process had (the earlier tests may have parked some). */
static void t_ring_handover(void *arg)
{
	(void)arg;
	int n0 = rings_open();
	for (int i = 0; i < 200; i++) {
		pthread_t t[2];
		void *ok[2];
		for (int k = 0; k < 2; k++)
			pthread_create(&t[k], NULL, short_lived, NULL);
		for (int k = 0; k < 2; k++)
			pthread_join(t[k], &ok[k]);
		CHECK(ok[0] && ok[1], "round %d: threads on handed-over rings time out and wake", i);
	}
	int n = rings_open();
	CHECK(n >= 1 && n <= n0 + 2, "rings open after 400 threads, 2 at once: %d (before: %d)", n, n0);
}

/* fork: the child must not submit on the parent's rings (shared SQ/CQ
 * memory): it makes its own, also when the parent has rings parked. */
static void t_fork(void *arg)
{
	(void)arg;
	_Atomic uint32_t w = 0;
	CHECK(fl_uring_wake(&w, 1, false) == 0, "parent has a ring");
	CHECK(run_short_lived(), "a thread's ring works"); /* ... and is parked */
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec dl = fl_deadline_after_ns(1000000);
		bool ok = fl_uring_wait(&w, 0, &dl, false) == ETIMEDOUT;
		_exit(ok && run_short_lived() ? 0 : 1);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child waits and wakes on rings of its own: %#x", st);
	struct timespec dl = fl_deadline_after_ns(1000000);
	CHECK(fl_uring_wait(&w, 0, &dl, false) == ETIMEDOUT, "the parent's ring still works");
	CHECK(run_short_lived(), "and its parked one");
}

/* A signal handler wakes (as sem_post from a handler does) while its own
 * thread is inside a wait on its ring: the handler's wake must not submit on
 * that ring (it would corrupt the interrupted wait) — it goes to the futex2
 * syscalls (fl_uring_reentrant counts it) and still reaches the waiter, and
 * the interrupted wait comes back EINTR or 0, never an abort. */
static _Atomic uint32_t h_word;
static _Atomic int h_wakes;
static _Atomic pid_t h_tid[1];   /* the waiting (main) thread */
static _Atomic int h_kick_late;  /* the kicker never saw it asleep */

static void on_usr2(int sig)
{
	(void)sig;
	atomic_store(&h_word, 1);
	atomic_fetch_add(&h_wakes, fl_uring_wake(&h_word, 1, false) >= 0);
}

/* Signals the waiter once it is asleep inside io_uring_enter (sleepers.h),
 * so the handler lands inside the ring wait — the case under test — however
 * late the waiter gets there (it was a 20 ms sleep: under load the signal
 * could come before the wait, where a wake rightly uses the ring). */
static void *kicker(void *a)
{
	if (!wait_sleeping(h_tid, 1, 5000))
		atomic_store(&h_kick_late, 1);
	pthread_kill(*(pthread_t *)a, SIGUSR2);
	return NULL;
}

static void t_handler_wake(void *arg)
{
	(void)arg;
	struct sigaction sa = { .sa_handler = on_usr2 }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	for (int round = 0; round < 20; round++) {
		atomic_store(&h_word, 0);
		unsigned long r0 = fl_uring_reentrant();
		pthread_t self = pthread_self(), k;
		atomic_store(&h_tid[0], gettid());
		atomic_store(&h_kick_late, 0);
		pthread_create(&k, NULL, kicker, &self);
		struct timespec dl = fl_deadline_after_ns(5000000000LL);
		int r = 0;
		while (atomic_load(&h_word) == 0 && (r = fl_uring_wait(&h_word, 0, &dl, false)) != ETIMEDOUT)
			CHECK(r == 0 || r == EINTR || r == EAGAIN, "round %d: wait returned %d", round, r);
		pthread_join(k, NULL);
		CHECK(!atomic_load(&h_kick_late), "round %d: the waiter was never seen asleep in "
		      "its ring wait (io_uring_enter) within ~5 s", round);
		CHECK(r != ETIMEDOUT, "round %d: the handler's wake was lost", round);
		CHECK(fl_uring_reentrant() == r0 + 1, "round %d: the handler's wake went %s",
		      round, fl_uring_reentrant() == r0 ? "through the busy ring" : "elsewhere twice");
	}
	CHECK(atomic_load(&h_wakes) == 20, "every handler ran its wake: %d", atomic_load(&h_wakes));
	/* outside a ring operation, a wake uses the ring */
	unsigned long r0 = fl_uring_reentrant();
	CHECK(fl_uring_wake(&h_word, 1, false) == 0, "a plain wake");
	CHECK(fl_uring_reentrant() == r0, "a plain wake uses the ring");
	signal(SIGUSR2, SIG_DFL);
}

int main(void)
{
	const char *why = fl_uring_unavailable();
	if (why) {
		printf("SKIP uring: %s\n", why);
		return 77;
	}
	WA = &fl_wa_uring;
	run_waitaddr_cases(WA_EINTR | WA_SHARED | WA_FUTEX_QUEUE);
	run_test("waitv", t_waitv, NULL, 20);
	run_test("ring_handover", t_ring_handover, NULL, 60);
	run_test("fork", t_fork, NULL, 20);
	run_test("handler_wake", t_handler_wake, NULL, 30);
	return tests_done("uring");
}
