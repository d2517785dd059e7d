#!/usr/bin/env bash
# Installs the build into a DESTDIR staging tree and builds a consumer against
# it three ways: pkg-config, CMake find_package (shared and static). Checks the
# SONAME, that only toid_* symbols are exported, and that nothing lands
# outside the prefix (the PostgreSQL extension is skipped, saying so).
#   usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=/opt/toid-test
DESTDIR="$work/stage" cmake --install "$build" --prefix "$prefix" >"$work/install.log"
root="$work/stage$prefix"
# nothing outside the prefix: the PostgreSQL extension (whose directories
# are under /usr) is skipped, saying so
outside=$(cd "$work/stage" && find . -mindepth 1 -maxdepth 2 | grep -v "^\.$(dirname "$prefix")\$" |
    grep -v "^\.$prefix\$" || true)
[ -z "$outside" ] || { echo "installed outside the prefix $prefix: $outside"; exit 1; }
if [ -d "$build/ext/postgres" ] && [ -f "$build/ext/postgres/toid.so" ]; then
    grep -q "PostgreSQL extension: not installed: PostgreSQL reads it from .*, outside the prefix $prefix" \
        "$work/install.log" || { echo "no word on the skipped PostgreSQL extension"; exit 1; }
fi
lib=$(ls -d "$root"/lib*/ | head -n 1)
test -f "$root/include/toid.h"
test -f "$lib/libtoid.a"
soname=$(objdump -p "$lib"/libtoid.so | awk '/SONAME/ {print $2}')
[ "$soname" = "libtoid.so.1" ] || { echo "SONAME is '$soname'"; exit 1; }
bad=$(nm -D --defined-only "$lib"/libtoid.so | awk '{print $3}' | grep -v '^toid_' || true)
[ -z "$bad" ] || { echo "exported beyond the header: $bad"; exit 1; }
# pkg-config (the .pc is relocatable: it finds the staging tree itself)
export PKG_CONFIG_PATH="$lib/pkgconfig"
flags=$(pkg-config --cflags --libs toid)
test -f "$(pkg-config --variable=includedir toid)/toid.h"
test -f "$(pkg-config --variable=libdir toid)/libtoid.so"
cc "$src/tests/consumer/main.c" $flags -Wl,-rpath,"$lib" -o "$work/pc"
[ "$("$work/pc")" = 01ARZ3NDEKTSV4RRFFQ69G5FAV ]
# CMake package
cmake -S "$src/tests/consumer" -B "$work/cb" -DCMAKE_PREFIX_PATH="$root" >/dev/null
cmake --build "$work/cb" >/dev/null
[ "$("$work/cb/consumer_shared")" = 01ARZ3NDEKTSV4RRFFQ69G5FAV ]
[ "$("$work/cb/consumer_static")" = 01ARZ3NDEKTSV4RRFFQ69G5FAV ]
# the systemd unit, its ExecStart at the installed toidd; the completions
if [ -f "$build/server/toidd" ]; then
    grep -qx "ExecStart=$prefix/sbin/toidd --state-dir \${STATE_DIRECTORY}" "$root/lib/systemd/system/toidd.service"
    # the host's node registry: its group, and a way through ProtectSystem
    grep -qx "SupplementaryGroups=toid" "$root/lib/systemd/system/toidd.service"
    grep -qx "ReadWritePaths=/var/lib/toid/claims" "$root/lib/systemd/system/toidd.service"
fi
test -x "$root/sbin/toid-registry-setup"
# a staged install (DESTDIR) sets no registry up on this machine
if [ ! -e /var/lib/toid/claims ]; then
    test ! -e "$work/stage/var/lib/toid/claims"
fi
if [ -d "$build/tools" ]; then
    test -f "$root/share/bash-completion/completions/toid"
    test -f "$root/share/zsh/site-functions/_toid"
    test -f "$root/share/fish/vendor_completions.d/toid.fish"
fi
echo "install: ok (SONAME $soname, pkg-config, find_package shared+static)"
