#!/usr/bin/env bash
# tests/test_evidence.sh — the evidence block, the why line, probed rounds
# (model/evidence.h, model/table.h) on crafted CSVs: `futexlab compare
# FILE`, `compare --tsv`, `compare A B`. Usage: test_evidence.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch d evidence
# field WORD N: field N (awk) of the block row of variant WORD (the last
# line starting with it before the summary: the ratio row comes first)
field() { awk -v v="$1" -v n="$2" '/^summary: / { exit } $1 == v { x = $n } END { print x }' <<<"$out"; }

BASE="variant,workload,threads,tokens,hold_ns,think_ns,wake,ops,elapsed_ns,ns_per_op,ops_per_s,status,note,hash,spin,round,slot,sems,cpu_user_ns,cpu_sys_ns,csw_vol,csw_invol"
PROBE="futex_syscalls,wake_calls,wake_none,wait_calls,wait_eagain,herd_bursts,wakes_per_post,resleeps,wake_to_run_n,wake_to_run_p50_ns,wake_to_run_p99_ns"
# prodcons_row VARIANT ROUND NS CSW WAITS WAKES WAKE_NONE P50 PROBED: one prodcons
# T=4 K=4 rep of 1000 ops (ns and CPU ns per op NS, csw CSW in 1000 ops),
# the probe cells filled (counts in 1000 ops) when PROBED is 1, else empty;
# PROBED "old": filled, no probed cell (a file from before the column).
# Written by column name (run_csv); a cell not named is empty.
prodcons_row() {
  local v=$1 r=$2 ns=$3 csw=$4 wt=$5 wk=$6 wn=$7 p50=$8 pr=$9
  local s="variant=$v workload=prodcons threads=4 tokens=4 ns_per_op=$ns.0 note=\"\" hash=auto spin=0"
  s="$s round=$r sems=1 cpu_user_ns=$((ns * 1000)) csw_vol=$csw"
  if [ "$pr" = 0 ]; then echo "$s probed=0"; return; fi
  s="$s futex_syscalls=$((wt + wk)) wake_calls=$wk wake_none=$wn wait_calls=$wt wait_eagain=5"
  s="$s herd_bursts=0 resleeps=100 wake_to_run_n=100 wake_to_run_p50_ns=$p50 wake_to_run_p99_ns=$((p50 * 4))"
  if [ "$pr" = old ]; then echo "$s"; else echo "$s probed=1"; fi
}
# The probed file: rounds 0-7 timed (unprobed), 8-15 probed and ten times
# slower for every entry, negcount thirty. glibc 100+r ns, 0.2 csw, 0.1 waits, 0.05 wakes,
# wake-to-run p50 2us; glibc#2 as glibc +-1; negcount 200+r ns (slower),
# 0.8 csw (4x), 0.31 waits (3.1x); split as glibc#2 (~) with 5x the waits;
# textbook 150+r (slower) with a 4x wake-to-run p50; musl 50+r (faster)
# with 0.5 wakes that woke nobody per op against none; gosema 40+r
# (faster) with 1/20 of the waits.
craft() { # file, MODE: new (probed column), old (no column, every row probed)
  local cols=$BASE,$PROBE,probed
  [ "$2" = old ] && cols=$BASE,$PROBE
  { for r in $(seq 0 15); do
      local k=$((r % 8)) m=1 pr=0
      if [ "$2" = old ]; then pr=old; [ "$r" -ge 8 ] && break
      elif [ "$r" -ge 8 ]; then m=10 pr=1; fi
      local g=$(( (100 + k) * m )) h=$(( (100 + k + k % 2) * m ))
      prodcons_row glibc $r $g 200 100 50 0 2000 $pr
      prodcons_row 'glibc#2' $r $h 200 100 50 0 2000 $pr
      prodcons_row negcount $r $(( (200 + k) * m * (m > 1 ? 3 : 1) )) 800 310 50 0 2000 $pr
      prodcons_row split $r $h 200 500 50 0 2000 $pr
      prodcons_row textbook $r $(( (150 + k) * m )) 200 100 50 0 8000 $pr
      prodcons_row musl $r $(( (50 + k) * m )) 200 100 550 500 2000 $pr
      prodcons_row gosema $r $(( (40 + k) * m )) 200 5 50 0 2000 $pr
    done; } | run_csv "$cols" >"$1"
}
craft "$d/probed.csv" new
succeeds "futexlab compare probed.csv" with_detail compare "$d/probed.csv"
check "the point's header line shows its rounds (the baseline's 8 timed rounds)" \
  grep -q '^prodcons T=4 K=4 wake=exact hash=auto  (8 rounds)$' <<<"$out"
