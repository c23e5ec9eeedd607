/* Growable list of owned strings: see strlist.h. */
#include "common/strlist.h"

#include <stdlib.h>
#include <string.h>

int strlist_push(strlist *l, const char *s)
{
    if (l->n + 2 > l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return -1;
    l->v[l->n++] = copy;
    l->v[l->n] = NULL;
    return 0;
}

int strlist_push_all(strlist *l, const strlist *src)
{
    for (int i = 0; i < src->n; i++)
        if (strlist_push(l, src->v[i]) != 0)
            return -1;
    return 0;
}

int strlist_contains(const strlist *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 1;
    return 0;
}

static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void strlist_sort(strlist *l)
{
    if (l->n > 1)
        qsort(l->v, (size_t)l->n, sizeof *l->v, compare);
}

char *strlist_join(const strlist *l, const char *sep)
{
    size_t len = 1, seplen = strlen(sep);
    for (int i = 0; i < l->n; i++)
        len += strlen(l->v[i]) + seplen;
    char *out = malloc(len);
    if (!out)
        return NULL;
    char *p = out;
    for (int i = 0; i < l->n; i++) {
        if (i > 0) {
            memcpy(p, sep, seplen);
            p += seplen;
        }
        size_t k = strlen(l->v[i]);
        memcpy(p, l->v[i], k);
        p += k;
    }
    *p = '\0';
    return out;
}

void strlist_free(strlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
