#!/usr/bin/env bash
# bench_idle_rss.sh — resident memory with N idle RESP connections: toidd
# beside redis-server, in the same run. Each server is started fresh, N
# connections are opened (each sends one PING and reads the PONG, then stays
# idle), and VmRSS is read before and with them.
#   usage: bench/bench_idle_rss.sh [TOIDD] [N]   (default build/server/toidd, 1000)
# needs: redis-server, python3
set -u
TOIDD=${1:-build/server/toidd}
N=${2:-1000}
WORK=$(mktemp -d /tmp/bench_rss.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -n $((N + 1024)) 2>/dev/null
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
port() {   # a loopback port nothing answers on, from $1
    local p=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
    echo "$p"
}
hold() {   # PORT: N idle connections, held until stdin closes
    python3 -c '
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"PING\r\n")
    socks.append(s)
for s in socks:
    assert s.recv(64).startswith(b"+PONG")
print("held", flush=True)
sys.stdin.read()' "$1" "$N"
}
measure() {   # NAME PID PORT
    local before with
    before=$(rss "$2")
    exec 4> >(hold "$3" >"$WORK/$1.held")
    for _ in $(seq 300); do grep -q held "$WORK/$1.held" 2>/dev/null && break; sleep 0.1; done
    with=$(rss "$2")
    exec 4>&-
    printf '%-14s %10s kB %10s kB %10s kB  %6.2f kB/connection\n' "$1" "$before" "$with" \
        "$((with - before))" "$(awk -v a="$before" -v b="$with" -v n="$N" 'BEGIN {print (b - a) / n}')"
}
RPORT=$(port 22000)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --maxclients $((N + 100)) \
    --daemonize no --logfile "$WORK/redis.log" & PIDS+=($!)
RPID=$!
TPORT=$(port $((RPORT + 1)))
"$TOIDD" --no-state --http off --resp "127.0.0.1:$TPORT" --max-connections $((N + 100)) \
    2>"$WORK/toidd.log" & PIDS+=($!)
TPID=$!
sleep 1
echo "RSS with $N idle RESP connections (VmRSS: at start, with them, the difference)"
measure redis-server "$RPID" "$RPORT"
measure toidd "$TPID" "$TPORT"
