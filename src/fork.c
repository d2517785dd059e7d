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

static uint64_t *wipe_page;    /* [0]: 1 in the process that set it, 0 in a child, 2 while bumping */
static pid_t known_pid;
static pthread_once_t once = PTHREAD_ONCE_INIT;
/* Read by toid__fork_generation_fast (os.h) without a call. */
uint64_t toid__fork_gen = 1;
const uint64_t *toid__fork_wipe;    /* wipe_page once init is done (NULL without one) */
int toid__fork_off;

static void bump(void) { __atomic_add_fetch(&toid__fork_gen, 1, __ATOMIC_SEQ_CST); }

static void init(void) {
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
#ifdef MADV_WIPEONFORK
        if (madvise(p, 4096, MADV_WIPEONFORK) == 0) {
            wipe_page = p;
            wipe_page[0] = 1;
        } else
#endif
            munmap(p, 4096);
    }
    known_pid = getpid();
    pthread_atfork(NULL, NULL, bump);
    if (wipe_page)      /* last: the fast path may skip pthread_once from now on */
        __atomic_store_n(&toid__fork_wipe, wipe_page, __ATOMIC_RELEASE);
}

uint64_t toid__fork_generation(void) {
    pthread_once(&once, init);
    if (toid__fork_off)
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
    } else {
        pid_t pid = getpid();
        if (pid != known_pid) {
            known_pid = pid;
            bump();
        }
    }
    return __atomic_load_n(&toid__fork_gen, __ATOMIC_ACQUIRE);
}

void toid__test_disable_fork_detection(int off) { __atomic_store_n(&toid__fork_off, off, __ATOMIC_RELAXED); }
int toid__fork_detection_off(void) { return __atomic_load_n(&toid__fork_off, __ATOMIC_RELAXED); }
