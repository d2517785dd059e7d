/* guard_page.h — places a test input so that its last byte sits right
 * before a PROT_NONE page (as picohttpparser's tests do): a parser that
 * reads even one byte past the input it was given crashes the test at
 * once, without a sanitizer. */
#ifndef TOID_GUARD_PAGE_H
#define TOID_GUARD_PAGE_H

/* MAP_ANONYMOUS is not in POSIX before 2024: include this header first */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct guard_page {
    char *base;      /* cap readable bytes, then one PROT_NONE page */
    size_t cap;
} guard_page;

/* Room for inputs of up to cap bytes (rounded up to whole pages). Exits
 * the test program if the pages cannot be mapped. */
static inline void guard_open(guard_page *g, size_t cap) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    g->cap = (cap + page - 1) / page * page;
    void *m = mmap(NULL, g->cap + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect((char *)m + g->cap, page, PROT_NONE) != 0) {
        perror("guard_page: mmap/mprotect");
        exit(2);
    }
    g->base = m;
}

/* Copies data[0..len) to end right before the guard page; returns where it
 * starts. Exits if len is over the capacity (a mistake in the test). */
static inline const char *guard_put(guard_page *g, const char *data, size_t len) {
    if (len > g->cap) {
        fprintf(stderr, "guard_page: %zu bytes over the capacity %zu\n", len, g->cap);
        exit(2);
    }
    char *at = g->base + g->cap - len;
    memcpy(at, data, len);
    return at;
}

static inline void guard_close(guard_page *g) {
    munmap(g->base, g->cap + (size_t)sysconf(_SC_PAGESIZE));
}

/* The main of a test program (check.h) whose cases share the guard page g
 * of cap bytes: mapped before the cases run, unmapped after. */
#define GUARD_PAGE_MAIN(g, cap)                                      \
    static int guard_setup(int nparam, char **param) {               \
        (void)nparam;                                                \
        (void)param;                                                 \
        guard_open(&(g), (cap));                                     \
        return 0;                                                    \
    }                                                                \
    static void guard_teardown(void) { guard_close(&(g)); }          \
    int main(int argc, char **argv) { return check_main(argc, argv, guard_setup, guard_teardown); }

#endif
