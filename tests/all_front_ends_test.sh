#!/usr/bin/env bash
# All of toid's front ends on one host at once, no node given anywhere, one
# claim configuration for the host (TOID_CLAIM, as a deployment would set it:
# here a registry of this test's own): toidd, two `toid new` runs, a
# PostgreSQL 15 cluster with toid preloaded inserting from 4 connections, a
# sqlite3 process, a Python process and a Node process, each making
# nanoflakes (then ulid-flake-scalables) for a few seconds: every maker on a
# different node, and no ID twice. (Issue 26: each front end took node 0, or
# the node it was given, in a world of its own.)
#   usage: all_front_ends_test.sh TOID TOIDD SQLITE_MODULE PY_LIB NODE_ADDON PG_BUILD [make args...]
# (CMake registers it only when every front end is built; CI builds them
# all.) Prints "N passed, N failed".
set -uo pipefail
export LC_ALL=C
TOID=$1 TOIDD=$2 SQLITE_MOD=$3 PY_LIB=$4 NODE_ADDON=$5 PG_BUILD=$6
shift 6
here=$(dirname "$(readlink -f "$0")")
. "$here/check_lib.sh"
. "$here/../ext/postgres/pg_cluster.sh"
set -e
cluster_create "$PG_BUILD" "$@"     # (exits 77 where PostgreSQL is missing)
set +e
WORK=$pg_tmp/work
mkdir -p "$WORK"
REG=$pg_tmp/registry
mkdir -m 2770 "$REG" && chown postgres "$REG"
export TOID_CLAIM=local=$REG TOID_CLAIM_CONF=/dev/null
TPID=
trap '[ -n "$TPID" ] && kill -KILL "$TPID" 2>/dev/null; cluster_cleanup' EXIT
psql=$pg_bindir/psql

PG_START_ENV="TOID_CLAIM=$TOID_CLAIM TOID_CLAIM_CONF=/dev/null" cluster_start "$pg_preload" "synchronous_commit = off"
"$psql" -X -q -d postgres -c "CREATE EXTENSION toid" \
    -c "CREATE TABLE n (id nanoflake UNIQUE DEFAULT nanoflake_new())" \
    -c "CREATE TABLE s (id ulid_flake_scalable UNIQUE DEFAULT ulid_flake_scalable_new())"
mkdir -p "$WORK/state"
"$TOIDD" --state-dir "$WORK/state" --http 127.0.0.1:0 --resp off --formats nanoflake,ulid-flake-scalable \
    2>"$WORK/toidd.log" &
TPID=$!
HP=
for _ in $(seq 100); do
    HP=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/toidd.log" | head -1)
    [ -n "$HP" ] && break
    sleep 0.1
done
check "toidd started ($(tail -1 "$WORK/toidd.log"))" [ -n "$HP" ]

# held FORMAT: how many of FORMAT's nodes are held in the registry now
held() {
    local l n=0
    for l in "$REG/$1"-*.lock; do
        [ -e "$l" ] && ! flock -n -x "$l" true 2>/dev/null && n=$((n + 1))
    done
    echo $n
}
# gate FILE: holds its writer (a full pipe blocks it, holding its node)
# until $WORK/go exists, then writes everything to FILE
gate() {
    while [ ! -e "$WORK/go" ]; do sleep 0.05; done
    cat >"$1"
}

