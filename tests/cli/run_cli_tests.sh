#!/usr/bin/env bash
# Black-box tests of the toid command-line tool.
#   usage: run_cli_tests.sh [--section NAME] TOID_BINARY VECTORS_DIR [golden]
#          run_cli_tests.sh --list      (the sections: golden, generation, vectors)
# 1. golden cases: exact stdout, stderr and exit status of every subcommand,
#    option and error path (tests/cli/golden/NAME.txt; TOID_UPDATE_GOLDEN=1
#    rewrites them — review the diff before committing);
# 2. generation: for every format, new | inspect round trips (10,000 IDs, times
#    inside the run's window, strictly increasing texts), --at, --as, --json;
# 3. every line of VECTORS_DIR/*.tsv through inspect, make and range.
# Each part is a section (a function section_NAME below; ctest runs each
# alone as cli.NAME); without --section all run. "golden" as the third
# argument is --section golden (seconds: in the `ctest -L quick` subset). Needs bash, awk, sort, grep, diff (no python). Prints "N passed, N failed"
# last and exits non-zero on any failure.
set -u
export LC_ALL=C

# pass, fail, check, finish; sections_args, run_sections
. "$(dirname "$0")/../check_lib.sh"
sections_args "$0" "$@"
shift "$SHIFT"
if [ $# -ne 2 ] && [ $# -ne 3 ]; then
    echo "usage: $0 [--list | --section NAME] TOID_BINARY VECTORS_DIR [golden]" >&2
    exit 2
fi
[ "${3:-}" = golden ] && ONLY=golden
TOID=$1
VEC=$2
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=$HERE/golden
# a format's vectors: the shared set's file, else the repository's own
# (tests/vectors: the read-only variants of reference libraries)
vecfile() { if [ -f "$VEC/$1.tsv" ]; then echo "$VEC/$1.tsv"; else echo "$HERE/../vectors/$1.tsv"; fi; }
WORK=$(mktemp -d)
. "$(dirname "$0")/../test_registry.sh"   # $REGISTRY: where the node formats claim
trap 'rm -rf "$WORK"' EXIT

if [ ! -x "$TOID" ]; then
    fail "no executable at '$TOID'"
    finish
fi

# every format the library has (toid formats --json): the loops below cover a
# format added to the library without a change here
FORMATS=$("$TOID" formats --json | grep -o '^{"name":"[^"]*"' | cut -d'"' -f4 | paste -sd' ' -)
# the formats toid generates (not the read-only variants of reference libraries)
GEN_FORMATS=$("$TOID" formats --json | grep '"generates":true' | grep -o '^{"name":"[^"]*"' | cut -d'"' -f4 | paste -sd' ' -)
# those with an integer form
INT_FORMATS=$("$TOID" formats --json | grep '"has_int":true' | grep -o '^{"name":"[^"]*"' | cut -d'"' -f4 |
              paste -sd' ' -)

# ---------------------------------------------------------------------------
# 1. golden cases
#    g NAME ARG...        runs toid ARG... (stdin: $IN if set, else empty)
# ---------------------------------------------------------------------------
golden_run() {
    local name=$1
    shift
    local out=$WORK/out err=$WORK/err rc
    if [ -n "${IN+x}" ]; then
        printf '%s' "$IN" | "$TOID" "$@" >"$out" 2>"$err"
        rc=${PIPESTATUS[1]}
    else
        "$TOID" "$@" </dev/null >"$out" 2>"$err"
        rc=$?
    fi
    {
        printf '$ toid'
        [ $# -gt 0 ] && printf ' %q' "$@"
        printf '\n'
        if [ -n "${IN+x}" ]; then
            printf -- '--- stdin: %q\n' "$IN"
        fi
        echo "--- stdout"
        cat "$out"
        echo "--- stderr"
        cat "$err"
        echo "--- exit $rc"
    } >"$WORK/golden.txt"
}

g() {
    local name=$1
    shift
    golden_run "$name" "$@"
    local want=$GOLDEN/$name.txt
    if [ "${TOID_UPDATE_GOLDEN:-0}" = 1 ]; then
        mkdir -p "$GOLDEN"
        cp "$WORK/golden.txt" "$want"
    fi
    if [ ! -f "$want" ]; then
        fail "golden $name: no file $want"
    elif diff -u "$want" "$WORK/golden.txt" >"$WORK/diff"; then
        pass
    else
        fail "golden $name:"
        cat "$WORK/diff"
    fi
}

section_golden() {
# top level
g top-help --help
g top-help-short -h
g top-help-cmd help
g top-version --version
g top-version-short -V
g top-none
g top-unknown-command frobnicate
g top-unknown-option --frobnicate
g top-help-unknown help frobnicate
g top-help-too-many help new inspect
for c in new inspect make range formats convert; do
    g "help-$c" "$c" --help
    g "help-$c-short" "$c" -h
    g "help-via-help-$c" help "$c"
done

# new (nanoflake has no random bits: its output is exact)
g new-nanoflake-at new nanoflake --at 2024-06-01T00:00:00Z -n 3
g new-nanoflake-node new nanoflake --at 2024-06-01T00:00:00Z -n 2 --node 1023
g new-nanoflake-node-eq new nanoflake --at=1717200000000 --count=2 --node=5
g new-nanoflake-n-cluster new nanoflake --at 1717200000000 -n2
g new-nanoflake-epoch new nanoflake --at 2024-06-01T00:00:00Z --epoch 2024-05-01T00:00:00Z -n 2
g new-nanoflake-as-int new nanoflake --at 2024-06-01T00:00:00Z -n 2 --as int
g new-nanoflake-as-hex new nanoflake --at 2024-06-01T00:00:00Z -n 2 --as hex
g new-nanoflake-as-text new nanoflake --at 2024-06-01T00:00:00Z -n 1 --as text
g new-nanoflake-json new nanoflake --at 2024-06-01T00:00:00Z -n 2 --json
g new-nanoflake-json-epoch new nanoflake --at 2024-06-01T00:00:00Z -n 1 --json --epoch 2024-05-01T00:00:00Z
g new-nanoflake-next-ms new nanoflake --at 2024-06-01T00:00:00Z -n 4097 --as int
g new-count-zero new nanoflake -n 0
g new-format-after-options new -n 1 --at 1717200000000 nanoflake
g new-double-dash new nanoflake --at 1717200000000 -- -n
g new-unknown-format new frobnicate
g new-two-formats new ulid uuidv7
g new-unknown-option new --frobnicate
g new-unknown-short new -x
g new-missing-value new -n
g new-missing-value-long new --at
g new-bad-count new -n abc
g new-bad-count-negative new -n -5
g new-bad-count-big new -n 18446744073709551616
g new-bad-at new --at yesterday
g new-bad-epoch new nanoflake --epoch yesterday
g new-epoch-fixed new ulid --epoch 2024-01-01T00:00:00Z
g new-epoch-zero new nanoflake --epoch 0
g new-epoch-negative new nanoflake --epoch 1969-12-31T23:59:59Z
g new-node-wrong-format new ulid --node 1
g new-node-too-big new nanoflake --node 1024
g new-node-sid-too-big new ulid-flake-scalable --node 32
g new-node-bad new nanoflake --node x
g new-bad-as new --as decimal
g new-as-int-128 new ulid --as int
g new-as-int-uuidv7 new uuidv7 --as int
g new-json-and-as new --json --as hex
g new-flag-with-value new --json=1
g new-at-before-epoch new nanoflake --at 2023-12-31T23:59:59.999Z
g new-at-before-uid11-epoch new uid11 --at 2000-01-01T00:00:00Z
g new-at-past-span new ulid --at 281474976710656

# inspect: one ID of each format, detection, the options
g inspect-ulid inspect 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-ulid-json inspect --json 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-ulid-lower inspect 01arz3ndektsv4rrffq69g5fav
g inspect-ulid-flake inspect 00CMXB6TAK4SA
g inspect-ulid-flake-json inspect --json 00CMXB6TAK4SA
g inspect-ulid-flake-scalable inspect -f ulid-flake-scalable 00CMXB6TAK4SA
g inspect-ulid-flake-scalable-json inspect -f ulid-flake-scalable --json 00CMXB6TAK4SA
g inspect-scru160 inspect 05TTUP1HNCPNH30VEK64KDQT9BSNU4C4
g inspect-scru160-json inspect --json 05TTUP1HNCPNH30VEK64KDQT9BSNU4C4
g inspect-scru160-hex inspect --json 017bdf6431bb33788c1f750c4a375d4af97f1184
g inspect-scru160-reserved inspect --json VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV
g inspect-nanoflake inspect 0esbdsx95goy0
g inspect-nanoflake-json inspect --json 0esbdsx95goy0
g inspect-nanoflake-short inspect -f nanoflake 35s
g inspect-uid11 inspect 71wqSupQNF1
g inspect-uid11-json inspect --json 71wqSupQNF1
g inspect-uid11-seq inspect -f uid11-seq hR3jDfnAH3W
g inspect-uid11-seq-json inspect -f uid11-seq --json hR3jDfnAH3W
g inspect-uuidv7 inspect 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
g inspect-uuidv7-json inspect --json 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
g inspect-uuidv7-upper inspect --json 017F22E2-79B0-7CC3-98C4-DC0C0C07398F
g inspect-several inspect 01ARZ3NDEKTSV4RRFFQ69G5FAV 0esbdsx95goy0 71wqSupQNF1
g inspect-several-json inspect --json 01ARZ3NDEKTSV4RRFFQ69G5FAV 0esbdsx95goy0 71wqSupQNF1
g inspect-detect-lower-nanoflake inspect --json 00cmxb6tak4sa
g inspect-detect-upper-ulid-flake inspect --json 00CMXB6TAK4SA
g inspect-detect-digits-ulid-flake inspect --json 0000000000035
g inspect-detect-nanoflake-only inspect --json 0esbdsx95goyu
g inspect-detect-uid11-11 inspect --json 11111111112
g inspect-all inspect --all 0000000000035
g inspect-all-json inspect --all --json 11111111112
g inspect-all-single inspect --all --json 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-all-none inspect --all --json 0000000000000000
g inspect-all-with-f inspect --all -f ulid 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-epoch inspect --json --epoch 2020-01-01T00:00:00Z 0esbdsx95goy0
g inspect-epoch-f inspect -f ulid-flake --json --epoch 1577836800000 00CMXB6TAK4SA
g inspect-epoch-detect-ulid inspect --json --epoch 2020-01-01T00:00:00Z 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-epoch-fixed-format inspect -f ulid --epoch 2020-01-01T00:00:00Z 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-epoch-bad inspect --epoch never 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-epoch-out-of-range inspect --epoch 1969-01-01T00:00:00Z 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-lenient inspect --lenient --json oLARYZ6-S41TSV4RRF-FQ69G5FAV
g inspect-lenient-f inspect --lenient -f ulid-flake --json 0-0cmxb6tak4sa
g inspect-lenient-bad-pos inspect --lenient 01AR-Z3NDEKTSV4RRFFQ69G5FAU
g inspect-strict-alias inspect -f ulid OLARYZ6S41TSV4RRFFQ69G5FAV
g inspect-strict-hyphen inspect oLARYZ6-S41TSV4RRF-FQ69G5FAV
g inspect-lenient-nanoflake-untouched inspect --lenient -f nanoflake --json 0esbdsx95goy0
g inspect-int inspect -f nanoflake --int --json 4096
g inspect-int-uid11 inspect -f uid11 --int 18446744073709551615
g inspect-int-overflow inspect -f ulid-flake --int 9223372036854775808
g inspect-int-char inspect -f uid11 --int 12a4
g inspect-int-length inspect -f uid11 --int 123456789012345678901
g inspect-int-no-f inspect --int 4096
g inspect-int-128 inspect -f ulid --int 4096
g inspect-int-lenient inspect -f ulid-flake --int --lenient 4096
g inspect-bad-char inspect 01ARZ3NDEKTSV4RRFFQ69G5FAU
g inspect-bad-char-f inspect -f ulid 01ARZ3NDEKTSV4RRFFQ69G5FAU
g inspect-overflow inspect 80000000000000000000000000
g inspect-overflow-uid11 inspect -f uid11 jpXCZedGfVR
g inspect-detect-uid11-overflow-is-nanoflake inspect jpXCZedGfVR
g inspect-bad-length inspect 01ARZ3NDEKTSV4RRFFQ69G5FA
g inspect-bad-length-f inspect -f uuidv7 0000
g inspect-empty-arg inspect ''
g inspect-uuid-v4 inspect 9b3f5a4e-2f1c-4d2a-9c1e-8b7a6d5c4e3f
# any UUID: read as such, with its version, variant and (1, 6, 7) time
g inspect-uuid-v1 inspect C232AB00-9414-11EC-B3C8-9F6BDECED846
g inspect-uuid-v6-json inspect --json 1EC9414C-232A-6B00-B3C8-9F6BDECED846
g inspect-uuid-hex-v4 inspect 2e7ba44190db4ba793e6eabc19b33fb6
g inspect-uuid-hex-v4-json-all inspect --json --all 2e7ba44190db4ba793e6eabc19b33fb6
g inspect-uuid-max inspect '{FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF}'
g inspect-uuid-v4-as-uuidv7 inspect -f uuidv7 550e8400-e29b-41d4-a716-446655440000
g inspect-escape inspect $'01ARZ3NDEKTSV4RRFFQ69G5FA\t' $'a\\b' $'\x01\xff\xd0\x90' "it's"
g inspect-long-input inspect "$(printf 'x%.0s' {1..150})"
g inspect-errors-continue inspect 01ARZ3NDEKTSV4RRFFQ69G5FAV bad 0esbdsx95goy0
g inspect-unknown-format inspect -f frob 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-missing-f inspect -f
g inspect-dash-id inspect -- -1
g inspect-dash-id-f inspect -f nanoflake -- -1
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n0esbdsx95goy0\n' g inspect-stdin inspect
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n0esbdsx95goy0\n' g inspect-stdin-json inspect --json
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n0esbdsx95goy0' g inspect-stdin-no-final-lf inspect --json
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\r\n0esbdsx95goy0\r\n' g inspect-stdin-crlf inspect
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n\nxyz\n 0esbdsx95goy0\n0esbdsx95goy0\n' g inspect-stdin-errors inspect
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n\n01ARZ3NDEKTSV4RRFFQ69G5FAV\n' g inspect-stdin-errors-json inspect -f ulid --json
IN='' g inspect-stdin-empty inspect
IN=$'\n' g inspect-stdin-one-empty-line inspect
# as psql prints a column (a space before each value), with CRLF and blank lines
IN=$' 01ARZ3NDEKTSV4RRFFQ69G5FAV\r\n\n\t0esbdsx95goy0  \r\n \r\n' g inspect-stdin-pasted inspect --json
IN=$'  id\n----------------------------\n 01ARZ3NDEKTSV4RRFFQ69G5FAV\n\n' g inspect-stdin-psql inspect -f ulid
IN=$' 01ARZ3NDEKTSV4RRFFQ69G5FAV \r\n\n' g convert-stdin-pasted convert --to uuid
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n' g inspect-args-win-over-stdin inspect 0esbdsx95goy0
IN=$'4096\n18446744073709551615\n' g inspect-stdin-int inspect -f uid11 --int --json

# make
g make-ulid make ulid unix_ms=1469922850259 random=d6764c61efb99302bd5b
g make-ulid-time make ulid time=2016-07-30T23:54:10.259Z random=d6764c61efb99302bd5b
g make-ulid-time-ms make ulid time=1469922850259
g make-ulid-hex make ulid hex=01563e3ab5d3d6764c61efb99302bd5b
g make-ulid-json make ulid unix_ms=1469922850259 random=d6764c61efb99302bd5b --json
g make-ulid-as-hex make ulid unix_ms=1469922850259 random=d6764c61efb99302bd5b --as hex
g make-ulid-flake-ts make ulid-flake ts=0 random=1048575
g make-ulid-flake-int make ulid-flake int=14246757444195114 --as int
g make-ulid-flake-epoch make ulid-flake ts=0 random=1 --epoch 2020-01-01T00:00:00Z --json
g make-ulid-flake-scalable make ulid-flake-scalable ts=0 random=0 sid=1
g make-scru160 make scru160 unix_ms=281474976710655 counter=65535 random16=65535 random80=1208925819614629174706175 reserved=true
g make-nanoflake make nanoflake time=2024-01-01T00:00:01Z generator=1 sequence=0
g make-nanoflake-as-int make nanoflake ts=1000 generator=1 --as int
g make-uid11 make uid11 ts=0 random=0
g make-uid11-int make uid11 int=18446744073709551615
g make-uid11-seq make uid11-seq ts=86400000 sequence=5 random=7 --json
g make-uuidv7 make uuidv7 hex=017f22e279b07cc398c4dc0c0c07398f
g make-both-times make nanoflake ts=0 unix_ms=1704067200000
g make-times-disagree make nanoflake ts=0 unix_ms=1704067200001
g make-range-negative make ulid unix_ms=-1
g make-range-big make ulid unix_ms=281474976710656
g make-range-before-epoch make nanoflake time=2023-12-31T23:59:59.999Z
g make-overflow-int make ulid-flake int=9223372036854775808
g make-overflow-negative-int make ulid-flake int=-1
g make-overflow-hex make ulid-flake hex=8000000000000000
g make-wide-subfield make nanoflake ts=0 sequence=4096
g make-unknown-field make ulid unix_ms=0 sequence=1
g make-no-time make nanoflake generator=1
g make-uuidv7-bad-version make uuidv7 hex=017f22e279b04cc398c4dc0c0c07398f
g make-bad-number make ulid unix_ms=12x
g make-bad-time make ulid time=yesterday
g make-no-format make
g make-no-fields make ulid
g make-not-field make ulid 1469922850259
g make-unknown-format make frob unix_ms=0
g people-format-typo new ulidd
g people-format-typo-inspect inspect -f UUID-7 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
g make-json-and-as make ulid unix_ms=0 --json --as hex
g make-as-int-128 make ulid unix_ms=0 --as int
g make-epoch-fixed make ulid unix_ms=0 --epoch 2020-01-01T00:00:00Z

# range
g range-ulid range ulid 2024-01-01T00:00:00Z
g range-ulid-day range ulid 2024-01-01T00:00:00Z 2024-01-01T23:59:59.999Z
g range-ulid-json range ulid 2024-01-01T00:00:00Z --json
g range-nanoflake-int range nanoflake 2024-01-01T00:00:01Z --as int
g range-nanoflake-hex range nanoflake 2024-01-01T00:00:01Z --as hex
g range-nanoflake-epoch range nanoflake 2024-01-01T00:00:01Z --epoch 2023-01-01T00:00:00Z --as int
g range-uuidv7 range uuidv7 1645557742000
g range-scru160 range scru160 0 --json
g range-uid11-seq range uid11-seq 1321009871111 1321009871112
g range-prefix range uid11 --prefix 5
g range-prefix-json range uid11 --prefix 5 --json
g range-prefix-int range uid11 --prefix jpXCZedGfV --as int
g range-prefix-empty range uid11 --prefix ''
g range-prefix-full range uid11-seq --prefix 11111111112 --json
g range-prefix-overflow range uid11 --prefix k
g range-prefix-char range uid11 --prefix abc0
g range-prefix-length range uid11 --prefix 111111111111
g range-prefix-wrong-format range ulid --prefix 5
g range-prefix-with-from range uid11 --prefix 5 2024-01-01T00:00:00Z
g range-before-epoch range nanoflake 2023-01-01T00:00:00Z
g range-to-out-of-span range ulid 0 281474976710656
g range-to-before-from range ulid 2024-01-02T00:00:00Z 2024-01-01T00:00:00Z
g range-bad-time range ulid yesterday
g range-bad-to range ulid 0 tomorrow
g range-missing-from range ulid
g range-missing-format range
g range-too-many range ulid 0 1 2
g range-epoch-fixed range ulid 0 --epoch 0
g range-as-int-128 range ulid 0 --as int
# times relative to now, with the clock stopped at 2024-01-01T12:00:00Z
# (libfaketime): the operands need no "--"
faketime_lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
if [ -n "$faketime_lib" ]; then
    rel=$(LD_PRELOAD=$faketime_lib FAKETIME="2024-01-01 12:00:00" TZ=UTC "$TOID" range ulid now-1h30m -15m --json)
    check "range ulid now-1h30m -15m: from 10:30:00.000 to 11:45:00.000" \
        bash -c 'grep -q "\"lo\":{[^}]*\"time\":\"2024-01-01T10:30:00.000Z\"" <<<"$0" && grep -q "\"hi\":{[^}]*\"time\":\"2024-01-01T11:45:00.000Z\"" <<<"$0"' "$rel"
    rel=$(LD_PRELOAD=$faketime_lib FAKETIME="2024-01-01 12:00:00" TZ=UTC "$TOID" new ulid --at +2d --json)
    check "new ulid --at +2d: 2024-01-03T12:00:00.000Z" grep -q '"time":"2024-01-03T12:00:00.000Z"' <<<"$rel"
else
    fail "libfaketime is not installed (faketime; see the README's install command)"
fi

# formats
g formats formats
g formats-json formats --json
g formats-extra formats ulid
g formats-bad-option formats --frob

# inspect --layout: the picture of each format (plain: stdout is a file here,
# so --color=auto draws without colour), coloured with --color=always, errors
g inspect-layout-ulid inspect --layout 01ARZ3NDEKTSV4RRFFQ69G5FAV
g inspect-layout-ulid-flake inspect --layout 00CMXB6TAK4SA
g inspect-layout-ulid-flake-scalable inspect --layout -f ulid-flake-scalable 00CMXB6TAK4SA
g inspect-layout-scru160 inspect --layout 05TTUP1HNCPNH30VEK64KDQT9BSNU4C4
g inspect-layout-nanoflake inspect --layout 0esbdsx95goy0
g inspect-layout-uid11 inspect --layout 71wqSupQNF1
g inspect-layout-uid11-seq inspect --layout -f uid11-seq hR3jDfnAH3W
g inspect-layout-uuidv7 inspect --layout 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
g inspect-layout-color-uuidv7 inspect --layout --color=always 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
g inspect-layout-color-scalable inspect --layout --color always -f ulid-flake-scalable 00CMXB6TAK4SA
g inspect-layout-color-never inspect --layout --color=never 0esbdsx95goy0
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n0esbdsx95goy0\n' g inspect-layout-stdin inspect --layout
g inspect-layout-bad-color inspect --layout --color=sometimes 0esbdsx95goy0
g inspect-layout-json inspect --layout --json 0esbdsx95goy0
# --color=auto on a terminal (script(1) gives the tool one): colour, unless
# NO_COLOR is set or TERM is dumb
ESC=$'\033'
if command -v script >/dev/null; then
    tty_out() { script -qec "$*" /dev/null </dev/null; }
    out=$(TERM=xterm tty_out "$TOID" inspect --layout 0esbdsx95goy0)
    case $out in *"$ESC["*) pass ;; *) fail "inspect --layout on a terminal: no colour" ;; esac
    out=$(TERM=xterm NO_COLOR=1 tty_out "$TOID" inspect --layout 0esbdsx95goy0)
    case $out in *"$ESC"*) fail "inspect --layout with NO_COLOR: coloured" ;; *) pass ;; esac
    out=$(TERM=dumb tty_out "$TOID" inspect --layout 0esbdsx95goy0)
    case $out in *"$ESC"*) fail "inspect --layout with TERM=dumb: coloured" ;; *) pass ;; esac
    out=$(TERM=xterm NO_COLOR=1 tty_out "$TOID" inspect --layout --color=always 0esbdsx95goy0)
    case $out in *"$ESC["*) pass ;; *) fail "--color=always with NO_COLOR: no colour" ;; esac
