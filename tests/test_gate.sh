#!/usr/bin/env bash
# tests/test_gate.sh — the gate across runs and the history's change points
# against ground truth (report/judge.h, report/history.h): short real runs
# of negcount, split and glibc under park and adaptive at uncontended and
# pool T=1 (8 rounds of 20 ms reps: 2-3 s a run), some of them with
# `--as negcount=perf_delay_800` (perf_delay_800's code, ~800 ns more an op,
# under negcount's name: a known regression of one design).
#   N1..N12  twelve runs of unchanged code, one after another
#   M1..M6   six runs with the mutant, after them
# The gate: N9 against the store's history N1..N8 does not fail (exit 0,
# or 3 — inconclusive — where a pair's smallest detectable change is wider
# than the threshold, as short runs' are); M1 against it exits 1 naming
# negcount and negcount@adaptive and nothing else, negcount's x44 at
# uncontended among the failing pairs; --only split does not fail it; the
# same through --pool N1..N8 --against N10 and M2. The exit status is the
# judgement's in every format (--tsv too).
# Eight history runs, not fewer: the gate calibrates its interval on the
# history's own runs (each left out in turn), and with 8 pairs a run that
# needs 8 runs' deviations to know a loaded machine's tails. The history:
# N1..N6 then M1..M6 has its change point at run 7 in negcount's series
# (and negcount@adaptive's) and none in any other; N1..N12 has none at all.
# Then what the commands refuse (one line, exit 2) and the JSON; the
# history's rules on files (deterministic): strictly earlier runs only, no
# judgement below 5 of them (exit 3), runs of other settings left out, the
# reference window failing a regression crept in at x1.5 a revision that
# the rolling window absorbs; then the five-run figures of results/gate.md
# from its kept CSVs. Under a
# sanitizer the checks of what the timings say are SKIP lines (lib.sh: verdict).
# Usage: test_gate.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch d gate
# Under a sanitizer (scripts/test sets FL_TEST_SCALE=4 there) every op is
# the sanitizer's: the runs still go through every command, which is what
# a sanitizer checks, but what the timings say is not this test's to check
# there — each such check is a SKIP line with the reason.
common=(--variant negcount,split,glibc --policy park,adaptive --workload uncontended,pool
        --threads 1 --rounds 8 --warmup 1 --no-probes --no-floors --duration 0.02 --quiet)
for i in $(seq 1 12); do
  "$fl" run "${common[@]}" --csv "$d/n$i.csv" >/dev/null 2>&1 || echo "run n$i failed"
done
for i in $(seq 1 6); do
  "$fl" run "${common[@]}" --as negcount=perf_delay_800 --csv "$d/m$i.csv" >/dev/null 2>&1 ||
    echo "run m$i failed"
done
"$fl" store add --db "$d/db" "$d"/n{1,2,3,4,5,6,7,8}.csv >/dev/null

# ---- the gate -------------------------------------------------------------------
out=$("$fl" compare --db "$d/db" --against "$d/n9.csv" --fail-on slower 2>"$d/err"); rc=$?
verdict "unchanged code against 8 earlier runs: not a failure (exit 0, or 3: too wide)" \
  test "$rc" = 0 -o "$rc" = 3
check "  the history named (8 runs of this machine)" grep -q '^history: 8 runs of ' <<<"$out"
verdict "  the count line: 0 slower, pass or inconclusive" \
  grep -qE '^fail-on slower: 0 of 8 pairs slower .*(: pass|INCONCLUSIVE \(exit 3\))$' <<<"$out"
check "  every pair's smallest detectable change, per point" \
  test "$(grep -c '^  .* of [0-9]* too wide$' <<<"$out")" = 2
[ "$rc" != 1 ] || ! timed || echo "$out"
out=$("$fl" compare --db "$d/db" --against "$d/m1.csv" --fail-on slower 2>"$d/err"); rc=$?
verdict "negcount replaced by perf_delay_800: exit 1" test "$rc" = 1
# The ground truth is the mutant caught and negcount (with its policy
# form) named, nothing else, and its x44 at uncontended among the failing
# pairs: once in a CI run (before each series' spread was floored) the
# history's 8 short runs calibrated the ratios' scale to 36.6 and that
# move read "machine moved", then a pass (results/gate.md).
verdict "  naming negcount and its policy form, nothing else" \
  grep -qxE 'fail-on slower: [2-4] of 8 pairs slower beyond the between-run spread \(negcount, negcount@adaptive\): FAIL \(exit 1\)' <<<"$out"
