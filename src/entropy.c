/* entropy.c — the CSPRNG: per thread, the ChaCha20 keystream keyed from
 * getrandom(2). Each refill makes 16 blocks at once, takes the first 32
 * bytes as the next key (fast key erasure: a captured state does not reveal
 * past output) and hands out the rest; a large draw gets its whole batches
 * of 16 blocks straight from the keystream, with a refill (so a new key)
 * before it returns; every MiB the key is replaced from getrandom. The
 * state lives in a MADV_WIPEONFORK page, so a child process finds it zeroed
 * and reseeds instead of repeating its parent's stream. If getrandom fails we
 * return TOID_EENTROPY: there is no weaker fallback. */
#define _GNU_SOURCE
#include "os.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BLOCKS 16         /* toid__chacha20_blocks16 */
#define RESEED_BYTES (1u << 20)
#define DIRECT_MAX 64     /* batches straight out under one key (64 KiB), then a new key */

typedef struct rng {
    _Alignas(64) uint8_t buf[64 * BLOCKS];  /* first: whole blocks on cache lines */
    uint32_t seeded;            /* 0 after a fork wiped the page */
    uint32_t counter;
    uint32_t key[8];
    uint32_t nonce[3];
    uint32_t pos;               /* next unused byte of buf */
    uint32_t since_reseed;
    uint64_t fork_generation;   /* only consulted for the fallback state */
    uint32_t fallback;          /* 1: on the heap (no wipe-on-fork page) */
} rng;

/* initial-exec: read at a fixed offset from the thread pointer, not through
 * __tls_get_addr (a call, ~20 instructions, on every draw). That makes the
 * library's whole TLS block static, taken from the spare that glibc keeps
 * for libraries loaded by dlopen (PostgreSQL's, the language bindings'), so
 * the block stays small: this pointer and describe.c's time cache, about
 * 100 bytes. No state lives in TLS itself: the page below, or the heap. */
static _Thread_local rng *tls __attribute__((tls_model("initial-exec")));
int toid__test_no_wipe_page;    /* tests: states made from now on go on the heap */
static toid__getrandom_fn getrandom_hook;
static pthread_key_t page_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* At thread exit: the thread's state goes, and so does our pointer to it
 * (a later destructor that draws gets a new state, not a freed one). */
static void free_page(void *p) {
    rng *r = p;
    tls = NULL;
    if (r->fallback)
        free(r);
    else
        munmap(r, 4096);
}
static void make_key(void) { pthread_key_create(&page_key, free_page); }

static rng *state(void) {
    if (__builtin_expect(tls != NULL, 1))
        return tls;
    _Static_assert(sizeof(rng) <= 4096, "rng fits a page");
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#ifdef MADV_WIPEONFORK
    if (p != MAP_FAILED && !toid__fork_detection_off() &&
        (toid__test_no_wipe_page || madvise(p, 4096, MADV_WIPEONFORK) != 0)) {
        munmap(p, 4096);
        p = MAP_FAILED;
    }
#endif
    if (p == MAP_FAILED) {
        /* no wipe-on-fork page: the heap, checked by pid after a fork (fork.c) */
        p = aligned_alloc(_Alignof(rng), (sizeof(rng) + _Alignof(rng) - 1) / _Alignof(rng) * _Alignof(rng));
        if (!p)
            return NULL;
        memset(p, 0, sizeof(rng));
        ((rng *)p)->fallback = 1;
    }
    tls = p;
    pthread_once(&key_once, make_key);
    pthread_setspecific(page_key, p);
    return tls;
}

/* All n bytes from getrandom: retries EINTR and short reads. The raw system
 * call, not glibc's getrandom(): that one is a cancellation point, and this
 * runs inside an ID (the owner's path reseeds there), where a thread
 * cancelled would leave its generator's busy count odd for ever and every
 * other thread of the generator waiting for it (issue 25). syscall() is not
 * a cancellation point. */
