/* hunt/elfsym.c — text specs to address ranges (elfsym.h).
 *
 * dso: walks the loaded objects (dl_iterate_phdr) and keeps their PT_LOAD
 * segments with PF_X. sym: and src: read this executable's own symbol table
 * from /proc/self/exe (section headers, SHT_SYMTAB and its string table; a
 * stripped executable has none: an error) and relocate each st_value by the
 * main program's load bias, which is dl_iterate_phdr's first object (glibc
 * and musl both report the executable first; 0 for a non-PIE). */
#include "hunt/elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct acc {
	struct fl_range *r;
	int n, max;
	int overflow;
};

static void add(struct acc *a, uintptr_t lo, uintptr_t hi)
{
	if (hi <= lo)
		return;
	if (a->n == a->max) {
		a->overflow = 1;
		return;
	}
	a->r[a->n++] = (struct fl_range){ lo, hi };
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Whether name starts with one of the comma-separated prefixes in list. */
static int match_prefix(const char *list, const char *name)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len && strncmp(name, p, len) == 0)
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* Whether name equals one of the comma-separated items in list. */
static int match_exact(const char *list, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == nl && strncmp(name, p, len) == 0)
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* ---- dso: ------------------------------------------------------------------ */

struct dso_arg {
	const char *names;
	struct acc *a;
	int first;
	uintptr_t main_bias;
};

static int dso_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct dso_arg *d = data;
	if (d->first) { /* the executable comes first */
		d->first = 0;
		d->main_bias = (uintptr_t)info->dlpi_addr;
	}
	if (!d->names || !info->dlpi_name || !info->dlpi_name[0])
		return 0;
	if (!match_prefix(d->names, base_name(info->dlpi_name)))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			add(d->a, (uintptr_t)info->dlpi_addr + ph->p_vaddr,
			    (uintptr_t)info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
	}
	return 0;
}

/* ---- sym: and src: ------------------------------------------------------- */

