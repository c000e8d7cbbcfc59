#!/usr/bin/env bash
# tests/test_hunt.sh — `futexlab hunt`, the lost-wakeup hunter:
#   test_hunt.sh FUTEXLAB HUNT_MUTANTS
# - bad input: one line on stderr, nothing on stdout, exit 2;
# - the old option names (--rep, --spin-us) still work, with one line on
#   stderr naming the new ones (--rep-seconds, --stall-us);
# - a mutant that drops a wake (tests/mutants: negcount waking one when a
#   post(2) owes two) is found — a LOST WAKEUP verdict, a `stranded` CSV row
#   with the detector's evidence — and its unmutated control is clean
#   (HUNT_MUTANTS: the same command over the mutants, tests/hunt_mutants.c);
# - correct designs in a short hunt: clean, and the in-library-text
#   preemption landed in library text (hits > 0) for glibc (glibc's code)
#   and for a futexlab design (negcount), in process, and for musl-libc in
#   its helper when it is built;
# - --policy P: the designs hunted under P, as NAME@POLICY in the table, the
#   verdicts and the CSV, the shipped libraries under their own (and bad
#   policies refused);
# - the table's CPU per op and kernel columns (futex syscalls, waits, wakes,
#   woke 0, EAGAIN, resleeps per op, herd bursts per 1000 ops): each cell's
#   figure is its CSV rows' sum over their ops (cpu_user_ns + cpu_sys_ns,
#   futex_syscalls, ...), the kernel's counted by the collector in every rep
#   (root; without it, or with --no-probes, '-' and the legend saying why,
#   the probe cells empty, the CPU still there);
# - Ctrl-C: exit 130, the table of what finished, the CSV keeps its rows.
set -u
. "$(dirname "$0")/lib.sh"
fx=$1 hm=$2
py=/usr/bin/python3   # Debian's, for reading the CSV (scripts/setup installs it)
scratch tmp hunt
# the in-text hits of a table line: "VARIANT PATTERN reps ops secs cpu futex waits wakes
# woke0 EAGAIN resleep herd/1k HITS/SIGNALS stranded ..."
hits() { awk -v v="$2" -v p="$3" '$1 == v && $2 == p { split($14, a, "/"); print a[1] + 0 }' "$1"; }
# columns OUT CSV: each ran cell's CPU and kernel columns in the table OUT
# against its rows in CSV: the table's per-op figures are the rows' sums
# over their ops (to the table's 3 decimals or 3 figures). Prints "ok N
# cells, K with kernel counts" or what differs; exit 1 on any difference.
columns() {
  "$py" - "$1" "$2" <<'PYEOF'
import csv, sys
out, path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
loaded = any(l.startswith("# probes: every rep") for l in open(path))
head = "variant pattern reps ops secs cpu futex waits wakes woke0 eagain resleep herd textsig stranded".split()
kern = [("futex", "futex_syscalls", 1), ("waits", "wait_calls", 1), ("wakes", "wake_calls", 1),
        ("woke0", "wake_none", 1), ("eagain", "wait_eagain", 1), ("resleep", "resleeps", 1),
        ("herd", "herd_bursts", 1000)]
bad, cells, counted = [], 0, 0
hdr = [l for l in open(out) if l.startswith("variant ")]
if not hdr or hdr[0].split()[:15] != "variant pattern reps ops secs cpu ns futex waits wakes woke 0 EAGAIN resleep herd/1k".split():
    bad.append("header: %r" % (hdr[0] if hdr else None))
def close(shown, want):
    if shown == "-":
        return False
    x = float(shown)
    return abs(x - want) <= max(0.0015, 0.006 * abs(want))
for line in open(out):
    f = line.split()
    if len(f) < 15 or f[2] == "-" or not f[2].isdigit():
        continue
    t = dict(zip(head, f))
    mine = [r for r in rows if r["variant"] == t["variant"] and r["pattern"] == t["pattern"]]
    if not mine:
        continue
    cells += 1
    ops = sum(int(r["ops"]) for r in mine)
    cpu = sum(int(r["cpu_user_ns"]) + int(r["cpu_sys_ns"]) for r in mine)
    if not close(t["cpu"], cpu / ops):
        bad.append("%s %s cpu: table %s, rows %.1f" % (t["variant"], t["pattern"], t["cpu"], cpu / ops))
    probed = [r for r in mine if r["futex_syscalls"] != ""]
    if loaded and len(probed) != len(mine):
        bad.append("%s %s: %d of %d rows counted" % (t["variant"], t["pattern"], len(probed), len(mine)))
    if not probed:
        if any(t[k] != "-" for k, _, _ in kern):
            bad.append("%s %s: kernel columns without counts: %s" % (t["variant"], t["pattern"], line.strip()))
        continue
    counted += 1
    pops = sum(int(r["ops"]) for r in probed)
    for k, col, scale in kern:
        want = scale * sum(int(r[col]) for r in probed) / pops
        if not close(t[k], want):
            bad.append("%s %s %s: table %s, rows %.4f" % (t["variant"], t["pattern"], k, t[k], want))
    if any(close(t[k], 0) for k in ("futex", "waits")):
        bad.append("%s %s: no futex call counted: %s" % (t["variant"], t["pattern"], line.strip()))
print(("ok " if not bad and cells else "") + "%d cells, %d with kernel counts%s" %
      (cells, counted, "" if loaded else " (collector off)"))
for b in bad:
    print("    " + b)
sys.exit(1 if bad or not cells else 0)
PYEOF
}

