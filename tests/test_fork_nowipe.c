/* test_fork_nowipe.c — fork detection where no MADV_WIPEONFORK page can be
 * had (Linux < 4.14, or a madvise that refuses it: this program refuses it
 * by defining madvise, which the static library's calls then reach). Fork
 * is then detected by the pid; several threads of a child making their
 * first IDs at once must move the generation once between them: a second
 * move makes the generator forget IDs a thread already issued (its own
 * ULIDs go backwards), or leaves a thread waiting for a generation nobody
 * sets (a hang, which ctest's timeout reports).
 *   usage: test_fork_nowipe [--list] [CASE...] [ROUNDS]
 */
#define _GNU_SOURCE
#include "check.h"
#include "toid.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long rounds = 200;
static int wipe_refused;

int madvise(void *addr, size_t len, int advice) {
    if (advice == MADV_WIPEONFORK) {
        __atomic_store_n(&wipe_refused, 1, __ATOMIC_RELAXED);
        return -1;
    }
    return (int)syscall(SYS_madvise, addr, len, advice);
}

enum { THREADS = 4, IDS = 2000 };
static pthread_barrier_t start;
static uint8_t ids[THREADS][IDS][16];

static void *child_thread(void *arg) {
    uint8_t (*mine)[16] = ids[(intptr_t)arg];
    pthread_barrier_wait(&start);
    for (int k = 0; k < IDS; k++)
        if (toid_new(TOID_ULID, mine[k]) < 0)
            memset(mine[k], 0, 16);
    return NULL;
}

/* In a child: THREADS threads' first IDs at once; exit 1 if a thread's own
 * IDs did not increase. */
static void child(void) {
    pthread_t th[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (intptr_t t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, child_thread, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        for (int k = 1; k < IDS; k++)
            if (memcmp(ids[t][k - 1], ids[t][k], 16) >= 0)
                _exit(1);
    _exit(0);
}

TEST_CASE(child_threads_agree) {
    uint8_t id[16];
    CHECK_EQ_INT(toid_new(TOID_ULID, id), 0);   /* sets fork detection up: the wipe page refused */
    CHECK_MSG(__atomic_load_n(&wipe_refused, __ATOMIC_RELAXED), "the library asked for a wipe-on-fork page");
    long bad = 0;
    for (long r = 0; r < rounds; r++) {
        pid_t pid = fork();
        if (pid < 0)
            abort();
        if (pid == 0)
            child();
        int st = 0;
        waitpid(pid, &st, 0);
        bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    CHECK_MSG(bad == 0, "%ld of %ld children: a thread's own ULIDs went back", bad, rounds);
}

static int setup(int nparam, char **param) {
    if (nparam > 0)
        rounds = atol(param[0]);
    return rounds > 0 ? 0 : 2;
}

int main(int argc, char **argv) { return check_main(argc, argv, setup, NULL); }
