#!/usr/bin/env bash
# The start of one `toid new ulid` beside the floor, /bin/true (fork + exec
# of a program that does nothing), and uuidgen (a peer, when installed):
# ROUNDS interleaved rounds of RUNS runs each; the median and the minimum
# per run of the rounds, wall clock, in ms. The ratio is median / floor.
# Extra programs to compare (another build of toid, say) as more arguments.
#   usage: bench/bench_cli_start.sh [TOID] [ROUNDS] [RUNS] ["PROGRAM ARGS"...]
set -u
TOID=${1:-build/tools/toid}
ROUNDS=${2:-9}
RUNS=${3:-100}
progs=("/bin/true" "$TOID new ulid" "${@:4}")
command -v uuidgen >/dev/null && progs+=("uuidgen -7")
for p in "${progs[@]}"; do
    command -v "${p%% *}" >/dev/null || { echo "$0: no program ${p%% *}" >&2; exit 2; }
done
declare -A all
for _ in $(seq "$ROUNDS"); do
    for p in "${progs[@]}"; do
        t0=$EPOCHREALTIME
        for _ in $(seq "$RUNS"); do $p >/dev/null; done
        t1=$EPOCHREALTIME
        all[$p]+="$(awk -v a="$t0" -v b="$t1" -v n="$RUNS" 'BEGIN {print (b - a) * 1000 / n}') "
    done
done
echo "# bench_cli_start $ROUNDS rounds x $RUNS runs, ms per run: median (min); ratio = median / floor"
floor=
for p in "${progs[@]}"; do
    read -r med min < <(echo "${all[$p]}" | tr ' ' '\n' | grep . | sort -g |
        awk '{v[NR]=$1} END {printf "%.3f %.3f\n", v[int((NR+1)/2)], v[1]}')
    [ -z "$floor" ] && floor=$med
    printf '%-28s %8s (%8s)  %5.2fx\n' "$p" "$med" "$min" "$(awk -v a="$med" -v b="$floor" 'BEGIN {print a / b}')"
done
echo "# shared libraries loaded by toid: $(ldd "$TOID" | wc -l)"
