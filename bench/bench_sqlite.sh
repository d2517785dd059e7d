#!/usr/bin/env bash
# bench_sqlite.sh — the SQLite extension's generators against SQLite's own
# randomblob(16) (the floor for 16 random bytes a row) and hex(randomblob(16))
# (the same as text), in one sqlite3 process, on generate_series (an
# extension the Debian sqlite3 shell has built in). Rounds are interleaved
# (every query once per round) so that drift in the machine's speed hits all
# of them; medians of the shell's ".timer" real time are reported, with the
# ratio to the peer: the row loop alone is shown as the floor under all.
#
# usage: bench/bench_sqlite.sh [TOID_SO] [ROUNDS] [ROWS]
#   TOID_SO  the extension (default build/ext/sqlite/toid.so)
#   ROUNDS   interleaved rounds (default 7)
#   ROWS     rows per query (default 1000000)
set -euo pipefail
export LC_ALL=C
so=$(realpath "${1:-build/ext/sqlite/toid.so}")
rounds=${2:-7}
rows=${3:-1000000}
command -v sqlite3 >/dev/null || { echo "bench_sqlite: sqlite3 not found (apt-get install -y sqlite3)" >&2; exit 2; }

# label|expression evaluated once a row; count() makes SQLite compute it
# without printing a million rows
queries=(
    "loop (floor)|value"
    "randomblob(16)|randomblob(16)"
    "hex(randomblob(16))|hex(randomblob(16))"
    "toid_new_blob('ulid')|toid_new_blob('ulid')"
    "toid_new('ulid')|toid_new('ulid')"
    "toid_new('uuidv7')|toid_new('uuidv7')"
    "toid_new('nanoflake')|toid_new('nanoflake')"
    "toid_new('scru160')|toid_new('scru160')"
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$so" "$work/toid.so"
{
    echo ".load ./toid"
    echo "SELECT toid_node('nanoflake', 1);"
    echo ".timer on"
    for ((r = 0; r < rounds; r++)); do
        for q in "${queries[@]}"; do
            echo "SELECT count(${q#*|}) FROM generate_series(1, $rows);"
        done
    done
} >"$work/bench.sql"
(cd "$work" && sqlite3 :memory: <"$work/bench.sql") | awk '/^Run Time/ {print $4}' >"$work/times"

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
n=${#queries[@]}
printf "%-24s %10s %12s %10s %14s\n" "per row, $rows rows" "median s" "rows/s" "ns/row" "vs hex(rb16)"
declare -A med
for ((i = 0; i < n; i++)); do
    label=${queries[$i]%%|*}
    med[$i]=$(awk -v n="$n" -v i="$i" 'NR % n == (i + 1) % n' "$work/times" | median)
done
for ((i = 0; i < n; i++)); do
    label=${queries[$i]%%|*}
    awk -v l="$label" -v t="${med[$i]}" -v rows="$rows" -v peer="${med[2]}" 'BEGIN {
        printf "%-24s %10.3f %12.0f %10.1f %13.2fx\n", l, t, rows / t, t * 1e9 / rows, peer / t }'
done
echo "($rounds interleaved rounds, one sqlite3 $(sqlite3 --version | cut -d' ' -f1) process, $(nproc) cores;" \
     "vs hex(rb16) > 1 means faster than hex(randomblob(16)))"
