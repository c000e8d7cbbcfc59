/* proc/report.c — see report.h. */
#include "proc/report.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim/logline.h" /* FL_SHIM_LOGLINE_MAX: the longest line */

int fl_report_open(struct fl_report *r, char *why, size_t n)
{
	unsigned char rnd[8];
	r->fd = -1;
	r->lines = r->forged = r->bad = 0;
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		snprintf(why, n, "exec: report channel: getrandom: %s", strerror(errno));
		return -1;
	}
	int k = snprintf(r->name, sizeof r->name, "futexlab-%d-", (int)getpid());
	for (int i = 0; i < 8; i++)
		k += snprintf(r->name + k, sizeof r->name - (size_t)k, "%02x", rnd[i]);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	memcpy(a.sun_path + 1, r->name, (size_t)k); /* abstract: a leading NUL, no file */
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)k);
	r->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&a, len) || listen(r->fd, SOMAXCONN)) {
		snprintf(why, n, "exec: report channel @%s: %s", r->name, strerror(errno));
		if (r->fd >= 0)
			close(r->fd);
		r->fd = -1;
		return -1;
	}
	return 0;
}

/* The parent of pid from /proc/PID/stat (the field after the last ')',
 * the state: comm may hold anything). -1 when gone. */
static pid_t parent_of(pid_t pid)
{
	char p[64], buf[512];
	snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(p, "r");
	if (!f)
		return -1;
	size_t k = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[k] = '\0';
	char *e = strrchr(buf, ')');
	int pp;
	return e && sscanf(e + 1, " %*c %d", &pp) == 1 ? (pid_t)pp : -1;
}

bool fl_report_member(const struct fl_report *r, pid_t pid)
{
	if (pid <= 0)
		return false;
	if (r->cg)
		return fl_cgroup_holds(r->cg, pid);
	if (getpgid(pid) == r->pid)
		return true;
	/* left the group (setsid): still below the program while its
	 * ancestors live (a daemon reparented to init is not: the group and
	 * the ancestry are all there is without a cgroup) */
	for (int i = 0; i < 64 && pid > 1; i++, pid = parent_of(pid))
		if (pid == r->pid)
			return true;
	return false;
}

/* One connection: who, then the line (the sender connects and sends at
 * once; 1 s is a bound for a sender descheduled in between, paid only by
 * a process of the run), the ack, close. The sender is checked before its
 * line is read: an outsider neither makes us wait nor gets an ack. */
static void serve(struct fl_report *r, int c)
{
	struct ucred cr;
	socklen_t cl = sizeof cr;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) || !fl_report_member(r, cr.pid)) {
		r->forged++;
		return;
	}
	char buf[FL_SHIM_LOGLINE_MAX + 1];
	struct pollfd p = { .fd = c, .events = POLLIN };
	ssize_t k = -1;
	if (poll(&p, 1, 1000) == 1)
		k = recv(c, buf, sizeof buf - 1, MSG_DONTWAIT | MSG_TRUNC);
	if (k <= 0 || k > (ssize_t)sizeof buf - 1) { /* nothing, or longer than a line */
		r->bad++;
		return;
	}
	buf[k] = '\0';
	r->lines++;
	if (r->line)
		r->line(r->arg, buf, cr.pid);
	if (send(c, "", 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return; /* the sender gave up waiting: its line counts all the same */
}

void fl_report_service(struct fl_report *r)
{
	if (r->fd < 0)
		return;
	for (;;) {
		int c = accept4(r->fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN: none waiting */
		}
		serve(r, c);
		close(c);
	}
}

void fl_report_close(struct fl_report *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
