#!/usr/bin/env bash
# bench_server.sh — toidd against the reference servers, in the same run on
# the same machine: nginx answering a fixed response (HTTP) and redis-server
# answering INCR and LRANGE (RESP). The load generators (wrk,
# redis-benchmark) share the cores with the server under test, as they would
# on a small host. Rounds are interleaved (peer, toidd, peer, toidd, ...) so
# that drift in the machine's speed hits both; medians are reported, with the
# ratio toidd / peer. Each peer is compared with toidd on the same number of
# worker threads (nginx: one per core; redis-server: one), and toidd's
# default (one per core) is shown over RESP as well.
# Then the same over TLS (certificates made here with the openssl CLI,
# P-256, TLS 1.3, kept-alive connections): redis-server --tls-port against
# toidd --resp-tls, and nginx `listen ssl` against toidd --http-tls.
#
# usage: bench/bench_server.sh [TOIDD] [ROUNDS] [SECONDS]
#   TOIDD    the server binary (default build/server/toidd)
#   ROUNDS   interleaved rounds per figure (default 5)
#   SECONDS  length of each wrk run; redis-benchmark runs are sized to about
#            the same (default 5)
# BENCH_GROUPS="plain tls" (the default) picks the groups run.
# needs: wrk nginx redis-server redis-tools openssl (apt-get install -y wrk nginx redis-server)
set -u
export LC_ALL=C

TOIDD=${1:-build/server/toidd}
ROUNDS=${2:-5}
SECS=${3:-5}
CONNS=50
FORMAT=ulid

GROUPS_RUN=${BENCH_GROUPS:-plain tls}
for tool in wrk nginx redis-server redis-benchmark openssl "$TOIDD"; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "$tool" ]; then
        echo "bench_server: '$tool' not found (apt-get install -y wrk nginx redis-server; build toidd)" >&2
        exit 2
    fi
done

