#!/usr/bin/env bash
# toidd with its state directory and node registry on a filesystem that is
# then frozen (fsfreeze on an ext4 loop image, as the issue's attack did):
# no request hangs. Once the marks' reservation is used up, requests get 503
# (Retry-After) and RESP TRYAGAIN within --mark-wait-max-ms, /readyz (and
# /healthz) says 503 naming the format and the stalled write, INFO says
# toidd_ready:0, /livez stays 200; thawed, /readyz is 200 again and IDs flow;
# no ID twice, each format's IDs in order. (Before: every request hung while
# /healthz said 200.)
#   usage: stall_test.sh TOIDD
# Needs root (mount, fsfreeze): skips, saying so, otherwise; CI runs as root.
# Prints "N passed, N failed" last.
set -uo pipefail
export LC_ALL=C
TOIDD=$1
. "$(dirname "$(readlink -f "$0")")/../check_lib.sh"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (a loop mount and fsfreeze)"
    exit 77
fi
for t in mkfs.ext4 fsfreeze mount curl redis-cli; do
    command -v "$t" >/dev/null || { echo "FAIL: $t is not installed"; exit 1; }
done
WORK=$(mktemp -d /tmp/toidd-stall.XXXXXX)
MNT=$WORK/mnt
TPID=
cleanup() {
    fsfreeze -u "$MNT" 2>/dev/null      # first: a frozen filesystem cannot be unmounted
    [ -n "$TPID" ] && kill -KILL "$TPID" 2>/dev/null && wait "$TPID" 2>/dev/null
    umount "$MNT" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$MNT"
truncate -s 64M "$WORK/fs.img"
mkfs.ext4 -q -F "$WORK/fs.img" || { echo "FAIL: mkfs.ext4"; exit 1; }
mount -o loop "$WORK/fs.img" "$MNT" || { echo "FAIL: cannot loop-mount an ext4 image here"; exit 1; }
mkdir -m 2770 "$MNT/state" "$MNT/registry"
# small reservations: the frozen disk is felt within a fraction of a second
"$TOIDD" --state-dir "$MNT/state" --claim "local=$MNT/registry" --http 127.0.0.1:0 --resp 127.0.0.1:0 \
    --formats ulid,nanoflake --reserve-ms 200 --mark-wait-max-ms 300 2>"$WORK/toidd.log" &
TPID=$!
HP= RP=
for _ in $(seq 100); do
    HP=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/toidd.log" | head -1)
    RP=$(sed -n 's/.*listening: resp 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/toidd.log" | head -1)
    [ -n "$HP" ] && [ -n "$RP" ] && break
    sleep 0.1
done
check "toidd started ($(tail -1 "$WORK/toidd.log"))" [ -n "$HP" ] && [ -n "$RP" ]
# get PATH: "CODE BODY" (curl's 000 and exit 28 if it hangs past 10 s)
get() { curl -s --max-time 10 -w ' %{http_code}' "127.0.0.1:$HP$1" | tr '\n' ' '; }
code() { curl -s --max-time 10 -o /dev/null -w '%{http_code}' "127.0.0.1:$HP$1"; }
# take F N: N IDs of F into $WORK/F.ids when served; prints the code
take() {
    local out
    out=$(curl -s --max-time 10 -w '\n%{http_code}' "127.0.0.1:$HP/v1/new/$1?count=$2")
    local c=${out##*$'\n'}
    [ "$c" = 200 ] && sed '$d' <<<"$out" | grep . >>"$WORK/$1.ids"
    echo "$c"
}
check "thawed: ulid served" [ "$(take ulid 100)" = 200 ]
check "thawed: nanoflake served" [ "$(take nanoflake 100)" = 200 ]
check "thawed: /readyz 200" [ "$(code /readyz)" = 200 ]
check "thawed: /livez 200" [ "$(code /livez)" = 200 ]

fsfreeze -f "$MNT"
# requests go on answering: 200 from the reservation, then 503; never a hang
codes=" " t0=$SECONDS
while [ $((SECONDS - t0)) -lt 3 ]; do
    for f in ulid nanoflake; do codes="$codes$(take $f 50) "; done
done
check "frozen: every request answered, none hung ($(tr ' ' '\n' <<<"$codes" | sort | uniq -c | tr '\n' ' '))" \
    eval '! grep -q " 000 " <<<"$codes"'
check "frozen: refused with 503 once the reservation is used" eval 'grep -q " 503 " <<<"$codes"'
r=$(curl -s --max-time 10 -D - "127.0.0.1:$HP/v1/new/ulid" | tr -d '\r')
check "frozen: the 503 says when to retry" grep -q '^Retry-After: ' <<<"$r"
r=$(timeout 10 redis-cli -p "$RP" ID.NEW nanoflake 2>&1)
check "frozen: RESP TRYAGAIN ($r)" grep -q '^TRYAGAIN' <<<"$r"
r=$(get /readyz)
check "frozen: /readyz 503 naming the stalled write ($r)" \
    eval 'grep -q " 503$" <<<"$r" && grep -q "unserved: ulid (a high-water mark write pending" <<<"$r" &&
          grep -q "unserved: nanoflake (a high-water mark write pending" <<<"$r"'
check "frozen: /healthz says the same" [ "$(code /healthz)" = 503 ]
check "frozen: /livez 200" [ "$(code /livez)" = 200 ]
r=$(timeout 10 redis-cli -p "$RP" INFO server 2>&1 | tr -d '\r')
check "frozen: INFO toidd_ready:0" grep -q '^toidd_ready:0$' <<<"$r"
check "frozen: the log says the write did not finish" grep -q "high-water mark write (local backend) has not finished in 300 ms" "$WORK/toidd.log"

fsfreeze -u "$MNT"
ready() { [ "$(code /readyz)" = 200 ]; }
served() { [ "$(take ulid 10)" = 200 ] && [ "$(take nanoflake 10)" = 200 ]; }
check "thawed again: served (bounded 30 s)" wait_until 30 served
check "thawed again: /readyz 200 (bounded 30 s)" wait_until 30 ready
r=$(timeout 10 redis-cli -p "$RP" INFO server 2>&1 | tr -d '\r')
check "thawed again: INFO toidd_ready:1" grep -q '^toidd_ready:1$' <<<"$r"
for f in ulid nanoflake; do
    n=$(wc -l <"$WORK/$f.ids")
    check "$f: $n IDs, none twice" [ "$(sort "$WORK/$f.ids" | uniq -d | wc -l)" = 0 ]
    check "$f: in the order issued" cmp -s "$WORK/$f.ids" <(sort "$WORK/$f.ids")
done
finish
