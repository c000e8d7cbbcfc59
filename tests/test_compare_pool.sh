#!/usr/bin/env bash
# tests/test_compare_pool.sh — `futexlab compare --pool` end to end on crafted runs
# (the estimator's own tests: test_pooled_runs.c). Runs of two points (pool T=2,
# pool T=4) with glibc, its control and two designs, 10 rounds each, every
# round's ratio within +-1% of the run's (a known median per run): runs 1
# and 2 pooled; a third run inside the pool, and one where negcount at
# pool T=2 went from 0.7 to 7.0 (outside, and slower where the pool says
# faster). Bad input: one line on stderr, nothing on stdout, exit 2.
# Usage: test_compare_pool.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch d pool
# gen FILE NEG2 MUSL2 NEG4 MUSL4 [skip-musl]: the designs' ratios per point
gen() {
  for r in $(seq 0 9); do
    j=$(awk -v r="$r" 'BEGIN { printf "%.6f", 1 + 0.01 * ((r * 7) % 10 - 4.5) / 4.5 }')
    for t in 2 4; do
      if [ "$t" = 2 ]; then n=$2 m=$3; else n=$4 m=$5; fi
      b=$((1000 + r)) p="threads=$t round=$r"
      echo "variant=glibc $p ns_per_op=$b.0 slot=0"
      echo "variant=glibc#2 $p ns_per_op=$((b + 1 - 2 * (r % 2))).0 slot=1"
      echo "variant=negcount $p ns_per_op=$(awk -v b="$b" -v f="$n" -v j="$j" 'BEGIN { printf "%.3f", b * f * j }') slot=2"
      [ -n "${6:-}" ] && [ "$t" = 4 ] ||
        echo "variant=musl $p ns_per_op=$(awk -v b="$b" -v f="$m" -v j="$j" 'BEGIN { printf "%.3f", b * f / j }') slot=3"
    done
  done | run_csv >"$1"
}
gen "$d/1.csv" 0.70 1.00 1.30 0.99
gen "$d/2.csv" 0.72 1.01 1.28 1.00
gen "$d/3.csv" 0.71 1.005 1.29 0.995
gen "$d/far.csv" 7.0 1.005 1.29 0.995
gen "$d/nomusl.csv" 0.72 1.01 1.28 1.00 skip
sed 's/^\(.*\),pool,4,/\1,pool,8,/' "$d/2.csv" >"$d/t8.csv"

# bad input: one line on stderr, nothing on stdout, exit 2
refused "one file" "give two or more CSV files" "$fl" compare --pool "$d/1.csv"
refused "a missing file" "cannot read $d/none.csv" "$fl" compare --pool "$d/1.csv" "$d/none.csv"
refused "an entry missing from one run" "has no 'musl' at 'pool T=4 K=1 wake=exact'" "$fl" compare \
  --pool "$d/1.csv" "$d/nomusl.csv"
refused "a point missing from one run" "has no point 'pool T=4 K=1 wake=exact'" "$fl" compare \
  --pool "$d/1.csv" "$d/t8.csv"
refused "--against of another configuration" "--against takes a run of the pooled" "$fl" compare \
  --pool "$d/1.csv" "$d/2.csv" --against "$d/nomusl.csv"
refused "--against without --pool" "--against takes --pool" "$fl" compare "$d/1.csv" --against "$d/2.csv"
refused "--pool with --absolute" "--absolute does not apply" "$fl" compare --pool --absolute "$d/1.csv" "$d/2.csv"

out=$("$fl" compare --pool "$d/1.csv" "$d/2.csv" 2>&1); rc=$?
check "a pool of two runs: exit 0" test "$rc" = 0
check "the two intervals labelled" grep -q "long-run ratio, over runs.*next run's ratio" <<<"$out"
check "the header says what a single run's interval covers" \
  grep -q "a single run's interval covers only that run's rounds" <<<"$out"
