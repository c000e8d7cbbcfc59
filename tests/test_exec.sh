#!/usr/bin/env bash
# tests/test_exec.sh — `futexlab exec`: bad input (one line, exit 2), a
# failing program (error rows, exit 1: exit status, signal, timeout), the
# rows of a good run (rusage, the shim's semaphore count, skipped designs),
# Ctrl-C keeping the finished rows, --survey's exact counts and its design
# and policy (--variant, --policy: the policy reaching the shim), --policy
# crossed with the designs (the policy reaching the program's shim as
# FUTEXLAB_POLICY, and only there: a park entry's program never inherits
# one), and, with the
# collector (root), the probe columns counting the program's process tree
# exactly: tree_prog's root, child and grandchild, not the harness — in
# every round with --probes (the times then said to be taxed), in a
# probed round of their own without it (the timed rounds unprobed).
# Usage: test_exec.sh FUTEXLAB SEMPROG TREE_PROG
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 semprog=$2 tree=$3
py=/usr/bin/python3   # Debian's, for reading the CSV (scripts/setup installs it)
scratch tmp exec

# 1. bad input: one line on stderr, exit 2, nothing run
refused "no --" "" "$fl" exec --variant negcount "$semprog"
refused "no command" "" "$fl" exec --variant negcount --
refused "unknown variant" "" "$fl" exec --variant negcount,nosuch -- true
refused "not executable" "" "$fl" exec --variant negcount -- /etc/passwd
refused "not found" "" "$fl" exec --variant negcount -- no-such-command-xyz
refused "bad --env" "" "$fl" exec --env NOEQUALS -- true
refused "bad --allow" "" "$fl" exec --allow destroy,bogus -- true
refused "bad --rounds" "" "$fl" exec --rounds 0 -- true
refused "unknown policy" "" "$fl" exec --policy park,lazy -- true
refused "policy bound out of range" "" "$fl" exec --policy spin:0 -- true
refused "a policy for glibc" "" "$fl" exec --variant negcount,glibc@adaptive -- true
refused "--policy with no design it applies to" "" "$fl" exec --policy adaptive --variant glibc -- true
refused "an entry twice" "" "$fl" exec --variant negcount,negcount@adaptive --policy park,adaptive -- true
refused "a bad policy in --baseline" "" "$fl" exec --baseline negcount@lazy -- true
grep -q "glibc is a shipped library and waits its own way (parks at once" <(
  "$fl" exec --detail --variant glibc@adaptive -- true 2>&1) &&
  ok "a policy for glibc: the message says it waits its own way" || bad "a policy for glibc: the message"

# 2. a program that fails: error rows with the reason, exit 1
fails() { # label want-in-note cmd...
  local label=$1 want=$2; shift 2
  "$fl" exec --detail --variant negcount --rounds 1 --warmup 0 --no-probes --quiet --csv "$tmp/f.csv" \
    "$@" >"$tmp/f.out" 2>&1
  local rc=$? st notes
  st=$(csv_cols "$tmp/f.csv" variant=negcount status | sort -u | tr '\n' ' ')
  notes=$(csv_cols "$tmp/f.csv" variant=negcount note)
  if [ $rc -eq 1 ] && [ "$st" = "error " ] && grep -q -- "$want" <<<"$notes"; then
    ok "$label: exit 1, error row: $notes"
  else bad "$label: exit $rc, status '$st', note '$notes'"; cat "$tmp/f.out"; fi
}
fails "exit 3" "exit status 3: boom" -- sh -c 'echo boom >&2; exit 3'
fails "SIGKILL" "killed by signal 9 (SIGKILL)" -- sh -c 'kill -KILL $$'
fails "timeout" "timed out after" --timeout 0.3 -- sleep 30

# 3. a good run: ok rows, CPU and context switches, the shim's count on the
#    design, none for glibc (unshimmed), the designs the shim refuses skipped
if "$fl" exec --detail --variant negcount,glibc,lock1,split --rounds 2 --warmup 0 --no-probes --quiet \
     --csv "$tmp/g.csv" -- "$semprog" >"$tmp/g.out" 2>"$tmp/g.err"; then
  ok "semprog on negcount, glibc: exit 0"
