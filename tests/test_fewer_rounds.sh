#!/usr/bin/env bash
# tests/test_fewer_rounds.sh — scripts/fewer-rounds on two kept quick
# sweeps of unchanged code (results/gate/quiet/n-1, n-2):
#   test_fewer_rounds.sh FUTEXLAB SCRIPT TOP
# - at the preset's own 14 rounds every verdict is the whole run's and the
#   coverage 98.7 % (the order-statistics rule of stats/stats.h);
# - at 9 rounds the coverage is 96.1 %, fewer verdicts agree, and the
#   interval and agreement figures are numbers, not blanks;
# - the time is the dry-run's, smaller at fewer rounds;
# - bad input: one line, exit 2.
set -u
. "$(dirname "$0")/lib.sh"
export FUTEXLAB=$1
fr=$2 top=$3
runs=("$top/results/gate/quiet/n-1.csv" "$top/results/gate/quiet/n-2.csv")
out=$("$fr" --rounds 14,9 "${runs[@]}" 2>&1); rc=$?
echo "$out"
check "exit 0, a line per number of rounds" eval '[ $rc -eq 0 ] && [ "$(grep -c "rounds: about" <<<"$out")" -eq 2 ]'
l14=$(grep "^14 rounds" <<<"$out") l9=$(grep "^9 rounds" <<<"$out")
check "14 rounds: every verdict the whole run's, coverage 98.7%" \
	eval 'grep -q "at 98.7%, verdicts as with every round 100.0%" <<<"$l14"'
check "9 rounds: coverage 96.1%, fewer verdicts as with every round" \
	eval 'grep -qE "at 96.1%, verdicts as with every round (9[0-9]|[0-8][0-9])\.[0-9]%" <<<"$l9"'
s14=$(sed -E 's/.*about ([0-9]+) s.*/\1/' <<<"$l14") s9=$(sed -E 's/.*about ([0-9]+) s.*/\1/' <<<"$l9")
check "the dry-run's time: 9 rounds take less ($s9 s against $s14 s)" eval '[ "$s9" -lt "$s14" ]'
check "A/A: pairs of the two runs counted" eval 'grep -qE "opposite [0-9]+ of [1-9][0-9]+$" <<<"$l9"'
refusal "fewer-rounds:" "$fr" "${runs[0]}"
check "one run: refused (an A/A needs two)" eval '[ $rc -eq 2 ]'
refusal "fewer-rounds:" "$fr" --rounds 15 "${runs[@]}"
check "more rounds than the run has: refused" eval '[ $rc -eq 2 ] && grep -q "fewer than 15" <<<"$err"'
refusal "fewer-rounds:" "$fr" --rounds x "${runs[@]}"
check "--rounds not numbers: refused" eval '[ $rc -eq 2 ]'
finish fewer-rounds
