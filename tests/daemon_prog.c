/* tests/daemon_prog.c — a small server of the kind `futexlab exec` meets in
 * the wild: its main process forks; a daemon leaves the process group
 * (setsid + double fork: reparented to init), drops to user `nobody` when
 * root, makes two process-shared unnamed semaphores in MAP_SHARED |
 * MAP_ANONYMOUS memory, and forks two workers that ping-pong on them for
 * DURATION_MS, then each burns BURN_MS of its own CPU and exits (exit():
 * the shim reports). The main process waits for the daemon's side through
 * a pipe (EOF: the daemon and its workers are gone) and exits 0.
 *
 *   daemon_prog MARKER DURATION_MS BURN_MS [--leave] [--report]
 *
 * MARKER: any word, only there to find the run's processes in
 * /proc/PID/cmdline afterwards (tests/test_container.sh). --leave: one more
 * daemon, which closed the pipe, sleeps forever (it must not survive the
 * run). --report: each worker, at its end, sends a logline of its own on
 * the report channel named by FUTEXLAB_LOG=@NAME (proc/report.h) as the
 * shim would (`ours=2`): the channel's test without the shim. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int report;

static void die(const char *what)
{
	fprintf(stderr, "daemon_prog: %s: %s\n", what, strerror(errno));
	_exit(1);
}

static long long now_ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The shim's client side, by hand: connect, one message, wait for the
 * 1-byte ack, close (shim/log.md). */
static void send_report(void)
{
	const char *log = getenv("FUTEXLAB_LOG");
	if (!report || !log || log[0] != '@')
		return;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t n = strlen(log + 1);
	if (n > sizeof a.sun_path - 1)
		return;
	memcpy(a.sun_path + 1, log + 1, n);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct timeval tv = { 2, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)))
		die("report: connect");
	char line[256], ack;
	int k = snprintf(line, sizeof line, "futexlab-shim pid=%d ppid=%d comm=daemon_prog "
			 "variant=negcount policy=park state=on inits=2 ours=2 handed=0 named=0 "
			 "reason=-\n", (int)getpid(), (int)getppid());
	if (send(fd, line, (size_t)k, 0) != k || recv(fd, &ack, 1, 0) != 1)
		die("report: send or ack");
	close(fd);
}

static volatile unsigned burn_sink; /* the loop's work must not be optimised away */

static void burn(long ms)
{
	long long end = now_ns(CLOCK_PROCESS_CPUTIME_ID) + ms * 1000000LL;
	while (now_ns(CLOCK_PROCESS_CPUTIME_ID) < end)
		for (int i = 0; i < 10000; i++)
			burn_sink += (unsigned)i;
}

struct shared {
	sem_t a2b, b2a;
	atomic_int stop;
};

/* Worker A: post, wait for the answer, until the duration passed; then the
 * stop flag (before the post that wakes B: the post is a release) and one
 * more post. Worker B: wait, look at the flag, answer. */
static void worker(struct shared *s, int a, long long end, long burn_ms)
{
	if (a) {
		while (!atomic_load(&s->stop)) {
			if (sem_post(&s->a2b) || sem_wait(&s->b2a))
				die("worker A");
			if (now_ns(CLOCK_MONOTONIC) >= end)
				atomic_store(&s->stop, 1);
		}
		sem_post(&s->a2b);
	} else {
		for (;;) {
			if (sem_wait(&s->a2b))
				die("worker B");
			if (atomic_load(&s->stop))
				break;
			sem_post(&s->b2a);
		}
	}
	burn(burn_ms);
	send_report();
	exit(0);
}

static void drop_user(void)
{
	if (geteuid() != 0)
		return; /* not root: no user to change to */
	struct passwd *pw = getpwnam("nobody");
	if (!pw)
		die("getpwnam nobody");
	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid))
		die("setgid/setuid nobody");
}

static void daemon_side(int wfd, long dur_ms, long burn_ms, int leave)
{
	if (setsid() < 0)
		die("setsid");
	pid_t p = fork();
	if (p < 0)
		die("fork");
	if (p > 0)
		_exit(0); /* the daemon is reparented to init */
	if (leave && fork() == 0) {
		close(wfd); /* the main process does not wait for this one */
		for (;;)
			pause();
	}
	drop_user();
	struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED || sem_init(&s->a2b, 1, 0) || sem_init(&s->b2a, 1, 0))
		die("shared semaphores");
	long long end = now_ns(CLOCK_MONOTONIC) + dur_ms * 1000000LL;
	pid_t w[2];
	for (int i = 0; i < 2; i++)
		if ((w[i] = fork()) == 0)
			worker(s, i == 0, end, burn_ms);
		else if (w[i] < 0)
			die("fork worker");
	for (int i = 0; i < 2; i++)
		while (waitpid(w[i], NULL, 0) < 0 && errno == EINTR)
			;
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: daemon_prog MARKER DURATION_MS BURN_MS [--leave] "
			"[--report]\n");
		return 2;
	}
	long dur = atol(argv[2]), burn_ms = atol(argv[3]);
	int leave = 0;
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--leave"))
			leave = 1;
		else if (!strcmp(argv[i], "--report"))
			report = 1;
		else {
			fprintf(stderr, "daemon_prog: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		die("pipe");
	pid_t p = fork();
	if (p < 0)
		die("fork");
	if (p == 0) {
		close(pfd[0]);
		daemon_side(pfd[1], dur, burn_ms, leave);
	}
	close(pfd[1]);
	while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
		;
	char c;
	ssize_t k;
	while ((k = read(pfd[0], &c, 1)) > 0 || (k < 0 && errno == EINTR))
		;
	return 0;
}
