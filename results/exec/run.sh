#!/usr/bin/env bash
# results/exec/run.sh — every program of examples/ on every design the shim
# runs, with `futexlab exec`: a survey first (does it block on semaphores at
# all?), then the interleaved rounds, into results/exec/NAME.{csv,txt}.
# Run on an idle machine, as root (the collector): ~REPS x 12 designs x 0.5 s
# per program. Usage: results/exec/run.sh [REPS]   (default 10)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
reps=${1:-10}
fl=build/harness/futexlab
out=results/exec
py=/usr/bin/python3
run() { # name cmd...
  local name=$1; shift
  echo "== $name: $*"
  { echo "\$ futexlab exec --survey -- $*"; "$fl" exec --survey -- "$@"; echo
    echo "\$ futexlab exec --reps $reps --csv $out/$name.csv -- $*"
    "$fl" exec --reps "$reps" --quiet --csv "$out/$name.csv" -- "$@"; } \
    > "$out/$name.txt" 2>&1 || echo "  (exit $?: see $out/$name.txt)"
  grep -E "^  [a-z0-9#-]+ .*(faster|slower|~|\?)$|INTERRUPTED|error" "$out/$name.txt" | head -20 || true
}
run queue "$py" examples/queue_bench.py
run pool "$py" examples/pool_bench.py
run barrier "$py" examples/barrier_bench.py
run semaphore "$py" examples/semaphore_bench.py
run svtav1 examples/svtav1.sh
