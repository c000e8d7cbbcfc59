#!/usr/bin/env bash
# tests/test_soak.sh — scripts/soak, its results file and its summary.
# Usage: test_soak.sh path/to/scripts/soak BUILD_DIR   (~7 s)
# A 2-variant, 2-chunk soak into a temp file: one complete row per chunk,
# one release and one race row per variant; the summary's table equals the
# sums of the rows (computed here with awk); a malformed file is refused
# (summary and run, exit 2, the file untouched); a failing chunk is a FAIL
# row with its log kept and exit 1, and its ops are not counted; a soak
# killed by SIGINT or SIGTERM exits 130/143, leaves only complete rows and
# no temp file or torture process; bad input exits 2 with one line.
set -u
. "$(dirname "$0")/lib.sh"
soak=$1 bdir=$2
scratch t soak
header=date,revision,kernel,variant,build,seconds,cycles,ops,posts,acquisitions,timeouts,einval,eintr,signals,spurious,result

refused "no SECONDS" "" "$soak" --build "$bdir" --file "$t/u.csv"
refused "SECONDS not a number" "" "$soak" --build "$bdir" --file "$t/u.csv" ten negcount
refused "SECONDS zero" "" "$soak" --build "$bdir" --file "$t/u.csv" 0 negcount
refused "SECONDS negative" "" "$soak" --build "$bdir" --file "$t/u.csv" -5 negcount
refused "chunk zero" "" "$soak" --build "$bdir" --file "$t/u.csv" --chunk 0 5 negcount
refused "chunk garbage" "" "$soak" --build "$bdir" --file "$t/u.csv" --chunk 1x 5 negcount
refused "chunk without value" "" "$soak" --build "$bdir" --file "$t/u.csv" --chunk
refused "until-ops garbage" "" "$soak" --build "$bdir" --file "$t/u.csv" --until-ops many
refused "until-ops zero" "" "$soak" --build "$bdir" --file "$t/u.csv" --until-ops 0
refused "unknown option" "" "$soak" --build "$bdir" --file "$t/u.csv" --bogus 5
refused "unknown variant" "" "$soak" --build "$bdir" --file "$t/u.csv" 5 nosuch
refused "variant twice" "" "$soak" --build "$bdir" --file "$t/u.csv" 5 negcount negcount
refused "not a build dir" "" "$soak" --build "$t" --file "$t/u.csv" 5 negcount
refused "summary with SECONDS" "" "$soak" --summary --file "$t/u.csv" 5
refused "summary of no file" "" "$soak" --summary --file "$t/u.csv"
[ ! -e "$t/u.csv" ] && ok "bad input wrote no file" || bad "bad input wrote $t/u.csv"

# The soak: 2 variants x 2 chunks of 0.75 s.
f=$t/s.csv
"$soak" --build "$bdir" --file "$f" --chunk 0.75 1.5 negcount split >"$t/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^soak: all passed (4 chunks)$' "$t/out" && ok "soak of 2 x 2 chunks passed" ||
  { bad "soak rc=$rc"; cat "$t/out"; }
[ "$(head -1 "$f")" = "$header" ] && [ "$(grep -c "^date," "$f")" -eq 1 ] && ok "header once" ||
  bad "header: $(head -1 "$f")"
