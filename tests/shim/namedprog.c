/* tests/shim/namedprog.c — named POSIX semaphores, as a plain program uses
 * them; knows nothing of futexlab. Run without a preload it shows glibc's
 * answers; under libfutexlab-preload.so the design's (tests/shim/named.sh
 * compares the two outputs: they must be equal, line for line).
 *
 *   namedprog                   the checks below; one line per answer
 *   namedprog --post N NAME     (internal) open NAME, post N times, close
 *   namedprog --race NAME EXCL  (internal) wait for stdin's EOF, then
 *                               sem_open(NAME, O_CREAT [| O_EXCL]); exit
 *                               0: got it (and posted once), 1: EEXIST,
 *                               2: another error
 *
 * Checks: the errors (bad names, values above SEM_VALUE_MAX, a missing
 * name, O_EXCL on an existing one, names too long, sem_close of a stray
 * address, sem_unlink of a missing name); a second sem_open of a name
 * returns the same address and one sem_close leaves it usable; unlink while
 * open (the open one works on, a new creation is another object); the same
 * object in another process (exec'd, by name) and in a fork child (by the
 * inherited address; its sem_open returns that address); O_CREAT|O_EXCL
 * raced by 4 processes, 25 rounds: exactly one wins each; O_CREAT raced
 * without O_EXCL: all get one object. Exits 1 on the first failure. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define REQUIRE(cond, ...)                                                        \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "namedprog: FAIL %s: ", #cond);           \
			fprintf(stderr, __VA_ARGS__);                             \
			fprintf(stderr, " (errno %d %s)\n", errno, strerror(errno)); \
			exit(1);                                                  \
		}                                                                 \
	} while (0)

static const char *self;
static char base[64];

static const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EACCES: return "EACCES";
	case EOVERFLOW: return "EOVERFLOW";
	default: return "other";
	}
}

/* One answer line: what sem_open gave (ok or the errno's name). */
static void answer(const char *what, sem_t *r)
{
	printf("%-28s %s\n", what, r == SEM_FAILED ? ename(errno) : "ok");
	if (r != SEM_FAILED)
		sem_close(r);
}

/* One answer line: a call's result and errno (read after the call). */
static void status(const char *what, int r)
{
	printf("%-28s %d %s\n", what, r, r ? ename(errno) : "0");
}

static const char *nm(const char *suffix)
{
	static char b[4][80];
	static int k;
	char *p = b[k++ % 4];
	snprintf(p, 80, "%s-%s", base, suffix);
	return p;
}

static int value(sem_t *s)
{
	int v = -1;
	REQUIRE(sem_getvalue(s, &v) == 0, "getvalue");
	return v;
}

static void errors(void)
{
	char longn[300];
	answer("open '' O_CREAT", sem_open("", O_CREAT, 0600, 0));
	answer("open '/' O_CREAT", sem_open("/", O_CREAT, 0600, 0));
	answer("open '/a/b' O_CREAT", sem_open("/a/b", O_CREAT, 0600, 0));
	answer("open missing", sem_open(nm("missing"), 0));
	sem_unlink(nm("v"));
	answer("value SEM_VALUE_MAX+1", sem_open(nm("v"), O_CREAT, 0600, (unsigned)SEM_VALUE_MAX + 1));
	answer("value SEM_VALUE_MAX", sem_open(nm("v"), O_CREAT | O_EXCL, 0600, SEM_VALUE_MAX));
	answer("O_EXCL existing", sem_open(nm("v"), O_CREAT | O_EXCL, 0600, 1));
	answer("O_CREAT existing", sem_open(nm("v"), O_CREAT, 0600, 1));
	answer("O_CREAT existing, bad value", sem_open(nm("v"), O_CREAT, 0600, (unsigned)SEM_VALUE_MAX + 1));
	sem_t *s = sem_open(nm("v"), 0);
	REQUIRE(s != SEM_FAILED && value(s) == SEM_VALUE_MAX, "SEM_VALUE_MAX kept");
	status("post past SEM_VALUE_MAX", sem_post(s));
	sem_close(s);
	sem_unlink(nm("v"));
	int lens[] = { 251, 252, 255, 256, 257, 298 };
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		memset(longn, 'n', sizeof longn);
		longn[0] = '/';
		longn[lens[i] + 1] = '\0';
		char what[40];
		snprintf(what, sizeof what, "name of %d bytes", lens[i]);
		answer(what, sem_open(longn, O_CREAT, 0600, 0));
		sem_unlink(longn);
	}
	sem_t stray;
	memset(&stray, 0, sizeof stray);
	status("sem_close stray", sem_close(&stray));
	status("sem_unlink missing", sem_unlink(nm("missing")));
	status("sem_unlink '/a/b'", sem_unlink("/a/b"));
	status("sem_unlink ''", sem_unlink(""));
}
/* Two opens, one address; one close leaves it usable; unlink while open. */
static void same_address(void)
{
	const char *n = nm("same");
	sem_unlink(n);
	sem_t *a = sem_open(n, O_CREAT | O_EXCL, 0600, 2);
	REQUIRE(a != SEM_FAILED, "create");
	sem_t *b = sem_open(n, 0);
	sem_t *c = sem_open(n, O_CREAT, 0600, 7);
	REQUIRE(b == a && c == a, "the same address: %p %p %p", (void *)a, (void *)b, (void *)c);
	REQUIRE(sem_close(b) == 0 && sem_close(c) == 0, "two closes of three opens");
	REQUIRE(sem_wait(a) == 0 && sem_trywait(a) == 0 && value(a) == 0, "still usable");
	REQUIRE(sem_unlink(n) == 0, "unlink while open");
	REQUIRE(sem_post(a) == 0 && value(a) == 1, "usable after unlink");
	sem_t *d = sem_open(n, O_CREAT | O_EXCL, 0600, 5);
	REQUIRE(d != SEM_FAILED && d != a && value(d) == 5 && value(a) == 1,
		"a new object under the unlinked name");
	REQUIRE(sem_close(d) == 0 && sem_unlink(n) == 0, "close, unlink");
	REQUIRE(sem_close(a) == 0, "last close");
	printf("%-28s ok\n", "same address, unlink open");
}

