#!/usr/bin/env bash
# tests/test_store.sh — `futexlab store` (store/README.md) on small runs cut
# from a real one (results/reference/bench.csv: its metadata, header and
# first 40 rows), copies of it with another date, seed, revision or host
# as distinct runs and machines: add, add again, ls and each selection;
# and everything refused with one line on stderr, exit 2 and nothing of
# the file stored — a truncated file, a short row, a foreign file, a run's
# identity with other bytes, a corrupt database, a read-only one, one
# locked by another process, a newer schema, a failure in the middle of
# the rows (a trigger: the transaction leaves nothing). The migration: a
# schema-1 database (tests/data/store-v1.sql) opened by this code.
# Deterministic (no run, no timing but the lock's bound), ~1 s.
# Usage: test_store.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
here=$(cd "$(dirname "$0")" && pwd)
ref=$here/../results/reference/bench.csv
scratch d store
lockpid=
on_exit() { exec 3>&- 2>/dev/null; [ -n "$lockpid" ] && wait "$lockpid"; }
db=$d/store.db

meta=$(grep -c '^#' "$ref")
head -n $((meta + 41)) "$ref" >"$d/base.csv"
sed 's/^# date: .*/# date: 2026-12-08T10:00:00Z/' "$d/base.csv" >"$d/later.csv"
sed -e 's/^# futexlab .*/# futexlab abc1234/' -e 's/^# seed: .*/# seed: 7/' \
    -e 's/^# cores: \(.*\)/# cores: \1\n# host: otherbox/' "$d/base.csv" >"$d/other.csv"

# ---- add, add again, ls ----
"$fl" store add "$d/base.csv" --db "$db" >"$d/out" 2>&1
check "add: exit 0" test $? -eq 0
check "add: 'added run 1 (machine ..., rev d8975f5, date)'" \
  grep -q '^added run 1 (machine AMD EPYC/2c/6.18.44-fc-v1272 \[76a05566\], rev d8975f5, 2026-12-06T06:49:36Z)$' "$d/out"
check "add: schema version 3" test "$(sql 'PRAGMA user_version')" = 3
check "add: 40 rows" test "$(sql 'SELECT count(*) FROM rows')" = 40
"$fl" store add "$d/base.csv" --db "$db" >"$d/out" 2>&1
check "add again: exit 0" test $? -eq 0
check "add again: 'already stored as run 1'" grep -qx 'already stored as run 1' "$d/out"
check "add again: still one run, 40 rows" test "$(sql 'SELECT count(*) FROM runs; SELECT count(*) FROM rows' | tr '\n' ' ')" = "1 40 "
check "add two: exit 0" sh -c '"$@" >/dev/null' - "$fl" store add "$d/later.csv" "$d/other.csv" --db "$db"
check "three runs, two machines" test "$(sql 'SELECT count(*) FROM runs; SELECT count(*) FROM machines' | tr '\n' ' ')" = "3 2 "
check "the other machine is named by its host" test "$(sql "SELECT count(*) FROM machines WHERE name = 'otherbox' AND host = 'otherbox'")" = 1
check "cpu_ns_per_op is (user+sys)/ops" test "$(sql 'SELECT count(*) FROM rows WHERE status = '"'ok'"' AND cpu_ns_per_op > 0')" -gt 0
"$fl" store ls --db "$db" >"$d/ls"
check "ls: exit 0" test $? -eq 0
check "ls: three runs, oldest first" test "$(awk '/^[0-9]/ {printf "%s ", $1}' "$d/ls")" = "1 3 2 "
check "ls: 40 rows each" test "$(awk '/^[0-9]/ && $0 ~ / 40  sweep/' "$d/ls" | wc -l)" -eq 3
check "ls: two machines with fingerprints" test "$(grep -cE '^  [0-9a-f]{16}  ' "$d/ls")" -eq 2
fp=$(sql "SELECT substr(fingerprint, 1, 6) FROM machines WHERE name = 'otherbox'")
runs_of() { "$fl" store ls --db "$db" "$@" | awk '/^[0-9]/ {printf "%s ", $1}'; }
check "ls --machine otherbox" test "$(runs_of --machine otherbox)" = "3 "
check "ls --machine FINGERPRINT-PREFIX" test "$(runs_of --machine "$fp")" = "3 "
check "ls --machine NAME" test "$(runs_of --machine 'AMD EPYC/2c/6.18.44-fc-v1272')" = "1 2 "
check "ls --rev abc" test "$(runs_of --rev abc)" = "3 "
check "ls --since 2026-12-07" test "$(runs_of --since 2026-12-07)" = "2 "
check "ls --last 2" test "$(runs_of --last 2)" = "3 2 "
check "ls --rev d89 --last 1" test "$(runs_of --rev d89 --last 1)" = "2 "
refused "ls --machine nobody: said, naming the selection" "no run in $db matches the selection (--machine 'nobody')" \
  "$fl" store ls --db "$db" --machine nobody