# negcount at pool T=2: the runs' medians 0.700 and 0.720, pooled sqrt(0.7 * 0.72) = 0.710
check "negcount at pool T=2: pooled 0.710, the runs' own 0.700 0.720, faster" \
  grep -qE '^  negcount +0\.710  \[0\.[0-9]+, 0\.[0-9]+\] 95% +\[0\.[0-9]+, 0\.[0-9]+\] 99% +0\.700 0\.720 +faster' <<<"$out"
check "the control: ~" grep -qE '^  glibc#2 +1\.00[0-9] .* ~ *$' <<<"$out"

tsv=$("$fl" compare --pool "$d/1.csv" "$d/2.csv" --tsv); rc=$?
hdr=$(head -1 <<<"$tsv")
cols() { for c in point variant runs ratio conf_lo conf_hi pred_lo pred_hi verdict; do
  tr '\t' '\n' <<<"$hdr" | grep -qx "$c" || return 1; done; }
check "--tsv: exit 0, its columns named" eval 'test "$rc" = 0 && cols'
check "--tsv: one line per point and entry (2 x 3) under the header, beside the libraries' lines" \
  test "$(grep -vc '^vs-libraries' <<<"$tsv")" = 7
check "--tsv: negcount at pool T=4, slower, in 2 runs" \
  grep -qP '^pool T=4 K=1 wake=exact\tnegcount\t2\t1\.2900\t[0-9.]+\t[0-9.]+\t[0-9.]+\t[0-9.]+\tslower\t' <<<"$tsv"

out=$("$fl" compare --pool "$d/1.csv" "$d/2.csv" --against "$d/3.csv"); rc=$?
check "--against a run like the pool's: all inside, none contradicting" \
  grep -qE "^prediction: $d/3\.csv's ratio inside for 6 of 6 \(point, entry\) pairs \(100\.0%\); median half-width ×/÷[0-9.]+; verdicts contradicting: 0$" <<<"$out"
out=$("$fl" compare --pool "$d/1.csv" "$d/2.csv" --against "$d/far.csv"); rc=$?
check "--against a run where negcount went to 7.0: outside, a contradiction" \
  grep -qE "^prediction: $d/far\.csv's ratio inside for 5 of 6 .*; verdicts contradicting: 1$" <<<"$out"
check "  its row: OUT, slower against the pool's faster, marked" \
  grep -qE '^  negcount +0\.710 .* faster +7\.00[0-9] OUT slower !$' <<<"$out"
tsv=$("$fl" compare --pool "$d/1.csv" "$d/2.csv" --against "$d/far.csv" --tsv)
check "--against --tsv: the rerun's columns" \
  grep -qP '^pool T=2 K=1 wake=exact\tnegcount\t.*\t7\.00[0-9]+\tout\tslower\tyes$' <<<"$tsv"

# Against the libraries (report/pool_libs.h), on three crafted runs of four
# points: glibc and its control, cxx-gnu (0.8x glibc's time and CPU; 1.25x
# at pool T=16, where glibc is the fastest library) and negcount, per round
# a factor times the fastest library's time and CPU in that round (its time
# +-1% per round, x1.00, x1.03, x0.97 by run): pool T=2 0.5 the time at 0.5
# the CPU (faster), pool T=4 equal in every round (ahead, not faster),
# pool T=8 0.5 the time at 2x the CPU (behind, over on CPU), pool T=16 0.7
# of glibc's time and CPU (faster; the same pool as the table's row).
genlib() { # FILE RUN-FACTOR
  awk -v s="$2" 'function row(v, t, c) {
      printf "variant=%s threads=%s ns_per_op=%.3f round=%d cpu_user_ns=%.0f\n", v, T[k], t, r, c * 1000 }
    BEGIN {
      split("2 4 8 16", T, " "); split("0.8 0.8 0.8 1.25", G, " ")
      split("0.5 1 0.5 0.7", F, " "); split("0.5 1 2 0.7", C, " ")
      for (r = 0; r < 10; r++) {
        j = 1 + 0.01 * ((r * 7) % 10 - 4.5) / 4.5; j2 = 1 + 0.01 * ((r * 3) % 10 - 4.5) / 4.5
        for (k = 1; k <= 4; k++) {
          b = 1000 + r
          lt = b * G[k] * j; lc = b * G[k]
          ft = G[k] < 1 ? lt : b; fc = G[k] < 1 ? lc : b
          row("glibc", b, b); row("glibc#2", b + 1 - 2 * (r % 2), b); row("cxx-gnu", lt, lc)
          row("negcount", F[k] == 1 ? ft : ft * F[k] * s / j2, fc * C[k])
        }
      } }' | run_csv >"$1"
}
genlib "$d/l1.csv" 1.00; genlib "$d/l2.csv" 1.03; genlib "$d/l3.csv" 0.97
out=$("$fl" compare --pool "$d/l1.csv" "$d/l2.csv" "$d/l3.csv"); rc=$?
check "libraries: a pool of three runs, exit 0" test "$rc" = 0
pt() { printf '^  pool T=%s K=1 wake=exact +' "$1"; }
check "libraries: 2x faster in every round at half the CPU: cxx-gnu, 0.5, faster" \
  grep -qE "$(pt 2)cxx-gnu +80[0-9]\.[0-9] +negcount +0\.[45][0-9]{2} +\[0\.[0-9]{3}, 0\.[0-9]{3}\] +0\.500 +faster$" <<<"$out"