for args in "--variant nosuch" "--pattern nosuch" "--seconds 0" "--seconds x" \
	    "--rep-seconds" "--rep-seconds 0" "--rep 0" "--text dso" "--text span:libc.so.6" \
	    "--stranded-ms 0" "--stall-us -1" "--spin-us -1" "--interval-us 5" "stray" \
	    "--variant glibc,glibc" "--pattern herd,,steal" "--policy lazy" "--policy spin:0" \
	    "--policy park,adaptive" "--policy adaptive --variant glibc,cxx-gnu"; do
	$fx hunt $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "bad input '$args': exit 2, one line" \
		eval '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]'
done

# The old names: the hunt runs, and says once per name what it is now.
$fx hunt --variant negcount --pattern preempt --seconds 0.2 --rep 0.1 --spin-us 5 --no-probes \
	--quiet --csv "$tmp/o.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "old names --rep, --spin-us: exit 0, one note each (--quiet: no progress line)" \
	eval '[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] &&
	 grep -q "^futexlab: hunt: --rep is now --rep-seconds" "$tmp/err" &&
	 grep -q "^futexlab: hunt: --spin-us is now --stall-us" "$tmp/err"'
check "old names: their values applied (reps of 0.100 s, stall 5 us)" \
	eval 'grep -q "reps of 0.100 s, .*stall 5 us per hit" "$tmp/o.csv"'

# The mutant: steal's post(2) waves owe two wakes, the mutant makes one. A
# 1 s hunt usually lands in the race, but on a loaded machine it may not:
# hunt again (1 s per pattern each time) until it does, up to 60 s of
# hunting — the finding is the state waited for, the bound generous; a
# miss past it prints the time taken and the load.
t0=$(now_ms) tries=0
while :; do
	tries=$((tries + 1))
	$hm --variant mut_neg_wake_one --pattern steal,herd --seconds 1 \
		--csv "$tmp/m.csv" >"$tmp/m.out" 2>&1
	rc=$?
	grep -q "^mut_neg_wake_one: LOST WAKEUP" "$tmp/m.out" && break
	[ $rc -eq 0 ] && [ $(( $(now_ms) - t0 )) -lt 60000 ] || break
done
took=$(( $(now_ms) - t0 ))
check "mutant hunt: exit 0 (a finding is a result)" eval '[ $rc -eq 0 ]'
check "mutant: LOST WAKEUP verdict (hunt $tries of 1 s per pattern, $took ms)" \
	eval 'grep -q "^mut_neg_wake_one: LOST WAKEUP" "$tmp/m.out" ||
	 { echo "    not found in $tries hunts, $took ms (bound 60 s); load $(cat /proc/loadavg)"; false; }'
check "mutant: a stranded row with the detector's evidence" \
	eval 'grep -qE "^mut_neg_wake_one,(herd|steal),[0-9]*,[0-9]*,[0-9]*,0,0,[1-9][0-9]*,[1-9][0-9]*,stranded,\"lost wakeup: semaphore #" "$tmp/m.csv"'
check "mutant: first evidence in the table" \
	eval 'grep -qE "^mut_neg_wake_one +(herd|steal) .*rep [0-9]+, after [0-9]+ ops: lost wakeup" "$tmp/m.out"'
