#!/usr/bin/env bash
# tests/fuzz/run.sh MODE SEEDS FUZZ_BUILD EXE... — the meson test 'fuzz'.
#   MODE replay (gcc and sanitizer builds): EXE are replay.c builds; each
#        runs its seed corpus SEEDS/NAME (fuzz_NAME), then FUZZ_BUILD (the
#        build-fuzz/ that scripts/setup configures) is built and its targets
#        are fuzzed as below; skipped (77) after the replay if FUZZ_BUILD is
#        not configured (FUTEXLAB_SANITIZERS=0, or setup not run).
#   MODE fuzz (build-fuzz itself): EXE are the libFuzzer targets.
# Fuzzing: each target FUZZ_SECONDS (default 3: 15 s for the five) from its
# seeds, in a scratch corpus under FUZZ_BUILD/fuzz-test/ (emptied each run);
# any crash, leak, UBSan report, timeout (5 s an input) or out-of-memory
# fails the test with the input's path and libFuzzer's report.
set -uo pipefail
mode=$1 seeds=$2 fbuild=$3; shift 3
secs=${FUZZ_SECONDS:-3}
fail=0

if [ "$mode" = replay ]; then
  for exe in "$@"; do
    name=${exe##*/fuzz_}
    if ! out=$("$exe" "$seeds/$name" 2>&1); then
      echo "$out" | tail -30
      echo "FAIL replay $name: a seed input fails (above)"
      fail=1
    else
      echo "$out" | tail -1
    fi
  done
  [ $fail = 0 ] || exit 1
  if [ ! -f "$fbuild/build.ninja" ]; then
    echo "SKIP fuzzing: $fbuild is not configured (scripts/setup; needs clang and libclang-rt-14-dev)"
    exit 77
  fi
  targets=()
  for exe in "$@"; do targets+=("tests/fuzz/${exe##*/}"); done
  if ! ninja -C "$fbuild" "${targets[@]}" >"$fbuild/fuzz-build.log" 2>&1; then
    tail -30 "$fbuild/fuzz-build.log"
    echo "FAIL: building the fuzz targets in $fbuild"
    exit 1
  fi
  set -- "${targets[@]/#/$fbuild/}"
fi

work=$fbuild/fuzz-test
rm -rf "$work"
for exe in "$@"; do
  name=${exe##*/fuzz_}
  mkdir -p "$work/$name/corpus"
  dict=()
  [ -f "$seeds/$name.dict" ] && dict=("-dict=$seeds/$name.dict")
  log=$work/$name/log
  if "$exe" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
       "${dict[@]}" -artifact_prefix="$work/$name/" "$work/$name/corpus" "$seeds/$name" \
       >"$log" 2>&1; then
    execs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log")
    echo "fuzz $name: ${execs:-?} inputs in ${secs} s, no finding"
  else
    grep -E -A40 '^==[0-9]+==|^fuzz: |^SUMMARY|runtime error' "$log" | head -60
    found=$(ls "$work/$name"/{crash,leak,timeout,oom}-* 2>/dev/null | head -1)
    echo "FAIL fuzz $name: finding ${found:-(no artifact; log $log)}"
    fail=1
  fi
done
[ $fail = 0 ] && rm -rf "$work"
exit $fail
