/* harness/cmd_run.c — `futexlab run`: one point per axis by default, every
 * variant and workload, through the same runner as sweep (runner.h). */
#include "harness/commands.h"
#include "harness/runner.h"

static const char run_usage[] =
"usage: futexlab run [options]   (the same runner and options as sweep)\n"
"  --variant LIST     variants, comma separated, or 'all' (default all)\n"
"  --workload LIST    workloads, comma separated, or 'all' (default all)\n"
"  --threads T        threads, 1..1024 (default 4; ignored by fixed-thread workloads)\n"
"  --tokens K         initial tokens / buffer capacity, 1..1000000 (default 1)\n"
"  --sems N           pool/oversub: spread the threads over N semaphores of K\n"
"                     tokens each (thread i on i % N), 1..64 (default 1)\n"
"  --hold NS          pool: busy work while holding a token, ns (default 0)\n"
"  --think NS         pool: busy work between tokens, ns (default 0)\n"
"  --duration S       seconds per rep (default 0.1)\n"
"  --ops N            operations per rep instead of a duration\n"
"  --reps R           measured rounds per point, 1..1000 (default 10): each round\n"
"                     runs every variant once, in a fresh random order\n"
"  --warmup N         unmeasured rounds first (default 1)\n"
"  --seed N           the order of the rounds (default: from the clock; in the CSV)\n"
"  --baseline NAME    the variant ratios are taken against (default glibc)\n"
"  --no-control       do not run the baseline twice (BASELINE#2, the A/A row)\n"
"  --wake MODE        exact|one|all: how a release wakes (default exact)\n"
"  --hash LIST        auto|global|private:N futex hash, comma list: each mode\n"
"                     in a process of its own (default auto; kernel 6.16+)\n"
"  --spin N           spin up to N times before parking, 0..1000000 (default 0)\n"
"  --csv FILE         write one row per rep to FILE (atomically)\n"
"  --no-floors        omit the floor-atomic and floor-futex reference rows\n"
"  --pin CPULIST      run every thread on these CPUs, e.g. 0 or 0,1\n"
"  --quiet            nothing on stderr but errors (no progress, no load warning)\n"
"  --probes           count futex calls in the kernel per rep (eBPF; default when\n"
"                     root and BPF works), as extra CSV columns\n"
"  --no-probes        do not load the eBPF collector\n"
"  --bpftrace SCRIPT  run a bpftrace script (probes/*.bt) on this process during\n"
"                     the whole run; its output goes beside the CSV\n"
"  --latency          time every blocking op (latency percentiles, starvation)\n"
"                     in every workload that can; default: where it costs <= 5%\n"
"  --no-latency       time nothing (fairness counts stay)\n"
"  --stranded-ms N    a waiter asleep while its semaphore has had a token for N ms\n"
"                     is a lost wakeup: an error row (default 50; 0: off)\n"
"  --perf             perf counters per rep as CSV columns (empty: unsupported)\n"
"  --dry-run          list the points and skips; run nothing\n";

int fl_cmd_run(int argc, char **argv)
{
	static const struct fl_spec_defaults d = {
		.threads = "4", .reps = 10, .warmup = 1, .duration = 0.1, .usage = run_usage,
	};
	return fl_bench_main("run", &d, argc, argv);
}
