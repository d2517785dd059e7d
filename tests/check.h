/* check.h — the test programs' assertion macros and named cases.
 *
 * A program defines its cases with TEST_CASE(name) { ... } (at the start of
 * a line: tests/CMakeLists.txt finds them there and makes each one the ctest
 * test PREFIX.name) and hands main to check_main:
 *     prog            runs every case, in source order
 *     prog NAME...    runs the named cases
 *     prog --list     prints the case names, one a line
 * Arguments that are not case-shaped words (paths, numbers) are the
 * program's own parameters, given to its setup function (a program without
 * one takes none). Each case prints
 * "ok NAME (N checks)" or "FAIL NAME (F of N checks failed)"; the last line
 * is "N passed, N failed" counting cases, and the exit status is 1 if any
 * case failed (77 if every case run skipped). A failed CHECK fails its case
 * and the case goes on; a case that checks nothing fails. */
#ifndef TOID_CHECK_H
#define TOID_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One program's counters and cases. A program of several files defines
 * CHECK_COUNTERS_EXTERN before including this, and CHECK_DEFINITIONS once
 * at file level in one of them. */
#ifdef CHECK_COUNTERS_EXTERN
#define CHECK_STORAGE extern
#else
#define CHECK_STORAGE static
#endif
CHECK_STORAGE long check_passed, check_failed;

#define CHECK(cond) CHECK_MSG(cond, "%s", #cond)
/* For the loops over every format that make IDs: the read-only variants
 * (nanoflake-ref24, uid11-ref44) have no generator (needs toid.h). */
