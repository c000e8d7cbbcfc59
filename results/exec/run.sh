#!/usr/bin/env bash
# results/exec/run.sh — every program of examples/ on every design the shim
# runs, with `futexlab exec`: a survey first (does it block on semaphores at
# all?), then the interleaved rounds, into results/exec/NAME.{csv,txt}.
# Run on an idle machine, as root (the collector): ~REPS x 12 designs x 0.5 s
# per program; pgbench ~REPS x 10 designs x 6 s. Usage:
#   results/exec/run.sh [REPS [NAME...]]   (default 10 rounds, every program;
#   NAME: queue pool barrier semaphore svtav1 pgbench mp)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-10}
shift || true
only=" $* "
fl=build/harness/futexlab
out=results/exec
py=/usr/bin/python3
run() { # name [exec options...] -- cmd...
  local name=$1 opts=(); shift
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
  while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift
  echo "== $name: $*"
  { echo "\$ futexlab exec --survey -- $*"; "$fl" exec --survey -- "$@"; echo
    echo "\$ futexlab exec --rounds $reps ${opts[*]} --csv $out/$name.csv -- $*"
    "$fl" exec --rounds "$reps" "${opts[@]}" --quiet --csv "$out/$name.csv" -- "$@"; } \
    > "$out/$name.txt" 2>&1 || echo "  (exit $?: see $out/$name.txt)"
  grep -E "^  [a-z0-9#-]+ .*(faster|slower|~|\?)$|INTERRUPTED|error" "$out/$name.txt" | head -20 || true
}
run queue -- "$py" examples/queue_bench.py
run pool -- "$py" examples/pool_bench.py
run barrier -- "$py" examples/barrier_bench.py
run semaphore -- "$py" examples/semaphore_bench.py
run svtav1 -- examples/svtav1.sh
# the programs' own figures: a server and its client, processes on named semaphores
run pgbench --allow destroy,signal --metric 'tps = ([0-9.]+) \(without' --higher-is-better -- examples/pgbench.sh 3
run mp --metric 'items/s: ([0-9.]+)' --higher-is-better -- "$py" examples/mp_bench.py
