/* claim_local.c — the local claim backend: a directory of lock files and
 * high-water marks, the same files toidd's state directory keeps.
 *
 * Files in the directory, for each (format, node):
 *   FORMAT-NODE.lock  flock(LOCK_EX) held for the life of the claim; never
 *                     removed (removing a lock file races with its next user);
 *                     says "initialised; pid N" once a mark has been durable
 *   FORMAT-NODE.mark  "issued up to T": text, one key a line, with an FNV-1a
 *                     checksum line; replaced atomically (temp file, fsync,
 *                     rename, fsync of the directory)
 *
 * "local" alone is the host's registry (TOID_HOST_REGISTRY, by default
 * /var/lib/toid/claims): root's, group TOID_HOST_REGISTRY_GROUP ("toid"),
 * mode 2770, made by the installation (packaging/toid-registry-setup). It
 * is opened without following a symlink and checked on the opened
 * descriptor (root's or ours, not writable by everyone), and never made
 * here: a missing or unusable registry is an error naming the fix, since a
 * private one would be a world other generators cannot see.
 *
 * In a group-writable directory (the registry, or a local=DIR set up the
 * same way) every file this process makes is the directory's group's with
 * mode 0660, whatever the umask: root, toidd and the other members can
 * then lock and replace each other's files, and none locks the others out.
 */
#define _GNU_SOURCE
#include "claim_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct local_dir {
    int dir_fd;
    int shared;  /* the directory is group-writable: its files are its group's, 0660 */
    gid_t gid;   /* the directory's group */
    char dir[1024];
} local_dir;

typedef struct local_claim {
    int lock_fd;
    int initialised; /* the lock file said so when taken */
} local_claim;

static local_dir *LD(const toid_claimer *c) { return c->bk; }

/* The host's registry (toid_claim.h): made by the installation, never by
 * the library, so that a missing one is an error and not a private registry
 * that other users' generators cannot see. White-box tests point it
 * elsewhere. */
const char *toid__claim_registry = TOID_HOST_REGISTRY;
const char *toid__claim_registry_group = TOID_HOST_REGISTRY_GROUP;

/* Why an opened registry is unsafe to keep claims in, or NULL. Checked on
 * the descriptor itself (fstat), so that what is checked is what is used:
 * a check by path, then an open, would race with a rename or a symlink. */
static const char *unsafe_dir(int fd) {
    struct stat st;
    if (fstat(fd, &st) < 0)
        return "it cannot be examined";
    return !S_ISDIR(st.st_mode)                        ? "it is not a directory"
           : st.st_uid != 0 && st.st_uid != geteuid() ? "it is owned by a user other than root and this one"
           : (st.st_mode & 002)                        ? "every user may write to it"
                                                       : NULL;
}

/* The user running this, for messages. */
static const char *user_name(char *buf, size_t cap) {
    struct passwd pw, *res = NULL;
    char tmp[1024];
    if (getpwuid_r(geteuid(), &pw, tmp, sizeof tmp, &res) == 0 && res)
        snprintf(buf, cap, "%s", res->pw_name);
    else
        snprintf(buf, cap, "uid %lu", (unsigned long)geteuid());
    return buf;
}

/* A group's name, else its number. */
static const char *group_name(gid_t gid, char *buf, size_t cap) {
    struct group gr, *res = NULL;
    char tmp[1024];
    if (getgrgid_r(gid, &gr, tmp, sizeof tmp, &res) == 0 && res)
        snprintf(buf, cap, "%s", res->gr_name);
    else
        snprintf(buf, cap, "%lu", (unsigned long)gid);
    return buf;
}

/* A directory this user may not enter: the group to join (the directory's,
 * if it can be seen, else fallback), or another registry to name. */