# ---- bad files: nothing stored ----
before=$(sql 'SELECT count(*) FROM runs; SELECT count(*) FROM rows; SELECT count(*) FROM machines' | tr '\n' ' ')
unchanged() { check "$1: nothing stored" test "$(sql 'SELECT count(*) FROM runs; SELECT count(*) FROM rows; SELECT count(*) FROM machines' | tr '\n' ' ')" = "$before"; }
sed 's/^# seed: .*/# seed: 8/' "$d/base.csv" | head -c -25 >"$d/cut.csv"
refused -E "truncated (last row cut mid-line), the line named" 'line [0-9]*: the last line is cut' \
  "$fl" store add "$d/cut.csv" --db "$db"
unchanged truncated
check "compare refuses it too (exit 2)" sh -c '"$1" compare "$2" >/dev/null 2>&1; test $? -eq 2' - "$fl" "$d/cut.csv"
{ sed 's/^# seed: .*/# seed: 9/' "$d/base.csv"; grep -v '^#' "$ref" | sed -n 50p | cut -d, -f1-12; } >"$d/short.csv"
refused "a row short of cells" "" "$fl" store add "$d/short.csv" --db "$db"
unchanged "short row"
printf 'variant,workload\nx,y\n' >"$d/foreign.csv"
refused "foreign file, said why" "does not begin '# futexlab '" "$fl" store add "$d/foreign.csv" --db "$db"
unchanged foreign
sed 's/^# seed: .*/# seed: 10/' "$d/base.csv" >"$d/good.csv"
"$fl" store add "$d/good.csv" "$d/cut.csv" "$d/later.csv" --db "$db" >"$d/out" 2>"$d/err"
check "a bad file among good ones: exit 2, one line" test $? -eq 2 -a "$(wc -l <"$d/err")" -eq 1
check "...the files after it not added: said" grep -q 'the files after it not added' "$d/err"
check "...the one before it added" test "$(sql "SELECT count(*) FROM runs WHERE seed = '10'")" = 1
sql "DELETE FROM rows WHERE run = (SELECT id FROM runs WHERE seed = '10'); DELETE FROM runs WHERE seed = '10'"
sed 's/ns_per_op,/ns_per_op ,/' "$d/base.csv" >"$d/samerun.csv"
refused "a stored run's identity with other bytes" "" "$fl" store add "$d/samerun.csv" --db "$db"
unchanged "same identity"

# ---- a failure in the middle of the rows: the transaction leaves nothing ----
sql "CREATE TRIGGER fail_row BEFORE INSERT ON rows WHEN NEW.ord = 20 BEGIN SELECT RAISE(ABORT, 'injected'); END"
sed 's/^# seed: .*/# seed: 11/' "$d/other.csv" | sed 's/^# host: .*/# host: thirdbox/' >"$d/third.csv"
refused "a row failing mid-run" "" "$fl" store add "$d/third.csv" --db "$db"
unchanged "mid-run failure (no run, no row, no machine)"
sql "DROP TRIGGER fail_row"
check "...added once the failure is gone" sh -c '"$@" >/dev/null' - "$fl" store add "$d/third.csv" --db "$db"
sql "DELETE FROM rows WHERE run = (SELECT id FROM runs WHERE seed = '11'); DELETE FROM runs WHERE seed = '11'; DELETE FROM machines WHERE name = 'thirdbox'"

# ---- bad databases ----
head -c 8192 /dev/urandom >"$d/garbage.db"
refused "corrupt database (add)" "" "$fl" store add "$d/base.csv" --db "$d/garbage.db"
refused "corrupt database (ls)" "" "$fl" store ls --db "$d/garbage.db"
refused "missing database (ls)" "" "$fl" store ls --db "$d/none.db"
check "...not made by ls" test ! -e "$d/none.db"
# Root ignores file modes, so read-only is SQLite's own mode, through a URI:
# the same refusal a non-root user gets from chmod 444.
sed 's/^# seed: .*/# seed: 12/' "$d/base.csv" >"$d/ro.csv"
refused "read-only database (mode=ro), said as read-only" readonly "$fl" store add "$d/ro.csv" --db "file:$db?mode=ro"
unchanged "read-only"
if [ "$(id -u)" -ne 0 ]; then
  cp "$db" "$d/ro.db"; chmod 444 "$d/ro.db"
  refused "read-only database (chmod 444)" "" "$fl" store add "$d/ro.csv" --db "$d/ro.db"