else
    echo "skipped: the terminal checks of --layout (no script(1))"
fi

# detection that never guesses silently (issue 12)
g people-detect-word inspect hello
g people-detect-word-uid11-length inspect information
g people-detect-cut-ulid inspect 01ARZ3NDEKTS
g people-detect-uuid-hex inspect 01a2078766da75a39228ec6ccd8b88fb
g people-detect-uuid-hex-json inspect --json 01a2078766da75a39228ec6ccd8b88fb
g people-detect-tie-note inspect 0000000000035
g people-detect-tie-json inspect --json 00cmxb6tak4sa
g people-detect-uuid-v4 inspect 550e8400-e29b-41d4-a716-446655440000
g people-detect-uuid-variant inspect 017f22e2-79b0-7cc3-c8c4-dc0c0c07398f
g people-detect-short-nanoflake inspect 35s
g people-uuidv7-forms inspect -f uuidv7 --json 017f22e279b07cc398c4dc0c0c07398f \
    '{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}' urn:uuid:017F22E2-79B0-7CC3-98C4-DC0C0C07398F
g people-uuidv7-f-v4 inspect -f uuidv7 550e8400e29b41d4a716446655440000
g people-uuidv7-f-bad-brace inspect -f uuidv7 '{017f22e2-79b0-7cc3-98c4-dc0c0c07398f)'
g people-names-upper new NanoFlake --at 2024-06-01 -n 1
g people-names-alias make UUIDv7 hex=017f22e279b07cc398c4dc0c0c07398f
g people-names-uuid7 range uuid7 2024-01-01T00:00:00Z
g people-names-underscore range ULID_FLAKE 2024-01-01T00:00:00Z
g people-make-generator-range make nanoflake time=2024 generator=5000
g people-make-generator-huge make nanoflake time=2024 generator=99999999999
g people-make-sid-range make ulid-flake-scalable ts=0 sid=32
g people-local inspect --local 01ARZ3NDEKTSV4RRFFQ69G5FAV
g people-local-json inspect --local --json 01ARZ3NDEKTSV4RRFFQ69G5FAV
TZ=IST-5:30 g people-local-tz inspect --local 01ARZ3NDEKTSV4RRFFQ69G5FAV

