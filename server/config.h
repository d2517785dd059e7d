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
    int enabled[TOID_FORMAT_COUNT];
    toid_gen_config gen[TOID_FORMAT_COUNT];
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

#endif
