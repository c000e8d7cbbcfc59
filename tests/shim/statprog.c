/* tests/shim/statprog.c — a plain POSIX program with an exactly known call
 * profile, for the shim's counting (FUTEXLAB_STATS=1) and logline
 * (FUTEXLAB_LOG). Knows nothing of futexlab.
 *
 *   statprog          the profile below; prints one line per outcome
 *
 * The parent process makes, in order (W wait, T trywait, TW timedwait, CW
 * clockwait, P post; "blocked": the semaphore is provably empty when the
 * wait starts):
 *   init a=0 b=1 c=0 d=0 f1=1 f2=1 f3=1, and one init above SEM_VALUE_MAX
 *        (EINVAL): 8 inits, 7 semaphores; one named semaphore opened
 *    1  W b (a token)                                    W1
 *    2  T b (EAGAIN)                                     T1
 *    3  a thread W a, asleep; then P a                   W2 blocked P1
 *    4  a thread TW c (60 s away), asleep; then P c      TW1 blocked P2
 *    5  P c; CW c MONOTONIC (a token)                    P3 CW1
 *    6  TW c at the epoch: ETIMEDOUT                     TW2 blocked, timeout
 *    7  CW c REALTIME at the epoch: ETIMEDOUT            CW2 blocked, timeout
 *    8  P c; with that token there, TW c tv_nsec=-1,     P4 TW3 CW3 CW4 T2
 *       CW c on CLOCK_PROCESS_CPUTIME_ID, CW c
 *       tv_nsec=1e9 (glibc: EINVAL, the token stays);
 *       T c
 *    9  a thread W d, asleep; then a signal (no         W3 blocked
 *       SA_RESTART): EINTR
 *   10  three threads with a cancellation pending and   W4 TW4 CW5
 *       a token there: W f1, TW f2, CW f3 (60 s away);
 *       glibc cancels the first two (POSIX "shall
 *       occur"), and its sem_clockwait takes the token
 *   11  P a, P a, W a, W a (tokens there)               P5 P6 W5 W6
 *   12  fork: the child inits g=0, P g, W g, exit(0)
 * Parent: inits=8 named=1 wait=6 trywait=2 timedwait=4 clockwait=5 post=6
 * blocked=5 (under the glibc pass-through) timeouts=2.
 * Child:  inits=1 named=0 wait=1 post=1, the rest 0.
 *
 * "Asleep" is known, not guessed: the waiting thread records its tid, then
 * its only call is the wait; the main thread posts (or signals) only once
 * /proc/self/task/TID shows it in state S inside a system call. A thread
 * asleep in a system call after it recorded its tid is inside the wait, so
 * the wait found the semaphore empty: its first attempt failed before it
 * slept, and nobody posts until then. No timing.
 *
 * Each outcome ("1 W b: 0", "10 W f1: cancelled, value 1", ...) is a line on
 * stdout: under the pass-through they must be glibc's, line for line
 * (tests/shim/log.sh compares them with a run without the shim). Exits 1
 * with a message on a failure of the program itself (a thread not asleep
 * within 30 s, a child that failed). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/task.h"

#define DIE(...)                                                               \
	do {                                                                   \
		fprintf(stderr, "statprog: " __VA_ARGS__);                     \
		fputc('\n', stderr);                                           \
		exit(1);                                                       \
	} while (0)

static const char *outcome(int r, int e)
{
	static char buf[32];
	if (r == 0)
		return "0";
	snprintf(buf, sizeof buf, "-1 %s", e == EAGAIN ? "EAGAIN" : e == ETIMEDOUT ? "ETIMEDOUT"
					   : e == EINVAL ? "EINVAL" : e == EINTR ? "EINTR"
					   : strerror(e));
	return buf;
}

static void say(const char *step, int r, int e)
{
	printf("%s: %s\n", step, outcome(r, e));
}

static int value(sem_t *s)
{
	int v = -1;
	if (sem_getvalue(s, &v) != 0)
		DIE("sem_getvalue: %s", strerror(errno));
	return v;
}

static struct timespec in(clockid_t c, int seconds)
{
	struct timespec t;
	clock_gettime(c, &t);
	t.tv_sec += seconds;
	return t;
}

/* True when thread tid is asleep inside a system call: state S, and its
 * /proc syscall file names a call (not "running", not -1: a fault). */
static int asleep(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *end;
	long nr = strtol(buf, &end, 10);
	return end != buf && nr >= 0 && fl_task_state(tid) == 'S';
}

static void wait_asleep(_Atomic pid_t *tid, const char *what)
{
	for (int ms = 0; ms < 30000; ms++) {
		pid_t t = atomic_load(tid);
		if (t && asleep(t))
			return;
		struct timespec one = { 0, 1000000 };
		nanosleep(&one, NULL);
	}
	DIE("the thread of %s never fell asleep", what);
}

/* ---- the waiting threads ------------------------------------------------- */

enum how { W, TW, CW };

struct waiter {
	sem_t *s;
	enum how how;
	_Atomic pid_t tid;
	int cancel; /* wait for the pipe with cancellation disabled first */
	int pipe_rd;
	int r, e;
};

