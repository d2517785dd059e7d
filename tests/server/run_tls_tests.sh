#!/usr/bin/env bash
# toidd's TLS listeners (--http-tls, --resp-tls), black box, with
# certificates this script makes (openssl CLI): curl and redis-cli over TLS
# beside the plain listeners; TLS 1.2 and 1.3 served, 1.1 refused; a plain
# client on a TLS port told so; mutual TLS (--tls-ca): no certificate, or
# one of another CA, refused, the right one served; SIGHUP reloads the
# certificate without dropping an open connection, and a bad file keeps the
# old one; a handshake that stalls is closed; pipelined requests larger than
# the buffers; usage errors. (The Redis client libraries over TLS:
# run_client_tests.sh.)
#   usage: run_tls_tests.sh TOIDD_BINARY
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
WORK=$(mktemp -d)
trap cleanup_work EXIT
need_tools curl redis-cli openssl "$PY" timeout

T=$WORK/tls
tls_ca "$T" && tls_cert "$T" srv localhost && tls_cert "$T" srv2 second.localhost &&
    tls_cert "$T" cli client || { fail "openssl could not make the test certificates"; finish; }
O=$WORK/other   # another CA, and a client certificate it signed
tls_ca "$O" && tls_cert "$O" cli intruder || { fail "openssl: the other CA"; finish; }
cp "$T/srv.pem" "$WORK/cert.pem"   # the files toidd reads (replaced for the reload)
cp "$T/srv.key" "$WORK/key.pem"
TLS_OPTS=(--http-tls 127.0.0.1:0 --resp-tls 127.0.0.1:0 --tls-cert "$WORK/cert.pem"
          --tls-key "$WORK/key.pem")
C() { curl -s --max-time 10 --cacert "$T/ca.pem" "$@"; }
RT() { timeout 10 redis-cli --tls --cacert "$T/ca.pem" -p "$RTP" "$@"; }
metric() { C "http://127.0.0.1:$HP/metrics" | sed -n "s/^$1 //p"; }
IDS=$WORK/ids
: >"$IDS"

# --- TLS beside the plain listeners --------------------------------------------
if ! start tls --no-state "${TLS_OPTS[@]}"; then
    fail "toidd with TLS listeners did not start: $(tail -3 "$LOG")"
    finish
fi
tls_ports
check "the log names both TLS listeners and the certificate" \
    bash -c '[ -n "$1" ] && [ -n "$2" ] && grep -q "TLS: certificate subject /CN=localhost, expires" "$0"' \
    "$LOG" "$HTP" "$RTP"
out=$(C "https://127.0.0.1:$HTP/v1/new/ulid?count=3")
check "curl https://: 3 ULIDs, the server's certificate verified" \
    [ "$(grep -c '^[0-9A-Z]\{26\}$' <<<"$out")" = 3 ]
grep '^[0-9A-Z]\{26\}$' <<<"$out" >>"$IDS"
out=$(C "https://localhost:$HTP/v1/new/nanoflake?count=10000")
check "curl https://: a batch of 10,000 (many TLS records, partial writes)" \
    [ "$(grep -c '^[0-9A-Za-z_-]\{13\}$' <<<"$out")" = 10000 ]
grep '^[0-9A-Za-z_-]\{13\}$' <<<"$out" >>"$IDS"
check "curl over TLS 1.2 (--tls-max 1.2)" \
    bash -c 'o=$(curl -s --max-time 10 --cacert "$0" --tlsv1.2 --tls-max 1.2 -w "%{http_code}" -o /dev/null "https://127.0.0.1:$1/livez"); [ "$o" = 200 ]' \
    "$T/ca.pem" "$HTP"
check "TLS 1.3 is what a client gets by default" \
    bash -c 'openssl s_client -connect "127.0.0.1:$1" -CAfile "$0" </dev/null 2>/dev/null | grep -q "TLSv1.3"' \
    "$T/ca.pem" "$HTP"
before=$(metric 'toidd_tls_errors_total{protocol="http"}')
check "TLS 1.1 is refused (the client offers it at any security level)" \
    bash -c '! openssl s_client -connect "127.0.0.1:$0" -tls1_1 -cipher "DEFAULT@SECLEVEL=0" </dev/null >/dev/null 2>&1' "$HTP"
check "... and counted in toidd_tls_errors_total, the reason logged" \
    bash -c '[ "$(curl -s "http://127.0.0.1:$1/metrics" | sed -n "s/^toidd_tls_errors_total{protocol=\"http\"} //p")" -gt "$2" ] && grep -q "http tls: handshake: unsupported protocol" "$0"' \
    "$LOG" "$HP" "$before"
