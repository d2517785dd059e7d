/* metrics.c — Prometheus text format (version 0.0.4). */
#include "metrics.h"

#include <inttypes.h>

#include "claims.h"

metrics g_metrics;

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

static const char *const proto_names[PROTO_COUNT] = {"http", "resp"};
static const char *const drop_names[DROP_COUNT] = {"idle", "request_timeout", "write_timeout",
                                                   "output_limit", "drain"};

static int per_format(sbuf *o, const char *name, const char *help, _Atomic uint64_t *v) {
    int rc = sbuf_printf(o, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (int f = 0; f < TOID_FORMAT_COUNT; f++)
        if (toid_format_get((toid_format)f)->generates)     /* not the read-only variants */
            rc |= sbuf_printf(o, "%s{format=\"%s\"} %" PRIu64 "\n", name,
                          toid_format_get((toid_format)f)->name, LOAD(v[f]));
    return rc;
}

/* A counter with one series per protocol. */
static int per_proto(sbuf *o, const char *name, const char *help, _Atomic uint64_t *v) {
    int rc = sbuf_printf(o, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (int p = 0; p < PROTO_COUNT; p++)
        rc |= sbuf_printf(o, "%s{protocol=\"%s\"} %" PRIu64 "\n", name, proto_names[p], LOAD(v[p]));
    return rc;
}

int metrics_render(sbuf *o) {
    metrics *m = &g_metrics;
    int rc = 0;
    rc |= per_format(o, "toidd_ids_issued_total", "IDs issued.", m->issued);
    rc |= per_format(o, "toidd_clock_regressions_total",
                     "Requests whose IDs were made while the clock was behind the last ID.", m->regressions);
    rc |= per_format(o, "toidd_clock_waits_total",
                     "Requests that waited for the clock (next ms, or a regression).", m->waits);
    rc |= per_format(o, "toidd_generate_errors_total", "Requests for IDs that failed.",
                     m->gen_errors);
    rc |= sbuf_str(o, "# HELP toidd_http_responses_total HTTP responses by status.\n"
                      "# TYPE toidd_http_responses_total counter\n");
    for (int s = 100; s < 600; s++) {
        uint64_t v = LOAD(m->http_status[s]);
        if (v || s == 200)
            rc |= sbuf_printf(o, "toidd_http_responses_total{status=\"%d\"} %" PRIu64 "\n", s, v);
    }
    rc |= sbuf_printf(o, "# HELP toidd_resp_replies_total RESP replies by result.\n"
                         "# TYPE toidd_resp_replies_total counter\n"
                         "toidd_resp_replies_total{result=\"ok\"} %" PRIu64 "\n"
                         "toidd_resp_replies_total{result=\"error\"} %" PRIu64 "\n",
                      LOAD(m->resp_ok), LOAD(m->resp_err));
    rc |= sbuf_str(o, "# HELP toidd_connections_open Open client connections.\n"
                      "# TYPE toidd_connections_open gauge\n");
    for (int p = 0; p < PROTO_COUNT; p++)
        rc |= sbuf_printf(o, "toidd_connections_open{protocol=\"%s\"} %" PRId64 "\n",
                          proto_names[p], LOAD(m->open[p]));
    rc |= per_proto(o, "toidd_connections_accepted_total", "Connections accepted.", m->accepted);
    rc |= per_proto(o, "toidd_connections_refused_total", "Connections refused (limit).", m->refused);
    rc |= sbuf_str(o, "# HELP toidd_connections_dropped_total Connections closed by the server.\n"
                      "# TYPE toidd_connections_dropped_total counter\n");
    for (int d = 0; d < DROP_COUNT; d++)
        rc |= sbuf_printf(o, "toidd_connections_dropped_total{reason=\"%s\"} %" PRIu64 "\n",
                          drop_names[d], LOAD(m->dropped[d]));
    rc |= per_proto(o, "toidd_tls_errors_total",
                    "TLS connections ended by a TLS error (a failed handshake: no certificate, a "
                    "bad one, no common version).", m->tls_failed);
    rc |= per_proto(o, "toidd_tls_plaintext_refused_total", "Plain-text clients on a TLS port.",
                    m->tls_plaintext);
    rc |= sbuf_printf(o, "# HELP toidd_tls_reloads_total TLS file reloads (SIGHUP) by result.\n"
                         "# TYPE toidd_tls_reloads_total counter\n"
                         "toidd_tls_reloads_total{result=\"ok\"} %" PRIu64 "\n"
                         "toidd_tls_reloads_total{result=\"error\"} %" PRIu64 "\n",
                      LOAD(m->tls_reloads[1]), LOAD(m->tls_reloads[0]));
    rc |= claims_metrics(o);
    return rc ? -1 : 0;
}
