/* replay.c — runs a fuzz target over corpus files without libFuzzer: each
 * argument is a file or a directory of files. Used by CI under ASan+UBSan. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long runs;

static int run_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *nb = realloc(buf, cap);
            if (!nb)
                abort();
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        if (got == 0)
            break;
        len += got;
    }
    fclose(fp);
    /* a copy of exactly len bytes, so ASan sees any read past the input */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact)
        abort();
    memcpy(exact, buf, len);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    free(buf);
    runs++;
    return 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) < 0)
                return 1;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (run_file(path) < 0)
                return 1;
        }
        if (d)
            closedir(d);
    }
    if (runs == 0) {
        fprintf(stderr, "replay: no corpus files\n");
        return 1;
    }
    printf("replayed %ld inputs\n", runs);
    return 0;
}
