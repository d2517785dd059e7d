#!/usr/bin/env bash
# pgxs_test.sh — the extension built the way a PGXS user builds it, without
# CMake: the tree's tracked files (include/, src/, claim/, ext/postgres/)
# copied to an empty directory, `make PG_CONFIG=...` in ext/postgres there
# (libtoid and the claim library compiled from their sources), `make
# install` into a DESTDIR, then a throwaway cluster (pg_cluster.sh) that
# creates the extension from it: its version is the project's, IDs are made
# and read, and the regression tests io, ops and functions pass.
#   usage: pgxs_test.sh SOURCE_DIR PROJECT_VERSION PG_CONFIG
# Exit 77 (skip) only when PostgreSQL's server programs are missing.
set -euo pipefail
src=$(readlink -f "$1") version=$2 pg_config=$3
here=$(dirname "$(readlink -f "$0")")

copy=$(mktemp -d /tmp/toid-pgxs.XXXXXX)
trap 'rm -rf "$copy"' EXIT
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$src" ls-files -z include src claim ext/postgres | (cd "$src" && tar --null -T - -cf -) |
        tar -xf - -C "$copy"
else
    cp -r "$src/include" "$src/src" "$src/claim" "$copy/"
    mkdir -p "$copy/ext" && cp -r "$src/ext/postgres" "$copy/ext/"
fi
chmod -R a+rX "$copy"
make -s -C "$copy/ext/postgres" -j2 PG_CONFIG="$pg_config" PG_CFLAGS=-Werror >"$copy/make.log" 2>&1 ||
    { cat "$copy/make.log"; echo "FAIL: make in ext/postgres, without CMake"; exit 1; }
echo "built with PGXS alone: $(ls "$copy/ext/postgres/toid.so")"

. "$here/pg_cluster.sh"
trap 'cluster_cleanup; rm -rf "$copy"' EXIT
cluster_create "$copy/ext/postgres" PG_CONFIG="$pg_config"
cluster_start ""
out=$("$pg_bindir/psql" -XAtq -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION toid' \
    -c "SELECT extversion FROM pg_extension WHERE extname = 'toid'" \
    -c "SELECT ulid_new() < ulid_new()" \
    -c "SELECT ulid_time('01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid) AT TIME ZONE 'UTC'")
expected="$version
t
2016-07-30 23:54:10.259"
if [ "$out" != "$expected" ]; then
    printf 'FAIL: the extension from the PGXS build:\n%s\nexpected:\n%s\n' "$out" "$expected"
    exit 1
fi
echo "CREATE EXTENSION toid: version $version, IDs made and read"
make -s -C "$copy/ext/postgres" PG_CONFIG="$pg_config" installcheck REGRESS="io ops functions" ||
    { cat "$copy/ext/postgres/regression.diffs" 2>/dev/null; echo "FAIL: installcheck"; exit 1; }
echo "pgxs: ok"
