#!/usr/bin/env bash
# toidd and the real Redis clients, each with its default settings:
# ioredis 5 and 6, node-redis 4 and 6 (npm, tests/server/clients, installed
# by `npm ci` there), redis-py (python3-redis), redis-cli (RESP2 and -3) and
# redis-benchmark: connect, new IDs, pipelines, MULTI/EXEC, reconnection
# across a restart, AUTH with --requirepass, all of them again over TLS with
# a client certificate (--resp-tls, --tls-ca); then --cors over HTTP. Every ID
# any client received is checked for duplicates.
#   usage: run_client_tests.sh TOIDD_BINARY
# Prints "N passed, N failed" last; exits non-zero on any failure. The npm
# libraries are skipped, with a message, only when node or node_modules is
# missing (the README's install command installs both).
set -u
export LC_ALL=C

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TOIDD_BINARY" >&2
    exit 2
fi
TOIDD=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/test_lib.sh"
CLIENTS=$HERE/clients
WORK=$(mktemp -d)
. "$(dirname "$0")/../test_registry.sh"   # $REGISTRY: where the node formats claim

cleanup() {
    [ -f "$WORK/pid" ] && kill -KILL "$(cat "$WORK/pid")" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

need_tools curl redis-cli redis-benchmark openssl "$PY" timeout

# The server runs from a script, so that the clients' restart (between
# their two phases) starts it again on the same ports and state directory.
# First start: port 0 for both, then pinned to the ports it got.
mkdir -p "$WORK/state"
cat >"$WORK/start.sh" <<EOF
#!/bin/sh
# start.sh [ARGS...]: toidd in the background on \$(cat ports); pid in pid.
# Its stdin/stdout are /dev/null: a client that runs restart.sh waits for
# the script's output pipe to close, which a server holding it never does.
cd "$WORK" || exit 1
: >log
"$TOIDD" --state-dir "$WORK/state" --threads 2 --http 127.0.0.1:\$(sed -n 1p ports) \\
    --resp 127.0.0.1:\$(sed -n 2p ports) \$(cat extra 2>/dev/null) "\$@" </dev/null >/dev/null 2>>log &
echo \$! >pid
i=0
while [ \$i -lt 100 ]; do
    grep -q ' started: ' log && exit 0
    kill -0 \$(cat pid) 2>/dev/null || exit 1
    sleep 0.1
    i=\$((i + 1))
done
exit 1
EOF
cat >"$WORK/restart.sh" <<EOF
#!/bin/sh
# restart.sh: SIGTERM, wait for the exit (at most 15 s), start again. (The
# server is nobody's child once start.sh has exited: where no init reaps it,
# it stays a zombie, which counts as exited.)
cd "$WORK" || exit 1
p=\$(cat pid)
kill -TERM \$p
i=0
while kill -0 \$p 2>/dev/null && [ "\$(cut -d' ' -f3 /proc/\$p/stat 2>/dev/null)" != Z ] &&
    [ \$i -lt 150 ]; do sleep 0.1; i=\$((i + 1)); done
kill -KILL \$p 2>/dev/null
sh "$WORK/start.sh"
EOF
printf '0\n0\n' >"$WORK/ports"
if ! sh "$WORK/start.sh"; then
    fail "toidd did not start: $(tail -2 "$WORK/log")"
    finish
fi
HP=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/log" | head -1)
RP=$(sed -n 's/.*listening: resp 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/log" | head -1)
printf '%s\n%s\n' "$HP" "$RP" >"$WORK/ports"
sh "$WORK/restart.sh" || { fail "restart on the same ports: $(tail -2 "$WORK/log")"; finish; }
IDS=$WORK/ids
: >"$IDS"

# keep_ids NAME FILE: a client's output must end in "ok"; its IDs are kept
keep_ids() {
    if [ "$(tail -1 "$2")" = ok ]; then
        pass
        grep -v '^ok$' "$2" >>"$IDS"
    else
        fail "$1: $(tail -3 "$2.err" 2>/dev/null | tr '\n' ' ')"
    fi
}

# --- npm libraries, default settings ---------------------------------------
NODE_OK=0
if ! command -v node >/dev/null; then
    echo "SKIP: node is not installed: ioredis and node-redis not tested (see the README)"
elif [ ! -d "$CLIENTS/node_modules" ]; then
    echo "SKIP: $CLIENTS/node_modules is missing: run 'npm ci' there (the README's install command does)"
else
    NODE_OK=1
    for lib in ioredis5 ioredis6 redis4 redis6; do
        timeout 90 node "$CLIENTS/clients.js" "$lib" "$RP" "$WORK/restart.sh" \
            >"$WORK/$lib.out" 2>"$WORK/$lib.out.err"
        keep_ids "$lib: defaults, IDs, pipeline, MULTI/EXEC, reconnect after a restart" "$WORK/$lib.out"
    done
fi

# --- redis-py (python3-redis) ----------------------------------------------
if "$PY" -c 'import redis' 2>/dev/null; then
    timeout 90 "$PY" "$CLIENTS/clients_py.py" "$RP" "$WORK/restart.sh" >"$WORK/py.out" 2>"$WORK/py.out.err"
    keep_ids "redis-py: defaults, IDs, pipeline() (MULTI/EXEC), reconnect after a restart" "$WORK/py.out"
else
    fail "python3-redis is not installed (see the README's install command)"
fi

# --- redis-cli and redis-benchmark -----------------------------------------
R() { timeout 10 redis-cli -p "$RP" "$@"; }
out=$(R -3 ID.NEW ulid 3)
check "redis-cli -3 (HELLO 3): an array of 3 IDs" [ "$(grep -c '^[0-9A-Z]\{26\}$' <<<"$out")" = 3 ]
grep '^[0-9A-Z]\{26\}$' <<<"$out" >>"$IDS"
check "redis-cli -3 HELLO 3: proto 3" grep -q '^proto 3$' <<<"$(R -3 HELLO 3)"
check "redis-cli INFO: server, clients, stats" \
    bash -c 'o=$(redis-cli -p "$0" INFO); grep -q "^redis_version:" <<<"$o" && grep -q "^connected_clients:[1-9]" <<<"$o" && grep -q "^total_commands_processed:" <<<"$o"' "$RP"
check "redis-cli INFO clients: that section only" \
    bash -c 'o=$(redis-cli -p "$0" INFO clients); grep -q "^# Clients" <<<"$o" && ! grep -q "^# Server" <<<"$o"' "$RP"
out=$(printf 'MULTI\nID.NEW nanoflake 2\nCLIENT ID\nEXEC\n' | R)
check "redis-cli MULTI/EXEC: OK, QUEUED, QUEUED, the results" \
    [ "$(sed -n 1,3p <<<"$out" | tr '\n' ' ')" = "OK QUEUED QUEUED " ]
grep '^[0-9A-Za-z_-]\{13\}$' <<<"$out" >>"$IDS"
out=$(printf 'MULTI\nNOSUCH\nEXEC\n' | R)
check "MULTI with an unknown command: EXECABORT" grep -q '^EXECABORT' <<<"$out"
check "EXEC without MULTI" grep -q '^ERR EXEC without MULTI' <<<"$(R EXEC)"
check "DISCARD" [ "$(printf 'MULTI\nID.NEW ulid\nDISCARD\nPING\n' | R | tr '\n' ' ')" = "OK QUEUED OK PONG " ]
out=$(printf 'CLIENT SETNAME one\nCLIENT GETNAME\nCLIENT INFO\nCLIENT LIST\n' | R)
check "CLIENT SETNAME/GETNAME/INFO/LIST" \
    bash -c 'grep -q "^one$" <<<"$0" && grep -q "^id=[0-9]* addr=127.0.0.1:[0-9]* .*name=one" <<<"$0"' "$out"
check "CLIENT SETNAME refuses a blank" grep -q '^ERR Client names cannot' <<<"$(R CLIENT SETNAME 'a b')"
check "CLIENT GETNAME without a name (RESP3 null)" [ "$(printf 'HELLO 3\r\nCLIENT GETNAME\r\nQUIT\r\n' |
    timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; cat >&3; cat <&3' "$RP" | grep -c '^_')" = 1 ]
bench=$(timeout 60 redis-benchmark -p "$RP" -n 20000 -c 8 -P 16 -q ID.NEW nanoflake 2>&1)
check "redis-benchmark -P 16 ID.NEW: requests per second, no error" \
    bash -c 'grep -q "requests per second" <<<"$0" && ! grep -qi "err" <<<"$0"' "$bench"
bench=$(timeout 60 redis-benchmark -p "$RP" -n 5000 -c 8 -q -t ping 2>&1)
check "redis-benchmark -t ping (its CONFIG GET, then PING)" grep -q "requests per second" <<<"$bench"

# --- AUTH with --requirepass -----------------------------------------------
echo "--requirepass s3cret" >"$WORK/extra"
if sh "$WORK/restart.sh"; then
    check "--requirepass: a command before AUTH is NOAUTH" grep -q '^NOAUTH' <<<"$(R ID.NEW ulid)"
    check "--requirepass: a wrong password is WRONGPASS" \
        grep -q 'WRONGPASS' <<<"$(R --no-auth-warning -a wrong ID.NEW ulid 2>&1)"
    out=$(R --no-auth-warning -a s3cret ID.NEW ulid)
    check "--requirepass: AUTH, then IDs" grep -q '^[0-9A-Z]\{26\}$' <<<"$out"
    grep '^[0-9A-Z]\{26\}$' <<<"$out" >>"$IDS"
    check "--requirepass: HELLO 3 AUTH default PASSWORD" \
        grep -q '^proto$' <<<"$(R HELLO 2 AUTH default s3cret)"
    check "--requirepass: HELLO 3 without AUTH is NOAUTH" grep -q '^NOAUTH' <<<"$(R HELLO 3)"
    if [ "$NODE_OK" = 1 ]; then
        for lib in ioredis6 redis6; do
            timeout 90 node "$CLIENTS/clients.js" "$lib" "$RP" "$WORK/restart.sh" s3cret \
                >"$WORK/$lib.auth.out" 2>"$WORK/$lib.auth.out.err"
            keep_ids "$lib with a password" "$WORK/$lib.auth.out"
        done
    fi
    timeout 90 "$PY" "$CLIENTS/clients_py.py" "$RP" "$WORK/restart.sh" s3cret \
        >"$WORK/py.auth.out" 2>"$WORK/py.auth.out.err"
    keep_ids "redis-py with a password" "$WORK/py.auth.out"
else
    fail "start with --requirepass: $(tail -2 "$WORK/log")"
fi

# --- over TLS, mutual (--resp-tls, --tls-ca) --------------------------------
# Every library verifies the server against the test's CA and shows a client
# certificate that CA signed, on a TLS port pinned across the restart.
T=$WORK/tls
if tls_ca "$T" && tls_cert "$T" srv localhost && tls_cert "$T" cli client; then
    tls_extra() { echo "--resp-tls 127.0.0.1:$1 --tls-cert $T/srv.pem --tls-key $T/srv.key --tls-ca $T/ca.pem" >"$WORK/extra"; }
    tls_extra 0
    if sh "$WORK/restart.sh"; then
        RTP=$(sed -n 's/.*listening: resp tls 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/log" | head -1)
        tls_extra "$RTP"
    fi
    if [ -n "${RTP:-}" ] && sh "$WORK/restart.sh"; then
        if [ "$NODE_OK" = 1 ]; then
            for lib in ioredis5 ioredis6 redis4 redis6; do
                TOID_TLS_DIR=$T timeout 90 node "$CLIENTS/clients.js" "$lib" "$RTP" "$WORK/restart.sh" \
                    >"$WORK/$lib.tls.out" 2>"$WORK/$lib.tls.out.err"
                keep_ids "$lib over TLS with a client certificate (and reconnect)" "$WORK/$lib.tls.out"
            done
        fi
        TOID_TLS_DIR=$T timeout 90 "$PY" "$CLIENTS/clients_py.py" "$RTP" "$WORK/restart.sh" \
            >"$WORK/py.tls.out" 2>"$WORK/py.tls.out.err"
        keep_ids "redis-py ssl=True with a client certificate (and reconnect)" "$WORK/py.tls.out"
        out=$(timeout 10 redis-cli --tls --cacert "$T/ca.pem" --cert "$T/cli.pem" --key "$T/cli.key" \
            -p "$RTP" ID.NEW ulid 2)
        check "redis-cli --tls with a client certificate" [ "$(grep -c '^[0-9A-Z]\{26\}$' <<<"$out")" = 2 ]
        grep '^[0-9A-Z]\{26\}$' <<<"$out" >>"$IDS"
        check "redis-benchmark --tls: no error" \
            bash -c 'o=$(timeout 60 redis-benchmark --tls --cacert "$0/ca.pem" --cert "$0/cli.pem" --key "$0/cli.key" -p "$1" -n 5000 -c 4 -P 8 -q ID.NEW nanoflake 2>&1); grep -q "requests per second" <<<"$o" && ! grep -qi "err" <<<"$o"' \
            "$T" "$RTP"
    else
        fail "start with --resp-tls: $(tail -2 "$WORK/log")"
    fi
else
    fail "openssl could not make the test certificates"
fi

# --- --cors ------------------------------------------------------------------
echo "--cors https://app.example" >"$WORK/extra"
if sh "$WORK/restart.sh"; then
    out=$(curl -s -i --max-time 10 "127.0.0.1:$HP/v1/new/ulid" | tr -d '\r')
    check "--cors: Access-Control-Allow-Origin on a response" \
        grep -q '^Access-Control-Allow-Origin: https://app.example$' <<<"$out"
    tail -1 <<<"$out" >>"$IDS"
    out=$(curl -s -i --max-time 10 -X OPTIONS -H 'Origin: https://app.example' \
        -H 'Access-Control-Request-Method: GET' "127.0.0.1:$HP/v1/new/ulid" | tr -d '\r')
    check "--cors: a preflight is 204 with the methods" \
        bash -c 'grep -q "^HTTP/1.1 204" <<<"$0" && grep -q "^Access-Control-Allow-Methods: GET, HEAD$" <<<"$0" && ! grep -qi "^content-length" <<<"$0"' "$out"
else
    fail "start with --cors: $(tail -2 "$WORK/log")"
fi
: >"$WORK/extra"
sh "$WORK/restart.sh" || fail "restart without options"
out=$(curl -s -i --max-time 10 "127.0.0.1:$HP/healthz" | tr -d '\r')
check "without --cors: no CORS header" bash -c '! grep -qi "^Access-Control" <<<"$0"' "$out"
check "without --cors: OPTIONS is 405" \
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X OPTIONS "127.0.0.1:$HP/healthz")" = 405 ]
check "toidd --cors refuses a header-splitting origin" \
    bash -c '"$0" --no-state --cors "$(printf "a\r\nX: y")" 2>/dev/null; [ $? = 2 ]' "$TOIDD"

# --- every ID any client received, once --------------------------------------
n=$(wc -l <"$IDS")
check "IDs from every client: $n, no duplicate" \
    bash -c '[ "$1" -gt 50 ] && [ -z "$(sort "$0" | uniq -d | head -1)" ]' "$IDS" "$n"
kill -TERM "$(cat "$WORK/pid")" 2>/dev/null
finish
