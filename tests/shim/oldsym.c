/* tests/shim/oldsym.c — a program bound to the symbol versions of glibc
 * before 2.34 (sem_*@GLIBC_2.2.5, what a binary built on Debian 10 or 11
 * references), as an old binary would be: the shim must interpose those too
 * (its definitions are unversioned, which the dynamic linker accepts for a
 * reference of any version). run.sh checks with objdump that the references
 * really are the old versions, then that the semaphore was on the design. */
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

__asm__(".symver sem_init,sem_init@GLIBC_2.2.5");
__asm__(".symver sem_destroy,sem_destroy@GLIBC_2.2.5");
__asm__(".symver sem_post,sem_post@GLIBC_2.2.5");
__asm__(".symver sem_wait,sem_wait@GLIBC_2.2.5");
__asm__(".symver sem_trywait,sem_trywait@GLIBC_2.2.5");
__asm__(".symver sem_timedwait,sem_timedwait@GLIBC_2.2.5");
__asm__(".symver sem_getvalue,sem_getvalue@GLIBC_2.2.5");

#define REQUIRE(c)                                                             \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "oldsym: FAIL %s (errno %d)\n", #c, errno); \
			return 1;                                              \
		}                                                              \
	} while (0)

int main(void)
{
	sem_t s;
	int v = -1;
	REQUIRE(sem_init(&s, 0, 0) == 0);
	REQUIRE(sem_trywait(&s) == -1 && errno == EAGAIN);
	REQUIRE(sem_post(&s) == 0 && sem_post(&s) == 0);
	REQUIRE(sem_getvalue(&s, &v) == 0 && v == 2);
	REQUIRE(sem_wait(&s) == 0 && sem_trywait(&s) == 0);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += 2000000;
	if (dl.tv_nsec >= 1000000000)
		dl.tv_sec++, dl.tv_nsec -= 1000000000;
	REQUIRE(sem_timedwait(&s, &dl) == -1 && errno == ETIMEDOUT);
	REQUIRE(sem_destroy(&s) == 0);
	puts("oldsym: all passed");
	return 0;
}
