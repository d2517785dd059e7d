#!/usr/bin/env bash
# Black-box tests of toid new's node claims.
#   usage: run_claim_tests.sh TOID_BINARY TEST_CLAIM_BINARY [ETCD_BINARY]
# Local claims: 8 runs at once without --node never repeat an ID (nanoflake,
# ulid-flake-scalable, uid11-seq); --node N held is refused naming the
# holder; uid11-seq's node is its 10 low bits; bad option combinations; the
# files' modes; the host's configuration and registry (a test registry named
# by TOID_CLAIM_CONF); the clock set back on a new holder (libfaketime)
# waits for the mark or refuses. etcd claims (a real etcd started here on
# free loopback ports; skipped, saying so, where etcd is not installed): the
# same 8-run races; libcurl loaded by an etcd claim only; a held node; an
# unreachable endpoint.
# Prints "N passed, N failed" last and exits non-zero on any failure.
set -u
export LC_ALL=C

if [ $# -lt 2 ]; then
    echo "usage: $0 TOID_BINARY TEST_CLAIM_BINARY [ETCD_BINARY]" >&2
    exit 2
fi
TOID=$1
TEST_CLAIM=$2
ETCD=${3:-}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do
        kill -CONT "$p" 2>/dev/null
        kill -TERM "$p" 2>/dev/null
    done
    sleep 0.5
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT
# every run of toid claims in this test's own registry, as the host's claim
# configuration says (the file a host would have in /etc/toid/claim.conf)
. "$(dirname "$0")/../test_registry.sh"
REG=$REGISTRY

# pass, fail, check, finish
. "$(dirname "$0")/../check_lib.sh"

# 8 runs of `toid new FORMAT -n COUNT ARGS...` at once; every ID once.
race() {
    local name=$1 format=$2 count=$3
    shift 3
    local i pids=() rcs=0
    for i in 1 2 3 4 5 6 7 8; do
        "$TOID" new "$format" -n "$count" "$@" >"$WORK/$name.$i" 2>"$WORK/$name.err.$i" &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || rcs=$((rcs + 1)); done
    local total dups
    total=$(cat "$WORK/$name".[1-8] | wc -l)
    dups=$(cat "$WORK/$name".[1-8] | sort | uniq -d | wc -l)
    if [ "$rcs" -eq 0 ] && [ "$total" -eq $((8 * count)) ] && [ "$dups" -eq 0 ]; then
        pass
    else
        fail "$name: 8 runs of $format: $rcs failed, $total IDs, $dups repeated: $(cat "$WORK/$name".err.* | head -3)"
    fi
}

# The pid of a toid that holds FORMAT node N and blocks (its output unread).
hold() {
    mkfifo "$WORK/fifo.$1.$2"
    "$TOID" new "$1" --node "$2" -n 100000000 "${@:3}" >"$WORK/fifo.$1.$2" 2>"$WORK/hold.err" &
    HOLDER=$!
    PIDS+=("$HOLDER")
    exec {HOLD_FD}<"$WORK/fifo.$1.$2"   # opened, never read: toid blocks once the pipe is full
    sleep 0.5
}
unhold() {
    kill -KILL "$HOLDER" 2>/dev/null
    wait "$HOLDER" 2>/dev/null
    exec {HOLD_FD}<&-
}

# ------------------------------------------------------------------ local
race local-nanoflake nanoflake 200000
race local-ulid-flake-scalable ulid-flake-scalable 200000
race local-uid11-seq uid11-seq 200000
ls "$REG" >"$WORK/files"
check "local: the claim files are toidd's (FORMAT-NODE.lock/.mark)" \
    grep -qx 'nanoflake-0.mark' "$WORK/files"
check "local: in a group-writable registry the files are 0660, the registry's group's" \
    [ "$(stat -c '%a %g' "$REG/nanoflake-0.mark" "$REG/nanoflake-0.lock" | sort -u)" = "660 $(stat -c %g "$REG")" ]
mkdir -m 0700 "$WORK/private"
(umask 022 && "$TOID" new nanoflake -n 1 --claim "local=$WORK/private" >/dev/null)
check "local: in a private directory the files are 0600" \
    [ "$(stat -c '%a' "$WORK/private/nanoflake-0.mark" "$WORK/private/nanoflake-0.lock" | sort -u)" = 600 ]

# uid11-seq: the node is its 10 low bits
"$TOID" new uid11-seq --node 5 -n 3 --json | grep -o '"random":[0-9]*' | sort -u >"$WORK/u"
check "uid11-seq --node 5: the 10 low bits are 5" [ "$(cat "$WORK/u")" = '"random":5' ]
"$TOID" new uid11-seq -n 3 --json | grep -o '"random":[0-9]*' | sort -u >"$WORK/u"
check "uid11-seq: the lowest free node (0) in the 10 low bits" [ "$(cat "$WORK/u")" = '"random":0' ]

# --node N held by a running toid: refused, naming the holder and the lock
hold nanoflake 7
"$TOID" new nanoflake --node 7 -n 1 >"$WORK/out" 2>"$WORK/err"
rc=$?
check "--node 7 held: exit 1" [ "$rc" -eq 1 ]
check "--node 7 held: nothing printed" [ ! -s "$WORK/out" ]
check "--node 7 held: says who holds it ($(head -1 "$WORK/err"))" \
    grep -q "nanoflake node 7 is in use by another process (pid $HOLDER, lock .*/nanoflake-7.lock is held)" "$WORK/err"
"$TOID" new nanoflake -n 1 --json | grep -q '"generator":0'
check "a free node while 7 is held: the lowest (0)" [ "${PIPESTATUS[0]}" -eq 0 ]
"$TOID" new nanoflake --node 7 -n 1 --no-claim >/dev/null 2>&1
check "--no-claim: node 7 used although held (the documented risk)" [ $? -eq 0 ]
unhold
"$TOID" new nanoflake --node 7 -n 1 >/dev/null 2>"$WORK/err"
check "--node 7 after its holder died: claimed" [ $? -eq 0 ]

# bad combinations: usage errors (exit 2)
for args in "nanoflake --at 2024-06-01T00:00:00Z --claim local" \
    "nanoflake --no-claim --claim local" "ulid --claim local" "uuidv7 --claim-ttl 5" \
    "nanoflake --claim-ttl 0" "ulid --node 3"; do
    # shellcheck disable=SC2086  # args is words
    "$TOID" new $args >/dev/null 2>&1
    check "new $args: usage error" [ $? -eq 2 ]
done
"$TOID" new nanoflake --claim nfs -n 1 >/dev/null 2>"$WORK/err"
check "--claim nfs: exit 1" [ $? -eq 1 ]
check "--claim nfs: said so" grep -q "unknown claim backend 'nfs'" "$WORK/err"
# --at claims nothing: its golden outputs stay as they were, with no claim files
rm -rf "$WORK/atrun" && mkdir -m 0700 "$WORK/atrun"
TOID_CLAIM=local=$WORK/atrun/reg "$TOID" new nanoflake --at 2024-06-01T00:00:00Z -n 2 --node 1023 >"$WORK/out"
check "--at: unclaimed, nothing in the claim directory" [ ! -e "$WORK/atrun/reg" ]

# the host's claim configuration (toid_claim.h): without --claim, TOID_CLAIM
# or the file TOID_CLAIM_CONF names; --claim overrides both; a bad setting
# is an error naming its source, never a fall-back to the default
mkdir -m 0700 "$WORK/hostenv" "$WORK/hostfile" "$WORK/hostcli"
TOID_CLAIM="local=$WORK/hostenv" "$TOID" new nanoflake -n 2 >/dev/null 2>"$WORK/err"
check "TOID_CLAIM: the claim is where it says" [ -e "$WORK/hostenv/nanoflake-0.lock" ]
printf 'claim = local=%s\n' "$WORK/hostfile" >"$WORK/claim.conf"
TOID_CLAIM_CONF=$WORK/claim.conf "$TOID" new nanoflake -n 2 >/dev/null 2>"$WORK/err"
check "TOID_CLAIM_CONF: the file's claim = is used" [ -e "$WORK/hostfile/nanoflake-0.lock" ]
TOID_CLAIM=bogus "$TOID" new nanoflake --claim "local=$WORK/hostcli" -n 2 >/dev/null 2>"$WORK/err"
check "--claim overrides TOID_CLAIM" [ -e "$WORK/hostcli/nanoflake-0.lock" ]
TOID_CLAIM=bogus "$TOID" new nanoflake -n 1 >"$WORK/out" 2>"$WORK/err"
check "a bad TOID_CLAIM: exit 1, nothing printed" [ $? -eq 1 ] && [ ! -s "$WORK/out" ]
check "a bad TOID_CLAIM: names it ($(head -1 "$WORK/err"))" \
    grep -q "toid: the host's claim configuration: TOID_CLAIM: unknown claim backend 'bogus'" "$WORK/err"
printf 'claim = local\nttl = forever\n' >"$WORK/claim.conf"
TOID_CLAIM_CONF=$WORK/claim.conf "$TOID" new nanoflake -n 1 >/dev/null 2>"$WORK/err"
check "a bad line in the file: exit 1, file and line named" \
    grep -q "claim.conf:2: 'forever' is not a TTL" "$WORK/err"
"$TOID" new ulid -n 1 >/dev/null 2>&1 </dev/null && TOID_CLAIM=bogus "$TOID" new ulid -n 1 >/dev/null 2>&1
check "a format without a node claims nothing: TOID_CLAIM not read" [ $? -eq 0 ]

# the host's registry when nothing is configured: "local" (toid_claim.h);
# its refusals (missing, unsafe, another user's) are claim.local_host_registry's
TOID_CLAIM_CONF=/dev/null "$TOID" new nanoflake -n 1 >/dev/null 2>"$WORK/err"
rc=$?
if [ -d /var/lib/toid/claims ]; then
    check "no configuration: the host's registry /var/lib/toid/claims (set up here)" \
        eval '[ $rc -eq 0 ] || grep -q "/var/lib/toid/claims" "$WORK/err"'
else
    check "no configuration, no registry: exit 1 naming /var/lib/toid/claims and the set-up" \
        eval '[ $rc -eq 1 ] && grep -q "the host.s node registry /var/lib/toid/claims does not exist: set it up" "$WORK/err"'
fi

# the clock set back on a new holder (libfaketime): it waits for the mark
# (a short step) or refuses (a long one); never an ID repeated or out of order
FTLIB=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1)
if [ -z "$FTLIB" ]; then
    fail "libfaketime is not installed (package faketime)"
