/* ids.c — generation, inspection and the format list for the protocols. */
#include "ids.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "metrics.h"

/* The epoch of each format as configured (inspection, the format list). */
static int64_t epochs[TOID_FORMAT_COUNT];
static int enabled[TOID_FORMAT_COUNT];

/* Clock trouble is logged at most once a second per format and kind. */
static _Atomic int64_t last_log[TOID_FORMAT_COUNT][2];

static int log_due(toid_format f, int kind) {
    int64_t now = mono_ms(), prev = atomic_load_explicit(&last_log[f][kind], memory_order_relaxed);
    return now - prev >= 1000 &&
           atomic_compare_exchange_strong(&last_log[f][kind], &prev, now);
}

int ids_init(const server_config *c) {
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        epochs[i] = config_epoch(c, (toid_format)i);
        enabled[i] = c->enabled[i];
    }
    if (claims_start(c) < 0)
        return -1;
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        if (!enabled[i])
            continue;
        int n = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                         toid_format_get((toid_format)i)->name);
        if (n > 0 && (size_t)n < sizeof list - used)
            used += (size_t)n;
        if (config_is_node_format((toid_format)i) && used < sizeof list) {
            int64_t node = claims_node((toid_format)i);
            n = node >= 0 ? snprintf(list + used, sizeof list - used, " (node %" PRId64 ")", node)
                          : snprintf(list + used, sizeof list - used, " (no node yet)");
            if (n > 0 && (size_t)n < sizeof list - used)
                used += (size_t)n;
        }
    }
    log_info("generating: %s%s", list, c->no_state ? " (no state directory)" : "");
    return 0;
}

void ids_shutdown(int clean) {
    claims_stop(clean);
    memset(enabled, 0, sizeof enabled);
}

int ids_lookup(const char *name, size_t len, toid_format *f) {
    int r = toid_format_by_name(name, len);
    if (r < 0)
        return IDS_EUNKNOWN;
    *f = (toid_format)r;
    return 0;
}

static int64_t time_of(toid_format f, const uint8_t *bin, int64_t epoch) {
    int64_t t;
    return toid_time_of(f, bin, epoch, &t) < 0 ? INT64_MAX : t;
}

/* The format's last request was refused for the clock (behind its last ID
 * beyond the policy's bound, or behind its node's mark); cleared by the
 * next success. For readiness: ids_health. */
static _Atomic int clock_refused[TOID_FORMAT_COUNT];

int ids_health(sbuf *o) {
    int bad = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        if (!enabled[f] || !atomic_load_explicit(&clock_refused[f], memory_order_relaxed))
            continue;
        sbuf_printf(o, "unserved: %s (the clock is behind its last ID or its node's mark: the "
                    "last request was refused)\n", toid_format_get((toid_format)f)->name);
        bad = 1;
    }
    return bad;
}

int ids_enabled(toid_format f) { return (unsigned)f < TOID_FORMAT_COUNT && enabled[f]; }

int ids_new(toid_format f, uint8_t *out, size_t n) {
    if ((unsigned)f < TOID_FORMAT_COUNT && !toid_format_get(f)->generates)
        return IDS_EREADONLY;
    if ((unsigned)f >= TOID_FORMAT_COUNT || !enabled[f])
        return IDS_EDISABLED;
    int why = 0;
    const served *s = claims_enter(f, &why);
    if (!s) {
        claims_leave();
        METRIC_ADD(gen_errors[f], 1);
        return why;
    }
    size_t bs = toid_bin_size(f);
    unsigned st = 0;
    size_t made = 0;
    /* one clock read for the whole request (uid11's batch comes sorted);
     * the generator is shared by every worker, the library locks it */
    int rc = toid_gen_batch_status((toid_gen *)&s->gen, out, n, &made, &st);
    if (st & (TOID_ST_ROLLBACK | TOID_ST_RESET)) {
        METRIC_ADD(regressions[f], 1);
        if (log_due(f, 0))
            log_warn("%s: the clock is behind the last ID (policy applied: the IDs stay after it)",
                     toid_format_get(f)->name);
    }
    if (st & TOID_ST_WAITED)
        METRIC_ADD(waits[f], 1);
    if (rc >= 0 && n > 0) {
        rc = 0;
        if (s->claim) {
            int64_t lo = time_of(f, out, s->epoch_ms);
            int64_t hi = time_of(f, out + (n - 1) * bs, s->epoch_ms);
            /* (an ID the library cannot inspect is never issued) */
            rc = lo == INT64_MAX || hi == INT64_MAX ? TOID_EINVAL
                                                    : toid_claim_admit(s->claim, lo, hi);
        }
    }
    claims_leave();
    {
        int clock = rc == TOID_ECLOCK || rc == TOID_CLAIM_EBEHIND;
        if (atomic_load_explicit(&clock_refused[f], memory_order_relaxed) != clock)
            atomic_store_explicit(&clock_refused[f], clock, memory_order_relaxed);
    }
    if (rc < 0) {
        METRIC_ADD(gen_errors[f], 1);
        if (log_due(f, 1))
            log_warn("%s: cannot issue IDs: %s", toid_format_get(f)->name, ids_strerror(rc));
        return rc;
    }
    METRIC_ADD(issued[f], n);
    return 0;
}

