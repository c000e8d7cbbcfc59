#!/usr/bin/env bash
# tests/test_fleet.sh — the fleet run (fleet/, scripts/fleet) end to end over
# ssh, on hosts this test makes on this machine: h1 and h2, each an sshd of
# its own (its own config, host key and port, root login by a throwaway
# key, no PAM) on a loopback address of its own (127.0.0.2, 127.0.0.3), in
# a UTS namespace of its own (`hostname` in a session prints h1 or h2) and
# on CPUs of its own (h1: CPU 0, h2: CPUs 0-1, by the sshd's affinity,
# which every session inherits); and h3, an address where nothing listens.
#
# Run A, scripts/fleet with a short quick sweep (negcount and glibc, 2
# rounds) and fleet_setup=false: h1 and h2 ok, h3 one "unreachable" line,
# exit 1; each host's CSV, text tables, facts, machine and busy files back
# in a scratch results dir (never the tree's), each CSV with its host's
# name (# host:), its CPUs (# cores:) and the revision shipped; both in
# the store as two machines of distinct fingerprints; each host's tree in
# its own work dir. Run B, the failures, each one line, the others going
# on: h1 whose sweep refuses its options (run failed), h2 whose lock this
# test holds (busy), hb (h2's sshd under another name, its work dir h2's)
# whose build cannot make its target (build failed); nothing of run A lost, nothing added to
# the store. Then the teardown: the sshds, their sessions and Ansible's ssh
# masters gone, nothing of the test left running.
#
# The hosts build the tree at HEAD (fleet/archive: a revision, never the
# work tree's edits). The machine is shared, so the hosts' sweeps measure
# noise and are marked busy (fleet_busy_ok: measured anyway). 2-2.5 min on
# the 2-vCPU VM (two builds, one of them on one CPU; 4.5 at a load of 7). Skips (77, why) when
# not root, without sshd, unshare, taskset, flock or ansible-playbook,
# without UTS namespaces, on fewer than 2 CPUs, or outside a git checkout.
# Usage: test_fleet.sh path/to/futexlab
set -u
. "$(dirname "$0")/lib.sh"
fl=$1
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || skip_test fleet "not root (an sshd of its own and unshare --uts need root)"
for c in /usr/sbin/sshd ssh ssh-keygen unshare taskset flock ansible-playbook git python3; do
  command -v "$c" >/dev/null || skip_test fleet "no $c (scripts/setup installs openssh-server, ansible-core)"
done
[ "$(nproc)" -ge 2 ] || skip_test fleet "fewer than 2 CPUs: no host of two CPUs beside one of one"
unshare --uts true 2>/dev/null || skip_test fleet "no UTS namespace here (unshare --uts)"
rev=$(git -C "$top" describe --always HEAD 2>/dev/null) || skip_test fleet "not a git checkout: the fleet ships a revision"

