#!/usr/bin/env bash
# examples/pgbench.sh [SECONDS] [CLIENTS] — a real multi-process server from
# Debian with its own client and a fixed duration: PostgreSQL (package
# `postgresql`, installed by scripts/setup) driven by its pgbench.
#
# One run: a fresh copy of a cached, initialised cluster ($TMPDIR, made on
# the first run: initdb + `pgbench -i`, scale 1); `pg_ctl start`, whose
# postmaster leaves the caller's session (setsid) and forks its backends and
# auxiliary processes; pgbench's TPC-B-like transactions for SECONDS
# (default 3) from CLIENTS connections (default 8) on 2 threads; `pg_ctl
# stop`. As root the server runs as the `postgres` user (it refuses root),
# so its processes change user. Its backends sleep on unnamed POSIX
# semaphores in the server's shared memory (sem_init pshared=1: Debian's
# PostgreSQL 15 is built with unnamed POSIX semaphores) when they wait for a
# lightweight lock or a heavyweight one.
#
# pgbench prints `tps = N (without initial connection time)`: that is the
# figure to compare,
#   futexlab exec --metric 'tps = ([0-9.]+) \(without' --higher-is-better -- examples/pgbench.sh
# (results/exec/run.sh does). Durability is off (fsync, synchronous_commit,
# full_page_writes): the disk is not what is measured. Exit status: pgbench's,
# or 1 when the server does not start or stop.
set -euo pipefail
secs=${1:-3}
clients=${2:-8}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ] || [ ! -x "$bin/postgres" ]; then
	echo "pgbench.sh: no PostgreSQL server in /usr/lib/postgresql (scripts/setup installs it)" >&2
	exit 1
fi
# The server's user: root runs it as `postgres`, anyone else as themselves.
if [ "$(id -u)" -eq 0 ]; then
	owner=postgres
	as() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
else
	owner=$(id -un)
	as() { "$@"; }
fi
tmp=${TMPDIR:-/tmp}
cache="$tmp/futexlab-pgbench-$owner"
opts="-c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
opts="$opts -c max_connections=$((clients + 10)) -c shared_buffers=32MB"

# The cached cluster, made once (about 3 s); a new copy per run.
if [ ! -f "$cache/ready" ]; then
	rm -rf "$cache.new"
	mkdir -p "$cache.new"
	chown "$owner" "$cache.new"
	as "$bin/initdb" -D "$cache.new" -A trust -U postgres >/dev/null
	as "$bin/pg_ctl" -D "$cache.new" -o "$opts -k $cache.new -p 5499" -w -s start >/dev/null
	as "$bin/pgbench" -h "$cache.new" -p 5499 -U postgres -i -q -s 1 postgres >/dev/null 2>&1
	as "$bin/pg_ctl" -D "$cache.new" -w -s stop >/dev/null
	touch "$cache.new/ready"
	rm -rf "$cache"
	mv "$cache.new" "$cache"
fi
data=$(mktemp -d "$tmp/futexlab-pg-XXXXXX")
cleanup() { rm -rf "$data"; }
trap cleanup EXIT
cp -a "$cache/." "$data/"
rm -f "$data/ready" "$data/postmaster.pid"
chown -R "$owner" "$data"
# A port of its own (the socket lives in the data directory anyway).
port=$((20000 + $$ % 20000))
if ! as "$bin/pg_ctl" -D "$data" -o "$opts -k $data -p $port" -l "$data/log" -w -s start; then
	echo "pgbench.sh: the server did not start: $(tail -n 1 "$data/log" 2>/dev/null)" >&2
	exit 1
fi
rc=0
as "$bin/pgbench" -h "$data" -p "$port" -U postgres -c "$clients" -j 2 -T "$secs" -M prepared \
	postgres 2>&1 | grep -E '^(tps|number of transactions actually|latency average)' || rc=$?
as "$bin/pg_ctl" -D "$data" -m fast -w -s stop || rc=1
exit "$rc"
