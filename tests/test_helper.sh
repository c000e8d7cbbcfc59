#!/usr/bin/env bash
# tests/test_helper.sh — musl-libc, a helper-run design (proc/helper.h), end to
# end through futexlab: its rows come from musl's sem_t in the helper, a
# helper that crashes or hangs is an error row (never a hung run), Ctrl-C
# keeps the rows and takes the helper with it, the probes count the helper's
# futex calls for its rows only, and exec/the shim refuse it.
#   test_helper.sh path/to/futexlab path/to/libfutexlab-preload.so
# (shim `-` in a sanitizer build: its preload check is skipped, said so)
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 shim=$2
scratch tmp helper

# 1. listed available (this build has musl-gcc, or the test is not built)
if "$fl" list | grep -Eq '^musl-libc +available'; then ok "list: musl-libc available"
else bad "list: $("$fl" list | grep musl-libc)"; fi

# 2. the rows came from musl: metadata from the helper itself, every column
#    a workload fills filled (fairness, latency, cpu)
csv=$tmp/a.csv
"$fl" run --detail --variant musl-libc,glibc --workload pool,pingpong,uncontended --threads 4 \
  --tokens 1 --rounds 3 --warmup 1 --duration 0.03 --latency --no-control --quiet \
  --no-probes --csv "$csv" >"$tmp/a.out" 2>&1
rc=$?
meta=$(grep '^# helper musl-libc:' "$csv")
if [ $rc -eq 0 ] && [[ $meta == *"libc musl 1."*"(static)"*", maps none" ]]; then ok "helper says: ${meta#\# }"
else bad "rc=$rc meta='$meta'"; tail -5 "$tmp/a.out"; fi
n_ok=$(for w in pool pingpong uncontended; do csv_cols "$csv" variant=musl-libc workload=$w status; done | grep -c '^ok$')
[ "$n_ok" -eq 9 ] && ok "9 musl-libc rows ok" || bad "musl-libc ok rows: $n_ok of 9"
jain=$(csv_cols "$csv" variant=musl-libc workload=pool fair_jain | head -1)
p50=$(csv_cols "$csv" variant=musl-libc workload=pingpong lat_p50_ns | head -1)
cpu=$(csv_cols "$csv" variant=musl-libc workload=pool cpu_user_ns | head -1)
ops=$(csv_cols "$csv" variant=musl-libc workload=uncontended ops | head -1)
if [ -n "$jain" ] && [ -n "$p50" ] && [ -n "$cpu" ] && [ "${ops:-0}" -gt 0 ]; then
  ok "fields back from the helper: jain $jain, pingpong p50 $p50 ns, cpu_user $cpu ns, ops $ops"
else bad "missing fields: jain='$jain' p50='$p50' cpu='$cpu' ops='$ops'"; fi

# 3. probes (root, BPF): musl-libc's rows count the helper — musl sleeps with
#    FUTEX_WAIT, never glibc's FUTEX_WAIT_BITSET — and procs says 1. On one
#    CPU (--pin 0) a waiter's spin cannot see its partner's post: it sleeps.
csv=$tmp/p.csv
"$fl" run --detail --variant musl-libc,glibc --workload pingpong --ops 3000 --rounds 3 --warmup 0 --pin 0 \
  --no-control --quiet --probes --csv "$csv" >"$tmp/p.out" 2>&1
pbs=$(csv_cols "$csv" variant=glibc workload=pingpong fx_wait_bitset | head -1)
if grep -q 'probes off' "$tmp/p.out"; then
  # (the collector did not load: not root, no BPF; empty columns with
  # the collector loaded fail below)
  skip "probes (the helper's futex calls counted for musl-libc's rows): $(grep -m1 'probes off' "$tmp/p.out")"
