#!/usr/bin/env bash
# tests/test_ab.sh — `futexlab ab` against ground truth (harness/ab.md,
# report/ab.h): two short A/B runs of negcount, split and glibc under park
# and adaptive at uncontended and pool T=1 (12 rounds of 10 ms reps), each
# side this build's binary, so the code is the same on all three sides
# unless --as says otherwise:
#   A/A  head = base = control: no gated pair may read slower or faster,
#        so the exit status is 0 or 3 (inconclusive), never 1;
#   M    head runs perf_delay_800's code under negcount's name (~800 ns more
#        an op: x50 at uncontended): exit 1, naming negcount and
#        negcount@adaptive and nothing else.
# Both judged at a family-wise alpha of 0.001, so neither check fails one
# run in 1000 by chance (the sign-flip test's level is exact when the sides
# are exchangeable, as three runs of one binary are). Then --judge on the
# CSVs (the same answer, whatever the format), the JSON's pairs,
# scripts/ab-power subset on the two runs as a series (cut to uncontended:
# the A/A run not failed, the mutant run failed; cut to a workload they do
# not hold: no judgement), and what
# ab refuses (one line, exit 2): no --base, a REF that is nothing, a base
# that refuses the run (a fake binary), a CSV that is not an A/B run.
# Under a sanitizer the checks of what the timings say are SKIP lines.
# Usage: test_ab.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch d ab
sides=(--base "$fl" --head "$fl" --control "$fl")
common=(--variant negcount,split,glibc --policy park,adaptive --workload uncontended,pool
        --threads 1 --rounds 12 --duration 0.01 --budget 0 --alpha 0.001 --quiet)

# ---- A/A --------------------------------------------------------------------------
mkdir "$d/tmp" # ab's scratch directory goes under $TMPDIR, and leaves nothing
out=$(TMPDIR=$d/tmp "$fl" ab "${sides[@]}" "${common[@]}" --csv "$d/aa.csv" 2>"$d/err"); rc=$?
check "  its scratch directory removed whole (\$TMPDIR empty: $(ls -A "$d/tmp" | tr '\n' ' '))" \
  test -z "$(ls -A "$d/tmp")"
check "A/A: ran (exit 0 or 3, not 2)" test "$rc" = 0 -o "$rc" = 3 -o "$rc" = 1
verdict "A/A: no pair slower or faster, exit not 1" test "$rc" != 1
verdict "  the count line says 0 slower, 0 faster" grep -q ' 0 slower, 0 faster, ' <<<"$out"
[ "$rc" != 1 ] || ! timed || { echo "$out"; cat "$d/err"; }
check "  the CSV holds the three sides" \
  test "$(awk -F, "$COLS"'!/^#/ && $1 != "variant" { s[$col("side")] = 1 } END { print length(s) }' "$d/aa.csv")" = 3
check "  each side's revision in the metadata" \
  test "$(grep -c '^# side \(base\|head\|control\): ' "$d/aa.csv")" = 3
check "  12 rounds of each pair on each side" \
  test "$(awk -F, "$COLS"'!/^#/ && $1 == "negcount" && $col("workload") == "uncontended" && $col("status") == "ok" { n++ } END { print n }' "$d/aa.csv")" = 36

# ---- the mutant -------------------------------------------------------------------
out=$("$fl" ab "${sides[@]}" "${common[@]}" --as negcount=perf_delay_800 --csv "$d/m.csv" 2>"$d/err"); rc=$?
verdict "negcount replaced by perf_delay_800 on the head: exit 1" test "$rc" = 1
# the ground truth: the mutant caught, negcount's entries named and
# nothing else (both of them, or one: on a loaded machine one entry's two
# pairs may both stay inconclusive at 12 rounds, never another's slower)
verdict "  naming negcount's entries, nothing else" \
  grep -Eqx 'ab: slower: (negcount|negcount@adaptive)(, (negcount|negcount@adaptive))?' <<<"$out"
verdict "  nothing faster" grep -q ' 0 faster, ' <<<"$out"
check "  the test run marked (--as)" grep -q '^ab: TEST RUN: negcount is perf_delay_800' <<<"$out"
[ "$rc" = 1 ] || ! timed || { echo "$out"; cat "$d/err"; }

