#!/usr/bin/env bash
# bench_first_id.sh — what a node claim costs a program's first node-format
# ID, measured inside one Python process (and one Node process, when its
# binding claims): the time of its first ulid (no claim: the floor) beside
# the time of its first nanoflake (the claim: the claimer opened, the node
# taken, its mark read and written ahead), with a claim in a local registry
# and with a claim in etcd (a single member started here: loopback, free
# ports, temp data dir). Each figure is the median of ROUNDS new processes.
# The CLI's whole-run figures are bench_claim.sh's.
#
# usage: bench/bench_first_id.sh [BUILD_DIR] [ROUNDS]   (default build, 11)
# needs: etcd-server, curl; the bindings built (cmake --build BUILD_DIR)
set -u
export LC_ALL=C
BUILD=$(cd "${1:-build}" && pwd)
ROUNDS=${2:-11}
PY_LIB=$BUILD/bindings/python/lib
NODE_ADDON=$BUILD/bindings/node/build/Release/toid.node
HERE=$(cd "$(dirname "$0")" && pwd)
ETCD=$(command -v etcd || echo /usr/bin/etcd)
WORK=$(mktemp -d)
. "$HERE/../tests/etcd_single.sh"
trap 'etcd_single_stop; rm -rf "$WORK"' EXIT
etcd_single_start "$ETCD" "$WORK/etcd" || { echo "etcd did not start: $(tail -3 "$WORK/etcd.log")" >&2; exit 2; }
mkdir -m 2770 "$WORK/registry"
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# python: prints "ULID_US NANOFLAKE_US" for one new process
py() {
    PYTHONPATH=$PY_LIB python3 -c '
import time, toid
t0 = time.perf_counter(); toid.new("ulid"); t1 = time.perf_counter()
toid.new("nanoflake"); t2 = time.perf_counter()
print(int((t1 - t0) * 1e6), int((t2 - t1) * 1e6))'
}
node_run() {
    TOID_NODE_ADDON=$NODE_ADDON node -e '
const toid = require(process.argv[1]);
const ns = () => Number(process.hrtime.bigint() / 1000n);
const t0 = ns(); toid.new("ulid"); const t1 = ns();
toid.new("nanoflake"); const t2 = ns();
console.log(t1 - t0, t2 - t1);' "$HERE/../bindings/node"
}

printf 'first ID in a new process, median of %s processes (us)\n' "$ROUNDS"
printf '%-8s %-7s %12s %16s\n' binding claim "first ulid" "first nanoflake"
for lang in python node; do
    for where in local etcd; do
        if [ $where = local ]; then spec=local=$WORK/registry; else spec=etcd=$ETCD_URL; fi
        : >"$WORK/u" && : >"$WORK/n"
        ok=1
        for _ in $(seq "$ROUNDS"); do
            if [ $lang = python ]; then out=$(TOID_CLAIM=$spec TOID_CLAIM_CONF=/dev/null py 2>&1)
            else out=$(TOID_CLAIM=$spec TOID_CLAIM_CONF=/dev/null node_run 2>&1); fi
            set -- $out
            if [ $# -ne 2 ]; then ok=0; echo "  $lang/$where: $out" | head -2; break; fi
            echo "$1" >>"$WORK/u"
            echo "$2" >>"$WORK/n"
        done
        [ $ok = 1 ] && printf '%-8s %-7s %12s %16s\n' $lang $where "$(median <"$WORK/u")" "$(median <"$WORK/n")"
    done
done
