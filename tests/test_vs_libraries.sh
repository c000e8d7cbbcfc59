#!/usr/bin/env bash
# tests/test_vs_libraries.sh — scripts/vs-libraries, the policy's benchmark
# against the shipped libraries (results/policy.md), run small:
#   test_vs_libraries.sh FUTEXLAB SCRIPT
# - two quick sweeps of 2 rounds of 2 ms: exit 0; both CSVs and the table
#   kept in --dir; every shipped library `futexlab list` says is available
#   and the quick preset's six adaptive forms in each run;
# - the table: a line per point the runs hold (at most: compare --pool
#   leaves out a point it cannot judge), each naming an available library
#   and a verdict; the count line "pooled over 2 runs", its points the
#   table's; what it prints is table.txt from the table's header on;
# - bad input: one line, exit 2.
# Never a figure: a benchmark reports (the goal is judged by reading it).
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 vs=$2
scratch d vs-libraries

out=$("$vs" --futexlab "$fl" --runs 2 --dir "$d/runs" -- --rounds 2 --warmup 0 --duration 0.002 2>"$d/err"); rc=$?
echo "$out"
check "exit 0" [ "$rc" -eq 0 ]
check "both runs and the table kept in --dir" \
  eval '[ -s "$d/runs/run-1.csv" ] && [ -s "$d/runs/run-2.csv" ] && [ -s "$d/runs/table.txt" ]'
libs=$("$fl" list | awk '$2 == "available" { v = $1; next } v && /policy: its own/ { print v } { v = "" }')
check "futexlab list names some library" [ -n "$libs" ]
for f in run-1 run-2; do
  have=$(csv_cols "$d/runs/$f.csv" status=ok variant | sort -u)
  miss=
  for e in $libs negcount@adaptive split@adaptive musl@adaptive glibc64@adaptive textbook@adaptive gosema@adaptive; do
    grep -qx -- "$e" <<<"$have" || miss="$miss $e"
  done
  if [ -z "$miss" ]; then ok "$f: every available library and the six adaptive forms ran"
  else bad "$f: no rows of$miss"; fi
done
points=$(csv_cols "$d/runs/run-1.csv" status=ok workload threads tokens wake | sort -u | wc -l)
rows=$(grep -c ' hash=' <<<"$out")
# (a point compare --pool cannot judge, with no library or no futexlab
# entry to pair in every run, is left out of the table and of the count
# alike: report/pool_libs.c; seen in the ASan build's 2 ms reps)
check "a table line per point of the runs, at most ($rows of $points)" \
  eval '[ "$rows" -ge 1 ] && [ "$rows" -le "$points" ]'
libre=$(tr '\n' '|' <<<"$libs"); libre=${libre%|}
badrows=$(grep ' hash=' <<<"$out" | grep -Ev "hash=[a-z:0-9]+ +($libre) .*(faster|ahead|behind)$" || true)
if [ -z "$badrows" ]; then ok "every line names an available library and a verdict"
else bad "lines without a library or a verdict: $badrows"; fi
check "the count line: pooled over 2 runs, out of the table's $rows points" \
  grep -qE "^vs the libraries, pooled over 2 runs: .* at [0-9]+ of $rows points" <<<"$out"
check "what it prints is table.txt from its header on" \
  eval '[ "$out" = "$(sed -n "/^  point  *library/,\$p" "$d/runs/table.txt")" ]'
check "stderr names each sweep" eval '[ "$(grep -c "^vs-libraries: sweep [12] of 2" "$d/err")" -eq 2 ]'

for args in "--runs 1" "--runs x" "--runs" "--dir" "--bogus" "-- --csv x.csv" "-- --preset full"; do
  # shellcheck disable=SC2086 # the arguments split on purpose
  if refusal "" "$vs" --futexlab "$fl" $args; then ok "refused: $args"
  else bad "$args: exit $rc, stdout '$out', stderr '$err'"; fi
done
if refusal "no futexlab binary" "$vs" --futexlab "$d/none"; then ok "refused: a missing binary"
else bad "a missing binary: exit $rc, stderr '$err'"; fi
finish vs-libraries
