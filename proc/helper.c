/* proc/helper.c — see helper.h. One helper per helper-run row (musl-libc,
 * cxx-llvm15, ..., a library the user built: proc/userlib.h), kept between
 * reps; its state is here. Every
 * wait on the helper is a poll with an absolute CLOCK_MONOTONIC deadline,
 * so a hung or dead helper ends as an error row, never as a hung run. */
#include "proc/helper.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "proc/interrupt.h"
#include "proc/userlib.h"
#include "proc/wire.h"

struct helper {
	const char *name;   /* the row's: v->name */
	pid_t pid;          /* 0: not running */
	int to, from;       /* its stdin, its stdout */
};

static struct helper helpers[16];
static char hash_item[64];

void fl_helper_set_hash(const char *item)
{
	snprintf(hash_item, sizeof hash_item, "%s", item ? item : "");
}

static struct helper *helper_of(const struct fl_variant *v)
{
	for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++)
		if (helpers[i].name && !strcmp(helpers[i].name, v->name))
			return &helpers[i];
	for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++)
		if (!helpers[i].name) {
			helpers[i].name = v->name;
			return &helpers[i];
		}
	return NULL;
}

/* An environment variable, or (unset) its former name: the FUTEXLAB_REMOTE*
 * spellings are still read. */
static const char *env_of(const char *name, const char *former)
{
	const char *v = getenv(name);
	return v ? v : getenv(former);
}

/* The helper's executable: $FUTEXLAB_HELPER (tests), else beside
 * this futexlab (installed: both in bindir), else in the build tree's
 * proc/ (build/harness/futexlab -> build/proc/futexlab-musl). */
static void path_of(const struct fl_variant *v, char *out, size_t n)
{
	const char *env = env_of("FUTEXLAB_HELPER", "FUTEXLAB_REMOTE_HELPER");
	if (env && *env) {
		snprintf(out, n, "%s", env);
		return;
	}
	char self[900];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k <= 0) {
		snprintf(out, n, "%s", v->helper); /* not found: the message names it */
		return;
	}
	self[k] = '\0';
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	char tree[1100], real[PATH_MAX];
	snprintf(tree, sizeof tree, "%.900s/../proc/%.100s", self, v->helper);
	if (access(tree, X_OK) == 0 && realpath(tree, real))
		snprintf(out, n, "%.1000s", real);
	else /* not in a build tree: beside this one */
		snprintf(out, n, "%.900s/%.100s", self, v->helper);
}

const char *fl_helper_unavailable(const struct fl_variant *v)
{
	static char why[1200];
	char path[1024];
	path_of(v, path, sizeof path);
	if (access(path, X_OK) == 0)
		return NULL;
	snprintf(why, sizeof why, "its helper %s cannot be run: %s (not built: rebuild futexlab)",
		 path, strerror(errno));
	return why;
}

/* Kills and reaps h's process; its exit status as text into why (if not NULL). */
static void reap(struct helper *h, bool kill_it, char *why, size_t n)
{
	if (!h->pid)
		return;
	close(h->to);
	close(h->from);
	int st = 0;
	pid_t r;
	if (kill_it)
		kill(h->pid, SIGKILL);
	else {
		/* it exits at end of input: give it 2 s (absolute deadline), then kill */
		int64_t end = fl_now_ns() + 2000000000LL;
		while ((r = waitpid(h->pid, &st, WNOHANG)) == 0 && fl_now_ns() < end) {
			struct timespec d = { 0, 5000000 };
			nanosleep(&d, NULL);
		}
		if (r == h->pid)
			goto done;
		kill(h->pid, SIGKILL);
	}
	while ((r = waitpid(h->pid, &st, 0)) < 0 && errno == EINTR)
		;
done:
	if (why && r == h->pid) {
		if (WIFSIGNALED(st))
			snprintf(why, n, "killed by signal %d (%s)", WTERMSIG(st),
				 strsignal(WTERMSIG(st)));
		else
			snprintf(why, n, "exited with status %d", WEXITSTATUS(st));
	} else if (why) {
		snprintf(why, n, "lost (%s)", strerror(errno));
	}
	h->pid = 0;
}

/* Reads one message (up to a line `end`) into *m before `end_ns`. 0; or -1
 * with why: end of input, timeout, read error. An interrupt (fl_interrupted)
 * ends the wait too (-2). */
static int read_msg(struct helper *h, struct fl_msg *m, int64_t end_ns, char *why, size_t n)
{
	m->len = 0;
	for (;;) {
		if (m->len >= 4 && !strcmp(m->s + m->len - 4, "end\n") &&
		    (m->len == 4 || m->s[m->len - 5] == '\n'))
			return 0;
		if (fl_interrupted)
			return -2;
		int64_t left = end_ns - fl_now_ns();
		if (left <= 0) {
			snprintf(why, n, "hung: no answer before the deadline");
			return -1;
		}
		struct pollfd pf = { h->from, POLLIN, 0 };
		int k = poll(&pf, 1, (int)(left / 1000000 + 1));
		if (k < 0 && errno == EINTR)
			continue; /* Ctrl-C: checked at the top */
		if (k <= 0)
			continue;
		char chunk[4096];
		ssize_t got = read(h->from, chunk, sizeof chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(why, n, "%s", got == 0 ? "end of its output" : strerror(errno));
			return -1;
		}
		fl_msg_add(m, "%.*s", (int)got, chunk);
	}
}