#define GENERATES(f) (toid_format_get((toid_format)(f))->generates)
#define CHECK_MSG(cond, ...) do { \
        if (cond) check_passed++; \
        else { check_failed++; fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
               fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
        CHECK_MSG(a_ == b_, "%s == %s: %lld != %lld", #a, #b, a_, b_); } while (0)
#define CHECK_EQ_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
        CHECK_MSG(strcmp(a_, b_) == 0, "%s == %s: \"%s\" != \"%s\"", #a, #b, a_, b_); } while (0)

/* The assertion counts so far ("N passed, N failed"); 1 if any failed. For
 * a program that stops early (exit(check_report())), or one without cases. */
static inline int check_report(void) {
    printf("%ld passed, %ld failed (checks)\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

/* ---- named cases ------------------------------------------------------- */

typedef struct {
    const char *name;
    void (*run)(void);
    const char *file;
    int file_rank;      /* files in the order their first case registered */
    int line;
} check_case;

#define CHECK_MAX_CASES 64
CHECK_STORAGE check_case check_cases[CHECK_MAX_CASES];
CHECK_STORAGE int check_case_count;
/* set by check_skip while a case runs */
CHECK_STORAGE const char *check_skip_reason;
#define CHECK_DEFINITIONS \
    long check_passed, check_failed; \
    check_case check_cases[CHECK_MAX_CASES]; \
    int check_case_count; \
    const char *check_skip_reason

/* Defines the case NAME (a lower-case C identifier) and registers it before
 * main runs; the body follows the macro as a function body. */
#define TEST_CASE(name) \
    static void test_case_##name(void); \
    __attribute__((constructor)) static void test_case_register_##name(void) { \
        check_register(#name, test_case_##name, __FILE__, __LINE__); } \
    static void test_case_##name(void)

static inline void check_register(const char *name, void (*run)(void), const char *file, int line) {
    if (check_case_count == CHECK_MAX_CASES) {
        fprintf(stderr, "check.h: more than %d cases (raise CHECK_MAX_CASES)\n", CHECK_MAX_CASES);
        abort();
    }
    int rank = 0;     /* a new file's: one past the last file's */
    for (int i = 0; i < check_case_count; i++) {
        if (strcmp(check_cases[i].file, file) == 0) {
            rank = check_cases[i].file_rank;
            break;
        }
        if (check_cases[i].file_rank >= rank)
            rank = check_cases[i].file_rank + 1;
    }
    check_cases[check_case_count++] = (check_case){name, run, file, rank, line};
}

/* Ends the running case as skipped (the case returns by itself after this):
 * for a part that is not installed, saying why. */
static inline void check_skip(const char *why) {
    check_skip_reason = why;
    printf("SKIP: %s\n", why);
}

static inline int check_case_order(const void *a, const void *b) {
    const check_case *x = a, *y = b;
    if (x->file_rank != y->file_rank)
        return x->file_rank - y->file_rank;
    return (x->line > y->line) - (x->line < y->line);
}

/* A word made like a case name: a lower-case letter, then [a-z0-9_]. */
static inline int check_case_shaped(const char *s) {
    if (!(*s >= 'a' && *s <= 'z'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static inline const check_case *check_find(const char *name) {
    for (int i = 0; i < check_case_count; i++)
        if (strcmp(check_cases[i].name, name) == 0)
            return &check_cases[i];
    return NULL;
}

/* Runs one case, prints its line; 0 passed, 1 failed, 2 skipped. */
static inline int check_run(const check_case *c) {
    long passed = check_passed, failed = check_failed;
    check_skip_reason = NULL;
    fflush(stdout);
    c->run();
    fflush(stderr);
    long n = check_passed - passed + check_failed - failed, bad = check_failed - failed;
    if (bad) {
        printf("FAIL %s (%ld of %ld checks failed)\n", c->name, bad, n);
        return 1;
    }
    if (check_skip_reason) {
        printf("skip %s: %s\n", c->name, check_skip_reason);
        return 2;
    }
    if (n == 0) {
        printf("FAIL %s (it checked nothing)\n", c->name);
        return 1;
    }
    printf("ok   %s (%ld checks)\n", c->name, n);
    return 0;
}

/* The whole main of a test program. setup (may be NULL) gets the
 * parameters and returns 0, or an exit status (2: usage) to stop before any
 * case; teardown (may be NULL) runs after the cases. */
static inline int check_main(int argc, char **argv, int (*setup)(int nparam, char **param),
                             void (*teardown)(void)) {
    qsort(check_cases, (size_t)check_case_count, sizeof check_cases[0], check_case_order);
    const check_case *chosen[CHECK_MAX_CASES];
    int nchosen = 0, nparam = 0;
    char **param = calloc((size_t)argc + 1, sizeof *param);
    if (!param)
        return 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0) {
            for (int k = 0; k < check_case_count; k++)
                printf("%s\n", check_cases[k].name);
            free(param);
            return 0;
        }
        if (check_case_shaped(argv[i])) {
            const check_case *c = check_find(argv[i]);
            if (!c) {
                fprintf(stderr, "%s: no case named %s (--list lists them)\n", argv[0], argv[i]);
                free(param);
                return 2;
            }
            if (nchosen < CHECK_MAX_CASES)
                chosen[nchosen++] = c;
        } else {
            param[nparam++] = argv[i];
        }
    }
    if (nchosen == 0)
        for (int k = 0; k < check_case_count; k++)
            chosen[nchosen++] = &check_cases[k];
    if (!setup && nparam > 0) {
        fprintf(stderr, "%s: no case named %s, and no parameters taken (--list lists the cases)\n",
                argv[0], param[0]);
        free(param);
        return 2;
    }
    int rc = setup ? setup(nparam, param) : 0;
    if (rc != 0) {
        free(param);
        return rc;
    }
    int passed = 0, failed = 0, skipped = 0;
    for (int k = 0; k < nchosen; k++) {
        int r = check_run(chosen[k]);
        passed += r == 0;
        failed += r == 1;
        skipped += r == 2;
    }
    if (teardown)
        teardown();
    free(param);
    if (skipped)
        printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else
        printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : skipped == nchosen ? 77 : 0;
}
#endif