# ---- judged again, the exit status the judgement's whatever the format -------------
"$fl" ab --judge "$d/m.csv" --alpha 0.001 --budget 0 >/dev/null 2>&1; r1=$?
"$fl" ab --judge "$d/m.csv" --alpha 0.001 --json >"$d/m.json" 2>/dev/null; r2=$?
check "--judge: the same exit status plain ($r1) and --json ($r2)" test "$r1" = "$r2"
verdict "  and the run's ($rc)" test "$r1" = "$rc"
check "  the JSON's pairs have entry, point, ratio, lo, hi, verdict" python3 - "$d/m.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
ok = j["pairs"] and all(all(k in p for k in ("entry", "point", "ratio", "lo", "hi", "verdict"))
                        for p in j["pairs"])
ok = ok and all(p["verdict"] in ("faster", "slower", "same", "inconclusive") for p in j["pairs"])
sys.exit(0 if ok and j["exit"] in (0, 1, 3) else 1)
EOF
if timed; then
  check "  the JSON's slower pairs are negcount's" python3 - "$d/m.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
slow = {p["entry"] for p in j["pairs"] if p["verdict"] == "slower"}
sys.exit(0 if slow and slow <= {"negcount", "negcount@adaptive"} and j["status"] == "fail" else 1)
EOF
fi
out=$("$fl" ab --judge "$d/m.csv" --only split,glibc --alpha 0.001 2>/dev/null); r=$?
verdict "--judge --only split,glibc: the mutant is not gated, exit not 1" test "$r" != 1

# ---- scripts/ab-power subset: the two runs as a series, cut to uncontended -------
# (the A/A run a-1, the mutant run m-1, each with its judgement at the run's alpha)
mkdir "$d/pw"
cp "$d/aa.csv" "$d/pw/a-1.csv"; cp "$d/m.csv" "$d/pw/m-1.csv"
"$fl" ab --judge "$d/aa.csv" --alpha 0.001 --json >"$d/pw/a-1.json" 2>/dev/null
cp "$d/m.json" "$d/pw/m-1.json"
sub=$(FUTEXLAB=$fl "$(dirname "$0")/../scripts/ab-power" subset "$d/pw" uncontended 2>&1)
echo "$sub"
check "ab-power subset: a line for the A/A runs and one for the mutant runs" \
  eval 'grep -q "^A/A runs, uncontended only (): 1; " <<<"$sub" && grep -q "^mutant runs, uncontended only (): 1; " <<<"$sub"'
verdict "  the A/A run cut to uncontended: not failed" grep -q "^A/A runs.*exit 1 0," <<<"$sub"
verdict "  the mutant run cut to uncontended: failed (x50 there)" grep -q "^mutant runs.*exit 1 1," <<<"$sub"
sub=$(FUTEXLAB=$fl "$(dirname "$0")/../scripts/ab-power" subset "$d/pw" barrier 2>&1)
check "  cut to a workload the runs do not hold: no judgement (counted as other)" \
  eval 'grep -q "^A/A runs, barrier only (): 1; exit 0 0, exit 1 0, exit 3 0, other 1$" <<<"$sub"'

# ---- bad input: one line, exit 2 ----------------------------------------------------
refused "no --base: refused" "--base REF is required" "$fl" ab --workload uncontended
refused "a REF that is neither a build, a binary nor a revision: refused" \
  "not a revision" "$fl" ab --base no-such-ref-xyz --head "$fl" --control "$fl" \
    --workload uncontended --variant negcount
refused "--fail-on bogus: refused" "--fail-on" "$fl" ab --base "$fl" --fail-on bogus
refused "--hash with two modes: refused" "one mode" "$fl" ab --base "$fl" --hash auto,global
cat >"$d/fake" <<'EOF'
#!/bin/sh
# a futexlab of another time: it knows 'version' and refuses every run
case "$1" in
  version) echo "futexlab 0000000"; exit 0 ;;
  *) echo "futexlab: unknown option '--no-probes'" >&2; exit 2 ;;
esac
EOF
chmod +x "$d/fake"
refused "a base that refuses the run: refused, its line named" \
  "the base side" env TMPDIR="$d/tmp" "$fl" ab --base "$d/fake" --head "$fl" \
    --control "$fl" --workload uncontended --variant negcount --rounds 6 --csv "$d/fake.csv"
check "  the scratch directory removed at that exit too" test -z "$(ls -A "$d/tmp")"
grep -v '^#' "$d/aa.csv" | cut -d, -f1-17 | sed '1i # futexlab x' >"$d/plain.csv" # no side column
refused "--judge of a CSV that is not an A/B run: refused" \
  "not an A/B run" "$fl" ab --judge "$d/plain.csv"
refused "--judge with --base: refused" "--judge" "$fl" ab --judge "$d/m.csv" --base "$fl"
finish -s ab
