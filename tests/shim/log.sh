#!/usr/bin/env bash
# tests/shim/log.sh FUTEXLAB PRELOAD_SO STATPROG LOGCAT DENY
# The shim's log and counting (FUTEXLAB_LOG, FUTEXLAB_STATS; shim/README.md).
# statprog (tests/shim/statprog.c) has an exactly known call profile and
# forks one child that exits normally; its log is read back with the
# published parser (logcat: shim/logline.c). On every design of
# `futexlab list`, without FUTEXLAB_DEBUG:
#   - the program's stderr is empty and its answers are right;
#   - the log holds exactly two loglines: the parent's (its pid) and the
#     child's (another pid, its ppid the parent's), each with the design's
#     state — on, pass (glibc), refused (a promise it breaks, its reason
#     naming them), capped (lock1), skipped (unavailable) — and, with
#     FUTEXLAB_STATS=1, the exact counts (blocked only under glibc);
#     without it, no counting keys;
#   - under glibc the program's answers are glibc's own, line for line (a run
#     without the shim): the blocked-count's first attempt changes nothing.
# Then: a design seen as skipped (futex2, uring) under a seccomp filter that
# hides their system calls (deny; x86-64 numbers); FUTEXLAB_DEBUG's messages
# in the log too; a usage error's line in the log (also for a bad
# FUTEXLAB_POLICY, and for a policy given to glibc, which keeps its own); a
# log that cannot be opened changes nothing for the program; a process that
# execs leaves one line, the new image's. Every line says the policy (park
# unless FUTEXLAB_POLICY is set; each design that is on runs again under
# spin:100, its counts unchanged: the policy's re-tries are the design's
# trywait, never a call of the program's).
set -u
futexlab=$1 so=$2 prog=$3 logcat=$4 deny=$5 exitprog=${6:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

# The profile (statprog.c's header): inits named wait trywait timedwait
# clockwait post blocked timeouts, of the parent and of the child.
parent_counts="8 1 6 2 4 5 6 5 2"
child_counts="1 0 1 0 0 0 1 0 0"

# shimrun [env assignments...] [-- wrapper...]: statprog under the shim with
# FUTEXLAB_LOG=$tmp/log and no FUTEXLAB_DEBUG (unless given), started by the
# wrapper if any (itself under the shim). Sets pid (the program's: env and
# the wrappers exec it) and rc; $tmp/out, $tmp/err, and $tmp/rep
# (logcat's reading of the log, logcat_rc its status).
shimrun() {
  local vars=() wrap=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; wrap=("$@"); }
  rm -f "$tmp/log"
  env -u FUTEXLAB_DEBUG -u FUTEXLAB_ALLOW -u FUTEXLAB_STATS -u FUTEXLAB_POLICY FUTEXLAB_LOG="$tmp/log" \
    LD_PRELOAD="$so" "${vars[@]}" "${wrap[@]}" "$prog" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  wait $pid
  rc=$?
  if [ -f "$tmp/log" ]; then "$logcat" "$tmp/log" >"$tmp/rep" 2>&1; logcat_rc=$?; else : >"$tmp/rep"; logcat_rc=0; fi
}

