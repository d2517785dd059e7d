#!/usr/bin/env bash
# under_load.sh — runs a command on a busy machine: two CPU hogs (busy
# loops) and a second etcd (tests/etcd_single.sh) taking puts from a curl
# loop, all started here and ended by PID when the command ends. For tests
# that must hold when the machine is loaded (issue 27): CI runs the claim
# tests through it once.
#   usage: tests/under_load.sh COMMAND [ARGS...]   (exits with COMMAND's status)
#   e.g.   tests/under_load.sh ctest --test-dir build --output-on-failure -R '^server_claims$'
# ETCD (default: etcd in PATH) is the load's etcd; without one, only the hogs.
set -u
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
. "$(dirname "$0")/etcd_single.sh"
ETCD=${ETCD:-$(command -v etcd || true)}
DIR=$(mktemp -d)
LOAD=()

stop_load() {
    local p
    for p in "${LOAD[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${LOAD[@]}"; do wait "$p" 2>/dev/null; done
    etcd_single_stop
    rm -rf "$DIR"
}
trap stop_load EXIT

for _ in 1 2; do
    (while :; do :; done) &
    LOAD+=($!)
done
if [ -n "$ETCD" ] && etcd_single_start "$ETCD" "$DIR/etcd"; then
    # one put after another (each a curl process: CPU, and a write etcd syncs)
    value=$(head -c 600 /dev/zero | tr '\0' x | base64 -w0)
    (
        i=0
        while :; do
            key=$(printf 'load/%d' $((i % 100)) | base64 -w0)
            curl -s -o /dev/null --max-time 2 -X POST "$ETCD_URL/v3/kv/put" \
                -d "{\"key\":\"$key\",\"value\":\"$value\"}"
            i=$((i + 1))
        done
    ) &
    LOAD+=($!)
    echo "under_load: 2 CPU hogs, etcd $ETCD_URL under a put loop (pids ${LOAD[*]} $ETCD_PID)"
else
    echo "under_load: 2 CPU hogs (pids ${LOAD[*]}); no etcd for the load${ETCD:+ (it did not start: $(tail -2 "$DIR/etcd.log"))}"
fi

start=$SECONDS
"$@"
rc=$?
echo "under_load: '$*' exited $rc after $((SECONDS - start)) s"
exit "$rc"