verdict "  negcount's x44 at uncontended fails (the floor keeps the scale)" \
  grep -qE '^uncontended .* negcount .* SLOWER  <- fails$' <<<"$out"
verdict "  none of split's pairs SLOWER" test "$(grep -c " split.* SLOWER" <<<"$out")" = 0
check "  the new run marked a test run" grep -q 'm1.csv: TEST RUN: negcount is perf_delay_800' <<<"$out"
[ "$rc" = 1 ] && grep -qx 'fail-on slower: 4 of 8 .*(negcount, negcount@adaptive): FAIL (exit 1)' <<<"$out" ||
  ! timed || echo "$out"
"$fl" compare --db "$d/db" --against "$d/m1.csv" --fail-on slower --tsv >"$d/m1.tsv" 2>&1; rt=$?
"$fl" compare --db "$d/db" --against "$d/m1.csv" --fail-on slower --json >"$d/m1.json" 2>/dev/null; rj=$?
check "--json --fail-on: the judgement, the same exit status ($rj, $rc)" \
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["schema"]=="futexlab-judgement/1" and m["exit"]==int(sys.argv[2]) and len(m["windows"][0]["pairs"])==8' "$d/m1.json" "$rj"
check "  and the text's" test "$rj" = "$rc"
check "--tsv: the same exit status as the text's ($rt, $rc)" test "$rt" = "$rc"
verdict "  exit 1 with --tsv too" test "$rt" = 1
check "  the failing pairs' outcome column says fail" \
  eval '[ "$rt" != 1 ] || [ "$(awk -F"\t" "\$18 == \"fail\"" "$d/m1.tsv" | wc -l)" -ge 2 ]'
out=$("$fl" compare --db "$d/db" --against "$d/m1.csv" --fail-on slower --only split 2>&1); rc=$?
verdict "--only split: the mutant's slowdown does not fail it (exit 0 or 3)" test "$rc" = 0 -o "$rc" = 3
check "  negcount's pairs never the ones failing (--only split leaves them out)" \
  eval '[ -n "$out" ] && ! grep -qE "negcount.* <- fails$" <<<"$out"'
[ "$rc" = 0 ] || ! timed || echo "$out"
out=$("$fl" compare --db "$d/db" --against "$d/m1.csv" --against "$d/m2.csv" --fail-on slower 2>&1); rc=$?
verdict "two new runs pooled: exit 1" test "$rc" = 1
check "  judged as 2 new runs" grep -q "^new: $d/m1.csv .*, $d/m2.csv " <<<"$out"
out=$("$fl" compare --pool "$d"/n{1,2,3,4,5,6,7,8}.csv --against "$d/n10.csv" --fail-on slower 2>&1); rc=$?
verdict "--pool N1..N8 --against N10 --fail-on slower: not a failure (exit 0 or 3)" \
  test "$rc" = 0 -o "$rc" = 3
check "  the pool's table, then the judgement" \
  grep -q '^prediction: ' <<<"$out"
[ "$rc" != 1 ] || ! timed || echo "$out"
out=$("$fl" compare --pool "$d"/n{1,2,3,4,5,6,7,8}.csv --against "$d/m2.csv" --fail-on slower 2>&1); rc=$?
verdict "--pool N1..N8 --against M2 --fail-on slower: exit 1, negcount named" \
  test "$rc" = 1 -a -n "$(grep '(negcount, negcount@adaptive): FAIL' <<<"$out")"
[ "$rc" = 1 ] || ! timed || echo "$out"
out=$("$fl" compare --db "$d/db" --against "$d/n9.csv" --tsv 2>"$d/err"); rc=$?
check "--tsv: the judgement's columns, the smallest detectable change and the outcome at the end" \
  grep -q $'^point\tvariant\truns\tratio\tpred_lo\tpred_hi\tagainst_ratio\tinside\t.*\tverdict\tmdc\twide\toutcome\twindow$' <<<"$out"
check "  a line per pair (8)" test "$(($(wc -l <<<"$out") - 1))" = 8
"$fl" compare --db "$d/db" --json >"$d/j.json" 2>"$d/err"
check "--json: valid JSON of the 8 stored runs" \
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["schema"]=="futexlab-model/1" and len(m["runs"])==8 and m["cells"]' "$d/j.json"
"$fl" compare --json "$d/m1.csv" >"$d/m.json" 2>"$d/err"
check "--json of a test run: its test_as" \
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["runs"][0]["test_as"].startswith("negcount=perf_delay_800")' "$d/m.json"

