#!/usr/bin/env bash
# ctest "sqlite_claims": the SQLite extension's node claims between real
# sqlite3 processes, in a registry of the test's own (tests/test_registry.sh):
#   - four sqlite3 processes at once on one database, inserting nanoflakes
#     and ulid-flake-scalable IDs with no node set anywhere: each process
#     claims its own node (0..3 of each format), 0 duplicates;
#   - a node set with toid_node while another process holds it: refused,
#     naming the holder (its pid and lock file) and the configuration;
#   - a claim configuration or registry that cannot be used: node formats
#     fail naming it (never an ID with node 0), the other formats work;
#   - the module exports only its entry point.
# The processes are made to hold their claims at once by waiting for each
# to say so (never by sleeping), so the result does not depend on timing.
# (A forked child claiming its own node: test_sqlite.py.)
#   usage: run_claim_tests.sh path/to/toid.so HOST_REGISTRY
# Skips (exit 77) without the sqlite3 shell.
set -euo pipefail
module=$(realpath "$1")
host_registry=$2   # the build's TOID_HOST_REGISTRY: its error is checked only where it does not exist
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v sqlite3 >/dev/null; then
    echo "SKIP: sqlite3 shell not installed (Debian: sqlite3)"
    exit 77
fi
run=(env)
if [ -n "${TOID_SQLITE_PRELOAD:-}" ]; then
    run=(env "LD_PRELOAD=$TOID_SQLITE_PRELOAD" "ASAN_OPTIONS=detect_leaks=0")
fi

WORK=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
. "$here/../../../tests/test_registry.sh"
ln -s "$module" "$WORK/toid.so"
cd "$WORK"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# nm: only the entry point (libtoid and the claim library inside stay private)
if command -v nm >/dev/null; then
    exported=$(nm -D --defined-only "$module" | awk '{print $3}')
    [ "$exported" = sqlite3_toid_init ] || fail "the module exports: $exported"
    echo "ok: exports only sqlite3_toid_init"
fi

# A sqlite3 shell reading SQL from the FIFO in.NAME (written through fd
# $fd_NAME), its output (stdout and stderr, line-buffered) in out.NAME.
start_shell() {
    local name=$1 db=$2 fd
    mkfifo "in.$name"
    "${run[@]}" stdbuf -oL sqlite3 -batch "$db" <"in.$name" >"out.$name" 2>&1 &
    pids+=("$!")
    eval "pid_$name=$!"
    exec {fd}>"in.$name"
    eval "fd_$name=$fd"
    printf '.load ./toid\n' >&"$fd"
}
send() {   # name sql
    local fd
    eval "fd=\$fd_$1"
    printf '%s\n' "$2" >&"$fd"
}
# Waits until out.NAME has a line matching the pattern (at most 10 minutes:
# a guard against a hang, not a timing assumption).
wait_for() {
    local name=$1 pattern=$2 i
    for ((i = 0; i < 6000; i++)); do
        grep -q -- "$pattern" "out.$name" && return 0
        sleep 0.1
    done
    fail "$name never printed '$pattern'; its output: $(cat "out.$name")"
}
finish() {   # name: .quit, then its exit status must be 0
    local fd pid
    eval "fd=\$fd_$1; pid=\$pid_$1"
    printf '.quit\n' >&"$fd"
    exec {fd}>&-
    wait "$pid" || fail "$1 exited with status $?: $(cat "out.$1")"
}

# ---- four processes, one database, no node set anywhere -----------------------
db=$WORK/ids.db
sqlite3 "$db" "PRAGMA journal_mode = WAL;" "CREATE TABLE ids(id TEXT NOT NULL, fmt TEXT NOT NULL, proc INTEGER NOT NULL);" >/dev/null
for i in 1 2 3 4; do
    start_shell "p$i" "$db"
    send "p$i" ".timeout 600000"
    # the first ID of each format claims the process's node
    send "p$i" "INSERT INTO ids VALUES (toid_new('nanoflake'), 'nanoflake', $i), (toid_new('ulid-flake-scalable'), 'ulid-flake-scalable', $i);"
    send "p$i" "SELECT 'claimed', toid_node('nanoflake'), toid_node('ulid-flake-scalable');"
