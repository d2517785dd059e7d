/*
 * pg_marks.c — the shared generators' high-water marks: "every ID of this
 * format issued by this cluster has a time at or before M".
 *
 * Without them, the shared generators started from nothing at every
 * postmaster start: a restart with the clock behind repeated IDs (2,274
 * duplicate nanoflakes in 120,000 rows at -10 s) and sorted new ones below
 * the stored ones. The rule is toidd's (server/, toid_claim.h):
 *   - an ID leaves only if its time is <= a mark already durable: when an ID
 *     passes it, the mark is moved to max(clock, ID) + toid.mark_reserve_ms
 *     and made durable first (one WAL flush and one file fsync per
 *     reservation, under one lock; the other backends read it atomically);
 *   - after a start (or a crash re-initialisation, or a promotion) IDs must
 *     be after the mark found then (the floor): a clock behind it waits up
 *     to toid.clock_wait_max_ms, else the call is refused (SQLSTATE 55000)
 *     until the clock passes it.
 *
 * Where a mark is durable, and why two places:
 *   - the file pg_toid/marks in the data directory (temp file, fsync,
 *     durable_rename): read by the postmaster when it makes the shared
 *     generators, so a restart (clean or after kill -9) needs no WAL;
 *   - a WAL record of the custom resource manager "toid" (RM_EXPERIMENTAL_ID,
 *     see TOID_RMGR_ID), flushed before the file is written: its redo raises
 *     the mark (and rewrites the file) on a standby, so a standby promoted
 *     after its primary died resumes above the last mark the primary wrote,
 *     and on the primary's own crash recovery. With synchronous standbys the
 *     write also waits for them (SyncRepWaitForLSN), as a commit would.
 *
 * Consequences written in README: toid must stay in shared_preload_libraries
 * on the primary and on every standby while WAL with its records may be
 * replayed (a server that meets a record of an unregistered resource manager
 * stops recovery); a standby makes no IDs (RecoveryInProgress: refused, its
 * IDs would be covered by no mark the WAL carries).
 */
#include "pgtoid.h"

#include "access/rmgr.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "replication/syncrep.h"
#include "storage/fd.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The custom resource manager id. 128 is PostgreSQL's "experimental" id:
 * an extension shipped widely reserves its own on the PostgreSQL wiki
 * (CustomWALResourceManagers); this one has not (a product decision). */
#define TOID_RMGR_ID RM_EXPERIMENTAL_ID
#define XLOG_TOID_MARK 0x00

#define MARKS_DIR "pg_toid"
#define MARKS_FILE MARKS_DIR "/marks"
#define MARKS_TMP MARKS_DIR "/marks.tmp"
#define TRANCHE "toid marks"

/* The WAL record: a format's name (not its number, which a later libtoid
 * may change) and its new mark. */
typedef struct xl_toid_mark {
    char format[32];
    int64 mark_ms;
} xl_toid_mark;

typedef struct marks_shared {
    bool broken;                          /* the file is unreadable or corrupt: no IDs */
    char why[256];
    int64 floor_ms[TOID_FORMAT_COUNT];    /* IDs must be after it (set at start, raised by redo) */
    pg_atomic_uint64 mark_ms[TOID_FORMAT_COUNT]; /* durable: IDs at or before it may leave */
} marks_shared;

static marks_shared *marks;
static LWLock *marks_lock;
static int reserve_ms = 1000;
static int clock_wait_max_ms = 2000;

static int64 mark_get(toid_format f) { return (int64)pg_atomic_read_u64(&marks->mark_ms[f]); }

/* ---- the file --------------------------------------------------------- */

static uint64 fnv1a(const char *p, size_t n) {
    uint64 h = UINT64CONST(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= UINT64CONST(0x100000001b3);
    }
    return h;
}

/* The file's text for the marks in ms[]: a line per format with a mark,
 * then a checksum line. */