static void denied(const char *what, const char *dir, const char *fallback, char *err, size_t err_size) {
    struct stat st;
    char who[128], gname[64];
    if (stat(dir, &st) == 0)
        group_name(st.st_gid, gname, sizeof gname);
    else
        snprintf(gname, sizeof gname, "%s", fallback ? fallback : "of the directory");
    claim_err(err, err_size, "%s %s: permission denied for %s: add it to group %s (usermod -aG "
              "%s USER, then log in again), or name another registry (TOID_CLAIM=local=DIR, or "
              "--claim)", what, dir, user_name(who, sizeof who), gname, gname);
}

/* The host's registry, opened (never through a symlink) and checked on the
 * opened descriptor. Returns the descriptor, or an error that says how to
 * fix it: set the registry up, join its group, or name another one. */
static int host_registry(char *dir, size_t cap, char *err, size_t err_size) {
    const char *grp = toid__claim_registry_group;
    snprintf(dir, cap, "%s", toid__claim_registry);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    const char *why = NULL;
    if (fd < 0) {
        int e = errno;
        struct stat st; /* (refused either way: lstat only names the reason) */
        if (e == ENOENT) {
            claim_err(err, err_size, "the host's node registry %s does not exist: set it up "
                      "(as root: cmake --install, or the Debian package toid-registry), or name "
                      "a registry (TOID_CLAIM=local=DIR, 'claim = local=DIR' in "
                      "/etc/toid/claim.conf, or --claim)", dir);
            return TOID_CLAIM_EIO;
        }
        if (e == EACCES) {
            denied("the host's node registry", dir, grp, err, err_size);
            return TOID_CLAIM_EIO;
        }
        if (e != ELOOP && e != ENOTDIR) {
            claim_err(err, err_size, "the host's node registry %s: %s", dir, strerror(e));
            return TOID_CLAIM_EIO;
        }
        why = lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) ? "it is a symbolic link"
                                                          : "it is not a directory";
    } else {
        why = unsafe_dir(fd);
    }
    if (why) {
        if (fd >= 0)
            close(fd);
        claim_err(err, err_size, "the host's node registry %s is unsafe (%s): refusing to use "
                  "it; set it up again (as root: cmake --install, or the Debian package "
                  "toid-registry)", dir, why);
        return TOID_CLAIM_ECORRUPT;
    }
    return fd;
}

