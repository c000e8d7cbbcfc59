#!/usr/bin/env bash
# tests/shim/channel.sh PRELOAD_SO STATPROG EXITPROG LOGCAT
# The report channel's client: FUTEXLAB_LOG=@NAME sends each logline to the
# abstract SOCK_SEQPACKET socket NAME, one message per connection, and
# waits for the server's ack (channel_server.py, a stand-in for exec's).
# Checks: statprog's two loglines (parent, forked child) arrive, each one
# message ending in its newline, parsed by the published parser, each
# sent by a process still there, blocked for the ack; an _exit'ing process
# reports; a process that changed user (setpriv, when root) reports; a
# usage error's line comes the same way (exit 2); with no server the program
# runs as ever, nothing on stderr.
set -u
so=$1 statprog=$2 exitprog=$3 logcat=$4
python=/usr/bin/python3
[ -x $python ] || { echo "SKIP: $python not installed (the test's server)"; exit 77; }
here=$(dirname "$0")
tmp=$(mktemp -d)
name="futexlab-test-$$-$RANDOM"
$python "$here/channel_server.py" "$name" "$tmp/got" "$tmp/ready" 2>"$tmp/server.err" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
[ -e "$tmp/ready" ] || { echo "FAIL: the test's server did not start: $(cat "$tmp/server.err")"; exit 1; }
fail=0
bad() { echo "FAIL $*"; fail=1; }
shim() { env -u FUTEXLAB_DEBUG FUTEXLAB_LOG="@$name" LD_PRELOAD="$so" "$@"; }
# the lines a run sent, as a log file for logcat; no GONE, no NONL
lines() { # label want
  if grep -q "^GONE" "$tmp/got"; then bad "$1: the sender was gone before the ack: $(grep -A1 ^GONE "$tmp/got")"; fi
  if grep -q "^NONL" "$tmp/got"; then bad "$1: a message that is not one line: $(grep ^NONL "$tmp/got")"; fi
  sed -n 's/^LINE [0-9]* //p' "$tmp/got" >"$tmp/log"
  "$logcat" "$tmp/log" >"$tmp/rep" || bad "$1: a line does not parse: $(cat "$tmp/log")"
  local n; n=$(grep -c '^R ' "$tmp/rep")
  [ "$n" -eq "$2" ] || bad "$1: $n loglines, want $2: $(cat "$tmp/got")"
}

: >"$tmp/got"
shim FUTEXLAB_VARIANT=negcount FUTEXLAB_STATS=1 "$statprog" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] || bad "statprog: exit $rc, stderr $(head -3 "$tmp/err")"
lines statprog 2
# the pids the lines say are the senders' (SO_PEERCRED)
awk '$1 == "LINE" { split($0, a, " pid="); split(a[2], b, " "); if (b[1] != $2) exit 1 }' "$tmp/got" ||
  bad "statprog: a line's pid is not its sender's: $(cat "$tmp/got")"
[ $fail -eq 0 ] && echo "ok   statprog: 2 loglines over the channel, each one message, its sender blocked for the ack"

: >"$tmp/got"
shim FUTEXLAB_VARIANT=negcount "$exitprog" _exit 2>"$tmp/err"
lines "exitprog _exit" 1
[ $fail -eq 0 ] && echo "ok   exitprog _exit: its logline over the channel"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  : >"$tmp/got"
  shim FUTEXLAB_VARIANT=negcount setpriv --reuid=65534 --regid=65534 --clear-groups "$exitprog" _Exit
  [ $? -eq 3 ] || bad "exitprog as uid 65534: exit status"
  lines "as uid 65534" 1
  [ $fail -eq 0 ] && echo "ok   a process that changed user (setpriv uid 65534) reports over the channel"
else
  echo "SKIP a process that changed user: not root, or no setpriv"
fi

: >"$tmp/got"
shim FUTEXLAB_VARIANT=nosuch "$exitprog" _exit 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "^LINE [0-9]* futexlab-preload: unknown variant 'nosuch'" "$tmp/got"; then
  bad "usage error: exit $rc, channel: $(cat "$tmp/got")"
else
  echo "ok   usage error: exit 2, its line over the channel"
fi

env -u FUTEXLAB_DEBUG FUTEXLAB_LOG="@$name-nobody" LD_PRELOAD="$so" "$statprog" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
  bad "no server: exit $rc, stderr '$(head -2 "$tmp/err")'"
else
  echo "ok   no server: the program runs as ever, nothing on stderr"
fi
exit $fail
