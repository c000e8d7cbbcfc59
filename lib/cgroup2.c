/* lib/cgroup2.c — see cgroup2.h. */
#include "lib/cgroup2.h"

#include <stdio.h>
#include <string.h>

/* mountinfo escapes a space as \040 (and \, tab, newline likewise). */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int fl_cgroup2_mount(char *root, char *mnt, size_t n)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return -1;
	char line[4096];
	int found = -1;
	while (found && fgets(line, sizeof line, f)) {
		char *sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		char *save, *tok = strtok_r(line, " ", &save);
		for (int i = 0; tok && i < 3; i++) /* id, parent, major:minor */
			tok = strtok_r(NULL, " ", &save);
		char *r = tok, *m = strtok_r(NULL, " ", &save);
		if (!r || !m)
			continue;
		unescape(r);
		unescape(m);
		snprintf(root, n, "%s", r);
		snprintf(mnt, n, "%s", m);
		found = 0;
	}
	fclose(f);
	return found;
}

int fl_cgroup2_own(char *path, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return -1;
	char line[4096];
	int found = -1;
	while (found && fgets(line, sizeof line, f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, n, "%s", line + 3);
			found = 0;
		}
	fclose(f);
	return found;
}

int fl_cgroup2_own_dir(char *dir, size_t n, char *why, size_t wn)
{
	char root[4096], mnt[4096], own[4096];
	if (fl_cgroup2_mount(root, mnt, sizeof mnt)) {
		snprintf(why, wn, "no cgroup2 mounted");
		return -1;
	}
	if (fl_cgroup2_own(own, sizeof own)) {
		snprintf(why, wn, "no 0:: line in /proc/self/cgroup");
		return -1;
	}
	size_t rl = strcmp(root, "/") ? strlen(root) : 0;
	if (strncmp(own, root, rl)) {
		snprintf(why, wn, "own cgroup %.80s is outside the mount %.80s", own, mnt);
		return -1;
	}
	snprintf(dir, n, "%s%s", mnt, strcmp(own + rl, "/") ? own + rl : "");
	return 0;
}
