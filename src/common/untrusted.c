/* Raw text of submitted code beside hashbench's wording: see untrusted.h. */
#include "common/untrusted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hb_untrusted_append(char *buf, size_t sz, const char *text, size_t len)
{
    size_t n = strlen(buf);
    if (!text || !text[0] || n + 2 >= sz)
        return;
    buf[n++] = HB_UNTRUSTED_MARK;
    for (size_t i = 0; i < len && text[i] && n + 1 < sz; i++) {
        unsigned char c = (unsigned char)text[i];
        buf[n++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    }
    buf[n] = '\0';
}

size_t hb_untrusted_split(const char *s, const char **raw)
{
    const char *m = strchr(s, HB_UNTRUSTED_MARK);
    if (raw)
        *raw = m ? m + 1 : NULL;
    return m ? (size_t)(m - s) : strlen(s);
}

/* The wording's length without trailing separators. */
static size_t wording_len(const char *s)
{
    size_t n = hb_untrusted_split(s, NULL);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == ':' || s[n - 1] == ';'))
        n--;
    return n;
}

void hb_untrusted_wording(char *buf, size_t sz, const char *text)
{
    snprintf(buf, sz, "%.*s", (int)wording_len(text), text);
}

void hb_untrusted_set(json_t *obj, const char *key, const char *text)
{
    const char *raw;
    hb_untrusted_split(text, &raw);
    json_object_set_new(obj, key, json_stringn(text, wording_len(text)));
    if (raw) {
        char name[128];
        snprintf(name, sizeof name, "raw_%s" HB_UNTRUSTED_SUFFIX, key);
        json_object_set_new(obj, name, json_string(raw));
    }
}

int hb_untrusted_key(const char *key)
{
    size_t n = strlen(key), s = strlen(HB_UNTRUSTED_SUFFIX);
    return n >= s && strcmp(key + n - s, HB_UNTRUSTED_SUFFIX) == 0;
}
