#!/usr/bin/env bash
# Black-box tests of toidd, the ID server.
#   usage: run_server_tests.sh [--section NAME] TOIDD_BINARY [NOTIFY_RECV_BINARY [HALFCLOSE_BINARY
#                              [TOID_BINARY]]]
#          run_server_tests.sh --list      (the sections, in the order all run)
# Each section (a function section_NAME below; ctest runs each alone as
# server.NAME) starts the toidd it needs; without --section all run, in
# order, sharing the main server.
# (notify_recv stands in for systemd's notification socket; without it that
# check is skipped; the toid CLI is what /v1/range and /v1/convert are
# compared with: without it they are checked on their own)
# Starts toidd on ephemeral loopback ports (port 0, read back from its log;
# never a non-loopback address) with a temporary state directory, and talks
# to it with curl, redis-cli, redis-benchmark and bash's /dev/tcp:
# every endpoint and command, malformed requests, limits and timeouts, the
# state directory (lock, restart, kill -9, clock behind the mark, corrupt and
# missing state), SIGTERM drain, and 1,000,000 IDs fetched concurrently over
# both protocols without a duplicate. Every wait is bounded.
# Needs bash, curl, redis-cli, redis-benchmark, coreutils, grep, awk.
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -u
export LC_ALL=C

# pass, fail, check, finish; sections_args, run_sections
. "$(dirname "$0")/../check_lib.sh"
sections_args "$0" "$@"
shift "$SHIFT"
if [ $# -lt 1 ] || [ $# -gt 4 ] || [ ! -x "$1" ]; then
    echo "usage: $0 [--list | --section NAME] TOIDD_BINARY [NOTIFY_RECV_BINARY [HALFCLOSE_BINARY [TOID_BINARY]]]" >&2
    exit 2
fi
TOIDD=$1
NOTIFY_RECV=${2:-}
HALFCLOSE=${3:-}
TOID_CLI=${4:-}
WORK=$(mktemp -d)
. "$(dirname "$0")/../test_registry.sh"   # $REGISTRY: where the node formats claim
# pass/fail/check/finish, need_tools, start/stop/waitfor (with START_ENV)
. "$(dirname "$0")/test_lib.sh"

trap cleanup_work EXIT

FTLIB=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1)
need_tools curl redis-cli redis-benchmark timeout

START_ENV=()   # environment for toidd (libfaketime below)
FORMATS=""   # the server's own list (GET /v1/formats), once it runs

# run_expect_fail NAME ARGS...: toidd must exit non-zero within 10 s; LOG.
run_expect_fail() {
    local name=$1
    shift
    LOG=$WORK/$name.log
    timeout 10 env "${START_ENV[@]}" "$TOIDD" --http 127.0.0.1:0 --resp 127.0.0.1:0 --threads 1 "$@" \
        2>"$LOG" >/dev/null
    STATUS=$?
    [ "$STATUS" -ne 0 ] && [ "$STATUS" -ne 124 ]
}

H() { curl -s --max-time 10 "$@"; }
code() { curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$@"; }
R() { timeout 10 redis-cli -p "$RP" "$@"; }

# raw PORT DATA: sends DATA (printf %b escapes) on one TCP connection and
# prints everything the server sends until it closes (at most 5 s).
raw() {
    timeout 5 bash -c 'trap "" PIPE; exec 3<>/dev/tcp/127.0.0.1/$0 || exit 1; printf "%b" "$1" >&3 2>/dev/null; cat <&3' "$1" "$2"
}

# strictly_increasing FILE: every line sorts strictly after the one before.
strictly_increasing() { sort -c -u "$1" 2>/dev/null; }
nodups() { [ -z "$(sort "$@" | uniq -d | head -1)" ]; }

# ---------------------------------------------------------------- command line
section_cli() {
check "--help exits 0 and lists --state-dir" bash -c '"$0" --help | grep -q -- "--state-dir"' "$TOIDD"
"$TOIDD" --no-such-flag >/dev/null 2>&1
check "an unknown flag exits 2" [ $? -eq 2 ]
"$TOIDD" --http 127.0.0.1:0 >/dev/null 2>"$WORK/nostate.err"
check "no --state-dir exits 2" [ $? -eq 2 ]
check "no --state-dir says why" grep -q -- "--state-dir DIR is required" "$WORK/nostate.err"
"$TOIDD" --no-state --gen nanoflake:node=5000 >/dev/null 2>&1
check "a generator id out of range is refused" [ $? -eq 2 ]
"$TOIDD" --no-state --max-count 100000 --max-output-bytes 65536 >/dev/null 2>&1
check "an output limit below one response is refused" [ $? -eq 2 ]
"$TOIDD" --no-state --gen ulid:epoch=2020-01-01T00:00:00Z >/dev/null 2>"$WORK/gen.err"
check "a generator setting the library refuses: exit 2" [ $? -eq 2 ]
check "... naming the setting and why ($(head -1 "$WORK/gen.err"))" \
    grep -q "^toidd: generator settings refused: epoch_ms: ulid counts from its own epoch, 0 (got 1577836800000)$" "$WORK/gen.err"

# a config file; the command line overrides it
printf '# toidd test config\nstate-dir %s   # the state\nno-state\nformats nanoflake\ngen nanoflake:node=9\n' \
    "$WORK/nowhere" >"$WORK/bad.conf"
"$TOIDD" --config "$WORK/bad.conf" --http 127.0.0.1:0 >/dev/null 2>"$WORK/conf.err"
check "--config: its options are checked like flags (state-dir + no-state)" \
    grep -q 'exclude each other' "$WORK/conf.err"
printf 'no-state\nformats nanoflake\ngen nanoflake:node=9\nthreads 1\n' >"$WORK/good.conf"
if start conf --config "$WORK/good.conf" --gen nanoflake:node=11; then
    pass
    check "--config: file and command line both apply" \
        grep -q '"generator":11' <<<"$(R ID.INSPECT nanoflake "$(R ID.NEW nanoflake)")"
    check "--config: formats from the file" [ "$(code "127.0.0.1:$HP/v1/new/ulid")" = 404 ]
    stop
else
    fail "--config: did not start: $(tail -1 "$LOG")"
fi
printf 'bogus 1\n' >"$WORK/bogus.conf"
"$TOIDD" --config "$WORK/bogus.conf" >/dev/null 2>&1
check "--config: an unknown key is a usage error" [ $? -eq 2 ]

}

# ---------------------------------------------------------------- systemd readiness (Type=notify)
section_systemd() {
if [ -n "$NOTIFY_RECV" ]; then
    "$NOTIFY_RECV" "$WORK/notify.sock" 2 20 >"$WORK/notify.out" &
    NR=$!
    for i in $(seq 50); do [ -S "$WORK/notify.sock" ] && break; sleep 0.1; done
    START_ENV=(NOTIFY_SOCKET="$WORK/notify.sock")
    mkdir -p "$WORK/state8"
    if start notify --state-dir "$WORK/state8" --formats ulid; then
        START_ENV=()
        for i in $(seq 50); do grep -q READY "$WORK/notify.out" && break; sleep 0.1; done
        check "systemd: READY=1 once serving" grep -q '^READY=1|STATUS=serving$' "$WORK/notify.out"
        stop
        wait "$NR"
        check "systemd: STOPPING=1 on SIGTERM" grep -q '^STOPPING=1|STATUS=draining$' "$WORK/notify.out"
    else
        START_ENV=()
        kill "$NR" 2>/dev/null
        fail "start with NOTIFY_SOCKET: $(tail -1 "$LOG")"
    fi
fi

# ---------------------------------------------------------------- the systemd unit
# systemd-analyze checks packaging/toidd.service.in offline (no running systemd
# needed): every directive known and well-formed, pointed at this toidd
if command -v systemd-analyze >/dev/null; then
    sed -e "s|^ExecStart=@TOID_FULL_SBINDIR@/toidd|ExecStart=$(cd "$(dirname "$TOIDD")" && pwd)/$(basename "$TOIDD")|" \
        -e "s|@TOID_HOST_REGISTRY@|/var/lib/toid/claims|; s|@TOID_HOST_REGISTRY_GROUP@|toid|" \
        "$(dirname "$0")/../../packaging/toidd.service.in" >"$WORK/toidd.service"
    check "packaging/toidd.service: ExecStart points at the toidd under test" \
        grep -q "^ExecStart=/.*toidd --state-dir" "$WORK/toidd.service"
    check "packaging/toidd.service: no placeholder left" eval '! grep -q "@[A-Z_]*@" "$WORK/toidd.service"'
    out=$(systemd-analyze verify --man=no "$WORK/toidd.service" 2>&1)
    check "packaging/toidd.service: systemd-analyze verify finds nothing${out:+ ($out)}" [ -z "$out" ]
else
    fail "systemd-analyze is not installed (package systemd; see the README's install command)"
fi

}

# ---------------------------------------------------------------- the server
# need_main: the main server (started by the first section that needs it,
# then shared); PID, HP, RP and LOG are set to it.
ST=$WORK/state
MAIN_PID=""
need_main() {
    if [ -n "$MAIN_PID" ]; then
        PID=$MAIN_PID HP=$MAIN_HP RP=$MAIN_RP LOG=$WORK/main.log
        return
    fi
mkdir -p "$ST"
if ! start main --state-dir "$ST" --gen nanoflake:node=7 --http-unix "$WORK/http.sock" \
        --resp-unix "$WORK/resp.sock" --request-timeout-ms 1000 --write-timeout-ms 1000; then
    fail "toidd did not start"
    cat "$LOG"
    finish
fi
pass
MAIN_PID=$PID MAIN_HP=$HP MAIN_RP=$RP
# every format the library has, as the server lists them: the loops of the
# sections cover a format added to the library without a change here
# (FORMATS: those it generates; RO_FORMATS: the read-only variants of
# reference libraries, which it only reads)
FORMATS=$(H "127.0.0.1:$HP/v1/formats" | tr '}' '\n' | grep '"generate":true' | grep -o '"name":"[^"]*"' |
          cut -d'"' -f4 | paste -sd' ' -)
RO_FORMATS=$(H "127.0.0.1:$HP/v1/formats" | tr '}' '\n' | grep '"variant_of":"' | grep -o '"name":"[^"]*"' |
             cut -d'"' -f4 | paste -sd' ' -)
check "GET /v1/formats lists formats" [ "$(echo $FORMATS | wc -w)" -ge 8 ]
}

# ---------------------------------------------------------------- HTTP endpoints
section_http() {
need_main
check "GET /healthz" [ "$(H "127.0.0.1:$HP/healthz")" = ok ]
check "GET /readyz" [ "$(H "127.0.0.1:$HP/readyz")" = ok ]
check "GET /livez" [ "$(H "127.0.0.1:$HP/livez")" = ok ]
for f in $FORMATS; do
    id=$(H "127.0.0.1:$HP/v1/new/$f")
    check "GET /v1/new/$f gives one ID" [ "$(printf '%s\n' "$id" | wc -l)" -eq 1 -a -n "$id" ]
    js=$(H "127.0.0.1:$HP/v1/inspect/$f/$id")
    check "GET /v1/inspect/$f/ID round trip" grep -q "\"format\":\"$f\",\"text\":\"" <<<"$js"
    H "127.0.0.1:$HP/v1/new/$f?count=1000" >"$WORK/batch.$f"
    check "/v1/new/$f?count=1000: 1000 lines" [ "$(wc -l <"$WORK/batch.$f")" -eq 1000 ]
    check "/v1/new/$f?count=1000: strictly increasing" strictly_increasing "$WORK/batch.$f"
    j=$(H -H 'Accept: application/json' "127.0.0.1:$HP/v1/new/$f?count=3")
    check "/v1/new/$f JSON array of 3" grep -Eq '^\["[^"]+","[^"]+","[^"]+"\]$' <<<"$j"
done
# content negotiation by q (RFC 9110 12.5.1): JSON or text for each Accept
accept_is() {   # EXPECTED(json|text) ACCEPT-FIELD...
    local want=$1 args=() body
    shift
    for a in "$@"; do args+=(-H "Accept: $a"); done
    body=$(H "${args[@]}" "127.0.0.1:$HP/v1/new/ulid")
    case $want in
    json) grep -Eq '^\["[0-9A-Z]{26}"\]$' <<<"$body" ;;
    text) grep -Eq '^[0-9A-Z]{26}$' <<<"$body" ;;
    esac
}
check "Accept: application/json gives JSON" accept_is json 'application/json'
check "Accept: application/json;q=0.5 beside text/plain;q=0.9 gives text" \
    accept_is text 'text/plain;q=0.9, application/json; q=0.5'
