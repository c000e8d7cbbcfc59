/* harness/cmd_sweep.c — `futexlab sweep`: the cartesian product of the axes
 * (or a preset's groups of them), through the same runner as run. The
 * options and their help: runner/spec.c's table. */
#include "harness/bench.h"
#include "harness/commands.h"

int fl_cmd_sweep(int argc, char **argv)
{
	static const struct fl_spec_defaults d = {
		.threads = "1,2,4,8", .rounds = 10, .warmup = 1, .duration = 0.1,
		.synopsis = "usage: futexlab sweep [options]\n",
		.notes = "Axes multiply: every listed value of each axis with every other. With "
			 "--preset\nthe axes come from the preset; --variants, --rounds, --duration "
			 "etc. still apply.\n",
	};
	return fl_bench_main("sweep", &d, argc, argv);
}
