/* hunt/elfsym.h — where "the library's code" is in this process, as
 * address ranges, for the in-library-text preemption (preempt.h).
 *
 * A text spec (fl_variant.text, variants/variant.h) is items separated by
 * ';', each KIND:ARGS —
 *   dso:NAME[,NAME...]  the executable segments of every loaded shared object
 *                       whose file name (basename) starts with NAME
 *                       (dl_iterate_phdr), e.g. dso:libc.so.6
 *   sym:P[,P...]        this executable's function symbols whose name starts
 *                       with P (its ELF symbol table, read from /proc/self/exe:
 *                       SHT_SYMTAB, st_value/st_size), e.g. sym:sem_,__timedwait
 *   src:F[,F...]        this executable's local function symbols defined in
 *                       source file F (those that follow the STT_FILE symbol
 *                       F in the table: a file's static functions and their
 *                       compiler clones), e.g. src:negcount.c
 *   dsym:OBJ:P[,P...]   the function symbols named P* of the loaded object
 *                       OBJ* (its file's .symtab, else its .dynsym: a
 *                       stripped library keeps its exported functions)
 *   span:OBJ:P[,P...]   one range, from the lowest of those functions to the
 *                       end of the highest: also the static functions linked
 *                       between them, e.g. span:libc.so.6:sem_ (glibc's
 *                       sem_*.c objects lie together, their static slow
 *                       paths among the exported entry points)
 * Portable C over <elf.h> and <link.h>: it builds with musl-gcc -static too
 * (no libelf). Not async-signal-safe: resolve before arming timers. */
#ifndef FUTEXLAB_ELFSYM_H
#define FUTEXLAB_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct fl_range {
	uintptr_t lo, hi; /* [lo, hi) */
};

/* Resolves spec into at most max ranges, sorted by lo and merged where they
 * touch. Returns how many (0: the spec matched nothing), or -1 with a
 * one-line reason in why (a malformed spec, an unreadable executable). */
int fl_text_ranges(const char *spec, struct fl_range *out, int max, char *why, size_t whyn);

/* The grammar only (no lookup: a spec may name code of another process, a
 * helper-run design's helper): 0, or -1 with a one-line reason. */
int fl_text_spec_check(const char *spec, char *why, size_t whyn);

/* Whether pc is in one of the n sorted ranges (binary search; async-signal-
 * safe: reads the array only). */
static inline int fl_in_ranges(const struct fl_range *r, int n, uintptr_t pc)
{
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (pc < r[mid].lo)
			hi = mid - 1;
		else if (pc >= r[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

#endif
