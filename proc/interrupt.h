/* proc/interrupt.h — Ctrl-C, in one place.
 *
 * One flag and one handler for the whole process: SIGINT or SIGTERM sets
 * fl_interrupted, and every loop that runs reps (the runner's rounds, the
 * hunt's, --hash's child runs, exec's wait for a program, the wait for a
 * helper's reply) reads it and stops at the next rep boundary, keeping what
 * finished. The handler is installed with SA_RESETHAND: a second Ctrl-C
 * finds the default action and ends the process at once (the escape from a
 * rep that does not return). No SA_RESTART: a blocking wait (poll, read,
 * nanosleep) returns EINTR, so its loop sees the flag without waiting out
 * its timeout. */
#ifndef FUTEXLAB_INTERRUPT_H
#define FUTEXLAB_INTERRUPT_H

#include <signal.h>

/* Set by SIGINT/SIGTERM once fl_interrupt_catch ran: finished reps are
 * kept, the run stops. Code that forwards an interrupt by other means
 * (hashmode.c, its child's exit status) may set it too. */
extern volatile sig_atomic_t fl_interrupted;

/* Installs the handler for SIGINT and SIGTERM (again after a first
 * interrupt reset it: idempotent). */
void fl_interrupt_catch(void);

#endif
