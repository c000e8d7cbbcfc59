#!/usr/bin/env bash
# tests/mutants/run.sh — the mutation run: each mutant killed by the test
# that names it.
#   run.sh SRCDIR EDGE TORTURE CONFORMANCE EXCLUSION PROMISES_SH PRELOAD_SO PROMISES NAME...
# SRCDIR is tests/mutants (NAME.mut are read from it); EDGE, TORTURE,
# CONFORMANCE, EXCLUSION are those test programs linked against the mutants'
# registry; PROMISES_SH, PRELOAD_SO, PROMISES run tests/shim/promises.sh under
# the shim built over that registry (libfutexlab-preload-mutants.so).
#
# Every NAME is tests/mutants/NAME.mut (made into the variant NAME at build
# time: make-mutant, meson.build), whose header — the lines before its diff,
# if it has one — declares the design it is made from, a line
#     design: FILE
# and, for a mutant (mut_*), the one test that must kill it, a line
#     killed-by: SUITE CASE
# SUITE one of edge, torture, conformance, exclusion, promises; CASE the
# name the suite prints for a case: run_test()'s name for edge, conformance
# and exclusion ("FAIL CASE", "FAIL CASE: why" or "FAIL watchdog: test hung:
# CASE"), the
# scenario for promises ("FAIL CASE under the shim ..."), and for torture,
# which has no cases, the kind of its FAIL line (see torture_cases). Only
# that suite runs on the mutant. It is killed when the suite fails in CASE
# (other cases failing too are listed, not an error). It is an error when
# the suite passes (SURVIVED), fails only in other cases or in none it names
# (a crash, a hang past the bound: WRONG KILLER), when its declaration is
# missing, malformed or names a case no control of its design (a ctl_* with
# the same design: line) passes (ERROR), or when its result is
# missing (ERROR). A killer case the suite skipped here (its "SKIP CASE:
# why" line) is a skip: "SKIP NAME: ..." and counted so, neither a kill nor
# a failure.
#
# Controls (ctl_*, no killed-by:) are the designs unmutated: they run every
# suite and must pass each, or the kills prove nothing; a case a control's
# suite skipped is printed as a SKIP line.
#
# A mutant or control may also declare the waiting policy its suites run
# under (variants/policy.h), a line
#     policy: POLICY
# (FUTEXLAB_POLICY for each of its suite runs; none: park). The policy
# mutants (mut_policy_*.mut: variants/policy.c's FL_POLICY_MUTANTS, selected
# by the variant's name, over the design unmutated) declare one; a killer
# case must then be passed by a control of the same design under the same
# policy (ctl_*_spin.mut).
#
# The list is checked: every tests/mutants/*.mut is a NAME and
# every NAME such a file (no file left out of the run), each once, and every
# NAME has a result. Two names run at a time (MUTANT_JOBS; most kills wait
# on a liveness bound). Each suite run is bounded (MUTANT_BOUND overrides):
# by default the sum of the suite's own per-case watchdogs and a margin, so
# a suite's watchdog always fires first and names the hung case; the bound
# is only the backstop for a suite that hangs past its own watchdog.
# Prints one line per name and
#   mutants: K killed of N by their named test, S skipped; controls: P of C pass
# and exits 1 on any survivor, wrong killer, failing control or error.
set -u
src=$1; shift
export edge=$1 torture=$2 conformance=$3 exclusion=$4 promises_sh=$5 preload=$6 promises=$7
shift 7
export suites="edge torture conformance exclusion promises"
# torture's FAIL lines (tests/torture.c), by kind: "CASE|text in the line"
torture_cases="conservation|tokens not conserved
getvalue|getvalue said
result|, not allowed
stall|watchdog: no operation completed
drain|watchdog: drain did not finish
init|: init("
export torture_cases
# torture checks conservation and getvalue once per 0.5 s cycle, at its end:
# a mutant whose wrong state is there only now and then needs cycles.
# mut_musl_getvalue (a pending wake getvalue misses, left at a cycle's end
# in about 6 cycles of 10) survived 1 s (2 cycles) in 3 runs of 20 and 3 s
# in none of 20; 4 s (8 cycles) leaves it ~0.4^8 = 0.07 %.
export torture_seconds=${MUTANT_TORTURE_SECONDS:-4}
out=$(mktemp -d)
export out
trap 'rm -rf "$out"' EXIT

bound_of() { # SUITE -> seconds
  [ -n "${MUTANT_BOUND:-}" ] && { echo "$MUTANT_BOUND"; return; }
  case $1 in
    edge) echo 480 ;;        # run_test watchdogs in edge.c main(): 470 s in all
    conformance) echo 440 ;; # conformance.c main(): 430 s
    exclusion) echo 130 ;;   # test_exclusion.c: 120 s
    torture) echo 60 ;;      # $torture_seconds of cycles; its own watchdog: 5 s without progress
    promises) echo 300 ;;    # promises.sh: 7 runs of `timeout 40` (promises.c's own watchdog: 3 s)
  esac
}
export -f bound_of

