/*
 * toid.h — time-ordered IDs: ULID, Ulid-Flake, SCRU160, Nanoflake, uid11/xid
 * and UUIDv7 behind one C API.
 *
 * This header is the API reference. Every declaration is documented above it.
 *
 * Conventions
 *  - Every function that can fail returns an int: >= 0 on success, one of the
 *    negative TOID_E* codes on failure. toid_strerror() turns one into text.
 *  - An ID's value is its binary form: big-endian bytes, toid_bin_size(f) of
 *    them (8, 16 or 20). Buffers of TOID_BIN_MAX bytes fit every format.
 *  - Text inputs are (text, len): a NUL is never looked for and counts as a
 *    byte like any other. Nothing is trimmed.
 *  - The caller owns all memory; no function here allocates.
 *  - Nothing here depends on the locale.
 *
 * MIT License. See LICENSE.
 */
#ifndef TOID_H
#define TOID_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TOID_API
#elif defined(__GNUC__)
#define TOID_API __attribute__((visibility("default")))
#else
#define TOID_API
#endif

#define TOID_VERSION_MAJOR 0
#define TOID_VERSION_MINOR 1
#define TOID_VERSION_PATCH 0
#define TOID_VERSION_STRING "0.1.0"

/* The version of the library actually linked, as "MAJOR.MINOR.PATCH". */
TOID_API const char *toid_version(void);

/* ------------------------------------------------------------------------
 * Formats
 * ------------------------------------------------------------------------ */

/*
 * The one list of formats. X(ID, name_token, "cli-name"). Everything that
 * enumerates formats (the enum below, the library's registry, the CLI, the
 * server) is derived from this list; adding a format adds one line here.
 *
 * The last entries are read-only variants (toid_format_info.generates 0,
 * variant_of set): the layouts that published reference libraries write
 * where they depart from their own spec (nanoflake-ref24: the nanoflakes
 * Java and Kotlin libraries shift the time by 24 bits, not 22; uid11-ref44:
 * gurki/uid11's code before its spec's 1.0 split 44/20, not 42/22). toid
 * reads, converts, inspects and bounds them when they are named; it never
 * generates them and detection never returns them.
 */
#define TOID_FORMAT_LIST(X)                                   \
    X(ULID, ulid, "ulid")                                     \
    X(ULID_FLAKE, ulid_flake, "ulid-flake")                   \
    X(ULID_FLAKE_SCALABLE, ulid_flake_scalable, "ulid-flake-scalable") \
    X(SCRU160, scru160, "scru160")                            \
    X(NANOFLAKE, nanoflake, "nanoflake")                      \
    X(UID11, uid11, "uid11")                                  \
    X(UID11_SEQ, uid11_seq, "uid11-seq")                      \
    X(UUIDV7, uuidv7, "uuidv7")                               \
    X(NANOFLAKE_REF24, nanoflake_ref24, "nanoflake-ref24")    \
    X(UID11_REF44, uid11_ref44, "uid11-ref44")

/* A format. TOID_FORMAT_COUNT is the number of formats. */
typedef enum toid_format {
#define TOID__ENUM(id, tok, name) TOID_##id,
    TOID_FORMAT_LIST(TOID__ENUM)
#undef TOID__ENUM
    TOID_FORMAT_COUNT
} toid_format;

/* The largest binary form (SCRU160, 20 bytes). */
#define TOID_BIN_MAX 20
/* The longest text form (SCRU160 as hex, 40) plus a NUL. */
#define TOID_TEXT_MAX 41

/* Pass as epoch_ms to use the format's default epoch. */
#define TOID_EPOCH_DEFAULT INT64_MIN

/* Everything the library knows about a format, for tables and auto-detection. */
typedef struct toid_format_info {
    toid_format format;
    const char *name;          /* "ulid", "ulid-flake", ... */
    unsigned bits;             /* significant bits: 128, 63, 160, 64 ... */
    unsigned bin_size;         /* binary form, bytes */
    unsigned text_len;         /* canonical text length */
    unsigned text_len_min;     /* shortest accepted text (nanoflake: 1) */
    unsigned text_len_alt;     /* another accepted length (scru160 hex: 40), else 0 */
    const char *alphabet;      /* "crockford32", "base32hex", "base36", "base58", "hex" */
    int64_t default_epoch_ms;  /* unix ms of ts = 0 (0 for Unix-epoch formats) */
    int epoch_configurable;    /* 1 if epoch_ms arguments may differ from the default */
    int has_int;               /* 1 for the 64-bit formats that have an integer form */
    uint64_t int_max;          /* largest integer (2^63-1 or 2^64-1), 0 if !has_int */
    unsigned ts_bits;          /* width of the timestamp field */
    const char *spec;          /* where the format is specified */
    /* The members below were appended later (the struct only ever grows at
     * its end). Front ends read these facts here instead of keeping copies. */
    /* The node that keeps generators running at once apart, as
     * toid_gen_config.node takes it: its width (nanoflake 10, the generator
     * id; ulid-flake-scalable 5, the sid) and its largest value
     * (2^node_bits - 1); both 0 when the generator takes no node. */
    unsigned node_bits;
    uint32_t node_max;
    /* A node the caller writes itself into the value's caller_node_bits
     * lowest bits after generating (the generator takes none): uid11-seq 10,
     * whose spec fills them at random while its order and uniqueness within
     * a generator rest on the time and sequence above them. 0 otherwise. */
    unsigned caller_node_bits;
    /* 1 when the IDs of one ms come in random order (uid11: its values are
     * random within a ms; toid_gen_batch sorts a batch), 0 when every ID is
     * greater than the one before. */
    int random_order;
    /* The place of the format (1, 2, ...; unique) in the order detection
     * tries formats (toid_detect_flags) and TOID_DETECT_ALL lists them; 0
     * for a read-only variant (variant_of), which detection never tries. */
    unsigned detect_rank;
    /* 1 when detection considers the format on its own; 0 for the formats
     * whose texts are another's (uid11-seq: uid11's, ulid-flake-scalable:
     * ulid-flake's), which only TOID_DETECT_ALL reports: name them. */
    int detected;
    /* 1 when the canonical text is lower case (nanoflake, uuidv7): for a
     * text with lower-case letters and no upper-case ones detection tries
     * these formats before the others of the same length. */
    int text_lower;
    /* 1 when toid generates the format (toid_gen_init, toid_new, ...); 0 for
     * a read-only variant, which those refuse with TOID_EINVAL
     * (toid_gen_config_explain says why). */
    int generates;
    /* A read-only variant: the name of the format whose text it shares and
     * whose spec it departs from ("nanoflake" for nanoflake-ref24), and
     * detect_rank 0 and detected 0: never detected, never reported by
     * detection, even with TOID_DETECT_ALL. NULL for the other formats. */
    const char *variant_of;
} toid_format_info;

/* The description of format f, or NULL if f is not a format. */
TOID_API const toid_format_info *toid_format_get(toid_format f);

/*
 * Looks a format up by its name ("ulid", "uid11-seq", ...) or an alias
 * people type ("uuid7" and "uuid-v7" for uuidv7, "xid" for uid11), without
 * regard to case ("ULID", "UUIDv7"), '_' standing for '-' ("ulid_flake").
 * Returns the format (>= 0) or TOID_EINVAL.
 */
TOID_API int toid_format_by_name(const char *name, size_t len);

/*
 * The format a mistyped name most likely means: the name itself when it is
 * one (toid_format_by_name), else the format whose name or alias is within
 * two edits (a letter added, dropped, changed, or two swapped: "ulidd",
 * "uuid-7", "nanoflkae"), and nearer than half the name's length. Returns
 * the format or TOID_EINVAL.
 */
TOID_API int toid_format_nearest(const char *name, size_t len);

/*
 * The one message for a name that is no format, which every front end
 * shows: "unknown format 'ulidd' (did you mean ulid?)", or when none is
 * near (toid_format_nearest) the names there are ("unknown format
 * 'snowflake' (formats: ulid, ulid-flake, ...)"; left out when they do not
 * fit out_size beside a long name). The name is shown
 * printable (other bytes as \xHH; its first 48 bytes, then "..."). Returns
 * the length, or TOID_EBUFFER (300 bytes are enough).
 */