check "the ratio table keeps variant, median ns, ratio, interval, ×/÷res, verdict" \
  grep -qE '^  variant +median ns +ratio +interval, coverage +×/÷res +verdict$' <<<"$out"
check "glibc's median ns from its unprobed rounds only (103.5, not the probed 1000s)" \
  grep -qE '^  glibc +103\.5 +1\.000  baseline \(8 rounds\)$' <<<"$out"
check "negcount's ratio from the unprobed rounds only: 1.9x, slower" \
  grep -qE '^  negcount +203\.5 +1\.9[0-9]{2} .* slower$' <<<"$out"
check "the block's header: per item, the timed rounds, 8 probed rounds, the units" \
  grep -q '^  evidence, per item through the buffer (medians over the timed rounds; kernel counts: over 8 probed rounds)$' <<<"$out"
check "the block's columns" \
  grep -qE '^ +cpu ns +csw +futex +waits +wakes +woke 0 +EAGAIN +wk/post +resleep +herd/1k +w2r p50 +w2r p99$' <<<"$out"
check "glibc's block row: cpu 103.5, csw 0.200 (timed), futex 0.150 waits 0.100 wakes 0.050 (probed)" \
  test "$(field glibc 2) $(field glibc 3) $(field glibc 4) $(field glibc 5) $(field glibc 6)" = "103.5 0.200 0.150 0.100 0.050"
check "the rest of glibc's row: woke 0 0, EAGAIN 0.005, wk/post -, resleeps 0.100, herd 0, w2r 2us 8us" \
  test "$(field glibc 7) $(field glibc 8) $(field glibc 9) $(field glibc 10) $(field glibc 11) $(field glibc 12) $(field glibc 13)" = "0 0.005 - 0.100 0 2us 8us"
check "negcount's block row: csw 0.800, waits 0.310" \
  test "$(field negcount 3) $(field negcount 5)" = "0.800 0.310"
check "no note on how to get the counts when the file has them" absent 'no kernel counts' "$out"
check "why: a factor under 0.095 as a fraction: gosema 1/20 of the futex waits" \
  grep -qE '(why: |; |^       )gosema 1/20 of the futex waits per item through the buffer(;|$)' <<<"$out"
check "why: negcount 4.0x the context switches per item, 3.1x the futex waits" \
  grep -qE '^  why: .*negcount 4\.0x the context switches per item through the buffer, 3\.1x the futex waits(;|$)' <<<"$out"
check "why: textbook's wake-to-run p50 4.0x (a duration)" \
  grep -qE '(why: |; |^       )textbook 4\.0x the wake-to-run p50, 4\.0x the wake-to-run p99(;|$)' <<<"$out"
check "why: musl's wakes that woke nobody against none" \
  grep -qE '(why: |; |^       )musl 0\.500 wakes that woke nobody per item through the buffer against none, 11x the futex wakes(;|$)' <<<"$out"
check "why: split (~, with 5x the waits) and the control are not named" \
  absent '(why: |; |^       )(split|glibc#2) ' "$out"
check "the why line wraps with an indent" grep -q '^       [a-z]' <<<"$out"
check "no line over 130 characters" absent '.{131}' "$out"

# The control moving a count rules it out: glibc#2's wake-to-run 4x
# glibc's, as textbook's is — textbook is no longer named for it (it must
# differ by more than twice the control's |log ratio|), negcount still is
# for its context switches (the control's are glibc's).
awk -F, -v OFS=, "$COLS"'!/^#/ && $col("variant") == "glibc#2" && $col("probed") == 1 {
  $col("wake_to_run_p50_ns") = 8000; $col("wake_to_run_p99_ns") = 32000 } { print }' \
  "$d/probed.csv" >"$d/ctl.csv"
succeeds "futexlab compare ctl.csv" with_detail compare "$d/ctl.csv"
check "why: a count the control moves as much is not named (textbook's wake-to-run)" \
  absent '(why: |; |^       )textbook ' "$out"
check "why: the others stay (negcount 4.0x the context switches)" \
  grep -qE '(why: |; |^       )negcount 4\.0x the context switches' <<<"$out"

# The same file, the probed rounds read as timed (the probed cells dropped):
# the ratio mixes them in and comes out lower — what the check above rules out.
sed 's/,1$/,0/' "$d/probed.csv" >"$d/mixed.csv"
succeeds "futexlab compare mixed.csv" with_detail compare "$d/mixed.csv"
check "(probed rounds counted as timed: negcount's ratio moves off 1.9x)" \
  absent '^  negcount +[0-9.]+ +1\.9[0-9]{2} ' "$out"
