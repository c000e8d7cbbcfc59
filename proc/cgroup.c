/* proc/cgroup.c — see cgroup.h. */
#include "proc/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/cgroup2.h"
#include "lib/clock.h"

/* ---- where: cgroup2's mount and the parent of the runs' cgroups ---------- */

/* The parent directory of the runs' cgroups and its path as /proc shows
 * it (relative to the cgroup namespace's root: the mount's root + the path
 * below the mount point). */
static struct {
	int state; /* 0 not looked yet, 1 usable, -1 not */
	char why[400];
	char dir[PATH_MAX], rel[PATH_MAX];
} where;

static int locate(void)
{
	char root[PATH_MAX], mnt[PATH_MAX], own[PATH_MAX];
	const char *env = getenv("FUTEXLAB_CGROUP");
	if (env && !strcmp(env, "off"))
		return snprintf(where.why, sizeof where.why, "FUTEXLAB_CGROUP=off"), -1;
	if (fl_cgroup2_mount(root, mnt, sizeof mnt))
		return snprintf(where.why, sizeof where.why, "no cgroup2 mounted"), -1;
	size_t ml = strlen(mnt);
	const char *rootp = strcmp(root, "/") ? root : "";
	if (env && *env) {
		if (strncmp(env, mnt, ml) || (env[ml] != '/' && env[ml] != '\0'))
			return snprintf(where.why, sizeof where.why, "FUTEXLAB_CGROUP=%.80s is not "
					"below cgroup2's mount %.80s", env, mnt), -1;
		snprintf(where.dir, sizeof where.dir, "%s", env);
		snprintf(where.rel, sizeof where.rel, "%s%s", rootp, env + ml);
		return 0;
	}
	if (fl_cgroup2_own(own, sizeof own))
		return snprintf(where.why, sizeof where.why, "no 0:: line in /proc/self/cgroup"), -1;
	size_t rl = strlen(rootp);
	if (strncmp(own, rootp, rl))
		return snprintf(where.why, sizeof where.why, "own cgroup %.80s is outside the mount "
				"%.80s", own, mnt), -1;
	snprintf(where.dir, sizeof where.dir, "%s%s", mnt, strcmp(own + rl, "/") ? own + rl : "");
	snprintf(where.rel, sizeof where.rel, "%s", strcmp(own, "/") ? own : "");
	return 0;
}

/* ---- small file helpers -------------------------------------------------- */

static int write_file(const char *dir, const char *file, const char *text)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	int fd = open(p, O_WRONLY | O_CLOEXEC), e = 0;
	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		e = errno;
	close(fd);
	return e;
}

/* Up to n-1 bytes of DIR/FILE from offset 0: their length, or -1. */
static ssize_t read_file(const char *dir, const char *file, char *buf, size_t n)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	ssize_t k;
	while (got < n - 1 && (k = read(fd, buf + got, n - 1 - got)) > 0)
		got += (size_t)k;
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

static void pause_ms(int ms)
{
	struct timespec d = { 0, ms * 1000000L };
	nanosleep(&d, NULL);
}

/* rmdir, retried a while: an emptied cgroup may be busy for a moment. */
static int remove_dir(const char *dir)
{
	for (int i = 0; i < 200; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		pause_ms(5);
	}
	return errno;
}

/* ---- making and joining -------------------------------------------------- */

static int make_dir(struct fl_cgroup *c, char *why, size_t n)
{
	static unsigned seq;
	memset(c, 0, sizeof *c);
	c->procs_fd = -1;
	char name[64];
	snprintf(name, sizeof name, "futexlab-%d-%u", (int)getpid(), seq++);
	if (snprintf(c->dir, sizeof c->dir, "%s/%s", where.dir, name) >= (int)sizeof c->dir ||
	    snprintf(c->rel, sizeof c->rel, "%s/%s", where.rel, name) >= (int)sizeof c->rel) {
		snprintf(why, n, "the cgroup's path is too long");
		c->dir[0] = '\0';
		return -1;
	}
	struct stat st;
	if (mkdir(c->dir, 0755) || stat(c->dir, &st)) {
		snprintf(why, n, "%.120s: %s", c->dir, strerror(errno));
		c->dir[0] = '\0';
		return -1;
	}
	c->id = (uint64_t)st.st_ino;
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/cgroup.procs", c->dir);
	c->procs_fd = open(p, O_WRONLY | O_CLOEXEC);
	if (c->procs_fd < 0) {
		snprintf(why, n, "%.120s: %s", p, strerror(errno));
		remove_dir(c->dir);
		c->dir[0] = '\0';
		return -1;
	}
	return 0;
}

int fl_cgroup_join(const struct fl_cgroup *c)
{
	return write(c->procs_fd, "0", 1) == 1 ? 0 : errno;
}

/* The trial that decides: a cgroup made, a child moved into it and
 * reaped, the cgroup removed. Joining can fail where making succeeds (a
 * cgroup not delegated to this user, a domain controller's rule), and a
 * failed join is an error row, not a fallback: so it is tried once here. */
static int trial(char *why, size_t n)
{
	struct fl_cgroup c;
	if (make_dir(&c, why, n))
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		_exit(fl_cgroup_join(&c) & 0x7f);
	int st = 0;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	int e = pid < 0 ? errno : WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
	close(c.procs_fd);
	remove_dir(c.dir);
	if (e)
		snprintf(why, n, "cannot join %.120s: %s", c.dir, strerror(e));
	return e ? -1 : 0;
}

