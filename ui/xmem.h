/* xmem: allocation that aborts on failure. The interactive binary has nothing sensible
 * to do without memory (house style: "The interactive binary may use an aborting xmalloc");
 * the grader library below it returns errors instead. */
#ifndef PMPPLAB_UI_XMEM_H
#define PMPPLAB_UI_XMEM_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* asprintf that aborts on failure. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
