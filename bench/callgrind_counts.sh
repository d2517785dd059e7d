#!/usr/bin/env bash
# callgrind_counts.sh — instructions per call under callgrind, a figure that
# other processes on a busy machine cannot disturb (wall-clock figures can):
#  1. one ID per call (bench_percall's loops) beside each floor, and on a
#     generator shared by threads (lock or CAS per ID). Valgrind runs
#     the clock read as a system call rather than through the vDSO, so the
#     clock's own work is not in these counts: they measure the library.
#  2. encode and decode of the codecs with a SIMD path (ULID, UUID, SCRU160;
#     and toid_hex_encode of SCRU160's 20 bytes), SIMD
#     and scalar (TOID_SIMD=off), through toid_encode / toid_decode, beside
#     the bare loop copying the text.
#   usage: bench/callgrind_counts.sh [BUILD_DIR] [CALLS]     (build, 20000)
set -euo pipefail
dir=${1:-build}
calls=${2:-20000}
command -v valgrind >/dev/null || { echo "callgrind_counts: valgrind is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {   # ENV PROGRAM ARGS... -> instructions per call
    local env=$1 prog=$2
    shift 2
    env "$env" valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect=measured \
        "$dir/bench/$prog" --only "$@" "$calls" 2>"$tmp/err" >/dev/null
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err" | awk -v n="$calls" '{ printf "%.1f", $1 / n }'
}
printf '# callgrind instructions per call (%s calls)\n' "$calls"
printf '%-15s %10s %10s %7s %10s\n' "one ID" toid floor ratio shared
for name in ulid uuidv7 'nanoflake(bin)' scru160; do
    lib=$(count TOID_SIMD=auto bench_percall "$name")
    flo=$(count TOID_SIMD=auto bench_percall "$name-floor")
    sha=$(count TOID_SIMD=auto bench_percall "$name-shared")
    awk -v n="$name" -v l="$lib" -v f="$flo" -v s="$sha" \
        'BEGIN { printf "%-15s %10s %10s %6.2fx %10s\n", n, l, f, l / f, s }'
done
printf '\n%-15s %10s %10s   (copy loop %s)\n' codec simd scalar "$(count TOID_SIMD=auto bench_codec ulid copy)"
for f in ulid uuidv7 scru160; do
    for op in encode decode; do
        printf '%-15s %10s %10s\n' "$f $op" "$(count TOID_SIMD=auto bench_codec "$f" "$op")" \
            "$(count TOID_SIMD=off bench_codec "$f" "$op")"
    done
done
printf '%-15s %10s %10s\n' "hex-40 encode" "$(count TOID_SIMD=auto bench_codec scru160 hex-encode)" \
    "$(count TOID_SIMD=off bench_codec scru160 hex-encode)"
