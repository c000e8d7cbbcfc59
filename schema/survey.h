/* schema/survey.h — one `futexlab exec --survey` as the shim reported it:
 * the record proc/exec.c fills (fl_exec_survey, from each process's
 * logline: shim/logline.h) and the report prints (report/survey.h). */
#ifndef FUTEXLAB_SURVEY_SCHEMA_H
#define FUTEXLAB_SURVEY_SCHEMA_H

#include <stdbool.h>

#define FL_SURVEY_PROCS 64

/* One process's counts, in the order the table prints them. */
enum { FL_SV_INITS, FL_SV_NAMED, FL_SV_WAIT, FL_SV_TRYWAIT, FL_SV_TIMEDWAIT, FL_SV_CLOCKWAIT,
       FL_SV_POST, FL_SV_BLOCKED, FL_SV_TIMEOUTS, FL_SV_N };

struct fl_survey_proc {
	int pid;
	char comm[17];
	/* DESIGN or DESIGN@POLICY, as its shim reported: whole at the shim's
	 * limits (a name of 63 characters, a policy of 23: shim/logline.h) */
	char on[63 + 1 + 23 + 1];
	unsigned long long n[FL_SV_N];
	bool blocked_known;              /* false: the shim could not count them (a design's) */
};

struct fl_survey {
	const char *program;             /* argv[0] */
	double seconds;                  /* its wall time */
	char label[48];                  /* the entry: glibc, NAME or NAME@POLICY */
	char design[64];                 /* "": glibc's own sem_t (the shim's pass-through) */
	char policy[24];                 /* the design's waiting policy (park for glibc) */
	int n;                           /* processes that reported (p: the first FL_SURVEY_PROCS) */
	struct fl_survey_proc p[FL_SURVEY_PROCS];
	/* over every process that reported */
	unsigned long long inits, named, waits, blocked, posts;
	unsigned long long ours, handed; /* semaphores on the design, handed to glibc */
};

#endif
