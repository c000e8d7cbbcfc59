#!/usr/bin/env bash
# tests/test_summary.sh — the summary every table-printing command ends with
# (report/summary.h), on a real quick-preset run: results/reference/
# quick-evidence.csv (a `scripts/bench` run, its revision and machine in
# its first lines: 10 points, 22 entries, 3 probed rounds). Its matrix must say what `compare
# --tsv` says (ratio and verdict per cell), its overall must be the geometric
# mean of those ratios (recomputed here), its winner the smallest ratio; it
# fits one screen; --detail and the .txt beside the CSV hold the full tables;
# bad input is one line and exit 2.
# Usage: test_summary.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
csv=$(dirname "$0")/../results/reference/quick-evidence.csv
scratch tmp summary

"$fl" compare --tsv "$csv" >"$tmp/t.tsv" || { echo "FAIL compare --tsv (rc $?)"; exit 1; }
"$fl" compare "$csv" >"$tmp/s.out" || { echo "FAIL compare (rc $?)"; exit 1; }
sed -n '/^summary: /,$p' "$tmp/s.out" >"$tmp/sum"

check "compare FILE ends with the summary, the pointer line last" \
  test "$(tail -1 "$tmp/s.out")" = "full tables: --detail"
check "the summary of a quick-preset run fits 50 lines ($(wc -l <"$tmp/sum"))" \
  test "$(wc -l <"$tmp/sum")" -le 50
check "and 120 columns" \
  test "$(awk '{ n = length($0) } n > m { m = n } END { print m + 0 }' "$tmp/sum")" -le 120
check "without --detail no full table: no evidence block, no control line" \
  test "$(grep -c -e '^  evidence, per' -e '^control (' "$tmp/s.out")" -eq 0

# The matrix (entries as rows: 22 entries > 10 points) against the TSV: every
# cell's ratio within its printed precision, its mark the TSV's verdict
# ('r' at a point in two regimes, where the table's verdict is none).
python3 - "$tmp/t.tsv" "$tmp/sum" >"$tmp/py.out" 2>&1 <<'PY'
import csv, math, re, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
points = []
for r in rows:
    if r['point'] not in points:
        points.append(r['point'])
tsv = {(r['point'], r['variant']): r for r in rows}
lines = open(sys.argv[2]).read().split('\n')
regimes = {int(m.group(1)) for l in lines for m in [re.match(r'^ +(\d+) .*two regimes', l)] if m}
long = lambda s: s.replace('@a', '@adaptive')
marks = {'faster': '+', 'slower': '-', '~': '~', '?': '?'}
bad = cells = marked = 0
matrix = {}
for l in lines[3:]:
    if not l.startswith('  ') or l.startswith('  +') or l.startswith('  c:'):
        break
    f = l.split()
    label, vals = long(f[0]), f[1:1 + len(points)]
    matrix[label] = vals
    ov = f[1 + len(points)]
    logs = []
    for p, v in zip(points, vals):
        r = tsv.get((p, label))
        if v == '.':
            ok = r is None
        elif v in ('skip', 'ERR', '-'):
            ok = r is not None and r['ratio'] == ''
        else:
            cpu = v.endswith('c')  # the CPU mark: more CPU than glibc by the table's rule
            v = v[:-1] if cpu else v
            num, mark = float(v[:-1]), v[-1]
            want = float(r['ratio'])
            digits = len(v[:-1].split('.')[1]) if '.' in v else 0
            ok = abs(num - want) <= 0.5 * 10 ** -digits + 1e-4
            i = points.index(p) + 1
            ok &= mark == ('r' if i in regimes else marks[r['verdict']])
            # its CPU ratio above 1 beyond its interval, by 1.10 or more; the control's
            # CPU band can only take a mark away: where the ratio is inside it
            more = r['cpu_ratio'] != '' and float(r['cpu_ratio']) >= 1.10 and float(r['cpu_ratio_lo']) > 1
            ctl = tsv.get((p, 'glibc#2'))
            banded = ctl is not None and ctl['cpu_ratio_hi'] != '' and r['cpu_ratio'] != '' \
                and float(r['cpu_ratio']) <= float(ctl['cpu_ratio_hi'])
            ok &= cpu == more or (more and not cpu and banded)
            marked += cpu
            if i not in regimes:
                logs.append(math.log(want))
        cells += 1
        if not ok:
            bad += 1
            print(f'cell {label} at {p}: summary {v}, tsv {r and (r["ratio"], r["verdict"])}')
    if logs:  # the overall: the geometric mean over the usable points, recomputed
        g = math.exp(sum(logs) / len(logs))
        d = len(ov.split('.')[1]) if '.' in ov else 0
        if abs(float(ov) - g) > 0.5 * 10 ** -d + 1e-3 * g or f"({len(logs)})" not in l:
            bad += 1
            print(f'overall {label}: summary {ov} over {l.split("(")[-1]}, recomputed {g:.4f} over {len(logs)}')
