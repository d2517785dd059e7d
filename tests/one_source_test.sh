#!/usr/bin/env bash
# One source of truth for the formats (issue 13): the library's list
# (TOID_FORMAT_LIST) and descriptors (toid formats --json) are the only
# place a format's facts live.
#   usage: one_source_test.sh TOID_BINARY SOURCE_DIR
# 1. The front ends (tools/, server/, ext/, bindings/ C code) never name a
#    format themselves, neither by its enum constant (TOID_NANOFLAKE) nor as
#    a string literal ("nanoflake"), outside the allowlist below, where a
#    front end means one format on purpose (the ULID <-> UUID conversions,
#    the default format of `toid new`, PostgreSQL's uuid type, ...).
# 2. The test scripts take their lists of formats from the tool: no line of
#    them names more than two formats, outside the allowlist.
# 3. The format lists the man pages and the README keep by hand (they cannot
#    ask the library) equal the library's: the FORMATS table of toid(1) and
#    the README's, toid(1)'s --all order and the detection order of toid(1)
#    and toidd(8) and of toid inspect --help (by detect_rank).
# 4. The format lists the bindings' type stubs keep by hand (type checkers
#    read them, not the library): the Python stub's FormatName Literal and
#    the TypeScript declarations' FormatName union equal the library's list,
#    and their NodeFormatName the formats with a node (node_max).
# The formats are read from include/toid.h and the tool, so a format added
# to the list is checked without a change here. Needs bash, grep, sed, awk.
set -u
export LC_ALL=C

if [ $# -ne 2 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TOID_BINARY SOURCE_DIR" >&2
    exit 2
fi
TOID=$1
SRC=$2
. "$(dirname "$0")/check_lib.sh"

# ---- the formats, from the header and from the tool
ENUMS=$(sed -n 's/^ *X(\([A-Z0-9_]*\), *[a-z0-9_]*, *"[a-z0-9-]*").*/TOID_\1/p' "$SRC/include/toid.h")
NAMES=$(sed -n 's/^ *X([A-Z0-9_]*, *[a-z0-9_]*, *"\([a-z0-9-]*\)").*/\1/p' "$SRC/include/toid.h")
JSON=$("$TOID" formats --json)
TOOL_NAMES=$(printf '%s\n' "$JSON" | grep -o '^{"name":"[^"]*"' | cut -d'"' -f4)
check "the header's list and toid formats agree" [ -n "$NAMES" -a "$NAMES" = "$TOOL_NAMES" ]
# name rank detected, one line per format
# (rank 0: the read-only variants of reference libraries, which detection never tries)
RANKS=$(printf '%s\n' "$JSON" | sed -n 's/^{"name":"\([^"]*\)".*"detect_rank":\([0-9]*\),"detected":\([a-z]*\).*/\2 \1 \3/p' |
        sort -n | awk '$1 != 0 { print $2, $3 }')
GEN_NAMES=$(printf '%s\n' "$JSON" | grep '"generates":true' | grep -o '^{"name":"[^"]*"' | cut -d'"' -f4)
ALL_ORDER=$(printf '%s\n' "$RANKS" | awk '{ print $1 }' | paste -sd' ' -)
DETECT_ORDER=$(printf '%s\n' "$RANKS" | awk '$2 == "true" { print $1 }' | paste -sd' ' -)
check "every format toid generates has a detection rank" [ "$(echo $ALL_ORDER | wc -w)" -eq "$(echo $GEN_NAMES | wc -w)" ]

# ---- 1. front-end C code
# FILE|<WORD>|reason: the places that may name a format, and why.
ALLOW_C='
tools/cmd_convert.c|<TOID_ULID>|ULID <-> UUID conversion is about ULID
tools/cmd_new.c|<TOID_ULID>|the default format of toid new
tools/cmd_range.c|<TOID_UID11>|--prefix: uid11 Base58 prefixes (toid_uid11_prefix_range)
tools/cmd_range.c|<TOID_UID11_SEQ>|--prefix: uid11 Base58 prefixes (toid_uid11_prefix_range)
server/config.c|<TOID_ULID_FLAKE>|the server default on-exhausted=wait for the flake formats
server/config.c|<TOID_ULID_FLAKE_SCALABLE>|the server default on-exhausted=wait for the flake formats
ext/postgres/pg_format.c|<TOID_UUIDV7>|uuidv7 is PostgreSQL uuid type
bindings/python/toid/_toid.c|<TOID_ULID>|new(format="ulid") default
bindings/python/toid/_toid.c|<TOID_UUIDV7>|a UUID refused is said in the words of uuidv7, the format whose texts UUIDs are
bindings/node/src/toid_node.c|<TOID_ULID>|the ulid / uuidv7 fast entry points
bindings/node/src/toid_node.c|<TOID_UUIDV7>|the ulid / uuidv7 fast entry points
bindings/node/src/toid_node.c|<"ulid">|the ulid / uuidv7 fast entry points
bindings/node/src/toid_node.c|<"uuidv7">|the ulid / uuidv7 fast entry points
tools/cmd_convert.c|<"ulid">|convert --to ulid (a kind, not a format)
'
# allowed LIST FILE TEXT: does a FILE|PATTERN|reason line of LIST let FILE
# have TEXT (TEXT contains PATTERN)?
allowed() {
    local af at
    while IFS='|' read -r af at _; do
        [ -n "$af" ] && [ "$af" = "$2" ] && case "$3" in *"$at"*) return 0 ;; esac
    done <<<"$1"
    return 1
}
found=0
cd "$SRC" || exit 2
FILES=$(find tools server ext bindings \( -name node_modules -o -name build \) -prune -o \
             \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print | sort)
