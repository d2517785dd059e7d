/* state.c — lock file and high-water mark per (format, node).
 *
 * Files in the state directory, for each (format, node):
 *   FORMAT-NODE.lock  flock(LOCK_EX) held for the life of the process; never
 *                     removed (removing a lock file races with its next user);
 *                     says "initialised; pid N" once a mark has been durable
 *   FORMAT-NODE.mark  "issued up to T": text, one key a line, with an FNV-1a
 *                     checksum line; replaced atomically (temp file, fsync,
 *                     rename, fsync of the directory)
 *
 * Invariant: an ID leaves the process only if its time is <= a mark that is
 * durable on disk, and > the mark found at start. So after any crash the
 * mark on disk is >= every ID issued, and the next run issues only IDs after
 * it: no ID is repeated.
 */
#define _GNU_SOURCE
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

struct state {
    int dir_fd;
    int lock_fd;
    char dir[1024];
    char name[64];             /* "nanoflake-5" */
    toid_format format;
    uint32_t node;
    int64_t epoch_ms;
    uint32_t reserve_ms;
    int64_t floor_ms;          /* the mark found at start: IDs must be after it */
    _Atomic int64_t ceiling_ms; /* the durable mark: IDs must be at or before it */
    _Atomic int64_t max_issued_ms;
    _Atomic int want_extend;   /* asked the flusher to move the mark ahead */
    pthread_mutex_t mu;        /* serialises writes of the mark */
};

/* The flusher thread moves a mark ahead once half of its reservation is used,
 * so that under load requests do not wait for a write; and it keeps the mark
 * of a recently used (format, node) half a reservation ahead of the clock, so
 * that sporadic requests do not wait for one either. After WARM_MS without
 * an ID, a (format, node) goes cold: no more writes, and its next request
 * writes the mark itself (counted in state_request_writes). */
#define WARM_MS 60000
static pthread_mutex_t fl_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fl_cv;        /* on CLOCK_MONOTONIC, made by state_flusher_start */
static state *fl_states[TOID_FORMAT_COUNT * 4];
static int fl_n, fl_stop, fl_running;
static pthread_t fl_thread;

static _Atomic uint64_t n_writes, n_write_errors, n_request_writes;
uint64_t state_writes(void) { return atomic_load_explicit(&n_writes, memory_order_relaxed); }
uint64_t state_request_writes(void) {
    return atomic_load_explicit(&n_request_writes, memory_order_relaxed);
}
uint64_t state_write_errors(void) {
    return atomic_load_explicit(&n_write_errors, memory_order_relaxed);
}

static uint64_t fnv1a(const char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The file's text for mark; returns its length. */
static int render_mark(const state *s, int64_t mark, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "toidd-mark 1\nformat %s\nnode %" PRIu32 "\nepoch_ms %" PRId64
                     "\nissued_up_to_ms %" PRId64 "\n",
                     toid_format_get(s->format)->name, s->node, s->epoch_ms, mark);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    int m = snprintf(buf + n, cap - (size_t)n, "check %016" PRIx64 "\n", fnv1a(buf, (size_t)n));
    if (m < 0 || (size_t)m >= cap - (size_t)n)
        return -1;
    return n + m;
}

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Persists mark: temp file, fsync, rename over the mark, fsync the directory.
 * Returns 0 once durable, -1 (logged) otherwise. */
