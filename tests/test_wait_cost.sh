#!/usr/bin/env bash
# tests/test_wait_cost.sh — scripts/wait-cost (where a waiter's time goes):
#   test_wait_cost.sh SCRIPT TOP
# - a crafted run whose figures are known: two entries at one point, three
#   timed rows each and one probed row that must be left out; the p10, p50
#   and p90 of ns/op, the CPU per op, the kernel's share and the context
#   switches per 1000 ops, each to the printed digit; the entries sorted by
#   their median; a failed row and another workload left out (--workload);
#   --entries keeping the one named;
# - the kept runs of the handoff-cheap host (results/policy/fast-handoff):
#   libc++ at prodcons with no kernel time, every adaptive entry with some
#   (results/policy.md's reading);
# - an A/B run's sides kept apart (--side);
# - bad input: one line, exit 2.
set -u
. "$(dirname "$0")/lib.sh"
wc=$1 top=$2
scratch d wait-cost
H="variant,workload,threads,tokens,hold_ns,think_ns,wake,ops,elapsed_ns,ns_per_op,ops_per_s,status,note,hash,policy,round,slot,sems,cpu_user_ns,cpu_sys_ns,csw_vol,csw_invol,probed"
# r VARIANT NS USER SYS VOL INVOL [STATUS [PROBED [WORKLOAD]]]: a rep of 1000 ops
r() { echo "$1,${9:-prodcons},4,4,0,0,exact,1000,$(($2 * 1000)),$2,0,${7:-ok},,auto,park,1,1,1,$3,$4,$5,$6,${8:-0}"; }
{
  echo "# futexlab test"
  echo "$H"
  r fast 100 150000 50000 1 2
  r fast 200 300000 100000 2 4
  r fast 300 450000 150000 3 6
  r fast 9999 1 1 99 99 ok 1          # probed: left out
  r slow 400 800000 0 0 10
  r slow 500 1000000 0 0 20
  r slow 600 1200000 0 0 30
  r slow 1 1 1 1 1 error              # failed: left out
  r slow 7 7000 0 0 0 ok 0 pingpong   # another workload
} >"$d/run.csv"
out=$("$wc" --workload prodcons "$d/run.csv" 2>&1); rc=$?
echo "$out"
check "exit 0, one point (the other workload left out)" \
  eval '[ $rc -eq 0 ] && [ "$(grep -c "^[a-z]" <<<"$out")" -eq 1 ] && grep -q "^prodcons T=4 K=4 wake=exact$" <<<"$out"'
check "fast: 3 rounds (probed left out), ns/op 120/200/280, cpu/op 400, sys 0.250, 2.00 and 4.00 a kop" \
  eval 'grep -qE "^  fast +3 +120\.0 / +200\.0 / +280\.0 +400\.0 +0\.250 +2\.00 +4\.00$" <<<"$out"'
check "slow: 3 rounds (the error left out), ns/op 420/500/580, cpu/op 1000, sys 0.000, 20.00 invol a kop" \
  eval 'grep -qE "^  slow +3 +420\.0 / +500\.0 / +580\.0 +1000\.0 +0\.000 +0\.00 +20\.00$" <<<"$out"'
check "sorted by the median: fast before slow" \
  eval '[ "$(grep -n "^  fast" <<<"$out" | cut -d: -f1)" -lt "$(grep -n "^  slow" <<<"$out" | cut -d: -f1)" ]'
out=$("$wc" --entries slow "$d/run.csv" 2>&1)
check "--entries slow: slow alone, at both its workloads" \
  eval '! grep -q "^  fast" <<<"$out" && [ "$(grep -c "^  slow" <<<"$out")" -eq 2 ]'
# an A/B run's sides (--side): the same entry at 100 ns on base, 300 on head
{
  echo "# futexlab test"
  echo "$H,side"
  r fast 100 150000 50000 1 2 | sed 's/$/,base/'
  r fast 300 450000 150000 3 6 | sed 's/$/,head/'
} >"$d/ab.csv"
out=$("$wc" --side head "$d/ab.csv" 2>&1)
check "--side head: the head's row alone (ns/op 300)" \
  eval 'grep -qE "^  fast +1 +300\.0 / +300\.0 / +300\.0 " <<<"$out"'
out=$("$wc" --side base "$d/ab.csv" 2>&1)
check "--side base: the base's row alone (ns/op 100)" \
  eval 'grep -qE "^  fast +1 +100\.0 / +100\.0 / +100\.0 " <<<"$out"'
refused "--side on a run without sides: refused" "not an A/B run" "$wc" --side head "$d/run.csv"
refused "--side that is no side: refused" "--side wants base, head or control" "$wc" --side left "$d/ab.csv"
kept=("$top"/results/policy/fast-handoff/quick-{1,2,3}.csv)
out=$("$wc" --workload prodcons "${kept[@]}" 2>&1); rc=$?
sys_of() { awk -v e="$1" '$1 == e { print $(NF-2) }' <<<"$out"; }
check "kept runs: libc++ 14 spends nothing in the kernel at prodcons ($(sys_of cxx-llvm))" \
  eval '[ $rc -eq 0 ] && [ "$(sys_of cxx-llvm)" = 0.000 ]'
check "kept runs: every adaptive entry spends some ($(awk '$1 ~ /@adaptive$/ { printf "%s ", $(NF-2) }' <<<"$out"))" \
  eval '[ "$(awk '"'"'$1 ~ /@adaptive$/ && $(NF-2) + 0 > 0.01'"'"' <<<"$out" | wc -l)" -eq 6 ]'
refused "no file: refused" "usage: scripts/wait-cost" "$wc"
refused "a file that is not there: refused, named" "none.csv: No such file" "$wc" "$d/none.csv"
echo "not,a,run" >"$d/bad.csv"
refused "a CSV without the columns: refused" "not a futexlab run CSV" "$wc" "$d/bad.csv"
refused "an unknown option: refused" "unknown option --bogus" "$wc" --bogus "$d/run.csv"
refused "nothing selected: refused" "no ok timed row" "$wc" --workload barrier "$d/run.csv"
finish wait-cost
