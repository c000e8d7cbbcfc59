#!/usr/bin/env bash
# tests/test_exec_metric.sh — `futexlab exec --metric REGEX
# [--higher-is-better]`: bad input (one line, exit 2); a program whose figure
# differs per design (FUTEXLAB_VARIANT): the CSV's metric column holds it,
# the table's value column shows it, the ratio is its (baseline/row when
# higher is better: twice the throughput reads 0.500, faster; the same
# figures lower-is-better read 2.000, slower), `compare FILE` prints the same
# rows, a file without the metric line reads as wall time again; a run
# without the figure, or with text where the number should be: an error row
# with the reason; --output still shows the program's output.
# Usage: test_exec_metric.sh FUTEXLAB
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
scratch tmp metric

# 1. bad input: one line on stderr, exit 2, nothing run
refused "not a regex" "not a regular expression" "$fl" exec --metric 'tps = ([0-9]+' -- true
refused "no capture group" "no capture group" "$fl" exec --metric 'tps = [0-9]+' -- true
refused "--higher-is-better alone" "give --metric" "$fl" exec --higher-is-better -- true
refused "--metric with --survey" "no --metric" "$fl" exec --survey --metric 'x(1)' -- true

# The program: negcount prints twice glibc's figure (glibc's on stderr,
# after an earlier match that must not count); MODE (--env) none: no
# figure, text: text where the number goes.
prog=$tmp/prog.sh
cat >"$prog" <<'P'
#!/bin/sh
case "${MODE:-}$FUTEXLAB_VARIANT" in
none*) echo "nothing to see" ;;
text*) echo "tps = n/a" ;;
negcount) echo "tps = 200" ;;
*) echo "tps = 1"; echo "tps = 100" >&2 ;;
esac
P
chmod +x "$prog"
exec6() { # csv args...: 6 rounds (a verdict needs 6), no warm-up
  local csv=$1; shift
  "$fl" exec --detail --variant negcount,glibc --rounds 6 --warmup 0 --no-probes --quiet --csv "$csv" \
    --metric 'tps = ([0-9.na/]+)' "$@" -- "$prog"
}
# table_row TABLE VARIANT: that entry's row of the ratio table, blanks squeezed
table_row() { grep -E "^  $2 " "$1" | head -1 | tr -s ' '; }

# 2. higher is better: the figure in the CSV, the ratio baseline/row
exec6 "$tmp/h.csv" --higher-is-better >"$tmp/h.out" 2>"$tmp/h.err"
rc=$?
m=$(csv_cols "$tmp/h.csv" variant=negcount metric | sort -u | tr '\n' ' ')
g=$(csv_cols "$tmp/h.csv" variant=glibc metric | sort -u | tr '\n' ' ')
[ $rc -eq 0 ] && [ "$m" = "200 " ] && [ "$g" = "100 " ] &&
  ok "metric column: negcount 200, glibc 100 (the last match, stdout or stderr)" ||
  bad "metric column: exit $rc, negcount '$m', glibc '$g': $(cat "$tmp/h.err")"
grep -q '^# exec metric: tps = (\[0-9.na/\]+) (higher is better)$' "$tmp/h.csv" &&
  ok "metadata: # exec metric: ... (higher is better)" || bad "metadata: $(grep 'exec metric' "$tmp/h.csv")"
r=$(table_row "$tmp/h.out" negcount)
case "$r" in
  " negcount 200 0.500 "*faster*) ok "higher is better: twice the throughput reads 0.500, faster: $r" ;;
  *) bad "higher is better: '$r'"; cat "$tmp/h.out" ;;
esac
grep -qE '^  variant +metric +ratio' "$tmp/h.out" && ok "the value column is headed metric" ||
  bad "the value column's header: $(grep -E '^  variant' "$tmp/h.out")"
# a point whose first entry is skipped (split, refused without --allow)
# still heads its value column by the metric
"$fl" exec --detail --variant split,glibc --rounds 1 --warmup 0 --no-probes --quiet --csv "$tmp/k.csv" \
  --metric 'tps = ([0-9.na/]+)' -- "$prog" >"$tmp/k.out" 2>&1
grep -qE '^  variant +metric +ratio' "$tmp/k.out" && grep -qE '^  split +skipped' "$tmp/k.out" &&
  ok "a skipped first entry: the value column still headed metric" ||
  bad "skipped first entry: $(grep -E '^  (variant|split)' "$tmp/k.out")"
"$fl" compare --detail "$tmp/h.csv" >"$tmp/hc.out" 2>&1
[ "$(table_row "$tmp/hc.out" negcount)" = "$r" ] && [ "$(table_row "$tmp/hc.out" glibc)" = "$(table_row "$tmp/h.out" glibc)" ] &&
  ok "compare FILE: the same rows" || bad "compare FILE: '$(table_row "$tmp/hc.out" negcount)' vs '$r'"
# a file without the metric line (as before the option): wall time again
grep -v '^# exec metric:' "$tmp/h.csv" >"$tmp/old.csv"
"$fl" compare --detail "$tmp/old.csv" >"$tmp/old.out" 2>&1
grep -qE '^  variant +median ns +ratio' "$tmp/old.out" && ! grep -q "^  negcount +200 " "$tmp/old.out" &&
  ok "no metric line: ns per op, as before" || bad "no metric line: $(grep -A2 -E '^  variant' "$tmp/old.out")"

# 3. lower is better (the default): the same figures, the other way
exec6 "$tmp/l.csv" >"$tmp/l.out" 2>&1
r=$(table_row "$tmp/l.out" negcount)
case "$r" in
  " negcount 200 2.000 "*slower*) ok "lower is better: twice the figure reads 2.000, slower: $r" ;;
  *) bad "lower is better: '$r'"; cat "$tmp/l.out" ;;
esac
grep -q '^# exec metric: .* (lower is better)$' "$tmp/l.csv" && ok "metadata: (lower is better)" ||
  bad "metadata: $(grep 'exec metric' "$tmp/l.csv")"

# 4. no figure, or text for it: an error row with the reason, exit 1
for case in "none|no match for --metric 'tps = ([0-9.na/]+)' in the program's output" \
            "text|its first group matched 'n/a', not a number"; do
  mode=${case%%|*} want=${case#*|} v=negcount
  "$fl" exec --detail --variant "$v" --env "MODE=$mode" --rounds 1 --warmup 0 --no-probes --quiet --csv "$tmp/e.csv" \
    --metric 'tps = ([0-9.na/]+)' -- "$prog" >"$tmp/e.out" 2>&1
  rc=$?
  st=$(csv_cols "$tmp/e.csv" variant="$v" status | sort -u | tr '\n' ' ')
  note=$(csv_cols "$tmp/e.csv" variant="$v" note)
  [ $rc -eq 1 ] && [ "$st" = "error " ] && grep -qF -- "$want" <<<"$note" &&
    ok "$mode: error row: $note" || bad "$mode: exit $rc, status '$st', note '$note'"
done

# 5. --output: the program's output still reaches futexlab's stdout
"$fl" exec --detail --variant negcount --rounds 1 --warmup 0 --no-probes --quiet --output \
  --metric 'tps = ([0-9]+)' -- "$prog" >"$tmp/o.out" 2>&1
grep -q '^tps = 200$' "$tmp/o.out" && grep -q '^tps = 100$' "$tmp/o.out" &&
  ok "--output with --metric: the output shown (stdout and stderr)" ||
  bad "--output with --metric: $(head -5 "$tmp/o.out")"

finish "exec --metric"
