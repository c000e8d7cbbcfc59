/* tests/shim/logcat.c — the shim's log read back with the published
 * parser (shim/logline.h), as the harness reads it.
 *
 *   logcat FILE
 *
 * One output line per line of FILE:
 *   R pid ppid comm variant policy state inits ours handed named stats wait
 *     trywait timedwait clockwait post blocked timeouts reason...
 *       a logline (stats 0 or 1; without stats the counts print as -,
 *       blocked as - when not known)
 *   M line      another line (a FUTEXLAB_DEBUG message)
 *   BAD line    a line that starts like a logline and does not parse
 * Exits 1 if a line was BAD or the file cannot be read, 0 otherwise. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/logline.h"

static void count(const struct fl_shim_logline *r, uint64_t v)
{
	if (r->stats)
		printf(" %" PRIu64, v);
	else
		fputs(" -", stdout);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: logcat FILE\n", stderr);
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	char *line = NULL;
	size_t cap = 0;
	int bad = 0;
	while (getline(&line, &cap, f) > 0) {
		struct fl_shim_logline r;
		int p = fl_shim_logline_parse(line, &r);
		if (p == 1) {
			printf("M %s", line);
		} else if (p != 0) {
			printf("BAD %s", line);
			bad = 1;
		} else {
			printf("R %d %d %s %s %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d",
			       r.pid, r.ppid, r.comm, r.variant, r.policy, fl_shim_state_name(r.state),
			       r.inits, r.ours, r.handed, r.named, r.stats);
			count(&r, r.wait);
			count(&r, r.trywait);
			count(&r, r.timedwait);
			count(&r, r.clockwait);
			count(&r, r.post);
			if (r.stats && r.blocked_known)
				printf(" %" PRIu64, r.blocked);
			else
				fputs(" -", stdout);
			count(&r, r.timeouts);
			printf(" %s\n", r.reason);
		}
		if (!strchr(line, '\n'))
			putchar('\n');
	}
	free(line);
	fclose(f);
	return bad;
}