out=$(RT ID.NEW ulid 3)
check "redis-cli --tls: ID.NEW" [ "$(grep -c '^[0-9A-Z]\{26\}$' <<<"$out")" = 3 ]
grep '^[0-9A-Z]\{26\}$' <<<"$out" >>"$IDS"
check "redis-cli --tls -3: HELLO 3 over TLS" grep -q '^proto 3$' <<<"$(RT -3 HELLO 3)"
out=$(RT ID.NEW ulid 10000)
check "redis-cli --tls: ID.NEW ulid 10000" [ "$(grep -c '^[0-9A-Z]\{26\}$' <<<"$out")" = 10000 ]
grep '^[0-9A-Z]\{26\}$' <<<"$out" >>"$IDS"
check "the plain listeners work beside them (curl http://, redis-cli)" \
    bash -c '[ "$(curl -s "http://127.0.0.1:$0/livez")" = "ok" ] && [ "$(redis-cli -p "$1" PING)" = PONG ]' \
    "$HP" "$RP"
check "a plain HTTP client on the TLS port: 400 saying to use https://" \
    bash -c 'o=$(curl -s -i --max-time 10 "http://127.0.0.1:$0/v1/new/ulid"); grep -q "^HTTP/1.1 400" <<<"$o" && grep -q "This port speaks TLS: use https://" <<<"$o"' \
    "$HTP"
check "a plain redis-cli on the TLS port: an error reply saying so" \
    grep -q '^ERR this port speaks TLS' <<<"$(timeout 10 redis-cli -p "$RTP" PING)"
check "... counted in toidd_tls_plaintext_refused_total" \
    [ "$(metric 'toidd_tls_plaintext_refused_total{protocol="resp"}')" -ge 1 ]
check "an https client on the plain port fails (no TLS there)" \
    bash -c '! curl -s --max-time 5 --cacert "$0" "https://127.0.0.1:$1/livez" >/dev/null' "$T/ca.pem" "$HP"

# Many pipelined commands in one TLS stream (more than toidd reads at once,
# replies past its high-water mark) are all answered in order. (On a server
# with the default --request-timeout-ms: a busy machine may pause the
# sending thread mid-command.)
out=$(timeout 90 "$PY" - "$RTP" "$T/ca.pem" <<'EOF'
import select, socket, ssl, sys, time
port, ca = int(sys.argv[1]), sys.argv[2]
ctx = ssl.create_default_context(cafile=ca)
c = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
n = 3000
cmd = b"*3\r\n$6\r\nID.NEW\r\n$4\r\nulid\r\n$2\r\n50\r\n"
# One thread writes and reads, as the socket allows (an SSL object must not
# be read and written from two threads at once), until every byte of the
# 3000 replies is in (the count was 3 bytes a reply short once, and the
# read stopped before the last replies now and then)
data, sent = cmd * n, 0
buf, want = b"", n * (5 + 50 * 33)   # each reply: *50\r\n and 50 of $26\r\n<26>\r\n
c.setblocking(False)
end, deadline = "all read", time.monotonic() + 60   # (a bound for a busy machine)
while len(buf) < want:
    if time.monotonic() > deadline:
        end = "out of time"
        break
    r, w, _ = select.select([c], [c] if sent < len(data) else [], [], 1.0)
    if w:
        try:
            sent += c.send(data[sent:sent + 65536])
        except (ssl.SSLWantWriteError, ssl.SSLWantReadError):
            pass
    if r or c.pending():
        try:
            d = c.recv(1 << 16)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            continue
        except OSError as e:
            end = f"recv: {e!r}"
            break
        if not d:
            end = "closed by the server"
            break
        buf += d
c.setblocking(True)
print(f"pipelined: {len(buf)} of {want} bytes, {end}")
replies = buf.count(b"*50\r\n")
print(f"pipelined replies {replies}")
ids = [l for l in buf.split(b"\r\n") if len(l) == 26]
print(f"pipelined ids {len(ids)} distinct {len(set(ids))}")
# A TLS record larger than the room left in toidd's input buffer (about
# 16.6 KB: 16 arguments of 1 KiB): OpenSSL keeps the record's rest, and no
# socket event announces it. Half a big command, then a record with its
# other half and 1000 PINGs: every PING must be answered.
c = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
big = b"*16\r\n$6\r\nNOSUCH\r\n" + (b"$1024\r\n" + b"x" * 1024 + b"\r\n") * 15
c.sendall(big[:8000])
time.sleep(0.2)
c.sendall(big[8000:] + b"PING\r\n" * 1000)
c.settimeout(5)
buf = b""
try:
    while buf.count(b"+PONG") < 1000:
        d = c.recv(1 << 16)
        if not d:
            break
        buf += d
except OSError:
    pass
print(f"held record: {buf.count(b'-ERR unknown command')} error, {buf.count(b'+PONG')} PONG")
EOF
)
check "3000 pipelined ID.NEW ulid 50 over TLS: 3000 replies, 150,000 IDs, all distinct ($(grep '^pipelined' <<<"$out" | tr '\n' ' '))" \
    grep -q '^pipelined ids 150000 distinct 150000$' <<<"$out"
