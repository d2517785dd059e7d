#!/usr/bin/env bash
# One error text (issue 28): the same bad inputs fed to every front end —
# the CLI, toidd, PostgreSQL, SQLite, Python and Node — and each one's
# message compared with the library's explanation (toid_explain,
# toid_format_name_error, toid_at_time_explain), which the CLI prints as
# "toid: 'INPUT': REASON (class)". Each front end frames the words its own
# way (PostgreSQL: DETAIL, capitalised, with a final period; SQLite:
# "FUNCTION: FORMAT: ..."; the bindings: "fn: param: ..."), but the words
# themselves are the library's, and the positions count from 0 everywhere.
#   usage: same_words_test.sh TOID TOIDD SQLITE_MODULE PY_LIB NODE_ADDON PG_BUILD [make args...]
# Prints "N passed, N failed".
set -uo pipefail
export LC_ALL=C
TOID=$1 TOIDD=$2 SQLITE_MOD=$3 PY_LIB=$4 NODE_ADDON=$5 PG_BUILD=$6
shift 6
here=$(dirname "$(readlink -f "$0")")
. "$here/check_lib.sh"
. "$here/../ext/postgres/pg_cluster.sh"
set -e
cluster_create "$PG_BUILD" "$@"     # (exits 77 where PostgreSQL is missing)
cluster_start "$pg_preload"
set +e
WORK=$pg_tmp/work
mkdir -p "$WORK"
TPID=
cleanup() {
    [ -n "$TPID" ] && kill -KILL "$TPID" 2>/dev/null
    cluster_cleanup
}
trap cleanup EXIT
# node formats claim nothing here (no ID is made), but a registry of our own
export TOID_CLAIM=local=$WORK/registry TOID_CLAIM_CONF=/dev/null
mkdir -p "$WORK/registry"
psql=("$pg_bindir/psql" -X -q -v ON_ERROR_STOP=0 -d postgres)
"${psql[@]}" -c "CREATE EXTENSION toid" >/dev/null

