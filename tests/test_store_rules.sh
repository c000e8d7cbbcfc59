#!/usr/bin/env bash
# tests/test_store_rules.sh — the store keeps only what it can read back,
# and says which machine is which (store/README.md, harness/csv.md "The
# end of a run"). On crafted files cut from a real run (the reference's
# metadata, header and first 40 rows) and three tiny real runs (~0.2 s
# each, one interrupted by SIGINT):
#   - values the readers refuse (nan, abc, -5, empty, 1e999 on an ok row;
#     a repeated header; no rows; no identity lines; no '# futexlab' line):
#     refused by store add naming the file, the row and the column, exit 2,
#     no database left behind; refused by compare, report and history alike;
#   - the end line: a finished run has it and is stored; one cut at a row
#     boundary, or interrupted, is refused by store add and read by compare
#     with one warning line; a damaged copy (checksum) refused everywhere;
#     an older file (no '# format:' line) read and stored without one;
#   - the database: user_version -1, -3, -5 and 99 refused by every command
#     (never a crash); '', :memory: and a directory refused by name;
#     rows lost or changed inside the store named as a damaged run (never
#     a shorter run), found by store check, removed by store rm; 16 bytes
#     flipped at 8 fixed offsets: every listing is the intact one or a
#     refusal;
#   - machines: 'name [fingerprint8]' everywhere shown, two fingerprints
#     under one name flagged, --machine taking either;
#   - the selection options: the same refusals in store ls, history,
#     compare and report; a selection matching nothing refused;
#   - an A/B run ('# ab:' line, side column) stored apart: listed with its
#     mark, never selected by history, report --db or compare --db.
# Deterministic (fixed inputs and offsets; the interrupted run waits for its
# first rows, bounded), ~15 s.
# Usage: test_store_rules.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
here=$(cd "$(dirname "$0")" && pwd)
ref=$here/../results/reference/bench.csv
scratch d store-rules
runpid=
on_exit() { [ -n "$runpid" ] && kill "$runpid" 2>/dev/null; [ -n "$runpid" ] && wait "$runpid" 2>/dev/null; }
db=$d/s.db
# no_db WHAT PATH: the refused add left no database behind
no_db() { check "$1: no database left behind" test ! -e "$2"; }

meta=$(grep -c '^#' "$ref")
head -n $((meta + 41)) "$ref" >"$d/base.csv"
# the first ok row's number, and a copy with its ns_per_op (by name) replaced
okrow=$(awk -F, "$COLS"'!/^#/ && seen++ && $col("status") == "ok" { print seen - 1; exit }' "$d/base.csv")
with_ns() {
  awk -F, -v OFS=, -v v="$1" -v at="$okrow" "$COLS"'
    /^#/ || !seen { if (!/^#/) seen = 1; print; next }
    ++n == at { $col("ns_per_op") = v } { print }' "$d/base.csv"
}
check "an ok row found (the crafted rows' premise: row $okrow)" test -n "$okrow"

# ---- 1. values the readers refuse: refused at add, and by every reader ----
for v in nan abc -5 '' 1e999; do
  with_ns "$v" >"$d/v.csv"
  rm -f "$d/new.db"
  refusal "row $okrow: column ns_per_op: '$v'" "$fl" store add "$d/v.csv" --db "$d/new.db" &&
    ok "ns_per_op '$v': store add refuses it, naming row and column" ||
    bad "ns_per_op '$v': store add: rc $rc, '$err'"
  [[ $err == *"$d/v.csv"* ]] && ok "  ... and the file" || bad "  ... the file not named: '$err'"
  no_db "  ns_per_op '$v'" "$d/new.db"
  for c in "compare $d/v.csv" "report $d/v.csv -o $d/x.html" "history $d/v.csv $d/base.csv"; do
    # shellcheck disable=SC2086
    refusal "row $okrow: column ns_per_op: '$v'" "$fl" $c &&
      ok "  ${c%% *} refuses it by the same rule" || bad "  ${c%% *}: rc $rc, '$err'"
  done