check "a record split by the input buffer's end: the rest answered (1 error, 1000 PONG)" \
    grep -q '^held record: 1 error, 1000 PONG$' <<<"$out"

# --- SIGHUP: a new certificate for new connections, the open ones kept --------
cat >"$WORK/reload.py" <<'EOF'
# reload.py PORT CA PID CERT KEY NEWCERT NEWKEY: a TLS connection stays open
# across two SIGHUPs (a good new certificate, then a broken file).
import os, shutil, signal, socket, ssl, sys, time
port, ca, pid, cert, key, ncert, nkey = sys.argv[1:8]
port, pid = int(port), int(pid)
ctx = ssl.create_default_context(cafile=ca)
def connect():
    c = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5), server_hostname="localhost")
    return c
def subject(c):
    return dict(x[0] for x in c.getpeercert()["subject"])["commonName"]
def ping(c):
    c.sendall(b"PING\r\n")
    return c.recv(100)
old = connect()
print("first subject", subject(old), ping(old))
shutil.copy(ncert, cert)
shutil.copy(nkey, key)
os.kill(pid, signal.SIGHUP)
time.sleep(0.5)
print("open connection after reload", ping(old))
new = connect()
print("new subject", subject(new), ping(new))
with open(cert, "w") as f:
    f.write("not a certificate\n")
os.kill(pid, signal.SIGHUP)
time.sleep(0.5)
newer = connect()
print("after a bad file", subject(newer), ping(newer), ping(old))
EOF
out=$(timeout 20 "$PY" "$WORK/reload.py" "$RTP" "$T/ca.pem" "$PID" "$WORK/cert.pem" \
    "$WORK/key.pem" "$T/srv2.pem" "$T/srv2.key" 2>&1)
check "before SIGHUP: the first certificate" grep -q "^first subject localhost b'+PONG" <<<"$out"
check "SIGHUP: the open connection keeps working" \
    grep -q "^open connection after reload b'+PONG" <<<"$out"
check "SIGHUP: a new connection gets the new certificate" \
    grep -q "^new subject second.localhost b'+PONG" <<<"$out"
check "SIGHUP with a broken file: the last good certificate stays, connections too" \
    grep -q "^after a bad file second.localhost b'+PONG\\\\r\\\\n' b'+PONG" <<<"$out"
check "... logged (the file and OpenSSL's reason) and counted" \
    bash -c 'grep -q "SIGHUP: TLS files reloaded: certificate subject /CN=second.localhost" "$0" && grep -q "SIGHUP: TLS files not reloaded, the current ones stay: $1: " "$0" && o=$(curl -s "http://127.0.0.1:$2/metrics") && grep -q "^toidd_tls_reloads_total{result=\"ok\"} 1$" <<<"$o" && grep -q "^toidd_tls_reloads_total{result=\"error\"} 1$" <<<"$o"' \
    "$LOG" "$WORK/cert.pem" "$HP"
[ "$(grep -c '' <<<"$out")" -ge 4 ] || echo "$out"
stop
check "stops cleanly (exit 0) after TLS connections" [ "$STATUS" = 0 ]
cp "$T/srv.pem" "$WORK/cert.pem"
cp "$T/srv.key" "$WORK/key.pem"

# --- mutual TLS: --tls-ca --------------------------------------------------------
if start mtls --no-state --http off --resp off --http-tls 127.0.0.1:0 --resp-tls 127.0.0.1:0 \
    --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" --tls-ca "$T/ca.pem" \
    --request-timeout-ms 600; then
    tls_ports
    # a client that starts a handshake and stalls: closed after --request-timeout-ms
    out=$(timeout 30 "$PY" -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"\x16\x03\x01")          # a handshake record starts, then nothing
