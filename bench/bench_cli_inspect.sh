#!/usr/bin/env bash
# bench_cli_inspect.sh — the CLI's inspection output per ID: `toid inspect
# --json <FILE`, `toid inspect <FILE` (the human form) and `toid new -n N
# --json`, over N generated IDs of a few formats, for one or more toid
# binaries side by side (say the one before a change and the one after).
# Rounds are interleaved across the binaries; each figure is the median of
# ROUNDS runs of the process's CPU time (user + sys: time lost to other
# processes does not count) in ns per ID. The floor beside: `wc -l` reading
# the same file.
#   usage: bench/bench_cli_inspect.sh [-n COUNT] [-r ROUNDS] TOID [TOID...]
#          (defaults 1000000 and 5; TOID defaults to build/tools/toid)
set -euo pipefail
count=1000000 rounds=5
while getopts n:r: o; do
    case $o in n) count=$OPTARG ;; r) rounds=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$(dirname "$0")/../build/tools/toid"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
formats="ulid uuidv7 nanoflake scru160"
for f in $formats; do "$1" new "$f" -n "$count" >"$tmp/$f.txt"; done

# CPU seconds (user + sys) of one command reading file $1, stdout to /dev/null.
cpu() {
    local TIMEFORMAT='%3U %3S' t in=$1
    shift
    t=$( { time "$@" <"$in" >/dev/null 2>&1; } 2>&1 )
    awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f\n", a[1] + a[2] }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cases=()
for f in $formats; do cases+=("inspect --json $f" "inspect $f"); done
cases+=("new --json ulid" "floor ulid")
declare -A times
for ((r = 0; r < rounds; r++)); do
    for c in "${cases[@]}"; do
        for ((b = 1; b <= $#; b++)); do
            bin=${!b} f=${c##* }
            case $c in
                "inspect --json "*) s=$(cpu "$tmp/$f.txt" "$bin" inspect --json) ;;
                "inspect "*) s=$(cpu "$tmp/$f.txt" "$bin" inspect) ;;
                "new --json "*) s=$(cpu /dev/null "$bin" new "$f" -n "$count" --json) ;;
                floor*) s=$(cpu "$tmp/$f.txt" wc -l) ;;
            esac
            times["$c|$b"]+="$s "
        done
    done
done
echo "# bench_cli_inspect.sh -n $count -r $rounds — median CPU (user+sys) ns per ID over $rounds interleaved rounds"
printf '%-26s' "case"
for ((b = 1; b <= $#; b++)); do printf ' %12s' "[$b]"; done
echo
for c in "${cases[@]}"; do
    printf '%-26s' "$c"
    for ((b = 1; b <= $#; b++)); do
        m=$(tr ' ' '\n' <<<"${times["$c|$b"]}" | grep . | median)
        awk -v s="$m" -v n="$count" 'BEGIN { printf " %12.1f", s * 1e9 / n }'
    done
    echo
done
for ((b = 1; b <= $#; b++)); do echo "[$b] ${!b}"; done