static int write_mark(state *s, int64_t mark) {
    char text[512], tmp[96], fin[96];
    int n = render_mark(s, mark, text, sizeof text);
    snprintf(tmp, sizeof tmp, "%s.mark.tmp", s->name);
    snprintf(fin, sizeof fin, "%s.mark", s->name);
    const char *step = "render";
    int fd = -1;
    if (n < 0)
        goto fail;
    step = "create temp file";
    fd = openat(s->dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        goto fail;
    step = "write";
    if (write_all(fd, text, (size_t)n) < 0)
        goto fail;
    step = "fsync";
    if (fsync(fd) < 0)
        goto fail;
    step = "close";
    int rc = close(fd);
    fd = -1;
    if (rc < 0)
        goto fail;
    step = "rename";
    if (renameat(s->dir_fd, tmp, s->dir_fd, fin) < 0)
        goto fail;
    step = "fsync directory";
    if (fsync(s->dir_fd) < 0)
        goto fail;
    atomic_fetch_add_explicit(&n_writes, 1, memory_order_relaxed);
    return 0;
fail:;
    int e = errno;
    if (fd >= 0)
        close(fd);
    atomic_fetch_add_explicit(&n_write_errors, 1, memory_order_relaxed);
    log_err("state %s/%s.mark: %s failed: %s", s->dir, s->name, step, strerror(e));
    return -1;
}

/* Reads the mark: 1 and *mark, 0 if the file does not exist, -1 (logged) if
 * it is unreadable, corrupt or for another format, node or epoch. */
static int read_mark(state *s, int64_t *mark) {
    char fin[96], buf[600];
    snprintf(fin, sizeof fin, "%s.mark", s->name);
    int fd = openat(s->dir_fd, fin, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        log_err("state %s/%s: cannot open: %s", s->dir, fin, strerror(errno));
        return -1;
    }
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, sizeof buf - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            log_err("state %s/%s: cannot read: %s", s->dir, fin, strerror(errno));
            close(fd);
            return -1;
        }
        if (r == 0 || len + (size_t)r >= sizeof buf - 1) {
            len += (size_t)r;
            break;
        }
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    /* The value, then the whole file must be exactly what we would write. */
    const char *p = strstr(buf, "\nissued_up_to_ms ");
    char *end = NULL;
    long long v = 0;
    if (p) {
        errno = 0;
        v = strtoll(p + 17, &end, 10);
    }
    char expect[512];
    int n = p && end && *end == '\n' && errno == 0 ? render_mark(s, (int64_t)v, expect, sizeof expect) : -1;
    if (n < 0 || (size_t)n != len || memcmp(expect, buf, len) != 0) {
        /* Say what differs when it is the epoch: a common operator error. */
        const char *e = strstr(buf, "\nepoch_ms ");
        char mine[64];
        snprintf(mine, sizeof mine, "\nepoch_ms %" PRId64 "\n", s->epoch_ms);
        if (e && strncmp(e, mine, strlen(mine)) != 0 && n >= 0)
            log_err("state %s/%s was written for another epoch than the configured %" PRId64
                    " ms: IDs could repeat; refusing to start (restore the epoch, or "
                    "--reset-state if you know what you are doing)",
                    s->dir, fin, s->epoch_ms);
        else
            log_err("state %s/%s is corrupt (not a toidd mark for %s node %" PRIu32
                    ", or bad checksum): refusing to start; repair it, or start once with "
                    "--reset-state if the clock is known to be past every ID issued",
                    s->dir, fin, toid_format_get(s->format)->name, s->node);
        return -1;
    }
    *mark = (int64_t)v;
    return 1;
}