TOID_API int toid_format_name_error(const char *name, size_t len, char *out, size_t out_size);

/* The format's binary size in bytes, or 0 for an unknown format. */
TOID_API size_t toid_bin_size(toid_format f);

/*
 * Which formats decode this text strictly: bit (1u << f) is set for each
 * format f whose toid_decode() accepts it, at any length it takes (so "hello"
 * is a nanoflake here). 0 when none does. For detection, see below.
 */
TOID_API uint32_t toid_accepting(const char *text, size_t len);

/*
 * Which formats detection considers this text to be: bit (1u << f) for each
 * detected format (uuidv7, ulid, scru160, uid11, ulid-flake, nanoflake) that
 * writes texts of this length (its canonical length: ulid 26, ulid-flake and
 * nanoflake 13, scru160 32 or 40, uid11 11; uuidv7 in any form of
 * toid_uuid_canonical) and reads this one (toid_decode_forms). A text that is
 * shorter than a format writes is never detected, even when the format's
 * decoder takes it: name the format for that. Nor is a text of lower-case
 * letters only ("information" is a valid uid11 text): it is a word, and no
 * format writes one for a time before about 2100 (the leading symbols hold
 * the time).
 */
TOID_API uint32_t toid_detectable(const char *text, size_t len);

/*
 * Auto-detection that never guesses silently: decodes text as the format it
 * most likely is, into bin, and puts in *also (if not NULL) the other formats
 * of toid_detectable() that read it too, so that a tool can say so. Rank
 * among the detectable formats: uuidv7, ulid, scru160, uid11, ulid-flake,
 * nanoflake — except that a 13-symbol text with lower-case letters and no
 * upper-case ones is nanoflake before ulid-flake (its canonical case). So a
 * 32-hex-digit text with UUID version 7 and variant bits is a uuidv7, with
 * scru160 in *also. uid11-seq and ulid-flake-scalable share their text with
 * uid11 and ulid-flake and are never detected nor reported: name them.
 * Returns the format (>= 0); when no format reads the text, TOID_ELENGTH
 * if no format writes its length, TOID_EINVAL for a word (lower-case
 * letters only, see toid_detectable) at a length some format writes, else
 * the decode error of the first format by that rank that has the text's
 * length (*err_pos for TOID_ECHAR). toid_explain() words the
 * error.
 */
TOID_API int toid_detect_also(const char *text, size_t len, uint8_t *bin, uint32_t *also,
                              size_t *err_pos);

/* toid_detect_also without *also. */
TOID_API int toid_detect(const char *text, size_t len, uint8_t *bin, size_t *err_pos);

/* Flags of toid_detect_flags and toid_decode_flags. */
/* Also read the Crockford base32 formats (alphabet "crockford32") as
 * toid_normalize fixes the text: I and L for 1, O for 0, lower case,
 * hyphens (the CLI's --lenient). */
#define TOID_DETECT_LENIENT 1u
/* Every reading: each format whose decoder takes the text at any length
 * (toid_accepting), the formats that are never detected included. */
#define TOID_DETECT_ALL 2u

/*
 * toid_detect_also with flags (0: the same as toid_detect_also). The formats
 * are tried by detect_rank (toid_format_info), those with text_lower first
 * for a text with lower-case letters and no upper-case ones; the first that
 * reads the text is returned (decoded into bin), the other readers go into
 * *also. TOID_DETECT_ALL: *also holds every other format that decodes the
 * text (list them by detect_rank). When none reads it, the error is
 * toid_detect's; with TOID_DETECT_LENIENT that of the normalised text when
 * normalising changed its length and it has a length some format writes.
 * *err_pos is always an offset in text.
 */
TOID_API int toid_detect_flags(const char *text, size_t len, unsigned flags, uint8_t *bin,
                               uint32_t *also, size_t *err_pos);

/*
 * toid_decode_forms, and with TOID_DETECT_LENIENT, for a Crockford base32
 * format, the text as toid_normalize fixes it (*err_pos an offset in text,
 * hyphens counted). Errors as toid_decode's.
 */
TOID_API int toid_decode_flags(toid_format f, const char *text, size_t len, unsigned flags,
                               uint8_t *bin, size_t *err_pos);

/*
 * The forms people write a UUID in, to the canonical one: 36 characters
 * with hyphens, 32 hex digits without (Python's uuid.hex), "{...}" and
 * "urn:uuid:..." (any case) become the lower-case hyphenated form and a NUL
 * in out (37 bytes). Any version. Returns 36, TOID_ELENGTH, TOID_ECHAR (with
 * *err_pos, an offset in text) or TOID_EBUFFER.
 */
TOID_API int toid_uuid_canonical(const char *text, size_t len, char *out, size_t out_size,
                                 size_t *err_pos);

/* A UUID's variant (RFC 9562 §4.1), and the two special values (§5.9, §5.10). */
enum {
    TOID_UUID_RFC9562 = 0,    /* 10xx: versions 1..8 are the RFC's */
    TOID_UUID_NCS = 1,        /* 0xxx: Apollo NCS, reserved */
    TOID_UUID_MICROSOFT = 2,  /* 110x: reserved, Microsoft's GUIDs of old */
    TOID_UUID_FUTURE = 3,     /* 111x: reserved */
    TOID_UUID_NIL = 4,        /* all 128 bits 0 */
    TOID_UUID_MAX = 5         /* all 128 bits 1 */
};

/* What any UUID holds, whatever its version (toid_uuid_read). */
typedef struct toid_uuid_info {
    uint8_t bytes[16];
    unsigned version;      /* the version field, bits 48..51 (meaningful for the RFC variant) */
    int variant;           /* TOID_UUID_* */
    int has_time;          /* RFC variant, versions 1, 6 and 7 */
    int64_t unix_ms;       /* their time in unix ms (floor; versions 1 and 6 may be before 1970) */
    int has_clock_seq;     /* versions 1 and 6: clock_seq and node in bytes 8..15 */
} toid_uuid_info;

/*
 * Reads a UUID of any version in any form toid_uuid_canonical takes (36
 * characters, 32 hex digits, {...}, urn:uuid:...): its bytes, version,
 * variant and, for versions 1, 6 and 7, its time (versions 1 and 6 count
 * 100-ns intervals from 1582-10-15, version 7 unix ms). Only reads: toid
 * generates version 7 alone (the uuidv7 format). Returns 0, or
 * toid_uuid_canonical's errors.
 */
TOID_API int toid_uuid_read(const char *text, size_t len, toid_uuid_info *info, size_t *err_pos);
/*
 * Whether detection reads text as a UUID of its own ("format":"uuid")
 * rather than as a format: a UUID of another version than 7, or of another
 * variant, or the nil or max UUID, in any UUID form; in the 32-hex form,
 * which scru160 also reads, only when its bits spell a version 1..8 of
 * RFC 9562's variant (or nil, max), as Python's uuid.uuid4().hex prints.
 * 1 (with *info filled), or 0. The CLI's inspect and toidd's /v1/inspect
 * and ID.INSPECT use it, before toid_detect_also (whose readings, if any,
 * are then "also").
 */
TOID_API int toid_uuid_detect(const char *text, size_t len, toid_uuid_info *info);
/* "rfc9562", "ncs", "microsoft", "future", "nil" or "max". */
TOID_API const char *toid_uuid_variant_name(int variant);
/*
 * u as one JSON object, as toid_inspect_json writes a format's:
 * {"format":"uuid","text","version","variant"[,"unix_ms"[,"time"]],"hex"
 * [,"clock_seq","node"]} ("time" when unix_ms >= 0) and a NUL. Returns the
 * length, or TOID_EBUFFER (256 bytes are enough).
 */
TOID_API int toid_uuid_json(const toid_uuid_info *u, char *out, size_t out_size);
/* The same fields as "name: value" lines, aligned as toid_inspect_text's. */
TOID_API int toid_uuid_text(const toid_uuid_info *u, char *out, size_t out_size);

