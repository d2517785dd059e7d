#!/usr/bin/env bash
# toidd with node claims in etcd vs without, side by side in one run:
#  1. RESP `ID.NEW nanoflake 100` requests/s (redis-benchmark) against a toidd
#     claiming its node in etcd and one with local claims in its state
#     directory, alternating round by round so that drift in the machine's
#     speed hits both; medians and their ratio;
#  2. the time from kill -9 of a holder to another instance serving its node
#     (the other instance polls /v1/new/nanoflake), TTL 2 s; median.
#   usage: bench_server_claims.sh [TOIDD] [ROUNDS] [N]
#   TOIDD   default build/server/toidd
#   ROUNDS  default 5
#   N       requests per redis-benchmark run (default 20000)
# Needs etcd (Debian etcd-server), redis-benchmark, curl, python3.
set -u
export LC_ALL=C
TOIDD=${1:-build/server/toidd}
ROUNDS=${2:-5}
N=${3:-20000}
ETCD=$(command -v etcd || true)
for tool in "$TOIDD" "$ETCD" redis-benchmark curl python3; do
    if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
        echo "missing: ${tool:-etcd}" >&2
        exit 2
    fi
done
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

EC=$(free_port); EPP=$(free_port)
"$ETCD" --name b --data-dir "$WORK/etcd" --listen-client-urls "http://127.0.0.1:$EC" \
    --advertise-client-urls "http://127.0.0.1:$EC" --listen-peer-urls "http://127.0.0.1:$EPP" \
    --initial-advertise-peer-urls "http://127.0.0.1:$EPP" --initial-cluster "b=http://127.0.0.1:$EPP" \
    >"$WORK/etcd.log" 2>&1 &
PIDS+=("$!")
for i in $(seq 100); do
    curl -s --max-time 1 "http://127.0.0.1:$EC/health" | grep -q true && break
    sleep 0.2
done
EP="http://127.0.0.1:$EC"

# start NAME ARGS...: sets RP_NAME / HP_NAME / PID_NAME
start() {
    local name=$1
    shift
    local rp hp
    rp=$(free_port); hp=$(free_port)
    mkdir -p "$WORK/s-$name"
    local st=(--state-dir "$WORK/s-$name")
    [ "${1:-}" = --no-state ] && st=()
    "$TOIDD" "${st[@]}" --http "127.0.0.1:$hp" --resp "127.0.0.1:$rp" --threads 1 \
        --formats nanoflake,ulid "$@" 2>"$WORK/$name.log" &
    local pid=$!
    PIDS+=("$pid")
    for i in $(seq 100); do
        grep -q ' started: ' "$WORK/$name.log" && break
        kill -0 "$pid" 2>/dev/null || { echo "toidd $name did not start: $(tail -1 "$WORK/$name.log")" >&2; exit 1; }
        sleep 0.1
    done
    printf -v "RP_$name" %s "$rp"
    printf -v "HP_$name" %s "$hp"
    printf -v "PID_$name" %s "$pid"
}
start local
start etcd --claim "etcd=$EP" --claim-ttl 10
start none --no-state

rate() {   # rate PORT: requests/s of ID.NEW nanoflake 100
    redis-benchmark -p "$1" -c 8 -n "$N" -q ID.NEW nanoflake 100 2>/dev/null |
        tr '\r' '\n' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}
rate "$RP_local" >/dev/null; rate "$RP_etcd" >/dev/null; rate "$RP_none" >/dev/null   # warm up
L=(); E=(); X=()
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then
        X+=("$(rate "$RP_none")"); L+=("$(rate "$RP_local")"); E+=("$(rate "$RP_etcd")")
    else
        E+=("$(rate "$RP_etcd")"); L+=("$(rate "$RP_local")"); X+=("$(rate "$RP_none")")
    fi
done
ml=$(printf '%s\n' "${L[@]}" | median)
me=$(printf '%s\n' "${E[@]}" | median)
mx=$(printf '%s\n' "${X[@]}" | median)
echo "RESP ID.NEW nanoflake 100, redis-benchmark -c 8 -n $N, toidd --threads 1, medians of $ROUNDS rounds:"
printf '  %-34s %12s req/s %14s IDs/s\n' "no claims (--no-state)" "$mx" "$(awk -v r="$mx" 'BEGIN{printf "%.0f", r*100}')"
printf '  %-34s %12s req/s %14s IDs/s\n' "local claims (state dir)" "$ml" "$(awk -v r="$ml" 'BEGIN{printf "%.0f", r*100}')"
printf '  %-34s %12s req/s %14s IDs/s\n' "etcd claims" "$me" "$(awk -v r="$me" 'BEGIN{printf "%.0f", r*100}')"
printf '  etcd / local: %s   etcd / none: %s\n' "$(awk -v a="$me" -v b="$ml" 'BEGIN{printf "%.3f", a/b}')" \
    "$(awk -v a="$me" -v b="$mx" 'BEGIN{printf "%.3f", a/b}')"
echo "  rounds local: ${L[*]}"
echo "  rounds etcd:  ${E[*]}"
echo "  rounds none:  ${X[*]}"
kill -TERM "$PID_local" "$PID_etcd" "$PID_none"
sleep 1

# takeover: kill -9 the holder of node 0 (range 0-0), the waiting instance
# polls until it serves nanoflake
T=()
for r in $(seq "$ROUNDS"); do
    start "a$r" --claim "etcd=$EP" --claim-ttl 2 --nodes nanoflake:0-0 --claim-prefix "/b$r"
    start "b$r" --claim "etcd=$EP" --claim-ttl 2 --nodes nanoflake:0-0 --claim-prefix "/b$r"
    pa=PID_a$r; hb=HP_b$r; pb=PID_b$r
    curl -s --max-time 2 "127.0.0.1:${!hb}/v1/new/ulid" >/dev/null
    t0=$(date +%s%N)
    kill -KILL "${!pa}"
    wait "${!pa}" 2>/dev/null
    ms=""
    for i in $(seq 2000); do
        if [ "$(curl -s --max-time 1 -o /dev/null -w '%{http_code}' "127.0.0.1:${!hb}/v1/new/nanoflake")" = 200 ]; then
            ms=$((($(date +%s%N) - t0) / 1000000))
            break
        fi
        sleep 0.01
    done
    T+=("${ms:-timeout}")
    kill -TERM "${!pb}"
done
echo "kill -9 of a holder -> another instance serving its node (TTL 2 s, one etcd member), ms:"
echo "  median $(printf '%s\n' "${T[@]}" | grep -v timeout | median); all: ${T[*]}"
echo "(a shared, busy 2-core machine; figures are indicative)"
