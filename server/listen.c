/* listen.c — listening sockets. */
#define _GNU_SOURCE
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util.h"

/* "host:port" or "[v6]:port" into a sockaddr. */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len) {
    char host[64];
    const char *colon;
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close[1] != ':' || (size_t)(close - addr - 1) >= sizeof host)
            return -1;
        memcpy(host, addr + 1, (size_t)(close - addr - 1));
        host[close - addr - 1] = '\0';
        colon = close + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || (size_t)(colon - addr) >= sizeof host)
            return -1;
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = '\0';
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (errno || *end || colon[1] == '\0' || port < 0 || port > 65535)
        return -1;
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        *len = sizeof *a4;
    } else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *len = sizeof *a6;
    } else {
        return -1;
    }
    return 0;
}

int listen_addr_valid(const char *addr) {
    struct sockaddr_storage ss;
    socklen_t len;
    return parse_addr(addr, &ss, &len) == 0;
}

int listen_tcp(const char *addr, int *port) {
    struct sockaddr_storage ss;
    socklen_t len;
    if (parse_addr(addr, &ss, &len) < 0) {
        log_err("bad listen address '%s' (want a numeric IP:PORT or [IPv6]:PORT)", addr);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        log_err("socket: %s", strerror(errno));
        return -1;
    }
    /* SO_REUSEADDR only lets a restart bind past the old connections in
     * TIME_WAIT. Deliberately no SO_REUSEPORT: with it, a second toidd of the
     * same user would join this port's group and the kernel would split the
     * clients between two servers with different state directories (the
     * same IDs from both). Without it the second bind fails, as Redis's and
     * nginx's do, and the workers share this one socket (EPOLLEXCLUSIVE). */
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4096) < 0) {
        if (errno == EADDRINUSE)
            log_err("cannot listen on %s: address in use (another server, perhaps another "
                    "toidd, serves it)", addr);
        else
            log_err("cannot listen on %s: %s", addr, strerror(errno));
        close(fd);
        return -1;
    }
    struct sockaddr_storage got;
    socklen_t glen = sizeof got;
    if (getsockname(fd, (struct sockaddr *)&got, &glen) == 0)
        *port = ntohs(got.ss_family == AF_INET ? ((struct sockaddr_in *)&got)->sin_port
                                               : ((struct sockaddr_in6 *)&got)->sin6_port);
    return fd;
}

int listen_unix(const char *path) {
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sun.sun_path) {
        log_err("unix socket path too long: %s", path);
        return -1;
    }
    memcpy(sun.sun_path, path, strlen(path) + 1);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            log_err("%s exists and is not a socket: refusing to replace it", path);
            return -1;
        }
        /* A socket someone still accepts on is served: replacing it would
         * leave two servers (the old one unreachable by path, still alive). */
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int served = probe >= 0 && connect(probe, (struct sockaddr *)&sun, sizeof sun) == 0;
        if (probe >= 0)
            close(probe);
        if (served) {
            log_err("cannot listen on %s: address in use (a server accepts there)", path);
            return -1;
        }
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        log_err("socket: %s", strerror(errno));
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0 || listen(fd, 4096) < 0) {
        log_err("cannot listen on %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}
