#!/usr/bin/env bash
# results/peers/run.sh — the fidelity figures, into results/peers/:
#   glibc64-vs-posix.txt     futexlab's re-implementation of glibc's sem_t
#                            against glibc's own (the test `fidelity` runs the
#                            same comparison and fails when they differ)
#   musl-vs-musl-libc.txt    the musl thread's redesign (`musl`) beside the shipped
#                            musl 1.2.3 (`musl-libc`): where the kernel tells
#                            the two designs apart
# each with the CSVs of its three points in a directory of the same name.
# Root (the eBPF collector); ~1.5 min. scripts/fidelity --help: the rule.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=results/peers
ninja -C build >/dev/null
for pair in "glibc64 posix" "musl musl-libc"; do
	set -- $pair
	name=$1-vs-$2
	rm -rf "${out:?}/$name"
	{ echo "\$ scripts/fidelity --csv-dir $out/$name $1 $2    # at $(git describe --always --dirty)"
	  scripts/fidelity --csv-dir "$out/$name" "$1" "$2" || true; } > "$out/$name.txt" 2>&1
	tail -1 "$out/$name.txt"
done