check "Accept: text/plain;q=0.1, application/json gives JSON" accept_is json 'text/plain;q=0.1, application/json'
check "Accept: application/json;q=0 gives text" accept_is text 'text/plain, application/json;q=0.0'
check "Accept: */* gives text" accept_is text '*/*'
check "Accept: application/json, */* gives JSON (named beside a wildcard)" accept_is json 'application/json, */*'
check "Accept: application/* gives JSON" accept_is json 'application/*'
check "Accept: text/*;q=0.3, application/json;q=0.2 gives text" accept_is text 'text/*;q=0.3, application/json;q=0.2'
check "Accept: */*;q=0.8, application/json;q=0 gives text (the specific range decides)" \
    accept_is text '*/*;q=0.8, application/json;q=0'
check "two Accept fields are one list" accept_is json 'text/plain;q=0.5' 'application/json'
check "Accept: a malformed q ignores that range" accept_is text 'application/json;q=2, text/plain;q=0.5'
check "Accept: image/png (neither) gives text" accept_is text 'image/png'
check "nanoflake uses the configured generator id" \
    grep -q '"generator":7' <<<"$(H "127.0.0.1:$HP/v1/inspect/nanoflake/$(H "127.0.0.1:$HP/v1/new/nanoflake")")"
check "auto-detected inspect (ulid)" grep -q '"format":"ulid","text":"01ARZ3NDEKTSV4RRFFQ69G5FAV","unix_ms":1469922850259' \
    <<<"$(H "127.0.0.1:$HP/v1/inspect/01ARZ3NDEKTSV4RRFFQ69G5FAV")"
