#!/usr/bin/env bash
# tests/shim/handover.sh PRELOAD_MUTANTS_SO SEMPROG
# The shim built over the test-only registry (tests/mutants): semprog on
#   ctl_private — refuses process-shared semaphores (ENOTSUP): the shim must
#                 hand the pshared ones to glibc (and say so under
#                 FUTEXLAB_DEBUG), keep the private ones, and semprog's fork
#                 test must pass;
#   ctl_negcount — accepts pshared: nothing may be handed over for pshared.
set -u
so=$1 semprog=$2
export SEMPROG_PEER_VARIANT=ctl_negcount # semprog's named peer: this registry has no glibc
err=$(mktemp)
fail=0
FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=ctl_private LD_PRELOAD=$so timeout -s KILL 120 "$semprog" >/dev/null 2>"$err"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL semprog on ctl_private: exit $rc"; cat "$err"; fail=1; fi
n=$(grep -c "pshared=1.*no process-shared state.*handed to glibc" "$err")
if [ "$n" -lt 2 ]; then
  echo "FAIL ctl_private: expected its 2 process-shared semaphores handed to glibc, saw $n"; cat "$err"; fail=1
else
  echo "ok   ctl_private: $n process-shared semaphores handed to glibc, the fork test passed"
fi
grep -Eq "pid [0-9]+: [1-9][0-9]* semaphores initialised on ctl_private" "$err" ||
  { echo "FAIL ctl_private: private semaphores not on the variant"; cat "$err"; fail=1; }
FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=ctl_negcount LD_PRELOAD=$so timeout -s KILL 120 "$semprog" >/dev/null 2>"$err"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL semprog on ctl_negcount: exit $rc"; cat "$err"; fail=1; fi
if grep -q "pshared=1" "$err"; then
  echo "FAIL ctl_negcount: a process-shared semaphore was handed over"; cat "$err"; fail=1
else
  echo "ok   ctl_negcount: process-shared semaphores stay on the variant across fork"
fi
rm -f "$err"
exit $fail
