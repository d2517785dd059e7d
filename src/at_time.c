/* at_time.c — IDs at given times (backfills): one format's generator fed
 * the given ms, started afresh when the time goes back, a ms is used up or
 * the process forked. The one implementation behind PostgreSQL's
 * x_new(timestamptz), SQLite's toid_new(fmt, t), toidd's ?at= and the
 * bindings' at=. */
#include <stdio.h>
#include <string.h>

#include "os.h"
#include "toid.h"

/* The formats that can, in the library's order ("ulid, scru160, uuidv7"). */
static int list_at_time_formats(char *out, size_t out_size) {
    size_t used = 0;
    out[0] = '\0';
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        if (toid_at_time_unique((toid_format)f, NULL) != 1)
            continue;
        int k = snprintf(out + used, out_size - used, "%s%s", used ? ", " : "",
                         toid_format_get((toid_format)f)->name);
        if (k < 0 || (size_t)k >= out_size - used)
            return TOID_EBUFFER;
        used += (size_t)k;
    }
    return (int)used;
}

int toid_at_time_explain(toid_format f, char *out, size_t out_size) {
    unsigned bits = 0;
    int can = toid_at_time_unique(f, &bits);
    if (can < 0 || out == NULL)
        return TOID_EINVAL;
    if (out_size == 0)
        return TOID_EBUFFER;
    out[0] = '\0';
    if (can == 1)
        return 0;
    char use[96];
    if (list_at_time_formats(use, sizeof use) < 0)
        return TOID_EBUFFER;
    const toid_format_info *fi = toid_format_get(f);
    int n;
    if (!fi->generates)
        n = snprintf(out, out_size, "toid reads %s IDs but does not make them; IDs at given "
                     "times: %s", fi->name, use);
    else if (fi->node_max || fi->caller_node_bits)
        n = snprintf(out, out_size, "a %s carries a node and a sequence within its ms: an ID at "
                     "a past time cannot be made unique against what the node already issued "
                     "in that ms; IDs at given times: %s", fi->name, use);
    else
        n = snprintf(out, out_size, "a %s has %u random bits a ms: an ID at a past time cannot "
                     "be made unique against the IDs already issued in that ms; IDs at given "
                     "times: %s", fi->name, bits, use);
    return n < 0 || (size_t)n >= out_size ? TOID_EBUFFER : n;
}

static int csprng(void *ctx, uint8_t *buf, size_t n) {
    (void)ctx;
    return toid_random_bytes(buf, n);
}

/* at's generator afresh for f: its last ID forgotten. Its policies: a time
 * behind the last ID, or a ms used up, is an error the caller answers by
 * starting afresh; never a wait, a kept ms or an advance (an ID's time is
 * the one asked for). */
static int start(toid_at *at, toid_format f) {
    toid_gen_config c;
    toid_gen_config_default(f, &c);
    c.on_behind = TOID_BEHIND_ERROR;
    c.on_exhausted = TOID_EXHAUSTED_ERROR;
    c.flags = TOID_GEN_UNLOCKED;    /* one thread's at a time (see toid.h) */
    int rc = toid_gen_init_size(&at->toid__g, sizeof at->toid__g, &c);
    if (rc < 0) {
        at->toid__format = 0;
        return rc;
    }
    at->toid__format = (int32_t)f + 1;
    at->toid__fork_generation = toid__fork_generation();
    return 0;
}

int toid_new_at(toid_at *at, toid_format f, int64_t unix_ms, uint8_t *out) {
    if (at == NULL || out == NULL || toid_at_time_unique(f, NULL) != 1)
        return TOID_EINVAL;
    /* A forked child must not go on from its parent's last ID: both would
     * make last + 1 in that ms. */
    if (at->toid__format != (int32_t)f + 1 || at->toid__fork_generation != toid__fork_generation()) {
        int rc = start(at, f);
        if (rc < 0)
            return rc;
    }
    int rc = toid_gen_next_at(&at->toid__g, unix_ms, 0, csprng, NULL, out, NULL);
    if (rc == TOID_ECLOCK || rc == TOID_EEXHAUSTED || rc == TOID_EOVERFLOW) {
        /* the time went back, or its ms is used up: a new stream, fresh bits */
        if ((rc = start(at, f)) < 0)
            return rc;
        rc = toid_gen_next_at(&at->toid__g, unix_ms, 0, csprng, NULL, out, NULL);
    }
    return rc;
}