u=$(H "127.0.0.1:$HP/v1/new/uuidv7")
check "auto-detected inspect (uuidv7)" grep -q '"format":"uuidv7"' <<<"$(H "127.0.0.1:$HP/v1/inspect/$u")"
check "inspect: a bad character is 400 with its position" \
    [ "$(H -w ' %{http_code}' "127.0.0.1:$HP/v1/inspect/ulid/01ARZ3NDEKTSV4RRFFQ69G5FA_")" = \
      "{\"error\":\"char\",\"message\":\"bad character '_' at position 25\",\"position\":25}
 400" ]
check "inspect: undetectable is 400" [ "$(code "127.0.0.1:$HP/v1/inspect/xyz-")" = 400 ]
# detection never guesses silently (the library's rules, as toid inspect)
check "inspect: a word is 400 (not a nanoflake)" [ "$(code "127.0.0.1:$HP/v1/inspect/hello")" = 400 ]
check "inspect: a cut ULID is 400, the lengths named" grep -q '"error":"undetected","message":"no format writes 12 characters' \
    <<<"$(H "127.0.0.1:$HP/v1/inspect/01ARZ3NDEKTS")"
check "inspect: 32-hex UUIDv7 is uuidv7, scru160 in also" \
    grep -q '"format":"uuidv7",.*,"also":\["scru160"\]}$' <<<"$(H "127.0.0.1:$HP/v1/inspect/01a2078766da75a39228ec6ccd8b88fb")"
check "inspect: a UUIDv4 names its version" grep -q '"message":"UUID version 4, toid reads version 7"' \
    <<<"$(H "127.0.0.1:$HP/v1/inspect/uuidv7/550e8400-e29b-41d4-a716-446655440000")"
# any UUID: its version, variant and (versions 1, 6, 7) time, as toid inspect
check "inspect: a UUIDv1 (RFC 9562's example) is a uuid with its time" \
    grep -q '^{"format":"uuid","text":"c232ab00-9414-11ec-b3c8-9f6bdeced846","version":1,"variant":"rfc9562","unix_ms":1645557742000,"time":"2022-02-22T19:22:22.000Z",.*"node":"9f6bdeced846"}$' \
    <<<"$(H "127.0.0.1:$HP/v1/inspect/C232AB00-9414-11EC-B3C8-9F6BDECED846")"
check "inspect: uuid4().hex is a uuid of version 4, scru160 in also (not a scru160 of 2651)" \
    grep -q '^{"format":"uuid",.*"version":4,"variant":"rfc9562",.*"also":\["scru160"\]}$' \
    <<<"$(H "127.0.0.1:$HP/v1/inspect/2e7ba44190db4ba793e6eabc19b33fb6")"
check "ID.INSPECT: a UUIDv6 is a uuid with its time" \
    grep -q '"format":"uuid",.*"version":6,.*"time":"2022-02-22T19:22:22.000Z"' \
    <<<"$(timeout 10 redis-cli -p "$RP" ID.INSPECT 1EC9414C-232A-6B00-B3C8-9F6BDECED846)"
check "inspect: format names in any case" grep -q '"format":"uuidv7"' \
    <<<"$(H "127.0.0.1:$HP/v1/inspect/UUIDv7/017f22e279b07cc398c4dc0c0c07398f")"
check "inspect: unknown format is 404" [ "$(code "127.0.0.1:$HP/v1/inspect/nope/abc")" = 404 ]
check "new: unknown format is 404" [ "$(code "127.0.0.1:$HP/v1/new/nope")" = 404 ]
check "new: a mistyped format: 404 naming the nearest (the library's words)" \
    grep -q '^{"error":"not_found","message":"unknown format '"'"'ulidd'"'"' (did you mean ulid?)"}$' \
    <<<"$(H -H 'Accept: application/json' "127.0.0.1:$HP/v1/new/ulidd")"
# IDs at a given time (backfills): the formats unique by their random bits
out=$(H "127.0.0.1:$HP/v1/new/ulid?count=1000&at=2024-01-01T00:00:00.123Z")
out2=$(H "127.0.0.1:$HP/v1/new/ulid?count=1000&at=2024-01-01T00:00:00.123Z")
check "new ?at=: 2 x 1000 ULIDs in one ms, all distinct" \
    [ "$(printf '%s\n%s\n' "$out" "$out2" | grep -c '^[0-9A-Z]\{26\}$')" = 2000 -a \
      "$(printf '%s\n%s\n' "$out" "$out2" | sort -u | wc -l)" = 2000 ]
check "new ?at=: a batch increases within its ms" [ "$(sort <<<"$out")" = "$out" ]
check "new ?at=: each ULID's time is the one asked for (its first 10 characters)" \
    [ "$(cut -c1-10 <<<"$out" | sort -u)" = "$(H "127.0.0.1:$HP/v1/range/ulid?from=2024-01-01T00:00:00.123Z" |
        sed 's/.*"lo":"\(..........\).*/\1/')" ]
check "new ?at=: uuidv7 at a relative time (now-1h), scru160 at unix ms" \
    bash -c '[ "$(curl -s "$0/v1/new/uuidv7?count=2&at=now-1h" | grep -c "^[0-9a-f-]\{36\}$")" = 2 ] &&
             [ "$(curl -s "$0/v1/new/scru160?at=1704067200000" | wc -l)" = 1 ]' "127.0.0.1:$HP"
check "new ?at=: a node format is 400, saying why and which formats can" \
    grep -q '^{"error":"invalid","message":"a nanoflake carries a node and a sequence within its ms: .*; IDs at given times: ulid, scru160, uuidv7"' \
    <<<"$(H -H 'Accept: application/json' "127.0.0.1:$HP/v1/new/nanoflake?at=2024")"
check "new ?at=: not a time is 400" [ "$(code "127.0.0.1:$HP/v1/new/ulid?at=yesterday")" = 400 ]
check "new ?at=: given twice is 400" [ "$(code "127.0.0.1:$HP/v1/new/ulid?at=2024&at=2025")" = 400 ]
check "new ?at=: outside the format's span is 400" [ "$(code "127.0.0.1:$HP/v1/new/ulid?at=-5")" = 400 ]
check "new: count=0 is 200 with no IDs (as toid new -n 0)" \
    [ "$(H -w '%{http_code}:%{size_download}' "127.0.0.1:$HP/v1/new/ulid?count=0")" = 200:0 ]
check "new: count=0 as JSON is []" \
    [ "$(H -H 'Accept: application/json' "127.0.0.1:$HP/v1/new/ulid?count=0")" = '[]' ]
check "new: count=10001 is 400" [ "$(code "127.0.0.1:$HP/v1/new/ulid?count=10001")" = 400 ]
check "new: count=10000 is 200" [ "$(code "127.0.0.1:$HP/v1/new/ulid?count=10000")" = 200 ]
check "new: count=abc is 400" [ "$(code "127.0.0.1:$HP/v1/new/ulid?count=abc")" = 400 ]
check "new: an unknown parameter is 400" [ "$(code "127.0.0.1:$HP/v1/new/ulid?n=3")" = 400 ]
check "an unknown path is 404" [ "$(code "127.0.0.1:$HP/nope")" = 404 ]
check "POST is 405" [ "$(code -X POST "127.0.0.1:$HP/healthz")" = 405 ]
check "HEAD /healthz is 200" [ "$(code -I "127.0.0.1:$HP/healthz")" = 200 ]
# HEAD /v1/new: GET's headers, no body, and no IDs spent
issued() { H "127.0.0.1:$HP/metrics" | sed -n 's/^toidd_ids_issued_total{format="scru160"} //p'; }
before=$(issued)
hl=$(H -I "127.0.0.1:$HP/v1/new/scru160?count=7" | tr -d '\r' | sed -n 's/^Content-Length: //p')
hj=$(H -I -H 'Accept: application/json' "127.0.0.1:$HP/v1/new/scru160?count=7" | tr -d '\r' |
     sed -n 's/^Content-Length: //p')
check "HEAD /v1/new makes no IDs" [ "$(issued)" = "$before" ]
check "HEAD /v1/new: the Content-Length of GET (text)" \
    [ "$hl" = "$(H "127.0.0.1:$HP/v1/new/scru160?count=7" | wc -c)" ]
check "HEAD /v1/new: the Content-Length of GET (JSON)" \
    [ "$hj" = "$(H -H 'Accept: application/json' "127.0.0.1:$HP/v1/new/scru160?count=7" | wc -c)" ]
check "HEAD /v1/new of an unknown format is 404" [ "$(code -I "127.0.0.1:$HP/v1/new/nope")" = 404 ]
# percent-encoded paths and queries are decoded; an encoded '/' is refused
check "percent-encoded format name" \
    grep -Eq '^[0-9a-z]{13}$' <<<"$(H "127.0.0.1:$HP/v1/new/%6Eano%66lake")"
check "percent-encoded ID in /v1/inspect" grep -q '"format":"ulid","text":"01ARZ3NDEKTSV4RRFFQ69G5FAV"' \
    <<<"$(H "127.0.0.1:$HP/v1/inspect/ulid/%30%31ARZ3NDEKTSV4RRFFQ69G5FAV")"
check "percent-encoded /healthz" [ "$(H "127.0.0.1:$HP/%68ealthz")" = ok ]
check "percent-encoded count" [ "$(H "127.0.0.1:$HP/v1/new/ulid?c%6Funt=%31%32" | wc -l)" -eq 12 ]
check "an encoded '/' is 400" [ "$(code "127.0.0.1:$HP/v1/inspect/ulid%2F01ARZ3NDEKTSV4RRFFQ69G5FAV")" = 400 ]
check "a bad escape is 400" [ "$(code "127.0.0.1:$HP/v1/new/ul%zzid")" = 400 ]
check "a truncated escape is 400" [ "$(code "127.0.0.1:$HP/v1/new/ulid%4")" = 400 ]
check "an encoded '&' in count is not a separator" [ "$(code "127.0.0.1:$HP/v1/new/ulid?count=3%26count=4")" = 400 ]
fj=$(H "127.0.0.1:$HP/v1/formats")
for f in $FORMATS; do
    check "/v1/formats lists $f" grep -q "\"name\":\"$f\"" <<<"$fj"
done
# the read-only variants: listed, never generated (404 naming why), read when named
check "/v1/formats lists read-only variants ($RO_FORMATS)" [ -n "$RO_FORMATS" ]
for f in $RO_FORMATS; do
    check "/v1/formats: $f is not generated" grep -q "\"name\":\"$f\"[^}]*\"generate\":false" <<<"$fj"
    check "/v1/new/$f is 404" [ "$(code "127.0.0.1:$HP/v1/new/$f")" = 404 ]
    check "/v1/new/$f says it is read only" grep -q 'read-only format' <<<"$(H "127.0.0.1:$HP/v1/new/$f")"
done
# a real ID of nanoflakes-java (epoch 2024-01-01) and of gurki/uid11 (44/20), at their libraries' times
check "/v1/inspect/nanoflake-ref24: the Java library's time" \
    grep -q '"unix_ms":1795830287246,' <<<"$(H "127.0.0.1:$HP/v1/inspect/nanoflake-ref24/bp2tj56bwzr4")"
check "/v1/inspect/uid11-ref44: gurki/uid11's time" \
    grep -q '"unix_ms":1795830297491,' <<<"$(H "127.0.0.1:$HP/v1/inspect/uid11-ref44/2A2p9f3PgfZ")"
check "/v1/inspect without a format never reads a variant" \
    grep -q '"format":"uid11",' <<<"$(H "127.0.0.1:$HP/v1/inspect/2A2p9f3PgfZ")"
m=$(H "127.0.0.1:$HP/metrics")
check "/metrics counts IDs issued" grep -Eq '^toidd_ids_issued_total\{format="ulid"\} [1-9][0-9]*$' <<<"$m"
check "/metrics counts responses by status" grep -Eq '^toidd_http_responses_total\{status="404"\} [1-9]' <<<"$m"
check "/metrics has open connections" grep -q '^toidd_connections_open{protocol="http"} ' <<<"$m"
check "/metrics has clock regressions" grep -q '^toidd_clock_regressions_total{format="uuidv7"} ' <<<"$m"
check "/metrics has waits" grep -q '^toidd_clock_waits_total{format="nanoflake"} ' <<<"$m"

# keep-alive and pipelining: three requests in one write, one connection
out=$(raw "$HP" 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/new/ulid?count=2 HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
check "pipelining: three responses on one connection" [ "$(grep -c '^HTTP/1.1 200 OK' <<<"$out")" -eq 3 ]
check "curl reuses the connection (keep-alive)" bash -c \
    'curl -sv --max-time 10 "127.0.0.1:$0/healthz" "127.0.0.1:$0/healthz" 2>&1 | grep -q "Re-using existing connection"' "$HP"
# pipelined big responses (output beyond the high-water mark) all arrive
out=$(timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; for i in 1 2 3 4 5 6 7 8; do
      printf "GET /v1/new/uuidv7?count=10000 HTTP/1.1\r\nHost: x\r\n%b\r\n" "$([ $i = 8 ] && echo "Connection: close\r\n")";
      done >&3; cat <&3' "$HP" |
      grep -c '^[0-9a-f]\{8\}-')
check "pipelined big responses are all delivered (got $out IDs)" [ "$out" -eq 80000 ]
out=$(raw "$HP" 'GET /healthz HTTP/1.0\r\n\r\n')
check "HTTP/1.0 without keep-alive is closed after the response" grep -q 'Connection: close' <<<"$out"
out=$(raw "$HP" 'GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /healthz HTTP/1.0\r\n\r\n')
check "HTTP/1.0 keep-alive: said, and the connection reused" \
    [ "$(grep -c '^Connection: keep-alive' <<<"$out") $(grep -c '^HTTP/1.1 200' <<<"$out")" = "1 2" ]

# ---------------------------------------------------------------- malformed HTTP
bad_http() {   # bad_http DESCRIPTION EXPECTED_STATUS DATA
    local out
    out=$(raw "$HP" "$3" | head -1)
    check "malformed: $1 -> $2" [ "${out%$'\r'}" = "HTTP/1.1 $2 $(reason "$2")" ]
}
reason() {
    case $1 in
    400) echo "Bad Request" ;; 405) echo "Method Not Allowed" ;; 408) echo "Request Timeout" ;;
    413) echo "Content Too Large" ;;
    414) echo "URI Too Long" ;; 431) echo "Request Header Fields Too Large" ;;
    501) echo "Not Implemented" ;; 505) echo "HTTP Version Not Supported" ;;
    esac
}
bad_http "bare LF" 400 'GET /healthz HTTP/1.1\nHost: x\n\n'
bad_http "no Host in HTTP/1.1" 400 'GET /healthz HTTP/1.1\r\n\r\n'
bad_http "two Hosts" 400 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'
bad_http "HTTP/2.0" 505 'GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n'
bad_http "HTTP/1.x garbage" 400 'GET /healthz HTTP/1.x\r\nHost: x\r\n\r\n'
bad_http "bad method" 400 'G@T /healthz HTTP/1.1\r\nHost: x\r\n\r\n'
bad_http "absolute-form target" 400 'GET http://x/healthz HTTP/1.1\r\nHost: x\r\n\r\n'
bad_http "space in target" 400 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n'
bad_http "obs-fold" 400 'GET /healthz HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n'
bad_http "space before colon" 400 'GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n'
bad_http "control character in a value" 400 'GET /healthz HTTP/1.1\r\nHost: x\001y\r\n\r\n'
bad_http "Transfer-Encoding" 501 'GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n'
bad_http "a body" 413 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello'
bad_http "POST with a body: the method first" 405 'POST /v1/new/ulid HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello'
bad_http "bad Content-Length" 400 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'
bad_http "two Content-Lengths" 400 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n'
long=$(printf 'a%.0s' $(seq 9000))
bad_http "request line too long" 414 "GET /$long HTTP/1.1\r\nHost: x\r\n\r\n"
bad_http "head too large" 431 "GET /healthz HTTP/1.1\r\nHost: x\r\nX: $long\r\n\r\n"
bad_http "binary garbage" 400 '\x00\x01\x02\xff\r\n\r\n'
many=$(for i in $(seq 120); do printf 'X%d: y\\r\\n' "$i"; done)
bad_http "too many header fields" 431 "GET /healthz HTTP/1.1\r\nHost: x\r\n$many\r\n"
out=$(raw "$HP" 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
check "a 404 keeps the connection usable" [ "$(grep -c '^HTTP/1.1 ' <<<"$out")" -eq 2 ]
check "the server survived the malformed requests" [ "$(H "127.0.0.1:$HP/healthz")" = ok ]
before=$(grep -c 'malformed request' "$LOG")
t0=$(date +%s)
timeout 30 bash -c 'for i in $(seq 150); do exec 3<>/dev/tcp/127.0.0.1/$0; printf "BAD\r\n\r\n" >&3; cat <&3 >/dev/null; exec 3>&-; done' "$HP"
t1=$(date +%s)
after=$(grep -c 'malformed request' "$LOG")
# The limit is per second of the server's monotonic clock (10 lines a second
# per worker, 2 workers, plus one summary line each). Those seconds do not
# start with date's: a flood within one second of date's may span two of
# the server's, so the bound counts one more second than the flood took
# (and follows the seconds it took, so a loaded machine that spreads it out
# does not fail the check). 150 requests stay above the bound up to 5 s.
bound=$(( (t1 - t0 + 2) * 2 * 11 ))
check "a flood of malformed requests is logged at a bounded rate ($((after - before)) lines for 150 in $((t1 - t0 + 1)) s, at most $bound)" \
    [ $((after - before)) -le "$bound" ]

}