static int read_at(int fd, void *buf, size_t n, off_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, off + (off_t)done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/* Which functions of which ELF file a sym:, src:, dsym: or span: item
 * names: the file and where it is loaded, and the selection. */
struct sym_query {
	const char *path;     /* the ELF file */
	uintptr_t bias;       /* its load bias: added to each st_value */
	const char *prefixes; /* comma-separated name prefixes (sym:, dsym:, span:), or NULL */
	const char *files;    /* comma-separated source files (src:), or NULL */
	int span;             /* one range, lowest function to the end of the highest (span:) */
};

/* Adds the function symbols of q's file selected by its prefixes or source
 * files — or, with span, the one range from the lowest such function to
 * the end of the highest. The file's SHT_SYMTAB, else its SHT_DYNSYM (a
 * stripped shared library keeps its exported functions). 0, or -1 with
 * why. */
static int file_syms(const struct sym_query *q, struct acc *a, char *why, size_t whyn)
{
	int fd = open(q->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whyn, "%s: %s", q->path, strerror(errno));
		return -1;
	}
	int rc = -1;
	ElfW(Shdr) *sh = NULL;
	ElfW(Sym) *syms = NULL;
	char *str = NULL;
	ElfW(Ehdr) eh;
	if (read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0) {
		snprintf(why, whyn, "%s: not an ELF file of this class", q->path);
		goto out;
	}
	sh = calloc(eh.e_shnum, sizeof *sh);
	if (!sh || read_at(fd, sh, (size_t)eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff)) {
		snprintf(why, whyn, "%s: unreadable section headers", q->path);
		goto out;
	}
	int si = -1;
	for (int i = 0; i < eh.e_shnum && si < 0; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			si = i;
	for (int i = 0; i < eh.e_shnum && si < 0; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			si = i;
	if (si < 0 || sh[si].sh_link >= eh.e_shnum || sh[si].sh_entsize != sizeof(ElfW(Sym))) {
		snprintf(why, whyn, "%s has no symbol table (stripped?)", q->path);
		goto out;
	}
	const ElfW(Shdr) *ss = &sh[si], *st = &sh[ss->sh_link];
	size_t nsym = ss->sh_size / sizeof(ElfW(Sym));
	syms = malloc(ss->sh_size);
	str = malloc(st->sh_size + 1);
	if (!syms || !str || read_at(fd, syms, ss->sh_size, (off_t)ss->sh_offset) ||
	    read_at(fd, str, st->sh_size, (off_t)st->sh_offset)) {
		snprintf(why, whyn, "%s: unreadable symbol table", q->path);
		goto out;
	}
	str[st->sh_size] = '\0';
	int in_file = 0; /* the locals since the last STT_FILE are a listed file's */
	uintptr_t span_lo = UINTPTR_MAX, span_hi = 0;
	for (size_t i = 0; i < nsym; i++) {
		const ElfW(Sym) *s = &syms[i];
		if (s->st_name >= st->sh_size)
			continue;
		const char *name = str + s->st_name;
		int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
		if (type == STT_FILE) {
			in_file = q->files && match_exact(q->files, base_name(name));
			continue;
		}
		if (i >= ss->sh_info) /* the globals follow the locals: no file group */
			in_file = 0;
		if (type != STT_FUNC || s->st_size == 0 || s->st_shndx == SHN_UNDEF)
			continue;
		if (!(q->prefixes && match_prefix(q->prefixes, name)) &&
		    !(in_file && bind == STB_LOCAL))
			continue;
		uintptr_t lo = q->bias + (uintptr_t)s->st_value, hi = lo + (uintptr_t)s->st_size;
		if (!q->span) {
			add(a, lo, hi);
			continue;
		}
		span_lo = lo < span_lo ? lo : span_lo;
		span_hi = hi > span_hi ? hi : span_hi;
	}
	if (q->span && span_hi)
		add(a, span_lo, span_hi);
	rc = 0;
out:
	free(sh);
	free(syms);
	free(str);
	close(fd);
	return rc;
}

/* ---- the spec ---------------------------------------------------------------- */

static int cmp_range(const void *x, const void *y)
{
	const struct fl_range *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The loaded object whose basename starts with name: its path and bias. */
struct find_arg {
	const char *name;
	char path[512];
	uintptr_t bias;
	int found;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct find_arg *f = data;
	if (f->found || !info->dlpi_name || !info->dlpi_name[0])
		return 0;
	const char *b = base_name(info->dlpi_name);
	if (strncmp(b, f->name, strlen(f->name)))
		return 0;
	snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
	f->bias = (uintptr_t)info->dlpi_addr;
	f->found = 1;
	return 1;
}

int fl_text_spec_check(const char *spec, char *why, size_t whyn)
{
	char buf[512];
	if (!spec || !*spec || strlen(spec) >= sizeof buf) {
		snprintf(why, whyn, "a text spec is 1..%zu characters", sizeof buf - 1);
		return -1;
	}
	snprintf(buf, sizeof buf, "%s", spec);
	for (char *save = NULL, *it = strtok_r(buf, ";", &save); it;
	     it = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(it, ':');
		size_t kl = colon ? (size_t)(colon - it) : 0;
		const char *arg = colon ? colon + 1 : "";
		bool plain = kl == 3 && (!strncmp(it, "dso", 3) || !strncmp(it, "sym", 3) ||
					 !strncmp(it, "src", 3));
		bool in_obj = kl == 4 && (!strncmp(it, "dsym", 4) || !strncmp(it, "span", 4));
		const char *c2 = in_obj ? strchr(arg, ':') : NULL;
		if (!(plain && *arg && !strchr(arg, ':')) && !(c2 && c2 > arg && c2[1])) {
			snprintf(why, whyn, "text spec item '%s' is not dso:OBJ, sym:P, src:F.c, "
				 "dsym:OBJ:P or span:OBJ:P", it);
			return -1;
		}
	}
	return 0;
}

int fl_text_ranges(const char *spec, struct fl_range *out, int max, char *why, size_t whyn)
{
	char buf[512];
	if (!spec || !*spec) {
		snprintf(why, whyn, "no text spec");
		return -1;
	}
	if (strlen(spec) >= sizeof buf) {
		snprintf(why, whyn, "text spec longer than %zu characters", sizeof buf - 1);
		return -1;
	}
	struct acc a = { out, 0, max, 0 };
	/* the executable's bias (and nothing else: no names) */
	struct dso_arg d0 = { NULL, &a, 1, 0 };
	dl_iterate_phdr(dso_cb, &d0);
	snprintf(buf, sizeof buf, "%s", spec);
	for (char *save = NULL, *it = strtok_r(buf, ";", &save); it;
	     it = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(it, ':');
		size_t kl = colon ? (size_t)(colon - it) : 0;
		const char *arg = colon ? colon + 1 : "";
		int rc = 0;
		if (kl == 3 && !strncmp(it, "dso", 3) && *arg) {
			struct dso_arg d = { arg, &a, 0, 0 };
			int before = a.n;
			dl_iterate_phdr(dso_cb, &d);
			if (a.n == before) {
				snprintf(why, whyn, "text spec '%s': no loaded object named %s*", it, arg);
				return -1;
			}
		} else if (kl == 3 && (!strncmp(it, "sym", 3) || !strncmp(it, "src", 3)) && *arg) {
			int is_src = it[1] == 'r';
			struct sym_query q = { "/proc/self/exe", d0.main_bias, is_src ? NULL : arg,
					       is_src ? arg : NULL, 0 };
			rc = file_syms(&q, &a, why, whyn);
		} else if (kl == 4 && (!strncmp(it, "dsym", 4) || !strncmp(it, "span", 4)) &&
			   strchr(arg, ':') && strchr(arg, ':')[1]) {
			char obj[128];
			size_t ol = (size_t)(strchr(arg, ':') - arg);
			if (!ol || ol >= sizeof obj) {
				snprintf(why, whyn, "text spec item '%s': no object name", it);
				return -1;
			}
			memcpy(obj, arg, ol);
			obj[ol] = '\0';
			struct find_arg f = { .name = obj };
			dl_iterate_phdr(find_cb, &f);
			if (!f.found) {
				snprintf(why, whyn, "text spec '%s': no loaded object named %s*", it, obj);
				return -1;
			}
			struct sym_query q = { f.path, f.bias, arg + ol + 1, NULL, it[0] == 's' };
			rc = file_syms(&q, &a, why, whyn);
		} else {
			snprintf(why, whyn, "text spec item '%s' is not dso:OBJ, sym:P, src:F.c, "
				 "dsym:OBJ:P or span:OBJ:P", it);
			return -1;
		}
		if (rc)
			return -1;
	}
	if (a.overflow) {
		snprintf(why, whyn, "text spec '%s' matches more than %d ranges", spec, max);
		return -1;
	}
	qsort(out, (size_t)a.n, sizeof *out, cmp_range);
	int m = 0;
	for (int i = 0; i < a.n; i++) {
		if (m && out[i].lo <= out[m - 1].hi) {
			if (out[i].hi > out[m - 1].hi)
				out[m - 1].hi = out[i].hi;
		} else {
			out[m++] = out[i];
		}
	}
	return m;
}
