/* notify_recv.c — a stand-in for systemd's notification socket in the
 * server tests: binds a Unix datagram socket at PATH and prints each message
 * received (newlines as '|'), one a line, until COUNT messages or SECONDS. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: notify_recv PATH COUNT SECONDS\n");
        return 2;
    }
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    if (strlen(argv[1]) >= sizeof sun.sun_path)
        return 2;
    strcpy(sun.sun_path, argv[1]);
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0) {
        perror("notify_recv");
        return 1;
    }
    int want = atoi(argv[2]);
    time_t end = time(NULL) + atoi(argv[3]);
    for (int got = 0; got < want && time(NULL) < end;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0)
            continue;
        char buf[512];
        ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
            continue;
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] == '\n')
                buf[i] = '|';
        buf[n] = '\0';
        printf("%s\n", buf);
        fflush(stdout);
        got++;
    }
    unlink(argv[1]);
    return 0;
}