int fl_cgroup_usable(char *why, size_t n)
{
	if (!where.state)
		where.state = locate() || trial(where.why, sizeof where.why) ? -1 : 1;
	if (where.state < 0)
		snprintf(why, n, "%s", where.why);
	return where.state > 0 ? 0 : -1;
}

int fl_cgroup_make(struct fl_cgroup *c, char *why, size_t n)
{
	if (fl_cgroup_usable(why, n))
		return -1;
	return make_dir(c, why, n);
}

/* ---- what ran in it ------------------------------------------------------- */

void fl_cgroup_saw(struct fl_cgroup *c, pid_t pid)
{
	int k = c->nseen < FL_CGROUP_MAXPIDS ? c->nseen : FL_CGROUP_MAXPIDS;
	for (int i = 0; i < k; i++)
		if (c->seen[i] == pid)
			return;
	if (c->nseen < FL_CGROUP_MAXPIDS)
		c->seen[c->nseen] = pid;
	c->nseen++; /* past the table: counted, not remembered (a floor) */
}

/* Calls f on every pid of cgroup.procs. */
static void each_proc(struct fl_cgroup *c, void (*f)(struct fl_cgroup *, pid_t))
{
	static char buf[65536];
	if (!c->dir[0] || read_file(c->dir, "cgroup.procs", buf, sizeof buf) < 0)
		return;
	for (char *s = buf, *e; *s; s = e) {
		long pid = strtol(s, &e, 10);
		if (e == s)
			break;
		if (pid > 0)
			f(c, (pid_t)pid);
	}
}

void fl_cgroup_sample(struct fl_cgroup *c)
{
	each_proc(c, fl_cgroup_saw);
}

bool fl_cgroup_holds(const struct fl_cgroup *c, pid_t pid)
{
	char p[64], buf[4096];
	snprintf(p, sizeof p, "/proc/%d", (int)pid);
	if (!c->dir[0] || read_file(p, "cgroup", buf, sizeof buf) < 0)
		return false;
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "0::", 3))
			continue;
		l += 3;
		size_t n = strlen(c->rel);
		return !strncmp(l, c->rel, n) && (l[n] == '\n' || l[n] == '\0' || l[n] == '/');
	}
	return false;
}

/* ---- the end --------------------------------------------------------------- */

static void kill_one(struct fl_cgroup *c, pid_t pid)
{
	(void)c;
	kill(pid, SIGKILL);
}

void fl_cgroup_kill(struct fl_cgroup *c)
{
	if (c->dir[0] && write_file(c->dir, "cgroup.kill", "1"))
		each_proc(c, kill_one); /* no cgroup.kill (Linux < 5.14) */
}

/* Whether cgroup.events says `populated 1`, read through fd (kernfs clears
 * a pending POLLPRI only for the descriptor that reads the file); fd < 0:
 * through a fresh open. */
static bool populated(const char *dir, int fd)
{
	char buf[256];
	ssize_t k = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0)
			    : read_file(dir, "cgroup.events", buf, sizeof buf);
	if (k < 0)
		return false; /* gone: nothing in it */
	buf[k] = '\0';
	const char *p = strstr(buf, "populated ");
	return p && p[10] == '1';
}

/* Waits until nothing is left in c: cgroup.events is modified (POLLPRI)
 * when `populated` changes; polled in 50 ms slices, each slice that passes
 * without a change killing again (the fallback kill misses a process
 * forked in between). Bounded: 10 s. */
static bool emptied(struct fl_cgroup *c)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/cgroup.events", c->dir);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	int64_t end = fl_now_ns() + 10 * 1000000000LL;
	bool full;
	while ((full = populated(c->dir, fd)) && fl_now_ns() < end) {
		struct pollfd pf = { .fd = fd, .events = POLLPRI };
		if (fd < 0)
			pause_ms(50);
		if (fd < 0 || poll(&pf, 1, 50) <= 0)
			fl_cgroup_kill(c);
	}
	if (fd >= 0)
		close(fd);
	return !full;
}

static int64_t stat_ns(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? strtoll(p + strlen(key), NULL, 10) * 1000 : 0;
}

int fl_cgroup_end(struct fl_cgroup *c, char *why, size_t n)
{
	if (!c->dir[0])
		return 0;
	int rc = 0;
	fl_cgroup_kill(c);
	if (!emptied(c)) {
		snprintf(why, n, "cgroup %.120s still populated 10 s after cgroup.kill", c->dir);
		rc = -1;
	}
	char buf[1024];
	if (read_file(c->dir, "cpu.stat", buf, sizeof buf) > 0) {
		c->usage_ns = stat_ns(buf, "usage_usec ");
		c->user_ns = stat_ns(buf, "user_usec ");
		c->sys_ns = stat_ns(buf, "system_usec ");
	} else if (!rc) {
		snprintf(why, n, "cannot read %.120s/cpu.stat", c->dir);
		rc = -1;
	}
	close(c->procs_fd);
	c->procs_fd = -1;
	int e = remove_dir(c->dir);
	if (e && !rc) {
		snprintf(why, n, "cannot remove %.120s: %s", c->dir, strerror(e));
		rc = -1;
	}
	c->dir[0] = '\0';
	return rc;
}
