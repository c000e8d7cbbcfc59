#!/usr/bin/env bash
# tests/test_probes_cli.sh — the probes inside `futexlab run`: CSV columns
# with exact figures, --no-probes, an unprivileged run (one line, run goes
# on, empty columns), --bpftrace beside the run agreeing with the collector.
# Usage: test_probes_cli.sh path/to/futexlab path/to/probes-dir
# Exit 77 (skipped) when the collector cannot load here, or the build has none
# (--probes makes either say "probes off").
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 probes=$2
scratch tmp probes-cli
chmod 755 "$tmp"

[ "$(id -u)" = 0 ] || skip_test probes-cli "the probes need root"
out=$("$fl" run --detail --variant negcount --workload uncontended --rounds 1 --warmup 0 --ops 20000 --probes \
      --csv "$tmp/a.csv" 2>"$tmp/a.err")
if grep -q "probes off" "$tmp/a.err"; then
  skip_test probes-cli "$(cat "$tmp/a.err")"
fi

# 1. negcount uncontended never enters the kernel: 0 futex syscalls per op
v=$(csv_cols "$tmp/a.csv" variant=negcount workload=uncontended futex_per_op | head -1)
n=$(csv_cols "$tmp/a.csv" variant=negcount workload=uncontended futex_syscalls | head -1)
[ "$v" = "0.000" ] && [ "$n" = 0 ] && ok "negcount uncontended: futex_per_op=$v futex_syscalls=$n" \
  || bad "negcount uncontended: futex_per_op='$v' futex_syscalls='$n'"

# 2. floor-futex posts with one FUTEX_WAKE each and never waits (the token is
#    there): exactly one futex syscall per op, every wake useless
ops=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended ops | head -1)
wk=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended wake_calls | head -1)
wn=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended wake_none | head -1)
fx=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended fx_wake | head -1)
wp=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended wakes_per_post | head -1)
[ -n "$ops" ] && [ "$wk" = "$ops" ] && [ "$wn" = "$ops" ] && [ "$fx" = "$ops" ] && [ "$wp" = "1.000" ] \
  && ok "floor-futex: $ops ops = $wk wake calls = $wn useless, wakes_per_post=$wp" \
  || bad "floor-futex: ops=$ops wake_calls=$wk wake_none=$wn fx_wake=$fx wakes_per_post=$wp"

# 2b. the wake-to-run and resleep columns: floor-futex never waits, so no
#     sample (empty quantiles) and no resleep
wn=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended wake_to_run_n | head -1)
wp=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended wake_to_run_p50_ns | head -1)
rs=$(csv_cols "$tmp/a.csv" variant=floor-futex workload=uncontended resleeps | head -1)
[ "$wn" = 0 ] && [ -z "$wp" ] && [ "$rs" = 0 ] \
  && ok "floor-futex: wake_to_run_n=0, empty p50, resleeps=0" \
  || bad "floor-futex: wake_to_run_n='$wn' wake_to_run_p50_ns='$wp' resleeps='$rs'"
#     pingpong sleeps on every half trip: samples, at most one per wait, p50 <= p99
"$fl" run --detail --variant negcount --workload pingpong --rounds 1 --warmup 0 --ops 2000 --no-floors --quiet \
  --probes --csv "$tmp/p.csv" >/dev/null 2>"$tmp/p.err"
wn=$(csv_cols "$tmp/p.csv" variant=negcount workload=pingpong wake_to_run_n | head -1)
wc=$(csv_cols "$tmp/p.csv" variant=negcount workload=pingpong wait_calls | head -1)
p50=$(csv_cols "$tmp/p.csv" variant=negcount workload=pingpong wake_to_run_p50_ns | head -1)
p99=$(csv_cols "$tmp/p.csv" variant=negcount workload=pingpong wake_to_run_p99_ns | head -1)
[ -n "$wn" ] && [ "$wn" -gt 0 ] && [ "$wn" -le "$wc" ] && [ "$p50" -gt 0 ] && [ "$p50" -le "$p99" ] \
  && ok "pingpong: $wn wake-to-run samples for $wc waits, p50 $p50 ns, p99 $p99 ns" \
  || bad "pingpong: wake_to_run_n='$wn' wait_calls='$wc' p50='$p50' p99='$p99' ($(cat "$tmp/p.err"))"

