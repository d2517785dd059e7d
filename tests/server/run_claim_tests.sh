#!/usr/bin/env bash
# Black-box tests of toidd's node claims (one node, one holder).
#   usage: run_claim_tests.sh TOIDD TOID [ETCD]
# Local part (always): the options; toidd instances on different state
# directories sharing one --claim local=DIR take different nodes; a full
# range serves the other formats and reports "no free node" (HTTP 503 with
# Retry-After, RESP TRYAGAIN, /healthz 503 naming the format, metrics) and
# takes the node when its holder stops; a held fixed node is refused.
# etcd part (real etcd started here on random loopback ports, temp data dirs,
# ended by PID with a SIGKILL fallback; skipped, saying so, only where etcd
# is not installed or toidd was built without the etcd backend):
#   8 toidd race for nanoflake:0-3; kill -9 of a holder; SIGSTOP of a holder
#   past its TTL (fencing); the clock set back on a new holder (libfaketime);
#   bad endpoints; a 3-member cluster: the leader killed under load, then
#   every member stopped. IDs are fetched from every instance throughout and
#   checked for duplicates over everything fetched.
# Every wait is bounded; no timing is asserted beyond generous bounds.
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -u
export LC_ALL=C

if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
    echo "usage: $0 TOIDD TOID [ETCD]" >&2
    exit 2
fi
TOIDD=$1
TOID=$2
ETCD=${3:-$(command -v etcd || true)}
WORK=$(mktemp -d)
. "$(dirname "$0")/../test_registry.sh"   # $REGISTRY: where the node formats claim
PIDS=()          # every process started here (toidd, etcd, fetchers)
TTL=2            # etcd lease TTL of the race tests, seconds