done
awk -F, -v OFS=, "$COLS"'/^#/ || !seen { if (!/^#/) seen = 1; print; next }
  ++n == 2 { $col("elapsed_ns") = "-7" } { print }' "$d/base.csv" >"$d/v.csv"
refusal "row 2: column elapsed_ns: '-7'" "$fl" store add "$d/v.csv" --db "$d/new.db" &&
  ok "a negative figure in another column: refused, named" || bad "negative elapsed_ns: rc $rc, '$err'"
{ cat "$d/base.csv"; grep -v '^#' "$d/base.csv" | head -n1; } >"$d/hdr.csv"
refusal "row 41 is the header again" "$fl" store add "$d/hdr.csv" --db "$d/new.db" &&
  ok "a repeated header line: refused" || bad "repeated header: rc $rc, '$err'"
refusal "row 41 is the header again" "$fl" compare "$d/hdr.csv" &&
  ok "  compare refuses it too" || bad "  compare: rc $rc, '$err'"
head -n $((meta + 1)) "$d/base.csv" >"$d/norows.csv"
refusal "no rows (a run that measured nothing) in $d/norows.csv" "$fl" store add "$d/norows.csv" --db "$d/new.db" &&
  ok "a header and no rows: refused" || bad "no rows: rc $rc, '$err'"
refusal "no rows" "$fl" report "$d/norows.csv" -o "$d/x.html" &&
  ok "  report refuses it too" || bad "  report: rc $rc, '$err'"
for k in date command; do
  grep -v "^# $k: " "$d/base.csv" >"$d/noid.csv"
  refusal "no '# $k:' line" "$fl" store add "$d/noid.csv" --db "$d/new.db" &&
    ok "no '# $k:' line: refused (the run's identity)" || bad "no $k: rc $rc, '$err'"
done
sed '1d' "$d/base.csv" >"$d/nohead.csv"
for c in "store add $d/nohead.csv --db $d/new.db" "compare $d/nohead.csv" "history $d/nohead.csv $d/base.csv"; do
  # shellcheck disable=SC2086
  refusal "" "$fl" $c && ok "no '# futexlab' line: ${c% *} refuses it" || bad "no futexlab line: $c: rc $rc, '$err'"
done
no_db "every refused add" "$d/new.db"
refusal "" "$fl" store add "$here/../README.md" --db "$d/new.db" && no_db "a foreign file" "$d/new.db"

# ---- 2. the end line ----
tiny() { "$fl" run --variant negcount,glibc --workload uncontended --rounds 3 --warmup 0 \
  --ops 1000 --no-probes --no-latency "$@" >/dev/null 2>&1; }
tiny --csv "$d/r1.csv" --seed 1
tiny --csv "$d/r2.csv" --seed 2
check "a finished run ends with '# end: N rows, fnv1a64 HEX'" \
  grep -qE '^# end: [0-9]+ rows, fnv1a64 [0-9a-f]{16}$' <(tail -n1 "$d/r1.csv")
check "  its count is its rows" test "$(tail -n1 "$d/r1.csv" | awk '{ print $3 }')" = "$(grep -cv '^#' "$d/r1.csv" | awk '{ print $1 - 1 }')"
check "  and its opening lines promise it ('# format: 2')" grep -q '^# format: 2 ' "$d/r1.csv"
"$fl" store add "$d/r1.csv" --db "$db" >"$d/out" 2>&1
check "a finished run: stored" grep -q '^added run 1 ' "$d/out"
check "  its end line kept" test "$(sql 'SELECT end_line FROM runs WHERE id = 1')" = "$(tail -n1 "$d/r1.csv" | cut -c3-)"
head -n -3 "$d/r2.csv" >"$d/cut.csv"
refusal "no end line: the run did not finish" "$fl" store add "$d/cut.csv" --db "$db" &&
  ok "a run cut at a row boundary: store add refuses it" || bad "cut: rc $rc, '$err'"
