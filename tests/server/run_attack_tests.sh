#!/usr/bin/env bash
# toidd against hostile clients and a hostile environment. Each case asserts
# a bounded outcome: an error reply or a close, the server still serving
# afterwards, its RSS back near the baseline, no duplicate ID.
#   usage: run_attack_tests.sh TOIDD_BINARY
# Cases, most dangerous first: a second server on a served address (the
# 15,200-duplicates scenario of issue 15), bad listen addresses before any
# state is touched, timeout(1)'s double SIGTERM, SIGTERM under load; RESP
# and HTTP framing attacks (huge/negative bulk lengths, *-1, nested and
# 1M-element arrays, 1 MB inline commands, binary garbage, request
# smuggling shapes, NUL bytes), 10,000 pipelined requests, a client that
# never reads, slowloris, a flood past --max-connections, `ulimit -n 64`;
# the state directory on a full tmpfs and read-only (needs mount: skipped
# with a message where not permitted), a symlinked mark; protocol edges
# (issue 27), each reply compared byte for byte: HELLO all or nothing, an
# HTTP query parameter given twice (every format, every endpoint), replies
# past --max-output-bytes (EXEC refused before it runs, at the byte; a reply
# of unknown size replaced by an error; redis-py's view of it; pipelined
# HTTP responses past it together), RESP lengths <= 0 as Redis reads them.
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -u
export LC_ALL=C

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TOIDD_BINARY" >&2
    exit 2
fi
TOIDD=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/test_lib.sh"
ATTACK="$PY $HERE/attack.py"
WORK=$(mktemp -d)
. "$(dirname "$0")/../test_registry.sh"   # $REGISTRY: where the node formats claim
MOUNTS=""