static int render(const int64 *ms, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "toid-pg-marks 1\n");
    for (int f = 0; f < TOID_FORMAT_COUNT && n < cap; f++)
        if (ms[f] > 0)
            n += (size_t)snprintf(buf + n, cap - n, "%s " INT64_FORMAT "\n",
                                  toid_format_get((toid_format)f)->name, ms[f]);
    if (n >= cap)
        return -1;
    n += (size_t)snprintf(buf + n, cap - n, "check %016" PRIx64 "\n", fnv1a(buf, n));
    return n < cap ? (int)n : -1;
}

/* Writes the marks in ms[] durably (ERROR on failure: the caller then issues
 * nothing past the old mark). */
static void write_file(const int64 *ms) {
    char text[1024];
    int n = render(ms, text, sizeof text);
    int fd;
    if (n < 0)
        elog(ERROR, "toid: the marks do not fit their buffer");
    if (MakePGDirectory(MARKS_DIR) < 0 && errno != EEXIST)
        ereport(ERROR, (errcode_for_file_access(), errmsg("toid: could not create directory \"%s\": %m", MARKS_DIR)));
    fd = OpenTransientFile(MARKS_TMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("toid: could not create \"%s\": %m", MARKS_TMP)));
    errno = 0;
    if (write(fd, text, (size_t)n) != n) {
        int e = errno ? errno : ENOSPC;
        CloseTransientFile(fd);
        errno = e;
        ereport(ERROR, (errcode_for_file_access(), errmsg("toid: could not write \"%s\": %m", MARKS_TMP)));
    }
    if (pg_fsync(fd) != 0) {
        int e = errno;
        CloseTransientFile(fd);
        errno = e;
        ereport(ERROR, (errcode_for_file_access(), errmsg("toid: could not fsync \"%s\": %m", MARKS_TMP)));
    }
    if (CloseTransientFile(fd) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("toid: could not close \"%s\": %m", MARKS_TMP)));
    durable_rename(MARKS_TMP, MARKS_FILE, ERROR);   /* fsyncs the file and the directory */
}

/* Reads the file into ms[] (0: no mark). Returns NULL, or why it cannot be
 * trusted. Runs in the postmaster (no ereport(ERROR) there). */
static const char *read_file(int64 *ms, char *why, size_t cap) {
    char buf[1024], copy[1024], expect[1024];
    char *save = NULL;
    size_t len;
    bool err;
    int n;
    FILE *fp;
    memset(ms, 0, sizeof(int64) * TOID_FORMAT_COUNT);
    fp = fopen(MARKS_FILE, "r");
    if (!fp) {
        if (errno == ENOENT)
            return NULL;    /* never written: the first start with toid preloaded */
        snprintf(why, cap, "cannot read %s: %s", MARKS_FILE, strerror(errno));
        return why;
    }
    len = fread(buf, 1, sizeof buf - 1, fp);
    err = ferror(fp);
    fclose(fp);
    buf[len] = '\0';
    if (err) {
        snprintf(why, cap, "cannot read %s", MARKS_FILE);
        return why;
    }
    /* parse the lines, then the whole text must be exactly what render() makes */
    memcpy(copy, buf, len + 1);
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[40];
        long long v;
        if (sscanf(line, "%39s %lld", name, &v) != 2)
            continue;
        for (int f = 0; f < TOID_FORMAT_COUNT; f++)
            if (strcmp(name, toid_format_get((toid_format)f)->name) == 0)
                ms[f] = (int64)v;
    }
    n = render(ms, expect, sizeof expect);
    if (n < 0 || (size_t)n != len || memcmp(expect, buf, len) != 0) {
        snprintf(why, cap, "%s is corrupt (not toid's, or a bad checksum)", MARKS_FILE);
        return why;
    }
    return NULL;
}

/* ---- WAL -------------------------------------------------------------- */

static void set_marks_max(toid_format f, int64 ms, bool floor_too) {
    /* monotonic: a record replayed twice, or older than the file, lowers nothing */
    uint64 cur = pg_atomic_read_u64(&marks->mark_ms[f]);
    while ((int64)cur < ms && !pg_atomic_compare_exchange_u64(&marks->mark_ms[f], &cur, (uint64)ms)) {
    }
    if (floor_too && marks->floor_ms[f] < ms)
        marks->floor_ms[f] = ms;
}

