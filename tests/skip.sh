#!/usr/bin/env bash
# tests/skip.sh NAME WHY — stands in for a test that cannot be built here
# (tests/meson.build registers it anyway, so `meson test --list` and the
# skipped total show it): a test whose whole outcome is lib.sh's skip_test,
# "SKIP NAME: WHY" and exit 77, meson's "skipped" — the one spelling of a
# skipped test, so a test, not a helper of its own.
. "$(dirname "$0")/lib.sh"
skip_test "$1" "$2"
