#!/usr/bin/env bash
# tests/test_libs.sh — library versions as rows, end to end through futexlab:
# - cxx-llvm15 and cxx-llvm16 (libc++ 15 and 16, each in its own helper,
#   futexlab-libcxxN): ok rows at three workloads beside the in-process
#   cxx-llvm (libc++ 14), every field a workload fills back from the helper;
#   the `# helper` line lists the shared objects the helper mapped — that
#   version's libc++.so.1, libc++abi.so.1 and libunwind.so.1, no other
#   libc++ — and `# libraries:` names each version; the report reads each
#   as a library; the hunt runs them in their helpers, clean;
# - --lib: a library the user built as a row, run by futexlab-native on that
#   library — libc++ 15's directory given as a cxx-llvm build (its
#   libc++.so.1 mapped, not 14's), a copy of this machine's libc.so.6 and
#   loader given as a glibc install and as a glibc build directory
#   (elf/ld.so: the helper runs under that loader, the copy's libc.so.6
#   mapped; hunted, clean), a copy of libstdc++.so.6 as a cxx-gnu build; the row is a
#   library in a later reading of the CSV without --lib (compare --json);
#   bad --lib values refused, one line, exit 2.
#   test_libs.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch tmp libs
# helper CSV ROW: the row's `# helper` line
helper() { grep "^# helper $2: " "$1"; }
# oks CSV ROW: how many of its rows are ok
oks() { awk -F, "$COLS"'!/^#/ && $col("variant") == "'"$2"'" && $col("status") == "ok"' "$1" | wc -l; }
# maps LINE: the shared objects a helper line lists, one a line
maps() { sed 's/.*, maps //' <<<"$1" | tr ' ' '\n'; }

# 1. the libc++ versions: rows from their own helpers
vers=()
for n in 15 16; do
  if "$fl" list | grep -Eq "^cxx-llvm$n +available"; then vers+=("$n")
  else skip "cxx-llvm$n" "$("$fl" list | grep -A1 "^cxx-llvm$n " | sed -n 's/.*reason: //p')"; fi
