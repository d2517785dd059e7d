/* listen.h — listening sockets: TCP (SO_REUSEPORT, one per worker) and
 * Unix-domain (one, shared by the workers). */
#ifndef TOIDD_LISTEN_H
#define TOIDD_LISTEN_H

/* A non-blocking TCP listener on addr ("127.0.0.1:8080", "[::1]:0").
 * If *port >= 0, that port is used instead of addr's (the workers after the
 * first bind the port the first one got); on return *port is the bound
 * port. Returns the fd or -1 (logged). */
int listen_tcp(const char *addr, int *port);

/* A non-blocking listener on a Unix-domain socket path (a stale socket file
 * is replaced; any other file is an error). Returns the fd or -1 (logged). */
int listen_unix(const char *path);

#endif