done
for i in 1 2 3 4; do
    wait_for "p$i" '^claimed|'
done
# All four hold their nodes now. The IDs are made into a temporary table
# (no database lock), so the processes make them at the same time, in the
# same milliseconds; then inserted.
rounds=20 rows=5000
for i in 1 2 3 4; do
    for ((r = 0; r < rounds; r++)); do
        for f in nanoflake ulid-flake-scalable; do
            send "p$i" "CREATE TEMP TABLE batch AS SELECT toid_new('$f') AS id FROM generate_series(1, $rows); INSERT INTO ids SELECT id, '$f', $i FROM batch; DROP TABLE batch;"
        done
    done
    send "p$i" "SELECT 'done';"
done
for i in 1 2 3 4; do
    wait_for "p$i" '^done$'
    finish "p$i"
done
for i in 1 2 3 4; do
    grep -v -e '^claimed|[0-9]*|[0-9]*$' -e '^done$' "out.p$i" && fail "p$i printed an error (above)"
done
want=$((4 * (rounds * rows + 1)))
node_sql="CASE fmt WHEN 'nanoflake' THEN json_extract(toid_inspect(fmt, id), '\$.generator')
                   ELSE json_extract(toid_inspect(fmt, id), '\$.sid') END"
got=$("${run[@]}" sqlite3 "$db" ".load ./toid" "
  SELECT fmt, count(*), count(DISTINCT id),
         (SELECT group_concat(node) FROM (SELECT DISTINCT $node_sql AS node FROM ids AS j WHERE j.fmt = i.fmt ORDER BY node))
    FROM ids AS i GROUP BY fmt ORDER BY fmt;
  SELECT 'mixed', count(*) FROM (SELECT proc, fmt FROM ids GROUP BY proc, fmt HAVING count(DISTINCT $node_sql) <> 1);")
expect="nanoflake|$want|$want|0,1,2,3
ulid-flake-scalable|$want|$want|0,1,2,3
mixed|0"
[ "$got" = "$expect" ] || fail "four processes: got
$got
expected (format|rows|distinct|nodes)
$expect"
for i in 1 2 3 4; do
    reported=$(sed -n 's/^claimed|//p' "out.p$i")
    inserted=$("${run[@]}" sqlite3 "$db" ".load ./toid" "SELECT group_concat(node, '|') FROM (SELECT DISTINCT $node_sql AS node, fmt FROM ids WHERE proc = $i ORDER BY fmt)")
    [ "$reported" = "$inserted" ] || fail "p$i: toid_node said $reported, its IDs carry $inserted"
done
echo "ok: four sqlite3 processes, no node set: nodes 0-3 of nanoflake and of ulid-flake-scalable, 0 duplicates in $want of each"

# ---- a node set while another process holds it ----------------------------------
start_shell holder :memory:
send holder "SELECT 'holding', toid_node('nanoflake', 5), toid_node('uid11-seq', 5);"
wait_for holder '^holding|5|5$'
out=$("${run[@]}" sqlite3 :memory: ".load ./toid" "SELECT toid_node('nanoflake', 5);" 2>&1) && fail "node 5 taken twice: $out"
want="Error: stepping, toid_node: nanoflake: node 5 of nanoflake not claimed from $TOID_CLAIM_CONF:1 (claim = local=$REGISTRY): nanoflake node 5 is in use by another process (pid $pid_holder, lock $REGISTRY/nanoflake-5.lock is held): refusing a second generator with the same id (busy)"
[ "$out" = "$want" ] || fail "a held node: got
$out
expected
$want"
# ...the refusal leaves the connection as it was: the process's node, another one
out=$("${run[@]}" sqlite3 -batch :memory: 2>&1 <<'SQL' || true
.load ./toid
SELECT toid_node('uid11-seq', 5);
SELECT toid_node('uid11-seq'), toid_int('uid11-seq', toid_new('uid11-seq')) & 1023, toid_node('uid11-seq');
SQL
)
want="Runtime error near line 2: toid_node: uid11-seq: node 5 of uid11-seq not claimed from $TOID_CLAIM_CONF:1 (claim = local=$REGISTRY): uid11-seq node 5 is in use by another process (pid $pid_holder, lock $REGISTRY/uid11-seq-5.lock is held): refusing a second generator with the same id (busy)
|0|0"
[ "$out" = "$want" ] || fail "a held node, then the process's: got
$out
expected
$want"
finish holder
out=$("${run[@]}" sqlite3 :memory: ".load ./toid" "SELECT toid_node('nanoflake', 5);" 2>&1) || fail "node 5 after its holder left: $out"
[ "$out" = 5 ] || fail "node 5 after its holder left: $out"
echo "ok: a node held by another process is refused, naming it (pid $pid_holder); free once it left"

# ---- configurations and registries that cannot be used ------------------------
printf 'not a directory\n' >"$WORK/afile"
bad=$WORK/afile/registry
out=$(TOID_CLAIM=local=$bad "${run[@]}" sqlite3 :memory: ".load ./toid" "SELECT toid_new('nanoflake');" 2>&1) && fail "an ID without a usable registry: $out"
want="Error: stepping, toid_new: nanoflake: no node of nanoflake claimed from TOID_CLAIM=local=$bad: claim directory $bad: cannot create it: Not a directory (io)"
[ "$out" = "$want" ] || fail "TOID_CLAIM: got
$out
expected
$want"
printf '# this host\nclaim = local=%s\n' "$bad" >"$WORK/bad.conf"
out=$(TOID_CLAIM_CONF=$WORK/bad.conf "${run[@]}" sqlite3 :memory: ".load ./toid" "SELECT toid_new_blob('ulid-flake-scalable');" 2>&1) && fail "an ID without a usable registry: $out"
want="Error: stepping, toid_new_blob: ulid-flake-scalable: no node of ulid-flake-scalable claimed from $WORK/bad.conf:2 (claim = local=$bad): claim directory $bad: cannot create it: Not a directory (io)"
[ "$out" = "$want" ] || fail "claim.conf: got
$out
expected
$want"
out=$(TOID_CLAIM=nfs=/x "${run[@]}" sqlite3 :memory: ".load ./toid" "SELECT toid_node('uid11-seq', 3);" 2>&1) && fail "a node without a usable configuration: $out"
want="Error: stepping, toid_node: uid11-seq: node 3 of uid11-seq not claimed from the host's claim configuration: TOID_CLAIM: unknown claim backend 'nfs=/x' (local, local=DIR or etcd=URL[,URL...]) (invalid)"
[ "$out" = "$want" ] || fail "a bad TOID_CLAIM: got
$out
expected
$want"
# the formats without a node claim nothing: they work anywhere
out=$(TOID_CLAIM=local=$bad "${run[@]}" sqlite3 :memory: ".load ./toid" "SELECT length(toid_new('ulid')), length(toid_new('uuidv7'));" 2>&1)
[ "$out" = "26|36" ] || fail "formats without a node, no usable registry: $out"
# nothing configured: the host's registry (checked where it does not exist:
# a test never claims in the machine's own)
if [ ! -e "$host_registry" ]; then
    out=$(env -u TOID_CLAIM TOID_CLAIM_CONF="$WORK/none.conf" "${run[@]}" sqlite3 :memory: ".load ./toid" "SELECT toid_new('nanoflake');" 2>&1) && fail "an ID without the host's registry: $out"
    want="Error: stepping, toid_new: nanoflake: no node of nanoflake claimed from the host's node registry (TOID_CLAIM unset, no claim in $WORK/none.conf): the host's node registry $host_registry does not exist: set it up"
    case $out in
    "$want"*" (io)") ;;
    *) fail "no registry: got
$out
expected it to start
$want" ;;
    esac
    echo "ok: unusable registries and configurations are named: TOID_CLAIM, claim.conf and its line, the host's registry"
else
    echo "ok: unusable registries and configurations are named: TOID_CLAIM, claim.conf and its line (the host's registry $host_registry exists here: its missing case not run)"
fi