scratch t fleet
pids=() ns=() made_run_sshd=
# teardown: Ansible's ssh masters, the sshds, everything in their UTS
# namespaces (their sessions); says nothing — the check below does
teardown() {
  local s p
  for s in "$t"/cp/*; do [ -S "$s" ] && ssh -o ControlPath="$s" -O exit x >/dev/null 2>&1; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in $(inns); do kill "$p" 2>/dev/null; done
  for _ in $(seq 50); do [ -z "$(inns)$(mine)" ] && break; sleep 0.1; done
  for p in $(inns) $(mine); do kill -9 "$p" 2>/dev/null; done
  pids=()
}
# the processes in the hosts' UTS namespaces; those whose command line names $t
inns() {
  local p n
  [ ${#ns[@]} -gt 0 ] || return 0
  for p in /proc/[0-9]*; do
    n=$(readlink "$p/ns/uts" 2>/dev/null) || continue
    case " ${ns[*]} " in *" $n "*) echo "${p#/proc/}" ;; esac
  done
}
mine() { pgrep -f -- "$t/" | grep -vx "$$" || true; }
on_exit() { teardown; [ -n "$made_run_sshd" ] && rmdir /run/sshd 2>/dev/null; }

ssh-keygen -q -t ed25519 -N '' -C fleet-test -f "$t/key" && cp "$t/key.pub" "$t/authorized_keys"
[ -d /run/sshd ] || { mkdir -p /run/sshd && made_run_sshd=1; }  # sshd's privilege separation dir

# up NAME ADDR CPUS: an sshd on ADDR, on a free port ($port after), in a
# UTS namespace named NAME, on CPUS; 1 when it would not listen
up() {
  local name=$1 addr=$2 cpus=$3 d=$t/$1 pid
  mkdir -p "$d" && ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$d/hostkey"
  for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 20000))
    cat >"$d/sshd_config" <<EOF
Port $port
ListenAddress $addr
HostKey $d/hostkey
PidFile $d/sshd.pid
UsePAM no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $t/authorized_keys
StrictModes no
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
    # unshare and sh exec: $! is the sshd itself
    unshare --uts sh -c "hostname $name && exec taskset -c $cpus /usr/sbin/sshd -D -e -f $d/sshd_config" \
      >"$d/log" 2>&1 &
    pid=$!
    for _ in $(seq 50); do grep -q "Server listening" "$d/log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if grep -q "Server listening" "$d/log"; then
      pids+=("$pid"); ns+=("$(readlink "/proc/$pid/ns/uts")")
      echo "[$addr]:$port $(cat "$d/hostkey.pub")" >>"$t/known_hosts"
      return 0
    fi
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  done
  echo "sshd for $name would not listen: $(tail -n2 "$d/log")"
  return 1
}
up h1 127.0.0.2 0 && p1=$port && up h2 127.0.0.3 0-1 && p2=$port || { bad "two sshds up"; finish fleet; }
ok "two sshds up: h1 on 127.0.0.2:$p1 (CPU 0), h2 on 127.0.0.3:$p2 (CPUs 0-1)"
s=$(ssh -i "$t/key" -o UserKnownHostsFile="$t/known_hosts" -o BatchMode=yes -p "$p1" root@127.0.0.2 \
      'hostname; nproc' 2>&1 | tr '\n' ' ')
[ "$s" = "h1 1 " ] && ok "a session on h1: its host name and 1 CPU" || bad "a session on h1 says '$s'"

vars="ansible_user=root
ansible_ssh_private_key_file=$t/key
ansible_ssh_common_args='-o UserKnownHostsFile=$t/known_hosts -o ConnectTimeout=5'
ansible_python_interpreter=/usr/bin/python3
fleet_setup=false
fleet_root=$t/hosts
fleet_lock=$t/fleet.lock
fleet_busy_ok=true"
printf '[fleet]\nh1 ansible_host=127.0.0.2 ansible_port=%s\nh2 ansible_host=127.0.0.3 ansible_port=%s\nh3 ansible_host=127.0.0.4 ansible_port=%s\n\n[fleet:vars]\n%s\n' \
  "$p1" "$p2" "$p1" "$vars" >"$t/a.ini"
# Ansible's ssh masters and remote temp files under $t (the teardown finds
# them there); pipelining: a module per ssh round trip, not three
export FUTEXLAB=$fl ANSIBLE_SSH_CONTROL_PATH_DIR=$t/cp ANSIBLE_REMOTE_TEMP=$t/remote-tmp ANSIBLE_PIPELINING=1
res=$t/res db=$t/fleet.db

# ---- run A: two hosts measured, one unreachable
"$top/scripts/fleet" "$t/a.ini" --out "$res" --db "$db" -- --variants negcount,glibc --rounds 2 \
  --probe-rounds 1 >"$t/a.out" 2>"$t/a.err"
rc=$?
cat "$t/a.out" "$t/a.err"
[ $rc = 1 ] && ok "run A: exit 1 (a host failed)" || bad "run A: exit $rc, not 1"
run=$(sed -n 's/^fleet: run \([^ ,]*\), .*/\1/p' "$t/a.out")
[ -n "$run" ] && ok "run A: named $run" || bad "run A: no 'fleet: run' line"
order=$(sed -n 's/^fleet: \(h[0-9]\): start.*/\1/p' "$t/a.out" | tr '\n' ' ')
[ "$order" = "h1 h2 h3 " ] && ok "a start line per host, in the inventory's order" || bad "start lines: '$order'"
for h in h1 h2; do
  grep -q "^fleet: $h: ok: [0-9]* rows, .*added run" "$t/a.out" && ok "$h: one ok line, added to the store" ||
    bad "$h: no ok line"
done
n=$(grep -c '^fleet: h3: ' "$t/a.out")
grep -q '^fleet: h3: unreachable: .*127.0.0.4' "$t/a.out" && [ "$n" = 2 ] &&
  ok "h3: one line, unreachable, naming its address" || bad "h3: $(grep '^fleet: h3:' "$t/a.out")"
grep -q '^fleet: summary: 2 of 3 host(s) ok' "$t/a.out" && ok "the summary: 2 of 3 ok" || bad "no summary line"

for h in h1 h2; do
  p=$res/$h/$run
  for f in csv txt facts.json machine.txt busy.txt build.log sweep.log status ansible.log; do
    [ -s "$p.$f" ] || bad "$h: no $run.$f back"
  done
  [ -s "$p.csv" ] && [ -s "$p.txt" ] && ok "$h: its CSV and text tables back in $res/$h/"
  h_line=$(sed -n 's/^# host: //p' "$p.csv")
  [ "$h_line" = "$h" ] && ok "$h: the CSV's # host: $h" || bad "$h: # host: '$h_line'"
  r_line=$(sed -n 's/^# futexlab //p' "$p.csv")
  [ "$r_line" = "$rev" ] && ok "$h: built at the revision shipped ($rev)" || bad "$h: # futexlab '$r_line', not $rev"
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d['hostname'] != sys.argv[2])" \
    "$p.facts.json" "$h" && ok "$h: its facts as JSON, hostname $h" || bad "$h: facts.json"
  grep -qx "uname -r: $(uname -r)" "$p.machine.txt" && grep -q '^Architecture:' "$p.machine.txt" &&
    ok "$h: uname -r and lscpu" || bad "$h: machine.txt: $(head -n3 "$p.machine.txt")"
  grep -qE '^(busy|quiet): other work [0-9.]+ CPUs' "$p.busy.txt" && ok "$h: the busy check recorded" ||
    bad "$h: busy.txt: $(cat "$p.busy.txt")"
  [ -f "$t/hosts/$h/$(git -C "$top" rev-parse HEAD)/build/harness/futexlab" ] &&
    ok "$h: its tree and build in its own work dir" || bad "$h: no build in $t/hosts/$h"
