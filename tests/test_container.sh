#!/usr/bin/env bash
# tests/test_container.sh — `futexlab exec`'s container and report channel
# (proc/cgroup.h, proc/report.h) on daemon_prog, a server whose daemon
# leaves the process group (setsid + double fork), changes user (nobody,
# when root) and forks two workers that ping-pong on pshared semaphores,
# then burn BURN ms of CPU each:
#   1. nothing of the run survives exec, not even a daemon left sleeping
#      (--leave); with FUTEXLAB_CGROUP=off (the process group alone) it
#      does: the contrast that shows the check can fail;
#   2. the CPU counts the workers (cpu_user_ns + cpu_sys_ns >= 2 BURN),
#      the processes seen too; with FUTEXLAB_CGROUP=off it is below (wait4
#      never reaps them), and one line says exec falls back;
#   3. the reports of processes that changed user arrive over the channel:
#      emulated (the shim kept out by --env LD_PRELOAD=, daemon_prog's
#      workers sending their own lines), then with the shim itself;
#   4. a run whose semaphores all went to glibc (textbook cannot be
#      process-shared) is an error row with the reason.
# Usage: test_container.sh FUTEXLAB DAEMON_PROG
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 prog=$2
py=/usr/bin/python3
scratch tmp container
marker=flcg$$x$RANDOM
on_exit() { kill_marked >/dev/null; }
BURN=150  # ms of CPU per worker

if [ ! -w /sys/fs/cgroup ] && ! grep -q ' - cgroup2 ' /proc/self/mountinfo; then
  skip_test container "no cgroup2 mounted"
fi

# The pids whose command line holds the marker (not this scan's own).
marked() {
  "$py" -c 'import os, sys
for p in os.listdir("/proc"):
    if p.isdigit() and int(p) != os.getpid():
        try: c = open("/proc/%s/cmdline" % p, "rb").read()
        except OSError: continue
        if sys.argv[1].encode() in c: print(p)' "$marker"
}
kill_marked() { for p in $(marked); do kill -KILL "$p" 2>/dev/null; done; }

# cpu FILE VARIANT: user+sys of each ok row
cpu() {
  "$py" -c 'import csv, sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("#")]
for r in csv.DictReader(lines):
    if r["variant"] == sys.argv[2] and r["status"] == "ok":
        print(int(r["cpu_user_ns"]) + int(r["cpu_sys_ns"]))' "$@"
}

exec_csv() { # csv-file extra-exec-args... -- daemon_prog args
  local csv=$1; shift
  "$fl" exec --detail --rounds 2 --warmup 0 --no-probes --quiet --csv "$tmp/$csv" "$@" \
    >"$tmp/$csv.out" 2>"$tmp/$csv.err"
}

variants=negcount,glibc

