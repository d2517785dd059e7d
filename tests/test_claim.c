/* test_claim.c — the claim layer (claim/toid_claim.h), with real processes.
 *
 *   test_claim local_...    the local backend in a temp directory: lowest
 *                           free node, a second holder (another process) is
 *                           refused, the previous holder's mark is a floor
 *                           after kill -9, the files are toidd's, a forked
 *                           child cannot use its parent's claim, a range
 *                           claim goes past a node ahead of the clock; the
 *                           host's registry: missing or unsafe refused,
 *                           shared by root and a group member (as root)
 *   test_claim etcd_... ETCD  a real etcd started here (see claim_etcd_test.c)
 *   test_claim port         prints a free loopback port (for run_claim_tests.sh)
 *
 * The cases are check.h's (test_claim --list); with no case named, all run
 * (the etcd ones skip without ETCD). Prints "N passed, N failed" last. */
#define _GNU_SOURCE
#include "test_claim.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

CHECK_DEFINITIONS;

/* ---- helpers shared with the etcd part ------------------------------------ */

/* The last message, and every message since tc_clear (the claimers' threads
 * log too: under a lock). */
static pthread_mutex_t tc_log_mu = PTHREAD_MUTEX_INITIALIZER;
static char tc_last_log[2048], tc_last_copy[2048];
static char tc_all_log[1 << 16];
static size_t tc_all_len;
static void tc_log(void *ctx, int level, const char *msg) {
    (void)ctx;
    pthread_mutex_lock(&tc_log_mu);
    snprintf(tc_last_log, sizeof tc_last_log, "%s", msg);
    int n = snprintf(tc_all_log + tc_all_len, sizeof tc_all_log - tc_all_len, "%s\n", msg);
    if (n > 0 && tc_all_len + (size_t)n < sizeof tc_all_log)
        tc_all_len += (size_t)n;
    pthread_mutex_unlock(&tc_log_mu);
    if (getenv("TEST_CLAIM_VERBOSE") || level == TOID_CLAIM_LOG_ERR)
        fprintf(stderr, "  [claim %d] %s\n", level, msg);
}
const char *tc_last(void) {
    pthread_mutex_lock(&tc_log_mu);
    snprintf(tc_last_copy, sizeof tc_last_copy, "%s", tc_last_log);
    pthread_mutex_unlock(&tc_log_mu);
    return tc_last_copy;
}
void tc_clear(void) {
    pthread_mutex_lock(&tc_log_mu);
    tc_last_log[0] = '\0';
    tc_all_len = 0;
    tc_all_log[0] = '\0';
    pthread_mutex_unlock(&tc_log_mu);
}
int tc_logged(const char *needle) {
    pthread_mutex_lock(&tc_log_mu);
    int found = strstr(tc_all_log, needle) != NULL;
    pthread_mutex_unlock(&tc_log_mu);
    return found;
}

void tc_opts(toid_claimer_opts *o) {
    memset(o, 0, sizeof *o);
    o->log = tc_log;
    o->reserve_ms = 300;
    o->clock_wait_max_ms = 8000;
}

int tc_open(const char *spec, const toid_claimer_opts *o, toid_claimer **c) {
    char err[512] = "";
    int rc = toid_claimer_open(spec, o, c, err, sizeof err);
    if (rc < 0) {
        pthread_mutex_lock(&tc_log_mu);
        snprintf(tc_last_log, sizeof tc_last_log, "%s", err);
        pthread_mutex_unlock(&tc_log_mu);
    }
    return rc;
}

int tc_acquire(toid_claimer *c, toid_format f, int64_t epoch_ms, uint32_t lo, uint32_t hi,
               toid_claim **k) {
    int64_t t0 = claim_test_mono();
    int rc;
    while ((rc = toid_claim_acquire(c, f, epoch_ms, lo, hi, k)) == TOID_CLAIM_EIO &&
           claim_test_mono() - t0 < 20000)
        claim_test_sleep(100);
    return rc;
}

/* A child process that holds (f, node) of spec and admits the clock's time
 * every few ms; writes "NODE MAXADMITTED\n" to fd after the claim and each
 * 50 ms. Never returns. */
void tc_holder_child(const char *spec, const toid_claimer_opts *o, toid_format f, uint32_t lo,
                     uint32_t hi, int fd) {
    toid_claimer *c;
    toid_claim *k;
    if (tc_open(spec, o, &c) < 0 || tc_acquire(c, f, 0, lo, hi, &k) < 0) {
        dprintf(fd, "FAIL %s\n", tc_last());
        _exit(3);
    }
    int64_t top = 0, last_report = 0;
    for (;;) {
        int64_t now = toid_clock_now(NULL);
        if (toid_claim_admit(k, now, now) == 0)
            top = now;
        if (now - last_report >= 50) {
            dprintf(fd, "%" PRIu32 " %" PRId64 "\n", toid_claim_node(k), top);
            last_report = now;
        }
        usleep(2000);
    }
}

/* Reads the last complete "NODE TOP" line available on fd (non-blocking
 * after the first, which it waits for up to ms). Returns 0, or -1. */
int tc_read_report(int fd, uint32_t *node, int64_t *top, int wait_ms) {
    char buf[65536];
    size_t len = 0;
    int64_t end = claim_test_mono() + wait_ms;
    int got = 0;
    for (;;) {
        fd_set rs;
        FD_ZERO(&rs);
        FD_SET(fd, &rs);
        int64_t left = end - claim_test_mono();
        struct timeval tv = {0, got ? 0 : (left > 0 ? left : 0) * 1000};
        if (!got && left > 1000) {
            tv.tv_sec = left / 1000;
            tv.tv_usec = (left % 1000) * 1000;
        }
        int r = select(fd + 1, &rs, NULL, NULL, &tv);
        if (r <= 0)
            break;
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        if (strchr(buf, '\n'))
            got = 1;
        if (len > sizeof buf / 2) { /* keep the tail */
            char *last = strrchr(buf, '\n');
            char *prev = last;
            while (prev > buf && prev[-1] != '\n')
                prev--;
            len = (size_t)(last - prev + 1);
            memmove(buf, prev, len);
            buf[len] = '\0';
        }
    }
    if (!got)
        return -1;
    if (strncmp(buf, "FAIL", 4) == 0) {
        fprintf(stderr, "  holder child: %s", buf);
        return -1;
    }
    char *last = strrchr(buf, '\n');
    *last = '\0';
    char *line = strrchr(buf, '\n');
    line = line ? line + 1 : buf;
    unsigned long nd;
    long long t;
    if (sscanf(line, "%lu %lld", &nd, &t) != 2)
        return -1;
    *node = (uint32_t)nd;
    *top = t;
    return 0;
}

pid_t tc_spawn_holder(const char *spec, const toid_claimer_opts *o, toid_format f, uint32_t lo,
                      uint32_t hi, int *rfd) {
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        tc_holder_child(spec, o, f, lo, hi, p[1]);
    }
    close(p[1]);
    *rfd = p[0];
    return pid;
}