else
    ft() {
        local off=$1
        shift
        LD_PRELOAD=$FTLIB FAKETIME="$off" FAKETIME_DONT_FAKE_MONOTONIC=1 \
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$TOID" "$@"
    }
    # a run that leaves its mark 3 s ahead: killed, not released cleanly
    hold nanoflake 9
    unhold
    "$TOID" new nanoflake --node 9 -n 5000 --as int >"$WORK/ft1"   # (waits for that mark)
    ft "-30s" new nanoflake --node 9 -n 10 --as int >"$WORK/ft2" 2>"$WORK/err"
    rc=$?
    check "clock 30 s back: refused (exit $rc)" [ "$rc" -eq 1 ]
    check "clock 30 s back: no ID" [ ! -s "$WORK/ft2" ]
    check "clock 30 s back: says so" grep -q 'ms behind the high-water mark of nanoflake node 9' "$WORK/err"
    ft "-2s" new nanoflake --node 9 -n 5000 --as int >"$WORK/ft3" 2>"$WORK/err"
    rc=$?
    check "clock 2 s back: waited and made its IDs (exit $rc)" [ "$rc" -eq 0 ]
    check "clock 2 s back: all 5000" [ "$(wc -l <"$WORK/ft3")" -eq 5000 ]
    check "clock 2 s back: every ID after the previous run's" \
        [ "$(head -1 "$WORK/ft3")" -gt "$(tail -1 "$WORK/ft1")" ]
    check "clock back: no ID repeated" [ "$(cat "$WORK/ft1" "$WORK/ft3" | sort | uniq -d | wc -l)" -eq 0 ]
