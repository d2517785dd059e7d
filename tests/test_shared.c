/* test_shared.c — one TOID_GEN_SHARED generator in MAP_SHARED memory, used
 * by forked processes.
 *
 * What a child records: for every ID, a ticket from one atomic counter in
 * shared memory taken AFTER the call returned, and the counter's value read
 * BEFORE the call started (`start`). If start_B > ticket_A, A's call had
 * returned before B's began, so one monotonic stream must give ID_A < ID_B
 * (uid11: time(A) <= time(B), its order within a ms is random by spec).
 * That is checked for every such pair (a prefix maximum over tickets), with
 * no timing involved. Also: no duplicates, each process's IDs strictly
 * increasing (uid11: its time non-decreasing), node formats keep their
 * node, and every call succeeds (no TOID_EFORKED).
 *
 *  1. every format: CHILDREN processes x IDS IDs (half by toid_gen_next,
 *     half by toid_gen_batch of 16; one process in four splits its IDs
 *     between two threads);
 *  2. kill -9 at random moments, KILL_ROUNDS rounds over the formats: the
 *     survivors finish, the checks hold over every ID a child recorded;
 *  3. ulid, uuidv7, uid11 (the locked formats): a child dies while holding
 *     the lock, deterministically through a test hook, right after the core
 *     made an ID, having first put the state back as it was before that ID
 *     (a commit that never landed) and recorded the ID as issued: the
 *     survivors go on, and come after it;
 *  4. negative controls: the same death with the repair switched off, on a
 *     frozen clock, must give a duplicate; a node format in shared memory
 *     without TOID_GEN_SHARED returns TOID_EFORKED in a child;
 *  5. each process draws from its own CSPRNG: children that share a
 *     generator never repeat the parent's or each other's random bytes.
 *   usage: test_shared [--list] [CASE...] [CHILDREN [IDS [KILL_ROUNDS]]]   (defaults 16, 200000, 8) */
#define _GNU_SOURCE
#include "check.h"
#include "toid.h"
#include "../src/gen_state.h"     /* white box: the generator's state */

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the library's test hooks (static library) */
extern void (*toid__test_shared_hold)(toid_gen *g, const uint8_t *id, int after);
extern int toid__test_skip_repair;

#define MAXCHILD 64
#define BATCH 16
#define NODE 7u

static int children = 16;
static long ids = 200000;
static int kill_rounds = 8;

typedef struct record {
    uint8_t id[20];
    uint32_t start;     /* the counter before the call */
    uint16_t proc;
    uint8_t done;       /* written last: a child killed mid-record leaves 0 */
} record;

typedef struct shared {
    toid_gen_uid11 room;    /* a generator of any format, uid11's set included */
    uint32_t ticket;
    int stop_victim;    /* control: the survivor waits for the victim's death */
    uint8_t streams[MAXCHILD + 1][32];
    record rec[];       /* indexed by ticket */
} shared;

static shared *sh;
static size_t cap;      /* records */
static uint32_t used;   /* records written since the last clearing */

static size_t size_of(toid_format f) { return toid_bin_size(f); }

static int64_t time_of(toid_format f, const uint8_t *id) {
    int64_t ms = 0;
    toid_time_of(f, id, TOID_EPOCH_DEFAULT, &ms);
    return ms;
}

/* a < b in the order the format promises for one generator */
static int before(toid_format f, const uint8_t *a, const uint8_t *b) {
    if (f == TOID_UID11)
        return time_of(f, a) <= time_of(f, b);
    return memcmp(a, b, size_of(f)) < 0;
}

static int init_gen(toid_format f, uint32_t flags) {
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    c.flags = flags;
    if (f == TOID_NANOFLAKE || f == TOID_ULID_FLAKE_SCALABLE)
        c.node = NODE;
    if (f != TOID_UUIDV7)
        c.on_exhausted = TOID_EXHAUSTED_WAIT;
    c.wait_max_ms = 30000;
    memset(&sh->room, 0, sizeof sh->room);
    if (sh->ticket > used)
        used = sh->ticket;
    memset(sh->rec, 0, (used < cap ? used : cap) * sizeof(record));
    used = 0;
    sh->ticket = 0;
    return toid_gen_init_size(&sh->room.g, sizeof sh->room, &c);
}

