/* tests/test_prctl.c — the futex hash modes (lib/prctl.h): parsing, and on
 * a kernel with PR_FUTEX_HASH (6.16+) that a private hash of N buckets
 * reads back N, that the global hash reads back 0 and cannot be left, and
 * that the pre-release "immutable" flag is refused. Setting a mode cannot
 * be undone in a process, so every kernel check runs in a child of its own.
 * On an older kernel the kernel checks are skipped with the reason. */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tests/check.h"
#include "lib/prctl.h"

static void t_parse(void *arg)
{
	(void)arg;
	struct fl_hash_mode m;
	char buf[64];
	CHECK(!fl_hash_parse("auto", &m) && m.kind == FL_HASH_AUTO, "auto");
	CHECK(!fl_hash_parse("global", &m) && m.kind == FL_HASH_GLOBAL, "global");
	CHECK(!fl_hash_parse("private:16", &m) && m.kind == FL_HASH_PRIVATE && m.slots == 16,
	      "private:16");
	fl_hash_name(&m, buf, sizeof buf);
	CHECK(!strcmp(buf, "private:16"), "name %s", buf);
	CHECK(!fl_hash_parse("private:2", &m) && m.slots == 2, "private:2 (the smallest)");
	CHECK(!fl_hash_parse("private:1073741824", &m), "private:2^30");
	const char *bad[] = { "", "Auto", "private", "private:", "private:0", "private:1",
			      "private:3", "private:24", "private:-16", "private:16x",
			      "private: 16", "private:2147483648", "private:99999999999999999999",
			      "global:4", "immutable" };
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(fl_hash_parse(bad[i], &m) != NULL, "'%s' must be refused", bad[i]);
}

/* Runs fn in a child; the child's exit status is the number of failures. */
static int in_child(int (*fn)(void))
{
	fflush(NULL);
	pid_t p = fork();
	if (p == 0)
		_exit(fn());
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

#define CHILD_CHECK(cond, ...)                                                   \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "  FAIL (child) %s:%d %s: ", __FILE__,   \
				__LINE__, #cond);                                \
			fprintf(stderr, __VA_ARGS__);                            \
			fputc('\n', stderr);                                     \
			bad++;                                                   \
		}                                                                \
	} while (0)

static int child_private(void)
{
	int bad = 0;
	unsigned long sizes[] = { 16, 2, 256, 16 };
	for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char spec[32], why[200], back[64];
		struct fl_hash_mode m;
		snprintf(spec, sizeof spec, "private:%lu", sizes[i]);
		fl_hash_parse(spec, &m);
		int e = fl_hash_apply(&m, why, sizeof why);
		CHILD_CHECK(e == 0, "%s: %s", spec, why);
		CHILD_CHECK(fl_futex_hash_get_slots() == (long)sizes[i], "%s reads back %ld", spec,
			    fl_futex_hash_get_slots());
		fl_hash_read_back(&m, back, sizeof back);
		CHILD_CHECK(!strcmp(back, spec), "read back '%s' for %s", back, spec);
	}
	/* the pre-release immutable flag (fourth argument 1) is refused */
	CHILD_CHECK(prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, 16UL, 1UL, 0UL) == -1 &&
		    errno == EINVAL, "immutable flag accepted?");
	CHILD_CHECK(fl_futex_hash_set_slots(3) == EINVAL, "3 slots refused");
	CHILD_CHECK(fl_futex_hash_set_slots(1) == EINVAL, "1 slot refused");
	return bad;
}

static int child_global(void)
{
	int bad = 0;
	struct fl_hash_mode g, p;
	char why[200], back[64];
	fl_hash_parse("global", &g);
	fl_hash_parse("private:16", &p);
	CHILD_CHECK(fl_hash_apply(&g, why, sizeof why) == 0, "global: %s", why);
	CHILD_CHECK(fl_futex_hash_get_slots() == 0, "global reads back 0");
	fl_hash_read_back(&g, back, sizeof back);
	CHILD_CHECK(!strcmp(back, "global"), "read back '%s'", back);
	/* no way back from the global hash in this process */
	CHILD_CHECK(fl_hash_apply(&p, why, sizeof why) == EBUSY, "private after global: %s", why);
	CHILD_CHECK(strstr(why, "global") != NULL, "the reason says why: %s", why);
	return bad;
}

static int child_auto(void)
{
	int bad = 0;
	struct fl_hash_mode a;
	char why[200], back[64];
	fl_hash_parse("auto", &a);
	CHILD_CHECK(fl_hash_apply(&a, why, sizeof why) == 0, "auto applies nothing");
	fl_hash_read_back(&a, back, sizeof back);
	CHILD_CHECK(!strncmp(back, "auto:", 5), "auto reads back '%s'", back);
	return bad;
}

static void t_kernel(void *arg)
{
	(void)arg;
	long s = fl_futex_hash_get_slots();
	if (s < 0) {
		/* parse ran and passed: a skip of this part, not of the binary */
		SKIP_TEST("PR_FUTEX_HASH unsupported (needs Linux 6.16+): %s", strerror((int)-s));
		return;
	}
	CHECK(in_child(child_private) == 0, "private:N reads back N");
	CHECK(in_child(child_global) == 0, "global reads back 0, and sticks");
	CHECK(in_child(child_auto) == 0, "auto");
}

int main(void)
{
	run_test("parse", t_parse, NULL, 10);
	run_test("kernel", t_kernel, NULL, 20);
	return tests_done("prctl");
}