[ $fail -eq 0 ] || cat "$tmp/m.out"
# Its control (the mutant without the mutation), the same 1 s hunt: clean.
$hm --variant ctl_negcount --pattern steal,herd --seconds 1 --csv "$tmp/k.csv" >"$tmp/k.out" 2>&1
rc=$?
check "control: exit 0" eval '[ $rc -eq 0 ]'
check "control: clean" eval 'grep -q "^ctl_negcount: clean" "$tmp/k.out"'
check "control: no stranded row" eval '[ "$(count_rows "$tmp/k.csv" True)" -ge 2 ] && ! grep -q ",stranded,\"" "$tmp/k.csv"'
[ $fail -eq 0 ] || cat "$tmp/k.out"

# Correct designs, a short hunt.
$fx hunt --variant glibc,negcount,musl-libc --seconds 0.5 --csv "$tmp/c.csv" >"$tmp/c.out" 2>&1
rc=$?
check "short hunt: exit 0" eval '[ $rc -eq 0 ]'
check "glibc: clean" eval 'grep -q "^glibc: clean" "$tmp/c.out"'
check "negcount: clean" eval 'grep -q "^negcount: clean" "$tmp/c.out"'
check "no stranded row" eval '! grep -q ",stranded,\"" "$tmp/c.csv"'
# Off a terminal (here a file), progress is a line per design and pattern
# done, at most one each 5 s, and always the last: "hunt N/N done".
check "progress off a terminal: the last line says every cell is done" \
	eval 'grep -qE "^futexlab: progress: hunt ([0-9]+)/\1 done after [0-9]+s \(" "$tmp/c.out"'
# landed DESIGN: the preemption's in-text hits, from the short hunt, or, if
# none landed there (a signal lands in library text only by chance: glibc's
# sem code is small, and a loaded machine once gave 0 of 95 in the 0.5 s),
# from more preempt hunts of 1 s until one lands, up to 60 s — each of them
# clean too. Prints "HITS TRIES MS".
landed() {
	local h t0 tries=0
	h=$(hits "$tmp/c.out" "$1" preempt) t0=$(now_ms)
	while [ "${h:-0}" -eq 0 ] && [ $(( $(now_ms) - t0 )) -lt 60000 ]; do
		tries=$((tries + 1))
		$fx hunt --variant "$1" --pattern preempt --seconds 1 >"$tmp/p.out" 2>&1
		grep -q "^$1: clean" "$tmp/p.out" || { cat "$tmp/p.out" >&2; echo "-1 $tries 0"; return; }
		h=$(hits "$tmp/p.out" "$1" preempt)
	done
	echo "${h:-0} $tries $(( $(now_ms) - t0 ))"
}
for d in "glibc glibc's sem code" "negcount negcount's code"; do
	read -r h n took < <(landed "${d%% *}")
	check "${d%% *} preempt: signals landed in ${d#* } ($h hits; $n more hunts)" \
		eval '[ "$h" -gt 0 ] || { echo "    none landed in $n more hunts, $took ms (bound 60 s); load $(cat /proc/loadavg)"; false; }'
done
if grep -qE "^musl-libc +herd +- " "$tmp/c.out"; then
	# musl-libc's cells did not run: its helper is not built (no musl-gcc)
	cells=8
	skip "musl-libc hunt (clean, preemption in musl's text in its helper): $(grep -m1 -E '^musl-libc ' "$tmp/c.out" | sed 's/.*skipped: //')"
else
	cells=12
	check "musl-libc: clean" eval 'grep -q "^musl-libc: clean" "$tmp/c.out"'
	read -r h n took < <(landed musl-libc)
	check "musl-libc preempt: signals landed in musl's sem code, in its helper ($h hits; $n more hunts)" \
		eval '[ "$h" -gt 0 ] || { echo "    none landed in $n more hunts, $took ms (bound 60 s); load $(cat /proc/loadavg)"; false; }'
fi
check "a CSV row per rep (>= 1 per cell that ran: $cells)" eval '[ "$(count_rows "$tmp/c.csv" True)" -ge $cells ]'
[ $fail -eq 0 ] || cat "$tmp/c.out"
# The CPU and kernel columns: the table's figures from the rows. The
# kernel's need the collector: not root, or the collector's own reason on
# stderr (no BPF), is one SKIP line and the '-' cells checked instead; a
# root hunt that counted nothing without saying why fails.
got=$(columns "$tmp/c.out" "$tmp/c.csv")
rc=$?
check "short hunt: cpu ns and the kernel columns per op, from the CSV rows: ${got%%$'\n'*}" \
	eval '[ $rc -eq 0 ] || { echo "$got"; false; }'
