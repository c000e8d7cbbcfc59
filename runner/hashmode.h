/* runner/hashmode.h — `futexlab run --hash auto|global|private:N[,...]`.
 *
 * A futex hash mode is a property of the whole process, and the global one
 * cannot be left once chosen (lib/prctl.h). So:
 *   - one mode: applied in this process before any worker thread starts,
 *     read back, and recorded in every CSV row (column `hash`) and in the
 *     table header;
 *   - a list: this process runs no workload itself; it re-executes
 *     /proc/self/exe once per mode with that single --hash (fork + exec: a
 *     fresh process, no threads), each child writing its own CSV next to
 *     the target, and merges each child's rows into the target CSV as the
 *     child finishes (the csv module rewrites it atomically per row, so the
 *     target always holds every finished mode, never a torn row).
 * A mode the kernel refuses (older than 6.16, a size it rejects) does not
 * fail the run: every point of that mode is reported as skipped with the
 * reason. */
#ifndef FUTEXLAB_HASHMODE_H
#define FUTEXLAB_HASHMODE_H

/* Single mode: apply it now (before any thread). */
void fl_hash_setup(const char *item);
/* NULL, or why no point of this run can run (the mode was refused). */
const char *fl_hash_unavailable(void);
/* The mode for the CSV column and the table: read back from the kernel. */
const char *fl_hash_column(void);

struct fl_csv;
/* The CSV a list's rows are merged into: the file, its header line, and
 * what it says after the lines every file opens with. */
struct fl_hash_csv {
	const char *path;   /* NULL: no CSV (the children write none either) */
	const char *header; /* the header line, the children's as well */
	/* the metadata lines that must never be lost (as --as's mark), written
	 * into the CSV and its .lat.csv, meta(csv, arg); NULL: none */
	void (*meta)(struct fl_csv *csv, const void *arg);
	const void *arg;
};

/* A list: runs `futexlab run ARGS --hash ITEM [--csv PART]` per item and
 * merges the rows into to->path (if given) and its .lat.csv. Returns the
 * exit status. */
int fl_hash_run_each(int argc, char **argv, char **items, int n, const struct fl_hash_csv *to);

#endif
