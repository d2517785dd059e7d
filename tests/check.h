/* check.h — the test programs' few assertion macros. Each program ends with
 * the line "N passed, N failed" and exits non-zero on any failure. */
#ifndef TOID_CHECK_H
#define TOID_CHECK_H
#include <stdio.h>
#include <string.h>

/* One program's counters. A program of several files defines
 * CHECK_COUNTERS_EXTERN before including this and defines the two counters
 * in one of them. */
#ifdef CHECK_COUNTERS_EXTERN
extern long check_passed, check_failed;
#else
static long check_passed, check_failed;
#endif

#define CHECK(cond) CHECK_MSG(cond, "%s", #cond)
#define CHECK_MSG(cond, ...) do { \
        if (cond) check_passed++; \
        else { check_failed++; fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
               fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
        CHECK_MSG(a_ == b_, "%s == %s: %lld != %lld", #a, #b, a_, b_); } while (0)
#define CHECK_EQ_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
        CHECK_MSG(strcmp(a_, b_) == 0, "%s == %s: \"%s\" != \"%s\"", #a, #b, a_, b_); } while (0)

static inline int check_report(void) {
    printf("%ld passed, %ld failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif
