#!/usr/bin/env bash
# ctest "sqlite_install": cmake --install puts the extension at
# <prefix>/<libdir>/toid/toid.so (DESTDIR honoured), it exports only its
# entry point, and the installed file loads in the sqlite3 shell.
#   usage: install_check.sh BUILD_DIR
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=/opt/toid-sqlite-test
DESTDIR="$work/stage" cmake --install "$build" --prefix "$prefix" >/dev/null
so=$(find "$work/stage$prefix" -path '*/toid/toid.so')
[ -n "$so" ] || { echo "FAIL: no <libdir>/toid/toid.so under $prefix"; exit 1; }
exported=$(nm -D --defined-only "$so" | awk '{print $3}')
[ "$exported" = sqlite3_toid_init ] || { echo "FAIL: exported: $exported"; exit 1; }
if command -v sqlite3 >/dev/null; then
    got=$(cd "$(dirname "$so")" && sqlite3 :memory: ".load ./toid" "SELECT length(toid_new('ulid'))")
    [ "$got" = 26 ] || { echo "FAIL: the installed toid.so did not load: $got"; exit 1; }
fi
echo "ok: installed ${so#"$work/stage"}, exports only sqlite3_toid_init"