"$fl" compare "$d/cut.csv" >/dev/null 2>"$d/err"; rc=$?
check "  compare reads it (exit 0, got $rc) with one warning line" \
  test "$rc" = 0 -a "$(wc -l <"$d/err")" = 1
check "  the warning says so" grep -q "warning: $d/cut.csv: no end line" "$d/err"
sed 's/^\(negcount,uncontended,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,\)\([0-9]\)/\1\29/' "$d/r2.csv" >"$d/flip.csv"
if cmp -s "$d/flip.csv" "$d/r2.csv"; then bad "the damaged copy differs (premise)"; fi
refusal "checksum" "$fl" compare "$d/flip.csv" && ok "a damaged copy (a digit changed): compare refuses it" ||
  bad "damaged copy: rc $rc, '$err'"
refusal "checksum" "$fl" store add "$d/flip.csv" --db "$db" && ok "  store add too" || bad "  store add: rc $rc, '$err'"
{ cat "$d/r2.csv"; grep -v '^#' "$d/r2.csv" | tail -n1; } >"$d/after.csv"
refusal "a line after the run's end line" "$fl" compare "$d/after.csv" &&
  ok "a row after the end line: refused" || bad "row after end: rc $rc, '$err'"
# interrupted: a long run, SIGINT once its first rows are written
"$fl" run --variant negcount,glibc --workload uncontended --rounds 1000 --warmup 0 \
  --ops 1000 --no-probes --no-latency --csv "$d/int.csv" >/dev/null 2>&1 & runpid=$!
for _ in $(seq 100); do [ "$(grep -cv '^#' "$d/int.csv" 2>/dev/null || echo 0)" -gt 4 ] && break; sleep 0.05; done
kill -INT "$runpid"; wait "$runpid"; rc=$?; runpid=
check "an interrupted run: exit 130 (got $rc)" test "$rc" = 130
check "  its end line says interrupted" grep -qE '^# end: [0-9]+ rows, fnv1a64 [0-9a-f]{16}, interrupted$' <(tail -n1 "$d/int.csv")
refusal "an interrupted run" "$fl" store add "$d/int.csv" --db "$db" &&
  ok "  store add refuses it" || bad "  store add: rc $rc, '$err'"
"$fl" compare "$d/int.csv" >/dev/null 2>"$d/err"; rc=$?
check "  compare reads it with one warning line (rc $rc)" test "$rc" = 0 -a "$(wc -l <"$d/err")" = 1
# an older file: no format line, no end line; read and stored without it
old=$here/../results/gate/quiet/n-1.csv
"$fl" compare "$old" >/dev/null 2>"$d/err"; rc=$?
check "an older file (no '# format:' line): compare reads it, no warning" test "$rc" = 0 -a ! -s "$d/err"
"$fl" store add "$old" --db "$db" >"$d/out" 2>&1
check "  store add stores it (its rows counted)" test "$(sql "SELECT nrows FROM runs WHERE path LIKE '%n-1.csv'")" = "$(grep -cv '^#' "$old" | awk '{ print $1 - 1 }')"

# ---- 3. the database ----
for v in -1 -3 -5 99; do
  cp "$db" "$d/v.db"; sqlite3 "$d/v.db" "PRAGMA user_version = $v"
  for c in "store ls --db $d/v.db" "store add $d/base.csv --db $d/v.db" "history --db $d/v.db" \
           "compare --db $d/v.db --against $d/r2.csv" "report --db $d/v.db -o $d/x.html"; do
    # shellcheck disable=SC2086
    refusal "schema version $v" "$fl" $c && ok "user_version $v: ${c%% --*} refuses it" ||
      bad "user_version $v: $c: rc $rc, '$err'"
  done