/*
 * toid_decode, and for uuidv7 also the other UUID forms of
 * toid_uuid_canonical (32 hex digits, {...}, urn:uuid:...). Errors as
 * toid_decode's, *err_pos an offset in text.
 */
TOID_API int toid_decode_forms(toid_format f, const char *text, size_t len, uint8_t *bin,
                               size_t *err_pos);

/*
 * Words for people saying why text was refused, the cause and what was
 * expected: err and err_pos as toid_decode_forms (f >= 0) or toid_detect
 * (f < 0) returned them. Every front end (CLI, toidd, PostgreSQL's DETAIL,
 * SQLite, the bindings) shows this text. For a format: "bad length: 25
 * characters, expected 26" (bytes when the text is not ASCII), "bad
 * character 'U' at position 25" ("bad byte 0xc3 at position 24"; positions
 * are byte offsets from 0), "UUID version 4, toid reads version 7", "value
 * too large for ulid (the largest is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)". For
 * detection: a length no format writes ("no format writes 5 characters
 * (...)"), a word ("a word, not an ID (...)"), a bad character as above;
 * else toid_strerror(). Writes a NUL-terminated line without a final
 * period into out (160 bytes are enough). Returns its length, TOID_EBUFFER
 * or TOID_EINVAL.
 */
TOID_API int toid_explain(int f, const char *text, size_t len, int err, size_t err_pos,
                          char *out, size_t out_size);

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

/* X(NAME, value, "short-name", "message"). The short name is the error class
 * used by the conformance vectors and the CLI. */
#define TOID_ERROR_LIST(X)                                                   \
    X(EINVAL, -1, "invalid", "invalid argument")                             \
    X(ELENGTH, -2, "length", "bad length")                                   \
    X(ECHAR, -3, "char", "bad character")                                    \
    X(EOVERFLOW, -4, "overflow", "value too large for the format")           \
    X(ERANGE, -5, "range", "time out of range for the format")               \
    X(ECLOCK, -6, "clock", "clock moved backwards")                          \
    X(EEXHAUSTED, -7, "exhausted", "same-millisecond capacity exhausted")    \
    X(EENTROPY, -8, "entropy", "entropy source failed")                      \
    X(EBUFFER, -9, "buffer", "output buffer too small")                      \
    X(EFORKED, -10, "forked", "generator used in a forked child without re-initialisation")

enum {
#define TOID__ERR(name, val, shortname, msg) TOID_##name = val,
    TOID_ERROR_LIST(TOID__ERR)
#undef TOID__ERR
};

/* A message for an error code ("bad character"); "unknown error" otherwise. */
TOID_API const char *toid_strerror(int err);
/* The error class ("char", "length", ...); "unknown" otherwise. */
TOID_API const char *toid_err_name(int err);

/* ------------------------------------------------------------------------
 * Text <-> value
 * ------------------------------------------------------------------------ */

/*
 * Decodes text strictly into bin (toid_bin_size(f) bytes, big-endian).
 * Checks, in this order: the length (TOID_ELENGTH), every byte is in the
 * alphabet (TOID_ECHAR; *err_pos, if err_pos is not NULL, gets the offset of
 * the first bad byte), the value fits (TOID_EOVERFLOW). Crockford base32,
 * base32hex, hex and base36 are case-insensitive; Base58 is case-sensitive.
 * Crockford aliases (I L O) and hyphens are errors: see toid_normalize().
 * uuidv7 needs the 36-character hyphenated form with version 7 and variant
 * 0b10 (otherwise TOID_ECHAR). Nanoflake takes 1..13 base36 symbols; scru160
 * takes 32 base32hex or 40 hex symbols. bin is unchanged on failure.
 * Returns 0 or an error.
 */
TOID_API int toid_decode(toid_format f, const char *text, size_t len,
                         uint8_t *bin, size_t *err_pos);

/*
 * Writes the canonical text of bin (which must be a valid value, see
 * toid_from_bytes) and a NUL into out. Returns the text length, or
 * TOID_EBUFFER if out_size cannot hold it and the NUL.
 */
TOID_API int toid_encode(toid_format f, const uint8_t *bin, char *out,
                         size_t out_size);

/*
 * Encodes n values laid out back to back (n * toid_bin_size(f) bytes, as
 * toid_new_batch writes them): each one's canonical text, followed by sep
 * unless sep is '\0', then one NUL at the end. For the server and the CLI:
 * one call and one check for a whole batch. Returns 0 and, if written is
 * not NULL, the characters written (without the NUL) in *written;
 * TOID_EINVAL for a bad format or NULL pointers (bin may be NULL when n is
 * 0); TOID_EBUFFER (nothing written) if out_size < n * (text length + 1 if
 * sep) + 1.
 */
TOID_API int toid_encode_batch(toid_format f, const uint8_t *bin, size_t n, char sep, char *out,
                               size_t out_size, size_t *written);

/*
 * Checks that bytes (len of them) are a valid binary form of f and copies
 * them into bin. TOID_ELENGTH if len != toid_bin_size(f); TOID_EOVERFLOW if
 * the value exceeds the format (bit 63 set in a 63-bit format);
 * TOID_EINVAL for a uuidv7 whose version or variant is wrong.
 */
TOID_API int toid_from_bytes(toid_format f, const uint8_t *bytes, size_t len,
                             uint8_t *bin);

/*
 * The integer form of the 64-bit formats (ulid-flake, ulid-flake-scalable
 * and nanoflake: 0..2^63-1; uid11 and uid11-seq: 0..2^64-1).
 * toid_to_u64: TOID_EINVAL if f has no integer form.
 * toid_from_u64: TOID_EINVAL likewise; TOID_EOVERFLOW above the maximum.
 */
TOID_API int toid_to_u64(toid_format f, const uint8_t *bin, uint64_t *out);
TOID_API int toid_from_u64(toid_format f, uint64_t value, uint8_t *bin);

/*
 * Writes the integer form of a 64-bit format's value in decimal and a NUL
 * (what toid_decode_int reads). Returns the length (1..20), TOID_EINVAL if f
 * has no integer form, or TOID_EBUFFER (21 bytes are always enough).
 */
TOID_API int toid_encode_int(toid_format f, const uint8_t *bin, char *out, size_t out_size);

/*
 * Decodes an unsigned decimal integer (the "int" text form of the 64-bit
 * formats) of 1..20 digits, no sign, no spaces. TOID_ELENGTH, TOID_ECHAR (with
 * *err_pos), or TOID_EOVERFLOW above the format's int_max.
 */
TOID_API int toid_decode_int(toid_format f, const char *text, size_t len,
                             uint8_t *bin, size_t *err_pos);

/*
 * Writes n bytes as 2n lower-case hex digits and a NUL (the `hex` field, and
 * SCRU160's 40-digit form). Returns 2n or TOID_EBUFFER.
 */
TOID_API int toid_hex_encode(const uint8_t *bytes, size_t n, char *out, size_t out_size);

/*
 * Which implementation the text codecs and the CSPRNG run. On x86-64 the
 * UUID (uuidv7), ULID and SCRU160 (both text forms) encoders and decoders
 * and toid_hex_encode (16 bytes or more) have SSSE3 versions on x86-64
 * and NEON versions on aarch64 (which every ARMv8-A core has), and the
 * CSPRNG's ChaCha20 makes 16 blocks at a time with AVX-512 (F, VL and
 * VBMI) or two sets of 8 with AVX2, each chosen at run time when the CPU has it. The
 * scalar code (for ChaCha20: 4 blocks with SSE2) is the reference and the
 * fallback, and all paths give the same output: the same keystream; the
 * same text, bytes, errors and error positions (a SIMD decoder hands every
 * input it does not accept to the scalar one).
 * The environment variable TOID_SIMD=off (or 0, no) at the first use forces
 * the scalar code; so does toid_simd_select(TOID_SIMD_OFF), for tests.
 * mode: TOID_SIMD_OFF, TOID_SIMD_AUTO (the best the CPU has), or
 * TOID_SIMD_QUERY (change nothing). Returns the level now in use: 0 scalar,
 * 1 SSSE3 codecs, 2 SSSE3 codecs and AVX2 ChaCha20, 3 SSSE3 codecs and
 * AVX-512 ChaCha20; on aarch64 1 is the NEON codecs (ChaCha20 uses NEON
 * there at every level, as SSE2 on x86-64). Safe to call from any thread at
 * any time.
 */