# check LABEL VARIANT STATE REASON STATS OURS [POLICY]: the two loglines of
# the last shimrun. REASON "?" = anything but "-". OURS: the parent's
# semaphores on the design (7 or 0). POLICY: the line's policy (park).
check() {
  local label=$1 v=$2 state=$3 reason=$4 stats=$5 ours=$6 pol=${7:-park} ok=1
  if [ $rc -ne 0 ]; then bad "$label: statprog exit $rc: $(head -3 "$tmp/err")"; return; fi
  if [ -s "$tmp/err" ]; then bad "$label: $(wc -c <"$tmp/err") bytes on the program's stderr: $(head -3 "$tmp/err")"; return; fi
  if [ $logcat_rc -ne 0 ]; then bad "$label: a line of the log does not parse:"; cat "$tmp/log"; return; fi
  local lines
  lines=$(wc -l <"$tmp/log" 2>/dev/null || echo 0)
  if [ "$lines" -ne 2 ] || [ "$(grep -c '^R ' "$tmp/rep")" -ne 2 ]; then
    bad "$label: the log holds $lines lines, want 2 loglines (parent, child):"; cat "$tmp/log" 2>/dev/null; return
  fi
  local p c
  p=$(awk -v pid="$pid" '$2 == pid' "$tmp/rep")
  c=$(awk -v pid="$pid" '$2 != pid && $3 == pid' "$tmp/rep")
  if [ -z "$p" ] || [ -z "$c" ]; then
    bad "$label: want the parent's line (pid $pid) and its child's (ppid $pid):"; cat "$tmp/log"; return
  fi
  # R pid ppid comm variant policy state inits ours handed named stats wait
  #   trywait timedwait clockwait post blocked timeouts reason...
  local want_p want_c b_p=- b_c=- cours=0
  [ "$state" = pass ] && { b_p=5; b_c=0; }
  [ "$ours" -gt 0 ] && cours=1
  set -- $parent_counts
  if [ "$stats" = 1 ]; then
    want_p="statprog $v $pol $state $1 $ours 0 $2 1 $3 $4 $5 $6 $7 $b_p $9"
  else
    want_p="statprog $v $pol $state $1 $ours 0 $2 0 - - - - - - -"
  fi
  set -- $child_counts
  if [ "$stats" = 1 ]; then
    want_c="statprog $v $pol $state $1 $cours 0 $2 1 $3 $4 $5 $6 $7 $b_c $9"
  else
    want_c="statprog $v $pol $state $1 $cours 0 $2 0 - - - - - - -"
  fi
  local got_p got_c r_p r_c
  got_p=$(cut -d' ' -f4-19 <<<"$p") r_p=$(cut -d' ' -f20- <<<"$p")
  got_c=$(cut -d' ' -f4-19 <<<"$c") r_c=$(cut -d' ' -f20- <<<"$c")
  [ "$got_p" = "$want_p" ] || { bad "$label: parent: got '$got_p', want '$want_p'"; ok=0; }
  [ "$got_c" = "$want_c" ] || { bad "$label: child: got '$got_c', want '$want_c'"; ok=0; }
  for r in "$r_p" "$r_c"; do
    if [ "$reason" = "?" ]; then
      [ "$r" != "-" ] && [ -n "$r" ] || { bad "$label: reason '$r', want one"; ok=0; }
    elif [ "$r" != "$reason" ]; then
      bad "$label: reason '$r', want '$reason'"; ok=0
    fi
  done
  [ $ok = 1 ] && echo "ok   $label: $state, parent [$got_p] child [$got_c] reason $r_p"
}

# glibc without the shim: the answers the pass-through must give
if ! "$prog" >"$tmp/plain.out" 2>"$tmp/plain.err"; then
  echo "FAIL statprog without the shim:"; cat "$tmp/plain.err"; exit 1
fi