done
refusal "an empty path is not a store" "$fl" store add "$d/base.csv" --db "" && ok "--db '': refused by name" || bad "--db '': rc $rc, '$err'"
refusal ":memory: is not a store" "$fl" store add "$d/base.csv" --db :memory: && ok "--db :memory:: refused" || bad ":memory:: rc $rc, '$err'"
refusal "in-memory or temporary" "$fl" store add "$d/base.csv" --db 'file::memory:' && ok "--db file::memory:: refused" || bad "file::memory:: rc $rc, '$err'"
refusal "$d is a directory, not a store" "$fl" store add "$d/base.csv" --db "$d" && ok "--db DIRECTORY: refused by name" || bad "--db dir: rc $rc, '$err'"
refusal "$d is a directory" "$fl" history --db "$d" && ok "  history --db DIRECTORY too" || bad "  history: rc $rc, '$err'"

# damage inside the store: rows lost, a row changed
cp "$db" "$d/dmg.db"
sqlite3 "$d/dmg.db" "DELETE FROM rows WHERE run = 1 AND ord >= 10"
refusal "run 1 is damaged: 10 of its" "$fl" store ls --db "$d/dmg.db" && ok "rows lost in the store: named, never a shorter run" || bad "lost rows: rc $rc, '$err'"
refusal "run 1 is damaged" "$fl" history --db "$d/dmg.db" && ok "  history says so too" || bad "  history: rc $rc, '$err'"
"$fl" store check --db "$d/dmg.db" >"$d/out" 2>&1; rc=$?
check "  store check: exit 1 (got $rc), the run named" test "$rc" = 1
check "  ... 'run 1: ...damaged'" grep -q '^run 1: .*damaged' "$d/out"
"$fl" store rm 1 --db "$d/dmg.db" >"$d/out" 2>&1
check "  store rm 1: removed" grep -qx 'removed run 1' "$d/out"
"$fl" store check --db "$d/dmg.db" >"$d/out" 2>&1; rc=$?
check "  then store check: exit 0 (got $rc)" test "$rc" = 0
check "  the history reads again" sh -c '"$1" store ls --db "$2" >/dev/null' - "$fl" "$d/dmg.db"
cp "$db" "$d/dmg.db"
sqlite3 "$d/dmg.db" "UPDATE rows SET line = replace(line, ',ok,', ',ok,,') WHERE run = 1 AND ord = 3"
refusal "" "$fl" store ls --db "$d/dmg.db" && ok "a row changed in the store: refused" || bad "changed row: rc $rc, '$err'"
sqlite3 "$d/dmg.db" "UPDATE rows SET line = replace(line, ',ok,,', ',ok,') WHERE run = 1 AND ord = 3;
  UPDATE rows SET line = substr(line, 1, 20) || '9' || substr(line, 22) WHERE run = 1 AND ord = 5"
refusal "its rows read back are not the rows stored" "$fl" store ls --db "$d/dmg.db" &&
  ok "a digit changed in a stored row: the checksum names the run" || bad "digit: rc $rc, '$err'"
refusal "no run 7" "$fl" store rm 1 7 --db "$d/dmg.db" && ok "store rm of an id not stored: refused" || bad "rm 7: rc $rc, '$err'"
check "  ... and nothing removed (all or none)" test "$(sqlite3 "$d/dmg.db" 'SELECT count(*) FROM runs WHERE id = 1')" = 1
refusal "a run id" "$fl" store rm x --db "$d/dmg.db" && ok "store rm x: refused" || bad "rm x: rc $rc, '$err'"
# 16 bytes flipped mid-file at 8 fixed offsets: the listing is the intact
# one, or a refusal; never fewer rows
"$fl" store add "$d/base.csv" --db "$db" >/dev/null 2>&1
"$fl" store ls --db "$db" >"$d/ls.good"
size=$(stat -c %s "$db")
flipped=0
for k in 1 2 3 4 5 6 7 8; do
  cp "$db" "$d/flip.db"
  off=$(( size * k / 9 ))
  printf '\xff\x00\xa5\x5a\xff\x00\xa5\x5a\xff\x00\xa5\x5a\xff\x00\xa5\x5a' |
    dd of="$d/flip.db" bs=1 seek="$off" conv=notrunc status=none
  "$fl" store ls --db "$d/flip.db" >"$d/ls.flip" 2>"$d/err"; rc=$?
  if [ "$rc" = 0 ] && cmp -s "$d/ls.flip" "$d/ls.good"; then :
  elif [ "$rc" = 2 ] && [ "$(wc -l <"$d/err")" = 1 ]; then flipped=$((flipped + 1))
  else bad "16 bytes flipped at $off: rc $rc, a listing other than the intact one: $(diff "$d/ls.good" "$d/ls.flip" | head -c 300)"; fi
