#!/usr/bin/env bash
# tests/shim/promises.sh VARIANT FUTEXLAB PRELOAD_SO PROMISES
# The four POSIX promises (tests/shim/promises.c) under the shim with
# FUTEXLAB_VARIANT=VARIANT. Per scenario the run must succeed, and the shim's
# FUTEXLAB_DEBUG output must show either semaphores initialised on the
# variant, or a "refused" line naming the promise(s) the design declares
# broken. A refused design must declare those flags in `futexlab list`; it is
# then run again with FUTEXLAB_ALLOW=<its flags>: a scenario testing a
# declared-broken promise is reported "xfail (documented)" (or xpass) and
# never fails the test, every other scenario must pass on the design itself.
# glibc (glibc's own sem_t) also runs each scenario without any preload: the
# promises are glibc's to begin with.
#   PROMISES_SECONDS  length of the timed scenarios (default 2 for the two
#                     destroy ones, 1 for sigpost)
#   FUTEXLAB_POLICY   passed on to the program: the shim's waits under that
#                     waiting policy (variants/policy.h; tests/README.md,
#                     "Policies"); the exec'd worker under glibc goes without
#   PROMISES_NAMED    0: no named pass (below; the -adaptive copies)
#   PROMISES_NAMED_SECONDS  the named pass's timed scenarios (default 0.3)
# The named pass: every scenario again with sem_open'ed semaphores
# (promises --named), shorter, on the design itself (with FUTEXLAB_ALLOW for
# a refused one); their named semaphores must be the design's, or glibc's by
# the shim's own word for a design that cannot be process-shared.
# FUTEXLAB may be `-`: VARIANT is then one of the mutants' registry
# (tests/mutants/run.sh, with PRELOAD_SO its libfutexlab-preload-mutants.so),
# which `futexlab list` does not list: it is taken as available, the shim's
# refusal is not checked against a declaration (there is none to read; the
# refused scenarios still run as above), and the pshared-exec worker's other design is ctl_negcount (ctl_musl for
# ctl_negcount itself), the registry's names.
set -u
v=$1 futexlab=$2 so=$3 prog=$4
if [ "$futexlab" = - ]; then
  list="" line="$v available (mutants' registry)" status=available
else
  list=$("$futexlab" list)
  line=$(awk -v v="$v" '$1 == v' <<<"$list")
  if [ -z "$line" ]; then echo "promises: $v not in futexlab list"; exit 1; fi
  status=$(awk '{print $2}' <<<"$line")
fi
if [ "$status" != available ]; then echo "SKIP $v: $status"; exit 77; fi
# A design the shim does not offer (the C++ standard-library ones, or one
# that lacks getvalue or EOVERFLOW): the shim says why, and the test skips
# with that reason (never a silent pass).
why=$(FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=$v LD_PRELOAD=$so /bin/true 2>&1 |
  sed -n "s/^futexlab-preload: variant $v skipped: \(not offered by the shim: .*\); semaphores stay glibc's\$/\1/p")
if [ -n "$why" ]; then echo "SKIP $v: $why"; exit 77; fi

# What `futexlab list` declares the design breaks: its `breaks` column
# (destroy, signal, eintr; `-` none; `capped`). A list without that column
# (before the shim's tag in the semaphore) makes the declaration check a note.
bcol=$(head -1 <<<"$list" | awk '{for (i = 1; i <= NF; i++) if ($i == "breaks") print i}')
declared=""
if [ -n "$bcol" ]; then
  declared=$(awk -v c="$bcol" '{print $c}' <<<"$line" | tr ',' '\n' | grep -E '^(destroy|signal|eintr)$' | sort | paste -sd, -)
fi

scenarios="destroy-private destroy-shared sigpost pshared-exec eintr"
promise_of() { # the FUTEXLAB_ALLOW name of the promise a scenario tests
  case $1 in destroy-*) echo destroy ;; sigpost) echo signal ;; eintr) echo eintr ;; *) echo none ;; esac
}
length_of() {
  case $1 in
    destroy-*) echo "${PROMISES_SECONDS:-2}" ;;
    sigpost) echo "${PROMISES_SECONDS:-1}" ;;
    *) echo 1 ;;
  esac
}

out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail=0 summary=""

why() { # rc -> words
  local rc=$1
  if [ "$rc" -eq 3 ]; then echo "watchdog: hung"
  elif [ "$rc" -gt 128 ]; then echo "killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
  else echo "exit $rc"
  fi
}

