/* count_dups.h — the thread and process tests' duplicate count: IDs in
 * 20-byte slots (an ID of any format, zero-padded), sorted in place. */
#ifndef TOID_TEST_COUNT_DUPS_H
#define TOID_TEST_COUNT_DUPS_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int count_dups_cmp(const void *a, const void *b) { return memcmp(a, b, 20); }

/* How many of the n slots repeat the one before them once sorted. */
static inline long count_dups(uint8_t *slots, long n) {
    qsort(slots, (size_t)n, 20, count_dups_cmp);
    long dups = 0;
    for (long i = 1; i < n; i++)
        dups += memcmp(slots + 20 * (i - 1), slots + 20 * i, 20) == 0;
    return dups;
}
#endif
