/* tls.c — the TLS context and a connection's TLS reads and writes. */
#define _GNU_SOURCE
#include "tls.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "metrics.h"
#include "util.h"

static const server_config *g_cfg;
static SSL_CTX *g_ctx;   /* the context new connections take; NULL: no TLS */
/* Held while a worker takes a reference to g_ctx (SSL_new) and while a
 * reload swaps it: the old context is freed only after the swap, and each
 * connection's reference keeps it alive as long as that connection. */
static pthread_mutex_t g_ctx_lock = PTHREAD_MUTEX_INITIALIZER;

/* OpenSSL's reason for the last failure on this thread (its queue emptied). */
static void ssl_reason(char *buf, size_t n) {
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    snprintf(buf, n, "%s", r ? r : (e ? "unknown OpenSSL error" : strerror(errno)));
    ERR_clear_error();
}

/* An encrypted key would make OpenSSL ask for a passphrase on the terminal:
 * refused instead (a service has nobody to type it). */
static int no_passphrase(char *buf, int size, int rwflag, void *u) {
    (void)buf, (void)size, (void)rwflag, (void)u;
    return 0;
}

/* "subject CN=..., expires Jan  1 00:00:00 2030 GMT" of ctx's certificate. */
static void describe_cert(SSL_CTX *ctx, char *out, size_t n) {
    X509 *x = SSL_CTX_get0_certificate(ctx);
    char subject[256] = "?", expiry[64] = "?";
    if (x) {
        X509_NAME_oneline(X509_get_subject_name(x), subject, sizeof subject);
        BIO *b = BIO_new(BIO_s_mem());
        if (b && ASN1_TIME_print(b, X509_get0_notAfter(x)) > 0) {
            int len = BIO_read(b, expiry, (int)sizeof expiry - 1);
            expiry[len > 0 ? len : 0] = '\0';
        }
        BIO_free(b);
    }
    snprintf(out, n, "subject %s, expires %s", subject, expiry);
}

/* A context from the configured files, or NULL with the reason in err. */
static SSL_CTX *ctx_build(char *err, size_t n) {
    const server_config *c = g_cfg;
    char why[200];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        ssl_reason(why, sizeof why);
        snprintf(err, n, "cannot make a TLS context: %s", why);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* No renegotiation (a client could make the server redo handshakes);
     * a peer that closes the TCP connection without close_notify, as
     * redis-cli and many HTTP clients do, ends the connection like a plain
     * EOF: every request toidd acts on is complete, so nothing is truncated. */
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* The output buffer grows and compacts between a write that could not
     * finish and its retry. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* One read(2) takes what the socket holds, not a record header and then
     * its body (two system calls a request); what it takes beyond the
     * record is returned by the next SSL_read, which the worker makes
     * without waiting for an event (tls_has_buffered). */
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
    static const unsigned char sid_ctx[] = "toidd";
    SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof sid_ctx - 1);
    const char *file = c->tls_cert;
    if (SSL_CTX_use_certificate_chain_file(ctx, c->tls_cert) != 1)
        goto fail;
    file = c->tls_key;
    if (SSL_CTX_use_PrivateKey_file(ctx, c->tls_key, SSL_FILETYPE_PEM) != 1)
        goto fail;
    if (SSL_CTX_check_private_key(ctx) != 1)
        goto fail;
    if (c->tls_ca[0]) {
        file = c->tls_ca;
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(c->tls_ca);
        if (!names || SSL_CTX_load_verify_locations(ctx, c->tls_ca, NULL) != 1) {
            sk_X509_NAME_pop_free(names, X509_NAME_free);
            goto fail;
        }
        SSL_CTX_set_client_CA_list(ctx, names);   /* (taken over by ctx) */
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    return ctx;
fail:
    if (file == c->tls_key &&
        ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
        snprintf(err, n, "--tls-key %s is not the key of --tls-cert %s", c->tls_key, c->tls_cert);
        ERR_clear_error();
        SSL_CTX_free(ctx);
        return NULL;
    }
    ssl_reason(why, sizeof why);
    snprintf(err, n, "%s: %s", file, why);
    SSL_CTX_free(ctx);
    return NULL;
}