done
ok "16 bytes flipped at 8 offsets: each listing intact or refused ($flipped refused)"

# ---- 4. machines: name [fingerprint8] ----
sed -e 's/^# seed: .*/# seed: 31/' -e 's/^# cores: \(.*\)/# cores: \1\n# host: vm/' "$d/base.csv" >"$d/vm1.csv"
sed -e 's/^# seed: .*/# seed: 32/' -e 's/^# cpu: .*/# cpu: Intel Xeon/' \
    -e 's/^# cores: \(.*\)/# cores: \1\n# host: vm/' "$d/base.csv" >"$d/vm2.csv"
sed -e 's/^# seed: .*/# seed: 33/' -e 's/^# date: .*/# date: 2026-12-09T00:00:00Z/' "$d/vm2.csv" >"$d/vm2b.csv"
mdb=$d/m.db
"$fl" store add "$d/vm1.csv" "$d/vm2.csv" "$d/vm2b.csv" --db "$mdb" >"$d/out" 2>&1
check "two machines named vm: added as 'vm [fingerprint8]'" test "$(grep -cE '^added run [0-9] \(machine vm \[[0-9a-f]{8}\],' "$d/out")" = 3
fp1=$(sqlite3 "$mdb" "SELECT fingerprint FROM machines WHERE cpu NOT LIKE 'Intel%'")
fp2=$(sqlite3 "$mdb" "SELECT fingerprint FROM machines WHERE cpu LIKE 'Intel%'")
"$fl" store ls --db "$mdb" >"$d/out" 2>"$d/err"
check "store ls: each run's machine 'vm [fp8]'" test "$(grep -c "vm \[${fp2:0:8}\]" "$d/out")" -ge 2
check "  the machines' list flags the shared name" test "$(grep -c 'another machine has this name' "$d/out")" = 2
"$fl" store ls --db "$mdb" --machine vm >"$d/out" 2>"$d/err"
check "--machine vm: both, with a note naming each" grep -q "note: 2 machines are named 'vm' (vm \[${fp1:0:8}\], 1 run; vm \[${fp2:0:8}\], 2 runs)" "$d/err"
check "--machine 'vm [fp8]' selects one" test "$("$fl" store ls --db "$mdb" --machine "vm [${fp2:0:8}]" | grep -c '^[0-9]')" = 2
check "--machine FINGERPRINT-PREFIX selects one" test "$("$fl" store ls --db "$mdb" --machine "${fp1:0:6}" | grep -c '^[0-9]')" = 1
"$fl" history --db "$mdb" --machine vm --tsv >"$d/out" 2>"$d/err"
check "history --machine vm: the note" grep -q "history: note: 2 machines are named 'vm'" "$d/err"
check "  its series named by 'vm [fp8]', both" test "$(cut -f1 "$d/out" | sort -u | grep -c '^vm \[[0-9a-f]\{8\}\]$')" = 2
refusal "ran on vm [${fp1:0:8}]" "$fl" compare "$d/vm1.csv" "$d/vm2.csv" --fail-on slower &&
  ok "compare of the two: each machine as 'vm [fp8]'" || bad "compare: rc $rc, '$err'"
