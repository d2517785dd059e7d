/* test_vectors.c — every line of ../shared/vectors/<format>.tsv, through the
 * public API. The directory is the parameter; a missing file is a failure, so the
 * test never passes on no vectors. */
#include "check.h"
#include "toid.h"

#include <stdlib.h>

/* Undo the vectors' escapes (\xHH, \\) in place; returns the byte length. */
static size_t unescape(char *s) {
    size_t o = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '\\' && s[i + 1] == '\\') {
            s[o++] = '\\';
            i++;
        } else if (s[i] == '\\' && s[i + 1] == 'x' && s[i + 2] && s[i + 3]) {
            char hex[3] = {s[i + 2], s[i + 3], 0};
            s[o++] = (char)strtol(hex, NULL, 16);
            i += 3;
        } else {
            s[o++] = s[i];
        }
    }
    s[o] = '\0';
    return o;
}

/* Splits "k=v k=v" into pairs (in place). */
static int split_pairs(char *s, char **keys, char **vals, int max) {
    int n = 0;
    for (char *tok = strtok(s, " "); tok && n < max; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        keys[n] = tok;
        vals[n] = eq + 1;
        n++;
    }
    return n;
}

static const char *where_file;
static int where_line;
#define FAILV(...) do { check_failed++; fprintf(stderr, "%s:%d: ", where_file, where_line); \
        fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)
#define PASSV() check_passed++

static void expect_error(int rc, const char *expected) {
    const char *cls = expected + 4;     /* after "err " */
    if (rc >= 0)
        FAILV("expected err %s, got success", cls);
    else if (strcmp(toid_err_name(rc), cls) != 0)
        FAILV("expected err %s, got err %s", cls, toid_err_name(rc));
    else
        PASSV();
}

static void run_decode(toid_format f, char *text, char *expected) {
    size_t len = unescape(text);
    uint8_t bin[TOID_BIN_MAX];
    size_t pos = (size_t)-1;
    int rc = toid_decode(f, text, len, bin, &pos);
    if (strncmp(expected, "err ", 4) == 0) {
        expect_error(rc, expected);
        if (rc == TOID_ECHAR && pos >= len)
            FAILV("char error without a position inside the text (%zu)", pos);
        return;
    }
    if (rc < 0) {
        FAILV("decode failed: %s", toid_strerror(rc));
        return;
    }
    toid_field fl[TOID_FIELDS_MAX];
    int n = toid_describe(f, bin, TOID_EPOCH_DEFAULT, fl);
    char *keys[16], *vals[16];
    int m = split_pairs(expected + 3, keys, vals, 16);   /* after "ok " */
    int has_text = 0;
    for (int i = 0; i < m; i++) {
        int found = 0;
        has_text |= strcmp(keys[i], "text") == 0;
        for (int j = 0; j < n; j++)
            if (strcmp(fl[j].name, keys[i]) == 0) {
                found = 1;
                if (strcmp(fl[j].value, vals[i]) != 0)
                    FAILV("%s: got %s, want %s", keys[i], fl[j].value, vals[i]);
                else
                    PASSV();
            }
        if (!found)
            FAILV("field %s not reported", keys[i]);
    }
    /* "An ok line lists every field the format reports." */
    for (int j = 0; j < n; j++) {
        if (fl[j].id == TOID_FIELD_FORMAT || fl[j].id == TOID_FIELD_TEXT || fl[j].id == TOID_FIELD_TIME)
            continue;
        int listed = 0;
        for (int i = 0; i < m; i++)
            listed |= strcmp(keys[i], fl[j].name) == 0;
        if (!listed)
            FAILV("reports %s, which the vector does not list", fl[j].name);
    }
    if (!has_text) {                 /* the input is the canonical text */
        char out[TOID_TEXT_MAX];
        toid_encode(f, bin, out, sizeof out);
        if (strlen(out) != len || memcmp(out, text, len) != 0)
            FAILV("canonical text %s differs from the input", out);
        else
            PASSV();
    }
}

