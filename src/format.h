/*
 * format.h — the internal description of a format: its codec and its bit
 * layout. Each src/fmt_<name>.c defines one toid__format; inspect, make,
 * describe and time bounds (layout.c) work from the layout alone, so a format
 * is data plus its text codec.
 */
#ifndef TOID_FORMAT_H
#define TOID_FORMAT_H

#include "gen_state.h"
#include "toid.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define TOID__HIDDEN __attribute__((visibility("hidden")))

/* The library's invariants, stated where they must hold: checked in a debug
 * build (no NDEBUG: CMAKE_BUILD_TYPE=Debug, which the sanitizer CI build
 * is), compiled away in a release build. */
#ifdef NDEBUG
#define TOID__ASSERT(cond) ((void)0)
#else
#include <assert.h>
#define TOID__ASSERT(cond) assert(cond)
#endif

struct toid__core;

/* One sub-field of the value: `width` bits whose lowest is bit `shift`. */
typedef struct toid__field_layout {
    uint8_t id;     /* toid_field_id */
    uint8_t shift;
    uint8_t width;  /* up to 80 */
} toid__field_layout;

/* Bits of the value that no sub-field above describes, named for
 * toid_layout (uuidv7's ver, rand_a, var, rand_b): `width` bits starting
 * `offset` bits below the most significant, as the specs number them. */
typedef struct toid__span {
    const char *name;
    uint8_t offset;
    uint8_t width;  /* up to 64 */
} toid__span;

/* A format's text encoder: writes exactly info.text_len characters, no NUL. */
typedef void (*toid__encode_fn)(const uint8_t *bin, char *out);
/* A format's decoder (toid__format's decode). */
typedef int (*toid__decode_fn)(const char *text, size_t len, uint8_t *bin, size_t *err_pos);

typedef struct toid__format {
    toid_format_info info;
    /* Strict decode, checks length, alphabet, overflow in that order. The
     * format layer's fixed bits (uuidv7 version/variant) are checked here too.
     * Where the format has a SIMD decoder, it asks the level on each call. */
    toid__decode_fn decode;
    /* The decoder for each codec slot, as encode_at below (toid__decoder):
     * [2] tries the SIMD decoder and hands what it does not accept to [1]. */
    toid__decode_fn decode_at[3];
    /* Writes exactly info.text_len characters, no NUL; where the format has a
     * SIMD encoder, it asks the level (toid__simd()) on each call. */
    toid__encode_fn encode;
    /* The encoder for each codec slot (simd.h's toid__codec_slot: [0] the
     * level not known yet: encode, which finds it; [1] scalar; [2] SIMD), so
     * toid__encoder calls it without encode's check of the level. Set with
     * TOID__ENCODE (one encoder) or TOID__ENCODE_SIMD (simd.h). */
    toid__encode_fn encode_at[3];
    uint8_t ts_shift;              /* the timestamp is info.ts_bits wide at this shift */
    uint8_t nfields;
    toid__field_layout fields[4];  /* the sub-fields, most significant first */
    /* Bits fixed by the format (uuidv7 version and variant): for a valid
     * value, (bin & fixed_mask) == fixed_bits. NULL when there are none. */
    const uint8_t *fixed_mask;
    const uint8_t *fixed_bits;
    bool has_reserved;             /* scru160: the derived `reserved` flag */
    const toid__span *extra;       /* layout only: bits the fields do not report */
    uint8_t nextra;
    /* Generation (gen.h): the pure core, and the format's defaults. */
    int (*next)(struct toid__core *c, uint8_t *out);
    /* The owner's one ID, `next` inlined into the owner's path (gen_owner.h's
     * TOID__ONE), called when toid__h(g)->owner names the caller: the ID's status
     * bits, TOID_EINVAL (a re-entered call), or TOID__ESLOW to take the
     * generic path. NULL for a format that
     * always takes that (uid11: sorted batches). */
    int (*one)(toid_gen *g, uint8_t *out);
    /* toid_new and toid_new_text of the format, with `one` inlined (the same
     * TOID__ONE); NULL: gen.c's general ones. */
    int (*new_bin)(uint8_t *out);
    int (*new_text)(char *out, size_t out_size);
    /* Formats whose whole state fits one word are updated by compare-and-swap:
     * pack the state into a word (0 = no ID yet) and back. NULL otherwise. */
    uint64_t (*pack)(const toid_gen_head *g);
    void (*unpack)(uint64_t word, toid_gen_head *g);
    uint8_t default_on_exhausted;  /* toid_on_exhausted */
    uint8_t default_on_behind;     /* toid_on_behind */
    uint8_t max_entropy_bytes;     /* ulid-flake "+n" */
    uint8_t entropy_per_id;        /* bytes every ID draws (a new ms may draw more) */
    bool no_entropy;               /* nanoflake: draws no random bytes at all */
    /* TOID_GEN_PER_THREAD allowed: 64 or more random bits an ID and no node,
     * so that separate generators' IDs collide with negligible probability. */
    bool per_thread_ok;
} toid__format;

