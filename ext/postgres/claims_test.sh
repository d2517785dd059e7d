#!/usr/bin/env bash
# claims_test.sh — node claims of the node formats (pg_claims.c) with two
# real PostgreSQL 15 clusters on one host, toid preloaded in both, no
# toid.node anywhere: cluster A claims where the host's claim configuration
# says (TOID_CLAIM in its environment), cluster B where toid.claim says; both
# name the same registry. Then:
#   both insert nanoflakes and ulid-flake-scalables from 2 connections each:
#     different nodes (toid_claims), and no ID in both clusters;
#   B restarted with toid.node = A's node: refused (SQLSTATE 55000) naming
#     the holder, toid_claims says "refused"; toid.claim_ttl with a local
#     claim: refused, naming the setting;
#   kill -9 of A's claims worker: the cluster restarts, claims again, and
#     goes on; still no ID twice across A and B;
#   kill -9 of a backend of A while 2 connections insert (the postmaster
#     re-initialises the cluster): A claims again, inserts go on, no ID twice
#     across A and B, and every nanoflake and ulid-flake-scalable made after
#     the restart sorts above every one A stored before it.
# etcd part (a real etcd, one member started here on free loopback ports,
# its data under the test's temp dir, ended by PID with a SIGKILL fallback;
# skipped, saying so, only where etcd is not installed or the claim library
# was built without its etcd backend): A restarted with TOID_CLAIM=etcd=URL
# and TOID_CLAIM_TTL=2 in its environment, B with toid.claim = 'etcd=URL'
# and toid.claim_ttl = 3 (its deadline within 3 s):
#   both formats held in etcd with a deadline, different nodes in A and B, and
#     a third holder (toid new --claim etcd=URL) gets yet another node;
#     both insert, no ID twice;
#   kill -STOP of etcd (A's lease cannot be renewed): past the deadline A's
#     nanoflake_new() is refused (SQLSTATE 55000), toid_claims shows it not
#     held, ulid_new() still works;
#   kill -CONT of etcd: A claims again, nanoflake_new() works again, every ID
#     A makes after sorts above every one it stored before, none twice.
# Every wait is a bounded poll (generous bounds for a busy machine); no
# timing is asserted beyond them.
# (Before claims: two clusters with toid.node = 1 issued 125,916 of 200,000
# nanoflakes twice.) usage: claims_test.sh BUILD_DIR [make arguments...]
# (environment: PG_CLAIMS_ETCD, the etcd program, default etcd from PATH;
# PG_CLAIMS_ETCD_BACKEND=OFF says the claim library has no etcd backend;
# PG_CLAIMS_TOID, the toid program, for the third holder).
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
. "$src_dir/../../tests/etcd_single.sh"
# (the clusters first: their workers give their etcd claims back while it runs)
trap 'stopB; cluster_stop; etcd_single_stop; cluster_cleanup' EXIT
q() { local port=$1; shift; "$psql" -X -q -At -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
node_of() { q "$1" -c "SELECT node FROM toid_claims WHERE format = '$2' AND state = 'held'"; }
held_both() { [ "$(q "$1" -c "SELECT count(*) FROM toid_claims WHERE state = 'held'" 2>/dev/null)" = 2 ]; }
# wait_held PORT: until both node formats are held (the worker claims after start)
wait_held() { wait_until 30 held_both "$1"; }
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
# insert_both SECONDS: insert into A and B at once (waits for those two only:
# etcd is a child of this shell too)
insert_both() {
    local a b
    insert $portA "$1" & a=$!
    insert $portB "$1" & b=$!
    wait $a $b
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
insert_both 3
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
# a lease TTL for the local registry: refused, naming the settings
stopB
startB "toid.claim_ttl = 3"
out=$("$psql" -X -q -At -p $portB -d postgres -c "SELECT nanoflake_new()" 2>&1)
check "B with toid.claim_ttl and a local claim: refused, naming it ($(echo "$out" | tr '\n' ' ' | head -c 300))" \
    eval 'grep -q "toid.claim_ttl and toid.claim_prefix are for a backend with leases" <<<"$out"'
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
insert_both 2
check "after kill -9 of the worker: no nanoflake twice ($(dups n))" [ "$(dups n)" = 0 ]
check "after kill -9 of the worker: no ulid-flake-scalable twice ($(dups s))" [ "$(dups s)" = 0 ]

# kill -9 of a backend of A while it inserts: the postmaster re-initialises
# the cluster (every backend and the worker end, the worker starts again).
# Each inserter is one session looping over INSERTs, each committed (a DO
# block), so it cannot reconnect after the crash: the rows stored once A is
# back are all made before it. (The kill may land between two statements or
# inside one: the checks are on the rows stored.)
# insert_session PORT SECONDS: one connection inserting 500 rows a commit
insert_session() {
    PGAPPNAME=toid-inserter "$psql" -X -q -At -p "$1" -d postgres -v ON_ERROR_STOP=1 -c "DO \$\$
        DECLARE stop_at timestamptz := clock_timestamp() + interval '$2 s';
        BEGIN
            WHILE clock_timestamp() < stop_at LOOP
                INSERT INTO t SELECT FROM generate_series(1, 500);
                COMMIT;
            END LOOP;
        END \$\$"
}
# top PORT COLUMN: the largest value of COLUMN in t (the type's own order)
top() { q "$1" -c "SELECT $2 FROM t ORDER BY $2 DESC LIMIT 1"; }
# at_most PORT COLUMN VALUE: how many rows of t have COLUMN <= VALUE
at_most() { q "$1" -c "SELECT count(*) FROM t WHERE $2 <= '$3'"; }
rowsA=$(q $portA -c "SELECT count(*) FROM t")
worker=$(pgrep -P "$(head -1 "$pg_tmp/data/postmaster.pid")" -f "toid claims")
insert_session $portA 60 >"$pg_tmp/log/killed_inserts.log" 2>&1 &
ins1=$!
insert_session $portA 60 >>"$pg_tmp/log/killed_inserts.log" 2>&1 &
ins2=$!
victim=""
# inserting: an inserting backend (its pid in $victim), once rows are stored
inserting() {
    victim=$(q $portA -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'toid-inserter'
                          AND backend_type = 'client backend' AND state = 'active' LIMIT 1" 2>/dev/null)
    [ -n "$victim" ] && [ "$(q $portA -c "SELECT count(*) > $rowsA FROM t" 2>/dev/null)" = t ]
}
wait_until 30 inserting; rc=$?
check "kill -9 of a backend: an inserting backend of A found ($victim)" [ $rc = 0 ]
[ -n "$victim" ] && kill -KILL "$victim"
crashed() { grep -q "server process (PID $victim) was terminated by signal 9" "$pg_tmp/log/server.log"; }
check "kill -9 of a backend ($victim): A's postmaster re-initialises the cluster" wait_until 30 crashed
wait $ins1
r1=$?
wait $ins2
r2=$?
check "kill -9 of a backend: both inserting sessions were cut off (psql $r1, $r2)" eval '[ $r1 != 0 ] && [ $r2 != 0 ]'
up() { q $portA -c "SELECT 1" >/dev/null 2>&1; }
check "kill -9 of a backend: A accepts connections again" wait_until 60 up
check "kill -9 of a backend: A claims again" wait_held $portA
worker2=$(pgrep -P "$(head -1 "$pg_tmp/data/postmaster.pid")" -f "toid claims")
check "kill -9 of a backend: a new claims worker ($worker, then $worker2)" \
    eval '[ -n "$worker2" ] && [ "$worker2" != "$worker" ]'
before=$(q $portA -c "SELECT count(*) FROM t")
nmax=$(top $portA n) smax=$(top $portA s)
check "kill -9 of a backend: rows stored before the crash ($((before - rowsA)) by the killed sessions)" \
    [ "$before" -gt "$rowsA" ]
insert_both 2
after=$(q $portA -c "SELECT count(*) FROM t")
check "after kill -9 of a backend: A inserts again ($((after - before)) rows)" [ "$after" -gt "$before" ]
check "after kill -9 of a backend: no nanoflake twice ($(dups n))" [ "$(dups n)" = 0 ]
check "after kill -9 of a backend: no ulid-flake-scalable twice ($(dups s))" [ "$(dups s)" = 0 ]
check "after kill -9 of a backend: every nanoflake made after the restart above those before ($nmax)" \
    [ "$(at_most $portA n "$nmax")" = "$before" ]
check "after kill -9 of a backend: every ulid-flake-scalable made after above those before ($smax)" \
    [ "$(at_most $portA s "$smax")" = "$before" ]

# ---------------------------------------------------------------- etcd
etcd_bin=${PG_CLAIMS_ETCD:-$(command -v etcd || true)}
toid_bin=${PG_CLAIMS_TOID:-$build_dir/../../tools/toid}
if [ "${PG_CLAIMS_ETCD_BACKEND:-ON}" = OFF ]; then
    echo "SKIP: etcd part: the claim library was built without its etcd backend (libcurl4-openssl-dev, libjansson-dev)"
    finish
fi
if [ -z "$etcd_bin" ] || [ ! -x "$etcd_bin" ]; then
    echo "SKIP: etcd part: etcd is not installed (Debian: apt-get install etcd-server)"
    finish
fi
# one member on free loopback ports, its data under the test's temp dir
if ! etcd_single_start "$etcd_bin" "$pg_tmp/etcd"; then
    fail "etcd did not start: $(tail -3 "$pg_tmp/etcd.log")"
    finish
fi
EP=$ETCD_URL etcd_pid=$ETCD_PID

# A in etcd by its environment (TTL 2 s: the host's configuration gives the
# TTL), B by toid.claim and toid.claim_ttl. Both stopped first: no ID is made
# while one claims locally and the other in etcd (two registries, two worlds).
stopB
cluster_stop
PG_START_ENV="TOID_CLAIM=etcd=$EP TOID_CLAIM_TTL=2 TOID_CLAIM_CONF=/dev/null" cluster_start "$pg_preload" ""
startB "toid.claim = 'etcd=$EP'
toid.claim_ttl = 3
toid.claim_prefix = '/toid'"
check "etcd: A claimed both node formats (TOID_CLAIM=etcd=$EP)" wait_held $portA
check "etcd: B claimed both node formats (toid.claim)" wait_held $portB
backends() { q "$1" -c "SELECT string_agg(backend, ',' ORDER BY format) FROM toid_claims"; }
bA=$(backends $portA) bB=$(backends $portB)
check "etcd: toid_claims says etcd for both formats on A ($bA) and B ($bB)" eval '[ "$bA" = etcd,etcd ] && [ "$bB" = etcd,etcd ]'
deadline=""
# with_deadline PORT TTL_MS: its nanoflake node held, 0 < deadline_in_ms <= TTL_MS
with_deadline() {
    deadline=$(q "$1" -c "SELECT deadline_in_ms FROM toid_claims WHERE format = 'nanoflake' AND state = 'held'")
    [ -n "$deadline" ] && [ "$deadline" -gt 0 ] && [ "$deadline" -le "$2" ]
}
wait_until 30 with_deadline $portA 2000; rc=$?
check "etcd: A's nanoflake node held with a deadline within the TTL (${deadline:-none} ms)" [ $rc = 0 ]
# B's lease is toid.claim_ttl's 3 s, not the default 10 s
deadline=""
wait_until 30 with_deadline $portB 3000; rc=$?
check "etcd: B's nanoflake node held with a deadline within toid.claim_ttl (${deadline:-none} ms)" [ $rc = 0 ]
eA=$(node_of $portA nanoflake) eB=$(node_of $portB nanoflake)
esA=$(node_of $portA ulid-flake-scalable) esB=$(node_of $portB ulid-flake-scalable)
check "etcd: different nanoflake nodes ($eA, $eB)" eval '[ -n "$eA" ] && [ -n "$eB" ] && [ "$eA" != "$eB" ]'
check "etcd: different ulid-flake-scalable nodes ($esA, $esB)" eval '[ -n "$esA" ] && [ -n "$esB" ] && [ "$esA" != "$esB" ]'
if [ -x "$toid_bin" ]; then
    out=$("$toid_bin" new nanoflake --claim "etcd=$EP" --claim-ttl 2 --json 2>&1)
    cli=$(sed -n 's/.*"generator":\([0-9]*\).*/\1/p' <<<"$out")
    check "etcd: a third holder (toid new --claim etcd=URL) gets another node (${cli:-$out})" \
        eval '[ -n "$cli" ] && [ "$cli" != "$eA" ] && [ "$cli" != "$eB" ]'
else
    echo "note: no toid program at $toid_bin (PG_CLAIMS_TOID): no third holder"
fi
rowsA=$(q $portA -c "SELECT count(*) FROM t") rowsB=$(q $portB -c "SELECT count(*) FROM t")
insert_both 2
before=$(q $portA -c "SELECT count(*) FROM t")
check "etcd: both clusters inserted ($((before - rowsA)), $(( $(q $portB -c "SELECT count(*) FROM t") - rowsB )) rows)" \
    eval '[ "$before" -gt "$rowsA" ] && [ "$(q $portB -c "SELECT count(*) FROM t")" -gt "$rowsB" ]'
check "etcd: no nanoflake twice ($(dups n))" [ "$(dups n)" = 0 ]
check "etcd: no ulid-flake-scalable twice ($(dups s))" [ "$(dups s)" = 0 ]

# etcd stopped: A's lease is not renewed; past the deadline A refuses
nmax=$(top $portA n) smax=$(top $portA s)
kill -STOP "$etcd_pid"
stopped_at=$(date +%s%N)
out=""
nano_refused() { ! out=$("$psql" -X -q -At -p $portA -d postgres -v VERBOSITY=verbose -c "SELECT nanoflake_new()" 2>&1); }
t0=$SECONDS
wait_until 60 nano_refused; rc=$?
check "etcd stopped: A's nanoflake_new() is refused once the deadline passed (after $((SECONDS - t0)) s)" [ $rc = 0 ]
check "etcd stopped: refused with SQLSTATE 55000 and why ($(tr '\n' ' ' <<<"$out" | head -c 400))" \
    eval 'grep -q "^ERROR:  55000: nanoflake: " <<<"$out" &&
          grep -Eq "the node claim is past its deadline|no node claimed for this cluster" <<<"$out"'
state=""
not_held() {
    state=$(q $portA -c "SELECT state || ': ' || coalesce(detail, '') FROM toid_claims WHERE format = 'nanoflake'")
    [ -n "$state" ] && [ "${state%%:*}" != held ]
}
wait_until 30 not_held; rc=$?
check "etcd stopped: toid_claims shows A's nanoflake node not held ($state)" [ $rc = 0 ]
check "etcd stopped: A's ulid_new() still works" eval 'q $portA -c "SELECT ulid_new()" >/dev/null'
# stopped past the TTL (2 s) and a margin, so that etcd has let the lease
# expire: A must take a new one, not just renew the old one
left=$(( (stopped_at + 3500000000 - $(date +%s%N)) / 1000000 ))
[ "$left" -gt 0 ] && sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"
kill -CONT "$etcd_pid"
t0=$SECONDS
wait_until 60 held_both $portA; rc=$?
check "etcd back: A claims both node formats again (after $((SECONDS - t0)) s)" [ $rc = 0 ]
nano_ok() { q $portA -c "SELECT nanoflake_new()" >/dev/null 2>&1; }
check "etcd back: A was told its lease is gone (expired in etcd)" \
    grep -q "toid claims: error: etcd .* says lease [0-9]* is gone" "$pg_tmp/log/server.log"
check "etcd back: A's nanoflake_new() works again (node $eA before, $(node_of $portA nanoflake) now)" \
    wait_until 30 nano_ok
check "etcd back: B holds both node formats" wait_held $portB
insert_both 2
after=$(q $portA -c "SELECT count(*) FROM t")
check "etcd back: A inserts again ($((after - before)) rows)" [ "$after" -gt "$before" ]
check "etcd back: every nanoflake A made after above those before ($nmax)" [ "$(at_most $portA n "$nmax")" = "$before" ]
check "etcd back: every ulid-flake-scalable A made after above those before ($smax)" \
    [ "$(at_most $portA s "$smax")" = "$before" ]
check "etcd back: no nanoflake twice ($(dups n))" [ "$(dups n)" = 0 ]
check "etcd back: no ulid-flake-scalable twice ($(dups s))" [ "$(dups s)" = 0 ]
finish