#define TOID_SIMD_QUERY (-1)
#define TOID_SIMD_OFF 0
#define TOID_SIMD_AUTO 1
TOID_API int toid_simd_select(int mode);

/* ------------------------------------------------------------------------
 * Fields: inspect and make
 * ------------------------------------------------------------------------ */

/* Field identifiers, also bit positions in toid_fields.has. The names are
 * the keys of toid_inspect_json() and `toid inspect --json`; toid(1),
 * "INSPECTION FIELDS", says what each holds for each format. */
#define TOID_FIELD_LIST(X)          \
    X(FORMAT, "format")             \
    X(TEXT, "text")                 \
    X(UNIX_MS, "unix_ms")           \
    X(TIME, "time")                 \
    X(HEX, "hex")                   \
    X(INT, "int")                   \
    X(TS, "ts")                     \
    X(RANDOM, "random")             \
    X(SID, "sid")                   \
    X(COUNTER, "counter")           \
    X(RANDOM16, "random16")         \
    X(RANDOM80, "random80")         \
    X(GENERATOR, "generator")       \
    X(SEQUENCE, "sequence")         \
    X(RESERVED, "reserved")

typedef enum toid_field_id {
#define TOID__FLD(id, name) TOID_FIELD_##id,
    TOID_FIELD_LIST(TOID__FLD)
#undef TOID__FLD
    TOID_FIELD_COUNT
} toid_field_id;

/* The name of a field id ("unix_ms"), or NULL. */
TOID_API const char *toid_field_name(toid_field_id id);

/* One line saying what a field holds ("the sequence number within a
 * millisecond"), for help texts and `toid formats --json`; NULL for an
 * unknown id. A format's fields and widths: toid_layout(). */
TOID_API const char *toid_field_help(toid_field_id id);

/*
 * An ID's fields as numbers, for C callers. `has` holds bit (1u << id) for
 * each member that is set. For inspection every field of the format is set;
 * for making, set the members you give (toid_fields_set does it from text).
 *
 * ULID's `random` (80 bits) lives in random80[], as does SCRU160's random80;
 * every other format's `random` is the integer member `random`.
 */
typedef struct toid_fields {
    uint32_t has;
    int64_t unix_ms;        /* ms since 1970-01-01T00:00:00Z */
    int64_t ts;             /* ms since the format's epoch (= unix_ms for ulid, scru160, uuidv7) */
    uint64_t int_value;     /* "int": the 64-bit formats' integer */
    uint8_t hex[TOID_BIN_MAX]; /* "hex": the whole value, big-endian */
    uint64_t random;        /* ulid-flake(-scalable), uid11, uid11-seq */
    uint8_t random80[10];   /* ulid "random", scru160 "random80": big-endian */
    uint32_t sid;           /* ulid-flake-scalable, 5 bits */
    uint32_t counter;       /* scru160, 16 bits */
    uint32_t random16;      /* scru160, 16 bits */
    uint32_t generator;     /* nanoflake, 10 bits */
    uint32_t sequence;      /* nanoflake, 12 bits; uid11-seq, 12 bits */
    int reserved;           /* scru160: timestamp 0 or 2^48-1 (decoded, never generated) */
} toid_fields;

/*
 * The fields of a value. epoch_ms applies to formats whose epoch is
 * configurable; pass TOID_EPOCH_DEFAULT otherwise. Returns 0 or TOID_EINVAL
 * (bad format or epoch).
 */
TOID_API int toid_inspect(toid_format f, const uint8_t *bin, int64_t epoch_ms,
                          toid_fields *out);

/*
 * Only the time of a value, in unix ms, into *unix_ms: what toid_inspect
 * reports as unix_ms, without the other fields (a few word operations).
 * Returns 0 or TOID_EINVAL (bad format or epoch).
 */
TOID_API int toid_time_of(toid_format f, const uint8_t *bin, int64_t epoch_ms, int64_t *unix_ms);

/*
 * Composes a value from fields. Either the whole value (INT or HEX), or the
 * time (UNIX_MS or TS; both must agree if both are given) plus sub-fields;
 * sub-fields not given are 0. Errors: TOID_ERANGE for a time outside the
 * format's span (before the epoch, or wider than the ts field);
 * TOID_EOVERFLOW for an int or hex above the format's maximum; TOID_EINVAL
 * for a sub-field wider than its bits, a field the format does not have, a
 * missing time, or a uuidv7 hex without version 7 / variant 0b10.
 */
TOID_API int toid_make(toid_format f, const toid_fields *in, int64_t epoch_ms,
                       uint8_t *bin);

/*
 * The width in bits of a sub-field of format f that toid_make takes
 * (generator, sequence, sid, counter, random16, random; random80 and ULID's
 * random are 80), so that a tool can say "generator 5000 is out of range
 * 0..1023". 0 when f has no such field.
 */
TOID_API unsigned toid_field_bits(toid_format f, toid_field_id id);

/*
 * Sets one member of *fields from text, as the CLI's FIELD=VALUE and the
 * vectors' encode inputs give it: integers in decimal ("unix_ms", "ts" may be
 * negative and then fail in toid_make with TOID_ERANGE); "hex" in full-width
 * hex; ULID's "random" as 20 hex digits; "random80" in decimal; "int" in
 * decimal (a negative or too large int is TOID_EOVERFLOW); "time" as
 * toid_parse_time reads it (sets unix_ms); "reserved" as true/false. Unknown names: TOID_EINVAL.
 */
TOID_API int toid_fields_set(toid_format f, toid_fields *fields,
                             const char *name, size_t name_len,
                             const char *value, size_t value_len);

/* How a described field is written in JSON. */
typedef enum toid_field_kind {
    TOID_KIND_STRING = 0,
    TOID_KIND_NUMBER = 1,
    TOID_KIND_BOOL = 2
} toid_field_kind;

/* One field as text, for printing (CLI, server, tests). */
typedef struct toid_field {
    toid_field_id id;
    const char *name;
    toid_field_kind kind;
    char value[48];
} toid_field;

/* Enough room for any format's described fields. */
#define TOID_FIELDS_MAX 16

/*
 * Describes a value as named text fields, in this order: format, text,
 * unix_ms, time, hex, then the format's own (int, ts, random, sid, counter,
 * random16, random80, generator, sequence, reserved as it has them).
 * out needs TOID_FIELDS_MAX entries. Returns the count or an error.
 */
TOID_API int toid_describe(toid_format f, const uint8_t *bin, int64_t epoch_ms,
                           toid_field *out);

/*
 * Writes the inspection JSON object of a value ({"format":"ulid",...}, the
 * fields of toid_describe; 64-bit integers as strings) and a NUL. Returns the
 * length or TOID_EBUFFER. 512 bytes is always enough.
 */
TOID_API int toid_inspect_json(toid_format f, const uint8_t *bin,
                               int64_t epoch_ms, char *out, size_t out_size);

/*
 * Writes the fields of toid_describe as aligned lines (what `toid inspect`
 * prints): the name, a colon and spaces up to column 12 (at least one
 * space), the value and a line feed for each, then a NUL:
 *     format:    ulid
 *     text:      01ARZ3NDEKTSV4RRFFQ69G5FAV
 * Returns the length or TOID_EBUFFER. 512 bytes is always enough.
 */
TOID_API int toid_inspect_text(toid_format f, const uint8_t *bin,
                               int64_t epoch_ms, char *out, size_t out_size);

/* ------------------------------------------------------------------------
 * Layout: where each field lives, for pictures of an ID
 * ------------------------------------------------------------------------ */

