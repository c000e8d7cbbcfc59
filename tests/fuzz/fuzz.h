/* tests/fuzz/fuzz.h — what every fuzz target shares (tests/lint-and-fuzz.md, "Fuzzing").
 *
 * A target defines LLVMFuzzerTestOneInput. In build-fuzz/ (clang,
 * -Dfuzz=true) it links libFuzzer; in the other builds replay.c's main runs
 * it on files (the seed corpus), so the regression inputs run everywhere.
 *
 * The harness ends a bad input with fl_usage_error (one line, exit 2); a
 * fuzzer must go on to the next input instead, so fuzz_catch() installs
 * cli.h's trap, which longjmps back here. Only code that frees what it
 * allocated before calling fl_usage_error can run under it without a leak
 * report, which is what the harness's parsers do. */
#ifndef FUTEXLAB_FUZZ_H
#define FUTEXLAB_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the input broke: say which, and crash (libFuzzer keeps the input). */
#define FUZZ_ASSERT(cond, ...)                                                 \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			abort();                                               \
		}                                                              \
	} while (0)

#ifdef FUZZ_USAGE_TRAP
#include <string.h>

#include "runner/cli.h"

/* The harness's usage errors: with the trap on, fl_usage_error copies its
 * line here and longjmps to the setjmp(fuzz_jmp) of the current input. */
static jmp_buf fuzz_jmp;
static char fuzz_usage_line[1024];

__attribute__((noreturn)) static void fuzz_trap(const char *line)
{
	snprintf(fuzz_usage_line, sizeof fuzz_usage_line, "%s", line);
	longjmp(fuzz_jmp, 1);
}
#endif

#endif
