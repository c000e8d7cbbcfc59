/* proc/userlib.h — a library the user built as a row: `--lib BASE+TAG=PATH`.
 *
 * A maintainer compares a patched glibc, libc++ or libstdc++ against the
 * shipped one in one table: the row BASE+TAG is the shipped library row
 * BASE (glibc, cxx-llvm, cxx-gnu) run in a helper process of its own,
 * `futexlab-native` (the helper of proc/helper.h built against this
 * machine's glibc, holding those three rows), started on the library at
 * PATH:
 *
 *   glibc     PATH is a glibc build directory (elf/ld.so, libc.so.6 at its
 *             top) or an install's lib directory or prefix (libc.so.6 and
 *             the dynamic loader, ld-linux-x86-64.so.2 on x86-64): the helper
 *             runs under that loader, `LOADER --library-path DIRS helper`,
 *             DIRS as glibc's own testrun.sh names them (the build's top,
 *             elf, nptl, math, dlfcn, rt, ... where they exist). A libc
 *             cannot be swapped under another's loader.
 *   cxx-llvm  PATH holds libc++.so.1 (an LLVM build's lib/, an install's
 *             lib/): the helper runs with LD_LIBRARY_PATH=DIR, ahead of the
 *             system's and its own runpath.
 *   cxx-gnu   PATH holds libstdc++.so.6: the same.
 *
 * What the row measures is what the library's shared object holds: glibc's
 * sem_* all; libc++'s atomic wait and notify (its futex sleeps, the proxy
 * table), not the poll and release of <semaphore>, compiled into the
 * helper from 14's headers; libstdc++ 12's semaphore is header code and
 * takes only steady_clock::now from the .so (variants/cxx.md). The helper's
 * hello lists the shared objects it mapped (the `# helper` line): the
 * proof of which file ran.
 *
 * The row is the base's descriptor under the new name, .helper set,
 * registered at run time (variants/variant.h: fl_variant_add): `all` of
 * --variant includes it, a list names it; the CSV's `# libraries:` line
 * says BASE+TAG and PATH. */
#ifndef FUTEXLAB_USERLIB_H
#define FUTEXLAB_USERLIB_H

#include <stddef.h>

#include "variants/variant.h"

/* The helper the rows run in (beside futexlab, as every helper). */
#define FL_USERLIB_HELPER "futexlab-native"

struct fl_userlib {
	const struct fl_variant *v; /* the row */
	const char *base;           /* the registry row it runs: glibc, cxx-llvm, cxx-gnu */
	char loader[1024];          /* "": the system's (LD_LIBRARY_PATH) */
	char libpath[4096];         /* the directories, ':' between */
};

/* One --lib value, BASE+TAG=PATH: the row made and registered. 0; or -1
 * with one line in err (an unknown or unsupported BASE, a PATH without the
 * library, a name taken, too many rows). */
int fl_userlib_add(const char *spec, char *err, size_t n);

/* v's user-built library, or NULL when v is no such row. */
const struct fl_userlib *fl_userlib_of(const struct fl_variant *v);

#endif
