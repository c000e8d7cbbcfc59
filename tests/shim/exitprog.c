/* tests/shim/exitprog.c — a process that leaves without exit():
 *   exitprog _exit       sem_init, then _exit(0)
 *   exitprog _Exit       sem_init, then _Exit(3)
 *   exitprog atexit      sem_init, then exit(0), whose atexit handler
 *                        calls _Exit(0) (the destructors never run)
 * Under the shim with FUTEXLAB_LOG, each must leave exactly one logline
 * (tests/shim/log.sh). */
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void leave_now(void)
{
	_Exit(0);
}

int main(int argc, char **argv)
{
	sem_t s;
	if (argc != 2 || sem_init(&s, 0, 1) != 0 || sem_wait(&s) != 0)
		return 1;
	if (!strcmp(argv[1], "_exit"))
		_exit(0);
	if (!strcmp(argv[1], "_Exit"))
		_Exit(3);
	if (!strcmp(argv[1], "atexit") && atexit(leave_now) == 0)
		exit(0);
	return 1;
}