/* The encoder and the decoder of a format that has one for every level. */
#define TOID__ENCODE(fn) .encode = (fn), .encode_at = {(fn), (fn), (fn)}
#define TOID__DECODE(fn) .decode = (fn), .decode_at = {(fn), (fn), (fn)}

#define TOID__DECLARE_FORMAT(id, tok, name) extern const toid__format toid__fmt_##tok TOID__HIDDEN;
TOID_FORMAT_LIST(TOID__DECLARE_FORMAT)
#undef TOID__DECLARE_FORMAT

/* The format table (registry.c), and the descriptor of f or NULL: inline,
 * since the per-ID path looks it up on every call. */
extern const toid__format *const toid__formats[TOID_FORMAT_COUNT] TOID__HIDDEN;
static inline const toid__format *toid__format_of(toid_format f) {
    return (unsigned)f < TOID_FORMAT_COUNT ? toid__formats[f] : NULL;
}

/* The epoch to use: the default for TOID_EPOCH_DEFAULT; TOID_EINVAL when the
 * format's epoch is fixed and another is asked, or it is outside 0..2^48-1. */
int toid__resolve_epoch(const toid__format *fmt, int64_t epoch_ms, int64_t *out) TOID__HIDDEN;

/* Checks the bits a value must have (top bit of 63-bit formats: overflow;
 * uuidv7 version/variant: invalid). */
int toid__check_value(const toid__format *fmt, const uint8_t *bin) TOID__HIDDEN;

/* Big-endian load/store. */
static inline uint64_t toid__load64(const uint8_t *p) {
    return ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
           ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
           ((uint64_t)p[6] << 8) | (uint64_t)p[7];
}
static inline void toid__store64(uint8_t *p, uint64_t v) {
    p[0] = (uint8_t)(v >> 56); p[1] = (uint8_t)(v >> 48); p[2] = (uint8_t)(v >> 40);
    p[3] = (uint8_t)(v >> 32); p[4] = (uint8_t)(v >> 24); p[5] = (uint8_t)(v >> 16);
    p[6] = (uint8_t)(v >> 8); p[7] = (uint8_t)v;
}

/* n <= 16 bytes with at most two fixed-size moves each way (overlapping when
 * n is not a power of two): the small random draws of the per-ID path, where
 * a libc memcpy/memset call for 4 or 12 bytes cost more than the move. */
static inline void toid__copy_small(uint8_t *d, const uint8_t *s, size_t n) {
    uint64_t a, b;
    uint32_t c, e;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        memcpy(&c, s, 4);
        memcpy(&e, s + n - 4, 4);
        memcpy(d, &c, 4);
        memcpy(d + n - 4, &e, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

static inline void toid__zero_small(uint8_t *d, size_t n) {
    static const uint8_t zeros[16];
    toid__copy_small(d, zeros, n);
}

/* Decimal helpers (no strtoull, no locale). */
/* Writes v in decimal, returns the length (<= 20). No NUL. */
size_t toid__u64_to_dec(uint64_t v, char *out) TOID__HIDDEN;
/* Parses 1..20 digits; TOID_EINVAL for anything else, TOID_EOVERFLOW above
 * 2^64-1. */
int toid__dec_to_u64(const char *s, size_t n, uint64_t *out) TOID__HIDDEN;
/* A big-endian unsigned integer of n bytes in decimal; returns the length. */
size_t toid__bytes_to_dec(const uint8_t *be, size_t n, char *out) TOID__HIDDEN;
/* "HH:MM:SS.mmm" (12 characters, no NUL) of ms into the day (< 86400000);
 * returns the end. toid_format_time writes its times of day with it. */
char *toid__time_of_day(char *p, uint32_t ms) TOID__HIDDEN;
/* Parses decimal digits into n big-endian bytes; TOID_EINVAL for a non-digit
 * or a value that does not fit. */
int toid__dec_to_bytes(const char *s, size_t len, uint8_t *be, size_t n) TOID__HIDDEN;

#endif
