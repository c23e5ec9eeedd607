/* Hostile fixture IncbinSecret: the assembler's .incbin copies a host file
 * (the test's canary, HOSTILE_SECRET) into the library's read-only data,
 * and the probe is handed its first 32 bytes as the digest. An assembler
 * that can read the host's files puts them into the library (kept in the
 * run directory) and into the published records. The build must fail,
 * or at least the file's content reach nothing hashbench keeps. */
#define _GNU_SOURCE
#include "hostile_common.h"

__asm__(".pushsection .rodata\n"
        ".globl hostile_leak\n"
        ".hidden hostile_leak\n"
        ".type hostile_leak, @object\n"
        "hostile_leak:\n"
        ".incbin \"" HOSTILE_SECRET "\"\n"
        ".zero 64\n"
        ".popsection\n");
extern const unsigned char hostile_leak[];

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (rc == 0 && hostile_in_probe())
        memcpy(digest, hostile_leak, 32);
    return rc;
}