WORK=$(mktemp -d /tmp/bench_server.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# Free loopback ports: ones that nothing answers on (set into PORTS).
PORTS=()
pick_ports() {
    local p=21000
    while [ ${#PORTS[@]} -lt "$1" ]; do
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || PORTS+=("$p")
        p=$((p + 1))
    done
}
wait_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "bench_server: nothing listens on port $1" >&2
    exit 1
}

THREADS=$(nproc)
pick_ports 9
NGINX_PORT=${PORTS[0]} REDIS_PORT=${PORTS[1]} HTTP_PORT=${PORTS[2]} RESP_PORT=${PORTS[3]}
RESP1_PORT=${PORTS[4]} NGINX_TLS_PORT=${PORTS[5]} REDIS_TLS_PORT=${PORTS[6]}
HTTP_TLS_PORT=${PORTS[7]} RESP_TLS_PORT=${PORTS[8]}

# TLS: a CA and a server certificate for 127.0.0.1 that it signs
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=bench-ca \
    -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
    -keyout "$WORK/srv.key" -out "$WORK/srv.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$WORK/srv.ext"
openssl x509 -req -in "$WORK/srv.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial \
    -days 1 -extfile "$WORK/srv.ext" -out "$WORK/srv.pem" 2>/dev/null

# nginx: the same number of workers as toidd has threads, no logging, a
# 26-byte body (a ULID and a newline) and a 100-line one, keep-alive forever.
ulid_line="01ARZ3NDEKTSV4RRFFQ69G5FAV\n"
hundred=$(for _ in $(seq 100); do printf '%s' "$ulid_line"; done)
cat >"$WORK/nginx.conf" <<EOF
worker_processes $THREADS;
pid $WORK/nginx.pid;
error_log $WORK/nginx.err;
daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000000;
  server {
    listen 127.0.0.1:$NGINX_PORT reuseport;
    location = /one { default_type text/plain; return 200 "$ulid_line"; }
    location = /hundred { default_type text/plain; return 200 "$hundred"; }
  }
  server {
    listen 127.0.0.1:$NGINX_TLS_PORT ssl reuseport;
    ssl_certificate $WORK/srv.pem;
    ssl_certificate_key $WORK/srv.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location = /one { default_type text/plain; return 200 "$ulid_line"; }
  }
}
EOF
nginx -p "$WORK" -c "$WORK/nginx.conf" & PIDS+=($!)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize no --logfile "$WORK/redis.log" & PIDS+=($!)
redis-server --port 0 --tls-port "$REDIS_TLS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --tls-cert-file "$WORK/srv.pem" --tls-key-file "$WORK/srv.key" \
    --tls-ca-cert-file "$WORK/ca.pem" --tls-auth-clients no \
    --daemonize no --logfile "$WORK/redis-tls.log" & PIDS+=($!)
# toidd as configured by default (one worker per core) for HTTP beside nginx's
# workers, and with one worker beside redis-server's one thread (the same CPU
# budget: a second worker competes with the load generator for the cores).
# Their node claims in a registry of their own (the host's may not be set up).
mkdir -p "$WORK/state" "$WORK/state1" "$WORK/claims"
"$TOIDD" --state-dir "$WORK/state" --claim "local=$WORK/claims" --http "127.0.0.1:$HTTP_PORT" \
    --resp "127.0.0.1:$RESP_PORT" \
    --threads "$THREADS" 2>"$WORK/toidd.log" & PIDS+=($!)
"$TOIDD" --state-dir "$WORK/state1" --claim "local=$WORK/claims" --http off --resp "127.0.0.1:$RESP1_PORT" \
    --resp-tls "127.0.0.1:$RESP_TLS_PORT" --tls-cert "$WORK/srv.pem" --tls-key "$WORK/srv.key" \
    --threads 1 2>"$WORK/toidd1.log" & PIDS+=($!)
mkdir -p "$WORK/state2"
"$TOIDD" --state-dir "$WORK/state2" --claim "local=$WORK/claims" --http off --resp off \
    --http-tls "127.0.0.1:$HTTP_TLS_PORT" \
    --tls-cert "$WORK/srv.pem" --tls-key "$WORK/srv.key" --threads "$THREADS" \
    2>"$WORK/toidd2.log" & PIDS+=($!)
for p in "$NGINX_PORT" "$REDIS_PORT" "$HTTP_PORT" "$RESP_PORT" "$RESP1_PORT" "$NGINX_TLS_PORT" \
    "$REDIS_TLS_PORT" "$HTTP_TLS_PORT" "$RESP_TLS_PORT"; do wait_port "$p"; done

# the list LRANGE reads: 100+ elements of 26 bytes, as 100 ULIDs would be
redis-benchmark -p "$REDIS_PORT" -t lpush -n 1000 -d 26 -q >/dev/null 2>&1
# ...and the key GET reads, a 26-byte value
redis-benchmark -p "$REDIS_PORT" -t set -n 1000 -d 26 -q >/dev/null 2>&1

wrk_rate() {    # URL -> requests/s
    wrk -t1 -c"$CONNS" -d"${SECS}s" "$1" 2>/dev/null | awk '/^Requests\/sec:/ {print $2}'
}
# redis-benchmark prints "NAME: RATE requests per second, p50=..." last; the
# field before "requests" is the rate.
# (RB_TLS: the options that make redis-benchmark speak TLS, else empty)
RB_TLS=()
rb_rate() {     # PORT REQUESTS PIPELINE ARGS... -> requests/s
    local port=$1 n=$2 pipe=$3
    shift 3
    redis-benchmark "${RB_TLS[@]}" -p "$port" -c "$CONNS" -n "$n" -P "$pipe" -q "$@" 2>/dev/null |
        tr '\r' '\n' | grep 'requests per second' | tail -1 |
        sed 's/.*: \([0-9.]*\) requests per second.*/\1/'
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# size redis-benchmark runs to about SECS at the rates seen here
N_SINGLE=$((90000 * SECS))
N_PIPE=$((1300000 * SECS))
N_HUNDRED=$((45000 * SECS))

declare -A R
run() {     # KEY COMMAND...: appends one figure
    local key=$1
    shift
    local v
    v=$("$@")
    [ -n "$v" ] || v=0
    R[$key]+="$v "
    printf '  %-22s %12.0f\n' "$key" "$v"
}

tls_rb_rate() {  # rb_rate over TLS
    RB_TLS=(--tls --cacert "$WORK/ca.pem")
    rb_rate "$@"
    RB_TLS=()
}

echo "bench_server: $THREADS cores shared with the load generators; $ROUNDS rounds of ${SECS} s;"
echo "  wrk -t1 -c$CONNS, redis-benchmark -c$CONNS; nginx $THREADS workers and toidd --threads $THREADS;"
echo "  redis-server (one thread) and toidd --threads 1, and toidd --threads $THREADS"
for r in $(seq "$ROUNDS"); do
    echo "round $r"
    if [[ " $GROUPS_RUN " == *" tls "* ]]; then
        run tls_http_nginx wrk_rate "https://127.0.0.1:$NGINX_TLS_PORT/one"
        run tls_http_toidd wrk_rate "https://127.0.0.1:$HTTP_TLS_PORT/v1/new/$FORMAT"
        run tls_resp_redis_incr tls_rb_rate "$REDIS_TLS_PORT" "$N_SINGLE" 1 -t incr
        run tls_resp_toidd_1w tls_rb_rate "$RESP_TLS_PORT" "$N_SINGLE" 1 ID.NEW "$FORMAT"
        run tls_resp16_redis_incr tls_rb_rate "$REDIS_TLS_PORT" "$N_PIPE" 16 -t incr
        run tls_resp16_toidd_1w tls_rb_rate "$RESP_TLS_PORT" "$N_PIPE" 16 ID.NEW "$FORMAT"
    fi
    [[ " $GROUPS_RUN " == *" plain "* ]] || continue
    run http_nginx wrk_rate "http://127.0.0.1:$NGINX_PORT/one"
    run http_toidd wrk_rate "http://127.0.0.1:$HTTP_PORT/v1/new/$FORMAT"
    run resp_redis_incr rb_rate "$REDIS_PORT" "$N_SINGLE" 1 -t incr
    run resp_redis_get26 rb_rate "$REDIS_PORT" "$N_SINGLE" 1 -d 26 -t get
    run resp_toidd_1w rb_rate "$RESP1_PORT" "$N_SINGLE" 1 ID.NEW "$FORMAT"
    run resp_toidd rb_rate "$RESP_PORT" "$N_SINGLE" 1 ID.NEW "$FORMAT"
    run resp16_redis_incr rb_rate "$REDIS_PORT" "$N_PIPE" 16 -t incr
    run resp16_redis_get26 rb_rate "$REDIS_PORT" "$N_PIPE" 16 -d 26 -t get
    run resp16_toidd_1w rb_rate "$RESP1_PORT" "$N_PIPE" 16 ID.NEW "$FORMAT"
    run resp16_toidd rb_rate "$RESP_PORT" "$N_PIPE" 16 ID.NEW "$FORMAT"
    run http100_nginx wrk_rate "http://127.0.0.1:$NGINX_PORT/hundred"
    run http100_toidd wrk_rate "http://127.0.0.1:$HTTP_PORT/v1/new/$FORMAT?count=100"
    run resp100_redis_lrange rb_rate "$REDIS_PORT" "$N_HUNDRED" 1 -d 26 -t lrange_100
    run resp100_toidd_1w rb_rate "$RESP1_PORT" "$N_HUNDRED" 1 ID.NEW "$FORMAT" 100
    run resp100_toidd rb_rate "$RESP_PORT" "$N_HUNDRED" 1 ID.NEW "$FORMAT" 100
done

med() { tr ' ' '\n' <<<"${R[$1]}" | grep . | median; }
row() {     # LABEL PEER_KEY TOIDD_KEY GOAL IDS_PER_REQUEST
    local peer toidd
    peer=$(med "$2")
    toidd=$(med "$3")
    awk -v l="$1" -v p="$peer" -v t="$toidd" -v g="$4" -v k="$5" 'BEGIN {
        ratio = p > 0 ? t / p : 0
        goal = g == "-" ? "" : (g ~ /^ids>=/ ? "" : sprintf("goal >= %s x: %s", g, ratio >= g ? "met" : "MISSED"))
        if (g ~ /^ids>=/) { want = substr(g, 6); goal = sprintf("goal >= %.1f M IDs/s: %s", want / 1e6, t * k >= want ? "met" : "MISSED") }
        printf "%-34s %11.0f %11.0f %6.3f  %11.0f  %s\n", l, p, t, ratio, t * k, goal
    }'
}
echo
echo "medians of $ROUNDS rounds (req/s)         peer       toidd  ratio     toidd IDs/s"
if [[ " $GROUPS_RUN " == *" tls "* ]]; then
    echo "over TLS 1.3 (kept-alive connections: the handshakes are not what is measured):"
    row "HTTPS 1 ID (nginx ssl fixed resp.)" tls_http_nginx tls_http_toidd - 1
    row "RESP TLS 1 ID (redis INCR), 1 worker" tls_resp_redis_incr tls_resp_toidd_1w 0.9 1
    row "RESP TLS -P16 (redis INCR), 1 worker" tls_resp16_redis_incr tls_resp16_toidd_1w 0.9 1
fi
[[ " $GROUPS_RUN " == *" plain "* ]] || exit 0
row "HTTP 1 ID (nginx fixed response)" http_nginx http_toidd 0.92 1
row "RESP 1 ID (redis INCR), 1 worker" resp_redis_incr resp_toidd_1w 0.94 1
row "RESP -P16 (redis INCR -P16), 1 worker" resp16_redis_incr resp16_toidd_1w 0.9 1
row "HTTP 100 IDs (nginx 100 lines)" http100_nginx http100_toidd ids\>=5000000 100
row "RESP 100 IDs (redis LRANGE 100), 1 w" resp100_redis_lrange resp100_toidd_1w ids\>=5000000 100
echo "the same, beside redis GET of a 26-byte value: a reply of the same shape as a ULID's"
echo "(redis-benchmark, not the server, is the busier process at these rates):"
row "RESP 1 ID (redis GET 26 B), 1 worker" resp_redis_get26 resp_toidd_1w - 1
row "RESP -P16 (redis GET 26 B), 1 worker" resp16_redis_get26 resp16_toidd_1w - 1
echo "toidd with its default $THREADS workers over RESP (the load generator shares the cores):"
row "RESP 1 ID (redis INCR)" resp_redis_incr resp_toidd - 1
row "RESP -P16 (redis INCR -P16)" resp16_redis_incr resp16_toidd - 1
row "RESP 100 IDs (redis LRANGE 100)" resp100_redis_lrange resp100_toidd - 100
