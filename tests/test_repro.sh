#!/usr/bin/env bash
# tests/test_repro.sh — scripts/repro, the file-against-file figure, on two
# crafted runs whose median ratios are known: 3 pairs within 5%, one at 8%,
# one at 20%; the baseline, its control and a floor not counted; a design
# in one file only not paired. Bad input: one line, exit 2.
# Usage: test_repro.sh path/to/futexlab path/to/scripts/repro
set -u
. "$(dirname "$0")/lib.sh"
export FUTEXLAB=$1
repro=$2
scratch d repro
# 8 rounds, glibc = 1000+10r ns; each design F% of glibc's ns in every
# round (its median ratio F/100); glibc#2 and floor-empty at odd ratios.
craft() { # file, then "variant workload threads F" ...
  local f=$1; shift
  local designs=("$@") e x
  for r in 0 1 2 3 4 5 6 7; do
    g=$((1000 + 10 * r))
    for e in "glibc pool 4 100" "glibc#2 pool 4 $((100 + r % 2))" "glibc pingpong 2 100" \
             "glibc#2 pingpong 2 $((99 + r % 3))" "${designs[@]}"; do
      read -ra x <<<"$e"
      echo "variant=${x[0]} workload=${x[1]} threads=${x[2]} ns_per_op=$((g * x[3] / 100)).0 note=\"\" hash=auto spin=0 round=$r"
    done
  done | run_csv variant,workload,threads,tokens,hold_ns,think_ns,wake,ops,elapsed_ns,ns_per_op,ops_per_s,status,note,hash,spin,round,slot >"$f"
}
craft "$d/a.csv" "negcount pool 4 100" "split pool 4 100" "textbook pool 4 100" \
  "musl pingpong 2 100" "gosema pingpong 2 100" "floor-empty pool 4 50" "lock1 pool 4 100"
craft "$d/b.csv" "negcount pool 4 100" "split pool 4 102" "textbook pool 4 96" \
  "musl pingpong 2 108" "gosema pingpong 2 120" "floor-empty pool 4 90"
out=$("$repro" "$d/a.csv" "$d/b.csv" 2>&1); rc=$?
echo "$out"
check "exit 0" [ "$rc" -eq 0 ]
check "the figure: 3 of 5 within 5% (60%), 4 within 10%, worst 20% at gosema" \
  grep -qx 'file against file: 3 of 5 (point, design) pairs within 5% (60%), 4 within 10%, worst 20.0% (pingpong T=2 .*, gosema)' <<<"$out"
check "pool: 3 of 3 within 5%, the worst textbook's 4.2% (1/0.96)" \
  grep -qx '  pool: 3 of 3 within 5%, 3 within 10%, worst 4.2% (pool T=4 .*, textbook)' <<<"$out"
check "pingpong: 0 of 2 within 5%, 1 within 10%" \
  grep -qx '  pingpong: 0 of 2 within 5%, 1 within 10%, worst 20.0% (pingpong T=2 .*, gosema)' <<<"$out"
check "three lines, the control, the floor and lock1 (one file) not counted" \
  bash -c '[ "$(grep -c "" <<<"$1")" -eq 3 ] && ! grep -qE "glibc|floor|lock1" <<<"$1"' _ "$out"
# bad input: one line on stderr, nothing on stdout, exit 2
refused "a missing file" "" "$repro" "$d/a.csv" "$d/nosuch.csv"
refused "one file" "" "$repro" "$d/a.csv"
echo "not a run" >"$d/junk.csv"
refused "a file compare cannot read" "" "$repro" "$d/a.csv" "$d/junk.csv"
finish repro
