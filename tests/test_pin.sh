#!/usr/bin/env bash
# tests/test_pin.sh — the machine's NUMA topology in the CSV (`# numa:`),
# `--pin` (a CPU list, node:N, spread) seen in the `# pin:` line and in a
# child's /proc/self/status, the `# cores:` line of a process given fewer
# CPUs (taskset) before its pin, bad values one line and exit 2, and the
# presets' thread axis scaled to the CPUs (FUTEXLAB_CPUS): unchanged at 2.
# Usage: test_pin.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch d pin
tiny=(--variant negcount --workload uncontended --ops 200 --rounds 1 --warmup 0 --no-floors
      --no-control --no-probes --quiet)
sys=/sys/devices/system/node
# the machine as sysfs says (a kernel without NUMA: one node, the CPUs online)
if [ -r $sys/online ]; then
  nodes=$(python3 -c 'import sys
n = 0
for r in open(sys.argv[1]).read().strip().split(","):
    a, _, b = r.partition("-"); n += int(b or a) - int(a) + 1
print(n)' $sys/online)
  node0=$(cat $sys/node0/cpulist) next=$(( $(tr ',-' '\n\n' <$sys/online | sort -n | tail -1) + 1 ))
else nodes=1 node0=$(cat /sys/devices/system/cpu/online) next=1; fi
online=$(cat /sys/devices/system/cpu/online)

# the # numa: line: N first, node0's CPUs as sysfs lists them
"$fl" run "${tiny[@]}" --csv "$d/r.csv" >/dev/null
check "numa line: '$(grep '^# numa:' "$d/r.csv")' ($nodes online, node0 $node0)" \
  grep -qE "^# numa: $nodes nodes? \((node0: cpus $node0[;)]|no NUMA in sysfs: cpus $node0\))" "$d/r.csv"
check "numa line: one, after # cores:" test "$(grep -A1 '^# cores:' "$d/r.csv" | grep -c '^# numa: ')" = 1
check "pin line without --pin: none" grep -qx '# pin: none' "$d/r.csv"

# what a child of exec is allowed to run on: started on CPU 0 alone (taskset),
# so a pin that widens the set is seen widening it. The entry is glibc (the
# baseline alone): it runs the program without the LD_PRELOAD shim, which a
# sanitizer build cannot preload into an uninstrumented program.
allowed() { # exec --pin ARG: the child's Cpus_allowed_list, and the CSV's pin line in $d/e.csv
  rm -f "$d/aff" "$d/e.csv"
  taskset -c 0 "$fl" exec --variant glibc --rounds 1 --warmup 0 --no-control --no-probes --quiet \
    --pin "$1" --csv "$d/e.csv" -- /bin/sh -c "grep Cpus_allowed_list /proc/self/status >>'$d/aff'" \
    >/dev/null 2>&1 && sort -u "$d/aff" | sed 's/^Cpus_allowed_list:[[:space:]]*//'
}
if ! command -v taskset >/dev/null; then skip "exec --pin checks" "no taskset"; else
  a=$(allowed node:0)
  check "--pin node:0: exec's child runs on node0's CPUs ($a = $node0)" test "$a" = "$node0"
  check "  the pin line names them" grep -qx "# pin: node:0 (cpus $node0)" "$d/e.csv"
  a=$(allowed spread)
  check "--pin spread: exec's child runs on every node's CPUs ($a = $online)" test "$a" = "$online"
  check "  the pin line: spread, $nodes node(s), the CPUs" \
    grep -qE "^# pin: spread \($nodes nodes?, cpus $online: " "$d/e.csv"
  last=${online##*[-,]}
  a=$(allowed "$last")
  check "--pin $last (a CPU list): exec's child on CPU $last alone ($a)" test "$a" = "$last"
  check "  the pin line as given" grep -qx "# pin: $last" "$d/e.csv"
  # the # cores: line: the CPUs the process was given (taskset -c 0), read
  # before --pin moved it to CPU $last; the CPUs online where it was given all
  n=$(getconf _NPROCESSORS_ONLN)
  if [ "$n" -ge 2 ]; then
    check "cores line under taskset -c 0, --pin $last: '$(grep '^# cores:' "$d/e.csv")'" \
      grep -qx "# cores: 1 (cpus 0 of $n online)" "$d/e.csv"
  else skip "cores line under taskset" "one CPU online"; fi
  [ "$(nproc)" = "$n" ] && check "cores line given every CPU: '$(grep '^# cores:' "$d/r.csv")'" \
    grep -qx "# cores: $n" "$d/r.csv"
fi
"$fl" run "${tiny[@]}" --pin node:0 --csv "$d/n.csv" >/dev/null
check "run --pin node:0 runs; its pin line" grep -qx "# pin: node:0 (cpus $node0)" "$d/n.csv"
"$fl" sweep "${tiny[@]}" --pin spread --csv "$d/s.csv" >/dev/null
check "sweep --pin spread runs; its pin line" grep -qE "^# pin: spread \($nodes node" "$d/s.csv"
"$fl" run "${tiny[@]}" --pin "0-${online##*[-,]}" --csv "$d/l.csv" >/dev/null
check "run --pin 0-N (a range) runs" grep -qx "# pin: 0-${online##*[-,]}" "$d/l.csv"

refused -E "--pin node:$next (no such node here)" "no node $next with CPUs online here \(numa: $nodes node" \
  "$fl" run --pin node:$next --dry-run
refused -E "--pin node:7 on this machine" "no node 7|" "$fl" run --pin node:7 --dry-run
refused -E "--pin node:x" "node:N takes a node number" "$fl" run --pin node:x --dry-run
refused -E "--pin node: (no number)" "node:N takes a node number" "$fl" sweep --pin node: --dry-run
refused -E "--pin node:-1" "node:N takes a node number" "$fl" run --pin node:-1 --dry-run
refused -E "--pin spreadx" "not a CPU list" "$fl" run --pin spreadx --dry-run
refused -E "--pin 0-1x" "not a CPU list" "$fl" run --pin 0-1x --dry-run
refused -E "--pin 1-0" "not a CPU list" "$fl" run --pin 1-0 --dry-run
refused -E "exec --pin node:x" "node:N takes a node number" "$fl" exec --pin node:x -- /bin/true

# the presets' thread axis, scaled to the CPUs: FUTEXLAB_CPUS stands in for them
# pts PRESET: its points' workload, threads and wake mode, by workload and threads
pts() { "$fl" sweep --preset "$1" --dry-run | awk '$3 ~ /^T=/ {print $2, substr($3, 3), $6}' |
        sort -u | sort -k1,1 -k2,2n -k3,3 | awk '{printf "%s T=%s %s;", $1, $2, $3}'; }
quick2='barrier T=4 wake=all;barrier T=4 wake=exact;oversub T=32 wake=exact;pingpong T=2 wake=exact;pool T=2 wake=exact;pool T=4 wake=exact;pool T=8 wake=exact;prodcons T=4 wake=exact;timeouts T=4 wake=exact;uncontended T=1 wake=exact;'
check "quick at 2 CPUs: its ten points, as before" test "$(FUTEXLAB_CPUS=2 pts quick)" = "$quick2"
check "standard at 2 CPUs: quick's points" test "$(FUTEXLAB_CPUS=2 pts standard)" = "$quick2"
check "full at 2 CPUs: the same points as at 1 (nothing added)" \
  test "$(FUTEXLAB_CPUS=2 pts full)" = "$(FUTEXLAB_CPUS=1 pts full)"
check "quick at 2 CPUs: the dry-run's every line the same as at 1" \
  test "$(FUTEXLAB_CPUS=2 "$fl" sweep --preset quick --dry-run)" = "$(FUTEXLAB_CPUS=1 "$fl" sweep --preset quick --dry-run)"
q128=$(FUTEXLAB_CPUS=128 pts quick)
want=''
for w in barrier:4,64,128,256:all,exact oversub:32,64,128,256:exact pingpong:2:exact \
         pool:2,4,8,64,128,256:exact prodcons:4,64,128,256:exact timeouts:4,64,128,256:exact \
         uncontended:1:exact; do
  IFS=: read -r name ts wakes <<<"$w"
  for t in ${ts//,/ }; do for k in ${wakes//,/ }; do want+="$name T=$t wake=$k;"; done; done
done
check "quick at 128 CPUs: T = 64, 128, 256 added to every contended workload" test "$q128" = "$want"
[ "$q128" = "$want" ] || printf '  got  %s\n  want %s\n' "$q128" "$want"
check "quick at 128 CPUs: 28 points" \
  grep -q '^28 points' <<<"$(FUTEXLAB_CPUS=128 "$fl" sweep --preset quick --dry-run | tail -1)"
f16=$(FUTEXLAB_CPUS=16 pts full | tr ';' '\n' | awk '{print $1, $2}' | uniq | tr '\n' ' ')
check "full at 16 CPUs: 8, 16, 32 where above a list's largest ($f16)" test "$f16" = \
  "barrier T=2 barrier T=4 barrier T=8 barrier T=16 barrier T=32 oversub T=16 oversub T=64 pingpong T=2 pool T=1 pool T=2 pool T=4 pool T=8 pool T=16 pool T=32 prodcons T=2 prodcons T=4 prodcons T=8 prodcons T=16 prodcons T=32 timeouts T=2 timeouts T=8 timeouts T=32 uncontended T=1 "
check "--threads given: not scaled" test "$(FUTEXLAB_CPUS=128 "$fl" sweep --variants negcount \
  --workloads pool --threads 2 --no-floors --no-control --dry-run | grep -c '^negcount ')" = 1
refused -E "FUTEXLAB_CPUS=x" "FUTEXLAB_CPUS: not a CPU count" \
  env FUTEXLAB_CPUS=x "$fl" sweep --preset quick --dry-run
refused -E "FUTEXLAB_CPUS=0" "FUTEXLAB_CPUS: not a CPU count" \
  env FUTEXLAB_CPUS=0 "$fl" sweep --preset quick --dry-run
FUTEXLAB_CPUS=128 "$fl" run "${tiny[@]}" --csv "$d/c.csv" >/dev/null
check "FUTEXLAB_CPUS recorded in the CSV (# cpus:)" grep -q '^# cpus: FUTEXLAB_CPUS=128 ' "$d/c.csv"
check "  and only when set" test "$(grep -c '^# cpus:' "$d/r.csv")" = 0

finish pin
