/* harness/run.h — the subcommands. */
#ifndef FUTEXLAB_RUN_H
#define FUTEXLAB_RUN_H

#include <signal.h>

/* Set by SIGINT/SIGTERM: finished rows are kept, the sweep stops. */
extern volatile sig_atomic_t fl_interrupted;

int fl_cmd_run(int argc, char **argv);
int fl_cmd_list(int argc, char **argv);

#endif
