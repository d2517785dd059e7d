/*
 * format_table.c — prints the library's format list for gen_sql.sh, one
 * format a line: SQL-token name bin_size int_max. Built and run at build
 * time, so the SQL script follows the library's TOID_FORMAT_LIST.
 */
#include "toid.h"

#include <inttypes.h>
#include <stdio.h>

int main(void) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const toid_format_info *info = toid_format_get((toid_format)f);
        if (!info->generates)
            continue;   /* the read-only variants of reference libraries get no SQL type (README) */
        char tok[64];
        size_t i;
        for (i = 0; info->name[i] && i < sizeof tok - 1; i++)
            tok[i] = info->name[i] == '-' ? '_' : info->name[i];
        tok[i] = '\0';
        printf("%s %s %u %" PRIu64 "\n", tok, info->name, info->bin_size, info->int_max);
    }
    return 0;
}
