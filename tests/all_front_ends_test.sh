#!/usr/bin/env bash
# All of toid's front ends on one host at once, no node given anywhere, one
# claim configuration for the host, as a deployment would set it: toidd, two
# `toid new` runs, a PostgreSQL 15 cluster with toid preloaded inserting from
# 4 connections, a sqlite3 process, a Python process and a Node process, each
# making nanoflakes (then ulid-flake-scalables) for a few seconds: every
# maker on a different node, and no ID twice. (Issue 26: each front end took
# node 0, or the node it was given, in a world of its own.)
#   default: one host, TOID_CLAIM=local=<a registry of this test's own>;
#   --etcd ETCD: two "hosts" claiming from one real etcd (started here:
#     loopback, free ports, temp data dir, ended by PID): host a reads a
#     claim.conf (TOID_CLAIM_CONF) saying `claim = etcd=URL`, host b has
#     TOID_CLAIM=etcd=URL; each has its own toidd, PostgreSQL cluster and
#     the rest: 14 makers, 14 nodes, no ID twice.
#   usage: all_front_ends_test.sh [--etcd ETCD] TOID TOIDD SQLITE_MODULE PY_LIB NODE_ADDON PG_BUILD [make args...]
# (CMake registers it only when every front end is built; CI builds them
# all.) Prints "N passed, N failed".
set -uo pipefail
export LC_ALL=C
ETCD=
if [ "${1:-}" = --etcd ]; then
    ETCD=$2
    shift 2
    [ -x "$ETCD" ] || { echo "FAIL: etcd is not installed at '$ETCD' (Debian: apt-get install etcd-server)"; exit 1; }
fi
TOID=$1 TOIDD=$2 SQLITE_MOD=$3 PY_LIB=$4 NODE_ADDON=$5 PG_BUILD=$6
shift 6
here=$(dirname "$(readlink -f "$0")")
. "$here/check_lib.sh"
. "$here/../ext/postgres/pg_cluster.sh"
. "$here/etcd_single.sh"
set -e
cluster_create "$PG_BUILD" "$@"     # (exits 77 where PostgreSQL is missing)
set +e
WORK=$pg_tmp/work
mkdir -p "$WORK"
unset TOID_CLAIM TOID_CLAIM_PREFIX TOID_CLAIM_TTL
export TOID_CLAIM_CONF=/dev/null
psql=$pg_bindir/psql
declare -A HP TPID PGP ENVW
cleanup() {
    local h
    for h in "${!TPID[@]}"; do kill -KILL "${TPID[$h]}" 2>/dev/null; done
    [ -n "${PGP[b]:-}" ] && as_pg "$pg_bindir/pg_ctl" -D "$pg_tmp/data.b" -m immediate -w stop >/dev/null 2>&1
    cluster_cleanup
    etcd_single_stop
}
trap cleanup EXIT

# ENVW[h]: the environment words of host h's claim configuration
if [ -z "$ETCD" ]; then
    HOSTS=(a)
    REG=$pg_tmp/registry
    mkdir -m 2770 "$REG" && chown postgres "$REG"
    ENVW[a]="TOID_CLAIM=local=$REG TOID_CLAIM_CONF=/dev/null"
else
    HOSTS=(a b)
    etcd_single_start "$ETCD" "$pg_tmp/etcd"
    check "etcd started ($(tail -c 200 "$pg_tmp/etcd.log"))" etcd_single_healthy
    printf '# host a: every front end claims from etcd\nclaim = etcd=%s\n' "$ETCD_URL" >"$WORK/a.conf"
    ENVW[a]="TOID_CLAIM_CONF=$WORK/a.conf"
    ENVW[b]="TOID_CLAIM=etcd=$ETCD_URL TOID_CLAIM_CONF=/dev/null"
fi
# on HOST CMD...: CMD with host HOST's claim configuration, in place of the
# (sub)shell that runs it: only where that shell has nothing left to do
# (backgrounded, or one side of a pipe), so that $! is the program's PID
on() {
    local h=$1
    shift
    # shellcheck disable=SC2086
    exec env ${ENVW[$h]} "$@"
}

