/* Hostile fixture SlowSize: real SM3, but every call on a 1024-byte
 * message first sleeps 50 ms (the KATs have no message of that length, so
 * it passes them). A planner that insists on its minimum number of calls
 * or trials spends seconds to minutes on that one size; the campaign's
 * time budget per (instance, size) must hold. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <time.h>

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (msg_len_bits == 1024 * 8) {
        struct timespec slow = {0, 50 * 1000 * 1000};
        nanosleep(&slow, NULL);
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
