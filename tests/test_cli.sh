#!/usr/bin/env bash
# tests/test_cli.sh — bad input gets one line on stderr and exit status 2;
# good input works. Usage: test_cli.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
# hash_skipped FILE MODE: every row of MODE is skipped because the kernel
# lacks PR_FUTEX_HASH (the only reason a hash mode may not run)
hash_skipped() {
  [ "$(count_rows "$1" "r['hash'] == '$2'")" -gt 0 ] &&
  [ "$(count_rows "$1" "r['hash'] == '$2' and not (r['status'] == 'skipped' and 'PR_FUTEX_HASH' in r['note'])")" -eq 0 ]
}

refused "no command" "" with_detail
refused "unknown command" "" with_detail frobnicate
refused "unknown variant" "" with_detail run --variant nosuch --workload uncontended
refused "unknown workload" "" with_detail run --variant negcount --workload nosuch
refused "unknown flag" "" with_detail run --bogus
refused "missing value" "" with_detail run --threads
refused "non-numeric threads" "" with_detail run --threads four
refused "zero threads" "" with_detail run --threads 0
refused "a list longer than its buffer (never cut short)" "" with_detail run --threads "$(printf '%016d,' $(seq 62))1"
refused "too many threads" "" with_detail run --threads 100000
refused "negative tokens" "" with_detail run --tokens -1
refused "trailing garbage" "" with_detail run --rounds 3x
refused "bad duration" "" with_detail run --duration abc
refused "zero duration" "" with_detail run --duration 0
refused "duration and ops" "" with_detail run --duration 1 --ops 10
refused "empty list item" "" with_detail run --variant negcount,,split
refused "bad wake mode" "" with_detail run --wake some
refused "stray argument" "" with_detail run extra
refused "list argument" "" with_detail list extra

succeeds "help" with_detail --help
succeeds "run help" with_detail run --help
# Help on every command and at the top, as -h, --help and help COMMAND:
# exit 0, the usage on stdout, nothing on stderr.
helps() { # description, args...
  local what=$1; shift
  local out rc
  out=$("$fl" "$@" 2>/tmp/fl_cli_err.$$); rc=$?
  if [ "$rc" -eq 0 ] && [ ! -s /tmp/fl_cli_err.$$ ] && grep -q '^usage: futexlab' <<<"$out"; then
    pass=$((pass+1)); echo "ok   $what"
  else
    fail=$((fail+1)); echo "FAIL $what: rc=$rc stderr='$(cat /tmp/fl_cli_err.$$)'"
  fi
}
for h in -h --help help; do helps "futexlab $h" $h; done
for c in list run sweep exec hunt compare report store history version; do
  helps "futexlab $c -h" $c -h
  helps "futexlab $c --help" $c --help
  helps "futexlab help $c" help $c
  # the option table lists each option once
  dup=$("$fl" $c --help | grep -oE '^  --[a-z][a-z0-9-]*( |$)' | sort | uniq -d)
  if [ -z "$dup" ]; then pass=$((pass+1)); echo "ok   $c --help lists each option once"
  else fail=$((fail+1)); echo "FAIL $c --help lists twice: $dup"; fi
done
helps "futexlab store add -h" store add -h
helps "futexlab store ls --help" store ls --help
refused "help of no command" "" with_detail help nosuch
refused "-h with an argument" "" with_detail -h run
# Each command's help is generated from its option table: every option the
# parser takes is listed (--reps, the old name of --rounds, is not), and
# --reps still works, with one line of deprecation on stderr.
for c in run sweep exec compare list hunt; do
  h=$("$fl" $c --help)
  if [ $c = hunt ] && { ! grep -q -- '--rep-seconds S ' <<<"$h" || ! grep -q -- '--stall-us US ' <<<"$h" ||
                        grep -qE -- '^  --(rep|spin-us) ' <<<"$h"; }; then
    bad "hunt help: --rep-seconds/--stall-us not listed, or an old name listed"
  elif [ $c != list ] && [ $c != compare ] && [ $c != hunt ] &&
       { ! grep -q -- '--rounds R ' <<<"$h" || grep -q -- '--reps' <<<"$h"; }; then
    bad "$c help: --rounds not listed, or --reps listed"
  elif [ $c != list ] && [ $c != compare ] &&
       { ! grep -qE -- '--policy (LIST|POLICY) +waiting policies|--policy POLICY +the designs' <<<"$h" ||
         ! grep -q 'spin-yield:N, adaptive' <<<"$h" || grep -q -- '--spin ' <<<"$h"; }; then
    bad "$c help: --policy not listed with the policies, or --spin listed"
  elif ! grep -q -- '--help  *this text' <<<"$h"; then
    bad "$c help: --help not listed"
  else ok "$c help lists its options"; fi
done
rerr=$("$fl" run --detail --variant negcount --workload uncontended --ops 200 --reps 2 --warmup 0 \
  --no-floors --no-control --no-probes --quiet 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] && [ "$rerr" = "futexlab: --reps is now --rounds" ]; then
  ok "--reps: accepted, one line of deprecation"
else bad "--reps: rc=$rc stderr='$rerr'"; fi
rerr=$("$fl" run --detail --reps 0 2>&1 >/dev/null); rc=$?
if [ $rc -eq 2 ] && [ "$(grep -c '' <<<"$rerr")" -eq 2 ] && grep -q 'rounds' <<<"$rerr"; then
  ok "--reps 0: the note, then the usage error on --rounds, exit 2"
else bad "--reps 0: rc=$rc stderr='$rerr'"; fi
succeeds "list" with_detail list
csv=$(mktemp -d)/r.csv
# (--no-probes here and in the row counts below: the rows are the timed
# rounds alone; as root a run without it adds R/3 probed rounds' rows,
# test_resolution.sh)
succeeds "tiny run with CSV" with_detail run --variant negcount,glibc --workload uncontended,pool \
  --ops 2000 --rounds 2 --threads 2 --tokens 1 --no-probes --csv "$csv" --quiet
rows=$(grep -vc '^#' "$csv")
# header + 2 reps x (uncontended: negcount, glibc, the control glibc#2 and
# the 3 floors; pool: negcount, glibc, glibc#2)
if [ "$rows" -eq 19 ]; then ok "csv rows"; else
  bad "csv rows: $rows"; cat "$csv"; fi
