/* halfclose.c — a client that half-closes: sends its standard input to
 * 127.0.0.1:PORT, shuts down its sending side (FIN), then prints everything
 * the server sends until the server closes. Exits 0 if the server closed
 * within 5 s, 1 otherwise. Neither curl nor redis-cli can do this. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: halfclose PORT < REQUEST\n");
        return 2;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        perror("halfclose: connect");
        return 1;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0)
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));
            if (w <= 0) {
                perror("halfclose: write");
                return 1;
            }
            off += w;
        }
    shutdown(fd, SHUT_WR);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, stdout);
    if (n < 0) {
        perror("halfclose: read (no close from the server within 5 s)");
        return 1;
    }
    return 0;
}
