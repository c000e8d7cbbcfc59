#!/usr/bin/env bash
# tests/shim/run.sh VARIANT FUTEXLAB PRELOAD_SO SEMPROG PYTHON_SCRIPT [OLDSYM [NAMEDPROG]]
# Runs a plain POSIX program (semprog) and Debian's python3 under
# libfutexlab-preload.so with FUTEXLAB_VARIANT=VARIANT. The shim's debug
# line at exit must show that semaphores were really initialised on the
# variant (or handed to glibc, for the glibc pass-through). A design that
# breaks a POSIX promise (futexlab list: breaks) must be refused by default,
# and run the same programs once FUTEXLAB_ALLOW=all opts in.
# semprog runs its checks twice, the second pass on named semaphores
# (/semprog-PID-GROUP): where the design is on, each must be its (the
# debug lines), but overflow's above a value_max below SEM_VALUE_MAX (glibc's,
# handed over); a design that cannot be process-shared: all glibc's, and the
# shim says so.
# NAMEDPROG (tests/shim/namedprog.c): named semaphores; its answers under the
# shim must equal plain glibc's, line for line, and on a design that is on
# they must be on it (the debug line, and the logline's ours and named).
set -u
v=$1 futexlab=$2 so=$3 semprog=$4 py=$5 oldsym=${6:-} namedprog=${7:-}
line=$("$futexlab" list | awk -v v="$v" '$1 == v')
status=$(echo "$line" | awk '{print $2}')
vmax=$(echo "$line" | awk '{print $3}')
breaks=$(echo "$line" | awk '{print $5}')   # promises the design does not keep
if [ -z "$line" ]; then echo "shim: $v not in futexlab list"; exit 1; fi
if [ "$status" != available ]; then echo "SKIP $v: $status"; exit 77; fi
# A design the shim does not offer (the C++ standard-library ones, or one
# that lacks getvalue or EOVERFLOW): the shim says why, and the test skips
# with that reason (never a silent pass).
why=$(FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=$v LD_PRELOAD=$so /bin/true 2>&1 |
  sed -n "s/^futexlab-preload: variant $v skipped: \(not offered by the shim: .*\); semaphores stay glibc's\$/\1/p")
if [ -n "$why" ]; then echo "SKIP $v: $why"; exit 77; fi
fail=0
err=$(mktemp)
run() { # label cmd...
  local label=$1; shift
  FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=$v LD_PRELOAD=$so timeout -s KILL 120 "$@" 2>"$err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $label under the shim ($v${FUTEXLAB_ALLOW:+, FUTEXLAB_ALLOW=$FUTEXLAB_ALLOW}): exit $rc"; cat "$err"; fail=1; return
  fi
  if [ -n "$refusable" ] && [ -z "${FUTEXLAB_ALLOW:-}" ]; then
    # a design that declares a broken promise is refused unless allowed
    grep -q "variant $v refused: it breaks" "$err" ||
      { echo "FAIL $label: $v breaks '$breaks' but the shim did not refuse it"; cat "$err"; fail=1; return; }
    if grep -Eq "pid [0-9]+: [1-9][0-9]* semaphores initialised on $v" "$err"; then
      echo "FAIL $label: refused, yet semaphores were initialised on $v"; fail=1; return
    fi
    echo "ok   $label under the shim ($v refused: breaks $breaks; glibc's semaphores)"
    return
  fi
  if [ "$v" = glibc ]; then
    grep -q "passing every call through" "$err" || { echo "FAIL $label: no pass-through line"; cat "$err"; fail=1; }
  elif grep -q "is capped" "$err"; then
    echo "    ($v is capped, a lock: the shim keeps glibc's semaphores and says so)"
    passthrough=1
  else
    # the main process's exit message: at least one semaphore on the variant
    if ! grep -Eq "pid [0-9]+: [1-9][0-9]* semaphores initialised on $v" "$err"; then
      echo "FAIL $label: no semaphore was initialised on $v"; cat "$err"; fail=1; return
    fi
  fi
  grep -E "handed to glibc|initialised on" "$err" | sort | uniq -c | sed 's/^/    /' | head -5
  echo "ok   $label under the shim ($v)"
  ran_on=1
}
# semprog's named pass on the design (after run semprog: its debug lines)
groups="basics timeouts overflow eintr end_of_time bounded_buffer process_shared"
named_pass() { # label
  local want=$v got seen=""
  grep -q "variant $v cannot be process-shared: named semaphores stay glibc's" "$err" && want=glibc
  while read -r g owner; do
    got=$want
    [ "$g" = overflow ] && [ "$want" = "$v" ] && [ "$vmax" -lt 2147483647 ] && got=glibc
    if [ "$owner" != "$got" ]; then
      echo "FAIL $1 (named pass): /semprog-PID-$g is $owner's, not $got's"; fail=1; return
    fi
    seen="$seen $g"
  done < <(sed -nE "s/^futexlab-preload: sem_open\(\/semprog-[0-9]+-(${groups// /|})\) = [^ ]+: named, (.+)'s$/\1 \2/p" "$err")
  if [ "$(tr ' ' '\n' <<<"$seen" | sort -u | paste -sd' ')" != "$(tr ' ' '\n' <<<" $groups" | sort -u | paste -sd' ')" ]; then
    echo "FAIL $1 (named pass): sem_open lines for '$seen', not every group of '$groups'"; fail=1; return
  fi
  echo "ok   $1 (named pass): every named semaphore $want's$([ "$want" = glibc ] &&
    echo " ($v cannot be process-shared)" || { [ "$vmax" -lt 2147483647 ] && echo " (overflow's glibc's: above value_max $vmax)"; })"
}
on_design() { [ "$v" != glibc ] && [ -z "${passthrough:-}" ] && { [ -z "$refusable" ] || [ -n "${FUTEXLAB_ALLOW:-}" ]; }; }
refusable=
case ,$breaks, in *,destroy,*|*,signal,*|*,eintr,*) refusable=1;; esac
echo "# shim $v (value_max $vmax, breaks $breaks)"
# bad environment: one line on stderr, exit 2, before the program runs
for bad in "FUTEXLAB_ALLOW=destroy,bogus" "FUTEXLAB_VARIANT=$v-nosuch"; do
  out=$(env FUTEXLAB_VARIANT=$v "$bad" LD_PRELOAD=$so "$semprog" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ]; then
    echo "FAIL $bad: exit $rc (want 2) with one line, got: $out"; fail=1
  else
    echo "ok   $bad: exit 2, $out"
  fi
