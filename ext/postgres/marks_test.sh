#!/usr/bin/env bash
# marks_test.sh — the shared generators' high-water marks (pg_marks.c) on a
# real PostgreSQL 15 cluster (pg_cluster.sh), toid preloaded, toid.node = 7.
# One table with unique ulid, nanoflake and uuidv7 columns (DEFAULT x_new())
# and a phase number; after each event the new phase's IDs must all sort
# above every ID stored before, and an insert never conflicts:
#   restart with the clock 10 s behind (libfaketime): refused (SQLSTATE
#     55000) until the clock passes the mark, then above it;
#   restart with the clock 1 h behind: refused, nothing inserted;
#   kill -9 of a backend while inserting (crash re-initialisation), and
#     kill -9 of the postmaster;
#   a streaming standby (pg_basebackup) whose clock is 5 s behind: refuses
#     to make IDs while a standby; promoted after kill -9 of its primary, it
#     resumes above the last mark the primary wrote (the WAL carried it).
# usage: marks_test.sh BUILD_DIR [make arguments...]. Prints "N passed, N
# failed" last; exit 77 (skip) only where PostgreSQL is not installed.
set -uo pipefail
src_dir=$(dirname "$(readlink -f "$0")")
. "$src_dir/pg_cluster.sh"
. "$src_dir/../../tests/check_lib.sh"

build_dir=$1
shift
FTLIB=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1)
[ -n "$FTLIB" ] || { echo "FAIL: libfaketime is not installed (package faketime)"; exit 1; }
set -e
cluster_create "$build_dir" "$@"
set +e
sb=$pg_tmp/standby
trap 'as_pg "$pg_bindir/pg_ctl" -D "$sb" -m immediate stop >/dev/null 2>&1; cluster_cleanup' EXIT
mkdir -m 2770 "$pg_tmp/registry" && chown postgres "$pg_tmp/registry"
conf="toid.claim = 'local=$pg_tmp/registry'
synchronous_commit = off
toid.node = 7
toid.clock_wait_max_ms = 300
wal_level = replica"
psql=$pg_bindir/psql
q() { "$psql" -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }
faked() { echo "LD_PRELOAD=$FTLIB FAKETIME=$1 FAKETIME_DONT_FAKE_MONOTONIC=1"; }

# insert_for SECONDS PHASE [PORT]: inserts 500 rows a statement for that
# long; prints "ok N" (rows) or the first error other than SQLSTATE 55000
# (the clock behind the mark), counting those as "behind".
insert_for() {
    local until=$((SECONDS + $1)) phase=$2 port=${3:-$PGPORT} rows=0 behind=0 out
    while [ $SECONDS -lt $until ]; do
        if out=$("$psql" -X -q -At -p "$port" -d postgres -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
            -c "INSERT INTO t (phase) SELECT $phase FROM generate_series(1, 500)" 2>&1); then
            rows=$((rows + 500))
        elif grep -q '55000' <<<"$out"; then
            behind=$((behind + 1))
            sleep 0.1
        else
            echo "error: $out"
            return 1
        fi
    done
    echo "ok $rows behind $behind"
}

# above PHASE: the phase's IDs all sort above every earlier phase's (each column)
above() {
    local c sql="SELECT true" p=$1
    for c in u n v; do
        sql="$sql AND (SELECT $c FROM t WHERE phase = $p ORDER BY $c LIMIT 1)
                    > (SELECT $c FROM t WHERE phase < $p ORDER BY $c DESC LIMIT 1)"
    done
    q -c "$sql"
}

# kill9_postmaster: kill -9 of the primary's postmaster; returns once it and
# its children are gone (or zombies: a container's init may not reap them),
# with the pid file and socket lock it left removed
kill9_postmaster() {
    local dir=$1 pid
    pid=$(head -1 "$dir/postmaster.pid")
    kill -KILL "$pid"
    for _ in $(seq 100); do
        [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] || ! kill -0 "$pid" 2>/dev/null && break
        sleep 0.1
    done
    for _ in $(seq 100); do
        pgrep -u postgres -P "$pid" >/dev/null || break
        sleep 0.1
    done
    rm -f "$pg_tmp/sock/.s.PGSQL.$(sed -n 4p "$dir/postmaster.pid").lock" "$dir/postmaster.pid"
}

cluster_start "$pg_preload" "$conf"
q -c "CREATE EXTENSION toid" -c "CREATE TABLE t (u ulid UNIQUE DEFAULT ulid_new(),
    n nanoflake UNIQUE DEFAULT nanoflake_new(), v uuid UNIQUE DEFAULT uuidv7_new(), phase int NOT NULL)"
r=$(insert_for 3 1)
check "phase 1: inserted ($r)" grep -q '^ok [1-9]' <<<"$r"
check "the marks file holds ulid, nanoflake and uuidv7" \
    eval 'grep -q "^nanoflake [0-9]" "$pg_tmp/data/pg_toid/marks" && grep -q "^ulid [0-9]" "$pg_tmp/data/pg_toid/marks" && grep -q "^uuidv7 [0-9]" "$pg_tmp/data/pg_toid/marks"'
cluster_stop