/* What a span of bits is. */
typedef enum toid_layout_kind {
    TOID_LAYOUT_TIME = 0,   /* the timestamp ("unix_ms", or "ts" where the format has an epoch) */
    TOID_LAYOUT_FIELD = 1,  /* a sub-field toid_describe reports (random, sid, counter, ...) */
    TOID_LAYOUT_FIXED = 2,  /* bits every valid value has the same (the zero top bit of the
                               63-bit formats; uuidv7 "ver" = 7 and "var" = 2) */
    TOID_LAYOUT_OTHER = 3   /* bits toid_describe does not report (uuidv7 "rand_a", "rand_b") */
} toid_layout_kind;

/*
 * One field of a format's bit layout. Bits are numbered as the specs draw
 * them: bit 0 is the most significant bit of the binary form (the top bit of
 * its first byte), bit 8 * toid_bin_size(f) - 1 the least significant.
 */
typedef struct toid_layout_field {
    const char *name;       /* a toid_describe field name ("unix_ms", "ts", "random",
                               "sid", "counter", "random16", "random80", "generator",
                               "sequence"), or for the bits it does not report "zero",
                               "ver", "var", "rand_a", "rand_b" */
    toid_layout_kind kind;
    int field_id;           /* the toid_field_id whose value toid_describe gives, or -1 */
    unsigned bit_offset;    /* first bit, counted from the most significant */
    unsigned bit_width;
    uint64_t fixed_value;   /* TOID_LAYOUT_FIXED: the value those bits always hold */
    /* Where the field is in the canonical text: characters [char_start,
     * char_start + char_len), -1 and 0 where no run of characters holds
     * exactly this field: the base36 and Base58 texts (every character
     * depends on the whole value), and fields whose bits do not begin and
     * end on a character's bits (scru160's timestamp: 48 bits in 5-bit
     * characters). Leading pad bits of the text and fixed bits without
     * characters of their own count toward the field after them (ULID's
     * first character holds 2 pad bits and 3 bits of the time; a uuidv7's
     * "var" shares its character with "rand_b"); separators inside the span
     * (uuidv7's hyphens) are counted in. */
    int char_start;
    unsigned char_len;
} toid_layout_field;

/* Enough room for any format's layout. */
#define TOID_LAYOUT_MAX 8

/*
 * The bit layout of format f into out (TOID_LAYOUT_MAX entries), most
 * significant field first; the fields cover every bit of the binary form
 * exactly once, in order. The same for every value of f. Returns the count
 * or TOID_EINVAL.
 */
TOID_API int toid_layout(toid_format f, toid_layout_field *out);

/*
 * Whether IDs of f made at a given time (backfills: a past ms, fresh random
 * bits) are unique by their random bits alone: a format toid generates,
 * no node (a field, or the
 * caller's low bits) and at least 62 bits a ms that neither the time nor a
 * fixed value decides (ulid, uuidv7, scru160). An ID at a past time cannot
 * be made unique against what a node or a small random space already issued
 * in that ms, so the front ends refuse the others. *free_bits (may be NULL)
 * gets that count. Returns 1, 0, or TOID_EINVAL.
 */
TOID_API int toid_at_time_unique(toid_format f, unsigned *free_bits);

/*
 * Why IDs of f cannot be made at a given time, and which formats can, as
 * one line for people without a final period ("a nanoflake carries a node
 * and a sequence within its ms: an ID at a past time cannot be made unique
 * against what the node already issued in that ms; IDs at given times:
 * ulid, scru160, uuidv7"). Every front end shows this text when it refuses.
 * Returns its length; 0 (and "") for a format that can (toid_at_time_unique);
 * TOID_EINVAL (bad f) or TOID_EBUFFER (256 bytes are enough).
 */
TOID_API int toid_at_time_explain(toid_format f, char *out, size_t out_size);

/*
 * The value of one layout field of bin as text and a NUL: for a field with a
 * field_id, exactly what toid_describe() gives for it (so "ts" counts from
 * epoch_ms); otherwise the bits as an unsigned decimal integer. Returns the
 * length, TOID_EINVAL (bad format, epoch or field) or TOID_EBUFFER (48 bytes
 * always fit).
 */
TOID_API int toid_layout_value(toid_format f, const uint8_t *bin, int64_t epoch_ms,
                               const toid_layout_field *field, char *out, size_t out_size);

/* ------------------------------------------------------------------------
 * Time
 * ------------------------------------------------------------------------ */

/*
 * The smallest and the largest value of format f whose time is unix_ms, for
 * `WHERE id BETWEEN lo AND hi`. Either of lo, hi may be NULL.
 * TOID_ERANGE if unix_ms is outside the format's span.
 */
TOID_API int toid_time_bounds(toid_format f, int64_t unix_ms, int64_t epoch_ms,
                              uint8_t *lo, uint8_t *hi);

/* The span of times format f can hold: [*min_ms, *max_ms] in unix ms. */
TOID_API int toid_time_span(toid_format f, int64_t epoch_ms, int64_t *min_ms,
                            int64_t *max_ms);

/*
 * Writes unix_ms (0 .. 2^48-1 and beyond, up to year 999999) as RFC 3339 UTC
 * with milliseconds ("2016-07-30T23:54:10.259Z"; years above 9999 with as
 * many digits as needed) and a NUL. Returns the length, TOID_ERANGE for a
 * negative time, TOID_EBUFFER if out_size < 32.
 */
TOID_API int toid_format_time(int64_t unix_ms, char *out, size_t out_size);

/* What a time toid_parse_time_span refuses should have been, in the words
 * every front end uses after "expected ". */
#define TOID_TIME_EXPECTED \
    "ISO 8601 (2024, 2024-01-01T10:30Z), @SECONDS, Nms/Ns/Nus, unix ms, now or now-1h/-15m/+2d"

/* Notes from toid_parse_time_span (bits of *notes), so that a tool can warn. */
#define TOID_TIME_BARE_INT 1u       /* a bare integer, read as unix milliseconds */
#define TOID_TIME_LOOKS_SECONDS 2u  /* ... of 10 digits: it looks like unix seconds
                                       (what `date +%s` prints); @N or Ns says seconds */

/*
 * Parses a time as people write it, into the span of time it names:
 * [*first_ms, *last_ms] in unix ms (either pointer may be NULL).
 *  - ISO 8601 / RFC 3339 at any precision from the year down: "2024" (the
 *    whole year), "2024-01", "2024-01-01", "2024-01-01T10", "...T10:30",
 *    "...T10:30:00", "...T10:30:00.5" (the span of the last digit given;
 *    digits past ms are truncated). Years of 4..6 digits; 't', ' ' for 'T';
 *    'z'; ',' for '.'. A zone (Z, +HH:MM, +HHMM, +HH, or '-') may follow a
 *    time of day; without one the time is UTC.
 *  - "@SECONDS" as GNU date writes it, with an optional fraction
 *    ("@1704067200", "@1704067200.25"): the whole second, or the fraction's
 *    span.
 *  - An integer with a unit: "Nms", "Ns" (the whole second), "Nus" (the ms
 *    that holds it).
 *  - A bare integer of other than 4 digits, optionally negative: unix ms
 *    (TOID_TIME_BARE_INT in *notes, and TOID_TIME_LOOKS_SECONDS when it
 *    has 10 digits). 4 digits are a year.
 *  - Relative to the clock (toid_clock_now: toid_set_clock moves it too),
 *    an instant (*first_ms == *last_ms): "now"; "now" followed by a sign
 *    and one or more terms N<unit> ("now-1h", "now+90s", "now-1h30m"), or
 *    the same without "now" ("-15m", "+2d"); units ms, s, m (minutes), h,
 *    d, w. A signed integer with a unit is always relative ("-15s" is 15
 *    seconds ago), a signed integer without one is unix ms.
 * Nothing is trimmed. *notes (may be NULL) gets TOID_TIME_* bits. Returns
 * 0 or TOID_EINVAL.
 */
TOID_API int toid_parse_time_span(const char *text, size_t len, int64_t *first_ms,
                                  int64_t *last_ms, unsigned *notes);

