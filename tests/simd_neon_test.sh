#!/usr/bin/env bash
# simd_neon_test.sh — the NEON codecs (src/codec_simd_neon.c) run for real on
# an x86-64 machine: the whole library cross-compiled for aarch64 with
# -Werror (so gen.c, chacha20.c and the rest build there too), linked
# statically with tests/test_simd.c (NEON against the scalar code on the same
# inputs; it checks that the level is 1 on aarch64, so the NEON path did run),
# test_vectors (the conformance vectors, on the NEON path and with
# TOID_SIMD=off), test_api, test_entropy (ChaCha20's portable path there)
# and test_gen, and fuzz_simd with the replay driver over its corpus, each
# run under qemu-aarch64. Skips (77) only when the cross compiler or qemu is
# not installed: apt-get install -y gcc-aarch64-linux-gnu qemu-user.
#   usage: tests/simd_neon_test.sh SOURCE_DIR VECTORS_DIR LIBRARY_SOURCE...
#          (the library's sources relative to SOURCE_DIR, as CMake lists them)
set -euo pipefail
src=$1 vectors=$2
shift 2
cc=aarch64-linux-gnu-gcc qemu=qemu-aarch64
for tool in "$cc" "$qemu"; do
    if ! command -v "$tool" >/dev/null; then
        echo "simd.neon: SKIP: $tool is not installed (apt-get install -y gcc-aarch64-linux-gnu qemu-user)"
        exit 77
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
       -I"$src/include" -I"$src/src")

# the library: every source, as a static archive
objs=()
for f in "$@"; do
    o=$work/$(basename "$f" .c).o
    "$cc" "${flags[@]}" -c "$src/$f" -o "$o"
    objs+=("$o")
done
aarch64-linux-gnu-ar rcs "$work/libtoid.a" "${objs[@]}"
defines=$("$cc" -dM -E -x c /dev/null)     # (no grep -q in a pipe: under pipefail its early exit fails the writer)
[[ $defines == *"#define __ARM_NEON 1"* ]] || { echo "simd.neon: $cc does not target NEON" >&2; exit 1; }

link() {    # NAME SOURCE... -> $work/NAME, static
    local name=$1
    shift
    "$cc" "${flags[@]}" -static -pthread "$@" "$work/libtoid.a" -o "$work/$name"
}
link test_simd "$src/tests/test_simd.c"
for t in test_vectors test_api test_entropy test_gen; do
    link "$t" "$src/tests/$t.c"
done
link fuzz_simd -I"$src/fuzz" "$src/fuzz/fuzz_simd.c" "$src/fuzz/replay.c"

# a check.h program: exit status 0 and its last line "N passed, 0 failed";
# its output is left in $out
run() {     # LABEL COMMAND...
    local label=$1 status=0
    shift
    out=$("$@" 2>&1) || status=$?
    printf '%s\n' "$out" | sed "s/^/$label: /"
    if [ "$status" -ne 0 ] || ! [[ $out =~ (^|$'\n')[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
        echo "simd.neon: FAIL: $label (exit status $status)" >&2
        exit 1
    fi
}
run test_simd "$qemu" "$work/test_simd" 50000
if ! [[ $out =~ (^|$'\n')"simd level 1: " ]]; then
    echo "simd.neon: FAIL: test_simd did not run at level 1 (NEON)" >&2
    exit 1
fi
# (the repository's own vectors too: the read-only variants)
run test_vectors "$qemu" "$work/test_vectors" "$vectors" "$src/tests/vectors"
run test_vectors.scalar env TOID_SIMD=off "$qemu" "$work/test_vectors" "$vectors" "$src/tests/vectors"
for t in test_api test_entropy test_gen; do
    run "$t" "$qemu" "$work/$t"
done
"$qemu" "$work/fuzz_simd" "$src/fuzz/corpus/fuzz_simd" | sed 's/^/fuzz_simd: /'
echo "simd.neon: the library builds for aarch64 with -Werror; NEON codecs agree with the scalar ones under qemu"
