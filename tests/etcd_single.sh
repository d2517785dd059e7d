# etcd_single.sh — one etcd member for a test or a benchmark (sourced): on
# loopback, free ports, its data in a directory of the caller's, ended by PID.
#   etcd_single_start ETCD DIR: starts it (again on new ports if it exits: a
#     port taken meanwhile), waits (bounded: 30 s) until /health says true;
#     sets ETCD_URL (http://127.0.0.1:PORT) and ETCD_PID. Returns 1 if it
#     did not come up (its log, DIR.log, says why).
#   etcd_single_stop: ends it: CONT (it may be stopped), TERM, then KILL.
#   free_port: a loopback port nobody listens on (bash's /dev/tcp: refused).
ETCD_URL= ETCD_PID=

free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 40000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
}

etcd_single_healthy() {
    curl -s --max-time 2 "$ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"'
}

etcd_single_start() {
    local etcd=$1 dir=$2 cp pp try
    for try in 1 2 3; do
        cp=$(free_port) pp=$(free_port)
        ETCD_URL=http://127.0.0.1:$cp
        rm -rf "$dir"
        "$etcd" --name e0 --data-dir "$dir" --listen-client-urls "$ETCD_URL" \
            --advertise-client-urls "$ETCD_URL" --listen-peer-urls "http://127.0.0.1:$pp" \
            --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
            --initial-cluster "e0=http://127.0.0.1:$pp" --initial-cluster-state new \
            >>"$dir.log" 2>&1 &
        ETCD_PID=$!
        for _ in $(seq 300); do
            etcd_single_healthy && return 0
            kill -0 "$ETCD_PID" 2>/dev/null || break
            sleep 0.1
        done
        etcd_single_stop
    done
    return 1
}

etcd_single_stop() {
    [ -n "$ETCD_PID" ] || return 0
    kill -CONT "$ETCD_PID" 2>/dev/null
    kill -TERM "$ETCD_PID" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "$ETCD_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$ETCD_PID" 2>/dev/null
    wait "$ETCD_PID" 2>/dev/null
    ETCD_PID=
}
