/* schema/word.h — one futex word as the collector saw it in a rep: the
 * record the probes fill (probes/probes.h, fl_probes_words) and the
 * report reads (report/exec_summary.h). */
#ifndef FUTEXLAB_WORD_H
#define FUTEXLAB_WORD_H

#include <stdbool.h>

/* One futex word of the last rep (follow mode). A private word is a
 * process's address; a shared one (a non-private op on shared memory) is a
 * file's offset, whichever processes map it. */
#define FL_WORD_PIDS 4
struct fl_word {
	unsigned tgid;                      /* a private word's process; 0: shared */
	unsigned long long uaddr;           /* the address; a shared word's offset */
	unsigned long long ino;             /* a shared word's file (inode); 0: private */
	unsigned dev;                       /* its device (the kernel's encoding) */
	unsigned pids[FL_WORD_PIDS];        /* the processes that waited or woke on it */
	int npids;
	bool more;                          /* more processes than pids[] holds */
	unsigned long long waits, wait_ns;  /* waits that ended, their time in the kernel */
	unsigned long long wakes, woken;    /* wakes entered on it, threads they woke */
	unsigned long long eagain, timedout;
};

#endif
