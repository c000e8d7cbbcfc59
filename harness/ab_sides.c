/* harness/ab_sides.c — the builds of an A/B run (ab.h): a REF resolved to a
 * futexlab binary, a child run of one side spawned and waited for. */
#include "harness/ab.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/cli.h"
#include "proc/interrupt.h"

extern char **environ;

/* Runs argv with stdout to out_path (NULL: /dev/null) and stderr to
 * err_path (NULL: inherited); returns its exit status (128 + signal when
 * killed), -1 when it could not start. */
static int spawn_wait(char *const *argv, const char *out_path, const char *err_path)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (err_path)
		posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC,
						 0644);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The first line of a file, without its newline, into out ("" if none). */
static void first_line(const char *path, char *out, size_t n)
{
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

/* The last line of a file (what a script prints last), into out. */
static void last_line(const char *path, char *out, size_t n)
{
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[PATH_MAX + 64];
	while (fgets(line, sizeof line, f))
		if (line[0] != '\n') {
			snprintf(out, n, "%s", line);
			out[strcspn(out, "\n")] = 0;
		}
	fclose(f);
}

static bool executable(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* The revision a futexlab binary says it was built from ("futexlab REV"). */
static int binary_revision(const char *bin, const char *tmpdir, char *rev, size_t n)
{
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/version.txt", tmpdir);
	char *argv[] = { (char *)bin, "version", NULL };
	if (spawn_wait(argv, out, "/dev/null") != 0)
		return -1;
	char line[256];
	first_line(out, line, sizeof line);
	if (strncmp(line, "futexlab ", 9))
		return -1;
	snprintf(rev, n, "%.120s", line + 9);
	return 0;
}

const char *fl_ab_self_build(char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
	if (l <= 0)
		return NULL;
	self[l] = 0;
	char *s = strrchr(self, '/');
	if (!s)
		return NULL;
	*s = 0; /* BUILD/harness */
	s = strrchr(self, '/');
	if (!s)
		return NULL;
	*s = 0;
	snprintf(out, n, "%s", self);
	return out;
}

void fl_ab_side_resolve(struct fl_ab_side *side, const char *opt, const char *ref, bool layout,
			const char *tmpdir)
{
	snprintf(side->ref, sizeof side->ref, "%s", ref);
	side->layout = layout;
	char dir_bin[PATH_MAX];
	snprintf(dir_bin, sizeof dir_bin, "%s/harness/futexlab", ref);
	if (!layout && executable(dir_bin)) {
		snprintf(side->bin, sizeof side->bin, "%s", dir_bin);
		side->built = false;
	} else if (!layout && executable(ref)) {
		snprintf(side->bin, sizeof side->bin, "%s", ref);
		side->built = false;
	} else {
		/* a git revision: built once in a cached worktree (scripts/ab-build) */
		char self[PATH_MAX], script[PATH_MAX + 32], out[PATH_MAX], err[PATH_MAX];
		if (!fl_ab_self_build(self, sizeof self))
			fl_usage_error("ab %s %s: cannot find this binary's build directory", opt, ref);
		/* the source tree this build was configured from */
		const char *top = getenv("FUTEXLAB_TOP") ? getenv("FUTEXLAB_TOP") : FL_SOURCE_ROOT;
		snprintf(script, sizeof script, "%s/scripts/ab-build", top);
		if (!executable(script))
			fl_usage_error("ab %s %s: not a build directory or a futexlab binary, and no "
				       "%s to build a revision with", opt, ref, script);
		snprintf(out, sizeof out, "%s/build-%s.out", tmpdir, layout ? "layout" : "side");
		snprintf(err, sizeof err, "%s/build-%s.err", tmpdir, layout ? "layout" : "side");
		char *check[] = { script, "--check", (char *)ref, NULL };
		char line[PATH_MAX + 64];
		if (spawn_wait(check, out, err) != 0) {
			last_line(err, line, sizeof line);
			fl_usage_error("ab %s %s: not a build directory, a futexlab binary or a "
				       "revision: %s", opt, ref, *line ? line : "scripts/ab-build failed");
		}
		char *argv[] = { script, "--like", self, layout ? "--layout" : "--plain",
				 (char *)ref, NULL };
		fprintf(stderr, "futexlab: ab: %s %s: building %s (scripts/ab-build; cached)\n", opt,
			ref, layout ? "a second build in another layout" : "it");
		int rc = spawn_wait(argv, out, err);
		if (rc != 0) {
			last_line(err, line, sizeof line);
			fl_usage_error("ab %s %s: cannot build it: %s", opt, ref,
				       *line ? line : "scripts/ab-build failed");
		}
		last_line(out, line, sizeof line);
		if (!executable(line))
			fl_usage_error("ab %s %s: scripts/ab-build gave no binary ('%s')", opt, ref,
				       line);
		snprintf(side->bin, sizeof side->bin, "%.*s", (int)sizeof side->bin - 1, line);
		side->built = true;
	}
	if (binary_revision(side->bin, tmpdir, side->rev, sizeof side->rev))
		fl_usage_error("ab %s %s: %s does not answer 'version' as futexlab does", opt, ref,
			       side->bin);
}

int fl_ab_side_run(const struct fl_ab_side *side, char *const *args, const char *err_path)
{
	char *argv[160];
	int n = 0;
	argv[n++] = (char *)side->bin;
	for (int i = 0; args[i] && n < 159; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return spawn_wait(argv, NULL, err_path);
}

/* ---- a worker: one process of a side's build running slot after slot ---- */

bool fl_ab_side_has_worker(const struct fl_ab_side *side)
{
	char *argv[] = { (char *)side->bin, "ab-worker", "--check", NULL };
	return spawn_wait(argv, NULL, "/dev/null") == 0;
}

int fl_ab_worker_start(struct fl_ab_worker *w, const struct fl_ab_side *side, const char *err_path)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC))
		return -1;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]), close(in[1]);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 3);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	char *argv[] = { (char *)side->bin, "ab-worker", NULL };
	int rc = posix_spawn(&w->pid, side->bin, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	if (rc) {
		close(in[1]), close(out[0]);
		return -1;
	}
	w->to = fdopen(in[1], "w");
	w->from = fdopen(out[0], "r");
	return w->to && w->from ? 0 : -1;
}

int fl_ab_worker_run(struct fl_ab_worker *w, char *const *args)
{
	for (int i = 0; args[i]; i++)
		fprintf(w->to, "%s%s", i ? "\t" : "", args[i]);
	fputc('\n', w->to);
	if (fflush(w->to))
		return -1;
	char line[64];
	while (!fgets(line, sizeof line, w->from))
		if (!(ferror(w->from) && errno == EINTR))
			return -1; /* the worker died: its stderr says why */
		else
			clearerr(w->from);
	return atoi(line);
}

int fl_ab_worker_stop(struct fl_ab_worker *w)
{
	if (w->to)
		fclose(w->to);
	if (w->from)
		fclose(w->from);
	w->to = w->from = NULL;
	int st = 0;
	while (w->pid > 0 && waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void fl_ab_first_error(const char *err_path, char *out, size_t n)
{
	first_line(err_path, out, n);
}
