#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS (default 600) each, JOBS (default 2)
# at a time, each on a working corpus in fuzz-out/ seeded from fuzz/corpus/.
# Prints each target's last status line (exec count, coverage).
#   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTOID_BUILD_FUZZ=ON \
#         -DTOID_SANITIZE=address,undefined -DTOID_BUILD_TESTS=OFF -DTOID_BUILD_BENCH=OFF
#   cmake --build build-fuzz && fuzz/campaign.sh build-fuzz/fuzz 600
set -euo pipefail
bin=${1:-build-fuzz/fuzz}
secs=${2:-600}
jobs=${JOBS:-2}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-fuzz-out}
mkdir -p "$out"
run() {
    local t=$1
    mkdir -p "$out/$t"
    "$bin/$t" -max_total_time="$secs" -print_final_stats=1 -timeout=5 -artifact_prefix="$out/$t-" \
        "$out/$t" "$here/corpus/$t" >"$out/$t.log" 2>&1 || { echo "$t: FAILED (see $out/$t.log)"; return 1; }
    echo "$t: $(grep -E '^#[0-9]+' "$out/$t.log" | tail -n 1)  $(grep stat::number_of_executed_units "$out/$t.log")"
}
export -f run
export bin secs out here
ls "$here/corpus" | xargs -P "$jobs" -I{} bash -c 'run {}'
