/* diag: a list of located messages (file:line:col: severity: text), the one currency of
 * errors between grader and its callers. Libraries fill a diag_list; the front end
 * decides how to show it. */
#ifndef PMPPLAB_DIAG_H
#define PMPPLAB_DIAG_H

#include <stdio.h>

enum diag_severity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

struct diag {
	char *file;       /* may be NULL */
	unsigned line;    /* 0 = unknown */
	unsigned col;     /* 0 = unknown */
	enum diag_severity severity;
	char *message;    /* what failed first, then why, then what to do */
};

struct diag_list {
	struct diag *items;
	unsigned n, cap;
};

void diag_list_init(struct diag_list *l);
void diag_list_release(struct diag_list *l);
/* Appends a message; printf-style. Never fails (on ENOMEM the message is dropped). */
void diag_add(struct diag_list *l, enum diag_severity sev, const char *file, unsigned line,
	      unsigned col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
unsigned diag_count(const struct diag_list *l, enum diag_severity sev);
/* "file:line:col: error: message", one a line. */
void diag_print(FILE *f, const struct diag_list *l);
const char *diag_severity_name(enum diag_severity s);

#endif