/* fork, with stdout flushed first so no child can print the parent's
 * buffered lines again */
static pid_t spawn(void) {
    fflush(stdout);
    fflush(stderr);
    return fork();
}

static void put(toid_format f, uint32_t t, const uint8_t *id, uint32_t start, int proc) {
    record *r = &sh->rec[t];
    memcpy(r->id, id, size_of(f));
    r->start = start;
    r->proc = (uint16_t)proc;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

/* A child's loop: n IDs, recorded with their tickets; its own order checked
 * as it goes. Returns the exit code. */
static int child_generate(toid_format f, int proc, long n, int batch) {
    uint8_t prev[20] = {0}, buf[BATCH * 20];
    int have = 0;
    size_t size = size_of(f);
    for (long i = 0; i < n;) {
        long k = batch ? (n - i < BATCH ? n - i : BATCH) : 1;
        uint32_t start = __atomic_load_n(&sh->ticket, __ATOMIC_SEQ_CST);
        int rc = batch ? toid_gen_batch(&sh->room.g, buf, (size_t)k, NULL) : toid_gen_next(&sh->room.g, buf, NULL);
        if (rc < 0) {
            fprintf(stderr, "child %d: %s: %s\n", proc, toid_format_get(f)->name, toid_strerror(rc));
            return rc == TOID_EFORKED ? 3 : 2;
        }
        uint32_t t = __atomic_fetch_add(&sh->ticket, (uint32_t)k, __ATOMIC_SEQ_CST);
        if (t + (size_t)k > cap)
            return 4;
        for (long j = 0; j < k; j++) {
            if (have && !before(f, prev, buf + j * size))
                return 5;           /* this process's own order */
            memcpy(prev, buf + j * size, size);
            have = 1;
            put(f, t + (uint32_t)j, buf + j * size, start, proc);
        }
        i += k;
    }
    return 0;
}

/* Two threads of one process on the shared generator (so TSan, which sees
 * one process at a time, has threads to check): recorded as "processes"
 * MAXCHILD + 2 * i and + 1. */
typedef struct half {
    toid_format f;
    int proc;
    long n;
    int rc;
} half;

static void *half_main(void *arg) {
    half *h = arg;
    h->rc = child_generate(h->f, h->proc, h->n, h->proc % 2);
    return NULL;
}

static int child_two_threads(toid_format f, int c, long n) {
    half h[2] = {{f, MAXCHILD + 2 * (c / 4), n / 2, 0}, {f, MAXCHILD + 2 * (c / 4) + 1, n - n / 2, 0}};
    pthread_t t;
    if (pthread_create(&t, NULL, half_main, &h[1]) != 0)
        return 6;
    half_main(&h[0]);
    pthread_join(t, NULL);
    return h[0].rc ? h[0].rc : h[1].rc;
}

static int cmp_id20(const void *a, const void *b) { return memcmp(a, b, 20); }

typedef struct verdict {
    long recorded, dups, order, stream, node;
} verdict;

/* Checks every done record below n tickets. */
static verdict check_records(toid_format f, uint32_t n) {
    verdict v = {0};
    size_t size = size_of(f);
    uint8_t *all = malloc((size_t)n * 20 + 1);
    uint32_t *pmax = malloc(((size_t)n + 1) * sizeof *pmax);   /* ticket of the max ID below k; n = none */
    uint32_t last_of[2 * MAXCHILD + 2];
    for (int p = 0; p < 2 * MAXCHILD + 2; p++)
        last_of[p] = UINT32_MAX;
    if (!all || !pmax)
        abort();
    uint32_t best = n;
    for (uint32_t k = 0; k < n; k++) {
        pmax[k] = best;
        const record *r = &sh->rec[k];
        if (!r->done)
            continue;
        memset(all + (size_t)v.recorded * 20, 0, 20);
        memcpy(all + (size_t)v.recorded * 20, r->id, size);
        v.recorded++;
        if (last_of[r->proc] != UINT32_MAX && !before(f, sh->rec[last_of[r->proc]].id, r->id))
            v.order++;
        last_of[r->proc] = k;
        if (best == n || memcmp(sh->rec[best].id, r->id, size) < 0)
            best = k;
    }
    pmax[n] = best;
    /* one stream: what returned before a call began is below its ID */
    for (uint32_t k = 0; k < n; k++) {
        const record *r = &sh->rec[k];
        if (!r->done)
            continue;
        uint32_t s = r->start < n ? r->start : n;
        if (pmax[s] != n && !before(f, sh->rec[pmax[s]].id, r->id)) {
            if (v.stream++ < 3)
                fprintf(stderr, "  %s: ticket %u (start %u) not after ticket %u\n", toid_format_get(f)->name, k,
                        r->start, pmax[s]);
        }
        if (f == TOID_NANOFLAKE || f == TOID_ULID_FLAKE_SCALABLE) {
            toid_fields fl;
            toid_inspect(f, r->id, TOID_EPOCH_DEFAULT, &fl);
            v.node += (f == TOID_NANOFLAKE ? fl.generator : fl.sid) != NODE;
        }
    }
    qsort(all, (size_t)v.recorded, 20, cmp_id20);
    for (long i = 1; i < v.recorded; i++)
        v.dups += memcmp(all + 20 * (i - 1), all + 20 * i, 20) == 0;
    free(all);
    free(pmax);
    return v;
}

static void report(const char *what, toid_format f, verdict v) {
    printf("%-9s %-20s %9ld IDs: %ld duplicates, %ld out of process order, %ld out of stream order, %ld bad node\n",
           what, toid_format_get(f)->name, v.recorded, v.dups, v.order, v.stream, v.node);
    CHECK_EQ_INT(v.dups, 0);
    CHECK_EQ_INT(v.order, 0);
    CHECK_EQ_INT(v.stream, 0);
    CHECK_EQ_INT(v.node, 0);
}

/* ---- 1. every format, every process to the end ---- */
TEST_CASE(all_formats) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        CHECK_EQ_INT(init_gen((toid_format)f, TOID_GEN_SHARED), 0);
        pid_t pid[MAXCHILD];
        for (int c = 0; c < children; c++)
            if ((pid[c] = spawn()) == 0)
                _exit(c % 4 == 3 ? child_two_threads((toid_format)f, c, ids)
                                 : child_generate((toid_format)f, c, ids, c % 2));
        int bad = 0;
        for (int c = 0; c < children; c++) {
            int st;
            waitpid(pid[c], &st, 0);
            bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                fprintf(stderr, "child %d: status 0x%x\n", c, st);
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(sh->ticket, (long)children * ids);
        verdict v = check_records((toid_format)f, sh->ticket);
        CHECK_EQ_INT(v.recorded, (long)children * ids);
        report("all", (toid_format)f, v);
    }
}