# FILE WORD for each enum constant or exact name literal outside comments
# (one awk over every file)
HITS=$(awk -v enums="$(echo $ENUMS)" -v names="$(echo $NAMES)" '
    BEGIN { ne = split(enums, E, " "); nn = split(names, N, " ") }
    FNR == 1 { incomment = 0 }
    {
        line = $0; out = ""
        while (line != "") {
            if (incomment) {
                i = index(line, "*/"); if (!i) { line = ""; break }
                line = substr(line, i + 2); incomment = 0
            } else {
                i = index(line, "/*"); j = index(line, "//")
                if (j && (!i || j < i)) { out = out substr(line, 1, j - 1); line = ""; break }
                if (!i) { out = out line; line = ""; break }
                out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
            }
        }
        for (k = 1; k <= ne; k++)
            if (out ~ ("(^|[^A-Za-z0-9_])" E[k] "([^A-Za-z0-9_]|$)")) print FILENAME, E[k]
        for (k = 1; k <= nn; k++)
            if (index(out, "\"" N[k] "\"")) print FILENAME, "\"" N[k] "\""
    }' $FILES | sort -u)
while read -r FILE WORD; do
    [ -z "$FILE" ] && continue
    allowed "$ALLOW_C" "$FILE" "<$WORD>" && continue
    fail "$FILE names $WORD (ask the format descriptor or the registry, or allowlist it with a reason)"
    found=1
done <<<"$HITS"
[ $found = 0 ] && pass

# ---- 2. test scripts: no hand-kept list of formats
# FILE|TEXT ON THE LINE|reason
ALLOW_SH='
tests/server/run_server_tests.sh|CLOCK_FORMATS=|a chosen subset: the clock tests
tests/cli/run_cli_tests.sh|if ((f == "nanoflake" || f == "uid11-seq"|the formats with 4096 IDs a ms, a chosen property
'
# FILE:LINE TEXT of lines (not comments) naming more than two formats
LISTS=$(awk -v names="$(echo $NAMES)" '
    BEGIN { nn = split(names, N, " ") }
    /^[ \t]*#/ { next }
    {
        c = 0
        for (k = 1; k <= nn; k++)
            if ((" " $0 " ") ~ ("[ \"'\''=(]" N[k] "[ \"'\''|)]")) c++
        if (c > 2) print FILENAME ":" FNR "\t" $0
    }' tests/cli/run_cli_tests.sh tests/server/*.sh)
found=0
while IFS=$'\t' read -r where text; do
    [ -z "$where" ] && continue
    allowed "$ALLOW_SH" "${where%%:*}" "$text" && continue
    fail "$where lists formats by hand: take them from toid formats --json"
    found=1
done <<<"$LISTS"
[ $found = 0 ] && pass

# ---- 3. the lists the documents keep by hand
unroff() { sed 's/\\-/-/g; s/^\.B //; s/^\.BR //'; }
TABLE=$(awk '/^\.SH FORMATS/ { f = 1 } f && /^\.TE/ { exit } f' docs/toid.1 | unroff |
        awk -F'\t' 'NF > 1 && $1 != "FORMAT" { print $1 }')
check "toid(1) FORMATS table lists the library's formats" [ "$TABLE" = "$NAMES" ]
README=$(sed -n 's/^| `\([a-z0-9-]*\)` | [^|]* | [0-9]* | [0-9]* bytes |.*/\1/p' README.md)
check "the README's format table lists the library's formats" [ "$README" = "$NAMES" ]
words() { tr -c 'a-z0-9-\n' ' ' | tr -s ' ' '\n' | grep -x -F "$(printf '%s\n' $NAMES)" | paste -sd' ' -; }
ALL_DOC=$(unroff <docs/toid.1 | awk '/^--all$/ { f = 1 } f && /in this order:/ { g = 1 }
          g { print } g && /\.$/ { exit }' | sed 's/.*in this order://' | words)
check "toid(1) --all order is the ranks' ($ALL_ORDER): '$ALL_DOC'" [ "$ALL_DOC" = "$ALL_ORDER" ]
DET_DOC=$(unroff <docs/toid.1 | awk '/takes the first in this order:/ { f = 1; next } f && /^\.RE/ { exit } f' | words)
check "toid(1) detection order is the ranks' ($DETECT_ORDER): '$DET_DOC'" [ "$DET_DOC" = "$DETECT_ORDER" ]
DET8=$(unroff <docs/toidd.8 | awk '/^the order / { print; exit }' | sed 's/;.*//' | words)
check "toidd(8) detection order is the ranks' ($DETECT_ORDER): '$DET8'" [ "$DET8" = "$DETECT_ORDER" ]
DETH=$("$TOID" inspect --help | tr '\n' ' ' | sed 's/.*takes the first that reads it of://; s/;.*//' | words)
check "toid inspect --help detection order is the ranks' ($DETECT_ORDER): '$DETH'" [ "$DETH" = "$DETECT_ORDER" ]

# ---- 4. the lists the type stubs keep by hand
# quoted FILE START END: the quoted strings ('...' or "...") from the first
# line matching START to the next line (that one too) matching END, one a line
quoted() {
    awk -v start="$2" -v end="$3" '$0 ~ start { f = 1 } f { print } f && $0 ~ end { exit }' "$1" |
        grep -oE "\"[^\"]*\"|'[^']*'" | tr -d "\"'"
}
PYI=$(quoted bindings/python/toid/__init__.pyi '^FormatName *= *Literal[[]' '[]]')
check "the Python stub's FormatName lists the library's formats ($(echo $NAMES)): '$(echo $PYI)'" [ "$PYI" = "$NAMES" ]
DTS=$(quoted bindings/node/index.d.ts '^export type FormatName *=' ';')
check "the TypeScript FormatName lists the library's formats ($(echo $NAMES)): '$(echo $DTS)'" [ "$DTS" = "$NAMES" ]
# NodeFormatName: the formats whose generator takes a node (node_max > 0), in any order
NODE_NAMES=$(printf '%s\n' "$JSON" | sed -n 's/^{"name":"\([^"]*\)".*"node_max":[1-9][0-9]*,.*/\1/p' | sort)
DTS_NODE=$(quoted bindings/node/index.d.ts '^export type NodeFormatName *=' ';' | sort)
check "the TypeScript NodeFormatName lists the formats with a node_max ($(echo $NODE_NAMES)): '$(echo $DTS_NODE)'" \
    [ -n "$NODE_NAMES" -a "$DTS_NODE" = "$NODE_NAMES" ]
finish