# ---- the history ----------------------------------------------------------------
out=$("$fl" history "$d"/n{1,2,3,4,5,6}.csv "$d"/m{1,2,3,4,5,6}.csv 2>&1); rc=$?
check "history N1..N6 M1..M6: exit 0" test "$rc" = 0
verdict "  negcount's change point at run 7 of 12" \
  grep -q '^change point at run 7 of 12 (.*): .* | uncontended T=1 wake=exact hash=auto | negcount: ratio' <<<"$out"
verdict "  at both points, negcount and negcount@adaptive: 4 change points, all at run 7" \
  test "$(grep -c '^change point at run 7 of 12 .* | negcount\(@adaptive\)\?: ' <<<"$out")" = 4 \
  -a "$(grep -c '^change point .* | negcount\(@adaptive\)\?: ' <<<"$out")" = 4
# another series may step by what a loaded machine moves a 20 ms rep (x1.18
# was seen once, split at pool T=1, while the machine ran builds): none as
# large as the mutant's smallest (x25 here): none of x2 or more, either way
verdict "  no other series steps by x2 or more" \
  test "$(grep '^change point' <<<"$out" | grep -v ' | negcount\(@adaptive\)\?: ' |
    grep -o '(x[0-9.e+-]*,' | tr -d '(x,' | awk '$1 >= 2 || $1 <= 0.5' | wc -l)" = 0
check "  the test runs marked" test "$(grep -c '^run [0-9]* (.*m[1-6].csv): TEST RUN' <<<"$out")" = 6
[ "$(grep -c '^change point' <<<"$out")" = 4 ] || echo "$out" # what the history said, when more than the mutant
out=$("$fl" history "$d"/n*.csv 2>&1); rc=$?
verdict "history N1..N12 (no mutant): no change point" grep -qx '0 change points in [0-9]* series' <<<"$out"
grep -q '^0 change points' <<<"$out" || ! timed || echo "$out"
"$fl" store add --db "$d/db" "$d"/m{1,2,3,4,5,6}.csv >/dev/null
out=$("$fl" history --db "$d/db" --variant negcount --point uncontended --all --html "$d/h.html" 2>&1)
verdict "history --db: the stored runs (N1..N8, M1..M6), its change point at run 9 of 14" \
  grep -q '^change point at run 9 of 14 ' <<<"$out"
check "  --all: the series' 14 runs, the 6 test runs marked" \
  test "$(grep -c '(test run: --as)$' <<<"$out")" = 6
verdict "  --html: the page with the change point drawn" grep -q 'class="cp"' "$d/h.html"
out=$("$fl" history --db "$d/db" --variant negcount --point uncontended --tsv 2>&1)
verdict "history --tsv: a line per run, the change flagged at run 9" \
  test "$(awk -F'\t' "$COLS"'$col("change") == 1 { print $col("pos") }' <<<"$out")" = 9

# ---- refusals: one line on stderr, nothing on stdout, exit 2 ----------------------
sed 's/^# host: .*/# host: elsewhere/' "$d/n8.csv" >"$d/other.csv"   # n8 from another host
sed 's/^# date: .*/# date: 2000-01-01T00:00:00Z/' "$d/n7.csv" >"$d/n7copy.csv"   # another run
cp "$d/n8.csv" "$d/n8again.csv"
"$fl" store add --db "$d/one" "$d/n1.csv" >/dev/null
refused "--pool a run twice (a copy)" "are the same run" "$fl" compare --pool "$d/n8.csv" "$d/n8again.csv"
refused "--pool runs of two machines" "runs of different machines are not reruns" "$fl" \
  compare --pool "$d/n7.csv" "$d/other.csv" "$d/n9.csv"
"$fl" compare --pool "$d"/n{4,5,6,7}.csv "$d/other.csv" --against "$d/n9.csv" --fail-on slower \
  --across-machines >"$d/x.out" 2>&1; rc=$?
check "--across-machines pools them (not refused)" test "$rc" != 2
check "  and says the ratio alone is judged" grep -q 'ratio alone' "$d/x.out"
out=$("$fl" compare --db "$d/one" --against "$d/n5.csv" --fail-on slower 2>&1); rc=$?
check "--db with one earlier run: inconclusive, exit 3, nothing judged" \
  eval '[ "$rc" = 3 ] && grep -q "^inconclusive (rolling): 1 earlier run of this machine and settings, the gate needs 5" <<<"$out" && ! grep -q "pairs judged" <<<"$out"'
"$fl" compare --db "$d/one" --against "$d/n5.csv" --fail-on slower --tsv >"$d/t.out" 2>"$d/t.err"; rc=$?
check "  --tsv: exit 3 too, the line on stderr, the header alone on stdout" \
  eval '[ "$rc" = 3 ] && grep -q "INCONCLUSIVE (exit 3)" "$d/t.err" && [ "$(wc -l <"$d/t.out")" = 1 ]'