void tc_reap(pid_t pid) {
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

int64_t claim_test_mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- local ------------------------------------------------------------------ */

static int64_t mark_in(const char *dir, const char *name) {
    char path[512], buf[600];
    snprintf(path, sizeof path, "%s/%s.mark", dir, name);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -2;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nissued_up_to_ms ");
    return p ? strtoll(p + 17, NULL, 10) : -2;
}

/* Claims node of f with the reset option (the mark forgotten), then closes;
 * the acquire's result. */
static int acquire_reset(const char *spec, const toid_claimer_opts *o, toid_format f,
                         uint32_t node) {
    toid_claimer *r;
    toid_claim *k;
    toid_claimer_opts ro = *o;
    ro.reset = 1;
    if (tc_open(spec, &ro, &r) != 0)
        return -1;
    int rc = toid_claim_acquire(r, f, 0, node, node, &k);
    toid_claimer_close(r);
    return rc;
}

static void test_local_basic(const char *dir) {
    char spec[700];
    snprintf(spec, sizeof spec, "local=%s", dir);
    toid_claimer_opts o;
    tc_opts(&o);
    toid_claimer *a, *b;
    CHECK(tc_open(spec, &o, &a) == 0);
    CHECK(tc_open(spec, &o, &b) == 0);
    toid_claim *k0 = NULL, *k1 = NULL, *kx = NULL;
    CHECK_EQ_INT(toid_claim_acquire(a, TOID_NANOFLAKE, 0, 0, 3, &k0), 0);
    CHECK_EQ_INT(toid_claim_node(k0), 0);
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 0, 0, 3, &k1), 0);
    CHECK_EQ_INT(toid_claim_node(k1), 1);
    /* one node asked for and held: refused, naming the lock and the holder */
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 0, 0, 0, &kx), TOID_CLAIM_EBUSY);
    CHECK_MSG(strstr(tc_last(), "nanoflake node 0 is in use") && strstr(tc_last(), "nanoflake-0.lock")
              && strstr(tc_last(), "pid "), "busy message: %s", tc_last());
    /* another format is another node space */
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_ULID_FLAKE_SCALABLE, 0, 0, 0, &kx), 0);
    toid_claim_release(kx, 1);
    /* a full range */
    toid_claim *k2, *k3;
    CHECK_EQ_INT(toid_claim_acquire(a, TOID_NANOFLAKE, 0, 0, 3, &k2), 0);
    CHECK_EQ_INT(toid_claim_acquire(a, TOID_NANOFLAKE, 0, 0, 3, &k3), 0);
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 0, 0, 3, &kx), TOID_CLAIM_EBUSY);
    CHECK_MSG(strstr(tc_last(), "no free node of nanoflake in 0-3"), "message: %s", tc_last());
    /* admit: valid, no deadline; the ceiling moves (a request write) past the reservation */
    int64_t left = 0;
    CHECK(toid_claim_valid(k0, &left) == 1 && left == INT64_MAX);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k0, now, now), 0);
    toid_claim_stats st0, st1;
    toid_claimer_stats(a, &st0);
    CHECK_EQ_INT(toid_claim_admit(k0, now, now + 5000), 0);
    toid_claimer_stats(a, &st1);
    CHECK(st1.request_writes == st0.request_writes + 1);
    CHECK(mark_in(dir, "nanoflake-0") >= now + 5000);
    CHECK_EQ_INT(toid_claim_admit(k0, now, now - 1), TOID_CLAIM_EBEHIND); /* max < min */
    /* toidd's files, byte for byte in their first lines */
    char path[800], buf[256];
    snprintf(path, sizeof path, "%s/nanoflake-0.mark", dir);
    FILE *fp = fopen(path, "r");
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    buf[n] = '\0';
    if (fp)
        fclose(fp);
    CHECK_MSG(strncmp(buf, "toidd-mark 1\nformat nanoflake\nnode 0\nepoch_ms 0\nissued_up_to_ms ",
                      62) == 0, "mark file: %s", buf);
    snprintf(path, sizeof path, "%s/nanoflake-0.lock", dir);
    fp = fopen(path, "r");
    n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    buf[n] = '\0';
    if (fp)
        fclose(fp);
    CHECK_MSG(strncmp(buf, "initialised; pid ", 17) == 0, "lock file: %s", buf);
    /* clean release lowers the mark to the largest time admitted */
    toid_claim_release(k0, 1);
    CHECK_EQ_INT(mark_in(dir, "nanoflake-0"), now + 5000);
    /* ...and the next holder of node 0 starts after it (waits: 5 s) */
    int64_t t0 = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 0, 0, 0, &kx), 0);
    CHECK(toid_clock_now(NULL) > now + 5000 && toid_clock_now(NULL) >= t0);
    CHECK_EQ_INT(toid_claim_admit(kx, now + 5000, now + 5000), TOID_CLAIM_EBEHIND);
    int64_t t1 = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(kx, t1, t1), 0);
    toid_claim_release(kx, 1);
    /* a mark for another epoch is refused as corrupt, naming the file */
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 1704067200000, 0, 0, &kx),
                 TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "nanoflake-0.mark was written for another epoch"), "msg: %s",
              tc_last());
    /* ...but a range search passes such a node over (a program with an
     * epoch of its own held it: its IDs cannot meet another node's) */
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 1704067200000, 0, 4, &kx), 0);
    CHECK_EQ_INT(toid_claim_node(kx), 4);
    toid_claim_release(kx, 1);
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 1704067200000, 0, 3, &kx),
                 TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "no node of nanoflake in 0-3 (local backend) could be taken: 0 "
                     "refused as ahead of the clock, 1 as marked for another epoch"),
              "msg: %s", tc_last());
    /* a corrupt mark */
    snprintf(path, sizeof path, "%s/nanoflake-9.mark", dir);
    fp = fopen(path, "w");
    fputs("toidd-mark 1\nformat nanoflake\nnode 9\nepoch_ms 0\nissued_up_to_ms 5\ncheck 0\n", fp);
    fclose(fp);
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(b, TOID_NANOFLAKE, 0, 9, 9, &kx), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "nanoflake-9.mark is corrupt"), "msg: %s", tc_last());
    /* the reset option forgets it */
    CHECK_EQ_INT(acquire_reset(spec, &o, TOID_NANOFLAKE, 9), 0);
    toid_claim_release(k1, 0);
    toid_claimer_close(a); /* releases k2, k3 */
    toid_claimer_close(b);
    (void)k2;
    (void)k3;
}

/* Another process holds a node: refused while it lives; after kill -9 the
 * node is free and its mark is the floor of the next holder. */
static void test_local_processes(const char *dir) {
    char spec[700];
    snprintf(spec, sizeof spec, "local=%s", dir);
    toid_claimer_opts o;
    tc_opts(&o);
    int fd = -1;
    pid_t pid = tc_spawn_holder(spec, &o, TOID_ULID_FLAKE_SCALABLE, 3, 3, &fd);
    uint32_t node = 99;
    int64_t top = 0;
    CHECK(tc_read_report(fd, &node, &top, 10000) == 0 && node == 3);
    toid_claimer *c;
    toid_claim *k = NULL;
    CHECK(tc_open(spec, &o, &c) == 0);
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 3, 3, &k), TOID_CLAIM_EBUSY);
    char want[64];
    snprintf(want, sizeof want, "pid %ld, lock", (long)pid);
    CHECK_MSG(strstr(tc_last(), want), "names the holder: %s", tc_last());
    /* the lowest free one, skipping the held node */
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 3, 4, &k), 0);
    CHECK_EQ_INT(toid_claim_node(k), 4);
    toid_claim_release(k, 1);
    claim_test_sleep(200);
    tc_reap(pid);
    CHECK(tc_read_report(fd, &node, &top, 0) == 0 || 1); /* drain */
    close(fd);
    int64_t mark = mark_in(dir, "ulid-flake-scalable-3");
    CHECK(mark >= top && top > 0);
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 3, 3, &k), 0);
    CHECK(toid_clock_now(NULL) > mark);
    CHECK_EQ_INT(toid_claim_admit(k, top, top), TOID_CLAIM_EBEHIND);
    CHECK_EQ_INT(toid_claim_admit(k, mark, mark), TOID_CLAIM_EBEHIND);
    CHECK_EQ_INT(toid_claim_admit(k, mark + 1, mark + 1), 0);
    toid_claimer_close(c);
}

