/* os.h — the library's contact with the OS: clock, CSPRNG, fork detection.
 * Internal; the test hooks here are reached by the tests through the static
 * library. */
#ifndef TOID_OS_H
#define TOID_OS_H
#include "format.h"

#include <sys/types.h>

/* ChaCha20 (RFC 8439 §2.3): one 64-byte block. */
void toid__chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                          uint8_t out[64]) TOID__HIDDEN;

/* TOID__CHACHA_LANES consecutive blocks (counter, counter + 1, ...), the
 * same bytes as that many calls of toid__chacha20_block, computed together. */
#define TOID__CHACHA_LANES 4
void toid__chacha20_blocks(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                           uint8_t *out) TOID__HIDDEN;
/* 16 consecutive blocks (1024 bytes): AVX-512 where the CPU has it and
 * toid_simd_select allows it, else two sets of 8 with AVX2, else four times
 * toid__chacha20_blocks. */
void toid__chacha20_blocks16(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                             uint8_t *out) TOID__HIDDEN;
void toid__chacha20_blocks_portable(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
                                    uint8_t *out) TOID__HIDDEN;

/* The fork generation: changes in a child process (fork, vfork+exec aside,
 * or a raw clone without CLONE_VM). A check costs one load when the
 * MADV_WIPEONFORK page is available. */
uint64_t toid__fork_generation(void) TOID__HIDDEN;

/* The same, inline for the per-ID path: once fork.c is set up with its
 * MADV_WIPEONFORK page, a check is two loads and no call (no pthread_once):
 * the page mirrors the generation, and reads 0 in a child until its first
 * check there. Anything else (not set up yet, a child's first check, no wipe
 * page, detection off) goes through toid__fork_generation. */
extern const uint64_t *toid__fork_wipe TOID__HIDDEN;

/* The generation as the page mirrors it: 0 (which no generator holds) when
 * toid__fork_generation must be asked. Two loads. */
static inline uint64_t toid__fork_generation_seen(void) {
    return __atomic_load_n(&__atomic_load_n(&toid__fork_wipe, __ATOMIC_ACQUIRE)[1], __ATOMIC_ACQUIRE);
}

static inline uint64_t toid__fork_generation_fast(void) {
    uint64_t gen = toid__fork_generation_seen();
    return __builtin_expect(gen != 0, 1) ? gen : toid__fork_generation();
}

/* Unix microseconds from the clock (or the hook); clock.h has the inline form. */
extern toid_clock_fn toid__clock_hook TOID__HIDDEN;
extern void *toid__clock_hook_ctx TOID__HIDDEN;
int64_t toid__clock_us(void) TOID__HIDDEN;

/* Seeds (or reseeds, when due) this thread's CSPRNG: may call getrandom.
 * Done before taking a generator's lock, so that inside it
 * toid__random_bytes_nosyscall can hand out bytes without a system call. */
int toid__entropy_prepare(void) TOID__HIDDEN;
/* Like toid_random_bytes but never reseeds (the reseed waits for the next
 * toid__entropy_prepare or toid_random_bytes); TOID_EENTROPY if the thread's
 * CSPRNG was never seeded. */
int toid__random_bytes_nosyscall(void *buf, size_t n) TOID__HIDDEN;

/* Like toid__random_bytes_nosyscall, for a caller that did not prepare:
 * TOID__ERETRY (internal, never returned to users) unless the thread's
 * CSPRNG is set up, seeded, not due for a reseed and on its wipe-on-fork
 * page; the caller then prepares and tries again. */
#define TOID__ERETRY (-1000)
int toid__random_bytes_if_ready(void *buf, size_t n) TOID__HIDDEN;

/* Test hooks. */
typedef ssize_t (*toid__getrandom_fn)(void *buf, size_t n, unsigned flags);
void toid__test_set_getrandom(toid__getrandom_fn fn) TOID__HIDDEN;   /* NULL: the real one */
void toid__test_reseed_now(void) TOID__HIDDEN;                      /* this thread reseeds on next use */
/* The negative control: no fork detection at all — the generation never
 * changes and CSPRNG states made from then on are not wiped on fork. */
void toid__test_disable_fork_detection(int off) TOID__HIDDEN;
int toid__fork_detection_off(void) TOID__HIDDEN;
/* TOID_GEN_SHARED: called under the shared lock before (after = 0) and after
 * (after = 1) the core makes each ID, so a test can kill the holder at a
 * chosen point; and a switch that skips the repair after a dead holder (the
 * negative control). */
extern void (*toid__test_shared_hold)(toid_gen *g, const uint8_t *id, int after) TOID__HIDDEN;
/* gen.c: nonzero makes generators never owned by one thread (as without membarrier(2)). */
extern int toid__test_owner_off TOID__HIDDEN;
/* entropy.c: nonzero puts the CSPRNG states made from then on on the heap,
 * as where no wipe-on-fork page can be had. */
extern int toid__test_no_wipe_page TOID__HIDDEN;
extern int toid__test_skip_repair TOID__HIDDEN;
#endif
