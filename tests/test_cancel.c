/* test_cancel.c — pthread_cancel at random points of a thread's IDs: the
 * generator goes on. Each round starts a thread that makes IDs in a loop
 * (one by one, in batches, or as text; on its own generator, on one the main
 * thread made an ID of first so that the thread's first call takes it over,
 * or on the process-wide generator), cancels it a random few microseconds
 * later, joins it, and then makes IDs on the same generator from the main
 * thread. The thread reseeds its CSPRNG at every call (a test hook), which
 * for the formats that draw random bytes per ID happens inside the ID, so a
 * cancellation point there (glibc's getrandom) would be hit often: the
 * cancelled thread would leave the generator "inside an ID" for ever and
 * the main thread's next call would wait for it for ever (issue 25). What
 * must hold: no call hangs (an alarm fails the case), no call is refused,
 * no ID is issued twice.
 *   usage: test_cancel [--list] [CASE...] [ROUNDS_PER_FORMAT]
 */
#define _GNU_SOURCE
#include "check.h"
#include "count_dups.h"
#include "new_gen.h"
#include "toid.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define LOG_MAX 400000       /* IDs kept per format and case */
#define MAIN_IDS 40          /* the main thread's IDs after each cancel */

static long rounds = 300;

void toid__test_reseed_now(void);   /* the thread's next draw seeds its CSPRNG (entropy.c) */

typedef enum how { ONE, BATCH, TEXT, HOWS } how;

typedef struct maker {
    toid_gen *g;             /* NULL: the process-wide generator */
    toid_format f;
    how how;
    uint8_t *log;            /* 20-byte slots */
    long *logged;
    int refused;
} maker;

/* Keeps an ID (the maker and the main thread never log at once). */
static void keep(maker *m, const uint8_t *id) {
    size_t size = toid_bin_size(m->f);
    if (*m->logged >= LOG_MAX)
        return;
    uint8_t *slot = m->log + (size_t)*m->logged * 20;
    memcpy(slot, id, size);
    memset(slot + size, 0, 20 - size);
    ++*m->logged;
}

/* One call of the maker's kind: its IDs logged; < 0 on error. */
static int make(maker *m) {
    uint8_t buf[16 * TOID_BIN_MAX];
    char text[TOID_TEXT_MAX];
    size_t n = 0;
    int rc;
    switch (m->how) {
    case BATCH:
        rc = m->g ? toid_gen_batch(m->g, buf, 16, &n) : toid_new_batch(m->f, buf, 16, &n);
        break;
    case TEXT:
        rc = m->g ? toid_gen_next_text(m->g, text, sizeof text) : toid_new_text(m->f, text, sizeof text);
        if (rc >= 0 && toid_decode(m->f, text, (size_t)rc, buf, NULL) < 0)
            rc = TOID_EINVAL;
        n = rc >= 0;
        break;
    default:
        rc = m->g ? toid_gen_next(m->g, buf, NULL) : toid_new(m->f, buf);
        n = rc >= 0;
        break;
    }
    /* no cancellation point between the call and the log: a cancelled
     * thread loses no ID that it made */
    for (size_t i = 0; i < n; i++)
        keep(m, buf + i * toid_bin_size(m->f));
    return rc;
}

static void *make_until_cancelled(void *arg) {
    maker *m = arg;
    int old;
    for (;;) {
        /* every draw (inside the ID, on the owner's path) makes the system
         * call: a cancellation point there would be hit often */
        toid__test_reseed_now();
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
        pthread_testcancel();
        /* the library's own cancellation points, if any, are the only ones
         * inside the call */
        int rc = make(m);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        if (rc < 0)
            m->refused++;
    }
    return NULL;
}

static void sleep_us(unsigned us) {
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}


static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "test_cancel: a call hung after a thread was cancelled\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

/* `rounds` cancelled threads per format on `kind`: 0 a fresh generator of
 * the thread's, 1 a fresh one the main thread made an ID of first, 2 the
 * process-wide generator. */
static void run(int kind) {
    uint8_t *log = malloc((size_t)LOG_MAX * 20);
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    signal(SIGALRM, on_alarm);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        long logged = 0, refused = 0, main_refused = 0, dups = 0, total = 0;
        int last_error = 0;
        if (kind == 2) {    /* WAIT when a ms is exhausted, as new_gen's */
            toid_gen_config c;
            toid_gen_config_default((toid_format)f, &c);
            c.on_exhausted = TOID_EXHAUSTED_WAIT;
            CHECK(toid_configure(&c) == 0);
        }
        for (long r = 0; r < rounds; r++) {
            toid_gen *g = kind == 2 ? NULL : new_gen((toid_format)f);
            maker m = {.g = g, .f = (toid_format)f, .how = (how)(rand_r(&seed) % HOWS), .log = log,
                       .logged = &logged};
            if (kind == 1)
                make(&m);   /* the main thread owns g: the thread's first call takes it over */
            pthread_t th;
            alarm(60);
            pthread_create(&th, NULL, make_until_cancelled, &m);
            sleep_us((unsigned)rand_r(&seed) % 60);
            pthread_cancel(th);
            pthread_join(th, NULL);
            refused += m.refused;
            for (int i = 0; i < MAIN_IDS; i++) {
                m.how = (how)(i % HOWS);
                int rc = make(&m);
                if (rc < 0) {
                    main_refused++;
                    last_error = rc;
                }
            }
            alarm(0);
            free(g);
            /* one generator's IDs: a fresh generator's (two generators of a
             * node format with the same node repeat each other, as they
             * should), or the process-wide one's, all rounds together */
            if (kind != 2 || r == rounds - 1) {
                dups += count_dups(log, logged);
                total += logged;
                logged = 0;
            }
        }
        logged = total;
        const char *name = toid_format_get((toid_format)f)->name;
        CHECK_MSG(dups == 0, "%s: %ld duplicates in %ld IDs", name, dups, logged);
        CHECK_MSG(refused == 0, "%s: the cancelled threads had %ld calls refused", name, refused);
        CHECK_MSG(main_refused == 0, "%s: %ld calls after a cancel refused (last %s)", name, main_refused,
                  toid_err_name(last_error));
        CHECK_MSG(logged > rounds * MAIN_IDS, "%s: %ld IDs logged", name, logged);
    }
    free(log);
}

TEST_CASE(own_generator) { run(0); }

TEST_CASE(taken_over_generator) { run(1); }

TEST_CASE(process_wide) { run(2); }

static int setup(int nparam, char **param) {
    if (nparam > 0)
        rounds = atol(param[0]);
    return 0;
}

int main(int argc, char **argv) { return check_main(argc, argv, setup, NULL); }