# The cases a suite's log says failed, one per line (none: it named none).
failed_cases() { # SUITE LOG
  case $1 in
    torture)
      local c t
      while IFS='|' read -r c t; do
        grep -q '^ *FAIL ' "$2" && grep -F -q -- "$t" "$2" && echo "$c"
      done <<<"$torture_cases" ;;
    promises) sed -nE 's/^FAIL ([a-z-]+)[,:]? .*/\1/p' "$2" | sort -u ;;
    *) sed -nE 's/^FAIL ([A-Za-z0-9_-]+)(: .*)?$/\1/p; s/.*FAIL watchdog: test hung: ([^ ]+).*/\1/p' "$2" | sort -u ;;
  esac
}
# The cases a suite's log says passed on the design itself.
passed_cases() { # SUITE LOG RC
  case $1 in
    torture) [ "$3" -eq 0 ] && cut -d'|' -f1 <<<"$torture_cases" ;;
    promises) grep -E '^ok ' "$2" | grep -vE 'xfail|xpass|is capped|plain glibc|\(glibc' |
                sed -nE 's/^ok +([a-z-]+)[,:]? .*/\1/p' | sort -u ;;
    *) sed -nE 's/^ok +([^ ]+)$/\1/p' "$2" | sort -u ;;
  esac
}
export -f failed_cases passed_cases

# NAME.mut's header: its lines before the diff (all of them without one).
header_of() { # NAME
  sed -n '/^--- /q;p' "$src/$1.mut"
}
# The policy NAME.mut declares ("policy: P"), or nothing (park).
policy_of() { # NAME
  header_of "$1" | sed -nE 's/^policy: ([a-z0-9:-]+)[[:space:]]*$/\1/p' | head -1
}
export src
export -f header_of policy_of

# one NAME [SUITE]: runs SUITE (a mutant's killer) or every suite (a control)
# on NAME, under its declared policy; $out/NAME.res, one line per suite run:
# "suite|rc|secs|failed|passed" (cases comma-separated), written whole at the
# end; logs in $out/NAME.SUITE.log.
one() {
  local name=$1 list=${2:-$suites} suite log rc start ms res=""
  FUTEXLAB_POLICY=$(policy_of "$name")
  export FUTEXLAB_POLICY
  for suite in $list; do
    log=$out/$name.$suite.log
    start=$(date +%s%N)
    if [ "$suite" = promises ]; then
      # 1 s per destroy scenario: the race windows land the mutant's late
      # access in the first iterations (README); the full length is promises-V's
      PROMISES_SECONDS=${PROMISES_SECONDS:-1} timeout -s KILL "$(bound_of promises)" \
        bash "$promises_sh" "$name" - "$preload" "$promises" >"$log" 2>&1
    elif [ "$suite" = torture ]; then
      timeout -s KILL "$(bound_of torture)" "$torture" "$name" --seconds "$torture_seconds" \
        >"$log" 2>&1
    else
      timeout -s KILL "$(bound_of "$suite")" "${!suite}" "$name" >"$log" 2>&1
    fi
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    res+="$suite|$rc|$((ms / 1000)).$((ms % 1000 / 100))|$(failed_cases "$suite" "$log" | paste -sd, -)|$(passed_cases "$suite" "$log" "$rc" | paste -sd, -)"$'\n'
  done
  printf '%s' "$res" >"$out/$name.tmp" && mv "$out/$name.tmp" "$out/$name.res"
}
export -f one

errors=0
err() { echo "ERROR           $*"; errors=$((errors + 1)); }

