/* ids.c — generation, inspection and the format list for the protocols. */
#include "ids.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "state.h"

typedef struct slot {
    int enabled;
    toid_gen *gen;       /* shared by every worker; the library locks it */
    state *st;           /* NULL with --no-state */
    int64_t epoch_ms;
    uint32_t node;
} slot;

static slot slots[TOID_FORMAT_COUNT];

/* Clock trouble is logged at most once a second per format and kind. */
static _Atomic int64_t last_log[TOID_FORMAT_COUNT][2];

static int log_due(toid_format f, int kind) {
    int64_t now = mono_ms(), prev = atomic_load_explicit(&last_log[f][kind], memory_order_relaxed);
    return now - prev >= 1000 &&
           atomic_compare_exchange_strong(&last_log[f][kind], &prev, now);
}

int ids_init(const server_config *c) {
    state_opts so = {c->reset_state, c->clock_wait_max_ms, c->reserve_ms};
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        toid_format f = (toid_format)i;
        slot *s = &slots[i];
        s->epoch_ms = config_epoch(c, f);
        s->node = config_node(c, f);
        if (!c->enabled[i])
            continue;
        s->gen = calloc(1, sizeof *s->gen);
        if (!s->gen) {
            log_err("out of memory");
            return -1;
        }
        int rc = toid_gen_init(s->gen, &c->gen[i]);
        if (rc < 0) {
            log_err("generator %s: %s", toid_format_get(f)->name, toid_strerror(rc));
            return -1;
        }
        if (!c->no_state && state_open(c->state_dir, f, s->node, s->epoch_ms, &so, &s->st) < 0)
            return -1;
        s->enabled = 1;
    }
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        if (!slots[i].enabled)
            continue;
        int n = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                         toid_format_get((toid_format)i)->name);
        if (n > 0 && (size_t)n < sizeof list - used)
            used += (size_t)n;
        if ((i == TOID_NANOFLAKE || i == TOID_ULID_FLAKE_SCALABLE) && used < sizeof list) {
            n = snprintf(list + used, sizeof list - used, " (node %" PRIu32 ")", slots[i].node);
            if (n > 0 && (size_t)n < sizeof list - used)
                used += (size_t)n;
        }
    }
    log_info("generating: %s%s", list, c->no_state ? " (no state directory)" : "");
    if (!c->no_state) {
        state *all[TOID_FORMAT_COUNT];
        for (int i = 0; i < TOID_FORMAT_COUNT; i++)
            all[i] = slots[i].st;
        if (state_flusher_start(all, TOID_FORMAT_COUNT) < 0)
            return -1;
    }
    return 0;
}

void ids_shutdown(int clean) {
    state_flusher_stop();
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        state_close(slots[i].st, clean);
        slots[i].st = NULL;
        slots[i].enabled = 0;
        free(slots[i].gen);
        slots[i].gen = NULL;
    }
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

int ids_enabled(toid_format f) { return (unsigned)f < TOID_FORMAT_COUNT && slots[f].enabled; }

int ids_new(toid_format f, uint8_t *out, size_t n) {
    if ((unsigned)f >= TOID_FORMAT_COUNT || !slots[f].enabled)
        return IDS_EDISABLED;
    slot *s = &slots[f];
    size_t bs = toid_bin_size(f);
    unsigned st = 0;
    size_t made = 0;
    /* one clock read for the whole request (uid11's batch comes sorted) */
    int rc = toid_gen_batch_status(s->gen, out, n, &made, &st);
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
        if (s->st) {
            int64_t lo = time_of(f, out, s->epoch_ms);
            int64_t hi = time_of(f, out + (n - 1) * bs, s->epoch_ms);
            /* (an ID the library cannot inspect is never issued) */
            rc = lo == INT64_MAX || hi == INT64_MAX ? TOID_EINVAL : state_admit(s->st, lo, hi);
        }
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
           err == TOID_EENTROPY || err == STATE_EBEHIND || err == STATE_EIO;
}

const char *ids_strerror(int err) {
    switch (err) {
    case IDS_EUNKNOWN: return "unknown format";
    case IDS_EDISABLED: return "format not enabled on this server";
    case IDS_ENOTDETECTED: return "no format accepts this ID";
    case STATE_EBEHIND: return "clock is behind the high-water mark of a previous run";
    case STATE_EIO: return "cannot persist the high-water mark";
    default: return toid_strerror(err);
    }
}

int ids_inspect(int f, const char *text, size_t len, char *json, size_t cap, size_t *pos) {
    uint8_t bin[TOID_BIN_MAX];
    *pos = 0;
    if (f < 0) {            /* the library's detection priority, as the CLI's */
        f = toid_detect(text, len, bin, pos);
        if (f < 0)
            return IDS_ENOTDETECTED;
    } else if (f >= TOID_FORMAT_COUNT) {
        return IDS_EUNKNOWN;
    } else {
        int rc = toid_decode((toid_format)f, text, len, bin, pos);
        if (rc < 0)
            return rc;
    }
    return toid_inspect_json((toid_format)f, bin, slots[f].epoch_ms, json, cap);
}

int ids_formats_json(sbuf *o) {
    int rc = sbuf_str(o, "[");
    for (int i = 0; i < TOID_FORMAT_COUNT; i++) {
        const toid_format_info *fi = toid_format_get((toid_format)i);
        rc |= sbuf_printf(o, "%s{\"name\":\"%s\",\"bits\":%u,\"bin_size\":%u,\"text_len\":%u,"
                             "\"alphabet\":\"%s\",\"epoch_ms\":%" PRId64 ",\"generate\":%s",
                          i ? "," : "", fi->name, fi->bits, fi->bin_size, fi->text_len,
                          fi->alphabet, slots[i].epoch_ms, slots[i].enabled ? "true" : "false");
        if (i == TOID_NANOFLAKE || i == TOID_ULID_FLAKE_SCALABLE)
            rc |= sbuf_printf(o, ",\"node\":%" PRIu32, slots[i].node);
        rc |= sbuf_str(o, "}");
    }
    rc |= sbuf_str(o, "]\n");
    return rc ? -1 : 0;
}