# The winner: the smallest ratio at the point (the baseline at 1 a candidate,
# the control and the floors not).
won = 0
for l in lines[next(i for i, l in enumerate(lines) if l.startswith('fastest per point')):]:
    m = re.match(r'^ +(\d+) (.*?) {1,}(\S+) ([0-9.e-]+) \((\S+?)(, [0-9.]+x CPU)?\)( = ([^+]*?)( \+\d+)?)?(  .*)?$', l)
    if not m or int(m.group(1)) in regimes or 'two regimes' in l:
        continue
    p = points[int(m.group(1)) - 1]
    cand = [(float(r['ratio']) if r['ratio'] != 'baseline' and r['ratio'] != '1' else 1.0, v)
            for (q, v), r in tsv.items() if q == p and r['ratio'] != ''
            and not v.endswith('#2') and not v.startswith('floor-')]
    best = min(cand)
    if long(m.group(3)) != best[1] and abs(best[0] - float(m.group(4))) > 1e-3:
        bad += 1
        print(f'winner at {p}: summary {m.group(3)} {m.group(4)}, smallest {best}')
    # its own time: the TSV's median (ns per op, 3 significant digits)
    t = tsv[(p, long(m.group(3)))]
    unit = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}
    num, u = re.match(r'([0-9.]+)(\D+)', m.group(5)).groups()
    if abs(float(num) * unit[u] / float(t['median_ns']) - 1) > 0.01:
        bad += 1
        print(f'winner at {p}: time {m.group(5)}, median_ns {t["median_ns"]}')
    # the group: after the fastest, by ratio, none faster than it
    group = [long(g) for g in (m.group(8) or '').split(', ') if g]
    ratios = [float(tsv[(p, g)]['ratio']) if (p, g) in tsv and tsv[(p, g)]['ratio'] not in ('', 'baseline') else 1.0 for g in group]
    wr = float(t['ratio']) if t['ratio'] not in ('', 'baseline') else 1.0
    if ratios != sorted(ratios) or any(x < wr for x in ratios):
        bad += 1
        print(f'group at {p}: {group} {ratios}')
    won += 1
print(f'{cells} cells ({marked} with the CPU mark), {len(matrix)} entries, {won} winners, {bad} wrong')
sys.exit(1 if bad or cells < 200 or won != 8 or marked == 0 else 0)
PY
rc=$?
cat "$tmp/py.out"
check "every cell is the TSV's ratio and verdict, the overall its geometric mean, the winner its smallest ratio" \
  test "$rc" -eq 0
check "the winners' lines: the fastest, its own time, its group (a tie) and the why" \
  grep -qE '^ +6 prodcons T=4 K=4 wake=exact +cxx-llvm 0\.47 \(1\.31us\) = musl@a, .*  wakes/op 1\.890 -> 0\.004$' "$tmp/sum"
check "  its CPU when more than glibc's" \
  grep -qE '^ +9 timeouts T=4 wake=exact +cxx-gnu 0\.89 \(31\.8us, 2\.7x CPU\) = ' "$tmp/sum"
check "  a why only in the direction of the result: none where no count fell" \
  grep -qE '^ +1 uncontended T=1 wake=exact +glibc64 0\.92 \(16ns\) = .*  no count fell$' "$tmp/sum"