/* Finding F2: a claim does not follow fork(). The child of a holder gets
 * TOID_CLAIM_ELOST from admit, 0 from valid, and cannot acquire with the
 * parent's claimer; closing it there neither hangs (the claimer's thread
 * did not follow) nor gives the parent's node up. Shared with the etcd part. */
int tc_fork_check(toid_claimer *c, toid_claim *k, const char *spec, const toid_claimer_opts *o,
                  toid_format f) {
    uint32_t node = toid_claim_node(k);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now), 0); /* the parent may, before and after */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60); /* a hang (a join of a thread that is not there) fails, not blocks */
        check_passed = check_failed = 0;
        int64_t t = toid_clock_now(NULL), left = 1;
        CHECK_EQ_INT(toid_claim_admit(k, t, t), TOID_CLAIM_ELOST);
        CHECK_EQ_INT(toid_claim_valid(k, &left), 0);
        CHECK_EQ_INT(left, 0);
        toid_claim *k2 = NULL;
        CHECK_EQ_INT(toid_claim_acquire(c, f, 0, node, node, &k2), TOID_CLAIM_ELOST);
        CHECK_MSG(strstr(tc_last(), "opened before fork()"), "msg: %s", tc_last());
        toid_claimer_close(c); /* no I/O: no lowered mark, no deleted key, no revoke */
        /* (no claimer of the child's own here: ThreadSanitizer refuses new
         * threads in the child of a multi-threaded process) */
        _exit(check_failed ? 1 : 0);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked child's checks (status %d)", st);
    now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now), 0);
    CHECK_EQ_INT(toid_claim_valid(k, NULL), 1);
    /* the child's close did not give the node up */
    toid_claimer *other;
    toid_claim *kx = NULL;
    CHECK_EQ_INT(tc_open(spec, o, &other), 0);
    CHECK_EQ_INT(toid_claim_acquire(other, f, 0, node, node, &kx), TOID_CLAIM_EBUSY);
    toid_claimer_close(other);
    return (int)node;
}

static void test_local_fork(const char *dir) {
    char spec[700];
    snprintf(spec, sizeof spec, "local=%s", dir);
    toid_claimer_opts o;
    tc_opts(&o);
    toid_claimer *c;
    toid_claim *k = NULL;
    CHECK(tc_open(spec, &o, &c) == 0);
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_UID11_SEQ, 0, 5, 5, &k), 0);
    if (!k)
        return;
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now + 4000), 0);
    int64_t mark = mark_in(dir, "uid11-seq-5");
    tc_fork_check(c, k, spec, &o, TOID_UID11_SEQ);
    /* the child's close neither lowered the mark nor freed the lock */
    CHECK(mark_in(dir, "uid11-seq-5") >= mark && mark >= now + 4000);
    toid_claimer_close(c);
}

/* Finding F4: a node whose mark is too far ahead of the clock (a clock set
 * back, a mark written for the future) ends a single-node claim with
 * TOID_CLAIM_EBEHIND, but a range claim goes on to the next node. */
static void test_local_range_behind(const char *dir) {
    char spec[700];
    snprintf(spec, sizeof spec, "local=%s", dir);
    toid_claimer_opts o;
    tc_opts(&o); /* the clock wait: at most 8 s */
    toid_claimer *c;
    toid_claim *k = NULL, *k1 = NULL, *kx = NULL;
    CHECK(tc_open(spec, &o, &c) == 0);
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 0, 0, &k), 0);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now + 600000), 0); /* node 0's mark: 10 min ahead */
    toid_claim_release(k, 0);                                 /* (not clean: the mark stays) */
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 0, 0, &kx), TOID_CLAIM_EBEHIND);
    CHECK_MSG(tc_logged("behind the high-water mark of ulid-flake-scalable node 0"), "msg: %s",
              tc_last());
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 0, 3, &k1), 0);
    CHECK_EQ_INT(k1 ? toid_claim_node(k1) : 99, 1);
    /* node 0 behind, nodes 1-2 held: the range gives EBEHIND, and says why */
    toid_claim *k2 = NULL;
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 0, 2, &k2), 0);
    CHECK_EQ_INT(k2 ? toid_claim_node(k2) : 99, 2);
    tc_clear();
    CHECK_EQ_INT(toid_claim_acquire(c, TOID_ULID_FLAKE_SCALABLE, 0, 0, 2, &kx), TOID_CLAIM_EBEHIND);
    CHECK_MSG(strstr(tc_last(), "no node of ulid-flake-scalable in 0-2") &&
              strstr(tc_last(), "1 refused as ahead of the clock"), "msg: %s", tc_last());
    /* node 0 was not left held by the refusals: the reset claimer takes it */
    CHECK_EQ_INT(acquire_reset(spec, &o, TOID_ULID_FLAKE_SCALABLE, 0), 0);
    toid_claimer_close(c);
}

/* Every node of ulid-flake-scalable (32) held: the error says so and names
 * the holders (the pid in each lock file), the first 8 and how many more. */
TEST_CASE(local_all_held) {
    char spec[400], want[200];
    snprintf(spec, sizeof spec, "local=%s/allheld", claim_test_base);
    toid_claimer_opts o;
    tc_opts(&o);
    toid_claimer *a = NULL, *b = NULL;
    toid_claim *k[32] = {0}, *kx = NULL;
    CHECK_EQ_INT(tc_open(spec, &o, &a), 0);
    CHECK_EQ_INT(tc_open(spec, &o, &b), 0);
    for (int i = 0; a && i < 32; i++)
        CHECK_EQ_INT(toid_claim_acquire(a, TOID_ULID_FLAKE_SCALABLE, 0, 0, 31, &k[i]), 0);
    tc_clear();
    CHECK_EQ_INT(b ? toid_claim_acquire(b, TOID_ULID_FLAKE_SCALABLE, 0, 0, 31, &kx) : -1, TOID_CLAIM_EBUSY);
    long me = (long)getpid();
    snprintf(want, sizeof want, "no free node of ulid-flake-scalable in 0-31 (local backend): every one "
             "is held: 0 by pid %ld, 1 by pid %ld, ", me, me);
    CHECK_MSG(strstr(tc_last(), want) == tc_last() && strstr(tc_last(), ", 7 by pid ") &&
              strstr(tc_last(), " (and 24 more)"), "msg: %s", tc_last());
    if (a)
        toid_claimer_close(a);
    if (b)
        toid_claimer_close(b);
}

/* ---- the host's registry ("local" alone: toid_claim.h) ---- */

extern const char *toid__claim_registry; /* claim_local.c: where "local" claims; tests move it */
extern const char *toid__claim_registry_group;

/* `test_claim as-user REGISTRY GROUP FORMAT NODE` (main below): as uid and
 * gid 65534 (nobody, nogroup), with extra group GROUP unless it is -1, opens
 * "local" in REGISTRY and claims FORMAT's NODE; prints the message, exits
 * with the error (0: claimed). A fresh process (exec, not only fork: the
 * parent's claimer has a thread, and ThreadSanitizer refuses new threads in
 * a fork of a threaded process). */
