/* tests/test_schema.c — the pieces of the result's schema against the one
 * table (schema/result_fields.h):
 *   - the run CSV's header is the table's columns (byte for byte the
 *     header every CSV so far was written with: golden text below), then
 *     the perf columns, then the probe columns, and no name twice;
 *   - a row has as many cells as the header, for every kind of row (ok,
 *     error, skipped), with and without the probes' and perf's cells;
 *   - the reader finds every column of the table where the writer put it;
 *     every FIELD with a column lands in it with its value (a row written,
 *     read back by the CSV reader), and the reader's cells
 *     carry the values it summarizes (ns per op, the fairness and latency
 *     columns) and the round;
 *   - the policy column holds the entry's policy (its text for a design,
 *     `own` for a shipped library), and the point's key does not (the
 *     policy is the entry's: its label);
 *   - a file of the previous schema (a `spin` column, no `policy`) still
 *     loads: spin 0 keys its points as today's (park), spin N as spin=N;
 *   - every FIELD crosses the helper's wire (proc/wire.c): its
 *     key is sent, in the table's order, and it comes back equal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/perf.h"
#include "probes/probes.h"
#include "proc/wire.h"
#include "record/run_row.h"
#include "model/table.h"
#include "tests/expect.h"


/* The table's part of the header as every run CSV so far has it. A
 * deliberate change of the schema changes this text (and says so to every
 * script that reads the CSV). */
static const char golden_columns[] =
	"variant,workload,threads,tokens,hold_ns,think_ns,wake,ops,elapsed_ns,"
	"ns_per_op,ops_per_s,status,note,hash,policy,round,slot,sems,"
	"fair_jain,fair_cv,fair_min_max,starve_max_ns,"
	"lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,lat_n,"
	"cpu_user_ns,cpu_sys_ns,csw_vol,csw_invol,shim_sems,cgroup_procs,stranded,stranded_max_ns,metric";

static int count_cells(const char *line)
{
	int n = 1, quoted = 0;
	for (const char *c = line; *c; c++)
		if (*c == '"')
			quoted = !quoted;
		else if (*c == ',' && !quoted)
			n++;
	return n;
}

static void t_header(void)
{
	const char *h = fl_run_csv_header();
	char want[2048];
	snprintf(want, sizeof want, "%s%s%s,probed", golden_columns, fl_perf_header(),
		 fl_probes_csv_header);
	EXPECT(!strcmp(h, want), "header differs:\n%s\nwant\n%s", h, want);
	EXPECT(count_cells(golden_columns) == FL_RUN_NCOLS, "the table has %d columns, golden %d",
	       FL_RUN_NCOLS, count_cells(golden_columns));
	char *dup = strdup(h), *save, *names[256];
	int n = 0;
	for (char *c = strtok_r(dup, ",", &save); c && n < 256; c = strtok_r(NULL, ",", &save))
		names[n++] = c;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			EXPECT(strcmp(names[i], names[j]), "column %s twice", names[i]);
	free(dup);
}

/* A point of pool (fairness columns, latency) with negcount under spin:5,
 * glibc (its own policy), and an ok result whose every field holds a value
 * of its own. */
static struct fl_point point(void)
{
	struct fl_point pt = { .w = fl_workload_find("pool"), .p = { .threads = 3, .tokens = 2,
				.sems = 1, .hold_ns = 7, .think_ns = 9 }, .wake = 0 };
	pt.e[0].v = fl_variant_find("negcount");
	pt.e[0].policy = (struct fl_policy){ FL_POLICY_SPIN, 5 };
	fl_entry_label(pt.e[0].v, &pt.e[0].policy, pt.e[0].label, sizeof pt.e[0].label);
	pt.e[1].v = fl_variant_find("glibc");
	pt.e[1].policy = (struct fl_policy)FL_POLICY_PARK_INIT;
	fl_entry_label(pt.e[1].v, &pt.e[1].policy, pt.e[1].label, sizeof pt.e[1].label);
	pt.ne = 2;
	return pt;
}

static struct fl_result full_result(void)
{
	struct fl_result r = FL_RESULT_EMPTY;
	r.ops = 1000, r.elapsed_ns = 250000;
	r.fair_n = 3, r.fair_jain = 0.875, r.fair_cv = 0.125, r.fair_min_max = 0.5;
	r.starve_max_ns = 4242;
	r.cpu_set = true, r.cpu_user_ns = 11, r.cpu_sys_ns = 12, r.csw_vol = 13, r.csw_invol = 14;
	r.shim_sems = 15, r.cgroup_procs = 17, r.stranded = 0, r.stranded_max_ns = 16;
	r.lat = calloc(1, sizeof *r.lat);
	for (int64_t v = 1000; v < 100000; v += 1000)
		fl_hist_add(r.lat, v);
	return r;
}

/* The value a FIELD's cell holds in the row of full_result(). */
static void expected(char *out, size_t n, double v, int is_dbl)
{
	if (is_dbl)
		snprintf(out, n, "%.4f", v);
	else
		snprintf(out, n, "%lld", (long long)v);
}

