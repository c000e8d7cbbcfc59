/* proc/interrupt.c — see interrupt.h. */
#include "proc/interrupt.h"

volatile sig_atomic_t fl_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	fl_interrupted = 1;
}

void fl_interrupt_catch(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
