#!/usr/bin/env bash
# probes/overhead.sh — what the in-harness collector costs: the same run
# with --no-probes and --probes, alternated ROUNDS times (so machine noise
# hits both alike), then per variant and workload the median ns/op over all
# reps of each mode and their ratio.
#
#   probes/overhead.sh [ROUNDS] -- futexlab-run-options...
#   probes/overhead.sh 4 -- --variant negcount,glibc --workload pool --threads 8 --tokens 2 --rounds 5
#
# Uses build/harness/futexlab; writes its CSVs to a temporary directory.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fl=$top/build/harness/futexlab
rounds=${1:-4}; shift || true
[ "${1:-}" = "--" ] && shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
  "$fl" run "$@" --no-probes --quiet --csv "$tmp/off.$r.csv" >/dev/null
  "$fl" run "$@" --probes --quiet --csv "$tmp/on.$r.csv" >/dev/null
done
# mode variant workload ns_per_op, one line per ok rep
for m in off on; do
  awk -F, -v m=$m '/^#/ {next} !h {for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next}
       $(ix["status"]) == "ok" {print m, $1, $2, $(ix["ns_per_op"])}' "$tmp"/$m.*.csv
done > "$tmp/all"
awk '{k = $2 " " $3; v[$1, k, ++n[$1, k]] = $4; keys[k] = 1}
     function med(m, k,   c, i, j, t, a) {
       c = n[m, k]; for (i = 1; i <= c; i++) a[i] = v[m, k, i]
       for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
       return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2 }
     END {
       for (k in keys) { split(k, p, " "); off = med("off", k); on = med("on", k)
         printf "%-14s %-12s %6d %12.1f %12.1f %7.2fx\n", p[1], p[2], n["off", k], off, on, on / off } }' \
  "$tmp/all" | sort -k2,2 -k1,1 |
  { printf "%-14s %-12s %6s %12s %12s %8s\n" variant workload reps no-probes probes ratio; cat; }
