#!/usr/bin/env bash
# tests/mutants/run.sh — the mutation run.
#   run.sh EDGE TORTURE CONFORMANCE NAME...
# Runs the suites (each linked against the mutant registry) on every NAME, in
# order, stopping at the first that fails: that suite kills the mutant. A
# suite that hangs past its bound also kills it (it would hang CI). Names
# starting with ctl_ are controls, unmutated copies: they must pass every
# suite, or the kills prove nothing. Prints "mutants: K killed of N" and
# exits 1 if a mutant survives or a control fails.
set -u
edge=$1 torture=$2 conformance=$3; shift 3
bound=${MUTANT_BOUND:-60}   # seconds per suite run
killed=0 total=0 bad=0
for name in "$@"; do
  start=$(date +%s.%N)
  by=""
  for suite in edge torture conformance; do
    exe=${!suite}
    log=$(mktemp)
    timeout -s KILL "$bound" "$exe" "$name" >"$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
      if [ $rc -eq 137 ]; then why="hung past ${bound}s"; else why="exit $rc"; fi
      by="$suite ($why): $(grep -m1 -E 'FAIL' "$log" | sed 's/^ *//' | cut -c1-150)"
      [ "${name#ctl_}" != "$name" ] && { echo "--- $name: $suite output"; tail -20 "$log"; }
      rm -f "$log"
      break
    fi
    rm -f "$log"
  done
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  if [ "${name#ctl_}" != "$name" ]; then
    if [ -n "$by" ]; then
      echo "CONTROL FAILED  $name  by $by"
      bad=$((bad + 1))
    else
      printf 'control ok      %-22s passes every suite (%.1f s)\n' "$name" "$secs"
    fi
    continue
  fi
  total=$((total + 1))
  if [ -n "$by" ]; then
    killed=$((killed + 1))
    printf 'killed          %-22s %.1f s  by %s\n' "$name" "$secs" "$by"
  else
    printf 'SURVIVED        %-22s %.1f s  (a test is missing)\n' "$name" "$secs"
  fi
done
echo "mutants: $killed killed of $total"
[ "$killed" -eq "$total" ] && [ "$bad" -eq 0 ]