# The why names a count that fell (the result's direction), on this run and
# on results/reference/bench.csv, whose most different count at barrier
# wake=all rose (EAGAIN/op 0.095 -> 0.581: spinning waiters) as it got faster.
rose() { # the winners' lines whose why names a count that rose
  sed -n '/^fastest per point/,$p' | grep -oE '  [a-zA-Z0-9/ -]+ [0-9.e+-]+(us|ns|ms)? -> [0-9.e+-]+(us|ns|ms)?$' |
    awk '{ a = $(NF-2); b = $NF; u["ns"] = 1; u["us"] = 1e3; u["ms"] = 1e6
           if (match(a, /[a-z]+$/)) { ua = substr(a, RSTART); a = substr(a, 1, RSTART - 1) * u[ua] }
           if (match(b, /[a-z]+$/)) { ub = substr(b, RSTART); b = substr(b, 1, RSTART - 1) * u[ub] }
           if (b + 0 >= a + 0) print }'
}
"$fl" compare "$(dirname "$0")/../results/reference/bench.csv" >"$tmp/b.out"
check "every why names a count that fell (this run: $(grep -c ' -> ' "$tmp/sum") whys)" \
  test -z "$(rose <"$tmp/sum")"
check "  and bench.csv's (barrier wake=all: not its EAGAINs, which rose)" \
  test -z "$(rose <"$tmp/b.out")" -a "$(grep -cE '^ +8 barrier T=4 wake=all .* -> ' "$tmp/b.out")" = 1
check "the points numbered as the CSV's # point lines (1 uncontended, 10 oversub)" \
  test "$(grep -c -e '^ *1 uncontended' -e '^ *10 oversub' "$tmp/sum")" = 2
check "distinct column heads (barr4e, barr4a)" \
  test "$(sed -n 3p "$tmp/sum" | tr -s ' ' '\n' | sort | uniq -d | wc -l)" = 0
check "the regimes points have no winner" \
  test "$(grep -c 'two regimes: no winner' "$tmp/sum")" -eq 2
check "the libraries line ends the summary" \
  grep -q '^vs the libraries: a futexlab entry at or below the fastest library in time and CPU at [0-9] of 8 points, faster at [0-9]$' "$tmp/sum"

# --detail: the full tables, then the same summary.
"$fl" compare --detail "$csv" >"$tmp/d.out"
check "--detail prints the full tables (10 evidence blocks, the control's line)" \
  test "$(grep -c '^  evidence, per' "$tmp/d.out")" -eq 10 -a "$(grep -c '^control (' "$tmp/d.out")" -eq 1
check "--detail ends with the same summary" \
  cmp -s <(sed -n '/^summary: /,$p' "$tmp/d.out" | sed '$d') <(sed '$d' "$tmp/sum")

# A run: the summary on the screen, the full tables in X.txt beside X.csv.
"$fl" run --variant negcount,glibc --workload uncontended --ops 2000 --rounds 6 --warmup 0 \
  --no-probes --quiet --csv "$tmp/r.csv" >"$tmp/r.out" 2>&1
check "run: the .txt beside the CSV holds the full table and the summary" \
  grep -q '^  evidence, per' "$tmp/r.txt"
check "run: its full table is compare --detail's of the CSV" \
  cmp -s <(sed -n '/^machine: /,$p' "$tmp/r.txt") <("$fl" compare --detail "$tmp/r.csv" | sed -n '/^machine: /,$p' | sed '$d')
check "run: the screen ends with the summary and the pointer line" \
  test "$(tail -1 "$tmp/r.out")" = "full tables: $tmp/r.txt (or --detail)"
check "run: no full table on the screen without --detail" \
  test "$(grep -c '^  evidence, per' "$tmp/r.out")" -eq 0

# Bad input: one line on stderr, exit 2.
: >"$tmp/empty.csv"
printf 'a,b,c\n1,2,3\n' >"$tmp/other.csv"
for f in /nonexistent/x.csv "$tmp/empty.csv" "$tmp/other.csv"; do
  "$fl" compare "$f" >"$tmp/o" 2>"$tmp/e"; rc=$?
  check "compare $(basename "$f"): exit 2, one line" test "$rc" -eq 2 -a "$(wc -l <"$tmp/e")" -eq 1 -a ! -s "$tmp/o"
done

finish summary