int tls_init(const server_config *c) {
    if (!c->tls_http_addr[0] && !c->tls_resp_addr[0])
        return 0;
    g_cfg = c;
    char err[2600], desc[400];
    if (!(g_ctx = ctx_build(err, sizeof err))) {
        log_err("TLS: %s", err);
        return -1;
    }
    describe_cert(g_ctx, desc, sizeof desc);
    log_info("TLS: certificate %s%s", desc, c->tls_ca[0] ? "; client certificates required" : "");
    return 0;
}

int tls_enabled(void) {
    return g_ctx != NULL;
}

int tls_reload(void) {
    if (!g_ctx)
        return 0;
    char err[2600], desc[400];
    SSL_CTX *fresh = ctx_build(err, sizeof err);
    if (!fresh) {
        log_err("SIGHUP: TLS files not reloaded, the current ones stay: %s", err);
        METRIC_ADD(tls_reloads[0], 1);
        return -1;
    }
    pthread_mutex_lock(&g_ctx_lock);
    SSL_CTX *old = g_ctx;
    g_ctx = fresh;
    pthread_mutex_unlock(&g_ctx_lock);
    SSL_CTX_free(old);   /* (the connections that use it hold their own reference) */
    METRIC_ADD(tls_reloads[1], 1);
    describe_cert(fresh, desc, sizeof desc);
    log_info("SIGHUP: TLS files reloaded: certificate %s (for new connections)", desc);
    return 0;
}

SSL *tls_session_new(int fd) {
    pthread_mutex_lock(&g_ctx_lock);
    SSL *s = SSL_new(g_ctx);
    pthread_mutex_unlock(&g_ctx_lock);
    if (!s || SSL_set_fd(s, fd) != 1) {
        log_err("out of memory for a TLS connection");
        SSL_free(s);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_accept_state(s);
    return s;
}

void tls_session_free(SSL *s) {
    SSL_free(s);
}

/* SSL_read's or SSL_write's result r as a count or a code. */
static ssize_t result(SSL *s, int r, int *wants, char *why, size_t why_len) {
    if (r > 0)
        return r;
    int saved = errno;
    switch (SSL_get_error(s, r)) {
    case SSL_ERROR_WANT_READ:
        *wants = TLS_WANTS_READ;
        return TLS_AGAIN;
    case SSL_ERROR_WANT_WRITE:
        *wants = TLS_WANTS_WRITE;
        return TLS_AGAIN;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SSL:
        if (why) {
            char r2[160];
            ssl_reason(r2, sizeof r2);
            snprintf(why, why_len, "%s%s", SSL_is_init_finished(s) ? "" : "handshake: ", r2);
        }
        ERR_clear_error();
        return TLS_FAILED;
    default:   /* SSL_ERROR_SYSCALL: the socket failed (reset, or EOF mid-record) */
        ERR_clear_error();
        errno = saved;
        return TLS_CLOSED;
    }
}

ssize_t tls_read(SSL *s, void *buf, size_t n, int *wants, char *why, size_t why_len) {
    ERR_clear_error();
    return result(s, SSL_read(s, buf, n > INT_MAX ? INT_MAX : (int)n), wants, why, why_len);
}

ssize_t tls_write(SSL *s, const void *buf, size_t n, int *wants) {
    ERR_clear_error();
    return result(s, SSL_write(s, buf, n > INT_MAX ? INT_MAX : (int)n), wants, NULL, 0);
}

int tls_has_buffered(SSL *s) {
    return SSL_has_pending(s);
}

int tls_handshake_done(SSL *s) {
    return SSL_is_init_finished(s);
}

void tls_close_notify(SSL *s) {
    if (!SSL_is_init_finished(s))
        return;
    ERR_clear_error();
    SSL_shutdown(s);
    ERR_clear_error();
}