static int format_by_name(const char *name) {
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (strcmp(name, toid_format_get((toid_format)f)->name) == 0)
            return f;
    return -1;
}

/* Redo (a standby, or crash recovery): the mark rises, and so does the
 * floor (IDs after a promotion must come after it); the file follows. */
static void toid_rm_redo(XLogReaderState *record) {
    xl_toid_mark rec;
    int64 ms[TOID_FORMAT_COUNT];
    int f;
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_TOID_MARK)
        elog(PANIC, "toid redo: unknown record type %u", XLogRecGetInfo(record));
    memcpy(&rec, XLogRecGetData(record), sizeof rec);
    rec.format[sizeof rec.format - 1] = '\0';
    f = format_by_name(rec.format);
    if (f < 0 || !marks)
        return;     /* a format this build does not know: nothing generates it here */
    LWLockAcquire(marks_lock, LW_EXCLUSIVE);
    set_marks_max((toid_format)f, rec.mark_ms, true);
    for (int i = 0; i < TOID_FORMAT_COUNT; i++)
        ms[i] = mark_get((toid_format)i);
    write_file(ms);
    LWLockRelease(marks_lock);
}

static void toid_rm_desc(StringInfo buf, XLogReaderState *record) {
    xl_toid_mark rec;
    memcpy(&rec, XLogRecGetData(record), sizeof rec);
    rec.format[sizeof rec.format - 1] = '\0';
    appendStringInfo(buf, "%s issued up to " INT64_FORMAT " ms", rec.format, rec.mark_ms);
}

static const char *toid_rm_identify(uint8 info) {
    return (info & ~XLR_INFO_MASK) == XLOG_TOID_MARK ? "MARK" : NULL;
}

static RmgrData toid_rmgr = {
    .rm_name = "toid",
    .rm_redo = toid_rm_redo,
    .rm_desc = toid_rm_desc,
    .rm_identify = toid_rm_identify,
};

/* ---- start-up ----------------------------------------------------------- */

int pgtoid_mark_reserve_ms(void) { return reserve_ms; }

