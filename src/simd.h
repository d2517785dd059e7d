/* simd.h — the SIMD codecs (x86-64: SSSE3; UUID, ULID, SCRU160, hex) and the run-time choice between
 * them and the scalar code, which stays the reference and the fallback. A
 * SIMD decoder only ever accepts: on anything it does not accept (a bad
 * character, a misplaced hyphen, an overflow, the wrong version) the caller
 * runs the scalar decoder, so errors and their positions are the scalar
 * code's, by construction. */
#ifndef TOID_SIMD_H
#define TOID_SIMD_H
#include "format.h"

/* The level in use: 0 scalar (and ChaCha20 4 blocks with SSE2), 1 SSSE3
 * codecs, 2 those and ChaCha20 8 blocks with AVX2, 3 those and ChaCha20 16
 * blocks with AVX-512 (F and VL, on CPUs with VBMI too: see simd.c).
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TOID__HAVE_SIMD 1
/* 16 bytes -> the 36-character UUID text (lower case, hyphens). */
void toid__uuid_encode_ssse3(const uint8_t *bin, char *out) TOID__HIDDEN;
/* n >= 16 bytes -> 2n lower-case hex digits (no terminator). */
void toid__hex_encode_ssse3(const uint8_t *bytes, size_t n, char *out) TOID__HIDDEN;
/* 36 characters -> 16 bytes; 0, or -1 for anything that is not a valid
 * UUIDv7 text (hyphens, hex digits, version 7, variant 0b10). */
int toid__uuid_decode_ssse3(const char *s, uint8_t *bin) TOID__HIDDEN;
/* 16 bytes -> 26 Crockford base32 symbols (upper case). */
void toid__ulid_encode_ssse3(const uint8_t *bin, char *out) TOID__HIDDEN;
/* 26 symbols (any case, no aliases) -> 16 bytes; 0, or -1 for a bad symbol
 * or a first symbol above 7. */
int toid__ulid_decode_ssse3(const char *s, uint8_t *bin) TOID__HIDDEN;
/* 20 bytes -> 32 base32hex symbols (upper case). */
void toid__scru160_encode_ssse3(const uint8_t *bin, char *out) TOID__HIDDEN;
/* 32 base32hex symbols (any case) -> 20 bytes; 0, or -1 for a bad symbol. */
int toid__scru160_decode32_ssse3(const char *s, uint8_t *bin) TOID__HIDDEN;
/* 40 hex digits (any case) -> 20 bytes; 0, or -1 for a bad digit. */
int toid__hex40_decode_ssse3(const char *s, uint8_t *bin) TOID__HIDDEN;
#else
#define TOID__HAVE_SIMD 0
#endif
#endif