first_fail() { { grep -m1 "promises: FAIL" "$err" || grep -m1 -v "^futexlab-preload" "$err"; } | cut -c1-240; }

# run SCENARIO SECONDS [ALLOW] [plain]: sets rc; output in $out, $err
# ($named: --named, the named pass)
named=
run() {
  local sc=$1 secs=$2 allow=${3:-} plain=${4:-}
  if [ -n "$plain" ]; then
    timeout -s KILL 40 "$prog" $named "$sc" "$secs" >"$out" 2>"$err"
  elif [ -n "$allow" ]; then
    FUTEXLAB_ALLOW=$allow FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=$v LD_PRELOAD=$so \
      timeout -s KILL 40 "$prog" $named "$sc" "$secs" >"$out" 2>"$err"
  else
    FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=$v LD_PRELOAD=$so \
      timeout -s KILL 40 "$prog" $named "$sc" "$secs" >"$out" 2>"$err"
  fi
  rc=$?
}

# At least one semaphore of the scenario on the variant (the process-shared
# scenarios: or handed to glibc by a design that refuses pshared).
on_variant() {
  local sc=$1
  grep -Eq "pid [0-9]+: [1-9][0-9]* semaphores initialised on $v," "$err" && return 0
  case $sc in destroy-shared|pshared-exec) ;; *) return 1 ;; esac
  grep -Eq "pid [0-9]+: [0-9]+ semaphores initialised on $v, [1-9][0-9]* handed to glibc" "$err"
}

handed() { grep -Eo "pid [0-9]+: [0-9]+ semaphores initialised on $v, [0-9]+ handed" "$err" |
  awk '{s += $(NF-1)} END {print s + 0}'; }

show() { grep -v "unnamed semaphores use\|handed to glibc$\|: named, [^ ]*'s$" "$err" | head -8 | sed 's/^/      /'; }

result() { # scenario outcome
  summary="$summary $1=$2"
}

echo "# promises $v"
if [ "$v" = glibc ]; then
  for sc in $scenarios; do
    run "$sc" "$(length_of "$sc")" "" plain
    if [ "$rc" -ne 0 ]; then
      echo "FAIL $sc with plain glibc (no preload): $(why $rc): $(first_fail)"; show; fail=1
    else
      echo "ok   $sc with plain glibc (no preload): $(sed 's/^ok *[^:]*: //' "$out")"
    fi
  done
fi

# The shim says at start whether it refuses the design, naming each broken
# promise as "NAME (why)".
FUTEXLAB_DEBUG=1 FUTEXLAB_VARIANT=$v LD_PRELOAD=$so env true 2>"$err"
refused=$(grep -i "refused" "$err" | head -1)
capped=$(grep "is capped" "$err")
allow=$(grep -oE '(destroy|signal|eintr) \(' <<<"$refused" | cut -d' ' -f1 | sort | paste -sd, -)
if [ -n "$refused" ]; then
  if [ -z "$allow" ]; then
    echo "FAIL $v: the shim's refusal names no promise (destroy, signal, eintr): $refused"; exit 1
  fi
  echo "    $v refused by the shim: $refused"
fi
if [ "$futexlab" = - ]; then
  : # the mutants' registry: no list to declare in (see the header)
elif [ -z "$bcol" ]; then
  [ -n "$allow" ] &&
    echo "    NOTE: futexlab list has no 'breaks' column yet: cannot check that $v declares '$allow'"
elif [ "$allow" != "$declared" ]; then
  echo "FAIL $v: futexlab list declares it breaks '${declared:--}', the shim refuses it for '${allow:--}'"
  fail=1
fi