void pgtoid_marks_init(void) {
    DefineCustomIntVariable("toid.mark_reserve_ms",
                            "How far ahead of the IDs each durable mark of a shared generator reaches.",
                            "At most this long to wait after a crash; a mark is written (WAL flush "
                            "and file fsync) about once per this many ms of IDs.",
                            &reserve_ms, 1000, 10, 60000, PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
    DefineCustomIntVariable("toid.clock_wait_max_ms",
                            "How long a generator waits for the clock to pass the mark found at start.",
                            "Beyond it the call is refused (SQLSTATE 55000) until the clock passes it.",
                            &clock_wait_max_ms, 2000, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
    if (process_shared_preload_libraries_in_progress)   /* (only then may it be registered) */
        RegisterCustomRmgr(TOID_RMGR_ID, &toid_rmgr);
}

void pgtoid_marks_request(void) {
    RequestAddinShmemSpace(MAXALIGN(sizeof(marks_shared)));
    RequestNamedLWLockTranche(TRANCHE, 1);
}

/* In the postmaster, with AddinShmemInitLock held, at start and at every
 * crash re-initialisation: the marks from the file, which are also the
 * floors (WAL replay raises both afterwards). */
void pgtoid_marks_startup(void) {
    bool found;
    int64 ms[TOID_FORMAT_COUNT];
    const char *why;
    marks = ShmemInitStruct("toid marks", sizeof(marks_shared), &found);
    marks_lock = &GetNamedLWLockTranche(TRANCHE)->lock;
    if (found)
        return;
    memset(marks, 0, sizeof *marks);
    why = read_file(ms, marks->why, sizeof marks->why);
    marks->broken = why != NULL;
    if (why)
        ereport(LOG, (errmsg("toid: %s: the shared generators refuse to issue IDs", why),
                      errhint("Restore the file from a backup, or remove it once the clock is known "
                              "to be past every ID this cluster issued.")));
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        pg_atomic_init_u64(&marks->mark_ms[f], (uint64)(why ? 0 : ms[f]));
        marks->floor_ms[f] = why ? 0 : ms[f];
    }
}

/* ---- the request path --------------------------------------------------- */

/* Makes mark_ms >= want durable: WAL (flushed, and waited for by synchronous
 * standbys), then the file. Under the lock, so marks rise in order. */
static void advance(const pgtoid_fmt *fmt, int64 want) {
    LWLockAcquire(marks_lock, LW_EXCLUSIVE);
    if (mark_get(fmt->f) < want) {
        int64 now = toid_clock_now(NULL);
        int64 target = Max(now, want) + reserve_ms;
        int64 ms[TOID_FORMAT_COUNT];
        xl_toid_mark rec;
        XLogRecPtr lsn;
        memset(&rec, 0, sizeof rec);
        strlcpy(rec.format, fmt->name, sizeof rec.format);
        rec.mark_ms = target;
        XLogBeginInsert();
        XLogRegisterData((char *)&rec, sizeof rec);
        lsn = XLogInsert(TOID_RMGR_ID, XLOG_TOID_MARK);
        XLogFlush(lsn);
        SyncRepWaitForLSN(lsn, false);
        for (int i = 0; i < TOID_FORMAT_COUNT; i++)
            ms[i] = mark_get((toid_format)i);
        ms[fmt->f] = target;
        write_file(ms);     /* ERROR: the lock is released by the abort, the mark stays */
        pg_atomic_write_u64(&marks->mark_ms[fmt->f], (uint64)target);
    }
    LWLockRelease(marks_lock);
}

void pgtoid_marks_before(const pgtoid_fmt *fmt) {
    int64 floor, now, waited = 0;
    if (!marks)
        return;     /* not preloaded: per-backend generators, no marks */
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("%s: IDs are not made on a standby", fmt->name),
                        errdetail("The marks that keep IDs unique travel with the WAL from the primary; "
                                  "a standby's IDs would be covered by none.")));
    if (marks->broken)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: the high-water marks cannot be trusted: %s", fmt->name, marks->why),
                        errhint("Restore the file from a backup, or remove it once the clock is known "
                                "to be past every ID this cluster issued, then restart.")));
    floor = marks->floor_ms[fmt->f];
    now = toid_clock_now(NULL);
    if (now > floor)
        return;
    /* the clock is at or behind the last mark written before this start */
    while (now <= floor && waited < clock_wait_max_ms) {
        CHECK_FOR_INTERRUPTS();
        pg_usleep(1000L * Min(10, clock_wait_max_ms - waited));
        waited += Min(10, clock_wait_max_ms - waited);
        now = toid_clock_now(NULL);
    }
    if (now <= floor)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: the clock is " INT64_FORMAT " ms behind the mark of the IDs issued "
                               "before this start", fmt->name, floor - now + 1),
                        errdetail("Waited " INT64_FORMAT " ms (toid.clock_wait_max_ms); an ID now could "
                                  "repeat or sort below one already issued.", waited),
                        errhint("IDs resume once the clock passes the mark; check the server's clock.")));
}

void pgtoid_marks_admit(const pgtoid_fmt *fmt, const uint8_t *bin) {
    int64 ms;
    if (!marks)
        return;
    if (toid_time_of(fmt->f, bin, TOID_EPOCH_DEFAULT, &ms) < 0)
        elog(ERROR, "toid: the time of a new %s", fmt->name);
    if (ms <= marks->floor_ms[fmt->f])      /* the clock stepped back since pgtoid_marks_before */
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: the clock went behind the mark of the IDs issued before this start",
                               fmt->name)));
    if (ms > mark_get(fmt->f))
        advance(fmt, ms);
}
