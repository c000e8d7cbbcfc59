/* probes/words.c — `futexlab exec`'s per-futex-word list of the last rep
 * (probes.h: fl_probes_words), from the collector's per-word map (follow
 * mode only): a private word by process and address, a shared one by its
 * file and offset, with the processes that touched it. */
#include <stdio.h>
#include <string.h>

#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#include "probes/session.h"
#endif
#include "probes/probes.h"

#ifdef FL_HAVE_PROBES
int fl_probes_words(int by, struct fl_word *out, int n, int *nwords, unsigned long long *lost)
{
	*nwords = 0;
	*lost = 0;
	if (!fl_probes_collector() || !fl_probes_following())
		return 0;
	struct futexstat_word w[64];
	int k = futexstat_words(fl_probes_collector(), by, w, n < 64 ? n : 64, nwords);
	_Static_assert(FL_WORD_PIDS == FUTEXSTAT_WORD_PIDS, "one list of pids");
	for (int i = 0; i < k; i++) {
		out[i] = (struct fl_word){ .tgid = w[i].tgid, .uaddr = w[i].uaddr, .ino = w[i].ino,
					   .dev = w[i].dev, .npids = w[i].npids,
					   .more = w[i].more != 0, .waits = w[i].waits,
					   .wait_ns = w[i].wait_ns, .wakes = w[i].wakes,
					   .woken = w[i].woken, .eagain = w[i].eagain,
					   .timedout = w[i].timedout };
		memcpy(out[i].pids, w[i].pids, sizeof out[i].pids);
	}
	*lost = fl_probes_words_lost();
	return k < 0 ? 0 : k;
}
#else
int fl_probes_words(int by, struct fl_word *out, int n, int *nwords, unsigned long long *lost)
{
	(void)by, (void)out, (void)n;
	*nwords = 0;
	*lost = 0;
	return 0;
}
#endif
