/* listen.h — listening sockets, one per address, shared by the workers
 * (EPOLLEXCLUSIVE); bound exclusively, so that a second server on the same
 * address fails to start instead of splitting the clients with this one. */
#ifndef TOIDD_LISTEN_H
#define TOIDD_LISTEN_H

/* 1 if addr is a listen address listen_tcp takes ("127.0.0.1:8080",
 * "[::1]:0"), else 0. */
int listen_addr_valid(const char *addr);

/* A non-blocking TCP listener on addr ("127.0.0.1:8080", "[::1]:0"), without
 * SO_REUSEPORT: an address in use is an error ("address in use"). On return
 * *port is the bound port. Returns the fd or -1 (logged). */
int listen_tcp(const char *addr, int *port);

/* A non-blocking listener on a Unix-domain socket path (a stale socket file
 * is replaced; a socket a server still accepts on, or any other file, is an
 * error). Returns the fd or -1 (logged). */
int listen_unix(const char *path);

#endif
