#!/usr/bin/env bash
# tests/test_alternate.sh — scripts/alternate on `.` (this build's binary:
# no worktree built here): two rounds of a tiny run, each CSV named by
# round, with rows and the machine's handoffs in its header, the summary
# printed per run; a run that fails stops it with the run's status; bad
# input: one line, exit 2.
# Usage: test_alternate.sh path/to/futexlab path/to/scripts/alternate
set -u
. "$(dirname "$0")/lib.sh"
export FUTEXLAB=$1
alt=$2
scratch d alternate

"$alt" -n 2 -o "$d" -t t . -- run --workload uncontended --rounds 2 --duration 0.002 \
  --variant negcount --no-floors --no-probes >"$d/out" 2>"$d/err"
check "two rounds: status 0" [ $? -eq 0 ]
check "round 1's CSV" [ -s "$d/t-tree-1.csv" ]
check "round 2's CSV" [ -s "$d/t-tree-2.csv" ]
check "no third round" [ ! -e "$d/t-tree-3.csv" ]
check "rows in each" bash -c "grep -q '^negcount,' '$d/t-tree-1.csv' && grep -q '^negcount,' '$d/t-tree-2.csv'"
check "the handoffs in each header, printed" \
  [ "$(grep -c '^# handoffs: spin round trip' "$d/out")" -eq 2 ]
check "a summary per run" [ "$(grep -c '^summary:' "$d/out")" -eq 2 ]
check "round and name per run" grep -q "^== round 2, tree: $d/t-tree-2.csv" "$d/out"

"$alt" -n 1 -o "$d" . -- run --workload nosuch >"$d/out" 2>"$d/err"
st=$?
check "a failing run: its status (2)" [ $st -eq 2 ]
check "a failing run: said" grep -q "tree's run failed (status 2)" "$d/err"

refused "bad input, -n 0" "" "$alt" -n 0 . -- run
refused "bad input, -n x" "" "$alt" -n x . -- run
refused "bad input, no revision" "" "$alt" -- run
refused "bad input, no command" "" "$alt" .
refused "bad input, a revision twice" "" "$alt" . . -- run
refused "bad input, not a revision" "" "$alt" no-such-revision-xyz -- run
refused "bad input, an unknown option" "" "$alt" -q . -- run
refused "bad input, --csv given" "" "$alt" . -- run --csv x.csv
refused "bad input, a tag with a slash" "" "$alt" -t a/b . -- run

finish alternate