# ---- restarts with the clock behind
PG_START_ENV=$(faked -10s) cluster_start "$pg_preload" "$conf"
out=$("$psql" -X -q -At -d postgres -v VERBOSITY=verbose -c "SELECT nanoflake_new()" 2>&1)
check "clock 10 s behind: refused with SQLSTATE 55000 ($(head -1 <<<"$out"))" \
    grep -q '55000.*nanoflake: the clock is [0-9]* ms behind the mark' <<<"$out"
r=$(insert_for 14 2)
check "clock 10 s behind: inserts resume once it passes the mark ($r)" grep -q '^ok [1-9]' <<<"$r"
check "clock 10 s behind: every new ID above the stored ones" [ "$(above 2)" = t ]
cluster_stop
PG_START_ENV=$(faked -1h) cluster_start "$pg_preload" "$conf"
r=$(insert_for 2 3)
check "clock 1 h behind: every insert refused ($r)" grep -q '^ok 0 behind [1-9]' <<<"$r"
check "clock 1 h behind: nothing inserted" [ "$(q -c 'SELECT count(*) FROM t WHERE phase = 3')" = 0 ]
cluster_stop

# ---- kill -9 of a backend, then of the postmaster, while inserting
cluster_start "$pg_preload" "$conf"
# one long INSERT (its IDs are issued, its rows die with it)
PGAPPNAME=victim "$psql" -X -q -d postgres -c "INSERT INTO t (phase) SELECT 4 FROM generate_series(1, 20000000)" \
    >/dev/null 2>&1 &
ins=$!
victim=
for _ in $(seq 100); do
    victim=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'victim' AND state = 'active'")
    [ -n "$victim" ] && break
    sleep 0.1
done
sleep 1
[ -n "$victim" ] && kill -KILL "$victim"
wait $ins
check "kill -9 of a backend ($victim): the server crash-restarted ($(grep -c 'was terminated by signal 9' "$pg_tmp/log/server.log"))" \
    grep -q "(PID $victim) was terminated by signal 9" "$pg_tmp/log/server.log"
for _ in $(seq 100); do "$pg_bindir/pg_isready" -q && break; sleep 0.1; done
r=$(insert_for 2 5)
check "after the crash re-initialisation: inserted ($r)" grep -q '^ok [1-9]' <<<"$r"
check "after the crash re-initialisation: every new ID above the stored ones" [ "$(above 5)" = t ]
insert_for 3 6 >/dev/null &
ins=$!
sleep 1
kill9_postmaster "$pg_tmp/data"
wait $ins
cluster_start "$pg_preload" "$conf"
r=$(insert_for 2 7)
check "after kill -9 of the postmaster: inserted ($r)" grep -q '^ok [1-9]' <<<"$r"
check "after kill -9 of the postmaster: every new ID above the stored ones" [ "$(above 7)" = t ]

# ---- a standby 5 s behind, promoted after its primary is killed
sbport=$((PGPORT + 1))
mkdir -m 0700 "$sb" && chown postgres "$sb"
as_pg "$pg_bindir/pg_basebackup" -h "$PGHOST" -p "$PGPORT" -U postgres -D "$sb" -R -X stream -c fast \
    >"$pg_tmp/log/basebackup.log" 2>&1
check "pg_basebackup ($(tail -1 "$pg_tmp/log/basebackup.log"))" [ $? -eq 0 ]
echo "port = $sbport" >>"$sb/postgresql.conf"
as_pg env $(faked -5s) "$pg_bindir/pg_ctl" -D "$sb" -l "$pg_tmp/log/standby.log" -w -t 120 start >/dev/null
check "the standby started" [ $? -eq 0 ]
r=$(insert_for 3 8)
check "primary: inserted beside the standby ($r)" grep -q '^ok [1-9]' <<<"$r"
lsn=$(q -c "SELECT pg_current_wal_lsn()")
for _ in $(seq 200); do
    [ "$(q -p $sbport -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'")" = t ] && break
    sleep 0.1
done
out=$("$psql" -X -q -At -p $sbport -d postgres -v VERBOSITY=verbose -c "SELECT nanoflake_new()" 2>&1)
check "a standby makes no IDs (25006: $(head -1 <<<"$out"))" grep -q '25006.*IDs are not made on a standby' <<<"$out"
check "the standby's marks file followed the WAL" \
    [ "$(grep '^nanoflake' "$sb/pg_toid/marks")" = "$(grep '^nanoflake' "$pg_tmp/data/pg_toid/marks")" ]
kill9_postmaster "$pg_tmp/data"
as_pg "$pg_bindir/pg_ctl" -D "$sb" -w promote >/dev/null
check "the standby was promoted" [ "$(q -p $sbport -c 'SELECT pg_is_in_recovery()')" = f ]
r=$(insert_for 10 9 $sbport)
check "promoted, clock 5 s behind the old primary: inserts resume above its mark ($r)" \
    grep -q '^ok [1-9]' <<<"$r"
check "promoted: every new ID above the primary's" \
    [ "$(PGPORT=$sbport above 9)" = t ]
check "promoted: no ID twice" \
    [ "$(q -p $sbport -c 'SELECT count(*) = count(DISTINCT n) AND count(*) = count(DISTINCT u) FROM t')" = t ]
as_pg "$pg_bindir/pg_ctl" -D "$sb" -m immediate stop >/dev/null 2>&1
finish