if grep -q "^# probes: every rep" "$tmp/c.csv"; then
	check "short hunt: the legend says the collector counted every rep" \
		eval 'grep -q "^in every rep (its cost is in cpu ns)" "$tmp/c.out"'
elif [ "$(id -u)" != 0 ] || grep -q "^futexlab: probes off: " "$tmp/c.out"; then
	skip "the kernel columns' figures: $(grep -m1 "^# probes:" "$tmp/c.csv")"
	check "short hunt, collector off: the legend says why" \
		eval 'grep -q "the eBPF collector is$" "$tmp/c.out"'
else
	check "short hunt: the collector counted (root, no reason given why not): $(grep -m1 "^# probes:" "$tmp/c.csv")" false
fi
[ $fail -eq 0 ] || cat "$tmp/c.out"
# --no-probes: the kernel columns '-', the legend saying so, the probe
# cells of the CSV empty, the CPU per op still there.
$fx hunt --variant negcount --pattern steal --seconds 0.2 --no-probes --csv "$tmp/n.csv" >"$tmp/n.out" 2>&1
rc=$?
got=$(columns "$tmp/n.out" "$tmp/n.csv")
crc=$?
check "--no-probes: exit 0, cpu ns from the rows, the kernel columns '-': ${got%%$'\n'*}" \
	eval '[ $rc -eq 0 ] && [ $crc -eq 0 ] && grep -qE "^negcount +steal +1 +[0-9.k]+ +[0-9.]+ +[0-9.]+ +(- +){7}- +0 *$" "$tmp/n.out" ||
	 { echo "$got"; cat "$tmp/n.out"; false; }'
check "--no-probes: the legend and the CSV say the collector is off" \
	eval 'grep -q "^off (--no-probes)$" "$tmp/n.out" && grep -q "^# probes: off: --no-probes$" "$tmp/n.csv"'

# --policy spin:20: negcount hunted as negcount@spin:20, glibc as itself.
$fx hunt --policy spin:20 --variant negcount,glibc --pattern steal --seconds 0.2 --rep-seconds 0.1 \
	--csv "$tmp/pol.csv" >"$tmp/pol.out" 2>&1
rc=$?
check "--policy spin:20: exit 0, the policy in the banner and the CSV's metadata" \
	eval '[ $rc -eq 0 ] && grep -q "^futexlab hunt .*, policy spin:20$" "$tmp/pol.out" &&
	 grep -q "^# policy: spin:20 " "$tmp/pol.csv"'
check "--policy spin:20: table and verdict of negcount@spin:20, glibc as glibc" \
	eval 'grep -qE "^negcount@spin:20 +steal +[1-9]" "$tmp/pol.out" && grep -qE "^glibc +steal +[1-9]" "$tmp/pol.out" &&
	 grep -q "^negcount@spin:20: clean" "$tmp/pol.out" && grep -q "^glibc: clean" "$tmp/pol.out"'
check "--policy spin:20: the CSV rows by label" \
	eval 'grep -q "^negcount@spin:20,steal,1," "$tmp/pol.csv" && grep -q "^glibc,steal,1," "$tmp/pol.csv" &&
	 ! grep -q "^negcount,steal," "$tmp/pol.csv"'
[ $fail -eq 0 ] || cat "$tmp/pol.out"

# Ctrl-C keeps what finished. Interrupt once two reps are in the CSV (the
# state, not a sleep; reps are 0.5 s: 60 s is generous).
$fx hunt --variant glibc --pattern steal --seconds 60 --csv "$tmp/i.csv" >"$tmp/i.out" 2>&1 &
pid=$!
t0=$(now_ms) before=0
while :; do
	[ -s "$tmp/i.csv" ] && before=$(count_rows "$tmp/i.csv" True)
	[ "$before" -ge 2 ] && break
	if [ $(( $(now_ms) - t0 )) -gt 60000 ] || ! kill -0 $pid 2>/dev/null; then
		echo "    $before rows in the CSV after $(( $(now_ms) - t0 )) ms (bound 60 s); load $(cat /proc/loadavg)"
		break
	fi
	sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C: exit 130" eval '[ $rc -eq 130 ]'
check "Ctrl-C: the table and INTERRUPTED" \
	eval 'grep -q "^glibc        steal" "$tmp/i.out" && grep -q "hunt INTERRUPTED" "$tmp/i.out"'
check "Ctrl-C: the finished reps' rows kept ($before before the interrupt)" \
	eval '[ "$before" -ge 2 ] && [ "$(count_rows "$tmp/i.csv" True)" -ge "$before" ]'

finish -s hunt