# 3. --no-probes: no line, empty probe columns
"$fl" run --detail --variant negcount --workload uncontended --rounds 1 --warmup 0 --ops 1000 --no-floors --quiet \
  --no-probes --csv "$tmp/b.csv" >/dev/null 2>"$tmp/b.err"
v=$(csv_cols "$tmp/b.csv" variant=negcount workload=uncontended futex_syscalls | head -1)
w=$(csv_cols "$tmp/b.csv" variant=negcount workload=uncontended wake_to_run_n | head -1)$(csv_cols "$tmp/b.csv" variant=negcount workload=uncontended resleeps | head -1)
[ ! -s "$tmp/b.err" ] && [ -z "$v" ] && [ -z "$w" ] && ok "--no-probes: silent, empty columns" \
  || bad "--no-probes: stderr='$(cat "$tmp/b.err")' futex_syscalls='$v' wake_to_run_n+resleeps='$w'"

# 4. unprivileged: one line saying why, the run goes on, empty columns
if command -v setpriv >/dev/null; then
  chmod 777 "$tmp"
  setpriv --reuid 65534 --regid 65534 --clear-groups "$fl" run --detail --variant negcount \
    --workload uncontended --rounds 1 --ops 1000 --no-floors --quiet --csv "$tmp/c.csv" \
    >/dev/null 2>"$tmp/c.err"; rc=$?
  lines=$(grep -c '' "$tmp/c.err")
  v=$(csv_cols "$tmp/c.csv" variant=negcount workload=uncontended futex_syscalls | head -1)
  st=$(csv_cols "$tmp/c.csv" variant=negcount workload=uncontended status | head -1)
  [ $rc = 0 ] && [ "$lines" = 1 ] && grep -q "probes off: .*root" "$tmp/c.err" && [ -z "$v" ] && [ "$st" = ok ] \
    && ok "unprivileged: $(cat "$tmp/c.err")" \
    || bad "unprivileged: rc=$rc lines=$lines stderr='$(cat "$tmp/c.err")' futex_syscalls='$v' status='$st'"
  chmod 755 "$tmp"
else
  skip "unprivileged run (probes off, one line, empty columns): setpriv is not installed"
fi

# 5. --bpftrace beside the run: output stored beside the CSV, and the script
#    sees the same wakes as the collector (the harness makes no futex call
#    outside the reps in this run; --probes: the collector counts every
#    round, as bpftrace does — by default it would count only the probed one)
if command -v bpftrace >/dev/null; then
  "$fl" run --detail --variant negcount --workload uncontended --rounds 1 --warmup 0 --ops 5000 --probes \
    --bpftrace "$probes/futex-wakes.bt" --csv "$tmp/d.csv" >/dev/null 2>"$tmp/d.err"
  f="$tmp/d.futex-wakes.txt"
  ops=$(csv_cols "$tmp/d.csv" variant=floor-futex workload=uncontended wake_calls | head -1)
  bt=$(awk '/^@wake_calls:/ {print $2}' "$f" 2>/dev/null)
  [ -f "$f" ] && [ -n "$ops" ] && [ "$bt" = "$ops" ] \
    && ok "--bpftrace: $f has @wake_calls=$bt = the collector's $ops" \
    || { bad "--bpftrace: file=$f @wake_calls='$bt' collector='$ops'"; cat "$tmp/d.err" "$f" 2>/dev/null | head -20; }
else
  skip "--bpftrace beside the run agreeing with the collector: bpftrace is not installed"
fi

# 6. a missing script is bad input: exit 2, one line
"$fl" run --detail --bpftrace "$tmp/nosuch.bt" >/dev/null 2>"$tmp/e.err"; rc=$?
[ $rc = 2 ] && [ "$(grep -c '' "$tmp/e.err")" = 1 ] && ok "--bpftrace nosuch: exit 2, one line" \
  || bad "--bpftrace nosuch: rc=$rc stderr='$(cat "$tmp/e.err")'"

finish -s "probes cli"
