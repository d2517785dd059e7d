#!/usr/bin/env bash
# Folds a campaign's working corpora (fuzz-out/<target>) into the repository's
# corpora (fuzz/corpus/<target>) with libFuzzer's -merge=1, which keeps only
# inputs that add coverage, so the replay in CI stays small.
#   usage: fuzz/merge-corpus.sh BUILD_FUZZ_DIR [CAMPAIGN_DIR]   (defaults build-fuzz/fuzz, fuzz-out)
set -euo pipefail
bin=${1:-build-fuzz/fuzz}
out=${2:-fuzz-out}
here=$(cd "$(dirname "$0")" && pwd)
for dir in "$here"/corpus/*/; do
    t=$(basename "$dir")
    [ -x "$bin/$t" ] && [ -d "$out/$t" ] || continue
    tmp=$(mktemp -d)
    "$bin/$t" -merge=1 "$tmp" "$dir" "$out/$t" >/dev/null 2>&1
    rm -f "$dir"/*
    for f in "$tmp"/*; do cp "$f" "$dir/$(basename "$f")"; done
    rm -rf "$tmp"
    echo "$t: $(ls "$dir" | wc -l) inputs"
done