int ids_error_is_temporary(int err) {
    return err == TOID_ECLOCK || err == TOID_EEXHAUSTED || err == TOID_EOVERFLOW ||
           err == TOID_EENTROPY || (claims_strerror(err) && err != TOID_CLAIM_ECORRUPT);
}

const char *ids_strerror(int err) {
    switch (err) {
    case IDS_EUNKNOWN: return "unknown format";
    case IDS_EDISABLED: return "format not enabled on this server";
    case IDS_EREADONLY: return "read-only format (the layout a reference library writes): inspect, convert "
                               "and range only, never generated";
    case IDS_ENOTDETECTED: return "no format accepts this ID";
    case IDS_EAT: return "IDs of this format cannot be made at a given time (toid_at_time_explain "
                         "says why)";
    case TOID_CLAIM_EBEHIND: return "clock is behind the high-water mark of the node's previous holder";
    case TOID_CLAIM_EIO: return "cannot persist the high-water mark";
    default: return claims_strerror(err) ? claims_strerror(err) : toid_strerror(err);
    }
}

const char *ids_err_name(int err) {
    return claims_err_name(err) ? claims_err_name(err) : toid_err_name(err);
}

/* This worker thread's states for IDs at given times (toid_new_at), one
 * per format, kept for the thread's life. */
static _Thread_local toid_at at_state[TOID_FORMAT_COUNT];

int ids_new_at(toid_format f, int64_t unix_ms, uint8_t *out, size_t n) {
    if ((unsigned)f >= TOID_FORMAT_COUNT)
        return IDS_EUNKNOWN;
    if (!toid_format_get(f)->generates)
        return IDS_EREADONLY;
    if (!enabled[f])
        return IDS_EDISABLED;
    if (toid_at_time_unique(f, NULL) != 1)
        return IDS_EAT;
    size_t bs = toid_bin_size(f);
    for (size_t i = 0; i < n; i++) {
        int rc = toid_new_at(&at_state[f], f, unix_ms, out + i * bs);
        if (rc < 0) {
            METRIC_ADD(gen_errors[f], 1);
            return rc;
        }
    }
    METRIC_ADD(issued[f], n);
    return 0;
}

/* ,"also":[...] before the closing brace of the n bytes of JSON in json:
 * the formats of the bits of also. The new length, or TOID_EBUFFER. */
static int add_also(char *json, size_t cap, size_t n, uint32_t also) {
    size_t used = n - 1;
    int k = snprintf(json + used, cap - used, ",\"also\":[");
    for (int g = 0, first = 1; k > 0 && g < TOID_FORMAT_COUNT; g++)
        if (also >> g & 1u) {
            used += (size_t)k;
            k = snprintf(json + used, cap - used, "%s\"%s\"", first ? "" : ",",
                         toid_format_get((toid_format)g)->name);
            first = 0;
        }
    if (k < 0 || (size_t)k >= cap - used)
        return TOID_EBUFFER;
    used += (size_t)k;
    k = snprintf(json + used, cap - used, "]}");
    if (k < 0 || (size_t)k >= cap - used)
        return TOID_EBUFFER;
    return (int)(used + (size_t)k);
}

