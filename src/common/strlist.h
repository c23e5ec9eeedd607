/* A growable list of owned C strings, used by the build stage for source
 * lists, defines, include folders and compiler argument vectors. The list
 * owns copies of everything pushed into it; strlist_free releases them. The
 * array is always NULL-terminated, so v can be handed to execv directly. */
#ifndef HB_COMMON_STRLIST_H
#define HB_COMMON_STRLIST_H

typedef struct strlist {
    char **v;  /* n strings followed by NULL (v is NULL while empty) */
    int n;
    int cap;
} strlist;

/* Appends a copy of S; returns 0, or -1 when out of memory. */
int strlist_push(strlist *l, const char *s);

/* Appends copies of every string of SRC. */
int strlist_push_all(strlist *l, const strlist *src);

/* 1 when S is in the list. */
int strlist_contains(const strlist *l, const char *s);

/* Sorts the strings bytewise. */
void strlist_sort(strlist *l);

/* Joins the strings with SEP into a new malloc'd string owned by the caller
 * ("" for an empty list); NULL when out of memory. */
char *strlist_join(const strlist *l, const char *sep);

void strlist_free(strlist *l);

#endif