# 1 + 2: with the cgroup
exec_csv c.csv --variant "$variants" -- "$prog" "$marker" 200 "$BURN" --leave
rc=$?
left=$(marked | tr '\n' ' ')
if [ $rc -eq 0 ] && [ -z "$left" ]; then ok "cgroup: exit 0, nothing of the run left"
else bad "cgroup: exit $rc, left: '$left': $(cat "$tmp/c.csv.err")"; kill_marked; fi
for v in ${variants//,/ }; do
  n=0 low=0
  for c in $(cpu "$tmp/c.csv" "$v"); do
    n=$((n+1)); [ "$c" -ge $((2 * BURN * 1000000)) ] || low=$((low+1))
  done
  if [ $n -eq 2 ] && [ $low -eq 0 ]; then ok "cgroup: $v's CPU counts both workers ($(cpu "$tmp/c.csv" "$v" | tr '\n' ' ')ns)"
  else bad "cgroup: $v: $n ok rows, $low below $((2 * BURN)) ms: $(csv_cols "$tmp/c.csv" variant="$v" note)"; fi
  p=$(csv_cols "$tmp/c.csv" variant="$v" cgroup_procs | sort -n | head -1)
  if [ -n "$p" ] && [ "$p" -ge 2 ]; then ok "cgroup: $v: processes seen $p"
  else bad "cgroup: $v: processes seen '$p'"; fi
done
if grep -q "no writable cgroup2" "$tmp/c.csv.err"; then bad "cgroup: says it falls back"
else ok "cgroup: no fallback line"; fi

# the same without: the daemon survives, the CPU misses the workers
FUTEXLAB_CGROUP=off exec_csv o.csv --variant glibc -- "$prog" "$marker" 200 "$BURN" --leave
left=$(marked | tr '\n' ' ')
if [ -n "$left" ]; then ok "off: the left daemon survives the process group's kill ($left)"
else bad "off: no survivor: the survivor check cannot tell"; fi
kill_marked
low=0 n=0
for c in $(cpu "$tmp/o.csv" glibc); do
  n=$((n+1)); [ "$c" -lt $((2 * BURN * 1000000)) ] && low=$((low+1))
done
if [ $n -eq 2 ] && [ $low -eq 2 ]; then ok "off: wait4's CPU misses the workers"
else bad "off: $n rows, $low below"; fi
n=$(grep -c "futexlab: exec: no writable cgroup2 (FUTEXLAB_CGROUP=off): falls back" "$tmp/o.csv.err")
if [ "$n" -eq 1 ]; then ok "off: one line says it falls back"
else bad "off: $n fallback lines: $(cat "$tmp/o.csv.err")"; fi
[ -z "$(csv_cols "$tmp/o.csv" variant=glibc cgroup_procs | tr -d '\n')" ] && ok "off: no processes-seen figure" ||
  bad "off: processes seen '$(csv_cols "$tmp/o.csv" variant=glibc cgroup_procs)'"
FUTEXLAB_CGROUP=/tmp exec_csv t.csv --variant glibc -- true
grep -q "no writable cgroup2 (FUTEXLAB_CGROUP=/tmp is not below cgroup2's mount" "$tmp/t.csv.err" &&
  ok "a cgroup path outside cgroup2: the fallback line says why" ||
  bad "FUTEXLAB_CGROUP=/tmp: $(cat "$tmp/t.csv.err")"

# 3. the channel, emulated: no shim (LD_PRELOAD emptied after exec set it),
#    the workers (nobody, when root) send 2 semaphores each
as=$([ "$(id -u)" = 0 ] && echo " as nobody" || echo "")
exec_csv e.csv --variant negcount --env LD_PRELOAD= -- "$prog" "$marker" 100 0 --report
s=$(csv_cols "$tmp/e.csv" variant=negcount shim_sems | tr '\n' ' ')
if [ "$s" = "4 4 " ]; then ok "channel: both workers' reports arrive$as: shim_sems $s"
else bad "channel: shim_sems '$s': $(csv_cols "$tmp/e.csv" variant=negcount note)"; fi
# without a cgroup, a sender must be in the program's group or below its
# pid: the daemon's workers (own session, reparented) are neither — their
# lines are dropped and counted, as a forger's would be
FUTEXLAB_CGROUP=off exec_csv f.csv --variant negcount --env LD_PRELOAD= -- "$prog" "$marker" 100 0 --report
s=$(csv_cols "$tmp/f.csv" variant=negcount shim_sems | tr -d '\n') n=$(csv_cols "$tmp/f.csv" variant=negcount note | grep -c "forged 2")
if [ -z "$s" ] && [ "$n" -eq 2 ]; then ok "channel, no cgroup: lines from outside the group and tree dropped, 'forged 2'"
else bad "channel, no cgroup: shim_sems '$s', notes: $(csv_cols "$tmp/f.csv" variant=negcount note)"; fi
# 3'. with the shim itself: the daemon's two semaphores, reported as nobody
exec_csv r.csv --variant negcount,textbook --allow signal -- "$prog" "$marker" 100 0
s=$(csv_cols "$tmp/r.csv" variant=negcount shim_sems | sort -n | head -1)
if [ -n "$s" ] && [ "$s" -gt 0 ]; then ok "shim: the changed-user processes' reports arrive: shim_sems $s"
else bad "shim: shim_sems '$s': $(csv_cols "$tmp/r.csv" variant=negcount note)"; fi
# 4. a design that cannot hold process-shared semaphores (textbook): every
#    one of daemon_prog's is handed to glibc, so the row would be glibc's
#    figure under textbook's name: an error row that says so
n=$(csv_cols "$tmp/r.csv" variant=textbook note | grep -c "used 2 semaphores (2 sem_init calls, 0 named opens) and none was on textbook: 2 handed to glibc")
st=$(csv_cols "$tmp/r.csv" variant=textbook status | sort -u | tr '\n' ' ')
if [ "$n" -ge 1 ] && [ "$st" = "error " ]; then ok "none on the design (textbook, process-shared only): an error row that says why"
else bad "textbook: status '$st', notes: $(csv_cols "$tmp/r.csv" variant=textbook note)"; fi

finish -s container
