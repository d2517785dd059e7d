#!/bin/sh
# Size and shape of the product code (issue 13's before/after figures):
# lines of C in the library, CLI, server, claims and extensions (tests,
# benches, fuzzers and bindings left out), the ten most complex functions
# (pmccabe: modified cyclomatic complexity, statements, lines), the number
# of `duplicates` rows among product files, and sizeof(toid_gen).
# Usage: bench/code_metrics.sh [BUILD_DIR]   (run from the checkout)
set -eu
build=${1:-build}
dirs="src include tools server claim ext/postgres ext/sqlite"
files=$(git ls-files $dirs | grep -E '\.(c|h)$')
echo "product C files: $(echo "$files" | wc -l)"
echo "product C lines: $(cat $files | wc -l)"
echo "product C lines, no blank/comment-only: $(cat $files | grep -Ev '^\s*($|/?\*|//)' | wc -l)"
if command -v pmccabe >/dev/null; then
  echo "largest functions (complexity statements lines file(line): function):"
  pmccabe $(echo "$files" | grep '\.c$') 2>/dev/null | sort -k1,1nr | head -10 |
    awk '{printf "  %3s %4s %4s  %s\n", $1, $3, $5, $6 " " $7}'
fi
if command -v duplicates >/dev/null; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  for d in $dirs; do mkdir -p "$tmp/$d"; cp -r $d/. "$tmp/$d/"; done
  find "$tmp" -type f ! -name '*.c' ! -name '*.h' -delete
  echo "duplicates rows in product code: $(duplicates --repo "$tmp" --most 200 --seconds 60 | grep -c '^D')"
fi
probe=$(mktemp -d)
printf '#include <stdio.h>\n#include "toid.h"\nint main(void){printf("%%zu\\n", sizeof(toid_gen));return 0;}\n' > "$probe/p.c"
cc -Iinclude "$probe/p.c" -o "$probe/p" && echo "sizeof(toid_gen): $("$probe/p") bytes"
rm -rf "$probe"
