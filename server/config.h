/* config.h — toidd's settings, from the command line. */
#ifndef TOIDD_CONFIG_H
#define TOIDD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "toid.h"

typedef struct server_config {
    char http_addr[128];        /* "127.0.0.1:8080"; "" = off */
    char resp_addr[128];
    char http_unix[108];        /* unix socket paths; "" = none */
    char resp_unix[108];
    char tls_http_addr[128];    /* --http-tls, --resp-tls: TLS listeners; "" = none */
    char tls_resp_addr[128];
    char tls_cert[1024];        /* PEM files, read at start and on SIGHUP (tls.c) */
    char tls_key[1024];
    char tls_ca[1024];          /* "" = no client certificate asked for */
    char state_dir[1024];
    int no_state;
    int reset_state;
    unsigned threads;
    unsigned max_connections;
    unsigned max_count;
    unsigned max_head;          /* HTTP request head bytes */
    unsigned idle_timeout_ms;
    unsigned request_timeout_ms;
    unsigned write_timeout_ms;
    unsigned drain_timeout_ms;
    size_t max_output;          /* pending output bytes per connection */
    uint32_t reserve_ms;
    uint32_t clock_wait_max_ms;
    uint32_t mark_wait_max_ms;  /* a request waits at most this for a mark write */
    int enabled[TOID_FORMAT_COUNT];
    toid_gen_config gen[TOID_FORMAT_COUNT];
    /* Node claims (server/claims.c) */
    char claim_spec[2048];      /* --claim: "local", "local=DIR", "etcd=URL,..."; "" = the state dir */
    char claim_prefix[256];     /* --claim-prefix; "" = the library's default */
    uint32_t claim_ttl_ms;      /* --claim-ttl; 0 = the library's default */
    int node_given[TOID_FORMAT_COUNT];   /* --gen F:node=N: that node only */
    int nodes_given[TOID_FORMAT_COUNT];  /* --nodes F:LO-HI */
    uint32_t node_lo[TOID_FORMAT_COUNT], node_hi[TOID_FORMAT_COUNT];  /* resolved range */
    char requirepass[256];      /* RESP AUTH password; "" = none needed */
    char cors[256];             /* Access-Control-Allow-Origin value; "" = none */
} server_config;

/* Fills c from argv. Returns 0 to run, 1 to exit 0 (--help, --version),
 * -1 on a usage error (already reported on stderr). */
int config_parse(int argc, char **argv, server_config *c);

/* The unix ms of the format's epoch as configured (the default if unset). */
int64_t config_epoch(const server_config *c, toid_format f);

/* The node that keys the state of f: nanoflake's generator id,
 * ulid-flake-scalable's sid, 0 for the others. */
uint32_t config_node(const server_config *c, toid_format f);

/* Whether f's uniqueness across generators rests on a node id, so that it
 * is claimed from a range (nanoflake, ulid-flake-scalable); its largest node. */
int config_is_node_format(toid_format f);
uint32_t config_node_max(toid_format f);

#endif
