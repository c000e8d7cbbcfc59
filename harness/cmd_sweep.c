/* harness/cmd_sweep.c — `futexlab sweep`: the cartesian product of the axes
 * (or a preset's groups of them), through the same runner as run. */
#include "harness/commands.h"
#include "harness/runner.h"

static const char sweep_usage[] =
"usage: futexlab sweep [options]\n"
"  --preset NAME      quick (the README's default, < 60 s on 2 cores) or full\n"
"  --variants LIST    variants, comma separated, or 'all' (default all)\n"
"  --workloads LIST   workloads, or 'all' (default all)\n"
"  --threads LIST     thread counts (default 1,2,4,8; ignored by fixed-thread workloads)\n"
"  --tokens LIST      initial tokens / buffer capacity (default 1)\n"
"  --sems LIST        independent semaphores the pool/oversub threads spread over,\n"
"                     1..64, e.g. 1,2,4,8 (default 1; other workloads: 1)\n"
"  --wake LIST        wake modes exact,one,all (default exact)\n"
"  --spin LIST        spin-then-park bounds, e.g. 0,100 (default 0)\n"
"  --hash LIST        futex hash modes auto|global|private:N; more than one:\n"
"                     the sweep runs once per mode, each in its own process\n"
"  --hold NS, --think NS   pool/oversub busy work (default 0)\n"
"  --reps R           measured rounds per point (default 10): a round runs every\n"
"                     variant of the point once, in a fresh random order\n"
"  --warmup N         unmeasured rounds before them (default 1)\n"
"  --seed N           the order of the rounds (default: from the clock; in the CSV)\n"
"  --duration S       seconds per rep (default 0.1), or --ops N per rep\n"
"  --budget S         cap per point and variant: rep duration becomes S/(warmup+reps)\n"
"  --pin CPULIST      run every thread on these CPUs (sched_setaffinity), e.g. 0 or 0,1\n"
"  --csv FILE         one row per rep (atomic rewrite; Ctrl-C keeps finished rows)\n"
"  --baseline NAME    variant of the ratio table (default glibc)\n"
"  --no-control       do not run the baseline twice per round (BASELINE#2: the A/A row)\n"
"  --no-floors        omit the floor rows on uncontended/pingpong\n"
"  --latency          time every blocking op (latency percentiles, starvation)\n"
"                     in every workload that can; default: where it costs <= 5%\n"
"  --no-latency       time nothing (fairness counts stay)\n"
"  --stranded-ms N    a waiter asleep while its semaphore has had a token for N ms\n"
"                     is a lost wakeup: an error row (default 50; 0: off)\n"
"  --perf             perf counters per rep as CSV columns\n"
"  --probes / --no-probes  eBPF futex counts per rep as CSV columns (default:\n"
"                     on when root and BPF works; see futexlab run --help)\n"
"  --bpftrace SCRIPT  a bpftrace script on this process for the whole sweep\n"
"  --quiet            nothing on stderr but errors (no progress, no load warning)\n"
"  --dry-run          list the points (and skips) with the time estimate; run nothing\n"
"Axes multiply: every listed value of each axis with every other. With --preset\n"
"the axes come from the preset; --variants, --reps, --duration etc. still apply.\n";

int fl_cmd_sweep(int argc, char **argv)
{
	static const struct fl_spec_defaults d = {
		.threads = "1,2,4,8", .reps = 10, .warmup = 1, .duration = 0.1,
		.usage = sweep_usage,
	};
	return fl_bench_main("sweep", &d, argc, argv);
}