static void run_encode(toid_format f, char *input, char *expected) {
    toid_fields in;
    memset(&in, 0, sizeof in);
    char *keys[16], *vals[16];
    int m = split_pairs(input, keys, vals, 16);
    int rc = m < 0 ? TOID_EINVAL : 0;
    for (int i = 0; i < m && rc == 0; i++)
        rc = toid_fields_set(f, &in, keys[i], strlen(keys[i]), vals[i], strlen(vals[i]));
    uint8_t bin[TOID_BIN_MAX];
    if (rc == 0)
        rc = toid_make(f, &in, TOID_EPOCH_DEFAULT, bin);
    if (strncmp(expected, "err ", 4) == 0) {
        expect_error(rc, expected);
        return;
    }
    if (rc < 0) {
        FAILV("make failed: %s", toid_strerror(rc));
        return;
    }
    char out[TOID_TEXT_MAX];
    toid_encode(f, bin, out, sizeof out);
    if (strcmp(out, expected) != 0)
        FAILV("encoded %s, want %s", out, expected);
    else
        PASSV();
}

static void run_range(char *prefix, char *expected) {
    size_t len = unescape(prefix);
    uint64_t lo = 0, hi = 0;
    int rc = toid_uid11_prefix_range(prefix, len, &lo, &hi, NULL);
    if (strncmp(expected, "err ", 4) == 0) {
        expect_error(rc, expected);
        return;
    }
    char want[128];
    snprintf(want, sizeof want, "lo=%llu hi=%llu", (unsigned long long)lo, (unsigned long long)hi);
    if (rc < 0)
        FAILV("range failed: %s", toid_strerror(rc));
    else if (strcmp(want, expected) != 0)
        FAILV("got %s, want %s", want, expected);
    else
        PASSV();
}

static const char *vectors_dir;   /* the program's parameter */
/* The second parameter, if any: the repository's own vectors (tests/vectors:
 * the read-only variants'), read where vectors_dir has no file. */
static const char *own_dir;

/* every format's file (one case: a format added to the library is read
 * without a change here) */
TEST_CASE(all_files) {
    long total = 0;
    for (int f = 0; f < TOID_FORMAT_COUNT; f++) {
        const char *name = toid_format_get((toid_format)f)->name;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.tsv", vectors_dir, name);
        FILE *fp = fopen(path, "r");
        if (!fp && own_dir) {
            snprintf(path, sizeof path, "%s/%s.tsv", own_dir, name);
            fp = fopen(path, "r");
        }
        if (!fp) {
            check_failed++;
            fprintf(stderr, "FAIL: cannot open %s\n", path);
            continue;
        }
        char line[4096];
        long cases = 0;
        where_file = path;
        where_line = 0;
        while (fgets(line, sizeof line, fp)) {
            where_line++;
            line[strcspn(line, "\r\n")] = '\0';
            if (line[0] == '#' || line[0] == '\0')
                continue;
            char *col[4] = {0};
            char *p = line;
            for (int c = 0; c < 4; c++) {
                col[c] = p;
                char *tab = c < 3 ? strchr(p, '\t') : NULL;
                if (c < 3 && !tab) {
                    col[c + 1] = NULL;
                    break;
                }
                if (tab) {
                    *tab = '\0';
                    p = tab + 1;
                }
            }
            if (!col[3] || strcmp(col[0], name) != 0) {
                FAILV("malformed line");
                continue;
            }
            cases++;
            if (strcmp(col[1], "decode") == 0)
                run_decode((toid_format)f, col[2], col[3]);
            else if (strcmp(col[1], "encode") == 0)
                run_encode((toid_format)f, col[2], col[3]);
            else if (strcmp(col[1], "range") == 0)
                run_range(col[2], col[3]);
            else
                FAILV("unknown operation %s", col[1]);
        }
        fclose(fp);
        printf("%-20s %ld cases\n", name, cases);
        if (cases == 0) {
            check_failed++;
            fprintf(stderr, "FAIL: %s has no cases\n", path);
        }
        total += cases;
    }
    printf("%ld vector cases in all\n", total);
}

static int setup(int nparam, char **param) {
    if (nparam != 1 && nparam != 2) {
        fprintf(stderr, "usage: test_vectors [--list] [CASE...] VECTORS_DIR [OWN_VECTORS_DIR]\n");
        return 2;
    }
    vectors_dir = param[0];
    own_dir = nparam == 2 ? param[1] : NULL;
    return 0;
}

int main(int argc, char **argv) {
    return check_main(argc, argv, setup, NULL);
}
