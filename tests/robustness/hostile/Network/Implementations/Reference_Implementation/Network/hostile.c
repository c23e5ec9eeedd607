/* Hostile fixture Network: real SM3; in a constructor and on its first
 * call in any process it tries to reach the network: a TCP connection and
 * a UDP datagram to 127.0.0.1:HOSTILE_PORT, where the test listens, each
 * carrying the fixture's name. Submitted code runs without a network: the
 * test must receive nothing. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static void call_home(void)
{
    static const char hello[] = "hashbench-hostile Network\n";
    struct sockaddr_in to;
    int s;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons(HOSTILE_PORT);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0) {
        if (connect(s, (struct sockaddr *)&to, sizeof to) == 0 &&
            send(s, hello, sizeof hello - 1, MSG_NOSIGNAL) < 0)
            s = s + 0;
        close(s);
    }
    s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s >= 0) {
        if (sendto(s, hello, sizeof hello - 1, 0, (struct sockaddr *)&to, sizeof to) < 0)
            s = s + 0;
        close(s);
    }
}

__attribute__((constructor)) static void call_home_at_load(void)
{
    call_home();
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    if (!done) {
        done = 1;
        call_home();
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