# ---------------------------------------------------------------- /v1/range and /v1/convert
# jfield KEY: the string (or number) KEY of the one-line JSON object on stdin
jfield() { sed -n 's/.*"'"$1"'":"\{0,1\}\([^",}]*\).*/\1/p'; }
# cli_class ARGS...: the error class toid prints last on stderr ("(range)"),
# or "ok" and its stdout
cli_out() {
    local o
    if o=$("$TOID_CLI" "$@" 2>"$WORK/cli.err"); then
        printf 'ok %s\n' "$(printf '%s' "$o" | paste -sd' ' -)"
    else
        sed -n 's/.*(\([a-z]*\))$/\1/p' "$WORK/cli.err" | tail -1
    fi
}

section_range() {
need_main
# every format, times in several forms (FROM alone: its whole span; FROM TO),
# as toid range FORMAT FROM [TO] says: the same IDs, or the same error class
TIMES=('2024-06-01' '2024-06-01T10:30+01:00|2024-07' '@1720000000.25' '2025' \
       '1720000000000ms|1720000001s' '2023-12-31T23:59:59.999Z' '1969' '10000' \
       '2024-06-02|2024-06-01' '2024-06-01t10:30:00,5Z')
for f in $FORMATS; do
    for t in "${TIMES[@]}"; do
        from=${t%%|*} to=""
        [ "$t" != "$from" ] && to=${t#*|}
        q="from=$(printf '%s' "$from" | sed 's/+/%2B/g')${to:+&to=$to}"
        js=$(H -w '\n%{http_code}' "127.0.0.1:$HP/v1/range/$f?$q")
        st=${js##*$'\n'} js=${js%$'\n'*}
        if [ "$st" = 200 ]; then
            got="ok $(jfield lo <<<"$js") $(jfield hi <<<"$js")"
        else
            got=$(jfield error <<<"$js")
        fi
        if [ -n "$TOID_CLI" ]; then
            want=$(cli_out range "$f" "$from" ${to:+"$to"})
            check "/v1/range/$f?$q is toid range's ($got; toid: $want)" [ "$got" = "$want" ]
        else
            check "/v1/range/$f?$q answers ($st $got)" [ "$st" = 200 -o "$st" = 400 ]
        fi
    done
done
[ -z "$TOID_CLI" ] && echo "(no toid binary given: /v1/range not compared with toid range)"
js=$(H "127.0.0.1:$HP/v1/range/ulid?from=2024-01-01")
check "/v1/range: a day's span, in RFC 3339 and ms ($js)" [ "$js" = \
    '{"format":"ulid","from":"2024-01-01T00:00:00.000Z","to":"2024-01-01T23:59:59.999Z","from_ms":1704067200000,"to_ms":1704153599999,"lo":"01HK153X000000000000000000","hi":"01HK3QGKZZZZZZZZZZZZZZZZZZ"}' ]
check "/v1/range: '+' is itself, %2B and %3A decoded" [ \
    "$(H "127.0.0.1:$HP/v1/range/ulid?from=2024-01-01T10:30+01:00")" = \
    "$(H "127.0.0.1:$HP/v1/range/ulid?%66rom=2024-01-01T10%3A30%2B01%3A00")" ]
check "/v1/range: the zone is applied" grep -q '"from":"2024-01-01T09:30:00.000Z","to":"2024-01-01T09:30:59.999Z"' \
    <<<"$(H "127.0.0.1:$HP/v1/range/ulid?from=2024-01-01T10:30+01:00")"
js=$(H "127.0.0.1:$HP/v1/range/uuidv7?from=now")
check "/v1/range: now ($js)" [ -n "$(jfield lo <<<"$js")" -a "$(jfield from_ms <<<"$js")" = "$(jfield to_ms <<<"$js")" ]
check "/v1/range: a bare 10-digit integer is ms, with a note" grep -q '"from_ms":1704067200,.*"note":"a bare integer is unix milliseconds' \
    <<<"$(H "127.0.0.1:$HP/v1/range/ulid?from=1704067200")"
check "/v1/range: a bad time is 400, the forms named" [ "$(H -w ' %{http_code}' "127.0.0.1:$HP/v1/range/ulid?from=yesterday")" = \
    "{\"error\":\"invalid\",\"message\":\"'yesterday' is not a time: ISO 8601 (2024, 2024-01-01, 2024-01-01T10:30Z, 2024-01-01T10:30:00.250+01:00), @SECONDS, Nms, Ns, Nus, unix ms or now\"}
 400" ]
check "/v1/range: to before from is 400" grep -q '^{"error":"invalid","message":"to (.2024-01.) is before from (.2024-02.)"}$' \
    <<<"$(H "127.0.0.1:$HP/v1/range/ulid?from=2024-02&to=2024-01")"
check "/v1/range: outside the span: 400 range" \
    grep -q '^{"error":"range","message":".1969. is outside the times ulid holds (1970-01-01T00:00:00.000Z .. ' \
    <<<"$(H "127.0.0.1:$HP/v1/range/ulid?from=1969")"
check "/v1/range: an unknown format is 404" [ "$(code "127.0.0.1:$HP/v1/range/nope?from=2024")" = 404 ]
check "/v1/range: no format is 404" [ "$(code "127.0.0.1:$HP/v1/range/?from=2024")" = 404 ]
check "/v1/range: from given twice is 400" grep -q '"the parameter from is given more than once' \
    <<<"$(H "127.0.0.1:$HP/v1/range/ulid?from=2024&from=2024")"
check "/v1/range: to given twice is 400" [ "$(code "127.0.0.1:$HP/v1/range/ulid?from=2024&to=2025&to=2025")" = 400 ]
check "/v1/range: an unknown parameter is 400, named" grep -q "(got 'count')" \
    <<<"$(H "127.0.0.1:$HP/v1/range/ulid?from=2024&count=3")"
check "/v1/range: no from is 400" grep -q '"from=TIME is required' <<<"$(H "127.0.0.1:$HP/v1/range/ulid?to=2024")"
check "/v1/range: no query is 400" [ "$(code "127.0.0.1:$HP/v1/range/ulid")" = 400 ]
check "/v1/range: a time too long is 400" [ "$(code "127.0.0.1:$HP/v1/range/ulid?from=$(printf '2%.0s' $(seq 100))")" = 400 ]
check "/v1/range: an encoded NUL is not a time" [ "$(code "127.0.0.1:$HP/v1/range/ulid?from=2024%00")" = 400 ]
check "/v1/range: a bad escape is 400" [ "$(code "127.0.0.1:$HP/v1/range/ulid?from=2024%zz")" = 400 ]
check "HEAD /v1/range is 200" [ "$(code -I "127.0.0.1:$HP/v1/range/ulid?from=2024")" = 200 ]
check "/v1/range is JSON" grep -qi '^Content-Type: application/json' <<<"$(H -D - -o /dev/null "127.0.0.1:$HP/v1/range/ulid?from=2024")"
}

section_convert() {
need_main
# ULIDs and UUIDs in the forms toid convert reads: both texts, as toid
# convert --to ulid gives the ULID, and --to uuid of that ULID the UUID
IN=("$(H "127.0.0.1:$HP/v1/new/ulid")" "$(H "127.0.0.1:$HP/v1/new/uuidv7")" 01arz3ndektsv4rrffq69g5fav \
    550e8400-e29b-41d4-a716-446655440000 '{550E8400-E29B-41D4-A716-446655440000}' \
    urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f 017f22e279b07cc398c4dc0c0c07398f \
    00000000-0000-0000-0000-000000000000 7ZZZZZZZZZZZZZZZZZZZZZZZZZ \
    550e8400e29b41d4a716446655440000)   # (the last: 32 hex digits of a UUIDv4, as toid inspect reads them)
for id in "${IN[@]}"; do
    js=$(H -w '\n%{http_code}' "127.0.0.1:$HP/v1/convert/$(printf '%s' "$id" | sed 's/{/%7B/; s/}/%7D/')")
    st=${js##*$'\n'} js=${js%$'\n'*}
    ul=$(jfield ulid <<<"$js") uu=$(jfield uuid <<<"$js")
    check "/v1/convert/$id is 200 with both ($js)" [ "$st" = 200 -a -n "$ul" -a -n "$uu" ]
    if [ -n "$TOID_CLI" ]; then
        want=$("$TOID_CLI" convert --to ulid "$id" 2>&1)
        check "/v1/convert/$id: ulid $ul is toid convert --to ulid's ($want)" [ "$ul" = "$want" ]
        want=$("$TOID_CLI" convert --to uuid "$ul" 2>&1)
        check "/v1/convert/$id: uuid $uu is toid convert --to uuid's ($want)" [ "$uu" = "$want" ]
    fi
done
check "/v1/convert: a known pair" [ "$(H "127.0.0.1:$HP/v1/convert/01ARZ3NDEKTSV4RRFFQ69G5FAV")" = \
    '{"ulid":"01ARZ3NDEKTSV4RRFFQ69G5FAV","uuid":"01563e3a-b5d3-d676-4c61-efb99302bd5b"}' ]
# what toid convert refuses, refused with its error class
# (the last: 32 hex digits whose variant bits are not RFC 9562's: a scru160)
for id in "$(H "127.0.0.1:$HP/v1/new/nanoflake")" hello 01ARZ3NDEKTSV4RRFFQ69G5FA_ 8ZZZZZZZZZZZZZZZZZZZZZZZZZ \
          550e8400e29b41d40716446655440000; do
    js=$(H -w '\n%{http_code}' "127.0.0.1:$HP/v1/convert/$id")
    st=${js##*$'\n'} js=${js%$'\n'*}
    got=$(jfield error <<<"$js")
    check "/v1/convert/$id is 400 ($js)" [ "$st" = 400 -a -n "$(jfield message <<<"$js")" ]
    if [ -n "$TOID_CLI" ]; then
        want=$(cli_out convert --to ulid "$id")
        check "/v1/convert/$id: toid convert refuses it too, the same class ($got; toid: $want)" [ "$got" = "$want" ]
    fi
done
check "/v1/convert: a bad character's position" grep -q "^{\"error\":\"char\",\"message\":\"bad character '_' at position 25\",\"position\":25}$" \
    <<<"$(H "127.0.0.1:$HP/v1/convert/01ARZ3NDEKTSV4RRFFQ69G5FA_")"
check "/v1/convert: another format is named" grep -q '"message":"a nanoflake, not a ULID or a UUID' \
    <<<"$(H "127.0.0.1:$HP/v1/convert/$(H "127.0.0.1:$HP/v1/new/nanoflake")")"
check "/v1/convert: no ID is 400" [ "$(code "127.0.0.1:$HP/v1/convert/")" = 400 ]
check "/v1/convert: a query is 400" [ "$(code "127.0.0.1:$HP/v1/convert/01ARZ3NDEKTSV4RRFFQ69G5FAV?x=1")" = 400 ]
}

# ---------------------------------------------------------------- RESP
section_resp() {
need_main
check "PING" [ "$(R PING)" = PONG ]
check "PING message" [ "$(R PING hello)" = hello ]
for f in $FORMATS; do
    id=$(R ID.NEW "$f")
    check "ID.NEW $f" [ -n "$id" ]
    check "ID.INSPECT $f ID" grep -q "\"format\":\"$f\",\"text\":\"$id\"" <<<"$(R ID.INSPECT "$f" "$id")"
    R ID.NEW "$f" 500 >"$WORK/rbatch.$f"
    check "ID.NEW $f 500: 500 IDs, strictly increasing" \
        bash -c '[ "$(wc -l <"$0")" -eq 500 ] && sort -c -u "$0"' "$WORK/rbatch.$f"
done
check "ID.INSPECT detects" grep -q '"format":"ulid"' <<<"$(R ID.INSPECT 01ARZ3NDEKTSV4RRFFQ69G5FAV)"
check "ID.INSPECT bad id is an error" grep -q "^ERR invalid id: bad character '_' at position 25" \
    <<<"$(R ID.INSPECT ulid 01ARZ3NDEKTSV4RRFFQ69G5FA_)"
check "ID.INSPECT of a word is an error" grep -q '^ERR invalid id: a word, not an ID' <<<"$(R ID.INSPECT information)"
check "ID.NEW unknown format is an error" grep -q "^ERR unknown format 'nope'" <<<"$(R ID.NEW nope)"
check "ID.NEW a mistyped format: the nearest named" \
    grep -q "^ERR unknown format 'nanoflkae' (did you mean nanoflake?)$" <<<"$(R ID.NEW nanoflkae)"
check "ID.NEW count 0 is an empty array" [ "$(raw "$RP" 'ID.NEW ulid 0\r\nQUIT\r\n' | head -1)" = $'*0\r' ]
check "ID.NEW count 10001 is an error" grep -q '^ERR count must be' <<<"$(R ID.NEW ulid 10001)"
check "ID.NEW without a format is an error" grep -q '^ERR wrong number of arguments' <<<"$(R ID.NEW)"
check "an unknown command is an error" grep -q "^ERR unknown command 'FLUSHALL'" <<<"$(R FLUSHALL)"
check "HELLO (RESP2)" grep -q '^toidd$' <<<"$(R HELLO 2)"
check "HELLO 3 answers a RESP3 map" [ "$(raw "$RP" 'HELLO 3\r\nQUIT\r\n' | head -1)" = $'%7\r' ]
check "HELLO 4 is NOPROTO" grep -q '^NOPROTO' <<<"$(R HELLO 4)"
check "COMMAND COUNT" [ "$(R COMMAND COUNT)" = 16 ]
check "CLIENT SETNAME" [ "$(R CLIENT SETNAME me)" = OK ]
check "CLIENT SETINFO" [ "$(R CLIENT SETINFO lib-name x)" = OK ]
check "SELECT 0" [ "$(R SELECT 0)" = OK ]
check "SELECT 1 is an error" grep -q '^ERR DB index is out of range' <<<"$(R SELECT 1)"
check "ECHO" [ "$(R ECHO hi)" = hi ]
check "redis-cli -n 0 (SELECT on connect)" [ "$(R -n 0 PING)" = PONG ]
check "COMMAND lists ID.NEW" grep -q '^id.new$' <<<"$(R COMMAND)"
check "CONFIG GET save" [ "$(R CONFIG GET save | head -1)" = save ]
check "CONFIG GET unknown is empty" [ -z "$(R CONFIG GET nothing)" ]
check "QUIT" [ "$(R QUIT)" = OK ]
out=$(raw "$RP" 'PING\r\nid.new ulid\r\nFOO\r\nPING\r\nQUIT\r\n')
check "inline commands, an error keeps the connection" \
    [ "$(tr -d '\r' <<<"$out" | sed -n '1p;2p;4p;5p;6p' | tr '\n' '|')" = "+PONG|\$26|-ERR unknown command 'FOO'|+PONG|+OK|" ]
# inline quotes as Redis reads them (printf %b: \\ is one backslash on the wire)
out=$(raw "$RP" 'ECHO "a b"\r\nECHO '"'"'it\\'"'"'s'"'"'\r\nECHO "\\x41\\tz\\"q"\r\nECHO x"y z"\r\n  "id.new"   '"'"'nanoflake'"'"'  \r\nECHO ""\r\nQUIT\r\n')
check "inline quotes: \"a b\" and 'it\\'s'" \
    [ "$(tr -d '\r' <<<"$out" | sed -n '1,4p' | tr '\n' '|')" = '$3|a b|$4|it'"'"'s|' ]
check "inline quotes: \\x41, \\t and \\\" escapes" \
    [ "$(sed -n '5,6p' <<<"$out" | tr -d '\r' | tr '\n' '|')" = "\$5|A$(printf '\t')z\"q|" ]
check "inline quotes: a quote inside a token, quoted command names" \
    [ "$(tr -d '\r' <<<"$out" | sed -n '7,9p' | tr '\n' '|' | sed 's/|\$13|.*/|$13|/')" = '$4|xy z|$13|' ]
check "inline quotes: an empty argument" [ "$(tr -d '\r' <<<"$out" | sed -n '11,12p' | tr '\n' '|')" = '$0||' ]
for bad in 'ECHO "abc\r\n' 'ECHO "a"b\r\n' "ECHO 'abc\\r\\n" 'ECHO a\001b\r\n'; do
    out=$(raw "$RP" "$bad")
    check "inline: $(printf '%q' "$bad") is a protocol error" grep -q '^-ERR Protocol error: \(unbalanced quotes\|control character\)' <<<"$out"
done
out=$(raw "$RP" '*2\r\n$4\r\nPING\r\n$2\r\nhi\r\n*1\r\n$4\r\nQUIT\r\n')
check "multibulk" [ "$(tr -d '\r' <<<"$out" | tr '\n' '|')" = '$2|hi|+OK|' ]
for bad in '*1\r\n$x\r\n' '*99999\r\n' '*1\r\n$99999\r\n' '*1\r\n$4\r\nPINGxx' '*x\r\n'; do
    out=$(raw "$RP" "$bad")
    check "RESP protocol error for $bad" grep -q '^-ERR Protocol error' <<<"$out"
done
longline=$(printf 'a%.0s' $(seq 5000))
check "an inline request too long" grep -q '^-ERR Protocol error' <<<"$(raw "$RP" "$longline")"
out=$(raw "$RP" 'POST / HTTP/1.1\r\nHost: x\r\n\r\nPING\r\n')
check "HTTP sent to the RESP port: one error, then closed" \
    [ "$(tr -d '\r' <<<"$out")" = "-ERR this is the RESP port of toidd, not HTTP: closing" ]
out=$(raw "$RP" 'GET foo\r\nPING\r\nQUIT\r\n')
check "GET foo on the RESP port is a RESP command (as Redis: only POST and Host: are HTTP)" \
    [ "$(tr -d '\r' <<<"$out" | tr '\n' '|')" = "-ERR unknown command 'GET'|+PONG|+OK|" ]
check "the server survived the RESP errors" [ "$(R PING)" = PONG ]

# half-closed clients (FIN after the requests): every complete request is
# answered, then the server closes
if [ -n "$HALFCLOSE" ]; then
    out=$(printf 'GET /v1/new/ulid?count=3 HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' |
          "$HALFCLOSE" "$HP" | tr -d '\r')
    check "half-closed HTTP client: both pipelined requests answered, then closed" \
        [ "$(grep -c '^HTTP/1.1 200' <<<"$out")" -eq 2 -a "$(grep -cE '^[0-9A-Z]{26}$' <<<"$out")" -eq 3 ]
    out=$(printf 'PING\r\n*3\r\n$6\r\nID.NEW\r\n$4\r\nulid\r\n$1\r\n2\r\n' | "$HALFCLOSE" "$RP" | tr -d '\r')
    check "half-closed RESP client: both commands answered, then closed" \
        [ "$(head -2 <<<"$out" | tr '\n' '|')" = '+PONG|*2|' -a "$(grep -cE '^[0-9A-Z]{26}$' <<<"$out")" -eq 2 ]
    for i in $(seq 60); do printf 'ID.NEW ulid 10000\r\n'; done >"$WORK/hc.req"
    "$HALFCLOSE" "$RP" <"$WORK/hc.req" >"$WORK/hc.out"
    check "half-closed RESP client with 60 large replies held back: all answered, then closed" \
        [ $? -eq 0 -a "$(grep -c '^\*10000' "$WORK/hc.out")" -eq 60 ]
    check "half-closed client with a partial request: closed without an answer" \
        [ -z "$(printf 'GET /healthz HTTP/1.1\r\nHo' | "$HALFCLOSE" "$HP")" ]
    check "half-closed client with a partial RESP command: closed" \
        bash -c 'printf "*2\r\n\$4\r\nPI" | "$0" "$1" >/dev/null' "$HALFCLOSE" "$RP"
else
    fail "no HALFCLOSE binary given: half-closed clients untested"
fi
if timeout 30 redis-benchmark -p "$RP" -n 2000 -c 4 -q ID.NEW ulid >"$WORK/bench.out" 2>&1; then
    check "redis-benchmark runs ID.NEW" grep -q 'requests per second' "$WORK/bench.out"
else
    fail "redis-benchmark failed: $(head -3 "$WORK/bench.out")"
fi
if timeout 30 redis-benchmark -p "$RP" -n 2000 -c 4 -q -t ping >"$WORK/bench2.out" 2>&1; then
    check "redis-benchmark -t ping" grep -q 'PING_MBULK' "$WORK/bench2.out"
else
    fail "redis-benchmark -t ping failed: $(head -3 "$WORK/bench2.out")"
fi

}

# ---------------------------------------------------------------- Unix sockets
section_sockets() {
need_main
check "HTTP over a Unix socket" [ "$(H --unix-socket "$WORK/http.sock" http://x/healthz)" = ok ]
check "RESP over a Unix socket" [ "$(timeout 10 redis-cli -s "$WORK/resp.sock" PING)" = PONG ]

# ---------------------------------------------------------------- IPv6 loopback (if the host has ::1)
if [ -e /proc/net/if_inet6 ] && grep -q '^0\{31\}1 ' /proc/net/if_inet6; then
    LOG=$WORK/v6.log
    : >"$LOG"
    "$TOIDD" --no-state --http '[::1]:0' --resp '[::1]:0' --threads 1 2>>"$LOG" &
    V6=$!
    SERVER_PIDS="$SERVER_PIDS $V6"
    for i in $(seq 50); do grep -q ' started: ' "$LOG" && break; sleep 0.1; done
    p6=$(sed -n 's/.*listening: http \[::1\]:0 (port \([0-9]*\)).*/\1/p' "$LOG")
    r6=$(sed -n 's/.*listening: resp \[::1\]:0 (port \([0-9]*\)).*/\1/p' "$LOG")
    check "HTTP on [::1]" [ "$(curl -gs --max-time 10 "http://[::1]:$p6/healthz")" = ok ]
    check "RESP on [::1]" [ "$(timeout 10 redis-cli -h ::1 -p "$r6" PING)" = PONG ]
    kill -TERM "$V6"
    waitfor "$V6"
    check "IPv6 server: exit 0" [ "$STATUS" = 0 ]
fi

}

# ---------------------------------------------------------------- limits, timeouts
section_limits() {
need_main
# slowloris: a request head that never ends is cut off with a 408
start_ns=$(date +%s%N)
out=$(timeout 8 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "GET /healthz HTTP/1.1\r\nHost: x\r\n" >&3;
      for i in 1 2 3 4 5 6; do printf "X-$i: y\r\n" >&3 2>/dev/null || break; sleep 0.5; done >/dev/null 2>&1 & cat <&3' "$HP")
el=$(( ($(date +%s%N) - start_ns) / 1000000 ))
check "slowloris: cut off with 408" grep -q '^HTTP/1.1 408' <<<"$out"
check "slowloris: within the request timeout (+ slack), took ${el} ms" [ "$el" -lt 4000 ]
check "a probe is answered meanwhile" [ "$(H "127.0.0.1:$HP/healthz")" = ok ]
# a partial RESP command is dropped after the request timeout
out=$(timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "*2\r\n\$4\r\nPI" >&3; cat <&3; echo closed' "$RP")
check "partial RESP command: connection closed" [ "$out" = closed ]
# a client that does not read its responses is dropped after the write timeout
timeout 8 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0;
    for i in $(seq 60); do printf "GET /v1/new/uuidv7?count=10000 HTTP/1.1\r\nHost: x\r\n\r\n"; done >&3; sleep 4' "$HP"
check "a client that reads nothing is dropped" \
    grep -Eq '^toidd_connections_dropped_total\{reason="write_timeout"\} [1-9]' <<<"$(H "127.0.0.1:$HP/metrics")"
check "the server still answers" [ "$(R PING)" = PONG ]

# out of file descriptors: the listener pauses instead of spinning, and the
# server answers again once connections close
mkdir -p "$WORK/state9"
LOG=$WORK/emfile.log
: >"$LOG"
(ulimit -n 40 && exec "$TOIDD" --state-dir "$WORK/state9" --formats ulid --http 127.0.0.1:0 \
    --resp off --threads 1) 2>>"$LOG" &
EM=$!
SERVER_PIDS="$SERVER_PIDS $EM"
for i in $(seq 50); do grep -q ' started: ' "$LOG" && break; sleep 0.1; done
pe=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$LOG")
check "a low descriptor limit is warned about" grep -q 'file descriptor limit (40)' "$LOG"
fds=""
for i in $(seq 45); do
    exec {fd}<>"/dev/tcp/127.0.0.1/$pe" 2>/dev/null && fds="$fds $fd"
done
sleep 0.5
check "out of descriptors: the listener pauses" grep -q 'pausing the http listener' "$LOG"
cpu1=$(awk '{print $14 + $15}' "/proc/$EM/stat" 2>/dev/null || echo 0)
sleep 1
cpu2=$(awk '{print $14 + $15}' "/proc/$EM/stat" 2>/dev/null || echo 0)
check "out of descriptors: no busy loop ($((cpu2 - cpu1)) ticks in 1 s)" [ $((cpu2 - cpu1)) -lt 50 ]
for fd in $fds; do exec {fd}>&-; done
sleep 0.5
check "out of descriptors: answers again once connections close" \
    [ "$(curl -s --max-time 10 "127.0.0.1:$pe/healthz")" = ok ]
kill -TERM "$EM"
waitfor "$EM"
check "out of descriptors: exit 0" [ "$STATUS" = 0 ]

}

# ---------------------------------------------------------------- concurrency
section_concurrency() {
need_main
# 1,000,000 IDs: 4 HTTP clients (15 x 10,000 each, one connection each) and
# 2 RESP clients (20 x 10,000 each) at once; no duplicates; each connection's
# IDs strictly increasing.
urls=""
for i in $(seq 15); do urls="$urls 127.0.0.1:$HP/v1/new/ulid?count=10000"; done
cpids=""
for c in 1 2 3 4; do
    # shellcheck disable=SC2086
    curl -s --max-time 60 $urls >"$WORK/conc.http.$c" &
    cpids="$cpids $!"
done
for c in 1 2; do
    timeout 60 redis-cli -p "$RP" -r 20 ID.NEW ulid 10000 >"$WORK/conc.resp.$c" &
    cpids="$cpids $!"
done
for p in $cpids; do wait "$p"; done
total=$(cat "$WORK"/conc.http.* "$WORK"/conc.resp.* | wc -l)
check "1,000,000 IDs fetched concurrently (got $total)" [ "$total" -eq 1000000 ]
check "no duplicate among them" nodups "$WORK"/conc.*
for f in "$WORK"/conc.*; do
    check "strictly increasing per connection ($(basename "$f"))" strictly_increasing "$f"
done

}

# ---------------------------------------------------------------- the state directory
# (ends the main server: SIGTERM, restarts)
section_state_dir() {
need_main
run_expect_fail second --state-dir "$ST" --gen nanoflake:node=7
check "a second instance on the same node is refused" grep -q 'node [0-9]* is in use by another' "$LOG"
run_expect_fail second-nano --state-dir "$ST" --formats nanoflake --gen nanoflake:node=7
check "... with a clear message" grep -q 'nanoflake node 7 is in use by another generator (its claim is held in ' "$LOG"
ST2=$WORK/state2
mkdir -p "$ST2"
if start other-node --state-dir "$ST2" --formats nanoflake --gen nanoflake:node=8; then
    pass
    check "another node in another directory runs beside it" [ "$(R PING)" = PONG ]
    stop
else
    fail "a second instance with another node did not start"
fi

# SIGTERM: drain, exit 0, and the mark is lowered to the last ID
PID=$MAIN_PID
LOG=$WORK/main.log
H "127.0.0.1:$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$LOG" | head -1)/v1/new/nanoflake?count=10000" >"$WORK/before.nano"
stop
check "SIGTERM: exit 0 (got $STATUS)" [ "$STATUS" = 0 ]
check "SIGTERM: logged the drain" grep -q 'SIGTERM: draining' "$LOG"
check "SIGTERM: the Unix sockets are removed" [ ! -e "$WORK/http.sock" ]

# restart: no ID repeats, and the new ones come after the old ones
if start restart --state-dir "$ST" --gen nanoflake:node=7; then
    pass
    H "127.0.0.1:$HP/v1/new/nanoflake?count=10000" >"$WORK/after.nano"
    check "restart: no ID repeated" nodups "$WORK/before.nano" "$WORK/after.nano"
    check "restart: the new IDs are after the old ones" \
        [ "$(tail -1 "$WORK/before.nano")" \< "$(head -1 "$WORK/after.nano")" ]
    # kill -9 at once after fetching, in a loop; restart at once each time
    cp "$WORK/after.nano" "$WORK/k9.all"
    ok=1
    for round in 1 2 3 4 5; do
        H "127.0.0.1:$HP/v1/new/nanoflake?count=5000" >>"$WORK/k9.all"
        R ID.NEW nanoflake 5000 >>"$WORK/k9.all"
        kill -KILL "$PID"
        wait "$PID" 2>/dev/null
        if ! start "k9-$round" --state-dir "$ST" --gen nanoflake:node=7; then
            ok=0
            fail "restart after kill -9 (round $round): $(tail -1 "$LOG")"
            break
        fi
    done
    check "kill -9 then restart, 5 rounds" [ $ok -eq 1 ]
    H "127.0.0.1:$HP/v1/new/nanoflake?count=5000" >>"$WORK/k9.all"
    check "kill -9 rounds: $(wc -l <"$WORK/k9.all") IDs, none repeated" nodups "$WORK/k9.all"
    check "kill -9 rounds: strictly increasing across restarts" strictly_increasing "$WORK/k9.all"
    # a far reservation, then kill -9: the clock is behind the mark at start
    stop
    if start far --state-dir "$ST" --formats ulid --reserve-ms 600000; then
        H "127.0.0.1:$HP/v1/new/ulid" >/dev/null
        kill -KILL "$PID"
        wait "$PID" 2>/dev/null
        run_expect_fail behind --state-dir "$ST" --formats ulid --clock-wait-max-ms 500
        check "clock behind the mark: refused" grep -q 'the clock is [0-9]* ms behind the high-water mark of ulid node 0' "$LOG"
        check "clock behind the mark: exit 1" [ "$STATUS" -eq 1 ]
        if start reset --state-dir "$ST" --formats ulid --reset-state; then
            pass
            check "--reset-state: logged" grep -q 'reset on request' "$LOG"
            stop
        else
            fail "--reset-state did not start: $(tail -1 "$LOG")"
        fi
    else
        fail "start with --reserve-ms 600000"
    fi
else
    fail "restart after SIGTERM: $(tail -1 "$LOG")"
fi

# corrupt and missing state
printf 'toidd-mark 1\nformat ulid\nnode 0\nepoch_ms 0\nissued_up_to_ms 1\ncheck 0000000000000000\n' >"$ST/ulid-0.mark"
run_expect_fail corrupt --state-dir "$ST" --formats ulid
check "a corrupt mark is refused" grep -q 'ulid-0.mark is corrupt' "$LOG"
rm -f "$ST/ulid-0.mark"
run_expect_fail missing --state-dir "$ST" --formats ulid
check "a missing mark (lock file present) is refused" grep -q 'ulid-0.mark is missing' "$LOG"
if start recover --state-dir "$ST" --formats ulid --reset-state; then
    pass
    stop
else
    fail "--reset-state after a missing mark"
fi
check "the lock file says initialised" grep -q '^initialised; pid ' "$ST/ulid-0.lock"
# sporadic traffic: the flusher keeps a recently used mark ahead of the clock,
# so a request after a pause longer than the reservation writes nothing itself
mkdir -p "$WORK/state-sporadic"
if start sporadic --state-dir "$WORK/state-sporadic" --formats ulid,nanoflake --reserve-ms 200; then
    spor=$WORK/sporadic.ids
    : >"$spor"
    for i in 1 2 3 4; do
        sleep 0.5
        H "127.0.0.1:$HP/v1/new/ulid" >>"$spor"
        R ID.NEW nanoflake >>"$spor"
    done
    m=$(H "127.0.0.1:$HP/metrics")
    # (whether a request found its mark already written depends on the
    # scheduler, not tested here; that the flusher writes marks by itself
    # during the pauses, between requests, is)
    all_w=$(sed -n 's/^toidd_state_writes_total //p' <<<"$m")
    req_w=$(sed -n 's/^toidd_state_request_writes_total //p' <<<"$m")
    check "sporadic requests: the flusher wrote marks between the requests ($all_w - $req_w)" \
        [ $((all_w - req_w)) -ge 4 ]
    check "sporadic requests: 8 IDs" [ "$(sort -u "$spor" | wc -l)" -eq 8 ]
    stop
else
    fail "start for sporadic traffic: $(tail -1 "$LOG")"
fi
# a first start that died before its mark was durable leaves an uninitialised
# lock file: the next start initialises
mkdir -p "$WORK/state7"
: >"$WORK/state7/ulid-0.lock"
if start uninit --state-dir "$WORK/state7" --formats ulid; then
    pass
    stop
else
    fail "an uninitialised lock file without a mark: $(tail -1 "$LOG")"
fi
run_expect_fail epoch --state-dir "$ST" --formats nanoflake --gen nanoflake:node=7,epoch=2020-01-01T00:00:00Z
check "another epoch than the mark's is refused" grep -q 'written for another epoch' "$LOG"
# held back at SIGTERM: pipelined requests waiting behind a full output
# buffer are answered before the close (HTTP: the next one, saying
# Connection: close; RESP: every complete command received). The replies
# (over 20 MB) pass what loopback's socket buffers hold, so requests are
# still waiting when the signal comes.
if start held --no-state --formats ulid --drain-timeout-ms 30000; then
    timeout 60 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0
        for i in $(seq 80); do printf "ID.NEW ulid 10000\r\n"; done >&3
        sleep 1; kill -TERM $1; sleep 0.3; cat <&3' "$RP" "$PID" >"$WORK/held.resp"
    waitfor "$PID"
    check "held back at SIGTERM (RESP): exit 0" [ "$STATUS" = 0 ]
    check "held back at SIGTERM (RESP): all 80 commands answered" [ "$(grep -c '^\*10000' "$WORK/held.resp")" -eq 80 ]
    check "held back at SIGTERM (RESP): 800000 IDs, none repeated" \
        [ "$(grep -E '^[0-9A-Z]{26}' "$WORK/held.resp" | sort -u | wc -l)" -eq 800000 ]
else
    fail "start for held-back requests (RESP): $(tail -1 "$LOG")"
fi
if start held2 --no-state --formats ulid --drain-timeout-ms 30000; then
    timeout 60 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0
        for i in $(seq 80); do printf "GET /v1/new/ulid?count=10000 HTTP/1.1\r\nHost: x\r\n\r\n"; done >&3
        sleep 1; kill -TERM $1; sleep 0.3; cat <&3' "$HP" "$PID" | tr -d '\r' >"$WORK/held.http"
    waitfor "$PID"
    check "held back at SIGTERM (HTTP): exit 0" [ "$STATUS" = 0 ]
    nresp=$(grep -c '^HTTP/1.1 200' "$WORK/held.http")
    check "held back at SIGTERM (HTTP): some held back ($nresp of 80 answered)" [ "$nresp" -lt 80 ]
    check "held back at SIGTERM (HTTP): the last answer says Connection: close, no other" \
        [ "$(grep -c '^Connection: close' "$WORK/held.http")" -eq 1 -a \
          "$(grep -E '^(HTTP/1.1|Connection: close)' "$WORK/held.http" | tail -2 | head -1 | cut -c1-8)" = HTTP/1.1 ]
    check "held back at SIGTERM (HTTP): whole responses" \
        [ "$(grep -cE '^[0-9A-Z]{26}$' "$WORK/held.http")" -eq $((nresp * 10000)) ]
else
    fail "start for held-back requests (HTTP): $(tail -1 "$LOG")"
fi

run_expect_fail nodir --state-dir "$WORK/nonexistent"
check "a missing state directory is refused" grep -q 'state directory .*nonexistent' "$LOG"

# SIGTERM under load: exit 0, the responses in flight complete, no ID
# repeated, and after a restart none of them comes again
mkdir -p "$WORK/state4"
if start load --state-dir "$WORK/state4" --formats ulid,nanoflake; then
    urls=""
    for i in $(seq 40); do urls="$urls 127.0.0.1:$HP/v1/new/nanoflake?count=10000"; done
    cpids=""
    for c in 1 2 3; do
        # shellcheck disable=SC2086
        curl -s --max-time 30 $urls >"$WORK/load.$c" 2>/dev/null &
        cpids="$cpids $!"
    done
    timeout 30 redis-cli -p "$RP" -r 40 ID.NEW nanoflake 10000 >"$WORK/load.r" 2>/dev/null &
    cpids="$cpids $!"
    sleep 0.7
    stop
    for p in $cpids; do wait "$p"; done
    check "SIGTERM under load: exit 0 (got $STATUS)" [ "$STATUS" = 0 ]
    cat "$WORK"/load.[123r] | grep -E '^[0-9a-z]{13}$' >"$WORK/all.load"
    n=$(wc -l <"$WORK/all.load")
    check "SIGTERM under load: only whole responses ($n IDs)" [ $((n % 10000)) -eq 0 ]
    check "SIGTERM under load: IDs were served" [ "$n" -gt 0 ]
    check "SIGTERM under load: no ID repeated" nodups "$WORK/all.load"
    if start load2 --state-dir "$WORK/state4" --formats ulid,nanoflake; then
        H "127.0.0.1:$HP/v1/new/nanoflake?count=10000" >>"$WORK/all.load"
        check "SIGTERM under load: none repeated after a restart" nodups "$WORK/all.load"
        stop
    else
        fail "restart after SIGTERM under load: $(tail -1 "$LOG")"
    fi
else
    fail "start for SIGTERM under load"
fi

}

# ---------------------------------------------------------------- kill -9 under load
# kill -9 at random moments under load, in a loop for TOIDD_KILL9_SECONDS
# (default 45; at least 6 rounds): every ID received, over both protocols,
# across all the rounds and a last run, is unique
section_kill9() {
mkdir -p "$WORK/state6"
ok=1
: >"$WORK/rk.all"
: >"$WORK/rk.uuid"
rk_end=$((SECONDS + ${TOIDD_KILL9_SECONDS:-45}))
round=0
while [ $round -lt 6 ] || [ $SECONDS -lt $rk_end ]; do
    round=$((round + 1))
    if ! start "rk-$round" --state-dir "$WORK/state6" --formats nanoflake,uuidv7 --reserve-ms 200; then
        ok=0
        fail "kill -9 under load: restart $round: $(tail -1 "$LOG")"
        break
    fi
    urls=""
    for i in $(seq 30); do urls="$urls 127.0.0.1:$HP/v1/new/nanoflake?count=2000"; done
    cpids=""
    for c in 1 2; do
        # shellcheck disable=SC2086
        curl -s --max-time 20 $urls >"$WORK/rk.$round.$c" 2>/dev/null &
        cpids="$cpids $!"
    done
    timeout 20 redis-cli -p "$RP" -r 30 ID.NEW nanoflake 2000 >"$WORK/rk.$round.r" 2>/dev/null &
    cpids="$cpids $!"
    timeout 20 redis-cli -p "$RP" -r 30 ID.NEW uuidv7 1000 >"$WORK/rk.$round.u" 2>/dev/null &
    cpids="$cpids $!"
    sleep "0.$((RANDOM % 9 + 1))"
    kill -KILL "$PID"
    wait "$PID" 2>/dev/null
    for p in $cpids; do wait "$p"; done
    cat "$WORK/rk.$round".[12r] | grep -E '^[0-9a-z]{13}$' >>"$WORK/rk.all"
    grep -E '^[0-9a-f-]{36}$' "$WORK/rk.$round.u" >>"$WORK/rk.uuid"
    rm -f "$WORK/rk.$round".*
done
check "kill -9 under load: $round rounds restarted" [ $ok -eq 1 ]
if start rk-last --state-dir "$WORK/state6" --formats nanoflake,uuidv7; then
    H "127.0.0.1:$HP/v1/new/nanoflake?count=10000" >>"$WORK/rk.all"
    stop
fi
check "kill -9 under load: IDs received ($(wc -l <"$WORK/rk.all"))" [ "$(wc -l <"$WORK/rk.all")" -gt 10000 ]
check "kill -9 under load: none repeated" nodups "$WORK/rk.all"
echo "kill -9 under load: $round rounds, $(wc -l <"$WORK/rk.all") nanoflake and $(wc -l <"$WORK/rk.uuid") uuidv7 IDs received"
check "kill -9 under load: uuidv7 IDs received ($(wc -l <"$WORK/rk.uuid"))" [ "$(wc -l <"$WORK/rk.uuid")" -gt 1000 ]
check "kill -9 under load: no uuidv7 repeated" nodups "$WORK/rk.uuid"

}

# ---------------------------------------------------------------- the clock set back (libfaketime)
section_clock() {
# toidd runs with libfaketime reading its offset from a file at every call,
# so the test moves the server's clock back while it runs and across
# restarts.
if [ -n "${TOIDD_TEST_NO_FAKETIME:-}" ]; then
    # (the ThreadSanitizer run: libfaketime's own pthread_cond_timedwait hides
    # the mutex hand-over from TSan, which then reports a false double lock;
    # this part runs in the other builds)
    echo "the clock set back (libfaketime): skipped (TOIDD_TEST_NO_FAKETIME)"
elif [ -z "$FTLIB" ]; then
    fail "libfaketime is not installed (package faketime)"
else
    mkdir -p "$WORK/state5"
    echo "+0" >"$WORK/ft.spec"
    # (an ASan build of toidd accepts the preloaded library with verify_asan_link_order=0)
    START_ENV=(LD_PRELOAD="$FTLIB" FAKETIME_TIMESTAMP_FILE="$WORK/ft.spec" FAKETIME_NO_CACHE=1
               FAKETIME_DONT_FAKE_MONOTONIC=1
               ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
    # (nanoflake last: its checks come first once the clock is back)
    CLOCK_FORMATS="ulid uuidv7 uid11-seq nanoflake"
    if start ft1 --state-dir "$WORK/state5" --formats nanoflake,ulid,uuidv7,uid11-seq; then
        for f in $CLOCK_FORMATS; do H "127.0.0.1:$HP/v1/new/$f?count=1000" >"$WORK/clk.$f"; done
        # 9 s back: behind each format's last ID for as long as the checks
        # below can take on a loaded machine (5 s was not, at load 30), and
        # within the 10 s that ulid, uuidv7 and uid11-seq keep their last time
        echo "-9s" >"$WORK/ft.spec"
        check "clock 9 s back: nanoflake waits, then 503" \
            [ "$(code "127.0.0.1:$HP/v1/new/nanoflake?count=10")" = 503 ]
        check "clock 9 s back: RESP says TRYAGAIN" grep -q '^TRYAGAIN' <<<"$(R ID.NEW nanoflake)"
        check "clock 9 s back: /readyz names nanoflake's clock" grep -q \
            '^unserved: nanoflake (the clock is behind' <<<"$(curl -s --max-time 10 "127.0.0.1:$HP/readyz")"
        check "clock 9 s back: /livez 200" [ "$(code "127.0.0.1:$HP/livez")" = 200 ]
        for f in ulid uuidv7 uid11-seq; do
            H "127.0.0.1:$HP/v1/new/$f?count=1000" >>"$WORK/clk.$f"
            check "clock 9 s back: $f keeps its last time, still increasing" strictly_increasing "$WORK/clk.$f"
        done
        check "clock 9 s back: counted in /metrics" grep -Eq \
            '^toidd_clock_regressions_total\{format="ulid"\} [1-9]' <<<"$(H "127.0.0.1:$HP/metrics")"
        echo "+0" >"$WORK/ft.spec"
        for f in $CLOCK_FORMATS; do H "127.0.0.1:$HP/v1/new/$f?count=1000" >>"$WORK/clk.$f"; done
        check "the clock back to now: /readyz 200 again" [ "$(code "127.0.0.1:$HP/readyz")" = 200 ]
        kill -KILL "$PID"
        wait "$PID" 2>/dev/null
        echo "-30s" >"$WORK/ft.spec"
        run_expect_fail ft2 --state-dir "$WORK/state5" --formats nanoflake,ulid,uuidv7,uid11-seq
        check "restart with the clock 30 s back: refused" grep -q 'ms behind the high-water mark' "$LOG"
        # The mark stands about 2 s (the claim's reservation) ahead of the
        # last ID; with the clock 4 s back the new server waits for it unless
        # more than 6 s passed since the kill (1 s back was too little at load 30:
        # the refused start above can take that long, and then nothing is waited)
        echo "-4s" >"$WORK/ft.spec"
        if start ft3 --state-dir "$WORK/state5" --formats nanoflake,ulid,uuidv7,uid11-seq \
                --clock-wait-max-ms 10000; then
            pass
            check "restart with the clock 4 s back: waited" grep -q 'waiting [0-9]* ms for the clock' "$LOG"
            for f in $CLOCK_FORMATS; do
                H "127.0.0.1:$HP/v1/new/$f?count=1000" >>"$WORK/clk.$f"
                check "restart with the clock back: $f never repeats, still increasing" \
                    strictly_increasing "$WORK/clk.$f"
            done
            echo "-60s" >"$WORK/ft.spec"
            check "clock 60 s back while running: uuidv7 refuses IDs before the mark (503)" \
                [ "$(code "127.0.0.1:$HP/v1/new/uuidv7?count=10")" = 503 ]
            echo "+0" >"$WORK/ft.spec"
            stop
            check "SIGTERM with libfaketime: exit 0" [ "$STATUS" = 0 ]
        else
            fail "restart with the clock 4 s back: $(tail -1 "$LOG")"
        fi
    else
        fail "start under libfaketime: $(tail -1 "$LOG")"
    fi
    # the clock jumps an hour forward and back: IDs made in the future stay
    # unique; formats that must stay ordered refuse (503) until the clock is
    # past them again; uuidv7 resets after 10 s behind (DESIGN.md) and says
    # so; a restart refuses the mark an hour ahead
    mkdir -p "$WORK/state6"
    echo "+0" >"$WORK/ft.spec"
    if start ft4 --state-dir "$WORK/state6" --formats nanoflake,ulid,uuidv7,uid11-seq; then
        for f in $CLOCK_FORMATS; do H "127.0.0.1:$HP/v1/new/$f?count=1000" >"$WORK/jump.$f"; done
        echo "+1h" >"$WORK/ft.spec"
        for f in $CLOCK_FORMATS; do H "127.0.0.1:$HP/v1/new/$f?count=1000" >>"$WORK/jump.$f"; done
        echo "+0" >"$WORK/ft.spec"
        for f in nanoflake ulid uid11-seq; do
            check "clock 1 h forward and back: $f refuses (503)" \
                [ "$(code "127.0.0.1:$HP/v1/new/$f?count=10")" = 503 ]
            check "clock 1 h forward and back: $f issued in order before that" strictly_increasing "$WORK/jump.$f"
        done
        H "127.0.0.1:$HP/v1/new/uuidv7?count=1000" >>"$WORK/jump.uuidv7"
        check "clock 1 h forward and back: uuidv7 resets and says so" \
            grep -q 'uuidv7: the clock is behind the last ID' "$LOG"
        check "clock 1 h forward and back: 3,000 uuidv7, no duplicate" \
            bash -c '[ "$(sort -u "$0" | wc -l)" = 3000 ]' "$WORK/jump.uuidv7"
        kill -KILL "$PID"
        wait "$PID" 2>/dev/null
        run_expect_fail ft5 --state-dir "$WORK/state6" --formats nanoflake,ulid,uuidv7,uid11-seq
        check "restart after the clock came back an hour: refused (the mark is ahead)" \
            grep -q 'ms behind the high-water mark' "$LOG"
    else
        fail "start under libfaketime (jumps): $(tail -1 "$LOG")"
    fi
    START_ENV=()
fi

}

# ---------------------------------------------------------------- connection limit; second SIGTERM
section_connections() {
mkdir -p "$WORK/state3"
if start limit --state-dir "$WORK/state3" --max-connections 2; then
    exec 5<>"/dev/tcp/127.0.0.1/$HP"
    exec 6<>"/dev/tcp/127.0.0.1/$RP"
    sleep 0.3
    out=$(raw "$HP" 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
    check "beyond --max-connections: a clean 503" grep -q '^HTTP/1.1 503' <<<"$out"
    check "beyond --max-connections (RESP): an error" grep -q '^-ERR max number of clients' <<<"$(raw "$RP" 'PING\r\n')"
    exec 5>&- 6>&-
    sleep 0.3
    check "below the limit again: answered" [ "$(R PING)" = PONG ]
    kill -HUP "$PID"
    sleep 0.3
    check "SIGHUP is logged and ignored" \
        bash -c '[ "$(timeout 5 redis-cli -p "$0" PING)" = PONG ] && grep -q "SIGHUP: ignored" "$1"' "$RP" "$LOG"
    # a held connection with a pending response keeps the drain busy; a
    # second SIGTERM exits at once
    exec 5<>"/dev/tcp/127.0.0.1/$HP"
    for i in $(seq 40); do printf 'GET /v1/new/uuidv7?count=10000 HTTP/1.1\r\nHost: x\r\n\r\n'; done >&5
    sleep 0.3
    kill -TERM "$PID"
    sleep 0.3
    kill -TERM "$PID"
    waitfor "$PID"
    check "a second SIGTERM exits at once (status $STATUS)" [ "$STATUS" = 1 ]
    check "... and says so" grep -q 'second signal' "$LOG"
    exec 5>&-
else
    fail "start with --max-connections 2"
fi
}

run_sections
finish