n=$(awk -F, -v h="$header" "$COLS"'NR > 1 && NF == split(h, all, ",") && $col("result") == "ok" &&
  $col("seconds") > 0.5 && $col("seconds") < 3 && $col("ops") > 0 && $col("cycles") >= 1 &&
  $col("revision") ~ /^[0-9a-f]+(-dirty)?$/ && $col("date") ~ /^20[0-9][0-9]-.*Z$/' "$f" | wc -l)
[ "$n" -eq 4 ] && [ "$(wc -l <"$f")" -eq 5 ] && ok "4 complete ok rows" || { bad "rows: $n ok of $(($(wc -l <"$f") - 1))"; cat "$f"; }
for v in negcount split; do
  b=$(awk -F, -v v="$v" "$COLS"'$col("variant") == v {print $col("build")}' "$f" | sort | tr '\n' ' ')
  [ "$b" = "race release " ] && ok "$v: one release and one race chunk" || bad "$v builds: '$b'"
done
# the rare paths ran: every count the soak reports is above zero in sum
awk -F, "$COLS"'NR > 1 {for (i = 1; i <= 5; i++) s[i] += $col(counts[i])}
  BEGIN {split("timeouts einval eintr signals spurious", counts, " ")}
  END {for (i = 1; i <= 5; i++) if (!(s[i] > 0)) exit 1}' "$f" &&
  ok "timeouts, EINVAL, EINTR, signals and spurious wakes all counted" || bad "a zero count: $(cat "$f")"

# expected TABLE_ROWS: per variant, sums over the ok rows (FAIL rows counted apart)
expected() {
  awk -F, "$COLS"'BEGIN { split("timeouts einval eintr signals spurious", counts, " ") }
    NR > 1 { v = $col("variant"); if (!(v in seen)) { seen[v] = 1; o[++n] = v }
      if ($col("result") == "FAIL") { failed[v]++; next }
      r[v, $col("build")] += $col("ops"); tot[v] += $col("ops"); ch[v]++
      for (i = 1; i <= 5; i++) c[v, i] += $col(counts[i]) }
    END { for (j = 1; j <= n; j++) { v = o[j]
      printf "%s %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %d %d\n", v, r[v, "release"], r[v, "race"],
        tot[v], c[v, 1], c[v, 2], c[v, 3], c[v, 4], c[v, 5], ch[v], failed[v] } }' "$1"
}
# table: the same columns from the summary's markdown rows
table() {
  awk -F'|' '/^\| [^ ]+ \| [0-9]/ { for (i = 2; i <= NF; i++) gsub(/^ +| +$/, "", $i)
    print $2, $3, $4, $5, $8, $9, $10, $11, $12, $13, $14 }'
}
"$soak" --summary --file "$f" >"$t/sum"; rc=$?
if [ $rc -eq 0 ] && [ "$(table <"$t/sum")" = "$(expected "$f")" ] && [ "$(table <"$t/sum" | wc -l)" -eq 2 ]; then
  ok "summary adds up the rows exactly"
else
  bad "summary rc=$rc"; echo "expected:"; expected "$f"; echo "got:"; cat "$t/sum"
fi
grep -q '^| negcount | .* 0.0[0-9]% | ' "$t/sum" && ok "share of 10^9" || bad "share: $(grep negcount "$t/sum")"
"$soak" --summary --until-ops 1e3 --file "$f" | grep -q '^| variant .* of 10^3 |' &&
  ok "--until-ops sets the summary's target" || bad "--until-ops target not in the header"

# A malformed file is refused, by the summary and by a run, and untouched.
corrupt() { # description sed-script
  local what=$1 c=$t/c.csv sum
  sed "$2" "$f" >"$c"; sum=$(md5sum <"$c")
  refused "summary refuses $what" "" "$soak" --summary --file "$c"
  refused "run refuses $what" "" "$soak" --build "$bdir" --file "$c" 1 negcount
  [ "$(md5sum <"$c")" = "$sum" ] && ok "$what: file untouched" || bad "$what: file changed"
}
corrupt "a count that is not a number" '3s/,\([0-9]*\),\([0-9]*\),ok$/,\1x,\2,ok/'
corrupt "a row with a field missing" '4s/,[^,]*,ok$/,ok/'
corrupt "a bad build" '2s/,release,/,debug,/; 2s/,race,/,debug,/'
corrupt "a foreign header" '1s/^date,/when,/'
head -c -1 "$f" >"$t/c.csv"
refused "summary refuses a last line without newline" "" "$soak" --summary --file "$t/c.csv"
# the refusal names the line
sed '3s/,ok$/,maybe/' "$f" >"$t/c.csv"
"$soak" --summary --file "$t/c.csv" 2>&1 | grep -q 'c.csv:3: result is neither' &&
  ok "the refusal names line 3" || bad "refusal without the line number"

