#!/usr/bin/env bash
# tests/test_failon.sh — `futexlab compare A.csv B.csv --fail-on
# slower|faster|any`, the CI gate (harness/verdicts.md, "Across runs"), on
# a real run and copies of it changed by a known factor: tests/data/
# noisy-control.csv (pingpong T=2 and pool T=2, 14 rounds; its intervals
# are wide, negcount's at pingpong [0.291, 2.217]). slow.csv: negcount's
# ns_per_op x10 in every ok row; fast.csv: x0.1. Both runs' rounds are
# otherwise the same rows, so what changes beyond the noise is known
# exactly: negcount at pingpong (x10 moves its interval clear of the
# before one; at pool T=2 its interval is wider than x10: ~) and nothing
# else. Deterministic: no run, no timing. Bad input: one line on stderr,
# nothing on stdout, exit 2.
# Usage: test_failon.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
csv=$(dirname "$0")/data/noisy-control.csv
scratch d failon
# scaled OUT K: the run with negcount's ns_per_op times K
scaled() {
  awk -F, -v OFS=, -v k="$2" "$COLS"'/^#/ || /^variant,/ { print; next }
    $col("variant") == "negcount" && $col("status") == "ok" { $col("ns_per_op") = $col("ns_per_op") * k }
    { print }' "$csv" >"$1"
}
scaled "$d/slow.csv" 10
scaled "$d/fast.csv" 0.1
# the pingpong point alone, and the pool point alone: no pair in common
awk -F, "$COLS"'/^#/ || /^variant,/ || $col("workload") == "pingpong"' "$csv" >"$d/pp.csv"
awk -F, "$COLS"'/^#/ || /^variant,/ || $col("workload") == "pool"' "$csv" >"$d/pool.csv"
: >"$d/empty.csv"
printf 'a,b,c\n1,2,3\n' >"$d/other.csv"
grep -m1 -B100 '^variant,' "$csv" >"$d/norows.csv"   # metadata and header, no row
check "fixtures: slow.csv differs from the run in negcount's rows only" \
  test "$(diff "$csv" "$d/slow.csv" | grep -c '^>')" = "$(grep -c '^negcount,.*,ok,' "$csv")"

gate() { # expected exit, expected text on stdout (a grep -E), compare's arguments...
  local rc_want=$1 want=$2; shift 2
  out=$("$fl" compare "$@" 2>"$d/err"); rc=$?
  test "$rc" = "$rc_want" && grep -qE -- "$want" <<<"$out" && test ! -s "$d/err"
}
pp='pingpong T=2 wake=exact hash=auto'
check "slower: exit 1, the pair named with both intervals" \
  gate 1 "^fail-on slower: $pp negcount 0\.805 \[0\.291, 2\.217\] -> 8\.054 \[2\.909, 22\.174\] slower \(\+900\.0%\)$" \
  "$csv" "$d/slow.csv" --fail-on slower
check "  and the count line" grep -qx 'fail-on slower: 1 of 42 pairs slower beyond the noise and by >= 10% (0 where only the baseline moved): FAIL (exit 1)' <<<"$out"
check "  one failing line only (pool T=2's x10 is inside its noise)" \
  test "$(grep -c '^fail-on slower: [a-z]* T=' <<<"$out")" = 1
check "  the table as without the gate, the gate's lines after it" \
  test "$(head -n -4 <<<"$out")" = "$("$fl" compare "$csv" "$d/slow.csv")"
check "  and the note that two single runs cannot know the between-run spread" \
  grep -q '^note: two single runs' <<<"$out"
check "the same file twice (A/A): exit 0" \
  gate 0 '^fail-on slower: 0 of 42 pairs slower beyond the noise and by >= 10% \(0 where only the baseline moved\): pass$' "$csv" "$csv" --fail-on slower
check "--fail-on any, the same file twice: exit 0" gate 0 ': pass$' "$csv" "$csv" --fail-on any
check "--fail-on faster where only a slowdown happened: exit 0" \
  gate 0 '^fail-on faster: 0 of 42 pairs faster beyond the noise and by >= 10% .*: pass$' "$csv" "$d/slow.csv" --fail-on faster
check "--fail-on any on the slowdown: exit 1" \
  gate 1 '^fail-on any: 1 of 42 pairs slower or faster beyond the noise and by >= 10% .*: FAIL' "$csv" "$d/slow.csv" --fail-on any
check "--fail-on faster on the speedup: exit 1, the pair named" \
  gate 1 "^fail-on faster: $pp negcount 0\.805 .* -> 0\.081 .* faster \(-90\.0%\)$" "$csv" "$d/fast.csv" --fail-on faster
check "--fail-on slower on the speedup: exit 0" gate 0 ': pass$' "$csv" "$d/fast.csv" --fail-on slower
check "--absolute --fail-on slower: exit 1, ns per op named" \
  gate 1 "^fail-on slower: $pp negcount 13677\.8 \[[0-9.]+, [0-9.]+\] -> 136777\.5 .* slower" \
  --absolute "$csv" "$d/slow.csv" --fail-on slower
