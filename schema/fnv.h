/* schema/fnv.h — FNV-1a, 64 bits: the one hash of the records, defined
 * once for writer and readers. Three things are made of it:
 *   - the rows' checksum a run CSV's end line carries ("# end: N rows,
 *     fnv1a64 HEX": every row's line with its newline, in order), written
 *     by record/csv.c and checked by model/table.c and the store;
 *   - a machine's fingerprint (model/run.c: its metadata lines' keys and
 *     values);
 *   - a stored file's hash (store/add.c: its bytes).
 * Stable across builds and machines, which the store's keys need; not a
 * defence against anyone. */
#ifndef FUTEXLAB_FNV_H
#define FUTEXLAB_FNV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FL_FNV_BASIS 0xcbf29ce484222325ULL

/* n bytes at p, continued from h (start: FL_FNV_BASIS). */
static inline uint64_t fl_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static inline uint64_t fl_fnv1a_str(uint64_t h, const char *s)
{
	return fl_fnv1a(h, s, strlen(s));
}

/* One row into the rows' checksum: its line, then its newline. */
static inline uint64_t fl_fnv1a_line(uint64_t h, const char *line)
{
	return fl_fnv1a(fl_fnv1a_str(h, line), "\n", 1);
}

#endif
