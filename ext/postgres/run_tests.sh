#!/usr/bin/env bash
# run_tests.sh — the extension's tests against a throwaway PostgreSQL cluster
# (pg_cluster.sh: DESTDIR install, cluster as the postgres user in a temp
# dir, Unix socket there, extension_destdir):
#   1. pg_regress (make installcheck) with toid in shared_preload_libraries,
#   2. the concurrency test: 8 connections x 100,000 rows,
#   3. pg_regress again after a restart without preloading.
# Removes everything it made. Exit 77 (skip) only when PostgreSQL's server
# programs are missing.
#
# usage: run_tests.sh BUILD_DIR [make arguments...]
#   BUILD_DIR: where the extension was built (make runs there)
set -euo pipefail
src_dir=$(dirname "$(readlink -f "$0")")
. "$src_dir/pg_cluster.sh"

build_dir=$1
shift
cluster_create "$build_dir" "$@"
# speed, not durability: the cluster is thrown away
# the node claims' registry: the test's own (as toid.claim names it)
mkdir -m 2770 "$pg_tmp/registry" && chown postgres "$pg_tmp/registry"
fast="toid.claim = 'local=$pg_tmp/registry'
fsync = off
synchronous_commit = off
full_page_writes = off
toid.node = 7"

status=0
installcheck() {  # $@: the tests
    if ! make -C "$build_dir" "$@" installcheck REGRESS="$TESTS"; then
        cat "$build_dir/regression.diffs" 2>/dev/null || true
        status=1
    fi
}

# 1. preloaded: one shared generator per format for the whole cluster
cluster_start "$pg_preload" "$fast"
TESTS="io ops casts functions errors fuzz_input time_spans at_time uuid_any gen_preloaded" installcheck "$@"

# 2. concurrency: 8 connections, 100,000 rows each, one table, primary key
PSQL="$pg_bindir/psql" "$src_dir/concurrency_test.sh" || status=1

# 3. not preloaded: per-backend generators, node formats refused
cluster_stop
cluster_start "" "$fast"
TESTS="gen_backend" installcheck "$@"

if [ $status = 0 ]; then echo "PostgreSQL extension tests: all passed"; fi
exit $status
