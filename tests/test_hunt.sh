#!/usr/bin/env bash
# tests/test_hunt.sh — `futexlab hunt`, the lost-wakeup hunter:
#   test_hunt.sh FUTEXLAB HUNT_MUTANTS
# - bad input: one line on stderr, nothing on stdout, exit 2;
# - a mutant that drops a wake (tests/mutants: negcount waking one when a
#   post(2) owes two) is found — a LOST WAKEUP verdict, a `stranded` CSV row
#   with the detector's evidence — and its unmutated control is clean
#   (HUNT_MUTANTS: the same command over the mutants, tests/hunt_mutants.c);
# - correct designs in a short hunt: clean, and the in-library-text
#   preemption landed in library text (hits > 0) for posix (glibc's code)
#   and for a futexlab design (negcount), in process, and for musl-libc in
#   its helper when it is built;
# - Ctrl-C: exit 130, the table of what finished, the CSV keeps its rows.
set -u
fx=$1 hm=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME CONDITION
	if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
rows() { grep -v '^#' "$1" | tail -n +2 | wc -l; }
# the in-text hits of a table line: "VARIANT PATTERN reps ops seconds HITS/SIGNALS ..."
hits() { awk -v v="$2" -v p="$3" '$1 == v && $2 == p { split($6, a, "/"); print a[1] + 0 }' "$1"; }

for args in "--variant nosuch" "--pattern nosuch" "--seconds 0" "--seconds x" "--rep" \
	    "--rep 0" "--text dso" "--text span:libc.so.6" "--stranded-ms 0" "--spin-us -1" \
	    "--interval-us 5" "stray" "--variant posix,posix" "--pattern herd,,steal"; do
	$fx hunt $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "bad input '$args': exit 2, one line" \
		'[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]'
done

# The mutant: steal's post(2) waves owe two wakes, the mutant makes one.
$hm --variant mut_neg_wake_one,ctl_negcount --pattern steal,herd --seconds 1 \
	--csv "$tmp/m.csv" >"$tmp/m.out" 2>&1
rc=$?
check "mutant hunt: exit 0 (a finding is a result)" '[ $rc -eq 0 ]'
check "mutant: LOST WAKEUP verdict" 'grep -q "^mut_neg_wake_one: LOST WAKEUP" "$tmp/m.out"'
check "mutant: a stranded row with the detector's evidence" \
	'grep -qE "^mut_neg_wake_one,(herd|steal),[0-9]*,[0-9]*,[0-9]*,0,0,[1-9][0-9]*,[1-9][0-9]*,stranded,\"lost wakeup: semaphore #" "$tmp/m.csv"'
check "mutant: first evidence in the table" \
	'grep -qE "^mut_neg_wake_one +(herd|steal) .*rep [0-9]+, after [0-9]+ ops: lost wakeup" "$tmp/m.out"'
check "control: clean" 'grep -q "^ctl_negcount: clean" "$tmp/m.out"'
[ $fail -eq 0 ] || cat "$tmp/m.out"

# Correct designs, a short hunt.
$fx hunt --variant posix,negcount,musl-libc --seconds 0.5 --csv "$tmp/c.csv" >"$tmp/c.out" 2>&1
rc=$?
check "short hunt: exit 0" '[ $rc -eq 0 ]'
check "posix: clean" 'grep -q "^posix: clean" "$tmp/c.out"'
check "negcount: clean" 'grep -q "^negcount: clean" "$tmp/c.out"'
check "no stranded row" '! grep -q ",stranded,\"" "$tmp/c.csv"'
check "a CSV row per rep (>= 1 per cell)" '[ "$(rows "$tmp/c.csv")" -ge 12 ]'
check "posix preempt: signals landed in glibc's sem code" \
	'[ "$(hits "$tmp/c.out" posix preempt)" -gt 0 ]'
check "negcount preempt: signals landed in negcount's code" \
	'[ "$(hits "$tmp/c.out" negcount preempt)" -gt 0 ]'
if grep -qE "^musl-libc +herd +- " "$tmp/c.out"; then
	echo "skip musl-libc (not built: $(grep -m1 -E '^musl-libc ' "$tmp/c.out" | sed 's/.*skipped: //'))"
else
	check "musl-libc: clean" 'grep -q "^musl-libc: clean" "$tmp/c.out"'
	check "musl-libc preempt: signals landed in musl's sem code, in its helper" \
		'[ "$(hits "$tmp/c.out" musl-libc preempt)" -gt 0 ]'
fi
[ $fail -eq 0 ] || cat "$tmp/c.out"

# Ctrl-C keeps what finished.
$fx hunt --variant posix --pattern steal --seconds 60 --csv "$tmp/i.csv" >"$tmp/i.out" 2>&1 &
pid=$!
sleep 1.6
kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C: exit 130" '[ $rc -eq 130 ]'
check "Ctrl-C: the table and INTERRUPTED" \
	'grep -q "^posix        steal" "$tmp/i.out" && grep -q "hunt INTERRUPTED" "$tmp/i.out"'
check "Ctrl-C: the finished reps' rows kept" '[ "$(rows "$tmp/i.csv")" -ge 2 ]'

exit $fail