for sc in $scenarios; do
  secs=$(length_of "$sc")
  # all glibc's (glibc, or a refused design): a shorter run shows the shim's
  # pass-through; the design itself, if any, runs the full length below
  if [ "$v" = glibc ] || [ -n "$allow" ]; then secs=0.5; fi
  run "$sc" "$secs"
  if [ "$rc" -ne 0 ]; then
    echo "FAIL $sc under the shim ($v): $(why $rc): $(first_fail)"; show
    fail=1; result "$sc" "FAIL($(why $rc))"; continue
  fi
  if [ "$v" = glibc ]; then
    if ! grep -q "passing every call through" "$err"; then
      echo "FAIL $sc: no pass-through line for glibc"; show; fail=1; result "$sc" FAIL; continue
    fi
    echo "ok   $sc under the shim (glibc: the pass-through)"; result "$sc" ok; continue
  fi
  if grep -q "is capped" "$err"; then
    echo "ok   $sc under the shim ($v is capped: the shim keeps glibc's semaphores)"
    result "$sc" "ok(glibc)"; continue
  fi
  if [ -z "$allow" ]; then
    if ! on_variant "$sc"; then
      echo "FAIL $sc: no semaphore was initialised on $v and the shim refused nothing"; show
      fail=1; result "$sc" FAIL; continue
    fi
    h=$(handed)
    echo "ok   $sc on $v$([ "$h" -gt 0 ] && echo " ($h process-shared handed to glibc)"): $(sed 's/^ok *[^:]*: //' "$out")"
    result "$sc" ok; continue
  fi
  # refused: glibc's semaphores passed; now the design itself, opted in
  if grep -Eq "pid [0-9]+: [1-9][0-9]* semaphores initialised on $v," "$err"; then
    echo "FAIL $sc: $v was refused, yet semaphores were initialised on it"; show
    fail=1; result "$sc" FAIL; continue
  fi
  p=$(promise_of "$sc")
  # a declared-broken eintr fails by sleeping to its deadline: 1 s shows it
  # (promises.c, eintr_bound); every other run keeps the full bound
  if [[ ",$allow," == *",$p,"* ]]; then export PROMISES_EINTR_BOUND=1; fi
  run "$sc" "$(length_of "$sc")" "$allow"
  unset PROMISES_EINTR_BOUND
  if [ "$rc" -eq 0 ] && ! on_variant "$sc"; then
    echo "FAIL $sc: with FUTEXLAB_ALLOW=$allow still no semaphore on $v"; show
    fail=1; result "$sc" FAIL; continue
  fi
  if [[ ",$allow," == *",$p,"* ]]; then
    if [ "$rc" -eq 0 ]; then
      echo "ok   $sc: refused (glibc's passed); with FUTEXLAB_ALLOW=$allow: xpass (declared broken, held this time)"
      result "$sc" "refused/xpass"
    else
      echo "ok   $sc: refused (glibc's passed); with FUTEXLAB_ALLOW=$allow: xfail (documented): $(why $rc): $(first_fail)"
      result "$sc" "refused/xfail"
    fi
  elif [ "$rc" -eq 0 ]; then
    h=$(handed)
    echo "ok   $sc: refused (glibc's passed); with FUTEXLAB_ALLOW=$allow on $v$([ "$h" -gt 0 ] && echo " ($h process-shared handed to glibc)"): $(sed 's/^ok *[^:]*: //' "$out")"
    result "$sc" "refused/ok"
  else
    echo "FAIL $sc on $v with FUTEXLAB_ALLOW=$allow (a promise it does not declare broken): $(why $rc): $(first_fail)"
    show; fail=1; result "$sc" "refused/FAIL($(why $rc))"
  fi
done
# A process-shared semaphore is the design's that made it, whatever the
# process that uses it runs: the exec'd worker under the glibc pass-through
# (and under another design) must ping-pong on the parent's design (the
# shim's tag), never read its bytes as glibc's or as its own layout.
if [ "$v" != glibc ] && [ -z "$allow" ] && ! grep -q "is capped" "$err"; then
  other=negcount; [ "$v" = negcount ] && other=musl
  workers="glibc $other"
  if [ "$futexlab" = - ]; then # (that registry has no glibc)
    other=ctl_negcount; [ "$v" = ctl_negcount ] && other=ctl_musl
    workers=$other
  fi
  for wv in $workers; do
    PROMISES_WORKER_VARIANT=$wv run pshared-exec 1
    if [ "$rc" -ne 0 ]; then
      echo "FAIL pshared-exec, parent on $v, exec'd worker on $wv: $(why $rc): $(first_fail)"; show
      fail=1; result "pshared-exec/worker=$wv" FAIL
    else
      echo "ok   pshared-exec, parent on $v, exec'd worker on $wv: $(sed 's/^ok *[^:]*: //' "$out")"
      result "pshared-exec/worker=$wv" ok
    fi
  done
fi

