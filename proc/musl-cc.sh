#!/bin/sh
# proc/musl-cc.sh DEPFILE OUTPUT CC [FLAGS...] -- SOURCES... — builds the
# helper (futexlab-musl) from its sources with musl-gcc and writes the
# headers it read into DEPFILE, for ninja (proc/meson.build: the custom
# target's depfile). Each source is compiled on its own with -MD (gcc writes
# one dependency file per compilation, and with several sources in one
# command only the last survives), then all are linked; the dependency
# files become one rule, OUTPUT: every source and header read. So no list
# of headers is kept by hand: editing any header the helper compiles
# rebuilds it.
set -eu
depfile=$1 output=$2
shift 2
cc=$1
shift
flags=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	flags="$flags '$(printf %s "$1" | sed "s/'/'\\\\''/g")'"
	shift
done
[ $# -gt 0 ] || { echo "musl-cc.sh: no -- before the sources" >&2; exit 2; }
shift
tmp=$(mktemp -d "${output}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
objs= i=0
for src in "$@"; do
	i=$((i + 1))
	eval "\"\$cc\" $flags -c -MD -MF \"\$tmp/$i.d\" -MT \"\$output\" -o \"\$tmp/$i.o\" \"\$src\""
	objs="$objs $tmp/$i.o"
done
# shellcheck disable=SC2086 # objs: our own paths, no spaces (mktemp beside OUTPUT)
eval "\"\$cc\" $flags $objs -o \"\$output.tmp\" -lm"
mv "$output.tmp" "$output"
# one rule: strip each file's "OUTPUT:" and line continuations, one name a line
cat "$tmp"/*.d | sed -e 's/\\$//' -e "s|^[^ ]*: *||" | tr ' ' '\n' | sed '/^$/d' |
	sort -u | { printf '%s:' "$output"; while read -r f; do printf ' \\\n  %s' "$f"; done; echo; } \
	> "$depfile"