/* toid_parse_time_span's *first_ms alone: the start of the span. */
TOID_API int toid_parse_time(const char *text, size_t len, int64_t *unix_ms);

/* ------------------------------------------------------------------------
 * Format-specific helpers
 * ------------------------------------------------------------------------ */

/*
 * uid11 prefix-aware decoding (spec §3.6, §4): 0..11 Base58 symbols give the
 * closed range [*lo, *hi] of the IDs that start with them; hi is clamped to
 * 2^64-1. TOID_ELENGTH above 11 symbols, TOID_ECHAR (with *err_pos), or
 * TOID_EOVERFLOW if the prefix's lowest value exceeds 2^64-1.
 */
TOID_API int toid_uid11_prefix_range(const char *text, size_t len,
                                     uint64_t *lo, uint64_t *hi,
                                     size_t *err_pos);

/*
 * ULID -> UUID text: the same 16 bytes as a lower-case hyphenated UUID (no
 * version fix-up). out needs 37 bytes. Returns 36 or a decode error.
 */
TOID_API int toid_ulid_to_uuid(const char *text, size_t len, char *out,
                               size_t out_size, size_t *err_pos);

/*
 * UUID (any version, 36-character hyphenated, any case) -> ULID text. out
 * needs 27 bytes. Returns 26, TOID_ELENGTH, TOID_ECHAR (with *err_pos) or
 * TOID_EBUFFER. Every 128-bit value is a valid ULID, so there is no overflow.
 */
TOID_API int toid_uuid_to_ulid(const char *text, size_t len, char *out,
                               size_t out_size, size_t *err_pos);

/*
 * Lenient input for the Crockford base32 formats (ulid, ulid-flake,
 * ulid-flake-scalable), as ulid/javascript's fixULIDBase32 does: removes
 * hyphens, maps I and L to 1 and O to 0, upper-cases. Writes at most len
 * bytes and a NUL to out; does not check anything else (decode afterwards).
 * Returns the new length, or TOID_EBUFFER if the result and its NUL do not
 * fit in out_size.
 */
TOID_API int toid_normalize(const char *text, size_t len, char *out,
                            size_t out_size);


/* ------------------------------------------------------------------------
 * Generating IDs
 *
 * Guarantees, per format (one generator = one toid_gen, or the process-wide
 * generator of a format):
 *  - ulid: unique and strictly increasing within a generator. Same ms: the
 *    80-bit random part + 1 with carry; a carry out of 80 bits is
 *    TOID_EOVERFLOW (never into the timestamp).
 *  - ulid-flake(-scalable): unique and strictly increasing. Same ms: add an
 *    n-byte non-zero random integer (n = entropy_bytes); past the field's
 *    maximum: TOID_EOVERFLOW.
 *  - scru160: unique and strictly increasing. Counter: 15-bit random start
 *    each ms, + 1; past 0xFFFF: the ms is exhausted. Timestamps 0 and 2^48-1
 *    are never generated.
 *  - nanoflake: unique and strictly increasing per generator id. Sequence 0..
 *    4095 per ms, then the ms is exhausted.
 *  - uid11: unique within a generator and a ms (random without repeats, up
 *    to per_ms_cap IDs a ms); order inside a ms is random, as the spec wants.
 *  - uid11-seq: unique and strictly increasing; sequence 0..4095 per ms.
 *  - uuidv7: unique and strictly increasing; 42-bit counter (rand_a and the
 *    top 30 bits of rand_b) with a random start each ms (top bit clear), 32
 *    random bits per ID; on counter overflow the timestamp advances by 1 ms.
 *
 * When a ms is exhausted (on_exhausted): ERROR returns the error
 * (TOID_EOVERFLOW for ulid and ulid-flake, whose specs say so;
 * TOID_EEXHAUSTED otherwise); WAIT waits for the next ms, at most wait_max_ms;
 * ADVANCE (uuidv7) moves the timestamp 1 ms ahead of the clock.
 * When the clock is behind the last ID (on_behind): ERROR returns
 * TOID_ECLOCK; WAIT waits until it catches up, at most wait_max_ms; KEEP keeps
 * the last timestamp and counts on, while the clock is at most
 * behind_allow_ms behind, then TOID_ECLOCK; RESET (uuidv7) keeps within the
 * allowance and beyond it starts afresh at the clock's time.
 *
 * Defaults, as clock behind / ms exhausted (the project's design decisions
 * where the specs are silent): ulid KEEP 10 s /
 * ERROR; ulid-flake(-scalable) ERROR / ERROR; scru160 KEEP 10 s / WAIT;
 * nanoflake WAIT 1 s / WAIT; uuidv7 RESET 10 s / ADVANCE; uid11 and
 * uid11-seq KEEP 10 s / WAIT.
 *
 * Across separate generators uniqueness rests on the random bits, or on node
 * ids you keep unique (nanoflake, ulid-flake-scalable); uid11-seq has only 10
 * random bits per (ms, sequence), so two generators in the same ms collide at
 * about 1 in 1024 per sequence slot.
 *
 * Node claims (the separate library toid_claim, claim/toid_claim.h; libtoid
 * itself does not need it, and the process-wide generators work as before
 * without it): when several processes or machines generate a node format,
 * a claim makes the node ids unique instead of hoping they are. It takes the
 * lowest free node of a range (local lock files, or an etcd lease), keeps the
 * node's high-water mark so that a later holder starts after every ID issued
 * with it, and admits each batch before it leaves (refusing once the claim
 * lapsed). A user needs it when more than one generator of nanoflake,
 * ulid-flake-scalable or uid11-seq (whose 10 low bits then carry the node)
 * may run at once: parallel CLI runs, server fleets, workers of a job queue.
 * One process with one generator per format needs nothing.
 *
 * Fork: a child process never continues its parent's random stream or
 * state. Random-bearing formats reseed and start afresh in the child;
 * nanoflake and ulid-flake-scalable return TOID_EFORKED until toid_gen_init()
 * is called again (with a node id unique among the running generators).
 * Detection: a MADV_WIPEONFORK page (also catches a raw clone()) and a
 * pthread_atfork counter.
 *
 * Process-shared generators (TOID_GEN_SHARED): a toid_gen placed in memory
 * that several processes share (mmap MAP_SHARED before fork, PostgreSQL
 * shared memory, a pre-fork server) and initialised once with
 * TOID_GEN_SHARED is one generator for the whole group: toid_gen_next,
 * toid_gen_next_text, toid_gen_batch and toid_gen_batch_status may be called
 * from any process and thread, and the guarantees above hold for the group
 * as for one generator (one monotonic stream; uid11 unique within a ms).
 * Fork is then not an error: the state is kept, node formats keep their
 * node, no TOID_EFORKED. Each process still draws from its own CSPRNG (never
 * shared, never inherited). One-word formats (ulid-flake(-scalable),
 * scru160, nanoflake, uid11-seq) stay lock-free by compare-and-swap; ulid,
 * uuidv7 and uid11 take a robust process-shared lock inside the generator:
 * if a process dies while holding it, the next process repairs the state so
 * that its IDs come after any the dead one may have made: they go on one or
 * two ms after the last ID's time, possibly ahead of the clock, which the
 * on_behind policy then treats like a small clock step back. An ID is
 * issued when the call returns: what a process killed inside a call left in
 * its output buffer must not be used.
 * toid_gen_next_at takes no lock: not for a shared generator in use.
 * The generator must stay mapped (at any address) in every process using it.
 * ------------------------------------------------------------------------ */

typedef enum toid_on_exhausted {
    TOID_EXHAUSTED_DEFAULT = 0,
    TOID_EXHAUSTED_ERROR,
    TOID_EXHAUSTED_WAIT,
    TOID_EXHAUSTED_ADVANCE      /* uuidv7 only */
} toid_on_exhausted;

typedef enum toid_on_behind {
    TOID_BEHIND_DEFAULT = 0,
    TOID_BEHIND_ERROR,
    TOID_BEHIND_WAIT,
    TOID_BEHIND_KEEP,
    TOID_BEHIND_RESET           /* uuidv7 only */
} toid_on_behind;

