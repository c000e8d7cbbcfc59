# shellcheck shell=bash
# tests/lib.sh — what the shell tests share; sourced, never run:
#   . "$(dirname "$0")/lib.sh"
# The output is what scripts/test and meson read: a line per check, "ok   X"
# or "FAIL X"; "SKIP what: why" for a check that cannot run here (never a
# pass: scripts/test counts and lists every such line of a test that ran);
# the closing line "NAME: N passed, M failed" (finish), whose exit status
# meson takes: 0 when nothing failed, 1 otherwise. A test skipped as a whole
# says why on a SKIP line and exits 77 (tests/skip.sh).
pass=0 fail=0 skipped=0

# check WHAT COMMAND...: run COMMAND; a pass if it succeeds, else a failure
check() {
  local what=$1; shift
  if "$@"; then pass=$((pass+1)); echo "ok   $what"; else fail=$((fail+1)); echo "FAIL $what"; fi
}
# ok WHAT / bad WHAT: a pass or a failure decided by the caller (the failing
# message then says what was seen, which a check's fixed text cannot)
ok()  { pass=$((pass+1)); echo "ok   $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
# skip WHAT [WHY]: a check that cannot run here — "SKIP WHAT: WHY", never a
# pass (one argument: WHAT already says why)
skip() { skipped=$((skipped+1)); echo "SKIP $1${2:+: $2}"; }

# refusal WANT COMMAND...: true when COMMAND refuses its input as every
# command here must — exit 2, nothing on stdout, one line on stderr, that
# line holding WANT (any line when WANT is empty). Leaves the status, stdout
# and stderr in $rc, $out and $err for the caller's message (a caller that
# has its own of those names declares them local, and refusal sets those).
refusal() {
  local want=$1 f; shift
  f=$(mktemp /tmp/futexlab-refusal.XXXXXX)
  out=$("$@" 2>"$f"); rc=$?
  err=$(cat "$f")
  local lines; lines=$(wc -l <"$f")
  rm -f "$f"
  [ "$rc" = 2 ] && [ -z "$out" ] && [ "$lines" = 1 ] && { [ -z "$want" ] || [ "${err#*"$want"}" != "$err" ]; }
}

# scratch VAR NAME: a fresh directory /tmp/futexlab-NAME.XXXXXX in $VAR,
# removed when the test exits; a test with more to undo at exit (processes
# it started, a lock it holds) defines on_exit, which runs first.
lib_dirs=()
lib_exit() {
  if declare -F on_exit >/dev/null; then on_exit; fi
  if [ ${#lib_dirs[@]} -gt 0 ]; then rm -rf "${lib_dirs[@]}"; fi
}
scratch() {
  local dir
  dir=$(mktemp -d "/tmp/futexlab-$2.XXXXXX") || { echo "FAIL mktemp -d"; exit 1; }
  lib_dirs+=("$dir")
  printf -v "$1" '%s' "$dir"
  trap lib_exit EXIT
}

# finish [-s] NAME [NOTE]: the closing line, "NAME: N passed, M failed"
# (-s: then ", K skipped"; NOTE: then " NOTE"), and the test's exit status.
finish() {
  local tail=
  if [ "$1" = -s ]; then tail=", $skipped skipped"; shift; fi
  echo "$1: $pass passed, $fail failed$tail${2:+ $2}"
  [ "$fail" -eq 0 ] && exit 0
  exit 1
}
