#!/usr/bin/env bash
# results/beyond-ns/run.sh — published results (fairness, latency, wake-to-run)
# futexlab reproduces, each from one futexlab run (CSV + table here), on this machine:
#   fairness.*   folly SmallLocksBenchmark's fairness result (a spinning lock
#                shows a higher per-thread CV and a longer max wait than a
#                futex lock): pool, 8 threads on 2 vCPUs, one token (a lock),
#                1 us of work inside and outside, spin 0 against spin 1000
#                (spin-then-park designs spinning up to 1000 times: closest
#                to a spinning lock) — fair_cv and lat_max_ns
#   baton.*      folly Baton's "sem_t ~ the required futex calls for the
#                blocking case": pingpong, ratios to floor-futex (one
#                FUTEX_WAKE per post, one FUTEX_WAIT per wait)
#   muslspin.*   musl 2ff714c6 (spinning raised the two-thread wait/post rate
#                20-150x): prodcons with one producer and one consumer, 64
#                slots, musl at --spin 0 and --spin 100; glibc (which does
#                not take futexlab's spin bound) is the paired yardstick
#   fairpool.*   the fairness columns' acceptance point: pool --threads 4 --tokens 1,
#                hold/think 0 and 2000 ns, every design
# usage: results/beyond-ns/run.sh            (~6 min; run on an idle machine)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fl=$top/build/harness/futexlab
d=$top/results/beyond-ns
run() { local name=$1; shift; echo "== $name: futexlab run $*" >&2
  "$fl" run "$@" --no-probes --quiet --csv "$d/$name.csv" >"$d/$name.txt"; }
run fairness --workload pool --threads 8 --tokens 1 --hold 1000 --think 1000 --spin 0,1000 --latency \
  --variant negcount,split,musl,glibc64,glibc,textbook,gosema --reps 20 --duration 0.1
run baton --workload pingpong --variant all --baseline floor-futex --reps 20 --duration 0.05
run muslspin --workload prodcons --threads 2 --tokens 64 --spin 0,100 --variant musl,negcount,glibc \
  --reps 20 --duration 0.05
run fairpool --workload pool --threads 4 --tokens 1 --reps 20 --duration 0.1 --variant all --latency
run fairpool-hold --workload pool --threads 4 --tokens 1 --hold 2000 --think 2000 --reps 20 --latency \
  --duration 0.1 --variant all
echo "results/beyond-ns: $(ls "$d"/*.txt | wc -l) tables" >&2
