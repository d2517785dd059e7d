/* gen_state.h — what a toid_gen holds. toid.h declares the generator as
 * TOID_GEN_SIZE opaque bytes (so that its layout is no part of the ABI); the
 * library, and the white-box tests, see them through toid__h(). */
#ifndef TOID_GEN_STATE_H
#define TOID_GEN_STATE_H
#include "toid.h"

#include <stddef.h>
#include <stdint.h>

/* A generator's state. may_alias: the bytes are declared as the public
 * struct's array (a caller's `toid_gen g;` on the stack has that type), and
 * are read and written through this one. */
typedef struct __attribute__((may_alias)) toid_gen_head {
    toid_gen_config cfg;        /* resolved */
    int64_t epoch_ms;
    int64_t last_ms;            /* unix ms of the last ID; INT64_MIN before any */
    uint8_t last[TOID_BIN_MAX]; /* the last ID */
    uint32_t seq;               /* sequence, counter, or IDs issued in last_ms */
    uint32_t tag;               /* uid11: the tag of last_ms in the issued-value set */
    uint64_t fork_generation;
    uint64_t word;              /* the whole state in one word, for the formats updated by CAS */
    int lock;
    uint32_t state;             /* private flags */
    uint64_t owner;             /* the one thread using it without atomics, or none / MANY / REVOKING / UNLOCKED */
    uint32_t busy;              /* the owner's count: odd inside an ID, + 2 each ID */
    uint32_t tick_ns;           /* the owner's: where ms tick_ms starts, tick_ns into second tick_sec */
    int64_t tick_sec;
    int64_t tick_ms;            /* INT64_MAX: none */
    int64_t fence_ms;           /* TOID_GEN_SHARED: the latest ms the lock holder may issue */
    uint32_t repair;            /* TOID_GEN_SHARED: a lock holder died, state to repair */
    uint64_t shared_lock[8];    /* TOID_GEN_SHARED: a robust process-shared mutex */
} toid_gen_head;

_Static_assert(sizeof(toid_gen_head) <= sizeof(toid_gen), "the state fits TOID_GEN_SIZE");
_Static_assert(_Alignof(toid_gen_head) <= _Alignof(toid_gen), "a toid_gen is aligned for the state");
/* uid11's issued-value set: slots of 32 bits after the toid_gen (fmt_uid11.c). */
#define TOID__UID11_SLOTS 8192
_Static_assert(sizeof(toid_gen_uid11) - sizeof(toid_gen) == TOID__UID11_SLOTS * sizeof(uint32_t),
               "toid_gen_uid11 has room for uid11's set");

/* The state in g's bytes. */
static inline toid_gen_head *toid__h(const toid_gen *g) { return (toid_gen_head *)(uintptr_t)g; }

/* uid11's issued-value set: the 32 KiB right after the toid_gen. */
static inline uint32_t *toid__uid11_seen(toid_gen *g) { return (uint32_t *)(void *)(g + 1); }
#endif