# times as people write them: range gives the whole span written
g people-time-year range ulid 2024
g people-time-month range ulid 2024-02
g people-time-day range ulid 2024-01-01
g people-time-hour range ulid 2024-01-01T10
g people-time-minute range ulid 2024-01-01T10:30+01:00
g people-time-second range ulid 2024-01-01T10:30:15
g people-time-fraction range ulid 2024-01-01T10:30:15.5
g people-time-at range ulid @1704067200
g people-time-at-fraction range ulid @1704067200.25
g people-time-s range ulid 1704067200s
g people-time-ms range ulid 1704067200000ms
g people-time-us range ulid 1704067200000999us
g people-time-bare-ms range ulid 1704067200000
g people-time-bare-seconds range ulid 1704067200
g people-time-from-to range ulid 2024-01 2024-03
g people-time-new-at-seconds new nanoflake --at @1717200000 -n 1
g people-time-new-at-warning new nanoflake --at 1717200000 -n 1
g people-time-make make nanoflake time=2024-06-01T00 generator=1
g people-time-make-at make ulid time=@1469922850.259 random=d6764c61efb99302bd5b
g people-time-bad range ulid 2024-13
g people-time-epoch-day inspect --json --epoch 2020-01-01 -f nanoflake 0esbdsx95goy0

