#!/bin/sh
# tests/skip.sh NAME WHY — stands in for a test that cannot be built here
# (tests/meson.build registers it anyway, so `meson test --list` and the
# skipped total show it): says why and exits 77, meson's "skipped".
echo "SKIP $1: $2"
exit 77
