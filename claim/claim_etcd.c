/* claim_etcd.c — the etcd backend (work in progress). */
#include "claim_internal.h"

static int etcd_open(toid_claimer *c, const char *arg, char *err, size_t err_size) {
    (void)c;
    (void)arg;
    claim_err(err, err_size, "the etcd claim backend is not finished yet");
    return TOID_EINVAL;
}

static void etcd_close(toid_claimer *c) { (void)c; }

const claim_backend claim_backend_etcd = {.kind = "etcd", .open = etcd_open, .close = etcd_close};
