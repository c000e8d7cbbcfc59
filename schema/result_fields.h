/* schema/result_fields.h — the one table of a rep's result: every field
 * of struct fl_result (but the latency histogram, a pointer: `lat`), and
 * every column of the run CSV's row, in one ordered list. From it are
 * generated:
 *   - struct fl_result's fields, in this order (workload.h), and
 *     FL_RESULT_EMPTY, a result nothing has filled yet;
 *   - the helper's wire encoding and decoding of a result (the key is the
 *     field's name; the keys go in this order: proc/wire.c);
 *   - the run CSV's header and row cells, in this order (record/run_row.c),
 *     then the perf and probe columns, which their own modules write;
 *   - the names the CSV reader looks columns up by (FL_COL(name):
 *     schema/columns.h; a column the table does not write does not
 *     compile).
 * tests/test_schema.c checks the pieces that are not generated against it.
 *
 * Adding a field to struct fl_result is ONE line here, FIELD(...), at the
 * place its CSV column should take (or anywhere, with no column): the
 * struct, the wire and the CSV follow. A helper built from an older
 * revision refuses the new key (harness and helper are built together).
 *
 *   FIELD(kind, name, arg, csv)
 *     kind  I64 (int64_t), INT (int), DBL (double), BOOL (bool), STR (char[arg])
 *     name  the field, its wire key and its CSV column (one name for all)
 *     arg   STR: the buffer's size; else the value of a result nothing has
 *           filled (-1 where the empty CSV cell means "not known", 0 else)
 *     csv   none: not a column of the run CSV (STR fields are always none:
 *           text reaches the CSV through the note column); else when the
 *           row's cell holds the value (empty otherwise; the row's status
 *           is "ok" for a finished rep, "error", "skipped", "empty"):
 *             ok        an ok row
 *             fair      an ok row of a workload with fairness columns
 *                       (fl_workload.fairness), fair_n > 0, fair_jain >= 0
 *             starve    an ok row of such a workload, latency recorded,
 *                       value >= 0
 *             cpu       an ok row, cpu_set
 *             known     a row with a result (ok or error), value >= 0
 *             stranded  a row with a result, the detector watched it
 *                       (stranded >= 0)
 *           Numbers are written %lld (I64), %d (INT, BOOL), %.4f (DBL).
 *   COLUMN(name)
 *     a column of the run CSV that is not a field: the point's
 *     configuration, the derived figures, the row's status; the harness
 *     writes its cell (record/run_row.c: one function per column).
 *
 * The wire order and the CSV order are the one order of this list: the
 * helper's golden text (tests/test_helper_wire.c) and every CSV written so
 * far fix both, so a field moves only with both in mind. */
#ifndef FUTEXLAB_RESULT_FIELDS_H
#define FUTEXLAB_RESULT_FIELDS_H

#include <math.h> /* NAN: a FIELD's "none" (metric) */

