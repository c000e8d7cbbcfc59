/* tests/fuzz/fuzz_hash.c — `--hash auto|global|private:N[,...]` on
 * arbitrary bytes (runner/spec.c fl_hash_list over lib/prctl.c
 * fl_hash_parse).
 *
 * The input is the option's value, cut as fl_spec_parse cuts it (its first
 * 1023 bytes, up to a NUL). A refused list is a trapped usage error
 * (fuzz.h). An accepted one must hold what the runner relies on: 1 to
 * FL_MAXLIST items, each a mode that fl_hash_parse takes, whose name
 * (fl_hash_name, the CSV's `hash` column) parses back to the same mode,
 * private:N with N a power of two in [2, 2^30], and no mode twice (each item
 * is one child process, one set of rows). Nothing is applied. */
#include <string.h>

#define FUZZ_USAGE_TRAP
#include "tests/fuzz/fuzz.h"
#include "lib/prctl.h"
#include "runner/spec.h"

static bool same(const struct fl_hash_mode *a, const struct fl_hash_mode *b)
{
	return a->kind == b->kind && a->slots == b->slots;
}

static void check(char **items, int n)
{
	FUZZ_ASSERT(n >= 1 && n <= FL_MAXLIST, "%d items", n);
	struct fl_hash_mode m[FL_MAXLIST];
	for (int i = 0; i < n; i++) {
		FUZZ_ASSERT(items[i][0] != '\0', "item %d empty", i);
		const char *why = fl_hash_parse(items[i], &m[i]);
		FUZZ_ASSERT(!why, "item '%s' accepted by the list, refused alone: %s", items[i], why);
		if (m[i].kind == FL_HASH_PRIVATE)
			FUZZ_ASSERT(m[i].slots >= 2 && m[i].slots <= (1ul << 30) &&
					    !(m[i].slots & (m[i].slots - 1)),
				    "'%s': %lu slots", items[i], m[i].slots);
		else
			FUZZ_ASSERT(m[i].slots == 0, "'%s': %lu slots", items[i], m[i].slots);
		char name[64];
		struct fl_hash_mode back;
		fl_hash_name(&m[i], name, sizeof name);
		FUZZ_ASSERT(!fl_hash_parse(name, &back) && same(&back, &m[i]),
			    "'%s' is named '%s', which parses to another mode", items[i], name);
		for (int j = 0; j < i; j++)
			FUZZ_ASSERT(!same(&m[i], &m[j]), "'%s' and '%s' are one mode, accepted twice",
				    items[j], items[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char list[1024]; /* fl_spec's hlist */
	size_t n = size < sizeof list - 1 ? size : sizeof list - 1;
	if (n)
		memcpy(list, data, n);
	list[n] = '\0';
	char *items[FL_MAXLIST];
	fl_bad_input_trap = fuzz_trap;
	if (setjmp(fuzz_jmp) == 0)
		check(items, fl_hash_list(list, items, FL_MAXLIST));
	else
		FUZZ_ASSERT(strncmp(fuzz_usage_line, "--hash: ", 8) == 0, "usage error '%s'",
			    fuzz_usage_line);
	fl_bad_input_trap = NULL;
	return 0;
}
