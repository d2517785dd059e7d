/* fork.c — fork detection. A page advised MADV_WIPEONFORK reads as zeros in
 * any child that does not share our memory (fork, or a raw clone without
 * CLONE_VM, where no atfork handler runs); a pthread_atfork handler bumps
 * the generation as a second guard. Without MADV_WIPEONFORK (Linux < 4.14)
 * we compare getpid() on each check: slower, still correct. */
#define _GNU_SOURCE
#include "os.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

/* [0]: 1 in the process that set it, 0 in a child, 2 while bumping;
 * [1]: the generation, for toid__fork_generation_seen (os.h): 0 in a
 * child until its first check here, and after the test switch. */
static uint64_t *wipe_page;
/* Without the wipe page: the pid whose generation is current, shifted left
 * one, with the low bit set while a thread of that pid bumps it. */
static uint64_t known_pid;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static uint64_t generation = 1;
static int detection_off;
/* Read by toid__fork_generation_seen (os.h) without a call. */
static const uint64_t no_page[2];   /* [1] = 0: always ask toid__fork_generation */
const uint64_t *toid__fork_wipe = no_page;  /* wipe_page once init is done, if there is one */

static void bump(void) { __atomic_add_fetch(&generation, 1, __ATOMIC_SEQ_CST); }

static void init(void) {
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
#ifdef MADV_WIPEONFORK
        if (madvise(p, 4096, MADV_WIPEONFORK) == 0) {
            wipe_page = p;
            wipe_page[0] = 1;
            wipe_page[1] = generation;
        } else
#endif
            munmap(p, 4096);
    }
    known_pid = (uint64_t)getpid() << 1;
    pthread_atfork(NULL, NULL, bump);
    if (wipe_page)      /* last: the fast path may skip pthread_once from now on */
        __atomic_store_n(&toid__fork_wipe, wipe_page, __ATOMIC_RELEASE);
}

uint64_t toid__fork_generation(void) {
    pthread_once(&once, init);
    if (__atomic_load_n(&detection_off, __ATOMIC_RELAXED))
        return 1;
    if (wipe_page) {
        /* The first check in a child finds 0. Two threads of the child may
         * get here together: one wins 0 -> 2 and bumps, the other waits for
         * the 1 that follows, so the generation moves exactly once and no
         * thread returns the parent's (a second bump would make a generator
         * forget the state of IDs the first thread had already issued). */
        uint64_t v = __atomic_load_n(&wipe_page[0], __ATOMIC_ACQUIRE);
        if (__builtin_expect(v != 1, 0)) {
            uint64_t zero = 0;
            if (v == 0 && __atomic_compare_exchange_n(&wipe_page[0], &zero, 2, false, __ATOMIC_ACQ_REL,
                                                      __ATOMIC_ACQUIRE)) {
                bump();
                __atomic_store_n(&wipe_page[0], 1, __ATOMIC_RELEASE);
            } else {
                while (__atomic_load_n(&wipe_page[0], __ATOMIC_ACQUIRE) != 1)
                    sched_yield();
            }
        }
        /* In this process from now on (a child's threads all come here
         * first, since its copy of [1] reads 0); a parent's thread cannot
         * store its generation into a child's page, having no thread there. */
        uint64_t gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
        if (!__atomic_load_n(&detection_off, __ATOMIC_RELAXED))
            __atomic_store_n(&wipe_page[1], gen, __ATOMIC_RELEASE);
        return gen;
    }
    /* A child's threads may all get here together: one marks the pid as
     * being bumped and bumps, the others wait for it, so the generation
     * moves once and nobody returns the parent's (two bumps would make a
     * generator forget IDs a thread had already issued). A mark of another
     * pid is a parent's bump caught by the fork: that thread is not here. */
    uint64_t pid = (uint64_t)getpid() << 1;
    for (;;) {
        uint64_t k = __atomic_load_n(&known_pid, __ATOMIC_ACQUIRE);
        if (k == pid)
            break;
        if (k == (pid | 1)) {
            sched_yield();
            continue;
        }
        if (__atomic_compare_exchange_n(&known_pid, &k, pid | 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            bump();
            __atomic_store_n(&known_pid, pid, __ATOMIC_RELEASE);
            break;
        }
    }
    return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

void toid__test_disable_fork_detection(int off) {
    pthread_once(&once, init);
    __atomic_store_n(&detection_off, off, __ATOMIC_RELAXED);
    if (wipe_page)      /* the fast path asks toid__fork_generation again */
        __atomic_store_n(&wipe_page[1], 0, __ATOMIC_RELEASE);
}
int toid__fork_detection_off(void) { return __atomic_load_n(&detection_off, __ATOMIC_RELAXED); }
