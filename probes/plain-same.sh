#!/usr/bin/env bash
# probes/plain-same.sh [BASE_REV [BUILD_DIR]] — whether the collector's plain
# programs (the set loaded when follow_children and per_word are off: what the
# harness's runs load) are instruction for instruction those of BASE_REV
# (default: main). Compiles probes/futexstat.bpf.c of BASE_REV and of the
# work tree as the build does (clang -O2 -target bpf -mcpu=v3, BUILD_DIR's
# vmlinux.h, default build/), disassembles both (llvm-objdump -dr: relocations
# by symbol name, so a variable that moved in .bss or .rodata reads the same)
# and compares, per program of BASE_REV, the instructions with jump labels
# normalised (clang numbers them by function). Prints one line per program;
# exit 1 if any differs or is missing, 2 on bad usage or a missing tool.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-main}
build=$(cd "${2:-$top/build}" 2>/dev/null && pwd) || { echo "plain-same: no build dir ${2:-build}" >&2; exit 2; }
[ $# -le 2 ] || { echo "usage: probes/plain-same.sh [BASE_REV [BUILD_DIR]]" >&2; exit 2; }
vmlinux="$build/probes/vmlinux.h"
[ -r "$vmlinux" ] || { echo "plain-same: $vmlinux missing (a build with the collector first)" >&2; exit 2; }
objdump=$(command -v llvm-objdump || command -v llvm-objdump-14) ||
  { echo "plain-same: llvm-objdump not found" >&2; exit 2; }
case $(uname -m) in
  x86_64) arch=x86 ;; aarch64) arch=arm64 ;; s390x) arch=s390 ;; riscv64) arch=riscv ;;
  ppc64*) arch=powerpc ;; loongarch64) arch=loongarch ;; arm*) arch=arm ;;
  *) echo "plain-same: no BPF target architecture for $(uname -m)" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base/probes" "$tmp/now/probes"
for f in futexstat.bpf.c futexstat.h; do
  git -C "$top" show "$base:probes/$f" > "$tmp/base/$f" ||
    { echo "plain-same: no probes/$f at $base" >&2; exit 2; }
  cp "$top/probes/$f" "$tmp/now/$f"
done
# the header by either include style: "futexstat.h" (older revisions) or
# the root-relative "probes/futexstat.h"
for v in base now; do cp "$tmp/$v/futexstat.h" "$tmp/$v/probes/futexstat.h"; done
for v in base now; do
  clang -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$arch -Wall -Werror \
    -I"$build/probes" -I"$tmp/$v" -c "$tmp/$v/futexstat.bpf.c" -o "$tmp/$v/o" ||
    { echo "plain-same: $v does not compile" >&2; exit 2; }
  "$objdump" -dr --no-show-raw-insn "$tmp/$v/o" > "$tmp/$v/dis" || exit 2
done
echo "plain programs: $base ($(git -C "$top" rev-parse --short "$base")) against the work tree"
python3 - "$tmp/base/dis" "$tmp/now/dis" <<'PY'
import re, sys
def progs(path):
    res, cur = {}, None
    for l in open(path):
        if l.startswith('Disassembly'):
            cur = None
            continue
        m = re.match(r'^[0-9a-f]+ <(.*)>:', l)
        if m:
            if not m.group(1).startswith('LBB'):
                cur = m.group(1)
                res[cur] = []
            continue
        if cur:
            l = re.sub(r'<LBB\d+_\d+>', '<L>', l.strip())
            if l:
                res[cur].append(l)
    return res
a, b = progs(sys.argv[1]), progs(sys.argv[2])
bad = 0
for p in a:
    n = sum(1 for l in a[p] if re.match(r'^\d+:', l))
    if p not in b:
        print('%-22s MISSING' % p); bad = 1
    elif a[p] != b[p]:
        print('%-22s DIFFERS (%d instructions before, %d now)' %
              (p, n, sum(1 for l in b[p] if re.match(r'^\d+:', l)))); bad = 1
    else:
        print('%-22s identical (%d instructions)' % (p, n))
sys.exit(bad)
PY