static void t_rows(void)
{
	struct fl_point pt = point();
	struct fl_result r = full_result();
	struct fl_perf_reading perf = { { 1, 2, 3, -1, 5 } };
	char rows[3][4096];
	fl_run_row(rows[0], sizeof rows[0], &pt,
		   &(struct fl_run_rep){ &pt.e[0], 4, 0, "ok", "a \"note\", quoted", &r, &perf, true, "auto" }, 0);
	fl_run_row(rows[1], sizeof rows[1], &pt,
		   &(struct fl_run_rep){ &pt.e[0], 5, 1, "error", "lost", &r, NULL, false, "auto" }, 0);
	fl_run_row(rows[2], sizeof rows[2], &pt,
		   &(struct fl_run_rep){ &pt.e[1], 0, 0, "skipped", "why", NULL, NULL, false, "auto" }, 0);
	int nh = count_cells(fl_run_csv_header());
	for (int i = 0; i < 3; i++)
		EXPECT(count_cells(rows[i]) == nh, "row %d has %d cells, the header %d: %s", i,
		       count_cells(rows[i]), nh, rows[i]);
	struct fl_table t;
	char err[300];
	char *lines[3] = { rows[0], rows[1], rows[2] };
	int rc = fl_table_from_lines(&t, &(struct fl_csv_lines){ "", fl_run_csv_header(), lines, 3 },
				     err, sizeof err);
	EXPECT(rc == 0 && t.nrows == 3, "the reader refuses the rows: %s", err);
	if (rc || t.nrows != 3) {
		fl_table_free(&t);
		free(r.lat);
		return;
	}
	/* the reader finds every column of the table where the writer put it */
	for (int i = 0; i < FL_RUN_NCOLS; i++)
		EXPECT(fl_table_col(&t, fl_run_cols[i]) == i, "the reader finds %s at %d, not %d",
		       fl_run_cols[i], fl_table_col(&t, fl_run_cols[i]), i);
	/* every FIELD with a column holds its value (ok row) */
	char want[64];
#define CHECK_FIELD(kind, name, arg, csv)                                                   \
	FL_RESULT_CSV_##csv({                                                              \
		int c = fl_table_col(&t, #name);                                           \
		expected(want, sizeof want, (double)r.name, !strcmp(#kind, "DBL"));       \
		EXPECT(c >= 0 && !strcmp(t.rows[0][c], want), "column %s: '%s', want '%s'", \
		       #name, c >= 0 ? t.rows[0][c] : "(none)", want);                     \
	})
	FL_RESULT_TABLE(CHECK_FIELD, FL_RESULT_SKIP_COLUMN)
	int note = fl_table_col(&t, FL_COL(note)), st = fl_table_col(&t, FL_COL(status));
	EXPECT(!strcmp(t.rows[0][note], "a \"note\", quoted") && !strcmp(t.rows[1][st], "error"),
	       "note '%s' status '%s'", t.rows[0][note], t.rows[1][st]);
	/* the error row: the detector's and the shim's columns, not the measures */
	int ops = fl_table_col(&t, FL_COL(ops)), sh = fl_table_col(&t, FL_COL(shim_sems));
	EXPECT(!t.rows[1][ops][0] && !strcmp(t.rows[1][sh], "15"), "error row: ops '%s' shim '%s'",
	       t.rows[1][ops], t.rows[1][sh]);
	/* probed: 1 on a counted rep, 0 on one the collector did not count,
	 * empty on a skipped row */
	int pr = fl_table_col(&t, "probed");
	EXPECT(pr >= 0 && !strcmp(t.rows[0][pr], "1") && !strcmp(t.rows[1][pr], "0") &&
	       !t.rows[2][pr][0], "probed: '%s' '%s' '%s'", pr >= 0 ? t.rows[0][pr] : "-",
	       pr >= 0 ? t.rows[1][pr] : "-", pr >= 0 ? t.rows[2][pr] : "-");
	/* the entry's label and policy: negcount@spin:5 under spin:5, glibc its own */
	int var = fl_table_col(&t, FL_COL(variant)), pol = fl_table_col(&t, FL_COL(policy));
	EXPECT(!strcmp(t.rows[0][var], "negcount@spin:5") && !strcmp(t.rows[0][pol], "spin:5") &&
	       !strcmp(t.rows[2][var], "glibc") && !strcmp(t.rows[2][pol], "own"),
	       "labels and policies: '%s' '%s', '%s' '%s'", t.rows[0][var], t.rows[0][pol],
	       t.rows[2][var], t.rows[2][pol]);
	struct fl_cells cells;
	EXPECT(fl_cells_build(&t, &cells, err, sizeof err) == 0, "cells: %s", err);
	const struct fl_cell *c = cells.n ? &cells.c[0] : NULL;
	EXPECT(c && c->nr == 1 && c->round[0] == 4 && fabs(c->ns_r[0] - 250.0) < 1e-9,
	       "the reader's cell: %d reps, round %d, %g ns", c ? c->nr : -1,
	       c ? c->round[0] : -1, c ? c->ns_r[0] : NAN);
	/* the policy is the entry's, not the point's: one point for both */
	EXPECT(c && cells.n == 2 && !strcmp(c->point, cells.c[1].point) &&
	       !strcmp(c->point, "pool T=3 K=2 hold=7 think=9 wake=exact hash=auto") &&
	       !strcmp(c->variant, "negcount@spin:5"), "the point: %d cells, '%s' '%s'", cells.n,
	       c ? c->point : "", cells.n > 1 ? cells.c[1].point : "");
	EXPECT(c && c->extra[0] == 0.875 && c->extra[1] == 0.125 && c->extra[2] == 0.5 &&
	       c->extra[3] == 4242 && c->extra[4] > 0, "the reader's extra columns: %g %g %g %g %g",
	       c ? c->extra[0] : NAN, c ? c->extra[1] : NAN, c ? c->extra[2] : NAN,
	       c ? c->extra[3] : NAN, c ? c->extra[4] : NAN);
	fl_cells_free(&cells);
	fl_table_free(&t);
	free(r.lat);
}

/* A file of the previous schema: `spin` where `policy` is now. Its spin 0
 * points key as today's (park: comparable with files written since), its
 * spin N points as spin=N (a spin inside the design then, not a policy). */
static void t_old_spin(void)
{
	static const char header[] = "variant,workload,threads,tokens,hold_ns,think_ns,wake,ops,"
		"elapsed_ns,ns_per_op,ops_per_s,status,note,hash,spin,round,slot,sems";
	char r0[] = "negcount,pool,4,1,0,0,exact,10,1000,100.0,1,ok,\"\",auto,0,0,0,1";
	char r1[] = "negcount,pool,4,1,0,0,exact,10,1000,90.0,1,ok,\"\",auto,100,0,0,1";
	char r2[] = "glibc,pool,4,1,0,0,exact,10,1000,100.0,1,ok,\"\",auto,100,0,1,1";
	char *lines[] = { r0, r1, r2 };
	struct fl_table t;
	struct fl_cells cells;
	char err[300] = "";
	int rc = fl_table_from_lines(&t, &(struct fl_csv_lines){ "# futexlab old\n", header, lines, 3 },
				     err, sizeof err);
	EXPECT(rc == 0 && fl_cells_build(&t, &cells, err, sizeof err) == 0, "old file: %s", err);
	if (rc)
		return;
	EXPECT(cells.n == 3 && !strcmp(cells.c[0].point, "pool T=4 K=1 wake=exact hash=auto") &&
	       !strcmp(cells.c[1].point, "pool T=4 K=1 wake=exact hash=auto spin=100") &&
	       !strcmp(cells.c[2].point, cells.c[1].point), "old file's points: %d: '%s' '%s'",
	       cells.n, cells.n > 0 ? cells.c[0].point : "", cells.n > 1 ? cells.c[1].point : "");
	fl_cells_free(&cells);
	fl_table_free(&t);
}

/* Every FIELD: its key on the wire in the table's order, its value back. */
static void t_wire(void)
{
	struct fl_result r = FL_RESULT_EMPTY, back;
	int k = 1;
#define SET_I64(name) r.name = 1000000007LL * k++;
#define SET_INT(name) r.name = 1000 + k++;
#define SET_DBL(name) r.name = 1.0 / (k++ + 2);
#define SET_BOOL(name) r.name = true, k++;
#define SET_STR(name) snprintf(r.name, sizeof r.name, "%s %d\n\\", #name, k++);
#define SET_FIELD(kind, name, arg, csv) SET_##kind(name)
	FL_RESULT_TABLE(SET_FIELD, FL_RESULT_SKIP_COLUMN)
	struct fl_msg m = { 0 };
	fl_wire_put_result(&m, &r);
	const char *at = m.s;
	char key[64], err[200];
#define KEY_FIELD(kind, name, arg, csv)                                                  \
	snprintf(key, sizeof key, "\n%s=", #name);                                        \
	EXPECT(at && (at = strstr(at, key)), "key %s not sent, or not in the table's order", \
	       #name);
	FL_RESULT_TABLE(KEY_FIELD, FL_RESULT_SKIP_COLUMN)
	EXPECT(fl_wire_get_result(m.s, &back, err, sizeof err) == 0, "%s", err);
#define SAME_I64(name) r.name == back.name
#define SAME_INT(name) r.name == back.name
#define SAME_DBL(name) r.name == back.name
#define SAME_BOOL(name) r.name == back.name
#define SAME_STR(name) !strcmp(r.name, back.name)
#define SAME_FIELD(kind, name, arg, csv) \
	EXPECT(SAME_##kind(name), "field %s changed on the wire", #name);
	FL_RESULT_TABLE(SAME_FIELD, FL_RESULT_SKIP_COLUMN)
	free(back.lat);
	fl_msg_free(&m);
}

int main(void)
{
	t_header();
	t_rows();
	t_old_spin();
	t_wire();
	printf("%s\n", failures ? "FAILED" : "schema: all ok");
	return failures ? 1 : 0;
}