# convert: the forms of one value
g convert-ulid-to-uuid convert --to uuid 01ARZ3NDEKTSV4RRFFQ69G5FAV
g convert-uuid-to-ulid convert --to ulid 017f22e2-79b0-7cc3-98c4-dc0c0c07398f 550e8400-e29b-41d4-a716-446655440000
g convert-uuid-hex-to-ulid convert --to ulid 550e8400e29b41d4a716446655440000
g convert-to-int convert --to int 0esbdsx95goy0 00CMXB6TAK4SA 71wqSupQNF1
g convert-to-hex convert --to hex 01ARZ3NDEKTSV4RRFFQ69G5FAV 05TTUP1HNCPNH30VEK64KDQT9BSNU4C4
g convert-to-text convert --to text 01arz3ndektsv4rrffq69g5fav 017F22E279B07CC398C4DC0C0C07398F
g convert-from-int convert -f nanoflake --from int --to text 4750678663576048
g convert-from-hex convert -f ulid --from hex --to text 01563e3ab5d3d6764c61efb99302bd5b
g convert-from-hex-uuidv7 convert -f uuidv7 --from hex --to text 017f22e279b07cc398c4dc0c0c07398f
g convert-from-hex-bad convert -f uuidv7 --from hex --to text 017f22e279b04cc398c4dc0c0c07398f
g convert-int-128 convert --to int 01ARZ3NDEKTSV4RRFFQ69G5FAV
g convert-uuid-64 convert --to uuid 0esbdsx95goy0
g convert-bad-id convert --to hex hello 01ARZ3NDEKTSV4RRFFQ69G5FAV
g convert-no-to convert 01ARZ3NDEKTSV4RRFFQ69G5FAV
g convert-bad-to convert --to base64 01ARZ3NDEKTSV4RRFFQ69G5FAV
g convert-from-needs-f convert --from int --to text 4096
g convert-from-int-128 convert -f ulid --from int --to text 4096
IN=$'01ARZ3NDEKTSV4RRFFQ69G5FAV\n0esbdsx95goy0\n' g convert-stdin convert --to hex
# bytes: raw binary out, and back
"$TOID" convert --to bytes 01ARZ3NDEKTSV4RRFFQ69G5FAV 01BX5ZZKBKACTAV9WEVGEMMVRY >"$WORK/bytes"
if [ "$(wc -c <"$WORK/bytes")" -eq 32 ] &&
    [ "$("$TOID" convert -f ulid --from bytes --to text <"$WORK/bytes" | tr '\n' ' ')" = \
      "01ARZ3NDEKTSV4RRFFQ69G5FAV 01BX5ZZKBKACTAV9WEVGEMMVRY " ]; then
    pass