fi

# ------------------------------------------------------------------ etcd
if [ -z "$ETCD" ] || [ ! -x "$ETCD" ]; then
    echo "SKIP: etcd is not installed (Debian: apt-get install etcd-server): the etcd part did not run"
    finish
fi
if ! command -v curl >/dev/null; then
    fail "curl is not installed (see the README's install command)"
    finish
fi
CP=$("$TEST_CLAIM" port)
PP=$("$TEST_CLAIM" port)
"$ETCD" --name m0 --data-dir "$WORK/etcd" --listen-client-urls "http://127.0.0.1:$CP" \
    --advertise-client-urls "http://127.0.0.1:$CP" --listen-peer-urls "http://127.0.0.1:$PP" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PP" \
    --initial-cluster "m0=http://127.0.0.1:$PP" >"$WORK/etcd.log" 2>&1 &
EPID=$!
PIDS+=("$EPID")
for _ in $(seq 300); do
    curl -s "http://127.0.0.1:$CP/health" 2>/dev/null | grep -q '"true"' && break
    sleep 0.1
done
E="etcd=http://127.0.0.1:$CP"
race etcd-nanoflake nanoflake 200000 --claim "$E" --claim-ttl 5
race etcd-ulid-flake-scalable ulid-flake-scalable 200000 --claim "$E" --claim-ttl 5
race etcd-uid11-seq uid11-seq 200000 --claim "$E" --claim-ttl 5
# libcurl (and its ~30 libraries) is loaded by the first etcd claim only
LD_DEBUG=libs "$TOID" new nanoflake -n 1 2>"$WORK/ld.local" >/dev/null
check "a local claim does not load libcurl" eval '! grep -q "calling init: .*libcurl" "$WORK/ld.local"'
LD_DEBUG=libs "$TOID" new nanoflake -n 1 --claim "$E" 2>"$WORK/ld.etcd" >/dev/null
check "an etcd claim loads libcurl" grep -q "calling init: .*libcurl" "$WORK/ld.etcd"
hold nanoflake 3 --claim "$E" --claim-ttl 2 --claim-prefix /cli
"$TOID" new nanoflake --node 3 -n 1 --claim "$E" --claim-prefix /cli >"$WORK/out" 2>"$WORK/err"
check "etcd: --node 3 held: exit 1" [ $? -eq 1 ]
check "etcd: --node 3 held: no ID" [ ! -s "$WORK/out" ]
check "etcd: --node 3 held: names the holder ($(head -1 "$WORK/err"))" \
    grep -q "nanoflake node 3 is held by another generator (host .*, pid $HOLDER; etcd key /cli/nanoflake/nodes/0003)" "$WORK/err"
unhold
"$TOID" new nanoflake -n 1 --claim "etcd=http://127.0.0.1:$PP/nothing" >"$WORK/out" 2>"$WORK/err"
check "etcd: not an etcd endpoint: exit 1" [ $? -eq 1 ]
check "etcd: not an etcd endpoint: no ID" [ ! -s "$WORK/out" ]
check "etcd: not an etcd endpoint: names it" grep -q "http://127.0.0.1:$PP/nothing" "$WORK/err"
kill -TERM "$EPID"
wait "$EPID" 2>/dev/null
"$TOID" new nanoflake -n 1 --claim "$E" >"$WORK/out" 2>"$WORK/err"
check "etcd: unreachable: exit 1" [ $? -eq 1 ]
check "etcd: unreachable: no ID" [ ! -s "$WORK/out" ]
check "etcd: unreachable: names the endpoint" grep -q "http://127.0.0.1:$CP" "$WORK/err"
finish
