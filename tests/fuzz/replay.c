/* tests/fuzz/replay.c — a fuzz target's main outside build-fuzz/: runs
 * LLVMFuzzerTestOneInput once on each file named, and on every file of each
 * directory named (the seed corpus, regression inputs included), so the
 * gcc and sanitizer builds run them too. Exit 1 if nothing was replayed: a
 * missing corpus is a failure, not a pass. A finding aborts, as under
 * libFuzzer. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			uint8_t *more = realloc(buf, cap *= 2);
			if (!more)
				free(buf);
			buf = more;
		}
	}
	fclose(f);
	if (!buf) {
		fputs("replay: out of memory\n", stderr);
		exit(1);
	}
	/* exactly n bytes, as libFuzzer passes them: ASan sees reads past them */
	uint8_t *in = malloc(n ? n : 1);
	if (!in) {
		fputs("replay: out of memory\n", stderr);
		exit(1);
	}
	memcpy(in, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		exit(1);
	}
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char **more = realloc(names, (n + 1) * sizeof *names);
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		if (!more || !(more[n] = malloc(len))) {
			fputs("replay: out of memory\n", stderr);
			exit(1);
		}
		names = more;
		snprintf(names[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name); /* the same order every run */
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			count += replay_file(names[i]);
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	int count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			count += replay_dir(argv[i]);
		else
			count += replay_file(argv[i]);
	}
	printf("replay %s: %d inputs\n", argv[0], count);
	return count > 0 ? 0 : 1;
}