static int as_user_main(char **argv) {
    gid_t group = (gid_t)strtol(argv[1], NULL, 10);
    gid_t groups[1] = {group};
    if (setgroups(group == (gid_t)-1 ? 0 : 1, groups) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
        return 99;
    extern const char *toid__claim_registry;
    toid__claim_registry = argv[0];
    toid_claimer_opts o;
    tc_opts(&o);
    toid_claimer *c;
    toid_claim *k;
    int rc = tc_open("local", &o, &c);
    if (rc == 0) {
        rc = toid_claim_acquire(c, (toid_format)atoi(argv[2]), 0, (uint32_t)atoi(argv[3]),
                                (uint32_t)atoi(argv[3]), &k);
        if (rc == 0)
            toid_claim_release(k, 1);
        toid_claimer_close(c);
    }
    printf("%s", rc == 0 ? "" : tc_last());
    return rc == 0 ? 0 : -rc > 255 ? 1 : -rc;
}

/* as-user (above) in a new process of this program: 0 (claimed), else the
 * error; the message in msg. spec is "local" (the registry now set). */
static int as_other_user(const char *spec, gid_t group, toid_format f, uint32_t node, char *msg,
                         size_t cap) {
    extern const char *toid__claim_registry;
    (void)spec;
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char g[32], fs[16], ns[16];
        snprintf(g, sizeof g, "%ld", group == (gid_t)-1 ? -1L : (long)group);
        snprintf(fs, sizeof fs, "%d", (int)f);
        snprintf(ns, sizeof ns, "%u", node);
        dup2(fds[1], 1);
        close(fds[0]);
        execl("/proc/self/exe", "test_claim", "as-user", toid__claim_registry, g, fs, ns, (char *)NULL);
        _exit(98);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], msg, cap - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? -WEXITSTATUS(st) : -1000;
}

/* Mode and group of path. */
static int mode_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}
static long group_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_gid : -1;
}

/* "local" is the host's registry: never made by the library (a missing one
 * is an error naming the set-up), refused when it is a symlink, not a
 * directory, open to every user or another user's (checked on the opened
 * descriptor). */
TEST_CASE(local_host_registry) {
    char reg[600], msg[1024], target[700];
    snprintf(reg, sizeof reg, "%s/registry", claim_test_base);
    const char *saved = toid__claim_registry;
    toid__claim_registry = reg;
    toid_claimer_opts o;
    tc_opts(&o);
    toid_claimer *c = NULL;
    CHECK_EQ_INT(tc_open("local", &o, &c), TOID_CLAIM_EIO);
    snprintf(msg, sizeof msg, "the host's node registry %s does not exist: set it up (as root: "
             "cmake --install, or the Debian package toid-registry), or name a registry", reg);
    CHECK_MSG(strstr(tc_last(), msg) == tc_last(), "msg: %s", tc_last());
    CHECK_MSG(access(reg, F_OK) < 0, "the library made no registry");
    CHECK(mkdir(reg, 0770) == 0 && chmod(reg, 02770) == 0);
    CHECK_EQ_INT(tc_open("local", &o, &c), 0);
    if (c)
        toid_claimer_close(c);
    chmod(reg, 02777);
    CHECK_EQ_INT(tc_open("local", &o, &c), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "is unsafe (every user may write to it)"), "msg: %s", tc_last());
    chmod(reg, 02770);
    if (geteuid() == 0) { /* (CI runs as root: another owner can be made) */
        CHECK(chown(reg, 65534, 0) == 0);
        CHECK_EQ_INT(tc_open("local", &o, &c), TOID_CLAIM_ECORRUPT);
        CHECK_MSG(strstr(tc_last(), "is unsafe (it is owned by a user other than root and this one)"),
                  "msg: %s", tc_last());
        CHECK(chown(reg, 0, 0) == 0);
    }
    rmdir(reg);
    CHECK(close(open(reg, O_WRONLY | O_CREAT | O_EXCL, 0600)) == 0); /* a file, not a directory */
    CHECK_EQ_INT(tc_open("local", &o, &c), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "is unsafe (it is not a directory)"), "msg: %s", tc_last());
    unlink(reg);
    snprintf(target, sizeof target, "%s/elsewhere", claim_test_base);
    mkdir(target, 02770);
    CHECK(symlink(target, reg) == 0);
    CHECK_EQ_INT(tc_open("local", &o, &c), TOID_CLAIM_ECORRUPT);
    CHECK_MSG(strstr(tc_last(), "is unsafe (it is a symbolic link)"), "msg: %s", tc_last());
    unlink(reg);
    toid__claim_registry = saved;
    /* bad specs */
    CHECK_EQ_INT(tc_open("nfs", &o, &c), TOID_EINVAL);
    CHECK_EQ_INT(tc_open("local=", &o, &c), TOID_EINVAL);
    toid_claimer_opts bad = o;
    bad.ttl_ms = 1500;
    CHECK_EQ_INT(tc_open("local", &bad, &c), TOID_EINVAL);
}

/* Several users on one registry (root, and a member of its group): the
 * files either makes are the registry group's, 0660, whatever the umask, so
 * neither locks the other out; a user outside the group is told to join it;
 * a lock file an older toid made private is named with the commands that
 * share it. Needs root (to be two users): CI runs as root. */
TEST_CASE(local_registry_users) {
    if (geteuid() != 0) {
        printf("SKIP local_registry_users: needs root (to act as two users); CI runs it as root\n");
        return;
    }
    char reg[600], spec[700], msg[1024], path[800];
    const gid_t grp = 4242;     /* the registry's group: a gid with no name here, neither user's own */
    snprintf(reg, sizeof reg, "%s/users", claim_test_base);
    CHECK(chmod(claim_test_base, 0711) == 0);   /* the other user passes through it */
    CHECK(mkdir(reg, 0700) == 0 && chown(reg, 0, grp) == 0 && chmod(reg, 02770) == 0);
    const char *saved = toid__claim_registry;
    toid__claim_registry = reg;
    snprintf(spec, sizeof spec, "local");
    mode_t old_umask = umask(077);     /* as toidd's unit sets it */
    toid_claimer_opts o;
    tc_opts(&o);
    toid_claimer *c = NULL;
    toid_claim *k = NULL;
    CHECK_EQ_INT(tc_open(spec, &o, &c), 0);
    CHECK_EQ_INT(c ? toid_claim_acquire(c, TOID_NANOFLAKE, 0, 3, 3, &k) : -1, 0);
    snprintf(path, sizeof path, "%s/nanoflake-3.lock", reg);
    CHECK_MSG(mode_of(path) == 0660 && group_of(path) == grp, "root's lock file: %o, group %ld",
              mode_of(path), group_of(path));
    snprintf(path, sizeof path, "%s/nanoflake-3.mark", reg);
    CHECK_MSG(mode_of(path) == 0660 && group_of(path) == grp, "root's mark: %o, group %ld",
              mode_of(path), group_of(path));
    /* a member, while root holds node 3: refused as held, then takes it after root */
    CHECK_EQ_INT(as_other_user(spec, grp, TOID_NANOFLAKE, 3, msg, sizeof msg), TOID_CLAIM_EBUSY);
    CHECK_MSG(strstr(msg, "nanoflake node 3 is in use by another process (pid "), "msg: %s", msg);
    if (k)
        toid_claim_release(k, 1);
    CHECK_EQ_INT(as_other_user(spec, grp, TOID_NANOFLAKE, 3, msg, sizeof msg), 0);
    CHECK_EQ_INT(as_other_user(spec, grp, TOID_NANOFLAKE, 4, msg, sizeof msg), 0);
    /* ...and root takes node 4 after the member: its files are the group's too */
    snprintf(path, sizeof path, "%s/nanoflake-4.mark", reg);
    CHECK_MSG(mode_of(path) == 0660 && group_of(path) == grp, "the member's mark: %o, group %ld",
              mode_of(path), group_of(path));
    CHECK_EQ_INT(c ? toid_claim_acquire(c, TOID_NANOFLAKE, 0, 4, 4, &k) : -1, 0);
    if (k)
        toid_claim_release(k, 1);
    /* a user outside the group: told to join it */
    CHECK_EQ_INT(as_other_user(spec, (gid_t)-1, TOID_NANOFLAKE, 5, msg, sizeof msg), TOID_CLAIM_EIO);
    char want[2400];
    snprintf(want, sizeof want, "the host's node registry %s: permission denied for ", reg);
    struct group *gr = getgrgid(grp);
    char join[200];
    snprintf(join, sizeof join, ": add it to group %s (usermod -aG %s USER", gr ? gr->gr_name : "4242",
             gr ? gr->gr_name : "4242");
    CHECK_MSG(strstr(msg, want) == msg && strstr(msg, join), "msg: %s", msg);
    /* a lock file made private by an older toid: named, with the fix */
    snprintf(path, sizeof path, "%s/nanoflake-6.lock", reg);
    CHECK(close(open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) == 0 && chown(path, 0, 0) == 0);
    CHECK_EQ_INT(as_other_user(spec, grp, TOID_NANOFLAKE, 6, msg, sizeof msg), TOID_CLAIM_EIO);
    snprintf(want, sizeof want, "state %s/nanoflake-6.lock: permission denied: it is uid 0's with "
             "mode 0600; give it to the registry's group (as root: chgrp %s %s/nanoflake-6.lock "
             "&& chmod 0660 %s/nanoflake-6.lock)", reg, gr ? gr->gr_name : "4242", reg, reg);
    CHECK_MSG(strcmp(msg, want) == 0, "msg: %s", msg);
    if (c)
        toid_claimer_close(c);
    umask(old_umask);
    toid__claim_registry = saved;
}