else
  mw=$(csv_cols "$csv" variant=musl-libc workload=pingpong fx_wait | sort -n | tail -1)
  mbs=$(csv_cols "$csv" variant=musl-libc workload=pingpong fx_wait_bitset | sort -n | tail -1)
  mprocs=$(csv_cols "$csv" variant=musl-libc workload=pingpong procs | sort -u)
  pprocs=$(csv_cols "$csv" variant=glibc workload=pingpong procs | sort -u)
  pw=$(csv_cols "$csv" variant=glibc workload=pingpong fx_wait | sort -n | tail -1)
  if [ "${mw:-0}" -gt 0 ] && [ "$mbs" = 0 ] && [ "$mprocs" = 1 ] && [ -z "$pprocs" ] &&
     [ "$pbs" -gt 0 ] && [ "$pw" = 0 ]; then
    ok "probes: musl-libc fx_wait $mw, fx_wait_bitset 0, procs 1; glibc fx_wait_bitset $pbs, fx_wait 0"
  else
    bad "probes: musl-libc wait=$mw bitset=$mbs procs='$mprocs'; glibc bitset=$pbs wait=$pw procs='$pprocs'"
  fi
fi

# 4. a helper that dies during a rep (the real one, SIGSEGV from outside):
#    an error row with the reason; the other rows go on; exit status 1
csv=$tmp/c.csv
"$fl" run --detail --variant musl-libc,glibc --workload pool --threads 2 --rounds 40 --duration 0.1 \
  --no-control --quiet --no-probes --csv "$csv" >"$tmp/c.out" 2>&1 &
run=$!
# mid-run: the helper's pid in the CSV and a musl-libc row done (states, not
# a sleep; 60 s is generous for one 0.1 s rep)
pid= t0=$(now_ms)
while [ $(( $(now_ms) - t0 )) -lt 60000 ] && kill -0 $run 2>/dev/null; do
  pid=$(sed -n 's/^# helper musl-libc: .* pid \([0-9]*\),.*/\1/p' "$csv" 2>/dev/null | head -1)
  [ -n "$pid" ] && [ "$(csv_cols "$csv" variant=musl-libc workload=pool status 2>/dev/null | grep -c '^ok$')" -ge 1 ] && break
  sleep 0.05
done
waited=$(( $(now_ms) - t0 ))
[ -n "$pid" ] && kill -SEGV "$pid"
wait $run
rc=$?
note=$(csv_cols "$csv" variant=musl-libc workload=pool note; grep '^musl-libc,pool,.*,error,' "$csv" | head -1)
pok=$(csv_cols "$csv" variant=glibc workload=pool status | grep -c '^ok$')
if [ $rc -eq 1 ] && [[ $note == *"killed by signal 11"* ]] && [ "$pok" -ge 30 ]; then
  ok "helper killed mid-run: error row ($(grep -o 'killed by signal 11[^"]*' "$csv" | head -1)), $pok glibc rows"
else bad "crash: rc=$rc pid=$pid (after $waited ms) glibc ok=$pok note: $note; load $(cat /proc/loadavg)"; fi

# 5. a helper that hangs (a stand-in that says hello and never answers):
#    an error row after FUTEXLAB_HELPER_TIMEOUT, the helper killed, the run
#    ends. Each stand-in started writes its pid before it execs sleep: the
#    check looks for those very processes (sleep 600 under that pid) after
#    the run; a harness that did not kill them leaves them running.
cat >"$tmp/hang.sh" <<'EOF'
#!/bin/sh
echo $$ >>"$HANG_PIDFILE"
printf 'hello\nlibc=fake\nlibc_version=\nstatic=0\npid=%s\nhash=\nhash_error=\nend\n' $$
exec sleep 600
EOF
chmod +x "$tmp/hang.sh"
csv=$tmp/h.csv
t0=$(date +%s)
HANG_PIDFILE=$tmp/hang.pid FUTEXLAB_HELPER=$tmp/hang.sh FUTEXLAB_HELPER_TIMEOUT=1 timeout 60 "$fl" run --detail \
  --variant musl-libc,glibc --workload uncontended --rounds 3 --duration 0.02 --no-control \
  --quiet --no-probes --csv "$csv" >"$tmp/h.out" 2>&1
