/* tests/shim/semprog.c — a program that uses POSIX semaphores and knows
 * nothing of futexlab: run as is it tests glibc; run under
 * libfutexlab-preload.so it tests whichever design the shim was given.
 *
 *   semprog [OVERFLOW_AT]      (default SEM_VALUE_MAX: the initial value
 *                               of the EOVERFLOW check)
 *   semprog --peer NAME        (internal: the peer process of the
 *                               named-semaphore test, on glibc's semaphores)
 *
 * Checks the POSIX contract: values, EAGAIN, ETIMEDOUT against a
 * CLOCK_REALTIME deadline (never early), EINVAL for a bad tv_nsec or clock,
 * EOVERFLOW, EINTR without SA_RESTART, a deadline at the end of time,
 * threads, a process-shared semaphore across fork, and named semaphores
 * shared with a peer process on glibc's semaphores. Then every group up to
 * the fork again on named semaphores (a second pass, "GROUP (named)"): each
 * semaphore sem_open'ed (O_CREAT | O_EXCL) as "/semprog-PID-GROUP", unlinked
 * at once (the open one lives on; no name is left behind by a failure),
 * sem_close'd where it was destroyed. Prints one line per check group and
 * exits 1 on the first failure. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *group = "?";
static const char *pass = ""; /* " (named)" in the named pass */

#define REQUIRE(cond, ...)                                                     \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "semprog: FAIL [%s%s] %s: ", group, pass, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, " (errno %d %s)\n", errno, strerror(errno)); \
			exit(1);                                                \
		}                                                              \
	} while (0)

static void ok(void)
{
	printf("ok   %s%s\n", group, pass);
	fflush(stdout);
}

static struct timespec after(clockid_t c, long ms)
{
	struct timespec t;
	clock_gettime(c, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000)
		t.tv_sec++, t.tv_nsec -= 1000000000;
	return t;
}

static int before(clockid_t c, const struct timespec *t)
{
	struct timespec n;
	clock_gettime(c, &n);
	return n.tv_sec < t->tv_sec || (n.tv_sec == t->tv_sec && n.tv_nsec < t->tv_nsec);
}

static int value(sem_t *s)
{
	int v = -12345;
	REQUIRE(sem_getvalue(s, &v) == 0, "sem_getvalue");
	return v;
}

static void msleep(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&t, NULL);
}

/* A semaphore of `value` for the current group: sem_init'ed in *own, or in
 * the named pass a new name's (unlinked at once); NULL with errno. */
static sem_t *make(sem_t *own, int pshared, unsigned value)
{
	if (!*pass)
		return sem_init(own, pshared, value) == 0 ? own : NULL;
	char name[80];
	snprintf(name, sizeof name, "/semprog-%d-%s", (int)getpid(), group);
	sem_unlink(name);
	sem_t *s = sem_open(name, O_CREAT | O_EXCL, 0600, value);
	if (s == SEM_FAILED)
		return NULL;
	int e = errno;
	REQUIRE(sem_unlink(name) == 0, "sem_unlink %s", name);
	errno = e;
	return s;
}

/* its end: sem_destroy, or sem_close */
static int unmake(sem_t *s)
{
	return *pass ? sem_close(s) : sem_destroy(s);
}

static void basics(void)
{
	group = "basics";
	sem_t own, *s = make(&own, 0, 2);
	REQUIRE(s, "init 2");
	REQUIRE(value(s) == 2, "value 2: %d", value(s));
	REQUIRE(sem_trywait(s) == 0 && sem_wait(s) == 0, "two tokens");
	errno = 0;
	REQUIRE(sem_trywait(s) == -1 && errno == EAGAIN, "trywait on 0 is EAGAIN");
	REQUIRE(value(s) == 0, "value 0, never negative: %d", value(s));
	REQUIRE(sem_post(s) == 0 && value(s) == 1, "post");
	REQUIRE(unmake(s) == 0, "destroy");
	errno = 0;
	REQUIRE(!make(&own, 0, (unsigned)SEM_VALUE_MAX + 1) && errno == EINVAL,
		"init above SEM_VALUE_MAX is EINVAL");
	ok();
}