static void sleep_us(long us) {
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* ---- 2. kill -9 at random moments ---- */
TEST_CASE(kill9) {
    long n = ids / 4;
    for (int round = 0; round < kill_rounds; round++) {
        toid_format f = (toid_format)(round % TOID_FORMAT_COUNT);
        CHECK_EQ_INT(init_gen(f, TOID_GEN_SHARED), 0);
        pid_t pid[MAXCHILD];
        int killed[MAXCHILD] = {0};
        for (int c = 0; c < children; c++)
            if ((pid[c] = spawn()) == 0)
                _exit(child_generate(f, c, n, c % 2));
        int victims = children / 3 ? children / 3 : 1;
        for (int k = 0; k < victims; k++) {
            /* a random moment: when the group has made a random share of its IDs */
            uint32_t target = (uint32_t)(rand() % (children * n * 3 / 4));
            while (__atomic_load_n(&sh->ticket, __ATOMIC_SEQ_CST) < target)
                sleep_us(100);
            sleep_us(rand() % 1000);
            int c = rand() % children;
            if (!killed[c]) {
                kill(pid[c], SIGKILL);
                killed[c] = 1;
            }
        }
        int bad = 0, dead = 0;
        for (int c = 0; c < children; c++) {
            int st;
            waitpid(pid[c], &st, 0);
            if (WIFSIGNALED(st) && killed[c])
                dead++;
            else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                bad++;
                fprintf(stderr, "child %d: status 0x%x\n", c, st);
            }
        }
        CHECK_EQ_INT(bad, 0);       /* every survivor made all its IDs */
        uint32_t end = sh->ticket < cap ? sh->ticket : (uint32_t)cap;
        verdict v = check_records(f, end);
        printf("kill -9 round %d: %d killed mid-run; ", round, dead);
        report("", f, v);
    }
}