static int fill_os(void *buf, size_t n) {
    uint8_t *p = buf;
    int zero_reads = 0;
    while (n) {
        toid__getrandom_fn fn = __atomic_load_n(&getrandom_hook, __ATOMIC_ACQUIRE);
        ssize_t r = fn ? fn(p, n, 0) : syscall(SYS_getrandom, p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return TOID_EENTROPY;
        }
        if (r == 0 && ++zero_reads > 8)
            return TOID_EENTROPY;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int reseed(rng *r) {
    uint32_t fresh[11];
    if (fill_os(fresh, sizeof fresh) < 0)
        return TOID_EENTROPY;
    memcpy(r->key, fresh, 32);
    memcpy(r->nonce, fresh + 8, 12);
    r->counter = 0;
    r->since_reseed = 0;
    r->pos = sizeof r->buf;     /* discard anything buffered */
    r->seeded = 1;
    memset(fresh, 0, sizeof fresh);
    return 0;
}

/* n more bytes made under the seed (saturating: a draw of GiBs must not
 * wrap the count past the reseed). */
static void count_made(rng *r, uint32_t n) {
    if (r->since_reseed < RESEED_BYTES)
        r->since_reseed += n;
}

static void refill(rng *r) {
    toid__chacha20_blocks16(r->key, r->counter, r->nonce, r->buf);
    r->counter += BLOCKS;
    memcpy(r->key, r->buf, 32);       /* fast key erasure */
    memset(r->buf, 0, 32);
    r->pos = 32;
    count_made(r, sizeof r->buf - 32);
}

/* Seeded, and reseeded when due (the only place a system call happens). */
static int ready(rng *r) {
    if (__builtin_expect(r->fallback, 0) && !toid__fork_detection_off()) {  /* no wipe-on-fork page */
        uint64_t g = toid__fork_generation();
        if (g != r->fork_generation) {
            r->seeded = 0;
            r->fork_generation = g;
        }
    }
    if (__builtin_expect(!r->seeded || r->since_reseed >= RESEED_BYTES, 0))
        return reseed(r);
    return 0;
}

static void take(rng *r, uint8_t *o, size_t n) {
    if (n <= 16 && sizeof r->buf - r->pos >= n) {      /* the per-ID draws */
        toid__copy_small(o, r->buf + r->pos, n);
        toid__zero_small(r->buf + r->pos, n);        /* handed-out bytes do not stay behind */
        r->pos += (uint32_t)n;
        return;
    }
    while (n) {
        if (r->pos == sizeof r->buf) {
            /* Batches the draw needs beyond its last go straight to o: no
             * copy through the buffer, no wiping it after. The refill for
             * the rest replaces the key before we return, and after
             * DIRECT_MAX batches, so a captured state reveals none of them. */
            for (unsigned direct = 0; n > sizeof r->buf && direct < DIRECT_MAX; direct++) {
                toid__chacha20_blocks16(r->key, r->counter, r->nonce, o);
                r->counter += BLOCKS;
                count_made(r, sizeof r->buf);
                o += sizeof r->buf;
                n -= sizeof r->buf;
            }
            refill(r);
        }
        size_t k = sizeof r->buf - r->pos;
        if (k > n)
            k = n;
        memcpy(o, r->buf + r->pos, k);
        memset(r->buf + r->pos, 0, k);    /* handed-out bytes do not stay behind */
        r->pos += (uint32_t)k;
        o += k;
        n -= k;
    }
}

int toid_random_bytes(void *out, size_t n) {
    rng *r = state();
    if (__builtin_expect(!r, 0) || ready(r) < 0)
        return TOID_EENTROPY;
    take(r, out, n);
    return 0;
}

int toid__entropy_prepare(void) {
    rng *r = state();
    return !r || ready(r) < 0 ? TOID_EENTROPY : 0;
}

int toid__random_bytes_nosyscall(void *out, size_t n) {
    rng *r = state();
    if (!r || !r->seeded)
        return TOID_EENTROPY;
    take(r, out, n);
    return 0;
}

int toid__random_bytes_if_ready(void *out, size_t n) {
    rng *r = tls;
    if (!r || r->fallback || !r->seeded || r->since_reseed >= RESEED_BYTES)
        return TOID__ERETRY;
    take(r, out, n);
    return 0;
}

void toid__test_set_getrandom(toid__getrandom_fn fn) { __atomic_store_n(&getrandom_hook, fn, __ATOMIC_RELEASE); }
void toid__test_reseed_now(void) {
    rng *r = state();
    if (r)
        r->seeded = 0;
}
