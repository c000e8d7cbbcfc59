#!/usr/bin/env bash
# tests/test_lint_comments.sh — scripts/lint-comments and lint-funcs'
# parameter rule can fail, and the tree passes both. On a throw-away git
# repository of one room: a clean tree passes (an upstream project's commit
# in a comment, a hex constant in code and a 6-parameter function are
# fine); a C comment naming one of the repository's commits fails, so does
# a shell comment naming one and "as of" before a revision; a function of 7
# parameters fails lint-funcs, and a listed one that no longer exceeds is
# named. Then the real tree: clean. Seconds, python3 and git only.
# Usage: test_lint_comments.sh SRCDIR
set -u
. "$(dirname "$0")/lib.sh"
src=$1
scratch tmp lint-comments
command -v git >/dev/null || { skip "git not installed"; finish lint-comments; exit 0; }

t=$tmp/t
mktree() {
  rm -rf "$t"; mkdir -p "$t/room"
  echo 'May include: nothing of ours' > "$t/room/README.md"
  printf '/* room/a.c — a fix from upstream commit 882aedf6 (not ours). */\n' > "$t/room/a.c"
  printf 'static int f(int a, int b, int c, int d, int e, int g)\n{\n\treturn 0xdeadbeef1 > 0;\n}\n' \
    >> "$t/room/a.c"
  printf '#!/bin/sh\n# room/s.sh: nothing dated\necho 1f2e3d4c\n' > "$t/room/s.sh"
  git -C "$t" init -q && git -C "$t" add -A &&
    git -C "$t" -c user.name=t -c user.email=t@t commit -qm one
  rev=$(git -C "$t" rev-parse --short=7 HEAD)
  # a word lint-comments reads as a revision has letters and digits both (a
  # run of digits alone is a number): a hash without either, 1 in 25, is
  # committed again, so the checks below always have a revision to find
  while ! [[ $rev =~ [0-9] && $rev =~ [a-f] ]]; do
    git -C "$t" -c user.name=t -c user.email=t@t commit -q --amend -m "one $RANDOM"
    rev=$(git -C "$t" rev-parse --short=7 HEAD)
  done
}


mktree; exits "a clean tree passes (an upstream commit, a hex constant)" 0 \
  'lint-comments: clean' "$src/scripts/lint-comments" "$t"
mktree; printf '/* as %s did */\n' "$rev" >> "$t/room/a.c"
exits "a C comment naming a commit here fails" 1 "room/a.c:6: $rev: a commit of this repository" "$src/scripts/lint-comments" "$t"
mktree; printf '# the time at %s\n' "$rev" >> "$t/room/s.sh"
exits "a shell comment naming a commit here fails" 1 "room/s.sh:4: $rev: a commit" "$src/scripts/lint-comments" "$t"
mktree; printf '// the design as of commit 0123abcd\n' >> "$t/room/a.c"
exits "\"as of\" before a revision fails" 1 'room/a.c:6: "as of commit 0123abcd": history' "$src/scripts/lint-comments" "$t"
mktree; exits "a 6-parameter function passes" 0 'lint-funcs: clean' "$src/scripts/lint-funcs" "$t"
mktree; printf 'int h(int a, int b, int c, int d, int e, int g, void (*k)(int, int))\n{\n\treturn 0;\n}\n' \
  >> "$t/room/a.c"
exits "a 7-parameter function fails" 1 'room/a.c:7: h takes 7 parameters \(limit 6\)' "$src/scripts/lint-funcs" "$t"
mktree; mkdir -p "$t/report" && echo '# report/' > "$t/report/README.md" &&
  printf 'int fl_report_text(int a, int b, int c, int d, int e, int g, int k)\n{\n\treturn 0;\n}\n' \
  > "$t/report/summary.c"
exits "no function is excepted (the list that once was is gone)" 1 \
  'report/summary.c:2: fl_report_text takes 7 parameters \(limit 6\)' "$src/scripts/lint-funcs" "$t"

for tool in lint-comments lint-funcs; do
  out=$("$src/scripts/$tool" "$src" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then ok "the tree: $(tail -1 <<<"$out")"; else bad "the tree ($tool):"$'\n'"$out"; fi
done

finish lint-comments
