#!/usr/bin/env bash
# tests/test_resolution.sh — the runner's probed rounds (--probe-rounds;
# without it R/3 of them, 1..3; --probes every round, the table's note),
# stretched reps (--min-blocking) and bought rounds (--target-res,
# --res-budget): bad input is one line and exit 2; the CSV says which rows
# were probed and holds the counts there only; a point whose reps hold too
# few blocking ops is stretched; rounds go to a point above the target and
# stop at the budget, none to a point under it.
# Usage: test_resolution.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
cost=$(cd "$(dirname "$0")/.." && pwd)/scripts/probe-cost
scratch tmp resolution
# py FILE EXPR: EXPR evaluated with rows (the CSV's dicts) and meta (its '#' lines)
py() { python3 -c '
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
meta = [l[2:] for l in lines if l.startswith("#")]
rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
print(eval(sys.argv[2]))' "$@"; }

refused "a target with no budget" "" with_detail run --workload pingpong --target-res 5
refused "a target under 0.5%" "" with_detail run --workload pingpong --target-res 0.1 --res-budget 10
refused "a target over 50%" "" with_detail run --workload pingpong --target-res 60 --res-budget 10
refused "a target that is not a number" "" with_detail run --workload pingpong --target-res 5x --res-budget 10
refused "a budget under 1 s" "" with_detail run --workload pingpong --res-budget 0.5
refused "a budget that is not a number" "" with_detail run --workload pingpong --res-budget soon
refused "a target without the control" "" with_detail run --workload pingpong --res-budget 10 --no-control
refused "probed rounds without the probes" "" with_detail run --workload pingpong --probe-rounds 2 --no-probes
refused "too many probed rounds" "" with_detail run --workload pingpong --probe-rounds 101
refused "an unknown preset names standard" "" with_detail sweep --preset nosuch

# The standard preset parses and plans (no run): its points and the budget.
if "$fl" sweep --preset standard --dry-run >"$tmp/dry" 2>&1 &&
   grep -q '^10 points, 1 + 10 rounds each (+ 3 probed), about 270 s' "$tmp/dry"; then
  ok "--preset standard: 10 points, 10 + 3 probed rounds, a 270 s budget"
else
  bad "--preset standard --dry-run"; tail -3 "$tmp/dry"
fi

# Probed rounds: 6 timed + 2 probed; rounds 3 and 7 probed (floor(r 2 / 8)
# steps up there), the others timed with the collector detached.
"$fl" run --detail --workload pingpong --variant negcount,glibc --no-floors --rounds 6 --probe-rounds 2 \
  --duration 0.005 --quiet --csv "$tmp/p.csv" >"$tmp/p.out" 2>&1
if grep -q '^# probes: off' "$tmp/p.csv"; then
  skip "probed rounds: the collector is not loaded here (not root, or no BPF)"
else
  got=$(py "$tmp/p.csv" "sorted({r['round'] for r in rows if r['probed'] == '1'}), \
all(r['futex_syscalls'] != '' for r in rows if r['probed'] == '1'), \
all(r['futex_syscalls'] == '' for r in rows if r['probed'] == '0'), \
len([r for r in rows if r['status'] == 'ok']), \
[m for m in meta if m.startswith('probes:')]")
  want="(['3', '7'], True, True, 24, ['probes: 2 probed rounds beside 6 timed (unprobed) rounds, spread through them'])"
  [ "$got" = "$want" ] && ok "probed rounds 3 and 7 of 8 carry the counts, the timed ones none" ||
    bad "probed rounds: $got (want $want)"
  # scripts/probe-cost reads the same run: one line for the point, its
  # three entries (6 timed and 2 probed reps each), a ratio
  pc=$("$cost" "$tmp/p.csv" 2>&1)
  grep -qE '^pingpong T=2 K=0 wake=exact +3 +[0-9]+\.[0-9]{2} ' <<<"$pc" &&
    ok "scripts/probe-cost: the point's probed/timed ratio over its 3 entries" ||
    bad "scripts/probe-cost: $pc"
fi
"$cost" "$tmp/nosuch.csv" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(grep -c '' "$tmp/err")" = 1 ] && ok "scripts/probe-cost: a missing file, one line, exit 2" ||
  bad "scripts/probe-cost on a missing file: rc $rc, $(cat "$tmp/err")"

# Without a preset or a probe option, run, sweep and exec time unprobed
# rounds and count in rounds of their own: R/3 of them, 1..3 (R = 10: 3;
# R = 2: 1), per entry; --probes probes every round and the table says its
# times carry the collector; --no-probes, none. (Before: every row probed.)
probe_mix() { # CSV: per entry, "timed+probed" counts of its ok rows, the table's note
  py "$1" "sorted({r['variant']: '%d+%d' % tuple(sum(1 for x in rows if x['variant'] == r['variant'] \
and x['status'] == 'ok' and x['probed'] == p) for p in '01') for r in rows}.items())"
}
for r in 10 2; do
  "$fl" sweep --detail --workload pingpong --variant negcount,glibc --no-floors --rounds $r --warmup 0 \
    --duration 0.003 --quiet --csv "$tmp/d$r.csv" >"$tmp/d$r.out" 2>&1
done
"$fl" sweep --detail --workload pingpong --variant negcount,glibc --no-floors --rounds 4 --warmup 0 \
  --duration 0.003 --probes --quiet --csv "$tmp/e.csv" >"$tmp/e.out" 2>&1
"$fl" sweep --detail --workload pingpong --variant negcount,glibc --no-floors --rounds 4 --warmup 0 \
  --duration 0.003 --no-probes --quiet --csv "$tmp/o.csv" >"$tmp/o.out" 2>&1
note='^probed: every round (as with --probes): the times carry the collector.s tax'
if grep -q '^# probes: off' "$tmp/d10.csv"; then
  skip "the default probed rounds: the collector is not loaded here (not root, or no BPF)"
else
  got="$(probe_mix "$tmp/d10.csv") $(probe_mix "$tmp/d2.csv") $(grep -c "$note" "$tmp/d10.out")"
  want="[('glibc', '10+3'), ('glibc#2', '10+3'), ('negcount', '10+3')] [('glibc', '2+1'), ('glibc#2', '2+1'), ('negcount', '2+1')] 0"
  [ "$got" = "$want" ] && ok "a plain sweep: 10 timed + 3 probed rows an entry (--rounds 2: 2 + 1), no note" ||
    bad "a plain sweep: $got (want $want)"
  got="$(probe_mix "$tmp/e.csv") $(grep -c "$note" "$tmp/e.out")"
  want="[('glibc', '0+4'), ('glibc#2', '0+4'), ('negcount', '0+4')] 1"
  [ "$got" = "$want" ] && ok "--probes: every row probed, the table says the times carry the collector" ||
    bad "--probes: $got (want $want)"
fi
got="$(probe_mix "$tmp/o.csv") $(grep -c "$note" "$tmp/o.out") $(grep -c '^# probes: off' "$tmp/o.csv")"
want="[('glibc', '4+0'), ('glibc#2', '4+0'), ('negcount', '4+0')] 0 1"
[ "$got" = "$want" ] && ok "--no-probes: no row probed, no note" || bad "--no-probes: $got (want $want)"
# compare reads the note from the file: the --probes one has it, the plain
# one not (where the collector loads: without it the --probes file has no
# probed row, and no note is due)
"$fl" compare --detail "$tmp/e.csv" >"$tmp/ce.out" 2>&1
"$fl" compare --detail "$tmp/o.csv" >"$tmp/co.out" 2>&1
if grep -q '^# probes: off' "$tmp/e.csv"; then
  skip "compare's note: the collector is not loaded here (not root, or no BPF)"
else
  [ "$(grep -c "$note" "$tmp/ce.out")$(grep -c "$note" "$tmp/co.out")" = 10 ] &&
    ok "compare: the note on a file whose every row is probed, not on an unprobed one" ||
    bad "compare: the note $(grep -c "$note" "$tmp/ce.out") / $(grep -c "$note" "$tmp/co.out") times"
fi

# Stretched reps: pingpong at 1 ms a rep holds one batch of 256 round
# trips (two sleeps each: ~512 blocking ops), under the 8000 its workload
# asks: the reps become D x min(4, 8000 / M) long, M the median warm-up
# count the line reports, and the measured reps' timed sections at least
# that; without --min-blocking, no stretch.
"$fl" run --detail --workload pingpong --variant negcount,glibc --no-floors --rounds 3 --duration 0.001 \
  --min-blocking --no-probes --quiet --csv "$tmp/s.csv" >/dev/null 2>&1
"$fl" run --detail --workload pingpong --variant negcount,glibc --no-floors --rounds 3 --duration 0.001 \
  --no-probes --quiet --csv "$tmp/n.csv" >/dev/null 2>&1
s=$(py "$tmp/s.csv" "(lambda m: 'none' if not m else (lambda ms, b: \
'ok' if abs(ms - min(4, 8000 / b)) < 0.51 and sorted(int(r['elapsed_ns']) for r in rows \
if r['status'] == 'ok')[4] > 0.9e6 * ms else 'bad %s ms for %s' % (ms, b))(float(m[0].split('to ')[1].split(' ms')[0]), \
int(m[0].split('(')[2].split(' ')[0])))([x for x in meta if 'stretched' in x])")
n=$(py "$tmp/n.csv" "len([m for m in meta if 'stretched' in m])")
if [ "$s|$n" = "ok|0" ]; then
  ok "--min-blocking: 1 ms reps stretched to D x min(4, 8000 / M) and run so; not without it"
elif [ "$s" = none ] && [ "$n" = 0 ]; then
  skip "--min-blocking: the warm-up reps held 8000 blocking ops already (a slow machine)"
else
  bad "--min-blocking: $s / without: $n stretch lines"
fi

# Bought rounds. Under the target (uncontended's control is a few percent
# at 24 rounds — its interval [x(7), x(18)] stands six stretched reps at
# each end even when other tests load the machine —, the target 50%): no
# extra round. Over it (pool T=4, never +-0.5% at 6 rounds): extra rounds
# until the 4 s budget, no later.
"$fl" run --detail --workload uncontended --variant negcount,glibc --no-floors --rounds 24 --duration 0.002 \
  --target-res 50 --res-budget 10 --no-probes --quiet --csv "$tmp/u.csv" >/dev/null 2>&1
u=$(py "$tmp/u.csv" "[m for m in meta if m.startswith('resolution:')][0].split(': ', 1)[1].split(';')[0], \
max(int(r['round']) for r in rows)")
[ "$u" = "('target +-50.0%, budget 10 s: 0 extra rounds in 0 passes', 23)" ] &&
  ok "a point under the target gets no extra round" || bad "under the target: $u"
start=$(date +%s.%N)
"$fl" run --detail --workload pool --threads 4 --variant negcount,glibc --rounds 6 --duration 0.01 \
  --target-res 0.5 --res-budget 4 --no-probes --quiet --csv "$tmp/b.csv" >/dev/null 2>&1
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
b=$(py "$tmp/b.csv" "len({r['round'] for r in rows if r['variant'] == 'glibc#2'}), \
[m for m in meta if m.startswith('point 1 ') and 'timed rounds' in m][0]")
rounds=$(py "$tmp/b.csv" "len({r['round'] for r in rows if r['variant'] == 'glibc#2'})")
# 6 rounds take ~0.3 s: 4 s buys dozens, up to the cap (8 x 6 = 48)
if [ "$rounds" -gt 12 ] && [ "$rounds" -le 48 ] && awk -v t="$took" 'BEGIN { exit !(t < 4 + 3) }'; then
  ok "a point over the target: $rounds timed rounds in ${took} s (budget 4 s): $b"
else
  bad "over the target: $rounds rounds in ${took} s: $b"
fi

finish -s resolution
