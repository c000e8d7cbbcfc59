#!/usr/bin/env bash
# tests/test_fidelity.sh — fidelity, measured: glibc64, futexlab's
# re-implementation of glibc's sem_t, must look to the kernel like glibc's
# own sem_t (glibc) — futex syscalls per op by op code, wakes and threads
# woken per op, how waits ended — on uncontended, pingpong and pool T=4 K=1,
# within the noise of glibc against itself (scripts/fidelity says how).
# The negative control: futex2 (futex_wait/futex_wake syscalls, glibc's
# waits otherwise) must be told apart, so the comparison can fail.
# Usage: test_fidelity.sh path/to/futexlab path/to/scripts/fidelity
# Exit 77 (skipped) when the collector cannot load (not root, no BPF).
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 fid=$2
scratch tmp fidelity

"$fid" --futexlab "$fl" glibc64 glibc >"$tmp/g.out" 2>&1
rc=$?
cat "$tmp/g.out"
[ $rc = 77 ] && skip_test fidelity "$(grep SKIP "$tmp/g.out")"
[ $rc = 0 ] && ok "glibc64 matches glibc's sem_t within the noise" \
  || bad "glibc64 against glibc: exit $rc (0 expected)"
for w in uncontended pingpong pool; do
  grep -q "^$w " "$tmp/g.out" && ok "$w compared" || bad "$w missing from the table"
done

"$fid" --futexlab "$fl" --workloads uncontended,pingpong futex2 glibc >"$tmp/f.out" 2>&1
rc=$?
[ $rc = 1 ] && ok "futex2 told apart from glibc (exit 1)" \
  || { cat "$tmp/f.out"; bad "futex2 against glibc: exit $rc (1 expected)"; }
grep -q "f2_wait .*DIFFERS: op used by one side only" "$tmp/f.out" \
  && ok "the difference named: futex2's f2_wait, which glibc never calls" \
  || bad "f2_wait not named as the difference"

"$fid" --futexlab "$fl" glibc64 >/dev/null 2>"$tmp/e.err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/e.err")" = 1 ] && ok "bad input: one line, exit 2" \
  || bad "bad input: $(cat "$tmp/e.err")"

finish -s fidelity
