#!/usr/bin/env bash
# codec_callgrind.sh — instructions per encode and decode under callgrind for
# the codecs with a SIMD path (ULID, UUID), SIMD and scalar (TOID_SIMD=off),
# through the public toid_encode/toid_decode: a figure other processes on a
# busy machine cannot disturb. The copy loop is the floor of the loop itself.
#   usage: bench/codec_callgrind.sh [BENCH_CODEC] [OPS]
set -euo pipefail
bin=${1:-build/bench/bench_codec}
ops=${2:-100000}
command -v valgrind >/dev/null || { echo "codec_callgrind: valgrind is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {   # ENV FORMAT OP
    env "$1" valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect=measured \
        "$bin" --only "$2" "$3" "$ops" 2>"$tmp/err" >/dev/null
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err" | awk -v n="$ops" '{ printf "%.1f", $1 / n }'
}
printf '# callgrind instructions per op (%s ops), through toid_encode / toid_decode\n' "$ops"
printf 'floor (copy loop) %s\n' "$(count TOID_SIMD=auto ulid copy)"
printf '%-8s %-7s %8s %8s\n' format op simd scalar
for f in ulid uuidv7; do
    for op in encode decode; do
        printf '%-8s %-7s %8s %8s\n' "$f" "$op" "$(count TOID_SIMD=auto "$f" "$op")" "$(count TOID_SIMD=off "$f" "$op")"
    done
done
