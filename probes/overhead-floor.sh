#!/usr/bin/env bash
# probes/overhead-floor.sh — what the collector adds to one futex syscall,
# as a multiple of the trivial-tracepoint floor (probes/floor.bt: a pid test
# and a count on the futex(2) enter and exit tracepoints), in ONE interleaved
# run: every round runs the same futexlab command in four modes, in an order
# that rotates from round to round:
#   off    --no-probes
#   floor  --no-probes --bpftrace probes/floor.bt
#   coll   --probes (the collector as the harness uses it, wake-to-run on)
#   off2   --no-probes again: the A/A pair, the noise floor of the method
# Per round and (variant, workload), with off = the mean of off and off2 and
# S = futex syscalls per op (the collector's futex_per_op in that round):
#   floor_ns = (floor - off) / S    coll_ns = (coll - off) / S
#   ratio = coll_ns / floor_ns      aa_ns = (off2 - off) / S
# (each mode's ns/op is the median of its reps). Printed: the median over
# rounds and the range, for rows with S >= 0.5 (the syscall-heavy ones;
# floor-futex in the default command makes exactly one FUTEX_WAKE per op).
#
#   probes/overhead-floor.sh [ROUNDS] [-- futexlab-run-options...]
#   probes/overhead-floor.sh 6
#   probes/overhead-floor.sh 6 -- --variant negcount --workload pingpong --rounds 3 --no-control
#
# Default options: --variant negcount --workload uncontended --rounds 3
# --no-control (the floor-futex row is the measure). Root needed (else all
# modes are the same). Uses build/harness/futexlab.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fl=$top/build/harness/futexlab
rounds=${1:-6}; shift || true
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || set -- --variant negcount --workload uncontended --rounds 3 --no-control
[ "$(id -u)" = 0 ] || { echo "overhead-floor.sh: needs root (probes and bpftrace)" >&2; exit 2; }
tmp=$(mktemp -d); trap '[ -n "${FL_KEEP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"' EXIT
modes=(off floor coll off2)
for r in $(seq 1 "$rounds"); do
  for i in 0 1 2 3; do
    m=${modes[$(( (i + r) % 4 ))]}
    case $m in
      off|off2) extra=(--no-probes) ;;
      floor) extra=(--no-probes --bpftrace "$top/probes/floor.bt") ;;
      coll) extra=(--probes) ;;
    esac
    "$fl" run "$@" "${extra[@]}" --quiet --csv "$tmp/$m.$r.csv" >/dev/null 2>"$tmp/$m.$r.err" ||
      { echo "overhead-floor.sh: futexlab failed in mode $m:" >&2; cat "$tmp/$m.$r.err" >&2; exit 1; }
    if [ "$m" = floor ] && ! grep -q '^@calls' "$tmp/floor.$r.floor.txt" 2>/dev/null; then
      echo "overhead-floor.sh: the floor's bpftrace did not run:" >&2
      cat "$tmp/$m.$r.err" "$tmp/floor.$r.floor.txt" >&2 2>/dev/null; exit 1
    fi
  done
done
# round mode variant workload ns_per_op futex_per_op, one line per ok rep
for f in "$tmp"/*.csv; do
  b=${f##*/}; m=${b%%.*}; r=${b#*.}; r=${r%.csv}
  awk -F, -v m="$m" -v r="$r" '/^#/ {next} !h {for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next}
       $(ix["status"]) == "ok" {print r, m, $1, $2, $(ix["ns_per_op"]), $(ix["futex_per_op"])}' "$f"
done > "$tmp/all"
awk -v rounds="$rounds" '
  function med(a, c,   i, j, t) {
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2 }
  { k = $3 " " $4; keys[k] = 1; c = ++n[$1, $2, k]; v[$1, $2, k, c] = $5
    if ($2 == "coll" && $6 != "") { s[$1, k] += $6; ns[$1, k]++ } }
  function mode(r, m, k,   c, a, i) { c = n[r, m, k]; for (i = 1; i <= c; i++) a[i] = v[r, m, k, i]; return c ? med(a, c) : "" }
  function stat(name, x, c,   a, i, lo, hi) {
    lo = hi = x[1]; for (i = 1; i <= c; i++) { a[i] = x[i]; if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
    return sprintf("%s %.1f [%.1f..%.1f]", name, med(a, c), lo, hi) }
  function stat2(name, x, c,   a, i, lo, hi) {
    lo = hi = x[1]; for (i = 1; i <= c; i++) { a[i] = x[i]; if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
    return sprintf("%s %.2f [%.2f..%.2f]", name, med(a, c), lo, hi) }
  END {
    printf "%-12s %-12s %4s %6s  %-28s %-28s %-24s %s\n", "variant", "workload", "rnds", "sys/op",
      "floor ns/syscall [range]", "collector ns/syscall", "ratio [range]", "A/A ns/syscall [range]"
    for (k in keys) {
      c = 0; delete F; delete C; delete R; delete A; spo = 0
      for (r = 1; r <= rounds; r++) {
        o1 = mode(r, "off", k); o2 = mode(r, "off2", k); fl = mode(r, "floor", k); co = mode(r, "coll", k)
        if (o1 == "" || o2 == "" || fl == "" || co == "" || !ns[r, k]) continue
        S = s[r, k] / ns[r, k]; if (S < 0.5) continue
        off = (o1 + o2) / 2; c++
        F[c] = (fl - off) / S; C[c] = (co - off) / S; R[c] = F[c] > 0 ? C[c] / F[c] : 0; A[c] = (o2 - o1) / S; spo += S
      }
      if (!c) continue
      split(k, p, " ")
      line[k] = sprintf("%-12s %-12s %4d %6.3f  %-28s %-28s %-24s %s", p[1], p[2], c, spo / c,
        stat("", F, c), stat("", C, c), stat2("", R, c), stat("", A, c))
      for (i = 1; i <= c; i++) rr[i] = R[i]
      ratio[k] = med(rr, c); nr[k] = c
    }
    for (k in line) print line[k]
    for (k in line) { split(k, p, " ")
      printf "%s %s: collector = %.2fx the trivial-tracepoint floor (median of %d interleaved rounds)\n",
        p[1], p[2], ratio[k], nr[k] }
  }' "$tmp/all"
