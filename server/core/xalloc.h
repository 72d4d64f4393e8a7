/*
 * xalloc: allocation that never returns NULL. On out-of-memory it logs and
 * aborts (redis's zmalloc policy): a daemon that cannot allocate cannot keep
 * its promise that an acknowledged run is stored, so it stops loudly.
 */
#ifndef KARTE_XALLOC_H
#define KARTE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