done
c1=$(sed -n 's/^# cores: //p' "$res/h1/$run.csv") c2=$(sed -n 's/^# cores: //p' "$res/h2/$run.csv")
case $c1 in "1 (cpus 0 of "*) ok "h1: # cores: $c1" ;; *) bad "h1: # cores: '$c1', not its one CPU" ;; esac
case $c2 in 2|"2 (cpus 0-1 of "*) ok "h2: # cores: $c2" ;; *) bad "h2: # cores: '$c2'" ;; esac
[ ! -e "$res/h3/$run.csv" ] && ok "h3: no CSV" || bad "h3: a CSV"
left=$(find "$top/results" -name "$run*" 2>/dev/null | head -n1)
[ -z "$left" ] && ok "nothing written into the tree's results/" || bad "the tree's results/ has $left"

"$fl" store ls --db "$db" >"$t/ls" 2>&1
cat "$t/ls"
fp=$(awk 'length($1) == 16 && $1 ~ /^[0-9a-f]+$/ && ($2 == "h1" || $2 == "h2") { print $2, $1 }' "$t/ls" | sort)
n=$(echo "$fp" | awk '{ print $2 }' | sort -u | grep -c .)
[ "$(echo "$fp" | awk '{ print $1 }' | tr '\n' ' ')" = "h1 h2 " ] && [ "$n" = 2 ] &&
  ok "the store: machines h1 and h2, two fingerprints" || bad "the store's machines: '$fp'"
runs=$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>/dev/null || grep -c "^[0-9]" "$t/ls")
[ "$runs" = 2 ] && ok "the store: 2 runs" || bad "the store: $runs runs"

# ---- run B: run failed, busy, build failed — one line each, the others go on
# hb is h2's sshd under another name; its work dir is a link to h2's, so
# its build fails at once, on the target, with no second tree to build
mkdir -p "$t/hosts-b" && ln -s "$t/hosts/h2" "$t/hosts-b/hb"
# the lock h2 is given, held by this shell (fd 8) for the run
: >"$t/held.lock" && exec 8<"$t/held.lock" && flock -n 8 || bad "the test cannot hold its lock"
printf '[fleet]\nh1 ansible_host=127.0.0.2 ansible_port=%s fleet_sweep_args=--no-such-option\nh2 ansible_host=127.0.0.3 ansible_port=%s fleet_lock=%s\nhb ansible_host=127.0.0.3 ansible_port=%s fleet_targets=no/such/target fleet_root=%s\n\n[fleet:vars]\n%s\n' \
  "$p1" "$p2" "$t/held.lock" "$p2" "$t/hosts-b" "$vars" >"$t/b.ini"
"$top/scripts/fleet" "$t/b.ini" --out "$res" --db "$db" >"$t/b.out" 2>"$t/b.err"
rc=$?
cat "$t/b.out" "$t/b.err"
exec 8<&-
[ $rc = 1 ] && ok "run B: exit 1" || bad "run B: exit $rc, not 1"
grep -q '^fleet: h1: run failed: futexlab sweep exited 2: .*no-such-option' "$t/b.out" &&
  ok "h1: run failed, futexlab's own line" || bad "h1: $(grep '^fleet: h1:' "$t/b.out" | tail -n1)"
grep -q "^fleet: h2: busy: another fleet benchmark holds $t/held.lock" "$t/b.out" &&
  ok "h2: busy, its lock held" || bad "h2: $(grep '^fleet: h2:' "$t/b.out" | tail -n1)"
grep -q '^fleet: hb: build failed: .*no/such/target' "$t/b.out" &&
  ok "hb: build failed, ninja's line" || bad "hb: $(grep '^fleet: hb:' "$t/b.out" | tail -n1)"
grep -q '^fleet: summary: 0 of 3 host(s) ok' "$t/b.out" && ok "the summary: 0 of 3 ok" || bad "run B: no summary"
[ -s "$res/h1/$run.csv" ] && [ -s "$res/h2/$run.csv" ] && ok "run A's files still there" || bad "run A's files lost"
runs=$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>/dev/null)
[ "$runs" = 2 ] && ok "the store: still 2 runs" || bad "the store after run B: $runs runs"

# ---- teardown: nothing left running
teardown
left=$( (inns; mine) | tr '\n' ' ')
[ -z "$left" ] && ok "torn down: no sshd, session or ssh master of the test left" ||
  bad "left running: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
finish fleet