typedef enum toid_counter_mode {
    TOID_COUNTER_DEFAULT = 0,
    TOID_COUNTER_RANDOM,        /* scru160: 15-bit random start each ms, + 1 */
    TOID_COUNTER_MICROS         /* scru160: microsecond in the top 10 bits, 6-bit counter */
} toid_counter_mode;

/* Generator flags. */
#define TOID_GEN_UNLOCKED 1u    /* the caller guarantees a single thread: no lock */
/* The generator lives in memory shared by several processes and serves them
 * all as one (see "Process-shared generators" above); not with UNLOCKED. */
#define TOID_GEN_SHARED 2u
/* toid_configure only: the process-wide generator of the format becomes one
 * generator per thread (made on the thread's first ID, freed when it ends).
 * IDs are then in order within each thread, not across threads; in return
 * two threads make twice the IDs of one (one generator's single order needs
 * its state passed between the threads' cores on every change of thread).
 * For the formats whose separate generators cannot plausibly collide (ULID,
 * UUIDv7, SCRU160: 64 or more random bits an ID, no node); TOID_EINVAL for
 * the others, and with TOID_GEN_UNLOCKED or TOID_GEN_SHARED. A thread's
 * first ID of the format allocates its generator (malloc, under 512 bytes
 * with its share of a table): if that fails the call returns TOID_EINVAL,
 * and the next call tries again. */
#define TOID_GEN_PER_THREAD 4u

/* A generator's configuration. Zero-initialise, set format, and set what you
 * want to change; zero (and TOID_EPOCH_DEFAULT for epoch_ms) means the
 * format's default. */
typedef struct toid_gen_config {
    toid_format format;
    int64_t epoch_ms;           /* ulid-flake(-scalable), nanoflake; 0 = default too */
    uint32_t node;              /* nanoflake generator id 0..1023; ulid-flake-scalable sid 0..31 */
    uint32_t entropy_bytes;     /* ulid-flake "+n": 1..3 (scalable 1..2); default 1 */
    toid_counter_mode counter_mode;   /* scru160 */
    toid_on_exhausted on_exhausted;
    toid_on_behind on_behind;
    uint32_t wait_max_ms;       /* bound of WAIT (both kinds); default 1000 */
    uint32_t behind_allow_ms;   /* allowance of KEEP and RESET; default 10000 */
    uint32_t per_ms_cap;        /* uid11: IDs per ms, 1..4096; default 4096 */
    uint32_t flags;             /* TOID_GEN_* */
} toid_gen_config;

/*
 * A generator: opaque plain data without pointers (it may live in shared
 * memory, at any address in each process), owned by the caller. Its layout
 * is the library's own: this header declares none of its fields, so the
 * library can change them without changing its ABI; only the size and the
 * alignment below are fixed. Initialise it with toid_gen_init() or
 * toid_gen_init_size(). Do not copy a generator that is in use: two copies
 * would issue the same IDs.
 *
 * Memory: a toid_gen (TOID_GEN_SIZE bytes) is all that every format needs
 * except uid11, which also keeps the set of values it issued in the current
 * ms (to draw without repeats): 32 KiB, placed right after the toid_gen in
 * the same memory, found by offset (no pointer, so it stays valid in shared
 * memory). toid_gen_size(format) is the memory a format needs, at most
 * TOID_GEN_SIZE_MAX. So:
 *  - a generator of any format but uid11: `toid_gen g; toid_gen_init(&g, &cfg);`
 *  - uid11, or a format chosen at run time: a toid_gen_uid11 (room for every
 *    format), `toid_gen_uid11 u; toid_gen_init_size(&u.g, sizeof u, &cfg);`
 *    then pass &u.g to the other calls;
 *  - memory you allocate or map (heap, shared memory): toid_gen_size(format)
 *    bytes aligned to 8 bytes (malloc's are; 64 keeps a generator on its own
 *    cache lines), initialised with toid_gen_init_size(mem, that size, &cfg).
 * toid_gen_init() assumes sizeof(toid_gen) bytes and refuses uid11
 * (TOID_EBUFFER), so a plain toid_gen can never be overrun.
 */
#define TOID_GEN_SIZE 256
typedef struct toid_gen {
    uint64_t toid__opaque[TOID_GEN_SIZE / 8];
} toid_gen;

/* A generator with room for uid11's issued-value set: the largest a format
 * needs, so it holds a generator of any format (pass &u.g). */
typedef struct toid_gen_uid11 {
    toid_gen g;
    uint32_t toid__opaque[8192];
} toid_gen_uid11;

/* The most memory any format's generator needs (for static storage sized
 * before the format is known). */
#define TOID_GEN_SIZE_MAX sizeof(toid_gen_uid11)

/* Status bits reported by the generator calls (informational). */
#define TOID_ST_NEW_MS 1u          /* first ID of a new ms */
#define TOID_ST_INCREMENTED 2u     /* same ms: counter/random/sequence moved on */
#define TOID_ST_ROLLBACK 4u        /* the clock was behind; the last ms was kept */
#define TOID_ST_ADVANCED 8u        /* uuidv7: the timestamp moved ahead of the clock */
#define TOID_ST_RESET 16u          /* uuidv7: the clock went far back; started afresh */
#define TOID_ST_WAITED 32u         /* the call waited for the clock */

/* The defaults of a format into *cfg (what zero fields resolve to). */
TOID_API int toid_gen_config_default(toid_format f, toid_gen_config *cfg);

/* What a configuration is checked for: toid_gen_init and toid_gen_init_size
 * (a generator of the caller's), or toid_configure (the process-wide one). */
typedef enum toid_config_use {
    TOID_FOR_GEN_INIT = 0,
    TOID_FOR_CONFIGURE = 1
} toid_config_use;

/*
 * Why toid_gen_init / toid_gen_init_size (use TOID_FOR_GEN_INIT) or
 * toid_configure (TOID_FOR_CONFIGURE) would refuse cfg with TOID_EINVAL:
 * returns 0 if its settings are acceptable, else TOID_EINVAL and writes to
 * why (NUL-terminated, cut to why_size; may be NULL) the setting's field
 * name, a colon and the reason in English, for example
 * "node: 1024 is above nanoflake's largest, 1023" or
 * "on_behind: reset is uuidv7's alone, not ulid's". Front ends show it as
 * it is. Errors that come from elsewhere (toid_gen_init_size's
 * TOID_EBUFFER for too little memory, a process-shared mutex that cannot
 * be made) are not settings and are not explained here.
 */
TOID_API int toid_gen_config_explain(const toid_gen_config *cfg, toid_config_use use, char *why,
                                     size_t why_size);

/* The bytes of memory a generator of format f needs: sizeof(toid_gen) for
 * every format but uid11, sizeof(toid_gen_uid11) for uid11; 0 for an unknown
 * format. */
TOID_API size_t toid_gen_size(toid_format f);

/*
 * (Re)initialises the generator in the `size` bytes at g: validates cfg
 * (TOID_EINVAL: node, epoch, entropy size, cap or a policy the format does
 * not have; toid_gen_config_explain names the setting and why), then the room (TOID_EBUFFER, nothing written: size is below
 * toid_gen_size(cfg->format)), and forgets any previous state. Also the way
 * to re-arm a node-bearing generator in a forked child. With
 * TOID_GEN_SHARED (TOID_EINVAL together with TOID_GEN_UNLOCKED) call it
 * once, in one process, before the others use the generator, and never
 * while they do.
 */
TOID_API int toid_gen_init_size(toid_gen *g, size_t size, const toid_gen_config *cfg);

/* toid_gen_init_size(g, sizeof(toid_gen), cfg): for a plain toid_gen, so
 * TOID_EBUFFER for uid11 (use a toid_gen_uid11 and toid_gen_init_size). */
TOID_API int toid_gen_init(toid_gen *g, const toid_gen_config *cfg);

/* Where the pure core gets its random bytes: fill buf with n bytes, return 0
 * or a negative error (passed through). */
