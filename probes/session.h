/* probes/session.h — the collector session's state (session.c), for the
 * other files of the glue (stranded_note.c, words.c, overhead.c); the
 * commands use probes.h. Builds with the collector only.
 *
 * One session a process: fl_probes_setup loads the collector, each rep
 * attaches and counts between fl_probes_rep_begin and fl_probes_rep_end,
 * fl_probes_teardown closes it. The main thread drives it; only the
 * detector's hook (fl_probes_on_stranded) runs on another thread, the
 * watchdog, and reads fl_probes_counting. */
#ifndef FUTEXLAB_PROBES_SESSION_H
#define FUTEXLAB_PROBES_SESSION_H

#include <stdbool.h>

struct futexstat;

/* The loaded collector; NULL: off (mode off, refused, or torn down). */
struct futexstat *fl_probes_collector(void);
/* Whether a rep is being counted now (acquire: any thread). */
bool fl_probes_counting(void);
/* `futexlab exec`'s mode: the forked processes counted, per-word counts. */
bool fl_probes_following(void);
/* Words the last counted rep's map could not hold. */
unsigned long long fl_probes_words_lost(void);

/* The detector's hook while the collector is loaded (stranded_note.c). */
void fl_probes_on_stranded(int tid);

#endif