mkdir -p "$WORK/state"
"$TOIDD" --state-dir "$WORK/state" --http 127.0.0.1:0 --resp off 2>"$WORK/toidd.log" &
TPID=$!
HP=
for _ in $(seq 100); do
    HP=$(sed -n 's/.*listening: http 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$WORK/toidd.log" | head -1)
    [ -n "$HP" ] && break
    sleep 0.1
done
check "toidd started ($(tail -1 "$WORK/toidd.log"))" [ -n "$HP" ]

# same WHAT WANT GOT: a check that GOT (one front end's message) holds the
# library's words WANT exactly where its framing puts them
same() {
    if [ "$3" = "$2" ]; then pass; else fail "$1: expected '$2', got '$3'"; fi
}
# the JSON string member NAME of one line of JSON (the messages have no escapes)
member() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
# PostgreSQL's DETAIL of a statement that fails
pg_detail() { "${psql[@]}" -c "$1" 2>&1 | sed -n 's/^DETAIL:  //p'; }
pg_error() { "${psql[@]}" -c "$1" 2>&1 | sed -n 's/^ERROR:  //p'; }
sq() { sqlite3 :memory: ".load $SQLITE_MOD" "$1" 2>&1 | sed 's/^\(Error\|Parse error\|Runtime error\)[^:]*: \(stepping, \)\{0,1\}//'; }
# toidd's JSON error of a GET
H() { curl -s -H 'Accept: application/json' "$@"; }
py() { PYTHONPATH=$PY_LIB python3 -c "
import sys, toid
try:
    $1
    print('no error')
except Exception as e:
    print(e)"; }
js() { TOID_NODE_ADDON=$NODE_ADDON node -e "
const toid = require('$here/../bindings/node');
try { $1; console.log('no error'); } catch (e) { console.log(e.message); }"; }
upper_first() { printf '%s%s' "$(printf '%s' "${1:0:1}" | tr a-z A-Z)" "${1:1}"; }

# ---- a bad ID of a named format: toid_explain -----------------------------
# FORMAT TEXT: length, character (printable, a byte), overflow, a UUID of
# another version, and the formats' own lengths
while read -r f text; do
    ref=$("$TOID" inspect -f "$f" -- "$text" 2>&1 >/dev/null)
    class=${ref##* (}
    class=${class%)}
    want=${ref#toid: \'"$text"\': }
    want=${want% (*)}
    check "CLI: $f '$text' is refused ($ref)" [ -n "$want" ] && [ "$want" != "$ref" ]
    same "toidd: $f '$text'" "$want" \
        "$(H "127.0.0.1:$HP/v1/inspect/$f/$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$text")" | member message)"
    # (uuidv7 is PostgreSQL's uuid type: its functions refuse another version)
    pgsql="SELECT '$text'::${f//-/_}"
    [ "$f" = uuidv7 ] && pgsql="SELECT uuidv7_time('$text'::uuid)"
    same "PostgreSQL: $pgsql" "$(upper_first "$want")." "$(pg_detail "$pgsql")"
    same "SQLite: toid_decode('$f', '$text')" "toid_decode: $f: $want ($class)" "$(sq "SELECT toid_decode('$f', '$text')")"
    same "Python: toid.parse('$text', '$f')" "parse: text: '$text' is not a valid $f: $want ($class)" \
        "$(py "toid.parse('$text', '$f')")"
    same "Node: toid.parse('$text', '$f')" "parse: text: '$text' is not a valid $f: $want ($class)" \
        "$(js "toid.parse('$text', '$f')")"
done <<'EOF'
ulid 01ARZ3NDEKTSV4RRFFQ69G5FA
ulid 01ARZ3NDEKTSV4RRFFQ69G5FAU
ulid 01ARZ3NDEK-SV4RRFFQ69G5FAV
ulid 81ARZ3NDEKTSV4RRFFQ69G5FAV
uuidv7 2e7ba441-90db-4ba7-93e6-eabc19b33fb6
uuidv7 017f22e2-79b0-7cc3-c8c4-dc0c0c07398f
scru160 05TTUP1HNCPNH30VEK64KDQT9BSNU4CW
ulid-flake 8000000000000
nanoflake 1y2p0ij32e8e8
nanoflake 00000000000000
uid11 1111111111O
EOF

# ---- an unknown format name: toid_format_name_error ------------------------
ref=$("$TOID" new ulidd 2>&1 >/dev/null)
want=${ref#toid: }
want=${want% (see \'toid formats\')}        # the CLI's own pointer
check "CLI: an unknown format name suggests the nearest ($ref)" grep -q "did you mean ulid" <<<"$want"
same "toidd: /v1/new/ulidd" "$want" "$(H "127.0.0.1:$HP/v1/new/ulidd" | member message)"
same "SQLite: toid_new('ulidd')" "toid_new: $want (invalid)" "$(sq "SELECT toid_new('ulidd')")"
same "Python: toid.new('ulidd')" "new: format: $want (invalid)" "$(py "toid.new('ulidd')")"
same "Node: toid.new('ulidd')" "new: format: $want (invalid)" "$(js "toid.new('ulidd')")"

# ---- IDs at a given time of a node format: toid_at_time_explain ------------
want=$(H "127.0.0.1:$HP/v1/new/nanoflake?at=2024" | member message)
check "toidd: ?at= for a nanoflake is refused in the library's words ($want)" \
    grep -q '^a nanoflake carries a node and a sequence within its ms: .*; IDs at given times: ulid, scru160, uuidv7$' <<<"$want"
same "PostgreSQL: nanoflake_new(timestamptz)" "$(upper_first "$want")." \
    "$(pg_detail "SELECT nanoflake_new('2024-01-01'::timestamptz)")"
same "SQLite: toid_new('nanoflake', '2024')" "toid_new: nanoflake: no ID at a given time: $want (invalid)" \
    "$(sq "SELECT toid_new('nanoflake', '2024')")"
same "Python: toid.new('nanoflake', at='2024')" "new: format: no ID at a given time: $want (invalid)" \
    "$(py "toid.new('nanoflake', at='2024')")"
same "Node: toid.new('nanoflake', { at: '2024' })" "new: format: no ID at a given time: $want (invalid)" \
    "$(js "toid.new('nanoflake', { at: '2024' })")"

# ---- a time that is none: one expectation text -----------------------------
want=$("$TOID" range ulid yesterday 2>&1 >/dev/null)
check "CLI: 'yesterday' is not a time ($want)" grep -q "expected ISO 8601" <<<"$want"
expected=${want#*: expected }
expected=${expected% (invalid)}
for got in "$(H "127.0.0.1:$HP/v1/new/ulid?at=yesterday" | member message)" \
           "$(py "toid.time_bounds('ulid', 'yesterday')")" "$(js "toid.timeBounds('ulid', 'yesterday')")" \
           "$(sq "SELECT toid_min('ulid', 'yesterday')")"; do
    check "the time expectation is the CLI's ('$expected' in '$got')" grep -qF "expected $expected" <<<"$got"
done
finish