static void sleep_ms(int64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

int state_open(const char *dir, toid_format f, uint32_t node, int64_t epoch_ms,
               const state_opts *o, state **out) {
    state *s = calloc(1, sizeof *s);
    if (!s) {
        log_err("out of memory");
        return -1;
    }
    s->lock_fd = -1;
    s->format = f;
    s->node = node;
    s->epoch_ms = epoch_ms;
    s->reserve_ms = o->reserve_ms;
    pthread_mutex_init(&s->mu, NULL);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    snprintf(s->name, sizeof s->name, "%s-%" PRIu32, toid_format_get(f)->name, node);
    s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s->dir_fd < 0) {
        log_err("state directory %s: %s", dir, strerror(errno));
        goto fail;
    }
    char lockname[96];
    snprintf(lockname, sizeof lockname, "%s.lock", s->name);
    s->lock_fd = openat(s->dir_fd, lockname, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (s->lock_fd < 0) {
        log_err("state %s/%s: %s", dir, lockname, strerror(errno));
        goto fail;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno == EWOULDBLOCK)
            log_err("%s node %" PRIu32 " is in use by another toidd (lock %s/%s is held): "
                    "refusing to start a second generator with the same id",
                    toid_format_get(f)->name, node, dir, lockname);
        else
            log_err("state %s/%s: flock: %s", dir, lockname, strerror(errno));
        goto fail;
    }
    /* The lock file says whether this (format, node) was ever initialised:
     * only then is a missing mark an error (a crash during the very first
     * start leaves an uninitialised lock file, which is harmless). */
    char lockbuf[64];
    ssize_t lk = pread(s->lock_fd, lockbuf, sizeof lockbuf - 1, 0);
    int initialised = lk >= 11 && memcmp(lockbuf, "initialised", 11) == 0;
    int64_t mark = 0;
    int64_t now = toid_clock_now(NULL);
    if (o->reset) {
        log_warn("state %s/%s.mark: reset on request (--reset-state) to the clock's time",
                 dir, s->name);
        mark = now;
        if (write_mark(s, mark) < 0)
            goto fail;
    } else {
        int r = read_mark(s, &mark);
        if (r < 0)
            goto fail;
        if (r == 0) {
            if (initialised) {
                log_err("state %s/%s.mark is missing although %s says it was initialised: the IDs issued "
                        "before cannot be ruled out; refusing to start (restore the file, or "
                        "start once with --reset-state if the clock is known to be past every "
                        "ID issued)", dir, s->name, lockname);
                goto fail;
            }
            mark = now;
            if (write_mark(s, mark) < 0)
                goto fail;
            log_info("state %s/%s.mark: initialised", dir, s->name);
        }
    }
    /* The clock must be past the mark. */
    now = toid_clock_now(NULL);
    if (now <= mark) {
        int64_t behind = mark - now + 1;
        if (behind > (int64_t)o->clock_wait_max_ms) {
            log_err("the clock is %" PRId64 " ms behind the high-water mark of %s node %" PRIu32
                    " (%s/%s.mark): refusing to start (the limit of --clock-wait-max-ms is %"
                    PRIu32 " ms)", behind, toid_format_get(f)->name, node, dir, s->name,
                    o->clock_wait_max_ms);
            goto fail;
        }
        log_info("waiting %" PRId64 " ms for the clock to pass the high-water mark of %s",
                 behind, s->name);
        int64_t deadline = mono_ms() + (int64_t)o->clock_wait_max_ms + 100;
        while ((now = toid_clock_now(NULL)) <= mark) {
            if (mono_ms() > deadline) {
                log_err("the clock did not pass the high-water mark of %s in time: refusing to "
                        "start", s->name);
                goto fail;
            }
            sleep_ms(mark - now + 1 > 50 ? 50 : mark - now + 1);
        }
    }
    s->floor_ms = mark;
    /* (the start counts as use: the flusher keeps the mark warm for a while;
     * now >= mark, and every ID issued from here on is after now) */
    atomic_store(&s->max_issued_ms, now);
    /* Reserve ahead now, so that the first request does not wait for a write. */
    int64_t ahead = now + (int64_t)o->reserve_ms;
    if (write_mark(s, ahead) < 0)
        goto fail;
    atomic_store(&s->ceiling_ms, ahead);
    /* Initialised (a mark is durable): from now on a missing mark is an error. */
    char info[64];
    int n = snprintf(info, sizeof info, "initialised; pid %10ld\n", (long)getpid());
    /* Fixed width: once initialised, the record is overwritten in place. */
    if ((!initialised && ftruncate(s->lock_fd, 0) < 0) || pwrite(s->lock_fd, info, (size_t)n, 0) != n ||
        fsync(s->lock_fd) < 0 || fsync(s->dir_fd) < 0) {
        log_err("state %s/%s: cannot write: %s", dir, lockname, strerror(errno));
        goto fail;
    }
    *out = s;
    return 0;
fail:
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    if (s->dir_fd >= 0)
        close(s->dir_fd);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return -1;
}

/* Moves the mark to max(clock, last ID issued) + reserve if that is further
 * than the durable one. Called with s->mu held. */
static int extend_locked(state *s, int64_t at_least) {
    int64_t now = toid_clock_now(NULL);
    int64_t top = atomic_load_explicit(&s->max_issued_ms, memory_order_relaxed);
    int64_t base = now > top ? now : top;
    if (at_least > base)
        base = at_least;
    int64_t mark = base + (int64_t)s->reserve_ms;
    if (mark <= atomic_load_explicit(&s->ceiling_ms, memory_order_acquire))
        return 0;
    if (write_mark(s, mark) < 0)
        return -1;
    atomic_store_explicit(&s->ceiling_ms, mark, memory_order_release);
    return 0;
}

static void make_cv(void) {
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&fl_cv, &a);
    pthread_condattr_destroy(&a);
}

/* Whether the mark of s should move ahead now: half its reservation used by
 * IDs, or (while warm) by the clock. */
