/* The probe's exit codes and the status words it prints, shared by the probe
 * (src/probe) and the measurement stage that reads its output
 * (src/measure/probe_run.c). Each failure a submission can cause has its own
 * code so a record can say exactly what went wrong. */
#ifndef HB_PROBE_CODES_H
#define HB_PROBE_CODES_H

#include <stddef.h>
#include <string.h>

enum probe_exit {
    PROBE_OK = 0,
    PROBE_USAGE = 2,         /* bad command line */
    PROBE_LOADFAIL = 3,      /* dlopen or dlsym(CryptHash) failed */
    PROBE_NONDETERMINISTIC = 4, /* two calls on one message, two digests */
    PROBE_INPUT_MODIFIED = 5,   /* the message changed during a call */
    PROBE_OVERFLOW = 6,      /* a guard byte around the digest changed */
    PROBE_ERROR_RETURN = 7,  /* CryptHash returned non-zero */
    PROBE_NOCOUNTER = 8,     /* the requested counter is not available */
    PROBE_SETUP = 9,         /* pinning, memory mapping or threads failed */
    PROBE_UNWRITTEN = 10     /* some digest bytes were left as they were */
};

/* The status word printed for an exit code ("ok", "LOADFAIL", ...). */
static inline const char *probe_exit_word(int code)
{
    switch (code) {
    case PROBE_OK: return "ok";
    case PROBE_USAGE: return "USAGE";
    case PROBE_LOADFAIL: return "LOADFAIL";
    case PROBE_NONDETERMINISTIC: return "NONDETERMINISTIC";
    case PROBE_INPUT_MODIFIED: return "INPUT_MODIFIED";
    case PROBE_OVERFLOW: return "OVERFLOW";
    case PROBE_ERROR_RETURN: return "ERROR";
    case PROBE_NOCOUNTER: return "NOCOUNTER";
    case PROBE_SETUP: return "SETUP";
    case PROBE_UNWRITTEN: return "UNWRITTEN";
    default: return "UNKNOWN";
    }
}

/* WORD as one of the status words above (the probe's failure line is
 * written where the library can write too: any other word is "UNKNOWN"). */
static inline const char *probe_known_word(const char *word, size_t len)
{
    for (int code = PROBE_OK; code <= PROBE_UNWRITTEN; code++) {
        const char *w = probe_exit_word(code);
        if (strlen(w) == len && strncmp(w, word, len) == 0)
            return w;
    }
    return "UNKNOWN";
}

/* The message rule, as recorded: byte i of a SIZE-byte message. */
#define PROBE_MESSAGE_RULE "msg[i] = (i*131 + size) mod 256"
static inline unsigned char probe_message_byte(unsigned long long i,
                                               unsigned long long size)
{
    return (unsigned char)((i * 131u + size) % 256u);
}

#endif
