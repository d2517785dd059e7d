#!/usr/bin/env bash
# concurrency_test.sh — 8 connections insert 100,000 rows each into one table
# whose ulid primary key, nanoflake and uuidv7 columns come from
# DEFAULT ulid_new(), nanoflake_new(), uuidv7_new(). Every row records its
# backend and a per-backend sequence. Passes when no insert conflicts
# (unique indexes on all three), all 800,000 rows are there, and each
# backend's IDs increase with its sequence. Expects PGHOST/PGPORT/PGUSER of
# a server with toid preloaded and toid.node set; PSQL: the psql to use.
set -euo pipefail
psql=${PSQL:-psql}
clients=8 rows=100000 batch=10000
db=toid_concurrency
q() { "$psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
q -d $db <<'SQL'
CREATE EXTENSION toid;
CREATE TABLE ids (
    id ulid PRIMARY KEY DEFAULT ulid_new(),
    nf nanoflake NOT NULL UNIQUE DEFAULT nanoflake_new(),
    u7 uuid NOT NULL UNIQUE DEFAULT uuidv7_new(),
    backend int NOT NULL DEFAULT pg_backend_pid(),
    seq int NOT NULL);
SQL

# Each client: one connection, rows/batch statements (separate transactions,
# so the clients interleave), seq numbering its rows in order.
start=$(date +%s)
pids=()
for c in $(seq 1 $clients); do
    args=()
    for ((lo = 1; lo <= rows; lo += batch)); do
        args+=(-c "INSERT INTO ids (seq) SELECT g FROM generate_series($lo, $((lo + batch - 1))) g")
    done
    q -d $db "${args[@]}" >/dev/null 2>"${TMPDIR:-/tmp}/toid-conc-$$-$c.err" &
    pids+=($!)
done
fail=0
for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
        echo "client $((i + 1)) failed:"; cat "${TMPDIR:-/tmp}/toid-conc-$$-$((i + 1)).err"; fail=1
    fi
    rm -f "${TMPDIR:-/tmp}/toid-conc-$$-$((i + 1)).err"
done
echo "concurrency: $clients clients x $rows rows in $(( $(date +%s) - start )) s"
[ $fail = 0 ] || exit 1

result=$(q -d $db -At <<'SQL'
SELECT count(*), count(DISTINCT backend), count(DISTINCT id), count(DISTINCT nf), count(DISTINCT u7)
FROM ids;
SELECT count(*) FROM (
    SELECT id <= lag(id) OVER w AS bad_id, nf <= lag(nf) OVER w AS bad_nf, u7 <= lag(u7) OVER w AS bad_u7
    FROM ids WINDOW w AS (PARTITION BY backend ORDER BY seq)) s
WHERE bad_id OR bad_nf OR bad_u7;
SQL
)
echo "concurrency: rows|backends|distinct ulid|distinct nanoflake|distinct uuidv7, then out-of-order rows:"
echo "$result"
expected="$((clients * rows))|$clients|$((clients * rows))|$((clients * rows))|$((clients * rows))
0"
q -d postgres -c "DROP DATABASE $db"
if [ "$result" != "$expected" ]; then
    echo "concurrency: expected"; echo "$expected"; exit 1
fi
echo "concurrency: 0 conflicts, every backend's IDs in order"
