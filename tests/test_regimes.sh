#!/usr/bin/env bash
# tests/test_regimes.sh — a point whose baseline runs in two states, end to
# end through `futexlab compare FILE` (model/regimes.h; the rule's rates
# are test_regimes.c's): a crafted run of 16 rounds at two points. pool T=2:
# glibc in state A (200+r ns, 0.02 csw/op) in rounds 0-8 and B (2300+10r ns,
# 1.01 csw/op) in 9-15, glibc#2 in the same state each round (+-1 ns),
# negcount 0.8x glibc in A and 1.2x in B. pool T=4: one state, negcount
# 0.8x. The "vs the libraries" line: not judged at pool T=2.
# Usage: test_regimes.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch d regimes
for r in $(seq 0 15); do
  if [ "$r" -lt 9 ]; then g=$((200 + r)) w=20; else g=$((2300 + 10 * r)) w=1010; fi
  h=$((g + 1 - 2 * (r % 2))) n=$((g * (r < 9 ? 8 : 12) / 10))
  p="threads=2 round=$r csw_vol=$w" q="threads=4 round=$r cpu_user_ns=500000 csw_vol=500"
  echo "variant=glibc $p ns_per_op=$g.0 slot=0 cpu_user_ns=$((g * 1000))"
  echo "variant=glibc#2 $p ns_per_op=$h.0 slot=1 cpu_user_ns=$((h * 1000))"
  echo "variant=negcount $p ns_per_op=$n.0 slot=2 cpu_user_ns=$((n * 1000))"
  echo "variant=glibc $q ns_per_op=$((500 + r)).0 slot=0"
  echo "variant=glibc#2 $q ns_per_op=$((500 + r + r % 2)).0 slot=1"
  echo "variant=negcount $q ns_per_op=$((400 + r)).0 slot=2"
done | run_csv >"$d/r.csv"
out=$("$fl" compare --detail "$d/r.csv" 2>&1)
rc=$?
check "compare of a two-state run: exit 0" test "$rc" -eq 0
t2=$(awk '/^pool T=2 /{on=1} /^pool T=4 /{on=0} on' <<<"$out")
t4=$(awk '/^pool T=4 /{on=1} /^control /{on=0} on' <<<"$out")
check "the states named, with the baseline's medians in each" grep -qF \
  '  regimes: glibc runs in 2 states: A 9 of 16 rounds (204ns/op, 0.02 csw/op), B 7 of 16 rounds (2.42us/op, 1.01 csw/op)' <<<"$t2"
below() { [ "$(grep -cE '^  (negcount|glibc#2) .* regimes \(below\)$' <<<"$t2")" -eq 2 ]; }
check "its main rows give no one-median verdict: 'regimes (below)'" below
check "negcount: faster in A (0.80), slower in B (1.200), each with its rounds" \
  grep -qE '^  negcount +A  9/16  0\.(79|80)[0-9] \[[0-9., ]+\] +faster +B  7/16  1\.200 \[[0-9., ]+\] +slower$' <<<"$t2"
check "the control: ~ in each state" \
  grep -qE '^  glibc#2 +A  9/16 .* ~ +B  7/16 .* ~$' <<<"$t2"
one() { ! grep -q 'regimes' <<<"$t4" && grep -qE '^  negcount .* faster$' <<<"$t4"; }
check "a one-state point: no regimes block, its verdict as before" one
check "vs the libraries at the two-state point: not judged" \
  grep -qx '  vs the libraries: two regimes: not judged' <<<"$t2"
check "vs the libraries at the one-state point: judged; the two-state point left out of the tally" \
  grep -q '^vs the libraries: .* at 1 of 1 points, faster at [01]$' <<<"$out"
check "the count at the end" grep -q '^regimes: 1 of 2 points run in two states$' <<<"$out"
[ "$fail" -eq 0 ] || printf '%s\n' "$out"
finish regimes-cli