static int local_open(toid_claimer *c, const char *arg, char *err, size_t err_size) {
    local_dir *d = calloc(1, sizeof *d);
    if (!d) {
        claim_err(err, err_size, "out of memory");
        return TOID_CLAIM_EIO;
    }
    int rc = 0;
    if (arg[0] == '=') {
        if (!arg[1]) {
            claim_err(err, err_size, "'local=' needs a directory");
            free(d);
            return TOID_EINVAL;
        }
        snprintf(d->dir, sizeof d->dir, "%s", arg + 1);
        /* a chosen directory: made if missing, its permissions are the operator's */
        if (mkdir(d->dir, 0700) < 0 && errno != EEXIST) {
            claim_err(err, err_size, "claim directory %s: cannot create it: %s", d->dir,
                      strerror(errno));
            rc = TOID_CLAIM_EIO;
        } else if ((d->dir_fd = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
            if (errno == EACCES)
                denied("claim directory", d->dir, NULL, err, err_size);
            else
                claim_err(err, err_size, "claim directory %s: %s", d->dir, strerror(errno));
            rc = TOID_CLAIM_EIO;
        }
    } else if ((rc = host_registry(d->dir, sizeof d->dir, err, err_size)) >= 0) {
        d->dir_fd = rc;
        rc = 0;
    }
    struct stat st;
    memset(&st, 0, sizeof st);
    if (rc == 0 && fstat(d->dir_fd, &st) < 0) {
        claim_err(err, err_size, "claim directory %s: %s", d->dir, strerror(errno));
        close(d->dir_fd);
        rc = TOID_CLAIM_EIO;
    }
    if (rc < 0) {
        free(d);
        return rc;
    }
    d->shared = (st.st_mode & 020) != 0;
    d->gid = st.st_gid;
    c->bk = d;
    return 0;
}

/* A file this process made in a shared directory: the directory's group
 * and 0660, whatever the umask (toidd's unit has 0077) or the primary
 * group, so that the other users of the registry can lock and replace it.
 * (A file of another user is left as it is.) */
static void share_file(const toid_claimer *c, int fd, const char *name) {
    const local_dir *d = LD(c);
    struct stat st;
    if (!d->shared || fstat(fd, &st) < 0 || st.st_uid != geteuid())
        return;
    if ((st.st_gid != d->gid && fchown(fd, (uid_t)-1, d->gid) < 0) ||
        ((st.st_mode & 0777) != 0660 && fchmod(fd, 0660) < 0))
        claim_log(c, TOID_CLAIM_LOG_WARN, "state %s/%s: cannot give it to the directory's group "
                  "with mode 0660 (%s): other users of the registry may be locked out",
                  d->dir, name, strerror(errno));
}

static void local_close(toid_claimer *c, int io) {
    (void)io; /* (closing a child's copy of the descriptor is no I/O) */
    local_dir *d = LD(c);
    close(d->dir_fd);
    free(d);
    c->bk = NULL;
}

static uint64_t fnv1a(const char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The mark file's text; returns its length or -1. */
static int render_mark(const toid_claim *k, int64_t mark, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "toidd-mark 1\nformat %s\nnode %" PRIu32 "\nepoch_ms %" PRId64
                     "\nissued_up_to_ms %" PRId64 "\n",
                     toid_format_get(k->format)->name, k->node, k->epoch_ms, mark);
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

/* Persists mark: temp file, fsync, rename over the mark, fsync the directory. */
static int local_write_mark(toid_claim *k, int64_t mark, int64_t until) {
    (void)until; /* a local write is not given up */
    toid_claimer *c = k->c;
    local_dir *d = LD(c);
    char text[512], tmp[96], fin[96];
    int n = render_mark(k, mark, text, sizeof text);
    snprintf(tmp, sizeof tmp, "%s.mark.tmp", k->name);
    snprintf(fin, sizeof fin, "%s.mark", k->name);
    const char *step = "render";
    int fd = -1;
    if (n < 0)
        goto fail;
    step = "create temp file";
    fd = openat(d->dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        goto fail;
    share_file(c, fd, tmp);
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
    if (renameat(d->dir_fd, tmp, d->dir_fd, fin) < 0)
        goto fail;
    step = "fsync directory";
    if (fsync(d->dir_fd) < 0)
        goto fail;
    return 0;
fail:;
    int e = errno;
    if (fd >= 0)
        close(fd);
    claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s.mark: %s failed: %s", d->dir, k->name, step,
              strerror(e));
    return TOID_CLAIM_EIO;
}

/* Reads the mark: 1 and *mark, 0 if the file does not exist, or an error
 * (logged) if it is unreadable, corrupt or for another format, node or epoch. */
static int read_mark(toid_claim *k, int64_t *mark) {
    toid_claimer *c = k->c;
    local_dir *d = LD(c);
    char fin[96], buf[600];
    snprintf(fin, sizeof fin, "%s.mark", k->name);
    int fd = openat(d->dir_fd, fin, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s: cannot open: %s", d->dir, fin,
                  strerror(errno));
        return TOID_CLAIM_EIO;
    }
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, sizeof buf - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s: cannot read: %s", d->dir, fin,
                      strerror(errno));
            close(fd);
            return TOID_CLAIM_EIO;
        }
        len += (size_t)r;
        if (r == 0 || len >= sizeof buf - 1)
            break;
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
    int n = p && end && *end == '\n' && errno == 0
                ? render_mark(k, (int64_t)v, expect, sizeof expect)
                : -1;
    if (n < 0 || (size_t)n != len || memcmp(expect, buf, len) != 0) {
        /* Say what differs when it is the epoch: a common operator error. */
        const char *e = strstr(buf, "\nepoch_ms ");
        char mine[64];
        snprintf(mine, sizeof mine, "\nepoch_ms %" PRId64 "\n", k->epoch_ms);
        if (e && strncmp(e, mine, strlen(mine)) != 0 && n >= 0) {
            /* (in a range search the node is passed over: a warning) */
            k->other_epoch = 1;
            claim_log(c, k->single ? TOID_CLAIM_LOG_ERR : TOID_CLAIM_LOG_WARN,
                      "state %s/%s was written for another epoch than the configured %" PRId64
                      " ms: IDs could repeat; %s", d->dir, fin, k->epoch_ms,
                      k->single ? "refusing it (restore the epoch, or reset the mark (toidd "
                                  "--reset-state) if you know what you are doing)"
                                : "passing the node over");
        } else
            claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s is corrupt (not a toidd mark for %s "
                      "node %" PRIu32 ", or bad checksum): refusing it; repair it, or reset "
                      "the mark once (toidd --reset-state) if the clock is known to be past "
                      "every ID issued", d->dir, fin, toid_format_get(k->format)->name, k->node);
        return TOID_CLAIM_ECORRUPT;
    }
    *mark = (int64_t)v;
    return 1;
}