#define FL_RESULT_TABLE(FIELD, COLUMN)                                          \
	COLUMN(variant)       /* the entry: a design, a floor, BASELINE#2 */  \
	COLUMN(workload)                                                       \
	COLUMN(threads)                                                        \
	COLUMN(tokens)        /* 0 where the workload uses no tokens */       \
	COLUMN(hold_ns)       /* 0 likewise */                                 \
	COLUMN(think_ns)      /* 0 likewise */                                 \
	COLUMN(wake)                                                           \
	FIELD(I64, ops, 0, ok)        /* operations completed (all threads) */ \
	FIELD(I64, elapsed_ns, 0, ok) /* wall time of the timed section */     \
	COLUMN(ns_per_op)                                                      \
	COLUMN(ops_per_s)                                                      \
	COLUMN(status)                                                         \
	FIELD(STR, error, 200, none) /* non-empty: the run broke an invariant */ \
	FIELD(STR, info, 120, none)  /* optional, ok rows: a detail for the note */ \
	COLUMN(note)          /* error, info, or why skipped/empty; quoted */  \
	COLUMN(hash)                                                           \
	COLUMN(policy)        /* the waiting policy; own: a peer's or floor's */ \
	COLUMN(round)         /* the round; -1 never written (warm-up) */      \
	COLUMN(slot)          /* the rep's place in its round's order */       \
	COLUMN(sems)                                                           \
	/* Fairness and latency, from fl_tstats_finish (multi-threaded         \
	 * workloads). */                                                      \
	FIELD(INT, fair_n, 0, none)   /* threads counted; 0: no fairness */    \
	FIELD(DBL, fair_jain, 0, fair) /* Jain's index of per-thread ops */    \
	FIELD(DBL, fair_cv, 0, fair)  /* stddev / mean of per-thread ops */    \
	FIELD(DBL, fair_min_max, 0, fair) /* min / max per-thread ops */       \
	FIELD(I64, starve_max_ns, -1, starve) /* longest time a thread went    \
						 without an op (-1: not timed) */ \
	COLUMN(lat_p50_ns)    /* the histogram's, minus a timer read */        \
	COLUMN(lat_p99_ns)                                                     \
	COLUMN(lat_p999_ns)                                                    \
	COLUMN(lat_max_ns)                                                     \
	COLUMN(lat_n)                                                          \
	/* CPU time and context switches of the rep. A workload that runs      \
	 * another program (exec: wait4's rusage of the child and its          \
	 * descendants) fills them and sets cpu_set; otherwise the harness     \
	 * takes getrusage(RUSAGE_SELF) around the whole rep. */               \
	FIELD(BOOL, cpu_set, 0, none)                                          \
	FIELD(I64, cpu_user_ns, 0, cpu)                                        \
	FIELD(I64, cpu_sys_ns, 0, cpu)                                         \
	FIELD(I64, csw_vol, 0, cpu)                                            \
	FIELD(I64, csw_invol, 0, cpu)                                          \
	/* Semaphores the LD_PRELOAD shim initialised on the design during the \
	 * rep (exec only; -1: not known). */                                  \
	FIELD(I64, shim_sems, -1, known)                                       \
	/* Processes seen in the run's cgroup (exec: distinct tgids sampled    \
	 * every ~20 ms, plus every process that reported; -1: no cgroup).     \
	 * A floor: one that lived between two samples and did not report is  \
	 * missed. */                                                          \
	FIELD(I64, cgroup_procs, -1, known)                                    \
	/* The stranded-waiter detector (stranded.c, filled by                 \
	 * fl_stranded_rep_end): waiters found stranded (a lost wakeup); -1:   \
	 * not watched (detector off, or the rep's threads outgrew it). */     \
	FIELD(I64, stranded, -1, known)                                        \
	FIELD(I64, stranded_max_ns, 0, stranded) /* the longest stranding */   \
	FIELD(STR, stranded_note, 200, none) /* the first one's evidence */    \
	FIELD(INT, stranded_tid, 0, none)    /* its thread id (0: none) */    \
	/* Tokens taken from the first stranded waiter's semaphore up to its   \
	 * confirmation (the "- N taken" of its note), when stranded > 0. */   \
	FIELD(I64, stranded_taken, 0, none)                                    \
	/* The hunt's preemption (hunt/preempt.h): signals taken, and hits,    \
	 * those that landed in the library's text (also in info, for people). \
	 */                                                                    \
	FIELD(I64, preempt_signals, 0, none)                                   \
	FIELD(I64, preempt_hits, 0, none)                                      \
	/* exec --metric: the program's own figure (proc/metric.h; NAN: none). \
	 * Its column is a COLUMN written by record/run_row.c with %.10g, not \
	 * a DBL cell's %.4f: the figure's precision is the program's. */      \
	FIELD(DBL, metric, NAN, none)                                          \
	COLUMN(metric)        /* empty without --metric and on error rows */

/* ---- expansions every user shares ---------------------------------------- */

/* Whether a FIELD has a CSV column: FL_RESULT_CSV_<csv>(x...) is x, or
 * nothing for `none`. A new `csv` word is a line here and its test in
 * record/run_row.c. */
#define FL_RESULT_CSV_none(...)
#define FL_RESULT_CSV_ok(...) __VA_ARGS__
#define FL_RESULT_CSV_fair(...) __VA_ARGS__
#define FL_RESULT_CSV_starve(...) __VA_ARGS__
#define FL_RESULT_CSV_cpu(...) __VA_ARGS__
#define FL_RESULT_CSV_known(...) __VA_ARGS__
#define FL_RESULT_CSV_stranded(...) __VA_ARGS__

/* A COLUMN or FIELD that a given expansion skips. */
#define FL_RESULT_SKIP_COLUMN(name)
#define FL_RESULT_SKIP_FIELD(kind, name, arg, csv)

/* struct fl_result's fields (workload.h). */
#define FL_RESULT_MEMBER_I64(name, arg) int64_t name;
#define FL_RESULT_MEMBER_INT(name, arg) int name;
#define FL_RESULT_MEMBER_DBL(name, arg) double name;
#define FL_RESULT_MEMBER_BOOL(name, arg) bool name;
#define FL_RESULT_MEMBER_STR(name, arg) char name[arg];
#define FL_RESULT_MEMBER(kind, name, arg, csv) FL_RESULT_MEMBER_##kind(name, arg)
#define FL_RESULT_MEMBERS FL_RESULT_TABLE(FL_RESULT_MEMBER, FL_RESULT_SKIP_COLUMN)

/* A result nothing has filled: every number at its arg, strings empty, no
 * histogram. `struct fl_result r = FL_RESULT_EMPTY;` */
#define FL_RESULT_INIT_I64(name, arg) .name = (arg),
#define FL_RESULT_INIT_INT(name, arg) .name = (arg),
#define FL_RESULT_INIT_DBL(name, arg) .name = (arg),
#define FL_RESULT_INIT_BOOL(name, arg) .name = (arg),
#define FL_RESULT_INIT_STR(name, arg)
#define FL_RESULT_INIT(kind, name, arg, csv) FL_RESULT_INIT_##kind(name, arg)
#define FL_RESULT_EMPTY { FL_RESULT_TABLE(FL_RESULT_INIT, FL_RESULT_SKIP_COLUMN) .lat = 0 }

#endif