void claim_test_sleep(int ms) { usleep((useconds_t)ms * 1000); }

/* ---- the cases -------------------------------------------------------------- */

/* set up before the cases run: a temp directory, and etcd if given */
const char *claim_test_base, *claim_test_etcd;
static char claim_test_base_buf[] = "/tmp/test_claim.XXXXXX";

/* the first three share one state directory when they run together */
static void state_dir(char *dir, size_t cap) { snprintf(dir, cap, "%s/state", claim_test_base); }

TEST_CASE(local_basic) {
    char dir[300];
    state_dir(dir, sizeof dir);
    test_local_basic(dir);
}

TEST_CASE(local_processes) {
    char dir[300];
    state_dir(dir, sizeof dir);
    test_local_processes(dir);
}

TEST_CASE(local_fork) {
    char dir[300];
    state_dir(dir, sizeof dir);
    test_local_fork(dir);
}

TEST_CASE(local_range_behind) {
    char dir[300];
    snprintf(dir, sizeof dir, "%s/behind", claim_test_base);
    test_local_range_behind(dir);
}



/* ---- the claims of a process (toid_claim_process) ---- */

static void write_text(const char *path, const char *text);

/* Under the sanitizers a child of a multi-threaded process cannot start a
 * claimer of its own: ThreadSanitizer refuses new threads there, and
 * AddressSanitizer's allocator (gcc 12) can be inherited locked by a
 * parent's thread that was allocating at fork() (the child's claimer thread
 * then hangs in malloc: seen in CI). glibc's malloc is fork-safe; the part
 * runs in the plain build. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define TC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define TC_TSAN 1
#endif
#endif

/* Runs body(spec, dir) in a process of its own, with TOID_CLAIM=spec
 * (local=<base>/<name>): toid_claim_process keeps one claimer per process,
 * so each case gets a fresh one whether the cases run alone or together.
 * The child's checks count here. */
static void in_process(const char *name, void (*body)(const char *spec, const char *dir)) {
    char dir[600], spec[700];
    snprintf(dir, sizeof dir, "%s/%s", claim_test_base, name);
    snprintf(spec, sizeof spec, "local=%s", dir);
    int p[2];
    CHECK(pipe(p) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        alarm(120); /* a hang fails, not blocks */
        check_passed = check_failed = 0;
        setenv("TOID_CLAIM", spec, 1);
        unsetenv("TOID_CLAIM_PREFIX");
        unsetenv("TOID_CLAIM_TTL");
        body(spec, dir);
        dprintf(p[1], "%ld %ld\n", check_passed, check_failed);
        fflush(NULL);
        _exit(0);
    }
    close(p[1]);
    char buf[64] = "";
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    buf[n > 0 ? n : 0] = '\0';
    int st = 0;
    waitpid(pid, &st, 0);
    long passed = 0, failed = 0;
    CHECK_MSG(sscanf(buf, "%ld %ld", &passed, &failed) == 2 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "%s: its process ended early (status %d)", name, st);
    check_passed += passed;
    check_failed += failed;
}

/* The node formats' ranges, for claims: the generator's node, or the low
 * bits the caller writes (uid11-seq). */
TEST_CASE(local_process_node_max) {
    CHECK_EQ_INT(toid_claim_node_max(TOID_NANOFLAKE), 1023);
    CHECK_EQ_INT(toid_claim_node_max(TOID_ULID_FLAKE_SCALABLE), 31);
    CHECK_EQ_INT(toid_claim_node_max(TOID_UID11_SEQ), 1023);
    CHECK_EQ_INT(toid_claim_node_max(TOID_ULID), 0);
    CHECK_EQ_INT(toid_claim_node_max(TOID_UUIDV7), 0);
    CHECK_EQ_INT(toid_claim_node_max((toid_format)TOID_FORMAT_COUNT), 0);
}

/* The process's node: the lowest free one, the same claim on every call;
 * a node by number is another claim (the same one if it is the process's
 * node); refusals of what cannot be claimed; a release. */
