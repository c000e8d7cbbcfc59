#!/usr/bin/env bash
# tests/mutants/run.sh — the mutation run.
#   run.sh EDGE TORTURE CONFORMANCE NAME...
# Runs the suites (each linked against the mutant registry) on every NAME, in
# order, stopping at the first that fails: that suite kills the mutant. A
# suite that hangs past its bound also kills it (it would hang CI). Names
# starting with ctl_ are controls, unmutated copies: they must pass every
# suite, or the kills prove nothing. Two names run at a time (most kills
# are a liveness bound expiring: waiting, not computing). Prints
# "mutants: K killed of N" and exits 1 if a mutant survives or a control
# fails.
set -u
export edge=$1 torture=$2 conformance=$3; shift 3
export bound=${MUTANT_BOUND:-60}   # seconds per suite run
out=$(mktemp -d)
export out

one() { # NAME -> $out/NAME: "kind|seconds|by"
  local name=$1 start by="" rc why log ms
  start=$(date +%s%N)
  for suite in edge torture conformance; do
    log=$(mktemp)
    timeout -s KILL "$bound" "${!suite}" "$name" >"$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
      if [ $rc -eq 137 ]; then why="hung past ${bound}s"; else why="exit $rc"; fi
      by="$suite ($why): $(grep -m1 -E 'FAIL' "$log" | sed 's/^ *//' | cut -c1-150)"
      [ "${name#ctl_}" != "$name" ] && tail -20 "$log" >"$out/$name.log"
      rm -f "$log"
      break
    fi
    rm -f "$log"
  done
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "$((ms / 1000)).$((ms % 1000 / 100))|$by" >"$out/$name"
}
export -f one
printf '%s\n' "$@" | xargs -P "${MUTANT_JOBS:-2}" -I{} bash -c 'one "$1"' _ {}

killed=0 total=0 bad=0
for name in "$@"; do
  IFS='|' read -r secs by <"$out/$name"
  if [ "${name#ctl_}" != "$name" ]; then
    if [ -n "$by" ]; then
      echo "CONTROL FAILED  $name  by $by"
      cat "$out/$name.log" 2>/dev/null
      bad=$((bad + 1))
    else
      printf 'control ok      %-22s passes every suite (%s s)\n' "$name" "$secs"
    fi
    continue
  fi
  total=$((total + 1))
  if [ -n "$by" ]; then
    killed=$((killed + 1))
    printf 'killed          %-22s %s s  by %s\n' "$name" "$secs" "$by"
  else
    printf 'SURVIVED        %-22s %s s  (a test is missing)\n' "$name" "$secs"
  fi
done
rm -rf "$out"
echo "mutants: $killed killed of $total"
[ "$killed" -eq "$total" ] && [ "$bad" -eq 0 ]
