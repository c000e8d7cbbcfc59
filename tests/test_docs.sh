#!/usr/bin/env bash
# tests/test_docs.sh — docs that cannot drift: every --option the pages
# name exists in that command's option table (scripts/check-docs: the
# built binary's --help is the source of truth, a script's own source for
# scripts/X), every --preset is a preset, every "quick: N of X s" (in any
# of its forms) is the preset's, every "NN % interval" a level the headers
# give that interval, every package a page says scripts/setup installs one
# of its pkgs (and README's list all of them), every quoted `futexlab: ...`
# line printed by the command shown (run) or by a format of the sources;
# checked on a crafted page too, so the checker is seen to fail;
# and the help the docs lean on: `futexlab --help` offers every preset of
# presets.c's table, `version --help` is a usage, --no-min-blocking is listed;
# and tests/README.md's table of tests ("## Every test") has a row for every
# test BUILD_DIR registers (meson-info/intro-tests.json), also seen to fail.
# Usage: test_docs.sh path/to/futexlab [BUILD_DIR]
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
top=$(cd "$(dirname "$0")/.." && pwd)
scratch d docs

out=$(python3 "$top/scripts/check-docs" "$fl" "$top" 2>&1); rc=$?
check "the pages name only options, presets, preset figures, interval levels, setup's packages and printed lines that exist (rc $rc)" test "$rc" = 0
[ "$rc" = 0 ] || printf '%s\n' "$out"
check "  and it checked something: options of commands, of scripts, preset figures, levels, packages, quoted lines" \
  grep -qE '^check-docs: [0-9]+ pages, [0-9]+ option mentions \([1-9][0-9]* of a futexlab command, [1-9][0-9]* of a script, .*, [1-9][0-9]* preset figures, [1-9][0-9]* interval levels, [1-9][0-9]* packages of scripts/setup, [1-9][0-9]* quoted lines, 0 findings$' <<<"$out"