/* Why a lock file could not be opened; for one another user made private
 * (0600, as toid before 1.1 did), the commands that share it. */
static void locked_out(const toid_claimer *c, const char *lockname) {
    const local_dir *d = LD(c);
    int e = errno;
    struct stat st;
    if (e == EACCES && fstatat(d->dir_fd, lockname, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        char group[64];
        group_name(d->gid, group, sizeof group);
        claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s: permission denied: it is uid %lu's with "
                  "mode %04o; give it to the registry's group (as root: chgrp %s %s/%s && "
                  "chmod 0660 %s/%s)", d->dir, lockname, (unsigned long)st.st_uid,
                  (unsigned)(st.st_mode & 07777), group, d->dir, lockname, d->dir, lockname);
        return;
    }
    claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s: %s", d->dir, lockname, strerror(e));
}

static int local_take(toid_claimer *c, toid_claim *k, int64_t *prev) {
    local_dir *d = LD(c);
    local_claim *lc = calloc(1, sizeof *lc);
    if (!lc) {
        claim_log(c, TOID_CLAIM_LOG_ERR, "out of memory");
        return TOID_CLAIM_EIO;
    }
    const char *fmt = toid_format_get(k->format)->name;
    char lockname[96];
    snprintf(lockname, sizeof lockname, "%s.lock", k->name);
    int rc = TOID_CLAIM_EIO;
    lc->lock_fd = openat(d->dir_fd, lockname, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lc->lock_fd < 0) {
        locked_out(c, lockname);
        goto fail;
    }
    share_file(c, lc->lock_fd, lockname);
    /* The lock file says whether this (format, node) was ever initialised,
     * and by whom last. */
    char lockbuf[64];
    ssize_t lk = pread(lc->lock_fd, lockbuf, sizeof lockbuf - 1, 0);
    lockbuf[lk > 0 ? lk : 0] = '\0';
    if (flock(lc->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno == EWOULDBLOCK) {
            rc = TOID_CLAIM_EBUSY;
            if (k->single) {
                const char *pid = strstr(lockbuf, "pid ");
                long who = pid ? strtol(pid + 4, NULL, 10) : 0;
                char holder[48] = "";
                if (who > 0)
                    snprintf(holder, sizeof holder, "pid %ld, ", who);
                claim_log(c, TOID_CLAIM_LOG_ERR, "%s node %" PRIu32 " is in use by another "
                          "process (%slock %s/%s is held): refusing a second generator with "
                          "the same id", fmt, k->node, holder, d->dir, lockname);
            }
        } else {
            claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s: flock: %s", d->dir, lockname,
                      strerror(errno));
        }
        goto fail;
    }
    /* Read again under the lock (the holder before may have just written it):
     * only an initialised node's missing mark is an error (a crash during
     * the very first start leaves an uninitialised lock file: harmless). */
    lk = pread(lc->lock_fd, lockbuf, sizeof lockbuf - 1, 0);
    lc->initialised = lk >= 11 && memcmp(lockbuf, "initialised", 11) == 0;
    k->bk = lc;
    int64_t mark = 0;
    if (c->o.reset) {
        claim_log(c, TOID_CLAIM_LOG_WARN, "state %s/%s.mark: reset on request (--reset-state) to "
                  "the clock's time", d->dir, k->name);
        mark = toid_clock_now(NULL);
        if ((rc = local_write_mark(k, mark, INT64_MAX)) < 0)
            goto fail;
    } else {
        int r = read_mark(k, &mark);
        if (r < 0) {
            rc = r;
            goto fail;
        }
        if (r == 0) {
            if (lc->initialised) {
                claim_log(c, TOID_CLAIM_LOG_ERR, "state %s/%s.mark is missing although %s says "
                          "it was initialised: the IDs issued before cannot be ruled out; "
                          "refusing it (restore the file, or reset the mark once (toidd "
                          "--reset-state) if the clock is known to be past every ID issued)",
                          d->dir, k->name, lockname);
                rc = TOID_CLAIM_ECORRUPT;
                goto fail;
            }
            mark = toid_clock_now(NULL);
            if ((rc = local_write_mark(k, mark, INT64_MAX)) < 0)
                goto fail;
            claim_log(c, TOID_CLAIM_LOG_INFO, "state %s/%s.mark: initialised", d->dir, k->name);
        }
    }
    *prev = mark;
    return 0;