else
    fail "convert --to bytes | convert --from bytes"
fi
head -c 20 "$WORK/bytes" | "$TOID" convert -f ulid --from bytes --to text >"$WORK/out" 2>"$WORK/err"
if [ $? -eq 1 ] && grep -q '4 bytes left at the end' "$WORK/err"; then pass; else fail "convert --from bytes: a partial ID"; fi
# every format toid generates: text -> int/hex -> text is the identity
for f in $GEN_FORMATS; do
    id=$("$TOID" new "$f")
    back=$("$TOID" convert -f "$f" --from hex --to text "$("$TOID" convert -f "$f" --to hex "$id")")
    if [ "$back" = "$id" ]; then pass; else fail "convert $f: hex round trip '$id' -> '$back'"; fi
done

# random words never decode as IDs without -f (and one process reads many)
awk 'BEGIN { srand(12); for (i = 0; i < 2000; i++) { n = 1 + int(rand() * 20); w = "";
     for (k = 0; k < n; k++) w = w sprintf("%c", 97 + int(rand() * 26)); print w } }' >"$WORK/words"
"$TOID" inspect <"$WORK/words" >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && [ "$(wc -l <"$WORK/err")" -eq 2000 ]; then
    pass
else
    fail "random words: exit $rc, $(wc -l <"$WORK/out") lines out, $(wc -l <"$WORK/err") errors"
fi

# the shell completions name every subcommand and format the tool knows
COMPL=$HERE/../../completions
if [ -f "$COMPL/toid.bash" ]; then
    for f in $FORMATS; do
        for c in "$COMPL/toid.bash" "$COMPL/_toid" "$COMPL/toid.fish"; do
            if grep -qw -- "$f" "$c"; then pass; else fail "completion $c lacks format $f"; fi
        done
    done
    words=$(bash -c 'source "$1"; COMP_WORDS=(toid ""); COMP_CWORD=1; _toid; echo "${COMPREPLY[*]}"' _ "$COMPL/toid.bash")
    for c in new inspect make range formats convert help; do
        case " $words " in *" $c "*) pass ;; *) fail "bash completion lacks '$c': $words" ;; esac
    done
    words=$(bash -c 'source "$1"; COMP_WORDS=(toid new ""); COMP_CWORD=2; _toid; echo "${COMPREPLY[*]}"' _ "$COMPL/toid.bash")
    [ "$words" = "$GEN_FORMATS" ] && pass || fail "bash completion of 'toid new ': '$words' (the formats toid generates)"
    words=$(bash -c 'source "$1"; COMP_WORDS=(toid range ""); COMP_CWORD=2; _toid; echo "${COMPREPLY[*]}"' _ "$COMPL/toid.bash")
    [ "$words" = "$FORMATS" ] && pass || fail "bash completion of 'toid range ': '$words'"
    words=$(bash -c 'source "$1"; COMP_WORDS=(toid inspect --l); COMP_CWORD=2; _toid; echo "${COMPREPLY[*]}"' _ "$COMPL/toid.bash")
    [ "$words" = "--lenient --local --layout" ] && pass || fail "bash completion of 'toid inspect --l': '$words'"
    # zsh and fish (both on the README's install line): the scripts parse, and
    # fish completes the subcommands and a format as bash does
    if zsh -n "$COMPL/_toid"; then pass; else fail "zsh -n _toid"; fi
    if fish -n "$COMPL/toid.fish"; then pass; else fail "fish -n toid.fish"; fi
    words=$(fish -c 'source $argv[1]; complete -C"toid "' "$COMPL/toid.fish" | cut -f1 | sort | tr '\n' ' ')
    [ "$words" = "convert formats help inspect make new range " ] && pass || fail "fish: toid <TAB>: '$words'"
    words=$(fish -c 'source $argv[1]; complete -C"toid range uu"' "$COMPL/toid.fish" | cut -f1)
    [ "$words" = uuidv7 ] && pass || fail "fish: toid range uu<TAB>: '$words'"