/* ---- 3. and 4. death while holding the lock ---- */
static toid_format hold_format;
static long hold_countdown;
static uint32_t hold_start;
static int hold_proc;
static toid_gen_head saved_head;

static void die_holding(toid_gen *g, const uint8_t *id, int after) {
    if (!after) {
        saved_head = *toid__h(g);    /* the state before this ID */
        return;
    }
    if (--hold_countdown > 0)
        return;
    /* the ID got out (a caller's shared buffer may hold it) but its commit
     * "never landed": record it as issued, put the state back, die */
    uint32_t t = __atomic_fetch_add(&sh->ticket, 1, __ATOMIC_SEQ_CST);
    put(hold_format, t, id, hold_start, hold_proc);
    toid__h(g)->last_ms = saved_head.last_ms;
    memcpy(toid__h(g)->last, saved_head.last, sizeof toid__h(g)->last);
    toid__h(g)->seq = saved_head.seq;
    toid__h(g)->tag = saved_head.tag;
    raise(SIGKILL);
}

/* The victim: IDs one by one until the hook kills it inside the lock. */
static int victim(toid_format f, int proc, long countdown) {
    hold_format = f;
    hold_proc = proc;
    hold_countdown = countdown;
    toid__test_shared_hold = die_holding;
    uint8_t id[20];
    for (;;) {
        hold_start = __atomic_load_n(&sh->ticket, __ATOMIC_SEQ_CST);
        if (toid_gen_next(&sh->room.g, id, NULL) < 0)
            return 2;
        put(f, __atomic_fetch_add(&sh->ticket, 1, __ATOMIC_SEQ_CST), id, hold_start, proc);
    }
}

TEST_CASE(die_holding_lock) {
    static const toid_format locked[] = {TOID_ULID, TOID_UUIDV7, TOID_UID11};
    for (int round = 0; round < 6; round++) {
        toid_format f = locked[round % 3];
        CHECK_EQ_INT(init_gen(f, TOID_GEN_SHARED), 0);
        pid_t pid[MAXCHILD];
        long n = ids / 8, countdown = 1 + rand() % (n / 4 + 1);
        pid_t vp = spawn();
        if (vp == 0)
            _exit(victim(f, children, countdown));
        for (int c = 0; c < children - 1; c++)
            if ((pid[c] = spawn()) == 0)
                _exit(child_generate(f, c, n, c % 2));
        int st, bad = 0;
        waitpid(vp, &st, 0);
        CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "victim died by its hook (0x%x)", st);
        for (int c = 0; c < children - 1; c++) {
            waitpid(pid[c], &st, 0);
            bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        }
        CHECK_EQ_INT(bad, 0);
        verdict v = check_records(f, sh->ticket);
        report("held", f, v);
    }
}

static int64_t frozen_clock(void *ctx) { return *(int64_t *)ctx; }

/* On a frozen clock: a victim dies holding the lock after 100 IDs, then a
 * survivor makes 100. Returns the duplicates found. */