static void timeouts(void)
{
	group = "timeouts";
	sem_t own, *s = make(&own, 0, 0);
	REQUIRE(s, "init");
	struct timespec dl = after(CLOCK_REALTIME, 30);
	errno = 0;
	REQUIRE(sem_timedwait(s, &dl) == -1 && errno == ETIMEDOUT, "timedwait times out");
	REQUIRE(!before(CLOCK_REALTIME, &dl), "not before its CLOCK_REALTIME deadline");
	dl = after(CLOCK_MONOTONIC, 30);
	errno = 0;
	REQUIRE(sem_clockwait(s, CLOCK_MONOTONIC, &dl) == -1 && errno == ETIMEDOUT,
		"clockwait(MONOTONIC) times out");
	REQUIRE(!before(CLOCK_MONOTONIC, &dl), "not before its CLOCK_MONOTONIC deadline");
	dl = after(CLOCK_REALTIME, 30);
	errno = 0;
	REQUIRE(sem_clockwait(s, CLOCK_REALTIME, &dl) == -1 && errno == ETIMEDOUT,
		"clockwait(REALTIME) times out");
	REQUIRE(!before(CLOCK_REALTIME, &dl), "not before");
	struct timespec past = { 0, 0 }, neg = { -5, 0 };
	errno = 0;
	REQUIRE(sem_timedwait(s, &past) == -1 && errno == ETIMEDOUT, "epoch deadline");
	errno = 0;
	REQUIRE(sem_timedwait(s, &neg) == -1 && errno == ETIMEDOUT, "negative deadline");
	struct timespec bad = { time(NULL) + 10, 1000000000 };
	errno = 0;
	REQUIRE(sem_timedwait(s, &bad) == -1 && errno == EINVAL, "tv_nsec 1e9 is EINVAL");
	bad.tv_nsec = -1;
	errno = 0;
	REQUIRE(sem_clockwait(s, CLOCK_MONOTONIC, &bad) == -1 && errno == EINVAL,
		"tv_nsec -1 is EINVAL");
	dl = after(CLOCK_REALTIME, 30);
	errno = 0;
	REQUIRE(sem_clockwait(s, CLOCK_PROCESS_CPUTIME_ID, &dl) == -1 && errno == EINVAL,
		"an unsupported clock is EINVAL");
	REQUIRE(value(s) == 0, "nothing changed the value: %d", value(s));
	sem_post(s);
	REQUIRE(sem_timedwait(s, &past) == 0, "a token is taken whatever the deadline");
	unmake(s);
	ok();
}

static void overflow(int at)
{
	group = "overflow";
	sem_t own, *s = make(&own, 0, (unsigned)at);
	REQUIRE(s, "init at %d", at);
	errno = 0;
	REQUIRE(sem_post(s) == -1 && errno == EOVERFLOW, "post at the maximum is EOVERFLOW");
	REQUIRE(value(s) == at, "value unchanged: %d", value(s));
	REQUIRE(sem_trywait(s) == 0 && sem_post(s) == 0, "one out, one in");
	REQUIRE(value(s) == at, "value %d", value(s));
	unmake(s);
	ok();
}

static void on_usr1(int sig)
{
	(void)sig;
}

struct waiter {
	sem_t *s;
	int timed;
	int r, e;
	volatile int done;
};

