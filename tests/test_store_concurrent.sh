#!/usr/bin/env bash
# tests/test_store_concurrent.sh — the store under concurrent writers and
# under a writer killed (store/README.md, "Adding a run").
#   - 50 tries of 4 `store add` started at once on a store that does not
#     exist yet (each a distinct run cut from the reference's first 40 rows):
#     every writer that said "added run N" has its run in the store, every
#     other said it was locked (one line, exit 2) — never "not a futexlab
#     store" (the creation's check and the creation are one transaction);
#     the schema at its version, the integrity check ok.
#   - 15 tries of `store add` of the whole reference run (4101 rows) into an
#     existing store, killed with SIGKILL at fixed delays from 0 to 420 ms
#     (an add takes ~400 ms here: reading, then the transaction): the store
#     then holds the whole run or none of it, never part, and passes store
#     check.
# Fixed counts of tries; the time is bounded by the lock's 300 ms and the
# kills' delays, ~25 s on 2 vCPUs.
# Usage: test_store_concurrent.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
here=$(cd "$(dirname "$0")" && pwd)
ref=$here/../results/reference/bench.csv
scratch d store-conc
meta=$(grep -c '^#' "$ref")
for w in 1 2 3 4; do
  head -n $((meta + 41)) "$ref" | sed "s/^# seed: .*/# seed: 90$w/" >"$d/w$w.csv"
done

# ---- 4 writers creating one store, 50 tries ----
lost=0 foreign=0 other=0 locked=0 added=0
for try in $(seq 50); do
  db=$d/c$try.db
  for w in 1 2 3 4; do
    "$fl" store add "$d/w$w.csv" --db "$db" >"$d/o$w" 2>"$d/e$w" &
  done
  wait
  for w in 1 2 3 4; do
    if grep -q '^added run ' "$d/o$w"; then
      added=$((added + 1))
      [ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE seed = '90$w'")" = 1 ] || lost=$((lost + 1))
    elif grep -q 'not a futexlab store' "$d/e$w"; then foreign=$((foreign + 1))
    elif grep -q 'is locked by another process' "$d/e$w" && [ "$(wc -l <"$d/e$w")" = 1 ]; then
      locked=$((locked + 1))
    else other=$((other + 1)); echo "try $try writer $w: $(cat "$d/o$w" "$d/e$w" | head -c 300)"; fi
  done
  [ "$(sqlite3 "$db" 'PRAGMA user_version')" = 3 ] || other=$((other + 1))
  rm -f "$db"
done
check "4 writers x 50 tries creating a store: no run said added and lost ($lost)" test "$lost" = 0
check "  never 'not a futexlab store' ($foreign)" test "$foreign" = 0
check "  every writer added, or said locked in one line ($added added, $locked locked, $other else)" test "$other" = 0

# ---- store add killed at 15 fixed delays ----
db=$d/k.db
"$fl" store add "$d/w1.csv" --db "$db" >/dev/null
nrows=$(grep -cv '^#' "$ref"); nrows=$((nrows - 1))
whole=0 none=0 partial=0
for k in $(seq 0 14); do
  sed "s/^# seed: .*/# seed: 70$k/" "$ref" >"$d/big.csv"
  "$fl" store add "$d/big.csv" --db "$db" >/dev/null 2>&1 & pid=$!
  sleep "$(awk -v k="$k" 'BEGIN { printf "%.3f", k * 0.030 }')"
  kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  n=$(sqlite3 "$db" "SELECT count(*) FROM rows JOIN runs ON runs.id = rows.run WHERE runs.seed = '70$k'")
  if [ "$n" = "$nrows" ]; then whole=$((whole + 1)); elif [ "$n" = 0 ]; then none=$((none + 1))
  else partial=$((partial + 1)); echo "kill after $((k * 30)) ms: $n of $nrows rows stored"; fi
done
check "store add killed at 15 delays: never part of a run ($whole whole, $none none, $partial partial)" test "$partial" = 0
"$fl" store check --db "$db" >"$d/out" 2>&1; rc=$?
check "  store check after the kills: exit 0 (got $rc: $(tail -n1 "$d/out"))" test "$rc" = 0

finish store-concurrent