static void process_node(const char *spec, const char *dir) {
    toid_claimer_opts o;
    tc_opts(&o);
    int fd0 = -1, fd1 = -1;
    uint32_t node = 99;
    int64_t top = 0;
    /* nodes 0 and 1 held by other processes */
    pid_t h0 = tc_spawn_holder(spec, &o, TOID_NANOFLAKE, 0, 0, &fd0);
    CHECK(tc_read_report(fd0, &node, &top, 10000) == 0 && node == 0);
    pid_t h1 = tc_spawn_holder(spec, &o, TOID_NANOFLAKE, 1, 1, &fd1);
    CHECK(tc_read_report(fd1, &node, &top, 10000) == 0 && node == 1);
    char err[1024] = "";
    toid_claim *k = NULL, *again = NULL, *k2 = NULL, *k5 = NULL, *kx = NULL;
    CHECK_EQ_INT(toid_claim_process_held(TOID_NANOFLAKE, -1, &kx), 0);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, -1, &k, err, sizeof err), 0);
    if (!k) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    CHECK_EQ_INT(toid_claim_node(k), 2);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, -1, &again, err, sizeof err), 0);
    CHECK(again == k);
    CHECK(toid_claim_process_held(TOID_NANOFLAKE, -1, &kx) == 1 && kx == k);
    /* the process's node asked for by number: the same claim */
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, 2, &k2, err, sizeof err), 0);
    CHECK(k2 == k);
    /* another node by number: claimed once, then the same */
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, 5, &k5, err, sizeof err), 0);
    CHECK(k5 && k5 != k && toid_claim_node(k5) == 5);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, 5, &kx, err, sizeof err), 0);
    CHECK(kx == k5);
    CHECK(toid_claim_process_held(TOID_NANOFLAKE, 5, &kx) == 1 && kx == k5);
    CHECK_EQ_INT(toid_claim_process_held(TOID_NANOFLAKE, 6, &kx), 0);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now), 0);
    /* refused: another epoch for a node held, no node, out of range */
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 1704067200000, -1, &kx, err, sizeof err), TOID_EINVAL);
    CHECK_EQ_STR(err, "no node of nanoflake claimed: this process holds node 2 for epoch 0 ms, "
                      "not 1704067200000");
    CHECK_EQ_INT(toid_claim_process(TOID_ULID, 0, -1, &kx, err, sizeof err), TOID_EINVAL);
    CHECK_EQ_STR(err, "ulid has no node to claim");
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, 1024, &kx, err, sizeof err), TOID_EINVAL);
    CHECK_EQ_STR(err, "node 1024 of nanoflake: out of range (0..1023)");
    CHECK(kx == NULL);
    /* uid11-seq: its low bits' range */
    CHECK_EQ_INT(toid_claim_process(TOID_UID11_SEQ, 0, 1023, &kx, err, sizeof err), 0);
    /* a release: clean (the mark lowered to the last ID admitted), the node
     * free for others; the pointer stays safe and refuses; claimed again */
    now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k5, now, now), 0);
    CHECK(mark_in(dir, "nanoflake-5") > now);   /* reserved ahead */
    toid_claim_process_release(k5);
    CHECK_EQ_INT(mark_in(dir, "nanoflake-5"), now);
    CHECK_EQ_INT(toid_claim_admit(k5, now + 1, now + 1), TOID_CLAIM_ELOST);
    CHECK_EQ_INT(toid_claim_valid(k5, NULL), 0);
    CHECK_EQ_INT(toid_claim_process_held(TOID_NANOFLAKE, 5, &kx), 0);
    toid_claimer *other = NULL;
    toid_claim *ko = NULL;
    CHECK(tc_open(spec, &o, &other) == 0);
    if (other) {
        CHECK_EQ_INT(toid_claim_acquire(other, TOID_NANOFLAKE, 0, 5, 5, &ko), 0);
        /* ...and the process's claims are held: */
        CHECK_EQ_INT(toid_claim_acquire(other, TOID_NANOFLAKE, 0, 2, 2, &kx), TOID_CLAIM_EBUSY);
        toid_claimer_close(other);
    }
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, 5, &kx, err, sizeof err), 0);
    CHECK(kx && kx != k5 && toid_claim_node(kx) == 5);
    toid_claim_process_release(k5);   /* (released already: nothing) */
    CHECK(toid_claim_process_held(TOID_NANOFLAKE, 5, &k2) == 1 && k2 == kx);
    tc_reap(h0);
    tc_reap(h1);
    close(fd0);
    close(fd1);
}

TEST_CASE(local_process_node) { in_process("process_node", process_node); }

/* A child that claims the process's node of f, writes "NODE\n" (or "FAIL
 * msg") to *report, then holds it until a byte comes on *quit, and leaves
 * with exit() (its claims given back cleanly at exit). */
static pid_t process_child(toid_format f, int *report, int *quit) {
    int r[2], q[2];
    if (pipe(r) < 0 || pipe(q) < 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(r[0]);
        close(q[1]);
        char err[1024] = "";
        toid_claim *k = NULL;
        if (toid_claim_process(f, 0, -1, &k, err, sizeof err) < 0) {
            dprintf(r[1], "FAIL %s\n", err);
            _exit(3);
        }
        int64_t now = toid_clock_now(NULL);
        toid_claim_admit(k, now, now);
        dprintf(r[1], "%" PRIu32 "\n", toid_claim_node(k));
        char b;
        ssize_t n = read(q[0], &b, 1);
        (void)n;
        exit(0);
    }
    close(r[1]);
    close(q[0]);
    *report = r[0];
    *quit = q[1];
    return pid;
}

static int child_node(int fd) {
    char buf[1200] = "";
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    if (strncmp(buf, "FAIL", 4) == 0)
        fprintf(stderr, "  child: %s", buf);
    return n > 0 && buf[0] >= '0' && buf[0] <= '9' ? atoi(buf) : -1;
}

/* Processes at once get different nodes, each the lowest free one; one
 * that leaves with exit() gave its node back cleanly (its mark lowered to
 * its last ID, not left reserved ahead). */