cleanup() {
    kill_servers
    for m in $MOUNTS; do
        umount "$m" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

need_tools curl redis-cli "$PY" timeout

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
serving() { [ "$(timeout 10 redis-cli -p "$RP" PING 2>/dev/null)" = PONG ] &&
            [ "$(curl -s --max-time 10 "127.0.0.1:$HP/healthz")" = ok ]; }
nodups() { [ -z "$(sort "$@" | uniq -d | head -1)" ]; }
# state_snapshot DIR: names, sizes and contents of the files in DIR
state_snapshot() { (cd "$1" && for f in *; do [ -e "$f" ] && printf '%s %s\n' "$f" "$(od -An -tx1 "$f" | tr -d ' \n')"; done) 2>/dev/null; }

# --- 1. one port, one server ---------------------------------------------------
mkdir -p "$WORK/s6" "$WORK/s7" "$WORK/s8"
if start first --state-dir "$WORK/s6"; then
    A=$PID AHP=$HP ARP=$RP
    before=$(state_snapshot "$WORK/s6")
    timeout 20 "$TOIDD" --state-dir "$WORK/s7" --http "127.0.0.1:$AHP" --resp 127.0.0.1:0 \
        2>"$WORK/second.log" >/dev/null
    STATUS=$?
    check "a second toidd on a served HTTP address: exit 2 (got $STATUS)" [ "$STATUS" = 2 ]
    check "... saying 'address in use'" grep -q "127.0.0.1:$AHP: address in use" "$WORK/second.log"
    check "... before touching its state directory" [ -z "$(ls -A "$WORK/s7")" ]
    timeout 20 "$TOIDD" --state-dir "$WORK/s7" --http off --resp "127.0.0.1:$ARP" 2>"$WORK/second.log" >/dev/null
    STATUS=$?
    check "a second toidd on a served RESP address: exit 2 (got $STATUS)" [ "$STATUS" = 2 ]
    timeout 20 "$TOIDD" --state-dir "$WORK/s6" --http "127.0.0.1:$AHP" --resp 127.0.0.1:0 \
        2>"$WORK/second.log" >/dev/null
    STATUS=$?
    check "... with the same state directory: exit 2, address in use (got $STATUS)" \
        bash -c '[ "$0" = 2 ] && grep -q "address in use" "$1"' "$STATUS" "$WORK/second.log"
    timeout 20 "$TOIDD" --state-dir "$WORK/s7" --http "0.0.0.0:$AHP" --resp 127.0.0.1:0 \
        2>"$WORK/second.log" >/dev/null
    STATUS=$?
    check "... on the wildcard address of the same port: exit 2 (got $STATUS)" [ "$STATUS" = 2 ]
    # the issue's scenario: 60,000 nanoflakes, each request on a new connection
    $ATTACK fetch "$AHP" 3000 20 nanoflake >"$WORK/fetched" 2>"$WORK/fetched.err"
    n=$(wc -l <"$WORK/fetched")
    check "60,000 nanoflakes over 3,000 new connections: all from one server ($n)" [ "$n" = 60000 ]
    check "... without a duplicate" nodups "$WORK/fetched"
    # a unix socket another server accepts on is not taken over
    kill -TERM "$A"
    waitfor "$A"
    check "the first server drained and exited 0 ($STATUS)" [ "$STATUS" = 0 ]
    if start unix1 --state-dir "$WORK/s6" --resp-unix "$WORK/r.sock"; then
        U=$PID
        timeout 20 "$TOIDD" --state-dir "$WORK/s7" --http 127.0.0.1:0 --resp 127.0.0.1:0 \
            --resp-unix "$WORK/r.sock" 2>"$WORK/second.log" >/dev/null
        STATUS=$?
        check "a second toidd on a served unix socket: exit 2, address in use ($STATUS)" \
            bash -c '[ "$0" = 2 ] && grep -q "address in use" "$1"' "$STATUS" "$WORK/second.log"
        check "... the first still serves its socket" \
            [ "$(timeout 10 redis-cli -s "$WORK/r.sock" PING)" = PONG ]
        kill -TERM "$U"
        waitfor "$U"
    else
        fail "start with --resp-unix: $(tail -1 "$LOG")"
    fi
else
    fail "start the first server: $(tail -1 "$LOG")"
fi

# --- 2. listen addresses are checked before the state ------------------------
before=$(state_snapshot "$WORK/s6")
for bad in 127.0.0.1:99999 localhost:80 127.0.0.1 '[::1]' 1.2.3.4.5:1; do
    timeout 10 "$TOIDD" --state-dir "$WORK/s6" --http "$bad" 2>"$WORK/bad.log" >/dev/null
    STATUS=$?
    check "bad --http '$bad': exit 2 (got $STATUS)" [ "$STATUS" = 2 ]
done
timeout 10 "$TOIDD" --state-dir "$WORK/s6" --http 192.0.2.1:80 2>"$WORK/bad.log" >/dev/null
STATUS=$?
check "an address not on this host: exit 2 (got $STATUS)" [ "$STATUS" = 2 ]
check "... no mark moved, no file touched in the state directory" \
    [ "$(state_snapshot "$WORK/s6")" = "$before" ]

# --- 3. signals ------------------------------------------------------------------
# timeout(1) signals its child and then its process group: SIGTERM twice
timeout 3 "$TOIDD" --state-dir "$WORK/s8" --http 127.0.0.1:0 --resp 127.0.0.1:0 --threads 2 \
    2>"$WORK/timeout.log" >/dev/null
STATUS=$?
check "timeout 3 toidd: timeout's status 124 (got $STATUS)" [ "$STATUS" = 124 ]
check "... the server drained and stopped (not 'exiting at once'): $(grep -E 'SIGTERM|stopped|second' "$WORK/timeout.log" | cut -d' ' -f3- | tr '\n' '|')" \
    bash -c 'grep -q "info: stopped" "$0" && ! grep -q "second signal: exiting" "$0"' "$WORK/timeout.log"
# SIGTERM under load: every answer complete, exit 0, no duplicate across the restart
if start load --state-dir "$WORK/s8" --formats nanoflake; then
    for k in 1 2 3 4; do
        timeout 30 $ATTACK fetch "$HP" 400 50 nanoflake >"$WORK/load$k" 2>/dev/null &
    done
    sleep 1
    kill -TERM "$PID"
    waitfor "$PID"
    check "SIGTERM under load: exit 0 ($STATUS)" [ "$STATUS" = 0 ]
    wait
    if start load2 --state-dir "$WORK/s8" --formats nanoflake; then
        $ATTACK fetch "$HP" 200 50 nanoflake >"$WORK/load5"
        stop
    fi
    check "SIGTERM under load: every answer whole, no duplicate across the restart" \
        bash -c 'cat "$@" | grep -vqx "[0-9A-Za-z_-]\{13\}" && exit 1; [ -z "$(sort "$@" | uniq -d | head -1)" ]' \
        _ "$WORK"/load[1-5]
else
    fail "start for SIGTERM under load: $(tail -1 "$LOG")"
fi

# --- 4. hostile clients ----------------------------------------------------------
if start hostile --no-state --request-timeout-ms 1500 --write-timeout-ms 1500 --max-connections 120; then
    base=$(rss_kb "$PID")
    hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
    resp_case() {   # resp_case NAME BYTES(printf %b) EXPECTED-REGEX
        local out
        out=$($ATTACK send "$RP" "$(printf '%b' "$2" | od -An -tx1 | tr -d ' \n')")
        check "RESP $1: $3" grep -qE "$3" <<<"$out"
    }
    resp_case "bulk length huge" '*1\r\n$999999999999\r\n' 'Protocol error'
    resp_case "bulk length negative" '*1\r\n$-5\r\n' 'Protocol error'
    resp_case "*-1 is ignored, as Redis does" '*-1\r\nPING\r\nQUIT\r\n' '\+PONG'
    resp_case "nested array" '*1\r\n*1\r\n$4\r\nPING\r\n' 'Protocol error'
    resp_case "1M-element array" '*1000000\r\n' 'Protocol error'
    resp_case "NUL in an inline command" 'PI\x00NG\r\n' 'Protocol error'
    big=$(head -c 1048576 /dev/zero | tr '\0' a)
    out=$(printf 'ECHO %s\r\n' "$big" | $ATTACK send "$RP" -)
    check "RESP 1 MB inline command: an error and a close" grep -q 'too big inline' <<<"$out"
    out=$(head -c 65536 /dev/urandom | $ATTACK send "$RP" -)
    check "RESP 64 KiB of random bytes: an error or a close, nothing else" \
        bash -c '[ "$0" = "b'"''"'" ] || grep -qE "^b.-ERR" <<<"$0"' "$out"
    check "RESP 10,000 pipelined PINGs: 10,000 PONGs" [ "$($ATTACK pipeline "$RP" 10000)" = 10000 ]
    check "HTTP 10,000 pipelined requests: 10,000 answers" [ "$($ATTACK http-pipeline "$HP" 10000)" = 10000 ]
    http_case() {   # http_case NAME BYTES(printf %b) EXPECTED-STATUS
        local out
        out=$($ATTACK send "$HP" "$(printf '%b' "$2" | od -An -tx1 | tr -d ' \n')")
        check "HTTP $1: $3 and a close" grep -q "^b'HTTP/1.1 $3 " <<<"$out"
    }
    http_case "Content-Length with Transfer-Encoding" 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' 501
    http_case "chunked GET" 'GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' 501
    http_case "two different Content-Lengths" 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello' 400
    http_case "NUL in the target" 'GET /heal\x00thz HTTP/1.1\r\nHost: x\r\n\r\n' 400
    http_case "NUL in a header value" 'GET /healthz HTTP/1.1\r\nHost: x\x00y\r\n\r\n' 400
    http_case "non-ASCII in the method" 'G\xc3\xa9T /healthz HTTP/1.1\r\nHost: x\r\n\r\n' 400
    http_case "bare LF then a smuggled request" 'GET /healthz HTTP/1.1\nHost: x\n\nGET /v1/new/ulid HTTP/1.1\r\nHost: x\r\n\r\n' 400
    http_case "obs-fold" 'GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n' 400
    http_case "1,000 header fields" "GET /healthz HTTP/1.1\r\nHost: x\r\n$(for i in $(seq 1000); do printf 'X%d: y\\r\\n' "$i"; done)\r\n" 431
    check "a client that never reads: dropped after --write-timeout-ms" \
        [ "$($ATTACK never-read "$RP" 2000 20)" = closed ]
    check "slowloris (200 connections, a byte a second): all closed by --request-timeout-ms" \
        [ "$($ATTACK slowloris "$HP" 100 4)" -ge 100 ]
    read -r ans ref sil <<<"$($ATTACK flood "$RP" 300)"
    check "a flood of 300 connections past --max-connections 120: ${ans:-?} answered, ${ref:-?} refused, ${sil:-?} silent" \
        bash -c '[ "${0:-0}" -ge 100 ] && [ "$((${0:-0} + ${1:-0}))" -ge 150 ]' "$ans" "$ref"
    sleep 1
    check "serving after the hostile clients" serving
    now=$(rss_kb "$PID")
    check "RSS back near the baseline (${base} kB -> ${now} kB)" [ "$now" -lt $((base + 65536)) ]
    stop
    check "exit 0 after the hostile clients ($STATUS)" [ "$STATUS" = 0 ]
else
    fail "start for hostile clients: $(tail -1 "$LOG")"
fi

# --- 5. ulimit -n 64 --------------------------------------------------------------
LOG=$WORK/ulimit.log
(ulimit -n 64 && exec "$TOIDD" --no-state --http 127.0.0.1:0 --resp 127.0.0.1:0 --threads 2) 2>"$LOG" &
PID=$!
SERVER_PIDS="$SERVER_PIDS $PID"
for i in $(seq 100); do grep -q ' started: ' "$LOG" && break; sleep 0.1; done
RP=$(sed -n 's/.*listening: resp .* (port \([0-9]*\)).*/\1/p' "$LOG" | head -1)
HP=$(sed -n 's/.*listening: http .* (port \([0-9]*\)).*/\1/p' "$LOG" | head -1)
if [ -n "$RP" ]; then
    check "ulimit -n 64: a warning at start" grep -q 'file descriptor limit (64)' "$LOG"
    $ATTACK flood "$RP" 150 >/dev/null
    sleep 0.5
    check "ulimit -n 64: accept pauses instead of spinning, then serves again" serving
    check "... and logged the pause" grep -q 'pausing the resp listener' "$LOG"
    stop
else
    fail "start under ulimit -n 64: $(tail -1 "$LOG")"
fi

# --- 6. the state directory in a hostile place ------------------------------------
if mount -t tmpfs -o size=64k tmpfs "$WORK/tiny" 2>/dev/null || { mkdir -p "$WORK/tiny" &&
        mount -t tmpfs -o size=64k tmpfs "$WORK/tiny" 2>/dev/null; }; then
    MOUNTS="$MOUNTS $WORK/tiny"
    head -c 1M /dev/zero >"$WORK/tiny/fill" 2>/dev/null   # full
    mkdir -p "$WORK/tiny/st" 2>/dev/null
    timeout 20 "$TOIDD" --state-dir "$WORK/tiny/st" --http 127.0.0.1:0 --resp 127.0.0.1:0 \
        2>"$WORK/full.log" >/dev/null
    STATUS=$?
    check "state directory on a full tmpfs: refuses to start, exit 1 ($STATUS)" [ "$STATUS" = 1 ]
    rm -f "$WORK/tiny/fill"
    mkdir -p "$WORK/tiny/st"
    if start tiny --state-dir "$WORK/tiny/st" --formats nanoflake; then
        $ATTACK fetch "$HP" 20 100 nanoflake >"$WORK/tiny1"
        head -c 1M /dev/zero >"$WORK/tiny/fill" 2>/dev/null   # full while running
        $ATTACK fetch "$HP" 20 100 nanoflake >>"$WORK/tiny1" 2>/dev/null
        stop
        rm -f "$WORK/tiny/fill"
        if start tiny2 --state-dir "$WORK/tiny/st" --formats nanoflake; then
            $ATTACK fetch "$HP" 20 100 nanoflake >>"$WORK/tiny1"
            stop
        fi
        check "filled up while serving, then restarted: no duplicate" nodups "$WORK/tiny1"
    else
        fail "start on a tiny tmpfs: $(tail -1 "$LOG")"
    fi
    umount "$WORK/tiny"
    MOUNTS=""
    mkdir -p "$WORK/ro"
    if mount -t tmpfs -o size=1m,ro tmpfs "$WORK/ro" 2>/dev/null; then
        MOUNTS="$WORK/ro"
        timeout 20 "$TOIDD" --state-dir "$WORK/ro" 2>"$WORK/ro.log" >/dev/null
        STATUS=$?
        check "a read-only state directory: refuses to start, exit 1 ($STATUS)" [ "$STATUS" = 1 ]
        umount "$WORK/ro"
        MOUNTS=""
    fi
else
    echo "SKIP: mount is not permitted here: the full and read-only tmpfs cases (CI runs them as root)"
fi
# marks replaced by garbage, zeros, a truncation, a future time, a symlink
mkdir -p "$WORK/s9"
if start marks --state-dir "$WORK/s9" --formats ulid; then
    stop
    mark=$WORK/s9/ulid-0.mark
    cp "$mark" "$WORK/good.mark"
    # a symlinked mark is refused (the claim layer opens marks O_NOFOLLOW):
    # toidd does not start, says why, and the file it points to is untouched
    ln -s "$WORK/elsewhere.mark" "$mark.new" && cp "$WORK/good.mark" "$WORK/elsewhere.mark" &&
        mv "$mark.new" "$mark"
    if start symlinked --state-dir "$WORK/s9" --formats ulid; then
        stop
        fail "a symlinked mark: started anyway"
    else
        check "a symlinked mark: refused at start, the mark named, its target untouched" \
            bash -c 'grep -q "ulid-0.mark: cannot open" "$0" && [ -L "$1" ] && cmp -s "$2" "$3"' \
            "$LOG" "$mark" "$WORK/elsewhere.mark" "$WORK/good.mark"
    fi
    rm -f "$mark"
    cp "$WORK/good.mark" "$mark"
    for kind in garbage zeroed truncated empty; do
        case $kind in
        garbage) head -c "$(stat -c %s "$WORK/good.mark")" /dev/urandom >"$mark" ;;
        zeroed) head -c "$(stat -c %s "$WORK/good.mark")" /dev/zero >"$mark" ;;
        truncated) head -c 5 "$WORK/good.mark" >"$mark" ;;
        empty) : >"$mark" ;;
        esac
        timeout 20 "$TOIDD" --state-dir "$WORK/s9" --formats ulid --http 127.0.0.1:0 --resp 127.0.0.1:0 \
            2>"$WORK/mark-$kind.log" >/dev/null &
        p=$!
        SERVER_PIDS="$SERVER_PIDS $p"
        for i in $(seq 50); do
            kill -0 "$p" 2>/dev/null || break
            grep -q ' started: ' "$WORK/mark-$kind.log" && break
            sleep 0.1
        done
        if grep -q ' started: ' "$WORK/mark-$kind.log"; then
            kill -TERM "$p"
            waitfor "$p"
            fail "a $kind mark: started anyway"
        else
            waitfor "$p"
            check "a $kind mark: refused at start, exit 1 ($STATUS), the reason logged" \
                bash -c '[ "$0" = 1 ] && grep -q "error: " "$1"' "$STATUS" "$WORK/mark-$kind.log"
        fi
        rm -f "$mark"
        cp "$WORK/good.mark" "$mark"
    done
