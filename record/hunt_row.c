/* record/hunt_row.c — see hunt_row.h. */
#include "record/hunt_row.h"

#include <stdio.h>
#include <stdlib.h>

#include "probes/probes.h"
#include "record/csv.h"

const char *fl_hunt_csv_header(void)
{
	static char header[1024];
	if (!header[0])
		snprintf(header, sizeof header, "variant,pattern,rep,ops,elapsed_ns,signals,text_hits,"
			 "stranded,stranded_max_ns,status,note,cpu_user_ns,cpu_sys_ns,csw_vol,"
			 "csw_invol%s", fl_probes_csv_header);
	return header;
}

void fl_hunt_row(char *out, size_t n, const struct fl_hunt_rep *x)
{
	const struct fl_result *r = x->r;
	char q[512], cpu[100] = ",,,";
	fl_csv_quote(q, sizeof q, x->note);
	if (r->cpu_set)
		snprintf(cpu, sizeof cpu, "%lld,%lld,%lld,%lld", (long long)r->cpu_user_ns,
			 (long long)r->cpu_sys_ns, (long long)r->csw_vol, (long long)r->csw_invol);
	int k = snprintf(out, n, "%s,%s,%d,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%s", x->label,
			 x->pattern, x->rep, (long long)r->ops, (long long)r->elapsed_ns,
			 (long long)r->preempt_signals, (long long)r->preempt_hits,
			 (long long)x->stranded, (long long)r->stranded_max_ns, x->status, q, cpu);
	if (k < 0 || (size_t)k >= n) {
		fprintf(stderr, "futexlab: hunt: CSV row longer than %zu bytes\n", n);
		exit(1);
	}
	fl_probes_append(out, n, x->probed);
}

int fl_hunt_csv_add(struct fl_csv *csv, const struct fl_hunt_rep *x)
{
	char row[2048];
	fl_hunt_row(row, sizeof row, x);
	return fl_csv_add(csv, row);
}
