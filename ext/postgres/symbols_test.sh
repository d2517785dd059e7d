#!/usr/bin/env bash
# symbols_test.sh — no name the module takes from a shared library of its
# own (jansson, libc, ...) is also exported by the postgres executable: the
# dynamic linker would bind the module's call to postgres's function of that
# name instead. (It did: postgres's SQL function json_object() took the
# place of jansson's, and the claims worker crashed at its first etcd call.)
#   usage: symbols_test.sh MODULE.so POSTGRES_EXECUTABLE
# Prints "N passed, N failed" last.
set -uo pipefail
export LC_ALL=C
mod=$1 pg=$2
. "$(dirname "$(readlink -f "$0")")/../../tests/check_lib.sh"
names() { sed 's/@.*//' | sort -u; }
nm -D --undefined-only "$mod" | awk '{print $NF}' | names >"${TMPDIR:-/tmp}/toid-sym.$$.und"
nm -D --defined-only "$pg" | awk '{print $NF}' | names >"${TMPDIR:-/tmp}/toid-sym.$$.pg"
libs=$(ldd "$mod" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
check "the module needs shared libraries ($(echo $libs))" [ -n "$libs" ]
for lib in $libs; do
    # (functions only: a variable such as stderr is one object, copied into
    # the executable by design)
    clash=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ {print $NF}' | names |
        comm -12 - "${TMPDIR:-/tmp}/toid-sym.$$.und" | comm -12 - "${TMPDIR:-/tmp}/toid-sym.$$.pg" | tr '\n' ' ')
    check "no name taken from $(basename "$lib") is also postgres's (${clash:-none})" [ -z "$clash" ]
done
rm -f "${TMPDIR:-/tmp}/toid-sym.$$".*
finish
