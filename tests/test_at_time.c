/* test_at_time.c — IDs at given times (toid_new_at, toid_at_time_explain):
 * the time asked for, increasing within a ms, unique across time going
 * back and across fork, refused with the library's words where it cannot
 * be unique. */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "toid.h"

static int64_t ms_of(toid_format f, const uint8_t *bin) {
    toid_fields d;
    return toid_inspect(f, bin, TOID_EPOCH_DEFAULT, &d) == 0 ? d.unix_ms : INT64_MIN;
}

/* every format toid_at_time_unique accepts: IDs carry the time asked for,
 * increase within a ms, and many in one ms are distinct */
TEST_CASE(time_and_order) {
    for (int fi = 0; fi < TOID_FORMAT_COUNT; fi++) {
        toid_format f = (toid_format)fi;
        if (toid_at_time_unique(f, NULL) != 1)
            continue;
        toid_at at = {0};
        size_t bs = toid_bin_size(f);
        const int64_t t = 1704067200123;   /* 2024-01-01T00:00:00.123Z */
        uint8_t prev[TOID_BIN_MAX], cur[TOID_BIN_MAX];
        int ok = 1;
        for (int i = 0; i < 10000 && ok; i++) {
            ok = toid_new_at(&at, f, t, cur) == 0 && ms_of(f, cur) == t &&
                 (i == 0 || memcmp(prev, cur, bs) < 0);
            memcpy(prev, cur, bs);
        }
        CHECK_MSG(ok, "%s: 10,000 IDs at one ms carry it, each above the last",
                  toid_format_get(f)->name);
    }
}

/* the time going back starts afresh: each ID has its own time, and the
 * second visit to a ms repeats no ID of the first (fresh random bits) */
TEST_CASE(time_back) {
    toid_at at = {0};
    enum { N = 2000 };
    static uint8_t seen[2 * N][16];
    int n = 0, ok = 1;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < N / 2; i++) {
            int64_t t = 1704067200000 + (i % 2 ? 5 : 0);     /* 0, 5, 0, 5, ...: back every other */
            ok &= toid_new_at(&at, TOID_ULID, t, seen[n]) == 0 && ms_of(TOID_ULID, seen[n]) == t;
            n++;
        }
    CHECK_MSG(ok, "every ID carries its own time");
    int dup = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            dup += memcmp(seen[i], seen[j], 16) == 0;
    CHECK_EQ_INT(dup, 0);
}

/* a forked child does not go on from its parent's last ID (both would make
 * last + 1 in that ms without the fork check) */
TEST_CASE(fork) {
    toid_at at = {0};
    const int64_t t = 1704067200000;
    uint8_t a[16], mine[16], theirs[16];
    CHECK_EQ_INT(toid_new_at(&at, TOID_ULID, t, a), 0);
    int fd[2];
    CHECK(pipe(fd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        uint8_t b[16];
        int rc = toid_new_at(&at, TOID_ULID, t, b);
        _exit(rc == 0 && write(fd[1], b, 16) == 16 ? 0 : 1);
    }
    CHECK_EQ_INT(toid_new_at(&at, TOID_ULID, t, mine), 0);
    int status = -1;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(read(fd[0], theirs, 16) == 16);
    close(fd[0]);
    close(fd[1]);
    CHECK_MSG(memcmp(mine, theirs, 16) != 0, "parent's and child's next IDs differ");
    CHECK_EQ_INT(ms_of(TOID_ULID, theirs), t);
}

/* one state, another format: starts afresh for that format */
TEST_CASE(format_switch) {
    toid_at at = {0};
    uint8_t bin[TOID_BIN_MAX];
    CHECK_EQ_INT(toid_new_at(&at, TOID_ULID, 1704067200000, bin), 0);
    CHECK_EQ_INT(toid_new_at(&at, TOID_UUIDV7, 1704067200000, bin), 0);
    CHECK_EQ_INT(bin[6] >> 4, 7);                  /* a version-7 UUID */
    CHECK_EQ_INT(ms_of(TOID_UUIDV7, bin), 1704067200000);
    CHECK_EQ_INT(toid_new_at(&at, TOID_SCRU160, 1704067200001, bin), 0);
    CHECK_EQ_INT(ms_of(TOID_SCRU160, bin), 1704067200001);
}

/* refusals: the formats that cannot, a time outside the span, bad arguments */
TEST_CASE(refusals) {
    uint8_t bin[TOID_BIN_MAX];
    char why[256];
    for (int fi = 0; fi < TOID_FORMAT_COUNT; fi++) {
        toid_format f = (toid_format)fi;
        toid_at at = {0};
        int can = toid_at_time_unique(f, NULL) == 1;
        int n = toid_at_time_explain(f, why, sizeof why);
        if (can) {
            CHECK_MSG(n == 0 && why[0] == '\0', "%s: nothing to explain", toid_format_get(f)->name);
            continue;
        }
        CHECK_EQ_INT(toid_new_at(&at, f, 1704067200000, bin), TOID_EINVAL);
        CHECK_MSG(n > 0 && (size_t)n == strlen(why) && strstr(why, toid_format_get(f)->name) &&
                  strstr(why, "IDs at given times: ulid, scru160, uuidv7"),
                  "%s: %d \"%s\"", toid_format_get(f)->name, n, why);
    }
    toid_at_time_explain(TOID_NANOFLAKE, why, sizeof why);
    CHECK_EQ_STR(why, "a nanoflake carries a node and a sequence within its ms: an ID at a past "
                      "time cannot be made unique against what the node already issued in that "
                      "ms; IDs at given times: ulid, scru160, uuidv7");
    toid_at_time_explain(TOID_ULID_FLAKE, why, sizeof why);
    CHECK(strncmp(why, "a ulid-flake has 20 random bits a ms:", 37) == 0);
    CHECK_EQ_INT(toid_at_time_explain(TOID_NANOFLAKE, why, 20), TOID_EBUFFER);
    CHECK_EQ_INT(toid_at_time_explain((toid_format)-1, why, sizeof why), TOID_EINVAL);

    toid_at at = {0};
    memset(bin, 0xAA, sizeof bin);
    CHECK_EQ_INT(toid_new_at(&at, TOID_ULID, -1, bin), TOID_ERANGE);
    CHECK_EQ_INT(toid_new_at(&at, TOID_ULID, INT64_C(1) << 48, bin), TOID_ERANGE);
    CHECK_EQ_INT(bin[0], 0xAA);                    /* nothing written on error */
    CHECK_EQ_INT(toid_new_at(&at, TOID_ULID, (INT64_C(1) << 48) - 1, bin), 0);
    CHECK_EQ_INT(toid_new_at(NULL, TOID_ULID, 0, bin), TOID_EINVAL);
    CHECK_EQ_INT(toid_new_at(&at, TOID_ULID, 0, NULL), TOID_EINVAL);
    CHECK_EQ_INT(toid_new_at(&at, (toid_format)TOID_FORMAT_COUNT, 0, bin), TOID_EINVAL);
}

int main(int argc, char **argv) { return check_main(argc, argv, NULL, NULL); }