# ---- the list against the files, and the declarations --------------------
declare -A listed killer_suite killer_case design policy
for name in "$@"; do
  case $name in
    mut_*|ctl_*) ;;
    *) err "$name: not a mutant (mut_*) or control (ctl_*) name"; continue ;;
  esac
  [ -n "${listed[$name]:-}" ] && err "$name: listed twice"
  listed[$name]=1
  f=$src/$name.mut
  if [ ! -f "$f" ]; then err "$name: listed, but $f does not exist"; continue; fi
  hdr=$(header_of "$name")
  design[$name]=$(sed -nE 's/^design: ([^ ]+)[[:space:]]*$/\1/p' <<<"$hdr" | head -1)
  if [ "$(grep -c '^design:' <<<"$hdr")" -ne 1 ] || [ -z "${design[$name]}" ]; then
    err "$name: no, a repeated or a malformed design declaration in $f (one \"design: FILE\" line)"; continue
  fi
  policy[$name]=$(policy_of "$name")
  if [ "$(grep -c '^policy:' <<<"$hdr")" -gt 1 ] || { grep -q '^policy:' <<<"$hdr" && [ -z "${policy[$name]}" ]; }; then
    err "$name: malformed or repeated policy declaration in $f (one \"policy: P\" line)"; continue
  fi
  decl=$(grep -c '^killed-by:' <<<"$hdr")
  if [ "${name#ctl_}" != "$name" ]; then
    [ "$decl" -gt 0 ] && err "$name: a control declares a killer ($f)"
    continue
  fi
  if [ "$decl" -ne 1 ]; then
    err "$name: $decl killed-by: lines in $f (exactly one: \"killed-by: SUITE CASE\")"; continue
  fi
  line=$(grep '^killed-by:' <<<"$hdr")
  if ! [[ $line =~ ^killed-by:\ ([a-z]+)\ ([A-Za-z0-9_-]+)[[:space:]]*$ ]]; then
    err "$name: malformed declaration in $f: '$line' (\"killed-by: SUITE CASE\")"; continue
  fi
  if [[ " $suites " != *" ${BASH_REMATCH[1]} "* ]]; then
    err "$name: declares suite '${BASH_REMATCH[1]}' (suites: $suites)"; continue
  fi
  killer_suite[$name]=${BASH_REMATCH[1]} killer_case[$name]=${BASH_REMATCH[2]}
done
for f in "$src"/*.mut; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .mut)
  [ -z "${listed[$n]:-}" ] && err "$n: $f is not in mutant_names (tests/mutants/meson.build): never run"
done

# ---- the runs ---------------------------------------------------------------
for name in "$@"; do
  if [ -n "${killer_suite[$name]:-}" ]; then echo "$name ${killer_suite[$name]}"
  elif [ "${name#ctl_}" != "$name" ] && [ -f "$src/$name.mut" ]; then echo "$name"
  fi
done | xargs -P "${MUTANT_JOBS:-2}" -L1 bash -c 'one "$@"' _

# ---- the verdicts ---------------------------------------------------------
# the log's first FAIL line, or (a suite that named no failure) its last line
first_fail() {
  { grep -m1 -E '^ *FAIL' "$1" || grep -v '^ *$' "$1" | tail -1; } 2>/dev/null | sed 's/^ *//' | cut -c1-160
}
declare -A passes # "ctl|suite" -> ,passed cases,
killed=0 nmut=0 skipped=0 ctl_ok=0 nctl=0 res_mut=0 res_ctl=0
for name in "$@"; do
  [ "${name#ctl_}" != "$name" ] || continue
  nctl=$((nctl + 1))
  if [ ! -f "$out/$name.res" ]; then
    err "$name: no result (its run did not finish or never started)"; continue
  fi
  res_ctl=$((res_ctl + 1))
  bad="" secs=0 skips=""
  while IFS='|' read -r suite rc s failed passed; do
    passes[$name|$suite]=",$passed,"
    secs=$(awk -v a="$secs" -v b="$s" 'BEGIN {print a + b}')
    log=$out/$name.$suite.log
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
      why="exit $rc"; [ "$rc" -eq 137 ] && why="hung past $(bound_of "$suite") s"
      bad+=" $suite ($why${failed:+, failed: $failed}): $(first_fail "$log");"
    fi
    [ "$rc" -eq 77 ] && skips+="SKIP $name: $suite skipped it: $(grep -m1 '^SKIP' "$log")"$'\n'
    [ "$rc" -eq 0 ] && skips+=$(grep '^SKIP ' "$log" | sed "s/^SKIP /SKIP $name $suite /")$'\n'
  done <"$out/$name.res"
  if [ "$(wc -l <"$out/$name.res")" -ne 5 ]; then
    bad+=" results for $(cut -d'|' -f1 "$out/$name.res" | paste -sd' ') only, not every suite;"
  fi
  if [ -n "$bad" ]; then
    echo "CONTROL FAILED  $name  by$bad"
    for suite in $suites; do tail -20 "$out/$name.$suite.log" 2>/dev/null | grep -E 'FAIL|watchdog' | head -5; done
  else
    ctl_ok=$((ctl_ok + 1))
    printf 'control ok      %-24s passes every suite (%s s)%s\n' "$name" "$secs" \
      "${policy[$name]:+ under policy ${policy[$name]}}"
  fi
  printf '%s' "$skips" | grep -v '^$'
