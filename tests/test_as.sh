#!/usr/bin/env bash
# tests/test_as.sh — `run --as PARENT=MUTANT` (harness/options.md): a
# performance mutant's code run under its parent's name, the ground truth
# for the gate and the history, and a test run that every reading of its
# file marks as one; and the # host:/# libc:/# libraries: lines of every
# CSV (harness/csv.md). One short real run at uncontended, where
# perf_delay_800's 800 ns of spinning per post is ~40x a ~20 ns op: its
# negcount rows (park and adaptive) must be > 3x split's and > split's +
# 400 ns, the same run without --as the negative control (negcount within
# 3x of split). Bad input: one line, nothing on stdout, exit 2. ~3 s.
# Usage: test_as.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch d as
# median FILE VARIANT: the median ns_per_op of VARIANT's ok rows
median() { python3 -c '
import csv, statistics, sys
rows = csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
v = [float(r["ns_per_op"]) for r in rows if r["variant"] == sys.argv[2] and r["status"] == "ok"]
print(statistics.median(v) if v else "nan")' "$@"; }
# labels FILE: the variant column's values, sorted, one line
labels() { awk -F, "$COLS"'!/^#/ && rows++ { print $col("variant") }' "$1" | sort -u | tr '\n' ' '; }
# slower FILE A B: A's median over B's > 3 and A's median - B's > 400 ns
slower() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (a > 3 * b and a - b > 400))' \
  "$(median "$1" "$2")" "$(median "$1" "$3")"; }
common=(--variant negcount,split,glibc --policy park,adaptive --workload uncontended
        --rounds 6 --warmup 0 --no-probes --no-floors --duration 0.01 --quiet)
mark="TEST RUN: negcount is perf_delay_800's code (--as); not a measurement of negcount"

"$fl" run "${common[@]}" --as negcount=perf_delay_800 --csv "$d/as.csv" >"$d/as.out" 2>&1
check "a run with --as: exit 0" test $? = 0
check "  rows labelled as the entries, never as the mutant" \
  test "$(labels "$d/as.csv")" = "glibc glibc#2 negcount negcount@adaptive split split@adaptive "
check "  the # as: line" \
  grep -qx "# as: negcount=perf_delay_800 (test only: these rows are not negcount's code)" "$d/as.csv"
check "  negcount is the mutant's code: > 3x split's time and > +400 ns" slower "$d/as.csv" negcount split
check "  negcount@adaptive too (the policy's form of the entry)" \
  slower "$d/as.csv" negcount@adaptive split@adaptive
check "  the run's own summary opens with the mark" grep -qxF "$mark" "$d/as.out"
out=$("$fl" compare "$d/as.csv" 2>&1)
check "compare FILE: the mark, second line (after the command)" test "$(sed -n 2p <<<"$out")" = "$mark"
out=$("$fl" compare "$d/as.csv" "$d/as.csv" 2>&1)
check "compare BEFORE AFTER: the mark on both" test "$(grep -cF "$mark" <<<"$out")" = 2
"$fl" report "$d/as.csv" --out "$d/as.html" >/dev/null 2>&1
check "the HTML page: the mark" grep -qF "<p class=\"testrun\"><strong>TEST RUN: negcount is perf_delay_800&#39;s code" "$d/as.html"

"$fl" run "${common[@]}" --csv "$d/plain.csv" >/dev/null 2>&1
check "the same run without --as: exit 0" test $? = 0
check "  no # as: line, no mark" bash -c '! grep -q "^# as:" "$1" && ! "$2" compare "$1" | grep -q "TEST RUN"' _ \
  "$d/plain.csv" "$fl"
check "  negcount within 3x of split (the negative control)" \
  bash -c '! python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 3 * float(sys.argv[2]))" "$1" "$2"' _ \
  "$(median "$d/plain.csv" negcount)" "$(median "$d/plain.csv" split)"
check "  # host: the host's name" grep -qx "# host: $(hostname)" "$d/plain.csv"
check "  # libc: glibc VERSION" grep -qxE '# libc: glibc [0-9]+\.[0-9]+.*' "$d/plain.csv"
check "  # libraries: libstdc++'s first" grep -qE '^# libraries: libstdc\+\+ [0-9]+ \([0-9]{8}\)' "$d/plain.csv"

"$fl" run --variant negcount,glibc --workload pingpong --latency --rounds 1 --warmup 0 --no-probes \
  --no-floors --duration 0.002 --quiet --hash auto,global --as negcount=perf_delay_800 \
  --csv "$d/hash.csv" >/dev/null 2>&1
check "a --hash list's merged file keeps the # as: line" grep -q '^# as: negcount=perf_delay_800 ' "$d/hash.csv"
check "  and so does its latency side file (rows labelled negcount too)" \
  grep -q '^# as: negcount=perf_delay_800 ' "$d/hash.lat.csv"

# refused: exit 2, one line on stderr, nothing on stdout
dry=("$fl" run --dry-run --workload uncontended)
nv=(--variant negcount,split,glibc)
refused "refused (a design as the mutant)" "" "${dry[@]}" "${nv[@]}" --as negcount=split
refused "refused (an unknown mutant)" "" "${dry[@]}" "${nv[@]}" --as negcount=nosuch
refused "refused (a parent not chosen)" "" "${dry[@]}" --variant split,glibc --as negcount=perf_delay_800
refused "refused (a shipped library)" "" "${dry[@]}" "${nv[@]}" --as glibc=perf_delay_800
refused "refused (a helper-run design)" "" "${dry[@]}" --variant negcount,musl-libc --as musl-libc=perf_delay_800
refused "refused (a C++ library)" "" "${dry[@]}" --variant negcount,cxx-gnu,cxx-llvm --as cxx-llvm=perf_delay_800
refused "refused (another design's mutant)" "" "${dry[@]}" "${nv[@]}" --as split=perf_delay_800
refused "refused (a mutant as the parent)" "" "${dry[@]}" --variant perf_delay_50,glibc --as perf_delay_50=perf_delay_800
refused "refused (no '=')" "" "${dry[@]}" "${nv[@]}" --as negcount
refused "refused (no parent)" "" "${dry[@]}" "${nv[@]}" --as =perf_delay_800
refused "refused (no mutant)" "" "${dry[@]}" "${nv[@]}" --as negcount=
refused "refused (a parent twice)" "" "${dry[@]}" "${nv[@]}" --as negcount=perf_delay_800,negcount=perf_resleep
refused "refused (a parent twice, two options)" "" "${dry[@]}" "${nv[@]}" --as negcount=perf_delay_800 --as negcount=perf_wake_all
refused "refused (a point the mutant would skip)" "" "${dry[@]}" --variant negcount,glibc --workload waitany --threads 4 \
  --as negcount=perf_delay_800

finish as