"$fl" compare --db "$d/one" --against "$d/n5.csv" --fail-on slower --json >"$d/t.json" 2>/dev/null; rc=$?
check "  --json: exit 3 too, the reason in the object" \
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); w=m["windows"][0]; assert m["exit"]==3 and w["outcome"]=="inconclusive" and w["reason"].startswith("1 earlier run") and w["pairs"]==[]' "$d/t.json"
refused "--reference without --db" "--reference is a window" "$fl" \
  compare --pool "$d/n1.csv" "$d/n2.csv" --against "$d/n3.csv" --reference abc
refused "--db a missing store" "$d/none.db" "$fl" compare --db "$d/none.db" --against "$d/n5.csv"
refused "--db and files" "give no file" "$fl" compare --db "$d/db" "$d/n5.csv" --against "$d/n6.csv"
refused "--against without --pool or --db" "--against takes --pool" "$fl" compare "$d/n1.csv" --against "$d/n2.csv"
refused "--machine without --db" "they go with --db" "$fl" compare "$d/n1.csv" --machine vm
refused "history: no series matches" "no series matches" "$fl" history "$d/n1.csv" "$d/n2.csv" --variant nosuch
refused "history --by other" "--by takes date or rev" "$fl" history "$d/n1.csv" --by commit
sed '1s/.*/# futexlab abc1234/' "$d/n7copy.csv" >"$d/n7rev.csv"
out=$("$fl" compare --pool "$d/n9.csv" "$d/n7rev.csv" --against "$d/n10.csv" --fail-on slower 2>&1)
check "a pool of two revisions: said in one line" \
  grep -q '^note: the runs come from 2 revisions (.*abc1234.*): a change of the code is not a rerun$' <<<"$out"