static int due(state *s, int64_t now) {
    int64_t ceiling = atomic_load_explicit(&s->ceiling_ms, memory_order_acquire);
    int64_t top = atomic_load_explicit(&s->max_issued_ms, memory_order_relaxed);
    int64_t half = (int64_t)s->reserve_ms / 2;
    return top > ceiling - half || (now - top < WARM_MS && now > ceiling - half);
}

static void *flusher(void *arg) {
    (void)arg;
    pthread_mutex_lock(&fl_mu);
    while (!fl_stop) {
        uint32_t tick = 250;
        for (int i = 0; i < fl_n; i++) {
            state *s = fl_states[i];
            if (s->reserve_ms / 4 < tick)
                tick = s->reserve_ms / 4 > 10 ? s->reserve_ms / 4 : 10;
            int asked = atomic_exchange(&s->want_extend, 0);
            if (!asked && !due(s, toid_clock_now(NULL)))
                continue;
            pthread_mutex_unlock(&fl_mu);
            pthread_mutex_lock(&s->mu);
            extend_locked(s, INT64_MIN);   /* a failure is logged; requests retry it */
            pthread_mutex_unlock(&s->mu);
            pthread_mutex_lock(&fl_mu);
        }
        if (fl_stop)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += (long)tick * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec += ts.tv_nsec / 1000000000L;
            ts.tv_nsec %= 1000000000L;
        }
        pthread_cond_timedwait(&fl_cv, &fl_mu, &ts);
    }
    pthread_mutex_unlock(&fl_mu);
    return NULL;
}

int state_flusher_start(state *const *states, int n) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_cv);
    pthread_mutex_lock(&fl_mu);
    fl_n = 0;
    for (int i = 0; i < n && fl_n < (int)(sizeof fl_states / sizeof fl_states[0]); i++)
        if (states[i])
            fl_states[fl_n++] = states[i];
    fl_stop = 0;
    int rc = pthread_create(&fl_thread, NULL, flusher, NULL);
    fl_running = rc == 0;
    pthread_mutex_unlock(&fl_mu);
    if (rc != 0)
        log_err("cannot start the state flusher thread");
    return rc == 0 ? 0 : -1;
}

void state_flusher_stop(void) {
    pthread_mutex_lock(&fl_mu);
    int running = fl_running;
    fl_stop = 1;
    pthread_cond_signal(&fl_cv);
    pthread_mutex_unlock(&fl_mu);
    if (running)
        pthread_join(fl_thread, NULL);
    fl_running = 0;
    fl_n = 0;
}

int state_admit(state *s, int64_t min_ms, int64_t max_ms) {
    if (min_ms <= s->floor_ms)
        return STATE_EBEHIND;
    int64_t ceiling = atomic_load_explicit(&s->ceiling_ms, memory_order_acquire);
    if (max_ms > ceiling) {
        /* Past the durable mark: write it before these IDs may leave. */
        pthread_mutex_lock(&s->mu);
        int rc = 0;
        if (max_ms > atomic_load_explicit(&s->ceiling_ms, memory_order_acquire)) {
            rc = extend_locked(s, max_ms);
            atomic_fetch_add_explicit(&n_request_writes, 1, memory_order_relaxed);
        }
        pthread_mutex_unlock(&s->mu);
        if (rc < 0)
            return STATE_EIO;
    } else if (max_ms > ceiling - (int64_t)s->reserve_ms / 2 &&
               !atomic_exchange(&s->want_extend, 1)) {
        /* Half the reservation used: the flusher moves the mark ahead. */
        pthread_mutex_lock(&fl_mu);
        pthread_cond_signal(&fl_cv);
        pthread_mutex_unlock(&fl_mu);
    }
    int64_t cur = atomic_load_explicit(&s->max_issued_ms, memory_order_relaxed);
    while (cur < max_ms &&
           !atomic_compare_exchange_weak_explicit(&s->max_issued_ms, &cur, max_ms,
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
    return 0;
}

void state_close(state *s, int clean) {
    if (!s)
        return;
    if (clean) {
        int64_t top = atomic_load(&s->max_issued_ms);
        if (top < atomic_load(&s->ceiling_ms) && write_mark(s, top) == 0)
            log_info("state %s/%s.mark: lowered to the last ID issued", s->dir, s->name);
    }
    close(s->lock_fd);
    close(s->dir_fd);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
