# shellcheck shell=bash
# tests/lib.sh — what the shell tests share; sourced, never run:
#   . "$(dirname "$0")/lib.sh"
# The output is what scripts/test and meson read: a line per check, "ok   X"
# or "FAIL X"; "SKIP what: why" for a check that cannot run here (never a
# pass: scripts/test counts and lists every such line of a test that ran);
# the closing line "NAME: N passed, M failed" (finish), whose exit status
# meson takes: 0 when nothing failed, 1 otherwise. A test skipped as a whole
# says why on a SKIP line and exits 77 (skip_test).
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
# skip_test NAME WHY: the test cannot go on here — "SKIP NAME: WHY" and exit
# 77, meson's "skipped" (no closing line: what it could not check is not
# counted as passed); tests/skip.sh, the stand-in for a test not built here,
# is this alone
skip_test() { echo "SKIP $1: $2"; exit 77; }

# timed: whether the build times as the machine does (scripts/test sets
# FL_TEST_SCALE=4 in the sanitizer builds, whose every op is the
# sanitizer's); verdict WHAT COMMAND...: a check on what the timings say —
# a check where timed, else a SKIP line with the reason
timed() { [ "${FL_TEST_SCALE:-1}" = 1 ]; }
verdict() {
  if timed; then check "$@"
  else skip "$1" "a sanitizer build (FL_TEST_SCALE=$FL_TEST_SCALE): the timings are the sanitizer's"; fi
}

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
# refused [-E] WHAT WANT COMMAND...: a check that COMMAND refuses its input
# (refusal: exit 2, nothing on stdout, one line on stderr holding WANT, any
# line when WANT is empty; with -E, WANT is an extended regular expression
# the line matches): "ok   WHAT: LINE", the line it printed, else a failure
# saying what was seen instead (refusal is the bare test, for a check that
# joins it with more).
# The caller's $rc, $out and $err are left alone (refusal's are local here).
refused() {
  local re=
  if [ "$1" = -E ]; then re=1; shift; fi
  local what=$1 want=$2 st out err rc; shift 2
  if [ -n "$re" ]; then refusal "" "$@" && grep -qE -- "$want" <<<"$err"
  else refusal "$want" "$@"; fi
  st=$?
  if [ "$st" = 0 ]; then ok "$what: $err"
  else bad "$what: rc=$rc, lines on stderr: $(grep -c '' <<<"$err"), stdout='$out' stderr='$err'${want:+ (want '$want')}"; fi
}

# succeeds WHAT COMMAND...: a check that COMMAND exits 0; its stdout and
# stderr, together, left in $out for the checks that read what it said, and
# shown under a failure
succeeds() {
  local what=$1; shift
  if out=$("$@" 2>&1); then ok "$what"
  else bad "$what: rc=$?"; echo "$out"; fi
}

# exits WHAT STATUS RE COMMAND...: a check that COMMAND exits STATUS and its
# output (stdout and stderr together) has a line matching the extended
# regular expression RE; a failure shows the status and the output
exits() {
  local what=$1 want=$2 re=$3 out rc; shift 3
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -eq "$want" ] && grep -qE -- "$re" <<<"$out"; then ok "$what"
  else bad "$what: exit $rc (want $want), output: $out"; fi
}

# absent RE TEXT: true when no line of TEXT matches the extended regular
# expression RE (check "no X" absent 'X' "$out")
absent() { ! grep -qE -- "$1" <<<"$2"; }

# now_ms: the wall clock in milliseconds, for a wait's bound and the time a
# failing message reports
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# sql SQL...: sqlite3 on the test's database, $db
sql() { sqlite3 "$db" "$@"; }

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

# COLS: awk text to put before an awk program so that it reads a CSV's or
# a TSV's columns by name, never by position: col("ns_per_op") is that
# column's number in the header (the first line not a comment), so
# $col("ns_per_op") its value. A name the header lacks stops awk (status 2,
# a line on stderr): a renamed column fails the test, never reads another.
#   awk -F, "$COLS"'$col("status") == "ok" { print $col("ns_per_op") }' run.csv
COLS='function col(name) {
  if (!(name in cols_)) { print "awk: no column " name " in the header" > "/dev/stderr"; exit 2 }
  return cols_[name] }