# a crafted page: each kind of drift found, with its line, the options'
# first, then the claims (the setup list:
# scripts/setup's own array, as bash reads it, but for sqlite3)
pkgs_but_sqlite3=$(bash -c 'eval "$(sed -n "/^pkgs=(/,/^\$/p" "$1")"; for p in "${pkgs[@]}"; do
  [ "$p" = sqlite3 ] || printf "%s " "$p"; done' _ "$top/scripts/setup")
check "scripts/setup's pkgs read (${pkgs_but_sqlite3:0:40}...)" test -n "$pkgs_but_sqlite3"
sed "s/PKGS_BUT_SQLITE3/${pkgs_but_sqlite3% }/" >"$d/page.md" <<'EOF'
Prose `futexlab run --pool` and `compare --threads 2` and `scripts/aa --nope`.
`--frobnicate` anywhere; `--preset medium`; `futexlab sweep --preset standard`;
the presets: quick: 16 of 0.013 s; `meson test --whatever` is meson's.
A span wrapped over lines: `futexlab compare
x.csv --pool-size 2` is still compare's.

```sh
build/harness/futexlab compare a.csv b.csv \
    --fail-on slower --threads 3
```
`scripts/alternate -n 2 a b -- run --workload pool --pool` (after the script's --: run's).

The ratio's 99 % interval excludes 1; the pool's next run's interval (99 %); a bootstrap 99 % interval.
`futexlab sweep --preset full`: 20 rounds of 0.05 s; `futexlab sweep --preset quick`: 20 rounds of
0.015 s (then `futexlab sweep --preset quick`: 20 rounds of 0.015 s, an older preset); quick (15 rounds, 24 s).
`scripts/setup` installs `svt-av1` and `frobnicate-dev`; (package `nosuch`, installed by `scripts/setup`).
Both commands call `scripts/setup` first, which installs the packages of its list: `PKGS_BUT_SQLITE3` and so on.
`futexlab run --variant glibc@adaptive` prints `futexlab: --variant glibc@adaptive: glibc is a library`;
`futexlab run --variant glibc@adaptive` prints `futexlab: --variant glibc@adaptive: glibc is a shipped
library and waits its own way (...): no policy`; `futexlab: probes off: eBPF probes need a frob`;
`futexlab: exec: no writable cgroup2 (REASON): falls back to the process group and wait4's rusage`.
The `standard` preset is quick's ten points and entries, 12 timed rounds of 20 ms first.
EOF
out=$(python3 "$top/scripts/check-docs" "$fl" "$top" "$d/page.md" 2>&1); rc=$?
want="$d/page.md:1: --pool is not an option of futexlab run
$d/page.md:1: --threads is not an option of futexlab compare
$d/page.md:1: --nope is not an option of scripts/aa
$d/page.md:2: --frobnicate is not an option of any command or script
$d/page.md:2: --preset medium: no such preset (quick, standard, full)
$d/page.md:4: --pool-size is not an option of futexlab compare
$d/page.md:8: --threads is not an option of futexlab compare
$d/page.md:11: --pool is not an option of futexlab run
$d/page.md:3: \"quick: 16 of 0.013 s\": the preset has 14 rounds of 0.013 s (futexlab sweep --help)
$d/page.md:13: \"99 % interval\": no interval of this clause has that level (a run's own: 95, 95.9, 97.9, 98.7 %, the overall's 95 %, the pool's long-run 95 %; only a next run's: 99 % pooled, 95 % from a history: stats.h, summary.h, judge.h)
$d/page.md:14: \"\`futexlab sweep --preset quick\`: 20 rounds of 0.015 s\": the preset has 14 rounds of 0.013 s (futexlab sweep --help)
$d/page.md:15: \"quick (15 rounds\": the preset has 14 rounds of 0.013 s (futexlab sweep --help)
$d/page.md:22: \"The \`standard\` preset is  ...  12 timed rounds of 20 ms\": the preset has 10 rounds of 0.02 s (futexlab sweep --help)
$d/page.md:17: the list of scripts/setup's packages lacks sqlite3
$d/page.md:16: \`frobnicate-dev\`: not a package scripts/setup installs (its pkgs)
$d/page.md:16: \`nosuch\`: not a package scripts/setup installs (its pkgs)
$d/page.md:18: \`futexlab run --variant glibc@adaptive\` does not print \"futexlab: --variant glibc@adaptive: glibc is a library\": it printed: futexlab: --variant glibc@adaptive: glibc is a shipped library and waits its own way (parks at once: one try, then FUTEX_WAIT_BITSET (no spin)): no policy
$d/page.md:20: \"futexlab: probes off: eBPF probes need a frob\": no format string of the sources prints it"
check "a crafted page: exit 1, each drift named by line, nothing else (meson's option, --fail-on, standard, a pool's 99 %, a bootstrap's, full's figure, an older preset's, svt-av1, the printed lines pass)" \
  test "$rc" = 1 -a "$(grep -v '^check-docs:' <<<"$out")" = "$want"
[ "$rc" = 1 ] && [ "$(grep -v '^check-docs:' <<<"$out")" = "$want" ] || printf '%s\n' "$out"
python3 "$top/scripts/check-docs" "$d/nofl" >/dev/null 2>"$d/err"; rc=$?
check "check-docs: a futexlab that is not there: exit 2, one line" \
  test "$rc" = 2 -a "$(wc -l <"$d/err")" = 1

# the help the docs lean on
presets=$("$fl" sweep --help | sed -n '/^presets/,/^[^ ]/p' | grep -oE '^  [a-z]+' | tr -d ' ' | paste -sd'|')
check "sweep --help lists the presets of presets.c's table ($presets)" test -n "$presets"
check "futexlab --help offers every one (--preset $presets)" \
  grep -qF -- "--preset $presets)" <<<"$("$fl" --help)"
out=$("$fl" version --help); rc=$?
check "version --help: a usage, exit 0" eval 'test "$rc" = 0 && grep -q "^usage: futexlab version" <<<"$out"'
"$fl" version extra >/dev/null 2>"$d/err"; rc=$?
check "version extra: exit 2, one line" test "$rc" = 2 -a "$(wc -l <"$d/err")" = 1
check "run --help lists --no-min-blocking" grep -q -- '^  --no-min-blocking  ' <<<"$("$fl" run --help)"

# unlisted README.md TESTS.json [EXTRA...]: the registered tests (and the
# EXTRA names) that match no row of the page's table of tests; a row's
# names are patterns, their capitals (V, P, POLICY, M) standing for any text
unlisted() {
  python3 - "$@" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
table = page.split('\n## Every test\n', 1)[1].split('\n## ', 1)[0]
pats = [re.compile('^' + re.sub(r'[A-Z]+', '.+', re.escape(name)) + '$')
        for line in table.splitlines() if line.startswith('| `')
        for name in re.findall(r'`([^`]+)`', line.split('|')[1])]
names = [t['name'] for t in json.load(open(sys.argv[2]))] + sys.argv[3:]
print(' '.join(n for n in names if not any(p.match(n) for p in pats)))
PY
}
if [ -n "${2:-}" ]; then
  tests=$2/meson-info/intro-tests.json
  n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$tests")
  missing=$(unlisted "$top/tests/README.md" "$tests")
  check "tests/README.md's table has a row for each of the $n registered tests (missing: ${missing:-none})" \
    test "${n:-0}" -gt 0 -a -z "$missing"
  check "  and it would name one that has none" \
    test "$(unlisted "$top/tests/README.md" "$tests" no-such-test)" = "${missing:+$missing }no-such-test"
else
  skip "tests/README.md's table of tests" "no BUILD_DIR given"
fi
finish docs