# ---- the history's rules, on the kept runs (files: deterministic) ---------------------
# scale IN OUT FACTOR REV DATE: a copy of a kept run with negcount's per-rep
# times (both policies) multiplied at every point, as a later revision's run
scale() {
  python3 - "$@" <<'PY'
import csv, sys
src, dst, factor, rev, date = sys.argv[1:6]
lines = open(src).read().splitlines(keepends=True)
meta = [l for l in lines if l.startswith("#")]
rows = list(csv.reader([l for l in lines if not l.startswith("#")]))
col = {n: i for i, n in enumerate(rows[0])}
for r in rows[1:]:
    if r[col["variant"]].split("@")[0] == "negcount" and r[col["status"]] == "ok":
        for c in ("ns_per_op", "elapsed_ns"):
            r[col[c]] = "%.6g" % (float(r[col[c]]) * float(factor))
meta = ["# futexlab %s\n" % rev if l.startswith("# futexlab ") else
        "# date: %s\n" % date if l.startswith("# date: ") else
        "# seed: %s\n" % date if l.startswith("# seed: ") else l for l in meta]
with open(dst, "w") as f:
    f.write("".join(meta))
    csv.writer(f, lineterminator="\n").writerows(rows)
PY
}
k=$(dirname "$0")/../results/gate/quiet
if [ -f "$k/n-8.csv" ]; then
  "$fl" store add --db "$d/q" "$k"/n-{1,2,3,4,5,6,7,8}.csv >/dev/null
  out=$("$fl" compare --db "$d/q" --against "$k/n-1.csv" --fail-on slower 2>&1); rc=$?
  check "strictly earlier: the oldest stored run judged against nothing later (exit 3)" \
    eval '[ "$rc" = 3 ] && grep -q "^note: rolling: 7 runs of the machine left out of the history, dated (or stored) at or after" <<<"$out" && grep -q "^history: none" <<<"$out"'
  out=$("$fl" compare --db "$d/q" --against "$k/n-5.csv" --fail-on slower 2>&1); rc=$?
  check "  n-5: 4 earlier runs, below the least history (exit 3)" \
    eval '[ "$rc" = 3 ] && grep -q "^inconclusive (rolling): 4 earlier runs" <<<"$out"'
  out=$("$fl" compare --db "$d/q" --against "$k/n-6.csv" --fail-on slower 2>&1); rc=$?
  check "  n-6: judged against the 5 runs before it" \
    eval 'grep -q "^history: 5 runs of vm .* to 2026-12-06T22:33:30Z" <<<"$out" && [ "$rc" != 2 ]'
  sed -e 's/^# command: sweep --preset quick/& --rounds 30/' -e 's/^# date: .*/# date: 2026-12-06T22:36:30Z/' \
    -e 's/^# seed: .*/# seed: 1/' "$k/n-2.csv" >"$d/r30.csv"
  "$fl" store add --db "$d/s" "$k"/n-{1,2,3,4,5,6,7}.csv "$d/r30.csv" >/dev/null
  out=$("$fl" compare --db "$d/s" --against "$k/n-8.csv" --fail-on slower 2>&1); rc=$?
  check "settings: a stored run of --rounds 30 left out of a quick run's history, and said" \
    eval 'grep -q "^note: rolling: 1 run of other settings left out of the history (the new run'"'"'s: sweep --preset quick)" <<<"$out" && grep -q "^history: 7 runs" <<<"$out"'
  out=$("$fl" history "$k"/n-{1,2,3,4,5,6,7}.csv "$d/r30.csv" 2>&1)
  check "history: the --rounds 30 run a series of its own, said" \
    grep -q '^note: vm: runs of other settings from run 8 (sweep --preset quick --rounds 30): a history of their own$' <<<"$out"
  # a regression creeping in at x1.25 a revision (below what the history
  # sees at any point: x1.3 at uncontended): c1..c4, each judged, then stored
  for i in 1 2 3 4; do
    scale "$k/n-8.csv" "$d/c$i.csv" "$(awk -v i=$i 'BEGIN { print 1.25 ^ i }')" "c0ffee$i" "2026-12-07T0$i:00:00Z"
    "$fl" compare --db "$d/q" --against "$d/c$i.csv" --fail-on slower >"$d/c$i.roll" 2>&1; echo $? >>"$d/creep.rc"
    "$fl" compare --db "$d/q" --against "$d/c$i.csv" --fail-on slower --reference 2e4a9d3 >"$d/c$i.ref" 2>&1
    echo $? >>"$d/creep.refrc"
    "$fl" store add --db "$d/q" "$d/c$i.csv" >/dev/null
  done
  check "creeping x1.25 a revision: the rolling window never fails it ($(tr '\n' ' ' <"$d/creep.rc"))" \
    eval '! grep -qx 1 "$d/creep.rc"'
  check "  --reference 2e4a9d3 fails it by the 4th revision (x2.4), naming negcount ($(tr '\n' ' ' <"$d/creep.refrc"))" \
    eval '[ "$(tail -1 "$d/creep.refrc")" = 1 ] && grep -q "^rolling and reference windows: FAIL (exit 1)$" "$d/c4.ref" && grep -qE "^fail-on slower: .*\(negcount, negcount@adaptive\): FAIL" "$d/c4.ref"'
  check "  the reference window: the 8 runs of 2e4a9d3" grep -q '^reference window (revision 2e4a9d3):$' "$d/c4.ref"
else
  skip "the history's rules on kept runs" "no results/gate/quiet in this tree"
fi

# ---- the kept runs: the figures of results/gate.md, recomputed ------------------------
# Deterministic (files, not timings): the quick sweeps of results/gate/quiet/,
# each judged against the 5 runs before it, as scripts/gate-check does. The
# interval's sharpness needs the field (judge.h): without it, x/1.45.
k=$(dirname "$0")/../results/gate/quiet
if [ -f "$k/n-8.csv" ]; then
  abs=$(realpath "$fl")
  out=$(cd "$k" && ../../../scripts/gate-check --futexlab "$abs" --last 5 \
    n-{1..8}.csv -- m-{1,2,3}.csv 2>&1)
  check "kept runs: no false alarm on the 3 runs of unchanged code with 5 earlier" \
    grep -q '^false alarms: 0 of 3 judged runs' <<<"$out"
  cover=$(sed -n 's/.*pairs (\([0-9.]*\)%), median half-width x\/\([0-9.]*\)$/\1 \2/p' <<<"$out")
  check "  the 95% interval holds >= 93% of the new runs' ratios at a median <= x/1.4 ($cover)" \
    awk -v c="${cover:-0 9}" 'BEGIN { split(c, a, " "); exit !(a[1] >= 93 && a[2] <= 1.4) }'
  check "  the 3 mutant runs fail it, naming negcount and negcount@adaptive only" \
    grep -qx 'detection: 3 of 3 mutant runs fail, naming: negcount, negcount@adaptive; negcount, negcount@adaptive; negcount, negcount@adaptive' <<<"$out"
  sed -n '/^false alarms/,$s/^/  | /p' <<<"$out"
else
  skip "kept runs" "no results/gate/quiet in this tree"
fi
finish -s gate