fi
cp "$db" "$d/newer.db"; sqlite3 "$d/newer.db" 'PRAGMA user_version = 99'
refused "newer schema, said" "DB: schema version 99 is newer than this futexlab's 3" \
  "$fl" store add "$d/ro.csv" --db "$d/newer.db"
refused "newer schema (ls)" "" "$fl" store ls --db "$d/newer.db"
sqlite3 "$d/other.db" 'CREATE TABLE t (x)'
refused "another program's database" "" "$fl" store add "$d/ro.csv" --db "$d/other.db"

# A write lock held by another process, taken before our first read
# (EXCLUSIVE) or only against writers (IMMEDIATE): sqlite3 reading a fifo
# keeps its transaction open until the fifo is closed.
mkfifo "$d/fifo"
for mode in EXCLUSIVE IMMEDIATE; do
  sqlite3 "$db" <"$d/fifo" >/dev/null & lockpid=$!
  exec 3>"$d/fifo"
  echo "BEGIN $mode; SELECT count(*) FROM runs;" >&3
  for _ in $(seq 100); do sqlite3 "$db" 'BEGIN IMMEDIATE; ROLLBACK' >/dev/null 2>&1 || break; sleep 0.05; done
  t0=$(date +%s%N)
  refused "locked database ($mode), said as locked" 'is locked by another process' "$fl" store add "$d/ro.csv" --db "$db"
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  check "...within 3 s (took $ms ms)" test "$ms" -lt 3000
  exec 3>&-; wait "$lockpid"; lockpid=
  unchanged "locked ($mode)"
done
check "the lock gone: added" sh -c '"$@" >/dev/null' - "$fl" store add "$d/ro.csv" --db "$db"

# ---- the migration: a schema-1 database opened by this code ----
v1=$d/v1.db
sqlite3 "$v1" <"$here/data/store-v1.sql"
check "v1 fixture at version 1" test "$(sqlite3 "$v1" 'PRAGMA user_version')" = 1
"$fl" store ls --db "$v1" >"$d/out"
check "v1: ls lists its run" grep -q '^1 .*v1fixture .*Old CPU/4c/5.10.0 .* 3  run --variants glibc,negcount$' "$d/out"
check "v1: migrated to version 3" test "$(sqlite3 "$v1" 'PRAGMA user_version')" = 3
check "v1: the rows survived" test "$(sqlite3 "$v1" 'SELECT count(*), sum(ns_per_op), sum(cpu_ns_per_op) FROM rows')" = "3|419.75|550.0"
check "v1: the machine survived, new columns empty" \
  test "$(sqlite3 "$v1" "SELECT fingerprint, name, host, libraries FROM machines")" = "0123456789abcdef|Old CPU/4c/5.10.0||"
check "v1: runs.as_ exists, NULL" test "$(sqlite3 "$v1" 'SELECT count(*) FROM runs WHERE as_ IS NULL')" = 1
check "v1: the views exist" test "$(sqlite3 "$v1" 'SELECT nrows FROM run_list')" = 3
check "v1: a new run added" sh -c '"$@" >/dev/null' - "$fl" store add "$d/base.csv" --db "$v1"
check "v1: two runs" test "$(sqlite3 "$v1" 'SELECT count(*) FROM runs')" = 2

# ---- usage ----
check "store --help: exit 0" sh -c '"$1" store --help | grep -q "usage: futexlab store add"' - "$fl"
refused "no subcommand" "" "$fl" store --db "$db"
refused "unknown subcommand" "" "$fl" store bogus --db "$db"
refused "add without files" "" "$fl" store add --db "$db"
refused "add with a selection" "" "$fl" store add "$d/base.csv" --db "$db" --last 2
refused "--last 0" "" "$fl" store ls --db "$db" --last 0
refused "--since not a date" "" "$fl" store ls --db "$db" --since yesterday
refused "unknown option" "" "$fl" store ls --db "$db" --bogus

finish store
