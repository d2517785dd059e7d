#!/usr/bin/env bash
# toidd's page in a real browser: headless Chromium (Debian's `chromium`)
# loads / from a toidd on an ephemeral loopback port, decodes a sample of
# the shared vectors and one invalid ID, generates IDs (presses Decode of
# one, Copy all), turns a time into a range, converts a UUID, reads
# /metrics; the DOM it dumps is checked by page_check.py (every decoded
# field, the bit layout against /v1/layout and the value's bits in a closed
# <details>, UTC and local time in a fixed zone, relative ages, the list of
# new IDs and its buttons, the range and the conversion against the toid
# CLI, the tab order, the chart). Once more with prefers-color-scheme: dark
# (--force-dark-mode): the page says so and its colours change. Also, with
# curl: the page's headers (CSP without inline script or eval,
# Content-Type, caching), its files (nothing from elsewhere), /v1/layout of
# every format. Two screenshots are kept as artifacts:
# ARTIFACT_DIR/server_page.png (light) and server_page_dark.png (dark).
#   usage: run_page_tests.sh TOIDD_BINARY VECTORS_DIR ARTIFACT_DIR [TOID_BINARY]
# (without TOID_BINARY the range and the conversion are compared with the
# server's /v1/range and /v1/convert, which server.range and server.convert
# compare with the CLI)
# Exits 77 (skipped, saying why) only where chromium is not installed or
# cannot start. Prints "N passed, N failed" last.
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/test_lib.sh"