static void process_two(const char *spec, const char *dir) {
    (void)spec;
    int ra, qa, rb, qb;
    pid_t a = process_child(TOID_NANOFLAKE, &ra, &qa);
    CHECK_EQ_INT(child_node(ra), 0);
    pid_t b = process_child(TOID_NANOFLAKE, &rb, &qb);
    CHECK_EQ_INT(child_node(rb), 1);
    char err[1024] = "";
    toid_claim *k = NULL;
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, -1, &k, err, sizeof err), 0);
    CHECK_EQ_INT(k ? toid_claim_node(k) : 99, 2);
    CHECK(mark_in(dir, "nanoflake-0") > toid_clock_now(NULL)); /* reserved ahead while held */
    CHECK(write(qa, "q", 1) == 1 && write(qb, "q", 1) == 1);
    int st = 0;
    CHECK(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(waitpid(b, &st, 0) == b && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_MSG(mark_in(dir, "nanoflake-0") <= toid_clock_now(NULL),
              "the mark of a node given back at exit is its last ID, not ahead");
    close(ra);
    close(rb);
    close(qa);
    close(qb);
}

TEST_CASE(local_process_two) { in_process("process_two", process_two); }

/* A node asked for by number, held by another process: refused, naming the
 * holder and where the claim came from; the refusal is not kept. */
static void process_held_elsewhere(const char *spec, const char *dir) {
    (void)dir;
    toid_claimer_opts o;
    tc_opts(&o);
    int fd = -1;
    uint32_t node = 99;
    int64_t top = 0;
    pid_t holder = tc_spawn_holder(spec, &o, TOID_UID11_SEQ, 9, 9, &fd);
    CHECK(tc_read_report(fd, &node, &top, 10000) == 0 && node == 9);
    char err[1024] = "", want[1400];
    toid_claim *k = NULL;
    CHECK_EQ_INT(toid_claim_process(TOID_UID11_SEQ, 0, 9, &k, err, sizeof err), TOID_CLAIM_EBUSY);
    snprintf(want, sizeof want, "node 9 of uid11-seq not claimed from TOID_CLAIM=%s: uid11-seq node "
             "9 is in use by another process (pid %ld, lock %s/uid11-seq-9.lock is "
             "held)", spec, (long)holder, dir);
    CHECK_MSG(strstr(err, want) == err, "message: %s", err);
    /* the process's node: another one */
    CHECK_EQ_INT(toid_claim_process(TOID_UID11_SEQ, 0, -1, &k, err, sizeof err), 0);
    CHECK_EQ_INT(k ? toid_claim_node(k) : 99, 0);
    tc_reap(holder);
    close(fd);
    CHECK_EQ_INT(toid_claim_process(TOID_UID11_SEQ, 0, 9, &k, err, sizeof err), 0);
    CHECK_EQ_INT(k ? toid_claim_node(k) : 99, 9);
}

TEST_CASE(local_process_held_elsewhere) { in_process("process_held", process_held_elsewhere); }

/* fork(): the child never uses the parent's claim (refused; the pointer
 * stays safe) and claims its own node; the parent goes on with its own. */
static void process_fork(const char *spec, const char *dir) {
    (void)dir;
    char err[1024] = "";
    toid_claim *k = NULL;
    CHECK_EQ_INT(toid_claim_process(TOID_ULID_FLAKE_SCALABLE, 0, -1, &k, err, sizeof err), 0);
    if (!k)
        return;
    CHECK_EQ_INT(toid_claim_node(k), 0);
    int64_t now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now), 0);
    int p[2];
    CHECK(pipe(p) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        check_passed = check_failed = 0;
        int64_t t = toid_clock_now(NULL);
        CHECK_EQ_INT(toid_claim_admit(k, t, t), TOID_CLAIM_ELOST);
        CHECK_EQ_INT(toid_claim_valid(k, NULL), 0);
        toid_claim *kc = NULL, *kx = NULL;
        CHECK_EQ_INT(toid_claim_process_held(TOID_ULID_FLAKE_SCALABLE, -1, &kx), 0);
        int got = -1;
#ifndef TC_TSAN
        CHECK_EQ_INT(toid_claim_process(TOID_ULID_FLAKE_SCALABLE, 0, -1, &kc, err, sizeof err), 0);
        if (kc) {
            got = (int)toid_claim_node(kc);
            CHECK(kc != k);
            t = toid_clock_now(NULL);
            CHECK_EQ_INT(toid_claim_admit(kc, t, t), 0);
            CHECK_EQ_INT(toid_claim_process(TOID_ULID_FLAKE_SCALABLE, 0, -1, &kx, err, sizeof err), 0);
            CHECK(kx == kc);
        }
        /* the parent's node by number: held by the parent */
        CHECK_EQ_INT(toid_claim_process(TOID_ULID_FLAKE_SCALABLE, 0, 0, &kx, err, sizeof err),
                     TOID_CLAIM_EBUSY);
        char want[64];
        snprintf(want, sizeof want, "(pid %ld, lock", (long)getppid());
        CHECK_MSG(strstr(err, want), "names the parent: %s", err);
#else
        (void)kc;
        dprintf(1, "  (a sanitizer build: the child does not claim a node of its own: no new "
                   "threads in the child of a multi-threaded process)\n");
#endif
        CHECK_EQ_INT(toid_claim_admit(k, t, t), TOID_CLAIM_ELOST); /* still refused, still there */
        dprintf(p[1], "%d %ld %ld\n", got, check_passed, check_failed);
#ifndef TC_TSAN
        exit(0); /* its own claim given back at exit (the parent's untouched) */
#else
        _exit(0); /* (no exit handlers: LeakSanitizer's check at exit takes the allocator's
                     lock, which the child may have inherited locked: it hung in CI) */
#endif
    }
    close(p[1]);
    char buf[100] = "";
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(p[0]);
    int st = 0, got = -2;
    long passed = 0, failed = 0;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(sscanf(buf, "%d %ld %ld", &got, &passed, &failed) == 3);
    check_passed += passed;
    check_failed += failed;
#ifndef TC_TSAN
    CHECK_EQ_INT(got, 1);
#endif
    /* the parent: its claim as before */
    now = toid_clock_now(NULL);
    CHECK_EQ_INT(toid_claim_admit(k, now, now), 0);
    CHECK_EQ_INT(toid_claim_valid(k, NULL), 1);
    toid_claim *kx = NULL;
    CHECK_EQ_INT(toid_claim_process(TOID_ULID_FLAKE_SCALABLE, 0, -1, &kx, err, sizeof err), 0);
    CHECK(kx == k);
    /* node 0 still the parent's; the child's node free again */
    toid_claimer_opts o;
    tc_opts(&o);
    toid_claimer *other = NULL;
    CHECK(tc_open(spec, &o, &other) == 0);
    if (other) {
        CHECK_EQ_INT(toid_claim_acquire(other, TOID_ULID_FLAKE_SCALABLE, 0, 0, 0, &kx), TOID_CLAIM_EBUSY);
        CHECK_EQ_INT(toid_claim_acquire(other, TOID_ULID_FLAKE_SCALABLE, 0, 1, 1, &kx), 0);
    }
    /* a child that never makes an ID does not keep its parent's node held:
     * its copy of the lock file was closed at fork() */
    int q[2], ready[2];
    CHECK(pipe(q) == 0 && pipe(ready) == 0);
    fflush(NULL);
    pid_t idle = fork();
    if (idle == 0) {
        close(q[1]);
        close(ready[0]);
        /* fork() has returned here: the child's fork handlers have run */
        ssize_t w = write(ready[1], "r", 1);
        char b;
        ssize_t r = read(q[0], &b, 1); /* until the parent is done */
        _exit(r < 0 || w != 1);
    }
    close(q[0]);
    close(ready[1]);
    {
        char b;
        CHECK(read(ready[0], &b, 1) == 1);   /* (not by timing: the child said so) */
        close(ready[0]);
    }
    toid_claim_process_release(k);
    if (other) {
        CHECK_EQ_INT(toid_claim_acquire(other, TOID_ULID_FLAKE_SCALABLE, 0, 0, 0, &kx), 0);
        toid_claimer_close(other);
    }
    close(q[1]);
    CHECK(waitpid(idle, &st, 0) == idle && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

TEST_CASE(local_process_fork) { in_process("process_fork", process_fork); }

/* Where the claim came from, in every error: the variable, the file and
 * its line, the host's registry; and a failure is not kept. */
static void process_config(const char *spec, const char *dir) {
    char file[700], bad[800], conf[700], missing[700], err[2048] = "", want[4096];
    toid_claim *k = NULL;
    snprintf(file, sizeof file, "%s.file", dir);
    snprintf(bad, sizeof bad, "%s/sub", file);
    snprintf(conf, sizeof conf, "%s.conf", dir);
    snprintf(missing, sizeof missing, "%s.none", dir);
    write_text(file, "not a directory\n");
    /* the variable */
    char badspec[900];
    snprintf(badspec, sizeof badspec, "local=%s", bad);
    setenv("TOID_CLAIM", badspec, 1);
    setenv("TOID_CLAIM_CONF", missing, 1);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, -1, &k, err, sizeof err), TOID_CLAIM_EIO);
    snprintf(want, sizeof want, "no node of nanoflake claimed from TOID_CLAIM=%s: claim directory "
             "%s: cannot create it: Not a directory", badspec, bad);
    CHECK_EQ_STR(err, want);
    setenv("TOID_CLAIM", "nfs", 1);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, 3, &k, err, sizeof err), TOID_EINVAL);
    CHECK_EQ_STR(err, "node 3 of nanoflake not claimed from the host's claim configuration: "
                      "TOID_CLAIM: unknown claim backend 'nfs' (local, local=DIR or etcd=URL[,URL...])");
    /* the file and its line */
    unsetenv("TOID_CLAIM");
    snprintf(want, sizeof want, "# the host's claims\nclaim = %s\n", badspec);
    write_text(conf, want);
    setenv("TOID_CLAIM_CONF", conf, 1);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, -1, &k, err, sizeof err), TOID_CLAIM_EIO);
    snprintf(want, sizeof want, "no node of nanoflake claimed from %s:2 (claim = %s): claim "
             "directory %s: cannot create it: Not a directory", conf, badspec, bad);
    CHECK_EQ_STR(err, want);
    /* nothing configured: the host's registry (here one that does not exist) */
    char reg[700];
    snprintf(reg, sizeof reg, "%s.registry", dir);
    const char *saved = toid__claim_registry;
    toid__claim_registry = reg;
    setenv("TOID_CLAIM_CONF", missing, 1);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, -1, &k, err, sizeof err), TOID_CLAIM_EIO);
    snprintf(want, sizeof want, "no node of nanoflake claimed from the host's node registry "
             "(TOID_CLAIM unset, no claim in %s): the host's node registry %s does not exist: set "
             "it up", missing, reg);
    CHECK_MSG(strstr(err, want) == err, "message: %s", err);
    CHECK(k == NULL);
    toid__claim_registry = saved;
    /* fixed: the next call claims */
    setenv("TOID_CLAIM", spec, 1);
    CHECK_EQ_INT(toid_claim_process(TOID_NANOFLAKE, 0, -1, &k, err, sizeof err), 0);
    CHECK_EQ_INT(k ? toid_claim_node(k) : 99, 0);
}