# The named pass. A process's exit message must count its named opens on
# the design: some process with K >= 1 on it and K + H = M (every named
# open on the design, or handed over as a value above its value_max;
# pshared-exec's worker opens the handed one by name: not its own, so the
# parent is that process). A design that cannot be process-shared keeps them
# glibc's and must say so. Not run: capped (glibc's), the mutants' registry
# (FUTEXLAB `-`: its killers are the unnamed scenarios), PROMISES_NAMED=0
# (the -adaptive copies: the cut in tests/README.md, "Policies").
named_on() { # -> nglibc set when the design keeps them glibc's
  nglibc=
  if grep -q "variant $v cannot be process-shared: named semaphores stay glibc's" "$err"; then
    nglibc=1; grep -Eq "pid [0-9]+: 0 semaphores initialised on $v, [0-9]+ handed to glibc, [1-9][0-9]* named opens" "$err"
    return
  fi
  grep -Eo "pid [0-9]+: [0-9]+ semaphores initialised on $v, [0-9]+ handed to glibc, [0-9]+ named opens" "$err" |
    awk '{k = $3; h = $(NF-6); m = $(NF-2); if (k >= 1 && m >= 1 && k + h == m) ok = 1} END {exit !ok}'
}
named_secs() { case $1 in destroy-*|sigpost) echo "${PROMISES_NAMED_SECONDS:-0.3}" ;; *) echo 1 ;; esac; }
named_ok() { # scenario label [key]: the named pass's ok line (or FAIL when not on the design)
  local key=${3:-$1(named)}
  if ! named_on; then
    echo "FAIL $1 (named) $2: the named semaphores were not on $v"
    { grep -m2 "sem_open(" "$err"; grep "semaphores initialised" "$err"; } | sed 's/^/      /'
    fail=1; result "$key" FAIL; return
  fi
  echo "ok   $1 (named) $2$([ -n "$nglibc" ] && echo " (named semaphores glibc's: $v cannot be process-shared)"): $(sed 's/^ok *[^:]*: //' "$out")"
  result "$key" ok
}
if [ "${PROMISES_NAMED:-1}" != 0 ] && [ "$futexlab" != - ] && [ -z "$capped" ]; then
  named=--named other=negcount; [ "$v" = negcount ] && other=musl
  for sc in $scenarios; do
    secs=$(named_secs "$sc") p=$(promise_of "$sc")
    if [ "$v" = glibc ]; then
      run "$sc" "$secs" "" plain
      if [ "$rc" -ne 0 ]; then
        echo "FAIL $sc (named) with plain glibc (no preload): $(why $rc): $(first_fail)"; show; fail=1
      else
        echo "ok   $sc (named) with plain glibc (no preload): $(sed 's/^ok *[^:]*: //' "$out")"
      fi
      run "$sc" "$secs"
      if [ "$rc" -ne 0 ] || ! grep -q "passing every call through" "$err"; then
        echo "FAIL $sc (named) under the shim (glibc: the pass-through): $(why $rc): $(first_fail)"; show
        fail=1; result "$sc(named)" FAIL
      else
        echo "ok   $sc (named) under the shim (glibc: the pass-through)"; result "$sc(named)" ok
      fi
      continue
    fi
    run "$sc" "$secs" "$allow"
    if [ -n "$allow" ] && [[ ",$allow," == *",$p,"* ]]; then
      if [ "$rc" -eq 0 ]; then
        echo "ok   $sc (named) with FUTEXLAB_ALLOW=$allow: xpass (declared broken, held this time)"
        result "$sc(named)" xpass
      else
        echo "ok   $sc (named) with FUTEXLAB_ALLOW=$allow: xfail (documented): $(why $rc): $(first_fail)"
        result "$sc(named)" xfail
      fi
    elif [ "$rc" -ne 0 ]; then
      echo "FAIL $sc (named) on $v${allow:+ with FUTEXLAB_ALLOW=$allow}: $(why $rc): $(first_fail)"; show
      fail=1; result "$sc(named)" "FAIL($(why $rc))"
    else
      named_ok "$sc" "on $v${allow:+ with FUTEXLAB_ALLOW=$allow}"
    fi
  done
  # the exec'd worker opens the names under the pass-through and another
  # design: the parent's design serves them (the files' tag)
  if [ "$v" != glibc ] && [ -z "$allow" ]; then
    for wv in glibc $other; do
      PROMISES_WORKER_VARIANT=$wv run pshared-exec 1
      if [ "$rc" -ne 0 ]; then
        echo "FAIL pshared-exec (named), parent on $v, exec'd worker on $wv: $(why $rc): $(first_fail)"; show
        fail=1; result "pshared-exec(named)/worker=$wv" FAIL
      else
        named_ok pshared-exec "parent on $v, exec'd worker on $wv" "pshared-exec(named)/worker=$wv"
      fi
    done
  fi
  named=
fi
echo "promises $v:$summary"
exit $fail
