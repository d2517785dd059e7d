#!/usr/bin/env bash
# versions_test.sh — one version number, CMake's project(VERSION), in every
# place that states one: toid.h's TOID_VERSION_*, toid.pc, the Debian
# changelog's latest entry, the Python package (pyproject.toml / setup.py
# and toid.__version__), the Node package.json, the PostgreSQL control file,
# and `toid --version` / `toidd --version`. A release bumps them together;
# this fails when one is left behind.
#   usage: versions_test.sh PROJECT_VERSION SOURCE_DIR BUILD_DIR
# Prints "N passed, N failed" last.
set -u
export LC_ALL=C
want=$1 src=$2 build=$3
. "$(dirname "$0")/check_lib.sh"

same() {   # same WHERE VALUE: VALUE is the project's version
    if [ "$2" = "$want" ]; then pass; else fail "$1 says '$2', CMake's project() says '$want'"; fi
}
h=$src/include/toid.h
same "toid.h TOID_VERSION_STRING" "$(sed -n 's/^#define TOID_VERSION_STRING "\(.*\)"$/\1/p' "$h")"
same "toid.h TOID_VERSION_MAJOR.MINOR.PATCH" "$(for p in MAJOR MINOR PATCH; do
    sed -n "s/^#define TOID_VERSION_$p \([0-9]*\)$/\1/p" "$h"; done | paste -sd.)"
same "toid.pc Version" "$(sed -n 's/^Version: //p' "$build/toid.pc")"
# (a native package: the version is upstream's, a Debian revision after '-' aside)
deb=$(sed -n '1s/^toid (\([^)]*\)).*/\1/p' "$src/debian/changelog")
same "debian/changelog" "${deb%%-*}"
same "ext/postgres/toid.control default_version" \
    "$(sed -n "s/^default_version = '\(.*\)'$/\1/p" "$src/ext/postgres/toid.control")"
same "bindings/node/package.json" \
    "$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$src/bindings/node/package.json")"
py=$src/bindings/python
found=0
for f in "$py/pyproject.toml" "$py/setup.py" "$py/setup.cfg"; do
    [ -f "$f" ] || continue
    for v in $(sed -n 's/^ *version *= *"\([^"]*\)".*/\1/p' "$f"); do
        same "${f#"$src"/} version" "$v"
        found=1
    done
done
v=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$py/toid/__init__.py")
same "bindings/python/toid/__init__.py __version__" "$v"
[ -n "$v" ] && found=1
check "the Python package states its version somewhere" [ "$found" = 1 ]
for tool in tools/toid server/toidd; do
    [ -x "$build/$tool" ] || continue
    same "$(basename "$tool") --version" "$("$build/$tool" --version | sed -n '1s/^[a-z]* \([^ ]*\) .*/\1/p')"
done
finish