/* A helper that died leaves a pipe without reader: EPIPE here, not a
 * SIGPIPE that would kill the harness (SIGPIPE blocked around the write, a
 * pending one consumed before unblocking; the harness's own disposition
 * for its stdout is left as it was). */
static int write_all(int fd, const char *s, size_t len)
{
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	int rc = 0;
	while (len) {
		ssize_t k = write(fd, s, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = errno;
			struct timespec zero = { 0, 0 };
			if (e == EPIPE)
				while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
					;
			errno = e;
			rc = -1;
			break;
		}
		s += k;
		len -= (size_t)k;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static int64_t timeout_ns(const struct fl_params *p)
{
	const char *env = env_of("FUTEXLAB_HELPER_TIMEOUT", "FUTEXLAB_REMOTE_TIMEOUT");
	if (env && atof(env) > 0)
		return (int64_t)(atof(env) * 1e9);
	return 30000000000LL + 10 * (p ? p->duration_ns : 0);
}

#define HELLO_MAX 2048 /* a hello field's room: maps lists the shared objects */

static int hello_line(const char *key, char *v, void *arg, char *err, size_t n)
{
	/* libc, libc_version, static, pid, hash, hash_error, maps */
	char (*kv)[2][HELLO_MAX] = arg;
	static const char *keys[] = { "libc", "libc_version", "static", "pid", "hash",
				      "hash_error", "maps" };
	for (int i = 0; i < 7; i++)
		if (!strcmp(key, keys[i])) {
			snprintf(kv[i][0], sizeof kv[i][0], "%s", key);
			snprintf(kv[i][1], sizeof kv[i][1], "%s", v);
			return 0;
		}
	snprintf(err, n, "unknown hello field '%.40s'", key);
	return -1;
}

/* The helper's command line into argv (8 entries) and its environment,
 * returned (calloc'd; NULL: out of memory): a library the user built puts
 * its loader in front (glibc), or its directory first on the library path
 * (libc++, libstdc++: LD_LIBRARY_PATH, into ldpath). */
static char **command(const struct fl_variant *v, char *path, char **argv, char *ldpath,
		      size_t ln)
{
	const struct fl_userlib *u = fl_userlib_of(v);
	char **a = argv;
	if (u && u->loader[0])
		*a++ = (char *)u->loader, *a++ = "--library-path", *a++ = (char *)u->libpath;
	*a++ = path, *a++ = "--serve";
	if (hash_item[0])
		*a++ = "--hash", *a++ = hash_item;
	*a = NULL;
	extern char **environ;
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **envp = calloc(ne + 2, sizeof *envp), **e = envp;
	bool ld = u && !u->loader[0];
	for (size_t i = 0; envp && i < ne; i++)
		if (!(ld && !strncmp(environ[i], "LD_LIBRARY_PATH=", 16)))
			*e++ = environ[i];
	if (envp && ld) {
		snprintf(ldpath, ln, "LD_LIBRARY_PATH=%s", u->libpath);
		*e++ = ldpath;
	}
	return envp;
}

/* The hello of h's new process: 0 and the metadata line in meta (what it
 * runs on, as it says, and how it was started); or -1 with why, the helper
 * killed. */
static int greet(struct helper *h, const struct fl_variant *v, char *meta, size_t metan,
		 char *why, size_t n)
{
	char path[1024];
	path_of(v, path, sizeof path);
	struct fl_msg m = { 0 };
	char err[200];
	int rc = read_msg(h, &m, fl_now_ns() + timeout_ns(NULL), err, sizeof err);
	if (rc) {
		char st[100] = "";
		reap(h, true, st, sizeof st);
		snprintf(why, n, "helper %.300s did not start: %.150s%s%.100s", path,
			 rc == -2 ? "interrupted" : err, st[0] ? ", " : "", st);
		fl_msg_free(&m);
		return -1;
	}
	static char kv[7][2][HELLO_MAX]; /* (28 KiB: not on the stack) */
	memset(kv, 0, sizeof kv);
	rc = fl_wire_parse(m.s, "hello", hello_line, kv, err, sizeof err);
	fl_msg_free(&m);
	if (rc) {
		reap(h, true, NULL, 0);
		snprintf(why, n, "helper %.300s: bad hello: %.200s", path, err);
		return -1;
	}
	if (kv[5][1][0]) { /* the hash mode it could not apply */
		reap(h, true, NULL, 0);
		snprintf(why, n, "helper %.300s: cannot apply --hash %.60s: %.200s", path, hash_item, kv[5][1]);
		return -1;
	}
	const struct fl_userlib *u = fl_userlib_of(v);
	char via[sizeof u->libpath + sizeof u->loader + 64] = "";
	if (u)
		snprintf(via, sizeof via, u->loader[0] ? " under %s --library-path %s"
			 : "%s with LD_LIBRARY_PATH=%s", u->loader, u->libpath);
	snprintf(meta, metan, "helper %s: %s%s pid %d, libc %s%s%s (%s), hash %s, maps %s", v->name,
			    path, via, (int)h->pid, kv[0][1], kv[1][1][0] ? " " : "", kv[1][1],
			    strcmp(kv[2][1], "1") ? "dynamic" : "static",
			    kv[4][1][0] ? kv[4][1] : "not set (auto)", kv[6][1][0] ? kv[6][1] : "none");
	return 0;
}

/* fork + exec of the helper, its stdin and stdout our pipes, no other
 * descriptor of ours; then its hello. 0, or -1 with why. */
static int start(struct helper *h, const struct fl_variant *v, char *meta, size_t metan,
		 char *why, size_t n)
{
	char path[1024];
	path_of(v, path, sizeof path);
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		snprintf(why, n, "pipe: %s", strerror(errno));
		return -1;
	}
	char *argv[8], ldpath[sizeof ((struct fl_userlib *)0)->libpath + 32];
	char **envp = command(v, path, argv, ldpath, sizeof ldpath);
	pid_t pid = envp ? fork() : -1;
	if (pid < 0) {
		snprintf(why, n, "%s%s", envp ? "fork: " : "", envp ? strerror(errno) : "out of memory");
		free(envp);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		return -1;
	}
	if (pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		syscall(SYS_close_range, 3U, ~0U, 0U); /* none of the harness's files */
		/* the harness's handlers are not the helper's: defaults (it sets
		 * its own), then exec */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execve(argv[0], argv, envp);
		fprintf(stderr, "futexlab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(envp);
	close(in[0]);
	close(out[1]);
	*h = (struct helper){ .name = h->name, .pid = pid, .to = in[1], .from = out[0] };
	return greet(h, v, meta, metan, why, n);
}

pid_t fl_helper_ready(const struct fl_variant *v, char *meta, size_t metan, struct fl_result *r)
{
	if (metan)
		meta[0] = '\0';
	struct helper *h = helper_of(v);
	if (!h) {
		fl_fail(r, "more helpers than this harness keeps");
		return -1;
	}
	if (h->pid)
		return h->pid;
	char why[600];
	if (start(h, v, meta, metan, why, sizeof why)) {
		fl_fail(r, "%s", why);
		return -1;
	}
	return h->pid;
}

void fl_helper_run(const struct fl_rep *x, struct fl_result *r)
{
	const struct fl_variant *v = x->v;
	const struct fl_params *p = &x->p;
	struct helper *h = helper_of(v);
	if (!h || !h->pid) {
		fl_fail(r, "no helper running for %s", v->name);
		return;
	}
	struct fl_helper_req q = { .wake = x->wake, .policy = x->policy, .p = *p };
	const struct fl_userlib *u = fl_userlib_of(v); /* the helper knows its base's name */
	snprintf(q.variant, sizeof q.variant, "%s", u ? u->base : v->name);
	snprintf(q.workload, sizeof q.workload, "%s", x->w->name);
	struct fl_msg m = { 0 };
	fl_wire_put_req(&m, &q);
	char why[300], st[100] = "";
	int64_t limit = timeout_ns(p);
	if (write_all(h->to, m.s, m.len)) {
		snprintf(why, sizeof why, "cannot send the rep: %s", strerror(errno));
		goto dead;
	}
	int rc = read_msg(h, &m, fl_now_ns() + limit, why, sizeof why);
	if (rc == -2) { /* Ctrl-C: the rep is not a measurement; the helper goes */
		reap(h, true, NULL, 0);
		fl_msg_free(&m);
		return;
	}
	if (rc) {
		if (!strncmp(why, "hung", 4))
			snprintf(why, sizeof why, "no result within %.0f s: hung, so killed",
				 (double)limit / 1e9);
		goto dead;
	}
	char err[200];
	struct fl_result got;
	if (fl_wire_get_result(m.s, &got, err, sizeof err)) {
		free(got.lat);
		snprintf(why, sizeof why, "unreadable result: %s", err);
		goto dead;
	}
	*r = got;
	fl_msg_free(&m);
	const char *fresh = getenv("FUTEXLAB_HELPER_FRESH"), *former = getenv("FUTEXLAB_REMOTE");
	if (fresh ? !strcmp(fresh, "1") : former && !strcmp(former, "fresh"))
		reap(h, false, NULL, 0); /* measured: proc/README.md */
	return;
dead:
	fl_msg_free(&m);
	reap(h, true, st, sizeof st);
	fl_fail(r, "%s helper (%s): %s; %s", v->name, v->helper, why, st);
}

void fl_helper_shutdown(void)
{
	for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++) {
		struct helper *h = &helpers[i];
		if (!h->pid)
			continue;
		(void)write_all(h->to, "quit\n", 5);
		reap(h, false, NULL, 0);
	}
}
