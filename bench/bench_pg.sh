#!/usr/bin/env bash
# bench_pg.sh — the PostgreSQL extension beside the core's gen_random_uuid(),
# on a throwaway cluster it starts itself (ext/postgres/pg_cluster.sh; server
# settings left at PostgreSQL's defaults, fsync on):
#   1. SELECT x_new() FROM generate_series(1, 1e6), in one connection,
#      ROUNDS rounds alternating, medians; the bare generate_series as floor;
#   2. INSERT of ROWS rows with DEFAULT ulid_new() / uuidv7_new() /
#      gen_random_uuid() primary keys: time, index size, WAL volume;
#   3. 8 concurrent connections generating (pgbench, SECONDS s each): IDs/s
#      with the shared generator (preloaded) and per backend (not preloaded).
#
# usage: bench/bench_pg.sh [BUILD_DIR]   (default: build; env ROWS=10000000
#        ROUNDS=5 SECONDS_EACH=10 PG_CONFIG=pg_config). Run as root or postgres.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rows=${ROWS:-10000000}
rounds=${ROUNDS:-5}
secs=${SECONDS_EACH:-10}
. "$root/ext/postgres/pg_cluster.sh"
cluster_create "$build/ext/postgres" -f "$root/ext/postgres/Makefile" PG_CONFIG="${PG_CONFIG:-pg_config}" \
    TOID_LIB="$build/libtoid.a" TOID_INCLUDE="$root/include" \
    TOID_CLAIM_LIB="$build/claim/libtoid_claim.a" TOID_CLAIM_INCLUDE="$root/claim"
psql() { "$pg_bindir/psql" -X -q -v ON_ERROR_STOP=1 -d postgres "$@"; }

# the node formats claim in a registry of this run's (toid.claim)
mkdir -m 2770 "$pg_tmp/registry" && chown postgres "$pg_tmp/registry"
cluster_start "$pg_preload" "toid.node = 1
toid.claim = 'local=$pg_tmp/registry'"
echo "== toid PostgreSQL benchmark ($(date -u +%FT%TZ), $(nproc) cores; $("$pg_bindir/postgres" --version))"
psql <<'SQL'
CREATE EXTENSION toid;
CREATE FUNCTION elapsed_ms(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE q;
    RETURN 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;
CREATE TABLE results (what text, round int, ms float8);
SQL

echo
echo "-- 1. SELECT f() FROM generate_series(1, 1e6) in one connection, $rounds rounds, median"
psql -v rounds="$rounds" <<'SQL'
SELECT set_config('bench.rounds', :'rounds', false) AS ignored \gset
DO $$
DECLARE fns text[] := ARRAY['gen_random_uuid()', 'ulid_new()', 'uuidv7_new()', 'nanoflake_new()', '(g)'];
        f text;
BEGIN
    FOR r IN 1 .. current_setting('bench.rounds')::int LOOP
        FOREACH f IN ARRAY fns LOOP
            INSERT INTO results VALUES (f, r, elapsed_ms(format(
                'SELECT count(x) FROM (SELECT %s AS x FROM generate_series(1, 1000000) g) s', f)));
        END LOOP;
    END LOOP;
END $$;
\pset footer off
SELECT CASE what WHEN '(g)' THEN 'floor: generate_series alone' ELSE what END AS "function",
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS median_ms,
       round(1000 * 1e6 / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric / 1e6, 2) AS "M IDs/s",
       round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM results WHERE what = 'gen_random_uuid()')::numeric
             / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS "speed vs gen_random_uuid"
FROM results GROUP BY what ORDER BY median_ms;
SQL

echo
echo "-- 2. INSERT of $rows rows, DEFAULT f() primary key (one statement each, after a CHECKPOINT)"
psql -v rows="$rows" <<'SQL'
SELECT set_config('bench.rows', :'rows', false) AS ignored \gset
CREATE TABLE t_ulid (id ulid PRIMARY KEY DEFAULT ulid_new(), v int);
CREATE TABLE t_uuidv7 (id uuid PRIMARY KEY DEFAULT uuidv7_new(), v int);
CREATE TABLE t_random (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), v int);
CREATE TABLE inserts (tab text, f text, ms float8, wal bigint, index_bytes bigint, table_bytes bigint);
CREATE PROCEDURE bench_insert(tab text, f text) LANGUAGE plpgsql AS $$
DECLARE lsn pg_lsn; ms float8;
BEGIN
    CHECKPOINT;
    lsn := pg_current_wal_lsn();
    ms := elapsed_ms(format('INSERT INTO %I (v) SELECT g FROM generate_series(1, %s) g', tab,
                            current_setting('bench.rows')));
    INSERT INTO inserts VALUES (tab, f, ms, pg_wal_lsn_diff(pg_current_wal_lsn(), lsn),
        pg_relation_size(tab || '_pkey'), pg_relation_size(tab));
    COMMIT;
END $$;
CALL bench_insert('t_ulid', 'ulid_new()');
CALL bench_insert('t_uuidv7', 'uuidv7_new()');
CALL bench_insert('t_random', 'gen_random_uuid()');
\pset footer off
SELECT f AS "DEFAULT", round(ms::numeric / 1000, 1) AS seconds,
       pg_size_pretty(index_bytes) AS index, pg_size_pretty(wal) AS wal, pg_size_pretty(table_bytes) AS "table",
       round((SELECT ms FROM inserts WHERE tab = 't_random')::numeric / ms::numeric, 2) AS "speed vs random",
       round((SELECT wal FROM inserts WHERE tab = 't_random')::numeric / wal, 2) AS "random's WAL / this",
       round((SELECT index_bytes FROM inserts WHERE tab = 't_random')::numeric / index_bytes, 2) AS "random's index / this"
FROM inserts ORDER BY ms;
DROP TABLE t_ulid, t_uuidv7, t_random;
SQL

concurrent() {  # $1: label; $2..: functions
    local label=$1 f tps
    shift
    for f in "$@"; do
        echo "SELECT count(x) FROM (SELECT $f AS x FROM generate_series(1, 1000)) s;" >"$pg_tmp/conc.sql"
        chmod 644 "$pg_tmp/conc.sql"
        tps=$(PGOPTIONS="-c client_min_messages=warning" "$pg_bindir/pgbench" -n -c 8 -j 2 -T "$secs" \
              -f "$pg_tmp/conc.sql" postgres 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
        printf "%-34s %-20s %12.0f\n" "$label" "$f" "$(echo "$tps * 1000" | bc)"
    done
}
echo
echo "-- 3. 8 connections generating for $secs s each (pgbench, 1,000 IDs a statement)"
printf "%-34s %-20s %12s\n" "generators" "function" "IDs/s"
concurrent "shared (preloaded)" ulid_new\(\) uuidv7_new\(\) nanoflake_new\(\) gen_random_uuid\(\)
cluster_stop
cluster_start ""
concurrent "per backend (not preloaded)" ulid_new\(\) uuidv7_new\(\) gen_random_uuid\(\)
