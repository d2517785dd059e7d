/* main.c — toidd: start (config, state, listeners, workers), then wait for
 * SIGTERM/SIGINT: drain, persist, exit 0; a second signal exits at once.
 * SIGHUP: the TLS files read again (without TLS: logged and ignored). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "handlers.h"
#include "ids.h"
#include "listen.h"
#include "metrics.h"
#include "tls.h"
#include "util.h"
#include "worker.h"

static server_config cfg;

/* systemd's readiness protocol (Type=notify) without libsystemd: a datagram
 * to $NOTIFY_SOCKET (a path, or '@' for the abstract namespace). */
static void notify_systemd(const char *msg) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || (path[0] != '/' && path[0] != '@'))
        return;
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len >= sizeof sun.sun_path)
        return;
    memcpy(sun.sun_path, path, len);
    if (sun.sun_path[0] == '@')
        sun.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sun,
               (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
        log_warn("cannot notify systemd: %s", strerror(errno));
    close(fd);
}

/* SIGHUP reloads the TLS files only (a renewed certificate must not need a
 * restart, which would close every connection): every other setting is read
 * at start, and a restart is cheap and never repeats an ID (the state
 * directory sees to that). Not exiting on it also keeps a server started
 * from a terminal alive when that closes. */
static void on_hup(void) {
    if (tls_enabled())
        tls_reload();
    else
        log_info("SIGHUP: ignored (settings are read at start only; restart toidd to change them)");
}

/* A stop signal that repeats the first one rather than asking to hurry:
 * the same signal from the same sending process within 200 ms.
 * timeout(1) sends SIGTERM to its child and then to its whole process group,
 * child included; systemd and kill(1) send it once. Signals from the
 * terminal (Ctrl-C twice: si_pid 0) are never echoes. */
static int is_echo(const siginfo_t *first, int64_t first_ms, const siginfo_t *now) {
    return now->si_signo == first->si_signo && now->si_code == SI_USER &&
           first->si_code == SI_USER && now->si_pid == first->si_pid && now->si_pid != 0 &&
           mono_ms() - first_ms < 200;
}

/* The listening sockets: one per address, shared by the workers (-1: none). */
typedef struct listeners {
    int http_tcp, resp_tcp, http_unix, resp_unix, http_tls, resp_tls;
    int http_port, resp_port, http_tls_port, resp_tls_port;   /* the TCP ports bound */
} listeners;

/* The listeners first: a bad or busy address is a usage error (exit 2)
 * found before the state directory is touched (no lock taken, no mark
 * moved ahead). 0, or -1 (said). Logged once the workers are set up. */
static int open_listeners(listeners *L) {
    *L = (listeners){-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    if ((cfg.http_addr[0] && (L->http_tcp = listen_tcp(cfg.http_addr, &L->http_port)) < 0) ||
        (cfg.resp_addr[0] && (L->resp_tcp = listen_tcp(cfg.resp_addr, &L->resp_port)) < 0) ||
        (cfg.tls_http_addr[0] &&
         (L->http_tls = listen_tcp(cfg.tls_http_addr, &L->http_tls_port)) < 0) ||
        (cfg.tls_resp_addr[0] &&
         (L->resp_tls = listen_tcp(cfg.tls_resp_addr, &L->resp_tls_port)) < 0) ||
        (cfg.http_unix[0] && (L->http_unix = listen_unix(cfg.http_unix)) < 0) ||
        (cfg.resp_unix[0] && (L->resp_unix = listen_unix(cfg.resp_unix)) < 0))
        return -1;   /* (a unix socket made here is left: the next start replaces it) */
    return 0;
}

static void log_listeners(const listeners *L) {
    if (cfg.http_addr[0])
        log_info("listening: http %s (port %d)", cfg.http_addr, L->http_port);
    if (cfg.resp_addr[0])
        log_info("listening: resp %s (port %d)", cfg.resp_addr, L->resp_port);
    if (cfg.tls_http_addr[0])
        log_info("listening: http tls %s (port %d)", cfg.tls_http_addr, L->http_tls_port);
    if (cfg.tls_resp_addr[0])
        log_info("listening: resp tls %s (port %d)", cfg.tls_resp_addr, L->resp_tls_port);
    if (L->http_unix >= 0)
        log_info("listening: http unix %s", cfg.http_unix);
    if (L->resp_unix >= 0)
        log_info("listening: resp unix %s", cfg.resp_unix);
}

static void close_listeners(const listeners *L) {
    if (L->http_tcp >= 0)
        close(L->http_tcp);
    if (L->resp_tcp >= 0)
        close(L->resp_tcp);
    if (L->http_tls >= 0)
        close(L->http_tls);
    if (L->resp_tls >= 0)
        close(L->resp_tls);
    if (L->http_unix >= 0) {
        close(L->http_unix);
        unlink(cfg.http_unix);
    }
    if (L->resp_unix >= 0) {
        close(L->resp_unix);
        unlink(cfg.resp_unix);
    }
}

/* Every worker listens on every socket. */
static void add_listeners(worker *w, const listeners *L) {
    if (L->http_tcp >= 0)
        w->listeners[w->nlisteners++] = (worker_listener){L->http_tcp, PROTO_HTTP, 1, 0};
    if (L->resp_tcp >= 0)
        w->listeners[w->nlisteners++] = (worker_listener){L->resp_tcp, PROTO_RESP, 1, 0};
    if (L->http_tls >= 0)
        w->listeners[w->nlisteners++] = (worker_listener){L->http_tls, PROTO_HTTP, 1, 1};
    if (L->resp_tls >= 0)
        w->listeners[w->nlisteners++] = (worker_listener){L->resp_tls, PROTO_RESP, 1, 1};
    if (L->http_unix >= 0)
        w->listeners[w->nlisteners++] = (worker_listener){L->http_unix, PROTO_HTTP, 0, 0};
    if (L->resp_unix >= 0)
        w->listeners[w->nlisteners++] = (worker_listener){L->resp_unix, PROTO_RESP, 0, 0};
}

/* Waits for the workers to finish draining: SIGHUP as always, the echo of
 * the first signal ignored, any other stop signal (or the workers not done
 * in time) exits at once. */
static void wait_drained(const sigset_t *stop, const siginfo_t *first, int64_t first_ms) {
    int64_t deadline = mono_ms() + (int64_t)cfg.drain_timeout_ms + 2000;
    while (atomic_load(&g_workers_live) > 0) {
        struct timespec ts = {0, 50 * 1000000L};
        siginfo_t si;
        int got = sigtimedwait(stop, &si, &ts);
        if (got == SIGHUP) {
            on_hup();
        } else if (got > 0 && is_echo(first, first_ms, &si)) {
            log_info("%s again from pid %ld: the same request (e.g. timeout(1) signals the "
                     "process and then its group): still draining", got == SIGTERM ? "SIGTERM" : "SIGINT",
                     (long)si.si_pid);
        } else if (got > 0) {
            log_warn("second signal: exiting at once (the persisted state is safe)");
            _exit(1);
        }
        if (mono_ms() > deadline) {
            log_err("the workers did not stop in time: exiting");
            _exit(1);
        }
    }
}

/* A warning when the descriptor limit leaves no room for --max-connections. */
static void check_fd_limit(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (rlim_t)cfg.max_connections + 64 + 4 * cfg.threads)
        log_warn("the file descriptor limit (%llu) is below --max-connections (%u) plus room "
                 "for listeners and state; raise it (ulimit -n, LimitNOFILE=)",
                 (unsigned long long)rl.rlim_cur, cfg.max_connections);
}