rc=$?
t=$(( $(date +%s) - t0 ))
hpid=$(cat "$tmp/hang.pid" 2>/dev/null | tr '\n' ' ')
# alive: the stand-ins whose /proc/PID is still that sleep (a zombie has no
# cmdline, a recycled pid another one)
alive=$(for p in $hpid; do
  [ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 600 " ] && echo "$p"; done)
if [ $rc -eq 1 ] && grep -q 'musl-libc,uncontended,.*,error,"musl-libc helper (futexlab-musl): no result within 1 s: hung, so killed' "$csv" &&
   [ -n "$hpid" ] && [ -z "$alive" ]; then
  ok "hung helper: error row in ${t}s, its process killed (stand-in pids: $hpid)"
else
  bad "hang: rc=$rc after ${t}s, stand-in pids '$hpid', alive '$alive': $(grep musl-libc, "$csv")"
  [ -n "$alive" ] && kill $alive
fi

# 6. Ctrl-C (SIGINT to the whole process group, as a terminal sends it): exit
#    130, the finished rows kept, the helper gone with the run
csv=$tmp/i.csv
setsid "$fl" run --detail --variant musl-libc,glibc --workload pool --threads 2 --rounds 200 \
  --duration 0.05 --no-control --quiet --no-probes --csv "$csv" >"$tmp/i.out" 2>&1 &
run=$!
t0=$(now_ms)   # interrupt once 3 musl-libc rows are done (60 s bound)
while [ $(( $(now_ms) - t0 )) -lt 60000 ] && kill -0 $run 2>/dev/null; do
  [ "$(csv_cols "$csv" variant=musl-libc workload=pool status 2>/dev/null | grep -c ok)" -ge 3 ] && break
  sleep 0.05
done
waited=$(( $(now_ms) - t0 ))
pid=$(sed -n 's/^# helper musl-libc: .* pid \([0-9]*\),.*/\1/p' "$csv" | head -1)
kill -INT -- -"$run"
wait $run
rc=$?
kept=$(csv_cols "$csv" variant=musl-libc workload=pool status | grep -c '^ok$')
if [ $rc -eq 130 ] && [ "$kept" -ge 3 ] && [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
  ok "Ctrl-C: exit 130, $kept musl-libc rows kept, helper $pid gone"
else bad "Ctrl-C: rc=$rc kept=$kept (interrupted after $waited ms) helper='$pid' alive=$(kill -0 "$pid" 2>/dev/null && echo yes); load $(cat /proc/loadavg)"; fi

# 7. --hash: the helper applies the run's mode to itself
csv=$tmp/x.csv
"$fl" run --detail --variant musl-libc --workload uncontended --rounds 1 --warmup 0 --duration 0.01 \
  --no-control --quiet --no-probes --hash private:16 --csv "$csv" >/dev/null 2>&1
st=$(csv_cols "$csv" variant=musl-libc workload=uncontended status)
note=$(grep '^musl-libc,uncontended,' "$csv" | grep -o '"[^"]*"' | head -1)
if [ "$st" = skipped ] && [[ $note == *PR_FUTEX_HASH* ]]; then
  skip "--hash private:16 in the helper: $note"
elif grep -q '^# helper musl-libc: .*hash private:16, maps ' "$csv" && [ "$st" = ok ]; then
  ok "--hash private:16 applied in the helper"
else bad "hash: status $st, $(grep '^# helper' "$csv")"; fi

# 8. no helper: a skipped row with the reason
csv=$tmp/m.csv
FUTEXLAB_HELPER=$tmp/none "$fl" run --detail --variant musl-libc --workload uncontended \
  --rounds 1 --duration 0.01 --quiet --no-probes --csv "$csv" >/dev/null 2>&1
if grep -q "^musl-libc,uncontended,.*,skipped,\"its helper $tmp/none cannot be run" "$csv"; then
  ok "missing helper: skipped row"
else bad "missing helper: $(grep '^musl-libc' "$csv")"; fi

# 9. exec and the shim refuse it, one line each
csv=$tmp/e.csv
"$fl" exec --detail --variant musl-libc --rounds 1 --quiet --csv "$csv" -- /bin/true >/dev/null 2>&1
if grep -q '^musl-libc,exec,.*,skipped,"runs only in its helper' "$csv"; then ok "exec: skipped row"
else bad "exec: $(grep '^musl-libc' "$csv")"; fi
if [ "$shim" = - ]; then
  skip "shim refuses musl-libc: a sanitizer build's shim cannot be preloaded into /bin/true"
else
  msg=$(FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=musl-libc LD_PRELOAD=$shim /bin/true 2>&1)
  if [[ $msg == *"variant musl-libc skipped: it runs only in its own helper"* ]]; then
    ok "shim: refused (${msg#*: })"
  else bad "shim: '$msg'"; fi
fi

finish -s helper