check "--absolute --fail-on any, A/A: exit 0 (the baseline's pairs too: 44)" \
  gate 0 '^fail-on any: 0 of 44 pairs' --absolute "$csv" "$csv" --fail-on any
check "without --fail-on the slowdown still exits 0" gate 0 'SLOWER|~' "$csv" "$d/slow.csv"
check "  and prints no fail-on line" eval '! grep -q fail-on <<<"$out"'
# The threshold: x10 is +900%, under a threshold of 1000% it does not fail.
check "--threshold 1000: the x10 does not fail" \
  gate 0 '^fail-on slower: 0 of 42 pairs slower beyond the noise and by >= 1000%' \
  "$csv" "$d/slow.csv" --fail-on slower --threshold 1000
check "--threshold 500: it does" gate 1 'FAIL' "$csv" "$d/slow.csv" --fail-on slower --threshold 500
# --only: the entries that may fail.
check "--only libraries: negcount may not fail it" \
  gate 0 'slower beyond the noise and by >= 10%, of libraries .*: pass$' "$csv" "$d/slow.csv" --fail-on slower --only libraries
check "--only designs: negcount fails it" gate 1 'FAIL' "$csv" "$d/slow.csv" --fail-on slower --only designs
check "--only negcount: it fails it" gate 1 'FAIL' "$csv" "$d/slow.csv" --fail-on slower --only split,negcount
check "--only split: it does not" gate 0 'pass$' "$csv" "$d/slow.csv" --fail-on slower --only split
# The baseline moving: glibc (and its control) 3x slower at pingpong in the
# after run, every entry's own time the same. Every ratio there falls 3x;
# no entry's time moved: nothing fails, and the pairs are named as the
# baseline's move, not the entries'.
awk -F, -v OFS=, "$COLS"'/^#/ || /^variant,/ { print; next }
  ($col("variant") == "glibc" || $col("variant") == "glibc#2") && $col("workload") == "pingpong" &&
    $col("status") == "ok" { $col("ns_per_op") = $col("ns_per_op") * 3 }
  { print }' "$csv" >"$d/base.csv"
check "the baseline 3x slower: --fail-on faster exits 0" \
  gate 0 '\(([1-9][0-9]*) where only the baseline moved\): pass$' "$csv" "$d/base.csv" --fail-on faster
check "  the pairs named as the baseline's move" \
  grep -q "^fail-on faster: not counted: $pp [a-z@]* ratio .* the baseline moved$" <<<"$out"

# bad input: one line on stderr naming it, nothing on stdout, exit 2
refused "--fail-on slow" "--fail-on takes slower, faster or any, not 'slow'" "$fl" compare "$csv" "$d/slow.csv" --fail-on slow
refused "--fail-on without a value" "--fail-on needs a value" "$fl" compare "$csv" "$d/slow.csv" --fail-on
refused "--fail-on with one file" "--fail-on compares two files" "$fl" compare "$csv" --fail-on slower
refused "--threshold without --fail-on" "--threshold goes with --fail-on" "$fl" compare "$csv" "$d/slow.csv" --threshold 5
refused "--only without --fail-on" "--only goes with --fail-on" "$fl" compare "$csv" "$d/slow.csv" --only designs
refused "--only empty" "--only takes designs, libraries or a list of names" "$fl" compare "$csv" "$d/slow.csv" --fail-on slower --only ''
refused "--threshold not a number" "--threshold" "$fl" compare "$csv" "$d/slow.csv" --fail-on slower --threshold x
refused "--pool the same run twice" "are the same run" "$fl" compare --pool "$csv" "$csv" --against "$d/slow.csv" --fail-on any
refused "--pool --fail-on with no run to judge" "give --against NEW.csv" "$fl" compare --pool "$csv" "$d/slow.csv" --fail-on any
refused "an empty file" "no header line (not a futexlab CSV) in $d/empty.csv" "$fl" compare \
  "$csv" "$d/empty.csv" --fail-on slower
refused "a CSV that is not futexlab's" "no 'variant' column (not a futexlab CSV) in $d/other.csv" "$fl" compare \
  "$csv" "$d/other.csv" --fail-on slower
refused "a header and no rows" "no rows (a run that measured nothing) in $d/norows.csv" "$fl" compare "$csv" "$d/norows.csv" --fail-on slower
refused "  the same with --absolute" "no rows (a run that measured nothing) in $d/norows.csv" "$fl" compare --absolute "$d/norows.csv" "$csv" --fail-on any
refused "a missing file" "cannot read $d/none.csv" "$fl" compare "$csv" "$d/none.csv" --fail-on slower
# no pair in common: the table (nothing in it), then one line, exit 2
out=$("$fl" compare "$d/pp.csv" "$d/pool.csv" --fail-on slower 2>"$d/err"); rc=$?
check "two files with no pair in common: exit 2, one line (a gate that compared nothing)" \
  test "$rc" = 2 -a "$(cat "$d/err")" = \
  "futexlab: compare --fail-on: no pair was compared (the files share no (point, variant) that ran in both)"
finish failon
