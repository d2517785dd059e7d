# test_lib.sh — sourced by the server test scripts: the counting of
# ../check_lib.sh (pass, fail, check, finish), the tool check, PY (Debian's python3,
# which has python3-redis, rather than another python3 in PATH), and
# start/stop/waitfor of a toidd ($TOIDD, logs in $WORK, pids added to
# $SERVER_PIDS for the caller's cleanup).
# pass, fail, check, finish
. "$(dirname "${BASH_SOURCE[0]}")/../check_lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
need_tools() {   # need_tools TOOL...: each installed, or a failure and the end
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null; then
            fail "$tool is not installed (see the README's install command)"
            finish
        fi
    done
}

# start NAME ARGS...: toidd in the background (ports 0 unless ARGS say),
# with the environment START_ENV (e.g. libfaketime); sets PID, HP, RP, LOG.
# Returns 1 if it did not start within 10 s.
# kill_servers: every toidd started here, by PID (SIGKILL: the tests that
# need a clean stop call stop). cleanup_work: that, and $WORK removed; the
# usual EXIT trap of a suite.
SERVER_PIDS=""
kill_servers() {
    local p
    for p in $SERVER_PIDS; do
        kill -KILL "$p" 2>/dev/null
    done
}
cleanup_work() {
    kill_servers
    rm -rf "$WORK"
}

START_ENV=()
start() {
    local name=$1
    shift
    LOG=$WORK/$name.log
    : >"$LOG"
    env "${START_ENV[@]}" "$TOIDD" --http 127.0.0.1:0 --resp 127.0.0.1:0 --threads 2 "$@" 2>>"$LOG" &
    PID=$!
    SERVER_PIDS="$SERVER_PIDS $PID"
    local i
    for i in $(seq 100); do
        if grep -q ' started: ' "$LOG"; then
            HP=$(sed -n 's/.*listening: http [0-9[].* (port \([0-9]*\)).*/\1/p' "$LOG" | head -1)
            RP=$(sed -n 's/.*listening: resp [0-9[].* (port \([0-9]*\)).*/\1/p' "$LOG" | head -1)
            return 0
        fi
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
# waitfor PID: at most 15 s; STATUS = its exit status
waitfor() {
    local i
    for i in $(seq 150); do
        if ! kill -0 "$1" 2>/dev/null; then
            wait "$1"
            STATUS=$?
            return 0
        fi
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null
    wait "$1"
    STATUS=timeout
    return 1
}
stop() {
    kill -TERM "$PID" 2>/dev/null
    waitfor "$PID"
}

# TLS files the tests make with the openssl CLI (P-256 keys, valid 2 days):
# tls_ca DIR: a CA, DIR/ca.pem and DIR/ca.key. tls_cert DIR NAME CN: a
# certificate that CA signs, DIR/NAME.pem and DIR/NAME.key, for localhost
# and 127.0.0.1 (as a server's or a client's). 0, or 1 (said on stderr).
tls_ca() {
    mkdir -p "$1" &&
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
            -keyout "$1/ca.key" -out "$1/ca.pem" -subj "/CN=toid test CA $RANDOM" 2>"$1/openssl.err" ||
        { cat "$1/openssl.err" >&2; return 1; }
}
tls_cert() {
    local d=$1 name=$2 cn=$3
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$d/$name.ext"
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/$name.key" \
        -out "$d/$name.csr" -subj "/CN=$cn" 2>"$d/openssl.err" &&
        openssl x509 -req -in "$d/$name.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
            -CAcreateserial -days 2 -extfile "$d/$name.ext" -out "$d/$name.pem" 2>"$d/openssl.err" ||
        { cat "$d/openssl.err" >&2; return 1; }
}
# tls_ports: HTP and RTP, the TLS ports $LOG says toidd bound.
tls_ports() {
    HTP=$(sed -n 's/.*listening: http tls .* (port \([0-9]*\)).*/\1/p' "$LOG" | head -1)
    RTP=$(sed -n 's/.*listening: resp tls .* (port \([0-9]*\)).*/\1/p' "$LOG" | head -1)
}
