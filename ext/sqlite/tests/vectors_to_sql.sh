#!/usr/bin/env bash
# Writes the conformance vectors' successful decodes (shared/vectors/*.tsv,
# lines "<format> decode <text> ok unix_ms=.. hex=..") as SQL: a table
# vec(format, text, unix_ms, hex) for the golden script. Lines whose text
# has an escape (\xHH, \\) are left to the Python test, which unescapes.
set -euo pipefail
vectors=$1
echo "CREATE TABLE vec(format TEXT, text TEXT, unix_ms INTEGER, hex TEXT);"
echo "BEGIN;"
for f in "$vectors"/*.tsv; do
    awk -F '\t' '
        $1 !~ /^#/ && $2 == "decode" && $4 ~ /^ok / && $3 !~ /[\\'"'"']/ {
            ms = ""; hex = ""
            n = split(substr($4, 4), kv, " ")
            for (i = 1; i <= n; i++) {
                if (kv[i] ~ /^unix_ms=/) ms = substr(kv[i], 9)
                if (kv[i] ~ /^hex=/) hex = substr(kv[i], 5)
            }
            printf "INSERT INTO vec VALUES('"'"'%s'"'"', '"'"'%s'"'"', %s, '"'"'%s'"'"');\n", $1, $3, ms, hex
        }' "$f"
done
echo "COMMIT;"