int main(int argc, char **argv) {
    int rc = config_parse(argc, argv, &cfg);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    signal(SIGPIPE, SIG_IGN);
    check_fd_limit();
    /* The workers inherit a mask without the stop signals; main waits for them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGHUP);   /* taken here too: TLS reload (on_hup) */
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    listeners L;
    if (open_listeners(&L) < 0 || tls_init(&cfg) < 0)
        return 2;   /* (before the state directory is touched) */
    if (cfg.no_state)
        log_warn("running without --state-dir: IDs may repeat across restarts and instances");
    if (ids_init(&cfg) < 0) {
        ids_shutdown(0);
        return 1;
    }

    unsigned nw = cfg.threads;
    worker *workers = calloc(nw, sizeof *workers);
    int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (!workers || wake < 0) {
        log_err("cannot start: %s", strerror(errno));
        return 1;
    }
    for (unsigned i = 0; i < nw; i++) {
        workers[i].id = (int)i;
        workers[i].cfg = &cfg;
        workers[i].wake_fd = wake;
        add_listeners(&workers[i], &L);
    }
    log_listeners(&L);
    resp_sessions_init(L.resp_port > 0 ? L.resp_port : L.resp_tls_port > 0 ? L.resp_tls_port : 0);
    atomic_store(&g_workers_live, (int)nw);
    for (unsigned i = 0; i < nw; i++) {
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
            log_err("cannot start worker thread %u", i);
            _exit(1);
        }
    }
    log_info("toidd %s started: %u worker threads, pid %ld", TOID_VERSION_STRING, nw,
             (long)getpid());
    notify_systemd("READY=1\nSTATUS=serving");

    /* Wait for the first stop signal. */
    siginfo_t first;
    int sig;
    while ((sig = sigwaitinfo(&stop, &first)) < 0 || sig == SIGHUP) {
        if (sig == SIGHUP)
            on_hup();
    }
    int64_t first_ms = mono_ms();
    log_info("%s: draining (at most %u ms; a second signal exits at once)",
             sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg.drain_timeout_ms);
    notify_systemd("STOPPING=1\nSTATUS=draining");
    atomic_store(&g_draining, 1);
    /* New connections are refused from now on (shutdown, not close: the
     * workers may still hold the fd in their epoll sets until they see the
     * wake-up; it is closed after they are done). */
    if (L.http_tcp >= 0)
        shutdown(L.http_tcp, SHUT_RDWR);
    if (L.resp_tcp >= 0)
        shutdown(L.resp_tcp, SHUT_RDWR);
    if (L.http_tls >= 0)
        shutdown(L.http_tls, SHUT_RDWR);
    if (L.resp_tls >= 0)
        shutdown(L.resp_tls, SHUT_RDWR);
    uint64_t one = 1;
    ssize_t wr = write(wake, &one, sizeof one);
    (void)wr;
    wait_drained(&stop, &first, first_ms);
    for (unsigned i = 0; i < nw; i++)
        pthread_join(workers[i].thread, NULL);
    /* No ID can be issued any more. */
    ids_shutdown(1);
    close_listeners(&L);
    close(wake);
    free(workers);
    log_info("stopped");
    return 0;
}
