#!/usr/bin/env bash
# proc/musl-cc.sh DEPFILE OUTPUT CC [FLAGS...] -- SOURCES... — builds a
# program (the helper futexlab-musl; tests/' musl conformance suite) from
# its sources with musl-gcc and writes the headers it read into DEPFILE,
# for ninja (the custom target's depfile: proc/meson.build). Each source is
# compiled on its own with -MD (with several sources in one command gcc
# keeps only the last one's dependency file), then all are linked; their
# dependency files become one rule, OUTPUT: every source and header read.
# So no list of headers is kept by hand: editing any header the program
# compiles rebuilds it.
set -euo pipefail
depfile=$1 output=$2 cc=$3
shift 3
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	flags+=("$1")
	shift
done
[ $# -gt 0 ] || { echo "musl-cc.sh: no -- before the sources" >&2; exit 2; }
shift
tmp=$(mktemp -d "$output.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
objs=()
i=0
for src in "$@"; do
	i=$((i + 1))
	"$cc" "${flags[@]}" -c -MD -MF "$tmp/$i.d" -MT "$output" -o "$tmp/$i.o" "$src"
	objs+=("$tmp/$i.o")
done
"$cc" "${flags[@]}" "${objs[@]}" -o "$output.tmp" -lm
mv "$output.tmp" "$output"
# one rule: each file's "OUTPUT:" and line continuations stripped, one name
# a line, each once
cat "$tmp"/*.d | sed -e 's/\\$//' -e 's|^[^ ]*: *||' | tr ' ' '\n' | sed '/^$/d' | sort -u |
	{ printf '%s:' "$output"; while read -r f; do printf ' \\\n  %s' "$f"; done; echo; } \
	>"$depfile"