int ids_inspect(int f, const char *text, size_t len, char *json, size_t cap, size_t *pos,
                char *why, size_t why_cap) {
    uint8_t bin[TOID_BIN_MAX];
    uint32_t also = 0;
    int rc;
    *pos = 0;
    if (f >= TOID_FORMAT_COUNT)
        return IDS_EUNKNOWN;
    toid_uuid_info u;
    if (f < 0 && toid_uuid_detect(text, len, &u)) {
        /* a UUID of another version (any variant, nil, max): read as such,
         * the formats that also read the text named, as the CLI does */
        rc = toid_detect_also(text, len, bin, &also, pos);
        also = rc >= 0 ? also | 1u << rc : 0;
        int n = toid_uuid_json(&u, json, cap);
        if (n < 0 || !also)
            return n;
        return add_also(json, cap, (size_t)n, also);
    }
    if (f < 0)              /* the library's detection, as the CLI's */
        rc = toid_detect_also(text, len, bin, &also, pos);
    else
        rc = toid_decode_forms((toid_format)f, text, len, bin, pos);
    if (rc < 0) {
        if (toid_explain(f, text, len, rc, *pos, why, why_cap) < 0)
            snprintf(why, why_cap, "%s", toid_strerror(rc));
        return f < 0 ? IDS_ENOTDETECTED : rc;
    }
    if (f < 0)
        f = rc;
    int n = toid_inspect_json((toid_format)f, bin, epochs[f], json, cap);
    if (n < 0 || !also)
        return n;
    return add_also(json, cap, (size_t)n, also);
}


int ids_formats_json(sbuf *o) {
    int rc = sbuf_str(o, "[");
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        const toid_format_info *fi = toid_format_get((toid_format)i);
        rc |= sbuf_printf(o, "%s{\"name\":\"%s\",\"bits\":%u,\"bin_size\":%u,\"text_len\":%u,"
                             "\"alphabet\":\"%s\",\"epoch_ms\":%" PRId64 ",\"generate\":%s",
                          i ? "," : "", fi->name, fi->bits, fi->bin_size, fi->text_len,
                          fi->alphabet, epochs[i], enabled[i] ? "true" : "false");
        if (fi->variant_of)     /* a read-only variant of a reference library */
            rc |= sbuf_printf(o, ",\"variant_of\":\"%s\"", fi->variant_of);
        if (config_is_node_format((toid_format)i)) {
            int64_t node = claims_node((toid_format)i);
            if (node >= 0)
                rc |= sbuf_printf(o, ",\"node\":%" PRId64, node);
            else
                rc |= sbuf_str(o, ",\"node\":null");
        }
        rc |= sbuf_str(o, "}");
    }
    rc |= sbuf_str(o, "]\n");
    return rc ? -1 : 0;
}

/* A time text as toid range reads one: "now" (this instant) or
 * toid_parse_time_span's forms. */
static int time_span(const char *s, size_t len, int64_t *first, int64_t *last, unsigned *notes) {
    if (len == 3 && memcmp(s, "now", 3) == 0) {
        *first = *last = toid_clock_now(NULL);
        return 0;
    }
    return toid_parse_time_span(s, len, first, last, notes);
}

/* Shown in messages: at most 48 bytes of a time text (the JSON escapes the
 * rest). */
#define SHOW(s, n) (int)((n) < 48 ? (n) : 48), (s)

/* why = "'TEXT' is outside the times FORMAT holds (MIN .. MAX)". */
static void out_of_span(toid_format f, const char *s, size_t n, char *why, size_t cap) {
    int64_t lo = 0, hi = 0;
    char a[40] = "?", b[40] = "?";
    if (toid_time_span(f, epochs[f], &lo, &hi) == 0) {
        toid_format_time(lo, a, sizeof a);
        toid_format_time(hi, b, sizeof b);
    }
    snprintf(why, cap, "'%.*s' is outside the times %s holds (%s .. %s)", SHOW(s, n),
             toid_format_get(f)->name, a, b);
}