# A failing chunk: torture_race that reports FAIL (a wrapper of the real one).
fb=$t/fakebuild
mkdir -p "$fb/tests" "$fb/harness"
ln -s "$(cd "$bdir" && pwd)/harness/futexlab" "$fb/harness/futexlab"
ln -s "$(cd "$bdir" && pwd)/tests/torture" "$fb/tests/torture"
printf '#!/bin/sh\n"%s" "$@" | sed "s/result=ok$/result=FAIL/"\necho "FAIL injected by test_soak.sh"\nexit 1\n' \
  "$(cd "$bdir" && pwd)/tests/torture_race" >"$fb/tests/torture_race"
chmod +x "$fb/tests/torture_race"
ff=$t/fail/f.csv
"$soak" --build "$fb" --file "$ff" --chunk 0.3 0.6 negcount >"$t/out" 2>&1; rc=$?
logs=$(ls "$t/fail"/fail-*-negcount-race.log 2>/dev/null | wc -l)
if [ $rc -eq 1 ] && [ "$logs" -eq 1 ] && grep -q '^soak: FAILED (1 of 2 chunks' "$t/out" &&
   [ "$(awk -F, "$COLS"'NR > 1 {print $col("build"), $col("result")}' "$ff" | tr '\n' ' ')" = "release ok race FAIL " ]; then
  ok "a failing chunk: FAIL row, log kept, exit 1"
else
  bad "failing chunk: rc=$rc logs=$logs"; cat "$t/out" "$ff"
fi
"$soak" --summary --file "$ff" >"$t/sum"
log=$(sed -n 's/^- negcount race .*: log \(fail-.*\.log\)$/\1/p' "$t/sum")
[ "$(table <"$t/sum")" = "$(expected "$ff")" ] && [ "$(table <"$t/sum" | awk '{print $3, $11}')" = "0 1" ] &&
  [ -n "$log" ] && [ -f "$t/fail/$log" ] && ok "summary: the failed chunk's ops not counted, its log named" ||
  { bad "summary of a failed chunk"; cat "$t/sum"; ls "$t/fail"; }

# Killed mid-soak: only complete rows, no temp file, no torture left.
for sig in INT TERM; do
  k=$t/kill-$sig/k.csv
  env --default-signal=INT "$soak" --build "$bdir" --file "$k" --chunk 0.4 30 negcount >/dev/null 2>"$t/err" &
  p=$!
  # the state to interrupt in: a chunk recorded and the next one's torture
  # running (its pid found: "no torture left" below must have found one to
  # look for, or it proves nothing); 60 s for 0.4 s chunks is generous
  t0=$(date +%s%N) kids=
  while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 60000 ] && kill -0 $p 2>/dev/null; do
    if [ "$(cat "$k" 2>/dev/null | wc -l)" -ge 2 ]; then
      kids=$(pgrep -P $p '^torture')
      [ -n "$kids" ] && break
    fi
    sleep 0.05
  done
  waited=$(( ($(date +%s%N) - t0) / 1000000 ))
  kill -$sig $p; wait $p; rc=$?
  # gone: no such process, or no longer that torture (a zombie's cmdline is
  # empty, a recycled pid another's)
  left=$(for c in $kids; do tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q torture && echo "$c"; done)
  want=130; [ $sig = TERM ] && want=143
  rows=$(($(wc -l <"$k") - 1))
  if [ -z "$kids" ]; then
    bad "SIG$sig: no torture process of the soak found to interrupt in $waited ms (bound 60 s), rows=$rows; load $(cat /proc/loadavg)"
  elif [ $rc -eq $want ] && [ $rows -ge 1 ] && [ -z "$left" ] && [ -z "$(ls -A "$(dirname "$k")" | grep -v '^k.csv$')" ] &&
     "$soak" --summary --file "$k" >"$t/sum" && [ "$(table <"$t/sum")" = "$(expected "$k")" ] &&
     grep -q 'interrupted during negcount' "$t/err"; then
    ok "SIG$sig mid-soak: exit $rc, $rows complete rows, nothing left behind (torture $kids gone)"
  else
    bad "SIG$sig: rc=$rc rows=$rows torture '$kids' left='$left' dir: $(ls -A "$(dirname "$k")") err: $(cat "$t/err")"
  fi
done

finish -s "soak tests"
