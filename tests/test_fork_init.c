/* test_fork_init.c — a fork while another thread sets up a process-wide
 * generator (a format's first ID) or runs toid_configure. Both hold the
 * library's set-up mutex; a child that inherited it held, by a thread the
 * child does not have, would wait for ever on its own first ID of a format
 * not yet set up. The fork must wait for the set-up instead.
 *
 * This program is linked with --wrap=pthread_mutex_lock, so that the thread
 * marked `hold_next` stops right after its next lock (the set-up mutex, the
 * first one those calls take) until the test lets it go, with the fork
 * started in between. And an application's atfork child handler that
 * calls toid_configure while the forking thread holds that mutex.
 *   usage: test_fork_init [--list] [CASE...]
 */
#define _GNU_SOURCE
#include "check.h"
#include "toid.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __wrap_pthread_mutex_lock(pthread_mutex_t *m);

static _Thread_local int hold_next;
static int held, release, forking;

int __wrap_pthread_mutex_lock(pthread_mutex_t *m) {
    int rc = __real_pthread_mutex_lock(m);
    if (hold_next) {
        hold_next = 0;
        __atomic_store_n(&held, 1, __ATOMIC_RELEASE);
        while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
            sched_yield();
    }
    return rc;
}

static void pause_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void wait_for(int *flag) {
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
        sched_yield();
}

/* Registered after the library's handlers, so it runs before them. */
static void note_fork(void) { __atomic_store_n(&forking, 1, __ATOMIC_RELEASE); }

typedef struct {
    void (*hold)(void);        /* runs in the holding thread, marked hold_next */
    toid_format child_format;  /* the child's first ID of a format not set up */
    pid_t pid;
} scene;

static void *holder(void *arg) {
    hold_next = 1;
    ((scene *)arg)->hold();
    return NULL;
}

/* The child: a first ID of a format nobody set up, which takes the set-up
 * mutex; exit 0 if it was made. */
static void *forker(void *arg) {
    scene *s = arg;
    s->pid = fork();
    if (s->pid == 0) {
        uint8_t id[32];
        _exit(toid_new(s->child_format, id) == 0 ? 0 : 1);
    }
    return NULL;
}

/* Exit status of the child, or -1 if it has not ended within 60 s (then it
 * is killed): it waits for a mutex nobody will give back. */
static int child_status(pid_t pid) {
    for (int i = 0; i < 6000; i++) {
        int st = 0;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
        pause_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static void run(scene *s) {
    static int registered;
    uint8_t id[32];
    /* the library's atfork handlers are in place after any first ID */
    CHECK_EQ_INT(toid_new(TOID_ULID, id), 0);
    if (!registered++)
        pthread_atfork(note_fork, NULL, NULL);
    __atomic_store_n(&held, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&release, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&forking, 0, __ATOMIC_RELAXED);
    pthread_t h, f;
    pthread_create(&h, NULL, holder, s);
    wait_for(&held);
    pthread_create(&f, NULL, forker, s);
    wait_for(&forking);
    /* the fork is under way: without the library's handler it ends now,
     * with the mutex held in the child */
    pause_ms(100);
    __atomic_store_n(&release, 1, __ATOMIC_RELEASE);
    pthread_join(h, NULL);
    pthread_join(f, NULL);
    CHECK(s->pid > 0);
    int st = child_status(s->pid);
    CHECK_MSG(st == 0, "the child's first %s %s", toid_format_get(s->child_format)->name,
              st < 0 ? "never returned (the set-up mutex held for good)" : "failed");
}

static void first_scru160(void) {
    uint8_t id[32];
    (void)toid_new(TOID_SCRU160, id);
}

static void configure_ulid(void) {
    toid_gen_config c;
    toid_gen_config_default(TOID_ULID, &c);
    (void)toid_configure(&c);
}

static void configure_uuidv7_per_thread(void) {
    toid_gen_config c;
    toid_gen_config_default(TOID_UUIDV7, &c);
    c.flags |= TOID_GEN_PER_THREAD;
    (void)toid_configure(&c);
}

TEST_CASE(fork_during_first_id) {
    scene s = {first_scru160, TOID_UID11, 0};
    run(&s);
}

TEST_CASE(fork_during_configure) {
    scene s = {configure_ulid, TOID_ULID_FLAKE, 0};
    run(&s);
}

TEST_CASE(fork_during_per_thread_configure) {
    scene s = {configure_uuidv7_per_thread, TOID_UID11_SEQ, 0};
    run(&s);
}

/* An application's atfork child handler that configures toid and makes a
 * format's first ID: registered before the library's handlers (run as its
 * own process, as ctest does, this case registers it before any toid
 * call), so it runs in the child before the library's child handler gives
 * the set-up mutex back, while the forking thread still holds it. */
static int child_rc = 1;
static void child_configures(void) {
    toid_gen_config c;
    uint8_t id[32];
    toid_gen_config_default(TOID_ULID, &c);
    int rc = toid_configure(&c);
    if (rc == 0)
        rc = toid_new(TOID_UUIDV7, id);
    child_rc = rc;
}

TEST_CASE(atfork_handler_configures) {
    pthread_atfork(NULL, NULL, child_configures);
    uint8_t id[32];
    CHECK_EQ_INT(toid_new(TOID_ULID, id), 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child_rc == 0 ? 0 : 1);
    CHECK(pid > 0);
    int st = child_status(pid);
    CHECK_MSG(st == 0, "the child's atfork handler %s", st < 0 ? "never returned" : "failed");
}

int main(int argc, char **argv) { return check_main(argc, argv, NULL, NULL); }