int ids_range_json(toid_format f, const char *from, size_t flen, const char *to, size_t tlen,
                   sbuf *out, char *why, size_t why_cap) {
    int64_t from_ms, from_last, to_first, to_ms;
    unsigned notes = 0, tnotes = 0;
    const char *bad = NULL;
    size_t badlen = 0;
    if (time_span(from, flen, &from_ms, &from_last, &notes) < 0)
        bad = from, badlen = flen;
    else if (to && time_span(to, tlen, &to_first, &to_ms, &tnotes) < 0)
        bad = to, badlen = tlen;
    if (bad) {
        snprintf(why, why_cap, "'%.*s' is not a time: ISO 8601 (2024, 2024-01-01, "
                 "2024-01-01T10:30Z, 2024-01-01T10:30:00.250+01:00), @SECONDS, Nms, Ns, Nus, "
                 "unix ms or now", SHOW(bad, badlen));
        return TOID_EINVAL;
    }
    if (!to)
        to_ms = from_last, to = from, tlen = flen;
    /* in toid range's order: FROM's bound, TO's, then their order */
    uint8_t lo[TOID_BIN_MAX], hi[TOID_BIN_MAX];
    int rc = toid_time_bounds(f, from_ms, epochs[f], lo, NULL);
    if (rc < 0) {
        if (rc == TOID_ERANGE)
            out_of_span(f, from, flen, why, why_cap);
        else
            snprintf(why, why_cap, "%s", toid_strerror(rc));
        return rc;
    }
    rc = toid_time_bounds(f, to_ms, epochs[f], NULL, hi);
    if (rc < 0) {
        if (rc == TOID_ERANGE)
            out_of_span(f, to, tlen, why, why_cap);
        else
            snprintf(why, why_cap, "%s", toid_strerror(rc));
        return rc;
    }
    if (from_ms > to_ms) {
        snprintf(why, why_cap, "to ('%.*s') is before from ('%.*s')", SHOW(to, tlen),
                 SHOW(from, flen));
        return TOID_EINVAL;
    }
    char a[40], b[40], ltext[TOID_TEXT_MAX + 1], htext[TOID_TEXT_MAX + 1];
    if (toid_format_time(from_ms, a, sizeof a) < 0 || toid_format_time(to_ms, b, sizeof b) < 0 ||
        toid_encode(f, lo, ltext, sizeof ltext) < 0 || toid_encode(f, hi, htext, sizeof htext) < 0)
        return TOID_EINVAL;   /* (not for a time in the format's span) */
    int w = sbuf_printf(out, "{\"format\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"from_ms\":%" PRId64
                             ",\"to_ms\":%" PRId64 ",\"lo\":\"%s\",\"hi\":\"%s\"",
                        toid_format_get(f)->name, a, b, from_ms, to_ms, ltext, htext);
    /* what toid range warns of on stderr: a bare 10-digit integer */
    if ((notes | tnotes) & TOID_TIME_LOOKS_SECONDS)
        w |= sbuf_str(out, ",\"note\":\"a bare integer is unix milliseconds; for seconds write "
                           "@SECONDS or Ns\"");
    w |= sbuf_str(out, "}\n");
    return w ? TOID_EBUFFER : 0;
}

int ids_convert_json(const char *text, size_t len, char *json, size_t cap, size_t *pos,
                     char *why, size_t why_cap) {
    uint8_t bin[TOID_BIN_MAX];
    char uuid[37], ulid[27];
    toid_uuid_info u;
    *pos = 0;
    if (toid_uuid_detect(text, len, &u)) {
        /* a UUID of another version (also 32 hex digits that spell one, as
         * toid inspect reads them): its bytes */
        toid_uuid_canonical(text, len, uuid, sizeof uuid, NULL);
    } else {
        int rc = toid_detect(text, len, bin, pos);
        if (rc >= 0 && toid_bin_size((toid_format)rc) != 16) {
            snprintf(why, why_cap, "a %s, not a ULID or a UUID (a 128-bit value)",
                     toid_format_get((toid_format)rc)->name);
            return TOID_EINVAL;
        }
        if (rc >= 0) {   /* the 128-bit formats: their 16 bytes as a UUID */
            char hex[33];
            toid_hex_encode(bin, 16, hex, sizeof hex);
            snprintf(uuid, sizeof uuid, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
                     hex + 16, hex + 20);
        } else if (toid_uuid_canonical(text, len, uuid, sizeof uuid, NULL) != 36) {
            /* neither: the detection's reason, as toid convert gives it */
            if (toid_explain(-1, text, len, rc, *pos, why, why_cap) < 0)
                snprintf(why, why_cap, "%s", toid_strerror(rc));
            return rc;
        }   /* else a UUID that detection reads as nothing: its bytes */
    }
    if (toid_uuid_to_ulid(uuid, 36, ulid, sizeof ulid, NULL) != 26)
        return TOID_EINVAL;
    int n = snprintf(json, cap, "{\"ulid\":\"%s\",\"uuid\":\"%s\"}", ulid, uuid);
    return n > 0 && (size_t)n < cap ? n : TOID_EBUFFER;
}