# the floors (workloads/floors.c): floor-atomic and floor-futex where floors
# mean something, floor-inline (its ops inlined in the loop) at uncontended
# alone; none at pool
fl_rows() { awk -F, -v v="$1" -v w="$2" "$COLS"'!/^#/ && $col("variant") ~ v && $col("workload") == w { n++ }
  END { print n + 0 }' "$csv"; }
if [ "$(fl_rows '^floor-atomic$' uncontended)" -eq 2 ] && [ "$(fl_rows '^floor-inline$' uncontended)" -eq 2 ] &&
   [ "$(fl_rows '^floor-futex$' uncontended)" -eq 2 ] && [ "$(fl_rows '^floor-' pool)" -eq 0 ]; then
  ok "the floors where they mean something"; else
  bad "floors' rows"; cat "$csv"; fi
if grep -q '^# kernel: ' "$csv" && grep -q '^variant,workload,' "$csv"; then
  ok "csv metadata"; else bad "csv metadata"; fi
if ! ls "$(dirname "$csv")" | grep -q tmp; then ok "no temp file left"; else
  bad "temp file left"; fi
rm -rf "$(dirname "$csv")"

# inline forms (workloads/uncontended.c): NAME-inline runs the design's own
# loop (.pairs) at uncontended, beside floor-inline: every row ok with the
# value check made (a loop that skipped a wait leaves tokens: an error row),
# --ops met exactly (1000 is no multiple of the 256-pair calls); a policy
# may be pinned; skipped at another workload; refused (exit 2) for a design
# with no form, or one run in a helper
csv=$(mktemp -d)/i.csv
succeeds "inline forms" with_detail run --variant negcount-inline,glibc-inline,cxx-gnu-inline,split-inline@adaptive \
  --workload uncontended,pingpong --ops 1000 --rounds 2 --no-probes --csv "$csv" --quiet
forms="('negcount-inline', 'glibc-inline', 'cxx-gnu-inline', 'split-inline@adaptive', 'floor-inline')"
if [ "$(count_rows "$csv" "r['variant'] in $forms and r['workload'] == 'uncontended' and r['status'] == 'ok' and r['ops'] == '1000'")" -eq 10 ] &&
   [ "$(count_rows "$csv" "r['variant'] in $forms and r['workload'] == 'pingpong' and r['status'] == 'skipped' and 'uncontended only' in r['note']")" -eq 4 ]; then
  ok "inline forms: ok at uncontended, exact --ops, skipped at pingpong"
else bad "inline forms' rows"; cat "$csv"; fi
rm -rf "$(dirname "$csv")"
refused "a design without an inline form" "" with_detail run --variant numa-inline --workload uncontended
refused "a helper-run design has no inline form" "" with_detail run --variant musl-libc-inline --workload uncontended
refused "an inline form of no design" "" with_detail run --variant nosuch-inline --workload uncontended

# --hash (futex hash modes, each in its own process) and --spin
refused "hash not a power of two" "" with_detail run --hash private:3
refused "hash one slot" "" with_detail run --hash private:1
refused "hash zero slots" "" with_detail run --hash private:0
refused "hash no number" "" with_detail run --hash private:
refused "hash unknown mode" "" with_detail run --hash immutable
refused "hash empty item" "" with_detail run --hash global,,auto
refused "hash twice" "" with_detail run --hash global,private:16,global
refused "hash bad item in list" "" with_detail run --hash global,private:12
refused "negative spin" "" with_detail run --spin -1
refused "spin too large" "" with_detail run --spin 2000000
refused "spin not a number" "" with_detail run --spin lots
hdir=$(mktemp -d)
hcsv=$hdir/h.csv
succeeds "run over --hash global,private:16" with_detail run --variant negcount,portable \
  --workload uncontended,pingpong --ops 500 --rounds 2 --no-floors --spin 7 --latency \
  --hash global,private:16 --no-probes --csv "$hcsv" --quiet
# 2 modes x 2 variants x 2 workloads x 2 reps; columns found by name
# --spin 7, the old form of --policy spin:7: negcount@spin:7 and portable@spin:7
if grep -q '^variant,.*,status,note,hash,policy' "$hcsv" &&
   [ "$(count_rows "$hcsv" "r['hash'] == 'global'")" -eq 8 ] && [ "$(count_rows "$hcsv" "r['policy'] == 'spin:7'")" -eq 16 ] &&
   [ "$(count_rows "$hcsv" "r['variant'] == 'negcount@spin:7'")" -eq 8 ] && [ "$(count_rows "$hcsv" "r['variant'] == 'portable@spin:7'")" -eq 8 ] &&
   [ "$(count_rows "$hcsv" "r['hash'] == 'private:16'")" -eq 8 ] &&
   [ "$(grep -vc '^#' "$hcsv")" -eq 17 ]; then
  if grep -q ',skipped,' "$hcsv"; then
    # a kernel without PR_FUTEX_HASH: every point skipped, with the reason
    if [ "$(grep -c ',skipped,"hash .*PR_FUTEX_HASH' "$hcsv")" -eq 16 ]; then
      ok "hash rows skipped with the reason: $(grep -m1 -o '"hash [^"]*"' "$hcsv")"
      skip "hash rows run under global and private:16: the kernel lacks PR_FUTEX_HASH"
    else bad "hash rows skipped without the reason"; cat "$hcsv"; fi
  elif [ "$(count_rows "$hcsv" "r['status'] == 'ok'")" -eq 16 ]; then
    ok "hash rows: 8 global, 8 private:16, policy spin:7"
  else bad "hash rows not ok"; cat "$hcsv"; fi
else
  bad "hash csv"; cat "$hcsv"
fi
if [ "$(ls -A "$hdir" | tr '\n' ' ')" = "h.csv h.lat.csv " ]; then
  ok "no per-mode file left (h.csv and its latency file h.lat.csv)"; else
  bad "per-mode files left: $(ls -A "$hdir")"; fi
# --latency / --no-latency / each workload's default: which rows carry lat_*
ldir=$(mktemp -d)
lat_rows() { python3 -c 'import csv,sys
rows=[r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")) if r["status"]=="ok"]
print(sum(1 for r in rows if r["workload"]==sys.argv[2] and r["lat_p50_ns"]!="" and int(r["lat_n"])>0), len([r for r in rows if r["workload"]==sys.argv[2]]))' "$@"; }
"$fl" run --detail --variant negcount --workload pool,timeouts --threads 2 --rounds 2 --duration 0.02 \
  --no-probes --no-control --quiet --csv "$ldir/d.csv" >/dev/null
"$fl" run --detail --variant negcount --workload pool,timeouts --threads 2 --rounds 2 --duration 0.02 \
  --no-probes --no-control --quiet --latency --csv "$ldir/on.csv" >/dev/null
"$fl" run --detail --variant negcount --workload pool,timeouts --threads 2 --rounds 2 --duration 0.02 \
  --no-probes --no-control --quiet --no-latency --csv "$ldir/off.csv" >/dev/null
got="$(lat_rows "$ldir/d.csv" pool) $(lat_rows "$ldir/d.csv" timeouts) $(lat_rows "$ldir/on.csv" pool) $(lat_rows "$ldir/off.csv" timeouts)"
if [ "$got" = "0 2 2 2 2 2 0 2" ] && [ -s "$ldir/on.lat.csv" ] && [ ! -e "$ldir/off.lat.csv" ] &&
   grep -q "^# latency: timeouts (each" "$ldir/d.csv" && grep -q '^# timer: ' "$ldir/d.csv"; then
  ok "latency: default timeouts only, --latency everywhere, --no-latency nowhere"
else
  bad "latency rows (timed/ok: pool default, timeouts default, pool --latency, timeouts --no-latency): $got; load $(cut -d' ' -f1-3 /proc/loadavg)"
  # the rows that were not ok, with their notes: why a row is missing
  for f in d on off; do grep -v '^#' "$ldir/$f.csv" | grep -v ',ok,' | sed "s/^/  $f.csv: /"; done
fi
rm -rf "$ldir"
# the latency side file holds each mode's distributions: every mode whose
# rows ran has some (a mode the kernel cannot set is a SKIP, never a pass)
for m in global private:16; do
  ran=$(count_rows "$hcsv" "r['hash'] == '$m' and r['status'] == 'ok'")
  if [ "$ran" -gt 0 ]; then
    lat=$( [ -f "$hdir/h.lat.csv" ] && count_rows "$hdir/h.lat.csv" "r['hash'] == '$m'" || echo 0)
    if [ "$lat" -gt 0 ]; then ok "h.lat.csv: hash $m ($ran rows ran, $lat latency rows)"
    else bad "h.lat.csv lacks hash $m ($ran rows ran)"; head -5 "$hdir/h.lat.csv"; fi
  elif hash_skipped "$hcsv" "$m"; then
    skip "h.lat.csv for hash $m: the kernel lacks PR_FUTEX_HASH (no row of that mode ran)"
  else bad "hash $m: no row ran, and not for lack of PR_FUTEX_HASH"; cat "$hcsv"; fi
done
rm -rf "$hdir"

# ---- sweep and compare ----
refused "sweep: empty list" "" with_detail sweep --threads ''
refused "sweep: empty item" "" with_detail sweep --tokens 1,,2
refused "sweep: unknown variant" "" with_detail sweep --variants negcount,nosuch
refused "sweep: unknown workload" "" with_detail sweep --workloads pool,nosuch
refused "sweep: unknown wake mode" "" with_detail sweep --wake exact,some
refused "sweep: unknown preset" "" with_detail sweep --preset medium
refused "sweep: preset with axes" "" with_detail sweep --preset quick --threads 2
refused "sweep: impossible prodcons" "" with_detail sweep --workloads prodcons --threads 1
refused "sweep: impossible oversub" "" with_detail sweep --workloads oversub --threads 1
refused "sweep: zero threads" "" with_detail sweep --threads 0,2
refused "sweep: budget too small" "" with_detail sweep --budget 0.005 --rounds 10
refused "sweep: ops and duration" "" with_detail sweep --ops 10 --duration 1
refused "sweep: bad pin" "" with_detail sweep --pin x
refused "sweep: stray argument" "" with_detail sweep extra
refused "sweep: unknown baseline" "" with_detail sweep --baseline nosuch
refused "sweep: negative spin" "" with_detail sweep --spin 0,-1
refused "sweep: bad hash mode" "" with_detail sweep --hash private:3
refused "compare: no file" "" with_detail compare
refused "compare: three files" "" with_detail compare a b c
refused "compare: missing file" "" with_detail compare /nonexistent/x.csv
succeeds "sweep help" with_detail sweep --help
succeeds "compare help" with_detail compare --help

d=$(mktemp -d)
succeeds "small sweep" with_detail sweep --variants negcount,glibc \
  --workloads uncontended,prodcons,barrier,timeouts --threads 1,2 --tokens 2 \
  --ops 300 --rounds 2 --warmup 0 --csv "$d/s.csv" --quiet
check "sweep prints the ratio table" grep -q 'ratio: ns per op / glibc' <<<"$out"
check "sweep summary line" grep -q '^sweep done: .* 0 error' <<<"$out"
check "prodcons T=1 is a skipped row with its reason" \
  grep -q '^negcount,prodcons,1,.*,skipped,"prodcons needs >= 2 threads' "$d/s.csv"
check "barrier and timeouts rows are ok" \
  bash -c "grep -q '^glibc,barrier,2,.*,ok,' '$d/s.csv' && grep -q '^negcount,timeouts,2,.*,ok,' '$d/s.csv'"
check "sweep CSV keeps the metadata" grep -q '^# command: sweep ' "$d/s.csv"
rows=$(( $(grep -vc '^#' "$d/s.csv") - 1 ))
noperf=$(count_rows "$d/s.csv" "r['task_clock_ns'] == '' and r['instructions'] == ''")
check "perf columns present and empty without --perf" \
  bash -c "grep '^variant,' '$d/s.csv' | grep -q ',task_clock_ns,context_switches,cpu_migrations,cycles,instructions' && [ '$noperf' -eq $rows ]"
refused "compare: baseline missing" "" with_detail compare "$d/s.csv" --baseline nosuch
succeeds "compare one file" with_detail compare "$d/s.csv"

# Crafted runs of 8 rounds. a: negcount = glibc = 100+r ns; glibc#2 (the
# control) 100+r+(r%2). b: negcount 150+r (1.45x glibc: beyond the noise),
# glibc 102+r, glibc#2 as glibc +-1. c: a with the whole machine 40%
# slower (drift: every ratio the same as in a).
craft() { # file, negcount base, glibc base, scale%
  { echo "# futexlab test"; echo "# cpu: test cpu"; echo "# cores: 2"; echo "# kernel: test"
    echo "variant,workload,threads,tokens,hold_ns,think_ns,wake,rep,ops,elapsed_ns,ns_per_op,ops_per_s,status,note,hash,spin,round,slot"
    for r in 0 1 2 3 4 5 6 7; do
      echo "negcount,pool,4,1,0,0,exact,$r,1000,1,$(( ($2 + r) * $4 / 100 )).0,1,ok,\"\",auto,0,$r,0"
      echo "glibc,pool,4,1,0,0,exact,$r,1000,1,$(( ($3 + r) * $4 / 100 )).0,1,ok,\"a, quoted \"\"note\"\"\",auto,0,$r,1"
      echo "glibc#2,pool,4,1,0,0,exact,$r,1000,1,$(( ($3 + r + r % 2) * $4 / 100 )).0,1,ok,\"\",auto,0,$r,2"
    done; } >"$1"
}
craft "$d/a.csv" 100 100 100
craft "$d/b.csv" 150 102 100
craft "$d/c.csv" 100 100 140
succeeds "compare two files" with_detail compare "$d/a.csv" "$d/b.csv"
check "compare says it compares ratios" grep -q '^mode: ratios to glibc' <<<"$out"
check "a change beyond the noise is flagged" grep -qE 'pool T=4 K=1 wake=exact.* +negcount .*SLOWER' <<<"$out"
check "the control inside the noise is not" absent 'glibc#2' "$out"
check "compare counts the pairs" grep -q '^1 of 2 pairs changed beyond the noise, 1 within it' <<<"$out"
succeeds "compare under machine drift" with_detail compare "$d/a.csv" "$d/c.csv"
check "drift between runs moves no ratio" grep -q '^0 of 2 pairs changed beyond the noise' <<<"$out"
succeeds "compare --absolute under drift" with_detail compare "$d/a.csv" "$d/c.csv" --absolute
check "absolute mode warns and flags the drift" \
  bash -c "grep -q 'cannot be told from' <<<'$out' && grep -q '^3 of 3 pairs changed beyond the noise' <<<'$out'"
refused "compare: --absolute with one file" "" with_detail compare "$d/a.csv" --absolute
# An option that does not apply to the form used is refused, never
# ignored: one line naming it, exit 2 (and where it applies, taken).
# a bad file or store named by the command that read it, whichever reads it
refused "history: a missing file, in history's words" "futexlab: history: cannot read $d/none.csv" "$fl" \
  history "$d/none.csv"
refused "report: a missing file, in report's words" "futexlab: report: cannot read $d/none.csv" "$fl" \
  report "$d/none.csv"
refused "history: a missing store, in history's words" "futexlab: history: DB: $d/none.db" "$fl" \
  history --db "$d/none.db"
refused "compare: --all with one file" "--all lists the pairs of two files" "$fl" \
  compare "$d/a.csv" --all
refused "compare: --detail with two files" "--detail is one file's full tables" "$fl" \
  compare "$d/a.csv" "$d/b.csv" --detail
refused "compare: --detail with --tsv" "--detail is the text's full tables" "$fl" \
  compare "$d/a.csv" --tsv --detail
refused "compare: --tsv with two files" "--tsv takes one file" "$fl" compare "$d/a.csv" "$d/b.csv" --tsv
refused "compare: --across-machines with one file" "one file has one machine" "$fl" \
  compare "$d/a.csv" --across-machines
refused "compare: --across-machines with two files, no --fail-on" "compared by their ratios without it" "$fl" \
  compare "$d/a.csv" "$d/b.csv" --across-machines
refused "compare --pool: --detail" "compare --pool: --detail (the pool's table is its full table)" "$fl" \
  compare --pool "$d/a.csv" "$d/b.csv" --detail
refused "compare --pool: --all with nothing judged" "--all lists a judgement's pairs" "$fl" \
  compare --pool "$d/a.csv" "$d/b.csv" --against "$d/c.csv" --all
refused "compare --pool: --fail-on without --against" "give --against NEW.csv" "$fl" \
  compare --pool "$d/a.csv" "$d/b.csv" --fail-on slower
refused "compare --db: --detail" "compare --db: --detail does not apply" "$fl" \
  compare --db "$d/none.db" --against "$d/a.csv" --detail
for o in --tsv --detail --all --absolute --pool "--fail-on slower"; do
  # shellcheck disable=SC2086 # --fail-on's value is its own word
  refused "compare --json: $o" "compare --json: ${o%% *} does not apply" "$fl" compare --json "$d/a.csv" "$d/b.csv" $o
done
refused "history: --all with --tsv and no page" "--all goes with the text or --html" "$fl" \
  history "$d/a.csv" --all --tsv
refused "run: --dry-run with --csv" "--dry-run runs nothing: --csv" "$fl" run --dry-run --csv "$d/x.csv"
refused "sweep: --dry-run with --detail" "--dry-run runs nothing: --detail" "$fl" sweep --dry-run --detail
refused "run: --dry-run with --perf" "--dry-run runs nothing: --perf" "$fl" run --dry-run --perf
refused "run: --probes with --probe-rounds" "--probes probes every round" "$fl" run --probes --probe-rounds 2
refused "run: --min-blocking with --ops" "--min-blocking stretches durations" "$fl" run --min-blocking --ops 100
refused "run: --min-blocking with --warmup 0" "it needs --warmup 1 or more" "$fl" run --min-blocking --warmup 0
refused "exec --survey: --rounds" "exec: --survey runs CMD once and compares nothing: --rounds" "$fl" \
  exec --survey --rounds 3 -- true
refused "exec --survey: --detail" "--detail does not apply" "$fl" exec --survey --detail -- true
succeeds "compare: --all with two files" with_detail compare "$d/a.csv" "$d/b.csv" --all
succeeds "compare ratio of crafted file" with_detail compare "$d/b.csv"
check "ratio table flags the slower variant" grep -qE '^  negcount .* 1\.4[0-9]{2} .* slower$' <<<"$out"
check "and the control row is ~" grep -qE '^  glibc#2 .* ~$' <<<"$out"
check "control summary line" grep -q '^control (glibc#2, .*~ at 1 of 1 points' <<<"$out"

# CPU beside time (harness/verdicts.md#cpu-beside-time): crafted runs of 8
# rounds with the CPU columns, 1000 ops a rep, g = 100+r. glibc: g ns and g
# CPU ns per op (70% user), 0.5 context switches per op; glibc#2 as glibc
# +-1; negcount: 50+r ns (faster) at F x glibc's CPU; textbook: 150+r ns
# (slower) at half the CPU; split: glibc#2's ns (~) at 3x the CPU; musl:
# faster at the same CPU. a.csv and b.csv above have no CPU columns.
craft_cpu() { # file, negcount's CPU factor F
  { echo "# futexlab test"; echo "# cpu: test cpu"; echo "# cores: 2"; echo "# kernel: test"
    echo "variant,workload,threads,tokens,hold_ns,think_ns,wake,ops,elapsed_ns,ns_per_op,ops_per_s,status,note,hash,spin,round,slot,sems,cpu_user_ns,cpu_sys_ns,csw_vol,csw_invol"
    for r in 0 1 2 3 4 5 6 7; do
      g=$((100 + r)) h=$((100 + r + r % 2))
      p="pool,4,1,0,0,exact,1000,1"
      echo "glibc,$p,$g.0,1,ok,\"\",auto,0,$r,0,1,$((g * 700)),$((g * 300)),400,100"
      echo "glibc#2,$p,$h.0,1,ok,\"\",auto,0,$r,1,1,$((h * 700)),$((h * 300)),400,100"
      echo "negcount,$p,$((50 + r)).0,1,ok,\"\",auto,0,$r,2,1,$((g * 1000 * $2)),0,0,0"
      echo "textbook,$p,$((150 + r)).0,1,ok,\"\",auto,0,$r,3,1,$((g * 500)),0,200,0"
      echo "split,$p,$h.0,1,ok,\"\",auto,0,$r,4,1,$((g * 3000)),0,400,100"
      echo "musl,$p,$((50 + r)).0,1,ok,\"\",auto,0,$r,5,1,$((g * 700)),$((g * 300)),400,100"
    done; } >"$1"
}
craft_cpu "$d/cpu.csv" 2
succeeds "compare of a CSV with CPU columns" with_detail compare "$d/cpu.csv"
# CPU and context switches per op are in the evidence block under the
# rows (harness/verdicts.md#the-evidence-block): ev VARIANT is its row there.
ev() { awk -v v="$1" '/^summary: / { exit } $1 == v { x = $2 " " $3 } END { print x }' <<<"$out"; }
check "the ratio table's header: median ns, then the ratio (CPU is in the evidence block)" \
  grep -qE '^  variant +median ns +ratio +interval' <<<"$out"
check "the evidence block's columns: cpu ns, csw" grep -qE '^ +cpu ns +csw +futex ' <<<"$out"
check "glibc: baseline of 8 rounds; cpu ns/op 103.5 (median of 100..107), csw/op 0.500" \
  bash -c 'grep -qE "^  glibc +103\.5 +1\.000  baseline \(8 rounds\)$" <<<"$1" && test "$2" = "103.5 0.500"' _ "$out" "$(ev glibc)"
check "faster at twice the CPU: 'faster, 2.0x CPU' (cpu ns/op 207.0, csw/op 0)" \
  bash -c 'grep -qE "^  negcount +53\.5 +0\.5[0-9]{2} .* faster, 2\.0x CPU$" <<<"$1" && test "$2" = "207.0 0"' _ "$out" "$(ev negcount)"
check "slower at half the CPU: 'slower, 0.5x CPU' (cpu ns/op 51.8, csw/op 0.200)" \
  bash -c 'grep -qE "^  textbook +153\.5 .* slower, 0\.5x CPU$" <<<"$1" && test "$2" = "51.8 0.200"' _ "$out" "$(ev textbook)"
check "~ at three times the CPU: '~, 3.0x CPU'" grep -qE '^  split .* ~, 3\.0x CPU$' <<<"$out"
check "faster at the same CPU: no note" \
  bash -c 'grep -qE "^  musl +53\.5 .* faster$" <<<"$1" && test "$2" = "103.5 0.500"' _ "$out" "$(ev musl)"
# The libraries line (report/peers.h): the fastest library (a design with
# its own policy), the futexlab entry closest to it (a CPU-cheap one first),
# at or below its time at no more CPU (ahead), and its ratio judged faster
# beyond the noise and the control's band (faster), or behind; the count.
check "libraries line: glibc the fastest library, musl (0.5x the time at its CPU) faster" \
  grep -qE '^  vs the libraries: fastest glibc \(103\.5 ns, 103\.5 cpu ns/op\); closest musl: 0\.5[0-9]x its time, 1\.00x its CPU: faster$' <<<"$out"
check "libraries line: the count" \
  grep -q '^vs the libraries: a futexlab entry at or below the fastest library in time and CPU at 1 of 1 points, faster at 1$' <<<"$out"
# musl as cxx-llvm (now the fastest library), negcount under a policy (as
# fast at twice the CPU): the closest is textbook, the one at <= 1.05x the
# CPU, however slow; behind.
sed 's/^musl,/cxx-llvm,/; s/^negcount,/negcount@adaptive,/' "$d/cpu.csv" >"$d/cpu-peers.csv"
succeeds "compare with a faster library" with_detail compare "$d/cpu-peers.csv"
check "libraries line: cxx-llvm the fastest; textbook, the CPU-cheap entry, closest; behind" \
  grep -qE '^  vs the libraries: fastest cxx-llvm \(53\.5 ns, 103\.5 cpu ns/op\); closest textbook: 2\.[0-9]{2}x its time, 0\.50x its CPU: behind$' <<<"$out"
check "libraries line: 0 of 1" grep -q 'in time and CPU at 0 of 1 points, faster at 0$' <<<"$out"
check "the control is ~ with no note" grep -qE '^  glibc#2 .* ~$' <<<"$out"
succeeds "compare of a CSV without the CPU columns" with_detail compare "$d/b.csv"
check "an older CSV loads and shows - for cpu ns/op and csw/op" \
  bash -c 'grep -qE "^  negcount +[0-9.]+ +1\.4[0-9]{2} .* slower$" <<<"$1" && test "$2" = "- -"' _ "$out" "$(ev negcount)"
# --tsv: the CPU figures at the end; the 18 columns scripts/plot and
# scripts/aa read keep their places, the verdict column its bare word.
succeeds "compare --tsv with CPU columns" with_detail compare --tsv "$d/cpu.csv"
check "TSV: the first 18 columns as before, the CPU columns last" \
  test "$(head -1 <<<"$out" | cut -f1-18,27-32)" = "$(printf 'workload\tpoint\tvariant\tthreads\tstatus\tn\tmedian_ns\tmad_ns\tci_lo\tci_hi\tmin_ns\tmax_ns\tops_s\top\tratio\tratio_lo\tratio_hi\tverdict\tcpu_ns_op\tcsw_op\tcpu_ratio\tcpu_ratio_lo\tcpu_ratio_hi\tverdict_cpu')"
check "TSV: negcount's CPU figures, its verdict and its noted verdict" \
  test "$(awk -F'\t' "$COLS"'$col("variant") == "negcount" { f = $col("verdict") "|" $col("cpu_ns_op") "|" $col("csw_op")
    print f "|" $col("cpu_ratio") "|" $col("cpu_ratio_lo") "|" $col("cpu_ratio_hi") "|" $col("verdict_cpu") }' <<<"$out")" = \
    "faster|207|0|2.0000|2.0000|2.0000|faster, 2.0x CPU"
check "TSV: every line has 44 fields (the kernel counts after the CPU ones: test_evidence.sh)" \
  test "$(awk -F'\t' 'NF != 44' <<<"$out" | wc -l)" -eq 0
succeeds "compare --tsv without CPU columns" with_detail compare --tsv "$d/b.csv"
check "TSV of an older CSV: the CPU cells empty, 44 fields" \
  test "$(awk -F'\t' "$COLS"'NR > 1 && (NF != 44 || $col("cpu_ns_op") $col("csw_op") $col("cpu_ratio") $col("cpu_ratio_lo") $col("cpu_ratio_hi") != "")' \
    <<<"$out" | wc -l)" -eq 0
# before/after: negcount's time unchanged, its CPU doubled.
craft_cpu "$d/cpu1.csv" 1
succeeds "compare two files with CPU columns" with_detail compare "$d/cpu1.csv" "$d/cpu.csv"
check "compare: same time, twice the CPU: listed as '~, 2.0x CPU', cpu +100.0%" \
  grep -qE '^pool T=4 K=1 wake=exact.* negcount +0\.5[0-9]{2} +0\.5[0-9]{2} +\+0\.0% +\+100\.0%  ~, 2\.0x CPU$' <<<"$out"
check "compare: no time change, one CPU note" \
  grep -q '^0 of 5 pairs changed beyond the noise, 5 within it; 0 status changes, 0 in one file only; 1 with a CPU note$' <<<"$out"
succeeds "compare an older CSV with a new one" with_detail compare "$d/b.csv" "$d/cpu.csv" --all
check "compare: - in the cpu column where a file lacks it" \
  grep -qE ' negcount +1\.4[0-9]{2} +0\.5[0-9]{2} .* +-  FASTER$' <<<"$out"
# scripts/plot: the ratio PNG gets the CPU panel (two panels, 1800 px wide)
# from a CSV with the CPU columns, and stays one panel (1400) without.
pngw() { python3 -c 'import struct, sys; print(struct.unpack(">I", open(sys.argv[1], "rb").read()[16:20])[0])' "$1"; }
if command -v gnuplot >/dev/null; then
  plot=$(cd "$(dirname "$0")/.." && pwd)/scripts/plot
  fla=$(cd "$(dirname "$fl")" && pwd)/$(basename "$fl")
  FUTEXLAB=$fla "$plot" "$d/cpu.csv" "$d/png" >/dev/null 2>&1 &&
    FUTEXLAB=$fla "$plot" "$d/b.csv" "$d/png" >/dev/null 2>&1
  check "plot: the CPU panel beside the ratio with the CPU columns, none without" \
    test "$(pngw "$d/png/cpu-pool-ratio.png" 2>/dev/null) $(pngw "$d/png/b-pool-ratio.png" 2>/dev/null)" = "1800 1400"
else
  skip "plot: the CPU panel: gnuplot not installed (scripts/setup installs it)"
fi

# Rounds: the seed fixes the order; the control row comes and goes.
refused "bad seed" "" with_detail run --seed -3
succeeds "seeded run" with_detail run --variant negcount,glibc --workload uncontended --ops 200 --rounds 6 \
  --seed 7 --csv "$d/s1.csv" --quiet
succeeds "same seed again" with_detail run --variant negcount,glibc --workload uncontended --ops 200 \
  --rounds 6 --seed 7 --csv "$d/s2.csv" --quiet
order() { python3 -c '
import csv, sys
rows = csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
print(" ".join(r["variant"] + "@" + r["round"] + "." + r["slot"] for r in rows))' "$1"; }
check "the same seed runs the rounds in the same order" test "$(order "$d/s1.csv")" = "$(order "$d/s2.csv")"
check "the order is not fixed across rounds" \
  bash -c "[ \$(python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith(\"#\"))]
print(len({tuple(r[\"variant\"] for r in rows if r[\"round\"] == k) for k in map(str, range(6))}))' '$d/s1.csv') -gt 1 ]"
check "the seed is in the CSV" grep -q '^# seed: 7$' "$d/s1.csv"
check "the machine state is in the CSV" \
  bash -c "grep -q '^# hypervisor: ' '$d/s1.csv' && grep -q '^# point 1 (uncontended.*load .*other work' '$d/s1.csv'"
check "a control row by default" grep -q '^glibc#2,uncontended' "$d/s1.csv"
# The rounds are interleaved across the points (runner/schedule.c, fl_run_points): a
# point's rounds spread over the whole run, and every round runs every point
# (in a random order of points). Run point by point, the CSV would hold each
# point's rounds in one block: 3 blocks; interleaved, 5 x 3 blocks but where
# a round ends with the point the next one starts with: at least 11.
succeeds "three points, five rounds" with_detail run --variant negcount,glibc --workload uncontended,pool \
  --threads 2,4 --ops 200 --rounds 5 --seed 11 --no-floors --no-probes --csv "$d/il.csv" --quiet
blocks() { python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
        if r["status"] == "ok" and r["round"] != "-1"]
keys = [(r["workload"], r["threads"]) for r in rows]
print(sum(1 for i, k in enumerate(keys) if i == 0 or k != keys[i - 1]))' "$1"; }
check "rounds interleaved across the points ($(blocks "$d/il.csv") point-blocks, >= 11)" \
  test "$(blocks "$d/il.csv")" -ge 11
check "each point has its 5 measured rounds" bash -c "[ \$(grep -c '^negcount,pool,4,' '$d/il.csv') -eq 5 ]"
firsts() { python3 -c '
import csv, sys
seen = []
for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")):
    k = r["workload"] + "/" + r["threads"]
    if k not in seen:
        seen.append(k)
print(" ".join(seen))' "$1"; }
check "the first round takes the points in their listed order (the tables' order): $(firsts "$d/il.csv")" \
  test "$(firsts "$d/il.csv")" = "uncontended/1 pool/2 pool/4"
succeeds "no control" with_detail run --variant negcount,glibc --workload uncontended --ops 200 --rounds 2 \
  --no-control --no-floors --csv "$d/s3.csv" --quiet
check "--no-control drops it" absent 'glibc#2' "$(cat "$d/s3.csv")"

# `posix`, the former name of the glibc design (variants/registry.c.in): still
# accepted on the command line and in older CSVs, and always shown as glibc.
succeeds "--variant posix --baseline posix (glibc's former name)" with_detail run --variant negcount,posix \
  --baseline posix --workload uncontended --ops 200 --rounds 2 --no-floors --csv "$d/px.csv" --quiet
names() { python3 -c '
import csv, sys
rows = csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
print(" ".join(sorted({r["variant"] for r in rows})))' "$1"; }
check "posix runs as glibc, its control glibc#2: $(names "$d/px.csv")" \
  test "$(names "$d/px.csv")" = "glibc glibc#2 negcount"
sed 's/^glibc/posix/' "$d/b.csv" >"$d/old.csv" # b as written before the rename
succeeds "compare of a CSV with posix rows" with_detail compare "$d/old.csv"
check "its posix rows read as glibc: the control glibc#2" grep -qE '^  glibc#2 .* ~$' <<<"$out"
check "and no posix in the table" absent posix "$out"
succeeds "compare of an old CSV with a new one" with_detail compare "$d/old.csv" "$d/b.csv" --baseline posix
check "--baseline posix: ratios to glibc" grep -q '^mode: ratios to glibc' <<<"$out"
check "pairs glibc with glibc: nothing changed" grep -q '^0 of 2 pairs changed beyond the noise' <<<"$out"

# Ctrl-C: the finished rows stay, the summary says so, exit 130.
"$fl" sweep --detail --variants negcount --workloads uncontended --rounds 100 --duration 0.05 \
  --csv "$d/int.csv" --quiet >"$d/int.out" 2>&1 &
pid=$!
# wait until 5 reps are in the CSV (the state; 60 s is generous for 5 reps
# of 0.05 s), then interrupt
t0=$(date +%s%N)
while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 60000 ] && kill -0 $pid 2>/dev/null; do
  [ "$(grep -sc '^negcount,uncontended' "$d/int.csv")" -ge 5 ] 2>/dev/null && break
  sleep 0.05
done
waited=$(( ($(date +%s%N) - t0) / 1000000 ))
kill -INT $pid; wait $pid; rc=$?
check "interrupted sweep exits 130" test "$rc" -eq 130
check "interrupted sweep says so" grep -q '^sweep INTERRUPTED' "$d/int.out"
check "interrupted sweep keeps its rows (interrupted after $waited ms; load $(cut -d' ' -f1-3 /proc/loadavg))" \
  bash -c "[ \$(grep -c '^negcount,uncontended' '$d/int.csv') -ge 5 ]"
check "no temp file left after the interrupt" bash -c "! ls '$d' | grep -q tmp"

# Progress line: on a terminal (script(1) gives one), not with --quiet.
if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1 </dev/null; then
  script -qc "'$fl' sweep --variants negcount --workloads uncontended,pool --threads 2 --rounds 2 --duration 0.02" \
    /dev/null >"$d/tty.out" 2>&1 </dev/null
  check "progress line on a terminal" grep -qE '\[1/[0-9]+\] +[0-9]+% elapsed .* left' "$d/tty.out"
  script -qc "'$fl' sweep --variants negcount --workloads uncontended --rounds 2 --duration 0.02 --quiet" \
    /dev/null >"$d/tty2.out" 2>&1 </dev/null
  check "no progress line with --quiet" absent 'elapsed' "$(cat "$d/tty2.out")"
else
  skip "progress line on a terminal, none with --quiet: script(1) cannot give a terminal here"
fi
# Off a terminal (a CI job's log, a file): lines of their own, the first
# after the first point's round, then at most one every 5 s, each saying
# how far the run is and the time left; no terminal codes; none with --quiet.
"$fl" sweep --variants negcount,glibc --workloads uncontended --rounds 60 --duration 0.05 \
  --no-floors --no-control --no-probes >/dev/null 2>"$d/log.err"
re='^futexlab: progress: [0-9]+% after [0-9:]+s?, about [0-9:]+s? left \((warm-up|round) [0-9]+/[0-9]+, point 1/1 done: uncontended T=1 wake=exact hash=[^)]+\)$'
check "progress off a terminal: its own lines ($(grep -c progress "$d/log.err") in a ~6 s run)" \
  test "$(grep -c progress "$d/log.err")" -ge 2 -a "$(grep progress "$d/log.err" | grep -cvE "$re")" = 0
check "  no terminal codes" bash -c "! grep -q \$'[\\r\\033]' '$d/log.err'"
check "  the first at once, then at least 5 s apart" python3 -c '
import re, sys
t = [sum(int(x) * 60 ** i for i, x in enumerate(reversed(m.group(1).split(":"))))
     for m in re.finditer(r"after ([0-9:]+)s?,", open(sys.argv[1]).read())]
sys.exit(not (t and t[0] <= 1 and all(b - a >= 4 for a, b in zip(t, t[1:]))))' "$d/log.err"
"$fl" run --variant negcount --workload uncontended --rounds 2 --ops 300 --no-floors --no-probes \
  --quiet >/dev/null 2>"$d/log2.err"
check "  none with --quiet" test ! -s "$d/log2.err"

# --pin 0 --perf: one CPU, so no migrations (one-sided: an unpinned run
# migrates only sometimes). The run's stderr names the counters it could
# open ("futexlab: perf counters: task_clock_ns, ..., cycles (unsupported)"):
# an open counter fills its column in every row, an unsupported one leaves
# it empty in every row, and then what it would have shown is a SKIP.
succeeds "pinned sweep with perf" with_detail sweep --variants negcount --workloads pool --threads 4 \
  --ops 20000 --rounds 3 --warmup 0 --pin 0 --perf --no-probes --csv "$d/pin.csv" --quiet
perfline=$(grep -m1 '^futexlab: perf counters: ' <<<"$out")
check "the run names its perf counters ($perfline)" test -n "$perfline"
# perf_col NAME: "open" or "unsupported", from that line
perf_col() { grep -q "[ ,]$1 (unsupported)" <<<"$perfline" && echo unsupported || echo open; }
prows=$(count_rows "$d/pin.csv" "r['variant'] == 'negcount' and r['status'] == 'ok'")
check "pinned perf sweep: 3 ok rows" test "$prows" -eq 3
if [ "$(perf_col cpu_migrations)" = open ]; then
  check "pinned: cpu_migrations 0 in all $prows rows" \
    test "$(count_rows "$d/pin.csv" "r['variant'] == 'negcount' and r['cpu_migrations'] == '0'")" -eq "$prows"
else
  check "cpu_migrations unsupported: empty in every row" \
    test "$(count_rows "$d/pin.csv" "r['cpu_migrations'] != ''")" -eq 0
  skip "pinned: cpu_migrations 0: perf's cpu_migrations counter cannot be opened here"
fi
if [ "$(perf_col task_clock_ns)" = open ]; then
  check "perf: task_clock_ns > 0 in all $prows rows" \
    test "$(count_rows "$d/pin.csv" "r['variant'] == 'negcount' and r['task_clock_ns'].isdigit() and int(r['task_clock_ns']) > 0")" -eq "$prows"
else
  check "task_clock_ns unsupported: empty in every row" \
    test "$(count_rows "$d/pin.csv" "r['task_clock_ns'] != ''")" -eq 0
  skip "perf: task_clock_ns filled: perf's task-clock counter cannot be opened here"
fi

# --policy crosses the entries; a --hash list runs the sweep once per mode (own process).
succeeds "sweep over policies and hash modes" with_detail sweep --variants negcount --workloads uncontended \
  --policy park,spin:50 --hash global,private:16 --ops 500 --rounds 2 --warmup 0 --no-floors \
  --no-probes --csv "$d/hs.csv" --quiet
check "one row per policy x hash x rep (8)" test "$(count_rows "$d/hs.csv" "r['variant'].startswith('negcount')")" -eq 8
# each mode that the kernel can set ran its 2 reps under each policy; one it
# cannot is a SKIP (its rows skipped with the reason), never a pass
for m in global private:16; do
  if hash_skipped "$d/hs.csv" "$m"; then
    skip "sweep rows under hash $m: the kernel lacks PR_FUTEX_HASH"
  else
    check "hash $m: 2 ok rows of negcount (park) and 2 of negcount@spin:50" \
      test "$(count_rows "$d/hs.csv" "r['hash'] == '$m' and r['status'] == 'ok' and r['variant'] == 'negcount' and r['policy'] == 'park'") $(count_rows "$d/hs.csv" "r['hash'] == '$m' and r['status'] == 'ok' and r['variant'] == 'negcount@spin:50' and r['policy'] == 'spin:50'")" = "2 2"
  fi
done

# ---- the waiting policy: --policy crossed with the designs (runner/entries.c) ----
refused -E "policy: unknown" "^futexlab: --policy: unknown policy 'lazy' \(park, spin:N" with_detail \
  run --policy park,lazy
refused -E "policy: bound 0" "^futexlab: --policy: policy spin:0: .*1\.\.1000000" with_detail run --policy spin:0
refused -E "policy: bound too large" "^futexlab: --policy: policy spin-yield:1000001: " with_detail \
  sweep --policy spin-yield:1000001
refused -E "policy: a bound where none is taken" "^futexlab: --policy: policy 'adaptive:3' takes no bound" with_detail \
  run --policy adaptive:3
refused -E "policy for a shipped library" \
  "^futexlab: --variant glibc@adaptive: glibc is a shipped library and waits its own way \(parks at once.*\): no policy$" \
  with_detail run --variant negcount,glibc@adaptive
refused -E "a bad policy in NAME@POLICY" "^futexlab: --variant negcount@spin:x: " with_detail run --variant negcount@spin:x
refused -E "--policy and no design it applies to" \
  "^futexlab: --policy adaptive: no design of --variant takes a policy" with_detail run --policy adaptive --variant glibc,cxx-gnu
refused -E "the same entry twice (NAME@POLICY and the crossing)" "the entry negcount@adaptive twice" with_detail \
  run --variant negcount,negcount@adaptive --policy park,adaptive
refused -E "the same policy twice, however spelled" "^futexlab: --policy: 'spin:050' given twice" with_detail \
  run --policy spin:50,spin:050
refused -E "the same NAME@POLICY twice" "^futexlab: --variant: 'negcount@spin:005' given twice" with_detail \
  run --variant negcount@spin:5,negcount@spin:005
refused -E "--spin and --policy together" "--spin is the old form of --policy" with_detail run --spin 5 --policy park
refused -E "--baseline with a bad policy" "^futexlab: --baseline negcount@lazy: unknown policy" with_detail \
  run --baseline negcount@lazy
refused -E "--baseline: a policy for a shipped library" "^futexlab: --baseline glibc@spin:5: glibc is a shipped library" with_detail \
  run --baseline glibc@spin:5
refused -E "more entries than a point holds" "more than 125 entries at a point" with_detail \
  run --variant all --policy "$(seq -s, -f 'spin:%g' 13)"
refused -E "the combination limit no longer names spin bounds" \
  "more than 10000 combinations of workloads, threads, tokens, semaphores and wake modes; split" \
  with_detail sweep --workloads pool --threads "$(seq -s, 1 64)" --tokens "$(seq -s, 1 64)" --wake exact,one,all

# A run over three policies: each design a policy applies to once per
# policy, NAME for park and NAME@POLICY otherwise; glibc (a shipped library)
# once, whatever the list, and its control.
succeeds "run --policy park,spin:50,adaptive --variant negcount,glibc" with_detail run --policy park,spin:50,adaptive \
  --variant negcount,glibc --workload pingpong --ops 500 --rounds 2 --warmup 0 --no-floors \
  --no-probes --latency --csv "$d/pol.csv" --quiet
entries() { python3 -c '
import csv, sys, collections
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")) if r["status"] == "ok"]
c = collections.Counter((r["variant"], r["policy"]) for r in rows)
print(" ".join("%s=%s:%d" % (v, p, n) for (v, p), n in sorted(c.items())))' "$1"; }
want="glibc=own:2 glibc#2=own:2 negcount=park:2 negcount@adaptive=adaptive:2 negcount@spin:50=spin:50:2"
check "rows (variant=policy:rounds): $(entries "$d/pol.csv")" test "$(entries "$d/pol.csv")" = "$want"
check "the policy column where spin was (after hash)" grep -q '^variant,.*,note,hash,policy,round,' "$d/pol.csv"
# the first N labels of the table's rows that start with PREFIX
table_rows() { grep -E "^  $2" "$1" | awk '{print $1}' | head -"$3" | tr '\n' ' '; }
printf '%s\n' "$out" >"$d/pol.out"
check "the table: a row per entry, each design's policies beside it: $(table_rows "$d/pol.out" '(negcount|glibc)' 5)" \
  test "$(table_rows "$d/pol.out" '(negcount|glibc)' 5)" = 'negcount negcount@adaptive negcount@spin:50 glibc glibc#2 '
check "the point without spin (then its rounds)" \
  grep -qxE 'pingpong T=2 wake=exact hash=[^ ]*  \([0-9]+ rounds?\)' "$d/pol.out"
check "the latency side file: a policy column where spin was, the entry's policy in it" \
  grep -q '^variant,workload,threads,tokens,hold_ns,think_ns,wake,policy,hash,' "$d/pol.lat.csv"
check "the latency side file: negcount@spin:50's rows under spin:50, glibc's under own" \
  bash -c "grep -q '^negcount@spin:50,pingpong,2,0,0,0,exact,spin:50,' '$d/pol.lat.csv' &&
           grep -q '^glibc,pingpong,2,0,0,0,exact,own,' '$d/pol.lat.csv'"
# --baseline names an entry: NAME@POLICY, its control NAME@POLICY#2 beside it
succeeds "--baseline negcount@adaptive" with_detail run --policy park,adaptive --variant negcount \
  --baseline negcount@adaptive --workload uncontended --ops 500 --rounds 2 --warmup 0 --no-floors \
  --no-probes --csv "$d/polb.csv" --quiet
printf '%s\n' "$out" >"$d/polb.out"
check "ratios to negcount@adaptive" grep -q 'ratio: ns per op / negcount@adaptive' "$d/polb.out"
check "its control negcount@adaptive#2 right after it: $(table_rows "$d/polb.out" negcount 3)" \
  test "$(table_rows "$d/polb.out" negcount 3)" = 'negcount@adaptive negcount@adaptive#2 negcount '
check "the control's rows: negcount@adaptive#2 under adaptive" \
  grep -q '^negcount@adaptive#2,uncontended,.*,adaptive,' "$d/polb.csv"
# --spin N,M, the old form: spin:N (0: park), with one line on stderr
serr=$("$fl" run --detail --spin 0,50 --variant negcount --workload uncontended --ops 300 --rounds 2 \
  --warmup 0 --no-floors --no-control --no-probes --quiet --csv "$d/spin.csv" 2>&1 >/dev/null); rc=$?
check "--spin 0,50: accepted (exit $rc), one note: '$serr'" \
  test "$rc $serr" = '0 futexlab: --spin is now --policy (here --policy park,spin:50)'
check "--spin 0,50: rows negcount (park) and negcount@spin:50: $(entries "$d/spin.csv")" \
  test "$(entries "$d/spin.csv")" = 'negcount=park:2 negcount@spin:50=spin:50:2'
# dry-run lists the entries; a preset takes --policy (it crosses the entries, not the axes)
check "sweep --preset quick --policy park,adaptive: negcount@adaptive at each of its 10 points" \
  test "$("$fl" sweep --preset quick --policy park,adaptive --dry-run | grep -c '^negcount@adaptive ')" -eq 10
# An older CSV (a spin column, no policy) still loads and compares with a
# file written since: its spin 0 keys the point as park does today.
to_new() { python3 -c '
import csv, sys
src = open(sys.argv[1]).read().splitlines()
meta = [l for l in src if l.startswith("#")]
rows = list(csv.DictReader(l for l in src if not l.startswith("#")))
print("\n".join(meta))
cols = [("policy" if c == "spin" else c) for c in rows[0].keys() if c != "rep"]
w = csv.writer(sys.stdout, lineterminator="\n"); w.writerow(cols)
for r in rows:
    r["policy"] = "own" if r["variant"].startswith("glibc") else "park"
    w.writerow([r[c] for c in cols])' "$1"; }
to_new "$d/a.csv" >"$d/a_new.csv"
check "the new-format copy has policy, not spin" bash -c "grep -q ',hash,policy,round,' '$d/a_new.csv' && ! grep -q ',spin,' '$d/a_new.csv'"
succeeds "compare an old CSV (spin) with a new one (policy)" with_detail compare "$d/a.csv" "$d/a_new.csv"
check "they pair point by point: nothing changed" grep -q '^0 of 2 pairs changed beyond the noise, 2 within it' <<<"$out"
succeeds "compare of an old CSV alone" with_detail compare "$d/a.csv"
check "its point keyed without spin=0 (then its 8 rounds)" \
  grep -qx 'pool T=4 K=1 wake=exact hash=auto  (8 rounds)' <<<"$out"
# futexlab list: the policies a design takes, a shipped library's own
"$fl" list >"$d/list.out"
# the sub-line of a variant's line in the listing: policy_line VARIANT
policy_line() { awk -v v="$1" '$1 == v { on = 1; next } on && /^ / { if ($1 == "policy:") { print; exit } next } { on = 0 }' "$d/list.out"; }
check "list: negcount takes the policies" grep -qx ' *policy: park, spin:N, spin-yield:N, adaptive' <(policy_line negcount)
check "list: glibc waits its own way: $(policy_line glibc)" grep -q '^ *policy: its own: parks at once' <(policy_line glibc)
check "list: cxx-gnu waits its own way: $(policy_line cxx-gnu)" grep -q '^ *policy: its own: 12 polls' <(policy_line cxx-gnu)

# ---- --sems and the wake workloads ----
refused "sems zero" "" with_detail run --sems 0
refused "sems above the arena" "" with_detail run --sems 999
refused "sems not a number" "" with_detail run --sems x
refused "sweep: sems empty item" "" with_detail sweep --sems 1,,2
refused "sems on a workload that has one semaphore" "" with_detail run --workload barrier --sems 2
# the other options no workload of the form reads: refused, never dropped
refused "tokens on a workload without tokens" "--tokens: no workload of barrier takes tokens" "$fl" \
  run --workload barrier --tokens 2
refused "hold on a workload without busy work" "--hold: no workload of prodcons does busy work (pool, oversub do)" "$fl" \
  run --workload prodcons --hold 100
refused "think on a workload without busy work" "--think: no workload of barrier,timeouts does busy work" "$fl" \
  sweep --workload barrier,timeouts --think 100
refused "threads at a count no fixed-thread workload runs" "--threads: no workload of uncontended,pingpong takes a thread count" "$fl" \
  run --workload uncontended,pingpong --threads 4
succeeds "threads naming the fixed counts: accepted" with_detail run --variant negcount --workload uncontended,pingpong \
  --threads 1,2 --ops 500 --rounds 1 --warmup 0 --no-probes --quiet
succeeds "hold where one workload of the form reads it: accepted" with_detail run --variant negcount \
  --workload pool,barrier --hold 100 --tokens 2 --ops 500 --rounds 1 --warmup 0 --no-probes --quiet
refused "sweep: preset with sems" "" with_detail sweep --preset quick --sems 2
refused "sems above the threads: nothing can run" "" with_detail run --workload pool --threads 2 --sems 4
succeeds "pool over 2 semaphores" with_detail run --variant negcount,glibc --workload pool --threads 4 \
  --sems 2 --ops 4000 --rounds 2 --no-probes --csv "$d/sems.csv" --quiet
check "pool --sems 2: 6 ok rows, every one sems=2" \
  test "$(count_rows "$d/sems.csv" 'r["status"] == "ok" and r["sems"] == "2" and int(r["ops"]) > 0')" -eq 6
check "every semaphore was used (the note: ops per semaphore MIN..MAX)" \
  test "$(count_rows "$d/sems.csv" 'r["note"].startswith("ops per semaphore ") and not r["note"].startswith("ops per semaphore 0.")')" -eq 6
check "the sems column comes right after slot" grep -q '^variant,.*,round,slot,sems' "$d/sems.csv"
succeeds "compare keys the point by sems" with_detail compare "$d/sems.csv"
check "the point says sems=2" \
  grep -qE '^pool T=4 K=1 wake=exact hash=[^ ]* sems=2  \([0-9]+ rounds?\)$' <<<"$out"
succeeds "wake workloads" with_detail run --variant negcount,glibc,lock1 --workload wake,wake-each \
  --threads 3 --ops 40 --rounds 2 --no-control --no-probes --csv "$d/wake.csv" --quiet
check "wake, wake-each: ok rows with ops > 0 for negcount and glibc, sems=1" \
  test "$(count_rows "$d/wake.csv" 'r["variant"] in ("negcount", "glibc", "floor-futex") and r["status"] == "ok" and int(r["ops"]) == 40 and r["sems"] == "1"')" -eq 12
check "lock1 (one token at most) and floor-atomic (never sleeps) skip wake with the reason" \
  bash -c "grep -q '^lock1,wake,3,.*,skipped,\"wake posts 3 tokens' '$d/wake.csv' &&
           grep -q '^floor-atomic,wake-each,3,.*,skipped,\"floor-atomic' '$d/wake.csv'"
npts() { "$fl" sweep --variants negcount --threads 2,4 "$@" --no-floors --no-control --dry-run |
           grep -c '^negcount '; }
one=$(npts --workloads pool --sems 1) two=$(npts --workloads pool --sems 1,2)
check "dry-run of a sweep over sems 1,2 lists twice the points ($one -> $two)" \
  test "$one" -eq 2 -a "$two" -eq 4
check "wake does not read --sems: its points stay (sems=1 rows)" \
  test "$(npts --workloads pool,wake --sems 1,2)" -eq 6
check "dry-run shows sems" grep -q 'sems=2' <<<"$("$fl" sweep --variants negcount --workloads pool \
  --threads 4 --sems 2 --dry-run)"
rm -rf "$d"

finish -s cli
