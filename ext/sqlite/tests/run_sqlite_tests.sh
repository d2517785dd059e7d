#!/usr/bin/env bash
# ctest "sqlite": the SQLite extension through (1) the sqlite3 shell, output
# compared with golden.expected, and (2) Python's sqlite3 module (Debian's
# /usr/bin/python3: the pyenv one on PATH may lack enable_load_extension).
# Node formats claim their nodes in a registry of the test's own
# (tests/test_registry.sh), never in the machine's.
# Usage: run_sqlite_tests.sh path/to/toid.so path/to/shared/vectors
# Skips (exit 77) only when neither sqlite3 nor a usable python3 exists.
set -euo pipefail
module=$(realpath "$1")
vectors=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
python=${TOID_SQLITE_PYTHON:-/usr/bin/python3}

# An ASan build of the module needs the runtime preloaded (CMake sets this);
# leak reports would be about sqlite3's and Python's own allocations.
run=(env)
if [ -n "${TOID_SQLITE_PRELOAD:-}" ]; then
    run=(env "LD_PRELOAD=$TOID_SQLITE_PRELOAD" "ASAN_OPTIONS=detect_leaks=0")
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ran=0
WORK=$tmp
. "$here/../../../tests/test_registry.sh"

if command -v sqlite3 >/dev/null; then
    ln -s "$module" "$tmp/toid.so"
    "$here/vectors_to_sql.sh" "$vectors" >"$tmp/vectors.sql"
    # stdout line-buffered so that errors (stderr) land between the outputs
    # in the order the statements ran
    (cd "$tmp" && "${run[@]}" stdbuf -oL sqlite3 :memory: <"$here/golden.sql" >"$tmp/golden.out" 2>&1) || true
    if ! diff -u "$here/golden.expected" "$tmp/golden.out"; then
        echo "FAIL: sqlite3 shell output differs from golden.expected (diff above)" >&2
        [ -n "${TOID_SQLITE_KEEP:-}" ] && cp "$tmp/golden.out" "$TOID_SQLITE_KEEP"
        exit 1
    fi
    echo "ok: sqlite3 shell, golden output"
    ran=1
else
    echo "SKIP: sqlite3 shell not installed (Debian: sqlite3): golden test not run"
fi

if [ -x "$python" ] && "$python" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)' 2>/dev/null; then
    "${run[@]}" "$python" "$here/test_sqlite.py" "$module" "$vectors"
    ran=1
else
    echo "SKIP: $python with sqlite3.enable_load_extension not found: Python test not run"
fi

[ "$ran" = 1 ] || exit 77
