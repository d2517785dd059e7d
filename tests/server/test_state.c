/* test_state.c — toidd's state directory (its local claims through the claim
 * library, "local=DIR"), white box:
 *  1. a fresh directory initialises; the lock refuses a second holder; a
 *     missing or corrupt mark is refused; --reset-state recovers;
 *  2. crash safety: a child issues IDs through state_admit with a tiny
 *     reservation (a write of the mark nearly every ms) and reports each time
 *     admitted; the parent kills it with SIGKILL at random moments. After
 *     every kill the mark on disk must parse and be >= every time the child
 *     was allowed to issue, and the next start must be after it.
 * The cases are check.h's (basics, crashes); usage:
 *   test_server_state [--list] [CASE...] [CRASH_ROUNDS]   (default 60) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "toid.h"
#include "toid_claim.h"

/* toidd opens its state directory as a local claimer and holds one claim
 * per (format, node); these wrappers keep the test in toidd's terms. */
typedef struct state_opts {
    int reset;                  /* --reset-state */
    uint32_t clock_wait_max_ms; /* --clock-wait-max-ms */
    uint32_t reserve_ms;        /* --reserve-ms */
} state_opts;
typedef struct state {
    toid_claimer *cl;
    toid_claim *k;
} state;
enum { STATE_EBEHIND = TOID_CLAIM_EBEHIND };

static int state_open(const char *dir, toid_format f, uint32_t node, int64_t epoch_ms,
                      const state_opts *o, state **out) {
    char spec[600], err[512];
    snprintf(spec, sizeof spec, "local=%s", dir);
    toid_claimer_opts co;
    memset(&co, 0, sizeof co);
    co.reset = o->reset;
    co.clock_wait_max_ms = o->clock_wait_max_ms;
    co.reserve_ms = o->reserve_ms;
    state *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    if (toid_claimer_open(spec, &co, &s->cl, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        free(s);
        return -1;
    }
    if (toid_claim_acquire(s->cl, f, epoch_ms, node, node, &s->k) < 0) {
        toid_claimer_close(s->cl);
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

static int state_admit(state *s, int64_t min_ms, int64_t max_ms) {
    return toid_claim_admit(s->k, min_ms, max_ms);
}

static void state_close(state *s, int clean) {
    toid_claim_release(s->k, clean);
    toid_claimer_close(s->cl);
    free(s);
}


/* The mark in dir for ulid node 0; -1 if there is none, -2 if it does not parse. */
static int64_t read_mark_value(const char *dir) {
    char path[512], buf[600];
    snprintf(path, sizeof path, "%s/ulid-0.mark", dir);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return errno == ENOENT ? -1 : -2;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -2;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nissued_up_to_ms ");
    if (!p || strncmp(buf, "toidd-mark 1\n", 13) != 0 || !strstr(buf, "\ncheck "))
        return -2;
    return strtoll(p + 17, NULL, 10);
}

static void write_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

static void basics(const char *dir) {
    state_opts o = {0, 2000, 1000};
    state *s = NULL, *s2 = NULL;
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &o, &s) == 0, "a fresh directory initialises");
    if (!s)
        return;
    int64_t now = toid_clock_now(NULL);
    int64_t mark = read_mark_value(dir);
    CHECK_MSG(mark >= now + 900, "the start reserves ahead (mark %" PRId64 ", now %" PRId64 ")", mark, now);
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &o, &s2) < 0, "a second holder of the lock is refused");
    CHECK_MSG(state_admit(s, now, now) == 0, "an ID now is admitted");
    CHECK_MSG(state_admit(s, now + 5000, now + 5000) == 0, "an ID past the mark is admitted ...");
    CHECK_MSG(read_mark_value(dir) >= now + 5000, "... after the mark is moved past it");
    state_close(s, 0);
    /* a restart must be after every ID: the clock is 4 s behind the mark */
    o.clock_wait_max_ms = 500;
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &o, &s) < 0, "the clock behind the mark is refused");
    o.reset = 1;
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &o, &s) == 0, "--reset-state recovers");
    if (s) {
        now = toid_clock_now(NULL);
        CHECK_MSG(state_admit(s, now - 1000, now) == STATE_EBEHIND, "IDs before the start's mark are refused");
        state_close(s, 1);
    }
    o.reset = 0;
    o.clock_wait_max_ms = 2000;
    write_file(dir, "ulid-0.mark", "toidd-mark 1\nformat ulid\nnode 0\nepoch_ms 0\nissued_up_to_ms 5\ncheck 0\n");
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &o, &s) < 0, "a corrupt mark is refused");
    char path[512];
    snprintf(path, sizeof path, "%s/ulid-0.mark", dir);
    unlink(path);
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &o, &s) < 0, "a missing mark is refused once initialised");
    o.reset = 1;
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &o, &s) == 0, "--reset-state recovers a missing mark");
    if (s)
        state_close(s, 1);
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 12345, &(state_opts){0, 2000, 1000}, &s) < 0,
          "a mark written for another epoch is refused");
}

