/* report/survey.h — what `futexlab exec --survey` prints: the program run
 * once with the shim counting, one line per process that reported (its
 * sem_inits, named opens, waits by kind, posts, waits that blocked,
 * timeouts; on a design's survey, what its shim ran it on), the totals,
 * and whether a design comparison can show anything. The record is
 * schema/survey.h's, filled by proc/exec.c (fl_exec_survey). */
#ifndef FUTEXLAB_SURVEY_H
#define FUTEXLAB_SURVEY_H

#include <stdio.h>

#include "schema/survey.h"

/* The survey's lines on f: the header (which semaphores it ran on: glibc's,
 * or the design and its waiting policy), a line per process, the totals
 * and the verdict. */
void fl_survey_print(FILE *f, const struct fl_survey *s);

#endif
