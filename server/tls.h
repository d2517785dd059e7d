/* tls.h — TLS for toidd's --http-tls and --resp-tls listeners (OpenSSL):
 * one server context, made from the certificate files at start and again on
 * SIGHUP, and a connection's reads and writes through it.
 *
 * The context: TLS 1.2 and 1.3 only, no renegotiation, OpenSSL's default
 * ciphers at the system's security level; with --tls-ca, a client must show
 * a certificate that CA signed (mutual TLS). A reload swaps the context for
 * new connections only: an open connection keeps the context it began with
 * (OpenSSL counts the references), so none is dropped. */
#ifndef TOIDD_TLS_H
#define TOIDD_TLS_H

#include <stddef.h>
#include <sys/types.h>

#include "config.h"

typedef struct ssl_st SSL;

/* Loads c's --tls-cert, --tls-key and --tls-ca into the context. 0, or -1
 * (logged: which file, and OpenSSL's reason). Called once, before the
 * workers start; a no-op returning 0 when c has no TLS listener. */
int tls_init(const server_config *c);

/* SIGHUP: a new context from the same files. On success new connections
 * use it (logged with the certificate's subject and expiry); on failure
 * the current one stays (logged) and -1 is returned. */
int tls_reload(void);

/* Whether tls_init made a context (some listener speaks TLS). */
int tls_enabled(void);

/* A server-side session on the accepted socket fd, from the current
 * context, or NULL (out of memory; logged). */
SSL *tls_session_new(int fd);
void tls_session_free(SSL *s);

/* The results of tls_read and tls_write besides a byte count: */
enum {
    TLS_AGAIN = -1,        /* nothing now: wait for the event tls_wants names */
    TLS_FAILED = -2,       /* a protocol error or a failed handshake: close */
    TLS_CLOSED = -3,       /* the socket failed, or closed without close_notify */
};
/* What the last TLS_AGAIN waits for: the socket readable or writable. */
enum { TLS_WANTS_READ = 1, TLS_WANTS_WRITE = 2 };

/* Reads at most n decrypted bytes (driving the handshake first). Returns
 * a count > 0, 0 at the peer's close_notify, or one of the codes above;
 * *wants is set on TLS_AGAIN. On TLS_FAILED, why (if given) holds a short
 * reason for the log ("handshake: certificate verify failed"). */
ssize_t tls_read(SSL *s, void *buf, size_t n, int *wants, char *why, size_t why_len);
/* Writes up to n bytes (partial writes allowed; the buffer may move between
 * a TLS_AGAIN and the retry, which must offer at least the same bytes). */
ssize_t tls_write(SSL *s, const void *buf, size_t n, int *wants);
/* Whether s holds bytes already read from the socket but not yet returned
 * (no socket event will announce them). */
int tls_has_buffered(SSL *s);
/* Whether the handshake is done. */
int tls_handshake_done(SSL *s);
/* Sends close_notify, without waiting for the peer's (best effort). */
void tls_close_notify(SSL *s);

/* The first byte of every TLS connection (a handshake record): a connection
 * that starts with another byte speaks plain text to a TLS port. */
enum { TLS_RECORD_HANDSHAKE = 0x16 };

#endif
