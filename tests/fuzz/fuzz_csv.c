/* tests/fuzz/fuzz_csv.c — `futexlab compare` on arbitrary bytes.
 *
 * The input is a CSV file, read through fmemopen by the reader that
 * fl_table_load uses (model/table.c) and checked by its rules
 * (fl_table_check_run: the store's too), then taken as far as compare takes
 * it: cells (fl_cells_build), the TSV, the ratio table when the baseline
 * `glibc` is in it (compare refuses a file without it), and before/after
 * both ways (by ratios, and --absolute). An input holding a line that is a
 * lone form feed is two files, before and after it; otherwise the file is
 * compared with itself. Output goes to /dev/null. The oracle: no crash,
 * leak or undefined behaviour (ASan, UBSan), and a refused file's message is
 * a terminated string. */
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "model/model.h"
#include "report/changes.h"
#include "report/tables.h"
#include "model/table.h"

static FILE *devnull;

/* Loads one file from data[0..size); false (nothing to free) if refused. */
static bool load(const uint8_t *data, size_t size, struct fl_table *t, struct fl_cells *c)
{
	/* fmemopen never writes in mode "r" */
	FILE *f = fmemopen(size ? (void *)(uintptr_t)data : (void *)"", size, "r");
	FUZZ_ASSERT(f, "fmemopen");
	char err[300];
	memset(err, 'Z', sizeof err);
	int r = fl_table_read(t, f, err, sizeof err);
	fclose(f);
	if (r == 0) /* the rules fl_table_load and store add read a run by */
		r = fl_table_check_run(t, err, sizeof err);
	if (r == 0) {
		char note[300];
		fl_table_end_note(t, note, sizeof note);
		r = fl_cells_build(t, c, err, sizeof err);
	}
	if (r) {
		FUZZ_ASSERT(r == -1, "returned %d", r);
		FUZZ_ASSERT(memchr(err, '\0', sizeof err) != NULL, "error message not terminated");
		fl_table_free(t);
		return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	FUZZ_ASSERT(devnull, "/dev/null");
	size_t na = size, nb = size, off = 0;
	for (size_t i = 0; i + 1 < size; i++)
		if (data[i] == '\f' && data[i + 1] == '\n' && (i == 0 || data[i - 1] == '\n')) {
			na = i;
			off = i + 2;
			nb = size - off;
			break;
		}
	struct fl_table t[2];
	struct fl_cells c[2];
	if (!load(data, na, &t[0], &c[0]))
		return 0;
	if (!load(data + off, nb, &t[1], &c[1])) {
		fl_cells_free(&c[0]);
		fl_table_free(&t[0]);
		return 0;
	}
	const char *base = "glibc";
	struct fl_loaded_run run;
	fl_loaded_wrap(&run, &t[0], &c[0], "fuzz");
	struct fl_loaded_run after;
	fl_loaded_wrap(&after, &t[1], &c[1], "fuzz after");
	struct fl_model m;
	fl_model_of_run(&m, &run, base);
	fl_print_tsv(devnull, &m, 0);
	bool have = fl_cell_find_variant(&c[0], base) && fl_cell_find_variant(&c[1], base);
	if (have) {
		fl_print_ratios(devnull, &m, 0);
		fl_print_changes(devnull, &run, &after, &(struct fl_changes_opts){ base, false, false,
									       NULL });
		fl_print_changes(devnull, &run, &after, &(struct fl_changes_opts){ base, true, false,
									       NULL });
	}
	fl_print_changes(devnull, &run, &after, &(struct fl_changes_opts){ base, true, true, NULL });
	fl_model_free(&m);
	fl_loaded_free(&run);
	fl_loaded_free(&after);
	for (int i = 0; i < 2; i++) {
		fl_cells_free(&c[i]);
		fl_table_free(&t[i]);
	}
	return 0;
}
