#!/usr/bin/env bash
# tests/shim/log_python.sh PRELOAD_SO LOGCAT SCRIPT
# Debian's python3 (/usr/bin/python3, not whatever python3 PATH finds: a
# pyenv build is not Debian's package) runs SCRIPT (log_python.py) under
# the shim on negcount with FUTEXLAB_LOG and FUTEXLAB_STATS=1, without
# FUTEXLAB_DEBUG. Its stderr must be empty and the log, read with the
# published parser (logcat), must hold exactly one logline per
# python process that exited normally — the main one, the fork that left by
# sys.exit, the fork that left by os._exit (the shim's _exit writes it),
# the subprocess (exec'd); each state=on with its pid and ppid, hundreds of semaphores on
# the design in the main process and the subprocess, the counting keys
# present and blocked=- (not the pass-through).
set -u
so=$1 logcat=$2 script=$3
python=/usr/bin/python3
if [ ! -x $python ]; then echo "SKIP: $python (Debian's python3) is not installed"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

# (timeout outside the preload: it would be a process of the log too)
timeout -s KILL 100 env -u FUTEXLAB_DEBUG -u FUTEXLAB_ALLOW -u FUTEXLAB_POLICY FUTEXLAB_VARIANT=negcount \
  FUTEXLAB_STATS=1 FUTEXLAB_LOG="$tmp/log" LD_PRELOAD="$so" $python "$script" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
echo "# $($python --version 2>&1) under the shim: exit $rc"
if [ $rc -ne 0 ]; then bad "python3 exit $rc:"; cat "$tmp/err"; exit 1; fi
[ -s "$tmp/err" ] && bad "$(wc -c <"$tmp/err") bytes on python's stderr: $(head -3 "$tmp/err")"
if ! "$logcat" "$tmp/log" >"$tmp/rep"; then bad "the log does not parse:"; cat "$tmp/log"; exit 1; fi
role() { awk -v r="$1" '$1 == r {print $2}' "$tmp/out"; }
main=$(role main) fexit=$(role fork-exit) f_exit=$(role fork-_exit) sub=$(role subprocess)
[ -n "$main" ] && [ -n "$fexit" ] && [ -n "$f_exit" ] && [ -n "$sub" ] ||
  { bad "the script's pids: $(tr '\n' ' ' <"$tmp/out")"; exit 1; }
n=$(wc -l <"$tmp/log")
[ "$n" -eq 4 ] && [ "$(grep -c '^R ' "$tmp/rep")" -eq 4 ] ||
  bad "$n lines in the log, want 4 loglines (main, fork-exit, fork-_exit, subprocess): $(cat "$tmp/log")"
# R pid ppid comm variant state inits ours handed named stats wait trywait
#   timedwait clockwait post blocked timeouts reason
line() { awk -v p="$1" '$2 == p' "$tmp/rep"; }
for r in "main $main 100" "fork-exit $fexit 1" "fork-_exit $f_exit 0" "subprocess $sub 100"; do
  set -- $r
  l=$(line "$2")
  if [ -z "$l" ]; then bad "no line for $1 (pid $2)"; continue; fi
  read -r _ pid ppid comm v pol state inits ours handed named stats wait trywait tw cw post blocked to reason <<<"$l"
  want_ppid=$main; [ "$1" = main ] && want_ppid=$ppid
  if [ "$ppid" != "$want_ppid" ] || [ "$comm" != python3 ] || [ "$v" != negcount ] || [ "$pol" != park ] ||
     [ "$state" != on ] || [ "$ours" -lt "$3" ] || [ "$inits" -lt "$ours" ] || [ "$stats" != 1 ] ||
     [ "$blocked" != - ] || [ "$reason" != - ] || { [ "$3" -gt 0 ] && { [ $((wait + trywait + tw + cw)) -lt 1 ] || [ "$post" -lt 1 ]; }; }; then
    bad "$1 (pid $2): $l"
  else
    echo "ok   $1: pid $pid ppid $ppid comm $comm state $state inits $inits ours $ours named $named" \
      "wait $wait trywait $trywait timedwait $tw clockwait $cw post $post"
  fi
done
exit $fail
