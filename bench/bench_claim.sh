#!/usr/bin/env bash
# bench_claim.sh — node claims, measured with the toid CLI against a local
# registry and a single etcd member started here (loopback, free ports, temp
# data dir):
#  1. the claim of node 0 in a local registry; the claim of the last free
#     node in etcd with 1023 of 1024 nanoflake nodes held
#     (one range read of the nodes, then the transaction on node 1023),
#     side by side with the same run on an empty prefix (node 0 free: the
#     floor of a claimed run — process start, lease, txn, mark, release);
#     and a run with --no-claim (no claim at all);
#  2. the time from a holder's kill -9 to another process holding its node
#     (lease TTL 2 s: expect <= TTL + 1 s).
# Medians of ROUNDS runs (interleaved). The machine may be shared: compare
# figures of one run, not across runs.
#
# usage: bench/bench_claim.sh [TOID] [ROUNDS]
#   TOID    the CLI (default build/tools/toid); ROUNDS default 11
# needs: etcd-server, curl (and a toid built with the etcd backend)
set -u
export LC_ALL=C

TOID=${1:-build/tools/toid}
ROUNDS=${2:-11}
ETCD=$(command -v etcd || echo /usr/bin/etcd)
for tool in "$ETCD" curl base64 "$TOID"; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "$tool" ]; then
        echo "bench_claim: '$tool' not found (apt-get install -y etcd-server curl; build toid)" >&2
        exit 2
    fi
done
WORK=$(mktemp -d)
HPID=
. "$(dirname "$0")/../tests/etcd_single.sh"
cleanup() {
    [ -n "$HPID" ] && kill -KILL "$HPID" 2>/dev/null
    etcd_single_stop
    rm -rf "$WORK"
}
trap cleanup EXIT
# runs without --claim claim in a registry of this run's, not the host's
mkdir -m 2770 "$WORK/registry"
export TOID_CLAIM=local=$WORK/registry TOID_CLAIM_CONF=/dev/null

etcd_single_start "$ETCD" "$WORK/etcd" || { echo "etcd did not start: $(tail -3 "$WORK/etcd.log")" >&2; exit 2; }
URL=$ETCD_URL
E="etcd=$URL"

ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# 1023 nodes of /full held by a long lease, with a holder's value
LEASE=$(curl -s "$URL/v3/lease/grant" -d '{"TTL":600}' | sed -n 's/.*"ID":"\([0-9]*\)".*/\1/p')
VALUE=$(printf '{"toid":"node","host":"bench","pid":1,"start_ms":0}' | base64 -w0)
for n in $(seq 0 1022); do
    KEY=$(printf '/full/nanoflake/nodes/%04d' "$n" | base64 -w0)
    printf '{"key":"%s","value":"%s","lease":"%s"}' "$KEY" "$VALUE" "$LEASE"
    echo
done >"$WORK/puts"
while read -r body; do curl -s "$URL/v3/kv/put" -d "$body" >/dev/null; done <"$WORK/puts"

: >"$WORK/t.full"
: >"$WORK/t.empty"
: >"$WORK/t.none"
for _ in $(seq "$ROUNDS"); do
    t0=$(ms)
    "$TOID" new nanoflake -n 1 --claim "$E" --claim-prefix /empty --json >"$WORK/o.empty"
    t1=$(ms)
    "$TOID" new nanoflake -n 1 --claim "$E" --claim-prefix /full --json >"$WORK/o.full"
    t2=$(ms)
    "$TOID" new nanoflake -n 1 --no-claim >/dev/null
    t3=$(ms)
    "$TOID" new nanoflake -n 1 >/dev/null       # the local registry (TOID_CLAIM above)
    t4=$(ms)
    echo $((t1 - t0)) >>"$WORK/t.empty"
    echo $((t2 - t1)) >>"$WORK/t.full"
    echo $((t3 - t2)) >>"$WORK/t.none"
    echo $((t4 - t3)) >>"$WORK/t.local"
done
grep -q '"generator":1023' "$WORK/o.full" || echo "bench_claim: the full run did not get node 1023" >&2
printf 'toid new nanoflake -n 1, median of %s runs (ms):\n' "$ROUNDS"
printf '  --no-claim (floor: no claim)              %6s\n' "$(median <"$WORK/t.none")"
printf '  claim in a local registry (node 0 free)   %6s\n' "$(median <"$WORK/t.local")"
printf '  claim in etcd, node 0 free (empty prefix) %6s\n' "$(median <"$WORK/t.empty")"
printf '  claim in etcd, 1023 of 1024 nodes held    %6s\n' "$(median <"$WORK/t.full")"

# 2. a holder's death to another holding its node (TTL 2 s)
: >"$WORK/t.death"
for r in $(seq 5); do
    mkfifo "$WORK/fifo.$r"
    "$TOID" new nanoflake --node 5 -n 100000000 --claim "$E" --claim-ttl 2 --claim-prefix /death \
        >"$WORK/fifo.$r" 2>/dev/null &
    HPID=$!
    exec {FD}<"$WORK/fifo.$r"
    sleep 1
    kill -KILL "$HPID"
    t0=$(ms)
    wait "$HPID" 2>/dev/null
    HPID=
    exec {FD}<&-
    until "$TOID" new nanoflake --node 5 -n 1 --claim "$E" --claim-ttl 2 --claim-prefix /death \
        >/dev/null 2>&1; do
        sleep 0.02
    done
    echo $(($(ms) - t0)) >>"$WORK/t.death"
done
printf 'kill -9 of a holder to another holding its node, TTL 2000 ms, median of 5 (ms): %s (all: %s)\n' \
    "$(median <"$WORK/t.death")" "$(tr '\n' ' ' <"$WORK/t.death")"