# Each host's PostgreSQL cluster: a's is pg_cluster.sh's, b's a second data
# directory beside it on the next port.
PGP[a]=$PGPORT
PG_START_ENV="${ENVW[a]}" cluster_start "$pg_preload" "synchronous_commit = off"
if [ -n "${ENVW[b]:-}" ]; then
    PGP[b]=$((PGPORT + 1))
    mkdir -m 0700 "$pg_tmp/data.b" && chown postgres "$pg_tmp/data.b"
    as_pg "$pg_bindir/initdb" -D "$pg_tmp/data.b" -A trust -U postgres -E UTF8 --locale=C --no-sync >/dev/null
    { sed "s/^port = .*/port = ${PGP[b]}/" "$pg_tmp/postgresql.conf.base"
      echo "shared_preload_libraries = '$pg_preload'"; echo "synchronous_commit = off"; } >"$pg_tmp/data.b/postgresql.conf"
    # shellcheck disable=SC2086
    as_pg env ${ENVW[b]} "$pg_bindir/pg_ctl" -D "$pg_tmp/data.b" -l "$pg_tmp/log/server.b.log" -w -t 120 start >/dev/null ||
        { cat "$pg_tmp/log/server.b.log"; exit 1; }
fi
for h in "${HOSTS[@]}"; do
    "$psql" -X -q -p "${PGP[$h]}" -d postgres -c "CREATE EXTENSION toid" \
        -c "CREATE TABLE n (id nanoflake UNIQUE DEFAULT nanoflake_new())" \
        -c "CREATE TABLE s (id ulid_flake_scalable UNIQUE DEFAULT ulid_flake_scalable_new())"
    mkdir -p "$WORK/state.$h"
    on "$h" "$TOIDD" --state-dir "$WORK/state.$h" --http 127.0.0.1:0 --resp off \
        --formats nanoflake,ulid-flake-scalable 2>"$WORK/toidd.$h.log" &
    TPID[$h]=$!
    HP[$h]=
    for _ in $(seq 100); do
        HP[$h]=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/toidd.$h.log" | head -1)
        [ -n "${HP[$h]}" ] && break
        sleep 0.1
    done
    check "host $h: toidd started ($(tail -1 "$WORK/toidd.$h.log"))" [ -n "${HP[$h]}" ]
done

# held FORMAT: how many of FORMAT's nodes are held now (lock files held in
# the registry, or claim keys in etcd)
held() {
    if [ -z "$ETCD" ]; then
        local l n=0
        for l in "$REG/$1"-*.lock; do
            [ -e "$l" ] && ! flock -n -x "$l" true 2>/dev/null && n=$((n + 1))
        done
        echo $n
    else
        local key end
        key=$(printf '/toid/%s/nodes/' "$1" | base64 -w0)
        end=$(printf '/toid/%s/nodes0' "$1" | base64 -w0)
        curl -s --max-time 5 -X POST "$ETCD_URL/v3/kv/range" \
            -d "{\"key\":\"$key\",\"range_end\":\"$end\",\"count_only\":true}" |
            sed -n 's/.*"count":"\([0-9]*\)".*/\1/p' | grep . || echo 0
    fi
}
# gate FILE: holds its writer (a full pipe blocks it, holding its node)
# until $WORK/go exists, then writes everything to FILE
gate() {
    while [ ! -e "$WORK/go" ]; do sleep 0.05; done
    cat >"$1"
}

