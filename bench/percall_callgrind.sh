#!/usr/bin/env bash
# percall_callgrind.sh — instructions per call under callgrind for each
# variant of bench_percall and its floor: a count that other processes on a
# busy machine cannot disturb (wall-clock figures can). Valgrind runs the
# clock read as a system call rather than through the vDSO, so the clock's
# own work is not in these counts: they measure the library's code.
#   usage: bench/percall_callgrind.sh [BENCH_PERCALL] [CALLS]
set -euo pipefail
bin=${1:-build/bench/bench_percall}
calls=${2:-20000}
command -v valgrind >/dev/null || { echo "percall_callgrind: valgrind is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect=measured \
        "$bin" --only "$1" "$calls" 2>"$tmp/err" >/dev/null
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err"
}
printf '# callgrind instructions per call (%s calls)\n' "$calls"
printf '%-15s %10s %10s %7s\n' variant toid floor ratio
for v in ulid uuidv7 nanoflake scru160; do
    name=$v
    [ "$v" = nanoflake ] && name='nanoflake(bin)'
    lib=$(count "$name")
    flo=$(count "$name-floor")
    awk -v n="$name" -v l="$lib" -v f="$flo" -v c="$calls" \
        'BEGIN { printf "%-15s %10.1f %10.1f %6.2fx\n", n, l / c, f / c, l / f }'
done
