#!/usr/bin/env bash
# results/reference/aa/ab/run.sh — the runner's two orders, A/B, on one
# machine in one session: point by point (each point's rounds in one
# stretch, as at c5879cc) against interleaved (every round visits every
# point, since 63658b2), two quick sweeps of each, alternating
# old, new, old, new; then each order's two sweeps compared (the A/A of that
# order) and its control line. Run from the repository's root; the old
# revision is built in a throw-away worktree.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=results/reference/aa/ab
old=${OLD:-c5879cc}
wt=$(mktemp -d)
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
git worktree add -q --detach "$wt" "$old"
(cd "$wt" && meson setup build >/dev/null && ninja -C build harness/futexlab harness/futexlab-musl >/dev/null)
ninja -C build >/dev/null
for i in 1 2; do
  "$wt/build/harness/futexlab" sweep --preset quick --no-probes --quiet --csv "$out/old$i.csv" >"$out/old$i.txt"
  build/harness/futexlab sweep --preset quick --no-probes --quiet --csv "$out/new$i.csv" >"$out/new$i.txt"
done
for o in old new; do
  build/harness/futexlab compare "$out/${o}1.csv" "$out/${o}2.csv" >"$out/compare-$o.txt" || true
  echo "$o: $(tail -1 "$out/compare-$o.txt")"
  grep -h '^control' "$out/${o}1.txt" "$out/${o}2.txt"
done