check "(and the kernel columns are - with the note)" \
  grep -q '^  (no kernel counts in this file: run with --probe-rounds N, or --probes, as root)$' <<<"$out"

# An older --probes file: no probed column, every row's futex_syscalls
# filled: every row is probed, time and counts from all of them.
craft "$d/old.csv" old
succeeds "futexlab compare old.csv" with_detail compare "$d/old.csv"
check "old --probes file: the counts from all 8 rows" \
  grep -q 'kernel counts: over 8 probed rounds' <<<"$out"
check "old --probes file: negcount waits 0.310" test "$(field negcount 5)" = 0.310
check "old --probes file: glibc's ratio row from the same rows" \
  grep -qE '^  glibc +103\.5 +1\.000  baseline \(8 rounds\)$' <<<"$out"

# No probe columns at all: the kernel columns -, one note.
awk -F, -v OFS=, -v base="$BASE" "$COLS"'/^#/ { print; next } { NF = split(base, b, ",") }
  $col("round") == "round" || $col("round") < 8' "$d/probed.csv" >"$d/plain.csv"
succeeds "futexlab compare plain.csv" with_detail compare "$d/plain.csv"
check "no probe columns: csw still there, the kernel columns -" \
  test "$(field glibc 3) $(field glibc 5) $(field glibc 13)" = "0.200 - -"
check "no probe columns: the note says how to get them" \
  grep -q '^  (no kernel counts in this file: run with --probe-rounds N, or --probes, as root)$' <<<"$out"
# (CPU per op is named only for a design no count sets apart: negcount's
# context switches differ, its 2x CPU is not named; musl's and gosema's
# counts are unknown here, their CPU is: model/evidence.h)
check "no probe columns: the why line names negcount's context switches, not its CPU" \
  grep -qE '^  why: negcount 4\.0x the context switches per item through the buffer; musl ' <<<"$out"
check "no probe columns: CPU for the designs no count sets apart (musl 0.5x, gosema 0.4x)" \
  bash -c 'grep -qE "; musl 0\.5x the CPU per item through the buffer;$" <<<"$1" &&
           grep -qE "^       gosema 0\.4x the CPU per item through the buffer$" <<<"$1"' _ "$out"

# Two counts from none: the larger per op first, whatever the column order
# (model/evidence.h). glibc and its control without EAGAINs, musl with
# 0.9 per op beside its 0.5 wakes that woke nobody (the earlier column).
awk -F, -v OFS=, "$COLS"'!/^#/ && $col("probed") == 1 && $col("variant") ~ /^glibc(#2)?$/ { $col("wait_eagain") = 0 }
  !/^#/ && $col("probed") == 1 && $col("variant") == "musl" { $col("wait_eagain") = 900 } { print }' \
  "$d/probed.csv" >"$d/tie.csv"
succeeds "futexlab compare tie.csv" with_detail compare "$d/tie.csv"
check "why: of two counts from none the larger first (musl 0.9 EAGAINs before 0.5 woke 0)" \
  grep -qE '(why: |; |^       )musl 0\.900 EAGAINs per item through the buffer against none, 0\.500 wakes that woke nobody against none(;|$)' <<<"$out"

# A count under FL_WHY_MIN (0.01 per op) is as good as none: glibc with
# one EAGAIN in 1000 ops, its control none, musl 0.9 per op — still named
# before the 0.5 wakes that woke nobody (from none). Before, the control's
# 0 against glibc's 0.001 read as a spread without bound, which hid the
# EAGAINs altogether (seen: perf_resleep at barrier, its 5.9 resleeps per
# phase against negcount's 0.001 unnamed, herd bursts named instead).
awk -F, -v OFS=, "$COLS"'!/^#/ && $col("probed") == 1 && $col("variant") == "glibc" { $col("wait_eagain") = 1 }
  !/^#/ && $col("probed") == 1 && $col("variant") == "glibc#2" { $col("wait_eagain") = 0 }
  !/^#/ && $col("probed") == 1 && $col("variant") == "musl" { $col("wait_eagain") = 900 } { print }' \
  "$d/probed.csv" >"$d/stray.csv"
succeeds "futexlab compare stray.csv" with_detail compare "$d/stray.csv"
check "why: a count under 0.01 per op is as good as none (musl 900x the EAGAINs first, not hidden by the control)" \
  grep -qE '(why: |; |^       )musl 900x the EAGAINs per item through the buffer, 0\.500 wakes that woke nobody against none(;|$)' <<<"$out"

