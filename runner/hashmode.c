/* runner/hashmode.c — see hashmode.h. */
#include "runner/hashmode.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/cli.h"
#include "record/csv.h"
#include "lib/prctl.h"
#include "proc/interrupt.h"

static struct fl_hash_mode mode; /* auto unless --hash says otherwise */
static char refused[256];
static char column[64];

void fl_hash_setup(const char *item)
{
	if (fl_hash_parse(item, &mode))
		fl_usage_error("--hash: bad mode '%s'", item); /* validated before */
	if (fl_hash_apply(&mode, refused, sizeof refused) != 0 && !refused[0])
		snprintf(refused, sizeof refused, "hash %s refused", item);
}

const char *fl_hash_unavailable(void)
{
	return refused[0] ? refused : NULL;
}

const char *fl_hash_column(void)
{
	if (refused[0])
		fl_hash_name(&mode, column, sizeof column); /* asked, not applied */
	else
		fl_hash_read_back(&mode, column, sizeof column);
	return column;
}

/* Appends the child's rows (after its '#' lines and header) to csv. */
static int merge(struct fl_csv *csv, const char *part, const char *header)
{
	FILE *f = fopen(part, "r");
	if (!f) {
		fprintf(stderr, "futexlab: %s: %s\n", part, strerror(errno));
		return 1;
	}
	char line[4096];
	bool seen_header = false;
	int e = 0;
	while (!e && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#')
			continue;
		if (!seen_header) {
			seen_header = true;
			if (strcmp(line, header)) {
				fprintf(stderr, "futexlab: %s: unexpected header\n", part);
				e = EINVAL;
			}
			continue;
		}
		e = fl_csv_add(csv, line);
	}
	fclose(f);
	unlink(part);
	if (e && e != EINVAL)
		fprintf(stderr, "futexlab: cannot write %s: %s\n", csv->path, strerror(e));
	return e ? 1 : 0;
}

/* Runs this executable with cargv and waits for it, forwarding an
 * interruption to it once (as SIGINT); its exit status (128 + the signal
 * when killed), or -1 when it could not be forked. */
static int run_child(char **cargv)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "futexlab: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execv("/proc/self/exe", cargv);
		fprintf(stderr, "futexlab: exec /proc/self/exe: %s\n", strerror(errno));
		_exit(1);
	}
	int st;
	bool forwarded = false;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = 1 << 8;
			break;
		}
		if (fl_interrupted && !forwarded) { /* e.g. SIGTERM to us alone */
			kill(pid, SIGINT);
			forwarded = true;
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int fl_hash_run_each(int argc, char **argv, char **items, int n, const struct fl_hash_csv *to)
{
	struct fl_csv csv, *cp = NULL, lat, *lp = NULL;
	char latpath[4200], partlat[4200];
	const char *csv_path = to->path;
	if (csv_path) {
		int e = fl_csv_open(&csv, csv_path, to->header, argc, argv);
		if (e) {
			fprintf(stderr, "futexlab: cannot write %s: %s\n", csv_path, strerror(e));
			return 1;
		}
		cp = &csv;
		if (to->meta)
			to->meta(cp, to->arg);
	}
	/* child argv: futexlab run ORIGINAL... --hash ITEM [--csv PART]; the
	 * appended options come last, so they override the originals. */
	char **cargv = calloc((size_t)argc + 6, sizeof *cargv);
	char part[4096];
	int status = 0;
	for (int i = 0; i < n && !fl_interrupted; i++) {
		int k = 0;
		cargv[k++] = "futexlab";
		for (int a = 0; a < argc; a++)
			cargv[k++] = argv[a];
		cargv[k++] = "--hash";
		cargv[k++] = items[i];
		if (cp) {
			snprintf(part, sizeof part, "%s.hash%d.%d.part", csv_path, i, (int)getpid());
			cargv[k++] = "--csv";
			cargv[k++] = part;
		}
		cargv[k] = NULL;
		int rc = run_child(cargv);
		if (rc < 0) {
			status = 1;
			break;
		}
		if (cp && access(part, F_OK) == 0 && merge(cp, part, to->header))
			rc = rc ? rc : 1;
		if (cp) /* the child's full tables (its own: the merged CSV's are compare's) */
			unlink(fl_detail_path(part, partlat, sizeof partlat));
		if (cp) /* the child's latency side file, if it wrote one */
			fl_lat_path(part, partlat, sizeof partlat);
		if (cp && access(partlat, F_OK) == 0) {
			fl_lat_path(csv_path, latpath, sizeof latpath);
			if (!lp && fl_csv_open(&lat, latpath, fl_lat_csv_header, argc, argv) == 0) {
				lp = &lat;
				if (to->meta)
					to->meta(lp, to->arg);
			}
			if (!lp || merge(lp, partlat, fl_lat_csv_header)) {
				unlink(partlat);
				rc = rc ? rc : 1;
			}
		}
		if (rc == 130)
			fl_interrupted = 1;
		else if (rc && !status)
			status = rc;
	}
	free(cargv);
	if (cp) {
		printf("CSV: %s (%d rows, %d hash modes)\n", csv_path, cp->n, n);
		fl_csv_close(cp);
	}
	if (lp)
		fl_csv_close(lp);
	if (fl_interrupted) {
		printf("interrupted: the CSV holds the modes finished before Ctrl-C\n");
		return 130;
	}
	return status;
}
