#!/usr/bin/env bash
# results/hunt/run.sh — the lost-wakeup hunt (`futexlab hunt`,
# hunt/README.md): the real libraries (musl-libc in its static helper,
# cxx-gnu, cxx-llvm, cxx-llvm15 and cxx-llvm16 in theirs, and glibc's sem_t,
# `glibc`) long, every futexlab design
# as the control, and the hunt's own control — a mutant that drops a wake,
# which it must find, beside its unmutated copy — into results/hunt/*.{csv,txt}.
# Run on an idle machine, from a build with musl-gcc and libc++ (scripts/setup):
#   results/hunt/run.sh [SECONDS]   per design and pattern for the real
#                                   libraries (default 120: 6 x 4 x 120 s =
#                                   48 min); the control designs get a quarter
#                                   (10 x 4 x 30 s = 20 min), the mutants 5 s.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
s=${1:-120}
fl=build/harness/futexlab
out=results/hunt
[ -x "$fl" ] && [ -x build/tests/hunt_mutants ] || { echo "build first: ninja -C build" >&2; exit 2; }
hunt() { # NAME COMMAND...
	local name=$1
	shift
	echo "== $name: $*"
	{ echo "\$ $* --csv $out/$name.csv"
	  "$@" --quiet --csv "$out/$name.csv"; } > "$out/$name.txt" 2>&1 \
		|| echo "  (exit $?: see $out/$name.txt)"
	grep -E "^[a-z0-9_-]+: (clean|LOST|BROKEN|not run)" "$out/$name.txt" || true
}
hunt real "$fl" hunt --variant musl-libc,cxx-gnu,cxx-llvm,cxx-llvm15,cxx-llvm16,glibc --seconds "$s"
control=$("$fl" list | awk 'NR > 1 && $2 == "available" && $1 !~ /^(glibc|musl-libc|cxx-gnu|cxx-llvm[0-9]*)$/ { printf "%s%s", sep, $1; sep = "," }')
hunt control "$fl" hunt --variant "$control" --seconds $((s / 4 > 0 ? s / 4 : 1))
# hunt_mutants is `futexlab hunt` over tests/mutants' designs (tests/hunt_mutants.c)
# (their text, for preempt: the mutants declare none)
hunt mutant build/tests/hunt_mutants --variant mut_neg_wake_one,ctl_negcount --seconds 5 \
	--text "src:mut_neg_wake_one.c,ctl_negcount.c;dsym:libc.so.6:syscall"