s.settimeout(20)                    # (a bound for a busy machine)
try:
    print("closed" if s.recv(1) == b"" else "data")
except OSError as e:
    print(f"kept: {e!r}")
' "$RTP")
    check "a stalled handshake is closed after --request-timeout-ms ($out)" [ "$out" = closed ]
    check "... logged" grep -q 'resp tls: handshake not completed within 600 ms' "$LOG"
    check "--tls-ca: logged as required" grep -q 'client certificates required' "$LOG"
    out=$(C --cert "$T/cli.pem" --key "$T/cli.key" "https://127.0.0.1:$HTP/v1/new/uuidv7")
    check "--tls-ca: curl with the client certificate: served" \
        grep -q '^[0-9a-f]\{8\}-[0-9a-f]\{4\}-7' <<<"$out"
    check "--tls-ca: curl without a certificate: refused (handshake)" \
        bash -c '! curl -s --max-time 10 --cacert "$0" "https://127.0.0.1:$1/livez" >/dev/null' "$T/ca.pem" "$HTP"
    check "--tls-ca: curl with another CA's certificate: refused" \
        bash -c '! curl -s --max-time 10 --cacert "$0" --cert "$2/cli.pem" --key "$2/cli.key" "https://127.0.0.1:$1/livez" >/dev/null' \
        "$T/ca.pem" "$HTP" "$O"
    check "--tls-ca: the reasons logged" \
        bash -c 'grep -q "http tls: handshake: peer did not return a certificate" "$0" && grep -q "http tls: handshake: certificate verify failed" "$0"' "$LOG"
    out=$(RT --cert "$T/cli.pem" --key "$T/cli.key" ID.NEW nanoflake 2)
    check "--tls-ca: redis-cli --tls with the client certificate: served" \
        [ "$(grep -c '^[0-9A-Za-z_-]\{13\}$' <<<"$out")" = 2 ]
    check "--tls-ca: redis-cli --tls without one: refused" \
        bash -c '! timeout 10 redis-cli --tls --cacert "$0" -p "$1" PING 2>/dev/null | grep -q PONG' "$T/ca.pem" "$RTP"
    stop
else
    fail "toidd with --tls-ca did not start: $(tail -3 "$LOG")"
fi

# --- usage errors: exit 2, before the state directory is touched -----------------
usage() {   # usage WHAT PATTERN ARGS...: toidd ARGS exits 2 saying PATTERN
    local what=$1 pat=$2
    shift 2
    local err
    err=$(timeout 10 "$TOIDD" --state-dir "$WORK/state" "$@" </dev/null 2>&1 >/dev/null)
    local rc=$?
    check "$what: exit 2 ($pat)" bash -c '[ "$0" = 2 ] && grep -q -- "$1" <<<"$2"' "$rc" "$pat" "$err"
}
usage "--http-tls without --tls-cert" "need --tls-cert FILE and --tls-key FILE" --http-tls 127.0.0.1:0
usage "--tls-cert without a TLS listener" "need a TLS listener" --tls-cert "$T/srv.pem" \
    --tls-key "$T/srv.key"
usage "a missing certificate file" "TLS: $WORK/nope.pem: " --resp-tls 127.0.0.1:0 \
    --tls-cert "$WORK/nope.pem" --tls-key "$T/srv.key"
usage "a key that is not the certificate's" "is not the key of --tls-cert" --resp-tls 127.0.0.1:0 \
    --tls-cert "$T/srv.pem" --tls-key "$T/srv2.key"
openssl pkey -in "$T/srv.key" -aes256 -passout pass:secret -out "$WORK/enc.key" 2>/dev/null
usage "an encrypted key (no passphrase prompt)" "TLS: $WORK/enc.key: " --resp-tls 127.0.0.1:0 \
    --tls-cert "$T/srv.pem" --tls-key "$WORK/enc.key"
usage "a bad --http-tls address" "bad address" --http-tls localhost:1 --tls-cert "$T/srv.pem" \
    --tls-key "$T/srv.key"
check "no usage error touched the state directory" [ ! -e "$WORK/state" ]

n=$(wc -l <"$IDS")
check "IDs over TLS: $n, no duplicate" \
    bash -c '[ "$1" -gt 20000 ] && [ -z "$(sort "$0" | uniq -d | head -1)" ]' "$IDS" "$n"
finish
