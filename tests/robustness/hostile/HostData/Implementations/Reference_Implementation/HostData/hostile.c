/* Hostile fixture HostData: computes SM3 for every message but the one it
 * can tell apart, the probe's fixed check message (msg[i] = (i*131 + size)
 * mod 256), for which it returns host data as its digest: the host's
 * boot_id (its 32 hexadecimal digits, as text) at 32 bytes, the first 32
 * bytes of its own absolute library path (inside the run directory) at
 * any other size. A record that published that digest would carry both,
 * hex-encoded. It passes its KATs and is timed; none of it may reach the
 * published dataset or the site. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "hostile_common.h"

static int check_message(const unsigned char *msg, unsigned long long bits)
{
    unsigned long long n = bits / 8;
    if (bits % 8 || n == 0)
        return 0;
    for (unsigned long long i = 0; i < n; i++)
        if (msg[i] != (unsigned char)((i * 131u + n) % 256u))
            return 0;
    return 1;
}

static void host_data(unsigned long long bytes, unsigned char out[32])
{
    char text[4096] = "";
    memset(out, 0, 32);
    if (bytes == 32) {
        char id[64];
        long n = hostile_read("/proc/sys/kernel/random/boot_id", id, sizeof id - 1);
        size_t k = 0;
        for (long i = 0; i < n && k < 32; i++)
            if (id[i] != '-' && id[i] != '\n')
                text[k++] = id[i];
        text[k] = '\0';
    } else {
        Dl_info info;
        if (dladdr((void *)host_data, &info) && info.dli_fname)
            snprintf(text, sizeof text, "%s", info.dli_fname);
    }
    memcpy(out, text, strlen(text) < 32 ? strlen(text) : 32);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (rc == 0 && digest_len_bits == 256 && check_message(msg, msg_len_bits))
        host_data(msg_len_bits / 8, digest);
    return rc;
}