if [ $# -lt 3 ] || [ $# -gt 4 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TOIDD_BINARY VECTORS_DIR ARTIFACT_DIR [TOID_BINARY]" >&2
    exit 2
fi
TOIDD=$1
VEC=$2
ART=$3
TOID_CLI=${4:-}
WORK=$(mktemp -d)
. "$(dirname "$0")/../test_registry.sh"   # $REGISTRY: where the node formats claim
trap cleanup_work EXIT
need_tools curl timeout

# ---- can Chromium start here? ----------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIPPED: chromium is not installed (apt-get install chromium; see the README)"
    exit 77
fi
# as root Chromium refuses its sandbox; the page is our own, loaded from loopback
SANDBOX=()
[ "$(id -u)" = 0 ] && SANDBOX=(--no-sandbox)
browse() {   # browse PROFILE_NAME ARGS... : headless Chromium, bounded
    timeout -k 10 120 "$CHROMIUM" --headless "${SANDBOX[@]}" --disable-gpu --no-first-run \
        --no-default-browser-check --disable-extensions --disable-dev-shm-usage --mute-audio \
        --user-data-dir="$WORK/profile-$1" "${@:2}" 2>>"$WORK/chromium.log"
}
if ! browse probe --dump-dom 'data:text/html,<p id=x>up</p>' | grep -q '<p id="x">up</p>'; then
    if [ ${#SANDBOX[@]} -eq 0 ] && browse probe2 --no-sandbox --dump-dom 'data:text/html,<p id=x>up</p>' |
        grep -q '<p id="x">up</p>'; then
        SANDBOX=(--no-sandbox)     # no user namespaces for the sandbox here
    else
        echo "SKIPPED: chromium cannot start here:"
        tail -5 "$WORK/chromium.log"
        exit 77
    fi
fi

mkdir -p "$WORK/state"
if ! start page --state-dir "$WORK/state"; then
    fail "toidd did not start"
    cat "$LOG"
    finish
fi
URL=http://127.0.0.1:$HP

# ---- the page's files and headers, with curl -----------------------------------
head_of() { curl -s -o /dev/null -D - "$@" | tr -d '\r'; }
h=$(head_of "$URL/")
check "/ is 200" grep -q '^HTTP/1.1 200' <<<"$h"
check "/ is HTML" grep -qi '^Content-Type: text/html; charset=utf-8$' <<<"$h"
csp=$(sed -n 's/^Content-Security-Policy: //Ip' <<<"$h")
check "/ has a Content-Security-Policy" [ -n "$csp" ]
check "CSP: scripts from the server only" grep -q "script-src 'self'" <<<"$csp"
check "CSP: nothing else by default" grep -q "default-src 'none'" <<<"$csp"
check "CSP: no inline script or eval" bash -c "! grep -qi 'unsafe' <<<\"\$1\"" _ "$csp"
check "CSP: not framed" grep -q "frame-ancestors 'none'" <<<"$csp"
check "/ nosniff" grep -qi '^X-Content-Type-Options: nosniff$' <<<"$h"
check "/ revalidated (no-cache)" grep -qi '^Cache-Control: no-cache$' <<<"$h"
check "/app.js is JavaScript" grep -qi '^Content-Type: text/javascript' <<<"$(head_of "$URL/app.js")"
check "/style.css is CSS" grep -qi '^Content-Type: text/css' <<<"$(head_of "$URL/style.css")"
check "HEAD / is 200" grep -q '^HTTP/1.1 200' <<<"$(head_of -I "$URL/")"
curl -s "$URL/" >"$WORK/index.html"
curl -s "$URL/app.js" >"$WORK/app.js"
curl -s "$URL/style.css" >"$WORK/style.css"
check "/ has a body" grep -q '<script src="/app.js" defer></script>' "$WORK/index.html"
check "no inline script" bash -c '! grep -Eiq "<script>|<script [^>]*>[^<]" "$1"' _ "$WORK/index.html"
check "no inline style or handlers" bash -c '! grep -Eiq "<style|style=| on[a-z]+=" "$1"' _ "$WORK/index.html"
check "nothing loaded from elsewhere" bash -c \
    '! grep -Eiq "(src|href)=\"(https?:)?//|@import|url\(" "$1" "$2"' _ "$WORK/index.html" "$WORK/style.css"
check "the script fetches this server only" bash -c \
    '! grep -Eq "fetch\((.https?:|.//)|XMLHttpRequest|eval\(|new Function|import\(" "$1"' _ "$WORK/app.js"
check "the style has a dark scheme" grep -q '@media (prefers-color-scheme: dark)' "$WORK/style.css"
check "the style shows the keyboard focus" grep -Eq '^:focus-visible \{ outline: [0-9]+px solid' "$WORK/style.css"
check "no positive tabindex in the HTML" bash -c '! grep -Eq "tabindex=\"?[1-9]" "$1"' _ "$WORK/index.html"
check "an unknown path is still 404" [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/nope.js")" = 404 ]
# every format the server has (/v1/formats)
for f in $(curl -s "$URL/v1/formats" | grep -o '"name":"[^"]*"' | cut -d'"' -f4); do
    curl -s -D "$WORK/lh" "$URL/v1/layout/$f" >"$WORK/layout.json"
    check "/v1/layout/$f is JSON" grep -qi '^Content-Type: application/json' "$WORK/lh"
    check "/v1/layout/$f covers every bit once" "$PY" -c '
import json, sys
l = json.load(open(sys.argv[1]))
at = 0
for f in l["fields"]:
    assert f["bit_offset"] == at, f
    at += f["bit_width"]
assert at == 8 * l["bin_size"] and l["format"] == sys.argv[2]
' "$WORK/layout.json" "$f"
done
check "/v1/layout of an unknown format is 404" \
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/layout/nope")" = 404 ]
check "ulid's layout" grep -q '"fields":\[{"name":"unix_ms","kind":"time","described":true,"bit_offset":0,"bit_width":48,"char_start":0,"char_len":10},{"name":"random","kind":"field","described":true,"bit_offset":48,"bit_width":80,"char_start":10,"char_len":16}\]' \
    <<<"$(curl -s "$URL/v1/layout/ulid")"

# IDs for the chart to count (the page reads /metrics when it loads)
check "100 ulids served" [ "$(curl -s "$URL/v1/new/ulid?count=100" | wc -l)" -eq 100 ]

# ---- the page in Chromium --------------------------------------------------------
FRAG=$("$PY" "$HERE/page_check.py" fragment "$VEC")
# a zone with a half-hour offset and no daylight saving: local times are exact
export TZ=Asia/Kolkata
# the relative ages in English; the colour scheme asked for (light: the
# default, said so that a dark desktop does not change it)
LIGHT=(--lang=en-US --blink-settings=preferredColorScheme=1)
DARK=(--lang=en-US --force-dark-mode)
dump() {   # dump OUT_FILE URL FLAGS...: the DOM once the page says it is ready
    local budget
    for budget in 10000 30000; do   # virtual time; a busy machine gets a second go
        browse dom --virtual-time-budget=$budget "${@:3}" --dump-dom "$2" >"$1"
        grep -q 'data-ready="1"' "$1" && return 0
    done
    return 1
}
check "the page finished loading in Chromium" dump "$WORK/dom.html" "$URL/#$FRAG" "${LIGHT[@]}"
if "$PY" "$HERE/page_check.py" dom "$HP" "$VEC" "$WORK/dom.html" 330 $TOID_CLI >"$WORK/check.out"; then
    pass
else
    fail "the DOM after decoding the vectors:"
    grep -v '^[0-9]* passed' "$WORK/check.out" | head -40
fi
tail -1 "$WORK/check.out"

# any UUID: a version 4 (what uuid.uuid4().hex prints) and RFC 9562's version 1
check "UUIDs of other versions: the page finished loading" dump "$WORK/uuid.html" \
    "$URL/#decode=2e7ba44190db4ba793e6eabc19b33fb6,C232AB00-9414-11EC-B3C8-9F6BDECED846" "${LIGHT[@]}"
check "a UUIDv4: a uuid card, no time, scru160 noted, no bits; a UUIDv1 with its time" \
    "$PY" -c '
import re, sys
dom = open(sys.argv[1]).read()
cards = re.findall(r"<article class=\"card\"[^>]*data-format=\"uuid\"[^>]*>.*?</article>", dom, re.S)
assert len(cards) == 2, len(cards)
v4 = [c for c in cards if "data-text=\"2e7ba441-90db-4ba7-93e6-eabc19b33fb6\"" in c][0]
assert "data-time=\"none\"" in v4 and "version 4 holds none" in v4, v4
assert "Also a valid scru160" in v4 and "<details" not in v4, v4
v1 = [c for c in cards if "data-text=\"c232ab00-9414-11ec-b3c8-9f6bdeced846\"" in c][0]
assert "2022-02-22T19:22:22.000Z" in v1 and "data-field=\"clock_seq\"" in v1, v1
' "$WORK/uuid.html"

# pasted as people paste: padding, CRLF lines, a blank line, a tab (psql
# output, a Windows file): two IDs decoded, nothing refused
check "pasted IDs with padding, CRLF and blank lines: the page finished loading" dump "$WORK/paste.html" \
    "$URL/#decode=%20%2001ARZ3NDEKTSV4RRFFQ69G5FAV%20%0D%0A%0D%0A%09017f22e2-79b0-7cc3-98c4-dc0c0c07398f%0D%0A" "${LIGHT[@]}"
check "pasted IDs with padding, CRLF and blank lines: two cards, no error" \
    "$PY" -c '
import re, sys
dom = open(sys.argv[1]).read()
cards = re.findall(r"<article class=\"card[^\"]*\"[^>]*>", dom)
assert len(cards) == 2, cards
assert "data-text=\"01ARZ3NDEKTSV4RRFFQ69G5FAV\"" in dom and "data-text=\"017f22e2-79b0-7cc3-98c4-dc0c0c07398f\"" in dom
assert "class=\"card error" not in dom, "an error card"
' "$WORK/paste.html"

# prefers-color-scheme: dark
DFRAG=$("$PY" "$HERE/page_check.py" fragment-dark "$HP")
check "the page finished loading in Chromium, dark" dump "$WORK/dark.html" "$URL/#$DFRAG" "${DARK[@]}"
if "$PY" "$HERE/page_check.py" dark "$HP" "$WORK/dom.html" "$WORK/dark.html" $TOID_CLI >"$WORK/dark.out"; then
    pass
else
    fail "the DOM in the dark scheme:"
    grep -v '^[0-9]* passed' "$WORK/dark.out" | head -20
fi
tail -1 "$WORK/dark.out"

# screenshots, light and dark, kept for people to look at: two IDs decoded
# and an error, new IDs, a range, a conversion (tall enough for the chart)
mkdir -p "$ART"
SHOT="$URL/#decode=017f22e2-79b0-7cc3-98c4-dc0c0c07398f,uid11-seq/hR3jDfnAH3W,hello!&new=$(
    sed 's/^.*&new=\([^&]*\)&.*$/\1/' <<<"$FRAG")&$(sed 's/^decode=[^&]*&//' <<<"$DFRAG")"
for scheme in light dark; do
    png=$ART/server_page.png
    [ $scheme = dark ] && png=$ART/server_page_dark.png
    rm -f "$png"
    if [ $scheme = dark ]; then flags=("${DARK[@]}"); else flags=("${LIGHT[@]}"); fi
    browse "shot-$scheme" --hide-scrollbars --window-size=1200,2600 --virtual-time-budget=10000 \
        "${flags[@]}" --screenshot="$png" "$SHOT" >/dev/null
    check "a screenshot ($scheme): $png" bash -c \
        '[ "$(head -c 8 "$1" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$1")" -gt 20000 ]' \
        _ "$png"
done

check "toidd still serves" [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")" = 200 ]
stop
check "toidd stopped cleanly" [ "$STATUS" = 0 ]
finish