list=$("$futexlab" list | awk 'NR > 1 && NF == 0 {exit} NR > 1 && !/^ /')
[ -n "$list" ] || { echo "FAIL: futexlab list printed no design"; exit 1; }
states=""
while read -r v status vmax _bytes breaks _rest; do
  if [ "$v" = glibc ]; then state=pass reason=- ours=0
  elif [ "$status" != available ]; then state=skipped reason="?" ours=0
  elif [ "$v" = musl-libc ]; then # a helper-run design (variants/meson.build: helper_variants)
    state=skipped ours=0 reason="it runs only in its own helper process (another libc), not in a program"
  elif [[ ",$breaks," =~ ,(getvalue|overflow), ]]; then
    state=skipped ours=0 # not offered by the shim (shim/preload.c: cxx_design, lacks)
    reason="not offered by the shim: a C++ standard-library design (no sem_getvalue, no EOVERFLOW, and a C++ runtime in every program)"
  elif [ "$breaks" = capped ]; then
    state=capped reason="post absorbs releases past $vmax: not a POSIX semaphore" ours=0
  elif [[ ",$breaks," =~ ,(destroy|signal|eintr), ]]; then
    state=refused reason="breaks $breaks (FUTEXLAB_ALLOW=$breaks runs it anyway)" ours=0
  else state=on reason=- ours=8 # 7 sem_inits and the named one: both on the design
  fi
  states="$states $state"
  shimrun FUTEXLAB_VARIANT="$v" FUTEXLAB_STATS=1
  check "$v, FUTEXLAB_STATS=1" "$v" "$state" "$reason" 1 "$ours"
  if [ "$state" = pass ] && [ $rc -eq 0 ]; then
    if diff "$tmp/plain.out" "$tmp/out" >"$tmp/diff"; then
      echo "ok   glibc, FUTEXLAB_STATS=1: statprog's $(wc -l <"$tmp/out") answers are glibc's own"
    else
      bad "glibc, FUTEXLAB_STATS=1: answers differ from glibc's (< glibc, > the shim):"; cat "$tmp/diff"
    fi
  fi
  shimrun FUTEXLAB_VARIANT="$v"
  check "$v" "$v" "$state" "$reason" 0 "$ours"
  if [ "$state" = on ]; then
    shimrun FUTEXLAB_VARIANT="$v" FUTEXLAB_STATS=1 FUTEXLAB_POLICY=spin:100
    check "$v, FUTEXLAB_POLICY=spin:100 FUTEXLAB_STATS=1" "$v" on - 1 "$ours" spin:100
  fi
done <<<"$list"
shimrun FUTEXLAB_VARIANT=negcount FUTEXLAB_POLICY=adaptive
check "negcount, FUTEXLAB_POLICY=adaptive" negcount on - 0 8 adaptive
for s in on pass refused capped; do
  [[ " $states " == *" $s "* ]] || bad "no design of futexlab list is '$s' here: that state went untested"
done
# posix, the glibc design's former name (variants/registry.c.in): the same
# pass-through, and the logline names it glibc
shimrun FUTEXLAB_VARIANT=posix FUTEXLAB_STATS=1
check "FUTEXLAB_VARIANT=posix (glibc's former name)" glibc pass - 1 0

# skipped: the designs' system calls hidden (x86-64 numbers: futex_wake 454,
# futex_wait 455, futex_requeue 456; io_uring_setup 425, _enter 426,
# _register 427). glibc needs none of them.
if [ "$(uname -m)" = x86_64 ]; then
  for d in "futex2 454,455,456" "uring 425,426,427"; do
    set -- $d
    shimrun FUTEXLAB_VARIANT="$1" FUTEXLAB_STATS=1 -- "$deny" "$2"
    if [ $rc -eq 77 ]; then echo "SKIP $1 under seccomp: $(cat "$tmp/err")"; continue; fi
    check "$1 with its system calls hidden (seccomp), FUTEXLAB_STATS=1" "$1" skipped "?" 1 0
  done
else
  echo "SKIP skipped-state check: system call numbers known for x86-64 only"
fi

# FUTEXLAB_DEBUG=1 with the log: the messages on stderr and, the same, in
# the log, besides the two loglines
shimrun FUTEXLAB_VARIANT=negcount FUTEXLAB_DEBUG=1
msgs=$(grep -c '^futexlab-preload: ' "$tmp/err")
if [ $rc -ne 0 ] || [ "$msgs" -lt 2 ]; then
  bad "FUTEXLAB_DEBUG=1: exit $rc, $msgs messages on stderr"; cat "$tmp/err"
elif ! diff <(sed -n 's/^M //p' "$tmp/rep") <(grep '^futexlab-preload: ' "$tmp/err") >/dev/null ||
     [ "$(grep -c '^R ' "$tmp/rep")" -ne 2 ]; then
  bad "FUTEXLAB_DEBUG=1: the log is not stderr's $msgs messages plus 2 loglines:"; cat "$tmp/log"