else bad "semprog: exit $?: $(cat "$tmp/g.err")"; fi
st=$(csv_cols "$tmp/g.csv" variant=negcount status | sort -u)
sems=$(csv_cols "$tmp/g.csv" variant=negcount shim_sems | sort -u | head -1)
user=$(csv_cols "$tmp/g.csv" variant=negcount cpu_user_ns | head -1)
vcsw=$(csv_cols "$tmp/g.csv" variant=negcount csw_vol | head -1)
psems=$(csv_cols "$tmp/g.csv" variant=glibc shim_sems | sort -u)
[ "$st" = ok ] && [ "${sems:-0}" -gt 0 ] 2>/dev/null && [ -n "$user" ] && [ -n "$vcsw" ] && [ -z "$psems" ] &&
  ok "rows: negcount ok, $sems semaphores on the design, user ${user} ns, $vcsw voluntary switches; glibc no shim count" ||
  bad "rows: status '$st' shim_sems '$sems' cpu_user_ns '$user' csw_vol '$vcsw' glibc shim_sems '$psems'"
[ "$(csv_cols "$tmp/g.csv" variant=glibc#2 status | sort -u)" = ok ] && ok "control row glibc#2" || bad "no control row"
l1=$(csv_cols "$tmp/g.csv" variant=lock1 status)/$(csv_cols "$tmp/g.csv" variant=lock1 note)
sp=$(csv_cols "$tmp/g.csv" variant=split status)/$(csv_cols "$tmp/g.csv" variant=split note)
[[ $l1 == skipped/*capped* ]] && [[ $sp == skipped/*destroy* ]] && ok "skipped: lock1 ($l1), split ($sp)" ||
  bad "skips: lock1 '$l1' split '$sp'"
grep -q "^# exec: $semprog" "$tmp/g.csv" && ok "the command in the metadata" || bad "no '# exec:' line"
grep -q "per program" "$tmp/g.out" && grep -q "glibc#2" "$tmp/g.out" && ok "table and per-program report" ||
  { bad "no report"; cat "$tmp/g.out"; }
# --allow runs a design that breaks a promise
"$fl" exec --detail --variant split --allow destroy --rounds 1 --warmup 0 --no-probes --quiet --no-control \
  --csv "$tmp/a.csv" -- "$semprog" >/dev/null 2>&1
[ "$(csv_cols "$tmp/a.csv" variant=split status)" = ok ] && ok "--allow destroy runs split" ||
  bad "--allow destroy: split '$(csv_cols "$tmp/a.csv" variant=split status)' $(csv_cols "$tmp/a.csv" variant=split note)"

# 3b. --policy park,spin:50: negcount and negcount@spin:50, glibc (unshimmed,
#     its own policy) and its control once each. The program writes the
#     design and policy the shim was given; futexlab's own environment holds
#     FUTEXLAB_POLICY=adaptive, which a park entry must not pass on.
FUTEXLAB_POLICY=adaptive "$fl" exec --detail --policy park,spin:50 --variant negcount,glibc --rounds 2 \
  --warmup 0 --no-probes --quiet --csv "$tmp/pol.csv" -- \
  sh -c "echo \"\${FUTEXLAB_VARIANT-}:\${FUTEXLAB_POLICY-}\" >> '$tmp/pol.log'" >"$tmp/pol.out" 2>&1
rc=$?
ents=$("$py" -c 'import csv, sys, collections
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")) if r["status"] == "ok"]
c = collections.Counter((r["variant"], r["policy"]) for r in rows)
print(" ".join("%s=%s:%d" % (v, p, n) for (v, p), n in sorted(c.items())))' "$tmp/pol.csv")
[ $rc -eq 0 ] && [ "$ents" = "glibc=own:2 glibc#2=own:2 negcount=park:2 negcount@spin:50=spin:50:2" ] &&
  ok "--policy park,spin:50: $ents" || { bad "--policy park,spin:50: exit $rc, rows '$ents'"; cat "$tmp/pol.out"; }
seen=$(sort "$tmp/pol.log" | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
# glibc runs unshimmed: the program as it is, its environment untouched
[ "$seen" = ":adaptivex4 negcount:x2 negcount:spin:50x2 " ] &&
  ok "the shim's environment: FUTEXLAB_POLICY=spin:50 for negcount@spin:50 only: $seen" ||
  bad "the shim's environment (VARIANT:POLICY x runs): '$seen'"

# 4. Ctrl-C: exit 130, the rows finished before it kept. Interrupt once two
#    reps are in the CSV (the state, not a sleep: a loaded machine may take
#    any time to get there); 60 s for 2 reps of `sleep 0.1` is generous.
"$fl" exec --detail --variant negcount --rounds 200 --warmup 0 --no-probes --quiet --csv "$tmp/i.csv" \
  -- sleep 0.1 >"$tmp/i.out" 2>&1 &
pid=$!
t0=$(now_ms) before=0
while :; do
  [ -s "$tmp/i.csv" ] && before=$(csv_cols "$tmp/i.csv" variant=negcount status | grep -c '^ok$')
  [ "$before" -ge 2 ] && break
  waited=$(( $(now_ms) - t0 ))
  if [ $waited -gt 60000 ] || ! kill -0 $pid 2>/dev/null; then
    bad "Ctrl-C: $before ok rows in the CSV after $waited ms (bound 60 s), load $(cat /proc/loadavg)"
    break
  fi
  sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
n=$(csv_cols "$tmp/i.csv" variant=negcount status | grep -c '^ok$')
other=$(csv_cols "$tmp/i.csv" variant=negcount status | grep -vc '^ok$')
[ $rc -eq 130 ] && [ "$before" -ge 2 ] && [ "$n" -ge "$before" ] && [ "$other" -eq 0 ] &&
  ok "Ctrl-C: exit 130, $n finished rows kept ($before before the interrupt), no half rep" ||
  bad "Ctrl-C: exit $rc, $n ok rows ($before before the interrupt), $other others"

# 5. --survey: per-process counts of glibc's semaphores: semprog twice under
#    a shell is twice semprog once (one line per process that exits normally;
#    tree_prog leaves by _exit everywhere: the shim's _exit reports all three)
"$fl" exec --survey -- "$semprog" >"$tmp/s.out" 2>&1
one=$(sed -n 's/^total: \([0-9]*\) semaphores.*/\1/p' "$tmp/s.out")
"$fl" exec --survey -- sh -c "\"$semprog\" && \"$semprog\"" >"$tmp/s2.out" 2>&1
two=$(sed -n 's/^total: \([0-9]*\) semaphores.*/\1/p' "$tmp/s2.out")
procs=$(sed -n 's/.* in \([0-9]*\) process.*/\1/p' "$tmp/s2.out")
[ "${one:-0}" -gt 0 ] && [ "${two:-x}" = $((2 * one)) ] && [ "${procs:-0}" -ge 2 ] &&
  grep -q "blocking waits" "$tmp/s.out" &&
  ok "--survey: semprog $one semaphores with blocking waits; twice under sh: $two in $procs processes" ||
  { bad "--survey: one '$one' two '$two' procs '$procs'"; cat "$tmp/s.out" "$tmp/s2.out"; }
"$fl" exec --survey -- "$tree" >"$tmp/s3.out" 2>&1 && grep -q "in 3 processes" "$tmp/s3.out" &&
  grep -q "no POSIX semaphore" "$tmp/s3.out" &&
  ok "--survey tree_prog: its 3 processes report although each leaves by _exit" ||
  { bad "--survey tree_prog"; cat "$tmp/s3.out"; }

# 5b. --survey on a design under a policy (--variant NAME --policy P, or
#     NAME@P): the program's shim is told the design and the policy (the
#     program writes what it was given; semprog's named-semaphore peer runs
#     on glibc's by its own choice, and its line says so), the header names
#     both, every process on the design reports the policy; a park survey
#     passes no FUTEXLAB_POLICY on, whatever futexlab's own environment
#     holds. A policy with nothing to apply to (glibc's own sem_t, the
#     default survey), more than one entry, a design the shim refuses: one
#     line, exit 2.
for spec in "--variant negcount --policy spin:50" "--variant negcount@spin:50"; do
  rm -f "$tmp/sv.log"
  # shellcheck disable=SC2086 # the spec's words are options
  FUTEXLAB_POLICY=adaptive "$fl" exec --survey $spec -- \
    sh -c "echo \"\${FUTEXLAB_VARIANT-}:\${FUTEXLAB_POLICY-}\" >> '$tmp/sv.log'; exec '$semprog'" \
    >"$tmp/sv.out" 2>&1
  rc=$?
  [ $rc -eq 0 ] && [ "$(cat "$tmp/sv.log")" = "negcount:spin:50" ] &&
    grep -q "^survey: .* on negcount@spin:50: design negcount, waiting policy spin:50, the shim counting$" "$tmp/sv.out" &&
    grep -qE "^  [0-9]+ +semprog .* negcount@spin:50$" "$tmp/sv.out" &&
    ! grep -qE " negcount$" "$tmp/sv.out" && grep -q "^total: .* on negcount@spin:50, " "$tmp/sv.out" &&
    ok "--survey $spec: the program's shim under spin:50, the header and its processes say so" ||
    { bad "--survey $spec: exit $rc, the program saw '$(cat "$tmp/sv.log" 2>/dev/null)'"; cat "$tmp/sv.out"; }
done
rm -f "$tmp/sv.log"
FUTEXLAB_POLICY=adaptive "$fl" exec --survey --variant negcount -- \
  sh -c "echo \"\${FUTEXLAB_VARIANT-}:\${FUTEXLAB_POLICY-}\" >> '$tmp/sv.log'" >"$tmp/sv.out" 2>&1 &&
  [ "$(cat "$tmp/sv.log")" = "negcount:" ] &&
  grep -q "^survey: .* on negcount: design negcount, waiting policy park, " "$tmp/sv.out" &&
  ok "--survey --variant negcount: park, no FUTEXLAB_POLICY passed on (futexlab's own holds adaptive)" ||
  { bad "--survey --variant negcount: the program saw '$(cat "$tmp/sv.log" 2>/dev/null)'"; cat "$tmp/sv.out"; }
# a process on the design under another policy than asked: not this survey's
"$fl" exec --survey --variant negcount --policy spin:50 -- \
  sh -c "FUTEXLAB_POLICY=adaptive exec '$tree'" >"$tmp/sv.out" 2>"$tmp/sv.err"
rc=$?
[ $rc -eq 1 ] && grep -q "ran negcount under the policy adaptive, not spin:50" "$tmp/sv.err" &&
  ok "--survey: a process on negcount under another policy than asked: exit 1, named" ||
  { bad "--survey, a policy changed under it: exit $rc"; cat "$tmp/sv.out" "$tmp/sv.err"; }
refused "--survey --policy without a design" "" "$fl" exec --survey --policy adaptive -- true
grep -q "survey runs on glibc's own sem_t, which waits its own way: name a design" <(
  "$fl" exec --survey --policy adaptive -- true 2>&1) &&
  ok "--survey --policy alone: the message says glibc's sem_t waits its own way" ||
  bad "--survey --policy alone: the message"
refused "--survey on glibc under a policy" "" "$fl" exec --survey --variant glibc@adaptive -- true
refused "--survey on two designs" "" "$fl" exec --survey --variant negcount,musl -- true
refused "--survey under two policies" "" "$fl" exec --survey --variant negcount --policy park,adaptive -- true
refused "--survey on a design the shim refuses" "" "$fl" exec --survey --variant lock1 -- true
# what only the compared rounds read has nothing to act on in a survey
refused "--survey with --rounds" "" "$fl" exec --survey --rounds 3 -- true
refused "--survey with --csv" "" "$fl" exec --survey --csv /dev/null -- true
refused "--survey with --detail" "" "$fl" exec --survey --detail -- true
refused "--probes with --probe-rounds" "" "$fl" exec --probes --probe-rounds 2 -- true

# 6. none of the harness's descriptors in the program: one the harness itself
#    inherited without close-on-exec (fd 9 here), its pipes, and (below, with
#    the collector) the collector's BPF descriptors. Needs no root: always run.
fds() { # PROBES-FLAG OUT: the program's descriptors, as ls -l lists them
  "$fl" exec --detail --variant negcount --rounds 1 --warmup 0 --no-control "$1" --quiet -- \
    sh -c "ls -l /proc/\$\$/fd > $2" >/dev/null 2>&1 9>"$tmp/nine"
}
fds --no-probes "$tmp/fds0"
leak=$(grep -c -E "anon_inode|bpf|pipe:| 9 -> " "$tmp/fds0")
[ "$leak" = 0 ] && [ -s "$tmp/fds0" ] && ok "the program inherits no descriptor of the harness (fd 9, pipes)" ||
  { bad "descriptors leaked to the program: $leak"; cat "$tmp/fds0"; }

# 7. the kernel's view (root, the collector): exactly tree_prog's futex
#    calls, its 3 processes, and the collector's descriptors kept from it
what="tree_prog's exact profile and the collector's descriptors (futexlab exec --probes)"
if [ "$(id -u)" != 0 ]; then
  skip "$what: not root (the collector needs root)"
else
  "$fl" exec --detail --variant negcount,glibc --rounds 2 --warmup 0 --probes --quiet --csv "$tmp/p.csv" \
    -- "$tree" >"$tmp/p.out" 2>"$tmp/p.err"
  if grep -q "probes off" "$tmp/p.err"; then
    skip "$what: $(grep -m1 "probes off" "$tmp/p.err")"
  else
    expect=$("$tree" --expect)
    for v in negcount glibc glibc#2; do
      for kv in $expect; do
        k=${kv%%=*} want=${kv#*=}
        case $k in futex_calls) c=futex_syscalls;; op_wake) c=fx_wake;; op_wait) c=fx_wait;;
                    wait_timedout) c=wait_timedout;; procs) c=procs;; wake_none) c=wake_none;; *) continue;; esac
        got=$(csv_cols "$tmp/p.csv" variant="$v" "$c" | sort -u | tr '\n' ' ')
        [ "$got" = "$want " ] && ok "$v: $c=$want in every round" || bad "$v: $c='$got', want $want"
      done
    done
    fds --probes "$tmp/fds"
    leak=$(grep -c -E "anon_inode|bpf|pipe:| 9 -> " "$tmp/fds")
    [ "$leak" = 0 ] && [ -s "$tmp/fds" ] && ok "with the collector: the program inherits none of its descriptors" ||
      { bad "descriptors leaked to the program with the collector: $leak"; cat "$tmp/fds"; }
    # the child's timed word heads every design's list: 3 waits, 3 timeouts
    heads=$(awk '/top futex words of 5,/ { getline; getline; print $2 "/" $7 }' "$tmp/p.out" |
            sort | uniq -c | awk '{print $1 "x" $2}')
    [ "$heads" = "3x3/3" ] && ok "top words: the timed word first for all 3 entries (waits/timeouts 3/3)" ||
      { bad "top words: '$heads'"; cat "$tmp/p.out"; }
    grep -q "^probed: every round (as with --probes): the times carry the collector.s tax" "$tmp/p.out" &&
      grep -q "^  (every round probed: wall and CPU carry the collector's tax" "$tmp/p.out" &&
      ok "--probes: the table and the per-program report say the times carry the collector" ||
      { bad "--probes: no note that the times carry the collector"; cat "$tmp/p.out"; }
    # without a probe option: 3 timed (unprobed) rounds and 1 probed (R/3,
    # at least 1: harness/options.md), round 4 of the 4 (spread: always the
    # last); the counts on the probed row only, the per-program figures from
    # the timed rows, the top words from the probed rep (an unprobed rep's
    # would be the previous probed rep's)
    "$fl" exec --detail --variant negcount,glibc --rounds 3 --warmup 0 --quiet --csv "$tmp/q.csv" \
      -- "$tree" >"$tmp/q.out" 2>"$tmp/q.err"
    fc=$(sed -n 's/^futex_calls=//p' <<<"$(printf '%s\n' $expect)")
    mix=""
    for v in negcount glibc glibc#2; do
      mix="$mix $v:$(paste -d/ <(csv_cols "$tmp/q.csv" variant="$v" probed) <(csv_cols "$tmp/q.csv" variant="$v" futex_syscalls) |
                     sort | tr '\n' ' ')"
    done
    want=" negcount:0/ 0/ 0/ 1/$fc  glibc:0/ 0/ 0/ 1/$fc  glibc#2:0/ 0/ 0/ 1/$fc "
    [ "$mix" = "$want" ] && ok "a plain exec: 3 timed rows and 1 probed an entry, the counts ($fc futex calls) on the probed one" ||
      bad "a plain exec: probed/futex_syscalls '$mix', want '$want'"
    words=$(grep -c "round 4: top futex words of" "$tmp/q.out")
    grep -q "^per program: medians over the timed (unprobed) rounds" "$tmp/q.out" &&
      ! grep -q "^probed: every round" "$tmp/q.out" && [ "$words" = 3 ] &&
      ok "a plain exec: per program over the timed rounds, top words from the probed round 4 (3 entries), no note" ||
      { bad "a plain exec: report (words from round 4: $words of 3)"; cat "$tmp/q.out"; }
  fi
fi

finish -s exec
