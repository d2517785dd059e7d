/* claim_etcd_test.c — the etcd part of test_claim (work in progress). */
#include "test_claim.h"

int claim_etcd_tests(const char *etcd_binary, const char *base) {
    (void)etcd_binary;
    (void)base;
    return 77;
}
