#!/usr/bin/env bash
# claims_test.sh — node claims of the node formats (pg_claims.c) with two
# real PostgreSQL 15 clusters on one host, toid preloaded in both, no
# toid.node anywhere: cluster A claims where the host's claim configuration
# says (TOID_CLAIM in its environment), cluster B where toid.claim says; both
# name the same registry. Then:
#   both insert nanoflakes and ulid-flake-scalables from 2 connections each:
#     different nodes (toid_claims), and no ID in both clusters;
#   B restarted with toid.node = A's node: refused (SQLSTATE 55000) naming
#     the holder, toid_claims says "refused";
#   kill -9 of A's claims worker: the cluster restarts, claims again, and
#     goes on; still no ID twice across A and B.
# (Before claims: two clusters with toid.node = 1 issued 125,916 of 200,000
# nanoflakes twice.) usage: claims_test.sh BUILD_DIR [make arguments...].
# Prints "N passed, N failed" last; exit 77 only where PostgreSQL is missing.
set -uo pipefail
src_dir=$(dirname "$(readlink -f "$0")")
. "$src_dir/pg_cluster.sh"
. "$src_dir/../../tests/check_lib.sh"

build_dir=$1
shift
set -e
cluster_create "$build_dir" "$@"
set +e
psql=$pg_bindir/psql
reg=$pg_tmp/registry
mkdir -m 2770 "$reg" && chown postgres "$reg"
# cluster B: a second data directory beside A's, on the next port
portA=$PGPORT portB=$((PGPORT + 1))
dataB=$pg_tmp/dataB
mkdir -m 0700 "$dataB" && chown postgres "$dataB"
as_pg "$pg_bindir/initdb" -D "$dataB" -A trust -U postgres -E UTF8 --locale=C --no-sync >/dev/null
sed "s/^port = .*/port = $portB/" "$pg_tmp/postgresql.conf.base" >"$dataB/postgresql.conf.base"
startB() {  # startB [EXTRA_CONF]
    { cat "$dataB/postgresql.conf.base"; echo "shared_preload_libraries = '$pg_preload'";
      echo "toid.claim = 'local=$reg'"; echo "${1:-}"; } >"$dataB/postgresql.conf"
    as_pg "$pg_bindir/pg_ctl" -D "$dataB" -l "$pg_tmp/log/serverB.log" -w -t 120 start >/dev/null
}
stopB() { as_pg "$pg_bindir/pg_ctl" -D "$dataB" -m fast -w stop >/dev/null 2>&1; }
trap 'stopB; cluster_cleanup' EXIT
q() { local port=$1; shift; "$psql" -X -q -At -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
node_of() { q "$1" -c "SELECT node FROM toid_claims WHERE format = '$2' AND state = 'held'"; }
# wait_held PORT: until both node formats are held (the worker claims after start)
wait_held() {
    for _ in $(seq 100); do
        [ "$(q "$1" -c "SELECT count(*) FROM toid_claims WHERE state = 'held'" 2>/dev/null)" = 2 ] && return 0
        sleep 0.1
    done
    return 1
}
# insert PORT SECONDS: 2 connections inserting 500 rows a statement
insert() {
    local port=$1 until=$((SECONDS + $2)) c
    for c in 1 2; do
        ( while [ $SECONDS -lt $until ]; do
              q "$port" -c "INSERT INTO t SELECT FROM generate_series(1, 500)" || exit 1
          done ) &
    done
    wait
}
# dups COLUMN: IDs of COLUMN found in both clusters (or twice in one)
dups() {
    { q $portA -c "SELECT $1::text FROM t"; q $portB -c "SELECT $1::text FROM t"; } | sort | uniq -d | wc -l
}
schema="CREATE EXTENSION toid;
CREATE TABLE t (n nanoflake UNIQUE DEFAULT nanoflake_new(), s ulid_flake_scalable UNIQUE DEFAULT ulid_flake_scalable_new())"

PG_START_ENV="TOID_CLAIM=local=$reg TOID_CLAIM_CONF=/dev/null" cluster_start "$pg_preload" ""
startB ""
q $portA -c "$schema" && q $portB -c "$schema"
check "cluster A claimed both node formats (the host's configuration)" wait_held $portA
check "cluster B claimed both node formats (toid.claim)" wait_held $portB
nA=$(node_of $portA nanoflake) nB=$(node_of $portB nanoflake)
sA=$(node_of $portA ulid-flake-scalable) sB=$(node_of $portB ulid-flake-scalable)
check "different nanoflake nodes ($nA, $nB)" eval '[ -n "$nA" ] && [ -n "$nB" ] && [ "$nA" != "$nB" ]'
check "different ulid-flake-scalable nodes ($sA, $sB)" eval '[ -n "$sA" ] && [ -n "$sB" ] && [ "$sA" != "$sB" ]'
check "the registry holds them" eval '[ -e "$reg/nanoflake-$nA.lock" ] && [ -e "$reg/nanoflake-$nB.lock" ]'
insert $portA 3 & insert $portB 3 & wait
rows=$(( $(q $portA -c "SELECT count(*) FROM t") + $(q $portB -c "SELECT count(*) FROM t") ))
check "both clusters inserted ($rows rows)" [ "$rows" -gt 4000 ]
check "no nanoflake in both clusters ($(dups n))" [ "$(dups n)" = 0 ]
check "no ulid-flake-scalable in both clusters ($(dups s))" [ "$(dups s)" = 0 ]

# B asks for A's node: refused, naming the holder
stopB
startB "toid.node = $nA"
out=$("$psql" -X -q -At -p $portB -d postgres -v VERBOSITY=verbose -c "SELECT nanoflake_new()" 2>&1)
check "B with toid.node = A's node: refused (55000), naming the holder ($(echo "$out" | tr '\n' ' ' | head -c 300))" \
    eval 'grep -q "55000" <<<"$out" && grep -q "nanoflake node $nA is in use by another process (pid [0-9]*, lock $reg/nanoflake-$nA.lock is held)" <<<"$out"'
check "toid_claims on B says refused" [ "$(q $portB -c "SELECT state FROM toid_claims WHERE format = 'nanoflake'")" = refused ]
stopB
startB ""
check "B without toid.node again: claimed" wait_held $portB

# kill -9 of A's claims worker: the cluster restarts and claims again
worker=$(pgrep -P "$(head -1 "$pg_tmp/data/postmaster.pid")" -f "toid claims")
check "A's claims worker is listed ($worker)" [ -n "$worker" ]
[ -n "$worker" ] && kill -KILL "$worker"
for _ in $(seq 100); do
    grep -q "toid claims\" (PID $worker) was terminated by signal 9" "$pg_tmp/log/server.log" && break
    sleep 0.1
done
sleep 0.5
check "after kill -9 of the worker: A claims again" wait_held $portA
insert $portA 2 & insert $portB 2 & wait
check "after kill -9 of the worker: no nanoflake twice ($(dups n))" [ "$(dups n)" = 0 ]
check "after kill -9 of the worker: no ulid-flake-scalable twice ($(dups s))" [ "$(dups s)" = 0 ]
finish