fail:
    k->bk = NULL;
    if (lc->lock_fd >= 0)
        close(lc->lock_fd);
    free(lc);
    return rc;
}

/* The pid each lock file of [lo, hi] names ("initialised; pid N", written
 * by each holder once its first mark is durable). */
static void local_holders(toid_claimer *c, toid_format f, uint32_t lo, uint32_t hi, char (*who)[64]) {
    local_dir *d = LD(c);
    for (uint32_t n = lo; n <= hi; n++) {
        char name[96], buf[64];
        snprintf(name, sizeof name, "%s-%" PRIu32 ".lock", toid_format_get(f)->name, n);
        int fd = openat(d->dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
        close(fd);
        buf[r > 0 ? r : 0] = '\0';
        const char *pid = strstr(buf, "pid ");
        long p = pid ? strtol(pid + 4, NULL, 10) : 0;
        if (p > 0)
            snprintf(who[n - lo], sizeof who[n - lo], "pid %ld", p);
    }
}

/* A mark is durable: from now on a missing mark is an error. */
static int local_taken(toid_claim *k) {
    local_claim *lc = k->bk;
    local_dir *d = LD(k->c);
    char info[64];
    int n = snprintf(info, sizeof info, "initialised; pid %10ld\n", (long)getpid());
    /* Fixed width: once initialised, the record is overwritten in place. */
    if ((!lc->initialised && ftruncate(lc->lock_fd, 0) < 0) ||
        pwrite(lc->lock_fd, info, (size_t)n, 0) != n || fsync(lc->lock_fd) < 0 ||
        fsync(d->dir_fd) < 0) {
        claim_log(k->c, TOID_CLAIM_LOG_ERR, "state %s/%s.lock: cannot write: %s", d->dir, k->name,
                  strerror(errno));
        return TOID_CLAIM_EIO;
    }
    lc->initialised = 1;
    return 0;
}

static void local_drop(toid_claim *k, int io) {
    (void)io;
    local_claim *lc = k->bk;
    if (!lc)
        return;
    /* The lock goes with it; in a child of fork() this closes the child's
     * copy only, and the parent's descriptor keeps the lock. */
    close(lc->lock_fd);
    free(lc);
    k->bk = NULL;
}

const claim_backend claim_backend_local = {
    .kind = "local",
    .info = {.kind = "local", .shared_by_hosts = 0, .leases = 0, .takes_prefix_ttl = 0},
    .open = local_open,
    .held = NULL,
    .holders = local_holders,
    .take = local_take,
    .write_mark = local_write_mark,
    .taken = local_taken,
    .drop = local_drop,
    .tick = NULL,
    .close = local_close,
};