"$fl" compare --db "$mdb" --against "$d/vm1.csv" >/dev/null 2>"$d/err"
check "compare --db --against: the other vm flagged" grep -q "compare: note: 2 machines are named 'vm'" "$d/err"
# vm2b (dated after vm2) has one earlier run of its machine: its history line names it
"$fl" compare --db "$mdb" --against "$d/vm2b.csv" >"$d/out" 2>"$d/err"
check "  the history's machine named 'vm [fp8]'" grep -q "^history: 1 run of vm \[${fp2:0:8}\], " "$d/out"

# ---- 5. the selection options: one parser, the same refusals ----
for opt in "--since yesterday" "--since 2026-13-45" "--since 2026-02-30" "--last 0" "--machine ''" "--rev ''"; do
  eval "set -- $opt"
  want=
  for c in "store ls --db $mdb" "history --db $mdb" "compare --db $mdb --against $d/vm1.csv" "report --db $mdb -o $d/x.html"; do
    # shellcheck disable=SC2086
    refusal "" "$fl" $c "$@" || { bad "$opt: $c: rc $rc, '$err'"; continue; }
    [ -z "$want" ] && want=$err
    [ "$err" = "$want" ] || bad "$opt: ${c%% *} says '$err', not '$want'"
  done
  ok "$opt: refused alike by store ls, history, compare, report ('$want')"
done
for c in "store ls" "history" "report"; do
  # shellcheck disable=SC2086
  refusal "no run in $mdb matches the selection (--since '2030-01-01')" "$fl" $c --db "$mdb" --since 2030-01-01 -o "$d/x.html" 2>/dev/null ||
  refusal "no run in $mdb matches the selection (--since '2030-01-01')" "$fl" $c --db "$mdb" --since 2030-01-01
  [ "$rc" = 2 ] && ok "$c: a selection matching nothing: said, exit 2" || bad "$c nothing: rc $rc, '$err'"
done

# ---- 6. an A/B run: stored apart ----
{ sed -e 's/^# seed: .*/# seed: 41/' -e 's|^# command: .*|# command: ab --base /b --head /h|' \
      -e 's|^# cores: \(.*\)|# cores: \1\n# ab: base d8975f5 (/b), head abc1234 (/h), control d8975f5 (/b)|' \
      "$d/vm1.csv" | awk -F, -v OFS=, '/^#/ { print; next } !h { h = 1; print $0 ",side"; next } { print $0 ",base" }'; } >"$d/ab.csv"
adb=$d/ab.db
"$fl" store add "$d/ab.csv" --db "$adb" >"$d/out" 2>&1
check "an A/B run: stored, said to be kept apart" grep -q '^added run 1 (machine vm .*: an A/B run, kept apart from the history$' "$d/out"
check "  its mark in the store" test "$(sqlite3 "$adb" 'SELECT ab FROM runs')" = "base d8975f5 (/b), head abc1234 (/h), control d8975f5 (/b)"
check "  store ls lists it, marked" grep -q '^1 .* ab: ab --base' <("$fl" store ls --db "$adb")
refusal "no run in $adb matches" "$fl" history --db "$adb" && ok "  history never selects it" || bad "  history: rc $rc, '$err'"
refusal "no run in $adb matches" "$fl" report --db "$adb" -o "$d/x.html" && ok "  report --db never selects it" || bad "  report: rc $rc, '$err'"
for k in 4 5; do
  # dated before vm1: a history holds strictly earlier runs only
  sed -e "s/^# seed: .*/# seed: 3$k/" -e "s/^# date: .*/# date: 2026-12-0${k}T00:00:00Z/" "$d/vm1.csv" >"$d/vm1$k.csv"
done
"$fl" store add "$d/vm14.csv" "$d/vm15.csv" --db "$adb" >/dev/null 2>&1
"$fl" compare --db "$adb" --against "$d/vm1.csv" >"$d/out" 2>&1
check "  compare --db's history of its machine leaves it out (2 runs, not 3)" grep -q '^history: 2 runs of ' "$d/out"
check "  history: the two others only" test "$("$fl" history --db "$adb" --tsv 2>/dev/null | cut -f5 | sort -u | grep -c store:)" = 2

finish store-rules
