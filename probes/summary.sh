#!/usr/bin/env bash
# probes/summary.sh — the probe columns of futexlab CSVs, one line per
# (variant, workload, wake strategy, threads/tokens/hold/think[/sN: --sems N]): medians over the reps, herd bursts
# and EAGAIN storms also as totals.
#
#   probes/summary.sh results/herd-all.csv results/herd-exact.csv
set -euo pipefail
awk -F, '
  /^#/ { next }
  $1 == "variant" { delete ix; for (i = 1; i <= NF; i++) ix[$i] = i; next }
  $(ix["status"]) != "ok" || $(ix["futex_syscalls"]) == "" { next }
  {
    k = $1 " " $2 " " $(ix["wake"]) " " $(ix["threads"]) "/" $(ix["tokens"]) "/" $(ix["hold_ns"]) "/" $(ix["think_ns"])
    if (("sems" in ix) && $(ix["sems"]) > 1) k = k "/s" $(ix["sems"])  # --sems N: .../sN
    keys[k] = 1; c = ++n[k]
    split("ns_per_op futex_per_op wakes_per_post woken wake_calls wake_none wait_eagain herd_bursts eagain_storms wait_p50_ns wait_p99_ns", cols, " ")
    for (j in cols) v[k, cols[j], c] = $(ix[cols[j]])
    herd[k] += $(ix["herd_bursts"]); storms[k] += $(ix["eagain_storms"])
  }
  function med(k, col,   c, i, j, t, a) {
    c = n[k]; for (i = 1; i <= c; i++) a[i] = v[k, col, i] + 0
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
  }
  END {
    printf "%-10s %-9s %-5s %-16s %4s %9s %8s %8s %8s %8s %8s %6s %6s %9s %9s\n", "variant", "workload",
      "wake", "T/K/hold/think", "reps", "ns/op", "futex/op", "wake/pst", "woken/wk", "useless", "eagain", "herd",
      "storms", "wait_p50", "wait_p99"
    for (k in keys) {
      split(k, p, " "); wk = med(k, "wake_calls")
      printf "%-10s %-9s %-5s %-16s %4d %9.1f %8.3f %8.3f %8.3f %7.1f%% %8d %6d %6d %9d %9d\n", p[1], p[2], p[3], p[4],
        n[k], med(k, "ns_per_op"), med(k, "futex_per_op"), med(k, "wakes_per_post"),
        wk ? med(k, "woken") / wk : 0, wk ? 100 * med(k, "wake_none") / wk : 0,
        med(k, "wait_eagain"), herd[k], storms[k], med(k, "wait_p50_ns"), med(k, "wait_p99_ns")
    }
  }' "$@" | { read -r h; echo "$h"; sort; }