/* The child: issue (admit) times as fast as the clock goes; report each. */
static void child(const char *dir, int wfd) {
    state_opts o = {0, 5000, 1};
    state *s = NULL;
    if (state_open(dir, TOID_ULID, 0, 0, &o, &s) < 0)
        _exit(3);
    for (;;) {
        int64_t t = toid_clock_now(NULL);
        if (state_admit(s, t, t) == 0) {
            if (write(wfd, &t, sizeof t) != sizeof t)
                _exit(4);
        }
    }
}

static void crashes(const char *dir, int rounds) {
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    int64_t max_issued = INT64_MIN;
    int ok_rounds = 0;
    long total = 0;
    for (int r = 0; r < rounds; r++) {
        int p[2];
        if (pipe(p) < 0)
            return;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            child(dir, p[1]);
        }
        close(p[1]);
        struct timespec ts = {0, (long)(1 + rand_r(&seed) % 100) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        int64_t t;
        while (read(p[0], &t, sizeof t) == sizeof t) {
            if (t > max_issued)
                max_issued = t;
            total++;
        }
        close(p[0]);
        if (WIFEXITED(st)) {
            CHECK_MSG(0, "round %d: the child could not start (status %d)", r, WEXITSTATUS(st));
            continue;
        }
        int64_t mark = read_mark_value(dir);
        if (mark == -1 && max_issued == INT64_MIN) {
            ok_rounds++;   /* killed in the very first start, before any mark or ID */
            continue;
        }
        if (mark < 0 || mark < max_issued) {
            CHECK_MSG(0, "round %d: mark %" PRId64 " after a kill, an ID was issued at %" PRId64, r,
                  mark, max_issued);
            return;
        }
        ok_rounds++;
    }
    CHECK_MSG(ok_rounds == rounds, "%d of %d kill -9 rounds kept the mark at or past every ID",
          ok_rounds, rounds);
    CHECK_MSG(total > 0, "the children issued IDs (%ld admitted)", total);
    /* and the next start issues only after all of them */
    state *s = NULL;
    CHECK_MSG(state_open(dir, TOID_ULID, 0, 0, &(state_opts){0, 5000, 1000}, &s) == 0,
          "a start after the kills");
    if (s) {
        int64_t t = toid_clock_now(NULL);
        CHECK_MSG(t > max_issued, "the clock is past every ID before the start returns");
        CHECK_MSG(state_admit(s, max_issued, max_issued) == STATE_EBEHIND,
              "an ID at the last issued time is refused");
        state_close(s, 1);
    }
}

static char state_dir[] = "/tmp/toidd-state-test.XXXXXX";
static int crash_rounds = 60;   /* the parameter */

TEST_CASE(basics) { basics(state_dir); }

TEST_CASE(crashes) {
    char dir2[600];
    snprintf(dir2, sizeof dir2, "%s/crash", state_dir);
    mkdir(dir2, 0700);
    crashes(dir2, crash_rounds);
}

static int setup(int nparam, char **param) {
    if (nparam > 1 || (nparam == 1 && atoi(param[0]) <= 0)) {
        fprintf(stderr, "usage: test_server_state [--list] [CASE...] [CRASH_ROUNDS]\n");
        return 2;
    }
    if (nparam == 1)
        crash_rounds = atoi(param[0]);
    if (!mkdtemp(state_dir)) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

static void teardown(void) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", state_dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", state_dir);
}

int main(int argc, char **argv) {
    return check_main(argc, argv, setup, teardown);
}