static void *waiter(void *p)
{
	struct waiter *w = p;
	if (w->timed) {
		struct timespec end = { (time_t)INT64_MAX, 999999999 };
		w->r = sem_timedwait(w->s, &end);
	} else {
		w->r = sem_wait(w->s);
	}
	w->e = errno;
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static int wait_done(struct waiter *w, int ms)
{
	for (int i = 0; i < ms && !__atomic_load_n(&w->done, __ATOMIC_SEQ_CST); i++)
		msleep(1);
	return __atomic_load_n(&w->done, __ATOMIC_SEQ_CST);
}

static int interrupted_quietly;

static void interrupts(void)
{
	group = "eintr";
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (int timed = 0; timed < 2; timed++) {
		sem_t own, *s = make(&own, 0, 0);
		REQUIRE(s, "init");
		struct waiter w = { .s = s, .timed = timed };
		pthread_t t;
		pthread_create(&t, NULL, waiter, &w);
		msleep(30);
		REQUIRE(!w.done, "waiter passed an empty semaphore");
		pthread_kill(t, SIGUSR1);
		/* POSIX: sem_wait "may fail" with EINTR. Either it returns -1/EINTR
		 * with no token taken, or it keeps waiting for a token. */
		if (wait_done(&w, 300)) {
			pthread_join(t, NULL);
			errno = w.e;
			REQUIRE(w.r == -1 && w.e == EINTR, "interrupted wait is EINTR: %d", w.r);
			REQUIRE(value(s) == 0, "no token taken, none made");
			sem_post(s);
			REQUIRE(value(s) == 1 && sem_trywait(s) == 0, "the next post is a token");
		} else {
			interrupted_quietly++;
			sem_post(s);
			REQUIRE(wait_done(&w, 3000), "the waiter kept sleeping after a post");
			pthread_join(t, NULL);
			REQUIRE(w.r == 0, "it took the token");
			REQUIRE(value(s) == 0, "value 0");
		}
		unmake(s);
	}
	if (interrupted_quietly)
		printf("     (sem_wait kept waiting through a signal: EINTR is a \"may fail\")\n");
	ok();
}

static void end_of_time(void)
{
	group = "end_of_time";
	sem_t own, *s = make(&own, 0, 0);
	REQUIRE(s, "init");
	struct waiter w = { .s = s, .timed = 1 };
	pthread_t t;
	pthread_create(&t, NULL, waiter, &w);
	msleep(30);
	REQUIRE(!w.done, "a deadline at INT64_MAX returned %d (errno %d) at once", w.r, w.e);
	sem_post(s);
	REQUIRE(wait_done(&w, 3000), "not released by a post");
	pthread_join(t, NULL);
	REQUIRE(w.r == 0, "took the token");
	unmake(s);
	ok();
}

/* Bounded buffer: producers and consumers through two counting
 * semaphores; every item is consumed exactly once. */
#define SLOTS 4
#define ITEMS 20000
static sem_t empty_own, full_own, *empty, *full;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int buf[SLOTS], head, tail;
static long sum_in, sum_out;

static void *producer(void *p)
{
	(void)p;
	for (int i = 1; i <= ITEMS; i++) {
		while (sem_wait(empty) != 0)
			;
		pthread_mutex_lock(&mu);
		buf[head] = i, head = (head + 1) % SLOTS, sum_in += i;
		pthread_mutex_unlock(&mu);
		sem_post(full);
	}
	return NULL;
}

static void *consumer(void *p)
{
	(void)p;
	for (int i = 0; i < ITEMS; i++) {
		struct timespec dl = after(CLOCK_REALTIME, 10000);
		int r;
		while ((r = sem_timedwait(full, &dl)) != 0 && errno == EINTR)
			;
		REQUIRE(r == 0, "consumer waited 10 s for an item");
		pthread_mutex_lock(&mu);
		sum_out += buf[tail], tail = (tail + 1) % SLOTS;
		pthread_mutex_unlock(&mu);
		sem_post(empty);
	}
	return NULL;
}

static void threads(void)
{
	group = "bounded_buffer";
	empty = make(&empty_own, 0, SLOTS);
	full = make(&full_own, 0, 0);
	REQUIRE(empty && full, "init");
	sum_in = sum_out = head = tail = 0;
	pthread_t t[4];
	for (int i = 0; i < 2; i++) {
		pthread_create(&t[i], NULL, producer, NULL);
		pthread_create(&t[2 + i], NULL, consumer, NULL);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	REQUIRE(sum_in == sum_out && sum_in == 2L * ITEMS * (ITEMS + 1) / 2, "sums %ld %ld",
		sum_in, sum_out);
	REQUIRE(value(empty) == SLOTS && value(full) == 0, "final values");
	unmake(empty);
	unmake(full);
	ok();
}

/* A process-shared semaphore pair in shared memory, used across fork:
 * ping-pong with the child sleeping in the kernel at every step. */
static void process_shared(void)
{
	group = "process_shared";
	sem_t *m = mmap(NULL, 2 * sizeof(sem_t), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(m != MAP_FAILED, "mmap");
	/* named: the fork child uses the addresses it inherits */
	sem_t *ping = make(&m[0], 1, 0), *pong = make(&m[1], 1, 0);
	REQUIRE(ping && pong, "init pshared");
	enum { ROUNDS = 2000 };
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		alarm(20);
		for (int i = 0; i < ROUNDS; i++) {
			while (sem_wait(ping) != 0)
				;
			sem_post(pong);
		}
		_exit(0);
	}
	msleep(20); /* the child is asleep on ping */
	for (int i = 0; i < ROUNDS; i++) {
		sem_post(ping);
		struct timespec dl = after(CLOCK_REALTIME, 5000);
		int r;
		while ((r = sem_timedwait(pong, &dl)) != 0 && errno == EINTR)
			;
		REQUIRE(r == 0, "round %d: the child did not answer in 5 s", i);
	}
	int st;
	REQUIRE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"child exit status %d", st);
	REQUIRE(value(ping) == 0 && value(pong) == 0, "final values");
	unmake(ping);
	unmake(pong);
	munmap(m, 2 * sizeof(sem_t));
	ok();
}

/* Named semaphores, shared with a peer process that runs under glibc's
 * semaphores: without a preload, plain glibc; under the shim, its
 * pass-through (FUTEXLAB_VARIANT=glibc), which must still serve the
 * semaphores this process made on its design, by their tag. Ping-pong
 * through two of them, each side sleeping in the kernel while the other
 * posts. */
#define NAMED_ROUNDS 500

static int peer(const char *name)
{
	group = "named_peer";
	char n2[80];
	snprintf(n2, sizeof n2, "%s-pong", name);
	sem_t *ping = sem_open(name, 0), *pong = sem_open(n2, 0);
	REQUIRE(ping != SEM_FAILED && pong != SEM_FAILED, "peer sem_open");
	for (int i = 0; i < NAMED_ROUNDS; i++) {
		struct timespec dl = after(CLOCK_REALTIME, 5000);
		int r;
		while ((r = sem_timedwait(ping, &dl)) != 0 && errno == EINTR)
			;
		REQUIRE(r == 0, "peer round %d: no ping in 5 s", i);
		sem_post(pong);
	}
	return 0;
}

static void named(const char *self)
{
	group = "named";
	char name[64], n2[80];
	snprintf(name, sizeof name, "/semprog-%d", (int)getpid());
	snprintf(n2, sizeof n2, "%s-pong", name);
	sem_unlink(name);
	sem_unlink(n2);
	sem_t *ping = sem_open(name, O_CREAT | O_EXCL, 0600, 3);
	REQUIRE(ping != SEM_FAILED, "sem_open O_CREAT");
	REQUIRE(value(ping) == 3, "initial value 3: %d", value(ping));
	sem_t *again = sem_open(name, 0);
	REQUIRE(again == ping, "the same mapping for the same name");
	REQUIRE(sem_close(again) == 0, "close one reference");
	REQUIRE(sem_trywait(ping) == 0 && sem_trywait(ping) == 0 && sem_wait(ping) == 0,
		"3 tokens");
	errno = 0;
	REQUIRE(sem_trywait(ping) == -1 && errno == EAGAIN, "then EAGAIN");
	struct timespec dl = after(CLOCK_REALTIME, 20);
	errno = 0;
	REQUIRE(sem_timedwait(ping, &dl) == -1 && errno == ETIMEDOUT, "timedwait on a named one");
	sem_t *pong = sem_open(n2, O_CREAT | O_EXCL, 0600, 0);
	REQUIRE(pong != SEM_FAILED, "sem_open pong");
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		/* (SEMPROG_PEER_VARIANT: a registry without glibc, the mutants') */
		const char *pv = getenv("SEMPROG_PEER_VARIANT");
		setenv("FUTEXLAB_VARIANT", pv ? pv : "glibc", 1);
		unsetenv("FUTEXLAB_POLICY"); /* (glibc takes none) */
		execl(self, self, "--peer", name, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < NAMED_ROUNDS; i++) {
		if (i % 50 == 0)
			msleep(2); /* the peer is asleep in sem_wait */
		sem_post(ping);
		dl = after(CLOCK_REALTIME, 5000);
		int r;
		while ((r = sem_timedwait(pong, &dl)) != 0 && errno == EINTR)
			;
		REQUIRE(r == 0, "round %d: no pong from the glibc peer in 5 s", i);
	}
	int st;
	REQUIRE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"peer exit status %d", st);
	REQUIRE(value(ping) == 0 && value(pong) == 0, "final values");
	REQUIRE(sem_close(ping) == 0 && sem_close(pong) == 0, "close");
	REQUIRE(sem_unlink(name) == 0 && sem_unlink(n2) == 0, "unlink");
	ok();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--peer"))
		return peer(argv[2]);
	int at = argc > 1 ? atoi(argv[1]) : SEM_VALUE_MAX;
	alarm(120);
	/* the checks, then the same on named semaphores (make, unmake) */
	for (int named_pass = 0; named_pass < 2; named_pass++) {
		pass = named_pass ? " (named)" : "";
		basics();
		timeouts();
		overflow(at);
		interrupts();
		end_of_time();
		threads();
		process_shared();
	}
	pass = "";
	named(argv[0][0] == '/' ? argv[0] : realpath(argv[0], NULL));
	printf("semprog: all passed\n");
	return 0;
}