else
    fail "no completions at $COMPL"
fi

# the read-only variants: real IDs of the reference libraries (nanoflakes-java
# @1130a08e, epochs 2024-01-01 and 2015-01-01; gurki/uid11 python @d93f9151),
# read at the libraries' own times when named, four times off as the spec's
# formats, never detected, never generated
g variant-ref24-inspect inspect -f nanoflake-ref24 bp2tj56bwzr4 bp2tj77dfksh
g variant-ref24-as-spec inspect -f nanoflake bp2tj56bwzr4
g variant-ref24-int inspect -f nanoflake-ref24 --int --json 1539529135553007616
g variant-ref24-epoch inspect -f nanoflake-ref24 --epoch 1420070400000 --json 1bw9q3b5fkfsw
g variant-ref24-all inspect --all 0bp2tj56bwzr4
g variant-ref24-layout inspect -f nanoflake-ref24 --layout --color never bp2tj56bwzr4
g variant-ref24-convert convert -f nanoflake-ref24 --to int bp2tj56bwzr4
g variant-ref24-convert-back convert -f nanoflake-ref24 --from int --to text 1539529135553007616
g variant-ref24-range range nanoflake-ref24 2026-11-28T01:44:47.246Z
g variant-ref24-make make nanoflake-ref24 ts=91763087246 generator=5 sequence=0
g variant-ref24-new new nanoflake-ref24
g variant-uid11-inspect inspect -f uid11-ref44 --json 2A2p9f3PgfZ 2A2p9Ng6jRH
g variant-uid11-as-spec inspect 2A2p9f3PgfZ
g variant-uid11-all inspect --all --json 2A2p9f3PgfZ
g variant-uid11-layout inspect -f uid11-ref44 --layout --color never 2A2p9f3PgfZ
g variant-uid11-convert convert -f uid11-ref44 --to hex 2A2p9f3PgfZ
g variant-uid11-convert-back convert -f uid11-ref44 --from hex --to text 06e8d80ba8c1e708
g variant-uid11-range range uid11-ref44 2026-11-28
g variant-uid11-make make uid11-ref44 unix_ms=1795830287246 random=123456
g variant-uid11-new new uid11-ref44 -n 3
}

# ---------------------------------------------------------------------------
# 2. generation
# ---------------------------------------------------------------------------
now_ms() { date +%s%3N; }

