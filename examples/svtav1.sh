#!/bin/sh
# examples/svtav1.sh [FRAMES] — encode a synthetic 320x240 clip to AV1 with
# Debian's SVT-AV1 encoder (package svt-av1: SvtAv1EncApp). Its pipeline
# stages are threads that hand work to each other through POSIX semaphores:
# libSvtAv1Enc.so.1 imports sem_init/sem_wait/sem_post, and one encode
# initialises ~535 of them. The clip is made once (examples/make_clip.py)
# and cached in ${TMPDIR:-/tmp}; then this shell execs the encoder, so the
# program timed is the encoder alone.
set -eu
frames=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
clip=${TMPDIR:-/tmp}/futexlab-clip-320x240-$frames.y4m
command -v SvtAv1EncApp >/dev/null ||
  { echo "svtav1.sh: SvtAv1EncApp not found (apt-get install svt-av1; scripts/setup does)" >&2; exit 1; }
[ -s "$clip" ] || /usr/bin/python3 "$here/make_clip.py" "$clip" 320 240 "$frames"
exec SvtAv1EncApp -i "$clip" -b /dev/null --preset 10
