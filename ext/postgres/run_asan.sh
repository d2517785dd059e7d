#!/usr/bin/env bash
# run_asan.sh — the extension's tests with AddressSanitizer: libtoid and the
# extension built with -fsanitize=address in their own build tree, libasan
# preloaded into the server (PostgreSQL itself is not instrumented, and
# palloc'd memory is not tracked: this catches the library's and the
# extension's own stack, global and malloc errors). Not part of CI.
#
# usage: ext/postgres/run_asan.sh [BUILD_DIR]   (default: build-pg-asan)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-pg-asan}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTOID_SANITIZE=address \
      -DTOID_BUILD_TESTS=OFF -DTOID_BUILD_BENCH=OFF -DTOID_BUILD_TOOLS=OFF -DTOID_BUILD_SERVER=OFF >/dev/null
cmake --build "$build" -j2 --target toid_static >/dev/null
asan_lib=$(gcc -print-file-name=libasan.so)
mkdir -p "$build/ext/postgres"
args=(-f "$root/ext/postgres/Makefile" PG_CONFIG="${PG_CONFIG:-pg_config}" TOID_LIB="$build/libtoid.a"
      TOID_INCLUDE="$root/include" with_llvm=no
      PG_CFLAGS="-fsanitize=address -fno-omit-frame-pointer" SHLIB_LINK_EXTRA=-fsanitize=address)
make -C "$build/ext/postgres" "${args[@]}" >/dev/null
rm -rf "$build/asan-logs" && mkdir -p "$build/asan-logs" && chmod 777 "$build/asan-logs"
export TOID_PG_SERVER_ENV="LD_PRELOAD=$asan_lib ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:log_path=$build/asan-logs/asan"
status=0
"$root/ext/postgres/run_tests.sh" "$build/ext/postgres" "${args[@]}" || status=1
if ls "$build/asan-logs" | grep -q .; then
    cat "$build"/asan-logs/*
    echo "AddressSanitizer reported errors" >&2
    status=1
else
    echo "AddressSanitizer: no reports"
fi
exit $status
