/* simd.h — the SIMD codecs (x86-64: SSSE3, aarch64: NEON; UUID, ULID, SCRU160, hex) and the run-time choice between
 * them and the scalar code, which stays the reference and the fallback. A
 * SIMD decoder only ever accepts: on anything it does not accept (a bad
 * character, a misplaced hyphen, an overflow, the wrong version) the caller
 * runs the scalar decoder, so errors and their positions are the scalar
 * code's, by construction. */
#ifndef TOID_SIMD_H
#define TOID_SIMD_H
#include "format.h"

/* The level in use: 0 scalar (and ChaCha20 4 blocks with SSE2), 1 SSSE3
 * codecs, 2 those and ChaCha20 2x8 blocks with AVX2, 3 those and ChaCha20 16
 * blocks with AVX-512 (F and VL, on CPUs with VBMI too: see simd.c). On
 * aarch64 1 is the NEON codecs, and the highest (ChaCha20's 4 blocks use
 * NEON there at every level, as they use SSE2 on x86-64).
 * Detected on first use (CPUID, and the
 * environment variable TOID_SIMD=off forces 0); toid_simd_select changes
 * it. */
extern int toid__simd_level TOID__HIDDEN;
int toid__simd_init(void) TOID__HIDDEN;
/* For the tests: level min(level, the best this CPU has); returns it. */
int toid__test_simd_level(int level) TOID__HIDDEN;
static inline int toid__simd(void) {
    int l = __atomic_load_n(&toid__simd_level, __ATOMIC_RELAXED);
    return __builtin_expect(l >= 0, 1) ? l : toid__simd_init();
}

/* The codec slot toid__encoder picks from (format.h's encode_at): 0 until
 * the level is known (the format's dispatching encode then finds it), 1
 * scalar, 2 SIMD. Written with the level, by simd.c alone. */
extern uint8_t toid__codec_slot TOID__HIDDEN;

/* The encoder of fmt at the current level, without the dispatching wrapper:
 * one byte load and one table load. fmt->encode stays right at every level
 * too (it asks toid__simd() itself); this is the per-ID path's shortcut. */
static inline toid__encode_fn toid__encoder(const toid__format *fmt) {
    return fmt->encode_at[__atomic_load_n(&toid__codec_slot, __ATOMIC_RELAXED)];
}

/* The same for the decoder. */
static inline toid__decode_fn toid__decoder(const toid__format *fmt) {
    return fmt->decode_at[__atomic_load_n(&toid__codec_slot, __ATOMIC_RELAXED)];
}

/* The level-1 codecs of this build's instruction set: SSSE3 on x86-64
 * (codec_simd_x86.c), NEON on little-endian aarch64 (codec_simd_neon.c),
 * where every ARMv8-A core has it. TOID__SIMD(uuid_encode) names
 * toid__uuid_encode_ssse3 or toid__uuid_encode_neon. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TOID__HAVE_SIMD 1
#define TOID__SIMD(name) toid__##name##_ssse3
#elif defined(__aarch64__) && defined(__ARM_NEON) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (defined(__GNUC__) || defined(__clang__))
#define TOID__HAVE_SIMD 1
#define TOID__SIMD(name) toid__##name##_neon
#else
#define TOID__HAVE_SIMD 0
#endif

/* simd args where this build has SIMD and the level is above 0, else
 * scalar args: the choice of a format's dispatching encode and decode, as
 * direct calls. (Without SIMD, simd is dropped unexpanded, so it may name
 * what does not exist.) */
#if TOID__HAVE_SIMD
#define TOID__PICK(simd, scalar, args) (toid__simd() ? simd args : scalar args)
#else
#define TOID__PICK(simd, scalar, args) (scalar args)
#endif

/* The encoders of a format with a SIMD one: encode (which asks the level),
 * the scalar one, and TOID__SIMD(name) where this build has it (the scalar
 * one again where it has none). */
#if TOID__HAVE_SIMD
#define TOID__ENCODE_SIMD(wrapper, scalar, name) .encode = (wrapper), .encode_at = {(wrapper), (scalar), TOID__SIMD(name)}
#else
#define TOID__ENCODE_SIMD(wrapper, scalar, name) .encode = (wrapper), .encode_at = {(wrapper), (scalar), (scalar)}
#endif
/* Its decoders: decode (which asks the level), the scalar one, and simd (the
 * SIMD decoder, then the scalar one for what it does not accept), which
 * exists only where the build has SIMD. */
#if TOID__HAVE_SIMD
#define TOID__DECODE_SIMD(wrapper, scalar, simd) .decode = (wrapper), .decode_at = {(wrapper), (scalar), (simd)}
#else
#define TOID__DECODE_SIMD(wrapper, scalar, simd) .decode = (wrapper), .decode_at = {(wrapper), (scalar), (scalar)}
#endif

#if TOID__HAVE_SIMD
/* 16 bytes -> the 36-character UUID text (lower case, hyphens). */
void TOID__SIMD(uuid_encode)(const uint8_t *bin, char *out) TOID__HIDDEN;
/* n >= 16 bytes -> 2n lower-case hex digits (no terminator). */
void TOID__SIMD(hex_encode)(const uint8_t *bytes, size_t n, char *out) TOID__HIDDEN;
/* 36 characters -> 16 bytes; 0, or -1 for anything that is not a valid
 * UUIDv7 text (hyphens, hex digits, version 7, variant 0b10). */
int TOID__SIMD(uuid_decode)(const char *s, uint8_t *bin) TOID__HIDDEN;
/* 16 bytes -> 26 Crockford base32 symbols (upper case). */
void TOID__SIMD(ulid_encode)(const uint8_t *bin, char *out) TOID__HIDDEN;
/* 26 symbols (any case, no aliases) -> 16 bytes; 0, or -1 for a bad symbol
 * or a first symbol above 7. */
int TOID__SIMD(ulid_decode)(const char *s, uint8_t *bin) TOID__HIDDEN;
/* 20 bytes -> 32 base32hex symbols (upper case). */
void TOID__SIMD(scru160_encode)(const uint8_t *bin, char *out) TOID__HIDDEN;
/* 32 base32hex symbols (any case) -> 20 bytes; 0, or -1 for a bad symbol. */
int TOID__SIMD(scru160_decode32)(const char *s, uint8_t *bin) TOID__HIDDEN;
/* 40 hex digits (any case) -> 20 bytes; 0, or -1 for a bad digit. */
int TOID__SIMD(hex40_decode)(const char *s, uint8_t *bin) TOID__HIDDEN;
#endif
#endif