check "libraries: equal in every round: 1.000 at 1.000 CPU, ahead (not faster)" \
  grep -qE "$(pt 4)cxx-gnu +[0-9.]+ +negcount +1\.000 +\[[0-9.]+, [0-9.]+\] +1\.000 +ahead$" <<<"$out"
check "libraries: 2x faster at twice the CPU: over on CPU, behind" \
  grep -qE "$(pt 8)cxx-gnu +[0-9.]+ +negcount +0\.[45][0-9]{2} +\[0\.[0-9]{3}, 0\.[0-9]{3}\] +2\.000 over +behind$" <<<"$out"
check "libraries: glibc the fastest library at pool T=16 (cxx-gnu 1.25x): negcount 0.7, faster" \
  grep -qE "$(pt 16)glibc +100[0-9]\.[0-9] +negcount +0\.7[0-9]{2} +\[0\.[0-9]{3}, 0\.[0-9]{3}\] +0\.700 +faster$" <<<"$out"
# against the baseline the block's pool is the table's: the same ratio and interval
tab=$(awk '/^pool T=16 /{p=1} p && $1 == "negcount" {print $2, $3, $4; exit}' <<<"$out")
blk=$(grep -E "$(pt 16)glibc " <<<"$out" | awk '{print $(NF-4), $(NF-3), $(NF-2)}')
check "libraries: at pool T=16 the block's negcount ($blk) is the table's row ($tab)" \
  test -n "$tab" -a "$tab" = "$blk"
check "libraries: the closing line, 3 of 4 points, faster at 2" \
  grep -qx "vs the libraries, pooled over 3 runs: a futexlab entry at or below the fastest library in time and CPU at 3 of 4 points, faster at 2" <<<"$out"
tsv=$("$fl" compare --pool "$d/l1.csv" "$d/l2.csv" "$d/l3.csv" --tsv)
check "libraries --tsv: the pool's lines as before (4 x 3 under the header)" \
  test "$(grep -vc '^vs-libraries' <<<"$tsv")" = 13
check "libraries --tsv: a vs-libraries line per point, pool T=8 behind at 2x CPU" \
  eval 'test "$(grep -c "^vs-libraries	" <<<"$tsv")" = 4 &&
    grep -qP "^vs-libraries\tpool T=8 K=1 wake=exact\tcxx-gnu\t[0-9.]+\tnegcount\t0\.[45]\d{3}\t[0-9.]+\t[0-9.]+\t2\.0000\tbehind$" <<<"$tsv"'
check "libraries --tsv: the total, runs 3, points 4, ahead 3, faster 2" \
  grep -qxP 'vs-libraries-total\t3\t4\t3\t2' <<<"$tsv"
[ "$fail" -eq 0 ] || printf '%s\n' "$out"
finish compare-pool