# awk: pull "key":value (string or number) from JSON lines into columns
json_cols() {   # json_cols KEY... < jsonl  -> tab-separated values
    awk -v keys="$*" 'BEGIN { n = split(keys, k, " ") }
    {
        line = ""
        for (i = 1; i <= n; i++) {
            v = "?"
            if (match($0, "\"" k[i] "\":(\"[^\"]*\"|[^,}]*)")) {
                v = substr($0, RSTART + length(k[i]) + 3, RLENGTH - length(k[i]) - 3)
                gsub(/"/, "", v)
            }
            line = line (i > 1 ? "\t" : "") v
        }
        print line
    }'
}

section_generation() {
for f in $GEN_FORMATS; do
    # 10,000 IDs from the clock, inspected back
    t0=$(now_ms)
    "$TOID" new "$f" -n 10000 2>"$WORK/err" | tee "$WORK/ids" |
        "$TOID" inspect -f "$f" --json >"$WORK/json" 2>>"$WORK/err"
    rc=${PIPESTATUS[0]} rc2=${PIPESTATUS[2]}
    t1=$(now_ms)
    if [ $rc -ne 0 ] || [ $rc2 -ne 0 ] || [ -s "$WORK/err" ]; then
        fail "roundtrip $f: exit $rc/$rc2: $(head -3 "$WORK/err")"
        continue
    fi
    json_cols format text unix_ms <"$WORK/json" >"$WORK/cols"
    if paste "$WORK/ids" "$WORK/cols" | awk -F'\t' -v f="$f" -v t0="$t0" -v t1="$t1" '
        $2 != f || $1 != $3 { print "line " NR ": " $0; bad = 1; exit }
        $4 + 0 < t0 || $4 + 0 > t1 + 1 { print "line " NR ": time " $4 " outside [" t0 ", " t1 "]"; bad = 1; exit }
        NR > 1 && $4 + 0 < last { print "line " NR ": time goes back"; bad = 1; exit }
        { last = $4 + 0 }
        END { if (!bad && NR != 10000) { print NR " lines"; bad = 1 } exit bad }' >"$WORK/why"; then
        pass
    else
        fail "roundtrip $f: $(cat "$WORK/why")"
    fi
    # strictly increasing (uid11: random within a ms, so only unique)
    if [ "$f" = uid11 ]; then
        if [ "$(sort -u "$WORK/ids" | wc -l)" -eq 10000 ]; then pass; else fail "unique $f"; fi
    else
        if sort -c -u "$WORK/ids" 2>"$WORK/why"; then pass; else fail "increasing $f: $(cat "$WORK/why")"; fi
    fi

    # --at: every ID at or after the time, increasing, ms moved on when full
    at=1717200000000
    "$TOID" new "$f" --at "$at" -n 10000 --json >"$WORK/json" 2>"$WORK/err"
    rc=$?
    json_cols text unix_ms <"$WORK/json" >"$WORK/cols"
    if [ $rc -eq 0 ] && [ ! -s "$WORK/err" ] && awk -F'\t' -v at="$at" -v f="$f" '
        NR == 1 && $2 + 0 != at { exit 1 }
        $2 + 0 < at || $2 + 0 > at + 1000 { exit 1 }
        NR > 1 && ($1 <= prev || $2 + 0 < last) { exit 1 }
        { prev = $1; last = $2 + 0 }
        END {
            if (NR != 10000) exit 1
            # sequence formats hold 4096 a ms: 10000 IDs end 2 ms later
            if ((f == "nanoflake" || f == "uid11-seq" || f == "uid11") && last != at + 2) exit 1
            if ((f == "ulid" || f == "uuidv7") && last != at) exit 1
        }' "$WORK/cols"; then
        pass
    else
        fail "new $f --at: exit $rc $(head -2 "$WORK/err") $(head -2 "$WORK/cols")"
    fi

    # --json from new equals inspect --json of the same text
    "$TOID" new "$f" -n 200 --json >"$WORK/json" 2>"$WORK/err"
    json_cols text <"$WORK/json" >"$WORK/texts"
    "$TOID" inspect -f "$f" --json <"$WORK/texts" >"$WORK/json2" 2>>"$WORK/err"
    if [ ! -s "$WORK/err" ] && [ "$(wc -l <"$WORK/json")" -eq 200 ] && cmp -s "$WORK/json" "$WORK/json2"; then
        pass
    else
        fail "new $f --json differs from inspect --json"
    fi

    # --as hex equals the hex field; --as int round trips through inspect --int
    "$TOID" new "$f" --at "$at" -n 50 --as hex >"$WORK/hex" 2>"$WORK/err"
    bytes=$("$TOID" formats --json | grep "\"name\":\"$f\"" | json_cols bin_size)
    if [ ! -s "$WORK/err" ] && [ "$(wc -l <"$WORK/hex")" -eq 50 ] &&
        awk -v w=$((2 * bytes)) 'length($0) != w || $0 !~ /^[0-9a-f]+$/ { exit 1 }' "$WORK/hex" &&
        sort -c -u "$WORK/hex" 2>/dev/null; then
        pass
    else
        fail "new $f --as hex"
    fi
    case " $INT_FORMATS " in
    *" $f "*)
        "$TOID" new "$f" -n 1000 --as int >"$WORK/ints" 2>"$WORK/err"
        "$TOID" inspect -f "$f" --int --json <"$WORK/ints" >"$WORK/json" 2>>"$WORK/err"
        json_cols int <"$WORK/json" >"$WORK/ints2"
        if [ ! -s "$WORK/err" ] && [ "$(wc -l <"$WORK/ints")" -eq 1000 ] && cmp -s "$WORK/ints" "$WORK/ints2"; then
            pass
        else
            fail "new $f --as int | inspect --int"
        fi
        ;;
    esac
done

# --node and --epoch reach the generator
"$TOID" new nanoflake -n 100 --node 77 --json | json_cols generator | sort -u >"$WORK/out"
if [ "$(cat "$WORK/out")" = 77 ]; then pass; else fail "new nanoflake --node"; fi
"$TOID" new ulid-flake-scalable -n 100 --node 31 --json | json_cols sid | sort -u >"$WORK/out"
if [ "$(cat "$WORK/out")" = 31 ]; then pass; else fail "new ulid-flake-scalable --node"; fi
t0=$(now_ms)
"$TOID" new ulid-flake -n 10 --epoch 2025-01-01T00:00:00Z --json >"$WORK/json"
"$TOID" inspect -f ulid-flake --epoch 2025-01-01T00:00:00Z --json <<<"$(json_cols text <"$WORK/json")" >"$WORK/json2"
if cmp -s "$WORK/json" "$WORK/json2" &&
    json_cols unix_ms <"$WORK/json" | awk -v t0="$t0" '$1 + 0 < t0 { exit 1 }'; then
    pass
else
    fail "new ulid-flake --epoch"
fi

# a large regular file gives exactly what the same bytes give through a
# pipe (short reads, output flushed per block), errors at their places included
{
    echo bad-first
    "$TOID" new -n 60000
    echo
    echo 01ARZ3NDEKTSV4RRFFQ69G5FAU
    "$TOID" new nanoflake -n 40000
    printf 'x\r\n'
    "$TOID" new uuidv7 -n 30000
    printf '01ARZ3NDEKTSV4RRFFQ69G5FAV'
} >"$WORK/mix"
for mode in "" --json --all "-f ulid"; do
    # shellcheck disable=SC2086  # mode is words
    "$TOID" inspect $mode <"$WORK/mix" >"$WORK/a" 2>&1
    rca=$?
    # shellcheck disable=SC2086
    cat "$WORK/mix" | "$TOID" inspect $mode >"$WORK/b" 2>&1
    rcb=${PIPESTATUS[1]}
    if [ "$(wc -c <"$WORK/mix")" -gt 3000000 ] && [ $rca -eq 1 ] && [ $rcb -eq 1 ] &&
        cmp -s "$WORK/a" "$WORK/b" && [ "$(grep -c '^toid: ' "$WORK/a")" -ge 3 ]; then
        pass
    else
        fail "inspect $mode: a file and a pipe differ (exit $rca/$rcb)"
    fi
done
# the same file starting at an offset (reading starts where stdin is)
{ dd bs=27 count=1 status=none >/dev/null; "$TOID" inspect --json >"$WORK/a" 2>&1; } <"$WORK/mix"
tail -c +28 "$WORK/mix" | "$TOID" inspect --json >"$WORK/b" 2>&1
if cmp -s "$WORK/a" "$WORK/b"; then pass; else fail "inspect from an offset into a file"; fi

# a closed pipe ends toid quietly with status 0
"$TOID" new -n 2000000 2>"$WORK/err" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 0 ] && [ ! -s "$WORK/err" ]; then pass; else fail "new into a closed pipe: exit $rc $(cat "$WORK/err")"; fi
"$TOID" new -n 20000 | "$TOID" inspect 2>"$WORK/err" | head -n 1 >/dev/null
rc=${PIPESTATUS[1]}
if [ "$rc" -eq 0 ] && [ ! -s "$WORK/err" ]; then pass; else fail "inspect into a closed pipe: exit $rc"; fi

# a large count streams whole, and nothing goes to stderr when it is no terminal
"$TOID" new uid11-seq -n 300000 2>"$WORK/err" | sort -c -u 2>"$WORK/why"
if [ "${PIPESTATUS[0]}" -eq 0 ] && [ ! -s "$WORK/err" ] && [ ! -s "$WORK/why" ]; then pass; else fail "new uid11-seq -n 300000"; fi

# the progress bar, when stderr is a terminal (needs script(1))
if command -v script >/dev/null 2>&1; then
    script -qec "'$TOID' new uid11 -n 8000000 >/dev/null" /dev/null >"$WORK/tty" 2>&1
    if grep -q 'toid: \[' "$WORK/tty" && grep -q 'IDs' "$WORK/tty"; then pass; else fail "progress bar on a terminal"; fi
    script -qec "'$TOID' new -n 1000 >/dev/null" /dev/null >"$WORK/tty" 2>&1
    if ! grep -q 'toid: \[' "$WORK/tty"; then pass; else fail "progress bar on a short run"; fi
fi

}