else
  echo "ok   FUTEXLAB_DEBUG=1: $msgs messages on stderr and in the log, and 2 loglines"
fi

# a usage error: one line on stderr, the same in the log, exit 2, no logline
shimrun FUTEXLAB_VARIANT=nosuch
if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ "$(cat "$tmp/log" 2>/dev/null)" != "$(cat "$tmp/err")" ]; then
  bad "usage error: exit $rc (want 2), stderr '$(cat "$tmp/err")', log '$(cat "$tmp/log" 2>/dev/null)'"
else
  echo "ok   usage error: exit 2, its line on stderr and in the log, no logline"
fi

# the policy's usage errors, as FUTEXLAB_VARIANT's: a value that is not a
# policy, and one for glibc, which waits by its own
for pv in "negcount spin:0 FUTEXLAB_POLICY: 'spin:0' is not a policy" \
          "glibc spin:4 FUTEXLAB_POLICY=spin:4: variant glibc keeps its own waiting policy"; do
  set -- $pv
  v=$1 pol=$2; shift 2
  shimrun FUTEXLAB_VARIANT="$v" FUTEXLAB_POLICY="$pol"
  if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$*" "$tmp/err" ||
     [ "$(cat "$tmp/log" 2>/dev/null)" != "$(cat "$tmp/err")" ]; then
    bad "FUTEXLAB_VARIANT=$v FUTEXLAB_POLICY=$pol: exit $rc (want 2), stderr '$(cat "$tmp/err")' (want '$*'), log '$(cat "$tmp/log" 2>/dev/null)'"
  else
    echo "ok   FUTEXLAB_VARIANT=$v FUTEXLAB_POLICY=$pol: exit 2, '$(cat "$tmp/err")'"
  fi
done

# a log that cannot be opened: the program runs as ever, silent
rm -f "$tmp/log"
env -u FUTEXLAB_DEBUG FUTEXLAB_LOG="$tmp/no/such/dir/log" FUTEXLAB_STATS=1 LD_PRELOAD="$so" \
  "$prog" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
  bad "an unwritable log: exit $rc, stderr '$(head -2 "$tmp/err")'"
else
  echo "ok   a log that cannot be opened: exit 0, nothing on stderr"
fi

# exec: sh loads the shim, then execs statprog in the same process; the
# image that exec'd writes nothing (no destructor runs on exec), the new one
# its own line under the same pid: still exactly the two lines
shimrun FUTEXLAB_VARIANT=glibc FUTEXLAB_STATS=1 -- sh -c 'exec "$0"'
check "glibc, statprog exec'd by sh" glibc pass - 1 0

# _exit, _Exit, and _Exit from an atexit handler: no destructor runs, the
# shim's _exit writes the line, exactly one, with the semaphore counted
if [ -n "$exitprog" ]; then
  for how in "_exit 0" "_Exit 3" "atexit 0"; do
    set -- $how
    rm -f "$tmp/log"
    env -u FUTEXLAB_DEBUG FUTEXLAB_VARIANT=negcount FUTEXLAB_LOG="$tmp/log" LD_PRELOAD="$so" \
      "$exitprog" "$1" >/dev/null 2>"$tmp/err"
    rc=$?
    "$logcat" "$tmp/log" >"$tmp/rep" 2>/dev/null
    if [ $rc -ne "$2" ] || [ "$(wc -l <"$tmp/log" 2>/dev/null || echo 0)" -ne 1 ] ||
       ! grep -Eq "^R [0-9]+ [0-9]+ exitprog negcount park on 1 1 0 0 " "$tmp/rep"; then
      bad "exitprog $1: exit $rc (want $2), log '$(cat "$tmp/log" 2>/dev/null)'"
    else
      echo "ok   exitprog $1: exit $rc, one logline (ours 1)"
    fi
  done
fi

exit $fail