typedef int (*toid_entropy_fn)(void *ctx, uint8_t *buf, size_t n);

/*
 * The pure core: the next ID of g at time unix_ms (micros: the microsecond
 * within that ms, 0..999, used by scru160's MICROS counter) with random bytes
 * from entropy. No clock, no OS randomness, no lock, no fork check, never
 * waits: where a policy says WAIT it returns the error and the caller waits.
 * On error the state is unchanged and nothing is written to out. *status (may
 * be NULL) gets TOID_ST_* bits. Returns 0 or an error: TOID_ERANGE (time
 * outside the format's span), TOID_ECLOCK, TOID_EEXHAUSTED, TOID_EOVERFLOW,
 * or the entropy callback's error. Not thread-safe: no other thread may use
 * g (with this or any other call) while it runs.
 */
TOID_API int toid_gen_next_at(toid_gen *g, int64_t unix_ms, unsigned micros,
                              toid_entropy_fn entropy, void *ctx, uint8_t *out,
                              unsigned *status);

/*
 * The next ID from g by the clock and the library's CSPRNG: thread-safe
 * (unless TOID_GEN_UNLOCKED). While one thread alone uses g, its IDs take no
 * atomic read-modify-write (the generator is that thread's until a second
 * thread calls. That call waits for the owner's ID in progress, once, with
 * one membarrier(2), and g takes the lock-free or locked path below for
 * good; without membarrier(2) it does so from the start). Then: lock-free
 * compare-and-swap for the formats whose state fits one word (nanoflake,
 * ulid-flake, ulid-flake-scalable, uid11-seq, scru160), a short lock
 * otherwise, never held across a system call; fork-safe; applies the wait
 * policies. Not async-signal-safe: a call from a signal handler that
 * interrupted its own thread's call on the same generator fails with
 * TOID_EINVAL where it can tell (the owner's path), and may wait for ever
 * otherwise (the lock). Cancellation-safe: no call is a cancellation point
 * while it makes an ID (pthread_cancel acts before or after it). A thread
 * must not leave a call by any other way: longjmp out of a signal handler
 * that interrupted it, or pthread_exit from one, leaves g as if the call
 * never ended, and every later call on g from another thread waits for
 * ever. With TOID_GEN_SHARED also safe from
 * several processes (the lock is then a robust process-shared mutex, which
 * may sleep in the kernel); returns the repair's error (TOID_EENTROPY,
 * TOID_ERANGE) in the rare case that repairing after a dead holder fails.
 * On error out holds no ID: it is zeroed (never a candidate that lost a
 * race: for a format without random bits that could be another thread's
 * ID), or left as it was where nothing was written (TOID_EINVAL for bad
 * arguments or a call re-entered from a signal handler). toid_gen_next_text
 * writes the canonical text and a NUL (returns its length); on error out is
 * left as it was.
 */
TOID_API int toid_gen_next(toid_gen *g, uint8_t *out, unsigned *status);
TOID_API int toid_gen_next_text(toid_gen *g, char *out, size_t out_size);

/*
 * n IDs into out (n * toid_bin_size bytes), strictly increasing, from one
 * clock read (more only when a ms is exhausted and the policy waits). uid11's
 * batch is sorted (its values are random within a ms). Returns the number
 * made (n) or an error; on error, IDs made before it are in out and counted
 * in *made if made is not NULL, and the rest of out is zeroed.
 */
TOID_API int toid_gen_batch(toid_gen *g, uint8_t *out, size_t n, size_t *made);

/*
 * toid_gen_batch that also reports what happened: *status (may be NULL) gets
 * the TOID_ST_* bits of every ID of the batch OR-ed together (so a server
 * can count clock regressions and waits without generating one ID a call).
 */
TOID_API int toid_gen_batch_status(toid_gen *g, uint8_t *out, size_t n, size_t *made,
                                   unsigned *status);

/*
 * The process-wide generators, one per format, made on first use with the
 * format's defaults (node 0). toid_new: binary; toid_new_text: text and NUL,
 * returns its length; toid_new_batch: as toid_gen_batch.
 */
TOID_API int toid_new(toid_format f, uint8_t *out);
TOID_API int toid_new_text(toid_format f, char *out, size_t out_size);
TOID_API int toid_new_batch(toid_format f, uint8_t *out, size_t n, size_t *made);

/* Reconfigures the process-wide generator of cfg->format (e.g. its node or
 * epoch; also re-arms a node format in a forked child; TOID_EINVAL for a
 * setting it refuses, which toid_gen_config_explain(cfg, TOID_FOR_CONFIGURE,
 * ...) names), or with
 * TOID_GEN_PER_THREAD makes it one per thread (each thread's next ID starts
 * its generator afresh with cfg; a call without the flag makes it one again).
 * Order across the call: with the same epoch, node and counter usage (any
 * other setting may change: policies, bounds, entropy size) the generator
 * goes on from its last ID, and every later ID sorts above every earlier
 * one. A new epoch, node or counter usage starts a new stream: its IDs are
 * of another space (a nanoflake of another node, or whose time counts from
 * another epoch) and may sort below, or with a new epoch even equal, IDs
 * made before the call; keep such streams apart. TOID_GEN_PER_THREAD's
 * generators start afresh too (each thread's IDs are in order, not the
 * process's), and the one generator after them goes on from its own last
 * ID, not theirs. Not to be called while other threads generate IDs of that format.
 * TOID_EINVAL with TOID_GEN_UNLOCKED or TOID_GEN_SHARED (these generators
 * are per process), or TOID_GEN_PER_THREAD for a format that does not take
 * it. */
TOID_API int toid_configure(const toid_gen_config *cfg);

/*
 * IDs at given times, for backfills (PostgreSQL's ulid_new(timestamptz),
 * SQLite's toid_new(fmt, t), toidd's ?at=, the bindings' at=): an ID of f
 * whose time is unix_ms's, with fresh random bits from the library's
 * CSPRNG, for the formats toid_at_time_unique accepts. Successive IDs of one
 * ms from one state increase, as the live generator's do; when the time goes
 * back, a ms is used up, or the process forked since the state's last ID,
 * the state starts afresh with new random bits (the IDs stay unique by
 * those bits, at least 62 a ms). These IDs are not part of the live
 * generator's stream: not ordered against toid_new's, not admitted by any
 * claim's mark.
 *
 * A toid_at is the state for one format: zero it before its first use
 * (`toid_at at = {0};`, or static or calloc'd storage); use it from one
 * thread at a time (it takes no lock: one per thread or per database
 * connection). A state used for another format starts afresh.
 */
typedef struct toid_at {
    toid_gen toid__g;
    uint64_t toid__fork_generation;
    int32_t toid__format;        /* f + 1; 0: not set up */
    uint32_t toid__pad;
} toid_at;

/*
 * The next ID of f at unix_ms (unix ms, the format's default epoch) into out
 * (toid_bin_size(f) bytes). Returns 0, TOID_EINVAL (a bad f, or one that
 * cannot make IDs at a given time: toid_at_time_explain says why),
 * TOID_ERANGE (unix_ms outside what f holds) or TOID_EENTROPY. On error
 * nothing is written to out.
 */
TOID_API int toid_new_at(toid_at *at, toid_format f, int64_t unix_ms, uint8_t *out);

/* n bytes from the library's per-thread CSPRNG (ChaCha20 keyed from
 * getrandom(2), fast key erasure, reseeded every MiB and after fork).
 * Returns 0 or TOID_EENTROPY; never falls back to a weaker source. */
TOID_API int toid_random_bytes(void *buf, size_t n);

/*
 * The clock: CLOCK_REALTIME. toid_clock_now gives unix ms (and the
 * microsecond within it, if micros is not NULL). toid_set_clock replaces the
 * clock for the whole process (tests, simulations): fn returns unix
 * microseconds. NULL restores the real clock.
 */
typedef int64_t (*toid_clock_fn)(void *ctx);
TOID_API int64_t toid_clock_now(unsigned *micros);
TOID_API void toid_set_clock(toid_clock_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* TOID_H */
