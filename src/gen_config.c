/* gen_config.c — a generator's configuration: the defaults, and the check
 * that resolves every zero to its default and refuses what a format cannot
 * take, naming the setting and the reason (toid_gen_config_explain), so that
 * each front end can tell its user which setting is wrong instead of a bare
 * "invalid argument". */
#include "format.h"
#include "gen.h"

#include <stdarg.h>
#include <stdio.h>

#define DEFAULT_WAIT_MS 1000u
#define DEFAULT_ALLOW_MS 10000u
#define UID11_CAP_MAX 4096u

int toid_gen_config_default(toid_format f, toid_gen_config *cfg) {
    const toid__format *fmt = toid__format_of(f);
    if (!fmt || !cfg)
        return TOID_EINVAL;
    memset(cfg, 0, sizeof *cfg);
    cfg->format = f;
    cfg->epoch_ms = fmt->info.default_epoch_ms;
    cfg->entropy_bytes = fmt->max_entropy_bytes ? 1 : 0;
    cfg->counter_mode = f == TOID_SCRU160 ? TOID_COUNTER_RANDOM : TOID_COUNTER_DEFAULT;
    cfg->on_exhausted = (toid_on_exhausted)fmt->default_on_exhausted;
    cfg->on_behind = (toid_on_behind)fmt->default_on_behind;
    cfg->wait_max_ms = DEFAULT_WAIT_MS;
    cfg->behind_allow_ms = DEFAULT_ALLOW_MS;
    cfg->per_ms_cap = fmt->info.random_order ? UID11_CAP_MAX : 0;
    return 0;
}

/* TOID_EINVAL, with the reason in why (if any room): "setting: reason". */
__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t why_size, const char *fmt, ...) {
    if (why && why_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_size, fmt, ap);
        va_end(ap);
    }
    return TOID_EINVAL;
}

