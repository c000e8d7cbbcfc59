#!/usr/bin/env bash
# tests/test_lint_includes.sh — scripts/lint-includes can fail, and the tree
# passes it. On throw-away trees of three rooms (lib <- mid <- top, each
# README saying what it may include) it must accept the clean tree and
# reject, each with its own line: an include that goes the wrong way
# (lib/ including mid/), one its README does not allow (mid/ including top/
# when mid allows only lib/), an include that is not root-relative, a cycle
# between two modules of one room, a room without its "May include:" line,
# rooms whose allowances form a cycle, and a room including tests/. Then the
# real tree: clean.
# Usage: test_lint_includes.sh SRCDIR
set -u
. "$(dirname "$0")/lib.sh"
src=$1
lint=$src/scripts/lint-includes
scratch tmp lint-includes

# a clean tree: lib (nothing), mid (lib), top (lib, mid), tests (anything)
mktree() {
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/lib" "$tmp/t/mid" "$tmp/t/top" "$tmp/t/tests"
  echo 'May include: nothing of ours' > "$tmp/t/lib/README.md"
  echo 'May include: `lib/`' > "$tmp/t/mid/README.md"
  echo 'May include: `lib/`, `mid/`' > "$tmp/t/top/README.md"
  printf '#pragma once\n' > "$tmp/t/lib/a.h"
  printf '#include "lib/a.h"\n' > "$tmp/t/lib/a.c"
  printf '#include "lib/a.h"\n' > "$tmp/t/mid/m.h"
  printf '#include "mid/m.h"\n#include "lib/a.h"\n' > "$tmp/t/mid/m.c"
  printf '#include "mid/m.h"\n' > "$tmp/t/mid/n.h"
  printf '#include "mid/m.h"\n#include "lib/a.h"\n#include "revision.h"\n' > "$tmp/t/top/t.c"
  printf '#include "top/t.c"\n#include "mid/m.h"\n' > "$tmp/t/tests/x.c"
}


mktree; exits "a clean tree passes" 0 'lint-includes: clean' "$lint" "$tmp/t"
mktree; printf '#include "mid/m.h"\n' >> "$tmp/t/lib/a.c"
exits "lib/ including mid/ (wrong way) fails" 1 'lib/a.c:2: lib/ may not include mid/m.h' "$lint" "$tmp/t"
mktree; printf '#include "top/t.c"\n' >> "$tmp/t/mid/m.c"
exits "mid/ including top/ (not allowed) fails" 1 'mid/m.c:3: mid/ may not include top/t.c' "$lint" "$tmp/t"
mktree; printf '#include "a.h"\n' >> "$tmp/t/lib/a.c"
exits "a relative include fails" 1 'lib/a.c:2: "a.h" is not a root-relative path' "$lint" "$tmp/t"
mktree; printf '#include "mid/n.h"\n' >> "$tmp/t/mid/m.h"
exits "a module cycle in one room fails" 1 'include cycle: mid/m -> mid/n -> mid/m' "$lint" "$tmp/t"
mktree; : > "$tmp/t/mid/README.md"
exits "a room without its May include line fails" 1 'mid/README.md: no "May include:" line' "$lint" "$tmp/t"
mktree; echo 'May include: `top/`' > "$tmp/t/mid/README.md"
exits "rooms allowing each other (a cycle) fail" 1 'rooms: the README allowances form a cycle' "$lint" "$tmp/t"
mktree; printf '#include "tests/x.c"\n' >> "$tmp/t/top/t.c"
exits "a room including tests/ fails" 1 'nothing outside tests/ includes tests/' "$lint" "$tmp/t"

out=$("$lint" "$src" 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "the tree: $(tail -1 <<<"$out")"; else bad "the tree:"$'\n'"$out"; fi

finish lint-includes