# ---------------------------------------------------------------------------
# 3. the conformance vectors, through argv
# ---------------------------------------------------------------------------
unescape() {   # \xHH and \\ -> bytes, into $REPLY (no NUL; keeps trailing LFs)
    local s
    s=$(printf '%b' "$1"; printf x)
    REPLY=${s%x}
}

# compare_fields JSON EXPECTED INPUT: every key=value of EXPECTED is in JSON,
# and text is the input when EXPECTED has no text=
compare_fields() {
    local json=$1 expected=$2 input=$3 kv k v got
    local has_text=0
    for kv in $expected; do
        k=${kv%%=*}
        v=${kv#*=}
        [ "$k" = text ] && has_text=1
        got=$(printf '%s\n' "$json" | json_cols "$k")
        if [ "$got" != "$v" ]; then
            WHY="$k: got '$got', want '$v'"
            return 1
        fi
    done
    if [ $has_text = 0 ]; then
        got=$(printf '%s\n' "$json" | json_cols text)
        if [ "$got" != "$input" ]; then
            WHY="text: got '$got', want the input"
            return 1
        fi
    fi
    return 0
}

section_vectors() {
if [ ! -d "$VEC" ]; then
    fail "vectors: no directory '$VEC'"
    finish
fi
nvec=0
for f in $FORMATS; do
    file=$(vecfile "$f")
    if [ ! -f "$file" ]; then
        fail "vectors: no file $file"
        continue
    fi
    lineno=0
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        case $line in '' | '#'*) continue ;; esac
        # four TAB-separated columns; the text column may be empty
        fmt=${line%%$'\t'*}
        rest=${line#*$'\t'}
        kind=${rest%%$'\t'*}
        rest=${rest#*$'\t'}
        input=${rest%%$'\t'*}
        expected=${rest#*$'\t'}
        where="$f.tsv:$lineno"
        if [ "$fmt" != "$f" ]; then
            fail "$where: format '$fmt' in $f.tsv"
            continue
        fi
        if printf '%s' "$input" | grep -qi '\\x00'; then
            continue   # a NUL cannot travel through argv
        fi
        nvec=$((nvec + 1))
        case $kind in
        decode)
            unescape "$input"
            text=$REPLY
            "$TOID" inspect -f "$f" --json -- "$text" >"$WORK/out" 2>"$WORK/err"
            rc=$?
            case $expected in
            ok\ *)
                if [ $rc -ne 0 ] || [ -s "$WORK/err" ]; then
                    fail "$where: decode '$input': exit $rc $(cat "$WORK/err")"
                elif ! compare_fields "$(cat "$WORK/out")" "${expected#ok }" "$text"; then
                    fail "$where: decode '$input': $WHY"
                else
                    pass
                fi
                ;;
            err\ *)
                class=${expected#err }
                if [ "$f" = uuidv7 ] && [ "$class" = length ] &&
                    [[ $text =~ ^(\{.{36}\}|[0-9a-fA-F]{32})$ ]]; then
                    # the strict codec refuses the other UUID forms; toid
                    # inspect -f uuidv7 reads them (toid_decode_forms)
                    if [ $rc -eq 0 ] && grep -q '"format":"uuidv7"' "$WORK/out"; then
                        pass
                    else
                        fail "$where: decode '$input' (a UUID form -f uuidv7 reads): exit $rc"
                    fi
                elif [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && grep -q "($class)\$" "$WORK/err" &&
                    [ "$(wc -l <"$WORK/err")" -eq 1 ]; then
                    pass
                else
                    fail "$where: decode '$input': want err $class, got exit $rc: $(cat "$WORK/err" "$WORK/out")"
                fi
                ;;
            *) fail "$where: bad expectation '$expected'" ;;
            esac
            ;;
        encode)
            # shellcheck disable=SC2086  # the fields are words
            "$TOID" make "$f" $input >"$WORK/out" 2>"$WORK/err"
            rc=$?
            case $expected in
            err\ *)
                class=${expected#err }
                if [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && grep -q "($class)\$" "$WORK/err"; then
                    pass
                else
                    fail "$where: make $input: want err $class, got exit $rc: $(cat "$WORK/err" "$WORK/out")"
                fi
                ;;
            *)
                if [ $rc -eq 0 ] && [ ! -s "$WORK/err" ] && [ "$(cat "$WORK/out")" = "$expected" ]; then
                    pass
                else
                    fail "$where: make $input: want $expected, got exit $rc: $(cat "$WORK/out" "$WORK/err")"
                fi
                ;;
            esac
            ;;
        range)
            unescape "$input"
            text=$REPLY
            "$TOID" range "$f" --prefix "$text" --json >"$WORK/out" 2>"$WORK/err"
            rc=$?
            case $expected in
            err\ *)
                class=${expected#err }
                if [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && grep -q "($class)\$" "$WORK/err"; then
                    pass
                else
                    fail "$where: range '$input': want err $class, got exit $rc: $(cat "$WORK/err")"
                fi
                ;;
            *)
                # {"lo":{...,"int":"N",...},"hi":{...}}: the first int is lo's
                got=$(awk '{
                    n = split($0, part, "\"hi\":")
                    match(part[1], /"int":"[0-9]+"/); lo = substr(part[1], RSTART + 7, RLENGTH - 8)
                    match(part[2], /"int":"[0-9]+"/); hi = substr(part[2], RSTART + 7, RLENGTH - 8)
                    print "lo=" lo " hi=" hi }' "$WORK/out")
                if [ $rc -eq 0 ] && [ "$got" = "$expected" ]; then
                    pass
                else
                    fail "$where: range '$input': want $expected, got '$got' (exit $rc)"
                fi
                ;;
            esac
            ;;
        *) fail "$where: unknown kind '$kind'" ;;
        esac
    done <"$file"
done
if [ "$nvec" -lt 100 ]; then
    fail "vectors: only $nvec cases read from $VEC"
fi

# the decode lines once more, all through stdin in one run per format
for f in $FORMATS; do
    [ -f "$(vecfile "$f")" ] || continue
    awk -F'\t' -v f="$f" '$1 == f && $2 == "decode" && $4 ~ /^ok / && $3 !~ /\\/ { print $3 }' \
        "$(vecfile "$f")" >"$WORK/in"
    n=$(wc -l <"$WORK/in")
    "$TOID" inspect -f "$f" --json <"$WORK/in" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    if [ $rc -eq 0 ] && [ ! -s "$WORK/err" ] && [ "$n" -gt 0 ] && [ "$(wc -l <"$WORK/out")" -eq "$n" ]; then
        pass
    else
        fail "vectors via stdin ($f): exit $rc, $n in, $(wc -l <"$WORK/out") out"
    fi
done

}

run_sections
finish
