/* fmt_uid11.c — uid11, profile xid: 42-bit ms since 2011-11-11T11:11:11.111Z
 * | 22-bit random; 11 Base58 symbols; 8 bytes. Also the spec's prefix-aware
 * decoding (§3.6, §4). */
#include "uid11.h"
#include "gen.h"

/* seen[]: an open-addressing set of the values issued in the current ms,
 * in the memory right after the generator (toid_gen_uid11.seen). A slot
 * holds value | tag << 22; slots whose tag is not the current ms's count as
 * empty, so a new ms costs nothing (the table is cleared only when the
 * 10-bit tag wraps, once per 1023 ms, and on the first ID after
 * toid_gen_init, which sets the tag to 0: so the memory needs no clearing
 * before, and gen.c never touches the set). */
#define SLOT_MASK (TOID__UID11_SLOTS - 1u)
#define TAG_MAX 1023u

static bool seen_has(const uint32_t *seen, uint32_t tag, uint32_t r) {
    for (uint32_t i = r & SLOT_MASK;; i = (i + 1) & SLOT_MASK) {
        uint32_t s = seen[i];
        if (s >> 22 != tag)
            return false;
        if ((s & 0x3FFFFFu) == r)
            return true;
    }
}

static void seen_add(uint32_t *seen, uint32_t tag, uint32_t r) {
    uint32_t i = r & SLOT_MASK;
    while (seen[i] >> 22 == tag)
        i = (i + 1) & SLOT_MASK;
    seen[i] = tag << 22 | r;
}

/* 22 uniform random bits per ID; within one ms a value already issued is
 * drawn again, so the generator never repeats itself (sampling without
 * replacement), up to per_ms_cap IDs a ms. */
static int uid11_next(toid__core *c, uint8_t *out) {
    toid_gen_head *g = c->g;
    uint32_t *seen = c->seen;
    const toid__tick *t = &c->t;
    if (t->same && g->seq >= g->cfg.per_ms_cap)
        return TOID_EEXHAUSTED;
    uint32_t tag = t->same ? g->tag : g->tag % TAG_MAX + 1;
    uint32_t r;
    for (int tries = 0;; tries++) {
        uint8_t b[3];
        if (tries == 1000)
            return TOID_EENTROPY;         /* a source that keeps repeating itself */
        int rc = toid__draw(c, b, 3);
        if (rc < 0)
            return rc;
        r = (uint32_t)toid__be(b, 3) & 0x3FFFFFu;
        if (!t->same || !seen_has(seen, tag, r))
            break;
    }
    if (!t->same) {
        if (tag == 1)
            memset(seen, 0, TOID__UID11_SLOTS * sizeof *seen);   /* the tag wrapped */
        g->tag = tag;
        g->seq = 0;
    }
    seen_add(seen, tag, r);
    g->seq++;
    return toid__issue64(c, toid__ts(c) << 22 | r, out);
}

const toid__format toid__fmt_uid11 = {
    .info = {
        .format = TOID_UID11, .name = "uid11", .bits = 64, .bin_size = 8,
        .text_len = 11, .text_len_min = 11, .alphabet = "base58",
        .default_epoch_ms = TOID__EPOCH_XID, .epoch_configurable = 0,
        .has_int = 1, .int_max = UINT64_MAX, .ts_bits = 42,
        .spec = "uid11 specification, profile xid (section 8)",
        .random_order = 1, .detect_rank = 4, .generates = 1, .detected = 1,
    },
    TOID__DECODE(toid__uid11_decode), TOID__ENCODE(toid__uid11_encode),
    .ts_shift = 22, .nfields = 1,
    .fields = {{TOID_FIELD_RANDOM, 0, 22}},
    .next = uid11_next, .default_on_exhausted = TOID_EXHAUSTED_WAIT,
    .default_on_behind = TOID_BEHIND_KEEP, .entropy_per_id = 3,
};

int toid_uid11_prefix_range(const char *text, size_t len, uint64_t *lo, uint64_t *hi,
                            size_t *err_pos) {
    if (len > 11)
        return TOID_ELENGTH;
    if (!text && len)
        return TOID_EINVAL;
    uint64_t vh, vl;
    int rc = toid__base58_decode(text, len, &vh, &vl, err_pos);
    if (rc < 0)
        return rc;
    /* lo = value * 58^(11-len), computed with the decoder's 128-bit steps; any
     * bits above 64 mean the whole range is past 2^64-1. */
    for (size_t i = len; i < 11; i++)
        toid__mul58_add(&vh, &vl, 0);
    if (vh)
        return TOID_EOVERFLOW;
    uint64_t scale = 1;
    for (size_t i = len; i < 11; i++) {
        if (scale > UINT64_MAX / 58u) {     /* 58^11 > 2^64: clamp below */
            scale = 0;
            break;
        }
        scale *= 58u;
    }
    /* hi = lo + scale - 1, clamped to 2^64-1 (scale 0 stands for 58^11). */
    uint64_t top;
    if (scale == 0 || vl > UINT64_MAX - (scale - 1))
        top = UINT64_MAX;
    else
        top = vl + (scale - 1);
    if (lo)
        *lo = vl;
    if (hi)
        *hi = top;
    return 0;
}
