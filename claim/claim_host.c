/* claim_host.c — the host's claim configuration (toid_claim_host_config in
 * toid_claim.h): one place per host that says where every front end claims
 * its nodes, so that setting etcd once (or one shared directory) makes the
 * CLI, toidd and the others on that host claim from it, and a deployment
 * gives each pod the same environment instead of a node of its own.
 * The environment first (TOID_CLAIM, TOID_CLAIM_PREFIX, TOID_CLAIM_TTL),
 * then the file (TOID_CLAIM_CONF, else /etc/toid/claim.conf). */
#define _POSIX_C_SOURCE 200809L
#include "claim_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CONF "/etc/toid/claim.conf"
#define TTL_MAX_S 3600

/* Copies a value that must fit, or says it does not. */
static int set_text(char *dst, size_t size, const char *value, const char *source, char *err, size_t err_size) {
    if (strlen(value) >= size) {
        claim_err(err, err_size, "%s: the value is longer than %zu bytes", source, size - 1);
        return TOID_EINVAL;
    }
    memcpy(dst, value, strlen(value) + 1);
    return 0;
}

/* A TTL in whole seconds, 1..TTL_MAX_S, into *ms. */
static int set_ttl(uint32_t *ms, const char *value, const char *source, char *err, size_t err_size) {
    char *end;
    errno = 0;
    unsigned long s = strtoul(value, &end, 10);
    if (!*value || *value == '-' || *value == '+' || *end || errno || s < 1 || s > TTL_MAX_S) {
        claim_err(err, err_size, "%s: '%s' is not a TTL (whole seconds, 1 to %d)", source, value, TTL_MAX_S);
        return TOID_EINVAL;
    }
    *ms = (uint32_t)s * 1000;
    return 0;
}

/* One setting from `source`: key claim, prefix or ttl. A setting already
 * given (by the environment) is kept. */
static int apply(toid_claim_host *h, int *given, const char *key, const char *value, const char *source,
                 char *err, size_t err_size) {
    if (strcmp(key, "claim") == 0) {
        if (given[0]++)
            return 0;
        char why[400] = "";
        if (toid_claim_backend_of(value, NULL, why, sizeof why) < 0) {
            claim_err(err, err_size, "%s: %s", source, why);
            return TOID_EINVAL;
        }
        if (set_text(h->spec, sizeof h->spec, value, source, err, err_size) < 0)
            return TOID_EINVAL;
        return set_text(h->source, sizeof h->source, source, source, err, err_size);
    }
    if (strcmp(key, "prefix") == 0)
        return given[1]++ ? 0 : set_text(h->prefix, sizeof h->prefix, value, source, err, err_size);
    if (strcmp(key, "ttl") == 0)
        return given[2]++ ? 0 : set_ttl(&h->ttl_ms, value, source, err, err_size);
    claim_err(err, err_size, "%s: unknown setting '%s' (claim, prefix or ttl)", source, key);
    return TOID_EINVAL;
}

/* Blanks at both ends of s, in place. */
static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* The file's settings not given already. A file that does not exist gives
 * none; one that exists and cannot be read is an error (it says something). */
static int read_file(toid_claim_host *h, int *given, const char *path, char *err, size_t err_size) {
    FILE *fp = fopen(path, "re");
    if (!fp) {
        if (errno == ENOENT)
            return 0;
        claim_err(err, err_size, "%s: %s", path, strerror(errno));
        return TOID_EINVAL;
    }
    char line[2048], source[300];
    int rc = 0;
    for (unsigned no = 1; rc == 0 && fgets(line, sizeof line, fp); no++) {
        snprintf(source, sizeof source, "%s:%u", path, no);
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            claim_err(err, err_size, "%s: expected 'key = value'", source);
            rc = TOID_EINVAL;
            break;
        }
        *eq = '\0';
        rc = apply(h, given, trim(s), trim(eq + 1), source, err, err_size);
    }
    if (rc == 0 && ferror(fp)) {     /* a read error is not the end of the file */
        claim_err(err, err_size, "%s: %s", path, strerror(errno));
        rc = TOID_EINVAL;
    }
    fclose(fp);
    return rc;
}

const char *claim_host_conf_path(void) {
    const char *path = getenv("TOID_CLAIM_CONF");
    return path && *path ? path : DEFAULT_CONF;
}

int toid_claim_host_config(toid_claim_host *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    int given[3] = {0, 0, 0};   /* claim, prefix, ttl */
    static const char *const vars[3][2] = {
        {"TOID_CLAIM", "claim"}, {"TOID_CLAIM_PREFIX", "prefix"}, {"TOID_CLAIM_TTL", "ttl"}};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i][0]);
        if (v && *v && apply(out, given, vars[i][1], v, vars[i][0], err, err_size) < 0)
            return TOID_EINVAL;
    }
    return read_file(out, given, claim_host_conf_path(), err, err_size);
}