!cols_seen_ && !/^#/ { for (i_ = 1; i_ <= NF; i_++) cols_[$i_] = i_; cols_seen_ = 1 }
'

# csv_cols CSV [NAME=VALUE...] COLUMN...: the named columns of the run's
# rows whose NAME columns hold VALUE (every row without a NAME=VALUE), a line
# a row, space-separated, in the file's order; read with python's csv module,
# so a quoted note holding commas (a timeouts row's "18 posted, 18 taken,
# ...") moves no column, as it would under COLS' awk -F,. A word holding "="
# is a filter (no column's name has one). A column the header lacks stops it
# (python's KeyError, status 1, nothing printed): a renamed column fails the
# test, never reads as empty.
#   csv_cols run.csv status=ok variant=negcount ns_per_op
csv_cols() {
  python3 -c 'import csv, sys
want = [a.split("=", 1) for a in sys.argv[2:] if "=" in a]
cols = [a for a in sys.argv[2:] if "=" not in a]
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
for r in rows:
    if all(r[k] == v for k, v in want):
        print(" ".join(r[c] for c in cols))' "$@"
}

# count_rows CSV EXPR: how many of the run's rows satisfy the python
# expression EXPR, each row a dict r of its columns by name
# (count_rows run.csv "r['status'] == 'ok' and int(r['ops']) > 0"); True
# counts every row. A column the header lacks stops it (status 1).
count_rows() {
  python3 -c 'import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
print(sum(1 for r in rows if eval(sys.argv[2])))' "$@"
}

# run_csv [COLUMNS]: a crafted run (a CSV compare reads) from lines of
# NAME=VALUE words on stdin, a row each, so a test writes its rows by column
# name: the four metadata lines, the header (COLUMNS, default RUN_HEADER),
# then each row in the header's order, a column the line does not name
# taking RUN_DEFAULTS' value (else empty). A name the header lacks is an
# error (status 1): a misspelt column would otherwise be silently default.
RUN_HEADER=variant,workload,threads,tokens,hold_ns,think_ns,wake,ops,elapsed_ns,ns_per_op,ops_per_s,status,note,round,slot,cpu_user_ns,cpu_sys_ns,csw_vol,csw_invol
RUN_DEFAULTS="workload=pool tokens=1 hold_ns=0 think_ns=0 wake=exact ops=1000 elapsed_ns=1 ops_per_s=1 status=ok slot=0 cpu_user_ns=1000 cpu_sys_ns=0 csw_vol=0 csw_invol=0"
run_csv() {
  awk -v header="${1:-$RUN_HEADER}" -v defaults="$RUN_DEFAULTS" '
    function set(word, into,   eq) {
      eq = index(word, "="); into[substr(word, 1, eq - 1)] = substr(word, eq + 1) }
    BEGIN {
      print "# futexlab test"; print "# cpu: test cpu"; print "# cores: 2"; print "# kernel: test"
      print header
      n = split(header, h, ","); for (i = 1; i <= n; i++) known[h[i]] = 1
      m = split(defaults, d, " "); for (i = 1; i <= m; i++) set(d[i], dflt)
    }
    {
      split("", v)
      for (i = 1; i <= NF; i++) {
        set($i, v); name = substr($i, 1, index($i, "=") - 1)
        if (!(name in known)) { print "run_csv: no column " name > "/dev/stderr"; bad = 1; exit 1 }
      }
      line = ""
      for (i = 1; i <= n; i++) line = line (i > 1 ? "," : "") (h[i] in v ? v[h[i]] : dflt[h[i]])
      print line
    }'
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

# with_detail COMMAND ARGS...: futexlab ($fl) with --detail where it puts
# the full tables on the screen before the summary — run, sweep, exec and
# a one-file compare (--detail is refused with two files, --tsv, --pool,
# --db or --json); any other command as it is.
with_detail() {
  case ${1-} in
  run|sweep|exec) "$fl" "$1" --detail "${@:2}" ;;
  compare) if [ "$(printf '%s\n' "${@:2}" | grep -c '\.csv$')" = 1 ] &&
              ! printf '%s\n' "${@:2}" | grep -qxE -- '--(tsv|pool|db|json)'; then
             "$fl" compare --detail "${@:2}"; else "$fl" "$@"; fi ;;
  *) "$fl" "$@" ;;
  esac
}