done
for name in "$@"; do
  [ "${name#mut_}" != "$name" ] || continue
  nmut=$((nmut + 1))
  suite=${killer_suite[$name]:-} case=${killer_case[$name]:-}
  [ -n "$suite" ] || continue # (its declaration error is above)
  if [ ! -f "$out/$name.res" ]; then
    err "$name: no result (its run did not finish or never started)"; continue
  fi
  res_mut=$((res_mut + 1))
  IFS='|' read -r rsuite rc secs failed _ <"$out/$name.res"
  log=$out/$name.$suite.log
  # the killer case must be one a control of the same design passes, under
  # the same policy
  ctls="" passing=""
  for c in "$@"; do
    if [ "${c#ctl_}" = "$c" ] || [ "${design[$c]:-}" != "${design[$name]:-?}" ] ||
       [ "${policy[$c]:-}" != "${policy[$name]:-}" ]; then continue; fi
    ctls+=" $c"
    [[ ${passes[$c|$suite]:-} == *",$case,"* ]] && passing+=" $c"
  done
  if [ -z "$ctls" ]; then
    err "$name: no control of its design ${design[$name]:-?}${policy[$name]:+ under policy ${policy[$name]}}: a kill would prove nothing"
  elif [ -z "$passing" ]; then
    err "$name: declares '$suite $case', a case no control of its design passes (${ctls# })"
  fi
  verdict="" cause=$(first_fail "$log")
  if [ "$rsuite" != "$suite" ]; then
    err "$name: result for $rsuite, declared $suite"; continue
  elif [[ ",$failed," == *",$case,"* ]]; then
    killed=$((killed + 1))
    others=$(tr ',' '\n' <<<"$failed" | grep -vx -- "$case" | paste -sd, -)
    printf 'killed          %-24s %s s  by %s %s%s%s\n' "$name" "$secs" "$suite" "$case" \
      "${policy[$name]:+ under policy ${policy[$name]}}" "${others:+ (also failed: $others)}"
    continue
  elif grep -Eq "^SKIP $case: " "$log" && [ -z "$failed" ] && { [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; }; then
    skipped=$((skipped + 1))
    echo "SKIP $name: its killer $suite $case cannot run here: $(grep -m1 -E "^SKIP $case: " "$log" | cut -d: -f2- | sed 's/^ //')"
    continue
  elif [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then
    verdict=SURVIVED cause="$suite $( [ "$rc" -eq 77 ] && echo "skipped the design: $(grep -m1 '^SKIP' "$log")" || echo "passed")"
  elif [ -n "$failed" ]; then
    verdict="WRONG KILLER" cause="$suite failed in $failed, not $case: $cause"
  else
    why="exit $rc"; [ "$rc" -eq 137 ] && why="hung past $(bound_of "$suite") s"
    [ "$rc" -gt 128 ] && [ "$rc" -ne 137 ] && why="killed by SIG$(kill -l $((rc - 128)) 2>/dev/null)"
    verdict="WRONG KILLER" cause="$suite failed ($why) naming no case: $cause"
  fi
  printf '%-15s %-24s %s s  declared %s %s; %s\n' "$verdict" "$name" "$secs" "$suite" "$case" "$cause"
done

# ---- the totals -------------------------------------------------------------
if [ "$res_mut" -ne "$nmut" ] || [ "$res_ctl" -ne "$nctl" ]; then
  err "results for $res_mut of $nmut mutants and $res_ctl of $nctl controls listed"
fi
tail=""; [ "$errors" -gt 0 ] && tail="; $errors errors"
echo "mutants: $killed killed of $nmut by their named test, $skipped skipped; controls: $ctl_ok of $nctl pass$tail"
[ "$killed" -eq $((nmut - skipped)) ] && [ "$ctl_ok" -eq "$nctl" ] && [ "$errors" -eq 0 ]
