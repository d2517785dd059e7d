/* test_entropy.c — the CSPRNG: the ChaCha20 block function against RFC 8439
 * (§2.3.2 and A.1 #1), the multi-block functions on every SIMD path this CPU
 * has (AVX-512, AVX2, SSE2, portable) against it, the whole stream from a
 * fixed seed on every path against the construction built from the
 * one-block function, output that is not stuck, and injected getrandom
 * faults: EINTR and short reads are retried; a hard failure is the entropy
 * error and never an ID. Internal hooks are reached through the static
 * library. */
#include "check.h"
#include "toid.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

void toid__chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t out[64]);
void toid__chacha20_blocks(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out);
void toid__chacha20_blocks_portable(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out);
void toid__chacha20_blocks16(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint8_t *out);
int toid__test_simd_level(int level);
#define LANES 4
typedef ssize_t (*getrandom_fn)(void *buf, size_t n, unsigned flags);
void toid__test_set_getrandom(getrandom_fn fn);
void toid__test_reseed_now(void);
extern int toid__test_no_wipe_page;

static void hex(const uint8_t *b, size_t n, char *out) {
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

TEST_CASE(rfc8439) {
    uint32_t key[8], nonce[3] = {0x09000000, 0x4a000000, 0};
    for (int i = 0; i < 8; i++)      /* key bytes 00 01 02 ... 1f, little-endian words */
        key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 | (uint32_t)(4 * i + 2) << 16 |
                 (uint32_t)(4 * i + 3) << 24;
    uint8_t out[64];
    char h[129];
    toid__chacha20_block(key, 1, nonce, out);
    hex(out, 64, h);
    CHECK_EQ_STR(h, "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                    "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
    /* the same block as the first of 16 on every path this CPU has */
    for (int level = 3; level >= 0; level--) {
        uint8_t many[64 * 16];
        int got = toid__test_simd_level(level);
        toid__chacha20_blocks16(key, 1, nonce, many);
        hex(many, 64, h);
        CHECK_MSG(strcmp(h, "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                            "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e") == 0,
                  "RFC 8439 2.3.2 at SIMD level %d: %s", got, h);
    }
    toid_simd_select(TOID_SIMD_AUTO);
    uint32_t zero[8] = {0}, zn[3] = {0};
    toid__chacha20_block(zero, 0, zn, out);
    hex(out, 64, h);
    CHECK_EQ_STR(h, "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
                    "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
}

/* the multi-block functions (SIMD and portable) give the same bytes as
 * single blocks */
TEST_CASE(lanes) {
    uint32_t key[8], nonce[3] = {0xdeadbeef, 0x01234567, 0x89abcdef};
    for (int i = 0; i < 8; i++)
        key[i] = 0x9E3779B9u * (uint32_t)(i + 1);
    uint32_t counters[4] = {0, 1000, 0xFFFFFFFCu, 0xFFFFFFF9u};   /* the last two wrap the 32-bit counter */
    for (int k = 0; k < 4; k++) {
        uint8_t many[64 * LANES], portable[64 * LANES], one[64];
        toid__chacha20_blocks(key, counters[k], nonce, many);
        toid__chacha20_blocks_portable(key, counters[k], nonce, portable);
        for (int l = 0; l < LANES; l++) {
            toid__chacha20_block(key, counters[k] + (uint32_t)l, nonce, one);
            CHECK(memcmp(one, many + 64 * l, 64) == 0);
            CHECK(memcmp(one, portable + 64 * l, 64) == 0);
        }
        /* 16 blocks on every path this CPU has: AVX-512, AVX2, SSE2 */
        for (int level = 3; level >= 0; level--) {
            uint8_t sixteen[64 * 16];
            int got = toid__test_simd_level(level);
            toid__chacha20_blocks16(key, counters[k], nonce, sixteen);
            for (int l = 0; l < 16; l++) {
                toid__chacha20_block(key, counters[k] + (uint32_t)l, nonce, one);
                CHECK_MSG(memcmp(one, sixteen + 64 * l, 64) == 0, "level %d, counter %u, block %d", got,
                          (unsigned)counters[k], l);
            }
        }
        toid_simd_select(TOID_SIMD_AUTO);
    }
    printf("chacha20: 16 blocks compared at SIMD levels %d down to 0\n", toid_simd_select(TOID_SIMD_QUERY));
}

TEST_CASE(output) {
    /* 1 MiB + a bit crosses a reseed; bytes look uniform (each byte value
     * within a wide band) and two draws differ */
    static uint8_t buf[(1 << 20) + 4096];
    CHECK_EQ_INT(toid_random_bytes(buf, sizeof buf), 0);
    static long counts[256];
    for (size_t i = 0; i < sizeof buf; i++)
        counts[buf[i]]++;
    long expect = (long)(sizeof buf / 256), worst = 0;
    for (int v = 0; v < 256; v++) {
        long d = labs(counts[v] - expect);
        if (d > worst)
            worst = d;
    }
    CHECK_MSG(worst < expect / 10, "byte counts within 10%% of %ld (worst %ld)", expect, worst);
    uint8_t a[32], b[32];
    toid_random_bytes(a, 32);
    toid_random_bytes(b, 32);
    CHECK(memcmp(a, b, 32) != 0);
    CHECK_EQ_INT(toid_random_bytes(a, 0), 0);
}

/* ---- the whole stream, from a fixed seed, on every path ---- */
static unsigned seed_calls;

/* getrandom that hands out the same bytes in every run: byte i of call c */
static ssize_t fixed_getrandom(void *buf, size_t n, unsigned flags) {
    (void)flags;
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(0x3D * i + 0x71 * seed_calls + 1);
    seed_calls++;
    return (ssize_t)n;
}

#define STREAM ((5u << 20) / 2)    /* 2.5 MiB: crosses two reseeds */

/* The draws: sizes from 1 byte to 70000, in turn, up to STREAM bytes. */
static size_t draw_size(unsigned k, size_t done) {
    static const size_t sizes[] = {1, 7, 16, 10, 64, 100, 4096, 3, 5000, 992, 1024, 33, 2049, 70000};
    size_t n = sizes[k % (sizeof sizes / sizeof sizes[0])];
    return n < STREAM - done ? n : STREAM - done;
}

static void draw_stream(uint8_t *out) {
    size_t done = 0;
    for (unsigned k = 0; done < STREAM; k++) {
        size_t n = draw_size(k, done);
        CHECK_EQ_INT(toid_random_bytes(out + done, n), 0);
        done += n;
    }
}

/* The same draws by the construction, from the one-block function: 16
 * blocks per refill, the first 32 bytes the next key, the other 992 handed
 * out; but when the buffer is used up and the draw needs more than 16
 * blocks' worth, whole batches of 16 blocks go straight out, up to 64 under
 * one key; once 1 MiB has been made since the last seed, the next draw
 * starts from a new key and nonce from getrandom (what is left buffered
 * goes). */
static void reference_stream(uint8_t *out) {
    uint32_t key[8], nonce[3], counter = 0, fresh[11];
    uint8_t buf[64 * 16];
    size_t done = 0, since = 0, pos = 0;
    unsigned calls = 0;
    for (unsigned k = 0; done < STREAM; k++) {
        if (k == 0 || since >= (1u << 20)) {
            seed_calls = calls++;
            fixed_getrandom(fresh, sizeof fresh, 0);
            memcpy(key, fresh, 32);
            memcpy(nonce, fresh + 8, 12);
            counter = 0;
            since = 0;
            pos = sizeof buf;
        }
        unsigned direct = 0;
        for (size_t n = draw_size(k, done); n > 0; n--) {
            if (pos == sizeof buf && n > sizeof buf && direct < 64) {
                for (uint32_t b = 0; b < 16; b++)
                    toid__chacha20_block(key, counter + b, nonce, out + done + 64 * b);
                counter += 16;
                since += sizeof buf;
                done += sizeof buf;
                n -= sizeof buf - 1;    /* the loop takes the last one */
                direct++;
                continue;
            }
            if (pos == sizeof buf) {
                direct = 0;
                for (uint32_t b = 0; b < 16; b++)
                    toid__chacha20_block(key, counter + b, nonce, buf + 64 * b);
                counter += 16;
                memcpy(key, buf, 32);
                pos = 32;
                since += sizeof buf - 32;
            }
            out[done++] = buf[pos++];
        }
    }
}

TEST_CASE(streams) {
    static uint8_t want[STREAM], got[STREAM];
    reference_stream(want);
    toid__test_set_getrandom(fixed_getrandom);
    for (int level = 3; level >= 0; level--) {
        int used = toid__test_simd_level(level);
        seed_calls = 0;
        toid__test_reseed_now();
        memset(got, 0, sizeof got);
        draw_stream(got);
        size_t first = 0;
        while (first < STREAM && got[first] == want[first])
            first++;
        CHECK_MSG(first == STREAM, "SIMD level %d: the stream differs from the reference at byte %zu", used, first);
        CHECK_EQ_INT(seed_calls, 3);
    }
    toid__test_set_getrandom(NULL);
    toid__test_reseed_now();
    toid_simd_select(TOID_SIMD_AUTO);
}

/* ---- getrandom faults ---- */
static int calls, mode;
static size_t requested;

static ssize_t fake_getrandom(void *buf, size_t n, unsigned flags) {
    (void)flags;
    calls++;
    if (mode == 1 && calls == 1) {          /* EINTR once */
        errno = EINTR;
        return -1;
    }
    if (mode == 3) {                        /* hard failure */
        errno = EIO;
        return -1;
    }
    size_t k = mode == 2 && n > 5 ? 5 : n;  /* short reads of 5 bytes */
    memset(buf, 0x5A ^ calls, k);
    requested += k;
    return (ssize_t)k;
}

TEST_CASE(faults) {
    uint8_t buf[64], id[TOID_BIN_MAX];
    toid__test_set_getrandom(fake_getrandom);

    mode = 1, calls = 0, requested = 0;
    toid__test_reseed_now();
    CHECK_EQ_INT(toid_random_bytes(buf, 16), 0);
    CHECK_EQ_INT(calls, 2);                 /* retried after EINTR */
    CHECK_EQ_INT(requested, 44);            /* key and nonce */

    mode = 2, calls = 0, requested = 0;
    toid__test_reseed_now();
    CHECK_EQ_INT(toid_random_bytes(buf, 16), 0);
    CHECK_EQ_INT(requested, 44);            /* all of it, in short reads */
    CHECK_EQ_INT(calls, 9);

    mode = 3, calls = 0;
    toid__test_reseed_now();
    CHECK_EQ_INT(toid_random_bytes(buf, 16), TOID_EENTROPY);
    CHECK_EQ_INT(toid_random_bytes(buf, 16), TOID_EENTROPY);   /* still no weaker fallback */
    /* generators return the error and no ID (out zeroed), for every random-bearing format */
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f)) {
        memset(id, 0xEE, sizeof id);
        int rc = toid_new((toid_format)f, id);
        if (f == TOID_NANOFLAKE) {
            CHECK_EQ_INT(rc, 0);     /* no randomness in nanoflake */
            continue;
        }
        CHECK_MSG(rc == TOID_EENTROPY, "%s: %s", toid_format_get((toid_format)f)->name, toid_err_name(rc));
        bool zero = true;   /* out holds no ID: zeroed (toid.h) */
        for (size_t i = 0; i < toid_bin_size((toid_format)f); i++)
            zero &= id[i] == 0;
        CHECK_MSG(zero, "%s: out zeroed", toid_format_get((toid_format)f)->name);
        char t[TOID_TEXT_MAX];
        CHECK_EQ_INT(toid_new_text((toid_format)f, t, sizeof t), TOID_EENTROPY);
        size_t made = 99;
        uint8_t many[4 * TOID_BIN_MAX];
        CHECK_EQ_INT(toid_new_batch((toid_format)f, many, 4, &made), TOID_EENTROPY);
        CHECK_EQ_INT(made, 0);
    }
    /* recovered */
    toid__test_set_getrandom(NULL);
    CHECK_EQ_INT(toid_random_bytes(buf, 16), 0);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) if (GENERATES(f))
        CHECK_EQ_INT(toid_new((toid_format)f, id), 0);
}

/* A thread whose CSPRNG state could not get a wipe-on-fork page keeps it on
 * the heap: a forked child must not go on with the parent's stream (the
 * fork generation reseeds it), and the state is freed at thread exit. */
static void *heap_state_thread(void *arg) {
    int *ok = arg;
    uint8_t before[32], parent[32], child[32];
    int fds[2];
    *ok = 0;
    if (toid_random_bytes(before, sizeof before) != 0 || pipe(fds) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int rc = toid_random_bytes(child, sizeof child);
        ssize_t w = write(fds[1], child, sizeof child);
        _exit(rc == 0 && w == (ssize_t)sizeof child ? 0 : 1);
    }
    int st = 0;
    ssize_t r = read(fds[0], child, sizeof child);
    waitpid(pid, &st, 0);
    close(fds[0]);
    close(fds[1]);
    if (pid > 0 && r == (ssize_t)sizeof child && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
        toid_random_bytes(parent, sizeof parent) == 0)
        *ok = memcmp(parent, child, sizeof child) != 0 ? 1 : 2;
    return NULL;
}

TEST_CASE(heap_state_after_fork) {
    toid__test_no_wipe_page = 1;    /* for the states made from now on: a new thread's */
    int ok = -1;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, heap_state_thread, &ok) == 0);
    pthread_join(t, NULL);
    toid__test_no_wipe_page = 0;
    CHECK_MSG(ok == 1, "the child's bytes %s", ok == 2 ? "repeat the parent's" : "could not be compared");
}

int main(int argc, char **argv) {
    return check_main(argc, argv, NULL, NULL);
}