# TSV: the count medians after the 32 columns before.
succeeds "futexlab compare --tsv probed.csv" with_detail compare --tsv "$d/probed.csv"
check "TSV: the probed counts as the last columns" \
  test "$(head -1 <<<"$out" | cut -f33-)" = "$(printf 'probed_rounds\tfutex_op\twaits_op\twakes_op\twake_none_op\teagain_op\twakes_per_post\tresleeps_op\therd_op\twake_to_run_p50_ns\twake_to_run_p99_ns\txnode_op')"
check "TSV: negcount's: 8 probed rounds, waits 0.31, csw 0.8, verdict slower, wake-to-run 2000" \
  test "$(awk -F'\t' "$COLS"'$col("variant") == "negcount" { f = $col("probed_rounds") "|" $col("waits_op") "|" $col("csw_op")
    print f "|" $col("verdict") "|" $col("wake_to_run_p50_ns") }' <<<"$out")" = "8|0.31|0.8|slower|2000"
check "TSV: every line has 44 fields" test "$(awk -F'\t' 'NF != 44' <<<"$out" | wc -l)" -eq 0

# compare A B: negcount's futex waits doubled in its probed rounds, its
# time and CPU in its timed ones, its context switches 1.6x (less).
awk -F, -v OFS=, "$COLS"'!/^#/ && $col("variant") == "negcount" && $col("round") < 8 {
    $col("ns_per_op") = ($col("ns_per_op") * 2) ".0"; $col("cpu_user_ns") *= 2; $col("csw_vol") = 1280 }
  !/^#/ && $col("variant") == "negcount" && $col("round") >= 8 { $col("wait_calls") = 620 } { print }' \
  "$d/probed.csv" >"$d/after.csv"
succeeds "futexlab compare probed.csv after.csv" with_detail compare "$d/probed.csv" "$d/after.csv"
check "compare: the pair that changed names its count that changed most" \
  grep -qE '^prodcons T=4 K=4 wake=exact hash=auto +negcount .*SLOWER  \(waits/op 0\.310 -> 0\.620\)$' <<<"$out"
succeeds "futexlab compare plain.csv after.csv" with_detail compare "$d/plain.csv" "$d/after.csv"
check "compare: no count (not even csw) where a file has no probed rounds" \
  grep -qE '^prodcons T=4 K=4 wake=exact hash=auto +negcount .*SLOWER$' <<<"$out"

# The node column, x-node wk/op (cross_node_wakes per op), only where the
# file's machine has more than one NUMA node (its `# numa: N nodes` line):
# the probed file plus a cross_node_wakes column (after probed: columns are
# found by name), 300 in 1000 ops for every entry but negcount's 20.
xnode() { # file, metadata line ("": none)
  awk -F, -v meta="$2" "$COLS"'/^#/ { print; next }
    !h { h = 1; if (meta != "") print meta; print $0 ",cross_node_wakes"; next }
    { print $0 "," ($col("probed") != 1 ? "" : $col("variant") == "negcount" ? 20 : 300) }' "$d/probed.csv" >"$1"
}
xnode "$d/numa2.csv" "# numa: 2 nodes (test)"
succeeds "futexlab compare numa2.csv" with_detail compare "$d/numa2.csv"
check "numa: 2 nodes: the block shows x-node wk/op after w2r p99" \
  grep -qE '^ +cpu ns +csw +futex +waits +wakes +woke 0 +EAGAIN +wk/post +resleep +herd/1k +w2r p50 +w2r p99 +x-node wk/op$' <<<"$out"
check "numa: 2 nodes: glibc 0.300, negcount 0.020 cross-node wakes per op" \
  test "$(field glibc 14) $(field negcount 14)" = "0.300 0.020"
check "numa: no why names cross-node wakes (a column, not a why)" absent 'cross-node' "$out"
for m in "# numa: 1 nodes (test)" ""; do
  xnode "$d/numa1.csv" "$m"
  succeeds "futexlab compare numa1.csv" with_detail compare "$d/numa1.csv"
  check "numa: ${m:-no numa line}: no x-node column (not a 0)" absent 'x-node' "$out"
  check "numa: ${m:-no numa line}: the block's columns end at w2r p99" \
    grep -qE '^ +cpu ns +csw .* +w2r p50 +w2r p99$' <<<"$out"
  check "numa: ${m:-no numa line}: glibc's row ends at its w2r p99" test "$(field glibc 14)" = ""
done

finish evidence
