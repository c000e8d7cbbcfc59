#!/usr/bin/env bash
# tests/test_perf_mutants.sh — the performance mutants' short version
# (scripts/perf-mutants, variants/README.md "Performance mutants"): two
# mutants at their one declared point, uncontended, in one quick-settings
# sweep against negcount (a few seconds), must be flagged `slower` with the
# why line naming each one's declared count first — perf_wake_always (a
# FUTEX_WAKE on every post: `wakes`, ~1 us on a ~30 ns op) and
# perf_delay_800 (800 ns spinning per post: `cpu ns`, ~25x). Their costs
# are 25-100x the op, the control's noise there +-35-65% on a loaded quick
# sweep: never a near call. The negative control: split standing in for
# both (no wake, no spin) must come out 0 of 2, exit 1. Bad input: one
# line, exit 2. The delay check is printed, not judged (--no-delay-check:
# wall time under other work is not N). Needs the probes (root): else exit
# 77, skipped. Usage: test_perf_mutants.sh path/to/futexlab path/to/scripts/perf-mutants
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 pm=$2
scratch d perf-mutants
[ "$(id -u)" = 0 ] || skip_test perf-mutants "the why line's kernel counts need the probes (root)"
start=$(date +%s)
export FUTEXLAB=$fl
run_pm() { out=$("$pm" "$@" --out "$d" 2>&1); rc=$?; echo "$out" | sed 's/^/  | /'; }

run_pm --declared-only --mutants perf_wake_always,perf_delay_800 --no-delay-check
check "one sweep, at the declared point: uncontended" \
  test "$(grep -c '^sweep: .* --workload uncontended --threads 1 --wake exact ' <<<"$out")" = 1
check "perf_wake_always: flagged slower at uncontended, the why line naming wakes first" \
  grep -qE '^  flagged  uncontended T=1 wake=exact: slower [0-9.]+ .*, why names wakes first$' <<<"$out"
check "perf_delay_800: flagged slower at uncontended, the why line naming cpu ns first" \
  bash -c 'grep -A1 "^perf_delay_800 " <<<"$1" | grep -qE "^  flagged  uncontended T=1 wake=exact: slower .*, why names cpu ns first$"' _ "$out"
check "the delay check is printed (not judged)" grep -qE '^delay check: perf_delay_800 - negcount at uncontended' <<<"$out"
check "last line: performance mutants: 2 of 2 flagged at every declared point; exit 0" \
  test "$(tail -1 <<<"$out")|$rc" = "performance mutants: 2 of 2 flagged at every declared point|0"

run_pm --declared-only --mutants perf_wake_always,perf_delay_800 --no-delay-check --stand-in split
check "negative control: split in their place: 0 of 2 flagged, exit 1" \
  test "$(tail -1 <<<"$out")|$rc" = "performance mutants: 0 of 2 flagged at every declared point|1"
check "negative control: both missed at uncontended" \
  test "$(grep -c '^  MISSED   uncontended T=1 wake=exact: ' <<<"$out")" = 2

for bad in "--mutants perf_nope" "--mutants perf_delay_50" "--preset full" "--bogus" "--mutants"; do
  # shellcheck disable=SC2086
  err=$("$pm" $bad --out "$d" 2>&1 >/dev/null); rc=$?
  check "bad input '$bad': one line, exit 2" test "$rc|$(wc -l <<<"$err")" = "2|1"
done
finish "perf mutants" "($(( $(date +%s) - start )) s)"
