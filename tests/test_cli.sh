#!/usr/bin/env bash
# tests/test_cli.sh — bad input gets one line on stderr and exit status 2;
# good input works. Usage: test_cli.sh path/to/futexlab
set -u
fl=$1
pass=0 fail=0

# expect_usage "description" args...: exit 2, exactly one stderr line, no stdout
expect_usage() {
  local what=$1; shift
  local out err rc
  out=$("$fl" "$@" 2>/tmp/fl_cli_err.$$); rc=$?
  err=$(cat /tmp/fl_cli_err.$$)
  local lines; lines=$(printf '%s' "$err" | grep -c '')
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ -z "$out" ]; then
    pass=$((pass+1)); echo "ok   $what: $err"
  else
    fail=$((fail+1)); echo "FAIL $what: rc=$rc lines=$lines stdout='$out' stderr='$err'"
  fi
}
expect_ok() {
  local what=$1; shift
  if "$fl" "$@" >/tmp/fl_cli_out.$$ 2>&1; then
    pass=$((pass+1)); echo "ok   $what"
  else
    fail=$((fail+1)); echo "FAIL $what: rc=$?"; cat /tmp/fl_cli_out.$$
  fi
}

expect_usage "no command"
expect_usage "unknown command" frobnicate
expect_usage "unknown variant" run --variant nosuch --workload uncontended
expect_usage "unknown workload" run --variant negcount --workload nosuch
expect_usage "unknown flag" run --bogus
expect_usage "missing value" run --threads
expect_usage "non-numeric threads" run --threads four
expect_usage "zero threads" run --threads 0
expect_usage "too many threads" run --threads 100000
expect_usage "negative tokens" run --tokens -1
expect_usage "trailing garbage" run --reps 3x
expect_usage "bad duration" run --duration abc
expect_usage "zero duration" run --duration 0
expect_usage "duration and ops" run --duration 1 --ops 10
expect_usage "empty list item" run --variant negcount,,split
expect_usage "bad wake mode" run --wake some
expect_usage "stray argument" run extra
expect_usage "list argument" list extra

expect_ok "help" --help
expect_ok "run help" run --help
expect_ok "list" list
csv=$(mktemp -d)/r.csv
expect_ok "tiny run with CSV" run --variant negcount,posix --workload uncontended,pool \
  --ops 2000 --reps 2 --threads 2 --tokens 1 --csv "$csv" --quiet
rows=$(grep -vc '^#' "$csv")
# header + 2 variants x 2 workloads x 2 reps + 2 floors x 1 workload x 2 reps
if [ "$rows" -eq 13 ]; then pass=$((pass+1)); echo "ok   csv rows"; else
  fail=$((fail+1)); echo "FAIL csv rows: $rows"; cat "$csv"; fi
if grep -q '^# kernel: ' "$csv" && grep -q '^variant,workload,' "$csv"; then
  pass=$((pass+1)); echo "ok   csv metadata"; else fail=$((fail+1)); echo "FAIL csv metadata"; fi
if ! ls "$(dirname "$csv")" | grep -q tmp; then pass=$((pass+1)); echo "ok   no temp file left"; else
  fail=$((fail+1)); echo "FAIL temp file left"; fi
rm -rf "$(dirname "$csv")" /tmp/fl_cli_err.$$ /tmp/fl_cli_out.$$

# --hash (futex hash modes, each in its own process) and --spin
expect_usage "hash not a power of two" run --hash private:3
expect_usage "hash one slot" run --hash private:1
expect_usage "hash zero slots" run --hash private:0
expect_usage "hash no number" run --hash private:
expect_usage "hash unknown mode" run --hash immutable
expect_usage "hash empty item" run --hash global,,auto
expect_usage "hash twice" run --hash global,private:16,global
expect_usage "hash bad item in list" run --hash global,private:12
expect_usage "negative spin" run --spin -1
expect_usage "spin too large" run --spin 2000000
expect_usage "spin not a number" run --spin lots
hdir=$(mktemp -d)
hcsv=$hdir/h.csv
expect_ok "run over --hash global,private:16" run --variant negcount,portable \
  --workload uncontended,pingpong --ops 500 --reps 2 --no-floors --spin 7 \
  --hash global,private:16 --csv "$hcsv" --quiet
# 2 modes x 2 variants x 2 workloads x 2 reps; columns found by name
# col FILE NAME VALUE: rows whose column NAME equals VALUE (quotes stripped)
col() { grep -v '^#' "$1" | awk -F, -v n="$2" -v v="$3" '
  NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
  { x = $c; gsub(/"/, "", x); if (x == v) k++ } END { print k + 0 }'; }
if grep -q '^variant,.*,status,note,hash,spin' "$hcsv" &&
   [ "$(col "$hcsv" hash global)" -eq 8 ] && [ "$(col "$hcsv" spin 7)" -eq 16 ] &&
   [ "$(col "$hcsv" hash private:16)" -eq 8 ] &&
   [ "$(grep -vc '^#' "$hcsv")" -eq 17 ]; then
  if grep -q ',skipped,' "$hcsv"; then
    # a kernel without PR_FUTEX_HASH: every point skipped, with the reason
    if [ "$(grep -c ',skipped,"hash .*PR_FUTEX_HASH' "$hcsv")" -eq 16 ]; then
      pass=$((pass+1)); echo "ok   hash rows (skipped: $(grep -m1 -o '"hash [^"]*"' "$hcsv"))"
    else fail=$((fail+1)); echo "FAIL hash rows skipped without the reason"; cat "$hcsv"; fi
  elif [ "$(col "$hcsv" status ok)" -eq 16 ]; then
    pass=$((pass+1)); echo "ok   hash rows: 8 global, 8 private:16, spin 7"
  else fail=$((fail+1)); echo "FAIL hash rows not ok"; cat "$hcsv"; fi
else
  fail=$((fail+1)); echo "FAIL hash csv"; cat "$hcsv"
fi
if [ "$(ls -A "$hdir")" = h.csv ]; then pass=$((pass+1)); echo "ok   no per-mode file left"; else
  fail=$((fail+1)); echo "FAIL per-mode files left: $(ls -A "$hdir")"; fi
rm -rf "$hdir"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
