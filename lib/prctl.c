/* lib/prctl.c — see prctl.h. */
#include "lib/prctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

int fl_futex_hash_set_slots(unsigned long slots)
{
	return prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0UL, 0UL) == 0 ? 0 : errno;
}

long fl_futex_hash_get_slots(void)
{
	int r = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0UL, 0UL, 0UL);
	return r >= 0 ? r : -errno;
}

const char *fl_hash_parse(const char *s, struct fl_hash_mode *m)
{
	if (!strcmp(s, "auto")) {
		*m = (struct fl_hash_mode){ FL_HASH_AUTO, 0 };
		return NULL;
	}
	if (!strcmp(s, "global")) {
		*m = (struct fl_hash_mode){ FL_HASH_GLOBAL, 0 };
		return NULL;
	}
	if (strncmp(s, "private:", 8))
		return "expected auto, global or private:N";
	const char *d = s + 8;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(d, &end, 10);
	if (*d < '0' || *d > '9' || *end || errno == ERANGE)
		return "private:N needs a whole number N";
	if (n < 2 || n > FL_HASH_SLOTS_MAX || (n & (n - 1)))
		return "private:N needs N a power of two in [2, 1073741824]";
	*m = (struct fl_hash_mode){ FL_HASH_PRIVATE, (unsigned long)n };
	return NULL;
}

void fl_hash_name(const struct fl_hash_mode *m, char *buf, size_t n)
{
	switch (m->kind) {
	case FL_HASH_GLOBAL: snprintf(buf, n, "global"); break;
	case FL_HASH_PRIVATE: snprintf(buf, n, "private:%lu", m->slots); break;
	default: snprintf(buf, n, "auto"); break;
	}
}

int fl_hash_apply(const struct fl_hash_mode *m, char *why, size_t n)
{
	if (m->kind == FL_HASH_AUTO)
		return 0;
	char name[64];
	fl_hash_name(m, name, sizeof name);
	long have = fl_futex_hash_get_slots();
	if (have < 0) {
		snprintf(why, n, "hash %s: the kernel has no PR_FUTEX_HASH (needs Linux 6.16+): %s",
			 name, strerror((int)-have));
		return (int)-have;
	}
	int e = fl_futex_hash_set_slots(m->kind == FL_HASH_GLOBAL ? 0 : m->slots);
	if (e) {
		snprintf(why, n, "hash %s: prctl(PR_FUTEX_HASH_SET_SLOTS) refused it: %s%s", name,
			 strerror(e), e == EBUSY ? " (this process already chose the global hash)" : "");
		return e;
	}
	return 0;
}

void fl_hash_read_back(const struct fl_hash_mode *m, char *buf, size_t n)
{
	long slots = fl_futex_hash_get_slots();
	if (m->kind == FL_HASH_AUTO) {
		if (slots < 0)
			snprintf(buf, n, "auto");
		else
			snprintf(buf, n, "auto:%ld", slots);
	} else if (slots == 0) {
		snprintf(buf, n, "global");
	} else if (slots > 0) {
		snprintf(buf, n, "private:%ld", slots);
	} else {
		fl_hash_name(m, buf, n); /* not applied: what was asked */
	}
}