MAKERS="toidd cli1 cli2 pg sqlite python node"
# round FORMAT TABLE COUNT: every maker of every host at once, each holding
# its node until all hold one; their IDs in $WORK/FORMAT.HOST.MAKER
round() {
    local f=$1 table=$2 count=$3 pids=() loops=() c h o
    local want=$((7 * ${#HOSTS[@]}))
    rm -f "$WORK/go" "$WORK/done"
    for h in "${HOSTS[@]}"; do
        o=$WORK/$f.$h
        ( while [ ! -e "$WORK/done" ]; do
              curl -sf --max-time 5 "127.0.0.1:${HP[$h]}/v1/new/$f?count=500" || sleep 0.05
          done >"$o.toidd" ) &
        loops+=($!)
        for c in 1 2 3 4; do
            ( while [ ! -e "$WORK/done" ]; do
                  "$psql" -X -q -p "${PGP[$h]}" -d postgres -v ON_ERROR_STOP=1 \
                      -c "INSERT INTO $table SELECT FROM generate_series(1, 500)" || exit 1
              done ) 2>"$o.pg$c.err" &
            loops+=($!)
        done
        for c in 1 2; do
            { on "$h" "$TOID" new "$f" -n "$count" 2>"$o.cli$c.err" | gate "$o.cli$c"; } &
            pids+=($!)
        done
        { on "$h" sqlite3 :memory: ".load $SQLITE_MOD" \
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $count) SELECT toid_new('$f') FROM c" \
            2>"$o.sqlite.err" | gate "$o.sqlite"; } &
        pids+=($!)
        # (ulid-flake-scalable's second ID of a ms may be the spec's overflow
        # error: a caller tries again, as these do)
        { on "$h" env PYTHONPATH="$PY_LIB" python3 -c "
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
" 2>"$o.python.err" | gate "$o.python"; } &
        pids+=($!)
        { on "$h" env TOID_NODE_ADDON="$NODE_ADDON" node -e "
const toid = require('$here/../bindings/node');
const one = () => { for (;;) { try { return toid.new('$f'); } catch (e) { if (e.reason !== 'overflow') throw e; } } };
const out = [];
for (let i = 0; i < $count; i++) out.push(one());
require('fs').writeFileSync(1, out.join('\n') + '\n');
" 2>"$o.node.err" | gate "$o.node"; } &
        pids+=($!)
    done
    local n=0
    for _ in $(seq 600); do
        n=$(held "$f")
        [ "$n" -ge "$want" ] && break
        sleep 0.1
    done
    check "$f: $want nodes held at once ($n)" [ "$n" -ge "$want" ]
    touch "$WORK/go"
    local nfail=0
    for c in "${pids[@]}"; do wait "$c" || nfail=$((nfail + 1)); done
    touch "$WORK/done"
    for c in "${loops[@]}"; do wait "$c" || nfail=$((nfail + 1)); done
    for h in "${HOSTS[@]}"; do
        "$psql" -X -q -At -p "${PGP[$h]}" -d postgres -c "SELECT id FROM $table" >"$WORK/$f.$h.pg"
    done
    check "$f: every maker succeeded ($nfail failed: $(cat "$WORK/$f".*.err | head -c 400))" [ $nfail -eq 0 ]
    local m files=() nodes="" field first
    field=generator
    [ "$f" = ulid-flake-scalable ] && field=sid
    for h in "${HOSTS[@]}"; do
        for m in $MAKERS; do
            o=$WORK/$f.$h.$m
            files+=("$o")
            first=$(head -1 "$o")
            check "$f: $h.$m made IDs ($(wc -l <"$o"))" [ -n "$first" ]
            [ -n "$first" ] || continue
            nodes="$nodes $h.$m:$("$TOID" inspect -f "$f" --json "$first" | grep -o "\"$field\":[0-9]*" | cut -d: -f2)"
        done
    done
    local total dups
    total=$(cat "${files[@]}" | wc -l)
    dups=$(cat "${files[@]}" | sort | uniq -d | wc -l)
    check "$f: $want makers on $want different nodes ($nodes)" \
        [ "$(echo $nodes | tr ' ' '\n' | cut -d: -f2 | sort -u | wc -l)" = "$want" ]
    check "$f: $total IDs, none twice ($dups)" [ "$dups" = 0 ]
    echo "$f: $total IDs from $want makers on nodes$nodes; $dups repeated"
}
if [ -z "$ETCD" ]; then
    round nanoflake n 300000
    round ulid-flake-scalable s 100000
else
    round nanoflake n 150000
    round ulid-flake-scalable s 50000
fi
finish