static void *waiter(void *arg)
{
	struct waiter *w = arg;
	if (w->cancel) {
		/* the cancellation arrives while disabled; enabling does not act
		 * on it (deferred): the wait is the first cancellation point */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		char c;
		if (read(w->pipe_rd, &c, 1) != 1)
			return NULL;
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	}
	struct timespec rt = in(CLOCK_REALTIME, 60), mono = in(CLOCK_MONOTONIC, 60);
	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	/* nothing but the wait from here (no cancellation point after it:
	 * the result goes back through memory) */
	w->r = w->how == W ? sem_wait(w->s)
	       : w->how == TW ? sem_timedwait(w->s, &rt)
			      : sem_clockwait(w->s, CLOCK_MONOTONIC, &mono);
	w->e = errno;
	return NULL;
}

static void start(pthread_t *t, struct waiter *w)
{
	if (pthread_create(t, NULL, waiter, w) != 0)
		DIE("pthread_create");
}

static void join(pthread_t t, void **res)
{
	if (pthread_join(t, res) != 0)
		DIE("pthread_join");
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A thread waits on the empty s; once asleep, post (or signal) it. */
static void blocked_wait(const char *step, sem_t *s, enum how how, int signal_it)
{
	struct waiter w = { .s = s, .how = how };
	pthread_t t;
	start(&t, &w);
	wait_asleep(&w.tid, step);
	if (signal_it)
		pthread_kill(t, SIGUSR1);
	else if (sem_post(s) != 0)
		DIE("post: %s", strerror(errno));
	join(t, NULL);
	say(step, w.r, w.e);
}

/* A thread with a cancellation pending waits on s, which holds a token. */
static void cancelled_wait(const char *step, sem_t *s, enum how how)
{
	int p[2];
	if (pipe(p) != 0)
		DIE("pipe");
	struct waiter w = { .s = s, .how = how, .cancel = 1, .pipe_rd = p[0] };
	pthread_t t;
	start(&t, &w);
	pthread_cancel(t);
	if (write(p[1], "x", 1) != 1)
		DIE("write");
	void *res;
	join(t, &res);
	if (res == PTHREAD_CANCELED)
		printf("%s: cancelled, value %d\n", step, value(s));
	else
		printf("%s: %s, value %d\n", step, outcome(w.r, w.e), value(s));
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	alarm(60); /* a hang guard, not a measurement */
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);

	sem_t a, b, c, d, f1, f2, f3, x;
	if (sem_init(&a, 0, 0) || sem_init(&b, 0, 1) || sem_init(&c, 0, 0) || sem_init(&d, 0, 0) ||
	    sem_init(&f1, 0, 1) || sem_init(&f2, 0, 1) || sem_init(&f3, 0, 1))
		DIE("sem_init: %s", strerror(errno));
	errno = 0;
	int r = sem_init(&x, 0, (unsigned)SEM_VALUE_MAX + 1);
	say("0 init above SEM_VALUE_MAX", r, errno);
	char name[64];
	snprintf(name, sizeof name, "/futexlab-statprog-%d", (int)getpid());
	sem_t *named = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	if (named == SEM_FAILED)
		DIE("sem_open: %s", strerror(errno));
	sem_unlink(name);
	sem_close(named);

	r = sem_wait(&b);
	say("1 W b", r, errno);
	r = sem_trywait(&b);
	say("2 T b", r, errno);
	blocked_wait("3 W a, posted while asleep", &a, W, 0);
	blocked_wait("4 TW c, posted while asleep", &c, TW, 0);
	sem_post(&c);
	struct timespec t = in(CLOCK_MONOTONIC, 60);
	r = sem_clockwait(&c, CLOCK_MONOTONIC, &t);
	say("5 CW c with a token", r, errno);
	struct timespec epoch = { 0, 0 };
	r = sem_timedwait(&c, &epoch);
	say("6 TW c at the epoch", r, errno);
	r = sem_clockwait(&c, CLOCK_REALTIME, &epoch);
	say("7 CW c REALTIME at the epoch", r, errno);
	sem_post(&c);
	struct timespec neg = { 0, -1 }, big = { 0, 1000000000 };
	r = sem_timedwait(&c, &neg);
	printf("8 TW c tv_nsec=-1 with a token: %s, value %d\n", outcome(r, errno), value(&c));
	r = sem_clockwait(&c, CLOCK_PROCESS_CPUTIME_ID, &epoch);
	printf("8 CW c CPUTIME clock: %s, value %d\n", outcome(r, errno), value(&c));
	r = sem_clockwait(&c, CLOCK_MONOTONIC, &big);
	printf("8 CW c tv_nsec=1e9: %s, value %d\n", outcome(r, errno), value(&c));
	r = sem_trywait(&c);
	say("8 T c", r, errno);
	blocked_wait("9 W d, signalled while asleep", &d, W, 1);
	cancelled_wait("10 W f1 cancelled", &f1, W);
	cancelled_wait("10 TW f2 cancelled", &f2, TW);
	cancelled_wait("10 CW f3 cancelled", &f3, CW);
	sem_post(&a);
	sem_post(&a);
	int r1 = sem_wait(&a), r2 = sem_wait(&a);
	say("11 W a, W a", r1 | r2, errno);

	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		DIE("fork");
	if (child == 0) {
		sem_t g;
		if (sem_init(&g, 0, 0) || sem_post(&g) || sem_wait(&g) || sem_destroy(&g))
			DIE("child: %s", strerror(errno));
		exit(0); /* exit, not _exit: the shim's logline is written */
	}
	int status;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		DIE("the child failed (status %#x)", status);
	printf("12 fork: the child exited 0\n");
	sem_destroy(&a), sem_destroy(&b), sem_destroy(&c), sem_destroy(&d);
	sem_destroy(&f1), sem_destroy(&f2), sem_destroy(&f3);
	return 0;
}