# round FORMAT TABLE COUNT: every maker at once, each holding its node until
# all 7 hold one; their IDs in $WORK/FORMAT.MAKER
round() {
    local f=$1 table=$2 count=$3 pids=() loops=() c
    rm -f "$WORK/go" "$WORK/done"
    ( while [ ! -e "$WORK/done" ]; do
          curl -sf --max-time 5 "127.0.0.1:$HP/v1/new/$f?count=500" || sleep 0.05
      done >"$WORK/$f.toidd" ) &
    loops+=($!)
    for c in 1 2 3 4; do
        ( while [ ! -e "$WORK/done" ]; do
              "$psql" -X -q -d postgres -v ON_ERROR_STOP=1 -c "INSERT INTO $table SELECT FROM generate_series(1, 500)" || exit 1
          done ) 2>"$WORK/$f.pg$c.err" &
        loops+=($!)
    done
    for c in 1 2; do
        { "$TOID" new "$f" -n "$count" 2>"$WORK/$f.cli$c.err" | gate "$WORK/$f.cli$c"; } &
        pids+=($!)
    done
    { sqlite3 :memory: ".load $SQLITE_MOD" \
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $count) SELECT toid_new('$f') FROM c" \
        2>"$WORK/$f.sqlite.err" | gate "$WORK/$f.sqlite"; } &
    pids+=($!)
    # (ulid-flake-scalable's second ID of a ms may be the spec's overflow
    # error: a caller tries again, as these do)
    { PYTHONPATH=$PY_LIB python3 -c "
import sys, toid
def one():
    while True:
        try:
            return toid.new('$f')
        except toid.GenerationError as e:
            if e.reason != 'overflow':
                raise
for _ in range($count):
    sys.stdout.write(one() + '\n')
" 2>"$WORK/$f.python.err" | gate "$WORK/$f.python"; } &
    pids+=($!)
    { TOID_NODE_ADDON=$NODE_ADDON node -e "
const toid = require('$here/../bindings/node');
const one = () => { for (;;) { try { return toid.new('$f'); } catch (e) { if (e.reason !== 'overflow') throw e; } } };
const out = [];
for (let i = 0; i < $count; i++) out.push(one());
require('fs').writeFileSync(1, out.join('\n') + '\n');
" 2>"$WORK/$f.node.err" | gate "$WORK/$f.node"; } &
    pids+=($!)
    local n=0
    for _ in $(seq 600); do
        n=$(held "$f")
        [ "$n" -ge 7 ] && break
        sleep 0.1
    done
    check "$f: 7 nodes held at once in the registry ($n)" [ "$n" -ge 7 ]
    touch "$WORK/go"
    local nfail=0
    for c in "${pids[@]}"; do wait "$c" || nfail=$((nfail + 1)); done
    touch "$WORK/done"
    for c in "${loops[@]}"; do wait "$c" || nfail=$((nfail + 1)); done
    "$psql" -X -q -At -d postgres -c "SELECT id FROM $table" >"$WORK/$f.pg"
    check "$f: every maker succeeded ($nfail failed: $(cat "$WORK/$f".*.err | head -c 400))" [ $nfail -eq 0 ]
    local m total dups nodes field first
    field=generator
    [ "$f" = ulid-flake-scalable ] && field=sid
    nodes=""
    for m in toidd cli1 cli2 pg sqlite python node; do
        first=$(head -1 "$WORK/$f.$m")
        check "$f: $m made IDs ($(wc -l <"$WORK/$f.$m"))" [ -n "$first" ]
        [ -n "$first" ] || continue
        nodes="$nodes $m:$("$TOID" inspect -f "$f" --json "$first" | grep -o "\"$field\":[0-9]*" | cut -d: -f2)"
    done
    total=$(cat "$WORK/$f".{toidd,cli1,cli2,pg,sqlite,python,node} | wc -l)
    dups=$(cat "$WORK/$f".{toidd,cli1,cli2,pg,sqlite,python,node} | sort | uniq -d | wc -l)
    check "$f: 7 makers on 7 different nodes ($nodes)" \
        [ "$(echo $nodes | tr ' ' '\n' | cut -d: -f2 | sort -u | wc -l)" = 7 ]
    check "$f: $total IDs, none twice ($dups)" [ "$dups" = 0 ]
    echo "$f: $total IDs from 7 makers on nodes$nodes; $dups repeated"
}
round nanoflake n 300000
round ulid-flake-scalable s 100000
finish