else
    fail "start for the mark cases: $(tail -1 "$LOG")"
fi

# --- 7. protocol edges (issue 27): the exact bytes of each reply -------------------
# each request ends in QUIT (or a protocol error): the server closes, and what
# it sent up to the close is compared whole
pyrepr() { $PY -c 'import sys; print(repr(sys.stdin.buffer.read()))'; }
same() {   # same WHAT GOT WANT: a check that shows both when they differ
    if [ "$2" = "$3" ]; then
        pass
    else
        fail "$1"
        printf '  got:  %.400s\n  want: %.400s\n' "$2" "$3"
    fi
}
exact() {   # exact PORT NAME BYTES REPLY [crowd N]: the whole answer up to the close
    local mode=send extra=()   # (BYTES and REPLY as printf %b; crowd N: N other connections first)
    [ "${5:-}" = crowd ] && mode=crowd extra=("$6")
    same "$2" "$($ATTACK $mode "$1" "${extra[@]}" "$(printf '%b' "$3" | od -An -tx1 | tr -d ' \n')")" \
        "$(printf '%b' "$4" | pyrepr)"
}
NOAUTH='-NOAUTH Authentication required.\r\n'
SYNTAX="-ERR Syntax error in HELLO option 'BOGUS'\\r\\n"
WRONGPASS='-WRONGPASS invalid username-password pair or user is disabled.\r\n'
if start edges --no-state --formats ulid --requirepass pw; then
    # HELLO checks everything before it applies anything (as Redis 7.2)
    exact "$RP" "HELLO 3 AUTH <right password> BOGUS: a syntax error, ID.NEW still NOAUTH" \
        'HELLO 3 AUTH default pw BOGUS\r\nID.NEW ulid\r\nQUIT\r\n' "$SYNTAX$NOAUTH+OK\r\n"
    exact "$RP" "... with SETNAME: nothing applied (after AUTH: RESP2, no name)" \
        'HELLO 3 AUTH default pw SETNAME a BOGUS\r\nPING\r\nAUTH pw\r\nCLIENT GETNAME\r\nQUIT\r\n' \
        "$SYNTAX$NOAUTH+OK\r\n\$-1\r\n+OK\r\n"
    exact "$RP" "HELLO's errors in order: a bad version first (NOPROTO)" \
        'HELLO 4 AUTH default nope BOGUS\r\nHELLO x AUTH default pw\r\nPING\r\nQUIT\r\n' \
        "-NOPROTO unsupported protocol version\r\n-ERR Protocol version is not an integer or out of range\r\n$NOAUTH+OK\r\n"
    exact "$RP" "... then the options (a syntax error before a wrong password, a bad name)" \
        'HELLO 3 AUTH default nope BOGUS\r\nHELLO 3 SETNAME "a b" AUTH default pw\r\nPING\r\nQUIT\r\n' \
        "$SYNTAX-ERR Client names cannot contain spaces, newlines or special characters.\r\n$NOAUTH+OK\r\n"
    exact "$RP" "... then the password (WRONGPASS; the last AUTH counts), then NOAUTH" \
        'HELLO 3 AUTH default nope SETNAME a\r\nHELLO 3 AUTH default pw AUTH default nope\r\nPING\r\nHELLO 3 SETNAME a\r\nQUIT\r\n' \
        "$WRONGPASS$WRONGPASS$NOAUTH-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n+OK\r\n"
    exact "$RP" "authenticated: a refused HELLO keeps the authentication, RESP2 and the name" \
        'AUTH pw\r\nCLIENT SETNAME n\r\nHELLO 3 SETNAME b AUTH default nope\r\nHELLO 3 SETNAME c BOGUS\r\nCLIENT GETNAME\r\nQUIT\r\n' \
        "+OK\r\n+OK\r\n$WRONGPASS$SYNTAX\$1\r\nn\r\n+OK\r\n"
    out=$($ATTACK send "$RP" "$(printf 'HELLO 3 AUTH default pw SETNAME a\r\nCLIENT GETNAME\r\nQUIT\r\n' | od -An -tx1 | tr -d ' \n')")
    check "a right HELLO 3 AUTH SETNAME: the RESP3 map, then the name: $out" \
        grep -qE "^b'%7.*proto.r.n:3.*[$]1.r.na.r.n[+]OK.r.n'$" <<<"$out"
    # a query parameter given twice: a 400 naming it, whichever count was meant
    dup="the parameter count is given more than once: give it once, an integer from 0 to 10000"
    # (every format: the query is read before the format is served or even
    # generated, so a read-only one answers the same)
    formats=$(curl -s --max-time 10 "127.0.0.1:$HP/v1/formats" | grep -o '"name":"[^"]*"' | cut -d'"' -f4)
    check "the formats listed ($(echo $formats))" [ "$(wc -w <<<"$formats")" -ge 8 ]
    for f in $formats; do
        for q in 'count=1&count=5' 'count=5&count=5' 'count=1&%63ount=2' 'count=&count=1'; do
            got=$(curl -s --max-time 10 -w ' %{http_code}' "127.0.0.1:$HP/v1/new/$f?$q")
            [ "$q" = 'count=&count=1' ] && want="the parameters are count, an integer from 0 to 10000, and at=TIME" || want=$dup
            same "HTTP /v1/new/$f?$q: 400, the body names count" "$got" "$want"$'\n'" 400"
        done
    done
    same "... as JSON when asked" \
        "$(curl -s --max-time 10 -H 'Accept: application/json' -w ' %{http_code}' "127.0.0.1:$HP/v1/new/ulid?count=1&count=5")" \
        "{\"error\":\"invalid\",\"message\":\"$dup\"}"$'\n'" 400"
    same "... HEAD: 400, no body" \
        "$(curl -s --max-time 10 -I -w '%{http_code}' "127.0.0.1:$HP/v1/new/ulid?count=1&count=5" | tail -1)" 400
    # raw: the 400 keeps the connection, the next request on it is answered
    out=$($ATTACK send "$HP" "$(printf 'GET /v1/new/ulid?count=1&count=5 HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/new/ulid?count=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' | od -An -tx1 | tr -d ' \n')")
    check "raw: the 400 (its body naming count), then 2 IDs on the same connection" \
        grep -qE "^b'HTTP/1.1 400 Bad Request.r.n.*Content-Length: $((${#dup} + 1)).r.n.r.n$dup.n\
HTTP/1.1 200 OK.r.n.*Content-Length: 54.r.n.*r.n.r.n[0-9A-Z]{26}.n[0-9A-Z]{26}.n'$" <<<"$out"
    # the endpoints that take no parameter say so, naming the one given
    for path in /healthz /metrics /v1/formats /v1/layout/ulid /v1/inspect/01ARZ3NDEKTSV4RRFFQ69G5FAV / /app.js; do
        same "HTTP $path?count=1&count=5: 400, no parameters here" \
            "$(curl -s --max-time 10 -w ' %{http_code}' "127.0.0.1:$HP$path?count=1&count=5")" \
            "no query parameters here (got 'count')"$'\n'" 400"
    done
    # a reply past the output limit (--max-output-bytes, 4 MiB by default):
    # EXEC is refused before anything runs, with an error, and the
    # connection is kept (it was closed without a word)
    issued() { curl -s --max-time 10 "127.0.0.1:$HP/metrics" | sed -n 's/^toidd_ids_issued_total{format="ulid"} //p'; }
    before=$(issued)
    out=$({ printf 'AUTH pw\r\nMULTI\r\n'; for i in $(seq 1024); do printf 'ID.NEW ulid 10000\r\n'; done
            printf 'EXEC\r\nPING\r\nQUIT\r\n'; } | $ATTACK replies "$RP" - | uniq -c | sed 's/^ *//' | tr '\n' '|')
    same "MULTI, 1024 x ID.NEW ulid 10000 (338 MB), EXEC: refused with the sizes, the connection kept" "$out" \
        "2 +OK|1024 +QUEUED|1 -ERR EXEC refused: its reply would be 337928199 bytes, past the output limit of 4194304 bytes (--max-output-bytes); the transaction is discarded, nothing ran|1 +PONG|1 +OK|"
    same "... no ID was made for it (toidd_ids_issued_total of ulid)" "$(issued)" "$before"
    # what a client makes of it: redis-py's pipeline raises the error, and
    # the connection goes on (the same CLIENT ID)
    out=$(timeout 60 "$PY" -c '
import sys, redis
r = redis.Redis(port=int(sys.argv[1]), password="pw", single_connection_client=True)
me = r.client_id()
p = r.pipeline(transaction=True)
for _ in range(1024):
    p.execute_command("ID.NEW", "ulid", 10000)
try:
    p.execute()
    print("no error")
except redis.ResponseError as e:
    print(type(e).__name__, str(e)[:48], r.client_id() == me, len(r.execute_command("ID.NEW", "ulid", 3)))
' "$RP" 2>&1)
    same "redis-py: pipeline() of the same raises ResponseError; its connection goes on" "$out" \
        "ResponseError EXEC refused: its reply would be 337928199 bytes True 3"
    stop
else
    fail "start for the protocol edges: $(tail -1 "$LOG")"
fi
# a reply that fills the limit to the byte is sent whole, also behind other
# replies still pending (EXEC waits for them to go out); one byte more is
# refused. 12 x ID.NEW ulid 10000: "*12\r\n" + 12 x ("*10000\r\n" +
# 10,000 x "$26\r\n" + 26 + "\r\n") = 3,960,101 bytes
if start edges_fit --no-state --formats ulid --max-output-bytes 3960101; then
    out=$({ for i in $(seq 100); do printf 'PING\r\n'; done; printf 'MULTI\r\n'
            for i in $(seq 12); do printf 'ID.NEW ulid 10000\r\n'; done
            printf 'EXEC\r\nPING\r\nQUIT\r\n'; } | $ATTACK replies "$RP" - | uniq -c | sed 's/^ *//' | tr '\n' '|')
    same "EXEC's reply of exactly --max-output-bytes, behind 100 PONGs: whole, 120,000 distinct IDs" "$out" \
        "100 +PONG|1 +OK|12 +QUEUED|1 *12 3960101 bytes, 120000 strings (120000 distinct)|1 +PONG|1 +OK|"
    out=$({ printf 'MULTI\r\n'; for i in $(seq 12); do printf 'ID.NEW ulid 10000\r\n'; done
            printf 'PING\r\nEXEC\r\nPING\r\nQUIT\r\n'; } | $ATTACK replies "$RP" - | uniq -c | sed 's/^ *//' | tr '\n' '|')
    same "... 7 bytes more (a PING): refused" "$out" \
        "1 +OK|13 +QUEUED|1 -ERR EXEC refused: its reply would be 3960108 bytes, past the output limit of 3960101 bytes (--max-output-bytes); the transaction is discarded, nothing ran|1 +PONG|1 +OK|"
    stop
else
    fail "start with --max-output-bytes 3960101: $(tail -1 "$LOG")"
fi
# replies whose size is not known before they are made (CLIENT LIST, INFO):
# the smallest limit toidd takes (--max-count 1: 69,681 bytes)
if start edges_small --no-state --formats ulid --max-count 1 --max-output-bytes 69681; then
    exact "$RP" "CLIENT LIST of 700 connections (some 95 KB): an error in its place, the connection kept" \
        'CLIENT LIST\r\nPING\r\nQUIT\r\n' \
        '-ERR the reply would pass the output limit of 69681 bytes (--max-output-bytes)\r\n+PONG\r\n+OK\r\n' \
        crowd 700
    out=$({ printf 'MULTI\r\n'; for i in $(seq 200); do printf 'INFO\r\n'; done
            printf 'EXEC\r\nPING\r\nQUIT\r\n'; } | $ATTACK replies "$RP" - | uniq -c | sed 's/^ *//' | tr '\n' '|')
    same "MULTI, 200 x INFO (some 80 KB), EXEC: an error saying they ran, the connection kept" "$out" \
        "1 +OK|200 +QUEUED|1 -ERR EXEC's reply would pass the output limit of 69681 bytes (--max-output-bytes): its commands ran, their replies are dropped|1 +PONG|1 +OK|"
    # RESP lengths of 0 and below, as redis-server 7.0.15 answers the same
    # bytes: a count <= 0 is no command (the next one is read), "$0" an empty
    # argument; a negative bulk length, "-0" and a leading zero are protocol
    # errors (the connection closed)
    exact "$RP" "*-2, then PING: PONG" '*-2\r\nPING\r\nQUIT\r\n' '+PONG\r\n+OK\r\n'
    exact "$RP" "*0, *-1, *-99999999999, then PING: PONG" \
        '*0\r\n*-1\r\n*-99999999999\r\nPING\r\nQUIT\r\n' '+PONG\r\n+OK\r\n'
    exact "$RP" "*-2, then multibulk PING and QUIT" \
        '*-2\r\n*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nQUIT\r\n' '+PONG\r\n+OK\r\n'
    exact "$RP" "\$0 as the name: an unknown command ''" '*1\r\n$0\r\n\r\nQUIT\r\n' \
        "-ERR unknown command ''\\r\\n+OK\\r\\n"
    exact "$RP" "\$0 as an argument: ECHO answers \$0" '*2\r\n$4\r\nECHO\r\n$0\r\n\r\nQUIT\r\n' \
        '$0\r\n\r\n+OK\r\n'
    for bulk in '$-1' '$-2' '$-0' '$04'; do
        exact "$RP" "$bulk as a bulk length: a protocol error and a close" \
            "*2\\r\\n\$4\\r\\nECHO\\r\\n$bulk\\r\\nPING\\r\\n" '-ERR Protocol error: invalid bulk length\r\n'
    done
    for count in '*-0' '*01' '*+1'; do
        exact "$RP" "$count as a count: a protocol error and a close" \
            "$count\\r\\n\$4\\r\\nPING\\r\\n" '-ERR Protocol error: invalid multibulk length\r\n'
    done
    # HTTP: pipelined responses that fit one by one, not all together: each
    # waits for the ones before it to go out (it closed, and sent nothing)
    out=$({ for i in $(seq 20); do printf 'GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n'; done
            printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'; } | $ATTACK send "$HP" -)
    js=$(wc -c <"$HERE/../../server/page/app.js")
    same "HTTP: 20 pipelined GET /app.js (300 KB, past the limit), then /healthz: 20 pages, then ok" \
        "$(grep -o "HTTP/1.1 200 OK" <<<"$out" | wc -l) $(grep -o "Content-Length: $js.r.n" <<<"$out" | wc -l) ${out: -7}" \
        "21 20 \\nok\\n'"
    stop
else
    fail "start with --max-count 1 --max-output-bytes 69681: $(tail -1 "$LOG")"
fi

finish