done
# (semprog's overflow check starts at SEM_VALUE_MAX: a variant whose
# value_max is lower hands that semaphore to glibc, the other path of the shim)
ran_on=
run semprog "$semprog"
[ -n "$ran_on" ] && on_design && named_pass semprog
# a binary bound to the symbol versions before glibc 2.34 (sem_*@GLIBC_2.2.5)
if [ -n "$oldsym" ]; then
  n=$(objdump -T "$oldsym" | grep -c "(GLIBC_2\.2\.5) *sem_")
  if [ "$n" -lt 7 ]; then
    echo "FAIL oldsym: references $n sem_*@GLIBC_2.2.5, not 7: the test would prove nothing"; fail=1
  else
    run "oldsym (7 calls bound to sem_*@GLIBC_2.2.5)" "$oldsym"
  fi
fi
# named semaphores: glibc's answers, and on the design when it is on
named() {
  local log; log=$(mktemp)
  FUTEXLAB_LOG=$log FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=$v LD_PRELOAD=$so timeout -s KILL 60 \
    "$namedprog" >"$answers" 2>"$err"
  local rc=$? lbl="namedprog${FUTEXLAB_ALLOW:+, FUTEXLAB_ALLOW=$FUTEXLAB_ALLOW}"
  if [ $rc -ne 0 ]; then echo "FAIL $lbl under the shim: exit $rc"; cat "$err"; fail=1
  elif ! diff "$plain" "$answers" >/dev/null; then
    echo "FAIL $lbl: answers differ from plain glibc's (< glibc, > $v):"; diff "$plain" "$answers"; fail=1
  elif grep -q "variant $v cannot be process-shared: named semaphores stay glibc's" "$err"; then
    echo "ok   $lbl: glibc's $(wc -l <"$plain") answers ($v cannot be process-shared: named semaphores glibc's)"
  elif [ "$v" != glibc ] && [ -z "${passthrough:-}" ] && { [ -z "$refusable" ] || [ -n "${FUTEXLAB_ALLOW:-}" ]; }; then
    if ! grep -q "named, $v's" "$err" ||
       ! grep -Eq "^futexlab-shim .* state=on .*ours=[1-9][0-9]* handed=[0-9]+ named=[1-9]" "$log"; then
      echo "FAIL $lbl: named semaphores not on $v (debug lines, logline):"
      grep -m3 "sem_open" "$err"; grep "^futexlab-shim" "$log" | head -3; fail=1
    else
      echo "ok   $lbl: glibc's $(wc -l <"$plain") answers, named semaphores on $v" \
        "($(grep -c "named, $v's" "$err") opens)"
    fi
  else
    echo "ok   $lbl: glibc's $(wc -l <"$plain") answers (named semaphores glibc's)"
  fi
  rm -f "$log"
}
if [ -n "$namedprog" ]; then
  plain=$(mktemp) answers=$(mktemp)
  if ! timeout -s KILL 60 "$namedprog" >"$plain" 2>"$err"; then
    echo "FAIL namedprog with plain glibc (no preload)"; cat "$err"; fail=1
  else
    named
  fi
fi
if command -v python3 >/dev/null; then
  run "python3 ($(python3 --version 2>&1))" python3 "$py"
  if [ "$v" != glibc ] && [ -z "${passthrough:-}" ] && [ -z "$refusable" ] && [ $fail -eq 0 ] && ! grep -Eq "[1-9][0-9]* named opens" "$err"; then
    echo "FAIL python3: multiprocessing opened no named semaphore"; fail=1
  fi
else
  echo "SKIP python3 under the shim ($v; multiprocessing's named semaphores on the design): python3 not installed"
fi
if [ -n "$refusable" ]; then
  # opted in, the design itself runs the same programs
  export FUTEXLAB_ALLOW=all
  ran_on=
  run "semprog, FUTEXLAB_ALLOW=all" "$semprog"
  [ -n "$ran_on" ] && on_design && named_pass "semprog, FUTEXLAB_ALLOW=all"
  [ -n "$namedprog" ] && [ -s "$plain" ] && named
  if command -v python3 >/dev/null; then
    run "python3, FUTEXLAB_ALLOW=all" python3 "$py"
    if [ $fail -eq 0 ] && ! grep -Eq "[1-9][0-9]* named opens" "$err"; then
      echo "FAIL python3: multiprocessing opened no named semaphore"; fail=1
    fi
  else
    echo "SKIP python3 under the shim ($v, FUTEXLAB_ALLOW=all): python3 not installed"
  fi
  unset FUTEXLAB_ALLOW
fi
rm -f "$err" ${plain:-} ${answers:-}
exit $fail