done
if [ ${#vers[@]} -gt 0 ]; then
  csv=$tmp/v.csv
  rows=cxx-llvm$(printf ',cxx-llvm%s' "${vers[@]}")
  "$fl" run --variant "$rows",glibc --workload pool,pingpong,uncontended --threads 4 --tokens 1 \
    --rounds 2 --warmup 0 --duration 0.03 --latency --no-control --no-floors --quiet --no-probes \
    --csv "$csv" >"$tmp/v.out" 2>&1
  rc=$?
  [ $rc -eq 0 ] && ok "run $rows: exit 0" || { bad "run $rows: exit $rc"; tail -3 "$tmp/v.out"; }
  for n in "${vers[@]}"; do
    row=cxx-llvm$n line=$(helper "$csv" "$row")
    libs=$(maps "$line" | grep -E '/lib(c\+\+|c\+\+abi|unwind)\.so')
    other=$(grep -v "/llvm-$n/" <<<"$libs")
    if [ "$(grep -c "/llvm-$n/lib/" <<<"$libs")" = 3 ] && [ -z "$other" ] &&
       [[ $line == *"/futexlab-libcxx$n pid "* ]]; then
      ok "$row: its helper mapped libc++ $n's three objects, no other: $(grep 'libc++.so' <<<"$libs")"
    else bad "$row: helper line '$line'"; fi
    got=$(oks "$csv" "$row")
    [ "$got" = 6 ] && ok "$row: 6 ok rows" || bad "$row: $got ok rows of 6"
    p50=$(awk -F, "$COLS"'!/^#/ && $col("variant") == "'"$row"'" && $col("workload") == "pingpong" { print $col("lat_p50_ns"); exit }' "$csv")
    jain=$(awk -F, "$COLS"'!/^#/ && $col("variant") == "'"$row"'" && $col("workload") == "pool" { print $col("fair_jain"); exit }' "$csv")
    [ -n "$p50" ] && [ -n "$jain" ] && ok "$row: fields back from its helper (pingpong p50 $p50 ns, pool jain $jain)" ||
      bad "$row: p50 '$p50' jain '$jain'"
    v=$(grep '^# libraries:' "$csv")
    if [[ $v == *"libc++ 14000"* ]] && grep -Eq "libc\+\+ ${n}0?[0-9]{3}(,|$)" <<<"$v"; then
      ok "$row: # libraries: names libc++ $n beside 14"
    else bad "$row: $v"; fi
  done
  # the report's kind: a shipped library each (the libraries line's)
  kinds=$("$fl" compare --json "$csv" | grep -o '"name": "cxx-llvm1[0-9]", "kind": "[a-z]*"' | sort -u |
    grep -c '"library"')
  [ "$kinds" = ${#vers[@]} ] && ok "compare --json: each a library" || bad "compare --json: $kinds libraries"
  # the hunter reaches them: its patterns run in each helper
  "$fl" hunt --variant "${rows#cxx-llvm,}" --pattern steal,preempt --seconds 0.2 >"$tmp/h.out" 2>&1
  rc=$?
  clean=$(grep -cE '^cxx-llvm1[0-9]: clean' "$tmp/h.out")
  [ $rc -eq 0 ] && [ "$clean" = ${#vers[@]} ] && ok "hunt ${rows#cxx-llvm,}: clean in their helpers" ||
    { bad "hunt: exit $rc, $clean clean"; tail -5 "$tmp/h.out"; }
fi

# 2. --lib: a libc++ build (libc++ 15's directory) as cxx-llvm+v15
lib15=
for d in /usr/lib/llvm-15/lib /opt/futexlab-libcxx/15/usr/lib/llvm-15/lib; do
  [ -e "$d/libc++.so.1" ] && { lib15=$d; break; }
done
if [ -z "$lib15" ] || ! "$fl" list | grep -Eq '^cxx-llvm +available'; then
  skip "--lib cxx-llvm+v15" "no libc++ 15 directory, or no cxx-llvm in this build"
else
  csv=$tmp/l.csv
  "$fl" run --lib "cxx-llvm+v15=$lib15" --variant cxx-llvm,cxx-llvm+v15,glibc --workload pingpong \
    --rounds 2 --warmup 0 --duration 0.03 --no-control --no-floors --quiet --no-probes --csv "$csv" \
    >"$tmp/l.out" 2>&1
  rc=$?
  line=$(helper "$csv" cxx-llvm+v15)
  cxx=$(maps "$line" | grep '/libc++\.so')
  if [ $rc -eq 0 ] && [ "$cxx" = "$(readlink -f "$lib15/libc++.so.1")" ] &&
     [[ $line == *"/futexlab-native with LD_LIBRARY_PATH=$lib15 pid "* ]] &&
     [ "$(oks "$csv" cxx-llvm+v15)" = 2 ]; then
    ok "--lib cxx-llvm+v15: 2 ok rows, its helper mapped $cxx"
  else bad "--lib cxx-llvm+v15: exit $rc, $(oks "$csv" cxx-llvm+v15) ok rows, helper '$line'"; fi
  grep -q "^# libraries: .*cxx-llvm+v15: $lib15" "$csv" && ok "--lib: # libraries: names the row and its path" ||
    bad "--lib: $(grep '^# libraries:' "$csv")"
fi

# 3. --lib: a glibc (a copy of this machine's libc.so.6 and its loader), as
#    an install (libc.so.6 beside the loader) and as a build directory
#    (elf/ld.so, libc.so.6 at the top, nptl/)
interp=$(readelf -l "$fl" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
libc=$(ldd "$fl" | awk '$1 == "libc.so.6" { print $3 }')
mkdir -p "$tmp/inst" "$tmp/build/elf" "$tmp/build/nptl"
cp "$libc" "$tmp/inst/libc.so.6" && cp "$interp" "$tmp/inst/"
cp "$libc" "$tmp/build/libc.so.6" && cp "$interp" "$tmp/build/elf/ld.so"
for kind in inst build; do
  csv=$tmp/g-$kind.csv
  "$fl" run --lib "glibc+$kind=$tmp/$kind" --variant glibc,glibc+$kind --workload pool,uncontended \
    --threads 2 --rounds 2 --warmup 0 --duration 0.03 --no-control --no-floors --quiet --no-probes \
    --csv "$csv" >"$tmp/g.out" 2>&1
  rc=$?
  line=$(helper "$csv" "glibc+$kind")
  m=$(maps "$line")
  if [ $kind = inst ]; then ld=$tmp/inst/${interp##*/} lp=$tmp/inst
  else ld=$tmp/build/elf/ld.so lp=$tmp/build:$tmp/build/elf:$tmp/build/nptl; fi
  if [ $rc -eq 0 ] && grep -qx "$tmp/$kind/libc.so.6" <<<"$m" && grep -qx "$ld" <<<"$m" &&
     [ "$(grep -c 'libc\.so\.6$' <<<"$m")" = 1 ] &&
     [[ $line == *"/futexlab-native under $ld --library-path $lp pid "*"(dynamic)"* ]] &&
     [ "$(oks "$csv" "glibc+$kind")" = 4 ]; then
    ok "--lib glibc+$kind: 4 ok rows, run under $ld, the copy's libc.so.6 mapped (no other)"
  else bad "--lib glibc+$kind: exit $rc, $(oks "$csv" "glibc+$kind") ok rows, helper '$line'"; tail -3 "$tmp/g.out"; fi
done
# the hunt takes --lib too: the patterns run in the row's helper, on the copy
"$fl" hunt --lib "glibc+inst=$tmp/inst" --variant glibc+inst --pattern steal,preempt --seconds 0.2 \
  >"$tmp/gh.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^glibc+inst: clean' "$tmp/gh.out" && ok "hunt --lib glibc+inst: clean in its helper" ||
  { bad "hunt --lib glibc+inst: exit $rc"; tail -3 "$tmp/gh.out"; }
# a libstdc++ (a copy of this machine's) as cxx-gnu+copy
if "$fl" list | grep -Eq '^cxx-gnu +available'; then
  mkdir -p "$tmp/gnu"
  cp "$(ldd "$fl" | awk '$1 == "libstdc++.so.6" { print $3 }')" "$tmp/gnu/libstdc++.so.6"
  csv=$tmp/s.csv
  "$fl" run --lib "cxx-gnu+copy=$tmp/gnu" --variant glibc,cxx-gnu+copy --workload uncontended \
    --rounds 2 --warmup 0 --duration 0.03 --no-control --no-floors --quiet --no-probes --csv "$csv" \
    >"$tmp/s.out" 2>&1
  rc=$?
  m=$(maps "$(helper "$csv" cxx-gnu+copy)")
  if [ $rc -eq 0 ] && [ "$(grep 'libstdc++' <<<"$m")" = "$tmp/gnu/libstdc++.so.6" ] &&
     [ "$(oks "$csv" cxx-gnu+copy)" = 2 ]; then
    ok "--lib cxx-gnu+copy: 2 ok rows, the copy's libstdc++.so.6 mapped (no other)"
  else bad "--lib cxx-gnu+copy: exit $rc, $(oks "$csv" cxx-gnu+copy) ok rows, maps: $m"; fi
else skip "--lib cxx-gnu+copy" "no cxx-gnu in this build"; fi
# read later without --lib: the row is still a library (its base's kind)
kind=$("$fl" compare --json "$tmp/g-inst.csv" | grep -o '"name": "glibc+inst", "kind": "[a-z]*"')
[[ $kind == *'"library"' ]] && ok "compare without --lib: glibc+inst reads as a library" ||
  bad "compare --json: '$kind'"

# 4. bad values: one line, exit 2
for bad_lib in "glibc=$tmp/inst" "musl-libc+x=$tmp/inst" "negcount+x=$tmp/inst" "glibc+x=$tmp/none" \
               "glibc+x=$tmp" "cxx-llvm+x=$tmp/inst" "cxx-gnu+x=$tmp/inst" "glibc+a/b=$tmp/inst"; do
  if refusal "" "$fl" run --lib "$bad_lib" --variant glibc --workload uncontended --rounds 1 --dry-run; then
    ok "--lib $bad_lib refused: $err"
  else bad "--lib $bad_lib: exit $rc, stderr '$err'"; fi
done

finish -s libs
