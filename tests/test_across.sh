#!/usr/bin/env bash
# tests/test_across.sh — one report across machines (report/across.h):
# `futexlab report --by machine|kernel|libc` on committed real quick sweeps
# of two machines — results/pool/{1,2}.csv (a 2-vCPU AMD EPYC VM) and
# results/gate/quiet/n-{1..5}.csv (a 2-vCPU Intel Xeon VM, host vm) — and a
# third "machine" made from the Xeon's sixth run with another host line and
# negcount (park) made 10x slower in every round: a known disagreement of
# one entry. Checks: the groups (pooled or one run), ratios only (no time
# across machines), the fastest per point on each, the disagreements — the
# third machine's are negcount's and only negcount's —, the libraries line
# per machine, --by kernel and --by libc, the page (a table per point, the
# disagreeing cells marked), the store as the source, bad input. ~5 s.
# Usage: test_across.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
top=$(cd "$(dirname "$0")/.." && pwd)
scratch d across
amd=("$top"/results/pool/{1,2}.csv)
xeon=("$top"/results/gate/quiet/n-{1,2,3,4,5}.csv)

# the third machine: n-6 on host "slowneg", negcount (park) 10x slower
sed 's/^# host: .*/# host: slowneg/' "$top/results/gate/quiet/n-6.csv" |
  awk -F, -v OFS=, "$COLS"'!/^#/ && $col("variant") == "negcount" && $col("policy") == "park" &&
    $col("status") == "ok" { $col("ns_per_op") = $col("ns_per_op") * 10 } { print }' >"$d/slow.csv"

out=$("$fl" report --by machine "${amd[@]}" "${xeon[@]}" -o "$d/two.html" 2>&1); rc=$?
check "two machines: exit 0" test "$rc" = 0
check "  two groups, each pooled over its runs" \
  test "$(grep -cE '^  [AB]  .*: ([25]) runs pooled;' <<<"$out")" = 2
check "  every figure a ratio to its own glibc, never a time across machines" \
  grep -q 'paired ratio to its own glibc in the same run' <<<"$out"
check "  the fastest per point on each machine (10 points x 2)" \
  test "$(grep -cE '^       [AB]  [a-z]' <<<"$out")" = 20
check "  the libraries line per machine" \
  test "$(grep -cE '^  [AB]  vs the libraries, pooled over [25] runs: a futexlab entry at or below' <<<"$out")" = 2
check "  the runs' revisions said (a change of the code is not a rerun)" \
  grep -q '^note: the runs come from' <<<"$out"
check "  the page: a table per point" test "$(grep -c '<table class="across">' "$d/two.html")" = 10
ndis=$(sed -n 's/^\([0-9]*\) (point, entry) pairs\{0,1\} of machines disagrees\{0,1\}$/\1/p' <<<"$out")
check "  the page marks each disagreement's two cells ($ndis)" \
  test "$(grep -o 'class="v[0-9] apart"' "$d/two.html" | wc -l)" = "$((2 * ${ndis:-0}))"

out=$("$fl" report --by machine "${xeon[@]}" "$d/slow.csv" -o "$d/slow.html" 2>&1); rc=$?
check "a third machine with negcount 10x slower: exit 0" test "$rc" = 0
check "  it is one run, said so" grep -qE '^  B  slowneg \[[0-9a-f]{8}\]: 1 run;' <<<"$out"
dis=$(sed -n '/^where the machines disagree/,/^[0-9]* (point, entry)/p' <<<"$out" | grep '^  ')
check "  negcount disagrees at 5 or more of the 10 points" \
  test "$(grep -c ' negcount  ' <<<"$dis")" -ge 5
check "  and nothing else does (the other entries are the same run's)" \
  test "$(grep -vc ' negcount  ' <<<"$dis")" = 0
[ "$(grep -vc ' negcount  ' <<<"$dis")" = 0 ] || echo "$dis"

out=$("$fl" report --by kernel "${amd[@]}" "${xeon[@]}" -o "$d/k.html" 2>&1)
check "--by kernel: the two kernels" test "$(grep -cE '^  [AB]  Linux 6\.18\.44-fc-v1(272|300) ' <<<"$out")" = 2
out=$("$fl" report --by libc "${xeon[@]}" -o "$d/l.html" 2>&1)
check "--by libc with one libc: said, nothing set side by side" \
  grep -q '^every run has one libc: nothing to set side by side' <<<"$out"

"$fl" store add --db "$d/db" "${amd[@]}" "${xeon[@]}" >/dev/null
out=$("$fl" report --db "$d/db" --by machine 2>&1); rc=$?
check "--db: the store's runs, the page beside it" \
  test "$rc" = 0 -a -s "$d/db-by-machine.html" -a "$(grep -c 'runs pooled;' <<<"$out")" = 2

refused "bad --by: exit 2, one line" "--by takes machine, kernel or libc" \
  "$fl" report --by host "${xeon[@]}"
refused "--by with --pool: exit 2, one line" "--pool goes without it" \
  "$fl" report --by machine --pool "${xeon[@]}"
refused "--by with a run twice: exit 2, one line" "are the same run" \
  "$fl" report --by machine "${xeon[0]}" "${xeon[0]}"
finish across