cleanup() {
    local p
    for p in "${PIDS[@]}"; do
        kill -CONT "$p" 2>/dev/null
        kill -TERM "$p" 2>/dev/null
    done
    sleep 0.3
    for p in "${PIDS[@]}"; do
        kill -KILL "$p" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# pass/fail/check/finish, need_tools (its start/stop are replaced below)
. "$(dirname "$0")/test_lib.sh"
need_tools curl redis-cli timeout python3

# ---------------------------------------------------------------- helpers
# start I ARGS...: toidd instance I in the background (HTTP and RESP on free
# ports); sets HP[I], RP[I], PID[I], LOG[I]. Returns 1 if it did not start
# within 15 s.
declare -A HP RP PID LOG
start() {
    local i=$1
    shift
    LOG[$i]=$WORK/toidd.$i.log
    : >"${LOG[$i]}"
    env "${START_ENV[@]}" "$TOIDD" --http 127.0.0.1:0 --resp 127.0.0.1:0 --threads 1 "$@" \
        2>>"${LOG[$i]}" &
    PID[$i]=$!
    PIDS+=("${PID[$i]}")
    local k
    for k in $(seq 150); do
        if grep -q ' started: ' "${LOG[$i]}"; then
            HP[$i]=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "${LOG[$i]}" | head -1)
            RP[$i]=$(sed -n 's/.*listening: resp 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "${LOG[$i]}" | head -1)
            return 0
        fi
        kill -0 "${PID[$i]}" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
START_ENV=()

# run_fail NAME ARGS...: toidd must exit non-zero within 15 s; FLOG, STATUS.
run_fail() {
    FLOG=$WORK/$1.log
    shift
    env "${START_ENV[@]}" timeout 15 "$TOIDD" --http 127.0.0.1:0 --resp off --threads 1 "$@" >/dev/null 2>"$FLOG"
    STATUS=$?
    [ "$STATUS" -ne 0 ] && [ "$STATUS" -ne 124 ]
}

# stop_pid PID: SIGTERM, at most 10 s, then SIGKILL.
stop_pid() {
    kill -CONT "$1" 2>/dev/null
    kill -TERM "$1" 2>/dev/null
    local k
    for k in $(seq 100); do
        kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

code() { curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$@"; }
# node_of I: the nanoflake node instance I holds ("null" if none)
node_of() {
    curl -s --max-time 5 "127.0.0.1:${HP[$1]}/v1/formats" |
        sed -n 's/.*"name":"nanoflake"[^}]*"node":\([0-9a-z]*\).*/\1/p'
}
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# fetcher I: fetches nanoflake batches from instance I for ever, appending
# the IDs it received to $WORK/ids.I (a refused request adds nothing).
fetch_loop() {
    local hp=$1 out=$2
    while :; do
        curl -sf --max-time 5 "127.0.0.1:$hp/v1/new/nanoflake?count=100" >>"$out" 2>/dev/null || sleep 0.1
        sleep 0.02
    done
}
declare -A FETCHER
fetcher() {
    fetch_loop "${HP[$1]}" "$WORK/ids.$1" &
    FETCHER[$1]=$!
    PIDS+=("$!")
}
stop_fetchers() {
    local p
    for p in "${FETCHER[@]}"; do
        kill -TERM "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    FETCHER=()
}
# dups FILES...: how many IDs (whole 13-character lines) repeat
dups() { cat "$@" 2>/dev/null | awk 'length($0) == 13' | sort | uniq -d | wc -l; }
count_ids() { cat "$@" 2>/dev/null | awk 'length($0) == 13' | wc -l; }

# ---------------------------------------------------------------- options
check "--help lists --claim and --nodes" bash -c '"$0" --help | grep -q -- "--claim local" && "$0" --help | grep -q -- "--nodes FORMAT:LO-HI"' "$TOIDD"
run_fail badnodes --no-state --nodes nanoflake:5-2
check "--nodes with LO > HI is refused (exit 2)" [ "$STATUS" -eq 2 ]
run_fail badnodes2 --no-state --nodes nanoflake:0-1024
check "--nodes past the format's range is refused" grep -q 'bad range' "$FLOG"
run_fail badnodes3 --no-state --nodes ulid:0-3
check "--nodes for a format without nodes is refused" grep -q 'expected FORMAT:LO-HI' "$FLOG"
run_fail both --no-state --nodes nanoflake:0-3 --gen nanoflake:node=2
check "--gen node=N and --nodes together are refused" grep -q 'exclude each other' "$FLOG"
run_fail ttl --no-state --claim-ttl 3
check "--claim-ttl without etcd is refused" grep -q 'are for a backend with leases (--claim etcd=URL)' "$FLOG"
run_fail badclaim --no-state --claim zookeeper=x
check "an unknown --claim backend is refused" grep -q 'expected local, local=DIR or etcd' "$FLOG"
printf 'no-state\nclaim local=%s\nnodes nanoflake:3-4\nformats nanoflake\n' "$WORK/cfgclaims" >"$WORK/c.conf"
mkdir -p "$WORK/cfgclaims"
if start cfg --config "$WORK/c.conf"; then
    check "--config: claim and nodes are read (node 3)" [ "$(node_of cfg)" = 3 ]
    check "--config: the lock file is in the claims directory" [ -e "$WORK/cfgclaims/nanoflake-3.lock" ]
    stop_pid "${PID[cfg]}"
else
    fail "start with --config: $(tail -2 "${LOG[cfg]}")"
fi

# ---------------------------------------------------------------- local claims
# Three instances on different state directories, one claims directory.
CL=$WORK/claims
mkdir -p "$CL" "$WORK/sa" "$WORK/sb" "$WORK/sc" "$WORK/sd"
LARGS=(--claim "local=$CL" --nodes nanoflake:0-1 --formats nanoflake,ulid)
if start la --state-dir "$WORK/sa" "${LARGS[@]}" && start lb --state-dir "$WORK/sb" "${LARGS[@]}" &&
    start lc --state-dir "$WORK/sc" "${LARGS[@]}"; then
    check "local: the first instance holds node 0" [ "$(node_of la)" = 0 ]
    check "local: the second (another state dir) holds node 1" [ "$(node_of lb)" = 1 ]
    check "local: the third holds none" [ "$(node_of lc)" = null ]
    check "local: the third says 'no free node' in its log" grep -q 'nanoflake: no free node in 0-1' "${LOG[lc]}"
    body=$(curl -s --max-time 5 "127.0.0.1:${HP[lc]}/healthz")
    check "local: /healthz of the third is 503" [ "$(code "127.0.0.1:${HP[lc]}/healthz")" = 503 ]
    check "local: /healthz names the unserved format ($body)" grep -q 'unserved: nanoflake (no free node in 0-1)' <<<"$body"
    check "local: /healthz of a holder is ok" [ "$(curl -s --max-time 5 "127.0.0.1:${HP[la]}/healthz")" = ok ]
    hdr=$(curl -s --max-time 5 -D - -o /dev/null "127.0.0.1:${HP[lc]}/v1/new/nanoflake")
    check "local: nanoflake without a node is HTTP 503" grep -q '^HTTP/1.1 503' <<<"$hdr"
    check "local: ... with Retry-After" grep -qi '^Retry-After: 1' <<<"$hdr"
    r=$(timeout 5 redis-cli -p "${RP[lc]}" ID.NEW nanoflake 2>&1)
    check "local: RESP answers TRYAGAIN ($r)" grep -q '^TRYAGAIN no free node' <<<"$r"
    check "local: the other formats are served (ulid 200)" [ "$(code "127.0.0.1:${HP[lc]}/v1/new/ulid")" = 200 ]
    m=$(curl -s --max-time 5 "127.0.0.1:${HP[lc]}/metrics")
    check "local: metric claim state no_free_node" grep -q '^toidd_claim_state{format="nanoflake",state="no_free_node"} 1$' <<<"$m"
    check "local: metric node -1" grep -q '^toidd_claim_node{format="nanoflake"} -1$' <<<"$m"
    check "local: metric claim failures counted" grep -q '^toidd_claim_failures_total{format="nanoflake"} [1-9]' <<<"$m"
    m=$(curl -s --max-time 5 "127.0.0.1:${HP[lb]}/metrics")
    check "local: a holder's metrics (held, node 1, deadline +Inf)" \
        bash -c 'grep -q "^toidd_claim_state{format=\"nanoflake\",state=\"held\"} 1$" <<<"$0" &&
                 grep -q "^toidd_claim_node{format=\"nanoflake\"} 1$" <<<"$0" &&
                 grep -q "^toidd_claim_deadline_seconds{format=\"nanoflake\"} +Inf$" <<<"$0"' "$m"
    for i in la lb lc; do fetcher $i; done
    sleep 1
    stop_pid "${PID[la]}"
    check "local: when the holder of node 0 stops, the third takes it" \
        wait_until 15 bash -c '[ "$(curl -s --max-time 2 127.0.0.1:$0/v1/formats | grep -o "\"name\":\"nanoflake\"[^}]*" | grep -o "\"node\":[0-9a-z]*")" = "\"node\":0" ]' "${HP[lc]}"
    check "local: ... logs it" grep -q 'nanoflake: node 0 claimed (local); serving nanoflake again' "${LOG[lc]}"
    check "local: ... and is ready" wait_until 5 bash -c '[ "$(curl -s --max-time 2 127.0.0.1:$0/healthz)" = ok ]' "${HP[lc]}"
    sleep 1
    stop_fetchers
    n=$(count_ids "$WORK"/ids.l?)
    d=$(dups "$WORK"/ids.l?)
    check "local: IDs fetched from every instance ($n)" [ "$n" -gt 1000 ]
    check "local: no ID repeated across instances ($d)" [ "$d" -eq 0 ]
    # the stopped instance's state directory keeps only ulid; node claims are in the claims dir
    check "local: node locks live in the claims directory" [ -e "$CL/nanoflake-0.lock" ] && [ ! -e "$WORK/sa/nanoflake-0.lock" ]
    check "local: other formats keep their marks in the state directory" [ -e "$WORK/sa/ulid-0.mark" ]
    # a fixed node held by another instance is refused
    run_fail fixed --state-dir "$WORK/sd" --claim "local=$CL" --formats nanoflake --gen nanoflake:node=1
    check "local: a held --gen node=N is refused" grep -q 'nanoflake node 1 is in use by another generator' "$FLOG"
    stop_pid "${PID[lb]}"
    stop_pid "${PID[lc]}"
else
    fail "local: the instances did not start: $(tail -2 "$WORK"/toidd.l?.log)"
fi
# Without --claim, node claims are in the host's registry (here the test's,
# $REGISTRY, as its claim configuration names it), not in the state
# directory, which keeps the other formats' marks: a second instance takes
# the next node (and a non-node format held in the state directory is refused).
if start s1 --state-dir "$WORK/sd" --formats nanoflake,ulid && start s2 --state-dir "$WORK/sd" --formats nanoflake; then
    check "state dir: two instances take nodes 0 and 1" \
        [ "$(node_of s1),$(node_of s2)" = "0,1" ]
    check "state dir: the node locks are in the host's registry, ulid's in the state directory" \
        eval '[ -e "$REGISTRY/nanoflake-1.lock" ] && [ ! -e "$WORK/sd/nanoflake-0.lock" ] && [ -e "$WORK/sd/ulid-0.lock" ]'
    mkdir -p "$WORK/sd4"
    start s4 --state-dir "$WORK/sd4" --formats nanoflake &&
        check "state dir: an instance on another state directory takes node 2 (same host registry)" \
            [ "$(node_of s4)" = 2 ] && stop_pid "${PID[s4]}"
    run_fail s3 --state-dir "$WORK/sd" --formats ulid
    check "state dir: a third is refused for ulid (its only node is held)" grep -q 'ulid node 0 is in use' "$FLOG"
    stop_pid "${PID[s1]}"
    stop_pid "${PID[s2]}"
else
    fail "state dir: instances did not start"
fi

# A server of no node format opens no registry (needs none set up); one of
# a node format whose registry cannot be opened does not start, naming it.
START_ENV=(TOID_CLAIM="local=$WORK/no/such/registry")
mkdir -p "$WORK/sn"
if start n1 --state-dir "$WORK/sn" --formats ulid,uuidv7; then
    pass
    stop_pid "${PID[n1]}"
else
    fail "no node format: toidd did not start without a registry: $(tail -2 "${LOG[n1]}")"
fi
run_fail n2 --state-dir "$WORK/sn" --formats nanoflake
check "a node format without its registry: refused, naming it" grep -q "claim directory $WORK/no/such/registry: No such file or directory" "$FLOG"
START_ENV=()

# ---------------------------------------------------------------- the host's claim configuration
# One setting for every front end of a host (TOID_CLAIM, or the file
# TOID_CLAIM_CONF / /etc/toid/claim.conf): toidd and `toid new`, each on
# default settings otherwise, take different nodes and repeat no ID (issue
# 26: each took node 0 in a directory of its own, 1,000 duplicates in
# 600,000). --claim still overrides it; a bad setting names its source.
HC=$WORK/hostclaims
mkdir -p "$HC" "$WORK/sh"
START_ENV=(TOID_CLAIM="local=$HC" TOID_CLAIM_CONF=/nonexistent)
if start h1 --state-dir "$WORK/sh" --formats nanoflake; then
    check "host config: toidd claims node 0 where TOID_CLAIM says" \
        bash -c '[ "$0" = 0 ] && [ -e "$1/nanoflake-0.lock" ] && [ ! -e "$2/nanoflake-0.lock" ]' "$(node_of h1)" "$HC" "$WORK/sh"
    fetcher h1
    TOID_CLAIM="local=$HC" TOID_CLAIM_CONF=/nonexistent timeout 60 "$TOID" new nanoflake -n 300000 \
        >"$WORK/ids.cli" 2>"$WORK/cli.err"
    rc=$?
    check "host config: toid new beside it succeeds ($(head -c 300 "$WORK/cli.err"))" [ "$rc" -eq 0 ]
    sleep 0.5
    stop_fetchers
    n=$(count_ids "$WORK/ids.h1" "$WORK/ids.cli")
    d=$(dups "$WORK/ids.h1" "$WORK/ids.cli")
    check "host config: IDs from toidd and toid new ($n)" [ "$n" -gt 300000 ]
    check "host config: none repeated ($d)" [ "$d" -eq 0 ]
    check "host config: toid new took another node (node 1's mark is there)" [ -e "$HC/nanoflake-1.mark" ]
    stop_pid "${PID[h1]}"
else
    fail "host config: toidd did not start: $(tail -2 "${LOG[h1]}")"
fi
START_ENV=()
printf '# this host\nclaim = local=%s\n' "$HC" >"$WORK/claim.conf"
START_ENV=(TOID_CLAIM_CONF="$WORK/claim.conf")
if start h2 --state-dir "$WORK/sh" --formats nanoflake; then
    check "host config: the file's claim = is read" [ -e "$HC/nanoflake-0.lock" ] && [ "$(node_of h2)" = 0 ]
    stop_pid "${PID[h2]}"
else
    fail "host config: toidd with the file did not start: $(tail -2 "${LOG[h2]}")"
fi
START_ENV=(TOID_CLAIM=bogus)
run_fail hostbad --state-dir "$WORK/sh" --formats nanoflake
START_ENV=()
FLOG_TEXT=$(cat "$FLOG")
check "host config: a bad TOID_CLAIM is refused, naming it ($FLOG_TEXT)" grep -q "the host's claim configuration: TOID_CLAIM: unknown claim backend 'bogus'" "$FLOG"
OV=$WORK/override
mkdir -p "$OV"
START_ENV=(TOID_CLAIM=bogus)
if start h3 --state-dir "$WORK/sh" --formats nanoflake --claim "local=$OV"; then
    check "host config: --claim overrides it" [ -e "$OV/nanoflake-0.lock" ]
    stop_pid "${PID[h3]}"
else
    fail "host config: --claim did not override TOID_CLAIM: $(tail -2 "${LOG[h3]}")"
fi
START_ENV=()

# ---------------------------------------------------------------- etcd
if [ -z "$ETCD" ] || [ ! -x "$ETCD" ]; then
    echo "SKIP: etcd part: etcd is not installed (Debian: apt-get install etcd-server)"
    finish
fi

declare -a ECP EPP EPID
# etcd_start K CLUSTER: member K (ports ECP[K], EPP[K] chosen before) of CLUSTER
etcd_start() {
    local k=$1
    mkdir -p "$WORK/etcd$k"
    "$ETCD" --name "m$k" --data-dir "$WORK/etcd$k" \
        --listen-client-urls "http://127.0.0.1:${ECP[$k]}" --advertise-client-urls "http://127.0.0.1:${ECP[$k]}" \
        --listen-peer-urls "http://127.0.0.1:${EPP[$k]}" --initial-advertise-peer-urls "http://127.0.0.1:${EPP[$k]}" \
        --initial-cluster "$2" --initial-cluster-state new --initial-cluster-token "toid-$$" \
        >"$WORK/etcd$k.log" 2>&1 &
    EPID[$k]=$!
    PIDS+=("$!")
}
etcd_healthy() { curl -s --max-time 2 "http://127.0.0.1:${ECP[$1]}/health" | grep -q '"health":"true"'; }

# A single member for the race.
ECP[0]=$(free_port); EPP[0]=$(free_port)
etcd_start 0 "m0=http://127.0.0.1:${EPP[0]}"
if ! wait_until 20 etcd_healthy 0; then
    fail "etcd did not start: $(tail -3 "$WORK/etcd0.log")"
    finish
fi
EP="http://127.0.0.1:${ECP[0]}"
if run_fail probe --no-state --formats nanoflake --claim "etcd=$EP" &&
    grep -q 'etcd claim backend is not' "$FLOG"; then
    echo "SKIP: etcd part: this toidd has no etcd backend ($(grep -o 'the etcd claim backend is not[^(]*' "$FLOG" | head -1))"
    finish
fi

# -- bad input: a clear error naming the endpoint, no crash, no ID without a claim
DEAD=$(free_port)
if start bad1 --no-state --formats nanoflake,ulid --claim "etcd=http://127.0.0.1:$DEAD" --claim-ttl 2; then
    check "unreachable etcd: nanoflake not served" [ "$(code "127.0.0.1:${HP[bad1]}/v1/new/nanoflake")" = 503 ]
    check "unreachable etcd: ulid served" [ "$(code "127.0.0.1:${HP[bad1]}/v1/new/ulid")" = 200 ]
    check "unreachable etcd: the log names the endpoint" grep -q "127.0.0.1:$DEAD" "${LOG[bad1]}"
    check "unreachable etcd: /healthz 503" [ "$(code "127.0.0.1:${HP[bad1]}/healthz")" = 503 ]
    stop_pid "${PID[bad1]}"
else
    check "unreachable etcd: refused with the endpoint named" grep -q "127.0.0.1:$DEAD" "${LOG[bad1]}"
fi
run_fail badurl --no-state --formats nanoflake --claim "etcd=ftp//nowhere"
check "a malformed etcd URL is refused, naming it" grep -q 'ftp//nowhere' "$FLOG"
# a server that answers garbage to everything
GP=$(free_port)
python3 - "$GP" <<'EOF' &
import socket, sys, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
def serve(c):
    try:
        c.recv(65536)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"header\": [1,2,")
    except OSError:
        pass
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
PIDS+=("$!")
sleep 0.5
if start bad2 --no-state --formats nanoflake,ulid --claim "etcd=http://127.0.0.1:$GP" --claim-ttl 2; then
    sleep 1
    check "garbage answers: nanoflake not served" [ "$(code "127.0.0.1:${HP[bad2]}/v1/new/nanoflake")" = 503 ]
    check "garbage answers: still alive, ulid served" [ "$(code "127.0.0.1:${HP[bad2]}/v1/new/ulid")" = 200 ]
    check "garbage answers: the log names the endpoint" grep -q "127.0.0.1:$GP" "${LOG[bad2]}"
    stop_pid "${PID[bad2]}"
else
    check "garbage answers: refused with the endpoint named" grep -q "127.0.0.1:$GP" "${LOG[bad2]}"
fi
# a key holding foreign data: node 0 of prefix /foreign is taken by someone else's value
k64=$(printf '/foreign/nanoflake/nodes/0000' | base64 -w0)
v64=$(printf 'not a toid claim' | base64 -w0)
curl -s --max-time 5 -X POST "$EP/v3/kv/put" -d "{\"key\":\"$k64\",\"value\":\"$v64\"}" >/dev/null
# (the claim library refuses to guess whether such a node is free: the range
# stays unserved until an operator removes the key)
if start bad3 --no-state --formats nanoflake,ulid --claim "etcd=$EP" --claim-prefix /foreign --claim-ttl 2 --nodes nanoflake:0-1; then
    check "foreign key on node 0: nanoflake not served" [ "$(code "127.0.0.1:${HP[bad3]}/v1/new/nanoflake")" = 503 ]
    check "foreign key on node 0: ulid served" [ "$(code "127.0.0.1:${HP[bad3]}/v1/new/ulid")" = 200 ]
    check "foreign key on node 0: the log names the key and the endpoint" \
        grep -q "$EP.*/foreign/nanoflake/nodes/0000" "${LOG[bad3]}"
    check "foreign key on node 0: /healthz names the format" \
        bash -c 'curl -s --max-time 5 127.0.0.1:$0/healthz | grep -q "unserved: nanoflake"' "${HP[bad3]}"
    stop_pid "${PID[bad3]}"
else
    fail "foreign key: the instance did not start: $(tail -2 "${LOG[bad3]}")"
fi
check "foreign key: its value is untouched" bash -c 'curl -s -X POST "$0/v3/kv/range" -d "{\"key\":\"$1\"}" | grep -q "\"value\":\"$2\""' "$EP" "$k64" "$v64"

# -- 8 instances race for nanoflake:0-3
EARGS=(--formats nanoflake,ulid --claim "etcd=$EP" --claim-ttl "$TTL" --nodes nanoflake:0-3)
started=0
for i in 1 2 3 4 5 6 7 8; do
    mkdir -p "$WORK/e$i"
    start "$i" --state-dir "$WORK/e$i" "${EARGS[@]}" &
done
wait_started() {
    local i
    for i in 1 2 3 4 5 6 7 8; do grep -q ' started: ' "$WORK/toidd.$i.log" 2>/dev/null || return 1; done
}
# (start ran in subshells: read the ports and pids from the logs)
wait_until 30 wait_started
for i in 1 2 3 4 5 6 7 8; do
    LOG[$i]=$WORK/toidd.$i.log
    HP[$i]=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "${LOG[$i]}" | head -1)
    RP[$i]=$(sed -n 's/.*listening: resp 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "${LOG[$i]}" | head -1)
    PID[$i]=$(sed -n 's/.* started: .*pid \([0-9]*\).*/\1/p' "${LOG[$i]}" | head -1)
    [ -n "${PID[$i]}" ] && { PIDS+=("${PID[$i]}"); started=$((started + 1)); }
done
check "race: 8 instances started ($started)" [ "$started" -eq 8 ]
holders() {   # prints "I:NODE" for every instance that serves nanoflake
    local i n
    for i in "$@"; do
        n=$(node_of "$i")
        [ -n "$n" ] && [ "$n" != null ] && echo "$i:$n"
    done
}
H0=$(holders 1 2 3 4 5 6 7 8)
check "race: exactly 4 serve nanoflake ($(echo $H0))" [ "$(wc -l <<<"$H0")" -eq 4 ]
check "race: on 4 different nodes 0-3" [ "$(cut -d: -f2 <<<"$H0" | sort -u | tr '\n' ' ')" = "0 1 2 3 " ]
nonode=0
for i in 1 2 3 4 5 6 7 8; do
    if ! grep -q "^$i:" <<<"$H0"; then
        curl -s --max-time 5 "127.0.0.1:${HP[$i]}/healthz" | grep -q 'no free node' &&
            grep -q 'no free node' "${LOG[$i]}" &&
            [ "$(code "127.0.0.1:${HP[$i]}/v1/new/ulid")" = 200 ] && nonode=$((nonode + 1))
    fi
done
check "race: the other 4 serve ulid and report 'no free node' (log, /healthz): $nonode" [ "$nonode" -eq 4 ]
for i in 1 2 3 4 5 6 7 8; do fetcher "$i"; done
sleep 2

# -- kill -9 a holder: another takes its node after the TTL, past the mark
victim=$(head -1 <<<"$H0" | cut -d: -f1)
vnode=$(head -1 <<<"$H0" | cut -d: -f2)
kill -KILL "${PID[$victim]}"
kill -TERM "${FETCHER[$victim]}" 2>/dev/null
ALIVE=$(for i in 1 2 3 4 5 6 7 8; do [ "$i" != "$victim" ] && echo "$i"; done)
taken() { holders $ALIVE | grep -q ":$vnode\$"; }
check "kill -9: another instance takes node $vnode (bounded 30 s)" wait_until 30 taken
newh=$(holders $ALIVE | grep ":$vnode\$" | cut -d: -f1)
check "kill -9: the new holder logs the claim" grep -q "nanoflake: node $vnode claimed (etcd)" "${LOG[$newh]}"
sleep 2
d=$(dups "$WORK"/ids.[1-8])
check "kill -9: no ID repeated ($(count_ids "$WORK"/ids.[1-8]) fetched, $d repeated)" [ "$d" -eq 0 ]

# -- SIGSTOP a holder past its TTL; another takes its node; SIGCONT: fencing
H1=$(holders $ALIVE)
sv=$(head -1 <<<"$H1" | cut -d: -f1)
snode=$(head -1 <<<"$H1" | cut -d: -f2)
kill -STOP "${PID[$sv]}"
ALIVE2=$(for i in $ALIVE; do [ "$i" != "$sv" ] && echo "$i"; done)
taken2() { holders $ALIVE2 | grep -q ":$snode\$"; }
check "SIGSTOP: another instance takes node $snode" wait_until 30 taken2
kill -CONT "${PID[$sv]}"
: >"$WORK/fence.ids"
n503=0
for k in $(seq 30); do
    c=$(curl -s --max-time 5 -o "$WORK/fence.one" -w '%{http_code}' "127.0.0.1:${HP[$sv]}/v1/new/nanoflake?count=10")
    if [ "$c" = 200 ]; then cat "$WORK/fence.one" >>"$WORK/fence.ids"; else n503=$((n503 + 1)); fi
done
bad=0
if [ -s "$WORK/fence.ids" ]; then
    bad=$("$TOID" inspect --json <"$WORK/fence.ids" | grep -c "\"generator\":$snode[,}]")
fi
check "fencing: after SIGCONT the old holder issued no ID of node $snode ($bad; $n503 refused)" [ "$bad" -eq 0 ]
check "fencing: it refused nanoflake (it has no node now)" [ "$n503" -gt 0 ]
check "fencing: it logged the loss" wait_until 10 grep -q "nanoflake: the claim on node $snode is lost" "${LOG[$sv]}"
m=$(curl -s --max-time 5 "127.0.0.1:${HP[$sv]}/metrics")
check "fencing: toidd_claim_lost_total counts it" grep -q '^toidd_claim_lost_total{format="nanoflake"} [1-9]' <<<"$m"

# -- the clock set back on a new holder (libfaketime)
FTLIB=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1)
if [ -z "$FTLIB" ]; then
    fail "libfaketime is not installed (package faketime)"
else
    # the fake-clock instances take turns on node 9, in a prefix of their
    # own: outside the race's 0-3 (the race's holders still issue: one node
    # in two namespaces would repeat their IDs, which the last check counts)
    mkdir -p "$WORK/f1" "$WORK/f2" "$WORK/f3"
    FARGS=(--formats nanoflake,ulid --claim "etcd=$EP" --claim-ttl "$TTL" --claim-prefix /fake --nodes nanoflake:9-9)
    if start f1 --state-dir "$WORK/f1" "${FARGS[@]}" --reserve-ms 3000; then
        curl -s --max-time 5 "127.0.0.1:${HP[f1]}/v1/new/nanoflake?count=100" >"$WORK/ids.f1"
        kill -KILL "${PID[f1]}"
        sleep $((TTL + 1))
        # 30 s behind: past --clock-wait-max-ms: it must not issue nanoflake
        START_ENV=(LD_PRELOAD="$FTLIB" FAKETIME="-30" FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_NO_CACHE=1)
        if start f2 --state-dir "$WORK/f2" "${FARGS[@]}"; then
            sleep 1
            check "clock 30 s back: nanoflake refused" [ "$(code "127.0.0.1:${HP[f2]}/v1/new/nanoflake")" = 503 ]
            check "clock 30 s back: the log says it is behind the mark" grep -q 'behind' "${LOG[f2]}"
            stop_pid "${PID[f2]}"
        else
            check "clock 30 s back: refused, saying it is behind" grep -q 'behind' "${LOG[f2]}"
        fi
        sleep $((TTL + 1))
        # 1 s behind (within the reservation of f1's mark): it waits past the mark, then serves
        START_ENV=(LD_PRELOAD="$FTLIB" FAKETIME="-1" FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_NO_CACHE=1)
        if start f3 --state-dir "$WORK/f3" "${FARGS[@]}" --clock-wait-max-ms 10000 &&
            wait_until 20 bash -c '[ "$(curl -s -o /dev/null -w "%{http_code}" 127.0.0.1:$0/v1/new/nanoflake)" = 200 ]' "${HP[f3]}"; then
            curl -s --max-time 5 "127.0.0.1:${HP[f3]}/v1/new/nanoflake?count=100" >"$WORK/ids.f3"
            last=$(sort "$WORK/ids.f1" | tail -1)
            first=$(sort "$WORK/ids.f3" | head -1)
            check "clock 1 s back: the new holder's IDs come after the old holder's ($last < $first)" [ "$last" \< "$first" ]
        else
            fail "clock 1 s back: the new holder did not serve nanoflake: $(tail -2 "${LOG[f3]}")"
        fi
        START_ENV=()
        stop_pid "${PID[f3]}"
    else
        fail "fake clock: first holder did not start"
    fi
fi
stop_fetchers
d=$(dups "$WORK"/ids.[1-8] "$WORK"/ids.f[13])
check "race: no ID repeated over everything fetched ($(count_ids "$WORK"/ids.*) IDs, $d repeated)" [ "$d" -eq 0 ]
for i in 1 2 3 4 5 6 7 8; do kill -CONT "${PID[$i]}" 2>/dev/null; kill -KILL "${PID[$i]}" 2>/dev/null; done
kill -KILL "${EPID[0]}"

# ---------------------------------------------------------------- a 3-member cluster
CLUSTER=""
for k in 1 2 3; do
    ECP[$k]=$(free_port); EPP[$k]=$(free_port)
    CLUSTER="$CLUSTER${CLUSTER:+,}m$k=http://127.0.0.1:${EPP[$k]}"
done
for k in 1 2 3; do etcd_start "$k" "$CLUSTER"; done
all_healthy() { etcd_healthy 1 && etcd_healthy 2 && etcd_healthy 3; }
if ! wait_until 30 all_healthy; then
    fail "the 3-member etcd cluster did not start: $(tail -2 "$WORK/etcd1.log")"
    finish
fi
EPS="http://127.0.0.1:${ECP[1]},http://127.0.0.1:${ECP[2]},http://127.0.0.1:${ECP[3]}"
# 8 s: an election on a loaded machine (ctest -j2 beside builds) can take
# several seconds, and a 5 s lease then lapsed before the renewal got through
CTTL=8
CARGS=(--formats nanoflake,ulid --claim "etcd=$EPS" --claim-ttl "$CTTL" --nodes nanoflake:0-1)
mkdir -p "$WORK/c1" "$WORK/c2"
if start c1 --state-dir "$WORK/c1" "${CARGS[@]}" && start c2 --state-dir "$WORK/c2" "${CARGS[@]}"; then
    n1=$(node_of c1); n2=$(node_of c2)
    check "cluster: two holders ($n1, $n2)" [ "$(printf '%s\n' "$n1" "$n2" | sort | tr '\n' ,)" = "0,1," ]
    fetcher c1; fetcher c2
    sleep 1
    leader=""
    for k in 1 2 3; do
        st=$(curl -s --max-time 3 -X POST "http://127.0.0.1:${ECP[$k]}/v3/maintenance/status" -d '{}')
        me=$(sed -n 's/.*"member_id":"\([0-9]*\)".*/\1/p' <<<"$st")
        ld=$(sed -n 's/.*"leader":"\([0-9]*\)".*/\1/p' <<<"$st")
        [ -n "$me" ] && [ "$me" = "$ld" ] && leader=$k
    done
    check "cluster: the leader is known ($leader)" [ -n "$leader" ]
    [ -n "$leader" ] && kill -KILL "${EPID[$leader]}"
    # past one TTL: the claims must have been renewed through the other members
    sleep $((CTTL + 4))
    m1=$(curl -s --max-time 5 "127.0.0.1:${HP[c1]}/metrics")
    m2=$(curl -s --max-time 5 "127.0.0.1:${HP[c2]}/metrics")
    check "leader killed: the claims survive (same nodes)" [ "$(node_of c1),$(node_of c2)" = "$n1,$n2" ]
    check "leader killed: no claim was lost" bash -c 'grep -q "^toidd_claim_lost_total{format=\"nanoflake\"} 0$" <<<"$0" && grep -q "^toidd_claim_lost_total{format=\"nanoflake\"} 0$" <<<"$1"' "$m1" "$m2"
    check "leader killed: renewals continue" grep -q '^toidd_claim_renewals_total{backend="etcd"} [1-9]' <<<"$m1"
    # every member stopped: the holders stop nanoflake before their deadline
    # (each at most TTL - TTL/5 after the stop; bounded here by TTL + 5 s from
    # the stop, for both)
    STOPPED=""
    LIVE=""
    for k in 1 2 3; do
        [ "$k" != "$leader" ] && kill -STOP "${EPID[$k]}" && STOPPED="$STOPPED ${EPID[$k]}" && LIVE="$LIVE $k"
    done
    by=$((SECONDS + CTTL + 5))
    left() { local l=$((by - SECONDS)); echo $((l > 0 ? l : 0)); }
    refused() { [ "$(code "127.0.0.1:${HP[$1]}/v1/new/nanoflake")" = 503 ]; }
    check "etcd stopped: holder 1 stops nanoflake (bounded: TTL + 5 s)" wait_until "$(left)" refused c1
    check "etcd stopped: holder 2 stops nanoflake (bounded: TTL + 5 s)" wait_until "$(left)" refused c2
    r=$(timeout 5 redis-cli -p "${RP[c1]}" ID.NEW nanoflake 2>&1)
    check "etcd stopped: RESP TRYAGAIN ($r)" grep -q '^TRYAGAIN' <<<"$r"
    check "etcd stopped: ulid still served" [ "$(code "127.0.0.1:${HP[c1]}/v1/new/ulid")" = 200 ]
    check "etcd stopped: /healthz not ready" [ "$(code "127.0.0.1:${HP[c1]}/healthz")" = 503 ]
    for p in $STOPPED; do kill -CONT "$p"; done
    # How soon the members elect a leader again is etcd's (seconds on a busy
    # machine): waited for, bounded only against a hang. From then on each
    # holder serves again within a few seconds (README: its next renewal
    # attempt, TTL/10 apart, deletes the node key its lapsed claim left, and
    # toidd tries again at most 2 s apart): bounded by TTL + 10 s, for load.
    # (Those keys, kept alive by the holder's own renewals, used to hold both
    # nodes for good, each holder skipping its own: issue 27.)
    live_healthy() { local k; for k in $LIVE; do etcd_healthy "$k" || return 1; done; }
    check "etcd back: the members answer again (bounded against a hang: 60 s)" wait_until 60 live_healthy
    served() { [ "$(code "127.0.0.1:${HP[$1]}/v1/new/nanoflake")" = 200 ]; }
    by=$((SECONDS + CTTL + 10))
    for i in 1 2; do
        if wait_until "$(left)" served "c$i"; then
            pass
        else   # (its log says why: the claim's attempts, the lease's renewals)
            fail "etcd back: holder $i serves nanoflake again (bounded: TTL + 10 s once etcd answers); the end of its log:"
            tail -n 15 "${LOG[c$i]}" | cut -c1-400
        fi
    done
    check "etcd back: /healthz ok" wait_until 10 bash -c '[ "$(curl -s --max-time 2 127.0.0.1:$0/healthz)" = ok ]' "${HP[c1]}"
    sleep 1
    stop_fetchers
    d=$(dups "$WORK/ids.c1" "$WORK/ids.c2")
    check "cluster: no ID repeated ($(count_ids "$WORK/ids.c1" "$WORK/ids.c2") fetched, $d repeated)" [ "$d" -eq 0 ]
    stop_pid "${PID[c1]}"
    stop_pid "${PID[c2]}"
else
    fail "cluster: toidd did not start: $(tail -2 "$WORK"/toidd.c?.log)"
fi
finish
