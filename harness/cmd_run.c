/* harness/cmd_run.c — `futexlab run`: one point per axis by default, every
 * variant and workload, through the same runner as sweep (bench.h). The
 * options and their help: runner/spec.c's table. */
#include "harness/bench.h"
#include "harness/commands.h"

int fl_cmd_run(int argc, char **argv)
{
	static const struct fl_spec_defaults d = {
		.threads = "4", .rounds = 10, .warmup = 1, .duration = 0.1,
		.synopsis = "usage: futexlab run [options]   (the same runner and options as "
			    "sweep)\n",
	};
	return fl_bench_main("run", &d, argc, argv);
}
