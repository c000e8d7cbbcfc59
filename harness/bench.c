/* harness/bench.c — see bench.h: the runner, then the report. */
#include "harness/bench.h"

#include <stdio.h>

#include "model/table.h"
#include "record/csv.h"
#include "report/summary.h"
#include "runner/runner.h"

/* A command's own report, in the full tables (fl_report_text's more). */
struct more {
	void (*fn)(FILE *f, const struct fl_table *t);
	const struct fl_table *t;
};

static void more(FILE *f, void *arg)
{
	const struct more *m = arg;
	m->fn(f, m->t);
}

/* The ratio table and the summary of the rows written. */
static void table(const struct fl_spec *s, const struct fl_csv *csv,
		  void (*fn)(FILE *f, const struct fl_table *t))
{
	struct fl_table t;
	struct fl_cells cells;
	char err[300], txt[1100];
	struct fl_csv_lines l = { csv->meta, csv->header, csv->lines, csv->n };
	if (fl_table_from_lines(&t, &l, err, sizeof err) == 0 &&
	    fl_cells_build(&t, &cells, err, sizeof err) == 0) {
		struct more m = { fn, &t };
		const char *detail = s->csv_path ? fl_detail_path(s->csv_path, txt, sizeof txt) : NULL;
		struct fl_loaded_run run;
		fl_loaded_wrap(&run, &t, &cells, detail);
		fl_report_text(stdout, &run, &(struct fl_text_opts){ detail, s->detail, s->baseline,
								  fn ? more : NULL, &m });
		fl_loaded_free(&run);
		fl_cells_free(&cells);
		fl_table_free(&t);
	} else {
		fprintf(stderr, "futexlab: cannot summarize: %s\n", err);
	}
}

int fl_bench_report(struct fl_spec *s, void (*more)(FILE *f, const struct fl_table *t))
{
	struct fl_bench_out out;
	int rc = fl_bench(s, &out);
	if (out.rows) {
		table(s, &out.csv, more);
		if (rc != 130 && out.errors)
			fprintf(stderr, "futexlab: %d point(s) broke an invariant (error above)\n",
				out.errors);
	}
	fl_bench_close(&out);
	return rc;
}

int fl_bench_main(const char *cmd, const struct fl_spec_defaults *d, int argc, char **argv)
{
	struct fl_spec s;
	if (fl_spec_parse(&s, cmd, d, argc, argv))
		return 0; /* --help */
	return fl_bench_report(&s, NULL);
}