int toid__resolve_config(const toid_gen_config *in, toid_config_use use, toid_gen_config *out, int64_t *epoch,
                         char *why, size_t why_size) {
    if (why && why_size)
        why[0] = '\0';
    if (!in)
        return refuse(why, why_size, "config: none given (NULL)");
    const toid__format *fmt = toid__format_of(in->format);
    if (!fmt)
        return refuse(why, why_size, "format: %d is not a format (0 to %d)", (int)in->format, TOID_FORMAT_COUNT - 1);
    const char *name = fmt->info.name;
    if (!fmt->info.generates)
        return refuse(why, why_size,
                      "format: %s is read only (the layout a reference library writes, a variant of %s): "
                      "toid reads it and never generates it",
                      name, fmt->info.variant_of ? fmt->info.variant_of : "another format");
    toid_gen_config d;
    toid_gen_config_default(in->format, &d);
    *out = *in;
    int64_t e = in->epoch_ms == 0 ? TOID_EPOCH_DEFAULT : in->epoch_ms;
    if (toid__resolve_epoch(fmt, e, epoch) < 0) {
        if (!fmt->info.epoch_configurable)
            return refuse(why, why_size, "epoch_ms: %s counts from its own epoch, %lld (got %lld)", name,
                          (long long)fmt->info.default_epoch_ms, (long long)e);
        return refuse(why, why_size, "epoch_ms: %lld is outside 0 to 2^48-1 ms", (long long)e);
    }
    out->epoch_ms = *epoch;
    if (in->node >> fmt->info.node_bits) {
        if (!fmt->info.node_bits)
            return refuse(why, why_size, "node: %s takes no node (got %u)", name, (unsigned)in->node);
        return refuse(why, why_size, "node: %u is above %s's largest, %u", (unsigned)in->node, name,
                      (unsigned)fmt->info.node_max);
    }
    if (!in->entropy_bytes)
        out->entropy_bytes = d.entropy_bytes;
    else if (in->entropy_bytes > fmt->max_entropy_bytes) {
        if (!fmt->max_entropy_bytes)
            return refuse(why, why_size, "entropy_bytes: %s takes no increment size (got %u)", name,
                          (unsigned)in->entropy_bytes);
        return refuse(why, why_size, "entropy_bytes: %s takes 1 to %u (got %u)", name,
                      (unsigned)fmt->max_entropy_bytes, (unsigned)in->entropy_bytes);
    }
    if (!in->counter_mode)
        out->counter_mode = d.counter_mode;
    else if (in->format != TOID_SCRU160)
        return refuse(why, why_size, "counter_mode: only scru160 has a counter (%s)", name);
    else if (in->counter_mode > TOID_COUNTER_MICROS)
        return refuse(why, why_size, "counter_mode: %u is not a counter mode", (unsigned)in->counter_mode);
    if (!in->on_exhausted)
        out->on_exhausted = d.on_exhausted;
    else if (in->on_exhausted > TOID_EXHAUSTED_ADVANCE)
        return refuse(why, why_size, "on_exhausted: %u is not a policy", (unsigned)in->on_exhausted);
    else if (in->on_exhausted == TOID_EXHAUSTED_ADVANCE && d.on_exhausted != TOID_EXHAUSTED_ADVANCE)
        return refuse(why, why_size, "on_exhausted: advance (into the next ms) is uuidv7's alone, not %s's", name);
    if (!in->on_behind)
        out->on_behind = d.on_behind;
    else if (in->on_behind > TOID_BEHIND_RESET)
        return refuse(why, why_size, "on_behind: %u is not a policy", (unsigned)in->on_behind);
    else if (in->on_behind == TOID_BEHIND_RESET && d.on_behind != TOID_BEHIND_RESET)
        return refuse(why, why_size, "on_behind: reset is uuidv7's alone, not %s's", name);
    if (!in->wait_max_ms)
        out->wait_max_ms = d.wait_max_ms;
    if (!in->behind_allow_ms)
        out->behind_allow_ms = d.behind_allow_ms;
    if (!in->per_ms_cap)
        out->per_ms_cap = d.per_ms_cap;
    else if (!fmt->info.random_order)
        return refuse(why, why_size, "per_ms_cap: only uid11 has a per-ms cap (%s)", name);
    else if (in->per_ms_cap > UID11_CAP_MAX)
        return refuse(why, why_size, "per_ms_cap: %u is above %u", (unsigned)in->per_ms_cap, UID11_CAP_MAX);
    uint32_t known = TOID_GEN_UNLOCKED | TOID_GEN_SHARED | TOID_GEN_PER_THREAD;
    if (in->flags & ~known)
        return refuse(why, why_size, "flags: 0x%x are not flags", (unsigned)(in->flags & ~known));
    if ((in->flags & TOID_GEN_UNLOCKED) && (in->flags & TOID_GEN_SHARED))
        return refuse(why, why_size, "flags: TOID_GEN_UNLOCKED and TOID_GEN_SHARED exclude each other");
    if (use == TOID_FOR_GEN_INIT && (in->flags & TOID_GEN_PER_THREAD))
        return refuse(why, why_size, "flags: TOID_GEN_PER_THREAD is for toid_configure (the process-wide generator)");
    if (use == TOID_FOR_CONFIGURE && (in->flags & (TOID_GEN_UNLOCKED | TOID_GEN_SHARED)))
        return refuse(why, why_size,
                      "flags: TOID_GEN_UNLOCKED and TOID_GEN_SHARED are for a generator of your own (toid_gen_init)");
    if (use == TOID_FOR_CONFIGURE && (in->flags & TOID_GEN_PER_THREAD) && !fmt->per_thread_ok)
        return refuse(why, why_size,
                      "flags: TOID_GEN_PER_THREAD is for the formats whose random bits keep separate "
                      "generators apart; %s's generators would repeat each other's IDs",
                      name);
    return 0;
}

int toid_gen_config_explain(const toid_gen_config *cfg, toid_config_use use, char *why, size_t why_size) {
    toid_gen_config out;
    int64_t epoch;
    if (use != TOID_FOR_GEN_INIT && use != TOID_FOR_CONFIGURE)
        return refuse(why, why_size, "use: %d is neither TOID_FOR_GEN_INIT nor TOID_FOR_CONFIGURE", (int)use);
    return toid__resolve_config(cfg, use, &out, &epoch, why, why_size);
}
