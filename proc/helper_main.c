/* proc/helper_main.c — the helper of a helper-run design: the workload core
 * (workloads/, the lib/ files they use) built a second time with the
 * variants that cannot run in futexlab's process — `futexlab-musl`
 * (variants/musl_libc.c with -DFL_MUSL, statically, with musl-gcc),
 * `futexlab-libcxxN` (variants/cxx_llvm.cc against libc++ N),
 * `futexlab-native` (glibc, cxx-gnu, cxx-llvm, for a library the user
 * built: proc/userlib.h; proc/meson.build). futexlab (proc/helper.c)
 * starts it and talks to it over its stdin and stdout (proc/wire.h):
 *
 *   futexlab-musl --serve [--hash MODE]   says hello, then runs one rep per
 *                                         `run` until `quit` or end of input
 *   futexlab-musl --hello                 prints the hello and exits (tests)
 *
 * A rep here is what an in-process design's rep is (workloads/rep.h:
 * fl_rep_here, the same code): wake and policy set, the detector, the
 * workload's run (its own timed section: start-up, the request and the
 * reply are outside it) with getrusage(RUSAGE_SELF) around it.
 * --hash applies the harness's futex hash mode (PR_FUTEX_HASH is per process)
 * before any thread exists; the hello reports it read back, or why not.
 * The helper belongs to the harness: it dies with it (PR_SET_PDEATHSIG, and
 * end of input), ignores SIGINT and SIGTERM (Ctrl-C reaches the whole
 * process group: the harness decides, and kills it), and writes nothing but
 * replies on its reply stream (stdout is moved to stderr first: a stray
 * print cannot corrupt a reply). */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lib/prctl.h"
#include "proc/wire.h"
#include "hunt/patterns.h"
#include "workloads/rep.h"
#include "workloads/workload.h"

#ifndef FL_MUSL_VERSION
#define FL_MUSL_VERSION "unknown"
#endif

/* The shared objects this process mapped, as /proc/self/maps names them,
 * each once, in the order mapped, ' ' between (a path with a space would
 * be cut there: none of the libraries'), into buf: which libc++.so.1 or
 * libc.so.6 a helper really runs on ("" for a static helper). */
static void mapped(char *buf, size_t n)
{
	buf[0] = '\0';
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1400];
	size_t l = 0;
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *path = strchr(line, '/');
		if (!path || !strstr(path, ".so"))
			continue;
		size_t k = strlen(path);
		const char *at = buf;
		bool seen = false;
		while (!seen && (at = strstr(at, path)) != NULL) {
			seen = (at == buf || at[-1] == ' ') && (at[k] == ' ' || at[k] == '\0');
			at += k;
		}
		if (!seen && l + k + 2 < n)
			l += (size_t)snprintf(buf + l, n - l, "%s%s", l ? " " : "", path);
	}
	if (f)
		fclose(f);
}

static void hello(FILE *out, const char *hash_item)
{
	char hash[64] = "", why[200] = "";
	if (hash_item) {
		struct fl_hash_mode m;
		const char *bad = fl_hash_parse(hash_item, &m);
		if (bad)
			snprintf(why, sizeof why, "bad --hash '%s': %s", hash_item, bad);
		else if (fl_hash_apply(&m, why, sizeof why) != 0 && !why[0])
			snprintf(why, sizeof why, "hash %s refused", hash_item);
		if (!why[0])
			fl_hash_read_back(&m, hash, sizeof hash);
	}
	/* Which libc runs this process, from the process itself: glibc answers
	 * _CS_GNU_LIBC_VERSION, musl has no such name (EINVAL). */
	char gnu[64];
	size_t k = confstr(_CS_GNU_LIBC_VERSION, gnu, sizeof gnu);
	struct fl_msg m = { 0 };
	fl_msg_add(&m, "hello\n");
	fl_msg_str(&m, "libc", k ? gnu : "musl");
	fl_msg_str(&m, "libc_version", k ? "" : FL_MUSL_VERSION);
	char maps[2048];
	mapped(maps, sizeof maps);
	/* static: no shared object mapped (a helper run under a loader named on
	 * the command line has AT_BASE 0 too, and is not) */
	fl_msg_add(&m, "static=%d\npid=%d\n", !maps[0], (int)getpid());
	fl_msg_str(&m, "hash", hash);
	fl_msg_str(&m, "maps", maps);
	fl_msg_str(&m, "hash_error", why);
	fl_msg_add(&m, "end\n");
	fwrite(m.s, 1, m.len, out);
	fflush(out);
	fl_msg_free(&m);
}

static void run(char *text, FILE *out)
{
	struct fl_helper_req q;
	struct fl_result r = FL_RESULT_EMPTY;
	char err[200];
	const struct fl_workload *w = NULL;
	const struct fl_variant *v = NULL;
	if (fl_wire_get_req(text, &q, err, sizeof err)) {
		fl_fail(&r, "helper: bad request: %s", err);
	} else if (!(w = fl_workload_find(q.workload)) &&
		   !(w = fl_hunt_pattern_find(q.workload))) { /* the hunt's (hunt/patterns.h) */
		fl_fail(&r, "helper: no workload '%s' in this build", q.workload);
	} else if (!(v = fl_variant_find(q.variant))) {
		fl_fail(&r, "helper: no variant '%s' in this build", q.variant);
	} else {
		const char *why = fl_workload_unavailable(w, v, &q.p);
		if (why)
			fl_fail(&r, "helper: %s", why);
		else /* the detector, wake, policy, rusage: here, where the threads are */
			fl_rep_here(&(struct fl_rep){ v, w, q.p, q.wake, q.policy }, NULL, &r);
	}
	struct fl_msg m = { 0 };
	fl_wire_put_result(&m, &r);
	fwrite(m.s, 1, m.len, out);
	fflush(out);
	fl_msg_free(&m);
	free(r.lat);
}

int main(int argc, char **argv)
{
	const char *hash = NULL;
	int serve = 0, only_hello = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--serve"))
			serve = 1;
		else if (!strcmp(argv[i], "--hello"))
			only_hello = 1;
		else if (!strcmp(argv[i], "--hash") && i + 1 < argc)
			hash = argv[++i];
		else
			serve = only_hello = 0, i = argc;
	}
	if (serve == only_hello) {
		fprintf(stderr, "usage: futexlab-musl --serve [--hash MODE] | --hello\n"
			"(the helper of futexlab's helper-run designs: the harness runs it)\n");
		return 2;
	}
	if (only_hello) {
		hello(stdout, hash);
		return 0;
	}
	/* dies with the harness; if the harness died before this line, stdin is
	 * already at end of input and the loop below ends at once */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	int fd = dup(1);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out || dup2(2, 1) < 0) {
		fprintf(stderr, "futexlab-musl: cannot set up its reply stream: %s\n",
			strerror(errno));
		return 1;
	}
	hello(out, hash);
	/* one message at a time: lines up to `end` */
	struct fl_msg m = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t k;
	while ((k = getline(&line, &cap, stdin)) > 0) {
		if (!m.len && !strcmp(line, "quit\n"))
			break;
		fl_msg_add(&m, "%s", line);
		if (strcmp(line, "end\n"))
			continue;
		run(m.s, out);
		m.len = 0;
	}
	free(line);
	fl_msg_free(&m);
	return 0;
}
