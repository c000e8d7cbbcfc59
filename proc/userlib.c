/* proc/userlib.c — see userlib.h. */
#include "proc/userlib.h"

#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct fl_userlib libs[FL_MAX_ADDED];
static struct fl_variant rows[FL_MAX_ADDED];
static char names[FL_MAX_ADDED][64], summaries[FL_MAX_ADDED][1200], libraries[FL_MAX_ADDED][1000];
#define PATH_LEN 900 /* a --lib PATH (its real path) longer is refused */
static int nlibs;

/* The bases a row may run: the libraries futexlab-native holds (its
 * registry, 'native' in variants/meson.build: the same three). */
static const char *const bases[] = { "glibc", "cxx-llvm", "cxx-gnu" };

/* This program's PT_INTERP (the first object dl_iterate_phdr reports is
 * the main program), whose base name is the loader's file name on this
 * architecture ("ld-linux-x86-64.so.2"). */
static int interp_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP)
			*(const char **)arg = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	return 1;
}

static const char *loader_name(void)
{
	const char *interp = NULL;
	dl_iterate_phdr(interp_cb, &interp);
	const char *slash = interp ? strrchr(interp, '/') : NULL;
	return slash ? slash + 1 : interp ? interp : "ld-linux-x86-64.so.2";
}

static int is_file(const char *dir, const char *sub, const char *file)
{
	char p[PATH_MAX * 2];
	snprintf(p, sizeof p, "%s%s%s/%s", dir, *sub ? "/" : "", sub, file);
	return access(p, R_OK) == 0;
}

/* The first of PATH, PATH/lib, PATH/lib64 holding file: its path into
 * out; -1 when none does. */
static int dir_with(const char *path, const char *file, char *out, size_t n)
{
	static const char *const subs[] = { "", "lib", "lib64" };
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (is_file(path, subs[i], file)) {
			snprintf(out, n, "%s%s%s", path, *subs[i] ? "/" : "", subs[i]);
			return 0;
		}
	return -1;
}

/* glibc: the loader and the library path of a build directory (elf/ld.so)
 * or an install (libc.so.6 beside the loader). */
static int glibc_paths(struct fl_userlib *u, const char *name, const char *path, char *err,
		       size_t n)
{
	char dir[PATH_MAX];
	if (dir_with(path, "libc.so.6", dir, sizeof dir)) {
		snprintf(err, n, "--lib %s: %s: no libc.so.6 there, nor in its lib/ or lib64/ (a "
			 "glibc build directory or install)", name, path);
		return -1;
	}
	if (is_file(path, "elf", "ld.so")) { /* a build directory: as glibc's testrun.sh */
		static const char *const subs[] = { "math", "elf", "dlfcn", "nss", "nis", "rt",
						    "resolv", "mathvec", "support", "crypt", "nptl" };
		snprintf(u->loader, sizeof u->loader, "%.900s/elf/ld.so", path);
		size_t l = (size_t)snprintf(u->libpath, sizeof u->libpath, "%s", path);
		for (size_t i = 0; i < sizeof subs / sizeof subs[0] && l < sizeof u->libpath; i++) {
			char d[PATH_MAX * 2];
			snprintf(d, sizeof d, "%s/%s", path, subs[i]);
			if (access(d, X_OK) == 0)
				l += (size_t)snprintf(u->libpath + l, sizeof u->libpath - l, ":%s", d);
		}
		return 0;
	}
	const char *ld = loader_name();
	if (!is_file(dir, "", ld)) {
		snprintf(err, n, "--lib %s: %s: libc.so.6 without its loader %s beside it (%s)", name,
			 path, ld, dir);
		return -1;
	}
	snprintf(u->loader, sizeof u->loader, "%.900s/%.100s", dir, ld);
	snprintf(u->libpath, sizeof u->libpath, "%s", dir);
	return 0;
}

int fl_userlib_add(const char *spec, char *err, size_t n)
{
	char buf[PATH_MAX + 128];
	if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf) {
		snprintf(err, n, "--lib: '%.60s...' is too long", spec);
		return -1;
	}
	char *eq = strchr(buf, '='), *plus = strchr(buf, '+');
	if (!eq || !plus || plus > eq || plus == buf || plus + 1 == eq || !eq[1]) {
		snprintf(err, n, "--lib: '%s' is not BASE+TAG=PATH (e.g. glibc+fix=$HOME/glibc/build)", spec);
		return -1;
	}
	*eq = '\0';
	*plus = '\0';
	const char *base = NULL;
	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
		if (!strcmp(buf, bases[i]))
			base = bases[i];
	if (!base) {
		snprintf(err, n, "--lib %s+%s: %s is not a library a build can stand in for (glibc, "
			 "cxx-llvm, cxx-gnu)", buf, plus + 1, buf);
		return -1;
	}
	*plus = '+';
	if (eq - buf >= (int)sizeof names[0] || strspn(plus + 1, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(plus + 1)) {
		snprintf(err, n, "--lib: row name '%s': a TAG of letters, digits, '.', '_', '-', "
			 "the whole under %zu characters", buf, sizeof names[0]);
		return -1;
	}
	if (nlibs == FL_MAX_ADDED) {
		snprintf(err, n, "--lib: more than %d rows", FL_MAX_ADDED);
		return -1;
	}
	char path[PATH_MAX];
	if (!realpath(eq + 1, path)) {
		snprintf(err, n, "--lib %s: %s: no such directory", buf, eq + 1);
		return -1;
	}
	if (strlen(path) > PATH_LEN) {
		snprintf(err, n, "--lib %s: its path is longer than %d characters", buf, PATH_LEN);
		return -1;
	}
	struct fl_userlib *u = &libs[nlibs];
	*u = (struct fl_userlib){ .base = base };
	if (!strcmp(base, "glibc")) {
		if (glibc_paths(u, buf, path, err, n))
			return -1;
	} else {
		const char *so = !strcmp(base, "cxx-llvm") ? "libc++.so.1" : "libstdc++.so.6";
		if (dir_with(path, so, u->libpath, sizeof u->libpath)) {
			snprintf(err, n, "--lib %s: %s: no %s there, nor in its lib/ or lib64/", buf,
				 path, so);
			return -1;
		}
	}
	const struct fl_variant *b = fl_variant_find(base);
	struct fl_variant *v = &rows[nlibs];
	*v = *b; /* its size, flags, policy, text: the base's; no ops here */
	snprintf(names[nlibs], sizeof names[0], "%.63s", buf);
	snprintf(summaries[nlibs], sizeof summaries[0], "%.250s, on the library at %.900s",
		 b->summary, path);
	snprintf(libraries[nlibs], sizeof libraries[0], "%.63s: %.900s", buf, path);
	v->name = names[nlibs];
	v->summary = summaries[nlibs];
	v->library = libraries[nlibs];
	v->helper = FL_USERLIB_HELPER;
	v->init = NULL, v->destroy = NULL, v->post = NULL, v->wait = NULL, v->trywait = NULL;
	v->timedwait = NULL, v->getvalue = NULL, v->words = NULL, v->any = NULL, v->pairs = NULL;
	if (fl_variant_add(v)) {
		snprintf(err, n, "--lib: the name %s is taken", buf);
		return -1;
	}
	u->v = v;
	nlibs++;
	return 0;
}

const struct fl_userlib *fl_userlib_of(const struct fl_variant *v)
{
	for (int i = 0; i < nlibs; i++)
		if (libs[i].v == v)
			return &libs[i];
	return NULL;
}