TEST_CASE(local_process_config) { in_process("process_config", process_config); }

/* ---- the host's claim configuration, and what a backend is ---- */

/* Writes text to path. */
static void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

/* toid_claim_host_config with the given environment (NULL: unset) and the
 * file at conf; its result and *h, and the message in err. */
static int host(const char *claim, const char *prefix, const char *ttl, const char *conf, toid_claim_host *h,
                char *err, size_t err_size) {
    const char *names[4] = {"TOID_CLAIM", "TOID_CLAIM_PREFIX", "TOID_CLAIM_TTL", "TOID_CLAIM_CONF"};
    const char *values[4] = {claim, prefix, ttl, conf};
    for (int i = 0; i < 4; i++) {
        if (values[i])
            setenv(names[i], values[i], 1);
        else
            unsetenv(names[i]);
    }
    err[0] = '\0';
    return toid_claim_host_config(h, err, err_size);
}

TEST_CASE(local_host_config) {
    char conf[300], missing[300], err[600];
    toid_claim_host h;
    snprintf(conf, sizeof conf, "%s/claim.conf", claim_test_base);
    snprintf(missing, sizeof missing, "%s/none.conf", claim_test_base);
    /* nothing configured: no spec */
    CHECK_EQ_INT(host(NULL, NULL, NULL, missing, &h, err, sizeof err), 0);
    CHECK_EQ_STR(h.spec, "");
    CHECK_EQ_STR(h.source, "");
    /* the file */
    write_text(conf, "# the host's claims\n\n  claim = local=/srv/toid/claims \nprefix=/pods\nttl = 20\n");
    CHECK_EQ_INT(host(NULL, NULL, NULL, conf, &h, err, sizeof err), 0);
    CHECK_EQ_STR(h.spec, "local=/srv/toid/claims");
    CHECK_EQ_STR(h.prefix, "/pods");
    CHECK_EQ_INT(h.ttl_ms, 20000);
    char where[700];
    snprintf(where, sizeof where, "%s:3", conf);
    CHECK_EQ_STR(h.source, where);
    /* the environment over the file, setting by setting */
    CHECK_EQ_INT(host("local=/run/x", NULL, "5", conf, &h, err, sizeof err), 0);
    CHECK_EQ_STR(h.spec, "local=/run/x");
    CHECK_EQ_STR(h.source, "TOID_CLAIM");
    CHECK_EQ_STR(h.prefix, "/pods");
    CHECK_EQ_INT(h.ttl_ms, 5000);
    /* errors name where they come from */
    CHECK_EQ_INT(host("nfs=/x", NULL, NULL, missing, &h, err, sizeof err), TOID_EINVAL);
    CHECK_MSG(strncmp(err, "TOID_CLAIM: unknown claim backend 'nfs=/x'", 42) == 0, "%s", err);
    CHECK_EQ_INT(host(NULL, NULL, "0", missing, &h, err, sizeof err), TOID_EINVAL);
    CHECK_EQ_STR(err, "TOID_CLAIM_TTL: '0' is not a TTL (whole seconds, 1 to 3600)");
    write_text(conf, "claim = local\nlease = 4\n");
    CHECK_EQ_INT(host(NULL, NULL, NULL, conf, &h, err, sizeof err), TOID_EINVAL);
    snprintf(where, sizeof where, "%s:2: unknown setting 'lease' (claim, prefix or ttl)", conf);
    CHECK_EQ_STR(err, where);
    write_text(conf, "claim local\n");
    CHECK_EQ_INT(host(NULL, NULL, NULL, conf, &h, err, sizeof err), TOID_EINVAL);
    snprintf(where, sizeof where, "%s:1: expected 'key = value'", conf);
    CHECK_EQ_STR(err, where);
    /* a file that is there but cannot be read says so (a directory here) */
    CHECK_EQ_INT(host(NULL, NULL, NULL, claim_test_base, &h, err, sizeof err), TOID_EINVAL);
    CHECK(strstr(err, claim_test_base) == err);
    host(NULL, NULL, NULL, NULL, &h, err, sizeof err);   /* leave the environment unset */
    unsetenv("TOID_CLAIM_CONF");
}

TEST_CASE(local_backend_info) {
    toid_claim_backend_info i;
    char err[300];
    CHECK_EQ_INT(toid_claim_backend_of("local", &i, err, sizeof err), 0);
    CHECK(strcmp(i.kind, "local") == 0 && !i.shared_by_hosts && !i.leases && !i.takes_prefix_ttl);
    CHECK_EQ_INT(toid_claim_backend_of("local=/x", &i, err, sizeof err), 0);
    CHECK_EQ_INT(toid_claim_backend_of(NULL, &i, err, sizeof err), 0);
    CHECK_EQ_STR(i.kind, "local");
    CHECK_EQ_INT(toid_claim_backend_of("locally", &i, err, sizeof err), TOID_EINVAL);
    CHECK_EQ_STR(err, "unknown claim backend 'locally' (local, local=DIR or etcd=URL[,URL...])");
#ifdef TOID_TEST_HAVE_ETCD
    CHECK_EQ_INT(toid_claim_backend_of("etcd=http://127.0.0.1:2379", &i, err, sizeof err), 0);
    CHECK(strcmp(i.kind, "etcd") == 0 && i.shared_by_hosts && i.leases && i.takes_prefix_ttl);
#endif
}

static int setup(int nparam, char **param) {
    if (nparam > 1) {
        fprintf(stderr, "usage: test_claim [--list] [CASE...] [ETCD_BINARY] | test_claim port\n");
        return 2;
    }
    claim_test_etcd = nparam ? param[0] : NULL;
    signal(SIGPIPE, SIG_IGN);
    claim_test_base = mkdtemp(claim_test_base_buf);
    if (!claim_test_base) {
        perror("mkdtemp");
        return 2;
    }
    return 0;
}

static void teardown(void) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", claim_test_base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", claim_test_base);
}

int main(int argc, char **argv) {
    if (argc == 6 && strcmp(argv[1], "as-user") == 0)
        return as_user_main(argv + 2);
    if (argc == 2 && strcmp(argv[1], "port") == 0) { /* a free loopback port, for the CLI's test */
        int port = claim_test_free_port();
        printf("%d\n", port);
        return port > 0 ? 0 : 1;
    }
    return check_main(argc, argv, setup, teardown);
}
