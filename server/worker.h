/* worker.h — one epoll event loop per thread. */
#ifndef TOIDD_WORKER_H
#define TOIDD_WORKER_H

#include <pthread.h>
#include <stdatomic.h>

#include "config.h"

#define WORKER_MAX_LISTENERS 6

typedef struct worker_listener {
    int fd;
    int proto;      /* PROTO_HTTP or PROTO_RESP */
    int tcp;        /* TCP or Unix-domain (either way one socket, shared) */
    int tls;        /* TLS (tls.h) on it */
} worker_listener;

typedef struct worker {
    int id;
    const server_config *cfg;
    worker_listener listeners[WORKER_MAX_LISTENERS];
    int nlisteners;
    int wake_fd;    /* eventfd, readable once draining starts */
    pthread_t thread;
} worker;

/* Set (then wake_fd signalled) to drain: stop accepting, finish responses. */
extern atomic_int g_draining;
/* Workers still running. */
extern atomic_int g_workers_live;

/* The thread function; arg is a worker. */
void *worker_main(void *arg);

#endif
