/* metrics.h — process-wide counters for /metrics (relaxed atomics). */
#ifndef TOIDD_METRICS_H
#define TOIDD_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "toid.h"
#include "util.h"

enum { PROTO_HTTP = 0, PROTO_RESP = 1, PROTO_COUNT = 2 };
enum { DROP_IDLE, DROP_REQUEST_TIMEOUT, DROP_WRITE_TIMEOUT, DROP_OUTPUT_LIMIT, DROP_DRAIN, DROP_COUNT };

typedef struct metrics {
    _Atomic uint64_t issued[TOID_FORMAT_COUNT];
    _Atomic uint64_t regressions[TOID_FORMAT_COUNT];  /* clock behind the last ID */
    _Atomic uint64_t waits[TOID_FORMAT_COUNT];        /* waited for the clock */
    _Atomic uint64_t gen_errors[TOID_FORMAT_COUNT];
    _Atomic uint64_t http_status[600];                /* responses by status */
    _Atomic uint64_t resp_ok, resp_err;
    _Atomic int64_t open[PROTO_COUNT];
    _Atomic uint64_t accepted[PROTO_COUNT], refused[PROTO_COUNT];
    _Atomic uint64_t dropped[DROP_COUNT];
    _Atomic uint64_t tls_failed[PROTO_COUNT];     /* TLS errors: failed handshakes mostly */
    _Atomic uint64_t tls_plaintext[PROTO_COUNT];  /* plain-text clients on a TLS port */
    _Atomic uint64_t tls_reloads[2];              /* SIGHUP reloads: [0] failed, [1] done */
} metrics;

extern metrics g_metrics;

#define METRIC_ADD(field, n) atomic_fetch_add_explicit(&g_metrics.field, (n), memory_order_relaxed)

/* The Prometheus text exposition of every counter. */
int metrics_render(sbuf *out);

#endif