/* The same object in an exec'd process (by name) and a fork child (by the
 * inherited address; its sem_open returns that address). */
static void other_process(void)
{
	const char *n = nm("cross");
	sem_unlink(n);
	sem_t *s = sem_open(n, O_CREAT | O_EXCL, 0600, 0);
	REQUIRE(s != SEM_FAILED, "create");
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		execl(self, self, "--post", "100", n, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++)
		REQUIRE(sem_wait(s) == 0, "token %d from the exec'd process", i);
	int st;
	REQUIRE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "poster");
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		sem_t *t = sem_open(n, 0);
		int ok = t == s && sem_post(s) == 0 && sem_close(t) == 0 && sem_post(s) == 0;
		exit(ok ? 0 : 1);
	}
	REQUIRE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"the fork child's sem_open is its inherited address");
	REQUIRE(sem_wait(s) == 0 && sem_wait(s) == 0 && value(s) == 0, "the child's 2 tokens");
	REQUIRE(sem_close(s) == 0 && sem_unlink(n) == 0, "close, unlink");
	printf("%-28s ok\n", "another process");
}

/* K processes released together by the EOF of one pipe create the same
 * name: with O_EXCL exactly one wins; without, all share one object. */
static void race(int rounds, int k, int excl)
{
	const char *n = nm("race");
	for (int r = 0; r < rounds; r++) {
		sem_unlink(n);
		int p[2];
		REQUIRE(pipe(p) == 0, "pipe");
		pid_t pids[8];
		for (int i = 0; i < k; i++) {
			pids[i] = fork();
			REQUIRE(pids[i] >= 0, "fork");
			if (pids[i] == 0) {
				dup2(p[0], 0);
				close(p[1]);
				execl(self, self, "--race", n, excl ? "1" : "0", (char *)NULL);
				_exit(127);
			}
		}
		close(p[0]);
		close(p[1]); /* go */
		int won = 0, lost = 0;
		for (int i = 0; i < k; i++) {
			int st;
			REQUIRE(waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st), "racer");
			won += WEXITSTATUS(st) == 0;
			lost += WEXITSTATUS(st) == 1;
		}
		REQUIRE(won == (excl ? 1 : k) && won + lost == k, "round %d: %d won, %d EEXIST of %d",
			r, won, lost, k);
		sem_t *s = sem_open(n, 0);
		REQUIRE(s != SEM_FAILED && value(s) == won, "one object holds every winner's post");
		sem_close(s);
	}
	sem_unlink(n);
	printf("%-28s ok\n", excl ? "O_EXCL race" : "O_CREAT race");
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 4 && !strcmp(argv[1], "--post")) {
		sem_t *s = sem_open(argv[3], 0);
		if (s == SEM_FAILED)
			return 2;
		for (int i = atoi(argv[2]); i > 0; i--)
			sem_post(s);
		return sem_close(s) ? 2 : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--race")) {
		char c;
		while (read(0, &c, 1) > 0)
			;
		int excl = atoi(argv[3]) ? O_EXCL : 0;
		sem_t *s = sem_open(argv[2], O_CREAT | excl, 0600, 0);
		if (s == SEM_FAILED)
			return errno == EEXIST ? 1 : 2;
		sem_post(s);
		return sem_close(s) ? 2 : 0;
	}
	alarm(60);
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(base, sizeof base, "/namedprog-%d", (int)getpid());
	errors();
	same_address();
	other_process();
	race(25, 4, 1);
	race(5, 4, 0);
	return 0;
}