static long frozen_death(int skip_repair) {
    static int64_t now_us;
    now_us = toid_clock_now(NULL) * 1000;
    toid_set_clock(frozen_clock, &now_us);
    CHECK_EQ_INT(init_gen(TOID_ULID, TOID_GEN_SHARED), 0);
    toid__test_skip_repair = skip_repair;
    pid_t vp = spawn();
    if (vp == 0)
        _exit(victim(TOID_ULID, 0, 101));
    int st;
    waitpid(vp, &st, 0);
    CHECK(WIFSIGNALED(st));
    pid_t sp = spawn();
    if (sp == 0)
        _exit(child_generate(TOID_ULID, 1, 100, 0));
    waitpid(sp, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    toid__test_skip_repair = 0;
    toid_set_clock(NULL, NULL);
    return check_records(TOID_ULID, sh->ticket).dups;
}

TEST_CASE(controls) {
    fprintf(stderr, "negative controls: the next lines of errors are expected\n");
    long with = frozen_death(0), without = frozen_death(1);
    printf("frozen clock, holder killed after a lost commit: %ld duplicates with the repair, %ld without\n", with,
           without);
    CHECK_EQ_INT(with, 0);
    CHECK_MSG(without > 0, "the negative control must find the duplicate (the test can fail)");

    /* a node format in shared memory without TOID_GEN_SHARED: forked */
    CHECK_EQ_INT(init_gen(TOID_NANOFLAKE, 0), 0);
    uint8_t id[8];
    CHECK_EQ_INT(toid_gen_next(&sh->room.g, id, NULL), 0);
    pid_t p = spawn();
    if (p == 0)
        _exit(child_generate(TOID_NANOFLAKE, 0, 10, 0));
    int st;
    waitpid(p, &st, 0);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 3, "without TOID_GEN_SHARED a child gets TOID_EFORKED (0x%x)", st);

    /* the flags */
    toid_gen_config c;
    toid_gen_config_default(TOID_ULID, &c);
    c.flags = TOID_GEN_SHARED | TOID_GEN_UNLOCKED;
    CHECK_EQ_INT(toid_gen_init(&sh->room.g, &c), TOID_EINVAL);
    c.flags = TOID_GEN_SHARED;
    CHECK_EQ_INT(toid_configure(&c), TOID_EINVAL);
    c.flags = 4;
    CHECK_EQ_INT(toid_gen_init(&sh->room.g, &c), TOID_EINVAL);
}

/* ---- 5. private entropy ---- */
TEST_CASE(entropy) {
    CHECK_EQ_INT(init_gen(TOID_ULID, TOID_GEN_SHARED), 0);
    uint8_t id[16];
    CHECK_EQ_INT(toid_gen_next(&sh->room.g, id, NULL), 0);    /* the parent's CSPRNG is live */
    int n = children < MAXCHILD ? children : MAXCHILD;
    pid_t pid[MAXCHILD];
    for (int c = 0; c < n; c++) {
        if ((pid[c] = spawn()) == 0) {
            uint8_t x[16];
            if (toid_gen_next(&sh->room.g, x, NULL) < 0 || toid_random_bytes(sh->streams[c], 32) < 0)
                _exit(2);
            _exit(0);
        }
    }
    CHECK_EQ_INT(toid_random_bytes(sh->streams[n], 32), 0);
    for (int c = 0; c < n; c++) {
        int st;
        waitpid(pid[c], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    int same = 0;
    for (int a = 0; a <= n; a++)
        for (int b = a + 1; b <= n; b++)
            same += memcmp(sh->streams[a], sh->streams[b], 32) == 0;
    CHECK_EQ_INT(same, 0);
}

static int setup(int nparam, char **param) {
    if (nparam > 0)
        children = atoi(param[0]);
    if (nparam > 1)
        ids = atol(param[1]);
    if (nparam > 2)
        kill_rounds = atoi(param[2]);
    if (nparam > 3 || children < 2 || children > MAXCHILD || ids < 800 || kill_rounds < 0) {
        fprintf(stderr, "usage: test_shared [--list] [CASE...] [CHILDREN 2..%d [IDS >= 800 [KILL_ROUNDS]]]\n",
                MAXCHILD);
        return 2;
    }
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    cap = (size_t)children * (size_t)ids + 16;
    size_t bytes = sizeof(shared) + cap * sizeof(record);
    sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    return check_main(argc, argv, setup, NULL);
}
