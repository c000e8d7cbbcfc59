/* tests/fuzz/fuzz_spec.c — the options of `futexlab run` and `sweep` on
 * arbitrary input (runner/spec.c, cli.c, hashmode.c's list check).
 *
 * The input is an argv, one argument a line: the first line is the command
 * (`run` or `sweep`, with that command's defaults; anything else is not
 * tried), the rest its options, e.g. "sweep\n--threads\n1,2,4\n". It is
 * parsed by fl_spec_parse and expanded by fl_points_build, which parses the
 * lists: variants (NAME@POLICY items too), waiting policies (--policy, its
 * old form --spin), workloads, threads, tokens, sems, wake modes, --hash.
 * A usage error is trapped (fuzz.h) instead of exiting. The oracle: no
 * crash, leak or undefined behaviour, and every point built holds values
 * inside the ranges the options promise, its entries a policy only where
 * one applies, none twice. Nothing runs. */
#include <getopt.h>
#include <string.h>

#define FUZZ_USAGE_TRAP
#include "tests/fuzz/fuzz.h"
#include "runner/spec.h"
#include "lib/wake.h"

#define MAXARGS 256

/* The defaults of cmd_run.c and cmd_sweep.c; no synopsis: --help prints
 * nothing (it would go to stdout, libFuzzer's reports go to stderr). */
static const struct fl_spec_defaults run_d = {
	.threads = "4", .rounds = 10, .warmup = 1, .duration = 0.1,
};
static const struct fl_spec_defaults sweep_d = {
	.threads = "1,2,4,8", .rounds = 10, .warmup = 1, .duration = 0.1,
};

/* glibc's getopt keeps a pointer into the previous argv between calls:
 * optind = 0 makes it start over (futexlab parses one argv per process). */
static void getopt_reset(void)
{
	static char a0[] = "x";
	char *av[] = { a0, NULL };
	optind = 0;
	opterr = 0;
	FUZZ_ASSERT(getopt(1, av, "") == -1, "getopt reset");
}

static void check_points(const struct fl_spec *s, const struct fl_point *pts, int n)
{
	FUZZ_ASSERT(n >= 0, "%d points", n);
	for (int i = 0; i < n; i++) {
		const struct fl_point *p = &pts[i];
		FUZZ_ASSERT(p->w != NULL, "point %d: no workload", i);
		FUZZ_ASSERT(p->p.threads >= 1 && p->p.threads <= 1024, "threads %d",
			    p->p.threads);
		FUZZ_ASSERT(p->p.tokens >= 1 && p->p.tokens <= 1000000, "tokens %d",
			    p->p.tokens);
		FUZZ_ASSERT(p->p.sems >= 1 && p->p.sems <= FL_SEM_SLOTS &&
			    (p->w->uses_sems || p->p.sems == 1), "%s: sems %d", p->w->name,
			    p->p.sems);
		FUZZ_ASSERT(p->wake >= 0 && p->wake <= 2, "wake %d", p->wake);
		FUZZ_ASSERT(p->ne >= 0 && p->ne <= FL_MAXENTRY, "%d entries", p->ne);
		for (int j = 0; j < p->ne; j++) {
			const struct fl_entry *e = &p->e[j];
			FUZZ_ASSERT(e->v != NULL && memchr(e->label, '\0', sizeof e->label),
				    "entry %d", j);
			/* a policy only where one applies, its bound in range */
			FUZZ_ASSERT(e->policy.kind == FL_POLICY_PARK || fl_policy_applies(e->v),
				    "%s: a policy for what waits its own way", e->label);
			FUZZ_ASSERT((e->policy.kind != FL_POLICY_SPIN &&
				     e->policy.kind != FL_POLICY_SPIN_YIELD) ||
				    (e->policy.bound >= 1 && e->policy.bound <= FL_POLICY_BOUND_MAX),
				    "%s: bound %d", e->label, e->policy.bound);
			for (int k = 0; k < j; k++)
				FUZZ_ASSERT(strcmp(p->e[k].label, e->label), "entry %s twice",
					    e->label);
		}
	}
	FUZZ_ASSERT(s->rounds >= 1 && s->warmup >= 0, "rounds %d warmup %d", s->rounds, s->warmup);
	FUZZ_ASSERT(s->base.ops > 0 || s->base.duration_ns > 0, "duration %lld ns",
		    (long long)s->base.duration_ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	char **argv = calloc(MAXARGS + 1, sizeof *argv);
	FUZZ_ASSERT(buf && argv, "out of memory");
	if (size)
		memcpy(buf, data, size);
	buf[size] = '\0';
	int argc = 0;
	for (char *p = buf; argc < MAXARGS;) {
		argv[argc++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	const struct fl_spec_defaults *d = !strcmp(argv[0], "run")     ? &run_d
					 : !strcmp(argv[0], "sweep") ? &sweep_d
								     : NULL;
	if (d) {
		static struct fl_spec s; /* 1.5 KB, and a longjmp target's */
		getopt_reset();
		fl_bad_input_trap = fuzz_trap;
		if (setjmp(fuzz_jmp) == 0) {
			if (fl_spec_parse(&s, argv[0], d, argc, argv) == 0) {
				struct fl_point *pts = NULL;
				int n = fl_points_build(&s, &pts);
				check_points(&s, pts, n);
				free(pts);
			}
		} else {
			FUZZ_ASSERT(fuzz_usage_line[0] != '\0', "empty usage error");
		}
		fl_bad_input_trap = NULL;
	}
	free(argv);
	free(buf);
	return 0;
}
