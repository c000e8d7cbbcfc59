#!/usr/bin/env bash
# tests/test_logscale.sh — the verdicts on the log scale (stats/stats.h,
# "the log scale") on a real run whose control was noisy: tests/data/
# noisy-control.csv, the pingpong and pool T=2 points of a `scripts/bench`
# run (its first lines name its revision and machine; cut to those two
# points from ../shared/data/bench-pingpong-noisy-control.csv). Its pingpong control spread over
# [0.451, 2.607] (the linear rule's +-124%): under that rule no row could
# read faster, and negcount@adaptive at 0.031 of glibc's time read ~.
# Usage: test_logscale.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
csv=$(dirname "$0")/data/noisy-control.csv
tsv=$("$fl" compare --tsv "$csv") || { echo "FAIL compare --tsv (rc $?)"; exit 1; }
# verdict_of POINT VARIANT: the TSV's verdict of that pair (not lib.sh's verdict, a check on timings)
verdict_of() { awk -F'\t' -v p="$1" -v v="$2" "$COLS"'$col("point") == p && $col("variant") == v { print $col("verdict") }' <<<"$tsv"; }
pp="pingpong T=2 wake=exact hash=auto"
check "pingpong: negcount@adaptive (0.031 of glibc) reads faster under a x/÷2.4 control" \
  [ "$(verdict_of "$pp" negcount@adaptive)" = faster ]
check "pingpong: every row at 0.024-0.049 reads faster (the @adaptive rows, cxx-llvm, floor-atomic)" \
  [ "$(awk -F'\t' -v p="$pp" "$COLS"'$col("point") == p && $col("ratio") != "" && $col("ratio") < 0.05 &&
        $col("verdict") != "faster"' <<<"$tsv")" = "" ]
check "pingpong: the control itself is ~" [ "$(verdict_of "$pp" 'glibc#2')" = "~" ]
check "pingpong: portable 1.29 [1.17, 3.26] is ~: its interval excludes 1, its ratio is inside the band" \
  [ "$(verdict_of "$pp" portable)" = "~" ]
out=$("$fl" compare --detail "$csv")
check "the table prints the resolution as a factor (x/÷)" \
  grep -qE '^  negcount@adaptive +501\.6 +0\.031 +\[0\.022, 0\.079\] 99% +×/÷2\.404  faster$' <<<"$out"
check "the regimes' per-state verdict, one rule: pool T=2 state B, textbook 0.108 faster" \
  grep -qE '^  textbook +A  4/14 .* B 10/14  0\.108 \[0\.045, 0\.195\] +faster$' <<<"$out"
check "the control's summary line is a band" \
  grep -qE '^control \(glibc#2, .*\): ~ at 2 of 2 points; band ×/÷[0-9.]+ median' <<<"$out"
check "the header says what the interval covers (this run's rounds) and where the next run's is" \
  grep -q "this run's rounds .*the next run's ratio: compare --pool" <<<"$out"
finish logscale
