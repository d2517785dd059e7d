#!/usr/bin/env bash
# run_tests.sh — the extension's tests against throwaway PostgreSQL clusters:
# installs into a DESTDIR tree, creates a cluster as the postgres user
# (PostgreSQL refuses root) in a temp dir with its Unix socket there, points
# it at the tree with Debian's extension_destdir, and runs
#   1. pg_regress (make installcheck) with toid in shared_preload_libraries,
#   2. the concurrency test: 8 connections x 100,000 rows,
#   3. pg_regress again after a restart without preloading.
# Removes everything it made. Exit 77 (skip) only when PostgreSQL's server
# programs are missing.
#
# usage: run_tests.sh BUILD_DIR [make arguments...]
#   BUILD_DIR: where the extension was built (make runs there)
set -euo pipefail

build_dir=$1
shift
make_args=("$@")
pg_config=${PG_CONFIG:-pg_config}
for a in "${make_args[@]}"; do
    case $a in PG_CONFIG=*) pg_config=${a#PG_CONFIG=} ;; esac
done

skip() { echo "SKIP: $*"; exit 77; }
command -v "$pg_config" >/dev/null 2>&1 || skip "pg_config not found (install postgresql-server-dev-15)"
bindir=$("$pg_config" --bindir)
for p in initdb pg_ctl postgres psql pgbench; do
    [ -x "$bindir/$p" ] || skip "$bindir/$p not found (install postgresql-15 and postgresql-contrib)"
done
id postgres >/dev/null 2>&1 || skip "no postgres user (install postgresql-15)"
if [ "$(id -u)" = 0 ]; then
    as_pg() { runuser -u postgres -- "$@"; }
elif [ "$(id -un)" = postgres ]; then
    as_pg() { "$@"; }
else
    skip "run as root (uses runuser -u postgres) or as postgres"
fi

tmp=$(mktemp -d /tmp/toid-pg.XXXXXX)
chmod 755 "$tmp"
pidfile=$tmp/data/postmaster.pid
stop_server() {
    [ -f "$pidfile" ] || return 0
    local pid
    pid=$(head -1 "$pidfile")
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; return 0; }
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
}
cleanup() {
    stop_server
    rm -rf "$tmp"
}
trap cleanup EXIT

umask 022
make -C "$build_dir" "${make_args[@]}" install DESTDIR="$tmp/dest" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
mkdir -p "$tmp/data" "$tmp/sock" "$tmp/log"
chown postgres "$tmp/data" "$tmp/sock" "$tmp/log"
as_pg "$bindir/initdb" -D "$tmp/data" -A trust -U postgres -E UTF8 --locale=C --no-sync >"$tmp/initdb.log" 2>&1 ||
    { cat "$tmp/initdb.log"; exit 1; }

# The socket lives in our own directory, so any port number is free there;
# a random one keeps two runs of this script apart in logs.
port=$((20000 + RANDOM % 40000))
pkglibdir=$("$pg_config" --pkglibdir)
cat >>"$tmp/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$tmp/sock'
extension_destdir = '$tmp/dest'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 40
toid.node = 7
CONF

start_server() {  # $1: shared_preload_libraries value
    sed -i '/^shared_preload_libraries/d' "$tmp/data/postgresql.conf"
    echo "shared_preload_libraries = '$1'" >>"$tmp/data/postgresql.conf"
    as_pg "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/log/server.log" -w -t 60 start >/dev/null ||
        { cat "$tmp/log/server.log"; exit 1; }
}

export PGHOST=$tmp/sock PGPORT=$port PGUSER=postgres
status=0
installcheck() {  # $@: the tests
    if ! make -C "$build_dir" "${make_args[@]}" installcheck REGRESS="$*"; then
        cat "$build_dir/regression.diffs" 2>/dev/null || true
        status=1
    fi
}

# 1. preloaded: one shared generator per format for the whole cluster
start_server "$tmp/dest$pkglibdir/toid"
installcheck io ops casts functions errors gen_preloaded

# 2. concurrency: 8 connections, 100,000 rows each, one table, primary key
src_dir=$(dirname "$(readlink -f "$0")")
if ! PSQL="$bindir/psql" "$src_dir/concurrency_test.sh"; then
    status=1
fi

# 3. not preloaded: per-backend generators, node formats refused
stop_server
start_server ""
installcheck gen_backend

if [ $status = 0 ]; then echo "PostgreSQL extension tests: all passed"; fi
exit $status
